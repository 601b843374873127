//! `tt.gather` and `tt.histogram`, both through shared memory.

use crate::builder::{AtomicBinOp, AtomicOrdering, IntPredicate, Value};
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// The first operand and result of `op`.
fn operand_and_result(op: MlirOperation, what: &str) -> LResult<(MlirValue, MlirValue)> {
    match (operands(op).first(), results(op).first()) {
        (Some(&src), Some(&out)) => Ok((src, out)),
        _ => err(op, format!("{what} needs an operand and a result")),
    }
}

/// Shared-memory scratch of `tt.gather`, in bytes: the whole source tensor.
pub fn gather_scratch(op: MlirOperation) -> LResult<u64> {
    let (src, _) = operand_and_result(op, "tt.gather")?;
    let src_type = value_type(src);
    let src_map = thread_map_of(op, src_type)?;
    Ok(src_map.numel() * smem_bytes(element_type(src_type)))
}

/// Shared-memory scratch of `tt.histogram`, in bytes: one i32 counter per bin.
pub fn histogram_scratch(op: MlirOperation) -> LResult<u64> {
    let (_, out) = operand_and_result(op, "tt.histogram")?;
    let out_map = thread_map_of(op, value_type(out))?;
    Ok(out_map.numel() * 4)
}

impl FuncLowering<'_> {
    /// An index register as i32.
    fn index_i32(&mut self, value: Value, ty: MlirType) -> Value {
        let i32 = self.b.i32();
        match type_bits(ty) {
            32 => value,
            b if b > 32 => self.b.trunc(value, i32),
            _ => self.b.sext(value, i32),
        }
    }

    /// `scf.if cond { body }` (no results, no else).
    fn if_then(&mut self, cond: Value, body: impl FnOnce(&mut Self) -> LResult<()>) -> LResult<()> {
        let after = self.b.begin_if(cond);
        let result = body(self);
        self.b.restore(after);
        result
    }

    /// `tt.gather`: the source goes to shared memory; each result element reads the source at
    /// its own coordinates with the axis coordinate replaced by its index.
    pub(crate) fn lower_gather(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (Some(&src), Some(&idx), Some(&out)) = (ins.first(), ins.get(1), outs.first()) else {
            return err(op, "tt.gather needs a source, indices and a result");
        };
        let src_type = value_type(src);
        let idx_type = value_type(idx);
        let out_type = value_type(out);
        let src_map = self.thread_map(op, src_type)?;
        let out_map = self.thread_map(op, out_type)?;
        let axis = int_attr(op, "axis").unwrap_or(0);
        let axis = match usize::try_from(axis) {
            Ok(a) if a < src_map.shape.len() && a < out_map.shape.len() => a,
            _ => return err(op, format!("axis {axis} is out of range")),
        };
        if out_map.shape.len() != src_map.shape.len() {
            return err(op, "tt.gather: the result and source ranks differ");
        }
        let elem = element_type(src_type);
        self.reserve_scratch(gather_scratch(op)?);
        let src_vals = self.regs(op, src)?;
        let indices = self.regs(op, idx)?;
        let src_base = self.thread_base(op, src_type)?;
        let out_base = self.thread_base(op, out_type)?;
        let base = self.smem_base();
        self.barrier_before_write();
        for (r, coord) in src_map.registers.iter().enumerate() {
            if src_map.register_duplicate.get(r).copied().unwrap_or(false) {
                continue;
            }
            let Some(&value) = src_vals.get(r) else {
                return err(op, "internal error: the source has too few registers");
            };
            let c = self.runtime_coord(&src_base, coord);
            let index = self.linear_index(&c, &src_map.shape);
            self.smem_store(base, index, value, elem);
        }
        self.barrier();
        let idx_elem = element_type(idx_type);
        let mut regs = Vec::with_capacity(out_map.num_registers());
        for (r, coord) in out_map.registers.iter().enumerate() {
            // `c` has the result's rank, which `axis` is below (checked above).
            let mut c = self.runtime_coord(&out_base, coord);
            let picked = pick_reg(op, &indices, r)?;
            c[axis] = self.index_i32(picked, idx_elem);
            let index = self.linear_index(&c, &src_map.shape);
            regs.push(self.smem_load(base, index, elem));
        }
        self.set(out, regs);
        Ok(())
    }

    /// `tt.histogram`: bins in shared memory (zeroed by the CTA), one shared atomic add per
    /// element held (first copies only, masked and in-range), then each thread reads its bins.
    pub(crate) fn lower_histogram(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (Some(&src), Some(&out)) = (ins.first(), outs.first()) else {
            return err(op, "tt.histogram needs an operand and a result");
        };
        let src_type = value_type(src);
        let out_type = value_type(out);
        let src_map = self.thread_map(op, src_type)?;
        let out_map = self.thread_map(op, out_type)?;
        if out_map.shape.len() != 1 {
            return err(op, "tt.histogram needs a rank-1 result");
        }
        let threads = self.num_warps as u64 * self.threads_per_warp as u64;
        if threads == 0 {
            return err(
                op,
                format!(
                    "tt.histogram needs at least one thread (num-warps {}, threads-per-warp {})",
                    self.num_warps, self.threads_per_warp
                ),
            );
        }
        let bins = out_map.numel();
        let out_elem = element_type(out_type);
        let out_bits = type_bits(out_elem);
        let src_elem = element_type(src_type);
        self.reserve_scratch(histogram_scratch(op)?);
        let values = self.regs(op, src)?;
        let masks = match ins.get(1) {
            Some(m) => Some(self.regs(op, *m)?),
            None => None,
        };
        let base = self.smem_base();
        let i32 = self.b.i32();
        self.barrier_before_write();
        // Zero the bins.
        let zero = self.b.const_i32(0);
        let step = usize::try_from(threads).unwrap_or(usize::MAX);
        for start in (0..bins).step_by(step) {
            let s = self.b.const_i32(start as i64);
            let index = self.b.add(self.tid, s);
            let limit = self.b.const_i32(bins as i64);
            let inside = self.b.icmp(IntPredicate::Slt, index, limit);
            self.if_then(inside, |this| {
                let address = this.smem_address(base, index, i32);
                this.b.store(zero, address);
                Ok(())
            })?;
        }
        self.barrier();
        let first = self.first_copy_predicate(&src_map);
        let limit = self.b.const_i32(bins as i64);
        let one = self.b.const_i32(1);
        for r in 0..src_map.num_registers() {
            if src_map.register_duplicate.get(r).copied().unwrap_or(false) {
                continue;
            }
            let Some(&value) = values.get(r) else {
                return err(op, "internal error: the operand has too few registers");
            };
            let v = self.index_i32(value, src_elem);
            let nonneg = self.b.icmp(IntPredicate::Sge, v, zero);
            let below = self.b.icmp(IntPredicate::Slt, v, limit);
            let mut pred = self.b.and(nonneg, below);
            if let Some(p) = first {
                pred = self.b.and(pred, p);
            }
            if let Some(m) = &masks {
                let mv = pick_reg(op, m, r)?;
                pred = self.b.and(pred, mv);
            }
            self.if_then(pred, |this| {
                let address = this.smem_address(base, v, i32);
                this.b.atomic_rmw(
                    AtomicBinOp::Add,
                    address,
                    one,
                    AtomicOrdering::Monotonic,
                    None,
                );
                Ok(())
            })?;
        }
        self.barrier();
        let out_base = self.thread_base(op, out_type)?;
        let mut regs = Vec::with_capacity(out_map.num_registers());
        for coord in &out_map.registers {
            // One entry: the result is rank 1 (checked above).
            let c = self.runtime_coord(&out_base, coord);
            let address = self.smem_address(base, c[0], i32);
            let count = self.b.load(address, i32);
            let out_ty = self.b.int_type(out_bits);
            regs.push(match out_bits {
                32 => count,
                b if b > 32 => self.b.zext(count, out_ty),
                _ => self.b.trunc(count, out_ty),
            });
        }
        self.set(out, regs);
        Ok(())
    }
}
