"""The 2-D transposes with their programs run in another order (Triton-compiled), to decide whether
a compiler should renumber the programs of such grids.

A transpose reads rows of X and writes rows of Y, each tile row 128 bytes (bf16) or 256 (f32).
The hardware starts programs in x-major order: with program_id(0) over M, the programs in flight
together (about 2000 on an H200) write whole rows of Y but only a few pieces of each row of X
(transpose_ptr_bf16: about 8 of 125, 1 KiB); on an H100 the tile copy with the same launch, whose
writes are as scattered as its reads, runs slower than the transpose. Walked GROUP rows of tiles
at a time (M fastest within a group, then N: the matmul tutorials' grouped order), the programs
in flight read about 2000/GROUP pieces of each row of X and write GROUP pieces of each row of Y:
GROUP 8, 32 and 128 trade one side's stretches for the other's. The renumbering is a bijection of
the grid for any extents, so it keeps the kernel's meaning (Triton promises no order among
programs).

Measured on an H100 (session 38, docs/benchmarks.md): every group size is level with the hardware's
order or slower (transpose_ptr_bf16 -1.5 to -2.4%, transpose_f32 -1.3% to +0.2%), compiled by
Triton or by Tritium with the order as a pass; no pass is kept.

Used by bench/ptx-variants.py with FORMS=program_orders: `forms(name, case)` gives, for
transpose_ptr_bf16 and transpose_f32, {label: (run, check, bytes)}."""
import torch
import triton
import triton.language as tl


@triton.jit
def _grouped(GROUP: tl.constexpr):
    """(pid_m, pid_n) of this program when the grid is walked GROUP rows of tiles at a time, M
    fastest within a group (the matmul tutorials' grouped order over a (num_m, num_n) grid)."""
    num_m = tl.num_programs(0)
    num_n = tl.num_programs(1)
    pid = tl.program_id(1) * num_m + tl.program_id(0)
    in_group = GROUP * num_n
    first_m = (pid // in_group) * GROUP
    size_m = tl.minimum(num_m - first_m, GROUP)
    pid_m = first_m + (pid % in_group) % size_m
    pid_n = (pid % in_group) // size_m
    return pid_m, pid_n


@triton.jit
def transpose_grouped(X, Y, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      GROUP: tl.constexpr, TRANS: tl.constexpr):
    """transpose_ptr_kernel (TRANS false: the transpose in the store's pointers) or
    transpose_kernel (TRANS: through tl.trans) of the corpus, renumbered."""
    pid_m, pid_n = _grouped(GROUP)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * stride_x + rn[None, :], mask=mask)
    if TRANS:
        tl.store(Y + rn[:, None] * stride_y + rm[None, :], tl.trans(x), mask=tl.trans(mask))
    else:
        tl.store(Y + rn[None, :] * stride_y + rm[:, None], x, mask=mask)


GROUPS = (8, 32, 128)


def forms(name, c):
    through_trans = {"transpose_ptr_bf16": False, "transpose_f32": True}
    if name not in through_trans:
        return {}
    a, const, warps, grid = c["args"], c["const"], c["num_warps"], tuple(c["grid"])
    x, y = a["X"], a["Y"]

    def launcher(group):
        return lambda: transpose_grouped[grid](x, y, a["M"], a["N"], a["stride_x"], a["stride_y"], GROUP=group,
                                               TRANS=through_trans[name], num_warps=warps, **const)

    def check(run):
        y.fill_(-1)
        run()
        torch.cuda.synchronize()
        if not torch.equal(y, x.t()):
            raise AssertionError("grouped transpose differs from x.t()")
    return {f"grouped {g}": (launcher(g), check, c["bytes"]) for g in GROUPS}
