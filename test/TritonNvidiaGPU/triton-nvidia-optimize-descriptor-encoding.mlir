// RUN: triton-opt %s --split-input-file --triton-nvidia-optimize-descriptor-encoding | FileCheck %s

// Each descriptor gets the #ttg.nvmma_shared layout of its block: the widest swizzle its rows
// fill (f16 x 64: 128 bytes, f16 x 16: 32 bytes, i8 x 64: 64 bytes), on made descriptors and
// kernel arguments (the function type follows); rows under 32 bytes get none.
// CHECK-DAG: #[[S128:.*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[S32:.*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[S64:.*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8}>
// CHECK-LABEL: tt.func public @encodings
// CHECK-SAME: (%arg0: !tt.tensordesc<tensor<64x64xf16, #[[S128]]>>, %arg1: i32
// CHECK: tt.make_tensor_descriptor {{.*}} : <f16>, <tensor<128x16xf16, #[[S32]]>>
// CHECK: tt.make_tensor_descriptor {{.*}} : <i8>, <tensor<32x64xi8, #[[S64]]>>
// CHECK: tt.make_tensor_descriptor {{.*}} : <f16>, <tensor<32x8xf16>>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @encodings(%d: !tt.tensordesc<tensor<64x64xf16>>, %d_0: i32, %d_1: i32, %d_2: i64, %d_3: i64, %p: !tt.ptr<f16>, %q: !tt.ptr<i8>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1_i64 = arith.constant 1 : i64
    %s = arith.extsi %n : i32 to i64
    %t = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %a = tt.make_tensor_descriptor %p, [%n, %n], [%s, %c1_i64] : <f16>, <tensor<128x16xf16>>
    %b = tt.make_tensor_descriptor %q, [%n, %n], [%s, %c1_i64] : <i8>, <tensor<32x64xi8>>
    %c = tt.make_tensor_descriptor %p, [%n, %n], [%s, %c1_i64] : <f16>, <tensor<32x8xf16>>
    tt.return
  }
}

// -----

// A batched (rank-3) descriptor read and written rank-reduced (its 1x128x64 block as 128x64),
// or so and as its block, gets its block's layout like a 2-D one.
// CHECK-DAG: #[[S128:.*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-LABEL: tt.func public @rank_reduced
// CHECK-SAME: (%arg0: !tt.tensordesc<tensor<1x128x64xf16, #[[S128]]>>,
// CHECK: tt.make_tensor_descriptor {{.*}} : <f16>, <tensor<1x128x64xf16, #[[S128]]>>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rank_reduced(%d: !tt.tensordesc<tensor<1x128x64xf16>>, %p: !tt.ptr<f16>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1_i64 = arith.constant 1 : i64
    %s = arith.extsi %n : i32 to i64
    %t = tt.descriptor_load %d[%c0, %c0, %c0] : !tt.tensordesc<tensor<1x128x64xf16>> -> tensor<128x64xf16, #blocked>
    %a = tt.make_tensor_descriptor %p, [%n, %n, %n], [%s, %s, %c1_i64] : <f16>, <tensor<1x128x64xf16>>
    tt.descriptor_store %a[%c0, %c0, %c0], %t : !tt.tensordesc<tensor<1x128x64xf16>>, tensor<128x64xf16, #blocked>
    %u = tt.descriptor_load %a[%c0, %c0, %c0] : !tt.tensordesc<tensor<1x128x64xf16>> -> tensor<1x128x64xf16, #blocked3>
    tt.return
  }
}
