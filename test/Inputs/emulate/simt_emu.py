"""Runs a lowered Tritium kernel on the CPU: the LLVM IR of `tritium compile --emit ll`, retargeted
to the host, each program's threads as pthreads. The NVPTX-specific parts become calls: `tid.x`,
`ctaid.*` and `nctaid.*` read the emulated thread and grid, `bar.sync` is a barrier over the
program's threads, `shfl.sync.{up,bfly,idx}`, `ldmatrix`, `stmatrix` and `mma.sync` (m16n8k16
f16/bf16, m16n8k8 tf32, m16n8k32 s8) exchange fragments through per-warp buffers between
barriers, `wgmma.mma_async` computes each thread's accumulator elements when issued (shared
operands through their matrix descriptors), device-side TMA descriptors, bulk tensor copies and
mbarriers run in an emulator-defined descriptor layout, the predicated `ld.global` /
`st.global` (any width and vector length) and the atomics are small IR or C functions, `cp.async`
copies at once (commit and wait do nothing), the approximate math instructions are their exact
counterparts, the fp8 `cvt`s follow the PTX ISA, and integer division by zero gives what PTX and
the interpreter give instead of trapping. Shared memory is one array, poisoned (0xAB bytes)
before each program.

What it checks is the lowering's arithmetic, indexing, data movement between threads and
barrier placement, on the CPU, against a reference: not timing, not memory ordering beyond
barriers (except one rule: the async proxy — wgmma's shared operands, TMA stores — must not read
shared memory a thread wrote through the generic proxy without a `fence.proxy.async` after the
write), not the PTX assembler. Kernels with other inline asm or NVVM intrinsics (printf, ...)
are refused with the list of what is missing. Used by the lit tests in
test/Emulation and by `tritium_fuzz::emulate` (clang-22 from scripts/bootstrap compiles the
retargeted IR)."""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile

