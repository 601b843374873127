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
// -----

// A row vector broadcast over an mma tile (attention backward's m and delta, subtracted from
// k @ qT): the conversion moves onto the vector, which is read in the mma's slice; the tile is
// never converted (here the load itself reads it in that slice).
// CHECK-LABEL: tt.func public @broadcast_into_mma
// CHECK-NOT: ttg.convert_layout %{{.*}} : tensor<128x32xf32
// CHECK: tt.load %{{.*}} : tensor<32x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = #[[MMA:mma[0-9]*]]}>>
// CHECK-NEXT: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xf32, #ttg.slice<{dim = 0, parent = #[[MMA]]}>> -> tensor<1x32xf32, #[[MMA]]>
// CHECK-NEXT: tt.broadcast %{{.*}} : tensor<1x32xf32, #[[MMA]]> -> tensor<128x32xf32, #[[MMA]]>
// CHECK-NOT: ttg.convert_layout %{{.*}} : tensor<128x32xf32
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @broadcast_into_mma(%p: tensor<32x!tt.ptr<f32>, #blocked>, %s: tensor<128x32xf32, #mma>) -> tensor<128x32xf32, #mma> {
    %m = tt.load %p : tensor<32x!tt.ptr<f32>, #blocked>
    %c = ttg.convert_layout %m : tensor<32xf32, #blocked> -> tensor<32xf32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %e = tt.expand_dims %c {axis = 0 : i32} : tensor<32xf32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x32xf32, #blocked1>
    %b = tt.broadcast %e : tensor<1x32xf32, #blocked1> -> tensor<128x32xf32, #blocked1>
    %bm = ttg.convert_layout %b : tensor<128x32xf32, #blocked1> -> tensor<128x32xf32, #mma>
    %d = arith.subf %s, %bm : tensor<128x32xf32, #mma>
    tt.return %d : tensor<128x32xf32, #mma>
  }
}

// -----

// A causal mask (a comparison of broadcast index vectors) selecting in an mma tile is computed
// in the mma layout from the vectors' slices, not converted as a tile.
// CHECK-LABEL: tt.func public @mask_into_mma
// CHECK-NOT: ttg.convert_layout %{{.*}} : tensor<128x32xi1
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : tensor<128x32xi32, #[[MMA:mma[0-9]*]]>
// CHECK-NOT: ttg.convert_layout %{{.*}} : tensor<128x32xi1
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x32xi1, #[[MMA]]>, tensor<128x32xf32, #[[MMA]]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mask_into_mma(%rows: tensor<128xi32, #blocked>, %cols: tensor<32xi32, #blocked>, %s: tensor<128x32xf32, #mma>, %z: tensor<128x32xf32, #mma>) -> tensor<128x32xf32, #mma> {
    %r = ttg.convert_layout %rows : tensor<128xi32, #blocked> -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %re = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128x1xi32, #blocked1>
    %rb = tt.broadcast %re : tensor<128x1xi32, #blocked1> -> tensor<128x32xi32, #blocked1>
    %c = ttg.convert_layout %cols : tensor<32xi32, #blocked> -> tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %ce = tt.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x32xi32, #blocked1>
    %cb = tt.broadcast %ce : tensor<1x32xi32, #blocked1> -> tensor<128x32xi32, #blocked1>
    %mask = arith.cmpi sge, %cb, %rb : tensor<128x32xi32, #blocked1>
    %mm = ttg.convert_layout %mask : tensor<128x32xi1, #blocked1> -> tensor<128x32xi1, #mma>
    %d = arith.select %mm, %s, %z : tensor<128x32xi1, #mma>, tensor<128x32xf32, #mma>
    tt.return %d : tensor<128x32xf32, #mma>
  }
}

// -----

