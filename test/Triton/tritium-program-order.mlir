// RUN: triton-opt %s --split-input-file --tritium-program-order | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritium-program-order="group-size=8" --tritium-program-order | FileCheck %s --check-prefix=TWICE
// RUN: not triton-opt %s --split-input-file --tritium-program-order="group-size=0" 2>&1 | FileCheck %s --check-prefix=BAD

// A transpose in the store's pointers: the load is contiguous along dim 1 (moved by
// program_id(1)), the store along dim 0 (moved by program_id(0)). Both program ids are read
// through the grouped order, unless the plane has more than 2^32 programs.
// CHECK-LABEL: tt.func public @transpose_ptr
// CHECK-NEXT: %[[X:.*]] = tt.get_program_id x : i32
// CHECK-NEXT: %[[Y:.*]] = tt.get_program_id y : i32
// CHECK-NEXT: %[[NX:.*]] = tt.get_num_programs x : i32
// CHECK-NEXT: %[[NY:.*]] = tt.get_num_programs y : i32
// CHECK-NEXT: %[[NX64:.*]] = arith.extui %[[NX]] : i32 to i64
// CHECK-NEXT: %[[NY64:.*]] = arith.extui %[[NY]] : i32 to i64
// CHECK-NEXT: %[[PLANE:.*]] = arith.muli %[[NX64]], %[[NY64]] : i64
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 4294967295 : i64
// CHECK-NEXT: %[[FITS:.*]] = arith.cmpi ule, %[[PLANE]], %[[LIMIT]] : i64
// CHECK-NEXT: %[[G:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[YNX:.*]] = arith.muli %[[Y]], %[[NX]] : i32
// CHECK-NEXT: %[[L:.*]] = arith.addi %[[YNX]], %[[X]] : i32
// CHECK-NEXT: %[[W:.*]] = arith.muli %[[G]], %[[NY]] : i32
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %[[L]], %[[W]] : i32
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[L]], %[[W]] : i32
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[G]] : i32
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[NX]], %[[FIRST]] : i32
// CHECK-NEXT: %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[G]] : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.remui %[[IN]], %[[SIZE]] : i32
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[OFF]] : i32
// CHECK-NEXT: %[[COL:.*]] = arith.divui %[[IN]], %[[SIZE]] : i32
// CHECK-NEXT: %[[PID0:.*]] = arith.select %[[FITS]], %[[ROW]], %[[X]] : i32
// CHECK-NEXT: %[[PID1:.*]] = arith.select %[[FITS]], %[[COL]], %[[Y]] : i32
// CHECK-NOT: tt.get_program_id
// CHECK: arith.muli %[[PID0]], %{{.*}} : i32
// CHECK-NOT: tt.get_program_id
// CHECK: arith.muli %[[PID1]], %{{.*}} : i32
// CHECK-NOT: tt.get_program_id
// CHECK: tt.store
// Run again (first with 8 rows a group), the kernel keeps the first renumbering: it now reads
// tt.get_num_programs.
// TWICE-LABEL: tt.func public @transpose_ptr
// TWICE: arith.constant 8 : i32
// TWICE-NOT: arith.constant 32 : i32
// TWICE-COUNT-2: tt.get_program_id
// TWICE-NOT: tt.get_program_id
// TWICE: tt.return
// BAD: error: tritium-program-order: group-size must be 1 to 4096, got 0
tt.func public @transpose_ptr(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %sx: i32 {tt.divisibility = 16 : i32}, %sy: i32 {tt.divisibility = 16 : i32}) {
  %c64 = arith.constant 64 : i32
  %pm = tt.get_program_id x : i32
  %om = arith.muli %pm, %c64 : i32
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %om_s = tt.splat %om : i32 -> tensor<64xi32>
  %rm = arith.addi %om_s, %range : tensor<64xi32>
  %pn = tt.get_program_id y : i32
  %on = arith.muli %pn, %c64 : i32
  %on_s = tt.splat %on : i32 -> tensor<64xi32>
  %rn = arith.addi %on_s, %range : tensor<64xi32>
  %rm_col = tt.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rn_row = tt.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %sx_s = tt.splat %sx : i32 -> tensor<64x1xi32>
  %xrows = arith.muli %rm_col, %sx_s : tensor<64x1xi32>
  %xbase = tt.splat %x : !tt.ptr<bf16> -> tensor<64x1x!tt.ptr<bf16>>
  %xr = tt.addptr %xbase, %xrows : tensor<64x1x!tt.ptr<bf16>>, tensor<64x1xi32>
  %xrb = tt.broadcast %xr : tensor<64x1x!tt.ptr<bf16>> -> tensor<64x64x!tt.ptr<bf16>>
  %xcols = tt.broadcast %rn_row : tensor<1x64xi32> -> tensor<64x64xi32>
  %xptrs = tt.addptr %xrb, %xcols : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
  %v = tt.load %xptrs : tensor<64x64x!tt.ptr<bf16>>
  %sy_s = tt.splat %sy : i32 -> tensor<1x64xi32>
  %yrows = arith.muli %rn_row, %sy_s : tensor<1x64xi32>
  %ybase = tt.splat %y : !tt.ptr<bf16> -> tensor<1x64x!tt.ptr<bf16>>
  %yr = tt.addptr %ybase, %yrows : tensor<1x64x!tt.ptr<bf16>>, tensor<1x64xi32>
  %yrb = tt.broadcast %yr : tensor<1x64x!tt.ptr<bf16>> -> tensor<64x64x!tt.ptr<bf16>>
  %ycols = tt.broadcast %rm_col : tensor<64x1xi32> -> tensor<64x64xi32>
  %yptrs = tt.addptr %yrb, %ycols : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
  tt.store %yptrs, %v : tensor<64x64x!tt.ptr<bf16>>
  tt.return
}

