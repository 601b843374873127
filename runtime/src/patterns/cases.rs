//! The pattern cases: input generators and independent CPU references, written from the
//! semantics of the ops (MLIR `arith`/`math`, Triton `tt`), not from any generated code.
//!
//! Sizes are drawn at random too, never multiples of the block, so that masks matter. Sums and
//! matrix products use small integers (or multiples of 1/8) as values: every partial sum is then
//! exact in f32 whatever the summation order, so those outputs are checked bit for bit. The
//! tolerances of approximate ops are documented in `docs/gpu-testing.md`.

use super::{Arg, Case, Data, Output, Pattern};
use crate::reference::{Rng, f16_to_f32, f32_to_f16};

/// `ex2.approx.ftz.f32` (Triton's exp2) against the exact value: libdevice documents 2 ulp for
/// exp2f, the H200 was seen at 2.3.
const EX2_APPROX_ULP: f64 = 2.5;

/// Every pattern, in run order.
pub(super) const PATTERNS: &[Pattern] = &[
    Pattern {
        name: "ew_f32",
        what: "f32 addf subf mulf divf remf minimumf maxnumf, cmpf+select",
        build: ew_f32,
    },
    Pattern {
        name: "ew_i32",
        what: "i32 addi subi muli divsi remsi minsi maxsi, cmpi+select",
        build: ew_i32,
    },
    Pattern {
        name: "ew_bits",
        what: "i32 andi ori xori shli shrsi shrui divui remui minui maxui",
        build: ew_bits,
    },
    Pattern {
        name: "math_f32",
        what: "f32 exp exp2 log log2 sqrt rsqrt absf floor ceil fma",
        build: math_f32,
    },
    Pattern {
        name: "math_precise",
        what: "tt.precise_sqrt, tt.precise_divf (bit exact), sin, cos",
        build: math_precise,
    },
    Pattern {
        name: "math_f32_wide",
        what: "every f32 math function (exp exp2 expm1 erf tanh sinh cosh sin cos tan atan cbrt log1p asin acos atan2 log log2 log10 rsqrt sqrt powf), wide ranges and special values, libdevice's ulp bounds",
        build: math_f32_wide,
    },
    Pattern {
        name: "load_other",
        what: "masked tt.load with `other` (f32, i32)",
        build: load_other,
    },
    Pattern {
        name: "store_mask",
        what: "masked tt.store (bounds and data-dependent masks)",
        build: store_mask,
    },
    Pattern {
        name: "casts",
        what: "sitofp uitofp fptosi extf truncf(f16) extsi trunci extui",
        build: casts,
    },
    Pattern {
        name: "scalar_store",
        what: "scalar tt.load/tt.store, scalar f32/i32 arguments",
        build: scalar_store,
    },
    Pattern {
        name: "reduce_1d",
        what: "1-D tt.reduce: sum, max, argmax (2 operands), i32 sum, xor",
        build: reduce_1d,
    },
    Pattern {
        name: "reduce_2d",
        what: "32x64 tt.reduce along axis 0 and 1, expand_dims+broadcast of the result",
        build: reduce_2d,
    },
    Pattern {
        name: "copy_2d",
        what: "2-D strided copy, 2-D masks, tt.get_program_id y",
        build: copy_2d,
    },
    Pattern {
        name: "transpose",
        what: "row-major load, column-major store (layout conversion)",
        build: transpose,
    },
    Pattern {
        name: "for_accum",
        what: "scf.for with loop-carried tensor and i32",
        build: for_accum,
    },
    Pattern {
        name: "fused_row_sums",
        what: "reduce_in_loop as a persistent tt.flatten loop nest, compiled after -tritongpu-fuse-nested-loops",
        build: fused_row_sums,
    },
    Pattern {
        name: "reduce_in_loop",
        what: "tt.reduce inside scf.for folded into loop-carried sum and max",
        build: reduce_in_loop,
    },
    Pattern {
        name: "online_softmax",
        what: "running max and rescaled sum of exps over 1024-element blocks (kept per thread), rows of 1 to 5000",
        build: online_softmax,
    },
    Pattern {
        name: "if_else",
        what: "scf.if yielding a tensor, scf.if guarding a store",
        build: if_else,
    },
    Pattern {
        name: "dot_f32",
        what: "FMA tt.dot f32 32x32x32",
        build: dot_f32,
    },
    Pattern {
        name: "dot_batched",
        what: "FMA tt.dot on rank-3 (batched) tensors 2x32x16 * 2x16x32",
        build: dot_batched,
    },
    Pattern {
        name: "dot_batched_f16",
        what: "batched (rank-3) f16 tt.dot on tensor cores (mma.sync, warps along the batch)",
        build: dot_batched_f16,
    },
    Pattern {
        name: "dot_f16",
        what: "tt.dot f16 64x64x32, f32 accumulator from memory",
        build: dot_f16,
    },
    Pattern {
        name: "matmul_loop",
        what: "tiled f16 matmul: scf.for over K, masked edges, 2-D grid",
        build: matmul_loop,
    },
    Pattern {
        name: "matmul_loop_mma_v2",
        what: "matmul_loop at 2 warps, 16-byte row strides: mma.sync fed by ldmatrix from swizzled cp.async rings",
        build: matmul_loop_aligned,
    },
    Pattern {
        name: "matmul_loop_one_slot",
        what: "matmul_loop at 2 warps, 2 stages: one-slot cp.async rings read by ldmatrix at one address every iteration",
        build: matmul_loop_aligned,
    },
    Pattern {
        name: "matmul_loop_sm80",
        what: "matmul_loop compiled for sm_80, 16-byte row strides (mma.sync, cp.async rings), run on this GPU",
        build: matmul_loop_aligned,
    },
    Pattern {
        name: "matmul_loop_carried",
        what: "matmul_loop_sm80 as TTGIR whose K loop carries its shared-memory operand tiles (memdescs through scf.for)",
        build: matmul_loop_aligned,
    },
    Pattern {
        name: "matmul_loop_prefetch",
        what: "matmul_loop_carried after -tritongpu-prefetch: first K slices read one iteration early, dot split along K",
        build: matmul_loop_aligned,
    },
    Pattern {
        name: "persistent_matmul",
        what: "matmul_loop_sm80's tiles walked by fewer programs (tt.flatten tile loop): fused, inner length speculated, pipelined with the wgmma in flight across tiles",
        build: persistent_matmul,
    },
    Pattern {
        name: "persistent_matmul_tma",
        what: "persistent_matmul compiled with --descriptor-loads: its A and B tiles through TMA descriptors the launcher encodes from its arguments (host_descriptors), ragged edges",
        build: persistent_matmul,
    },
    Pattern {
        name: "tma_copy",
        what: "device-side TMA descriptors (tensormap_create in global scratch): descriptor load, store and reduce add of 64x64 f32 tiles, ragged edges",
        build: tma_copy,
    },
    Pattern {
        name: "tma_bf16",
        what: "device-side TMA descriptors of bf16 (PTX's element code 10): descriptor load and store of 64x64 tiles, ragged edges",
        build: tma_bf16,
    },
    Pattern {
        name: "tma_host",
        what: "host-side TMA descriptors (cuTensorMapEncodeTiled, passed by value): descriptor load and store of 64x64 f16 tiles",
        build: tma_host,
    },
    Pattern {
        name: "tma_matmul",
        what: "tensor-descriptor f16 matmul: TMA tiles into wgmma, scf.for over K, TMA store of the f16 result",
        build: tma_matmul,
    },
    Pattern {
        name: "dot_block_ptr",
        what: "tiled f16 matmul through block pointers (transposed B, boundary checks), wgmma on sm_90",
        build: dot_block_ptr,
    },
    Pattern {
        name: "program_ids",
        what: "tt.get_program_id / tt.get_num_programs on x, y, z",
        build: program_ids,
    },
    Pattern {
        name: "grid_stride",
        what: "scf.for from program id, step tt.get_num_programs",
        build: grid_stride,
    },
    Pattern {
        name: "atomics",
        what: "tt.atomic_rmw fadd add max min umax and or xor",
        build: atomics,
    },
    Pattern {
        name: "atomic_cas",
        what: "tt.atomic_cas, tt.atomic_rmw exch, returned old values",
        build: atomic_cas,
    },
    Pattern {
        name: "scan",
        what: "tt.scan: cumsum forwards and reversed, i32 running max",
        build: scan,
    },
    Pattern {
        name: "histogram",
        what: "tt.histogram into 16 bins, unmasked and masked",
        build: histogram,
    },
    Pattern {
        name: "gather",
        what: "tt.gather along axis 0",
        build: gather,
    },
    Pattern {
        name: "join_split",
        what: "tt.join, tt.split",
        build: join_split,
    },
    Pattern {
        name: "misc_ops",
        what: "tt.clampf, tt.mulhiui, tt.bitcast, bf16 round trip, inline asm, fptoui, negf",
        build: misc_ops,
    },
    Pattern {
        name: "shapes",
        what: "tt.trans, tt.reshape (2-D, 3-D, flatten)",
        build: shapes,
    },
    Pattern {
        name: "while_loop",
        what: "scf.while with loop-carried tensor and i32",
        build: while_loop,
    },
    Pattern {
        name: "dot_i8",
        what: "tt.dot i8 64x64x32, i32 accumulator",
        build: dot_i8,
    },
    Pattern {
        name: "fp8",
        what: "tt.fp_to_fp f32 <-> e4m3fn / e5m2",
        build: fp8,
    },
    Pattern {
        name: "print",
        what: "tt.print (stored values checked)",
        build: print,
    },
];