RUNTIME = r"""
#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sched.h>
#ifndef NWARPS
#define NWARPS 4
#endif
#define NTHREADS (NWARPS * 32)
static __thread int emu_tid;
static int emu_cta, emu_cta_y, emu_cta_z;
static pthread_mutex_t emu_atomics = PTHREAD_MUTEX_INITIALIZER;
/* Aligned to its size, so an address's low 18 bits (all a wgmma matrix descriptor keeps) are its
   offset in it. */
char global_smem[1 << 18] __attribute__((aligned(1 << 18)));
static pthread_barrier_t bar_all, bar_warp[NWARPS];
static uint64_t xchg[NWARPS][32];
int emu_tid_x(void) { return emu_tid; }
int emu_ctaid_x(void) { return emu_cta; }
int emu_ctaid_y(void) { return emu_cta_y; }
int emu_ctaid_z(void) { return emu_cta_z; }
static int emu_grid[3];
int emu_nctaid_x(void) { return emu_grid[0]; }
int emu_nctaid_y(void) { return emu_grid[1]; }
int emu_nctaid_z(void) { return emu_grid[2]; }
uint32_t emu_mov_b32(uint32_t x) { return x; }
uint64_t emu_mov_b64(uint64_t x) { return x; }
int32_t emu_sub_s32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
/* f32 -> bf16 with round to nearest even (LLVM calls it for fptrunc on the host). */
__bf16 __truncsfbf2(float f) {
  uint32_t b; memcpy(&b, &f, 4);
  uint16_t h = isnan(f) ? (uint16_t)((b >> 16) | 0x40) : (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
  __bf16 r; memcpy(&r, &h, 2); return r;
}
uint16_t emu_cvt_rz_f16_f32(float f) {
  /* toward zero: the f16 nearest to f that is not larger in magnitude */
  _Float16 h = (_Float16)f;
  if (isfinite(f) && fabsf((float)h) > fabsf(f)) h = (_Float16)nextafterf((float)h, 0.0f);
  if (isinf(h) && isfinite(f)) h = (_Float16)copysignf(65504.0f, f);
  uint16_t bits; memcpy(&bits, &h, 2); return bits;
}
/* The approximate instructions as their exact counterparts (the hardware's are within a few
   ulp of these); .ftz flushes subnormal inputs and results to zero. */
static float ftz(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }
float emu_ex2_ftz(float x) { return ftz(exp2f(ftz(x))); }
float emu_ex2(float x) { return exp2f(x); }
float emu_lg2(float x) { return log2f(x); }
float emu_rcp(float x) { return 1.0f / x; }
float emu_rsqrt(float x) { return 1.0f / sqrtf(x); }
float emu_sqrt(float x) { return sqrtf(x); }
float emu_div_full(float a, float b) { return a / b; }
float emu_fma_sat(float a, float b, float c) {
  float r = fmaf(a, b, c);
  return isnan(r) ? 0.0f : r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
}
#define ATOM(op, ty, name, expr) \
  ty emu_atom_##name(ty *p, ty v) { pthread_mutex_lock(&emu_atomics); ty old = *p; *p = (expr); \
                                     pthread_mutex_unlock(&emu_atomics); return old; }
ATOM(add, uint32_t, add_u32, old + v) ATOM(add, int32_t, add_s32, old + v)
ATOM(add, uint64_t, add_u64, old + v)
/* Float atomics take and return the bits, as the asm's 32/64-bit registers hold them. */
static float bits_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t f32_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static double bits_f64(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
static uint64_t f64_bits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }
ATOM(add, uint32_t, add_f32, f32_bits(bits_f32(old) + bits_f32(v)))
ATOM(add, uint64_t, add_f64, f64_bits(bits_f64(old) + bits_f64(v)))
ATOM(max, uint32_t, max_u32, old > v ? old : v) ATOM(max, int32_t, max_s32, old > v ? old : v)
ATOM(min, uint32_t, min_u32, old < v ? old : v) ATOM(min, int32_t, min_s32, old < v ? old : v)
ATOM(exch, uint32_t, exch_u32, v) ATOM(and, uint32_t, and_u32, old & v) ATOM(or, uint32_t, or_u32, old | v)
ATOM(xor, uint32_t, xor_u32, old ^ v)
ATOM(exch, uint64_t, exch_u64, v) ATOM(and, uint64_t, and_u64, old & v) ATOM(or, uint64_t, or_u64, old | v)
ATOM(xor, uint64_t, xor_u64, old ^ v) ATOM(exch, uint32_t, exch_f32, v)
ATOM(max, int64_t, max_s64, old > v ? old : v) ATOM(min, int64_t, min_s64, old < v ? old : v)
ATOM(max, uint64_t, max_u64, old > v ? old : v) ATOM(min, uint64_t, min_u64, old < v ? old : v)
ATOM(add, int64_t, add_s64, old + v)
uint32_t emu_atom_cas_u32(uint32_t *p, uint32_t cmp, uint32_t v) {
  pthread_mutex_lock(&emu_atomics); uint32_t old = *p; if (old == cmp) *p = v;
  pthread_mutex_unlock(&emu_atomics); return old;
}
uint64_t emu_atom_cas_u64(uint64_t *p, uint64_t cmp, uint64_t v) {
  pthread_mutex_lock(&emu_atomics); uint64_t old = *p; if (old == cmp) *p = v;
  pthread_mutex_unlock(&emu_atomics); return old;
}
void emu_bar(void) { pthread_barrier_wait(&bar_all); }
static uint64_t shfl(uint64_t v, int src) {
  int w = emu_tid / 32, l = emu_tid % 32;
  xchg[w][l] = v;
  pthread_barrier_wait(&bar_warp[w]);
  uint64_t r = xchg[w][src & 31];
  pthread_barrier_wait(&bar_warp[w]);
  return r;
}
uint32_t emu_shfl_up(uint32_t v, uint32_t d) { int l = emu_tid % 32; int s = l - (int)d; return (uint32_t)shfl(v, s < 0 ? l : s); }
uint32_t emu_shfl_bfly(uint32_t v, uint32_t m) { return (uint32_t)shfl(v, (emu_tid % 32) ^ m); }
uint32_t emu_shfl_idx(uint32_t v, uint32_t i) { return (uint32_t)shfl(v, i & 31); }
/* fp8 conversions as PTX defines them (round to nearest even; .satfinite: finite values past the
   largest finite one, and infinities, become it; NaN stays NaN), two at a time: the first
   source operand (or a source's upper half) is the result's upper half. */
static uint8_t fp8_encode(float x, int mantissa_bits, int bias, float max_finite, uint8_t nan) {
  uint8_t sign = signbit(x) ? 0x80 : 0;
  if (isnan(x)) return sign | nan;
  float a = fabsf(x);
  int min_exp = 1 - bias;
  float step_sub = ldexpf(1.0f, min_exp - mantissa_bits);
  uint32_t code;
  if (a < ldexpf(1.0f, min_exp)) {
    code = (uint32_t)nearbyintf(a / step_sub);             /* may round up to the smallest normal */
  } else {
    int e; float m = frexpf(a, &e); m *= 2; e -= 1;         /* a = m 2^e, m in [1, 2) */
    float q = nearbyintf((m - 1) * (float)(1 << mantissa_bits));
    if (q == (float)(1 << mantissa_bits)) { q = 0; e += 1; }
    code = ((uint32_t)(e + bias) << mantissa_bits) | (uint32_t)q;
  }
  uint32_t max_code = 0;
  { int e; float m = frexpf(max_finite, &e); m *= 2; e -= 1;
    max_code = ((uint32_t)(e + bias) << mantissa_bits) | (uint32_t)((m - 1) * (float)(1 << mantissa_bits)); }
  if (a > max_finite || code > max_code) code = max_code;
  return sign | (uint8_t)code;
}
static float fp8_decode(uint8_t c, int mantissa_bits, int bias, int has_inf) {
  int exp_bits = 7 - mantissa_bits;
  int e = (c >> mantissa_bits) & ((1 << exp_bits) - 1), m = c & ((1 << mantissa_bits) - 1);
  float s = (c & 0x80) ? -1.0f : 1.0f;
  if (has_inf && e == (1 << exp_bits) - 1) return m ? NAN : s * INFINITY;
  if (!has_inf && (c & 0x7f) == 0x7f) return NAN;
  if (e == 0) return s * ldexpf((float)m, 1 - bias - mantissa_bits);
  return s * ldexpf(1.0f + (float)m / (float)(1 << mantissa_bits), e - bias);
}
static uint16_t half_bits(float f) { _Float16 h = (_Float16)f; uint16_t b; memcpy(&b, &h, 2); return b; }
static float half_value(uint16_t b) { _Float16 h; memcpy(&h, &b, 2); return (float)h; }
#define E4M3 3, 7, 448.0f, 0x7f
#define E5M2 2, 15, 57344.0f, 0x7f
uint16_t emu_cvt_e4m3x2_f32(float a, float b) { return (uint16_t)(fp8_encode(a, E4M3) << 8 | fp8_encode(b, E4M3)); }
uint16_t emu_cvt_e5m2x2_f32(float a, float b) { return (uint16_t)(fp8_encode(a, E5M2) << 8 | fp8_encode(b, E5M2)); }
uint16_t emu_cvt_e4m3x2_f32_1(float a) { return emu_cvt_e4m3x2_f32(a, a); }
uint16_t emu_cvt_e5m2x2_f32_1(float a) { return emu_cvt_e5m2x2_f32(a, a); }
uint16_t emu_cvt_e4m3x2_f16x2(uint32_t v) {
  return (uint16_t)(fp8_encode(half_value(v >> 16), E4M3) << 8 | fp8_encode(half_value(v & 0xffff), E4M3));
}
uint16_t emu_cvt_e5m2x2_f16x2(uint32_t v) {
  return (uint16_t)(fp8_encode(half_value(v >> 16), E5M2) << 8 | fp8_encode(half_value(v & 0xffff), E5M2));
}
uint32_t emu_cvt_f16x2_e4m3x2(uint16_t v) {
  return (uint32_t)half_bits(fp8_decode(v >> 8, 3, 7, 0)) << 16 | half_bits(fp8_decode(v & 0xff, 3, 7, 0));
}
uint32_t emu_cvt_f16x2_e5m2x2(uint16_t v) {
  return (uint32_t)half_bits(fp8_decode(v >> 8, 2, 15, 1)) << 16 | half_bits(fp8_decode(v & 0xff, 2, 15, 1));
}
/* A 32-bit shared-memory address (the lowering's ptrtoint of an addrspace(3) pointer, here the
   low half of a host pointer into global_smem) back to a host pointer. */
static char *shared_ptr(uint32_t addr) {
  uintptr_t base = (uintptr_t)global_smem;
  return (char *)((base & ~(uintptr_t)0xffffffffu) | addr);
}
/* The shared-memory access trace (EMU_SMEM_TRACE=path): the first program's accesses, a line
   each: thread, the access's site (the caller's address: one per IR load, store or asm
   helper), how many times the thread reached that site before, kind (l load, s store, c
   cp.async, m ldmatrix row, n stmatrix row), byte offset, bytes. bench/smem-conflicts.py
   counts the bank conflicts. */
static FILE *trace_file;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread uintptr_t trace_sites[4096];
static __thread unsigned trace_counts[4096], trace_nsites;
static void trace(uintptr_t site, char kind, const void *p, int bytes) {
  if (!trace_file || emu_cta || emu_cta_y || emu_cta_z) return;
  unsigned i = 0;
  while (i < trace_nsites && trace_sites[i] != site) i++;
  if (i == trace_nsites) { if (i == 4096) return; trace_sites[trace_nsites++] = site; trace_counts[i] = 0; }
  pthread_mutex_lock(&trace_lock);
  fprintf(trace_file, "%d %lx %u %c %ld %d\n", emu_tid, (unsigned long)site, trace_counts[i]++, kind,
          (long)((const char *)p - global_smem), bytes);
  pthread_mutex_unlock(&trace_lock);
}
#define SITE ((uintptr_t)__builtin_return_address(0))
void emu_trace_ld(const void *p, int bytes) { trace(SITE, 'l', p, bytes); }
void emu_trace_st(const void *p, int bytes) { trace(SITE, 's', p, bytes); }
/* The async proxy (wgmma's shared operands, TMA stores) sees a thread's generic-proxy writes to
   shared memory (stores, st.shared, stmatrix) only after that thread's fence.proxy.async. Each
   byte keeps its last generic writer and the writer's fence count at the time; an async-proxy
   read of a byte whose writer has not fenced since is an error (on a GPU the read may see stale
   data; here every read is immediate, so the missing fence is all there is to see). cp.async and
   TMA loads clear the mark. */
static uint16_t generic_writer[1 << 18];
static uint32_t generic_fences[1 << 18];
static uint32_t fence_count[NTHREADS];
static void mark_shared(const void *p, int bytes, uint16_t writer) {
  long off = (const char *)p - global_smem;
  if (off < 0 || off + bytes > (long)sizeof global_smem) return;
  for (int i = 0; i < bytes; i++) {
    generic_writer[off + i] = writer;
    generic_fences[off + i] = writer ? fence_count[writer - 1] : 0;
  }
}
void emu_generic_store(const void *p, int bytes) { mark_shared(p, bytes, (uint16_t)(emu_tid + 1)); }
void emu_fence_proxy_async(void) { fence_count[emu_tid]++; }
static void async_proxy_read(const void *p, int bytes, const char *reader) {
  long off = (const char *)p - global_smem;
  if (off < 0 || off + bytes > (long)sizeof global_smem) return;
  for (int i = 0; i < bytes; i++) {
    int w = generic_writer[off + i];
    if (w && generic_fences[off + i] == fence_count[w - 1]) {
      fprintf(stderr, "emulator: %s reads shared-memory byte %ld, which thread %d wrote through the "
              "generic proxy with no fence.proxy.async after the write\n", reader, off + i, w - 1);
      exit(3);
    }
  }
}
/* cp.async: copied at once (commit and wait are then no-ops); bytes past src_size are zeroed. */
void emu_cp_async(uint32_t dst, const char *src, int size, int src_size) {
  char *d = shared_ptr(dst);
  trace(SITE, 'c', d, size);
  mark_shared(d, size, 0);
  for (int i = 0; i < size; i++) d[i] = i < src_size ? src[i] : 0;
}
void emu_nop(void) {}
/* Per-warp exchange of wider fragments (ldmatrix addresses, mma operands). */
static uint32_t frag[NWARPS][32][12];
static void warp_sync(void) { pthread_barrier_wait(&bar_warp[emu_tid / 32]); }
/* ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: lane i addresses row i % 8 of matrix i / 8;
   register j of lane l holds matrix j's row l / 4, columns 2 (l % 4) and + 1 (transposed: those
   rows of column l / 4). */
void emu_ldmatrix_x4(uint32_t *out, uint32_t addr, int trans) {
  int w = emu_tid / 32, l = emu_tid % 32;
  trace(SITE, 'm', shared_ptr(addr), 16);
  frag[w][l][0] = addr;
  warp_sync();
  for (int j = 0; j < 4; j++) {
    uint16_t h[2];
    for (int k = 0; k < 2; k++) {
      int row = trans ? 2 * (l % 4) + k : l / 4, col = trans ? l / 4 : 2 * (l % 4) + k;
      memcpy(&h[k], shared_ptr(frag[w][8 * j + row][0]) + 2 * col, 2);
    }
    out[j] = (uint32_t)h[0] | (uint32_t)h[1] << 16;
  }
  warp_sync();
}
static float bf16_value(uint16_t b) { uint32_t x = (uint32_t)b << 16; float f; memcpy(&f, &x, 4); return f; }
/* mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: fragments as the PTX ISA
   lays them out (g = lane / 4, t = lane % 4). */
void emu_mma_m16n8k16(float *d, const uint32_t *a, const uint32_t *b, const float *c, int bf16) {
  int w = emu_tid / 32, l = emu_tid % 32;
  for (int i = 0; i < 4; i++) frag[w][l][i] = a[i];
  for (int i = 0; i < 2; i++) frag[w][l][4 + i] = b[i];
  warp_sync();
  float A[16][16], B[16][8];
  for (int lane = 0; lane < 32; lane++) {
    int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; r++)
      for (int k = 0; k < 2; k++) {
        uint16_t h = (uint16_t)(frag[w][lane][r] >> (16 * k));
        float v = bf16 ? bf16_value(h) : half_value(h);
        int row = g + 8 * (r & 1), col = 2 * t + k + 8 * (r >> 1);
        A[row][col] = v;
      }
    for (int r = 0; r < 2; r++)
      for (int k = 0; k < 2; k++) {
        uint16_t h = (uint16_t)(frag[w][lane][4 + r] >> (16 * k));
        B[2 * t + k + 8 * r][g] = bf16 ? bf16_value(h) : half_value(h);
      }
  }
  int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; i++) {
    int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
    float acc = c[i];
    for (int k = 0; k < 16; k++) acc = fmaf(A[row][k], B[k][col], acc);
    d[i] = acc;
  }
  warp_sync();
}
/* mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16: the f32 form with the accumulator's pairs
   (row g, then g + 8) packed in two registers, rounded to f16. */
void emu_mma_m16n8k16_f16acc(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c) {
  float cf[4], df[4];
  for (int i = 0; i < 4; i++) cf[i] = half_value((uint16_t)(c[i / 2] >> (16 * (i % 2))));
  emu_mma_m16n8k16(df, a, b, cf, 0);
  for (int r = 0; r < 2; r++) d[r] = (uint32_t)half_bits(df[2 * r]) | (uint32_t)half_bits(df[2 * r + 1]) << 16;
}
/* mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32: four s8 a register (g = lane / 4,
   t = lane % 4: a_r holds row g + 8 (r & 1), columns 4t + 16 (r >> 1) .. + 3; b_r rows 4t + 16 r
   .. + 3 of column g), the s32 accumulator as in m16n8k16. */
void emu_mma_m16n8k32_s8(int32_t *d, const uint32_t *a, const uint32_t *b, const int32_t *c) {
  int w = emu_tid / 32, l = emu_tid % 32;
  for (int i = 0; i < 4; i++) frag[w][l][i] = a[i];
  for (int i = 0; i < 2; i++) frag[w][l][4 + i] = b[i];
  warp_sync();
  int A[16][32], B[32][8];
  for (int lane = 0; lane < 32; lane++) {
    int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; r++)
      for (int k = 0; k < 4; k++)
        A[g + 8 * (r & 1)][4 * t + k + 16 * (r >> 1)] = (int8_t)(frag[w][lane][r] >> (8 * k));
    for (int r = 0; r < 2; r++)
      for (int k = 0; k < 4; k++)
        B[4 * t + k + 16 * r][g] = (int8_t)(frag[w][lane][4 + r] >> (8 * k));
  }
  int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; i++) {
    int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
    uint32_t acc = (uint32_t)c[i];
    for (int k = 0; k < 32; k++) acc += (uint32_t)(A[row][k] * B[k][col]);
    d[i] = (int32_t)acc;
  }
  warp_sync();
}
/* mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: a_r holds (g + 8 (r & 1), t + 4 (r >> 1)),
   b_r (t + 4 r, g); each input rounded to tf32 to the nearest, ties away (cvt.rna.tf32.f32, as
   the interpreter models the tensor cores' tf32). */
static float tf32_value(uint32_t bits) {
  float f;
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & ~0x1fffu;
  memcpy(&f, &bits, 4);
  return f;
}
/* cvt.rna.tf32.f32: the tf32 nearest, ties away from zero (the asm's 32-bit register is typed
   float in the IR, so the value comes back as one). */
float emu_cvt_rna_tf32(float f) { uint32_t b; memcpy(&b, &f, 4); return tf32_value(b); }
void emu_mma_m16n8k8_tf32(float *d, const uint32_t *a, const uint32_t *b, const float *c) {
  int w = emu_tid / 32, l = emu_tid % 32;
  for (int i = 0; i < 4; i++) frag[w][l][i] = a[i];
  for (int i = 0; i < 2; i++) frag[w][l][4 + i] = b[i];
  warp_sync();
  float A[16][8], B[8][8];
  for (int lane = 0; lane < 32; lane++) {
    int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; r++) A[g + 8 * (r & 1)][t + 4 * (r >> 1)] = tf32_value(frag[w][lane][r]);
    for (int r = 0; r < 2; r++) B[t + 4 * r][g] = tf32_value(frag[w][lane][4 + r]);
  }
  int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; i++) {
    int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
    double acc = c[i];
    for (int k = 0; k < 8; k++) acc += (double)A[row][k] * B[k][col];
    d[i] = (float)acc;
  }
  warp_sync();
}
/* stmatrix.sync.aligned.m8n8.x4[.trans].shared.b16, ldmatrix's inverse: lane i addresses row
   i % 8 of matrix i / 8, which gets register i / 8 of lanes 4 (i % 8) .. + 3 (two columns each;
   transposed: column i % 8 of those lanes' rows). */
void emu_stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3, int trans) {
  int w = emu_tid / 32, l = emu_tid % 32;
  trace(SITE, 'n', shared_ptr(addr), 16);
  frag[w][l][0] = r0; frag[w][l][1] = r1; frag[w][l][2] = r2; frag[w][l][3] = r3;
  warp_sync();
  int j = l / 8, row = l % 8;
  for (int col = 0; col < 8; col++) {
    int lane = trans ? 4 * col + row / 2 : 4 * row + col / 2, half = trans ? row % 2 : col % 2;
    uint16_t h = (uint16_t)(frag[w][lane][j] >> (16 * half));
    memcpy(shared_ptr(addr) + 2 * col, &h, 2);
    emu_generic_store(shared_ptr(addr) + 2 * col, 2);
  }
  warp_sync();
}
/* wgmma.mma_async.sync.aligned.m64nNkK: each thread computes its own accumulator elements at
   once (the fence, commit and wait are then no-ops). Shared operands are read through their
   matrix descriptors (start address, leading and stride byte offsets, swizzle mode: 128, 64 or
   32-byte swizzling XORs address bits 4.. with bits 7..); an A in registers comes from the warp's
   lanes in mma.sync's fragment order. Accumulator register i of lane l in warp w (of the
   warpgroup) is row 16 w + l / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + i % 2.
   type: 0 f16, 1 bf16, 2 tf32, 3 e4m3, 4 e5m2, 5 s8, 6 u8; acc: 0 f32, 1 f16 (two a register),
   2 s32. */
static const char *operand_address(uint64_t desc, int mn, int k, int esize, int k_major) {
  uint32_t start = (uint32_t)(desc & 0x3fff) << 4, lbo = (uint32_t)((desc >> 16) & 0x3fff) << 4;
  uint32_t sbo = (uint32_t)((desc >> 32) & 0x3fff) << 4, mode = (uint32_t)(desc >> 62);
  uint32_t width = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0, off;
  if (k_major) {
    uint32_t kb = (uint32_t)(k * esize);
    off = width ? (uint32_t)(mn / 8) * sbo + (uint32_t)(mn % 8) * width + kb
                : (uint32_t)(mn / 8) * sbo + (uint32_t)(mn % 8) * 16 + kb / 16 * lbo + kb % 16;
  } else {
    if (!width) { fprintf(stderr, "wgmma: an MN-major operand without swizzling\n"); abort(); }
    int per_row = (int)width / esize;
    off = (uint32_t)(mn / per_row) * lbo + (uint32_t)(k / 8) * sbo + (uint32_t)(k % 8) * width +
          (uint32_t)(mn % per_row * esize);
  }
  uint32_t a = start + off;
  if (width) a ^= ((a >> 7) & (width / 16 - 1)) << 4;
  return global_smem + (a & ((1u << 18) - 1));
}
static double operand_value(const char *p, int type) {
  switch (type) {
    case 0: { uint16_t h; memcpy(&h, p, 2); return half_value(h); }
    case 1: { uint16_t h; memcpy(&h, p, 2); return bf16_value(h); }
    case 2: { uint32_t b; memcpy(&b, p, 4); return tf32_value(b); }
    case 3: return fp8_decode((uint8_t)*p, 3, 7, 0);
    case 4: return fp8_decode((uint8_t)*p, 2, 15, 1);
    case 5: return (int8_t)*p;
    default: return (uint8_t)*p;
  }
}
static const int operand_bytes[] = {2, 2, 4, 1, 1, 1, 1};
void emu_wgmma(void *d, uint64_t da, const uint32_t *a_regs, uint64_t db, int scale_d, const void *c,
               int n, int k, int type, int acc, int trans_a, int trans_b) {
  int w = emu_tid / 32, l = emu_tid % 32, esize = operand_bytes[type];
  if (a_regs) {
    for (int i = 0; i < 4; i++) frag[w][l][i] = a_regs[i];
    warp_sync();
  }
  int count = n / 2;
  for (int i = 0; i < count; i++) {
    int row = 16 * (w % 4) + l / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    double sum = 0; int64_t isum = 0;
    for (int kk = 0; kk < k; kk++) {
      double a;
      if (a_regs) {
        /* mma.sync's A fragment: word 2 (upper K half) + (row % 16 >= 8), per element K step. */
        int per = 4 / esize, r = row % 16, half = kk >= k / 2, within = kk % (k / 2);
        int lane = 4 * (r % 8) + within / per, word = 2 * half + (r >= 8);
        uint32_t bits = frag[w][lane][word] >> (8 * esize * (within % per));
        char bytes[4]; memcpy(bytes, &bits, 4);
        a = operand_value(bytes, type);
      } else {
        const char *pa = operand_address(da, row, kk, esize, !trans_a);
        async_proxy_read(pa, esize, "wgmma (operand A)");
        a = operand_value(pa, type);
      }
      const char *pb = operand_address(db, col, kk, esize, !trans_b);
      async_proxy_read(pb, esize, "wgmma (operand B)");
      double b = operand_value(pb, type);
      if (type >= 5) isum += (int64_t)a * (int64_t)b; else sum += a * b;
    }
    if (acc == 2) {
      uint32_t start = scale_d ? (uint32_t)((const int32_t *)c)[i] : 0;
      ((int32_t *)d)[i] = (int32_t)(start + (uint32_t)isum);
    } else if (acc == 1) {
      uint16_t in = (uint16_t)(((const uint32_t *)c)[i / 2] >> (16 * (i % 2)));
      uint16_t out = half_bits((float)((scale_d ? half_value(in) : 0.0) + sum));
      uint32_t *word = &((uint32_t *)d)[i / 2];
      *word = (*word & ~(0xffffu << (16 * (i % 2)))) | (uint32_t)out << (16 * (i % 2));
    } else {
      ((float *)d)[i] = (float)((scale_d ? ((const float *)c)[i] : 0.0f) + sum);
    }
  }
  if (a_regs) warp_sync();
}
/* TMA descriptors in the emulator's own layout of the 128 bytes: `tensormap.replace` writes it,
   the bulk tensor copies read it (what the driver's format is does not matter here). */
typedef struct {
  uint64_t address; uint32_t rank, elemtype, swizzle, interleave, fill;
  uint32_t global_dim[5]; uint64_t global_stride[4]; uint32_t box_dim[5], element_stride[5];
} emu_tmap;
void emu_tmap_replace(int p, uint32_t smem, int field, int ord, uint64_t v) {
  if (!(p & 1)) return;
  emu_tmap *t = (emu_tmap *)shared_ptr(smem);
  switch (field) {
    case 0: t->address = v; break;
    case 1: t->rank = (uint32_t)v; break;
    case 2: t->box_dim[ord] = (uint32_t)v; break;
    case 3: t->global_dim[ord] = (uint32_t)v; break;
    case 4: t->global_stride[ord] = v; break;
    case 5: t->element_stride[ord] = (uint32_t)v; break;
    case 6: t->elemtype = (uint32_t)v; break;
    case 7: t->interleave = (uint32_t)v; break;
    case 8: t->swizzle = (uint32_t)v; break;
    default: t->fill = (uint32_t)v; break;
  }
}
void emu_st_shared_b32(int p, uint32_t addr, uint32_t v) {
  if (p & 1) { trace(SITE, 's', shared_ptr(addr), 4); memcpy(shared_ptr(addr), &v, 4); emu_generic_store(shared_ptr(addr), 4); }
}
void emu_tmap_copy(int p, uint64_t global, uint32_t smem) { if (p & 1) memcpy((void *)global, shared_ptr(smem), 128); }
void emu_nop_l(uint64_t x) { (void)x; }
void emu_nop_b(int p) { (void)p; }
void emu_nop_bl(int p, uint64_t x) { (void)p; (void)x; }
void emu_warp_sync(void) { warp_sync(); }
/* mbarriers: a side table by shared address (arrivals still expected, transaction bytes still
   expected, completed phases). The copies complete when issued. */
static struct { uint32_t addr; int count, pending; int64_t tx; uint32_t phase; } mbars[64];
static int nmbars;
static int mbar_find(uint32_t addr) {
  for (int i = 0; i < nmbars; i++) if (mbars[i].addr == addr) return i;
  if (nmbars == 64) { fprintf(stderr, "too many mbarriers\n"); abort(); }
  mbars[nmbars].addr = addr;
  return nmbars++;
}
static void mbar_settle(int i) {
  if (mbars[i].pending == 0 && mbars[i].tx == 0) { mbars[i].phase++; mbars[i].pending = mbars[i].count; }
}
void emu_mbar_init(int p, uint32_t addr, int count) {
  if (!(p & 1)) return;
  pthread_mutex_lock(&emu_atomics);
  int i = mbar_find(addr);
  mbars[i].count = mbars[i].pending = count; mbars[i].tx = 0; mbars[i].phase = 0;
  pthread_mutex_unlock(&emu_atomics);
}
void emu_mbar_arrive_expect(int p, uint32_t addr, int bytes) {
  if (!(p & 1)) return;
  pthread_mutex_lock(&emu_atomics);
  int i = mbar_find(addr);
  mbars[i].tx += bytes; mbars[i].pending--; mbar_settle(i);
  pthread_mutex_unlock(&emu_atomics);
}
/* try_wait.parity P succeeds once the phase of parity P has completed: the current phase's
   parity is no longer P. */
void emu_mbar_wait(uint32_t addr, uint32_t parity) {
  for (;;) {
    pthread_mutex_lock(&emu_atomics);
    int done = (mbars[mbar_find(addr)].phase & 1) != (parity & 1);
    pthread_mutex_unlock(&emu_atomics);
    if (done) return;
    sched_yield();
  }
}
/* cp.async.bulk.tensor (op 0: load into shared memory, completing `mbar`'s transaction bytes;
   1: store; 2: reduce add) of the box at `coords` (innermost first). Out-of-bounds elements load
   as zero (or the NaN fill) and are not stored; the box lies in shared memory row after row,
   swizzled as the descriptor says (address bits 4.. by bits 7..). */
static const int tma_bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4};
void emu_tma(int op, int p, uint32_t smem, uint64_t tmap, uint32_t mbar, int n, const int32_t *coords) {
  if (!(p & 1)) return;
  const emu_tmap *t = (const emu_tmap *)tmap;
  int rank = (int)t->rank + 1;
  if (t->elemtype > 12 || rank != n || t->interleave) { fprintf(stderr, "tma: unsupported descriptor\n"); abort(); }
  int esize = tma_bytes[t->elemtype];
  uint32_t width = t->swizzle == 1 ? 32 : t->swizzle == 2 ? 64 : t->swizzle == 3 ? 128 : 0;
  int64_t total = 1;
  for (int k = 0; k < rank; k++) {
    if (t->element_stride[k] > 1) { fprintf(stderr, "tma: element strides\n"); abort(); }
    total *= t->box_dim[k];
  }
  for (int64_t e = 0; e < total; e++) {
    int64_t rest = e, goff = 0; int inside = 1;
    for (int k = 0; k < rank; k++) {
      int64_t i = rest % t->box_dim[k], c = coords[k] + i;
      rest /= t->box_dim[k];
      if (c < 0 || c >= t->global_dim[k]) inside = 0;
      goff += k == 0 ? c * esize : c * (int64_t)t->global_stride[k - 1];
    }
    uint32_t a = smem + (uint32_t)(e * esize);
    if (width) a ^= ((a >> 7) & (width / 16 - 1)) << 4;
    char *s = shared_ptr(a), *g = (char *)t->address + goff;
    if (op == 0) {
      if (inside) memcpy(s, g, esize); else memset(s, t->fill ? 0xff : 0, esize);
      mark_shared(s, esize, 0);
    } else if (inside && op == 1) {
      async_proxy_read(s, esize, "a TMA store");
      memcpy(g, s, esize);
    } else if (inside) {
      async_proxy_read(s, esize, "a TMA reduction");
      pthread_mutex_lock(&emu_atomics);
      switch (t->elemtype) {
        case 6: { uint16_t x, y; memcpy(&x, g, 2); memcpy(&y, s, 2); x = half_bits(half_value(x) + half_value(y)); memcpy(g, &x, 2); break; }
        case 10: { uint16_t x, y; memcpy(&x, g, 2); memcpy(&y, s, 2); float f = bf16_value(x) + bf16_value(y);
                   uint32_t b; memcpy(&b, &f, 4); x = (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16); memcpy(g, &x, 2); break; }
        case 7: case 8: { float x, y; memcpy(&x, g, 4); memcpy(&y, s, 4); x += y; memcpy(g, &x, 4); break; }
        case 9: { double x, y; memcpy(&x, g, 8); memcpy(&y, s, 8); x += y; memcpy(g, &x, 8); break; }
        case 2: case 3: { uint32_t x, y; memcpy(&x, g, 4); memcpy(&y, s, 4); x += y; memcpy(g, &x, 4); break; }
        case 4: case 5: { uint64_t x, y; memcpy(&x, g, 8); memcpy(&y, s, 8); x += y; memcpy(g, &x, 8); break; }
        default: fprintf(stderr, "tma: reduce of element type %u\n", t->elemtype); abort();
      }
      pthread_mutex_unlock(&emu_atomics);
    }
  }
  if (op == 0) {
    pthread_mutex_lock(&emu_atomics);
    int i = mbar_find(mbar);
    mbars[i].tx -= total * esize; mbar_settle(i);
    pthread_mutex_unlock(&emu_atomics);
  }
}
PROTOTYPE
static void *run_thread(void *arg) {
  emu_tid = (int)(intptr_t)arg;
  CALL;
  return NULL;
}
int main(int argc, char **argv) {
  int grid_x = atoi(argv[1]), grid_y = 1, grid_z = 1;
  { const char *y = strchr(argv[1], ','); if (y) { grid_y = atoi(y + 1); const char *z = strchr(y + 1, ',');
      if (z) grid_z = atoi(z + 1); } }
  emu_grid[0] = grid_x; emu_grid[1] = grid_y; emu_grid[2] = grid_z;
  int nbuf = atoi(argv[2]);
  static void *bufs[64]; static long sizes[64];
  for (int i = 0; i < nbuf; i++) {
    FILE *f = fopen(argv[3 + i], "rb"); fseek(f, 0, SEEK_END); sizes[i] = ftell(f); fseek(f, 0, SEEK_SET);
    bufs[i] = aligned_alloc(64, (sizes[i] + 63) / 64 * 64 + 64); fread(bufs[i], 1, sizes[i], f); fclose(f);
  }
  SETUP;
  if (getenv("EMU_SMEM_TRACE")) trace_file = fopen(getenv("EMU_SMEM_TRACE"), "w");
  for (emu_cta_z = 0; emu_cta_z < grid_z; emu_cta_z++)
  for (emu_cta_y = 0; emu_cta_y < grid_y; emu_cta_y++)
  for (emu_cta = 0; emu_cta < grid_x; emu_cta++) {
    memset(global_smem, 0xAB, sizeof global_smem);
    memset(generic_writer, 0, sizeof generic_writer);
    nmbars = 0;
    pthread_barrier_init(&bar_all, NULL, NTHREADS);
    for (int w = 0; w < NWARPS; w++) pthread_barrier_init(&bar_warp[w], NULL, 32);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, run_thread, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  }
  if (trace_file) fclose(trace_file);
  for (int i = 0; i < nbuf; i++) {
    FILE *f = fopen(argv[3 + i], "wb"); fwrite(bufs[i], 1, sizes[i], f); fclose(f);
  }
  return 0;
}
"""


SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "bfloat": 2, "float": 4,
                "double": 8, "ptr": 8}


def shared_access_width(ty):
    """Bytes a load or store of LLVM type `ty` moves (None for a type not listed)."""
    m = re.match(r"<(\d+) x (\w+)>$", ty)
    return int(m.group(1)) * SCALAR_BYTES[m.group(2)] if m else SCALAR_BYTES.get(ty)


def pointer_operand(rest):
    """The pointer operand of a load or store: up to the first comma outside parentheses."""
    depth = 0
    for i, ch in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return rest[:i]
    return rest


def trace_shared_accesses(text):
    """Puts a call recording the address and width before each load and store of shared memory
    (addrspace 3), for the EMU_SMEM_TRACE trace."""
    width, operand = shared_access_width, pointer_operand
    out = []
    for line in text.split("\n"):
        for pattern, fn in ((r"(\s*)%[\w.]+ = load (<\d+ x \w+>|\w+), ptr addrspace\(3\) (.*)$", "emu_trace_ld"),
                            (r"(\s*)store (<\d+ x \w+>|\w+) .*?, ptr addrspace\(3\) (.*)$", "emu_trace_st")):
            m = re.match(pattern, line)
            if m and width(m.group(2)):
                out.append(f"{m.group(1)}call void @{fn}(ptr addrspace(3) {operand(m.group(3))}, i32 {width(m.group(2))})")
        out.append(line)
    return "\n".join(out) + "\ndeclare void @emu_trace_ld(ptr, i32)\ndeclare void @emu_trace_st(ptr, i32)\n"


