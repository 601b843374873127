//! `-triton-loop-unroll`: unrolls each `scf.for` carrying `tt.loop_unroll_factor = N` (N > 1) by N,
//! as MLIR's `loopUnrollByFactor` does, and removes the attribute (from every loop carrying it).
//!
//! The main loop keeps the lower bound, steps by `step * N` and stops at `lb + (tc - tc % N) *
//! step`, where `tc = ceildiv(ub - lb, step)` (computed with `arith` ops before the loop, or
//! folded to constants when the bounds are constants); its body is the original body followed
//! by N - 1 copies, copy `i` seeing the induction variable `iv + step * i` and the previous copy's
//! yielded values. A remainder loop (a clone of the original from the main loop's upper bound to
//! `ub`, fed the main loop's results) runs the leftover iterations and gets `tt.num_stages = 1`
//! so that it is not pipelined. With constant bounds the remainder loop is omitted when there is
//! no leftover, and loops left with a single iteration are inlined.
//!
//! Bounds: a factor above a constant trip count is lowered to the trip count (the same loop,
//! unrolled completely; MLIR would emit `factor` copies of the body in a loop that never runs).
//! A factor still above [`MAX_UNROLL_FACTOR`], or one that would make the unrolled body larger
//! than [`MAX_UNROLLED_OPS`] ops or [`MAX_UNROLLED_ELEMENTS`] tensor elements, is an error at the
//! loop. A loop with a constant step whose unrolled step (`step * N`) would not fit the induction
//! variable's type is left alone (MLIR's unroller wraps it to a negative step).

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{
    OptionKind, Options, PassDef, PassOption, PassResult, fail, no_dialects,
};

pub static PASS: PassDef = PassDef {
    argument: "triton-loop-unroll",
    summary: "Unroll scf.for loops annotated with tt.loop_unroll_factor",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "clamp-trip-count",
        description: "Clamp ub - lb at 0 in the dynamic trip count (Triton does not: with ub < lb and step > 1 its remainder loop may run)",
        kind: OptionKind::Bool,
        default: "false",
    }],
    dependent_dialects: no_dialects,
    run,
};

const FACTOR: &str = "tt.loop_unroll_factor";

/// The largest unroll factor (after lowering it to a constant trip count).
pub const MAX_UNROLL_FACTOR: i64 = 1024;

/// The most ops (nested ones included) an unrolled loop body may have: `factor` times the ops of
/// the original body. Compile time grows with it (a 3,000-op attention body takes about 9 s to
/// lower, most of it in LLVM), so this keeps any accepted factor within seconds.
pub const MAX_UNROLLED_OPS: i64 = 1 << 11;

/// The most tensor elements the ops of an unrolled body may produce (each op's results summed,
/// a scalar counting one): what the lowering's code size, and LLVM's time on the one long block,
/// follow. A 128x256 matmul body (123k elements) compiles in about a second; three copies of it
/// took 7 s in NVPTX alone, eight 14 s (the time grows faster than the block); two fit.
pub const MAX_UNROLLED_ELEMENTS: i64 = 1 << 18;

fn run(module: OperationRef, options: &Options) -> PassResult {
    let clamp = options.bool("clamp-trip-count");
    // Inner loops first: unrolling an outer loop copies its inner loops.
    let loops: Vec<MlirOperation> = collect_ops(module.to_raw())
        .into_iter()
        .filter(|op| op_name(*op) == "scf.for")
        .collect();
    for op in loops.into_iter().rev() {
        let Some(factor) = int_attr(op, FACTOR) else {
            continue;
        };
        remove_attr(op, FACTOR);
        let factor = match static_trip_count(op) {
            Some(trips) => factor.min(trips.max(1)),
            None => factor,
        };
        if factor <= 1 || unrolled_step_overflows(op, factor) {
            continue;
        }
        if factor > MAX_UNROLL_FACTOR {
            return Err(fail(
                location_ref(op),
                &format!(
                    "{FACTOR} = {factor} is too large: at most {MAX_UNROLL_FACTOR} copies of a loop body are supported"
                ),
            ));
        }
        let (body_ops, body_elements) = body_size(op);
        if body_elements.saturating_mul(factor) > MAX_UNROLLED_ELEMENTS {
            return Err(fail(
                location_ref(op),
                &format!(
                    "{FACTOR} = {factor} would make a body whose ops produce {body_elements} tensor elements produce {}; at most {MAX_UNROLLED_ELEMENTS} are supported",
                    body_elements.saturating_mul(factor)
                ),
            ));
        }
        if body_ops.saturating_mul(factor) > MAX_UNROLLED_OPS {
            return Err(fail(
                location_ref(op),
                &format!(
                    "{FACTOR} = {factor} would make a body of {body_ops} ops {} ops long; at most {MAX_UNROLLED_OPS} are supported",
                    body_ops.saturating_mul(factor)
                ),
            ));
        }
        unroll(op, factor, clamp);
    }
    Ok(())
}

