//! `-tritongpu-optimize-thread-locality`: keep reductions inside a thread across loop iterations.
//!
//! A loop that reduces a tensor every iteration and folds the result into a loop-carried value,
//!
//! ```text
//! %acc' = scf.for ... iter_args(%acc = %init) { %r = tt.reduce(%x) {combine}; %n = combine(%acc, %r); yield %n }
//! ```
//!
//! pays for the cross-lane shuffles, the shared-memory exchange between warps and the barriers
//! on every iteration. Instead the loop carries an unreduced accumulator in `%x`'s own layout,
//! combined elementwise (each thread keeps its own elements: no communication at all), and the
//! reduction runs once after the loop: `%acc' = combine(%init, tt.reduce(%full))`, with `%full`
//! starting at the combine's identity. Applies when the combine region is a single associative,
//! commutative op with an identity (add, mul, max, min on floats and integers) and the same op
//! folds the result into the accumulator. Floating-point sums are reassociated, as Triton does.
//!
//! Beyond Triton: the online-softmax pair (a running maximum and a sum of exponentials rescaled
//! to it, [`online_softmax`]) is kept per thread instead, one pair a thread, merged after the
//! loop.

mod online_softmax;

use crate::ir_util::*;
use crate::ttir::util::{body, erase, rebuild_for, terminator};
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-optimize-thread-locality",
    summary: "Move per-iteration reductions out of loops: accumulate elementwise per thread, reduce once",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith(), dialects::scf()],
    run,
};

/// The identity of a combine op on `element` (a float or an integer of at most 64 bits), as a
/// scalar attribute.
fn identity(name: &str, element: MlirType) -> Option<MlirAttribute> {
    // SAFETY: `element` is a live type; widths are read only from float or integer types, and the
    // attributes are made in its own context.
    unsafe {
        if mlirTypeIsAFloat(element) {
            // Only these float types have infinities to start a max/min from.
            let has_inf = mlirTypeIsAF16(element)
                || mlirTypeIsABF16(element)
                || mlirTypeIsAF32(element)
                || mlirTypeIsAF64(element);
            let value = match name {
                "arith.addf" => -0.0,
                "arith.mulf" => 1.0,
                "arith.maxnumf" | "arith.maximumf" if has_inf => f64::NEG_INFINITY,
                "arith.minnumf" | "arith.minimumf" if has_inf => f64::INFINITY,
                _ => return None,
            };
            return Some(mlirFloatAttrDoubleGet(
                mlirTypeGetContext(element),
                element,
                value,
            ));
        }
        if !mlirTypeIsAInteger(element) {
            return None;
        }
        let bits = mlirIntegerTypeGetWidth(element);
        if bits > 64 {
            return None;
        }
        let value: i128 = match name {
            "arith.addi" | "arith.ori" | "arith.xori" | "arith.maxui" => 0,
            "arith.muli" => 1,
            "arith.andi" | "arith.minui" => -1,
            "arith.maxsi" if bits > 1 => -(1i128 << (bits - 1)),
            "arith.minsi" if bits > 1 => (1i128 << (bits - 1)) - 1,
            _ => return None,
        };
        // The value's `bits`-bit pattern (an unsigned value that fits the width).
        let pattern = (value as u128 & ((1u128 << bits) - 1)) as u64;
        Some(mlirIntegerAttrGet(element, pattern as i64))
    }
}

/// The single combine op of a reduce region (`combine(%a, %b)` returned as is).
fn single_combine(reduce: MlirOperation) -> Option<String> {
    let block = body(reduce, 0);
    let ops = block_ops(block);
    if ops.len() != 2 {
        return None;
    }
    let (combine, ret) = (ops[0], ops[1]);
    let args = block_args(block);
    let ins = operands(combine);
    let returns_it = match (operands(ret).first(), results(combine).first()) {
        (Some(returned), Some(combined)) => returned.ptr == combined.ptr,
        _ => false,
    };
    let takes_args = ins.len() == 2
        && args.len() == 2
        && ((ins[0].ptr == args[0].ptr && ins[1].ptr == args[1].ptr)
            || (ins[0].ptr == args[1].ptr && ins[1].ptr == args[0].ptr));
    (returns_it && takes_args).then(|| op_name(combine))
}

