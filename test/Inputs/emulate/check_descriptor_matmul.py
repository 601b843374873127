"""A batched matmul through 3-D tensor descriptors made in the kernel, lowered by Tritium and run
on the CPU (simt_emu) against a reference computed here:

    python3 check_descriptor_matmul.py DIR   (DIR: `tritium compile --emit ll` of
        python/tests/gpu/matmul_variants.py's batched_descriptor_matmul_kernel at 64x64x32
        tiles and 4 warps; with --descriptor-loads the descriptors are the launcher's, passed
        as the runtime encodes them from the metadata's host_descriptors)

The kernel loads 1 x BLOCK_M x BLOCK_K blocks of its batch and reshapes them to 2-D, which
-triton-combine folds into rank-reduced descriptor loads (and the store's): on sm_90 pipelined
in rings of TMA copies with three coordinates each (batch, row, column) and a wgmma in flight,
on sm_80 per-element loads and mma.sync. Three batches
of 80x208 A and 208x48 B: M and N not multiples of the tiles (the second row of tiles is mostly
past M: zero-filled, its stores clipped), K in seven steps of 32, the last partial (more steps
than the three stages: the rings wrap). Every input is a multiple of 1/8 in [-2, 2], so each
product and sum is exact in f32 and the f16 result must be the reference's rounding bit for bit.
C is poisoned and followed by a guard that must stay untouched. Prints one line and exits 1 on
any difference."""
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simt_emu  # noqa: E402

KERNEL = "batched_descriptor_matmul_kernel"
BATCHES, M, N, K = 3, 80, 48, 208
BLOCK_M, BLOCK_N = 64, 64
GUARD = 256
POISON = 0x7E01  # an f16 NaN no result has


def f16(value):
    """The f16 nearest `value` (ties to even), as a float."""
    return struct.unpack("<e", struct.pack("<e", value))[0]


def main(d):
    random.seed(5)
    a = [random.randint(-16, 16) / 8 for _ in range(BATCHES * M * K)]
    b = [random.randint(-16, 16) / 8 for _ in range(BATCHES * K * N)]
    meta = json.load(open(os.path.join(d, f"{KERNEL}.json")))
    warps = meta["num_warps"]
    grid = ((M + BLOCK_M - 1) // BLOCK_M, (N + BLOCK_N - 1) // BLOCK_N, BATCHES)
    programs = grid[0] * grid[1] * grid[2]
    c_words = BATCHES * M * N + GUARD
    params = [("buf", 0), ("buf", 1), ("buf", 2), ("i32", BATCHES), ("i32", M), ("i32", N), ("i32", K)]
    buffers = [struct.pack(f"<{len(a)}e", *a), struct.pack(f"<{len(b)}e", *b),
               struct.pack(f"<{c_words}H", *([POISON] * c_words))]
    # Descriptors the launcher encodes (compiled with --descriptor-loads): their extents and
    # strides from the arguments, as the runtime computes them.
    values = {i: v for i, (kind, v) in enumerate(params) if kind == "i32"}

    def value(entry):
        if "product" in entry:
            product = 1
            for factor in entry["product"]:
                product *= value(factor)
            return product
        if "programs" in entry:
            return grid[entry["programs"]]
        return values[entry["arg"]] if "arg" in entry else entry["value"]

    for desc in meta.get("host_descriptors", []):
        params.append(("tmap", (params[desc["base"]][1], {
            "elem_type": desc["elem_type"], "swizzle": desc["swizzle"], "box": desc["block_size"],
            "dims": [value(e) for e in desc["shape"]], "strides": [value(e) for e in desc["strides"]]})))
    if meta["global_scratch_size"]:
        # The TMA descriptors the programs write (sm_90): one zero-filled slice per program, the
        # kernel's last parameter, as the runtime allocates it.
        align = max(meta["global_scratch_align"], 1)
        params.append(("buf", 3))
        buffers.append(bytes(-(-meta["global_scratch_size"] // align) * align * programs))
    out = simt_emu.run(os.path.join(d, f"{KERNEL}.ll"), KERNEL, warps, grid, params, buffers)
    words = struct.unpack(f"<{c_words}H", out[2])
    got = struct.unpack(f"<{BATCHES * M * N}e", out[2][:2 * BATCHES * M * N])
    wrong = []
    for z in range(BATCHES):
        for i in range(M):
            row = a[(z * M + i) * K:(z * M + i + 1) * K]
            for j in range(N):
                want = f16(sum(row[k] * b[(z * K + k) * N + j] for k in range(K)))
                at = (z * M + i) * N + j
                if got[at] != want:
                    wrong.append(f"c[{z}][{i}][{j}] = {got[at]} (bits {words[at]:#06x}), expected {want}")
    return report(KERNEL, wrong, words[BATCHES * M * N:], programs)


def report(kernel, wrong, guard, programs):
    """Prints the verdict line (the wrong elements, the guard words written) and returns the
    exit status."""
    touched = sum(1 for w in guard if w != POISON)
    if wrong or touched:
        print(f"{kernel}: {len(wrong)} wrong elements, {touched} guard elements written; "
              + "; ".join(wrong[:5]))
        return 1
    print(f"{kernel}: ok ({programs} programs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
