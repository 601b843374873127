//! `tt.scan`: inclusive (or reverse) scan along an axis with any combine region and any number
//! of operands, for any distributed layout whose bases along the axis are single axis bits.
//!
//! The axis index bits are processed from the lowest up. After step `t` every element holds `P`,
//! its scan within its aligned block of `2^(t+1)` elements, and `T`, that block's total. Step `t`
//! pairs each element with the one whose index differs in bit `t` (another register of the same
//! thread, a lane reached with `shfl.sync.bfly`, or a warp reached through shared memory): the
//! element in the later half prepends its partner's total to `P` and `T`, the other appends it to
//! `T`. `reverse` swaps which half is later. Every step costs one combine per element, so the
//! whole scan is `log2(n)` combines per element with no sequential chain.

use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// Where axis bit `t` of a layout lives.
#[derive(Clone, Copy, Debug)]
enum AxisBit {
    Register(usize),
    Lane(usize),
    Warp(usize),
}

impl FuncLowering<'_> {
    pub(crate) fn lower_scan(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let reverse = unsafe {
            let attr = mlirOperationGetAttributeByName(op, sref("reverse"));
            !attr.ptr.is_null() && mlirBoolAttrGetValue(attr)
        };
        let src_type = value_type(ins[0]);
        let map = self.thread_map(op, src_type)?;
        let n = map.shape[axis];
        let count = map.num_registers();
        let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let types: Vec<String> = elems.iter().map(|e| llvm_type(*e)).collect();
        // Locate every axis bit; reject bases that mix the axis with other dimensions.
        let single = |basis: &[u32]| -> Result<Option<u32>, ()> {
            if basis[axis] == 0 {
                return Ok(None);
            }
            let pure = basis.iter().enumerate().all(|(d, &c)| d == axis || c == 0);
            if pure && basis[axis].is_power_of_two() {
                Ok(Some(basis[axis].trailing_zeros()))
            } else {
                Err(())
            }
        };
        let mut bits: Vec<Option<AxisBit>> = vec![None; n.trailing_zeros() as usize];
        let register_bits = count.trailing_zeros() as usize;
        let mut candidates = Vec::new();
        for i in 0..register_bits {
            candidates.push((AxisBit::Register(i), map.registers[1 << i].clone()));
        }
        for (i, b) in map.lane_bases.iter().enumerate() {
            candidates.push((AxisBit::Lane(i), b.clone()));
        }
        for (i, b) in map.warp_bases.iter().enumerate() {
            candidates.push((AxisBit::Warp(i), b.clone()));
        }
        for (place, basis) in candidates {
            match single(&basis) {
                Ok(Some(t)) => {
                    if let Some(slot) = bits.get_mut(t as usize) {
                        *slot = Some(place);
                    }
                }
                Ok(None) => {}
                Err(()) => {
                    return err(
                        op,
                        "tt.scan over a layout whose bases mix the scanned axis with other dimensions is not supported",
                    );
                }
            }
        }
        let mut prefix: Vec<Vec<String>> = (0..count)
            .map(|r| ins.iter().map(|v| self.get(*v)[r].clone()).collect())
            .collect();
        let mut total = prefix.clone();
        for (t, place) in bits.iter().enumerate() {
            let Some(place) = *place else {
                return err(
                    op,
                    format!("tt.scan: axis bit {t} is not held by the layout"),
                );
            };
            match place {
                AxisBit::Register(i) => {
                    let (old_p, old_t) = (prefix.clone(), total.clone());
                    for r in 0..count {
                        let partner = r ^ (1 << i);
                        let upper = r >> i & 1 == 1;
                        let later = upper != reverse;
                        if later {
                            prefix[r] = self.combine(op, &old_t[partner], &old_p[r])?;
                            total[r] = self.combine(op, &old_t[partner], &old_t[r])?;
                        } else {
                            total[r] = self.combine(op, &old_t[r], &old_t[partner])?;
                        }
                    }
                }
                AxisBit::Lane(_) | AxisBit::Warp(_) => {
                    let partner_totals: Vec<Vec<String>> = match place {
                        AxisBit::Lane(i) => total
                            .clone()
                            .iter()
                            .map(|vals| {
                                vals.iter()
                                    .zip(&elems)
                                    .map(|(v, e)| self.shuffle_xor(v, *e, 1 << i))
                                    .collect()
                            })
                            .collect(),
                        AxisBit::Warp(i) => self.exchange_warps(&total, &elems, i),
                        AxisBit::Register(_) => unreachable!(),
                    };
                    let (source, bit) = match place {
                        AxisBit::Lane(i) => (self.lane.clone(), i),
                        AxisBit::Warp(i) => (self.warp.clone(), i),
                        AxisBit::Register(_) => unreachable!(),
                    };
                    let shift = self.e.constant(bit as i64, "i32");
                    let one = self.e.constant(1, "i32");
                    let s = self.e.op(&format!("llvm.lshr {source}, {shift} : i32"));
                    let b = self.e.op(&format!("llvm.and {s}, {one} : i32"));
                    let want = self.e.constant(if reverse { 0 } else { 1 }, "i32");
                    let later = self.e.op(&format!("llvm.icmp \"eq\" {b}, {want} : i32"));
                    for r in 0..count {
                        let p_later = self.combine(op, &partner_totals[r], &prefix[r])?;
                        let t_later = self.combine(op, &partner_totals[r], &total[r])?;
                        let t_earlier = self.combine(op, &total[r], &partner_totals[r])?;
                        let mut new_p = Vec::new();
                        let mut new_t = Vec::new();
                        for k in 0..elems.len() {
                            let ty = &types[k];
                            new_p.push(self.e.op(&format!(
                                "llvm.select {later}, {}, {} : i1, {ty}",
                                p_later[k], prefix[r][k]
                            )));
                            new_t.push(self.e.op(&format!(
                                "llvm.select {later}, {}, {} : i1, {ty}",
                                t_later[k], t_earlier[k]
                            )));
                        }
                        prefix[r] = new_p;
                        total[r] = new_t;
                    }
                }
            }
        }
        for (k, out) in outs.iter().enumerate() {
            let regs: Vec<String> = prefix.iter().map(|p| p[k].clone()).collect();
            self.values.insert(key(*out), regs);
        }
        Ok(())
    }

    /// Each register's values from the warp whose index differs in `bit` (same lane, same
    /// register), through shared memory.
    fn exchange_warps(
        &mut self,
        values: &[Vec<String>],
        elems: &[MlirType],
        bit: usize,
    ) -> Vec<Vec<String>> {
        let count = values.len() as u64;
        let lanes = self.threads_per_warp as u64;
        let slots = self.num_warps as u64 * count * lanes;
        let base = self.smem_base();
        let mut offsets = Vec::new();
        let mut total = 0u64;
        for elem in elems {
            let (_, bytes) = Self::smem_type(*elem);
            let start = total.div_ceil(16) * 16;
            offsets.push(start);
            total = start + slots * bytes;
        }
        self.reserve_scratch(total);
        let (lane, warp) = (self.lane.clone(), self.warp.clone());
        let mask = self.e.constant(1 << bit, "i32");
        let partner = self.e.op(&format!("llvm.xor {warp}, {mask} : i32"));
        let regs_c = self.e.constant(count as i64, "i32");
        let lanes_c = self.e.constant(lanes as i64, "i32");
        let slot = |this: &mut Self, w: &str, r: usize| {
            let wr = this.e.op(&format!("llvm.mul {w}, {regs_c} : i32"));
            let rc = this.e.constant(r as i64, "i32");
            let row = this.e.op(&format!("llvm.add {wr}, {rc} : i32"));
            let scaled = this.e.op(&format!("llvm.mul {row}, {lanes_c} : i32"));
            this.e.op(&format!("llvm.add {scaled}, {lane} : i32"))
        };
        self.barrier();
        for (r, vals) in values.iter().enumerate() {
            let index = slot(self, &warp, r);
            for (k, elem) in elems.iter().enumerate() {
                let region = self.region_base(&base, offsets[k]);
                self.smem_store(&region, &index, &vals[k], *elem);
            }
        }
        self.barrier();
        let mut out = Vec::new();
        for r in 0..values.len() {
            let index = slot(self, &partner, r);
            let mut loaded = Vec::new();
            for (k, elem) in elems.iter().enumerate() {
                let region = self.region_base(&base, offsets[k]);
                loaded.push(self.smem_load(&region, &index, *elem));
            }
            out.push(loaded);
        }
        out
    }
}
