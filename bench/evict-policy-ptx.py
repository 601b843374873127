"""Experiment: corpus kernels whose global loads and/or stores carry an L2 evict-first cache policy
(`createpolicy.fractional.L2::evict_first` and `.L2::cache_hint`), a hand patch of Tritium's PTX.

At ~270 MB the one-row kernels lose 6-11% to the dirty lines `do_bench`'s L2 flush leaves
behind (docs/benchmarks.md, session 34): the kernel's own traffic evicts them and writes them back
while it runs. Lines the kernel brings in marked evict-first should be the ones L2 replaces first,
which could leave the flush's dirty lines in place until after the timed launch. Session 34's `.cs`
(cache-streaming) loads and stores were 2-4% slower; this asks the same through the L2 policy
alone, on loads, stores, or both.

    python3 bench/evict-policy-ptx.py CASE...   (here; writes .device/ptx_ef{l,s,b}/ from .device/ptx_corpus)

then on the GPU machine `python3 bench/ptx-variants.py CASES ptx_corpus ptx_efl ptx_efs ptx_efb`."""
import os
import re
import shutil
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".device")
LOAD = re.compile(r"\bld\.global((?:\.v\d)?\.b\d+)\s+(.*?),\s*(\[[^\]]*\]);")
STORE = re.compile(r"\bst\.global((?:\.v\d)?\.b\d+)\s+(\[[^\]]*\]),\s*(.*?);")


def patch(ptx, loads, stores):
    # One policy register, set after the entry's register declarations.
    decls = list(re.finditer(r"^\s*\.reg [^\n]*\n", ptx, re.M))
    at = decls[-1].end()
    ptx = (ptx[:at] + "\t.reg .b64 \t%rdpolicy;\n"
           "\tcreatepolicy.fractional.L2::evict_first.b64 %rdpolicy, 1.0;\n" + ptx[at:])
    if loads:
        ptx = LOAD.sub(r"ld.global.L2::cache_hint\1 \2, \3, %rdpolicy;", ptx)
    if stores:
        ptx = STORE.sub(r"st.global.L2::cache_hint\1 \2, \3, %rdpolicy;", ptx)
    return ptx


for name, loads, stores in [("ptx_efl", True, False), ("ptx_efs", False, True), ("ptx_efb", True, True)]:
    out = os.path.join(root, name)
    os.makedirs(out, exist_ok=True)
    for case in sys.argv[1:]:
        src = os.path.join(root, "ptx_corpus", case)
        open(os.path.join(out, case + ".ptx"), "w").write(patch(open(src + ".ptx").read(), loads, stores))
        shutil.copy(src + ".json", os.path.join(out, case + ".json"))
    print("wrote", out)
