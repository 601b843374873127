//! f32 math computed in f32: every algorithm here works on f32 values (and i32/i64 integers for
//! the bit manipulations and Payne–Hanek), with fused multiply-adds, so an f32 function costs a
//! few dozen f32 instructions instead of an f64 evaluation.
//!
//! As in [`super`], each algorithm is written once against a small trait ([`Ops32`]):
//! [`super::emit::BuilderOps32`] builds it as LLVM-dialect ops and [`super::cpu::CpuOps32`]
//! evaluates exactly the same operations on the CPU (f32 arithmetic, `f32::mul_add` for fma),
//! which is how the unit tests measure the error of what the GPU computes. The only operations
//! the CPU cannot reproduce bit for bit are the hardware approximations used:
//! `ex2.approx.f32` (`exp2`, as libdevice), `ex2.approx.ftz.f32` (of a reduced argument in
//! `exp`, `tanh`, `erf`) and `rcp.approx.ftz.f32` (always followed by a Newton step, or
//! applied to a small correction term); the CPU evaluates them correctly rounded, and the tests
//! also run with their results perturbed by their documented error.
//!
//! The polynomials are minimax fits made for this file by `scripts/fit_f32_math.py` (Lawson's
//! algorithm on mpmath values, coefficients rounded to f32 one at a time with the others
//! refitted); the f32 bit patterns below are its output.
//!
//! - `exp`: libdevice's `expf` sequence: `x·log2e = j + f` (`j` clamped to the normal
//!   exponents by one `fma.sat`, `f` exact from two FMAs), `2^f` from `ex2.approx.ftz`, `2^j`
//!   built in the exponent field so subnormal results round once and overflow gives inf.
//! - `exp2`: the hardware's `ex2.approx.f32`, as libdevice.
//! - `log`, `log2`, `log10`, `log1p`: `x = 2^e·m` with `m ∈ [√½, √2)` by integer arithmetic on
//!   the bits, `f = m − 1` (exact), `log(1+f) = f + f²·g(f)` (degree 10 overall); the result
//!   `e·A + f·M + f²·M·g(f)` (`A = log_b 2`, `M = log_b e`): `log` by two FMAs, `log2` and
//!   `log10` as libdevice sums them (the tail, then `f·M` by one fma, then `e·A`), `log1p` with
//!   the rounding error of the leading sum carried along and the error of `u = 1 + x` added as
//!   `(x − (u − 1))/u`. `log`, `log2`, `log10` reduce a positive normal straight from its bits
//!   and take anything else (subnormals, zero, negatives, inf, NaN) through a branch.
//! - `erf`: `x + x·q(x²)` (q of degree 6 in x²) for `|x| < 1`, `1 − 2^Q(|x|)` with `Q` a degree-6
//!   fit of `log2 erfc` on `[1, 4]` beyond (the hardware `ex2.approx.ftz`), `±1` from 4 on.
//! - `tanh`: `x + x³·P(x²)` for `|x| < 0.75`, `1 − 2/(e^{2|x|} + 1)` beyond (an f32 exp core and
//!   a reciprocal with one Newton step), `±1` from 9.5 on.
//! - `sin`, `cos`, `tan`: `x = j·π/2 + r`, `|r| ≲ π/4`: `j` from a magic-number fma, `r` by a
//!   three-part Cody–Waite reduction for `|x| < 2^17`, and Payne–Hanek beyond (in a branch
//!   taken only for such arguments: the 24-bit significand times 128 bits of 2/π from a table,
//!   with 32×32→64-bit integer products, giving the quadrant and 62 fraction bits); odd
//!   polynomials for sin (degree 9) and tan (degree 15), even for cos (degree 8); `tan` in odd
//!   quadrants is `−1/tan(r)` (reciprocal and a Newton step).
//! - `expm1`: directly `x + x²P(x)` below 0.7, else from the exp reduction with `2^j − 1` exact
//!   (or `(1 + em) − 2^-j` as an exact sum) so the cancellation costs nothing.
//! - `sinh`, `cosh`: `e^a/2 ± e^{-a}/2` from the exp core (`2^{j−1}` so nothing overflows before
//!   the result does) and a refined reciprocal; `sinh` by its series below 1.
//! - `erfc`: `(1 − x) − x·q(x²)` below 0.9, `e^{−x²}·G(1/x)/x` beyond (two degree-7 fits of
//!   `G(u) = x·e^{x²}·erfc(x)`, `−x²·log2 e` as an exact pair fed to the exp2 core).
//! - `atan`, `atan2`: reduction to `t ≤ 1` (a refined reciprocal or quotient), an odd polynomial
//!   of degree 19, `π/2 −` and `π −` with split constants; C99's signed zeros and infinities.
//! - `asin`, `acos`: an odd polynomial up to 1/2, `√((1 − |x|)/2)` (correctly rounded sqrt) and
//!   the half-angle identity beyond, `π/2 − 2s` as an exact pair.
//! - `cbrt`: a guess from the bit pattern divided by 3, Newton steps, the last with an exact square.
//! - `pow`: `|x|^y = 2^(y·log2|x|)` with `log2|x|` as an f32 pair good to 2^-30 (y multiplies
//!   its error) from `log(1+f) = 2s + s³R(s²)`, `s = f/(2+f)` and `s³` as pairs, `R` the atanh
//!   series to `s^10`; `y·log2|x|` as an exact product pair, and `2^` of the pair with the exp2
//!   core and the fraction's rounding put back; C99's special cases.

use super::TWO_OVER_PI;

