// RUN: triton-opt %s --split-input-file --tritongpu-optimize-thread-locality | FileCheck %s

// A reduction per iteration folded into a loop-carried sum becomes an elementwise per-thread
// accumulation (starting at the identity) and one reduction after the loop.
// CHECK-LABEL: tt.func @row_sum
// CHECK: %[[ID:.*]] = arith.constant dense<-0.000000e+00> : tensor<128xf32, #blocked>
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[FULL:.*]] = %[[ID]])
// CHECK-NOT: tt.reduce
// CHECK: %[[STEP:.*]] = arith.addf %[[FULL]], %{{.*}} : tensor<128xf32, #blocked>
// CHECK: scf.yield %[[ACC]], %[[STEP]]
// CHECK: %[[R:.*]] = "tt.reduce"(%[[LOOP]]#1)
// CHECK: arith.addf %[[LOOP]]#0, %[[R]] : f32
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @row_sum(%p: !tt.ptr<f32>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %sum = scf.for %k = %c0 to %n step %c128 iter_args(%acc = %zero) -> (f32) : i32 {
      %ks = tt.splat %k : i32 -> tensor<128xi32, #blocked>
      %o = arith.addi %ks, %r : tensor<128xi32, #blocked>
      %pa = tt.addptr %ps, %o : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
      %x = tt.load %pa : tensor<128x!tt.ptr<f32>, #blocked>
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %acc2 = arith.addf %acc, %s : f32
      scf.yield %acc2 : f32
    }
    tt.return %sum : f32
  }
}

// -----

// Different ops in the region and in the fold (max then add) must stay.
// CHECK-LABEL: tt.func @mixed
// CHECK: scf.for
// CHECK: tt.reduce
// CHECK: scf.yield
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @mixed(%x: tensor<128xf32, #blocked>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant 0.000000e+00 : f32
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maxnumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %acc2 = arith.addf %acc, %s : f32
      scf.yield %acc2 : f32
    }
    tt.return %sum : f32
  }
}

// -----

// The identity of arith.maxnumf on f16 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @max_f16
// CHECK: arith.constant dense<0xFC00> : tensor<128xf16, #blocked>
// CHECK: scf.for
// CHECK: arith.maxnumf %{{.*}} : tensor<128xf16, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @max_f16(%x: tensor<128xf16, #blocked>, %init: f16, %n: i32) -> f16 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f16) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f16, %b: f16):
        %c = arith.maxnumf %a, %b : f16
        tt.reduce.return %c : f16
      }) : (tensor<128xf16, #blocked>) -> f16
      %acc2 = arith.maxnumf %acc, %s : f16
      scf.yield %acc2 : f16
    }
    tt.return %r : f16
  }
}

// -----

// The identity of arith.minimumf on bf16 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @min_bf16
// CHECK: arith.constant dense<0x7F80> : tensor<128xbf16, #blocked>
// CHECK: scf.for
// CHECK: arith.minimumf %{{.*}} : tensor<128xbf16, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @min_bf16(%x: tensor<128xbf16, #blocked>, %init: bf16, %n: i32) -> bf16 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (bf16) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: bf16, %b: bf16):
        %c = arith.minimumf %a, %b : bf16
        tt.reduce.return %c : bf16
      }) : (tensor<128xbf16, #blocked>) -> bf16
      %acc2 = arith.minimumf %acc, %s : bf16
      scf.yield %acc2 : bf16
    }
    tt.return %r : bf16
  }
}

// -----

// The identity of arith.mulf on f32 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @prod_f32
// CHECK: arith.constant dense<1.000000e+00> : tensor<128xf32, #blocked>
// CHECK: scf.for
// CHECK: arith.mulf %{{.*}} : tensor<128xf32, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @prod_f32(%x: tensor<128xf32, #blocked>, %init: f32, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.mulf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %acc2 = arith.mulf %acc, %s : f32
      scf.yield %acc2 : f32
    }
    tt.return %r : f32
  }
}

// -----

// The identity of arith.maxsi on i32 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @max_i32
// CHECK: arith.constant dense<-2147483648> : tensor<128xi32, #blocked>
// CHECK: scf.for
// CHECK: arith.maxsi %{{.*}} : tensor<128xi32, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @max_i32(%x: tensor<128xi32, #blocked>, %init: i32, %n: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (i32) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: i32, %b: i32):
        %c = arith.maxsi %a, %b : i32
        tt.reduce.return %c : i32
      }) : (tensor<128xi32, #blocked>) -> i32
      %acc2 = arith.maxsi %acc, %s : i32
      scf.yield %acc2 : i32
    }
    tt.return %r : i32
  }
}

// -----

