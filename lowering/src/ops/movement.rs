//! Data movement between layouts and shapes (`ttg.convert_layout`, `tt.broadcast`,
//! `tt.expand_dims`, `tt.reshape`, `tt.trans`, `tt.join`, `tt.split`, `tt.cat`, `tt.unsplat`).
//!
//! Each op is a map from a destination coordinate to (source operand, source coordinate). With
//! power-of-two shapes every such map is affine over GF(2) (coordinates as bit vectors, XOR as
//! addition), which is what linear layouts are too. So: when the map sends the destination's
//! lane and warp bases to the source's, every destination register is some register of the same
//! thread and the op is free (registers are renamed); otherwise every thread writes what it holds
//! to shared memory and reads what it needs, at addresses computed from the same affine map.
//!
//! Which of the two an op takes depends on its types alone ([`plan`], [`register_route`]), so
//! [`movement_scratch`] tells `-allocate-shared-memory` the same size the lowering reserves.

use crate::builder::*;
use crate::layout_map::ThreadMap;
use crate::state::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_passes::ir_util::*;

/// Destination coordinate → (source operand, source coordinate).
type ProjectionFn = dyn Fn(&[u32]) -> (usize, Vec<u32>);
type Projection<'p> = &'p ProjectionFn;

/// One result of a movement op and the projection that makes it from the operands.
struct Move {
    out: usize,
    project: Box<ProjectionFn>,
}

/// What a movement op does, decided from its types alone.
enum Plan {
    /// The result takes the first operand's registers as they are (a `ttg.convert_layout` that
    /// only feeds `tt.dot`, which reads its source through shared memory itself; a reordering
    /// `tt.reshape` whose layouts hold every element once).
    Reuse,
    /// `tt.unsplat`: the one register of the operand.
    Unsplat,
    /// Each listed result is moved from the operands.
    Moves(Vec<Move>),
}

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

fn dims_of(ty: MlirType) -> Vec<u32> {
    shape(ty).iter().map(|&d| d as u32).collect()
}

/// Whether `order` is a permutation of `0..rank`.
fn is_permutation(order: &[i32], rank: usize) -> bool {
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    sorted.iter().copied().eq(0..rank as i32)
}

/// The plan of a movement op: which results are moved, by which projection. Errors for shapes
/// and attributes the projections cannot take.
fn plan(op: MlirOperation, name: &str, ins: &[MlirValue], outs: &[MlirValue]) -> LResult<Plan> {
    let (Some(&first_in), Some(&first_out)) = (ins.first(), outs.first()) else {
        return err(op, format!("{name} needs an operand and a result"));
    };
    if name == "ttg.convert_layout" && is_dot_operand_feed(op) {
        return Ok(Plan::Reuse);
    }
    if name == "tt.unsplat" {
        return Ok(Plan::Unsplat);
    }
    let src_type = value_type(first_in);
    let src_shape = dims_of(src_type);
    if src_shape.iter().any(|d| !d.is_power_of_two()) {
        return err(op, "data movement needs power-of-two tensor shapes");
    }
    let rank = src_shape.len();
    if name == "tt.reshape" && attribute(op, "allow_reorder").is_some() {
        // Any element order is allowed: keep the registers when every element is held once.
        let src_map = thread_map_of(op, src_type)?;
        let dst_map = thread_map_of(op, value_type(first_out))?;
        let unique = |m: &ThreadMap| {
            m.lane_broadcast_mask() == 0
                && m.warp_broadcast_mask() == 0
                && !m.register_duplicate.iter().any(|&d| d)
        };
        if src_map.num_registers() == dst_map.num_registers()
            && unique(&src_map)
            && unique(&dst_map)
        {
            return Ok(Plan::Reuse);
        }
    }
    if name == "tt.split" {
        let moves = (0..outs.len())
            .map(|j| Move {
                out: j,
                project: Box::new(move |c: &[u32]| {
                    let mut s = c.to_vec();
                    s.push(j as u32);
                    (0usize, s)
                }),
            })
            .collect();
        return Ok(Plan::Moves(moves));
    }
    let dst_shape = dims_of(value_type(first_out));
    let same_rank = || {
        if dst_shape.len() == rank {
            Ok(())
        } else {
            err(op, format!("{name} needs a result of the operand's rank"))
        }
    };
    let project: Box<ProjectionFn> = match name {
        "ttg.convert_layout" => Box::new(|c: &[u32]| (0, c.to_vec())),
        "tt.broadcast" => {
            same_rank()?;
            let src_shape = src_shape.clone();
            Box::new(move |c: &[u32]| {
                (
                    0,
                    c.iter()
                        .zip(&src_shape)
                        .map(|(&x, &s)| if s == 1 { 0 } else { x })
                        .collect(),
                )
            })
        }
        "tt.expand_dims" => {
            let axis = int_attr(op, "axis").unwrap_or(0);
            if axis < 0 || axis as usize >= dst_shape.len() {
                return err(op, "tt.expand_dims axis is out of range");
            }
            let axis = axis as usize;
            Box::new(move |c: &[u32]| {
                (
                    0,
                    c.iter()
                        .enumerate()
                        .filter(|(d, _)| *d != axis)
                        .map(|(_, &x)| x)
                        .collect(),
                )
            })
        }
        "tt.trans" => {
            same_rank()?;
            let order = i32_array(op, "order");
            if !is_permutation(&order, rank) {
                return err(op, "tt.trans order must be a permutation of the dimensions");
            }
            // Source dim d is destination dim position(order == d).
            let inverse: Vec<usize> = (0..rank)
                .map(|d| order.iter().position(|&o| o as usize == d).unwrap_or(d))
                .collect();
            Box::new(move |c: &[u32]| (0, inverse.iter().map(|&p| c[p]).collect()))
        }
        "tt.reshape" => {
            let src_shape = src_shape.clone();
            let dst_shape = dst_shape.clone();
            Box::new(move |c: &[u32]| (0, delinearize(&src_shape, row_major(&dst_shape, c))))
        }
        "tt.join" => {
            if dst_shape.is_empty() {
                return err(op, "tt.join needs a ranked result");
            }
            Box::new(|c: &[u32]| {
                let last = c.len() - 1;
                (c[last] as usize, c[..last].to_vec())
            })
        }
        "tt.cat" => {
            same_rank()?;
            let Some(&n) = src_shape.first() else {
                return err(op, "tt.cat needs ranked operands");
            };
            Box::new(move |c: &[u32]| {
                let mut s = c.to_vec();
                s[0] = c[0] % n;
                ((c[0] / n) as usize, s)
            })
        }
        _ => return err(op, format!("unsupported data movement '{name}'")),
    };
    Ok(Plan::Moves(vec![Move { out: 0, project }]))
}

