"""``@tritium.jit``: Triton's ``JITFunction`` over Tritium's compiler.

A call ``kernel[grid](*args, **kwargs)`` binds the arguments to the kernel's parameters,
specializes them as Triton 3.6 does (tensors by dtype and 16-byte alignment of their address,
ints by width, divisibility by 16 and ``== 1``, constexprs by value), looks the specialization
up in the in-memory cache of the current device, compiles it on a miss (through the Rust
compiler and its on-disk cache) and launches it on ``torch.cuda.current_stream()``.
"""

import ast
import functools
import hashlib
import inspect
import linecache
import os
import textwrap

from .. import _tritium
from ..language.core import constexpr as _constexpr, dtype as _dtype
from . import gpu as _driver
from .errors import CompilationError, OutOfResources

#: Options a launch takes besides the kernel's arguments, with Triton's defaults.
LAUNCH_OPTIONS = {
    "num_warps": 4,
    "num_stages": 3,
    "num_ctas": 1,
    "maxnreg": None,
    "enable_fp_fusion": True,
    "debug": None,
    "launch_cooperative_grid": False,
    "launch_pdl": False,
}

#: PyTorch's dtypes (by ``str``) as signature types.
TORCH_DTYPES = {
    "torch.float32": "fp32",
    "torch.float16": "fp16",
    "torch.bfloat16": "bf16",
    "torch.float64": "fp64",
    "torch.float8_e4m3fn": "fp8e4nv",
    "torch.float8_e5m2": "fp8e5",
    "torch.int8": "i8",
    "torch.int16": "i16",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.uint8": "u8",
    "torch.uint16": "u16",
    "torch.uint32": "u32",
    "torch.uint64": "u64",
    "torch.bool": "i1",
}

_ptr_types = {}
_SCALAR_KINDS = ("i1", "i32", "i64", "fp32", "fp64")


def _pointer_type(kernel, name, dt):
    t = _ptr_types.get(dt)
    if t is None:
        elem = TORCH_DTYPES.get(str(dt))
        if elem is None:
            raise TypeError(
                f"{kernel}: argument {name}: tensors of dtype {dt} cannot be passed to a kernel "
                f"(supported: {', '.join(sorted(TORCH_DTYPES))})")
        t = _ptr_types[dt] = "*" + elem
    return t


def _descriptor_type(kernel, name, desc):
    """The signature entry of a host-side ``TensorDescriptor``: ``tensordesc<fp16[64, 64]>``."""
    base = desc.base
    if not getattr(base, "is_cuda", False):
        raise ValueError(f"{kernel}: argument {name} is a descriptor of a tensor on "
                         f"{getattr(base, 'device', 'cpu')}: kernels read GPU memory")
    elem = TORCH_DTYPES.get(str(base.dtype))
    if elem is None:
        raise TypeError(f"{kernel}: argument {name}: tensor descriptors of {base.dtype} are not "
                        "supported")
    return f"tensordesc<{elem}[{', '.join(str(int(b)) for b in desc.block_shape)}]>"


_allocator = None


def set_allocator(allocator):
    """Triton's ``triton.set_allocator``: ``allocator(size, alignment, stream)`` returns an
    object with ``data_ptr()`` (e.g. ``torch.empty(size, dtype=torch.int8, device="cuda")``)
    holding the global scratch of a launch that needs one (tensor descriptors made in the
    kernel). Without one, each kernel keeps its own scratch buffer, grown when a larger grid needs
    more, which cannot happen while a CUDA graph is captured; with one, as PyTorch's caching
    allocator under capture, it can. ``None`` goes back to the kernels' own buffers."""
    global _allocator
    _allocator = allocator


def launch_on(launcher, metadata, grid, stream, values, dependent=False, cooperative=False):
    """``launcher.launch`` over ``grid`` (three ints), the scratch from the allocator when one
    is set and the kernel needs global scratch; ``dependent``: a programmatic dependent launch
    (``launch_pdl=True``), ``cooperative``: a cooperative one (``launch_cooperative_grid``)."""
    gx, gy, gz = grid
    size = getattr(metadata, "global_scratch_size", 0)
    if size and _allocator is not None:
        align = getattr(metadata, "global_scratch_align", 1)
        buffer = _allocator(gx * gy * gz * size, align, stream)
        # `buffer` lives until the launch is enqueued; the allocator (PyTorch's) orders reuse
        # after it on the stream.
        launcher.launch(gx, gy, gz, stream, *values, scratch=int(buffer.data_ptr()), dependent=dependent,
                        cooperative=cooperative)
        return
    if dependent or cooperative:
        launcher.launch(gx, gy, gz, stream, *values, dependent=dependent, cooperative=cooperative)
        return
    launcher.launch(gx, gy, gz, stream, *values)


