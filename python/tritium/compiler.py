"""``tritium.compile(tritium.compiler.ASTSource(fn, signature, constexprs))``: compile without a
GPU, as Triton 3.6's ``triton.compile``; and ``CompiledKernel``, the handle every compilation
returns (``.asm``, ``.metadata``, ``.n_regs``, ``.n_spills``, ``kernel[grid](*args)``)."""

import json
import linecache
from collections import namedtuple

from . import _tritium
from .runtime import gpu as _driver
from .runtime.errors import CompilationError, OutOfResources
from .runtime.jit import (JITFunction, _base_jit, _bound_values_function, _literal,
                          _module_text, launch_on, launch_values, persistent_programs,
                          descriptor_loads)

__all__ = ["ASTSource", "CompiledKernel", "compile", "source_text_of", "CompilationError"]


def source_text_of(fn):
    """``(text, filename)``: what the front end reads for the ``JITFunction`` ``fn``: its module's
    imports, assignments and ``@jit`` functions, at their lines in the file."""
    filename = fn.filename
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines:
        raise CompilationError(
            f"{fn.__name__}: cannot read the source of {filename}: Tritium compiles kernels from "
            "their Python source, so they must be defined in a file")
    return _module_text(filename, "".join(lines)), filename


def _arch_of(target):
    if target is None:
        return _driver.arch_or_default(_driver.driver.active.get_current_device())
    arch = target.arch if hasattr(target, "arch") else target
    if isinstance(arch, str):
        return arch
    return "sm_90a" if arch == 90 else f"sm_{arch}"


