// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_small.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_small.tritium.ttgir --tritongpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF
// RUN: triton-opt %S/../Inputs/kernels/dot/attn.tritium.ttgir --tritongpu-pipeline=num-stages=3 --canonicalize | FileCheck %s --check-prefix=ATTN
// RUN: triton-opt %S/../Inputs/kernels/dot/dot_scaled_e4m3.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s --check-prefix=SCALED
// RUN: triton-opt %S/../Inputs/kernels/dot/attn_bwd.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s --check-prefix=BWD
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_tf32.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s --check-prefix=TF32
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_w2.tritium.ttgir --tritongpu-pipeline=num-stages=4 | FileCheck %s --check-prefix=MMAV2
// RUN: triton-opt %kernels/dot/loop_stages.tritium.ttgir --tritongpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=LOOPSTAGES
// RUN: triton-opt %kernels/dot/persistent_fused.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s --check-prefix=FUSED
// RUN: triton-opt %s --tritongpu-pipeline=num-stages=3 | FileCheck %s --check-prefix=KEEP

// Tritium's own TTGIR of a 64x64x32 wgmma matmul loop (`-tritium-ttgir`), pipelined 3 deep: a
// ring of 3 buffers per operand and the copies of iterations 0 and 1 before the loop (one commit
// group each). The loop carries the operand pointers of the last iteration issued (i + 1) and
// the slots it reads (from 0) and writes (from 2). In the loop: wait until one group is left in
// flight, the dot reads the read slot asynchronously, its wait leaves this one in flight (so the
// previous iteration's is done with the slot the copies overwrite), then the pointers advance
// and iteration i + 2's copies go into the write slot; both slots advance modulo 3. After the
// loop: drain the copies and the dot.
// CHECK: %[[RA:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>
// CHECK: %[[RB:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #shared1, #smem, mutable>
// CHECK-COUNT-2: ttg.async_commit_group
// CHECK: %[[LOOP:.*]]:5 = scf.for %[[IV:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %[[PA:[^ ]*]] = %{{.*}}, %[[PB:[^ ]*]] = %{{.*}}, %[[READ:[^ ]*]] = %c0_i32{{.*}}, %[[WRITE:[^ ]*]] = %c2_i32{{.*}})
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK: %[[A:.*]] = ttg.memdesc_index %[[RA]][%[[READ]]]
// CHECK: %[[B:.*]] = ttg.memdesc_index %[[RB]][%[[READ]]]
// CHECK-NOT: tt.load {{.*}} : tensor<64x32x!tt.ptr<f16>
// CHECK: %[[DOT:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %[[ACC]] {{.*}}isAsync = true
// CHECK-NEXT: %[[WAITED:.*]] = ttng.warp_group_dot_wait %[[DOT]] {pendings = 1 : i32}
// CHECK: %[[NA:.*]] = tt.addptr %[[PA]],
// CHECK: %[[NB:.*]] = tt.addptr %[[PB]],
// CHECK: ttg.memdesc_index %[[RA]][%[[WRITE]]]
// CHECK: ttg.async_copy_global_to_local %[[NA]], {{.*}} {contiguity = 8 : i32}
// CHECK: ttg.memdesc_index %[[RB]][%[[WRITE]]]
// CHECK: ttg.async_copy_global_to_local %[[NB]],
// CHECK: ttg.async_commit_group
// CHECK: %[[R1:.*]] = arith.addi %[[READ]], %c1_i32
// CHECK: %[[RWRAP:.*]] = arith.cmpi slt, %[[R1]], %c3_i32
// CHECK: %[[RNEXT:.*]] = arith.select %[[RWRAP]], %[[R1]], %c0_i32
// CHECK: scf.yield %[[WAITED]], %[[NA]], %[[NB]], %[[RNEXT]], %{{.*}} :
// CHECK: ttg.async_wait {num = 0 : i32}
// CHECK-NEXT: ttng.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32}
// OFF-NOT: ttg.async_copy_global_to_local

