"""Tensor-descriptor (TMA) cases for ../shared/bench/harness.py: Triton's TTIR/TTGIR/PTX of
host-side and device-side descriptor kernels, the reference for Tritium's TMA lowering and
pipelining. Run on the GPU machine:

    PYTHONPATH=bench CASE_MODULES=tma_cases python3 ../shared/bench/harness.py dump DIR
"""
import torch, triton, triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor
from harness import case, dev, rnd

# Device-side descriptors (tl.make_tensor_descriptor) write their CUtensorMap into global
# scratch that Triton allocates through this hook.
triton.set_allocator(lambda size, align, stream: torch.empty(size, device=dev, dtype=torch.int8))


@triton.jit
def tma_copy_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dx = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    do = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    t = dx.load([pm * BM, pn * BN])
    do.store([pm * BM, pn * BN], t * 2)


@triton.jit
def desc_matmul_kernel(a_desc, b_desc, c_ptr, M, N, K, scm,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc.to(tl.float16),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def device_desc_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@case("tma_copy")
def _():
    M, N = 4096, 4096
    x = rnd(M, N); o = torch.empty_like(x)
    return dict(kernel=tma_copy_kernel, args=dict(x_ptr=x, out_ptr=o, M=M, N=N), const=dict(BM=64, BN=64),
                grid=(M // 64, N // 64), num_warps=4, outs=["out_ptr"], ref=lambda: {"out_ptr": 2 * x},
                bytes=2 * M * N * 4)


def _desc_matmul(S, cfg):
    BM, BN, BK, nw, ns = cfg
    a, b = rnd(S, S, dtype=torch.float16), rnd(S, S, dtype=torch.float16)
    c = torch.empty(S, S, device=dev, dtype=torch.float16)
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b, [BK, BN])
    return dict(kernel=desc_matmul_kernel, args=dict(a_desc=ad, b_desc=bd, c_ptr=c, M=S, N=S, K=S, scm=c.stride(0)),
                const=dict(BM=BM, BN=BN, BK=BK), grid=(triton.cdiv(S, BM), triton.cdiv(S, BN)), num_warps=nw,
                num_stages=ns, outs=["c_ptr"], ref=lambda: {"c_ptr": a.double() @ b.double()}, flops=2 * S**3,
                torch=lambda: a @ b, tol=1e-2)


@case("tma_desc_matmul")
def _(): return _desc_matmul(4096, (128, 256, 64, 8, 3))


@case("tma_desc_matmul_small")
def _(): return _desc_matmul(1024, (64, 64, 64, 4, 3))


@case("tma_device_matmul")
def _():
    S, BM, BN, BK = 4096, 128, 256, 64
    a, b = rnd(S, S, dtype=torch.float16), rnd(S, S, dtype=torch.float16)
    c = torch.empty(S, S, device=dev, dtype=torch.float16)
    return dict(kernel=device_desc_matmul_kernel, args=dict(a_ptr=a, b_ptr=b, c_ptr=c, M=S, N=S, K=S),
                const=dict(BM=BM, BN=BN, BK=BK), grid=(S // BM, S // BN), num_warps=8, num_stages=3,
                outs=["c_ptr"], ref=lambda: {"c_ptr": a.double() @ b.double()}, flops=2 * S**3,
                torch=lambda: a @ b, tol=1e-2)
