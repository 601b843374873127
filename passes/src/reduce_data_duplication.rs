//! `-tritongpu-reduce-data-duplication`: a conversion from a distributed layout into a
//! `#ttg.dot_op` layout duplicates data across threads (each thread needs whole rows of A / columns
//! of B). Route it explicitly through shared memory once: `ttg.local_alloc` of the source (in a
//! `#ttg.swizzled_shared` layout following the source's order, swizzled so that `ldmatrix` reads
//! an mma operand without bank conflicts) then `ttg.local_load` into the dot-operand layout. Conversions that keep every element in its thread (an mma accumulator
//! read as a wgmma register operand) are left to the lowering, which only renames registers.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::ffi::ttg;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::{Encoding, SwizzledSharedEncoding};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-reduce-data-duplication",
    summary: "Route conversions into dot-operand layouts through shared memory (local_alloc + local_load)",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// Whether two layouts of a shape give every lane and warp the same elements (the conversion
/// only permutes registers).
fn same_threads(src: &Encoding, dst: &Option<Encoding>, dims: &[i64]) -> bool {
    use tritium_layout::linear::{LANE, WARP};
    let Some(dst) = dst else {
        return false;
    };
    let dims: Vec<u32> = dims.iter().map(|&d| d as u32).collect();
    match (src.to_linear(&dims), dst.to_linear(&dims)) {
        (Ok(a), Ok(b)) => a.bases(LANE) == b.bases(LANE) && a.bases(WARP) == b.bases(WARP),
        _ => false,
    }
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    for op in collect_ops(module.to_raw()) {
        if op_name(op) != "ttg.convert_layout" {
            continue;
        }
        let source = operands(op)[0];
        let result = results(op)[0];
        let (source_type, result_type) = (value_type(source), value_type(result));
        if !matches!(encoding_of(result_type), Some(Encoding::DotOperand(_))) {
            continue;
        }
        let Some(src) = encoding_of(source_type) else {
            continue;
        };
        if !src.is_distributed() {
            continue;
        }
        let dims = shape(source_type);
        if same_threads(&src, &encoding_of(result_type), &dims) {
            // Each thread already holds what it needs (an mma accumulator read as the A operand
            // of the next wgmma): the lowering renames registers, no shared memory needed.
            continue;
        }
        let ctx = context_of(op);
        let order = src.order(dims.len());
        // Read back with ldmatrix into an mma operand: swizzled against bank conflicts.
        let buffer = match encoding_of(result_type) {
            Some(Encoding::DotOperand(operand))
                if matches!(&*operand.parent, Encoding::NvidiaMma(_)) =>
            {
                SwizzledSharedEncoding::for_mma_operand(
                    &operand,
                    &dims,
                    order,
                    crate::tma_lowering::elem_bits(element_type(source_type)),
                )
            }
            _ => SwizzledSharedEncoding::new(1, 1, 1, order),
        };
        let shared = encoding_to_attr(ctx, &Encoding::SwizzledShared(buffer));
        // SAFETY: the element type, `shared` and the memory space are live handles of `ctx`; `dims`
        // lives through the call, which copies it.
        let memdesc = unsafe {
            ttg::tritiumMemDescTypeGet(
                element_type(source_type),
                dims.len() as isize,
                dims.as_ptr(),
                shared,
                ttg::tritiumSharedMemorySpaceGet(ctx),
                false,
                dims.len() as isize,
                dims.as_ptr(),
            )
        };
        // SAFETY: `op` is a live convert_layout in a block; the new ops are inserted before it, its
        // only result is redirected to the load, and it is not used after it is destroyed.
        unsafe {
            let loc = mlirOperationGetLocation(op);
            let block = mlirOperationGetBlock(op);
            let alloc =
                tritium_dialects::build::build("ttg.local_alloc", loc, &[source], &[memdesc], &[]);
            mlirBlockInsertOwnedOperationBefore(block, op, alloc);
            let load = tritium_dialects::build::build(
                "ttg.local_load",
                loc,
                &[mlirOperationGetResult(alloc, 0)],
                &[result_type],
                &[],
            );
            mlirBlockInsertOwnedOperationBefore(block, op, load);
            mlirValueReplaceAllUsesOfWith(result, mlirOperationGetResult(load, 0));
            mlirOperationDestroy(op);
        }
    }
    Ok(())
}
