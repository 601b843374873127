//! `tt.gather` and `tt.histogram`, both through shared memory.

use crate::ops::atomics::pick;
use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// An index register as i32.
    fn index_i32(&mut self, value: &str, ty: MlirType) -> String {
        match type_bits(ty) {
            32 => value.to_owned(),
            b if b > 32 => self.e.op(&format!("llvm.trunc {value} : i{b} to i32")),
            b => self.e.op(&format!("llvm.sext {value} : i{b} to i32")),
        }
    }

    /// `tt.gather`: the source goes to shared memory; each result element reads the source at
    /// its own coordinates with the axis coordinate replaced by its index.
    pub(crate) fn lower_gather(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let src_type = value_type(ins[0]);
        let idx_type = value_type(ins[1]);
        let out_type = value_type(outs[0]);
        let src_map = self.thread_map(op, src_type)?;
        let out_map = self.thread_map(op, out_type)?;
        let elem = element_type(src_type);
        let (_, bytes) = Self::smem_type(elem);
        self.reserve_scratch(src_map.numel() * bytes);
        let src_vals = self.get(ins[0]);
        let indices = self.get(ins[1]);
        let src_base = self.thread_base(op, src_type)?;
        let out_base = self.thread_base(op, out_type)?;
        let base = self.smem_base();
        self.barrier();
        for (r, coord) in src_map.registers.iter().enumerate() {
            if src_map.register_duplicate[r] {
                continue;
            }
            let c = self.runtime_coord(&src_base, coord);
            let index = self.linear_index(&c, &src_map.shape);
            self.smem_store(&base, &index, &src_vals[r], elem);
        }
        self.barrier();
        let idx_elem = element_type(idx_type);
        let mut regs = Vec::with_capacity(out_map.num_registers());
        for (r, coord) in out_map.registers.clone().iter().enumerate() {
            let mut c = self.runtime_coord(&out_base, coord);
            c[axis] = self.index_i32(&pick(&indices, r), idx_elem);
            let index = self.linear_index(&c, &src_map.shape);
            regs.push(self.smem_load(&base, &index, elem));
        }
        self.values.insert(key(outs[0]), regs);
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
        let src_type = value_type(ins[0]);
        let out_type = value_type(outs[0]);
        let src_map = self.thread_map(op, src_type)?;
        let out_map = self.thread_map(op, out_type)?;
        let bins = out_map.numel();
        let out_elem = element_type(out_type);
        let out_bits = type_bits(out_elem);
        let src_elem = element_type(src_type);
        self.reserve_scratch(bins * 4);
        let values = self.get(ins[0]);
        let masks = ins.get(1).map(|m| self.get(*m));
        let base = self.smem_base();
        let threads = (self.num_warps * self.threads_per_warp) as u64;
        self.barrier();
        // Zero the bins.
        let zero = self.e.constant(0, "i32");
        for start in (0..bins).step_by(threads as usize) {
            let s = self.e.constant(start as i64, "i32");
            let index = self.e.op(&format!("llvm.add {}, {s} : i32", self.tid));
            let limit = self.e.constant(bins as i64, "i32");
            let inside = self
                .e
                .op(&format!("llvm.icmp \"slt\" {index}, {limit} : i32"));
            self.e.open(&format!("scf.if {inside} {{"));
            let address = self.smem_address(&base, &index, "i32");
            self.e
                .line(&format!("llvm.store {zero}, {address} : i32, !llvm.ptr<3>"));
            self.e.close();
        }
        self.barrier();
        let first = self.first_copy_predicate(&src_map);
        let limit = self.e.constant(bins as i64, "i32");
        let one = self.e.constant(1, "i32");
        for (r, _) in src_map.registers.iter().enumerate() {
            if src_map.register_duplicate[r] {
                continue;
            }
            let v = self.index_i32(&values[r], src_elem);
            let nonneg = self.e.op(&format!("llvm.icmp \"sge\" {v}, {zero} : i32"));
            let below = self.e.op(&format!("llvm.icmp \"slt\" {v}, {limit} : i32"));
            let mut pred = self.e.op(&format!("llvm.and {nonneg}, {below} : i1"));
            if let Some(p) = &first {
                pred = self.e.op(&format!("llvm.and {pred}, {p} : i1"));
            }
            if let Some(m) = &masks {
                let mv = pick(m, r);
                pred = self.e.op(&format!("llvm.and {pred}, {mv} : i1"));
            }
            self.e.open(&format!("scf.if {pred} {{"));
            let address = self.smem_address(&base, &v, "i32");
            self.e.op(&format!(
                "llvm.atomicrmw add {address}, {one} monotonic : !llvm.ptr<3>, i32"
            ));
            self.e.close();
        }
        self.barrier();
        let out_base = self.thread_base(op, out_type)?;
        let mut regs = Vec::with_capacity(out_map.num_registers());
        for coord in out_map.registers.clone() {
            let c = self.runtime_coord(&out_base, &coord);
            let address = self.smem_address(&base, &c[0], "i32");
            let count = self
                .e
                .op(&format!("llvm.load {address} : !llvm.ptr<3> -> i32"));
            regs.push(match out_bits {
                32 => count,
                b if b > 32 => self.e.op(&format!("llvm.zext {count} : i32 to i{b}")),
                b => self.e.op(&format!("llvm.trunc {count} : i32 to i{b}")),
            });
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }
}
