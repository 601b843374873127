// RUN: triton-opt %s --split-input-file --tritongpu-optimize-dot-operands | FileCheck %s

// A wgmma operand transposed in registers (B = trans(x), x loaded N x K with K contiguous) is
// staged as x is held — K-contiguous, 128-byte swizzled — and read through a transposed view:
// B becomes K-major, no register transpose, and the tt.trans goes away.
// CHECK-DAG: #[[X:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[V:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @trans_b
// CHECK-NOT: tt.trans
// CHECK: %[[S:.*]] = ttg.local_alloc %arg1 : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #[[X]], #smem>
// CHECK: %[[T:.*]] = ttg.memdesc_trans %[[S]] {order = array<i32: 1, 0>} : !ttg.memdesc<64x64xf16, #[[X]], #smem> -> !ttg.memdesc<64x64xf16, #[[V]], #smem>
// CHECK: ttng.warp_group_dot %{{.*}}, %[[T]], %{{.*}} : !ttg.memdesc<64x64xf16, #[[X]], #smem> * !ttg.memdesc<64x64xf16, #[[V]], #smem>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @trans_b(%a: tensor<64x64xf16, #blocked>, %x: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %b = tt.trans %x {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
    %sb = ttg.local_alloc %b : (tensor<64x64xf16, #blocked1>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %d = ttng.warp_group_dot %sa, %sb, %c : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// A transposed tensor that is also read elsewhere keeps its buffer as is.
// CHECK-LABEL: tt.func public @kept
// CHECK: tt.trans
// CHECK-NOT: ttg.memdesc_trans
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @kept(%a: tensor<64x64xf16, #blocked>, %x: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf16, #blocked> {
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %b = tt.trans %x {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked>
    %sb = ttg.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %l = ttg.local_load %sb : !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf16, #blocked>
    %d = ttng.warp_group_dot %sa, %sb, %c : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return %l : tensor<64x64xf16, #blocked>
  }
}

// -----

// A tensor staged for one wgmma (qT of attention's backward: B of k @ qT) and transposed for
// another (B of dsT @ trans(qT), through a layout conversion): the second dot reads the first
// one's buffer transposed, so qT is staged once, and the conversion goes with the tt.trans.
// CHECK-DAG: #[[K:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
// CHECK-DAG: #[[N:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @staged_twice
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[Q:.*]] = ttg.local_alloc %arg1 : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #[[K]], #smem>
// CHECK: ttng.warp_group_dot %{{.*}}, %[[Q]], %{{.*}}
// CHECK-NOT: ttg.local_alloc
// CHECK-NOT: tt.trans
// CHECK: %[[T:.*]] = ttg.memdesc_trans %[[Q]] {order = array<i32: 1, 0>} : !ttg.memdesc<64x32xf16, #[[K]], #smem> -> !ttg.memdesc<32x64xf16, #[[N]], #smem>
// CHECK-NOT: ttg.local_alloc
// CHECK: ttng.warp_group_dot %{{.*}}, %[[T]], %{{.*}}
#blocked = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @staged_twice(%k: !ttg.memdesc<128x64xf16, #shared, #smem>, %qT: tensor<64x32xf16, #blocked>, %ds: tensor<128x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %c: tensor<128x32xf32, #mma1>, %acc: tensor<128x64xf32, #mma>) -> (tensor<128x32xf32, #mma1>, tensor<128x64xf32, #mma>) {
    %sq = ttg.local_alloc %qT : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #shared1, #smem>
    %s = ttng.warp_group_dot %k, %sq, %c : !ttg.memdesc<128x64xf16, #shared, #smem> * !ttg.memdesc<64x32xf16, #shared1, #smem> -> tensor<128x32xf32, #mma1>
    %cv = ttg.convert_layout %qT : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
    %t = tt.trans %cv {order = array<i32: 1, 0>} : tensor<64x32xf16, #blocked1> -> tensor<32x64xf16, #blocked2>
    %st = ttg.local_alloc %t : (tensor<32x64xf16, #blocked2>) -> !ttg.memdesc<32x64xf16, #shared, #smem>
    %d = ttng.warp_group_dot %ds, %st, %acc : tensor<128x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<128x64xf32, #mma>
    tt.return %s, %d : tensor<128x32xf32, #mma1>, tensor<128x64xf32, #mma>
  }
}