/// The operations the f32 algorithms are written in: f32 values (`F`), i32 values (`I`),
/// booleans (`B`) and 64-bit integers (`L`, for Payne–Hanek).
pub trait Ops32: Sized {
    type F: Clone;
    type I: Clone;
    type B: Clone;
    type L: Clone;
    fn f(&mut self, c: f32) -> Self::F;
    fn i(&mut self, c: i32) -> Self::I;
    fn add(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn sub(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn mul(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    /// `a·b` for a final scaling by a power of two that is exact wherever the result is normal:
    /// a consumer's add may absorb it into one fma (the same sum, rounded once, where it is
    /// exact; closer to the exact sum where it is not). The value is [`Ops32::mul`]'s.
    fn mul_scale(&mut self, a: &Self::F, b: &Self::F) -> Self::F {
        self.mul(a, b)
    }
    fn fma(&mut self, a: &Self::F, b: &Self::F, c: &Self::F) -> Self::F;
    fn neg(&mut self, a: &Self::F) -> Self::F;
    fn abs(&mut self, a: &Self::F) -> Self::F;
    /// Correctly rounded square root.
    fn sqrt(&mut self, a: &Self::F) -> Self::F;
    /// The magnitude of `a` with the sign of `b`.
    fn copysign(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    /// Round to the nearest integer, ties to even.
    fn rint(&mut self, a: &Self::F) -> Self::F;
    /// NaN-propagating minimum and maximum.
    fn minimum(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    fn maximum(&mut self, a: &Self::F, b: &Self::F) -> Self::F;
    /// Ordered `a < b`.
    fn lt(&mut self, a: &Self::F, b: &Self::F) -> Self::B;
    /// Ordered `a == b`.
    fn eq(&mut self, a: &Self::F, b: &Self::F) -> Self::B;
    /// Unordered `a != b` (true when either is NaN).
    fn ne(&mut self, a: &Self::F, b: &Self::F) -> Self::B;
    fn is_nan(&mut self, a: &Self::F) -> Self::B;
    fn sel(&mut self, c: &Self::B, a: &Self::F, b: &Self::F) -> Self::F;
    fn isel(&mut self, c: &Self::B, a: &Self::I, b: &Self::I) -> Self::I;
    fn bits(&mut self, a: &Self::F) -> Self::I;
    fn bits_float(&mut self, a: &Self::I) -> Self::F;
    fn i2f(&mut self, a: &Self::I) -> Self::F;
    fn iadd(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn isub(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn iand(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn ior(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn ixor(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn shl(&mut self, a: &Self::I, s: u32) -> Self::I;
    fn lshr(&mut self, a: &Self::I, s: u32) -> Self::I;
    fn ashr(&mut self, a: &Self::I, s: u32) -> Self::I;
    fn ieq(&mut self, a: &Self::I, b: &Self::I) -> Self::B;
    /// Signed `a < b`.
    fn ilt(&mut self, a: &Self::I, b: &Self::I) -> Self::B;
    /// Unsigned `a < b`.
    fn ult(&mut self, a: &Self::I, b: &Self::I) -> Self::B;
    fn and(&mut self, a: &Self::B, b: &Self::B) -> Self::B;
    fn or(&mut self, a: &Self::B, b: &Self::B) -> Self::B;
    fn not(&mut self, a: &Self::B) -> Self::B;
    /// `2^a`, the hardware approximation `ex2.approx.ftz.f32`.
    fn ex2(&mut self, a: &Self::F) -> Self::F;
    /// `2^a`, the hardware approximation `ex2.approx.f32` (subnormal results kept).
    fn ex2_full(&mut self, a: &Self::F) -> Self::F;
    /// `a·b + c` clamped to `[0, 1]`, NaN giving 0 (`fma.rn.sat.f32`).
    fn fma_sat(&mut self, a: &Self::F, b: &Self::F, c: &Self::F) -> Self::F;
    /// `log2 a`, the hardware approximation `lg2.approx.f32`: used only where it is exact
    /// (−inf at zero, NaN below it, +inf at +inf).
    fn lg2(&mut self, a: &Self::F) -> Self::F;
    /// `1/a`, the hardware approximation `rcp.approx.ftz.f32`.
    fn rcp(&mut self, a: &Self::F) -> Self::F;
    /// Word `index` of [`TWO_OVER_PI`].
    fn table(&mut self, index: &Self::I) -> Self::I;
    /// The unsigned 64-bit product of two u32 values.
    fn wmul(&mut self, a: &Self::I, b: &Self::I) -> Self::L;
    /// Zero-extends a u32.
    fn wide(&mut self, a: &Self::I) -> Self::L;
    fn lconst(&mut self, c: i64) -> Self::L;
    fn ladd(&mut self, a: &Self::L, b: &Self::L) -> Self::L;
    fn lsub(&mut self, a: &Self::L, b: &Self::L) -> Self::L;
    fn land(&mut self, a: &Self::L, b: &Self::L) -> Self::L;
    fn lor(&mut self, a: &Self::L, b: &Self::L) -> Self::L;
    fn lshl(&mut self, a: &Self::L, s: u32) -> Self::L;
    fn llshr(&mut self, a: &Self::L, s: u32) -> Self::L;
    /// `a << s`, `a >> s` (logical) with a variable `s` in `[0, 63]`.
    fn lshl_var(&mut self, a: &Self::L, s: &Self::I) -> Self::L;
    fn llshr_var(&mut self, a: &Self::L, s: &Self::I) -> Self::L;
    /// The low 32 bits.
    fn lo(&mut self, a: &Self::L) -> Self::I;
    /// Signed i64 → f32, rounded to nearest.
    fn l2f(&mut self, a: &Self::L) -> Self::F;
    /// f32 → i64 of an integral value in range.
    fn f2l(&mut self, a: &Self::F) -> Self::L;
    /// Where `c` holds (rarely), replaces `default` by what `slow` computes: a real branch in
    /// the emitted code, so `slow` costs nothing where `c` is false.
    fn cold(
        &mut self,
        c: &Self::B,
        default: (Self::F, Self::F, Self::I),
        slow: impl FnOnce(&mut Self) -> (Self::F, Self::F, Self::I),
    ) -> (Self::F, Self::F, Self::I);
}

/// The functions computed in f32 here (names as in the `math` dialect and [`super::FUNCTIONS`]).
pub const FUNCTIONS: &[&str] = &[
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "erf", "tanh", "sinh", "cosh", "sin",
    "cos", "tan", "atan", "atan2", "asin", "acos", "cbrt", "powf", "erfc",
];

/// Evaluates function `name` of [`FUNCTIONS`] on `args`.
pub fn eval<O: Ops32>(o: &mut O, name: &str, args: &[O::F]) -> O::F {
    let x = &args[0];
    match name {
        "exp" => exp(o, x),
        "exp_neg" => exp_neg(o, x),
        "exp2" => exp2(o, x),
        "log" => log(o, x),
        "log2" => log2(o, x),
        "log10" => log10(o, x),
        "log1p" => log1p(o, x),
        "erf" => erf(o, x),
        "tanh" => tanh(o, x),
        "sin" => sin(o, x),
        "cos" => cos(o, x),
        "tan" => tan(o, x),
        "powf" => pow(o, x, &args[1]),
        "expm1" => expm1(o, x),
        "sinh" => sinh(o, x),
        "cosh" => cosh(o, x),
        "atan" => atan(o, x),
        "atan2" => atan2(o, x, &args[1]),
        "asin" => asin(o, x),
        "acos" => acos(o, x),
        "cbrt" => cbrt(o, x),
        "erfc" => erfc(o, x),
        _ => unreachable!("no f32 math function {name}"),
    }
}

fn c(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// Horner's scheme over coefficients given as f32 bit patterns, lowest degree first.
fn poly<O: Ops32>(o: &mut O, x: &O::F, coef: &[u32]) -> O::F {
    let mut acc = o.f(c(coef[coef.len() - 1]));
    for &k in coef[..coef.len() - 1].iter().rev() {
        let kc = o.f(c(k));
        acc = o.fma(&acc, x, &kc);
    }
    acc
}

/// `1.5·2^23`: `fma(a, b, MAGIC)` rounds `a·b` to an integer `j` (for `|a·b| < 2^22`), held in
/// the low bits of the result's significand, and `result − MAGIC = j` exactly.
const MAGIC: f32 = 12_582_912.0;
const MAGIC_BITS: i32 = 0x4b40_0000;

const LOG2E: u32 = 0x3fb8aa3b;
const LOG2E_LO: u32 = 0x32a57060;
const LN2_HI: u32 = 0x3f317218;
const LN2_LO: u32 = 0xb102e308;
const LOG10E: u32 = 0x3ede5bd9;
const LOG10E_LO: u32 = 0xb22d91af;
const LOG10_2: u32 = 0x3e9a209b;
const LOG10_2_LO: u32 = 0xb2760860;
const PIO2_1: u32 = 0x3fc90fdb;
const PIO2_2: u32 = 0xb33bbd2e;
const PIO2_3: u32 = 0xa6f72ced;
const TWO_OVER_PI_F: u32 = 0x3f22f983;

/// `(e^r − 1 − r)/r²` on `|r| ≤ ln2/2`.
const EXP_P: [u32; 5] = [0x3efffffe, 0x3e2aaa49, 0x3d2aac56, 0x3c091cbe, 0x3ab5288d];
/// `(2^f − 1)/f` on `|f| ≤ 1/2`.
const EXP2_P: [u32; 6] = [
    0x3f317218, 0x3e75fdee, 0x3d6357be, 0x3c1d96f0, 0x3aaf8417, 0x3920b5aa,
];
/// `(log1p(f) − f)/f²` on `[√½ − 1, √2 − 1]`.
const LOG_G: [u32; 9] = [
    0xbefffffc, 0x3eaaaaa8, 0xbe80021c, 0x3e4cd214, 0xbe2a1210, 0x3e113597, 0xbe07a676, 0x3e043ed8,
    0xbd9c26e1,
];
/// `erf(x)/x − 1` in `x²` on `[0, 1]`.
const ERF_SMALL: [u32; 7] = [
    0x3e0375d4, 0xbec0939f, 0x3de71673, 0xbcdbfb8d, 0x3ba9f912, 0xba51a8af, 0x38a3b8ff,
];
/// `log2 erfc(x)` on `[1, 4]`.
const ERF_LARGE: [u32; 7] = [
    0xba012955, 0xbfd02246, 0xbf6bafa0, 0xbe185243, 0x3d010bda, 0xbb8b5880, 0x398cf82d,
];
const ERF_SPLIT: f32 = 1.0;
/// `erf(x)/x − 1` in `x²` on `[0, 0.9]` (erfc's small branch).
const ERFC_SMALL: [u32; 6] = [
    0x3e0375d3, 0xbec09377, 0x3de70e0f, 0xbcdb53e3, 0x3ba3fb7f, 0xba1eaffd,
];
const ERFC_SPLIT: f32 = 0.9;
/// `G(u) = x·e^{x²}·erfc(x)` in `u = 1/x`, on `u ∈ [1/10.1, 1/2]` and `[1/2, 1/0.9]`.
const ERFC_G_LO: [u32; 8] = [
    0x3f106f7e, 0xb9eacd7c, 0xbe8cb9da, 0xbd83a147, 0x3f4399ff, 0xbf89f3ed, 0x3f32486b, 0xbe36b547,
];
const ERFC_G_HI: [u32; 8] = [
    0x3f0f928b, 0x3d242140, 0xbef93eef, 0x3f0f998b, 0xbeb6168c, 0x3e0714cb, 0xbccffee6, 0x3adaebc9,
];
/// `(tanh(x) − x)/x³` in `x²` on `[0, 0.75]`.
const TANH_P: [u32; 6] = [
    0xbeaaaaa5, 0x3e0886ed, 0xbd5cc084, 0x3cafc841, 0xbbfb317f, 0x3ae44ba8,
];
const TANH_SPLIT: f32 = 0.75;
/// `(sin(r) − r)/r³` in `r²` on `[0, 0.7914]` (π/4 plus the reduction's overshoot).
const SIN_P: [u32; 3] = [0xbe2aaaa2, 0x3c088363, 0xb94c8e10];
/// `(cos(r) − 1)/r²` in `r²` on `[0, 0.7914]` (the constant term is −1/2).
const COS_P: [u32; 4] = [0xbf000000, 0x3d2aaaa5, 0xbab6060d, 0x37ccf0a3];
/// `(tan(r) − r)/r³` in `r²` on `[0, 0.7914]`.
const TAN_P: [u32; 7] = [
    0x3eaaaab1, 0x3e08868d, 0x3d5d7861, 0x3cadea2a, 0x3c33cb9c, 0xb8b90c56, 0x3b9251a3,
];
/// `(e^r − 1 − r)/r²` on `|r| ≤ ln2/2`, for expm1.
const EXPM1_P: [u32; 6] = [
    0x3f000000, 0x3e2aaaaa, 0x3d2aaa7c, 0x3c08896e, 0x3ab69d18, 0x394f3584,
];
/// `(e^x − 1 − x)/x²` on `[−0.7, 0.7]` (expm1 without reduction there).
const EXPM1_DIRECT: [u32; 7] = [
    0x3f000000, 0x3e2aaaae, 0x3d2aaaa4, 0x3c0885ad, 0x3ab60ede, 0x3952b2d7, 0x37d0375f,
];
const EXPM1_SPLIT: f32 = 0.7;
/// `(sinh(x) − x)/x³` in `x²` on `[0, 1]`.
const SINH_P: [u32; 4] = [0x3e2aaaab, 0x3c088870, 0x3950115e, 0x363ab60f];
/// `(atan(t) − t)/t³` in `t²` on `[0, 1]`.
const ATAN_P: [u32; 9] = [
    0xbeaaaa9f, 0x3e4cc8f2, 0xbe121043, 0x3de04627, 0xbdac048d, 0x3d6d14fb, 0xbcfebed9, 0x3c321212,
    0xbae9ac2a,
];
/// `(asin(x) − x)/x³` in `x²` on `[0, 1/2]`.
const ASIN_P: [u32; 5] = [0x3e2aaae4, 0x3d998102, 0x3d3a3ddc, 0x3cc61f28, 0x3d2cae30];
const PI_1: u32 = 0x40490fdb;
const PI_2: u32 = 0xb3bbbd2e;
/// Arguments of sin/cos/tan from this magnitude on take the Payne–Hanek branch.
const TRIG_FAST_LIMIT: f32 = 131_072.0;

/// `min(max(a, lo), hi)`, NaN kept.
fn clamp<O: Ops32>(o: &mut O, a: &O::F, lo: f32, hi: f32) -> O::F {
    let l = o.f(lo);
    let h = o.f(hi);
    let a = o.maximum(a, &l);
    o.minimum(&a, &h)
}

/// `p·2^j` for `j ∈ [-152, 130]` held as the low bits of `t = MAGIC + j`, in two exact steps.
fn scale2<O: Ops32>(o: &mut O, p: &O::F, t: &O::F) -> O::F {
    let tb = o.bits(t);
    let m = o.i(MAGIC_BITS);
    let j = o.isub(&tb, &m);
    let h = o.ashr(&j, 1);
    let rest = o.isub(&j, &h);
    let bias = o.i(127 << 23);
    let h = o.shl(&h, 23);
    let e1 = o.iadd(&h, &bias);
    let rest = o.shl(&rest, 23);
    let e2 = o.iadd(&rest, &bias);
    let s1 = o.bits_float(&e1);
    let s2 = o.bits_float(&e2);
    let v = o.mul(p, &s1);
    o.mul(&v, &s2)
}

/// `e^r` for `|r| ≤ ln2/2` (slightly beyond is fine).
fn exp_poly<O: Ops32>(o: &mut O, r: &O::F) -> O::F {
    let mut coef = vec![0x3f80_0000, 0x3f80_0000];
    coef.extend_from_slice(&EXP_P);
    poly(o, r, &coef)
}

/// `x = j·ln2 + r`: returns `(t, r)` with `t = MAGIC + j`.
fn reduce_ln2<O: Ops32>(o: &mut O, x: &O::F) -> (O::F, O::F) {
    let log2e = o.f(c(LOG2E));
    let magic = o.f(MAGIC);
    let t = o.fma(x, &log2e, &magic);
    let jf = o.sub(&t, &magic);
    let hi = o.f(-c(LN2_HI));
    let lo = o.f(-c(LN2_LO));
    let r = o.fma(&jf, &hi, x);
    let r = o.fma(&jf, &lo, &r);
    (t, r)
}

/// `e^x` as libdevice's `expf` computes it, one instruction shorter: `2^j·2^f` with
/// `j = rint(x·log2e)` kept to the normal exponents, `f = x·log2e − j` from two FMAs
/// (`|f| ≤ 1/2` unless `j` was clamped, where the result over- or underflows in the product
/// anyway), `2^f` from the hardware's `ex2.approx.ftz` and `2^j` built in the exponent field:
/// 8 instructions, within libdevice's 2 ulp.
pub fn exp<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    exp_signed(o, x, 1.0)
}

/// `e^(−y)`, [`exp`] of `−y` with the negation in the constants of the three products that
/// read the argument (exact either way): the same result without a negation instruction.
pub fn exp_neg<O: Ops32>(o: &mut O, y: &O::F) -> O::F {
    exp_signed(o, y, -1.0)
}

/// `e^(sign·x)` for `sign = ±1`.
fn exp_signed<O: Ops32>(o: &mut O, x: &O::F, sign: f32) -> O::F {
    // The clamp of j to [-126, 127] costs one instruction: `u = sat((x·log2e + 126)/253)` is
    // one `fma.sat` (NaN gives 0, and f carries the NaN), and `t = BIASED − 126 + rint(253·u)`
    // one more fma, whose rounding to an integer (the low bits of the significand) is j's.
    // u's own rounding moves 253·u by at most 2^-15, so j is rint(x·log2e) except within 2^-15
    // of a half, where |f| may reach 1/2 + 2^-15: harmless for ex2. `t − BIASED = j` exactly,
    // and t's low bits shifted into the exponent field are `2^j` itself (they hold `j + 127`).
    const BIASED: f32 = MAGIC + 127.0;
    const SPAN: f32 = 253.0;
    let lh = o.f(sign * c(LOG2E));
    let ll = o.f(sign * c(LOG2E_LO));
    let scaled_log2e = o.f(sign * c(LOG2E) / SPAN);
    let offset = o.f(126.0 / SPAN);
    let u = o.fma_sat(x, &scaled_log2e, &offset);
    let span = o.f(SPAN);
    let first = o.f(BIASED - 126.0);
    let t = o.fma(&u, &span, &first);
    let biased = o.f(BIASED);
    let nj = o.sub(&biased, &t);
    let f = o.fma(x, &lh, &nj);
    let f = o.fma(x, &ll, &f);
    let e = o.ex2(&f);
    let tb = o.bits(&t);
    let field = o.shl(&tb, 23);
    let scale = o.bits_float(&field);
    o.mul_scale(&e, &scale)
}

/// `2^f` for `|f| ≤ 1/2`.
fn exp2_poly<O: Ops32>(o: &mut O, f: &O::F) -> O::F {
    let mut coef = vec![0x3f80_0000];
    coef.extend_from_slice(&EXP2_P);
    poly(o, f, &coef)
}

/// `2^x` as libdevice's `exp2f` computes it: the hardware's `ex2.approx.f32` (subnormal
/// results kept), within libdevice's documented 2 ulp.
pub fn exp2<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    o.ex2_full(x)
}

/// `x = 2^e·(1 + f)` with `1 + f ∈ [√½, √2)` (`f` exact) for a positive finite `x`, subnormals
/// included: `(e as f32, f)`. The exponent is the high bits of `bits(x) − bits(√½)`, masked and
/// converted as `e·2^23` (exact), scaled by the same fma that takes 23 off for a subnormal.
fn log_reduce<O: Ops32>(o: &mut O, x: &O::F) -> (O::F, O::F) {
    let min_normal = o.f(f32::MIN_POSITIVE);
    let sub = o.lt(x, &min_normal);
    let big = o.f(8_388_608.0);
    let xs = o.mul(x, &big);
    let xs = o.sel(&sub, &xs, x);
    let adj = o.f(-23.0);
    let zero = o.f(0.0);
    let adj = o.sel(&sub, &adj, &zero);
    let bits = o.bits(&xs);
    reduce_normal_bits(o, &bits, Some(&adj))
}

/// `(e + adj, f)` for a positive normal float with bits `bits`: `m ∈ [√½, √2)` by integer
/// arithmetic (`f = m − 1` exact), the exponent masked and converted as `e·2^23`.
fn reduce_normal_bits<O: Ops32>(o: &mut O, bits: &O::I, adj: Option<&O::F>) -> (O::F, O::F) {
    let sqrt_half = o.i(0x3f35_04f3);
    let d = o.isub(bits, &sqrt_half);
    let exponent_mask = o.i(0xff80_0000_u32 as i32);
    let eb = o.iand(&d, &exponent_mask);
    let mb = o.isub(bits, &eb);
    let m = o.bits_float(&mb);
    let one = o.f(1.0);
    let f = o.sub(&m, &one);
    let scaled = o.i2f(&eb);
    let unscale = o.f(1.0 / 8_388_608.0);
    let e = match adj {
        Some(adj) => o.fma(&scaled, &unscale, adj),
        None => o.mul(&scaled, &unscale),
    };
    (e, f)
}

/// A logarithm's value `v` where `x` is positive and finite (subnormals included), else the
/// exact special value: −inf at ±0, NaN below 0 and for NaN, +inf at +inf — which is what
/// `lg2.approx` returns there.
fn log_domain<O: Ops32>(o: &mut O, x: &O::F, v: &O::F) -> O::F {
    let bits = o.bits(x);
    let one = o.i(1);
    let below = o.isub(&bits, &one);
    let max_finite = o.i(0x7f7f_ffff);
    let inside = o.ult(&below, &max_finite);
    let special = o.lg2(x);
    o.sel(&inside, v, &special)
}

/// `e·A + log_b(1 + f) + extra` with `A = a_hi + a_lo = log_b 2` and `M = m_hi + m_lo = log_b e`
/// (`m_hi = 1`, `m_lo = 0` for the natural log), rounded about once.
fn log_combine<O: Ops32>(
    o: &mut O,
    e: &O::F,
    f: &O::F,
    extra: Option<&O::F>,
    a: (f32, f32),
    m: (f32, f32),
) -> O::F {
    // f·M as p_hi + p_lo.
    let (p_hi, p_lo) = if m.0 == 1.0 {
        (f.clone(), None)
    } else {
        let mh = o.f(m.0);
        let ml = o.f(m.1);
        let p_hi = o.mul(f, &mh);
        let np = o.neg(&p_hi);
        let p_lo = o.fma(f, &mh, &np);
        let p_lo = o.fma(f, &ml, &p_lo);
        (p_hi, Some(p_lo))
    };
    // s = e·a_hi + p_hi and its rounding error.
    let ah = o.f(a.0);
    let s = o.fma(e, &ah, &p_hi);
    let ns = o.neg(&s);
    let err = o.fma(e, &ah, &ns);
    let err = o.add(&err, &p_hi);
    let mut lo = err;
    if let Some(p_lo) = &p_lo {
        lo = o.add(&lo, p_lo);
    }
    if let Some(extra) = extra {
        lo = o.add(&lo, extra);
    }
    if a.1 != 0.0 {
        let al = o.f(a.1);
        lo = o.fma(e, &al, &lo);
    }
    let lo = add_square_tail(o, f, m, &lo);
    o.add(&s, &lo)
}

/// `acc + f²·M·g(f)` (`M = m.0 + m.1`): `f² = z + z_lo` exactly and `f²·M·g(f) = z·g0 + z·f·G(f)`
/// with `g0 = M·g(0)` applied to the exact square (the leading tail term is up to a fifth of a
/// logarithm near √2: its rounding errors count), the rest rounding harmlessly.
fn add_square_tail<O: Ops32>(o: &mut O, f: &O::F, m: (f32, f32), acc: &O::F) -> O::F {
    let g: Vec<u32> = LOG_G
        .iter()
        .map(|&k| (c(k) as f64 * (m.0 as f64 + m.1 as f64)) as f32)
        .map(f32::to_bits)
        .collect();
    let q = poly(o, f, &g[1..]);
    let g0 = o.f(c(g[0]));
    let z = o.mul(f, f);
    let nz = o.neg(&z);
    let z_lo = o.fma(f, f, &nz);
    let z3 = o.mul(&z, f);
    let acc = o.fma(&z3, &q, acc);
    let acc = o.fma(&z_lo, &g0, &acc);
    o.fma(&z, &g0, &acc)
}

/// Special values of a logarithm of `x` (`arg` is what the log is taken of, `zero_at` where it
/// is −inf): NaN below, −inf at, the argument itself for +inf and NaN.
fn log_specials<O: Ops32>(o: &mut O, x: &O::F, v: &O::F, zero_at: f32) -> O::F {
    let z = o.f(zero_at);
    let below = o.lt(x, &z);
    let nan = o.f(f32::NAN);
    let v = o.sel(&below, &nan, v);
    let at = o.eq(x, &z);
    let ninf = o.f(f32::NEG_INFINITY);
    let v = o.sel(&at, &ninf, &v);
    let inf = o.f(f32::INFINITY);
    let finite = o.lt(x, &inf);
    let nf = o.not(&finite);
    o.sel(&nf, x, &v)
}

/// A logarithm's value from the reduced argument `(e, f)`.
type LogValue<O> = dyn Fn(&mut O, &<O as Ops32>::F, &<O as Ops32>::F) -> <O as Ops32>::F;

/// A logarithm whose value `value(e, f)` is computed from the reduction of `x`: for a positive
/// normal `x` straight from its bits; for anything else (subnormals, zero, negatives, inf, NaN)
/// in a branch taken only where such an argument occurs, with the subnormal rescaling and the
/// special values there (as libdevice's `logf` branches for its special values).
fn log_with<O: Ops32>(o: &mut O, x: &O::F, value: &LogValue<O>) -> O::F {
    let bits = o.bits(x);
    let (e, f) = reduce_normal_bits(o, &bits, None);
    let v = value(o, &e, &f);
    // Positive normal: bits in [0x0080_0000, 0x7f80_0000).
    let min_normal = o.i(0x0080_0000);
    let above = o.isub(&bits, &min_normal);
    let span = o.i(0x7f00_0000);
    let normal = o.ult(&above, &span);
    let other = o.not(&normal);
    let zero = o.f(0.0);
    let zero_i = o.i(0);
    let (v, _, _) = o.cold(&other, (v, zero.clone(), zero_i.clone()), |o| {
        let (e, f) = log_reduce(o, x);
        let v = value(o, &e, &f);
        (log_domain(o, x, &v), zero, zero_i)
    });
    v
}

/// `log_b x = e·A + f·M + f²·M·g(f)` (`A = a_hi + a_lo = log_b 2`, `M = m_hi + m_lo = log_b e`)
/// as libdevice's `log2f` sums it: the tail `f·m_lo + f²·M·g(f)` first, then `f·m_hi` by one
/// fma, then `e·A`. The leading `f·m_hi` is exact inside the fma and the tail is at most a fifth
/// of the result, so the result rounds about once: no compensated sum of `e·A` and `f·M`.
fn log_base<O: Ops32>(o: &mut O, x: &O::F, a: (f32, f32), m: (f32, f32)) -> O::F {
    log_with(o, x, &move |o: &mut O, e: &O::F, f: &O::F| {
        log_base_value(o, e, f, a, m)
    })
}

/// [`log_base`]'s value from the reduced argument.
fn log_base_value<O: Ops32>(o: &mut O, e: &O::F, f: &O::F, a: (f32, f32), m: (f32, f32)) -> O::F {
    let ml = o.f(m.1);
    let tail = o.mul(f, &ml);
    let tail = add_square_tail(o, f, m, &tail);
    let mh = o.f(m.0);
    let v = o.fma(f, &mh, &tail);
    let v = if a.1 != 0.0 {
        let al = o.f(a.1);
        o.fma(e, &al, &v)
    } else {
        v
    };
    if a.0 == 1.0 {
        o.add(e, &v)
    } else {
        let ah = o.f(a.0);
        o.fma(e, &ah, &v)
    }
}

/// `e·ln2 + f + f²·g(f)`, summed by two FMAs: within 1 ulp without the compensated sum
/// [`log_combine`] carries (the leading term `e·ln2` and the polynomial's tail round once each).
pub fn log<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    log_with(o, x, &|o: &mut O, e: &O::F, f: &O::F| {
        let q = poly(o, f, &LOG_G);
        let z = o.mul(f, f);
        let t = o.fma(&z, &q, f);
        let ln2 = o.f(c(LN2_HI));
        o.fma(e, &ln2, &t)
    })
}

pub fn log2<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    log_base(o, x, (1.0, 0.0), (c(LOG2E), c(LOG2E_LO)))
}

pub fn log10<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    log_base(o, x, (c(LOG10_2), c(LOG10_2_LO)), (c(LOG10E), c(LOG10E_LO)))
}

pub fn log1p<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let one = o.f(1.0);
    let u = o.add(x, &one);
    let (e, f) = log_reduce(o, &u);
    // log1p(x) = log(u) + (x − (u − 1))/u (u − 1 is exact; the correction is below 2^-22.5 of
    // the result, so the approximate reciprocal is plenty) ...
    let um = o.sub(&u, &one);
    let d = o.sub(x, &um);
    let r = o.rcp(&u);
    let corr = o.mul(&d, &r);
    // ... except for x ∈ (√½ − 1, √2 − 1), where e = 0 and f = x exactly.
    let lo = o.f(-0.292_893_2);
    let hi = o.f(0.414_213_5);
    let above = o.lt(&lo, x);
    let below = o.lt(x, &hi);
    let near = o.and(&above, &below);
    let zero = o.f(0.0);
    let e = o.sel(&near, &zero, &e);
    let f = o.sel(&near, x, &f);
    let corr = o.sel(&near, &zero, &corr);
    let v = log_combine(o, &e, &f, Some(&corr), (c(LN2_HI), c(LN2_LO)), (1.0, 0.0));
    // Tiny |x| (and ±0): log1p(x) rounds to x.
    let ax = o.abs(x);
    let tiny = o.f(2f32.powi(-24));
    let small = o.lt(&ax, &tiny);
    let v = o.sel(&small, x, &v);
    log_specials(o, x, &v, -1.0)
}

pub fn erf<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let z = o.mul(x, x);
    let q = poly(o, &z, &ERF_SMALL);
    let small = o.fma(x, &q, x);
    let four = o.f(4.0);
    let a = o.minimum(&ax, &four);
    let l = poly(o, &a, &ERF_LARGE);
    let e = o.ex2(&l);
    let one = o.f(1.0);
    let big = o.sub(&one, &e);
    let big = o.copysign(&big, x);
    let split = o.f(ERF_SPLIT);
    let is_small = o.lt(&ax, &split);
    o.sel(&is_small, &small, &big)
}

/// `tanh`: `x + x³P(x²)` (degree 6) below 0.75; above, `1 − 2/(e + 1)` with `e = 2^{2|x|·log2e}`
/// straight from `ex2.approx.ftz` (its argument's rounding and the hardware's error reach the
/// result scaled by `2e/(e+1)² ≤ 0.3`) and `1/(e + 1)` from `rcp` plus one Newton step.
/// 20 instructions where the accurate exp core took 32, within libdevice's 2 ulp.
pub fn tanh<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let z = o.mul(x, x);
    let p = poly(o, &z, &TANH_P);
    let x3 = o.mul(x, &z);
    let small = o.fma(&x3, &p, x);
    // From 9.5 on the result rounds to 1 (the Newton step needs e finite).
    let lim = o.f(9.5);
    let a = o.minimum(&ax, &lim);
    let two_log2e = o.f(2.0 * std::f32::consts::LOG2_E);
    let y = o.mul(&a, &two_log2e);
    let e = o.ex2(&y);
    let one = o.f(1.0);
    let d = o.add(&e, &one);
    let r = o.rcp(&d);
    let nd = o.neg(&d);
    let err = o.fma(&nd, &r, &one);
    let r = o.fma(&r, &err, &r);
    let m2 = o.f(-2.0);
    let big = o.fma(&m2, &r, &one);
    // NaN takes the small branch, which keeps it; the sign of x for both (also −0).
    let split = o.f(TANH_SPLIT);
    let is_big = o.lt(&split, &ax);
    let v = o.sel(&is_big, &big, &small);
    o.copysign(&v, x)
}

/// `x = j·π/2 + (r + r_lo)`: returns `(r, r_lo, j)` (only `j mod 4` matters); NaN `r` for
/// infinite or NaN `x`.
fn reduce_pio2<O: Ops32>(o: &mut O, x: &O::F) -> (O::F, O::F, O::I) {
    let k = o.f(c(TWO_OVER_PI_F));
    let magic = o.f(MAGIC);
    let ax = o.abs(x);
    let lim = o.f(TRIG_FAST_LIMIT);
    let fast = o.lt(&ax, &lim);
    // Keep the fma below in the magic number's range for the slow-path arguments.
    let zero = o.f(0.0);
    let xf = o.sel(&fast, x, &zero);
    let t = o.fma(&xf, &k, &magic);
    let jf = o.sub(&t, &magic);
    let p1 = o.f(-c(PIO2_1));
    let p2 = o.f(-c(PIO2_2));
    let p3 = o.f(-c(PIO2_3));
    let r = o.fma(&jf, &p1, x);
    let r = o.fma(&jf, &p2, &r);
    let r = o.fma(&jf, &p3, &r);
    let j = o.bits(&t);
    let slow = o.not(&fast);
    o.cold(&slow, (r, zero, j), |o| payne_hanek(o, x))
}

/// Payne–Hanek reduction of `|x| ≥ 2^17` (or inf/NaN): `(r, r_lo, j)` as [`reduce_pio2`].
fn payne_hanek<O: Ops32>(o: &mut O, x: &O::F) -> (O::F, O::F, O::I) {
    // |x| = m·2^s with a 24-bit integer m.
    let xb = o.bits(x);
    let abs_mask = o.i(0x7fff_ffff);
    let ab = o.iand(&xb, &abs_mask);
    let eb = o.lshr(&ab, 23);
    let mant_mask = o.i(0x007f_ffff);
    let m = o.iand(&ab, &mant_mask);
    let implicit = o.i(0x0080_0000);
    let m = o.ior(&m, &implicit);
    let b150 = o.i(150);
    let s = o.isub(&eb, &b150);
    // Bits of 2/π from word w (bit j has weight 2^-j; word w holds bits 32w+1 ..= 32w+32),
    // w = floor((s − 2)/32): bits above j = s − 1 only add multiples of 4 to x·2/π.
    let two = o.i(2);
    let s2 = o.isub(&s, &two);
    let w = o.ashr(&s2, 5);
    // The table starts with two zero words (w = −2, −1).
    let idx = o.iadd(&w, &two);
    let words: Vec<O::I> = (0..4)
        .map(|k| {
            let kk = o.i(k);
            let i = o.iadd(&idx, &kk);
            o.table(&i)
        })
        .collect();
    // Y = m·(W0·2^96 + W1·2^64 + W2·2^32 + W3) mod 2^128 as four 32-bit words.
    let p: Vec<O::L> = words.iter().map(|wd| o.wmul(&m, wd)).collect();
    let lo_mask = o.lconst(0xffff_ffff);
    let y0 = o.land(&p[3], &lo_mask);
    let h3 = o.llshr(&p[3], 32);
    let l2 = o.land(&p[2], &lo_mask);
    let acc = o.ladd(&h3, &l2);
    let y1 = o.land(&acc, &lo_mask);
    let carry = o.llshr(&acc, 32);
    let h2 = o.llshr(&p[2], 32);
    let l1 = o.land(&p[1], &lo_mask);
    let acc = o.ladd(&carry, &h2);
    let acc = o.ladd(&acc, &l1);
    let y2 = o.land(&acc, &lo_mask);
    let carry = o.llshr(&acc, 32);
    let h1 = o.llshr(&p[1], 32);
    let acc = o.ladd(&carry, &h1);
    let acc = o.ladd(&acc, &p[0]);
    // High word pair A = y3:y2, low pair B = y1:y0.
    let y3 = o.lshl(&acc, 32);
    let a = o.lor(&y3, &y2);
    let y1s = o.lshl(&y1, 32);
    let bw = o.lor(&y1s, &y0);
    // Bit 0 of Y weighs 2^sh, sh = s − 32w − 128; align the weight-2^1 bit (Y bit 1 − sh) to
    // bit 63: shift left by L = 126 + sh = s − 32w − 2 ∈ [0, 31].
    let w32 = o.shl(&w, 5);
    let l = o.isub(&s2, &w32);
    let sixty_three = o.i(63);
    let rl = o.isub(&sixty_three, &l);
    let hi = o.lshl_var(&a, &l);
    let b1 = o.llshr(&bw, 1);
    let lo = o.llshr_var(&b1, &rl);
    let h = o.lor(&hi, &lo);
    // Round to the nearest quadrant: the top two bits of h + 2^61, the rest a signed fraction
    // in units of 2^-62.
    let half = o.lconst(1 << 61);
    let h = o.ladd(&h, &half);
    let qw = o.llshr(&h, 62);
    let q = o.lo(&qw);
    let frac_mask = o.lconst((1 << 62) - 1);
    let fr = o.land(&h, &frac_mask);
    let fr = o.lsub(&fr, &half);
    // The fraction as an f32 pair, then times π/2·2^-62.
    let fa = o.l2f(&fr);
    let fa_i = o.f2l(&fa);
    let rem = o.lsub(&fr, &fa_i);
    let fb = o.l2f(&rem);
    let scale = o.f(2f32.powi(-62));
    let a = o.mul(&fa, &scale);
    let b = o.mul(&fb, &scale);
    let p1 = o.f(c(PIO2_1));
    let p2 = o.f(c(PIO2_2));
    let r = o.mul(&a, &p1);
    let nr = o.neg(&r);
    let r_lo = o.fma(&a, &p1, &nr);
    let r_lo = o.fma(&a, &p2, &r_lo);
    let r_lo = o.fma(&b, &p1, &r_lo);
    // Negative x: negate r and the quadrant.
    let zero_i = o.i(0);
    let neg = o.ilt(&xb, &zero_i);
    let nr = o.neg(&r);
    let r = o.sel(&neg, &nr, &r);
    let nrl = o.neg(&r_lo);
    let r_lo = o.sel(&neg, &nrl, &r_lo);
    let nq = o.isub(&zero_i, &q);
    let q = o.isel(&neg, &nq, &q);
    // inf and NaN: NaN.
    let inf_e = o.i(255);
    let special = o.ieq(&eb, &inf_e);
    let nan = o.f(f32::NAN);
    let r = o.sel(&special, &nan, &r);
    (r, r_lo, q)
}

/// `sin(r + r_lo)` and `cos(r + r_lo)` for `|r| ≲ π/4`.
fn sin_cos_poly<O: Ops32>(o: &mut O, r: &O::F, r_lo: &O::F) -> (O::F, O::F) {
    let z = o.mul(r, r);
    let sp = poly(o, &z, &SIN_P);
    let r3 = o.mul(r, &z);
    let t = o.fma(&r3, &sp, r_lo);
    let s = o.add(r, &t);
    let cp = poly(o, &z, &COS_P);
    let one = o.f(1.0);
    let cv = o.fma(&z, &cp, &one);
    let nr = o.neg(r);
    let cv = o.fma(&nr, r_lo, &cv);
    (s, cv)
}

/// sin (`shift` 0) or cos (`shift` 1) of `x`.
fn sin_cos<O: Ops32>(o: &mut O, x: &O::F, shift: i32) -> O::F {
    let (r, r_lo, j) = reduce_pio2(o, x);
    let (s, cv) = sin_cos_poly(o, &r, &r_lo);
    let sh = o.i(shift);
    let q = o.iadd(&j, &sh);
    let one = o.i(1);
    let odd = o.iand(&q, &one);
    let zero = o.i(0);
    let use_cos = o.ieq(&odd, &zero);
    let use_cos = o.not(&use_cos);
    let v = o.sel(&use_cos, &cv, &s);
    // Quadrants 2 and 3: negate (bit 1 of q moved to the sign bit).
    let two = o.i(2);
    let q2 = o.iand(&q, &two);
    let sign = o.shl(&q2, 30);
    let vb = o.bits(&v);
    let vb = o.ixor(&vb, &sign);
    let v = o.bits_float(&vb);
    if shift == 0 {
        // sin(±0) = ±0.
        let zf = o.f(0.0);
        let is_zero = o.eq(x, &zf);
        o.sel(&is_zero, x, &v)
    } else {
        v
    }
}

pub fn sin<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    sin_cos(o, x, 0)
}

pub fn cos<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    sin_cos(o, x, 1)
}

pub fn tan<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let (r, r_lo, j) = reduce_pio2(o, x);
    let z = o.mul(&r, &r);
    let p = poly(o, &z, &TAN_P);
    let r3 = o.mul(&r, &z);
    // tan(r + r_lo) ≈ tan(r) + r_lo·(1 + r²).
    let one = o.f(1.0);
    let d = o.fma(&z, &r_lo, &r_lo);
    let t = o.fma(&r3, &p, &d);
    let t = o.add(&r, &t);
    // Odd quadrants: −1/t with one Newton step.
    let rc = o.rcp(&t);
    let nt = o.neg(&t);
    let e = o.fma(&nt, &rc, &one);
    let rc = o.fma(&rc, &e, &rc);
    let inv = o.neg(&rc);
    let onei = o.i(1);
    let odd = o.iand(&j, &onei);
    let zero = o.i(0);
    let even = o.ieq(&odd, &zero);
    let v = o.sel(&even, &t, &inv);
    let zf = o.f(0.0);
    let is_zero = o.eq(x, &zf);
    o.sel(&is_zero, x, &v)
}