/// Rewrites one accumulation of `for_op`, returning whether it did.
fn rewrite_one(for_op: MlirOperation) -> bool {
    let block = body(for_op, 0);
    let args = block_args(block);
    let yield_op = terminator(block);
    let yielded = operands(yield_op);
    for (i, &value) in yielded.iter().enumerate() {
        // Block args: the induction variable, then one per yielded value (ODS: scf.for).
        let Some(&acc) = args.get(i + 1) else {
            break;
        };
        let Some(fold) = defining_op(value) else {
            continue;
        };
        let name = op_name(fold);
        let fold_ins = operands(fold);
        if fold_ins.len() != 2
            // SAFETY: `fold` is a live op (it defines a yielded value).
            || unsafe { mlirOperationGetBlock(fold).ptr != block.ptr }
            || !has_single_use(acc)
        {
            continue;
        }
        let reduced = if fold_ins[0].ptr == acc.ptr {
            fold_ins[1]
        } else if fold_ins[1].ptr == acc.ptr {
            fold_ins[0]
        } else {
            continue;
        };
        let Some(reduce) = defining_op(reduced) else {
            continue;
        };
        if op_name(reduce) != "tt.reduce"
            || operands(reduce).len() != 1
            || !has_single_use(reduced)
            || !has_single_use(value)
        {
            continue;
        }
        if single_combine(reduce).as_deref() != Some(name.as_str()) {
            continue;
        }
        let full = operands(reduce)[0];
        let full_type = value_type(full);
        let Some(identity) = identity(&name, element_type(full_type)) else {
            continue;
        };
        // SAFETY: every handle is live: `for_op`, its body `block` and terminator `yield_op`, the
        // single-use `fold` and `reduce` found above (erased once, after their last use), and the
        // new ops, each inserted into a block right after it is built. `identity` is a scalar
        // attribute of the reduced element type; scf.for has its bounds as operands 0..3 (ODS),
        // and `new_for` has one more result than `for_op`, the last one the new accumulator.
        unsafe {
            let loc = mlirOperationGetLocation(for_op);
            let outer = mlirOperationGetBlock(for_op);
            let fold_loc = mlirOperationGetLocation(fold);
            let acc_type = value_type(value);
            // The reduction that will run once after the loop.
            let reduce_after = mlirOperationClone(reduce);
            // The identity accumulator, in the reduced tensor's own layout.
            let dense = mlirDenseElementsAttrSplatGet(full_type, identity);
            let init = tritium_dialects::build::constant(loc, dense);
            mlirBlockInsertOwnedOperationBefore(outer, for_op, init);
            let mut inits: Vec<MlirValue> = operands(for_op)[3..].to_vec();
            inits.push(mlirOperationGetResult(init, 0));
            let new_for = rebuild_for(for_op, &inits);
            let full_arg = mlirBlockAddArgument(block, full_type, loc);
            // Elementwise accumulation inside the loop; the old accumulator passes through.
            let step = tritium_dialects::build::build(
                &name,
                fold_loc,
                &[full_arg, full],
                &[full_type],
                &[],
            );
            mlirBlockInsertOwnedOperationBefore(block, yield_op, step);
            let mut new_yield = yielded.clone();
            new_yield[i] = acc;
            new_yield.push(mlirOperationGetResult(step, 0));
            mlirOperationSetOperands(yield_op, new_yield.len() as isize, new_yield.as_ptr());
            erase(fold);
            erase(reduce);
            let count = results(for_op).len();
            mlirBlockInsertOwnedOperationAfter(outer, new_for, reduce_after);
            mlirOperationSetOperand(
                reduce_after,
                0,
                mlirOperationGetResult(new_for, count as isize),
            );
            let carried = mlirOperationGetResult(new_for, i as isize);
            let total = tritium_dialects::build::build(
                &name,
                fold_loc,
                &[carried, mlirOperationGetResult(reduce_after, 0)],
                &[acc_type],
                &[],
            );
            mlirBlockInsertOwnedOperationAfter(outer, reduce_after, total);
            for (index, old) in results(for_op).into_iter().enumerate() {
                let replacement = if index == i {
                    mlirOperationGetResult(total, 0)
                } else {
                    mlirOperationGetResult(new_for, index as isize)
                };
                mlirValueReplaceAllUsesOfWith(old, replacement);
            }
            erase(for_op);
        }
        return true;
    }
    false
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    loop {
        let loops: Vec<MlirOperation> = collect_ops(module.to_raw())
            .into_iter()
            .filter(|op| op_name(*op) == "scf.for")
            .collect();
        if !loops
            .into_iter()
            .any(|for_op| rewrite_one(for_op) || online_softmax::rewrite_one(for_op))
        {
            break;
        }
    }
    Ok(())
}
