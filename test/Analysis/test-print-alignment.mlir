// RUN: triton-opt %s --test-print-alignment -o /dev/null 2>&1 | FileCheck %s

// The add kernel's offsets: pid * 1024 + [0, 1024), compared with a 16-divisible n.
// CHECK: tt.make_range #0: contiguity = [1024], divisibility = [1073741824], constancy = [1]
// CHECK: tt.splat #0: contiguity = [1], divisibility = [1024], constancy = [1024]
// CHECK: arith.addi #0: contiguity = [1024], divisibility = [1024], constancy = [1]
// CHECK: arith.cmpi #0: contiguity = [1], divisibility = [1], constancy = [16]
// CHECK: tt.addptr #0: contiguity = [1024], divisibility = [16], constancy = [1]
// An unannotated offset proves only 4-byte (element) alignment; a splat is constant.
// CHECK: tt.addptr #0: contiguity = [1], divisibility = [4], constancy = [1024]
tt.func @offsets(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}, %k: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = tt.get_program_id x : i32
  %base = arith.muli %pid, %c1024 : i32
  %range = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %splat = tt.splat %base : i32 -> tensor<1024xi32>
  %offs = arith.addi %splat, %range : tensor<1024xi32>
  %nn = tt.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %nn : tensor<1024xi32>
  %ptrs = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %addr = tt.addptr %ptrs, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %kk = tt.splat %k : i32 -> tensor<1024xi32>
  %other = tt.addptr %ptrs, %kk : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.return
}

