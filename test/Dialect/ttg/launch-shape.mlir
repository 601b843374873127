// RUN: triton-opt %s --split-input-file --verify-diagnostics

// The module attributes that give the launch shape hold values a kernel can launch with, and
// every layout inside the module fits them, whichever op uses it (not only ttg ops).

// expected-error @below {{'builtin.module' op ttg.num-warps must be a power of two in 1..=32, not 0}}
module attributes {"ttg.num-warps" = 0 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @zero_warps() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.num-warps must be a power of two in 1..=32, not 3}}
module attributes {"ttg.num-warps" = 3 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @three_warps() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.num-warps must be a power of two in 1..=32, not 64}}
module attributes {"ttg.num-warps" = 64 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @sixty_four_warps() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.threads-per-warp must be 32 (an NVIDIA warp), not 64}}
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @wide_warps() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.threads-per-warp must be 32 (an NVIDIA warp), not 0}}
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 0 : i32} {
  tt.func @empty_warps() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.num-ctas must be a power of two in 1..=16, not 3}}
module attributes {"ttg.num-ctas" = 3 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @three_ctas() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.num-warps must be an integer, not "4"}}
module attributes {"ttg.num-warps" = "4", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @string_warps() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.target must be a string such as "cuda:90", not 90 : i32}}
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = 90 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @integer_target() {
    tt.return
  }
}

// -----

// expected-error @below {{'builtin.module' op ttg.num-stages must be non-negative, not -1}}
module attributes {"ttg.num-stages" = -1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @negative_stages() {
    tt.return
  }
}

// -----

// A layout for 4 warps in an 8-warp module, used only by tt and arith ops.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @arith_warps(%n: i32) {
    // expected-error @below {{'tt.make_range' op tensor<128xi32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> has a layout for 4 warps, but the module has ttg.num-warps = 8}}
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %s = arith.addi %r, %r : tensor<128xi32, #blocked>
    tt.return
  }
}

// -----

// Function arguments count too (reported at the function).
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  // expected-error @below {{'tt.func' op tensor<128xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>> has a layout for 16 threads per warp, but the module has ttg.threads-per-warp = 32}}
  tt.func @argument_lanes(%x: tensor<128xf32, #blocked>) {
    %y = arith.addf %x, %x : tensor<128xf32, #blocked>
    tt.return
  }
}

// -----

// Values inside loops count too.
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @loop_warps(%n: i32, %f: f32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error @below {{'tt.splat' op tensor<64xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>> has a layout for 2 warps, but the module has ttg.num-warps = 4}}
      %s = tt.splat %f : f32 -> tensor<64xf32, #blocked>
    }
    tt.return
  }
}

// -----

// A module with a consistent launch shape and layouts verifies.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-stages" = 3 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @consistent(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %a = tt.addptr %s, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %a : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.store %a, %v : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
