//! Accuracy of the f32 algorithms ([`super::f32`]), evaluated on the CPU exactly as the emitted
//! code computes them (see [`super::cpu::CpuOps32`]), against f64 references (Rust's `std`, the
//! platform libm, within 1 ulp of f64, i.e. 2^-29 ulp of f32). Errors are in f32 ulps of the
//! exact value, fractional (0.5 is a correctly rounded result at worst).

use super::cpu::CpuOps32;
use super::f32 as m32;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f32 {
        (lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)) as f32
    }
    /// Any f32 bit pattern.
    fn bits(&mut self) -> f32 {
        f32::from_bits((self.next() >> 32) as u32)
    }
}

/// Error of `got` in f32 ulps of the exact value `want` (ulps at `want`'s binade, subnormal
/// spacing below the normal range); infinite when one is NaN or infinite and the other not.
pub fn ulp_err(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if want.is_infinite() || got.is_infinite() {
        // Beyond the f32 range rounds to inf.
        let w = want as f32;
        return if w == got { 0.0 } else { f64::INFINITY };
    }
    let a = want.abs();
    let e = if a == 0.0 {
        -149
    } else {
        (a.log2().floor() as i32 - 23).max(-149)
    };
    // Values that round to f32::MAX's binade or above.
    (got as f64 - want).abs() / 2f64.powi(e)
}

fn reference(name: &str) -> fn(f64) -> f64 {
    match name {
        "exp" => f64::exp,
        "exp2" => f64::exp2,
        "log" => f64::ln,
        "log2" => f64::log2,
        "log10" => f64::log10,
        "log1p" => f64::ln_1p,
        "erf" => erf_reference,
        "erfc" => erfc_reference,
        "tanh" => f64::tanh,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        "expm1" => f64::exp_m1,
        "sinh" => f64::sinh,
        "cosh" => f64::cosh,
        "atan" => f64::atan,
        "asin" => f64::asin,
        "acos" => f64::acos,
        "cbrt" => f64::cbrt,
        _ => unreachable!("{name}"),
    }
}

/// erfc from the C library.
fn erfc_reference(x: f64) -> f64 {
    unsafe extern "C" {
        fn erfc(x: f64) -> f64;
    }
    // SAFETY: the C library's `erfc` is defined for every double and touches no memory.
    unsafe { erfc(x) }
}

/// erf from the C library (std has none).
fn erf_reference(x: f64) -> f64 {
    unsafe extern "C" {
        fn erf(x: f64) -> f64;
    }
    // SAFETY: the C library's `erf` is defined for every double and touches no memory.
    unsafe { erf(x) }
}

/// Max error of `name` over `n` arguments from `generate`, with the hardware approximations
/// perturbed by each of `approx` in turn: `(error, argument)`.
fn sweep(
    name: &str,
    n: usize,
    approx: &[f64],
    mut generate: impl FnMut(&mut Rng) -> f32,
) -> (f64, f32) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (name.len() as u64 * 7919));
    let want = reference(name);
    let mut worst = (0f64, 0f32);
    let mut ops: Vec<CpuOps32> = approx
        .iter()
        .map(|&e| CpuOps32 { approx_error: e })
        .collect();
    for _ in 0..n {
        let x = generate(&mut rng);
        let w = want(x as f64);
        for o in ops.iter_mut() {
            let got = m32::eval(o, name, &[x]);
            let e = ulp_err(got, w);
            if e > worst.0 || e.is_nan() {
                worst = (e, x);
            }
        }
    }
    worst
}

/// The error of `ex2.approx`/`rcp.approx` (relative; 2 ulp at the bottom of a binade, more than
/// the documented 2^-22.5), both signs, and exact.
const APPROX: [f64; 3] = [0.0, 2.4e-7, -2.4e-7];

/// libdevice's documented maximum errors (CUDA Math API), in ulps.
fn bound(name: &str) -> f64 {
    match name {
        "exp" | "exp2" | "erf" | "tanh" | "sin" | "cos" | "log10" => 2.0,
        "log" | "log2" | "log1p" => 1.0,
        "tan" | "erfc" => 4.0,
        "expm1" | "cbrt" => 1.0,
        "sinh" | "atan2" => 3.0,
        "cosh" | "atan" | "asin" | "acos" => 2.0,
        _ => 4.0,
    }
}

