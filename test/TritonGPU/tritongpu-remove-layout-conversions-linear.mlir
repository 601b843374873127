// RUN: triton-opt %s --tritongpu-remove-layout-conversions | FileCheck %s

// A reduction fed by a conversion out of a #ttg.linear layout (this used to panic): the layout
// model reads linear layouts, so the reduction runs in the load's layout and only its small
// result is converted.
// CHECK-LABEL: tt.func @reduce_of_linear
// CHECK: "tt.reduce"
// CHECK: (tensor<2x64xf32, #linear>)
// CHECK: ttg.convert_layout {{.*}} #ttg.slice<{dim = 1, parent = #linear}>> -> {{.*}} #ttg.slice<{dim = 1, parent = #blocked}>>
// CHECK: tt.return
#linear = #ttg.linear<{register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [[0, 32], [1, 0]], block = []}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @reduce_of_linear(%p: !tt.ptr<f32>, %offsets: tensor<2x64xi32, #linear>) -> tensor<2xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<2x64x!tt.ptr<f32>, #linear>
    %a = tt.addptr %s, %offsets : tensor<2x64x!tt.ptr<f32>, #linear>, tensor<2x64xi32, #linear>
    %v = tt.load %a : tensor<2x64x!tt.ptr<f32>, #linear>
    %c = ttg.convert_layout %v : tensor<2x64xf32, #linear> -> tensor<2x64xf32, #blocked>
    %r = "tt.reduce"(%c) <{axis = 1 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      tt.reduce.return %z : f32
    }) : (tensor<2x64xf32, #blocked>) -> tensor<2xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return %r : tensor<2xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}