// The identity of arith.andi on i8 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @and_i8
// CHECK: arith.constant dense<-1> : tensor<128xi8, #blocked>
// CHECK: scf.for
// CHECK: arith.andi %{{.*}} : tensor<128xi8, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @and_i8(%x: tensor<128xi8, #blocked>, %init: i8, %n: i32) -> i8 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (i8) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: i8, %b: i8):
        %c = arith.andi %a, %b : i8
        tt.reduce.return %c : i8
      }) : (tensor<128xi8, #blocked>) -> i8
      %acc2 = arith.andi %acc, %s : i8
      scf.yield %acc2 : i8
    }
    tt.return %r : i8
  }
}

// -----

// The identity of arith.minsi on i64 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @min_i64
// CHECK: arith.constant dense<9223372036854775807> : tensor<128xi64, #blocked>
// CHECK: scf.for
// CHECK: arith.minsi %{{.*}} : tensor<128xi64, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @min_i64(%x: tensor<128xi64, #blocked>, %init: i64, %n: i32) -> i64 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (i64) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: i64, %b: i64):
        %c = arith.minsi %a, %b : i64
        tt.reduce.return %c : i64
      }) : (tensor<128xi64, #blocked>) -> i64
      %acc2 = arith.minsi %acc, %s : i64
      scf.yield %acc2 : i64
    }
    tt.return %r : i64
  }
}

// -----

// The identity of arith.minui on i16 starts the per-thread accumulator.
// CHECK-LABEL: tt.func @minu_i16
// CHECK: arith.constant dense<-1> : tensor<128xi16, #blocked>
// CHECK: scf.for
// CHECK: arith.minui %{{.*}} : tensor<128xi16, #blocked>
// CHECK: "tt.reduce"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @minu_i16(%x: tensor<128xi16, #blocked>, %init: i16, %n: i32) -> i16 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (i16) : i32 {
      %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: i16, %b: i16):
        %c = arith.minui %a, %b : i16
        tt.reduce.return %c : i16
      }) : (tensor<128xi16, #blocked>) -> i16
      %acc2 = arith.minui %acc, %s : i16
      scf.yield %acc2 : i16
    }
    tt.return %r : i16
  }
}

// -----

