//! Independent CPU references for the benchmark kernels, a small deterministic RNG, f16
//! conversion, and element-by-element comparison.
//!
//! The references follow `shared/bench/cases_visible.py`. Reductions are done in f64 (softmax,
//! rmsnorm) so the reference is closer to the exact result than any f32 kernel; the matmul
//! reference accumulates in f32 as the kernel does.

use std::fmt;

// ------------------------------------------------------------------------------------ f16

/// IEEE half (as bits) to f32: exact for every input (the `half` crate).
pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// f32 to IEEE half bits, rounding to nearest, ties to even (overflow to infinity, underflow
/// through subnormals to signed zero; NaN stays NaN) (the `half` crate).
pub fn f32_to_f16(f: f32) -> u16 {
    half::f16::from_f32(f).to_bits()
}

// ------------------------------------------------------------------------------------ RNG

/// A seeded generator (the `rand` crate's `SmallRng`, fast even unoptimized): deterministic for a
/// given seed on a given platform.
#[derive(Debug, Clone)]
pub struct Rng {
    inner: rand::rngs::SmallRng,
}

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng {
            inner: rand::SeedableRng::seed_from_u64(seed),
        }
    }

    /// A seed from the operating system's entropy (print it to make a run reproducible).
    pub fn seed_from_time() -> u64 {
        rand::random()
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        rand::RngCore::next_u64(&mut self.inner)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        rand::Rng::r#gen(&mut self.inner)
    }

    /// Two independent standard normals (Box–Muller).
    pub fn normal_pair(&mut self) -> (f64, f64) {
        let u1 = 1.0 - self.next_f64(); // (0, 1]: ln is finite
        let u2 = self.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
        (r * c, r * s)
    }

    /// One standard normal.
    pub fn normal(&mut self) -> f64 {
        self.normal_pair().0
    }

    /// `n` standard normal f32 values (like `torch.randn`). Large requests are generated in
    /// parallel, in chunks seeded from this generator, so the result depends only on the seed.
    pub fn normal_f32(&mut self, n: usize) -> Vec<f32> {
        const CHUNK: usize = 1 << 20;
        let mut v = vec![0f32; n];
        let seeds: Vec<u64> = (0..n.div_ceil(CHUNK)).map(|_| self.next_u64()).collect();
        let fill = |chunk: &mut [f32], seed: u64| {
            let mut r = Rng::new(seed);
            for pair in chunk.chunks_mut(2) {
                let (a, b) = r.normal_pair();
                pair[0] = a as f32;
                if let Some(x) = pair.get_mut(1) {
                    *x = b as f32;
                }
            }
        };
        let threads = std::thread::available_parallelism()
            .map(|t| t.get())
            .unwrap_or(1);
        if threads == 1 || seeds.len() <= 1 {
            for (chunk, &seed) in v.chunks_mut(CHUNK).zip(&seeds) {
                fill(chunk, seed);
            }
            return v;
        }
        let work = std::sync::Mutex::new(v.chunks_mut(CHUNK).zip(seeds.iter().copied()));
        std::thread::scope(|s| {
            for _ in 0..threads.min(seeds.len()) {
                s.spawn(|| {
                    loop {
                        let next = work.lock().unwrap_or_else(|p| p.into_inner()).next();
                        let Some((chunk, seed)) = next else { break };
                        fill(chunk, seed);
                    }
                });
            }
        });
        v
    }

    /// `n` standard normal values rounded to f16, as bits.
    pub fn normal_f16(&mut self, n: usize) -> Vec<u16> {
        self.normal_f32(n).into_iter().map(f32_to_f16).collect()
    }
}

// ------------------------------------------------------------------------------ references

/// `out[i] = x[i] + y[i]` in f32 (exactly what the kernel computes).
pub fn add(x: &[f32], y: &[f32]) -> Vec<f32> {
    assert_eq!(x.len(), y.len(), "add: length mismatch");
    x.iter().zip(y).map(|(a, b)| a + b).collect()
}

