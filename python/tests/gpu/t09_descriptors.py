"""Host-side tensor descriptors (TMA), as Triton's tutorial 09's descriptor matmul: kernels
taking `TensorDescriptor` arguments (only the imports changed from Triton's)."""
import torch

import tritium as triton
import tritium.language as tl
from tritium.tools.tensor_descriptor import TensorDescriptor

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_one_kernel(x_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pm = tl.program_id(0) * BLOCK_M
    pn = tl.program_id(1) * BLOCK_N
    out_desc.store([pm, pn], x_desc.load([pm, pn]) + 1)


@triton.jit
def matmul_descriptor_kernel(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M
    offs_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_m, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, offs_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([offs_m, offs_n], acc.to(tl.float16))


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Descriptors made in the kernel: their tensor maps live in the launch's global scratch.
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1],
                                         block_shape=[BLOCK_M, BLOCK_N])
    pm = tl.program_id(0) * BLOCK_M
    pn = tl.program_id(1) * BLOCK_N
    out_desc.store([pm, pn], x_desc.load([pm, pn]) * 2.0)


@triton.jit
def scale_rows_offset_kernel(x_ptr, out_ptr, M, N, row0, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr):
    # The same with the tensors starting `row0` rows in: a base computed in the kernel, so
    # Tritium too builds these descriptors in the kernel (no launcher parameter stands for them).
    x_desc = tl.make_tensor_descriptor(x_ptr + row0 * N, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr + row0 * N, shape=[M, N], strides=[N, 1],
                                         block_shape=[BLOCK_M, BLOCK_N])
    pm = tl.program_id(0) * BLOCK_M
    pn = tl.program_id(1) * BLOCK_N
    out_desc.store([pm, pn], x_desc.load([pm, pn]) * 2.0)


@triton.jit
def matmul_descriptor_persistent_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                        GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    # Tutorial 09's persistent descriptor matmul: one program per SM walks the output tiles
    # (tile loop fused with the K loop, flatten=True), grouped for L2 reuse.
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = pid_m * BLOCK_M
        offs_bn = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_k, offs_bn])
            acc = tl.dot(a, b, acc)
        c_desc.store([offs_am, offs_bn], acc.to(tl.float16))


def matmul_persistent(a, b, c=None, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=8,
                      num_stages=3, K=None):
    M, K_of_a = a.shape
    _, N = b.shape
    K = K_of_a if K is None else K
    if c is None:
        c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    matmul_descriptor_persistent_kernel[(min(num_sms, tiles), )](
        a_desc, b_desc, c_desc, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        GROUP_SIZE_M=8, NUM_SMS=num_sms, num_warps=num_warps, num_stages=num_stages)
    return c


