// RUN: triton-opt %s --split-input-file --tritongpu-fuse-nested-loops | FileCheck %s
// The fused kernels compute what the nest computes (reference interpreter, the inner loop
// running 4 times and not at all per outer iteration), speculated and guarded:
// RUN: split-file %s %t && tritium run %t/nest.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=4 | FileCheck %s --check-prefix=M4
// RUN: triton-opt %t/nest.mlir --tritongpu-fuse-nested-loops -o %t/fused.mlir && tritium run %t/fused.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=4 | FileCheck %s --check-prefix=M4
// RUN: triton-opt %t/guarded.mlir --tritongpu-fuse-nested-loops -o %t/fused_guarded.mlir && tritium run %t/fused_guarded.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=4 | FileCheck %s --check-prefix=M4
// RUN: tritium run %t/nest.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=0 | FileCheck %s --check-prefix=M0
// RUN: tritium run %t/fused.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=0 | FileCheck %s --check-prefix=M0
// RUN: tritium run %t/fused_guarded.mlir --interpret --arg out=buf:i32:16:zeros --arg n=8 --arg m=0 | FileCheck %s --check-prefix=M0
// An inner loop whose inits are the outer iter args and which yields one of its own unchanged:
// RUN: tritium run %t/carried.mlir --interpret --arg out=buf:i32:16:zeros --arg n=6 --arg m=3 | FileCheck %s --check-prefix=C3
// RUN: triton-opt %t/carried.mlir --tritongpu-fuse-nested-loops -o %t/fused_carried.mlir && tritium run %t/fused_carried.mlir --interpret --arg out=buf:i32:16:zeros --arg n=6 --arg m=3 | FileCheck %s --check-prefix=C3
// RUN: tritium run %t/carried.mlir --interpret --arg out=buf:i32:16:zeros --arg n=6 --arg m=0 | FileCheck %s --check-prefix=C0
// RUN: tritium run %t/fused_carried.mlir --interpret --arg out=buf:i32:16:zeros --arg n=6 --arg m=0 | FileCheck %s --check-prefix=C0
// C3: out: i32 x 16 = [132, 16507, 2063382, 257922757, -2119393736, 1363755359, 20, 1363755359, ...]
// C0: out: i32 x 16 = [1, 1, 1, 1, 1, 1, 20, 1, ...]
// An inner loop that yields the outer induction variable, an outer iter arg and a prologue
// value, which the epilogue reads (a fuzzing find: the epilogue was left reading the erased outer
// loop's induction variable):
// RUN: tritium run %t/yields_outer.mlir --interpret --arg out=buf:i32:16:zeros --arg n=5 --arg m=3 | FileCheck %s --check-prefix=Y3
// RUN: triton-opt %t/yields_outer.mlir --tritongpu-fuse-nested-loops -o %t/fused_yields_outer.mlir && tritium run %t/fused_yields_outer.mlir --interpret --arg out=buf:i32:16:zeros --arg n=5 --arg m=3 | FileCheck %s --check-prefix=Y3
// RUN: tritium run %t/yields_outer.mlir --interpret --arg out=buf:i32:16:zeros --arg n=5 --arg m=0 | FileCheck %s --check-prefix=Y0
// RUN: tritium run %t/fused_yields_outer.mlir --interpret --arg out=buf:i32:16:zeros --arg n=5 --arg m=0 | FileCheck %s --check-prefix=Y0
// Y3: out: i32 x 16 = [4, 35, 74, 133, 224, 0, 17, 16, ...]
// Y0: out: i32 x 16 = [1, 1, 1, 1, 1, 0, 17, 1, ...]
// The GPU pattern's persistent kernel compiles after fusion (its carried pointer's placeholder is a
// ub.poison, lowered to llvm.mlir.poison):
// RUN: triton-opt %S/../Inputs/gpu/fused_row_sums.ttir --tritongpu-fuse-nested-loops --mlir-print-debuginfo -o %t.fused.ttir
// RUN: tritium compile %t.fused.ttir --out-name fused -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx/fused.ptx
// PTX: .entry fused_row_sums
// M4: out: i32 x 16 = [3464, 257, 0, 663, 0, 1069, 0, 1475, ...]
// M0: out: i32 x 16 = [48, 3, 0, 9, 0, 15, 0, 21, ...]

