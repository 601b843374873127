// RUN: triton-opt %s --split-input-file --tritongpu-pipeline=num-stages=3 | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritongpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF

// On sm_90 a descriptor store in a loop is staged in one buffer allocated before the loop: each
// iteration first waits for the previous store to have read the buffer, writes it, fences and
// issues the TMA store without waiting for it; the last store is waited for after the loop,
// then the buffer is freed. Under an scf.if of the loop (a fused persistent loop's epilogue)
// and for reductions alike. With one stage nothing changes.
// CHECK-LABEL: tt.func public @store_each_iteration
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
// CHECK-NEXT: scf.for
// CHECK: %[[V:.*]] = arith.addf
// CHECK-NEXT: %[[ROW:.*]] = arith.muli
// CHECK-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: ttg.local_store %[[V]], %[[BUF]] : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
// CHECK-NEXT: ttng.fence_async_shared {bCluster = false}
// CHECK-NEXT: ttng.async_tma_copy_local_to_global %arg0[%[[ROW]], %{{.*}}] %[[BUF]] : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: ttg.local_dealloc %[[BUF]]
// CHECK-NOT: tt.descriptor_store
// CHECK: tt.return
// OFF-LABEL: tt.func public @store_each_iteration
// OFF-NOT: ttg.local_alloc
// OFF: tt.descriptor_store
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @store_each_iteration(%desc: !tt.tensordesc<tensor<64x64xf16, #shared>>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %last = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc = %one) -> (tensor<64x64xf16, #blocked>)  : i32 {
      %next = arith.addf %acc, %one : tensor<64x64xf16, #blocked>
      %row = arith.muli %i, %c64_i32 : i32
      tt.descriptor_store %desc[%row, %c0_i32], %next : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
      scf.yield %next : tensor<64x64xf16, #blocked>
    }
    tt.return
  }
}

// -----

// CHECK-LABEL: tt.func public @store_at_tile_end
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
// CHECK-NEXT: scf.for
// CHECK: scf.if
// CHECK-NEXT: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: ttg.local_store %{{.*}}, %[[BUF]]
// CHECK-NEXT: ttng.fence_async_shared
// CHECK-NEXT: ttng.async_tma_copy_local_to_global %arg0[%{{.*}}, %{{.*}}] %[[BUF]]
// CHECK-NEXT: }
// CHECK: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: ttg.local_dealloc %[[BUF]]
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @store_at_tile_end(%desc: !tt.tensordesc<tensor<64x64xf16, #shared>>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c7_i32 = arith.constant 7 : i32
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %last = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc = %one) -> (tensor<64x64xf16, #blocked>)  : i32 {
      %next = arith.addf %acc, %one : tensor<64x64xf16, #blocked>
      %end = arith.cmpi eq, %i, %c7_i32 : i32
      scf.if %end {
        tt.descriptor_store %desc[%i, %c0_i32], %next : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
      }
      scf.yield %next : tensor<64x64xf16, #blocked>
    }
    tt.return
  }
}

// -----

// CHECK-LABEL: tt.func public @reduce_each_iteration
// CHECK: %[[BUF:.*]] = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
// CHECK: scf.for
// CHECK: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: ttg.local_store %{{.*}}, %[[BUF]]
// CHECK-NEXT: ttng.fence_async_shared
// CHECK-NEXT: ttng.async_tma_reduce add, %arg0[%{{.*}}, %{{.*}}] %[[BUF]]
// CHECK: ttng.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: ttg.local_dealloc %[[BUF]]
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @reduce_each_iteration(%desc: !tt.tensordesc<tensor<64x64xf32, #shared>>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf32, #blocked>
    scf.for %i = %c0_i32 to %n step %c1_i32  : i32 {
      tt.descriptor_reduce add, %desc[%i, %c0_i32], %one : !tt.tensordesc<tensor<64x64xf32, #shared>>, tensor<64x64xf32, #blocked>
    }
    tt.return
  }
}

// -----

// Left alone: a store after the loop, a store through a descriptor the loop makes, and a
// store in a loop of one stage (tt.num_stages = 1).
// CHECK-LABEL: tt.func public @not_pipelined
// CHECK-NOT: ttg.local_alloc
// CHECK: scf.for
// CHECK: tt.make_tensor_descriptor
// CHECK: tt.descriptor_store
// CHECK: scf.for
// CHECK: tt.descriptor_store
// CHECK: tt.num_stages = 1
// CHECK: tt.descriptor_store
// CHECK-NOT: ttng.async_tma_copy_local_to_global
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @not_pipelined(%desc: !tt.tensordesc<tensor<64x64xf16, #shared>>, %base: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %c64_i64 = arith.constant 64 : i64
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    scf.for %i = %c0_i32 to %n step %c1_i32  : i32 {
      %made = tt.make_tensor_descriptor %base, [%n, %c64_i32], [%c64_i64, %c1_i64] : <f16>, <tensor<64x64xf16, #shared>>
      tt.descriptor_store %made[%i, %c0_i32], %one : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
    }
    scf.for %i = %c0_i32 to %n step %c1_i32  : i32 {
      tt.descriptor_store %desc[%i, %c0_i32], %one : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
    } {tt.num_stages = 1 : i32}
    tt.descriptor_store %desc[%c0_i32, %c0_i32], %one : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
    tt.return
  }
}

// -----

// Below sm_90 (no TMA) nothing changes.
// CHECK-LABEL: tt.func public @on_sm80
// CHECK-NOT: ttg.local_alloc
// CHECK: tt.descriptor_store
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @on_sm80(%desc: !tt.tensordesc<tensor<64x64xf16, #shared>>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    scf.for %i = %c0_i32 to %n step %c1_i32  : i32 {
      tt.descriptor_store %desc[%i, %c0_i32], %one : !tt.tensordesc<tensor<64x64xf16, #shared>>, tensor<64x64xf16, #blocked>
    }
    tt.return
  }
}
