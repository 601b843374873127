//! `-triton-reorder-broadcast`: computes elementwise ops on the small tensor (or scalar) before it
//! is broadcast or splat, instead of on every element of the big one. With MLIR's greedy driver:
//!
//! - `elementwise(splat a, splat b, ...)` → `splat(elementwise(a, b, ...))` (constant splats count
//!   as splats, scalar operands such as a select's condition pass through);
//! - `elementwise(broadcast a, broadcast b, splat c, ...)` → `broadcast(elementwise(a, b,
//!   splat' c, ...))` when every broadcast source has one shape;
//! - `expand_dims(splat x)` and `broadcast(splat x)` → `splat x`;
//! - `expand_dims(broadcast x)` → `broadcast(expand_dims x)` (tensors without encodings).
//!
//! Elementwise means pure: `arith` (but constants), `math`, and `tt`'s pure elementwise ops.

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::{OperationRef, operation::OperationLike};
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects, fail};

pub static PASS: PassDef = PassDef {
    argument: "triton-reorder-broadcast",
    summary: "Move elementwise ops ahead of tt.broadcast and tt.splat",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt()],
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module_op = module.to_raw();
    let mut names: Vec<String> = Vec::new();
    walk(module_op, &mut |op| {
        let name = op_name(op);
        if is_pure_elementwise(&name) && !names.contains(&name) {
            names.push(name);
        }
    });
    let mut patterns: Vec<(&str, RawPattern)> = vec![
        ("tt.expand_dims", view_of_splat),
        ("tt.broadcast", view_of_splat),
        ("tt.expand_dims", expand_dims_of_broadcast),
    ];
    for name in &names {
        patterns.push((name.as_str(), splat_after_elementwise));
        patterns.push((name.as_str(), broadcast_after_elementwise));
    }
    if !apply_patterns(module_op, &patterns) {
        return Err(fail(
            module.location(),
            "triton-reorder-broadcast did not converge",
        ));
    }
    Ok(())
}

/// Something all elements of a tensor equal.
enum Splat {
    Value(MlirValue),
    Constant(MlirAttribute),
}

fn splat_of(value: MlirValue) -> Option<Splat> {
    if let Some(splat) = defined_by(value, "tt.splat") {
        return Some(Splat::Value(operand(splat, 0)));
    }
    constant_element(value)
        .filter(|_| is_tensor(value_type(value)))
        .map(Splat::Constant)
}

/// A tensor of type `ty` filled with `splat`.
fn make_splat(at: At, loc: MlirLocation, splat: &Splat, ty: MlirType) -> MlirValue {
    match splat {
        Splat::Value(value) => at.splat(loc, *value, ty),
        Splat::Constant(element) => {
            // SAFETY: `ty` is a live shaped type and `element` a live scalar attribute of its
            // element type.
            at.constant(loc, unsafe { mlirDenseElementsAttrSplatGet(ty, *element) })
        }
    }
}

/// Whether every result of `op` is a ranked tensor (and there is one at least).
fn tensor_results(op: MlirOperation) -> bool {
    let outs = results(op);
    !outs.is_empty() && outs.iter().all(|value| is_tensor(value_type(*value)))
}

/// Inserts a clone of `op` with new operands and result types; returns its results.
fn clone_with(at: At, op: MlirOperation, ins: &[MlirValue], types: &[MlirType]) -> Vec<MlirValue> {
    let copy = tritium_dialects::build::clone_with(op, ins, types);
    at.insert(copy);
    results(copy)
}

