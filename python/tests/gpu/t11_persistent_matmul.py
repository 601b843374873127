"""A persistent matmul in the style of Triton's persistent-matmul tutorial (only the imports
differ between the two compilers): one program per SM walks the output tiles with a stride of
the SM count (`tl.range(..., flatten=True)`), each tile a pipelined K loop on tensor cores, the
tile order grouped for L2 reuse. Checked against torch.matmul (fp16 in, fp32 accumulate, fp16
out) with the output poisoned first (K = 0 too: the inner loop's speculated-empty side); timed
against Triton and cuBLAS at 4096^3 and 8192^3, with the tile loop fused (flatten=True, the
tutorial's form) and not."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _tile_position(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = _tile_position(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        # Rows and columns past the edge read row / column 0 (their results are not stored), so
        # the loads need a mask along K only.
        rows_in = tl.max_contiguous(tl.multiple_of(tl.where(rows < M, rows, 0), BLOCK_M), BLOCK_M)
        cols_in = tl.max_contiguous(tl.multiple_of(tl.where(cols < N, cols, 0), BLOCK_N), BLOCK_N)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            ks = ki * BLOCK_K + offs_k
            a = tl.load(a_ptr + rows_in[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols_in[None, :] * stride_bn,
                        mask=ks[:, None] < K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        c = accumulator.to(tl.float16)
        c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        tl.store(c_ptrs, c, mask=(rows[:, None] < M) & (cols[None, :] < N))


CONFIG = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)


def matmul_persistent(a, b, c=None, flatten=True):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    if c is None:
        c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    tiles = triton.cdiv(M, CONFIG["BLOCK_M"]) * triton.cdiv(N, CONFIG["BLOCK_N"])
    grid = (min(num_sms, tiles), )
    matmul_persistent_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1), NUM_SMS=num_sms, FLATTEN=flatten, **CONFIG)
    return c


def run():
    results = []
    torch.manual_seed(0)
    # flatten=True fuses the tile and K loops (-tritongpu-fuse-nested-loops); flatten=False
    # keeps the nest (its K loop pipelined alone): both are checked and timed.
    for flatten, tag in ((True, ""), (False, " unfused")):
        for (M, N, K) in ((512, 512, 512), (1000, 777, 333), (4096, 4096, 4096), (300, 200, 0)):
            a = torch.randn((M, K), device=DEVICE, dtype=torch.float16)
            b = torch.randn((K, N), device=DEVICE, dtype=torch.float16)
            c = torch.full((M, N), float("nan"), device=DEVICE, dtype=torch.float16)
            out = matmul_persistent(a, b, c, flatten)
            ref = torch.matmul(a.float(), b.float())
            err = (out.float() - ref).abs().max().item()
            results.append(dict(case=f"persistent matmul{tag} fp16 {M}x{N}x{K}",
                                ok=bool(torch.isfinite(out).all()) and
                                err <= 1e-2 * ref.abs().max().item() + 1e-2, err=err))
        for S in (4096, 8192):
            a = torch.randn((S, S), device=DEVICE, dtype=torch.float16)
            b = torch.randn((S, S), device=DEVICE, dtype=torch.float16)
            c = torch.empty((S, S), device=DEVICE, dtype=torch.float16)
            matmul_persistent(a, b, c, flatten)
            ms = triton.testing.do_bench(lambda: matmul_persistent(a, b, c, flatten))
            cublas = triton.testing.do_bench(lambda: torch.matmul(a, b))
            tflops = 2 * S**3 * 1e-12 / (ms * 1e-3)
            results.append(dict(case=f"persistent matmul{tag} bench fp16 {S}^3", ok=True, ms=ms,
                                note=f"{tflops:.0f} TFLOP/s, cuBLAS {cublas:.4f} ms"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
