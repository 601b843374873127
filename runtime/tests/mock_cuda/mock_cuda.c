/* A stand-in libcuda.so for tests on machines without a GPU.
 *
 * It implements exactly the driver functions tritium-runtime calls. "Device memory" is host
 * memory (a CUdeviceptr is a malloc'd address), and cuLaunchKernel runs a C version of the four
 * benchmark kernels, chosen by entry name, over the blocks of the grid it is given, reading the
 * parameters the way the real driver would (one pointer per parameter, the parameter's bytes at
 * that address). So a wrong grid, a wrong parameter order or type, or a missing launch shows up
 * as a wrong result in the caller's check.
 *
 * Knobs (environment):
 *   MOCK_CUDA_NO_DEVICE=1   cuInit fails with CUDA_ERROR_NO_DEVICE
 *   MOCK_CUDA_BUG=NAME      the kernel NAME (add, softmax, rmsnorm, matmul) leaves its last
 *                           output element unwritten
 *   MOCK_CUDA_LOG=PATH      append one line per launch: "NAME grid=X,Y,Z block=X,Y,Z shared=S"
 *                           (then " prefer_shared" if the function asked for that carveout,
 *                           and " regs=R" if its PTX set its registers)
 * A PTX text containing MOCK_JIT_ERROR fails to load with CUDA_ERROR_INVALID_PTX and a log.
 * A PTX text containing "MOCK_REGS R" compiles to R registers a thread, or with the JIT's
 * minimum-blocks-an-SM option (which must come with the block size) to "MOCK_HINTED_REGS R2"
 * registers and "MOCK_HINTED_LOCAL B" bytes of local memory; the occupancy of such a kernel is
 * an sm_90's (registers, shared memory, threads, blocks an SM).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

/* regs 0: the kernel's registers were not set by its text (40, the legacy occupancy). */
typedef struct { char *text; int regs, local; } Module;
typedef struct { char name[256]; int max_dyn_shared; int cache_config; int regs, local; } Function;
typedef struct { double ms; } Event;

enum {
    OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, NO_DEVICE = 100, INVALID_DEVICE = 101,
    INVALID_PTX = 218, NOT_FOUND = 500, OUT_OF_RESOURCES = 701,
};

static int inited;

static const char *bug(void) { const char *b = getenv("MOCK_CUDA_BUG"); return b ? b : ""; }

CUresult cuInit(unsigned flags) {
    (void)flags;
    if (getenv("MOCK_CUDA_NO_DEVICE")) return NO_DEVICE;
    inited = 1;
    return OK;
}
CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    switch (e) {
    case INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
    case INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; break;
    case NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    default: *s = "CUDA_ERROR_UNKNOWN"; break;
    }
    return OK;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
    *s = e == NO_DEVICE ? "no CUDA-capable device is detected" : "mock driver error";
    return OK;
}
CUresult cuDeviceGetCount(int *c) { if (!inited) return NOT_INITIALIZED; *c = 1; return OK; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal != 0) return INVALID_DEVICE;
    *d = 0;
    return OK;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    (void)d;
    snprintf(name, (size_t)len, "Mock GPU");
    return OK;
}
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    (void)d;
    switch (attr) {
    case 75: *v = 9; break;       /* compute capability major */
    case 76: *v = 0; break;       /* minor */
    case 16: *v = 132; break;     /* SMs */
    case 97: *v = 232448; break;  /* max shared per block, opt-in */
    case 39: *v = 2048; break;    /* threads per SM */
    case 81: *v = 233472; break;  /* shared memory per SM */
    case 82: *v = 65536; break;   /* registers per SM */
    case 106: *v = 32; break;     /* blocks per SM */
    case 111: *v = 1024; break;   /* shared memory reserved per block */
    default: *v = 0; break;
    }
    return OK;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { (void)d; *bytes = (size_t)141 << 30; return OK; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) { (void)d; *ctx = (void *)0x1000; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return OK; }
CUresult cuCtxSetCurrent(void *ctx) { return ctx == (void *)0x1000 ? OK : INVALID_VALUE; }
CUresult cuCtxSynchronize(void) { return OK; }