/// `log2(x)` of a positive finite `x` as an unevaluated pair `(hi, lo)`, relative error about
/// 2^-40.
fn log2_pair<O: Ops32>(o: &mut O, x: &O::F) -> (O::F, O::F) {
    let (e, f) = log_reduce(o, x);
    // s = f/(2 + f) with its remainder: d = 2 + f exactly as d + d_lo.
    let two = o.f(2.0);
    let d = o.add(&f, &two);
    let dm = o.sub(&d, &two);
    let d_lo = o.sub(&f, &dm);
    let rc = o.rcp(&d);
    let one = o.f(1.0);
    let nd = o.neg(&d);
    let err = o.fma(&nd, &rc, &one);
    let rc = o.fma(&rc, &err, &rc);
    let s = o.mul(&f, &rc);
    let ns = o.neg(&s);
    let rem = o.fma(&ns, &d, &f);
    let rem = o.fma(&ns, &d_lo, &rem);
    let s_lo = o.mul(&rem, &rc);
    // log2(1+f) = (2s + 2s_lo)·log2e + s³·R'(s²) with R' = R·log2e; s³ as an exact pair (the
    // s³ term is up to 1% of the result and its rounding errors would count).
    let z = o.mul(&s, &s);
    let nz = o.neg(&z);
    let z_lo = o.fma(&s, &s, &nz);
    let s3 = o.mul(&s, &z);
    let ns3 = o.neg(&s3);
    let s3_lo = o.fma(&s, &z, &ns3);
    let s3_lo = o.fma(&s, &z_lo, &s3_lo);
    // (s + s_lo)³ − s³ ≈ 3s²·s_lo: up to 2^-27 of the result near √2.
    let three = o.f(3.0);
    let z3 = o.mul(&z, &three);
    let s3_lo = o.fma(&z3, &s_lo, &s3_lo);
    // R'(z) = log2e·2·Σ z^k/(2k+3): the series to z^5 (its tail is below 2^-38 of the
    // result on |s| ≤ 0.172), not `log`'s shorter fit — pow multiplies log2|x|'s error by y,
    // so it must be good to well below 2^-30. The leading coefficient is a pair.
    let series: Vec<f64> = (0..6)
        .map(|k| 2.0 / (2 * k + 3) as f64 * std::f64::consts::LOG2_E)
        .collect();
    let rl: Vec<u32> = series.iter().map(|&k| (k as f32).to_bits()).collect();
    let rp = poly(o, &z, &rl);
    let r0 = o.f(c(rl[0]));
    let r0_lo = o.f((series[0] - c(rl[0]) as f64) as f32);
    let l_hi = o.add(&s, &s);
    let s_lo2 = o.add(&s_lo, &s_lo);
    let lh = o.f(c(LOG2E));
    let ll = o.f(c(LOG2E_LO));
    let t_hi = o.mul(&l_hi, &lh);
    let nt = o.neg(&t_hi);
    let t_lo = o.fma(&l_hi, &lh, &nt);
    let t_lo = o.fma(&l_hi, &ll, &t_lo);
    let t_lo = o.fma(&s_lo2, &lh, &t_lo);
    let t_lo = o.fma(&s3_lo, &r0, &t_lo);
    let t_lo = o.fma(&s3, &r0_lo, &t_lo);
    let t_lo = o.fma(&s3, &rp, &t_lo);
    // + e (|e| ≥ 1 > |t_hi| or e = 0).
    let h = o.add(&e, &t_hi);
    let em = o.sub(&e, &h);
    let em = o.add(&em, &t_hi);
    let h_lo = o.add(&em, &t_lo);
    // Renormalize (|h_lo| ≤ ulp(h)/2).
    let hh = o.add(&h, &h_lo);
    let d = o.sub(&h, &hh);
    let h_lo = o.add(&d, &h_lo);
    (hh, h_lo)
}

