//! Tensor descriptors without TMA: `tt.make_tensor_descriptor` keeps its base, shape and strides
//! as scalars, and `tt.descriptor_load`/`store`/`reduce` become per-element predicated global
//! accesses (bounds-checked against the shape; out-of-bounds loads give the padding value, zero
//! or NaN) from the registers of the distributed tensor.

use crate::builder::{CastOp, IntPredicate, Value};
use crate::state::*;
use mlir_sys::*;
use tritium_dialects::ffi;
use tritium_passes::ir_util::*;

/// A short name of a scalar type for messages.
fn type_name(ty: MlirType) -> String {
    if let Some(name) = ptx_float_name(ty) {
        return name.to_owned();
    }
    // SAFETY: type query on a live type.
    if unsafe { mlirTypeIsAInteger(ty) } {
        format!("i{}", type_bits(ty))
    } else {
        format!("{}-bit elements", type_bits(ty))
    }
}

impl FuncLowering<'_> {
    pub fn lower_make_descriptor(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let Some(&out) = outs.first() else {
            return err(op, "tt.make_tensor_descriptor needs a result");
        };
        // [base, shape..., strides...]
        let mut values = Vec::with_capacity(ins.len());
        for v in ins {
            values.push(self.scalar(op, *v)?);
        }
        self.set(out, values);
        Ok(())
    }

    /// Per register of `ty`: (element pointer, in-bounds predicate).
    fn descriptor_addresses(
        &mut self,
        op: MlirOperation,
        desc: MlirValue,
        indices: &[MlirValue],
        ty: MlirType,
    ) -> LResult<(Vec<Value>, Vec<Value>)> {
        let desc_type = value_type(desc);
        // SAFETY: type query on a live type.
        if !unsafe { ffi::tritiumTypeIsTensorDesc(desc_type) } {
            return err(op, "expected a !tt.tensordesc operand");
        }
        // SAFETY: `desc_type` is a `!tt.tensordesc` (checked above).
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
        // `parts` is [base, shape..., strides...] with `rank` of each (checked above), and
        // `index_values` has `rank` entries: every index below is in range.
        let base = parts[0];
        let map = self.thread_map(op, ty)?;
        let thread = self.thread_base(op, ty)?;
        let Some(dropped) = rank.checked_sub(map.shape.len()) else {
            return err(
                op,
                "the block has more dimensions than the descriptor has indices",
            );
        };
        let mut index_values = Vec::with_capacity(rank);
        for v in indices {
            index_values.push(self.scalar(op, *v)?);
        }
        let lty = self.llvm_type(elem);
        let i64 = self.b.i64();
        let mut ptrs = Vec::with_capacity(map.registers.len());
        let mut preds = Vec::with_capacity(map.registers.len());
        for coord in &map.registers {
            let c = self.runtime_coord(&thread, coord);
            let mut offset = self.b.const_i64(0);
            let mut pred = self.b.const_bool(true);
            for d in 0..rank {
                let g = if d < dropped {
                    index_values[d]
                } else {
                    let Some(&local) = c.get(d - dropped) else {
                        return err(op, "internal error: a coordinate is missing");
                    };
                    self.b.add(index_values[d], local)
                };
                let inside = self.b.icmp(IntPredicate::Ult, g, parts[1 + d]);
                pred = self.b.and(pred, inside);
                let g64 = self.b.sext(g, i64);
                let term = self.b.mul(g64, parts[1 + rank + d]);
                offset = self.b.add(offset, term);
            }
            ptrs.push(self.b.gep(base, offset, lty));
            preds.push(pred);
        }
        Ok((ptrs, preds))
    }

    pub fn lower_descriptor_load(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (Some(&desc), Some(&out)) = (ins.first(), outs.first()) else {
            return err(op, "tt.descriptor_load needs a descriptor and a result");
        };
        let ty = value_type(out);
        let elem = element_type(ty);
        let bits = type_bits(elem);
        let (ptrs, preds) = self.descriptor_addresses(op, desc, &ins[1..], ty)?;
        let nan_padding = defining_op(desc)
            .map(|d| int_attr(d, "padding") == Some(2))
            .unwrap_or(false);
        let (reg, letter, width) = asm_register(bits);
        let lty = self.llvm_type(elem);
        let cache = cache_suffix(op);
        let padding = if nan_padding && is_float(elem) {
            let nan = self.b.const_f64(f64::from_bits(0x7FF8000000000000));
            let v = self.b.cast(CastOp::FpTrunc, nan, lty);
            self.bits_of(v, elem, bits)
        } else {
            let int = self.b.int_type(width);
            self.b.const_int(int, 0)
        };
        let raw_type = self.b.int_type(width);
        let mut regs = Vec::with_capacity(ptrs.len());
        for (&p, &pred) in ptrs.iter().zip(&preds) {
            let raw = self.b.asm_volatile(
                &format!("mov.b{width} $0, $3;\n\t@$2 ld.global{cache}.{reg} $0, [ $1 + 0 ];"),
                &format!("=&{letter},l,b,{letter}"),
                &[p, pred, padding],
                raw_type,
            );
            regs.push(self.value_from_bits(raw, elem, bits, width));
        }
        self.set(out, regs);
        Ok(())
    }

    /// `tt.descriptor_store` (`reduce` false) and `tt.descriptor_reduce`.
    pub fn lower_descriptor_store(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        reduce: bool,
    ) -> LResult<()> {
        let (Some(&desc), Some(&src)) = (ins.first(), ins.get(1)) else {
            return err(op, "a descriptor store needs a descriptor and a value");
        };
        let ty = value_type(src);
        let elem = element_type(ty);
        let bits = type_bits(elem);
        let (ptrs, preds) = self.descriptor_addresses(op, desc, &ins[2..], ty)?;
        let map = self.thread_map(op, ty)?;
        let first = self.first_copy_predicate(&map);
        let values = self.regs(op, src)?;
        let (reg, letter, _) = asm_register(bits);
        let instruction = if reduce {
            let float = is_float(elem);
            let name = ptx_float_name(elem);
            let suffix = match (int_attr(op, "kind").unwrap_or(1), name) {
                (1, Some(name)) if float && bits == 16 => format!("add.noftz.{name}"),
                (1, Some(name)) if float => format!("add.{name}"),
                (1, _) if !float => format!("add.u{bits}"),
                (2, _) if !float => format!("min.s{bits}"),
                (3, _) if !float => format!("max.s{bits}"),
                (4, _) if !float => format!("inc.u{bits}"),
                (5, _) if !float => format!("dec.u{bits}"),
                (6, _) => format!("and.b{bits}"),
                (7, _) => format!("or.b{bits}"),
                (8, _) => format!("xor.b{bits}"),
                _ => {
                    return err(
                        op,
                        format!(
                            "descriptor_reduce of this kind on {} is not supported",
                            type_name(elem)
                        ),
                    );
                }
            };
            format!("red.relaxed.gpu.global.{suffix}")
        } else {
            format!("st.global.{reg}")
        };
        for (r, (&p, &pred)) in ptrs.iter().zip(&preds).enumerate() {
            if map.register_duplicate.get(r) == Some(&true) {
                continue;
            }
            let pred = match first {
                Some(f) => self.b.and(pred, f),
                None => pred,
            };
            let Some(v) = pick(&values, r) else {
                return err(op, "internal error: the stored value has no lowered value");
            };
            let b = self.bits_of(v, elem, bits);
            self.b.inline_asm(
                &format!("@$0 {instruction} [ $1 + 0 ], $2;"),
                &format!("b,l,{letter}"),
                &[pred, p, b],
                None,
                true,
            );
        }
        Ok(())
    }
}
