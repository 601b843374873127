//! Float conversions: `tt.fp_to_fp` and `arith.extf`/`truncf`/`sitofp`/... when an fp8 type or
//! round-toward-zero is involved. fp8 values live in `i8`; they decode to f32 exactly in
//! software, and f32 encodes to fp8 with `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` on sm_89+ (round to
//! nearest even) or in software otherwise (either rounding, saturating to the largest finite
//! value like `.satfinite`). Also `tt.bitcast`, `tt.int_to_ptr` and `tt.ptr_to_int`.

use crate::builder::{BinOp, CastOp, FloatPredicate, IntPredicate, Intrinsic, Value, type_equal};
use crate::registry::OpLowering;
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// Parameters of an 8-bit float format.
#[derive(Clone, Copy, Debug)]
pub struct Fp8Format {
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    pub bias: i32,
    /// The format has infinities (E5M2); otherwise the all-ones pattern is NaN (E4M3FN).
    pub has_inf: bool,
    pub max_finite: f32,
    /// PTX `cvt` name (`e4m3`, `e5m2`) where the hardware converts.
    pub ptx: &'static str,
}

const E4M3FN: Fp8Format = Fp8Format {
    exponent_bits: 4,
    mantissa_bits: 3,
    bias: 7,
    has_inf: false,
    max_finite: 448.0,
    ptx: "e4m3",
};

const E5M2: Fp8Format = Fp8Format {
    exponent_bits: 5,
    mantissa_bits: 2,
    bias: 15,
    has_inf: true,
    max_finite: 57344.0,
    ptx: "e5m2",
};

/// The format of an 8-bit float type the lowering supports (`f8E4M3FN`, `f8E5M2`).
pub fn fp8_format(elem: MlirType) -> Option<Fp8Format> {
    // SAFETY: type kind queries on a live type.
    unsafe {
        if mlirTypeIsAFloat8E4M3FN(elem) {
            Some(E4M3FN)
        } else if mlirTypeIsAFloat8E5M2(elem) {
            Some(E5M2)
        } else {
            None
        }
    }
}

/// The fp8 encoding of `value` (round to nearest even, saturating finite values), on the CPU:
/// for constants.
pub fn encode_fp8(value: f64, format: Fp8Format) -> u8 {
    if value.is_nan() {
        return 0x7f;
    }
    let sign = if value.is_sign_negative() { 0x80 } else { 0 };
    let a = value.abs().min(format.max_finite as f64);
    let m = format.mantissa_bits as i32;
    let min_e = 1 - format.bias;
    let e = if a == 0.0 {
        min_e
    } else {
        (a.log2().floor() as i32).max(min_e)
    };
    let mut n = (a / 2f64.powi(e - m)).round_ties_even() as u32;
    let mut e = e;
    if n >= 1 << (m + 1) {
        n >>= 1;
        e += 1;
    }
    let code = if n >= 1 << m {
        (((e + format.bias - 1) as u32) << m) + n
    } else {
        n
    };
    sign | code as u8
}

/// Rounding of a narrowing conversion.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rounding {
    NearestEven,
    TowardZero,
}

/// An arith float cast that MLIR's conversion cannot do: an fp8 side, or truncation toward zero.
fn needs_float_cast(o: &OpLowering) -> bool {
    let (Some(&input), Some(&output)) = (o.ins.first(), o.outs.first()) else {
        return false;
    };
    let from = element_type(value_type(input));
    let to = element_type(value_type(output));
    is_fp8(from)
        || is_fp8(to)
        || (is_bf16(from) && is_f32(to))
        || (o.name == "arith.truncf" && int_attr(o.op, "roundingmode") == Some(3))
}

/// The one operand and the one result of a conversion.
fn unary(
    op: MlirOperation,
    ins: &[MlirValue],
    outs: &[MlirValue],
) -> LResult<(MlirValue, MlirValue)> {
    match (ins.first(), outs.first()) {
        (Some(&input), Some(&output)) => Ok((input, output)),
        _ => err(op, "a conversion needs one operand and one result"),
    }
}

