// RUN: triton-opt %s --split-input-file --tritium-early-loads | FileCheck %s

// An rmsnorm: the weights, loaded after the row's sum of squares in the source, are issued
// right before the reduction, their pointers with them; the conversion and the rest stay.
// CHECK-LABEL: tt.func public @rmsnorm
// CHECK: %[[X:.*]] = tt.load %{{.*}}, %[[MASK:.*]], %{{.*}} : tensor<4096x!tt.ptr<bf16>, #blocked>
// CHECK-NEXT: %[[XF:.*]] = arith.extf %[[X]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[XF]], %[[XF]]
// CHECK-NEXT: %[[WBASE:.*]] = tt.splat %arg2
// CHECK-NEXT: %[[WPTR:.*]] = tt.addptr %[[WBASE]]
// CHECK-NEXT: %[[W:.*]] = tt.load %[[WPTR]], %[[MASK]] : tensor<4096x!tt.ptr<bf16>, #blocked>
// CHECK-NEXT: "tt.reduce"(%[[SQ]])
// CHECK: math.rsqrt
// CHECK-NEXT: arith.extf %[[W]]
// CHECK: tt.store
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rmsnorm(%arg0: !tt.ptr<bf16>, %arg1: !tt.ptr<bf16>, %arg2: !tt.ptr<bf16>, %arg3: i32, %arg4: i32, %arg5: f32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<4096xbf16, #blocked>
    %0 = tt.get_program_id x : i32
    %1 = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %2 = tt.splat %arg4 : i32 -> tensor<4096xi32, #blocked>
    %3 = arith.cmpi slt, %1, %2 : tensor<4096xi32, #blocked>
    %4 = arith.muli %0, %arg3 : i32
    %5 = tt.addptr %arg0, %4 : !tt.ptr<bf16>, i32
    %6 = tt.splat %5 : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>, #blocked>
    %7 = tt.addptr %6, %1 : tensor<4096x!tt.ptr<bf16>, #blocked>, tensor<4096xi32, #blocked>
    %8 = tt.load %7, %3, %cst : tensor<4096x!tt.ptr<bf16>, #blocked>
    %9 = arith.extf %8 : tensor<4096xbf16, #blocked> to tensor<4096xf32, #blocked>
    %10 = arith.mulf %9, %9 : tensor<4096xf32, #blocked>
    %11 = "tt.reduce"(%10) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<4096xf32, #blocked>) -> f32
    %12 = arith.sitofp %arg4 : i32 to f32
    %13 = arith.divf %11, %12 : f32
    %14 = arith.addf %13, %arg5 : f32
    %15 = math.rsqrt %14 : f32
    %16 = tt.splat %arg2 : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>, #blocked>
    %17 = tt.addptr %16, %1 : tensor<4096x!tt.ptr<bf16>, #blocked>, tensor<4096xi32, #blocked>
    %18 = tt.load %17, %3 : tensor<4096x!tt.ptr<bf16>, #blocked>
    %19 = arith.extf %18 : tensor<4096xbf16, #blocked> to tensor<4096xf32, #blocked>
    %20 = tt.splat %15 : f32 -> tensor<4096xf32, #blocked>
    %21 = arith.mulf %9, %20 : tensor<4096xf32, #blocked>
    %22 = arith.mulf %21, %19 : tensor<4096xf32, #blocked>
    %23 = arith.truncf %22 : tensor<4096xf32, #blocked> to tensor<4096xbf16, #blocked>
    %24 = tt.addptr %arg1, %4 : !tt.ptr<bf16>, i32
    %25 = tt.splat %24 : !tt.ptr<bf16> -> tensor<4096x!tt.ptr<bf16>, #blocked>
    %26 = tt.addptr %25, %1 : tensor<4096x!tt.ptr<bf16>, #blocked>, tensor<4096xi32, #blocked>
    tt.store %26, %23, %3 : tensor<4096x!tt.ptr<bf16>, #blocked>
    tt.return
  }
}

// -----

