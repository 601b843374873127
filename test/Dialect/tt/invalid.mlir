// RUN: triton-opt --split-input-file --verify-diagnostics %s
// The Rust verifier rules of every `tt` op (dialects/src/verify/tt*): one failing case per rule.

// ---- tensors ---------------------------------------------------------------------------------

tt.func @dynamic_shape(%x: f32) {
  // expected-error @+1 {{'tt.splat' op requires tensors with static, positive dimensions, but found tensor<?xf32>}}
  %0 = tt.splat %x : f32 -> tensor<?xf32>
  tt.return
}

// -----
tt.func @empty_dimension(%p: !tt.ptr<tensor<0x4xf32>>) {
  // expected-error @+1 {{'tt.load' op requires tensors with static, positive dimensions, but found tensor<0x4xf32>}}
  %0 = tt.load %p : !tt.ptr<tensor<0x4xf32>>
  tt.return
}

// ---- casts -----------------------------------------------------------------------------------

// -----
tt.func @bitcast_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.bitcast' op requires operand and result elements of the same bit width, but f32 has 32 bits and f16 has 16}}
  %0 = tt.bitcast %x : tensor<4xf32> -> tensor<4xf16>
  tt.return
}

// -----
tt.func @bitcast_pointer_to_int(%p: !tt.ptr<f32>) {
  // expected-error @+1 {{'tt.bitcast' op cannot bitcast between pointers and non-pointers}}
  %0 = tt.bitcast %p : !tt.ptr<f32> -> i64
  tt.return
}

// -----
tt.func @bitcast_block_pointer(%p: !tt.ptr<tensor<4xf32>>) {
  // expected-error @+1 {{'tt.bitcast' op cannot bitcast block pointers}}
  %0 = tt.bitcast %p : !tt.ptr<tensor<4xf32>> -> !tt.ptr<tensor<4xi32>>
  tt.return
}

// -----
tt.func @int_to_block_pointer(%i: i64) {
  // expected-error @+1 {{'tt.int_to_ptr' op cannot convert block pointers to or from integers}}
  %0 = tt.int_to_ptr %i : i64 -> !tt.ptr<tensor<4xf32>>
  tt.return
}

// -----
tt.func @fp_to_fp_narrowing_needs_rounding(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.fp_to_fp' op requires a rounding mode to narrow f32 to f8E5M2}}
  %0 = tt.fp_to_fp %x : tensor<4xf32> -> tensor<4xf8E5M2>
  tt.return
}

// -----
tt.func @fp_to_fp_widening_takes_no_rounding(%x: tensor<4xf16>) {
  // expected-error @+1 {{'tt.fp_to_fp' op takes a rounding mode only when it narrows, but f16 to f32 does not narrow}}
  %0 = tt.fp_to_fp %x, rounding = rtne : tensor<4xf16> -> tensor<4xf32>
  tt.return
}

// -----
tt.func @extern_elementwise_symbol(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.extern_elementwise' op requires a non-empty symbol}}
  %0 = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = ""} : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @inline_asm_packing(%x: tensor<4xi8>) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op requires the element count 4 to be a multiple of packed_element 3}}
  %0 = tt.elementwise_inline_asm "" {constraints = "=r,r", packed_element = 3 : i32, pure = true} %x : tensor<4xi8> -> tensor<4xi8>
  tt.return
}

// -----
tt.func @inline_asm_zero_packing(%x: tensor<4xi8>) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op requires packed_element >= 1, but found 0}}
  %0 = tt.elementwise_inline_asm "" {constraints = "=r,r", packed_element = 0 : i32, pure = true} %x : tensor<4xi8> -> tensor<4xi8>
  tt.return
}

// -----
// An operand number the constraints do not declare (LLVM aborts on it: found by tritium-fuzz).
tt.func @inline_asm_operand_number(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op asm_string refers to $255, but the constraints "=r,r" declare 2 operands}}
  %0 = tt.elementwise_inline_asm "add.s32 $0, $1, $255;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<4xi32> -> tensor<4xi32>
  tt.return
}

// -----
// A '$' that is no operand reference (LLVM aborts with "Bad $ operand number": tritium-fuzz).
tt.func @inline_asm_bad_dollar(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op asm_string "add.f32 $-1, $1, $1;" has a '$' that is not $N, ${N} (an operand number) or $$}}
  %0 = tt.elementwise_inline_asm "add.f32 $-1, $1, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<4xf32> -> tensor<4xf32>
  tt.return
}

