// RUN: triton-opt %s --tritium-ttgir | FileCheck %s
// RUN: triton-opt %s --tritium-ttgir='num-warps=8 num-stages=4 target=cuda:80' | FileCheck %s --check-prefix=OPTS
// RUN: not triton-opt %s --tritium-ttgir='target=hip:gfx942' 2>&1 | FileCheck %s --check-prefix=HIP
// RUN: not triton-opt %s --tritium-ttgir='target=cuda:70' 2>&1 | FileCheck %s --check-prefix=SM70
// RUN: not triton-opt %s --tritium-ttgir='target=garbage' 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not triton-opt %s --tritium-ttgir='num-stages=-1' 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not triton-opt %s --tritium-ttgir='num-warps=64' 2>&1 | FileCheck %s --check-prefix=WARPS

// -tritium-ttgir records its options on the module, num-stages included (default 3), and takes
// only the NVIDIA targets Tritium compiles for.
// CHECK: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}
// OPTS: module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 4 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32}
// HIP: error: pipeline 'tritium-ttgir': unsupported target 'hip:gfx942': Tritium compiles for cuda:80, cuda:86, cuda:89 and cuda:90
// SM70: error: pipeline 'tritium-ttgir': unsupported target 'cuda:70'
// GARBAGE: error: pipeline 'tritium-ttgir': unsupported target 'garbage'
// STAGES: error: pipeline 'tritium-ttgir': num-stages must be in 0..=16, got -1
// WARPS: error: pipeline 'tritium-ttgir': num-warps must be a power of two in 1..=32, got 64
tt.func @add(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  %v = tt.load %xp : tensor<1024x!tt.ptr<f32>>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
  %op = tt.addptr %os, %r : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
  tt.store %op, %v : tensor<1024x!tt.ptr<f32>>
  tt.return
}