// ------------------------------------------------------------------------------ generators

/// Uniform in `[lo, hi)`.
fn uniform(r: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * r.next_f64()
}

/// Uniform integer in `[lo, hi]`.
fn int_in(r: &mut Rng, lo: i64, hi: i64) -> i64 {
    lo + (r.next_u64() % (hi - lo + 1) as u64) as i64
}

fn chance(r: &mut Rng, p: f64) -> bool {
    r.next_f64() < p
}

/// An i32 of random bit width (1..=32) and sign: small and large magnitudes alike.
fn mixed_i32(r: &mut Rng) -> i32 {
    let w = int_in(r, 1, 32) as u32;
    let v = (r.next_u64() >> (64 - w)) as u32 as i32;
    if chance(r, 0.5) { v.wrapping_neg() } else { v }
}

/// A size in `[lo, hi]` that is not a multiple of `block`.
fn ragged(r: &mut Rng, lo: usize, hi: usize, block: usize) -> usize {
    loop {
        let n = int_in(r, lo as i64, hi as i64) as usize;
        if !n.is_multiple_of(block) {
            return n;
        }
    }
}

fn grid1(n: usize, block: usize) -> (u32, u32, u32) {
    (n.div_ceil(block) as u32, 1, 1)
}

/// Small integers (as f32) in `[-k, k]`.
fn small_ints(r: &mut Rng, n: usize, k: i64) -> Vec<f32> {
    (0..n).map(|_| int_in(r, -k, k) as f32).collect()
}

/// Multiples of 1/8 in `[-k/8, k/8]`.
fn eighths(r: &mut Rng, n: usize, k: i64) -> Vec<f32> {
    (0..n).map(|_| int_in(r, -k, k) as f32 / 8.0).collect()
}

fn normals(r: &mut Rng, n: usize, scale: f64) -> Vec<f32> {
    (0..n).map(|_| (r.normal() * scale) as f32).collect()
}

fn i32s(r: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| mixed_i32(r)).collect()
}

fn f32s(v: impl IntoIterator<Item = f32>) -> Output {
    Output::exact(Data::F32(v.into_iter().collect()))
}

fn ints(v: impl IntoIterator<Item = i32>) -> Output {
    Output::exact(Data::I32(v.into_iter().collect()))
}

/// `keep[i]` for the elements of a `len`-element output at or beyond `n`.
fn keep_from(n: usize, len: usize) -> Vec<bool> {
    (0..len).map(|i| i >= n).collect()
}

fn bin<T: Copy, U>(x: &[T], y: &[T], f: impl Fn(T, T) -> U) -> Vec<U> {
    x.iter().zip(y).map(|(&a, &b)| f(a, b)).collect()
}

fn un<T: Copy, U>(x: &[T], f: impl Fn(T) -> U) -> Vec<U> {
    x.iter().map(|&a| f(a)).collect()
}

// -------------------------------------------------------------------------- elementwise

const EW_BLOCK: usize = 1024;