fn location_ref<'c>(op: MlirOperation) -> tritium_dialects::melior::ir::Location<'c> {
    // SAFETY: `op` is a live operation of the module being transformed; its location is owned by
    // the context, which outlives the pass.
    unsafe { tritium_dialects::melior::ir::Location::from_raw(location(op)) }
}

/// The ops nested in the body of `op`, its terminator excluded, and the elements their results
/// hold (a scalar counting one).
fn body_size(op: MlirOperation) -> (i64, i64) {
    let (mut count, mut elements) = (0i64, 0i64);
    walk(op, &mut |inner| {
        count += 1;
        if inner.ptr != op.ptr {
            for result in results(inner) {
                let size = shape(value_type(result))
                    .iter()
                    .fold(1i64, |n, &d| n.saturating_mul(d.max(1)));
                elements = elements.saturating_add(size);
            }
        }
    });
    // `op` itself and the body's terminator are not copied.
    ((count - 2).max(1), elements)
}

/// Whether the main loop's step, `step * factor` for a constant step, would not fit the
/// induction variable's type (it would wrap to a negative or smaller step: `step 2^31 - 1`
/// unrolled by 4 stepped by -4). Such a loop is left as it is: unrolling is only a hint.
fn unrolled_step_overflows(op: MlirOperation, factor: i64) -> bool {
    let step = for_parts(op).step;
    let Some(value) = constant_int(step) else {
        return false;
    };
    // SAFETY: type queries on the live step's type.
    let bits = unsafe {
        let ty = value_type(step);
        if mlirTypeIsAInteger(ty) {
            mlirIntegerTypeGetWidth(ty)
        } else {
            64
        }
    };
    let max = (1i128 << (bits.clamp(1, 64) - 1)) - 1;
    value as i128 * factor as i128 > max
}

/// The trip count of a loop with constant bounds and a positive step (signed comparison).
fn static_trip_count(op: MlirOperation) -> Option<i64> {
    if attr(op, "unsignedCmp").is_some() {
        return None;
    }
    let parts = for_parts(op);
    let (lb, ub, step) = (
        constant_int(parts.lb)? as i128,
        constant_int(parts.ub)? as i128,
        constant_int(parts.step)? as i128,
    );
    if step <= 0 {
        return None;
    }
    let trips = if ub > lb {
        (ub - lb + step - 1) / step
    } else {
        0
    };
    i64::try_from(trips).ok()
}

/// The main loop's upper bound and step, and whether a remainder loop is needed (with its trip
/// count when known).
struct Bounds {
    upper: MlirValue,
    step: MlirValue,
    remainder: Option<Option<i64>>,
    main_trips: Option<i64>,
}

fn static_bounds(op: MlirOperation, parts: &ForParts, factor: i64) -> Option<Bounds> {
    if attr(op, "unsignedCmp").is_some() {
        return None;
    }
    let (lb, ub, step) = (
        constant_int(parts.lb)?,
        constant_int(parts.ub)?,
        constant_int(parts.step)?,
    );
    if step <= 0 {
        return None;
    }
    let (lb, ub, step, factor) = (lb as i128, ub as i128, step as i128, factor as i128);
    let trips = if ub > lb {
        (ub - lb + step - 1) / step
    } else {
        0
    };
    let even = trips - trips % factor;
    let upper = lb + even * step;
    let at = At::Before(op);
    let loc = location(op);
    let ty = value_type(parts.lb);
    let remainder = (upper < ub).then_some(Some((trips - even) as i64));
    Some(Bounds {
        upper: if remainder.is_some() {
            at.int_constant(loc, ty, upper as i64)
        } else {
            parts.ub
        },
        step: at.int_constant(loc, ty, (step * factor) as i64),
        remainder,
        main_trips: Some((even / factor) as i64),
    })
}

fn dynamic_bounds(op: MlirOperation, parts: &ForParts, factor: i64, clamp: bool) -> Bounds {
    let at = At::Before(op);
    let loc = location(op);
    let ty = value_type(parts.lb);
    let mut diff = at.binary("arith.subi", loc, parts.ub, parts.lb);
    if clamp {
        let predicate = if attr(op, "unsignedCmp").is_some() {
            CmpI::Ult
        } else {
            CmpI::Slt
        };
        let empty = at.cmpi(loc, predicate, parts.ub, parts.lb);
        let zero = at.int_constant(loc, ty, 0);
        diff = at.value("arith.select", loc, &[empty, zero, diff], ty, &[]);
    }
    let one = at.int_constant(loc, ty, 1);
    let step_minus_one = at.binary("arith.subi", loc, parts.step, one);
    let numerator = at.binary("arith.addi", loc, diff, step_minus_one);
    let trips = at.binary("arith.divui", loc, numerator, parts.step);
    let factor_value = at.int_constant(loc, ty, factor);
    let leftover = at.binary("arith.remsi", loc, trips, factor_value);
    let even = at.binary("arith.subi", loc, trips, leftover);
    let span = at.binary("arith.muli", loc, even, parts.step);
    let upper = at.binary("arith.addi", loc, parts.lb, span);
    let step = at.binary("arith.muli", loc, parts.step, factor_value);
    Bounds {
        upper,
        step,
        remainder: Some(None),
        main_trips: None,
    }
}

