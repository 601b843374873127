//! The TMA part of `-tritongpu-pipeline` (sm_90): in an innermost `scf.for` with an i32
//! induction variable and no `tt.load`, a `tt.descriptor_load` of a loop-invariant TMA
//! descriptor whose only use is a `ttg.local_alloc` in the descriptor's own `#ttg.nvmma_shared`
//! layout read only by `ttng.warp_group_dot`s is turned into TMA copies into a
//! `num-stages`-deep ring of buffers, `num-stages - 1` iterations ahead; the loads of one
//! stage share its mbarrier:
//!
//! * before the loop: the rings (`ttg.local_alloc` of `num-stages x block`), the barriers
//!   (`num-stages x 1 x i64`, each `ttng.init_barrier` to one arrival) and the copies of the
//!   first `num-stages - 1` iterations (one `barrier_expect` of the bytes of every load's block
//!   per stage and the loads' `async_tma_copy_global_to_local`s, predicated off past the
//!   loop's end);
//! * at the top of iteration `k` (counted from 0): `ttng.wait_barrier` on slot `k mod S` with
//!   phase `(k / S) mod 2` (both carried by the loop, with the prefetch's slot, as Triton's);
//!   the dots read `ttg.memdesc_index` of slot `k mod S`; the copy of iteration `k + S - 1`
//!   goes into slot `(k + S - 1) mod S`, the slot iteration `k - 1` read: a single accumulating dot stays in flight as in Triton (asynchronous, a
//!   `ttng.warp_group_dot_wait {pendings = 1}` after it, `{pendings = 0}` after the loop) and
//!   the copy follows that wait, after which iteration `k - 1`'s dot is done; otherwise the dots
//!   are synchronous and the copy goes at the top;
//! * after the loop: `ttng.inval_barrier` of every slot.
//!
//! A rank-reduced load (a batched kernel's `1xMxK` block loaded as `MxK`) stages like a 2-D
//! one: its ring holds tiles of the loaded shape, and its copies keep a coordinate per block dim.
//!
//! The copies' coordinates are the load's, recomputed for the prefetched iteration from the
//! induction variable and loop invariants by pure ops; coordinates that read other
//! loop-carried values (a fused persistent loop's tile offsets, computed in its prologue's
//! `scf.if`) come from clones of the iterations, their state carried `num-stages - 2` ahead by
//! the loop and each branch clone run only when its iteration exists, as the `cp.async`
//! pipelining does (pipeline.rs). The in-flight wgmma's result may also be read in later
//! branches of the body (the fused loop's epilogue), after a `pendings = 0` wait there. Loops
//! that also hold `tt.load`s are left to the `cp.async` pipelining.

use crate::ir_util::*;
use crate::tma::dropped_unit_dims;
use crate::tma_lowering::{At, block_of, erase, memdesc_dims, only_block_accesses, tma_layout};
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::{build, clone_with};
use tritium_layout::encoding::{Encoding, SwizzledSharedEncoding};

/// A descriptor load to pipeline: the load, its staging alloc, the descriptor and its layout.
struct Candidate {
    load: MlirOperation,
    alloc: MlirOperation,
    encoding: Encoding,
}

/// Whether `module` targets sm_90 or later (TMA).
pub(crate) fn enabled(module: MlirOperation) -> bool {
    let target = string_attr(module, "ttg.target").unwrap_or_default();
    let capability: i64 = target
        .strip_prefix("cuda:")
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    capability >= 90
}

/// Whether the TMA pipelining takes `for_op`: an innermost loop without `tt.load`s.
fn takes(for_op: MlirOperation) -> bool {
    collect_ops(for_op)
        .iter()
        .skip(1)
        .all(|inner| !matches!(op_name(*inner).as_str(), "scf.for" | "tt.load"))
}

