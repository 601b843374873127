//! `tt.reduce`: within a thread, across lanes with butterfly shuffles, across warps through shared memory.

use crate::emit::Emitter;
use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// Emits the combine region of a reduce/scan on scalars `a` and `b`; returns the results.
    pub(crate) fn combine(
        &mut self,
        region_op: MlirOperation,
        a: &[String],
        b: &[String],
    ) -> LResult<Vec<String>> {
        let block = blocks_of(region_op)[0];
        let args = block_args(block);
        for (i, arg) in args.iter().enumerate() {
            let v = if i < a.len() {
                a[i].clone()
            } else {
                b[i - a.len()].clone()
            };
            self.values.insert(key(*arg), vec![v]);
        }
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        let mut out = Vec::new();
        while !op.ptr.is_null() {
            let name = op_name(op);
            if name == "tt.reduce.return" || name == "tt.scan.return" {
                out = operands(op).iter().map(|v| self.scalar(*v)).collect();
            } else {
                self.lower_op(op)?;
            }
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Ok(out)
    }

    pub(crate) fn shuffle_xor(&mut self, value: &str, elem: MlirType, lane_mask: u32) -> String {
        let bits = type_bits(elem);
        let lty = llvm_type(elem);
        let mask = self.e.constant(lane_mask as i64, "i32");
        let shfl = |e: &mut Emitter, v: &str| {
            e.op(&format!(
            "llvm.inline_asm has_side_effects \"shfl.sync.bfly.b32 $0, $1, $2, 0x1f, 0xffffffff;\", \"=r,r,r\" {v}, {mask} : (i32, i32) -> i32"
        ))
        };
        if bits == 64 {
            let as_int = if is_float(elem) {
                self.e.op(&format!("llvm.bitcast {value} : {lty} to i64"))
            } else {
                value.to_owned()
            };
            let lo = self.e.op(&format!("llvm.trunc {as_int} : i64 to i32"));
            let shift = self.e.constant(32, "i64");
            let hi64 = self.e.op(&format!("llvm.lshr {as_int}, {shift} : i64"));
            let hi = self.e.op(&format!("llvm.trunc {hi64} : i64 to i32"));
            let lo_s = shfl(&mut self.e, &lo);
            let hi_s = shfl(&mut self.e, &hi);
            let lo_w = self.e.op(&format!("llvm.zext {lo_s} : i32 to i64"));
            let hi_w = self.e.op(&format!("llvm.zext {hi_s} : i32 to i64"));
            let hi_shift = self.e.op(&format!("llvm.shl {hi_w}, {shift} : i64"));
            let joined = self.e.op(&format!("llvm.or {hi_shift}, {lo_w} : i64"));
            return if is_float(elem) {
                self.e.op(&format!("llvm.bitcast {joined} : i64 to {lty}"))
            } else {
                joined
            };
        }
        let as_i32 = if is_float(elem) && bits == 32 {
            self.e.op(&format!("llvm.bitcast {value} : {lty} to i32"))
        } else if is_float(elem) {
            let i = self
                .e
                .op(&format!("llvm.bitcast {value} : {lty} to i{bits}"));
            self.e.op(&format!("llvm.zext {i} : i{bits} to i32"))
        } else if bits < 32 {
            self.e.op(&format!("llvm.zext {value} : i{bits} to i32"))
        } else {
            value.to_owned()
        };
        let s = shfl(&mut self.e, &as_i32);
        if is_float(elem) && bits == 32 {
            self.e.op(&format!("llvm.bitcast {s} : i32 to {lty}"))
        } else if is_float(elem) {
            let t = self.e.op(&format!("llvm.trunc {s} : i32 to i{bits}"));
            self.e.op(&format!("llvm.bitcast {t} : i{bits} to {lty}"))
        } else if bits < 32 {
            self.e.op(&format!("llvm.trunc {s} : i32 to i{bits}"))
        } else {
            s
        }
    }

    pub(crate) fn lower_reduce(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let src_type = value_type(ins[0]);
        let map = self.thread_map(op, src_type)?;
        let rank = map.shape.len();
        let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        // 1. Within the thread: combine registers with the same coordinates off the axis.
        let mut groups: Vec<(Vec<u32>, Vec<String>)> = Vec::new();
        for (r, coord) in map.registers.iter().enumerate() {
            if map.register_duplicate[r] {
                continue;
            }
            let mut off_axis = coord.clone();
            off_axis[axis] = 0;
            let values: Vec<String> = inputs.iter().map(|vals| vals[r].clone()).collect();
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
            let along_axis =
                basis[axis] != 0 && basis.iter().enumerate().all(|(d, &c)| d == axis || c == 0);
            if !along_axis {
                continue;
            }
            for group in groups.iter_mut().map(|(_, v)| v) {
                let shuffled: Vec<String> = group
                    .clone()
                    .iter()
                    .zip(&elems)
                    .map(|(v, e)| self.shuffle_xor(v, *e, 1 << bit))
                    .collect();
                let acc = group.clone();
                *group = self.combine(op, &acc, &shuffled)?;
            }
        }
        let warp_axis_bits: Vec<usize> = map
            .warp_bases
            .iter()
            .enumerate()
            .filter(|(_, b)| b[axis] != 0)
            .map(|(i, _)| i)
            .collect();
        let lane_mixed = map
            .lane_bases
            .iter()
            .any(|b| b[axis] != 0 && b.iter().enumerate().any(|(d, &c)| d != axis && c != 0));
        if lane_mixed {
            return err(
                op,
                "reduction over a layout whose lanes mix the reduced and kept dimensions is not supported",
            );
        }
        if rank == 1 {
            // The whole tensor reduces to one scalar per operand; every thread gets it.
            let mut values = groups
                .into_iter()
                .next()
                .map(|(_, v)| v)
                .unwrap_or_default();
            if !warp_axis_bits.is_empty() {
                let warps = 1u32 << warp_axis_bits.len();
                let base = self.smem_base();
                let mut offset_elems = 0u64;
                let mut slot_bases = Vec::new();
                for elem in &elems {
                    let (_, bytes) = Self::smem_type(*elem);
                    // Each operand gets its own 16-byte aligned region.
                    let start_bytes = (offset_elems).div_ceil(16) * 16;
                    slot_bases.push(start_bytes);
                    offset_elems = start_bytes + warps as u64 * bytes;
                }
                self.reserve_scratch(offset_elems);
                self.barrier();
                // Warp index along the axis (compact over the axis warp bits).
                let warp_index = self.compact_bits(&self.warp.clone(), &warp_axis_bits);
                for (i, elem) in elems.iter().enumerate() {
                    let region = self.region_base(&base, slot_bases[i]);
                    self.smem_store(&region, &warp_index, &values[i].clone(), *elem);
                }
                self.barrier();
                let mut acc: Option<Vec<String>> = None;
                for w in 0..warps {
                    let index = self.e.constant(w as i64, "i32");
                    let loaded: Vec<String> = elems
                        .iter()
                        .enumerate()
                        .map(|(i, elem)| {
                            let region = self.region_base(&base, slot_bases[i]);
                            self.smem_load(&region, &index, *elem)
                        })
                        .collect();
                    acc = Some(match acc {
                        None => loaded,
                        Some(prev) => self.combine(op, &prev, &loaded)?,
                    });
                }
                values = acc.unwrap_or_default();
            }
            for (i, out) in outs.iter().enumerate() {
                self.values.insert(key(*out), vec![values[i].clone()]);
            }
            return Ok(());
        }
        // Rank >= 2: partials go through shared memory indexed by (warp along axis, output element).
        let out_type = value_type(outs[0]);
        let out_map = self.thread_map(op, out_type)?;
        let warps = 1u64 << warp_axis_bits.len();
        let out_numel = out_map.numel();
        let base = self.smem_base();
        let mut slot_bases = Vec::new();
        let mut total = 0u64;
        for elem in &elems {
            let (_, bytes) = Self::smem_type(*elem);
            let start = total.div_ceil(16) * 16;
            slot_bases.push(start);
            total = start + warps * out_numel * bytes;
        }
        self.reserve_scratch(total);
        let src_base = self.thread_base(op, src_type)?;
        self.barrier();
        let warp_index = if warp_axis_bits.is_empty() {
            self.e.constant(0, "i32")
        } else {
            self.compact_bits(&self.warp.clone(), &warp_axis_bits)
        };
        let out_dims = out_map.shape.clone();
        for (coord, values) in groups.clone() {
            let c = self.runtime_coord(&src_base, &coord);
            let kept: Vec<String> = c
                .iter()
                .enumerate()
                .filter(|(d, _)| *d != axis)
                .map(|(_, v)| v.clone())
                .collect();
            let inner = self.linear_index(&kept, &out_dims);
            let numel = self.e.constant(out_numel as i64, "i32");
            let row = self.e.op(&format!("llvm.mul {warp_index}, {numel} : i32"));
            let index = self.e.op(&format!("llvm.add {row}, {inner} : i32"));
            for (i, elem) in elems.iter().enumerate() {
                let region = self.region_base(&base, slot_bases[i]);
                self.smem_store(&region, &index, &values[i], *elem);
            }
        }
        self.barrier();
        let out_base = self.thread_base(op, out_type)?;
        let mut per_output: Vec<Vec<String>> = vec![Vec::new(); outs.len()];
        for coord in out_map.registers.clone() {
            let c = self.runtime_coord(&out_base, &coord);
            let inner = self.linear_index(&c, &out_dims);
            let mut acc: Option<Vec<String>> = None;
            for w in 0..warps {
                let offset = self.e.constant((w * out_numel) as i64, "i32");
                let index = self.e.op(&format!("llvm.add {inner}, {offset} : i32"));
                let loaded: Vec<String> = elems
                    .iter()
                    .enumerate()
                    .map(|(i, elem)| {
                        let region = self.region_base(&base, slot_bases[i]);
                        self.smem_load(&region, &index, *elem)
                    })
                    .collect();
                acc = Some(match acc {
                    None => loaded,
                    Some(prev) => self.combine(op, &prev, &loaded)?,
                });
            }
            for (i, v) in acc.unwrap_or_default().into_iter().enumerate() {
                per_output[i].push(v);
            }
        }
        for (i, out) in outs.iter().enumerate() {
            self.values.insert(key(*out), per_output[i].clone());
        }
        Ok(())
    }
}
