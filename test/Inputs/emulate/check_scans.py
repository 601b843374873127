"""Scans lowered by Tritium, run on the CPU (simt_emu) against sequential references on random
inputs, outputs poisoned (NaN, or -7 for integers) first:

    python3 check_scans.py DIR    (DIR: `tritium compile --emit ll` of test/Inputs/gpu/scan.ttir
                                   and the corpus' cumsum_rows, cummax_rows, linear_scan and
                                   cumprod_rows, 4 warps each)

Prints one line per kernel (`NAME: ok` or what differs) and exits 1 on any difference."""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402

NAN = float("nan")


def f32(xs):
    return struct.pack(f"{len(xs)}f", *xs)


def i32(xs):
    return struct.pack(f"{len(xs)}i", *xs)


def floats(b):
    return list(struct.unpack(f"{len(b) // 4}f", b))


def ints(b):
    return list(struct.unpack(f"{len(b) // 4}i", b))


def uniform(n, lo=-1.0, hi=1.0):
    # Rounded to f32, as the kernel sees them.
    return floats(f32([random.uniform(lo, hi) for _ in range(n)]))


def compare(name, got, want, tol):
    """got/want: lists (want None where the output must stay poisoned)."""
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            ok = g != g if isinstance(g, float) else g == -7
        elif isinstance(w, int):
            ok = g == w
        else:
            ok = abs(g - w) <= tol * max(1.0, abs(w))
        if not ok:
            bad.append((i, g, w))
    if bad:
        i, g, w = bad[0]
        print(f"{name}: {len(bad)} of {len(want)} differ, first at {i}: {g} against {w}")
    else:
        print(f"{name}: ok")
    return not bad


def scan_pattern(d):
    # test/Inputs/gpu/scan.ttir: 1024-element blocks, n = 2000 (the second block masked).
    n, block = 2000, 1024
    grid = (n + block - 1) // block
    size = grid * block
    x = uniform(size)
    xi = [random.randint(-1000, 1000) for _ in range(size)]
    out = simt_emu.run(os.path.join(d, "scan.ll"), "scan", 4, grid,
                       [("buf", 0), ("buf", 1), ("buf", 2), ("buf", 3), ("buf", 4), ("i32", n)],
                       [f32(x), i32(xi), f32([NAN] * size), f32([NAN] * size), i32([-7] * size)])
    cumsum, rcumsum, cummax = [None] * size, [None] * size, [None] * size
    for b in range(grid):
        lo, hi = b * block, min(n, (b + 1) * block)
        acc, m = 0.0, None
        for i in range(lo, hi):
            acc += x[i]
            m = xi[i] if m is None else max(m, xi[i])
            cumsum[i], cummax[i] = acc, m
        acc = 0.0
        for i in range(hi - 1, lo - 1, -1):
            acc += x[i]
            rcumsum[i] = acc
    ok = compare("scan cumsum", floats(out[2]), cumsum, 1e-5)
    ok &= compare("scan reverse cumsum", floats(out[3]), rcumsum, 1e-5)
    return ok & compare("scan cummax i32", ints(out[4]), cummax, 0)


def rows_reference(x, rows, n, stride, step, start):
    want = []
    for r in range(rows):
        acc = start
        for c in range(stride):
            if c < n:
                acc = step(acc, x[r * stride + c])
                want.append(acc)
            else:
                want.append(None)
    return want


def corpus(d):
    ok = True
    # cumsum_rows: BLOCK = N = 4096 (four elements a thread, eight chunks).
    rows, n = 3, 4096
    x = uniform(rows * n)
    out = simt_emu.run(os.path.join(d, "cumsum_rows.ll"), "cumsum_row_kernel", 4, rows,
                       [("buf", 0), ("buf", 1), ("i32", n), ("i32", n)], [f32(x), f32([NAN] * (rows * n))])
    ok &= compare("cumsum_rows", floats(out[1]), rows_reference(x, rows, n, n, lambda a, v: a + v, 0.0), 1e-4)
    # cummax_rows: BLOCK = 4096 over 3000 columns (masked with -inf), stride 3008.
    rows, n, stride = 3, 3000, 3008
    x = uniform(rows * stride)
    out = simt_emu.run(os.path.join(d, "cummax_rows.ll"), "cummax_row_kernel", 4, rows,
                       [("buf", 0), ("buf", 1), ("i32", stride), ("i32", n)],
                       [f32(x), f32([NAN] * (rows * stride))])
    ok &= compare("cummax_rows", floats(out[1]), rows_reference(x, rows, n, stride, max, -math.inf), 0.0)
    # linear_scan: h[t] = a[t] h[t-1] + b[t], two operands, BLOCK = N = 2048.
    rows, n = 2, 2048
    a = floats(f32([1 / (1 + math.exp(-(v + 2))) for v in uniform(rows * n)]))
    b = uniform(rows * n)
    out = simt_emu.run(os.path.join(d, "linear_scan.ll"), "linear_scan_kernel", 4, rows,
                       [("buf", 0), ("buf", 1), ("buf", 2), ("i32", n), ("i32", n)],
                       [f32(a), f32(b), f32([NAN] * (rows * n))])
    want = []
    for r in range(rows):
        h = 0.0
        for c in range(n):
            h = a[r * n + c] * h + b[r * n + c]
            want.append(h)
    ok &= compare("linear_scan", floats(out[2]), want, 1e-5)
    # cumprod_rows: 4 x 512 tiles along the rows, two programs.
    rows, n = 8, 512
    x = floats(f32([1 + 0.01 * v for v in uniform(rows * n)]))
    out = simt_emu.run(os.path.join(d, "cumprod_rows.ll"), "cumprod_rows_kernel", 4, rows // 4,
                       [("buf", 0), ("buf", 1), ("i32", n), ("i32", rows), ("i32", n)],
                       [f32(x), f32([NAN] * (rows * n))])
    ok &= compare("cumprod_rows", floats(out[1]), rows_reference(x, rows, n, n, lambda a, v: a * v, 1.0), 1e-5)
    return ok


if __name__ == "__main__":
    random.seed(int(os.environ.get("SEED", "1")))
    d = sys.argv[1]
    ok = scan_pattern(d) & corpus(d)
    sys.exit(0 if ok else 1)