impl FuncLowering<'_> {
    /// `arith.extf`/`truncf`/`sitofp`/`uitofp`/`fptosi`/`fptoui`: ours when an fp8 type or
    /// truncation toward zero is involved, else MLIR's conversion per register.
    pub fn lower_arith_cast(&mut self, o: &OpLowering) -> LResult<()> {
        if needs_float_cast(o) {
            self.lower_float_cast(o.op, &o.name, &o.ins, &o.outs)
        } else {
            self.lower_elementwise(o.op, &o.name, &o.ins, &o.outs)
        }
    }

    /// `tt.bitcast`, `tt.int_to_ptr`, `tt.ptr_to_int`: one LLVM conversion per register (none
    /// when the LLVM types agree).
    pub fn lower_bitcast(&mut self, o: &OpLowering) -> LResult<()> {
        let (input, output) = unary(o.op, &o.ins, &o.outs)?;
        let from = element_type(value_type(input));
        let to = element_type(value_type(output));
        let cast = match (is_pointer(from), is_pointer(to)) {
            (true, false) => CastOp::PtrToInt,
            (false, true) => CastOp::IntToPtr,
            _ => CastOp::Bitcast,
        };
        let target = self.llvm_type(to);
        let regs = self
            .regs(o.op, input)?
            .into_iter()
            .map(|v| self.b.cast(cast, v, target))
            .collect();
        self.set(output, regs);
        Ok(())
    }

    /// `tt.fp_to_fp` and arith float casts that need more than MLIR's standard conversion.
    pub fn lower_float_cast(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (input, output) = unary(op, ins, outs)?;
        let from = element_type(value_type(input));
        let to = element_type(value_type(output));
        let rounding = match name {
            "tt.fp_to_fp" if int_attr(op, "rounding") == Some(0) => Rounding::TowardZero,
            "arith.truncf" if int_attr(op, "roundingmode") == Some(3) => Rounding::TowardZero,
            _ => Rounding::NearestEven,
        };
        let values = self.regs(op, input)?;
        if matches!(name, "tt.fp_to_fp" | "arith.extf" | "arith.truncf")
            && let Some(regs) = self.convert_fp8_pairs(op, &values, from, to, rounding)?
        {
            self.set(output, regs);
            return Ok(());
        }
        let f32 = self.b.f32();
        let to_llvm = self.llvm_type(to);
        let mut regs = Vec::with_capacity(values.len());
        for v in values {
            let converted = match name {
                "arith.sitofp" | "arith.uitofp" => {
                    let cast = if name == "arith.sitofp" {
                        CastOp::SiToFp
                    } else {
                        CastOp::UiToFp
                    };
                    let f = self.b.cast(cast, v, f32);
                    self.convert_float(op, f, f32, to, rounding)?
                }
                "arith.fptosi" | "arith.fptoui" => {
                    let f = self.convert_float(op, v, from, f32, rounding)?;
                    let cast = if name == "arith.fptosi" {
                        CastOp::FpToSi
                    } else {
                        CastOp::FpToUi
                    };
                    self.b.cast(cast, f, to_llvm)
                }
                _ => self.convert_float(op, v, from, to, rounding)?,
            };
            regs.push(converted);
        }
        self.set(output, regs);
        Ok(())
    }

    /// fp8 conversions the hardware does two at a time (sm_89+): `cvt.rn.f16x2.{e4m3,e5m2}x2`
    /// decodes a pair, `cvt.rn.satfinite.{e4m3,e5m2}x2.{f16x2,f32}` encodes one, so registers
    /// are converted in pairs (any two: the conversion is elementwise) as Triton does, instead
    /// of one conversion per element with its other half wasted. `None` where this does not
    /// apply (no fp8 side, no hardware conversion, round toward zero).
    fn convert_fp8_pairs(
        &mut self,
        op: MlirOperation,
        values: &[Value],
        from: MlirType,
        to: MlirType,
        rounding: Rounding,
    ) -> LResult<Option<Vec<Value>>> {
        if self.capability < 89 || self.ptx_version < 78 || values.len() < 2 {
            return Ok(None);
        }
        let (i8, i16, i32) = (self.b.i8(), self.b.i16(), self.b.i32());
        let f16 = self.b.f16();
        let f16_type = f16_mlir_type(self.ctx());
        let mut out = Vec::with_capacity(values.len());
        if let Some(format) = fp8_format(from).filter(|_| !is_fp8(to)) {
            for pair in values.chunks(2) {
                // Byte 0 the first element, byte 1 the second (an odd last one pairs with 0).
                let low = self.b.zext(pair[0], i16);
                let high = match pair.get(1) {
                    Some(&v) => {
                        let wide = self.b.zext(v, i16);
                        self.b.bin_imm(BinOp::Shl, wide, 8)
                    }
                    None => self.b.const_int(i16, 0),
                };
                let bytes = self.b.or(low, high);
                let halves = self.b.asm(
                    &format!("cvt.rn.f16x2.{}x2 $0, $1;", format.ptx),
                    "=r,h",
                    &[bytes],
                    i32,
                );
                for k in 0..pair.len() {
                    let shifted = self.b.bin_imm(BinOp::LShr, halves, 16 * k as i64);
                    let bits = self.b.trunc(shifted, i16);
                    let half = self.b.bitcast(bits, f16);
                    out.push(self.convert_float(op, half, f16_type, to, rounding)?);
                }
            }
            return Ok(Some(out));
        }
        let Some(format) = fp8_format(to).filter(|_| !is_fp8(from)) else {
            return Ok(None);
        };
        if rounding != Rounding::NearestEven {
            return Ok(None);
        }
        let f32_type = self.b.f32();
        for pair in values.chunks(2) {
            let second = pair.get(1).copied().unwrap_or(pair[0]);
            // The upper byte of the result is the first source operand's (the upper half's).
            let packed = if is_f16(from) {
                let low = self.b.bitcast(pair[0], i16);
                let low = self.b.zext(low, i32);
                let high = self.b.bitcast(second, i16);
                let high = self.b.zext(high, i32);
                let high = self.b.bin_imm(BinOp::Shl, high, 16);
                let halves = self.b.or(low, high);
                self.b.asm(
                    &format!("cvt.rn.satfinite.{}x2.f16x2 $0, $1;", format.ptx),
                    "=h,r",
                    &[halves],
                    i16,
                )
            } else {
                let first = self.convert_float(op, pair[0], from, f32_type, rounding)?;
                let second = self.convert_float(op, second, from, f32_type, rounding)?;
                self.b.asm(
                    &format!("cvt.rn.satfinite.{}x2.f32 $0, $1, $2;", format.ptx),
                    "=h,f,f",
                    &[second, first],
                    i16,
                )
            };
            for k in 0..pair.len() {
                let shifted = self.b.bin_imm(BinOp::LShr, packed, 8 * k as i64);
                out.push(self.b.trunc(shifted, i8));
            }
        }
        Ok(Some(out))
    }

    /// Converts one scalar between float types (fp8 included).
    pub fn convert_float(
        &mut self,
        op: MlirOperation,
        value: Value,
        from: MlirType,
        to: MlirType,
        rounding: Rounding,
    ) -> LResult<Value> {
        if type_equal(from, to) {
            return Ok(value);
        }
        let f32 = self.b.f32();
        if is_fp8(from) {
            let Some(format) = fp8_format(from) else {
                return err(
                    op,
                    "conversion from this 8-bit float type is not supported (only f8E4M3FN and f8E5M2)",
                );
            };
            // sm_89+: the hardware conversion (exact: every e4m3 and e5m2 value is an f16).
            if self.capability >= 89 && self.ptx_version >= 78 {
                let (i16, i32) = (self.b.i16(), self.b.i32());
                let byte = self.b.zext(value, i16);
                let pair = self.b.asm(
                    &format!("cvt.rn.f16x2.{}x2 $0, $1;", format.ptx),
                    "=r,h",
                    &[byte],
                    i32,
                );
                let low = self.b.trunc(pair, i16);
                let f16 = self.b.f16();
                let half = self.b.bitcast(low, f16);
                let f16_type = f16_mlir_type(self.ctx());
                return self.convert_float(op, half, f16_type, to, rounding);
            }
            let wide = self.fp8_to_f32(value, format);
            return self.convert_float(op, wide, f32, to, rounding);
        }
        if is_fp8(to) {
            let Some(format) = fp8_format(to) else {
                return err(
                    op,
                    "conversion to this 8-bit float type is not supported (only f8E4M3FN and f8E5M2)",
                );
            };
            let wide = self.convert_float(op, value, from, f32, rounding)?;
            return Ok(self.f32_to_fp8(wide, format, rounding));
        }
        let (fb, tb) = (type_bits(from), type_bits(to));
        let tl = self.llvm_type(to);
        if is_bf16(from) && is_f32(to) {
            // bf16 is f32's upper half: a shift, which LLVM folds into a mask where the value
            // is the upper half of a loaded word (one instruction, where `cvt.f32.bf16` of the
            // extracted half costs two).
            let (i16, i32) = (self.b.i16(), self.b.i32());
            let bits = self.b.bitcast(value, i16);
            let wide = self.b.zext(bits, i32);
            let shifted = self.b.bin_imm(BinOp::Shl, wide, 16);
            return Ok(self.b.bitcast(shifted, tl));
        }
        if fb < tb || (fb == 16 && tb == 32) {
            return Ok(self.b.cast(CastOp::FpExt, value, tl));
        }
        if fb == tb {
            // f16 <-> bf16: exactly to f32, then round.
            let wide = self.b.cast(CastOp::FpExt, value, f32);
            return self.convert_float(op, wide, f32, to, rounding);
        }
        match rounding {
            Rounding::NearestEven => Ok(self.b.cast(CastOp::FpTrunc, value, tl)),
            Rounding::TowardZero => {
                let (Some(from_name), Some(to_name)) = (ptx_float_name(from), ptx_float_name(to))
                else {
                    return err(
                        op,
                        "round-toward-zero conversion between unsupported float types",
                    );
                };
                if from_name == "f64" && to_name == "bf16" {
                    let mid = self.convert_float(op, value, from, f32, rounding)?;
                    return self.convert_float(op, mid, f32, to, rounding);
                }
                let (out_c, in_c) = (float_constraint(tb), float_constraint(fb));
                Ok(self.b.asm(
                    &format!("cvt.rz.{to_name}.{from_name} $0, $1;"),
                    &format!("={out_c},{in_c}"),
                    &[value],
                    tl,
                ))
            }
        }
    }

    /// An fp8 (held as `i8`) decoded exactly to f32.
    pub fn fp8_to_f32(&mut self, value: Value, format: Fp8Format) -> Value {
        let b = &mut self.b;
        let (i32, f32) = (b.i32(), b.f32());
        let m = format.mantissa_bits as i64;
        let exp_mask = (1i64 << format.exponent_bits) - 1;
        let c = b.zext(value, i32);
        let s = b.bin_imm(BinOp::LShr, c, 7);
        let sign = b.bin_imm(BinOp::Shl, s, 31);
        let ef0 = b.bin_imm(BinOp::LShr, c, m);
        let cem = b.const_i32(exp_mask);
        let ef = b.and(ef0, cem);
        let mf = b.bin_imm(BinOp::And, c, (1 << m) - 1);
        // Normal: rebias the exponent, move the mantissa up.
        let fe = b.bin_imm(BinOp::Add, ef, (127 - format.bias) as i64);
        let fe_s = b.bin_imm(BinOp::Shl, fe, 23);
        let mf_s = b.bin_imm(BinOp::Shl, mf, 23 - m);
        let nb = b.or(fe_s, mf_s);
        let normal_bits = b.or(nb, sign);
        let normal = b.bitcast(normal_bits, f32);
        // Subnormal: mantissa times the smallest subnormal.
        let mff = b.cast(CastOp::UiToFp, mf, f32);
        let scale = b.const_f32(2f32.powi(1 - format.bias - m as i32));
        let sub_mag = b.fmul(mff, scale);
        let sub_bits0 = b.bitcast(sub_mag, i32);
        let sub_bits = b.or(sub_bits0, sign);
        let sub = b.bitcast(sub_bits, f32);
        let zero = b.const_i32(0);
        let is_sub = b.icmp(IntPredicate::Eq, ef, zero);
        let result = b.select(is_sub, sub, normal);
        let nan = b.const_f32(f32::NAN);
        if format.has_inf {
            let is_special = b.icmp(IntPredicate::Eq, ef, cem);
            let inf_bits = b.const_i32(0x7f80_0000);
            let inf_s = b.or(inf_bits, sign);
            let inf = b.bitcast(inf_s, f32);
            let is_inf_m = b.icmp(IntPredicate::Eq, mf, zero);
            let special = b.select(is_inf_m, inf, nan);
            b.select(is_special, special, result)
        } else {
            let c7f = b.const_i32(0x7f);
            let low = b.and(c, c7f);
            let is_nan = b.icmp(IntPredicate::Eq, low, c7f);
            b.select(is_nan, nan, result)
        }
    }

    /// f32 to fp8 (`i8`), saturating finite values to the largest finite one.
    pub fn f32_to_fp8(&mut self, value: Value, format: Fp8Format, rounding: Rounding) -> Value {
        let i8 = self.b.i8();
        // cvt.rn.satfinite.{e4m3,e5m2}x2.f32 needs sm_89 and PTX ISA 7.8.
        if rounding == Rounding::NearestEven && self.capability >= 89 && self.ptx_version >= 78 {
            let i16 = self.b.i16();
            let packed = self.b.asm(
                &format!("cvt.rn.satfinite.{}x2.f32 $0, $1, $1;", format.ptx),
                "=h,f",
                &[value],
                i16,
            );
            return self.b.trunc(packed, i8);
        }
        let b = &mut self.b;
        let (i32, f32) = (b.i32(), b.f32());
        let m = format.mantissa_bits as i64;
        let bits = b.bitcast(value, i32);
        let s = b.bin_imm(BinOp::LShr, bits, 31);
        let a = b.intr(Intrinsic::FAbs, &[value]);
        let maxf = b.const_f32(format.max_finite);
        let a_sat = b.intr(Intrinsic::MinNum, &[a, maxf]);
        let ab = b.bitcast(a_sat, i32);
        let c23 = b.const_i32(23);
        let ae0 = b.lshr(ab, c23);
        let c127 = b.const_i32(127);
        let ae = b.sub(ae0, c127);
        let min_e = b.const_i32((1 - format.bias) as i64);
        let ex = b.intr(Intrinsic::SMax, &[ae, min_e]);
        // 1 / quantum = 2^(M - e), as f32 bits.
        let qe0 = b.sub(c127, ex);
        let cm = b.const_i32(m);
        let qe = b.add(qe0, cm);
        let qb = b.shl(qe, c23);
        let inv_q = b.bitcast(qb, f32);
        let n = b.fmul(a_sat, inv_q);
        let rounded = match rounding {
            Rounding::NearestEven => b.intr(Intrinsic::RoundEven, &[n]),
            Rounding::TowardZero => b.intr(Intrinsic::Trunc, &[n]),
        };
        // rounded * 2^(e - M) is the result; encode it.
        let ni = b.cast(CastOp::FpToUi, rounded, i32);
        // A mantissa that rounded up to 2^(M+1) moves to the next binade.
        let top = b.const_i32(1 << (m + 1));
        let carry = b.icmp(IntPredicate::Uge, ni, top);
        let one = b.const_i32(1);
        let ni_half = b.lshr(ni, one);
        let ni2 = b.select(carry, ni_half, ni);
        let ex1 = b.add(ex, one);
        let ex2 = b.select(carry, ex1, ex);
        // Normal when the implicit bit is set: code = (e + bias) << M | (n - 2^M).
        let implicit = b.const_i32(1 << m);
        let is_normal = b.icmp(IntPredicate::Uge, ni2, implicit);
        // (e + bias - 1) << M + n  ==  (e + bias) << M | (n - 2^M) for normal n.
        let eb = b.bin_imm(BinOp::Add, ex2, (format.bias - 1) as i64);
        let ebs = b.shl(eb, cm);
        let normal_code = b.add(ebs, ni2);
        let code = b.select(is_normal, normal_code, ni2);
        let sign = b.bin_imm(BinOp::Shl, s, 7);
        let signed = b.or(code, sign);
        let is_nan = b.fcmp(FloatPredicate::Uno, value, value);
        let nan_code = b.const_i32(0x7f);
        let result = b.select(is_nan, nan_code, signed);
        b.trunc(result, i8)
    }
}

