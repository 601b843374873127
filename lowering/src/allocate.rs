//! `-allocate-shared-memory`: places every shared-memory buffer of a TTGIR module and records
//! the total on the module (`ttg.shared`).
//!
//! Buffers are the scratch each op needs while it is lowered (layout conversions through shared
//! memory, cross-warp reductions and scans, atomics' broadcasts, gathers, histograms, dot
//! staging) and the `ttg.local_alloc` buffers the lowering materializes. Sizes come from the same
//! per-op functions the lowering reserves with ([`crate::registry::scratch_of`]), computed from
//! types and layouts alone, so they always agree without lowering anything. Each lives over an
//! interval of the ops in program order: scratch only during its op, a local_alloc from its
//! definition to its last use — or to the end of a loop that uses it but does not contain the
//! allocation (the loop's back edge reads it again). Buffers are placed first-fit, largest
//! first, at 16-byte aligned offsets (1024 for the swizzle atoms of `#ttg.nvmma_shared`) that do
//! not overlap any buffer live at the same time;
//! offsets go on the ops as `allocation.offset`, which the lowering honors.

use crate::registry::scratch_of;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::ffi::str_ref;
use tritium_dialects::melior::ir::{Location, OperationRef};
use tritium_dialects::pass::{Options, PassDef, PassResult, fail, no_dialects};
use tritium_passes::ir_util::*;

pub static PASS: PassDef = PassDef {
    argument: "allocate-shared-memory",
    summary: "Assign liveness-based shared-memory offsets to scratch and local_alloc buffers",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: no_dialects,
    run,
};

/// One buffer to place: the op that owns it, its size, and its live interval.
#[derive(Clone, Debug)]
pub struct Buffer {
    pub size: u64,
    /// Byte alignment of its offset (a power of two, at least 16).
    pub align: u64,
    pub start: usize,
    pub end: usize,
}

/// First-fit placement, largest buffers first; returns offsets (in input order) and the total.
pub fn place(buffers: &[Buffer]) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(buffers[i].size), buffers[i].start));
    let mut offsets = vec![0u64; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    for &i in &order {
        let b = &buffers[i];
        let mut conflicts: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&j| buffers[j].start <= b.end && b.start <= buffers[j].end)
            .map(|&j| (offsets[j], offsets[j] + buffers[j].size))
            .collect();
        conflicts.sort_unstable();
        let mut offset = 0u64;
        for (lo, hi) in conflicts {
            if offset + b.size <= lo {
                break;
            }
            offset = offset.max(hi.div_ceil(b.align) * b.align);
        }
        offsets[i] = offset;
        placed.push(i);
    }
    let total = buffers
        .iter()
        .zip(&offsets)
        .map(|(b, o)| o + b.size)
        .max()
        .unwrap_or(0);
    (offsets, total)
}

fn set_i32(op: MlirOperation, name: &str, value: u64) {
    // SAFETY: `op` is a live op of the module; the type and attribute are made in its context,
    // and MLIR copies `name` into the context.
    unsafe {
        let i32_type = mlirIntegerTypeGet(context_of(op), 32);
        mlirOperationSetDiscardableAttributeByName(
            op,
            str_ref(name),
            mlirIntegerAttrGet(i32_type, value as i64),
        );
    }
}

fn run(module_ref: OperationRef, _options: &Options) -> PassResult {
    let module = module_ref.to_raw();
    // Program order positions of every op (pre-order), for live intervals.
    let ops = collect_ops(module);
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| (op.ptr as usize, i))
        .collect();
    let mut owners = Vec::new();
    let mut buffers = Vec::new();
    for op in &ops {
        let Some(scratch) = scratch_of(&op_name(*op)) else {
            continue;
        };
        let bytes = scratch(*op).map_err(|error| {
            // SAFETY: the op (or the module) is live; its location is uniqued in the context.
            let location =
                unsafe { Location::from_raw(mlirOperationGetLocation(error.op.unwrap_or(*op))) };
            fail(location, &error.message)
        })?;
        if bytes == 0 {
            continue;
        }
        // Every op of `ops` has a position.
        let at = position[&(op.ptr as usize)];
        let (start, end) = if op_name(*op) == "ttg.local_alloc" {
            live_range(*op, at, &position)
        } else {
            (at, at)
        };
        owners.push(*op);
        buffers.push(Buffer {
            size: bytes,
            align: crate::ops::local::buffer_alignment(*op),
            start,
            end,
        });
    }
    let (offsets, total) = place(&buffers);
    for (op, offset) in owners.iter().zip(offsets) {
        set_i32(*op, "allocation.offset", offset);
    }
    set_i32(module, "ttg.shared", total);
    Ok(())
}

