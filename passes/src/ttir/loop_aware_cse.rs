//! `-triton-loop-aware-cse`: common-subexpression elimination that also merges `scf.for`
//! iter_args which are provably equal, then plain CSE, repeated until nothing changes.
//!
//! Two iter_args of one loop are equal when they start from the same value and yield
//! structurally equal expressions, assuming the two iter_args themselves equal (coinduction: the
//! assumption holds on entry and is preserved by every iteration). Structurally equal: the same
//! value, or results with the same index of pure region-free ops with the same name, attributes
//! and result types whose operands are pairwise equal. The second iter_arg is replaced by the
//! first and dropped from the loop.
//!
//! The CSE merges pure region-free ops with the same name, operands, attributes and result types
//! when the first dominates the second (same block or an enclosing one; isolated ops such as
//! functions start afresh). Memory reads are not merged.

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "triton-loop-aware-cse",
    summary: "CSE that also merges scf.for iter_args with equal initial and yielded values",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::scf()],
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    loop {
        cse(module);
        if !merge_iter_args(module) {
            break;
        }
    }
    Ok(())
}

// ----------------------------------------------------------------------------------------------
// CSE
// ----------------------------------------------------------------------------------------------

#[derive(Clone, PartialEq, Eq, Hash)]
struct OpKey {
    name: String,
    operands: Vec<usize>,
    types: Vec<usize>,
    attributes: Vec<(usize, usize)>,
}

/// An op's attributes as (name, value) handles, sorted: both are uniqued by the context.
fn attribute_list(op: MlirOperation) -> Vec<(usize, usize)> {
    // SAFETY: `op` is a live operation; attribute `i` exists below the count.
    let mut list: Vec<(usize, usize)> = unsafe {
        (0..mlirOperationGetNumAttributes(op))
            .map(|i| {
                let named = mlirOperationGetAttribute(op, i);
                (named.name.ptr as usize, named.attribute.ptr as usize)
            })
            .collect()
    };
    list.sort_unstable();
    list
}

fn op_key(op: MlirOperation) -> Option<OpKey> {
    let name = op_name(op);
    if !is_pure(&name) || num_regions(op) != 0 || results(op).is_empty() {
        return None;
    }
    Some(OpKey {
        name,
        operands: operands(op).into_iter().map(key).collect(),
        types: results(op)
            .into_iter()
            .map(|value| value_type(value).ptr as usize)
            .collect(),
        attributes: attribute_list(op),
    })
}

fn is_isolated(op: MlirOperation) -> bool {
    matches!(
        op_name(op).as_str(),
        "builtin.module" | "tt.func" | "func.func"
    )
}

/// CSE over `op`'s regions, with `scope` the ops that dominate them.
fn cse_regions(op: MlirOperation, scope: &HashMap<OpKey, MlirOperation>) {
    let empty = HashMap::new();
    let parent = if is_isolated(op) { &empty } else { scope };
    for block in blocks_of(op) {
        let mut local = parent.clone();
        for nested in block_ops(block) {
            if let Some(op_key) = op_key(nested) {
                if let Some(existing) = local.get(&op_key) {
                    for (old, new) in results(nested).into_iter().zip(results(*existing)) {
                        replace_uses(old, new);
                    }
                    erase(nested);
                    continue;
                }
                local.insert(op_key, nested);
            }
            if num_regions(nested) > 0 {
                cse_regions(nested, &local);
            }
        }
    }
}

pub(crate) fn cse(op: MlirOperation) {
    cse_regions(op, &HashMap::new());
}

// ----------------------------------------------------------------------------------------------
// Iter_args
// ----------------------------------------------------------------------------------------------

/// Whether `a` and `b` are equal, given the pairs in `assumed`.
fn equivalent(a: MlirValue, b: MlirValue, assumed: &mut HashSet<(usize, usize)>) -> bool {
    if same(a, b) || assumed.contains(&(key(a), key(b))) || assumed.contains(&(key(b), key(a))) {
        return true;
    }
    let (Some(x), Some(y)) = (defining_op(a), defining_op(b)) else {
        return false;
    };
    // SAFETY: `value` is an op result (the caller checked both values have defining ops).
    let index = |value: MlirValue| unsafe { mlirOpResultGetResultNumber(value) };
    let name = op_name(x);
    if name != op_name(y)
        || !is_pure(&name)
        || num_regions(x) != 0
        || num_regions(y) != 0
        || index(a) != index(b)
    {
        return false;
    }
    let (xs, ys) = (operands(x), operands(y));
    let types = |op: MlirOperation| {
        results(op)
            .into_iter()
            .map(|v| value_type(v).ptr as usize)
            .collect::<Vec<_>>()
    };
    if xs.len() != ys.len() || types(x) != types(y) || attribute_list(x) != attribute_list(y) {
        return false;
    }
    assumed.insert((key(a), key(b)));
    xs.into_iter()
        .zip(ys)
        .all(|(p, q)| equivalent(p, q, assumed))
}

/// The first pair `(i, j)`, `i < j`, of equal iter_args of `lp`.
fn equal_pair(lp: MlirOperation) -> Option<(usize, usize)> {
    let inits = for_parts(lp).inits;
    let args = block_args(body(lp, 0));
    let yielded = operands(terminator(body(lp, 0)));
    for j in 1..inits.len() {
        for i in 0..j {
            if !same(inits[i], inits[j]) {
                continue;
            }
            let mut assumed = HashSet::from([(key(args[1 + i]), key(args[1 + j]))]);
            if equivalent(yielded[i], yielded[j], &mut assumed) {
                return Some((i, j));
            }
        }
    }
    None
}

/// Replaces iter_arg `j` of `lp` by iter_arg `i` and drops it; returns the new loop.
fn merge(lp: MlirOperation, i: usize, j: usize) -> MlirOperation {
    let block = body(lp, 0);
    let args = block_args(block);
    replace_uses(args[1 + j], args[1 + i]);
    let outs = results(lp);
    replace_uses(outs[j], outs[i]);
    let mut inits = for_parts(lp).inits;
    inits.remove(j);
    let yield_op = terminator(block);
    let mut yielded = operands(yield_op);
    yielded.remove(j);
    set_operands(yield_op, &yielded);
    // SAFETY: `block` is the live loop body; argument `1 + j` exists (iter_arg `j`, after the
    // induction variable) and has no uses left (replaced above).
    unsafe { mlirBlockEraseArgument(block, (1 + j) as u32) };
    let new = rebuild_for(lp, &inits);
    let new_results = results(new);
    for (index, old) in outs.into_iter().enumerate() {
        if index != j {
            replace_uses(old, new_results[if index < j { index } else { index - 1 }]);
        }
    }
    erase(lp);
    new
}

fn merge_iter_args(module: MlirOperation) -> bool {
    let mut changed = false;
    for op in collect_ops(module) {
        if op_name(op) != "scf.for" {
            continue;
        }
        let mut lp = op;
        while let Some((i, j)) = equal_pair(lp) {
            lp = merge(lp, i, j);
            changed = true;
        }
    }
    changed
}
