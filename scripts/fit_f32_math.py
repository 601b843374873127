#!/usr/bin/env python3
"""Minimax fits of the polynomials of Tritium's f32 math (lowering/src/math/f32.rs).

Each fit approximates a target g(t) on [a, b] by a polynomial P in a variable u = v(t) so that
the error of the final formula, weight(t) * (P(v(t)) - g(t)), is minimized in the max norm:
Lawson's iteratively reweighted least squares on a dense grid (which converges to the minimax
solution), with the targets computed by mpmath at 50 digits. The coefficients are then rounded
to f32 one at a time from the lowest degree, refitting the higher ones after each rounding, so
the rounded polynomial stays near-minimax. Prints the coefficients as f32 bit patterns.

    python3 scripts/fit_f32_math.py            # all fits
    python3 scripts/fit_f32_math.py erf_small  # one
"""
import sys
import numpy as np
import mpmath as mp

mp.mp.dps = 50


def f32(v):
    return float(np.float32(v))


def bits(v):
    return "0x%08x" % np.float32(v).view(np.uint32)


def lawson(V, g, w, iters=400):
    """min_c max |w (V c - g)| by Lawson's algorithm; columns of V are scaled basis functions."""
    n = len(g)
    lw = np.ones(n) / n
    best = None
    for _ in range(iters):
        sw = np.sqrt(lw)
        A = V * (w * sw)[:, None]
        c, *_ = np.linalg.lstsq(A, g * w * sw, rcond=None)
        e = np.abs(w * (V @ c - g))
        m = e.max()
        if best is None or m < best[0]:
            best = (m, c)
        lw = lw * e
        s = lw.sum()
        if s == 0:
            break
        lw /= s
    return best[1], best[0]


def fit(name, a, b, target, weight, var, degrees, fixed=None, n=6000):
    """Fits g = target(t) as sum_k c_k var(t)^k for k in degrees; fixed: {k: value}."""
    t = np.array([float(x) for x in np.linspace(a, b, n)])
    # Chebyshev-like clustering at the ends.
    t = (a + b) / 2 + (b - a) / 2 * np.sin(np.linspace(-np.pi / 2, np.pi / 2, n))
    g = np.array([float(target(mp.mpf(float(x)))) for x in t])
    w = np.array([float(weight(mp.mpf(float(x)))) for x in t])
    u = np.array([var(x) for x in t])
    scale = max(abs(u).max(), 1e-300)
    fixed = dict(fixed or {})
    free = [k for k in degrees if k not in fixed]
    coef = dict(fixed)
    # Round from the lowest free degree up, refitting the rest.
    while free:
        rest = g - sum(coef[k] * u**k for k in coef)
        V = np.stack([(u / scale) ** k for k in free], axis=1)
        c, err = lawson(V, rest, w)
        k = free[0]
        coef[k] = f32(c[0] / scale**k)
        free = free[1:]
    poly = sum(coef[k] * u**k for k in coef)
    err = np.abs(w * (poly - g)).max()
    print(f"{name}: [{a:.6g}, {b:.6g}] degrees {list(degrees)}: max weighted error {err:.3e} = 2^{np.log2(err):.2f}")
    print("    " + ", ".join(f"{bits(coef[k])} /* {coef[k]:.9g} */" for k in sorted(coef)))
    return coef


FITS = {}


def register(f):
    FITS[f.__name__] = f
    return f


@register
def exp():
    # e^r = 1 + r + r^2 P(r), |r| <= ln2/2: relative error.
    h = float(mp.log(2) / 2) * 1.0002
    for d in (5, 6):
        fit(f"exp deg{d}", -h, h,
            lambda r: (mp.exp(r) - 1 - r) / r**2 if r != 0 else mp.mpf(0.5),
            lambda r: r**2 / mp.exp(r) if r != 0 else mp.mpf(0),
            lambda r: r, range(0, d - 1))


@register
def exp2():
    # 2^f = 1 + f (c1 + f P(f)), |f| <= 1/2: relative error.
    for d in (5, 6):
        fit(f"exp2 deg{d}", -0.5, 0.5,
            lambda f: (mp.power(2, f) - 1) / f if f != 0 else mp.log(2),
            lambda f: f / mp.power(2, f),
            lambda f: f, range(0, d))


