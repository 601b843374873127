"""Every kernel of the GPU tutorials (tests/gpu) compiles, without a GPU, for the
specializations the GPU run gives it (so the GPU machine finds no front-end surprise)."""
import json
import os
import re

import pytest

from tritium import _tritium
from tritium.runtime.jit import _module_text

GPU = os.path.join(os.path.dirname(__file__), "gpu")
P16 = "*fp16:16"
P32 = "*fp32:16"


def request(name, kernel, signature, num_warps=4, num_stages=3, persistent_programs=False,
            descriptor_loads=False):
    path = os.path.join(GPU, f"{name}.py")
    with open(path) as f:
        text = _module_text(path, f.read())
    return _tritium.CompileRequest(text, path, kernel, signature, num_warps=num_warps,
                                   num_stages=num_stages, persistent_programs=persistent_programs,
                                   descriptor_loads=descriptor_loads)


def compile_all(requests):
    results = _tritium.compile_many(requests)
    for req, result in zip(requests, results):
        if isinstance(result, BaseException):
            raise result
        assert ".visible .entry" in result.ptx
    return results


def test_vector_add_and_launch_overhead_kernels():
    compile_all([
        request("t01_vector_add", "add_kernel", f"{P32}, {P32}, {P32}, i32:16, 1024"),
        request("t01_vector_add", "add_kernel", f"{P32}, {P32}, {P32}, i32, 1024"),
        request("launch_overhead", "small_kernel", f"{P32}, {P32}, {P32}, i32:16, 1024"),
        request("launch_overhead", "many_args_kernel",
                f"{P32}, {P32}, {P32}, i32:16, i32:16, i32:16, 1, 1, i32:16, 1, 1, 1, fp32, 1024"),
    ])


def test_fused_softmax_kernel():
    compile_all([
        request("t02_fused_softmax", "softmax_kernel", f"{P32}, {P32}, i32:16, i32:16, i32, i32, 1024, 4",
                num_warps=8, num_stages=4),
        request("t02_fused_softmax", "softmax_kernel", f"{P32}, {P32}, i32, i32, i32, i32, 8, 4",
                num_warps=8, num_stages=4),
    ])


MATMUL_CONFIGS = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                  (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2)]


def test_matmul_kernel_every_autotune_config():
    sig = f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
    requests = [request("t03_matmul", "matmul_kernel", f'{sig}, {bm}, {bn}, {bk}, 8, ""', num_warps=w,
                        num_stages=s) for bm, bn, bk, s, w in MATMUL_CONFIGS]
    # Ragged sizes, a transposed B (strides 1 and 250) and the fused activation.
    ragged = f"{P16}, {P16}, {P16}, i32, i32, i32, i32, 1, 1, i32, i32:16, 1"
    requests.append(request("t03_matmul", "matmul_kernel", f'{ragged}, 64, 128, 32, 8, "leaky_relu"'))
    results = compile_all(requests)
    assert "wgmma" in results[0].ptx


def test_persistent_programs_take_matmul_not_attention():
    # With persistent programs (the package's default), tutorial 03's kernel loops over the
    # requested programs, which it takes as one more i32 parameter, announced in its metadata;
    # attention (a grid of heads, program_id(1)) and the hand-written persistent kernel
    # (tl.num_programs) keep their parameters. Off, nothing changes.
    sig = f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
    strides = "i32:16, i32:16, i32:16, 1"
    attention = (f"{P16}, {P16}, {P16}, fp32, {P32}, {P16}, {strides}, {strides}, {strides}, {strides}, "
                 f"i32, i32, 1024, 64, 128, 64, 3")
    persistent = f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 132"
    on = compile_all([
        request("t03_matmul", "matmul_kernel", f'{sig}, 128, 256, 64, 8, ""', num_warps=8,
                persistent_programs=True),
        request("t06_fused_attention", "_attn_fwd", attention, persistent_programs=True),
        request("t11_persistent_matmul", "matmul_persistent_kernel", f"{persistent}, False",
                num_warps=8, persistent_programs=True),
    ])
    off, = compile_all([request("t03_matmul", "matmul_kernel", f'{sig}, 128, 256, 64, 8, ""', num_warps=8)])

    def params(result):
        return result.ptx.count(".param .")

    assert json.loads(on[0].metadata_json).get("virtual_programs") is True
    assert params(on[0]) == params(off) + 1
    assert "virtual_programs" not in off.metadata_json
    assert on[0].ptx.count("wgmma.mma_async") == off.ptx.count("wgmma.mma_async")
    for kept in on[1:]:
        assert "virtual_programs" not in kept.metadata_json


