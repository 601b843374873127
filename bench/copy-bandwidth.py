"""The GPU's copy bandwidth, the corpus' yardstick (issue 12): torch's device-to-device copy of
256 MiB, 1 GiB and 2 GiB of f32, median of 50 timed copies after 10 warm-up ones, bytes read +
written per second. GPU machine: python3 bench/copy-bandwidth.py"""
import statistics

import torch

for n in (2**26, 2**28, 2**29):
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    times = []
    for _ in range(60):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        y.copy_(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    t = statistics.median(times[10:])
    print(f"copy {n * 4 / 2**20:.0f} MiB: {t:.4f} ms, {2 * n * 4 / t / 1e6:.0f} GB/s")