// When a shape's loads and stores disagree, the loads' layout is preferred (as Triton, which
// propagates layouts forward from loads): the mask computed from the offsets in the f32 store's
// layout moves into the load's, and only the stored value converts, right before its store.
// CHECK-LABEL: tt.func @loads_layout_preferred
// CHECK: %[[X:.*]] = tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #[[L8:blocked[0-9]*]]>
// CHECK: %[[Y:.*]] = arith.select {{.*}}, %[[X]], {{.*}} : tensor<1024xi1, #[[L8]]>, tensor<1024xf32, #[[L8]]>
// CHECK: ttg.convert_layout %[[Y]] : tensor<1024xf32, #[[L8]]> -> tensor<1024xf32, #[[L4:blocked[0-9]*]]>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @loads_layout_preferred(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<-1640531535> : tensor<1024xi32, #blocked>
    %cst_0 = arith.constant dense<0> : tensor<1024xi32, #blocked>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<1024xf32, #blocked>
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = ttg.convert_layout %2 : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %4 = tt.load %3 : tensor<1024x!tt.ptr<f32>, #blocked1>
    %5 = ttg.convert_layout %4 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
    %6 = arith.muli %0, %cst : tensor<1024xi32, #blocked>
    %7 = arith.cmpi slt, %6, %cst_0 : tensor<1024xi32, #blocked>
    %8 = arith.select %7, %5, %cst_1 : tensor<1024xi1, #blocked>, tensor<1024xf32, #blocked>
    %9 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %10 = tt.addptr %9, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %11 = ttg.convert_layout %10 : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked2>
    %12 = ttg.convert_layout %8 : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked2>
    tt.store %11, %12 : tensor<1024x!tt.ptr<f32>, #blocked2>
    %13 = arith.extui %7 : tensor<1024xi1, #blocked> to tensor<1024xi8, #blocked>
    %14 = tt.splat %arg2 : !tt.ptr<i8> -> tensor<1024x!tt.ptr<i8>, #blocked>
    %15 = tt.addptr %14, %0 : tensor<1024x!tt.ptr<i8>, #blocked>, tensor<1024xi32, #blocked>
    %16 = ttg.convert_layout %15 : tensor<1024x!tt.ptr<i8>, #blocked> -> tensor<1024x!tt.ptr<i8>, #blocked1>
    %17 = ttg.convert_layout %13 : tensor<1024xi8, #blocked> -> tensor<1024xi8, #blocked1>
    tt.store %16, %17 : tensor<1024x!tt.ptr<i8>, #blocked1>
    tt.return
  }
}

// -----

// A TMA store stages its value in shared memory from any register layout: the accumulator goes
// to it in the dot's layout, not through a conversion. A conversion with another user stays.
// CHECK-LABEL: tt.func @descriptor_store_takes_the_dot_layout
// CHECK: %[[H:.*]] = arith.truncf %{{.*}} : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
// CHECK-NEXT: tt.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %[[H]] : !tt.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #mma>
// CHECK: %[[C:.*]] = ttg.convert_layout %{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #blocked>
// CHECK: tt.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %[[C]]
// CHECK: tt.store %{{.*}}, %[[C]]
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @descriptor_store_takes_the_dot_layout(%desc: !tt.tensordesc<tensor<128x128xf16>>, %acc: tensor<128x128xf32, #mma>, %ptrs: tensor<128x128x!tt.ptr<f16>, #blocked>, %m: i32, %n: i32) {
    %0 = arith.truncf %acc : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    %1 = ttg.convert_layout %0 : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #blocked>
    tt.descriptor_store %desc[%m, %n], %1 : !tt.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #blocked>
    %2 = arith.addf %0, %0 : tensor<128x128xf16, #mma>
    %3 = ttg.convert_layout %2 : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #blocked>
    tt.descriptor_store %desc[%m, %n], %3 : !tt.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #blocked>
    tt.store %ptrs, %3 : tensor<128x128x!tt.ptr<f16>, #blocked>
    tt.return
  }
}

// -----

