//! `tt.scan`: inclusive (or reverse) scan along an axis with any combine region and any number
//! of operands, for any distributed layout whose bases along the axis are single axis bits.
//!
//! The axis index bits are processed from the lowest up. After step `t` every element holds `P`,
//! its scan within its aligned block of `2^(t+1)` elements, and `T`, that block's total. Step `t`
//! pairs each element with the one whose index differs in bit `t` (another register of the same
//! thread or a lane reached with `shfl.sync.bfly`): the element in the later half prepends its
//! partner's total to `P` and `T`, the other appends it to `T`. `reverse` swaps which half is
//! later. Every step costs one combine per element, so the whole scan is `log2(n)` combines per
//! element with no sequential chain. A run of axis bits held by consecutive lane bits (the usual
//! case: a warp spans the axis) is scanned in one go instead, Hillis–Steele with `shfl.sync.up`
//! (one combine per lane bit), the run's total read from its last lane with `shfl.sync.idx`; a
//! run held by consecutive register bits is scanned sequentially across the registers (two
//! combines per register); a run held by warp bits exchanges only block totals through shared
//! memory (one per warp and distinct total: a total is the same in all registers and lanes that
//! differ in scanned bits only), one barrier, then each thread combines the run's totals.
//!
//! A blocked layout that spreads the axis over a thread's registers in several short runs (a
//! coalesced load's layout: 4096 elements over 4 warps, one a thread in 32 runs) would take a
//! warp scan and a cross-warp step per run. Such a scan regroups its operands through shared
//! memory into the blocked layout with the same lanes, warps and order where each thread holds
//! one contiguous run of the axis ([`contiguous_run_layout`]), scans there (registers first, then
//! one warp scan and one cross-warp step for the whole run) and regroups the used results back.
//! The TTGIR keeps Triton's layouts; the round trips are the lowering's.

use crate::builder::{IntPredicate, Value};
use crate::layout_map::ThreadMap;
use crate::state::*;
use mlir_sys::*;
use tritium_layout::encoding::{BlockedEncoding, Encoding};
use tritium_passes::ir_util::*;

/// The fewest runs a thread for which the two shared-memory round trips are paid: at 4, 8 and
/// 32 runs (linear_scan, cumsum_rows, cummax_rows) measured level to 1% faster on the H100; at
/// 2 a warp scan and a cross-warp step (one barrier) saved against two round trips (two
/// barriers), unmeasured, so scanned in place.
const MIN_RUNS_PER_THREAD: u32 = 4;

/// The most shared memory one operand's regrouping may take (the scratch holds the whole
/// tensor): larger scans keep their layout rather than cut how many programs an SM holds, or ask
/// for more than a program may have.
const MAX_REGROUP_BYTES: u64 = 32 * 1024;

/// The blocked layout for a scan along `axis` of a tensor of `dims` in `blocked` where each
/// thread holds one contiguous run of the axis (same lanes, warps and order,
/// `sizePerThread[axis] = dims[axis] / (lanes · warps along it)`), when it differs from
/// `blocked` by at least [`MIN_RUNS_PER_THREAD`] runs a thread.
fn contiguous_run_layout(
    blocked: &BlockedEncoding,
    dims: &[i64],
    axis: usize,
) -> Option<BlockedEncoding> {
    let length = u32::try_from(*dims.get(axis)?).ok()?;
    let threads = blocked.threads_per_warp.get(axis)? * blocked.warps_per_cta.get(axis)?;
    let have = *blocked.size_per_thread.get(axis)?;
    // Lanes or warps beyond the axis length hold copies: leave those layouts alone.
    if threads == 0 || have == 0 || length % threads != 0 {
        return None;
    }
    let want = length / threads;
    if want % have != 0 || want / have < MIN_RUNS_PER_THREAD {
        return None;
    }
    let mut size_per_thread = blocked.size_per_thread.clone();
    size_per_thread[axis] = want;
    Some(BlockedEncoding {
        size_per_thread,
        ..blocked.clone()
    })
}

/// The encoding `op` (a `tt.scan`) is computed in when it regroups (see the module docs), or
/// `None` when it scans in its operands' layout.
fn regrouped_encoding(op: MlirOperation) -> Option<MlirAttribute> {
    let inputs = operands(op);
    let input_type = value_type(*inputs.first()?);
    let Some(Encoding::Blocked(blocked)) = encoding_of(input_type) else {
        return None;
    };
    let axis = usize::try_from(int_attr(op, "axis")?).ok()?;
    let dims = shape(input_type);
    let elements = u64::try_from(dims.iter().product::<i64>()).ok()?;
    if inputs
        .iter()
        .any(|v| elements * smem_bytes(element_type(value_type(*v))) > MAX_REGROUP_BYTES)
    {
        return None;
    }
    // The verifier gives every operand and result the same shape and layout.
    let contiguous = contiguous_run_layout(&blocked, &dims, axis)?;
    Some(encoding_to_attr(
        context_of(op),
        &Encoding::Blocked(contiguous),
    ))
}

