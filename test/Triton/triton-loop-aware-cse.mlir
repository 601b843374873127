// RUN: triton-opt %s --split-input-file --triton-loop-aware-cse | FileCheck %s

// Two iter_args with one initial value and yielded expressions equal under the assumption that
// they are equal merge into one; CSE then merges their computations.
// CHECK-LABEL: tt.func @merge
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[C:[^:]*]]: f32,
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[X]]) -> (f32)
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[C]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[M]], %[[C]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: %[[SUM:.*]] = arith.addf %[[R]], %[[R]] : f32
// CHECK: tt.return %[[SUM]]
tt.func @merge(%x: f32, %c: f32, %lb: i32, %ub: i32, %st: i32) -> f32 {
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%a = %x, %b = %x) -> (f32, f32) : i32 {
    %ma = arith.mulf %a, %c : f32
    %sa = arith.addf %ma, %c : f32
    %mb = arith.mulf %b, %c : f32
    %sb = arith.addf %mb, %c : f32
    scf.yield %sa, %sb : f32, f32
  }
  %sum = arith.addf %r#0, %r#1 : f32
  tt.return %sum : f32
}

// Swapped iter_args (a' = f(b), b' = f(a)) are equal too.
// CHECK-LABEL: tt.func @swapped
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
tt.func @swapped(%x: f32, %c: f32, %lb: i32, %ub: i32, %st: i32) -> (f32, f32) {
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%a = %x, %b = %x) -> (f32, f32) : i32 {
    %na = arith.addf %b, %c : f32
    %nb = arith.addf %a, %c : f32
    scf.yield %na, %nb : f32, f32
  }
  tt.return %r#0, %r#1 : f32, f32
}

// -----

// Left alone: different initial values, different yielded expressions.
// CHECK-LABEL: tt.func @kept
// CHECK: scf.for %{{.*}} -> (f32, f32)
// CHECK: scf.for %{{.*}} -> (f32, f32)
tt.func @kept(%x: f32, %y: f32, %c: f32, %lb: i32, %ub: i32, %st: i32) -> (f32, f32, f32, f32) {
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%a = %x, %b = %y) -> (f32, f32) : i32 {
    %na = arith.addf %a, %c : f32
    %nb = arith.addf %b, %c : f32
    scf.yield %na, %nb : f32, f32
  }
  %s:2 = scf.for %i = %lb to %ub step %st iter_args(%a = %x, %b = %x) -> (f32, f32) : i32 {
    %na = arith.addf %a, %c : f32
    %nb = arith.mulf %b, %c : f32
    scf.yield %na, %nb : f32, f32
  }
  tt.return %r#0, %r#1, %s#0, %s#1 : f32, f32, f32, f32
}

// -----

// Plain CSE: identical pure ops merge (also into nested regions), loads and ops with different
// attributes do not.
// CHECK-LABEL: tt.func @cse
// CHECK: %[[R:.*]] = tt.make_range
// CHECK-NOT: tt.make_range
// CHECK: tt.load
// CHECK: tt.load
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sgt
// CHECK: %[[S:.*]] = tt.splat
// CHECK: scf.if
// CHECK-NEXT: arith.addi %[[R]], %[[S]]
tt.func @cse(%p: tensor<8x!tt.ptr<f32>>, %c: i1, %x: i32) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, i1, i1, tensor<8xi32>) {
  %r0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %r1 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %v0 = tt.load %p : tensor<8x!tt.ptr<f32>>
  %v1 = tt.load %p : tensor<8x!tt.ptr<f32>>
  %lt = arith.cmpi slt, %x, %x : i32
  %gt = arith.cmpi sgt, %x, %x : i32
  %s = tt.splat %x : i32 -> tensor<8xi32>
  %t = scf.if %c -> (tensor<8xi32>) {
    %r2 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %s2 = tt.splat %x : i32 -> tensor<8xi32>
    %a = arith.addi %r2, %s2 : tensor<8xi32>
    scf.yield %a : tensor<8xi32>
  } else {
    scf.yield %r0 : tensor<8xi32>
  }
  tt.return %r0, %r1, %v0, %v1, %lt, %gt, %t : tensor<8xi32>, tensor<8xi32>, tensor<8xf32>, tensor<8xf32>, i1, i1, tensor<8xi32>
}
