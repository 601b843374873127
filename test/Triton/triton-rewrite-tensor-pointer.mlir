// RUN: triton-opt %s --split-input-file --verify-diagnostics --triton-rewrite-tensor-pointer | FileCheck %s
// RUN: triton-opt %kernels/syntax/s_block_ptr.source.ttir --inline --triton-rewrite-tensor-pointer --canonicalize | FileCheck %s --check-prefix=KERNEL

// The sampler's block-pointer kernel: no block pointer is left, the loop carries the offsets,
// and the output verifies (triton-opt verifies after every pass).
// KERNEL-NOT: !tt.ptr<tensor
// KERNEL-NOT: tt.make_tensor_ptr
// KERNEL-NOT: tt.advance
// KERNEL: scf.for {{.*}} -> (i64, tensor<64x64xf32>)
// KERNEL: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f32>>
// KERNEL: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f32>>

// A 2-D load: offsets = splat(offset) + range, scaled by the strides and summed; the mask checks
// both dimensions; padding = zero gives other = 0.
// CHECK-LABEL: tt.func @load_2d
// CHECK-SAME: (%[[BASE:.*]]: !tt.ptr<f16>, %[[M:.*]]: i64, %[[N:.*]]: i64, %[[S0:.*]]: i64, %[[S1:.*]]: i64, %[[O0:.*]]: i32, %[[O1:.*]]: i32)
// CHECK-DAG: %[[E0:.*]] = arith.extsi %[[O0]] : i32 to i64
// CHECK-DAG: %[[E1:.*]] = arith.extsi %[[O1]] : i32 to i64
// CHECK: %[[PTRS:.*]] = tt.splat %[[BASE]] : !tt.ptr<f16> -> tensor<32x16x!tt.ptr<f16>>
// CHECK: %[[OFF0:.*]] = tt.splat %[[E0]] : i64 -> tensor<32xi64>
// CHECK: %[[R0:.*]] = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK: %[[R0E:.*]] = arith.extsi %[[R0]] : tensor<32xi32> to tensor<32xi64>
// CHECK: %[[A0:.*]] = arith.addi %[[OFF0]], %[[R0E]] : tensor<32xi64>
// CHECK: %[[X0:.*]] = tt.expand_dims %[[A0]] {axis = 1 : i32} : tensor<32xi64> -> tensor<32x1xi64>
// CHECK: %[[ST0:.*]] = tt.splat %[[S0]] : i64 -> tensor<32x1xi64>
// CHECK: %[[M0:.*]] = arith.muli %[[X0]], %[[ST0]] : tensor<32x1xi64>
// CHECK: %[[B0:.*]] = tt.broadcast %[[M0]] : tensor<32x1xi64> -> tensor<32x16xi64>
// CHECK: %[[OFF1:.*]] = tt.splat %[[E1]] : i64 -> tensor<16xi64>
// CHECK: tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK: %[[X1:.*]] = tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi64> -> tensor<1x16xi64>
// CHECK: %[[ST1:.*]] = tt.splat %[[S1]] : i64 -> tensor<1x16xi64>
// CHECK: %[[M1:.*]] = arith.muli %[[X1]], %[[ST1]] : tensor<1x16xi64>
// CHECK: %[[B1:.*]] = tt.broadcast %[[M1]] : tensor<1x16xi64> -> tensor<32x16xi64>
// CHECK: %[[SUM:.*]] = arith.addi %[[B0]], %[[B1]] : tensor<32x16xi64>
// CHECK: %[[P:.*]] = tt.addptr %[[PTRS]], %[[SUM]] : tensor<32x16x!tt.ptr<f16>>, tensor<32x16xi64>
// CHECK: %[[Z0:.*]] = arith.constant dense<0> : tensor<32x1xi64>
// CHECK: %[[GE0:.*]] = arith.cmpi sge, %[[X0]], %[[Z0]] : tensor<32x1xi64>
// CHECK: %[[SH0:.*]] = tt.splat %[[M]] : i64 -> tensor<32x1xi64>
// CHECK: %[[LT0:.*]] = arith.cmpi slt, %[[X0]], %[[SH0]] : tensor<32x1xi64>
// CHECK: %[[IN0:.*]] = arith.andi %[[GE0]], %[[LT0]] : tensor<32x1xi1>
// CHECK: %[[MB0:.*]] = tt.broadcast %[[IN0]] : tensor<32x1xi1> -> tensor<32x16xi1>
// CHECK: %[[SH1:.*]] = tt.splat %[[N]] : i64 -> tensor<1x16xi64>
// CHECK: %[[MB1:.*]] = tt.broadcast %{{.*}} : tensor<1x16xi1> -> tensor<32x16xi1>
// CHECK: %[[MASK:.*]] = arith.andi %[[MB0]], %[[MB1]] : tensor<32x16xi1>
// CHECK: %[[OTHER:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf16>
// CHECK: %[[V:.*]] = tt.load %[[P]], %[[MASK]], %[[OTHER]] cacheModifier = cg : tensor<32x16x!tt.ptr<f16>>
// CHECK: tt.return %[[V]]
tt.func @load_2d(%base: !tt.ptr<f16>, %m: i64, %n: i64, %s0: i64, %s1: i64, %o0: i32, %o1: i32) -> tensor<32x16xf16> {
  %p = tt.make_tensor_ptr %base, [%m, %n], [%s0, %s1], [%o0, %o1] {order = array<i32: 1, 0>} : <tensor<32x16xf16>>
  %v = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32, cache = 3 : i32} : !tt.ptr<tensor<32x16xf16>>
  tt.return %v : tensor<32x16xf16>
}

