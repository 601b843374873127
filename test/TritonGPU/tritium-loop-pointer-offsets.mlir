// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_small.tritium.ttgir --tritongpu-pipeline=num-stages=3 --canonicalize --tritium-loop-pointer-offsets --canonicalize | FileCheck %s
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_small.tritium.ttgir --tritium-loop-pointer-offsets | FileCheck %s --check-prefix=LOADS
// RUN: triton-opt %s --split-input-file --tritium-loop-pointer-offsets | FileCheck %s --check-prefix=MANY

// A pipelined matmul's operand pointers (64x32 and 32x64 f16 tiles, two 16-byte vectors a
// thread) advance by a constant (A, 32 elements) and by a splat of stride * 32 (B): both loop
// as i64 offsets from 0, the copies read the loop-invariant initial pointers plus the next
// offset (through an opaque move), and the pointer iter args are gone.
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c0_i32, %{{.*}} = %c2_i32, %[[OA:.*]] = %c0_i64, %[[OB:.*]] = %c0_i64) -> (tensor<64x64xf32, #mma>, i32, i32, i64, i64)
// CHECK: %[[NA:.*]] = arith.addi %[[OA]], %c32_i64 : i64
// CHECK-NEXT: %[[MA:.*]] = tt.elementwise_inline_asm "mov.b64 $0, $1;" {constraints = "=l,l", packed_element = 1 : i32, pure = true} %[[NA]] : i64 -> i64
// CHECK-NEXT: %[[SA:.*]] = tt.splat %[[MA]] : i64 -> tensor<64x32xi64, #blocked>
// CHECK-NEXT: %[[PA:.*]] = tt.addptr %{{.*}}, %[[SA]] : tensor<64x32x!tt.ptr<f16>, #blocked>, tensor<64x32xi64, #blocked>
// CHECK: %[[STEP:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK-NEXT: %[[NB:.*]] = arith.addi %[[OB]], %[[STEP]] : i64
// CHECK: %[[PB:.*]] = tt.addptr %{{.*}}, %{{.*}} : tensor<32x64x!tt.ptr<f16>, #blocked1>, tensor<32x64xi64, #blocked1>
// CHECK: ttg.async_copy_global_to_local %[[PA]]
// CHECK: ttg.async_copy_global_to_local %[[PB]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[NA]], %[[NB]] : tensor<64x64xf32, #mma>, i32, i32, i64, i64

// Not pipelined, the loop's pointers feed tt.loads, which are vectorized from the addresses'
// divisibility (which an opaque offset would hide): left alone.
// LOADS: scf.for
// LOADS-NOT: tt.elementwise_inline_asm
// LOADS: tt.load
// LOADS-NOT: tt.elementwise_inline_asm
// LOADS: scf.yield

// -----

// Copies of unvectorized pointers (32 addresses a thread) keep their induction variables: as
// loop-invariant bases each they would be live beside the per-iteration sums.
// MANY-LABEL: tt.func public @many
// MANY-NOT: tt.elementwise_inline_asm
// MANY: scf.yield %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f16>, #blocked>, i32
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @many(%p: tensor<64x64x!tt.ptr<f16>, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<64> : tensor<64x64xi32, #blocked>
    %ring = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %p, %k = %c0) -> (tensor<64x64x!tt.ptr<f16>, #blocked>, i32) : i32 {
      %next = tt.addptr %ptrs, %step : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
      %copy = ttg.async_copy_global_to_local %next, %ring : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #shared, #smem, mutable>
      %k1 = arith.addi %k, %c1 : i32
      scf.yield %next, %k1 : tensor<64x64x!tt.ptr<f16>, #blocked>, i32
    }
    tt.return
  }
}

// -----

