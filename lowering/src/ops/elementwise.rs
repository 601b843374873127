//! Elementwise ops: constants, scalar arith/math per register, inline-asm elementwise ops and the f32 fast paths.

use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    pub(crate) fn lower_constant(&mut self, op: MlirOperation, outs: &[MlirValue]) -> LResult<()> {
        let key_name = std::ffi::CString::new("value").unwrap();
        let ty = value_type(outs[0]);
        let attr = unsafe {
            mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(key_name.as_ptr()))
        };
        let scalar_attr = unsafe {
            if mlirAttributeIsADenseElements(attr) {
                if !mlirDenseElementsAttrIsSplat(attr) {
                    return err(
                        op,
                        "non-splat dense constants are not supported by the lowering yet",
                    );
                }
                mlirDenseElementsAttrGetSplatValue(attr)
            } else {
                attr
            }
        };
        let elem = element_type(ty);
        let text = print_attr(scalar_attr);
        let value = if let Some(format) = is_fp8(elem)
            .then(|| crate::ops::casts::fp8_format(elem))
            .flatten()
        {
            let number: f64 = text
                .split(':')
                .next()
                .unwrap_or("0")
                .trim()
                .parse()
                .unwrap_or(0.0);
            let code = crate::ops::casts::encode_fp8(number, format);
            self.e
                .op(&format!("llvm.mlir.constant({} : i8) : i8", code as i8))
        } else if unsafe { mlirTypeIsAIndex(elem) } {
            let v = text.split(':').next().unwrap_or("0").trim().to_owned();
            self.e.op(&format!("llvm.mlir.constant({v} : i64) : i64"))
        } else {
            self.e
                .op(&format!("llvm.mlir.constant({text}) : {}", llvm_type(elem)))
        };
        let count = if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        };
        self.values.insert(key(outs[0]), vec![value; count]);
        Ok(())
    }

    /// Any scalar arith/math op, applied to each register.
    pub(crate) fn lower_elementwise(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let mut attrs = inherent_attrs_text(op);
        // Like Triton (allow_fp_fusion), a multiply feeding an add may become one fma.
        if matches!(name, "arith.addf" | "arith.subf" | "arith.mulf") {
            attrs = attrs.replace("#arith.fastmath<none>", "#arith.fastmath<contract>");
        }
        let operand_types: Vec<String> = ins
            .iter()
            .map(|v| llvm_type(element_type(value_type(*v))))
            .collect();
        let result_types: Vec<String> = outs
            .iter()
            .map(|v| llvm_type(element_type(value_type(*v))))
            .collect();
        let count = outs
            .first()
            .map(|v| value_type(*v))
            .filter(|t| is_tensor(*t))
            .map(|t| self.thread_map(op, t))
            .transpose()?
            .map(|m| m.num_registers())
            .unwrap_or(1);
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let mut regs = Vec::new();
        for r in 0..count {
            let args: Vec<String> = inputs
                .iter()
                .map(|vals| vals.get(r).or(vals.first()).cloned().unwrap_or_default())
                .collect();
            let v = self.e.op(&format!(
                "\"{name}\"({}){attrs} : ({}) -> {}",
                args.join(", "),
                operand_types.join(", "),
                result_types.join(", ")
            ));
            regs.push(v);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    pub(crate) fn lower_elementwise_asm(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
        asm: &str,
        constraints: &str,
    ) -> LResult<()> {
        let ty = value_type(outs[0]);
        let elem = llvm_type(element_type(ty));
        let count = if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        };
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let types: Vec<String> = ins
            .iter()
            .map(|v| llvm_type(element_type(value_type(*v))))
            .collect();
        let mut regs = Vec::new();
        for r in 0..count {
            let args: Vec<String> = inputs
                .iter()
                .map(|vals| vals.get(r).or(vals.first()).cloned().unwrap_or_default())
                .collect();
            regs.push(self.e.op(&format!(
                "llvm.inline_asm \"{asm}\", \"{constraints}\" {} : ({}) -> {elem}",
                args.join(", "),
                types.join(", ")
            )));
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// `e^x` for f32 within about 2 ulp, at the cost of a few FMAs over Triton's single
    /// `ex2.approx(x * log2e)` (whose error grows with |x|): Cody-Waite reduction
    /// `x = t*ln2 + r` with `t = rint(x*log2e)` and a two-part ln2, `ex2.approx` on the small
    /// `r*log2e`, then an exact scaling by `2^t` built from exponent bits (in two halves so
    /// subnormal results and overflow to infinity come out right).
    pub(crate) fn exp_f32(&mut self, x: &str) -> String {
        let e = &mut self.e;
        let log2e = e.constant_f32(std::f32::consts::LOG2_E);
        let ln2_hi = e.constant_f32(-f32::from_bits(0x3F31_7200));
        let ln2_lo = e.constant_f32(-f32::from_bits(0x35BF_BE8E));
        let scaled = e.op(&format!("llvm.fmul {x}, {log2e} : f32"));
        let t = e.op(&format!("llvm.intr.rint({scaled}) : (f32) -> f32"));
        let r1 = e.op(&format!(
            "llvm.intr.fma({t}, {ln2_hi}, {x}) : (f32, f32, f32) -> f32"
        ));
        let r = e.op(&format!(
            "llvm.intr.fma({t}, {ln2_lo}, {r1}) : (f32, f32, f32) -> f32"
        ));
        let r2 = e.op(&format!("llvm.fmul {r}, {log2e} : f32"));
        let mantissa = e.op(&format!(
            "llvm.inline_asm \"ex2.approx.f32 $0, $1;\", \"=f,f\" {r2} : (f32) -> f32"
        ));
        let low = e.constant_f32(-252.0);
        let high = e.constant_f32(254.0);
        let clamped_low = e.op(&format!("llvm.intr.maxnum({t}, {low}) : (f32, f32) -> f32"));
        let clamped = e.op(&format!(
            "llvm.intr.minnum({clamped_low}, {high}) : (f32, f32) -> f32"
        ));
        let ti = e.op(&format!("llvm.fptosi {clamped} : f32 to i32"));
        let one = e.constant(1, "i32");
        let half = e.op(&format!("llvm.ashr {ti}, {one} : i32"));
        let rest = e.op(&format!("llvm.sub {ti}, {half} : i32"));
        let bias = e.constant(127, "i32");
        let shift = e.constant(23, "i32");
        let mut value = mantissa;
        for part in [half, rest] {
            let biased = e.op(&format!("llvm.add {part}, {bias} : i32"));
            let bits = e.op(&format!("llvm.shl {biased}, {shift} : i32"));
            let scale = e.op(&format!("llvm.bitcast {bits} : i32 to f32"));
            value = e.op(&format!("llvm.fmul {value}, {scale} : f32"));
        }
        let overflow = e.constant_f32(88.722_84);
        let underflow = e.constant_f32(-103.972_08);
        let infinity = e.constant_f32(f32::INFINITY);
        let zero = e.constant_f32(0.0);
        let big = e.op(&format!("llvm.fcmp \"ogt\" {x}, {overflow} : f32"));
        let small = e.op(&format!("llvm.fcmp \"olt\" {x}, {underflow} : f32"));
        let value = e.op(&format!("llvm.select {big}, {infinity}, {value} : i1, f32"));
        e.op(&format!("llvm.select {small}, {zero}, {value} : i1, f32"))
    }

    /// f32 transcendentals and division as Triton emits them: the approximate PTX instructions
    /// (exp uses the accurate [`Self::exp_f32`]).
    pub(crate) fn lower_fast_math(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ty = value_type(outs[0]);
        let count = if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        };
        let a = self.get(ins[0]);
        let b = ins.get(1).map(|v| self.get(*v)).unwrap_or_default();
        let mut regs = Vec::new();
        for r in 0..count {
            let x = a.get(r).or(a.first()).cloned().unwrap_or_default();
            let v = match name {
                "math.exp" => self.exp_f32(&x),
                "math.exp2" => self.e.op(&format!(
                    "llvm.inline_asm \"ex2.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.log2" => self.e.op(&format!(
                    "llvm.inline_asm \"lg2.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.log" => {
                    let l = self.e.op(&format!(
                        "llvm.inline_asm \"lg2.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                    ));
                    let ln2 = self.e.constant_f32(std::f32::consts::LN_2);
                    self.e.op(&format!("llvm.fmul {l}, {ln2} : f32"))
                }
                "math.rsqrt" => self.e.op(&format!(
                    "llvm.inline_asm \"rsqrt.approx.ftz.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.sin" => self.e.op(&format!(
                    "llvm.inline_asm \"sin.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.cos" => self.e.op(&format!(
                    "llvm.inline_asm \"cos.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                _ => {
                    let y = b.get(r).or(b.first()).cloned().unwrap_or_default();
                    self.e.op(&format!("llvm.inline_asm \"div.full.f32 $0, $1, $2;\", \"=f,f,f\" {x}, {y} : (f32, f32) -> f32"))
                }
            };
            regs.push(v);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }
}
