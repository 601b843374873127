// RUN: triton-opt %s --split-input-file --convert-triton-to-tritongpu='num-warps=4' | FileCheck %s
// RUN: triton-opt %s --split-input-file --convert-triton-to-tritongpu='num-warps=8 target=cuda:80' | FileCheck %s --check-prefix=W8
// RUN: not triton-opt %s --split-input-file --convert-triton-to-tritongpu='num-warps=3' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: triton-opt %s --split-input-file --convert-triton-to-tritongpu='num-stages=2' | FileCheck %s --check-prefix=STAGES
// RUN: not triton-opt %s --split-input-file --convert-triton-to-tritongpu='target=hip:gfx942' 2>&1 | FileCheck %s --check-prefix=HIP
// RUN: not triton-opt %s --split-input-file --convert-triton-to-tritongpu='threads-per-warp=64' 2>&1 | FileCheck %s --check-prefix=LANES

// CHECK: #[[B:.*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}
// CHECK: tt.make_range {{.*}} : tensor<1024xi32, #[[B]]>
// CHECK: arith.constant dense<1> : tensor<1024xi32, #[[B]]>
// W8: #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// W8: ttg.target = "cuda:80"
// BAD: error: num-warps must be a power of two in 1..=32, got 3
// num-stages is recorded on the module when given (Triton 3.6 keeps it a pipeliner option).
// STAGES: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}
// HIP: error: unsupported target 'hip:gfx942': Tritium compiles for cuda:80, cuda:86, cuda:89 and cuda:90
// LANES: error: threads-per-warp must be 32 (an NVIDIA warp), got 64
tt.func @one_d(%p: !tt.ptr<i32>) {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %one = arith.constant dense<1> : tensor<1024xi32>
  %s = arith.addi %r, %one : tensor<1024xi32>
  %ptrs = tt.splat %p : !tt.ptr<i32> -> tensor<1024x!tt.ptr<i32>>
  %a = tt.addptr %ptrs, %r : tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>
  tt.store %a, %s : tensor<1024x!tt.ptr<i32>>
  tt.return
}

// -----

// A reduction produces a slice of its operand's layout; expand_dims consumes a slice of its
// result's layout: both meet the default layouts through ttg.convert_layout.
// CHECK-LABEL: tt.func @two_d
// CHECK: %[[R:.*]] = "tt.reduce"
// CHECK: }) : (tensor<32x64xf32, #{{.*}}>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #{{.*}}}>>
// CHECK: ttg.convert_layout %[[R]]
// CHECK: tt.expand_dims {{.*}}#ttg.slice<{dim = 1
tt.func @two_d(%x: tensor<32x64xf32>) -> tensor<32x1xf32> {
  %r = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<32x64xf32>) -> tensor<32xf32>
  %e = tt.expand_dims %r {axis = 1 : i32} : tensor<32xf32> -> tensor<32x1xf32>
  tt.return %e : tensor<32x1xf32>
}
