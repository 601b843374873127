"""Do one-row-a-program kernels gain from keeping the next row's load in flight? Triton alone.

GPU machine: python3 bench/row-prefetch-probe.py [ROUNDS]

Three corpus kernels that move ~270 MB with one row a program (softmax_w4096_bf16,
rmsnorm_fwd_bf16, argmax_rows), each written three ways in Triton's language and compiled by
Triton: `grid` (the corpus form, one program a row; also at half the warps), `rows2` (two rows
a program, both loaded at once; also at half the warps), `loop` (a program an SM slot walking rows
with a stride, no prefetch) and `prefetch` (the loop, with the next row's load issued before
the current row is reduced and stored). Beside them, torch copying the same bytes. All timed by
do_bench as harness.py times (zero-fill L2 flush, median), interleaved, ROUNDS rounds (default
3); each form is checked against torch first. Prints time, GB/s, and time against `grid`.
The question it answers: whether a compiler transform that turns such kernels into persistent
loops with a prefetched next row is worth building."""
import statistics
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench


@triton.jit
def softmax_grid(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, (num / tl.sum(num, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_loop(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=1):
        x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(out_ptr + row * stride + cols, (num / tl.sum(num, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_prefetch(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    step = tl.num_programs(0)
    first = tl.program_id(0)
    nxt = tl.load(in_ptr + first * stride + cols, mask=mask & (first < n_rows), other=-float("inf"))
    for row in tl.range(tl.program_id(0), n_rows, step, num_stages=1):
        x = nxt.to(tl.float32)
        nxt = tl.load(in_ptr + (row + step) * stride + cols, mask=mask & (row + step < n_rows), other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(out_ptr + row * stride + cols, (num / tl.sum(num, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_grid(X, Y, W, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_loop(X, Y, W, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=1):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_prefetch(X, Y, W, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    step = tl.num_programs(0)
    first = tl.program_id(0)
    nxt = tl.load(X + first * stride + cols, mask=mask & (first < n_rows), other=0.)
    for row in tl.range(tl.program_id(0), n_rows, step, num_stages=1):
        x = nxt.to(tl.float32)
        nxt = tl.load(X + (row + step) * stride + cols, mask=mask & (row + step < n_rows), other=0.)
        rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def argmax_grid(X, Idx, stride, n_rows, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=-float("inf"))
    tl.store(Idx + row, tl.argmax(x, axis=0))


@triton.jit
def argmax_loop(X, Idx, stride, n_rows, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=1):
        x = tl.load(X + row * stride + cols, mask=cols < N, other=-float("inf"))
        tl.store(Idx + row, tl.argmax(x, axis=0))


@triton.jit
def argmax_prefetch(X, Idx, stride, n_rows, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    step = tl.num_programs(0)
    first = tl.program_id(0)
    nxt = tl.load(X + first * stride + cols, mask=(cols < N) & (first < n_rows), other=-float("inf"))
    for row in tl.range(tl.program_id(0), n_rows, step, num_stages=1):
        x = nxt
        nxt = tl.load(X + (row + step) * stride + cols, mask=(cols < N) & (row + step < n_rows), other=-float("inf"))
        tl.store(Idx + row, tl.argmax(x, axis=0))


@triton.jit
def softmax_rows2(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * 2 + tl.arange(0, 2)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    mask = (cols < n_cols) & (rows < n_rows)
    x = tl.load(in_ptr + rows * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    y = num / tl.sum(num, axis=1)[:, None]
    tl.store(out_ptr + rows * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_rows2(X, Y, W, stride, n_rows, N, eps, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * 2 + tl.arange(0, 2)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    mask = (cols < N) & (rows < n_rows)
    x = tl.load(X + rows * stride + cols, mask=mask, other=0.).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=1) / N + eps)[:, None]
    w = tl.load(W + cols, mask=cols < N).to(tl.float32)
    tl.store(Y + rows * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def argmax_rows2(X, Idx, stride, n_rows, N, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * 2 + tl.arange(0, 2)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + rows[:, None] * stride + cols[None, :], mask=(cols[None, :] < N) & (rows[:, None] < n_rows),
                other=-float("inf"))
    tl.store(Idx + rows, tl.argmax(x, axis=1), mask=rows < n_rows)


def cases():
    M = 16384
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = torch.randn(M, 4096, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    yield ("softmax_w4096_bf16", {"grid": softmax_grid, "rows2": softmax_rows2, "loop": softmax_loop, "prefetch": softmax_prefetch},
           (y, x, x.stride(0), M, 4096), dict(BLOCK=4096), 8, lambda: torch.softmax(x.float(), -1),
           lambda: y, 2 * x.numel() * 2, sms)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    y2 = torch.empty_like(x)
    yield ("rmsnorm_fwd_bf16", {"grid": rmsnorm_grid, "rows2": rmsnorm_rows2, "loop": rmsnorm_loop, "prefetch": rmsnorm_prefetch},
           (x, y2, w, x.stride(0), M, 4096, 1e-6), dict(BLOCK=4096), 8,
           lambda: x.float() * torch.rsqrt((x.float() ** 2).mean(-1, keepdim=True) + 1e-6) * w.float(),
           lambda: y2, 2 * x.numel() * 2, sms)
    xf = torch.randn(M, 4000, device="cuda")
    idx = torch.empty(M, device="cuda", dtype=torch.int32)
    yield ("argmax_rows", {"grid": argmax_grid, "rows2": argmax_rows2, "loop": argmax_loop, "prefetch": argmax_prefetch},
           (xf, idx, xf.stride(0), M, 4000), dict(BLOCK=4096), 8, lambda: torch.argmax(xf, -1).int(),
           lambda: idx, xf.numel() * 4, sms)


def checked(name, label, run, out, ref):
    """Runs `run` once on a poisoned output and prints whether it matches `ref` (exactly for
    integers, to 2e-2 for floats: bf16 outputs against f32 references)."""
    out().fill_(-1)
    run()
    torch.cuda.synchronize()
    got, want = out(), ref()
    ok = (torch.equal(got, want) if not got.is_floating_point()
          else torch.allclose(got.float(), want.float(), atol=2e-2, rtol=2e-2))
    print(name, label, "correct" if ok else "WRONG", flush=True)


def timed(name, runs, nbytes, rounds, base):
    """Times every run and torch copying `nbytes` (read + written) as harness.py times, interleaved,
    `rounds` rounds; prints each median with GB/s and `base`'s time over it (`base` a label of
    `runs` or "torch copy")."""
    src = torch.empty(nbytes // 2 // 4, device="cuda")
    dst = torch.empty_like(src)
    runs = {**runs, "torch copy": lambda: dst.copy_(src)}
    times = {label: [] for label in runs}
    for _ in range(rounds):
        for label, run in runs.items():
            times[label].append(do_bench(run, warmup=25, rep=200, return_mode="median"))
    reference = statistics.median(times[base])
    for label, ts in times.items():
        t = statistics.median(ts)
        print(f"{name:20s} {label:16s} {t * 1e3:8.1f} us {nbytes / t / 1e6:7.0f} GB/s  {base}/this {reference / t:.3f}",
              flush=True)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    M = 16384
    print("device", torch.cuda.get_device_name(0), flush=True)
    for name, forms, args, const, warps, ref, out, nbytes, sms in cases():
        runs = {}
        for form, kernel in forms.items():
            for w in ([warps, warps // 2] if form in ("grid", "rows2") else [warps]):
                compiled = kernel[(sms,)](*args, **const, num_warps=w)
                # Blocks an SM its registers allow (8-register steps, 64 warps an SM).
                blocks = min(64 // w, 65536 // (-(-compiled.n_regs // 8) * 8 * 32 * w))
                print(name, form, w, f"warps: {compiled.n_regs} registers, {blocks} blocks an SM", flush=True)
                if form == "grid":
                    grids = {f"grid {w}w": (M,)}
                elif form == "rows2":
                    grids = {f"rows2 {w}w": (M // 2,)}
                else:
                    grids = {f"{form}@{b}/SM": (min(M, sms * b),) for b in sorted({max(1, blocks // 2), blocks})}
                for label, grid in grids.items():
                    def run(kernel=kernel, grid=grid, w=w):
                        kernel[grid](*args, **const, num_warps=w)
                    checked(name, label, run, out, ref)
                    runs[label] = run
        timed(name, runs, nbytes, rounds, f"grid {warps}w")


if __name__ == "__main__":
    main()