// Tritium's own TTGIR of flash attention's inner loop (QK^T, online softmax, PV; `-tritium-ttgir`
// at num-stages=1), pipelined 3 deep. With two dots, QK^T stays synchronous and PV, whose result
// is only carried, stays in flight into the next iteration: the accumulator is waited for right
// before its first use (after QK^T, whose wait drained it anyway), and the copies for iteration
// i + 2 go after PV, once the previous PV is known done with the slot they overwrite.
// ATTN: scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^ ]*}}, %{{[^ ]*}} = %{{[^ ]*}}, %[[ACC:[^ ]*]] = %{{[^ ]*}}, %[[READ:[^ ]*]] = %c0_i32{{.*}}, %[[WRITE:[^ ]*]] = %c2_i32{{.*}})
// ATTN-NEXT: ttg.async_wait {num = 1 : i32}
// ATTN: %[[QK:.*]] = ttng.warp_group_dot {{.*}} {inputPrecision = 0 : i32} :
// ATTN: %[[WAITED:.*]] = ttng.warp_group_dot_wait %[[ACC]] {pendings = 0 : i32}
// ATTN-NEXT: arith.mulf %[[WAITED]],
// ATTN: %[[PV:.*]] = ttng.warp_group_dot {{.*}} {inputPrecision = 0 : i32, isAsync = true}
// ATTN: ttg.memdesc_index %{{.*}}[%[[WRITE]]]
// ATTN: ttg.async_copy_global_to_local
// ATTN: ttg.async_copy_global_to_local
// ATTN: ttg.async_commit_group
// ATTN: scf.yield %{{[^ ]*}}, %{{[^ ]*}}, %[[PV]],
// ATTN: ttg.async_wait {num = 0 : i32}
// ATTN-NEXT: ttng.warp_group_dot_wait %{{.*}}#2 {pendings = 0 : i32}

// Tritium's own TTGIR of a block-scaled e4m3 matmul (tl.dot_scaled, decomposed: the operands
// are upcast and scaled in registers, then staged for the dot). The operand loads reach the dot
// through register ops, so they are pipelined into plain buffers the loop reads back with
// ttg.local_load; the scale loads (2 bytes a row, below cp.async's 4) stay tt.loads. The dot
// reads a buffer staged every iteration, so it stays synchronous and the copies for iteration
// i + 2 go at the top (the slot they overwrite was read back by iteration i - 1).
// SCALED: ttg.local_alloc : () -> !ttg.memdesc<3x64x64xi8, #shared, #smem, mutable>
// SCALED: ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf8E4M3FN, #shared, #smem, mutable>
// SCALED-COUNT-2: ttg.async_commit_group
// SCALED: scf.for
// SCALED-NEXT: ttg.async_wait {num = 1 : i32}
// SCALED: ttg.async_copy_global_to_local {{.*}} -> <64x64xi8, #shared, #smem, mutable>
// SCALED: ttg.async_copy_global_to_local {{.*}} -> <64x64xf8E4M3FN, #shared, #smem, mutable>
// SCALED: ttg.async_commit_group
// SCALED: ttg.local_load %{{.*}} : !ttg.memdesc<64x64xi8, #shared, #smem, mutable> -> tensor<64x64xi8, #blocked{{[0-9]*}}>
// SCALED: ttg.local_load %{{.*}} : !ttg.memdesc<64x64xf8E4M3FN, #shared, #smem, mutable> -> tensor<64x64xf8E4M3FN, #blocked{{[0-9]*}}>
// SCALED: tt.load %{{.*}} : tensor<64x2x!tt.ptr<i8>
// SCALED-NOT: isAsync
// SCALED: ttng.warp_group_dot
// SCALED-NOT: isAsync
// SCALED: scf.yield
// SCALED: ttg.async_wait {num = 0 : i32}

// The attention backward's dK/dV loop (FlashAttention-2 as Triton's tutorial 06 writes it,
// causal, head dim 64; Tritium's TTGIR before the pipeliner), whose first op is the load of qT:
// the pipeliner replaces that load, and once inserted the ring views in front of it after
// destroying it (a crash). qT and dO are each staged once for two dots, one of which reads the
// transposed view (optimize-dot-operands): the dots read their ring slots directly, nothing is
// read back into registers and staged again; m and delta are read back with local_load.
// BWD: scf.for
// BWD-NEXT: ttg.async_wait {num = 1 : i32}
// BWD: %[[QT:.*]] = ttg.memdesc_index %{{.*}} : !ttg.memdesc<3x64x16xf16, #shared1, #smem, mutable>
// BWD: %[[DO:.*]] = ttg.memdesc_index %{{.*}} : !ttg.memdesc<3x16x64xf16, #shared, #smem, mutable>
// BWD-NOT: ttg.local_alloc
// BWD: ttng.warp_group_dot %{{.*}}, %[[QT]], %{{.*}}
// BWD-NOT: ttg.local_alloc
// BWD: ttng.warp_group_dot %{{.*}}, %[[DO]], %{{.*}}
// BWD-NOT: ttg.local_alloc
// BWD: %[[DOT:.*]] = ttg.memdesc_trans %[[DO]] {order = array<i32: 1, 0>} : !ttg.memdesc<16x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x16xf16, #shared1, #smem, mutable>
// BWD: ttng.warp_group_dot %{{.*}}, %[[DOT]], %{{.*}}
// BWD-NOT: ttg.local_alloc
// BWD: %[[QTT:.*]] = ttg.memdesc_trans %[[QT]] {order = array<i32: 1, 0>}
// BWD: ttng.warp_group_dot %{{.*}}, %[[QTT]], %{{.*}} {inputPrecision = 0 : i32, isAsync = true}
// BWD-NOT: tt.load
// BWD: scf.yield
// BWD: ttg.async_wait {num = 0 : i32}

