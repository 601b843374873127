// RUN: triton-opt %s --split-input-file --tritongpu-coalesce | FileCheck %s

// 16-byte aligned contiguous f32 accesses get 4 elements per thread; the load result is
// converted back for its users, the store's operands are converted in.
// CHECK: #[[V4:.*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func @aligned
// CHECK: %[[L:.*]] = tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #[[V4]]>
// CHECK: ttg.convert_layout %[[L]]
// CHECK: tt.store {{.*}} : tensor<1024x!tt.ptr<f32>, #[[V4]]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @aligned(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %pa : tensor<1024x!tt.ptr<f32>, #blocked>
    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %qa = tt.addptr %qs, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %qa, %v : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Without alignment facts, one element per thread: the layout is already coalesced and stays.
// CHECK-LABEL: tt.func @unaligned
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @unaligned(%p: !tt.ptr<f32>, %k: i32) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ks = tt.splat %k : i32 -> tensor<1024xi32, #blocked>
    %o = arith.addi %r, %ks : tensor<1024xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %o : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %pa : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.store %pa, %v : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A loop's induction variable is divisible by what divides its lower bound and step: a row read
// in 1024-element chunks from a 16-byte aligned base keeps 16-byte accesses (8 bf16 per thread).
// CHECK: #[[V8:.*]] = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func @loop_iv
// CHECK: scf.for
// CHECK: tt.load {{.*}} : tensor<1024x!tt.ptr<bf16>, #[[V8]]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @loop_iv(%p: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %q: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %c1024 = arith.constant 1024 : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    scf.for %start = %c0 to %n step %c1024 : i32 {
      %row = tt.addptr %p, %start : !tt.ptr<bf16>, i32
      %ps = tt.splat %row : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>, #blocked>
      %pa = tt.addptr %ps, %r : tensor<1024x!tt.ptr<bf16>, #blocked>, tensor<1024xi32, #blocked>
      %v = tt.load %pa : tensor<1024x!tt.ptr<bf16>, #blocked>
      %out = tt.addptr %q, %start : !tt.ptr<bf16>, i32
      %qs = tt.splat %out : !tt.ptr<bf16> -> tensor<1024x!tt.ptr<bf16>, #blocked>
      %qa = tt.addptr %qs, %r : tensor<1024x!tt.ptr<bf16>, #blocked>, tensor<1024xi32, #blocked>
      tt.store %qa, %v : tensor<1024x!tt.ptr<bf16>, #blocked>
    }
    tt.return
  }
}

// -----

// A load takes the widest access of its shape and order connected to it through values, not
// only among its users (Triton's multi-root slice): the f32 load shares its offsets with an i8
// store of a mask it does not feed, so it moves 8 elements per thread (two 16-byte loads), the
// store of its own value keeps 4.
// CHECK-DAG: #[[W4:.*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[W8:.*]] = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func @connected_widest
// CHECK: tt.load {{.*}} : tensor<1024x!tt.ptr<f32>, #[[W8]]>
// CHECK: tt.store {{.*}} : tensor<1024x!tt.ptr<f32>, #[[W4]]>
// CHECK: tt.store {{.*}} : tensor<1024x!tt.ptr<i8>, #[[W8]]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @connected_widest(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %m: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %pa : tensor<1024x!tt.ptr<f32>, #blocked>
    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %qa = tt.addptr %qs, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %qa, %v : tensor<1024x!tt.ptr<f32>, #blocked>
    %bits = arith.trunci %r : tensor<1024xi32, #blocked> to tensor<1024xi8, #blocked>
    %ms = tt.splat %m : !tt.ptr<i8> -> tensor<1024x!tt.ptr<i8>, #blocked>
    %ma = tt.addptr %ms, %r : tensor<1024x!tt.ptr<i8>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %ma, %bits : tensor<1024x!tt.ptr<i8>, #blocked>
    tt.return
  }
}
