// RUN: triton-opt %s --split-input-file --triton-licm | FileCheck %s

// Pure invariant ops move before the loop (transitively); a load with invariant operands in a
// loop without stores moves too, its mask and-ed with splat(lb < ub).
// CHECK-LABEL: tt.func @hoist
// CHECK-SAME: (%[[P:[^:]*]]: tensor<8x!tt.ptr<f32>>, %[[M:[^:]*]]: tensor<8xi1>, %[[X:[^:]*]]: f32, %[[LB:[^:]*]]: i32, %[[UB:[^:]*]]: i32, %[[ST:[^:]*]]: i32)
// CHECK: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK: %[[S:.*]] = tt.splat %[[E]] : f32 -> tensor<8xf32>
// CHECK: %[[TRIPS:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] : i32
// CHECK: %[[G:.*]] = tt.splat %[[TRIPS]] : i1 -> tensor<8xi1>
// CHECK: %[[GM:.*]] = arith.andi %[[G]], %[[M]] : tensor<8xi1>
// CHECK: %[[V:.*]] = tt.load %[[P]], %[[GM]] : tensor<8x!tt.ptr<f32>>
// CHECK: scf.for
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %[[V]]
// CHECK-NEXT: %[[SUM2:.*]] = arith.addf %[[SUM]], %[[S]]
// CHECK-NEXT: scf.yield %[[SUM2]]
tt.func @hoist(%p: tensor<8x!tt.ptr<f32>>, %m: tensor<8xi1>, %x: f32, %lb: i32, %ub: i32, %st: i32) -> tensor<8xf32> {
  %init = arith.constant dense<0.000000e+00> : tensor<8xf32>
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %init) -> (tensor<8xf32>) : i32 {
    %e = math.exp %x : f32
    %s = tt.splat %e : f32 -> tensor<8xf32>
    %v = tt.load %p, %m : tensor<8x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<8xf32>
    %b = arith.addf %a, %s : tensor<8xf32>
    scf.yield %b : tensor<8xf32>
  }
  tt.return %r : tensor<8xf32>
}

// A load without a mask gets splat(lb < ub) as its mask; a scalar load gets lb < ub.
// CHECK-LABEL: tt.func @hoist_unmasked
// CHECK: %[[TRIPS:.*]] = arith.cmpi slt
// CHECK: %[[G:.*]] = tt.splat %[[TRIPS]] : i1 -> tensor<8xi1>
// CHECK: tt.load %{{.*}}, %[[G]] : tensor<8x!tt.ptr<f32>>
// CHECK: tt.load %{{.*}}, %[[TRIPS]] : !tt.ptr<f32>
// CHECK: scf.for
tt.func @hoist_unmasked(%p: tensor<8x!tt.ptr<f32>>, %q: !tt.ptr<f32>, %lb: i32, %ub: i32, %st: i32) -> (tensor<8xf32>, f32) {
  %init = arith.constant dense<0.000000e+00> : tensor<8xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%acc = %init, %acc2 = %zero) -> (tensor<8xf32>, f32) : i32 {
    %v = tt.load %p : tensor<8x!tt.ptr<f32>>
    %w = tt.load %q : !tt.ptr<f32>
    %a = arith.addf %acc, %v : tensor<8xf32>
    %b = arith.addf %acc2, %w : f32
    scf.yield %a, %b : tensor<8xf32>, f32
  }
  tt.return %r#0, %r#1 : tensor<8xf32>, f32
}

// -----

// Left in the loop: a load in a loop that stores, a load whose pointer varies, an op using the
// induction variable, a division by a value that may be zero, and a volatile load.
// CHECK-LABEL: tt.func @kept
// CHECK: scf.for
// CHECK: tt.load
// CHECK: tt.store
// CHECK: scf.for
// CHECK: tt.addptr
// CHECK: tt.load
// CHECK: arith.divsi
// CHECK: tt.load {{.*}} {isVolatile = true}
// CHECK: scf.yield
tt.func @kept(%p: tensor<8x!tt.ptr<f32>>, %q: tensor<8x!tt.ptr<f32>>, %x: i32, %y: i32, %lb: i32, %ub: i32, %st: i32) -> (tensor<8xf32>, i32) {
  %init = arith.constant dense<0.000000e+00> : tensor<8xf32>
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %init) -> (tensor<8xf32>) : i32 {
    %v = tt.load %p : tensor<8x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<8xf32>
    tt.store %q, %a : tensor<8x!tt.ptr<f32>>
    scf.yield %a : tensor<8xf32>
  }
  %c0 = arith.constant 0 : i32
  %s:2 = scf.for %i = %lb to %ub step %st iter_args(%acc = %r, %d = %c0) -> (tensor<8xf32>, i32) : i32 {
    %o = tt.splat %i : i32 -> tensor<8xi32>
    %pi = tt.addptr %p, %o : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %v = tt.load %pi : tensor<8x!tt.ptr<f32>>
    %dv = arith.divsi %x, %y : i32
    %w = tt.load %q {isVolatile = true} : tensor<8x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<8xf32>
    %b = arith.addf %a, %w : tensor<8xf32>
    scf.yield %b, %dv : tensor<8xf32>, i32
  }
  tt.return %s#0, %s#1 : tensor<8xf32>, i32
}

// -----

// Nested loops: an op invariant in both moves out of both.
// CHECK-LABEL: tt.func @nested
// CHECK: %[[E:.*]] = math.exp
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
tt.func @nested(%x: f32, %lb: i32, %ub: i32, %st: i32) -> f32 {
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (f32) : i32 {
    %s = scf.for %j = %lb to %ub step %st iter_args(%acc2 = %acc) -> (f32) : i32 {
      %e = math.exp %x : f32
      %a = arith.addf %acc2, %e : f32
      scf.yield %a : f32
    }
    scf.yield %s : f32
  }
  tt.return %r : f32
}