def matmul(a, b, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_descriptor_kernel[grid](a_desc, b_desc, c_desc, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                   BLOCK_K=BLOCK_K, num_warps=num_warps, num_stages=num_stages)
    return c


def run():
    results = []
    torch.manual_seed(0)
    # A ragged copy into a column slice of a wider tensor: what lies past the slice's last
    # 16-byte chunk stays untouched (TMA stores write whole 16-byte chunks).
    for M, N in ((200, 136), (64, 64), (300, 264)):
        x = torch.randn((M, N), device=DEVICE, dtype=torch.float16)
        wide = torch.full((M, N + 40), 7.0, device=DEVICE, dtype=torch.float16)
        out = wide[:, :N]
        x_desc = TensorDescriptor.from_tensor(x, [64, 64])
        out_desc = TensorDescriptor(out, list(out.shape), list(out.stride()), [64, 64])
        add_one_kernel[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x_desc, out_desc, BLOCK_M=64,
                                                                  BLOCK_N=64)
        torch.cuda.synchronize()
        inside = (out.float() - (x.float() + 1).half().float()).abs().max().item()
        beyond = (wide[:, (N + 7) // 8 * 8:] != 7).sum().item()
        results.append(dict(case=f"descriptor add-one {M}x{N} in a wider tensor",
                            ok=inside == 0 and beyond == 0, err=inside,
                            note=f"{beyond} elements past the 16-byte chunk written"))
    for M, N, K in ((512, 512, 512), (300, 264, 200), (1024, 768, 1032)):
        a = torch.randn((M, K), device=DEVICE, dtype=torch.float16)
        b = torch.randn((K, N), device=DEVICE, dtype=torch.float16)
        c = matmul(a, b)
        ref = torch.matmul(a, b)
        err = (c.float() - ref.float()).abs().max().item()
        results.append(dict(case=f"descriptor matmul {M}x{N}x{K}", ok=err <= 0.05 * K ** 0.5,
                            err=err))
    # Persistent: more tiles than SMs, ragged edges, and K = 0 (the fused loop's speculated
    # empty inner loop); the output poisoned first.
    for M, N, K in ((512, 512, 512), (300, 264, 200), (4096, 4096, 1024), (256, 512, 0)):
        # A descriptor cannot describe an empty tensor (the driver wants every dimension
        # non-zero, and torch gives an empty one unit strides): K = 0 runs on 64-wide operands
        # with the kernel told K = 0.
        a = torch.randn((M, max(K, 64)), device=DEVICE, dtype=torch.float16)
        b = torch.randn((max(K, 64), N), device=DEVICE, dtype=torch.float16)
        c = torch.full((M, N), float("nan"), device=DEVICE, dtype=torch.float16)
        matmul_persistent(a, b, c, K=K)
        ref = torch.matmul(a[:, :K].float(), b[:K].float())
        err = (c.float() - ref).abs().max().item()
        results.append(dict(case=f"persistent descriptor matmul {M}x{N}x{K}",
                            ok=bool(torch.isfinite(c).all()) and err <= 0.05 * max(K, 1) ** 0.5,
                            err=err))
    # In-kernel descriptors need global scratch: from the allocator (as Triton requires), which
    # also lets the launches be captured in a CUDA graph and replayed. (Tritium's launcher makes
    # scale_rows_kernel's, descriptors of its arguments; scale_rows_offset_kernel's, of
    # pointers computed in the kernel, are built there in both compilers.)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device=DEVICE))
    M, N = 300, 256
    x = torch.randn((M, N), device=DEVICE, dtype=torch.float32)
    out = torch.full((M, N), float("nan"), device=DEVICE)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    scale_rows_kernel[grid](x, out, M, N, BLOCK_M=64, BLOCK_N=64)
    torch.cuda.synchronize()
    err = (out - 2 * x).abs().max().item()
    results.append(dict(case="in-kernel descriptors, scratch from set_allocator", ok=err == 0,
                        err=err))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            scale_rows_kernel[grid](x, out, M, N, BLOCK_M=64, BLOCK_N=64)
    stream.synchronize()
    errs = []
    for _ in range(3):
        x.copy_(torch.randn((M, N), device=DEVICE))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        errs.append((out - 2 * x).abs().max().item())
    results.append(dict(case="in-kernel descriptors captured in a CUDA graph, 3 replays",
                        ok=all(e == 0 for e in errs), err=max(errs)))
    row0 = 7
    xo = torch.randn((row0 + M, N), device=DEVICE, dtype=torch.float32)
    outo = torch.full((row0 + M, N), float("nan"), device=DEVICE)
    scale_rows_offset_kernel[grid](xo, outo, M, N, row0, BLOCK_M=64, BLOCK_N=64)
    torch.cuda.synchronize()
    err = (outo[row0:] - 2 * xo[row0:]).abs().max().item()
    untouched = bool(torch.isnan(outo[:row0]).all())
    results.append(dict(case="descriptors of a base computed in the kernel, from set_allocator",
                        ok=err == 0 and untouched, err=err))
    with torch.cuda.stream(stream):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            scale_rows_offset_kernel[grid](xo, outo, M, N, row0, BLOCK_M=64, BLOCK_N=64)
    stream.synchronize()
    errs = []
    for _ in range(3):
        xo.copy_(torch.randn((row0 + M, N), device=DEVICE))
        outo.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        errs.append((outo[row0:] - 2 * xo[row0:]).abs().max().item())
    results.append(dict(case="descriptors built in the kernel, in a CUDA graph, 3 replays",
                        ok=all(e == 0 for e in errs), err=max(errs)))
    for size in (4096, 8192):
        a = torch.randn((size, size), device=DEVICE, dtype=torch.float16)
        b = torch.randn((size, size), device=DEVICE, dtype=torch.float16)
        ms = triton.testing.do_bench(lambda: matmul(a, b))
        tflops = 2 * size ** 3 * 1e-12 / (ms * 1e-3)
        results.append(dict(case=f"descriptor matmul bench {size}^3", ok=True, ms=ms,
                            note=f"{tflops:.0f} TFLOP/s"))
        ms = triton.testing.do_bench(lambda: matmul_persistent(a, b))
        tflops = 2 * size ** 3 * 1e-12 / (ms * 1e-3)
        results.append(dict(case=f"persistent descriptor matmul bench {size}^3", ok=True, ms=ms,
                            note=f"{tflops:.0f} TFLOP/s"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