/// Checks that `project` sends every destination register and basis (the projection is only
/// ever applied to those, and to the zero coordinate) to a source among `sources` of the source
/// rank, so the lowering may index with its results.
fn check_projection(
    op: MlirOperation,
    project: Projection,
    sources: usize,
    src_rank: usize,
    dst_map: &ThreadMap,
) -> LResult<()> {
    let zero = vec![0u32; dst_map.shape.len()];
    let coords = dst_map
        .registers
        .iter()
        .chain(&dst_map.lane_bases)
        .chain(&dst_map.warp_bases)
        .chain(std::iter::once(&zero));
    for c in coords {
        if c.len() != dst_map.shape.len() {
            return err(op, "internal error: a layout basis of the wrong rank");
        }
        let (k, s) = project(c);
        if k >= sources || s.len() != src_rank {
            return err(
                op,
                "data movement: the result's shape does not match the operands' shapes",
            );
        }
    }
    Ok(())
}

/// Where each destination register comes from, as (source operand, source register), when no
/// element changes thread; `None` when the op needs shared memory.
fn register_route(
    op: MlirOperation,
    sources: usize,
    src_map: &ThreadMap,
    dst_map: &ThreadMap,
    project: Projection,
) -> LResult<Option<Vec<(usize, usize)>>> {
    let src_rank = src_map.shape.len();
    check_projection(op, project, sources, src_rank, dst_map)?;
    let (offset_k, offset_c) = project(&vec![0; dst_map.shape.len()]);
    // The linear part of the projection.
    let linear = |c: &[u32]| -> (usize, Vec<u32>) {
        let (k, s) = project(c);
        (
            k ^ offset_k,
            s.iter().zip(&offset_c).map(|(a, b)| a ^ b).collect(),
        )
    };
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
    if !(bases_match(&dst_map.lane_bases, &src_map.lane_bases)
        && bases_match(&dst_map.warp_bases, &src_map.warp_bases))
    {
        return Ok(None);
    }
    let by_coord: HashMap<&Vec<u32>, usize> = src_map
        .registers
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| (c, i))
        .collect();
    Ok(dst_map
        .registers
        .iter()
        .map(|c| {
            let (k, s) = project(c);
            by_coord.get(&s).map(|&i| (k, i))
        })
        .collect())
}

/// Shared-memory scratch of a movement op (`ttg.convert_layout`, `tt.broadcast`,
/// `tt.expand_dims`, `tt.reshape`, `tt.trans`, `tt.join`, `tt.split`, `tt.cat`, `tt.unsplat`),
/// in bytes, from its types and layouts alone: 0 when every result is a renaming of registers,
/// else every operand's elements once.
pub fn movement_scratch(op: MlirOperation) -> LResult<u64> {
    let name = op_name(op);
    let ins = operands(op);
    let outs = results(op);
    let Plan::Moves(moves) = plan(op, &name, &ins, &outs)? else {
        return Ok(0);
    };
    // `plan` checked there is an operand.
    let src_type = value_type(ins[0]);
    let src_map = thread_map_of(op, src_type)?;
    let mut bytes = 0;
    for m in &moves {
        let Some(&out) = outs.get(m.out) else {
            return err(op, "internal error: a moved result out of range");
        };
        let dst_map = thread_map_of(op, value_type(out))?;
        if register_route(op, ins.len(), &src_map, &dst_map, &*m.project)?.is_none() {
            let elem_bytes = smem_bytes(element_type(src_type));
            let tile = src_map.numel() * elem_bytes * ins.len() as u64;
            let rounds = if name == "ttg.convert_layout" && ins.len() == 1 {
                conversion_rounds(op, &src_map, &dst_map, elem_bytes).len()
            } else {
                0
            };
            bytes = bytes.max(tile >> rounds);
        }
    }
    Ok(bytes)
}

