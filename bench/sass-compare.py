#!/usr/bin/env python3
"""Static comparison with Triton 3.6 on a machine without a GPU: registers, spills and SASS size.

    python3 bench/sass-compare.py OUTDIR [CASE ...]
    python3 bench/sass-compare.py --python OUTDIR FILE KERNEL SIGNATURE WARPS STAGES NAME

For each checked-in case (test/Inputs/corpus/CASE.ttir with Triton's CASE.ttgir beside it; also
test/Inputs/kernels/dot and the four shared kernels when named), compiles

  * Triton's side: Triton's own TTGIR through Triton 3.6's backend (`triton.compile` of the .ttgir
    for cuda:90, which needs no GPU) to PTX and a cubin with Triton's bundled ptxas;
  * Tritium's side: the TTIR through `tritium compile --arch sm_90a` to PTX, then the same ptxas;

and prints registers, spilled bytes (the stack frame and local memory cuobjdump reports) and SASS
instruction count (nvdisasm, NOPs left out) side by side; for a kernel with a tensor-core loop,
also the length of its innermost such loop (the K loop) and, with --python, the `R2UR` moves in
it. OUTDIR keeps both sides' TTGIR, LLVM IR, PTX, cubin and SASS files (CASE.triton.sass,
CASE.tritium.sass) for diffing.

With --python, one kernel of a Python file (a tutorial of python/tests/gpu, written against
`import tritium as triton`) is compiled by both from the same source: Triton's side from a copy
whose `tritium` imports read `triton`, Tritium's with `tritium compile -n KERNEL -s SIGNATURE`
(the signature as `tritium compile` takes it: types with `:16` hints, literals for constexprs and
integers specialized to 1).

The corpus is memory-bound (stages do not matter); for a dot case, set NUM_STAGES to the stages
its Triton TTGIR was made with (the dot cases' default is 1, `_s3` ones 3).

Needs a Python with `triton` 3.6 installed (TRITON_PYTHON, default python3; `pip install triton==3.6.0`
works without a GPU) and `tritium` (TRITIUM, default target/release then target/debug). Registers
and SASS size are what ptxas makes of the PTX: a proxy for speed, not a measurement of it; the
driver JIT on the GPU machine may be a newer ptxas than Triton's bundled one.
"""
import json
import os
import re
import subprocess
import sys

from tritium_binary import tritium

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEARCH = [os.path.join(ROOT, "test", "Inputs", d) for d in ("corpus", os.path.join("kernels", "dot"), "kernels")]

# Both Triton-side scripts end here: the compiled kernel's stages written beside `out`, and what
# the caller needs (the bundled tools' directory, the warps) printed as JSON.
WRITE_OUTPUTS = r"""
open(out + ".ptx", "w").write(kernel.asm["ptx"])
open(out + ".ll", "w").write(kernel.asm["llir"])
open(out + ".ttgir", "w").write(kernel.asm["ttgir"])
open(out + ".cubin", "wb").write(kernel.asm["cubin"])
bin_dir = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
print(json.dumps(dict(bin=bin_dir, num_warps=kernel.metadata.num_warps, shared=kernel.metadata.shared)))
"""

TRITON_PYTHON_SIDE = r"""
import json, os, re, sys, importlib.util, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
source, kernel_name, signature, warps, stages, out = sys.argv[1:7]
try:
    import torch  # noqa: F401  (the tutorials import it; compiling does not need it)
except ImportError:
    import types
    class Anything:
        def __getattr__(self, name): return Anything()
        def __call__(self, *args, **kwargs): return Anything()
    stub = types.ModuleType("torch")
    stub.__getattr__ = lambda name: Anything()
    sys.modules["torch"] = stub
spec = importlib.util.spec_from_file_location("tutorial", source)
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
except Exception:
    pass  # module-level code past the kernels (benchmarks, device queries) may need a GPU
fn = getattr(module, kernel_name)
while not isinstance(fn, triton.runtime.jit.JITFunction):  # autotuned or heuristics-wrapped
    fn = fn.fn
entries, depth, current = [], 0, ""
for ch in signature:  # commas inside (), [] and <> (tensordesc<fp16[64, 64]>) do not split
    depth += ch in "([<"
    depth -= ch in ")]>"
    if ch == "," and depth == 0:
        entries.append(current.strip())
        current = ""
    else:
        current += ch
entries.append(current.strip())
types, constants, attrs = {}, {}, {}
for i, (name, entry) in enumerate(zip(fn.arg_names, entries)):
    if re.fullmatch(r"-?\d+|True|False|\".*\"", entry):
        types[name], constants[name] = "constexpr", eval(entry)
    else:
        ty, _, divisibility = entry.partition(":")
        types[name] = ty
        if divisibility:
            attrs[(i,)] = [["tt.divisibility", int(divisibility)]]
kernel = triton.compile(ASTSource(fn, types, constexprs=constants, attrs=attrs),
                        target=GPUTarget("cuda", 90, 32),
                        options={"num_warps": int(warps), "num_stages": int(stages)})
"""+WRITE_OUTPUTS