/// Row-wise softmax of a row-major `rows x cols` matrix, computed in f64.
pub fn softmax_rows(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    assert_eq!(x.len(), rows * cols, "softmax_rows: shape mismatch");
    let mut out = vec![0f32; x.len()];
    for (xr, or) in x.chunks_exact(cols).zip(out.chunks_exact_mut(cols)) {
        let max = xr.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let num: Vec<f64> = xr.iter().map(|&v| (v as f64 - max).exp()).collect();
        let den: f64 = num.iter().sum();
        for (o, n) in or.iter_mut().zip(&num) {
            *o = (n / den) as f32;
        }
    }
    out
}

/// `y = x * rsqrt(mean(x^2) + eps) * w` per row of a row-major `rows x cols` matrix (the
/// benchmark uses `eps = 1e-6`), computed in f64.
pub fn rmsnorm_rows(x: &[f32], w: &[f32], rows: usize, cols: usize, eps: f32) -> Vec<f32> {
    assert_eq!(x.len(), rows * cols, "rmsnorm_rows: shape mismatch");
    assert_eq!(w.len(), cols, "rmsnorm_rows: weight length");
    let mut out = vec![0f32; x.len()];
    for (xr, or) in x.chunks_exact(cols).zip(out.chunks_exact_mut(cols)) {
        let ms = xr.iter().map(|&v| (v as f64) * (v as f64)).sum::<f64>() / cols as f64;
        let r = 1.0 / (ms + eps as f64).sqrt();
        for ((o, &v), &wv) in or.iter_mut().zip(xr).zip(w) {
            *o = (v as f64 * r * wv as f64) as f32;
        }
    }
    out
}

/// `C = A @ B` for row-major f16 `A` (`m x k`) and `B` (`k x n`), accumulated in f32, not
/// rounded: the value an f16-output kernel should round. Uses all cores.
pub fn matmul_f16_acc(a: &[u16], b: &[u16], m: usize, n: usize, k: usize) -> Vec<f32> {
    assert_eq!(a.len(), m * k, "matmul: A shape");
    assert_eq!(b.len(), k * n, "matmul: B shape");
    let af: Vec<f32> = a.iter().map(|&h| f16_to_f32(h)).collect();
    let bf: Vec<f32> = b.iter().map(|&h| f16_to_f32(h)).collect();
    let mut c = vec![0f32; m * n];
    if m == 0 || n == 0 {
        return c;
    }
    const ROWS: usize = 16; // rows per work item
    const JB: usize = 512; // column block: a B row segment stays in L1
    const KB: usize = 128; // k block: the B panel (KB x JB) stays in L2
    let threads = std::thread::available_parallelism()
        .map(|t| t.get())
        .unwrap_or(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let chunks: Vec<std::sync::Mutex<&mut [f32]>> =
        c.chunks_mut(ROWS * n).map(std::sync::Mutex::new).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.min(chunks.len()) {
            s.spawn(|| {
                loop {
                    let idx = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(chunk) = chunks.get(idx) else { break };
                    let mut guard = chunk.lock().unwrap_or_else(|p| p.into_inner());
                    let cblk: &mut [f32] = &mut guard;
                    let r0 = idx * ROWS;
                    let nrows = cblk.len() / n;
                    for jb in (0..n).step_by(JB) {
                        let je = (jb + JB).min(n);
                        for kb in (0..k).step_by(KB) {
                            let ke = (kb + KB).min(k);
                            for i in 0..nrows {
                                let arow = &af[(r0 + i) * k..(r0 + i + 1) * k];
                                let crow = &mut cblk[i * n + jb..i * n + je];
                                for kk in kb..ke {
                                    let aik = arow[kk];
                                    let brow = &bf[kk * n + jb..kk * n + je];
                                    for (cv, bv) in crow.iter_mut().zip(brow) {
                                        *cv += aik * bv;
                                    }
                                }
                            }
                        }
                    }
                }
            });
        }
    });
    drop(chunks);
    c
}

/// [`matmul_f16_acc`] rounded to f16 bits (what the benchmark kernel stores).
pub fn matmul_f16(a: &[u16], b: &[u16], m: usize, n: usize, k: usize) -> Vec<u16> {
    matmul_f16_acc(a, b, m, n, k)
        .into_iter()
        .map(f32_to_f16)
        .collect()
}

