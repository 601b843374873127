// RUN: triton-opt %s --split-input-file --tritium-llvm | FileCheck %s

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

// -----

// A conversion of booleans goes through shared memory as bytes packed into b32 words (four per
// word here, two words a thread), read back as one v2 load; no byte-wide accesses.
// CHECK-LABEL: llvm.func @bool_convert
// CHECK-NOT: !llvm.ptr<3>) -> i8
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xi32>
// CHECK-NOT: !llvm.ptr<3>) -> i8
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bool_convert(%out: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %n: i32) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %b = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %c = ttg.convert_layout %b : tensor<1024xi1, #blocked> -> tensor<1024xi1, #blocked1>
    %e = arith.extui %c : tensor<1024xi1, #blocked1> to tensor<1024xi8, #blocked1>
    %r1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked1>
    %os = tt.splat %out : !tt.ptr<i8> -> tensor<1024x!tt.ptr<i8>, #blocked1>
    %oa = tt.addptr %os, %r1 : tensor<1024x!tt.ptr<i8>, #blocked1>, tensor<1024xi32, #blocked1>
    tt.store %oa, %e : tensor<1024x!tt.ptr<i8>, #blocked1>
    tt.return
  }
}
