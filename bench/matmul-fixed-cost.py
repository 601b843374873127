"""Tutorial 03's f16 matmul at its 4096³ config (128x256x64, 8 warps, 3 stages), Tritium and Triton
timed in one process, alternating, with cuBLAS beside them, on M = N = 4096 and K from 64 up: the
time at small K is each tile's fixed cost (prologue, epilogue, launch), the slope the K loop's.
GPU machine, with the wheel on PYTHONPATH:

    python3 bench/matmul-fixed-cost.py [K ...]      (default 64 256 1024 4096)
    STAGES=4,5 python3 bench/matmul-fixed-cost.py 4096   (also both compilers at those stages)

One line per K: median µs of each (do_bench), Tritium / Triton and Tritium / cuBLAS; every
result checked against torch.matmul, the output's memory poisoned (NaN) first. With STAGES,
each compiler's kernel is also timed with the same tile at each of those pipeline depths
(`tritium_s4`, `triton_s4`, ...), in the same alternation.
"""
import os
import statistics
import sys

import torch

sys.path.insert(0, "python/tests/gpu")
from run_one import load  # noqa: E402
import triton.testing  # noqa: E402

mods = {be: load("python/tests/gpu/t03_matmul.py", be) for be in ("tritium", "triton")}
for m in mods.values():
    m.matmul_kernel.configs = m.matmul_kernel.configs[:1]
    m.matmul_kernel.cache = {}
for stages in [int(s) for s in os.environ.get("STAGES", "").split(",") if s]:
    for be in ("tritium", "triton"):
        m = load("python/tests/gpu/t03_matmul.py", be)
        m.matmul_kernel.configs = m.matmul_kernel.configs[:1]
        m.matmul_kernel.configs[0].num_stages = stages
        m.matmul_kernel.cache = {}
        mods[f"{be}_s{stages}"] = m
ks = [int(k) for k in sys.argv[1:]] or [64, 256, 1024, 4096]
M = N = 4096
torch.manual_seed(0)
for K in ks:
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    times = {be: [] for be in (*mods, "cublas")}
    for _ in range(5):
        for be, m in mods.items():
            # The wrapper allocates its output: poison a block of that size and free it, so the
            # caching allocator hands the same block to the next call.
            torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
            out = m.matmul(a, b)
            assert torch.allclose(out.float(), ref.float(), atol=0.5, rtol=0.02), (be, K)
            times[be].append(triton.testing.do_bench(lambda: m.matmul(a, b), warmup=50, rep=300))
        times["cublas"].append(triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=50, rep=300))
    t = {be: statistics.median(v) * 1e3 for be, v in times.items()}
    print(f"4096x4096x{K}: tritium {t['tritium']:8.1f} us  triton {t['triton']:8.1f} us  cublas {t['cublas']:8.1f} us  "
          f"tritium/triton {t['tritium'] / t['triton']:.3f}  tritium/cublas {t['tritium'] / t['cublas']:.3f}", flush=True)
    for name in (n for n in mods if "_s" in n):
        print(f"    {name} {t[name]:8.1f} us  over cublas {t[name] / t['cublas']:.3f}", flush=True)
