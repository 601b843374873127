// RUN: triton-opt %s --split-input-file --tritium-llvm --verify-diagnostics

// A TMA copy needs a buffer in the layout its boxes fill: an unswizzled one is a located
// error.
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared2 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @unswizzled(%d: !tt.tensordesc<tensor<128x64xf16, #shared>>, %d_0: i32, %d_1: i32, %d_2: i64, %d_3: i64) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared1, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared2, #smem, mutable>
    // expected-error @+1 {{a TMA block needs a #ttg.nvmma_shared layout}}
    ttng.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %bar, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared2, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared1, #smem, mutable>
    tt.return
  }
}

// -----

// A buffer of the block's elements that is not the block without leading unit dims (a 2x64x64
// block into a 128x64 buffer) is a located error.
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared2 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @not_rank_reduced(%d: !tt.tensordesc<tensor<2x64x64xf16, #shared>>, %i: i32) {
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared2, #smem, mutable>
    // expected-error @+1 {{the TMA buffer's shape [128, 64] is not the descriptor's block [2, 64, 64] (nor the block without leading unit dims)}}
    ttng.async_tma_copy_global_to_local %d[%i, %i, %i] %buf, %bar, %true : !tt.tensordesc<tensor<2x64x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared2, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