fn ew_f32(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    let mut x = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        // |y| in [0.5, 4); x = (k + f) y with |k| <= 50 and f in [0.05, 0.95]: x / y stays away
        // from integers, so remf (x - trunc(x / y) * y) has no quotient-rounding ambiguity.
        let yv = uniform(r, 0.5, 4.0) * if chance(r, 0.5) { -1.0 } else { 1.0 };
        let q = int_in(r, -50, 50) as f64 + uniform(r, 0.05, 0.95);
        let xv = (q * yv) as f32;
        x.push(xv);
        // Some ties, for cmpf olt and min/max.
        y.push(if chance(r, 0.05) { xv } else { yv as f32 });
    }
    let rem: Vec<f64> = bin(&x, &y, |a, b| (a as f64) % (b as f64));
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("y", Arg::In(Data::F32(y.clone()))),
            ("o_add", Arg::Out(f32s(bin(&x, &y, |a, b| a + b)))),
            ("o_sub", Arg::Out(f32s(bin(&x, &y, |a, b| a - b)))),
            ("o_mul", Arg::Out(f32s(bin(&x, &y, |a, b| a * b)))),
            // div.full.f32 is within 2 ulp of the correctly rounded quotient (PTX ISA), so up
            // to 2.5 ulp from the exact one: the reference is the rounded quotient.
            (
                "o_div",
                Arg::Out(Output::approx(
                    bin(&x, &y, |a, b| (a as f64 / b as f64) as f32 as f64),
                    2.0,
                    0.0,
                )),
            ),
            // x - trunc(x / y) * y with the product rounded: off by up to half an ulp of |x|.
            ("o_rem", Arg::Out(Output::approx(rem, 2.0, 2e-5))),
            ("o_min", Arg::Out(f32s(bin(&x, &y, f32::min)))),
            ("o_max", Arg::Out(f32s(bin(&x, &y, f32::max)))),
            (
                "o_sel",
                Arg::Out(f32s(bin(&x, &y, |a, b| if a < b { a } else { -b }))),
            ),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn ew_i32(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    let x = i32s(r, n);
    let y: Vec<i32> = x
        .iter()
        .map(|&a| {
            loop {
                let b = if chance(r, 0.05) { a } else { mixed_i32(r) };
                if b != 0 && !(a == i32::MIN && b == -1) {
                    break b;
                }
            }
        })
        .collect();
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::I32(x.clone()))),
            ("y", Arg::In(Data::I32(y.clone()))),
            ("o_add", Arg::Out(ints(bin(&x, &y, i32::wrapping_add)))),
            ("o_sub", Arg::Out(ints(bin(&x, &y, i32::wrapping_sub)))),
            ("o_mul", Arg::Out(ints(bin(&x, &y, i32::wrapping_mul)))),
            ("o_div", Arg::Out(ints(bin(&x, &y, |a, b| a / b)))),
            ("o_rem", Arg::Out(ints(bin(&x, &y, |a, b| a % b)))),
            ("o_min", Arg::Out(ints(bin(&x, &y, i32::min)))),
            ("o_max", Arg::Out(ints(bin(&x, &y, i32::max)))),
            (
                "o_sel",
                Arg::Out(ints(bin(&x, &y, |a, b| {
                    if a <= b {
                        a.wrapping_mul(3)
                    } else {
                        a.wrapping_sub(b)
                    }
                }))),
            ),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn ew_bits(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    let x = i32s(r, n);
    let y = i32s(r, n);
    let u = |v: i32| v as u32;
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::I32(x.clone()))),
            ("y", Arg::In(Data::I32(y.clone()))),
            ("o_and", Arg::Out(ints(bin(&x, &y, |a, b| a & b)))),
            ("o_or", Arg::Out(ints(bin(&x, &y, |a, b| a | b)))),
            ("o_xor", Arg::Out(ints(bin(&x, &y, |a, b| a ^ b)))),
            ("o_shl", Arg::Out(ints(bin(&x, &y, |a, b| a << (b & 31))))),
            ("o_shrsi", Arg::Out(ints(bin(&x, &y, |a, b| a >> (b & 31))))),
            (
                "o_shrui",
                Arg::Out(ints(bin(&x, &y, |a, b| (u(a) >> (b & 31)) as i32))),
            ),
            (
                "o_divui",
                Arg::Out(ints(bin(&x, &y, |a, b| (u(a) / u(b | 1)) as i32))),
            ),
            (
                "o_remui",
                Arg::Out(ints(bin(&x, &y, |a, b| (u(a) % u(b | 1)) as i32))),
            ),
            (
                "o_minui",
                Arg::Out(ints(bin(&x, &y, |a, b| u(a).min(u(b)) as i32))),
            ),
            (
                "o_maxui",
                Arg::Out(ints(bin(&x, &y, |a, b| u(a).max(u(b)) as i32))),
            ),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn math_f32(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    // x in [-10, 10), with some exact integers and halves for floor/ceil.
    let x: Vec<f32> = (0..n)
        .map(|_| {
            let v = uniform(r, -10.0, 10.0);
            if chance(r, 0.05) {
                (v * 2.0).round() as f32 / 2.0
            } else {
                v as f32
            }
        })
        .collect();
    // p log-uniform in [1e-3, 1e3].
    let p: Vec<f32> = (0..n)
        .map(|_| 10f64.powf(uniform(r, -3.0, 3.0)) as f32)
        .collect();
    let y = normals(r, n, 1.0);
    let f = |v: &[f32], g: fn(f64) -> f64| un(v, |a| g(a as f64));
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("p", Arg::In(Data::F32(p.clone()))),
            ("y", Arg::In(Data::F32(y.clone()))),
            // libdevice's bounds: expf 2, logf 1, log2f 1 ulp; exp2 is ex2.approx.ftz.f32, as
            // Triton's, which the H200 takes a little past 2 ulp (2.3 seen): 2.5.
            ("o_exp", Arg::Out(Output::approx(f(&x, f64::exp), 2.0, 0.0))),
            (
                "o_exp2",
                Arg::Out(Output::approx(f(&x, f64::exp2), EX2_APPROX_ULP, 0.0)),
            ),
            ("o_log", Arg::Out(Output::approx(f(&p, f64::ln), 1.0, 0.0))),
            (
                "o_log2",
                Arg::Out(Output::approx(f(&p, f64::log2), 1.0, 0.0)),
            ),
            (
                "o_sqrt",
                Arg::Out(Output::approx(f(&p, f64::sqrt), 1.0, 0.0)),
            ),
            (
                "o_rsqrt",
                Arg::Out(Output::approx(f(&p, |a| 1.0 / a.sqrt()), 2.0, 0.0)),
            ),
            ("o_abs", Arg::Out(f32s(un(&x, f32::abs)))),
            ("o_floor", Arg::Out(f32s(un(&x, f32::floor)))),
            ("o_ceil", Arg::Out(f32s(un(&x, f32::ceil)))),
            (
                "o_fma",
                Arg::Out(f32s((0..n).map(|i| x[i].mul_add(y[i], p[i])))),
            ),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn math_precise(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    let pi = std::f64::consts::PI;
    let x: Vec<f32> = (0..n).map(|_| uniform(r, -pi, pi) as f32).collect();
    let p: Vec<f32> = (0..n)
        .map(|_| 10f64.powf(uniform(r, -6.0, 6.0)) as f32)
        .collect();
    let y: Vec<f32> = (0..n)
        .map(|_| {
            loop {
                let v = r.normal() as f32;
                if v.abs() > 1e-3 {
                    break v;
                }
            }
        })
        .collect();
    let f = |v: &[f32], g: fn(f64) -> f64| un(v, |a| g(a as f64));
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("p", Arg::In(Data::F32(p.clone()))),
            ("y", Arg::In(Data::F32(y.clone()))),
            ("o_sqrt_rn", Arg::Out(f32s(un(&p, f32::sqrt)))),
            ("o_div_rn", Arg::Out(f32s(bin(&x, &y, |a, b| a / b)))),
            // sinf/cosf: 2 ulp (libdevice's bound).
            ("o_sin", Arg::Out(Output::approx(f(&x, f64::sin), 2.0, 0.0))),
            ("o_cos", Arg::Out(Output::approx(f(&x, f64::cos), 2.0, 0.0))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

/// A float from a wide mix: uniform on `[lo, hi]`, any magnitude from 2^-149 to 2^127 with either
/// sign, exact integers and halves, or a special value (±0, ±inf, NaN, subnormals, the largest
/// finite values).
fn wide_f32(r: &mut Rng, lo: f64, hi: f64) -> f32 {
    match int_in(r, 0, 9) {
        0..=3 => uniform(r, lo, hi) as f32,
        4 | 5 => {
            let m = uniform(r, -149.0, 127.5).exp2() as f32;
            if chance(r, 0.5) { -m } else { m }
        }
        6 => (uniform(r, lo, hi) * 2.0).round() as f32 / 2.0,
        7 => uniform(r, -1e-3, 1e-3) as f32,
        _ => {
            let specials = [
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::from_bits(1),
                -f32::from_bits(0x0040_0000),
                f32::MIN_POSITIVE,
                f32::MAX,
                -f32::MAX,
                1.0,
                -1.0,
                0.5,
                2.0,
            ];
            specials[int_in(r, 0, specials.len() as i64 - 1) as usize]
        }
    }
}

/// erf of the C library (std has none).
fn erf64(x: f64) -> f64 {
    unsafe extern "C" {
        fn erf(x: f64) -> f64;
    }
    // SAFETY: the C library's `erf` is defined for every double and touches no memory.
    unsafe { erf(x) }
}

fn math_f32_wide(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    let x: Vec<f32> = (0..n).map(|_| wide_f32(r, -110.0, 110.0)).collect();
    // Mostly positive, a few negative (NaN for the logs).
    let p: Vec<f32> = (0..n)
        .map(|_| {
            let v = wide_f32(r, 0.0, 4.0);
            if chance(r, 0.9) { v.abs() } else { v }
        })
        .collect();
    // pow exponents: mostly keeping |y·log2 p| ≤ 140, some integers, some anything.
    let y: Vec<f32> = p
        .iter()
        .map(|&b| {
            let l = (b as f64).abs().log2();
            match int_in(r, 0, 3) {
                0 | 1 if l.is_finite() && l.abs() > 1e-3 => (uniform(r, -140.0, 120.0) / l) as f32,
                2 => int_in(r, -40, 40) as f32,
                _ => wide_f32(r, -30.0, 30.0),
            }
        })
        .collect();
    let u: Vec<f32> = (0..n).map(|_| wide_f32(r, -1.05, 1.05)).collect();
    let f = |v: &[f32], g: fn(f64) -> f64| un(v, |a| g(a as f64));
    // pow's reference: C99's special cases hold for f64::powf too.
    let pow: Vec<f64> = bin(&p, &y, |a, b| (a as f64).powf(b as f64));
    let approx = |want: Vec<f64>, ulps: f64| Arg::Out(Output::approx(want, ulps, 0.0));
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("p", Arg::In(Data::F32(p.clone()))),
            ("y", Arg::In(Data::F32(y.clone()))),
            ("u", Arg::In(Data::F32(u.clone()))),
            ("o_exp", approx(f(&x, f64::exp), 2.0)),
            // ex2.approx.ftz, as Triton: results below 2^-126 flush to zero.
            (
                "o_exp2",
                Arg::Out(Output::approx(
                    f(&x, f64::exp2),
                    EX2_APPROX_ULP,
                    f32::MIN_POSITIVE as f64,
                )),
            ),
            ("o_expm1", approx(f(&x, f64::exp_m1), 1.0)),
            ("o_erf", approx(f(&x, erf64), 2.0)),
            ("o_tanh", approx(f(&x, f64::tanh), 2.0)),
            ("o_sinh", approx(f(&x, f64::sinh), 3.0)),
            ("o_cosh", approx(f(&x, f64::cosh), 2.0)),
            ("o_sin", approx(f(&x, f64::sin), 2.0)),
            ("o_cos", approx(f(&x, f64::cos), 2.0)),
            ("o_tan", approx(f(&x, f64::tan), 4.0)),
            ("o_atan", approx(f(&x, f64::atan), 2.0)),
            ("o_cbrt", approx(f(&x, f64::cbrt), 1.0)),
            ("o_log1p", approx(f(&x, f64::ln_1p), 1.0)),
            ("o_asin", approx(f(&u, f64::asin), 2.0)),
            ("o_acos", approx(f(&u, f64::acos), 2.0)),
            (
                "o_atan2",
                approx(bin(&x, &u, |a, b| (a as f64).atan2(b as f64)), 3.0),
            ),
            ("o_log", approx(f(&p, f64::ln), 1.0)),
            ("o_log2", approx(f(&p, f64::log2), 1.0)),
            ("o_log10", approx(f(&p, f64::log10), 2.0)),
            ("o_rsqrt", approx(f(&p, |a| 1.0 / a.sqrt()), 2.0)),
            ("o_sqrt", approx(f(&p, f64::sqrt), 0.5)),
            ("o_pow", approx(pow, 4.0)),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

// ----------------------------------------------------------------------- loads and stores

fn load_other(r: &mut Rng) -> Case {
    let n = ragged(r, 20_000, 80_000, EW_BLOCK);
    let len = n.div_ceil(EW_BLOCK) * EW_BLOCK;
    let x = normals(r, n, 1.0);
    let xi = i32s(r, n);
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("xi", Arg::In(Data::I32(xi.clone()))),
            (
                "out",
                Arg::Out(f32s((0..len).map(|i| x.get(i).copied().unwrap_or(-7.5)))),
            ),
            (
                "outi",
                Arg::Out(ints((0..len).map(|i| xi.get(i).copied().unwrap_or(-123)))),
            ),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n} outputs={len}"),
    }
}

fn store_mask(r: &mut Rng) -> Case {
    let n = ragged(r, 20_000, 80_000, EW_BLOCK);
    let len = n.div_ceil(EW_BLOCK) * EW_BLOCK;
    let x = normals(r, n, 1.0);
    let out: Vec<f32> = (0..len)
        .map(|i| x.get(i).map_or(0.0, |&v| v * 2.0 + 1.0))
        .collect();
    let outp: Vec<f32> = (0..len).map(|i| x.get(i).map_or(0.0, |&v| v)).collect();
    let keep_p: Vec<bool> = (0..len)
        .map(|i| x.get(i).is_none_or(|&v| v <= 0.0))
        .collect();
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out", Arg::Out(f32s(out).keeping(keep_from(n, len)))),
            ("outp", Arg::Out(f32s(outp).keeping(keep_p))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n} outputs={len}"),
    }
}

fn casts(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    // f: normals scaled by 2^-26..2^17 (f16 subnormals, underflow and overflow; in i32
    // range), plus exact midpoints between adjacent f16 values (ties to even).
    let f: Vec<f32> = (0..n)
        .map(|_| {
            if chance(r, 0.05) {
                let h = int_in(r, 0, 0x7bfe) as u16 | if chance(r, 0.5) { 0x8000 } else { 0 };
                (f16_to_f32(h) + f16_to_f32(h + 1)) / 2.0
            } else {
                (r.normal() * 2f64.powi(int_in(r, -26, 17) as i32)) as f32
            }
        })
        .collect();
    let i = i32s(r, n);
    // h: any f16 bit pattern but NaN.
    let h: Vec<u16> = (0..n)
        .map(|_| {
            loop {
                let b = r.next_u64() as u16;
                if b & 0x7c00 != 0x7c00 || b & 0x03ff == 0 {
                    break b;
                }
            }
        })
        .collect();
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("f", Arg::In(Data::F32(f.clone()))),
            ("i", Arg::In(Data::I32(i.clone()))),
            ("h", Arg::In(Data::F16(h.clone()))),
            ("o_sitofp", Arg::Out(f32s(un(&i, |v| v as f32)))),
            ("o_fptosi", Arg::Out(ints(un(&f, |v| v as i32)))),
            ("o_extf", Arg::Out(f32s(un(&h, f16_to_f32)))),
            (
                "o_truncf",
                Arg::Out(Output::exact(Data::F16(un(&f, f32_to_f16)))),
            ),
            (
                "o_ext64",
                Arg::Out(Output::exact(Data::I64(un(&i, |v| v as i64)))),
            ),
            (
                "o_tr8",
                Arg::Out(Output::exact(Data::I8(un(&i, |v| v as i8)))),
            ),
            ("o_sext8", Arg::Out(ints(un(&i, |v| v as i8 as i32)))),
            ("o_zext16", Arg::Out(ints(un(&i, |v| v as u16 as i32)))),
            ("o_uitofp", Arg::Out(f32s(un(&i, |v| v as u32 as f32)))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn scalar_store(r: &mut Rng) -> Case {
    let g = int_in(r, 50, 400) as usize;
    let x = normals(r, g, 1.0);
    // s = m / 4: p * s is exact, so the only rounding is the add (fused or not).
    let s = int_in(r, -40, 40) as f32 / 4.0;
    let k = mixed_i32(r);
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("out", Arg::Out(f32s((0..g).map(|p| p as f32 * s + x[p])))),
            (
                "outi",
                Arg::Out(ints((0..g).map(|p| ((p * p) as i32).wrapping_add(k)))),
            ),
            ("s", Arg::F32(s)),
            ("k", Arg::I32(k)),
        ],
        note: format!("programs={g} s={s} k={k}"),
    }
}

// ---------------------------------------------------------------------------- reductions

/// Index of the first largest element (what a (value, index) reduce preferring the lower
/// index on ties returns).
pub(super) fn argmax_first(v: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

fn reduce_1d(r: &mut Rng) -> Case {
    let n = ragged(r, 20_000, 100_000, EW_BLOCK);
    let g = n.div_ceil(EW_BLOCK);
    // Integers in [-50, 50]: sums exact, many ties for argmax.
    let x = small_ints(r, n, 50);
    let xi = i32s(r, n);
    let blocks = |i: usize| i * EW_BLOCK..((i + 1) * EW_BLOCK).min(n);
    let mut sum = Vec::new();
    let mut max = Vec::new();
    let mut amax_v = Vec::new();
    let mut amax_i = Vec::new();
    let mut isum = Vec::new();
    let mut ixor = Vec::new();
    for b in 0..g {
        let xs = &x[blocks(b)];
        let is = &xi[blocks(b)];
        sum.push(xs.iter().map(|&v| v as f64).sum::<f64>() as f32);
        max.push(xs.iter().copied().fold(f32::NEG_INFINITY, f32::max));
        let a = argmax_first(xs);
        amax_v.push(xs[a]);
        amax_i.push((b * EW_BLOCK + a) as i32);
        isum.push(is.iter().fold(0i32, |s, &v| s.wrapping_add(v)));
        ixor.push(is.iter().fold(0i32, |s, &v| s ^ v));
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("xi", Arg::In(Data::I32(xi))),
            ("o_sum", Arg::Out(f32s(sum))),
            ("o_max", Arg::Out(f32s(max))),
            ("o_amax_v", Arg::Out(f32s(amax_v))),
            ("o_amax_i", Arg::Out(ints(amax_i))),
            ("o_isum", Arg::Out(ints(isum))),
            ("o_ixor", Arg::Out(ints(ixor))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn reduce_2d(r: &mut Rng) -> Case {
    const R: usize = 32;
    const C: usize = 64;
    let g = int_in(r, 20, 200) as usize;
    let x = eighths(r, g * R * C, 800);
    let mut sum0 = vec![0f32; g * C];
    let mut max0 = vec![f32::NEG_INFINITY; g * C];
    let mut sum1 = vec![0f32; g * R];
    let mut max1 = vec![f32::NEG_INFINITY; g * R];
    let mut ctr = vec![0f32; g * R * C];
    for t in 0..g {
        let tile = &x[t * R * C..(t + 1) * R * C];
        for i in 0..R {
            for j in 0..C {
                let v = tile[i * C + j];
                sum0[t * C + j] += v;
                max0[t * C + j] = max0[t * C + j].max(v);
                sum1[t * R + i] += v;
                max1[t * R + i] = max1[t * R + i].max(v);
            }
        }
        for i in 0..R {
            for j in 0..C {
                ctr[t * R * C + i * C + j] = tile[i * C + j] - max1[t * R + i];
            }
        }
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("o_sum0", Arg::Out(f32s(sum0))),
            ("o_sum1", Arg::Out(f32s(sum1))),
            ("o_max0", Arg::Out(f32s(max0))),
            ("o_max1", Arg::Out(f32s(max1))),
            ("o_ctr", Arg::Out(f32s(ctr))),
        ],
        note: format!("tiles={g}x32x64"),
    }
}

// ------------------------------------------------------------------- 2-D tiles and layouts

fn copy_2d(r: &mut Rng) -> Case {
    let m = ragged(r, 33, 300, 32);
    let n = ragged(r, 65, 400, 64);
    let sx = n + int_in(r, 0, 9) as usize;
    let so = n + int_in(r, 1, 9) as usize;
    let x = normals(r, m * sx, 1.0);
    let mut out = vec![0f32; m * so];
    let mut keep = vec![true; m * so];
    for i in 0..m {
        for j in 0..n {
            out[i * so + j] = x[i * sx + j];
            keep[i * so + j] = false;
        }
    }
    Case {
        grid: (m.div_ceil(32) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out", Arg::Out(f32s(out).keeping(keep))),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
            ("sx", Arg::I32(sx as i32)),
            ("so", Arg::I32(so as i32)),
        ],
        note: format!("M={m} N={n} sx={sx} so={so}"),
    }
}

fn transpose(r: &mut Rng) -> Case {
    let m = ragged(r, 65, 400, 64);
    let n = ragged(r, 65, 400, 64);
    let x = normals(r, m * n, 1.0);
    let mut out = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            out[j * m + i] = x[i * n + j];
        }
    }
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out", Arg::Out(f32s(out))),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
        ],
        note: format!("M={m} N={n}"),
    }
}