// -----
tt.func @inline_asm_braced_operand(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tt.elementwise_inline_asm' op asm_string refers to $2, but the constraints "=r,r" declare 2 operands}}
  %0 = tt.elementwise_inline_asm "mov.b32 ${0}, ${2}; // $$" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %x : tensor<4xi32> -> tensor<4xi32>
  tt.return
}

// ---- pointers, loads and stores ---------------------------------------------------------------

// -----
tt.func @addptr_block_pointer(%p: !tt.ptr<tensor<4xf32>>, %i: i32) {
  // expected-error @+1 {{'tt.addptr' op requires the pointer operand to point to scalars}}
  %0 = tt.addptr %p, %i : !tt.ptr<tensor<4xf32>>, i32
  tt.return
}

// -----
tt.func @advance_offsets(%p: !tt.ptr<tensor<4x4xf32>>, %i: i32) {
  // expected-error @+1 {{'tt.advance' op requires 2 offsets (one per block dimension), but found 1}}
  %0 = tt.advance %p, [%i] : <tensor<4x4xf32>>
  tt.return
}

// -----
tt.func @make_tensor_ptr_counts(%p: !tt.ptr<f32>, %n: i64, %i: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op requires 2 shape, stride and offset values (the block rank), but found 1 of each}}
  %0 = tt.make_tensor_ptr %p, [%n], [%n], [%i] {order = array<i32: 0>} : <tensor<4x4xf32>>
  tt.return
}

// -----
tt.func @make_tensor_ptr_order(%p: !tt.ptr<f32>, %n: i64, %i: i32) {
  // expected-error @+1 {{'tt.make_tensor_ptr' op requires order to be a permutation of 0..2, but found [0, 0]}}
  %0 = tt.make_tensor_ptr %p, [%n, %n], [%n, %n], [%i, %i] {order = array<i32: 0, 0>} : <tensor<4x4xf32>>
  tt.return
}

// -----
tt.func @load_boundary_check_needs_block_pointer(%p: tensor<4x!tt.ptr<f32>>) {
  // expected-error @+1 {{'tt.load' op takes boundaryCheck only with a block pointer}}
  %0 = tt.load %p {boundaryCheck = array<i32: 0>} : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----
tt.func @load_padding_needs_block_pointer(%p: tensor<4x!tt.ptr<f32>>) {
  // expected-error @+1 {{'tt.load' op takes padding only with a block pointer}}
  %0 = tt.load %p {padding = 1 : i32} : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----
tt.func @load_boundary_check_range(%p: !tt.ptr<tensor<4x4xf32>>) {
  // expected-error @+1 {{'tt.load' op requires boundaryCheck dimensions in [0, 2), but found 2}}
  %0 = tt.load %p {boundaryCheck = array<i32: 0, 2>} : !tt.ptr<tensor<4x4xf32>>
  tt.return
}

// -----
tt.func @load_boundary_check_repeats(%p: !tt.ptr<tensor<4x4xf32>>) {
  // expected-error @+1 {{'tt.load' op requires distinct boundaryCheck dimensions, but 1 repeats}}
  %0 = tt.load %p {boundaryCheck = array<i32: 1, 1>} : !tt.ptr<tensor<4x4xf32>>
  tt.return
}

// -----
tt.func @load_block_pointer_mask(%p: !tt.ptr<tensor<4xf32>>, %m: tensor<4xi1>) {
  // expected-error @+1 {{'tt.load' op cannot take a mask or `other` with a block pointer; use boundaryCheck and padding}}
  %0 = tt.load %p, %m : !tt.ptr<tensor<4xf32>>
  tt.return
}

// -----
tt.func @store_block_pointer_mask(%p: !tt.ptr<tensor<4xf32>>, %v: tensor<4xf32>, %m: tensor<4xi1>) {
  // expected-error @+1 {{'tt.store' op cannot take a mask with a block pointer; use boundaryCheck}}
  tt.store %p, %v, %m : !tt.ptr<tensor<4xf32>>
  tt.return
}

// -----
tt.func @store_boundary_check_needs_block_pointer(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'tt.store' op takes boundaryCheck only with a block pointer}}
  tt.store %p, %v {boundaryCheck = array<i32: 0>} : tensor<4x!tt.ptr<f32>>
  tt.return
}

