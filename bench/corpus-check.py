#!/usr/bin/env python3
"""Compile every kernel of bench/cases_corpus.py with Tritium's front end (no torch or triton needed).

    python3 bench/corpus-check.py compile OUTDIR [CASE ...]   # tritium compile each case's kernel with its
                                                            # signature and num_warps (CORPUS_SIGNATURES);
                                                            # OUTDIR/<case>.ptx, .json, .ttir, .signature;
                                                            # prints one line per case and the failures
    TRITIUM=path/to/tritium python3 bench/corpus-check.py compile OUTDIR
    python3 bench/corpus-check.py times [RUNS]              # cold `tritium compile` of each case from
                                                            # Python to PTX (one process per run with a
                                                            # fresh compile cache, the median of RUNS,
                                                            # default 5; also its --timing total, the
                                                            # compile without process start) beside Triton
                                                            # 3.6's cold compile of the same case
                                                            # (test/Inputs/corpus_frontend/
                                                            # triton_compile_times.json, measured on the
                                                            # GPU machine by harness.py frontend)

CORPUS_SIGNATURES is read from the module's source (ast.literal_eval), so the cases module is not
imported. Exit status 1 if any case fails. The same cases run on the GPU through
../shared/bench/harness.py (CASE_MODULES=cases_visible,cases_corpus; docs/benchmarks.md).
"""
import ast
import os
import subprocess
import sys

from tritium_binary import tritium

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "bench", "cases_corpus.py")


def signatures():
    tree = ast.parse(open(CORPUS).read(), CORPUS)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CORPUS_SIGNATURES" for t in node.targets):
            return ast.literal_eval(node.value)
    sys.exit(f"{CORPUS}: no CORPUS_SIGNATURES")




def compile_all(outdir, only):
    os.makedirs(outdir, exist_ok=True)
    failed = []
    sigs = signatures()
    for name, (kernel, sig, warps) in sigs.items():
        if only and name not in only:
            continue
        cmd = [tritium(), "compile", CORPUS, "-n", kernel, "-s", sig, "-w", str(warps),
               "-o", outdir, "-on", name, "--emit", "ttir,ptx"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            with open(os.path.join(outdir, name + ".signature"), "w") as f:
                f.write(sig)
            print(f"{name:22} ok", flush=True)
        else:
            err = (r.stderr.strip() or r.stdout.strip() or f"exit {r.returncode}").splitlines()
            print(f"{name:22} FAIL {err[0] if err else ''}", flush=True)
            failed.append((name, " ".join(f"'{a}'" if " " in a else a for a in cmd), "\n".join(err)))
    for name, cmd, err in failed:
        print(f"\n--- {name}\n{cmd}\n{err}")
    total = len(only) if only else len(sigs)
    print(f"\n{total - len(failed)} compiled, {len(failed)} failed")
    return 1 if failed else 0


def compile_times(runs):
    import json, statistics, tempfile, time
    triton = json.load(open(os.path.join(ROOT, "test", "Inputs", "corpus_frontend",
                                         "triton_compile_times.json")))
    ratios, in_process_ratios = [], []
    print(f"{'case':22} {'process ms':>10} {'compile ms':>10} {'triton ms':>10} {'ratio':>7} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as out:
        for name, (kernel, sig, warps) in signatures().items():
            cmd = [tritium(), "compile", CORPUS, "-n", kernel, "-s", sig, "-w", str(warps),
                   "-o", out, "-on", name, "--timing"]
            samples, in_process = [], []
            for _ in range(runs):
                # A fresh compile cache per run: a cold compile, not a cache hit.
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, TRITIUM_CACHE_DIR=cache)
                    start = time.perf_counter()
                    run = subprocess.run(cmd, capture_output=True, check=True, env=env, text=True)
                    samples.append((time.perf_counter() - start) * 1e3)
                    # `--timing`'s total: the compile itself, without starting the process and
                    # MLIR (what `import tritium`'s JIT pays per kernel).
                    totals = [line.split()[-1] for line in (run.stdout + run.stderr).splitlines()
                              if line.startswith("total")]
                    in_process.append(float(totals[-1]))
            ours, ours_in = statistics.median(samples), statistics.median(in_process)
            theirs = triton.get(name, {}).get("cold_ms")
            if theirs:
                ratios.append(ours / theirs)
                in_process_ratios.append(ours_in / theirs)
                print(f"{name:22} {ours:10.1f} {ours_in:10.1f} {theirs:10.1f} {ours / theirs:7.3f} "
                      f"{ours_in / theirs:7.3f}", flush=True)
            else:
                print(f"{name:22} {ours:10.1f} {ours_in:10.1f} {'-':>10}", flush=True)
    if ratios:
        geo = statistics.geometric_mean(ratios)
        geo_in = statistics.geometric_mean(in_process_ratios)
        print(f"\ngeometric mean tritium/triton over {len(ratios)} cases: {geo:.3f} per process "
              f"(max {max(ratios):.3f}), {geo_in:.3f} in process (max {max(in_process_ratios):.3f})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "times":
        sys.exit(compile_times(int(sys.argv[2]) if len(sys.argv) > 2 else 5))
    if len(sys.argv) < 3 or sys.argv[1] != "compile":
        sys.exit(__doc__)
    sys.exit(compile_all(sys.argv[2], set(sys.argv[3:])))
