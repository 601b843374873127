//! `-tritongpu-F32DotTC`: an f32 `tt.dot` at `tf32x3` precision becomes three tf32 dots (the
//! 3xTF32 split), so it runs on tensor cores with close to f32 accuracy. Each operand `x` is
//! split into `big = cvt.rna.tf32(x)` and `small = x - big`; the result is
//! `dot(big_a, big_b, clean(dot(big_a, small_b, dot(small_a, big_b, 0)))) + c`, where `clean`
//! zeroes NaNs of the small-term sum (an infinite operand makes `small` NaN; the big term
//! carries the infinity). The split happens where an operand is computed, before its
//! conversion into the dot's operand layout (which replicates elements across threads). Dots at
//! `tf32` or `ieee` precision are left alone.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::build;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-F32DotTC",
    summary: "Split f32 dots at tf32x3 precision into three tf32 tensor-core dots",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith()],
    run,
};

/// `tt.inputPrecision` values (Triton's `InputPrecision` enum).
const TF32: i64 = 0;
const TF32X3: i64 = 1;

/// Inserts `op` before `before` and returns its first result.
fn insert(before: MlirOperation, op: MlirOperation) -> MlirValue {
    // SAFETY: `before` is live in a block, which takes ownership of the new op; every op built
    // here has one result.
    unsafe {
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
        mlirOperationGetResult(op, 0)
    }
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let ctx = context_of(module);
    for dot in collect_ops(module) {
        if op_name(dot) != "tt.dot" || int_attr(dot, "inputPrecision") != Some(TF32X3) {
            continue;
        }
        let ins = operands(dot);
        let outs = results(dot);
        let (Some(&a), Some(&b), Some(&c), Some(&d)) =
            (ins.first(), ins.get(1), ins.get(2), outs.first())
        else {
            continue;
        };
        // SAFETY: type kind queries on live types.
        let all_f32 = unsafe {
            [a, b, c]
                .iter()
                .all(|v| mlirTypeIsAF32(element_type(value_type(*v))))
        };
        if !all_f32 {
            continue;
        }
        // SAFETY: live handles of one context; every op below is inserted before `dot` (its
        // block owns it), the dot's uses move to the final sum and the dead dot is destroyed.
        unsafe {
            let loc = mlirOperationGetLocation(dot);
            let string = |s: &str| ctx.string_attr(s);
            let i32_type = mlirIntegerTypeGet(ctx, 32);
            let i64_type = mlirIntegerTypeGet(ctx, 64);
            // Split each operand where it is computed, before its conversion into the dot's
            // operand layout (which replicates elements across threads), then convert both parts.
            let split = |operand: MlirValue| -> (MlirValue, MlirValue) {
                let mut x = operand;
                while let Some(def) = defining_op(x).filter(|d| op_name(*d) == "ttg.convert_layout")
                {
                    x = operands(def)[0];
                }
                let ty = value_type(x);
                let big = insert(
                    dot,
                    build(
                        "tt.elementwise_inline_asm",
                        loc,
                        &[x],
                        &[ty],
                        &[
                            ("asm_string", string("cvt.rna.tf32.f32 $0, $1;")),
                            ("constraints", string("=r,r")),
                            ("pure", mlirBoolAttrGet(ctx, 1)),
                            ("packed_element", mlirIntegerAttrGet(i32_type, 1)),
                        ],
                    ),
                );
                let small = insert(dot, build("arith.subf", loc, &[x, big], &[ty], &[]));
                let wanted = value_type(operand);
                if mlirTypeEqual(ty, wanted) {
                    (big, small)
                } else {
                    (
                        insert_convert_before(dot, big, wanted),
                        insert_convert_before(dot, small, wanted),
                    )
                }
            };
            let (a_big, a_small) = split(a);
            let (b_big, b_small) = split(b);
            let c_type = value_type(c);
            let zero_attr = mlirDenseElementsAttrFloatSplatGet(c_type, 0.0);
            let zeros = insert(dot, tritium_dialects::build::constant(loc, zero_attr));
            let tf32_dot = |x: MlirValue, y: MlirValue, acc: MlirValue| -> MlirValue {
                let precision = mlirOperationGetAttributeByName(
                    dot,
                    tritium_dialects::ffi::str_ref("inputPrecision"),
                );
                let tf32 = mlirIntegerAttrGet(mlirAttributeGetType(precision), TF32);
                insert(
                    dot,
                    build(
                        "tt.dot",
                        loc,
                        &[x, y, acc],
                        &[c_type],
                        &[("inputPrecision", tf32)],
                    ),
                )
            };
            let small_terms = tf32_dot(a_small, b_big, zeros);
            let small_terms = tf32_dot(a_big, b_small, small_terms);
            let bool_type = mlirRankedTensorTypeGet(
                shape(c_type).len() as isize,
                shape(c_type).as_ptr(),
                mlirIntegerTypeGet(ctx, 1),
                encoding_attr(c_type).unwrap_or(mlirAttributeGetNull()),
            );
            // arith.cmpf predicate 14: `uno` (either operand NaN).
            let is_nan = insert(
                dot,
                build(
                    "arith.cmpf",
                    loc,
                    &[small_terms, small_terms],
                    &[bool_type],
                    &[("predicate", mlirIntegerAttrGet(i64_type, 14))],
                ),
            );
            let clean = insert(
                dot,
                build(
                    "arith.select",
                    loc,
                    &[is_nan, zeros, small_terms],
                    &[c_type],
                    &[],
                ),
            );
            let product = tf32_dot(a_big, b_big, clean);
            let sum = insert(dot, build("arith.addf", loc, &[product, c], &[c_type], &[]));
            mlirValueReplaceAllUsesOfWith(d, sum);
            mlirOperationDestroy(dot);
        }
    }
    Ok(())
}