impl FuncLowering<'_> {
    /// The movement ops: computes the projection and moves the elements.
    pub fn lower_movement(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        match plan(op, name, ins, outs)? {
            Plan::Reuse => {
                // `plan` checked there is an operand and a result.
                let v = self.get(ins[0]);
                self.set(outs[0], v);
            }
            Plan::Unsplat => {
                let v = self.scalar(op, ins[0])?;
                self.set(outs[0], vec![v]);
            }
            Plan::Moves(moves) => {
                for m in moves {
                    let Some(&out) = outs.get(m.out) else {
                        return err(op, "internal error: a moved result out of range");
                    };
                    let regs = self.move_elements(op, ins, value_type(out), &*m.project)?;
                    self.set(out, regs);
                }
            }
        }
        Ok(())
    }

    /// A layout conversion through shared memory, written and read with the buffer accesses
    /// of `ttg.local_alloc`/`local_load` (vectorized up to 16 bytes). Power-of-two tensors go
    /// through a buffer swizzled for both sides ([`conflict_free_addressing`]); others
    /// row-major. Where [`conversion_rounds`] splits it, the tile goes through in rounds.
    fn convert_through_shared(
        &mut self,
        op: MlirOperation,
        source: MlirValue,
        dst_type: MlirType,
    ) -> LResult<Vec<Value>> {
        self.reserve_scratch(movement_scratch(op)?);
        let values = self.regs(op, source)?;
        let src_type = value_type(source);
        let src_map = self.thread_map(op, src_type)?;
        let dst_map = self.thread_map(op, dst_type)?;
        let rounds = conversion_rounds(op, &src_map, &dst_map, smem_bytes(element_type(src_type)));
        self.regroup_in_rounds(op, &values, src_type, dst_type, &rounds)
    }

    /// `values`, the registers of a tensor of type `src_type`, redistributed into those of
    /// `dst_type` (the same shape and element type, another layout) through the op's scratch,
    /// which the caller has reserved (the tensor's elements once).
    pub(crate) fn regroup_through_shared(
        &mut self,
        op: MlirOperation,
        values: &[Value],
        src_type: MlirType,
        dst_type: MlirType,
    ) -> LResult<Vec<Value>> {
        self.regroup_in_rounds(op, values, src_type, dst_type, &[])
    }

    /// [`Self::regroup_through_shared`] in rounds over the [`RoundBit`]s `rounds` (none: the
    /// whole tile at once): each round a part of the tile that every thread writes its share
    /// of and reads its share of, the next round's write waiting for those reads.
    fn regroup_in_rounds(
        &mut self,
        op: MlirOperation,
        values: &[Value],
        src_type: MlirType,
        dst_type: MlirType,
        rounds: &[RoundBit],
    ) -> LResult<Vec<Value>> {
        use crate::ops::local::{Addressing, SharedBuffer};
        let elem = element_type(src_type);
        let src_map = self.thread_map(op, src_type)?;
        let dst_map = self.thread_map(op, dst_type)?;
        if values.len() < src_map.num_registers() {
            return err(
                op,
                "internal error: the regrouped tensor has too few registers",
            );
        }
        let src_part = RoundPart::new(&src_map, rounds, |r| r.src_register);
        let dst_part = RoundPart::new(&dst_map, rounds, |r| r.dst_register);
        let rank = src_part.map.shape.len();
        let addressing =
            conflict_free_addressing(&src_part.map, &dst_part.map, smem_bytes(elem) as u32)
                .unwrap_or(Addressing::Ordered);
        let buffer = SharedBuffer {
            base: self.smem_base(),
            shape: src_part.map.shape.clone(),
            order: (0..rank as u32).rev().collect(),
            elem,
            addressing,
        };
        // A whole tile's lanes and warps add what its type's do (computed once per type); a
        // part's, once for all rounds.
        let src_thread = if rounds.is_empty() {
            self.thread_base(op, src_type)?
        } else {
            self.thread_base_of_map(&src_part.map)
        };
        let dst_thread = (!rounds.is_empty()).then(|| self.thread_base_of_map(&dst_part.map));
        let mut regrouped: Vec<Option<Value>> = vec![None; dst_map.num_registers()];
        for round in 0..1usize << rounds.len() {
            let part: Vec<Value> = (0..src_part.map.num_registers())
                .map(|j| values[src_part.register(j, round)])
                .collect();
            self.write_map_registers(op, &buffer, &src_part.map, &src_thread, &part)?;
            self.flush_barrier();
            let read =
                self.read_map_registers(op, &buffer, &dst_part.map, |this| match &dst_thread {
                    Some(thread) => Ok(thread.clone()),
                    None => this.thread_base(op, dst_type),
                })?;
            // The next round's write, or the op's own next write (a scan's cross-warp step,
            // the next operand's regrouping), waits for these reads.
            self.shared_read_since_barrier = true;
            for (j, value) in read.into_iter().enumerate() {
                regrouped[dst_part.register(j, round)] = Some(value);
            }
        }
        let mut registers = Vec::with_capacity(regrouped.len());
        for value in regrouped {
            let Some(value) = value else {
                return err(op, "internal error: a register that no round read");
            };
            registers.push(value);
        }
        Ok(registers)
    }

    /// Destination registers of `dst_type` where coordinate `c` holds element `project(c)` of
    /// `sources` (all of one type); `project` is affine over GF(2).
    fn move_elements(
        &mut self,
        op: MlirOperation,
        sources: &[MlirValue],
        dst_type: MlirType,
        project: Projection,
    ) -> LResult<Vec<Value>> {
        let Some(&first) = sources.first() else {
            return err(op, "data movement needs an operand");
        };
        let src_type = value_type(first);
        let src_map = self.thread_map(op, src_type)?;
        let dst_map = self.thread_map(op, dst_type)?;
        let src_rank = src_map.shape.len();
        // Indices below are in range: `check_projection` (through `register_route`) bounds the
        // projected operand and source rank, and every operand has all its registers.
        let mut src_values = Vec::with_capacity(sources.len());
        for &source in sources {
            let values = self.regs(op, source)?;
            if values.len() < src_map.num_registers() {
                return err(op, "internal error: an operand has too few registers");
            }
            src_values.push(values);
        }
        // Register path (checks the projection for the shared-memory path too).
        if let Some(route) = register_route(op, sources.len(), &src_map, &dst_map, project)? {
            return Ok(route.iter().map(|&(k, i)| src_values[k][i]).collect());
        }
        let (offset_k, offset_c) = project(&vec![0; dst_map.shape.len()]);
        let linear = |c: &[u32]| -> (usize, Vec<u32>) {
            let (k, s) = project(c);
            (
                k ^ offset_k,
                s.iter().zip(&offset_c).map(|(a, b)| a ^ b).collect(),
            )
        };
        if op_name(op) == "ttg.convert_layout" && sources.len() == 1 {
            return self.convert_through_shared(op, first, dst_type);
        }
        // Shared-memory path.
        let elem = element_type(src_type);
        let bytes = smem_bytes(elem);
        let numel = src_map.numel();
        self.reserve_scratch(movement_scratch(op)?);
        let src_base = self.thread_base(op, src_type)?;
        let base = self.smem_base();
        self.barrier_before_write();
        for (k, values) in src_values.iter().enumerate() {
            let region = self.region_base(base, k as u64 * numel * bytes);
            for (r, coord) in src_map.registers.iter().enumerate() {
                if src_map.register_duplicate[r] {
                    continue;
                }
                let c = self.runtime_coord(&src_base, coord);
                let index = self.linear_index(&c, &src_map.shape);
                self.smem_store(region, index, values[r], elem);
            }
        }
        self.barrier();
        // This thread's projected (lane, warp) contribution: source index and coordinates.
        let zero = self.b.const_i32(0);
        let mut thread = vec![zero; src_rank + 1];
        for (is_warp, bases) in [(false, &dst_map.lane_bases), (true, &dst_map.warp_bases)] {
            for (bit, basis) in bases.iter().enumerate() {
                let (k, c) = linear(basis);
                let mut parts = c;
                parts.push(k as u32);
                if parts.iter().all(|&p| p == 0) {
                    continue;
                }
                let source = if is_warp { self.warp() } else { self.lane };
                let shift = self.b.const_i32(bit as i64);
                let one = self.b.const_i32(1);
                let s = self.b.lshr(source, shift);
                let b = self.b.and(s, one);
                for (d, &p) in parts.iter().enumerate() {
                    if p == 0 {
                        continue;
                    }
                    let m = self.b.const_i32(p as i64);
                    let term = self.b.mul(b, m);
                    thread[d] = self.b.xor(thread[d], term);
                }
            }
        }
        let mut regs = Vec::with_capacity(dst_map.num_registers());
        for coord in &dst_map.registers {
            let (k, c) = project(coord);
            let mut constant = c;
            constant.push(k as u32);
            let runtime = self.runtime_coord(&thread, &constant);
            let inner = self.linear_index(&runtime[..src_rank], &src_map.shape);
            let index = if sources.len() > 1 {
                let n = self.b.const_i32(numel as i64);
                let row = self.b.mul(runtime[src_rank], n);
                self.b.add(row, inner)
            } else {
                inner
            };
            regs.push(self.smem_load(base, index, elem));
        }
        Ok(regs)
    }
}

