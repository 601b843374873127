"""``tritium.testing``: ``do_bench`` and ``assert_close``, as Triton's."""

import math
import statistics

from .runtime.gpu import _torch


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        ordered = sorted(times)
        out = []
        for q in quantiles:
            # Linear interpolation between closest ranks (torch.quantile's default).
            pos = q * (len(ordered) - 1)
            lo, hi = math.floor(pos), math.ceil(pos)
            out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "median":
        return statistics.median(times)
    return statistics.fmean(times)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds ``fn`` takes on the GPU: about ``warmup`` ms of untimed calls, then about
    ``rep`` ms of calls timed one by one with CUDA events, the L2 cache cleared before each
    (a 256 MB buffer zeroed); ``quantiles`` or the ``return_mode`` statistic of the times."""
    assert return_mode in ("min", "max", "mean", "median", "all")
    torch = _torch()
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarize(times, quantiles, return_mode)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Asserts ``|x - y| <= atol + rtol * |y|`` element by element (defaults: ``atol=1e-2``,
    ``rtol=0``); tensors, arrays and numbers."""
    import numpy as np

    if atol is None:
        atol = 1e-2
    atol = atol(x.dtype) if callable(atol) else atol
    if rtol is None:
        rtol = 0.0
    rtol = rtol(x.dtype) if callable(rtol) else rtol

    def to_numpy(v):
        torch = _torch()
        if torch is not None and isinstance(v, torch.Tensor):
            if v.dtype == torch.bfloat16:
                v = v.float()
            return v.cpu().detach().numpy()
        return np.asarray(v)

    x, y = to_numpy(x), to_numpy(y)
    if x.size > 1 or y.size > 1:
        np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)
        return
    if not np.allclose(x, y, atol=atol, rtol=rtol, equal_nan=True):
        raise AssertionError(f"{err_msg} {x} is not close to {y} (atol={atol}, rtol={rtol})")


class Benchmark:
    """``triton.testing.Benchmark``: one table of a ``perf_report``."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None):
        self.x_names = x_names
        self.x_vals = x_vals
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.plot_name = plot_name
        self.args = args
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def run(self, show_plots=False, print_data=False, save_path="", **kwargs):
        """Runs every benchmark and prints its table (no plots)."""
        benchmarks = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        tables = []
        for bench in benchmarks:
            rows = []
            for x in bench.x_vals:
                xs = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
                point = dict(zip(bench.x_names, xs))
                row = list(xs)
                for line in bench.line_vals:
                    r = self.fn(**point, **{bench.line_arg: line}, **bench.args, **kwargs)
                    row.append(r[0] if isinstance(r, (list, tuple)) else r)
                rows.append(row)
            tables.append(rows)
            if print_data:
                print(f"{bench.plot_name}:")
                print("\t".join(list(bench.x_names) + list(bench.line_names)))
                for row in rows:
                    print("\t".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row))
        return tables


def perf_report(benchmarks):
    """``@triton.testing.perf_report(triton.testing.Benchmark(...))``."""
    return lambda fn: Mark(fn, benchmarks)
