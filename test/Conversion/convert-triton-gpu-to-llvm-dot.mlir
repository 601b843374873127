// RUN: triton-opt %s --tritium-llvm | FileCheck %s

// FMA tt.dot whose operands come from ttg.local_store into empty ttg.local_alloc buffers, read
// back in dot-operand layouts (upstream-style TTGIR): the buffers are read into registers and
// staged for the dot (this used to index an empty register list and panic).
// CHECK-LABEL: llvm.func @matmul
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.cond_br
// CHECK: llvm.intr.fma
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @matmul(%pa: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #blocked>
    %c32 = arith.constant dense<32> : tensor<32x1xi32, #blocked>
    %r0 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r1 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %e0 = tt.expand_dims %r0 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
    %e1 = tt.expand_dims %r1 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %rows = arith.muli %e0, %c32 : tensor<32x1xi32, #blocked>
    %rb = tt.broadcast %rows : tensor<32x1xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %cb = tt.broadcast %e1 : tensor<1x32xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %off = arith.addi %rb, %cb : tensor<32x32xi32, #blocked>
    %sa = tt.splat %pa : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #blocked>
    %aa = tt.addptr %sa, %off : tensor<32x32x!tt.ptr<f32>, #blocked>, tensor<32x32xi32, #blocked>
    %a = tt.load %aa : tensor<32x32x!tt.ptr<f32>, #blocked>
    %sb = tt.splat %pb : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #blocked>
    %ab = tt.addptr %sb, %off : tensor<32x32x!tt.ptr<f32>, #blocked>, tensor<32x32xi32, #blocked>
    %b = tt.load %ab : tensor<32x32x!tt.ptr<f32>, #blocked>
    %abuf = ttg.local_alloc : () -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    ttg.local_store %a, %abuf : tensor<32x32xf32, #blocked> -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    %ad = ttg.local_load %abuf : !ttg.memdesc<32x32xf32, #shared, #smem, mutable> -> tensor<32x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
    %bbuf = ttg.local_alloc : () -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    ttg.local_store %b, %bbuf : tensor<32x32xf32, #blocked> -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    %bd = ttg.local_load %bbuf : !ttg.memdesc<32x32xf32, #shared, #smem, mutable> -> tensor<32x32xf32, #ttg.dot_op<{opIdx = 1, parent = #blocked}>>
    %d = tt.dot %ad, %bd, %cst : tensor<32x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>> * tensor<32x32xf32, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> -> tensor<32x32xf32, #blocked>
    %sc = tt.splat %pc : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #blocked>
    %ac = tt.addptr %sc, %off : tensor<32x32x!tt.ptr<f32>, #blocked>, tensor<32x32xi32, #blocked>
    tt.store %ac, %d : tensor<32x32x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