/// The program-order interval in which the buffer of `alloc` (at `start`) is live: to its last
/// use, extended to the end of every loop around a use that does not also contain the
/// allocation. Uses go through views and through control flow: a buffer carried by an
/// `scf.for` (as an init or a yielded value) is read by the loop body through its block
/// argument and after the loop through its result, and one yielded back into the loop is live
/// over the whole loop (it is read at the top of the next iteration, before its allocation).
fn live_range(
    alloc: MlirOperation,
    start: usize,
    position: &HashMap<usize, usize>,
) -> (usize, usize) {
    let mut alloc_ancestors = Vec::new();
    // SAFETY: parent traversal of live ops; the walk stops at the null parent of the top op.
    unsafe {
        let mut parent = mlirOperationGetParentOperation(alloc);
        while !parent.ptr.is_null() {
            alloc_ancestors.push(parent.ptr as usize);
            parent = mlirOperationGetParentOperation(parent);
        }
    }
    let mut end = start;
    let mut first = start;
    let loop_end = |looped: MlirOperation| {
        // `collect_ops` includes the loop itself: at least one op.
        position
            .get(&(looped.ptr as usize))
            .copied()
            .unwrap_or(start)
            + collect_ops(looped).len()
            - 1
    };
    // SAFETY: use-list and parent traversal of live ops; the alloc has one result, and views
    // (memdesc_index/subslice/trans/reshape, a wgmma wait's pass-through) one per operand; an
    // scf.for has one result and one body argument (after the induction variable) per init
    // (operands after the bounds), an scf.yield one operand per result of its parent.
    unsafe {
        // The buffer's uses, and those of every view of it.
        let mut values = vec![mlirOperationGetResult(alloc, 0)];
        let mut seen = std::collections::HashSet::new();
        let mut users = Vec::new();
        while let Some(value) = values.pop() {
            if !seen.insert(value.ptr as usize) {
                continue;
            }
            for (owner, number) in uses(value) {
                let n = number as isize;
                users.push(owner);
                match op_name(owner).as_str() {
                    "ttg.memdesc_index"
                    | "ttg.memdesc_subslice"
                    | "ttg.memdesc_trans"
                    | "ttg.memdesc_reshape" => values.push(mlirOperationGetResult(owner, 0)),
                    "ttng.warp_group_dot_wait" if n < mlirOperationGetNumResults(owner) => {
                        values.push(mlirOperationGetResult(owner, n));
                    }
                    "scf.for" if n >= 3 => {
                        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(owner, 0));
                        values.push(mlirBlockGetArgument(body, n - 2));
                        values.push(mlirOperationGetResult(owner, n - 3));
                        end = end.max(loop_end(owner));
                    }
                    "scf.yield" => {
                        let parent = mlirOperationGetParentOperation(owner);
                        match op_name(parent).as_str() {
                            "scf.for" => {
                                let body = mlirOperationGetBlock(owner);
                                values.push(mlirBlockGetArgument(body, n + 1));
                                values.push(mlirOperationGetResult(parent, n));
                                first = first.min(
                                    position
                                        .get(&(parent.ptr as usize))
                                        .copied()
                                        .unwrap_or(start),
                                );
                                end = end.max(loop_end(parent));
                            }
                            "scf.if" => values.push(mlirOperationGetResult(parent, n)),
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
        }
        for owner in users {
            end = end.max(
                position
                    .get(&(owner.ptr as usize))
                    .copied()
                    .unwrap_or(start),
            );
            let mut parent = mlirOperationGetParentOperation(owner);
            while !parent.ptr.is_null() && !alloc_ancestors.contains(&(parent.ptr as usize)) {
                if matches!(op_name(parent).as_str(), "scf.for" | "scf.while") {
                    let first = position
                        .get(&(parent.ptr as usize))
                        .copied()
                        .unwrap_or(start);
                    // `collect_ops` includes `parent` itself: at least one op.
                    end = end.max(first + collect_ops(parent).len() - 1);
                }
                parent = mlirOperationGetParentOperation(parent);
            }
        }
    }
    (first, end)
}

#[cfg(test)]
mod tests {
    use super::{Buffer, place};

    #[test]
    fn buffers_live_at_the_same_time_do_not_overlap() {
        let buffers = vec![
            Buffer {
                align: 16,
                size: 100,
                start: 0,
                end: 10,
            },
            Buffer {
                align: 16,
                size: 64,
                start: 5,
                end: 5,
            },
            Buffer {
                align: 16,
                size: 64,
                start: 20,
                end: 20,
            },
        ];
        let (offsets, total) = place(&buffers);
        assert_eq!(offsets[0], 0);
        assert_eq!(
            offsets[1], 112,
            "live with buffer 0: placed after it, 16-byte aligned"
        );
        assert_eq!(offsets[2], 0, "dead buffer 0's space is reused");
        assert_eq!(total, 176);
    }

    #[test]
    fn scratch_of_different_ops_shares_offset_zero() {
        let buffers: Vec<Buffer> = (0..5)
            .map(|i| Buffer {
                align: 16,
                size: 32 * (i + 1),
                start: i as usize,
                end: i as usize,
            })
            .collect();
        let (offsets, total) = place(&buffers);
        assert!(offsets.iter().all(|&o| o == 0));
        assert_eq!(total, 160);
    }
}
