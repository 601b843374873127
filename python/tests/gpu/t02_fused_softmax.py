"""Fused softmax, as Triton's tutorial 02 (only the imports changed): occupancy from the
compiled kernel's registers and shared memory, a persistent loop over rows."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                   num_stages: tl.constexpr):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        # The stride represents how much we need to increase the pointer to advance 1 row
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


properties = triton.runtime.driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]
target = triton.runtime.driver.active.get_current_target()
kernels = {}


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    # pre-compile kernel to get register usage and compute thread occupancy.
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                   num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    n_regs = kernel.n_regs
    size_smem = kernel.metadata.shared
    occupancy = NUM_REGS // (n_regs * WARP_SIZE * num_warps)
    if size_smem > 0:
        occupancy = min(occupancy, SIZE_SMEM // size_smem)
    num_programs = NUM_SM * occupancy
    num_programs = min(num_programs, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y


def run():
    results = []
    torch.manual_seed(0)
    for shape in ((1823, 781), (4, 7), (1024, 4096), (333, 1500)):
        x = torch.randn(*shape, device=DEVICE)
        y_triton = softmax(x)
        y_torch = torch.softmax(x, axis=1)
        ok = torch.allclose(y_triton, y_torch, atol=1e-6, rtol=1e-5)
        err = (y_triton - y_torch).abs().max().item()
        results.append(dict(case=f"softmax {shape[0]}x{shape[1]}", ok=ok, err=err))
    k = softmax_kernel.warmup(torch.empty(1, 1024, device=DEVICE), torch.empty(1, 1024, device=DEVICE),
                              1024, 1024, 1, 1024, BLOCK_SIZE=1024, num_stages=2, num_warps=8, grid=(1,))
    results.append(dict(case="softmax handle n_regs/n_spills", ok=k.n_regs > 0 and k.n_spills >= 0,
                        note=f"n_regs={k.n_regs} n_spills={k.n_spills} shared={k.metadata.shared}"))
    for N in (1024, 4096, 8192):
        x = torch.randn(4096, N, device=DEVICE, dtype=torch.float32)
        ms = triton.testing.do_bench(lambda: softmax(x))
        gbps = 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
        results.append(dict(case=f"softmax bench 4096x{N}", ok=True, ms=ms, note=f"{gbps:.0f} GB/s"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
