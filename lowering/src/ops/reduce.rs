//! `tt.reduce`: within a thread, across lanes with butterfly shuffles, across warps through shared memory.

use crate::builder::{CastOp, Value};
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// The axis attribute of a reduce or scan, checked against the rank.
pub(crate) fn reduction_axis(op: MlirOperation, rank: usize) -> LResult<usize> {
    let axis = int_attr(op, "axis").unwrap_or(0);
    match usize::try_from(axis) {
        Ok(axis) if axis < rank => Ok(axis),
        _ => err(
            op,
            format!("axis {axis} is out of range for a rank-{rank} tensor"),
        ),
    }
}

/// Register `r` of a lowered value, or a located error.
fn register(op: MlirOperation, regs: &[Value], r: usize) -> LResult<Value> {
    match regs.get(r) {
        Some(&v) => Ok(v),
        None => err(op, "internal error: an operand has too few registers"),
    }
}

/// The warp bits whose basis moves along `axis`.
fn warp_axis_bits(warp_bases: &[Vec<u32>], axis: usize) -> Vec<usize> {
    warp_bases
        .iter()
        .enumerate()
        .filter(|(_, b)| b.get(axis).is_some_and(|&c| c != 0))
        .map(|(i, _)| i)
        .collect()
}

/// Whether a rank >= 2 reduction finishes in registers: no warp moves along the axis, and the
/// result's layout gives every lane and warp the rows it reduced itself (the slice of the
/// operand's layout: lanes along the axis become copies).
fn reduces_in_registers(
    map: &crate::layout_map::ThreadMap,
    out_map: &crate::layout_map::ThreadMap,
    axis: usize,
) -> bool {
    let drop_axis = |b: &Vec<u32>| -> Vec<u32> {
        b.iter()
            .enumerate()
            .filter(|(d, _)| *d != axis)
            .map(|(_, &c)| c)
            .collect()
    };
    warp_axis_bits(&map.warp_bases, axis).is_empty()
        && map.lane_bases.len() == out_map.lane_bases.len()
        && map.warp_bases.len() == out_map.warp_bases.len()
        && map
            .lane_bases
            .iter()
            .zip(&out_map.lane_bases)
            .all(|(a, b)| drop_axis(a) == *b)
        && map
            .warp_bases
            .iter()
            .zip(&out_map.warp_bases)
            .all(|(a, b)| drop_axis(a) == *b)
        && out_map.registers.iter().all(|oc| {
            let mut key = oc.clone();
            key.insert(axis, 0);
            map.registers.iter().any(|c| {
                c.iter()
                    .enumerate()
                    .all(|(d, &v)| if d == axis { true } else { v == key[d] })
            })
        })
}

/// Shared-memory scratch of `tt.reduce`, in bytes, from its types and layouts alone (0 when it
/// needs none).
pub fn reduce_scratch(op: MlirOperation) -> LResult<u64> {
    let ins = operands(op);
    let Some(&first) = ins.first() else {
        return err(op, "tt.reduce needs an operand");
    };
    let map = thread_map_of(op, value_type(first))?;
    let axis = reduction_axis(op, map.shape.len())?;
    let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
    let warps = 1u64 << warp_axis_bits(&map.warp_bases, axis).len();
    if map.shape.len() == 1 {
        if warps == 1 {
            return Ok(0);
        }
        return Ok(FuncLowering::operand_regions(&elems, warps).1);
    }
    let Some(&out) = results(op).first() else {
        return err(op, "tt.reduce needs a result");
    };
    let out_map = thread_map_of(op, value_type(out))?;
    if reduces_in_registers(&map, &out_map, axis) {
        return Ok(0);
    }
    Ok(FuncLowering::operand_regions(&elems, warps * out_map.numel()).1)
}

/// The `shfl.sync` modes the lowering uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shuffle {
    /// From lane `lane ^ mask`.
    Xor,
    /// From lane `lane - delta` (lanes below `delta` keep their own value).
    Up,
    /// From the lane given per thread.
    Index,
}

