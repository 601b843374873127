"""The H200's regime on an H100: one-row kernels with their blocks an SM capped.

GPU machine: python3 bench/row-occupancy-probe.py [ROUNDS]

An H200 moves about 1.4 times an H100's bytes a second with the same SMs, so each SM must keep
about 1.4 times the bytes in flight. On an H100 the same shortfall appears when fewer blocks fit
on an SM: this pads each launch's dynamic shared memory (carveout at its largest) so that at most
6, 5 or 4 blocks fit, and times forms of the same kernel (Triton-compiled) at each cap: `grid`
(the corpus form), `rows2` (two rows a program, both loaded before either is reduced), `early`
(the loads of row-independent operands, w and b, issued before the reductions instead of after
them, where the source puts them). A form that keeps its bandwidth where `grid` loses it is what
a compiler change should make. do_bench as harness.py times it (zero-fill L2 flush, median), forms
interleaved, ROUNDS rounds (default 3), each form checked against torch first, outputs poisoned."""
import importlib.util
import os
import sys

import cupy
import torch
import triton
import triton.language as tl

spec = importlib.util.spec_from_file_location(
    "row_prefetch_probe", os.path.join(os.path.dirname(os.path.abspath(__file__)), "row-prefetch-probe.py"))
forms = importlib.util.module_from_spec(spec)
spec.loader.exec_module(forms)


@triton.jit
def rmsnorm_early(X, Y, W, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(W + cols, mask=mask)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(Y + row * stride + cols, (x * rstd * w.to(tl.float32)).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_grid(X, Y, W, B, Mean, Rstd, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * stride + cols, (xc * rstd * w + b).to(Y.dtype.element_ty), mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@triton.jit
def layernorm_early(X, Y, W, B, Mean, Rstd, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Y + row * stride + cols, (xc * rstd * w.to(tl.float32) + b.to(tl.float32)).to(Y.dtype.element_ty),
             mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


def cases():
    M, N = 16384, 4096
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    yield ("softmax_w4096_bf16", {"grid": forms.softmax_grid, "rows2": forms.softmax_rows2},
           (y, x, x.stride(0), M, N), lambda: y, lambda: torch.softmax(x.float(), -1), 2 * x.numel() * 2)
    w = torch.randn(N, device="cuda", dtype=torch.bfloat16)
    y2 = torch.empty_like(x)
    yield ("rmsnorm_fwd_bf16", {"grid": forms.rmsnorm_grid, "early": rmsnorm_early, "rows2": forms.rmsnorm_rows2},
           (x, y2, w, x.stride(0), M, N, 1e-6), lambda: y2,
           lambda: x.float() * torch.rsqrt((x.float() ** 2).mean(-1, keepdim=True) + 1e-6) * w.float(),
           2 * x.numel() * 2)
    xh = torch.randn(M, N, device="cuda", dtype=torch.float16)
    wh, bh = torch.randn(N, device="cuda", dtype=torch.float16), torch.randn(N, device="cuda", dtype=torch.float16)
    yh = torch.empty_like(xh)
    mean, rstd = torch.empty(M, device="cuda"), torch.empty(M, device="cuda")
    yield ("layernorm_fwd_f16", {"grid": layernorm_grid, "early": layernorm_early},
           (xh, yh, wh, bh, mean, rstd, xh.stride(0), M, N, 1e-5), lambda: yh,
           lambda: torch.nn.functional.layer_norm(xh.float(), (N,), wh.float(), bh.float(), 1e-5),
           2 * xh.numel() * 2)
    xf = torch.randn(M, 4000, device="cuda")
    idx = torch.empty(M, device="cuda", dtype=torch.int32)
    yield ("argmax_rows", {"grid": forms.argmax_grid, "rows2": forms.argmax_rows2},
           (xf, idx, xf.stride(0), M, 4000), lambda: idx, lambda: torch.argmax(xf, -1).int(), xf.numel() * 4)


SM_SHARED = 228 * 1024  # an SM's shared memory at the largest carveout
BLOCK_RESERVED = 1024  # the driver's reservation a block


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    M = 16384
    print("device", torch.cuda.get_device_name(0), flush=True)
    for name, kernels, args, out, ref, nbytes in cases():
        runs = {}
        for form, kernel in kernels.items():
            rows = 2 if form == "rows2" else 1
            grid = (M // rows,)
            compiled = kernel[grid](*args, BLOCK=4096, num_warps=8)
            compiled._init_handles()
            natural = min(8, 65536 // (-(-compiled.n_regs // 8) * 8 * 32 * 8))
            own_shared = compiled.metadata.shared
            # The largest carveout for every form and cap alike, so shared memory alone caps the
            # blocks an SM (and L1 is the same size throughout).
            cupy.cuda.driver.funcSetAttribute(compiled.function, 9, 100)
            print(name, form, f"{compiled.n_regs} registers, {natural} blocks an SM", flush=True)
            for cap in [natural] + [c for c in (6, 5, 4) if c < natural]:
                shared = max(own_shared, SM_SHARED // cap - BLOCK_RESERVED - 1023) if cap < natural else own_shared
                assert SM_SHARED // (shared + BLOCK_RESERVED) == cap or cap == natural, (cap, shared)
                label = f"{form} @{cap}"

                def run(kernel=kernel, grid=grid, compiled=compiled, shared=shared):
                    compiled.packed_metadata = (8, 1, shared)
                    kernel[grid](*args, BLOCK=4096, num_warps=8)
                if shared > 48 * 1024:
                    cupy.cuda.driver.funcSetAttribute(compiled.function, 8, shared)  # opt in past 48 KiB
                forms.checked(name, label, run, out, ref)
                runs[label] = run
        forms.timed(name, runs, nbytes, rounds, "torch copy")

if __name__ == "__main__":
    main()