CUresult cuModuleLoadDataEx(Module **m, const void *image, unsigned n, int *opts, void **vals) {
    const char *text = image;
    if (strstr(text, "MOCK_JIT_ERROR")) {
        char *log = NULL;
        size_t size = 0;
        for (unsigned i = 0; i < n; i++) {
            if (opts[i] == 5) log = vals[i];
            if (opts[i] == 6) size = (size_t)(uintptr_t)vals[i];
        }
        if (log && size) snprintf(log, size, "ptxas mock: syntax error at line 3");
        return INVALID_PTX;
    }
    int min_ctas = 0, max_threads = 0;
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == 31) min_ctas = (int)(uintptr_t)vals[i];  /* CU_JIT_MIN_CTA_PER_SM */
        if (opts[i] == 32) max_threads = (int)(uintptr_t)vals[i];  /* CU_JIT_MAX_THREADS_PER_BLOCK */
    }
    if (min_ctas && !max_threads) return INVALID_VALUE;
    Module *mod = calloc(1, sizeof *mod);
    mod->text = strdup(text);
    const char *regs = strstr(text, "MOCK_REGS ");
    if (regs) mod->regs = atoi(regs + strlen("MOCK_REGS "));
    const char *hinted = strstr(text, "MOCK_HINTED_REGS ");
    if (min_ctas && hinted) mod->regs = atoi(hinted + strlen("MOCK_HINTED_REGS "));
    const char *local = strstr(text, "MOCK_HINTED_LOCAL ");
    if (min_ctas && local) mod->local = atoi(local + strlen("MOCK_HINTED_LOCAL "));
    *m = mod;
    return OK;
}
CUresult cuModuleUnload(Module *m) { free(m->text); free(m); return OK; }
CUresult cuModuleGetFunction(Function **f, Module *m, const char *name) {
    char pat[300];
    snprintf(pat, sizeof pat, ".entry %s(", name);
    if (!strstr(m->text, pat)) return NOT_FOUND;
    Function *fn = calloc(1, sizeof *fn);
    snprintf(fn->name, sizeof fn->name, "%s", name);
    fn->max_dyn_shared = 48 * 1024;
    fn->regs = m->regs;
    fn->local = m->local;
    *f = fn; /* leaked: functions live as long as their module in the real driver */
    return OK;
}
CUresult cuFuncGetAttribute(int *v, int attr, Function *f) {
    switch (attr) {
    case 0: *v = 1024; break;
    case 4: *v = f->regs ? f->regs : 40; break;
    case 3: *v = f->local; break;  /* local bytes a thread */
    case 8: *v = f->max_dyn_shared; break;
    default: *v = 0; break;
    }
    return OK;
}
CUresult cuFuncSetAttribute(Function *f, int attr, int value) {
    if (attr != 8 || value > 232448) return INVALID_VALUE;
    f->max_dyn_shared = value;
    return OK;
}

/* Kernels with registers from their text: an sm_90's occupancy. Others: two blocks an SM up to
 * 100 KiB of dynamic shared memory, one past it. */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, Function *f, int block, size_t shared) {
    if (block <= 0 || block > 1024) return INVALID_VALUE;
    if (!f->regs) {
        *n = shared > 100 * 1024 ? 1 : 2;
        return OK;
    }
    int warps = (block + 31) / 32, by_regs = 65536 / ((f->regs + 7) / 8 * 8 * 32 * warps);
    int by_shared = (int)(233472 / (shared + 1024)), by_threads = 2048 / block;
    int best = by_regs < by_shared ? by_regs : by_shared;
    best = best < by_threads ? best : by_threads;
    *n = best < 32 ? best : 32;
    return OK;
}

/* CU_FUNC_CACHE_PREFER_NONE .. PREFER_EQUAL: recorded, and logged with each launch. */
CUresult cuFuncSetCacheConfig(Function *f, int config) {
    if (config < 0 || config > 3) return INVALID_VALUE;
    f->cache_config = config;
    return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    if (n == 0) return INVALID_VALUE;
    void *m = malloc(n);
    if (!m) return 2; /* out of memory */
    *p = (CUdeviceptr)(uintptr_t)m;
    return OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return OK; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    memcpy((void *)(uintptr_t)dst, src, n);
    return OK;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return OK;
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char c, size_t n) {
    memset((void *)(uintptr_t)dst, c, n);
    return OK;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char c, size_t n, void *s) {
    (void)s;
    return cuMemsetD8_v2(dst, c, n);
}

CUresult cuStreamCreate(void **s, unsigned flags) { (void)flags; *s = malloc(1); return OK; }
CUresult cuStreamDestroy_v2(void *s) { free(s); return OK; }
CUresult cuStreamSynchronize(void *s) { (void)s; return OK; }

CUresult cuEventCreate(Event **e, unsigned flags) { (void)flags; *e = calloc(1, sizeof **e); return OK; }
CUresult cuEventDestroy_v2(Event *e) { free(e); return OK; }
CUresult cuEventRecord(Event *e, void *s) {
    (void)s;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    e->ms = t.tv_sec * 1e3 + t.tv_nsec / 1e6;
    return OK;
}
CUresult cuEventSynchronize(Event *e) { (void)e; return OK; }
CUresult cuEventElapsedTime(float *ms, Event *a, Event *b) { *ms = (float)(b->ms - a->ms); return OK; }

/* ------------------------------------------------------------------ the benchmark kernels */

#define P(i, T) (*(T *)params[i])

