//! Accurate elementwise math without libdevice.
//!
//! Every algorithm is written once, generically over [`Ops`] (the handful of f64/i64/i128
//! operations it needs): [`emit::BuilderOps`] builds it as LLVM-dialect ops of a helper function
//! in the lowered module, and [`cpu::CpuOps`] evaluates the very same formulas on the CPU, which
//! is how the unit tests measure their accuracy against Rust's `std` (see `tests` below).
//!
//! The algorithms here work in f64 and serve f64. f32 (and f16/bf16) are computed in f32 by the
//! algorithms of [`f32`] (a second trait, the same two implementations). The error bounds
//! measured by the tests are listed in `docs/lowering.md`.
//!
//! - `exp`, `exp2`, `expm1`: `x = k·ln2 + r` (Cody–Waite, two-part ln2), a degree-13/14 Taylor
//!   polynomial of `e^r` on `|r| ≤ ln2/2`, scaling by `2^k` in two steps so that subnormal and
//!   near-overflow results are right.
//! - `log`, `log2`, `log10`, `log1p`: `x = 2^e·m`, `m ∈ [√½, √2)`, `f = m − 1`, `s = f/(2+f)`,
//!   `log(1+f) = f − s·(f − R(s²))` with the series of `2·atanh(s)`.
//! - `sin`, `cos`, `tan`: argument reduction by `π/2` with a three-part Cody–Waite constant for
//!   `|x| < 10^6` and Payne–Hanek (192 bits of `2/π` from a table, 128-bit integer products)
//!   beyond, then Taylor polynomials of sin/cos on `|r| ≤ π/4`.
//! - `tanh`, `sinh`, `cosh`: through `expm1`/`exp`; for `|x| < 1`, `tanh` and `sinh` from the
//!   Taylor series of sinh/cosh as double-doubles. `tan` divides double-double sin/cos.
//! - `erf`: its Taylor series for `|x| ≤ 1`; `1 − e^{−x²}·g(x)` with Chebyshev fits of
//!   `g = erfc·e^{x²}` on `[1, 2]`, `[2, 3.5]`, `[3.5, 6]`; `±1` beyond.
//! - `atan`, `atan2`, `asin`, `acos`: reduction to `|t| ≤ tan(π/8)` and a Taylor polynomial.
//! - `pow`: special cases per C99, then `exp(y·log|x|)` with `log|x|` as a double-double, the
//!   product exact (fma TwoProd) and `exp` of the double-double result.

pub mod cpu;
pub mod emit;
pub mod f32;

include!("constants.rs");

