//! `tt.dot` on CUDA cores (FMA): operands staged in shared memory.

use crate::builder::*;
use crate::state::*;
use mlir_sys::*;
use tritium_layout::encoding::Encoding;
use tritium_passes::ir_util::*;

/// One dot operand as staged in shared memory: the tensor it is made from and where it goes.
struct Staged {
    source: MlirValue,
    ty: MlirType,
    elem: MlirType,
    /// Byte offset of its region in the dot's scratch.
    start: u64,
}

/// The tensor a dot operand was made from: through `ttg.convert_layout` or through
/// `ttg.local_load(ttg.local_alloc(x))` (as `-tritongpu-reduce-data-duplication` writes it).
/// A `ttg.local_load` of a buffer filled otherwise (`ttg.local_store`, or a memdesc not made by
/// a `ttg.local_alloc` of a tensor) is the operand itself: ops/local.rs reads such a load from
/// the buffer (keep its `allocated_from_tensor` in step with this).
fn dot_operand_source(operand: MlirValue) -> MlirValue {
    let Some(def) = defining_op(operand) else {
        return operand;
    };
    match op_name(def).as_str() {
        "ttg.convert_layout" => operands(def).first().copied().unwrap_or(operand),
        "ttg.local_load" => operands(def)
            .first()
            .and_then(|&memdesc| defining_op(memdesc))
            .filter(|alloc| op_name(*alloc) == "ttg.local_alloc")
            .and_then(|alloc| operands(alloc).first().copied())
            .unwrap_or(operand),
        _ => operand,
    }
}

/// The staged A and B of a `tt.dot` (16-byte aligned regions, A first) and the bytes they take.
fn staging(op: MlirOperation) -> LResult<(Vec<Staged>, u64)> {
    let ins = operands(op);
    if ins.len() < 3 {
        return err(op, "tt.dot needs operands a, b and c");
    }
    let mut staged = Vec::with_capacity(2);
    let mut offset = 0u64;
    for operand in &ins[..2] {
        let source = dot_operand_source(*operand);
        let ty = value_type(source);
        if !is_tensor(ty) {
            return err(op, "tt.dot operands must be tensors");
        }
        let elem = element_type(ty);
        let mut numel = 1u64;
        for d in shape(ty) {
            match u64::try_from(d) {
                Ok(d) => numel *= d,
                Err(_) => return err(op, "tt.dot operands need static shapes"),
            }
        }
        let start = offset.div_ceil(16) * 16;
        offset = start + numel * smem_bytes(elem);
        staged.push(Staged {
            source,
            ty,
            elem,
            start,
        });
    }
    Ok((staged, offset))
}

/// Shared-memory scratch of `tt.dot` (A and B staged), in bytes, from its types alone.
pub fn dot_scratch(op: MlirOperation) -> LResult<u64> {
    if is_mma_dot(op) {
        // Tensor-core operands arrive in registers, already in their dot-operand layouts.
        return Ok(0);
    }
    Ok(staging(op)?.1)
}

/// Whether a `tt.dot` accumulates in an `#ttg.nvidia_mma` layout (tensor cores).
pub fn is_mma_dot(op: MlirOperation) -> bool {
    results(op)
        .first()
        .is_some_and(|&d| matches!(encoding_of(value_type(d)), Some(Encoding::NvidiaMma(_))))
}

