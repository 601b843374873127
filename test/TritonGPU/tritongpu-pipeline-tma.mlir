// RUN: triton-opt %s --split-input-file --tritongpu-pipeline=num-stages=3 | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritongpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF
// RUN: triton-opt %kernels/dot/persistent_descriptor.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s --check-prefix=FUSED

// On sm_90 the descriptor loads feeding wgmma become TMA copies into 3-slot rings, the two
// loads of a stage sharing its mbarrier (one expect of both blocks' bytes, one wait): two
// iterations issued before the loop (predicated on the trip count), each iteration waits on
// slot k mod 3 with phase (k / 3) mod 2 (the loop carries both and the slot it writes, from
// 0, 0 and 2), issues iteration k + 2 into slot (k + 2) mod 3 once the in-flight dot of
// iteration k - 1 is done (the dot is asynchronous, waited with pendings = 1 after it and 0
// after the loop), and the dot reads slot k mod 3; the barriers are invalidated after the loop. With one stage nothing changes.
// CHECK-LABEL: tt.func public @tma_matmul
// CHECK: %[[RING:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
// CHECK: %[[RING_B:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
// CHECK: %[[BARS:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x1xi64, #shared1, #smem, mutable>
// CHECK-COUNT-3: ttng.init_barrier
// CHECK-NOT: ttg.local_alloc
// CHECK: ttng.barrier_expect %[[BAR0:.*]], 16384, %[[P0:.*]] :
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %[[BAR0]], %[[P0]]
// CHECK-NOT: ttng.barrier_expect
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %[[BAR0]], %[[P0]]
// CHECK: ttng.barrier_expect %[[BAR1:.*]], 16384, %[[P1:.*]] :
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %[[BAR1]], %[[P1]]
// CHECK-NOT: ttng.barrier_expect
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %[[BAR1]], %[[P1]]
// CHECK: scf.for %[[IV:.*]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:[^ ]*]] = %c0_i32{{[_0-9]*}}, %[[PHASE:[^ ]*]] = %c0_i32{{[_0-9]*}}, %[[WSLOT:[^ ]*]] = %c2_i32{{[_0-9]*}})
// CHECK-NOT: arith.divsi
// CHECK-NOT: arith.remsi
// CHECK: %[[BAR:.*]] = ttg.memdesc_index %[[BARS]][%[[SLOT]]]
// CHECK: ttng.wait_barrier %[[BAR]], %[[PHASE]] :
// CHECK-NOT: ttng.wait_barrier
// CHECK: %[[A:.*]] = ttg.memdesc_index %[[RING]][%[[SLOT]]]
// CHECK: %[[B:.*]] = ttg.memdesc_index %[[RING_B]][%[[SLOT]]]
// CHECK: %[[D:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %{{.*}} {isAsync = true} :
// CHECK-NEXT: %[[W:.*]] = ttng.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK: %[[NEXT:.*]] = ttg.memdesc_index %[[BARS]][%[[WSLOT]]]
// CHECK: ttng.barrier_expect %[[NEXT]], 16384,
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}, %[[NEXT]],
// CHECK-NOT: ttng.barrier_expect
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}, %[[NEXT]],
// CHECK-NOT: tt.descriptor_load
// CHECK: %[[R1:.*]] = arith.addi %[[SLOT]], %{{.*}} : i32
// CHECK: %[[RS:.*]] = arith.cmpi slt, %[[R1]], %{{.*}} : i32
// CHECK: %[[R:.*]] = arith.select %[[RS]], %[[R1]], %{{.*}} : i32
// CHECK: %[[FLIP:.*]] = arith.xori %[[PHASE]], %{{.*}} : i32
// CHECK: %[[P:.*]] = arith.select %[[RS]], %[[PHASE]], %[[FLIP]] : i32
// CHECK: %[[W1:.*]] = arith.addi %[[WSLOT]], %{{.*}} : i32
// CHECK: %[[WS:.*]] = arith.cmpi slt, %[[W1]], %{{.*}} : i32
// CHECK: %[[WN:.*]] = arith.select %[[WS]], %[[W1]], %{{.*}} : i32
// CHECK: scf.yield %[[W]], %[[R]], %[[P]], %[[WN]]
// CHECK: ttng.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-COUNT-3: ttng.inval_barrier
// CHECK-NOT: ttng.inval_barrier
// CHECK: tt.descriptor_store
// OFF-LABEL: tt.func public @tma_matmul
// OFF-NOT: ttng.async_tma_copy_global_to_local
// OFF: tt.descriptor_load
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tma_matmul(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %K: i32, %sa: i32, %sb: i32) -> tensor<64x64xf32, #mma> {
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %0 = arith.extsi %sa : i32 to i64
    %1 = arith.extsi %sb : i32 to i64
    %3 = tt.make_tensor_descriptor %a, [%M, %K], [%0, %c1_i64] : <f16>, <tensor<64x64xf16, #shared>>
    %4 = tt.make_tensor_descriptor %b, [%K, %N], [%1, %c1_i64] : <f16>, <tensor<64x64xf16, #shared>>
    %6 = tt.get_program_id x : i32
    %7 = tt.get_program_id y : i32
    %8 = arith.muli %6, %c64_i32 : i32
    %9 = arith.muli %7, %c64_i32 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %10 = scf.for %k = %c0_i32 to %K step %c64_i32 iter_args(%acc = %cst) -> (tensor<64x64xf32, #mma>)  : i32 {
      %13 = tt.descriptor_load %3[%8, %k] : !tt.tensordesc<tensor<64x64xf16, #shared>> -> tensor<64x64xf16, #blocked>
      %14 = ttg.local_alloc %13 : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
      %15 = tt.descriptor_load %4[%k, %9] : !tt.tensordesc<tensor<64x64xf16, #shared>> -> tensor<64x64xf16, #blocked>
      %16 = ttg.local_alloc %15 : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
      %17 = ttng.warp_group_dot %14, %16, %acc : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %17 : tensor<64x64xf32, #mma>
    }
    %5 = tt.make_tensor_descriptor %a, [%M, %N], [%0, %c1_i64] : <f16>, <tensor<64x64xf16, #shared>>
    %t = tt.descriptor_load %5[%8, %9] : !tt.tensordesc<tensor<64x64xf16, #shared>> -> tensor<64x64xf16, #blocked>
    tt.descriptor_store %5[%8, %9], %t : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
    tt.return %10 : tensor<64x64xf32, #mma>
  }
}

