// Experiment: one-row kernels whose row arrives through one TMA bulk copy into shared memory
// (`cp.async.bulk` + an mbarrier) instead of per-thread vector loads, against the same kernels
// with plain loads. Built to PTX by bench/bulk-rows-ptx.sh with the system clang (no CUDA
// headers: the few intrinsics are inline PTX); timed by bench/ptx-variants.py under the names
// of the corpus cases argmax_rows and rmsnorm_fwd_bf16, whose signatures they keep.
#include <__clang_cuda_builtin_vars.h>

#define GLOBAL extern "C" __attribute__((global)) __attribute__((launch_bounds(256)))
#define GLOBAL8 extern "C" __attribute__((global)) __attribute__((launch_bounds(256, 8)))
#define DEVICE static __attribute__((device)) inline
#define SHARED __attribute__((shared))

typedef unsigned short bf16;
struct __attribute__((aligned(16))) U4 { unsigned x, y, z, w; };
struct __attribute__((aligned(16))) F4 { float x, y, z, w; };

extern SHARED __attribute__((aligned(128))) unsigned char dynamic_smem[];

DEVICE void barrier() { asm volatile("bar.sync 0;" ::: "memory"); }
DEVICE unsigned smem_address(const void *p) {
  unsigned long long a;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
  return (unsigned)a;
}
DEVICE float shfl_xor(float v, int lane) {
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(lane));
  return r;
}
DEVICE int shfl_xor(int v, int lane) {
  int r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane));
  return r;
}
DEVICE float bf16_to_f32(unsigned bits16) { return __builtin_bit_cast(float, bits16 << 16); }
DEVICE unsigned f32_to_bf16(float f) {
  unsigned u = __builtin_bit_cast(unsigned, f);
  return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

// Thread 0 starts one bulk copy of `bytes` from `src` into shared `dst`; everyone waits for it.
DEVICE void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *bar) {
  unsigned bar_a = smem_address(bar), dst_a = smem_address(dst);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_a) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_a), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(dst_a),
        "l"(src), "r"(bytes), "r"(bar_a)
        : "memory");
  }
}
DEVICE void bulk_wait(unsigned long long *bar) {
  unsigned bar_a = smem_address(bar), done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar_a)
                 : "memory");
}

// ---------------------------------------------------------------- argmax over one f32 row
DEVICE void better(float &best, int &at, float v, int i) {
  if (v > best || (v == best && i < at)) { best = v; at = i; }
}
DEVICE void argmax_finish(float best, int at, int *Idx) {
  SHARED float warp_best[8];
  SHARED int warp_at[8];
  for (int o = 16; o > 0; o >>= 1) better(best, at, shfl_xor(best, o), shfl_xor(at, o));
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { warp_best[warp] = best; warp_at[warp] = at; }
  barrier();
  if (warp == 0) {
    best = lane < 8 ? warp_best[lane] : -__builtin_inff();
    at = lane < 8 ? warp_at[lane] : 0x7fffffff;
    for (int o = 4; o > 0; o >>= 1) better(best, at, shfl_xor(best, o), shfl_xor(at, o));
    if (lane == 0) Idx[blockIdx.x] = at;
  }
}
DEVICE void argmax_rows_of(const F4 *row, int N, int *Idx) {
  F4 v[4];
  int quads = N / 4;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    int q = threadIdx.x + k * 256;
    float ninf = -__builtin_inff();
    v[k] = q < quads ? row[q] : F4{ninf, ninf, ninf, ninf};
  }
  float best = -__builtin_inff();
  int at = 0x7fffffff;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    int i = (threadIdx.x + k * 256) * 4;
    better(best, at, v[k].x, i);
    better(best, at, v[k].y, i + 1);
    better(best, at, v[k].z, i + 2);
    better(best, at, v[k].w, i + 3);
  }
  argmax_finish(best, at, Idx);
}
GLOBAL void argmax_plain(const float *X, int *Idx, int stride, int N) {
  argmax_rows_of((const F4 *)(X + (long)blockIdx.x * stride), N, Idx);
}
GLOBAL void argmax_bulk(const float *X, int *Idx, int stride, int N) {
  SHARED unsigned long long bar;
  F4 *row = (F4 *)dynamic_smem;
  bulk_load(row, X + (long)blockIdx.x * stride, N * 4, &bar);
  barrier();
  bulk_wait(&bar);
  argmax_rows_of(row, N, Idx);
}