/// The operations the algorithms are written in: f64 values (`F`), i64 values (`I`), booleans
/// (`B`) and 128-bit unsigned integers (`W`, used by Payne–Hanek).
pub trait Ops {
    type F: Clone;
    type I: Clone;
    type B: Clone;
    type W: Clone;
    fn f(&mut self, c: f64) -> Self::F;
    fn i(&mut self, c: i64) -> Self::I;
    fn add(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn sub(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn mul(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn div(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn fma(&mut self, a: &Self::F, b: &Self::F, c: &Self::F) -> Self::F;
    fn neg(&mut self, a: &Self::F) -> Self::F;
    fn abs(&mut self, a: &Self::F) -> Self::F;
    /// Round to the nearest integer, ties to even.
    fn rint(&mut self, a: &Self::F) -> Self::F;
    fn sqrt(&mut self, a: &Self::F) -> Self::F;
    /// Ordered `a < b`.
    fn lt(&mut self, a: &Self::F, b: &Self::F) -> Self::B;
    /// Ordered `a == b`.
    fn eq(&mut self, a: &Self::F, b: &Self::F) -> Self::B;
    fn is_nan(&mut self, a: &Self::F) -> Self::B;
    fn sel(&mut self, c: &Self::B, a: &Self::F, b: &Self::F) -> Self::F;
    fn isel(&mut self, c: &Self::B, a: &Self::I, b: &Self::I) -> Self::I;
    fn float_bits(&mut self, a: &Self::F) -> Self::I;
    fn bits_float(&mut self, a: &Self::I) -> Self::F;
    /// f64 → i64 (the value is an integer in range).
    fn f2i(&mut self, a: &Self::F) -> Self::I;
    fn i2f(&mut self, a: &Self::I) -> Self::F;
    fn iadd(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn isub(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn iand(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn ior(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn shl(&mut self, a: &Self::I, s: u32) -> Self::I;
    fn lshr(&mut self, a: &Self::I, s: u32) -> Self::I;
    fn ashr(&mut self, a: &Self::I, s: u32) -> Self::I;
    /// `a << s` with a variable `s` in `[0, 63]`.
    fn shl_var(&mut self, a: &Self::I, s: &Self::I) -> Self::I;
    fn ieq(&mut self, a: &Self::I, b: &Self::I) -> Self::B;
    /// Signed `a < b`.
    fn ilt(&mut self, a: &Self::I, b: &Self::I) -> Self::B;
    fn and(&mut self, a: &Self::B, b: &Self::B) -> Self::B;
    fn or(&mut self, a: &Self::B, b: &Self::B) -> Self::B;
    fn not(&mut self, a: &Self::B) -> Self::B;
    /// Leading zeros of a 64-bit value (64 for zero).
    fn clz(&mut self, a: &Self::I) -> Self::I;
    /// Word `index` of [`TWO_OVER_PI`], zero-extended.
    fn table(&mut self, index: &Self::I) -> Self::I;
    /// Zero-extends the 64 bits of `a`.
    fn wide(&mut self, a: &Self::I) -> Self::W;
    fn wconst(&mut self, c: u128) -> Self::W;
    fn wadd(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn wsub(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn wmul(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn wand(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn wor(&mut self, a: &Self::W, b: &Self::W) -> Self::W;
    fn wshl(&mut self, a: &Self::W, s: u32) -> Self::W;
    fn wlshr(&mut self, a: &Self::W, s: u32) -> Self::W;
    /// `a << s` with a variable `s` in `[0, 127]`.
    fn wshl_var(&mut self, a: &Self::W, s: &Self::I) -> Self::W;
    /// The low 64 bits.
    fn narrow(&mut self, a: &Self::W) -> Self::I;
    fn wsel(&mut self, c: &Self::B, a: &Self::W, b: &Self::W) -> Self::W;
}

/// The functions implemented here (names as in the `math` dialect).
pub const FUNCTIONS: &[&str] = &[
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "sinh",
    "cosh", "erf", "erfc", "atan", "asin", "acos", "atan2", "powf", "cbrt",
];

/// Number of f64 arguments of a function in [`FUNCTIONS`].
pub fn arity(name: &str) -> usize {
    if name == "atan2" || name == "powf" {
        2
    } else {
        1
    }
}

/// Evaluates function `name` of [`FUNCTIONS`] on `args`.
pub fn eval<O: Ops>(o: &mut O, name: &str, args: &[O::F]) -> O::F {
    let x = &args[0];
    match name {
        "exp" => exp(o, x),
        "exp2" => exp2(o, x),
        "expm1" => expm1(o, x),
        "log" => log(o, x),
        "log2" => log2(o, x),
        "log10" => log10(o, x),
        "log1p" => log1p(o, x),
        "sin" => sin(o, x),
        "cos" => cos(o, x),
        "tan" => tan(o, x),
        "tanh" => tanh(o, x),
        "sinh" => sinh(o, x),
        "cosh" => cosh(o, x),
        "erf" => erf(o, x),
        "erfc" => erfc(o, x),
        "atan" => atan(o, x),
        "asin" => asin(o, x),
        "acos" => acos(o, x),
        "atan2" => atan2(o, x, &args[1]),
        "powf" => pow(o, x, &args[1]),
        "cbrt" => cbrt(o, x),
        _ => unreachable!("no math function {name}"),
    }
}

/// Horner's scheme: `c[0] + x·(c[1] + x·(...))`.
fn poly<O: Ops>(o: &mut O, x: &O::F, c: &[f64]) -> O::F {
    let mut acc = o.f(c[c.len() - 1]);
    for &k in c[..c.len() - 1].iter().rev() {
        let kc = o.f(k);
        acc = o.fma(&acc, x, &kc);
    }
    acc
}

fn factorial(n: u32) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// `max(a, lo)` then `min(.., hi)`, leaving NaN as is.
fn clamp<O: Ops>(o: &mut O, a: &O::F, lo: f64, hi: f64) -> O::F {
    let l = o.f(lo);
    let h = o.f(hi);
    let below = o.lt(a, &l);
    let a = o.sel(&below, &l, a);
    let above = o.lt(&h, &a);
    o.sel(&above, &h, &a)
}

/// NaN replaced by zero (so that integer conversions stay defined).
fn denan<O: Ops>(o: &mut O, a: &O::F) -> O::F {
    let nan = o.is_nan(a);
    let zero = o.f(0.0);
    o.sel(&nan, &zero, a)
}

/// `p · 2^k` for `k ∈ [-1100, 1100]`, in two steps.
fn scale<O: Ops>(o: &mut O, p: &O::F, k: &O::I) -> O::F {
    let k1 = o.ashr(k, 1);
    let k2 = o.isub(k, &k1);
    let bias = o.i(1023);
    let e1 = o.iadd(&k1, &bias);
    let e1 = o.shl(&e1, 52);
    let s1 = o.bits_float(&e1);
    let e2 = o.iadd(&k2, &bias);
    let e2 = o.shl(&e2, 52);
    let s2 = o.bits_float(&e2);
    let t = o.mul(p, &s1);
    o.mul(&t, &s2)
}

/// `2^k` for an integer `k ∈ [-1022, 1023]`.
fn pow2<O: Ops>(o: &mut O, k: &O::I) -> O::F {
    let bias = o.i(1023);
    let e = o.iadd(k, &bias);
    let e = o.shl(&e, 52);
    o.bits_float(&e)
}

fn exp_coefficients() -> Vec<f64> {
    (0..=13).map(|n| 1.0 / factorial(n)).collect()
}

/// `x = k·ln2 + r`: returns `(k as integer, k as float, r)`.
fn reduce_ln2<O: Ops>(o: &mut O, x: &O::F) -> (O::I, O::F, O::F) {
    let log2e = o.f(std::f64::consts::LOG2_E);
    let t = o.mul(x, &log2e);
    let k = o.rint(&t);
    let nk = o.neg(&k);
    let hi = o.f(LN2_R_HI);
    let lo = o.f(LN2_R_LO);
    let r = o.fma(&nk, &hi, x);
    let r = o.fma(&nk, &lo, &r);
    let ki = o.f2i(&k);
    (ki, k, r)
}

pub fn exp<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let xn = denan(o, x);
    let xc = clamp(o, &xn, -760.0, 710.0);
    let (k, _, r) = reduce_ln2(o, &xc);
    let p = poly(o, &r, &exp_coefficients());
    let result = scale(o, &p, &k);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &result)
}

/// `e^(x + x_lo)` for a double-double argument (`|x_lo| ≤ ulp(x)`); NaN for NaN `x`.
fn exp_dd<O: Ops>(o: &mut O, x: &O::F, x_lo: &O::F) -> O::F {
    let xn = denan(o, x);
    let xc = clamp(o, &xn, -760.0, 710.0);
    let (k, _, r) = reduce_ln2(o, &xc);
    // The low part only where it is meaningful (finite, |x| in range).
    let ax = o.abs(&xn);
    let lim = o.f(800.0);
    let in_range = o.lt(&ax, &lim);
    let lo = denan(o, x_lo);
    let zero = o.f(0.0);
    let lo = o.sel(&in_range, &lo, &zero);
    let r = o.add(&r, &lo);
    let p = poly(o, &r, &exp_coefficients());
    let result = scale(o, &p, &k);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &result)
}

pub fn exp2<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let xn = denan(o, x);
    let xc = clamp(o, &xn, -1100.0, 1030.0);
    let k = o.rint(&xc);
    let f = o.sub(&xc, &k);
    let ln2 = std::f64::consts::LN_2;
    let c: Vec<f64> = (0..=14)
        .map(|n| ln2.powi(n as i32) / factorial(n))
        .collect();
    // c[1] = ln2 carries its rounding error; add the low part separately.
    let p = poly(o, &f, &c);
    let lo = o.f(LN2_R_LO);
    let fl = o.mul(&f, &lo);
    let p = o.add(&p, &fl);
    let ki = o.f2i(&k);
    let result = scale(o, &p, &ki);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &result)
}

/// `e^r − 1` for `|r| ≤ ln2/2`.
fn expm1_small<O: Ops>(o: &mut O, r: &O::F) -> O::F {
    let c: Vec<f64> = (1..=14).map(|n| 1.0 / factorial(n)).collect();
    let p = poly(o, r, &c);
    o.mul(&p, r)
}

pub fn expm1<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let xn = denan(o, x);
    let xc = clamp(o, &xn, -45.0, 710.0);
    let (k, _, r) = reduce_ln2(o, &xc);
    let em = expm1_small(o, &r);
    // 2^k·(em + 1) − 1 = 2^k·em + (2^k − 1), exact scaling for moderate k.
    let k_small = {
        let lim = o.i(56);
        o.ilt(&k, &lim)
    };
    let kc = {
        let lim = o.i(56);
        o.isel(&k_small, &k, &lim)
    };
    let s = pow2(o, &kc);
    let one = o.f(1.0);
    let sm1 = o.sub(&s, &one);
    let moderate = o.fma(&s, &em, &sm1);
    let ep1 = o.add(&em, &one);
    let big = scale(o, &ep1, &k);
    let big = o.sub(&big, &one);
    let result = o.sel(&k_small, &moderate, &big);
    // Tiny |x|: expm1(x) = x (also keeps the sign of zero).
    let ax = o.abs(x);
    let tiny_lim = o.f(1e-300);
    let tiny = o.lt(&ax, &tiny_lim);
    let result = o.sel(&tiny, x, &result);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &result)
}

/// `x = 2^e·(1 + f)` with `1 + f ∈ [√½, √2)` (`f` exact) for a positive finite `x`: `(e, f)`.
fn log_reduce<O: Ops>(o: &mut O, x: &O::F) -> (O::I, O::F) {
    let min_normal = o.f(f64::MIN_POSITIVE);
    let sub = o.lt(x, &min_normal);
    let big = o.f(2f64.powi(54));
    let xs = o.mul(x, &big);
    let xs = o.sel(&sub, &xs, x);
    let bits = o.float_bits(&xs);
    let be = o.lshr(&bits, 52);
    let mask = o.i((1i64 << 52) - 1);
    let mb = o.iand(&bits, &mask);
    let one_bits = o.i(1023i64 << 52);
    let mb = o.ior(&mb, &one_bits);
    let m = o.bits_float(&mb);
    let bias = o.i(1023);
    let e = o.isub(&be, &bias);
    let adj = o.i(54);
    let e_sub = o.isub(&e, &adj);
    let e = o.isel(&sub, &e_sub, &e);
    let sqrt2 = o.f(std::f64::consts::SQRT_2);
    let hi = o.lt(&sqrt2, &m);
    let half = o.f(0.5);
    let mh = o.mul(&m, &half);
    let m = o.sel(&hi, &mh, &m);
    let one_i = o.i(1);
    let e1 = o.iadd(&e, &one_i);
    let e = o.isel(&hi, &e1, &e);
    let one = o.f(1.0);
    let f = o.sub(&m, &one);
    (e, f)
}

/// `log(x)` of a positive finite `x` as `(e, l)` with `log x = e·ln2 + l`.
fn log_parts<O: Ops>(o: &mut O, x: &O::F) -> (O::F, O::F) {
    let (e, f) = log_reduce(o, x);
    let two = o.f(2.0);
    let d = o.add(&two, &f);
    let s = o.div(&f, &d);
    let z = o.mul(&s, &s);
    let c: Vec<f64> = (1..=11).map(|n| 2.0 / (2 * n + 1) as f64).collect();
    let r = poly(o, &z, &c);
    let r = o.mul(&r, &z);
    let fr = o.sub(&f, &r);
    let sfr = o.mul(&s, &fr);
    let l = o.sub(&f, &sfr);
    let ef = o.i2f(&e);
    (ef, l)
}

/// `a + b` as `(s, err)` exactly, for `|a| ≥ |b|` (or `a = 0`).
fn fast_two_sum<O: Ops>(o: &mut O, a: &O::F, b: &O::F) -> (O::F, O::F) {
    let s = o.add(a, b);
    let d = o.sub(&s, a);
    let e = o.sub(b, &d);
    (s, e)
}

/// `a + b` as `(s, err)` exactly, for any finite `a`, `b` (Knuth's TwoSum).
fn two_sum<O: Ops>(o: &mut O, a: &O::F, b: &O::F) -> (O::F, O::F) {
    let s = o.add(a, b);
    let bb = o.sub(&s, a);
    let ab = o.sub(&s, &bb);
    let db = o.sub(b, &bb);
    let da = o.sub(a, &ab);
    let e = o.add(&da, &db);
    (s, e)
}

/// `log(x)` of a positive finite `x` as a double-double `(hi, lo)` (relative error about
/// 2^-65): `log(1+f) = 2s + (2/3)s³ + s⁵·R(s²)` with `s = f/(2+f)` carried as `s + s_lo`,
/// `(2/3)s³` as a double-double and only the small `s⁵` tail in plain f64.
fn log_dd<O: Ops>(o: &mut O, x: &O::F) -> (O::F, O::F) {
    let (ei, f) = log_reduce(o, x);
    let two = o.f(2.0);
    let (d, d_lo) = fast_two_sum(o, &two, &f);
    let s = o.div(&f, &d);
    let ns = o.neg(&s);
    let rem = o.fma(&ns, &d, &f);
    let rem = o.fma(&ns, &d_lo, &rem);
    let s_lo = o.div(&rem, &d);
    // s³ = c + c_lo.
    let z = o.mul(&s, &s);
    let nz = o.neg(&z);
    let z_lo = o.fma(&s, &s, &nz);
    let c = o.mul(&s, &z);
    let nc = o.neg(&c);
    let c_lo = o.fma(&s, &z, &nc);
    let c_lo = o.fma(&s, &z_lo, &c_lo);
    // (2/3)·s³ = t + t_lo.
    let third_hi = 2.0f64 / 3.0;
    let third_lo = f64::from_bits(0x3c85555555555555); // 2/3 − third_hi
    let th = o.f(third_hi);
    let tl = o.f(third_lo);
    let t = o.mul(&c, &th);
    let nt = o.neg(&t);
    let t_lo = o.fma(&c, &th, &nt);
    let t_lo = o.fma(&c, &tl, &t_lo);
    let t_lo = o.fma(&c_lo, &th, &t_lo);
    // s⁵·(2/5 + 2/7·z + ...).
    let coef: Vec<f64> = (2..=11).map(|n| 2.0 / (2 * n + 1) as f64).collect();
    let r2 = poly(o, &z, &coef);
    let cz = o.mul(&c, &z);
    let rest = o.mul(&cz, &r2);
    // s_lo's share: 2·s_lo·(1 + s²).
    let sl = o.mul(&s_lo, &two);
    let sl = o.fma(&z, &sl, &sl);
    let h0 = o.mul(&s, &two);
    let (h1, e1) = fast_two_sum(o, &h0, &t);
    let lo_m = o.add(&t_lo, &rest);
    let lo_m = o.add(&lo_m, &sl);
    let lo_m = o.add(&e1, &lo_m);
    // + e·ln2 (e·LN2_HI is exact).
    let ef = o.i2f(&ei);
    let lh = o.f(LN2_HI);
    let ll = o.f(LN2_LO);
    let a = o.mul(&ef, &lh);
    let al = o.mul(&ef, &ll);
    let (hs, es) = two_sum(o, &a, &h1);
    let lo = o.add(&lo_m, &al);
    let lo = o.add(&es, &lo);
    fast_two_sum(o, &hs, &lo)
}

/// Special cases of a logarithm: NaN below zero, −∞ at zero, `x` at +∞ and NaN.
fn log_specials<O: Ops>(o: &mut O, x: &O::F, result: &O::F) -> O::F {
    let zero = o.f(0.0);
    let inf = o.f(f64::INFINITY);
    let is_zero = o.eq(x, &zero);
    let neg_inf = o.f(f64::NEG_INFINITY);
    let r = o.sel(&is_zero, &neg_inf, result);
    let negative = o.lt(x, &zero);
    let nan = o.f(f64::NAN);
    let r = o.sel(&negative, &nan, &r);
    let is_inf = o.eq(x, &inf);
    let is_nan = o.is_nan(x);
    let pass = o.or(&is_inf, &is_nan);
    o.sel(&pass, x, &r)
}

/// A positive finite stand-in for `x` so that `log_parts` stays defined.
fn log_input<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let zero = o.f(0.0);
    let ok = o.lt(&zero, x);
    let inf = o.f(f64::INFINITY);
    let finite = o.lt(x, &inf);
    let ok = o.and(&ok, &finite);
    let one = o.f(1.0);
    o.sel(&ok, x, &one)
}

pub fn log<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let xi = log_input(o, x);
    let (e, l) = log_parts(o, &xi);
    let hi = o.f(LN2_HI);
    let lo = o.f(LN2_LO);
    let t = o.fma(&e, &lo, &l);
    let r = o.fma(&e, &hi, &t);
    log_specials(o, x, &r)
}

/// `e·c + l·(m_hi + m_lo)` for the base-2/base-10 logarithms.
fn log_base<O: Ops>(o: &mut O, x: &O::F, m_hi: f64, m_lo: f64, c_hi: f64, c_lo: f64) -> O::F {
    let xi = log_input(o, x);
    let (e, l) = log_parts(o, &xi);
    let mh = o.f(m_hi);
    let ml = o.f(m_lo);
    let p = o.mul(&l, &mh);
    let np = o.neg(&p);
    let err = o.fma(&l, &mh, &np);
    let err = o.fma(&l, &ml, &err);
    let ch = o.f(c_hi);
    let cl = o.f(c_lo);
    let ec_lo = o.mul(&e, &cl);
    let tail = o.add(&err, &ec_lo);
    let ec = o.mul(&e, &ch);
    let s = o.add(&ec, &p);
    let r = o.add(&s, &tail);
    log_specials(o, x, &r)
}

pub fn log2<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    log_base(o, x, INV_LN2_HI, INV_LN2_LO, 1.0, 0.0)
}

pub fn log10<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    log_base(o, x, INV_LN10_HI, INV_LN10_LO, LOG10_2_HI, LOG10_2_LO)
}

pub fn log1p<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let one = o.f(1.0);
    let u = o.add(&one, x);
    // The rounding error of 1 + x, relative to u.
    let um1 = o.sub(&u, &one);
    let c = o.sub(x, &um1);
    let c = o.div(&c, &u);
    let ax = o.abs(x);
    let lim = o.f(2f64.powi(53));
    let small = o.lt(&ax, &lim);
    let zero = o.f(0.0);
    let c = o.sel(&small, &c, &zero);
    let ui = log_input(o, &u);
    let (e, l) = log_parts(o, &ui);
    let hi = o.f(LN2_HI);
    let lo = o.f(LN2_LO);
    let t = o.add(&l, &c);
    let t = o.fma(&e, &lo, &t);
    let r = o.fma(&e, &hi, &t);
    let r = log_specials(o, &u, &r);
    // Tiny x: log1p(x) = x (keeps −0).
    let tiny_lim = o.f(1e-300);
    let tiny = o.lt(&ax, &tiny_lim);
    let r = o.sel(&tiny, x, &r);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &r)
}

