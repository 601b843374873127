// RUN: triton-opt %s --tritium-ttir | FileCheck %s

// -tritium-ttir unrolls with the trip count clamped at zero: `for i in range(lb, ub, 64)` with
// ub < lb must not run. Unclamped (Triton's -triton-loop-unroll), ub - lb < 0 reached the trip
// count's division and the unrolled loops ran once for ub = lb - 192 and twice for lb - 156.
// CHECK-LABEL: tt.func public @dynamic_bounds
// CHECK: %[[DIFF:.*]] = arith.subi %[[UB:.*]], %[[LB:.*]] : i32
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[UB]], %[[LB]] : i32
// CHECK: arith.select %[[NEG]], %{{.*}}, %[[DIFF]] : i32
// CHECK: scf.for
// CHECK: scf.for
module {
  tt.func public @dynamic_bounds(%p: !tt.ptr<f32>, %lb: i32, %ub: i32) {
    %c64 = arith.constant 64 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %r = scf.for %i = %lb to %ub step %c64 iter_args(%acc = %zero) -> (f32) : i32 {
      %a = arith.addf %acc, %one : f32
      scf.yield %a : f32
    } {tt.loop_unroll_factor = 4 : i32}
    tt.store %p, %r : !tt.ptr<f32>
    tt.return
  }
}
