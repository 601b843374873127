"""Runs a lowered Tritium kernel on the CPU: the LLVM IR of `tritium compile --emit ll`, retargeted
to the host, each program's threads as pthreads. The NVPTX-specific parts become calls: `tid.x`
and `ctaid.x` read the emulated thread, `bar.sync` is a barrier over the program's threads,
`shfl.sync.{up,bfly,idx}` exchange through a per-warp buffer between two barriers, and the
predicated `ld.global`/`st.global` (any vector width of b32) are small IR functions. Shared
memory is one array, poisoned (0xAB bytes) before each program.

What it checks is the lowering's arithmetic, indexing, data movement between threads and
barrier placement, on the CPU, against a reference: not timing, not memory ordering beyond
barriers, not the PTX assembler. Kernels with other inline asm or NVVM intrinsics are refused
with the list of what is missing. Used by the lit tests in test/Emulation (clang-22 from
scripts/bootstrap compiles the retargeted IR)."""
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
#ifndef NWARPS
#define NWARPS 4
#endif
#define NTHREADS (NWARPS * 32)
static __thread int emu_tid;
static int emu_cta;
char global_smem[1 << 18] __attribute__((aligned(1024)));
static pthread_barrier_t bar_all, bar_warp[NWARPS];
static uint64_t xchg[NWARPS][32];
int emu_tid_x(void) { return emu_tid; }
int emu_ctaid_x(void) { return emu_cta; }
int emu_zero(void) { return 0; }
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
PROTOTYPE
static void *args[64];
static void *run_thread(void *arg) {
  emu_tid = (int)(intptr_t)arg;
  CALL;
  return NULL;
}
int main(int argc, char **argv) {
  int grid = atoi(argv[1]);
  int nbuf = atoi(argv[2]);
  static void *bufs[64]; static long sizes[64];
  for (int i = 0; i < nbuf; i++) {
    FILE *f = fopen(argv[3 + i], "rb"); fseek(f, 0, SEEK_END); sizes[i] = ftell(f); fseek(f, 0, SEEK_SET);
    bufs[i] = aligned_alloc(64, (sizes[i] + 63) / 64 * 64 + 64); fread(bufs[i], 1, sizes[i], f); fclose(f);
  }
  SETUP;
  for (emu_cta = 0; emu_cta < grid; emu_cta++) {
    memset(global_smem, 0xAB, sizeof global_smem);
    pthread_barrier_init(&bar_all, NULL, NTHREADS);
    for (int w = 0; w < NWARPS; w++) pthread_barrier_init(&bar_warp[w], NULL, 32);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, run_thread, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  }
  for (int i = 0; i < nbuf; i++) {
    FILE *f = fopen(argv[3 + i], "wb"); fwrite(bufs[i], 1, sizes[i], f); fclose(f);
  }
  return 0;
}
"""


def to_host_ir(text):
    text = re.sub(r'target datalayout = "[^"]*"\n', "", text)
    text = re.sub(r'target triple = "[^"]*"', 'target triple = "x86_64-unknown-linux-gnu"', text)
    helpers = {}

    def ld_helper(n):
        ret = "i32" if n == 1 else "{" + ", ".join(["i32"] * n) + "}"
        args = ", ".join(f"i32 %d{i}" for i in range(n))
        body = ["entry:", "  br i1 %m, label %ld, label %def", "ld:"]
        for i in range(n):
            body.append(f"  %q{i} = getelementptr i32, ptr %p, i64 {i}")
            body.append(f"  %v{i} = load i32, ptr %q{i}")
        def build(prefix, src):
            if n == 1:
                return [f"  ret i32 %{src}0"]
            lines, cur = [], "undef"
            for i in range(n):
                lines.append(f"  %{prefix}{i} = insertvalue {ret} {cur}, i32 %{src}{i}, {i}")
                cur = f"%{prefix}{i}"
            return lines + [f"  ret {ret} {cur}"]
        body += build("s", "v") + ["def:"] + build("t", "d")
        return f"define {ret} @emu_ld_v{n}(ptr %p, i1 %m, {args}) {{\n" + "\n".join(body) + "\n}"

    def st_helper(n):
        args = ", ".join(f"i32 %v{i}" for i in range(n))
        body = ["entry:", "  br i1 %m, label %st, label %done", "st:"]
        for i in range(n):
            body.append(f"  %q{i} = getelementptr i32, ptr %p, i64 {i}")
            body.append(f"  store i32 %v{i}, ptr %q{i}")
        body += ["  br label %done", "done:", "  ret void"]
        return f"define void @emu_st_v{n}(i1 %m, ptr %p, {args}) {{\n" + "\n".join(body) + "\n}"

    simple = {
        "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;": "emu_cvt_e4m3x2_f32",
        "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;": "emu_cvt_e5m2x2_f32",
        "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $1;": "emu_cvt_e4m3x2_f32_1",
        "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $1;": "emu_cvt_e5m2x2_f32_1",
        "cvt.rn.satfinite.e4m3x2.f16x2 $0, $1;": "emu_cvt_e4m3x2_f16x2",
        "cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;": "emu_cvt_e5m2x2_f16x2",
        "cvt.rn.f16x2.e4m3x2 $0, $1;": "emu_cvt_f16x2_e4m3x2",
        "cvt.rn.f16x2.e5m2x2 $0, $1;": "emu_cvt_f16x2_e5m2x2",
        r"shfl.sync.up.b32 $0, $1, $2, 0x0, 0xffffffff;": "emu_shfl_up",
        r"shfl.sync.bfly.b32 $0, $1, $2, 0x1f, 0xffffffff;": "emu_shfl_bfly",
        r"shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;": "emu_shfl_idx",
        r"bar.sync 0;": "emu_bar",
    }

    def replace(m):
        ret, asm, constraints, operands = m.group(1), m.group(2), m.group(3), m.group(4)
        if asm in simple:
            return f"call {ret} @{simple[asm]}({operands})"
        if "ld.global" in asm and asm.rstrip(";").endswith("[ $%d + 0 ]" % asm.count("mov.b32")) and ".b32" in asm:
            n = asm.count("mov.b32")
            helpers[f"ld{n}"] = ld_helper(n)
            return f"call {ret} @emu_ld_v{n}({operands})"
        if asm.startswith("@$0 st.global") and ".b32" in asm:
            n = constraints.count(",") - 1
            helpers[f"st{n}"] = st_helper(n)
            return f"call void @emu_st_v{n}({operands})"
        return m.group(0)

    call = r'(?:tail )?call (\{[^}]*\}|i\d+|void) asm (?:sideeffect )?"([^"]*)", "([^"]*)"\(([^)]*)\)'
    text = re.sub(call, replace, text.replace("\\0A\\09", " "))
    left = re.findall(r'asm (?:sideeffect )?"([^"]*)"', text)
    if left:
        raise SystemExit(f"unhandled inline asm: {sorted(set(left))}")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.tid.x", "@emu_tid_x")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.ctaid.x", "@emu_ctaid_x")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.ctaid.y", "@emu_zero")
    text = text.replace("@llvm.nvvm.read.ptx.sreg.ctaid.z", "@emu_zero")
    left = re.findall(r"@llvm\.nvvm\.[a-z0-9._]*", text)
    if left:
        raise SystemExit(f"unhandled intrinsics: {sorted(set(left))}")
    text = re.sub(r" addrspace\(\d+\)", "", text)
    text = text.replace("define ptx_kernel", "define")
    text = re.sub(r"^attributes #\d+ = .*$", "", text, flags=re.M)
    text = re.sub(r"\) #\d+", ")", text)
    text = re.sub(r"(declare [^\n]*\))\s*#\d+", r"\1", text)
    text = re.sub(r"@global_smem = external [^\n]*", "@global_smem = external global [0 x i8], align 1024", text)
    decls = list(helpers.values()) + [
        "declare i16 @emu_cvt_e4m3x2_f32(float, float)", "declare i16 @emu_cvt_e5m2x2_f32(float, float)",
        "declare i16 @emu_cvt_e4m3x2_f32_1(float)", "declare i16 @emu_cvt_e5m2x2_f32_1(float)",
        "declare i16 @emu_cvt_e4m3x2_f16x2(i32)", "declare i16 @emu_cvt_e5m2x2_f16x2(i32)",
        "declare i32 @emu_cvt_f16x2_e4m3x2(i16)", "declare i32 @emu_cvt_f16x2_e5m2x2(i16)",
        "declare i32 @emu_shfl_up(i32, i32)", "declare i32 @emu_shfl_bfly(i32, i32)",
             "declare i32 @emu_shfl_idx(i32, i32)", "declare void @emu_bar()"]
    text = re.sub(r"declare [^\n]*@emu_(tid_x|ctaid_x|zero)\(\)[^\n]*\n", "", text)
    decls += ["declare i32 @emu_tid_x()", "declare i32 @emu_ctaid_x()", "declare i32 @emu_zero()"]
    return text + "\n" + "\n".join(decls) + "\n"


def run(ll, kernel, warps, grid, params, buffers):
    """Runs `kernel` of the LLVM IR file `ll` over `grid` programs of `warps` warps; `params` in
    the kernel's order: ("buf", index into `buffers`), ("i32", value) or ("i64", value);
    `buffers`: bytes, returned as the kernel left them."""
    work = tempfile.mkdtemp(prefix="emu-")
    host = to_host_ir(open(ll).read())
    open(os.path.join(work, "k.ll"), "w").write(host)
    proto_args, call_args = [], []
    for kind, v in params:
        if kind == "buf":
            proto_args.append("void *")
            call_args.append(f"bufs_[{v}]")
        elif kind == "i64":
            proto_args.append("long long")
            call_args.append(f"{v}LL")
        else:
            proto_args.append("int")
            call_args.append(str(v))
    runtime = RUNTIME.replace("PROTOTYPE", f"void {kernel}({', '.join(proto_args)});\nstatic void **bufs_;")
    runtime = runtime.replace("CALL", f"{kernel}({', '.join(call_args)})")
    runtime = runtime.replace("SETUP", "bufs_ = bufs")
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
        subprocess.run([exe, str(grid), str(len(buffers)), *paths], check=True, timeout=300)
        return [open(p, "rb").read() for p in paths]
    finally:
        shutil.rmtree(work, ignore_errors=True)
