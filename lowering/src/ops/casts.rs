//! Float conversions: `tt.fp_to_fp` and `arith.extf`/`truncf`/`sitofp`/... when an fp8 type or
//! round-toward-zero is involved. fp8 values live in `i8`; they decode to f32 exactly in
//! software, and f32 encodes to fp8 with `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` on sm_89+ (round to
//! nearest even) or in software otherwise (either rounding, saturating to the largest finite
//! value like `.satfinite`).

use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// Parameters of an 8-bit float format.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fp8Format {
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    pub bias: i32,
    /// The format has infinities (E5M2); otherwise the all-ones pattern is NaN (E4M3FN).
    pub has_inf: bool,
    pub max_finite: f32,
    /// PTX `cvt` name (`e4m3`, `e5m2`) where the hardware converts.
    pub ptx: &'static str,
}

pub(crate) fn fp8_format(ty: MlirType) -> Option<Fp8Format> {
    match print_type(ty).as_str() {
        "f8E4M3FN" => Some(Fp8Format {
            exponent_bits: 4,
            mantissa_bits: 3,
            bias: 7,
            has_inf: false,
            max_finite: 448.0,
            ptx: "e4m3",
        }),
        "f8E5M2" => Some(Fp8Format {
            exponent_bits: 5,
            mantissa_bits: 2,
            bias: 15,
            has_inf: true,
            max_finite: 57344.0,
            ptx: "e5m2",
        }),
        _ => None,
    }
}

