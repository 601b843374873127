// RUN: triton-opt %s | triton-opt | FileCheck %s
// RUN: triton-opt %s --mlir-print-op-generic | triton-opt | FileCheck %s

// Every ttng op survives print -> parse -> print in Triton's text format.

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory

module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tt.func @wgmma
  tt.func @wgmma(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>,
                 %areg: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                 %c: tensor<64x64xf32, #mma>, %use: i1) -> tensor<64x64xf32, #mma> {
    // CHECK: %[[D0:.*]] = ttng.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    %d0 = ttng.warp_group_dot %a, %b, %c {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    // CHECK: ttng.warp_group_dot %{{.*}}, %{{.*}}, %[[D0]], %{{.*}} {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    %d1 = ttng.warp_group_dot %areg, %b, %d0, %use {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    // CHECK: %[[W:.*]]:3 = ttng.warp_group_dot_wait %{{.*}}, %{{.*}}, %{{.*}} {pendings = 0 : i32} : tensor<64x64xf32, #mma>, !ttg.memdesc<64x32xf16, #shared, #smem>, !ttg.memdesc<32x64xf16, #shared, #smem>
    %w:3 = ttng.warp_group_dot_wait %d1, %a, %b {pendings = 0 : i32} : tensor<64x64xf32, #mma>, !ttg.memdesc<64x32xf16, #shared, #smem>, !ttg.memdesc<32x64xf16, #shared, #smem>
    // CHECK: tt.return %[[W]]#0
    tt.return %w#0 : tensor<64x64xf32, #mma>
  }

  // CHECK-LABEL: tt.func @barriers_and_tma
  tt.func @barriers_and_tma(%raw: !tt.ptr<i8>, %base: !tt.ptr<f16>, %m: i32, %n: i32, %stride: i64, %pred: i1, %x: tensor<64x64xf16, #blocked>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    // CHECK: ttng.tensormap_create %{{.*}}, %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}], [%{{.*}}, %{{.*}}] {elem_type = 6 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    ttng.tensormap_create %raw, %base, [%c64, %c64], [%n, %m], [%stride], [%c1, %c1] {elem_type = 6 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    // CHECK: ttng.tensormap_fenceproxy_acquire %{{.*}} : !tt.ptr<i8>
    ttng.tensormap_fenceproxy_acquire %raw : !tt.ptr<i8>
    // CHECK: %[[DESC:.*]] = ttng.reinterpret_tensor_descriptor %{{.*}} : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf16, #shared>>
    %desc = ttng.reinterpret_tensor_descriptor %raw : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf16, #shared>>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.init_barrier %[[BAR:.*]], 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.barrier_expect %[[BAR]], 8192, %{{.*}} : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.barrier_expect %bar, 8192, %pred : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.async_tma_copy_global_to_local %[[DESC]][%{{.*}}, %{{.*}}] %[[BUF:.*]], %[[BAR]], %{{.*}} : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttng.async_tma_copy_global_to_local %desc[%c0, %c64] %buf, %bar, %pred : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // CHECK: ttng.async_tma_copy_global_to_local %[[DESC]][%{{.*}}, %{{.*}}] %[[BUF]], %[[BAR]], %{{.*}} cacheModifier = ca evictionPolicy = evict_first : !tt.tensordesc
    ttng.async_tma_copy_global_to_local %desc[%c0, %c0] %buf, %bar, %pred cacheModifier = ca evictionPolicy = evict_first : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // CHECK: ttng.wait_barrier %[[BAR]], %{{.*}} : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.wait_barrier %bar, %c0 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.wait_barrier %[[BAR]], %{{.*}}, %{{.*}} deps %[[BUF]] : !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttng.wait_barrier %bar, %c1, %pred deps %buf : !ttg.memdesc<1xi64, #bar, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // CHECK: ttng.arrive_barrier %[[BAR]], 2 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.arrive_barrier %bar, 2 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.arrive_barrier %[[BAR]], 1, %{{.*}} : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.arrive_barrier %bar, 1, %pred : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: ttng.inval_barrier %[[BAR]] : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    %src = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    // CHECK: ttng.fence_async_shared {bCluster = false}
    ttng.fence_async_shared {bCluster = false}
    // CHECK: ttng.async_tma_copy_local_to_global %[[DESC]][%{{.*}}, %{{.*}}] %{{.*}} : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem>
    ttng.async_tma_copy_local_to_global %desc[%c0, %c0] %src : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem>
    // CHECK: ttng.async_tma_reduce add, %[[DESC]][%{{.*}}, %{{.*}}] %{{.*}} : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem>
    ttng.async_tma_reduce add, %desc[%c0, %c0] %src : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem>
    // CHECK: ttng.async_tma_store_wait {pendings = 0 : i32}
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}