static void add(unsigned gx, void **params) {
    const float *x = P(0, const float *), *y = P(1, const float *);
    float *out = P(2, float *);
    int n = P(3, int);
    long end = (long)gx * 1024 < n ? (long)gx * 1024 : n;
    if (!strcmp(bug(), "add")) end = n - 1;
    for (long i = 0; i < end; i++) out[i] = x[i] + y[i];
}

static void softmax(unsigned gx, void **params) {
    float *out = P(0, float *);
    const float *in = P(1, const float *);
    int in_stride = P(2, int), out_stride = P(3, int), n = P(4, int);
    for (unsigned r = 0; r < gx; r++) {
        const float *x = in + (long)r * in_stride;
        float *o = out + (long)r * out_stride;
        float m = -INFINITY, s = 0;
        for (int j = 0; j < n; j++) m = fmaxf(m, x[j]);
        for (int j = 0; j < n; j++) s += expf(x[j] - m);
        int end = (r == gx - 1 && !strcmp(bug(), "softmax")) ? n - 1 : n;
        for (int j = 0; j < end; j++) o[j] = expf(x[j] - m) / s;
    }
}

static void rmsnorm(unsigned gx, void **params) {
    const float *X = P(0, const float *);
    float *Y = P(1, float *);
    const float *W = P(2, const float *);
    int stride = P(3, int), n = P(4, int);
    float eps = P(5, float);
    for (unsigned r = 0; r < gx; r++) {
        const float *x = X + (long)r * stride;
        double ss = 0;
        for (int j = 0; j < n; j++) ss += (double)x[j] * x[j];
        float rs = 1.0f / sqrtf((float)(ss / n) + eps);
        int end = (r == gx - 1 && !strcmp(bug(), "rmsnorm")) ? n - 1 : n;
        for (int j = 0; j < end; j++) Y[(long)r * stride + j] = x[j] * rs * W[j];
    }
}

static void matmul(unsigned gx, void **params) {
    const _Float16 *a = P(0, const _Float16 *), *b = P(1, const _Float16 *);
    _Float16 *c = P(2, _Float16 *);
    int M = P(3, int), N = P(4, int), K = P(5, int);
    int sam = P(6, int), sbk = P(7, int), scm = P(8, int);
    /* Tiles of 128x256 with GROUP_M 8, as the real kernel maps program ids. */
    int num_pid_m = (M + 127) / 128, num_pid_n = (N + 255) / 256;
    float *acc = malloc(sizeof(float) * 128 * 256);
    for (unsigned pid = 0; pid < gx; pid++) {
        int in_group = 8 * num_pid_n, group = (int)pid / in_group, first_m = group * 8;
        int gsize = num_pid_m - first_m < 8 ? num_pid_m - first_m : 8;
        if (gsize <= 0) continue;
        int pid_m = first_m + ((int)pid % in_group) % gsize;
        int pid_n = ((int)pid % in_group) / gsize;
        memset(acc, 0, sizeof(float) * 128 * 256);
        for (int i = 0; i < 128; i++) {
            int m = pid_m * 128 + i;
            if (m >= M) break;
            for (int k = 0; k < K; k++) {
                float av = (float)a[(long)m * sam + k];
                const _Float16 *brow = b + (long)k * sbk;
                for (int j = 0; j < 256; j++) {
                    int n = pid_n * 256 + j;
                    if (n < N) acc[i * 256 + j] += av * (float)brow[n];
                }
            }
        }
        for (int i = 0; i < 128; i++)
            for (int j = 0; j < 256; j++) {
                long m = pid_m * 128 + i, n = pid_n * 256 + j;
                if (m >= M || n >= N) continue;
                if (m == M - 1 && n == N - 1 && !strcmp(bug(), "matmul")) continue;
                c[m * scm + n] = (_Float16)acc[i * 256 + j];
            }
    }
    free(acc);
}

/* cuTensorMapEncodeTiled: the mock's own descriptor layout, which descriptor_probe_kernel copies
 * out: [0] address, [1] rank, [2] data type, [3] swizzle, [4] L2 promotion, [5] OOB fill,
 * [6..6+rank) extents, [11..11+rank-1) byte strides (innermost first, as the driver takes them);
 * box dims and element strides are checked against what the runtime passes. */
CUresult cuTensorMapEncodeTiled(unsigned long long *map, int type, unsigned rank, void *address,
                                const unsigned long long *dims, const unsigned long long *strides,
                                const unsigned *box, const unsigned *element_strides,
                                int interleave, int swizzle, int l2, int fill) {
    if (rank == 0 || rank > 5 || interleave || ((uintptr_t)address % 16)) return INVALID_VALUE;
    memset(map, 0, 128);
    map[0] = (unsigned long long)(uintptr_t)address;
    map[1] = rank; map[2] = (unsigned long long)type; map[3] = (unsigned long long)swizzle;
    map[4] = (unsigned long long)l2; map[5] = (unsigned long long)fill;
    for (unsigned d = 0; d < rank; d++) {
        if (!dims[d] || !box[d] || box[d] > 256 || element_strides[d] != 1) return INVALID_VALUE;
        map[6 + d] = dims[d];
        if (d + 1 < rank) {
            if (strides[d] % 16) return INVALID_VALUE;
            map[11 + d] = strides[d];
        }
    }
    return OK;
}

