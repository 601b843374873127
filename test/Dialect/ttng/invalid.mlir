// RUN: triton-opt %s --split-input-file --verify-diagnostics

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_k(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<16x64xf16, #shared, #smem>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @below {{A is 64x32 but B is 16x64: the K dims differ}}
    %0 = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<16x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_acc_shape(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x32xf32, #mma>) {
    // expected-error @below {{the accumulator shape [64, 32] must be [64, 64]}}
    %0 = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x32xf32, #mma>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_acc_layout(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xf32, #blocked>) {
    // expected-error @below {{the accumulator needs an #ttg.nvidia_mma encoding of version 3}}
    %0 = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_a_layout(%a: tensor<64x32xf16, #blocked>, %b: !ttg.memdesc<32x64xf16, #shared, #smem>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @below {{A in registers needs a #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma}}
    %0 = ttng.warp_group_dot %a, %b, %c : tensor<64x32xf16, #blocked> * !ttg.memdesc<32x64xf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared8 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @dot_elements(%a: !ttg.memdesc<64x32xf16, #shared, #smem>, %b: !ttg.memdesc<32x64xf8E4M3FN, #shared8, #smem>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @below {{A (f16) and B (f8E4M3FN) must have elements of the same width}}
    %0 = ttng.warp_group_dot %a, %b, %c : !ttg.memdesc<64x32xf16, #shared, #smem> * !ttg.memdesc<32x64xf8E4M3FN, #shared8, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @barrier_type(%b: !ttg.memdesc<1xi32, #bar, #smem, mutable>) {
    // expected-error @below {{alloc must be an mbarrier, a !ttg.memdesc<1xi64>}}
    ttng.init_barrier %b, 1 : !ttg.memdesc<1xi32, #bar, #smem, mutable>
    tt.return
  }
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @barrier_count(%b: !ttg.memdesc<1xi64, #bar, #smem, mutable>) {
    // expected-error @below {{count must be at least 1, not 0}}
    ttng.arrive_barrier %b, 0 : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    tt.return
  }
}

// -----

#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @wait_barrier_type(%b: !ttg.memdesc<4xi64, #bar, #smem, mutable>, %phase: i32) {
    // expected-error @below {{alloc must be an mbarrier}}
    ttng.wait_barrier %b, %phase : !ttg.memdesc<4xi64, #bar, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @tma_coords(%d: !tt.tensordesc<tensor<64x64xf32, #shared>>, %buf: !ttg.memdesc<64x64xf32, #shared, #smem, mutable>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %x: i32, %p: i1) {
    // expected-error @below {{expected 2 coordinates for a block of rank 2, got 1}}
    ttng.async_tma_copy_global_to_local %d[%x] %buf, %bar, %p : !tt.tensordesc<tensor<64x64xf32, #shared>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @tma_immutable(%d: !tt.tensordesc<tensor<64x64xf32, #shared>>, %buf: !ttg.memdesc<64x64xf32, #shared, #smem>, %bar: !ttg.memdesc<1xi64, #bar, #smem, mutable>, %x: i32, %p: i1) {
    // expected-error @below {{cannot copy into an immutable buffer}}
    ttng.async_tma_copy_global_to_local %d[%x, %x] %buf, %bar, %p : !tt.tensordesc<tensor<64x64xf32, #shared>>, !ttg.memdesc<1xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#shared16 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @tma_store_element(%d: !tt.tensordesc<tensor<64x64xf32, #shared>>, %src: !ttg.memdesc<64x64xf16, #shared16, #smem>, %x: i32) {
    // expected-error @below {{source element type f16 does not match the descriptor's f32}}
    ttng.async_tma_copy_local_to_global %d[%x, %x] %src : !tt.tensordesc<tensor<64x64xf32, #shared>>, !ttg.memdesc<64x64xf16, #shared16, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @tma_reduce_shape(%d: !tt.tensordesc<tensor<64x64xf32, #shared>>, %src: !ttg.memdesc<64x32xf32, #shared, #smem>, %x: i32) {
    // expected-error @below {{source shape [64, 32] does not match the descriptor's block shape [64, 64]}}
    ttng.async_tma_reduce add, %d[%x, %x] %src : !tt.tensordesc<tensor<64x64xf32, #shared>>, !ttg.memdesc<64x32xf32, #shared, #smem>
    tt.return
  }
}

// -----

tt.func @tensormap_strides(%raw: !tt.ptr<i8>, %base: !tt.ptr<f32>, %d: i32, %s: i64) {
  // expected-error @below {{rank 2 needs 2 box dims, 2 global dims, 1 global strides and 2 element strides}}
  ttng.tensormap_create %raw, %base, [%d, %d], [%d, %d], [%s, %s], [%d, %d] {elem_type = 7 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f32>, i32, i32, i32, i32, i64, i64, i32, i32) -> ()
  tt.return
}

// -----

tt.func @tensormap_swizzle(%raw: !tt.ptr<i8>, %base: !tt.ptr<f32>, %d: i32, %s: i64) {
  // expected-error @below {{swizzle_mode must be in 0..=3, not 4}}
  ttng.tensormap_create %raw, %base, [%d], [%d], [], [%d] {elem_type = 7 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 4 : i32} : (!tt.ptr<i8>, !tt.ptr<f32>, i32, i32, i32) -> ()
  tt.return
}

// -----

tt.func @store_wait(%raw: !tt.ptr<i8>) {
  // expected-error @below {{pendings must be non-negative, not -2}}
  ttng.async_tma_store_wait {pendings = -2 : i32}
  tt.return
}