// --------------------------------------------------------------------------- control flow

fn for_accum(r: &mut Rng) -> Case {
    const B: usize = 128;
    let rows = int_in(r, 20, 120) as usize;
    let l = ragged(r, 300, 2000, B);
    let stride = l + int_in(r, 0, 17) as usize;
    let x = eighths(r, rows * stride, 800);
    let mut out = Vec::new();
    let mut outv = vec![0f32; rows * B];
    for row in 0..rows {
        let xs = &x[row * stride..row * stride + l];
        for (j, &v) in xs.iter().enumerate() {
            outv[row * B + j % B] += v;
        }
        out.push(xs.iter().sum::<f32>());
    }
    let trips = l.div_ceil(B) as i32;
    Case {
        grid: (rows as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out", Arg::Out(f32s(out))),
            ("outc", Arg::Out(ints(vec![trips; rows]))),
            ("outv", Arg::Out(f32s(outv))),
            ("L", Arg::I32(l as i32)),
            ("stride", Arg::I32(stride as i32)),
        ],
        note: format!("rows={rows} L={l} stride={stride}"),
    }
}

fn online_softmax(r: &mut Rng) -> Case {
    let rows = int_in(r, 20, 80) as usize;
    // Short rows (a few threads hold every element) as often as long ones.
    let lens: Vec<usize> = (0..rows)
        .map(|_| {
            if chance(r, 0.4) {
                int_in(r, 1, 200) as usize
            } else {
                int_in(r, 201, 5000) as usize
            }
        })
        .collect();
    let stride = 5000 + int_in(r, 0, 17) as usize;
    let x = normals(r, rows * stride, 8.0);
    let mut maxes = Vec::new();
    let mut sums = Vec::new();
    for (row, &len) in lens.iter().enumerate() {
        let xs = &x[row * stride..row * stride + len];
        let top = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        maxes.push(top);
        sums.push(
            xs.iter()
                .map(|&v| (v as f64 - top as f64).exp())
                .sum::<f64>(),
        );
    }
    Case {
        grid: (rows as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            (
                "lens",
                Arg::In(Data::I32(lens.iter().map(|&n| n as i32).collect())),
            ),
            ("out_max", Arg::Out(f32s(maxes))),
            // Each term within expf's 2 ulp, up to ~40 a thread summed in order, then across
            // threads: 16 ulp of the sum (a wrong rescale or merge is off by far more).
            ("out_sum", Arg::Out(Output::approx(sums, 16.0, 0.0))),
            ("stride", Arg::I32(stride as i32)),
        ],
        note: format!("rows={rows} stride={stride}"),
    }
}

