//! Typed constructors for our ops, so passes never spell op names or attribute layouts.

use mlir_sys::*;
use std::ffi::CString;

fn string_ref(text: &CString) -> MlirStringRef {
    unsafe { mlirStringRefCreateFromCString(text.as_ptr()) }
}

/// Creates `name(operands) {attrs} : results`, not inserted anywhere. Prefer the typed
/// constructors below (or `crate::ods`) for our own ops; this serves upstream ops too.
pub fn build(
    name: &str,
    loc: MlirLocation,
    operands: &[MlirValue],
    results: &[MlirType],
    attrs: &[(&str, MlirAttribute)],
) -> MlirOperation {
    let name = CString::new(name).unwrap();
    unsafe {
        let mut state = mlirOperationStateGet(string_ref(&name), loc);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let ctx = mlirLocationGetContext(loc);
        let named: Vec<MlirNamedAttribute> = attrs
            .iter()
            .map(|(key, attr)| {
                let key = CString::new(*key).unwrap();
                mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref(&key)), *attr)
            })
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
    unsafe {
        let copy = mlirOperationClone(op);
        for (i, operand) in operands.iter().enumerate() {
            mlirOperationSetOperand(copy, i as isize, *operand);
        }
        for (i, ty) in results.iter().enumerate() {
            mlirValueSetType(mlirOperationGetResult(copy, i as isize), *ty);
        }
        copy
    }
}