/// Pipelines the descriptor loads of every innermost loop of `module` (sm_90 modules only),
/// with the loop's stages (its schedule's, its `tt.num_stages` or `default`).
pub fn run(module: MlirOperation, default: i64) {
    if !enabled(module) {
        return;
    }
    let loops: Vec<MlirOperation> = collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "scf.for" && takes(*op))
        .collect();
    for for_op in loops {
        if let Some(stages) = crate::schedule::loop_stages(for_op, default) {
            pipeline_loop(for_op, stages, crate::schedule::is_scheduled(for_op));
        }
    }
}

/// The descriptor loads of `for_op` this pipelining stages, for -tritongpu-assign-latencies.
pub(crate) fn stageable_loads(for_op: MlirOperation) -> Vec<MlirOperation> {
    let Some(&body) = blocks_of(for_op).first() else {
        return Vec::new();
    };
    let Some(&iv) = block_args(body).first() else {
        return Vec::new();
    };
    if !takes(for_op) {
        return Vec::new();
    }
    candidates(for_op, body, iv)
        .iter()
        .map(|c| c.load)
        .collect()
}

/// Whether `-triton-nvidia-tma-lowering` makes `desc` (of blocks `block`) a TMA descriptor: a
/// block argument (a kernel's descriptor parameter), or a `tt.make_tensor_descriptor` of unit
/// last stride it writes on the device, which takes every use being a block access.
pub(crate) fn lowered_to_tma(desc: MlirValue, block: MlirType) -> bool {
    match defining_op(desc) {
        Some(def) if op_name(def) == "tt.make_tensor_descriptor" => {
            let d = operands(def);
            let rank = d.len().saturating_sub(1) / 2;
            rank != 0 && constant_int(d[2 * rank]) == Some(1) && only_block_accesses(desc, block)
        }
        Some(_) => false,
        None => true,
    }
}

/// Whether `value` is defined outside `for_op` (so it is loop-invariant).
pub(crate) fn outside(value: MlirValue, for_op: MlirOperation) -> bool {
    // SAFETY: queries on a live value, its owner block and their parent ops.
    unsafe {
        let parent = if mlirValueIsABlockArgument(value) {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value))
        } else {
            mlirOperationGetParentOperation(mlirOpResultGetOwner(value))
        };
        let mut at = parent;
        while !at.ptr.is_null() {
            if at.ptr == for_op.ptr {
                return false;
            }
            at = mlirOperationGetParentOperation(at);
        }
        true
    }
}

fn is_pure_index_op(op: MlirOperation) -> bool {
    // SAFETY: region count of a live op.
    if unsafe { mlirOperationGetNumRegions(op) } != 0 {
        return false;
    }
    let name = op_name(op);
    name.starts_with("arith.")
}

/// Whether `value` is computed from `iv` and loop invariants by pure ops.
fn recomputable(value: MlirValue, iv: MlirValue, for_op: MlirOperation, depth: usize) -> bool {
    if value.ptr == iv.ptr || outside(value, for_op) {
        return true;
    }
    if depth > 64 {
        return false;
    }
    match defining_op(value) {
        Some(op) if is_pure_index_op(op) => operands(op)
            .into_iter()
            .all(|v| recomputable(v, iv, for_op, depth + 1)),
        _ => false,
    }
}

/// `value` recomputed with `iv` replaced by `new_iv`, the new ops built at `at`.
fn recompute(
    value: MlirValue,
    iv: MlirValue,
    new_iv: MlirValue,
    for_op: MlirOperation,
    at: &At,
    memo: &mut HashMap<usize, MlirValue>,
) -> MlirValue {
    if value.ptr == iv.ptr {
        return new_iv;
    }
    if outside(value, for_op) {
        return value;
    }
    if let Some(&v) = memo.get(&key(value)) {
        return v;
    }
    // `recomputable` held: an op result of pure ops.
    let Some(op) = defining_op(value) else {
        return value;
    };
    let ins: Vec<MlirValue> = operands(op)
        .into_iter()
        .map(|v| recompute(v, iv, new_iv, for_op, at, memo))
        .collect();
    let types: Vec<MlirType> = results(op).into_iter().map(value_type).collect();
    let copy = at.insert_op(clone_with(op, &ins, &types));
    for (i, r) in results(op).into_iter().enumerate() {
        // SAFETY: the clone has the original's results.
        memo.insert(key(r), unsafe { mlirOperationGetResult(copy, i as isize) });
    }
    memo.get(&key(value)).copied().unwrap_or(value)
}

