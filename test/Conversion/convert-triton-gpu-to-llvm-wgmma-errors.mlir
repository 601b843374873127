// RUN: triton-opt %s --split-input-file --tritium-llvm --verify-diagnostics

// wgmma reads shared operands through matrix descriptors of a swizzled #ttg.nvmma_shared
// layout: an unswizzled one is a located error, not wrong code.
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#plain = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @unswizzled() {
    %a = arith.constant dense<1.0> : tensor<64x64xf16, #blocked>
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    %sb = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #plain, #smem>
    // expected-error @+1 {{wgmma operand B: swizzlingByteWidth 0 is not supported (32, 64 or 128)}}
    %d = ttng.warp_group_dot %sa, %sb, %c : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #plain, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

// The instruction shape's K must be wgmma's for the element type (16 for f16).
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @wrong_k() {
    %a = arith.constant dense<1.0> : tensor<64x64xf16, #blocked>
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sa = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>
    // expected-error @+1 {{instrShape K is 8 but wgmma on f16 steps K by 16}}
    %d = ttng.warp_group_dot %sa, %sa, %c : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

// 32-bit operands must be K-major in shared memory (wgmma transposes only 16-bit types): an
// N-major tf32 B is rejected.
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mn_major_tf32() {
    %a = arith.constant dense<1.0> : tensor<64x32xf32, #blocked>
    %b = arith.constant dense<1.0> : tensor<32x64xf32, #blocked>
    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sa = ttg.local_alloc %a : (tensor<64x32xf32, #blocked>) -> !ttg.memdesc<64x32xf32, #shared, #smem>
    %sb = ttg.local_alloc %b : (tensor<32x64xf32, #blocked>) -> !ttg.memdesc<32x64xf32, #shared, #smem>
    // expected-error @+1 {{wgmma operand B of 32-bit elements must be K-major in shared memory}}
    %d = ttng.warp_group_dot %sa, %sb, %c {inputPrecision = 0 : i32} : !ttg.memdesc<64x32xf32, #shared, #smem> * !ttg.memdesc<32x64xf32, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

// cp.async zero-fills masked-off elements: a nonzero `other` cannot be honored.
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @nonzero_other(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    %m = arith.constant dense<true> : tensor<1024xi1, #blocked>
    %o = arith.constant dense<1.0> : tensor<1024xf16, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<1024xf16, #shared, #smem, mutable>
    // expected-error @+1 {{nonzero `other` is not supported (cp.async zero-fills)}}
    %t = ttg.async_copy_global_to_local %pp, %buf mask %m other %o : tensor<1024x!tt.ptr<f16>, #blocked> -> <1024xf16, #shared, #smem, mutable>
    tt.return
  }
}

// -----

// A subslice of a swizzled buffer must start on a multiple of its own shape (its offsets then
// XOR into the buffer's).
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @misaligned_subslice() -> tensor<64x32xf16, #blocked> {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // expected-error @+1 {{a subslice must start at a multiple of its own (power-of-two) shape inside the buffer}}
    %v = ttg.memdesc_subslice %buf [0, 16] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 64x64>
    %l = ttg.local_load %v : !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 64x64> -> tensor<64x32xf16, #blocked>
    tt.return %l : tensor<64x32xf16, #blocked>
  }
}