// A scalar i1 condition selects a whole tensor: the result has the facts both sides share (its
// condition's rank-1 facts say nothing about the tensors' dims). A constant condition picks a side.
// CHECK: tt.broadcast #0: contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [128, 1]
// CHECK: tt.splat #0: contiguity = [1, 1], divisibility = [16, 16], constancy = [128, 64]
// CHECK: arith.select #0: contiguity = [1, 1], divisibility = [1, 16], constancy = [128, 1]
// CHECK: arith.select #0: contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [128, 1]
tt.func @select(%c: i1, %n: i32 {tt.divisibility = 16 : i32}) {
  %true = arith.constant true
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %row = tt.expand_dims %range {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cols = tt.broadcast %row : tensor<1x64xi32> -> tensor<128x64xi32>
  %nn = tt.splat %n : i32 -> tensor<128x64xi32>
  %either = arith.select %c, %cols, %nn : tensor<128x64xi32>
  %first = arith.select %true, %cols, %nn : tensor<128x64xi32>
  tt.return
}

// A transposition permutes the facts: result dimension d has operand dimension order[d]'s, so a
// transposed row mask stays constant along the transposed rows (stores of tl.trans(x) with
// tl.trans(mask) vectorize). A loop's induction variable divides by gcd(lower bound, step).
// CHECK: tt.broadcast #0: contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 32]
// CHECK: tt.trans #0: contiguity = [1, 1], divisibility = [1, 1], constancy = [32, 1]
// (The base's 16 bytes bound the pointer; an unknown induction variable would leave 4.)
// CHECK: tt.addptr #0: contiguity = [1], divisibility = [16], constancy = [1]
tt.func @trans_and_loop(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %m: i32, %n: i32) {
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %col = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %mm = tt.splat %m : i32 -> tensor<32x1xi32>
  %rows = arith.cmpi slt, %col, %mm : tensor<32x1xi32>
  %mask = tt.broadcast %rows : tensor<32x1xi1> -> tensor<32x32xi1>
  %t = tt.trans %mask {order = array<i32: 1, 0>} : tensor<32x32xi1> -> tensor<32x32xi1>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  scf.for %i = %c0 to %n step %c64 : i32 {
    %q = tt.addptr %p, %i : !tt.ptr<f32>, i32
  }
  tt.return
}

// A column of a contiguous range, expanded: along the new dim each element stands alone, and
// consecutive integers share no divisor, so a causal mask `rows >= cols` (rows broadcast along
// the columns) is not constant over column blocks even with block-aligned columns.
// CHECK: tt.expand_dims #0: contiguity = [64, 1], divisibility = [64, 1], constancy = [1, 1]
// CHECK: arith.cmpi #0: contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1]
tt.func @causal_mask(%start: i32 {tt.divisibility = 64 : i32}) {
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %s = tt.splat %start : i32 -> tensor<64xi32>
  %rows = arith.addi %s, %r : tensor<64xi32>
  %col = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rowb = tt.broadcast %col : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tt.expand_dims %rows {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %colb = tt.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %mask = arith.cmpi sge, %rowb, %colb : tensor<64x64xi32>
  tt.return
}

// tl.multiple_of / tl.max_contiguous hints on the op making a value (here a tl.where's select
// keeping in-range columns, as a persistent matmul writes it) replace the derived facts.
// CHECK: arith.select #0: contiguity = [1], divisibility = [1073741824], constancy = [1]
// CHECK: arith.select #0: contiguity = [256], divisibility = [256], constancy = [1]
tt.func @hints(%n: i32) {
  %c0 = arith.constant dense<0> : tensor<256xi32>
  %range = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %nn = tt.splat %n : i32 -> tensor<256xi32>
  %in = arith.cmpi slt, %range, %nn : tensor<256xi32>
  %plain = arith.select %in, %range, %c0 : tensor<256xi1>, tensor<256xi32>
  %hinted = arith.select %in, %range, %c0 {tt.contiguity = dense<256> : tensor<1xi32>, tt.divisibility = dense<256> : tensor<1xi32>} : tensor<256xi1>, tensor<256xi32>
  tt.return
}

// A hint given to a loop's block argument in its body (`tl.multiple_of(ptrs, [16, 16])` on
// pointers the loop carries, a grouped GEMM's K loop) is on the op making the argument's first
// value, where the loop's join starts from: the argument keeps it through increments by 128
// bytes. The loop's `tt.divisibility_argN` (written too, as Triton's front end does) is not
// read: a pass rebuilding the loop may renumber its arguments. Without the hint on the init,
// the pointer read from memory (divisibility 1) stays unknown.
// CHECK: tt.addptr #0: contiguity = [1, 8], divisibility = [16, 16], constancy = [16, 1]
// CHECK: arith.addi #0: contiguity = [1], divisibility = [1], constancy = [1]
// CHECK: tt.addptr #0: contiguity = [1, 8], divisibility = [1, 1], constancy = [16, 1]
tt.func @loop_argument_hints(%address: i64, %n: i32) {
  %base = tt.int_to_ptr %address : i64 -> !tt.ptr<f16>
  %splat = tt.splat %base : !tt.ptr<f16> -> tensor<16x8x!tt.ptr<f16>>
  %range = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %row = tt.expand_dims %range {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %cols = tt.broadcast %row : tensor<1x8xi32> -> tensor<16x8xi32>
  %init = tt.addptr %splat, %cols {tt.divisibility = dense<16> : tensor<2xi32>} : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
  %plain_init = tt.addptr %splat, %cols : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
  %step = arith.constant dense<64> : tensor<16x8xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %hinted = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %init) -> (tensor<16x8x!tt.ptr<f16>>) : i32 {
    %next = tt.addptr %ptrs, %step : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
    %iv = arith.addi %i, %c0 : i32
    scf.yield %next : tensor<16x8x!tt.ptr<f16>>
  } {tt.divisibility_arg1 = dense<16> : tensor<2xi32>, tt.divisibility_arg0 = dense<32> : tensor<1xi32>}
  %plain = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %plain_init) -> (tensor<16x8x!tt.ptr<f16>>) : i32 {
    %next = tt.addptr %ptrs, %step : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
    scf.yield %next : tensor<16x8x!tt.ptr<f16>>
  } {tt.divisibility_arg1 = dense<16> : tensor<2xi32>}
  tt.return
}