/// `|x| = (4n + q)·π/2 + r + r_lo` with `|r| ≤ π/4`: returns `(q, r, r_lo)` (only the low 2
/// bits of q matter; `r_lo` is the rounding error of `r`).
fn reduce_pio2<O: Ops>(o: &mut O, ax: &O::F) -> (O::I, O::F, O::F) {
    // Medium: three-part Cody–Waite.
    let two_over_pi = o.f(std::f64::consts::FRAC_2_PI);
    let t = o.mul(ax, &two_over_pi);
    let k = o.rint(&t);
    let nk = o.neg(&k);
    let p1 = o.f(PIO2_1);
    let p2 = o.f(PIO2_2);
    let p3 = o.f(PIO2_3);
    let r = o.fma(&nk, &p1, ax);
    let r2 = o.fma(&nk, &p2, &r);
    let r_medium = o.fma(&nk, &p3, &r2);
    // The low part: k·PIO2_2 is exact (k < 2^20), so r − k·PIO2_2 = r2 + e2 exactly.
    let kp2 = o.mul(&k, &p2);
    let nkp2 = o.neg(&kp2);
    let (_, e2) = two_sum(o, &r, &nkp2);
    let kp3 = o.mul(&k, &p3);
    let d = o.sub(&r2, &r_medium);
    let d = o.sub(&d, &kp3);
    let r_lo_medium = o.add(&d, &e2);
    let lim = o.f(1.0e6);
    let medium = o.lt(ax, &lim);
    let kc = o.sel(&medium, &k, &lim);
    let q_medium = o.f2i(&kc);
    // Large: Payne–Hanek.
    let (q_large, r_large, r_lo_large) = payne_hanek(o, ax);
    let q = o.isel(&medium, &q_medium, &q_large);
    let r = o.sel(&medium, &r_medium, &r_large);
    let r_lo = o.sel(&medium, &r_lo_medium, &r_lo_large);
    (q, r, r_lo)
}

