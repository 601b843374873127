// RUN: triton-opt %s --split-input-file --triton-loop-unroll | FileCheck %s
// RUN: triton-opt %s --split-input-file --triton-loop-unroll=clamp-trip-count=true | FileCheck %s --check-prefix=CLAMP

// Dynamic bounds: the trip count is computed before the loop, the main loop steps by 2 * step
// and runs two copies of the body (the second with iv + step), the remainder loop runs the rest
// and is not pipelined.
// CHECK-LABEL: tt.func @dynamic
// CHECK-SAME: (%[[LB:[^:]*]]: i32, %[[UB:[^:]*]]: i32, %[[STEP:[^:]*]]: i32, %[[INIT:[^:]*]]: f32)
// CHECK: %[[DIFF:.*]] = arith.subi %[[UB]], %[[LB]] : i32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[SM1:.*]] = arith.subi %[[STEP]], %[[ONE]] : i32
// CHECK: %[[NUM:.*]] = arith.addi %[[DIFF]], %[[SM1]] : i32
// CHECK: %[[TRIPS:.*]] = arith.divui %[[NUM]], %[[STEP]] : i32
// CHECK: %[[FACTOR:.*]] = arith.constant 2 : i32
// CHECK: %[[REM:.*]] = arith.remsi %[[TRIPS]], %[[FACTOR]] : i32
// CHECK: %[[EVEN:.*]] = arith.subi %[[TRIPS]], %[[REM]] : i32
// CHECK: %[[SPAN:.*]] = arith.muli %[[EVEN]], %[[STEP]] : i32
// CHECK: %[[MAINUB:.*]] = arith.addi %[[LB]], %[[SPAN]] : i32
// CHECK: %[[MAINSTEP:.*]] = arith.muli %[[STEP]], %[[FACTOR]] : i32
// CHECK: %[[MAIN:.*]] = scf.for %[[IV:.*]] = %[[LB]] to %[[MAINUB]] step %[[MAINSTEP]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)  : i32 {
// CHECK-NEXT: %[[X0:.*]] = arith.sitofp %[[IV]] : i32 to f32
// CHECK-NEXT: %[[A0:.*]] = arith.addf %[[ACC]], %[[X0]] : f32
// CHECK-NEXT: %[[I1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[S1:.*]] = arith.muli %[[STEP]], %[[I1]] : i32
// CHECK-NEXT: %[[IV1:.*]] = arith.addi %[[IV]], %[[S1]] : i32
// CHECK-NEXT: %[[X1:.*]] = arith.sitofp %[[IV1]] : i32 to f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[X1]] : f32
// CHECK-NEXT: scf.yield %[[A1]] : f32
// CHECK-NEXT: } {tt.other = 1 : i32}
// CHECK: %[[REST:.*]] = scf.for %[[IV2:.*]] = %[[MAINUB]] to %[[UB]] step %[[STEP]] iter_args(%[[ACC2:.*]] = %[[MAIN]]) -> (f32)  : i32 {
// CHECK-NEXT: arith.sitofp %[[IV2]]
// CHECK-NEXT: arith.addf %[[ACC2]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tt.num_stages = 1 : i32, tt.other = 1 : i32}
// CHECK: tt.return %[[REST]]
// CLAMP-LABEL: tt.func @dynamic
// CLAMP: %[[DIFF:.*]] = arith.subi
// CLAMP: %[[EMPTY:.*]] = arith.cmpi slt
// CLAMP: %[[ZERO:.*]] = arith.constant 0 : i32
// CLAMP: %[[CLAMPED:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[DIFF]] : i32
// CLAMP: arith.addi %[[CLAMPED]]
tt.func @dynamic(%lb: i32, %ub: i32, %step: i32, %init: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) : i32 {
    %x = arith.sitofp %i : i32 to f32
    %a = arith.addf %acc, %x : f32
    scf.yield %a : f32
  } {tt.loop_unroll_factor = 2 : i32, tt.other = 1 : i32}
  tt.return %r : f32
}

// -----