// A layernorm: two reductions (mean, then variance of the centred row, which lives across the
// second). The weights go right before the second reduction only; the bias would take the data
// held across it to 16 + 8 + 8 registers a thread, past 24, and stays.
// CHECK-LABEL: tt.func public @layernorm
// CHECK: "tt.reduce"(%[[XF:.*]])
// CHECK: %[[C:.*]] = arith.select
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[C]], %[[C]]
// CHECK-NEXT: tt.splat %arg2
// CHECK-NEXT: tt.addptr
// CHECK-NEXT: %[[W:.*]] = tt.load
// CHECK-NEXT: "tt.reduce"(%[[SQ]])
// CHECK: math.sqrt
// CHECK: tt.splat %arg3
// CHECK-NEXT: tt.addptr
// CHECK-NEXT: %[[B:.*]] = tt.load
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @layernorm(%arg0: !tt.ptr<f16>, %arg1: !tt.ptr<f16>, %arg2: !tt.ptr<f16>, %arg3: !tt.ptr<f16>, %arg4: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<4096xf32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<4096xf16, #blocked>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %0 = tt.get_program_id x : i32
    %1 = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %2 = tt.splat %arg4 : i32 -> tensor<4096xi32, #blocked>
    %3 = arith.cmpi slt, %1, %2 : tensor<4096xi32, #blocked>
    %4 = arith.muli %0, %arg4 : i32
    %5 = tt.addptr %arg0, %4 : !tt.ptr<f16>, i32
    %6 = tt.splat %5 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>, #blocked>
    %7 = tt.addptr %6, %1 : tensor<4096x!tt.ptr<f16>, #blocked>, tensor<4096xi32, #blocked>
    %8 = tt.load %7, %3, %cst_0 : tensor<4096x!tt.ptr<f16>, #blocked>
    %9 = arith.extf %8 : tensor<4096xf16, #blocked> to tensor<4096xf32, #blocked>
    %10 = "tt.reduce"(%9) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<4096xf32, #blocked>) -> f32
    %11 = arith.sitofp %arg4 : i32 to f32
    %12 = arith.divf %10, %11 : f32
    %13 = tt.splat %12 : f32 -> tensor<4096xf32, #blocked>
    %14 = arith.subf %9, %13 : tensor<4096xf32, #blocked>
    %15 = arith.select %3, %14, %cst : tensor<4096xi1, #blocked>, tensor<4096xf32, #blocked>
    %16 = arith.mulf %15, %15 : tensor<4096xf32, #blocked>
    %17 = "tt.reduce"(%16) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<4096xf32, #blocked>) -> f32
    %18 = arith.divf %17, %11 : f32
    %19 = math.sqrt %18 : f32
    %20 = arith.divf %cst_1, %19 : f32
    %21 = tt.splat %arg2 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>, #blocked>
    %22 = tt.addptr %21, %1 : tensor<4096x!tt.ptr<f16>, #blocked>, tensor<4096xi32, #blocked>
    %23 = tt.load %22, %3 : tensor<4096x!tt.ptr<f16>, #blocked>
    %24 = arith.extf %23 : tensor<4096xf16, #blocked> to tensor<4096xf32, #blocked>
    %25 = tt.splat %arg3 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>, #blocked>
    %26 = tt.addptr %25, %1 : tensor<4096x!tt.ptr<f16>, #blocked>, tensor<4096xi32, #blocked>
    %27 = tt.load %26, %3 : tensor<4096x!tt.ptr<f16>, #blocked>
    %28 = arith.extf %27 : tensor<4096xf16, #blocked> to tensor<4096xf32, #blocked>
    %29 = tt.splat %20 : f32 -> tensor<4096xf32, #blocked>
    %30 = arith.mulf %15, %29 : tensor<4096xf32, #blocked>
    %31 = arith.mulf %30, %24 : tensor<4096xf32, #blocked>
    %32 = arith.addf %31, %28 : tensor<4096xf32, #blocked>
    %33 = arith.truncf %32 : tensor<4096xf32, #blocked> to tensor<4096xf16, #blocked>
    %34 = tt.addptr %arg1, %4 : !tt.ptr<f16>, i32
    %35 = tt.splat %34 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>, #blocked>
    %36 = tt.addptr %35, %1 : tensor<4096x!tt.ptr<f16>, #blocked>, tensor<4096xi32, #blocked>
    tt.store %36, %33, %3 : tensor<4096x!tt.ptr<f16>, #blocked>
    tt.return
  }
}