fn reduce_in_loop(r: &mut Rng) -> Case {
    const B: usize = 128;
    let rows = int_in(r, 20, 120) as usize;
    let l = ragged(r, 300, 2000, B);
    let stride = l + int_in(r, 0, 17) as usize;
    let x = eighths(r, rows * stride, 800);
    let mut sums = Vec::new();
    let mut maxes = Vec::new();
    for row in 0..rows {
        let xs = &x[row * stride..row * stride + l];
        sums.push(xs.iter().sum::<f32>());
        maxes.push(xs.iter().copied().fold(f32::NEG_INFINITY, f32::max));
    }
    Case {
        grid: (rows as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out_sum", Arg::Out(f32s(sums))),
            ("out_max", Arg::Out(f32s(maxes))),
            ("L", Arg::I32(l as i32)),
            ("stride", Arg::I32(stride as i32)),
        ],
        note: format!("rows={rows} L={l} stride={stride}"),
    }
}

fn fused_row_sums(r: &mut Rng) -> Case {
    // reduce_in_loop's rows, walked by fewer programs than rows: each takes several (the fused
    // loop's outer iterations).
    let mut case = reduce_in_loop(r);
    let rows = case.grid.0;
    let programs = int_in(r, 3, 11) as u32;
    case.grid = (programs, 1, 1);
    case.args.insert(3, ("rows", Arg::I32(rows as i32)));
    case.note = format!("{} programs={programs}", case.note);
    case
}

fn if_else(r: &mut Rng) -> Case {
    let n = ragged(r, 20_000, 80_000, EW_BLOCK);
    let x = normals(r, n, 1.0);
    let prog = |i: usize| i / EW_BLOCK;
    let out: Vec<f32> = (0..n)
        .map(|i| {
            if prog(i) % 2 == 0 {
                x[i] * 2.0
            } else {
                x[i] + 1.0
            }
        })
        .collect();
    let out2: Vec<f32> = un(&x, |v| v - 3.0);
    let keep2: Vec<bool> = (0..n).map(|i| prog(i) % 3 != 0).collect();
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out", Arg::Out(f32s(out))),
            ("out2", Arg::Out(f32s(out2).keeping(keep2))),
            ("n", Arg::I32(n as i32)),
            ("flag", Arg::I32(1)),
        ],
        note: format!("n={n}"),
    }
}

// ---------------------------------------------------------------------------------- dots

/// `C = A @ B + C0` for row-major `A` (`m x k`) and `B` (`k x n`) given as f32 values,
/// accumulated in f64 and rounded once (exact for the small integers the cases use).
pub(super) fn matmul_ref(
    a: &[f32],
    b: &[f32],
    c0: Option<&[f32]>,
    m: usize,
    n: usize,
    k: usize,
) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = c0.map_or(0.0, |c0| c0[i * n + j] as f64);
            for l in 0..k {
                s += a[i * k + l] as f64 * b[l * n + j] as f64;
            }
            c[i * n + j] = s as f32;
        }
    }
    c
}

fn dot_f32(r: &mut Rng) -> Case {
    const S: usize = 32;
    let g = int_in(r, 2, 16) as usize;
    let a = small_ints(r, g * S * S, 8);
    let b = small_ints(r, g * S * S, 8);
    let mut c = Vec::new();
    for p in 0..g {
        let t = p * S * S..(p + 1) * S * S;
        c.extend(matmul_ref(&a[t.clone()], &b[t], None, S, S, S));
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("a", Arg::In(Data::F32(a))),
            ("b", Arg::In(Data::F32(b))),
            ("c", Arg::Out(f32s(c))),
        ],
        note: format!("batch={g} 32x32x32"),
    }
}

fn dot_batched(r: &mut Rng) -> Case {
    const M: usize = 32;
    const N: usize = 32;
    const K: usize = 16;
    let g = int_in(r, 2, 16) as usize;
    // Each program holds 2 batches; A and B use the same per-program stride (2*M*K = 2*K*N).
    let a = small_ints(r, g * 2 * M * K, 8);
    let b = small_ints(r, g * 2 * K * N, 8);
    let mut c = Vec::new();
    for batch in 0..g * 2 {
        let ta = batch * M * K..(batch + 1) * M * K;
        let tb = batch * K * N..(batch + 1) * K * N;
        c.extend(matmul_ref(&a[ta], &b[tb], None, M, N, K));
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("a", Arg::In(Data::F32(a))),
            ("b", Arg::In(Data::F32(b))),
            ("c", Arg::Out(f32s(c))),
        ],
        note: format!("programs={g} 2x32x16*2x16x32"),
    }
}

fn dot_batched_f16(r: &mut Rng) -> Case {
    const M: usize = 32;
    const N: usize = 32;
    const K: usize = 16;
    let g = int_in(r, 2, 16) as usize;
    // Products up to 64, sums of 16 up to 1024: exact in f16 inputs and f32 accumulation.
    let a = f16_ints(r, g * 2 * M * K, 8);
    let b = f16_ints(r, g * 2 * K * N, 8);
    let (af, bf) = (un(&a, f16_to_f32), un(&b, f16_to_f32));
    let mut c = Vec::new();
    for batch in 0..g * 2 {
        let ta = batch * M * K..(batch + 1) * M * K;
        let tb = batch * K * N..(batch + 1) * K * N;
        c.extend(matmul_ref(&af[ta], &bf[tb], None, M, N, K));
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("a", Arg::In(Data::F16(a))),
            ("b", Arg::In(Data::F16(b))),
            ("c", Arg::Out(f32s(c))),
        ],
        note: format!("programs={g} 2x32x16*2x16x32 f16"),
    }
}

fn f16_ints(r: &mut Rng, n: usize, k: i64) -> Vec<u16> {
    (0..n)
        .map(|_| f32_to_f16(int_in(r, -k, k) as f32))
        .collect()
}

fn dot_f16(r: &mut Rng) -> Case {
    const M: usize = 64;
    const N: usize = 64;
    const K: usize = 32;
    let g = int_in(r, 2, 12) as usize;
    // Products up to 256, sums up to 8192 + 1000: beyond f16's exact integers (2048), so an
    // f16 accumulator would show, while f32 accumulation is exact.
    let a = f16_ints(r, g * M * K, 16);
    let b = f16_ints(r, g * K * N, 16);
    let acc = small_ints(r, g * M * N, 1000);
    let af = un(&a, f16_to_f32);
    let bf = un(&b, f16_to_f32);
    let mut c = Vec::new();
    for p in 0..g {
        c.extend(matmul_ref(
            &af[p * M * K..(p + 1) * M * K],
            &bf[p * K * N..(p + 1) * K * N],
            Some(&acc[p * M * N..(p + 1) * M * N]),
            M,
            N,
            K,
        ));
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("a", Arg::In(Data::F16(a))),
            ("b", Arg::In(Data::F16(b))),
            ("acc", Arg::In(Data::F32(acc))),
            ("c", Arg::Out(f32s(c))),
        ],
        note: format!("batch={g} 64x64x32"),
    }
}

fn matmul_loop(r: &mut Rng) -> Case {
    matmul_loop_strided(r, 1)
}

/// `matmul_loop` with N, K and the row strides multiples of 16, as the kernels declaring
/// `tt.divisibility = 16` on them need: their loads can then be copied asynchronously.
fn matmul_loop_aligned(r: &mut Rng) -> Case {
    matmul_loop_strided(r, 16)
}

/// `matmul_loop_aligned`'s tiles taken by a few programs, each walking several (and some
/// none, when there are more programs than tiles).
fn persistent_matmul(r: &mut Rng) -> Case {
    let mut case = matmul_loop_aligned(r);
    let tiles = case.grid.0 * case.grid.1;
    let programs = int_in(r, 2, 9) as u32;
    case.grid = (programs, 1, 1);
    case.note = format!("{} tiles={tiles} programs={programs}", case.note);
    case
}

fn matmul_loop_strided(r: &mut Rng, align: usize) -> Case {
    let m = ragged(r, 65, 300, 64);
    let n = ragged(r, 65, 300, 64).next_multiple_of(align);
    let k = ragged(r, 33, 260, 32).next_multiple_of(align);
    let (sa, sb, sc) = (
        (k + int_in(r, 0, 8) as usize).next_multiple_of(align),
        (n + int_in(r, 0, 8) as usize).next_multiple_of(align),
        (n + int_in(r, 1, 8) as usize).next_multiple_of(align),
    );
    let a = f16_ints(r, m * sa, 4);
    let b = f16_ints(r, k * sb, 4);
    let dense = |src: &[u16], rows: usize, cols: usize, stride: usize| -> Vec<f32> {
        (0..rows * cols)
            .map(|e| f16_to_f32(src[(e / cols) * stride + e % cols]))
            .collect()
    };
    let cf = matmul_ref(&dense(&a, m, k, sa), &dense(&b, k, n, sb), None, m, n, k);
    let (c, keep) = strided_f16_output(&cf, m, n, sc);
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("a", Arg::In(Data::F16(a))),
            ("b", Arg::In(Data::F16(b))),
            ("c", Arg::Out(Output::exact(Data::F16(c)).keeping(keep))),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
            ("K", Arg::I32(k as i32)),
            ("sa", Arg::I32(sa as i32)),
            ("sb", Arg::I32(sb as i32)),
            ("sc", Arg::I32(sc as i32)),
        ],
        note: format!("M={m} N={n} K={k}"),
    }
}

