"""``@tritium.autotune`` and ``@tritium.heuristics``, as Triton's.

On a new key the autotuner compiles every (pruned) config at once, in parallel on the Rust
thread pool of ``tritium._tritium.compile_many`` (each compilation in its own MLIR context),
times each on the GPU with ``tritium.testing.do_bench``, keeps the fastest in memory and on disk
(``CACHE_DIR/autotune/HASH.json``, per kernel source, configs, key and GPU), and prints the
choice when ``TRITON_PRINT_AUTOTUNING=1``.
"""

import builtins
import hashlib
import json
import os
import time

from .. import _tritium
from . import gpu as _driver
from .errors import CompilationError, DriverError, OutOfResources
from .jit import KernelInterface, _base_jit, descriptor_loads, persistent_programs


class Config:
    """One candidate: meta-parameters (``kwargs``) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self):
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                   "num_ctas": self.num_ctas}
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return {**self.kwargs, **options}

    def __str__(self):
        res = [f"{k}: {v}" for k, v in self.kwargs.items()]
        res.append(f"num_warps: {self.num_warps}")
        res.append(f"num_ctas: {self.num_ctas}")
        res.append(f"num_stages: {self.num_stages}")
        res.append(f"maxnreg: {self.maxnreg}")
        return ", ".join(res)

    __repr__ = __str__

    def _as_json(self):
        return {"kwargs": self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages,
                "num_ctas": self.num_ctas, "maxnreg": self.maxnreg}

    def __hash__(self):
        return hash(json.dumps(self._as_json(), sort_keys=True, default=repr))

    def __eq__(self, other):
        return isinstance(other, Config) and self._as_json() == other._as_json()


class Autotuner(KernelInterface):

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=True):
        self.fn = fn
        self.base_fn = _base_jit(fn)
        self.arg_names = arg_names
        self.configs = configs if configs else [Config({})]
        self.keys = list(key)
        self._arg_name_set = set(arg_names)
        # (name, position among the parameters); a key naming no parameter is left out, as in
        # Triton.
        self._key_positions = [(k, arg_names.index(k)) for k in self.keys if k in self._arg_name_set]
        self.cache = {}
        self.reset_to_zero = [arg_names.index(k) for k in (reset_to_zero or [])]
        self.restore_value = [arg_names.index(k) for k in (restore_value or [])]
        self.user_pre_hook = pre_hook
        self.user_post_hook = post_hook
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.num_warmups = 25 if warmup is None else warmup
        self.num_reps = 100 if rep is None else rep
        self.use_cuda_graph = use_cuda_graph
        self._do_bench = do_bench
        self.cache_results = cache_results and os.environ.get("TRITIUM_AUTOTUNE_CACHE", "1") != "0"
        self.best_config = None
        self.bench_time = 0.0
        self.configs_timings = None
        self.nargs = None
        self.__name__ = getattr(fn, "__name__", "kernel")

    # ----- the key and the disk cache -----

    def _key(self, args, kwargs):
        """The values of the ``key`` arguments, then the dtype of every tensor argument (as
        Triton's autotuner). Every launch computes it: positions are looked up once
        (``_key_positions``), not per call."""
        names = self.arg_names
        n = min(len(args), len(names))
        key = []
        for name, position in self._key_positions:
            if position < n:
                key.append(args[position])
            elif name in kwargs:
                key.append(kwargs[name])
        for i in range(n):
            dt = getattr(args[i], "dtype", None)
            if dt is not None:
                key.append(_dtype_name(dt))
        if kwargs:
            for name, value in kwargs.items():
                if name in self._arg_name_set:
                    dt = getattr(value, "dtype", None)
                    if dt is not None:
                        key.append(_dtype_name(dt))
        return tuple(key)

    def _disk_path(self, key):
        try:
            device = _driver.get_device(_driver.driver.active.get_current_device()).name
        except _tritium.NoGpuError:
            device = "none"
        text = json.dumps({
            "fn": self.base_fn.cache_key if self.base_fn else self.__name__,
            "configs": [c._as_json() for c in self.configs],
            "key": [repr(k) for k in key],
            "device": device,
            "compiler": _tritium.compiler_version(),
            # The timed kernels differ with persistent programs on and off.
            "persistent_programs": persistent_programs(),
            "descriptor_loads": descriptor_loads(),
        }, sort_keys=True, default=repr)
        digest = hashlib.sha256(text.encode()).hexdigest()
        return os.path.join(_tritium.cache_dir(), "autotune", f"{digest}.json")

    def _load(self, key):
        if not self.cache_results:
            return None
        try:
            with open(self._disk_path(key)) as f:
                data = json.load(f)
        except (OSError, ValueError):
            return None
        for config in self.configs:
            if config._as_json() == data.get("config"):
                return config
        return None

    def _store(self, key, config):
        if not self.cache_results:
            return
        path = self._disk_path(key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump({"config": config._as_json(), "key": [repr(k) for k in key],
                           "timings": {str(c): t for c, t in (self.configs_timings or {}).items()}},
                          f, default=repr)
            os.replace(tmp, path)
        except OSError:
            pass

    # ----- pruning, compiling and timing -----

    def prune_configs(self, kwargs, nargs):
        pruned = self.configs
        if self.early_config_prune:
            pruned = self.early_config_prune(self.configs, nargs, **kwargs)
            if not pruned:
                raise RuntimeError(f"{self.__name__}: early_config_prune pruned every config")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(self.configs) * top_k)
            elif not isinstance(top_k, int):
                raise TypeError("top_k must be an int or a float <= 1.0")
            if len(pruned) > top_k:
                est = {c: self.perf_model(**nargs, **kwargs, **c.all_kwargs()) for c in pruned}
                pruned = sorted(est, key=est.get)[:top_k]
        return pruned

    def precompile(self, configs, args, kwargs):
        """Compiles every config's kernel in one parallel batch; returns the configs whose
        compilation failed (with the error)."""
        device = _driver.driver.active.get_current_device()
        pending = []
        failed = {}
        for config in configs:
            merged = {**kwargs, **config.all_kwargs()}
            try:
                job = self.fn.prepare_call(args, merged, device)
            except (TypeError, ValueError):
                raise
            if job is not None and job[2] is not None:
                pending.append((config, job))
        if pending:
            results = _tritium.compile_many([job[2][0] for _, job in pending])
            for (config, job), result in zip(pending, results):
                if isinstance(result, BaseException):
                    failed[config] = result
                else:
                    self.base_fn.install(job[0], job[1], job[2], result)
        return failed

    def _bench(self, config, args, kwargs):
        current = {**dict(zip(self.arg_names, args)), **kwargs, **config.all_kwargs()}
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self._pre_hook(args)
            try:
                self.fn.run(*args, **kwargs, **config.all_kwargs())
            finally:
                self._post_hook(args)

        do_bench = self._do_bench
        if do_bench is None and self.use_cuda_graph:
            from ..testing import do_bench_cudagraph

            def do_bench(fn, quantiles):
                return do_bench_cudagraph(fn, rep=self.num_reps, quantiles=quantiles)
        elif do_bench is None:
            from ..testing import do_bench as _do_bench

            def do_bench(fn, quantiles):
                return _do_bench(fn, warmup=self.num_warmups, rep=self.num_reps,
                                 quantiles=quantiles)
        try:
            return do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except (OutOfResources, CompilationError, DriverError):
            return [float("inf")] * 3

    def _pre_hook(self, args):
        if self.reset_to_zero or self.restore_value:
            self._restore_copies = {i: args[i].clone() for i in self.restore_value}
            for i in self.reset_to_zero:
                args[i].zero_()
        if self.user_pre_hook:
            self.user_pre_hook(dict(zip(self.arg_names, args)))

    def _post_hook(self, args):
        for i, copy in getattr(self, "_restore_copies", {}).items():
            args[i].copy_(copy)
        self._restore_copies = {}
        if self.user_post_hook:
            self.user_post_hook(dict(zip(self.arg_names, args)), exception=None)

    # ----- calls -----

    def run(self, *args, **kwargs):
        # `kwargs` is this call's own dict: what remains after the launch's own keys is the
        # kernel's keyword arguments. The arguments by name are built only where a hook or the
        # tuning needs them, not on every launch.
        grid = kwargs.pop("grid", None)
        warmup = kwargs.pop("warmup", False)
        call_kwargs = kwargs
        used_cached_result = True
        if len(self.configs) > 1:
            key = self._key(args, call_kwargs)
            if key not in self.cache:
                self.nargs = dict(zip(self.arg_names, args))
                config = self._load(key)
                if config is None:
                    used_cached_result = False
                    if warmup:
                        # Compile every candidate; nothing can be timed without launching.
                        self.precompile(self.prune_configs(call_kwargs, self.nargs), args,
                                        {**call_kwargs, "grid": grid})
                        return None
                    try:
                        _driver.get_device(_driver.driver.active.get_current_device())
                    except _tritium.NoGpuError as e:
                        raise _tritium.NoGpuError(f"{self.__name__}: cannot autotune: {e}") from None
                    start = time.time()
                    pruned = self.prune_configs(call_kwargs, self.nargs)
                    failed = self.precompile(pruned, args, {**call_kwargs, "grid": grid})
                    timings = {}
                    for c in pruned:
                        if c in failed:
                            timings[c] = [float("inf")] * 3
                        else:
                            timings[c] = self._bench(c, args, {**call_kwargs, "grid": grid})
                    self.bench_time = time.time() - start
                    self.configs_timings = timings
                    config = builtins.min(timings, key=lambda c: _first(timings[c]))
                    if _first(timings[config]) == float("inf"):
                        errors = "; ".join(f"{c}: {e}" for c, e in failed.items())
                        raise CompilationError(
                            f"{self.__name__}: no config compiles and runs ({errors})")
                    self._store(key, config)
                self.cache[key] = config
            config = self.cache[key]
        else:
            config = self.configs[0]
            key = None
        self.best_config = config
        if not used_cached_result and os.environ.get("TRITON_PRINT_AUTOTUNING") == "1":
            print(f"Triton autotuning for function {self.__name__},\nwith key as {key},\n"
                  f"finished after {self.bench_time:.2f}s,\nbest config selected: {config};")
        if config.pre_hook is not None and not warmup:
            config.pre_hook({**dict(zip(self.arg_names, args)), **call_kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, grid=grid, warmup=warmup, **call_kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def prepare_call(self, args, kwargs, device):
        return self.fn.prepare_call(args, kwargs, device)

    def warmup(self, *args, **kwargs):
        return self.run(*args, warmup=True, **kwargs)


_DTYPE_NAMES = {}


def _dtype_name(dt):
    """``str(dt)``, memoized (dtypes are few; ``str`` of a torch dtype is not free)."""
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        name = _DTYPE_NAMES[dt] = str(dt)
    return name


def _first(timing):
    return timing[0] if isinstance(timing, (list, tuple)) else timing


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=True):
    """``@tritium.autotune(configs=[tritium.Config(...), ...], key=["n"])`` above ``@jit``."""

    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                         warmup=warmup, rep=rep, use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):

    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")

    def _with_values(self, args, kwargs):
        kwargs = dict(kwargs)
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(self.arg_names, args)), **kwargs})
        return kwargs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **self._with_values(args, kwargs))

    def prepare_call(self, args, kwargs, device):
        return self.fn.prepare_call(args, self._with_values(args, kwargs), device)


def heuristics(values):
    """``@tritium.heuristics({"BLOCK": lambda args: ...})``: meta-parameters computed from the
    other arguments."""

    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)

    return decorator
