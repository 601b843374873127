"""Kernels of the GPU-less tests, written as for Triton with only the imports changed."""
import tritium as triton
import tritium.language as tl

SCALE: tl.constexpr = 2


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


@triton.jit
def scaled(x):
    return x * SCALE


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, stride, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    tl.store(out_ptr + offs, scaled(x) * alpha, mask=mask)


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
@triton.jit
def heuristic_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4),
                          triton.Config({"BLOCK": 256}, num_warps=8),
                          triton.Config({"BLOCK": 512}, num_warps=4, num_stages=2)],
                 key=["n"])
@triton.jit
def tuned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def host_code_is_ignored():
    # Anything Python can run may sit beside the kernels.
    return [x ** 2 for x in range(3)]


@triton.jit
def descriptor_kernel(x_desc, out_desc, BLOCK: tl.constexpr):
    pm = tl.program_id(0) * BLOCK
    pn = tl.program_id(1) * BLOCK
    out_desc.store([pm, pn], x_desc.load([pm, pn]) + 1)


@triton.jit
def cast_kernel(x_ptr, y_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x.to(OUT_DTYPE) + tl.zeros((BLOCK,), dtype=OUT_DTYPE), mask=offs < n)
