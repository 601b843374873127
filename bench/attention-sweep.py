#!/usr/bin/env python3
"""Every autotune config of tutorial 06's attention forward, launched alone and timed, for one
compiler (the GPU machine, with `import tritium` on PYTHONPATH for `tritium`):

    python3 bench/attention-sweep.py tritium|triton [N:D:causal ...]   (default 4096:128:0 4096:64:0)

Each config is checked against PyTorch's attention (float32, on the same fresh random inputs) and
timed with the backend's do_bench (median, µs). One line per config:
`N D causal BLOCK_MxBLOCK_N warps stages µs max-abs-error regs/spills` (registers a thread and
spilled registers of its first build, as the driver reports them; under Tritium `+R@B` when
the runtime kept a second build of R registers for B blocks an SM, which this grid runs if it
suits it).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import load  # noqa: E402
from kernel_registers import jit_function, registers  # noqa: E402

import torch  # noqa: E402


def main():
    backend = sys.argv[1]
    shapes = sys.argv[2:] or ["4096:128:0", "4096:64:0"]
    tutorial = load(os.path.join(HERE, "..", "python", "tests", "gpu", "t06_fused_attention.py"), backend)
    kernel = tutorial._attn_fwd
    every_config = [c for c in kernel.configs if tutorial.keep(c)]
    for shape in shapes:
        n_ctx, head_dim, causal = (int(x) for x in shape.split(":"))
        batch, heads = 4, 32 if head_dim == 64 else 16
        torch.manual_seed(0)
        q, k, v = (torch.randn((batch, heads, n_ctx, head_dim), dtype=torch.float16, device="cuda")
                   for _ in range(3))
        sm_scale = 1.3
        with torch.no_grad():
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), is_causal=bool(causal), scale=sm_scale).half()
        for config in every_config:
            kernel.configs = [config]
            kernel.cache = {}
            jit_function(kernel).device_caches.clear()  # only this config's kernel in it
            out = tutorial.attention(q, k, v, bool(causal), sm_scale)
            err = (out.float() - ref.float()).abs().max().item()
            ms = tutorial.triton.testing.do_bench(lambda: tutorial.attention(q, k, v, bool(causal), sm_scale))
            kw = config.kwargs
            print(f"{n_ctx} {head_dim} {causal} {kw['BLOCK_M']}x{kw['BLOCK_N']} w{config.num_warps} "
                  f"s{config.num_stages} {ms * 1e3:.1f} {err:.1e} {registers(jit_function(kernel))}", flush=True)


if __name__ == "__main__":
    main()