def mark_generic_shared_stores(text):
    """Puts a call before each store to shared memory (addrspace 3) marking the bytes as written
    through the generic proxy (`emu_generic_store`: the async proxy may read them only after the
    writer's fence.proxy.async)."""
    out = []
    for line in text.split("\n"):
        m = re.match(r"(\s*)store (<\d+ x \w+>|\w+) .*?, ptr addrspace\(3\) (.*)$", line)
        if m and shared_access_width(m.group(2)):
            out.append(f"{m.group(1)}call void @emu_generic_store(ptr addrspace(3) "
                       f"{pointer_operand(m.group(3))}, i32 {shared_access_width(m.group(2))})")
        out.append(line)
    return "\n".join(out) + "\ndeclare void @emu_generic_store(ptr, i32)\n"


def to_host_ir(text):
    text = mark_generic_shared_stores(text)
    if os.environ.get("EMU_SMEM_TRACE"):
        text = trace_shared_accesses(text)
    text = re.sub(r" addrspace\(\d+\)", "", text)
    # A TMA descriptor parameter (a grid constant passed by value): a pointer to the emulator's
    # own descriptor (`tmap:` parameters).
    text = re.sub(r'ptr byval\(\[128 x i8\]\) align 64 "nvvm\.grid_constant"', "ptr", text)
    # With one address space left, a cast between spaces is the pointer itself.
    text = re.sub(r"(%[\w.]+) = addrspacecast ptr ([^\s,]+) to ptr", r"\1 = getelementptr i8, ptr \2, i64 0", text)
    text = re.sub(r'target datalayout = "[^"]*"\n', "", text)
    text = re.sub(r'target triple = "[^"]*"', 'target triple = "x86_64-unknown-linux-gnu"', text)
    helpers = {}
    widths = {"b8": "i8", "b16": "i16", "b32": "i32", "b64": "i64"}

    def split_operands(operands):
        # "ptr %30, i1 %21, i32 ptrtoint (ptr @global_smem to i32)" -> [("ptr", "%30"), ...]: commas
        # inside a constant expression's parentheses do not separate operands.
        parts, depth, current = [], 0, ""
        for ch in operands:
            if ch == "," and depth == 0:
                parts.append(current.strip())
                current = ""
                continue
            depth += {"(": 1, ")": -1}.get(ch, 0)
            current += ch
        if current.strip():
            parts.append(current.strip())
        typed = []
        for part in parts:
            m = re.match(r"(i\d+|ptr|float|double|half|bfloat) (.*)$", part)
            typed.append((m.group(1), m.group(2)) if m else tuple(part.rsplit(" ", 1)))
        return typed

    def helper(name, ret, operand_types, body):
        params = ", ".join(f"{t} %a{i}" for i, t in enumerate(operand_types))
        helpers[name] = f"define {ret} @{name}({params}) {{\n" + "\n".join(body) + "\n}"
        return name

    def build_return(ret, elem, values, tag):
        if len(values) == 1:
            return [f"  ret {elem} {values[0]}"]
        lines, cur = [], "undef"
        for i, v in enumerate(values):
            lines.append(f"  %{tag}{i} = insertvalue {ret} {cur}, {elem} {v}, {i}")
            cur = f"%{tag}{i}"
        return lines + [f"  ret {ret} {cur}"]

    def load(asm, constraints, ret, operands):
        m = re.search(r"ld\.global(?:\.[a-zA-Z0-9_:]+)*?(?:\.v(\d))?\.(b8|b16|b32|b64)", asm)
        a = re.search(r"\[ ?\$(\d+) \+ 0 ?\]", asm)
        kinds = constraints.split(",")
        outs = [k for k in kinds if k.startswith("=")]
        n, elem = int(m.group(1) or 1), widths[m.group(2)]
        if len(outs) != n or not a:
            return None
        types = [t for t, _ in split_operands(operands)]
        address = int(a.group(1)) - n
        p = re.search(r"@\$(\d+) ld", asm)
        predicate = int(p.group(1)) - n if p else None
        defaults = [i for i in range(len(types)) if i not in (address, predicate)]
        field = ret.strip("{} ").split(",")[0].strip()  # the asm's register type
        name = f"emu_ld_{len(helpers)}"
        body = ["entry:"]
        if predicate is not None:
            body.append(f"  br i1 %a{predicate}, label %ld, label %def")
        else:
            body.append("  br label %ld")
        body.append("ld:")
        loaded = []
        for i in range(n):
            body.append(f"  %q{i} = getelementptr {elem}, ptr %a{address}, i64 {i}")
            body.append(f"  %v{i} = load {elem}, ptr %q{i}")
            value = f"%v{i}"
            if field != elem:
                body.append(f"  %z{i} = zext {elem} %v{i} to {field}")
                value = f"%z{i}"
            loaded.append(value)
        body += build_return(ret, field, loaded, "l")
        body.append("def:")
        body += build_return(ret, field, [f"%a{d}" for d in defaults] or ["undef"] * n, "d")
        return helper(name, ret, types, body)

    def store(asm, constraints, operands):
        m = re.search(r"st\.global(?:\.[a-zA-Z0-9_:]+)*?(?:\.v(\d))?\.(b8|b16|b32|b64)", asm)
        a = re.search(r"\[ ?\$(\d+) \+ 0 ?\]", asm)
        if not m or not a:
            return None
        types = [t for t, _ in split_operands(operands)]
        n, elem = int(m.group(1) or 1), widths[m.group(2)]
        address = int(a.group(1))
        p = re.match(r"@\$(\d+) ", asm)
        predicate = int(p.group(1)) if p else None
        values = [i for i in range(len(types)) if i not in (address, predicate)]
        if len(values) != n:
            return None
        name = f"emu_st_{len(helpers)}"
        body = ["entry:"]
        body.append(f"  br i1 %a{predicate}, label %st, label %done" if predicate is not None else "  br label %st")
        body.append("st:")
        for i, v in enumerate(values):
            body.append(f"  %q{i} = getelementptr {elem}, ptr %a{address}, i64 {i}")
            value = f"%a{v}"
            if types[v] in ("float", "double", "half", "bfloat"):  # a float operand stored as its bits
                body.append(f"  %c{i} = bitcast {types[v]} {value} to {elem}")
                value = f"%c{i}"
            elif types[v] != elem:  # a narrow store from a wider register
                body.append(f"  %c{i} = trunc {types[v]} {value} to {elem}")
                value = f"%c{i}"
            body.append(f"  store {elem} {value}, ptr %q{i}")
        body += ["  br label %done", "done:", "  ret void"]
        return helper(name, "void", types, body)

    def atomic(asm, constraints, ret, operands):
        m = re.search(r"atom(?:\.[a-z_]+)*?\.global\.(add|max|min|exch|and|or|xor|cas)\.(u32|s32|b32|f32|u64|s64|b64|f64)",
                      asm)
        a = re.search(r"\[\$(\d+)\]", asm)
        if not m or not a:
            return None
        types = [t for t, _ in split_operands(operands)]
        address = int(a.group(1)) - 1
        p = re.search(r"@\$(\d+) atom", asm)
        predicate = int(p.group(1)) - 1 if p else None
        values = [i for i in range(len(types)) if i not in (address, predicate)]
        kind = m.group(2).replace("b32", "u32").replace("b64", "u64")
        fn = f"emu_atom_{m.group(1)}_{kind}"
        name = f"emu_at_{len(helpers)}"
        args = ", ".join(f"{types[v]} %a{v}" for v in values)
        body = ["entry:"]
        body.append(f"  br i1 %a{predicate}, label %at, label %no" if predicate is not None else "  br label %at")
        body += ["at:", f"  %old = call {ret} @{fn}(ptr %a{address}, {args})", f"  ret {ret} %old",
                 "no:", f"  ret {ret} 0" if not ret.startswith(("float", "double")) else f"  ret {ret} 0.0"]
        helpers["decl_" + fn] = f"declare {ret} @{fn}(ptr, {', '.join(types[v] for v in values)})"
        return helper(name, ret, types, body)

    def wgmma(asm, ret, types):
        asm = asm.replace("\\0A", " ")
        asm = re.sub(r"\s+", " ", asm)
        m = re.search(r"setp\.ne\.b32 p, \$(\d+), 0; wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)\."
                      r"(f32|f16|s32)\.(f16|bf16|tf32|e4m3|e5m2|s8|u8)\.\w+ \{([^}]*)\}, (\$\d+|\{[^}]*\}), "
                      r"\$(\d+), p((?:, -?\d+)*);", asm)
        if not m:
            return None
        scale, n_instr, k_instr, acc, elem = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)
        outputs = len(m.group(6).split(","))
        a_text, b, tail = m.group(7), int(m.group(8)), [int(x) for x in re.findall(r"-?\d+", m.group(9))]
        a_regs = [int(x) for x in re.findall(r"\$(\d+)", a_text)] if a_text.startswith("{") else None
        if acc != "s32":
            tail = tail[2:]  # scale-a and scale-b, 1 (negation is not emitted)
        trans_a = trans_b = 0
        if elem in ("f16", "bf16"):
            if a_regs is None:
                trans_a, trans_b = tail
            else:
                (trans_b,) = tail
        type_code = ["f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"].index(elem)
        acc_code = {"f32": 0, "f16": 1, "s32": 2}[acc]
        reg = "float" if acc == "f32" else "i32"
        # Operand i of the call is $(outputs + i); tied accumulator inputs follow the scale flag.
        index = lambda dollar: dollar - outputs
        tied = [i for i in range(index(scale) + 1, len(types))]
        name = f"emu_wg_{len(helpers)}"
        body = ["entry:", f"  %d = alloca [{outputs} x {reg}]", f"  %c = alloca [{outputs} x {reg}]",
                "  %a = alloca [4 x i32]"]
        for i in range(outputs):
            value = f"%a{tied[i]}" if len(tied) == outputs else ("0.0" if reg == "float" else "0")
            body += [f"  %pc{i} = getelementptr {reg}, ptr %c, i64 {i}", f"  store {reg} {value}, ptr %pc{i}"]
        if a_regs is not None:
            for i, dollar in enumerate(a_regs):
                body += [f"  %pa{i} = getelementptr i32, ptr %a, i64 {i}", f"  store i32 %a{index(dollar)}, ptr %pa{i}"]
            a_desc, a_ptr = "0", "%a"
        else:
            a_desc, a_ptr = f"%a{index(int(a_text[1:]))}", "null"
        body.append(f"  call void @emu_wgmma(ptr %d, i64 {a_desc}, ptr {a_ptr}, i64 %a{index(b)}, i32 %a{index(scale)}, "
                    f"ptr %c, i32 {n_instr}, i32 {k_instr}, i32 {type_code}, i32 {acc_code}, i32 {trans_a}, i32 {trans_b})")
        values = []
        for i in range(outputs):
            body += [f"  %pd{i} = getelementptr {reg}, ptr %d, i64 {i}", f"  %v{i} = load {reg}, ptr %pd{i}"]
            values.append(f"%v{i}")
        body += build_return(ret, reg, values, "r")
        helpers["decl_wgmma"] = "declare void @emu_wgmma(ptr, i64, ptr, i64, i32, ptr, i32, i32, i32, i32, i32, i32)"
        return helper(name, ret, types, body)

    def tma_ops(asm, ret, operands):
        types = [t for t, _ in split_operands(operands)]
        name = f"emu_tma_{len(helpers)}"
        fields = ["global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride",
                  "elemtype", "interleave_layout", "swizzle_mode", "fill_mode"]
        m = re.match(r"@\$0 tensormap\.replace\.tile\.(\w+)\.shared::cta\.b1024\.b(?:32|64) \[\$1\], "
                     r"(?:(\d+), )?(\$2|-?\d+);$", asm)
        if m and m.group(1) in fields:
            body = ["entry:"]
            if m.group(3) == "$2":
                body.append(f"  %v = zext {types[2]} %a2 to i64" if types[2] != "i64" else "  %v = add i64 %a2, 0")
                value = "%v"
            else:
                value = m.group(3)
            body += [f"  call void @emu_tmap_replace(i1 %a0, i32 %a1, i32 {fields.index(m.group(1))}, "
                     f"i32 {m.group(2) or 0}, i64 {value})", "  ret void"]
            helpers["decl_tmap_replace"] = "declare void @emu_tmap_replace(i1, i32, i32, i32, i64)"
            return helper(name, "void", types, body)
        m = re.match(r"@\$0 mbarrier\.init\.shared::cta\.b64 \[\$1\], (\d+);$", asm)
        if m:
            helpers["decl_mbar_init"] = "declare void @emu_mbar_init(i1, i32, i32)"
            return helper(name, "void", types, ["entry:", f"  call void @emu_mbar_init(i1 %a0, i32 %a1, i32 {m.group(1)})",
                                                "  ret void"])
        m = re.match(r"@\$0 mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[\$1\], (\d+);$", asm)
        if m:
            helpers["decl_mbar_expect"] = "declare void @emu_mbar_arrive_expect(i1, i32, i32)"
            return helper(name, "void", types, ["entry:", f"  call void @emu_mbar_arrive_expect(i1 %a0, i32 %a1, i32 {m.group(1)})",
                                                "  ret void"])
        if re.match(r"@\$0 mbarrier\.inval\.shared::cta\.b64 \[\$1\];$", asm):
            return helper(name, "void", types, ["entry:", "  ret void"])
        if "mbarrier.try_wait.parity.shared::cta.b64 wait_done, [$0], $1; @!wait_done bra.uni wait_loop;" in asm:
            helpers["decl_mbar_wait"] = "declare void @emu_mbar_wait(i32, i32)"
            return helper(name, "void", types, ["entry:", "  call void @emu_mbar_wait(i32 %a0, i32 %a1)", "  ret void"])
        forms = [
            (0, r"@\$0 cp\.async\.bulk\.tensor\.(\d)d\.shared::cluster\.global\.mbarrier::complete_tx::bytes "
                r"\[\$1\], \[\$2, \{([^}]*)\}\], \[\$3\];$", (1, 2, 3)),
            (1, r"@\$0 cp\.async\.bulk\.tensor\.(\d)d\.global\.shared::cta\.bulk_group \[\$1, \{([^}]*)\}\], "
                r"\[\$2\];$", (2, 1, None)),
            (2, r"@\$0 cp\.reduce\.async\.bulk\.tensor\.(\d)d\.global\.shared::cta\.add\.tile\.bulk_group "
                r"\[\$1, \{([^}]*)\}\], \[\$2\];$", (2, 1, None)),
        ]
        for op, pattern, (smem, tmap, mbar) in forms:
            m = re.match(pattern, asm)
            if not m:
                continue
            coords = [int(x) for x in re.findall(r"\$(\d+)", m.group(2))]
            n = int(m.group(1))
            body = ["entry:", f"  %c = alloca [{n} x i32]"]
            for i, k in enumerate(coords):
                body += [f"  %p{i} = getelementptr i32, ptr %c, i64 {i}", f"  store i32 %a{k}, ptr %p{i}"]
            mbar_arg = f"%a{mbar}" if mbar is not None else "0"
            body += [f"  call void @emu_tma(i32 {op}, i1 %a0, i32 %a{smem}, i64 %a{tmap}, i32 {mbar_arg}, i32 {n}, ptr %c)",
                     "  ret void"]
            helpers["decl_tma"] = "declare void @emu_tma(i32, i1, i32, i64, i32, i32, ptr)"
            return helper(name, "void", types, body)
        return None

    def tensor_core(asm, constraints, ret, operands):
        ops = split_operands(operands)
        types = [t for t, _ in ops]
        m = re.match(r"ldmatrix\.sync\.aligned\.m8n8\.x4(\.trans)?\.shared\.b16 ", asm)
        if m:
            name = f"emu_ldm_{len(helpers)}"
            body = ["entry:", "  %o = alloca [4 x i32]",
                    f"  call void @emu_ldmatrix_x4(ptr %o, i32 %a0, i32 {1 if m.group(1) else 0})"]
            values = []
            for i in range(4):
                body += [f"  %p{i} = getelementptr i32, ptr %o, i64 {i}", f"  %v{i} = load i32, ptr %p{i}"]
                values.append(f"%v{i}")
            body += build_return(ret, "i32", values, "r")
            helpers["decl_ldm"] = "declare void @emu_ldmatrix_x4(ptr, i32, i32)"
            return helper(name, ret, types, body)
        # mma.sync: A in 4 registers, B in 2, C and D in `regs` registers of `acc`; the C function
        # takes pointers to D, A, B and C (and, for m16n8k16, whether the operands are bf16).
        variants = {
            "m16n8k32.row.col.s32.s8.s8.s32": ("emu_mma_m16n8k32_s8", "i32", 4, None),
            "m16n8k8.row.col.f32.tf32.tf32.f32": ("emu_mma_m16n8k8_tf32", "float", 4, None),
            "m16n8k16.row.col.f16.f16.f16.f16": ("emu_mma_m16n8k16_f16acc", "i32", 2, None),
            "m16n8k16.row.col.f32.f16.f16.f32": ("emu_mma_m16n8k16", "float", 4, 0),
            "m16n8k16.row.col.f32.bf16.bf16.f32": ("emu_mma_m16n8k16", "float", 4, 1),
        }
        v = re.match(r"mma\.sync\.aligned\.(\S+) ", asm)
        if v and v.group(1) in variants and len(types) == 6 + variants[v.group(1)][2]:
            fn, acc, regs, bf16 = variants[v.group(1)]
            name = f"emu_mma_{len(helpers)}"
            body = ["entry:", f"  %d = alloca [{regs} x {acc}]", "  %a = alloca [4 x i32]", "  %b = alloca [2 x i32]",
                    f"  %c = alloca [{regs} x {acc}]"]
            for i in range(4):
                body += [f"  %pa{i} = getelementptr i32, ptr %a, i64 {i}", f"  store i32 %a{i}, ptr %pa{i}"]
            for i in range(2):
                body += [f"  %pb{i} = getelementptr i32, ptr %b, i64 {i}", f"  store i32 %a{4 + i}, ptr %pb{i}"]
            for i in range(regs):
                body += [f"  %pc{i} = getelementptr {acc}, ptr %c, i64 {i}", f"  store {acc} %a{6 + i}, ptr %pc{i}"]
            flag = "" if bf16 is None else f", i32 {bf16}"
            body.append(f"  call void @{fn}(ptr %d, ptr %a, ptr %b, ptr %c{flag})")
            values = []
            for i in range(regs):
                body += [f"  %pd{i} = getelementptr {acc}, ptr %d, i64 {i}", f"  %v{i} = load {acc}, ptr %pd{i}"]
                values.append(f"%v{i}")
            body += build_return(ret, acc, values, "r")
            helpers["decl_" + fn] = f"declare void @{fn}(ptr, ptr, ptr, ptr{'' if bf16 is None else ', i32'})"
            return helper(name, ret, types, body)
        m = re.match(r"stmatrix\.sync\.aligned\.m8n8\.x4(\.trans)?\.shared\.b16 \[\$0\], \{\$1, \$2, \$3, \$4\};", asm)
        if m and len(types) == 5:
            name = f"emu_stm_{len(helpers)}"
            body = ["entry:", "  call void @emu_stmatrix_x4(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %a4, "
                    f"i32 {1 if m.group(1) else 0})", "  ret void"]
            helpers["decl_stm"] = "declare void @emu_stmatrix_x4(i32, i32, i32, i32, i32, i32)"
            return helper(name, "void", types, body)
        if re.match(r"wgmma\.wait_group\.sync\.aligned \d+;$", asm):
            # The wgmmas ran when issued: waiting returns the (tied) registers as they are.
            name = f"emu_wait_{len(helpers)}"
            if ret == "void":
                return helper(name, "void", types, ["entry:", "  ret void"])
            return helper(name, ret, types, ["entry:"] + build_return(ret, types[0], [f"%a{i}" for i in range(len(types))], "w"))
        wg = wgmma(asm, ret, types)
        if wg:
            return wg
        m = re.match(r"cp\.async\.(?:ca|cg)\.shared\.global \[\$0\], \[\$1\], (\d+), \$2;", asm)
        if m:
            name = f"emu_cpa_{len(helpers)}"
            body = ["entry:", f"  call void @emu_cp_async(i32 %a0, ptr %a1, i32 {m.group(1)}, i32 %a2)", "  ret void"]
            helpers["decl_cpa"] = "declare void @emu_cp_async(i32, ptr, i32, i32)"
            return helper(name, "void", types, body)
        return None

    divisions = {}

    def division(m):
        # x86 traps on a zero divisor (and on INT_MIN / -1); PTX and the interpreter do not:
        # x / 0 is all ones and x % 0 is x there.
        result, op, ty, a, b = m.group(1), m.group(2), m.group(4), m.group(5), m.group(6)
        name = f"emu_{op}_{ty}"
        bits = int(ty[1:])
        minimum = -(1 << (bits - 1))
        if op in ("sdiv", "srem"):
            special = f"  %m1 = icmp eq {ty} %b, -1\n  %mn = icmp eq {ty} %a, {minimum}\n  %ov = and i1 %m1, %mn\n"
            overflow = "0" if op == "srem" else "%a"
        else:
            special, overflow = "  %ov = icmp eq i1 0, 1\n", "%a"
        zero = "-1" if "div" in op else "%a"
        divisions[name] = (f"define {ty} @{name}({ty} %a, {ty} %b) {{\nentry:\n  %z = icmp eq {ty} %b, 0\n"
                           f"{special}  br i1 %z, label %zero, label %nz\nzero:\n  ret {ty} {zero}\n"
                           f"nz:\n  br i1 %ov, label %over, label %div\nover:\n  ret {ty} {overflow}\n"
                           f"div:\n  %r = {op} {ty} %a, %b\n  ret {ty} %r\n}}")
        return f"{result} = call {ty} @{name}({ty} {a}, {ty} {b})"

    simple = {
        "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;": "emu_cvt_e4m3x2_f32",
        "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;": "emu_cvt_e5m2x2_f32",
        "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $1;": "emu_cvt_e4m3x2_f32_1",
        "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $1;": "emu_cvt_e5m2x2_f32_1",
        "cvt.rn.satfinite.e4m3x2.f16x2 $0, $1;": "emu_cvt_e4m3x2_f16x2",
        "cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;": "emu_cvt_e5m2x2_f16x2",
        "cvt.rn.f16x2.e4m3x2 $0, $1;": "emu_cvt_f16x2_e4m3x2",
        "cvt.rn.f16x2.e5m2x2 $0, $1;": "emu_cvt_f16x2_e5m2x2",
        "shfl.sync.up.b32 $0, $1, $2, 0x0, 0xffffffff;": "emu_shfl_up",
        "shfl.sync.bfly.b32 $0, $1, $2, 0x1f, 0xffffffff;": "emu_shfl_bfly",
        "shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;": "emu_shfl_idx",
        "bar.sync 0;": "emu_bar",
        "ex2.approx.ftz.f32 $0, $1;": "emu_ex2_ftz",
        "ex2.approx.f32 $0, $1;": "emu_ex2",
        "lg2.approx.f32 $0, $1;": "emu_lg2",
        "lg2.approx.ftz.f32 $0, $1;": "emu_lg2",
        "rcp.approx.ftz.f32 $0, $1;": "emu_rcp",
        "rcp.approx.f32 $0, $1;": "emu_rcp",
        "rsqrt.approx.f32 $0, $1;": "emu_rsqrt",
        "rsqrt.approx.ftz.f32 $0, $1;": "emu_rsqrt",
        "sqrt.approx.f32 $0, $1;": "emu_sqrt",
        "div.full.f32 $0, $1, $2;": "emu_div_full",
        "fma.rn.sat.f32 $0, $1, $2, $3;": "emu_fma_sat",
        "div.rn.f32 $0, $1, $2;": "emu_div_full",
        "sqrt.rn.f32 $0, $1;": "emu_sqrt",
        "cvt.rz.f16.f32 $0, $1;": "emu_cvt_rz_f16_f32",
        "cvt.rna.tf32.f32 $0, $1;": "emu_cvt_rna_tf32",
        "mov.b32 $0, $1;": "emu_mov_b32",
        "mov.b64 $0, $1;": "emu_mov_b64",
        "cp.async.commit_group;": "emu_nop",
        "bar.warp.sync -1;": "emu_warp_sync",
        "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;": "emu_nop_l",
        "@$0 cp.async.bulk.commit_group;": "emu_nop_b",
        "@$0 cp.async.bulk.wait_group.read 0;": "emu_nop_b",
        "@$0 cp.async.bulk.commit_group; @$0 cp.async.bulk.wait_group.read 0;": "emu_nop_b",
        "@$0 st.shared.b32 [$1], $2;": "emu_st_shared_b32",
        "@$0 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$1], [$2], 128;":
            "emu_tmap_copy",
        "@$0 prefetch.tensormap [$1];": "emu_nop_bl",
        "wgmma.fence.sync.aligned;": "emu_nop",
        "wgmma.commit_group.sync.aligned;": "emu_nop",
        "fence.proxy.async.shared::cta;": "emu_fence_proxy_async",
        "fence.proxy.async.shared::cluster;": "emu_fence_proxy_async",
        "cp.async.wait_group 0;": "emu_nop",
        "cp.async.wait_group 1;": "emu_nop",
        "cp.async.wait_group 2;": "emu_nop",
        "cp.async.wait_group 3;": "emu_nop",
        "cp.async.wait_group 4;": "emu_nop",
        "cp.async.wait_all;": "emu_nop",
        "sub.s32 $0, $1, $2;": "emu_sub_s32",
    }
    declared = {}

    def replace(m):
        ret, asm, constraints, operands = m.group(1), m.group(2), m.group(3), m.group(4)
        asm = re.sub(r"\s+", " ", asm).strip()
        if asm in simple:
            fn = simple[asm]
            types = [t for t, _ in split_operands(operands)]
            declared[fn] = f"declare {ret} @{fn}({', '.join(types)})"
            return f"call {ret} @{fn}({operands})"
        name = None
        if "ld.global" in asm:
            name = load(asm, constraints, ret, operands)
        elif "st.global" in asm:
            name = store(asm, constraints, operands)
        elif "atom." in asm:
            name = atomic(asm, constraints, ret, operands)
        elif any(k in asm for k in ("tensormap.replace", "mbarrier.", "cp.async.bulk.tensor", "cp.reduce.async.bulk")):
            name = tma_ops(asm, ret, operands)
        elif asm.startswith(("ldmatrix", "mma.sync", "cp.async.c", "stmatrix", "wgmma.wait_group")) or "wgmma.mma_async" in asm:
            name = tensor_core(asm, constraints, ret, operands)
        return f"call {ret} @{name}({operands})" if name else m.group(0)

    # Operands may hold constant expressions (`add (i32 ptrtoint (ptr addrspace(3) @g to i32), i32
    # 8192)`): up to three levels of parentheses inside the operand list.
    call = (r'(?:tail )?call (\{[^}]*\}|i\d+|void|float|double|half) asm (?:sideeffect )?"([^"]*)", "([^"]*)"'
            r'\(((?:[^()]|\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))*)\)')
    text = re.sub(call, replace, text.replace("\\0A\\09", " "))
    text = re.sub(r"(%[\w.]+) = (sdiv|udiv|srem|urem)( exact)? (i\d+) (%[\w.]+|-?\d+), (%[\w.]+|-?\d+)",
                  division, text)
    if re.search(r"(sdiv|udiv|srem|urem)( exact)? <", text):
        raise SystemExit("unhandled vector integer division")
    if "@vprintf" in text:
        raise SystemExit("unhandled printf")
    left = re.findall(r'asm (?:sideeffect )?"([^"]*)"', text)
    if left:
        raise SystemExit(f"unhandled inline asm: {sorted(set(left))}")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.tid.x", "@emu_tid_x")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.ctaid.x", "@emu_ctaid_x")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.ctaid.y", "@emu_ctaid_y")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.ctaid.z", "@emu_ctaid_z")
    for axis in "xyz":
        text = text.replace(f"@llvm.nvvm.read.ptx.sreg.nctaid.{axis}", f"@emu_nctaid_{axis}")
    # NVVM's shuffles (mask, value, lane operand, clamp; the lowering always passes all lanes
    # and the clamp its mode implies) as the inline-asm ones.
    text = re.sub(r"^declare [^\n]*@llvm\.nvvm\.shfl\.sync\.[a-z]+\.i32\([^\n]*$", "", text, flags=re.M)
    for mode in re.findall(r"@llvm\.nvvm\.shfl\.sync\.([a-z]+)\.i32\(", text):
        declared[f"emu_shfl_{mode}"] = f"declare i32 @emu_shfl_{mode}(i32, i32)"
    text = re.sub(r"@llvm\.nvvm\.shfl\.sync\.([a-z]+)\.i32\(i32 -1, (i32 [^,]+), (i32 [^,]+), i32 [^)]+\)",
                  r"@emu_shfl_\1(\2, \3)", text)
    left = re.findall(r"@llvm\.nvvm\.[a-z0-9._]*", text)
    if left:
        raise SystemExit(f"unhandled intrinsics: {sorted(set(left))}")
    text = text.replace("define ptx_kernel", "define")
    text = re.sub(r"^attributes #\d+ = .*$", "", text, flags=re.M)
    text = re.sub(r"\) #\d+", ")", text)
    text = re.sub(r"(declare [^\n]*\))\s*#\d+", r"\1", text)
    text = re.sub(r"@global_smem = external [^\n]*", "@global_smem = external global [0 x i8], align 1024", text)
    decls = list(helpers.values()) + list(declared.values()) + list(divisions.values())
    text = re.sub(r"declare [^\n]*@emu_(tid_x|n?ctaid_[xyz]|zero)\(\)[^\n]*\n", "", text)
    decls += ["declare i32 @emu_tid_x()", "declare i32 @emu_ctaid_x()", "declare i32 @emu_ctaid_y()",
              "declare i32 @emu_ctaid_z()", "declare i32 @emu_nctaid_x()", "declare i32 @emu_nctaid_y()",
              "declare i32 @emu_nctaid_z()"]
    return text + "\n" + "\n".join(decls) + "\n"