// A loop-carried value computed in an accumulator's slice (attention's running max at
// BLOCK_M = 128) is carried there; only the store after the loop converts. (The rule carrying a
// value into an access layout used to pull it back to #blocked every round, and the rewrite
// stopped at its round limit with conversions, identities among them, inside the loop.)
// CHECK-LABEL: tt.func @running_max_stays_in_the_accumulator_slice
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>)
// CHECK-NOT: ttg.convert_layout
// CHECK: scf.yield %{{.*}} : tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>
// CHECK: ttg.convert_layout %{{.*}} : tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<128xf32, #blocked>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.store
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @running_max_stays_in_the_accumulator_slice(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %x: tensor<128x64xf32, #mma>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0xFF800000> : tensor<128xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init) -> (tensor<128xf32, #blocked>) : i32 {
      %mc = ttg.convert_layout %m : tensor<128xf32, #blocked> -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>
      %row = "tt.reduce"(%x) <{axis = 1 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %mx = arith.maxnumf %a, %b : f32
        tt.reduce.return %mx : f32
      }) : (tensor<128x64xf32, #mma>) -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>
      %new = arith.maxnumf %mc, %row : tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>
      %nb = ttg.convert_layout %new : tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<128xf32, #blocked>
      scf.yield %nb : tensor<128xf32, #blocked>
    }
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %base = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %ptrs = tt.addptr %base, %range : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    tt.store %ptrs, %r : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Index arithmetic built from ranges and splats (a block pointer's row offsets, rewritten to
// pointers in a loop) is rebuilt whole in the layout a conversion asks for, even out of an access
// layout (#b1 is the 1-D store's): no conversion stays in the loop, the range and its extension
// are built in the slice layout before it, and the loop adds only the splat offset.
// CHECK-LABEL: tt.func @block_pointer_rows
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[ROWS:.+]] = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #[[B2:blocked[0-9]*]]}>>
// CHECK: %[[ROWS64:.+]] = arith.extsi %[[ROWS]]
// CHECK: scf.for
// CHECK: %[[OFFS:.+]] = tt.splat %{{.+}} : i64 -> tensor<64xi64, #ttg.slice<{dim = 1, parent = #[[B2]]}>>
// CHECK: arith.addi %[[OFFS]], %[[ROWS64]] : tensor<64xi64, #ttg.slice<{dim = 1, parent = #[[B2]]}>>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#b1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @block_pointer_rows(%p: !tt.ptr<f16>, %m: !tt.ptr<f32>, %out: !tt.ptr<f16>, %stride: i64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : i64
    %zero = arith.constant 0 : i64
    %acc0 = arith.constant dense<0.0> : tensor<64x64xf16, #b2>
    // A 1-D store fixes #b1 as an access layout.
    %mr = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
    %ms = tt.splat %m : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #b1>
    %mp = tt.addptr %ms, %mr : tensor<128x!tt.ptr<f32>, #b1>, tensor<128xi32, #b1>
    %mv = arith.sitofp %mr : tensor<128xi32, #b1> to tensor<128xf32, #b1>
    tt.store %mp, %mv : tensor<128x!tt.ptr<f32>, #b1>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #b2}>>
    %cols64 = arith.extsi %cols : tensor<64xi32, #ttg.slice<{dim = 0, parent = #b2}>> to tensor<64xi64, #ttg.slice<{dim = 0, parent = #b2}>>
    %colsx = tt.expand_dims %cols64 {axis = 0 : i32} : tensor<64xi64, #ttg.slice<{dim = 0, parent = #b2}>> -> tensor<1x64xi64, #b2>
    %colsb = tt.broadcast %colsx : tensor<1x64xi64, #b2> -> tensor<64x64xi64, #b2>
    %base = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #b2>
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #b1>
    %rows64 = arith.extsi %rows : tensor<64xi32, #b1> to tensor<64xi64, #b1>
    %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%off = %zero, %acc = %acc0) -> (i64, tensor<64x64xf16, #b2>) {
      // The rows of this iteration's tile, as the block-pointer rewrite leaves them: in #b1.
      %offs = tt.splat %off : i64 -> tensor<64xi64, #b1>
      %row = arith.addi %offs, %rows64 : tensor<64xi64, #b1>
      %rowc = ttg.convert_layout %row : tensor<64xi64, #b1> -> tensor<64xi64, #ttg.slice<{dim = 1, parent = #b2}>>
      %rowx = tt.expand_dims %rowc {axis = 1 : i32} : tensor<64xi64, #ttg.slice<{dim = 1, parent = #b2}>> -> tensor<64x1xi64, #b2>
      %strides = tt.splat %stride : i64 -> tensor<64x1xi64, #b2>
      %rowoff = arith.muli %rowx, %strides : tensor<64x1xi64, #b2>
      %rowb = tt.broadcast %rowoff : tensor<64x1xi64, #b2> -> tensor<64x64xi64, #b2>
      %o = arith.addi %rowb, %colsb : tensor<64x64xi64, #b2>
      %ptrs = tt.addptr %base, %o : tensor<64x64x!tt.ptr<f16>, #b2>, tensor<64x64xi64, #b2>
      %v = tt.load %ptrs : tensor<64x64x!tt.ptr<f16>, #b2>
      %sum = arith.addf %acc, %v : tensor<64x64xf16, #b2>
      %next = arith.addi %off, %c64 : i64
      scf.yield %next, %sum : i64, tensor<64x64xf16, #b2>
    }
    %os = tt.splat %out : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #b2>
    %op = tt.addptr %os, %colsb : tensor<64x64x!tt.ptr<f16>, #b2>, tensor<64x64xi64, #b2>
    tt.store %op, %r#1 : tensor<64x64x!tt.ptr<f16>, #b2>
    tt.return
  }
}