// A block pointer's copy (attention's V tile, 64x128 f16, rows moving 64 per iteration):
// `(splat(row) + range) * splat(stride) + cols` splits into the loop-invariant
// `range * stride + cols`, added to the base once before the loop, and the uniform
// `row * stride`, added each iteration through an opaque move.
// MANY-LABEL: tt.func @block_pointer_rows
// MANY: %[[INV:.*]] = tt.addptr %{{.*}}, %{{.*}} : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi64, #blocked>
// MANY-NEXT: scf.for %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}})
// MANY: %[[NEXT:.*]] = arith.addi %[[ROW]], %c64_i64
// MANY: %[[S:.*]] = arith.muli %[[NEXT]], %{{.*}} : i64
// MANY-NEXT: %[[M:.*]] = tt.elementwise_inline_asm "mov.b64 $0, $1;" {{.*}} %[[S]] : i64 -> i64
// MANY-NEXT: %[[SP:.*]] = tt.splat %[[M]] : i64 -> tensor<64x128xi64, #blocked>
// MANY-NEXT: %[[P:.*]] = tt.addptr %[[INV]], %[[SP]]
// MANY-NEXT: ttg.async_copy_global_to_local %[[P]],
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @block_pointer_rows(%base: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %stride: i64, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c0_i64 = arith.constant 0 : i64
    %c64_i64 = arith.constant 64 : i64
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %rows64 = arith.extsi %rows : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> to tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>>
    %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %cols64 = arith.extsi %cols : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>> to tensor<128xi64, #ttg.slice<{dim = 0, parent = #blocked}>>
    %cols2 = tt.expand_dims %cols64 {axis = 0 : i32} : tensor<128xi64, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x128xi64, #blocked>
    %colsb = tt.broadcast %cols2 : tensor<1x128xi64, #blocked> -> tensor<64x128xi64, #blocked>
    %strides = tt.splat %stride : i64 -> tensor<64x1xi64, #blocked>
    %bases = tt.splat %base : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>, #blocked>
    %end = scf.for %i = %c0 to %n step %c1 iter_args(%row = %c0_i64) -> (i64) : i32 {
      %next = arith.addi %row, %c64_i64 : i64
      %rs = tt.splat %next : i64 -> tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>>
      %r = arith.addi %rs, %rows64 : tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>>
      %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi64, #blocked>
      %rk = arith.muli %r2, %strides : tensor<64x1xi64, #blocked>
      %rb = tt.broadcast %rk : tensor<64x1xi64, #blocked> -> tensor<64x128xi64, #blocked>
      %off = arith.addi %rb, %colsb : tensor<64x128xi64, #blocked>
      %ptrs = tt.addptr %bases, %off : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi64, #blocked>
      %tok = ttg.async_copy_global_to_local %ptrs, %buf {contiguity = 8 : i32} : tensor<64x128x!tt.ptr<f16>, #blocked> -> <64x128xf16, #shared, #smem, mutable>
      scf.yield %next : i64
    }
    tt.return
  }
}

// -----

// Two such tiles beside attention's dots at 128-row tiles (scores 128x64, accumulator 128x128:
// 192 registers a thread): 16 more addresses as loop-invariant bases would crowd the register
// file (on the H200 the kernel spilled and ran 1.46x slower), so their addresses stay
// recomputed (LLVM chains a thread's rows, one add each).
// MANY-LABEL: tt.func @two_block_pointer_tiles_beside_dots
// MANY-NOT: tt.elementwise_inline_asm
// MANY: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @two_block_pointer_tiles_beside_dots(%base: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %base2: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %stride: i64, %n: i32,
      %q: tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %k: tensor<128x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>,
      %p: tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %v: tensor<64x128xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c0_i64 = arith.constant 0 : i64
    %c64_i64 = arith.constant 64 : i64
    %zeros = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    %acc0 = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    %buf2 = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %rows64 = arith.extsi %rows : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> to tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>>
    %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %cols64 = arith.extsi %cols : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>> to tensor<128xi64, #ttg.slice<{dim = 0, parent = #blocked}>>
    %cols2 = tt.expand_dims %cols64 {axis = 0 : i32} : tensor<128xi64, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x128xi64, #blocked>
    %colsb = tt.broadcast %cols2 : tensor<1x128xi64, #blocked> -> tensor<64x128xi64, #blocked>
    %strides = tt.splat %stride : i64 -> tensor<64x1xi64, #blocked>
    %bases = tt.splat %base : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>, #blocked>
    %bases2 = tt.splat %base2 : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>, #blocked>
    %end:2 = scf.for %i = %c0 to %n step %c1 iter_args(%row = %c0_i64, %acc = %acc0) -> (i64, tensor<128x128xf32, #mma>) : i32 {
      %next = arith.addi %row, %c64_i64 : i64
      %rs = tt.splat %next : i64 -> tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>>
      %r = arith.addi %rs, %rows64 : tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>>
      %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi64, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi64, #blocked>
      %rk = arith.muli %r2, %strides : tensor<64x1xi64, #blocked>
      %rb = tt.broadcast %rk : tensor<64x1xi64, #blocked> -> tensor<64x128xi64, #blocked>
      %off = arith.addi %rb, %colsb : tensor<64x128xi64, #blocked>
      %ptrs = tt.addptr %bases, %off : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi64, #blocked>
      %tok = ttg.async_copy_global_to_local %ptrs, %buf {contiguity = 8 : i32} : tensor<64x128x!tt.ptr<f16>, #blocked> -> <64x128xf16, #shared, #smem, mutable>
      %ptrs2 = tt.addptr %bases2, %off : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi64, #blocked>
      %tok2 = ttg.async_copy_global_to_local %ptrs2, %buf2 {contiguity = 8 : i32} : tensor<64x128x!tt.ptr<f16>, #blocked> -> <64x128xf16, #shared, #smem, mutable>
      %scores = tt.dot %q, %k, %zeros : tensor<128x128xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<128x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<128x64xf32, #mma>
      %acc1 = tt.dot %p, %v, %acc : tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<64x128xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<128x128xf32, #mma>
      scf.yield %next, %acc1 : i64, tensor<128x128xf32, #mma>
    }
    tt.return
  }
}

