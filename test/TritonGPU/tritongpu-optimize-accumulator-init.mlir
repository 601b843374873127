// RUN: triton-opt %s --split-input-file --tritongpu-optimize-accumulator-init | FileCheck %s

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory

// An accumulator that only starts as zeros is left alone, as Triton 3.6 leaves it (a flag
// there would make LLVM peel the first iteration and copy the accumulator into the loop).
// CHECK-LABEL: tt.func @zero_init
// CHECK-NOT: arith.constant false
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #mma>)
// CHECK: ttng.warp_group_dot %{{.*}}, %{{.*}}, %{{[a-z0-9_]+}} :
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @zero_init(%a: !ttg.memdesc<64x64xf16, #shared, #smem>, %b: !ttg.memdesc<64x64xf16, #shared, #smem>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = ttng.warp_group_dot %a, %b, %acc : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return %r : tensor<64x64xf32, #mma>
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory

// A reset by select: the zeros go, useC is the flag and not the reset (the flag starts true,
// the init not being zero).
// CHECK-LABEL: tt.func @select_reset
// CHECK: %[[TRUE0:.*]] = arith.constant true
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %arg2, %[[FLAG:.*]] = %[[TRUE0]])
// CHECK-NOT: arith.select
// CHECK: %[[KEEP:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK: %[[USE:.*]] = arith.andi %[[FLAG]], %[[KEEP]] : i1
// CHECK: ttng.warp_group_dot %{{.*}}, %{{.*}}, %[[ACC]], %[[USE]]
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @select_reset(%a: !ttg.memdesc<64x64xf16, #shared, #smem>, %b: !ttg.memdesc<64x64xf16, #shared, #smem>, %init: tensor<64x64xf32, #mma>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32, #mma>) : i32 {
      %rem = arith.remsi %i, %c4 : i32
      %reset = arith.cmpi eq, %rem, %c0 : i32
      %start = arith.select %reset, %zero, %acc : tensor<64x64xf32, #mma>
      %d = ttng.warp_group_dot %a, %b, %start : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return %r : tensor<64x64xf32, #mma>
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory

// An accumulator that starts from data and is never reset stays as it is.
// CHECK-LABEL: tt.func @data_init
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #mma>)
// CHECK: ttng.warp_group_dot %{{.*}}, %{{.*}}, %{{[a-z0-9_]+}} :
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @data_init(%a: !ttg.memdesc<64x64xf16, #shared, #smem>, %b: !ttg.memdesc<64x64xf16, #shared, #smem>, %init: tensor<64x64xf32, #mma>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = ttng.warp_group_dot %a, %b, %acc : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return %r : tensor<64x64xf32, #mma>
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory

// A reset of a zero-initialized accumulator: the flag starts false.
// CHECK-LABEL: tt.func @zero_init_and_reset
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[FLAG:.*]] = %[[FALSE]])
// CHECK-NOT: arith.select
// CHECK: %[[USE:.*]] = arith.andi %[[FLAG]], %{{.*}} : i1
// CHECK: ttng.warp_group_dot %{{.*}}, %{{.*}}, %[[ACC]], %[[USE]]
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.yield %{{.*}}, %[[TRUE]]
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @zero_init_and_reset(%a: !ttg.memdesc<64x64xf16, #shared, #smem>, %b: !ttg.memdesc<64x64xf16, #shared, #smem>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %rem = arith.remsi %i, %c4 : i32
      %reset = arith.cmpi eq, %rem, %c0 : i32
      %start = arith.select %reset, %zero, %acc : tensor<64x64xf32, #mma>
      %d = ttng.warp_group_dot %a, %b, %start : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tt.return %r : tensor<64x64xf32, #mma>
  }
}
