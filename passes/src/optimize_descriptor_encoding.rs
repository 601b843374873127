//! `-triton-nvidia-optimize-descriptor-encoding`: gives every tensor descriptor whose block TMA
//! can move the `#ttg.nvmma_shared` layout Triton picks for it (`tma::block_encoding`: not
//! transposed, the widest swizzle the block's rows fill), on `tt.make_tensor_descriptor`
//! results and on kernel arguments (the function type follows). That layout is the shared
//! buffer's in `-triton-nvidia-tma-lowering` and the box and swizzle of the host-side
//! descriptors the runtime encodes (`tensordesc_meta`). Descriptors that already have a layout,
//! that TMA cannot move, or that flow anywhere but into loads, stores and reductions of their
//! block are left alone.

use crate::ir_util::*;
use crate::tma::block_encoding;
use crate::tma_lowering::{block_of, elem_bits, only_block_accesses};
use mlir_sys::*;
use tritium_dialects::ffi;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::Encoding;

pub static PASS: PassDef = PassDef {
    argument: "triton-nvidia-optimize-descriptor-encoding",
    summary: "Give tensor descriptors the #ttg.nvmma_shared layout their TMA copies use",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

fn run(module: OperationRef, _options: &Options) -> PassResult {
    assign_encodings(module.to_raw());
    Ok(())
}

/// The descriptor type `ty` with its block's TMA layout, when it has none and TMA can move it.
fn with_tma_layout(ctx: MlirContext, ty: MlirType) -> Option<MlirType> {
    let block = block_of(ty)?;
    if encoding_attr(block).is_some() {
        return None;
    }
    let dims: Vec<u32> = shape(block).iter().map(|&d| d as u32).collect();
    let nvmma = block_encoding(&dims, elem_bits(element_type(block)))?;
    let block = with_encoding(block, encoding_to_attr(ctx, &Encoding::NvmmaShared(nvmma)));
    // SAFETY: a tensordesc of a live ranked tensor type.
    Some(unsafe { ffi::tritiumTensorDescTypeGet(block) })
}

/// Assigns the layouts (see the module docs); also run by `-triton-nvidia-tma-lowering`.
pub fn assign_encodings(module: MlirOperation) {
    let ctx = context_of(module);
    for op in collect_ops(module) {
        match op_name(op).as_str() {
            "tt.make_tensor_descriptor" => {
                let Some(&result) = results(op).first() else {
                    continue;
                };
                let ty = value_type(result);
                if let Some(new) = with_tma_layout(ctx, ty)
                    && block_of(ty).is_some_and(|b| only_block_accesses(result, b))
                {
                    // SAFETY: a live value given a type of its context.
                    unsafe { mlirValueSetType(result, new) };
                }
            }
            "tt.func" => {
                let Some(&entry) = blocks_of(op).first() else {
                    continue;
                };
                let mut changed = false;
                let args = block_args(entry);
                for &arg in &args {
                    let ty = value_type(arg);
                    if let Some(new) = with_tma_layout(ctx, ty)
                        && block_of(ty).is_some_and(|b| only_block_accesses(arg, b))
                    {
                        // SAFETY: a live block argument given a type of its context.
                        unsafe { mlirValueSetType(arg, new) };
                        changed = true;
                    }
                }
                if changed {
                    set_function_inputs(op, &args);
                }
            }
            _ => {}
        }
    }
}

/// Rewrites a function's `function_type` inputs to its entry arguments' types.
fn set_function_inputs(func: MlirOperation, args: &[MlirValue]) {
    // SAFETY: attribute queries and constructors on a live function of one context; `inputs`
    // and `outputs` outlive the constructor call.
    unsafe {
        let name = ffi::str_ref("function_type");
        let attr = mlirOperationGetAttributeByName(func, name);
        if attr.ptr.is_null() || !mlirAttributeIsAType(attr) {
            return;
        }
        let old = mlirTypeAttrGetValue(attr);
        if !mlirTypeIsAFunction(old) {
            return;
        }
        let inputs: Vec<MlirType> = args.iter().map(|&a| value_type(a)).collect();
        let outputs: Vec<MlirType> = (0..mlirFunctionTypeGetNumResults(old))
            .map(|i| mlirFunctionTypeGetResult(old, i))
            .collect();
        let new = mlirFunctionTypeGet(
            context_of(func),
            inputs.len() as isize,
            inputs.as_ptr(),
            outputs.len() as isize,
            outputs.as_ptr(),
        );
        mlirOperationSetAttributeByName(func, name, mlirTypeAttrGet(new));
    }
}
