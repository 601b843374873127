//! Accuracy of the math algorithms, evaluated on the CPU exactly as the emitted code computes
//! them, against Rust's `std` (the platform libm, itself within 1 ulp).

use super::cpu::eval;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// Log-uniform magnitude in `[2^lo, 2^hi)` with a random sign.
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let m = self.uniform(lo, hi).exp2();
        if self.next() & 1 == 1 { -m } else { m }
    }
}

/// Error of `got` in ulps of `want` (f64).
fn ulp64(got: f64, want: f64) -> f64 {
    if got == want || (got.is_nan() && want.is_nan()) {
        return 0.0;
    }
    if !got.is_finite() || !want.is_finite() {
        return f64::INFINITY;
    }
    let ulp = if want == 0.0 {
        f64::from_bits(1)
    } else {
        let e = (want.abs().log2().floor() as i32 - 52).max(-1074);
        if e >= -1022 {
            f64::from_bits(((e + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (e + 1074))
        }
    };
    (got - want).abs() / ulp
}

fn ulp32(got: f32, want: f32) -> f64 {
    if got == want || (got.is_nan() && want.is_nan()) {
        return 0.0;
    }
    if !got.is_finite() || !want.is_finite() {
        return f64::INFINITY;
    }
    let ulp = if want == 0.0 {
        2f64.powi(-149)
    } else {
        let e = (want.abs() as f64).log2().floor() as i32;
        2f64.powi((e - 23).max(-149))
    };
    (got as f64 - want as f64).abs() / ulp
}

/// Max ulp error over `n` samples from `gen`, in f64 and (rounded) f32.
fn measure(
    name: &str,
    reference: fn(f64) -> f64,
    n: usize,
    mut generate: impl FnMut(&mut Rng) -> f64,
) -> (f64, f64) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ name.len() as u64);
    let (mut worst64, mut worst32) = (0f64, 0f64);
    for _ in 0..n {
        let x = generate(&mut rng);
        let got = eval(name, &[x]);
        let want = reference(x);
        let e = ulp64(got, want);
        assert!(e.is_finite(), "{name}({x:e}) = {got:e}, expected {want:e}");
        worst64 = worst64.max(e);
        // f32: the input rounded to f32, the f64 algorithm, one rounding.
        let xf = x as f32 as f64;
        let got32 = eval(name, &[xf]) as f32;
        let want32 = reference(xf) as f32;
        worst32 = worst32.max(ulp32(got32, want32));
    }
    (worst64, worst32)
}

fn check(name: &str, reference: fn(f64) -> f64, max64: f64, generate: impl FnMut(&mut Rng) -> f64) {
    let (e64, e32) = measure(name, reference, 20_000, generate);
    eprintln!("{name}: max error {e64:.3} ulp (f64), {e32:.3} ulp (f32)");
    assert!(e64 <= max64, "{name}: {e64} ulp in f64 (allowed {max64})");
    assert!(e32 <= 1.0, "{name}: {e32} ulp in f32");
}

#[test]
fn exponentials() {
    check("exp", f64::exp, 2.0, |r| r.uniform(-745.0, 709.0));
    check("exp", f64::exp, 2.0, |r| r.log_uniform(-60.0, 0.0));
    check("exp2", f64::exp2, 2.0, |r| r.uniform(-1074.0, 1023.0));
    check("exp2", f64::exp2, 2.0, |r| r.log_uniform(-60.0, 0.0));
    check("expm1", f64::exp_m1, 2.0, |r| r.uniform(-50.0, 709.0));
    check("expm1", f64::exp_m1, 2.0, |r| r.log_uniform(-60.0, 1.0));
}

