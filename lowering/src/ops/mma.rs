//! `tt.dot` on tensor cores: an `#ttg.nvidia_mma` version 2 accumulator with `#ttg.dot_op`
//! operands (kWidth 2) becomes one `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}` per
//! 16x8 accumulator tile and 16-wide K step (per matrix of a batched, rank-3 dot).
//!
//! Each thread's registers are matched to the PTX fragments by their tensor coordinates at lane
//! 0 of warp 0 (the layouts' lane bits are exactly the fragments' `groupID`/`threadID_in_group`,
//! and A, B and C share their warps through the common parent): within a 16x16 A tile the
//! register at (row, k) is fragment element `4·(k ≥ 8) + 2·(row ≥ 8) + k mod 2`, within a 16x8 B
//! tile (k, col) is `2·(k ≥ 8) + k mod 2`, and within a 16x8 C tile (row, col) is
//! `2·(row ≥ 8) + col mod 2`.

use crate::builder::*;
use crate::layout_map::ThreadMap;
use crate::state::*;
use mlir_sys::*;
use std::collections::BTreeMap;
use tritium_passes::ir_util::*;

/// A thread's fragments of one operand, by tile: `(batch, tile row, tile column) → elements`
/// (batch 0 for 2-D dots).
type Fragments<const N: usize> = BTreeMap<(u32, u32, u32), [Option<Value>; N]>;

/// Sorts registers into fragments: `place(coord)` gives (tile, element) or `None` when the
/// register is not where the fragment layout puts it.
fn fragments<const N: usize>(
    op: MlirOperation,
    map: &ThreadMap,
    regs: &[Value],
    what: &str,
    place: impl Fn(u32, u32) -> Option<((u32, u32), usize)>,
) -> LResult<Fragments<N>> {
    let mut tiles: Fragments<N> = BTreeMap::new();
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
        let Some((tile, element)) = place(row, col) else {
            return err(
                op,
                format!("{what}: layout does not match the mma.sync fragment ({row}, {col})"),
            );
        };
        let slot = &mut tiles.entry((batch, tile.0, tile.1)).or_insert([None; N])[element];
        slot.get_or_insert(value);
    }
    Ok(tiles)
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
        let Some(name) = ptx_float_name(elem).filter(|n| matches!(*n, "f16" | "bf16")) else {
            return err(op, "tensor-core dots take f16 or bf16 operands");
        };
        if !is_f32(element_type(value_type(c))) {
            return err(op, "tensor-core dots accumulate in f32");
        }
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
            / 16;
        let a_frags: Fragments<8> = fragments(op, &a_map, &a_regs, "A", |m, k| {
            (m % 8 == 0 && k % 8 < 2).then(|| {
                let element = 4 * (k % 16 >= 8) as usize + 2 * (m % 16 >= 8) as usize;
                ((m / 16, k / 16), element + (k % 2) as usize)
            })
        })?;
        let b_frags: Fragments<4> = fragments(op, &b_map, &b_regs, "B", |k, n| {
            (n % 8 == 0 && k % 8 < 2).then(|| {
                (
                    (k / 16, n / 8),
                    2 * (k % 16 >= 8) as usize + (k % 2) as usize,
                )
            })
        })?;
        let c_frags: Fragments<4> = fragments(op, &c_map, &c_regs, "C", |m, n| {
            (m % 8 == 0 && n % 8 < 2).then(|| {
                (
                    (m / 16, n / 8),
                    2 * (m % 16 >= 8) as usize + (n % 2) as usize,
                )
            })
        })?;

        let f32 = self.b.f32();
        let acc_type = self.b.struct_type(&[f32; 4]);
        let asm = format!(
            "mma.sync.aligned.m16n8k16.row.col.f32.{name}.{name}.f32 {{$0, $1, $2, $3}}, {{$4, $5, $6, $7}}, {{$8, $9}}, {{$10, $11, $12, $13}};"
        );
        let constraints = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f";
        let mut results: BTreeMap<(u32, u32, u32), [Value; 4]> = BTreeMap::new();
        for (&(batch, mi, nj), c_frag) in &c_frags {
            let mut acc = [c_regs[0]; 4];
            for (slot, value) in acc.iter_mut().zip(c_frag) {
                *slot = value.ok_or_else(|| LowerError {
                    op: Some(op),
                    message: "C: an accumulator fragment is incomplete".into(),
                })?;
            }
            for ki in 0..k_tiles {
                let (Some(a_frag), Some(b_frag)) =
                    (a_frags.get(&(batch, mi, ki)), b_frags.get(&(batch, ki, nj)))
                else {
                    return err(op, "an operand tile of the dot is missing from this thread");
                };
                let a_words = self.pack_pairs(op, a_frag, elem, "A")?;
                let b_words = self.pack_pairs(op, b_frag, elem, "B")?;
                let mut operands = a_words;
                operands.extend(b_words);
                operands.extend(acc);
                let out = self.b.asm(&asm, constraints, &operands, acc_type);
                for (i, slot) in acc.iter_mut().enumerate() {
                    *slot = self.b.extract_value(out, i as i64, f32);
                }
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
            let Some(tile) = results.get(&(batch, m / 16, n / 8)) else {
                return err(op, "internal error: an accumulator tile was not computed");
            };
            d_regs.push(tile[element]);
        }
        self.set(d, d_regs);
        Ok(())
    }

    /// A fragment's 16-bit elements packed in pairs into b32 registers (element 2i low).
    fn pack_pairs<const N: usize>(
        &mut self,
        op: MlirOperation,
        fragment: &[Option<Value>; N],
        elem: MlirType,
        what: &str,
    ) -> LResult<Vec<Value>> {
        let mut values = Vec::with_capacity(N);
        for value in fragment {
            match value {
                Some(v) => values.push(*v),
                None => return err(op, format!("{what}: an operand fragment is incomplete")),
            }
        }
        Ok((0..N / 2)
            .map(|i| self.pack_word(&values, 2 * i, 2, elem, 16))
            .collect())
    }
}