/// Payne–Hanek reduction of a finite `ax ≥ 2^20` (other inputs give garbage, selected away).
fn payne_hanek<O: Ops>(o: &mut O, ax: &O::F) -> (O::I, O::F, O::F) {
    let bits = o.float_bits(ax);
    let be = o.lshr(&bits, 52);
    let mask52 = o.i((1i64 << 52) - 1);
    let m = o.iand(&bits, &mask52);
    let implicit = o.i(1i64 << 52);
    let m = o.ior(&m, &implicit);
    // ax = m·2^e with e = be − 1075; the window of 2/π starts at bit e − 1 (bit 1 = 2^-1),
    // which is bit e + 62 of the table (two leading zero words).
    let off = o.i(1075 - 62);
    let j = o.isub(&be, &off);
    let zero = o.i(0);
    let neg = o.ilt(&j, &zero);
    let j = o.isel(&neg, &zero, &j);
    let max_j = o.i((TWO_OVER_PI.len() as i64 - 7) * 32);
    let over = o.ilt(&max_j, &j);
    let j = o.isel(&over, &max_j, &j);
    let wi = o.lshr(&j, 5);
    let c31 = o.i(31);
    let sh = o.iand(&j, &c31);
    let mut words = Vec::new();
    for t in 0..7 {
        let ti = o.i(t);
        let idx = o.iadd(&wi, &ti);
        words.push(o.table(&idx));
    }
    let mask32 = o.i(0xffff_ffff);
    let mut window = Vec::new();
    for t in 0..6 {
        let hi = o.shl(&words[t], 32);
        let pair = o.ior(&hi, &words[t + 1]);
        let shifted = o.shl_var(&pair, &sh);
        let w = o.lshr(&shifted, 32);
        window.push(o.iand(&w, &mask32));
    }
    // P = m · W (192-bit window), 32-bit digits from the least significant.
    let mw = o.wide(&m);
    let mut acc = o.wconst(0);
    let mut digits = vec![o.wconst(0); 6];
    let m32 = o.wconst(0xffff_ffff);
    for t in (0..6).rev() {
        let w = o.wide(&window[t]);
        let p = o.wmul(&mw, &w);
        acc = o.wadd(&acc, &p);
        digits[t] = o.wand(&acc, &m32);
        acc = o.wlshr(&acc, 32);
    }
    // Quadrant: bits 190..191; fraction: the 128 bits below.
    let q = o.wlshr(&digits[0], 30);
    let q = o.narrow(&q);
    let c3 = o.i(3);
    let q = o.iand(&q, &c3);
    let low30 = o.wconst(0x3fff_ffff);
    let d0 = o.wand(&digits[0], &low30);
    let f = o.wshl(&d0, 98);
    let d1 = o.wshl(&digits[1], 66);
    let f = o.wor(&f, &d1);
    let d2 = o.wshl(&digits[2], 34);
    let f = o.wor(&f, &d2);
    let d3 = o.wshl(&digits[3], 2);
    let f = o.wor(&f, &d3);
    let d4 = o.wlshr(&digits[4], 30);
    let f = o.wor(&f, &d4);
    // A fraction ≥ 1/2 belongs to the next quadrant, as a negative remainder.
    let top = o.wlshr(&f, 127);
    let top = o.narrow(&top);
    let one = o.i(1);
    let upper = o.ieq(&top, &one);
    let q1 = o.iadd(&q, &one);
    let q = o.isel(&upper, &q1, &q);
    let zero_w = o.wconst(0);
    let negf = o.wsub(&zero_w, &f);
    let mag = o.wsel(&upper, &negf, &f);
    // Normalize the 128-bit magnitude and convert it to a double-double.
    let hi = o.wlshr(&mag, 64);
    let hi = o.narrow(&hi);
    let lo = o.narrow(&mag);
    let hz = o.ieq(&hi, &zero);
    let clz_hi = o.clz(&hi);
    let clz_lo = o.clz(&lo);
    let c64 = o.i(64);
    let clz_lo = o.iadd(&clz_lo, &c64);
    let lz = o.isel(&hz, &clz_lo, &clz_hi);
    let c127 = o.i(127);
    let lz_over = o.ilt(&c127, &lz);
    let lz = o.isel(&lz_over, &c127, &lz);
    let norm = o.wshl_var(&mag, &lz);
    let top53 = o.wlshr(&norm, 75);
    let top53 = o.narrow(&top53);
    let next = o.wlshr(&norm, 22);
    let next = o.narrow(&next);
    let m53 = o.i((1i64 << 53) - 1);
    let next = o.iand(&next, &m53);
    let e0 = o.i(-53);
    let e = o.isub(&e0, &lz);
    let s = pow2(o, &e);
    let th = o.i2f(&top53);
    let fh = o.mul(&th, &s);
    let tl = o.i2f(&next);
    let s53 = o.f(2f64.powi(-53));
    let tl = o.mul(&tl, &s53);
    let fl = o.mul(&tl, &s);
    let ph = o.f(PIO2_HI);
    let pl = o.f(PIO2_LO);
    let rh = o.mul(&fh, &ph);
    let nrh = o.neg(&rh);
    let err = o.fma(&fh, &ph, &nrh);
    let flp = o.mul(&fl, &ph);
    let tail = o.fma(&fh, &pl, &flp);
    let tail = o.add(&err, &tail);
    let (r, r_lo) = fast_two_sum(o, &rh, &tail);
    let nr = o.neg(&r);
    let r = o.sel(&upper, &nr, &r);
    let nr_lo = o.neg(&r_lo);
    let r_lo = o.sel(&upper, &nr_lo, &r_lo);
    (q, r, r_lo)
}

