"""Corpus cases under several PTX builds of each, timed in one process and interleaved, with Triton
and torch's copy of the same bytes beside them (do_bench, as harness.py times).

GPU machine, from the repository root (carry .device):
  python3 bench/ptx-variants.py CASES DIR...
CASES is comma-separated; each DIR (under .device/) holds <case>.ptx and <case>.json as
.device/ptx_corpus does. Every build is checked against the case's reference first. Prints, per
case, the median over three rounds of each build's time and GB/s, and Triton's and the copy's; a
DIR without the case is passed over.

With CLEAN_L2=1, each is also timed after an L2 flush that reads 256 MiB instead of writing it
(do_bench's flush zeroes a buffer, leaving L2 full of dirty lines the timed kernel then writes
back): the second figure shows what that write-back costs a kernel of this size.

With CAPS=6,5 (say), each build also runs with at most that many blocks an SM (its shared memory
padded, the carveout at its largest): an H100 with fewer blocks an SM stands in for an H200,
whose faster memory needs more bytes in flight an SM than the same blocks keep. Take the
uncapped figures from a run without CAPS: in one process the largest carveout the capped builds
ask for stays with the uncapped ones too (layernorm_fwd_f16's time rose 4% with L1 at 28 KiB).

With FORMS=launch_copies,program_orders (modules of bench/), each case such a module knows is
also timed in the module's other forms, compiled by Triton and checked first (each module's
`forms(name, case)`): launch_copies, copies with the case's own launch (grid, warps, bytes a
program), the ceiling of any kernel launched that way; program_orders, the transposes with their
programs renumbered. A form's GB/s counts its own bytes."""
import importlib
import json
import os
import statistics
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".device")
sys.path.insert(0, os.path.join(root, "bench"))
os.chdir(os.path.join(root, "bench"))
import harness  # noqa: E402  (harness.py and the cases module, copied by bench/device-bundle.sh)
import cases_corpus  # noqa: E402,F401
import numpy as np  # noqa: E402
import cupy  # noqa: E402
import torch  # noqa: E402

cases = sys.argv[1].split(",")
dirs = sys.argv[2:]
ttirdir = os.path.join(root, "corpus_ttir")
clean_l2 = bool(os.environ.get("CLEAN_L2"))
caps = [int(c) for c in os.environ.get("CAPS", "").split(",") if c]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
form_modules = [importlib.import_module(m) for m in os.environ.get("FORMS", "").split(",") if m]
flush_source = torch.ones(256 * 2**20 // 4, device="cuda") if clean_l2 else None


def bench_after_clean_flush(run, reps=100):
    """Median time of `run` after reading (not writing) 256 MiB: L2 holds clean lines only."""
    times = []
    for _ in range(10 + reps):
        flush_source.sum()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        times.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in times[10:])


def launcher(c, name, ptxdir, cap=None):
    md = json.load(open(os.path.join(root, ptxdir, f"{name}.json")))
    _, params = harness.signature(open(os.path.join(ttirdir, f"{name}.ttir")).read())
    fn = cupy.RawModule(path=os.path.join(root, ptxdir, f"{name}.ptx")).get_function(md["name"])
    shared = int(md.get("shared", 0))
    if cap:
        # At most `cap` blocks an SM: shared memory padded at the largest carveout (228 KiB an
        # SM, 1 KiB the driver keeps a block).
        shared = max(shared, 228 * 1024 // cap - 2047)
        fn.max_dynamic_shared_size_bytes = shared
        fn.preferred_shared_memory_carveout = 100
    kinds = {"i64": np.int64, "i32": np.int32, "i1": np.bool_, "f32": np.float32, "f64": np.float64}

    def argv():
        out = []
        for pname, ty in params:
            val = c["args"][pname]
            out.append(np.uint64(val.data_ptr()) if isinstance(val, torch.Tensor) else kinds[ty](val))
        return tuple(out)

    grid = tuple(c["grid"]) + (1,) * (3 - len(c["grid"]))
    block = (32 * int(md["num_warps"]), 1, 1)
    return lambda: fn(grid, block, argv(), shared_mem=shared)


for name in cases:
    torch.manual_seed(1)
    c = harness.CASES[name]["build"]()
    runs = {"triton": harness.triton_launch(c)}
    for d in dirs:
        if not os.path.exists(os.path.join(root, d, f"{name}.ptx")):
            continue
        runs[d] = launcher(c, name, d)
        harness.check(c, runs[d])
        for cap in caps:
            runs[f"{d}@{cap}"] = launcher(c, name, d, cap)
            harness.check(c, runs[f"{d}@{cap}"])
    nbytes = {}
    for module in form_modules:
        for label, (run, check, form_bytes) in module.forms(name, c).items():
            check(run)
            runs[label], nbytes[label] = run, form_bytes
    half = c["bytes"] // 2 // 4
    src = torch.empty(half, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    runs["torch copy"] = lambda: dst.copy_(src)
    times = {k: [] for k in runs}
    clean = {k: [] for k in runs}
    for _ in range(3):
        for key, run in runs.items():
            times[key].append(harness.bench(run))
            if clean_l2:
                clean[key].append(bench_after_clean_flush(run))
    print(f"== {name} ({c['bytes'] / 1e6:.0f} MB)")
    for key, ts in times.items():
        ms = statistics.median(ts)
        moved = nbytes.get(key, c["bytes"])
        line = f"  {key:14} {ms:.4f} ms {moved / ms / 1e6:6.0f} GB/s  ({' '.join(f'{t:.4f}' for t in ts)})"
        if clean_l2:
            cms = statistics.median(clean[key])
            line += f"   clean L2: {cms:.4f} ms {moved / cms / 1e6:6.0f} GB/s"
        print(line)
    del c, src, dst
    torch.cuda.empty_cache()