class ASTSource:
    """A kernel and its specialization, as Triton's: ``signature`` maps each parameter name to
    its type (``"*fp32"``, ``"i32"``, ``"fp32"``, ``"constexpr"``), ``constexprs`` gives the
    constexpr values (by name or ``(index,)``), ``attrs`` Triton's ``{(index,):
    [["tt.divisibility", 16]]}``."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        base = _base_jit(fn)
        if base is None:
            raise TypeError(f"ASTSource needs a @tritium.jit function, got {fn!r}")
        self.fn = base
        self.signature = dict(signature)
        self.constexprs = {}
        for k, v in (constexprs or {}).items():
            self.constexprs[self._name(k)] = v
        self.attrs = {}
        for k, v in (attrs or {}).items():
            self.attrs[self._name(k)] = v
        self.name = base.__name__

    def _name(self, key):
        if isinstance(key, tuple):
            key = key[0]
        if isinstance(key, int):
            return self.fn.arg_names[key]
        return key

    def entries(self):
        """The front end's signature entries, with the runtime parameters' indices and types."""
        fn = self.fn
        entries, runtime, kinds = [], [], []
        for p in fn.params:
            name = p.name
            if name in self.constexprs:
                entries.append(_literal(fn.__name__, name, self.constexprs[name]))
                continue
            ty = self.signature.get(name)
            if ty is None or ty == "constexpr":
                if p.has_default:
                    entries.append(_literal(fn.__name__, name, p.default))
                    continue
                what = "constexpr value" if p.is_constexpr or ty == "constexpr" else "type"
                raise TypeError(f"{fn.__name__}: the signature gives no {what} for parameter "
                                f"'{name}'")
            divisible = any(a[0] == "tt.divisibility" and a[1] % 16 == 0
                            for a in self.attrs.get(name, []))
            entries.append(ty + (":16" if divisible else ""))
            runtime.append(p.num)
            kinds.append(ty)
        return entries, runtime, kinds


def compile(src, target=None, options=None):
    """Compiles ``src`` (an ``ASTSource``) for ``target`` (a ``GPUTarget``, an arch such as 90 or
    ``"sm_80"``; default: the current GPU, or ``sm_90a`` without one) with ``options``
    (``num_warps``, ``num_stages``, ``debug``, ``persistent_programs``: default on unless
    ``TRITIUM_PERSISTENT_PROGRAMS=0``, ``descriptor_loads``: default on unless
    ``TRITIUM_DESCRIPTOR_LOADS=0``). Needs no GPU."""
    if isinstance(src, JITFunction):
        raise TypeError("tritium.compile takes an ASTSource(fn, signature, constexprs)")
    options = dict(options or {})
    entries, runtime, kinds = src.entries()
    text, filename = source_text_of(src.fn)
    request = _tritium.CompileRequest(
        text, filename, src.name, ", ".join(entries), key_source=src.fn.cache_key,
        num_warps=options.get("num_warps", 4), num_stages=options.get("num_stages", 3),
        arch=_arch_of(target), debug=bool(options.get("debug", False)),
        other_modules=src.fn.other_modules(),
        persistent_programs=bool(options.get("persistent_programs", persistent_programs())),
        descriptor_loads=bool(options.get("descriptor_loads", descriptor_loads())))
    try:
        compiled = _tritium.compile(request)
    except CompilationError as e:
        raise CompilationError(f"{src.name}: {e}") from None
    return CompiledKernel(compiled, [src.fn.arg_names[i] for i in runtime], kinds, runtime,
                          len(src.fn.params))


_metadata_types = {}


def _metadata(fields):
    names = tuple(fields)
    cls = _metadata_types.get(names)
    if cls is None:
        cls = _metadata_types[names] = namedtuple("KernelMetadata", names)
    values = dict(fields)
    if isinstance(values.get("target"), dict):
        values["target"] = _driver.GPUTarget(**values["target"])
    return cls(**values)


class _Asm(dict):
    """``CompiledKernel.asm``: the compiler's texts by stage, and ``cubin``, which the driver's
    JIT makes of the PTX for the current GPU the first time it is read (``NoGpuError`` without
    one)."""
    kernel = None  # the CompiledKernel whose texts these are

    def __missing__(self, key):
        if key == "cubin" and "ptx" in self:
            device = _driver.get_device(_driver.driver.active.get_current_device())
            # The launcher's first build (a second, for occupancy, runs only the grids it suits:
            # `device.link_cubin(ptx, threads, kernel._init_handles().occupancy_hint)`).
            cubin = self["cubin"] = device.link_cubin(self["ptx"])
            return cubin
        raise KeyError(key)


class CompiledKernel:
    """A compiled kernel: ``asm`` (``ttir``, ``ttgir``, ``llir``, ``ptx``; ``cubin`` from the
    driver's JIT on first read), ``metadata`` (Triton's
    fields: ``name``, ``num_warps``, ``shared``, ``hash``, ...), ``n_regs``/``n_spills`` (read
    from the driver once loaded: they need a GPU), ``kernel[grid](*args)``."""

    def __init__(self, compiled, runtime_names, kinds, runtime_params, num_params):
        self.name = compiled.name
        self.hash = compiled.hash
        self.asm = _Asm({stage: text for stage, text in (("ttir", compiled.ttir),
                                                          ("ttgir", compiled.ttgir),
                                                          ("llir", compiled.llir),
                                                          ("ptx", compiled.ptx))
                         if text is not None})
        self.asm.kernel = self
        self.metadata_json = compiled.metadata_json
        self.metadata = _metadata(json.loads(compiled.metadata_json))
        self.cache_hit = compiled.cached
        self.runtime_names = runtime_names
        self.kinds = kinds
        self.runtime_params = runtime_params
        self.num_params = num_params
        self.has_descriptors = any(k.startswith("tensordesc<") for k in kinds)
        # The launcher's arguments from all of a call's bound arguments (``JITFunction.run``).
        self.bound_values = _bound_values_function(kinds, runtime_params)
        self._launchers = {}

    def __repr__(self):
        return f"CompiledKernel({self.name}, hash={self.hash[:12]})"

    def _launcher(self, device):
        kernel = self._launchers.get(device)
        if kernel is None:
            dev = _driver.get_device(device)
            shared = self.metadata.shared
            if shared > dev.max_shared:
                raise OutOfResources(shared, dev.max_shared, "shared memory")
            kinds = [k.split(":")[0] for k in self.kinds]
            kernel = self._launchers[device] = _tritium.Kernel(
                dev, self.asm["ptx"], self.metadata_json, kinds, self.runtime_names)
        return kernel

    def _init_handles(self):
        return self._launcher(_driver.driver.active.get_current_device())

    @property
    def n_regs(self):
        return self._init_handles().n_regs

    @property
    def n_spills(self):
        return self._init_handles().n_spills

    @property
    def n_max_threads(self):
        return self._init_handles().max_threads

    def __getitem__(self, grid):
        def launch(*args):
            if len(args) == self.num_params and self.num_params != len(self.runtime_params):
                args = [args[i] for i in self.runtime_params]
            elif len(args) != len(self.runtime_params):
                raise TypeError(f"kernel {self.name}: {len(args)} arguments given, "
                                f"{len(self.runtime_params)} runtime arguments "
                                f"({', '.join(self.runtime_names)}) or all {self.num_params} "
                                "expected")
            for name, a in zip(self.runtime_names, args):
                if hasattr(a, "data_ptr") and not getattr(a, "is_cuda", False):
                    raise ValueError(f"{self.name}: argument {name} is a tensor on "
                                     f"{getattr(a, 'device', 'cpu')}: kernels read GPU memory")
            device = _driver.driver.active.get_current_device()
            kernel = self._launcher(device)
            g = tuple(grid) + (1, 1)
            if g[0] * g[1] * g[2] == 0:
                return
            values = [a.data_ptr() if hasattr(a, "data_ptr") else a for a in args]
            if self.has_descriptors:
                values = launch_values(values)
            launch_on(kernel, self.metadata, (int(g[0]), int(g[1]), int(g[2])),
                      _driver.driver.active.get_current_stream(device), values)

        return launch
