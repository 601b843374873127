"""Clock and power of tutorial 09's persistent descriptor matmul under each compiler: each kernel
launched back to back for a few seconds (alternating compilers, two rounds) while nvidia-smi samples
the SM clock and the board power; prints per compiler the time a launch and the median clock and
power while it ran. A kernel that draws more power at the same work is clocked down sooner, which
a cycle count (ncu at locked clocks) does not show. GPU machine, with the wheel on PYTHONPATH:

    python3 bench/persistent-power.py [N]        (default 8192: N³ fp16)
    ONCE=1 ncu ... python3 bench/persistent-power.py [N]
                  (after one warm-up launch each, one launch of Tritium's then one of Triton's)
"""
import os
import statistics
import subprocess
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
from run_one import load  # noqa: E402

mods = {be: load(os.path.join(HERE, "..", "python", "tests", "gpu", "t09_descriptors.py"), be)
        for be in ("tritium", "triton")}
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
torch.manual_seed(0)
a = torch.randn((n, n), device="cuda", dtype=torch.float16)
b = torch.randn((n, n), device="cuda", dtype=torch.float16)
c = torch.empty((n, n), device="cuda", dtype=torch.float16)
for module in mods.values():
    module.matmul_persistent(a, b, c)
torch.cuda.synchronize()
if os.environ.get("ONCE"):
    for module in mods.values():
        module.matmul_persistent(a, b, c)
    torch.cuda.synchronize()
    sys.exit(0)


def sample(seconds, module):
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "100"], stdout=subprocess.PIPE, text=True)
    start = time.perf_counter()
    launches = 0
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            module.matmul_persistent(a, b, c)
        launches += 20
        torch.cuda.synchronize()
    end.record()
    end.synchronize()
    smi.terminate()
    rows = [line.split(",") for line in smi.communicate()[0].splitlines() if "," in line]
    rows = rows[len(rows) // 4:]  # past the ramp
    clock = statistics.median(float(r[0]) for r in rows)
    power = statistics.median(float(r[1]) for r in rows)
    return begin.elapsed_time(end) * 1e3 / launches, clock, power


for rnd in range(2):
    for be, module in mods.items():
        us, clock, power = sample(4.0, module)
        tflops = 2 * n**3 / us / 1e6
        print(f"round {rnd} {be:8} {us:8.1f} us/launch {tflops:5.0f} TFLOP/s  SM clock {clock:5.0f} MHz"
              f"  power {power:4.0f} W  TFLOP/s per MHz {tflops / clock:.4f}", flush=True)
