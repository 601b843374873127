//! `-tritongpu-optimize-dot-operands`: a transposition feeding a wgmma operand is done by the
//! shared-memory layout instead of in registers. `ttg.local_alloc(tt.trans(x))` read only by
//! `ttng.warp_group_dot`s becomes `ttg.memdesc_trans(ttg.local_alloc(x))`: `x` is staged as its
//! registers hold it, in the `#ttg.nvmma_shared` layout accelerate-matmul would pick for it
//! (widest swizzle, K-major for 8- and 32-bit types), and the dot reads the transposed view
//! (`transposed` flipped). No register transpose goes through shared memory, and the staging
//! store stays contiguous. This is attention's `tl.dot(q, tl.trans(k))`.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::{Encoding, NvmmaSharedEncoding};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-optimize-dot-operands",
    summary: "Fold transpositions of wgmma operands into their shared-memory layout",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// Whether a wgmma reads `buffer` as operand A (else B).
fn is_a_operand(buffer: MlirValue) -> bool {
    uses(buffer).first().is_some_and(|&(_, number)| number == 0)
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let ctx = context_of(module);
    for alloc in collect_ops(module) {
        if op_name(alloc) != "ttg.local_alloc" {
            continue;
        }
        let (Some(&source), Some(&buffer)) = (operands(alloc).first(), results(alloc).first())
        else {
            continue;
        };
        let Some(trans) = defining_op(source).filter(|t| op_name(*t) == "tt.trans") else {
            continue;
        };
        let Some(&x) = operands(trans).first() else {
            continue;
        };
        let buffer_type = value_type(buffer);
        let Some(Encoding::NvmmaShared(shared)) = memdesc_encoding_of(buffer_type) else {
            continue;
        };
        // The buffer holds the transposed tensor (a memdesc is not a shaped type).
        let dims = shape(value_type(source));
        let order = trans_order(trans);
        if dims.len() != 2 || order != [1, 0] || !only_used_by(buffer, "ttng.warp_group_dot") {
            continue;
        }
        // `x` already staged for another wgmma (attention backward's qT read by two dots, once
        // transposed): the dot reads the flipped view of that buffer, and `x` is staged once.
        if shared.element_bit_width == 16
            && let Some((staged, layout)) = staged_elsewhere(x, alloc)
        {
            let view_layout = NvmmaSharedEncoding {
                transposed: !layout.transposed,
                ..layout
            };
            // SAFETY: live handles of one context; the view is inserted where the old alloc
            // was (after `staged`, which precedes it in the block), takes its uses, and the old
            // alloc and the unused transpose are destroyed.
            unsafe {
                let view = transposed_view(ctx, alloc, staged, &dims, &view_layout);
                mlirValueReplaceAllUsesOfWith(buffer, view);
                mlirOperationDestroy(alloc);
                if !has_uses(source) {
                    mlirOperationDestroy(trans);
                    erase_unused_conversions(x);
                }
            }
            continue;
        }
        // `x` is the operand with its dims swapped: stage it in the layout its own registers
        // prefer (as accelerate-matmul picks one, its K dim being the other one), and let the
        // dot read the flipped view of that.
        let x_dims = shape(value_type(x));
        let k_dim = if is_a_operand(buffer) { 0 } else { 1 };
        let bits = shared.element_bit_width;
        let Some(staged_layout) = crate::accelerate_matmul::nvmma_layout(
            [x_dims[0], x_dims[1]],
            bits,
            k_dim,
            crate::accelerate_matmul::fastest_dim(value_type(x)),
        ) else {
            continue;
        };
        let view_layout = NvmmaSharedEncoding {
            transposed: !staged_layout.transposed,
            ..staged_layout.clone()
        };
        let flipped = staged_layout;
        // SAFETY: live handles of one context; the new ops are inserted where the old alloc was
        // (after `x` is defined, since the transpose used it), the old alloc's uses move to the
        // view and it is destroyed; the transpose goes once unused.
        unsafe {
            let space = tritium_dialects::ffi::ttg::tritiumSharedMemorySpaceGet(ctx);
            let staged_type = tritium_dialects::ffi::ttg::tritiumMemDescTypeGet(
                element_type(value_type(x)),
                x_dims.len() as isize,
                x_dims.as_ptr(),
                encoding_to_attr(ctx, &Encoding::NvmmaShared(flipped)),
                space,
                false,
                x_dims.len() as isize,
                x_dims.as_ptr(),
            );
            let staged = tritium_dialects::build::build(
                "ttg.local_alloc",
                mlirOperationGetLocation(alloc),
                &[x],
                &[staged_type],
                &[],
            );
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(alloc), alloc, staged);
            let view = transposed_view(
                ctx,
                alloc,
                mlirOperationGetResult(staged, 0),
                &dims,
                &view_layout,
            );
            mlirValueReplaceAllUsesOfWith(buffer, view);
            mlirOperationDestroy(alloc);
            if !has_uses(source) {
                mlirOperationDestroy(trans);
            }
        }
    }
    Ok(())
}