// A tt.flatten nest is prepared as Triton does: the store's pointer, read only after the inner
// loop, moves there; the inner loop's length is speculated: a copy of the nest without it
// runs when it is empty, else the nest, fused, with the inner loop marked to run at least once:
// one loop over len(i) * len(j) iterations, the prologue when the counter T wraps to 0, the
// inner body unguarded, the epilogue at the last T. Carried: T, i, the outer and inner iter
// args, j, and %base's multiple (the inner loop's init is set in the prologue, not carried).
// CHECK-LABEL: tt.func public @nest
// CHECK: %[[LEN:.*]] = arith.ceildivsi
// CHECK: %[[EMPTY:.*]] = arith.cmpi sle, %[[LEN]], %{{.*}} : i32
// CHECK: %[[NEST:.*]] = scf.if %[[EMPTY]] -> (i32) {
// CHECK:   %[[COPY:.*]] = scf.for
// CHECK-NOT: scf.for
// CHECK:     tt.store
// CHECK:   }
// CHECK-NOT: tt.flatten
// CHECK:   scf.yield %[[COPY]] : i32
// CHECK: } else {
// CHECK:   %[[LEN_I:.*]] = arith.ceildivsi
// CHECK:   %[[LEN_J:.*]] = arith.ceildivsi
// CHECK-NOT: arith.maxsi
// CHECK:   %[[TOTAL:.*]] = arith.muli %[[LEN_I]], %[[LEN_J]] : i32
// CHECK:   %[[R:.*]]:5 = scf.for %{{.*}} = %{{.*}} to %[[TOTAL]] step %{{.*}} iter_args(%[[T:[^ ]*]] = %c-1_i32, %[[I:[^ ]*]] = %{{[^ ]*}}, %[[ACC:[^ ]*]] = %{{[^ ]*}}, %[[J:[^ ]*]] = %{{[^ ]*}}, %[[A:[^ ]*]] = %{{[^ ]*}}) -> (i32, i32, i32, i32, i32)
// CHECK:     %[[TN:.*]] = arith.select
// CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[TN]], %{{.*}} : i32
// CHECK:     %[[PRO:.*]]:3 = scf.if %[[FIRST]] -> (i32, i32, i32) {
// CHECK:       %[[IN:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:       %[[BASE:.*]] = arith.muli %[[IN]], %{{.*}} : i32
// CHECK:       scf.yield %{{.*}}, %[[BASE]], %[[IN]] : i32, i32, i32
// CHECK:     } else {
// CHECK:       scf.yield %[[J]], %[[A]], %[[I]] : i32, i32, i32
// CHECK:     }
// CHECK-NOT: scf.if
// CHECK:     arith.addi %[[PRO]]#1, %[[PRO]]#0 : i32
// CHECK:     %[[Z:.*]] = arith.subi %{{.*}}, %[[PRO]]#2 : i32
// CHECK:     %[[JN:.*]] = arith.addi %[[PRO]]#0, %{{.*}} : i32
// CHECK:     %[[LAST:.*]] = arith.cmpi eq, %[[TN]], %{{.*}} : i32
// CHECK:     %[[EPI:.*]] = scf.if %[[LAST]] -> (i32) {
// CHECK:       %[[PTR:.*]] = tt.addptr %{{.*}}, %[[PRO]]#2
// CHECK:       tt.store %[[PTR]], %[[Z]] : !tt.ptr<i32>
// CHECK:       %[[SUM:.*]] = arith.addi %[[ACC]], %[[Z]] : i32
// CHECK:       scf.yield %[[SUM]] : i32
// CHECK:     } else {
// CHECK:       scf.yield %[[ACC]] : i32
// CHECK:     }
// CHECK:     scf.yield %[[TN]], %[[PRO]]#2, %[[EPI]], %[[JN]], %[[Z]]
// CHECK:   } {tt.num_stages = 3 : i32}
// CHECK:   scf.yield %[[R]]#2 : i32
// CHECK: }
// CHECK: tt.store %{{.*}}, %[[NEST]]