// -----

// What the index-chain rebuild leaves alone: offsets that come from memory (gathered rows) are
// not index arithmetic; the load stays where it is and its value is converted once.
// CHECK-LABEL: tt.func @gathered_rows
// CHECK: %[[ROWS:.+]] = tt.load %{{.+}} : tensor<128x!tt.ptr<i64>, #[[B1:blocked[0-9]*]]>
// CHECK: %[[ROW:.+]] = arith.addi %[[ROWS]], %{{.+}} : tensor<128xi64, #[[B1]]>
// CHECK: ttg.convert_layout %[[ROW]] : tensor<128xi64, #[[B1]]> -> tensor<128xi64, #ttg.slice<{dim = 1, parent = #{{.+}}}>>
// CHECK-NOT: tt.load %{{.+}} : tensor<128x!tt.ptr<i64>
// CHECK: tt.return
#b1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @gathered_rows(%p: !tt.ptr<f16>, %rows_ptr: !tt.ptr<i64>, %out: !tt.ptr<f16>, %stride: i64) {
    %ir = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
    %is = tt.splat %rows_ptr : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>, #b1>
    %ip = tt.addptr %is, %ir : tensor<128x!tt.ptr<i64>, #b1>, tensor<128xi32, #b1>
    %rows = tt.load %ip : tensor<128x!tt.ptr<i64>, #b1>
    %one = arith.constant dense<1> : tensor<128xi64, #b1>
    %row = arith.addi %rows, %one : tensor<128xi64, #b1>
    %rowc = ttg.convert_layout %row : tensor<128xi64, #b1> -> tensor<128xi64, #ttg.slice<{dim = 1, parent = #b2}>>
    %rowx = tt.expand_dims %rowc {axis = 1 : i32} : tensor<128xi64, #ttg.slice<{dim = 1, parent = #b2}>> -> tensor<128x1xi64, #b2>
    %strides = tt.splat %stride : i64 -> tensor<128x1xi64, #b2>
    %rowoff = arith.muli %rowx, %strides : tensor<128x1xi64, #b2>
    %rowb = tt.broadcast %rowoff : tensor<128x1xi64, #b2> -> tensor<128x64xi64, #b2>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #b2}>>
    %cols64 = arith.extsi %cols : tensor<64xi32, #ttg.slice<{dim = 0, parent = #b2}>> to tensor<64xi64, #ttg.slice<{dim = 0, parent = #b2}>>
    %colsx = tt.expand_dims %cols64 {axis = 0 : i32} : tensor<64xi64, #ttg.slice<{dim = 0, parent = #b2}>> -> tensor<1x64xi64, #b2>
    %colsb = tt.broadcast %colsx : tensor<1x64xi64, #b2> -> tensor<128x64xi64, #b2>
    %o = arith.addi %rowb, %colsb : tensor<128x64xi64, #b2>
    %base = tt.splat %p : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>, #b2>
    %ptrs = tt.addptr %base, %o : tensor<128x64x!tt.ptr<f16>, #b2>, tensor<128x64xi64, #b2>
    %v = tt.load %ptrs : tensor<128x64x!tt.ptr<f16>, #b2>
    %os = tt.splat %out : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>, #b2>
    %op = tt.addptr %os, %colsb : tensor<128x64x!tt.ptr<f16>, #b2>, tensor<128x64xi64, #b2>
    tt.store %op, %v : tensor<128x64x!tt.ptr<f16>, #b2>
    tt.return
  }
}

// -----