/// The most shared memory a layout conversion takes, per warp of the program, in a kernel
/// whose shared memory is conversion scratch alone (no buffers, no dots): there the scratch
/// sets how many programs an SM holds, and 2 KiB a warp (8 KiB for 4 warps) keeps an SM at
/// its 64 warps on sm_80 (164 KiB) and sm_90 (228 KiB), with the 1 KiB the driver reserves a
/// program. (A 4-warp permute of a 16 KiB tile in one round holds 13 programs an SM on an
/// sm_90, where Triton's two rounds of 8 KiB hold 16.)
const CONVERSION_SCRATCH_BYTES_PER_WARP: u64 = 2048;

/// A coordinate bit that both layouts of a conversion hold in one register bit each and in no
/// other register, lane or warp bit: the elements with that bit 0 and those with it 1 are two
/// halves of the tile that each thread holds and needs in equal shares, so they can go through
/// shared memory one after the other.
#[derive(Clone, Copy)]
struct RoundBit {
    dim: usize,
    bit: u32,
    src_register: usize,
    dst_register: usize,
}

/// The coordinate bits over which a `ttg.convert_layout` from `src` to `dst` (elements of
/// `bytes` bytes in shared memory) goes through shared memory in rounds: none unless the
/// function's shared memory is conversion scratch alone ([`shared_memory_is_scratch_only`])
/// and the tile exceeds [`CONVERSION_SCRATCH_BYTES_PER_WARP`]; then the slowest dims' highest
/// [`RoundBit`]s until it fits, never a bit inside a 16-byte vector of the last dim.
fn conversion_rounds(
    op: MlirOperation,
    src: &ThreadMap,
    dst: &ThreadMap,
    bytes: u64,
) -> Vec<RoundBit> {
    let warps = 1u64 << src.warp_bases.len();
    let budget = CONVERSION_SCRATCH_BYTES_PER_WARP * warps;
    let mut scratch = src.numel() * bytes;
    let mut rounds = Vec::new();
    if scratch <= budget
        || !src.shape.iter().all(|d| d.is_power_of_two())
        || !shared_memory_is_scratch_only(op)
    {
        return rounds;
    }
    let rank = src.shape.len();
    for dim in 0..rank {
        for bit in (0..src.shape[dim].trailing_zeros()).rev() {
            if scratch <= budget {
                return rounds;
            }
            if dim + 1 == rank && (bytes << bit) < 16 {
                continue;
            }
            if let (Some(src_register), Some(dst_register)) = (
                lone_register_bit(src, dim, bit),
                lone_register_bit(dst, dim, bit),
            ) {
                rounds.push(RoundBit {
                    dim,
                    bit,
                    src_register,
                    dst_register,
                });
                scratch /= 2;
            }
        }
    }
    rounds
}

