// RUN: triton-opt %s --split-input-file --tritium-prefetch-loop-loads | FileCheck %s
// RUN: triton-opt %s --split-input-file --tritium-prefetch-loop-loads=num-stages=1 | FileCheck %s --check-prefix=OFF

// A column sum: the tile of iteration 0 is loaded before the loop (masked by lb < ub), each
// iteration loads the next one at its top (addresses from iv + step, masked also by
// iv + step < ub), the loop carries the loaded tile and the body adds the carried one.
// CHECK-LABEL: tt.func @col_sum
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %[[N:.*]] : i32
// CHECK: %[[RUNS_T:.*]] = tt.splat %[[RUNS]] : i1 -> tensor<64x32xi1, #blocked>
// CHECK: %[[FIRST:.*]] = tt.load %{{.*}}, %[[RUNS_T]] : tensor<64x32x!tt.ptr<f32>, #blocked>
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %[[N]] step %c64_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[TILE:.*]] = %[[FIRST]])
// CHECK: %[[NEXT_IV:.*]] = arith.addi %[[IV]], %c64_i32 : i32
// CHECK: %[[NEXT_RUNS:.*]] = arith.cmpi slt, %[[NEXT_IV]], %[[N]] : i32
// CHECK: %[[NEXT_RUNS_T:.*]] = tt.splat %[[NEXT_RUNS]] : i1 -> tensor<64x32xi1, #blocked>
// CHECK: %[[NEXT:.*]] = tt.load %{{.*}}, %[[NEXT_RUNS_T]] : tensor<64x32x!tt.ptr<f32>, #blocked>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[TILE]]
// CHECK: scf.yield %[[SUM]], %[[NEXT]]
// OFF-LABEL: tt.func @col_sum
// OFF: scf.for
// OFF: tt.load
// OFF: arith.addf
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @col_sum(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %stride: i32 {tt.divisibility = 16 : i32}) -> tensor<64x32xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #blocked>
    %rows = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %cols = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %colsb = tt.broadcast %cols2 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %base = tt.splat %x : !tt.ptr<f32> -> tensor<64x1x!tt.ptr<f32>, #blocked>
    %strides = tt.splat %stride : i32 -> tensor<64x1xi32, #blocked>
    %sum = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x32xf32, #blocked>) : i32 {
      %start = tt.splat %iv : i32 -> tensor<64x1xi32, #blocked>
      %r = arith.addi %start, %rows2 : tensor<64x1xi32, #blocked>
      %off = arith.muli %r, %strides : tensor<64x1xi32, #blocked>
      %p = tt.addptr %base, %off : tensor<64x1x!tt.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
      %pb = tt.broadcast %p : tensor<64x1x!tt.ptr<f32>, #blocked> -> tensor<64x32x!tt.ptr<f32>, #blocked>
      %pa = tt.addptr %pb, %colsb : tensor<64x32x!tt.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
      %v = tt.load %pa : tensor<64x32x!tt.ptr<f32>, #blocked>
      %next = arith.addf %acc, %v : tensor<64x32xf32, #blocked>
      scf.yield %next : tensor<64x32xf32, #blocked>
    }
    tt.return %sum : tensor<64x32xf32, #blocked>
  }
}

// -----

// Pointers carried by the loop and advanced by a splat step: the next iteration's pointers are
// the advance recomputed at the top; the masked load keeps its mask and `other`, and-ed with
// iv + step < ub.
// CHECK-LABEL: tt.func @carried_pointers
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}})
// CHECK: %[[NEXT_IV:.*]] = arith.addi %[[IV]], %c1024_i32 : i32
// CHECK: %[[NEXT_P:.*]] = tt.addptr %[[P]], %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<1024xi1, #blocked>
// CHECK: %[[NEXT:.*]] = tt.load %[[NEXT_P]], %[[MASK]], %{{.*}} : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK: arith.maxnumf %[[M]], %[[X]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[NEXT]]
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @carried_pointers(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) -> tensor<1024xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1024 = arith.constant 1024 : i32
    %step = arith.constant dense<1024> : tensor<1024xi32, #blocked>
    %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32, #blocked>
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %ps = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %p0 = tt.addptr %ps, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %ns = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %out:2 = scf.for %iv = %c0 to %n step %c1024 iter_args(%m = %ninf, %p = %p0) -> (tensor<1024xf32, #blocked>, tensor<1024x!tt.ptr<f32>, #blocked>) : i32 {
      %ivs = tt.splat %iv : i32 -> tensor<1024xi32, #blocked>
      %idx = arith.addi %ivs, %r : tensor<1024xi32, #blocked>
      %mask = arith.cmpi slt, %idx, %ns : tensor<1024xi32, #blocked>
      %v = tt.load %p, %mask, %ninf : tensor<1024x!tt.ptr<f32>, #blocked>
      %mm = arith.maxnumf %m, %v : tensor<1024xf32, #blocked>
      %pn = tt.addptr %p, %step : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
      scf.yield %mm, %pn : tensor<1024xf32, #blocked>, tensor<1024x!tt.ptr<f32>, #blocked>
    }
    tt.return %out#0 : tensor<1024xf32, #blocked>
  }
}

// -----

// A loop that stores is left as written. In a gather, the index load is prefetched but the load
// whose addresses depend on it stays where it was, reading the carried indices.
// CHECK-LABEL: tt.func @left_alone
// CHECK: scf.for
// CHECK-NEXT: tt.load
// CHECK: tt.store
// CHECK-LABEL: tt.func @gather
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[I:.*]] = %{{.*}})
// CHECK: %[[NEXT_I:.*]] = tt.load %{{.*}}, %{{.*}} : tensor<1024x!tt.ptr<i32>, #blocked>
// CHECK: %[[Q:.*]] = tt.addptr %{{.*}}, %[[I]]
// CHECK: tt.load %[[Q]] : tensor<1024x!tt.ptr<f32>, #blocked>
// CHECK: scf.yield %{{.*}}, %[[NEXT_I]]
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @left_alone(%p: tensor<1024x!tt.ptr<f32>, #blocked>, %q: tensor<1024x!tt.ptr<f32>, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %iv = %c0 to %n step %c1 : i32 {
      %v = tt.load %p : tensor<1024x!tt.ptr<f32>, #blocked>
      tt.store %q, %v : tensor<1024x!tt.ptr<f32>, #blocked>
    }
    tt.return
  }
  tt.func @gather(%p: tensor<1024x!tt.ptr<i32>, #blocked>, %q: tensor<1024x!tt.ptr<f32>, #blocked>, %n: i32) -> tensor<1024xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<1024xf32, #blocked>
    %s = scf.for %iv = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<1024xf32, #blocked>) : i32 {
      %i = tt.load %p : tensor<1024x!tt.ptr<i32>, #blocked>
      %qa = tt.addptr %q, %i : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
      %v = tt.load %qa : tensor<1024x!tt.ptr<f32>, #blocked>
      %a = arith.addf %acc, %v : tensor<1024xf32, #blocked>
      scf.yield %a : tensor<1024xf32, #blocked>
    }
    tt.return %s : tensor<1024xf32, #blocked>
  }
}
