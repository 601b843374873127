// RUN: triton-opt %s --split-input-file --triton-combine | FileCheck %s

// add(dot(a, b, 0), c) becomes dot(a, b, c), for either operand order and for integers.
// CHECK-LABEL: tt.func @dot_add
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf32>, %[[B:.*]]: tensor<16x16xf32>, %[[C:.*]]: tensor<16x16xf32>
// CHECK-NEXT: %[[D0:.*]] = tt.dot %[[A]], %[[B]], %[[C]] : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[D1:.*]] = tt.dot %[[A]], %[[B]], %[[C]] : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: tt.return %[[D0]], %[[D1]]
tt.func @dot_add(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %d0 = tt.dot %a, %b, %zero : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s0 = arith.addf %d0, %c : tensor<16x16xf32>
  %d1 = tt.dot %a, %b, %zero : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s1 = arith.addf %c, %d1 : tensor<16x16xf32>
  tt.return %s0, %s1 : tensor<16x16xf32>, tensor<16x16xf32>
}

// CHECK-LABEL: tt.func @dot_add_int
// CHECK-SAME: %[[C:[^:]*]]: tensor<16x16xi32>)
// CHECK-NEXT: %[[D:.*]] = tt.dot %{{.*}}, %{{.*}}, %[[C]]
// CHECK-NEXT: tt.return %[[D]]
tt.func @dot_add_int(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  %d = tt.dot %a, %b, %zero : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  %s = arith.addi %d, %c : tensor<16x16xi32>
  tt.return %s : tensor<16x16xi32>
}

// Left alone: a dot with a second use, a nonzero accumulator, and a float dot with
// maxNumImpreciseAcc (the accumulation precision would change).
// CHECK-LABEL: tt.func @dot_add_kept
// CHECK-COUNT-3: arith.addf
// CHECK: tt.return
tt.func @dot_add_kept(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>, %p: tensor<16x16x!tt.ptr<f32>>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %one = arith.constant dense<1.000000e+00> : tensor<16x16xf32>
  %d0 = tt.dot %a, %b, %zero : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s0 = arith.addf %d0, %c : tensor<16x16xf32>
  tt.store %p, %d0 : tensor<16x16x!tt.ptr<f32>>
  %d1 = tt.dot %a, %b, %one : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s1 = arith.addf %d1, %c : tensor<16x16xf32>
  %d2 = tt.dot %a, %b, %zero {maxNumImpreciseAcc = 32 : i32} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s2 = arith.addf %d2, %c : tensor<16x16xf32>
  tt.return %s0, %s1, %s2 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// addptr(addptr(p, a), b) becomes addptr(p, a + b) when a and b have one type.
// CHECK-LABEL: tt.func @addptr_chain
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tt.ptr<f32>>, %[[A:.*]]: tensor<8xi32>, %[[B:.*]]: tensor<8xi32>, %[[C:.*]]: tensor<8xi64>)
// CHECK-NEXT: %[[I:.*]] = tt.addptr %[[P]], %[[A]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : tensor<8xi32>
// CHECK-NEXT: %[[Q:.*]] = tt.addptr %[[P]], %[[SUM]]
// CHECK-NEXT: %[[R:.*]] = tt.addptr %[[I]], %[[C]] : tensor<8x!tt.ptr<f32>>, tensor<8xi64>
// CHECK-NEXT: tt.return %[[Q]], %[[R]]
tt.func @addptr_chain(%p: tensor<8x!tt.ptr<f32>>, %a: tensor<8xi32>, %b: tensor<8xi32>, %c: tensor<8xi64>) -> (tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>) {
  %p1 = tt.addptr %p, %a : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %q = tt.addptr %p1, %b : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %r = tt.addptr %p1, %c : tensor<8x!tt.ptr<f32>>, tensor<8xi64>
  tt.return %q, %r : tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>
}

// -----

