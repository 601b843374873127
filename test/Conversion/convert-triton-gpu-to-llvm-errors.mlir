// RUN: triton-opt %s --split-input-file --tritium-llvm --verify-diagnostics

// A libdevice symbol Tritium has no implementation of is a clear error, not a link failure.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @unknown_extern(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %v = tt.load %pp : tensor<128x!tt.ptr<f32>, #blocked>
    // expected-error @+1 {{no Tritium implementation of '__nv_cyl_bessel_i0f'}}
    %t = tt.extern_elementwise %v {libname = "", libpath = "", pure = true, symbol = "__nv_cyl_bessel_i0f"} : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
    tt.store %pp, %t : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// A scan whose lanes mix the scanned axis with another dimension is rejected.
#blocked = #ttg.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @mixed_scan(%p: !tt.ptr<f32>) {
    %v = arith.constant dense<1.0> : tensor<128x2xf32, #blocked>
    // expected-error @+1 {{tt.scan over a layout whose bases mix the scanned axis}}
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.scan.return %c : f32
    }) : (tensor<128x2xf32, #blocked>) -> tensor<128x2xf32, #blocked>
    tt.return
  }
}

// -----

// A module whose launch shape holds no thread (num-warps 0) is rejected before any lowering
// (tt.histogram used to loop with step_by(0) on it).
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{ttg.num-warps must be a power of two in 1..=32, not 0}}
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 0 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @histogram_no_warps(%p: !tt.ptr<i32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %h = tt.histogram %r : tensor<512xi32, #blocked> -> tensor<64xi32, #blocked>
    tt.return
  }
}

// -----

// The same with threads-per-warp 0.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{ttg.threads-per-warp must be 32}}
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 0 : i32} {
  tt.func public @histogram_no_lanes(%p: !tt.ptr<i32>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %h = tt.histogram %r : tensor<512xi32, #blocked> -> tensor<64xi32, #blocked>
    tt.return
  }
}

// -----

// Two f32 per instance are four asm operands; constraints for two are an error here, not an LLVM
// abort (found by tritium-fuzz).
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @asm_constraint_count(%p: !tt.ptr<f32>) {
    %v = arith.constant dense<1.0> : tensor<256xf32, #blocked>
    // expected-error @+1 {{the constraints "=r,r" declare 2 operands, but with packed_element = 2 each instance has 2 results and 2 arguments}}
    %w = tt.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 2 : i32, pure = true} %v : tensor<256xf32, #blocked> -> tensor<256xf32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>, #blocked>
    tt.store %ps, %w : tensor<256x!tt.ptr<f32>, #blocked>
    tt.return
  }
}

// -----

// An FMA dot-operand layout holds all of K in every thread (here 64 rows x 64 = 4096 values):
// read by a tt.dot it is staged through shared memory, but a result other ops read would be
// held in registers, which took minutes and gigabytes to lower: a located error instead.
#blocked = #ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @register_budget(%p: !tt.ptr<f16>) {
    %x = arith.constant dense<1.0> : tensor<128x64xf16, #blocked>
    // expected-error @+1 {{a result of 4096 values per thread is over the lowering's limit of 1024}}
    %d = ttg.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked2}>>
    %e = arith.addf %d, %d : tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #blocked2}>>
    tt.return
  }
}