fn sin_poly<O: Ops>(o: &mut O, r: &O::F, z: &O::F) -> O::F {
    let c: Vec<f64> = (1..=9)
        .map(|n| if n % 2 == 1 { -1.0 } else { 1.0 } / factorial(2 * n + 1))
        .collect();
    let p = poly(o, z, &c);
    let rz = o.mul(r, z);
    o.fma(&rz, &p, r)
}

fn cos_poly<O: Ops>(o: &mut O, z: &O::F) -> O::F {
    let c: Vec<f64> = (1..=9)
        .map(|n| if n % 2 == 1 { -1.0 } else { 1.0 } / factorial(2 * n))
        .collect();
    let p = poly(o, z, &c);
    let one = o.f(1.0);
    o.fma(z, &p, &one)
}

/// `(sin r, cos r, q)` for `|x|`, with NaN for infinite or NaN `x`.
fn sincos_reduced<O: Ops>(o: &mut O, x: &O::F) -> (O::F, O::F, O::I) {
    let xn = denan(o, x);
    let ax = o.abs(&xn);
    let inf = o.f(f64::INFINITY);
    let finite = o.lt(&ax, &inf);
    let zero = o.f(0.0);
    let ax = o.sel(&finite, &ax, &zero);
    let (q, r, _) = reduce_pio2(o, &ax);
    let z = o.mul(&r, &r);
    let s = sin_poly(o, &r, &z);
    let c = cos_poly(o, &z);
    (s, c, q)
}

fn not_finite<O: Ops>(o: &mut O, x: &O::F) -> O::B {
    let d = o.sub(x, x);
    o.is_nan(&d)
}

pub fn sin<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let (s, c, q) = sincos_reduced(o, x);
    let one = o.i(1);
    let two = o.i(2);
    let zero = o.i(0);
    let odd = o.iand(&q, &one);
    let odd = o.ieq(&odd, &one);
    let v = o.sel(&odd, &c, &s);
    let q2 = o.iand(&q, &two);
    let flip = o.ieq(&q2, &zero);
    let nv = o.neg(&v);
    let v = o.sel(&flip, &v, &nv);
    let zf = o.f(0.0);
    let negative = o.lt(x, &zf);
    let nv = o.neg(&v);
    let v = o.sel(&negative, &nv, &v);
    // sin(±0) = ±0.
    let is_zero = o.eq(x, &zf);
    let v = o.sel(&is_zero, x, &v);
    let bad = not_finite(o, x);
    let nan = o.f(f64::NAN);
    o.sel(&bad, &nan, &v)
}

pub fn cos<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let (s, c, q) = sincos_reduced(o, x);
    let one = o.i(1);
    let two = o.i(2);
    let zero = o.i(0);
    let odd = o.iand(&q, &one);
    let odd = o.ieq(&odd, &one);
    let v = o.sel(&odd, &s, &c);
    let q1 = o.iadd(&q, &one);
    let q2 = o.iand(&q1, &two);
    let keep = o.ieq(&q2, &zero);
    let nv = o.neg(&v);
    let v = o.sel(&keep, &v, &nv);
    let bad = not_finite(o, x);
    let nan = o.f(f64::NAN);
    o.sel(&bad, &nan, &v)
}

pub fn tan<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let xn = denan(o, x);
    let ax = o.abs(&xn);
    let inf = o.f(f64::INFINITY);
    let finite = o.lt(&ax, &inf);
    let zero = o.f(0.0);
    let ax = o.sel(&finite, &ax, &zero);
    let (q, r, r_lo) = reduce_pio2(o, &ax);
    // sin and cos of r + r_lo as double-doubles: (r + r·z·P) + r_lo·cos r, (1 + z·Q) − r_lo·sin r.
    let z = o.mul(&r, &r);
    let sc: Vec<f64> = (1..=9)
        .map(|n| if n % 2 == 1 { -1.0 } else { 1.0 } / factorial(2 * n + 1))
        .collect();
    let sp = poly(o, &z, &sc);
    let rz = o.mul(&r, &z);
    let s_t = o.mul(&rz, &sp);
    let cc: Vec<f64> = (1..=9)
        .map(|n| if n % 2 == 1 { -1.0 } else { 1.0 } / factorial(2 * n))
        .collect();
    let cp = poly(o, &z, &cc);
    let c_t = o.mul(&z, &cp);
    let one_f = o.f(1.0);
    let (s, s_lo) = fast_two_sum(o, &r, &s_t);
    let (c, c_lo) = fast_two_sum(o, &one_f, &c_t);
    let s_lo = o.fma(&r_lo, &c, &s_lo);
    let nr_lo = o.neg(&r_lo);
    let c_lo = o.fma(&nr_lo, &s, &c_lo);
    let one = o.i(1);
    let odd = o.iand(&q, &one);
    let odd = o.ieq(&odd, &one);
    let t = dd_div(o, &s, &s_lo, &c, &c_lo);
    let ct = dd_div(o, &c, &c_lo, &s, &s_lo);
    let nct = o.neg(&ct);
    let v = o.sel(&odd, &nct, &t);
    let zf = o.f(0.0);
    let negative = o.lt(x, &zf);
    let nv = o.neg(&v);
    let v = o.sel(&negative, &nv, &v);
    let is_zero = o.eq(x, &zf);
    let v = o.sel(&is_zero, x, &v);
    let bad = not_finite(o, x);
    let nan = o.f(f64::NAN);
    o.sel(&bad, &nan, &v)
}

/// `(n + n_lo) / (d + d_lo)` with the quotient's rounding error corrected once.
fn dd_div<O: Ops>(o: &mut O, n: &O::F, n_lo: &O::F, d: &O::F, d_lo: &O::F) -> O::F {
    let v = o.div(n, d);
    let nv = o.neg(&v);
    let rem = o.fma(&nv, d, n);
    let rem = o.fma(&nv, d_lo, &rem);
    let rem = o.add(&rem, n_lo);
    let c = o.div(&rem, d);
    o.add(&v, &c)
}

