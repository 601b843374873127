// RUN: triton-opt %s --split-input-file --tritium-llvm | FileCheck %s

// A tensor staged through a local_alloc buffer and read back in another layout: stores to and
// loads from shared memory at the buffer's offset, separated by a barrier (none before the
// stores: nothing touched shared memory before them).
// CHECK-LABEL: llvm.func @stage
// CHECK-NOT: bar.sync
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: st.global
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @stage(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %f = arith.sitofp %r : tensor<512xi32, #blocked> to tensor<512xf32, #blocked>
    %m = ttg.local_alloc %f : (tensor<512xf32, #blocked>) -> !ttg.memdesc<512xf32, #shared, #smem>
    %v = ttg.local_load %m : !ttg.memdesc<512xf32, #shared, #smem> -> tensor<512xf32, #blocked1>
    %r1 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked1>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked1>
    %oa = tt.addptr %os, %r1 : tensor<512x!tt.ptr<f32>, #blocked1>, tensor<512xi32, #blocked1>
    tt.store %oa, %v : tensor<512x!tt.ptr<f32>, #blocked1>
    tt.return
  }
}

// -----

// A conversion of booleans goes through shared memory as bytes packed into b32 words (four per
// word here, two words a thread), read back as one v2 load; no byte-wide accesses.
// CHECK-LABEL: llvm.func @bool_convert
// CHECK-NOT: !llvm.ptr<3>) -> i8
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xi32>
// CHECK-NOT: !llvm.ptr<3>) -> i8
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @bool_convert(%out: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %n: i32) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %b = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %c = ttg.convert_layout %b : tensor<1024xi1, #blocked> -> tensor<1024xi1, #blocked1>
    %e = arith.extui %c : tensor<1024xi1, #blocked1> to tensor<1024xi8, #blocked1>
    %r1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked1>
    %os = tt.splat %out : !tt.ptr<i8> -> tensor<1024x!tt.ptr<i8>, #blocked1>
    %oa = tt.addptr %os, %r1 : tensor<1024x!tt.ptr<i8>, #blocked1>, tensor<1024xi32, #blocked1>
    tt.store %oa, %e : tensor<1024x!tt.ptr<i8>, #blocked1>
    tt.return
  }
}

// -----

// A matmul epilogue's conversion of an f16 wgmma accumulator (mma v3) to a blocked layout on
// sm_90: the mma side writes the shared buffer with stmatrix.x4 (8 registers each: 32 elements
// a thread, 4 stmatrix) instead of 16 st.shared.b32, then the blocked side reads it back in
// 16-byte vectors.
// CHECK-LABEL: llvm.func @mma_epilogue
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], {$1, $2, $3, $4};
// CHECK-NOT: stmatrix
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mma_epilogue(%out: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #mma}>>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #mma}>>
    %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<64x1xi32, #mma>
    %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #mma}>> -> tensor<1x64xi32, #mma>
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #mma>
    %rs = arith.muli %r2, %c64 : tensor<64x1xi32, #mma>
    %rb = tt.broadcast %rs : tensor<64x1xi32, #mma> -> tensor<64x64xi32, #mma>
    %cb = tt.broadcast %c2 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>
    %idx = arith.addi %rb, %cb : tensor<64x64xi32, #mma>
    %f = arith.sitofp %idx : tensor<64x64xi32, #mma> to tensor<64x64xf16, #mma>
    %b = ttg.convert_layout %f : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    %brows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %bcols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %br2 = tt.expand_dims %brows {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %bc2 = tt.expand_dims %bcols {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %bc64 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %brs = arith.muli %br2, %bc64 : tensor<64x1xi32, #blocked>
    %brb = tt.broadcast %brs : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %bcb = tt.broadcast %bc2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %bidx = arith.addi %brb, %bcb : tensor<64x64xi32, #blocked>
    %os = tt.splat %out : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %oa = tt.addptr %os, %bidx : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tt.store %oa, %b : tensor<64x64x!tt.ptr<f16>, #blocked>
    tt.return
  }
}

// -----

// The same conversion from mma v2 on sm_80, where stmatrix does not exist: 32-bit shared stores.
// CHECK-LABEL: llvm.func @mma_v2_epilogue
// CHECK-NOT: stmatrix
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK-NOT: stmatrix
// CHECK: llvm.return
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mma_v2_epilogue(%out: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #mma}>>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #mma}>>
    %r2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<64x1xi32, #mma>
    %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #mma}>> -> tensor<1x64xi32, #mma>
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #mma>
    %rs = arith.muli %r2, %c64 : tensor<64x1xi32, #mma>
    %rb = tt.broadcast %rs : tensor<64x1xi32, #mma> -> tensor<64x64xi32, #mma>
    %cb = tt.broadcast %c2 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>
    %idx = arith.addi %rb, %cb : tensor<64x64xi32, #mma>
    %f = arith.sitofp %idx : tensor<64x64xi32, #mma> to tensor<64x64xf16, #mma>
    %b = ttg.convert_layout %f : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    %brows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %bcols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %br2 = tt.expand_dims %brows {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %bc2 = tt.expand_dims %bcols {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %bc64 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %brs = arith.muli %br2, %bc64 : tensor<64x1xi32, #blocked>
    %brb = tt.broadcast %brs : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %bcb = tt.broadcast %bc2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %bidx = arith.addi %brb, %bcb : tensor<64x64xi32, #blocked>
    %os = tt.splat %out : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %oa = tt.addptr %os, %bidx : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tt.store %oa, %b : tensor<64x64x!tt.ptr<f16>, #blocked>
    tt.return
  }
}

// -----

// A tile transposed on its way into a K-major wgmma operand, as the pipeliner stages tf32 B
// from N-major memory: read from its N-major (row-group swizzled) buffer in 4x4 blocks a thread
// whose registers run along K, so each 16-byte read takes registers 4 apart (a strided
// vector), and written K-major with 16-byte stores of consecutive registers.
// CHECK-LABEL: llvm.func @transpose_through_registers
// CHECK-COUNT-4: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK-NOT: !llvm.ptr<3> -> f32
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: !llvm.ptr<3> -> f32
// CHECK: bar.sync 0
// CHECK-COUNT-4: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#ring = #ttg.swizzled_shared<{vec = 4, perPhase = 4, maxPhase = 8, order = [1, 0]}>
#operand = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @transpose_through_registers(%out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %ones = arith.constant dense<1.0> : tensor<32x64xf32, #blocked>
    %ring = ttg.local_alloc %ones : (tensor<32x64xf32, #blocked>) -> !ttg.memdesc<32x64xf32, #ring, #smem>
    %blocks = ttg.local_load %ring : !ttg.memdesc<32x64xf32, #ring, #smem> -> tensor<32x64xf32, #blocked1>
    %op = ttg.local_alloc %blocks : (tensor<32x64xf32, #blocked1>) -> !ttg.memdesc<32x64xf32, #operand, #smem>
    %back = ttg.local_load %op : !ttg.memdesc<32x64xf32, #operand, #smem> -> tensor<32x64xf32, #blocked>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %r2 = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %rb = tt.broadcast %r2 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %os, %rb : tensor<32x64x!tt.ptr<f32>, #blocked>, tensor<32x64xi32, #blocked>
    tt.store %oa, %back : tensor<32x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
