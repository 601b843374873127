// RUN: triton-opt %s --split-input-file --tritium-host-descriptors | FileCheck %s

// Descriptors made from the kernel's arguments (a sign-extended i32 stride, a constant innermost
// stride) become parameters after every other, the program count included; two made alike
// share one. Their uses read the parameter; the make ops are gone.
// CHECK-LABEL: tt.func public @from_arguments
// CHECK-SAME: %arg5: i32, %arg6: !tt.tensordesc<tensor<64x64xf16>> {tritium.host_descriptor = {base = 0 : i64, shape = [{arg = 2 : i64}, {arg = 3 : i64}], strides = [{arg = 4 : i64}, {value = 1 : i64}]}}, %arg7: !tt.tensordesc<tensor<32x64xf16>> {tritium.host_descriptor = {base = 1 : i64, shape = [{arg = 3 : i64}, {value = 64 : i64}], strides = [{arg = 4 : i64}, {value = 1 : i64}]}})
// CHECK-SAME: tritium.virtual_programs
// CHECK-NOT: tt.make_tensor_descriptor
// CHECK: tt.descriptor_load %arg6[
// CHECK: tt.descriptor_load %arg6[
// CHECK: tt.descriptor_load %arg7[
// CHECK: tt.return
tt.func public @from_arguments(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32, %K: i32 {tt.divisibility = 16 : i32}, %s: i32 {tt.divisibility = 16 : i32}, %n: i32) attributes {tritium.virtual_programs} {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %sixty_four = arith.constant 64 : i32
  %stride = arith.extsi %s : i32 to i64
  %d0 = tt.make_tensor_descriptor %a, [%M, %K], [%stride, %one] : <f16>, <tensor<64x64xf16>>
  %d1 = tt.make_tensor_descriptor %a, [%M, %K], [%stride, %one] : <f16>, <tensor<64x64xf16>>
  %d2 = tt.make_tensor_descriptor %b, [%K, %sixty_four], [%stride, %one] : <f16>, <tensor<32x64xf16>>
  %x = tt.descriptor_load %d0[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %y = tt.descriptor_load %d1[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %z = tt.descriptor_load %d2[%c0, %c0] : !tt.tensordesc<tensor<32x64xf16>> -> tensor<32x64xf16>
  tt.return
}

// -----

// A function without argument attributes gets them: empty ones for its own arguments.
// CHECK-LABEL: tt.func public @no_argument_attributes
// CHECK-SAME: (%arg0: !tt.ptr<f32>, %arg1: i64, %arg2: !tt.tensordesc<tensor<128xf32>> {tritium.host_descriptor = {base = 0 : i64, shape = [{value = 1024 : i64}], strides = [{value = 1 : i64}]}})
// CHECK: tt.descriptor_load %arg2[
tt.func public @no_argument_attributes(%a: !tt.ptr<f32>, %unused: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %n = arith.constant 1024 : i32
  %d = tt.make_tensor_descriptor %a, [%n], [%one] : <f32>, <tensor<128xf32>>
  %x = tt.descriptor_load %d[%c0] : !tt.tensordesc<tensor<128xf32>> -> tensor<128xf32>
  tt.return
}

// -----

// A batch of tiles (-tritium-descriptor-loads' batched matmul): the leading extent is the
// number of programs along z, which the launcher knows from the grid.
// CHECK-LABEL: tt.func public @batch_of_programs
// CHECK-SAME: %arg3: !tt.tensordesc<tensor<1x64x64xf16>> {tritium.host_descriptor = {base = 0 : i64, shape = [{programs = 2 : i64}, {arg = 1 : i64}, {arg = 1 : i64}], strides = [{arg = 2 : i64}, {arg = 1 : i64}, {value = 1 : i64}]}})
// CHECK: tt.descriptor_load %arg3[
tt.func public @batch_of_programs(%a: !tt.ptr<f16>, %n: i32, %sb: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %z = tt.get_program_id z : i32
  %nz = tt.get_num_programs z : i32
  %sn = arith.extsi %n : i32 to i64
  %d = tt.make_tensor_descriptor %a, [%nz, %n, %n], [%sb, %sn, %one] : <f16>, <tensor<1x64x64xf16>>
  %x = tt.descriptor_load %d[%z, %c0, %c0] : !tt.tensordesc<tensor<1x64x64xf16>> -> tensor<64x64xf16>
  tt.return
}

// -----

// A user's batched descriptor (`strides=[M * K, K, 1]`): the batch stride is a 32-bit product
// of arguments (nested products flattened, constants kept), sign-extended; an extent may be one
// too.
// CHECK-LABEL: tt.func public @products
// CHECK-SAME: %arg4: !tt.tensordesc<tensor<1x64x64xf16>> {tritium.host_descriptor = {base = 0 : i64, shape = [{arg = 1 : i64}, {product = [{arg = 2 : i64}, {arg = 1 : i64}]}, {arg = 3 : i64}], strides = [{product = [{arg = 2 : i64}, {arg = 3 : i64}, {value = 2 : i64}]}, {arg = 3 : i64}, {value = 1 : i64}]}})
// CHECK-NOT: tt.make_tensor_descriptor
tt.func public @products(%a: !tt.ptr<f16>, %b: i32, %m: i32, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %one = arith.constant 1 : i64
  %mk = arith.muli %m, %k : i32
  %mk2 = arith.muli %mk, %c2 : i32
  %batch_stride = arith.extsi %mk2 : i32 to i64
  %row_stride = arith.extsi %k : i32 to i64
  %rows = arith.muli %m, %b : i32
  %d = tt.make_tensor_descriptor %a, [%b, %rows, %k], [%batch_stride, %row_stride, %one] : <f16>, <tensor<1x64x64xf16>>
  %x = tt.descriptor_load %d[%c0, %c0, %c0] : !tt.tensordesc<tensor<1x64x64xf16>> -> tensor<64x64xf16>
  tt.return
}

// -----

// Left alone: a base that is not an argument, an extent computed in the kernel (a sum), a
// stride that is an i64 computed from an argument, NaN padding, and a private function's
// descriptor.
// CHECK-LABEL: tt.func public @computed_operands
// CHECK-SAME: (%arg0: !tt.ptr<f16>, %arg1: i32, %arg2: i64)
// CHECK-COUNT-4: tt.make_tensor_descriptor
// CHECK: tt.return
tt.func public @computed_operands(%a: !tt.ptr<f16>, %m: i32, %s: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %offset = tt.addptr %a, %m : !tt.ptr<f16>, i32
  %d0 = tt.make_tensor_descriptor %offset, [%m, %m], [%s, %one] : <f16>, <tensor<64x64xf16>>
  %twice = arith.addi %m, %m : i32
  %d1 = tt.make_tensor_descriptor %a, [%twice, %m], [%s, %one] : <f16>, <tensor<64x64xf16>>
  %s2 = arith.addi %s, %s : i64
  %d2 = tt.make_tensor_descriptor %a, [%m, %m], [%s2, %one] : <f16>, <tensor<64x64xf16>>
  %d3 = tt.make_tensor_descriptor %a, [%m, %m], [%s, %one] {padding = 2 : i32} : <f16>, <tensor<64x64xf16>>
  %x0 = tt.descriptor_load %d0[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %x1 = tt.descriptor_load %d1[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %x2 = tt.descriptor_load %d2[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %x3 = tt.descriptor_load %d3[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tt.return
}

// CHECK-LABEL: tt.func private @helper
// CHECK-SAME: (%arg0: !tt.ptr<f16>, %arg1: i32, %arg2: i64) -> tensor<64x64xf16>
// CHECK: tt.make_tensor_descriptor
tt.func private @helper(%a: !tt.ptr<f16>, %m: i32, %s: i64) -> tensor<64x64xf16> {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %d = tt.make_tensor_descriptor %a, [%m, %m], [%s, %one] : <f16>, <tensor<64x64xf16>>
  %x = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tt.return %x : tensor<64x64xf16>
}
