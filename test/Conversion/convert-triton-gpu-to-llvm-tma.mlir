// RUN: triton-opt %S/../Inputs/kernels/syntax/s_descriptor.ttgir --tritium-llvm | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritium-llvm | FileCheck %s --check-prefix=HOST

// Triton's own TTGIR for device-side descriptors: the kernel takes Triton's global scratch
// pointer after its arguments; each program writes its descriptors into its 256-byte slice
// (tensormap.replace on a zeroed 128-byte template in shared memory, then
// tensormap.cp_fenceproxy), lanes 0 of warps 0 and 1 issue the TMA copies (a 64x64 f32 block is two
// 64x32 boxes of 128-byte rows, 8 KiB apart in the buffer) and all threads wait on the mbarrier.
// The two boxes are one copy instruction: each warp's box is its warp index's (read back from
// lane 0, uniform), 8 KiB and 32 columns a box, issued where the warp index is below two.
// CHECK: llvm.func @s_descriptor(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>, %arg2: i32, %arg3: i32, %[[SCRATCH:.*]]: !llvm.ptr<1>)
// CHECK-DAG: %[[BOX_BYTES:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK-DAG: %[[BOXES:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[BOX_COLUMNS:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[WARP:.*]] = llvm.inline_asm has_side_effects "shfl.sync.idx.b32
// CHECK: llvm.getelementptr %[[SCRATCH]]
// CHECK: "@$0 st.shared.b32 [$1], $2;"
// CHECK-NEXT: "bar.warp.sync -1;"
// CHECK: tensormap.replace.tile.global_address.shared::cta.b1024.b64
// CHECK-NEXT: tensormap.replace.tile.rank.shared::cta.b1024.b32 [$1], 1;
// CHECK-NEXT: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [$1], 0, $2;
// CHECK: tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [$1], 7;
// CHECK: tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [$1], 3;
// CHECK: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$1], [$2], 128;
// CHECK: fence.proxy.tensormap::generic.acquire.gpu [$0], 128;
// CHECK: "@$0 mbarrier.init.shared::cta.b64 [$1], 1;"
// CHECK: "bar.sync 0;"
// CHECK: "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 16384;"
// CHECK: %[[HAS_BOX:.*]] = llvm.icmp "ult" %[[WARP]], %[[BOXES]] : i32
// CHECK: %[[ISSUER:.*]] = llvm.and %{{.*}}, %[[HAS_BOX]] : i1
// CHECK: %[[OFFSET:.*]] = llvm.mul %[[WARP]], %[[BOX_BYTES]] : i32
// CHECK: %[[DST:.*]] = llvm.add %{{.*}}, %[[OFFSET]] : i32
// CHECK: %[[COLUMN:.*]] = llvm.mul %[[WARP]], %[[BOX_COLUMNS]] : i32
// CHECK: %[[INNER:.*]] = llvm.add %[[COLUMN]], %{{.*}} : i32
// CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$4, $5}], [$3];", "b,r,l,r,r,r" %[[ISSUER]], %[[DST]], %{{.*}}, %{{.*}}, %[[INNER]], %{{.*}}
// CHECK-NOT: complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 wait_done, [$0], $1;
// CHECK: "@$0 mbarrier.inval.shared::cta.b64 [$1];"
// CHECK: "fence.proxy.async.shared::cta;"
// CHECK: "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$3, $4}], [$2];"
// CHECK: "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$3, $4}], [$2];"
// CHECK-NEXT: "@$0 cp.async.bulk.commit_group;"
// CHECK-NEXT: "@$0 cp.async.bulk.wait_group.read 0;"
// CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [$1, {$3, $4}], [$2];

