// RUN: triton-opt %s --split-input-file --tritongpu-F32DotTC | FileCheck %s

// A tf32x3 f32 dot becomes three tf32 dots over the operands' tf32 (round-to-nearest) parts and
// their remainders: the two small terms summed from zero, NaNs of that sum zeroed, the big term
// on top, then the original accumulator. tf32 and ieee dots are untouched.
// CHECK-LABEL: tt.func public @split
// CHECK: %[[AB:.*]] = tt.elementwise_inline_asm "cvt.rna.tf32.f32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = true} %[[A:[^ ]*]]
// CHECK: %[[AS:.*]] = arith.subf %[[A]], %[[AB]]
// CHECK: %[[BB:.*]] = tt.elementwise_inline_asm "cvt.rna.tf32.f32 $0, $1;" {{.*}} %[[B:[^ ]*]]
// CHECK: %[[BS:.*]] = arith.subf %[[B]], %[[BB]]
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK: %[[S1:.*]] = tt.dot %[[AS]], %[[BB]], %[[Z]], inputPrecision = tf32
// CHECK: %[[S2:.*]] = tt.dot %[[AB]], %[[BS]], %[[S1]], inputPrecision = tf32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[S2]], %[[S2]]
// CHECK: %[[CLEAN:.*]] = arith.select %[[NAN]], %[[Z]], %[[S2]]
// CHECK: %[[P:.*]] = tt.dot %[[AB]], %[[BB]], %[[CLEAN]], inputPrecision = tf32
// CHECK: %[[D:.*]] = arith.addf %[[P]], %{{.*}}
// CHECK: tt.dot {{.*}}, inputPrecision = tf32 :
// CHECK: tt.dot {{.*}} : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
// CHECK-NOT: tt.dot
// CHECK: tt.return %[[D]]
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @split(%a: tensor<64x32xf32, #blocked>, %b: tensor<32x64xf32, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %d = tt.dot %a, %b, %c, inputPrecision = tf32x3 : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %e = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %f = tt.dot %a, %b, %c : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    tt.return %d : tensor<64x64xf32, #blocked>
  }
}

// -----

// Operands converted into the dot's operand layout are split where they are computed (before
// the conversion, which replicates elements across threads), and both parts then converted.
// CHECK-LABEL: tt.func public @converted
// CHECK: %[[BIG:.*]] = tt.elementwise_inline_asm "cvt.rna.tf32.f32 $0, $1;" {{.*}} %arg0 : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #blocked>
// CHECK: %[[SMALL:.*]] = arith.subf %arg0, %[[BIG]] : tensor<64x32xf32, #blocked>
// CHECK: ttg.convert_layout %[[BIG]] : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
// CHECK: ttg.convert_layout %[[SMALL]] : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @converted(%a: tensor<64x32xf32, #blocked>, %b: tensor<32x64xf32, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %ca = ttg.convert_layout %a : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>
    %cb = ttg.convert_layout %b : tensor<32x64xf32, #blocked> -> tensor<32x64xf32, #ttg.dot_op<{opIdx = 1, parent = #blocked}>>
    %d = tt.dot %ca, %cb, %c, inputPrecision = tf32x3 : tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>> * tensor<32x64xf32, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> -> tensor<64x64xf32, #blocked>
    tt.return %d : tensor<64x64xf32, #blocked>
  }
}