/// `ty` in the encoding a scan is computed in (`regrouped`, see [`regrouped_encoding`]).
fn scan_type(ty: MlirType, regrouped: Option<MlirAttribute>) -> MlirType {
    match regrouped {
        Some(attr) => with_encoding(ty, attr),
        None => ty,
    }
}

/// Where axis bit `t` of a layout lives.
#[derive(Clone, Copy, Debug)]
enum AxisBit {
    Register(usize),
    Lane(usize),
    Warp(usize),
}

fn lane_bit(bit: AxisBit) -> Option<usize> {
    match bit {
        AxisBit::Lane(i) => Some(i),
        _ => None,
    }
}

fn warp_bit(bit: AxisBit) -> Option<usize> {
    match bit {
        AxisBit::Warp(i) => Some(i),
        _ => None,
    }
}

fn register_bit(bit: AxisBit) -> Option<usize> {
    match bit {
        AxisBit::Register(i) => Some(i),
        _ => None,
    }
}

/// When `bits` starts with a bit of the kind `index_of` picks, that bit's index and how many of
/// the following axis bits are the next indices of the same kind (the run's length).
fn run_at(
    bits: &[Option<AxisBit>],
    index_of: fn(AxisBit) -> Option<usize>,
) -> Option<(usize, usize)> {
    let first = index_of((*bits.first()?)?)?;
    let run = bits
        .iter()
        .enumerate()
        .take_while(|(j, b)| b.and_then(index_of) == Some(first + j))
        .count();
    Some((first, run))
}

/// The axis attribute, checked against the rank.
fn scan_axis(op: MlirOperation, rank: usize) -> LResult<usize> {
    let axis = int_attr(op, "axis").unwrap_or(0);
    match usize::try_from(axis) {
        Ok(axis) if axis < rank => Ok(axis),
        _ => err(
            op,
            format!("axis {axis} is out of range for a rank-{rank} tensor"),
        ),
    }
}

