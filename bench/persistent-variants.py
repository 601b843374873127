"""Tutorial 11's unfused persistent matmul in four forms (`bench/kernels/persistent_variants.py`:
addresses recomputed from `ks` each K step or pointer tensors advanced by `BLOCK_K * stride`,
masks `ks < K` or `offs_k < K - ki * BLOCK_K`) and the tutorial's own kernel
(`python/tests/gpu/t11_persistent_matmul.py`, FLATTEN=False), compiled by Tritium (with
-tritium-descriptor-loads, the package's default, and without: `tritium_cp.async`) and by
Triton, timed in one process, alternating, with cuBLAS, at 8192³ and at 1024x4096x65536 (one tile per
SM: the K loop alone). GPU machine, with the wheel on PYTHONPATH:

    python3 bench/persistent-variants.py

Every result is checked against torch.matmul with the output poisoned (NaN) first; one line per
shape: median µs of each compiler and form (do_bench), and each over Triton's recompute form.
H100, session 20 (two forms then): 8192³ Tritium recompute 1.048, increment 0.986, Triton
increment 0.977; 1024x4096x65536 1.044 / 0.964 / 0.981. Session 21 (the i32 address split):
Tritium recompute 0.950 / 0.967.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import compiled_with, load  # noqa: E402
import triton.testing  # noqa: E402

CONFIG = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)
# Module instances by name: Tritium's twice (descriptor loads on, and off), Triton's.
BACKENDS = {"tritium": "tritium", "tritium_cp.async": "tritium", "triton": "triton"}
mods = {name: load(os.path.join(HERE, "kernels", "persistent_variants.py"), be) for name, be in BACKENDS.items()}
# The tutorial's own kernel (FLATTEN=False: the unfused nest), timed beside the forms above.
tutorials = {name: load(os.path.join(HERE, "..", "python", "tests", "gpu", "t11_persistent_matmul.py"), be)
             for name, be in BACKENDS.items()}
FORMS = ("recompute", "increment", "recompute_kmask", "increment_ksmask", "tutorial")
num_sms = torch.cuda.get_device_properties(0).multi_processor_count


def launch_as(be, kernel, a, b, c, **extra):
    if be == "tritium_cp.async":
        return compiled_with(launch, descriptor_loads=False)(kernel, a, b, c, **extra)
    return launch(kernel, a, b, c, **extra)


def launch(kernel, a, b, c, **extra):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, CONFIG["BLOCK_M"]) * triton.cdiv(N, CONFIG["BLOCK_N"])
    kernel[(min(num_sms, tiles), )](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                    c.stride(0), c.stride(1), NUM_SMS=num_sms, **CONFIG, **extra)


def kernel_of(be, form):
    if form == "tutorial":
        return tutorials[be].matmul_persistent_kernel, dict(FLATTEN=False)
    return getattr(mods[be], f"persistent_{form}"), {}


torch.manual_seed(0)
for (M, N, K) in [(8192, 8192, 8192), (1024, 4096, 65536)]:
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    times = {}
    for _ in range(4):
        for be in mods:
            for form in FORMS:
                kernel, extra = kernel_of(be, form)
                c.fill_(float("nan"))
                launch_as(be, kernel, a, b, c, **extra)
                assert torch.allclose(c.float(), ref.float(), atol=0.5, rtol=0.02), (be, form, M, N, K)
                times.setdefault((be, form), []).append(
                    triton.testing.do_bench(lambda: launch_as(be, kernel, a, b, c, **extra), warmup=50,
                                            rep=300))
        times.setdefault(("cublas", "matmul"), []).append(
            triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=50, rep=300))
    t = {key: statistics.median(v) * 1e3 for key, v in times.items()}
    base = t[("triton", "recompute")]
    print(f"{M}x{N}x{K}: " + "  ".join(f"{be} {form} {us:.1f} us ({us / base:.3f})" for (be, form), us in t.items()),
          flush=True)
