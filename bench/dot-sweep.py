#!/usr/bin/env python3
"""Tensor-core dot sweep: `c = a @ b + c` over many shapes, element types and warp counts.

    python3 bench/dot-sweep.py gen DIR        # here: writes DIR/*.ttir (no dependencies)
    for f in DIR/*.ttir; do for w in 1 4 8; do ... tritium compile ...; done; done   # see docs/gpu-testing.md
    python3 bench/dot-sweep.py check PTXDIR   # GPU machine (PyTorch + CuPy): every kernel against
                                              # a float64 reference on fresh random inputs

Each kernel is one program computing a whole M x N tile with K = the full depth, so every
fragment, warp split and K step of the mma lowering is exercised; an element the kernel does not
write keeps its input `c` and fails the comparison.
"""
import glob
import itertools
import json
import os
import sys

SHAPES = list(itertools.product([16, 32, 64, 128], [8, 16, 32, 64, 256], [16, 32, 64]))
TYPES = ["f16", "bf16"]


def pointers(name, arg, rows, cols, ty):
    return f"""    %{name}_r = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : tensor<{rows}xi32>
    %{name}_c = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : tensor<{cols}xi32>
    %{name}_r2 = tt.expand_dims %{name}_r {{axis = 1 : i32}} : tensor<{rows}xi32> -> tensor<{rows}x1xi32>
    %{name}_st = arith.constant dense<{cols}> : tensor<{rows}x1xi32>
    %{name}_ro = arith.muli %{name}_r2, %{name}_st : tensor<{rows}x1xi32>
    %{name}_c2 = tt.expand_dims %{name}_c {{axis = 0 : i32}} : tensor<{cols}xi32> -> tensor<1x{cols}xi32>
    %{name}_rb = tt.broadcast %{name}_ro : tensor<{rows}x1xi32> -> tensor<{rows}x{cols}xi32>
    %{name}_cb = tt.broadcast %{name}_c2 : tensor<1x{cols}xi32> -> tensor<{rows}x{cols}xi32>
    %{name}_o = arith.addi %{name}_rb, %{name}_cb : tensor<{rows}x{cols}xi32>
    %{name}_s = tt.splat %{arg} : !tt.ptr<{ty}> -> tensor<{rows}x{cols}x!tt.ptr<{ty}>>
    %{name} = tt.addptr %{name}_s, %{name}_o : tensor<{rows}x{cols}x!tt.ptr<{ty}>>, tensor<{rows}x{cols}xi32>
"""


def kernel(ty, m, n, k):
    body = pointers("pa", "a", m, k, ty) + pointers("pb", "b", k, n, ty) + pointers("pc", "c", m, n, "f32")
    return f"""module {{
  tt.func public @dot(%a: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}, %b: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}, %c: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}) {{
{body}    %av = tt.load %pa : tensor<{m}x{k}x!tt.ptr<{ty}>>
    %bv = tt.load %pb : tensor<{k}x{n}x!tt.ptr<{ty}>>
    %cv = tt.load %pc : tensor<{m}x{n}x!tt.ptr<f32>>
    %d = tt.dot %av, %bv, %cv : tensor<{m}x{k}x{ty}> * tensor<{k}x{n}x{ty}> -> tensor<{m}x{n}xf32>
    tt.store %pc, %d : tensor<{m}x{n}x!tt.ptr<f32>>
    tt.return
  }}
}}
"""


def gen(directory):
    os.makedirs(directory, exist_ok=True)
    for ty in TYPES:
        for m, n, k in SHAPES:
            with open(f"{directory}/dot_{ty}_{m}_{n}_{k}.ttir", "w") as out:
                out.write(kernel(ty, m, n, k))


def check(directory):
    import cupy as cp
    import torch

    ok = bad = 0
    for meta_path in sorted(glob.glob(f"{directory}/*.json")):
        meta = json.load(open(meta_path))
        name = os.path.basename(meta_path)[: -len(".json")]
        _, ty, m, n, k, _warps = name.split("_")
        m, n, k = int(m), int(n), int(k)
        dtype = torch.float16 if ty == "f16" else torch.bfloat16
        module = cp.cuda.function.Module()
        module.load(open(f"{directory}/{name}.ptx", "rb").read())
        function = module.get_function(meta["name"])
        if meta["shared"] > 48 * 1024:
            cp.cuda.driver.funcSetAttribute(
                function.ptr, cp.cuda.driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, meta["shared"]
            )
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(k, n, device="cuda").to(dtype)
        c = torch.randn(m, n, device="cuda", dtype=torch.float32)
        reference = a.double() @ b.double() + c.double()
        out = c.clone()
        # CuPy has no bfloat16: 16-bit operands travel as their bits.
        args = (cp.from_dlpack(a.view(torch.int16)), cp.from_dlpack(b.view(torch.int16)), cp.from_dlpack(out))
        function((1, 1, 1), (32 * meta["num_warps"], 1, 1), args, shared_mem=meta["shared"])
        torch.cuda.synchronize()
        error = ((out.double() - reference).abs() / (reference.abs() + 1)).max().item()
        if error < 1e-3:
            ok += 1
        else:
            bad += 1
            print(f"BAD {name} max_rel_err={error:.3e}")
    print(f"dot sweep: {ok} ok, {bad} bad")
    return bad == 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("gen", "check"):
        sys.exit(__doc__)
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif not check(sys.argv[2]):
        sys.exit(1)
