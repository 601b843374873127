// RUN: triton-opt %s | triton-opt | FileCheck %s
// Edge cases the `tt` verifier must accept (and that round-trip): everything here is IR Triton
// itself can produce.

// CHECK-LABEL: tt.func @dots
tt.func @dots(%f16: tensor<16x16xf16>, %bf16: tensor<16x16xbf16>, %f32: tensor<16x16xf32>,
              %e4: tensor<16x16xf8E4M3FN>, %e5: tensor<16x16xf8E5M2>, %i8: tensor<16x16xi8>,
              %i32: tensor<16x16xi32>, %f64: tensor<16x16xf64>, %acc16: tensor<16x16xf16>,
              %b3: tensor<2x16x16xf16>, %bacc: tensor<2x16x16xf32>) {
  // CHECK: tt.dot {{.*}} -> tensor<16x16xf16>
  %0 = tt.dot %f16, %f16, %acc16, inputPrecision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf16>
  // CHECK: tt.dot {{.*}} inputPrecision = bf16x3
  %1 = tt.dot %f32, %f32, %f32, inputPrecision = bf16x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: tt.dot {{.*}}maxNumImpreciseAcc = 1073741824
  %2 = tt.dot %e4, %e5, %f32 {maxNumImpreciseAcc = 1073741824 : i32} : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E5M2> -> tensor<16x16xf32>
  // CHECK: tt.dot {{.*}} -> tensor<16x16xi32>
  %3 = tt.dot %i8, %i8, %i32 : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  // CHECK: tt.dot {{.*}} -> tensor<16x16xf64>
  %4 = tt.dot %f64, %f64, %f64 : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf64>
  // CHECK: tt.dot {{.*}} -> tensor<2x16x16xf32>
  %5 = tt.dot %b3, %b3, %bacc : tensor<2x16x16xf16> * tensor<2x16x16xf16> -> tensor<2x16x16xf32>
  // CHECK: tt.dot {{.*}} -> tensor<16x16xf32>
  %6 = tt.dot %bf16, %bf16, %f32 : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  tt.return
}

// CHECK-LABEL: tt.func @dot_scaled
tt.func @dot_scaled(%a: tensor<32x32xi8>, %as: tensor<32x2xi8>, %b: tensor<64x32xf8E4M3FN>, %bs: tensor<32x2xi8>, %c: tensor<32x32xf32>) {
  // CHECK: tt.dot_scaled {{.*}} lhs = e2m1 rhs = e4m3
  %0 = tt.dot_scaled %a scale %as, %b scale %bs, %c lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<32x32xi8>, tensor<32x2xi8> * tensor<64x32xf8E4M3FN>, tensor<32x2xi8> -> tensor<32x32xf32>
  tt.return
}

