// RUN: not triton-opt %s --tritium-ttgir 2>&1 | FileCheck %s
// RUN: triton-opt %s --split-input-file --convert-triton-to-tritongpu --verify-diagnostics

// Tensors with a dimension that is not a power of two get no layout: the conversion fails (and
// triton-opt exits non-zero) at the op making the tensor, instead of printing an error and going on.

// CHECK: convert-triton-to-tritongpu-errors.mlir:[[# @LINE + 3]]:8: error: cannot lay out tensor<100x3xf32> (result #0 of 'arith.constant'): it has a dimension of 100; layouts need power-of-two dimensions
tt.func @constant(%p: !tt.ptr<f32>) {
  // expected-error @below {{cannot lay out tensor<100x3xf32> (result #0 of 'arith.constant'): it has a dimension of 100; layouts need power-of-two dimensions}}
  %c = arith.constant dense<1.0> : tensor<100x3xf32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<100x3x!tt.ptr<f32>>
  tt.store %s, %c : tensor<100x3x!tt.ptr<f32>>
  tt.return
}

// -----

// expected-error @below {{cannot lay out tensor<96xf32> (block argument #1 of 'tt.func'): it has a dimension of 96; layouts need power-of-two dimensions}}
tt.func @argument(%p: !tt.ptr<f32>, %x: tensor<96xf32>) -> tensor<96xf32> {
  %v = arith.addf %x, %x : tensor<96xf32>
  tt.return %v : tensor<96xf32>
}

// -----

// A 2^31-element tensor is beyond the layouts' limits (2^24 per dim).
tt.func @huge(%p: !tt.ptr<f32>) {
  // expected-error @below {{cannot lay out tensor<2147483648xf32> (result #0 of 'arith.constant'): it has a dimension of 2147483648; layouts support at most 2^24}}
  %c = arith.constant dense<1.0> : tensor<2147483648xf32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<2147483648x!tt.ptr<f32>>
  tt.store %s, %c : tensor<2147483648x!tt.ptr<f32>>
  tt.return
}

// -----

// 2^24 elements fit a dim, but not Triton's largest block (nor the registers of 128 threads).
tt.func @too_many_registers(%p: !tt.ptr<f32>) {
  // expected-error @below {{cannot lay out tensor<16777216xi32> (result #0 of 'tt.make_range'): it has more than 1048576 elements}}
  %r = tt.make_range {end = 16777216 : i32, start = 0 : i32} : tensor<16777216xi32>
  tt.return
}

// -----

// Within the per-dim limit but over Triton's largest block (2^20 elements): refused before the
// lowering spends minutes on 8192 registers per thread.
tt.func @too_many_elements(%p: !tt.ptr<f32>) {
  // expected-error @below {{cannot lay out tensor<2048x1024xf32> (result #0 of 'arith.constant'): it has more than 1048576 elements, Triton's largest block}}
  %c = arith.constant dense<1.0> : tensor<2048x1024xf32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<2048x1024x!tt.ptr<f32>>
  tt.store %s, %c : tensor<2048x1024x!tt.ptr<f32>>
  tt.return
}

// -----

// A rank-0 tensor has no dimension to lay out (found by tritium-fuzz: it got an empty blocked
// layout that the TTGIR verifier rejected).
tt.func @rank_zero(%p: !tt.ptr<f32>) -> tensor<f32> {
  // expected-error @below {{cannot lay out tensor<!tt.ptr<f32>> (result #0 of 'tt.splat'): it has rank 0; layouts need at least one dimension (use a scalar)}}
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<!tt.ptr<f32>>
  %v = tt.load %s : tensor<!tt.ptr<f32>>
  tt.return %v : tensor<f32>
}

// -----

// 512x512 over 4 warps is 2048 elements per thread (found by tritium-fuzz: a 128x256 matmul with
// 1024 per thread, over one warp, took 27 s to compile): more warps or a smaller block.
tt.func @too_many_per_thread(%p: !tt.ptr<f32>) {
  // expected-error @below {{cannot lay out tensor<512x512xf32> (result #0 of 'arith.constant'): it has 2048 elements for each of 128 threads; at most 512 are supported (use more warps or a smaller block)}}
  %c = arith.constant dense<1.0> : tensor<512x512xf32>
  %s = tt.splat %p : !tt.ptr<f32> -> tensor<512x512x!tt.ptr<f32>>
  tt.store %s, %c : tensor<512x512x!tt.ptr<f32>>
  tt.return
}
