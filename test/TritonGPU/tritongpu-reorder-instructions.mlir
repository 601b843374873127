// RUN: triton-opt %s --tritongpu-reorder-instructions | FileCheck %s

// A dot's operand reads sink to the dot, A before B, each staging write moves up to its load,
// and nothing moves above what it reads.
// CHECK-LABEL: tt.func @operands_next_to_their_dot
// CHECK: %[[B:.*]] = tt.load
// CHECK-NEXT: %[[BS:.*]] = ttg.local_alloc %[[B]]
// CHECK-NEXT: arith.addf %[[B]], %[[B]]
// CHECK-NEXT: %[[A:.*]] = tt.load
// CHECK-NEXT: %[[AS:.*]] = ttg.local_alloc %[[A]]
// CHECK-NEXT: tt.store
// CHECK-NEXT: %[[AD:.*]] = ttg.local_load %[[AS]] {{.*}}opIdx = 0
// CHECK-NEXT: %[[BD:.*]] = ttg.local_load %[[BS]] {{.*}}opIdx = 1
// CHECK-NEXT: tt.dot %[[AD]], %[[BD]]

// An operand read by two dots stays where it is.
// CHECK-LABEL: tt.func @shared_operand_stays
// CHECK: ttg.local_alloc
// CHECK-NEXT: ttg.local_load {{.*}}opIdx = 1
// CHECK-NEXT: tt.load
// CHECK-NEXT: ttg.local_alloc
// CHECK-NEXT: ttg.local_load {{.*}}opIdx = 0
// CHECK-NEXT: tt.dot
// CHECK-NEXT: tt.dot

// A conversion sinks past the wait and the deallocation to its first user.
// CHECK-LABEL: tt.func @conversion_after_deallocs
// CHECK: ttg.async_wait {num = 0 : i32}
// CHECK-NEXT: ttg.local_dealloc
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout
// CHECK-NEXT: arith.addf %[[C]], %[[C]]

// Used by a loop (its init and its body), a conversion goes right before the loop.
// CHECK-LABEL: tt.func @conversion_used_in_a_loop
// CHECK: arith.addf
// CHECK-NEXT: %[[C:.*]] = ttg.convert_layout
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[C]])
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @operands_next_to_their_dot(%p: tensor<32x32x!tt.ptr<f16>, #blocked>) -> tensor<32x32xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %b = tt.load %p : tensor<32x32x!tt.ptr<f16>, #blocked>
    %other = arith.addf %b, %b : tensor<32x32xf16, #blocked>
    %bs = ttg.local_alloc %b : (tensor<32x32xf16, #blocked>) -> !ttg.memdesc<32x32xf16, #shared, #smem>
    %bd = ttg.local_load %bs : !ttg.memdesc<32x32xf16, #shared, #smem> -> tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
    %a = tt.load %p : tensor<32x32x!tt.ptr<f16>, #blocked>
    %as = ttg.local_alloc %a : (tensor<32x32xf16, #blocked>) -> !ttg.memdesc<32x32xf16, #shared, #smem>
    %ad = ttg.local_load %as : !ttg.memdesc<32x32xf16, #shared, #smem> -> tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    tt.store %p, %other : tensor<32x32x!tt.ptr<f16>, #blocked>
    %d = tt.dot %ad, %bd, %zero : tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<32x32xf32, #mma>
    tt.return %d : tensor<32x32xf32, #mma>
  }
  tt.func @shared_operand_stays(%p: tensor<32x32x!tt.ptr<f16>, #blocked>) -> tensor<32x32xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %b = tt.load %p : tensor<32x32x!tt.ptr<f16>, #blocked>
    %bs = ttg.local_alloc %b : (tensor<32x32xf16, #blocked>) -> !ttg.memdesc<32x32xf16, #shared, #smem>
    %bd = ttg.local_load %bs : !ttg.memdesc<32x32xf16, #shared, #smem> -> tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
    %a = tt.load %p : tensor<32x32x!tt.ptr<f16>, #blocked>
    %as = ttg.local_alloc %a : (tensor<32x32xf16, #blocked>) -> !ttg.memdesc<32x32xf16, #shared, #smem>
    %ad = ttg.local_load %as : !ttg.memdesc<32x32xf16, #shared, #smem> -> tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    %d0 = tt.dot %ad, %bd, %zero : tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<32x32xf32, #mma>
    %d1 = tt.dot %ad, %bd, %d0 : tensor<32x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<32x32xf32, #mma>
    tt.return %d1 : tensor<32x32xf32, #mma>
  }
  tt.func @conversion_after_deallocs(%x: tensor<32x32xf32, #blocked>, %n: i32) -> tensor<32x32xf32, #blocked1> {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<4x32x32xf16, #shared, #smem, mutable>
    %c = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
    %t = ttg.async_wait {num = 0 : i32}
    ttg.local_dealloc %buf : !ttg.memdesc<4x32x32xf16, #shared, #smem, mutable>
    %s = arith.addf %c, %c : tensor<32x32xf32, #blocked1>
    tt.return %s : tensor<32x32xf32, #blocked1>
  }
  tt.func @conversion_used_in_a_loop(%x: tensor<32x32xf32, #blocked>, %n: i32) -> tensor<32x32xf32, #blocked1> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
    %y = arith.addf %x, %x : tensor<32x32xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<32x32xf32, #blocked1>) : i32 {
      %s = arith.addf %acc, %c : tensor<32x32xf32, #blocked1>
      scf.yield %s : tensor<32x32xf32, #blocked1>
    }
    tt.return %r : tensor<32x32xf32, #blocked1>
  }
}