// ---- atomics ---------------------------------------------------------------------------------

// -----
tt.func @rmw_fadd_on_integers(%p: tensor<4x!tt.ptr<i32>>, %v: tensor<4xi32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op fadd requires f16, bf16, f32 or f64 elements, but found i32}}
  %0 = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (tensor<4x!tt.ptr<i32>>, tensor<4xi32>) -> tensor<4xi32>
  tt.return
}

// -----
tt.func @rmw_and_on_floats(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op and requires i32 or i64 elements, but found f32}}
  %0 = tt.atomic_rmw and, relaxed, gpu, %p, %v : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @rmw_umax_on_floats(%p: !tt.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tt.atomic_rmw' op umax requires i32 or i64 elements, but found f32}}
  %0 = tt.atomic_rmw umax, relaxed, gpu, %p, %v : (!tt.ptr<f32>, f32) -> f32
  tt.return
}

// -----
tt.func @rmw_add_on_i16(%p: !tt.ptr<i16>, %v: i16) {
  // expected-error @+1 {{'tt.atomic_rmw' op add requires i32 or i64 elements, but found i16}}
  %0 = tt.atomic_rmw add, relaxed, gpu, %p, %v : (!tt.ptr<i16>, i16) -> i16
  tt.return
}

// -----
tt.func @rmw_exch_width(%p: !tt.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'tt.atomic_rmw' op exch requires 32- or 64-bit integer or float elements, but found f16}}
  %0 = tt.atomic_rmw exch, relaxed, gpu, %p, %v : (!tt.ptr<f16>, f16) -> f16
  tt.return
}

// -----
tt.func @rmw_value_type(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xi32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op requires the value elements to be the pointee type f32, but found tensor<4xi32>}}
  %0 = tt.atomic_rmw add, relaxed, gpu, %p, %v : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> tensor<4xi32>
  tt.return
}

// -----
tt.func @rmw_result_type(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'tt.atomic_rmw' op requires the result type tensor<4xf16> to be the value type tensor<4xf32>}}
  %0 = tt.atomic_rmw fadd, relaxed, gpu, %p, %v : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> tensor<4xf16>
  tt.return
}

// -----
tt.func @cas_width(%p: !tt.ptr<i8>, %c: i8, %v: i8) {
  // expected-error @+1 {{'tt.atomic_cas' op requires 16-, 32- or 64-bit integer or float elements, but found i8}}
  %0 = tt.atomic_cas acq_rel, gpu, %p, %c, %v : (!tt.ptr<i8>, i8, i8) -> i8
  tt.return
}

// -----
tt.func @cas_types(%p: !tt.ptr<i32>, %c: f32, %v: i32) {
  // expected-error @+1 {{'tt.atomic_cas' op requires the compare value, value and result to have one type, but found f32, i32 and i32}}
  %0 = tt.atomic_cas acq_rel, gpu, %p, %c, %v : (!tt.ptr<i32>, f32, i32) -> i32
  tt.return
}

// ---- tensor descriptors ----------------------------------------------------------------------

// -----
tt.func @descriptor_counts(%p: !tt.ptr<f32>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tt.make_tensor_descriptor' op requires 2 shape and stride values (the block rank), but found 1 of each}}
  %0 = tt.make_tensor_descriptor %p, [%n], [%s] : <f32>, <tensor<64x64xf32>>
  tt.return
}

// -----
tt.func @descriptor_base(%p: !tt.ptr<f16>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tt.make_tensor_descriptor' op requires the base to point to the block element type f32, but found !tt.ptr<f16>}}
  %0 = tt.make_tensor_descriptor %p, [%n, %n], [%s, %s] : <f16>, <tensor<64x64xf32>>
  tt.return
}

// -----
tt.func @descriptor_nan_padding(%p: !tt.ptr<i32>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tt.make_tensor_descriptor' op takes NaN padding only for float blocks}}
  %0 = tt.make_tensor_descriptor %p, [%n, %n], [%s, %s] {padding = 2 : i32} : <i32>, <tensor<64x64xi32>>
  tt.return
}