/// `ttng.warp_group_dot_wait %value {pendings}` at `at` (not inserted).
fn dot_wait(at: MlirOperation, value: MlirValue, pendings: i64) -> MlirOperation {
    // SAFETY: attributes of the live context; a location of the live op.
    unsafe {
        let ctx = context_of(at);
        build(
            "ttng.warp_group_dot_wait",
            mlirOperationGetLocation(at),
            &[value],
            &[value_type(value)],
            &[("pendings", ctx.i32_attr(pendings))],
        )
    }
}

/// When the body has exactly one `ttng.warp_group_dot`, accumulating into an iter arg it only
/// yields back: makes it asynchronous with a `warp_group_dot_wait {pendings = 1}` right after
/// it (the previous iteration's dot is then complete), and a `{pendings = 0}` wait of the loop
/// result after the loop. Returns the wait in the body.
fn keep_dot_in_flight(for_op: MlirOperation, body: MlirBlock) -> Option<MlirOperation> {
    let dots: Vec<MlirOperation> = collect_ops(for_op)
        .into_iter()
        .filter(|&op| op_name(op) == "ttng.warp_group_dot")
        .collect();
    let [dot] = dots[..] else {
        return None;
    };
    // SAFETY: parent query on a live op.
    if unsafe { mlirOperationGetBlock(dot).ptr } != body.ptr
        || bool_attr(dot, "isAsync") == Some(true)
    {
        return None;
    }
    let out = *results(dot).first()?;
    // Besides the yield, reads in later branches (a fused loop's epilogue) wait there.
    let in_body = |op: MlirOperation| {
        // SAFETY: block query on a live op.
        unsafe { mlirOperationGetBlock(op).ptr == body.ptr }
    };
    let (yields, others): (Vec<MlirOperation>, Vec<MlirOperation>) = users(out)
        .into_iter()
        .partition(|&u| op_name(u) == "scf.yield" && in_body(u));
    let [yield_op] = yields[..] else {
        return None;
    };
    if !others
        .iter()
        .all(|&u| crate::pipeline::in_branch_after(u, dot, body))
    {
        return None;
    }
    let index = operands(yield_op).iter().position(|v| v.ptr == out.ptr)?;
    let acc = *operands(dot).get(2)?;
    if block_args(body)
        .get(1 + index)
        .is_none_or(|arg| arg.ptr != acc.ptr)
    {
        return None;
    }
    crate::pipeline::wait_in_branches(dot, body);
    // SAFETY: the dot, the yield and the loop are live; the waits are inserted into the blocks,
    // which own them, and take over the uses of the values they wait for.
    unsafe {
        mlirOperationSetAttributeByName(
            dot,
            mlirStringRefCreateFromCString(c"isAsync".as_ptr()),
            mlirBoolAttrGet(context_of(dot), 1),
        );
        let wait = dot_wait(dot, out, 1);
        mlirBlockInsertOwnedOperationAfter(body, dot, wait);
        mlirOperationSetOperand(yield_op, index as isize, mlirOperationGetResult(wait, 0));
        let loop_result = mlirOperationGetResult(for_op, index as isize);
        let mut drain = dot_wait(dot, loop_result, 0);
        mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(for_op), for_op, drain);
        mlirValueReplaceAllUsesExcept(loop_result, mlirOperationGetResult(drain, 0), 1, &mut drain);
        Some(wait)
    }
}

