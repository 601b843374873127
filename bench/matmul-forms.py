"""One f16 matmul tile (128x256x64, 8 warps, 3 stages, grouped order) in five forms, each
compiled by Tritium and by Triton, timed in one process, alternating, with cuBLAS: tutorial 03's
pointer kernel (one program a tile), tutorial 11's persistent pointer kernel (tile loop fused with
the K loop or not), and descriptor (TMA) kernels one program a tile and persistent (fused or not).
Says which of persistence and TMA separates tutorial 03 from cuBLAS; tutorial 03 is timed as
Tritium compiles it by default (`-tritium-persistent-programs`, `-tritium-descriptor-loads`) and
one program a tile (both off). GPU machine, with the wheel on PYTHONPATH:

    python3 bench/matmul-forms.py [N ...]      (default 4096: N³)

Every result is checked against torch.matmul with the output poisoned (NaN) first; one line per
form: median µs of each compiler over five rounds, and each over cuBLAS.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import compiled_with, load  # noqa: E402
import triton.testing  # noqa: E402

GPU_TESTS = os.path.join(HERE, "..", "python", "tests", "gpu")
mods = {}
for be in ("tritium", "triton"):
    t03 = load(os.path.join(GPU_TESTS, "t03_matmul.py"), be)
    t03.matmul_kernel.configs = t03.matmul_kernel.configs[:1]
    t03.matmul_kernel.cache = {}
    t03_own = load(os.path.join(GPU_TESTS, "t03_matmul.py"), be)
    t03_own.matmul_kernel.configs = t03_own.matmul_kernel.configs[:1]
    t03_own.matmul_kernel.cache = {}
    mods[be] = dict(t03=t03, t03_own=t03_own,
                    t11=load(os.path.join(GPU_TESTS, "t11_persistent_matmul.py"), be),
                    forms=load(os.path.join(HERE, "matmul_forms_kernels.py"), be))


# Tutorial 03 as Tritium compiles it one program a tile (Triton's as it is).
one_program_a_tile = compiled_with(lambda m, a, b: m["t03_own"].matmul(a, b),
                                   persistent_programs=False, descriptor_loads=False)


FORMS = {
    "pointer, a program a tile (t03)": lambda m, a, b, c: one_program_a_tile(m, a, b),
    "pointer, t03 persistent + descriptors": lambda m, a, b, c: m["t03"].matmul(a, b),
    "pointer, persistent fused (t11)": lambda m, a, b, c: m["t11"].matmul_persistent(a, b, c, True),
    "pointer, persistent unfused (t11)": lambda m, a, b, c: m["t11"].matmul_persistent(a, b, c, False),
    "descriptor, a program a tile": lambda m, a, b, c: m["forms"].desc(a, b, c, False, False),
    "descriptor, persistent fused": lambda m, a, b, c: m["forms"].desc(a, b, c, True, True),
    "descriptor, persistent unfused": lambda m, a, b, c: m["forms"].desc(a, b, c, True, False),
}

torch.manual_seed(0)
for n in [int(x) for x in sys.argv[1:]] or [4096]:
    a = torch.randn((n, n), device="cuda", dtype=torch.float16)
    b = torch.randn((n, n), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    times = {}
    for _ in range(5):
        for form, run in FORMS.items():
            for be, m in mods.items():
                c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16)
                out = run(m, a, b, c)
                out = c if out is None else out
                assert torch.allclose(out.float(), ref.float(), atol=0.5, rtol=0.02), (be, form, n)
                times.setdefault((form, be), []).append(
                    triton.testing.do_bench(lambda: run(m, a, b, c), warmup=50, rep=300))
        times.setdefault(("cublas", ""), []).append(
            triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=50, rep=300))
    t = {key: statistics.median(v) * 1e3 for key, v in times.items()}
    cublas = t[("cublas", "")]
    print(f"{n}^3 cublas {cublas:.1f} us", flush=True)
    for form in FORMS:
        ours, theirs = t[(form, "tritium")], t[(form, "triton")]
        print(f"{n}^3 {form:36s} tritium {ours:7.1f} us ({ours / cublas:.3f} of cublas)  "
              f"triton {theirs:7.1f} us ({theirs / cublas:.3f})  tritium/triton {ours / theirs:.3f}", flush=True)