impl FuncLowering<'_> {
    /// `d = a * b + c` with FMAs: A and B are staged in shared memory from their (any) source
    /// layout; each thread then walks K, loading the A rows and B columns of its own C elements.
    pub fn lower_dot(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        if is_mma_dot(op) {
            return self.lower_mma_dot(op, ins, outs);
        }
        let (Some(&c_value), Some(&out)) = (ins.get(2), outs.first()) else {
            return err(op, "tt.dot needs operands a, b and c and a result");
        };
        let c_type = value_type(c_value);
        let c_map = self.thread_map(op, c_type)?;
        let rank = c_map.shape.len();
        if rank != 2 && rank != 3 {
            return err(op, "tt.dot operands must be rank 2, or rank 3 (batched)");
        }
        // Batched dots carry a leading batch dimension through A, B and C.
        let batched = rank == 3;
        let (m, n) = (c_map.shape[rank - 2] as u64, c_map.shape[rank - 1] as u64);
        let (staged, _) = staging(op)?;
        let [a_staged, b_staged] = &staged[..] else {
            return err(op, "internal error: tt.dot stages two operands");
        };
        let (a_shape, b_shape) = (shape(a_staged.ty), shape(b_staged.ty));
        if a_shape.len() != rank || b_shape.len() != rank {
            return err(op, "tt.dot operands must have the rank of the accumulator");
        }
        // Every coordinate and thread base below has `rank` (2 or 3) entries, row keys
        // `rank - 1` and column keys `rank - 1` (batch, n) or 1 (n); `runtime_coord` of one dim
        // gives one value.
        let k = a_shape[rank - 1] as u64;
        self.reserve_scratch(dot_scratch(op)?);
        let base = self.smem_base();
        self.barrier();
        for s in &staged {
            let map = self.thread_map(op, s.ty)?;
            let thread = self.thread_base(op, s.ty)?;
            let region = self.region_base(base, s.start);
            let values = self.regs(op, s.source)?;
            if values.len() < map.num_registers() {
                return err(op, "internal error: a dot operand has too few registers");
            }
            // `register_duplicate` has one entry per register, and `values` at least as many.
            for (r, coord) in map.registers.iter().enumerate() {
                if map.register_duplicate[r] {
                    continue;
                }
                let c = self.runtime_coord(&thread, coord);
                let index = self.linear_index(&c, &map.shape);
                self.smem_store(region, index, values[r], s.elem);
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
        // Each C register's row (in `rows`) and column (in `cols`).
        let mut pairs = Vec::with_capacity(c_map.num_registers());
        for coord in &c_map.registers {
            match (
                rows.binary_search(&row_key(coord)),
                cols.binary_search(&col_key(coord)),
            ) {
                (Ok(row), Ok(col)) => pairs.push((row, col)),
                _ => {
                    return err(
                        op,
                        "internal error: a C register without its A row or B column",
                    );
                }
            }
        }
        let acc_type = element_type(c_type);
        let acc_lty = self.llvm_type(acc_type);
        let init = self.regs(op, c_value)?;
        let count = init.len();
        if count != c_map.num_registers() {
            return err(
                op,
                "internal error: the accumulator has the wrong number of registers",
            );
        }
        let lb = self.b.const_i32(0);
        let ub = self.b.const_i32(k as i64);
        let step = self.b.const_i32(1);
        let mut block_types = vec![self.b.i32()];
        block_types.extend(std::iter::repeat_n(acc_lty, count));
        let (region, body) = self.b.region_with_block(&block_types);
        let body_args = block_args(body);
        // The body was made with the induction variable first.
        let (iv, accs) = (body_args[0], &body_args[1..]);
        let saved = self.b.save();
        self.b.set_end(body);
        let a_region = self.region_base(base, a_staged.start);
        let b_region = self.region_base(base, b_staged.start);
        let k_const = self.b.const_i32(k as i64);
        let n_const = self.b.const_i32(n as i64);
        let a_batch = self.b.const_i32((m * k) as i64);
        let b_batch = self.b.const_i32((k * n) as i64);
        let mut a_values = Vec::with_capacity(rows.len());
        for row in &rows {
            // A[batch][m][k] at (batch * M + m) * K + k.
            let m_rt = self.runtime_coord(&c_base[rank - 2..rank - 1], &row[rank - 2..])[0];
            let scaled = self.b.mul(m_rt, k_const);
            let mut index = self.b.add(scaled, iv);
            if batched {
                let b_rt = self.runtime_coord(&c_base[..1], &row[..1])[0];
                let offset = self.b.mul(b_rt, a_batch);
                index = self.b.add(index, offset);
            }
            let v = self.smem_load(a_region, index, a_staged.elem);
            let widened = self.widen_to_accumulator(v, a_staged.elem, acc_type);
            a_values.push(widened);
        }
        let mut b_values = Vec::with_capacity(cols.len());
        for col in &cols {
            // B[batch][k][n] at (batch * K + k) * N + n.
            let n_rt = self.runtime_coord(&c_base[rank - 1..], &col[col.len() - 1..])[0];
            let scaled = self.b.mul(iv, n_const);
            let mut index = self.b.add(scaled, n_rt);
            if batched {
                let b_rt = self.runtime_coord(&c_base[..1], &col[..1])[0];
                let offset = self.b.mul(b_rt, b_batch);
                index = self.b.add(index, offset);
            }
            let v = self.smem_load(b_region, index, b_staged.elem);
            let widened = self.widen_to_accumulator(v, b_staged.elem, acc_type);
            b_values.push(widened);
        }
        let mut next = Vec::with_capacity(count);
        // `row`/`col` are positions in `rows`/`cols`, which `a_values`/`b_values` follow.
        for (&(row, col), &acc) in pairs.iter().zip(accs) {
            let (a, b) = (a_values[row], b_values[col]);
            next.push(if is_float(acc_type) {
                self.b.intr(Intrinsic::Fma, &[a, b, acc])
            } else {
                let p = self.b.mul(a, b);
                self.b.add(p, acc)
            });
        }
        self.b.create("scf.yield", &next, &[], &[], Vec::new());
        self.b.restore(saved);
        let mut loop_operands = vec![lb, ub, step];
        loop_operands.extend(init);
        let result_types = vec![acc_lty; count];
        let lowered = self
            .b
            .create("scf.for", &loop_operands, &result_types, &[], vec![region]);
        self.set(out, Builder::results_of(lowered));
        Ok(())
    }

    /// An operand element widened to the accumulator type.
    fn widen_to_accumulator(&mut self, value: Value, from: MlirType, to: MlirType) -> Value {
        let (fb, tb) = (type_bits(from), type_bits(to));
        let tl = self.llvm_type(to);
        if type_equal(from, to) {
            value
        } else if let Some(format) = crate::ops::casts::fp8_format(from) {
            // fp8 elements are held as i8: decoded exactly, then narrowed if need be.
            let wide = self.fp8_to_f32(value, format);
            if is_f32(to) {
                wide
            } else {
                self.b.cast(CastOp::FpTrunc, wide, tl)
            }
        } else if is_float(from) && is_float(to) && fb < tb {
            self.b.cast(CastOp::FpExt, value, tl)
        } else if is_float(from) && is_float(to) {
            self.b.cast(CastOp::FpTrunc, value, tl)
        } else if !is_float(from) && !is_float(to) && fb < tb {
            self.b.sext(value, tl)
        } else if !is_float(from) && is_float(to) {
            self.b.cast(CastOp::SiToFp, value, tl)
        } else {
            value
        }
    }
}