// A causal mask's rows, `start + arange` computed in a 1-D store layout, asked for in the
// slice of an mma accumulator: rebuilt there (as Triton's TTGIR has it), not converted through
// shared memory.
// CHECK-LABEL: tt.func @mask_rows_into_mma
// CHECK-NOT: ttg.convert_layout %{{.+}} : tensor<128xi32
// CHECK: tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #[[MMA:mma[0-9]*]]}>>
// CHECK: tt.splat %{{.+}} : i32 -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #[[MMA]]}>>
// CHECK-NOT: ttg.convert_layout %{{.+}} : tensor<128xi32
// CHECK: tt.return
#b1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @mask_rows_into_mma(%m: !tt.ptr<i32>, %out: !tt.ptr<f32>, %start: i32, %qk: tensor<128x64xf32, #mma>) {
    %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
    %starts = tt.splat %start : i32 -> tensor<128xi32, #b1>
    %rows = arith.addi %starts, %range : tensor<128xi32, #b1>
    // A 1-D store fixes #b1 as an access layout.
    %ms = tt.splat %m : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>, #b1>
    %mp = tt.addptr %ms, %range : tensor<128x!tt.ptr<i32>, #b1>, tensor<128xi32, #b1>
    tt.store %mp, %rows : tensor<128x!tt.ptr<i32>, #b1>
    %converted = ttg.convert_layout %rows : tensor<128xi32, #b1> -> tensor<128xi32, #ttg.slice<{dim = 1, parent = #mma}>>
    %column = tt.expand_dims %converted {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<128x1xi32, #mma>
    %tile = tt.broadcast %column : tensor<128x1xi32, #mma> -> tensor<128x64xi32, #mma>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #mma}>>
    %row = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #mma}>> -> tensor<1x64xi32, #mma>
    %colt = tt.broadcast %row : tensor<1x64xi32, #mma> -> tensor<128x64xi32, #mma>
    %mask = arith.cmpi sge, %tile, %colt : tensor<128x64xi32, #mma>
    %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32, #mma>
    %masked = arith.select %mask, %qk, %ninf : tensor<128x64xi1, #mma>, tensor<128x64xf32, #mma>
    %max = "tt.reduce"(%masked) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %x = arith.maxnumf %a, %b : f32
      tt.reduce.return %x : f32
    }) : (tensor<128x64xf32, #mma>) -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>
    %max1 = ttg.convert_layout %max : tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<128xf32, #b1>
    %outs = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #b1>
    %op = tt.addptr %outs, %range : tensor<128x!tt.ptr<f32>, #b1>, tensor<128xi32, #b1>
    tt.store %op, %max1 : tensor<128x!tt.ptr<f32>, #b1>
    tt.return
  }
}

// -----

// A row argmin: the values come from a load in its (vectorized) layout, the column indices are
// a broadcast of a range, buildable in any layout. The indices follow the values into the
// load's layout (rebuilt there through broadcast and expand_dims), so the values are reduced
// where they were loaded and only the row result is converted for its store (as Triton).
// CHECK-LABEL: tt.func @argmin_indices_follow_the_values
// CHECK: %[[X:.*]] = tt.load {{.*}} : tensor<4x1024x!tt.ptr<f16>, #[[LOAD:blocked[0-9]*]]>
// CHECK-NOT: ttg.convert_layout
// CHECK: "tt.reduce"(%[[X]], %{{.*}}) <{axis = 1 : i32}>
// CHECK: (tensor<4x1024xf16, #[[LOAD]]>, tensor<4x1024xi32, #[[LOAD]]>)
// CHECK: ttg.convert_layout
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.store
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @argmin_indices_follow_the_values(%x_ptrs: tensor<4x1024x!tt.ptr<f16>, #blocked>, %out: tensor<4x!tt.ptr<i32>, #blocked1>) {
    %x = tt.load %x_ptrs : tensor<4x1024x!tt.ptr<f16>, #blocked>
    %cols = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #ttg.slice<{dim = 0, parent = #blocked2}>>
    %row = tt.expand_dims %cols {axis = 0 : i32} : tensor<1024xi32, #ttg.slice<{dim = 0, parent = #blocked2}>> -> tensor<1x1024xi32, #blocked2>
    %idx = tt.broadcast %row : tensor<1x1024xi32, #blocked2> -> tensor<4x1024xi32, #blocked2>
    %xc = ttg.convert_layout %x : tensor<4x1024xf16, #blocked> -> tensor<4x1024xf16, #blocked2>
    %r:2 = "tt.reduce"(%xc, %idx) <{axis = 1 : i32}> ({
    ^bb0(%a: f16, %ai: i32, %b: f16, %bi: i32):
      %lt = arith.cmpf olt, %a, %b : f16
      %v = arith.select %lt, %a, %b : f16
      %i = arith.select %lt, %ai, %bi : i32
      tt.reduce.return %v, %i : f16, i32
    }) : (tensor<4x1024xf16, #blocked2>, tensor<4x1024xi32, #blocked2>) -> (tensor<4xf16, #ttg.slice<{dim = 1, parent = #blocked2}>>, tensor<4xi32, #ttg.slice<{dim = 1, parent = #blocked2}>>)
    %c = ttg.convert_layout %r#1 : tensor<4xi32, #ttg.slice<{dim = 1, parent = #blocked2}>> -> tensor<4xi32, #blocked1>
    tt.store %out, %c : tensor<4x!tt.ptr<i32>, #blocked1>
    tt.return
  }
}

