"""Runs one GPU tutorial's `run()` with Tritium or, with `triton`, the same file with only its
imports changed back to Triton's; prints the results as one JSON line after `RESULTS:`."""
import importlib.util
import json
import os
import sys
import tempfile
import traceback


def load(path, backend):
    name = os.path.splitext(os.path.basename(path))[0]
    if backend == "triton":
        text = open(path).read()
        text = text.replace("import tritium as triton", "import triton")
        text = text.replace("import tritium.language as tl", "import triton.language as tl")
        text = text.replace("from tritium.tools", "from triton.tools")
        text = text.replace("from tritium.language", "from triton.language")
        directory = tempfile.mkdtemp(prefix="tritium-vs-triton-")
        path = os.path.join(directory, f"{name}_triton.py")
        with open(path, "w") as f:
            f.write(text)
        name += "_triton"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compiled_with(call, persistent_programs=None, descriptor_loads=None):
    """`call` with Tritium's compile switches set while it compiles (each is read when a kernel
    first compiles; benchmarks compare the forms in one process). `None` leaves one as it is."""
    def run(*args, **kwargs):
        jit = sys.modules["tritium.runtime.jit"]
        switches = [(jit._PERSISTENT_PROGRAMS, persistent_programs),
                    (jit._DESCRIPTOR_LOADS, descriptor_loads)]
        saved = [list(switch) for switch, _ in switches]
        for switch, value in switches:
            if value is not None:
                switch[:] = [value]
        try:
            return call(*args, **kwargs)
        finally:
            for (switch, _), old in zip(switches, saved):
                switch[:] = old
    return run


def main():
    path, backend = sys.argv[1], sys.argv[2]
    try:
        results = load(path, backend).run()
    except BaseException:
        results = [dict(case=os.path.basename(path), ok=False, error=traceback.format_exc())]
    print("RESULTS:" + json.dumps(results, default=str))


if __name__ == "__main__":
    main()
