"""Kernels for bench/matmul-forms.py: one f16 matmul written five ways (only the imports differ
between the two compilers; run_one.load swaps them). Every form takes the same 128x256x64 tile,
8 warps, 3 stages and the grouped tile order of tutorial 03."""
import torch

import tritium as triton
import tritium.language as tl
from tritium.tools.tensor_descriptor import TensorDescriptor

BM, BN, BK, GROUP, WARPS, STAGES = 128, 256, 64, 8, 8, 3


@triton.jit
def _tile(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def desc_tile_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid_m, pid_n = _tile(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_SIZE_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for ki in range(tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
        b = b_desc.load([ki * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@triton.jit
def desc_persistent_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                FLATTEN: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = _tile(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([ki * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


def desc(a, b, c, persistent, flatten):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    descs = (TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
             TensorDescriptor.from_tensor(c, [BM, BN]))
    if persistent:
        desc_persistent_kernel[(min(sms, tiles), )](
            *descs, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_SIZE_M=GROUP, NUM_SMS=sms,
            FLATTEN=flatten, num_warps=WARPS, num_stages=STAGES)
    else:
        desc_tile_kernel[(tiles, )](*descs, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                                    GROUP_SIZE_M=GROUP, num_warps=WARPS, num_stages=STAGES)
