//! `-tritongpu-reorder-instructions`: moves ops within their block, changing no value, so that
//! short-lived values live shortly and shared memory is written as soon as its data is there:
//!
//! * a `ttg.convert_layout` sinks to just before its first user in the block (past
//!   `ttg.local_dealloc`s, loops and other work it does not feed: its result is live from
//!   there on only);
//! * a `ttg.local_load` into a dot-operand layout with a single user in the block sinks to just
//!   before that user; when both operands of a `tt.dot` are such loads, A (opIdx 0) is read
//!   before B;
//! * a `ttg.local_alloc` of a `tt.load`'s result moves to just after the load;
//! * a `ttg.memdesc_trans` moves to just after the definition of its operand.
//!
//! Nothing moves above the definition of one of its operands, and ops with several users of
//! another kind stay (a dot operand loaded once for two dots).

use crate::combine_tensor_select_and_if::ancestor_in;
use crate::ir_util::*;
use mlir_sys::*;
use std::collections::HashSet;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::Encoding;

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-reorder-instructions",
    summary: "Move conversions and shared-memory reads next to their users, staging writes next to their loads",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let blocks: Vec<MlirBlock> = collect_ops(module)
        .iter()
        .flat_map(|&op| blocks_of(op))
        .collect();
    for block in blocks {
        sink_into_place(block);
        for op in block_ops(block) {
            match op_name(op).as_str() {
                "ttg.local_alloc" => after_operand(op, block, Some("tt.load")),
                "ttg.memdesc_trans" => after_operand(op, block, None),
                _ => {}
            }
        }
    }
    Ok(())
}

/// The ops of `block` holding a use of `value` (the user itself or the op of `block` it is
/// nested in).
fn users_in(value: MlirValue, block: MlirBlock) -> Vec<MlirOperation> {
    crate::ir_util::users(value)
        .into_iter()
        .filter_map(|owner| ancestor_in(block, owner))
        .collect()
}

/// The first op of `block` after `op` that is in `set` (by address).
fn first_after(op: MlirOperation, set: &HashSet<usize>) -> Option<MlirOperation> {
    // SAFETY: iteration over the live block from the live `op`.
    unsafe {
        let mut next = mlirOperationGetNextInBlock(op);
        while !next.ptr.is_null() {
            if set.contains(&(next.ptr as usize)) {
                return Some(next);
            }
            next = mlirOperationGetNextInBlock(next);
        }
    }
    None
}

/// Whether `ty` is a tensor in a `#ttg.dot_op` layout, and its operand index.
fn dot_operand_index(ty: MlirType) -> Option<u32> {
    match encoding_of(ty)? {
        Encoding::DotOperand(d) => Some(d.op_idx),
        _ => None,
    }
}

/// Conversions sink to their first user in the block; single-use dot-operand reads to their
/// user, A before B.
fn sink_into_place(block: MlirBlock) {
    for op in block_ops(block) {
        let name = op_name(op);
        let Some(&result) = results(op).first() else {
            continue;
        };
        let operand_read =
            name == "ttg.local_load" && dot_operand_index(value_type(result)).is_some();
        if name != "ttg.convert_layout" && !operand_read {
            continue;
        }
        let users = users_in(result, block);
        // Values used outside the block (a yield of a nested region reads them in place) or,
        // for reads, by more than one op stay where they are.
        if users.is_empty()
            || users.len() != use_count(result)
            || (operand_read && users.len() != 1)
        {
            continue;
        }
        let set: HashSet<usize> = users.iter().map(|u| u.ptr as usize).collect();
        let Some(first) = first_after(op, &set) else {
            continue;
        };
        // SAFETY: `op` and `first` are live ops of `block`; `first` comes after `op`, and every
        // op between them uses nothing `op` defines (the first user is `first`).
        unsafe { mlirOperationMoveBefore(op, first) };
        if operand_read && op_name(first) == "tt.dot" {
            order_dot_operands(first);
        }
    }
}

/// A `tt.dot` whose A and B are both single-use dot-operand reads right before it: A first.
fn order_dot_operands(dot: MlirOperation) {
    let ins = operands(dot);
    let (Some(a), Some(b)) = (
        ins.first().and_then(|&v| defining_op(v)),
        ins.get(1).and_then(|&v| defining_op(v)),
    ) else {
        return;
    };
    if op_name(a) != "ttg.local_load" || op_name(b) != "ttg.local_load" {
        return;
    }
    // SAFETY: position queries and a move within the dot's live block; `a` has no operand
    // defined by `b` (both read shared memory descriptors defined earlier).
    unsafe {
        let block = mlirOperationGetBlock(dot);
        if mlirOperationGetBlock(a).ptr == block.ptr
            && mlirOperationGetBlock(b).ptr == block.ptr
            && mlirOperationIsBeforeInBlock(b, a)
            && !operands(a)
                .iter()
                .any(|&v| defining_op(v).is_some_and(|d| d.ptr == b.ptr))
        {
            mlirOperationMoveBefore(a, b);
        }
    }
}

/// `op` right after the definition of its first operand in `block` (only a `defined_by` op when
/// given: a `local_alloc` moves up to its `tt.load`).
fn after_operand(op: MlirOperation, block: MlirBlock, defined_by: Option<&str>) {
    let Some(&src) = operands(op).first() else {
        return;
    };
    let Some(def) = defining_op(src) else {
        return;
    };
    // SAFETY: block and position queries, then a move within the live block.
    unsafe {
        if defined_by.is_none_or(|name| op_name(def) == name)
            && mlirOperationGetBlock(def).ptr == block.ptr
            && mlirOperationGetNextInBlock(def).ptr != op.ptr
        {
            mlirOperationMoveAfter(op, def);
        }
    }
}
