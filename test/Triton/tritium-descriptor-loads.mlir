// RUN: triton-opt %s --split-input-file --tritium-persistent-programs --tritium-descriptor-loads | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritium-descriptor-loads | FileCheck %s --check-prefix=TILE

// Tutorial 03's loop at 32x32x32, run persistently: both tiles read through descriptors made
// once, before the loop over the programs. A is [M, K] with row stride sa, its K mask
// `k < K - i * 32` becoming the bound K; B is [K, N] (row stride sb, advanced 32 rows an
// iteration). The rows of A and the columns of B that `% M` and `% N` wrap read zeros instead,
// and the store's mask excludes them. The pointer iter args are gone.
// CHECK-LABEL: tt.func public @wrapped_matmul
// CHECK: %[[SA:.*]] = arith.extsi %arg6 : i32 to i64
// CHECK: %[[DA:.*]] = tt.make_tensor_descriptor %arg0, [%arg3, %arg5], [%[[SA]], %{{.*}}] : <f16>, <tensor<32x32xf16>>
// CHECK: %[[SB:.*]] = arith.extsi %arg7 : i32 to i64
// CHECK: %[[DB:.*]] = tt.make_tensor_descriptor %arg1, [%arg5, %arg4], [%[[SB]], %{{.*}}] : <f16>, <tensor<32x32xf16>>
// CHECK: scf.for %[[V:.*]] = %{{.*}} to %arg9 step %{{.*}} : i32 {
// CHECK: %[[PID_M:.*]] = arith.divsi %[[V]], %{{.*}} : i32
// CHECK: %[[PID_N:.*]] = arith.remsi %[[V]], %{{.*}} : i32
// CHECK: %[[ROW0:.*]] = arith.muli %[[PID_M]], %{{.*}} : i32
// CHECK: %[[COL0:.*]] = arith.muli %[[PID_N]], %{{.*}} : i32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32>)
// CHECK: %[[X:.*]] = tt.descriptor_load %[[DA]][%[[ROW0]], %{{.*}}] : !tt.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
// CHECK: %[[Y:.*]] = tt.descriptor_load %[[DB]][%{{.*}}, %[[COL0]]] : !tt.tensordesc<tensor<32x32xf16>> -> tensor<32x32xf16>
// CHECK-NEXT: tt.dot %[[X]], %[[Y]]
// CHECK-NOT: tt.load
// CHECK: tt.return
// One program a tile: the descriptors' base, extents and strides are the kernel's arguments,
// so they are made right before the dot loop (-tritium-host-descriptors turns them into
// parameters the launcher encodes: no program builds one).
// TILE-LABEL: tt.func public @wrapped_matmul
// TILE: %[[DA:.*]] = tt.make_tensor_descriptor %arg0, [%arg3, %arg5]
// TILE: %[[DB:.*]] = tt.make_tensor_descriptor %arg1, [%arg5, %arg4]
// TILE: scf.for
// TILE: tt.descriptor_load %[[DA]]
// TILE: tt.descriptor_load %[[DB]]
// TILE-NOT: tt.load
// TILE: tt.return
tt.func public @wrapped_matmul(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A's base is the argument offset in the kernel (inside the persistent programs' loop once
// persistence moved the body there): no launcher parameter can stand for its descriptor, which
// every program would build for its tiles, so the loop's loads are left alone.
// CHECK-LABEL: tt.func public @offset_base
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
// TILE-LABEL: tt.func public @offset_base
// TILE-NOT: tt.make_tensor_descriptor
// TILE: tt.load
// TILE: tt.load
// TILE-NOT: tt.descriptor_load
// TILE: tt.return
tt.func public @offset_base(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %c16 = arith.constant 16 : i32
  %a16 = tt.addptr %a, %c16 : !tt.ptr<f16>, i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a16 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// The store does not exclude the rows of A past M (only the columns past N): A's tile stays a
// pointer load (its wrapped rows are real data there), and so does B's (a loop's loads are
// rewritten together or not at all: the pipeliner does not mix TMA and cp.async copies).
// CHECK-LABEL: tt.func public @rows_stored
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @rows_stored(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %m = arith.andi %mcb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A second store without a mask: the wrapped rows and columns would reach memory, both tiles stay.
// CHECK-LABEL: tt.func public @stored_unmasked
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @stored_unmasked(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.store %c_ptrs, %res#2 : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A's base has no alignment fact (TMA needs 16 bytes): both stay.
// CHECK-LABEL: tt.func public @unaligned_base
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @unaligned_base(%a: !tt.ptr<f16> , %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A's row stride has no divisibility fact (TMA needs a multiple of 16 bytes): both stay.
// CHECK-LABEL: tt.func public @unaligned_stride
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @unaligned_stride(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 , %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A's mask is `k < K` in every iteration while its pointers move on: no bound of the tensor
// reproduces it (the elements it keeps are not a fixed range of columns): both stay.
// CHECK-LABEL: tt.func public @mask_not_moving
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @mask_not_moving(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %K : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A's masked-off elements read 1.0, not the zeros a descriptor pads with: both stay.
// CHECK-LABEL: tt.func public @other_not_zero
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @other_not_zero(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %one_a : tensor<32x32x!tt.ptr<f16>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// fp8 tiles: wgmma reads an 8-bit B K-major only, which a TMA copy of B's N-contiguous rows
// cannot give; B stays a pointer load, and so does A.
// CHECK-LABEL: tt.func public @fp8_b_rows
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @fp8_b_rows(%a: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf8E4M3FN>
  %one_a = arith.constant dense<1.000000e+00> : tensor<32x32xf8E4M3FN>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %step_a = arith.constant dense<32> : tensor<32x32xi32>
  %c4 = arith.constant 4 : i32
  %pid = tt.get_program_id x : i32
  %pid_m = arith.divsi %pid, %c4 : i32
  %pid_n = arith.remsi %pid, %c4 : i32
  %row0 = arith.muli %pid_m, %c32 : i32
  %col0 = arith.muli %pid_n, %c32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
  %rows = arith.addi %row0s, %range : tensor<32xi32>
  %Ms = tt.splat %M : i32 -> tensor<32xi32>
  %rows_w = arith.remsi %rows, %Ms : tensor<32xi32>
  %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
  %cols = arith.addi %col0s, %range : tensor<32xi32>
  %Ns = tt.splat %N : i32 -> tensor<32xi32>
  %cols_w = arith.remsi %cols, %Ns : tensor<32xi32>
  %ar = tt.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
  %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
  %a_s = tt.splat %a : !tt.ptr<f8E4M3FN> -> tensor<32x1x!tt.ptr<f8E4M3FN>>
  %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f8E4M3FN>>, tensor<32x1xi32>
  %kk = tt.expand_dims %range {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f8E4M3FN>> -> tensor<32x32x!tt.ptr<f8E4M3FN>>
  %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32xi32>
  %bk = tt.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
  %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
  %b_s = tt.splat %b : !tt.ptr<f8E4M3FN> -> tensor<32x1x!tt.ptr<f8E4M3FN>>
  %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f8E4M3FN>>, tensor<32x1xi32>
  %bc = tt.expand_dims %cols_w {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f8E4M3FN>> -> tensor<32x32x!tt.ptr<f8E4M3FN>>
  %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %res:3 = scf.for %i = %c0 to %kt step %c1 iter_args(%pa = %a_ptrs, %pb = %b_ptrs, %acc = %acc0) -> (tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32xf32>) : i32 {
    %done = arith.muli %i, %c32 : i32
    %left = arith.subi %K, %done : i32
    %left_a = tt.splat %left : i32 -> tensor<1x32xi32>
    %ma = arith.cmpi slt, %kk, %left_a : tensor<1x32xi32>
    %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
    %x = tt.load %pa, %mab, %zero_a : tensor<32x32x!tt.ptr<f8E4M3FN>>
    %left_b = tt.splat %left : i32 -> tensor<32x1xi32>
    %mb = arith.cmpi slt, %bk, %left_b : tensor<32x1xi32>
    %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
    %y = tt.load %pb, %mbb, %zero_a : tensor<32x32x!tt.ptr<f8E4M3FN>>
    %d = tt.dot %x, %y, %acc : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E4M3FN> -> tensor<32x32xf32>
    %pa2 = tt.addptr %pa, %step_a : tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32xi32>
    %sb32 = arith.muli %sb, %c32 : i32
    %sb32s = tt.splat %sb32 : i32 -> tensor<32x32xi32>
    %pb2 = tt.addptr %pb, %sb32s : tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32xi32>
    scf.yield %pa2, %pb2, %d : tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32x!tt.ptr<f8E4M3FN>>, tensor<32x32xf32>
  }
  %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
  %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
  %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
  %sr_m = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
  %mr = arith.cmpi slt, %sr_m, %Ms2 : tensor<32x1xi32>
  %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
  %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
  %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
  %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
  %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
  %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
  %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
  %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %c_ptrs, %res#2, %m : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// A hand-written persistent loop (tutorial 11's form): the tile loop is the kernel's own, the
// pointers are computed in the K loop from its induction variable, and rows past M read row 0
// (`where(rows < M, rows, 0)`) instead of wrapping: read through descriptors made before the
// tile loop, at coordinates [row0, 32 * ki] and [32 * ki, col0]; the store's mask excludes the
// rows and columns past M and N.
// CHECK-LABEL: tt.func public @own_tile_loop
// CHECK: %[[DA:.*]] = tt.make_tensor_descriptor %arg0, [%arg3, %arg5]
// CHECK: %[[DB:.*]] = tt.make_tensor_descriptor %arg1, [%arg5, %arg4]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: %[[ROW0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[COL0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: scf.for %[[KI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32>)
// CHECK: %[[K0:.*]] = arith.muli %[[KI]], %{{.*}} : i32
// CHECK: %[[X:.*]] = tt.descriptor_load %[[DA]][%[[ROW0]], %[[K0]]]
// CHECK: %[[Y:.*]] = tt.descriptor_load %[[DB]][%[[K0]], %[[COL0]]]
// CHECK-NEXT: tt.dot %[[X]], %[[Y]]
// CHECK-NOT: tt.load
// CHECK: tt.return
tt.func public @own_tile_loop(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_i = arith.constant dense<0> : tensor<32xi32>
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %pid = tt.get_program_id x : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  scf.for %t = %pid to %c16 step %c4 : i32 {
    %pid_m = arith.divsi %t, %c4 : i32
    %pid_n = arith.remsi %t, %c4 : i32
    %row0 = arith.muli %pid_m, %c32 : i32
    %col0 = arith.muli %pid_n, %c32 : i32
    %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
    %rows = arith.addi %row0s, %range : tensor<32xi32>
    %Ms = tt.splat %M : i32 -> tensor<32xi32>
    %rows_lt = arith.cmpi slt, %rows, %Ms : tensor<32xi32>
    %rows_in = arith.select %rows_lt, %rows, %zero_i : tensor<32xi1>, tensor<32xi32>
    %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
    %cols = arith.addi %col0s, %range : tensor<32xi32>
    %Ns = tt.splat %N : i32 -> tensor<32xi32>
    %cols_lt = arith.cmpi slt, %cols, %Ns : tensor<32xi32>
    %cols_in = arith.select %cols_lt, %cols, %zero_i : tensor<32xi1>, tensor<32xi32>
    %acc = scf.for %ki = %c0 to %kt step %c1 iter_args(%acc_i = %acc0) -> (tensor<32x32xf32>) : i32 {
      %k0 = arith.muli %ki, %c32 : i32
      %k0s = tt.splat %k0 : i32 -> tensor<32xi32>
      %ks = arith.addi %k0s, %range : tensor<32xi32>
      %ar = tt.expand_dims %rows_in {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
      %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
      %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
      %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
      %kk = tt.expand_dims %ks {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
      %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
      %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      %Ka = tt.splat %K : i32 -> tensor<1x32xi32>
      %ma = arith.cmpi slt, %kk, %Ka : tensor<1x32xi32>
      %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
      %x = tt.load %a_ptrs, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
      %bk = tt.expand_dims %ks {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
      %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
      %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
      %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
      %bc = tt.expand_dims %cols_in {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
      %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
      %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      %Kb = tt.splat %K : i32 -> tensor<32x1xi32>
      %mb = arith.cmpi slt, %bk, %Kb : tensor<32x1xi32>
      %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
      %y = tt.load %b_ptrs, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
      %d = tt.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
      scf.yield %d : tensor<32x32xf32>
    }
    %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
    %mr = arith.cmpi slt, %sr, %Ms2 : tensor<32x1xi32>
    %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
    %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
    %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
    %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
    %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
    %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
    %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
    %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
    %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
    %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
    %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
    %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %c_ptrs, %acc, %m : tensor<32x32x!tt.ptr<f32>>
  }
  tt.return
}

// -----

// The same, but the accumulator is carried from tile to tile: a tile's wrapped rows (zeros
// through a descriptor, row 0 through the pointers) would reach the next tile's rows, which its
// store's mask does not exclude. Both loads stay.
// CHECK-LABEL: tt.func public @carried_across_tiles
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
tt.func public @carried_across_tiles(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %sa: i32 {tt.divisibility = 16 : i32}, %sb: i32 {tt.divisibility = 16 : i32}, %sc: i32 {tt.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %c31 = arith.constant 31 : i32
  %c32 = arith.constant 32 : i32
  %zero_i = arith.constant dense<0> : tensor<32xi32>
  %zero_a = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %pid = tt.get_program_id x : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %kt0 = arith.addi %K, %c31 : i32
  %kt = arith.divsi %kt0, %c32 : i32
  %last = scf.for %t = %pid to %c16 step %c4 iter_args(%carry = %acc0) -> (tensor<32x32xf32>) : i32 {
    %pid_m = arith.divsi %t, %c4 : i32
    %pid_n = arith.remsi %t, %c4 : i32
    %row0 = arith.muli %pid_m, %c32 : i32
    %col0 = arith.muli %pid_n, %c32 : i32
    %row0s = tt.splat %row0 : i32 -> tensor<32xi32>
    %rows = arith.addi %row0s, %range : tensor<32xi32>
    %Ms = tt.splat %M : i32 -> tensor<32xi32>
    %rows_lt = arith.cmpi slt, %rows, %Ms : tensor<32xi32>
    %rows_in = arith.select %rows_lt, %rows, %zero_i : tensor<32xi1>, tensor<32xi32>
    %col0s = tt.splat %col0 : i32 -> tensor<32xi32>
    %cols = arith.addi %col0s, %range : tensor<32xi32>
    %Ns = tt.splat %N : i32 -> tensor<32xi32>
    %cols_lt = arith.cmpi slt, %cols, %Ns : tensor<32xi32>
    %cols_in = arith.select %cols_lt, %cols, %zero_i : tensor<32xi1>, tensor<32xi32>
    %acc = scf.for %ki = %c0 to %kt step %c1 iter_args(%acc_i = %carry) -> (tensor<32x32xf32>) : i32 {
      %k0 = arith.muli %ki, %c32 : i32
      %k0s = tt.splat %k0 : i32 -> tensor<32xi32>
      %ks = arith.addi %k0s, %range : tensor<32xi32>
      %ar = tt.expand_dims %rows_in {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %sas = tt.splat %sa : i32 -> tensor<32x1xi32>
      %ar_off = arith.muli %ar, %sas : tensor<32x1xi32>
      %a_s = tt.splat %a : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
      %a_r = tt.addptr %a_s, %ar_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
      %kk = tt.expand_dims %ks {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %a_rb = tt.broadcast %a_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
      %kkb = tt.broadcast %kk : tensor<1x32xi32> -> tensor<32x32xi32>
      %a_ptrs = tt.addptr %a_rb, %kkb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      %Ka = tt.splat %K : i32 -> tensor<1x32xi32>
      %ma = arith.cmpi slt, %kk, %Ka : tensor<1x32xi32>
      %mab = tt.broadcast %ma : tensor<1x32xi1> -> tensor<32x32xi1>
      %x = tt.load %a_ptrs, %mab, %zero_a : tensor<32x32x!tt.ptr<f16>>
      %bk = tt.expand_dims %ks {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
      %sbs = tt.splat %sb : i32 -> tensor<32x1xi32>
      %bk_off = arith.muli %bk, %sbs : tensor<32x1xi32>
      %b_s = tt.splat %b : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
      %b_r = tt.addptr %b_s, %bk_off : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
      %bc = tt.expand_dims %cols_in {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
      %b_rb = tt.broadcast %b_r : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
      %bcb = tt.broadcast %bc : tensor<1x32xi32> -> tensor<32x32xi32>
      %b_ptrs = tt.addptr %b_rb, %bcb : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
      %Kb = tt.splat %K : i32 -> tensor<32x1xi32>
      %mb = arith.cmpi slt, %bk, %Kb : tensor<32x1xi32>
      %mbb = tt.broadcast %mb : tensor<32x1xi1> -> tensor<32x32xi1>
      %y = tt.load %b_ptrs, %mbb, %zero_a : tensor<32x32x!tt.ptr<f16>>
      %d = tt.dot %x, %y, %acc_i : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
      scf.yield %d : tensor<32x32xf32>
    }
    %sr = tt.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %Ms2 = tt.splat %M : i32 -> tensor<32x1xi32>
    %mr = arith.cmpi slt, %sr, %Ms2 : tensor<32x1xi32>
    %sc_ = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %Ns2 = tt.splat %N : i32 -> tensor<1x32xi32>
    %mc = arith.cmpi slt, %sc_, %Ns2 : tensor<1x32xi32>
    %mrb = tt.broadcast %mr : tensor<32x1xi1> -> tensor<32x32xi1>
    %mcb = tt.broadcast %mc : tensor<1x32xi1> -> tensor<32x32xi1>
    %m = arith.andi %mrb, %mcb : tensor<32x32xi1>
    %scs = tt.splat %sc : i32 -> tensor<32x1xi32>
    %c_off = arith.muli %sr, %scs : tensor<32x1xi32>
    %c_s = tt.splat %c : !tt.ptr<f32> -> tensor<32x1x!tt.ptr<f32>>
    %c_r = tt.addptr %c_s, %c_off : tensor<32x1x!tt.ptr<f32>>, tensor<32x1xi32>
    %c_rb = tt.broadcast %c_r : tensor<32x1x!tt.ptr<f32>> -> tensor<32x32x!tt.ptr<f32>>
    %scb = tt.broadcast %sc_ : tensor<1x32xi32> -> tensor<32x32xi32>
    %c_ptrs = tt.addptr %c_rb, %scb : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %c_ptrs, %acc, %m : tensor<32x32x!tt.ptr<f32>>
    scf.yield %acc : tensor<32x32xf32>
  }
  tt.return
}

// -----

// Batched (tests/gpu/matmul_variants.py at 32x32x32): each tile's base moves by
// `program_id(2) * stride` elements, read as a leading descriptor dimension of one element
// whose extent is the number of programs along z and whose coordinate is the program id; the
// loads return the 2-D tile (a rank-reducing descriptor load). One program a tile and three
// grid axes: no persistence, the descriptors are made before the dot loop.
// CHECK-LABEL: tt.func public @batched_matmul
// CHECK: %[[BATCH:.*]] = tt.get_program_id z : i32
// CHECK: %[[ZA:.*]] = tt.get_num_programs z : i32
// CHECK: %[[SAB:.*]] = arith.extsi %arg6 : i32 to i64
// CHECK: %[[SAM:.*]] = arith.extsi %arg7 : i32 to i64
// CHECK: %[[DA:.*]] = tt.make_tensor_descriptor %arg0, [%[[ZA]], %arg3, %arg5], [%[[SAB]], %[[SAM]], %{{.*}}] : <f16>, <tensor<1x32x32xf16>>
// CHECK: %[[ZB:.*]] = tt.get_num_programs z : i32
// CHECK: %[[DB:.*]] = tt.make_tensor_descriptor %arg1, [%[[ZB]], %arg5, %arg4], [%{{.*}}, %{{.*}}, %{{.*}}] : <f16>, <tensor<1x32x32xf16>>
// CHECK: scf.for
// CHECK: tt.descriptor_load %[[DA]][%[[BATCH]], %{{.*}}, %{{.*}}] : !tt.tensordesc<tensor<1x32x32xf16>> -> tensor<32x32xf16>
// CHECK: tt.descriptor_load %[[DB]][%[[BATCH]], %{{.*}}, %{{.*}}] : !tt.tensordesc<tensor<1x32x32xf16>> -> tensor<32x32xf16>
// CHECK-NOT: tt.load
// CHECK: tt.return
// TILE-LABEL: tt.func public @batched_matmul
// TILE: tt.make_tensor_descriptor %arg0, [%{{.*}}, %arg3, %arg5]
// TILE: tt.make_tensor_descriptor %arg1, [%{{.*}}, %arg5, %arg4]
// TILE: tt.descriptor_load
// TILE: tt.descriptor_load
// TILE-NOT: tt.load
// TILE: tt.return
tt.func public @batched_matmul(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %stride_ab: i32 {tt.divisibility = 16 : i32}, %stride_am: i32 {tt.divisibility = 16 : i32}, %stride_bb: i32 {tt.divisibility = 16 : i32}, %stride_bk: i32 {tt.divisibility = 16 : i32}, %stride_cb: i32 {tt.divisibility = 16 : i32}, %stride_cm: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
  %cst = arith.constant dense<32> : tensor<32x32xi32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %c0_i32 = arith.constant 0 : i32
  %c31_i32 = arith.constant 31 : i32
  %acc = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %c1_i32 = arith.constant 1 : i32
  %c32_i32 = arith.constant 32 : i32
  %pid_m = tt.get_program_id x : i32
  %pid_n = tt.get_program_id y : i32
  %batch = tt.get_program_id z : i32
  %offs_m = arith.muli %pid_m, %c32_i32 : i32
  %offs_m_1 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %offs_m_2 = tt.splat %offs_m : i32 -> tensor<32xi32>
  %offs_m_3 = arith.addi %offs_m_2, %offs_m_1 : tensor<32xi32>
  %offs_m_4 = tt.splat %M : i32 -> tensor<32xi32>
  %offs_m_5 = arith.remsi %offs_m_3, %offs_m_4 : tensor<32xi32>
  %offs_n = arith.muli %pid_n, %c32_i32 : i32
  %offs_n_6 = tt.splat %offs_n : i32 -> tensor<32xi32>
  %offs_n_7 = arith.addi %offs_n_6, %offs_m_1 : tensor<32xi32>
  %offs_n_8 = tt.splat %N : i32 -> tensor<32xi32>
  %offs_n_9 = arith.remsi %offs_n_7, %offs_n_8 : tensor<32xi32>
  %a_ptrs = arith.muli %batch, %stride_ab : i32
  %a_ptrs_10 = tt.addptr %a_ptr, %a_ptrs : !tt.ptr<f16>, i32
  %a_ptrs_11 = tt.expand_dims %offs_m_5 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %a_ptrs_12 = tt.splat %stride_am : i32 -> tensor<32x1xi32>
  %a_ptrs_13 = arith.muli %a_ptrs_11, %a_ptrs_12 : tensor<32x1xi32>
  %a_ptrs_14 = tt.splat %a_ptrs_10 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_ptrs_15 = tt.addptr %a_ptrs_14, %a_ptrs_13 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %a_ptrs_16 = tt.expand_dims %offs_m_1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_ptrs_17 = tt.broadcast %a_ptrs_15 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %a_ptrs_18 = tt.broadcast %a_ptrs_16 : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs_19 = tt.addptr %a_ptrs_17, %a_ptrs_18 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %b_ptrs = arith.muli %batch, %stride_bb : i32
  %b_ptrs_20 = tt.addptr %b_ptr, %b_ptrs : !tt.ptr<f16>, i32
  %b_ptrs_21 = tt.expand_dims %offs_m_1 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %b_ptrs_22 = tt.splat %stride_bk : i32 -> tensor<32x1xi32>
  %b_ptrs_23 = arith.muli %b_ptrs_21, %b_ptrs_22 : tensor<32x1xi32>
  %b_ptrs_24 = tt.splat %b_ptrs_20 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_ptrs_25 = tt.addptr %b_ptrs_24, %b_ptrs_23 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %b_ptrs_26 = tt.expand_dims %offs_n_9 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_ptrs_27 = tt.broadcast %b_ptrs_25 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %b_ptrs_28 = tt.broadcast %b_ptrs_26 : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs_29 = tt.addptr %b_ptrs_27, %b_ptrs_28 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %0 = arith.addi %K, %c31_i32 : i32
  %1 = arith.divsi %0, %c32_i32 : i32
  %2:3 = scf.for %arg12 = %c0_i32 to %1 step %c1_i32 iter_args(%arg13 = %a_ptrs_19, %arg14 = %b_ptrs_29, %arg15 = %acc) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>)  : i32 {
    %a = arith.muli %arg12, %c32_i32 : i32
    %a_40 = arith.subi %K, %a : i32
    %a_41 = tt.splat %a_40 : i32 -> tensor<1x32xi32>
    %a_42 = arith.cmpi slt, %a_ptrs_16, %a_41 : tensor<1x32xi32>
    %a_43 = tt.broadcast %a_42 : tensor<1x32xi1> -> tensor<32x32xi1>
    %a_44 = tt.load %arg13, %a_43, %cst_0 : tensor<32x32x!tt.ptr<f16>>
    %b = tt.splat %a_40 : i32 -> tensor<32x1xi32>
    %b_45 = arith.cmpi slt, %b_ptrs_21, %b : tensor<32x1xi32>
    %b_46 = tt.broadcast %b_45 : tensor<32x1xi1> -> tensor<32x32xi1>
    %b_47 = tt.load %arg14, %b_46, %cst_0 : tensor<32x32x!tt.ptr<f16>>
    %acc_48 = tt.dot %a_44, %b_47, %arg15, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %a_ptrs_49 = tt.addptr %arg13, %cst : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %b_ptrs_50 = arith.muli %stride_bk, %c32_i32 : i32
    %b_ptrs_51 = tt.splat %b_ptrs_50 : i32 -> tensor<32x32xi32>
    %b_ptrs_52 = tt.addptr %arg14, %b_ptrs_51 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %a_ptrs_49, %b_ptrs_52, %acc_48 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %c_ptrs = arith.muli %batch, %stride_cb : i32
  %c_ptrs_30 = tt.addptr %c_ptr, %c_ptrs : !tt.ptr<f16>, i32
  %c_ptrs_31 = tt.expand_dims %offs_m_3 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c_ptrs_32 = tt.splat %stride_cm : i32 -> tensor<32x1xi32>
  %c_ptrs_33 = arith.muli %c_ptrs_31, %c_ptrs_32 : tensor<32x1xi32>
  %c_ptrs_34 = tt.splat %c_ptrs_30 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %c_ptrs_35 = tt.addptr %c_ptrs_34, %c_ptrs_33 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %c_ptrs_36 = tt.expand_dims %offs_n_7 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c_ptrs_37 = tt.broadcast %c_ptrs_35 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %c_ptrs_38 = tt.broadcast %c_ptrs_36 : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs_39 = tt.addptr %c_ptrs_37, %c_ptrs_38 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %3 = arith.truncf %2#2 : tensor<32x32xf32> to tensor<32x32xf16>
  %4 = tt.splat %M : i32 -> tensor<32x1xi32>
  %5 = arith.cmpi slt, %c_ptrs_31, %4 : tensor<32x1xi32>
  %6 = tt.splat %N : i32 -> tensor<1x32xi32>
  %7 = arith.cmpi slt, %c_ptrs_36, %6 : tensor<1x32xi32>
  %8 = tt.broadcast %5 : tensor<32x1xi1> -> tensor<32x32xi1>
  %9 = tt.broadcast %7 : tensor<1x32xi1> -> tensor<32x32xi1>
  %10 = arith.andi %8, %9 : tensor<32x32xi1>
  tt.store %c_ptrs_39, %3, %10 : tensor<32x32x!tt.ptr<f16>>
  tt.return
}

// -----

// A's base moves by `(program_id(2) + 1) * stride`: not a program id times a stride, so no
// descriptor dimension stands for it; both loads stay pointer loads.
// CHECK-LABEL: tt.func public @batch_not_a_program_id
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.load
// CHECK: tt.load
// CHECK-NOT: tt.descriptor_load
// CHECK: tt.return
// TILE-LABEL: tt.func public @batch_not_a_program_id
// TILE-NOT: tt.make_tensor_descriptor
// TILE: tt.return
tt.func public @batch_not_a_program_id(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32 {tt.divisibility = 16 : i32}, %N: i32 {tt.divisibility = 16 : i32}, %K: i32 {tt.divisibility = 16 : i32}, %stride_ab: i32 {tt.divisibility = 16 : i32}, %stride_am: i32 {tt.divisibility = 16 : i32}, %stride_bb: i32 {tt.divisibility = 16 : i32}, %stride_bk: i32 {tt.divisibility = 16 : i32}, %stride_cb: i32 {tt.divisibility = 16 : i32}, %stride_cm: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
  %cst = arith.constant dense<32> : tensor<32x32xi32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
  %c0_i32 = arith.constant 0 : i32
  %c31_i32 = arith.constant 31 : i32
  %acc = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %c1_i32 = arith.constant 1 : i32
  %c32_i32 = arith.constant 32 : i32
  %pid_m = tt.get_program_id x : i32
  %pid_n = tt.get_program_id y : i32
  %batch = tt.get_program_id z : i32
  %offs_m = arith.muli %pid_m, %c32_i32 : i32
  %offs_m_1 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %offs_m_2 = tt.splat %offs_m : i32 -> tensor<32xi32>
  %offs_m_3 = arith.addi %offs_m_2, %offs_m_1 : tensor<32xi32>
  %offs_m_4 = tt.splat %M : i32 -> tensor<32xi32>
  %offs_m_5 = arith.remsi %offs_m_3, %offs_m_4 : tensor<32xi32>
  %offs_n = arith.muli %pid_n, %c32_i32 : i32
  %offs_n_6 = tt.splat %offs_n : i32 -> tensor<32xi32>
  %offs_n_7 = arith.addi %offs_n_6, %offs_m_1 : tensor<32xi32>
  %offs_n_8 = tt.splat %N : i32 -> tensor<32xi32>
  %offs_n_9 = arith.remsi %offs_n_7, %offs_n_8 : tensor<32xi32>
  %next = arith.addi %batch, %c1_i32 : i32
  %a_ptrs = arith.muli %next, %stride_ab : i32
  %a_ptrs_10 = tt.addptr %a_ptr, %a_ptrs : !tt.ptr<f16>, i32
  %a_ptrs_11 = tt.expand_dims %offs_m_5 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %a_ptrs_12 = tt.splat %stride_am : i32 -> tensor<32x1xi32>
  %a_ptrs_13 = arith.muli %a_ptrs_11, %a_ptrs_12 : tensor<32x1xi32>
  %a_ptrs_14 = tt.splat %a_ptrs_10 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %a_ptrs_15 = tt.addptr %a_ptrs_14, %a_ptrs_13 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %a_ptrs_16 = tt.expand_dims %offs_m_1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %a_ptrs_17 = tt.broadcast %a_ptrs_15 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %a_ptrs_18 = tt.broadcast %a_ptrs_16 : tensor<1x32xi32> -> tensor<32x32xi32>
  %a_ptrs_19 = tt.addptr %a_ptrs_17, %a_ptrs_18 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %b_ptrs = arith.muli %batch, %stride_bb : i32
  %b_ptrs_20 = tt.addptr %b_ptr, %b_ptrs : !tt.ptr<f16>, i32
  %b_ptrs_21 = tt.expand_dims %offs_m_1 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %b_ptrs_22 = tt.splat %stride_bk : i32 -> tensor<32x1xi32>
  %b_ptrs_23 = arith.muli %b_ptrs_21, %b_ptrs_22 : tensor<32x1xi32>
  %b_ptrs_24 = tt.splat %b_ptrs_20 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %b_ptrs_25 = tt.addptr %b_ptrs_24, %b_ptrs_23 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %b_ptrs_26 = tt.expand_dims %offs_n_9 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b_ptrs_27 = tt.broadcast %b_ptrs_25 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %b_ptrs_28 = tt.broadcast %b_ptrs_26 : tensor<1x32xi32> -> tensor<32x32xi32>
  %b_ptrs_29 = tt.addptr %b_ptrs_27, %b_ptrs_28 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %0 = arith.addi %K, %c31_i32 : i32
  %1 = arith.divsi %0, %c32_i32 : i32
  %2:3 = scf.for %arg12 = %c0_i32 to %1 step %c1_i32 iter_args(%arg13 = %a_ptrs_19, %arg14 = %b_ptrs_29, %arg15 = %acc) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>)  : i32 {
    %a = arith.muli %arg12, %c32_i32 : i32
    %a_40 = arith.subi %K, %a : i32
    %a_41 = tt.splat %a_40 : i32 -> tensor<1x32xi32>
    %a_42 = arith.cmpi slt, %a_ptrs_16, %a_41 : tensor<1x32xi32>
    %a_43 = tt.broadcast %a_42 : tensor<1x32xi1> -> tensor<32x32xi1>
    %a_44 = tt.load %arg13, %a_43, %cst_0 : tensor<32x32x!tt.ptr<f16>>
    %b = tt.splat %a_40 : i32 -> tensor<32x1xi32>
    %b_45 = arith.cmpi slt, %b_ptrs_21, %b : tensor<32x1xi32>
    %b_46 = tt.broadcast %b_45 : tensor<32x1xi1> -> tensor<32x32xi1>
    %b_47 = tt.load %arg14, %b_46, %cst_0 : tensor<32x32x!tt.ptr<f16>>
    %acc_48 = tt.dot %a_44, %b_47, %arg15, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
    %a_ptrs_49 = tt.addptr %arg13, %cst : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %b_ptrs_50 = arith.muli %stride_bk, %c32_i32 : i32
    %b_ptrs_51 = tt.splat %b_ptrs_50 : i32 -> tensor<32x32xi32>
    %b_ptrs_52 = tt.addptr %arg14, %b_ptrs_51 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    scf.yield %a_ptrs_49, %b_ptrs_52, %acc_48 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf32>
  }
  %c_ptrs = arith.muli %batch, %stride_cb : i32
  %c_ptrs_30 = tt.addptr %c_ptr, %c_ptrs : !tt.ptr<f16>, i32
  %c_ptrs_31 = tt.expand_dims %offs_m_3 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c_ptrs_32 = tt.splat %stride_cm : i32 -> tensor<32x1xi32>
  %c_ptrs_33 = arith.muli %c_ptrs_31, %c_ptrs_32 : tensor<32x1xi32>
  %c_ptrs_34 = tt.splat %c_ptrs_30 : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
  %c_ptrs_35 = tt.addptr %c_ptrs_34, %c_ptrs_33 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
  %c_ptrs_36 = tt.expand_dims %offs_n_7 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c_ptrs_37 = tt.broadcast %c_ptrs_35 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
  %c_ptrs_38 = tt.broadcast %c_ptrs_36 : tensor<1x32xi32> -> tensor<32x32xi32>
  %c_ptrs_39 = tt.addptr %c_ptrs_37, %c_ptrs_38 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
  %3 = arith.truncf %2#2 : tensor<32x32xf32> to tensor<32x32xf16>
  %4 = tt.splat %M : i32 -> tensor<32x1xi32>
  %5 = arith.cmpi slt, %c_ptrs_31, %4 : tensor<32x1xi32>
  %6 = tt.splat %N : i32 -> tensor<1x32xi32>
  %7 = arith.cmpi slt, %c_ptrs_36, %6 : tensor<1x32xi32>
  %8 = tt.broadcast %5 : tensor<32x1xi1> -> tensor<32x32xi1>
  %9 = tt.broadcast %7 : tensor<1x32xi1> -> tensor<32x32xi1>
  %10 = arith.andi %8, %9 : tensor<32x32xi1>
  tt.store %c_ptrs_39, %3, %10 : tensor<32x32x!tt.ptr<f16>>
  tt.return
}
