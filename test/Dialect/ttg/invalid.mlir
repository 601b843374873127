// RUN: triton-opt %s --split-input-file --verify-diagnostics

// Encodings on their own (checked when parsed).

// expected-error @below {{sizePerThread, threadsPerWarp, warpsPerCTA and order must all have 2 entries}}
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32], warpsPerCTA = [4, 1], order = [1, 0]}>

// -----

// expected-error @below {{order [0, 0] must be a permutation of 0..2}}
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 0]}>

// -----

// expected-error @below {{threadsPerWarp [3, 8] must hold powers of two}}
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [3, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// -----

// expected-error @below {{unexpected key 'sizePerWarp'}}
#blocked = #ttg.blocked<{sizePerWarp = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// -----

// expected-error @below {{CTASplitNum [2, 1] must divide CTAsPerCGA [1, 2]}}
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 2], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @below {{slice dim 2 is out of range for a parent of rank 2}}
#slice = #ttg.slice<{dim = 2, parent = #blocked}>

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @below {{the parent of a slice must be a distributed encoding}}
#slice = #ttg.slice<{dim = 0, parent = #shared}>

// -----

// expected-error @below {{the parent is not a ttg encoding}}
#slice = #ttg.slice<{dim = 0, parent = "blocked"}>

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// expected-error @below {{opIdx must be 0 (A) or 1 (B), not 2}}
#dot = #ttg.dot_op<{opIdx = 2, parent = #mma, kWidth = 2}>

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// expected-error @below {{kWidth must be 0 (omitted) for a blocked parent}}
#dot = #ttg.dot_op<{opIdx = 0, parent = #blocked, kWidth = 2}>

// -----

#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// expected-error @below {{wgmma reads B from shared memory: opIdx must be 0 for a version 3 parent}}
#dot = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// -----

// expected-error @below {{versionMajor 4 is not supported (2: mma.sync, 3: wgmma)}}
#mma = #ttg.nvidia_mma<{versionMajor = 4, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>

// -----

// expected-error @below {{versionMajor 3 needs instrShape = [m, n, k]}}
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

// -----

// expected-error @below {{every basis must have 2 entries}}
#linear = #ttg.linear<{register = [[0, 1]], lane = [[0, 2, 0]], warp = [], block = []}>

// -----

// expected-error @below {{swizzlingByteWidth must be 0, 32, 64 or 128, not 96}}
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 96, transposed = false, elementBitWidth = 16}>

// -----

// expected-error @below {{vec, perPhase and maxPhase must be positive}}
#shared = #ttg.swizzled_shared<{vec = 0, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// -----

// Encodings against tensors and the module's launch shape.

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @rank_mismatch(%x: tensor<64xf32, #blocked1>) {
    // expected-error @below {{has an encoding of rank 2 for a tensor of rank 1}}
    %0 = ttg.convert_layout %x : tensor<64xf32, #blocked1> -> tensor<64xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @warps_mismatch(%x: tensor<64x64xf32, #blocked1>) {
    // expected-error @below {{has a layout for 8 warps, but the module has ttg.num-warps = 4}}
    %0 = ttg.convert_layout %x : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @lanes_mismatch(%x: tensor<64x64xf32, #blocked1>) {
    // expected-error @below {{has a layout for 64 threads per warp, but the module has ttg.threads-per-warp = 32}}
    %0 = ttg.convert_layout %x : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #ttg.slice<{dim = 0, parent = #blocked}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @slice_parent_warps(%x: tensor<64xf32, #blocked1>) {
    // expected-error @below {{has a layout for 4 warps, but the module has ttg.num-warps = 8}}
    %0 = ttg.convert_layout %x : tensor<64xf32, #blocked1> -> tensor<64xf32, #slice>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @ctas_mismatch(%x: tensor<64x64xf32, #blocked1>) {
    // expected-error @below {{has a layout for 2 CTAs, but the module has ttg.num-ctas = 1}}
    %0 = ttg.convert_layout %x : tensor<64x64xf32, #blocked1> -> tensor<64x64xf32, #blocked>
    tt.return
  }
}

// -----

#linear = #ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [[4, 0]], block = []}>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @linear_warps(%x: tensor<8x16xf32, #blocked>) {
    // expected-error @below {{has a layout for 2 warps, but the module has ttg.num-warps = 4}}
    %0 = ttg.convert_layout %x : tensor<8x16xf32, #blocked> -> tensor<8x16xf32, #linear>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @shared_tensor(%x: tensor<64x64xf32, #blocked>) {
    // expected-error @below {{has a shared-memory encoding; tensors need a distributed one}}
    %0 = ttg.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #shared>
    tt.return
  }
}

// -----

