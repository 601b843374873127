"""Experiment: corpus kernels held to N registers a thread (`.maxnreg N` on the entry), so that more
blocks fit an SM. A hand patch of Tritium's PTX, to decide whether the compiler should cap
registers for occupancy on faster memory (the early-loads rmsnorm_fwd_bf16 takes 39 registers,
6 blocks of 8 warps an SM; at 32 it fits 8 and ptxas spills nothing).

    python3 bench/maxnreg-ptx.py N CASE...    (here; writes .device/ptx_maxregN/ from .device/ptx_corpus)

then on the GPU machine `python3 bench/ptx-variants.py CASES ptx_corpus ptx_maxregN`."""
import os
import re
import shutil
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".device")
registers = int(sys.argv[1])
out = os.path.join(root, f"ptx_maxreg{registers}")
os.makedirs(out, exist_ok=True)
for case in sys.argv[2:]:
    src = os.path.join(root, "ptx_corpus", case)
    ptx = open(src + ".ptx").read()
    # The directive goes after the entry's parameter list, before its body or other directives.
    entry = re.search(r"\.entry\s+\w+\s*\(.*?\)", ptx, re.S)
    patched = ptx[: entry.end()] + f"\n.maxnreg {registers}" + ptx[entry.end():]
    open(os.path.join(out, case + ".ptx"), "w").write(patched)
    shutil.copy(src + ".json", os.path.join(out, case + ".json"))
print("wrote", out)
