// RUN: triton-opt %s --split-input-file --verify-diagnostics --triton-rewrite-tensor-descriptor-to-pointer | FileCheck %s

// A descriptor's block becomes pointers splat(base) + sum(extsi(index_d + range_d) * stride_d)
// masked by 0 <= index_d < shape_d in every dimension: loads take zero (NaN for padding = nan),
// stores are masked, an add reduction is a relaxed fadd.
// CHECK-LABEL: tt.func public @rewrite
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: %[[R0:.*]] = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
// CHECK: %[[I0:.*]] = arith.addi %{{.*}}, %[[R0]] : tensor<16xi32>
// CHECK: %[[E0:.*]] = tt.expand_dims %[[I0]] {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: arith.cmpi sge, %[[E0]]
// CHECK: arith.cmpi slt, %[[E0]]
// CHECK: %[[W0:.*]] = arith.extsi %[[E0]] : tensor<16x1xi32> to tensor<16x1xi64>
// CHECK: arith.muli %[[W0]]
// CHECK: tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK: %[[P:.*]] = tt.addptr %{{.*}}, %{{.*}} : tensor<16x32x!tt.ptr<f32>>, tensor<16x32xi64>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
// CHECK: %[[V:.*]] = tt.load %[[P]], %{{.*}}, %[[ZERO]] : tensor<16x32x!tt.ptr<f32>>
// CHECK: arith.constant dense<0x7FC00000> : tensor<16x32xf32>
// CHECK: tt.store %{{.*}}, %[[V]], %{{.*}} : tensor<16x32x!tt.ptr<f32>>
// CHECK: tt.atomic_rmw fadd, relaxed, gpu, %{{.*}}, %[[V]], %{{.*}} :
// CHECK: tt.atomic_rmw max, relaxed, gpu
// CHECK-NOT: tt.descriptor_
// CHECK: tt.return
module {
  tt.func public @rewrite(%a: !tt.ptr<f32>, %b: !tt.ptr<i32>, %M: i32, %N: i32, %s: i64, %i: i32, %j: i32) {
    %c1 = arith.constant 1 : i64
    %d = tt.make_tensor_descriptor %a, [%M, %N], [%s, %c1] : <f32>, <tensor<16x32xf32>>
    %dn = tt.make_tensor_descriptor %a, [%M, %N], [%s, %c1] {padding = 2 : i32} : <f32>, <tensor<16x32xf32>>
    %di = tt.make_tensor_descriptor %b, [%M, %N], [%s, %c1] : <i32>, <tensor<16x32xi32>>
    %v = tt.descriptor_load %d[%i, %j] : !tt.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
    %w = tt.descriptor_load %dn[%i, %j] : !tt.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
    tt.descriptor_store %d[%j, %i], %v : !tt.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
    tt.descriptor_reduce add, %d[%i, %i], %v : !tt.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
    %x = tt.descriptor_load %di[%i, %j] : !tt.tensordesc<tensor<16x32xi32>> -> tensor<16x32xi32>
    tt.descriptor_reduce max, %di[%i, %i], %x : !tt.tensordesc<tensor<16x32xi32>>, tensor<16x32xi32>
    tt.return
  }
}

// -----

// Host-side descriptors have no base pointer to rewrite to: a located error.
module {
  tt.func public @argument(%d: !tt.tensordesc<tensor<16x32xf32>>, %i: i32) -> tensor<16x32xf32> {
    // expected-error @+1 {{the descriptor is not made by tt.make_tensor_descriptor in this kernel}}
    %v = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
    tt.return %v : tensor<16x32xf32>
  }
}

// -----

// A reduction without an atomic equivalent is a located error.
module {
  tt.func public @inc(%a: !tt.ptr<i32>, %M: i32, %s: i64, %i: i32, %v: tensor<16x32xi32>) {
    %c1 = arith.constant 1 : i64
    %d = tt.make_tensor_descriptor %a, [%M, %M], [%s, %c1] : <i32>, <tensor<16x32xi32>>
    // expected-error @+1 {{this descriptor reduction has no atomic equivalent without TMA}}
    tt.descriptor_reduce inc, %d[%i, %i], %v : !tt.tensordesc<tensor<16x32xi32>>, tensor<16x32xi32>
    tt.return
  }
}

// -----

// A rank-reduced access (a 1x16x32 block as a 16x32 tensor): the block's pointers and mask, the
// batch index's term included, reshaped to the tensor's shape.
// CHECK-LABEL: tt.func public @rank_reduced
// CHECK: tt.make_range {end = 1 : i32, start = 0 : i32} : tensor<1xi32>
// CHECK: %[[P:.*]] = tt.addptr %{{.*}}, %{{.*}} : tensor<1x16x32x!tt.ptr<f32>>, tensor<1x16x32xi64>
// CHECK: %[[Q:.*]] = tt.reshape %[[P]] : tensor<1x16x32x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
// CHECK: %[[M:.*]] = tt.reshape %{{.*}} : tensor<1x16x32xi1> -> tensor<16x32xi1>
// CHECK: %[[V:.*]] = tt.load %[[Q]], %[[M]], %{{.*}} : tensor<16x32x!tt.ptr<f32>>
// CHECK: tt.reshape %{{.*}} : tensor<1x16x32x!tt.ptr<f32>> -> tensor<16x32x!tt.ptr<f32>>
// CHECK: tt.reshape %{{.*}} : tensor<1x16x32xi1> -> tensor<16x32xi1>
// CHECK: tt.store %{{.*}}, %[[V]], %{{.*}} : tensor<16x32x!tt.ptr<f32>>
// CHECK-NOT: tt.descriptor_
// CHECK: tt.return
module {
  tt.func public @rank_reduced(%a: !tt.ptr<f32>, %B: i32, %M: i32, %N: i32, %sb: i64, %sm: i64, %b: i32, %i: i32) {
    %c1 = arith.constant 1 : i64
    %d = tt.make_tensor_descriptor %a, [%B, %M, %N], [%sb, %sm, %c1] : <f32>, <tensor<1x16x32xf32>>
    %v = tt.descriptor_load %d[%b, %i, %i] : !tt.tensordesc<tensor<1x16x32xf32>> -> tensor<16x32xf32>
    tt.descriptor_store %d[%b, %i, %i], %v : !tt.tensordesc<tensor<1x16x32xf32>>, tensor<16x32xf32>
    tt.return
  }
}
