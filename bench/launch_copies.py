"""Copies with a corpus case's own launch: the ceiling of any kernel launched that way.

Issue 12's third clause asks the one-row kernels for 90% of the copy bandwidth (4273 GB/s on
the H200). A kernel launched as the case launches it (the same grid, warps and bytes a program)
cannot move its bytes faster than the same launch doing nothing but moving them, so these copies,
compiled by Triton, bound what any compiler can reach while honouring the user's launch:

  row copy      each program copies its row (the case's block, dtype, warps and grid)
  row, reduced  the same, the row stored only after a sum over it (as the one-row kernels store
                after their reductions), so the row is held across a cross-warp exchange
  row read      each program reads its row and writes nothing (read-only kernels: argmax_rows)
  row max       each program reads its row and writes its maximum (argmax without the index)
  tile copy     each program copies its tile without transposing it (transpose_ptr_bf16)

Used by bench/ptx-variants.py with FORMS=launch_copies; `forms(name, case)` gives, for a case it
knows, {label: (run, check, bytes)}: `check(run)` runs it on a poisoned output and raises if the
output is wrong."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_copy(X, Y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask)
    tl.store(Y + row * stride + cols, x, mask=mask)


@triton.jit
def row_copy_reduced(X, Y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.)
    total = tl.sum(x.to(tl.float32), axis=0)
    # The whole row for finite rows; the store waits for the reduction, as a norm's store does.
    stored = tl.where(total == total, N, 0)
    tl.store(Y + row * stride + cols, x, mask=cols < stored)


@triton.jit
def row_read(X, Y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.)
    # Only NaNs are stored, and the case's normal samples hold none: the loads stay (a test the
    # compiler cannot fold, unlike equality with a constant the dtype cannot hold), no store happens.
    tl.store(Y + row * stride + cols, x, mask=mask & (x != x))


@triton.jit
def row_max(X, Out, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=-float("inf"))
    tl.store(Out + row, tl.max(x, axis=0))


@triton.jit
def tile_copy(X, Y, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * stride + rn[None, :]
    tl.store(Y + offs, tl.load(X + offs, mask=mask), mask=mask)


def _checked(out, poison, want, what):
    """A check for forms writing `out`: poisons it, runs the form and raises unless `out` then
    equals `want()`."""
    def check(run):
        out.fill_(poison)
        run()
        torch.cuda.synchronize()
        if not torch.equal(out, want()):
            raise AssertionError(what)
    return check


def _row_launch(x, n, block, warps, grid):
    """The row copies of an [M, n] input read by programs of `block` columns."""
    y = torch.empty_like(x)
    m = x.shape[0]
    row_bytes = m * n * x.element_size()

    def launcher(kernel):
        return lambda: kernel[grid](x, y, x.stride(0), n, BLOCK=block, num_warps=warps)

    copied = _checked(y, -1, lambda: x, "copy differs from its input")
    out = {
        "row copy": (launcher(row_copy), copied, 2 * row_bytes),
        "row, reduced": (launcher(row_copy_reduced), copied, 2 * row_bytes),
    }
    if x.is_floating_point():
        out["row read"] = (launcher(row_read), _checked(y, -1, lambda: torch.full_like(y, -1), "the read-only form stored"),
                           row_bytes)
        maxima = torch.empty(m, device=x.device, dtype=x.dtype)
        out["row max"] = (lambda: row_max[grid](x, maxima, x.stride(0), n, BLOCK=block, num_warps=warps),
                          _checked(maxima, 0, lambda: x[:, :n].amax(-1), "row maxima differ"),
                          row_bytes + m * x.element_size())
    return out


# The one-row cases: their input's argument and its column count's.
_ROW_INPUTS = {"softmax_w4096_bf16": ("in_ptr", "n_cols"), "layernorm_fwd_f16": ("X", "N"),
               "rmsnorm_fwd_bf16": ("X", "N"), "argmax_rows": ("X", "N")}


def forms(name, c):
    a, const, warps, grid = c["args"], c["const"], c["num_warps"], tuple(c["grid"])
    if name in _ROW_INPUTS:
        rows, cols = _ROW_INPUTS[name]
        return _row_launch(a[rows], a[cols], const["BLOCK"], warps, grid)
    if name == "rope_f16":
        # One program a token: its heads' rows are one contiguous stretch of the token's row.
        x = a["X"]
        flat = x.reshape(x.shape[0], -1)
        return _row_launch(flat, flat.shape[1], triton.next_power_of_2(flat.shape[1]), warps, (grid[0],))
    if name == "transpose_ptr_bf16":
        x = a["X"]
        y = torch.empty_like(x)

        def run():
            tile_copy[grid](x, y, a["M"], a["N"], x.stride(0), BLOCK_M=const["BLOCK_M"], BLOCK_N=const["BLOCK_N"],
                            num_warps=warps)
        return {"tile copy": (run, _checked(y, -1, lambda: x, "tile copy differs from its input"),
                              2 * x.numel() * x.element_size())}
    return {}