def test_descriptor_loads_take_persistent_matmul_tiles():
    # With descriptor loads and persistent programs (the package's defaults), tutorial 03's A and
    # B tiles are TMA copies through tensor maps the launcher encodes from the kernel's arguments
    # (the metadata's host_descriptors: A over a_ptr as [M, K] with row stride stride_am, B over
    # b_ptr as [K, N]), not cp.async copies, and the kernel makes none (no global scratch), one
    # program a tile too; with descriptor loads off nothing changes. fp8 tiles keep their copies
    # (wgmma reads an 8-bit B K-major only).
    sig = f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
    tile = f'{sig}, 128, 256, 64, 8, ""'
    both, persistent_only, tile_only = compile_all([
        request("t03_matmul", "matmul_kernel", tile, num_warps=8, persistent_programs=True,
                descriptor_loads=True),
        request("t03_matmul", "matmul_kernel", tile, num_warps=8, persistent_programs=True),
        request("t03_matmul", "matmul_kernel", tile, num_warps=8, descriptor_loads=True),
    ])

    def scratch(result):
        return json.loads(result.metadata_json)["global_scratch_size"]

    assert "cp.async.bulk.tensor" in both.ptx and "cp.async.cg" not in both.ptx
    assert "tensormap.replace" not in both.ptx and scratch(both) == 0
    a, b = json.loads(both.metadata_json)["host_descriptors"]
    assert (a["base"], a["shape"], a["strides"]) == (0, [{"arg": 3}, {"arg": 5}], [{"arg": 6}, {"value": 1}])
    # (Parameter 7 is stride_bk: stride_ak, specialized to 1, is not a parameter.)
    assert (b["base"], b["shape"], b["strides"]) == (1, [{"arg": 5}, {"arg": 4}], [{"arg": 7}, {"value": 1}])
    assert (a["block_size"], a["elem_type"]) == ([128, 64], 6)
    assert "cp.async.bulk.tensor" in tile_only.ptx and "cp.async.cg" not in tile_only.ptx
    assert json.loads(tile_only.metadata_json)["host_descriptors"] == [a, b]
    assert "tensormap.replace" not in tile_only.ptx and scratch(tile_only) == 0
    assert "cp.async.bulk.tensor" not in persistent_only.ptx and "cp.async.cg" in persistent_only.ptx
    assert scratch(persistent_only) == 0 and "host_descriptors" not in persistent_only.metadata_json
    assert both.ptx.count("wgmma.mma_async") == persistent_only.ptx.count("wgmma.mma_async")


def test_matmul_kernel_two_warp_configs_use_swizzled_mma_v2_rings():
    # Two warps cannot issue a wgmma: mma.sync fed by ldmatrix from cp.async rings of
    # num_stages - 1 = 4 swizzled buffers (as Triton's 24 KiB for 64x32x32 at 5 stages).
    sig = f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
    result, = compile_all([request("t03_matmul", "matmul_kernel", f'{sig}, 64, 32, 32, 8, ""', num_warps=2,
                                   num_stages=5)])
    assert "mma.sync" in result.ptx and "ldmatrix" in result.ptx
    assert f'"shared":{4 * (64 * 32 + 32 * 32) * 2}' in result.metadata_json.replace(" ", "")