pub fn pow<O: Ops32>(o: &mut O, x: &O::F, y: &O::F) -> O::F {
    let zero = o.f(0.0);
    let one = o.f(1.0);
    let half = o.f(0.5);
    let inf = o.f(f32::INFINITY);
    let nan = o.f(f32::NAN);
    let ax = o.abs(x);
    let ay = o.abs(y);
    // log2|x| (−inf at 0, +inf at inf).
    let (h, h_lo) = log2_pair(o, &ax);
    let ax_zero = o.eq(&ax, &zero);
    let ax_inf = o.eq(&ax, &inf);
    let ninf = o.f(f32::NEG_INFINITY);
    let h = o.sel(&ax_zero, &ninf, &h);
    let h = o.sel(&ax_inf, &inf, &h);
    let x_nan = o.is_nan(x);
    let h = o.sel(&x_nan, x, &h);
    let edge = o.or(&ax_zero, &ax_inf);
    let h_lo = o.sel(&edge, &zero, &h_lo);
    // y·log2|x| = p + p_lo exactly up to the pair's error.
    let p = o.mul(y, &h);
    let np = o.neg(&p);
    let p_lo = o.fma(y, &h, &np);
    let p_lo = o.fma(y, &h_lo, &p_lo);
    // 2^(p + p_lo): the clamp sends overflow to inf and underflow to 0.
    let pc = clamp(o, &p, -152.0, 130.0);
    let same = o.eq(&pc, &p);
    let p_lo = o.sel(&same, &p_lo, &zero);
    let magic = o.f(MAGIC);
    let t = o.add(&pc, &magic);
    let jf = o.sub(&t, &magic);
    let fr_hi = o.sub(&pc, &jf);
    let fr = o.add(&fr_hi, &p_lo);
    // What rounding `fr` lost (|fr| ≤ 1/2, so up to 2^-25: 0.35 ulp of the result), put back
    // as 2^fr·(1 + ln2·fr_err).
    let fr_back = o.sub(&fr, &fr_hi);
    let fr_err = o.sub(&p_lo, &fr_back);
    let e2 = exp2_poly(o, &fr);
    let ln2 = o.f(std::f32::consts::LN_2);
    let scaled_err = o.mul(&fr_err, &ln2);
    let e2 = o.fma(&e2, &scaled_err, &e2);
    let mag = scale2(o, &e2, &t);
    // y an integer, and odd? (|y| ≥ 2^24 is even; inf counts as even.)
    let yr = o.rint(y);
    let y_int = o.eq(&yr, y);
    let yh = o.mul(y, &half);
    let yhr = o.rint(&yh);
    let y_even = o.eq(&yhr, &yh);
    let not_even = o.not(&y_even);
    let y_odd = o.and(&y_int, &not_even);
    let xb = o.bits(x);
    let zi = o.i(0);
    let x_neg = o.ilt(&xb, &zi);
    let negate = o.and(&x_neg, &y_odd);
    let nmag = o.neg(&mag);
    let v = o.sel(&negate, &nmag, &mag);
    // Negative finite x with a non-integer y: NaN.
    let x_lt0 = o.lt(x, &zero);
    let not_int = o.not(&y_int);
    let bad = o.and(&x_lt0, &not_int);
    let x_fin = o.not(&ax_inf);
    let bad = o.and(&bad, &x_fin);
    let v = o.sel(&bad, &nan, &v);
    // |x| = 1 with y = ±inf: 1; y = 0 or x = 1: 1 (NaN included).
    let ax_one = o.eq(&ax, &one);
    let y_inf = o.eq(&ay, &inf);
    let unit = o.and(&ax_one, &y_inf);
    let y_zero = o.eq(y, &zero);
    let x_one = o.eq(x, &one);
    let is_one = o.or(&y_zero, &x_one);
    let is_one = o.or(&is_one, &unit);
    o.sel(&is_one, &one, &v)
}