// -----
tt.func @descriptor_rank(%p: !tt.ptr<f32>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tt.make_tensor_descriptor' op requires a block of rank 1 to 5, but found rank 6}}
  %0 = tt.make_tensor_descriptor %p, [%n, %n, %n, %n, %n, %n], [%s, %s, %s, %s, %s, %s] : <f32>, <tensor<1x1x1x1x2x64xf32>>
  tt.return
}

// -----
tt.func @descriptor_load_indices(%d: !tt.tensordesc<tensor<64x64xf32>>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_load' op requires 2 indices (the block rank), but found 1}}
  %0 = tt.descriptor_load %d[%i] : !tt.tensordesc<tensor<64x64xf32>> -> tensor<64x64xf32>
  tt.return
}

// -----
tt.func @descriptor_load_shape(%d: !tt.tensordesc<tensor<64x64xf32>>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_load' op requires the result tensor<32x64xf32> to match the descriptor block tensor<64x64xf32>}}
  %0 = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<64x64xf32>> -> tensor<32x64xf32>
  tt.return
}

// -----
tt.func @descriptor_load_rank_reduced_non_unit(%d: !tt.tensordesc<tensor<2x64xf32>>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_load' op requires the result tensor<64xf32> to match the descriptor block tensor<2x64xf32>}}
  %0 = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<2x64xf32>> -> tensor<64xf32>
  tt.return
}

// -----
tt.func @descriptor_store_element(%d: !tt.tensordesc<tensor<64x64xf32>>, %v: tensor<64x64xf16>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_store' op requires the source tensor<64x64xf16> to match the descriptor block tensor<64x64xf32>}}
  tt.descriptor_store %d[%i, %i], %v : !tt.tensordesc<tensor<64x64xf32>>, tensor<64x64xf16>
  tt.return
}

// -----
tt.func @descriptor_reduce_and_on_floats(%d: !tt.tensordesc<tensor<64x64xf32>>, %v: tensor<64x64xf32>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_reduce' op and requires integer elements, but found f32}}
  tt.descriptor_reduce and, %d[%i, %i], %v : !tt.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  tt.return
}

// -----
tt.func @descriptor_reduce_none(%d: !tt.tensordesc<tensor<64x64xf32>>, %v: tensor<64x64xf32>, %i: i32) {
  // expected-error @+1 {{'tt.descriptor_reduce' op requires a reduction kind, but found none}}
  tt.descriptor_reduce none, %d[%i, %i], %v : !tt.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  tt.return
}

// -----
tt.func @descriptor_gather_rows(%d: !tt.tensordesc<tensor<2x64xf32>>, %x: tensor<32xi32>, %y: i32) {
  // expected-error @+1 {{'tt.descriptor_gather' op requires a descriptor block of one row (1xN), but found tensor<2x64xf32>}}
  %0 = tt.descriptor_gather %d[%x, %y] : (!tt.tensordesc<tensor<2x64xf32>>, tensor<32xi32>, i32) -> tensor<32x64xf32>
  tt.return
}

// -----
tt.func @descriptor_gather_result(%d: !tt.tensordesc<tensor<1x64xf32>>, %x: tensor<32xi32>, %y: i32) {
  // expected-error @+1 {{'tt.descriptor_gather' op requires one tensor row per x offset (32), but found tensor<16x64xf32>}}
  %0 = tt.descriptor_gather %d[%x, %y] : (!tt.tensordesc<tensor<1x64xf32>>, tensor<32xi32>, i32) -> tensor<16x64xf32>
  tt.return
}

// -----
tt.func @descriptor_scatter_columns(%d: !tt.tensordesc<tensor<1x64xf32>>, %x: tensor<32xi32>, %y: i32, %v: tensor<32x32xf32>) {
  // expected-error @+1 {{'tt.descriptor_scatter' op requires the tensor to have the block's 64 columns, but found tensor<32x32xf32>}}
  tt.descriptor_scatter %d[%x, %y], %v : !tt.tensordesc<tensor<1x64xf32>>, tensor<32xi32>, i32, tensor<32x32xf32>
  tt.return
}

// ---- shapes ----------------------------------------------------------------------------------

// -----
tt.func @splat_of_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.splat' op requires a scalar operand, but found tensor<4xf32>}}
  %0 = tt.splat %x : tensor<4xf32> -> tensor<4xf32>
  tt.return
}

// -----
tt.func @splat_element(%x: f32) {
  // expected-error @+1 {{'tt.splat' op requires the result element type f16 to be the operand type f32}}
  %0 = tt.splat %x : f32 -> tensor<4xf16>
  tt.return
}

