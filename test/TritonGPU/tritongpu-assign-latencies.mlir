// RUN: triton-opt %kernels/dot/loop_stages.tritium.ttgir --tritongpu-assign-latencies=num-stages=3 | FileCheck %s
// RUN: triton-opt %kernels/dot/loop_stages.tritium.ttgir --tritongpu-assign-latencies=num-stages=1 | FileCheck %s --check-prefix=OFF

// Each load the pipeliner stages gets tt.latency = stages - 1 (the loop's tt.num_stages, from
// tl.range(num_stages=...), over the option); the single accumulating wgmma that stays in
// flight gets tt.self_latency = 1. A load without cp.async-sized accesses (an operand of
// unknown alignment: 2-byte copies) and a load feeding no dot get none, and a dot reading the
// buffer an unstaged load rewrites each iteration is not kept in flight.
// CHECK-LABEL: tt.func @matmul
// CHECK: tt.load %{{.*}} {tt.latency = 2 : i32} : tensor<64x32x!tt.ptr<f16>
// CHECK: tt.load %{{.*}} {tt.latency = 2 : i32} : tensor<32x64x!tt.ptr<f16>
// CHECK: ttng.warp_group_dot {{.*}} {inputPrecision = 0 : i32, tt.self_latency = 1 : i32}
// CHECK-LABEL: tt.func @four_stages
// CHECK: tt.load %{{.*}} {tt.latency = 3 : i32}
// CHECK: tt.load %{{.*}} {tt.latency = 3 : i32}
// CHECK: tt.self_latency = 1
// CHECK-LABEL: tt.func @one_stage
// CHECK-NOT: tt.latency
// CHECK-NOT: tt.self_latency
// CHECK-LABEL: tt.func @unaligned_a
// CHECK: tt.load %{{.*}} : tensor<64x32x!tt.ptr<f16>
// CHECK: tt.load %{{.*}} {tt.latency = 2 : i32} : tensor<32x64x!tt.ptr<f16>
// CHECK: ttng.warp_group_dot {{.*}} {inputPrecision = 0 : i32} :
// CHECK-LABEL: tt.func @loaded_for_a_store
// CHECK-NOT: tt.latency

// With one stage by default only the loop asking for four is marked.
// OFF-LABEL: tt.func @matmul
// OFF-NOT: tt.latency
// OFF-LABEL: tt.func @four_stages
// OFF: tt.load %{{.*}} {tt.latency = 3 : i32}
// OFF-LABEL: tt.func @one_stage
// OFF-NOT: tt.latency
