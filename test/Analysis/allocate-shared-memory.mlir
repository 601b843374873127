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

// -----

// A buffer allocated before a loop and read inside it stays live over the whole loop (the back
// edge reads it again), so the cross-warp reduction's scratch inside the loop goes after it
// (16384 bytes of f32), not on top of it at offset 0.
// CHECK: ttg.shared = 16416 : i32
// CHECK: ttg.local_alloc
// CHECK-SAME: allocation.offset = 0 : i32
// CHECK: scf.for
// CHECK: "tt.reduce"
// CHECK: allocation.offset = 16384 : i32
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @buffer_read_in_loop(%p: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %r0 = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r0 : tensor<4096x!tt.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
    %x = tt.load %pa : tensor<4096x!tt.ptr<f32>, #blocked>
    %buf = ttg.local_alloc %x : (tensor<4096xf32, #blocked>) -> !ttg.memdesc<4096xf32, #shared, #smem>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
      %y = ttg.local_load %buf : !ttg.memdesc<4096xf32, #shared, #smem> -> tensor<4096xf32, #blocked>
      %s = "tt.reduce"(%y) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<4096xf32, #blocked>) -> f32
      %next = arith.addf %acc, %s : f32
      scf.yield %next : f32
    }
    tt.store %out, %sum : !tt.ptr<f32>
    tt.return
  }
}