/// A row stride of at least `n` elements whose bytes are a multiple of 16 (TMA's rule), with
/// some padding.
fn tma_stride(r: &mut Rng, n: usize, elem_bytes: usize) -> usize {
    let unit = 16 / elem_bytes;
    n.div_ceil(unit) * unit + unit * int_in(r, 0, 2) as usize
}

/// The elements a TMA store may write past the last column `n` of an `m`-row tensor of row
/// stride `ld`: the rest of the 16-byte chunk the row ends in (the hardware stores whole
/// chunks; Triton documents the same limitation). The kernels write there what they compute
/// for the zeros TMA loads read out of bounds.
fn tma_chunk_tail(m: usize, n: usize, ld: usize, elem_bytes: usize) -> Vec<bool> {
    let end = n.next_multiple_of(16 / elem_bytes).min(ld);
    let mut tail = vec![false; m * ld];
    for i in 0..m {
        tail[i * ld + n..i * ld + end].fill(true);
    }
    tail
}

fn tma_copy(r: &mut Rng) -> Case {
    let m = ragged(r, 65, 300, 64);
    let n = ragged(r, 65, 300, 64);
    let ld = tma_stride(r, n, 4);
    let x = eighths(r, m * ld, 800);
    let init = eighths(r, m * ld, 800);
    let mut out = vec![0f32; m * ld];
    let mut acc = init.clone();
    let mut keep = vec![true; m * ld];
    for i in 0..m {
        for j in 0..n {
            let e = i * ld + j;
            out[e] = 2.0 * x[e];
            acc[e] += x[e];
            keep[e] = false;
        }
    }
    let tail = tma_chunk_tail(m, n, ld, 4);
    for (e, _) in tail.iter().enumerate().filter(|(_, t)| **t) {
        (out[e], keep[e]) = (0.0, false);
    }
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            (
                "out",
                Arg::Out(f32s(out).keeping(keep.clone()).or_untouched(tail.clone())),
            ),
            (
                "acc",
                Arg::Out(
                    f32s(acc)
                        .keeping(keep)
                        .or_untouched(tail)
                        .starting_from(Data::F32(init)),
                ),
            ),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
            ("ld", Arg::I32(ld as i32)),
        ],
        note: format!("M={m} N={n} ld={ld}"),
    }
}

fn tma_bf16(r: &mut Rng) -> Case {
    let m = ragged(r, 65, 300, 64);
    let n = ragged(r, 65, 300, 64);
    let ld = tma_stride(r, n, 2);
    // bf16 bit patterns of small integers (exact), as the upper halves of their f32 bits.
    let x: Vec<u16> = (0..m * ld)
        .map(|_| ((int_in(r, -1000, 1000) as f32).to_bits() >> 16) as u16)
        .collect();
    let mut out = vec![0u16; m * ld];
    let mut keep = vec![true; m * ld];
    for i in 0..m {
        for j in 0..n {
            out[i * ld + j] = x[i * ld + j];
            keep[i * ld + j] = false;
        }
    }
    let tail = tma_chunk_tail(m, n, ld, 2);
    for (e, _) in tail.iter().enumerate().filter(|(_, t)| **t) {
        (out[e], keep[e]) = (0, false);
    }
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("x", Arg::In(Data::Bf16(x))),
            (
                "out",
                Arg::Out(
                    Output::exact(Data::Bf16(out))
                        .keeping(keep)
                        .or_untouched(tail),
                ),
            ),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
            ("ld", Arg::I32(ld as i32)),
        ],
        note: format!("M={m} N={n} ld={ld}"),
    }
}

fn tma_host(r: &mut Rng) -> Case {
    let m = ragged(r, 65, 300, 64);
    let n = ragged(r, 65, 300, 64);
    let (sx, so) = (tma_stride(r, n, 2), tma_stride(r, n, 2));
    let x = f16_ints(r, m * sx, 1000);
    let mut out = vec![0u16; m * so];
    let mut keep = vec![true; m * so];
    for i in 0..m {
        for j in 0..n {
            out[i * so + j] = f32_to_f16(f16_to_f32(x[i * sx + j]) + 1.0);
            keep[i * so + j] = false;
        }
    }
    let tail = tma_chunk_tail(m, n, so, 2);
    for (e, _) in tail.iter().enumerate().filter(|(_, t)| **t) {
        (out[e], keep[e]) = (f32_to_f16(1.0), false);
    }
    let desc = |buffer: Arg, stride: usize| Arg::Desc {
        buffer: Box::new(buffer),
        shape: vec![m as u64, n as u64],
        strides: vec![stride as u64, 1],
    };
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("xd", desc(Arg::In(Data::F16(x)), sx)),
            ("xd_m", Arg::I32(m as i32)),
            ("xd_n", Arg::I32(n as i32)),
            ("xd_sm", Arg::I64(sx as i64)),
            ("xd_sn", Arg::I64(1)),
            (
                "od",
                desc(
                    Arg::Out(
                        Output::exact(Data::F16(out))
                            .keeping(keep)
                            .or_untouched(tail),
                    ),
                    so,
                ),
            ),
            ("od_m", Arg::I32(m as i32)),
            ("od_n", Arg::I32(n as i32)),
            ("od_sm", Arg::I64(so as i64)),
            ("od_sn", Arg::I64(1)),
        ],
        note: format!("M={m} N={n} sx={sx} so={so}"),
    }
}

fn tma_matmul(r: &mut Rng) -> Case {
    let m = ragged(r, 65, 300, 64);
    let n = ragged(r, 65, 300, 64);
    let k = ragged(r, 65, 260, 64);
    let (sa, sb, sc) = (
        tma_stride(r, k, 2),
        tma_stride(r, n, 2),
        tma_stride(r, n, 2),
    );
    let a = f16_ints(r, m * sa, 4);
    let b = f16_ints(r, k * sb, 4);
    let dense = |src: &[u16], rows: usize, cols: usize, stride: usize| -> Vec<f32> {
        (0..rows * cols)
            .map(|e| f16_to_f32(src[(e / cols) * stride + e % cols]))
            .collect()
    };
    let cf = matmul_ref(&dense(&a, m, k, sa), &dense(&b, k, n, sb), None, m, n, k);
    let (c, mut keep) = strided_f16_output(&cf, m, n, sc);
    // Past N the tiles of B read zeros: the chunk tail gets 0.
    let tail = tma_chunk_tail(m, n, sc, 2);
    for (e, _) in tail.iter().enumerate().filter(|(_, t)| **t) {
        keep[e] = false;
    }
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("a", Arg::In(Data::F16(a))),
            ("b", Arg::In(Data::F16(b))),
            (
                "c",
                Arg::Out(Output::exact(Data::F16(c)).keeping(keep).or_untouched(tail)),
            ),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
            ("K", Arg::I32(k as i32)),
            ("sa", Arg::I32(sa as i32)),
            ("sb", Arg::I32(sb as i32)),
            ("sc", Arg::I32(sc as i32)),
        ],
        note: format!("M={m} N={n} K={k}"),
    }
}

/// An m x n f32 result stored as f16 rows of stride `sc`, and which elements the kernel must
/// leave untouched (the padding past `n`).
fn strided_f16_output(cf: &[f32], m: usize, n: usize, sc: usize) -> (Vec<u16>, Vec<bool>) {
    let mut c = vec![0u16; m * sc];
    let mut keep = vec![true; m * sc];
    for i in 0..m {
        for j in 0..n {
            c[i * sc + j] = f32_to_f16(cf[i * n + j]);
            keep[i * sc + j] = false;
        }
    }
    (c, keep)
}

fn dot_block_ptr(r: &mut Rng) -> Case {
    let m = ragged(r, 65, 300, 64);
    let n = ragged(r, 65, 300, 64);
    let k = ragged(r, 33, 260, 32);
    let (sa, sb, sc) = (
        k + int_in(r, 0, 8) as usize,
        k + int_in(r, 0, 8) as usize,
        n + int_in(r, 1, 8) as usize,
    );
    let a = f16_ints(r, m * sa, 4);
    // B is given transposed: element (kk, j) at j * sb + kk.
    let bt = f16_ints(r, n * sb, 4);
    let af: Vec<f32> = (0..m * k)
        .map(|e| f16_to_f32(a[(e / k) * sa + e % k]))
        .collect();
    let bf: Vec<f32> = (0..k * n)
        .map(|e| f16_to_f32(bt[(e % n) * sb + e / n]))
        .collect();
    let cf = matmul_ref(&af, &bf, None, m, n, k);
    let (c, keep) = strided_f16_output(&cf, m, n, sc);
    Case {
        grid: (m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1),
        args: vec![
            ("a", Arg::In(Data::F16(a))),
            ("b", Arg::In(Data::F16(bt))),
            ("c", Arg::Out(Output::exact(Data::F16(c)).keeping(keep))),
            ("M", Arg::I32(m as i32)),
            ("N", Arg::I32(n as i32)),
            ("K", Arg::I32(k as i32)),
            ("sa", Arg::I32(sa as i32)),
            ("sb", Arg::I32(sb as i32)),
            ("sc", Arg::I32(sc as i32)),
        ],
        note: format!("M={m} N={n} K={k}"),
    }
}

