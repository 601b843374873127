//! Asynchronous global → shared copies (sm_80+): `ttg.async_copy_global_to_local` →
//! `cp.async`, `ttg.async_commit_group` → `cp.async.commit_group`, `ttg.async_wait` →
//! `cp.async.wait_group` and a barrier. Tokens are lowered to nothing: the commit groups are
//! the hardware's own ordering.
//!
//! Each thread copies the elements its registers of the pointer tensor's layout hold, in runs of
//! up to 16 bytes that are contiguous both in global memory (the op's `contiguity`) and in the
//! buffer (its offset map, swizzled or not). A masked-off run is zero-filled (`src-size` 0):
//! `other` must be zero (or absent), as Triton only pipelines such loads.

use crate::builder::*;
use crate::ops::local::OffsetCache;
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;
use tritium_passes::ttir::util::is_zero_constant;

impl FuncLowering<'_> {
    pub fn lower_async_copy(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let src = nth(op, ins, 0, "the pointers")?;
        let memdesc = nth(op, ins, 1, "the buffer")?;
        let mask = ins.get(2).copied();
        if let Some(&other) = ins.get(3)
            && !is_zero_constant(other)
        {
            return err(
                op,
                "ttg.async_copy_global_to_local with a nonzero `other` is not supported (cp.async zero-fills)",
            );
        }
        let buffer = self.buffer_of(op, memdesc)?;
        self.barrier_before_async_write();
        let ty = value_type(src);
        let map = self.thread_map(op, ty)?;
        if map.shape.len() != buffer.shape.len() {
            return err(op, "the pointers and the buffer differ in rank");
        }
        let pointers = self.regs(op, src)?;
        let masks = match mask {
            Some(m) => Some(self.regs(op, m)?),
            None => None,
        };
        let bytes = smem_bytes(buffer.elem) as usize;
        let contiguity = int_attr(op, "contiguity").unwrap_or(1).max(1) as usize;
        let layout_vec = crate::ops::local::store_vector_width(&map, &buffer);
        let mut vec = layout_vec.min(contiguity).min(16 / bytes.max(1)).max(1);
        // cp.async moves 4, 8 or 16 bytes.
        while vec > 1 && !matches!(vec * bytes, 4 | 8 | 16) {
            vec /= 2;
        }
        if !matches!(vec * bytes, 4 | 8 | 16) {
            return err(
                op,
                "cp.async moves 4, 8 or 16 bytes: the element type and layout give less",
            );
        }
        let width = vec * bytes;
        let cache = if width == 16 { "cg" } else { "ca" };
        let asm = format!("cp.async.{cache}.shared.global [$0], [$1], {width}, $2;");
        let thread = self.thread_base(op, ty)?;
        let mut offsets = OffsetCache::default();
        let i32t = self.b.i32();
        let i64t = self.b.i64();
        let (storage, _) = self.smem_type(buffer.elem);
        let full = self.b.const_i32(width as i64);
        let none = self.b.const_i32(0);
        for (r, coord) in map.registers.iter().enumerate().step_by(vec) {
            if map.register_duplicate[r] {
                continue;
            }
            let index = self.element_offset(&map, &buffer, &thread, coord, &mut offsets);
            let address = self.smem_address(buffer.base, index, storage);
            let shared = self.b.cast(CastOp::PtrToInt, address, i64t);
            let shared = self.b.trunc(shared, i32t);
            let pointer = pick_reg(op, &pointers, r)?;
            let size = match &masks {
                Some(m) => {
                    let bit = pick_reg(op, m, r)?;
                    self.b.select(bit, full, none)
                }
                None => full,
            };
            self.b
                .inline_asm(&asm, "r,l,r", &[shared, pointer, size], None, true);
        }
        if let Some(&token) = outs.first() {
            self.set(token, Vec::new());
        }
        Ok(())
    }

    pub fn lower_async_commit(&mut self, outs: &[MlirValue]) -> LResult<()> {
        self.b
            .inline_asm("cp.async.commit_group;", "", &[], None, true);
        if let Some(&token) = outs.first() {
            self.set(token, Vec::new());
        }
        Ok(())
    }

    pub fn lower_async_wait(&mut self, op: MlirOperation, outs: &[MlirValue]) -> LResult<()> {
        let num = int_attr(op, "num").unwrap_or(0).max(0);
        self.b.inline_asm(
            &format!("cp.async.wait_group {num};"),
            "~{memory}",
            &[],
            None,
            true,
        );
        // Each thread's copies are complete; the barrier makes every thread's visible.
        self.barrier();
        if let Some(&token) = outs.first() {
            self.set(token, Vec::new());
        }
        Ok(())
    }
}
