// RUN: triton-opt %s --tritium-llvm | FileCheck %s

// A tensor staged through a local_alloc buffer and read back in another layout: stores to and
// loads from shared memory at the buffer's offset, separated by barriers.
// CHECK-LABEL: llvm.func @stage
// CHECK: bar.sync 0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: st.global
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @stage(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %f = arith.sitofp %r : tensor<512xi32, #blocked> to tensor<512xf32, #blocked>
    %m = ttg.local_alloc %f : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %v = ttg.local_load %m : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked1>
    %r1 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked1>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked1>
    %oa = tt.addptr %os, %r1 : tensor<512x!tt.ptr<f32>, #blocked1>, tensor<512xi32, #blocked1>
    tt.store %oa, %v : tensor<512x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}