/// Where each bit of the axis index lives in `map` (`None`: no basis holds it); rejects bases
/// that mix the axis with other dimensions.
fn axis_bits(op: MlirOperation, map: &ThreadMap, axis: usize) -> LResult<Vec<Option<AxisBit>>> {
    let n = map.shape.get(axis).copied().unwrap_or(1);
    let single = |basis: &[u32]| -> Result<Option<u32>, ()> {
        let c = basis.get(axis).copied().unwrap_or(0);
        if c == 0 {
            return Ok(None);
        }
        let pure = basis.iter().enumerate().all(|(d, &c)| d == axis || c == 0);
        if pure && c.is_power_of_two() {
            Ok(Some(c.trailing_zeros()))
        } else {
            Err(())
        }
    };
    let mut bits: Vec<Option<AxisBit>> = vec![None; n.trailing_zeros() as usize];
    let register_bits = map.num_registers().trailing_zeros() as usize;
    let mut candidates: Vec<(AxisBit, &[u32])> = Vec::new();
    for i in 0..register_bits {
        if let Some(coord) = map.registers.get(1 << i) {
            candidates.push((AxisBit::Register(i), coord));
        }
    }
    for (i, b) in map.lane_bases.iter().enumerate() {
        candidates.push((AxisBit::Lane(i), b));
    }
    for (i, b) in map.warp_bases.iter().enumerate() {
        candidates.push((AxisBit::Warp(i), b));
    }
    for (place, basis) in candidates {
        match single(basis) {
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
    Ok(bits)
}

/// `ttg.num-warps` and `ttg.threads-per-warp` of the module holding `op` (the lowering's
/// defaults, 4 and 32, where absent).
fn module_threads(op: MlirOperation) -> (u64, u64) {
    let mut current = op;
    loop {
        // SAFETY: parent query on a live op; the result is null above the top-level op.
        let parent = unsafe { mlirOperationGetParentOperation(current) };
        if parent.ptr.is_null() {
            return (4, 32);
        }
        if op_name(parent) == "builtin.module" {
            let warps = int_attr(parent, "ttg.num-warps").unwrap_or(4);
            let lanes = int_attr(parent, "ttg.threads-per-warp").unwrap_or(32);
            return (
                u64::try_from(warps).unwrap_or(0),
                u64::try_from(lanes).unwrap_or(0),
            );
        }
        current = parent;
    }
}

/// Shared-memory scratch of `tt.scan`, in bytes, from its types and layouts alone: a slot per
/// register, lane and warp for the warp run's exchange of block totals, per operand (0 when no
/// axis bit is a warp bit).
/// With a regrouping, the larger of that and one operand's elements (the round trips reuse the
/// scratch one after another).
pub fn scan_scratch(op: MlirOperation) -> LResult<u64> {
    let ins = operands(op);
    let Some(&first) = ins.first() else {
        return err(op, "tt.scan needs an operand");
    };
    let regrouped = regrouped_encoding(op);
    let map = thread_map_of(op, scan_type(value_type(first), regrouped))?;
    let regroup_bytes = match regrouped {
        Some(_) => ins
            .iter()
            .map(|v| map.numel() * smem_bytes(element_type(value_type(*v))))
            .max()
            .unwrap_or(0),
        None => 0,
    };
    let axis = scan_axis(op, map.shape.len())?;
    let bits = axis_bits(op, &map, axis)?;
    if !bits.iter().any(|b| matches!(b, Some(AxisBit::Warp(_)))) {
        return Ok(regroup_bytes);
    }
    let (warps, lanes) = module_threads(op);
    let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
    let slots = warps * map.num_registers() as u64 * lanes;
    Ok(FuncLowering::operand_regions(&elems, slots)
        .1
        .max(regroup_bytes))
}

impl FuncLowering<'_> {
    pub(crate) fn lower_scan(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let Some(&first) = ins.first() else {
            return err(op, "tt.scan needs an operand");
        };
        let reverse = attribute(op, "reverse").is_some_and(|attr| {
            // SAFETY: attribute queries on a live attribute; the value is read only from a bool.
            unsafe { mlirAttributeIsABool(attr) && mlirBoolAttrGetValue(attr) }
        });
        let regrouped = regrouped_encoding(op);
        let scan_type_of = |v: MlirValue| scan_type(value_type(v), regrouped);
        let map = self.thread_map(op, scan_type_of(first))?;
        let axis = scan_axis(op, map.shape.len())?;
        let count = map.num_registers();
        let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let bits = axis_bits(op, &map, axis)?;
        if regrouped.is_some() {
            self.reserve_scratch(scan_scratch(op)?);
        }
        let mut inputs: Vec<Vec<Value>> = Vec::with_capacity(ins.len());
        for v in ins {
            let mut regs = self.regs(op, *v)?;
            if regrouped.is_some() {
                regs = self.regroup_through_shared(op, &regs, value_type(*v), scan_type_of(*v))?;
            }
            if regs.len() < count {
                return err(op, "internal error: an operand has too few registers");
            }
            inputs.push(regs);
        }
        // Every register list has at least `count` entries (checked above); `partner` below
        // differs from `r` in a register bit, so it is below `count` too.
        let mut prefix: Vec<Vec<Value>> = (0..count)
            .map(|r| inputs.iter().map(|regs| regs[r]).collect())
            .collect();
        let mut total = prefix.clone();
        // The register and lane bits of the axis scanned so far: a block total is the same in
        // every register and lane that differ only in them.
        let done = |upto: usize, index_of: fn(AxisBit) -> Option<usize>| {
            bits[..upto]
                .iter()
                .filter_map(|b| b.and_then(index_of))
                .fold(0usize, |mask, i| mask | 1 << i)
        };
        // Set by a lane run followed directly by a warp run: the block totals are right only in
        // each run's last lane (the one that stores them), which saves broadcasting them.
        let mut totals_in_lane: Option<Value> = None;
        let mut pending = PendingPrefix {
            mask: 0,
            parts: vec![None; count],
        };
        let mut t = 0;
        while t < bits.len() {
            // A run of axis bits held by warp bits: one exchange of block totals through shared
            // memory (one per warp and distinct total, not per element) and the run's scan in
            // every thread.
            if let Some((first_warp, run)) = run_at(&bits[t..], warp_bit) {
                let scanned = ScannedBits {
                    registers: done(t, register_bit),
                    lanes: done(t, lane_bit),
                };
                self.scan_warp_run(
                    op,
                    &elems,
                    (&mut prefix, &mut total, &mut pending),
                    (first_warp, run),
                    scanned,
                    reverse,
                    totals_in_lane.take(),
                )?;
                t += run;
                continue;
            }
            // A run of axis bits held by consecutive lane bits: one Hillis–Steele scan over the
            // lanes (shfl.up, a combine per lane bit) instead of the pairwise step per bit.
            if !reverse && let Some((first_lane, run)) = run_at(&bits[t..], lane_bit) {
                let warp_run_next = matches!(bits.get(t + run), Some(Some(AxisBit::Warp(_))));
                let run_shape = LaneRun {
                    first_lane,
                    run,
                    prefix_differs: t > 0,
                    shared_registers: done(t, register_bit),
                    last_lane_only: warp_run_next,
                };
                totals_in_lane = self.scan_lane_run(
                    op,
                    &elems,
                    (&mut prefix, &mut total, &mut pending),
                    run_shape,
                )?;
                t += run;
                continue;
            }
            // A run of axis bits held by consecutive register bits: a sequential scan across
            // those registers (as Triton scans a thread's elements), one combine per register
            // for the prefix and one for the carried total, instead of the pairwise steps'
            // three per register pair per bit.
            if let Some((first_reg, run)) = run_at(&bits[t..], register_bit) {
                self.scan_register_run(
                    op,
                    (&mut prefix, &mut total, &mut pending),
                    (first_reg, run),
                    done(t, register_bit),
                    reverse,
                )?;
                t += run;
                continue;
            }
            // The single-bit steps below read and write every prefix themselves.
            self.flush_pending(op, &mut prefix, &mut pending)?;
            let (bit_index, place) = (t, bits[t]);
            t += 1;
            let Some(place) = place else {
                return err(
                    op,
                    format!("tt.scan: axis bit {bit_index} is not held by the layout"),
                );
            };
            let (partner_totals, source, bit) = match place {
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
                    continue;
                }
                AxisBit::Lane(i) => {
                    let shuffled: Vec<Vec<Value>> = total
                        .iter()
                        .map(|vals| {
                            vals.iter()
                                .zip(&elems)
                                .map(|(v, e)| self.shuffle_xor(*v, *e, 1 << i))
                                .collect()
                        })
                        .collect();
                    (shuffled, self.lane, i)
                }
                AxisBit::Warp(_) => {
                    return err(op, "internal error: warp bits are scanned as a run");
                }
            };
            let shift = self.b.const_i32(bit as i64);
            let one = self.b.const_i32(1);
            let s = self.b.lshr(source, shift);
            let b = self.b.and(s, one);
            let want = self.b.const_i32(if reverse { 0 } else { 1 });
            let later = self.b.icmp(IntPredicate::Eq, b, want);
            for r in 0..count {
                let p_later = self.combine(op, &partner_totals[r], &prefix[r])?;
                let t_later = self.combine(op, &partner_totals[r], &total[r])?;
                let t_earlier = self.combine(op, &total[r], &partner_totals[r])?;
                let mut new_p = Vec::with_capacity(elems.len());
                let mut new_t = Vec::with_capacity(elems.len());
                for k in 0..elems.len() {
                    new_p.push(self.b.select(later, p_later[k], prefix[r][k]));
                    new_t.push(self.b.select(later, t_later[k], t_earlier[k]));
                }
                prefix[r] = new_p;
                total[r] = new_t;
            }
        }
        self.flush_pending(op, &mut prefix, &mut pending)?;
        for (k, out) in outs.iter().enumerate() {
            let mut regs = Vec::with_capacity(prefix.len());
            for p in &prefix {
                match p.get(k) {
                    Some(&v) => regs.push(v),
                    None => return err(op, "tt.scan has more results than operands"),
                }
            }
            if regrouped.is_some() {
                // An unused result is never read: no round trip for it.
                if !has_uses(*out) {
                    continue;
                }
                regs =
                    self.regroup_through_shared(op, &regs, scan_type_of(*out), value_type(*out))?;
            }
            self.set(*out, regs);
        }
        Ok(())
    }

    /// A run's position in `id` (a lane or warp id): its bits `first .. first + run`.
    fn run_position(&mut self, id: Value, first: usize, run: usize) -> Value {
        let shift = self.b.const_i32(first as i64);
        let mask = self.b.const_i32((1i64 << run) - 1);
        let shifted = self.b.lshr(id, shift);
        self.b.and(shifted, mask)
    }

    /// `combine(earlier, prefix)` where `cond` holds, `prefix` elsewhere (no earlier part).
    fn prepend_where(
        &mut self,
        op: MlirOperation,
        cond: Value,
        earlier: &[Value],
        prefix: &[Value],
    ) -> LResult<Vec<Value>> {
        let combined = self.combine(op, earlier, prefix)?;
        Ok(combined
            .iter()
            .zip(prefix)
            .map(|(c, p)| self.b.select(cond, *c, *p))
            .collect())
    }

    /// `prefix` with `part`'s values prepended where they apply.
    fn prepend_part(
        &mut self,
        op: MlirOperation,
        (values, valid): PendingPart,
        prefix: &[Value],
    ) -> LResult<Vec<Value>> {
        match valid {
            None => self.combine(op, &values, prefix),
            Some(cond) => self.prepend_where(op, cond, &values, prefix),
        }
    }

    /// Applies what `pending` holds to every prefix and empties it.
    fn flush_pending(
        &mut self,
        op: MlirOperation,
        prefix: &mut [Vec<Value>],
        pending: &mut PendingPrefix,
    ) -> LResult<()> {
        for (r, part) in pending.parts.iter_mut().enumerate() {
            if let Some(part) = part.take() {
                prefix[r] = self.prepend_part(op, part, &prefix[r])?;
            }
        }
        Ok(())
    }

    /// One stage's prepends: register `r` gets `adds[r]` (values, and where they apply: `None`
    /// everywhere) prepended to its prefix. `mask` is the register bits scanned before the
    /// stage: registers differing only in them get the same values (`adds` is shared within
    /// such groups), so with a non-zero mask the prepends are merged into `pending` once per
    /// group (its lowest register) instead of combined into every prefix.
    fn prepend_all(
        &mut self,
        op: MlirOperation,
        prefix: &mut [Vec<Value>],
        pending: &mut PendingPrefix,
        mask: usize,
        mut adds: Vec<Option<PendingPart>>,
    ) -> LResult<()> {
        if mask != pending.mask {
            // Groups change (or deferring stops): what is pending applies first.
            self.flush_pending(op, prefix, pending)?;
            pending.mask = mask;
        }
        if mask == 0 {
            for (r, add) in adds.iter_mut().enumerate() {
                if let Some(part) = add.take() {
                    prefix[r] = self.prepend_part(op, part, &prefix[r])?;
                }
            }
            return Ok(());
        }
        for r in 0..prefix.len() {
            let rep = r & !mask;
            if rep != r {
                // `rep < r` was merged already; its group shares its values.
                pending.parts[r] = pending.parts[rep].clone();
                continue;
            }
            if let Some(add) = adds.get_mut(r).and_then(Option::take) {
                let old = pending.parts[r].take();
                pending.parts[r] = Some(self.merge_prepend(op, add, old)?);
            }
        }
        Ok(())
    }

    /// `later` (a pending part) with `earlier` prepended: the combination where both apply,
    /// each alone where only it does.
    fn merge_prepend(
        &mut self,
        op: MlirOperation,
        (earlier, cond): PendingPart,
        later: Option<PendingPart>,
    ) -> LResult<PendingPart> {
        let Some((values, valid)) = later else {
            return Ok((earlier, cond));
        };
        let both = self.combine(op, &earlier, &values)?;
        let select = |this: &mut Self, c: Value, a: &[Value], b: &[Value]| -> Vec<Value> {
            a.iter()
                .zip(b)
                .map(|(x, y)| this.b.select(c, *x, *y))
                .collect()
        };
        Ok(match (cond, valid) {
            (None, None) => (both, None),
            (None, Some(q)) => (select(self, q, &both, &earlier), None),
            (Some(c), None) => (select(self, c, &both, &values), None),
            (Some(c), Some(q)) => {
                let inner = select(self, q, &both, &earlier);
                let merged = select(self, c, &inner, &values);
                (merged, Some(self.b.or(c, q)))
            }
        })
    }

    /// Axis bits `first_lane .. first_lane + run` of the lane id, in order: `total` (each
    /// element's block total so far) is scanned inclusively across those lanes by Hillis–Steele
    /// (round `j` combines the value `2^j` run positions earlier, where there is one); the new
    /// block total is the run's last lane's, and the new prefix prepends the exclusive scan to
    /// the old prefix (or is the inclusive scan itself when no earlier bits made them differ).
    /// With `last_lane_only` (a warp run comes next and only stores the totals), the new block
    /// total is left right in the run's last lane alone, and the condition "this is that lane"
    /// is returned. Registers that differ only in already scanned register bits hold the same
    /// total: the shuffles and combines are done once per such group (its lowest register).
    fn scan_lane_run(
        &mut self,
        op: MlirOperation,
        elems: &[MlirType],
        (prefix, total, pending): ScanState<'_>,
        shape: LaneRun,
    ) -> LResult<Option<Value>> {
        use crate::ops::reduce::Shuffle;
        let LaneRun {
            first_lane,
            run,
            prefix_differs,
            shared_registers,
            last_lane_only,
        } = shape;
        let lane = self.lane;
        let position = self.run_position(lane, first_lane, run);
        let representative = |r: usize| r & !shared_registers;
        let mut scanned: Vec<Vec<Value>> = total.to_vec();
        for j in 0..run {
            let delta = self.b.const_i32(1i64 << (first_lane + j));
            let reach = self.b.const_i32(1i64 << j);
            let has_earlier = self.b.icmp(IntPredicate::Uge, position, reach);
            for (r, values) in scanned.iter_mut().enumerate() {
                if representative(r) != r {
                    continue;
                }
                let earlier: Vec<Value> = values
                    .iter()
                    .zip(elems)
                    .map(|(v, e)| self.shuffle(*v, *e, Shuffle::Up, delta))
                    .collect();
                let combined = self.combine(op, &earlier, values)?;
                for (v, c) in values.iter_mut().zip(combined) {
                    *v = self.b.select(has_earlier, c, *v);
                }
            }
        }
        // The run's last lane: this lane with every run bit set.
        let last_bits = self.b.const_i32(((1i64 << run) - 1) << first_lane);
        let last_lane = self.b.or(lane, last_bits);
        let one = self.b.const_i32(1i64 << first_lane);
        let zero = self.b.const_i32(0);
        let not_first = self.b.icmp(IntPredicate::Ne, position, zero);
        // Representatives come first (a register's representative is at most the register).
        let mut adds: Vec<Option<PendingPart>> = vec![None; scanned.len()];
        for r in 0..scanned.len() {
            let rep = representative(r);
            if rep != r {
                scanned[r] = scanned[rep].clone();
                total[r] = total[rep].clone();
                if prefix_differs {
                    adds[r] = adds[rep].clone();
                } else {
                    prefix[r] = scanned[r].clone();
                }
                continue;
            }
            let new_total: Vec<Value> = if last_lane_only {
                scanned[r].clone()
            } else {
                scanned[r]
                    .iter()
                    .zip(elems)
                    .map(|(v, e)| self.shuffle(*v, *e, Shuffle::Index, last_lane))
                    .collect()
            };
            if prefix_differs {
                let exclusive: Vec<Value> = scanned[r]
                    .iter()
                    .zip(elems)
                    .map(|(v, e)| self.shuffle(*v, *e, Shuffle::Up, one))
                    .collect();
                adds[r] = Some((exclusive, Some(not_first)));
            } else {
                prefix[r] = scanned[r].clone();
            }
            total[r] = new_total;
        }
        if prefix_differs {
            self.prepend_all(op, prefix, pending, shared_registers, adds)?;
        }
        if !last_lane_only {
            return Ok(None);
        }
        let last_position = self.b.const_i32((1i64 << run) - 1);
        Ok(Some(self.b.icmp(IntPredicate::Eq, position, last_position)))
    }

    /// Axis bits `first_reg .. first_reg + run` of the register index, in order: for each
    /// group of registers differing only in those bits, in scan order (descending for
    /// `reverse`), each prefix gets the totals of the earlier registers prepended, and every
    /// register's total becomes the group's.
    /// Registers differing only in `shared` (register bits scanned before) hold the same totals:
    /// their carries are computed once, for the group's lowest register.
    fn scan_register_run(
        &mut self,
        op: MlirOperation,
        (prefix, total, pending): ScanState<'_>,
        (first_reg, run): (usize, usize),
        shared: usize,
        reverse: bool,
    ) -> LResult<()> {
        let span = 1usize << run;
        let run_bits = (span - 1) << first_reg;
        let mut adds: Vec<Option<PendingPart>> = vec![None; prefix.len()];
        for start in (0..prefix.len()).filter(|r| r & run_bits == 0) {
            let mut order: Vec<usize> = (0..span).map(|k| start | (k << first_reg)).collect();
            if reverse {
                order.reverse();
            }
            if start & shared != 0 {
                // Its group's lowest start (fewer bits, so visited before) did the work.
                for &r in &order {
                    total[r] = total[r & !shared].clone();
                    adds[r] = adds[r & !shared].clone();
                }
                continue;
            }
            let mut carry = total[order[0]].clone();
            for &r in &order[1..] {
                adds[r] = Some((carry.clone(), None));
                carry = self.combine(op, &carry, &total[r])?;
            }
            for &r in &order {
                total[r] = carry.clone();
            }
        }
        self.prepend_all(op, prefix, pending, shared, adds)
    }

    /// Axis bits `first_warp .. first_warp + run` of the warp id, in order. After the bits
    /// below them, a block total is the same in every register and lane that differ only in
    /// scanned bits, so each warp stores one total per distinct (register, lane) pair, the
    /// others' are read back (one barrier), and every thread scans the run's totals itself:
    /// the prefix gets the earlier warps' combined totals prepended, the total becomes all of
    /// them combined. Before, every element went through shared memory once per warp bit.
    /// `storing_lane`, where given, is the condition for the one lane of each group of scanned
    /// lanes whose totals are right (see `scan_lane_run`): only it stores.
    #[allow(clippy::too_many_arguments)]
    fn scan_warp_run(
        &mut self,
        op: MlirOperation,
        elems: &[MlirType],
        (prefix, total, pending): ScanState<'_>,
        (first_warp, run): (usize, usize),
        scanned: ScannedBits,
        reverse: bool,
        storing_lane: Option<Value>,
    ) -> LResult<()> {
        let count = prefix.len();
        let lanes = self.threads_per_warp as u64;
        let warps = self.num_warps as u64;
        let base = self.smem_base();
        let (offsets, _) = Self::operand_regions(elems, warps * count as u64 * lanes);
        self.reserve_scratch(scan_scratch(op)?);
        // Slot of (register, lane, warp), warps fastest: a run's totals lie side by side.
        let lane_mask = self
            .b
            .const_i32(!(scanned.lanes as i64) & (lanes as i64 - 1));
        let lane = self.b.and(self.lane, lane_mask);
        let warps_c = self.b.const_i32(warps as i64);
        let slot = |this: &mut Self, register: usize, warp: Value| {
            let row = this.b.const_i32(register as i64 * lanes as i64);
            let row = this.b.add(row, lane);
            let scaled = this.b.mul(row, warps_c);
            this.b.add(scaled, warp)
        };
        let representatives: Vec<usize> =
            (0..count).filter(|r| r & scanned.registers == 0).collect();
        self.barrier_before_write();
        let store_totals = |this: &mut Self| {
            for &r in &representatives {
                let warp = this.warp();
                let index = slot(this, r, warp);
                for (k, elem) in elems.iter().enumerate() {
                    let region = this.region_base(base, offsets[k]);
                    this.smem_store(region, index, total[r][k], *elem);
                }
            }
        };
        match storing_lane {
            Some(cond) => {
                let after = self.b.begin_if(cond);
                store_totals(self);
                self.b.restore(after);
            }
            None => store_totals(self),
        }
        self.barrier();
        // Every thread reads the totals below: a later write of the scratch in this op (another
        // warp run, the results' regrouping) waits for them.
        self.shared_read_since_barrier = true;
        let span = 1usize << run;
        let run_mask = ((span - 1) << first_warp) as i64;
        let keep = self.b.const_i32(!run_mask & (warps as i64 - 1));
        let warp = self.warp();
        let other_warps = self.b.and(warp, keep);
        let position = self.run_position(warp, first_warp, run);
        // Scan order: ascending warp positions, descending for `reverse`.
        let position = if reverse {
            let last = self.b.const_i32(span as i64 - 1);
            self.b.sub(last, position)
        } else {
            position
        };
        let zero = self.b.const_i32(0);
        let not_first = self.b.icmp(IntPredicate::Ne, position, zero);
        let mut earlier_of = vec![None; count];
        let mut total_of = vec![None; count];
        for &r in &representatives {
            let mut in_order = Vec::with_capacity(span);
            for p in 0..span {
                let w = if reverse { span - 1 - p } else { p };
                let bits = self.b.const_i32((w << first_warp) as i64);
                let warp = self.b.or(other_warps, bits);
                let index = slot(self, r, warp);
                let loaded: Vec<Value> = elems
                    .iter()
                    .enumerate()
                    .map(|(k, elem)| {
                        let region = self.region_base(base, offsets[k]);
                        self.smem_load(region, index, *elem)
                    })
                    .collect();
                in_order.push(loaded);
            }
            // Running totals in scan order: `running[j]` combines positions 0..=j; a thread
            // prepends the one just before its position (meaningful past the first position),
            // the last is the run's total.
            let mut running = vec![in_order[0].clone()];
            for values in &in_order[1..] {
                let last = running.last().expect("starts non-empty");
                let next = self.combine(op, last, values)?;
                running.push(next);
            }
            let mut earlier = running[0].clone();
            for (p, values) in running.iter().enumerate().take(span - 1).skip(1) {
                let reach = self.b.const_i32(p as i64);
                let includes = self.b.icmp(IntPredicate::Ugt, position, reach);
                earlier = values
                    .iter()
                    .zip(&earlier)
                    .map(|(c, e)| self.b.select(includes, *c, *e))
                    .collect();
            }
            let all = running[span - 1].clone();
            earlier_of[r] = Some(earlier);
            total_of[r] = Some(all);
        }
        let mut adds: Vec<Option<PendingPart>> = vec![None; count];
        for r in 0..count {
            let rep = r & !scanned.registers;
            let (Some(earlier), Some(all)) = (&earlier_of[rep], &total_of[rep]) else {
                return err(
                    op,
                    "internal error: a scan register without its representative",
                );
            };
            adds[r] = Some((earlier.clone(), Some(not_first)));
            total[r] = all.clone();
        }
        self.prepend_all(op, prefix, pending, scanned.registers, adds)
    }
}