/// The 2/π table words, for implementations of [`Ops32::table`].
pub fn table_word(index: i32) -> u32 {
    TWO_OVER_PI[index as usize]
}

/// `1/a` from the hardware reciprocal and one Newton step (about 0.5 ulp for normal `a` and
/// normal `1/a`).
fn recip<O: Ops32>(o: &mut O, a: &O::F) -> O::F {
    let r = o.rcp(a);
    let one = o.f(1.0);
    let na = o.neg(a);
    let e = o.fma(&na, &r, &one);
    o.fma(&r, &e, &r)
}

pub fn expm1<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    // From −18 down the result rounds to −1 (and 2^-j below stays finite).
    let xc = clamp(o, x, -18.0, 89.0);
    let (t, r) = reduce_ln2(o, &xc);
    // e^r − 1 = r + r²·P(r), no cancellation.
    let p = poly(o, &r, &EXPM1_P);
    let r2 = o.mul(&r, &r);
    let em = o.fma(&r2, &p, &r);
    // |j| ≤ 24: 2^j·(e^r − 1) + (2^j − 1), with 2^j − 1 exact.
    let tb = o.bits(&t);
    let m = o.i(MAGIC_BITS);
    let j = o.isub(&tb, &m);
    let lo = o.i(-24);
    let hi = o.i(24);
    let below = o.ilt(&j, &lo);
    let above = o.ilt(&hi, &j);
    let jc = o.isel(&below, &lo, &j);
    let jc = o.isel(&above, &hi, &jc);
    let sh = o.shl(&jc, 23);
    let bias = o.i(127 << 23);
    let sb = o.iadd(&sh, &bias);
    let sc = o.bits_float(&sb);
    let one = o.f(1.0);
    let sm1 = o.sub(&sc, &one);
    let moderate = o.fma(&sc, &em, &sm1);
    // Otherwise 2^j·((1 + e^r − 1) − 2^-j) with 1 + (e^r − 1) = h + l exactly, rounded once
    // by the scaling.
    let h = o.add(&em, &one);
    let d = o.sub(&one, &h);
    let l = o.add(&d, &em);
    let cap = o.i(126);
    let big_j = o.ilt(&cap, &j);
    let jm = o.isel(&big_j, &cap, &j);
    let b127 = o.i(127);
    let neg_j = o.isub(&b127, &jm);
    let cb = o.shl(&neg_j, 23);
    let cinv = o.bits_float(&cb);
    let lc = o.sub(&l, &cinv);
    let w = o.add(&h, &lc);
    let far = scale2(o, &w, &t);
    let out = o.or(&below, &above);
    let v = o.sel(&out, &far, &moderate);
    // |x| < 0.7: directly (for j = ±1 the formula above cancels up to 3.7×).
    let dp = poly(o, x, &EXPM1_DIRECT);
    let x2 = o.mul(x, x);
    let direct = o.fma(&x2, &dp, x);
    let ax = o.abs(x);
    let split = o.f(EXPM1_SPLIT);
    let near = o.lt(&ax, &split);
    let v = o.sel(&near, &direct, &v);
    // expm1 keeps the sign of x (and of zero).
    o.copysign(&v, x)
}

