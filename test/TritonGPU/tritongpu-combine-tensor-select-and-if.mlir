// RUN: triton-opt %s --split-input-file --tritongpu-combine-tensor-select-and-if | FileCheck %s

// A tensor select on the condition of a later scf.if, used only after it, becomes a result of
// the if; the if had no else region, so one is created to yield the false value.
// CHECK-LABEL: tt.func @select_into_if
// CHECK-NOT: arith.select
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<128xf32>) {
// CHECK: tt.store
// CHECK: scf.yield %arg1 : tensor<128xf32>
// CHECK: } else {
// CHECK: scf.yield %arg2 : tensor<128xf32>
// CHECK: tt.store %{{.*}}, %[[R]]
tt.func @select_into_if(%c: i1, %a: tensor<128xf32>, %b: tensor<128xf32>, %p: tensor<128x!tt.ptr<f32>>) {
  %s = arith.select %c, %a, %b : tensor<128xf32>
  scf.if %c {
    tt.store %p, %a : tensor<128x!tt.ptr<f32>>
  }
  tt.store %p, %s : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// With results and an else region already: the select's values join the existing yields.
// CHECK-LABEL: tt.func @select_after_if
// CHECK-NOT: arith.select
// CHECK: %[[R:.*]]:2 = scf.if %{{.*}} -> (tensor<128xf32>, tensor<128xf32>) {
// CHECK: scf.yield %{{.*}}, %arg1 : tensor<128xf32>, tensor<128xf32>
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %arg2 : tensor<128xf32>, tensor<128xf32>
// CHECK: arith.addf %[[R]]#0, %[[R]]#1
tt.func @select_after_if(%c: i1, %a: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<128xf32> {
  %r = scf.if %c -> (tensor<128xf32>) {
    %x = arith.mulf %a, %a : tensor<128xf32>
    scf.yield %x : tensor<128xf32>
  } else {
    %y = arith.mulf %b, %b : tensor<128xf32>
    scf.yield %y : tensor<128xf32>
  }
  %s = arith.select %c, %a, %b : tensor<128xf32>
  %sum = arith.addf %r, %s : tensor<128xf32>
  tt.return %sum : tensor<128xf32>
}

// -----

// Left alone: a use of the select before the if, a value computed after the if, another
// condition, and a select of scalars.
// CHECK-LABEL: tt.func @left_alone
// CHECK-COUNT-3: arith.select
// CHECK: scf.if %arg0 {
// CHECK: arith.select
tt.func @left_alone(%c: i1, %d: i1, %a: tensor<128xf32>, %b: tensor<128xf32>, %p: tensor<128x!tt.ptr<f32>>, %x: f32, %y: f32, %q: !tt.ptr<f32>) {
  %used_before = arith.select %c, %a, %b : tensor<128xf32>
  tt.store %p, %used_before : tensor<128x!tt.ptr<f32>>
  %other_condition = arith.select %d, %a, %b : tensor<128xf32>
  %scalar = arith.select %c, %x, %y : f32
  scf.if %c {
    tt.store %p, %a : tensor<128x!tt.ptr<f32>>
  }
  %late = arith.addf %a, %b : tensor<128xf32>
  %computed_after = arith.select %c, %late, %b : tensor<128xf32>
  tt.store %p, %other_condition : tensor<128x!tt.ptr<f32>>
  tt.store %p, %computed_after : tensor<128x!tt.ptr<f32>>
  tt.store %q, %scalar : !tt.ptr<f32>
  tt.return
}
