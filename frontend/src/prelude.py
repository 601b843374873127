# Tritium's own Python library for the front end: the parts of triton.language that Triton
# itself writes as @triton.jit functions (random numbers on Philox 4x32). Compiled on demand
# by the same front end; `tl.rand(...)` etc. call these.
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
