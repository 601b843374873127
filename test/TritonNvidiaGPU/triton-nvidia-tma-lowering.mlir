// RUN: triton-opt %s --split-input-file --triton-nvidia-tma-lowering | FileCheck %s
// RUN: triton-opt %s --split-input-file --triton-nvidia-tma-lowering=compute-capability=80 | FileCheck %s --check-prefix=SM80

// A descriptor made in the kernel is written to global scratch by ttng.tensormap_create (box,
// dims and byte strides innermost first: f32 rows of 128 bytes are one 32-wide box), loads
// wait on an mbarrier, stores go through a shared buffer and a bulk group. Below sm_90,
// nothing changes.
// CHECK-LABEL: tt.func public @copy
// CHECK: %[[SCRATCH:.*]] = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
// CHECK: %[[BYTES:.*]] = arith.muli %{{.*}}, %c4_i64{{.*}} : i64
// CHECK: ttng.tensormap_create %[[SCRATCH]], %arg0, [%c32_i32{{.*}}, %c64_i32{{.*}}], [%arg3, %arg2], [%[[BYTES]]], [%c1_i32{{.*}}, %c1_i32{{.*}}] {elem_type = 7 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32}
// CHECK: ttng.tensormap_fenceproxy_acquire %[[SCRATCH]] : !tt.ptr<i8>
// CHECK: %[[DESC:.*]] = ttng.reinterpret_tensor_descriptor %[[SCRATCH]] : !tt.ptr<i8> to !tt.tensordesc<tensor<64x64xf32, #shared>>
// CHECK: fill_mode = 1 : i32
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
// CHECK: %[[BAR:.*]] = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
// CHECK: ttng.init_barrier %[[BAR]], 1
// CHECK: ttng.barrier_expect %[[BAR]], 16384, %true
// CHECK: ttng.async_tma_copy_global_to_local %[[DESC]][%{{.*}}, %c0_i32] %[[BUF]], %[[BAR]], %true
// CHECK: ttng.wait_barrier %[[BAR]], %c0_i32{{.*}} :
// CHECK: ttng.inval_barrier %[[BAR]]
// CHECK: %[[V:.*]] = ttg.local_load %[[BUF]] : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
// CHECK: %[[SRC:.*]] = ttg.local_alloc %[[V]] : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: ttng.async_tma_copy_local_to_global %{{.*}}[%{{.*}}, %c0_i32] %[[SRC]]
// CHECK-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK: ttng.async_tma_reduce add, %{{.*}}[%{{.*}}, %c0_i32] %{{.*}} :
// CHECK-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NOT: tt.descriptor_
// CHECK: tt.return
// SM80-LABEL: tt.func public @copy
// SM80-NOT: ttng.
// SM80: tt.descriptor_load
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copy(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %n64 = arith.extsi %N : i32 to i64
    %da = tt.make_tensor_descriptor %a, [%M, %N], [%n64, %c1_i64] : <f32>, <tensor<64x64xf32>>
    %db = tt.make_tensor_descriptor %b, [%M, %N], [%n64, %c1_i64] {padding = 2 : i32} : <f32>, <tensor<64x64xf32>>
    %pid = tt.get_program_id x : i32
    %row = arith.muli %pid, %c64 : i32
    %t = tt.descriptor_load %da[%row, %c0] : !tt.tensordesc<tensor<64x64xf32>> -> tensor<64x64xf32, #blocked>
    tt.descriptor_store %db[%row, %c0], %t : !tt.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #blocked>
    tt.descriptor_reduce add, %db[%row, %c0], %t : !tt.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #blocked>
    tt.return
  }
}

// -----

// Descriptors TMA cannot take keep the per-element lowering: rows of 16 bytes (no swizzle),
// a last stride that is not 1, a descriptor carried through a loop.
// CHECK-LABEL: tt.func public @fallback
// CHECK-NOT: ttng.
// CHECK-COUNT-3: tt.descriptor_load
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fallback(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %s: i64) -> tensor<64x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1_i64 = arith.constant 1 : i64
    %n64 = arith.extsi %N : i32 to i64
    %narrow = tt.make_tensor_descriptor %a, [%M, %N], [%n64, %c1_i64] : <f32>, <tensor<64x4xf32>>
    %x = tt.descriptor_load %narrow[%c0, %c0] : !tt.tensordesc<tensor<64x4xf32>> -> tensor<64x4xf32, #blocked>
    %strided = tt.make_tensor_descriptor %a, [%M, %N], [%n64, %s] : <f32>, <tensor<64x64xf32>>
    %y = tt.descriptor_load %strided[%c0, %c0] : !tt.tensordesc<tensor<64x64xf32>> -> tensor<64x64xf32, #blocked>
    %d = tt.make_tensor_descriptor %a, [%M, %N], [%n64, %c1_i64] : <f32>, <tensor<64x64xf32>>
    %r = scf.for %i = %c1 to %c2 step %c1 iter_args(%it = %d) -> (!tt.tensordesc<tensor<64x64xf32>>) {
      scf.yield %it : !tt.tensordesc<tensor<64x64xf32>>
    }
    %z = tt.descriptor_load %r[%c0, %c0] : !tt.tensordesc<tensor<64x64xf32>> -> tensor<64x64xf32, #blocked>
    %sum = arith.addf %y, %z : tensor<64x64xf32, #blocked>
    tt.return %sum : tensor<64x64xf32, #blocked>
  }
}

