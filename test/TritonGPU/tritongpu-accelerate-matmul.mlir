// RUN: triton-opt %s --split-input-file --tritongpu-accelerate-matmul | FileCheck %s

// An f16 dot accumulating in f32 goes on tensor cores: an mma v2 accumulator with Triton's warps
// per CTA (2x2 for 128x128 over 4 warps), operands in its dot-operand layouts (kWidth 2), and a
// loop-carried accumulator carried in the mma layout (converted once before and once after).
// (sm_80: wgmma is sm_90's.)
// CHECK: #mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-LABEL: tt.func public @loop
// CHECK: %[[INIT:.*]] = ttg.convert_layout %{{.*}} : tensor<128x128xf32, #blocked> -> tensor<128x128xf32, #mma>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<128x128xf32, #mma>)
// CHECK: ttg.convert_layout {{.*}} -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
// CHECK: ttg.convert_layout {{.*}} -> tensor<64x128xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
// CHECK: %[[D:.*]] = tt.dot {{.*}}, %[[ACC]] : {{.*}} -> tensor<128x128xf32, #mma>
// CHECK-NEXT: scf.yield %[[D]] : tensor<128x128xf32, #mma>
// CHECK: ttg.convert_layout %{{.*}} : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked>
// CHECK-NEXT: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @loop(%a: tensor<128x64xf16, #blocked>, %b: tensor<64x128xf16, #blocked>, %n: i32) -> tensor<128x128xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #blocked>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32, #blocked>) : i32 {
      %d = tt.dot %a, %b, %c : tensor<128x64xf16, #blocked> * tensor<64x128xf16, #blocked> -> tensor<128x128xf32, #blocked>
      scf.yield %d : tensor<128x128xf32, #blocked>
    }
    tt.return %acc : tensor<128x128xf32, #blocked>
  }
}

// -----

// fp8 on sm_80 (no fp8 mma.sync): both operands are upcast to f16 (exact) in their own layouts
// and the dot runs on mma v2 as an f16 dot, as Triton runs it.
// CHECK-LABEL: tt.func public @fp8_upcast
// CHECK: %[[A:.*]] = tt.fp_to_fp %{{.*}} : tensor<64x32xf8E4M3FN, #blocked> -> tensor<64x32xf16, #blocked>
// CHECK: %[[B:.*]] = tt.fp_to_fp %{{.*}} : tensor<32x64xf8E5M2, #blocked> -> tensor<32x64xf16, #blocked>
// CHECK: ttg.convert_layout %[[A]] : {{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma{{[0-9]*}}, kWidth = 2}>>
// CHECK: tt.dot {{.*}} -> tensor<64x64xf32, #mma{{[0-9]*}}>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp8_upcast(%a: tensor<64x32xf8E4M3FN, #blocked>, %b: tensor<32x64xf8E5M2, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %d = tt.dot %a, %b, %c : tensor<64x32xf8E4M3FN, #blocked> * tensor<32x64xf8E5M2, #blocked> -> tensor<64x64xf32, #blocked>
    tt.return %d : tensor<64x64xf32, #blocked>
  }
}

// -----

// bf16 too; 8 warps over 64x256 split as Triton splits them (2x4).
// CHECK: #mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>
// CHECK-LABEL: tt.func public @bf16
// CHECK: tt.dot {{.*}} -> tensor<64x256xf32, #mma>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bf16(%a: tensor<64x32xbf16, #blocked>, %b: tensor<32x256xbf16, #blocked>, %c: tensor<64x256xf32, #blocked>) -> tensor<64x256xf32, #blocked> {
    %d = tt.dot %a, %b, %c : tensor<64x32xbf16, #blocked> * tensor<32x256xbf16, #blocked> -> tensor<64x256xf32, #blocked>
    tt.return %d : tensor<64x256xf32, #blocked>
  }
}

// -----

// Dots neither tensor-core path covers stay on CUDA cores: f32 operands at ieee precision
// (the default) and an N that is not a multiple of 8. An f16 accumulator takes wgmma's f16
// form on sm_90.
// CHECK-LABEL: tt.func public @fma
// CHECK: tt.dot {{.*}} -> tensor<64x64xf32, #blocked>
// CHECK: ttng.warp_group_dot {{.*}} -> tensor<64x64xf16, #mma>
// CHECK: tt.dot {{.*}} -> tensor<64x4xf32, #blocked>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fma(%a: tensor<64x32xf32, #blocked>, %b: tensor<32x64xf32, #blocked>, %c: tensor<64x64xf32, #blocked>,
                      %ah: tensor<64x32xf16, #blocked>, %bh: tensor<32x64xf16, #blocked>, %ch: tensor<64x64xf16, #blocked>,
                      %bn: tensor<32x4xf16, #blocked>, %cn: tensor<64x4xf32, #blocked>) {
    %d = tt.dot %a, %b, %c : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %e = tt.dot %ah, %bh, %ch : tensor<64x32xf16, #blocked> * tensor<32x64xf16, #blocked> -> tensor<64x64xf16, #blocked>
    %f = tt.dot %ah, %bn, %cn : tensor<64x32xf16, #blocked> * tensor<32x4xf16, #blocked> -> tensor<64x4xf32, #blocked>
    tt.return
  }
}