def test_matmul_variant_kernels():
    # Batched (3-D grid) and block-pointer matmuls at the timed config: both pipelined on wgmma.
    batched = (f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 1, "
               "i32:16, i32:16, 1, 128, 256, 64")
    block = f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64"
    for result in compile_all([
        request("matmul_variants", "batched_matmul_kernel", batched, num_warps=8, num_stages=3),
        request("matmul_variants", "block_ptr_matmul_kernel", block, num_warps=8, num_stages=3),
    ]):
        assert "wgmma" in result.ptx and "cp.async.cg.shared.global" in result.ptx


def test_matmul_dtype_kernels():
    # Tutorial 03's matmul in bf16 and tf32 (every autotune config; those past the shared memory
    # limit compile and are pruned at launch) and fp8 with B stored transposed (strides 1, K).
    rest = "i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
    requests = []
    for pointers in (f"*bf16:16, *bf16:16, {P16}", f"{P32}, {P32}, {P32}"):
        requests += [request("matmul_dtypes", "matmul_kernel", f"{pointers}, {rest}, {bm}, {bn}, {bk}, 8",
                             num_warps=w, num_stages=s) for bm, bn, bk, s, w in MATMUL_CONFIGS]
    fp8 = f"*fp8e4nv:16, *fp8e4nv:16, {P16}, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1"
    requests.append(request("matmul_dtypes", "matmul_kernel", f"{fp8}, 128, 256, 64, 8", num_warps=8,
                            num_stages=3))
    results = compile_all(requests)
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" in results[0].ptx
    assert "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32" in results[len(MATMUL_CONFIGS)].ptx
    assert "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3" in results[-1].ptx


def test_layer_norm_kernels():
    compile_all([
        request("t05_layer_norm", "_layer_norm_fwd_fused",
                f"{P16}, {P16}, {P16}, {P16}, {P32}, {P32}, i32:16, i32:16, fp32, 8192", num_warps=8),
        request("t05_layer_norm", "_layer_norm_bwd_dx_fused",
                f"{P16}, {P16}, {P16}, {P16}, {P16}, {P16}, {P32}, {P32}, *i32:16, i32:16, i32:16, 96, 8192",
                num_warps=8),
        request("t05_layer_norm", "_layer_norm_bwd_dwdb", f"{P16}, {P16}, {P16}, {P16}, i32, i32:16, 32, 128"),
        request("t05_layer_norm", "_layer_norm_fwd_fused",
                f"{P32}, {P32}, {P32}, {P32}, {P32}, {P32}, i32, i32, fp32, 1024", num_warps=4),
    ])


@pytest.mark.parametrize("stage", [1, 3])
def test_fused_attention_kernel(stage):
    # (Z, H, N_CTX, HEAD_DIM) = (2, 4, 1024, 64), contiguous.
    strides = "i32:16, i32:16, i32:16, 1"
    sig = (f"{P16}, {P16}, {P16}, fp32, {P32}, {P16}, {strides}, {strides}, {strides}, {strides}, "
           f"i32, i32, 1024, 64")
    compile_all([
        request("t06_fused_attention", "_attn_fwd", f"{sig}, 128, 64, {stage}", num_warps=4, num_stages=3),
        request("t06_fused_attention", "_attn_fwd", f"{sig}, 64, 32, {stage}", num_warps=4, num_stages=4),
    ])


