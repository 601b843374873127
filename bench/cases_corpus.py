"""The project's own corpus of memory-bound and reduction kernels (issue 12) for ../shared/bench/harness.py.

    CASE_MODULES=cases_visible,cases_corpus python3 harness.py dump DIR     # GPU machine, harness.py copied here

Kernels as a Triton user writes them (Triton 3.6's Python language), at H200-sized shapes (most move
100 MB - 1 GB), launched as a user would launch them. Every reference is computed by PyTorch from the
inputs alone (float64 where the kernel's precision matters); `bytes` is the compulsory traffic (each
input read once, each output written once), so the harness' GB/s column is comparable across kernels.

dropout: the reference recomputes Triton's Philox 4x32-10 stream (`tl.rand`) in int64 PyTorch
arithmetic from the seed and the offsets, so the kept mask (which the kernel also writes out) and the
output are checked element for element against a kernel-independent reference.

CORPUS_SIGNATURES (a plain literal, read by bench/corpus-check.py without importing this module) gives
each case's kernel, the signature Tritium's front end takes for the specialization Triton 3.6 makes of
the case's arguments (`:16` where an integer or pointer is divisible by 16, `1` for integers equal to
1, literals for constexprs) and num_warps.
"""
import math
import torch, triton, triton.language as tl
from triton.language.extra import libdevice
from harness import case, dev, rnd, poison

# ------------------------------------------------------------------------------------------ kernels
# ---- elementwise math


