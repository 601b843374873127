//! Data movement between layouts and shapes (`ttg.convert_layout`, `tt.broadcast`,
//! `tt.expand_dims`, `tt.reshape`, `tt.trans`, `tt.join`, `tt.split`, `tt.cat`, `tt.unsplat`).
//!
//! Each op is a map from a destination coordinate to (source operand, source coordinate). With
//! power-of-two shapes every such map is affine over GF(2) (coordinates as bit vectors, XOR as
//! addition), which is what linear layouts are too. So: when the map sends the destination's
//! lane and warp bases to the source's, every destination register is some register of the same
//! thread and the op is free (registers are renamed); otherwise every thread writes what it holds
//! to shared memory and reads what it needs, at addresses computed from the same affine map.

use crate::layout_map::ThreadMap;
use crate::to_llvm::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_passes::ir_util::*;

/// Destination coordinate → (source operand, source coordinate).
type ProjectionFn = dyn Fn(&[u32]) -> (usize, Vec<u32>);
type Projection<'p> = &'p ProjectionFn;

fn row_major(shape: &[u32], coord: &[u32]) -> u64 {
    coord
        .iter()
        .zip(shape)
        .fold(0u64, |acc, (&c, &d)| acc * d as u64 + c as u64)
}

fn delinearize(shape: &[u32], mut index: u64) -> Vec<u32> {
    let mut coord = vec![0u32; shape.len()];
    for d in (0..shape.len()).rev() {
        coord[d] = (index % shape[d] as u64) as u32;
        index /= shape[d] as u64;
    }
    coord
}