// ---------------------------------------------------------------------------------- grids

fn program_ids(r: &mut Rng) -> Case {
    let (nx, ny, nz) = (int_in(r, 1, 9), int_in(r, 1, 5), int_in(r, 1, 4));
    let mut out = Vec::new();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                out.extend([x, y, z, nx, ny, nz].map(|v| v as i32));
            }
        }
    }
    Case {
        grid: (nx as u32, ny as u32, nz as u32),
        args: vec![("out", Arg::Out(ints(out)))],
        note: format!("{} programs", nx * ny * nz),
    }
}

fn grid_stride(r: &mut Rng) -> Case {
    const B: usize = 256;
    let n = ragged(r, 10_000, 80_000, B);
    let nblocks = n.div_ceil(B);
    let programs = int_in(r, 3, 17) as u32;
    let x = normals(r, n, 1.0);
    let out: Vec<f32> = (0..n).map(|i| x[i] + (i / B) as f32).collect();
    Case {
        grid: (programs, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("out", Arg::Out(f32s(out))),
            ("n", Arg::I32(n as i32)),
            ("nblocks", Arg::I32(nblocks as i32)),
        ],
        note: format!("n={n} blocks={nblocks}"),
    }
}

// ------------------------------------------------------------------------------- atomics

fn atomics(r: &mut Rng) -> Case {
    const BINS: usize = 37;
    let n = ragged(r, 5_000, 40_000, EW_BLOCK);
    let x = small_ints(r, n, 8);
    let xi = i32s(r, n);
    let f0 = small_ints(r, BINS, 100);
    let inits: Vec<Vec<i32>> = (0..7).map(|_| i32s(r, BINS)).collect();
    let mut fsum = f0.clone();
    let mut acc = inits.clone();
    for i in 0..n {
        let b = i % BINS;
        let v = xi[i];
        fsum[b] += x[i];
        acc[0][b] = acc[0][b].wrapping_add(v);
        acc[1][b] = acc[1][b].max(v);
        acc[2][b] = acc[2][b].min(v);
        acc[3][b] = (acc[3][b] as u32).max(v as u32) as i32;
        acc[4][b] &= v;
        acc[5][b] |= v;
        acc[6][b] ^= v;
    }
    let out = |k: usize| Arg::Out(ints(acc[k].clone()).starting_from(Data::I32(inits[k].clone())));
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("xi", Arg::In(Data::I32(xi))),
            ("fsum", Arg::Out(f32s(fsum).starting_from(Data::F32(f0)))),
            ("isum", out(0)),
            ("imax", out(1)),
            ("imin", out(2)),
            ("umax", out(3)),
            ("iand", out(4)),
            ("ior", out(5)),
            ("ixor", out(6)),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n} bins={BINS}"),
    }
}

fn atomic_cas(r: &mut Rng) -> Case {
    let n = ragged(r, 10_000, 60_000, EW_BLOCK);
    let len = n.div_ceil(EW_BLOCK) * EW_BLOCK;
    let buf0 = i32s(r, len);
    let cmp: Vec<i32> = buf0
        .iter()
        .map(|&b| if chance(r, 0.5) { b } else { b ^ 1 })
        .collect();
    let val = i32s(r, len);
    let xbuf0 = i32s(r, len);
    let buf: Vec<i32> = (0..len)
        .map(|i| if cmp[i] == buf0[i] { val[i] } else { buf0[i] })
        .collect();
    let xbuf: Vec<i32> = (0..len)
        .map(|i| if i < n { val[i] } else { xbuf0[i] })
        .collect();
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("cmp", Arg::In(Data::I32(cmp))),
            ("val", Arg::In(Data::I32(val))),
            (
                "buf",
                Arg::Out(ints(buf).starting_from(Data::I32(buf0.clone()))),
            ),
            ("old", Arg::Out(ints(buf0))),
            (
                "xbuf",
                Arg::Out(ints(xbuf).starting_from(Data::I32(xbuf0.clone()))),
            ),
            ("xold", Arg::Out(ints(xbuf0).keeping(keep_from(n, len)))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n} range={len}"),
    }
}

// --------------------------------------------------------- scan, histogram, gather, shapes

