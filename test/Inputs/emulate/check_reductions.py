"""Row reductions lowered by Tritium, run on the CPU (simt_emu) against references computed here:

    python3 check_reductions.py DIR   (DIR: `tritium compile --emit ll` of the corpus'
                                       argmin_rows_f16, 4 warps)

argmin over 1024-column f16 rows (values drawn from few levels, so ties are common: the first
index of the minimum wins), two programs of four rows, the indices poisoned first. Prints one
line per kernel and exits 1 on any difference."""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402


def main(d):
    random.seed(int(os.environ.get("SEED", "1")))
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


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1]) else 1)
