"""Shared-memory bank conflicts of a lowered kernel, counted on the CPU from the emulator's trace.

    EMU_SMEM_TRACE=trace.txt python3 test/Inputs/emulate/simt_emu.py K.ll KERNEL WARPS GRID ARG...
    python3 bench/smem-conflicts.py trace.txt

The emulator (simt_emu.py, with EMU_SMEM_TRACE set) records every shared-memory access of the
first program: loads and stores of the LLVM IR, `cp.async`, and the row addresses of `ldmatrix`
and `stmatrix`, each with its site. A site (one IR load or store, or one asm helper) reached for
the n-th time by the lanes of a warp is one instruction, and adjacent accesses that the PTX
backend vectorizes (contiguous and aligned in every lane, up to 16 bytes) count as one. Each is
split into the phases the hardware serves together — 32 lanes for accesses of up to 4 bytes, 16
for 8 bytes, 8 for 16 bytes and for each 8x8 matrix of `ldmatrix`/`stmatrix` — and a phase
costs as many wavefronts as the most distinct 4-byte words any of the 32 banks holds (a word
read by several lanes is one). Printed per kind and width: instructions, wavefronts, and the
ideal (one per phase that has active lanes), with the worst instructions' lane offsets; a
kernel free of conflicts shows wavefronts equal to the ideal.
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


def pieces(threads):
    """One warp's accesses, `threads`: {lane: [(site, count, kind, offset, bytes)] in order},
    as warp instructions {(site, count): {lane: (kind, offset, bytes)}}, with runs the PTX
    backend's load/store vectorizer can join made one (the trace comes from the LLVM IR, before
    that pass): an access followed, in every lane that makes it, by one of the next site that
    is contiguous with it and of its kind; a run is cut into the largest pieces of up to 16
    bytes aligned in every lane. Divergent lanes (a store only one lane makes) group by site."""
    follows = {}
    for records in threads.values():
        for a, b in zip(records, records[1:] + [None]):
            key = a[:2]
            joins = (b is not None and a[2] in "ls" and b[2] == a[2] and b[3] == a[3] + a[4]
                     and b[4] == a[4])
            follows.setdefault(key, set()).add(b[:2] if joins else None)
    link = {k: next(iter(v)) for k, v in follows.items() if len(v) == 1 and None not in v}
    linked = set(link.values())
    out = collections.defaultdict(dict)
    for lane, records in threads.items():
        by_key = {r[:2]: r for r in records}
        for r in records:
            if r[:2] in linked:
                continue
            run = [r]
            while run[-1][:2] in link and link[run[-1][:2]] in by_key:
                run.append(by_key[link[run[-1][:2]]])
            out[r[:2]][lane] = run
    instrs = {}
    for key, lanes in out.items():
        length = min(len(run) for run in lanes.values())
        i = 0
        while i < length:
            size, take = lanes[next(iter(lanes))][i][4], 1
            total = size
            for j in range(i + 1, length):
                total += size
                if total > 16:
                    break
                if total & (total - 1) == 0 and all(run[i][3] % total == 0 for run in lanes.values()):
                    take = j - i + 1
            first = lanes[next(iter(lanes))][i][:2]
            instrs[first] = {lane: (run[i][2], run[i][3], size * take) for lane, run in lanes.items()}
            i += take
    return instrs


def main(path):
    warps = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as f:
        for line in f:
            tid, site, count, kind, off, b = line.split()
            warps[int(tid) // 32][int(tid) % 32].append((site, int(count), kind, int(off), int(b)))
    accesses = {}
    for warp, threads in warps.items():
        for key, lanes in pieces(threads).items():
            kind = next(iter(lanes.values()))[0]
            accesses[(warp, key, kind)] = [(lane, off, b) for lane, (_, off, b) in lanes.items()]
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
            worst[key].append((cost / ideal, warp, seq[1], sorted(lanes)[:8]))
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