// -----

// sm_90: wgmma. A and B come from memory (here: function arguments), so both are staged by
// ttg.local_alloc into #ttg.nvmma_shared buffers, 128-byte swizzled (a 64-element f16 row is
// 128 bytes), K-major A and N-major B as the registers hold them; instrShape [16, 256, 16] and
// warps [8, 1] as Triton picks for 128x256 over 8 warps. The loop carries the accumulator in
// the mma layout.
// CHECK-DAG: #[[MMA:.*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
// CHECK-DAG: #[[SH:.*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// The operands are loop-invariant (defined before the loop): staged once, where they are
// defined (here at the function's entry), not every iteration.
// CHECK-LABEL: tt.func public @wgmma_loop
// CHECK-DAG: %[[A:.*]] = ttg.local_alloc %{{.*}} : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #[[SH]], #smem>
// CHECK-DAG: %[[B:.*]] = ttg.local_alloc %{{.*}} : (tensor<64x256xf16, #blocked>) -> !ttg.memdesc<64x256xf16, #[[SH]], #smem>
// CHECK: scf.for {{.*}} -> (tensor<128x256xf32, #[[MMA]]>)
// CHECK: ttng.warp_group_dot %[[A]], %[[B]], %{{.*}} {inputPrecision = 0 : i32} : !ttg.memdesc<128x64xf16, #[[SH]], #smem> * !ttg.memdesc<64x256xf16, #[[SH]], #smem> -> tensor<128x256xf32, #[[MMA]]>
// CHECK-NOT: tt.dot
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @wgmma_loop(%a: tensor<128x64xf16, #blocked>, %b: tensor<64x256xf16, #blocked>, %n: i32) -> tensor<128x256xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #blocked>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<128x256xf32, #blocked>) : i32 {
      %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<128x64xf16, #blocked> * tensor<64x256xf16, #blocked> -> tensor<128x256xf32, #blocked>
      scf.yield %d : tensor<128x256xf32, #blocked>
    }
    tt.return %acc : tensor<128x256xf32, #blocked>
  }
}

// -----

// tf32 (f32 operands, tf32 precision) and fp8 must be K-major for wgmma: B, held N-contiguous in
// registers, goes to a transposed (K-contiguous) buffer; K per instruction is 8 and 32.
// CHECK-DAG: #[[TF32:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 8]}>
// CHECK-DAG: #[[FP8:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 32]}>
// CHECK-DAG: #[[TSH:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
// CHECK-DAG: #[[FSH:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8}>
// CHECK-LABEL: tt.func public @wgmma_types
// CHECK-DAG: ttg.local_alloc {{.*}} -> !ttg.memdesc<32x128xf32, #[[TSH]], #smem>
// CHECK-DAG: ttg.local_alloc {{.*}} -> !ttg.memdesc<64x128xf8E5M2, #[[FSH]], #smem>
// CHECK: ttng.warp_group_dot {{.*}} -> tensor<128x128xf32, #[[TF32]]>
// CHECK: ttng.warp_group_dot {{.*}} -> tensor<128x128xf32, #[[FP8]]>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @wgmma_types(%a: tensor<128x32xf32, #blocked>, %b: tensor<32x128xf32, #blocked>, %c: tensor<128x128xf32, #blocked>,
                              %a8: tensor<128x64xf8E4M3FN, #blocked>, %b8: tensor<64x128xf8E5M2, #blocked>) {
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<128x32xf32, #blocked> * tensor<32x128xf32, #blocked> -> tensor<128x128xf32, #blocked>
    %e = tt.dot %a8, %b8, %c, inputPrecision = tf32 : tensor<128x64xf8E4M3FN, #blocked> * tensor<64x128xf8E5M2, #blocked> -> tensor<128x128xf32, #blocked>
    tt.return
  }
}

// -----

