//! `-tritongpu-combine-tensor-select-and-if`: an `arith.select %c, %a, %b` of tensors whose
//! scalar condition `%c` also guards an `scf.if %c` in the same block becomes one more result of
//! that `scf.if` (`%a` yielded by the then region, `%b` by the else region, which is created if
//! missing). The select's operands must be available before the `if`, and all its uses come after
//! it. A select of whole tensors costs a predicated move per register; as a result of the `if` it
//! costs nothing, and the pipeliner sees one conditional region instead of two.

use crate::ir_util::block_ops;
use crate::ir_util::{blocks_of, op_name, operands, results, value_type};
use crate::ttir::util::{erase, is_ancestor, rebuild, replace_uses, set_operands};
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-combine-tensor-select-and-if",
    summary: "Combine tensor selects with an scf.if on the same condition",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::scf()],
    run,
};

/// The op of `block` that is `op` or contains it, if any.
pub(crate) fn ancestor_in(block: MlirBlock, op: MlirOperation) -> Option<MlirOperation> {
    let mut current = op;
    while !current.ptr.is_null() {
        // SAFETY: `current` is a live, non-null op (the loop condition).
        let parent_block = unsafe { mlirOperationGetBlock(current) };
        if parent_block.ptr == block.ptr {
            return Some(current);
        }
        // SAFETY: as above.
        current = unsafe { mlirOperationGetParentOperation(current) };
    }
    None
}

/// Whether `value` is available right before `point` (an op of `block`): defined outside the
/// block's parent, or by an op of the block before `point`, or an argument of the block.
fn available_before(value: MlirValue, block: MlirBlock, point: MlirOperation) -> bool {
    // SAFETY: `value` is a live value: an op result has an owner op, a block argument an owner
    // block.
    unsafe {
        if mlirValueIsABlockArgument(value) {
            // An argument of the block itself, or of a block enclosing it.
            let owner = mlirBlockArgumentGetOwner(value);
            return owner.ptr == block.ptr
                || is_ancestor(
                    mlirBlockGetParentOperation(owner),
                    mlirBlockGetParentOperation(block),
                );
        }
        let def = mlirOpResultGetOwner(value);
        match ancestor_in(block, def) {
            Some(in_block) => mlirOperationIsBeforeInBlock(in_block, point),
            // Defined in an enclosing region: it dominates the whole block.
            None => true,
        }
    }
}

/// Whether every use of `value` is in an op of `block` after `point` (or nested in one).
fn used_only_after(value: MlirValue, block: MlirBlock, point: MlirOperation) -> bool {
    crate::ir_util::users(value).into_iter().all(|owner| {
        // SAFETY: `point` and the op of `block` holding the use are live ops of one block.
        ancestor_in(block, owner)
            .is_some_and(|in_block| unsafe { mlirOperationIsBeforeInBlock(point, in_block) })
    })
}

fn is_scalar_condition(value: MlirValue) -> bool {
    // SAFETY: type queries on a live value's type.
    unsafe {
        let ty = value_type(value);
        mlirTypeIsAInteger(ty) && mlirIntegerTypeGetWidth(ty) == 1
    }
}

/// Moves `selects` (each `select(cond, a, b)` with `if_op`'s condition) into `if_op`.
fn combine(if_op: MlirOperation, selects: &[MlirOperation]) {
    let old_results = results(if_op);
    let mut types: Vec<MlirType> = old_results.iter().map(|v| value_type(*v)).collect();
    types.extend(selects.iter().map(|s| value_type(results(*s)[0])));
    let new_if = rebuild(if_op, &operands(if_op), &types);
    // SAFETY: `new_if` is a live scf.if with the two regions moved from `if_op`; the else region
    // may be empty, in which case a block with a yield is created and appended (the region takes
    // ownership); yields are live terminators whose operand lists are extended.
    unsafe {
        let then_block = blocks_of(new_if)[0];
        let then_yield = mlirBlockGetTerminator(then_block);
        let mut then_values = operands(then_yield);
        then_values.extend(selects.iter().map(|s| operands(*s)[1]));
        set_operands(then_yield, &then_values);
        let else_region = mlirOperationGetRegion(new_if, 1);
        let else_values: Vec<MlirValue> = selects.iter().map(|s| operands(*s)[2]).collect();
        if mlirRegionGetFirstBlock(else_region).ptr.is_null() {
            let block = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
            mlirRegionAppendOwnedBlock(else_region, block);
            let yield_op = tritium_dialects::build::build(
                "scf.yield",
                mlirOperationGetLocation(if_op),
                &else_values,
                &[],
                &[],
            );
            mlirBlockAppendOwnedOperation(block, yield_op);
        } else {
            let else_yield = mlirBlockGetTerminator(mlirRegionGetFirstBlock(else_region));
            let mut values = operands(else_yield);
            values.extend(else_values);
            set_operands(else_yield, &values);
        }
    }
    let new_results = results(new_if);
    for (old, new) in old_results.iter().zip(&new_results) {
        replace_uses(*old, *new);
    }
    for (select, new) in selects.iter().zip(&new_results[old_results.len()..]) {
        replace_uses(results(*select)[0], *new);
        erase(*select);
    }
    erase(if_op);
}

fn combine_in_block(block: MlirBlock) -> bool {
    let ops = block_ops(block);
    for &if_op in &ops {
        if op_name(if_op) != "scf.if" {
            continue;
        }
        let cond = operands(if_op)[0];
        let selects: Vec<MlirOperation> = ops
            .iter()
            .copied()
            .filter(|&s| {
                op_name(s) == "arith.select" && {
                    let ins = operands(s);
                    ins[0].ptr == cond.ptr
                        && is_scalar_condition(ins[0])
                        // SAFETY: type query on a live result.
                        && unsafe { mlirTypeIsARankedTensor(value_type(results(s)[0])) }
                        && available_before(ins[1], block, if_op)
                        && available_before(ins[2], block, if_op)
                        && used_only_after(results(s)[0], block, if_op)
                }
            })
            .collect();
        if !selects.is_empty() {
            combine(if_op, &selects);
            return true;
        }
    }
    false
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    // Each combination rebuilds an `if`, so the walk starts over until nothing combines.
    'again: loop {
        let mut blocks = Vec::new();
        crate::ir_util::walk(module, &mut |op| blocks.extend(blocks_of(op)));
        for block in blocks {
            if combine_in_block(block) {
                continue 'again;
            }
        }
        break;
    }
    Ok(())
}