// -----
tt.func @unsplat_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tt.unsplat' op requires a one-element tensor, but found tensor<2xf32>}}
  %0 = tt.unsplat %x : tensor<2xf32> -> f32
  tt.return
}

// -----
tt.func @unsplat_type(%x: tensor<1x1xf32>) {
  // expected-error @+1 {{'tt.unsplat' op requires the result type f16 to be the operand element type f32}}
  %0 = tt.unsplat %x : tensor<1x1xf32> -> f16
  tt.return
}

// -----
tt.func @expand_dims_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.expand_dims' op requires axis in [0, 1], but found 2}}
  %0 = tt.expand_dims %x {axis = 2 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  tt.return
}

// -----
tt.func @expand_dims_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.expand_dims' op requires result shape 1x4, but found tensor<4x1xf32>}}
  %0 = tt.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  tt.return
}

// -----
tt.func @expand_dims_element(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.expand_dims' op requires the result element type i32 to be the operand's f32}}
  %0 = tt.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xi32>
  tt.return
}

// -----
tt.func @reshape_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.reshape' op requires the same number of elements, but tensor<4xf32> has 4 and tensor<2x4xf32> has 8}}
  %0 = tt.reshape %x : tensor<4xf32> -> tensor<2x4xf32>
  tt.return
}

// -----
tt.func @reshape_element(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.reshape' op requires the result element type i32 to be the operand's f32}}
  %0 = tt.reshape %x : tensor<4xf32> -> tensor<2x2xi32>
  tt.return
}

// -----
tt.func @broadcast_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.broadcast' op requires operand and result of the same rank, but found tensor<4xf32> and tensor<4x4xf32>}}
  %0 = tt.broadcast %x : tensor<4xf32> -> tensor<4x4xf32>
  tt.return
}

// -----
tt.func @broadcast_non_unit(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tt.broadcast' op cannot broadcast dimension 0 of size 2 to 8: only size-1 dimensions broadcast}}
  %0 = tt.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>
  tt.return
}

// -----
tt.func @cat_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.cat' op requires result shape 8, but found tensor<16xf32>}}
  %0 = tt.cat %x, %x : tensor<4xf32> -> tensor<16xf32>
  tt.return
}

// -----
tt.func @join_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.join' op requires result shape 4x2, but found tensor<2x4xf32>}}
  %0 = tt.join %x, %x : tensor<4xf32> -> tensor<2x4xf32>
  tt.return
}

// -----
tt.func @split_last_dim(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'tt.split' op requires an operand whose last dimension is 2, but found tensor<4x4xf32>}}
  %0, %1 = tt.split %x : tensor<4x4xf32> -> tensor<4xf32>
  tt.return
}

// -----
tt.func @trans_order(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tt.trans' op requires order to be a permutation of 0..2, but found [1, 1]}}
  %0 = tt.trans %x {order = array<i32: 1, 1>} : tensor<2x4xf32> -> tensor<4x2xf32>
  tt.return
}

// -----
tt.func @trans_order_length(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tt.trans' op requires order to be a permutation of 0..2, but found [0]}}
  %0 = tt.trans %x {order = array<i32: 0>} : tensor<2x4xf32> -> tensor<2x4xf32>
  tt.return
}

// -----
tt.func @trans_shape(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tt.trans' op requires result shape 4x2, but found tensor<2x4xf32>}}
  %0 = tt.trans %x {order = array<i32: 1, 0>} : tensor<2x4xf32> -> tensor<2x4xf32>
  tt.return
}

// -----
tt.func @make_range_power_of_two() {
  // expected-error @+1 {{'tt.make_range' op requires a power-of-two length, but [0, 6) has 6 elements}}
  %0 = tt.make_range {end = 6 : i32, start = 0 : i32} : tensor<6xi32>
  tt.return
}

// -----
tt.func @make_range_empty() {
  // expected-error @+1 {{'tt.make_range' op requires end > start, but found [4, 4)}}
  %0 = tt.make_range {end = 4 : i32, start = 4 : i32} : tensor<1xi32>
  tt.return
}

// -----
tt.func @make_range_negative_start() {
  // expected-error @+1 {{'tt.make_range' op requires start >= 0, but found -4}}
  %0 = tt.make_range {end = 4 : i32, start = -4 : i32} : tensor<8xi32>
  tt.return
}

