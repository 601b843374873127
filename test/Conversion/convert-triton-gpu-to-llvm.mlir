// RUN: triton-opt %s --split-input-file --tritium-llvm | FileCheck %s

// Vectorized, predicated global accesses; one llvm.func kernel with the thread count.
// CHECK-LABEL: llvm.func @add_kernel
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 128>
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: llvm.inline_asm has_side_effects {{.*}}@$5 ld.global.v4.b32
// CHECK: llvm.fadd
// CHECK: llvm.inline_asm has_side_effects {{.*}}@$0 st.global.v4.b32
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @add_kernel(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %c1024 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c1024 : i32
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %s = tt.splat %base : i32 -> tensor<1024xi32, #blocked>
    %o = arith.addi %s, %r : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %o, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %xa = tt.addptr %xs, %o : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %xa, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    %w = arith.addf %v, %v : tensor<1024xf32, #blocked>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %oa = tt.addptr %os, %o : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %oa, %w, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A full reduction: butterfly shuffles inside each warp, then the warps' partials through
// shared memory, combined with the reduce region's own ops. The warp index (the partial's slot)
// is tid.x / 32 read back from lane 0, so ptxas knows it is warp-uniform.
// CHECK-LABEL: llvm.func @row_max
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[DIVIDED:.*]] = llvm.udiv %[[TID]]
// CHECK: llvm.inline_asm has_side_effects "shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;", "=r,r,r" %[[DIVIDED]]
// CHECK-COUNT-5: llvm.nvvm.shfl.sync.bfly.i32
// CHECK-NOT: bar.sync
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
// CHECK: llvm.intr.maxnum
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @row_max(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32>) {
    %r = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>, #blocked>
    %xa = tt.addptr %xs, %r : tensor<4096x!tt.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
    %v = tt.load %xa : tensor<4096x!tt.ptr<f32>, #blocked>
    %m = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4096xf32, #blocked>) -> f32
    tt.store %out, %m : !tt.ptr<f32>
    tt.return
  }
}

// -----

// Row 8·warp + lane/16 of a thread: one field of tid.x across the lane/warp boundary, so LLVM sees
// a thread's rows as one base plus constants (and chains their addresses in loops).
// CHECK-LABEL: llvm.func @rows_across_lanes_and_warps
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[SEVEN:.*]] = llvm.mlir.constant(7 : i32)
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NEXT: %[[SHIFTED:.*]] = llvm.lshr %[[TID]], %[[FOUR]]
// CHECK-NEXT: llvm.and %[[SHIFTED]], %[[SEVEN]]
// CHECK-NOT: llvm.udiv
// CHECK-NOT: shfl.sync.idx
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rows_across_lanes_and_warps(%out: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %rows = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %column = tt.expand_dims %rows {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<8x1xi32, #blocked>
    %tile = tt.broadcast %column : tensor<8x1xi32, #blocked> -> tensor<8x128xi32, #blocked>
    %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %row_of_cols = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x128xi32, #blocked>
    %colsb = tt.broadcast %row_of_cols : tensor<1x128xi32, #blocked> -> tensor<8x128xi32, #blocked>
    %c128 = arith.constant dense<128> : tensor<8x128xi32, #blocked>
    %scaled = arith.muli %tile, %c128 : tensor<8x128xi32, #blocked>
    %offsets = arith.addi %scaled, %colsb : tensor<8x128xi32, #blocked>
    %base = tt.splat %out : !tt.ptr<i32> -> tensor<8x128x!tt.ptr<i32>, #blocked>
    %ptrs = tt.addptr %base, %offsets : tensor<8x128x!tt.ptr<i32>, #blocked>, tensor<8x128xi32, #blocked>
    tt.store %ptrs, %tile : tensor<8x128x!tt.ptr<i32>, #blocked>
    tt.return
  }
}