impl FuncLowering<'_> {
    /// Byte offsets of one shared-memory region per operand, each `slots` elements of its
    /// type and 16-byte aligned, and the total bytes.
    pub(crate) fn operand_regions(elems: &[MlirType], slots: u64) -> (Vec<u64>, u64) {
        let mut starts = Vec::with_capacity(elems.len());
        let mut total = 0u64;
        for elem in elems {
            let start = total.div_ceil(16) * 16;
            starts.push(start);
            total = start + slots * smem_bytes(*elem);
        }
        (starts, total)
    }

    /// Lowers the combine region of a reduce/scan on scalars `a` and `b`; returns the results.
    pub(crate) fn combine(
        &mut self,
        region_op: MlirOperation,
        a: &[Value],
        b: &[Value],
    ) -> LResult<Vec<Value>> {
        let Some(&block) = blocks_of(region_op).first() else {
            return err(region_op, "the combine region has no block");
        };
        let args = block_args(block);
        if args.len() != a.len() + b.len() {
            return err(
                region_op,
                format!(
                    "the combine region takes {} arguments, expected {}",
                    args.len(),
                    a.len() + b.len()
                ),
            );
        }
        for (arg, &v) in args.iter().zip(a.iter().chain(b)) {
            self.set(*arg, vec![v]);
        }
        let mut out = None;
        for op in block_ops(block) {
            let name = op_name(op);
            if name == "tt.reduce.return" || name == "tt.scan.return" {
                let mut values = Vec::new();
                for v in operands(op) {
                    values.push(self.scalar(op, v)?);
                }
                out = Some(values);
            } else {
                self.lower_op(op)?;
            }
        }
        match out {
            Some(values) if values.len() == a.len() => Ok(values),
            Some(values) => err(
                region_op,
                format!(
                    "the combine region returns {} values, expected {}",
                    values.len(),
                    a.len()
                ),
            ),
            None => err(region_op, "the combine region has no return"),
        }
    }

    /// `value` from the lane whose index differs by `lane_mask` (`shfl.sync.bfly`, in 32-bit
    /// pieces).
    pub(crate) fn shuffle_xor(&mut self, value: Value, elem: MlirType, lane_mask: u32) -> Value {
        let mask = self.b.const_i32(lane_mask as i64);
        self.shuffle(value, elem, Shuffle::Xor, mask)
    }

    /// `value` of another lane (`shfl.sync` in `mode`, with `operand` its lane operand: the
    /// xor mask, the distance up, or the source lane), for any element type up to 64 bits.
    pub(crate) fn shuffle(
        &mut self,
        value: Value,
        elem: MlirType,
        mode: Shuffle,
        operand: Value,
    ) -> Value {
        let bits = type_bits(elem);
        let lty = self.llvm_type(elem);
        let i32 = self.b.i32();
        // NVVM's intrinsics (convergent: LLVM keeps them where every lane reaches them, but may
        // schedule them among the arithmetic).
        let (intrinsic, clamp) = match mode {
            Shuffle::Xor => ("llvm.nvvm.shfl.sync.bfly.i32", 0x1f),
            // Lanes below the distance keep their own value (the caller masks them).
            Shuffle::Up => ("llvm.nvvm.shfl.sync.up.i32", 0),
            Shuffle::Index => ("llvm.nvvm.shfl.sync.idx.i32", 0x1f),
        };
        let all_lanes = self.b.const_i32(-1);
        let clamp = self.b.const_i32(clamp);
        let shfl = |this: &mut Self, v: Value| {
            this.b
                .call_intrinsic(intrinsic, &[all_lanes, v, operand, clamp], i32)
        };
        if bits == 64 {
            let i64 = self.b.i64();
            let as_int = if is_float(elem) {
                self.b.bitcast(value, i64)
            } else if is_pointer(elem) {
                self.b.cast(CastOp::PtrToInt, value, i64)
            } else {
                value
            };
            let lo = self.b.trunc(as_int, i32);
            let shift = self.b.const_int(i64, 32);
            let hi64 = self.b.lshr(as_int, shift);
            let hi = self.b.trunc(hi64, i32);
            let lo_s = shfl(self, lo);
            let hi_s = shfl(self, hi);
            let lo_w = self.b.zext(lo_s, i64);
            let hi_w = self.b.zext(hi_s, i64);
            let hi_shift = self.b.shl(hi_w, shift);
            let joined = self.b.or(hi_shift, lo_w);
            return if is_float(elem) {
                self.b.bitcast(joined, lty)
            } else if is_pointer(elem) {
                self.b.cast(CastOp::IntToPtr, joined, lty)
            } else {
                joined
            };
        }
        let narrow = self.b.int_type(bits);
        let as_i32 = if is_float(elem) && bits == 32 {
            self.b.bitcast(value, i32)
        } else if is_float(elem) {
            let i = self.b.bitcast(value, narrow);
            self.b.zext(i, i32)
        } else if bits < 32 {
            self.b.zext(value, i32)
        } else {
            value
        };
        let s = shfl(self, as_i32);
        if is_float(elem) && bits == 32 {
            self.b.bitcast(s, lty)
        } else if is_float(elem) {
            let t = self.b.trunc(s, narrow);
            self.b.bitcast(t, lty)
        } else if bits < 32 {
            self.b.trunc(s, narrow)
        } else {
            s
        }
    }

    /// The partial of every operand at `index` of its shared-memory region.
    fn load_partials(
        &mut self,
        elems: &[MlirType],
        base: Value,
        slot_bases: &[u64],
        index: Value,
    ) -> Vec<Value> {
        elems
            .iter()
            .zip(slot_bases)
            .map(|(elem, slot)| {
                let region = self.region_base(base, *slot);
                self.smem_load(region, index, *elem)
            })
            .collect()
    }

    /// The combination of the `warps` partials in shared memory of one output element (one per
    /// operand region, warp `w`'s at `first + w * stride`). With many warps and a single output
    /// (`first` = 0, `stride` = 1, the same in every thread) lane `l` reads partial `l % warps`
    /// and a butterfly over those lanes combines them, as Triton does: reading every partial in
    /// every thread holds `warps` registers per operand while the rest of the row is live
    /// (softmax over 16 warps took 68 registers and one program per SM that way, Triton 55).
    #[allow(clippy::too_many_arguments)]
    fn combine_partials(
        &mut self,
        op: MlirOperation,
        elems: &[MlirType],
        base: Value,
        slot_bases: &[u64],
        warps: u64,
        first: Option<Value>,
        stride: u64,
    ) -> LResult<Vec<Value>> {
        if first.is_none() && stride == 1 && warps >= 8 {
            let low = self.b.const_i32(warps as i64 - 1);
            let index = self.b.and(self.lane, low);
            let mut acc = self.load_partials(elems, base, slot_bases, index);
            let mut mask = 1u32;
            while u64::from(mask) < warps {
                let partner: Vec<Value> = acc
                    .iter()
                    .zip(elems)
                    .map(|(v, elem)| self.shuffle_xor(*v, *elem, mask))
                    .collect();
                acc = self.combine(op, &acc, &partner)?;
                mask <<= 1;
            }
            return Ok(acc);
        }
        let mut acc: Option<Vec<Value>> = None;
        for w in 0..warps {
            let offset = self.b.const_i32((w * stride) as i64);
            let index = match first {
                Some(first) => self.b.add(first, offset),
                None => offset,
            };
            let loaded = self.load_partials(elems, base, slot_bases, index);
            acc = Some(match acc {
                None => loaded,
                Some(prev) => self.combine(op, &prev, &loaded)?,
            });
        }
        Ok(acc.unwrap_or_default())
    }

    pub(crate) fn lower_reduce(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let Some(&first) = ins.first() else {
            return err(op, "tt.reduce needs an operand");
        };
        if outs.len() != ins.len() {
            return err(op, "tt.reduce needs one result per operand");
        }
        let src_type = value_type(first);
        let map = self.thread_map(op, src_type)?;
        let rank = map.shape.len();
        let axis = reduction_axis(op, rank)?;
        let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let mut inputs: Vec<Vec<Value>> = Vec::with_capacity(ins.len());
        for v in ins {
            inputs.push(self.regs(op, *v)?);
        }
        // Every value list below has one entry per operand (and per result: checked above):
        // `combine` checks that its region returns as many, so `values[i]`, `slot_bases[i]` and
        // `per_output[i]` are in range.
        // 1. Within the thread: combine registers with the same coordinates off the axis.
        let mut groups: Vec<(Vec<u32>, Vec<Value>)> = Vec::new();
        for (r, coord) in map.registers.iter().enumerate() {
            if map.register_duplicate.get(r).copied().unwrap_or(false) {
                continue;
            }
            let mut off_axis = coord.clone();
            if let Some(c) = off_axis.get_mut(axis) {
                *c = 0;
            }
            let mut values = Vec::with_capacity(inputs.len());
            for regs in &inputs {
                values.push(register(op, regs, r)?);
            }
            match groups.iter().position(|(k, _)| *k == off_axis) {
                Some(g) => {
                    let acc = groups[g].1.clone();
                    groups[g].1 = self.combine(op, &acc, &values)?;
                }
                None => groups.push((off_axis, values)),
            }
        }
        // 2. Across lanes: butterfly over lane bits that move along the axis only.
        for (bit, basis) in map.lane_bases.iter().enumerate() {
            let along_axis = basis.get(axis).is_some_and(|&c| c != 0)
                && basis.iter().enumerate().all(|(d, &c)| d == axis || c == 0);
            if !along_axis {
                continue;
            }
            for (_, group) in groups.iter_mut() {
                let shuffled: Vec<Value> = group
                    .iter()
                    .zip(&elems)
                    .map(|(v, e)| self.shuffle_xor(*v, *e, 1 << bit))
                    .collect();
                *group = self.combine(op, group, &shuffled)?;
            }
        }
        let warp_axis_bits = warp_axis_bits(&map.warp_bases, axis);
        let lane_mixed = map.lane_bases.iter().any(|b| {
            b.get(axis).is_some_and(|&c| c != 0)
                && b.iter().enumerate().any(|(d, &c)| d != axis && c != 0)
        });
        if lane_mixed {
            return err(
                op,
                "reduction over a layout whose lanes mix the reduced and kept dimensions is not supported",
            );
        }
        if rank == 1 {
            // The whole tensor reduces to one scalar per operand; every thread gets it.
            let Some((_, mut values)) = groups.into_iter().next() else {
                return err(op, "tt.reduce: the thread holds no element of the operand");
            };
            if !warp_axis_bits.is_empty() {
                let warps = 1u32 << warp_axis_bits.len();
                let base = self.smem_base();
                let (slot_bases, _) = Self::operand_regions(&elems, warps as u64);
                self.reserve_scratch(reduce_scratch(op)?);
                self.barrier_before_write();
                // Warp index along the axis (compact over the axis warp bits).
                let warp = self.warp();
                let warp_index = self.compact_bits(warp, &warp_axis_bits);
                for (i, elem) in elems.iter().enumerate() {
                    let region = self.region_base(base, slot_bases[i]);
                    self.smem_store(region, warp_index, values[i], *elem);
                }
                self.barrier();
                values =
                    self.combine_partials(op, &elems, base, &slot_bases, warps as u64, None, 1)?;
            }
            for (out, value) in outs.iter().zip(values) {
                self.set(*out, vec![value]);
            }
            return Ok(());
        }
        // Rank >= 2: each thread holds whole reduced rows of its output (the usual case for
        // layouts whose warps split the kept dims, e.g. an mma accumulator's rows): the output
        // registers are the thread's own groups.
        let out_type = value_type(outs[0]);
        let out_map = self.thread_map(op, out_type)?;
        if reduces_in_registers(&map, &out_map, axis) {
            let mut per_output: Vec<Vec<Value>> = vec![Vec::new(); outs.len()];
            for oc in &out_map.registers {
                let mut key = oc.clone();
                key.insert(axis, 0);
                let Some((_, values)) = groups.iter().find(|(k, _)| *k == key) else {
                    return err(
                        op,
                        "internal error: a reduced row is missing from its thread",
                    );
                };
                for (i, v) in values.iter().enumerate() {
                    per_output[i].push(*v);
                }
            }
            for (out, regs) in outs.iter().zip(per_output) {
                self.set(*out, regs);
            }
            return Ok(());
        }
        // Otherwise partials go through shared memory indexed by (warp along axis, output element).
        let warps = 1u64 << warp_axis_bits.len();
        let out_numel = out_map.numel();
        let base = self.smem_base();
        let (slot_bases, _) = Self::operand_regions(&elems, warps * out_numel);
        self.reserve_scratch(reduce_scratch(op)?);
        let src_base = self.thread_base(op, src_type)?;
        self.barrier_before_write();
        let warp_index = if warp_axis_bits.is_empty() {
            self.b.const_i32(0)
        } else {
            let warp = self.warp();
            self.compact_bits(warp, &warp_axis_bits)
        };
        let out_dims = out_map.shape.clone();
        for (coord, values) in &groups {
            let c = self.runtime_coord(&src_base, coord);
            let kept: Vec<Value> = c
                .iter()
                .enumerate()
                .filter(|(d, _)| *d != axis)
                .map(|(_, v)| *v)
                .collect();
            let inner = self.linear_index(&kept, &out_dims);
            let numel = self.b.const_i32(out_numel as i64);
            let row = self.b.mul(warp_index, numel);
            let index = self.b.add(row, inner);
            for (i, elem) in elems.iter().enumerate() {
                let region = self.region_base(base, slot_bases[i]);
                self.smem_store(region, index, values[i], *elem);
            }
        }
        self.barrier();
        if out_numel == 1 && !out_map.registers.is_empty() {
            let acc = self.combine_partials(op, &elems, base, &slot_bases, warps, None, 1)?;
            let copies = out_map.registers.len();
            for (out, v) in outs.iter().zip(acc) {
                self.set(*out, vec![v; copies]);
            }
            return Ok(());
        }
        let out_base = self.thread_base(op, out_type)?;
        let mut per_output: Vec<Vec<Value>> = vec![Vec::new(); outs.len()];
        for coord in &out_map.registers {
            let c = self.runtime_coord(&out_base, coord);
            let inner = self.linear_index(&c, &out_dims);
            let acc = self.combine_partials(
                op,
                &elems,
                base,
                &slot_bases,
                warps,
                Some(inner),
                out_numel,
            )?;
            for (i, v) in acc.into_iter().enumerate() {
                per_output[i].push(v);
            }
        }
        for (out, regs) in outs.iter().zip(per_output) {
            self.set(*out, regs);
        }
        Ok(())
    }
}
