//! Program ids, index ranges, splats and pointer arithmetic.

use crate::builder::BinOp;
use crate::registry::OpLowering;
use crate::state::*;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// `tt.get_program_id` / `tt.get_num_programs`: `%ctaid.{x,y,z}` / `%nctaid.{x,y,z}`.
    pub fn lower_program_id(&mut self, o: &OpLowering) -> LResult<()> {
        let Some(axis) = ["x", "y", "z"].get(int_attr(o.op, "axis").unwrap_or(0) as usize) else {
            return err(o.op, "axis must be 0, 1 or 2");
        };
        let register = if o.name == "tt.get_program_id" {
            "ctaid"
        } else {
            "nctaid"
        };
        let v = self.b.special_register(&format!("{register}.{axis}"));
        self.set(o.outs[0], vec![v]);
        Ok(())
    }

    /// `tt.make_range`: register r holds `start + (R(r) ^ thread part)`.
    pub fn lower_make_range(&mut self, o: &OpLowering) -> LResult<()> {
        let ty = value_type(o.outs[0]);
        let map = self.thread_map(o.op, ty)?;
        let base = self.thread_base(o.op, ty)?;
        let start = int_attr(o.op, "start").unwrap_or(0);
        let mut regs = Vec::with_capacity(map.num_registers());
        // One entry each: the verifier makes the result a 1-D tensor.
        for coord in &map.registers {
            let x = self.b.bin_imm(BinOp::Xor, base[0], coord[0] as i64);
            regs.push(self.b.bin_imm(BinOp::Add, x, start));
        }
        self.set(o.outs[0], regs);
        Ok(())
    }

    /// `ub.poison` (a value no one reads before it is redefined, such as the placeholders of
    /// -tritongpu-fuse-nested-loops): `llvm.mlir.poison` in every register.
    pub fn lower_poison(&mut self, o: &OpLowering) -> LResult<()> {
        let ty = value_type(o.outs[0]);
        // SAFETY: a type query on a live type.
        if unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(ty) } {
            return err(
                o.op,
                "a poison shared-memory descriptor has no buffer to stand for",
            );
        }
        let count = self.register_count(o.op, ty)?;
        let llvm = self.llvm_type(element_type(ty));
        let v = self.b.poison(llvm);
        self.set(o.outs[0], vec![v; count]);
        Ok(())
    }

    /// `tt.splat`: every register holds the scalar.
    pub fn lower_splat(&mut self, o: &OpLowering) -> LResult<()> {
        let v = self.scalar(o.op, o.ins[0])?;
        let count = self.register_count(o.op, value_type(o.outs[0]))?;
        self.set(o.outs[0], vec![v; count]);
        Ok(())
    }

    /// `tt.addptr`: one `getelementptr` per register, over the pointee type.
    pub fn lower_addptr(&mut self, o: &OpLowering) -> LResult<()> {
        let ptrs = self.regs(o.op, o.ins[0])?;
        let offsets = self.regs(o.op, o.ins[1])?;
        let element = self.llvm_type(pointee(element_type(value_type(o.ins[0]))));
        let regs = ptrs
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                // Non-empty: `regs` returns at least one register.
                let offset = *offsets.get(i).unwrap_or(&offsets[0]);
                self.b.gep(p, offset, element)
            })
            .collect();
        self.set(o.outs[0], regs);
        Ok(())
    }
}
