// RUN: triton-opt %s --cse --canonicalize | FileCheck %s

// Shared-memory effects let CSE and DCE treat ttg ops like loads and stores.

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tt.func @loads_and_stores
  tt.func @loads_and_stores(%x: tensor<64x64xf32, #blocked>, %y: tensor<64x64xf32, #blocked>) -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>) {
    // CHECK: %[[M:.*]] = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32
    %m = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    // CHECK-NEXT: ttg.local_store %{{.*}}, %[[M]]
    ttg.local_store %x, %m : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    // Two loads with no store between them are one load.
    // CHECK-NEXT: %[[A:.*]] = ttg.local_load %[[M]]
    %a = ttg.local_load %m : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    %b = ttg.local_load %m : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    // A store in between keeps the next load.
    // CHECK-NEXT: ttg.local_store %{{.*}}, %[[M]]
    ttg.local_store %y, %m : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    // CHECK-NEXT: %[[C:.*]] = ttg.local_load %[[M]]
    %c = ttg.local_load %m : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    // Unused loads, views and value-like buffers disappear.
    %dead = ttg.local_load %m : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> tensor<64x64xf32, #blocked>
    %view = ttg.memdesc_subslice %m[32, 0] : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf32, #shared, #smem, mutable, 64x64>
    %imm = ttg.local_alloc %x : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
    // CHECK-NEXT: ttg.local_dealloc %[[M]]
    ttg.local_dealloc %m : !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    // CHECK-NEXT: tt.return %[[A]], %[[A]], %[[C]]
    tt.return %a, %b, %c : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>
  }

  // CHECK-LABEL: tt.func @immutable_buffers_cse
  tt.func @immutable_buffers_cse(%x: tensor<64x64xf32, #blocked>) -> (!ttg.memdesc<64x64xf32, #shared, #smem>, !ttg.memdesc<64x64xf32, #shared, #smem>) {
    // CHECK: %[[B:.*]] = ttg.local_alloc %{{.*}} : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
    // CHECK-NEXT: tt.return %[[B]], %[[B]]
    %0 = ttg.local_alloc %x : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
    %1 = ttg.local_alloc %x : (tensor<64x64xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
    tt.return %0, %1 : !ttg.memdesc<64x64xf32, #shared, #smem>, !ttg.memdesc<64x64xf32, #shared, #smem>
  }

  // CHECK-LABEL: tt.func @async_ops_stay
  tt.func @async_ops_stay(%p: tensor<64x64x!tt.ptr<f32>, #blocked>) {
    %m = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    // CHECK: ttg.async_copy_global_to_local
    // CHECK-NEXT: ttg.async_commit_group
    // CHECK-NEXT: ttg.async_wait
    // CHECK-NEXT: ttg.barrier local
    %t = ttg.async_copy_global_to_local %p, %m : tensor<64x64x!tt.ptr<f32>, #blocked> -> <64x64xf32, #shared, #smem, mutable>
    %g = ttg.async_commit_group tokens %t
    %w = ttg.async_wait %g {num = 0 : i32}
    ttg.barrier local
    tt.return
  }
}