// select(c, load(p, splat c), o) becomes load(p, splat c, o); a select on another condition, or
// of a load with another use, stays.
// CHECK-LABEL: tt.func @select_load
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tt.ptr<f32>>, %[[C:.*]]: i1, %[[D:.*]]: i1, %[[O:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[M:.*]] = tt.splat %[[C]]
// CHECK-NEXT: %[[V:.*]] = tt.load %[[P]], %[[M]], %[[O]] : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: %[[W:.*]] = tt.load %[[P]], %[[M]] : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[D]], %[[W]], %[[O]]
// CHECK-NEXT: %[[X:.*]] = tt.load %[[P]], %[[M]] : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: %[[T:.*]] = arith.select %[[C]], %[[X]], %[[O]]
// CHECK-NEXT: tt.return %[[V]], %[[S]], %[[T]], %[[X]]
tt.func @select_load(%p: tensor<8x!tt.ptr<f32>>, %c: i1, %d: i1, %o: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %m = tt.splat %c : i1 -> tensor<8xi1>
  %v = tt.load %p, %m : tensor<8x!tt.ptr<f32>>
  %s = arith.select %c, %v, %o : tensor<8xf32>
  %w = tt.load %p, %m : tensor<8x!tt.ptr<f32>>
  %s1 = arith.select %d, %w, %o : tensor<8xf32>
  %x = tt.load %p, %m : tensor<8x!tt.ptr<f32>>
  %s2 = arith.select %c, %x, %o : tensor<8xf32>
  tt.return %s, %s1, %s2, %x : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// A tensor condition that is the load's mask works too.
// CHECK-LABEL: tt.func @select_load_tensor_mask
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tt.ptr<f32>>, %[[M:.*]]: tensor<8xi1>, %[[O:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[V:.*]] = tt.load %[[P]], %[[M]], %[[O]] cacheModifier = ca
// CHECK-NEXT: tt.return %[[V]]
tt.func @select_load_tensor_mask(%p: tensor<8x!tt.ptr<f32>>, %m: tensor<8xi1>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %v = tt.load %p, %m cacheModifier = ca : tensor<8x!tt.ptr<f32>>
  %s = arith.select %m, %v, %o : tensor<8xi1>, tensor<8xf32>
  tt.return %s : tensor<8xf32>
}

// -----

// broadcast(splat x) becomes splat x; a broadcast of anything else stays.
// CHECK-LABEL: tt.func @broadcast_splat
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: tensor<1x8xf32>)
// CHECK-NEXT: %[[S:.*]] = tt.splat %[[X]] : f32 -> tensor<4x8xf32>
// CHECK-NEXT: %[[B:.*]] = tt.broadcast %[[Y]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: tt.return %[[S]], %[[B]]
tt.func @broadcast_splat(%x: f32, %y: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = tt.splat %x : f32 -> tensor<1x8xf32>
  %b = tt.broadcast %s : tensor<1x8xf32> -> tensor<4x8xf32>
  %c = tt.broadcast %y : tensor<1x8xf32> -> tensor<4x8xf32>
  tt.return %b, %c : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A 1-D reshape feeding only a reduction may reorder elements; a 2-D one may not.
// CHECK-LABEL: tt.func @reshape_reduce
// CHECK: tt.reshape %{{.*}} allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: tt.reshape %{{.*}} : tensor<4x8xf32> -> tensor<8x4xf32>
tt.func @reshape_reduce(%x: tensor<4x8xf32>) -> (f32, tensor<8xf32>) {
  %r = tt.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %s = "tt.reduce"(%r) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<32xf32>) -> f32
  %r2 = tt.reshape %x : tensor<4x8xf32> -> tensor<8x4xf32>
  %s2 = "tt.reduce"(%r2) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t : f32
  }) : (tensor<8x4xf32>) -> tensor<8xf32>
  tt.return %s, %s2 : f32, tensor<8xf32>
}

// -----

