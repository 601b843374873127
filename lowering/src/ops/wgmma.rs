//! Hopper tensor cores: `ttng.warp_group_dot` → `wgmma.mma_async`, `ttng.warp_group_dot_wait`
//! → `wgmma.wait_group`, `ttng.fence_async_shared` → `fence.proxy.async`.
//!
//! A `#ttg.nvidia_mma` version 3 accumulator with `instrShape = [16, N, K]` is computed by
//! warpgroups (4 consecutive warps) issuing `wgmma.mma_async.m64nNkK`; each covers 64 rows
//! (its 4 warps' 16-row slices) and N columns of one accumulator tile, and steps through K.
//! Operand B — and A unless it is in registers (`#ttg.dot_op` of the mma layout) — is read
//! by the tensor cores straight from `#ttg.nvmma_shared` buffers through 64-bit matrix
//! descriptors: the tile's start address, the byte strides between 8-row core-matrix groups
//! (SBO) and between swizzle-width chunks of the contiguous dim (LBO, MN-major operands only)
//! and the swizzle mode. Both strides and every tile's start come from the buffer's own
//! offset map, so they agree with how `ttg.local_alloc` wrote it.
//!
//! Registers are matched to the PTX fragments by their tensor coordinates at lane 0 of warp 0:
//! within a warp's 16 x N slice, accumulator (row, col) is fragment element
//! `4·(col mod N)/8 + 2·(row mod 16 ≥ 8) + col mod 2`; a register A operand's (row, k) within a
//! 16 x 16 tile is element `4·(k ≥ 8) + 2·(row ≥ 8) + k mod 2` (8 halves in 4 b32 registers).

use crate::builder::*;
use crate::layout_map::ThreadMap;
use crate::ops::local::{Addressing, SharedBuffer};
use crate::state::*;
use mlir_sys::*;
use std::collections::BTreeMap;
use tritium_layout::encoding::Encoding;
use tritium_passes::ir_util::*;

/// The lane bases of an mma fragment with `per` consecutive inner elements per lane: lanes 0-1
/// step the inner dim by `per` and `2 per`, lanes 2-4 the outer dim by 1, 2 and 4 (`[outer,
/// inner]` coordinates). Accumulators have `per = 2`; register A operands `32 / bits`.
fn lanes_match(map: &ThreadMap, per: u32) -> bool {
    let expected: [[u32; 2]; 5] = [[0, per], [0, 2 * per], [1, 0], [2, 0], [4, 0]];
    map.lane_bases.len() == 5
        && map
            .lane_bases
            .iter()
            .zip(expected)
            .all(|(b, e)| b.len() == 2 && b[0] == e[0] && b[1] == e[1])
}

/// PTX operand type of a wgmma input element and its K per instruction.
fn wgmma_input(ty: MlirType) -> Option<(&'static str, u32)> {
    // SAFETY: type kind queries on a live type.
    unsafe {
        if mlirTypeIsAF16(ty) {
            Some(("f16", 16))
        } else if mlirTypeIsABF16(ty) {
            Some(("bf16", 16))
        } else if mlirTypeIsAF32(ty) {
            Some(("tf32", 8))
        } else if mlirTypeIsAFloat8E4M3FN(ty) {
            Some(("e4m3", 32))
        } else if mlirTypeIsAFloat8E5M2(ty) {
            Some(("e5m2", 32))
        } else if mlirTypeIsAInteger(ty) && mlirIntegerTypeGetWidth(ty) == 8 {
            Some(("s8", 32))
        } else {
            None
        }
    }
}

/// A shared-memory operand of one wgmma: its buffer, whether K is its contiguous dim, and the
/// descriptor bits that do not depend on the tile (strides, swizzle mode).
struct SharedOperand {
    buffer: SharedBuffer,
    k_major: bool,
    fixed_bits: u64,
}

