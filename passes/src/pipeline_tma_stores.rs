//! The TMA-store part of `-tritongpu-pipeline` (sm_90), as Triton's pipeliner does it: a
//! `tt.descriptor_store` or `tt.descriptor_reduce` in an `scf.for` (in its body or under
//! `scf.if`s of it) through a loop-invariant TMA descriptor is staged in one shared buffer that
//! lives across the loop, so an iteration's store runs on while the next iterations compute and
//! is waited for only when the buffer is written again:
//!
//! * before the loop: `ttg.local_alloc` of a mutable buffer of the stored tile in the
//!   descriptor's `#ttg.nvmma_shared` layout;
//! * in place of the store: `ttng.async_tma_store_wait {pendings = 0}` (the previous store has
//!   read the buffer), `ttg.local_store` of the value, `ttng.fence_async_shared` and
//!   `ttng.async_tma_copy_local_to_global` (`ttng.async_tma_reduce` for a reduction);
//! * after the loop: `ttng.async_tma_store_wait {pendings = 0}` and `ttg.local_dealloc`.
//!
//! A loop of one stage (`num-stages` below 2, `tt.num_stages = 1`) keeps its stores.
//!
//! Left as they are, `-triton-nvidia-tma-lowering` waits for each store right after issuing it:
//! a persistent matmul (tutorial 09's) stalled on every tile's 64 KiB epilogue store before its
//! next tile's first dot.

use crate::ir_util::*;
use crate::pipeline_tma::{enabled, lowered_to_tma, outside};
use crate::tma::dropped_unit_dims;
use crate::tma_lowering::{At, block_of, erase, fence_and_store, store_wait, tma_layout};
use mlir_sys::*;
use tritium_dialects::build::build;

/// Pipelines the descriptor stores and reductions in the loops of `module` (sm_90 modules only)
/// that pipelining takes: two stages or more (a loop's schedule, its `tt.num_stages` or
/// `default`).
pub(crate) fn run(module: MlirOperation, default: i64) {
    if !enabled(module) {
        return;
    }
    for op in collect_ops(module) {
        let name = op_name(op);
        if matches!(
            name.as_str(),
            "tt.descriptor_store" | "tt.descriptor_reduce"
        ) && let Some(for_op) = enclosing_loop(op)
            && crate::schedule::loop_stages(for_op, default).is_some()
        {
            pipeline_store(op, for_op);
        }
    }
}

/// The `scf.for` whose body holds `op`, directly or under `scf.if`s only.
fn enclosing_loop(op: MlirOperation) -> Option<MlirOperation> {
    // SAFETY: parent queries on live ops.
    let mut at = unsafe { mlirOperationGetParentOperation(op) };
    while !at.ptr.is_null() {
        match op_name(at).as_str() {
            "scf.for" => return Some(at),
            "scf.if" => {}
            _ => return None,
        }
        // SAFETY: as above.
        at = unsafe { mlirOperationGetParentOperation(at) };
    }
    None
}

fn pipeline_store(op: MlirOperation, for_op: MlirOperation) {
    let ins = operands(op);
    let [desc, value, ..] = ins[..] else {
        return;
    };
    let desc_type = value_type(desc);
    let (Some(block), Some(encoding)) = (block_of(desc_type), tma_layout(desc_type)) else {
        return;
    };
    let tile = shape(value_type(value));
    if !outside(desc, for_op)
        || !lowered_to_tma(desc, block)
        || dropped_unit_dims(&shape(block), &tile).is_none()
    {
        return;
    }
    let before_loop = At::new(for_op);
    let buffer_type = before_loop.memdesc(&tile, element_type(block), &encoding, true);
    let buffer = before_loop.insert(build(
        "ttg.local_alloc",
        before_loop.loc,
        &[],
        &[buffer_type],
        &[],
    ));

    let at = At::new(op);
    store_wait(&at);
    at.insert_op(build("ttg.local_store", at.loc, &[value, buffer], &[], &[]));
    fence_and_store(&at, op, buffer);
    erase(op);

    // SAFETY: an scf.for is never its block's last op (the terminator follows it).
    let after = unsafe { mlirOperationGetNextInBlock(for_op) };
    let after_loop = At::new(after);
    store_wait(&after_loop);
    after_loop.insert_op(build(
        "ttg.local_dealloc",
        after_loop.loc,
        &[buffer],
        &[],
        &[],
    ));
}
