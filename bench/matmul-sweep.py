#!/usr/bin/env python3
"""Every autotune config of `python/tests/gpu/matmul_dtypes.py`'s matmul, launched alone, checked
and timed, for one compiler and one element type (the GPU machine, with `import tritium` on
PYTHONPATH for `tritium`):

    python3 bench/matmul-sweep.py tritium|triton bf16|tf32|fp8 [SIZE ...]   (default 4096)

Each config first runs a 1000x1000x1000 product (edges masked) checked against a float64 product
of the same inputs with the output poisoned (NaN), then SIZE^3, checked the same way and timed
with the backend's do_bench (median, µs). One line per config and size:
`type SIZE BLOCK_MxBLOCK_NxBLOCK_K warps stages µs TFLOP/s max-abs-error regs/spills` (µs `fail`
when the check fails, `error` when the config does not compile or launch; registers as
`bench/attention-sweep.py` prints them).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import load  # noqa: E402
from kernel_registers import jit_function, registers  # noqa: E402

import torch  # noqa: E402

TOLERANCE = {"bf16": 1e-2, "tf32": 5e-2, "fp8": 1e-2}


def main():
    backend, kind = sys.argv[1], sys.argv[2]
    sizes = [int(s) for s in sys.argv[3:]] or [4096]
    module = load(os.path.join(HERE, "..", "python", "tests", "gpu", "matmul_dtypes.py"), backend)
    kernel = module.matmul_kernel
    every_config = list(kernel.configs)
    torch.manual_seed(0)
    for config in every_config:
        kernel.configs = [config]
        kernel.cache = {}
        jit_function(kernel).device_caches.clear()  # only this config's kernels in it
        kw = config.kwargs
        name = (f"{kw['BLOCK_SIZE_M']}x{kw['BLOCK_SIZE_N']}x{kw['BLOCK_SIZE_K']} "
                f"w{config.num_warps} s{config.num_stages}")
        for size in [1000] + sizes:
            a, b, c = module.operands(kind, size, size, size)
            c.fill_(float("nan"))
            try:
                out = module.matmul(a, b, c)
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 (a config that does not fit is a result)
                print(f"{kind} {size} {name} error {type(e).__name__}: {str(e)[:80]}", flush=True)
                break
            err = (out.double() - a.double() @ b.double()).abs().max().item()
            if not err <= TOLERANCE[kind]:
                print(f"{kind} {size} {name} fail - {err:.1e}", flush=True)
                break
            if size == 1000:
                continue
            ms = module.triton.testing.do_bench(lambda: module.matmul(a, b, c))
            tflops = 2 * size**3 * 1e-12 / (ms * 1e-3)
            print(f"{kind} {size} {name} {ms * 1e3:.1f} {tflops:.0f} {err:.1e} "
                  f"{registers(jit_function(kernel))}", flush=True)


if __name__ == "__main__":
    main()