/// `(e^|x|/2, e^-|x|/2)` without overflowing early (`e^|x|/2` is inf from 89.42 on).
fn exp_halves<O: Ops32>(o: &mut O, a: &O::F) -> (O::F, O::F) {
    let lim = o.f(90.0);
    let ac = o.minimum(a, &lim);
    let (t, r) = reduce_ln2(o, &ac);
    let p = exp_poly(o, &r);
    let one = o.f(1.0);
    let t1 = o.sub(&t, &one);
    let h = scale2(o, &p, &t1);
    // (The reciprocal of a finite bound for inf.)
    let cap = o.f(2f32.powi(126));
    let hc = o.minimum(&h, &cap);
    let rh = recip(o, &hc);
    let quarter = o.f(0.25);
    let q = o.mul(&rh, &quarter);
    (h, q)
}

pub fn cosh<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let a = o.abs(x);
    let (h, q) = exp_halves(o, &a);
    o.add(&h, &q)
}

pub fn sinh<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let a = o.abs(x);
    let (h, q) = exp_halves(o, &a);
    let big = o.sub(&h, &q);
    // |x| < 1: x + x³·P(x²) (the difference above would cancel).
    let z = o.mul(&a, &a);
    let p = poly(o, &z, &SINH_P);
    let a3 = o.mul(&a, &z);
    let small = o.fma(&a3, &p, &a);
    let one = o.f(1.0);
    let is_small = o.lt(&a, &one);
    let v = o.sel(&is_small, &small, &big);
    let nan = o.is_nan(x);
    let v = o.sel(&nan, x, &v);
    o.copysign(&v, x)
}