// -----
tt.func @make_range_shape() {
  // expected-error @+1 {{'tt.make_range' op requires result shape 8 for [0, 8), but found tensor<16xi32>}}
  %0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<16xi32>
  tt.return
}

// -----
tt.func @gather_rank(%x: tensor<4x4xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{'tt.gather' op requires indices of the source's rank, but found tensor<4x4xf32> and tensor<4xi32>}}
  %0 = tt.gather %x[%i] {axis = 0 : i32} : (tensor<4x4xf32>, tensor<4xi32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @gather_axis(%x: tensor<4xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{'tt.gather' op requires axis in [0, 1), but found 1}}
  %0 = tt.gather %x[%i] {axis = 1 : i32} : (tensor<4xf32>, tensor<8xi32>) -> tensor<8xf32>
  tt.return
}

// -----
tt.func @gather_other_dims(%x: tensor<4x4xf32>, %i: tensor<8x2xi32>) {
  // expected-error @+1 {{'tt.gather' op requires indices dimension 1 to match the source (4), but found 2}}
  %0 = tt.gather %x[%i] {axis = 0 : i32} : (tensor<4x4xf32>, tensor<8x2xi32>) -> tensor<8x2xf32>
  tt.return
}

// -----
tt.func @gather_result(%x: tensor<4xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{'tt.gather' op requires the result to have the indices' shape, but found tensor<4xf32>}}
  %0 = tt.gather %x[%i] {axis = 0 : i32} : (tensor<4xf32>, tensor<8xi32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @histogram_rank(%x: tensor<4x4xi32>) {
  // expected-error @+1 {{'tt.histogram' op requires a 1-D operand, but found tensor<4x4xi32>}}
  %0 = tt.histogram %x : tensor<4x4xi32> -> tensor<16xi32>
  tt.return
}

// -----
tt.func @histogram_result_rank(%x: tensor<8xi32>) {
  // expected-error @+1 {{'tt.histogram' op requires a 1-D result, but found tensor<4x4xi32>}}
  %0 = tt.histogram %x : tensor<8xi32> -> tensor<4x4xi32>
  tt.return
}

// -----
tt.func @histogram_mask(%x: tensor<8xi32>, %m: tensor<4xi1>) {
  // expected-error @+1 {{'tt.histogram' op requires operand and mask to have the same shape, but found tensor<8xi32> and tensor<4xi1>}}
  %0 = tt.histogram %x, %m : tensor<8xi32>, tensor<4xi1> -> tensor<16xi32>
  tt.return
}

// ---- dot -------------------------------------------------------------------------------------

// -----
tt.func @dot_rank(%a: tensor<16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op requires a and b of rank 2 (or 3, batched), but found tensor<16xf16> and tensor<16xf16>}}
  %0 = tt.dot %a, %a, %c : tensor<16xf16> * tensor<16xf16> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op requires a's K (32) to equal b's K (16)}}
  %0 = tt.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_accumulator_shape(%a: tensor<16x32xf16>, %b: tensor<32x64xf16>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{'tt.dot' op requires an accumulator of 16x64 (a's M x b's N), but found tensor<16x32xf32>}}
  %0 = tt.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x32xf32>
  tt.return
}

// -----
tt.func @dot_batch(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op requires one batch size, but found 2, 4 and 2}}
  %0 = tt.dot %a, %b, %c : tensor<2x16x16xf16> * tensor<4x16x16xf16> -> tensor<2x16x16xf32>
  tt.return
}

// -----
tt.func @dot_int8_accumulator(%a: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op requires a i32 accumulator for i8 operands, but found f32}}
  %0 = tt.dot %a, %a, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_mixed_halves(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op requires a and b of one element type, but found f16 and bf16}}
  %0 = tt.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_fp8_with_f16(%a: tensor<16x16xf8E4M3FN>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op mixes fp8 only with fp8, but found f8E4M3FN and f16}}
  %0 = tt.dot %a, %b, %c : tensor<16x16xf8E4M3FN> * tensor<16x16xf16> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_bf16_f16_accumulator(%a: tensor<16x16xbf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'tt.dot' op requires a f32 accumulator for bf16 operands, but found f16}}
  %0 = tt.dot %a, %a, %c : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf16>
  tt.return
}