/// Arguments that exercise each function: its interesting range plus any bit pattern.
fn generator(name: &str) -> impl FnMut(&mut Rng) -> f32 {
    let (lo, hi): (f64, f64) = match name {
        "exp" => (-104.0, 89.0),
        "exp2" => (-151.0, 129.0),
        "log" | "log2" | "log10" => (0.5, 2.0),
        "log1p" => (-1.0, 2.0),
        "erf" => (-4.5, 4.5),
        "erfc" => (-4.0, 10.5),
        "tanh" => (-10.0, 10.0),
        "expm1" => (-20.0, 89.0),
        "sinh" | "cosh" => (-90.0, 90.0),
        "atan" => (-20.0, 20.0),
        "asin" | "acos" => (-1.0, 1.0),
        "cbrt" => (-1e3, 1e3),
        _ => (-1e4, 1e4),
    };
    move |r: &mut Rng| match r.next() % 4 {
        0 => r.bits(),
        1 => r.uniform(-1.0, 1.0) * 2f32.powi(-((r.next() % 40) as i32)),
        _ => r.uniform(lo, hi),
    }
}

/// The CPU model's bound: libdevice's, except for `exp` and `exp2`, whose one ex2.approx the
/// model takes 2^-24 off just below 1 where the H200 is exact enough to keep 1.99 ulp over 32M
/// arguments (the GPU patterns check 2 ulp there): the model's extra rounding is worth 0.1 ulp.
fn model_bound(name: &str) -> f64 {
    bound(name)
        + if matches!(name, "exp" | "exp2") {
            0.1
        } else {
            0.0
        }
}

fn check(name: &str, n: usize) {
    let (e, x) = sweep(name, n, &APPROX, generator(name));
    eprintln!("{name}: max error {e:.3} ulp at {x:e} ({n} arguments)");
    assert!(
        e <= model_bound(name),
        "{name}({x:e}): {e} ulp (bound {})",
        model_bound(name)
    );
}

#[test]
fn f32_exponentials_and_logarithms() {
    for name in ["exp", "exp2", "log", "log2", "log10", "log1p"] {
        check(name, 40_000);
    }
}

#[test]
fn f32_erf_tanh_trig() {
    for name in ["erf", "tanh", "sin", "cos", "tan"] {
        check(name, 40_000);
    }
}

#[test]
fn f32_hyperbolic_inverse_trig_cbrt() {
    for name in [
        "expm1", "sinh", "cosh", "atan", "asin", "acos", "cbrt", "erfc",
    ] {
        check(name, 40_000);
    }
}

#[test]
fn f32_atan2() {
    let mut rng = Rng(11);
    let mut worst = (0f64, 0f32, 0f32);
    let mut ops: Vec<CpuOps32> = APPROX
        .iter()
        .map(|&e| CpuOps32 { approx_error: e })
        .collect();
    for i in 0..40_000 {
        let (y, x) = if i % 2 == 0 {
            (rng.uniform(-10.0, 10.0), rng.uniform(-10.0, 10.0))
        } else {
            (rng.bits(), rng.bits())
        };
        let want = (y as f64).atan2(x as f64);
        for o in ops.iter_mut() {
            let e = ulp_err(m32::atan2(o, &y, &x), want);
            if e > worst.0 {
                worst = (e, y, x);
            }
        }
    }
    eprintln!(
        "atan2: max error {:.3} ulp at ({:e}, {:e})",
        worst.0, worst.1, worst.2
    );
    assert!(
        worst.0 <= 3.0,
        "atan2({:e}, {:e}): {} ulp",
        worst.1,
        worst.2,
        worst.0
    );
    let a = |y: f32, x: f32| super::cpu::eval32("atan2", &[y, x]);
    let pi = std::f32::consts::PI;
    for (y, x, want) in [
        (0.0, 1.0, 0.0),
        (-0.0, 1.0, -0.0),
        (0.0, -1.0, pi),
        (-0.0, -0.0, -pi),
        (0.0, 0.0, 0.0),
        (1.0, 0.0, pi / 2.0),
        (f32::INFINITY, f32::INFINITY, pi / 4.0),
        (-f32::INFINITY, -f32::INFINITY, -3.0 * pi / 4.0),
        (1.0, f32::INFINITY, 0.0),
        (1.0, f32::NEG_INFINITY, pi),
    ] {
        let got = a(y, x);
        assert!(
            ulp_err(got, want as f64) <= 1.0 && got.signum() == want.signum(),
            "atan2({y}, {x}) = {got}"
        );
    }
    assert!(a(f32::NAN, 1.0).is_nan() && a(1.0, f32::NAN).is_nan());
}