/// The register bit of `map` whose basis is coordinate bit `bit` of `dim` and nothing else,
/// where no other register, lane or warp basis touches that coordinate bit.
fn lone_register_bit(map: &ThreadMap, dim: usize, bit: u32) -> Option<usize> {
    let mask = 1u32 << bit;
    if map
        .lane_bases
        .iter()
        .chain(&map.warp_bases)
        .any(|basis| basis[dim] & mask != 0)
    {
        return None;
    }
    let register_bits = map.num_registers().trailing_zeros() as usize;
    let mut found = None;
    for i in 0..register_bits {
        let basis = &map.registers[1 << i];
        if basis[dim] & mask == 0 {
            continue;
        }
        let alone = basis
            .iter()
            .enumerate()
            .all(|(d, &c)| c == if d == dim { mask } else { 0 });
        if found.is_some() || !alone {
            return None;
        }
        found = Some(i);
    }
    found
}

/// Whether the function around `op` allocates no shared buffers and has no dot, so that its
/// shared memory is the scratch of ops like `op`.
fn shared_memory_is_scratch_only(op: MlirOperation) -> bool {
    // SAFETY: parent queries on a live op.
    let mut function = unsafe { mlirOperationGetParentOperation(op) };
    while !function.ptr.is_null()
        && !matches!(op_name(function).as_str(), "tt.func" | "builtin.module")
    {
        // SAFETY: as above.
        function = unsafe { mlirOperationGetParentOperation(function) };
    }
    if function.ptr.is_null() {
        return false;
    }
    !collect_ops(function).into_iter().any(|inner| {
        matches!(
            op_name(inner).as_str(),
            "ttg.local_alloc" | "tt.dot" | "tt.dot_scaled" | "ttng.warp_group_dot"
        )
    })
}

/// One side of a conversion in rounds: its map with the round bits taken out (the part of the
/// tile one round moves, coordinates closed up over the removed bits) and where each of the
/// part's registers sits among the whole map's in a given round.
struct RoundPart {
    map: ThreadMap,
    /// The whole map's register bits that the part keeps, in order.
    kept: Vec<usize>,
    /// The whole map's register bit of each round bit.
    round_registers: Vec<usize>,
}

