"""Persistent programs and descriptor loads on and off, in one process: tutorial 03's matmul
(fp16) and the same kernel on bf16 and fp8 operands (`python/tests/gpu/matmul_dtypes.py`), each
at its first autotune config (128x256x64, 8 warps, 3 stages), compiled by Tritium with
-tritium-persistent-programs and -tritium-descriptor-loads each on (the package's default) and
off, by Triton, and cuBLAS, alternating, five rounds. GPU machine, with the wheel on PYTHONPATH:

    python3 bench/persistent-ab.py [N ...]      (default 4096 8192: N³)

Every result is checked against cuBLAS's with the output poisoned (NaN) first; one line per kind
and size: median µs of cuBLAS, then each form over cuBLAS and over Triton.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
GPU_TESTS = os.path.join(HERE, "..", "python", "tests", "gpu")
sys.path.insert(0, GPU_TESTS)
from run_one import compiled_with, load  # noqa: E402
import triton.testing  # noqa: E402


def first_config(module):
    kernel = module.matmul_kernel
    kernel.configs = kernel.configs[:1]
    kernel.cache = {}
    return module


def loaded(path, backend):
    return first_config(load(os.path.join(GPU_TESTS, path), backend))


# Tritium's forms: (persistent programs, descriptor loads).
FORMS = {
    "persistent+tma": (True, True),
    "persistent": (True, False),
    "tile+tma": (False, True),
    "tile": (False, False),
}
t03 = {name: loaded("t03_matmul.py", "tritium") for name in FORMS}
t03["triton"] = loaded("t03_matmul.py", "triton")
dtypes = {name: loaded("matmul_dtypes.py", "tritium") for name in FORMS}
dtypes["triton"] = loaded("matmul_dtypes.py", "triton")
operands = dtypes["triton"].operands


def fp16_form(module):
    # Tutorial 03's wrapper allocates its output (a copy into `c` would be timed too).
    return lambda a, b, c: module.matmul(a, b)


def dtype_form(module):
    return lambda a, b, c: module.matmul(a, b, c)


KINDS = {
    "fp16": (lambda n: (torch.randn((n, n), device="cuda", dtype=torch.float16),
                        torch.randn((n, n), device="cuda", dtype=torch.float16),
                        torch.empty((n, n), device="cuda", dtype=torch.float16)),
             fp16_form, t03, lambda a, b: (lambda: torch.matmul(a, b))),
    "bf16": (lambda n: operands("bf16", n, n, n), dtype_form, dtypes,
             lambda a, b: dtypes["triton"].cublas("bf16", a, b)),
    "fp8": (lambda n: operands("fp8", n, n, n), dtype_form, dtypes,
            lambda a, b: dtypes["triton"].cublas("fp8", a, b)),
}

torch.manual_seed(0)
for n in [int(x) for x in sys.argv[1:]] or [4096, 8192]:
    for kind, (make, form, modules, cublas_of) in KINDS.items():
        a, b, c = make(n)
        cublas = cublas_of(a, b)
        ref = cublas().float()
        runs = {name: form(m) for name, m in modules.items()}
        for name, (persistent, descriptors) in FORMS.items():
            runs[name] = compiled_with(runs[name], persistent_programs=persistent,
                                       descriptor_loads=descriptors)
        times = {name: [] for name in (*runs, "cublas")}
        for _ in range(5):
            for name, run in runs.items():
                c.fill_(float("nan"))
                # Poison a block of the output's size and free it: a wrapper allocating its own
                # output gets that block from PyTorch's caching allocator.
                torch.full_like(c, float("nan"))
                out = run(a, b, c)
                assert torch.allclose(out.float(), ref, atol=0.5, rtol=0.02), (name, kind, n)
                times[name].append(triton.testing.do_bench(lambda: run(a, b, c), warmup=50, rep=300))
            times["cublas"].append(triton.testing.do_bench(cublas, warmup=50, rep=300))
        t = {name: statistics.median(v) * 1e3 for name, v in times.items()}
        cb, tri = t["cublas"], t["triton"]
        forms = ", ".join(f"{name} {t[name] / cb:.3f} / {t[name] / tri:.3f}" for name in FORMS)
        print(f"{kind} {n}^3: cublas {cb:.1f} us, triton {tri / cb:.3f} of it; "
              f"tritium over cublas / over triton: {forms}", flush=True)
