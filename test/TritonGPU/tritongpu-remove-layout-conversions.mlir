// RUN: triton-opt %s --split-input-file --tritongpu-remove-layout-conversions | FileCheck %s

// Conversions into the layout of the memory accesses are rematerialized backward through
// cheap ops, conversions out of it pushed forward; none remain.
// CHECK-LABEL: tt.func @propagate
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @propagate(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %pc = ttg.convert_layout %pa : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %v = tt.load %pc : tensor<1024x!tt.ptr<f32>, #blocked1>
    %vb = ttg.convert_layout %v : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
    %w = arith.addf %vb, %vb : tensor<1024xf32, #blocked>
    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %qa = tt.addptr %qs, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %qc = ttg.convert_layout %qa : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %wc = ttg.convert_layout %w : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
    tt.store %qc, %wc : tensor<1024x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// A conversion between two layouts with no memory access preferring either stays.
// CHECK-LABEL: tt.func @keep
// CHECK: ttg.convert_layout
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @keep(%x: tensor<1024xf32, #blocked>) -> tensor<1024xf32, #blocked1> {
    %y = math.exp %x : tensor<1024xf32, #blocked>
    %c = ttg.convert_layout %y : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
    tt.return %c : tensor<1024xf32, #blocked1>
  }
}

// -----

// Forward through an op whose other operand is a cheap elementwise chain outside the preferred
// layout (a Welford update: the new sample minus the updated running mean): the chain is asked
// for in the preferred layout and computed there, and the loop carries both values in it (the
// function's results convert back after the loop).
// CHECK-LABEL: tt.func @forward_with_side_chain
// CHECK-NOT: ttg.convert_layout
// CHECK: scf.for {{.*}} -> (tensor<1024xf32, #[[V4:blocked[0-9]*]]>, tensor<1024xf32, #[[V4]]>)
// CHECK: scf.yield
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @forward_with_side_chain(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) -> (tensor<1024xf32, #blocked>, tensor<1024xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<1024xf32, #blocked>
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked1>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %pa = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #blocked1>, tensor<1024xi32, #blocked1>
    %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%mean = %zero, %m2 = %zero) -> (tensor<1024xf32, #blocked>, tensor<1024xf32, #blocked>) : i32 {
      %x1 = tt.load %pa : tensor<1024x!tt.ptr<f32>, #blocked1>
      %x = ttg.convert_layout %x1 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
      %delta = arith.subf %x, %mean : tensor<1024xf32, #blocked>
      %mean_new = arith.addf %mean, %delta : tensor<1024xf32, #blocked>
      %d2 = arith.subf %x, %mean_new : tensor<1024xf32, #blocked>
      %prod = arith.mulf %delta, %d2 : tensor<1024xf32, #blocked>
      %m2_new = arith.addf %m2, %prod : tensor<1024xf32, #blocked>
      scf.yield %mean_new, %m2_new : tensor<1024xf32, #blocked>, tensor<1024xf32, #blocked>
    }
    tt.return %res#0, %res#1 : tensor<1024xf32, #blocked>, tensor<1024xf32, #blocked>
  }
}

// -----

// A conversion of a shared-memory read is the read itself in the converted layout.
// CHECK-LABEL: tt.func @local_load_in_converted_layout
// CHECK-NOT: ttg.convert_layout
// CHECK: ttg.local_load %{{.*}} : !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf16, #[[WIDE:blocked[0-9]*]]>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.store %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f16>, #[[WIDE]]>
#narrow = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#wide = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @local_load_in_converted_layout(%x: tensor<64x64xf16, #narrow>, %p: tensor<64x64x!tt.ptr<f16>, #wide>) {
    %m = ttg.local_alloc %x : (tensor<64x64xf16, #narrow>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %v = ttg.local_load %m : !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf16, #narrow>
    %w = ttg.convert_layout %v : tensor<64x64xf16, #narrow> -> tensor<64x64xf16, #wide>
    tt.store %p, %w : tensor<64x64x!tt.ptr<f16>, #wide>
    tt.return
  }
}
