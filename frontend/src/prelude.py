# Tritium's own Python library for the front end: the parts of triton.language that are
# @triton.jit code rather than single ops (random numbers on Philox 4x32, softmax, swizzle2d,
# flip, sort). Compiled on demand by the same front end; `tl.rand(...)` etc. call these.
import triton
import triton.language as tl

ROUNDS: tl.constexpr = 10
KEY_A: tl.constexpr = 0x9E3779B9
KEY_B: tl.constexpr = 0xBB67AE85
MUL_A: tl.constexpr = 0xD2511F53
MUL_B: tl.constexpr = 0xCD9E8D57


@triton.jit
def philox_rounds(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = ROUNDS):
    # Philox 4x32: each round multiplies two words, mixes in the key, then bumps the key.
    for _ in tl.static_range(n_rounds):
        a0 = c0
        a2 = c2
        c0 = tl.umulhi(MUL_B, a2) ^ c1 ^ k0
        c2 = tl.umulhi(MUL_A, a0) ^ c3 ^ k1
        c1 = MUL_B * a2
        c3 = MUL_A * a0
        k0 = k0 + KEY_A
        k1 = k1 + KEY_B
    return c0, c1, c2, c3


@triton.jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = ROUNDS):
    seed = tl.to_tensor(seed).to(tl.uint64)
    lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    c0 = c0.to(tl.uint32, bitcast=True)
    c1 = c1.to(tl.uint32, bitcast=True)
    c2 = c2.to(tl.uint32, bitcast=True)
    c3 = c3.to(tl.uint32, bitcast=True)
    return philox_rounds(c0, c1, c2, c3, lo, hi, n_rounds)


@triton.jit
def randint4x(seed, offset, n_rounds: tl.constexpr = ROUNDS):
    zero = tl.zeros(offset.shape, offset.dtype)
    return philox(seed, offset, zero, zero, zero, n_rounds)


@triton.jit
def randint(seed, offset, n_rounds: tl.constexpr = ROUNDS):
    r0, r1, r2, r3 = randint4x(seed, offset, n_rounds)
    return r0


@triton.jit
def uint_to_uniform_float(x):
    # 32 random bits to a float in [0, 1): fold the sign, scale by 2**-31.
    x = x.to(tl.int32, bitcast=True)
    x = tl.where(x < 0, -x - 1, x)
    return x * 4.6566127342e-10


@triton.jit
def rand(seed, offset, n_rounds: tl.constexpr = ROUNDS):
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@triton.jit
def pair_uniform_to_normal(u1, u2):
    # Box-Muller.
    u1 = tl.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(theta), r * tl.sin(theta)


@triton.jit
def randn(seed, offset, n_rounds: tl.constexpr = ROUNDS):
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@triton.jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    d: tl.constexpr = 0 if dim is None else dim
    z = x - tl.max(x, d, keep_dims=keep_dims)
    num = tl.exp(z)
    den = tl.sum(num, d, keep_dims=keep_dims)
    return tl.fdiv(num, den, ieee_rounding)


@triton.jit
def swizzle2d(i, j, size_i, size_j, size_g):
    # Row-major (i, j) renumbered so that groups of size_g rows are walked column by column.
    linear = i * size_j + j
    per_group = size_g * size_j
    first_row = (linear // per_group) * size_g
    rows = tl.minimum(size_i - first_row, size_g)
    within = linear % per_group
    return first_row + within % rows, within // rows


@triton.jit
def _index_along(x, dim: tl.constexpr):
    # The position of each element of x along dimension dim.
    n: tl.constexpr = x.shape[dim]
    idx = tl.arange(0, n)
    for d in tl.static_range(len(x.shape)):
        if d < dim:
            idx = tl.expand_dims(idx, 0)
        elif d > dim:
            idx = tl.expand_dims(idx, d)
    return tl.broadcast_to(idx, x.shape)


@triton.jit
def flip(x, dim=None):
    d: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    n: tl.constexpr = x.shape[d]
    return tl.gather(x, (n - 1) - _index_along(x, d), d)


@triton.jit
def sort(x, dim=None, descending=False):
    # Bitonic sorting network over a power-of-2 dimension; partners exchanged with gather.
    d: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    n: tl.constexpr = x.shape[d]
    i = _index_along(x, d)
    for kk in tl.static_range(1, 31):
        if (1 << kk) <= n:
            for jj in tl.static_range(kk - 1, -1, -1):
                partner = i ^ (1 << jj)
                y = tl.gather(x, partner, d)
                ascending = ((i & (1 << kk)) == 0) != descending
                low = (i & (1 << jj)) == 0
                x = tl.where(low == ascending, tl.minimum(x, y), tl.maximum(x, y))
    return x