@triton.jit
def gelu_erf_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = x * tl.sigmoid(x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def swiglu_kernel(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    # x is [M, 2N] (gate | up), y is [M, N]: y = silu(gate) * up
    row = tl.program_id(1)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    gate = tl.load(x_ptr + row * x_stride + cols, mask=mask).to(tl.float32)
    up = tl.load(x_ptr + row * x_stride + n_cols + cols, mask=mask).to(tl.float32)
    y = gate / (1.0 + tl.exp(-gate)) * up
    tl.store(y_ptr + row * y_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.sigmoid(x), mask=mask)


@triton.jit
def exp_log_chain_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # stable softplus, then sqrt(1 + sp) through exp2/log2, minus a log-sigmoid
    sp = tl.maximum(x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    r = tl.exp2(0.5 * tl.log2(1.0 + sp))
    ls = tl.minimum(x, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x)))
    tl.store(y_ptr + offs, r - ls, mask=mask)


# ---- casts


@triton.jit
def cast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def cast_i64_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # 64-bit offsets: the block start is computed in int64, so tensors past 2**31 elements work
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


# ---- softmax


@triton.jit
def softmax_row_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_rows_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # several short rows per program
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * in_stride + cols[None, :], mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    den = tl.sum(num, axis=1)
    tl.store(out_ptr + rows[:, None] * out_stride + cols[None, :], num / den[:, None], mask=mask)


@triton.jit
def softmax_online_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    # one pass for the running max and sum over column blocks, a second to normalize
    row = tl.program_id(0)
    in_row = in_ptr + row * in_stride
    out_row = out_ptr + row * out_stride
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(in_row + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(in_row + start + cols, mask=mask, other=-float("inf"))
        tl.store(out_row + start + cols, tl.exp(x - m) / l, mask=mask)


# ---- normalization


@triton.jit
def layernorm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@triton.jit
def layernorm_bwd_dx_kernel(DX, DY, X, W, Mean, Rstd, stride, N, BLOCK: tl.constexpr):
    # dx only; the row statistics come from the forward pass
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_fwd_kernel(X, Y, W, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_bwd_dx_kernel(DX, DY, X, W, stride, N, eps, BLOCK: tl.constexpr):
    # dx only; rstd recomputed from x
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    wdy = w * dy
    c = tl.sum(x * wdy, axis=0) / N
    dx = rstd * wdy - x * (rstd * rstd * rstd * c)
    tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)


@triton.jit
def _welford_combine(mean_a, m2_a, w_a, mean_b, m2_b, w_b):
    w = w_a + w_b
    delta = mean_b - mean_a
    frac = tl.where(w == 0.0, 0.0, w_b / w)
    return mean_a + delta * frac, m2_a + m2_b + delta * delta * w_a * frac, w


@triton.jit
def welford_var_kernel(X, Mean, Var, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mean = tl.zeros([BLOCK], tl.float32)
    m2 = tl.zeros([BLOCK], tl.float32)
    w = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        mask = start + cols < N
        x = tl.load(X + row * stride + start + cols, mask=mask, other=0.)
        w_new = w + tl.where(mask, 1.0, 0.0)
        delta = x - mean
        mean = tl.where(mask, mean + delta / w_new, mean)
        m2 = tl.where(mask, m2 + delta * (x - mean), m2)
        w = w_new
    mean_r, m2_r, w_r = tl.reduce((mean, m2, w), 0, _welford_combine)
    tl.store(Mean + row, mean_r)
    tl.store(Var + row, m2_r / w_r)


# ---- losses, position embeddings, dropout


@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, labels_ptr, loss_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    l = 0.0
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(row_ptr + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    label = tl.load(labels_ptr + row)
    x_label = tl.load(row_ptr + label).to(tl.float32)
    tl.store(loss_ptr + row, tl.log(l) + m - x_label)


@triton.jit
def rope_kernel(X, Y, Cos, Sin, stride_t, stride_h, seq_len, n_heads, HALF: tl.constexpr, BLOCK_H: tl.constexpr):
    # x, y: [tokens, heads, 2 * HALF] (rotate-half form); cos, sin: [seq_len, HALF]
    t = tl.program_id(0)
    pos = t % seq_len
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    d = tl.arange(0, HALF)
    hmask = heads[:, None] < n_heads
    offs = t * stride_t + heads[:, None] * stride_h + d[None, :]
    x1 = tl.load(X + offs, mask=hmask, other=0.).to(tl.float32)
    x2 = tl.load(X + offs + HALF, mask=hmask, other=0.).to(tl.float32)
    c = tl.load(Cos + pos * HALF + d)[None, :]
    s = tl.load(Sin + pos * HALF + d)[None, :]
    tl.store(Y + offs, (x1 * c - x2 * s).to(Y.dtype.element_ty), mask=hmask)
    tl.store(Y + offs + HALF, (x2 * c + x1 * s).to(Y.dtype.element_ty), mask=hmask)


@triton.jit
def dropout_kernel(x_ptr, y_ptr, keep_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)
    tl.store(keep_ptr + offs, keep, mask=mask)


# ---- reductions


@triton.jit
def row_sum_kernel(X, Y, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        mask = (rows[:, None] < M) & (start + cols[None, :] < N)
        acc += tl.load(X + rows[:, None] * stride + start + cols[None, :], mask=mask, other=0.)
    tl.store(Y + rows, tl.sum(acc, axis=1), mask=rows < M)


@triton.jit
def col_sum_kernel(X, Y, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rows = tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, M, BLOCK_M):
        mask = (start + rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(X + (start + rows[:, None]) * stride + cols[None, :], mask=mask, other=0.)
    tl.store(Y + cols, tl.sum(acc, axis=0), mask=cols < N)


@triton.jit
def argmax_row_kernel(X, Idx, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=-float("inf"))
    tl.store(Idx + row, tl.argmax(x, axis=0))


@triton.jit
def argmin_rows_kernel(X, Idx, stride, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(X + rows[:, None] * stride + cols[None, :], mask=mask, other=float("inf"))
    tl.store(Idx + rows, tl.argmin(x, axis=1), mask=rows < M)


# ---- scans


@triton.jit
def cumsum_row_kernel(X, Y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.)
    tl.store(Y + row * stride + cols, tl.cumsum(x, axis=0), mask=mask)


@triton.jit
def cumprod_rows_kernel(X, Y, stride, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=1.)
    tl.store(Y + offs, tl.cumprod(x, axis=1), mask=mask)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def cummax_row_kernel(X, Y, stride, N, BLOCK: tl.constexpr):
    # running maximum through a one-operand custom tl.associative_scan
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=-float("inf"))
    tl.store(Y + row * stride + cols, tl.associative_scan(x, 0, _max_combine), mask=mask)


@triton.jit
def _linear_recurrence_combine(a_l, b_l, a_r, b_r):
    # (h -> a_l * h + b_l) followed by (h -> a_r * h + b_r)
    return a_l * a_r, b_l * a_r + b_r


@triton.jit
def linear_scan_kernel(A, B, H, stride, N, BLOCK: tl.constexpr):
    # h[t] = a[t] * h[t - 1] + b[t], h[-1] = 0, along each row
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    a = tl.load(A + row * stride + cols, mask=mask, other=1.)
    b = tl.load(B + row * stride + cols, mask=mask, other=0.)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_linear_recurrence_combine)
    tl.store(H + row * stride + cols, h, mask=mask)


# ---- transposes, permutes, gathers


@triton.jit
def transpose_kernel(X, Y, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * stride_x + rn[None, :], mask=mask)
    tl.store(Y + rn[:, None] * stride_y + rm[None, :], tl.trans(x), mask=tl.trans(mask))


@triton.jit
def transpose_ptr_kernel(X, Y, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # the transpose is in the store's pointers only
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + rm[:, None] * stride_x + rn[None, :], mask=mask)
    tl.store(Y + rn[None, :] * stride_y + rm[:, None], x, mask=mask)


@triton.jit
def batched_transpose_kernel(X, Y, M, N, stride_xb, stride_xm, stride_yb, stride_yn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # [B, M, N] -> [B, N, M]
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    b = tl.program_id(2)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(X + b * stride_xb + rm[:, None] * stride_xm + rn[None, :], mask=mask)
    tl.store(Y + b * stride_yb + rn[:, None] * stride_yn + rm[None, :], tl.trans(x), mask=tl.trans(mask))


@triton.jit
def permute_bshd_kernel(X, Y, S, H, stride_xb, stride_xs, stride_xh, stride_yb, stride_yh, stride_ys,
                        BLOCK_S: tl.constexpr, BLOCK_H: tl.constexpr, D: tl.constexpr):
    # [B, S, H, D] -> [B, H, S, D] through a 3-D tile and tl.permute
    s = tl.program_id(0) * BLOCK_S + tl.arange(0, BLOCK_S)
    h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    b = tl.program_id(2)
    d = tl.arange(0, D)
    s3 = s[:, None, None]
    h3 = h[None, :, None]
    d3 = d[None, None, :]
    mask = (s3 < S) & (h3 < H)
    x = tl.load(X + b * stride_xb + s3 * stride_xs + h3 * stride_xh + d3, mask=mask)
    y = tl.permute(x, (1, 0, 2))
    ys = s[None, :, None]
    yh = h[:, None, None]
    tl.store(Y + b * stride_yb + yh * stride_yh + ys * stride_ys + d3, y, mask=(ys < S) & (yh < H))


@triton.jit
def embedding_kernel(Idx, Wt, Out, n_tokens, D, stride_w, stride_out, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    tmask = t < n_tokens
    idx = tl.load(Idx + t, mask=tmask, other=0)
    mask = tmask[:, None] & (d[None, :] < D)
    rows = tl.load(Wt + idx[:, None] * stride_w + d[None, :], mask=mask)
    tl.store(Out + t[:, None] * stride_out + d[None, :], rows, mask=mask)


# ---- atomics


@triton.jit
def hist_atomic_kernel(X, Hist, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(X + offs, mask=mask, other=0)
    tl.atomic_add(Hist + bins, 1, mask=mask)


@triton.jit
def hist_block_kernel(X, Hist, BLOCK: tl.constexpr, NUM_BINS: tl.constexpr):
    # a block-local tl.histogram, merged with one atomic per bin (n is a multiple of BLOCK)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = tl.histogram(tl.load(X + offs), NUM_BINS)
    tl.atomic_add(Hist + tl.arange(0, NUM_BINS), h)


# ---- integer ops (C semantics: // truncates, % takes the dividend's sign)


@triton.jit
def int_bitwise_kernel(X, Y, Out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    s = y & 31
    shl = x << s
    sar = x >> s
    shr = (x.to(tl.uint32, bitcast=True) >> s.to(tl.uint32)).to(tl.int32, bitcast=True)
    r = (shl ^ sar) | (shr & ~y)
    r = r + (x & 0xFF) * (y | 1)
    tl.store(Out + offs, r, mask=mask)


@triton.jit
def int_divmod_kernel(X, Y, Q, R, C, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask, other=1)
    tl.store(Q + offs, x // y, mask=mask)
    tl.store(R + offs, x % y, mask=mask)
    tl.store(C + offs, x // 16 + x % -7 + (x // -3) * 5, mask=mask)


# ------------------------------------------------------------------------------------------ cases
BLK = 1024


def _ew(kernel, x, y, ref, nbytes, tol, torch_fn=None):
    n = x.numel()
    d = dict(kernel=kernel, args=dict(x_ptr=x, y_ptr=y, n=n), const=dict(BLOCK=BLK), grid=(triton.cdiv(n, BLK),),
             num_warps=4, outs=["y_ptr"], ref=lambda: {"y_ptr": ref()}, bytes=nbytes, tol=tol)
    if torch_fn is not None:
        d["torch"] = torch_fn
    return d


# elementwise: 8192 x 14336 (an MLP's intermediate activations)
EW = 8192 * 14336


@case("gelu_erf")
def _():
    x = rnd(EW); y = torch.empty_like(x)
    return _ew(gelu_erf_kernel, x, y, lambda: torch.nn.functional.gelu(x.double()), 8 * EW, 1e-5,
               lambda: torch.nn.functional.gelu(x))


@case("gelu_tanh_bf16")
def _():
    x = rnd(EW, dtype=torch.bfloat16); y = torch.empty_like(x)
    return _ew(gelu_tanh_kernel, x, y, lambda: torch.nn.functional.gelu(x.double(), approximate="tanh"), 4 * EW, 1e-2,
               lambda: torch.nn.functional.gelu(x, approximate="tanh"))


@case("silu_f16")
def _():
    x = rnd(EW, dtype=torch.float16); y = torch.empty_like(x)
    return _ew(silu_kernel, x, y, lambda: torch.nn.functional.silu(x.double()), 4 * EW, 2e-3,
               lambda: torch.nn.functional.silu(x))


@case("swiglu_bf16")
def _():
    M, N = 8192, 14336
    x = rnd(M, 2 * N, dtype=torch.bfloat16); y = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
    def ref():
        xd = x.double()
        return {"y_ptr": torch.nn.functional.silu(xd[:, :N]) * xd[:, N:]}
    return dict(kernel=swiglu_kernel, args=dict(x_ptr=x, y_ptr=y, x_stride=x.stride(0), y_stride=y.stride(0), n_cols=N),
                const=dict(BLOCK=BLK), grid=(triton.cdiv(N, BLK), M), num_warps=4, outs=["y_ptr"], ref=ref,
                bytes=(2 * M * N + M * N) * 2, tol=1e-2, torch=lambda: torch.nn.functional.silu(x[:, :N]) * x[:, N:])


@case("sigmoid")
def _():
    x = rnd(EW); y = torch.empty_like(x)
    return _ew(sigmoid_kernel, x, y, lambda: torch.sigmoid(x.double()), 8 * EW, 1e-5, lambda: torch.sigmoid(x))


@case("exp_log_chain")
def _():
    x = rnd(EW) * 3; y = torch.empty_like(x)
    def ref():
        xd = x.double()
        sp = torch.nn.functional.softplus(xd)
        return torch.sqrt(1 + sp) - torch.nn.functional.logsigmoid(xd)
    return _ew(exp_log_chain_kernel, x, y, ref, 8 * EW, 1e-5)


# casts: 2**27 elements (f32 512 MB)
CN = 1 << 27


def _cast(src, dst, kernel, n=CN, scale=1.0, tol=0.0):
    x = rnd(n).mul_(scale).to(src); y = torch.empty(n, device=dev, dtype=dst)
    return _ew(kernel, x, y, lambda: x.to(dst), n * (x.element_size() + y.element_size()), tol, lambda: x.to(dst))


case("cast_f32_bf16")(lambda: _cast(torch.float32, torch.bfloat16, cast_kernel))
case("cast_f32_bf16_i64")(lambda: _cast(torch.float32, torch.bfloat16, cast_i64_kernel))
case("cast_bf16_f32")(lambda: _cast(torch.bfloat16, torch.float32, cast_kernel))
case("cast_f16_bf16")(lambda: _cast(torch.float16, torch.bfloat16, cast_kernel))
# fp8 e4m3: inputs well inside +-448 (Triton saturates, PyTorch's cast would give NaN past it)
# (tolerance: a cast through f16 first would round twice; a wrong rounding mode is ~3% off)
case("cast_f32_fp8")(lambda: _cast(torch.float32, torch.float8_e4m3fn, cast_kernel, scale=4.0, tol=1e-3))
case("cast_fp8_f16_i64")(lambda: _cast(torch.float8_e4m3fn, torch.float16, cast_i64_kernel, n=1 << 28, scale=4.0))


@case("cast_f16_fp8_huge")
def _():
    # past 2**31 elements: only 64-bit offsets address it (n is an i64 argument); 6.4 GB moved
    n = (1 << 31) + (1 << 20)
    x = rnd(n, dtype=torch.float16).mul_(4.0); y = torch.empty(n, device=dev, dtype=torch.float8_e4m3fn)
    d = _ew(cast_i64_kernel, x, y, None, 3 * n, 0.0)
    del d["ref"]
    def check(outs):
        out = outs["y_ptr"].view(torch.uint8)
        step = 1 << 28
        for i in range(0, n, step):
            want = x[i:i + step].to(torch.float8_e4m3fn).view(torch.uint8)
            bad = (out[i:i + step] != want).sum().item()
            assert bad == 0, f"{bad} fp8 values differ from PyTorch's cast in elements [{i}, {i + step})"
    d["check"] = check
    return d


# softmax
def _softmax_row(M, N, dtype, nw, tol):
    x = rnd(M, N, dtype=dtype); o = torch.empty_like(x)
    return dict(kernel=softmax_row_kernel, args=dict(out_ptr=o, in_ptr=x, in_stride=x.stride(0), out_stride=o.stride(0), n_cols=N),
                const=dict(BLOCK=triton.next_power_of_2(N)), grid=(M,), num_warps=nw, outs=["out_ptr"],
                ref=lambda: {"out_ptr": torch.softmax(x.double(), -1)}, bytes=2 * M * N * x.element_size(),
                torch=lambda: torch.softmax(x, -1), tol=tol)


@case("softmax_w128")
def _():
    M, N, BM = 1 << 18, 128, 16
    x = rnd(M, N); o = torch.empty_like(x)
    return dict(kernel=softmax_rows_kernel, args=dict(out_ptr=o, in_ptr=x, in_stride=x.stride(0), out_stride=o.stride(0),
                n_rows=M, n_cols=N), const=dict(BLOCK_M=BM, BLOCK_N=N), grid=(triton.cdiv(M, BM),), num_warps=4,
                outs=["out_ptr"], ref=lambda: {"out_ptr": torch.softmax(x.double(), -1)}, bytes=2 * M * N * 4,
                torch=lambda: torch.softmax(x, -1), tol=1e-5)


case("softmax_w1000")(lambda: _softmax_row(65536, 1000, torch.float32, 4, 1e-5))
case("softmax_w4096_bf16")(lambda: _softmax_row(16384, 4096, torch.bfloat16, 8, 1e-2))
case("softmax_w16384")(lambda: _softmax_row(4096, 16384, torch.float32, 16, 1e-5))
case("softmax_w32768")(lambda: _softmax_row(2048, 32768, torch.float32, 16, 1e-5))


@case("softmax_online")
def _():
    # vocabulary-wide rows, looped over 4096-column blocks; x is read twice (bytes: once)
    M, N = 2048, 32000
    x = rnd(M, N); o = torch.empty_like(x)
    return dict(kernel=softmax_online_kernel, args=dict(out_ptr=o, in_ptr=x, in_stride=x.stride(0), out_stride=o.stride(0), n_cols=N),
                const=dict(BLOCK=4096), grid=(M,), num_warps=8, outs=["out_ptr"],
                ref=lambda: {"out_ptr": torch.softmax(x.double(), -1)}, bytes=2 * M * N * 4,
                torch=lambda: torch.softmax(x, -1), tol=1e-5)


# normalization
@case("layernorm_fwd_f16")
def _():
    M, N = 16384, 4096
    x = rnd(M, N, dtype=torch.float16); w = rnd(N, dtype=torch.float16); b = rnd(N, dtype=torch.float16)
    y = torch.empty_like(x); mean = torch.empty(M, device=dev); rstd = torch.empty(M, device=dev)
    def ref():
        xd = x.double()
        mu = xd.mean(-1); var = xd.var(-1, unbiased=False)
        return {"Y": torch.nn.functional.layer_norm(xd, (N,), w.double(), b.double(), 1e-5), "Mean": mu,
                "Rstd": torch.rsqrt(var + 1e-5)}
    return dict(kernel=layernorm_fwd_kernel, args=dict(X=x, Y=y, W=w, B=b, Mean=mean, Rstd=rstd, stride=x.stride(0), N=N, eps=1e-5),
                const=dict(BLOCK=4096), grid=(M,), num_warps=8, outs=["Y", "Mean", "Rstd"], ref=ref,
                bytes=2 * M * N * 2 + 2 * N * 2 + 2 * M * 4, tol=1e-2,
                torch=lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5))


@case("layernorm_bwd_dx_f16")
def _():
    M, N = 16384, 4096
    x = rnd(M, N, dtype=torch.float16); w = rnd(N, dtype=torch.float16); dy = rnd(M, N, dtype=torch.float16)
    xf = x.float()
    mean = xf.mean(-1).contiguous(); rstd = torch.rsqrt(xf.var(-1, unbiased=False) + 1e-5).contiguous()
    dx = torch.empty_like(x)
    def ref():
        xd = x.double().requires_grad_()
        torch.nn.functional.layer_norm(xd, (N,), w.double(), None, 1e-5).backward(dy.double())
        return {"DX": xd.grad}
    return dict(kernel=layernorm_bwd_dx_kernel, args=dict(DX=dx, DY=dy, X=x, W=w, Mean=mean, Rstd=rstd, stride=x.stride(0), N=N),
                const=dict(BLOCK=4096), grid=(M,), num_warps=8, outs=["DX"], ref=ref,
                bytes=3 * M * N * 2 + N * 2 + 2 * M * 4, tol=1e-2)


@case("rmsnorm_fwd_bf16")
def _():
    M, N = 16384, 4096
    x = rnd(M, N, dtype=torch.bfloat16); w = rnd(N, dtype=torch.bfloat16); y = torch.empty_like(x)
    def ref():
        xd = x.double()
        return {"Y": xd * torch.rsqrt((xd * xd).mean(-1, keepdim=True) + 1e-6) * w.double()}
    return dict(kernel=rmsnorm_fwd_kernel, args=dict(X=x, Y=y, W=w, stride=x.stride(0), N=N, eps=1e-6), const=dict(BLOCK=4096),
                grid=(M,), num_warps=8, outs=["Y"], ref=ref, bytes=2 * M * N * 2 + N * 2, tol=1e-2)


@case("rmsnorm_bwd_dx")
def _():
    # f32, a hidden size that is not a power of two (5120, in an 8192 block)
    M, N = 8192, 5120
    x = rnd(M, N); w = rnd(N); dy = rnd(M, N); dx = torch.empty_like(x)
    def ref():
        xd = x.double().requires_grad_()
        (xd * torch.rsqrt((xd * xd).mean(-1, keepdim=True) + 1e-6) * w.double()).backward(dy.double())
        return {"DX": xd.grad}
    return dict(kernel=rmsnorm_bwd_dx_kernel, args=dict(DX=dx, DY=dy, X=x, W=w, stride=x.stride(0), N=N, eps=1e-6),
                const=dict(BLOCK=8192), grid=(M,), num_warps=8, outs=["DX"], ref=ref, bytes=3 * M * N * 4 + N * 4, tol=1e-5)


@case("welford_var")
def _():
    M, N = 8192, 10000
    x = rnd(M, N) + 3.0; mean = torch.empty(M, device=dev); var = torch.empty(M, device=dev)
    return dict(kernel=welford_var_kernel, args=dict(X=x, Mean=mean, Var=var, stride=x.stride(0), N=N), const=dict(BLOCK=2048),
                grid=(M,), num_warps=8, outs=["Mean", "Var"],
                ref=lambda: {"Mean": x.double().mean(-1), "Var": x.double().var(-1, unbiased=False)},
                bytes=M * N * 4 + 2 * M * 4, tol=1e-5, torch=lambda: torch.var_mean(x, -1, unbiased=False))


# losses, RoPE, dropout
@case("cross_entropy_fwd")
def _():
    # bf16 logits over a 128256-token vocabulary (1.05 GB)
    M, V = 4096, 128256
    x = rnd(M, V, dtype=torch.bfloat16); labels = torch.randint(0, V, (M,), device=dev); loss = torch.empty(M, device=dev)
    return dict(kernel=cross_entropy_fwd_kernel, args=dict(logits_ptr=x, labels_ptr=labels, loss_ptr=loss, stride=x.stride(0), n_cols=V),
                const=dict(BLOCK=4096), grid=(M,), num_warps=8, outs=["loss_ptr"],
                ref=lambda: {"loss_ptr": torch.nn.functional.cross_entropy(x.double(), labels, reduction="none")},
                bytes=M * V * 2 + M * 8 + M * 4, tol=1e-5,
                torch=lambda: torch.nn.functional.cross_entropy(x.float(), labels, reduction="none"))


@case("rope_f16")
def _():
    # 4 x 4096 tokens, 32 heads of 128
    B, S, H, D = 4, 4096, 32, 128
    x = rnd(B * S, H, D, dtype=torch.float16); y = torch.empty_like(x)
    pos = torch.arange(S, device=dev, dtype=torch.float64)[:, None]
    inv = 10000.0 ** (-torch.arange(0, D // 2, device=dev, dtype=torch.float64) * 2 / D)
    cos = torch.cos(pos * inv).float().contiguous(); sin = torch.sin(pos * inv).float().contiguous()
    def ref():
        xd = x.double(); c = cos.double().repeat(B, 1)[:, None, :]; s = sin.double().repeat(B, 1)[:, None, :]
        x1, x2 = xd[..., :D // 2], xd[..., D // 2:]
        return {"Y": torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)}
    return dict(kernel=rope_kernel, args=dict(X=x, Y=y, Cos=cos, Sin=sin, stride_t=x.stride(0), stride_h=x.stride(1), seq_len=S,
                n_heads=H), const=dict(HALF=D // 2, BLOCK_H=32), grid=(B * S, triton.cdiv(H, 32)), num_warps=4, outs=["Y"],
                ref=ref, bytes=2 * B * S * H * D * 2 + 2 * S * D // 2 * 4, tol=1e-2)


_M32 = 0xFFFFFFFF


def _mulhilo32(a, b):
    # a: Python int < 2**32, b: int64 tensor of uint32 values; (hi, lo) of the 64-bit product, no overflow
    bh, bl = b >> 16, b & 0xFFFF
    lo_part = a * bl
    hi = (a * bh + (lo_part >> 16)) >> 16
    lo = ((((a * bh) & 0xFFFF) << 16) + lo_part) & _M32
    return hi, lo


def philox_rand_reference(seed, offsets):
    """tl.rand(seed, offsets) recomputed: Philox 4x32, 10 rounds, counter (offset, 0, 0, 0), key = the
    seed's two 32-bit halves; the first word as int32, negatives folded (-x - 1), times 4.6566127342e-10
    in fp32. offsets: an int64 tensor of non-negative int32 offsets."""
    c0 = offsets & _M32
    c1 = torch.zeros_like(c0); c2 = torch.zeros_like(c0); c3 = torch.zeros_like(c0)
    k0, k1 = seed & _M32, (seed >> 32) & _M32
    for _ in range(10):
        hi_b, lo_b = _mulhilo32(0xCD9E8D57, c2)
        hi_a, lo_a = _mulhilo32(0xD2511F53, c0)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = (k0 + 0x9E3779B9) & _M32
        k1 = (k1 + 0xBB67AE85) & _M32
    x = torch.where(c0 >= (1 << 31), c0 - (1 << 32), c0)
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32, device=offsets.device)


@case("dropout")
def _():
    n, p, seed = 1 << 26, 0.1, 1234567
    x = rnd(n); y = torch.empty_like(x); keep = torch.empty(n, device=dev, dtype=torch.bool)
    def check(outs):
        r = philox_rand_reference(seed, torch.arange(n, device=dev, dtype=torch.int64))
        want = r > torch.tensor(p, dtype=torch.float32, device=dev)
        bad = (outs["keep_ptr"] != want).sum().item()
        assert bad == 0, f"{bad} of {n} kept-mask elements differ from the Philox reference"
        frac = want.float().mean().item()
        assert abs(frac - (1 - p)) < 6 * math.sqrt(p * (1 - p) / n), f"kept fraction {frac}"
        ref = torch.where(want, x.double() / (1 - torch.tensor(p, dtype=torch.float32).double().item()), 0.0)
        out = outs["y_ptr"].double()
        e = ((out - ref).norm() / ref.norm()).item()
        assert e <= 1e-6, f"relative error {e:.3e} over 1e-6"
    return dict(kernel=dropout_kernel, args=dict(x_ptr=x, y_ptr=y, keep_ptr=keep, n=n, p=p, seed=seed), const=dict(BLOCK=BLK),
                grid=(triton.cdiv(n, BLK),), num_warps=4, outs=["y_ptr", "keep_ptr"], check=check, bytes=n * (4 + 4 + 1))


# reductions
@case("row_sum")
def _():
    M, N = 16384, 8192
    x = rnd(M, N); y = torch.empty(M, device=dev)
    return dict(kernel=row_sum_kernel, args=dict(X=x, Y=y, M=M, N=N, stride=x.stride(0)), const=dict(BLOCK_M=4, BLOCK_N=1024),
                grid=(triton.cdiv(M, 4),), num_warps=4, outs=["Y"], ref=lambda: {"Y": x.double().sum(-1)},
                bytes=M * N * 4 + M * 4, tol=1e-5, torch=lambda: x.sum(-1))


@case("col_sum")
def _():
    M, N = 8192, 16384
    x = rnd(M, N); y = torch.empty(N, device=dev)
    return dict(kernel=col_sum_kernel, args=dict(X=x, Y=y, M=M, N=N, stride=x.stride(0)), const=dict(BLOCK_M=64, BLOCK_N=32),
                grid=(triton.cdiv(N, 32),), num_warps=4, outs=["Y"], ref=lambda: {"Y": x.double().sum(0)},
                bytes=M * N * 4 + N * 4, tol=1e-5, torch=lambda: x.sum(0))


@case("argmax_rows")
def _():
    M, N = 16384, 4000
    x = rnd(M, N); idx = torch.empty(M, device=dev, dtype=torch.int32)
    return dict(kernel=argmax_row_kernel, args=dict(X=x, Idx=idx, stride=x.stride(0), N=N), const=dict(BLOCK=4096), grid=(M,),
                num_warps=8, outs=["Idx"], ref=lambda: {"Idx": torch.argmax(x, -1)}, bytes=M * N * 4 + M * 4, tol=0.0,
                torch=lambda: torch.argmax(x, -1))


@case("argmin_rows_f16")
def _():
    # f16 values tie often; both sides take the first (lowest) index of the minimum
    M, N, BM = 131072, 1024, 4
    x = rnd(M, N, dtype=torch.float16); idx = torch.empty(M, device=dev, dtype=torch.int32)
    return dict(kernel=argmin_rows_kernel, args=dict(X=x, Idx=idx, stride=x.stride(0), M=M, N=N), const=dict(BLOCK_M=BM, BLOCK_N=N),
                grid=(triton.cdiv(M, BM),), num_warps=4, outs=["Idx"], ref=lambda: {"Idx": torch.argmin(x, -1)},
                bytes=M * N * 2 + M * 4, tol=0.0, torch=lambda: torch.argmin(x, -1))


# scans
@case("cumsum_rows")
def _():
    M, N = 16384, 4096
    x = rnd(M, N); y = torch.empty_like(x)
    return dict(kernel=cumsum_row_kernel, args=dict(X=x, Y=y, stride=x.stride(0), N=N), const=dict(BLOCK=N), grid=(M,), num_warps=4,
                outs=["Y"], ref=lambda: {"Y": x.double().cumsum(-1)}, bytes=2 * M * N * 4, tol=1e-5, torch=lambda: x.cumsum(-1))


@case("cumprod_rows")
def _():
    M, N, BM = 131072, 512, 4
    x = 1 + 0.01 * rnd(M, N); y = torch.empty_like(x)
    return dict(kernel=cumprod_rows_kernel, args=dict(X=x, Y=y, stride=x.stride(0), M=M, N=N), const=dict(BLOCK_M=BM, BLOCK_N=N),
                grid=(triton.cdiv(M, BM),), num_warps=4, outs=["Y"], ref=lambda: {"Y": x.double().cumprod(-1)},
                bytes=2 * M * N * 4, tol=1e-5, torch=lambda: x.cumprod(-1))


@case("cummax_rows")
def _():
    M, N = 32768, 3000
    x = rnd(M, N); y = torch.empty_like(x)
    return dict(kernel=cummax_row_kernel, args=dict(X=x, Y=y, stride=x.stride(0), N=N), const=dict(BLOCK=4096), grid=(M,),
                num_warps=4, outs=["Y"], ref=lambda: {"Y": torch.cummax(x, -1).values}, bytes=2 * M * N * 4, tol=0.0,
                torch=lambda: torch.cummax(x, -1))


@case("linear_scan")
def _():
    # first-order linear recurrence (a state-space scan) through a custom tl.associative_scan
    M, N = 32768, 2048
    a = torch.sigmoid(rnd(M, N) + 2); b = rnd(M, N); h = torch.empty_like(a)
    def ref():
        ad, bd = a.double(), b.double()
        out = torch.empty_like(ad); acc = torch.zeros(M, device=dev, dtype=torch.float64)
        for t in range(N):
            acc = ad[:, t] * acc + bd[:, t]
            out[:, t] = acc
        return {"H": out}
    return dict(kernel=linear_scan_kernel, args=dict(A=a, B=b, H=h, stride=a.stride(0), N=N), const=dict(BLOCK=N), grid=(M,),
                num_warps=4, outs=["H"], ref=ref, bytes=3 * M * N * 4, tol=1e-5)


# transposes, permutes, gathers
@case("transpose_f32")
def _():
    M, N, B = 8192, 8192, 64
    x = rnd(M, N); y = torch.empty(N, M, device=dev)
    return dict(kernel=transpose_kernel, args=dict(X=x, Y=y, M=M, N=N, stride_x=x.stride(0), stride_y=y.stride(0)),
                const=dict(BLOCK_M=B, BLOCK_N=B), grid=(M // B, N // B), num_warps=4, outs=["Y"], ref=lambda: {"Y": x.t()},
                bytes=2 * M * N * 4, tol=0.0, torch=lambda: x.t().contiguous())


@case("transpose_ptr_bf16")
def _():
    M, N, BM, BN = 16384, 8000, 64, 64
    x = rnd(M, N, dtype=torch.bfloat16); y = torch.empty(N, M, device=dev, dtype=torch.bfloat16)
    return dict(kernel=transpose_ptr_kernel, args=dict(X=x, Y=y, M=M, N=N, stride_x=x.stride(0), stride_y=y.stride(0)),
                const=dict(BLOCK_M=BM, BLOCK_N=BN), grid=(triton.cdiv(M, BM), triton.cdiv(N, BN)), num_warps=4, outs=["Y"],
                ref=lambda: {"Y": x.t()}, bytes=2 * M * N * 2, tol=0.0, torch=lambda: x.t().contiguous())


@case("transpose_batched")
def _():
    Bt, M, N, B = 64, 1024, 1024, 32
    x = rnd(Bt, M, N); y = torch.empty(Bt, N, M, device=dev)
    return dict(kernel=batched_transpose_kernel, args=dict(X=x, Y=y, M=M, N=N, stride_xb=x.stride(0), stride_xm=x.stride(1),
                stride_yb=y.stride(0), stride_yn=y.stride(1)), const=dict(BLOCK_M=B, BLOCK_N=B), grid=(M // B, N // B, Bt),
                num_warps=4, outs=["Y"], ref=lambda: {"Y": x.transpose(1, 2)}, bytes=2 * Bt * M * N * 4, tol=0.0,
                torch=lambda: x.transpose(1, 2).contiguous())


@case("permute_bshd")
def _():
    B, S, H, D, BS, BH = 8, 2048, 32, 128, 16, 4
    x = rnd(B, S, H, D, dtype=torch.float16); y = torch.empty(B, H, S, D, device=dev, dtype=torch.float16)
    return dict(kernel=permute_bshd_kernel, args=dict(X=x, Y=y, S=S, H=H, stride_xb=x.stride(0), stride_xs=x.stride(1),
                stride_xh=x.stride(2), stride_yb=y.stride(0), stride_yh=y.stride(1), stride_ys=y.stride(2)),
                const=dict(BLOCK_S=BS, BLOCK_H=BH, D=D), grid=(S // BS, H // BH, B), num_warps=4, outs=["Y"],
                ref=lambda: {"Y": x.permute(0, 2, 1, 3)}, bytes=2 * B * S * H * D * 2, tol=0.0,
                torch=lambda: x.permute(0, 2, 1, 3).contiguous())


@case("embedding_bf16")
def _():
    T, V, D, BT, BD = 32768, 128256, 4096, 8, 512
    w = rnd(V, D, dtype=torch.bfloat16); idx = torch.randint(0, V, (T,), device=dev)
    out = torch.empty(T, D, device=dev, dtype=torch.bfloat16)
    return dict(kernel=embedding_kernel, args=dict(Idx=idx, Wt=w, Out=out, n_tokens=T, D=D, stride_w=w.stride(0),
                stride_out=out.stride(0)), const=dict(BLOCK_T=BT, BLOCK_D=BD), grid=(triton.cdiv(T, BT), triton.cdiv(D, BD)),
                num_warps=4, outs=["Out"], ref=lambda: {"Out": torch.nn.functional.embedding(idx, w)},
                bytes=2 * T * D * 2 + T * 8, tol=0.0, torch=lambda: torch.nn.functional.embedding(idx, w))


# atomics
@case("hist_atomic")
def _():
    n, bins = 1 << 26, 1024
    x = torch.randint(0, bins, (n,), device=dev, dtype=torch.int32); hist = torch.zeros(bins, device=dev, dtype=torch.int32)
    return dict(kernel=hist_atomic_kernel, args=dict(X=x, Hist=hist, n=n), const=dict(BLOCK=BLK), grid=(triton.cdiv(n, BLK),),
                num_warps=4, outs=["Hist"], zero_outs=True, ref=lambda: {"Hist": torch.bincount(x, minlength=bins)},
                bytes=n * 4, tol=0.0, torch=lambda: torch.bincount(x, minlength=bins))


@case("hist_block")
def _():
    n, bins, B = 1 << 26, 256, 4096
    x = torch.randint(0, bins, (n,), device=dev, dtype=torch.int32); hist = torch.zeros(bins, device=dev, dtype=torch.int32)
    return dict(kernel=hist_block_kernel, args=dict(X=x, Hist=hist), const=dict(BLOCK=B, NUM_BINS=bins), grid=(n // B,),
                num_warps=4, outs=["Hist"], zero_outs=True, ref=lambda: {"Hist": torch.bincount(x, minlength=bins)},
                bytes=n * 4, tol=0.0, torch=lambda: torch.bincount(x, minlength=bins))


# integer ops
def _to_i32(v):
    v = v & _M32
    return torch.where(v >= (1 << 31), v - (1 << 32), v)


@case("int_bitwise")
def _():
    n = 1 << 26
    x = torch.randint(-(1 << 31), 1 << 31, (n,), device=dev, dtype=torch.int32)
    y = torch.randint(-(1 << 31), 1 << 31, (n,), device=dev, dtype=torch.int32)
    out = torch.empty_like(x)
    def ref():
        x64, y64 = x.long(), y.long()
        s = y64 & 31
        shl = _to_i32((x64 & _M32) << s)
        sar = x64 >> s
        shr = (x64 & _M32) >> s
        r = _to_i32((shl ^ sar) | (shr & ~y64))
        return {"Out": _to_i32(r + (x64 & 0xFF) * (y64 | 1))}
    return dict(kernel=int_bitwise_kernel, args=dict(X=x, Y=y, Out=out, n=n), const=dict(BLOCK=BLK), grid=(triton.cdiv(n, BLK),),
                num_warps=4, outs=["Out"], ref=ref, bytes=3 * n * 4, tol=0.0)


@case("int_divmod")
def _():
    # negative dividends and divisors, C semantics (trunc); divisors small and large, never 0
    n = 1 << 25
    x = torch.randint(-(1 << 30), 1 << 30, (n,), device=dev, dtype=torch.int32)
    mag = torch.where(torch.rand(n, device=dev) < 0.5, torch.randint(1, 100, (n,), device=dev),
                      torch.randint(1, 1 << 20, (n,), device=dev))
    y = (mag * torch.where(torch.rand(n, device=dev) < 0.5, -1, 1)).to(torch.int32)
    q, r, c = (torch.empty_like(x) for _ in range(3))
    def ref():
        x64, y64 = x.long(), y.long()
        tdiv = lambda a, b: torch.div(a, b, rounding_mode="trunc")
        return {"Q": tdiv(x64, y64), "R": torch.fmod(x64, y64),
                "C": tdiv(x64, 16) + torch.fmod(x64, -7) + tdiv(x64, -3) * 5}
    return dict(kernel=int_divmod_kernel, args=dict(X=x, Y=y, Q=q, R=r, C=c, n=n), const=dict(BLOCK=BLK),
                grid=(triton.cdiv(n, BLK),), num_warps=4, outs=["Q", "R", "C"], ref=ref, bytes=5 * n * 4, tol=0.0)


# ------------------------------------------------------------------------------------------ signatures
# case: (kernel, Tritium front-end signature of Triton 3.6's specialization for the case's arguments, num_warps)
CORPUS_SIGNATURES = {
    'gelu_erf':             ('gelu_erf_kernel', "*fp32:16, *fp32:16, i32:16, 1024", 4),
    'gelu_tanh_bf16':       ('gelu_tanh_kernel', "*bf16:16, *bf16:16, i32:16, 1024", 4),
    'silu_f16':             ('silu_kernel', "*fp16:16, *fp16:16, i32:16, 1024", 4),
    'swiglu_bf16':          ('swiglu_kernel', "*bf16:16, *bf16:16, i32:16, i32:16, i32:16, 1024", 4),
    'sigmoid':              ('sigmoid_kernel', "*fp32:16, *fp32:16, i32:16, 1024", 4),
    'exp_log_chain':        ('exp_log_chain_kernel', "*fp32:16, *fp32:16, i32:16, 1024", 4),
    'cast_f32_bf16':        ('cast_kernel', "*fp32:16, *bf16:16, i32:16, 1024", 4),
    'cast_f32_bf16_i64':    ('cast_i64_kernel', "*fp32:16, *bf16:16, i32:16, 1024", 4),
    'cast_bf16_f32':        ('cast_kernel', "*bf16:16, *fp32:16, i32:16, 1024", 4),
    'cast_f16_bf16':        ('cast_kernel', "*fp16:16, *bf16:16, i32:16, 1024", 4),
    'cast_f32_fp8':         ('cast_kernel', "*fp32:16, *fp8e4nv:16, i32:16, 1024", 4),
    'cast_fp8_f16_i64':     ('cast_i64_kernel', "*fp8e4nv:16, *fp16:16, i32:16, 1024", 4),
    'cast_f16_fp8_huge':    ('cast_i64_kernel', "*fp16:16, *fp8e4nv:16, i64:16, 1024", 4),
    'softmax_w128':         ('softmax_rows_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 16, 128", 4),
    'softmax_w1000':        ('softmax_row_kernel', "*fp32:16, *fp32:16, i32, i32, i32, 1024", 4),
    'softmax_w4096_bf16':   ('softmax_row_kernel', "*bf16:16, *bf16:16, i32:16, i32:16, i32:16, 4096", 8),
    'softmax_w16384':       ('softmax_row_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 16384", 16),
    'softmax_w32768':       ('softmax_row_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 32768", 16),
    'softmax_online':       ('softmax_online_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4096", 8),
    'layernorm_fwd_f16':    ('layernorm_fwd_kernel', "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 4096", 8),
    'layernorm_bwd_dx_f16': ('layernorm_bwd_dx_kernel', "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, 4096", 8),
    'rmsnorm_fwd_bf16':     ('rmsnorm_fwd_kernel', "*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, fp32, 4096", 8),
    'rmsnorm_bwd_dx':       ('rmsnorm_bwd_dx_kernel', "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192", 8),
    'welford_var':          ('welford_var_kernel', "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 2048", 8),
    'cross_entropy_fwd':    ('cross_entropy_fwd_kernel', "*bf16:16, *i64:16, *fp32:16, i32:16, i32:16, 4096", 8),
    'rope_f16':             ('rope_kernel', "*fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 64, 32", 4),
    'dropout':              ('dropout_kernel', "*fp32:16, *fp32:16, *i1:16, i32:16, fp32, i32, 1024", 4),
    'row_sum':              ('row_sum_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4, 1024", 4),
    'col_sum':              ('col_sum_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 64, 32", 4),
    'argmax_rows':          ('argmax_row_kernel', "*fp32:16, *i32:16, i32:16, i32:16, 4096", 8),
    'argmin_rows_f16':      ('argmin_rows_kernel', "*fp16:16, *i32:16, i32:16, i32:16, i32:16, 4, 1024", 4),
    'cumsum_rows':          ('cumsum_row_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, 4096", 4),
    'cumprod_rows':         ('cumprod_rows_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4, 512", 4),
    'cummax_rows':          ('cummax_row_kernel', "*fp32:16, *fp32:16, i32, i32, 4096", 4),
    'linear_scan':          ('linear_scan_kernel', "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 2048", 4),
    'transpose_f32':        ('transpose_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 64, 64", 4),
    'transpose_ptr_bf16':   ('transpose_ptr_kernel', "*bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, 64, 64", 4),
    'transpose_batched':    ('batched_transpose_kernel', "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 32, 32", 4),
    'permute_bshd':         ('permute_bshd_kernel', "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 16, 4, 128", 4),
    'embedding_bf16':       ('embedding_kernel', "*i64:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, 8, 512", 4),
    'hist_atomic':          ('hist_atomic_kernel', "*i32:16, *i32:16, i32:16, 1024", 4),
    'hist_block':           ('hist_block_kernel', "*i32:16, *i32:16, 4096, 256", 4),
    'int_bitwise':          ('int_bitwise_kernel', "*i32:16, *i32:16, *i32:16, i32:16, 1024", 4),
    'int_divmod':           ('int_divmod_kernel', "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32:16, 1024", 4),
}
