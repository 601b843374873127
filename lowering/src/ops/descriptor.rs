//! Tensor descriptors without TMA: `tt.make_tensor_descriptor` keeps its base, shape and strides
//! as scalars, and `tt.descriptor_load`/`store`/`reduce` become per-element predicated global
//! accesses (bounds-checked against the shape; out-of-bounds loads give the padding value, zero
//! or NaN) from the registers of the distributed tensor.

use crate::ops::atomics::pick;
use crate::ops::memory::{asm_register, cache_suffix};
use crate::to_llvm::*;
use mlir_sys::*;
use tritium_dialects::ffi;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    pub(crate) fn lower_make_descriptor(
        &mut self,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        // [base, shape..., strides...]
        let values: Vec<String> = ins.iter().map(|v| self.scalar(*v)).collect();
        self.values.insert(key(outs[0]), values);
        Ok(())
    }

    /// Per register of `ty`: (element pointer, in-bounds predicate).
    fn descriptor_addresses(
        &mut self,
        op: MlirOperation,
        desc: MlirValue,
        indices: &[MlirValue],
        ty: MlirType,
    ) -> LResult<(Vec<String>, Vec<String>, String)> {
        let desc_type = value_type(desc);
        let block = unsafe { ffi::tritiumTensorDescTypeGetBlockType(desc_type) };
        let elem = element_type(block);
        let parts = self.get(desc);
        let rank = indices.len();
        if parts.len() != 1 + 2 * rank {
            return err(
                op,
                "tensor descriptors must come from tt.make_tensor_descriptor in the same kernel",
            );
        }
        let base = parts[0].clone();
        let base_ty = match defining_op(desc) {
            Some(d) => llvm_type(value_type(operands(d)[0])),
            None => "!llvm.ptr<1>".to_owned(),
        };
        let map = self.thread_map(op, ty)?;
        let thread = self.thread_base(op, ty)?;
        let dropped = rank - map.shape.len();
        let index_values: Vec<String> = indices.iter().map(|v| self.scalar(*v)).collect();
        let lty = llvm_type(elem);
        let mut ptrs = Vec::new();
        let mut preds = Vec::new();
        for coord in map.registers.clone() {
            let c = self.runtime_coord(&thread, &coord);
            let mut offset = self.e.constant(0, "i64");
            let mut pred = self.e.constant(1, "i1");
            for d in 0..rank {
                let g = if d < dropped {
                    index_values[d].clone()
                } else {
                    let local = &c[d - dropped];
                    self.e
                        .op(&format!("llvm.add {}, {local} : i32", index_values[d]))
                };
                let inside = self
                    .e
                    .op(&format!("llvm.icmp \"ult\" {g}, {} : i32", parts[1 + d]));
                pred = self.e.op(&format!("llvm.and {pred}, {inside} : i1"));
                let g64 = self.e.op(&format!("llvm.sext {g} : i32 to i64"));
                let term = self
                    .e
                    .op(&format!("llvm.mul {g64}, {} : i64", parts[1 + rank + d]));
                offset = self.e.op(&format!("llvm.add {offset}, {term} : i64"));
            }
            ptrs.push(self.e.op(&format!(
                "llvm.getelementptr {base}[{offset}] : ({base_ty}, i64) -> {base_ty}, {lty}"
            )));
            preds.push(pred);
        }
        Ok((ptrs, preds, base_ty))
    }

    pub(crate) fn lower_descriptor_load(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ty = value_type(outs[0]);
        let elem = element_type(ty);
        let bits = type_bits(elem);
        let (ptrs, preds, base_ty) = self.descriptor_addresses(op, ins[0], &ins[1..], ty)?;
        let nan_padding = defining_op(ins[0])
            .map(|d| int_attr(d, "padding") == Some(2))
            .unwrap_or(false);
        let (reg, letter, width) = asm_register(bits);
        let lty = llvm_type(elem);
        let cache = cache_suffix(op);
        let padding = if nan_padding && is_float(elem) {
            let nan = self
                .e
                .op("llvm.mlir.constant(0x7FF8000000000000 : f64) : f64");
            let v = if lty == "f64" {
                nan
            } else {
                self.e.op(&format!("llvm.fptrunc {nan} : f64 to {lty}"))
            };
            self.bits_of(&v, elem, bits)
        } else {
            self.e.constant(0, &format!("i{width}"))
        };
        let mut regs = Vec::with_capacity(ptrs.len());
        for (p, pred) in ptrs.iter().zip(&preds) {
            let raw = self.e.op(&format!(
                "llvm.inline_asm has_side_effects \"mov.b{width} $0, $3;\\n\\t@$2 ld.global{cache}.{reg} $0, [ $1 + 0 ];\", \"=&{letter},l,b,{letter}\" {p}, {pred}, {padding} : ({base_ty}, i1, i{width}) -> i{width}"
            ));
            regs.push(self.value_from_bits(&raw, elem, bits, width, &lty));
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// `tt.descriptor_store` (`kind` None) and `tt.descriptor_reduce`.
    pub(crate) fn lower_descriptor_store(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        reduce: bool,
    ) -> LResult<()> {
        let src = ins[1];
        let ty = value_type(src);
        let elem = element_type(ty);
        let bits = type_bits(elem);
        let (ptrs, preds, base_ty) = self.descriptor_addresses(op, ins[0], &ins[2..], ty)?;
        let map = self.thread_map(op, ty)?;
        let first = self.first_copy_predicate(&map);
        let values = self.get(src);
        let (reg, letter, width) = asm_register(bits);
        let instruction = if reduce {
            let float = is_float(elem);
            let name = print_type(elem);
            let suffix = match int_attr(op, "kind").unwrap_or(1) {
                1 if float && bits == 16 => format!("add.noftz.{name}"),
                1 if float => format!("add.{name}"),
                1 => format!("add.u{bits}"),
                2 if !float => format!("min.s{bits}"),
                3 if !float => format!("max.s{bits}"),
                4 if !float => format!("inc.u{bits}"),
                5 if !float => format!("dec.u{bits}"),
                6 => format!("and.b{bits}"),
                7 => format!("or.b{bits}"),
                8 => format!("xor.b{bits}"),
                _ => {
                    return err(
                        op,
                        format!("descriptor_reduce of this kind on {name} is not supported"),
                    );
                }
            };
            format!("red.relaxed.gpu.global.{suffix}")
        } else {
            format!("st.global.{reg}")
        };
        for (r, (p, pred)) in ptrs.iter().zip(&preds).enumerate() {
            if map.register_duplicate[r] {
                continue;
            }
            let pred = match &first {
                Some(f) => self.e.op(&format!("llvm.and {pred}, {f} : i1")),
                None => pred.clone(),
            };
            let v = pick(&values, r);
            let b = self.bits_of(&v, elem, bits);
            self.e.line(&format!(
                "llvm.inline_asm has_side_effects \"@$0 {instruction} [ $1 + 0 ], $2;\", \"b,l,{letter}\" {pred}, {p}, {b} : (i1, {base_ty}, i{width}) -> ()"
            ));
        }
        Ok(())
    }
}