/// `n / (d + d_lo)` with the quotient's rounding error corrected once.
fn corrected_div<O: Ops>(o: &mut O, n: &O::F, d: &O::F, d_lo: &O::F) -> O::F {
    let v = o.div(n, d);
    let nv = o.neg(&v);
    let rem = o.fma(&nv, d, n);
    let rem = o.fma(&nv, d_lo, &rem);
    let c = o.div(&rem, d);
    o.add(&v, &c)
}

/// `-v` where `x < 0`, else `v`.
fn with_sign_of<O: Ops>(o: &mut O, x: &O::F, v: &O::F) -> O::F {
    let zero = o.f(0.0);
    let negative = o.lt(x, &zero);
    let nv = o.neg(v);
    o.sel(&negative, &nv, v)
}

/// `sinh a` and `cosh a` for `|a| ≤ 1` as double-doubles `(s, s_lo, c, c_lo)`, from their
/// Taylor series (terms to `a^21`).
fn sinh_cosh_small<O: Ops>(o: &mut O, a: &O::F) -> (O::F, O::F, O::F, O::F) {
    let z = o.mul(a, a);
    let sc: Vec<f64> = (1..=10).map(|n| 1.0 / factorial(2 * n + 1)).collect();
    let sp = poly(o, &z, &sc);
    let az = o.mul(a, &z);
    let s_t = o.mul(&az, &sp);
    let cc: Vec<f64> = (1..=10).map(|n| 1.0 / factorial(2 * n)).collect();
    let cp = poly(o, &z, &cc);
    let c_t = o.mul(&z, &cp);
    let one = o.f(1.0);
    let (s, s_lo) = fast_two_sum(o, a, &s_t);
    let (c, c_lo) = fast_two_sum(o, &one, &c_t);
    (s, s_lo, c, c_lo)
}

pub fn tanh<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let lim = o.f(22.0);
    let axc = clamp(o, &ax, 0.0, 22.0);
    let two = o.f(2.0);
    let a2 = o.mul(&axc, &two);
    let t = expm1(o, &a2);
    // t / (t + 2) with the sum as a double-double and the quotient corrected once.
    let d = o.add(&t, &two);
    let two_m_d = o.sub(&two, &d);
    let d_lo = o.add(&two_m_d, &t);
    let v = corrected_div(o, &t, &d, &d_lo);
    // |x| < 1: sinh/cosh from their series (expm1's error would carry over in full).
    let one_lim = o.f(1.0);
    let small = o.lt(&ax, &one_lim);
    let as_ = clamp(o, &ax, 0.0, 1.0);
    let (s, s_lo, c, c_lo) = sinh_cosh_small(o, &as_);
    let v_small = dd_div(o, &s, &s_lo, &c, &c_lo);
    let v = o.sel(&small, &v_small, &v);
    let big = o.lt(&lim, &ax);
    let one = o.f(1.0);
    let v = o.sel(&big, &one, &v);
    let v = with_sign_of(o, x, &v);
    let tiny_lim = o.f(1e-300);
    let tiny = o.lt(&ax, &tiny_lim);
    let v = o.sel(&tiny, x, &v);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

/// `e^a / 2` for large `a` without overflowing early: `e^(a − ln2_hi)·(1 − ln2_lo)` (the
/// subtraction is exact).
fn exp_half<O: Ops>(o: &mut O, a: &O::F) -> O::F {
    let hi = o.f(LN2_HI);
    let am = o.sub(a, &hi);
    let e = exp(o, &am);
    let c = o.f(1.0 - LN2_LO);
    o.mul(&e, &c)
}

pub fn sinh<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let small_lim = o.f(700.0);
    let small = o.lt(&ax, &small_lim);
    let em = expm1(o, &ax);
    // (e − 1/e)/2 = (em + em/(em + 1))/2
    let one = o.f(1.0);
    let ep = o.add(&em, &one);
    let q = o.div(&em, &ep);
    let s = o.add(&em, &q);
    let half = o.f(0.5);
    let v_small = o.mul(&s, &half);
    // |x| < 1: the Taylor series.
    let one_lim = o.f(1.0);
    let tiny_x = o.lt(&ax, &one_lim);
    let as_ = clamp(o, &ax, 0.0, 1.0);
    let (ts, ts_lo, _, _) = sinh_cosh_small(o, &as_);
    let ts = o.add(&ts, &ts_lo);
    let v_small = o.sel(&tiny_x, &ts, &v_small);
    // Large: e^(|x| − ln2) without overflowing early.
    let v_large = exp_half(o, &ax);
    let v = o.sel(&small, &v_small, &v_large);
    let v = with_sign_of(o, x, &v);
    let tiny_lim = o.f(1e-300);
    let tiny = o.lt(&ax, &tiny_lim);
    let v = o.sel(&tiny, x, &v);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

pub fn cosh<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let small_lim = o.f(700.0);
    let small = o.lt(&ax, &small_lim);
    let e = exp(o, &ax);
    let half = o.f(0.5);
    let inv = o.div(&half, &e);
    let he = o.mul(&e, &half);
    let v_small = o.add(&he, &inv);
    let v_large = exp_half(o, &ax);
    let v = o.sel(&small, &v_small, &v_large);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

/// `erfc(x)·e^{x²}` for `x ∈ [1, 6]`, Chebyshev on three intervals.
fn erfc_scaled<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let bounds = [(1.0, 2.0), (2.0, 3.5), (3.5, 6.0)];
    let two = o.f(2.0);
    let b1 = o.f(2.0);
    let b2 = o.f(3.5);
    let in1 = o.lt(x, &b1);
    let in2 = o.lt(x, &b2);
    let pick = |o: &mut O, a: f64, b: f64, c: f64| {
        let (fa, fb, fc) = (o.f(a), o.f(b), o.f(c));
        let t = o.sel(&in2, &fb, &fc);
        o.sel(&in1, &fa, &t)
    };
    // t = (2x − (a + b)) / (b − a), as x·(2/(b − a)) − (a + b)/(b − a).
    let scale_c: Vec<f64> = bounds.iter().map(|(a, b)| 2.0 / (b - a)).collect();
    let shift_c: Vec<f64> = bounds.iter().map(|(a, b)| (a + b) / (b - a)).collect();
    let sc = pick(o, scale_c[0], scale_c[1], scale_c[2]);
    let sh = pick(o, shift_c[0], shift_c[1], shift_c[2]);
    let nsh = o.neg(&sh);
    let t = o.fma(x, &sc, &nsh);
    let t2 = o.mul(&t, &two);
    let n = ERFC_CHEB.iter().map(|c| c.len()).max().unwrap_or(0);
    let coef = |i: usize, j: usize| -> f64 {
        let c = ERFC_CHEB[i]
            .get(j)
            .map(|&b| f64::from_bits(b))
            .unwrap_or(0.0);
        if j == 0 { c / 2.0 } else { c }
    };
    // Clenshaw.
    let mut b_next = o.f(0.0);
    let mut b_next2 = o.f(0.0);
    for j in (1..n).rev() {
        let c = pick(o, coef(0, j), coef(1, j), coef(2, j));
        let tb = o.fma(&t2, &b_next, &c);
        let b = o.sub(&tb, &b_next2);
        b_next2 = b_next;
        b_next = b;
    }
    let c0 = pick(o, coef(0, 0), coef(1, 0), coef(2, 0));
    let tb = o.fma(&t, &b_next, &c0);
    o.sub(&tb, &b_next2)
}

