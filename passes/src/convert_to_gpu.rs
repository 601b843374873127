//! `-convert-triton-to-tritongpu{target num-warps threads-per-warp num-ctas num-stages}`: gives
//! every tensor a layout. Each tensor gets Triton's default blocked encoding for its shape; ops whose operands
//! must be in a layout derived from another (reductions produce slices of their operand's layout,
//! expand_dims consumes a slice of its result's layout) get `ttg.convert_layout`s, which
//! `-tritongpu-remove-layout-conversions` removes where it can.

use crate::ir_util::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::ffi::str_ref;
use tritium_dialects::melior::ir::{Location, OperationRef, operation::OperationLike};
use tritium_dialects::pass::{
    OptionKind, Options, PassDef, PassOption, PassResult, dialects, fail,
};
use tritium_layout::encoding::{DotOperandEncoding, Encoding, SliceEncoding};
use tritium_layout::heuristics::default_blocked;
use tritium_layout::linear::MAX_DIM_BITS;

pub static PASS: PassDef = PassDef {
    argument: "convert-triton-to-tritongpu",
    summary: "Assign Triton's default blocked layouts to every tensor (TTIR to TTGIR)",
    anchor: Some("builtin.module"),
    options: &[
        PassOption {
            name: "target",
            description: "Target, e.g. cuda:90",
            kind: OptionKind::String,
            default: "cuda:90",
        },
        PassOption {
            name: "num-warps",
            description: "Warps per program",
            kind: OptionKind::Int,
            default: "4",
        },
        PassOption {
            name: "threads-per-warp",
            description: "Threads per warp",
            kind: OptionKind::Int,
            default: "32",
        },
        PassOption {
            name: "num-ctas",
            description: "CTAs per program (cluster size)",
            kind: OptionKind::Int,
            default: "1",
        },
        PassOption {
            name: "num-stages",
            description: "Software-pipelining stages, recorded as the module's ttg.num-stages (-1: not recorded)",
            kind: OptionKind::Int,
            default: "-1",
        },
    ],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// The compute capabilities Tritium compiles for.
pub const SUPPORTED_CAPABILITIES: [u32; 4] = [80, 86, 89, 90];

/// Most software-pipelining stages accepted for `num-stages`.
pub const MAX_NUM_STAGES: i64 = 16;

/// The compute capability of a supported target (`cuda:80`, `cuda:86`, `cuda:89`, `cuda:90`).
pub fn parse_target(target: &str) -> Result<u32, String> {
    let capability = target
        .strip_prefix("cuda:")
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse::<u32>().ok());
    match capability {
        Some(capability) if SUPPORTED_CAPABILITIES.contains(&capability) => Ok(capability),
        _ => Err(format!(
            "unsupported target '{target}': Tritium compiles for cuda:80, cuda:86, cuda:89 and cuda:90"
        )),
    }
}

/// The rules for the launch-shape options (those the `ttg` verifier has for the module
/// attributes they become).
pub fn check_launch_options(
    num_warps: i64,
    threads: i64,
    num_ctas: i64,
    num_stages: i64,
) -> Result<(), String> {
    use tritium_dialects::verify::ttg::{MAX_NUM_CTAS, MAX_NUM_WARPS, THREADS_PER_WARP};
    let power_of_two_in =
        |value: i64, max: i64| (1..=max).contains(&value) && (value as u64).is_power_of_two();
    if !power_of_two_in(num_warps, MAX_NUM_WARPS) {
        return Err(format!(
            "num-warps must be a power of two in 1..={MAX_NUM_WARPS}, got {num_warps}"
        ));
    }
    if threads != THREADS_PER_WARP {
        return Err(format!(
            "threads-per-warp must be {THREADS_PER_WARP} (an NVIDIA warp), got {threads}"
        ));
    }
    if !power_of_two_in(num_ctas, MAX_NUM_CTAS) {
        return Err(format!(
            "num-ctas must be a power of two in 1..={MAX_NUM_CTAS}, got {num_ctas}"
        ));
    }
    if !(-1..=MAX_NUM_STAGES).contains(&num_stages) {
        return Err(format!(
            "num-stages must be in 0..={MAX_NUM_STAGES} (or -1: not recorded), got {num_stages}"
        ));
    }
    Ok(())
}

