"""Exhaustive ulp error of f32 `exp` sequences on the GPU (needs CuPy): every float x whose exp
is a finite normal float, against exp in f64. libdevice's `expf` (Tritium's sequence), Triton's
`ex2.approx(x·log2e)`, and two 6-instruction candidates that feed `ex2.approx.ftz` the rounded
`x·log2e` and correct by the exact remainder: whether their error (the hardware ex2's on an
arbitrary argument plus one rounding) stays within libdevice's 2 ulp decides whether they may
replace the 8-instruction sequence (docs/benchmarks.md, cross_entropy_fwd).

    python3 bench/exp-ulp.py
"""
import cupy as cp, numpy as np, sys
SRC = r'''
__device__ __forceinline__ float ex2ftz(float x){float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); return r;}
__device__ __forceinline__ float ex2(float x){float r; asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); return r;}
__device__ float v_libdevice(float x){ return expf(x); }
__device__ float v_triton(float x){ return ex2(__fmul_rn(x, 1.4426950408889634f)); }
__device__ float v_split6(float x){
  float hi = __fmul_rn(x, 1.4426950408889634f);
  float r = __fmaf_rn(-hi, 0.693145751953125f, x);      // ln2 high part (16 bits)
  r = __fmaf_rn(-hi, 1.4286068202862268e-06f, r);      // ln2 - high part
  float e = ex2ftz(hi);
  return __fmaf_rn(e, fminf(r, 1.0f), e);
}
__device__ float v_split6b(float x){
  float hi = __fmul_rn(x, 1.4426950408889634f);
  float lo = __fmaf_rn(x, 1.4426950408889634f, -hi);     // x*log2e - hi, exact
  lo = __fmaf_rn(x, 1.925963033500011079e-08f, lo);      // log2e's tail
  float e = ex2ftz(hi);
  return __fmaf_rn(e, fminf(lo, 1.0f) * 0.6931471805599453f, e);
}
__device__ float v_ex2ftz_frac(float x){   // ex2 of a fraction only, scaled by 2^n exactly (reference point)
  float hi = __fmul_rn(x, 1.4426950408889634f);
  float n = rintf(hi);
  float f = __fmaf_rn(x, 1.4426950408889634f, -n);
  f = __fmaf_rn(x, 1.925963033500011079e-08f, f);
  return ldexpf(ex2ftz(f), (int)n);
}
extern "C" __global__ void measure(unsigned base, unsigned count, unsigned sign, int which,
                                   unsigned long long *maxerr, unsigned long long *over2, unsigned long long *worst){
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  unsigned bits = (base + i) | sign;
  float x = __uint_as_float(bits);
  double ref = exp((double)x);
  if (!(ref >= 1.1754943508222875e-38 && ref <= 3.4028234663852886e38)) return;
  float y;
  switch (which) {
    case 0: y = v_libdevice(x); break;
    case 1: y = v_triton(x); break;
    case 2: y = v_split6(x); break;
    case 3: y = v_split6b(x); break;
    default: y = v_ex2ftz_frac(x); break;
  }
  float rf = (float)ref;
  int ex; frexp((double)rf, &ex);
  double ulp = ldexp(1.0, ex - 24);
  double err = fabs((double)y - ref) / ulp;
  if (!(err < 1e9)) err = 1e9;
  unsigned long long e = (unsigned long long)(err * 1e6);
  unsigned long long old = atomicMax(maxerr, e);
  if (e > old) atomicExch(worst, (unsigned long long)bits);
  if (err > 2.0) atomicAdd(over2, 1ULL);
}
'''
names = ["libdevice expf (nvrtc, ftz)", "triton ex2.approx(x*log2e)", "split6 (Cody-Waite r)", "split6b (exact product tail)", "ex2 of fraction, exact scale"]
mod = cp.RawModule(code=SRC, options=("--ftz=true", "-arch=sm_90"))
k = mod.get_function("measure")
pos_end = np.float32(89.0).view(np.uint32)   # past overflow; filtered in the kernel
neg_end = np.float32(88.0).view(np.uint32)   # -88 is past the normal-result limit
for w, name in enumerate(names):
    maxerr = cp.zeros(1, cp.uint64); over2 = cp.zeros(1, cp.uint64); worst = cp.zeros(1, cp.uint64)
    for sign, end in ((0, pos_end), (0x80000000, neg_end)):
        n = int(end)
        k(((n + 255) // 256,), (256,), (np.uint32(0), np.uint32(n), np.uint32(sign), np.int32(w), maxerr, over2, worst))
    cp.cuda.runtime.deviceSynchronize()
    wx = np.array([int(worst.get()[0])], np.uint32).view(np.float32)[0]
    print(f"{name:32s} max {int(maxerr.get()[0]) / 1e6:.3f} ulp at x={wx!r}, {int(over2.get()[0])} inputs over 2 ulp", flush=True)
