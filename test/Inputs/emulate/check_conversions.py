"""Layout conversions that go through shared memory in rounds, lowered by Tritium and run on the
CPU (simt_emu) on random 16-bit patterns, outputs poisoned (0xFFFF) first:

    python3 check_conversions.py DIR    (DIR: `tritium compile --emit ll` of the corpus'
                                         permute_bshd and test/Inputs/emulate/convert_rounds.ttgir)

permute_bshd permutes [B, S, H, D] into [B, H, S, D] through one conversion of a 16x4x128 f16
tile (two rounds of 8 KiB); convert_rounds copies a 128x128 f16 matrix through a conversion in
four rounds and the index of each element, as i32, through one in eight. Prints one line per kernel (`NAME: ok`
or what differs) and exits 1 on any difference."""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402

POISON = 0xFFFF


def u16(xs):
    return struct.pack(f"{len(xs)}H", *xs)


def halves(b):
    return list(struct.unpack(f"{len(b) // 2}H", b))


def report(name, got, want):
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if bad:
        i = bad[0]
        print(f"{name}: {len(bad)} of {len(want)} differ, first at {i}: {got[i]:#x} against {want[i]:#x}")
    else:
        print(f"{name}: ok")
    return not bad


def permute_bshd(d):
    B, S, H, D = 2, 32, 8, 128
    x = [random.randrange(0x7C00) for _ in range(B * S * H * D)]
    want = [0] * len(x)
    for b in range(B):
        for s in range(S):
            for h in range(H):
                for e in range(D):
                    want[((b * H + h) * S + s) * D + e] = x[((b * S + s) * H + h) * D + e]
    params = [("buf", 0), ("buf", 1), ("i32", S), ("i32", H), ("i32", S * H * D), ("i32", H * D),
              ("i32", D), ("i32", H * S * D), ("i32", S * D), ("i32", D)]
    out = simt_emu.run(os.path.join(d, "permute_bshd.ll"), "permute_bshd_kernel", 4,
                       (S // 16, H // 4, B), params, [u16(x), u16([POISON] * len(x))])
    return report("permute_bshd", halves(out[1]), want)


def convert_rounds(d):
    n = 128 * 128
    x = [random.randrange(0x7C00) for _ in range(n)]
    out = simt_emu.run(os.path.join(d, "convert_rounds.ll"), "convert_rounds", 4, (1,),
                       [("buf", 0), ("buf", 1), ("buf", 2)],
                       [u16(x), u16([POISON] * n), struct.pack(f"{n}i", *[-7] * n)])
    f16_ok = report("convert_rounds f16", halves(out[1]), x)
    i32_ok = report("convert_rounds i32", list(struct.unpack(f"{n}i", out[2])), list(range(n)))
    return f16_ok and i32_ok


def main(d):
    random.seed(11)
    results = [permute_bshd(d), convert_rounds(d)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
