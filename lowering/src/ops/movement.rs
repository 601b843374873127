//! Data movement between layouts and shapes: registers when the owning thread does not change, else shared memory.

use crate::to_llvm::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// Data movement between layouts/shapes: registers when every destination element is already
    /// in the same thread, else through shared memory.
    pub(crate) fn lower_movement(
        &mut self,
        op: MlirOperation,
        name: &str,
        src: MlirValue,
        dst: MlirValue,
    ) -> LResult<()> {
        let src_type = value_type(src);
        let dst_type = value_type(dst);
        let src_map = self.thread_map(op, src_type)?;
        let dst_map = self.thread_map(op, dst_type)?;
        let src_vals = self.get(src);
        let src_rank = src_map.shape.len();
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let order = i32_array(op, "order");
        if name == "tt.reshape"
            && unsafe {
                mlirOperationGetAttributeByName(op, sref("allow_reorder"))
                    .ptr
                    .is_null()
            } == false
        {
            // Any element order is allowed: keep registers as they are when the counts agree.
            if src_map.num_registers() == dst_map.num_registers() {
                self.values.insert(key(dst), src_vals);
                return Ok(());
            }
        }
        // Destination coordinate -> source coordinate, as a linear map where possible.
        let project = |coord: &[u32]| -> Option<Vec<u32>> {
            match name {
                "ttg.convert_layout" => Some(coord.to_vec()),
                "tt.broadcast" => Some(
                    coord
                        .iter()
                        .enumerate()
                        .map(|(d, &c)| if src_map.shape[d] == 1 { 0 } else { c })
                        .collect(),
                ),
                "tt.expand_dims" => Some(
                    coord
                        .iter()
                        .enumerate()
                        .filter(|(d, _)| *d != axis)
                        .map(|(_, &c)| c)
                        .collect(),
                ),
                "tt.trans" => Some(
                    (0..src_rank)
                        .map(|d| coord[order.iter().position(|&o| o as usize == d).unwrap_or(d)])
                        .collect(),
                ),
                _ => None,
            }
        };
        // Register path: lane and warp bases project onto the source's, and every destination
        // register's source element is some register of the same thread.
        let lanes_match = |dst_bases: &[Vec<u32>], src_bases: &[Vec<u32>]| {
            let n = dst_bases.len().max(src_bases.len());
            (0..n).all(|i| {
                let d = dst_bases
                    .get(i)
                    .and_then(|b| project(b))
                    .unwrap_or_else(|| vec![0; src_rank]);
                let s = src_bases
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| vec![0; src_rank]);
                d == s
            })
        };
        if name != "tt.reshape"
            && lanes_match(&dst_map.lane_bases, &src_map.lane_bases)
            && lanes_match(&dst_map.warp_bases, &src_map.warp_bases)
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
                    project(c)
                        .and_then(|p| by_coord.get(&p))
                        .map(|&i| src_vals[i].clone())
                })
                .collect();
            if let Some(regs) = mapped {
                self.values.insert(key(dst), regs);
                return Ok(());
            }
        }
        // Shared-memory path: every thread writes what it holds, then reads what it needs.
        let elem = element_type(src_type);
        let (_, bytes) = Self::smem_type(elem);
        self.shared_bytes = self.shared_bytes.max(src_map.numel() * bytes);
        let src_base = self.thread_base(op, src_type)?;
        let dst_base = self.thread_base(op, dst_type)?;
        let base = self.smem_base();
        self.barrier();
        for (r, coord) in src_map.registers.iter().enumerate() {
            if src_map.register_duplicate[r] {
                continue;
            }
            let c = self.runtime_coord(&src_base, coord);
            let index = self.linear_index(&c, &src_map.shape);
            let value = src_vals[r].clone();
            self.smem_store(&base, &index, &value, elem);
        }
        self.barrier();
        let mut regs = Vec::new();
        for coord in dst_map.registers.clone() {
            let c = self.runtime_coord(&dst_base, &coord);
            let source = match name {
                "tt.reshape" => {
                    let index = self.linear_index(&c, &dst_map.shape);
                    regs.push(self.smem_load(&base, &index, elem));
                    continue;
                }
                "ttg.convert_layout" => c,
                "tt.broadcast" => c
                    .iter()
                    .enumerate()
                    .map(|(d, v)| {
                        if src_map.shape[d] == 1 {
                            self.e.constant(0, "i32")
                        } else {
                            v.clone()
                        }
                    })
                    .collect(),
                "tt.expand_dims" => c
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| *d != axis)
                    .map(|(_, v)| v.clone())
                    .collect(),
                "tt.trans" => (0..src_rank)
                    .map(|d| c[order.iter().position(|&o| o as usize == d).unwrap_or(d)].clone())
                    .collect(),
                _ => return err(op, format!("unsupported data movement '{name}'")),
            };
            let index = self.linear_index(&source, &src_map.shape);
            regs.push(self.smem_load(&base, &index, elem));
        }
        self.values.insert(key(dst), regs);
        Ok(())
    }
}
