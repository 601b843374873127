//! `-triton-combine`: Triton's peephole combines on TTIR, run with MLIR's greedy driver (which
//! also folds and erases dead ops):
//!
//! - `add(dot(a, b, 0), c)` → `dot(a, b, c)` for `arith.addf` and `arith.addi`, either operand
//!   order, when the dot has one use and its accumulator is a constant zero splat (for floats, only
//!   when the dot has no `maxNumImpreciseAcc`: the accumulator precision would change);
//! - `addptr(addptr(p, a), b)` → `addptr(p, a + b)` when `a` and `b` have one type;
//! - `select(c, load(p, m), o)` → `load(p, m, o)` when the mask `m` is `c` (or a splat of the same
//!   scalar) and the load has no other use: masked-off lanes take `o` either way (the new load
//!   stays where the old one was, or moves to the select when nothing between them may write);
//! - `broadcast(splat x)` → `splat x` (and broadcasts of constant splats become constants);
//! - a 1-D `reshape` whose only user is a single-operand `tt.reduce` or `tt.histogram` gets
//!   `allow_reorder`: the result does not depend on the element order;
//! - `reshape(descriptor_load(d, i))` → `descriptor_load(d, i)` of the reshaped type when the
//!   reshape only drops leading unit dims (`1x128x64` → `128x64`) and the load has no other use:
//!   the rank-reduced load the verifier allows (a batched matmul's 3-D descriptors then load and
//!   pipeline like 2-D ones);
//! - `descriptor_store(d, i, reshape(x))` (and `descriptor_reduce`) → `descriptor_store(d, i, x)`
//!   when the reshape only adds leading unit dims: the rank-reduced source.
//!
//! A reshape that only adds or drops leading unit dims keeps the element order, so neither its
//! `allow_reorder` (any order is allowed, this one included) nor its `efficient_layout` (a layout
//! hint; TTIR has no layouts) stops the two folds.

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::clone_with;
use tritium_dialects::melior::ir::{OperationRef, operation::OperationLike};
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects, fail};

pub static PASS: PassDef = PassDef {
    argument: "triton-combine",
    summary: "Triton's combines: dot+add, addptr chains, select of masked loads, broadcast of splat, \
              rank-reduced descriptor loads and stores",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith()],
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let patterns: &[(&str, RawPattern)] = &[
        ("arith.addf", dot_add),
        ("arith.addi", dot_add),
        ("tt.addptr", addptr_chain),
        ("arith.select", select_of_masked_load),
        ("tt.broadcast", broadcast_of_splat),
        ("tt.reshape", reshape_for_reduction),
        ("tt.reshape", rank_reduced_descriptor_load),
        ("tt.descriptor_store", rank_reduced_descriptor_source),
        ("tt.descriptor_reduce", rank_reduced_descriptor_source),
    ];
    if !apply_patterns(module.to_raw(), patterns) {
        return Err(fail(module.location(), "triton-combine did not converge"));
    }
    Ok(())
}

/// `add(c, dot(a, b, 0))` or `add(dot(a, b, 0), c)` → `dot(a, b, c)`.
fn dot_add(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let is_float = op_name(op) == "arith.addf";
    for (dot_index, acc_index) in [(1, 0), (0, 1)] {
        let sum = operand(op, dot_index);
        let Some(dot) = defined_by(sum, "tt.dot") else {
            continue;
        };
        if use_count(sum) != 1 || !is_zero_constant(operand(dot, 2)) {
            continue;
        }
        if is_float && int_attr(dot, "maxNumImpreciseAcc").unwrap_or(0) != 0 {
            continue;
        }
        let acc = operand(op, acc_index);
        if !same_type(value_type(acc), value_type(sum)) {
            continue;
        }
        // SAFETY: `dot` is the live `tt.dot` defining the matched add's operand; the clone is new
        // and unattached.
        let new = unsafe { mlirOperationClone(dot) };
        // SAFETY: the clone of a `tt.dot` has the accumulator as operand 2 (ODS: a, b, c); `acc` is
        // a live value of the accumulator's type (checked above).
        unsafe { mlirOperationSetOperand(new, 2, acc) };
        At::Rewriter(rewriter).insert(new);
        return rewrite_replace(rewriter, op, &[result(new, 0)]);
    }
    false
}

