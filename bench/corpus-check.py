#!/usr/bin/env python3
"""Compile every kernel of bench/cases_corpus.py with Tritium's front end (no torch or triton needed).

    python3 bench/corpus-check.py compile OUTDIR [CASE ...]   # tritium compile each case's kernel with its
                                                            # signature and num_warps (CORPUS_SIGNATURES);
                                                            # OUTDIR/<case>.ptx, .json, .ttir, .signature;
                                                            # prints one line per case and the failures
    TRITIUM=path/to/tritium python3 bench/corpus-check.py compile OUTDIR

CORPUS_SIGNATURES is read from the module's source (ast.literal_eval), so the cases module is not
imported. Exit status 1 if any case fails. The same cases run on the GPU through
../shared/bench/harness.py (CASE_MODULES=cases_visible,cases_corpus; docs/benchmarks.md).
"""
import ast
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "bench", "cases_corpus.py")


def signatures():
    tree = ast.parse(open(CORPUS).read(), CORPUS)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CORPUS_SIGNATURES" for t in node.targets):
            return ast.literal_eval(node.value)
    sys.exit(f"{CORPUS}: no CORPUS_SIGNATURES")


def tritium():
    if os.environ.get("TRITIUM"):
        return os.environ["TRITIUM"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "tritium")
        if os.path.exists(path):
            return path
    sys.exit("build tritium first (cargo build -p tritium), or set TRITIUM=path/to/tritium")


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


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "compile":
        sys.exit(__doc__)
    sys.exit(compile_all(sys.argv[2], set(sys.argv[3:])))