/// `e^{−x²}` with `x²` as a double-double.
fn exp_neg_square<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let hi = o.mul(x, x);
    let nhi = o.neg(&hi);
    let lo = o.fma(x, x, &nhi);
    let e = exp(o, &nhi);
    let nlo = o.neg(&lo);
    let corr = o.mul(&e, &nlo);
    o.add(&e, &corr)
}

pub fn erf<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let c: Vec<f64> = (0..=18)
        .map(|n| {
            let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
            sign * std::f64::consts::FRAC_2_SQRT_PI / (factorial(n) * (2 * n + 1) as f64)
        })
        .collect();
    let z = o.mul(x, x);
    let p = poly(o, &z, &c);
    let v_small = o.mul(x, &p);
    let axc = clamp(o, &ax, 1.0, 6.0);
    let g = erfc_scaled(o, &axc);
    let e = exp_neg_square(o, &axc);
    let ec = o.mul(&e, &g);
    let one = o.f(1.0);
    let v_mid = o.sub(&one, &ec);
    let v_mid = with_sign_of(o, x, &v_mid);
    let lim = o.f(1.0);
    let small = o.lt(&ax, &lim);
    let v = o.sel(&small, &v_small, &v_mid);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

pub fn erfc<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    // 1 − erf(x) where that loses little; the scaled form for x ≥ 1; 2 − erfc(−x) for x ≤ −1.
    let ax = o.abs(x);
    let e = erf(o, x);
    let one = o.f(1.0);
    let v_small = o.sub(&one, &e);
    let axc = clamp(o, &ax, 1.0, 27.0);
    let g_mid = {
        let a6 = clamp(o, &axc, 1.0, 6.0);
        erfc_scaled(o, &a6)
    };
    // Beyond 6: the asymptotic continued fraction is accurate enough; use g ≈ 1/(x√π)·(1 − 1/(2x²) + 3/(4x⁴) − 15/(8x⁶)).
    let inv = o.div(&one, &axc);
    let inv2 = o.mul(&inv, &inv);
    let asym = poly(
        o,
        &inv2,
        &[1.0, -0.5, 0.75, -1.875, 6.5625, -29.53125, 162.421875],
    );
    let rsp = o.f(1.0 / std::f64::consts::PI.sqrt());
    let a1 = o.mul(&inv, &rsp);
    let g_far = o.mul(&a1, &asym);
    let six = o.f(6.0);
    let mid = o.lt(&axc, &six);
    let g = o.sel(&mid, &g_mid, &g_far);
    let en = exp_neg_square(o, &axc);
    let pos = o.mul(&en, &g);
    let two = o.f(2.0);
    let neg = o.sub(&two, &pos);
    let zero = o.f(0.0);
    let negative = o.lt(x, &zero);
    let v_far = o.sel(&negative, &neg, &pos);
    let small = o.lt(&ax, &one);
    let v = o.sel(&small, &v_small, &v_far);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

/// `atan(t)` for `t ∈ [0, ∞]`.
fn atan_positive<O: Ops>(o: &mut O, t: &O::F) -> O::F {
    let one = o.f(1.0);
    let big = o.lt(&one, t);
    let inv = o.div(&one, t);
    let u = o.sel(&big, &inv, t);
    // u ∈ [0, 1]; above tan(π/8): atan(u) = π/4 + atan((u − 1)/(u + 1)).
    let tan_pi8 = o.f(std::f64::consts::SQRT_2 - 1.0);
    let mid = o.lt(&tan_pi8, &u);
    let num = o.sub(&u, &one);
    let den = o.add(&u, &one);
    let w = o.div(&num, &den);
    let v = o.sel(&mid, &w, &u);
    let z = o.mul(&v, &v);
    let c: Vec<f64> = (1..=22)
        .map(|n| if n % 2 == 1 { -1.0 } else { 1.0 } / (2 * n + 1) as f64)
        .collect();
    let p = poly(o, &z, &c);
    let vz = o.mul(&v, &z);
    let a = o.fma(&vz, &p, &v);
    let zero = o.f(0.0);
    let pio4_hi = o.f(PIO4_HI);
    let pio4_lo = o.f(PIO4_LO);
    let off_hi = o.sel(&mid, &pio4_hi, &zero);
    let off_lo = o.sel(&mid, &pio4_lo, &zero);
    let a = o.add(&a, &off_lo);
    let a = o.add(&off_hi, &a);
    // atan(t) = π/2 − atan(1/t) for t > 1.
    let pio2_hi = o.f(PIO2_HI);
    let pio2_lo = o.f(PIO2_LO);
    let d = o.sub(&pio2_lo, &a);
    let d = o.add(&pio2_hi, &d);
    o.sel(&big, &d, &a)
}

pub fn atan<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let a = atan_positive(o, &ax);
    let v = with_sign_of(o, x, &a);
    let zero = o.f(0.0);
    let is_zero = o.eq(x, &zero);
    let v = o.sel(&is_zero, x, &v);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

pub fn atan2<O: Ops>(o: &mut O, y: &O::F, x: &O::F) -> O::F {
    let ay = o.abs(y);
    let ax = o.abs(x);
    // atan(|y|/|x|) without overflow: swap so the ratio is ≤ 1.
    let swap = o.lt(&ax, &ay);
    let num = o.sel(&swap, &ax, &ay);
    let den = o.sel(&swap, &ay, &ax);
    let r = o.div(&num, &den);
    let zero = o.f(0.0);
    let r = {
        let nan = o.is_nan(&r);
        o.sel(&nan, &zero, &r)
    };
    let a = atan_positive(o, &r);
    let pio2_hi = o.f(PIO2_HI);
    let pio2_lo = o.f(PIO2_LO);
    let d = o.sub(&pio2_lo, &a);
    let d = o.add(&pio2_hi, &d);
    let a = o.sel(&swap, &d, &a);
    // Both infinite: π/4 (or 3π/4 below).
    let inf = o.f(f64::INFINITY);
    let xi = o.eq(&ax, &inf);
    let yi = o.eq(&ay, &inf);
    let both = o.and(&xi, &yi);
    let pio4 = o.f(std::f64::consts::FRAC_PI_4);
    let a = o.sel(&both, &pio4, &a);
    // x < 0 (or −0): π − a.
    let xbits = o.float_bits(x);
    let izero = o.i(0);
    let xneg = o.ilt(&xbits, &izero);
    let pi_hi = o.f(2.0 * PIO2_HI);
    let pi_lo = o.f(2.0 * PIO2_LO);
    let m = o.sub(&pi_lo, &a);
    let m = o.add(&pi_hi, &m);
    let a = o.sel(&xneg, &m, &a);
    // Sign of y (also for ±0).
    let ybits = o.float_bits(y);
    let yneg = o.ilt(&ybits, &izero);
    let na = o.neg(&a);
    let v = o.sel(&yneg, &na, &a);
    let n1 = o.is_nan(x);
    let n2 = o.is_nan(y);
    let nan = o.or(&n1, &n2);
    let q = o.f(f64::NAN);
    o.sel(&nan, &q, &v)
}

