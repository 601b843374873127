// RUN: triton-opt %s --split-input-file | triton-opt --split-input-file | FileCheck %s
// RUN: triton-opt %s --split-input-file --mlir-print-op-generic | triton-opt --split-input-file | FileCheck %s

// Every ttg encoding, type and op survives print -> parse -> print in Triton's text format.

// CHECK-DAG: #[[BLOCKED:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[BLOCKED1D:blocked[0-9]*]] = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[LINEAR:linear[0-9]*]] = #ttg.linear<{register = {{\[\[0, 1\], \[0, 2\]\]}}, lane = {{\[\[0, 4\], \[0, 8\], \[0, 16\], \[1, 0\], \[2, 0\]\]}}, warp = {{\[\[4, 0\], \[8, 0\]\]}}, block = []}>
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[MMA2:mma[0-9]*]] = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[SWIZZLED:shared[0-9]*]] = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
// CHECK-DAG: #[[BAR:shared[0-9]*]] = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[NVMMA:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
// CHECK-DAG: #[[NVMMAT:shared[0-9]*]] = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, fp4Padded = true}>
// CHECK-DAG: #[[SMEM:smem]] = #ttg.shared_memory
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1d = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAsPerCGA = [1], CTASplitNum = [1], CTAOrder = [0]}>
#linear = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma2 = #ttg.nvidia_mma<{instrShape = [16, 8], versionMinor = 0, versionMajor = 2, warpsPerCTA = [2, 2]}>
#swizzled = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#nvmma_t = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8, fp4Padded = true}>
#smem = #ttg.shared_memory