impl FuncLowering<'_> {
    /// The movement ops: computes the projection and moves the elements.
    pub(crate) fn lower_movement(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        if name == "tt.unsplat" {
            let v = self.get(ins[0]);
            self.values
                .insert(key(outs[0]), vec![v.first().cloned().unwrap_or_default()]);
            return Ok(());
        }
        let src_type = value_type(ins[0]);
        let src_shape: Vec<u32> = shape(src_type).iter().map(|&d| d as u32).collect();
        if src_shape.iter().any(|d| !d.is_power_of_two()) {
            return err(op, "data movement needs power-of-two tensor shapes");
        }
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let order = i32_array(op, "order");
        let rank = src_shape.len();
        if name == "tt.reshape"
            && unsafe {
                !mlirOperationGetAttributeByName(op, sref("allow_reorder"))
                    .ptr
                    .is_null()
            }
        {
            // Any element order is allowed: keep the registers when every element is held once.
            let src_map = self.thread_map(op, src_type)?;
            let dst_map = self.thread_map(op, value_type(outs[0]))?;
            let unique = |m: &ThreadMap| {
                m.lane_broadcast_mask() == 0
                    && m.warp_broadcast_mask() == 0
                    && !m.register_duplicate.iter().any(|&d| d)
            };
            if src_map.num_registers() == dst_map.num_registers()
                && unique(&src_map)
                && unique(&dst_map)
            {
                let v = self.get(ins[0]);
                self.values.insert(key(outs[0]), v);
                return Ok(());
            }
        }
        if name == "tt.split" {
            for (j, out) in outs.iter().enumerate() {
                let project = move |c: &[u32]| {
                    let mut s = c.to_vec();
                    s.push(j as u32);
                    (0usize, s)
                };
                let regs = self.move_elements(op, &ins[..1], value_type(*out), &project)?;
                self.values.insert(key(*out), regs);
            }
            return Ok(());
        }
        let dst_type = value_type(outs[0]);
        let dst_shape: Vec<u32> = shape(dst_type).iter().map(|&d| d as u32).collect();
        let src_shape_c = src_shape.clone();
        let project: Box<ProjectionFn> = match name {
            "ttg.convert_layout" => Box::new(|c: &[u32]| (0, c.to_vec())),
            "tt.broadcast" => Box::new(move |c: &[u32]| {
                (
                    0,
                    c.iter()
                        .enumerate()
                        .map(|(d, &x)| if src_shape_c[d] == 1 { 0 } else { x })
                        .collect(),
                )
            }),
            "tt.expand_dims" => Box::new(move |c: &[u32]| {
                (
                    0,
                    c.iter()
                        .enumerate()
                        .filter(|(d, _)| *d != axis)
                        .map(|(_, &x)| x)
                        .collect(),
                )
            }),
            "tt.trans" => {
                let order = order.clone();
                Box::new(move |c: &[u32]| {
                    (
                        0,
                        (0..rank)
                            .map(|d| c[order.iter().position(|&o| o as usize == d).unwrap_or(d)])
                            .collect(),
                    )
                })
            }
            "tt.reshape" => {
                let dst_shape = dst_shape.clone();
                Box::new(move |c: &[u32]| (0, delinearize(&src_shape_c, row_major(&dst_shape, c))))
            }
            "tt.join" => Box::new(|c: &[u32]| {
                let last = c.len() - 1;
                (c[last] as usize, c[..last].to_vec())
            }),
            "tt.cat" => {
                let n = src_shape[0];
                Box::new(move |c: &[u32]| {
                    let mut s = c.to_vec();
                    s[0] = c[0] % n;
                    ((c[0] / n) as usize, s)
                })
            }
            _ => return err(op, format!("unsupported data movement '{name}'")),
        };
        let regs = self.move_elements(op, ins, dst_type, &*project)?;
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// Destination registers of `dst_type` where coordinate `c` holds element `project(c)` of
    /// `sources` (all of one type); `project` is affine over GF(2).
    pub(crate) fn move_elements(
        &mut self,
        op: MlirOperation,
        sources: &[MlirValue],
        dst_type: MlirType,
        project: Projection,
    ) -> LResult<Vec<String>> {
        let src_type = value_type(sources[0]);
        let src_map = self.thread_map(op, src_type)?;
        let dst_map = self.thread_map(op, dst_type)?;
        let src_rank = src_map.shape.len();
        let dst_rank = dst_map.shape.len();
        let (offset_k, offset_c) = project(&vec![0; dst_rank]);
        // The linear part of the projection.
        let linear = |c: &[u32]| -> (usize, Vec<u32>) {
            let (k, s) = project(c);
            (
                k ^ offset_k,
                s.iter().zip(&offset_c).map(|(a, b)| a ^ b).collect(),
            )
        };
        let src_values: Vec<Vec<String>> = sources.iter().map(|v| self.get(*v)).collect();
        // Register path.
        let bases_match = |dst: &[Vec<u32>], src: &[Vec<u32>]| {
            (0..dst.len().max(src.len())).all(|i| {
                let (k, c) = dst
                    .get(i)
                    .map(|b| linear(b))
                    .unwrap_or((0, vec![0; src_rank]));
                let s = src.get(i).cloned().unwrap_or_else(|| vec![0; src_rank]);
                k == 0 && c == s
            })
        };
        if bases_match(&dst_map.lane_bases, &src_map.lane_bases)
            && bases_match(&dst_map.warp_bases, &src_map.warp_bases)
        {
            let by_coord: HashMap<Vec<u32>, usize> = src_map
                .registers
                .iter()
                .enumerate()
                .rev()
                .map(|(i, c)| (c.clone(), i))
                .collect();
            let mapped: Option<Vec<String>> = dst_map
                .registers
                .iter()
                .map(|c| {
                    let (k, s) = project(c);
                    by_coord.get(&s).map(|&i| src_values[k][i].clone())
                })
                .collect();
            if let Some(regs) = mapped {
                return Ok(regs);
            }
        }
        // Shared-memory path.
        let elem = element_type(src_type);
        let (_, bytes) = Self::smem_type(elem);
        let numel = src_map.numel();
        self.reserve_scratch(numel * bytes * sources.len() as u64);
        let src_base = self.thread_base(op, src_type)?;
        let base = self.smem_base();
        self.barrier();
        for (k, values) in src_values.iter().enumerate() {
            let region = self.region_base(&base, k as u64 * numel * bytes);
            for (r, coord) in src_map.registers.iter().enumerate() {
                if src_map.register_duplicate[r] {
                    continue;
                }
                let c = self.runtime_coord(&src_base, coord);
                let index = self.linear_index(&c, &src_map.shape);
                self.smem_store(&region, &index, &values[r], elem);
            }
        }
        self.barrier();
        // This thread's projected (lane, warp) contribution: source index and coordinates.
        let mut thread = vec![self.e.constant(0, "i32"); src_rank + 1];
        for (source, bases) in [
            (self.lane.clone(), dst_map.lane_bases.clone()),
            (self.warp.clone(), dst_map.warp_bases.clone()),
        ] {
            for (bit, basis) in bases.iter().enumerate() {
                let (k, c) = linear(basis);
                let mut parts = c.clone();
                parts.push(k as u32);
                if parts.iter().all(|&p| p == 0) {
                    continue;
                }
                let shift = self.e.constant(bit as i64, "i32");
                let one = self.e.constant(1, "i32");
                let s = self.e.op(&format!("llvm.lshr {source}, {shift} : i32"));
                let b = self.e.op(&format!("llvm.and {s}, {one} : i32"));
                for (d, &p) in parts.iter().enumerate() {
                    if p == 0 {
                        continue;
                    }
                    let m = self.e.constant(p as i64, "i32");
                    let term = self.e.op(&format!("llvm.mul {b}, {m} : i32"));
                    thread[d] = self.e.op(&format!("llvm.xor {}, {term} : i32", thread[d]));
                }
            }
        }
        let mut regs = Vec::with_capacity(dst_map.num_registers());
        for coord in dst_map.registers.clone() {
            let (k, c) = project(&coord);
            let mut constant = c;
            constant.push(k as u32);
            let runtime = self.runtime_coord(&thread, &constant);
            let inner = self.linear_index(&runtime[..src_rank], &src_map.shape);
            let index = if sources.len() > 1 {
                let n = self.e.constant(numel as i64, "i32");
                let row = self
                    .e
                    .op(&format!("llvm.mul {}, {n} : i32", runtime[src_rank]));
                self.e.op(&format!("llvm.add {row}, {inner} : i32"))
            } else {
                inner
            };
            regs.push(self.smem_load(&base, &index, elem));
        }
        Ok(regs)
    }
}