// A tf32 matmul whose B ([K, N], N contiguous in memory) wgmma reads K-major (32-bit operands
// have no transposed form): B's copies stay 16 bytes wide, into a ring in memory's order swizzled
// by groups of 4 rows; each iteration reads its slot back in 4x4 blocks a thread (8 lanes along
// K) and stores them into its slot of a ring of K-major operand buffers, which the dot reads —
// so the dot stays in flight while the next iteration writes the next buffer. A is staged for
// the dot directly.
// TF32: #blocked2 = #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
// TF32: #shared1 = #ttg.swizzled_shared<{vec = 4, perPhase = 4, maxPhase = 8, order = [1, 0]}>
// TF32: #shared2 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
// TF32: %[[A:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x128x32xf32, #shared, #smem, mutable>
// TF32: %[[B:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x128xf32, #shared1, #smem, mutable>
// TF32: %[[OPS:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x128xf32, #shared2, #smem, mutable>
// TF32: scf.for
// TF32-NOT: tt.load
// TF32: %[[BSLOT:.*]] = ttg.memdesc_index %[[B]][%[[READ:.*]]]
// TF32: %[[OP:.*]] = ttg.memdesc_index %[[OPS]][%[[READ]]]
// TF32: %[[T:.*]] = ttg.local_load %[[BSLOT]] : !ttg.memdesc<32x128xf32, #shared1, #smem, mutable> -> tensor<32x128xf32, #blocked2>
// TF32: ttg.local_store %[[T]], %[[OP]]
// TF32: ttng.warp_group_dot %{{.*}}, %[[OP]], %{{.*}} {inputPrecision = 0 : i32, isAsync = true}
// TF32-NEXT: ttng.warp_group_dot_wait {{.*}}pendings = 1
// TF32: ttg.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} {contiguity = 4 : i32} : tensor<128x32x!tt.ptr<f32>, #blocked> -> <128x32xf32, #shared, #smem, mutable>
// TF32: ttg.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} {contiguity = 4 : i32} : tensor<32x128x!tt.ptr<f32>, #blocked1> -> <32x128xf32, #shared1, #smem, mutable>
// TF32: scf.yield

// Tritium's own TTGIR of tutorial 03's matmul at 2 warps (`-tritium-ttgir` at num-stages=1):
// mma.sync operands staged through ldmatrix-swizzled buffers and read into registers. Pipelined
// 4 deep, a ring needs 3 slots only: once this iteration has read its slot into registers, the
// copies for iteration i + 3 go into that same slot, at the end of the body (after the reads
// and the dot), and one slot index is carried (read = write), as in Triton's pipelined TTGIR.
// MMAV2: #shared = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// MMAV2: %[[RA:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>
// MMAV2: %[[RB:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x32xf16, #shared, #smem, mutable>
// MMAV2-COUNT-3: ttg.async_commit_group
// MMAV2: scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{[^ ]*}}, %{{[^ ]*}} = %{{[^ ]*}}, %{{[^ ]*}} = %{{[^ ]*}}, %[[SLOT:[^ ]*]] = %c0_i32{{[^ ]*}})
// MMAV2-NEXT: ttg.async_wait {num = 2 : i32}
// MMAV2: %[[A:.*]] = ttg.memdesc_index %[[RA]][%[[SLOT]]]
// MMAV2: %[[B:.*]] = ttg.memdesc_index %[[RB]][%[[SLOT]]]
// MMAV2: %[[AR:.*]] = ttg.local_load %[[A]] {{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
// MMAV2: %[[BR:.*]] = ttg.local_load %[[B]] {{.*}} -> tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
// MMAV2: tt.dot %[[AR]], %[[BR]], %[[ACC]]
// MMAV2: ttg.memdesc_index %[[RA]][%[[SLOT]]]
// MMAV2-NEXT: ttg.async_copy_global_to_local
// MMAV2: ttg.memdesc_index %[[RB]][%[[SLOT]]]
// MMAV2-NEXT: ttg.async_copy_global_to_local
// MMAV2-NEXT: ttg.async_commit_group
// MMAV2: %[[NEXT:.*]] = arith.addi %[[SLOT]], %c1_i32
// MMAV2: arith.cmpi slt, %[[NEXT]], %c3_i32
// MMAV2: scf.yield
// MMAV2: ttg.async_wait {num = 0 : i32}