@register
def log():
    # log1p(f) = f + f^2 g(f), f in [sqrt(1/2) - 1, sqrt(2) - 1]: relative error.
    a, b = float(mp.sqrt(0.5) - 1) * 1.0001, float(mp.sqrt(2) - 1) * 1.0001
    for d in (7, 8, 9):
        fit(f"log deg{d}", a, b,
            lambda f: (mp.log1p(f) - f) / f**2 if f != 0 else mp.mpf(-0.5),
            lambda f: f**2 / mp.log1p(f) if f != 0 else mp.mpf(0),
            lambda f: f, range(0, d - 1))


@register
def erf_small():
    T = 1.0
    for d in (5, 6, 7):
        fit(f"erf_small deg{d}", 1e-6, T,
            lambda x: mp.erf(x) / x - 1,
            lambda x: x / mp.erf(x),
            lambda x: x * x, range(0, d))


@register
def erf_large():
    T = 1.0
    for d in (8, 9, 10, 11):
        fit(f"erf_large deg{d}", T, 4.0,
            lambda x: mp.log(mp.erfc(x), 2),
            lambda x: mp.erfc(x) * mp.log(2) / mp.erf(x),
            lambda x: x, range(0, d + 1))


@register
def tanh_small():
    T = 0.75
    for d in (5, 6, 7):
        fit(f"tanh_small deg{d}", 1e-6, T,
            lambda x: (mp.tanh(x) - x) / x**3,
            lambda x: x**3 / mp.tanh(x),
            lambda x: x * x, range(0, d))


@register
def sin():
    h = float(mp.pi / 4) * 1.001
    for d in (3, 4):
        fit(f"sin deg{d}", 1e-6, h,
            lambda r: (mp.sin(r) - r) / r**3,
            lambda r: r**3 / mp.sin(r),
            lambda r: r * r, range(0, d))


@register
def cos():
    h = float(mp.pi / 4) * 1.001
    for d in (3, 4):
        fit(f"cos deg{d}", 1e-6, h,
            lambda r: (mp.cos(r) - 1) / r**2,
            lambda r: r**2 / mp.cos(r),
            lambda r: r * r, range(0, d + 1), fixed={0: -0.5})


@register
def tan():
    h = float(mp.pi / 4) * 1.001
    for d in (6, 7, 8):
        fit(f"tan deg{d}", 1e-6, h,
            lambda r: (mp.tan(r) - r) / r**3,
            lambda r: r**3 / mp.tan(r),
            lambda r: r * r, range(0, d))


@register
def sinh_small():
    for d in (4, 5):
        fit(f"sinh_small deg{d}", 1e-6, 1.0,
            lambda x: (mp.sinh(x) - x) / x**3,
            lambda x: x**3 / mp.sinh(x),
            lambda x: x * x, range(0, d))


@register
def expm1():
    # e^r - 1 = r + r^2 P(r), |r| <= ln2/2: relative to e^r - 1.
    h = float(mp.log(2) / 2) * 1.0002
    for d in (6, 7):
        fit(f"expm1 deg{d}", -h, h,
            lambda r: (mp.expm1(r) - r) / r**2 if r != 0 else mp.mpf(0.5),
            lambda r: r**2 / mp.expm1(r) if r != 0 else mp.mpf(0),
            lambda r: r, range(0, d - 1))


@register
def atan():
    for d in (7, 8, 9):
        fit(f"atan deg{d}", 1e-6, 1.0,
            lambda t: (mp.atan(t) - t) / t**3,
            lambda t: t**3 / mp.atan(t),
            lambda t: t * t, range(0, d))


@register
def asin():
    for d in (4, 5, 6):
        fit(f"asin deg{d}", 1e-6, 0.5,
            lambda x: (mp.asin(x) - x) / x**3,
            lambda x: x**3 / mp.asin(x),
            lambda x: x * x, range(0, d))


if __name__ == "__main__":
    names = sys.argv[1:] or list(FITS)
    for n in names:
        FITS[n]()