/// `addptr(addptr(p, a), b)` → `addptr(p, addi(a, b))`.
fn addptr_chain(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let (ptr, outer) = (operand(op, 0), operand(op, 1));
    let Some(inner) = defined_by(ptr, "tt.addptr") else {
        return false;
    };
    let (base, first) = (operand(inner, 0), operand(inner, 1));
    if !same_type(value_type(first), value_type(outer)) {
        return false;
    }
    let at = At::Rewriter(rewriter);
    let loc = location(op);
    let sum = at.binary("arith.addi", loc, first, outer);
    let new = at.value(
        "tt.addptr",
        loc,
        &[base, sum],
        value_type(result(op, 0)),
        &[],
    );
    rewrite_replace(rewriter, op, &[new])
}

/// The scalar a `tt.splat` spreads.
fn splat_source(value: MlirValue) -> Option<MlirValue> {
    defined_by(value, "tt.splat").map(|splat| operand(splat, 0))
}

/// Whether the select condition `cond` is true exactly where the load mask `mask` is.
fn same_condition(cond: MlirValue, mask: MlirValue) -> bool {
    if same(cond, mask) {
        return true;
    }
    let mask_scalar = splat_source(mask);
    mask_scalar.is_some_and(|m| same(m, cond) || splat_source(cond).is_some_and(|c| same(c, m)))
}

/// `select(c, load(p, m), o)` → `load(p, m, o)`.
fn select_of_masked_load(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let (cond, loaded, other) = (operand(op, 0), operand(op, 1), operand(op, 2));
    let Some(load) = defined_by(loaded, "tt.load") else {
        return false;
    };
    if use_count(loaded) != 1 || !same_type(value_type(loaded), value_type(other)) {
        return false;
    }
    let segments = i32_array(load, "operandSegmentSizes").unwrap_or_default();
    if segments.len() != 3 || segments[1] != 1 {
        return false;
    }
    let (ptr, mask) = (operand(load, 0), operand(load, 1));
    if !same_condition(cond, mask) {
        return false;
    }
    // The new load reads memory where the old one did, or where the select is if nothing between
    // them may write memory.
    // SAFETY: `load` is a live op (it defines an operand of `op`).
    let block = unsafe { mlirOperationGetBlock(load) };
    // SAFETY: `op` is the live op the pattern matched.
    if block.ptr != unsafe { mlirOperationGetBlock(op) }.ptr {
        return false;
    }
    let at_load = available_before(other, load);
    if !at_load && writes_between(load, op) {
        return false;
    }
    // SAFETY: `load` is a live op; the clone is new and unattached, inserted by the rewriter below.
    let new = unsafe { mlirOperationClone(load) };
    set_operands(new, &[ptr, mask, other]);
    set_inherent(
        new,
        "operandSegmentSizes",
        context_of(op).i32_array(&[1, 1, 1]),
    );
    if at_load {
        // SAFETY: `rewriter` is the live rewriter of this match and `load` a live op in the same
        // block.
        unsafe { mlirRewriterBaseSetInsertionPointBefore(rewriter, load) };
    }
    At::Rewriter(rewriter).insert(new);
    rewrite_replace(rewriter, op, &[result(new, 0)])
}

/// Whether `value`, which dominates an op in the block of `op`, is also available before `op`.
fn available_before(value: MlirValue, op: MlirOperation) -> bool {
    // SAFETY: `op` and `value`'s defining op are live; both blocks are compared before ordering ops
    // within one.
    unsafe {
        let block = mlirOperationGetBlock(op);
        match defining_op(value) {
            Some(def) => {
                mlirOperationGetBlock(def).ptr != block.ptr || mlirOperationIsBeforeInBlock(def, op)
            }
            None => true,
        }
    }
}

/// Whether an op strictly between `first` and `last` (one block) may write memory.
fn writes_between(first: MlirOperation, last: MlirOperation) -> bool {
    // SAFETY: `first` is a live op in a block (the caller's load).
    let mut current = unsafe { mlirOperationGetNextInBlock(first) };
    while !current.ptr.is_null() && current.ptr != last.ptr {
        let mut writes = false;
        walk(current, &mut |nested| writes |= may_write(nested));
        if writes {
            return true;
        }
        // SAFETY: `current` is a live, non-null op of the block (the loop condition).
        current = unsafe { mlirOperationGetNextInBlock(current) };
    }
    false
}