/// Values to prepend to a register's prefix, and where they apply (`None`: everywhere).
type PendingPart = (Vec<Value>, Option<Value>);

/// Per register, what later stages have still to prepend to its prefix (see
/// `FuncLowering::prepend_all`), for groups of registers that differ only in `mask`.
struct PendingPrefix {
    mask: usize,
    parts: Vec<Option<PendingPart>>,
}

/// A stage's view of the scan: every register's prefix and block total, and the prepends
/// still pending.
type ScanState<'a> = (
    &'a mut Vec<Vec<Value>>,
    &'a mut Vec<Vec<Value>>,
    &'a mut PendingPrefix,
);

/// A run of axis bits held by consecutive lane bits, and what the scan knows when it starts.
#[derive(Clone, Copy)]
struct LaneRun {
    first_lane: usize,
    run: usize,
    /// Earlier bits were scanned: the prefix is not the element's block total any more.
    prefix_differs: bool,
    /// Register bits (a mask) already scanned: registers differing only in them share totals.
    shared_registers: usize,
    /// A warp run comes next and only stores the totals (from the run's last lane).
    last_lane_only: bool,
}

/// Register and lane bits (masks) of the scan axis already scanned.
#[derive(Clone, Copy)]
struct ScannedBits {
    registers: usize,
    lanes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(size: u32, lanes: u32, warps: u32) -> BlockedEncoding {
        BlockedEncoding::new(vec![size], vec![lanes], vec![warps], vec![0])
    }