def _descriptor_value(v):
    """The launcher's form of a descriptor argument: ``(base address, shape, strides,
    nan_padding)``."""
    return (v.base.data_ptr(), [int(d) for d in v.shape], [int(s) for s in v.strides],
            v.padding == "nan")


def launch_values(values):
    """The launcher's form of descriptor arguments; other values unchanged."""
    return [_descriptor_value(v) if type(v).__name__ == "TensorDescriptor" else v for v in values]


def _bound_values_function(kinds, runtime_params):
    """``values(bound)``: the launcher's arguments from a call's bound arguments, one expression
    per runtime parameter chosen by its signature type (pointers by address, descriptors as
    ``_descriptor_value`` makes them), generated once per compiled kernel."""
    items = []
    for kind, i in zip(kinds, runtime_params):
        if kind.startswith("*"):
            items.append(f"b[{i}].data_ptr()")
        elif kind.startswith("tensordesc<"):
            items.append(f"_descriptor_value(b[{i}])")
        else:
            items.append(f"b[{i}]")
    namespace = {"_descriptor_value": _descriptor_value}
    exec(compile(f"def values(b):\n    return [{', '.join(items)}]\n", "<tritium launch values>",
                 "exec"), namespace)
    return namespace["values"]


#: Types seen with a ``data_ptr`` (PyTorch's tensors): the specializer's fast path.
_TENSOR_TYPES = set()


def _tensor_entry(kernel, name, arg):
    """``_runtime_entry`` of a tensor of a type in ``_TENSOR_TYPES``, specialized."""
    kind = _ptr_types.get(arg.dtype)
    if kind is None or not arg.is_cuda:
        return _runtime_entry(kernel, name, arg, True, True)
    return kind if arg.data_ptr() & 15 else kind + ":16"


def _runtime_entry(kernel, name, arg, specialize, align):
    """The signature entry of a non-constexpr argument, as Triton 3.6 specializes it: ints by
    width, ``== 1`` and divisibility by 16 (unless ``specialize`` is off), tensors by dtype and
    16-byte alignment (unless ``align`` is off)."""
    t = type(arg)
    if t is int:
        if -2147483648 <= arg <= 2147483647:
            kind = "i32"
        elif -(2**63) <= arg < 2**63:
            kind = "i64"
        elif 0 <= arg < 2**64:
            raise TypeError(f"{kernel}: argument {name}={arg}: unsigned 64-bit integer "
                            "arguments are not supported by Tritium yet")
        else:
            raise TypeError(f"{kernel}: argument {name}={arg} does not fit in 64 bits")
        if not specialize:
            return kind
        if arg == 1:
            return "1"
        return kind + ":16" if arg % 16 == 0 else kind
    if t is float:
        return "fp32"
    if t is bool:
        return "i1"
    if arg is None:
        return "None"
    if hasattr(arg, "data_ptr"):
        _TENSOR_TYPES.add(t)
        if not getattr(arg, "is_cuda", False):
            device = getattr(arg, "device", "cpu")
            raise ValueError(f"{kernel}: argument {name} is a tensor on {device}: kernels read GPU "
                             "memory (move it with .cuda())")
        kind = _ptr_types.get(arg.dtype) or _pointer_type(kernel, name, arg.dtype)
        if not specialize or not align or arg.data_ptr() & 15:
            return kind
        return kind + ":16"
    if t.__name__ == "TensorDescriptor":
        return _descriptor_type(kernel, name, arg)
    if isinstance(arg, _constexpr):
        return _literal(kernel, name, arg)
    if isinstance(arg, _dtype):
        # A dtype is a compile-time value wherever it is passed: its literal, as a constexpr's.
        return _literal(kernel, name, arg)
    raise TypeError(f"{kernel}: argument {name} has type {t.__name__}: a kernel takes "
                    "tensors, ints, floats, bools, None and constexprs")