// -----

// A transpose of the value (tl.trans): the store's pointers are contiguous along dim 1, which
// program_id(0) moves; rewritten.
// CHECK-LABEL: tt.func public @transpose_value
// CHECK: arith.minui
// CHECK: tt.trans
tt.func public @transpose_value(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %sx: i32 {tt.divisibility = 16 : i32}, %sy: i32 {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant 32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %pm = tt.get_program_id x : i32
  %om = arith.muli %pm, %c32 : i32
  %om_s = tt.splat %om : i32 -> tensor<32xi32>
  %rm = arith.addi %om_s, %range : tensor<32xi32>
  %pn = tt.get_program_id y : i32
  %on = arith.muli %pn, %c32 : i32
  %on_s = tt.splat %on : i32 -> tensor<32xi32>
  %rn = arith.addi %on_s, %range : tensor<32xi32>
  %rm_col = tt.expand_dims %rm {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rn_row = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %sx_s = tt.splat %sx : i32 -> tensor<32x1xi32>
  %xrows = arith.muli %rm_col, %sx_s : tensor<32x1xi32>
  %xrb = tt.broadcast %xrows : tensor<32x1xi32> -> tensor<32x32xi32>
  %xcols = tt.broadcast %rn_row : tensor<1x32xi32> -> tensor<32x32xi32>
  %xoffs = arith.addi %xrb, %xcols : tensor<32x32xi32>
  %xbase = tt.splat %x : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %xptrs = tt.addptr %xbase, %xoffs : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  %v = tt.load %xptrs : tensor<32x32x!tt.ptr<f32>>
  %vt = tt.trans %v {order = array<i32: 1, 0>} : tensor<32x32xf32> -> tensor<32x32xf32>
  %rn_col = tt.expand_dims %rn {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rm_row = tt.expand_dims %rm {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %sy_s = tt.splat %sy : i32 -> tensor<32x1xi32>
  %yrows = arith.muli %rn_col, %sy_s : tensor<32x1xi32>
  %yrb = tt.broadcast %yrows : tensor<32x1xi32> -> tensor<32x32xi32>
  %ycols = tt.broadcast %rm_row : tensor<1x32xi32> -> tensor<32x32xi32>
  %yoffs = arith.addi %yrb, %ycols : tensor<32x32xi32>
  %ybase = tt.splat %y : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %yptrs = tt.addptr %ybase, %yoffs : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %yptrs, %vt : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// -----

// Left alone: a 2-D copy (both accesses contiguous along dim 1, which program_id(1) moves), a
// 1-D grid, a kernel that reads tt.get_num_programs (it orders its programs itself), one with
// an atomic.
// CHECK-LABEL: tt.func public @copy_2d
// CHECK-NOT: arith.minui
// CHECK: tt.return
tt.func public @copy_2d(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %sx: i32 {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant 32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %pm = tt.get_program_id x : i32
  %om = arith.muli %pm, %c32 : i32
  %om_s = tt.splat %om : i32 -> tensor<32xi32>
  %rm = arith.addi %om_s, %range : tensor<32xi32>
  %pn = tt.get_program_id y : i32
  %on = arith.muli %pn, %c32 : i32
  %on_s = tt.splat %on : i32 -> tensor<32xi32>
  %rn = arith.addi %on_s, %range : tensor<32xi32>
  %rm_col = tt.expand_dims %rm {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rn_row = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %sx_s = tt.splat %sx : i32 -> tensor<32x1xi32>
  %rows = arith.muli %rm_col, %sx_s : tensor<32x1xi32>
  %rb = tt.broadcast %rows : tensor<32x1xi32> -> tensor<32x32xi32>
  %cb = tt.broadcast %rn_row : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rb, %cb : tensor<32x32xi32>
  %xbase = tt.splat %x : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %xptrs = tt.addptr %xbase, %offs : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  %v = tt.load %xptrs : tensor<32x32x!tt.ptr<f32>>
  %ybase = tt.splat %y : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %yptrs = tt.addptr %ybase, %offs : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %yptrs, %v : tensor<32x32x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: tt.func public @rows_1d
// CHECK-NOT: arith.minui
// CHECK: tt.return
tt.func public @rows_1d(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c128 = arith.constant 128 : i32
  %pid = tt.get_program_id x : i32
  %off = arith.muli %pid, %c128 : i32
  %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %off_s = tt.splat %off : i32 -> tensor<128xi32>
  %offs = arith.addi %off_s, %range : tensor<128xi32>
  %xbase = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %xptrs = tt.addptr %xbase, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %v = tt.load %xptrs : tensor<128x!tt.ptr<f32>>
  %ybase = tt.splat %y : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %yptrs = tt.addptr %ybase, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %yptrs, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}

// CHECK-LABEL: tt.func public @orders_itself
// CHECK-NOT: arith.minui
// CHECK: tt.return
tt.func public @orders_itself(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %sx: i32 {tt.divisibility = 16 : i32}, %sy: i32 {tt.divisibility = 16 : i32}) {
  %c32 = arith.constant 32 : i32
  %range = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %pm0 = tt.get_program_id x : i32
  %n = tt.get_num_programs x : i32
  %pm = arith.remui %pm0, %n : i32
  %om = arith.muli %pm, %c32 : i32
  %om_s = tt.splat %om : i32 -> tensor<32xi32>
  %rm = arith.addi %om_s, %range : tensor<32xi32>
  %pn = tt.get_program_id y : i32
  %on = arith.muli %pn, %c32 : i32
  %on_s = tt.splat %on : i32 -> tensor<32xi32>
  %rn = arith.addi %on_s, %range : tensor<32xi32>
  %rm_col = tt.expand_dims %rm {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rn_row = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %sx_s = tt.splat %sx : i32 -> tensor<32x1xi32>
  %xrows = arith.muli %rm_col, %sx_s : tensor<32x1xi32>
  %xrb = tt.broadcast %xrows : tensor<32x1xi32> -> tensor<32x32xi32>
  %xcols = tt.broadcast %rn_row : tensor<1x32xi32> -> tensor<32x32xi32>
  %xoffs = arith.addi %xrb, %xcols : tensor<32x32xi32>
  %xbase = tt.splat %x : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %xptrs = tt.addptr %xbase, %xoffs : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  %v = tt.load %xptrs : tensor<32x32x!tt.ptr<f32>>
  %sy_s = tt.splat %sy : i32 -> tensor<1x32xi32>
  %yrows = arith.muli %rn_row, %sy_s : tensor<1x32xi32>
  %yrb = tt.broadcast %yrows : tensor<1x32xi32> -> tensor<32x32xi32>
  %ycols = tt.broadcast %rm_col : tensor<32x1xi32> -> tensor<32x32xi32>
  %yoffs = arith.addi %yrb, %ycols : tensor<32x32xi32>
  %ybase = tt.splat %y : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
  %yptrs = tt.addptr %ybase, %yoffs : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
  tt.store %yptrs, %v : tensor<32x32x!tt.ptr<f32>>
  tt.return
}
