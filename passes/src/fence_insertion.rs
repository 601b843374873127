//! `-triton-nvidia-gpu-fence-insertion`: a `ttng.fence_async_shared` before every
//! `ttng.warp_group_dot` that reads a shared-memory operand written through the generic proxy
//! (`ttg.local_alloc` of a tensor, or `ttg.local_store`). wgmma reads shared memory through the
//! async proxy, which does not see generic-proxy writes without this fence. The fence goes
//! before the outermost enclosing loop that neither defines those buffers nor writes shared
//! memory through the generic proxy (one fence then covers every iteration).

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
        "ttg.local_alloc" => !operands(def).is_empty() || stored_into(results(def)[0]),
        "ttg.memdesc_index"
        | "ttg.memdesc_subslice"
        | "ttg.memdesc_trans"
        | "ttg.memdesc_reshape" => operands(def)
            .first()
            .is_none_or(|&source| written_by_threads(source)),
        _ => true,
    }
}

/// Whether a `ttg.local_store` writes `memdesc` or a view of it (a ring's slot through
/// `ttg.memdesc_index`, as a pipelined loop stores a register-staged operand).
fn stored_into(memdesc: MlirValue) -> bool {
    crate::ir_util::users(memdesc)
        .into_iter()
        .any(|owner| match op_name(owner).as_str() {
            "ttg.local_store" => true,
            "ttg.memdesc_index"
            | "ttg.memdesc_subslice"
            | "ttg.memdesc_trans"
            | "ttg.memdesc_reshape" => stored_into(results(owner)[0]),
            _ => false,
        })
}

fn run(module: OperationRef, options: &Options) -> PassResult {
    if options.int("compute-capability") < 90 {
        return Ok(());
    }
    let module = module.to_raw();
    let ctx = context_of(module);
    let ops = collect_ops(module);
    // Ops right after a fence (existing, or inserted for an earlier dot) need no second one.
    let mut fenced: std::collections::HashSet<usize> = ops
        .iter()
        .filter(|op| op_name(**op) == "ttng.fence_async_shared")
        // SAFETY: next-op query on a live op.
        .map(|op| unsafe { mlirOperationGetNextInBlock(*op) }.ptr as usize)
        .collect();
    for dot in ops {
        if op_name(dot) != "ttng.warp_group_dot" {
            continue;
        }
        let shared = shared_operands(dot);
        if !shared.iter().any(|&v| written_by_threads(v)) {
            continue;
        }
        let at = hoisted_position(dot, &shared);
        if !fenced.insert(at.ptr as usize) {
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
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, fence);
        }
    }
    Ok(())
}

fn shared_operands(dot: MlirOperation) -> Vec<MlirValue> {
    operands(dot)
        .into_iter()
        .take(2)
        // SAFETY: type queries on live types.
        .filter(|&v| unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(value_type(v)) })
        .collect()
}

/// Where the fence for `dot` goes: before the dot, or before the outermost enclosing loop
/// that defines none of the buffers the threads wrote and writes no shared memory through
/// the generic proxy itself (so one fence before the loop orders every write the dot can see,
/// as Triton hoists it: attention's Q, staged once before the loop).
fn hoisted_position(dot: MlirOperation, shared: &[MlirValue]) -> MlirOperation {
    let written: Vec<MlirValue> = shared
        .iter()
        .copied()
        .filter(|&v| written_by_threads(v))
        .collect();
    let mut at = dot;
    loop {
        // SAFETY: parent query on a live op.
        let parent = unsafe { mlirOperationGetParentOperation(at) };
        if parent.ptr.is_null() || !matches!(op_name(parent).as_str(), "scf.for" | "scf.while") {
            return at;
        }
        let buffers_outside = written
            .iter()
            .all(|&v| buffer_root(v).is_some_and(|root| !is_nested_in(root, parent)));
        let writes_inside = collect_ops(parent).into_iter().any(|op| {
            let name = op_name(op);
            name == "ttg.local_store" || (name == "ttg.local_alloc" && !operands(op).is_empty())
        });
        if !buffers_outside || writes_inside {
            return at;
        }
        at = parent;
    }
}

/// The op defining the buffer a memdesc views (through index, subslice, trans and reshape).
fn buffer_root(memdesc: MlirValue) -> Option<MlirOperation> {
    let def = defining_op(memdesc)?;
    match op_name(def).as_str() {
        "ttg.memdesc_index"
        | "ttg.memdesc_subslice"
        | "ttg.memdesc_trans"
        | "ttg.memdesc_reshape" => buffer_root(*operands(def).first()?),
        _ => Some(def),
    }
}

/// Whether `op` is nested (at any depth) in `ancestor`.
fn is_nested_in(op: MlirOperation, ancestor: MlirOperation) -> bool {
    // SAFETY: parent traversal of live ops, ending at the null parent of the top op.
    unsafe {
        let mut parent = mlirOperationGetParentOperation(op);
        while !parent.ptr.is_null() {
            if parent.ptr == ancestor.ptr {
                return true;
            }
            parent = mlirOperationGetParentOperation(parent);
        }
        false
    }
}