// Tutorial 09's persistent descriptor matmul, fused: the TMA coordinates come through the
// tile prologue's scf.if. The copies of the two prologue stages and of the iteration two
// ahead (after a clone advancing the carried state by the iteration one ahead) are made from
// clones of that branch, each run only for an iteration that exists
// (condition and-ed with the copy's predicate); the wgmma stays in flight, with a
// pendings = 0 wait inside the epilogue branch before the tile's descriptor store.
// FUSED-LABEL: tt.func public @matmul_descriptor_persistent_kernel
// FUSED: } else {
// FUSED: ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16
// FUSED: ttg.local_alloc : () -> !ttg.memdesc<3x64x256xf16
// FUSED: ttng.barrier_expect %{{.*}}, 49152, %[[P:[^ ]*]]
// FUSED: %[[G:.*]] = arith.andi %{{.*}}, %[[P]] : i1
// FUSED: %[[TILE:.*]]:3 = scf.if %[[G]]
// FUSED:   arith.divsi
// FUSED: ttng.async_tma_copy_global_to_local %arg0[%[[TILE]]#0, %{{.*}}] {{.*}}, %[[P]]
// FUSED: ttng.async_tma_copy_global_to_local %arg5[%{{.*}}, %[[TILE]]#1] {{.*}}, %[[P]]
// FUSED: %[[CBUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<128x256xf16, #shared, #smem, mutable>
// FUSED-NEXT: scf.for
// FUSED:   ttng.wait_barrier
// FUSED:   %[[DOT:.*]] = ttng.warp_group_dot {{.*}}isAsync = true
// FUSED:   ttng.warp_group_dot_wait %[[DOT]] {pendings = 1 : i32}
// FUSED:   scf.if
// FUSED:   %[[AG:.*]] = arith.andi %{{.*}}, %[[AP:[^ ]*]] : i1
// FUSED:   %[[AHEAD:.*]]:3 = scf.if %[[AG]]
// FUSED:   ttng.barrier_expect %{{.*}}, 49152, %[[AP]]
// FUSED:   ttng.async_tma_copy_global_to_local %arg0[%[[AHEAD]]#0, %{{.*}}] {{.*}}, %[[AP]]
// FUSED:   ttng.async_tma_copy_global_to_local %arg5[%{{.*}}, %[[AHEAD]]#1] {{.*}}, %[[AP]]
// FUSED:   scf.if
// FUSED:     %[[DONE:.*]] = ttng.warp_group_dot_wait %[[DOT]] {pendings = 0 : i32}
// FUSED:     %[[C:.*]] = arith.truncf %[[DONE]]
// FUSED-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// FUSED-NEXT: ttg.local_store %[[C]], %[[CBUF]]
// FUSED-NEXT: ttng.fence_async_shared
// FUSED-NEXT: ttng.async_tma_copy_local_to_global %arg10[{{.*}}] %[[CBUF]]
// FUSED-NOT: ttng.async_tma_store_wait
// FUSED: scf.yield
// FUSED: ttng.async_tma_store_wait {pendings = 0 : i32}
// FUSED-NEXT: ttg.local_dealloc %[[CBUF]]
// FUSED: ttng.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// FUSED-COUNT-3: ttng.inval_barrier

