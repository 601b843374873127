"""Launch overhead on a warm cache: wall time per `kernel[grid](...)` call of a tiny kernel
(nothing to compute, so the host path dominates), for a 5-argument and a 14-argument kernel."""
import time

import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def small_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def many_args_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                     stride_cn, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M
    a = tl.load(a_ptr + offs * stride_am, mask=mask)
    tl.store(c_ptr + offs * stride_cm, a * alpha, mask=mask)


def per_call_us(fn, calls=5000):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def run():
    n = 1024
    x = torch.rand(n, device=DEVICE)
    y = torch.rand(n, device=DEVICE)
    out = torch.empty(n, device=DEVICE)
    small_kernel[(1,)](x, y, out, n, BLOCK=1024)
    ok = torch.equal(out, x + y)
    us = per_call_us(lambda: small_kernel[(1,)](x, y, out, n, BLOCK=1024))
    results = [dict(case="launch overhead, 5 args (us per call)", ok=ok, ms=us / 1000, note=f"{us:.1f} us/call")]
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    us = per_call_us(lambda: many_args_kernel[grid](x, y, out, n, n, n, 1, 1, n, 1, 1, 1, 2.0, BLOCK=1024))
    results.append(dict(case="launch overhead, 14 args + grid lambda (us per call)", ok=True, ms=us / 1000,
                        note=f"{us:.1f} us/call"))
    us = per_call_us(lambda: torch.add(x, y, out=out))
    results.append(dict(case="launch overhead, torch.add for scale (us per call)", ok=True, ms=us / 1000,
                        note=f"{us:.1f} us/call"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
