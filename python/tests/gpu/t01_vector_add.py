"""Vector addition, as Triton's tutorial 01 (only the imports changed)."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr,  # *Pointer* to first input vector.
               y_ptr,  # *Pointer* to second input vector.
               output_ptr,  # *Pointer* to output vector.
               n_elements,  # Size of the vector.
               BLOCK_SIZE: tl.constexpr,  # Number of elements each program should process.
               ):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


@triton.jit
def cast_kernel(x_ptr, y_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x.to(OUT_DTYPE), mask=offs < n)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    assert x.device == DEVICE and y.device == DEVICE and output.device == DEVICE
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


def run():
    results = []
    torch.manual_seed(0)
    for size in (98432, 1, 1000, 1 << 20):
        x = torch.rand(size, device=DEVICE)
        y = torch.rand(size, device=DEVICE)
        output_torch = x + y
        output_triton = add(x, y)
        err = (output_torch - output_triton).abs().max().item()
        results.append(dict(case=f"vector-add n={size}", ok=err == 0.0, err=err))
    # The launch returns the compiled kernel; its cubin comes from the driver's JIT.
    x = torch.rand(4096, device=DEVICE)
    handle = add_kernel[(4,)](x, x, torch.empty_like(x), 4096, BLOCK_SIZE=1024)
    cubin = handle.asm["cubin"]
    results.append(dict(case="asm['cubin'] is an ELF image", ok=cubin[:4] == b"\x7fELF",
                        note=f"{len(cubin)} bytes"))
    # A dtype as a constexpr argument.
    out16 = torch.empty(4096, device=DEVICE, dtype=torch.float16)
    cast_kernel[(4,)](x, out16, 4096, OUT_DTYPE=tl.float16, BLOCK=1024)
    err = (out16.float() - x.half().float()).abs().max().item()
    results.append(dict(case="dtype constexpr (OUT_DTYPE=tl.float16)", ok=err == 0.0, err=err))
    # A strided (non-contiguous) view: the kernel sees its base pointer, as in Triton.
    x = torch.rand(4096, device=DEVICE)[::2]
    y = torch.rand(2048, device=DEVICE)
    out = torch.empty(2048, device=DEVICE)
    add_kernel[(2,)](x.contiguous(), y, out, 2048, BLOCK_SIZE=1024)
    err = (out - (x + y)).abs().max().item()
    results.append(dict(case="vector-add contiguous() of a strided view", ok=err == 0.0, err=err))
    for size in (2**16, 2**20, 2**24, 2**27):
        x = torch.rand(size, device=DEVICE, dtype=torch.float32)
        y = torch.rand(size, device=DEVICE, dtype=torch.float32)
        ms = triton.testing.do_bench(lambda: add(x, y))
        gbps = 3 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
        results.append(dict(case=f"vector-add bench n=2^{size.bit_length() - 1}", ok=True, ms=ms,
                            note=f"{gbps:.0f} GB/s"))
    # Without launch overhead: the calls captured in a CUDA graph and replayed.
    x = torch.rand(2**24, device=DEVICE)
    y = torch.rand(2**24, device=DEVICE)
    ms = triton.testing.do_bench_cudagraph(lambda: add(x, y))
    gbps = 3 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
    results.append(dict(case="vector-add bench n=2^24, CUDA graph", ok=True, ms=ms,
                        note=f"{gbps:.0f} GB/s"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