#[test]
fn logarithms() {
    check("log", f64::ln, 2.0, |r| {
        r.log_uniform(-1074.0, 1024.0).abs()
    });
    check("log", f64::ln, 2.0, |r| r.uniform(0.5, 2.0));
    check("log2", f64::log2, 2.0, |r| {
        r.log_uniform(-1074.0, 1024.0).abs()
    });
    check("log2", f64::log2, 2.0, |r| r.uniform(0.5, 2.0));
    check("log10", f64::log10, 2.0, |r| {
        r.log_uniform(-1074.0, 1024.0).abs()
    });
    check("log10", f64::log10, 2.0, |r| r.uniform(0.5, 2.0));
    check("log1p", f64::ln_1p, 2.0, |r| {
        r.log_uniform(-60.0, 1000.0).abs()
    });
    check("log1p", f64::ln_1p, 2.0, |r| r.uniform(-0.9, 1.0));
}

#[test]
fn trigonometry() {
    for name in ["sin", "cos", "tan"] {
        let reference = match name {
            "sin" => f64::sin,
            "cos" => f64::cos,
            _ => f64::tan,
        };
        check(
            name,
            reference,
            if name == "tan" { 1.0 } else { 2.0 },
            |r| r.uniform(-10.0, 10.0),
        );
        check(
            name,
            reference,
            if name == "tan" { 1.0 } else { 2.0 },
            |r| r.log_uniform(-30.0, 20.0),
        );
        check(
            name,
            reference,
            if name == "tan" { 1.0 } else { 2.0 },
            |r| r.log_uniform(20.0, 1024.0),
        );
    }
    check("atan", f64::atan, 2.0, |r| r.log_uniform(-30.0, 30.0));
    check("asin", f64::asin, 2.0, |r| r.uniform(-1.0, 1.0));
    check("asin", f64::asin, 2.0, |r| r.log_uniform(-40.0, 0.0));
    check("acos", f64::acos, 2.0, |r| r.uniform(-1.0, 1.0));
}

#[test]
fn hyperbolic_and_erf() {
    // glibc's tanh is itself up to 2 ulp off on (0.17, 1) (checked with mpmath).
    check("tanh", f64::tanh, 2.0, |r| r.uniform(-25.0, 25.0));
    check("tanh", f64::tanh, 2.0, |r| r.log_uniform(-40.0, 0.0));
    check("sinh", f64::sinh, 2.0, |r| r.uniform(-710.0, 710.0));
    check("sinh", f64::sinh, 2.0, |r| r.log_uniform(-40.0, 0.0));
    check("sinh", f64::sinh, 2.0, |r| r.uniform(-2.0, 2.0));
    check("cosh", f64::cosh, 2.0, |r| r.uniform(-710.0, 710.0));
    check("erf", erf_reference, 2.0, |r| r.uniform(-7.0, 7.0));
    check("erf", erf_reference, 2.0, |r| r.log_uniform(-40.0, 0.0));
    check("cbrt", f64::cbrt, 2.0, |r| r.log_uniform(-1000.0, 1000.0));
}

