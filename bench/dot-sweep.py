#!/usr/bin/env python3
"""Tensor-core dot sweep: `c = a @ b + c` over shapes, element types, operand layouts and warps.

    python3 bench/dot-sweep.py gen DIR        # here: writes DIR/*.ttir and DIR/*.warps
    python3 bench/dot-sweep.py compile DIR OUT [TRITIUM]  # here: one PTX per kernel and warp count
                                              # (ARCH=sm_80: the mma.sync path instead of wgmma)
    python3 bench/dot-sweep.py check OUT      # GPU machine (PyTorch + CuPy): every kernel against
                                              # a float64 reference on fresh random inputs
                                              # (ONLY=prefix picks kernels, VERBOSE=1 names each)

Each kernel is one program computing a whole M x N tile with K = the full depth, so every
fragment, warp split, instruction shape and K step of the tensor-core lowerings (wgmma on sm_90,
mma.sync where wgmma does not apply) is exercised. Element types: f16, bf16, f32 at tf32
precision, fp8 e4m3 and e5m2 (f32 accumulators), i8 (i32 accumulator), f16 with an f16
accumulator (`f16acc`), and f32 at tf32x3 precision (three tf32 dots). Operands are stored
row-major or transposed (column-major), which changes the register layouts the loads pick and so
the shared layouts and wgmma transposes; B may also be loaded as N x K and transposed with
`tt.trans` in the kernel. An element the kernel does not write keeps its input `c`
and fails the comparison.
"""
import glob
import itertools
import json
import os
import subprocess
import sys

MLIR_TYPE = {"f16": "f16", "bf16": "bf16", "tf32": "f32", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2", "i8": "i8",
             "f16acc": "f16", "tf32x3": "f32"}
# The accumulator (and C) type of each case type.
ACC_TYPE = {"i8": "i32", "f16acc": "f16"}


def cases():
    """(type, m, n, k, a_transposed, b_transposed, warps)."""
    out = []
    for ty in MLIR_TYPE:
        full = ty == "f16"
        ms = [16, 64, 128, 256] if full else [64, 128]
        ns = [8, 32, 64, 128, 256] if full else ([16, 64] if ty == "tf32x3" else [16, 64, 256])
        ks = [16, 64] if ty in ("f16", "bf16", "f16acc") else ([32, 64] if ty in ("tf32", "tf32x3") else [64, 128])
        layouts = [(False, False), (True, False), (False, True), (True, True)] if full else [(False, False), (False, True)]
        for m, n, k in itertools.product(ms, ns, ks):
            for warps in (4, 8):
                # At most 128 accumulator registers per thread.
                if m * n // (32 * warps) > 128:
                    continue
                for ta, tb in layouts:
                    out.append((ty, m, n, k, ta, tb, warps))
    # B given as N x K and transposed in registers (`tt.trans`, as attention's k.T): folded into
    # the shared layout by -tritongpu-optimize-dot-operands on sm_90.
    for ty in ("f16", "tf32", "e4m3"):
        for m, n in itertools.product([64, 128], [64, 128]):
            out.append((ty, m, n, 64, False, "r", 4))
    return out


