// RUN: triton-opt %s --split-input-file --tritium-llvm | FileCheck %s

// A barrier precedes a shared-memory write unless nothing has touched shared memory since the
// last one. Control flow counts as touching it: a region body starts as if shared memory had
// been read (a loop's back edge), and so does the code after an op with regions. Here the
// `then` branch ends reading a buffer and the `else` branch ends with its write's barrier: the
// write after the `if` still needs a barrier, for the `then` path's readers.
// CHECK-LABEL: llvm.func @write_after_if
// CHECK: llvm.cond_br
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} f32, !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK-NEXT: llvm.br
// CHECK: llvm.br
// CHECK-NEXT: {{^ *\^bb[0-9]+:}}
// CHECK-NEXT: bar.sync 0
// CHECK: llvm.store {{.*}} vector<4xi32>, !llvm.ptr<3>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @write_after_if(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %c: i1) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %f = arith.sitofp %r : tensor<512xi32, #blocked> to tensor<512xf32, #blocked>
    %v = scf.if %c -> (tensor<512xf32, #blocked1>) {
      %m = ttg.local_alloc %f : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
      %a = ttg.local_load %m : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked1>
      scf.yield %a : tensor<512xf32, #blocked1>
    } else {
      %m = ttg.local_alloc %f : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
      %z = arith.constant dense<0.0> : tensor<512xf32, #blocked1>
      scf.yield %z : tensor<512xf32, #blocked1>
    }
    %m2 = ttg.local_alloc %v : (tensor<512xf32, #blocked1>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %w = ttg.local_load %m2 : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %os, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    tt.store %oa, %w : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A loop may run no iteration: after it, shared memory is as the loop's last iteration or the
// code before it left it. The reads before the loop need a barrier before the write after it,
// although the body ends with its own write's barrier.
// CHECK-LABEL: llvm.func @write_after_loop
// CHECK-NOT: bar.sync
// CHECK: llvm.store {{.*}} f32, !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: llvm.cond_br
// CHECK: bar.sync 0
// CHECK: llvm.store {{.*}} f32, !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.br
// CHECK-NEXT: {{^ *\^bb[0-9]+:}}
// CHECK-NEXT: bar.sync 0
// CHECK: llvm.store {{.*}} vector<4xi32>, !llvm.ptr<3>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @write_after_loop(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %f = arith.sitofp %r : tensor<512xi32, #blocked> to tensor<512xf32, #blocked>
    %m = ttg.local_alloc %f : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %a = ttg.local_load %m : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked1>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %mi = ttg.local_alloc %f : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
      scf.yield
    }
    %m2 = ttg.local_alloc %a : (tensor<512xf32, #blocked1>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %w = ttg.local_load %m2 : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %os, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    tt.store %oa, %w : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