impl RoundPart {
    fn new(whole: &ThreadMap, rounds: &[RoundBit], register_of: fn(&RoundBit) -> usize) -> Self {
        let round_registers: Vec<usize> = rounds.iter().map(register_of).collect();
        let register_bits = whole.num_registers().trailing_zeros() as usize;
        let kept: Vec<usize> = (0..register_bits)
            .filter(|i| !round_registers.contains(i))
            .collect();
        // Rounds list a dim's bits from the highest, so removing them in order leaves the lower
        // ones where they are.
        let close_up = |coord: &Vec<u32>| -> Vec<u32> {
            let mut c = coord.clone();
            for r in rounds {
                let low = c[r.dim] & ((1 << r.bit) - 1);
                c[r.dim] = low | (c[r.dim] >> (r.bit + 1) << r.bit);
            }
            c
        };
        let registers: Vec<Vec<u32>> = kept
            .iter()
            .map(|&i| close_up(&whole.registers[1 << i]))
            .collect();
        let lanes: Vec<Vec<u32>> = whole.lane_bases.iter().map(close_up).collect();
        let warps: Vec<Vec<u32>> = whole.warp_bases.iter().map(close_up).collect();
        let mut shape = whole.shape.clone();
        for r in rounds {
            shape[r.dim] /= 2;
        }
        RoundPart {
            map: ThreadMap::from_bases(&registers, &lanes, &warps, &shape),
            kept,
            round_registers,
        }
    }

    /// The whole map's register that the part's register `j` is in round `round` (bit k of
    /// `round`: the value of round bit k).
    fn register(&self, j: usize, round: usize) -> usize {
        let mut whole = 0;
        for (t, &i) in self.kept.iter().enumerate() {
            whole |= (j >> t & 1) << i;
        }
        for (k, &i) in self.round_registers.iter().enumerate() {
            whole |= (round >> k & 1) << i;
        }
        whole
    }
}

/// A bank-conflict-free shared-memory map for a conversion from `src` to `dst` (power-of-two
/// shapes, elements of at most 8 bytes; `None` otherwise): row-major, with the offsets of
/// coordinate bits outside a 128-byte line XORed into the bank bits (above the vector) so that
/// the lanes of one access phase — on the reading side first, then the writing side — fall in
/// distinct banks wherever the bank bits allow. Each fix keeps the map invertible (a bit only
/// XORs lower bits into its offset) and is kept only if no lanes chosen earlier collide again.
/// The vector bits (the last dim's low bits either side reads or writes contiguously) stay
/// identity, so both sides vectorize as they would unswizzled — unless narrowing the wider
/// side's vector frees bank bits that remove more conflicts than the narrower accesses cost:
/// each vector width is tried and the map with the fewest shared-memory wavefronts (both sides,
/// conflicts included) kept, the widest among equals.
pub(crate) fn conflict_free_addressing(
    src: &ThreadMap,
    dst: &ThreadMap,
    bytes: u32,
) -> Option<crate::ops::local::Addressing> {
    let shape = &src.shape;
    let rank = shape.len();
    if rank == 0
        || dst.shape != *shape
        || !shape.iter().all(|d| d.is_power_of_two())
        || !matches!(bytes, 1 | 2 | 4 | 8)
    {
        return None;
    }
    let dim_bits: Vec<u32> = shape.iter().map(|d| d.trailing_zeros()).collect();
    // Row-major strides (last dim fastest).
    let mut plain: Vec<Vec<u32>> = vec![Vec::new(); rank];
    let mut stride_bits = 0;
    for d in (0..rank).rev() {
        plain[d] = (0..dim_bits[d])
            .map(|i| 1u32 << (stride_bits + i))
            .collect();
        stride_bits += dim_bits[d];
    }
    let elem_shift = bytes.trailing_zeros();
    // Bank (word) bits of an element offset: byte bits 2..=6.
    let bank_lo = 2u32.saturating_sub(elem_shift);
    if stride_bits <= bank_lo {
        return None;
    }
    let last = rank - 1;
    // Elements a side moves contiguously along the last dim (registers 1, 2, 4, ... stepping it).
    let run = |map: &ThreadMap| -> u32 {
        let mut k = 0;
        while (1usize << k) < map.registers.len()
            && k < dim_bits[last]
            && map.registers[1 << k]
                .iter()
                .enumerate()
                .all(|(d, &c)| c == if d == last { 1 << k } else { 0 })
        {
            k += 1;
        }
        (1u32 << k).min(16 / bytes)
    };
    let (run_src, run_dst) = (run(src), run(dst));
    let widest = run_src.max(run_dst).trailing_zeros();
    let swizzle = Swizzle {
        src,
        dst,
        plain: &plain,
        dim_bits: &dim_bits,
        bytes,
        run_src,
        run_dst,
    };
    let mut best: Option<(u64, Vec<Vec<u32>>)> = None;
    for keep in (0..=widest).rev() {
        let bits = swizzle.bits(keep);
        let cost = swizzle.wavefronts(&bits, keep);
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            best = Some((cost, bits));
        }
    }
    let (_, bits) = best?;
    Some(crate::ops::local::Addressing::Linear { bits, origin: 0 })
}