// -----

// 1-D: no expand_dims or broadcast. Without boundaryCheck there is no mask and no other; with it
// but without padding, other is zero; padding = nan gives NaN. Advance adds to the offsets.
// CHECK-LABEL: tt.func @load_1d
// CHECK-SAME: (%[[BASE:[^:]*]]: !tt.ptr<f32>, %[[N:[^:]*]]: i64, %[[D:[^:]*]]: i32)
// CHECK-NOT: tt.expand_dims
// CHECK-NOT: tt.broadcast
// CHECK: %[[V0:.*]] = tt.load %{{.*}} : tensor<64x!tt.ptr<f32>>
// CHECK: %[[DE:.*]] = arith.extsi %[[D]] : i32 to i64
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[DE]] : i64
// CHECK: tt.splat %[[OFF]] : i64 -> tensor<64xi64>
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
// CHECK: %[[V1:.*]] = tt.load %{{.*}}, %{{.*}}, %[[Z]] : tensor<64x!tt.ptr<f32>>
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : tensor<64xf32>
// CHECK: %[[V2:.*]] = tt.load %{{.*}}, %{{.*}}, %[[NAN]] : tensor<64x!tt.ptr<f32>>
// CHECK: tt.return %[[V0]], %[[V1]], %[[V2]]
tt.func @load_1d(%base: !tt.ptr<f32>, %n: i64, %d: i32) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %p = tt.make_tensor_ptr %base, [%n], [%c1], [%c0] {order = array<i32: 0>} : <tensor<64xf32>>
  %v0 = tt.load %p : !tt.ptr<tensor<64xf32>>
  %q = tt.advance %p, [%d] : <tensor<64xf32>>
  %v1 = tt.load %q {boundaryCheck = array<i32: 0>} : !tt.ptr<tensor<64xf32>>
  %v2 = tt.load %q {boundaryCheck = array<i32: 0>, padding = 2 : i32} : !tt.ptr<tensor<64xf32>>
  tt.return %v0, %v1, %v2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// A store checks only the dimensions of its boundaryCheck.
