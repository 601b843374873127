// compute-capability and ptx-version choose the instructions: the fp8 conversion instruction
// needs sm_89 and PTX ISA 7.8; below either, the same rounding is done in software. 0 (the
// default) takes the capability from the module's ttg.target.
// RUN: triton-opt %s --convert-triton-gpu-to-llvm=compute-capability=90 | FileCheck %s --check-prefix=SM90
// RUN: triton-opt %s --convert-triton-gpu-to-llvm | FileCheck %s --check-prefix=SM90
// RUN: triton-opt %s --convert-triton-gpu-to-llvm=compute-capability=89 | FileCheck %s --check-prefix=SM90
// RUN: triton-opt %s --convert-triton-gpu-to-llvm=compute-capability=80 | FileCheck %s --check-prefix=SM80
// RUN: triton-opt %s --convert-triton-gpu-to-llvm="compute-capability=90 ptx-version=77" | FileCheck %s --check-prefix=SM80
// RUN: not triton-opt %s --convert-triton-gpu-to-llvm=compute-capability=70 2>&1 | FileCheck %s --check-prefix=BAD

// SM90-LABEL: llvm.func @fp8_rtne
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM80-LABEL: llvm.func @fp8_rtne
// SM80-NOT: cvt.rn.satfinite
// SM80: llvm.intr.roundeven
// SM80-NOT: cvt.rn.satfinite
// SM80: llvm.return
// BAD: error: compute capability 70 is not supported (80, 86, 89 or 90)
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @fp8_rtne(%p: !tt.ptr<f32>, %q: !tt.ptr<f8E4M3FN>) {
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tt.load %pp : tensor<512x!tt.ptr<f32>, #blocked>
    %a = tt.fp_to_fp %v, rounding = rtne : tensor<512xf32, #blocked> -> tensor<512xf8E4M3FN, #blocked>
    %qs = tt.splat %q : !tt.ptr<f8E4M3FN> -> tensor<512x!tt.ptr<f8E4M3FN>, #blocked>
    %qq = tt.addptr %qs, %r : tensor<512x!tt.ptr<f8E4M3FN>, #blocked>, tensor<512xi32, #blocked>
    tt.store %qq, %a : tensor<512x!tt.ptr<f8E4M3FN>, #blocked>
    tt.return
  }
}
