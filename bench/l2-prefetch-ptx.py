"""Experiment: one-row corpus kernels whose thread 0 first asks the copy engine to prefetch into
L2 the row of the program D programs ahead (`cp.async.bulk.prefetch.L2.global`, sm_90), so that
the bytes in flight no longer depend on how many blocks an SM holds.

    python3 bench/l2-prefetch-ptx.py D...      (here; writes .device/ptx_pfD/ from .device/ptx_corpus)

then on the GPU machine `CAPS=6,5 python3 bench/ptx-variants.py CASES ptx_corpus ptx_pfD...`.
A hand patch of Tritium's PTX (the prefetch is a hint: no value changes), to decide whether a
compiler pass is worth writing. Measured in session 36 (docs/benchmarks.md): 0-11% slower one
wave ahead, 22-37% two waves ahead, on an H100 capped or not; no pass was written."""
import json
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".device")
# case: (row pointer parameter, row stride parameter (elements), element bytes, row bytes)
KERNELS = {
    "softmax_w4096_bf16": (1, 2, 2, 8192),
    "rmsnorm_fwd_bf16": (0, 3, 2, 8192),
    "layernorm_fwd_f16": (0, 6, 2, 8192),
    "argmax_rows": (0, 2, 4, 16000),
}

for ahead in map(int, sys.argv[1:]):
    out = os.path.join(root, f"ptx_pf{ahead}")
    os.makedirs(out, exist_ok=True)
    for case, (ptr, stride, elem, row) in KERNELS.items():
        src = os.path.join(root, "ptx_corpus", case)
        ptx = open(src + ".ptx").read()
        name = json.load(open(src + ".json"))["name"]
        block = f"""
	{{
	.reg .b32 %pfc, %pfn, %pft, %pfs;
	.reg .b64 %pfa, %pfo;
	.reg .pred %pfp, %pfq;
	mov.u32 %pfc, %ctaid.x;
	mov.u32 %pfn, %nctaid.x;
	mov.u32 %pft, %tid.x;
	add.u32 %pfc, %pfc, {ahead};
	setp.lt.u32 %pfp, %pfc, %pfn;
	setp.eq.u32 %pfq, %pft, 0;
	and.pred %pfp, %pfp, %pfq;
	ld.param.u32 %pfs, [{name}_param_{stride}];
	mul.wide.u32 %pfo, %pfc, %pfs;
	mul.lo.u64 %pfo, %pfo, {elem};
	ld.param.u64 %pfa, [{name}_param_{ptr}];
	add.u64 %pfa, %pfa, %pfo;
	@%pfp cp.async.bulk.prefetch.L2.global [%pfa], {row};
	}}
"""
        first_param = re.search(r"\n\s*ld\.param", ptx)
        patched = ptx[:first_param.start()] + block + ptx[first_param.start():]
        open(os.path.join(out, case + ".ptx"), "w").write(patched)
        open(os.path.join(out, case + ".json"), "w").write(open(src + ".json").read())
    print("wrote", out)