class KernelParam:
    """One parameter of a kernel."""

    def __init__(self, index, param, do_not_specialize, do_not_specialize_on_alignment):
        self.num = index
        self.name = param.name
        self._param = param
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment
        annotation = param.annotation
        if isinstance(annotation, str):
            self.is_constexpr = annotation.split(".")[-1] == "constexpr"
        else:
            self.is_constexpr = annotation is _constexpr or (
                isinstance(annotation, type) and annotation.__name__ == "constexpr")

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty


def _literal(kernel, name, value):
    """A constexpr value as a signature literal."""
    if isinstance(value, _constexpr):
        value = value.value
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if any(c in value for c in ",'\""):
            raise TypeError(f"{kernel}: constexpr {name}: strings with commas or quotes are not "
                            "supported")
        return f'"{value}"'
    if isinstance(value, _dtype):
        return f"tl.{value.name}"
    raise TypeError(f"{kernel}: constexpr {name}={value!r}: values of type "
                    f"{type(value).__name__} as constexpr arguments are not supported (ints, "
                    "floats, bools, strings, dtypes and None are)")


def _is_jit_decorator(node):
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id == "jit"
    if isinstance(target, ast.Attribute):
        return target.attr == "jit"
    return False


@functools.lru_cache(maxsize=None)
def _module_text(filename, text):
    """What the front end reads of a module: its imports, top-level assignments and
    ``@jit`` functions at their own lines (other lines blank: locations stay the file's)."""
    lines = text.splitlines(keepends=True)
    keep = [False] * len(lines)
    tree = ast.parse(text, filename)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            if not any(_is_jit_decorator(d) for d in node.decorator_list):
                continue
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            start = node.lineno
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            start = node.lineno
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            start = node.lineno
        else:
            continue
        for i in range(start - 1, node.end_lineno):
            keep[i] = True
    return "".join(line if k else "\n" for line, k in zip(lines, keep))


def _build_id():
    """The extension's file identity: a rebuilt compiler never reads an older build's cache."""
    try:
        st = os.stat(_tritium.__file__)
        return f"{st.st_size}-{st.st_mtime_ns}"
    except (OSError, AttributeError):
        return ""


_BUILD_ID = _build_id()


_ENV_DEBUG = []


def _env_debug():
    """``TRITON_DEBUG``, read once per process (it keys every launch; compilations read it
    again)."""
    if not _ENV_DEBUG:
        _ENV_DEBUG.append(os.environ.get("TRITON_DEBUG", "0") not in ("", "0"))
    return _ENV_DEBUG[0]


def persistent_programs():
    """Whether dot kernels run their programs persistently (``-tritium-persistent-programs``:
    as many programs as fit on the GPU, each looping over the grid's); on unless
    ``TRITIUM_PERSISTENT_PROGRAMS=0``. Read once per process."""
    if not _PERSISTENT_PROGRAMS:
        _PERSISTENT_PROGRAMS.append(os.environ.get("TRITIUM_PERSISTENT_PROGRAMS", "1") not in ("", "0"))
    return _PERSISTENT_PROGRAMS[0]


_PERSISTENT_PROGRAMS = []


def descriptor_loads():
    """Whether a dot loop's tiles loaded through tensors of pointers are read through TMA
    descriptors on sm_90 and later (``-tritium-descriptor-loads``; those of the kernel's arguments
    encoded by the launcher, ``-tritium-host-descriptors``); on unless
    ``TRITIUM_DESCRIPTOR_LOADS=0``. Read once per process."""
    if not _DESCRIPTOR_LOADS:
        _DESCRIPTOR_LOADS.append(os.environ.get("TRITIUM_DESCRIPTOR_LOADS", "1") not in ("", "0"))
    return _DESCRIPTOR_LOADS[0]


_DESCRIPTOR_LOADS = []


class KernelInterface:
    """``kernel[grid](*args, **kwargs)``."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)

    def warmup(self, *args, grid, **kwargs):
        """Compiles for these arguments without launching; returns the ``CompiledKernel``."""
        return self.run(grid=grid, warmup=True, *map(_mock_tensor_of_type, args),
                        **{k: _mock_tensor_of_type(v) for k, v in kwargs.items()})


class _MockTensor:
    """``warmup("*fp32", ...)``-style arguments: a 16-byte-aligned tensor of that type."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.is_cuda = True

    def data_ptr(self):
        return 0


def _mock_tensor_of_type(arg):
    if isinstance(arg, str) and arg.startswith("*"):
        names = {v: k for k, v in TORCH_DTYPES.items()}
        if arg[1:] in names:
            return _MockTensor(names[arg[1:]])
    return arg