/// Millions of arguments per function (run in release mode:
/// `cargo test --release -p tritium-lowering f32_sweep -- --ignored --nocapture`).
#[test]
#[ignore]
fn f32_sweep() {
    let n: usize = std::env::var("SWEEP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    for name in m32::FUNCTIONS.iter().filter(|f| super::arity(f) == 1) {
        let (e, x) = sweep(name, n, &APPROX, generator(name));
        eprintln!("{name}: max error {e:.3} ulp at {x:e} ({n} arguments)");
    }
}

fn pow_case(r: &mut Rng) -> (f32, f32) {
    match r.next() % 4 {
        // Any positive x, y keeping x^y mostly in range.
        0 => {
            let x = r.bits().abs();
            let l = (x as f64).log2();
            let y = if l.is_finite() && l != 0.0 {
                (r.uniform(-150.0, 128.0) as f64 / l) as f32
            } else {
                r.uniform(-10.0, 10.0)
            };
            (x, y)
        }
        // x near 1, large y.
        1 => (r.uniform(0.5, 2.0), r.uniform(-150.0, 150.0) * 5.0),
        // Negative x, integer y.
        2 => (-r.uniform(0.0, 20.0), (r.uniform(-30.0, 30.0)).round()),
        _ => (r.uniform(0.0, 100.0), r.uniform(-20.0, 20.0)),
    }
}

fn pow_sweep(n: usize) -> (f64, f32, f32) {
    let mut rng = Rng(42);
    let mut worst = (0f64, 0f32, 0f32);
    let mut ops: Vec<CpuOps32> = APPROX
        .iter()
        .map(|&e| CpuOps32 { approx_error: e })
        .collect();
    for _ in 0..n {
        let (x, y) = pow_case(&mut rng);
        let want = (x as f64).powf(y as f64);
        for o in ops.iter_mut() {
            let got = m32::pow(o, &x, &y);
            let e = ulp_err(got, want);
            if e > worst.0 || e.is_nan() {
                worst = (e, x, y);
            }
        }
    }
    worst
}

#[test]
fn f32_pow() {
    // POW_SWEEP=n samples more (the default keeps the test quick).
    let n = std::env::var("POW_SWEEP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40_000);
    let (e, x, y) = pow_sweep(n);
    eprintln!("powf: max error {e:.3} ulp at ({x:e}, {y:e})");
    // libdevice allows 4 ulp; this implementation keeps under 2 (1.43 over 2M samples).
    assert!(e <= 2.0, "pow({x:e}, {y:e}): {e} ulp");
    let p = |x: f32, y: f32| super::cpu::eval32("powf", &[x, y]);
    // C99's special cases.
    for (x, y, want) in [
        (2.0, 0.0, 1.0),
        (f32::NAN, 0.0, 1.0),
        (1.0, f32::NAN, 1.0),
        (0.0, -1.0, f32::INFINITY),
        (-0.0, -3.0, f32::NEG_INFINITY),
        (-0.0, 3.0, -0.0),
        (0.0, 2.0, 0.0),
        (f32::INFINITY, -1.0, 0.0),
        (f32::INFINITY, 0.5, f32::INFINITY),
        (f32::NEG_INFINITY, 3.0, f32::NEG_INFINITY),
        (f32::NEG_INFINITY, -3.0, -0.0),
        (0.5, f32::INFINITY, 0.0),
        (0.5, f32::NEG_INFINITY, f32::INFINITY),
        (2.0, f32::INFINITY, f32::INFINITY),
        (-1.0, f32::INFINITY, 1.0),
        (-2.0, 3.0, -8.0),
        (-2.0, 2.0, 4.0),
        (2.0, 128.0, f32::INFINITY),
        (2.0, -150.0, 0.0),
        (2.0, -149.0, f32::from_bits(1)),
        (10.0, 38.0, 1e38),
    ] {
        let got = p(x, y);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "pow({x}, {y}) = {got}, want {want}"
        );
    }
    assert!(p(-2.0, 0.5).is_nan());
    assert!(p(f32::NAN, 1.0).is_nan());
    assert!(p(2.0, f32::NAN).is_nan());
}

