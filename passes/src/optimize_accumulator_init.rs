//! `-tritongpu-optimize-accumulator-init`: a `ttng.warp_group_dot` in an `scf.for` whose
//! accumulator is reset to zeros in the body — `arith.select %reset, %zeros, %acc` of the
//! loop-carried value — reads it through the dot's `useC` flag instead: the loop carries an `i1`
//! "the accumulator holds data" (false at first when the init is zero too, set after each dot),
//! the dot gets `useC = flag and !reset`, the select and its zeros go, and the tensor cores start
//! those tiles with scale-d = 0 rather than adding a register file of zeros. A loop whose
//! accumulator only starts as zeros is left alone, as Triton leaves it.

use crate::ir_util::has_uses;
use crate::ir_util::{blocks_of, collect_ops, defining_op, op_name, operands, results, value_type};
use crate::ttir::util::{is_zero_constant, rebuild, rebuild_for, set_operands};
use mlir_sys::*;
use tritium_dialects::build::build;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-optimize-accumulator-init",
    summary: "Replace zero-initialized wgmma accumulators with the dot's useC flag",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttng()],
    run,
};

/// `arith.constant <value> : i1` at `loc`, inserted before `before`.
fn bool_constant(loc: MlirLocation, value: bool, before: MlirOperation) -> MlirValue {
    // SAFETY: an i1 attribute of `loc`'s context; the constant goes into `before`'s live block,
    // which owns it.
    unsafe {
        let ctx = mlirLocationGetContext(loc);
        let i1 = mlirIntegerTypeGet(ctx, 1);
        let op = build(
            "arith.constant",
            loc,
            &[],
            &[i1],
            &[("value", mlirIntegerAttrGet(i1, value as i64))],
        );
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
        mlirOperationGetResult(op, 0)
    }
}

/// `name(operands) : i1` before `before`.
fn bool_op(name: &str, loc: MlirLocation, ins: &[MlirValue], before: MlirOperation) -> MlirValue {
    // SAFETY: the i1 result type of `loc`'s context; the op goes into `before`'s live block.
    unsafe {
        let i1 = mlirIntegerTypeGet(mlirLocationGetContext(loc), 1);
        let op = build(name, loc, ins, &[i1], &[]);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
        mlirOperationGetResult(op, 0)
    }
}

/// The iter-arg index `k` (block argument `k + 1`) when `value` is an iter arg of `body`.
fn iter_arg_index(value: MlirValue, body: MlirBlock) -> Option<usize> {
    // SAFETY: kind and owner queries on a live value.
    unsafe {
        (mlirValueIsABlockArgument(value)
            && mlirBlockArgumentGetOwner(value).ptr == body.ptr
            && mlirBlockArgumentGetArgNumber(value) > 0)
            .then(|| mlirBlockArgumentGetArgNumber(value) as usize - 1)
    }
}

/// Rewrites the first dot of `for_op` this applies to; returns whether one was.
fn optimize_loop(for_op: MlirOperation) -> bool {
    let Some(&body) = blocks_of(for_op).first() else {
        return false;
    };
    let inits: Vec<MlirValue> = operands(for_op)[3..].to_vec();
    for dot in collect_ops(for_op) {
        if op_name(dot) != "ttng.warp_group_dot" || operands(dot).len() != 3 {
            continue;
        }
        // SAFETY: block query on a live op.
        if unsafe { mlirOperationGetBlock(dot) }.ptr != body.ptr {
            continue;
        }
        let acc = operands(dot)[2];
        // The accumulator as the loop carries it, and the reset condition if a select zeroes it.
        let (carried, reset) = match defining_op(acc) {
            Some(select)
                if op_name(select) == "arith.select"
                    && is_zero_constant(operands(select)[1])
                    && iter_arg_index(operands(select)[2], body).is_some() =>
            {
                // SAFETY: type query on a live value.
                let scalar = unsafe { mlirTypeIsAInteger(value_type(operands(select)[0])) };
                if !scalar {
                    continue;
                }
                (operands(select)[2], Some(operands(select)[0]))
            }
            _ => (acc, None),
        };
        let Some(index) = iter_arg_index(carried, body) else {
            continue;
        };
        // Only a reset in the body, as Triton 3.6: a flag for a zero init alone makes LLVM peel
        // the first iteration (its flag a constant), and the peeled dot's accumulator reaches
        // the loop through copies of every register, which ptxas must serialize against the
        // asynchronous wgmma (154 registers and 0.63x Triton on a TMA matmul; 90 without).
        if reset.is_none() {
            continue;
        }
        let zero_init = is_zero_constant(inits[index]);
        // SAFETY: a location of the live loop.
        let loc = unsafe { mlirOperationGetLocation(for_op) };
        let flag_init = bool_constant(loc, !zero_init, for_op);
        let mut new_inits = inits.clone();
        new_inits.push(flag_init);
        let new_for = rebuild_for(for_op, &new_inits);
        // SAFETY: the moved body gains one i1 block argument (the new iter arg, last); the old
        // loop's results move to the new one's and it is destroyed; the yield is the body's
        // terminator and gets one more operand.
        unsafe {
            let i1 = mlirIntegerTypeGet(mlirLocationGetContext(loc), 1);
            let flag = mlirBlockAddArgument(body, i1, loc);
            for i in 0..mlirOperationGetNumResults(for_op) {
                mlirValueReplaceAllUsesOfWith(
                    mlirOperationGetResult(for_op, i),
                    mlirOperationGetResult(new_for, i),
                );
            }
            mlirOperationDestroy(for_op);
            let use_c = match reset {
                Some(cond) => {
                    let yes = bool_constant(loc, true, dot);
                    let keep = bool_op("arith.xori", loc, &[cond, yes], dot);
                    bool_op("arith.andi", loc, &[flag, keep], dot)
                }
                None => flag,
            };
            let mut ins = operands(dot);
            ins[2] = carried;
            ins.push(use_c);
            let types: Vec<MlirType> = results(dot).iter().map(|v| value_type(*v)).collect();
            let new_dot = rebuild(dot, &ins, &types);
            for (old, new) in results(dot).iter().zip(results(new_dot)) {
                mlirValueReplaceAllUsesOfWith(*old, new);
            }
            mlirOperationDestroy(dot);
            // The select that zeroed the accumulator, now unused.
            if let Some(select) = defining_op(acc)
                && reset.is_some()
                && !has_uses(acc)
            {
                mlirOperationDestroy(select);
            }
            let yield_op = mlirBlockGetTerminator(body);
            let yes = bool_constant(loc, true, yield_op);
            let mut yielded = operands(yield_op);
            yielded.push(yes);
            set_operands(yield_op, &yielded);
        }
        return true;
    }
    false
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    // Each rewrite rebuilds its loop: start over until no loop changes.
    while collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "scf.for")
        .any(optimize_loop)
    {}
    Ok(())
}