// -----

// A grouped GEMM's B pointers (64x32 here), built from the column offsets that C's store (32x32,
// one element a thread) also uses: the front end's value is in the store's layout, the load's is
// wider. The loop carries the pointers in the load's layout (the shape's preferred one, though
// the store's layout is also an access layout), and the row and column pieces, shapes no access
// has, are built again in it instead of converted: no conversion is left.
// CHECK-LABEL: tt.func @grouped_gemm_b_pointers
// CHECK-NOT: ttg.convert_layout
// CHECK: scf.for {{.*}} -> (tensor<64x32x!tt.ptr<f16>, #[[LOAD:blocked[0-9]*]]>, tensor<64x32xf16, #[[LOAD]]>)
// CHECK: tt.load {{.*}} : tensor<64x32x!tt.ptr<f16>, #[[LOAD]]>
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#store = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#load = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @grouped_gemm_b_pointers(%b: !tt.ptr<f16>, %c: !tt.ptr<f16>, %ldb: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ks = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #store}>>
    %cols = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #store}>>
    %k2 = tt.expand_dims %ks {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #store}>> -> tensor<64x1xi32, #store>
    %ldbs = tt.splat %ldb : i32 -> tensor<64x1xi32, #store>
    %krow = arith.muli %k2, %ldbs : tensor<64x1xi32, #store>
    %bs = tt.splat %b : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #store>
    %brow = tt.addptr %bs, %krow : tensor<64x1x!tt.ptr<f16>, #store>, tensor<64x1xi32, #store>
    %bb = tt.broadcast %brow : tensor<64x1x!tt.ptr<f16>, #store> -> tensor<64x32x!tt.ptr<f16>, #store>
    %col2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #store}>> -> tensor<1x32xi32, #store>
    %colb = tt.broadcast %col2 : tensor<1x32xi32, #store> -> tensor<64x32xi32, #store>
    %init = tt.addptr %bb, %colb : tensor<64x32x!tt.ptr<f16>, #store>, tensor<64x32xi32, #store>
    %step = tt.splat %ldb : i32 -> tensor<64x32xi32, #store>
    %zero = arith.constant dense<0.0> : tensor<64x32xf16, #load>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %init, %acc = %zero) -> (tensor<64x32x!tt.ptr<f16>, #store>, tensor<64x32xf16, #load>) : i32 {
      %p = ttg.convert_layout %ptrs : tensor<64x32x!tt.ptr<f16>, #store> -> tensor<64x32x!tt.ptr<f16>, #load>
      %v = tt.load %p : tensor<64x32x!tt.ptr<f16>, #load>
      %sum = arith.addf %acc, %v : tensor<64x32xf16, #load>
      %next = tt.addptr %ptrs, %step : tensor<64x32x!tt.ptr<f16>, #store>, tensor<64x32xi32, #store>
      scf.yield %next, %sum : tensor<64x32x!tt.ptr<f16>, #store>, tensor<64x32xf16, #load>
    }
    %rows = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #store}>>
    %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #store}>> -> tensor<32x1xi32, #store>
    %rb = tt.broadcast %r2 : tensor<32x1xi32, #store> -> tensor<32x32xi32, #store>
    %cb = tt.broadcast %col2 : tensor<1x32xi32, #store> -> tensor<32x32xi32, #store>
    %off = arith.addi %rb, %cb : tensor<32x32xi32, #store>
    %cs = tt.splat %c : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>, #store>
    %cp = tt.addptr %cs, %off : tensor<32x32x!tt.ptr<f16>, #store>, tensor<32x32xi32, #store>
    %vals = arith.constant dense<1.0> : tensor<32x32xf16, #store>
    tt.store %cp, %vals : tensor<32x32x!tt.ptr<f16>, #store>
    tt.return
  }
}
