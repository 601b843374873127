"""Matmul in the forms issue 11 times besides tutorial 03's: batched (a 3-D grid, one batch per
program along axis 2), the same through 3-D tensor descriptors made in the kernel (each
program's 1 x BLOCK_M x BLOCK_K blocks reshaped to 2-D) and through block pointers
(`tl.make_block_ptr` / `tl.advance`, boundary checks on the ragged edges), f16 in, f32
accumulation, at one fixed config for both compilers (128x256x64 tiles, 8 warps, 3 stages:
Triton's best for 4096^3). Checked against PyTorch; timed against Triton in the same run (only
the imports change for Triton)."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
CONFIG = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8, num_stages=3)


@triton.jit
def batched_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk,
                          stride_bn, stride_cb, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + batch * stride_cb + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def batched_descriptor_matmul_kernel(a_ptr, b_ptr, c_ptr, B, M, N, K, BLOCK_M: tl.constexpr,
                                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[B, M, K], strides=[M * K, K, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[B, K, N], strides=[K * N, N, 1],
                                       block_shape=[1, BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[B, M, N], strides=[M * N, N, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([batch, pid_m * BLOCK_M, k * BLOCK_K]).reshape(BLOCK_M, BLOCK_K)
        b = b_desc.load([batch, k * BLOCK_K, pid_n * BLOCK_N]).reshape(BLOCK_K, BLOCK_N)
        acc = tl.dot(a, b, acc)
    c_desc.store([batch, pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16).reshape(1, BLOCK_M, BLOCK_N))


@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                            stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    tl.store(c_block, acc.to(tl.float16), boundary_check=(0, 1))


def batched_matmul(a, b):
    B, M, K = a.shape
    _, _, N = b.shape
    c = torch.empty((B, M, N), device=a.device, dtype=torch.float16)
    cfg = CONFIG
    grid = (triton.cdiv(M, cfg["BLOCK_M"]), triton.cdiv(N, cfg["BLOCK_N"]), B)
    batched_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1),
                                b.stride(2), c.stride(0), c.stride(1), c.stride(2), **cfg)
    return c


def batched_descriptor_matmul(a, b):
    # TMA descriptors: the row strides (K and N elements) must be multiples of 16 bytes.
    B, M, K = a.shape
    _, _, N = b.shape
    c = torch.empty((B, M, N), device=a.device, dtype=torch.float16)
    cfg = CONFIG
    grid = (triton.cdiv(M, cfg["BLOCK_M"]), triton.cdiv(N, cfg["BLOCK_N"]), B)
    batched_descriptor_matmul_kernel[grid](a, b, c, B, M, N, K, **cfg)
    return c


def block_ptr_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    cfg = CONFIG
    grid = (triton.cdiv(M, cfg["BLOCK_M"]), triton.cdiv(N, cfg["BLOCK_N"]))
    block_ptr_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                  c.stride(1), **cfg)
    return c


def _close(out, ref, k):
    err = (out.float() - ref.float()).abs().max().item()
    return err <= 0.02 * k ** 0.5, err


def run():
    results = []
    torch.manual_seed(0)
    # Ragged shapes first: masks and boundary checks on every edge.
    a = torch.randn((3, 300, 200), device=DEVICE, dtype=torch.float16)
    b = torch.randn((3, 200, 330), device=DEVICE, dtype=torch.float16)
    ok, err = _close(batched_matmul(a, b), torch.bmm(a, b), 200)
    results.append(dict(case="batched matmul fp16 3x300x330x200", ok=ok, err=err))
    # Descriptors made in the kernel need global scratch: from the allocator, as Triton requires.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=DEVICE))
    # TMA's 16-byte row strides: N = 328, not 330 (the ragged tiles' stores are clipped by TMA).
    a = torch.randn((3, 300, 200), device=DEVICE, dtype=torch.float16)
    b = torch.randn((3, 200, 328), device=DEVICE, dtype=torch.float16)
    out = batched_descriptor_matmul(a, b)
    ok, err = _close(out, torch.bmm(a, b), 200)
    results.append(dict(case="batched descriptor matmul fp16 3x300x328x200", ok=ok and bool(torch.isfinite(out).all()),
                        err=err))
    a = torch.randn((300, 200), device=DEVICE, dtype=torch.float16)
    b = torch.randn((200, 330), device=DEVICE, dtype=torch.float16)
    ok, err = _close(block_ptr_matmul(a, b), a @ b, 200)
    results.append(dict(case="block-pointer matmul fp16 300x330x200", ok=ok, err=err))
    for B, S in ((8, 2048), (4, 4096)):
        a = torch.randn((B, S, S), device=DEVICE, dtype=torch.float16)
        b = torch.randn((B, S, S), device=DEVICE, dtype=torch.float16)
        ok, err = _close(batched_matmul(a, b), torch.bmm(a, b), S)
        ms = triton.testing.do_bench(lambda: batched_matmul(a, b))
        tflops = 2 * B * S**3 * 1e-12 / (ms * 1e-3)
        cublas = triton.testing.do_bench(lambda: torch.bmm(a, b))
        results.append(dict(case=f"batched matmul bench fp16 {B}x{S}^3", ok=ok, err=err, ms=ms,
                            note=f"{tflops:.0f} TFLOP/s, cuBLAS {cublas:.3f} ms"))
        if B == 4:
            ok, err = _close(batched_descriptor_matmul(a, b), torch.bmm(a, b), S)
            ms = triton.testing.do_bench(lambda: batched_descriptor_matmul(a, b))
            tflops = 2 * B * S**3 * 1e-12 / (ms * 1e-3)
            results.append(dict(case=f"batched descriptor matmul bench fp16 {B}x{S}^3", ok=ok, err=err, ms=ms,
                                note=f"{tflops:.0f} TFLOP/s, cuBLAS {cublas:.3f} ms"))
    for S in (4096, 8192):
        a = torch.randn((S, S), device=DEVICE, dtype=torch.float16)
        b = torch.randn((S, S), device=DEVICE, dtype=torch.float16)
        ok, err = _close(block_ptr_matmul(a, b), a @ b, S)
        ms = triton.testing.do_bench(lambda: block_ptr_matmul(a, b))
        tflops = 2 * S**3 * 1e-12 / (ms * 1e-3)
        cublas = triton.testing.do_bench(lambda: a @ b)
        results.append(dict(case=f"block-pointer matmul bench fp16 {S}^3", ok=ok, err=err, ms=ms,
                            note=f"{tflops:.0f} TFLOP/s, cuBLAS {cublas:.3f} ms"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
