// RUN: triton-opt %s --split-input-file --triton-loop-unroll --verify-diagnostics

// Unroll factors are bounded: a huge factor on a loop whose trip count is unknown is an error at
// the loop (not 2^31 - 1 copies of its body).

tt.func @huge_factor(%lb: i32, %ub: i32, %step: i32, %init: f32) -> f32 {
  // expected-error @below {{tt.loop_unroll_factor = 2147483647 is too large: at most 1024 copies of a loop body are supported}}
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) : i32 {
    %a = arith.addf %acc, %acc : f32
    scf.yield %a : f32
  } {tt.loop_unroll_factor = 2147483647 : i32}
  tt.return %r : f32
}

// -----

// The unrolled body is bounded too: 1024 copies of a 100-op body is too much.
tt.func @huge_body(%lb: i32, %ub: i32, %step: i32, %init: f32) -> f32 {
  // expected-error @below {{tt.loop_unroll_factor = 1024 would make a body of 100 ops 102400 ops long; at most 2048 are supported}}
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (f32) : i32 {
    %a0 = arith.addf %acc, %acc : f32
    %a1 = arith.addf %a0, %a0 : f32
    %a2 = arith.addf %a1, %a1 : f32
    %a3 = arith.addf %a2, %a2 : f32
    %a4 = arith.addf %a3, %a3 : f32
    %a5 = arith.addf %a4, %a4 : f32
    %a6 = arith.addf %a5, %a5 : f32
    %a7 = arith.addf %a6, %a6 : f32
    %a8 = arith.addf %a7, %a7 : f32
    %a9 = arith.addf %a8, %a8 : f32
    %a10 = arith.addf %a9, %a9 : f32
    %a11 = arith.addf %a10, %a10 : f32
    %a12 = arith.addf %a11, %a11 : f32
    %a13 = arith.addf %a12, %a12 : f32
    %a14 = arith.addf %a13, %a13 : f32
    %a15 = arith.addf %a14, %a14 : f32
    %a16 = arith.addf %a15, %a15 : f32
    %a17 = arith.addf %a16, %a16 : f32
    %a18 = arith.addf %a17, %a17 : f32
    %a19 = arith.addf %a18, %a18 : f32
    %a20 = arith.addf %a19, %a19 : f32
    %a21 = arith.addf %a20, %a20 : f32
    %a22 = arith.addf %a21, %a21 : f32
    %a23 = arith.addf %a22, %a22 : f32
    %a24 = arith.addf %a23, %a23 : f32
    %a25 = arith.addf %a24, %a24 : f32
    %a26 = arith.addf %a25, %a25 : f32
    %a27 = arith.addf %a26, %a26 : f32
    %a28 = arith.addf %a27, %a27 : f32
    %a29 = arith.addf %a28, %a28 : f32
    %a30 = arith.addf %a29, %a29 : f32
    %a31 = arith.addf %a30, %a30 : f32
    %a32 = arith.addf %a31, %a31 : f32
    %a33 = arith.addf %a32, %a32 : f32
    %a34 = arith.addf %a33, %a33 : f32
    %a35 = arith.addf %a34, %a34 : f32
    %a36 = arith.addf %a35, %a35 : f32
    %a37 = arith.addf %a36, %a36 : f32
    %a38 = arith.addf %a37, %a37 : f32
    %a39 = arith.addf %a38, %a38 : f32
    %a40 = arith.addf %a39, %a39 : f32
    %a41 = arith.addf %a40, %a40 : f32
    %a42 = arith.addf %a41, %a41 : f32
    %a43 = arith.addf %a42, %a42 : f32
    %a44 = arith.addf %a43, %a43 : f32
    %a45 = arith.addf %a44, %a44 : f32
    %a46 = arith.addf %a45, %a45 : f32
    %a47 = arith.addf %a46, %a46 : f32
    %a48 = arith.addf %a47, %a47 : f32
    %a49 = arith.addf %a48, %a48 : f32
    %a50 = arith.addf %a49, %a49 : f32
    %a51 = arith.addf %a50, %a50 : f32
    %a52 = arith.addf %a51, %a51 : f32
    %a53 = arith.addf %a52, %a52 : f32
    %a54 = arith.addf %a53, %a53 : f32
    %a55 = arith.addf %a54, %a54 : f32
    %a56 = arith.addf %a55, %a55 : f32
    %a57 = arith.addf %a56, %a56 : f32
    %a58 = arith.addf %a57, %a57 : f32
    %a59 = arith.addf %a58, %a58 : f32
    %a60 = arith.addf %a59, %a59 : f32
    %a61 = arith.addf %a60, %a60 : f32
    %a62 = arith.addf %a61, %a61 : f32
    %a63 = arith.addf %a62, %a62 : f32
    %a64 = arith.addf %a63, %a63 : f32
    %a65 = arith.addf %a64, %a64 : f32
    %a66 = arith.addf %a65, %a65 : f32
    %a67 = arith.addf %a66, %a66 : f32
    %a68 = arith.addf %a67, %a67 : f32
    %a69 = arith.addf %a68, %a68 : f32
    %a70 = arith.addf %a69, %a69 : f32
    %a71 = arith.addf %a70, %a70 : f32
    %a72 = arith.addf %a71, %a71 : f32
    %a73 = arith.addf %a72, %a72 : f32
    %a74 = arith.addf %a73, %a73 : f32
    %a75 = arith.addf %a74, %a74 : f32
    %a76 = arith.addf %a75, %a75 : f32
    %a77 = arith.addf %a76, %a76 : f32
    %a78 = arith.addf %a77, %a77 : f32
    %a79 = arith.addf %a78, %a78 : f32
    %a80 = arith.addf %a79, %a79 : f32
    %a81 = arith.addf %a80, %a80 : f32
    %a82 = arith.addf %a81, %a81 : f32
    %a83 = arith.addf %a82, %a82 : f32
    %a84 = arith.addf %a83, %a83 : f32
    %a85 = arith.addf %a84, %a84 : f32
    %a86 = arith.addf %a85, %a85 : f32
    %a87 = arith.addf %a86, %a86 : f32
    %a88 = arith.addf %a87, %a87 : f32
    %a89 = arith.addf %a88, %a88 : f32
    %a90 = arith.addf %a89, %a89 : f32
    %a91 = arith.addf %a90, %a90 : f32
    %a92 = arith.addf %a91, %a91 : f32
    %a93 = arith.addf %a92, %a92 : f32
    %a94 = arith.addf %a93, %a93 : f32
    %a95 = arith.addf %a94, %a94 : f32
    %a96 = arith.addf %a95, %a95 : f32
    %a97 = arith.addf %a96, %a96 : f32
    %a98 = arith.addf %a97, %a97 : f32
    %a99 = arith.addf %a98, %a98 : f32
    scf.yield %a99 : f32
  } {tt.loop_unroll_factor = 1024 : i32}
  tt.return %r : f32
}

// -----

// So are the elements the unrolled body computes: eight copies of a body with three 256x256 ops
// (196,608 elements) would be 1,572,864, past the limit of 2^18, however few the ops.
tt.func @huge_tensors(%lb: i32, %ub: i32, %step: i32, %init: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @below {{tt.loop_unroll_factor = 8 would make a body whose ops produce 196608 tensor elements produce 1572864; at most 262144 are supported}}
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %init) -> (tensor<256x256xf32>) : i32 {
    %a = arith.addf %acc, %acc : tensor<256x256xf32>
    %b = arith.mulf %a, %acc : tensor<256x256xf32>
    %c = arith.subf %b, %a : tensor<256x256xf32>
    scf.yield %c : tensor<256x256xf32>
  } {tt.loop_unroll_factor = 8 : i32}
  tt.return %r : tensor<256x256xf32>
}
