// RUN: triton-opt %kernels/dot/loop_stages.tritium.ttgir --tritongpu-assign-latencies=num-stages=3 --tritongpu-schedule-loops | FileCheck %s
// RUN: triton-opt %kernels/dot/loop_stages.tritium.ttgir --tritongpu-assign-latencies=num-stages=3 --tritongpu-schedule-loops --tritongpu-pipeline=num-stages=2 | FileCheck %s --check-prefix=PIPE
// RUN: triton-opt %kernels/dot/loop_stages.tritium.ttgir --tritongpu-assign-latencies=num-stages=3 --tritongpu-schedule-loops --tritongpu-pipeline=num-stages=2 | not grep -E "loop[.](stage|cluster)|tt[.](self_)?latency|tt[.]scheduled_max_stage"

// A loop with latencies gets tt.scheduled_max_stage (its largest latency); its loads and the
// ops computing their addresses (the pointer increments) stage max - latency in cluster 1,
// everything else the last stage in cluster 0. Loops without latencies are left alone.
// CHECK-LABEL: tt.func @matmul
// CHECK: tt.load %{{.*}} {loop.cluster = 1 : i32, loop.stage = 0 : i32, tt.latency = 2 : i32}
// CHECK: ttg.local_alloc %{{.*}} {loop.cluster = 0 : i32, loop.stage = 2 : i32}
// CHECK: tt.load %{{.*}} {loop.cluster = 1 : i32, loop.stage = 0 : i32, tt.latency = 2 : i32}
// CHECK: ttng.warp_group_dot {{.*}} {inputPrecision = 0 : i32, loop.cluster = 0 : i32, loop.stage = 2 : i32, tt.self_latency = 1 : i32}
// CHECK: tt.addptr %{{.*}} {loop.cluster = 1 : i32, loop.stage = 0 : i32}
// CHECK: tt.addptr %{{.*}} {loop.cluster = 1 : i32, loop.stage = 0 : i32}
// CHECK: scf.yield
// CHECK-NEXT: } {tt.scheduled_max_stage = 2 : i32}
// CHECK-LABEL: tt.func @four_stages
// CHECK: } {tt.num_stages = 4 : i32, tt.scheduled_max_stage = 3 : i32}
// CHECK-LABEL: tt.func @one_stage
// CHECK-NOT: loop.stage
// CHECK: } {tt.num_stages = 1 : i32}
// CHECK-LABEL: tt.func @unaligned_a
// CHECK: tt.load %{{.*}} {loop.cluster = 0 : i32, loop.stage = 2 : i32} : tensor<64x32x!tt.ptr<f16>
// CHECK: tt.load %{{.*}} {loop.cluster = 1 : i32, loop.stage = 0 : i32, tt.latency = 2 : i32}
// CHECK-LABEL: tt.func @loaded_for_a_store
// CHECK-NOT: loop.stage
// CHECK-NOT: tt.scheduled_max_stage

// The pipeliner follows the schedule (three stages, whatever its option says; only the loads
// with a latency are staged) and removes its attributes, from the clones before the loop too.
// PIPE-LABEL: tt.func @matmul
// PIPE: ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16
// PIPE: ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16
// PIPE: ttg.async_wait {num = 1 : i32}
// PIPE-LABEL: tt.func @four_stages
// PIPE: ttg.local_alloc : () -> !ttg.memdesc<4x64x32xf16
// PIPE: ttg.async_wait {num = 2 : i32}
// PIPE-LABEL: tt.func @one_stage
// PIPE-NOT: ttg.async_copy_global_to_local
// PIPE-LABEL: tt.func @unaligned_a
// PIPE-NOT: ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf16
// PIPE: ttg.local_alloc : () -> !ttg.memdesc<3x32x64xf16
