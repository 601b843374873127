"""A grouped GEMM in the style of Triton's grouped-GEMM tutorial (only the imports differ between
the two compilers): one launch multiplies a group of independent fp16 problems of different
shapes. The matrices' addresses, shapes and leading dimensions sit in device arrays; a fixed
number of programs (one per SM) walks the tiles of every problem in turn with a stride of the
program count, reading each problem's pointers with `tl.load(...).to(tl.pointer_type(...))`
(`tt.int_to_ptr`) inside a `while` loop. Checked against torch.matmul per problem with every
output poisoned first; timed against Triton and against one torch.matmul per problem."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'NUM_PROGRAMS': 132}, num_warps=8,
                      num_stages=3),
        triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'NUM_PROGRAMS': 132}, num_warps=8,
                      num_stages=3),
        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 128, 'BLOCK_K': 32, 'NUM_PROGRAMS': 264}, num_warps=4,
                      num_stages=4),
    ],
    key=['problem_count', 'ALIGNED'],
)
@triton.jit
def grouped_matmul_kernel(a_addresses, b_addresses, c_addresses, shapes, leading_dims, problem_count,
                          NUM_PROGRAMS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, ALIGNED: tl.constexpr):
    tile = tl.program_id(0)
    tiles_before = 0
    for problem in range(problem_count):
        m = tl.load(shapes + problem * 3)
        n = tl.load(shapes + problem * 3 + 1)
        k = tl.load(shapes + problem * 3 + 2)
        tiles_m = tl.cdiv(m, BLOCK_M)
        tiles_n = tl.cdiv(n, BLOCK_N)
        tiles = tiles_m * tiles_n
        # This program's tiles of this problem, if any.
        while tile >= tiles_before and tile < tiles_before + tiles:
            lda = tl.load(leading_dims + problem * 3)
            ldb = tl.load(leading_dims + problem * 3 + 1)
            ldc = tl.load(leading_dims + problem * 3 + 2)
            a_ptr = tl.load(a_addresses + problem).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(b_addresses + problem).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(c_addresses + problem).to(tl.pointer_type(tl.float16))
            if ALIGNED:
                # What the host checked: 16-byte aligned matrices, leading dimensions, N and K in
                # multiples of 8 elements. Nothing is known of values read from memory without
                # hints: neither compiler could copy the tiles 16 bytes at a time (the masks along
                # N and K could change within 16 bytes), so neither would pipeline the K loop.
                n = tl.multiple_of(n, 8)
                k = tl.multiple_of(k, 8)
                ldc = tl.multiple_of(ldc, 8)
                c_ptr = tl.multiple_of(c_ptr, 16)
            local = tile - tiles_before
            tile_m = local // tiles_n
            tile_n = local % tiles_n
            rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
            cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
            ks = tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + rows[:, None] * lda + ks[None, :]
            b_ptrs = b_ptr + ks[:, None] * ldb + cols[None, :]
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_K)):
                if ALIGNED:
                    # The tutorial's form: hints on the pointers the loop carries.
                    tl.multiple_of(a_ptrs, [16, 16])
                    tl.multiple_of(b_ptrs, [16, 16])
                k_left = k - kk * BLOCK_K
                a = tl.load(a_ptrs, mask=(rows[:, None] < m) & (ks[None, :] < k_left), other=0.0)
                b = tl.load(b_ptrs, mask=(ks[:, None] < k_left) & (cols[None, :] < n), other=0.0)
                acc += tl.dot(a, b)
                a_ptrs += BLOCK_K
                b_ptrs += BLOCK_K * ldb
            c_ptrs = c_ptr + rows[:, None] * ldc + cols[None, :]
            tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < m) & (cols[None, :] < n))
            tile += NUM_PROGRAMS
        tiles_before += tiles


def grouped_arguments(a_list, b_list, c_list):
    """The device arrays the kernel reads: addresses, shapes (M, N, K) and leading dimensions."""
    addresses = [torch.tensor([t.data_ptr() for t in ts], device=DEVICE, dtype=torch.int64)
                 for ts in (a_list, b_list, c_list)]
    shapes = torch.tensor([[a.shape[0], b.shape[1], a.shape[1]] for a, b in zip(a_list, b_list)],
                          device=DEVICE, dtype=torch.int32)
    leading = torch.tensor([[a.stride(0), b.stride(0), c.stride(0)] for a, b, c in zip(a_list, b_list, c_list)],
                           device=DEVICE, dtype=torch.int32)
    aligned = (all(t.data_ptr() % 16 == 0 and t.stride(0) % 8 == 0 for ts in (a_list, b_list, c_list) for t in ts)
               and all(a.shape[1] % 8 == 0 and b.shape[1] % 8 == 0 for a, b in zip(a_list, b_list)))
    return (*addresses, shapes, leading, len(a_list)), aligned


def grouped_matmul(arguments):
    tensors, aligned = arguments
    grid = lambda meta: (meta['NUM_PROGRAMS'], )
    grouped_matmul_kernel[grid](*tensors, ALIGNED=aligned)


def poisoned_outputs(a_list, b_list):
    return [torch.full((a.shape[0], b.shape[1]), float("nan"), device=DEVICE, dtype=torch.float16)
            for a, b in zip(a_list, b_list)]


def run():
    results = []
    torch.manual_seed(0)
    groups = {
        "4 problems, mixed shapes": [(1024, 1024, 1024), (512, 512, 512), (256, 256, 256), (128, 128, 128)],
        "ragged edges": [(1000, 333, 70), (77, 1029, 200), (1, 64, 8), (300, 17, 513)],
        "empty K and an empty problem": [(64, 64, 0), (0, 128, 64), (130, 90, 40)],
    }
    for name, shapes in groups.items():
        a_list = [torch.randn((m, k), device=DEVICE, dtype=torch.float16) for m, n, k in shapes]
        b_list = [torch.randn((k, n), device=DEVICE, dtype=torch.float16) for m, n, k in shapes]
        outs = poisoned_outputs(a_list, b_list)
        grouped_matmul(grouped_arguments(a_list, b_list, outs))
        ok, worst = True, 0.0
        for a, b, c in zip(a_list, b_list, outs):
            ref = torch.matmul(a.float(), b.float())
            err = (c.float() - ref).abs().max().item() if c.numel() else 0.0
            ok &= bool(torch.isfinite(c).all()) and err <= 1e-2 * (ref.abs().max().item() if ref.numel() else 0) + 1e-2
            worst = max(worst, err)
        results.append(dict(case=f"grouped matmul fp16 {name}", ok=ok, err=worst))
    # The tutorial's benchmark: groups of square problems, against one cuBLAS call per problem.
    for size, count in ((1024, 16), (2048, 8), (4096, 6)):
        a_list = [torch.randn((size, size), device=DEVICE, dtype=torch.float16) for _ in range(count)]
        b_list = [torch.randn((size, size), device=DEVICE, dtype=torch.float16) for _ in range(count)]
        outs = poisoned_outputs(a_list, b_list)
        arguments = grouped_arguments(a_list, b_list, outs)
        grouped_matmul(arguments)
        err = max((c.float() - torch.matmul(a.float(), b.float())).abs().max().item()
                  for a, b, c in zip(a_list, b_list, outs))
        ms = triton.testing.do_bench(lambda: grouped_matmul(arguments))
        cublas = triton.testing.do_bench(lambda: [torch.matmul(a, b) for a, b in zip(a_list, b_list)])
        tflops = 2 * count * size**3 * 1e-12 / (ms * 1e-3)
        results.append(dict(case=f"grouped matmul bench fp16 {count}x{size}^3", ok=err <= 0.5, err=err, ms=ms,
                            note=f"{tflops:.0f} TFLOP/s, cuBLAS loop {cublas:.4f} ms; "
                                 f"{grouped_matmul_kernel.best_config}"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
