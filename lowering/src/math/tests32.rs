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
    let e = if a == 0.0 { -149 } else { (a.log2().floor() as i32 - 23).max(-149) };
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
        "tanh" => f64::tanh,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        _ => unreachable!("{name}"),
    }
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

/// The documented error bound of `ex2.approx`/`rcp.approx` (relative), both signs, and exact.
const APPROX: [f64; 3] = [0.0, 1.5e-7, -1.5e-7];

/// libdevice's documented maximum errors (CUDA Math API), in ulps.
fn bound(name: &str) -> f64 {
    match name {
        "exp" | "exp2" | "erf" | "tanh" | "sin" | "cos" | "log10" => 2.0,
        "log" | "log2" | "log1p" => 1.0,
        "tan" => 4.0,
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
        "tanh" => (-10.0, 10.0),
        _ => (-1e4, 1e4),
    };
    move |r: &mut Rng| match r.next() % 4 {
        0 => r.bits(),
        1 => r.uniform(-1.0, 1.0) * 2f32.powi(-((r.next() % 40) as i32)),
        _ => r.uniform(lo, hi),
    }
}

fn check(name: &str, n: usize) {
    let (e, x) = sweep(name, n, &APPROX, generator(name));
    eprintln!("{name}: max error {e:.3} ulp at {x:e} ({n} arguments)");
    assert!(e <= bound(name), "{name}({x:e}): {e} ulp (bound {})", bound(name));
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

/// Millions of arguments per function (run in release mode:
/// `cargo test --release -p tritium-lowering f32_sweep -- --ignored --nocapture`).
#[test]
#[ignore]
fn f32_sweep() {
    let n: usize = std::env::var("SWEEP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    for name in m32::FUNCTIONS.iter().filter(|f| **f != "powf") {
        let (e, x) = sweep(name, n, &APPROX, generator(name));
        eprintln!("{name}: max error {e:.3} ulp at {x:e} ({n} arguments)");
    }
}
