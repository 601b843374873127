// RUN: triton-opt %s --split-input-file --tritium-persistent-programs | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritium-persistent-programs --tritium-persistent-programs | FileCheck %s --check-prefix=TWICE

// A program a tile with a dot loop: the kernel takes the requested program count (its last
// argument, marked on the function) and loops over the virtual programs from its own id with a
// stride of the launched programs; program_id(0) reads the virtual one.
// CHECK-LABEL: tt.func public @tile_matmul
// CHECK-SAME: (%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32) attributes {tritium.virtual_programs} {
// CHECK-NEXT: %[[PID:.*]] = tt.get_program_id x : i32
// CHECK-NEXT: %[[LAUNCHED:.*]] = tt.get_num_programs x : i32
// CHECK-NEXT: scf.for %[[V:.*]] = %[[PID]] to %arg3 step %[[LAUNCHED]] : i32 {
// CHECK: arith.muli %[[V]], %{{.*}} : i32
// CHECK-NOT: tt.get_program_id x
// CHECK: scf.for
// CHECK: tt.dot
// CHECK: scf.yield
// CHECK: tt.store
// CHECK-NEXT: }
// CHECK-NEXT: tt.return
// Run again, the kernel is left as it is: one loop over the programs, one more argument.
// TWICE-LABEL: tt.func public @tile_matmul
// TWICE-SAME: %arg3: i32) attributes {tritium.virtual_programs} {
// TWICE-NEXT: tt.get_program_id x
// TWICE-NEXT: tt.get_num_programs x
// TWICE-NOT: tt.get_num_programs
// TWICE: tt.return
tt.func public @tile_matmul(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %pid = tt.get_program_id x : i32
  %tile = arith.muli %pid, %c16 : i32
  %offset = arith.addi %tile, %k : i32
  %a_tile = tt.addptr %a, %offset : !tt.ptr<f16>, i32
  %a_ptrs = tt.splat %a_tile : !tt.ptr<f16> -> tensor<16x16x!tt.ptr<f16>>
  %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
    %x = tt.load %a_ptrs : tensor<16x16x!tt.ptr<f16>>
    %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %c_tile = tt.addptr %c, %offset : !tt.ptr<f32>, i32
  %c_ptrs = tt.splat %c_tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  tt.store %c_ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// -----

// Left alone: programs that meet through atomics (a split-K reduction), a kernel that already
// strides over its work (tt.get_num_programs, or a constant from program_id(0)), one that prints (the hardware program id), one
// with a grid of rows (program_id(1)), one whose work varies with the program, and one without a
// dot in a loop.
// CHECK-LABEL: tt.func public @atomics
// CHECK-SAME: (%arg0: !tt.ptr<f32>, %arg1: i32) {
// CHECK-NOT: tritium.virtual_programs
// CHECK: tt.atomic_rmw
tt.func public @atomics(%c: !tt.ptr<f32>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
    %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %tile = tt.addptr %c, %pid : !tt.ptr<f32>, i32
  %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %old = tt.atomic_rmw fadd, relaxed, gpu, %ptrs, %acc : (tensor<16x16x!tt.ptr<f32>>, tensor<16x16xf32>) -> tensor<16x16xf32>
  tt.return
}

// CHECK-LABEL: tt.func public @already_persistent
// CHECK-NOT: tritium.virtual_programs
tt.func public @already_persistent(%c: !tt.ptr<f32>, %k: i32, %tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  %n = tt.get_num_programs x : i32
  scf.for %t = %pid to %tiles step %n : i32 {
    %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
      %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %tile = tt.addptr %c, %t : !tt.ptr<f32>, i32
    %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
    tt.store %ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  }
  tt.return
}

// Triton's persistent tutorials stride by a constant NUM_SMS: a loop from program_id(0).
// CHECK-LABEL: tt.func public @strides_by_a_constant
// CHECK-NOT: tritium.virtual_programs
tt.func public @strides_by_a_constant(%c: !tt.ptr<f32>, %k: i32, %tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c132 = arith.constant 132 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  scf.for %t = %pid to %tiles step %c132 : i32 {
    %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
      %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %tile = tt.addptr %c, %t : !tt.ptr<f32>, i32
    %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
    tt.store %ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  }
  tt.return
}

// CHECK-LABEL: tt.func public @prints
// CHECK-NOT: tritium.virtual_programs
tt.func public @prints(%c: !tt.ptr<f32>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
    %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tt.print " pid: " {hex = false, isSigned = array<i32: 1>} : %pid : i32
  %tile = tt.addptr %c, %pid : !tt.ptr<f32>, i32
  %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  tt.store %ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: tt.func public @rows
// CHECK-NOT: tritium.virtual_programs
tt.func public @rows(%c: !tt.ptr<f32>, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  %row = tt.get_program_id y : i32
  %acc = scf.for %i = %c0 to %k step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
    %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %offset = arith.addi %pid, %row : i32
  %tile = tt.addptr %c, %offset : !tt.ptr<f32>, i32
  %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  tt.store %ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// Work that varies with the program (a triangular loop): left to the block scheduler.
// CHECK-LABEL: tt.func public @uneven_work
// CHECK-NOT: tritium.virtual_programs
tt.func public @uneven_work(%c: !tt.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  %n = arith.addi %pid, %c1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<16x16xf32>) : i32 {
    %d = tt.dot %x, %x, %acc0 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %tile = tt.addptr %c, %pid : !tt.ptr<f32>, i32
  %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  tt.store %ptrs, %acc : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: tt.func public @dot_outside_a_loop
// CHECK-NOT: tritium.virtual_programs
tt.func public @dot_outside_a_loop(%c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %x = arith.constant dense<1.000000e+00> : tensor<16x16xf16>
  %pid = tt.get_program_id x : i32
  %d = tt.dot %x, %x, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %tile = tt.addptr %c, %pid : !tt.ptr<f32>, i32
  %ptrs = tt.splat %tile : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  tt.store %ptrs, %d : tensor<16x16x!tt.ptr<f32>>
  tt.return
}