// CHECK-LABEL: tt.func @store
// CHECK: tt.broadcast %{{.*}} : tensor<1x16xi1> -> tensor<8x16xi1>
// CHECK-NOT: arith.andi %{{.*}} : tensor<8x16xi1>
// CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x16x!tt.ptr<f32>>
// CHECK-NEXT: tt.return
tt.func @store(%base: !tt.ptr<f32>, %m: i64, %n: i64, %s0: i64, %o: i32, %v: tensor<8x16xf32>) {
  %c1 = arith.constant 1 : i64
  %p = tt.make_tensor_ptr %base, [%m, %n], [%s0, %c1], [%o, %o] {order = array<i32: 1, 0>} : <tensor<8x16xf32>>
  tt.store %p, %v {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<8x16xf32>>
  tt.return
}

// -----

// A loop carrying a block pointer carries its offsets instead (one i64 per dimension).
// CHECK-LABEL: tt.func @loop
// CHECK: %[[R:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (i64, i64, tensor<16xf32>)
// CHECK: tt.splat %[[A]] : i64 -> tensor<16xi64>
// CHECK: tt.load
// CHECK: %[[NA:.*]] = arith.addi %[[A]], %{{.*}} : i64
// CHECK: %[[NB:.*]] = arith.addi %[[B]], %{{.*}} : i64
// CHECK: scf.yield %[[NA]], %[[NB]], %{{.*}} : i64, i64, tensor<16xf32>
// CHECK: tt.splat %[[R]]#0 : i64 -> tensor<16xi64>
// CHECK: tt.store
tt.func @loop(%base: !tt.ptr<f32>, %m: i64, %n: i64, %ub: i32, %out: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %s = arith.constant 1 : i64
  %acc0 = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %p = tt.make_tensor_ptr %base, [%m, %n], [%n, %s], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<16x1xf32>>
  %r:2 = scf.for %i = %c0 to %ub step %c1 iter_args(%q = %p, %acc = %acc0) -> (!tt.ptr<tensor<16x1xf32>>, tensor<16xf32>) : i32 {
    %v = tt.load %q : !tt.ptr<tensor<16x1xf32>>
    %w = tt.reshape %v : tensor<16x1xf32> -> tensor<16xf32>
    %a = arith.addf %acc, %w : tensor<16xf32>
    %q2 = tt.advance %q, [%c16, %c1] : <tensor<16x1xf32>>
    scf.yield %q2, %a : !tt.ptr<tensor<16x1xf32>>, tensor<16xf32>
  }
  %w = tt.reshape %r#1 : tensor<16xf32> -> tensor<16x1xf32>
  tt.store %r#0, %w : !tt.ptr<tensor<16x1xf32>>
  tt.return
}

// -----

// Both branches of an scf.if yield advances of one block pointer: the if yields offsets.
// CHECK-LABEL: tt.func @branch
// CHECK: %[[O:.*]] = scf.if %{{.*}} -> (i64) {
// CHECK: scf.yield %{{.*}} : i64
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : i64
// CHECK: tt.splat %[[O]] : i64 -> tensor<32xi64>
tt.func @branch(%base: !tt.ptr<f32>, %n: i64, %c: i1, %d: i32) -> tensor<32xf32> {
  %c0 = arith.constant 0 : i32
  %s = arith.constant 1 : i64
  %p = tt.make_tensor_ptr %base, [%n], [%s], [%c0] {order = array<i32: 0>} : <tensor<32xf32>>
  %q = scf.if %c -> (!tt.ptr<tensor<32xf32>>) {
    %a = tt.advance %p, [%d] : <tensor<32xf32>>
    scf.yield %a : !tt.ptr<tensor<32xf32>>
  } else {
    scf.yield %p : !tt.ptr<tensor<32xf32>>
  }
  %v = tt.load %q : !tt.ptr<tensor<32xf32>>
  tt.return %v : tensor<32xf32>
}

// -----

// Plain pointers are left alone.
// CHECK-LABEL: tt.func @plain
// CHECK-NEXT: %[[V:.*]] = tt.load %{{.*}} : tensor<8x!tt.ptr<f32>>
// CHECK-NEXT: tt.return %[[V]]
tt.func @plain(%p: tensor<8x!tt.ptr<f32>>) -> tensor<8xf32> {
  %v = tt.load %p : tensor<8x!tt.ptr<f32>>
  tt.return %v : tensor<8xf32>
}

// -----

// expected-error @+1 {{block pointer function arguments are not supported}}
tt.func @argument(%p: !tt.ptr<tensor<8xf32>>) -> tensor<8xf32> {
  %v = tt.load %p : !tt.ptr<tensor<8xf32>>
  tt.return %v : tensor<8xf32>
}

// -----

// A rank-0 block pointer is its base (there are no offsets to add).
// CHECK-LABEL: tt.func @rank_zero
// CHECK: %[[P:.*]] = tt.splat %{{.*}} : !tt.ptr<f32> -> tensor<!tt.ptr<f32>>
// CHECK-NEXT: tt.load %[[P]] : tensor<!tt.ptr<f32>>
tt.func @rank_zero(%p: !tt.ptr<f32>) -> tensor<f32> {
  %b = tt.make_tensor_ptr %p, [], [], [] {order = array<i32>} : <tensor<f32>>
  %v = tt.load %b : !tt.ptr<tensor<f32>>
  tt.return %v : tensor<f32>
}
