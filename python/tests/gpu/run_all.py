"""The GPU tests of `import tritium`: Triton's tutorials (vector add, fused softmax, matmul with
autotuning, low-memory dropout, layer norm forward and backward, libdevice functions, fused attention forward and backward, host-side tensor descriptors,
block-scaled dots, a persistent matmul, programmatic dependent launch; batched and block-pointer matmuls; tutorial 03's matmul in bf16, tf32 and fp8) with only the imports changed, each checked against PyTorch and, when `import triton` works,
timed against Triton on the same GPU in the same run; plus a grouped GEMM in the tutorial's style and the launch overhead of both.

    python3 python/tests/gpu/run_all.py [--only NAME] [--no-triton]

Each tutorial runs in its own process (a crash is a failure, not the end of the run). Prints a
table and `N passed, M failed`; exits 1 if anything failed."""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TUTORIALS = ["t01_vector_add", "t02_fused_softmax", "t03_matmul", "matmul_variants", "matmul_dtypes",
             "t04_low_memory_dropout", "t05_layer_norm", "t06_fused_attention", "t07_extern_functions",
             "t08_grouped_gemm", "t09_descriptors", "t10_dot_scaled", "t11_persistent_matmul", "t12_dependent_launch",
             "launch_overhead"]


def run(name, backend, timeout):
    start = time.time()
    try:
        env = dict(os.environ, TRITON_PRINT_AUTOTUNING="1")
        proc = subprocess.run([sys.executable, os.path.join(HERE, "run_one.py"),
                               os.path.join(HERE, f"{name}.py"), backend],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return [dict(case=name, ok=False, error=f"timed out after {timeout} s")], time.time() - start
    lines = proc.stdout.splitlines()
    printed = [line for line in lines if not line.startswith("RESULTS:")]
    if printed:
        print("\n".join(f"  [{backend}] {line}" for line in printed[:40]))
    for line in lines:
        if line.startswith("RESULTS:"):
            return json.loads(line[len("RESULTS:"):]), time.time() - start
    tail = (proc.stdout + proc.stderr)[-3000:]
    return [dict(case=name, ok=False, error=f"exit status {proc.returncode}:\n{tail}")], time.time() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append")
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--timeout", type=int, default=900)
    args = parser.parse_args()
    try:
        import tritium
        print(f"tritium {tritium.__version__} from {os.path.dirname(tritium.__file__)}")
        print(f"compiler: {tritium._tritium.compiler_version()}")
    except Exception as e:  # noqa: BLE001
        print(f"import tritium failed: {e!r}")
        print("0 passed, 1 failed")
        sys.exit(1)
    with_triton = False
    if not args.no_triton:
        try:
            import triton
            print(f"triton {triton.__version__} (timed in the same run)")
            with_triton = True
        except ImportError:
            print("triton is not importable: Tritium's results only")
    try:
        import torch
        print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    except Exception as e:  # noqa: BLE001
        print(f"torch / GPU unavailable: {e!r}")
    passed = failed = 0
    rows = []
    for name in TUTORIALS:
        if args.only and name not in args.only:
            continue
        ours, secs = run(name, "tritium", args.timeout)
        print(f"== {name}: {secs:.1f} s with tritium", flush=True)
        theirs = {}
        if with_triton:
            results, tsecs = run(name, "triton", args.timeout)
            print(f"== {name}: {tsecs:.1f} s with triton", flush=True)
            theirs = {r["case"]: r for r in results}
        for r in ours:
            ok = bool(r.get("ok"))
            passed += ok
            failed += not ok
            t = theirs.get(r["case"], {})
            rows.append((r, t))
            if not ok:
                print(f"FAILED {r['case']}: err={r.get('err')} {r.get('note', '')}")
                if r.get("error"):
                    print(r["error"])
            if t.get("error"):
                print(f"(triton) {t['case']}: {t['error'][-800:]}")
    print()
    print(f"{'case':<72} {'ok':<4} {'max err':>10} {'tritium ms':>11} {'triton ms':>10} {'ratio':>6}  note")
    for r, t in rows:
        err = r.get("err")
        ms = r.get("ms")
        tms = t.get("ms")
        ratio = f"{ms / tms:.2f}" if ms and tms else ""
        print(f"{r['case'][:72]:<72} {'yes' if r.get('ok') else 'NO':<4} "
              f"{'' if err is None else f'{err:.2e}':>10} {'' if ms is None else f'{ms:.4f}':>11} "
              f"{'' if tms is None else f'{tms:.4f}':>10} {ratio:>6}  {r.get('note', '')[:90]}")
    print()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
