"""`import tritium` without a GPU: names, compile-only, caches, specialization, errors."""
import importlib
import os
import sys
import textwrap

import pytest

import tritium
import tritium.language as tl
from conftest import FakeTensor, has_gpu

import kernels

ADD_SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}


def load_module(tmp_path, name, text):
    """Writes `text` to tmp_path/name.py and imports it (a fresh module each time)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop(name, None)
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


# ----- import and names -----

def test_names_of_triton_and_triton_language():
    for name in ["jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "compile",
                 "CompilationError", "OutOfResources", "testing", "language", "runtime"]:
        assert hasattr(tritium, name), name
    assert tritium.compiler.ASTSource is tritium.ASTSource
    assert callable(tritium.testing.do_bench) and callable(tritium.testing.assert_close)
    assert callable(tritium.testing.do_bench_cudagraph)
    for name in ["float16", "bfloat16", "float32", "float64", "int1", "int8", "int32", "int64",
                 "uint8", "float8e4nv", "float8e5", "constexpr", "pointer_type",
                 "program_id", "arange", "load", "store", "dot", "sum", "max", "where", "exp",
                 "zeros", "full", "atomic_add", "atomic_cas", "make_block_ptr", "advance",
                 "static_range", "range", "cdiv", "sigmoid", "softmax", "rand", "associative_scan"]:
        assert hasattr(tl, name), name
    assert tl.float16.name == "fp16" and tl.float32.is_floating() and tl.int32.is_int_signed()
    assert callable(tl.math.exp2)
    from tritium.language.extra import libdevice
    assert callable(libdevice.tanh)
    # Every function the front end compiles is there, and only those.
    assert set(tl.FUNCTIONS) <= set(dir(tl))
    assert "dot_scaled" not in tl.FUNCTIONS


def test_language_functions_only_run_inside_kernels():
    with pytest.raises(RuntimeError, match="only be called inside a @tritium.jit"):
        tl.load(None)
    with pytest.raises(RuntimeError, match="outside of the scope of a kernel"):
        kernels.add_kernel(1, 2, 3, 4, 5)


def test_cdiv_next_power_of_2_config():
    assert tritium.cdiv(10, 3) == 4 and tritium.cdiv(9, 3) == 3
    assert [tritium.next_power_of_2(n) for n in (0, 1, 2, 3, 1000, 1024)] == [1, 1, 2, 4, 1024, 1024]
    c = tritium.Config({"BLOCK_M": 128}, num_warps=8, num_stages=4)
    assert c.all_kwargs() == {"BLOCK_M": 128, "num_warps": 8, "num_stages": 4, "num_ctas": 1}
    assert str(c) == "BLOCK_M: 128, num_warps: 8, num_ctas: 1, num_stages: 4, maxnreg: None"


def test_assert_close():
    tritium.testing.assert_close([1.0, 2.0], [1.0, 2.001])
    with pytest.raises(AssertionError):
        tritium.testing.assert_close([1.0, 2.0], [1.0, 2.5], atol=1e-3)


# ----- compile-only -----

def test_compile_ast_source_returns_handle_with_asm():
    k = tritium.compile(tritium.compiler.ASTSource(kernels.add_kernel, signature=ADD_SIGNATURE,
                                                   constexprs={"BLOCK_SIZE": 1024}))
    assert set(k.asm) == {"ttir", "ttgir", "llir", "ptx"}
    assert ".visible .entry add_kernel(" in k.asm["ptx"]
    assert ".target sm_90a" in k.asm["ptx"]
    assert "tt.func public @add_kernel" in k.asm["ttir"]
    assert "ttg.num-warps" in k.asm["ttgir"] and "define" in k.asm["llir"]
    md = k.metadata
    assert md.name == "add_kernel" and md.num_warps == 4 and md.num_stages == 3
    assert md.target.arch == 90 and md.hash == k.hash
    # Line tables point at the kernel's file.
    assert "kernels.py" in k.asm["ptx"]
    assert not k.cache_hit


def test_compile_options_target_and_attrs():
    k = tritium.compile(
        tritium.ASTSource(kernels.add_kernel, {**ADD_SIGNATURE, "BLOCK_SIZE": "constexpr"},
                          constexprs={(4,): 256}, attrs={(0,): [["tt.divisibility", 16]]}),
        target=tritium.GPUTarget("cuda", 80, 32), options={"num_warps": 2})
    assert ".target sm_80" in k.asm["ptx"] and k.metadata.num_warps == 2
    assert "tt.divisibility = 16" in k.asm["ttir"]
    assert k.kinds == ["*fp32", "*fp32", "*fp32", "i32"]


def test_compile_missing_constexpr_and_type():
    with pytest.raises(TypeError, match="add_kernel: the signature gives no constexpr value for parameter 'BLOCK_SIZE'"):
        tritium.compile(tritium.ASTSource(kernels.add_kernel, ADD_SIGNATURE))
    sig = dict(ADD_SIGNATURE)
    del sig["n_elements"]
    with pytest.raises(TypeError, match="no type for parameter 'n_elements'"):
        tritium.compile(tritium.ASTSource(kernels.add_kernel, sig, {"BLOCK_SIZE": 64}))


# ----- caches -----

def test_disk_cache_hit_and_unrelated_change(tmp_path):
    src = """
        import tritium as triton
        import tritium.language as tl

        @triton.jit
        def helper(x):
            return x + 1

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)))
        """
    m1 = load_module(tmp_path, "cache_a", src)
    source = tritium.ASTSource(m1.k, {"x_ptr": "*fp32"}, {"BLOCK": 128})
    first = tritium.compile(source)
    assert not first.cache_hit
    again = tritium.compile(tritium.ASTSource(m1.k, {"x_ptr": "*fp32"}, {"BLOCK": 128}))
    assert again.cache_hit and again.hash == first.hash
    assert again.asm == first.asm
    # A different specialization is another entry.
    other = tritium.compile(tritium.ASTSource(m1.k, {"x_ptr": "*fp32"}, {"BLOCK": 256}))
    assert not other.cache_hit and other.hash != first.hash
    # Host code added below the kernels changes nothing the kernel depends on.
    m2 = load_module(tmp_path, "cache_a", src + "\n        def host():\n            return 42\n")
    assert tritium.compile(tritium.ASTSource(m2.k, {"x_ptr": "*fp32"}, {"BLOCK": 128})).cache_hit


def test_cache_invalidated_when_a_called_helper_changes(tmp_path):
    src = """
        import tritium as triton
        import tritium.language as tl

        @triton.jit
        def helper(x):
            return x + {}

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)))
        """
    m1 = load_module(tmp_path, "cache_b", src.replace("{}", "1"))
    a = tritium.compile(tritium.ASTSource(m1.k, {"x_ptr": "*fp32"}, {"BLOCK": 128}))
    m2 = load_module(tmp_path, "cache_b", src.replace("{}", "2"))
    assert m2.k.cache_key != m1.k.cache_key
    b = tritium.compile(tritium.ASTSource(m2.k, {"x_ptr": "*fp32"}, {"BLOCK": 128}))
    assert not b.cache_hit and b.hash != a.hash
    assert "2.000000e+00" in b.asm["ttir"] and "2.000000e+00" not in a.asm["ttir"]


def test_cache_key_covers_globals_the_kernel_reads(tmp_path):
    src = """
        import tritium as triton
        import tritium.language as tl
        FACTOR: tl.constexpr = {}

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) * FACTOR)
        """
    m1 = load_module(tmp_path, "cache_c", src.replace("{}", "3"))
    key1 = m1.k.cache_key
    m2 = load_module(tmp_path, "cache_c", src.replace("{}", "5"))
    assert m2.k.cache_key != key1


def test_in_memory_cache_and_specialization_keys():
    x, y, out = FakeTensor(), FakeTensor(), FakeTensor()
    add = kernels.add_kernel
    k1 = add.warmup(x, y, out, 1024, BLOCK_SIZE=256, grid=(4,))
    assert not k1.cache_hit
    # The same specialization: the very same handle, from memory.
    assert add.warmup(x, y, out, 2048, BLOCK_SIZE=256, grid=(8,)) is k1
    # 16-divisibility of ints and pointers, ints equal to 1, constexprs, dtypes, options.
    assert add.warmup(x, y, out, 1000, BLOCK_SIZE=256, grid=(4,)) is not k1
    misaligned = FakeTensor(ptr=0x7F0000000004)
    k_mis = add.warmup(misaligned, y, out, 1024, BLOCK_SIZE=256, grid=(4,))
    assert k_mis is not k1
    assert "tt.divisibility" in k1.asm["ttir"]
    assert add.warmup(x, y, out, 1024, BLOCK_SIZE=512, grid=(4,)) is not k1
    assert add.warmup(x, y, out, 1024, BLOCK_SIZE=256, grid=(4,), num_warps=8) is not k1
    half = FakeTensor(dtype="float16")
    k_half = add.warmup(half, half, half, 1024, BLOCK_SIZE=256, grid=(4,))
    assert "!tt.ptr<f16>" in k_half.asm["ttir"]
    k_one = add.warmup(x, y, out, 1, BLOCK_SIZE=256, grid=(1,))
    assert k_one.runtime_names == ["x_ptr", "y_ptr", "output_ptr"]
    k_big = add.warmup(x, y, out, 2**40, BLOCK_SIZE=256, grid=(1,))
    assert k_big.kinds[-1] == "i64"


def test_specialization_entries():
    spec = kernels.scale_kernel.specialize
    x = FakeTensor()
    key, entries, runtime, kinds = spec((x, FakeTensor(ptr=0x7F0000000008), 4096, 1, 0.5, 128))
    assert entries == ["*fp32:16", "*fp32", "i32:16", "1", "fp32", "128"]
    assert runtime == [0, 1, 2, 4] and kinds == ["*fp32", "*fp32", "i32", "fp32"]
    _, entries, _, _ = spec((x, x, 17, -3, True, 64))
    assert entries == ["*fp32:16", "*fp32:16", "i32", "i32", "i1", "64"]
    _, entries, _, _ = spec((x, x, 2**33, 2**31, 1.5, None))
    assert entries[2:5] == ["i64:16", "i64:16", "fp32"] and entries[5] == "None"


def test_tensor_descriptor_arguments():
    from tritium.tools.tensor_descriptor import TensorDescriptor
    x = FakeTensor(dtype="float16")
    desc = TensorDescriptor(x, [100, 200], [208, 1], [64, 64])
    _, entries, runtime, kinds = kernels.descriptor_kernel.specialize((desc, desc, 64))
    assert entries == ["tensordesc<fp16[64, 64]>", "tensordesc<fp16[64, 64]>", "64"]
    assert runtime == [0, 1] and kinds == entries[:2]
    k = kernels.descriptor_kernel.warmup(desc, desc, BLOCK=64, grid=(2, 4))
    # Each descriptor is followed by its shape (i32) and strides (i64), as in Triton's TTIR.
    assert "%x_desc: !tt.tensordesc<tensor<64x64xf16>>" in k.asm["ttir"]
    assert k.metadata.signature[:5] == ["nvTmaDesc", "i32", "i32", "i64", "i64"]
    assert len(k.metadata.tensordesc_meta) == 2
    assert "cp.async.bulk.tensor.2d" in k.asm["ptx"]
    with pytest.raises(ValueError, match="16 bytes"):
        TensorDescriptor(x, [100, 200], [201, 1], [64, 64])
    with pytest.raises(ValueError, match="powers of two"):
        TensorDescriptor(x, [100, 200], [208, 1], [64, 48])


def test_launch_values_follow_the_signature():
    """What a launch hands the launcher, per runtime parameter: tensors by address, scalars as
    they are, descriptors as (base, shape, strides, nan padding)."""
    from tritium.tools.tensor_descriptor import TensorDescriptor
    x, y = FakeTensor(), FakeTensor(ptr=0x7F0000000100)
    k = kernels.add_kernel.warmup(x, y, x, 1000, BLOCK_SIZE=256, grid=(4,))
    assert k.bound_values((x, y, x, 1000, 256)) == [x.ptr, y.ptr, x.ptr, 1000]
    half = FakeTensor(dtype="float16")
    desc = TensorDescriptor(half, [100, 200], [208, 1], [64, 64])
    k = kernels.descriptor_kernel.warmup(desc, desc, BLOCK=64, grid=(2, 4))
    assert k.bound_values((desc, desc, 64)) == [(half.ptr, [100, 200], [208, 1], False)] * 2


def test_autotune_key_is_key_values_then_tensor_dtypes():
    from tritium.runtime import autotuner
    base = kernels.tuned_kernel.base_fn
    tuner = autotuner.Autotuner(base, base.arg_names, kernels.tuned_kernel.configs, ["n", "not_a_parameter"])
    x, h = FakeTensor(), FakeTensor(dtype="float16")
    assert tuner._key((x, 8192), {}) == (8192, str(x.dtype))
    assert tuner._key((h,), {"n": 64}) == (64, str(h.dtype))
    assert tuner._key((), {"x_ptr": h, "n": 64, "BLOCK": 128}) == (64, str(h.dtype))


def test_do_not_specialize():
    src_kernel = tritium.jit(do_not_specialize=["n_elements"])(kernels.add_kernel.fn)
    _, entries, _, _ = src_kernel.specialize((FakeTensor(),) * 3 + (1, 64))
    assert entries[3] == "i32"


def test_called_helper_and_global_compile():
    k = kernels.scale_kernel.warmup(FakeTensor(), FakeTensor(), 4096, 1, 0.5, BLOCK=128, grid=(1,))
    assert k.kinds == ["*fp32", "*fp32", "i32", "fp32"]
    assert "tt.call" in k.asm["ttir"] or "arith.mulf" in k.asm["ttir"]


def test_heuristics_compute_meta_parameters():
    k = kernels.heuristic_kernel.warmup(FakeTensor(), 100, grid=(1,))
    assert "tensor<128xf32>" in k.asm["ttir"]


def test_autotune_warmup_compiles_every_config_in_parallel():
    kernels.tuned_kernel.warmup(FakeTensor(), 4096, grid=lambda meta: (4096 // meta["BLOCK"],))
    cache = kernels.tuned_kernel.base_fn.device_caches
    compiled = [k for per_device in cache.values() for k in per_device.values()]
    warps = sorted(k.metadata.num_warps for k in compiled)
    assert warps == [4, 4, 8]


def test_compile_many_runs_on_a_pool_and_returns_errors():
    from tritium.compiler import source_text_of
    text, filename = source_text_of(kernels.add_kernel)
    req = lambda block: tritium._tritium.CompileRequest(
        text, filename, "add_kernel", f"*fp32:16, *fp32:16, *fp32:16, i32, {block}")
    results = tritium._tritium.compile_many([req(64), req(128), req(3), req(256)], threads=2)
    assert [type(r).__name__ for r in results] == ["Compiled", "Compiled", "CompilationError",
                                                    "Compiled"]
    assert "power of 2" in str(results[2]) or "arange" in str(results[2])


# ----- errors -----

def test_compile_error_points_at_the_kernel_line(tmp_path):
    m = load_module(tmp_path, "broken", """
        import tritium as triton
        import tritium.language as tl

        @triton.jit
        def bad(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            p = x_ptr + 1.5
            tl.store(p + offs, 1.0)
        """)
    with pytest.raises(tritium.CompilationError) as e:
        m.bad.warmup(FakeTensor(), BLOCK=64, grid=(1,))
    message = str(e.value)
    assert "bad:" in message
    assert f"{tmp_path / 'broken.py'}:8:" in message
    assert "p = x_ptr + 1.5" in message and "^" in message


def test_wrong_argument_count_names_kernel():
    x = FakeTensor()
    with pytest.raises(TypeError, match=r"add_kernel\(\) missing 1 required positional argument: 'n_elements'"):
        kernels.add_kernel[(1,)](x, x, x, BLOCK_SIZE=64)
    with pytest.raises(TypeError, match=r"add_kernel\(\) takes 5 positional arguments but 6 were given"):
        kernels.add_kernel[(1,)](x, x, x, 4, 64, 7)
    with pytest.raises(TypeError, match=r"add_kernel\(\) got an unexpected keyword argument 'num_wraps'"):
        kernels.add_kernel[(1,)](x, x, x, 4, BLOCK_SIZE=64, num_wraps=4)


def test_missing_constexpr_names_kernel_and_argument():
    x = FakeTensor()
    with pytest.raises(TypeError, match=r"add_kernel\(\) missing 1 required positional argument: 'BLOCK_SIZE'"):
        kernels.add_kernel[(1,)](x, x, x, 16)


def test_cpu_tensor_names_kernel_and_argument():
    cpu = FakeTensor(device="cpu")
    with pytest.raises(ValueError, match="add_kernel: argument y_ptr is a tensor on cpu"):
        kernels.add_kernel[(1,)](FakeTensor(), cpu, FakeTensor(), 16, BLOCK_SIZE=64)


def test_dtype_the_kernel_cannot_take():
    c = FakeTensor(dtype="complex64")
    with pytest.raises(TypeError, match="add_kernel: argument x_ptr: tensors of dtype torch.complex64"):
        kernels.add_kernel[(1,)](c, FakeTensor(), FakeTensor(), 16, BLOCK_SIZE=64)
    with pytest.raises(TypeError, match="add_kernel: argument n_elements has type str"):
        kernels.add_kernel[(1,)](FakeTensor(), FakeTensor(), FakeTensor(), "16", BLOCK_SIZE=64)
    with pytest.raises(TypeError, match="constexpr BLOCK_SIZE=.*values of type FakeTensor"):
        kernels.add_kernel[(1,)](FakeTensor(), FakeTensor(), FakeTensor(), 16,
                                 BLOCK_SIZE=FakeTensor())


@pytest.mark.skipif(has_gpu(), reason="this machine has a GPU")
def test_no_gpu_is_a_python_exception():
    x = FakeTensor()
    with pytest.raises(tritium.NoGpuError, match="add_kernel: cannot launch: no CUDA"):
        kernels.add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE=64)
    with pytest.raises(tritium.NoGpuError):
        tritium._tritium.Device(0)
    k = kernels.add_kernel.warmup(x, x, x, 16, BLOCK_SIZE=64, grid=(1,))
    with pytest.raises(tritium.NoGpuError):
        k.n_regs
    with pytest.raises(tritium.NoGpuError):
        k.asm["cubin"]
    with pytest.raises(KeyError):
        k.asm["sass"]
    with pytest.raises(tritium.NoGpuError, match="tuned_kernel: cannot autotune: no CUDA"):
        kernels.tuned_kernel[(1,)](x, 4096)
    assert issubclass(tritium.NoGpuError, RuntimeError)


def test_always_compile(monkeypatch):
    source = tritium.ASTSource(kernels.add_kernel, ADD_SIGNATURE, {"BLOCK_SIZE": 32})
    assert not tritium.compile(source).cache_hit
    assert tritium.compile(source).cache_hit
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    assert not tritium.compile(source).cache_hit


def test_autotune_picks_times_prints_and_caches_on_disk(monkeypatch, capsys):
    """The tuning loop without a GPU: launches and timings are stubbed, everything else is real
    (parallel compilation of the configs, the choice, the print, the disk cache)."""
    from tritium.runtime import autotuner, gpu

    class Dev:
        name = "stub GPU"
        arch = "sm_90a"

    monkeypatch.setattr(gpu, "get_device", lambda ordinal: Dev())
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    launched = []
    base = kernels.tuned_kernel.base_fn
    monkeypatch.setattr(base, "run", lambda *args, grid, warmup=False, **kw: launched.append(kw["BLOCK"]))
    speed = {128: 3.0, 256: 1.0, 512: 2.0}

    def bench(fn, quantiles):
        fn()
        return [speed[launched[-1]]] * 3

    tuner = autotuner.Autotuner(base, base.arg_names, kernels.tuned_kernel.configs, ["n"], do_bench=bench)
    x = FakeTensor()
    tuner[(1,)](x, 8192)
    assert tuner.best_config.kwargs == {"BLOCK": 256}
    assert launched[-1] == 256
    out = capsys.readouterr().out
    assert "Triton autotuning for function tuned_kernel" in out
    assert "best config selected: BLOCK: 256, num_warps: 8" in out
    compiled = [k for cache in base.device_caches.values() for k in cache.values()
                if k.metadata.num_warps == 8 or "512" in k.asm["ttir"]]
    assert compiled
    # A new process (a fresh autotuner) takes the winner from the disk cache: no timing.
    class TimedAgain(Exception):
        pass

    def no_bench(fn, quantiles):
        raise TimedAgain

    fresh = autotuner.Autotuner(base, base.arg_names, kernels.tuned_kernel.configs, ["n"],
                                do_bench=no_bench)
    fresh[(1,)](x, 8192)
    assert fresh.best_config.kwargs == {"BLOCK": 256}
    assert "Triton autotuning" not in capsys.readouterr().out
    # Another key is tuned again.
    with pytest.raises(TimedAgain):
        fresh[(1,)](x, 4096)
    # So is the same key with persistent programs switched (the timed kernels differ).
    jit = importlib.import_module("tritium.runtime.jit")  # the module, not the decorator
    monkeypatch.setattr(jit, "_PERSISTENT_PROGRAMS", [not jit.persistent_programs()])
    switched = autotuner.Autotuner(base, base.arg_names, kernels.tuned_kernel.configs, ["n"],
                                   do_bench=no_bench)
    with pytest.raises(TimedAgain):
        switched[(1,)](x, 8192)


def test_helpers_from_other_modules(tmp_path):
    pkg = tmp_path / "mpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    helpers = """
        import tritium as triton
        import tritium.language as tl
        SHIFT: tl.constexpr = 5

        @triton.jit
        def shifted(x):
            return x + SHIFT
        """
    (pkg / "helpers.py").write_text(textwrap.dedent(helpers))
    (pkg / "kern.py").write_text(textwrap.dedent("""
        import tritium as triton
        import tritium.language as tl
        from .helpers import shifted
        from mpkg import helpers as h

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, h.shifted(shifted(tl.load(x_ptr + offs))))
        """))
    sys.path.insert(0, str(tmp_path))
    try:
        for name in ("mpkg", "mpkg.helpers", "mpkg.kern"):
            sys.modules.pop(name, None)
        kern = importlib.import_module("mpkg.kern")
        assert [m[0] for m in kern.k.other_modules()] == ["mpkg.helpers"]
        first = tritium.compile(tritium.ASTSource(kern.k, {"x_ptr": "*fp32"}, {"BLOCK": 64}))
        assert "mpkg.helpers.shifted__" in first.asm["ttir"] or "5.000000e+00" in first.asm["ttir"]
        # A changed helper in the other module is another kernel.
        (pkg / "helpers.py").write_text(textwrap.dedent(helpers).replace("SHIFT: tl.constexpr = 5",
                                                                         "SHIFT: tl.constexpr = 7"))
        for name in ("mpkg", "mpkg.helpers", "mpkg.kern"):
            sys.modules.pop(name, None)
        importlib.invalidate_caches()
        import linecache
        linecache.checkcache()
        kern2 = importlib.import_module("mpkg.kern")
        second = tritium.compile(tritium.ASTSource(kern2.k, {"x_ptr": "*fp32"}, {"BLOCK": 64}))
        assert not second.cache_hit and second.hash != first.hash
        assert "7.000000e+00" in second.asm["ttir"]
    finally:
        sys.path.remove(str(tmp_path))


def test_compiled_kernel_launch_checks_arguments_before_the_gpu():
    x = FakeTensor()
    k = kernels.add_kernel.warmup(x, x, x, 1000, BLOCK_SIZE=128, grid=(1,))
    assert k.runtime_names == ["x_ptr", "y_ptr", "output_ptr", "n_elements"]
    with pytest.raises(TypeError, match=r"kernel add_kernel: 2 arguments given, 4 runtime arguments "
                                        r"\(x_ptr, y_ptr, output_ptr, n_elements\) or all 5 expected"):
        k[(1,)](x, x)
    with pytest.raises(ValueError, match="add_kernel: argument y_ptr is a tensor on cpu"):
        k[(1,)](x, FakeTensor(device="cpu"), x, 1000, 128)
    # warmup takes Triton's type strings for tensors.
    k2 = kernels.add_kernel.warmup("*fp16", "*fp16", "*fp16", 1000, BLOCK_SIZE=128, grid=(1,))
    assert k2.kinds[:3] == ["*fp16"] * 3


def test_host_code_the_front_end_cannot_parse_is_never_read(tmp_path):
    # Host code only Python 3.10+ parses (match) and postponed annotations: the front end reads
    # the kernels, imports and assignments only, at their own lines.
    m = load_module(tmp_path, "modern", '''
        from __future__ import annotations
        import tritium as triton
        import tritium.language as tl

        def host(x):
            match x:
                case [a, *rest]:
                    return f"{a!r:>{len(rest)}}"
                case _:
                    return None

        @triton.jit
        def k(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)
        ''')
    assert m.k.params[1].is_constexpr
    k = m.k.warmup(FakeTensor(), BLOCK=32, grid=(1,))
    assert f'loc("{tmp_path / "modern.py"}":16:' in k.asm["ttir"]


def test_dtype_constexprs_specialize():
    """A dtype passed to a tl.constexpr parameter is a compile-time value, as in Triton."""
    src16 = tritium.ASTSource(kernels.cast_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp16", "n": "i32"},
                              {"OUT_DTYPE": tl.float16, "BLOCK": 256})
    ttir16 = tritium.compile(src16).asm["ttir"]
    assert "arith.truncf" in ttir16 and "tensor<256xf16>" in ttir16
    src_bf16 = tritium.ASTSource(kernels.cast_kernel,
                                 {"x_ptr": "*fp32", "y_ptr": "*bf16", "n": "i32"},
                                 {"OUT_DTYPE": tl.bfloat16, "BLOCK": 256})
    compiled = tritium.compile(src_bf16)
    assert "tensor<256xbf16>" in compiled.asm["ttir"]
    assert compiled.hash != tritium.compile(src16).hash