CUresult cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                        void **extra) {
    (void)stream;
    if (extra) return INVALID_VALUE;
    if (!gx || !gy || !gz || bx * by * bz == 0 || bx * by * bz > 1024) return INVALID_VALUE;
    if ((int)shared > f->max_dyn_shared) return OUT_OF_RESOURCES;
    const char *log = getenv("MOCK_CUDA_LOG");
    if (log) {
        FILE *fp = fopen(log, "a");
        if (fp) {
            fprintf(fp, "%s grid=%u,%u,%u block=%u,%u,%u shared=%u%s", f->name, gx, gy, gz, bx, by,
                    bz, shared, f->cache_config == 1 ? " prefer_shared" : "");
            if (f->regs) fprintf(fp, " regs=%d", f->regs);
            fputc('\n', fp);
            fclose(fp);
        }
    }
    if (!strcmp(f->name, "add_kernel")) add(gx, params);
    else if (!strcmp(f->name, "softmax_kernel")) softmax(gx, params);
    else if (!strcmp(f->name, "rmsnorm_kernel")) rmsnorm(gx, params);
    else if (!strcmp(f->name, "matmul_kernel")) matmul(gx, params);
    else if (!strcmp(f->name, "persistent_kernel")) {
        /* persistent_kernel(count *i32, n i32, requested i32): each launched program (x, y)
         * counts the virtual programs v = x, x + gx, ... < requested of its row y. */
        int *count = P(0, int *);
        int requested = P(2, int);
        for (unsigned y = 0; y < gy; y++)
            for (unsigned x = 0; x < gx; x++)
                for (long v = x; v < requested; v += gx) count[(long)y * requested + v]++;
    }
    else if (!strcmp(f->name, "descriptor_probe_kernel")) {
        /* descriptor_probe_kernel(out *i64, m i32, k i32, stride i32, requested i32, two
         * descriptors): the requested count, then each descriptor's 16 words. */
        long long *out = P(0, long long *);
        out[0] = P(4, int);
        memcpy(out + 1, params[5], 128);
        memcpy(out + 17, params[6], 128);
    }
    else if (!strcmp(f->name, "fill_kernel")) {
        /* fill_kernel(out *f32, n i32, value f32, flag i1, big i64, d f64): used by API tests */
        float *out = P(0, float *);
        int n = P(1, int);
        float v = P(2, float);
        unsigned char flag = P(3, unsigned char);
        long long big = P(4, long long);
        double d = P(5, double);
        for (int i = 0; i < n; i++) out[i] = v + (flag ? 1.0f : 0.0f);
        if (n > 2) { out[n - 2] = (float)big; out[n - 1] = (float)d; }
    }
    return OK;
}

/* cuLaunchKernelEx: the config's grid, block, shared memory and stream, then as cuLaunchKernel;
 * logs "NAME pdl" for the programmatic stream serialization attribute (id 6) and
 * "NAME cooperative" for the cooperative one (id 2); other attributes are refused. */
typedef struct { int id; char pad[4]; union { char bytes[64]; int value; } v; } LaunchAttribute;
typedef struct {
    unsigned gx, gy, gz, bx, by, bz, shared;
    void *stream;
    LaunchAttribute *attrs;
    unsigned num_attrs;
} LaunchConfig;
CUresult cuLaunchKernelEx(const LaunchConfig *c, Function *f, void **params, void **extra) {
    if (!c || (c->num_attrs && !c->attrs)) return INVALID_VALUE;
    int pdl = 0, cooperative = 0;
    for (unsigned i = 0; i < c->num_attrs; i++) {
        if (c->attrs[i].id == 6 && c->attrs[i].v.value == 1) pdl = 1;
        else if (c->attrs[i].id == 2 && c->attrs[i].v.value == 1) cooperative = 1;
        else return INVALID_VALUE;
    }
    CUresult r = cuLaunchKernel(f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shared, c->stream,
                                params, extra);
    const char *log = getenv("MOCK_CUDA_LOG");
    if (r == OK && (pdl || cooperative) && log) {
        FILE *fp = fopen(log, "a");
        if (fp) {
            if (pdl) fprintf(fp, "%s pdl\n", f->name);
            if (cooperative) fprintf(fp, "%s cooperative\n", f->name);
            fclose(fp);
        }
    }
    return r;
}
