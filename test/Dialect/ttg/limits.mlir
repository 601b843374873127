// RUN: triton-opt %s --split-input-file --verify-diagnostics
// RUN: not triton-opt %s --split-input-file --tritium-llvm 2>&1 | FileCheck %s

// Layouts have size limits (tritium_layout::MAX_DIM_BITS, MAX_REGISTER_BITS): at most 2^24
// elements along a dim or a blocked tile's dim, at most 2^16 registers per thread. Beyond them
// the type is an error where it is used (in milliseconds, not minutes and gigabytes in the
// lowering, nor a panic in the layout crate).

// sizePerThread * threadsPerWarp * warpsPerCTA = 2^26 * 32 * 4 = 2^33.
// CHECK: error: 'tt.make_range' op {{.*}} has a CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA) of 8589934592 elements along dim 0; layouts support at most 2^24
#blocked = #ttg.blocked<{sizePerThread = [67108864], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @tile_2_pow_33() {
    // expected-error @below {{has a CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA) of 8589934592 elements along dim 0; layouts support at most 2^24}}
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    tt.return
  }
}

// -----

// sizePerThread = [1048576] on a 1024-element tensor: 2^27-element tile.
// CHECK: error: 'tt.make_range' op {{.*}} has a CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA) of 134217728 elements along dim 0
#blocked = #ttg.blocked<{sizePerThread = [1048576], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @size_per_thread_2_pow_20() {
    // expected-error @below {{has a CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA) of 134217728 elements along dim 0; layouts support at most 2^24}}
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    tt.return
  }
}

// -----

// 2^17 registers per thread (the tile fits, the registers do not).
// CHECK: error: 'tt.splat' op {{.*}} needs 131072 registers per thread; at most 2^16 are supported
#blocked = #ttg.blocked<{sizePerThread = [131072], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @registers(%x: f32) {
    // expected-error @below {{needs 131072 registers per thread; at most 2^16 are supported}}
    %s = tt.splat %x : f32 -> tensor<1024xf32, #blocked>
    tt.return
  }
}

// -----

// A 2^31-element tensor.
// CHECK: error: 'tt.splat' op tensor<2147483648xf32, {{.*}} has a dimension of 2147483648; layouts support at most 2^24
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @huge_tensor(%x: f32) {
    // expected-error @below {{has a dimension of 2147483648; layouts support at most 2^24}}
    %s = tt.splat %x : f32 -> tensor<2147483648xf32, #blocked>
    tt.return
  }
}

// -----

// 2^24 elements over 128 threads: 2^17 registers each.
// CHECK: error: 'tt.splat' op {{.*}} needs 131072 registers per thread
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @many_repeats(%x: f32) {
    // expected-error @below {{needs 131072 registers per thread; at most 2^16 are supported}}
    %s = tt.splat %x : f32 -> tensor<16777216xf32, #blocked>
    tt.return
  }
}

// -----

// An FMA dot operand holds its whole K extent in every thread.
// CHECK: error: 'tt.splat' op {{.*}} needs 131072 registers per thread
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_operand_k(%x: f16) {
    // expected-error @below {{needs 131072 registers per thread; at most 2^16 are supported}}
    %s = tt.splat %x : f16 -> tensor<16x131072xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
    tt.return
  }
}