/// Reads a `#ttg.nvmma_shared` operand buffer: `k_dim` is the operand's K dimension (1 for A,
/// 0 for B).
fn shared_operand(
    op: MlirOperation,
    memdesc: MlirValue,
    buffer: SharedBuffer,
    k_dim: usize,
    what: &str,
) -> LResult<SharedOperand> {
    let Some(Encoding::NvmmaShared(shared)) = memdesc_encoding_of(value_type(memdesc)) else {
        return err(
            op,
            format!("wgmma reads operand {what} from a #ttg.nvmma_shared buffer only"),
        );
    };
    if buffer.shape.len() != 2 {
        return err(op, format!("wgmma operand {what} must be a 2-D buffer"));
    }
    let swizzle_mode: u64 = match shared.swizzling_byte_width {
        128 => 1,
        64 => 2,
        32 => 3,
        other => {
            return err(
                op,
                format!(
                    "wgmma operand {what}: swizzlingByteWidth {other} is not supported (32, 64 or 128)"
                ),
            );
        }
    };
    let contiguous = shared.contiguous_dim(2);
    let k_major = contiguous == k_dim;
    let bytes = smem_bytes(buffer.elem) as u32;
    let at = |coord: [u32; 2]| buffer.addressing.offset_of(&coord) as u64 * bytes as u64;
    let (mut step_rows, mut step_chunk) = ([0u32; 2], [0u32; 2]);
    let other = 1 - contiguous;
    // 8 rows of the non-contiguous dim: the core-matrix group stride (SBO).
    step_rows[other] = 8;
    // One swizzle width further along the contiguous dim: the chunk stride (LBO).
    step_chunk[contiguous] = shared.swizzling_byte_width / bytes;
    // With a single 8-row group (the other dim is 8 long) SBO is never used: any nonzero value.
    let sbo = if buffer.shape[other] <= 8 {
        8 * shared.swizzling_byte_width as u64
    } else {
        at(step_rows)
    };
    let lbo = if k_major || step_chunk[contiguous] >= buffer.shape[contiguous] {
        0
    } else {
        at(step_chunk)
    };
    if !matches!(buffer.addressing, Addressing::Linear { .. }) || sbo == 0 {
        return err(
            op,
            format!("wgmma operand {what}: unexpected shared layout"),
        );
    }
    let fixed_bits = ((lbo >> 4) & 0x3fff) << 16 | ((sbo >> 4) & 0x3fff) << 32 | swizzle_mode << 62;
    Ok(SharedOperand {
        buffer,
        k_major,
        fixed_bits,
    })
}

