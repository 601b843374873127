"""Tutorial 09's persistent descriptor matmul, lowered by Tritium and run on the CPU (simt_emu)
against a reference computed here:

    python3 check_persistent_descriptor_matmul.py DIR [N]   (DIR: `tritium compile --emit ll`
        of python/tests/gpu/t09_descriptors.py's matmul_descriptor_persistent_kernel at 64x64x32
        tiles, or wider ones, GROUP_SIZE_M 2 and NUM_SMS 2; N the output's columns, default 144)

Two programs walk six output tiles, three each, in one loop fused with the K loop: the A and B
tiles come through TMA rings with the wgmma in flight, and each tile's result leaves through a
TMA store from one buffer the next tile's store waits on (-tritongpu-pipeline's TMA stores), so
a store that read a buffer already overwritten, went to another tile's coordinates or was never
issued shows up here. The three descriptors are the host's, encoded as the runtime does. 96x160
A and 160x144 B: M and N not multiples of the tiles (the stores of the edge tiles clipped), K in
five steps of 32 (the rings wrap). Inputs are multiples of 1/8 in [-2, 2]: every product and
sum is exact in f32, so the f16 result must be the reference's rounding bit for bit (with wider
tiles, an N past 256 puts real columns in a B load's later boxes). C is poisoned and followed
by a guard that must stay untouched. Prints one line; exits 1 on any difference."""
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402
from check_descriptor_matmul import GUARD, POISON, f16, report  # noqa: E402

KERNEL = "matmul_descriptor_persistent_kernel"
M, K = 96, 160
N_DEFAULT = 144
PROGRAMS = 2  # NUM_SMS


def main(d, n=N_DEFAULT):
    N = n
    random.seed(9)
    a = [random.randint(-16, 16) / 8 for _ in range(M * K)]
    b = [random.randint(-16, 16) / 8 for _ in range(K * N)]
    meta = json.load(open(os.path.join(d, f"{KERNEL}.json")))
    c_words = M * N + GUARD
    buffers = [struct.pack(f"<{len(a)}e", *a), struct.pack(f"<{len(b)}e", *b),
               struct.pack(f"<{c_words}H", *([POISON] * c_words))]
    params = []
    # Each tensor descriptor parameter: the descriptor, then its shape (i32) and strides (i64).
    for buffer, (rows, cols), desc in zip(range(3), [(M, K), (K, N), (M, N)], meta["tensordesc_meta"]):
        params.append(("tmap", (buffer, {"elem_type": desc["elem_type"], "swizzle": desc["swizzle"],
                                         "box": desc["block_size"], "dims": [rows, cols],
                                         "strides": [cols, 1]})))
        params += [("i32", rows), ("i32", cols), ("i64", cols), ("i64", 1)]
    params += [("i32", M), ("i32", N), ("i32", K)]
    out = simt_emu.run(os.path.join(d, f"{KERNEL}.ll"), KERNEL, meta["num_warps"], (PROGRAMS, 1, 1),
                       params, buffers)
    words = struct.unpack(f"<{c_words}H", out[2])
    got = struct.unpack(f"<{M * N}e", out[2][:2 * M * N])
    wrong = []
    for i in range(M):
        row = a[i * K:(i + 1) * K]
        for j in range(N):
            want = f16(sum(row[k] * b[k * N + j] for k in range(K)))
            if got[i * N + j] != want:
                wrong.append(f"c[{i}][{j}] = {got[i * N + j]} (bits {words[i * N + j]:#06x}), expected {want}")
    return report(KERNEL, wrong, words[M * N:], PROGRAMS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], *map(int, sys.argv[2:3])))