/// The rank over GF(2) of `values` as bit vectors.
fn gf2_rank(values: impl IntoIterator<Item = u32>) -> u32 {
    let mut basis: Vec<u32> = Vec::new();
    for mut v in values {
        for &b in &basis {
            v = v.min(v ^ b);
        }
        if v != 0 {
            basis.push(v);
        }
    }
    basis.len() as u32
}

/// The two sides of a conversion through shared memory and the row-major map the swizzle of
/// [`conflict_free_addressing`] starts from.
struct Swizzle<'a> {
    src: &'a ThreadMap,
    dst: &'a ThreadMap,
    plain: &'a [Vec<u32>],
    dim_bits: &'a [u32],
    bytes: u32,
    run_src: u32,
    run_dst: u32,
}

impl Swizzle<'_> {
    fn elem_shift(&self) -> u32 {
        self.bytes.trailing_zeros()
    }

    fn bank_lo(&self) -> u32 {
        2u32.saturating_sub(self.elem_shift())
    }

    fn bank_hi(&self) -> u32 {
        6 - self.elem_shift()
    }

    /// Each side's vector (elements) when only the low `keep` bits of the last dim stay
    /// contiguous.
    fn vectors(&self, keep: u32) -> [(&ThreadMap, u32); 2] {
        [
            (self.dst, self.run_dst.min(1 << keep)),
            (self.src, self.run_src.min(1 << keep)),
        ]
    }

    /// The offset of coordinate `basis` under the map `bits`.
    fn image(bits: &[Vec<u32>], basis: &[u32]) -> u32 {
        let mut offset = 0;
        for (d, &c) in basis.iter().enumerate() {
            for (i, &b) in bits[d].iter().enumerate() {
                if c >> i & 1 == 1 {
                    offset ^= b;
                }
            }
        }
        offset
    }

    /// The lanes of one access phase (128 bytes per phase) of a side moving `vec` elements per
    /// access, as coordinate bases, and the lowest bank bit its accesses start on (a vector of w
    /// bytes spans w/4 banks).
    fn phase(&self, map: &ThreadMap, vec: u32) -> (Vec<Vec<u32>>, u32) {
        let access = (vec * self.bytes).max(4);
        let lanes = (128 / access).trailing_zeros() as usize;
        let lo = (access / self.bytes).trailing_zeros().max(self.bank_lo());
        (map.lane_bases.iter().take(lanes).cloned().collect(), lo)
    }

    /// The row-major map with bank bits XORed in, greedily, lane by lane (reading side first),
    /// keeping the low `keep` bits of the last dim contiguous.
    fn bits(&self, keep: u32) -> Vec<Vec<u32>> {
        let rank = self.plain.len();
        let bank_hi = self.bank_hi();
        let sides: Vec<(Vec<Vec<u32>>, u32)> = self
            .vectors(keep)
            .iter()
            .map(|&(map, vec)| self.phase(map, vec))
            .collect();
        let banks = |bits: &[Vec<u32>], basis: &[u32], lo: u32| -> u32 {
            let window = (1u32 << (bank_hi + 1 - lo)) - 1;
            (Self::image(bits, basis) >> lo) & window
        };
        let rank_of = |bits: &[Vec<u32>], chosen: &[(usize, usize)]| -> Vec<u32> {
            // Per side, the GF(2) rank of the chosen lanes' bank images.
            sides
                .iter()
                .enumerate()
                .map(|(s, (lanes, lo))| {
                    gf2_rank(
                        chosen
                            .iter()
                            .filter(|&&(side, _)| side == s)
                            .map(|&(_, lane)| banks(bits, &lanes[lane], *lo)),
                    )
                })
                .collect()
        };
        let mut bits = self.plain.to_vec();
        let targets: Vec<u32> = (keep.max(self.bank_lo())..=bank_hi).collect();
        let mut chosen: Vec<(usize, usize)> = Vec::new();
        for (s, (lanes, _)) in sides.iter().enumerate() {
            for (lane, lane_basis) in lanes.iter().enumerate() {
                if lane_basis.iter().all(|&c| c == 0) {
                    continue;
                }
                let before = rank_of(&bits, &chosen);
                chosen.push((s, lane));
                let wanted = {
                    let mut r = before.clone();
                    r[s] += 1;
                    r
                };
                if rank_of(&bits, &chosen) == wanted {
                    continue;
                }
                // XOR one bank bit into the offset of one coordinate bit the lane moves along.
                let mut fixed = false;
                'search: for d in 0..rank {
                    for i in 0..self.dim_bits[d] as usize {
                        if lane_basis[d] >> i & 1 == 0 {
                            continue;
                        }
                        let lowest = self.plain[d][i].trailing_zeros();
                        for &t in &targets {
                            if t >= lowest {
                                continue;
                            }
                            bits[d][i] ^= 1 << t;
                            if rank_of(&bits, &chosen) == wanted {
                                fixed = true;
                                break 'search;
                            }
                            bits[d][i] ^= 1 << t;
                        }
                    }
                }
                if !fixed {
                    // Unavoidable here: keep the lane out of later checks.
                    chosen.pop();
                }
            }
        }
        bits
    }

    /// Shared-memory wavefronts of one warp's accesses on both sides under `bits`: per side,
    /// accesses × phases per access × the phase's conflict degree (distinct access units over
    /// distinct bank groups among its lanes; lanes on one unit are a broadcast).
    fn wavefronts(&self, bits: &[Vec<u32>], keep: u32) -> u64 {
        let mut total = 0u64;
        for (map, vec) in self.vectors(keep) {
            let access = (vec * self.bytes).max(4);
            let unit_shift = (access / self.bytes).trailing_zeros();
            let lane_bits = (128 / access).trailing_zeros() as usize;
            let group_mask = (1u32 << lane_bits) - 1;
            let lanes: Vec<u32> = map
                .lane_bases
                .iter()
                .take(lane_bits)
                .map(|b| Self::image(bits, b) >> unit_shift)
                .collect();
            let units = gf2_rank(lanes.iter().copied());
            let groups = gf2_rank(lanes.iter().map(|u| u & group_mask));
            let accesses = (map.registers.len() as u64 / vec as u64).max(1);
            let phases = (32 >> lane_bits).max(1) as u64;
            total += (accesses * phases) << (units - groups);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::conflict_free_addressing;
    use crate::layout_map::ThreadMap;
    use crate::ops::local::Addressing;

    fn map(encoding: &str) -> ThreadMap {
        let encoding = tritium_layout::text::parse_encoding(encoding).unwrap();
        ThreadMap::new(&encoding, &[64, 64]).unwrap()
    }

    /// The f32 transpose of the corpus: rows of 4 written, columns of 4 read one element at a
    /// time. Its read phases need five bank bits; with 16-byte writes only three are free, so
    /// the map keeps 8-byte writes and both sides are conflict-free (as the emulator's trace
    /// counts it: test/Emulation/smem-conflicts.test).
    #[test]
    fn a_transpose_narrows_its_writes_to_read_without_conflicts() {
        let rows = map(
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
        );
        let cols = map(
            "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>",
        );
        let addressing = conflict_free_addressing(&rows, &cols, 4).unwrap();
        assert!(matches!(addressing, Addressing::Linear { .. }));
        let offset = |c: &[u32]| addressing.offset_of(c);
        // Columns 0, 1 stay a contiguous pair; column 2 does not follow column 1 in every row.
        assert_eq!(offset(&[0, 1]), 1);
        assert!((0..64).any(|r| offset(&[r, 2]) != (offset(&[r, 0]) | 2)));
        // The 32 lanes of a read (rows 0, 4, ..., 60 of columns 0 and 1) hit 32 banks.
        assert_eq!(distinct_slots(&cols, 32, |c| offset(c) % 32), 32);
    }

    /// How many distinct `slot`s the first `lanes` lanes of `map` (at register 0, warp 0) hit.
    fn distinct_slots(map: &ThreadMap, lanes: u32, slot: impl Fn(&[u32]) -> u32) -> usize {
        let mut slots: Vec<u32> = (0..lanes)
            .map(|lane| {
                let coord = map.lane_bases.iter().enumerate().fold(
                    vec![0u32; map.shape.len()],
                    |c, (bit, b)| {
                        if lane >> bit & 1 == 1 {
                            c.iter().zip(b).map(|(x, y)| x ^ y).collect()
                        } else {
                            c
                        }
                    },
                );
                slot(&coord)
            })
            .collect();
        slots.sort();
        slots.dedup();
        slots.len()
    }

    /// 8-byte elements (f64, pointers) are swizzled as the others: an f64 transpose's column
    /// reads (16 lanes a phase, one element each) land on 16 distinct pairs of banks.
    #[test]
    fn eight_byte_elements_are_swizzled_too() {
        let rows = map(
            "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        );
        let cols = map(
            "#ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>",
        );
        let addressing = conflict_free_addressing(&rows, &cols, 8).unwrap();
        assert_eq!(
            distinct_slots(&cols, 16, |c| addressing.offset_of(c) % 16),
            16
        );
    }

    /// Where the widest vectors already read and write without conflicts, they are kept.
    #[test]
    fn conflict_free_vectors_stay_wide() {
        let wide = map(
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        );
        let narrow = map(
            "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
        );
        let addressing = conflict_free_addressing(&wide, &narrow, 4).unwrap();
        for r in 0..64 {
            let base = addressing.offset_of(&[r, 0]);
            assert_eq!(addressing.offset_of(&[r, 3]), base | 3, "row {r}");
        }
    }
}
