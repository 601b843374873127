// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_small.tritium.ttgir --tritongpu-pipeline=num-stages=3 | FileCheck %s
// RUN: triton-opt %S/../Inputs/kernels/dot/mm_f16_small.tritium.ttgir --tritongpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF

// Tritium's own TTGIR of a 64x64x32 wgmma matmul loop (`-tritium-ttgir`), pipelined 3 deep: a
// ring of 3 buffers per operand, the copies of iterations 0 and 1 before the loop (one commit
// group each), and in the loop: wait until one group is left in flight, prefetch iteration
// i + 2 into slot (i + 2) mod 3, the dot reading slot i mod 3; after the loop, drain.
// CHECK: %[[RA:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16, #shared, #smem, mutable>
// CHECK: %[[RB:.*]] = ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16, #shared1, #smem, mutable>
// CHECK-COUNT-2: ttg.async_commit_group
// CHECK: scf.for %[[IV:[^ ]*]] =
// CHECK-NEXT: ttg.async_wait {num = 1 : i32}
// CHECK: %[[I:.*]] = arith.divsi
// CHECK: %[[CUR:.*]] = arith.remsi %[[I]], %c3_i32
// CHECK: %[[NEXT:.*]] = arith.remsi
// CHECK: ttg.memdesc_index %[[RA]][%[[NEXT]]]
// CHECK: ttg.async_copy_global_to_local {{.*}} {contiguity = 8 : i32}
// CHECK: ttg.memdesc_index %[[RB]][%[[NEXT]]]
// CHECK: ttg.async_copy_global_to_local
// CHECK: ttg.async_commit_group
// CHECK: %[[A:.*]] = ttg.memdesc_index %[[RA]][%[[CUR]]]
// CHECK: %[[B:.*]] = ttg.memdesc_index %[[RB]][%[[CUR]]]
// CHECK-NOT: tt.load {{.*}} : tensor<64x32x!tt.ptr<f16>
// CHECK: ttng.warp_group_dot %[[A]], %[[B]]
// CHECK: scf.yield
// CHECK: ttg.async_wait {num = 0 : i32}
// OFF-NOT: ttg.async_copy_global_to_local
