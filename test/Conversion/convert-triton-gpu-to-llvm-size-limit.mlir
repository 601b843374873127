// RUN: not triton-opt %s --tritium-llvm 2>&1 | FileCheck %s

// A kernel whose lowering would make more than 65,536 LLVM operations is refused with a located
// error at the op that crosses the limit, in well under a second, instead of minutes in LLVM:
// 80 multiplications of 1024 values per thread (a 32768-element tensor on one warp).
// CHECK: convert-triton-gpu-to-llvm-size-limit.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the kernel's lowering has made {{[0-9]+}} LLVM operations so far, over the limit of 65536
// CHECK-SAME: use more warps or smaller blocks
#blocked = #ttg.blocked<{sizePerThread = [1024], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @too_large(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 32768 : i32, start = 0 : i32} : tensor<32768xi32, #blocked>
    %x0 = arith.sitofp %r : tensor<32768xi32, #blocked> to tensor<32768xf32, #blocked>
    %x1 = arith.mulf %x0, %x0 : tensor<32768xf32, #blocked>
    %x2 = arith.mulf %x1, %x0 : tensor<32768xf32, #blocked>
    %x3 = arith.mulf %x2, %x0 : tensor<32768xf32, #blocked>
    %x4 = arith.mulf %x3, %x0 : tensor<32768xf32, #blocked>
    %x5 = arith.mulf %x4, %x0 : tensor<32768xf32, #blocked>
    %x6 = arith.mulf %x5, %x0 : tensor<32768xf32, #blocked>
    %x7 = arith.mulf %x6, %x0 : tensor<32768xf32, #blocked>
    %x8 = arith.mulf %x7, %x0 : tensor<32768xf32, #blocked>
    %x9 = arith.mulf %x8, %x0 : tensor<32768xf32, #blocked>
    %x10 = arith.mulf %x9, %x0 : tensor<32768xf32, #blocked>
    %x11 = arith.mulf %x10, %x0 : tensor<32768xf32, #blocked>
    %x12 = arith.mulf %x11, %x0 : tensor<32768xf32, #blocked>
    %x13 = arith.mulf %x12, %x0 : tensor<32768xf32, #blocked>
    %x14 = arith.mulf %x13, %x0 : tensor<32768xf32, #blocked>
    %x15 = arith.mulf %x14, %x0 : tensor<32768xf32, #blocked>
    %x16 = arith.mulf %x15, %x0 : tensor<32768xf32, #blocked>
    %x17 = arith.mulf %x16, %x0 : tensor<32768xf32, #blocked>
    %x18 = arith.mulf %x17, %x0 : tensor<32768xf32, #blocked>
    %x19 = arith.mulf %x18, %x0 : tensor<32768xf32, #blocked>
    %x20 = arith.mulf %x19, %x0 : tensor<32768xf32, #blocked>
    %x21 = arith.mulf %x20, %x0 : tensor<32768xf32, #blocked>
    %x22 = arith.mulf %x21, %x0 : tensor<32768xf32, #blocked>
    %x23 = arith.mulf %x22, %x0 : tensor<32768xf32, #blocked>
    %x24 = arith.mulf %x23, %x0 : tensor<32768xf32, #blocked>
    %x25 = arith.mulf %x24, %x0 : tensor<32768xf32, #blocked>
    %x26 = arith.mulf %x25, %x0 : tensor<32768xf32, #blocked>
    %x27 = arith.mulf %x26, %x0 : tensor<32768xf32, #blocked>
    %x28 = arith.mulf %x27, %x0 : tensor<32768xf32, #blocked>
    %x29 = arith.mulf %x28, %x0 : tensor<32768xf32, #blocked>
    %x30 = arith.mulf %x29, %x0 : tensor<32768xf32, #blocked>
    %x31 = arith.mulf %x30, %x0 : tensor<32768xf32, #blocked>
    %x32 = arith.mulf %x31, %x0 : tensor<32768xf32, #blocked>
    %x33 = arith.mulf %x32, %x0 : tensor<32768xf32, #blocked>
    %x34 = arith.mulf %x33, %x0 : tensor<32768xf32, #blocked>
    %x35 = arith.mulf %x34, %x0 : tensor<32768xf32, #blocked>
    %x36 = arith.mulf %x35, %x0 : tensor<32768xf32, #blocked>
    %x37 = arith.mulf %x36, %x0 : tensor<32768xf32, #blocked>
    %x38 = arith.mulf %x37, %x0 : tensor<32768xf32, #blocked>
    %x39 = arith.mulf %x38, %x0 : tensor<32768xf32, #blocked>
    %x40 = arith.mulf %x39, %x0 : tensor<32768xf32, #blocked>
    %x41 = arith.mulf %x40, %x0 : tensor<32768xf32, #blocked>
    %x42 = arith.mulf %x41, %x0 : tensor<32768xf32, #blocked>
    %x43 = arith.mulf %x42, %x0 : tensor<32768xf32, #blocked>
    %x44 = arith.mulf %x43, %x0 : tensor<32768xf32, #blocked>
    %x45 = arith.mulf %x44, %x0 : tensor<32768xf32, #blocked>
    %x46 = arith.mulf %x45, %x0 : tensor<32768xf32, #blocked>
    %x47 = arith.mulf %x46, %x0 : tensor<32768xf32, #blocked>
    %x48 = arith.mulf %x47, %x0 : tensor<32768xf32, #blocked>
    %x49 = arith.mulf %x48, %x0 : tensor<32768xf32, #blocked>
    %x50 = arith.mulf %x49, %x0 : tensor<32768xf32, #blocked>
    %x51 = arith.mulf %x50, %x0 : tensor<32768xf32, #blocked>
    %x52 = arith.mulf %x51, %x0 : tensor<32768xf32, #blocked>
    %x53 = arith.mulf %x52, %x0 : tensor<32768xf32, #blocked>
    %x54 = arith.mulf %x53, %x0 : tensor<32768xf32, #blocked>
    %x55 = arith.mulf %x54, %x0 : tensor<32768xf32, #blocked>
    %x56 = arith.mulf %x55, %x0 : tensor<32768xf32, #blocked>
    %x57 = arith.mulf %x56, %x0 : tensor<32768xf32, #blocked>
    %x58 = arith.mulf %x57, %x0 : tensor<32768xf32, #blocked>
    %x59 = arith.mulf %x58, %x0 : tensor<32768xf32, #blocked>
    %x60 = arith.mulf %x59, %x0 : tensor<32768xf32, #blocked>
    %x61 = arith.mulf %x60, %x0 : tensor<32768xf32, #blocked>
    %x62 = arith.mulf %x61, %x0 : tensor<32768xf32, #blocked>
    %x63 = arith.mulf %x62, %x0 : tensor<32768xf32, #blocked>
    %x64 = arith.mulf %x63, %x0 : tensor<32768xf32, #blocked>
    %x65 = arith.mulf %x64, %x0 : tensor<32768xf32, #blocked>
    %x66 = arith.mulf %x65, %x0 : tensor<32768xf32, #blocked>
    %x67 = arith.mulf %x66, %x0 : tensor<32768xf32, #blocked>
    %x68 = arith.mulf %x67, %x0 : tensor<32768xf32, #blocked>
    %x69 = arith.mulf %x68, %x0 : tensor<32768xf32, #blocked>
    %x70 = arith.mulf %x69, %x0 : tensor<32768xf32, #blocked>
    %x71 = arith.mulf %x70, %x0 : tensor<32768xf32, #blocked>
    %x72 = arith.mulf %x71, %x0 : tensor<32768xf32, #blocked>
    %x73 = arith.mulf %x72, %x0 : tensor<32768xf32, #blocked>
    %x74 = arith.mulf %x73, %x0 : tensor<32768xf32, #blocked>
    %x75 = arith.mulf %x74, %x0 : tensor<32768xf32, #blocked>
    %x76 = arith.mulf %x75, %x0 : tensor<32768xf32, #blocked>
    %x77 = arith.mulf %x76, %x0 : tensor<32768xf32, #blocked>
    %x78 = arith.mulf %x77, %x0 : tensor<32768xf32, #blocked>
    %x79 = arith.mulf %x78, %x0 : tensor<32768xf32, #blocked>
    %x80 = arith.mulf %x79, %x0 : tensor<32768xf32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32768x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<32768x!tt.ptr<f32>, #blocked>, tensor<32768xi32, #blocked>
    tt.store %pa, %x80 : tensor<32768x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
