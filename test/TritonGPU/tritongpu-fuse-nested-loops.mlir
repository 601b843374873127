// RUN: triton-opt %s --split-input-file --tritongpu-fuse-nested-loops | FileCheck %s
// The fused kernel computes what the nest computes (reference interpreter, the inner loop
// running 4 times and not at all per outer iteration):
// RUN: split-file %s %t && tritium run %t/nest.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=4 | FileCheck %s --check-prefix=M4
// RUN: triton-opt %t/nest.mlir --tritongpu-fuse-nested-loops -o %t/fused.mlir && tritium run %t/fused.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=4 | FileCheck %s --check-prefix=M4
// RUN: tritium run %t/nest.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=0 | FileCheck %s --check-prefix=M0
// RUN: tritium run %t/fused.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=0 | FileCheck %s --check-prefix=M0
// The GPU pattern's persistent kernel compiles after fusion (its carried pointer's placeholder is a
// ub.poison, lowered to llvm.mlir.poison):
// RUN: triton-opt %S/../Inputs/gpu/fused_row_sums.ttir --tritongpu-fuse-nested-loops --mlir-print-debuginfo -o %t.fused.ttir
// RUN: tritium compile %t.fused.ttir --out-name fused -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx/fused.ptx
// PTX: .entry fused_row_sums
// M4: out: i32 x 16 = [3464, 257, 0, 663, 0, 1069, 0, 1475, ...]
// M0: out: i32 x 16 = [48, 3, 0, 9, 0, 15, 0, 21, ...]

// A tt.flatten nest becomes one loop over len(i) * max(1, len(j)) iterations; the prologue
// runs when the counter T wraps to 0, the inner body while T < len(j), the epilogue at the
// last T; the outer iter arg, the inner one, the prologue values the body and epilogue read
// (%base's multiple, the store's pointer) and both induction variables are carried.
// CHECK-LABEL: tt.func public @nest
// CHECK: %[[LEN_I:.*]] = arith.ceildivsi
// CHECK: %[[LEN_J:.*]] = arith.ceildivsi
// CHECK: %[[INNER:.*]] = arith.maxsi %{{.*}}, %[[LEN_J]] : i32
// CHECK: %[[TOTAL:.*]] = arith.muli %[[LEN_I]], %[[INNER]] : i32
// CHECK: %[[I0:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: %[[R:.*]]:7 = scf.for %{{.*}} = %{{.*}} to %[[TOTAL]] step %{{.*}} iter_args(%[[T:[^ ]*]] = %c-1_i32, %[[I:[^ ]*]] = %[[I0]], %[[ACC:[^ ]*]] = %{{[^ ]*}}, %[[J:[^ ]*]] = %{{[^ ]*}}, %[[A:[^ ]*]] = %{{[^ ]*}}, %[[B:[^ ]*]] = %{{[^ ]*}}, %[[P:[^ ]*]] = %{{[^ ]*}}) -> (i32, i32, i32, i32, i32, i32, !tt.ptr<i32>)
// CHECK: %[[TN:.*]] = arith.select
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TN]], %{{.*}} : i32
// CHECK: %[[PRO:.*]]:5 = scf.if %[[FIRST]] -> (i32, i32, !tt.ptr<i32>, i32, i32) {
// CHECK:   %[[IN:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:   %[[BASE:.*]] = arith.muli %[[IN]], %{{.*}} : i32
// CHECK:   %[[PTR:.*]] = tt.addptr %{{.*}}, %[[IN]]
// CHECK:   scf.yield %{{.*}}, %[[BASE]], %[[PTR]], %[[BASE]], %[[IN]] : i32, i32, !tt.ptr<i32>, i32, i32
// CHECK: } else {
// CHECK:   scf.yield %[[J]], %[[B]], %[[P]], %[[A]], %[[I]] : i32, i32, !tt.ptr<i32>, i32, i32
// CHECK: }
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[TN]], %[[LEN_J]] : i32
// CHECK: %[[BODY:.*]]:2 = scf.if %[[RUNS]] -> (i32, i32) {
// CHECK:   arith.addi %[[PRO]]#3, %[[PRO]]#0 : i32
// CHECK:   arith.subi %{{.*}}, %[[PRO]]#4 : i32
// CHECK:   %[[JN:.*]] = arith.addi %[[PRO]]#0, %{{.*}} : i32
// CHECK:   scf.yield %[[JN]], %{{.*}} : i32, i32
// CHECK: } else {
// CHECK:   scf.yield %[[PRO]]#0, %[[PRO]]#3 : i32, i32
// CHECK: }
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[TN]], %{{.*}} : i32
// CHECK: %[[EPI:.*]] = scf.if %[[LAST]] -> (i32) {
// CHECK:   tt.store %[[PRO]]#2, %[[BODY]]#1 : !tt.ptr<i32>
// CHECK:   %[[SUM:.*]] = arith.addi %[[ACC]], %[[BODY]]#1 : i32
// CHECK:   scf.yield %[[SUM]] : i32
// CHECK: } else {
// CHECK:   scf.yield %[[ACC]] : i32
// CHECK: }
// CHECK: scf.yield %[[TN]], %[[PRO]]#4, %[[EPI]], %[[BODY]]#0, %[[BODY]]#1, %[[PRO]]#1, %[[PRO]]#2
// CHECK: } {tt.num_stages = 3 : i32}
// CHECK: tt.store %{{.*}}, %[[R]]#2

// Left alone: a nest without tt.flatten, two inner loops, inner bounds computed in the outer
// body.
// CHECK-LABEL: tt.func public @not_fused
// CHECK-COUNT-7: scf.for
// CHECK-NOT: scf.if

//--- nest.mlir
module {
  tt.func public @nest(%out: !tt.ptr<i32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %r = scf.for %i = %c1 to %n step %c2 iter_args(%acc = %c0) -> (i32) : i32 {
      %base = arith.muli %i, %c3 : i32
      %p = tt.addptr %out, %i : !tt.ptr<i32>, i32
      %s = scf.for %j = %c0 to %m step %c1 iter_args(%a = %base) -> (i32) : i32 {
        %x = arith.addi %a, %j : i32
        %y = arith.muli %x, %c3 : i32
        %z = arith.subi %y, %i : i32
        scf.yield %z : i32
      } {tt.num_stages = 3 : i32}
      tt.store %p, %s : !tt.ptr<i32>
      %acc2 = arith.addi %acc, %s : i32
      scf.yield %acc2 : i32
    } {tt.flatten}
    %q = tt.addptr %out, %c0 : !tt.ptr<i32>, i32
    tt.store %q, %r : !tt.ptr<i32>
    tt.return
  }
}

// -----

//--- not_fused.mlir
module {
  tt.func public @not_fused(%out: !tt.ptr<i32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.for %j = %c0 to %m step %c1 : i32 {
        tt.store %out, %j : !tt.ptr<i32>
      }
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      scf.for %j = %c0 to %m step %c1 : i32 {
        tt.store %out, %j : !tt.ptr<i32>
      }
      scf.for %j = %c0 to %m step %c1 : i32 {
        tt.store %out, %i : !tt.ptr<i32>
      }
    } {tt.flatten}
    scf.for %i = %c0 to %n step %c1 : i32 {
      %ub = arith.addi %m, %i : i32
      scf.for %j = %c0 to %ub step %c1 : i32 {
        tt.store %out, %j : !tt.ptr<i32>
      }
    } {tt.flatten}
    tt.return
  }
}