def pointers(name, arg, rows, cols, ty, transposed):
    # Element (r, c) of a rows x cols operand lives at r * cols + c, or at c * rows + r when the
    # operand is stored transposed.
    row_stride, col_stride = (1, rows) if transposed else (cols, 1)
    return f"""    %{name}_r = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : tensor<{rows}xi32>
    %{name}_c = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : tensor<{cols}xi32>
    %{name}_r2 = tt.expand_dims %{name}_r {{axis = 1 : i32}} : tensor<{rows}xi32> -> tensor<{rows}x1xi32>
    %{name}_rs = arith.constant dense<{row_stride}> : tensor<{rows}x1xi32>
    %{name}_ro = arith.muli %{name}_r2, %{name}_rs : tensor<{rows}x1xi32>
    %{name}_c2 = tt.expand_dims %{name}_c {{axis = 0 : i32}} : tensor<{cols}xi32> -> tensor<1x{cols}xi32>
    %{name}_cs = arith.constant dense<{col_stride}> : tensor<1x{cols}xi32>
    %{name}_co = arith.muli %{name}_c2, %{name}_cs : tensor<1x{cols}xi32>
    %{name}_rb = tt.broadcast %{name}_ro : tensor<{rows}x1xi32> -> tensor<{rows}x{cols}xi32>
    %{name}_cb = tt.broadcast %{name}_co : tensor<1x{cols}xi32> -> tensor<{rows}x{cols}xi32>
    %{name}_o = arith.addi %{name}_rb, %{name}_cb : tensor<{rows}x{cols}xi32>
    %{name}_s = tt.splat %{arg} : !tt.ptr<{ty}> -> tensor<{rows}x{cols}x!tt.ptr<{ty}>>
    %{name} = tt.addptr %{name}_s, %{name}_o : tensor<{rows}x{cols}x!tt.ptr<{ty}>>, tensor<{rows}x{cols}xi32>
"""


def kernel(ty, m, n, k, ta, tb):
    t = MLIR_TYPE[ty]
    acc = ACC_TYPE.get(ty, "f32")
    precision = {"tf32": ", inputPrecision = tf32", "tf32x3": ", inputPrecision = tf32x3"}.get(ty, "")
    if tb == "r":
        # B stored N x K row-major, loaded as such and transposed with tt.trans.
        body = pointers("pa", "a", m, k, t, ta) + pointers("pb", "b", n, k, t, False) + pointers("pc", "c", m, n, acc, False)
        load_b = f"""    %bn = tt.load %pb : tensor<{n}x{k}x!tt.ptr<{t}>>
    %bv = tt.trans %bn {{order = array<i32: 1, 0>}} : tensor<{n}x{k}x{t}> -> tensor<{k}x{n}x{t}>
"""
    else:
        body = pointers("pa", "a", m, k, t, ta) + pointers("pb", "b", k, n, t, tb) + pointers("pc", "c", m, n, acc, False)
        load_b = f"""    %bv = tt.load %pb : tensor<{k}x{n}x!tt.ptr<{t}>>
"""
    return f"""module {{
  tt.func public @dot(%a: !tt.ptr<{t}> {{tt.divisibility = 16 : i32}}, %b: !tt.ptr<{t}> {{tt.divisibility = 16 : i32}}, %c: !tt.ptr<{acc}> {{tt.divisibility = 16 : i32}}) {{
{body}    %av = tt.load %pa : tensor<{m}x{k}x!tt.ptr<{t}>>
{load_b}    %cv = tt.load %pc : tensor<{m}x{n}x!tt.ptr<{acc}>>
    %d = tt.dot %av, %bv, %cv{precision} : tensor<{m}x{k}x{t}> * tensor<{k}x{n}x{t}> -> tensor<{m}x{n}x{acc}>
    tt.store %pc, %d : tensor<{m}x{n}x!tt.ptr<{acc}>>
    tt.return
  }}
}}
"""


def name_of(ty, m, n, k, ta, tb, warps):
    b = "r" if tb == "r" else ("t" if tb else "n")
    return f"dot_{ty}_{m}_{n}_{k}_{'t' if ta else 'n'}{b}_w{warps}"


def gen(directory):
    os.makedirs(directory, exist_ok=True)
    for case in cases():
        ty, m, n, k, ta, tb, warps = case
        with open(f"{directory}/{name_of(*case)}.ttir", "w") as out:
            out.write(kernel(ty, m, n, k, ta, tb))


