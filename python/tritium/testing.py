"""``tritium.testing``: ``do_bench``, ``do_bench_cudagraph`` and ``assert_close``, as Triton's."""

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


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds ``fn`` takes on the GPU without launch overhead: ``fn`` captured in a CUDA
    graph (on a side stream, as capture needs), the graph of about ``rep`` ms of calls replayed
    and timed with CUDA events, ten times; per call, ``quantiles`` or the ``return_mode``
    statistic of the ten."""
    assert return_mode in ("min", "max", "mean", "median", "all")
    torch = _torch()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        stream.synchronize()
        # One call's time, from a graph of five.
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(5):
                fn()
        stream.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        graph.replay()
        end.record(stream)
        stream.synchronize()
        estimate_ms = max(start.elapsed_time(end) / 5, 1e-6)
        n_repeat = max(1, int(rep / estimate_ms))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(n_repeat):
                if grad_to_none is not None:
                    for x in grad_to_none:
                        x.grad = None
                fn()
        stream.synchronize()
        times = []
        for _ in range(10):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record(stream)
            graph.replay()
            end.record(stream)
            stream.synchronize()
            times.append(start.elapsed_time(end) / n_repeat)
    return _summarize(times, quantiles, return_mode)

def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Asserts ``|x - y| <= atol + rtol * |y|`` element by element (defaults: ``atol=1e-2``,
    ``rtol=0``; NaNs equal) for tensors (compared on the CPU in float64), arrays, sequences
    and numbers."""
    if atol is None:
        atol = 1e-2
    if rtol is None:
        rtol = 0.0
    torch = _torch()
    if torch is not None and (isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor)):
        atol = atol(x.dtype) if callable(atol) else atol
        rtol = rtol(x.dtype) if callable(rtol) else rtol
        xt = torch.as_tensor(x).detach().cpu().double()
        yt = torch.as_tensor(y).detach().cpu().double()
        xt, yt = torch.broadcast_tensors(xt, yt)
        close = torch.isclose(xt, yt, rtol=rtol, atol=atol, equal_nan=True)
        if not bool(close.all()):
            bad = (~close).nonzero()
            first = tuple(bad[0].tolist())
            diff = (xt - yt).abs()
            raise AssertionError(
                f"{err_msg}\nNot equal to tolerance rtol={rtol}, atol={atol}: {bad.shape[0]} / "
                f"{close.numel()} elements differ; max abs difference {float(diff.max())}; first "
                f"at {first}: {float(xt[first])} vs {float(yt[first])}")
        return
    xs, ys = _flat(x), _flat(y)
    if len(xs) != len(ys):
        if len(ys) == 1:
            ys = ys * len(xs)
        elif len(xs) == 1:
            xs = xs * len(ys)
        else:
            raise AssertionError(f"{err_msg} shapes differ: {len(xs)} vs {len(ys)} elements")
    for i, (a, b) in enumerate(zip(xs, ys)):
        a, b = float(a), float(b)
        if a != a and b != b:
            continue
        if not abs(a - b) <= atol + rtol * abs(b):
            raise AssertionError(f"{err_msg} element {i}: {a} is not close to {b} "
                                 f"(atol={atol}, rtol={rtol})")


def _flat(v):
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        out = []
        for item in v:
            out.extend(_flat(item))
        return out
    return [v]


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
