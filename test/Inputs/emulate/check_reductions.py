"""Row reductions lowered by Tritium, run on the CPU (simt_emu) against references computed here:

    python3 check_reductions.py DIR [KERNEL ...]   (DIR: `tritium compile --emit ll` of the
        corpus' argmin_rows_f16 at 4 warps, cross_entropy_fwd and softmax_online at 8)

argmin over 1024-column f16 rows (values drawn from few levels, so ties are common: the first
index of the minimum wins), two programs of four rows, the indices poisoned first.
cross_entropy_fwd and softmax_online (the online-softmax pair kept per thread across their
4096-column blocks): rows of 16, 112, 4096, 4112, 5008 and 9008 columns (a thread's elements all
masked in a block, so its running maximum stays -inf), one with a large spread, against the
loss and softmax computed in double precision. Prints one line per kernel and exits 1 on any
difference."""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402


def argmin_rows(d):
    rows, n = 8, 1024
    x = [random.choice([-2.0, -1.5, -1.0, 0.0, 0.5, 1.0, 3.0]) for _ in range(rows * n)]
    out = simt_emu.run(os.path.join(d, "argmin_rows_f16.ll"), "argmin_rows_kernel", 4, rows // 4,
                       [("buf", 0), ("buf", 1), ("i32", n), ("i32", rows), ("i32", n)],
                       [struct.pack(f"{rows * n}e", *x), struct.pack(f"{rows}i", *([-7] * rows))])
    got = list(struct.unpack(f"{rows}i", out[1]))
    want = []
    for r in range(rows):
        row = x[r * n:(r + 1) * n]
        want.append(row.index(min(row)))
    if got == want:
        print("argmin_rows_f16: ok")
        return True
    print(f"argmin_rows_f16: {got} against {want}")
    return False


def bf16_bits(value):
    """The bf16 nearest `value` (ties to even), as its 16 bits."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


# Columns per row: partial blocks (threads with nothing but masked elements), one block, two
# and three blocks; multiples of 16, as the TTIR's `tt.divisibility = 16` on n_cols and the
# stride promises (the loads are vectorized on it).
WIDTHS = [112, 16, 4096, 5008, 9008, 4112]
STRIDE = 9008


def random_rows(spread_row):
    rows = []
    for r, n in enumerate(WIDTHS):
        scale = 30.0 if r == spread_row else 3.0
        rows.append([random.gauss(0.0, scale) for _ in range(n)])
    return rows


def close(got, want, tolerance):
    return abs(got - want) <= tolerance * max(1.0, abs(want))


def cross_entropy_fwd(d):
    rows = random_rows(spread_row=3)
    bits = [0] * (len(rows) * STRIDE)
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            bits[r * STRIDE + c] = bf16_bits(v)
    labels = [random.randrange(len(row)) for row in rows]
    failures = []
    for r, row in enumerate(rows):
        n = len(row)
        values = [bf16_value(b) for b in bits[r * STRIDE:r * STRIDE + n]]
        out = simt_emu.run(os.path.join(d, "cross_entropy_fwd.ll"), "cross_entropy_fwd_kernel", 8,
                           1, [("buf", 0), ("buf", 1), ("buf", 2), ("i32", STRIDE), ("i32", n)],
                           [struct.pack(f"{n}H", *bits[r * STRIDE:r * STRIDE + n]),
                            struct.pack("q", labels[r]), struct.pack("f", float("nan"))])
        got = struct.unpack("f", out[2])[0]
        top = max(values)
        want = top + math.log(sum(math.exp(v - top) for v in values)) - values[labels[r]]
        if not close(got, want, 1e-5):
            failures.append(f"{n} columns: {got} against {want}")
    print("cross_entropy_fwd: " + ("ok" if not failures else "; ".join(failures)))
    return not failures


def softmax_online(d):
    failures = []
    for r, row in enumerate(random_rows(spread_row=4)):
        n = len(row)
        values = [struct.unpack("f", struct.pack("f", v))[0] for v in row]
        out = simt_emu.run(os.path.join(d, "softmax_online.ll"), "softmax_online_kernel", 8, 1,
                           [("buf", 0), ("buf", 1), ("i32", n), ("i32", n), ("i32", n)],
                           [struct.pack(f"{n}f", *([float("nan")] * n)), struct.pack(f"{n}f", *values)])
        got = struct.unpack(f"{n}f", out[0])
        top = max(values)
        total = sum(math.exp(v - top) for v in values)
        bad = [c for c in range(n) if not close(got[c], math.exp(values[c] - top) / total, 1e-5)]
        if bad:
            c = bad[0]
            failures.append(f"{n} columns: {len(bad)} wrong, [{c}] {got[c]} against "
                            f"{math.exp(values[c] - top) / total}")
    print("softmax_online: " + ("ok" if not failures else "; ".join(failures)))
    return not failures


CHECKS = {"argmin_rows_f16": argmin_rows, "cross_entropy_fwd": cross_entropy_fwd,
          "softmax_online": softmax_online}


def main(d, names):
    random.seed(int(os.environ.get("SEED", "1")))
    results = [CHECKS[name](d) for name in names or CHECKS]
    return all(results)


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1], sys.argv[2:]) else 1)
