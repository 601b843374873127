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