fn unroll(op: MlirOperation, factor: i64, clamp: bool) {
    let parts = for_parts(op);
    let bounds = static_bounds(op, &parts, factor)
        .unwrap_or_else(|| dynamic_bounds(op, &parts, factor, clamp));
    if let Some(remainder_trips) = bounds.remainder {
        // SAFETY: `op` is a live `scf.for`; the clone is new and unattached.
        let remainder = unsafe { mlirOperationClone(op) };
        // SAFETY: `op` is live in a block, which takes ownership of the clone.
        unsafe { mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(op), op, remainder) };
        for (old, new) in results(op).into_iter().zip(results(remainder)) {
            replace_uses(old, new);
        }
        // SAFETY: `remainder` is a clone of `op`: an `scf.for` with the lower bound as operand 0
        // and one init per result of `op` from operand 3 on (ODS); the values are live.
        unsafe {
            mlirOperationSetOperand(remainder, 0, bounds.upper);
            for (index, value) in results(op).into_iter().enumerate() {
                mlirOperationSetOperand(remainder, 3 + index as isize, value);
            }
        }
        set_attr(remainder, "tt.num_stages", context_of(op).i32_attr(1));
        if remainder_trips == Some(1) {
            promote_single_iteration(remainder);
        }
    }
    // SAFETY: `op` is a live `scf.for` (ODS: operands lb, ub, step first); the new bounds are live
    // values of the bounds' type.
    unsafe {
        mlirOperationSetOperand(op, 1, bounds.upper);
        mlirOperationSetOperand(op, 2, bounds.step);
    }
    unroll_body(op, parts.step, factor);
    if bounds.main_trips == Some(1) {
        promote_single_iteration(op);
    }
}

/// Appends `factor - 1` copies of the body of `op`, chained through the yielded values.
fn unroll_body(op: MlirOperation, step: MlirValue, factor: i64) {
    let body = body(op, 0);
    let args = block_args(body);
    let (iv, iter_args) = (args[0], &args[1..]);
    let yield_op = terminator(body);
    let originals: Vec<MlirOperation> = block_ops(body)
        .into_iter()
        .filter(|o| o.ptr != yield_op.ptr)
        .collect();
    let yielded = operands(yield_op);
    let mut last = yielded.clone();
    let at = At::Before(yield_op);
    let loc = location(op);
    for copy in 1..factor {
        let mut map: HashMap<usize, MlirValue> = HashMap::new();
        for (arg, value) in iter_args.iter().zip(&last) {
            map.insert(key(*arg), *value);
        }
        if has_uses(iv) {
            let index = at.int_constant(loc, value_type(iv), copy);
            let stride = at.binary("arith.muli", loc, step, index);
            map.insert(key(iv), at.binary("arith.addi", loc, iv, stride));
        }
        for original in &originals {
            // SAFETY: `original` is a live op of the loop body; the clone is new and inserted right
            // away.
            let clone = at.insert(unsafe { mlirOperationClone(*original) });
            remap(clone, &map);
            for (old, new) in results(*original).into_iter().zip(results(clone)) {
                map.insert(key(old), new);
            }
        }
        last = yielded
            .iter()
            .map(|value| map.get(&key(*value)).copied().unwrap_or(*value))
            .collect();
    }
    set_operands(yield_op, &last);
}

/// Replaces, in `op` and everything nested, each operand found in `map`.
pub(crate) fn remap(op: MlirOperation, map: &HashMap<usize, MlirValue>) {
    walk(op, &mut |nested| {
        for (index, value) in operands(nested).into_iter().enumerate() {
            if let Some(new) = map.get(&key(value)) {
                // SAFETY: `nested` is a live op and `index` one of its operand indices; `new` is a
                // live value.
                unsafe { mlirOperationSetOperand(nested, index as isize, *new) };
            }
        }
    });
}

/// Inlines the body of a loop known to run exactly once.
fn promote_single_iteration(op: MlirOperation) {
    let parts = for_parts(op);
    let body = body(op, 0);
    let args = block_args(body);
    replace_uses(args[0], parts.lb);
    for (arg, init) in args[1..].iter().zip(&parts.inits) {
        replace_uses(*arg, *init);
    }
    let yield_op = terminator(body);
    for nested in block_ops(body) {
        if nested.ptr != yield_op.ptr {
            // SAFETY: `nested` is a live op of the body of `op`, which is live in a block; moving
            // it before `op` keeps it in the IR.
            unsafe { mlirOperationMoveBefore(nested, op) };
        }
    }
    for (old, new) in results(op).into_iter().zip(operands(yield_op)) {
        replace_uses(old, new);
    }
    erase(op);
}
