// RUN: triton-opt %s --split-input-file --tritongpu-accelerate-matmul | FileCheck %s

// An f16 dot accumulating in f32 goes on tensor cores: an mma v2 accumulator with Triton's warps
// per CTA (2x2 for 128x128 over 4 warps), operands in its dot-operand layouts (kWidth 2), and a
// loop-carried accumulator carried in the mma layout (converted once before and once after).
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
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
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

// Dots the mma.sync path does not cover yet stay on CUDA cores: f32 operands, an f16
// accumulator, and an N that is not a multiple of 8.
// CHECK-NOT: nvidia_mma
// CHECK-LABEL: tt.func public @fma
// CHECK-COUNT-3: tt.dot {{.*}} -> tensor<{{.*}}, #blocked>
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
