//! `tt.dot_scaled` on targets without block-scaled tensor cores (everything before sm_100, so every
//! target Tritium supports): each operand is upcast to a 16-bit float, multiplied by its e8m0
//! scales broadcast along K, and the product becomes a plain `tt.dot` with the same accumulator,
//! as Triton 3.6 decomposes it on Hopper and Ampere.
//!
//! The numbers follow Triton's decomposition exactly:
//! - the compute type is f16 when either operand is fp16, else bf16;
//! - fp8 and 16-bit operands convert with `tt.fp_to_fp` (exact), e2m1 operands unpack two values
//!   per byte (low nibble first) along the packed dimension;
//! - a scale byte `s` means 2^(s - 127): in bf16 it is the bits `s << 7` (so `s = 0` gives 0), in
//!   f16 the f32 bits `s << 23` rounded to f16 (out of range gives 0 or inf);
//! - without `fastMath`, elements whose scale is 0xFF become NaN;
//! - `b`'s scales come as `[N, K / group]`, like `a`'s `[M, K / group]`, and are transposed first.
//!
//! It runs at the start of `-convert-triton-to-tritongpu`, on TTIR, so the new ops get their
//! layouts from the conversion like any other (Triton runs the same rewrite later, inside
//! `-tritongpu-accelerate-matmul`, on ops that already have layouts).

use crate::ir_util::*;
use crate::ttir::util::*;
use mlir_sys::*;
use tritium_dialects::attrs::ContextAttrs;

/// `ScaleDotElemType` codes (Triton's enum order).
const E2M1: i64 = 4;
const FP16: i64 = 6;

/// Rewrites every `tt.dot_scaled` under `module`.
pub fn decompose_all(module: MlirOperation) {
    for op in collect_ops(module) {
        if op_name(op) == "tt.dot_scaled" {
            decompose(op);
        }
    }
}

/// One operand of the scaled dot.
struct Operand {
    value: MlirValue,
    scale: Option<MlirValue>,
    format: i64,
    k_pack: bool,
    /// 0 for `a`, 1 for `b`.
    index: usize,
}

fn decompose(op: MlirOperation) {
    let ctx = context_of(op);
    let loc = location(op);
    let at = At::Before(op);
    // ODS: operands a, b, c, then the optional a_scale and b_scale (operandSegmentSizes).
    let segments = i32_array(op, "operandSegmentSizes").unwrap_or_else(|| vec![1, 1, 1, 0, 0]);
    let mut next = 3;
    let mut optional = |present: bool| {
        present.then(|| {
            next += 1;
            operand(op, next - 1)
        })
    };
    let a_scale = optional(segments.get(3).copied().unwrap_or(0) > 0);
    let b_scale = optional(segments.get(4).copied().unwrap_or(0) > 0);
    let a = Operand {
        value: operand(op, 0),
        scale: a_scale,
        format: int_attr(op, "a_elem_type").unwrap_or(0),
        k_pack: bool_attr(op, "lhs_k_pack").unwrap_or(true),
        index: 0,
    };
    let b = Operand {
        value: operand(op, 1),
        scale: b_scale,
        format: int_attr(op, "b_elem_type").unwrap_or(0),
        k_pack: bool_attr(op, "rhs_k_pack").unwrap_or(true),
        index: 1,
    };
    let fast_math = bool_attr(op, "fastMath").unwrap_or(false);
    // SAFETY: `ctx` is the live context of the module being rewritten.
    let compute = unsafe {
        if a.format == FP16 || b.format == FP16 {
            mlirF16TypeGet(ctx)
        } else {
            mlirBF16TypeGet(ctx)
        }
    };
    let scaled_a = scale_operand(at, loc, &a, compute, fast_math);
    let scaled_b = scale_operand(at, loc, &b, compute, fast_math);
    let result = result(op, 0);
    let dot = at.value(
        "tt.dot",
        loc,
        &[scaled_a, scaled_b, operand(op, 2)],
        value_type(result),
        &[],
    );
    replace_uses(result, dot);
    erase(op);
}