// Constant bounds, 10 iterations by 4: a main loop of 2 iterations (0 to 8 step 4) and a
// remainder loop of 2 iterations; the unused induction variable needs no per-copy value.
// CHECK-LABEL: tt.func @constant
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %[[C0]] to %[[C8]] step %[[C4]] iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[M0:.*]] = arith.mulf %[[A]], %[[A]]
// CHECK-NEXT: %[[M1:.*]] = arith.mulf %[[M0]], %[[M0]]
// CHECK-NEXT: %[[M2:.*]] = arith.mulf %[[M1]], %[[M1]]
// CHECK-NEXT: %[[M3:.*]] = arith.mulf %[[M2]], %[[M2]]
// CHECK-NEXT: scf.yield %[[M3]]
// CHECK: scf.for %{{.*}} = %[[C8]] to %[[C10]] step %[[C1]] iter_args(%{{.*}} = %[[MAIN]])
// CHECK: tt.num_stages = 1
tt.func @constant(%init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %init) -> (f32) {
    %m = arith.mulf %acc, %acc : f32
    scf.yield %m : f32
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return %r : f32
}

// -----

// Constant bounds, 8 iterations by 4: no remainder loop, and ops in nested regions see the
// remapped values. 5 iterations by 4: both the main loop (one iteration) and the remainder (one
// iteration) are inlined.
// CHECK-LABEL: tt.func @exact
// CHECK: scf.for
// CHECK: %[[I0:.*]] = scf.if
// CHECK: %[[I1:.*]] = scf.if
// CHECK-NEXT: arith.mulf %[[I0]], %[[I0]]
// CHECK: %[[I2:.*]] = scf.if
// CHECK-NEXT: arith.mulf %[[I1]], %[[I1]]
// CHECK: %[[I3:.*]] = scf.if
// CHECK-NEXT: arith.mulf %[[I2]], %[[I2]]
// CHECK: scf.yield %[[I3]]
// CHECK-NOT: scf.for
// CHECK: tt.return
tt.func @exact(%init: f32, %c: i1) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %m = scf.if %c -> (f32) {
      %t = arith.mulf %acc, %acc : f32
      scf.yield %t : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %m : f32
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return %r : f32
}

// CHECK-LABEL: tt.func @single_remainder
// CHECK-NOT: scf.for
// CHECK: %[[A0:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[A0]] : f32
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[A1]] : f32
// CHECK-NEXT: %[[A3:.*]] = arith.addf %[[A2]], %[[A2]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.addf %[[A3]], %[[A3]] : f32
// CHECK-NEXT: tt.return %[[A4]]
tt.func @single_remainder(%init: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %m = arith.addf %acc, %acc : f32
    scf.yield %m : f32
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return %r : f32
}

// -----

// Loops without the attribute, or with factor 1 (whose attribute is dropped), are left alone.
// CHECK-LABEL: tt.func @kept
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
// CHECK-NOT: tt.loop_unroll_factor
tt.func @kept(%lb: i32, %ub: i32, %step: i32, %init: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) : i32 {
    %a = arith.addf %acc, %acc : f32
    scf.yield %a : f32
  }
  %s = scf.for %i = %lb to %ub step %step iter_args(%acc = %r) -> (f32) : i32 {
    %a = arith.addf %acc, %acc : f32
    scf.yield %a : f32
  } {tt.loop_unroll_factor = 1 : i32}
  tt.return %s : f32
}

// -----

// A factor above a constant trip count unrolls the loop completely (3 copies, not 2^31 - 1).
// CHECK-LABEL: tt.func @factor_above_trip_count
// CHECK-NOT: scf.for
// CHECK: %[[A0:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %[[A0]] : f32
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[A1]] : f32
// CHECK-NEXT: tt.return %[[A2]]
tt.func @factor_above_trip_count(%init: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %m = arith.addf %acc, %acc : f32
    scf.yield %m : f32
  } {tt.loop_unroll_factor = 2147483647 : i32}
  tt.return %r : f32
}

// -----

// A constant step whose unrolled step would not fit the induction variable (2^31 - 1 times 4
// wraps to -4 in i32) keeps the loop as it is, without the attribute (found by tritium-fuzz:
// the unrolled loop stepped by -4).
// CHECK-LABEL: tt.func @step_overflow
// CHECK: %[[STEP:.*]] = arith.constant 2147483647 : i32
// CHECK-NOT: arith.muli
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]] iter_args
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: scf.for
// CHECK: tt.return
// CLAMP-LABEL: tt.func @step_overflow
// CLAMP-NOT: arith.muli
// CLAMP: scf.for
// CLAMP-NOT: scf.for
// CLAMP: tt.return
tt.func @step_overflow(%p: !tt.ptr<f32>, %lb: i32, %ub: i32) {
  %step = arith.constant 2147483647 : i32
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero) -> (f32) : i32 {
    %a = arith.addf %acc, %one : f32
    scf.yield %a : f32
  } {tt.loop_unroll_factor = 4 : i32}
  tt.store %p, %r : !tt.ptr<f32>
  tt.return
}