// -----

// Tutorial 11's B operand: i32 offsets, the moving K rows in the row pointers' base
// (`broadcast(addptr(splat(%b), (splat(k) + range) * stride)) + cols`). The pointers split into
// the loop-invariant `broadcast(addptr(splat(%b), range * stride)) + cols`, built before the
// loop, and the uniform `k * stride`, sign-extended as `tt.addptr` extends i32 offsets and added
// each iteration through an opaque move (recomputed per-row products ran 1.05x Triton's time).
// MANY-LABEL: tt.func @moving_row_base_i32
// MANY: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : tensor<64x1xi32, #blocked>
// MANY-NEXT: %[[ROWP:.*]] = tt.addptr %{{.*}}, %[[ROWS]] : tensor<64x1x!tt.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
// MANY-NEXT: %[[B:.*]] = tt.broadcast %[[ROWP]]
// MANY-NEXT: %[[INV:.*]] = tt.addptr %[[B]], %{{.*}} : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi32, #blocked>
// MANY-NEXT: scf.for %[[I:.*]] = {{.*}} : i32 {
// MANY: %[[K:.*]] = arith.muli %[[I]], %c64_i32 : i32
// MANY: %[[KS:.*]] = arith.muli %[[K]], %{{.*}} : i32
// MANY-NEXT: %[[KS64:.*]] = arith.extsi %[[KS]] : i32 to i64
// MANY-NEXT: %[[M:.*]] = tt.elementwise_inline_asm "mov.b64 $0, $1;" {{.*}} %[[KS64]] : i64 -> i64
// MANY-NEXT: %[[SP:.*]] = tt.splat %[[M]] : i64 -> tensor<64x128xi64, #blocked>
// MANY-NEXT: %[[P:.*]] = tt.addptr %[[INV]], %[[SP]]
// MANY-NEXT: ttg.async_copy_global_to_local %[[P]],
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @moving_row_base_i32(%b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x128xi32, #blocked>
    %colsb = tt.broadcast %cols2 : tensor<1x128xi32, #blocked> -> tensor<64x128xi32, #blocked>
    %strides = tt.splat %stride : i32 -> tensor<64x1xi32, #blocked>
    %bases = tt.splat %b : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %k = arith.muli %i, %c64 : i32
      %ks = tt.splat %k : i32 -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %r = arith.addi %ks, %rows : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
      %rk = arith.muli %r2, %strides : tensor<64x1xi32, #blocked>
      %rowp = tt.addptr %bases, %rk : tensor<64x1x!tt.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
      %rowpb = tt.broadcast %rowp : tensor<64x1x!tt.ptr<f16>, #blocked> -> tensor<64x128x!tt.ptr<f16>, #blocked>
      %ptrs = tt.addptr %rowpb, %colsb : tensor<64x128x!tt.ptr<f16>, #blocked>, tensor<64x128xi32, #blocked>
      %tok = ttg.async_copy_global_to_local %ptrs, %buf {contiguity = 8 : i32} : tensor<64x128x!tt.ptr<f16>, #blocked> -> <64x128xf16, #shared, #smem, mutable>
    }
    tt.return
  }
}