/// `atan(t)` for `t ∈ [0, 1]`.
fn atan_poly<O: Ops32>(o: &mut O, t: &O::F) -> O::F {
    let z = o.mul(t, t);
    let p = poly(o, &z, &ATAN_P);
    let t3 = o.mul(t, &z);
    o.fma(&t3, &p, t)
}

/// `hi + lo − v` for a constant split `hi + lo` and a smaller `v`.
fn const_minus<O: Ops32>(o: &mut O, hi: u32, lo: u32, v: &O::F) -> O::F {
    let h = o.f(c(hi));
    let l = o.f(c(lo));
    let d = o.sub(&l, v);
    o.add(&h, &d)
}

pub fn atan<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let a = o.abs(x);
    let one = o.f(1.0);
    let big = o.lt(&one, &a);
    // (1/inf through a finite bound: 2^-126 is as good as 0 next to π/2.)
    let cap = o.f(2f32.powi(126));
    let ac = o.minimum(&a, &cap);
    let inv = recip(o, &ac);
    let t = o.sel(&big, &inv, &a);
    let v = atan_poly(o, &t);
    let w = const_minus(o, PIO2_1, PIO2_2, &v);
    let v = o.sel(&big, &w, &v);
    o.copysign(&v, x)
}

pub fn atan2<O: Ops32>(o: &mut O, y: &O::F, x: &O::F) -> O::F {
    let ax = o.abs(x);
    let ay = o.abs(y);
    let swap = o.lt(&ax, &ay);
    let num = o.sel(&swap, &ax, &ay);
    let den = o.sel(&swap, &ay, &ax);
    // Keep den and 1/den normal: scale both by 2^±64 at the extremes (the ratio is unchanged).
    let small_lim = o.f(2f32.powi(-64));
    let big_lim = o.f(2f32.powi(64));
    let tiny = o.lt(&den, &small_lim);
    let huge = o.lt(&big_lim, &den);
    let up = o.f(2f32.powi(64));
    let down = o.f(2f32.powi(-64));
    let one = o.f(1.0);
    let k = o.sel(&huge, &down, &one);
    let k = o.sel(&tiny, &up, &k);
    let num = o.mul(&num, &k);
    let den = o.mul(&den, &k);
    // num/den ∈ [0, 1], the quotient corrected with its remainder.
    let r = recip(o, &den);
    let q = o.mul(&num, &r);
    let nq = o.neg(&q);
    let e = o.fma(&nq, &den, &num);
    let q = o.fma(&e, &r, &q);
    // 0/0 and inf/inf.
    let zero = o.f(0.0);
    let bad = o.is_nan(&q);
    let q = o.sel(&bad, &zero, &q);
    let v = atan_poly(o, &q);
    let w = const_minus(o, PIO2_1, PIO2_2, &v);
    let v = o.sel(&swap, &w, &v);
    // Both infinite: π/4.
    let inf = o.f(f32::INFINITY);
    let xi = o.eq(&ax, &inf);
    let yi = o.eq(&ay, &inf);
    let both = o.and(&xi, &yi);
    let pio4 = o.f(std::f32::consts::FRAC_PI_4);
    let v = o.sel(&both, &pio4, &v);
    // x < 0 (or −0): π − v.
    let xb = o.bits(x);
    let zi = o.i(0);
    let xneg = o.ilt(&xb, &zi);
    let m = const_minus(o, PI_1, PI_2, &v);
    let v = o.sel(&xneg, &m, &v);
    let v = o.copysign(&v, y);
    let xn = o.is_nan(x);
    let yn = o.is_nan(y);
    let nan = o.or(&xn, &yn);
    let qn = o.f(f32::NAN);
    o.sel(&nan, &qn, &v)
}