// -----
tt.func @dot_precision(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op takes inputPrecision = tf32x3 only for f32 operands, but found f16}}
  %0 = tt.dot %a, %a, %c, inputPrecision = tf32x3 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_imprecise(%a: tensor<16x16xf8E5M2>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tt.dot' op requires maxNumImpreciseAcc >= 0, but found -1}}
  %0 = tt.dot %a, %a, %c {maxNumImpreciseAcc = -1 : i32} : tensor<16x16xf8E5M2> * tensor<16x16xf8E5M2> -> tensor<16x16xf32>
  tt.return
}

// -----
tt.func @dot_scaled_k(%a: tensor<32x32xi8>, %b: tensor<32x32xi8>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{'tt.dot_scaled' op requires a's K (64) to equal b's K (32)}}
  %0 = tt.dot_scaled %a, %b, %c lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xf32>
  tt.return
}

// -----
tt.func @dot_scaled_format(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{'tt.dot_scaled' op requires bf16 operand #0 to hold bf16, but found tensor<32x32xf16>}}
  %0 = tt.dot_scaled %a, %b, %c lhs = bf16 rhs = fp16 {fastMath = false} : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32>
  tt.return
}

// -----
tt.func @dot_scaled_accumulator(%a: tensor<32x32xf8E4M3FN>, %c: tensor<32x32xf16>) {
  // expected-error @+1 {{'tt.dot_scaled' op requires an f32 accumulator, but found tensor<32x32xf16>}}
  %0 = tt.dot_scaled %a, %a, %c lhs = e4m3 rhs = e4m3 {fastMath = false} : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E4M3FN> -> tensor<32x32xf16>
  tt.return
}

// -----
tt.func @dot_scaled_scale(%a: tensor<32x32xf8E4M3FN>, %s: tensor<16x1xi8>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{'tt.dot_scaled' op requires a_scale of shape 32xG with G dividing K = 32, but found tensor<16x1xi8>}}
  %0 = tt.dot_scaled %a scale %s, %a, %c lhs = e4m3 rhs = e4m3 {fastMath = false} : tensor<32x32xf8E4M3FN>, tensor<16x1xi8> * tensor<32x32xf8E4M3FN> -> tensor<32x32xf32>
  tt.return
}

// ---- reduce, scan, map_elementwise -----------------------------------------------------------

// -----
tt.func @reduce_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.reduce' op requires axis in [0, 1), but found 1}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----
tt.func @reduce_operand_shapes(%x: tensor<4xf32>, %y: tensor<8xi32>) {
  // expected-error @+1 {{'tt.reduce' op requires all operands to have the same shape, but found tensor<4xf32> and tensor<8xi32>}}
  %0:2 = "tt.reduce"(%x, %y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %i: i32, %b: f32, %j: i32):
    tt.reduce.return %a, %i : f32, i32
  }) : (tensor<4xf32>, tensor<8xi32>) -> (f32, i32)
  tt.return
}

// -----
tt.func @reduce_arguments(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.reduce' op requires the combine region to take 2 arguments, but found 1}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32):
    tt.reduce.return %a : f32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----
tt.func @reduce_argument_types(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.reduce' op requires combine region argument #1 to be f32, but found f16}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f16):
    tt.reduce.return %a : f32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----
tt.func @reduce_scalar_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.reduce' op requires result #0 to be the scalar f32, but found tensor<1xf32>}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4xf32>) -> tensor<1xf32>
  tt.return
}

// -----
tt.func @reduce_result_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tt.reduce' op requires result #0 to be a 4xf32 tensor, but found tensor<8xf32>}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4x8xf32>) -> tensor<8xf32>
  tt.return
}

// -----
tt.func @reduce_return(%x: tensor<4xf32>) {
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %i = arith.fptosi %a : f32 to i32
    // expected-error @+1 {{'tt.reduce.return' op requires value #0 to be f32, but found i32}}
    tt.reduce.return %i : i32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----
tt.func @scan_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.scan' op requires axis in [0, 1), but found 3}}
  %0 = "tt.scan"(%x) <{axis = 3 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @scan_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.scan' op requires results of the operands' types}}
  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<4xf32>) -> tensor<4xf16>
  tt.return
}