// A chained dot (attention: the first result feeds the second dot through exp and a cast): the
// first dot's warps all go along M, and the second dot's A, computed in registers, stays there in
// the mma layout's dot-operand layout. M = 32 is not a wgmma tile (M % 64): mma v2.
// CHECK-DAG: #[[M1:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[V2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], instrShape = [16, 8]}>
// CHECK-LABEL: tt.func public @chain
// CHECK: ttng.warp_group_dot {{.*}} -> tensor<128x64xf32, #[[M1]]>
// CHECK: ttg.convert_layout {{.*}} -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #[[M1]], kWidth = 2}>>
// CHECK: ttng.warp_group_dot {{.*}} : tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #[[M1]], kWidth = 2}>> * !ttg.memdesc<64x64xf16
// CHECK: tt.dot {{.*}} -> tensor<32x64xf32, #[[V2]]>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @chain(%q: tensor<128x64xf16, #blocked>, %k: tensor<64x64xf16, #blocked>, %v: tensor<64x64xf16, #blocked>,
                        %z: tensor<128x64xf32, #blocked>, %q32: tensor<32x64xf16, #blocked>, %z32: tensor<32x64xf32, #blocked>) {
    %s = tt.dot %q, %k, %z : tensor<128x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<128x64xf32, #blocked>
    %e = math.exp2 %s : tensor<128x64xf32, #blocked>
    %p = arith.truncf %e : tensor<128x64xf32, #blocked> to tensor<128x64xf16, #blocked>
    %o = tt.dot %p, %v, %z : tensor<128x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<128x64xf32, #blocked>
    %small = tt.dot %q32, %k, %z32 : tensor<32x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<32x64xf32, #blocked>
    tt.return
  }
}

// -----

// A batched (rank-3) f16 dot goes on mma.sync even on sm_90 (wgmma is 2-D only), every warp
// along the batch as Triton picks, instrShape [1, 16, 8].
// CHECK: #[[MMA:.*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1, 1], instrShape = [1, 16, 8]}>
// CHECK-LABEL: tt.func public @batched
// CHECK: tt.dot {{.*}} -> tensor<2x32x32xf32, #[[MMA]]>
#blocked = #ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @batched(%a: tensor<2x32x16xf16, #blocked>, %b: tensor<2x16x32xf16, #blocked>, %c: tensor<2x32x32xf32, #blocked>) -> tensor<2x32x32xf32, #blocked> {
    %d = tt.dot %a, %b, %c : tensor<2x32x16xf16, #blocked> * tensor<2x16x32xf16, #blocked> -> tensor<2x32x32xf32, #blocked>
    tt.return %d : tensor<2x32x32xf32, #blocked>
  }
}

// -----

// A batched matmul's rank-reduced descriptor loads (1x128x64 blocks loaded as 128x64) are
// operands from memory like 2-D ones: A too is staged in the 128-byte swizzled layout the
// descriptor's block has (the TMA buffer's), so wgmma reads it from shared memory. Through a
// tt.reshape of the 3-D load instead, A is computed in registers (a dot operand layout).
// CHECK-DAG: #[[SH:.*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @rank_reduced_operands
// CHECK: %[[A:.*]] = tt.descriptor_load {{.*}} -> tensor<128x64xf16, #blocked>
// CHECK-NEXT: %[[SA:.*]] = ttg.local_alloc %[[A]] : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #[[SH]], #smem>
// CHECK: ttng.warp_group_dot %[[SA]], %{{.*}} : !ttg.memdesc<128x64xf16, #[[SH]], #smem> * !ttg.memdesc<64x256xf16, #[[SH]], #smem>
// CHECK: tt.reshape
// CHECK: ttng.warp_group_dot %{{.*}} : tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #{{.*}}, kWidth = 2}>> * !ttg.memdesc<64x256xf16, #[[SH]], #smem>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 8, 1], order = [2, 1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rank_reduced_operands(%da: !tt.tensordesc<tensor<1x128x64xf16>>, %db: !tt.tensordesc<tensor<1x64x256xf16>>, %z: i32, %k: i32, %c: tensor<128x256xf32, #blocked>) -> (tensor<128x256xf32, #blocked>, tensor<128x256xf32, #blocked>) {
    %c0 = arith.constant 0 : i32
    %a = tt.descriptor_load %da[%z, %c0, %k] : !tt.tensordesc<tensor<1x128x64xf16>> -> tensor<128x64xf16, #blocked>
    %b = tt.descriptor_load %db[%z, %k, %c0] : !tt.tensordesc<tensor<1x64x256xf16>> -> tensor<64x256xf16, #blocked>
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<128x64xf16, #blocked> * tensor<64x256xf16, #blocked> -> tensor<128x256xf32, #blocked>
    %a3 = tt.descriptor_load %da[%z, %c0, %k] : !tt.tensordesc<tensor<1x128x64xf16>> -> tensor<1x128x64xf16, #blocked3>
    %ar = tt.reshape %a3 : tensor<1x128x64xf16, #blocked3> -> tensor<128x64xf16, #blocked>
    %e = tt.dot %ar, %b, %c, inputPrecision = tf32 : tensor<128x64xf16, #blocked> * tensor<64x256xf16, #blocked> -> tensor<128x256xf32, #blocked>
    tt.return %d, %e : tensor<128x256xf32, #blocked>, tensor<128x256xf32, #blocked>
  }
}
