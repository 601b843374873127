//! `-triton-nvidia-gpu-fence-insertion`: a `ttng.fence_async_shared` before every
//! `ttng.warp_group_dot` that reads a shared-memory operand written through the generic proxy
//! (`ttg.local_alloc` of a tensor, or `ttg.local_store`). wgmma reads shared memory through the
//! async proxy, which does not see generic-proxy writes without this fence.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{OptionKind, Options, PassDef, PassOption, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "triton-nvidia-gpu-fence-insertion",
    summary: "Insert fence.proxy.async before wgmma reads of shared memory written by threads",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "compute-capability",
        description: "Compute capability (times ten); fences are inserted for 90 and above",
        kind: OptionKind::Int,
        default: "90",
    }],
    dependent_dialects: || vec![dialects::ttng()],
    run,
};

/// Whether a shared operand's buffer is written by threads: allocated from a tensor, or the
/// target of a `ttg.local_store` (through the memdesc views that alias it).
fn written_by_threads(memdesc: MlirValue) -> bool {
    let Some(def) = defining_op(memdesc) else {
        return true;
    };
    match op_name(def).as_str() {
        "ttg.local_alloc" => {
            if !operands(def).is_empty() {
                return true;
            }
            let mut stored = false;
            // SAFETY: use-list traversal of a live value.
            unsafe {
                let mut user = mlirValueGetFirstUse(memdesc);
                while !user.ptr.is_null() {
                    stored |= op_name(mlirOpOperandGetOwner(user)) == "ttg.local_store";
                    user = mlirOpOperandGetNextUse(user);
                }
            }
            stored
        }
        "ttg.memdesc_index"
        | "ttg.memdesc_subslice"
        | "ttg.memdesc_trans"
        | "ttg.memdesc_reshape" => operands(def)
            .first()
            .is_none_or(|&source| written_by_threads(source)),
        _ => true,
    }
}

fn run(module: OperationRef, options: &Options) -> PassResult {
    if options.int("compute-capability") < 90 {
        return Ok(());
    }
    let module = module.to_raw();
    let ctx = context_of(module);
    let ops = collect_ops(module);
    // Ops right after an existing fence need no second one.
    let fenced: std::collections::HashSet<usize> = ops
        .iter()
        .filter(|op| op_name(**op) == "ttng.fence_async_shared")
        // SAFETY: next-op query on a live op.
        .map(|op| unsafe { mlirOperationGetNextInBlock(*op) }.ptr as usize)
        .collect();
    for dot in ops {
        if op_name(dot) != "ttng.warp_group_dot" {
            continue;
        }
        let ins = operands(dot);
        // SAFETY: type queries on live types.
        let shared: Vec<MlirValue> = ins
            .iter()
            .take(2)
            .copied()
            .filter(|&v| unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(value_type(v)) })
            .collect();
        if !shared.into_iter().any(written_by_threads) {
            continue;
        }
        if fenced.contains(&(dot.ptr as usize)) {
            continue;
        }
        // SAFETY: live handles of one context; the block takes ownership of the new fence.
        unsafe {
            let fence = tritium_dialects::build::build(
                "ttng.fence_async_shared",
                mlirOperationGetLocation(dot),
                &[],
                &[],
                &[("bCluster", mlirBoolAttrGet(ctx, 0))],
            );
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(dot), dot, fence);
        }
    }
    Ok(())
}