// -----
tt.func @scan_return_count(%x: tensor<4xf32>) {
  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'tt.scan.return' op requires 1 values (one per combined scalar), but found 2}}
    tt.scan.return %a, %b : f32, f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @map_elementwise_pack(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.map_elementwise' op requires the combine region to take 2 arguments, but found 1}}
  %0 = "tt.map_elementwise"(%x) <{pack = 2 : i32}> ({
  ^bb0(%a: f32):
    tt.map_elementwise.return %a, %a : f32, f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @map_elementwise_divides(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tt.map_elementwise' op requires the element count 4 to be a multiple of pack 8}}
  %0 = "tt.map_elementwise"(%x) <{pack = 8 : i32}> ({
  ^bb0(%a: f32):
    tt.map_elementwise.return %a : f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----
tt.func @map_elementwise_return(%x: tensor<4xf32>) {
  %0 = "tt.map_elementwise"(%x) <{pack = 2 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'tt.map_elementwise.return' op requires 2 values (one per combined scalar), but found 1}}
    tt.map_elementwise.return %a : f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// ---- print, functions ------------------------------------------------------------------------

// -----
tt.func @print_flags(%x: i32, %y: f32) {
  // expected-error @+1 {{'tt.print' op requires one isSigned flag per argument (2), but found 1}}
  tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x, %y : i32, f32
  tt.return
}

// -----
tt.func @print_flag_values(%x: i32) {
  // expected-error @+1 {{'tt.print' op requires isSigned flags of 0 or 1, but found [2]}}
  tt.print " x: " {hex = false, isSigned = array<i32: 2>} : %x : i32
  tt.return
}

// -----
tt.func @return_count(%x: f32) -> f32 {
  // expected-error @+1 {{'tt.return' op returns 0 values, but the function has 1 results}}
  tt.return
}

// -----
tt.func @return_type(%x: f32) -> i32 {
  // expected-error @+1 {{'tt.return' op returns f32 as value #0, but the function result is i32}}
  tt.return %x : f32
}

// ---- encodings (ttg) -------------------------------------------------------------------------

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @broadcast_encoding(%x: tensor<1x32xf32, #blocked>) {
  // expected-error @+1 {{'tt.broadcast' op requires operand and result to have the same encoding}}
  %0 = tt.broadcast %x : tensor<1x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @bitcast_encoding(%x: tensor<32x32xf32, #blocked>) {
  // expected-error @+1 {{'tt.bitcast' op requires operand and result to have the same encoding}}
  %0 = tt.bitcast %x : tensor<32x32xf32, #blocked> -> tensor<32x32xi32>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @addptr_encoding(%p: tensor<32x32x!tt.ptr<f32>, #blocked>, %o: tensor<32x32xi32>) {
  // expected-error @+1 {{'tt.addptr' op requires pointer, offset and result to have the same encoding}}
  %0 = tt.addptr %p, %o : tensor<32x32x!tt.ptr<f32>, #blocked>, tensor<32x32xi32>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @expand_dims_slice_dim(%x: tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
  // expected-error @+1 {{'tt.expand_dims' op requires the encoding of the operand to be #ttg.slice<{dim = 0, parent = }}
  %0 = tt.expand_dims %x {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @expand_dims_drops_encoding(%x: tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
  // expected-error @+1 {{'tt.expand_dims' op requires tensor<32x1xi32> and tensor<32xi32, #ttg.slice<}}
  %0 = tt.expand_dims %x {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @reduce_slice_parent(%x: tensor<32x32xf32, #blocked>) {
  // expected-error @+1 {{'tt.reduce' op requires the encoding of result #0 to be #ttg.slice<{dim = 1, parent = }}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<32x32xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked1}>>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @dot_encoding_presence(%a: tensor<32x32xf16, #blocked>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{'tt.dot' op requires a, b and c to all have encodings or all have none}}
  %0 = tt.dot %a, %a, %c : tensor<32x32xf16, #blocked> * tensor<32x32xf16, #blocked> -> tensor<32x32xf32>
  tt.return
}
}

// -----
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
tt.func @dot_operand_index(%a: tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>>, %b: tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>>, %c: tensor<32x32xf32, #blocked>) {
  // expected-error @+1 {{'tt.dot' op requires operand #0 to have a #ttg.dot_op encoding with opIdx = 0 and parent}}
  %0 = tt.dot %a, %b, %c : tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> * tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> -> tensor<32x32xf32, #blocked>
  tt.return
}
}
