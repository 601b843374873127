//! `tt.dot` on CUDA cores (FMA): operands staged in shared memory.

use crate::to_llvm::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// `d = a * b + c` with FMAs: A and B are staged in shared memory from their (any) source
    /// layout; each thread then walks K, loading the A rows and B columns of its own C elements.
    pub(crate) fn lower_dot(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let c_type = value_type(ins[2]);
        let c_map = self.thread_map(op, c_type)?;
        let rank = c_map.shape.len();
        if rank != 2 && rank != 3 {
            return err(op, "tt.dot operands must be rank 2, or rank 3 (batched)");
        }
        // Batched dots carry a leading batch dimension through A, B and C.
        let batched = rank == 3;
        let (m, n) = (c_map.shape[rank - 2] as u64, c_map.shape[rank - 1] as u64);
        let mut staged = Vec::new();
        let mut offset = 0u64;
        for operand in &ins[..2] {
            let source = dot_operand_source(*operand);
            let ty = value_type(source);
            let elem = element_type(ty);
            let (_, bytes) = Self::smem_type(elem);
            let numel: u64 = shape(ty).iter().product::<i64>() as u64;
            let start = offset.div_ceil(16) * 16;
            offset = start + numel * bytes;
            staged.push((source, ty, elem, start));
        }
        let k = shape(staged[0].1)[rank - 1] as u64;
        self.reserve_scratch(offset);
        let base = self.smem_base();
        self.barrier();
        for (source, ty, elem, start) in &staged {
            let map = self.thread_map(op, *ty)?;
            let thread = self.thread_base(op, *ty)?;
            let region = self.region_base(&base, *start);
            let values = self.get(*source);
            for (r, coord) in map.registers.iter().enumerate() {
                if map.register_duplicate[r] {
                    continue;
                }
                let c = self.runtime_coord(&thread, coord);
                let index = self.linear_index(&c, &map.shape);
                self.smem_store(&region, &index, &values[r], *elem);
            }
        }
        self.barrier();
        // The rows and columns this thread's C registers need.
        let c_base = self.thread_base(op, c_type)?;
        // Row keys (batch, m) and column keys (batch, n) of this thread's C registers.
        let row_key = |c: &Vec<u32>| c[..rank - 1].to_vec();
        let col_key = |c: &Vec<u32>| {
            if batched {
                vec![c[0], c[2]]
            } else {
                vec![c[1]]
            }
        };
        let mut rows: Vec<Vec<u32>> = c_map.registers.iter().map(row_key).collect();
        rows.sort_unstable();
        rows.dedup();
        let mut cols: Vec<Vec<u32>> = c_map.registers.iter().map(col_key).collect();
        cols.sort_unstable();
        cols.dedup();
        let acc_type = element_type(c_type);
        let acc_lty = llvm_type(acc_type);
        let init = self.get(ins[2]);
        let count = init.len();
        let lb = self.e.constant(0, "i32");
        let ub = self.e.constant(k as i64, "i32");
        let step = self.e.constant(1, "i32");
        let iv = self.e.fresh();
        let args: Vec<String> = (0..count).map(|_| self.e.fresh()).collect();
        let result = self.e.fresh_raw();
        let iter_args: Vec<String> = args
            .iter()
            .zip(&init)
            .map(|(a, i)| format!("{a} = {i}"))
            .collect();
        self.e.open(&format!(
            "%r{result}:{count} = scf.for {iv} = {lb} to {ub} step {step} iter_args({}) -> ({}) : i32 {{",
            iter_args.join(", "),
            vec![acc_lty.clone(); count].join(", ")
        ));
        let a_region = self.region_base(&base, staged[0].3);
        let b_region = self.region_base(&base, staged[1].3);
        let k_const = self.e.constant(k as i64, "i32");
        let n_const = self.e.constant(n as i64, "i32");
        let a_batch = self.e.constant((m * k) as i64, "i32");
        let b_batch = self.e.constant((k * n) as i64, "i32");
        let mut a_values = HashMap::new();
        for row in &rows {
            // A[batch][m][k] at (batch * M + m) * K + k.
            let m_rt = self.runtime_coord(&c_base[rank - 2..rank - 1], &row[rank - 2..])[0].clone();
            let scaled = self.e.op(&format!("llvm.mul {m_rt}, {k_const} : i32"));
            let mut index = self.e.op(&format!("llvm.add {scaled}, {iv} : i32"));
            if batched {
                let b_rt = self.runtime_coord(&c_base[..1], &row[..1])[0].clone();
                let offset = self.e.op(&format!("llvm.mul {b_rt}, {a_batch} : i32"));
                index = self.e.op(&format!("llvm.add {index}, {offset} : i32"));
            }
            let v = self.smem_load(&a_region, &index, staged[0].2);
            a_values.insert(
                row.clone(),
                self.widen_to_accumulator(&v, staged[0].2, acc_type),
            );
        }
        let mut b_values = HashMap::new();
        for col in &cols {
            // B[batch][k][n] at (batch * K + k) * N + n.
            let n_rt = self.runtime_coord(&c_base[rank - 1..], &col[col.len() - 1..])[0].clone();
            let scaled = self.e.op(&format!("llvm.mul {iv}, {n_const} : i32"));
            let mut index = self.e.op(&format!("llvm.add {scaled}, {n_rt} : i32"));
            if batched {
                let b_rt = self.runtime_coord(&c_base[..1], &col[..1])[0].clone();
                let offset = self.e.op(&format!("llvm.mul {b_rt}, {b_batch} : i32"));
                index = self.e.op(&format!("llvm.add {index}, {offset} : i32"));
            }
            let v = self.smem_load(&b_region, &index, staged[1].2);
            b_values.insert(
                col.clone(),
                self.widen_to_accumulator(&v, staged[1].2, acc_type),
            );
        }
        let mut next = Vec::new();
        for (r, coord) in c_map.registers.iter().enumerate() {
            let (a, b) = (&a_values[&row_key(coord)], &b_values[&col_key(coord)]);
            let acc = &args[r];
            next.push(if is_float(acc_type) {
                self.e.op(&format!("llvm.intr.fma({a}, {b}, {acc}) : ({acc_lty}, {acc_lty}, {acc_lty}) -> {acc_lty}"))
            } else {
                let p = self.e.op(&format!("llvm.mul {a}, {b} : {acc_lty}"));
                self.e.op(&format!("llvm.add {p}, {acc} : {acc_lty}"))
            });
        }
        self.e.line(&format!(
            "scf.yield {} : {}",
            next.join(", "),
            vec![acc_lty.clone(); count].join(", ")
        ));
        self.e.close();
        let _ = m;
        let out: Vec<String> = (0..count).map(|i| format!("%r{result}#{i}")).collect();
        self.values.insert(key(outs[0]), out);
        Ok(())
    }

    /// An operand element widened to the accumulator type.
    pub(crate) fn widen_to_accumulator(
        &mut self,
        value: &str,
        from: MlirType,
        to: MlirType,
    ) -> String {
        let (fb, tb) = (type_bits(from), type_bits(to));
        let (fl, tl) = (llvm_type(from), llvm_type(to));
        if unsafe { mlirTypeEqual(from, to) } {
            value.to_owned()
        } else if is_float(from) && is_float(to) && fb < tb {
            self.e.op(&format!("llvm.fpext {value} : {fl} to {tl}"))
        } else if is_float(from) && is_float(to) {
            self.e.op(&format!("llvm.fptrunc {value} : {fl} to {tl}"))
        } else if !is_float(from) && !is_float(to) && fb < tb {
            self.e.op(&format!("llvm.sext {value} : {fl} to {tl}"))
        } else if !is_float(from) && is_float(to) {
            self.e.op(&format!("llvm.sitofp {value} : {fl} to {tl}"))
        } else {
            value.to_owned()
        }
    }
}

/// The tensor a dot operand was made from: through `ttg.convert_layout` or through
/// `ttg.local_load(ttg.local_alloc(x))` (as `-tritongpu-reduce-data-duplication` writes it).
fn dot_operand_source(operand: MlirValue) -> MlirValue {
    let Some(def) = defining_op(operand) else {
        return operand;
    };
    match op_name(def).as_str() {
        "ttg.convert_layout" => operands(def)[0],
        "ttg.local_load" => defining_op(operands(def)[0])
            .filter(|alloc| op_name(*alloc) == "ttg.local_alloc" && !operands(*alloc).is_empty())
            .map(|alloc| operands(alloc)[0])
            .unwrap_or(operand),
        _ => operand,
    }
}
