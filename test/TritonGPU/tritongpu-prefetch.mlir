// RUN: triton-opt %s --split-input-file --tritongpu-prefetch | FileCheck %s
// The GPU pattern's kernel (a carried-buffer matmul) lowers to PTX after the pass: the memdescs
// the loop carries travel as base addresses, the first slices as registers.
// RUN: triton-opt %S/../Inputs/gpu/matmul_loop_prefetch.ttgir --tritongpu-prefetch -o %t.ttgir
// RUN: tritium compile %t.ttgir --out-name prefetched -o %t.out && FileCheck %s --check-prefix=PTX < %t.out/prefetched.ptx
// PTX: .entry matmul_loop_prefetch
// PTX: ldmatrix
// PTX: mma.sync.aligned.m16n8k16

// A dot reading both operands from shared buffers the loop carries: the first 16-wide K slice of
// each (f16 operands: 256 bits) is read before the loop and carried, the dot is split in two
// along K (carried slice first, then slice 16 read in the body), and the next iteration's first
// slices are read from the yielded buffers at the end of the body; A's fp8 -> f16 cast follows
// each slice.
// CHECK-LABEL: tt.func @carried_buffers
// CHECK: %[[A0V:.*]] = ttg.memdesc_subslice %[[A0:.*]][0, 0] : !ttg.memdesc<128x32xf8E5M2, #shared, #smem> -> !ttg.memdesc<128x16xf8E5M2, #shared, #smem, 128x32>
// CHECK: %[[A0L:.*]] = ttg.local_load %[[A0V]]
// CHECK: %[[A0C:.*]] = tt.fp_to_fp %[[A0L]] : tensor<128x16xf8E5M2, #{{.*}}> -> tensor<128x16xf16
// CHECK: %[[B0V:.*]] = ttg.memdesc_subslice %[[B0:.*]][0, 0] : !ttg.memdesc<32x128xf16, #shared, #smem> -> !ttg.memdesc<16x128xf16, #shared, #smem, 32x128>
// CHECK: %[[B0L:.*]] = ttg.local_load %[[B0V]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]], %[[ACC:.*]] = %{{.*}}, %[[AP:.*]] = %[[A0C]], %[[BP:.*]] = %[[B0L]])
// CHECK: %[[D0:.*]] = tt.dot %[[AP]], %[[BP]], %[[ACC]] : tensor<128x16xf16
// CHECK: ttg.memdesc_subslice %[[A]][0, 16]
// CHECK: %[[A1:.*]] = tt.fp_to_fp
// CHECK: ttg.memdesc_subslice %[[B]][16, 0]
// CHECK: %[[B1:.*]] = ttg.local_load
// CHECK: %[[D1:.*]] = tt.dot %[[A1]], %[[B1]], %[[D0]]
// CHECK: %[[NA:.*]] = ttg.local_alloc
// CHECK: %[[NB:.*]] = ttg.local_alloc
// CHECK: ttg.memdesc_subslice %[[NA]][0, 0]
// CHECK: %[[NAC:.*]] = tt.fp_to_fp
// CHECK: ttg.memdesc_subslice %[[NB]][0, 0]
// CHECK: %[[NBL:.*]] = ttg.local_load
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[NA]], %[[NB]], %[[D1]], %[[NAC]], %[[NBL]]
#AL = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#BL = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#A = #ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#B = #ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#C = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#A_OP = #ttg.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>
#B_OP = #ttg.dot_op<{opIdx = 1, parent = #C, kWidth = 2}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @carried_buffers(%lb: i32, %ub: i32, %step: i32, %A: !tt.ptr<f8E5M2> {tt.divisibility = 16 : i32}, %B: !tt.ptr<f16> {tt.divisibility = 16 : i32}) -> tensor<128x128xf32, #C> {
    %a_ptr_init = tt.splat %A : !tt.ptr<f8E5M2> -> tensor<128x32x!tt.ptr<f8E5M2>, #AL>
    %b_ptr_init = tt.splat %B : !tt.ptr<f16> -> tensor<32x128x!tt.ptr<f16>, #BL>
    %c_init = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #C>
    %a_off = arith.constant dense<4> : tensor<128x32xi32, #AL>
    %b_off = arith.constant dense<4> : tensor<32x128xi32, #BL>
    %a_ = tt.load %a_ptr_init : tensor<128x32x!tt.ptr<f8E5M2>, #AL>
    %a_init = ttg.local_alloc %a_ : (tensor<128x32xf8E5M2, #AL>) -> !ttg.memdesc<128x32xf8E5M2, #A, #smem>
    %b_ = tt.load %b_ptr_init : tensor<32x128x!tt.ptr<f16>, #BL>
    %b_init = ttg.local_alloc %b_ : (tensor<32x128xf16, #BL>) -> !ttg.memdesc<32x128xf16, #B, #smem>
    %loop:5 = scf.for %iv = %lb to %ub step %step iter_args(%a_ptr = %a_ptr_init, %b_ptr = %b_ptr_init, %a = %a_init, %b = %b_init, %prev_c = %c_init) -> (tensor<128x32x!tt.ptr<f8E5M2>, #AL>, tensor<32x128x!tt.ptr<f16>, #BL>, !ttg.memdesc<128x32xf8E5M2, #A, #smem>, !ttg.memdesc<32x128xf16, #B, #smem>, tensor<128x128xf32, #C>) : i32 {
      %a_op_ = ttg.local_load %a : !ttg.memdesc<128x32xf8E5M2, #A, #smem> -> tensor<128x32xf8E5M2, #A_OP>
      %a_op = tt.fp_to_fp %a_op_ : tensor<128x32xf8E5M2, #A_OP> -> tensor<128x32xf16, #A_OP>
      %b_op = ttg.local_load %b : !ttg.memdesc<32x128xf16, #B, #smem> -> tensor<32x128xf16, #B_OP>
      %c = tt.dot %a_op, %b_op, %prev_c : tensor<128x32xf16, #A_OP> * tensor<32x128xf16, #B_OP> -> tensor<128x128xf32, #C>
      %next_a_ptr = tt.addptr %a_ptr, %a_off : tensor<128x32x!tt.ptr<f8E5M2>, #AL>, tensor<128x32xi32, #AL>
      %next_b_ptr = tt.addptr %b_ptr, %b_off : tensor<32x128x!tt.ptr<f16>, #BL>, tensor<32x128xi32, #BL>
      %next_a_ = tt.load %next_a_ptr : tensor<128x32x!tt.ptr<f8E5M2>, #AL>
      %next_a = ttg.local_alloc %next_a_ : (tensor<128x32xf8E5M2, #AL>) -> !ttg.memdesc<128x32xf8E5M2, #A, #smem>
      %next_b_ = tt.load %next_b_ptr : tensor<32x128x!tt.ptr<f16>, #BL>
      %next_b = ttg.local_alloc %next_b_ : (tensor<32x128xf16, #BL>) -> !ttg.memdesc<32x128xf16, #B, #smem>
      scf.yield %next_a_ptr, %next_b_ptr, %next_a, %next_b, %c : tensor<128x32x!tt.ptr<f8E5M2>, #AL>, tensor<32x128x!tt.ptr<f16>, #BL>, !ttg.memdesc<128x32xf8E5M2, #A, #smem>, !ttg.memdesc<32x128xf16, #B, #smem>, tensor<128x128xf32, #C>
    }
    tt.return %loop#4 : tensor<128x128xf32, #C>
  }
}

// -----

// A loop reading its operands from a ring slot (the pipeliner's output) is left alone.
// CHECK-LABEL: tt.func @ring_slot
// CHECK-NOT: ttg.memdesc_subslice
// CHECK: tt.dot {{.*}} : tensor<64x32xf16
#C = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#S = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @ring_slot(%n: i32) -> tensor<64x64xf32, #C> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #C>
    %ra = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #S, #smem, mutable>
    %rb = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #S, #smem, mutable>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %slot = %c0) -> (tensor<64x64xf32, #C>, i32) : i32 {
      %a = ttg.memdesc_index %ra[%slot] : !ttg.memdesc<3x64x32xf16, #S, #smem, mutable> -> !ttg.memdesc<64x32xf16, #S, #smem, mutable>
      %b = ttg.memdesc_index %rb[%slot] : !ttg.memdesc<3x32x64xf16, #S, #smem, mutable> -> !ttg.memdesc<32x64xf16, #S, #smem, mutable>
      %av = ttg.local_load %a : !ttg.memdesc<64x32xf16, #S, #smem, mutable> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>>
      %bv = ttg.local_load %b : !ttg.memdesc<32x64xf16, #S, #smem, mutable> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #C, kWidth = 2}>>
      %d = tt.dot %av, %bv, %acc : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #C, kWidth = 2}>> -> tensor<64x64xf32, #C>
      %s1 = arith.addi %slot, %c1 : i32
      %w = arith.cmpi slt, %s1, %c3 : i32
      %s2 = arith.select %w, %s1, %c0 : i32
      scf.yield %d, %s2 : tensor<64x64xf32, #C>, i32
    }
    tt.return %r#0 : tensor<64x64xf32, #C>
  }
}