// The combined load reads where the old load did: it stays before a store when `other` is
// available there, and is not combined when `other` comes after a store.
// CHECK-LABEL: tt.func @select_load_store
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tt.ptr<f32>>, %[[M:.*]]: tensor<8xi1>, %[[O:.*]]: tensor<8xf32>, %[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[V:.*]] = tt.load %[[P]], %[[M]], %[[O]] : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: tt.store %[[P]], %[[X]]
// CHECK-NEXT: %[[W:.*]] = tt.load %[[P]], %[[M]] : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: tt.store %[[P]], %[[X]]
// CHECK-NEXT: %[[O2:.*]] = arith.addf %[[O]], %[[X]]
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[W]], %[[O2]]
// CHECK-NEXT: tt.return %[[V]], %[[S]]
tt.func @select_load_store(%p: tensor<8x!tt.ptr<f32>>, %m: tensor<8xi1>, %o: tensor<8xf32>, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %v = tt.load %p, %m : tensor<8x!tt.ptr<f32>>
  tt.store %p, %x : tensor<8x!tt.ptr<f32>>
  %s = arith.select %m, %v, %o : tensor<8xi1>, tensor<8xf32>
  %w = tt.load %p, %m : tensor<8x!tt.ptr<f32>>
  tt.store %p, %x : tensor<8x!tt.ptr<f32>>
  %o2 = arith.addf %o, %x : tensor<8xf32>
  %s2 = arith.select %m, %w, %o2 : tensor<8xi1>, tensor<8xf32>
  tt.return %s, %s2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// reshape(descriptor_load) that only drops leading unit dims becomes the rank-reduced load,
// where the old load was (before the store), with its attributes; allow_reorder does not stop
// it.
// CHECK-LABEL: tt.func @descriptor_load_rank_reduced
// CHECK-SAME: (%[[D:.*]]: !tt.tensordesc<tensor<1x16x32xf16>>, %[[E:.*]]: !tt.tensordesc<tensor<1x1x16x32xf16>>, %[[I:.*]]: i32, %[[P:.*]]: !tt.ptr<f16>, %[[X:.*]]: f16)
// CHECK-NEXT: %[[A:.*]] = tt.descriptor_load %[[D]][%[[I]], %[[I]], %[[I]]] cacheModifier = cg : !tt.tensordesc<tensor<1x16x32xf16>> -> tensor<16x32xf16>
// CHECK-NEXT: tt.store %[[P]], %[[X]]
// CHECK-NEXT: %[[B:.*]] = tt.descriptor_load %[[E]][%[[I]], %[[I]], %[[I]], %[[I]]] : !tt.tensordesc<tensor<1x1x16x32xf16>> -> tensor<16x32xf16>
// CHECK-NEXT: %[[C:.*]] = tt.descriptor_load %[[E]][%[[I]], %[[I]], %[[I]], %[[I]]] : !tt.tensordesc<tensor<1x1x16x32xf16>> -> tensor<1x16x32xf16>
// CHECK-NEXT: tt.return %[[A]], %[[B]], %[[C]]
tt.func @descriptor_load_rank_reduced(%d: !tt.tensordesc<tensor<1x16x32xf16>>, %e: !tt.tensordesc<tensor<1x1x16x32xf16>>, %i: i32, %p: !tt.ptr<f16>, %x: f16) -> (tensor<16x32xf16>, tensor<16x32xf16>, tensor<1x16x32xf16>) {
  %l = tt.descriptor_load %d[%i, %i, %i] cacheModifier = cg : !tt.tensordesc<tensor<1x16x32xf16>> -> tensor<1x16x32xf16>
  tt.store %p, %x : !tt.ptr<f16>
  %a = tt.reshape %l allow_reorder : tensor<1x16x32xf16> -> tensor<16x32xf16>
  %m = tt.descriptor_load %e[%i, %i, %i, %i] : !tt.tensordesc<tensor<1x1x16x32xf16>> -> tensor<1x1x16x32xf16>
  %b = tt.reshape %m : tensor<1x1x16x32xf16> -> tensor<16x32xf16>
  %n = tt.descriptor_load %e[%i, %i, %i, %i] : !tt.tensordesc<tensor<1x1x16x32xf16>> -> tensor<1x1x16x32xf16>
  %c = tt.reshape %n : tensor<1x1x16x32xf16> -> tensor<1x16x32xf16>
  tt.return %a, %b, %c : tensor<16x32xf16>, tensor<16x32xf16>, tensor<1x16x32xf16>
}

// Left alone: a load with another use, a reshape that changes more than leading unit dims (a
// split dim, a trailing unit dim, other dims), and a reshape of something else.
// CHECK-LABEL: tt.func @descriptor_load_reshape_kept
// CHECK-NEXT: %[[L:.*]] = tt.descriptor_load {{.*}} -> tensor<1x16x32xf16>
// CHECK-NEXT: tt.reshape %[[L]] : tensor<1x16x32xf16> -> tensor<16x32xf16>
// CHECK-NEXT: tt.descriptor_load {{.*}} -> tensor<2x8x32xf16>
// CHECK-NEXT: tt.reshape %{{.*}} : tensor<2x8x32xf16> -> tensor<16x32xf16>
// CHECK-NEXT: tt.descriptor_load {{.*}} -> tensor<1x16x32xf16>
// CHECK-NEXT: tt.reshape %{{.*}} : tensor<1x16x32xf16> -> tensor<16x32x1xf16>
// CHECK-NEXT: tt.descriptor_load {{.*}} -> tensor<1x16x32xf16>
// CHECK-NEXT: tt.reshape %{{.*}} : tensor<1x16x32xf16> -> tensor<32x16xf16>
// CHECK-NEXT: tt.reshape %{{.*}} : tensor<1x16x32xf16> -> tensor<16x32xf16>
// CHECK-NEXT: tt.return
tt.func @descriptor_load_reshape_kept(%d: !tt.tensordesc<tensor<1x16x32xf16>>, %f: !tt.tensordesc<tensor<2x8x32xf16>>, %i: i32, %y: tensor<1x16x32xf16>) -> (tensor<1x16x32xf16>, tensor<16x32xf16>, tensor<16x32xf16>, tensor<16x32x1xf16>, tensor<32x16xf16>, tensor<16x32xf16>) {
  %l = tt.descriptor_load %d[%i, %i, %i] : !tt.tensordesc<tensor<1x16x32xf16>> -> tensor<1x16x32xf16>
  %a = tt.reshape %l : tensor<1x16x32xf16> -> tensor<16x32xf16>
  %m = tt.descriptor_load %f[%i, %i, %i] : !tt.tensordesc<tensor<2x8x32xf16>> -> tensor<2x8x32xf16>
  %b = tt.reshape %m : tensor<2x8x32xf16> -> tensor<16x32xf16>
  %n = tt.descriptor_load %d[%i, %i, %i] : !tt.tensordesc<tensor<1x16x32xf16>> -> tensor<1x16x32xf16>
  %c = tt.reshape %n : tensor<1x16x32xf16> -> tensor<16x32x1xf16>
  %o = tt.descriptor_load %d[%i, %i, %i] : !tt.tensordesc<tensor<1x16x32xf16>> -> tensor<1x16x32xf16>
  %e = tt.reshape %o : tensor<1x16x32xf16> -> tensor<32x16xf16>
  %g = tt.reshape %y : tensor<1x16x32xf16> -> tensor<16x32xf16>
  tt.return %l, %a, %b, %c, %e, %g : tensor<1x16x32xf16>, tensor<16x32xf16>, tensor<16x32xf16>, tensor<16x32x1xf16>, tensor<32x16xf16>, tensor<16x32xf16>
}

// -----

// descriptor_store / descriptor_reduce of a reshape that only adds leading unit dims store its
// source (rank-reduced); a reshape that does more stays.
// CHECK-LABEL: tt.func @descriptor_store_rank_reduced
// CHECK-SAME: (%[[D:.*]]: !tt.tensordesc<tensor<1x16x32xf32>>, %[[I:.*]]: i32, %[[X:.*]]: tensor<16x32xf32>, %[[Y:.*]]: tensor<512xf32>)
// CHECK-NEXT: tt.descriptor_store %[[D]][%[[I]], %[[I]], %[[I]]], %[[X]] : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<16x32xf32>
// CHECK-NEXT: tt.descriptor_reduce add, %[[D]][%[[I]], %[[I]], %[[I]]], %[[X]] : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<16x32xf32>
// CHECK-NEXT: %[[R:.*]] = tt.reshape %[[Y]] : tensor<512xf32> -> tensor<1x16x32xf32>
// CHECK-NEXT: tt.descriptor_store %[[D]][%[[I]], %[[I]], %[[I]]], %[[R]] : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<1x16x32xf32>
// CHECK-NEXT: tt.return
tt.func @descriptor_store_rank_reduced(%d: !tt.tensordesc<tensor<1x16x32xf32>>, %i: i32, %x: tensor<16x32xf32>, %y: tensor<512xf32>) {
  %r = tt.reshape %x : tensor<16x32xf32> -> tensor<1x16x32xf32>
  tt.descriptor_store %d[%i, %i, %i], %r : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<1x16x32xf32>
  tt.descriptor_reduce add, %d[%i, %i, %i], %r : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<1x16x32xf32>
  %s = tt.reshape %y : tensor<512xf32> -> tensor<1x16x32xf32>
  tt.descriptor_store %d[%i, %i, %i], %s : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<1x16x32xf32>
  tt.return
}