#[test]
fn pow_and_atan2() {
    let mut rng = Rng(7);
    let (mut worst64, mut worst32, mut worst_atan2) = (0f64, 0f64, 0f64);
    for _ in 0..20_000 {
        let x = rng.uniform(0.0, 100.0);
        let y = rng.uniform(-20.0, 20.0);
        worst64 = worst64.max(ulp64(eval("powf", &[x, y]), x.powf(y)));
        let (xf, yf) = (x as f32, y as f32);
        let got = eval("powf", &[xf as f64, yf as f64]) as f32;
        worst32 = worst32.max(ulp32(got, (xf as f64).powf(yf as f64) as f32));
        let a = rng.uniform(-10.0, 10.0);
        let b = rng.uniform(-10.0, 10.0);
        worst_atan2 = worst_atan2.max(ulp64(eval("atan2", &[a, b]), a.atan2(b)));
    }
    eprintln!(
        "powf: {worst64:.3} ulp (f64), {worst32:.3} ulp (f32); atan2: {worst_atan2:.3} ulp (f64)"
    );
    assert!(worst64 <= 1.0 && worst32 <= 1.0, "{worst64} / {worst32}");
    assert!(worst_atan2 <= 2.0, "atan2: {worst_atan2}");
    // Large |y·ln x| (up to 700, near over/underflow), for x across the range and near 1.
    let mut worst = 0f64;
    for i in 0..20_000 {
        let x = if i % 2 == 0 {
            rng.log_uniform(-1020.0, 1020.0).abs()
        } else {
            rng.uniform(0.5, 2.0)
        };
        let y = rng.uniform(-700.0, 700.0) / x.ln();
        let want = x.powf(y);
        if want.is_finite() && want >= f64::MIN_POSITIVE && y.is_finite() {
            let e = ulp64(eval("powf", &[x, y]), want);
            assert!(e <= 2.0, "pow({x:e}, {y:e}): {e} ulp");
            worst = worst.max(e);
        }
    }
    eprintln!("powf, |y·ln x| ≤ 700: {worst:.3} ulp (f64)");
    // Special cases follow C99.
    for (x, y, want) in [
        (2.0, 0.0, 1.0),
        (f64::NAN, 0.0, 1.0),
        (1.0, f64::NAN, 1.0),
        (0.0, -1.0, f64::INFINITY),
        (-0.0, -3.0, f64::NEG_INFINITY),
        (f64::INFINITY, -1.0, 0.0),
        (0.5, f64::INFINITY, 0.0),
        (-1.0, f64::INFINITY, 1.0),
    ] {
        assert_eq!(eval("powf", &[x, y]), want, "pow({x}, {y})");
    }
    assert!(eval("powf", &[-2.0, 0.5]).is_nan());
    assert!(ulp64(eval("powf", &[-2.0, 3.0]), -8.0) <= 1.0);
    assert!(ulp64(eval("powf", &[-2.0, 2.0]), 4.0) <= 1.0);
}

#[test]
fn special_values() {
    for name in super::FUNCTIONS.iter().filter(|n| super::arity(n) == 1) {
        assert!(eval(name, &[f64::NAN]).is_nan(), "{name}(NaN)");
    }
    assert_eq!(eval("exp", &[f64::INFINITY]), f64::INFINITY);
    assert_eq!(eval("exp", &[f64::NEG_INFINITY]), 0.0);
    assert_eq!(eval("log", &[0.0]), f64::NEG_INFINITY);
    assert!(eval("log", &[-1.0]).is_nan());
    assert!(eval("sin", &[f64::INFINITY]).is_nan());
    assert_eq!(eval("sin", &[-0.0]).to_bits(), (-0.0f64).to_bits());
    assert_eq!(eval("tanh", &[f64::INFINITY]), 1.0);
    assert_eq!(eval("erf", &[f64::NEG_INFINITY]), -1.0);
    assert_eq!(eval("log1p", &[-1.0]), f64::NEG_INFINITY);
    assert_eq!(eval("asin", &[1.0]), std::f64::consts::FRAC_PI_2);
    assert_eq!(eval("asin", &[-1.0]), -std::f64::consts::FRAC_PI_2);
    assert_eq!(eval("asin", &[-0.0]).to_bits(), (-0.0f64).to_bits());
    assert!(eval("asin", &[1.5]).is_nan());
    assert_eq!(eval("tan", &[-0.0]).to_bits(), (-0.0f64).to_bits());
    assert_eq!(eval("sinh", &[f64::NEG_INFINITY]), f64::NEG_INFINITY);
    assert_eq!(eval("powf", &[2.0, 1024.0]), f64::INFINITY);
    assert_eq!(eval("powf", &[2.0, -1075.0]), 0.0);
    assert_eq!(eval("powf", &[2.0, -1074.0]), f64::from_bits(1));
    assert_eq!(eval("powf", &[10.0, 308.0]), 1e308);
}

/// erf from the libm `erf` of the C library (std has none).
fn erf_reference(x: f64) -> f64 {
    unsafe extern "C" {
        fn erf(x: f64) -> f64;
    }
    // SAFETY: the C library's `erf` is defined for every double and touches no memory.
    unsafe { erf(x) }
}