module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tt.func @encodings
  tt.func @encodings(%x: tensor<64x64xf16, #blocked>) {
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64x64xf16, #[[BLOCKED]]> -> tensor<64x64xf16, #[[MMA]]>
    %0 = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #mma>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64x64xf16, #[[MMA]]> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>>
    %1 = ttg.convert_layout %0 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64x64xf16, #[[BLOCKED]]> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #[[BLOCKED]]}>>
    %2 = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #blocked, kWidth = 0}>>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64x64xf16, #[[BLOCKED]]> -> tensor<64x64xf16, #[[MMA2]]>
    %3 = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #mma2>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64x64xf16, #[[MMA2]]> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #[[MMA2]], kWidth = 4}>>
    %4 = ttg.convert_layout %3 : tensor<64x64xf16, #mma2> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma2, kWidth = 4}>>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64x64xf16, #[[BLOCKED]]> -> tensor<64x64xf16, #[[LINEAR]]>
    %5 = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #linear>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #[[BLOCKED]]}>> -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #[[MMA]]}>>
    %6 = ttg.convert_layout %r : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<64xi32, #ttg.slice<{dim = 1, parent = #mma}>>
    // CHECK: ttg.convert_layout %{{.*}} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #[[BLOCKED]]}>> -> tensor<64xi32, #[[BLOCKED1D]]>
    %7 = ttg.convert_layout %r : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<64xi32, #blocked1d>
    tt.return
  }

  // CHECK-LABEL: tt.func @shared_memory
  tt.func @shared_memory(%x: tensor<64x64xf16, #blocked>, %i: i32) -> tensor<64x64xf16, #blocked> {
    // CHECK: %[[A:.*]] = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable>
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #swizzled, #smem, mutable>
    // CHECK: ttg.local_alloc %{{.*}} {alignment = 16 : i32} : (tensor<64x64xf16, #[[BLOCKED]]>) -> !ttg.memdesc<64x64xf16, #[[NVMMA]], #[[SMEM]]>
    %b = ttg.local_alloc %x {alignment = 16 : i32} : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #nvmma, #smem>
    // CHECK: %[[S:.*]] = ttg.memdesc_index %[[A]][%{{.*}}] : !ttg.memdesc<2x64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable> -> !ttg.memdesc<64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable>
    %s = ttg.memdesc_index %a[%i] : !ttg.memdesc<2x64x64xf16, #swizzled, #smem, mutable> -> !ttg.memdesc<64x64xf16, #swizzled, #smem, mutable>
    // CHECK: ttg.local_store %{{.*}}, %[[S]] : tensor<64x64xf16, #[[BLOCKED]]> -> !ttg.memdesc<64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable>
    ttg.local_store %x, %s : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #swizzled, #smem, mutable>
    // CHECK: ttg.memdesc_subslice %[[S]][0, 32] : !ttg.memdesc<64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable> -> !ttg.memdesc<64x32xf16, #[[SWIZZLED]], #[[SMEM]], mutable, 64x64>
    %sub = ttg.memdesc_subslice %s [0, 32] : !ttg.memdesc<64x64xf16, #swizzled, #smem, mutable> -> !ttg.memdesc<64x32xf16, #swizzled, #smem, mutable, 64x64>
    // CHECK: ttg.memdesc_trans %{{.*}} {order = array<i32: 1, 0>} : !ttg.memdesc<64x64xf16, #[[NVMMA]], #[[SMEM]]> -> !ttg.memdesc<64x64xf16, #[[NVMMAT]], #[[SMEM]]>
    %t = ttg.memdesc_trans %b {order = array<i32: 1, 0>} : !ttg.memdesc<64x64xf16, #nvmma, #smem> -> !ttg.memdesc<64x64xf16, #nvmma_t, #smem>
    // CHECK: ttg.memdesc_reshape %{{.*}} : !ttg.memdesc<64x64xf16, #[[NVMMA]], #[[SMEM]]> -> !ttg.memdesc<4096xf16, #[[NVMMA]], #[[SMEM]]>
    %flat = ttg.memdesc_reshape %b : !ttg.memdesc<64x64xf16, #nvmma, #smem> -> !ttg.memdesc<4096xf16, #nvmma, #smem>
    // CHECK: ttg.local_load %[[S]] : !ttg.memdesc<64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable> -> tensor<64x64xf16, #[[BLOCKED]]>
    %y = ttg.local_load %s : !ttg.memdesc<64x64xf16, #swizzled, #smem, mutable> -> tensor<64x64xf16, #blocked>
    // CHECK: ttg.local_dealloc %[[A]] : !ttg.memdesc<2x64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable>
    ttg.local_dealloc %a : !ttg.memdesc<2x64x64xf16, #swizzled, #smem, mutable>
    tt.return %y : tensor<64x64xf16, #blocked>
  }

  // CHECK-LABEL: tt.func @async_copies
  tt.func @async_copies(%p: tensor<64x64x!tt.ptr<f16>, #blocked>, %m: tensor<64x64xi1, #blocked>, %o: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #swizzled, #smem, mutable>
    // CHECK: %[[T0:.*]] = ttg.async_copy_global_to_local %{{.*}}, %{{.*}} : tensor<64x64x!tt.ptr<f16>, #[[BLOCKED]]> -> <64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable>
    %t0 = ttg.async_copy_global_to_local %p, %a : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #swizzled, #smem, mutable>
    // CHECK: %[[T1:.*]] = ttg.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} other %{{.*}} cacheModifier = cg evictionPolicy = evict_last {contiguity = 8 : i32, isVolatile = true} : tensor<64x64x!tt.ptr<f16>, #[[BLOCKED]]> -> <64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable>
    %t1 = ttg.async_copy_global_to_local %p, %a mask %m other %o cacheModifier = cg evictionPolicy = evict_last {contiguity = 8 : i32, isVolatile = true} : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf16, #swizzled, #smem, mutable>
    // CHECK: %[[G:.*]] = ttg.async_commit_group tokens %[[T0]], %[[T1]]
    %g = ttg.async_commit_group tokens %t0, %t1
    // CHECK: ttg.async_commit_group{{$}}
    %e = ttg.async_commit_group
    // CHECK: ttg.async_wait %[[G]] {num = 1 : i32}
    %w = ttg.async_wait %g {num = 1 : i32}
    // CHECK: ttg.async_wait {num = 0 : i32}
    %w0 = ttg.async_wait {num = 0 : i32}
    // CHECK: ttg.local_load %{{.*}} token %{{.*}} : !ttg.memdesc<64x64xf16, #[[SWIZZLED]], #[[SMEM]], mutable> -> tensor<64x64xf16, #[[BLOCKED]]>
    %v = ttg.local_load %a token %w : !ttg.memdesc<64x64xf16, #swizzled, #smem, mutable> -> tensor<64x64xf16, #blocked>
    tt.return
  }

  // CHECK-LABEL: tt.func @misc
  tt.func @misc() -> i32 {
    // CHECK: ttg.barrier local{{$}}
    ttg.barrier local
    // CHECK: ttg.barrier local|global_read|global_write{{$}}
    ttg.barrier global_write|local|global_read
    // CHECK: ttg.barrier none{{$}}
    ttg.barrier none
    // CHECK: ttg.barrier all{{$}}
    ttg.barrier local|global_read|global_write|tensor_read|tensor_write
    // CHECK: %[[W:.*]] = ttg.warp_id{{$}}
    %w = ttg.warp_id
    // CHECK: ttg.warp_id {omitUniformHint}
    %w2 = ttg.warp_id {omitUniformHint}
    // CHECK: ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
    %p = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #bar, #smem, mutable>
    // CHECK: tt.return %[[W]] : i32
    tt.return %w : i32
  }
}

// -----

// Multi-CTA encodings print their CTA parameters.
// CHECK-DAG: #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
// CHECK-DAG: #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 1], CTAOrder = [0, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
// CHECK-DAG: #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#mma2cta = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 1], CTAOrder = [0, 1], instrShape = [16, 64, 16]}>
#sw2 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#nv2 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CTAsPerCGA = [2, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
#smem2 = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @multi_cta(%x: tensor<64x64xf16, #blocked2>) {
    %0 = ttg.convert_layout %x : tensor<64x64xf16, #blocked2> -> tensor<64x64xf16, #mma2cta>
    %1 = ttg.local_alloc %x : (tensor<64x64xf16, #blocked2>) -> !ttg.memdesc<64x64xf16, #sw2, #smem2>
    %2 = ttg.local_alloc %x : (tensor<64x64xf16, #blocked2>) -> !ttg.memdesc<64x64xf16, #nv2, #smem2>
    tt.return
  }
}