    #[test]
    fn a_spread_axis_becomes_one_run_a_thread() {
        let layout = contiguous_run_layout(&blocked(1, 32, 4), &[4096], 0).unwrap();
        assert_eq!(layout.size_per_thread, vec![32]);
        assert_eq!(layout.threads_per_warp, vec![32]);
        assert_eq!(layout.warps_per_cta, vec![4]);
        let vectorized = contiguous_run_layout(&blocked(4, 32, 4), &[4096], 0).unwrap();
        assert_eq!(vectorized.size_per_thread, vec![32]);
    }

    #[test]
    fn short_or_replicated_axes_stay() {
        // Two runs a thread: below the threshold.
        assert!(contiguous_run_layout(&blocked(4, 32, 4), &[1024], 0).is_none());
        // One run a thread already.
        assert!(contiguous_run_layout(&blocked(4, 32, 4), &[512], 0).is_none());
        // The axis is shorter than its threads: lanes hold copies.
        assert!(contiguous_run_layout(&blocked(1, 32, 4), &[64], 0).is_none());
    }

    #[test]
    fn only_the_axis_changes() {
        let two_d = BlockedEncoding::new(vec![1, 1], vec![4, 8], vec![4, 1], vec![1, 0]);
        let layout = contiguous_run_layout(&two_d, &[16, 256], 1).unwrap();
        assert_eq!(layout.size_per_thread, vec![1, 32]);
        assert_eq!(layout.threads_per_warp, two_d.threads_per_warp);
        assert_eq!(layout.warps_per_cta, two_d.warps_per_cta);
        assert_eq!(layout.order, two_d.order);
        // Along the other axis the rows are already whole per thread group: 16 rows over 4x4.
        assert!(contiguous_run_layout(&two_d, &[16, 256], 0).is_none());
    }
}
