//! `tt.dot` on tensor cores with `mma.sync` (sm_80+): an `#ttg.nvidia_mma` version 2
//! accumulator with `#ttg.dot_op` operands (`kWidth = 32 / bits`) becomes one
//! `mma.sync.aligned.m16n8kK.row.col` per 16x8 accumulator tile and K step, per matrix of a
//! batched (rank-3) dot: f16/bf16 (K = 16, f32 or f16 accumulators), tf32 (f32 operands, K = 8)
//! and s8 (K = 32, i32 accumulators).
//!
//! Each thread's registers are matched to the PTX fragments by their tensor coordinates at lane
//! 0 of warp 0 (the layouts' lane bits are exactly the fragments' `groupID`/`threadID_in_group`,
//! and A, B and C share their warps through the common parent). With `per = 32 / bits` operand
//! elements per b32 register: in a 16 x K A tile, (row, k) is element `k mod per` of word
//! `2·(k mod K ≥ K/2) + (row mod 16 ≥ 8)`; in a K x 8 B tile, (k, col) is element `k mod per` of
//! word `(k mod K ≥ K/2)`; in a 16x8 C tile, (row, col) is element `2·(row mod 16 ≥ 8) + col
//! mod 2` (f16 accumulators: two per word).

use crate::builder::*;
use crate::layout_map::ThreadMap;
use crate::state::*;
use mlir_sys::*;
use std::collections::BTreeMap;
use tritium_passes::ir_util::*;

/// A thread's fragments of one operand, by tile: `(batch, tile row, tile column) → elements`
/// (batch 0 for 2-D dots).
type Fragments = BTreeMap<(u32, u32, u32), Vec<Option<Value>>>;

/// Sorts registers into fragments of `slots` elements: `place(row, col)` gives (tile, element)
/// or `None` when the register is not where the fragment layout puts it.
fn fragments(
    op: MlirOperation,
    map: &ThreadMap,
    regs: &[Value],
    what: &str,
    slots: usize,
    place: impl Fn(u32, u32) -> Option<((u32, u32), usize)>,
) -> LResult<Fragments> {
    let mut tiles: Fragments = BTreeMap::new();
    for (r, coord) in map.registers.iter().enumerate() {
        // The last two dims are the matrix; a leading one (batched dots) the batch.
        let (batch, matrix) = match coord.len() {
            3 => (coord[0], &coord[1..]),
            _ => (0, &coord[..]),
        };
        let (Some(&row), Some(&col), Some(&value)) = (matrix.first(), matrix.get(1), regs.get(r))
        else {
            return err(
                op,
                format!(
                    "{what}: a register without a 2-D coordinate ({} registers, {} values)",
                    map.registers.len(),
                    regs.len()
                ),
            );
        };
        let Some((tile, element)) = place(row, col).filter(|(_, e)| *e < slots) else {
            return err(
                op,
                format!("{what}: layout does not match the mma.sync fragment ({row}, {col})"),
            );
        };
        let slot = &mut tiles
            .entry((batch, tile.0, tile.1))
            .or_insert_with(|| vec![None; slots])[element];
        slot.get_or_insert(value);
    }
    Ok(tiles)
}

/// The operand types of an mma.sync: PTX name, K per instruction, elements per b32 register.
fn operand_kind(elem: MlirType) -> Option<(&'static str, u32, u32)> {
    // SAFETY: type kind queries on a live type.
    unsafe {
        if mlirTypeIsAF16(elem) {
            Some(("f16", 16, 2))
        } else if mlirTypeIsABF16(elem) {
            Some(("bf16", 16, 2))
        } else if mlirTypeIsAF32(elem) {
            Some(("tf32", 8, 1))
        } else if mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 8 {
            Some(("s8", 32, 4))
        } else {
            None
        }
    }
}

