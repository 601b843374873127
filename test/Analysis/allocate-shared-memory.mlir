// RUN: triton-opt %s --split-input-file --allocate-shared-memory | FileCheck %s

// Two ops needing scratch at different times share offset 0; the module records the total.
// CHECK: ttg.shared = 32 : i32
// CHECK: "tt.reduce"
// CHECK: allocation.offset = 0 : i32
// CHECK: "tt.reduce"
// CHECK: allocation.offset = 0 : i32
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_reductions(%p: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
    %r0 = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r0 : tensor<4096x!tt.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
    %x = tt.load %pa : tensor<4096x!tt.ptr<f32>, #blocked>
    %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4096xf32, #blocked>) -> f32
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4096xf32, #blocked>) -> f32
    %r = arith.addf %m, %s : f32
    tt.store %out, %r : !tt.ptr<f32>
    tt.return
  }
}

// -----

// No shared memory needed: nothing is placed and the total is 0.
// CHECK: ttg.shared = 0 : i32
// CHECK-NOT: allocation.offset
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @elementwise(%p: !tt.ptr<f32>) {
    %r0 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r0 : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %x = tt.load %pa : tensor<512x!tt.ptr<f32>, #blocked>
    %y = arith.addf %x, %x : tensor<512xf32, #blocked>
    tt.store %pa, %y : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
