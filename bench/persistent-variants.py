"""Tutorial 11's unfused persistent matmul in four forms (`bench/kernels/persistent_variants.py`:
addresses recomputed from `ks` each K step or pointer tensors advanced by `BLOCK_K * stride`,
masks `ks < K` or `offs_k < K - ki * BLOCK_K`), compiled by Tritium and by Triton, timed in one process,
alternating, at 8192³ and at 1024x4096x65536 (one tile per SM: the K loop alone). GPU machine,
with the wheel on PYTHONPATH:

    python3 bench/persistent-variants.py

Every result is checked against torch.matmul with the output poisoned (NaN) first; one line per
shape: median µs of each compiler and form (do_bench), and each over Triton's recompute form.
H100, session 20 (two forms then): 8192³ Tritium recompute 1.048, increment 0.986, Triton
increment 0.977; 1024x4096x65536 1.044 / 0.964 / 0.981.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import load  # noqa: E402
import triton.testing  # noqa: E402

CONFIG = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)
mods = {be: load(os.path.join(HERE, "kernels", "persistent_variants.py"), be) for be in ("tritium", "triton")}
num_sms = torch.cuda.get_device_properties(0).multi_processor_count


def launch(kernel, a, b, c):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, CONFIG["BLOCK_M"]) * triton.cdiv(N, CONFIG["BLOCK_N"])
    kernel[(min(num_sms, tiles), )](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                    c.stride(0), c.stride(1), NUM_SMS=num_sms, **CONFIG)


torch.manual_seed(0)
for (M, N, K) in [(8192, 8192, 8192), (1024, 4096, 65536)]:
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    times = {}
    for _ in range(4):
        for be, m in mods.items():
            for form in ("recompute", "increment", "recompute_kmask", "increment_ksmask"):
                kernel = getattr(m, f"persistent_{form}")
                c.fill_(float("nan"))
                launch(kernel, a, b, c)
                assert torch.allclose(c.float(), ref.float(), atol=0.5, rtol=0.02), (be, form, M, N, K)
                times.setdefault((be, form), []).append(
                    triton.testing.do_bench(lambda: launch(kernel, a, b, c), warmup=50, rep=300))
    t = {key: statistics.median(v) * 1e3 for key, v in times.items()}
    base = t[("triton", "recompute")]
    print(f"{M}x{N}x{K}: " + "  ".join(f"{be} {form} {us:.1f} us ({us / base:.3f})" for (be, form), us in t.items()),
          flush=True)
