"""Shared-memory bank conflicts of a lowered kernel, counted on the CPU from the emulator's trace.

    EMU_SMEM_TRACE=trace.txt python3 test/Inputs/emulate/simt_emu.py K.ll KERNEL WARPS GRID ARG...
    python3 bench/smem-conflicts.py trace.txt

The emulator (simt_emu.py, with EMU_SMEM_TRACE set) records every shared-memory access of the
first program: loads and stores of the LLVM IR, `cp.async`, and the row addresses of `ldmatrix`
and `stmatrix`. A warp's n-th access in each thread is one instruction (the kernels here do not
diverge around shared memory). Each is split into the phases the hardware serves together — 32
lanes for accesses of up to 4 bytes, 16 for 8 bytes, 8 for 16 bytes and for each 8x8 matrix of
`ldmatrix`/`stmatrix` — and a phase costs as many wavefronts as the most distinct 4-byte words
any of the 32 banks holds (a word read by several lanes is one). Adjacent accesses that the PTX
backend vectorizes (contiguous and aligned in every thread of the warp, up to 16 bytes) count as
one. Printed per kind and width:
instructions, wavefronts, and the ideal (one per phase that has active lanes), with the worst
instructions' lane offsets; a kernel free of conflicts shows wavefronts equal to the ideal.
Memory ordering and timing are not modelled: this counts what ncu calls shared-memory
wavefronts, not cycles."""
import collections
import sys

KINDS = {"l": "load", "s": "store", "c": "cp.async", "m": "ldmatrix row", "n": "stmatrix row"}


def phases(lanes):
    """`lanes`: [(lane, offset, bytes)] of one warp instruction -> lists of lanes served together."""
    width = max(b for _, _, b in lanes)
    per_phase = 8 if width >= 16 else 16 if width == 8 else 32
    groups = collections.defaultdict(list)
    for lane, off, b in lanes:
        groups[lane // per_phase].append((off, b))
    return list(groups.values())


def wavefronts(phase):
    words_by_bank = collections.defaultdict(set)
    for off, b in phase:
        for word in range(off // 4, (off + max(b, 1) - 1) // 4 + 1):
            words_by_bank[word % 32].add(word)
    return max(len(w) for w in words_by_bank.values())


def merged(sequences):
    """The accesses of one warp's threads (each thread's in order), with runs of adjacent ones
    the PTX backend's load/store vectorizer can join made one: accesses k, k+1, ... of one kind
    that are contiguous in every thread of the warp, cut into the largest pieces of up to 16
    bytes aligned in every thread (the trace comes from the LLVM IR, before that pass; where
    the threads disagree, the addresses are not a constant apart and stay separate)."""
    lengths = {len(seq) for seq in sequences}
    if len(lengths) != 1:
        return sequences
    out = [[] for _ in sequences]
    n = lengths.pop()
    k = 0
    while k < n:
        end = k + 1
        while (end < n and all(seq[end][0] == seq[k][0] in "ls" and seq[end][1] == seq[end - 1][1] + seq[end - 1][2]
                                for seq in sequences)):
            end += 1
        # The run k..end, as byte ranges per thread; cut where every thread's piece is aligned.
        sizes = [seq[i][2] for seq in sequences[:1] for i in range(k, end)]
        if any([seq[i][2] for i in range(k, end)] != sizes for seq in sequences):
            end = k + 1
            sizes = [sequences[0][k][2]]
        i = k
        while i < end:
            best = 1
            total = 0
            for j in range(i, end):
                total += sizes[j - k]
                if total > 16:
                    break
                if total & (total - 1) == 0 and all(seq[i][1] % total == 0 for seq in sequences):
                    best = j - i + 1
            for t, seq in enumerate(sequences):
                out[t].append((seq[i][0], seq[i][1], sum(sizes[i - k:i - k + best])))
            i += best
        k = end
    return out


def main(path):
    threads = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            tid, seq, kind, off, b = line.split()
            threads[int(tid)].append((int(seq), kind, int(off), int(b)))
    accesses = collections.defaultdict(list)
    for warp in sorted({tid // 32 for tid in threads}):
        tids = [t for t in sorted(threads) if t // 32 == warp]
        sequences = [[r[1:] for r in sorted(threads[t])] for t in tids]
        for tid, seq in zip(tids, merged(sequences)):
            for k, (kind, off, b) in enumerate(seq):
                accesses[(warp, k, kind)].append((tid % 32, off, b))
    totals = collections.defaultdict(lambda: [0, 0, 0])
    worst = collections.defaultdict(list)
    for (warp, seq, kind), lanes in accesses.items():
        width = max(b for _, _, b in lanes)
        cost = ideal = 0
        for p in phases(lanes):
            cost += wavefronts(p)
            ideal += 1
        key = (KINDS.get(kind, kind), width)
        totals[key][0] += 1
        totals[key][1] += cost
        totals[key][2] += ideal
        if cost > ideal:
            worst[key].append((cost / ideal, warp, seq, sorted(lanes)[:8]))
    print(f"{'access':>16} {'bytes':>5} {'instrs':>7} {'wavefronts':>11} {'ideal':>8} {'ratio':>6}")
    for (kind, width), (n, cost, ideal) in sorted(totals.items()):
        print(f"{kind:>16} {width:5d} {n:7d} {cost:11d} {ideal:8d} {cost / ideal:6.2f}")
    for key, items in sorted(worst.items()):
        items.sort(key=lambda t: -t[0])
        ratio, warp, seq, lanes = items[0]
        print(f"worst {key[0]} ({key[1]} B): {ratio:.1f}x, warp {warp} access {seq}; lanes (lane, offset): "
              + ", ".join(f"({l}, {o})" for l, o, _ in lanes))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
