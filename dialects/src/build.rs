//! Typed constructors for our ops, so passes never spell op names or attribute layouts.

use crate::ffi::str_ref;
use mlir_sys::*;

/// Creates `name(operands) {attrs} : results`, not inserted anywhere. Prefer the typed
/// constructors below (or `crate::ods`) for our own ops; this serves upstream ops too.
pub fn build(
    name: &str,
    loc: MlirLocation,
    operands: &[MlirValue],
    results: &[MlirType],
    attrs: &[(&str, MlirAttribute)],
) -> MlirOperation {
    // SAFETY: `loc`, the operands, result types and attributes are live handles of one context
    // (the caller's); the state is consumed by `mlirOperationCreate` while `name`, `operands`,
    // `results` and `named` are alive.
    unsafe {
        let mut state = mlirOperationStateGet(str_ref(name), loc);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let ctx = mlirLocationGetContext(loc);
        let named: Vec<MlirNamedAttribute> = attrs
            .iter()
            .map(|(key, attr)| mlirNamedAttributeGet(mlirIdentifierGet(ctx, str_ref(key)), *attr))
            .collect();
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        mlirOperationCreate(&mut state)
    }
}

/// `ttg.convert_layout %value : T -> to` (not inserted anywhere).
pub fn convert_layout(loc: MlirLocation, value: MlirValue, to: MlirType) -> MlirOperation {
    build("ttg.convert_layout", loc, &[value], &[to], &[])
}

/// `tt.splat %value : T -> to`.
pub fn splat(loc: MlirLocation, value: MlirValue, to: MlirType) -> MlirOperation {
    build("tt.splat", loc, &[value], &[to], &[])
}

/// `tt.make_range {start, end} : to`.
pub fn make_range(loc: MlirLocation, start: i32, end: i32, to: MlirType) -> MlirOperation {
    // SAFETY: `loc` is a live location (raw handles given to these builders come from live IR); the
    // integer attributes are created in its context.
    unsafe {
        let ctx = mlirLocationGetContext(loc);
        let i32_type = mlirIntegerTypeGet(ctx, 32);
        build(
            "tt.make_range",
            loc,
            &[],
            &[to],
            &[
                ("start", mlirIntegerAttrGet(i32_type, start as i64)),
                ("end", mlirIntegerAttrGet(i32_type, end as i64)),
            ],
        )
    }
}

/// `arith.constant value : type(value)`.
pub fn constant(loc: MlirLocation, value: MlirAttribute) -> MlirOperation {
    build(
        "arith.constant",
        loc,
        &[],
        // SAFETY: `value` is a live attribute (raw handles given to these builders come from live
        // IR).
        &[unsafe { mlirAttributeGetType(value) }],
        &[("value", value)],
    )
}

/// A clone of `op` (same name, attributes, regions) with new operands and result types.
pub fn clone_with(
    op: MlirOperation,
    operands: &[MlirValue],
    results: &[MlirType],
) -> MlirOperation {
    // SAFETY: `op` is a live operation (raw handles given to these builders come from live IR); the
    // clone is new and unattached, and operands and results are set below its counts only.
    unsafe {
        let copy = mlirOperationClone(op);
        // Only the clone's own operands and results (extra ones would be out of bounds).
        let operand_count = mlirOperationGetNumOperands(copy).max(0) as usize;
        for (i, operand) in operands.iter().take(operand_count).enumerate() {
            mlirOperationSetOperand(copy, i as isize, *operand);
        }
        let result_count = mlirOperationGetNumResults(copy).max(0) as usize;
        for (i, ty) in results.iter().take(result_count).enumerate() {
            mlirValueSetType(mlirOperationGetResult(copy, i as isize), *ty);
        }
        copy
    }
}