/// `broadcast(splat x)` → `splat x`; `broadcast(constant splat)` → constant splat.
fn broadcast_of_splat(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let src = operand(op, 0);
    let ty = value_type(result(op, 0));
    let at = At::Rewriter(rewriter);
    let loc = location(op);
    let new = if let Some(scalar) = splat_source(src) {
        at.splat(loc, scalar, ty)
    } else if let Some(element) = constant_element(src) {
        // SAFETY: `ty` is the live result type (a shaped type) and `element` a live scalar
        // attribute of its element type.
        at.constant(loc, unsafe { mlirDenseElementsAttrSplatGet(ty, element) })
    } else {
        return false;
    };
    rewrite_replace(rewriter, op, &[new])
}

/// Marks a 1-D reshape feeding only an order-insensitive reduction `allow_reorder`.
fn reshape_for_reduction(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    if attr(op, "allow_reorder").is_some() {
        return false;
    }
    let value = result(op, 0);
    if shape(value_type(value)).len() != 1 {
        return false;
    }
    let users = users(value);
    let [user] = users.as_slice() else {
        return false;
    };
    if !matches!(op_name(*user).as_str(), "tt.reduce" | "tt.histogram")
        || operands(*user).len() != 1
    {
        return false;
    }
    // SAFETY: `rewriter` is the live rewriter of this match and `op` the op it matched, modified in
    // place between start and finalize.
    unsafe {
        mlirRewriterBaseStartOpModification(rewriter, op);
        set_inherent(op, "allow_reorder", context_of(op).unit_attr());
        mlirRewriterBaseFinalizeOpModification(rewriter, op);
    }
    true
}

/// Whether `to` is `from` without some leading unit dims (at least one).
fn drops_leading_units(from: &[i64], to: &[i64]) -> bool {
    crate::tma::dropped_unit_dims(from, to).is_some_and(|dropped| dropped > 0)
}

/// `reshape(descriptor_load(d, i))`, dropping leading unit dims, → the rank-reduced
/// `descriptor_load(d, i)` of the reshape's type.
fn rank_reduced_descriptor_load(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let loaded = operand(op, 0);
    let Some(load) = defined_by(loaded, "tt.descriptor_load") else {
        return false;
    };
    let ty = value_type(result(op, 0));
    if use_count(loaded) != 1 || !drops_leading_units(&shape(value_type(loaded)), &shape(ty)) {
        return false;
    }
    // The new load reads memory where the old one did.
    // SAFETY: `rewriter` is the live rewriter of this match and `load` a live op.
    unsafe { mlirRewriterBaseSetInsertionPointBefore(rewriter, load) };
    let new = At::Rewriter(rewriter).insert(clone_with(load, &operands(load), &[ty]));
    rewrite_replace(rewriter, op, &[result(new, 0)]);
    // SAFETY: the old load's only use (the reshape) is gone; `rewriter` is live.
    unsafe { mlirRewriterBaseEraseOp(rewriter, load) };
    true
}

/// `descriptor_store(d, i, reshape(x))` (or `descriptor_reduce`), the reshape adding leading
/// unit dims, → `descriptor_store(d, i, x)`.
fn rank_reduced_descriptor_source(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    // Operand 1 is the stored value in both ops (the reduce's kind is an attribute).
    let stored = operand(op, 1);
    let Some(reshape) = defined_by(stored, "tt.reshape") else {
        return false;
    };
    let source = operand(reshape, 0);
    if !drops_leading_units(&shape(value_type(stored)), &shape(value_type(source))) {
        return false;
    }
    // SAFETY: `rewriter` is the live rewriter of this match and `op` the op it matched, modified in
    // place between start and finalize; `source` is a live value that dominates the reshape, so
    // the store too.
    unsafe {
        mlirRewriterBaseStartOpModification(rewriter, op);
        mlirOperationSetOperand(op, 1, source);
        mlirRewriterBaseFinalizeOpModification(rewriter, op);
    }
    true
}
