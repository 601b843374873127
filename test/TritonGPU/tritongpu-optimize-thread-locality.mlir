// RUN: triton-opt %s --split-input-file --tritongpu-optimize-thread-locality | FileCheck %s

// A reduction per iteration folded into a loop-carried sum becomes an elementwise per-thread
// accumulation (starting at the identity) and one reduction after the loop.
// CHECK-LABEL: tt.func @row_sum
// CHECK: %[[ID:.*]] = arith.constant dense<-0.000000e+00> : tensor<128xf32, #blocked>
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[FULL:.*]] = %[[ID]])
// CHECK-NOT: tt.reduce
// CHECK: %[[STEP:.*]] = arith.addf %[[FULL]], %{{.*}} : tensor<128xf32, #blocked>
// CHECK: scf.yield %[[ACC]], %[[STEP]]
// CHECK: %[[R:.*]] = "tt.reduce"(%[[LOOP]]#1)
// CHECK: arith.addf %[[LOOP]]#0, %[[R]] : f32
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @row_sum(%p: !tt.ptr<f32>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %sum = scf.for %k = %c0 to %n step %c128 iter_args(%acc = %zero) -> (f32) : i32 {
      %ks = tt.splat %k : i32 -> tensor<128xi32, #blocked>
      %o = arith.addi %ks, %r : tensor<128xi32, #blocked>
      %pa = tt.addptr %ps, %o : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
      %x = tt.load %pa : tensor<128x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %acc2 = arith.addf %acc, %s : f32
      scf.yield %acc2 : f32
    }
    tt.return %sum : f32
  }
}

// -----

// Different ops in the region and in the fold (max then add) must stay.
// CHECK-LABEL: tt.func @mixed
// CHECK: scf.for
// CHECK: tt.reduce
// CHECK: scf.yield
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @mixed(%x: tensor<128xf32, #blocked>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maxnumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %acc2 = arith.addf %acc, %s : f32
      scf.yield %acc2 : f32
    }
    tt.return %sum : f32
  }
}