/// An immutable `#ttg.nvmma_shared` buffer of `x`'s values (`x` itself or a layout conversion of
/// it), read only by wgmmas and defined before `before` in its block: the buffer and its layout.
fn staged_elsewhere(
    x: MlirValue,
    before: MlirOperation,
) -> Option<(MlirValue, NvmmaSharedEncoding)> {
    let mut root = x;
    while let Some(def) = defining_op(root).filter(|d| op_name(*d) == "ttg.convert_layout") {
        root = *operands(def).first()?;
    }
    // SAFETY: the block and use lists of live values and ops are only read.
    unsafe {
        let block = mlirOperationGetBlock(before);
        let mut sources = vec![root];
        let mut i = 0;
        while i < sources.len() {
            let source = sources[i];
            i += 1;
            for (user, _) in uses(source) {
                match op_name(user).as_str() {
                    "ttg.convert_layout" => sources.push(mlirOperationGetResult(user, 0)),
                    "ttg.local_alloc"
                        if user.ptr != before.ptr
                            && mlirOperationGetBlock(user).ptr == block.ptr
                            && mlirOperationIsBeforeInBlock(user, before) =>
                    {
                        let buffer = mlirOperationGetResult(user, 0);
                        if let Some(Encoding::NvmmaShared(layout)) =
                            memdesc_encoding_of(value_type(buffer))
                            && only_used_by(buffer, "ttng.warp_group_dot")
                        {
                            return Some((buffer, layout));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    None
}

/// Erases `value`'s chain of layout conversions as far as they are unused, so that the load
/// they read is left with its staging alloc alone (what the pipeliner looks for).
fn erase_unused_conversions(mut value: MlirValue) {
    // SAFETY: each destroyed op is a live convert_layout whose result has no uses; its operand
    // is read before it is destroyed.
    unsafe {
        while !has_uses(value) {
            let Some(def) = defining_op(value).filter(|d| op_name(*d) == "ttg.convert_layout")
            else {
                return;
            };
            value = operands(def)[0];
            mlirOperationDestroy(def);
        }
    }
}

/// Inserts `ttg.memdesc_trans(buffer)` (order [1, 0]) of shape `dims` in `layout` before `at`.
///
/// # Safety
/// `at` and `buffer` are live and of `ctx`; `buffer` is defined before `at`.
unsafe fn transposed_view(
    ctx: MlirContext,
    at: MlirOperation,
    buffer: MlirValue,
    dims: &[i64],
    layout: &NvmmaSharedEncoding,
) -> MlirValue {
    // SAFETY: per the contract.
    unsafe {
        let space = tritium_dialects::ffi::ttg::tritiumSharedMemorySpaceGet(ctx);
        let element =
            tritium_dialects::ffi::ttg::tritiumMemDescTypeGetElementType(value_type(buffer));
        let view_type = tritium_dialects::ffi::ttg::tritiumMemDescTypeGet(
            element,
            dims.len() as isize,
            dims.as_ptr(),
            encoding_to_attr(ctx, &Encoding::NvmmaShared(layout.clone())),
            space,
            false,
            dims.len() as isize,
            dims.as_ptr(),
        );
        let order_attr = mlirDenseI32ArrayGet(ctx, 2, [1i32, 0].as_ptr());
        let view = tritium_dialects::build::build(
            "ttg.memdesc_trans",
            mlirOperationGetLocation(at),
            &[buffer],
            &[view_type],
            &[("order", order_attr)],
        );
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, view);
        mlirOperationGetResult(view, 0)
    }
}

/// The `order` of a `tt.trans`.
fn trans_order(trans: MlirOperation) -> Vec<i32> {
    // SAFETY: attribute lookup on a live op; elements are read only from a dense i32 array.
    unsafe {
        let attr = mlirOperationGetAttributeByName(trans, tritium_dialects::ffi::str_ref("order"));
        if attr.ptr.is_null() || !mlirAttributeIsADenseI32Array(attr) {
            return Vec::new();
        }
        (0..mlirDenseArrayGetNumElements(attr))
            .map(|i| mlirDenseI32ArrayGetElement(attr, i))
            .collect()
    }
}
