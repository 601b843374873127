"""The corpus' transposes with their programs renumbered by -tritium-program-order, lowered by
Tritium and run on the CPU (simt_emu) against the transpose computed here:

    python3 check_program_order.py DIR   (DIR: `tritium compile --emit ll` of the corpus'
        transpose_ptr_bf16.ttir and transpose_f32.ttir, after triton-opt --tritium-program-order)

Both tile 64x64. The grids are ragged for the renumbering: 208x144 bf16 (4x3 programs) and 176x272
f32 (3x5), with groups of 3 rows of tiles in the IR (a last group of one row); edge tiles masked.
(Every extent a multiple of 16: the corpus' TTIR is specialized to divisible-by-16 integers.)
A program id read the hardware's way, a tile skipped or written twice over another's shows up as
a wrong element, a poisoned one left, or a guard word written. Prints a line a kernel; exits 1 on
any difference."""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402

GUARD = 256
BLOCK = 64
POISON = {"H": 0x7FC1, "I": 0x7FC00001}  # NaNs no input holds


def check(d, kernel, name, m, n, code, size):
    random.seed(m * n)
    words = [random.getrandbits(8 * size) & (0x3FFF if size == 2 else 0x3FFFFFFF) for _ in range(m * n)]
    out_words = n * m + GUARD
    buffers = [struct.pack(f"<{m * n}{code}", *words),
               struct.pack(f"<{out_words}{code}", *([POISON[code]] * out_words))]
    params = [("buf", 0), ("buf", 1), ("i32", m), ("i32", n), ("i32", n), ("i32", m)]
    grid = (-(-m // BLOCK), -(-n // BLOCK), 1)
    out = simt_emu.run(os.path.join(d, f"{name}.ll"), kernel, 4, grid, params, buffers)
    got = struct.unpack(f"<{out_words}{code}", out[1])
    wrong = [f"y[{j}][{i}] = {got[j * m + i]:#x}, expected {words[i * n + j]:#x}"
             for i in range(m) for j in range(n) if got[j * m + i] != words[i * n + j]]
    touched = sum(1 for w in got[m * n:] if w != POISON[code])
    if wrong or touched:
        print(f"{name}: {len(wrong)} wrong elements, {touched} guard elements written; " + "; ".join(wrong[:5]))
        return 1
    print(f"{name}: ok ({grid[0]}x{grid[1]} programs)")
    return 0


def main(d):
    status = check(d, "transpose_ptr_kernel", "transpose_ptr_bf16", 208, 144, "H", 2)
    return check(d, "transpose_kernel", "transpose_f32", 176, 272, "I", 4) or status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