// -----

// A batched matmul's rank-reduced loads (1x64x64 blocks of 3-D descriptors loaded as 64x64,
// -triton-combine's fold of the reshapes) pipeline like 2-D ones: rings of 64x64 tiles, the
// blocks' bytes expected per stage, copies keeping the batch coordinate, the dot in flight.
// CHECK-LABEL: tt.func public @batched_tma_matmul
// CHECK: %[[RING:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
// CHECK: %[[RING_B:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>
// CHECK: ttng.barrier_expect %[[BAR0:.*]], 16384, %[[P0:.*]] :
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%[[Z:.*]], %{{.*}}, %{{.*}}] %{{.*}}, %[[BAR0]], %[[P0]] : !tt.tensordesc<tensor<1x64x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
// CHECK: ttng.async_tma_copy_global_to_local %{{.*}}[%[[Z]], %{{.*}}, %{{.*}}] %{{.*}}, %[[BAR0]], %[[P0]]
// CHECK: ttng.barrier_expect %{{.*}}, 16384,
// CHECK-COUNT-2: ttng.async_tma_copy_global_to_local %{{.*}}[%[[Z]],
// CHECK: scf.for
// CHECK: ttng.wait_barrier
// CHECK: %[[A:.*]] = ttg.memdesc_index %[[RING]]
// CHECK: %[[B:.*]] = ttg.memdesc_index %[[RING_B]]
// CHECK: %[[D:.*]] = ttng.warp_group_dot %[[A]], %[[B]], %{{.*}} {isAsync = true} : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> * !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
// CHECK-NEXT: ttng.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK: ttng.barrier_expect %{{.*}}, 16384,
// CHECK-COUNT-2: ttng.async_tma_copy_global_to_local %{{.*}}[%[[Z]],
// CHECK-NOT: tt.descriptor_load
// CHECK: scf.yield
// CHECK: ttng.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @batched_tma_matmul(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %B: i32, %M: i32, %N: i32, %K: i32) -> tensor<64x64xf32, #mma> {
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %mk = arith.muli %M, %K : i32
    %mk64 = arith.extsi %mk : i32 to i64
    %k64 = arith.extsi %K : i32 to i64
    %kn = arith.muli %K, %N : i32
    %kn64 = arith.extsi %kn : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %da = tt.make_tensor_descriptor %a, [%B, %M, %K], [%mk64, %k64, %c1_i64] : <f16>, <tensor<1x64x64xf16, #shared>>
    %db = tt.make_tensor_descriptor %b, [%B, %K, %N], [%kn64, %n64, %c1_i64] : <f16>, <tensor<1x64x64xf16, #shared>>
    %pm = tt.get_program_id x : i32
    %pn = tt.get_program_id y : i32
    %z = tt.get_program_id z : i32
    %m0 = arith.muli %pm, %c64_i32 : i32
    %n0 = arith.muli %pn, %c64_i32 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = scf.for %k = %c0_i32 to %K step %c64_i32 iter_args(%acc = %cst) -> (tensor<64x64xf32, #mma>)  : i32 {
      %ta = tt.descriptor_load %da[%z, %m0, %k] : !tt.tensordesc<tensor<1x64x64xf16, #shared>> -> tensor<64x64xf16, #blocked>
      %sa = ttg.local_alloc %ta : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
      %tb = tt.descriptor_load %db[%z, %k, %n0] : !tt.tensordesc<tensor<1x64x64xf16, #shared>> -> tensor<64x64xf16, #blocked>
      %sb = ttg.local_alloc %tb : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
      %d = ttng.warp_group_dot %sa, %sb, %acc : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return %r : tensor<64x64xf32, #mma>
  }
}
