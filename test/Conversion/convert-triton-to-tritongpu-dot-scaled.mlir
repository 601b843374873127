// RUN: triton-opt %s --split-input-file --convert-triton-to-tritongpu='num-warps=4' | FileCheck %s

// tt.dot_scaled has no block-scaled tensor cores below sm_100: the conversion decomposes it into
// upcasts to bf16, scales 2^(s - 127) built from the bits s << 7 and broadcast along K (32 a
// scale), NaN where a scale is 0xFF, and a plain tt.dot.
// CHECK-LABEL: tt.func @e4m3_scaled
// CHECK-NOT: tt.dot_scaled
// CHECK-DAG: tt.fp_to_fp %{{.*}} : tensor<128x64xf8E4M3FN, #{{.*}}> -> tensor<128x64xbf16
// CHECK-DAG: tt.fp_to_fp %{{.*}} : tensor<64x128xf8E4M3FN, #{{.*}}> -> tensor<64x128xbf16
// CHECK-DAG: arith.shli %{{.*}} : tensor<128x2xi16
// CHECK-DAG: tt.bitcast %{{.*}} : tensor<128x2xi16, #{{.*}}> -> tensor<128x2xbf16
// b's scales [N, K/32] are transposed to [K/32, N] first.
// CHECK-DAG: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<128x2xi8, #{{.*}}> -> tensor<2x128xi8
// CHECK-DAG: tt.broadcast %{{.*}} -> tensor<128x2x32xbf16
// CHECK-DAG: tt.reshape %{{.*}} -> tensor<128x64xbf16
// CHECK-DAG: arith.cmpi eq, %{{.*}} : tensor<128x2xi8
// CHECK-DAG: arith.select %{{.*}} : tensor<128x64xi1, #{{.*}}>, tensor<128x64xbf16
// CHECK: tt.dot %{{.*}} : tensor<128x64xbf16, #ttg.dot_op<{opIdx = 0, {{.*}}>> * tensor<64x128xbf16, #ttg.dot_op<{opIdx = 1, {{.*}}>> -> tensor<128x128xf32
tt.func @e4m3_scaled(%a: tensor<128x64xf8E4M3FN>, %sa: tensor<128x2xi8>, %b: tensor<64x128xf8E4M3FN>, %sb: tensor<128x2xi8>, %c: tensor<128x128xf32>, %out: tensor<128x128x!tt.ptr<f32>>) {
  %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e4m3 rhs = e4m3 {fastMath = false} : tensor<128x64xf8E4M3FN>, tensor<128x2xi8> * tensor<64x128xf8E4M3FN>, tensor<128x2xi8> -> tensor<128x128xf32>
  tt.store %out, %d : tensor<128x128x!tt.ptr<f32>>
  tt.return
}

// -----

// e2m1 packs two values a byte (low nibble first) along K, or along N when rhs_k_pack = false;
// an fp16 operand makes the compute type f16, whose scales go through f32 bits s << 23; with
// fastMath there is no NaN select.
// CHECK-LABEL: tt.func @e2m1_fp16
// CHECK-NOT: tt.dot_scaled
// CHECK-DAG: arith.shrui %{{.*}} : tensor<64x32xi8
// CHECK-DAG: tt.join %{{.*}} : tensor<64x32xf16, #{{.*}}> -> tensor<64x32x2xf16
// CHECK-DAG: tt.reshape %{{.*}} : tensor<64x32x2xf16, #{{.*}}> -> tensor<64x64xf16
// CHECK-DAG: arith.shli %{{.*}} : tensor<64x2xi32
// CHECK-DAG: arith.truncf %{{.*}} : tensor<64x2xf32, #{{.*}}> to tensor<64x2xf16
// CHECK-NOT: arith.select %{{.*}}xf16
// CHECK: tt.dot %{{.*}} -> tensor<64x64xf32
tt.func @e2m1_fp16(%a: tensor<64x32xi8>, %sa: tensor<64x2xi8>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>, %out: tensor<64x64x!tt.ptr<f32>>) {
  %d = tt.dot_scaled %a scale %sa, %b, %c lhs = e2m1 rhs = fp16 {fastMath = true} : tensor<64x32xi8>, tensor<64x2xi8> * tensor<64x64xf16> -> tensor<64x64xf32>
  tt.store %out, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @e2m1_along_n
// CHECK: tt.join %{{.*}} : tensor<64x32xbf16, #{{.*}}> -> tensor<64x32x2xbf16
// CHECK: tt.reshape %{{.*}} : tensor<64x32x2xbf16, #{{.*}}> -> tensor<64x64xbf16
// CHECK: tt.dot %{{.*}} -> tensor<64x64xf32
tt.func @e2m1_along_n(%a: tensor<64x64xbf16>, %b: tensor<64x32xi8>, %c: tensor<64x64xf32>, %out: tensor<64x64x!tt.ptr<f32>>) {
  %d = tt.dot_scaled %a, %b, %c lhs = bf16 rhs = e2m1 {fastMath = false, rhs_k_pack = false} : tensor<64x64xbf16> * tensor<64x32xi8> -> tensor<64x64xf32>
  tt.store %out, %d : tensor<64x64x!tt.ptr<f32>>
  tt.return
}