/// The operand upcast to `compute` and multiplied by its broadcast scales.
fn scale_operand(
    at: At,
    loc: MlirLocation,
    side: &Operand,
    compute: MlirType,
    fast_math: bool,
) -> MlirValue {
    let rank = shape(value_type(side.value)).len();
    let k_dim = if side.index == 0 { rank - 1 } else { rank - 2 };
    let upcast = if side.format == E2M1 {
        let packed_dim = if side.k_pack {
            k_dim
        } else if side.index == 0 {
            rank - 2
        } else {
            rank - 1
        };
        unpack_e2m1(at, loc, side.value, compute, packed_dim)
    } else {
        convert_float(at, loc, side.value, compute)
    };
    let Some(scale) = side.scale else {
        return upcast;
    };
    // `b`'s scales are [.., N, G]; as the operand is [.., K, N], they are transposed to [.., G, N].
    let scale = if side.index == 1 {
        let dims = shape(value_type(scale));
        let mut order: Vec<i32> = (0..rank as i32).collect();
        order.swap(rank - 2, rank - 1);
        transpose(at, loc, scale, &dims, &order)
    } else {
        scale
    };
    let groups = shape(value_type(scale))[k_dim].max(1);
    let factor = shape(value_type(upcast))[k_dim] / groups;
    let scale16 = scale_to_16(at, loc, scale, compute);
    let broadcast = broadcast_along(at, loc, scale16, k_dim, factor);
    let product = at.binary("arith.mulf", loc, upcast, broadcast);
    if fast_math {
        return product;
    }
    let all_ones = at.int_constant(loc, value_type(scale), -1);
    let is_nan = at.value(
        "arith.cmpi",
        loc,
        &[scale, all_ones],
        with_element(value_type(scale), bool_type(scale)),
        &[("predicate", predicate_eq(scale))],
    );
    let is_nan = broadcast_along(at, loc, is_nan, k_dim, factor);
    let nan = at.constant(loc, float_attr_of(value_type(product), f64::NAN));
    at.value(
        "arith.select",
        loc,
        &[is_nan, nan, product],
        value_type(product),
        &[],
    )
}

/// A float tensor converted to `compute` (fp8 upcasts exactly; bf16 <-> f16 through f32).
fn convert_float(at: At, loc: MlirLocation, value: MlirValue, compute: MlirType) -> MlirValue {
    let ty = value_type(value);
    let element = element_type(ty);
    // SAFETY: both are live types of the module's context.
    if unsafe { mlirTypeEqual(element, compute) } {
        return value;
    }
    // SAFETY: as above.
    let sixteen_bit = unsafe { mlirTypeIsABF16(element) || mlirTypeIsAF16(element) };
    if sixteen_bit {
        // SAFETY: the context of a live type is live.
        let f32 = unsafe { mlirF32TypeGet(mlirTypeGetContext(ty)) };
        let wide = at.value("arith.extf", loc, &[value], with_element(ty, f32), &[]);
        return at.value("arith.truncf", loc, &[wide], with_element(ty, compute), &[]);
    }
    at.value("tt.fp_to_fp", loc, &[value], with_element(ty, compute), &[])
}

