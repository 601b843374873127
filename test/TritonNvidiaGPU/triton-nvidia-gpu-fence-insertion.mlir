// RUN: triton-opt %s --split-input-file --triton-nvidia-gpu-fence-insertion | FileCheck %s
// RUN: triton-opt %s --split-input-file --triton-nvidia-gpu-fence-insertion=compute-capability=80 | FileCheck %s --check-prefix=SM80

// wgmma reads its shared operands through the async proxy: a buffer threads wrote (a
// local_alloc of a tensor) needs fence.proxy.async first, once per dot; below sm_90, nothing.
// CHECK-LABEL: tt.func public @fenced
// CHECK: ttg.local_alloc
// CHECK: ttg.local_alloc
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: ttng.warp_group_dot
// CHECK-NOT: ttng.fence_async_shared
// CHECK: tt.return
// SM80-LABEL: tt.func public @fenced
// SM80-NOT: ttng.fence_async_shared
// SM80-LABEL: tt.func public @already
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fenced(%a: tensor<64x64xf16, #blocked>, %b: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>) {
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %sb = ttg.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %d = ttng.warp_group_dot %sa, %sb, %c {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

// An existing fence is kept, not doubled.
// CHECK-LABEL: tt.func public @already
// CHECK-COUNT-1: ttng.fence_async_shared
// CHECK-NOT: ttng.fence_async_shared
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @already(%a: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>) {
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    ttng.fence_async_shared {bCluster = false}
    %d = ttng.warp_group_dot %sa, %sa, %c {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

// A buffer written before a loop that writes no shared memory through the generic proxy
// (attention's Q): one fence before the loop, none inside. A loop that stores into shared memory
// keeps the fence before its dot.
// CHECK-LABEL: tt.func public @hoisted
// CHECK: ttg.local_alloc %
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: scf.for
// CHECK-NOT: ttng.fence_async_shared
// CHECK: ttng.warp_group_dot
// CHECK: scf.yield
// CHECK-LABEL: tt.func public @stored_in_loop
// CHECK: scf.for
// CHECK: ttg.local_store
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: ttng.warp_group_dot
// A ring's slot stored through its memdesc_index view (as a pipelined loop stages a
// register-held operand) is written by threads too: without the fence the wgmma read stale
// data on an H100.
// CHECK-LABEL: tt.func public @stored_into_ring_slot
// CHECK: scf.for
// CHECK: ttg.local_store
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: ttng.warp_group_dot
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @hoisted(%a: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = ttng.warp_group_dot %sa, %sa, %acc {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return
  }
  tt.func public @stored_in_loop(%a: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %sa = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
      ttg.local_store %a, %sa : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %d = ttng.warp_group_dot %sa, %sa, %acc {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> * !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return
  }
  tt.func public @stored_into_ring_slot(%a: tensor<64x64xf16, #blocked>, %c: tensor<64x64xf32, #mma>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
      %slot = arith.remsi %i, %c1 : i32
      %view = ttg.memdesc_index %ring[%slot] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttg.local_store %a, %view : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %d = ttng.warp_group_dot %view, %view, %acc {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> * !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return
  }
}