/// The fp8 encoding of `value` (round to nearest even, saturating finite values), on the CPU:
/// for constants.
pub(crate) fn encode_fp8(value: f64, format: Fp8Format) -> u8 {
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
pub(crate) enum Rounding {
    NearestEven,
    TowardZero,
}

impl FuncLowering<'_> {
    /// `tt.fp_to_fp` and arith float casts that need more than MLIR's standard conversion.
    pub(crate) fn lower_float_cast(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let from = element_type(value_type(ins[0]));
        let to = element_type(value_type(outs[0]));
        let rounding = match name {
            "tt.fp_to_fp" if int_attr(op, "rounding") == Some(0) => Rounding::TowardZero,
            "arith.truncf" if int_attr(op, "roundingmode") == Some(3) => Rounding::TowardZero,
            _ => Rounding::NearestEven,
        };
        let values = self.get(ins[0]);
        let mut regs = Vec::with_capacity(values.len());
        for v in values {
            let converted = match name {
                "arith.sitofp" | "arith.uitofp" => {
                    let op_name = if name == "arith.sitofp" {
                        "llvm.sitofp"
                    } else {
                        "llvm.uitofp"
                    };
                    let f = self
                        .e
                        .op(&format!("{op_name} {v} : {} to f32", llvm_type(from)));
                    let f32 = unsafe { mlirF32TypeGet(context_of(op)) };
                    self.convert_float(op, &f, f32, to, rounding)?
                }
                "arith.fptosi" | "arith.fptoui" => {
                    let f32 = unsafe { mlirF32TypeGet(context_of(op)) };
                    let f = self.convert_float(op, &v, from, f32, rounding)?;
                    let op_name = if name == "arith.fptosi" {
                        "llvm.fptosi"
                    } else {
                        "llvm.fptoui"
                    };
                    self.e
                        .op(&format!("{op_name} {f} : f32 to {}", llvm_type(to)))
                }
                _ => self.convert_float(op, &v, from, to, rounding)?,
            };
            regs.push(converted);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// Converts one scalar between float types (fp8 included).
    pub(crate) fn convert_float(
        &mut self,
        op: MlirOperation,
        value: &str,
        from: MlirType,
        to: MlirType,
        rounding: Rounding,
    ) -> LResult<String> {
        if unsafe { mlirTypeEqual(from, to) } {
            return Ok(value.to_owned());
        }
        let f32 = unsafe { mlirF32TypeGet(context_of(op)) };
        if is_fp8(from) {
            let Some(format) = fp8_format(from) else {
                return err(
                    op,
                    format!("conversion from {} is not supported", print_type(from)),
                );
            };
            let wide = self.fp8_to_f32(value, format);
            return self.convert_float(op, &wide, f32, to, rounding);
        }
        if is_fp8(to) {
            let Some(format) = fp8_format(to) else {
                return err(
                    op,
                    format!("conversion to {} is not supported", print_type(to)),
                );
            };
            let wide = self.convert_float(op, value, from, f32, rounding)?;
            return Ok(self.f32_to_fp8(&wide, format, rounding));
        }
        let (fb, tb) = (type_bits(from), type_bits(to));
        let (fl, tl) = (llvm_type(from), llvm_type(to));
        if fb < tb || (fb == 16 && tb == 32) {
            return Ok(self.e.op(&format!("llvm.fpext {value} : {fl} to {tl}")));
        }
        if fb == tb {
            // f16 <-> bf16: exactly to f32, then round.
            let wide = self.e.op(&format!("llvm.fpext {value} : {fl} to f32"));
            return self.convert_float(op, &wide, f32, to, rounding);
        }
        match rounding {
            Rounding::NearestEven => Ok(self.e.op(&format!("llvm.fptrunc {value} : {fl} to {tl}"))),
            Rounding::TowardZero => {
                if fl == "f64" && tl == "bf16" {
                    let mid = self.convert_float(op, value, from, f32, rounding)?;
                    return self.convert_float(op, &mid, f32, to, rounding);
                }
                let (out_c, in_c) = (float_constraint(tb), float_constraint(fb));
                Ok(self.e.op(&format!(
                    "llvm.inline_asm \"cvt.rz.{tl}.{fl} $0, $1;\", \"={out_c},{in_c}\" {value} : ({fl}) -> {tl}"
                )))
            }
        }
    }

    /// An fp8 (held as `i8`) decoded exactly to f32.
    pub(crate) fn fp8_to_f32(&mut self, value: &str, format: Fp8Format) -> String {
        let e = &mut self.e;
        let m = format.mantissa_bits;
        let exp_mask = (1 << format.exponent_bits) - 1;
        let c = e.op(&format!("llvm.zext {value} : i8 to i32"));
        let c7 = e.constant(7, "i32");
        let s = e.op(&format!("llvm.lshr {c}, {c7} : i32"));
        let c31 = e.constant(31, "i32");
        let sign = e.op(&format!("llvm.shl {s}, {c31} : i32"));
        let cm = e.constant(m as i64, "i32");
        let ef0 = e.op(&format!("llvm.lshr {c}, {cm} : i32"));
        let cem = e.constant(exp_mask, "i32");
        let ef = e.op(&format!("llvm.and {ef0}, {cem} : i32"));
        let cmm = e.constant((1 << m) - 1, "i32");
        let mf = e.op(&format!("llvm.and {c}, {cmm} : i32"));
        // Normal: rebias the exponent, move the mantissa up.
        let rebias = e.constant((127 - format.bias) as i64, "i32");
        let fe = e.op(&format!("llvm.add {ef}, {rebias} : i32"));
        let c23 = e.constant(23, "i32");
        let fe_s = e.op(&format!("llvm.shl {fe}, {c23} : i32"));
        let cms = e.constant((23 - m) as i64, "i32");
        let mf_s = e.op(&format!("llvm.shl {mf}, {cms} : i32"));
        let nb = e.op(&format!("llvm.or {fe_s}, {mf_s} : i32"));
        let normal_bits = e.op(&format!("llvm.or {nb}, {sign} : i32"));
        let normal = e.op(&format!("llvm.bitcast {normal_bits} : i32 to f32"));
        // Subnormal: mantissa times the smallest subnormal.
        let mff = e.op(&format!("llvm.uitofp {mf} : i32 to f32"));
        let scale = e.constant_f32(2f32.powi(1 - format.bias - m as i32));
        let sub_mag = e.op(&format!("llvm.fmul {mff}, {scale} : f32"));
        let sub_bits0 = e.op(&format!("llvm.bitcast {sub_mag} : f32 to i32"));
        let sub_bits = e.op(&format!("llvm.or {sub_bits0}, {sign} : i32"));
        let sub = e.op(&format!("llvm.bitcast {sub_bits} : i32 to f32"));
        let zero = e.constant(0, "i32");
        let is_sub = e.op(&format!("llvm.icmp \"eq\" {ef}, {zero} : i32"));
        let mut result = e.op(&format!("llvm.select {is_sub}, {sub}, {normal} : i1, f32"));
        let nan = e.constant_f32(f32::NAN);
        if format.has_inf {
            let is_special = e.op(&format!("llvm.icmp \"eq\" {ef}, {cem} : i32"));
            let inf_bits = e.constant(0x7f80_0000, "i32");
            let inf_s = e.op(&format!("llvm.or {inf_bits}, {sign} : i32"));
            let inf = e.op(&format!("llvm.bitcast {inf_s} : i32 to f32"));
            let is_inf_m = e.op(&format!("llvm.icmp \"eq\" {mf}, {zero} : i32"));
            let special = e.op(&format!("llvm.select {is_inf_m}, {inf}, {nan} : i1, f32"));
            result = e.op(&format!(
                "llvm.select {is_special}, {special}, {result} : i1, f32"
            ));
        } else {
            let c7f = e.constant(0x7f, "i32");
            let low = e.op(&format!("llvm.and {c}, {c7f} : i32"));
            let is_nan = e.op(&format!("llvm.icmp \"eq\" {low}, {c7f} : i32"));
            result = e.op(&format!("llvm.select {is_nan}, {nan}, {result} : i1, f32"));
        }
        result
    }

    /// f32 to fp8 (`i8`), saturating finite values to the largest finite one.
    pub(crate) fn f32_to_fp8(
        &mut self,
        value: &str,
        format: Fp8Format,
        rounding: Rounding,
    ) -> String {
        if rounding == Rounding::NearestEven && self.capability >= 89 {
            let packed = self.e.op(&format!(
                "llvm.inline_asm \"cvt.rn.satfinite.{}x2.f32 $0, $1, $1;\", \"=h,f\" {value} : (f32) -> i16",
                format.ptx
            ));
            return self.e.op(&format!("llvm.trunc {packed} : i16 to i8"));
        }
        let e = &mut self.e;
        let m = format.mantissa_bits as i64;
        let bits = e.op(&format!("llvm.bitcast {value} : f32 to i32"));
        let c31 = e.constant(31, "i32");
        let s = e.op(&format!("llvm.lshr {bits}, {c31} : i32"));
        let a = e.op(&format!("llvm.intr.fabs({value}) : (f32) -> f32"));
        let maxf = e.constant_f32(format.max_finite);
        let a_sat = e.op(&format!(
            "llvm.intr.minnum({a}, {maxf}) : (f32, f32) -> f32"
        ));
        let ab = e.op(&format!("llvm.bitcast {a_sat} : f32 to i32"));
        let c23 = e.constant(23, "i32");
        let ae0 = e.op(&format!("llvm.lshr {ab}, {c23} : i32"));
        let c127 = e.constant(127, "i32");
        let ae = e.op(&format!("llvm.sub {ae0}, {c127} : i32"));
        let min_e = e.constant((1 - format.bias) as i64, "i32");
        let ex = e.op(&format!(
            "llvm.intr.smax({ae}, {min_e}) : (i32, i32) -> i32"
        ));
        // 1 / quantum = 2^(M - e), as f32 bits.
        let qe0 = e.op(&format!("llvm.sub {c127}, {ex} : i32"));
        let cm = e.constant(m, "i32");
        let qe = e.op(&format!("llvm.add {qe0}, {cm} : i32"));
        let qb = e.op(&format!("llvm.shl {qe}, {c23} : i32"));
        let inv_q = e.op(&format!("llvm.bitcast {qb} : i32 to f32"));
        let n = e.op(&format!("llvm.fmul {a_sat}, {inv_q} : f32"));
        let rounded = match rounding {
            Rounding::NearestEven => e.op(&format!("llvm.intr.roundeven({n}) : (f32) -> f32")),
            Rounding::TowardZero => e.op(&format!("llvm.intr.trunc({n}) : (f32) -> f32")),
        };
        // rounded * 2^(e - M) is the result; encode it.
        let ni = e.op(&format!("llvm.fptoui {rounded} : f32 to i32"));
        // A mantissa that rounded up to 2^(M+1) moves to the next binade.
        let top = e.constant(1 << (m + 1), "i32");
        let carry = e.op(&format!("llvm.icmp \"uge\" {ni}, {top} : i32"));
        let one = e.constant(1, "i32");
        let ni_half = e.op(&format!("llvm.lshr {ni}, {one} : i32"));
        let ni2 = e.op(&format!("llvm.select {carry}, {ni_half}, {ni} : i1, i32"));
        let ex1 = e.op(&format!("llvm.add {ex}, {one} : i32"));
        let ex2 = e.op(&format!("llvm.select {carry}, {ex1}, {ex} : i1, i32"));
        // Normal when the implicit bit is set: code = (e + bias) << M | (n - 2^M).
        let implicit = e.constant(1 << m, "i32");
        let is_normal = e.op(&format!("llvm.icmp \"uge\" {ni2}, {implicit} : i32"));
        let cb = e.constant((format.bias - 1) as i64, "i32");
        // (e + bias - 1) << M + n  ==  (e + bias) << M | (n - 2^M) for normal n.
        let eb = e.op(&format!("llvm.add {ex2}, {cb} : i32"));
        let ebs = e.op(&format!("llvm.shl {eb}, {cm} : i32"));
        let normal_code = e.op(&format!("llvm.add {ebs}, {ni2} : i32"));
        let code = e.op(&format!(
            "llvm.select {is_normal}, {normal_code}, {ni2} : i1, i32"
        ));
        let c7 = e.constant(7, "i32");
        let sign = e.op(&format!("llvm.shl {s}, {c7} : i32"));
        let signed = e.op(&format!("llvm.or {code}, {sign} : i32"));
        let is_nan = e.op(&format!("llvm.fcmp \"uno\" {value}, {value} : f32"));
        let nan_code = e.constant(0x7f, "i32");
        let result = e.op(&format!(
            "llvm.select {is_nan}, {nan_code}, {signed} : i1, i32"
        ));
        e.op(&format!("llvm.trunc {result} : i32 to i8"))
    }
}

/// Inline-asm constraint letter of a float register of `bits`.
pub(crate) fn float_constraint(bits: u32) -> &'static str {
    match bits {
        64 => "d",
        16 => "h",
        _ => "f",
    }
}

#[cfg(test)]
mod tests {
    use super::{Fp8Format, encode_fp8};

    const E4M3: Fp8Format = Fp8Format {
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