// ---------------------------------------------------------------- rmsnorm over one bf16 row
// 4096 columns, 256 threads: two 8-element (16-byte) pieces a thread.
DEVICE float block_sum(float s) {
  SHARED float partial[8];
  for (int o = 16; o > 0; o >>= 1) s += shfl_xor(s, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  barrier();
  float t = 0;
  for (int w = 0; w < 8; w++) t += partial[w];
  return t;
}
DEVICE void sum_squares(const U4 &u, float &s) {
  unsigned words[4] = {u.x, u.y, u.z, u.w};
  for (int j = 0; j < 4; j++) {
    float a = bf16_to_f32(words[j] & 0xffff), b = bf16_to_f32(words[j] >> 16);
    s += a * a + b * b;
  }
}
DEVICE U4 scale(const U4 &x, const U4 &w, float rstd) {
  unsigned xs[4] = {x.x, x.y, x.z, x.w}, ws[4] = {w.x, w.y, w.z, w.w}, out[4];
  for (int j = 0; j < 4; j++) {
    float lo = bf16_to_f32(xs[j] & 0xffff) * rstd * bf16_to_f32(ws[j] & 0xffff);
    float hi = bf16_to_f32(xs[j] >> 16) * rstd * bf16_to_f32(ws[j] >> 16);
    out[j] = f32_to_bf16(lo) | (f32_to_bf16(hi) << 16);
  }
  return U4{out[0], out[1], out[2], out[3]};
}
DEVICE float rstd_of(const U4 *x, int N, float eps) {
  float s = 0;
  sum_squares(x[0], s);
  sum_squares(x[1], s);
  float ms = block_sum(s) / N + eps;
  float r;
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(ms));
  return r;
}
GLOBAL void rmsnorm_plain(const bf16 *X, bf16 *Y, const bf16 *W, int stride, int N, float eps) {
  const U4 *xr = (const U4 *)(X + (long)blockIdx.x * stride);
  U4 *yr = (U4 *)(Y + (long)blockIdx.x * stride);
  const U4 *wr = (const U4 *)W;
  int t = threadIdx.x;
  U4 x[2] = {xr[t], xr[t + 256]};
  U4 w[2] = {wr[t], wr[t + 256]};
  float rstd = rstd_of(x, N, eps);
  yr[t] = scale(x[0], w[0], rstd);
  yr[t + 256] = scale(x[1], w[1], rstd);
}
GLOBAL void rmsnorm_bulk(const bf16 *X, bf16 *Y, const bf16 *W, int stride, int N, float eps) {
  SHARED unsigned long long bar;
  U4 *row = (U4 *)dynamic_smem;
  bulk_load(row, X + (long)blockIdx.x * stride, N * 2, &bar);
  U4 *yr = (U4 *)(Y + (long)blockIdx.x * stride);
  const U4 *wr = (const U4 *)W;
  int t = threadIdx.x;
  U4 w[2] = {wr[t], wr[t + 256]};
  barrier();
  bulk_wait(&bar);
  U4 x[2] = {row[t], row[t + 256]};
  float rstd = rstd_of(x, N, eps);
  yr[t] = scale(x[0], w[0], rstd);
  yr[t + 256] = scale(x[1], w[1], rstd);
}
// The row's result also leaves through one bulk copy from shared memory.
GLOBAL void rmsnorm_bulk2(const bf16 *X, bf16 *Y, const bf16 *W, int stride, int N, float eps) {
  SHARED unsigned long long bar;
  U4 *row = (U4 *)dynamic_smem;
  bulk_load(row, X + (long)blockIdx.x * stride, N * 2, &bar);
  const U4 *wr = (const U4 *)W;
  int t = threadIdx.x;
  U4 w[2] = {wr[t], wr[t + 256]};
  barrier();
  bulk_wait(&bar);
  U4 x[2] = {row[t], row[t + 256]};
  float rstd = rstd_of(x, N, eps);
  row[t] = scale(x[0], w[0], rstd);
  row[t + 256] = scale(x[1], w[1], rstd);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  barrier();
  if (t == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                     Y + (long)blockIdx.x * stride),
                 "r"(smem_address(row)), "r"(N * 2)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

// ---------------------------------------------------------------- softmax over one bf16 row
// 4096 columns, 256 threads, 16 a thread. `softmax_plain` reduces the maximum and then the sum
// across the program (two shared-memory exchanges, two barriers), as Triton and Tritium do;
// `softmax_pair` takes each warp's maximum by shuffles alone, sums exponentials against it, and
// merges the eight warps' (maximum, sum) pairs in one exchange: one barrier, nine more `ex2`s.
DEVICE float exp_approx(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x * 1.4426950408889634f));
  return r;
}
DEVICE void unpack(const U4 &u, float *out) {
  unsigned words[4] = {u.x, u.y, u.z, u.w};
  for (int j = 0; j < 4; j++) {
    out[2 * j] = bf16_to_f32(words[j] & 0xffff);
    out[2 * j + 1] = bf16_to_f32(words[j] >> 16);
  }
}
DEVICE U4 pack(const float *v) {
  unsigned w[4];
  for (int j = 0; j < 4; j++) w[j] = f32_to_bf16(v[2 * j]) | (f32_to_bf16(v[2 * j + 1]) << 16);
  return U4{w[0], w[1], w[2], w[3]};
}
DEVICE float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = __builtin_fmaxf(v, shfl_xor(v, o));
  return v;
}
DEVICE float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += shfl_xor(v, o);
  return v;
}
// This thread's 16 elements of the row (two 16-byte pieces) as f32, and the warp's maximum.
DEVICE float load_row_part(const bf16 *row, float *x) {
  const U4 *pieces = (const U4 *)row;
  U4 raw[2] = {pieces[threadIdx.x], pieces[threadIdx.x + 256]};
  unpack(raw[0], x);
  unpack(raw[1], x + 8);
  float m = x[0];
  for (int i = 1; i < 16; i++) m = __builtin_fmaxf(m, x[i]);
  return warp_max(m);
}
// This thread's 16 elements times `scale`, as bf16, into the row.
DEVICE void store_row_part(bf16 *row, float *x, float scale) {
  U4 *pieces = (U4 *)row;
  for (int i = 0; i < 16; i++) x[i] *= scale;
  pieces[threadIdx.x] = pack(x);
  pieces[threadIdx.x + 256] = pack(x + 8);
}
GLOBAL void softmax_plain(bf16 *out, const bf16 *in, int in_stride, int out_stride, int n) {
  SHARED float partial_max[8], partial_sum[8];
  int t = threadIdx.x, warp = t / 32;
  float x[16];
  float m = load_row_part(in + (long)blockIdx.x * in_stride, x);
  if (t % 32 == 0) partial_max[warp] = m;
  barrier();
  for (int w = 0; w < 8; w++) m = __builtin_fmaxf(m, partial_max[w]);
  float s = 0;
  for (int i = 0; i < 16; i++) { x[i] = exp_approx(x[i] - m); s += x[i]; }
  s = warp_sum(s);
  if (t % 32 == 0) partial_sum[warp] = s;
  barrier();
  s = 0;
  for (int w = 0; w < 8; w++) s += partial_sum[w];
  float r = 1.0f / s;
  store_row_part(out + (long)blockIdx.x * out_stride, x, r);
}
// Eight blocks an SM, as softmax_plain (which needs 32 registers unasked).
GLOBAL8 void softmax_pair(bf16 *out, const bf16 *in, int in_stride, int out_stride, int n) {
  SHARED float partial_max[8], partial_sum[8];
  int t = threadIdx.x, warp = t / 32;
  float x[16];
  float m = load_row_part(in + (long)blockIdx.x * in_stride, x);
  float s = 0;
  for (int i = 0; i < 16; i++) { x[i] = exp_approx(x[i] - m); s += x[i]; }
  s = warp_sum(s);
  if (t % 32 == 0) { partial_max[warp] = m; partial_sum[warp] = s; }
  barrier();
  float row_max = partial_max[0];
  for (int w = 1; w < 8; w++) row_max = __builtin_fmaxf(row_max, partial_max[w]);
  float total = 0;
  for (int w = 0; w < 8; w++) total += partial_sum[w] * exp_approx(partial_max[w] - row_max);
  float r = exp_approx(m - row_max) / total;
  store_row_part(out + (long)blockIdx.x * out_stride, x, r);
}