/// An i8 tensor holding two e2m1 values per byte (low nibble first along `packed_dim`) as
/// `compute` floats, `packed_dim` twice as long.
fn unpack_e2m1(
    at: At,
    loc: MlirLocation,
    packed: MlirValue,
    compute: MlirType,
    packed_dim: usize,
) -> MlirValue {
    let ty = value_type(packed);
    let dims = shape(ty);
    // SAFETY: the context of a live type is live; `compute` is one of its types.
    let (i16, is_bf16) = unsafe {
        (
            mlirIntegerTypeGet(mlirTypeGetContext(ty), 16),
            mlirTypeIsABF16(compute),
        )
    };
    // Magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6: from 1.0 on, `base + m * step` in the 16-bit
    // encoding (m = the 3 magnitude bits); 0.5 is `base` itself and 0 is 0.
    let (base, step) = if is_bf16 {
        (0x3F00, 0x40)
    } else {
        (0x3800, 0x200)
    };
    let wide_ty = with_element(ty, i16);
    let low = at.binary("arith.andi", loc, packed, at.int_constant(loc, ty, 0xF));
    let high = at.binary("arith.shrui", loc, packed, at.int_constant(loc, ty, 4));
    let decode = |nibble: MlirValue| {
        let n = at.value("arith.extui", loc, &[nibble], wide_ty, &[]);
        let magnitude = at.binary("arith.andi", loc, n, at.int_constant(loc, wide_ty, 7));
        let sign = at.binary("arith.andi", loc, n, at.int_constant(loc, wide_ty, 8));
        let sign = at.binary("arith.shli", loc, sign, at.int_constant(loc, wide_ty, 12));
        let scaled = at.binary(
            "arith.muli",
            loc,
            magnitude,
            at.int_constant(loc, wide_ty, step),
        );
        let bits = at.binary(
            "arith.addi",
            loc,
            scaled,
            at.int_constant(loc, wide_ty, base),
        );
        let select_if = |m: i64, then: i64, otherwise: MlirValue| {
            let cond = at.value(
                "arith.cmpi",
                loc,
                &[magnitude, at.int_constant(loc, wide_ty, m)],
                with_element(wide_ty, bool_type(magnitude)),
                &[("predicate", predicate_eq(magnitude))],
            );
            at.value(
                "arith.select",
                loc,
                &[cond, at.int_constant(loc, wide_ty, then), otherwise],
                wide_ty,
                &[],
            )
        };
        let bits = select_if(1, base, bits);
        let bits = select_if(0, 0, bits);
        let bits = at.binary("arith.ori", loc, bits, sign);
        at.value("tt.bitcast", loc, &[bits], with_element(ty, compute), &[])
    };
    let (low, high) = (decode(low), decode(high));
    let mut joined_dims = dims.clone();
    joined_dims.push(2);
    let joined = at.value(
        "tt.join",
        loc,
        &[low, high],
        tensor_of(&joined_dims, compute),
        &[],
    );
    let interleaved = move_last_after(at, loc, joined, &joined_dims, packed_dim);
    let mut unpacked = dims;
    unpacked[packed_dim] *= 2;
    reshape(at, loc, interleaved, &unpacked)
}

/// `scale` (i8 holding e8m0 exponents) as 2^(s - 127) in `compute`.
fn scale_to_16(at: At, loc: MlirLocation, scale: MlirValue, compute: MlirType) -> MlirValue {
    let ty = value_type(scale);
    // SAFETY: the context of a live type is live.
    let ctx = unsafe { mlirTypeGetContext(ty) };
    // SAFETY: `compute` is a live type.
    if unsafe { mlirTypeIsABF16(compute) } {
        // SAFETY: `ctx` is live.
        let i16 = unsafe { mlirIntegerTypeGet(ctx, 16) };
        let wide = at.value("arith.extui", loc, &[scale], with_element(ty, i16), &[]);
        let shift = at.int_constant(loc, value_type(wide), 7);
        let bits = at.binary("arith.shli", loc, wide, shift);
        return at.value("tt.bitcast", loc, &[bits], with_element(ty, compute), &[]);
    }
    // SAFETY: `ctx` is live.
    let (i32, f32) = unsafe { (mlirIntegerTypeGet(ctx, 32), mlirF32TypeGet(ctx)) };
    let wide = at.value("arith.extui", loc, &[scale], with_element(ty, i32), &[]);
    let shift = at.int_constant(loc, value_type(wide), 23);
    let bits = at.binary("arith.shli", loc, wide, shift);
    let f32_scale = at.value("tt.bitcast", loc, &[bits], with_element(ty, f32), &[]);
    at.value(
        "arith.truncf",
        loc,
        &[f32_scale],
        with_element(ty, compute),
        &[],
    )
}