pub(crate) fn set_module_attr(module: MlirOperation, name: &str, attr: MlirAttribute) {
    // SAFETY: `module` and `attr` are live handles of one context; the name ref lives for the call.
    unsafe { mlirOperationSetDiscardableAttributeByName(module, str_ref(name), attr) };
}

fn run(module_ref: OperationRef, options: &Options) -> PassResult {
    let module = module_ref.to_raw();
    let ctx = context_of(module);
    let num_warps = options.int("num-warps");
    let threads = options.int("threads-per-warp");
    let num_ctas = options.int("num-ctas");
    let num_stages = options.int("num-stages");
    let target = options.string("target");
    if let Err(message) = check_launch_options(num_warps, threads, num_ctas, num_stages)
        .and_then(|()| parse_target(target).map(|_| ()))
    {
        return Err(fail(module_ref.location(), &message));
    }
    // SAFETY: `ctx` is the live context of the module; the attributes are owned by it and set on
    // the live module op.
    unsafe {
        let i32_type = mlirIntegerTypeGet(ctx, 32);
        set_module_attr(
            module,
            "ttg.num-ctas",
            mlirIntegerAttrGet(i32_type, num_ctas),
        );
        if num_stages >= 0 {
            set_module_attr(
                module,
                "ttg.num-stages",
                mlirIntegerAttrGet(i32_type, num_stages),
            );
        }
        set_module_attr(
            module,
            "ttg.num-warps",
            mlirIntegerAttrGet(i32_type, num_warps),
        );
        set_module_attr(module, "ttg.target", ctx.string_attr(target));
        set_module_attr(
            module,
            "ttg.threads-per-warp",
            mlirIntegerAttrGet(i32_type, threads),
        );
    }

    let mut defaults: HashMap<Vec<i64>, (Encoding, MlirAttribute)> = HashMap::new();
    let mut default_for = |tensor_shape: &[i64]| -> (Encoding, MlirAttribute) {
        defaults
            .entry(tensor_shape.to_vec())
            .or_insert_with(|| {
                let dims: Vec<u32> = tensor_shape.iter().map(|&d| d.max(1) as u32).collect();
                let encoding = Encoding::Blocked(default_blocked(
                    &dims,
                    num_warps as u32,
                    threads as u32,
                    num_ctas as u32,
                ));
                let attr = encoding_to_attr(ctx, &encoding);
                (encoding, attr)
            })
            .clone()
    };

    // No target Tritium supports has block-scaled tensor cores (sm_100): scaled dots become
    // upcasts, scale multiplies and a plain dot before the layouts are assigned.
    crate::decompose_dot_scaled::decompose_all(module);
    let ops = collect_ops(module);
    check_tensor_shapes(&ops, num_warps * threads * num_ctas)?;
    for &op in &ops {
        for block in blocks_of(op) {
            for arg in block_args(block) {
                let ty = value_type(arg);
                if is_tensor(ty) && encoding_attr(ty).is_none() {
                    // SAFETY: `arg` is a live block argument; the new type has its shape and
                    // element type.
                    unsafe { mlirValueSetType(arg, with_encoding(ty, default_for(&shape(ty)).1)) };
                }
            }
        }
        for result in results(op) {
            let ty = value_type(result);
            if is_tensor(ty) && encoding_attr(ty).is_none() {
                let new_type = with_encoding(ty, default_for(&shape(ty)).1);
                // SAFETY: `result` is a live op result; the new type has its shape and element
                // type.
                unsafe { mlirValueSetType(result, new_type) };
                if op_name(op) == "arith.constant" {
                    retype_dense_constant(op, new_type);
                }
            }
        }
    }

    for &op in &ops {
        if op_name(op) == "tt.func" {
            update_function_type(op);
        }
    }

    // Layout relations between operands and results.
    for &op in &ops {
        match op_name(op).as_str() {
            "tt.reduce" => {
                let axis = int_attr(op, "axis").unwrap_or(0) as u32;
                // The verifier: tt.reduce has at least one operand.
                let Some(src_encoding) = encoding_of(value_type(operands(op)[0])) else {
                    continue;
                };
                for result in results(op) {
                    let ty = value_type(result);
                    if !is_tensor(ty) {
                        continue;
                    }
                    let default = value_type(result);
                    let slice = Encoding::Slice(SliceEncoding::new(axis, src_encoding.clone()));
                    // SAFETY: `result` is a live result of the reduce; the new type has its shape
                    // and element type.
                    unsafe {
                        mlirValueSetType(result, with_encoding(ty, encoding_to_attr(ctx, &slice)))
                    };
                    convert_all_uses_after(result, default);
                }
            }
            "tt.trans" => {
                // The result is the operand's layout with its dims permuted (each thread keeps
                // its elements); its uses convert back to the default layout.
                // ODS: tt.trans has one operand and one result.
                let source_type = value_type(operands(op)[0]);
                let result = results(op)[0];
                let result_type = value_type(result);
                let order: Vec<u32> = crate::ttir::util::i32_array(op, "order")
                    .unwrap_or_default()
                    .iter()
                    .map(|&o| o.max(0) as u32)
                    .collect();
                let dims: Vec<u32> = shape(source_type).iter().map(|&d| d as u32).collect();
                let Some(transposed) =
                    encoding_of(source_type).and_then(|e| e.transposed(&dims, &order).ok())
                else {
                    continue;
                };
                let wanted = with_encoding(result_type, encoding_to_attr(ctx, &transposed));
                // SAFETY: both are live types of the module's context.
                if !unsafe { mlirTypeEqual(wanted, result_type) } {
                    // SAFETY: `result` is the live result of the trans; the new type has its
                    // shape and element type.
                    unsafe { mlirValueSetType(result, wanted) };
                    convert_all_uses_after(result, result_type);
                }
            }
            "tt.broadcast" => {
                // The operand is laid out like the result (size-1 dims broadcast in place).
                // ODS: tt.broadcast has one operand and one result.
                let result_type = value_type(results(op)[0]);
                let operand = operands(op)[0];
                let Some(attr) = encoding_attr(result_type) else {
                    continue;
                };
                let wanted_type = with_encoding(value_type(operand), attr);
                // SAFETY: both are live types of the module's context.
                if !unsafe { mlirTypeEqual(wanted_type, value_type(operand)) } {
                    let converted = insert_convert_before(op, operand, wanted_type);
                    // SAFETY: `op` is a live `tt.broadcast` (ODS: one operand) and `converted` a
                    // live value.
                    unsafe { mlirOperationSetOperand(op, 0, converted) };
                }
            }
            "tt.dot" => {
                // FMA dot: operands in dot_op layouts of the accumulator's layout.
                // ODS: tt.dot has operands a, b, c and one result.
                let result_type = value_type(results(op)[0]);
                let Some(parent) = encoding_of(result_type) else {
                    continue;
                };
                for index in 0..2 {
                    let operand = operands(op)[index];
                    let encoding = Encoding::DotOperand(DotOperandEncoding::new(
                        index as u32,
                        parent.clone(),
                        0,
                    ));
                    let wanted_type =
                        with_encoding(value_type(operand), encoding_to_attr(ctx, &encoding));
                    let converted = insert_convert_before(op, operand, wanted_type);
                    // SAFETY: `op` is a live `tt.dot` (ODS: operands a, b, c; `index` is 0 or 1)
                    // and `converted` a live value.
                    unsafe { mlirOperationSetOperand(op, index as isize, converted) };
                }
            }
            "tt.expand_dims" => {
                let axis = int_attr(op, "axis").unwrap_or(0) as u32;
                // ODS: tt.expand_dims has one operand and one result.
                let result_type = value_type(results(op)[0]);
                let Some(result_encoding) = encoding_of(result_type) else {
                    continue;
                };
                let operand = operands(op)[0];
                let wanted = Encoding::Slice(SliceEncoding::new(axis, result_encoding));
                let wanted_type =
                    with_encoding(value_type(operand), encoding_to_attr(ctx, &wanted));
                // SAFETY: both are live types of the module's context.
                if !unsafe { mlirTypeEqual(wanted_type, value_type(operand)) } {
                    let converted = insert_convert_before(op, operand, wanted_type);
                    // SAFETY: `op` is a live `tt.expand_dims` (ODS: one operand) and `converted` a
                    // live value.
                    unsafe { mlirOperationSetOperand(op, 0, converted) };
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The location of `op` as a melior location, for diagnostics.
fn location_of<'c>(op: MlirOperation) -> Location<'c> {
    // SAFETY: `op` is a live operation of the module being converted; its location is owned by
    // the context, which outlives the pass.
    unsafe { Location::from_raw(mlirOperationGetLocation(op)) }
}

/// The most elements a tensor may have (Triton's `TRITON_MAX_TENSOR_NUMEL`): the lowering's work
/// and the registers per thread grow with it.
pub const MAX_TENSOR_ELEMENTS: i64 = 1 << 20;

/// The most elements of one tensor each thread may hold. Past 255 (the registers per thread)
/// values spill, which Triton compiles and some kernels accept (a 256x256 f32 accumulator over 4
/// warps is 512); compile time grows faster than the registers (a 128x256 matmul lowers in
/// under 1 s at 256 per thread, 5.5 s at 512 and 27 s at 1024, almost all of it in NVPTX), so
/// beyond 512 it is refused.
pub const MAX_ELEMENTS_PER_THREAD: i64 = 512;

/// Every tensor that gets a layout must have a static, power-of-two shape of at least one
/// dimension, at most [`MAX_TENSOR_ELEMENTS`] elements and at most [`MAX_ELEMENTS_PER_THREAD`]
/// per thread of the CTA, within the layout crate's limits (Triton's front end only makes such tensors). Fails at the op defining the
/// first one that does not (block arguments: at the op owning the block).
fn check_tensor_shapes(ops: &[MlirOperation], threads: i64) -> PassResult {
    let check = |ty: MlirType, at: MlirOperation, what: &str| -> PassResult {
        if !is_tensor(ty) || encoding_attr(ty).is_some() {
            return Ok(());
        }
        let dims = shape(ty);
        let elements = dims.iter().try_fold(1i64, |n, &d| n.checked_mul(d.max(0)));
        let reason = if dims.is_empty() {
            "rank 0; layouts need at least one dimension (use a scalar)".to_owned()
        } else if let Some(&dim) = dims
            .iter()
            .find(|&&d| d <= 0 || !(d as u64).is_power_of_two())
        {
            format!("a dimension of {dim}; layouts need power-of-two dimensions")
        } else if let Some(&dim) = dims.iter().find(|&&d| d as u64 > 1 << MAX_DIM_BITS) {
            format!("a dimension of {dim}; layouts support at most 2^{MAX_DIM_BITS}")
        } else if elements.is_none_or(|n| n > MAX_TENSOR_ELEMENTS) {
            format!(
                "more than {MAX_TENSOR_ELEMENTS} elements, Triton's largest block (each thread \
                 would hold thousands of registers)"
            )
        } else if let Some(per_thread) = elements
            .map(|n| n / threads.max(1))
            .filter(|&per_thread| per_thread > MAX_ELEMENTS_PER_THREAD)
        {
            format!(
                "{per_thread} elements for each of {threads} threads; at most \
                 {MAX_ELEMENTS_PER_THREAD} are supported (use more warps or a smaller block)"
            )
        } else {
            return Ok(());
        };
        Err(fail(
            location_of(at),
            &format!(
                "cannot lay out {} ({what}): it has {reason}",
                print_type(ty)
            ),
        ))
    };
    for &op in ops {
        for block in blocks_of(op) {
            for (index, arg) in block_args(block).into_iter().enumerate() {
                let what = format!("block argument #{index} of '{}'", op_name(op));
                check(value_type(arg), op, &what)?;
            }
        }
        for (index, result) in results(op).into_iter().enumerate() {
            let what = format!("result #{index} of '{}'", op_name(op));
            check(value_type(result), op, &what)?;
        }
    }
    Ok(())
}

/// An `arith.constant` whose result type changed needs its dense value retyped.
///
/// `new_type` must be the constant's type with only the encoding changed. Only int, index, float
/// and complex elements (`DenseIntOrFPElementsAttr`) are retyped; anything else (string elements,
/// or a type that does not match) is left as it is, for the verifier to report the mismatch.
pub(crate) fn retype_dense_constant(op: MlirOperation, new_type: MlirType) {
    // SAFETY: `op` is a live `arith.constant` and `new_type` a type of its context (every raw
    // handle these passes take is live while they run). The attribute is retyped only when it is
    // non-null and a `DenseIntOrFPElementsAttr` (checked by type id: `reshape` reads its raw data
    // as that storage, so a `DenseStringElementsAttr` must not get there), and `new_type` is a
    // ranked tensor with the attribute type's shape and element type: the element count and
    // element type `reshape` requires (asserts only in builds with assertions) hold, so the raw
    // data is read as exactly what it holds.
    unsafe {
        let value_name = str_ref("value");
        let attr = mlirOperationGetAttributeByName(op, value_name);
        if attr.ptr.is_null()
            || !mlirAttributeIsADenseElements(attr)
            || !mlirTypeIDEqual(
                mlirAttributeGetTypeID(attr),
                mlirDenseIntOrFPElementsAttrGetTypeID(),
            )
        {
            return;
        }
        let old_type = mlirAttributeGetType(attr);
        if !is_tensor(old_type)
            || !is_tensor(new_type)
            || shape(old_type) != shape(new_type)
            || !mlirTypeEqual(element_type(old_type), element_type(new_type))
        {
            return;
        }
        let retyped = mlirDenseElementsAttrReshapeGet(attr, new_type);
        mlirOperationSetAttributeByName(op, value_name, retyped);
    }
}

/// A function whose argument or result tensors got layouts (or that got arguments) needs its
/// signature updated: its `function_type` is rebuilt from its entry arguments and return.
pub(crate) fn update_function_type(func: MlirOperation) {
    let Some(entry) = blocks_of(func).first().copied() else {
        return;
    };
    let inputs: Vec<MlirType> = block_args(entry).into_iter().map(value_type).collect();
    let mut outputs: Vec<MlirType> = Vec::new();
    for op in collect_ops(func) {
        if op_name(op) == "tt.return" {
            outputs = operands(op).into_iter().map(value_type).collect();
        }
    }
    // SAFETY: `func` is a live function op; `inputs` and `outputs` are live types of its context
    // and outlive the call that copies them.
    unsafe {
        let ctx = context_of(func);
        let ty = mlirFunctionTypeGet(
            ctx,
            inputs.len() as isize,
            inputs.as_ptr(),
            outputs.len() as isize,
            outputs.as_ptr(),
        );
        mlirOperationSetAttributeByName(func, str_ref("function_type"), mlirTypeAttrGet(ty));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritium_dialects::context::new_context;
    use tritium_dialects::melior::ir::Module;

    /// Dense constants of every element kind a tensor may hold get the new encoding, data
    /// unchanged (index and complex elements used to reach `mlirFloatTypeGetWidth`).
    #[test]
    fn dense_constants_of_any_element_kind_are_retyped() {
        let context = new_context();
        let text = r#"
module {
  tt.func @f() -> (tensor<4xindex>, tensor<2xcomplex<f32>>, tensor<4xi1>, tensor<4xf16>, tensor<4xi32>) {
    %a = arith.constant dense<[1, 2, 3, 4]> : tensor<4xindex>
    %b = arith.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
    %c = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
    %d = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
    %e = arith.constant dense<7> : tensor<4xi32>
    tt.return %a, %b, %c, %d, %e : tensor<4xindex>, tensor<2xcomplex<f32>>, tensor<4xi1>, tensor<4xf16>, tensor<4xi32>
  }
}"#;
        let module = Module::parse(&context, text).expect("parses");
        assert_eq!(
            run(module.as_operation(), &Options::defaults(PASS.options)),
            Ok(())
        );
        assert!(module.as_operation().verify());
        let printed = module.as_operation().to_string();
        for constant in [
            "dense<[1, 2, 3, 4]> : tensor<4xindex, #blocked",
            "dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>, #blocked",
            "dense<[true, false, true, true]> : tensor<4xi1, #blocked",
            "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf16, #blocked",
            "dense<7> : tensor<4xi32, #blocked",
        ] {
            assert!(printed.contains(constant), "{constant} not in\n{printed}");
        }
    }
}
