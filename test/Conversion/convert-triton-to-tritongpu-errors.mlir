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

// 2^24 elements fit a dim, but not the registers of 128 threads (the verifier after the pass).
tt.func @too_many_registers(%p: !tt.ptr<f32>) {
  // expected-error @below {{needs 131072 registers per thread; at most 2^16 are supported}}
  %r = tt.make_range {end = 16777216 : i32, start = 0 : i32} : tensor<16777216xi32>
  tt.return
}
