"""libdevice functions in kernels, in the style of Triton's extern-functions tutorial (only the
imports differ between the two compilers): `libdevice.asin` as in the tutorial, then more of
libdevice's fp32 and fp64 math, each checked against PyTorch in float64 on fresh random inputs
(fp32 within 4 fp32 ulps of the float64 value, fp64 within 8 fp64 ulps of PyTorch's), the output
poisoned first; asin timed against Triton."""
import torch

import tritium as triton
import tritium.language as tl
from tritium.language.extra import libdevice

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def asin_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, libdevice.asin(x), mask=mask)


@triton.jit
def unary_kernel(x_ptr, y_ptr, n_elements, FUNCTION: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    if FUNCTION == "acos":
        y = libdevice.acos(x)
    elif FUNCTION == "atan":
        y = libdevice.atan(x)
    elif FUNCTION == "sinh":
        y = libdevice.sinh(x)
    elif FUNCTION == "cosh":
        y = libdevice.cosh(x)
    elif FUNCTION == "expm1":
        y = libdevice.expm1(x)
    elif FUNCTION == "log1p":
        y = libdevice.log1p(x)
    elif FUNCTION == "cbrt":
        y = libdevice.cbrt(x)
    else:
        y = libdevice.erf(x)
    tl.store(y_ptr + offsets, y, mask=mask)


@triton.jit
def atan2_kernel(y_ptr, x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    y = tl.load(y_ptr + offsets, mask=mask)
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, libdevice.atan2(y, x), mask=mask)


def launch(kernel, inputs, **constexprs):
    out = torch.full_like(inputs[0], float("nan"))
    n = out.numel()
    kernel[(triton.cdiv(n, 1024), )](*inputs, out, n, BLOCK_SIZE=1024, **constexprs)
    return out


def ulps(got, exact, dtype):
    """|got - exact| in units of the last place of exact's magnitude in `dtype`."""
    spacing = torch.finfo(dtype).eps * exact.abs().clamp_min(torch.finfo(dtype).tiny)
    return ((got.double() - exact).abs() / spacing).max().item()


TORCH = {"acos": torch.acos, "atan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh,
         "expm1": torch.expm1, "log1p": torch.log1p, "erf": torch.erf,
         "cbrt": lambda x: torch.sign(x) * x.abs().pow(1.0 / 3.0)}
# Inputs inside each function's domain (and range: no overflow).
DOMAIN = {"acos": (-1, 1), "atan": (-50, 50), "sinh": (-20, 20), "cosh": (-20, 20), "expm1": (-20, 20),
          "log1p": (-0.9, 100), "erf": (-4, 4), "cbrt": (-1000, 1000)}


def run():
    results = []
    torch.manual_seed(0)
    # fp64: PyTorch's float64 functions are themselves off by an ulp or two.
    for dtype, bound in ((torch.float32, 4.0), (torch.float64, 8.0)):
        name = "fp32" if dtype == torch.float32 else "fp64"
        x = torch.rand(98432, device=DEVICE, dtype=dtype) * 2 - 1
        got = launch(asin_kernel, [x])
        err = ulps(got, torch.asin(x.double()), dtype)
        results.append(dict(case=f"libdevice.asin {name} (the tutorial's kernel)", ok=err <= bound, err=err,
                            note="max error in ulps"))
        for function, (lo, hi) in DOMAIN.items():
            x = torch.rand(65536, device=DEVICE, dtype=dtype) * (hi - lo) + lo
            got = launch(unary_kernel, [x], FUNCTION=function)
            err = ulps(got, TORCH[function](x.double()), dtype)
            results.append(dict(case=f"libdevice.{function} {name}", ok=err <= bound, err=err,
                                note="max error in ulps"))
        y = torch.randn(65536, device=DEVICE, dtype=dtype)
        x = torch.randn(65536, device=DEVICE, dtype=dtype)
        got = launch(atan2_kernel, [y, x])
        err = ulps(got, torch.atan2(y.double(), x.double()), dtype)
        results.append(dict(case=f"libdevice.atan2 {name}", ok=err <= bound, err=err, note="max error in ulps"))
    x = torch.rand(1 << 26, device=DEVICE) * 2 - 1
    out = torch.empty_like(x)
    n = x.numel()
    ms = triton.testing.do_bench(lambda: asin_kernel[(triton.cdiv(n, 1024), )](x, out, n, BLOCK_SIZE=1024))
    gbps = 2 * n * 4 * 1e-9 / (ms * 1e-3)
    results.append(dict(case="libdevice.asin bench fp32 n=2^26", ok=True, ms=ms, note=f"{gbps:.0f} GB/s"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