/// MLIR's f16 type (the element type [`FuncLowering::convert_float`] takes).
fn f16_mlir_type(ctx: MlirContext) -> MlirType {
    // SAFETY: a builtin type of the live context.
    unsafe { mlirF16TypeGet(ctx) }
}

#[cfg(test)]
mod tests {
    use super::{E4M3FN as E4M3, E5M2, encode_fp8};

    #[test]
    fn fp8_constants() {
        assert_eq!(encode_fp8(1.0, E4M3), 0x38);
        assert_eq!(encode_fp8(-2.0, E4M3), 0xc0);
        assert_eq!(encode_fp8(448.0, E4M3), 0x7e);
        assert_eq!(encode_fp8(1e9, E4M3), 0x7e);
        assert_eq!(encode_fp8(f64::NAN, E4M3), 0x7f);
        assert_eq!(encode_fp8(2f64.powi(-9), E4M3), 0x01);
        // 1.0625 is halfway between 1 and 1.125: ties to even (1.0).
        assert_eq!(encode_fp8(1.0625, E4M3), 0x38);
        assert_eq!(encode_fp8(1.0, E5M2), 0x3c);
        assert_eq!(encode_fp8(57344.0, E5M2), 0x7b);
        assert_eq!(encode_fp8(0.0, E5M2), 0x00);
        assert_eq!(encode_fp8(2f64.powi(-16), E5M2), 0x01);
    }
}