// -----

// A host-side descriptor (a kernel argument, with the shape and stride scalars Triton passes
// after it) is already a TMA descriptor: its accesses become TMA copies, its type gets the
// block's layout (f16 rows of 128 bytes: swizzle 128).
// CHECK-LABEL: tt.func public @host(%arg0: !tt.tensordesc<tensor<128x64xf16, #shared>>
// CHECK: ttng.barrier_expect %{{.*}}, 16384, %true
// CHECK: ttng.async_tma_copy_global_to_local %arg0[%c0_i32, %c0_i32]
// CHECK: ttng.async_tma_copy_local_to_global %arg0[%c0_i32, %c0_i32]
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @host(%d: !tt.tensordesc<tensor<128x64xf16>>, %d_0: i32, %d_1: i32, %d_2: i64, %d_3: i64) {
    %c0 = arith.constant 0 : i32
    %t = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
    tt.descriptor_store %d[%c0, %c0], %t : !tt.tensordesc<tensor<128x64xf16>>, tensor<128x64xf16, #blocked>
    tt.return
  }
}

// -----

// Rank-reduced accesses (a batched 1x128x64 block loaded and stored as 128x64): buffers of the
// tensor's shape in the block's layout, copies with a coordinate per block dim, the block's
// bytes expected; a wgmma operand's local_alloc in that layout reads the TMA buffer itself.
// CHECK-LABEL: tt.func public @rank_reduced
// CHECK: ttng.tensormap_create %{{.*}}, %arg0, [%c64_i32{{.*}}, %c128_i32{{.*}}, %c1_i32{{.*}}], [%arg3, %arg2, %arg1]
// CHECK: %[[DESC:.*]] = ttng.reinterpret_tensor_descriptor %{{.*}} : !tt.ptr<i8> to !tt.tensordesc<tensor<1x128x64xf16, #shared>>
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
// CHECK: ttng.barrier_expect %{{.*}}, 16384, %true
// CHECK: ttng.async_tma_copy_global_to_local %[[DESC]][%arg4, %c0_i32, %c0_i32] %[[BUF]], %{{.*}}, %true : !tt.tensordesc<tensor<1x128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
// CHECK: %[[V:.*]] = ttg.local_load %[[BUF]] : !ttg.memdesc<128x64xf16, #shared, #smem, mutable> -> tensor<128x64xf16, #blocked>
// CHECK-NOT: ttg.local_alloc %[[V]]
// CHECK: ttng.warp_group_dot %[[BUF]], %arg6
// CHECK: %[[SRC:.*]] = ttg.local_alloc %[[V]] : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #shared, #smem>
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: ttng.async_tma_copy_local_to_global %[[DESC]][%arg4, %c0_i32, %c0_i32] %[[SRC]] : !tt.tensordesc<tensor<1x128x64xf16, #shared>>, !ttg.memdesc<128x64xf16, #shared, #smem>
// CHECK-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NOT: tt.descriptor_
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rank_reduced(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %B: i32, %M: i32, %K: i32, %batch: i32, %acc: tensor<128x128xf32, #mma>, %b: !ttg.memdesc<64x128xf16, #shared, #smem>) -> tensor<128x128xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1_i64 = arith.constant 1 : i64
    %k64 = arith.extsi %K : i32 to i64
    %mk = arith.muli %M, %K : i32
    %mk64 = arith.extsi %mk : i32 to i64
    %d = tt.make_tensor_descriptor %a, [%B, %M, %K], [%mk64, %k64, %c1_i64] : <f16>, <tensor<1x128x64xf16>>
    %t = tt.descriptor_load %d[%batch, %c0, %c0] : !tt.tensordesc<tensor<1x128x64xf16>> -> tensor<128x64xf16, #blocked>
    %s = ttg.local_alloc %t : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #shared, #smem>
    %r = ttng.warp_group_dot %s, %b, %acc : !ttg.memdesc<128x64xf16, #shared, #smem> * !ttg.memdesc<64x128xf16, #shared, #smem> -> tensor<128x128xf32, #mma>
    tt.descriptor_store %d[%batch, %c0, %c0], %t : !tt.tensordesc<tensor<1x128x64xf16>>, tensor<128x64xf16, #blocked>
    tt.return %r : tensor<128x128xf32, #mma>
  }
}