pub fn asin<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    // asin|x| = atan(|x|/c) or π/2 − atan(c/|x|) with c = √(1 − x²), the ratio as a
    // double-double and its low part fed through atan' = 1/(1 + t²).
    let one = o.f(1.0);
    let ax = o.abs(x);
    let xx = o.mul(&ax, &ax);
    let nxx = o.neg(&xx);
    let xx_lo = o.fma(&ax, &ax, &nxx);
    let (p, p_lo) = fast_two_sum(o, &one, &nxx);
    let p_lo = o.sub(&p_lo, &xx_lo);
    let c = o.sqrt(&p);
    let nc = o.neg(&c);
    let cr = o.fma(&nc, &c, &p);
    let cr = o.add(&cr, &p_lo);
    let c2 = o.add(&c, &c);
    let c_lo = o.div(&cr, &c2);
    let zero = o.f(0.0);
    let c_pos = o_is_pos(o, &c);
    let c_lo = o.sel(&c_pos, &c_lo, &zero);
    let small = o.lt(&ax, &c);
    let num = o.sel(&small, &ax, &c);
    let num_lo = o.sel(&small, &zero, &c_lo);
    let den = o.sel(&small, &c, &ax);
    let den_lo = o.sel(&small, &c_lo, &zero);
    let t = o.div(&num, &den);
    let nt = o.neg(&t);
    let rem = o.fma(&nt, &den, &num);
    let rem = o.fma(&nt, &den_lo, &rem);
    let rem = o.add(&rem, &num_lo);
    let t_lo = o.div(&rem, &den);
    let a = atan_positive(o, &t);
    let d = o.fma(&t, &t, &one);
    let corr = o.div(&t_lo, &d);
    let corr = denan(o, &corr);
    let a = o.add(&a, &corr);
    let pio2_hi = o.f(PIO2_HI);
    let pio2_lo = o.f(PIO2_LO);
    let m = o.sub(&pio2_lo, &a);
    let m = o.add(&pio2_hi, &m);
    let a = o.sel(&small, &a, &m);
    let v = with_sign_of(o, x, &a);
    let is_zero = o.eq(x, &zero);
    let v = o.sel(&is_zero, x, &v);
    let out = o.lt(&one, &ax);
    let nan = o.f(f64::NAN);
    o.sel(&out, &nan, &v)
}

/// `0 < a`.
fn o_is_pos<O: Ops>(o: &mut O, a: &O::F) -> O::B {
    let zero = o.f(0.0);
    o.lt(&zero, a)
}

pub fn acos<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    let one = o.f(1.0);
    let a = o.sub(&one, x);
    let b = o.add(&one, x);
    let p = o.mul(&a, &b);
    let c = o.sqrt(&p);
    let v = atan2(o, &c, x);
    let ax = o.abs(x);
    let out = o.lt(&one, &ax);
    let nan = o.f(f64::NAN);
    o.sel(&out, &nan, &v)
}

pub fn cbrt<O: Ops>(o: &mut O, x: &O::F) -> O::F {
    // exp(log|x|/3), then two Newton steps.
    let ax = o.abs(x);
    let l = log(o, &ax);
    let third = o.f(1.0 / 3.0);
    let lt = o.mul(&l, &third);
    let mut y = exp(o, &lt);
    for _ in 0..2 {
        let y2 = o.mul(&y, &y);
        let q = o.div(&ax, &y2);
        let d = o.sub(&q, &y);
        let d = o.mul(&d, &third);
        y = o.add(&y, &d);
    }
    let v = with_sign_of(o, x, &y);
    let zero = o.f(0.0);
    let inf = o.f(f64::INFINITY);
    let is_zero = o.eq(x, &zero);
    let is_inf = o.eq(&ax, &inf);
    let pass = o.or(&is_zero, &is_inf);
    let v = o.sel(&pass, x, &v);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

pub fn pow<O: Ops>(o: &mut O, x: &O::F, y: &O::F) -> O::F {
    let zero = o.f(0.0);
    let one = o.f(1.0);
    let half = o.f(0.5);
    let inf = o.f(f64::INFINITY);
    let nan = o.f(f64::NAN);
    let ax = o.abs(x);
    let ay = o.abs(y);
    // y an integer, and odd?
    let yr = o.rint(y);
    let y_int = o.eq(&yr, y);
    let yh = o.mul(y, &half);
    let yhr = o.rint(&yh);
    let y_even = o.eq(&yhr, &yh);
    let not_even = o.not(&y_even);
    let y_odd = o.and(&y_int, &not_even);
    // |x|^y
    // log|x| as a double-double, times y exactly (TwoProd), then exp of the double-double.
    let axi = log_input(o, &ax);
    let (l, l_lo) = log_dd(o, &axi);
    let p = o.mul(y, &l);
    let np = o.neg(&p);
    let p_lo = o.fma(y, &l, &np);
    let p_lo = o.fma(y, &l_lo, &p_lo);
    let mag = exp_dd(o, &p, &p_lo);
    // Exact special values of the magnitude.
    let ax_zero = o.eq(&ax, &zero);
    let ax_inf = o.eq(&ax, &inf);
    let y_neg = o.lt(y, &zero);
    let zero_or_inf = o.or(&ax_zero, &ax_inf);
    let flip = o.and(&ax_zero, &y_neg);
    let inf_pos = {
        let ny = o.not(&y_neg);
        o.and(&ax_inf, &ny)
    };
    let to_inf = o.or(&flip, &inf_pos);
    let edge = o.sel(&to_inf, &inf, &zero);
    let mag = o.sel(&zero_or_inf, &edge, &mag);
    // |x| = 1 with y = ±∞ gives 1; |y| = ∞ otherwise: 0 or ∞.
    let y_inf = o.eq(&ay, &inf);
    let ax_gt1 = o.lt(&one, &ax);
    let ax_lt1 = o.lt(&ax, &one);
    let grows = {
        let a = o.and(&ax_gt1, &y_neg);
        let ny = o.not(&y_neg);
        let b = o.and(&ax_lt1, &ny);
        o.or(&a, &b)
    };
    let yinf_v = o.sel(&grows, &zero, &inf);
    let ax_one = o.eq(&ax, &one);
    let yinf_v = o.sel(&ax_one, &one, &yinf_v);
    let mag = o.sel(&y_inf, &yinf_v, &mag);
    // Sign: negative x with odd integer y.
    let xbits = o.float_bits(x);
    let izero = o.i(0);
    let x_neg = o.ilt(&xbits, &izero);
    let negate = o.and(&x_neg, &y_odd);
    let nmag = o.neg(&mag);
    let v = o.sel(&negate, &nmag, &mag);
    // Negative finite x with non-integer y: NaN.
    let not_int = o.not(&y_int);
    let not_inf_y = o.not(&y_inf);
    let bad = o.and(&x_neg, &not_int);
    let bad = o.and(&bad, &not_inf_y);
    let x_nz = o.not(&ax_zero);
    let x_fin = o.not(&ax_inf);
    let bad = o.and(&bad, &x_nz);
    let bad = o.and(&bad, &x_fin);
    let v = o.sel(&bad, &nan, &v);
    // NaN in, NaN out, except pow(x, 0) = 1 and pow(1, y) = 1.
    let xn = o.is_nan(x);
    let yn = o.is_nan(y);
    let any_nan = o.or(&xn, &yn);
    let v = o.sel(&any_nan, &nan, &v);
    let y_zero = o.eq(y, &zero);
    let x_one = o.eq(x, &one);
    let is_one = o.or(&y_zero, &x_one);
    o.sel(&is_one, &one, &v)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests32;