// Triton's test attribute fuses a nest as it is (no speculation): the fused loop runs
// len(i) * max(1, len(j)) iterations and the inner body is guarded by T < len(j); the store's
// pointer is a prologue value, carried (a ub.poison placeholder before the first prologue).
// CHECK-LABEL: tt.func public @guarded
// CHECK: %[[LEN_I:.*]] = arith.ceildivsi
// CHECK: %[[LEN_J:.*]] = arith.ceildivsi
// CHECK: %[[INNER:.*]] = arith.maxsi %{{.*}}, %[[LEN_J]] : i32
// CHECK: %[[TOTAL:.*]] = arith.muli %[[LEN_I]], %[[INNER]] : i32
// CHECK: %[[POISON:.*]] = ub.poison : !tt.ptr<i32>
// CHECK: %[[R:.*]]:6 = scf.for %{{.*}} = %{{.*}} to %[[TOTAL]] step %{{.*}} iter_args(%[[T:[^ ]*]] = %c-1_i32, %[[I:[^ ]*]] = %{{[^ ]*}}, %[[ACC:[^ ]*]] = %{{[^ ]*}}, %[[J:[^ ]*]] = %{{[^ ]*}}, %[[A:[^ ]*]] = %{{[^ ]*}}, %[[P:[^ ]*]] = %[[POISON]]) -> (i32, i32, i32, i32, i32, !tt.ptr<i32>)
// CHECK:   %[[TN:.*]] = arith.select
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[TN]], %{{.*}} : i32
// CHECK:   %[[PRO:.*]]:4 = scf.if %[[FIRST]] -> (i32, !tt.ptr<i32>, i32, i32) {
// CHECK:     %[[IN:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:     %[[BASE:.*]] = arith.muli %[[IN]], %{{.*}} : i32
// CHECK:     %[[PTR:.*]] = tt.addptr %{{.*}}, %[[IN]]
// CHECK:     scf.yield %{{.*}}, %[[PTR]], %[[BASE]], %[[IN]] : i32, !tt.ptr<i32>, i32, i32
// CHECK:   } else {
// CHECK:     scf.yield %[[J]], %[[P]], %[[A]], %[[I]] : i32, !tt.ptr<i32>, i32, i32
// CHECK:   }
// CHECK:   %[[RUNS:.*]] = arith.cmpi slt, %[[TN]], %[[LEN_J]] : i32
// CHECK:   %[[BODY:.*]]:2 = scf.if %[[RUNS]] -> (i32, i32) {
// CHECK:     arith.addi %[[PRO]]#2, %[[PRO]]#0 : i32
// CHECK:     arith.subi %{{.*}}, %[[PRO]]#3 : i32
// CHECK:     %[[JN:.*]] = arith.addi %[[PRO]]#0, %{{.*}} : i32
// CHECK:     scf.yield %[[JN]], %{{.*}} : i32, i32
// CHECK:   } else {
// CHECK:     scf.yield %[[PRO]]#0, %[[PRO]]#2 : i32, i32
// CHECK:   }
// CHECK:   %[[LAST:.*]] = arith.cmpi eq, %[[TN]], %{{.*}} : i32
// CHECK:   %[[EPI:.*]] = scf.if %[[LAST]] -> (i32) {
// CHECK:     tt.store %[[PRO]]#1, %[[BODY]]#1 : !tt.ptr<i32>
// CHECK:     %[[SUM:.*]] = arith.addi %[[ACC]], %[[BODY]]#1 : i32
// CHECK:     scf.yield %[[SUM]] : i32
// CHECK:   } else {
// CHECK:     scf.yield %[[ACC]] : i32
// CHECK:   }
// CHECK:   scf.yield %[[TN]], %[[PRO]]#3, %[[EPI]], %[[BODY]]#0, %[[BODY]]#1, %[[PRO]]#1
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

//--- guarded.mlir
module {
  tt.func public @guarded(%out: !tt.ptr<i32>, %n: i32, %m: i32) {
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
    } {"ttg.always-fuse"}
    %q = tt.addptr %out, %c0 : !tt.ptr<i32>, i32
    tt.store %q, %r : !tt.ptr<i32>
    tt.return
  }
}

// -----

//--- carried.mlir
module {
  tt.func public @carried(%out: !tt.ptr<i32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c5 = arith.constant 5 : i32
    %c12 = arith.constant 6 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c1, %keep = %c5) -> (i32, i32) : i32 {
      %s:2 = scf.for %j = %c0 to %m step %c1 iter_args(%a = %acc, %b = %keep) -> (i32, i32) : i32 {
        %x = arith.muli %a, %c5 : i32
        %y = arith.addi %x, %j : i32
        scf.yield %y, %b : i32, i32
      }
      %p = tt.addptr %out, %i : !tt.ptr<i32>, i32
      tt.store %p, %s#0 : !tt.ptr<i32>
      %k2 = arith.addi %s#1, %i : i32
      scf.yield %s#0, %k2 : i32, i32
    } {tt.flatten}
    %q = tt.addptr %out, %c12 : !tt.ptr<i32>, i32
    tt.store %q, %r#1 : !tt.ptr<i32>
    %q2 = arith.addi %c12, %c1 : i32
    %q3 = tt.addptr %out, %q2 : !tt.ptr<i32>, i32
    tt.store %q3, %r#0 : !tt.ptr<i32>
    tt.return
  }
}

// -----

//--- yields_outer.mlir
module {
  tt.func public @yields_outer(%out: !tt.ptr<i32>, %n: i32, %m: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %c7 = arith.constant 7 : i32
    %c6 = arith.constant 6 : i32
    %c7o = arith.constant 7 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c1, %keep = %c7) -> (i32, i32) : i32 {
      %pro = arith.muli %i, %c3 : i32
      %s:4 = scf.for %j = %c0 to %m step %c1 iter_args(%a = %acc, %b = %c0, %c = %c0, %d = %c0) -> (i32, i32, i32, i32) : i32 {
        %x = arith.addi %a, %j : i32
        scf.yield %x, %i, %pro, %keep : i32, i32, i32, i32
      }
      %e = arith.addi %s#1, %s#2 : i32
      %f = arith.muli %e, %s#3 : i32
      %g = arith.addi %f, %s#0 : i32
      %p = tt.addptr %out, %i : !tt.ptr<i32>, i32
      tt.store %p, %g : !tt.ptr<i32>
      %k = arith.addi %keep, %i : i32
      scf.yield %s#0, %k : i32, i32
    } {tt.flatten}
    %q = tt.addptr %out, %c6 : !tt.ptr<i32>, i32
    tt.store %q, %r#1 : !tt.ptr<i32>
    %q2 = tt.addptr %out, %c7o : !tt.ptr<i32>, i32
    tt.store %q2, %r#0 : !tt.ptr<i32>
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