def run(ll, kernel, warps, grid, params, buffers):
    """Runs `kernel` of the LLVM IR file `ll` over `grid` programs of `warps` warps; `params` in
    the kernel's order: ("buf", index into `buffers`), ("i32", value) or ("i64", value);
    `buffers`: bytes, returned as the kernel left them."""
    work = tempfile.mkdtemp(prefix="emu-")
    host = to_host_ir(open(ll).read())
    open(os.path.join(work, "k.ll"), "w").write(host)
    proto_args, call_args, setup, tmaps = [], [], ["bufs_ = bufs"], []
    for kind, v in params:
        if kind == "tmap":
            # v: (buffer index of the base, the launcher's description): outermost first, as
            # the runtime's host_descriptors; the emulator's descriptor innermost first.
            buf, d = v
            name = f"tmap{len(tmaps)}_"
            rank = len(d["box"])
            esize = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 4, 9: 8, 10: 2}[d["elem_type"]]
            fields = [f"{name}.address = (uint64_t)bufs_[{buf}]", f"{name}.rank = {rank - 1}",
                      f"{name}.elemtype = {d['elem_type']}", f"{name}.swizzle = {d['swizzle']}"]
            for k in range(rank):
                fields.append(f"{name}.global_dim[{k}] = {int(d['dims'][rank - 1 - k])}u")
                fields.append(f"{name}.box_dim[{k}] = {int(d['box'][rank - 1 - k])}u")
                fields.append(f"{name}.element_stride[{k}] = 1u")
                if k > 0:
                    fields.append(f"{name}.global_stride[{k - 1}] = {int(d['strides'][rank - 1 - k]) * esize}ull")
            proto_args.append("void *")
            call_args.append(f"&{name}")
            tmaps.append(f"static emu_tmap {name};")
            setup.extend(fields)
            continue
        if kind == "buf":
            proto_args.append("void *")
            call_args.append(f"bufs_[{v}]")
        elif kind == "i64":
            proto_args.append("long long")
            call_args.append(f"{v}LL")
        elif kind == "f32":
            proto_args.append("float")
            call_args.append(f"{float(v)!r}f" if math.isfinite(float(v)) else "NAN")
        elif kind == "f64":
            proto_args.append("double")
            call_args.append(f"{float(v)!r}" if math.isfinite(float(v)) else "NAN")
        else:
            proto_args.append("int")
            call_args.append(str(v))
    runtime = RUNTIME.replace("PROTOTYPE", f"void {kernel}({', '.join(proto_args)});\nstatic void **bufs_;\n"
                              + "\n".join(tmaps))
    runtime = runtime.replace("CALL", f"{kernel}({', '.join(call_args)})")
    runtime = runtime.replace("SETUP", "; ".join(setup))
    open(os.path.join(work, "rt.c"), "w").write(runtime)
    exe = os.path.join(work, "k")
    clang = shutil.which("clang") or "/usr/lib/llvm-22/bin/clang"
    r = subprocess.run([clang, "-O1", "-w", f"-DNWARPS={warps}", os.path.join(work, "k.ll"),
                        os.path.join(work, "rt.c"), "-lpthread", "-lm", "-o", exe], capture_output=True, text=True)
    if r.returncode:
        shutil.rmtree(work, ignore_errors=True)
        raise SystemExit(r.stderr[-3000:])
    paths = []
    for i, b in enumerate(buffers):
        p = os.path.join(work, f"b{i}")
        open(p, "wb").write(b)
        paths.append(p)
    try:
        grid_text = ",".join(str(g) for g in grid) if isinstance(grid, (list, tuple)) else str(grid)
        env = None
        trace = os.environ.get("EMU_SMEM_TRACE")
        if trace and os.path.isdir(trace):
            # A directory: one trace per run, named after the kernel.
            env = dict(os.environ, EMU_SMEM_TRACE=tempfile.mktemp(prefix=f"{kernel}.", suffix=".trace", dir=trace))
        subprocess.run([exe, grid_text, str(len(buffers)), *paths], check=True, timeout=300, env=env)
        return [open(p, "rb").read() for p in paths]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv):
    """python3 simt_emu.py LL KERNEL WARPS GRID ARG...: GRID as X[,Y[,Z]]; each ARG one kernel
    parameter in order: buf:PATH (read, run, written back), i32:V, i64:V, f32:V, f64:V or
    tmap:JSON, a TMA descriptor the launcher encodes: {"base": the parameter index of its buffer,
    "elem_type", "swizzle", "dims", "strides" (elements), "box"}, lists outermost first.
    Exit status 2 (and a line starting `unsupported:`) for a kernel this cannot emulate."""
    ll, kernel, warps, grid, *args = argv
    params, buffers, paths = [], [], []
    buffer_of = {}  # parameter index -> buffer index
    for arg in args:
        kind, value = arg.split(":", 1)
        if kind == "buf":
            buffer_of[len(params)] = len(buffers)
            params.append(("buf", len(buffers)))
            buffers.append(open(value, "rb").read())
            paths.append(value)
        elif kind == "tmap":
            desc = json.loads(value)
            params.append(("tmap", (buffer_of[desc["base"]], desc)))
        else:
            params.append((kind, value))
    try:
        host_check = to_host_ir(open(ll).read())
    except SystemExit as e:
        print(f"unsupported: {e}")
        return 2
    del host_check
    try:
        outs = run(ll, kernel, int(warps), tuple(int(g) for g in grid.split(",")), params, buffers)
    except subprocess.CalledProcessError as e:
        # The emulated program said why on stderr (a missing fence, an unsupported descriptor).
        return e.returncode if e.returncode > 0 else 1
    for path, data in zip(paths, outs):
        open(path, "wb").write(data)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
