// RUN: triton-opt %s --split-input-file --tritongpu-reduce-data-duplication | FileCheck %s

// A conversion into a dot-operand layout goes through shared memory, in the source's order.
// CHECK-LABEL: tt.func @to_dot_operand
// CHECK: %[[M:.*]] = ttg.local_alloc %{{.*}} : (tensor<32x16xf32, #blocked>) -> !ttg.memdesc<32x16xf32, #shared, #smem>
// CHECK: ttg.local_load %[[M]] : !ttg.memdesc<32x16xf32, #shared, #smem> -> tensor<32x16xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
// CHECK-NOT: ttg.convert_layout
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @to_dot_operand(%a: tensor<32x16xf32, #blocked>, %b: tensor<16x32xf32, #ttg.dot_op<{opIdx = 1, parent = #blocked}>>, %c: tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked> {
    %ad = ttg.convert_layout %a : tensor<32x16xf32, #blocked> -> tensor<32x16xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
    %d = tt.dot %ad, %b, %c : tensor<32x16xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>> * tensor<16x32xf32, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> -> tensor<32x32xf32, #blocked>
    tt.return %d : tensor<32x32xf32, #blocked>
  }
}

// -----

// Conversions between distributed layouts are left alone.
// CHECK-LABEL: tt.func @between_blocked
// CHECK: ttg.convert_layout
// CHECK-NOT: ttg.local_alloc
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @between_blocked(%x: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked1> {
    %y = ttg.convert_layout %x : tensor<512xf32, #blocked> -> tensor<512xf32, #blocked1>
    tt.return %y : tensor<512xf32, #blocked1>
  }
}

// -----

// Into mma.sync operands, the buffers are swizzled so that each ldmatrix (8 rows of 16 bytes)
// reads 8 bank groups: A (64x32 f16, k contiguous: 64-byte rows, two per 128-byte line) and B
// (32x64 f16, n contiguous: 128-byte rows) as Triton's swizzled_shared for these operands.
// CHECK-DAG: #[[SA:.*]] = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-DAG: #[[SB:.*]] = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: tt.func @to_mma_operands
// CHECK: ttg.local_alloc %{{.*}} -> !ttg.memdesc<64x32xf16, #[[SA]], #smem>
// CHECK: ttg.local_alloc %{{.*}} -> !ttg.memdesc<32x64xf16, #[[SB]], #smem>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @to_mma_operands(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %ad = ttg.convert_layout %a : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    %bd = ttg.convert_layout %b : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
    %d = tt.dot %ad, %bd, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}