impl FuncLowering<'_> {
    pub fn lower_mma_dot(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (Some(&a), Some(&b), Some(&c), Some(&d)) =
            (ins.first(), ins.get(1), ins.get(2), outs.first())
        else {
            return err(op, "tt.dot needs operands a, b and c and a result");
        };
        let elem = element_type(value_type(a));
        let c_elem = element_type(value_type(c));
        let Some((name, k_instr, per)) = operand_kind(elem) else {
            return err(
                op,
                "mma.sync dots take f16, bf16, f32 (tf32) or i8 operands",
            );
        };
        // SAFETY: type kind query on a live type.
        let f16_acc = unsafe { mlirTypeIsAF16(c_elem) };
        let (acc_name, acc_constraint, acc_words) = if is_f32(c_elem) && name != "s8" {
            ("f32", "f", 4usize)
        } else if f16_acc && name == "f16" {
            ("f16", "r", 2)
        } else if name == "s8" && type_bits(c_elem) == 32 && !is_float(c_elem) {
            ("s32", "r", 4)
        } else {
            return err(
                op,
                "mma.sync accumulates f16/bf16/tf32 in f32, f16 in f16, i8 in i32",
            );
        };
        let a_map = self.thread_map(op, value_type(a))?;
        let b_map = self.thread_map(op, value_type(b))?;
        let c_map = self.thread_map(op, value_type(c))?;
        let (a_regs, b_regs, c_regs) = (self.regs(op, a)?, self.regs(op, b)?, self.regs(op, c)?);
        let rank = a_map.shape.len();
        let k_tiles = a_map
            .shape
            .get(rank.saturating_sub(1))
            .copied()
            .unwrap_or(0)
            / k_instr;
        let half = k_instr / 2;
        let a_frags = fragments(op, &a_map, &a_regs, "A", (4 * per) as usize, |m, k| {
            (m % 8 == 0 && k % half % (4 * per) < per).then(|| {
                let word = 2 * (k % k_instr >= half) as u32 + (m % 16 >= 8) as u32;
                ((m / 16, k / k_instr), (word * per + k % per) as usize)
            })
        })?;
        let b_frags = fragments(op, &b_map, &b_regs, "B", (2 * per) as usize, |k, n| {
            (n % 8 == 0 && k % half % (4 * per) < per).then(|| {
                let word = (k % k_instr >= half) as u32;
                ((k / k_instr, n / 8), (word * per + k % per) as usize)
            })
        })?;
        let c_frags = fragments(op, &c_map, &c_regs, "C", 4, |m, n| {
            (m % 8 == 0 && n % 8 < 2).then(|| {
                (
                    (m / 16, n / 8),
                    2 * (m % 16 >= 8) as usize + (n % 2) as usize,
                )
            })
        })?;

        let acc_type_elem = if f16_acc {
            self.b.i32()
        } else {
            self.llvm_type(c_elem)
        };
        let acc_type = self.b.struct_type(&vec![acc_type_elem; acc_words]);
        let list = |start: usize, count: usize| -> String {
            (start..start + count)
                .map(|i| format!("${i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let d_list = list(0, acc_words);
        let a_list = list(acc_words, 4);
        let b_list = list(acc_words + 4, 2);
        let c_list = list(acc_words + 6, acc_words);
        let asm = format!(
            "mma.sync.aligned.m16n8k{k_instr}.row.col.{acc_name}.{name}.{name}.{acc_name} {{{d_list}}}, {{{a_list}}}, {{{b_list}}}, {{{c_list}}};"
        );
        let mut constraints: Vec<String> = vec![format!("={acc_constraint}"); acc_words];
        constraints.extend(std::iter::repeat_n("r".to_string(), 6));
        constraints.extend(std::iter::repeat_n(acc_constraint.to_string(), acc_words));
        let constraints = constraints.join(",");
        let mut results: BTreeMap<(u32, u32, u32), Vec<Value>> = BTreeMap::new();
        for (&(batch, mi, nj), c_frag) in &c_frags {
            let mut acc = Vec::with_capacity(4);
            for value in c_frag {
                match value {
                    Some(v) => acc.push(*v),
                    None => return err(op, "C: an accumulator fragment is incomplete"),
                }
            }
            if f16_acc {
                acc = (0..2)
                    .map(|w| self.pack_word(&acc, 2 * w, 2, c_elem, 16))
                    .collect();
            }
            for ki in 0..k_tiles {
                let (Some(a_frag), Some(b_frag)) =
                    (a_frags.get(&(batch, mi, ki)), b_frags.get(&(batch, ki, nj)))
                else {
                    return err(op, "an operand tile of the dot is missing from this thread");
                };
                let mut operands = self.pack_words(op, a_frag, elem, per, "A")?;
                operands.extend(self.pack_words(op, b_frag, elem, per, "B")?);
                operands.extend(acc.iter().copied());
                let out = self.b.asm(&asm, &constraints, &operands, acc_type);
                for (i, slot) in acc.iter_mut().enumerate() {
                    *slot = self.b.extract_value(out, i as i64, acc_type_elem);
                }
            }
            if f16_acc {
                let i16t = self.b.int_type(16);
                let mut halves = Vec::with_capacity(4);
                for &w in &acc {
                    let low = self.b.trunc(w, i16t);
                    let high = self.b.bin_imm(BinOp::LShr, w, 16);
                    let high = self.b.trunc(high, i16t);
                    halves.push(self.value_from_bits(low, c_elem, 16, 16));
                    halves.push(self.value_from_bits(high, c_elem, 16, 16));
                }
                acc = halves;
            }
            results.insert((batch, mi, nj), acc);
        }
        let mut d_regs = Vec::with_capacity(c_map.num_registers());
        for coord in &c_map.registers {
            let (batch, m, n) = match coord.len() {
                3 => (coord[0], coord[1], coord[2]),
                _ => (0, coord[0], coord[1]),
            };
            let element = 2 * (m % 16 >= 8) as usize + (n % 2) as usize;
            let Some(value) = results
                .get(&(batch, m / 16, n / 8))
                .and_then(|tile| tile.get(element))
            else {
                return err(op, "internal error: an accumulator tile was not computed");
            };
            d_regs.push(*value);
        }
        self.set(d, d_regs);
        Ok(())
    }

    /// A fragment's elements packed `per` to a b32 register (element 0 lowest).
    fn pack_words(
        &mut self,
        op: MlirOperation,
        fragment: &[Option<Value>],
        elem: MlirType,
        per: u32,
        what: &str,
    ) -> LResult<Vec<Value>> {
        let mut values = Vec::with_capacity(fragment.len());
        for value in fragment {
            match value {
                Some(v) => values.push(*v),
                None => return err(op, format!("{what}: an operand fragment is incomplete")),
            }
        }
        let bits = type_bits(elem);
        Ok((0..values.len() / per as usize)
            .map(|w| {
                if per == 1 {
                    self.bits_of(values[w], elem, 32)
                } else {
                    self.pack_word(&values, w * per as usize, per as usize, elem, bits)
                }
            })
            .collect())
    }
}