fn scan(r: &mut Rng) -> Case {
    let n = ragged(r, 20_000, 80_000, EW_BLOCK);
    let x = eighths(r, n, 800);
    let xi = i32s(r, n);
    let mut cs = vec![0f32; n];
    let mut rs = vec![0f32; n];
    let mut cm = vec![0i32; n];
    for start in (0..n).step_by(EW_BLOCK) {
        let end = (start + EW_BLOCK).min(n);
        let (mut s, mut m) = (0f32, i32::MIN);
        for i in start..end {
            s += x[i];
            cs[i] = s;
            m = m.max(xi[i]);
            cm[i] = m;
        }
        s = 0.0;
        for i in (start..end).rev() {
            s += x[i];
            rs[i] = s;
        }
    }
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("xi", Arg::In(Data::I32(xi))),
            ("o_cumsum", Arg::Out(f32s(cs))),
            ("o_rcumsum", Arg::Out(f32s(rs))),
            ("o_cummax", Arg::Out(ints(cm))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn histogram(r: &mut Rng) -> Case {
    let g = int_in(r, 5, 60) as usize;
    let n = ragged(r, (g - 1) * EW_BLOCK + 1, g * EW_BLOCK - 1, EW_BLOCK);
    let x: Vec<i32> = (0..g * EW_BLOCK).map(|_| int_in(r, 0, 15) as i32).collect();
    let mut h = vec![0i32; g * 16];
    let mut hm = vec![0i32; g * 16];
    for (i, &v) in x.iter().enumerate() {
        h[(i / EW_BLOCK) * 16 + v as usize] += 1;
        if i < n {
            hm[(i / EW_BLOCK) * 16 + v as usize] += 1;
        }
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::I32(x))),
            ("out", Arg::Out(ints(h))),
            ("outm", Arg::Out(ints(hm))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("programs={g} n={n}"),
    }
}

fn gather(r: &mut Rng) -> Case {
    const B: usize = 256;
    let g = int_in(r, 10, 200) as usize;
    let n = g * B;
    let x = normals(r, n, 1.0);
    let idx: Vec<i32> = (0..n).map(|_| int_in(r, 0, B as i64 - 1) as i32).collect();
    let out: Vec<f32> = (0..n).map(|i| x[(i / B) * B + idx[i] as usize]).collect();
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("idx", Arg::In(Data::I32(idx))),
            ("out", Arg::Out(f32s(out))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn join_split(r: &mut Rng) -> Case {
    const B: usize = 256;
    let n = ragged(r, 5_000, 50_000, B);
    let a = normals(r, n, 1.0);
    let b = normals(r, n, 1.0);
    let x2 = normals(r, 2 * n, 1.0);
    let inter: Vec<f32> = (0..2 * n)
        .map(|i| if i % 2 == 0 { a[i / 2] } else { b[i / 2] })
        .collect();
    Case {
        grid: grid1(n, B),
        args: vec![
            ("a", Arg::In(Data::F32(a))),
            ("b", Arg::In(Data::F32(b))),
            ("o_inter", Arg::Out(f32s(inter))),
            ("x2", Arg::In(Data::F32(x2.clone()))),
            ("o_even", Arg::Out(f32s(x2.iter().step_by(2).copied()))),
            (
                "o_odd",
                Arg::Out(f32s(x2.iter().skip(1).step_by(2).copied())),
            ),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

/// f32 rounded to bfloat16 (to nearest, ties to even) and widened back (finite inputs).
pub(super) fn bf16_round(f: f32) -> f32 {
    let b = f.to_bits();
    let bias = 0x7fff + ((b >> 16) & 1);
    f32::from_bits((b.wrapping_add(bias)) & 0xffff_0000)
}

fn misc_ops(r: &mut Rng) -> Case {
    let n = ragged(r, 40_000, 120_000, EW_BLOCK);
    // Normals, plus exact midpoints between adjacent bf16 values (ties to even).
    let x: Vec<f32> = (0..n)
        .map(|_| {
            let v = (r.normal() * 2.0) as f32;
            if chance(r, 0.05) {
                f32::from_bits((v.to_bits() & 0xffff_0000) | 0x8000)
            } else {
                v
            }
        })
        .collect();
    let xi = i32s(r, n);
    let yi = i32s(r, n);
    let u = |v: i32| v as u32 as u64;
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("xi", Arg::In(Data::I32(xi.clone()))),
            ("yi", Arg::In(Data::I32(yi.clone()))),
            ("o_clamp", Arg::Out(f32s(un(&x, |v| v.clamp(-1.0, 1.5))))),
            (
                "o_mulhi",
                Arg::Out(ints(bin(&xi, &yi, |a, b| ((u(a) * u(b)) >> 32) as i32))),
            ),
            ("o_bits", Arg::Out(ints(un(&x, |v| v.to_bits() as i32)))),
            ("o_bf16", Arg::Out(f32s(un(&x, bf16_round)))),
            ("o_asm", Arg::Out(ints(bin(&xi, &yi, i32::wrapping_sub)))),
            (
                "o_fptoui",
                Arg::Out(ints(un(&x, |v| (v.abs() * 1000.0) as u32 as i32))),
            ),
            ("o_neg", Arg::Out(f32s(un(&x, |v| -v)))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn shapes(r: &mut Rng) -> Case {
    const R: usize = 32;
    const C: usize = 64;
    let g = int_in(r, 10, 100) as usize;
    let x = normals(r, g * R * C, 1.0);
    let mut t = vec![0f32; g * R * C];
    for p in 0..g {
        for i in 0..R {
            for j in 0..C {
                t[p * R * C + j * R + i] = x[p * R * C + i * C + j];
            }
        }
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("o_t", Arg::Out(f32s(t))),
            ("o_r", Arg::Out(f32s(x.clone()))),
            ("o_flat", Arg::Out(f32s(un(&x, |v| v * 2.0)))),
        ],
        note: format!("tiles={g}x32x64"),
    }
}

fn while_loop(r: &mut Rng) -> Case {
    const B: usize = 128;
    const MAX_TRIPS: usize = 12;
    let rows = int_in(r, 10, 80) as usize;
    let stride = MAX_TRIPS * B + int_in(r, 0, 33) as usize;
    let x = eighths(r, rows * stride, 800);
    let k: Vec<i32> = (0..rows)
        .map(|_| int_in(r, 0, MAX_TRIPS as i64) as i32)
        .collect();
    let mut out = vec![0f32; rows * B];
    for p in 0..rows {
        for t in 0..k[p] as usize {
            for j in 0..B {
                out[p * B + j] += x[p * stride + t * B + j];
            }
        }
    }
    Case {
        grid: (rows as u32, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(x))),
            ("k", Arg::In(Data::I32(k.clone()))),
            ("out", Arg::Out(f32s(out))),
            ("outc", Arg::Out(ints(k))),
            ("stride", Arg::I32(stride as i32)),
        ],
        note: format!("rows={rows} stride={stride}"),
    }
}

fn dot_i8(r: &mut Rng) -> Case {
    const M: usize = 64;
    const N: usize = 64;
    const K: usize = 32;
    let g = int_in(r, 2, 12) as usize;
    let mut i8s = |n: usize| -> Vec<i8> { (0..n).map(|_| r.next_u64() as i8).collect() };
    let a = i8s(g * M * K);
    let b = i8s(g * K * N);
    let mut c = vec![0i32; g * M * N];
    for p in 0..g {
        for i in 0..M {
            for j in 0..N {
                c[p * M * N + i * N + j] = (0..K)
                    .map(|l| a[p * M * K + i * K + l] as i32 * b[p * K * N + l * N + j] as i32)
                    .sum();
            }
        }
    }
    Case {
        grid: (g as u32, 1, 1),
        args: vec![
            ("a", Arg::In(Data::I8(a))),
            ("b", Arg::In(Data::I8(b))),
            ("c", Arg::Out(ints(c))),
        ],
        note: format!("batch={g} 64x64x32"),
    }
}

// ------------------------------------------------------------------------------------ fp8

/// (exponent bits, mantissa bits, bias, largest finite value) of e4m3fn and e5m2.
fn fp8_params(e5m2: bool) -> (i32, i32, i32, f64) {
    if e5m2 {
        (5, 2, 15, 57344.0)
    } else {
        (4, 3, 7, 448.0)
    }
}

/// An fp8 byte (`e5m2` or e4m3fn) as f32: exact. e4m3fn has no infinities (S.1111.111 is NaN);
/// e5m2 is IEEE-like (exponent 31: infinity or NaN).
pub fn fp8_decode(b: u8, e5m2: bool) -> f32 {
    let (eb, mb, bias, _) = fp8_params(e5m2);
    let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((b & 0x7f) >> mb) as i32;
    let m = (b & ((1 << mb) - 1)) as i32;
    let emax = (1 << eb) - 1;
    if e5m2 && e == emax {
        return if m == 0 {
            sign as f32 * f32::INFINITY
        } else {
            f32::NAN
        };
    }
    if !e5m2 && e == emax && m == (1 << mb) - 1 {
        return f32::NAN;
    }
    let v = if e == 0 {
        m as f64 * 2f64.powi(1 - bias - mb)
    } else {
        (1.0 + m as f64 / (1 << mb) as f64) * 2f64.powi(e - bias)
    };
    (sign * v) as f32
}

/// `floor(log2(a))` for a positive normal f64, exactly (from the exponent bits).
fn floor_log2(a: f64) -> i32 {
    ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// f32 to fp8 (`e5m2` or e4m3fn), rounding to nearest even and saturating to the largest
/// finite value (like PTX `cvt.rn.satfinite`); NaN becomes 0x7f (NaN in both formats).
pub fn fp8_encode(f: f32, e5m2: bool) -> u8 {
    let (_, mb, bias, max) = fp8_params(e5m2);
    let sign: u8 = if f.is_sign_negative() { 0x80 } else { 0 };
    if f.is_nan() {
        return 0x7f;
    }
    let a = (f as f64).abs();
    if a == 0.0 {
        return sign;
    }
    let emin = 1 - bias;
    // The quantum of a's binade (fixed below 2^emin: subnormals); round half to even.
    let quantum = 2f64.powi(floor_log2(a).max(emin) - mb);
    let q = a / quantum; // exact: a power-of-two scaling
    let mut rq = q.floor();
    let frac = q - rq;
    if frac > 0.5 || (frac == 0.5 && rq % 2.0 == 1.0) {
        rq += 1.0;
    }
    let v = (rq * quantum).min(max);
    if v == 0.0 {
        return sign;
    }
    let code = if v < 2f64.powi(emin) {
        (v / 2f64.powi(emin - mb)) as u32
    } else {
        let ev = floor_log2(v);
        let man = (v / 2f64.powi(ev - mb)) as u32 - (1 << mb);
        (((ev + bias) as u32) << mb) | man
    };
    sign | code as u8
}

fn fp8_bytes(r: &mut Rng, n: usize, e5m2: bool) -> Vec<u8> {
    (0..n)
        .map(|_| {
            loop {
                let b = r.next_u64() as u8;
                if !fp8_decode(b, e5m2).is_nan() {
                    break b;
                }
            }
        })
        .collect()
}

fn fp8(r: &mut Rng) -> Case {
    let n = ragged(r, 20_000, 80_000, EW_BLOCK);
    // Normals scaled by 2^-14..2^10: e4m3 and e5m2 subnormals, saturation beyond 448 (and
    // beyond 57344 for e5m2), plus exact midpoints between adjacent e4m3 values.
    let x: Vec<f32> = (0..n)
        .map(|_| {
            if chance(r, 0.05) {
                let c = int_in(r, 0, 0x7d) as u8 | if chance(r, 0.5) { 0x80 } else { 0 };
                (fp8_decode(c, false) + fp8_decode(c + 1, false)) / 2.0
            } else if chance(r, 0.02) {
                (r.normal() * 1e5) as f32
            } else {
                (r.normal() * 2f64.powi(int_in(r, -14, 10) as i32)) as f32
            }
        })
        .collect();
    let e4 = fp8_bytes(r, n, false);
    let e5 = fp8_bytes(r, n, true);
    Case {
        grid: grid1(n, EW_BLOCK),
        args: vec![
            ("x", Arg::In(Data::F32(x.clone()))),
            ("e4", Arg::In(Data::Fp8E4(e4.clone()))),
            ("e5", Arg::In(Data::Fp8E5(e5.clone()))),
            (
                "o_e4",
                Arg::Out(Output::exact(Data::Fp8E4(un(&x, |v| fp8_encode(v, false))))),
            ),
            (
                "o_e5",
                Arg::Out(Output::exact(Data::Fp8E5(un(&x, |v| fp8_encode(v, true))))),
            ),
            ("o_d4", Arg::Out(f32s(un(&e4, |b| fp8_decode(b, false))))),
            ("o_d5", Arg::Out(f32s(un(&e5, |b| fp8_decode(b, true))))),
            ("n", Arg::I32(n as i32)),
        ],
        note: format!("n={n}"),
    }
}

fn print(r: &mut Rng) -> Case {
    let x: Vec<i32> = (0..32).map(|_| int_in(r, -1000, 1000) as i32).collect();
    Case {
        grid: (1, 1, 1),
        args: vec![
            ("x", Arg::In(Data::I32(x.clone()))),
            ("out", Arg::Out(ints(un(&x, |v| v + 1)))),
        ],
        note: "32 elements".into(),
    }
}
