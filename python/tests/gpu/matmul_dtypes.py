"""Tutorial 03's autotuned matmul for the element types issue 11 times besides fp16: bf16, f32 at
tf32 precision, and fp8 (e4m3, B stored transposed as the tutorial's fp8 variant does), f32
accumulation, the result in fp16 (f32 for tf32). Only the imports differ between the two
compilers. Each type is checked against a float64 product of the same (already rounded) inputs
with the output poisoned (NaN) first, then timed at 4096^3 and 8192^3 against Triton (same run)
and cuBLAS, with TFLOP/s and the share of the H200's dense peak for the type."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()

# The H200's dense tensor-core peaks (TFLOP/s): fp16/bf16, tf32, fp8.
PEAK = {"bf16": 989.4, "tf32": 494.7, "fp8": 1978.9}


def configs():
    # Tutorial 03's list for CUDA (configs that do not fit shared memory are pruned by the
    # autotuner, as in Triton).
    c = triton.Config
    return [
        c({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8}, num_stages=3, num_warps=8),
        c({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),
        c({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),
        c({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),
        c({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),
        c({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=4, num_warps=4),
        c({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=5, num_warps=2),
        c({'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8}, num_stages=5, num_warps=2),
    ]


@triton.autotune(configs=configs(), key=['M', 'N', 'K'])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b, c):
    M, K = a.shape
    _, N = b.shape
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) * triton.cdiv(N, META['BLOCK_SIZE_N']), )
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1))
    return c


def operands(kind, M, N, K):
    """A (M x K, row-major) and B (K x N; for fp8 a transposed view of an N x K row-major
    matrix, as the tutorial's fp8 variant), values in [-0.5, 0.5), and the output buffer."""
    a = torch.rand((M, K), device=DEVICE) - 0.5
    if kind == "fp8":
        b = (torch.rand((N, K), device=DEVICE) - 0.5).to(torch.float8_e4m3fn).T
        return a.to(torch.float8_e4m3fn), b, torch.empty((M, N), device=DEVICE, dtype=torch.float16)
    b = torch.rand((K, N), device=DEVICE) - 0.5
    if kind == "bf16":
        return a.bfloat16(), b.bfloat16(), torch.empty((M, N), device=DEVICE, dtype=torch.float16)
    return a, b, torch.empty((M, N), device=DEVICE, dtype=torch.float32)


def cublas(kind, a, b):
    """cuBLAS's product of the same operands (None where PyTorch has no such call)."""
    if kind == "fp8":
        one = torch.ones((), device=DEVICE)
        try:
            return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)
        except AttributeError:
            return None
    if kind == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
    return lambda: torch.matmul(a, b)


def run():
    results = []
    torch.manual_seed(0)
    # tf32 keeps 10 mantissa bits of each input (the tensor cores may truncate): products of
    # values below 0.5 are off by up to 2^-11 each, about 3e-3 over K = 512 random signs and
    # under 2e-2 at the worst of 262144 outputs; bf16 and fp8 inputs are exact, so only the fp16
    # result's rounding (about 1e-3 here) remains.
    tolerance = {"bf16": 1e-2, "tf32": 5e-2, "fp8": 1e-2}
    for kind in ("bf16", "tf32", "fp8"):
        for M, N, K in ((512, 512, 512), (333, 517, 250)):
            a, b, c = operands(kind, M, N, K)
            c.fill_(float("nan"))
            out = matmul(a, b, c)
            ref = a.double() @ b.double()
            err = (out.double() - ref).abs().max().item()
            results.append(dict(case=f"matmul {kind} {M}x{N}x{K}", ok=err <= tolerance[kind], err=err,
                                note=f"best config: {matmul_kernel.best_config}"))
        for S in (4096, 8192):
            a, b, c = operands(kind, S, S, S)
            matmul(a, b, c)  # autotune outside the timing
            ms = triton.testing.do_bench(lambda: matmul(a, b, c))
            tflops = 2 * S**3 * 1e-12 / (ms * 1e-3)
            reference = cublas(kind, a, b)
            library = f"cuBLAS {triton.testing.do_bench(reference):.3f} ms" if reference else "no cuBLAS call"
            results.append(dict(case=f"matmul bench {kind} {S}^3", ok=True, ms=ms,
                                note=f"{tflops:.0f} TFLOP/s ({100 * tflops / PEAK[kind]:.0f}% of peak), {library}; "
                                     f"{matmul_kernel.best_config}"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