// -----

// What a load does not move above: a store (it may read what the store wrote: the load goes
// above the reduction after the store, no further), a reduction its mask needs; and loads that
// stay: a volatile one, one in a loop body.
// CHECK-LABEL: tt.func public @stays
// CHECK: "tt.reduce"
// CHECK: tt.store %[[OUT:.*]], %[[X:.*]] :
// CHECK-NEXT: %[[AFTER_STORE:.*]] = tt.load %[[OUT]] : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK-NEXT: "tt.reduce"(%[[X]])
// CHECK: "tt.reduce"(%[[AFTER_STORE]])
// CHECK: arith.cmpf
// CHECK-NEXT: %[[NEEDS_SUM:.*]] = tt.load
// CHECK-NEXT: %[[VOLATILE:.*]] = tt.load {{.*}}isVolatile = true
// CHECK: scf.for
// CHECK: "tt.reduce"
// CHECK: tt.load
// CHECK: scf.yield
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @stays(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %x = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
    %s1 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<1024xf32, #blocked>) -> f32
    %3 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %4 = tt.addptr %3, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %4, %x : tensor<1024x!tt.ptr<f32>, #blocked>
    %s1b = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maxnumf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<1024xf32, #blocked>) -> f32
    %after_store = tt.load %4 : tensor<1024x!tt.ptr<f32>, #blocked>
    %s2 = "tt.reduce"(%after_store) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<1024xf32, #blocked>) -> f32
    %5 = tt.splat %s2 : f32 -> tensor<1024xf32, #blocked>
    %6 = arith.cmpf ogt, %after_store, %5 : tensor<1024xf32, #blocked>
    %needs_sum = tt.load %2, %6 : tensor<1024x!tt.ptr<f32>, #blocked>
    %volatile = tt.load %2 {isVolatile = true} : tensor<1024x!tt.ptr<f32>, #blocked>
    %7 = arith.addf %needs_sum, %volatile : tensor<1024xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
      %s3 = "tt.reduce"(%7) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        tt.reduce.return %s : f32
      }) : (tensor<1024xf32, #blocked>) -> f32
      %in_loop = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
      %s4 = "tt.reduce"(%in_loop) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        tt.reduce.return %s : f32
      }) : (tensor<1024xf32, #blocked>) -> f32
      %sum = arith.addf %acc, %s3 : f32
      %sum2 = arith.addf %sum, %s4 : f32
      scf.yield %sum2 : f32
    }
    %t0 = arith.addf %r, %s1 : f32
    %t = arith.addf %t0, %s1b : f32
    tt.return %t : f32
  }
}

// -----

// A load below a store stays below it, though a reduction it does not need lies above the store.
// CHECK-LABEL: tt.func public @below_store
// CHECK: "tt.reduce"
// CHECK: tt.store
// CHECK-NEXT: tt.load
// CHECK-NEXT: tt.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @below_store(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>) -> (f32, tensor<1024xf32, #blocked>) {
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %x = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<1024xf32, #blocked>) -> f32
    tt.store %2, %x : tensor<1024x!tt.ptr<f32>, #blocked>
    %y = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return %s, %y : f32, tensor<1024xf32, #blocked>
  }
}

// -----

// Nor above a loop (what the loop holds in registers is not counted).
// CHECK-LABEL: tt.func public @below_loop
// CHECK: "tt.reduce"
// CHECK: scf.for
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tt.load
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @below_loop(%arg0: !tt.ptr<f32>, %n: i32) -> (f32, f32, tensor<1024xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %x = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<1024xf32, #blocked>) -> f32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (f32) : i32 {
      %m = arith.mulf %acc, %acc : f32
      scf.yield %m : f32
    }
    %y = tt.load %2 : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return %s, %r, %y : f32, f32, tensor<1024xf32, #blocked>
  }
}