// The online-softmax pair (running maximum, sum of exponentials rescaled to it) is kept per
// thread: the 4096 elements split as [2 repeats, 256 threads, 8 in registers] without moving,
// both reductions inside the loop stay in registers (dims 2 and 0), the maximum's subtrahend is
// 0 where a thread saw only -inf, and the threads' pairs merge after the loop with the initial one.
// CHECK-DAG: #[[SPLIT:.*]] = #ttg.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 32, 1], warpsPerCTA = [1, 8, 1], order = [2, 1, 0]}>
// CHECK-LABEL: tt.func @online_softmax
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<256xf32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #[[SPLIT]]}>}>>
// CHECK-DAG: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<256xf32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #[[SPLIT]]}>}>>
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[M:.*]] = %[[NINF]], %[[L:.*]] = %[[ZERO]])
// CHECK: %[[X:.*]] = tt.reshape %{{.*}} : tensor<4096xf32, #blocked> -> tensor<2x256x8xf32, #[[SPLIT]]>
// CHECK: %[[RM:.*]] = "tt.reduce"(%[[X]]) <{axis = 2 : i32}>
// CHECK: arith.maxnumf
// CHECK: %[[TM:.*]] = "tt.reduce"(%[[RM]]) <{axis = 0 : i32}>
// CHECK: %[[MNEW:.*]] = arith.maxnumf %[[M]], %[[TM]]
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NINF]]
// CHECK: %[[SUB:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[MNEW]]
// CHECK: %[[D:.*]] = arith.subf %[[M]], %[[SUB]]
// CHECK: %[[S:.*]] = math.exp %[[D]]
// CHECK: %[[LS:.*]] = arith.mulf %[[L]], %[[S]]
// CHECK: tt.expand_dims %[[SUB]] {axis = 0 : i32}
// CHECK: tt.expand_dims %{{.*}} {axis = 2 : i32}
// CHECK: %[[B:.*]] = tt.broadcast
// CHECK: %[[XD:.*]] = arith.subf %[[X]], %[[B]] : tensor<2x256x8xf32, #[[SPLIT]]>
// CHECK: %[[E:.*]] = math.exp %[[XD]]
// CHECK: %[[RS:.*]] = "tt.reduce"(%[[E]]) <{axis = 2 : i32}>
// CHECK: arith.addf
// CHECK: %[[TS:.*]] = "tt.reduce"(%[[RS]]) <{axis = 0 : i32}>
// CHECK: %[[LNEW:.*]] = arith.addf %[[LS]], %[[TS]]
// CHECK: scf.yield %[[MNEW]], %[[LNEW]]
// CHECK: %[[MALL:.*]] = "tt.reduce"(%[[LOOP]]#0) <{axis = 0 : i32}>
// CHECK: %[[MTOT:.*]] = arith.maxnumf %[[MINIT:.*]], %[[MALL]] : f32
// CHECK: %[[MEMPTY:.*]] = arith.cmpf oeq, %[[MTOT]]
// CHECK: %[[MSUB:.*]] = arith.select %[[MEMPTY]], %{{.*}}, %[[MTOT]] : f32
// CHECK: %[[MS:.*]] = tt.splat %[[MSUB]]
// CHECK: %[[TD:.*]] = arith.subf %[[LOOP]]#0, %[[MS]]
// CHECK: %[[TE:.*]] = math.exp %[[TD]]
// CHECK: %[[TL:.*]] = arith.mulf %[[LOOP]]#1, %[[TE]]
// CHECK: %[[LALL:.*]] = "tt.reduce"(%[[TL]]) <{axis = 0 : i32}>
// CHECK: %[[ID:.*]] = arith.subf %[[MINIT]], %[[MSUB]] : f32
// CHECK: %[[IE:.*]] = math.exp %[[ID]] : f32
// CHECK: %[[IL:.*]] = arith.mulf %[[LINIT:.*]], %[[IE]] : f32
// CHECK: %[[LTOT:.*]] = arith.addf %[[IL]], %[[LALL]] : f32
// CHECK: tt.return %[[MTOT]], %[[LTOT]]
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @online_softmax(%p: !tt.ptr<f32>, %n: i32, %m0: f32, %l0: f32) -> (f32, f32) {
    %c0 = arith.constant 0 : i32
    %c4096 = arith.constant 4096 : i32
    %r = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4096x!tt.ptr<f32>, #blocked>
    %res:2 = scf.for %k = %c0 to %n step %c4096 iter_args(%m = %m0, %l = %l0) -> (f32, f32) : i32 {
      %ks = tt.splat %k : i32 -> tensor<4096xi32, #blocked>
      %o = arith.addi %ks, %r : tensor<4096xi32, #blocked>
      %pa = tt.addptr %ps, %o : tensor<4096x!tt.ptr<f32>, #blocked>, tensor<4096xi32, #blocked>
      %x = tt.load %pa : tensor<4096x!tt.ptr<f32>, #blocked>
      %mx = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maxnumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<4096xf32, #blocked>) -> f32
      %m_new = arith.maxnumf %m, %mx : f32
      %d = arith.subf %m, %m_new : f32
      %s = math.exp %d : f32
      %ls = arith.mulf %l, %s : f32
      %ms = tt.splat %m_new : f32 -> tensor<4096xf32, #blocked>
      %xd = arith.subf %x, %ms : tensor<4096xf32, #blocked>
      %e = math.exp %xd : tensor<4096xf32, #blocked>
      %se = "tt.reduce"(%e) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<4096xf32, #blocked>) -> f32
      %l_new = arith.addf %ls, %se : f32
      scf.yield %m_new, %l_new : f32, f32
    }
    tt.return %res#0, %res#1 : f32, f32
  }
}

// -----

// exp2 (flash attention's form) and operands in the other order: the same rewrite, with exp2
// everywhere; one element a thread ([1 repeat, 128 threads, 1]) still splits.
// CHECK-DAG: #[[SPLIT:.*]] = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 32, 1], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
// CHECK-LABEL: tt.func @online_softmax_exp2
// CHECK: scf.for
// CHECK: tt.reshape %{{.*}} : tensor<128xf32, #blocked> -> tensor<1x128x1xf32, #[[SPLIT]]>
// CHECK: arith.maximumf
// CHECK: math.exp2
// CHECK: math.exp2
// CHECK: scf.yield
// CHECK-NOT: math.exp %
// CHECK: math.exp2
// CHECK: math.exp2
// CHECK: tt.return
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @online_softmax_exp2(%x0: tensor<128xf32, #blocked>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %res:2 = scf.for %k = %c0 to %n step %c1 iter_args(%m = %ninf, %l = %zero) -> (f32, f32) : i32 {
      %kf = arith.sitofp %k : i32 to f32
      %kb = tt.splat %kf : f32 -> tensor<128xf32, #blocked>
      %x = arith.addf %x0, %kb : tensor<128xf32, #blocked>
      %mx = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maximumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %m_new = arith.maximumf %mx, %m : f32
      %d = arith.subf %m, %m_new : f32
      %s = math.exp2 %d : f32
      %ls = arith.mulf %s, %l : f32
      %ms = tt.splat %m_new : f32 -> tensor<128xf32, #blocked>
      %xd = arith.subf %x, %ms : tensor<128xf32, #blocked>
      %e = math.exp2 %xd : tensor<128xf32, #blocked>
      %se = "tt.reduce"(%e) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %l_new = arith.addf %se, %ls : f32
      scf.yield %m_new, %l_new : f32, f32
    }
    %out = arith.divf %res#1, %res#0 : f32
    tt.return %out : f32
  }
}