/// The loop's candidates (see the module docs).
fn candidates(for_op: MlirOperation, body: MlirBlock, iv: MlirValue) -> Vec<Candidate> {
    block_ops(body)
        .into_iter()
        .filter(|&op| op_name(op) == "tt.descriptor_load")
        .filter_map(|op| candidate(op, for_op, iv))
        .collect()
}

fn candidate(load: MlirOperation, for_op: MlirOperation, iv: MlirValue) -> Option<Candidate> {
    let ins = operands(load);
    let desc = *ins.first()?;
    if !outside(desc, for_op) {
        return None;
    }
    let encoding = tma_layout(value_type(desc))?;
    if !lowered_to_tma(desc, block_of(value_type(desc))?) {
        return None;
    }
    if !ins[1..].iter().all(|&v| recomputable(v, iv, for_op, 0)) {
        // Coordinates from loop-carried state (a fused loop's tile offsets) are computed
        // ahead by cloning the iterations, as the cp.async pipelining does.
        let body = *blocks_of(for_op).first()?;
        crate::pipeline::slice_with(body, for_op, &ins[1..], true)?;
    }
    let out = *results(load).first()?;
    let [alloc] = users(out)[..] else {
        return None;
    };
    if op_name(alloc) != "ttg.local_alloc" {
        return None;
    }
    let staged = *results(alloc).first()?;
    let block = block_of(value_type(desc))?;
    // The loaded tile: the block, or the block without leading unit dims (rank-reduced).
    let tile = shape(value_type(out));
    if dropped_unit_dims(&shape(block), &tile).is_none()
        || memdesc_encoding_of(value_type(staged)).as_ref() != Some(&encoding)
        || memdesc_dims(value_type(staged)) != tile
    {
        return None;
    }
    if !users(staged)
        .iter()
        .all(|&u| op_name(u) == "ttng.warp_group_dot")
    {
        return None;
    }
    Some(Candidate {
        load,
        alloc,
        encoding,
    })
}

/// `ttg.memdesc_index %ring[%slot]` of a ring of `view` buffers.
fn index(at: &At, ring: MlirValue, slot: MlirValue, view: MlirType) -> MlirValue {
    at.insert(build(
        "ttg.memdesc_index",
        at.loc,
        &[ring, slot],
        &[view],
        &[],
    ))
}

/// `barrier` expects `bytes` more (a stage's copies together), when `pred` holds.
fn expect(at: &At, barrier: MlirValue, bytes: i64, pred: MlirValue) {
    at.insert_op(build(
        "ttng.barrier_expect",
        at.loc,
        &[barrier, pred],
        &[],
        &[("size", at.int_attr(32, bytes))],
    ));
}

/// The copy of `load`'s block at `coords` into `buffer`, completing on `barrier`.
fn copy(
    at: &At,
    load: MlirOperation,
    coords: &[MlirValue],
    buffer: MlirValue,
    barrier: MlirValue,
    pred: MlirValue,
) {
    let mut ins = vec![operands(load)[0]];
    ins.extend_from_slice(coords);
    ins.extend([barrier, buffer, pred]);
    at.insert_op(build(
        "ttng.async_tma_copy_global_to_local",
        at.loc,
        &ins,
        &[],
        &[],
    ));
}