// ----------------------------------------------------------------------------- comparison

/// Per-element tolerance: `|got - want| <= atol + rtol * |want|`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub atol: f64,
    /// Relative part.
    pub rtol: f64,
}

impl Tolerance {
    /// Bit-for-bit equal values (still `0.0 == -0.0`).
    pub const EXACT: Tolerance = Tolerance {
        atol: 0.0,
        rtol: 0.0,
    };

    /// A tolerance.
    pub const fn new(atol: f64, rtol: f64) -> Tolerance {
        Tolerance { atol, rtol }
    }
}

/// One out-of-tolerance element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mismatch {
    /// Flat index.
    pub index: usize,
    /// Kernel output.
    pub got: f32,
    /// Reference.
    pub want: f32,
}

/// Result of comparing every element of an output with its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub len: usize,
    /// Elements out of tolerance (NaN or infinite outputs where the reference is finite
    /// count here too).
    pub mismatches: usize,
    /// Outputs that are NaN.
    pub nan_count: usize,
    /// Largest `|got - want|` over finite pairs.
    pub max_abs: f64,
    /// Largest `|got - want| / |want|` over finite pairs with `want != 0`.
    pub max_rel: f64,
    /// `||got - want|| / ||want||` (the harness's measure); infinite when any output is NaN.
    pub rel_norm: f64,
    /// The first few mismatches, in index order.
    pub first: Vec<Mismatch>,
    /// The tolerance used.
    pub tol: Tolerance,
}