// -----

// Left alone: the iteration's maximum is also stored (a use outside the pair), and a pair whose
// exponentials differ (exp for the rescale, exp2 for the elements).
// CHECK-LABEL: tt.func @online_softmax_max_used
// CHECK: scf.for
// CHECK: "tt.reduce"(%{{.*}}) <{axis = 0 : i32}>
// CHECK-NOT: tt.reshape
// CHECK: scf.yield
// CHECK-LABEL: tt.func @online_softmax_mixed_exps
// CHECK: scf.for
// CHECK-NOT: tt.reshape
// CHECK: scf.yield
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @online_softmax_max_used(%x: tensor<128xf32, #blocked>, %q: !tt.ptr<f32>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %res:2 = scf.for %k = %c0 to %n step %c1 iter_args(%m = %ninf, %l = %zero) -> (f32, f32) : i32 {
      %mx = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maxnumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %m_new = arith.maxnumf %m, %mx : f32
      tt.store %q, %m_new : !tt.ptr<f32>
      %d = arith.subf %m, %m_new : f32
      %s = math.exp %d : f32
      %ls = arith.mulf %l, %s : f32
      %ms = tt.splat %m_new : f32 -> tensor<128xf32, #blocked>
      %xd = arith.subf %x, %ms : tensor<128xf32, #blocked>
      %e = math.exp %xd : tensor<128xf32, #blocked>
      %se = "tt.reduce"(%e) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %l_new = arith.addf %ls, %se : f32
      scf.yield %m_new, %l_new : f32, f32
    }
    tt.return %res#1 : f32
  }
  tt.func @online_softmax_mixed_exps(%x: tensor<128xf32, #blocked>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %res:2 = scf.for %k = %c0 to %n step %c1 iter_args(%m = %ninf, %l = %zero) -> (f32, f32) : i32 {
      %mx = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maxnumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %m_new = arith.maxnumf %m, %mx : f32
      %d = arith.subf %m, %m_new : f32
      %s = math.exp %d : f32
      %ls = arith.mulf %l, %s : f32
      %ms = tt.splat %m_new : f32 -> tensor<128xf32, #blocked>
      %xd = arith.subf %x, %ms : tensor<128xf32, #blocked>
      %e = math.exp2 %xd : tensor<128xf32, #blocked>
      %se = "tt.reduce"(%e) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<128xf32, #blocked>) -> f32
      %l_new = arith.addf %ls, %se : f32
      scf.yield %m_new, %l_new : f32, f32
    }
    tt.return %res#1 : f32
  }
}

// -----

// Left alone: a layout whose elements do not split into [repeats, threads, vector] in order
// (a thread's two registers hold elements 2 apart, its neighbour's start at 1).
// CHECK-LABEL: tt.func @online_softmax_unsplittable
// CHECK: scf.for
// CHECK-NOT: tt.reshape
// CHECK: scf.yield
#linear = #ttg.linear<{register = [[2]], lane = [[1], [4], [8], [16], [32]], warp = [[64], [128]], block = []}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @online_softmax_unsplittable(%x: tensor<256xf32, #linear>, %n: i32) -> f32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %res:2 = scf.for %k = %c0 to %n step %c1 iter_args(%m = %ninf, %l = %zero) -> (f32, f32) : i32 {
      %mx = "tt.reduce"(%x) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.maxnumf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<256xf32, #linear>) -> f32
      %m_new = arith.maxnumf %m, %mx : f32
      %d = arith.subf %m, %m_new : f32
      %s = math.exp %d : f32
      %ls = arith.mulf %l, %s : f32
      %ms = tt.splat %m_new : f32 -> tensor<256xf32, #linear>
      %xd = arith.subf %x, %ms : tensor<256xf32, #linear>
      %e = math.exp %xd : tensor<256xf32, #linear>
      %se = "tt.reduce"(%e) <{axis = 0 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %c = arith.addf %a, %b : f32
        tt.reduce.return %c : f32
      }) : (tensor<256xf32, #linear>) -> f32
      %l_new = arith.addf %ls, %se : f32
      scf.yield %m_new, %l_new : f32, f32
    }
    tt.return %res#1 : f32
  }
}