// convert_layout keeps shape and element type.

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @convert_shape(%x: tensor<64x64xf32, #blocked>) {
    // expected-error @below {{requires the same shape for all operands and results}}
    %0 = ttg.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x32xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @convert_element(%x: tensor<64x64xf32, #blocked>) {
    // expected-error @below {{requires the same element type for all operands and results}}
    %0 = ttg.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}

// -----

// Shared memory.

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @local_load_shape(%m: !ttg.memdesc<64x64xf32, #shared, #smem>) {
    // expected-error @below {{result shape [64, 32] does not match the buffer shape [64, 64]}}
    %0 = ttg.local_load %m : !ttg.memdesc<64x64xf32, #shared, #smem> -> tensor<64x32xf32, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @local_load_element(%m: !ttg.memdesc<64x64xf32, #shared, #smem>) {
    // expected-error @below {{result element type f16 does not match the buffer element type f32}}
    %0 = ttg.local_load %m : !ttg.memdesc<64x64xf32, #shared, #smem> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @local_store_shape(%x: tensor<32x64xf32, #blocked>, %m: !ttg.memdesc<64x64xf32, #shared, #smem, mutable>) {
    // expected-error @below {{stored tensor shape [32, 64] does not match the buffer shape [64, 64]}}
    ttg.local_store %x, %m : tensor<32x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @local_store_immutable(%x: tensor<64x64xf32, #blocked>, %m: !ttg.memdesc<64x64xf32, #shared, #smem>) {
    // expected-error @below {{cannot store into an immutable buffer}}
    ttg.local_store %x, %m : tensor<64x64xf32, #blocked> -> !ttg.memdesc<64x64xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @alloc_immutable() {
    // expected-error @below {{a buffer without an initial value must be mutable}}
    %0 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @alloc_source(%x: tensor<64x32xf32, #blocked>) {
    // expected-error @below {{source shape [64, 32] does not match the buffer shape [64, 64]}}
    %0 = ttg.local_alloc %x : (tensor<64x32xf32, #blocked>) -> !ttg.memdesc<64x64xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @index_rank(%m: !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, %i: i32) {
    // expected-error @below {{the result must have rank 2 (one less than the source), not 3}}
    %0 = ttg.memdesc_index %m[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<1x64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @index_shape(%m: !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, %i: i32) {
    // expected-error @below {{result shape [64, 32] must be the source shape without its first dim, [64, 64]}}
    %0 = ttg.memdesc_index %m[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @index_mutability(%m: !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable>, %i: i32) {
    // expected-error @below {{result mutability differs from the source's}}
    %0 = ttg.memdesc_index %m[%i] : !ttg.memdesc<2x64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @subslice_bounds(%m: !ttg.memdesc<64x64xf32, #shared, #smem, mutable>) {
    // expected-error @below {{dim 1: offset 48 + size 32 exceeds the source's 64}}
    %0 = ttg.memdesc_subslice %m[0, 48] : !ttg.memdesc<64x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf32, #shared, #smem, mutable, 64x64>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @trans_order(%m: !ttg.memdesc<64x32xf32, #shared, #smem>) {
    // expected-error @below {{order [1, 1] must be a permutation of 0..2}}
    %0 = ttg.memdesc_trans %m {order = array<i32: 1, 1>} : !ttg.memdesc<64x32xf32, #shared, #smem> -> !ttg.memdesc<32x64xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @trans_shape(%m: !ttg.memdesc<64x32xf32, #shared, #smem>) {
    // expected-error @below {{result shape [64, 32] must be the source shape permuted by the order, [32, 64]}}
    %0 = ttg.memdesc_trans %m {order = array<i32: 1, 0>} : !ttg.memdesc<64x32xf32, #shared, #smem> -> !ttg.memdesc<64x32xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @reshape_count(%m: !ttg.memdesc<64xf32, #shared, #smem>) {
    // expected-error @below {{result shape [8, 16] must have as many elements as the source shape [64]}}
    %0 = ttg.memdesc_reshape %m : !ttg.memdesc<64xf32, #shared, #smem> -> !ttg.memdesc<8x16xf32, #shared, #smem>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @memdesc_rank() {
    // expected-error @below {{has an encoding of rank 3 for a buffer of rank 2}}
    %0 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @memdesc_space() {
    // expected-error @below {{must be in #ttg.shared_memory}}
    %0 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #shared, "global", mutable>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @memdesc_distributed() {
    // expected-error @below {{needs a shared-memory encoding}}
    %0 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf32, #blocked, #smem, mutable>
    tt.return
  }
}

// -----

// Async copies.

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @async_copy_shape(%p: tensor<64x32x!tt.ptr<f32>, #blocked>, %m: !ttg.memdesc<64x64xf32, #shared, #smem, mutable>) {
    // expected-error @below {{pointer shape [64, 32] does not match the buffer shape [64, 64]}}
    %0 = ttg.async_copy_global_to_local %p, %m : tensor<64x32x!tt.ptr<f32>, #blocked> -> <64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @async_copy_pointee(%p: tensor<64x64x!tt.ptr<f16>, #blocked>, %m: !ttg.memdesc<64x64xf32, #shared, #smem, mutable>) {
    // expected-error @below {{pointee type f16 does not match the buffer element type f32}}
    %0 = ttg.async_copy_global_to_local %p, %m : tensor<64x64x!tt.ptr<f16>, #blocked> -> <64x64xf32, #shared, #smem, mutable>
    tt.return
  }
}

// -----

tt.func @async_wait_num() {
  // expected-error @below {{num must be non-negative, not -1}}
  %0 = ttg.async_wait {num = -1 : i32}
  tt.return
}

// -----

tt.func @scratch_alignment() {
  // expected-error @below {{alignment must be a power of two, not 24}}
  %0 = ttg.global_scratch_alloc {alignment = 24 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
  tt.return
}

// -----

tt.func @barrier_keyword() {
  // expected-error @below {{expected an address space (none, local, global_read, global_write, tensor_read, tensor_write or all), got 'shared'}}
  ttg.barrier local|shared
  tt.return
}
