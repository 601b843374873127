//! Elementwise ops: constants, scalar `arith`/`math` ops applied per register, and elementwise
//! inline PTX.

use crate::builder::*;
use crate::state::*;
use mlir_sys::*;
use tritium_dialects::ffi;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// `arith.constant` (scalar or splat): one `llvm.mlir.constant`, shared by every register.
    pub fn lower_constant(&mut self, op: MlirOperation, outs: &[MlirValue]) -> LResult<()> {
        let ty = value_type(outs[0]);
        let Some(attr) = attribute(op, "value") else {
            return err(op, "arith.constant without a value");
        };
        // SAFETY: attribute queries on a live attribute.
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
        let lty = self.llvm_type(elem);
        // SAFETY: attribute kind queries and getters on a live attribute of the matching kind.
        let value = unsafe {
            if is_fp8(elem) {
                let Some(format) = crate::ops::casts::fp8_format(elem) else {
                    return err(op, "unsupported 8-bit float type");
                };
                let number = if mlirAttributeIsAFloat(scalar_attr) {
                    mlirFloatAttrGetValueDouble(scalar_attr)
                } else {
                    0.0
                };
                let code = crate::ops::casts::encode_fp8(number, format);
                self.b.const_int(lty, code as i8 as i64)
            } else if mlirAttributeIsAInteger(scalar_attr) {
                let v = mlirIntegerAttrGetValueInt(scalar_attr);
                self.b.const_int(lty, v)
            } else if mlirAttributeIsABool(scalar_attr) {
                self.b
                    .const_int(lty, mlirBoolAttrGetValue(scalar_attr) as i64)
            } else if mlirAttributeIsAFloat(scalar_attr) {
                self.b.const_attr(lty, scalar_attr)
            } else {
                return err(op, "unsupported constant attribute");
            }
        };
        let count = self.register_count(op, ty)?;
        self.set(outs[0], vec![value; count]);
        Ok(())
    }

    /// Any scalar `arith`/`math` op, rebuilt per register on the registers' scalar types with the
    /// op's own attributes (MLIR's arith/math-to-LLVM conversions finish them).
    pub fn lower_elementwise(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        // SAFETY: attribute iteration over a live op; indices stay below the count.
        let mut attrs: Vec<(String, MlirAttribute)> = unsafe {
            (0..mlirOperationGetNumAttributes(op))
                .map(|i| {
                    let named = mlirOperationGetAttribute(op, i);
                    (
                        ffi::string_ref_str(mlirIdentifierStr(named.name)).to_owned(),
                        named.attribute,
                    )
                })
                .collect()
        };
        // Like Triton (allow_fp_fusion), a multiply feeding an add may become one fma.
        if matches!(name, "arith.addf" | "arith.subf" | "arith.mulf") {
            let (none, contract) = (self.b.arith_fastmath(false), self.b.arith_fastmath(true));
            // Only `none` widens to `contract`; other flags stay as written.
            match attrs.iter_mut().find(|(n, _)| n == "fastmath") {
                // SAFETY: comparing uniqued attributes of one context.
                Some(entry) if unsafe { mlirAttributeEqual(entry.1, none) } => entry.1 = contract,
                Some(_) => {}
                None => attrs.push(("fastmath".into(), contract)),
            }
        }
        let attr_refs: Vec<(&str, MlirAttribute)> =
            attrs.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        let result_types: Vec<MlirType> = outs.iter().map(|v| self.elem_llvm_type(*v)).collect();
        let Some(&out) = outs.first() else {
            return err(op, "expected a result");
        };
        self.lower_per_register(op, ins, out, |b, args| {
            Builder::result(b.create(name, args, &result_types, &attr_refs, Vec::new()))
        })
    }

    /// `out`'s registers, each `lower` of the same register of every operand in `ins` (a
    /// broadcast operand's single register serves all).
    pub fn lower_per_register(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        out: MlirValue,
        mut lower: impl FnMut(&mut Builder, &[Value]) -> Value,
    ) -> LResult<()> {
        let count = self.register_count(op, value_type(out))?;
        let mut inputs = Vec::with_capacity(ins.len());
        for v in ins {
            inputs.push(self.regs(op, *v)?);
        }
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let args: Vec<Value> = inputs
                .iter()
                .map(|vals| pick_reg(op, vals, r))
                .collect::<LResult<_>>()?;
            regs.push(lower(&mut self.b, &args));
        }
        self.set(out, regs);
        Ok(())
    }

    /// An elementwise op given as one inline-PTX instruction per register.
    pub fn lower_elementwise_asm(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
        asm: &str,
        constraints: &str,
    ) -> LResult<()> {
        let elem = self.llvm_type(element_type(value_type(outs[0])));
        self.lower_per_register(op, ins, outs[0], |b, args| {
            b.asm(asm, constraints, args, elem)
        })
    }
}
