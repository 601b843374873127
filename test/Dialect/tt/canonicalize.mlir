// RUN: triton-opt %s -canonicalize | FileCheck %s
// The `tt` canonicalization patterns (dialects/src/rewrite/tt.rs): what each rewrites, and what
// it must leave alone.

// ---- splats and constants --------------------------------------------------------------------

// CHECK-LABEL: tt.func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<4xf32>
// CHECK-NEXT: tt.return %[[C]]
tt.func @splat_of_constant() -> tensor<4xf32> {
  %c = arith.constant 1.5 : f32
  %0 = tt.splat %c : f32 -> tensor<4xf32>
  tt.return %0 : tensor<4xf32>
}

// CHECK-LABEL: tt.func @splat_of_argument
// CHECK-NEXT: tt.splat %arg0 : f32 -> tensor<4xf32>
tt.func @splat_of_argument(%x: f32) -> tensor<4xf32> {
  %0 = tt.splat %x : f32 -> tensor<4xf32>
  tt.return %0 : tensor<4xf32>
}

// CHECK-LABEL: tt.func @views_of_splat
// CHECK-DAG: %[[B:.*]] = tt.splat %arg0 : f32 -> tensor<8x4xf32>
// CHECK-DAG: %[[E:.*]] = tt.splat %arg0 : f32 -> tensor<4x1xf32>
// CHECK-DAG: %[[R:.*]] = tt.splat %arg0 : f32 -> tensor<2x2xf32>
// CHECK-DAG: %[[T:.*]] = tt.splat %arg0 : f32 -> tensor<4x1xf32>
// CHECK-NOT: tt.broadcast
// CHECK-NOT: tt.expand_dims
// CHECK-NOT: tt.reshape
// CHECK-NOT: tt.trans
// CHECK: tt.return %[[B]], %[[E]], %[[R]], %[[T]]
tt.func @views_of_splat(%x: f32) -> (tensor<8x4xf32>, tensor<4x1xf32>, tensor<2x2xf32>, tensor<4x1xf32>) {
  %s = tt.splat %x : f32 -> tensor<1x4xf32>
  %0 = tt.broadcast %s : tensor<1x4xf32> -> tensor<8x4xf32>
  %v = tt.splat %x : f32 -> tensor<4xf32>
  %1 = tt.expand_dims %v {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %2 = tt.reshape %v : tensor<4xf32> -> tensor<2x2xf32>
  %3 = tt.trans %s {order = array<i32: 1, 0>} : tensor<1x4xf32> -> tensor<4x1xf32>
  tt.return %0, %1, %2, %3 : tensor<8x4xf32>, tensor<4x1xf32>, tensor<2x2xf32>, tensor<4x1xf32>
}

// CHECK-LABEL: tt.func @views_of_dense_splat
// CHECK-DAG: %[[B:.*]] = arith.constant dense<7> : tensor<8x4xi32>
// CHECK-DAG: %[[E:.*]] = arith.constant dense<7> : tensor<1x4xi32>
// CHECK-DAG: %[[R:.*]] = arith.constant dense<7> : tensor<2x2xi32>
// CHECK-NOT: tt.
// CHECK: tt.return %[[B]], %[[E]], %[[R]]
tt.func @views_of_dense_splat() -> (tensor<8x4xi32>, tensor<1x4xi32>, tensor<2x2xi32>) {
  %c = arith.constant dense<7> : tensor<1x4xi32>
  %0 = tt.broadcast %c : tensor<1x4xi32> -> tensor<8x4xi32>
  %v = arith.constant dense<7> : tensor<4xi32>
  %1 = tt.expand_dims %v {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %2 = tt.reshape %v : tensor<4xi32> -> tensor<2x2xi32>
  tt.return %0, %1, %2 : tensor<8x4xi32>, tensor<1x4xi32>, tensor<2x2xi32>
}

// A constant that is not a splat is not propagated.
// CHECK-LABEL: tt.func @view_of_dense_non_splat
// CHECK: tt.broadcast
tt.func @view_of_dense_non_splat() -> tensor<8x2xi32> {
  %c = arith.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %0 = tt.broadcast %c : tensor<1x2xi32> -> tensor<8x2xi32>
  tt.return %0 : tensor<8x2xi32>
}

// CHECK-LABEL: tt.func @unsplat
// CHECK-DAG: %[[C:.*]] = arith.constant 3 : i32
// CHECK-NOT: tt.
// CHECK: tt.return %arg0, %[[C]] : f32, i32
tt.func @unsplat(%x: f32) -> (f32, i32) {
  %s = tt.splat %x : f32 -> tensor<1x1xf32>
  %0 = tt.unsplat %s : tensor<1x1xf32> -> f32
  %c = arith.constant dense<3> : tensor<1xi32>
  %1 = tt.unsplat %c : tensor<1xi32> -> i32
  tt.return %0, %1 : f32, i32
}

// CHECK-LABEL: tt.func @make_range_of_one
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3> : tensor<1xi32>
// CHECK-NEXT: %[[R:.*]] = tt.make_range {end = 8 : i32, start = 0 : i32}
// CHECK-NEXT: tt.return %[[C]], %[[R]]
tt.func @make_range_of_one() -> (tensor<1xi32>, tensor<8xi32>) {
  %0 = tt.make_range {end = 4 : i32, start = 3 : i32} : tensor<1xi32>
  %1 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  tt.return %0, %1 : tensor<1xi32>, tensor<8xi32>
}

// ---- view chains and identities --------------------------------------------------------------

// CHECK-LABEL: tt.func @broadcast_of_broadcast
// CHECK-NEXT: %[[B:.*]] = tt.broadcast %arg0 : tensor<1x1xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tt.return %[[B]]
tt.func @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<8x4xf32> {
  %0 = tt.broadcast %x : tensor<1x1xf32> -> tensor<1x4xf32>
  %1 = tt.broadcast %0 : tensor<1x4xf32> -> tensor<8x4xf32>
  tt.return %1 : tensor<8x4xf32>
}

// CHECK-LABEL: tt.func @identity_views
// CHECK-NEXT: tt.return %arg0, %arg0, %arg0, %arg1
tt.func @identity_views(%x: tensor<4x4xf32>, %y: tensor<2x4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4x8xf32>) {
  %0 = tt.broadcast %x : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = tt.reshape %x : tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = tt.reshape %x allow_reorder : tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = tt.trans %y {order = array<i32: 0, 1, 2>} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  tt.return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x4x8xf32>
}

// Transposing a square tile keeps its type but is not an identity.
// CHECK-LABEL: tt.func @square_transpose
// CHECK-NEXT: %[[T:.*]] = tt.trans %arg0 {order = array<i32: 1, 0>}
// CHECK-NEXT: tt.return %[[T]]
tt.func @square_transpose(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x4xf32> -> tensor<4x4xf32>
  tt.return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: tt.func @reshape_chains
// CHECK-DAG: %[[A:.*]] = tt.reshape %arg0 : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-DAG: %[[B:.*]] = tt.reshape %arg0 allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-DAG: %[[C:.*]] = tt.reshape %arg1 : tensor<8xf32> -> tensor<2x4xf32>
// CHECK: tt.return %[[A]], %[[B]], %[[C]], %arg0
tt.func @reshape_chains(%x: tensor<4x8xf32>, %v: tensor<8xf32>) -> (tensor<2x16xf32>, tensor<32xf32>, tensor<2x4xf32>, tensor<4x8xf32>) {
  %0 = tt.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tt.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  %2 = tt.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<8x4xf32>
  %3 = tt.reshape %2 : tensor<8x4xf32> -> tensor<32xf32>
  %4 = tt.expand_dims %v {axis = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
  %5 = tt.reshape %4 : tensor<1x8xf32> -> tensor<2x4xf32>
  %6 = tt.reshape %0 : tensor<32xf32> -> tensor<4x8xf32>
  tt.return %1, %3, %5, %6 : tensor<2x16xf32>, tensor<32xf32>, tensor<2x4xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: tt.func @trans_of_trans
// CHECK-NEXT: %[[T:.*]] = tt.trans %arg0 {order = array<i32: 2, 1, 0>} : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
// CHECK-NEXT: tt.return %arg1, %[[T]]
tt.func @trans_of_trans(%x: tensor<2x4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x4x2xf32>) {
  %0 = tt.trans %y {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tt.trans %0 {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %2 = tt.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %3 = tt.trans %2 {order = array<i32: 1, 0, 2>} : tensor<4x8x2xf32> -> tensor<8x4x2xf32>
  tt.return %1, %3 : tensor<4x8xf32>, tensor<8x4x2xf32>
}

// CHECK-LABEL: tt.func @split_join
// CHECK-NEXT: tt.return %arg0, %arg1, %arg2
tt.func @split_join(%a: tensor<4xf32>, %b: tensor<4xf32>, %x: tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>) {
  %j = tt.join %a, %b : tensor<4xf32> -> tensor<4x2xf32>
  %l, %r = tt.split %j : tensor<4x2xf32> -> tensor<4xf32>
  %sl, %sr = tt.split %x : tensor<4x2xf32> -> tensor<4xf32>
  %k = tt.join %sl, %sr : tensor<4xf32> -> tensor<4x2xf32>
  tt.return %l, %r, %k : tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>
}

// Joining the halves of a split in the other order is a different tensor.
// CHECK-LABEL: tt.func @join_swapped_split
// CHECK: tt.split
// CHECK: tt.join
tt.func @join_swapped_split(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %l, %r = tt.split %x : tensor<4x2xf32> -> tensor<4xf32>
  %k = tt.join %r, %l : tensor<4xf32> -> tensor<4x2xf32>
  tt.return %k : tensor<4x2xf32>
}

// ---- casts -----------------------------------------------------------------------------------

// CHECK-LABEL: tt.func @casts
// CHECK-NEXT: %[[B:.*]] = tt.bitcast %arg1 : tensor<4xf32> -> tensor<4xi32>
// CHECK-NEXT: tt.return %arg0, %arg1, %[[B]], %arg2
tt.func @casts(%x: tensor<4xf16>, %y: tensor<4xf32>, %p: !tt.ptr<f32>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xi32>, !tt.ptr<f32>) {
  %0 = tt.fp_to_fp %x : tensor<4xf16> -> tensor<4xf16>
  %1 = tt.bitcast %y : tensor<4xf32> -> tensor<4xi32>
  %2 = tt.bitcast %1 : tensor<4xi32> -> tensor<4xf32>
  %3 = tt.bitcast %y : tensor<4xf32> -> tensor<4xf32>
  %4 = tt.bitcast %3 : tensor<4xf32> -> tensor<4xi32>
  %5 = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  %6 = tt.int_to_ptr %5 : i64 -> !tt.ptr<f32>
  tt.return %0, %2, %4, %6 : tensor<4xf16>, tensor<4xf32>, tensor<4xi32>, !tt.ptr<f32>
}

// CHECK-LABEL: tt.func @fp_to_fp_of_zero
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf8E4M3FN>
// CHECK-DAG: %[[F:.*]] = tt.fp_to_fp %{{.*}}, rounding = rtne : tensor<4xf32> -> tensor<4xf8E4M3FN>
// CHECK: tt.return %[[Z]], %[[F]]
tt.func @fp_to_fp_of_zero() -> (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %0 = tt.fp_to_fp %z, rounding = rtne : tensor<4xf32> -> tensor<4xf8E4M3FN>
  // Other constants would need the conversion's rounding: left alone.
  %c = arith.constant dense<0.1> : tensor<4xf32>
  %1 = tt.fp_to_fp %c, rounding = rtne : tensor<4xf32> -> tensor<4xf8E4M3FN>
  tt.return %0, %1 : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>
}

// The round trip through an integer must come back to the same pointer type.
// CHECK-LABEL: tt.func @pointer_round_trip_other_type
// CHECK: tt.int_to_ptr
tt.func @pointer_round_trip_other_type(%p: !tt.ptr<f32>) -> !tt.ptr<f16> {
  %0 = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  %1 = tt.int_to_ptr %0 : i64 -> !tt.ptr<f16>
  tt.return %1 : !tt.ptr<f16>
}

// ---- pointer arithmetic ----------------------------------------------------------------------

// CHECK-LABEL: tt.func @addptr_zero
// CHECK-NEXT: %[[P:.*]] = tt.addptr %arg1, %arg2
// CHECK-NEXT: tt.return %arg0, %arg1, %[[P]]
tt.func @addptr_zero(%p: !tt.ptr<f32>, %q: tensor<4x!tt.ptr<f32>>, %o: tensor<4xi32>) -> (!tt.ptr<f32>, tensor<4x!tt.ptr<f32>>, tensor<4x!tt.ptr<f32>>) {
  %c0 = arith.constant 0 : i64
  %0 = tt.addptr %p, %c0 : !tt.ptr<f32>, i64
  %z = arith.constant dense<0> : tensor<4xi32>
  %1 = tt.addptr %q, %z : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  %2 = tt.addptr %q, %o : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  tt.return %0, %1, %2 : !tt.ptr<f32>, tensor<4x!tt.ptr<f32>>, tensor<4x!tt.ptr<f32>>
}

// CHECK-LABEL: tt.func @addptr_chain
// CHECK-DAG: %[[S:.*]] = arith.addi %arg1, %arg2 : tensor<4xi32>
// CHECK-DAG: %[[P:.*]] = tt.addptr %arg0, %[[S]] : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
// CHECK-DAG: %[[Q:.*]] = tt.addptr %arg0, %arg1 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
// CHECK-DAG: %[[R:.*]] = tt.addptr %[[Q]], %arg3 : tensor<4x!tt.ptr<f32>>, tensor<4xi64>
// CHECK: tt.return %[[P]], %[[R]]
tt.func @addptr_chain(%p: tensor<4x!tt.ptr<f32>>, %a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xi64>) -> (tensor<4x!tt.ptr<f32>>, tensor<4x!tt.ptr<f32>>) {
  %0 = tt.addptr %p, %a : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  %1 = tt.addptr %0, %b : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  // Offsets of different types are not summed.
  %2 = tt.addptr %0, %c : tensor<4x!tt.ptr<f32>>, tensor<4xi64>
  tt.return %1, %2 : tensor<4x!tt.ptr<f32>>, tensor<4x!tt.ptr<f32>>
}

// CHECK-LABEL: tt.func @addptr_of_splats
// CHECK-DAG: %[[C:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[A:.*]] = tt.addptr %arg0, %arg1 : !tt.ptr<f32>, i32
// CHECK-DAG: %[[SA:.*]] = tt.splat %[[A]] : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
// CHECK-DAG: %[[B:.*]] = tt.addptr %arg0, %[[C]] : !tt.ptr<f32>, i32
// CHECK-DAG: %[[SB:.*]] = tt.splat %[[B]] : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
// CHECK-DAG: %[[V:.*]] = tt.addptr %{{.*}}, %arg2 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
// CHECK: tt.return %[[SA]], %[[SB]], %[[V]]
tt.func @addptr_of_splats(%p: !tt.ptr<f32>, %o: i32, %v: tensor<8xi32>) -> (tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>) {
  %sp = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %so = tt.splat %o : i32 -> tensor<8xi32>
  %0 = tt.addptr %sp, %so : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %c = arith.constant dense<4> : tensor<8xi32>
  %1 = tt.addptr %sp, %c : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  // A varying offset stays a tensor addptr.
  %2 = tt.addptr %sp, %v : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  tt.return %0, %1, %2 : tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>
}

// CHECK-LABEL: tt.func @advance_zero
// CHECK: %[[A:.*]] = tt.advance %arg0, [%{{.*}}, %arg1]
// CHECK-NEXT: tt.return %arg0, %[[A]]
tt.func @advance_zero(%p: !tt.ptr<tensor<4x4xf32>>, %i: i32) -> (!tt.ptr<tensor<4x4xf32>>, !tt.ptr<tensor<4x4xf32>>) {
  %c0 = arith.constant 0 : i32
  %0 = tt.advance %p, [%c0, %c0] : <tensor<4x4xf32>>
  %1 = tt.advance %p, [%c0, %i] : <tensor<4x4xf32>>
  tt.return %0, %1 : !tt.ptr<tensor<4x4xf32>>, !tt.ptr<tensor<4x4xf32>>
}

// ---- masked loads and stores -----------------------------------------------------------------

// CHECK-LABEL: tt.func @load_constant_mask
// CHECK-DAG: %[[A:.*]] = tt.load %arg0 : tensor<4x!tt.ptr<f32>>
// CHECK-DAG: %[[B:.*]] = tt.load %arg0 : tensor<4x!tt.ptr<f32>>
// CHECK-DAG: %[[D:.*]] = tt.load %arg0, %{{.*}} : tensor<4x!tt.ptr<f32>>
// CHECK-DAG: %[[E:.*]] = tt.load %arg0, %arg2, %arg1 : tensor<4x!tt.ptr<f32>>
// CHECK: tt.return %[[A]], %[[B]], %arg1, %[[D]], %[[E]]
tt.func @load_constant_mask(%p: tensor<4x!tt.ptr<f32>>, %other: tensor<4xf32>, %m: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %true = arith.constant dense<true> : tensor<4xi1>
  %false = arith.constant dense<false> : tensor<4xi1>
  // All lanes on: no mask, no other.
  %0 = tt.load %p, %true : tensor<4x!tt.ptr<f32>>
  %1 = tt.load %p, %true, %other : tensor<4x!tt.ptr<f32>>
  // All lanes off: the other value.
  %2 = tt.load %p, %false, %other : tensor<4x!tt.ptr<f32>>
  // All lanes off without other: left alone.
  %3 = tt.load %p, %false : tensor<4x!tt.ptr<f32>>
  // Not a constant.
  %4 = tt.load %p, %m, %other : tensor<4x!tt.ptr<f32>>
  tt.return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: tt.func @store_constant_mask
// CHECK-NEXT: tt.store %arg0, %arg1 : !tt.ptr<f32>
// CHECK-NEXT: tt.store %arg0, %arg1, %arg2 : !tt.ptr<f32>
// CHECK-NEXT: tt.return
tt.func @store_constant_mask(%p: !tt.ptr<f32>, %v: f32, %m: i1) {
  %true = arith.constant true
  %false = arith.constant false
  tt.store %p, %v, %true : !tt.ptr<f32>
  tt.store %p, %v, %false : !tt.ptr<f32>
  tt.store %p, %v, %m : !tt.ptr<f32>
  tt.return
}

// ---- with encodings --------------------------------------------------------------------------

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
// A splat keeps the encoding of the view's result.
// CHECK-LABEL: tt.func @encoded_splat
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<32x32xf32, #blocked>
// CHECK-NEXT: tt.return %[[C]]
tt.func @encoded_splat() -> tensor<32x32xf32, #blocked> {
  %c = arith.constant 2.0 : f32
  %s = tt.splat %c : f32 -> tensor<1x32xf32, #blocked>
  %0 = tt.broadcast %s : tensor<1x32xf32, #blocked> -> tensor<32x32xf32, #blocked>
  tt.return %0 : tensor<32x32xf32, #blocked>
}

// Reshape chains are not merged when layouts are involved.
// CHECK-LABEL: tt.func @encoded_reshape_chain
// CHECK: tt.reshape
// CHECK: tt.reshape
tt.func @encoded_reshape_chain(%x: tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked> {
  %0 = tt.reshape %x : tensor<32x32xf32, #blocked> -> tensor<1024xf32, #blocked1>
  %1 = tt.reshape %0 : tensor<1024xf32, #blocked1> -> tensor<32x32xf32, #blocked>
  tt.return %1 : tensor<32x32xf32, #blocked>
}
}