// CHECK-LABEL: tt.func @memory
tt.func @memory(%p: !tt.ptr<f32>, %n: i64, %i: i32, %v: tensor<64x64xf32>, %pf: tensor<8x!tt.ptr<f32>>,
                %vf: tensor<8xf32>, %m: tensor<8xi1>, %pb: !tt.ptr<bf16>, %b: bf16, %ph: !tt.ptr<f16>, %h: f16,
                %pl: !tt.ptr<i64>, %l: i64) {
  %bp = tt.make_tensor_ptr %p, [%n, %n], [%n, %n], [%i, %i] {order = array<i32: 1, 0>} : <tensor<64x64xf32>>
  %bq = tt.advance %bp, [%i, %i] : <tensor<64x64xf32>>
  // CHECK: tt.load {{.*}}boundaryCheck = array<i32: 1, 0>, padding = 2 : i32
  %0 = tt.load %bq {boundaryCheck = array<i32: 1, 0>, padding = 2 : i32} : !tt.ptr<tensor<64x64xf32>>
  // CHECK: tt.store {{.*}}boundaryCheck = array<i32: 1>
  tt.store %bq, %v {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<64x64xf32>>
  // CHECK: tt.atomic_rmw max
  %1 = tt.atomic_rmw max, acq_rel, gpu, %pf, %vf, %m : (tensor<8x!tt.ptr<f32>>, tensor<8xf32>, tensor<8xi1>) -> tensor<8xf32>
  // CHECK: tt.atomic_rmw fadd
  %2 = tt.atomic_rmw fadd, relaxed, gpu, %pb, %b : (!tt.ptr<bf16>, bf16) -> bf16
  // CHECK: tt.atomic_rmw exch
  %3 = tt.atomic_rmw exch, relaxed, sys, %pl, %l : (!tt.ptr<i64>, i64) -> i64
  // CHECK: tt.atomic_cas
  %4 = tt.atomic_cas acq_rel, cta, %ph, %h, %h : (!tt.ptr<f16>, f16, f16) -> f16
  %5 = tt.bitcast %pf : tensor<8x!tt.ptr<f32>> -> tensor<8x!tt.ptr<i32>>
  tt.return
}

// CHECK-LABEL: tt.func @descriptors
tt.func @descriptors(%p: !tt.ptr<f16>, %n: i32, %s: i64, %x: tensor<32xi32>, %v: tensor<32x64xf16>) {
  %d = tt.make_tensor_descriptor %p, [%n, %n], [%s, %s] : <f16>, <tensor<1x64xf16>>
  // CHECK: tt.descriptor_load {{.*}} -> tensor<64xf16>
  %0 = tt.descriptor_load %d[%n, %n] : !tt.tensordesc<tensor<1x64xf16>> -> tensor<64xf16>
  // CHECK: tt.descriptor_gather
  %1 = tt.descriptor_gather %d[%x, %n] : (!tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32) -> tensor<32x64xf16>
  // CHECK: tt.descriptor_scatter
  tt.descriptor_scatter %d[%x, %n], %v : !tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32, tensor<32x64xf16>
  // CHECK: tt.descriptor_reduce max
  tt.descriptor_reduce max, %d[%n, %n], %0 : !tt.tensordesc<tensor<1x64xf16>>, tensor<64xf16>
  tt.return
}

// CHECK-LABEL: tt.func @casts
tt.func @casts(%x: tensor<8xf32>, %e4: tensor<8xf8E4M3FN>, %b: tensor<8xi8>) {
  // CHECK: tt.fp_to_fp {{.*}}, rounding = rtz
  %0 = tt.fp_to_fp %x, rounding = rtz : tensor<8xf32> -> tensor<8xf16>
  // CHECK: tt.fp_to_fp {{.*}} -> tensor<8xf8E5M2>
  %1 = tt.fp_to_fp %e4 : tensor<8xf8E4M3FN> -> tensor<8xf8E5M2>
  // CHECK: tt.fp_to_fp {{.*}} -> tensor<8xf32>
  %2 = tt.fp_to_fp %e4 : tensor<8xf8E4M3FN> -> tensor<8xf32>
  // CHECK: tt.elementwise_inline_asm
  %3 = tt.elementwise_inline_asm "" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %b : tensor<8xi8> -> tensor<8xi32>
  tt.return
}

// CHECK-LABEL: tt.func @shapes
tt.func @shapes(%x: tensor<4x8xf32>, %i: tensor<4x2xi32>, %one: tensor<1x1xf32>, %h: tensor<16xi32>, %m: tensor<16xi1>) {
  // CHECK: tt.make_range {end = 16 : i32, start = 8 : i32}
  %0 = tt.make_range {end = 16 : i32, start = 8 : i32} : tensor<8xi32>
  // CHECK: tt.gather {{.*}}axis = 1
  %1 = tt.gather %x[%i] {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  // CHECK: tt.histogram
  %2 = tt.histogram %h, %m : tensor<16xi32>, tensor<16xi1> -> tensor<32xi32>
  // CHECK: tt.unsplat
  %3 = tt.unsplat %one : tensor<1x1xf32> -> f32
  // CHECK: tt.trans
  %4 = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: tt.reshape {{.*}} allow_reorder
  %5 = tt.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
  // CHECK: tt.cat
  %6 = tt.cat %x, %x : tensor<4x8xf32> -> tensor<8x8xf32>
  // CHECK: tt.join
  %7 = tt.join %x, %x : tensor<4x8xf32> -> tensor<4x8x2xf32>
  %8, %9 = tt.split %7 : tensor<4x8x2xf32> -> tensor<4x8xf32>
  // CHECK: tt.expand_dims {{.*}}axis = 2
  %10 = tt.expand_dims %x {axis = 2 : i32} : tensor<4x8xf32> -> tensor<4x8x1xf32>
  // CHECK: tt.broadcast
  %11 = tt.broadcast %10 : tensor<4x8x1xf32> -> tensor<4x8x2xf32>
  tt.return
}

// CHECK-LABEL: tt.func @regions
tt.func @regions(%x: tensor<4x8xf32>, %j: tensor<4x8xi32>, %v: tensor<8xf32>) {
  // CHECK: "tt.reduce"
  %0:2 = "tt.reduce"(%x, %j) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %m = arith.select %gt, %a, %b : f32
    %mi = arith.select %gt, %ai, %bi : i32
    tt.reduce.return %m, %mi : f32, i32
  }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  // CHECK: "tt.scan"
  %1 = "tt.scan"(%v) <{axis = 0 : i32, reverse = true}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.scan.return %s : f32
  }) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: "tt.map_elementwise"
  %2 = "tt.map_elementwise"(%x, %j) <{pack = 2 : i32}> ({
  ^bb0(%a0: f32, %a1: f32, %i0: i32, %i1: i32):
    tt.map_elementwise.return %i0, %i1 : i32, i32
  }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: tt.print " done"
  tt.print " done" {hex = false, isSigned = array<i32>}
  tt.return
}

// CHECK-LABEL: tt.func private @returns
tt.func private @returns(%x: f32) -> f32 {
  tt.return %x : f32
}

#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
// CHECK-LABEL: tt.func @encodings
tt.func @encodings(%r: tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>, %x: tensor<32x32xf32, #blocked>,
                   %a: tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked}>>,
                   %b: tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>>) {
  // CHECK: tt.expand_dims
  %0 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
  // CHECK: tt.broadcast
  %1 = tt.broadcast %0 : tensor<32x1xi32, #blocked> -> tensor<32x32xi32, #blocked>
  // CHECK: "tt.reduce"
  %2 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    tt.reduce.return %s : f32
  }) : (tensor<32x32xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
  // CHECK: tt.dot
  %3 = tt.dot %a, %b, %x : tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked}>> * tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> -> tensor<32x32xf32, #blocked>
  tt.return
}
}
