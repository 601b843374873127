#!/usr/bin/env python3
"""Python kernels compiled by Tritium's front end against Triton itself, on the same source.

    python3 bench/frontend-check.py compile OUTDIR   # build machine: tritium compile every case
                                                     # (needs only python3 and target/*/tritium)
    python3 bench/frontend-check.py check OUTDIR     # GPU machine (torch, triton, cupy): launch
                                                     # each OUTDIR/<case>.ptx and Triton's own
                                                     # compile of the same kernel on the same
                                                     # inputs; compare every output element

The kernels are test/Inputs/frontend/cases_visible.py (the benchmark cases) and tutorials.py.
Each case gives the specialization as the signature Tritium needs (a `:16` only where the value
is divisible by 16, literals for constexprs and for integers equal to 1, as Triton specializes).
"""
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = os.path.join(ROOT, "test", "Inputs", "frontend")
# cases_visible.py imports the benchmark harness: ../shared/bench here, or its copy in .device/bench
# on the GPU machine (docs/gpu-testing.md).
for harness_dir in (os.path.join(ROOT, ".device", "bench"), os.path.join(ROOT, "..", "shared", "bench")):
    if os.path.exists(os.path.join(harness_dir, "harness.py")):
        sys.path.append(harness_dir)
        break


def case(name, file, kernel, signature, warps, build, stages=3):
    return dict(name=name, file=file, kernel=kernel, signature=signature, warps=warps, build=build, stages=stages)