#[test]
fn f32_special_values() {
    let f = |name: &str, x: f32| super::cpu::eval32(name, &[x]);
    for name in m32::FUNCTIONS.iter().filter(|n| super::arity(n) == 1) {
        assert!(f(name, f32::NAN).is_nan(), "{name}(NaN)");
        if !["log", "log2", "log10", "log1p", "exp", "exp2"].contains(name) {
            // Odd functions keep the sign of zero; cos(0) = cosh(0) = 1, acos(0) = π/2.
            let want = match *name {
                "cos" | "cosh" | "erfc" => 1.0,
                "acos" => std::f32::consts::FRAC_PI_2,
                _ => -0.0,
            };
            assert_eq!(f(name, -0.0).to_bits(), f32::to_bits(want), "{name}(-0)");
        }
    }
    let eq = |name: &str, x: f32, want: f32| {
        let got = f(name, x);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{name}({x:e}) = {got:e}, want {want:e}"
        );
    };
    eq("exp", f32::INFINITY, f32::INFINITY);
    eq("exp", f32::NEG_INFINITY, 0.0);
    eq("exp", 89.0, f32::INFINITY);
    eq("exp", -104.0, 0.0);
    eq("exp", 0.0, 1.0);
    eq("exp2", f32::INFINITY, f32::INFINITY);
    eq("exp2", f32::NEG_INFINITY, 0.0);
    eq("exp2", -149.0, f32::from_bits(1));
    eq("exp2", 127.0, 2f32.powi(127));
    eq("exp2", 128.0, f32::INFINITY);
    for name in ["log", "log2", "log10"] {
        eq(name, 0.0, f32::NEG_INFINITY);
        eq(name, -0.0, f32::NEG_INFINITY);
        eq(name, -1.0, f32::NAN);
        eq(name, f32::INFINITY, f32::INFINITY);
        eq(name, 1.0, 0.0);
    }
    eq("log2", f32::from_bits(1), -149.0);
    eq("log2", 0.25, -2.0);
    eq("log10", 1000.0, 3.0);
    eq("log1p", -1.0, f32::NEG_INFINITY);
    eq("log1p", -2.0, f32::NAN);
    eq("log1p", f32::INFINITY, f32::INFINITY);
    eq("log1p", 0.0, 0.0);
    eq("erf", f32::INFINITY, 1.0);
    eq("erf", f32::NEG_INFINITY, -1.0);
    eq("tanh", f32::INFINITY, 1.0);
    eq("tanh", f32::NEG_INFINITY, -1.0);
    eq("tanh", 0.0, 0.0);
    for name in ["sin", "cos", "tan"] {
        eq(name, f32::INFINITY, f32::NAN);
        eq(name, f32::NEG_INFINITY, f32::NAN);
    }
    eq("sin", 0.0, 0.0);
    eq("cos", 0.0, 1.0);
    eq("expm1", f32::INFINITY, f32::INFINITY);
    eq("expm1", f32::NEG_INFINITY, -1.0);
    eq("expm1", 89.0, f32::INFINITY);
    eq("sinh", f32::INFINITY, f32::INFINITY);
    eq("sinh", f32::NEG_INFINITY, f32::NEG_INFINITY);
    eq("cosh", f32::NEG_INFINITY, f32::INFINITY);
    eq("cosh", 89.5, f32::INFINITY);
    eq("atan", f32::INFINITY, std::f32::consts::FRAC_PI_2);
    eq("atan", f32::NEG_INFINITY, -std::f32::consts::FRAC_PI_2);
    eq("asin", 1.0, std::f32::consts::FRAC_PI_2);
    eq("asin", -1.0, -std::f32::consts::FRAC_PI_2);
    eq("asin", 1.5, f32::NAN);
    eq("acos", 1.0, 0.0);
    eq("acos", -1.0, std::f32::consts::PI);
    eq("acos", -1.5, f32::NAN);
    eq("cbrt", f32::INFINITY, f32::INFINITY);
    eq("cbrt", f32::NEG_INFINITY, f32::NEG_INFINITY);
    eq("cbrt", -27.0, -3.0);
    eq("cbrt", 0.0, 0.0);
    eq("erfc", f32::INFINITY, 0.0);
    eq("erfc", f32::NEG_INFINITY, 2.0);
    eq("erfc", 0.0, 1.0);
    // Subnormal arguments.
    let tiny = f32::from_bits(0x0000_1234);
    for name in [
        "sin", "tan", "tanh", "erf", "log1p", "expm1", "sinh", "atan", "asin", "cbrt",
    ] {
        let e = ulp_err(f(name, tiny), reference(name)(tiny as f64));
        assert!(e <= 1.0, "{name}(subnormal): {e} ulp");
    }
    let e = ulp_err(f("log", tiny), (tiny as f64).ln());
    assert!(e <= 1.0, "log(subnormal): {e} ulp");
}

