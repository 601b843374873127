//! `-tritium-prefetch-loop-loads`: in an `scf.for` that only loads and computes (a row or
//! column reduction, an online softmax, a cross-entropy over a vocabulary), each global
//! `tt.load` whose addresses the loop can compute one iteration ahead is issued one iteration
//! early, into registers: the load of iteration 0 goes before the loop, each iteration loads the
//! next one's data at its top (masked off past the last iteration) and the loop carries it.
//!
//! A GPU load does not block until its value is used, so the loop as written keeps one
//! iteration's loads in flight per warp: the next ones are issued only after this iteration's
//! arithmetic, which waits for them. With the prefetch two are in flight, which is what a
//! latency-bound loop (few programs per SM, short bodies) needs; Triton's pipeliner stages only
//! loads that feed dots, so such loops run as written there. Loops with dots, stores, atomics,
//! shared memory or nested loops are left alone, as are loads whose addresses depend on loaded
//! values. The carried data costs registers: at most [`MAX_PREFETCH_REGISTERS`] per thread.

use crate::ir_util::*;
use crate::pipeline::{At, clone_iteration, next_state, replace_loop, slice_of};
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::build::build;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{OptionKind, Options, PassDef, PassOption, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritium-prefetch-loop-loads",
    summary: "Issue a loop's global loads one iteration ahead, into registers carried by the loop",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "num-stages",
        description: "Pipelining stages; below 2 the pass does nothing (as tritongpu-pipeline)",
        kind: OptionKind::Int,
        default: "3",
    }],
    dependent_dialects: || vec![dialects::tt(), dialects::arith(), dialects::scf()],
    run,
};

/// The most 32-bit registers per thread a loop's prefetched data may take: twice what an
/// 8-warp program's row chunk of 16 bf16 or 16 f32 holds, small against the 255 a thread has
/// and the 64 that keep two 512-thread programs on an SM.
const MAX_PREFETCH_REGISTERS: u64 = 32;

/// Ops a prefetchable loop may contain (anywhere in its body): loads and side-effect-free
/// computation. Anything else (stores, atomics, dots, shared memory, barriers, calls, nested
/// loops, printing) keeps the loop as written.
fn allowed_in_loop(op: MlirOperation) -> bool {
    let name = op_name(op);
    name.starts_with("arith.")
        || name.starts_with("math.")
        || matches!(
            name.as_str(),
            "tt.load"
                | "tt.splat"
                | "tt.broadcast"
                | "tt.expand_dims"
                | "tt.addptr"
                | "tt.make_range"
                | "tt.reshape"
                | "tt.trans"
                | "tt.join"
                | "tt.split"
                | "tt.bitcast"
                | "tt.fp_to_fp"
                | "tt.clampf"
                | "tt.mulhiui"
                | "tt.precise_sqrt"
                | "tt.precise_divf"
                | "tt.reduce"
                | "tt.reduce.return"
                | "tt.scan"
                | "tt.scan.return"
                | "ttg.convert_layout"
                | "scf.if"
                | "scf.yield"
        )
}

/// Every op nested in `op` (not `op` itself).
fn nested_ops(op: MlirOperation) -> Vec<MlirOperation> {
    let mut all = collect_ops(op);
    all.retain(|o| o.ptr != op.ptr);
    all
}

/// 32-bit registers per thread holding a value of tensor type `ty`.
pub(crate) fn registers_per_thread(ty: MlirType) -> Option<u64> {
    let dims: Vec<u32> = shape(ty).iter().map(|&d| d as u32).collect();
    let elements = encoding_of(ty)?.total_elems_per_thread(&dims).ok()? as u64;
    // SAFETY: type queries on a live type.
    let bits = unsafe {
        let elem = element_type(ty);
        if mlirTypeIsAFloat(elem) {
            mlirFloatTypeGetWidth(elem) as u64
        } else if mlirTypeIsAInteger(elem) {
            mlirIntegerTypeGetWidth(elem) as u64
        } else {
            return None;
        }
    };
    Some((elements * bits).div_ceil(32))
}

/// A load the rewrite takes: a global load through a tensor of pointers (not a block pointer),
/// directly in the body, not volatile.
fn is_candidate(op: MlirOperation, body: MlirBlock) -> bool {
    // SAFETY: block query on a live op.
    let in_body = unsafe { mlirOperationGetBlock(op).ptr == body.ptr };
    if !in_body || op_name(op) != "tt.load" || bool_attr(op, "isVolatile") == Some(true) {
        return false;
    }
    let Some(&ptr) = operands(op).first() else {
        return false;
    };
    let ty = value_type(ptr);
    // SAFETY: type query on a live type.
    is_tensor(ty) && unsafe { tritium_dialects::ffi::tritiumTypeIsPointer(element_type(ty)) }
}

/// `tt.load` like `load` (its attributes) of `ptr` masked by `mask`, with `other` if any.
fn build_load(
    load: MlirOperation,
    ptr: MlirValue,
    mask: MlirValue,
    other: Option<MlirValue>,
) -> MlirOperation {
    let ctx = context_of(load);
    // SAFETY: attributes of the live `load`, read by index below its count; the segment sizes
    // are a dense array of the live context.
    unsafe {
        let mut attrs: Vec<(String, MlirAttribute)> = Vec::new();
        for i in 0..mlirOperationGetNumAttributes(load) {
            let named = mlirOperationGetAttribute(load, i);
            let name =
                tritium_dialects::ffi::string_ref_str(mlirIdentifierStr(named.name)).to_owned();
            if name != "operandSegmentSizes" {
                attrs.push((name, named.attribute));
            }
        }
        let segments = [1i32, 1, other.is_some() as i32];
        attrs.push((
            "operandSegmentSizes".into(),
            mlirDenseI32ArrayGet(ctx, 3, segments.as_ptr()),
        ));
        let named: Vec<(&str, MlirAttribute)> =
            attrs.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        let mut ins = vec![ptr, mask];
        ins.extend(other);
        let result_types: Vec<MlirType> = results(load).into_iter().map(value_type).collect();
        build(
            "tt.load",
            mlirOperationGetLocation(load),
            &ins,
            &result_types,
            &named,
        )
    }
}

