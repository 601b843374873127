// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16.ttgir --tritium-llvm | FileCheck %s
// RUN: triton-opt %S/../Inputs/kernels/dot/attn.ttgir --tritium-llvm | FileCheck %s --check-prefix=ATTN
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_tf32.ttgir --tritium-llvm | FileCheck %s --check-prefix=TF32
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_fp8.ttgir --tritium-llvm | FileCheck %s --check-prefix=FP8

// Triton 3.6's own TTGIR (num_stages=1, sm_90) lowers through -tritium-llvm: the 128x256x64 f16
// tile over 8 warps is 2 warpgroups x 4 K steps of wgmma.m64n256k16 per thread, each with 128
// f32 accumulators tied in and out, A (K-major) and B (N-major, transposed) from 128-byte
// swizzled shared memory. The K-major A descriptor's SBO is 1024 (8 rows of 128 bytes, bits
// 32-45 = 64), the N-major B descriptor's LBO the 64-column chunk (64 rows x 128 bytes = 8192,
// bits 16-29 = 512), swizzle mode 1 (128 B) in bits 62-63: the same constants as Triton's PTX.
// CHECK-LABEL: llvm.func @matmul_kernel
// CHECK-DAG: llvm.mlir.constant(4611686293305294848 : i64)
// CHECK-DAG: llvm.mlir.constant(4611686293338849280 : i64)
// CHECK: fence.proxy.async.shared::cta;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {$0, {{.*}}, $127}, $128, $129, p, 1, 1, 0, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: llvm.return

// Attention: the second dot takes A (p) from registers, four b32 words per 16x16 tile, and V
// N-major (transposed B).
// ATTN-LABEL: llvm.func @attn_fwd
// ATTN: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $32, $33, p, 1, 1, 0, 0;
// ATTN: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;

// tf32 and fp8 take no transpose immediates (both operands K-major).
// TF32: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{.*}}, $64, $65, p, 1, 1;
// FP8: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {{.*}}, $128, $129, p, 1, 1;

// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_s3.ttgir --tritium-llvm | FileCheck %s --check-prefix=PIPE
// Triton's pipelined TTGIR (num_stages=3): 16-byte cp.async copies into 3-deep rings of
// buffers (memdesc_index by the loop's slot), one commit group per operand and stage, a wait
// that leaves two groups (one stage) in flight, async wgmma with warp_group_dot_wait
// {pendings = 1} tied to the accumulators, and the drain after the loop.
// PIPE-LABEL: llvm.func @matmul_kernel
// PIPE: cp.async.cg.shared.global [$0], [$1], 16, $2;
// PIPE: cp.async.commit_group;
// PIPE: llvm.cond_br
// PIPE: cp.async.wait_group 2;
// PIPE: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PIPE: wgmma.commit_group.sync.aligned;
// PIPE: wgmma.wait_group.sync.aligned 1;
// PIPE: cp.async.cg.shared.global
// PIPE: wgmma.wait_group.sync.aligned 0;
// PIPE: cp.async.wait_group 0;
