//! `-tritium-early-loads`: a global `tt.load` that a kernel's source places after a reduction or
//! scan it does not depend on (a norm's weights, read after the row statistics) is issued before
//! it.
//!
//! A warp waits for a load only where the value is used, but it issues the load only where the
//! program says: after a reduction, which waits for the row's own loads and crosses the warps
//! through shared memory and barriers. Each program then makes two trips to memory one after the
//! other, and a block holds its registers and its slot on the SM for both, so an SM keeps fewer
//! bytes in flight than the memory needs where a byte moves quickly (an H200's memory; an H100
//! with fewer blocks an SM). Issued early, the second trip overlaps the first and the reduction.
//! Triton issues such loads where the source puts them.
//!
//! Only the function's entry block is rewritten. A load moves above no op that may write memory
//! or whose effects are unknown (stores, atomics, barriers, calls, prints, asserts): it reads
//! what it read before. Nor does it move above a loop or `scf.if` (what they hold in registers is
//! not counted), or a reduction it depends on (one whose result feeds its mask). It goes right
//! before the last reduction or scan above it that it does not need, not above all of them, with
//! the side-effect-free ops in the block that compute its operands (pointers, mask, other) and
//! lie below that point, in their order; and only where the data a thread then holds across that
//! reduction stays within [`MAX_DATA_REGISTERS_ACROSS`] registers.

use crate::combine_tensor_select_and_if::ancestor_in;
use crate::ir_util::*;
use crate::prefetch_loop_loads::registers_per_thread;
use crate::ttir::util::{body, may_write, num_regions};
use mlir_sys::*;
use std::collections::HashSet;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritium-early-loads",
    summary: "Issue global loads placed after a reduction they do not depend on before it",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt()],
    run,
};

/// The most 32-bit registers per thread of data (loaded tensors and float tensors) a thread may
/// hold across the reduction a load moves above, the load's own included: three quarters of
/// the 32 a thread has where 64 warps fill an SM. An rmsnorm's row in f32 and its weights in
/// bf16 at 8 warps over 4096 columns (16 + 8) fit, and ptxas keeps it to 39 registers; a
/// layernorm's centred row with both weights and bias (16 + 8 + 8) does not, which took it
/// from 40 registers to 48 (one block an SM fewer) — with its weights alone it stays at 40.
const MAX_DATA_REGISTERS_ACROSS: u64 = 24;

fn run(module: OperationRef, _options: &Options) -> PassResult {
    for func in collect_ops(module.to_raw()) {
        if op_name(func) == "tt.func" && num_regions(func) == 1 {
            hoist_in(body(func, 0));
        }
    }
    Ok(())
}

/// Whether a load stops below `op`: `op` may write memory or has unknown effects, or is a
/// region op other than a reduction or scan (a loop or `scf.if`: what it keeps in registers is
/// not counted here, so nothing is held across it).
fn fences(op: MlirOperation) -> bool {
    may_write(op) || (num_regions(op) > 0 && !waits(op))
}

/// Whether `op` is a reduction or scan: what a load is worth issuing before.
fn waits(op: MlirOperation) -> bool {
    matches!(op_name(op).as_str(), "tt.reduce" | "tt.scan")
}

/// A load the pass may move: a global, non-volatile `tt.load` of a tensor of pointers (not a
/// block pointer), whose result's registers per thread are known.
fn candidate_registers(op: MlirOperation) -> Option<u64> {
    if op_name(op) != "tt.load" || bool_attr(op, "isVolatile") == Some(true) {
        return None;
    }
    let ptr = *operands(op).first()?;
    let ty = value_type(ptr);
    // SAFETY: type query on a live type.
    if !is_tensor(ty) || !unsafe { tritium_dialects::ffi::tritiumTypeIsPointer(element_type(ty)) } {
        return None;
    }
    registers_per_thread(value_type(*results(op).first()?))
}

fn hoist_in(block: MlirBlock) {
    for load in block_ops(block) {
        let Some(registers) = candidate_registers(load) else {
            continue;
        };
        let ops = block_ops(block);
        let Some(at) = ops.iter().position(|o| o.ptr == load.ptr) else {
            continue;
        };
        // Nothing moves above the last op before the load that may write memory, nor above a
        // loop or `scf.if`.
        let lowest = ops[..at]
            .iter()
            .rposition(|&o| fences(o))
            .map_or(0, |f| f + 1);
        // The ops between there and the load that the load depends on, through operands (its
        // own, and for a reduction it needs, those its body reads from outside).
        let between: HashSet<usize> = ops[lowest..at].iter().map(|o| o.ptr as usize).collect();
        let mut needed: HashSet<usize> = HashSet::new();
        let mut pending = vec![load];
        while let Some(op) = pending.pop() {
            for value in collect_ops(op).into_iter().flat_map(operands) {
                if let Some(def) =
                    defining_op(value).filter(|d| between.contains(&(d.ptr as usize)))
                    && needed.insert(def.ptr as usize)
                {
                    pending.push(def);
                }
            }
        }
        let is_needed = |op: MlirOperation| needed.contains(&(op.ptr as usize));
        // Not above the last reduction or scan it needs (the only region ops above it).
        let start = (lowest..at)
            .rev()
            .find(|&i| is_needed(ops[i]) && waits(ops[i]))
            .map_or(lowest, |i| i + 1);
        // It goes right before the last reduction or scan above it that it does not need: one
        // such wait overlapped is most of the gain, and each more one keeps the data longer.
        let Some(to) = (start..at)
            .rev()
            .find(|&i| !is_needed(ops[i]) && waits(ops[i]))
        else {
            continue;
        };
        if data_registers_across(block, &ops, to) + registers > MAX_DATA_REGISTERS_ACROSS {
            continue;
        }
        let moving = ops[to..at].iter().copied().filter(|&o| is_needed(o));
        for op in moving.chain(std::iter::once(load)) {
            // SAFETY: `op` and `ops[to]` are live ops of `block`, `ops[to]` is not moved; what
            // `op` depends on lies above `to` or moved ahead of it, in order, and `op` moves up,
            // so its users stay below it.
            unsafe { mlirOperationMoveBefore(op, ops[to]) };
        }
    }
}

/// Registers per thread of the data a thread holds across `ops[to]`: the tensors of floats, and
/// the loaded tensors, defined above it in `block` and used below it (index, mask and pointer
/// tensors are left out: they are rebuilt from a few scalars where needed).
fn data_registers_across(block: MlirBlock, ops: &[MlirOperation], to: usize) -> u64 {
    let below: HashSet<usize> = ops[to + 1..].iter().map(|o| o.ptr as usize).collect();
    ops[..to]
        .iter()
        .flat_map(|&op| results(op).into_iter().map(move |r| (op, r)))
        .filter(|&(op, value)| {
            let ty = value_type(value);
            // SAFETY: type query on a live type.
            let data = is_tensor(ty)
                && (op_name(op) == "tt.load" || unsafe { mlirTypeIsAFloat(element_type(ty)) });
            data && users(value).into_iter().any(|user| {
                ancestor_in(block, user).is_some_and(|o| below.contains(&(o.ptr as usize)))
            })
        })
        .filter_map(|(_, value)| registers_per_thread(value_type(value)))
        .sum()
}