// A loop's tt.num_stages (tl.range(num_stages=...)) overrides the option both ways: with one
// stage by default only the loop asking for four is pipelined (four slots, two groups pending).
// LOOPSTAGES-LABEL: tt.func @matmul
// LOOPSTAGES-NOT: ttg.async_copy_global_to_local
// LOOPSTAGES-LABEL: tt.func @four_stages
// LOOPSTAGES: ttg.local_alloc : () -> !ttg.memdesc<4x64x32xf16
// LOOPSTAGES: ttg.local_alloc : () -> !ttg.memdesc<4x32x64xf16
// LOOPSTAGES: ttg.async_wait {num = 2 : i32}
// LOOPSTAGES: } {tt.num_stages = 4 : i32}
// LOOPSTAGES-LABEL: tt.func @one_stage
// LOOPSTAGES-NOT: ttg.async_copy_global_to_local
// LOOPSTAGES-LABEL: tt.func @unaligned_a
// LOOPSTAGES-NOT: ttg.async_copy_global_to_local

// A fused persistent matmul (tt.flatten nest, inner length speculated): the loads' row and
// column offsets come through the tile prologue's scf.if. Both loads are staged; the prologue
// clones that compute the copies' addresses run only for iterations that exist (their
// condition and-ed with i < total), divisions included; the wgmma stays in flight with a
// pendings = 0 wait inside the epilogue branch before the tile is truncated and stored.
// FUSED-LABEL: tt.func public @persistent_matmul
// FUSED: } else {
// FUSED: %[[TOTAL:.*]] = arith.muli
// FUSED: ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16
// FUSED: ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16
// FUSED: %[[VALID0:.*]] = arith.cmpi slt, %c0_i32, %[[TOTAL]] : i32
// FUSED: %[[GUARD0:.*]] = arith.andi %{{.*}}, %[[VALID0]] : i1
// FUSED: scf.if %[[GUARD0]]
// FUSED:   arith.remsi
// FUSED:   arith.divsi
// FUSED: ttg.async_copy_global_to_local
// FUSED: ttg.async_copy_global_to_local
// FUSED: ttg.async_commit_group
// FUSED: scf.for
// FUSED:   ttg.async_wait {num = 1 : i32}
// FUSED:   scf.if
// FUSED:   %[[DOT:.*]] = ttng.warp_group_dot {{.*}}isAsync = true
// FUSED:   ttng.warp_group_dot_wait %[[DOT]] {pendings = 1 : i32}
// FUSED:   %[[AHEAD_VALID:.*]] = arith.cmpi slt, %{{.*}}, %[[TOTAL]] : i32
// FUSED:   %[[AHEAD_GUARD:.*]] = arith.andi %{{.*}}, %[[AHEAD_VALID]] : i1
// FUSED:   scf.if %[[AHEAD_GUARD]]
// FUSED:   ttg.async_copy_global_to_local
// FUSED:   ttg.async_copy_global_to_local
// FUSED:   ttg.async_commit_group
// FUSED:   scf.if
// FUSED:     %[[DONE:.*]] = ttng.warp_group_dot_wait %[[DOT]] {pendings = 0 : i32}
// FUSED:     arith.truncf %[[DONE]]
// FUSED:     tt.store
// FUSED: ttg.async_wait {num = 0 : i32}
// FUSED: ttng.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}

// Releasing the iter args nothing needs keeps one that only decides whether a branch runs
// (here a guarded store's): the flag still flips every iteration.
// KEEP-LABEL: tt.func public @flag_only_guards_a_store
// KEEP: scf.for {{.*}} iter_args(%[[FLAG:.*]] = %false)
// KEEP:   scf.if %[[FLAG]] {
// KEEP:     tt.store
// KEEP:   %[[NEXT:.*]] = arith.xori %[[FLAG]], %true
// KEEP:   scf.yield %[[NEXT]] : i1
module {
  tt.func public @flag_only_guards_a_store(%out: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%flag = %false) -> (i1) : i32 {
      scf.if %flag {
        %p = tt.addptr %out, %i : !tt.ptr<i32>, i32
        tt.store %p, %i : !tt.ptr<i32>
      }
      %next = arith.xori %flag, %true : i1
      scf.yield %next : i1
    }
    tt.return
  }
}
