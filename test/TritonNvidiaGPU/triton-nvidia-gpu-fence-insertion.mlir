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