class JITFunction(KernelInterface):
    """A ``@tritium.jit`` kernel (or helper)."""

    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None,
                 debug=None, noinline=None, repr=None, launch_metadata=None):
        self.fn = fn
        self.module = fn.__module__
        self.version = version
        self.debug = debug
        self.noinline = noinline
        self.launch_metadata = launch_metadata
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__globals__ = fn.__globals__
        self.signature = inspect.signature(fn)

        def positions(names):
            names = names or []
            return {self.signature_index(n) if isinstance(n, str) else n for n in names}

        self._dns = positions(do_not_specialize)
        self._dnsoa = positions(do_not_specialize_on_alignment)
        self.params = [
            KernelParam(i, p, i in self._dns, i in self._dnsoa)
            for i, p in enumerate(self.signature.parameters.values())
        ]
        self.arg_names = [p.name for p in self.params]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self.filename = fn.__code__.co_filename
        try:
            lines, self.starting_line_number = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            lines, self.starting_line_number = [], 0
        self.raw_src = "".join(lines)
        self.src = textwrap.dedent(self.raw_src)
        self._hash = None
        self._binder = self._make_binder()
        self._specializer = self._make_specializer()
        self._option_params = [n for n in self.arg_names if n in LAUNCH_OPTIONS]
        defaults = (LAUNCH_OPTIONS["num_warps"], LAUNCH_OPTIONS["num_stages"])
        self._default_options_key = {False: defaults + (False,), True: defaults + (True,)}
        # device -> {(specialization, options): CompiledKernel}
        self.device_caches = {}
        functools.update_wrapper(self, fn, updated=())

    def signature_index(self, name):
        return list(self.signature.parameters).index(name)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @tritium.jit'd outside of the scope of a kernel")

    def __repr__(self):
        return f"JITFunction({self.module}:{self.fn.__qualname__})"

    # ----- cache key -----

    @property
    def cache_key(self):
        """Hash of the kernel's source, the source of every ``@jit`` function it calls and the
        values of the globals it reads (what Triton's key covers), its file and line."""
        if self._hash is None:
            self._hash = "computing"  # a recursive call (a kernel calling itself) stops here
            parts = [f"{self.filename}:{self.starting_line_number}", self.src,
                     f"version={self.version}", f"build={_BUILD_ID}"]
            parts += self._dependencies()
            self._hash = hashlib.sha256("\n".join(parts).encode()).hexdigest()
        return self._hash

    def _dependencies(self):
        found = []
        for name, value in self._referenced():
            if isinstance(value, KernelInterface):
                base = _base_jit(value)
                if base is not None and base is not self:
                    key = base._hash if base._hash == "computing" else base.cache_key
                    found.append(f"{name}: {key}")
            elif isinstance(value, (bool, int, float, str, type(None), _constexpr, _dtype)):
                found.append(f"{name}={value!r}")
        return found

    def _jit_dependencies(self):
        """The ``@jit`` functions this one names."""
        deps = []
        for _, value in self._referenced():
            if isinstance(value, KernelInterface):
                base = _base_jit(value)
                if base is not None and base is not self and base not in deps:
                    deps.append(base)
        return deps

    def other_modules(self):
        """``(name, text, filename)`` of every other module whose ``@jit`` functions this one
        calls, directly or through other helpers (what the front end reads of each)."""
        from ..compiler import source_text_of
        seen = {self}
        stack = [self]
        modules = {}
        while stack:
            for dep in stack.pop()._jit_dependencies():
                if dep in seen:
                    continue
                seen.add(dep)
                stack.append(dep)
                if dep.filename != self.filename and dep.filename not in modules:
                    text, filename = source_text_of(dep)
                    modules[dep.filename] = (dep.module, text, filename)
        return list(modules.values())

    def _referenced(self):
        """``(dotted name, value)`` of each global name or attribute chain the source reads."""
        if not self.src:
            return []
        try:
            tree = ast.parse(self.src)
        except SyntaxError:
            return []
        found = []
        seen = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                path = (node.id,)
            elif isinstance(node, ast.Attribute):
                chain = []
                cur = node
                while isinstance(cur, ast.Attribute):
                    chain.append(cur.attr)
                    cur = cur.value
                if not isinstance(cur, ast.Name):
                    continue
                path = tuple([cur.id] + chain[::-1])
            else:
                continue
            if path in seen:
                continue
            seen.add(path)
            value = self._resolve(path)
            if value is not _MISSING:
                found.append((".".join(path), value))
        return found

    def _resolve(self, path):
        value = self.__globals__.get(path[0], _MISSING)
        for attr in path[1:]:
            if value is _MISSING:
                return _MISSING
            if not (inspect.ismodule(value) or isinstance(value, type)):
                return _MISSING
            value = getattr(value, attr, _MISSING)
        return value

    # ----- binding and specialization -----

    def _make_binder(self):
        params = []
        namespace = {}
        for p in self.params:
            if p.has_default:
                namespace[f"_default_{p.num}"] = p.default
                params.append(f"{p.name}=_default_{p.num}")
            else:
                params.append(p.name)
        names = "".join(f"{p.name}, " for p in self.params)
        text = (f"def {self.__name__}({', '.join(params + ['**_tritium_options'])}):\n"
                f"    return ({names}), _tritium_options\n")
        exec(compile(text, f"<tritium binder of {self.__name__}>", "exec"), namespace)
        return namespace[self.__name__]

    def bind(self, args, kwargs):
        """The arguments in parameter order and the launch options."""
        try:
            bound, extra = self._binder(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"kernel {e}") from None
        if not extra and not self._option_params:
            return bound, LAUNCH_OPTIONS
        options = dict(LAUNCH_OPTIONS)
        for k, v in extra.items():
            if k not in options:
                raise TypeError(f"kernel {self.__name__}() got an unexpected keyword argument '{k}'")
            options[k] = v
        if kwargs:
            # As Triton: a keyword naming both a parameter and an option (a kernel's own
            # `num_stages: tl.constexpr`) sets both.
            for k in self._option_params:
                if k in kwargs:
                    options[k] = kwargs[k]
        return bound, options

    def specialize(self, bound):
        """``(key, signature entries, runtime parameter indices, runtime types)`` for the bound
        arguments (raises ``TypeError``/``ValueError`` naming the kernel and argument)."""
        key = self.specialization_key(bound)
        entries = list(key)
        runtime = []
        kinds = []
        for p, entry in zip(self.params, entries):
            kind = entry.split(":")[0]
            if not p.is_constexpr and (kind[0] == "*" or kind in _SCALAR_KINDS
                                       or kind.startswith("tensordesc<")):
                runtime.append(p.num)
                kinds.append(kind)
        return key, entries, runtime, kinds

    def specialization_key(self, bound):
        """The signature entries of a call, as a tuple (the in-memory cache's key): what
        every call computes, so it runs as one generated function per kernel (see
        ``_make_specializer``)."""
        return self._specializer(*bound)

    def _make_specializer(self):
        """A function of the bound arguments returning their signature entries, one expression
        per parameter: straight-line code costs a fraction of a loop over ``self.params`` on
        every launch (a 27-argument kernel: 8.6 µs to 2 µs)."""
        namespace = {"_literal": _literal, "_runtime_entry": _runtime_entry, "_int": int,
                     "_tensor_entry": _tensor_entry, "_tensors": _TENSOR_TYPES,
                     "_kernel": self.__name__}
        entries = []
        for p in self.params:
            a = f"a{p.num}"
            if p.is_constexpr:
                entries.append(f"(str({a}) if type({a}) is _int else _literal(_kernel, {p.name!r}, {a}))")
            elif p.do_not_specialize or p.do_not_specialize_on_alignment:
                entries.append(f"_runtime_entry(_kernel, {p.name!r}, {a}, "
                               f"{not p.do_not_specialize}, False)")
            else:
                # The common int case inline: small, not 1, divisible by 16 or not.
                entries.append(f"(('i32' if {a} & 15 else 'i32:16') if type({a}) is _int and "
                               f"{a} != 1 and -2147483648 <= {a} <= 2147483647 else "
                               f"_tensor_entry(_kernel, {p.name!r}, {a}) if type({a}) in _tensors "
                               f"else _runtime_entry(_kernel, {p.name!r}, {a}, True, True))")
        params = ", ".join(f"a{p.num}" for p in self.params)
        text = f"def specialize({params}):\n    return ({''.join(e + ', ' for e in entries)})\n"
        exec(compile(text, f"<tritium specializer of {self.__name__}>", "exec"), namespace)
        return namespace["specialize"]

    # ----- compilation -----

    def _options_key(self, options):
        if options is LAUNCH_OPTIONS and self.debug is None:
            return self._default_options_key[_env_debug()]
        if options["num_ctas"] != 1:
            raise ValueError(f"{self.__name__}: num_ctas={options['num_ctas']}: Tritium launches "
                             "one CTA per program (num_ctas=1)")
        debug = options["debug"]
        if debug is None:
            debug = self.debug
        if debug is None:
            debug = _env_debug()
        return (options["num_warps"], options["num_stages"], bool(debug))

    def _request(self, entries, opts, arch):
        from ..compiler import source_text_of
        text, filename = source_text_of(self)
        num_warps, num_stages, debug = opts
        return _tritium.CompileRequest(
            text, filename, self.__name__, ", ".join(entries),
            key_source=self.cache_key, num_warps=num_warps, num_stages=num_stages, arch=arch,
            debug=debug, other_modules=self.other_modules(),
            persistent_programs=persistent_programs(), descriptor_loads=descriptor_loads())

    def prepare(self, args, kwargs, device):
        """Binds and specializes a call; returns ``(cache, key, request-or-None, kernel-or-None,
        bound, options)`` where a cached kernel needs no request."""
        bound, options = self.bind(args, kwargs)
        spec, entries, runtime, kinds = self.specialize(bound)
        opts = self._options_key(options)
        key = (spec, opts)
        cache = self.device_caches.get(device)
        if cache is None:
            cache = self.device_caches[device] = {}
        kernel = cache.get(key)
        if kernel is not None:
            return cache, key, None, kernel, bound, options
        request = (self._request(entries, opts, _driver.arch_or_default(device)), runtime, kinds)
        return cache, key, request, None, bound, options

    def install(self, cache, key, request, compiled):
        """Stores the result of ``request`` (a native ``Compiled``) in ``cache``."""
        from ..compiler import CompiledKernel
        _, runtime, kinds = request
        kernel = CompiledKernel(compiled, [self.arg_names[i] for i in runtime], kinds, runtime,
                                len(self.params))
        cache[key] = kernel
        return kernel

    def prepare_call(self, args, kwargs, device):
        """``prepare`` for a call's keyword arguments (``grid`` and ``warmup`` left out)."""
        kwargs = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        return self.prepare(args, kwargs, device)

    def run(self, *args, grid, warmup=False, **kwargs):
        active = _driver.driver.active
        device = active.get_current_device()
        bound, options = self.bind(args, kwargs)
        key = (self.specialization_key(bound), self._options_key(options))
        cache = self.device_caches.get(device)
        if cache is None:
            cache = self.device_caches[device] = {}
        kernel = cache.get(key)
        if kernel is None:
            if not warmup:
                # Fail before compiling on a machine that cannot run the kernel.
                try:
                    _driver.get_device(device)
                except _tritium.NoGpuError as e:
                    raise _tritium.NoGpuError(f"{self.__name__}: cannot launch: {e}") from None
            cache, key, request, kernel, bound, options = self.prepare(args, kwargs, device)
            if kernel is None:
                try:
                    compiled = _tritium.compile(request[0])
                except CompilationError as e:
                    raise CompilationError(f"{self.__name__}: {e}") from None
                kernel = self.install(cache, key, request, compiled)
        if warmup:
            return kernel
        if callable(grid):
            meta = dict(zip(self.arg_names, bound))
            meta.update(options)
            grid = grid(meta)
        n = len(grid)
        gx = grid[0]
        gy = grid[1] if n > 1 else 1
        gz = grid[2] if n > 2 else 1
        if gx * gy * gz == 0:
            return kernel
        launcher = kernel._launchers.get(device) or kernel._launcher(device)
        launch_on(launcher, kernel.metadata, (int(gx), int(gy), int(gz)),
                  active.get_current_stream(device), kernel.bound_values(bound),
                  options["launch_pdl"], options["launch_cooperative_grid"])
        return kernel


class _Missing:
    pass


_MISSING = _Missing()


def _base_jit(fn):
    while not isinstance(fn, JITFunction):
        fn = getattr(fn, "fn", None)
        if fn is None:
            return None
    return fn


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None):
    """``@tritium.jit`` / ``@tritium.jit(do_not_specialize=[...])``: a kernel or helper."""

    def decorator(fn):
        return JITFunction(fn, version=version, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment,
                           debug=debug, noinline=noinline, repr=repr, launch_metadata=launch_metadata)

    if fn is not None:
        return decorator(fn)
    return decorator


__all__ = ["jit", "JITFunction", "KernelInterface", "OutOfResources"]
