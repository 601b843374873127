"""Same PTX, different assemblers (GPU machine): is a matmul's gap to Triton in the PTX or in
what assembles it? Tritium's runtime hands PTX to the driver's JIT; Triton assembles with its
bundled ptxas (12.8). Both compilers' PTX of one kernel is loaded through the driver's JIT and as
cubins from Triton's ptxas and the system's, launched alike with CuPy (the first nine parameters
of both compilers' kernels are the tutorial's; Triton's two scratch pointers get 0), checked
against torch and timed in one process.

    python3 bench/sass-compare.py --python OUT python/tests/gpu/t03_matmul.py matmul_kernel SIG 8 3 t03
    # copy OUT/t03.tritium/t03.ptx and OUT/t03.triton.ptx to the GPU machine, then
    python3 bench/ptx-assemblers.py t03 TRITIUM.ptx TRITON.ptx [SIZE [VARIANT.ptx ...]]   # or t11u

SIZE is S (S³) or MxNxK; t11u covers every kernel with the persistent tutorial's parameters
(a, b, c, M, N, K, stride_am, stride_bk, stride_cm), such as bench/kernels/persistent_variants.py's.

VARIANT.ptx files (edits of Tritium's PTX, e.g. `bench/ptx-opaque-tid.py`'s) are timed beside
them, through the driver's JIT.
"""
import os, re, subprocess, statistics, sys, cupy as cp, torch, triton
tb = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin")
case, ours_ptx, triton_ptx = sys.argv[1:4]    # case: t03 | t11u (persistent, 132 programs)
size = sys.argv[4] if len(sys.argv) > 4 else "8192"
extra = sys.argv[5:]
M, N, K = (int(x) for x in size.split("x")) if "x" in size else (int(size),) * 3
a = torch.randn((M, K), device="cuda", dtype=torch.float16)
b = torch.randn((K, N), device="cuda", dtype=torch.float16)
c = torch.empty((M, N), device="cuda", dtype=torch.float16)
ref = torch.matmul(a, b)
tiles = triton.cdiv(M, 128) * triton.cdiv(N, 256)
grid = (tiles,) if case == "t03" else (min(132, tiles),)
variants = {}
for side in ("tritium", "triton"):
    ptx = ours_ptx if side == "tritium" else triton_ptx
    text = open(ptx).read()
    name = re.search(r"\.entry (\w+)\(", text).group(1)
    nparams = len(re.findall(r"\.param ", text.split("{", 1)[0]))
    variants[f"{side} ptx, driver JIT"] = (cp.RawModule(path=ptx), name, nparams)
    for tag, ptxas in (("triton ptxas", f"{tb}/ptxas"), ("system ptxas", "ptxas")):
        cub = f"/tmp/{case}_{side}_{tag.split()[0]}.cubin"
        subprocess.run([ptxas, "-arch=sm_90a", "-O3", ptx, "-o", cub], check=True)
        variants[f"{side} ptx, {tag}"] = (cp.RawModule(path=cub), name, nparams)
for ptx in extra:
    text = open(ptx).read()
    name = re.search(r"\.entry (\w+)\(", text).group(1)
    nparams = len(re.findall(r"\.param ", text.split("{", 1)[0]))
    variants[f"{os.path.basename(ptx)}, driver JIT"] = (cp.RawModule(path=ptx), name, nparams)
args_all = [a.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K, K, N, N, 0, 0]
def launcher(mod, name, nparams):
    f = mod.get_function(name)
    f.max_dynamic_shared_size_bytes = 232448
    args = tuple(cp.uint64(x) if i < 3 or i >= 9 else cp.int32(x) for i, x in enumerate(args_all[:nparams]))
    return lambda: f(grid, (256,), args, shared_mem=232448)
fns = {k: launcher(*v) for k, v in variants.items()}
times = {k: [] for k in fns}
for rnd in range(5):
    for k, f in fns.items():
        c.fill_(float("nan")); f(); torch.cuda.synchronize()
        assert torch.allclose(c.float(), ref.float(), atol=1.0, rtol=0.02), k
        times[k].append(triton.testing.do_bench(f, warmup=50, rep=300))
base = statistics.median(times["triton ptx, triton ptxas"])
for k, v in times.items():
    t = statistics.median(v)
    print(f"{case} {M}x{N}x{K} {k:34s} {t*1e3:8.1f} us  {t/base:.3f}x  {2*M*N*K/t*1e-9:.0f} TFLOP/s", flush=True)