@pytest.mark.parametrize("causal", ["True", "False"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_fused_attention_backward_kernels(causal, head_dim):
    # (Z, H, N_CTX) = (2, 4, 1024), contiguous: the tutorial's backward configuration.
    strides = "i32:16, i32:16, i32:16, 1"
    bwd = (f"{P16}, {P16}, {P16}, fp32, {P16}, {P16}, {P16}, {P16}, {P32}, {P32}, {strides}, i32, i32:16, "
           f"32, 128, 128, 32, 2, {head_dim}, {causal}")
    results = compile_all([
        request("t06_fused_attention", "_attn_bwd_preprocess", f"{P16}, {P16}, {P32}, i32, i32, i32:16, 128, {head_dim}"),
        request("t06_fused_attention", "_attn_bwd", bwd, num_warps=4, num_stages=5),
    ])
    # The dK/dV loop's three dots and the dQ loop's two go on tensor cores (sm_90: wgmma).
    assert "wgmma" in results[1].ptx


@pytest.mark.parametrize("flatten", ["True", "False"])
def test_persistent_matmul_kernel(flatten):
    # 4096^3 on 132 SMs: the tile loop strides by the SM count, the K loop is pipelined.
    strides = "i32:16, 1, i32:16, 1, i32:16, 1"
    result, = compile_all([
        request("t11_persistent_matmul", "matmul_persistent_kernel",
                f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, {strides}, 128, 256, 64, 8, 132, {flatten}",
                num_warps=8, num_stages=3),
    ])
    assert "wgmma" in result.ptx
    # Both operands are staged by cp.async (B's columns are contiguous by tl.max_contiguous on a
    # tl.where, which the axis analysis must honour, also through the fused loop's carried
    # offsets): 4 copies of A and 8 of B per stage, for the two prologue stages and the loop.
    assert result.ptx.count("cp.async.cg.shared.global") == 3 * (4 + 8)
    # The wgmma stays in flight across iterations; fused, each tile's store first waits for it
    # in the loop (a second wait for none pending besides the one after the loop).
    waits = 2 if flatten == "True" else 1
    assert result.ptx.count("wgmma.wait_group.sync.aligned 0;") == waits
    assert result.ptx.count("wgmma.wait_group.sync.aligned 1;") == 1


def test_descriptor_matmul_kernels():
    # Host-side descriptors (tutorial 09): the tiled matmul and the persistent one whose
    # tile loop is fused with its K loop.
    a, c = "tensordesc<fp16[128, 64]>", "tensordesc<fp16[128, 128]>"
    wide_b, wide_c = "tensordesc<fp16[64, 256]>", "tensordesc<fp16[128, 256]>"
    tiled, persistent = compile_all([
        request("t09_descriptors", "matmul_descriptor_kernel",
                f"{a}, tensordesc<fp16[64, 128]>, {c}, i32:16, 128, 128, 64", num_warps=8),
        request("t09_descriptors", "matmul_descriptor_persistent_kernel",
                f"{a}, {wide_b}, {wide_c}, i32:16, i32:16, i32:16, 128, 256, 64, 8, 132", num_warps=8),
    ])
    tma_load = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    for result in (tiled, persistent):
        assert result.ptx.count("wgmma.wait_group.sync.aligned 1;") == 1
    # Fused, the loads of the next tiles are TMA copies issued ahead like the tiled kernel's (A
    # one 128x64 box; B four 64x64 boxes, one copy instruction each of warps 0-3 runs with its
    # own box; two stages before the loop, one in it), and each tile's store first waits for
    # the wgmma in flight.
    assert persistent.ptx.count(tma_load) == 3 * (1 + 1)
    assert persistent.ptx.count("wgmma.wait_group.sync.aligned 0;") == 2


def test_batched_pointer_matmul_reads_through_launcher_descriptors():
    # The batched matmul of pointer tiles (matmul_variants), each program's base moved by
    # program_id(2) * stride: with descriptor loads, A and B are read through 3-D descriptors
    # (a leading batch dimension of one element, extent the programs along z) the launcher
    # encodes; pipelined like the 2-D kernel's. Without, cp.async copies.
    sig = (f"{P16}, {P16}, {P16}, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 1, "
           "i32:16, i32:16, 1, 128, 256, 64")
    pointers, descriptors = compile_all([
        request("matmul_variants", "batched_matmul_kernel", sig, num_warps=8, num_stages=3,
                descriptor_loads=flag) for flag in (False, True)])
    tma_load = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
    assert tma_load not in pointers.ptx and "cp.async.cg.shared.global" in pointers.ptx
    ptx = descriptors.ptx
    assert "cp.async.cg.shared.global" not in ptx and "tensormap.replace" not in ptx
    # Three stages of A's one 128x64 box and B's four 64x64 boxes (one copy instruction, a box
    # a warp).
    assert ptx.count(tma_load) == 3 * (1 + 1)
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert ptx.count("prefetch.tensormap") == 2
    meta = json.loads(descriptors.metadata_json)
    a, b = meta["host_descriptors"]
    # Arguments: a_ptr 0, b_ptr 1, M 3, N 4, K 5, stride_ab 6, stride_am 7, stride_bb 8, stride_bk 9
    # (the unit strides are specialized away).
    assert (a["base"], b["base"]) == (0, 1)
    assert a["shape"] == [{"programs": 2}, {"arg": 3}, {"arg": 5}]
    assert a["strides"] == [{"arg": 6}, {"arg": 7}, {"value": 1}]
    assert b["shape"] == [{"programs": 2}, {"arg": 5}, {"arg": 4}]
    assert b["strides"] == [{"arg": 8}, {"arg": 9}, {"value": 1}]
    assert a["block_size"] == [1, 128, 64] and b["block_size"] == [1, 64, 64]


@pytest.mark.parametrize("defaults", [False, True])
def test_batched_descriptor_matmul_kernel(defaults):
    # A batched matmul through 3-D descriptors made in the kernel, its 1x128x64 and 1x64x256
    # blocks reshaped to 2-D (matmul_variants), compiled as the package does by default
    # (persistent programs and descriptor loads on) and with both off: -triton-combine folds the
    # reshapes into rank-reduced loads and store, which then get the 2-D descriptor matmul's code.
    sig = f"{P16}, {P16}, {P16}, i32, i32:16, i32:16, i32:16, 128, 256, 64"
    result, = compile_all([
        request("matmul_variants", "batched_descriptor_matmul_kernel", sig, num_warps=8,
                num_stages=3, persistent_programs=defaults, descriptor_loads=defaults),
    ])
    ptx = result.ptx
    tma_load = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
    # TMA copies issued two stages ahead of the loop and one in it (A one 128x64 box, B four
    # 64x64 boxes per stage as one copy instruction, a box a warp), after the in-flight wgmma's
    # wait; the tile stored in four boxes.
    prologue, loop = ptx.split("mbarrier.try_wait", 1)
    assert prologue.count(tma_load) == 2 * (1 + 1)
    body, epilogue = loop.split("wgmma.wait_group.sync.aligned 0;", 1)
    assert body.count(tma_load) == 1 + 1 and tma_load not in epilogue
    assert body.index("wgmma.wait_group.sync.aligned 1;") < body.index(tma_load)
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert epilogue.count("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group") == 4
    # A is read from shared memory like B: each wgmma takes two matrix descriptors after its
    # accumulators, no A registers; no operand goes through registers (only the result, stored
    # for the TMA store after the loop).
    wgmmas = [line for line in ptx.splitlines() if "wgmma.mma_async" in line]
    assert len(wgmmas) == 4
    assert all(re.search(r"\}, %rd\d+, %rd\d+, ", line) for line in wgmmas)
    assert "ld.shared" not in ptx and "stmatrix" not in prologue + body
    # With descriptor loads (the package's default) the three descriptors, strides `M * K`
    # included, come from the launcher (arguments: B 3, M 4, N 5, K 6); without, every program
    # builds them in its global scratch.
    meta = json.loads(result.metadata_json)
    if defaults:
        a, b, c = meta["host_descriptors"]
        assert a["shape"] == [{"arg": 3}, {"arg": 4}, {"arg": 6}]
        assert a["strides"] == [{"product": [{"arg": 4}, {"arg": 6}]}, {"arg": 6}, {"value": 1}]
        assert b["strides"][0] == {"product": [{"arg": 6}, {"arg": 5}]}
        assert c["strides"][0] == {"product": [{"arg": 4}, {"arg": 5}]}
        assert "tensormap.replace" not in ptx and meta["global_scratch_size"] == 0
    else:
        assert "host_descriptors" not in meta and "tensormap.replace" in ptx


@pytest.mark.parametrize("aligned", ["True", "False"])
def test_grouped_matmul_kernel(aligned):
    # Each problem's pointers and sizes are read from device arrays (tt.int_to_ptr) inside a
    # while loop. With the ALIGNED hints (tl.multiple_of reassigning a name inside the loop, so
    # the hint must land on the load before it) the K loop's copies are 16 bytes and pipelined:
    # 4 copies of A and 4 of B per stage at 128x128x64 on 8 warps, two stages ahead of the loop
    # and one in it. Without them the masks along K may change at any element: no cp.async.
    addresses = "*i64:16, *i64:16, *i64:16, *i32:16, *i32:16, i32"
    result, = compile_all([
        request("t08_grouped_gemm", "grouped_matmul_kernel", f"{addresses}, 132, 128, 128, 64, {aligned}",
                num_warps=8, num_stages=3),
    ])
    assert "wgmma" in result.ptx
    copies = result.ptx.count("cp.async.cg.shared.global")
    assert copies == (3 * (4 + 4) if aligned == "True" else 0)


def test_low_memory_dropout_kernel():
    result, = compile_all([
        request("t04_low_memory_dropout", "seeded_dropout_kernel", f"{P32}, {P32}, i32, fp32, i32, 1024"),
    ])
    # Philox's rounds multiply by its two round constants (10 rounds): no inline asm for them.
    assert "mul.hi" in result.ptx or "mul.wide.u32" in result.ptx


@pytest.mark.parametrize("dtype", ["fp32", "fp64"])
def test_extern_function_kernels(dtype):
    p = f"*{dtype}:16"
    functions = ["acos", "atan", "sinh", "cosh", "expm1", "log1p", "cbrt", "erf"]
    results = compile_all(
        [request("t07_extern_functions", "asin_kernel", f"{p}, {p}, i32, 1024"),
         request("t07_extern_functions", "atan2_kernel", f"{p}, {p}, {p}, i32, 1024")]
        + [request("t07_extern_functions", "unary_kernel", f'{p}, {p}, i32, "{f}", 1024') for f in functions])
    # Computed in the type asked for: fp64 arithmetic only for fp64 (libdevice is not linked:
    # every function is Tritium's own).
    for result in results:
        assert ("f64" in result.ptx) == (dtype == "fp64")


def test_dependent_launch_kernel():
    plain, dependent = compile_all([
        request("t12_dependent_launch", "add_kernel", f"{P32}, {P32}, {P32}, i32, 1024, False"),
        request("t12_dependent_launch", "add_kernel", f"{P32}, {P32}, {P32}, i32, 1024, True"),
    ])
    assert "griddepcontrol" not in plain.ptx
    # The wait comes before the first load, the release of dependents after the last one.
    text = dependent.ptx
    wait, release = text.index("griddepcontrol.wait"), text.index("griddepcontrol.launch_dependents")
    assert wait < text.index("ld.global") and text.rindex("ld.global") < release


def test_descriptors_of_arguments_come_from_the_launcher():
    # Tutorial 09's in-kernel descriptors of the kernel's own arguments become parameters the
    # launcher encodes (host_descriptors: x_ptr and out_ptr as [M, N] with row stride N); with a
    # base computed in the kernel they are built there, in the launch's global scratch, as Triton
    # builds both.
    args, offset = compile_all([
        request("t09_descriptors", "scale_rows_kernel", f"{P32}, {P32}, i32, i32:16, 64, 64",
                descriptor_loads=True),
        request("t09_descriptors", "scale_rows_offset_kernel",
                f"{P32}, {P32}, i32, i32:16, i32, 64, 64", descriptor_loads=True),
    ])
    meta = json.loads(args.metadata_json)
    x, out = meta["host_descriptors"]
    assert (x["base"], out["base"]) == (0, 1)
    for d in (x, out):
        assert d["shape"] == [{"arg": 2}, {"arg": 3}] and d["strides"] == [{"arg": 3}, {"value": 1}]
        assert d["block_size"] == [64, 32] and d["elem_type"] == 7
    assert "tensormap.replace" not in args.ptx and meta["global_scratch_size"] == 0
    assert args.ptx.count("prefetch.tensormap") == 2
    meta = json.loads(offset.metadata_json)
    assert "host_descriptors" not in meta and meta["global_scratch_size"] > 0
    assert "tensormap.replace" in offset.ptx