/// sin/cos/tan of huge arguments (the Payne–Hanek branch), including the f32 values closest to
/// multiples of π/2 that matter most.
#[test]
fn f32_trig_huge() {
    let mut rng = Rng(3);
    for name in ["sin", "cos", "tan"] {
        let want = reference(name);
        let mut worst = (0f64, 0f32);
        for i in 0..20_000 {
            let x = if i % 2 == 0 {
                f32::from_bits(0x4800_0000 + (rng.next() as u32 % 0x3780_0000))
            } else {
                -rng.uniform(131_000.0, 1e7)
            };
            let e = ulp_err(super::cpu::eval32(name, &[x]), want(x as f64));
            if e > worst.0 {
                worst = (e, x);
            }
        }
        eprintln!(
            "{name}, |x| ≥ 2^17: max error {:.3} ulp at {:e}",
            worst.0, worst.1
        );
        assert!(
            worst.0 <= bound(name),
            "{name}({:e}): {} ulp",
            worst.1,
            worst.0
        );
    }
    // Worst cases for the reduction: 16367173·2^72 and 12^10 ... a few known-hard arguments.
    for x in [
        1.0e38f32,
        3.0e38,
        16_367_173.0 * 2f32.powi(72),
        8_388_608.0,
        1.6e21,
    ] {
        for name in ["sin", "cos"] {
            let e = ulp_err(super::cpu::eval32(name, &[x]), reference(name)(x as f64));
            assert!(e <= 2.0, "{name}({x:e}): {e} ulp");
        }
    }
}

/// Every f32 argument (2^32) of the functions named in `FUNCS` (comma-separated; default erf,
/// exp, log, tanh), the hardware approximations correctly rounded, on all cores. Minutes per
/// function in release mode: `FUNCS=erf cargo test --release -p tritium-lowering f32_exhaustive
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn f32_exhaustive() {
    let funcs = std::env::var("FUNCS").unwrap_or_else(|_| "erf,exp,log,tanh".into());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    for name in funcs.split(',') {
        let name: &'static str = m32::FUNCTIONS
            .iter()
            .copied()
            .find(|f| *f == name)
            .expect("an f32 function");
        let want = reference(name);
        let start = std::time::Instant::now();
        let worst = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    s.spawn(move || {
                        let mut o = CpuOps32::default();
                        let mut worst = (0f64, 0f32);
                        let chunk = (1u64 << 32) / threads;
                        for b in t * chunk..(t + 1) * chunk {
                            let x = f32::from_bits(b as u32);
                            let e = ulp_err(m32::eval(&mut o, name, &[x]), want(x as f64));
                            if e > worst.0 {
                                worst = (e, x);
                            }
                        }
                        worst
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .fold((0f64, 0f32), |a, b| if b.0 > a.0 { b } else { a })
        });
        eprintln!(
            "{name}: max error {:.3} ulp at {:e} over all 2^32 arguments ({:.0} s)",
            worst.0,
            worst.1,
            start.elapsed().as_secs_f64()
        );
    }
}

/// `exp_neg(y)` (what `exp(0 − y)` lowers to) is `exp(−y)` bit for bit: the negation moves into
/// constants of products that are exact either way.
#[test]
fn f32_exp_neg_is_exp_of_the_negation() {
    let mut o = CpuOps32::default();
    let mut rng = Rng(7);
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        88.0,
        -104.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let args = specials.into_iter().chain((0..200_000).map(|_| rng.bits()));
    for y in args {
        let got = m32::eval(&mut o, "exp_neg", &[y]);
        let want = m32::eval(&mut o, "exp", &[-y]);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "exp_neg({y:e}) = {got:e}, exp(−y) = {want:e}"
        );
    }
}