TRITON_SIDE = r"""
import json, os, sys, triton
from triton.backends.compiler import GPUTarget
ttgir, out = sys.argv[1], sys.argv[2]
kernel = triton.compile(ttgir, target=GPUTarget("cuda", 90, 32))
"""+WRITE_OUTPUTS


def find_case(name):
    for d in SEARCH:
        if os.path.exists(os.path.join(d, name + ".ttir")) and os.path.exists(os.path.join(d, name + ".ttgir")):
            return d
    return None


def all_cases():
    d = SEARCH[0]
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".ttir") and os.path.exists(os.path.join(d, f[:-5] + ".ttgir")))




def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        program = os.path.basename(cmd[0]) + (" " + cmd[1] if cmd[1:2] != ["-c"] else " -c ...")
        raise RuntimeError(f"{program}: {(r.stderr or r.stdout).strip()[-600:]}")
    return r.stdout


def resources(bin_dir, cubin):
    usage = run([os.path.join(bin_dir, "cuobjdump"), "--dump-resource-usage", cubin])
    m = re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", usage)
    regs, stack, shared, local = (int(g) for g in m.groups())
    sass = run([os.path.join(bin_dir, "nvdisasm"), cubin])
    # Instruction lines only: data sections (line tables, embedded PTX text) print as `.byte`.
    instructions = [line for line in sass.splitlines() if re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+[^.\s]", line)]
    count = sum(1 for line in instructions if not re.search(r"\bNOP\b", line))
    loop = mma_loop(sass)
    return dict(regs=regs, stack=stack, local=local, shared=shared, sass=count,
                loop=len(loop) if loop is not None else None,
                loop_r2ur=sum(1 for i in loop if i.startswith("R2UR")) if loop is not None else None), sass


def mma_loop(sass):
    """The instructions (NOPs left out) of the innermost loop — a backward branch's span — that
    issues a tensor-core instruction, or None: the K loop of a matmul, whose length and `R2UR`
    moves (a descriptor ptxas could not keep in uniform registers) the table reports."""
    labels, instructions = {}, []
    for line in sass.splitlines():
        m = re.match(r"^\s*(\.L_x_\d+):", line)
        if m:
            labels[m.group(1)] = len(instructions)
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+([^.\s][^;]*);", line)
        if m:
            instructions.append(m.group(1).strip())
    best = None
    for end, text in enumerate(instructions):
        m = re.search(r"BRA `?\(?(\.L_x_\d+)", text)
        if not m or labels.get(m.group(1), end + 1) > end:
            continue
        start = labels[m.group(1)]
        if any(re.search(r"\b[HQI]GMMA|\bHMMA|\bIMMA", x) for x in instructions[start:end + 1]):
            if best is None or end - start < best[1] - best[0]:
                best = (start, end)
    if best is None:
        return None
    return [x for x in instructions[best[0]:best[1] + 1] if not re.search(r"\bNOP\b", x)]


def compare(name, outdir, triton_python):
    d = find_case(name)
    if d is None:
        raise RuntimeError("no .ttir with Triton's .ttgir beside it")
    base = os.path.join(outdir, name)
    info = json.loads(run([triton_python, "-c", TRITON_SIDE, os.path.join(d, name + ".ttgir"), base + ".triton"]))
    bin_dir, warps = info["bin"], info["num_warps"]
    stages = ["--num-stages", os.environ["NUM_STAGES"]] if os.environ.get("NUM_STAGES") else []
    return tritium_side(outdir, name, bin_dir,
                        [os.path.join(d, name + ".ttir"), "--num-warps", str(warps), *stages, "--arch", "sm_90a"],
                        info)


def ctas_per_sm(regs, dynamic_shared, warps):
    """Programs an sm_90 SM holds at once, from registers (65,536 a SM, allocated per warp in
    units of 256 after rounding each thread's count up to 8), shared memory (233,472 bytes a SM,
    1 KiB of it reserved per program) and warps (64 a SM)."""
    per_warp = -(-((regs + 7) // 8 * 8 * 32) // 256) * 256
    by_regs = (65536 // per_warp) // warps
    by_shared = 233472 // (dynamic_shared + 1024)
    return min(by_regs, by_shared, 64 // warps, 32)


def tritium_side(outdir, name, bin_dir, compile_args, triton_info):
    """Compiles with `tritium compile COMPILE_ARGS` and assembles with Triton's ptxas; writes both
    SASS listings; returns Triton's and Tritium's resources (Triton's cubin is already there), each
    with its dynamic shared memory and the programs an SM holds."""
    base = os.path.join(outdir, name)
    triton, triton_sass = resources(bin_dir, base + ".triton.cubin")
    triton["dynamic_shared"] = triton_info["shared"]
    triton["ctas_per_sm"] = ctas_per_sm(triton["regs"], triton_info["shared"], triton_info["num_warps"])
    tdir = os.path.join(outdir, name + ".tritium")
    os.makedirs(tdir, exist_ok=True)
    env = dict(os.environ, TRITIUM_CACHE_DIR=os.path.join(outdir, ".cache"))
    run([tritium(), "compile", *compile_args, "-o", tdir, "-on", name, "--emit", "ttgir,ll"], env=env)
    run([os.path.join(bin_dir, "ptxas"), "-arch=sm_90a", os.path.join(tdir, name + ".ptx"), "-o",
         base + ".tritium.cubin"])
    ours, ours_sass = resources(bin_dir, base + ".tritium.cubin")
    with open(os.path.join(tdir, name + ".json")) as f:
        metadata = json.load(f)
    ours["dynamic_shared"] = metadata["shared"]
    ours["ctas_per_sm"] = ctas_per_sm(ours["regs"], metadata["shared"], metadata["num_warps"])
    with open(base + ".triton.sass", "w") as f:
        f.write(triton_sass)
    with open(base + ".tritium.sass", "w") as f:
        f.write(ours_sass)
    return triton, ours


def compare_python(outdir, source, kernel, signature, warps, stages, name, triton_python):
    base = os.path.join(outdir, name)
    text = open(source).read()
    text = re.sub(r"^import tritium as triton$", "import triton", text, flags=re.M)
    text = re.sub(r"^import tritium\.language as tl$", "import triton.language as tl", text, flags=re.M)
    text = re.sub(r"^(from|import) tritium", r"\1 triton", text, flags=re.M)
    # The tutorials pick a device at import; compiling needs none.
    text = re.sub(r"^DEVICE = .*$", "DEVICE = None", text, flags=re.M)
    copy = base + ".triton_source.py"
    with open(copy, "w") as f:
        f.write(text)
    info = json.loads(run([triton_python, "-c", TRITON_PYTHON_SIDE, copy, kernel, signature, warps, stages,
                           base + ".triton"]))
    return tritium_side(outdir, name, info["bin"],
                        [source, "-n", kernel, "-s", signature, "-w", warps, "--num-stages", stages,
                         "--arch", "sm_90a"], info)


def main(argv):
    if not argv or (argv[0].startswith("-") and argv[0] != "--python"):
        sys.exit(__doc__)
    if argv[0] == "--python":
        if len(argv) != 8:
            sys.exit(__doc__)
        outdir = argv[1]
        os.makedirs(outdir, exist_ok=True)
        try:
            t, o = compare_python(outdir, *argv[2:8], os.environ.get("TRITON_PYTHON", "python3"))
        except (RuntimeError, json.JSONDecodeError) as e:
            sys.exit(f"{argv[7]}: {e}")
        print(f"{'':12} {'regs':>5} {'spilled':>8} {'SASS':>6} {'smem':>7} {'CTAs/SM':>8} {'MMA loop':>9} {'R2UR':>5}")
        for side, r in (("Triton", t), ("Tritium", o)):
            loop = "" if r["loop"] is None else f"{r['loop']:9} {r['loop_r2ur']:5}"
            print(f"{side:12} {r['regs']:5} {r['stack'] + r['local']:8} {r['sass']:6} {r['dynamic_shared']:7} "
                  f"{r['ctas_per_sm']:8} {loop}")
        return 0
    outdir, only = argv[0], argv[1:]
    os.makedirs(outdir, exist_ok=True)
    triton_python = os.environ.get("TRITON_PYTHON", "python3")
    print(f"{'case':24} {'regs T/ours':>12} {'spilled T/ours':>15} {'SASS T/ours':>14} {'ratio':>6}")
    failed, results = 0, {}
    for name in only or all_cases():
        try:
            t, o = compare(name, outdir, triton_python)
        except (RuntimeError, StopIteration, json.JSONDecodeError) as e:
            print(f"{name:24} FAIL {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
            failed += 1
            continue
        results[name] = dict(triton=t, tritium=o)
        spilled_t, spilled_o = t["stack"] + t["local"], o["stack"] + o["local"]
        flag = "  <-- spills" if spilled_o > spilled_t else ("  <-- regs" if o["regs"] > t["regs"] + 8 else "")
        loop = "" if t["loop"] is None or o["loop"] is None else f"  MMA loop {t['loop']}/{o['loop']}"
        print(f"{name:24} {t['regs']:>5}/{o['regs']:<6} {spilled_t:>7}/{spilled_o:<7} {t['sass']:>6}/{o['sass']:<7} "
              f"{o['sass'] / t['sass']:6.2f}{flag}{loop}", flush=True)
    with open(os.path.join(outdir, "sass-compare.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