/// The tail `s³·P(s²)` of `asin(s) = s + s³·P(s²)`, `s ∈ [0, 1/2]`.
fn asin_poly<O: Ops32>(o: &mut O, s: &O::F) -> O::F {
    let z = o.mul(s, s);
    let p = poly(o, &z, &ASIN_P);
    let s3 = o.mul(s, &z);
    o.mul(&s3, &p)
}

/// `√((1 − a)/2)` for `a ∈ [1/2, 1]` (NaN above 1).
fn asin_half_arg<O: Ops32>(o: &mut O, a: &O::F) -> O::F {
    let one = o.f(1.0);
    let half = o.f(0.5);
    let w = o.sub(&one, a);
    let w = o.mul(&w, &half);
    o.sqrt(&w)
}

pub fn asin<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let a = o.abs(x);
    let tail = asin_poly(o, &a);
    let small = o.add(&a, &tail);
    // |x| > 1/2: π/2 − 2·asin(√((1 − |x|)/2)).
    // (π/2 − 2s exactly as b + err, then the small terms, one rounding at the end.)
    let s = asin_half_arg(o, &a);
    let ts = asin_poly(o, &s);
    let hi = o.f(c(PIO2_1));
    let lo = o.f(c(PIO2_2));
    let s2 = o.add(&s, &s);
    let b = o.sub(&hi, &s2);
    let d = o.sub(&hi, &b);
    let err = o.sub(&d, &s2);
    let m2 = o.f(-2.0);
    let rest = o.fma(&m2, &ts, &lo);
    let rest = o.add(&rest, &err);
    let big = o.add(&b, &rest);
    let half = o.f(0.5);
    let is_big = o.lt(&half, &a);
    let v = o.sel(&is_big, &big, &small);
    o.copysign(&v, x)
}

pub fn acos<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let a = o.abs(x);
    // |x| ≤ 1/2: π/2 − asin(x).
    let tail = asin_poly(o, &a);
    let t = o.copysign(&tail, x);
    let small = o.add(x, &t);
    let mid = const_minus(o, PIO2_1, PIO2_2, &small);
    // |x| > 1/2: 2·asin(√((1 − |x|)/2)), or π minus that for x < 0.
    let s = asin_half_arg(o, &a);
    let ts = asin_poly(o, &s);
    let u = o.add(&s, &ts);
    let two_u = o.add(&u, &u);
    let neg = const_minus(o, PI_1, PI_2, &two_u);
    let zero = o.f(0.0);
    let x_neg = o.lt(x, &zero);
    let big = o.sel(&x_neg, &neg, &two_u);
    let half = o.f(0.5);
    let is_big = o.lt(&half, &a);
    let v = o.sel(&is_big, &big, &mid);
    let nan = o.is_nan(x);
    o.sel(&nan, x, &v)
}

pub fn cbrt<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let a = o.abs(x);
    // Subnormals: scale by 2^24 (the root by 2^8).
    let min_normal = o.f(f32::MIN_POSITIVE);
    let sub = o.lt(&a, &min_normal);
    let big = o.f(16_777_216.0);
    let asc = o.mul(&a, &big);
    let a_s = o.sel(&sub, &asc, &a);
    // A first guess from the bits (bits/3 plus a bias), then Newton steps
    // y ← y − (y³ − a)/(3y²) with an approximate reciprocal.
    let bits = o.bits(&a_s);
    let third = o.i(0x5555_5556);
    let wq = o.wmul(&bits, &third);
    let q = o.llshr(&wq, 32);
    let q = o.lo(&q);
    let bias = o.i(0x2a51_4067);
    let yb = o.iadd(&q, &bias);
    let mut y = o.bits_float(&yb);
    let three = o.f(3.0);
    for _ in 0..3 {
        let y2 = o.mul(&y, &y);
        let na = o.neg(&a_s);
        let res = o.fma(&y2, &y, &na);
        let d = o.mul(&y2, &three);
        let rd = o.rcp(&d);
        let step = o.mul(&res, &rd);
        y = o.sub(&y, &step);
    }
    // The last step with an exact square: y³ − a = y2·y + y2_lo·y − a.
    let y2 = o.mul(&y, &y);
    let ny2 = o.neg(&y2);
    let y2_lo = o.fma(&y, &y, &ny2);
    let na = o.neg(&a_s);
    let res = o.fma(&y2, &y, &na);
    let res = o.fma(&y2_lo, &y, &res);
    let d = o.mul(&y2, &three);
    let rd = o.rcp(&d);
    let step = o.mul(&res, &rd);
    let y = o.sub(&y, &step);
    let down = o.f(1.0 / 256.0);
    let ys = o.mul(&y, &down);
    let y = o.sel(&sub, &ys, &y);
    // 0, inf and NaN are their own cube roots.
    let zero = o.f(0.0);
    let inf = o.f(f32::INFINITY);
    let z = o.eq(&a, &zero);
    let i = o.eq(&a, &inf);
    let n = o.is_nan(x);
    let keep = o.or(&z, &i);
    let keep = o.or(&keep, &n);
    let y = o.sel(&keep, &a, &y);
    o.copysign(&y, x)
}

pub fn erfc<O: Ops32>(o: &mut O, x: &O::F) -> O::F {
    let ax = o.abs(x);
    // |x| < 0.9: (1 − x) − x·q(x²) (1 − x exact from 1/2 on).
    let z = o.mul(x, x);
    let q = poly(o, &z, &ERFC_SMALL);
    let one = o.f(1.0);
    let omx = o.sub(&one, x);
    let nx = o.neg(x);
    let small = o.fma(&nx, &q, &omx);
    // |x| ≥ 0.9: e^{−a²}·G(1/a)/a, a = min(|x|, 10.1) (erfc is 0 in f32 beyond).
    let a = clamp(o, &ax, ERFC_SPLIT, 10.1);
    let u = recip(o, &a);
    let glo = poly(o, &u, &ERFC_G_LO);
    let ghi = poly(o, &u, &ERFC_G_HI);
    let half = o.f(0.5);
    let lo_half = o.lt(&u, &half);
    let g = o.sel(&lo_half, &glo, &ghi);
    let gu = o.mul(&g, &u);
    // −a²·log2 e as a pair (a² exact as s + s_lo), then 2^ of the pair, scaled once.
    let s = o.mul(&a, &a);
    let ns = o.neg(&s);
    let s_lo = o.fma(&a, &a, &ns);
    let l = o.f(c(LOG2E));
    let ll = o.f(c(LOG2E_LO));
    let h = o.mul(&ns, &l);
    let nh = o.neg(&h);
    let h_lo = o.fma(&ns, &l, &nh);
    let h_lo = o.fma(&ns, &ll, &h_lo);
    let nsl = o.neg(&s_lo);
    let h_lo = o.fma(&nsl, &l, &h_lo);
    let magic = o.f(MAGIC);
    let t = o.add(&h, &magic);
    let jf = o.sub(&t, &magic);
    let fr = o.sub(&h, &jf);
    let fr = o.add(&fr, &h_lo);
    // 2^fr·gu = gu + gu·fr·(2^fr − 1)/fr, rounded once.
    let q = poly(o, &fr, &EXP2_P);
    let qf = o.mul(&q, &fr);
    let pg = o.fma(&gu, &qf, &gu);
    let e = scale2(o, &pg, &t);
    // x ≤ −0.9: 2 − erfc(|x|).
    let two = o.f(2.0);
    let te = o.sub(&two, &e);
    let zero = o.f(0.0);
    let neg = o.lt(x, &zero);
    let tail = o.sel(&neg, &te, &e);
    let split = o.f(ERFC_SPLIT);
    let is_small = o.lt(&ax, &split);
    o.sel(&is_small, &small, &tail)
}
