// RUN: triton-opt %s --split-input-file --tritium-llvm | FileCheck %s

// Tensor atomics: one predicated atom per element with the op's semantics and scope; a scalar
// atomic runs in thread 0 and its old value reaches every thread through shared memory.
// CHECK-LABEL: llvm.func @atomics
// CHECK: atom.relaxed.gpu.global.add.f32
// CHECK: atom.acquire.cta.global.max.s32
// CHECK: atom.release.sys.global.exch.b64
// CHECK: atom.acq_rel.gpu.global.add.u32
// The broadcast is the kernel's first shared-memory access: no barrier before its store. The
// barrier clobbers memory: LLVM keeps its shared-memory loads and stores on their side.
// CHECK-NOT: bar.sync
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: "bar.sync 0;", "~{memory}"
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @atomics(%p: !tt.ptr<f32>, %q: !tt.ptr<i32>, %w: !tt.ptr<i64>, %c: !tt.ptr<i32>, %out: !tt.ptr<i32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %one = arith.constant dense<1.0> : tensor<512xf32, #blocked>
    %m = arith.constant dense<true> : tensor<512xi1, #blocked>
    %a = tt.atomic_rmw fadd, relaxed, gpu, %pp, %one, %m : (tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xf32, #blocked>, tensor<512xi1, #blocked>) -> tensor<512xf32, #blocked>
    %qs = tt.splat %q : !tt.ptr<i32> -> tensor<512x!tt.ptr<i32>, #blocked>
    %qp = tt.addptr %qs, %r : tensor<512x!tt.ptr<i32>, #blocked>, tensor<512xi32, #blocked>
    %b = tt.atomic_rmw max, acquire, cta, %qp, %r : (tensor<512x!tt.ptr<i32>, #blocked>, tensor<512xi32, #blocked>) -> tensor<512xi32, #blocked>
    %ws = tt.splat %w : !tt.ptr<i64> -> tensor<512x!tt.ptr<i64>, #blocked>
    %wp = tt.addptr %ws, %r : tensor<512x!tt.ptr<i64>, #blocked>, tensor<512xi32, #blocked>
    %r64 = arith.extsi %r : tensor<512xi32, #blocked> to tensor<512xi64, #blocked>
    %d = tt.atomic_rmw exch, release, sys, %wp, %r64 : (tensor<512x!tt.ptr<i64>, #blocked>, tensor<512xi64, #blocked>) -> tensor<512xi64, #blocked>
    %c1 = arith.constant 1 : i32
    %old = tt.atomic_rmw add, acq_rel, gpu, %c, %c1 : (!tt.ptr<i32>, i32) -> i32
    tt.store %out, %old : !tt.ptr<i32>
    tt.return
  }
}

// -----

// Compare-and-swap.
// CHECK-LABEL: llvm.func @cas
// CHECK: atom.acquire.sys.global.cas.b32
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cas(%p: !tt.ptr<i32>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<128x!tt.ptr<i32>, #blocked>, tensor<128xi32, #blocked>
    %z = arith.constant dense<0> : tensor<128xi32, #blocked>
    %old = tt.atomic_cas acquire, sys, %pp, %z, %r : (tensor<128x!tt.ptr<i32>, #blocked>, tensor<128xi32, #blocked>, tensor<128xi32, #blocked>) -> tensor<128xi32, #blocked>
    tt.store %pp, %old : tensor<128x!tt.ptr<i32>, #blocked>
    tt.return
  }
}

// -----

// Scan: registers, then lanes (butterfly shuffles of block totals), then warps through shared
// memory, each step one combine per element.
// CHECK-LABEL: llvm.func @cumsum
// CHECK: llvm.fadd
// CHECK: llvm.nvvm.shfl.sync.bfly.i32
// CHECK: llvm.select
// CHECK-NOT: bar.sync
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cumsum(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tt.load %pp : tensor<512x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.scan.return %c : f32
    }) : (tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked>
    tt.store %pp, %s : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Histogram: bins zeroed in shared memory, shared atomic adds, then the bins in the result layout.
// CHECK-LABEL: llvm.func @histogram
// CHECK: llvm.atomicrmw add {{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: bar.sync 0
// Gather: the source through shared memory, read at the indices.
// CHECK-LABEL: llvm.func @gather
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: bar.sync 0
// CHECK: llvm.load {{.*}} !llvm.ptr<3>
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @histogram(%p: !tt.ptr<i32>, %h: !tt.ptr<i32>) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<256x!tt.ptr<i32>, #blocked>, tensor<256xi32, #blocked>
    %v = tt.load %pp : tensor<256x!tt.ptr<i32>, #blocked>
    %hist = tt.histogram %v : tensor<256xi32, #blocked> -> tensor<16xi32, #blocked1>
    %r16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #blocked1>
    %hs = tt.splat %h : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>, #blocked1>
    %hp = tt.addptr %hs, %r16 : tensor<16x!tt.ptr<i32>, #blocked1>, tensor<16xi32, #blocked1>
    tt.store %hp, %hist : tensor<16x!tt.ptr<i32>, #blocked1>
    tt.return
  }
  tt.func public @gather(%p: !tt.ptr<f32>, %i: !tt.ptr<i32>) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<256x!tt.ptr<f32>, #blocked>, tensor<256xi32, #blocked>
    %v = tt.load %pp : tensor<256x!tt.ptr<f32>, #blocked>
    %is = tt.splat %i : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #blocked>
    %ip = tt.addptr %is, %r : tensor<256x!tt.ptr<i32>, #blocked>, tensor<256xi32, #blocked>
    %idx = tt.load %ip : tensor<256x!tt.ptr<i32>, #blocked>
    %g = tt.gather %v[%idx] {axis = 0 : i32} : (tensor<256xf32, #blocked>, tensor<256xi32, #blocked>) -> tensor<256xf32, #blocked>
    tt.store %pp, %g : tensor<256x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// join/split whose new dimension lives in registers are free: no shared memory.
// CHECK-LABEL: llvm.func @join_split
// CHECK-NOT: bar.sync
// CHECK: llvm.fsub
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [4, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @join_split(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tt.load %pp : tensor<512x!tt.ptr<f32>, #blocked>
    %w = arith.addf %v, %v : tensor<512xf32, #blocked>
    %j = tt.join %v, %w : tensor<512xf32, #blocked> -> tensor<512x2xf32, #blocked2>
    %a, %b = tt.split %j : tensor<512x2xf32, #blocked2> -> tensor<512xf32, #blocked>
    %d = arith.subf %b, %a : tensor<512xf32, #blocked>
    tt.store %pp, %d : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// fp8: cvt.rn.satfinite on sm_90 for round-to-nearest-even, two registers a conversion (the
// x2 form's two operands), round-toward-zero in software; decoding with cvt.rn.f16x2.e4m3x2,
// also two at a time. bf16 through cvt.rn.bf16.f32 (LLVM's fptrunc) and back by a 16-bit shift
// (no fpext from bf16).
// CHECK-LABEL: llvm.func @fp8
// CHECK: cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;", "=h,f,f" %[[HI:[0-9]+]], %[[LO:[0-9]+]]
// CHECK: llvm.intr.trunc
// CHECK: cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;", "=h,f,f" %[[HI]], %[[LO]]
// CHECK: cvt.rn.f16x2.e4m3x2 $0, $1;"
// CHECK-NOT: fpext {{.*}} bf16
// CHECK: llvm.fptrunc {{.*}} : f32 to bf16
// CHECK: llvm.bitcast {{.*}} : bf16 to i16
// CHECK-NEXT: llvm.zext {{.*}} : i16 to i32
// CHECK-NEXT: llvm.shl
// CHECK-NOT: fpext {{.*}} bf16
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp8(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tt.load %pp : tensor<512x!tt.ptr<f32>, #blocked>
    %a = tt.fp_to_fp %v, rounding = rtne : tensor<512xf32, #blocked> -> tensor<512xf8E4M3FN, #blocked>
    %b = tt.fp_to_fp %v, rounding = rtz : tensor<512xf32, #blocked> -> tensor<512xf8E4M3FN, #blocked>
    %c = tt.fp_to_fp %v, rounding = rtne : tensor<512xf32, #blocked> -> tensor<512xf8E5M2, #blocked>
    %a32 = tt.fp_to_fp %a : tensor<512xf8E4M3FN, #blocked> -> tensor<512xf32, #blocked>
    %b32 = tt.fp_to_fp %b : tensor<512xf8E4M3FN, #blocked> -> tensor<512xf32, #blocked>
    %c32 = tt.fp_to_fp %c : tensor<512xf8E5M2, #blocked> -> tensor<512xf32, #blocked>
    %s = arith.addf %a32, %b32 : tensor<512xf32, #blocked>
    %t = arith.addf %s, %c32 : tensor<512xf32, #blocked>
    %h = arith.truncf %t : tensor<512xf32, #blocked> to tensor<512xbf16, #blocked>
    %u = arith.extf %h : tensor<512xbf16, #blocked> to tensor<512xf32, #blocked>
    tt.store %pp, %u : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Accurate math: f32 sin through the f32 helper (Payne-Hanek table included), libdevice
// symbols mapped to the same helpers, f64 sin through the f64 helper, clampf, precise ops,
// mulhiui.
// CHECK-LABEL: llvm.func @math
// CHECK: llvm.call @__tritium_sin_f32
// CHECK: llvm.call @__tritium_tanh_f32
// CHECK: llvm.intr.maximum
// CHECK: llvm.intr.minimum
// CHECK: sqrt.rn.f64
// CHECK: llvm.call @__tritium_sin_f64
// mulhiui as LLVM's widened multiply (i64 → i128, high half), not inline asm.
// CHECK: %[[WA:.*]] = llvm.zext %{{.*}} : i64 to i128
// CHECK: %[[WP:.*]] = llvm.mul %[[WA]], %{{.*}} : i128
// CHECK: %[[WH:.*]] = llvm.lshr %[[WP]], %{{.*}} : i128
// CHECK: llvm.trunc %[[WH]] : i128 to i64
// CHECK-DAG: llvm.mlir.global internal constant @__tritium_two_over_pi
// CHECK-DAG: llvm.func internal @__tritium_sin_f32(%{{.*}}: f32) -> f32
// CHECK-DAG: llvm.func internal @__tritium_tanh_f32(%{{.*}}: f32) -> f32
// CHECK-DAG: llvm.func internal @__tritium_sin_f64(%{{.*}}: f64) -> f64
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @math(%p: !tt.ptr<f32>, %d: !tt.ptr<f64>, %q: !tt.ptr<i64>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %v = tt.load %pp : tensor<128x!tt.ptr<f32>, #blocked>
    %s = math.sin %v : tensor<128xf32, #blocked>
    %t = tt.extern_elementwise %s {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
    %lo = arith.constant dense<0.0> : tensor<128xf32, #blocked>
    %hi = arith.constant dense<1.0> : tensor<128xf32, #blocked>
    %c = tt.clampf %t, %lo, %hi, propagateNan = all : tensor<128xf32, #blocked>
    tt.store %pp, %c : tensor<128x!tt.ptr<f32>, #blocked>
    %ds = tt.splat %d : !tt.ptr<f64> -> tensor<128x!tt.ptr<f64>, #blocked>
    %dp = tt.addptr %ds, %r : tensor<128x!tt.ptr<f64>, #blocked>, tensor<128xi32, #blocked>
    %dv = tt.load %dp : tensor<128x!tt.ptr<f64>, #blocked>
    %sq = tt.precise_sqrt %dv : tensor<128xf64, #blocked>
    %sn = math.sin %sq : tensor<128xf64, #blocked>
    tt.store %dp, %sn : tensor<128x!tt.ptr<f64>, #blocked>
    %qs = tt.splat %q : !tt.ptr<i64> -> tensor<128x!tt.ptr<i64>, #blocked>
    %qp = tt.addptr %qs, %r : tensor<128x!tt.ptr<i64>, #blocked>, tensor<128xi32, #blocked>
    %qv = tt.load %qp : tensor<128x!tt.ptr<i64>, #blocked>
    %mh = tt.mulhiui %qv, %qv : tensor<128xi64, #blocked>
    tt.store %qp, %mh : tensor<128x!tt.ptr<i64>, #blocked>
    tt.return
  }
}

// -----

// Inline asm with two f16 packed per b32 register; print and assert.
// CHECK-LABEL: llvm.func @asm_print_assert
// CHECK: add.f16x2 $0, $1, $1;
// CHECK: llvm.call @vprintf
// CHECK: llvm.call @__assertfail
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
// CHECK-DAG: llvm.mlir.global internal constant @printfFormat_{{[0-9]+}}("pid (%u, %u, %u) idx (%d)  x: %f\0A\00")
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @asm_print_assert(%p: !tt.ptr<f16>) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<256x!tt.ptr<f16>, #blocked>, tensor<256xi32, #blocked>
    %v = tt.load %pp : tensor<256x!tt.ptr<f16>, #blocked>
    %w = tt.elementwise_inline_asm "add.f16x2 $0, $1, $1;" {constraints = "=r,r", packed_element = 2 : i32, pure = true} %v : tensor<256xf16, #blocked> -> tensor<256xf16, #blocked>
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %w : tensor<256xf16, #blocked>
    %z = arith.constant dense<0> : tensor<256xi32, #blocked>
    %ok = arith.cmpi sge, %r, %z : tensor<256xi32, #blocked>
    tt.assert %ok, "index must be non-negative" : tensor<256xi1, #blocked>
    tt.return
  }
}

// -----

// scf.while carrying a tensor (as its registers) and a scalar.
// CHECK-LABEL: llvm.func @while_loop
// CHECK: llvm.cond_br
// CHECK: llvm.fmul
// CHECK: llvm.br
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @while_loop(%p: !tt.ptr<f32>, %n: i32) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<256x!tt.ptr<f32>, #blocked>, tensor<256xi32, #blocked>
    %v = tt.load %pp : tensor<256x!tt.ptr<f32>, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %half = arith.constant dense<0.5> : tensor<256xf32, #blocked>
    %res:2 = scf.while (%acc = %v, %i = %c0) : (tensor<256xf32, #blocked>, i32) -> (tensor<256xf32, #blocked>, i32) {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %acc, %i : tensor<256xf32, #blocked>, i32
    } do {
    ^bb0(%acc2: tensor<256xf32, #blocked>, %i2: i32):
      %h = arith.mulf %acc2, %half : tensor<256xf32, #blocked>
      %i3 = arith.addi %i2, %c1 : i32
      scf.yield %h, %i3 : tensor<256xf32, #blocked>, i32
    }
    tt.store %pp, %res#0 : tensor<256x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// 16-bit elements: eight f16 per thread in one 16-byte access (v4.b32), `other` packed too.
// CHECK-LABEL: llvm.func @copy_f16
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copy_f16(%x: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %xs = tt.splat %x : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %xp = tt.addptr %xs, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    %other = arith.constant dense<1.5> : tensor<1024xf16, #blocked>
    %v = tt.load %xp, %m, %other : tensor<1024x!tt.ptr<f16>, #blocked>
    %ys = tt.splat %y : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %yp = tt.addptr %ys, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %yp, %v, %m : tensor<1024x!tt.ptr<f16>, #blocked>
    tt.return
  }
}

// -----

// Tensor descriptors without TMA: bounds-checked per-element accesses and `red`.
// CHECK-LABEL: llvm.func @descriptor
// CHECK: ld.global.b32
// CHECK: st.global.b32
// CHECK: red.relaxed.gpu.global.add.f32
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @descriptor(%a: !tt.ptr<f32>, %M: i32, %N: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i64
    %sn = arith.extsi %N : i32 to i64
    %d = tt.make_tensor_descriptor %a, [%M, %N], [%sn, %c1] : <f32>, <tensor<32x32xf32>>
    %t = tt.descriptor_load %d[%c0, %c0] : !tt.tensordesc<tensor<32x32xf32>> -> tensor<32x32xf32, #blocked>
    tt.descriptor_store %d[%c0, %c0], %t : !tt.tensordesc<tensor<32x32xf32>>, tensor<32x32xf32, #blocked>
    tt.descriptor_reduce add, %d[%c0, %c0], %t : !tt.tensordesc<tensor<32x32xf32>>, tensor<32x32xf32, #blocked>
    tt.return
  }
}

// -----

// A scan along lanes: Hillis–Steele over the five lane bits (shfl.up, one combine each), no
// butterfly exchanges; the warps' totals go to shared memory from each warp's last lane alone
// (no shfl.idx broadcast: the warp run only stores them).
// CHECK-LABEL: llvm.func @scan_lanes
// CHECK-NOT: shfl.sync.bfly
// CHECK-COUNT-5: llvm.nvvm.shfl.sync.up.i32
// CHECK-NOT: shfl.sync.idx
// CHECK-NOT: bar.sync
// CHECK: llvm.cond_br
// CHECK: llvm.store
// CHECK: bar.sync
// CHECK-NOT: shfl.sync.idx
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scan_lanes(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %x = tt.load %pa : tensor<128x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tt.scan.return %m : f32
    }) : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
    tt.store %pa, %s : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A scan over registers, lanes, warps and register chunks (two elements a thread, two chunks
// of 256; two chunks a thread are scanned in place, not regrouped): the lane and warp steps
// work once per chunk (the two registers of a chunk share their block totals):
// 2 x (5 shfl.up + 1 for the exclusive prefix) = 12 shuffles, not one per register (28). What
// lanes, warps and the earlier chunk prepend is merged per chunk and applied to each element
// once, at the end: 24 adds.
// CHECK-LABEL: llvm.func @scan_chunks
// CHECK-NOT: bar.sync
// CHECK-COUNT-12: llvm.nvvm.shfl.sync.up.i32
// CHECK-NOT: shfl.sync
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @scan_chunks_adds
// CHECK-COUNT-24: llvm.fadd
// CHECK-NOT: llvm.fadd
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scan_chunks(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %x = tt.load %pa : tensor<512x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.addf %a, %b : f32
      tt.scan.return %m : f32
    }) : (tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked>
    tt.store %pa, %s : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
  tt.func public @scan_chunks_adds(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %x = tt.load %pa : tensor<512x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.addf %a, %b : f32
      tt.scan.return %m : f32
    }) : (tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked>
    tt.store %pa, %s : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// Four chunks a thread (1024 elements, two a thread in four runs): the scan regroups its
// operand through shared memory into one run of 8 a thread (4 x 8-byte stores, a barrier,
// 2 x 16-byte loads), scans it in registers, then one lane scan (5 shfl.up + 1) and one
// cross-warp step (a barrier after the regrouping's reads, the warp's total stored, a barrier,
// the 3 earlier warps' totals loaded) serve the whole run; the result goes back the same way
// (a barrier after the totals' reads, 2 x 16-byte stores, a barrier, 4 x 8-byte loads).
// CHECK-LABEL: llvm.func @scan_regrouped
// CHECK-COUNT-4: llvm.store {{.*}} : vector<2xi32>, !llvm.ptr<3>
// CHECK: bar.sync
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-6: llvm.nvvm.shfl.sync.up.i32
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: bar.sync
// CHECK-COUNT-3: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: bar.sync
// CHECK-COUNT-2: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK: bar.sync
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xi32>
// CHECK-NOT: ptr<3>
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scan_regrouped(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %x = tt.load %pa : tensor<1024x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.addf %a, %b : f32
      tt.scan.return %m : f32
    }) : (tensor<1024xf32, #blocked>) -> tensor<1024xf32, #blocked>
    tt.store %pa, %s : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A lane run followed by register bits (one warp, two elements a thread): the later register
// step needs the lane run's total in every lane, read from the last lane with shfl.idx.
// CHECK-LABEL: llvm.func @scan_lanes_then_registers
// CHECK-COUNT-5: llvm.nvvm.shfl.sync.up.i32
// CHECK: llvm.nvvm.shfl.sync.idx.i32
// CHECK-NOT: bar.sync
// CHECK: llvm.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scan_lanes_then_registers(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %pa = tt.addptr %ps, %r : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %x = tt.load %pa : tensor<64x!tt.ptr<f32>, #blocked>
    %s = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.addf %a, %b : f32
      tt.scan.return %m : f32
    }) : (tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked>
    tt.store %pa, %s : tensor<64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// tl.debug_barrier (gpu.barrier) is bar.sync 0; tl.assume (llvm.intr.assume) stays, on the
// condition's register.
// CHECK-LABEL: llvm.func @barrier_assume
// CHECK: llvm.intr.assume %{{.*}} : i1
// CHECK: bar.sync 0;
// CHECK-NOT: gpu.barrier
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @barrier_assume(%p: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %pos = arith.cmpi sgt, %n, %c0 : i32
    llvm.intr.assume %pos : i1
    gpu.barrier
    %q = tt.addptr %p, %n : !tt.ptr<f32>, i32
    %one = arith.constant 1.0 : f32
    tt.store %q, %one : !tt.ptr<f32>
    tt.return
  }
}
