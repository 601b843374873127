// RUN: triton-opt %s --split-input-file --tritium-scan-layouts | FileCheck %s

// A 4096-wide running maximum over 4 warps, one element a thread in 32 runs: scanned with 32
// contiguous elements a thread (same lanes, warps and order), converted in and back out.
// CHECK-DAG: #[[SPREAD:.*]] = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[LONG:.*]] = #ttg.blocked<{sizePerThread = [32], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tt.func @cummax
// CHECK: %[[IN:.*]] = ttg.convert_layout %{{.*}} : tensor<4096xf32, #[[SPREAD]]> -> tensor<4096xf32, #[[LONG]]>
// CHECK: %[[SCAN:.*]] = "tt.scan"(%[[IN]])
// CHECK: arith.maxnumf
// CHECK: }) : (tensor<4096xf32, #[[LONG]]>) -> tensor<4096xf32, #[[LONG]]>
// CHECK: %[[OUT:.*]] = ttg.convert_layout %[[SCAN]] : tensor<4096xf32, #[[LONG]]> -> tensor<4096xf32, #[[SPREAD]]>
// CHECK: tt.store %{{.*}}, %[[OUT]]
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @cummax(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
    %cols = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>, #blocked>
    %xp = tt.addptr %xs, %cols : tensor<4096x!tt.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
    %v = tt.load %xp : tensor<4096x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tt.scan.return %m : f32
    }) : (tensor<4096xf32, #blocked>) -> tensor<4096xf32, #blocked>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>, #blocked>
    %yp = tt.addptr %ys, %cols : tensor<4096x!tt.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
    tt.store %yp, %s : tensor<4096x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Two operands (a linear recurrence) along the rows of a 2-D tile, reversed: both operands
// converted, both results converted back, only sizePerThread along the axis changes.
// CHECK-DAG: #[[TILE:.*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[ROWS:.*]] = #ttg.blocked<{sizePerThread = [1, 32], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tt.func @recurrence
// CHECK: %[[A:.*]] = ttg.convert_layout %{{.*}} : tensor<16x256xf32, #[[TILE]]> -> tensor<16x256xf32, #[[ROWS]]>
// CHECK: %[[B:.*]] = ttg.convert_layout %{{.*}} : tensor<16x256xf32, #[[TILE]]> -> tensor<16x256xf32, #[[ROWS]]>
// CHECK: %[[S:.*]]:2 = "tt.scan"(%[[A]], %[[B]]) <{axis = 1 : i32, reverse = true}>
// CHECK: }) : (tensor<16x256xf32, #[[ROWS]]>, tensor<16x256xf32, #[[ROWS]]>) -> (tensor<16x256xf32, #[[ROWS]]>, tensor<16x256xf32, #[[ROWS]]>)
// CHECK-DAG: ttg.convert_layout %[[S]]#0 : tensor<16x256xf32, #[[ROWS]]> -> tensor<16x256xf32, #[[TILE]]>
// CHECK-DAG: ttg.convert_layout %[[S]]#1 : tensor<16x256xf32, #[[ROWS]]> -> tensor<16x256xf32, #[[TILE]]>
#tile = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @recurrence(%a: tensor<16x256xf32, #tile>, %b: tensor<16x256xf32, #tile>) -> (tensor<16x256xf32, #tile>, tensor<16x256xf32, #tile>) {
    %s:2 = "tt.scan"(%a, %b) <{axis = 1 : i32, reverse = true}> ({
    ^bb0(%al: f32, %bl: f32, %ar: f32, %br: f32):
      %p = arith.mulf %al, %ar : f32
      %q = arith.mulf %bl, %ar : f32
      %h = arith.addf %q, %br : f32
      tt.scan.return %p, %h : f32, f32
    }) : (tensor<16x256xf32, #tile>, tensor<16x256xf32, #tile>) -> (tensor<16x256xf32, #tile>, tensor<16x256xf32, #tile>)
    tt.return %s#0, %s#1 : tensor<16x256xf32, #tile>, tensor<16x256xf32, #tile>
  }
}

// -----

// Left alone: one contiguous run a thread already (512 over 128 threads in fours), and a scan
// across the rows of a tile whose threads along that axis cover it once.
// CHECK-LABEL: tt.func @already_contiguous
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#run = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#rows = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @already_contiguous(%v: tensor<512xi32, #run>, %t: tensor<16x32xf32, #rows>) -> (tensor<512xi32, #run>, tensor<16x32xf32, #rows>) {
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tt.scan.return %c : i32
    }) : (tensor<512xi32, #run>) -> tensor<512xi32, #run>
    %u = "tt.scan"(%t) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.scan.return %c : f32
    }) : (tensor<16x32xf32, #rows>) -> tensor<16x32xf32, #rows>
    tt.return %s, %u : tensor<512xi32, #run>, tensor<16x32xf32, #rows>
  }
}

// -----

// Left alone: 16384 f32 elements (64 KiB), more than a conversion around a scan may take in
// shared memory (32 KiB an operand).
// CHECK-LABEL: tt.func @too_large
// CHECK-NOT: ttg.convert_layout
// CHECK: tt.return
#one = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @too_large(%v: tensor<16384xf32, #one>) -> tensor<16384xf32, #one> {
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.scan.return %c : f32
    }) : (tensor<16384xf32, #one>) -> tensor<16384xf32, #one>
    tt.return %s : tensor<16384xf32, #one>
  }
}