/// The load of one iteration, before `at`: `load`'s operands through `map` (the iteration's
/// clones), its mask and-ed with `valid` (whether the iteration runs).
fn load_for_iteration(
    at: &At,
    load: MlirOperation,
    map: &HashMap<usize, MlirValue>,
    valid: MlirValue,
) -> MlirValue {
    let ins: Vec<MlirValue> = operands(load)
        .into_iter()
        .map(|v| map.get(&key(v)).copied().unwrap_or(v))
        .collect();
    let ptr = ins[0];
    // ODS: ptr, then the optional mask and other (operandSegmentSizes).
    let segments =
        crate::ttir::util::i32_array(load, "operandSegmentSizes").unwrap_or(vec![1, 0, 0]);
    let has_mask = segments.get(1).copied().unwrap_or(0) == 1;
    let has_other = segments.get(2).copied().unwrap_or(0) == 1;
    let mask = at.mask_and(value_type(ptr), has_mask.then(|| ins[1]), valid);
    let other = has_other.then(|| ins[if has_mask { 2 } else { 1 }]);
    at.insert(build_load(load, ptr, mask, other))
}

fn prefetch_loop(for_op: MlirOperation) {
    if int_attr(for_op, "tt.num_stages").is_some_and(|n| n < 2) {
        return;
    }
    if !nested_ops(for_op).into_iter().all(allowed_in_loop) {
        return;
    }
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    let mut loads = Vec::new();
    let mut roots = Vec::new();
    let mut registers = 0;
    for op in nested_ops(for_op) {
        if !is_candidate(op, body) || slice_of(body, for_op, &operands(op)).is_none() {
            continue;
        }
        let Some(n) = registers_per_thread(value_type(results(op)[0])) else {
            continue;
        };
        if registers + n > MAX_PREFETCH_REGISTERS {
            continue;
        }
        registers += n;
        roots.extend(operands(op));
        loads.push(op);
    }
    if loads.is_empty() {
        return;
    }
    let Some(slice) = slice_of(body, for_op, &roots) else {
        return;
    };
    let parts = crate::ttir::util::for_parts(for_op);
    let ctx = context_of(for_op);
    // SAFETY: live handles of one context. Clones go before the loop (iteration 0) and before
    // the body's first op (this iteration's yielded values, then the next iteration's
    // addresses and loads); the old loop is replaced by one carrying the loaded values.
    unsafe {
        let loc = mlirOperationGetLocation(for_op);
        // Iteration 0, before the loop.
        let before = At {
            at: for_op,
            loc,
            ctx,
        };
        let state0: HashMap<usize, MlirValue> =
            slice.args.iter().map(|&j| (j, parts.inits[j])).collect();
        let map0 = clone_iteration(body, &slice, for_op, parts.lb, &state0, None);
        let runs = before.lt(parts.lb, parts.ub);
        let first: Vec<MlirValue> = loads
            .iter()
            .map(|&load| load_for_iteration(&before, load, &map0, runs))
            .collect();
        // The next iteration, at the top of the body: this iteration's yielded values of the
        // iter args the addresses read (recomputed there), then the addresses one step on.
        let top = mlirBlockGetFirstOperation(body);
        let inside = At { at: top, loc, ctx };
        let iv = mlirBlockGetArgument(body, 0);
        let iv_next = inside.bin("arith.addi", iv, parts.step);
        let current: HashMap<usize, MlirValue> = slice
            .args
            .iter()
            .map(|&j| (j, mlirBlockGetArgument(body, j as isize + 1)))
            .collect();
        let state_next = if slice.args.is_empty() {
            current
        } else {
            let this_iteration = clone_iteration(body, &slice, top, iv, &current, None);
            next_state(body, &slice, &this_iteration, &current)
        };
        let map_next = clone_iteration(body, &slice, top, iv_next, &state_next, None);
        let runs_next = inside.lt(iv_next, parts.ub);
        let yield_op = mlirBlockGetTerminator(body);
        let mut yielded = operands(yield_op);
        for &load in &loads {
            let next = load_for_iteration(&inside, load, &map_next, runs_next);
            let result = results(load)[0];
            let carried = mlirBlockAddArgument(body, value_type(result), loc);
            mlirValueReplaceAllUsesOfWith(result, carried);
            mlirOperationDestroy(load);
            yielded.push(next);
        }
        crate::ttir::util::set_operands(yield_op, &yielded);
        let mut inits = parts.inits.clone();
        inits.extend(first);
        replace_loop(for_op, &inits);
    }
}

fn run(module: OperationRef, options: &Options) -> PassResult {
    if options.int("num-stages") < 2 {
        return Ok(());
    }
    // The loops first: a rewritten loop is destroyed, and it holds no other loop.
    let loops: Vec<MlirOperation> = collect_ops(module.to_raw())
        .into_iter()
        .filter(|op| op_name(*op) == "scf.for")
        .collect();
    for op in loops {
        prefetch_loop(op);
    }
    Ok(())
}
