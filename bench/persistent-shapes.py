"""Tritium's and Triton's persistent matmul (tutorial 11's kernel) timed in one process,
alternating, on shapes that separate per-tile overhead (8192x8192x512: 8 K steps a tile) from
K-loop speed (1024x4096x65536: one tile per SM), beside 4096³ and 8192³; GPU machine, with the
wheel on PYTHONPATH.

    python3 bench/persistent-shapes.py [unfused] [fused]
"""
import sys, statistics, torch
sys.path.insert(0, "python/tests/gpu")
from run_one import load
import triton.testing
mods = {be: load("python/tests/gpu/t11_persistent_matmul.py", be) for be in ("tritium", "triton")}
shapes = [(8192, 8192, 8192), (8192, 8192, 512), (1024, 4096, 65536), (4096, 4096, 4096)]
which = sys.argv[1:] or ["unfused", "fused"]
for fl in which:
    flatten = fl == "fused"
    for (M, N, K) in shapes:
        a = torch.randn((M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((K, N), device="cuda", dtype=torch.float16)
        c = torch.empty((M, N), device="cuda", dtype=torch.float16)
        ref = torch.matmul(a, b)
        times = {be: [] for be in mods}
        for rnd in range(4):
            for be, m in mods.items():
                c.fill_(float("nan"))
                m.matmul_persistent(a, b, c, flatten)
                assert torch.allclose(c.float(), ref.float(), atol=0.5, rtol=0.02), (be, M, N, K)
                times[be].append(triton.testing.do_bench(lambda: m.matmul_persistent(a, b, c, flatten), warmup=50, rep=300))
        t = {be: statistics.median(v) for be, v in times.items()}
        print(f"{fl:8s} {M}x{N}x{K}: tritium {t['tritium']*1e3:9.1f} us  triton {t['triton']*1e3:9.1f} us  ratio {t['tritium']/t['triton']:.3f}  "
              f"tritium TFLOP/s {2*M*N*K/t['tritium']*1e-9:.0f}", flush=True)
