//! `-triton-licm`: loop-invariant code motion for `scf.for` that also hoists loads.
//!
//! Inner loops first, each body op in order: an op whose operands (and, for an op with regions,
//! every value its regions use from outside) are defined outside the loop moves before the loop
//! when it is pure and speculatable (integer division only by a constant other than 0 and -1).
//! A `tt.load` with loop-invariant operands moves too when nothing in the loop may write memory
//! (stores, atomics, calls, ...) and the load is not volatile; because the loop might run no
//! iteration, the hoisted load is guarded by the loop's trip-count condition: its mask becomes
//! `splat(lb < ub) & mask` (or `splat(lb < ub)` without a mask; a scalar load uses `lb < ub`).

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "triton-licm",
    summary: "Hoist loop-invariant ops, and loop-invariant loads guarded by the trip count, out of scf.for",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith()],
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let loops: Vec<MlirOperation> = collect_ops(module.to_raw())
        .into_iter()
        .filter(|op| op_name(*op) == "scf.for")
        .collect();
    for op in loops.into_iter().rev() {
        hoist(op);
    }
    Ok(())
}

/// Whether `op` (and everything nested in it) can be computed before `lp`.
fn invariant(op: MlirOperation, lp: MlirOperation) -> bool {
    external_operands(op)
        .into_iter()
        .all(|value| defined_outside(value, lp))
}

/// Whether `op` and everything nested in it is pure and speculatable (terminators of nested
/// regions included).
fn speculatable_tree(op: MlirOperation) -> bool {
    let mut ok = true;
    walk(op, &mut |nested| {
        let name = op_name(nested);
        if nested.ptr != op.ptr && matches!(name.as_str(), "tt.reduce.return" | "tt.scan.return") {
            return;
        }
        ok &= is_speculatable(nested);
    });
    ok
}

/// Moves the pure, speculatable, loop-invariant ops of `lp`'s body (loads stay) before it:
/// -tritongpu-fuse-nested-loops does this to an outer loop before fusing it, as Triton does.
pub(crate) fn hoist_speculatable(lp: MlirOperation) {
    let body = body(lp, 0);
    let yield_op = terminator(body);
    for op in block_ops(body) {
        if op.ptr != yield_op.ptr && invariant(op, lp) && speculatable_tree(op) {
            // SAFETY: `op` is a live op of `lp`'s body whose operands are all defined outside
            // `lp`, so it can move before `lp`.
            unsafe { mlirOperationMoveBefore(op, lp) };
        }
    }
}

fn hoist(lp: MlirOperation) {
    let body = body(lp, 0);
    let mut writes = false;
    walk(lp, &mut |nested| {
        writes |= nested.ptr != lp.ptr && may_write(nested)
    });
    let mut guard: Option<MlirValue> = None;
    let yield_op = terminator(body);
    for op in block_ops(body) {
        if op.ptr == yield_op.ptr || !invariant(op, lp) {
            continue;
        }
        if speculatable_tree(op) {
            // SAFETY: `op` is a live op inside the loop `lp`, whose operands are all defined
            // outside it (checked by `speculatable_tree`), so it can move before `lp`.
            unsafe { mlirOperationMoveBefore(op, lp) };
            continue;
        }
        if op_name(op) != "tt.load" || writes || may_write(op) || num_regions(op) != 0 {
            continue;
        }
        let ptr_type = value_type(operand(op, 0));
        // Block pointers take no mask.
        if !is_tensor(ptr_type) && is_tensor(value_type(result(op, 0))) {
            continue;
        }
        let at = At::Before(lp);
        let loc = location(op);
        let condition = *guard.get_or_insert_with(|| {
            let parts = for_parts(lp);
            let predicate = if attr(lp, "unsignedCmp").is_some() {
                CmpI::Ult
            } else {
                CmpI::Slt
            };
            at.cmpi(location(lp), predicate, parts.lb, parts.ub)
        });
        let segments = i32_array(op, "operandSegmentSizes").unwrap_or_else(|| vec![1, 0, 0]);
        let ins = operands(op);
        let ptr = ins[0];
        let mask = (segments.get(1) == Some(&1)).then(|| ins[1]);
        let other = (segments.get(2) == Some(&1)).then(|| ins[ins.len() - 1]);
        let guard_value = if is_tensor(ptr_type) {
            // SAFETY: `op` is live, so is its context.
            let i1 = unsafe { mlirIntegerTypeGet(context_of(op), 1) };
            at.splat(loc, condition, with_element(ptr_type, i1))
        } else {
            condition
        };
        let new_mask = match mask {
            Some(mask) => at.binary("arith.andi", loc, guard_value, mask),
            None => guard_value,
        };
        let mut new_operands = vec![ptr, new_mask];
        new_operands.extend(other);
        // SAFETY: `op` is a live load; the clone is new and unattached, and gets its operands and
        // segment sizes below.
        let new = unsafe { mlirOperationClone(op) };
        set_operands(new, &new_operands);
        set_inherent(
            new,
            "operandSegmentSizes",
            context_of(op).i32_array(&[1, 1, other.is_some() as i32]),
        );
        at.insert(new);
        replace_uses(result(op, 0), result(new, 0));
        erase(op);
    }
}
