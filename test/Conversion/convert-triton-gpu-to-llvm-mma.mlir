// RUN: triton-opt %S/../Inputs/gpu/dot_f16.ttir --tritium-ttir --tritium-ttgir="num-warps=4 target=cuda:80" --tritium-llvm | FileCheck %s
// RUN: triton-opt %S/../Inputs/gpu/dot_f16.ttir --tritium-ttir --tritium-ttgir="num-warps=4 target=cuda:86" --tritium-llvm | FileCheck %s

// A 64x64 f32 accumulator over 4 warps (mma v2, warpsPerCTA [2, 2]) with K = 32: each warp owns
// 32x32, i.e. 2 x 4 tiles of 16x8, and takes 2 K steps of 16 — 16 mma.sync per thread, each
// with four packed f16x2 A registers, two B registers and four f32 accumulators.
// CHECK-LABEL: llvm.func @dot_f16
// CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"
// CHECK-NOT: mma.sync
// CHECK: llvm.return

// The operands come from shared memory by ldmatrix.x4: A (k-major) plainly, B (n-major) through
// .trans, four of each per thread; no element-wise shared loads of them.
// RUN: triton-opt %S/../Inputs/gpu/dot_f16.ttir --tritium-ttir --tritium-ttgir="num-warps=4 target=cuda:80" --tritium-llvm | FileCheck %s --check-prefix=LDA
// RUN: triton-opt %S/../Inputs/gpu/dot_f16.ttir --tritium-ttir --tritium-ttgir="num-warps=4 target=cuda:80" --tritium-llvm | FileCheck %s --check-prefix=LDB
// LDA-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];
// LDA-NOT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LDB-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];
// LDB-NOT: ldmatrix

// RUN: triton-opt %S/../Inputs/gpu/dot_i8.ttir --tritium-ttir --tritium-ttgir="num-warps=4 target=cuda:80" --tritium-llvm | FileCheck %s --check-prefix=I8
// i8 (K = 32 per mma.sync, four i8 per b32 register) into i32: 64x64 over warps [2, 2] is 2 x 4
// tiles per warp, one K step each.
// I8-LABEL: llvm.func @dot_i8
// I8-COUNT-8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=r,=r,=r,=r,r,r,r,r,r,r,r,r,r,r"
// I8-NOT: mma.sync