/// `elementwise(splat a, splat b)` → `splat(elementwise(a, b))`.
fn splat_after_elementwise(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    if !tensor_results(op) || num_regions(op) != 0 {
        return false;
    }
    let mut splats = Vec::new();
    for value in operands(op) {
        if !is_tensor(value_type(value)) {
            splats.push(None);
            continue;
        }
        match splat_of(value) {
            Some(splat) => splats.push(Some(splat)),
            None => return false,
        }
    }
    if splats.iter().all(Option::is_none) {
        return false;
    }
    let at = At::Rewriter(rewriter);
    let loc = location(op);
    let scalars: Vec<MlirValue> = operands(op)
        .into_iter()
        .zip(&splats)
        .map(|(value, splat)| match splat {
            None => value,
            Some(Splat::Value(scalar)) => *scalar,
            Some(Splat::Constant(element)) => at.constant(loc, *element),
        })
        .collect();
    let types: Vec<MlirType> = results(op)
        .into_iter()
        .map(|value| element_type(value_type(value)))
        .collect();
    let scalar_results = clone_with(at, op, &scalars, &types);
    let new: Vec<MlirValue> = scalar_results
        .iter()
        .zip(results(op))
        .map(|(scalar, old)| at.splat(loc, *scalar, value_type(old)))
        .collect();
    rewrite_replace(rewriter, op, &new)
}

/// `elementwise(broadcast a, broadcast b, splat c)` → `broadcast(elementwise(a, b, splat' c))`.
fn broadcast_after_elementwise(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    if !tensor_results(op) || num_regions(op) != 0 {
        return false;
    }
    // The first broadcast's source type gives the small shape (and its encoding).
    let mut source_type: Option<MlirType> = None;
    for value in operands(op) {
        if !is_tensor(value_type(value)) {
            continue;
        }
        if let Some(broadcast) = defined_by(value, "tt.broadcast") {
            let ty = value_type(operand(broadcast, 0));
            match source_type {
                Some(existing) if shape(existing) != shape(ty) => return false,
                Some(_) => {}
                None => source_type = Some(ty),
            }
        } else if splat_of(value).is_none() {
            return false;
        }
    }
    let Some(source_type) = source_type else {
        return false;
    };
    let at = At::Rewriter(rewriter);
    let loc = location(op);
    let small = |ty: MlirType| with_element(source_type, element_type(ty));
    let mut ins = Vec::new();
    for value in operands(op) {
        let ty = value_type(value);
        if !is_tensor(ty) {
            ins.push(value);
        } else if let Some(broadcast) = defined_by(value, "tt.broadcast") {
            ins.push(operand(broadcast, 0));
        } else {
            let splat = splat_of(value).expect("checked above");
            ins.push(make_splat(at, loc, &splat, small(ty)));
        }
    }
    let types: Vec<MlirType> = results(op)
        .into_iter()
        .map(|value| small(value_type(value)))
        .collect();
    let small_results = clone_with(at, op, &ins, &types);
    let new: Vec<MlirValue> = small_results
        .iter()
        .zip(results(op))
        .map(|(value, old)| at.value("tt.broadcast", loc, &[*value], value_type(old), &[]))
        .collect();
    rewrite_replace(rewriter, op, &new)
}

/// `expand_dims(splat x)` / `broadcast(splat x)` → `splat x` (constants likewise).
fn view_of_splat(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let Some(splat) = splat_of(operand(op, 0)) else {
        return false;
    };
    let new = make_splat(
        At::Rewriter(rewriter),
        location(op),
        &splat,
        value_type(result(op, 0)),
    );
    rewrite_replace(rewriter, op, &[new])
}

/// `expand_dims(broadcast x, axis)` → `broadcast(expand_dims(x, axis))`.
fn expand_dims_of_broadcast(op: MlirOperation, rewriter: MlirRewriterBase) -> bool {
    let Some(broadcast) = defined_by(operand(op, 0), "tt.broadcast") else {
        return false;
    };
    let src = operand(broadcast, 0);
    let out = value_type(result(op, 0));
    if encoding_attr(value_type(src)).is_some() || encoding_attr(out).is_some() {
        return false;
    }
    let Some(axis) = int_attr(op, "axis") else {
        return false;
    };
    let mut dims = shape(value_type(src));
    if axis < 0 || axis as usize > dims.len() {
        return false;
    }
    dims.insert(axis as usize, 1);
    let at = At::Rewriter(rewriter);
    let loc = location(op);
    let axis_attr = attr(op, "axis").expect("read above");
    let expanded = at.value(
        "tt.expand_dims",
        loc,
        &[src],
        with_shape(value_type(src), &dims),
        &[("axis", axis_attr)],
    );
    let new = at.value("tt.broadcast", loc, &[expanded], out, &[]);
    rewrite_replace(rewriter, op, &[new])
}