fn pipeline_loop(for_op: MlirOperation, stages: i64, scheduled: bool) {
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    let Some(&iv) = block_args(body).first() else {
        return;
    };
    // SAFETY: type query on a live type.
    if unsafe {
        !mlirTypeIsAInteger(value_type(iv)) || mlirIntegerTypeGetWidth(value_type(iv)) != 32
    } {
        return;
    }
    let loop_ins = operands(for_op);
    let (lb, ub, step) = (loop_ins[0], loop_ins[1], loop_ins[2]);
    let mut found = candidates(for_op, body, iv);
    // A schedule (-tritongpu-schedule-loops) says which loads to stage.
    if scheduled {
        found.retain(|c| crate::schedule::has_latency(c.load));
    }
    if found.is_empty() {
        return;
    }
    // Coordinates computed from the induction variable alone are recomputed for the prefetched
    // iteration; otherwise (loop-carried state, a fused loop's tile offsets) the iterations'
    // slice is cloned, its state carried ahead as for the cp.async copies.
    let all_coords: Vec<MlirValue> = found
        .iter()
        .flat_map(|c| operands(c.load).into_iter().skip(1))
        .collect();
    let slice = if all_coords.iter().all(|&v| recomputable(v, iv, for_op, 0)) {
        None
    } else {
        match crate::pipeline::slice_with(body, for_op, &all_coords, true) {
            Some(slice) => Some(slice),
            // `candidates` checked each load's coordinates alone.
            None => return,
        }
    };
    let pre = At::new(for_op);
    // SAFETY: the loop is live in a block; the op after it (a terminator at least) anchors the
    // ops built after the loop.
    let after = At::new(unsafe { mlirOperationGetNextInBlock(for_op) });
    // SAFETY: `body` is the loop's live body; it has at least its terminator.
    let top = At::new(unsafe { mlirBlockGetFirstOperation(body) });
    let s = stages;
    let i64t = pre.int_type(64);
    let barrier_encoding = Encoding::SwizzledShared(SwizzledSharedEncoding::new(1, 1, 1, vec![0]));
    let barrier_ring_type = pre.memdesc(&[s, 1], i64t, &barrier_encoding, true);
    let barrier_type = pre.memdesc(&[1], i64t, &barrier_encoding, true);
    let cmp_slt = |at: &At, a: MlirValue, b: MlirValue| {
        at.insert(build(
            "arith.cmpi",
            at.loc,
            &[a, b],
            &[at.int_type(1)],
            &[("predicate", at.int_attr(64, 2))],
        ))
    };
    let bin = |at: &At, name: &str, a: MlirValue, b: MlirValue| {
        at.insert(build(name, at.loc, &[a, b], &[value_type(a)], &[]))
    };
    // The slot this iteration reads, its phase and the slot the prefetch writes: carried by the
    // loop (from 0, 0 and S - 1), each advanced by one at the end of the body, wrapping at S
    // (the phase flips when the read slot wraps) — no division per iteration.
    let i32t = value_type(iv);
    // SAFETY: new arguments of a live type appended to the live body (inits added below).
    let (slot, phase, slot_next) = unsafe {
        let loc = mlirOperationGetLocation(for_op);
        (
            mlirBlockAddArgument(body, i32t, loc),
            mlirBlockAddArgument(body, i32t, loc),
            mlirBlockAddArgument(body, i32t, loc),
        )
    };
    let ahead = top.constant(32, s - 1);
    let skip = bin(&top, "arith.muli", step, ahead);
    let iv_next = bin(&top, "arith.addi", iv, skip);
    let pred_next = cmp_slt(&top, iv_next, ub);
    // With one accumulating dot, it stays in flight into the next iteration and the prefetch
    // goes after its wait (the previous iteration's dot, which read the slot, is then done).
    let in_flight = keep_dot_in_flight(for_op, body);
    let prefetch = match in_flight {
        // SAFETY: the wait is live in the body, before its terminator.
        Some(wait) => At::new(unsafe { mlirOperationGetNextInBlock(wait) }),
        None => At::new(top.at),
    };
    // One ring of buffers per load; one ring of barriers for all of them: a stage's copies
    // complete one barrier, expecting their bytes together (one wait per iteration, as
    // Triton's).
    struct Ring {
        load: MlirOperation,
        alloc: MlirOperation,
        ring: MlirValue,
        view_type: MlirType,
        coords: Vec<MlirValue>,
    }
    let mut stage_bytes = 0;
    let rings: Vec<Ring> = found
        .into_iter()
        .map(|c| {
            // The ring's buffers have the loaded tile's shape (rank-reduced or the block's).
            let loaded = value_type(results(c.load)[0]);
            let dims = shape(loaded);
            let elem = element_type(loaded);
            stage_bytes +=
                dims.iter().product::<i64>() * (crate::tma_lowering::elem_bits(elem) / 8) as i64;
            let mut ring_dims = vec![s];
            ring_dims.extend_from_slice(&dims);
            let ring_type = pre.memdesc(&ring_dims, elem, &c.encoding, true);
            Ring {
                load: c.load,
                alloc: c.alloc,
                ring: pre.insert(build("ttg.local_alloc", pre.loc, &[], &[ring_type], &[])),
                view_type: pre.memdesc(&dims, elem, &c.encoding, true),
                coords: operands(c.load)[1..].to_vec(),
            }
        })
        .collect();
    let init = |j: usize| operands(for_op)[3 + j];
    let mut state: HashMap<usize, MlirValue> = slice
        .as_ref()
        .map(|sl| sl.args.iter().map(|&j| (j, init(j))).collect())
        .unwrap_or_default();
    let mut issued_state = state.clone();
    let bars = pre.insert(build(
        "ttg.local_alloc",
        pre.loc,
        &[],
        &[barrier_ring_type],
        &[],
    ));
    for i in 0..s {
        let ci = pre.constant(32, i);
        let bar = index(&pre, bars, ci, barrier_type);
        pre.insert_op(build(
            "ttng.init_barrier",
            pre.loc,
            &[bar],
            &[],
            &[("count", pre.int_attr(32, 1))],
        ));
    }
    // The prologue: iterations 0 .. S - 2.
    for i in 0..s - 1 {
        let ci = pre.constant(32, i);
        let offset = bin(&pre, "arith.muli", step, ci);
        let iv_i = bin(&pre, "arith.addi", lb, offset);
        let pred = cmp_slt(&pre, iv_i, ub);
        let bar = index(&pre, bars, ci, barrier_type);
        expect(&pre, bar, stage_bytes, pred);
        let cloned = slice
            .as_ref()
            .map(|sl| crate::pipeline::clone_iteration(body, sl, for_op, iv_i, &state, Some(pred)));
        let mut memo = HashMap::new();
        for r in &rings {
            let at_i: Vec<MlirValue> = r
                .coords
                .iter()
                .map(|&v| match &cloned {
                    Some(map) => map.get(&key(v)).copied().unwrap_or(v),
                    None => recompute(v, iv, iv_i, for_op, &pre, &mut memo),
                })
                .collect();
            let buf = index(&pre, r.ring, ci, r.view_type);
            copy(&pre, r.load, &at_i, buf, bar, pred);
        }
        if let (Some(sl), Some(map)) = (&slice, &cloned) {
            issued_state = state.clone();
            state = crate::pipeline::next_state(body, sl, map, &state);
        }
    }
    // The state of the last iteration the prologue issued, carried by the loop: each iteration
    // advances it one step and clones the prefetched iteration from the result.
    let ahead_args: Vec<(usize, MlirValue)> = match &slice {
        Some(sl) => sl
            .args
            .iter()
            .map(|&j| {
                let ty = value_type(issued_state[&j]);
                // SAFETY: a new argument of a live type appended to the live body (its init is
                // added below, after the slots').
                let arg =
                    unsafe { mlirBlockAddArgument(body, ty, mlirOperationGetLocation(for_op)) };
                (j, arg)
            })
            .collect(),
        None => Vec::new(),
    };
    let prefetched = slice.as_ref().map(|sl| {
        let carried: HashMap<usize, MlirValue> = ahead_args.iter().copied().collect();
        let behind = top.constant(32, s - 2);
        let behind = bin(&top, "arith.muli", step, behind);
        let issued_iv = bin(&top, "arith.addi", iv, behind);
        let issued_pred = cmp_slt(&top, issued_iv, ub);
        let issued = crate::pipeline::clone_iteration(
            body,
            sl,
            prefetch.at,
            issued_iv,
            &carried,
            Some(issued_pred),
        );
        let next_ahead = crate::pipeline::next_state(body, sl, &issued, &carried);
        let map = crate::pipeline::clone_iteration(
            body,
            sl,
            prefetch.at,
            iv_next,
            &next_ahead,
            Some(pred_next),
        );
        (map, next_ahead)
    });
    // This iteration's slot, then the prefetch S - 1 ahead.
    let bar = index(&top, bars, slot, barrier_type);
    top.insert_op(build(
        "ttng.wait_barrier",
        top.loc,
        &[bar, phase],
        &[],
        &[("operandSegmentSizes", top.segments(&[1, 1, 0, 0]))],
    ));
    let bar_next = index(&prefetch, bars, slot_next, barrier_type);
    expect(&prefetch, bar_next, stage_bytes, pred_next);
    let mut memo = HashMap::new();
    let mut dead = Vec::new();
    for r in &rings {
        let buf = index(&top, r.ring, slot, r.view_type);
        let next: Vec<MlirValue> = r
            .coords
            .iter()
            .map(|&v| match &prefetched {
                Some((map, _)) => map.get(&key(v)).copied().unwrap_or(v),
                None => recompute(v, iv, iv_next, for_op, &prefetch, &mut memo),
            })
            .collect();
        let buf_next = index(&prefetch, r.ring, slot_next, r.view_type);
        copy(&prefetch, r.load, &next, buf_next, bar_next, pred_next);
        let staged = results(r.alloc)[0];
        // SAFETY: both are live memdescs of the same block shape and layout.
        unsafe { mlirValueReplaceAllUsesOfWith(staged, buf) };
        // Erased once every load is done: the first may be what `top` is anchored on.
        dead.push(r.alloc);
        dead.push(r.load);
    }
    for i in 0..s {
        let ci = after.constant(32, i);
        let bar = index(&after, bars, ci, barrier_type);
        after.insert_op(build("ttng.inval_barrier", after.loc, &[bar], &[], &[]));
    }
    // SAFETY: `body` is the loop's live body; its terminator is the scf.yield.
    let yield_op = unsafe { mlirBlockGetTerminator(body) };
    let bump = At::new(yield_op);
    let one = bump.constant(32, 1);
    let zero = bump.constant(32, 0);
    let depth = bump.constant(32, s);
    let advance = |slot: MlirValue| {
        let next = bin(&bump, "arith.addi", slot, one);
        let stays = cmp_slt(&bump, next, depth);
        let wrapped = bump.insert(build(
            "arith.select",
            bump.loc,
            &[stays, next, zero],
            &[i32t],
            &[],
        ));
        (stays, wrapped)
    };
    let (read_stays, next_read) = advance(slot);
    let flipped = bin(&bump, "arith.xori", phase, one);
    let next_phase = bump.insert(build(
        "arith.select",
        bump.loc,
        &[read_stays, phase, flipped],
        &[i32t],
        &[],
    ));
    let (_, next_write) = advance(slot_next);
    let mut yielded = operands(yield_op);
    yielded.extend([next_read, next_phase, next_write]);
    if let Some((_, next_ahead)) = &prefetched {
        yielded.extend(ahead_args.iter().map(|(j, _)| next_ahead[j]));
    }
    crate::ttir::util::set_operands(yield_op, &yielded);
    let mut inits = operands(for_op)[3..].to_vec();
    inits.extend([
        pre.constant(32, 0),
        pre.constant(32, 0),
        pre.constant(32, s - 1),
    ]);
    inits.extend(ahead_args.iter().map(|(j, _)| issued_state[j]));
    crate::pipeline::replace_loop(for_op, &inits);
    // The allocs (no uses left), then the loads (used only by their allocs).
    for op in dead {
        erase(op);
    }
}