// A host-side descriptor is a 128-byte, 64-aligned byval grid constant, which thread 0
// prefetches into the TMA unit's descriptor cache at entry; the shape and stride scalars
// Triton passes after it are ordinary parameters. Waits and arrivals may be predicated.
// HOST: llvm.func @host(%arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: i1)
// HOST: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// HOST: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]]
// HOST: %[[MAP:.*]] = llvm.ptrtoint %arg0 : !llvm.ptr to i64
// HOST: llvm.inline_asm has_side_effects "@$0 prefetch.tensormap [$1];", "b,l" %[[FIRST]], %[[MAP]]
// HOST: cp.async.bulk.tensor.2d.shared::cluster.global
// HOST: llvm.cond_br %arg5
// HOST: mbarrier.try_wait.parity
// HOST: "@$0 mbarrier.arrive.shared::cta.b64 _, [$1], 1;"
// HOST: cp.async.bulk.wait_group.read 1;
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @host(%d: !tt.tensordesc<tensor<128x64xf16, #shared>>, %d_0: i32, %d_1: i32, %d_2: i64, %d_3: i64, %p: i1) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %bar, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.wait_barrier %bar, %c0, %p : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.arrive_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_local_to_global %d[%c0, %c0] %buf : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 1 : i32}
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}

// -----

// A rank-reduced copy (a 1x64x128 block of a 3-D descriptor into a 64x128 buffer): three
// coordinates, innermost first, and the block's boxes (64x64 of 128-byte rows: two, the second
// 64 columns and 8 KiB on), into and out of the buffer. The load is one copy instruction whose
// box is the warp's: lane 0 of warps 0 and 1 issue it, at 8 KiB and 64 columns times the warp
// index; the stores, one a box, come from thread 0.
// HOST-LABEL: llvm.func @rank_reduced
// HOST-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// HOST-DAG: %[[C8K:.*]] = llvm.mlir.constant(8192 : i32) : i32
// HOST-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// HOST-DAG: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// HOST-DAG: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// HOST: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// HOST: %[[LANE:.*]] = llvm.urem %[[TID]], %[[C32]] : i32
// HOST: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]] : i32
// HOST: %[[WARP:.*]] = llvm.inline_asm has_side_effects "shfl.sync.idx.b32
// HOST: "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 16384;"
// HOST: %[[LANE0:.*]] = llvm.icmp "eq" %[[LANE]], %[[C0]] : i32
// HOST: %[[PRED_LANE0:.*]] = llvm.and %{{.*}}, %[[LANE0]] : i1
// HOST: %[[HAS_BOX:.*]] = llvm.icmp "ult" %[[WARP]], %[[C2]] : i32
// HOST: %[[ISSUER:.*]] = llvm.and %[[PRED_LANE0]], %[[HAS_BOX]] : i1
// HOST: %[[OFFSET:.*]] = llvm.mul %[[WARP]], %[[C8K]] : i32
// HOST: %[[DST:.*]] = llvm.add %[[BASE:.*]], %[[OFFSET]] : i32
// HOST: %[[COLUMN:.*]] = llvm.mul %[[WARP]], %[[C64]] : i32
// HOST: %[[KW:.*]] = llvm.add %[[K:.*]], %[[COLUMN]] : i32
// HOST: llvm.inline_asm has_side_effects "@$0 cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$4, $5, $6}], [$3];", "b,r,l,r,r,r,r" %[[ISSUER]], %[[DST]], %{{.*}}, %{{.*}}, %[[KW]], %[[M:.*]], %[[Z:.*]] :
// HOST-NOT: cp.async.bulk.tensor.3d.shared::cluster
// HOST: "@$0 cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [$1, {$3, $4, $5}], [$2];", "b,l,r,r,r,r" %[[T0]], %{{.*}}, %{{.*}}, %[[K]], %[[M]], %[[Z]] :
// HOST: %[[DST2:.*]] = llvm.add %[[BASE]], %[[C8K]] : i32
// HOST: %[[K2:.*]] = llvm.add %[[K]], %[[C64]] : i32
// HOST: "@$0 cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [$1, {$3, $4, $5}], [$2];", "b,l,r,r,r,r" %[[T0]], %{{.*}}, %[[DST2]], %[[K2]], %[[M]], %[[Z]] :
// HOST-NEXT: "@$0 cp.async.bulk.commit_group;"
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rank_reduced(%d: !tt.tensordesc<tensor<1x64x128xf16, #shared>>, %z: i32, %m: i32, %k: i32) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %d[%z, %m, %k] %buf, %bar, %true : !tt.tensordesc<tensor<1x64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    ttng.wait_barrier %bar, %c0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_local_to_global %d[%z, %m, %k] %buf : !tt.tensordesc<tensor<1x64x128xf16, #shared>>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}
