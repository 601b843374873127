"""fp8 and bf16 conversions lowered by Tritium, run on the CPU (simt_emu, whose C model of the
`cvt` instructions follows the PTX ISA), against conversions computed here from the values:

    python3 check_casts.py DIR    (DIR: `tritium compile --emit ll` of the corpus' cast_f32_fp8,
                                   cast_fp8_f16_i64, cast_f16_fp8_huge and cast_bf16_f32)

Every f16 and bf16 value and every fp8 code is converted, plus f32 values around each e4m3
rounding boundary, past the largest finite value, subnormal, infinite and NaN; the outputs are
poisoned first. Prints one line per kernel and exits 1 on any difference."""
import bisect
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402


def e4m3_value(code):
    e, m, s = (code >> 3) & 15, code & 7, -1.0 if code & 0x80 else 1.0
    if code & 0x7f == 0x7f:
        return math.nan
    return s * (m * 2.0 ** -9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


POSITIVE = [e4m3_value(code) for code in range(0x7f)]  # finite non-negative codes, increasing


def e4m3_code(x):
    """Round to nearest even among e4m3's finite values, saturating at 448 (.satfinite)."""
    sign = 0x80 if math.copysign(1, x) < 0 else 0
    if math.isnan(x):
        return sign | 0x7f
    a = abs(x)
    above = bisect.bisect_left(POSITIVE, a)
    if above == len(POSITIVE):
        return sign | 0x7e
    if above == 0 or POSITIVE[above] == a:
        return sign | above
    below = above - 1
    d_below, d_above = a - POSITIVE[below], POSITIVE[above] - a
    if d_below < d_above or (d_below == d_above and below % 2 == 0):
        return sign | below
    return sign | above


def check(name, got, want):
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if bad:
        i, g, w = bad[0]
        print(f"{name}: {len(bad)} of {len(want)} differ, first at {i}: {g:#x} against {w:#x}")
    else:
        print(f"{name}: ok")
    return not bad


def run(d, name, kernel, block, values_bytes, n, out_bytes_each, offsets_i64=False):
    grid = (n + block - 1) // block
    size = grid * block
    out = simt_emu.run(os.path.join(d, f"{name}.ll"), kernel, 4, grid,
                       [("buf", 0), ("buf", 1), ("i64" if offsets_i64 else "i32", n)],
                       [values_bytes, b"\xa5" * (size * out_bytes_each)])
    return out[1]


def main(d):
    ok = True
    # f32 -> e4m3: the midpoints between neighbouring codes and values just beside them.
    codes = [e4m3_value(c) for c in range(0x7f)]
    xs = []
    for lo, hi in zip(codes, codes[1:]):
        mid = (lo + hi) / 2
        xs += [lo, mid, math.nextafter(mid, 0), math.nextafter(mid, math.inf)]
    xs += [448.0, 464.0, 470.0, 1e6, math.inf, 2.0 ** -12, 2.0 ** -10, 0.0, math.nan]
    xs = xs + [-x for x in xs]
    xs += [0.0] * (-len(xs) % 16)  # n is specialized as divisible by 16
    xs = list(struct.unpack(f"{len(xs)}f", struct.pack(f"{len(xs)}f", *xs)))
    block = 1024  # cast_kernel's BLOCK in the corpus TTIR
    n = len(xs)
    grid = (n + block - 1) // block
    got = run(d, "cast_f32_fp8", "cast_kernel", block, struct.pack(f"{grid * block}f", *(xs + [0.0] * (grid * block - n))),
              n, 1)
    ok &= check("cast_f32_fp8", list(got[:n]), [e4m3_code(x) for x in xs]) and \
        check("cast_f32_fp8 (masked tail untouched)", list(got[n:]), [0xa5] * (len(got) - n))
    # e4m3 -> f16, every code.
    codes = bytes(range(256)) * 4
    got = run(d, "cast_fp8_f16_i64", "cast_i64_kernel", 1024, codes, len(codes), 2, offsets_i64=False)
    halves = list(struct.unpack(f"{len(codes)}H", got))
    want = []
    for c in codes:
        v = e4m3_value(c)
        want.append(0x7e00 if math.isnan(v) else struct.unpack("H", struct.pack("e", v))[0])
    # NaN: any quiet NaN encoding is right.
    halves = [0x7e00 if (h & 0x7c00) == 0x7c00 and (h & 0x3ff) else h for h in halves]
    want = [0x7e00 if (w & 0x7c00) == 0x7c00 and (w & 0x3ff) else w for w in want]
    ok &= check("cast_fp8_f16_i64", halves, want)
    # f16 -> e4m3 (64-bit offsets), every f16 value.
    bits = list(range(65536))
    got = run(d, "cast_f16_fp8_huge", "cast_i64_kernel", 1024, struct.pack("65536H", *bits), 65536, 1,
              offsets_i64=True)
    want = [e4m3_code(struct.unpack("e", struct.pack("H", b))[0]) for b in bits]
    ok &= check("cast_f16_fp8_huge", list(got), want)
    # bf16 -> f32, every bf16 value: the same bits, shifted.
    got = run(d, "cast_bf16_f32", "cast_kernel", 1024, struct.pack("65536H", *bits), 65536, 4)
    ok &= check("cast_bf16_f32", list(struct.unpack("65536I", got)), [b << 16 for b in bits])
    return ok


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1]) else 1)