/// `value` repeated `factor` times along `dim`, each element becoming `factor` consecutive ones.
fn broadcast_along(
    at: At,
    loc: MlirLocation,
    value: MlirValue,
    dim: usize,
    factor: i64,
) -> MlirValue {
    let ty = value_type(value);
    let dims = shape(ty);
    let element = element_type(ty);
    let rank = dims.len();
    let mut expanded = dims.clone();
    expanded.push(1);
    // SAFETY: the context of a live type is live.
    let ctx = unsafe { mlirTypeGetContext(ty) };
    let expanded_value = at.value(
        "tt.expand_dims",
        loc,
        &[value],
        tensor_of(&expanded, element),
        &[("axis", ctx.i32_attr(rank as i64))],
    );
    let mut broadcast_dims = dims.clone();
    broadcast_dims.push(factor);
    let broadcast = at.value(
        "tt.broadcast",
        loc,
        &[expanded_value],
        tensor_of(&broadcast_dims, element),
        &[],
    );
    let moved = move_last_after(at, loc, broadcast, &broadcast_dims, dim);
    let mut result = dims;
    result[dim] *= factor;
    reshape(at, loc, moved, &result)
}

/// The last dim of `value` (shape `dims`) moved to right after `dim` (no op when it is already).
fn move_last_after(
    at: At,
    loc: MlirLocation,
    value: MlirValue,
    dims: &[i64],
    dim: usize,
) -> MlirValue {
    let last = dims.len() - 1;
    if dim + 1 == last {
        return value;
    }
    let mut order: Vec<i32> = (0..=dim as i32).collect();
    order.push(last as i32);
    order.extend(dim as i32 + 1..last as i32);
    transpose(at, loc, value, dims, &order)
}

/// `tt.trans` of `value` (shape `dims`) with `order`.
fn transpose(
    at: At,
    loc: MlirLocation,
    value: MlirValue,
    dims: &[i64],
    order: &[i32],
) -> MlirValue {
    let ty = value_type(value);
    let permuted: Vec<i64> = order.iter().map(|&o| dims[o as usize]).collect();
    // SAFETY: the context of a live type is live.
    let ctx = unsafe { mlirTypeGetContext(ty) };
    at.value(
        "tt.trans",
        loc,
        &[value],
        tensor_of(&permuted, element_type(ty)),
        &[("order", ctx.i32_array(order))],
    )
}

/// `tt.reshape` of `value` to `dims`, element order kept.
fn reshape(at: At, loc: MlirLocation, value: MlirValue, dims: &[i64]) -> MlirValue {
    let ty = value_type(value);
    at.value(
        "tt.reshape",
        loc,
        &[value],
        tensor_of(dims, element_type(ty)),
        &[],
    )
}

/// `i1` in the context of `value`.
fn bool_type(value: MlirValue) -> MlirType {
    // SAFETY: `value` is live, so its type's context is.
    unsafe { mlirIntegerTypeGet(mlirTypeGetContext(value_type(value)), 1) }
}

/// The `eq` predicate of `arith.cmpi`.
fn predicate_eq(value: MlirValue) -> MlirAttribute {
    // SAFETY: `value` is live, so its type's context is; the attribute is owned by it.
    unsafe {
        let ctx = mlirTypeGetContext(value_type(value));
        ctx.i64_attr(0)
    }
}

#[cfg(test)]
mod tests {
    /// The e2m1 decoding formula gives the format's eight magnitudes in bf16 and f16.
    #[test]
    fn e2m1_magnitudes() {
        let values = [0.0f32, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
        for (m, &want) in values.iter().enumerate() {
            let m = m as u32;
            let bf16 = match m {
                0 => 0,
                1 => 0x3F00,
                _ => 0x3F00 + m * 0x40,
            };
            assert_eq!(f32::from_bits(bf16 << 16), want, "bf16 magnitude {m}");
            let f16 = match m {
                0 => 0,
                1 => 0x3800,
                _ => 0x3800 + m * 0x200,
            };
            // Normal f16 (or zero): (1 + mantissa / 1024) * 2^(exponent - 15).
            let (exponent, mantissa) = ((f16 >> 10) & 31, f16 & 1023);
            let value = if f16 == 0 {
                0.0
            } else {
                (1.0 + mantissa as f32 / 1024.0) * 2f32.powi(exponent as i32 - 15)
            };
            assert_eq!(value, want, "f16 magnitude {m}");
        }
    }
}
