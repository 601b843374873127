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

// -----

// A conversion in a kernel whose shared memory is conversion scratch alone takes at most 2 KiB
// a warp: this 64x128 f16 tile (16 KiB) at 4 warps goes through in two rounds (row bit 5, a
// register bit of both layouts), so the scratch is 8 KiB.
// CHECK: ttg.shared = 8192 : i32
// CHECK: ttg.convert_layout
// CHECK-SAME: allocation.offset = 0 : i32
#rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conversion_in_rounds(%x: tensor<64x128xf16, #rows>, %p: tensor<64x128x!tt.ptr<f16>, #cols>) {
    %y = ttg.convert_layout %x : tensor<64x128xf16, #rows> -> tensor<64x128xf16, #cols>
    tt.store %p, %y : tensor<64x128x!tt.ptr<f16>, #cols>
    tt.return
  }
}

// -----

// The same conversion beside a shared buffer goes through in one round (16 KiB, where the
// buffer, dead by then, was): buffers, not scratch, set how many programs an SM holds.
// CHECK: ttg.shared = 16384 : i32
// CHECK: ttg.convert_layout
// CHECK-SAME: allocation.offset = 0 : i32
#rows = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conversion_beside_a_buffer(%x: tensor<64x128xf16, #rows>, %p: tensor<64x128x!tt.ptr<f16>, #cols>) {
    %buf = ttg.local_alloc %x : (tensor<64x128xf16, #rows>) -> !ttg.memdesc<64x128xf16, #shared, #smem>
    %z = ttg.local_load %buf : !ttg.memdesc<64x128xf16, #shared, #smem> -> tensor<64x128xf16, #rows>
    %y = ttg.convert_layout %z : tensor<64x128xf16, #rows> -> tensor<64x128xf16, #cols>
    tt.store %p, %y : tensor<64x128x!tt.ptr<f16>, #cols>
    tt.return
  }
}