def compile_all(directory, out, tritium):
    os.makedirs(out, exist_ok=True)
    failed = []
    for path in sorted(glob.glob(f"{directory}/*.ttir")):
        name = os.path.basename(path)[: -len(".ttir")]
        warps = name.rsplit("_w", 1)[1]
        command = [tritium, "compile", path, "--num-warps", warps, "-o", out]
        if os.environ.get("ARCH"):
            # e.g. ARCH=sm_80: the mma.sync path (runs on the H200 too).
            command += ["--arch", os.environ["ARCH"]]
        r = subprocess.run(command, capture_output=True, text=True)
        if r.returncode != 0:
            failed.append(name)
            print(f"COMPILE-FAIL {name}: {r.stderr.strip().splitlines()[:1]}")
    print(f"compiled {len(glob.glob(out + '/*.ptx'))}, failed {len(failed)}")


def check(directory):
    import cupy as cp
    import torch

    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32,
              "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "i8": torch.int8,
              "f16acc": torch.float16, "tf32x3": torch.float32}
    ok = bad = 0
    only = os.environ.get("ONLY", "")
    for meta_path in sorted(glob.glob(f"{directory}/*.json")):
        meta = json.load(open(meta_path))
        name = os.path.basename(meta_path)[: -len(".json")]
        if only and not name.startswith(only):
            continue
        if os.environ.get("VERBOSE"):
            print(name, flush=True)
        _, ty, m, n, k, layout, _warps = name.split("_")
        m, n, k = int(m), int(n), int(k)
        # "r": B stored transposed like "t", transposed in registers by the kernel.
        ta, tb = layout[0] == "t", layout[1] in "tr"
        module = cp.cuda.function.Module()
        module.load(open(f"{directory}/{name}.ptx", "rb").read())
        function = module.get_function(meta["name"])
        if meta["shared"] > 48 * 1024:
            cp.cuda.driver.funcSetAttribute(
                function.ptr, cp.cuda.driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, meta["shared"]
            )
        if ty == "i8":
            a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
            b = torch.randint(-128, 128, (k, n), device="cuda", dtype=torch.int8)
            c = torch.randint(-1 << 20, 1 << 20, (m, n), device="cuda", dtype=torch.int32)
        else:
            a = torch.randn(m, k, device="cuda").to(dtypes[ty])
            b = torch.randn(k, n, device="cuda").to(dtypes[ty])
            c = torch.randn(m, n, device="cuda", dtype=torch.float16 if ty == "f16acc" else torch.float32)
        reference = a.double() @ b.double() + c.double()
        a_mem = a.t().contiguous() if ta else a.contiguous()
        b_mem = b.t().contiguous() if tb else b.contiguous()
        out = c.clone()
        # CuPy has no bfloat16 or fp8: operands travel as their bits.
        bits = {1: torch.int8, 2: torch.int16, 4: torch.int32}[a.element_size()]
        args = (cp.from_dlpack(a_mem.view(bits)), cp.from_dlpack(b_mem.view(bits)), cp.from_dlpack(out))
        function((1, 1, 1), (32 * meta["num_warps"], 1, 1), args, shared_mem=meta["shared"])
        torch.cuda.synchronize()
        # tf32 keeps 10 mantissa bits of each operand: products are off by ~2^-10 relative.
        # Hopper's fp8 tensor cores add the products of one instruction (K = 32) in reduced
        # precision (about 2^-13 relative to the largest term), which Triton gets too.
        # An f16 accumulator rounds every partial sum to 11 bits.
        # tf32x3 (three tf32 dots over split operands) is close to f32.
        tolerance = {"tf32": 2e-2, "i8": 0, "e4m3": 5e-3, "e5m2": 5e-3, "f16acc": 2e-2,
                     "tf32x3": 1e-4}.get(ty, 1e-3)
        error = ((out.double() - reference).abs() / (reference.abs() + 1)).max().item()
        if error <= tolerance:
            ok += 1
        else:
            bad += 1
            print(f"BAD {name} max_rel_err={error:.3e}")
    print(f"dot sweep: {ok} ok, {bad} bad")
    return bad == 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("gen", "compile", "check"):
        sys.exit(__doc__)
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "compile":
        compile_all(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "target/debug/tritium")
    elif not check(sys.argv[2]):
        sys.exit(1)