# build(torch, mod) -> dict(args=[...runtime and constexpr values in parameter order...],
#   grid, outs=[indices of output tensors], tol, ref=optional callable giving expected outputs)
def b_add(torch, m):
    n = 1 << 20
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    return dict(args=[x, y, torch.empty_like(x), n, 1024], grid=(n // 1024,), outs=[2], tol=0)


def b_softmax(torch, m):
    M, N = 512, 781
    x = torch.randn(M, N, device="cuda"); o = torch.empty_like(x)
    return dict(args=[o, x, x.stride(0), o.stride(0), N, 1024], grid=(M,), outs=[0], tol=1e-5)


def b_rmsnorm(torch, m):
    M, N = 256, 4096
    x = torch.randn(M, N, device="cuda"); w = torch.randn(N, device="cuda"); y = torch.empty_like(x)
    return dict(args=[x, y, w, x.stride(0), N, 1e-6, 4096], grid=(M,), outs=[1], tol=1e-5)


def b_matmul(torch, m):
    S = 512
    a = torch.randn(S, S, device="cuda", dtype=torch.float16); b = torch.randn(S, S, device="cuda", dtype=torch.float16)
    c = torch.empty(S, S, device="cuda", dtype=torch.float16)
    args = [a, b, c, S, S, S, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1, 128, 256, 64, 8]
    return dict(args=args, grid=((S // 128) * (S // 256),), outs=[2], tol=1e-2)


def b_matmul_act(torch, m):
    S = 512
    a = torch.randn(S, S, device="cuda", dtype=torch.float16); b = torch.randn(S, S, device="cuda", dtype=torch.float16)
    c = torch.empty(S, S, device="cuda", dtype=torch.float16)
    args = [a, b, c, S, S, S, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1, 128, 128, 64, 8, "leaky_relu"]
    return dict(args=args, grid=((S // 128) * (S // 128),), outs=[2], tol=1e-2)


def b_layer_norm(torch, m):
    M, N = 128, 3000
    x = torch.randn(M, N, device="cuda", dtype=torch.float16); y = torch.empty_like(x)
    w = torch.randn(N, device="cuda", dtype=torch.float16); bb = torch.randn(N, device="cuda", dtype=torch.float16)
    mean = torch.empty(M, device="cuda"); rstd = torch.empty(M, device="cuda")
    return dict(args=[x, y, w, bb, mean, rstd, x.stride(0), N, 1e-5, 1024], grid=(M,), outs=[1, 4, 5], tol=1e-2)


def b_dropout(torch, m):
    n = 100003
    x = torch.randn(n, device="cuda"); o = torch.empty_like(x)
    return dict(args=[x, o, n, 0.3, 1234, 1024], grid=((n + 1023) // 1024,), outs=[1], tol=1e-6)


def b_spin_lock(torch, m):
    P, N = 64, 100
    x = torch.randn(P * 128, device="cuda")
    lock = torch.zeros(1, device="cuda", dtype=torch.int32); count = torch.zeros(1, device="cuda", dtype=torch.int32)
    out = torch.zeros(128, device="cuda")
    return dict(args=[lock, count, out, x, N, 128], grid=(P,), outs=[2], tol=1e-4)


def b_attn(torch, m):
    N_CTX, D = 1024, 64
    q, k, v = (torch.randn(N_CTX, D, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    args = [q, k, v, 0.125, o, q.stride(0), k.stride(0), v.stride(0), o.stride(0), N_CTX, 64, 128, 64]
    return dict(args=args, grid=(N_CTX // 128,), outs=[4], tol=2e-2)


def b_softmax_multirow(torch, m):
    M, N = 1000, 1000
    x = torch.randn(M, N, device="cuda"); o = torch.empty_like(x)
    return dict(args=[o, x, x.stride(0), o.stride(0), M, N, 1024, 2], grid=(132,), outs=[0], tol=1e-5)


def b_sort_flip(torch, m):
    x = torch.randn(2, 64, device="cuda")
    return dict(args=[x, torch.empty_like(x), torch.empty_like(x), torch.empty_like(x), 2, 64], grid=(1,), outs=[1, 2, 3], tol=0)


def b_early_exit(torch, m):
    R, C = 100, 200
    x = torch.randn(R, C, device="cuda"); y = torch.zeros_like(x)
    return dict(args=[x, y, R, C, 256], grid=(128,), outs=[1], tol=0)


CASES = [
    case("add", "cases_visible.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", 4, b_add),
    case("softmax", "cases_visible.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, 1024", 4, b_softmax),
    case("rmsnorm", "cases_visible.py", "rmsnorm_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 4096", 8, b_rmsnorm),
    case("matmul", "cases_visible.py", "matmul_kernel",
         "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8", 8, b_matmul),
    case("matmul_act", "tutorials.py", "matmul_act_kernel",
         "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 64, 8, 'leaky_relu'", 8, b_matmul_act),
    case("layer_norm", "tutorials.py", "layer_norm_fwd",
         "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024", 8, b_layer_norm),
    case("dropout", "tutorials.py", "dropout_kernel", "*fp32:16, *fp32:16, i32, fp32, i32, 1024", 4, b_dropout),
    case("spin_lock", "tutorials.py", "spin_lock_accumulate", "*i32:16, *i32:16, *fp32:16, *fp32:16, i32, 128", 4, b_spin_lock),
    case("attn", "tutorials.py", "attn_fwd",
         "*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64", 4, b_attn),
    case("softmax_multirow", "tutorials.py", "softmax_multirow",
         "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 2", 4, b_softmax_multirow),
    case("sort_flip", "tutorials.py", "sort_flip_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, 2, 64", 4, b_sort_flip),
    case("early_exit", "tutorials.py", "early_exit_kernel", "*fp32:16, *fp32:16, i32, i32, 256", 4, b_early_exit),
]


def tritium():
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "tritium")
        if os.path.exists(path):
            return path
    sys.exit("build tritium first (cargo build -p tritium)")


def compile_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    for c in CASES:
        cmd = [tritium(), "compile", os.path.join(INPUTS, c["file"]), "-n", c["kernel"], "-s", c["signature"],
               "-w", str(c["warps"]), "-ns", str(c["stages"]), "-o", outdir, "-on", c["name"]]
        print(" ".join(f"'{a}'" if " " in a else a for a in cmd), flush=True)
        subprocess.run(cmd, check=True)
        with open(os.path.join(outdir, c["name"] + ".signature"), "w") as f:
            f.write(c["signature"])


def check(outdir):
    import numpy as np, cupy, torch
    rows = []
    for c in CASES:
        ptx = os.path.join(outdir, c["name"] + ".ptx")
        if not os.path.exists(ptx):
            rows.append((c["name"], "missing")); continue
        spec = importlib.util.spec_from_file_location(c["file"][:-3], os.path.join(INPUTS, c["file"]))
        mod = importlib.util.module_from_spec(spec)
        sys.path.insert(0, INPUTS)
        spec.loader.exec_module(mod)
        kernel = getattr(mod, c["kernel"])
        entries = [e.strip() for e in c["signature"].split(",")]
        try:
            outs = []
            for who in ("triton", "tritium"):
                torch.manual_seed(0)
                setup = c["build"](torch, mod)
                args = setup["args"]
                if who == "triton":
                    # A kernel parameter named like a launch option (the tutorial softmax's
                    # `num_stages: tl.constexpr`) takes the option's value, as in Triton.
                    options = {"num_warps": c["warps"], "num_stages": c["stages"]}
                    params = set(kernel.arg_names)
                    options = {k: v for k, v in options.items() if k not in params}
                    kernel[setup["grid"]](*args, **options)
                else:
                    md = json.load(open(os.path.join(outdir, c["name"] + ".json")))
                    fn = cupy.RawModule(path=ptx).get_function(md["name"])
                    if md["shared"] > 48 * 1024:
                        fn.max_dynamic_shared_size_bytes = md["shared"]
                    argv = []
                    for e, a in zip(entries, args):
                        ty = e.split(":")[0]
                        if e.startswith("*"):
                            argv.append(np.uint64(a.data_ptr()))
                        elif ty in ("i32",):
                            argv.append(np.int32(a))
                        elif ty in ("i64",):
                            argv.append(np.int64(a))
                        elif ty in ("fp32",):
                            argv.append(np.float32(a))
                        # literals (constexprs, ints equal to 1) are compiled in
                    grid = tuple(setup["grid"]) + (1,) * (3 - len(setup["grid"]))
                    torch.cuda.synchronize()
                    fn(grid, (32 * md["num_warps"], 1, 1), tuple(argv), shared_mem=md["shared"])
                    cupy.cuda.Device().synchronize()
                torch.cuda.synchronize()
                outs.append([args[i].clone() for i in setup["outs"]])
            worst = 0.0
            for t, o in zip(*outs):
                t, o = t.double(), o.double()
                err = ((t - o).abs() / (t.abs() + 1)).max().item() if t.numel() else 0.0
                worst = max(worst, err)
            ok = worst <= setup["tol"]
            rows.append((c["name"], f"{'ok' if ok else 'FAIL'} max rel diff vs Triton {worst:.2e} (tol {setup['tol']:.0e})"))
        except Exception as ex:
            rows.append((c["name"], "FAIL " + (str(ex).splitlines() or ["?"])[0][:150]))
    for name, result in rows:
        print(f"{name:20} {result}")
    passed = sum(r[1].startswith("ok") for r in rows)
    print(f"{passed} passed, {len(rows) - passed} failed")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("compile", "check"):
        sys.exit(__doc__)
    (compile_all if sys.argv[1] == "compile" else check)(sys.argv[2])
