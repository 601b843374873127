"""Tutorial 09's descriptor matmuls (`python/tests/gpu/t09_descriptors.py`: one program a tile,
and the persistent form whose tile loop is fused with the K loop), compiled by Tritium and by
Triton, timed in one process, alternating, four rounds, with cuBLAS. GPU machine, with the
wheel on PYTHONPATH:

    python3 bench/descriptor-matmul.py [N ...]      (default 4096 8192: N³ fp16)

Each result is checked against torch.matmul with the output poisoned (NaN) first; one line per
shape and form: median µs of each compiler and cuBLAS, Tritium / Triton and Tritium / cuBLAS.
Between-process runs of these kernels drift by more than the difference being measured (session
24: 5% on an H100), hence one process.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import load  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

mods = {be: load(os.path.join(HERE, "..", "python", "tests", "gpu", "t09_descriptors.py"), be)
        for be in ("tritium", "triton")}


def tiled(module, a, b, c, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64):
    """The test's `matmul` (same tile, warps and stages) into a given output."""
    M, K = a.shape
    N = b.shape[1]
    descriptor = module.TensorDescriptor.from_tensor
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    module.matmul_descriptor_kernel[grid](
        descriptor(a, [BLOCK_M, BLOCK_K]), descriptor(b, [BLOCK_K, BLOCK_N]),
        descriptor(c, [BLOCK_M, BLOCK_N]), K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        num_warps=8, num_stages=3)


FORMS = {"persistent": lambda module, a, b, c: module.matmul_persistent(a, b, c),
         "tiled": tiled}

torch.manual_seed(0)
sizes = [int(n) for n in sys.argv[1:]] or [4096, 8192]
for n in sizes:
    a = torch.randn((n, n), device="cuda", dtype=torch.float16)
    b = torch.randn((n, n), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    times = {}
    for _ in range(4):
        for form, run in FORMS.items():
            for be, module in mods.items():
                c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16)
                run(module, a, b, c)
                assert torch.allclose(c.float(), ref.float(), atol=0.5, rtol=0.02), (be, form, n)
                times.setdefault((form, be), []).append(
                    triton.testing.do_bench(lambda: run(module, a, b, c), warmup=50, rep=300))
        times.setdefault(("cublas", "cublas"), []).append(
            triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=50, rep=300))
    t = {key: statistics.median(v) * 1e3 for key, v in times.items()}
    cublas = t[("cublas", "cublas")]
    for form in FORMS:
        ours, theirs = t[(form, "tritium")], t[(form, "triton")]
        print(f"{n}^3 {form}: tritium {ours:.1f} us  triton {theirs:.1f} us  cublas {cublas:.1f} us  "
              f"tritium/triton {ours / theirs:.3f}  tritium/cublas {ours / cublas:.3f}", flush=True)
