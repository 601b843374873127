// RUN: triton-opt %s --split-input-file --triton-reorder-broadcast | FileCheck %s

// elementwise(splat x, splat y) is computed on the scalars, then splat; constant splats count.
// CHECK-LABEL: tt.func @splat_elementwise
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: tensor<8xf32>)
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[ADD:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-DAG: %[[MUL:.*]] = arith.mulf %[[ADD]], %[[TWO]] : f32
// CHECK-DAG: %[[EXP:.*]] = math.exp %[[MUL]] : f32
// CHECK: %[[S:.*]] = tt.splat %[[EXP]] : f32 -> tensor<8xf32>
// CHECK: %[[KEEP:.*]] = arith.addf %[[S]], %[[Z]] : tensor<8xf32>
// CHECK: tt.return %[[KEEP]]
tt.func @splat_elementwise(%x: f32, %y: f32, %z: tensor<8xf32>) -> tensor<8xf32> {
  %two = arith.constant dense<2.000000e+00> : tensor<8xf32>
  %sx = tt.splat %x : f32 -> tensor<8xf32>
  %sy = tt.splat %y : f32 -> tensor<8xf32>
  %a = arith.addf %sx, %sy : tensor<8xf32>
  %m = arith.mulf %a, %two : tensor<8xf32>
  %e = math.exp %m : tensor<8xf32>
  %k = arith.addf %e, %z : tensor<8xf32>
  tt.return %k : tensor<8xf32>
}

// A comparison changes the element type; a select keeps its scalar condition.
// CHECK-LABEL: tt.func @splat_cmp_select
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[C:.*]]: i1)
// CHECK-DAG: %[[LT:.*]] = arith.cmpi slt, %[[X]], %[[Y]] : i32
// CHECK-DAG: %[[SEL:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : i32
// CHECK-DAG: tt.splat %[[LT]] : i1 -> tensor<8xi1>
// CHECK-DAG: tt.splat %[[SEL]] : i32 -> tensor<8xi32>
tt.func @splat_cmp_select(%x: i32, %y: i32, %c: i1) -> (tensor<8xi1>, tensor<8xi32>) {
  %sx = tt.splat %x : i32 -> tensor<8xi32>
  %sy = tt.splat %y : i32 -> tensor<8xi32>
  %lt = arith.cmpi slt, %sx, %sy : tensor<8xi32>
  %sel = arith.select %c, %sx, %sy : tensor<8xi32>
  tt.return %lt, %sel : tensor<8xi1>, tensor<8xi32>
}

// -----

// elementwise(broadcast a, broadcast b, splat c) runs on the small shape, then is broadcast.
// CHECK-LABEL: tt.func @broadcast_elementwise
// CHECK-SAME: (%[[A:.*]]: tensor<1x8xf32>, %[[B:.*]]: tensor<1x8xf32>, %[[C:.*]]: f32)
// CHECK-DAG: %[[ADD:.*]] = arith.addf %[[A]], %[[B]] : tensor<1x8xf32>
// CHECK-DAG: %[[SC:.*]] = tt.splat %[[C]] : f32 -> tensor<1x8xf32>
// CHECK: %[[MUL:.*]] = arith.mulf %[[ADD]], %[[SC]] : tensor<1x8xf32>
// CHECK: %[[R:.*]] = tt.broadcast %[[MUL]] : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: tt.return %[[R]]
tt.func @broadcast_elementwise(%a: tensor<1x8xf32>, %b: tensor<1x8xf32>, %c: f32) -> tensor<4x8xf32> {
  %ba = tt.broadcast %a : tensor<1x8xf32> -> tensor<4x8xf32>
  %bb = tt.broadcast %b : tensor<1x8xf32> -> tensor<4x8xf32>
  %sc = tt.splat %c : f32 -> tensor<4x8xf32>
  %s = arith.addf %ba, %bb : tensor<4x8xf32>
  %m = arith.mulf %s, %sc : tensor<4x8xf32>
  tt.return %m : tensor<4x8xf32>
}

// Left alone: broadcasts from different shapes, and an operand that is neither a broadcast nor a
// splat.
// CHECK-LABEL: tt.func @broadcast_kept
// CHECK: %[[BA:.*]] = tt.broadcast %{{.*}} : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK: %[[BB:.*]] = tt.broadcast %{{.*}} : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: arith.addf %[[BA]], %[[BB]] : tensor<4x8xf32>
// CHECK: arith.mulf %[[BA]], %{{.*}} : tensor<4x8xf32>
tt.func @broadcast_kept(%a: tensor<1x8xf32>, %b: tensor<4x1xf32>, %d: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %ba = tt.broadcast %a : tensor<1x8xf32> -> tensor<4x8xf32>
  %bb = tt.broadcast %b : tensor<4x1xf32> -> tensor<4x8xf32>
  %s = arith.addf %ba, %bb : tensor<4x8xf32>
  %m = arith.mulf %ba, %d : tensor<4x8xf32>
  tt.return %s, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// expand_dims(splat x) and broadcast(splat x) are splats; expand_dims(broadcast x) becomes
// broadcast(expand_dims x).
// CHECK-LABEL: tt.func @views
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: tensor<1x8xi32>)
// CHECK-DAG: %[[S:.*]] = tt.splat %[[X]] : i32 -> tensor<1x8xi32>
// CHECK-DAG: %[[T:.*]] = tt.splat %[[X]] : i32 -> tensor<4x8xi32>
// CHECK-DAG: %[[E:.*]] = tt.expand_dims %[[Y]] {axis = 0 : i32} : tensor<1x8xi32> -> tensor<1x1x8xi32>
// CHECK-DAG: %[[B:.*]] = tt.broadcast %[[E]] : tensor<1x1x8xi32> -> tensor<1x4x8xi32>
// CHECK: tt.return %[[S]], %[[T]], %[[B]]
tt.func @views(%x: i32, %y: tensor<1x8xi32>) -> (tensor<1x8xi32>, tensor<4x8xi32>, tensor<1x4x8xi32>) {
  %s = tt.splat %x : i32 -> tensor<8xi32>
  %e = tt.expand_dims %s {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %b = tt.broadcast %e : tensor<1x8xi32> -> tensor<4x8xi32>
  %yb = tt.broadcast %y : tensor<1x8xi32> -> tensor<4x8xi32>
  %ye = tt.expand_dims %yb {axis = 0 : i32} : tensor<4x8xi32> -> tensor<1x4x8xi32>
  tt.return %e, %b, %ye : tensor<1x8xi32>, tensor<4x8xi32>, tensor<1x4x8xi32>
}

// -----

// Ops with memory effects are not moved.
// CHECK-LABEL: tt.func @load_kept
// CHECK: %[[S:.*]] = tt.splat %{{.*}} : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
// CHECK: tt.load %[[S]] : tensor<8x!tt.ptr<f32>>
tt.func @load_kept(%p: !tt.ptr<f32>) -> tensor<8xf32> {
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %v = tt.load %s : tensor<8x!tt.ptr<f32>>
  tt.return %v : tensor<8xf32>
}