impl FuncLowering<'_> {
    pub fn lower_fence_async_shared(&mut self, op: MlirOperation) -> LResult<()> {
        let cluster = bool_attr(op, "bCluster").unwrap_or(false);
        let asm = if cluster {
            "fence.proxy.async.shared::cluster;"
        } else {
            "fence.proxy.async.shared::cta;"
        };
        self.b.inline_asm(asm, "~{memory}", &[], None, true);
        // Emitted even with no write pending: the fence orders this thread's generic-proxy writes before its async-proxy reads; the
        // barrier then orders every thread's fenced writes before any warpgroup's wgmma.
        self.barrier();
        Ok(())
    }

    /// Byte address (i32) of the warpgroup's origin in an operand buffer: `origin` gives the
    /// runtime warpgroup offset per dim (the buffer's offset map is linear over GF(2), so the
    /// warp bits' offsets XOR together).
    fn warpgroup_address(
        &mut self,
        map: &ThreadMap,
        operand: &SharedOperand,
        dims: [Option<usize>; 2],
    ) -> Value {
        let bytes = smem_bytes(operand.buffer.elem) as i64;
        let mut offset = self.b.prologue_i32(0);
        for (bit, basis) in map.warp_bases.iter().enumerate().skip(2) {
            let mut coord = [0u32; 2];
            for (d, source) in dims.iter().enumerate() {
                if let Some(s) = source {
                    coord[d] = basis.get(*s).copied().unwrap_or(0);
                }
            }
            let term = operand.buffer.addressing.offset_of(&coord) as i64;
            if term == 0 {
                continue;
            }
            let warp = self.warp();
            offset = self.prologue_xor_bit(offset, warp, bit, term);
        }
        // Shared addresses fit 32 bits (and shared pointers are 32-bit): the arithmetic is i32.
        let i32t = self.b.i32();
        let base = self.b.cast(CastOp::PtrToInt, operand.buffer.base, i32t);
        let scaled = self.b.bin_imm(BinOp::Mul, offset, bytes);
        self.b.add(base, scaled)
    }

    /// The matrix descriptor (i64) of the warpgroup's origin at byte address `origin` (i32).
    fn origin_descriptor(&mut self, operand: &SharedOperand, origin: Value) -> Value {
        let start = self.b.bin_imm(BinOp::LShr, origin, 4);
        let start = self.b.bin_imm(BinOp::And, start, 0x3fff);
        let i64t = self.b.i64();
        let start = self.b.zext(start, i64t);
        self.b.bin_imm(BinOp::Or, start, operand.fixed_bits as i64)
    }

    /// The matrix descriptor of the operand tile at `coord` (elements, relative to the
    /// warpgroup origin whose descriptor is `origin`): the origin's plus the tile's offset in
    /// 16-byte units. Shared addresses are below 2^18 bytes, so the 14-bit start address field
    /// does not carry into the fields above it, and tile offsets are multiples of 16 bytes.
    fn descriptor(&mut self, operand: &SharedOperand, origin: Value, coord: [u32; 2]) -> Value {
        let bytes = smem_bytes(operand.buffer.elem) as i64;
        let offset = operand.buffer.addressing.offset_at(&coord) as i64 * bytes;
        if offset == 0 {
            return origin;
        }
        self.b.bin_imm(BinOp::Add, origin, offset >> 4)
    }

    pub fn lower_warp_group_dot(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (Some(&a), Some(&b), Some(&c), Some(&d)) =
            (ins.first(), ins.get(1), ins.get(2), outs.first())
        else {
            return err(
                op,
                "ttng.warp_group_dot needs operands a, b and c and a result",
            );
        };
        let c_type = value_type(c);
        let Some(Encoding::NvidiaMma(mma)) = encoding_of(c_type) else {
            return err(
                op,
                "ttng.warp_group_dot needs an #ttg.nvidia_mma accumulator",
            );
        };
        if mma.version_major != 3 || mma.instr_shape.len() != 3 || mma.warps_per_cta.len() != 2 {
            return err(
                op,
                "ttng.warp_group_dot needs an mma version 3 accumulator of rank 2",
            );
        }
        let (n_instr, k_instr) = (mma.instr_shape[1], mma.instr_shape[2]);
        let (warps_m, warps_n) = (mma.warps_per_cta[0], mma.warps_per_cta[1]);
        let a_is_shared = {
            // SAFETY: type query on a live type.
            unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(value_type(a)) }
        };
        let a_elem = if a_is_shared {
            self.buffer_of(op, a)?.elem
        } else {
            element_type(value_type(a))
        };
        let b_buffer = self.buffer_of(op, b)?;
        let Some((a_name, k_step)) = wgmma_input(a_elem) else {
            return err(op, "wgmma takes f16, bf16, tf32 (f32), fp8 or i8 operands");
        };
        let Some((b_name, _)) = wgmma_input(b_buffer.elem) else {
            return err(op, "wgmma takes f16, bf16, tf32 (f32), fp8 or i8 operands");
        };
        if k_step != k_instr {
            return err(
                op,
                format!("instrShape K is {k_instr} but wgmma on {a_name} steps K by {k_step}"),
            );
        }
        let c_elem = element_type(c_type);
        // SAFETY: type kind query on a live type.
        let f16_acc = unsafe { mlirTypeIsAF16(c_elem) };
        let (acc_name, acc_constraint, packed) = if is_f32(c_elem) {
            ("f32", "f", false)
        } else if a_name == "s8" && type_bits(c_elem) == 32 && !is_float(c_elem) {
            ("s32", "r", false)
        } else if f16_acc && matches!(a_name, "f16" | "e4m3" | "e5m2") {
            // f16 accumulators: two per b32 register.
            ("f16", "r", true)
        } else {
            return err(
                op,
                "wgmma accumulates in f32, in f16 (f16 or fp8 operands) or in i32 (i8 operands)",
            );
        };
        if !(8..=256).contains(&n_instr) || !n_instr.is_multiple_of(8) {
            return err(op, format!("wgmma N of {n_instr} is not supported"));
        }

        let c_map = self.thread_map(op, c_type)?;
        if !lanes_match(&c_map, 2) {
            return err(
                op,
                "the accumulator's layout does not match the wgmma fragment",
            );
        }
        let (m_tile, n_tile) = (16 * warps_m, n_instr * warps_n);
        let c_regs = self.regs(op, c)?;
        // Accumulator registers by (m tile, n tile), in fragment order.
        let per_instr = (n_instr / 2) as usize;
        let mut acc_tiles: BTreeMap<(u32, u32), Vec<Option<Value>>> = BTreeMap::new();
        for (r, coord) in c_map.registers.iter().enumerate() {
            let (m, n) = (coord[0], coord[1]);
            if m % 16 % 8 != 0 || n % 8 >= 2 || m % m_tile >= 16 || n % n_tile >= n_instr {
                return err(
                    op,
                    "the accumulator's layout does not match the wgmma fragment",
                );
            }
            let element = (4 * ((n % n_instr) / 8) + 2 * (m % 16 / 8) + n % 2) as usize;
            let tile = acc_tiles
                .entry((m / m_tile, n / n_tile))
                .or_insert_with(|| vec![None; per_instr]);
            tile[element] = c_regs.get(r).copied();
        }
        let k_total = if a_is_shared {
            match self.buffer_of(op, a)?.shape.get(1) {
                Some(&k) => k,
                None => return err(op, "wgmma operand A must be a 2-D buffer"),
            }
        } else {
            shape(value_type(a)).get(1).copied().unwrap_or(0) as u32
        };
        let k_tiles = k_total / k_instr;

        // Operand A: descriptors, or register fragments per (m tile, k tile).
        let b_operand = shared_operand(op, b, b_buffer, 0, "B")?;
        let b_origin = self.warpgroup_address(&c_map, &b_operand, [None, Some(1)]);
        let b_origin = self.origin_descriptor(&b_operand, b_origin);
        let a_operand = if a_is_shared {
            let buffer = self.buffer_of(op, a)?;
            Some(shared_operand(op, a, buffer, 1, "A")?)
        } else {
            None
        };
        let a_origin = a_operand.as_ref().map(|operand| {
            let address = self.warpgroup_address(&c_map, operand, [Some(0), None]);
            self.origin_descriptor(operand, address)
        });
        for (operand, what) in [(a_operand.as_ref(), "A"), (Some(&b_operand), "B")] {
            if let Some(o) = operand
                && !o.k_major
                && type_bits(o.buffer.elem) != 16
            {
                return err(
                    op,
                    format!(
                        "wgmma operand {what} of {}-bit elements must be K-major in shared memory (transposed nvmma_shared for B)",
                        type_bits(o.buffer.elem)
                    ),
                );
            }
        }
        let a_frags = if a_operand.is_none() {
            Some(self.register_a_fragments(op, a, m_tile)?)
        } else {
            None
        };
        let trans_a = a_operand.as_ref().is_some_and(|o| !o.k_major) as u32;
        let trans_b = !b_operand.k_major as u32;
        let scale_d = match ins.get(3) {
            Some(&use_c) => {
                let v = self.scalar(op, use_c)?;
                let i32t = self.b.i32();
                self.b.zext(v, i32t)
            }
            None => self.b.const_i32(1),
        };
        let one = self.b.const_i32(1);
        let zero_i32 = self.b.const_i32(0);
        let max_imprecise = int_attr(op, "maxNumImpreciseAcc").unwrap_or(0).max(0) as u32;
        let partial_every =
            (matches!(a_name, "e4m3" | "e5m2") && !packed && max_imprecise <= k_total)
                .then(|| (max_imprecise / k_instr).max(1));

        let n = if packed { per_instr / 2 } else { per_instr };
        let outputs: Vec<String> = (0..n).map(|i| format!("${i}")).collect();
        let a_text = if a_operand.is_some() {
            format!("${}", n)
        } else {
            format!("{{${}, ${}, ${}, ${}}}", n, n + 1, n + 2, n + 3)
        };
        let a_count = if a_operand.is_some() { 1 } else { 4 };
        let b_index = n + a_count;
        let scale_index = b_index + 1;
        let transposes = if a_operand.is_some() {
            if type_bits(a_elem) == 16 {
                format!(", {trans_a}, {trans_b}")
            } else {
                String::new()
            }
        } else if type_bits(a_elem) == 16 {
            format!(", {trans_b}")
        } else {
            String::new()
        };
        let scale_ab = if acc_name == "s32" { "" } else { ", 1, 1" };
        let asm = format!(
            "{{\n.reg .pred p;\nsetp.ne.b32 p, ${scale_index}, 0;\nwgmma.mma_async.sync.aligned.m64n{n_instr}k{k_instr}.{acc_name}.{a_name}.{b_name} {{{}}}, {a_text}, ${b_index}, p{scale_ab}{transposes};\n}}",
            outputs.join(", ")
        );
        let mut constraints: Vec<String> = vec![format!("={acc_constraint}"); n];
        constraints.extend(std::iter::repeat_n(
            if a_operand.is_some() { "l" } else { "r" }.to_string(),
            a_count,
        ));
        constraints.push("l".into());
        constraints.push("r".into());
        constraints.extend((0..n).map(|i| i.to_string()));
        // A zero accumulator (no `useC` flag) starts each tile with scale-d = 0 and output-only
        // registers: the zeros are never materialized, so no register write lands between the
        // wgmma.fence and the wgmmas (which ptxas would serialize with injected fences).
        let fresh_start = partial_every.is_none()
            && ins.get(3).is_none()
            && tritium_passes::ttir::util::is_zero_constant(c);
        let fresh_constraints = constraints[..constraints.len() - n].join(",");
        let constraints = constraints.join(",");
        let acc_elem = if packed {
            self.b.i32()
        } else {
            self.llvm_type(c_elem)
        };
        let acc_struct = self.b.struct_type(&vec![acc_elem; n]);

        self.b
            .inline_asm("wgmma.fence.sync.aligned;", "", &[], None, true);
        let mut results: BTreeMap<(u32, u32), Vec<Value>> = BTreeMap::new();
        for (&(mi, nj), tile) in &acc_tiles {
            let mut acc: Vec<Value> = Vec::with_capacity(n);
            for v in tile {
                match v {
                    Some(v) => acc.push(*v),
                    None => return err(op, "an accumulator fragment is incomplete"),
                }
            }
            if packed {
                acc = (0..n)
                    .map(|w| self.pack_word(&acc, 2 * w, 2, c_elem, 16))
                    .collect();
            }
            // fp8 products accumulate in reduced precision inside the tensor cores; with
            // `maxNumImpreciseAcc` no larger than K, every group of that many K (at least one
            // instruction) accumulates into fresh registers, which are added to the f32 total
            // once the group completes (Triton's semantics).
            let mut total: Option<Vec<Value>> = None;
            if partial_every.is_some() {
                let mut start = acc.clone();
                if let Some(&use_c) = ins.get(3) {
                    let keep = self.scalar(op, use_c)?;
                    let zero = self.b.zero(acc_elem);
                    start = start
                        .iter()
                        .map(|&v| self.b.select(keep, v, zero))
                        .collect();
                }
                total = Some(start);
            }
            for ki in 0..k_tiles {
                let group_start = partial_every.is_some_and(|every| ki % every == 0);
                if group_start && ki > 0 {
                    self.b
                        .inline_asm("wgmma.fence.sync.aligned;", "", &[], None, true);
                }
                let mut operands = Vec::with_capacity(n + 8);
                match (&a_operand, a_origin, &a_frags) {
                    (Some(operand), Some(origin), _) => {
                        let desc = self.descriptor(operand, origin, [mi * m_tile, ki * k_instr]);
                        operands.push(desc);
                    }
                    (_, _, Some(frags)) => match frags.get(&(mi, ki)) {
                        Some(words) => operands.extend(words.iter().copied()),
                        None => return err(op, "an A fragment of the dot is missing"),
                    },
                    _ => return err(op, "internal error: operand A has no source"),
                }
                let b_desc = self.descriptor(&b_operand, b_origin, [ki * k_instr, nj * n_tile]);
                operands.push(b_desc);
                let fresh = fresh_start && ki == 0;
                operands.push(if group_start || fresh {
                    zero_i32
                } else if ki == 0 {
                    scale_d
                } else {
                    one
                });
                if !fresh {
                    operands.extend(acc.iter().copied());
                }
                let tied = if fresh {
                    &fresh_constraints
                } else {
                    &constraints
                };
                let out = self
                    .b
                    .inline_asm(&asm, tied, &operands, Some(acc_struct), true)
                    .unwrap_or_else(|| unreachable!("inline_asm with a result returns a value"));
                for (i, slot) in acc.iter_mut().enumerate() {
                    *slot = self.b.extract_value(out, i as i64, acc_elem);
                }
                let group_end =
                    partial_every.is_some_and(|every| (ki + 1) % every == 0 || ki + 1 == k_tiles);
                if group_end && let Some(sum) = total.as_mut() {
                    self.b
                        .inline_asm("wgmma.commit_group.sync.aligned;", "", &[], None, true);
                    let done = self.wait_group(0, &acc, c_elem);
                    for (t, v) in sum.iter_mut().zip(done) {
                        *t = self.b.bin(BinOp::FAdd, *t, v);
                    }
                }
            }
            results.insert((mi, nj), total.unwrap_or(acc));
        }
        self.b
            .inline_asm("wgmma.commit_group.sync.aligned;", "", &[], None, true);
        if packed {
            // Unpacking reads the registers, so the dot completes first (even an async one:
            // the value model holds one register per element, not the packed pairs).
            let keys: Vec<(u32, u32)> = results.keys().copied().collect();
            for k in keys {
                let words = self.wait_group(0, &results[&k], self.b.i32());
                let mut halves = Vec::with_capacity(2 * words.len());
                for w in words {
                    let i16t = self.b.int_type(16);
                    let low = self.b.trunc(w, i16t);
                    let high = self.b.bin_imm(BinOp::LShr, w, 16);
                    let high = self.b.trunc(high, i16t);
                    halves.push(self.value_from_bits(low, c_elem, 16, 16));
                    halves.push(self.value_from_bits(high, c_elem, 16, 16));
                }
                results.insert(k, halves);
            }
        }
        let mut d_regs = Vec::with_capacity(c_map.num_registers());
        for coord in &c_map.registers {
            let (m, n) = (coord[0], coord[1]);
            let element = (4 * ((n % n_instr) / 8) + 2 * (m % 16 / 8) + n % 2) as usize;
            let Some(tile) = results.get(&(m / m_tile, n / n_tile)) else {
                return err(op, "internal error: an accumulator tile was not computed");
            };
            d_regs.push(tile[element]);
        }
        if !bool_attr(op, "isAsync").unwrap_or(false) {
            d_regs = self.wait_group(0, &d_regs, c_elem);
        }
        self.set(d, d_regs);
        Ok(())
    }

    /// A register operand A (`#ttg.dot_op` of an mma v3 layout) as 4 b32 words per (m tile, K
    /// tile), K = 256 / bits: word `2·(k mod K ≥ K/2) + (row mod 16 ≥ 8)` holds `32 / bits`
    /// consecutive k of its row (lane t the ones from `(32 / bits)·t`).
    fn register_a_fragments(
        &mut self,
        op: MlirOperation,
        a: MlirValue,
        m_tile: u32,
    ) -> LResult<BTreeMap<(u32, u32), Vec<Value>>> {
        let a_type = value_type(a);
        let elem = element_type(a_type);
        let bits = type_bits(elem);
        if !matches!(bits, 8 | 16 | 32) {
            return err(
                op,
                "wgmma takes register A operands of 8-, 16- or 32-bit elements",
            );
        }
        let per = 32 / bits;
        let k_instr = 256 / bits;
        let map = self.thread_map(op, a_type)?;
        if !lanes_match(&map, per) {
            return err(op, "operand A's layout does not match the wgmma fragment");
        }
        let regs = self.regs(op, a)?;
        let slots = (4 * per) as usize;
        let mut tiles: BTreeMap<(u32, u32), Vec<Option<Value>>> = BTreeMap::new();
        for (r, coord) in map.registers.iter().enumerate() {
            let (m, k) = (coord[0], coord[1]);
            if m % 8 != 0 || k % (4 * per) >= per || m % m_tile >= 16 {
                return err(op, "operand A's layout does not match the wgmma fragment");
            }
            let word = 2 * (k % k_instr >= k_instr / 2) as u32 + (m % 16 >= 8) as u32;
            let slot = (word * per + k % per) as usize;
            let entry = tiles
                .entry((m / m_tile, k / k_instr))
                .or_insert_with(|| vec![None; slots]);
            if entry[slot].is_none() {
                entry[slot] = regs.get(r).copied();
            }
        }
        let mut words = BTreeMap::new();
        for (tile, fragment) in tiles {
            let mut values = Vec::with_capacity(slots);
            for v in fragment {
                match v {
                    Some(v) => values.push(v),
                    None => return err(op, "operand A: a fragment is incomplete"),
                }
            }
            let packed: Vec<Value> = (0..4)
                .map(|w| {
                    if bits == 32 {
                        self.bits_of(values[w], elem, 32)
                    } else {
                        self.pack_word(&values, w * per as usize, per as usize, elem, bits)
                    }
                })
                .collect();
            words.insert(tile, packed);
        }
        Ok(words)
    }

    /// `wgmma.wait_group pendings` tied to `regs`: the returned values are the registers once
    /// at most `pendings` wgmma groups are in flight, so nothing reads them earlier.
    fn wait_group(&mut self, pendings: i64, regs: &[Value], elem: MlirType) -> Vec<Value> {
        if regs.is_empty() {
            self.b.inline_asm(
                &format!("wgmma.wait_group.sync.aligned {pendings};"),
                "",
                &[],
                None,
                true,
            );
            return Vec::new();
        }
        let constraint = if is_float(elem) {
            float_constraint(type_bits(elem))
        } else {
            "r"
        };
        let n = regs.len();
        let mut constraints: Vec<String> = vec![format!("={constraint}"); n];
        constraints.extend((0..n).map(|i| i.to_string()));
        let ty = type_of(regs[0]);
        let result = self.b.struct_type(&vec![ty; n]);
        let out = self
            .b
            .inline_asm(
                &format!("wgmma.wait_group.sync.aligned {pendings};"),
                &constraints.join(","),
                regs,
                Some(result),
                true,
            )
            .unwrap_or_else(|| unreachable!("inline_asm with a result returns a value"));
        (0..n)
            .map(|i| self.b.extract_value(out, i as i64, ty))
            .collect()
    }

    pub fn lower_warp_group_dot_wait(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let pendings = int_attr(op, "pendings").unwrap_or(0);
        // Tensor inputs wait together (one instruction tied to all their registers); memdesc
        // inputs pass through.
        let mut tied = Vec::new();
        let mut spans = Vec::new();
        let mut elem = None;
        for (&input, &output) in ins.iter().zip(outs) {
            // SAFETY: type query on a live type.
            if unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(value_type(input)) } {
                let buffer = self.buffer_of(op, input)?;
                self.buffers.insert(key(output), buffer);
                continue;
            }
            let regs = self.regs(op, input)?;
            let e = element_type(value_type(input));
            if let Some(previous) = elem
                && type_bits(previous) != type_bits(e)
            {
                // Mixed widths wait separately.
                let values = self.wait_group(pendings, &regs, e);
                self.set(output, values);
                continue;
            }
            elem = Some(e);
            spans.push((output, tied.len(), regs.len()));
            tied.extend(regs);
        }
        match elem {
            Some(e) => {
                let values = self.wait_group(pendings, &tied, e);
                for (output, start, len) in spans {
                    self.set(output, values[start..start + len].to_vec());
                }
            }
            None => {
                self.wait_group(pendings, &[], self.b.i32());
            }
        }
        Ok(())
    }
}