impl Comparison {
    /// True when the lengths matched and every element was within tolerance.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares every element of `got` with `want`. A NaN anywhere in `got` fails; a length
/// mismatch counts every missing or extra element as a mismatch.
pub fn compare(got: &[f32], want: &[f32], tol: Tolerance) -> Comparison {
    let mut c = Comparison {
        len: got.len().max(want.len()),
        mismatches: got.len().abs_diff(want.len()),
        nan_count: 0,
        max_abs: 0.0,
        max_rel: 0.0,
        rel_norm: 0.0,
        first: Vec::new(),
        tol,
    };
    let (mut diff2, mut ref2) = (0f64, 0f64);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g64, w64) = (g as f64, w as f64);
        let ok = if g.is_nan() || w.is_nan() {
            c.nan_count += g.is_nan() as usize;
            false
        } else if g.is_infinite() || w.is_infinite() {
            g == w
        } else {
            let d = (g64 - w64).abs();
            c.max_abs = c.max_abs.max(d);
            if w64 != 0.0 {
                c.max_rel = c.max_rel.max(d / w64.abs());
            }
            diff2 += d * d;
            ref2 += w64 * w64;
            d <= tol.atol + tol.rtol * w64.abs()
        };
        if !ok {
            c.mismatches += 1;
            if c.first.len() < 5 {
                c.first.push(Mismatch {
                    index: i,
                    got: g,
                    want: w,
                });
            }
        }
    }
    c.rel_norm = if c.nan_count > 0 {
        f64::INFINITY
    } else {
        diff2.sqrt() / ref2.sqrt().max(1e-30)
    };
    c
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "max_abs={:.3e} max_rel={:.3e} rel_norm={:.3e}",
            self.max_abs, self.max_rel, self.rel_norm
        )?;
        if !self.passed() {
            write!(
                f,
                "; {} of {} elements outside atol={:e} rtol={:e}",
                self.mismatches, self.len, self.tol.atol, self.tol.rtol
            )?;
            if self.nan_count > 0 {
                write!(f, " ({} NaN)", self.nan_count)?;
            }
            for m in &self.first {
                write!(f, "; [{}] got {:e} want {:e}", m.index, m.got, m.want)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_known_values() {
        let cases: &[(f32, u16)] = &[
            (0.0, 0x0000),
            (-0.0, 0x8000),
            (1.0, 0x3c00),
            (-2.0, 0xc000),
            (0.5, 0x3800),
            (65504.0, 0x7bff),
            (6.103_515_6e-5, 0x0400), // smallest normal 2^-14
            (5.960_464_5e-8, 0x0001), // smallest subnormal 2^-24
            (f32::INFINITY, 0x7c00),
            (f32::NEG_INFINITY, 0xfc00),
            (3.140_625, 0x4248),
        ];
        for &(f, h) in cases {
            assert_eq!(f32_to_f16(f), h, "{f}");
            assert_eq!(f16_to_f32(h).to_bits(), f.to_bits(), "{h:#06x}");
        }
        // Rounding: ties to even, overflow, underflow.
        assert_eq!(f32_to_f16(1.0 / 3.0), 0x3555);
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // halfway to 2^16 rounds to infinity
        assert_eq!(f32_to_f16(1e6), 0x7c00);
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00); // tie, even stays
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02); // tie, odd rounds up
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000); // tie with zero: even
        assert_eq!(f32_to_f16(3.0 * 2f32.powi(-25)), 0x0002); // 1.5 units: to even (2)
        assert_eq!(f32_to_f16(2f32.powi(-25) * 1.000_001), 0x0001);
        assert_eq!(f32_to_f16(1e-10), 0x0000);
        assert_eq!(f32_to_f16(-1e-10), 0x8000);
        assert_eq!(f32_to_f16(f32::from_bits(1)), 0x0000);
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
        assert!(f16_to_f32(0x7c01).is_nan());
    }

    #[test]
    fn f16_exhaustive_roundtrip_and_midpoints() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert_eq!(h & 0x7c00, 0x7c00);
                assert!(f16_to_f32(f32_to_f16(f)).is_nan());
                continue;
            }
            assert_eq!(f32_to_f16(f), h, "roundtrip {h:#06x}");
        }
        // Between each pair of adjacent positive finite halves the midpoint goes to the even
        // one, and anything off the midpoint to the nearer one (checked on both signs).
        for h in 0u16..0x7bff {
            let (a, b) = (f16_to_f32(h), f16_to_f32(h + 1));
            let mid = (a + b) / 2.0; // exact: one bit more than f16 precision
            let even = if h % 2 == 0 { h } else { h + 1 };
            assert_eq!(f32_to_f16(mid), even, "midpoint of {h:#06x}");
            assert_eq!(f32_to_f16(-mid), even | 0x8000);
            let above = f32::from_bits(mid.to_bits() + 1);
            let below = f32::from_bits(mid.to_bits() - 1);
            assert_eq!(f32_to_f16(above), h + 1, "above midpoint of {h:#06x}");
            if below > a || h == 0 {
                assert_eq!(f32_to_f16(below), h, "below midpoint of {h:#06x}");
            }
        }
    }

    #[test]
    fn rng_is_deterministic_and_roughly_normal() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
        let v = Rng::new(7).normal_f32(200_000);
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "var {var}");
        assert!(v.iter().all(|x| x.is_finite()));
        // Chunked (parallel) generation depends only on the seed.
        let n = (1 << 20) + 5;
        let (p, q) = (Rng::new(11).normal_f32(n), Rng::new(11).normal_f32(n));
        assert!(p == q && p[n - 1] != p[n - 2]);
        let h = Rng::new(7).normal_f16(1000);
        assert!(h.iter().all(|&x| f16_to_f32(x).is_finite()));
    }

    #[test]
    fn add_reference() {
        assert_eq!(
            add(&[1.0, 2.5, -1.0], &[0.5, 0.5, 1.0]),
            vec![1.5, 3.0, 0.0]
        );
    }

    #[test]
    fn softmax_rows_sum_to_one_and_are_shift_invariant() {
        let (rows, cols) = (7, 300);
        let x = Rng::new(3).normal_f32(rows * cols);
        let y = softmax_rows(&x, rows, cols);
        for r in y.chunks_exact(cols) {
            let s: f64 = r.iter().map(|&v| v as f64).sum();
            assert!((s - 1.0).abs() < 1e-5, "row sum {s}");
            assert!(r.iter().all(|&v| v > 0.0));
        }
        let shifted: Vec<f32> = x.iter().map(|v| v + 100.0).collect();
        let c = compare(
            &softmax_rows(&shifted, rows, cols),
            &y,
            Tolerance::new(0.0, 1e-4),
        );
        assert!(c.passed(), "{c}");
        // Large inputs do not overflow (max is subtracted first).
        let big = softmax_rows(&[1000.0, 1000.0], 1, 2);
        assert_eq!(big, vec![0.5, 0.5]);
    }

    #[test]
    fn rmsnorm_reference() {
        // Row [3, 4]: mean square 12.5, rsqrt ~ 0.28284.
        let y = rmsnorm_rows(&[3.0, 4.0, 0.0, 0.0], &[1.0, 2.0], 2, 2, 1e-6);
        let r = 1.0 / (12.5f64 + 1e-6).sqrt();
        assert!((y[0] as f64 - 3.0 * r).abs() < 1e-6);
        assert!((y[1] as f64 - 8.0 * r).abs() < 1e-6);
        assert_eq!(&y[2..], &[0.0, 0.0]); // zero row stays zero thanks to eps
        // Output rows have unit RMS when w = 1.
        let (rows, cols) = (4, 512);
        let x = Rng::new(9).normal_f32(rows * cols);
        let y = rmsnorm_rows(&x, &vec![1.0; cols], rows, cols, 1e-6);
        for r in y.chunks_exact(cols) {
            let ms = r.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / cols as f64;
            assert!((ms - 1.0).abs() < 1e-4, "{ms}");
        }
    }

    #[test]
    fn matmul_reference_matches_naive() {
        let (m, n, k) = (37, 45, 131); // not multiples of any block size
        let mut rng = Rng::new(5);
        let a = rng.normal_f16(m * k);
        let b = rng.normal_f16(k * n);
        let c = matmul_f16_acc(&a, &b, m, n, k);
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k)
                    .map(|l| f16_to_f32(a[i * k + l]) as f64 * f16_to_f32(b[l * n + j]) as f64)
                    .sum();
                let got = c[i * n + j] as f64;
                assert!(
                    (got - want).abs() < 1e-4 * (1.0 + want.abs()),
                    "{i},{j}: {got} {want}"
                );
            }
        }
        let h = matmul_f16(&a, &b, m, n, k);
        assert_eq!(h[5], f32_to_f16(c[5]));
        // Identity times B is B.
        let mut eye = vec![0u16; k * k];
        for i in 0..k {
            eye[i * k + i] = 0x3c00;
        }
        assert_eq!(matmul_f16(&eye, &b, k, n, k), b);
    }

    #[test]
    fn compare_checks_every_element() {
        let want = [1.0f32, 2.0, 3.0, 4.0];
        assert!(compare(&want, &want, Tolerance::EXACT).passed());
        let c = compare(&[1.0, 2.0, 3.0, 4.0001], &want, Tolerance::EXACT);
        assert_eq!(c.mismatches, 1);
        assert_eq!(c.first[0].index, 3);
        assert!(compare(&[1.0, 2.0, 3.0, 4.0001], &want, Tolerance::new(0.0, 1e-4)).passed());
        let c = compare(&[f32::NAN, 2.0, 3.0, 4.0], &want, Tolerance::new(1.0, 1.0));
        assert!(!c.passed());
        assert_eq!(c.nan_count, 1);
        assert!(c.rel_norm.is_infinite());
        assert!(c.to_string().contains("NaN"), "{c}");
        let c = compare(&[1.0, 2.0, 3.0], &want, Tolerance::new(1.0, 1.0));
        assert!(!c.passed(), "length mismatch must fail");
        let c = compare(&[f32::INFINITY], &[1.0], Tolerance::new(1.0, 1.0));
        assert!(!c.passed());
        assert!(compare(&[f32::INFINITY], &[f32::INFINITY], Tolerance::EXACT).passed());
        // 0xFF poison bytes are NaN and fail.
        let poison = f32::from_bits(0xffff_ffff);
        assert!(!compare(&[poison], &[0.0], Tolerance::new(1e9, 1e9)).passed());
        assert!(f16_to_f32(0xffff).is_nan());
    }
}
