//! Canonicalization patterns of the `tt` dialect (what Triton's folders and canonicalizers do,
//! plus a few more): constant and splat propagation through view ops, view-op chains, identity
//! views and casts, pointer arithmetic with zero or chained offsets, and loads/stores whose mask
//! is a constant. docs/tt.md lists them; test/Dialect/tt/canonicalize.mlir checks each.

use super::{PatternFn, add_pattern};
use crate::ir::{i32_array_attr, op_name, ranked_tensor as as_tensor};
use melior::{
    ContextRef, RewriterBase,
    ir::{
        Attribute, Identifier, Location, OperationRef, Type, TypeLike, Value, ValueLike,
        attribute::AttributeLike,
        operation::{
            OperationBuilder, OperationLike, OperationMutLike, OperationRefMut, OperationResult,
        },
    },
};
use mlir_sys::MlirRewritePatternSet;

/// Registers every `tt` pattern.
pub fn add_patterns(context: ContextRef, set: MlirRewritePatternSet) {
    let patterns: &[(&str, PatternFn)] = &[
        ("tt.splat", splat_of_constant),
        ("tt.broadcast", fold_view),
        ("tt.broadcast", broadcast_of_broadcast),
        ("tt.expand_dims", fold_view),
        ("tt.reshape", fold_view),
        ("tt.reshape", reshape_chain),
        ("tt.trans", fold_view),
        ("tt.trans", trans_of_trans),
        ("tt.unsplat", unsplat_of_splat),
        ("tt.addptr", addptr_zero),
        ("tt.addptr", addptr_of_addptr),
        ("tt.addptr", addptr_of_splats),
        ("tt.advance", advance_zero),
        ("tt.load", load_constant_mask),
        ("tt.store", store_constant_mask),
        ("tt.fp_to_fp", cast_identity),
        ("tt.fp_to_fp", fp_to_fp_of_zero),
        ("tt.bitcast", cast_identity),
        ("tt.bitcast", bitcast_of_bitcast),
        ("tt.int_to_ptr", int_pointer_round_trip),
        ("tt.ptr_to_int", int_pointer_round_trip),
        ("tt.split", split_of_join),
        ("tt.join", join_of_split),
        ("tt.make_range", make_range_of_one),
    ];
    for (root, pattern) in patterns {
        add_pattern(context, set, root, *pattern);
    }
}

// ----------------------------------------------------------------------------------------------
// Reading the IR
// ----------------------------------------------------------------------------------------------

fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<Value<'c, 'a>> {
    op.operand(index).ok()
}

fn result<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Option<Value<'c, 'a>> {
    op.result(index).ok().map(Value::from)
}

fn result_type<'c>(op: OperationRef<'c, '_>) -> Option<Type<'c>> {
    result(op, 0).map(|value| value.r#type())
}

/// The op defining `value`, if it is named `name`.
fn defined_by<'c, 'a>(value: Value<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let owner = OperationResult::try_from(value).ok()?.owner();
    (op_name(&owner) == name).then_some(owner)
}

/// The element of a constant splat: the attribute of a scalar `arith.constant`, or the splat
/// value of an `arith.constant dense<...>` whose elements are all equal.
fn constant_splat<'c>(value: Value<'c, '_>) -> Option<Attribute<'c>> {
    let attribute = defined_by(value, "arith.constant")?
        .attribute("value")
        .ok()?;
    let raw = attribute.to_raw();
    // SAFETY: `raw` is the live `value` attribute of an `arith.constant`; the kind tests only read
    // it.
    unsafe {
        if mlir_sys::mlirAttributeIsAInteger(raw) || mlir_sys::mlirAttributeIsAFloat(raw) {
            return Some(attribute);
        }
        if mlir_sys::mlirAttributeIsADenseElements(raw)
            && mlir_sys::mlirDenseElementsAttrIsSplat(raw)
        {
            return Some(Attribute::from_raw(
                mlir_sys::mlirDenseElementsAttrGetSplatValue(raw),
            ));
        }
    }
    None
}

/// The value of an integer constant splat (i1 `true` reads as -1).
fn constant_int(value: Value) -> Option<i64> {
    let attribute = constant_splat(value)?;
    // SAFETY: `attribute` is a live attribute; its value is read only when it is an integer.
    unsafe {
        mlir_sys::mlirAttributeIsAInteger(attribute.to_raw())
            .then(|| mlir_sys::mlirIntegerAttrGetValueInt(attribute.to_raw()))
    }
}

/// Something every element of a tensor equals: a `tt.splat` operand or a constant splat element.
enum SplatOf<'c, 'a> {
    Value(Value<'c, 'a>),
    Constant(Attribute<'c>),
}

fn splat_of<'c: 'a, 'a>(value: Value<'c, 'a>) -> Option<SplatOf<'c, 'a>> {
    if let Some(splat) = defined_by(value, "tt.splat") {
        return operand(splat, 0).map(SplatOf::Value);
    }
    as_tensor(value.r#type())?;
    constant_splat(value).map(SplatOf::Constant)
}

/// Whether no type among `types` carries an encoding.
fn no_encodings(types: &[Type]) -> bool {
    types
        .iter()
        .all(|ty| as_tensor(*ty).is_none_or(|info| info.encoding.is_none()))
}

// ----------------------------------------------------------------------------------------------
// Building IR (before the matched op)
// ----------------------------------------------------------------------------------------------

/// Inserts `name(operands) {attributes} : results` and returns its first result.
fn build<'c, 'a>(
    rewriter: &RewriterBase<'c, 'a>,
    location: Location<'c>,
    name: &str,
    operands: &[Value<'c, '_>],
    attributes: &[(&str, Attribute<'c>)],
    results: &[Type<'c>],
) -> Option<Value<'c, 'a>> {
    let context = location.context();
    let attributes: Vec<_> = attributes
        .iter()
        // SAFETY: the location's context outlives every attribute and identifier built from it
        // here.
        .map(|(key, value)| (Identifier::new(unsafe { context.to_ref() }, key), *value))
        .collect();
    let operation = OperationBuilder::new(name, location)
        .add_operands(operands)
        .add_attributes(&attributes)
        .add_results(results)
        .build()
        .ok()?;
    let inserted = rewriter.insert(operation);
    // The op now lives in the rewriter's block; its results live as long as the block does.
    inserted
        .result(0)
        .ok()
        // SAFETY: the inserted op lives in the rewriter's block, so its result is valid for the
        // rewriter's lifetime `'a`.
        .map(|value| unsafe { Value::from_raw(value.to_raw()) })
}

/// `arith.constant` of `attribute` with type `ty`.
fn constant<'c, 'a>(
    rewriter: &RewriterBase<'c, 'a>,
    location: Location<'c>,
    attribute: Attribute<'c>,
    ty: Type<'c>,
) -> Option<Value<'c, 'a>> {
    build(
        rewriter,
        location,
        "arith.constant",
        &[],
        &[("value", attribute)],
        &[ty],
    )
}

/// A dense elements attribute of type `ty` whose elements all equal `element`.
fn dense_splat<'c>(ty: Type<'c>, element: Attribute<'c>) -> Attribute<'c> {
    // SAFETY: `ty` and `element` are live handles of one context; MLIR checks the element against
    // the shaped type.
    unsafe {
        Attribute::from_raw(mlir_sys::mlirDenseElementsAttrSplatGet(
            ty.to_raw(),
            element.to_raw(),
        ))
    }
}

/// `array<i32: values>`.
fn i32_array<'c>(context: ContextRef<'c>, values: &[i32]) -> Attribute<'c> {
    // SAFETY: the context outlives the call, which copies `values` (`values.len()` entries).
    unsafe {
        Attribute::from_raw(mlir_sys::mlirDenseI32ArrayGet(
            context.to_ref().to_raw(),
            values.len() as isize,
            values.as_ptr(),
        ))
    }
}

/// A tensor of type `ty` all of whose elements equal `splat`.
fn rebuild_splat<'c, 'a>(
    rewriter: &RewriterBase<'c, 'a>,
    location: Location<'c>,
    splat: SplatOf<'c, '_>,
    ty: Type<'c>,
) -> Option<Value<'c, 'a>> {
    match splat {
        SplatOf::Value(value) => build(rewriter, location, "tt.splat", &[value], &[], &[ty]),
        SplatOf::Constant(element) => constant(rewriter, location, dense_splat(ty, element), ty),
    }
}

fn replace<'c>(
    rewriter: &RewriterBase<'c, '_>,
    op: OperationRef<'c, '_>,
    values: &[Value<'c, '_>],
) -> bool {
    rewriter.replace_op_with_values(op, values);
    true
}

/// Replaces the operands of `op` in place (and its operand segment sizes, when given).
fn set_operands<'c>(
    rewriter: &RewriterBase<'c, '_>,
    op: OperationRef<'c, '_>,
    operands: &[Value<'c, '_>],
    segments: Option<&[i32]>,
) -> bool {
    rewriter.start_op_modification(op);
    // SAFETY: `op` is the live op being rewritten, under `start_op_modification` for the in-place
    // update.
    let mut op_mut = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    let operands: Vec<Value> = operands
        .iter()
        // SAFETY: each value is a live value of the same function; re-wrapping only changes its
        // Rust lifetime, and it outlives the call that sets the operands.
        .map(|value| unsafe { Value::from_raw(value.to_raw()) })
        .collect();
    op_mut.set_operands(&operands);
    if let Some(segments) = segments {
        op_mut.set_inherent_attribute("operandSegmentSizes", i32_array(op.context(), segments));
    }
    rewriter.finalize_op_modification(op);
    true
}

// ----------------------------------------------------------------------------------------------
// Patterns
// ----------------------------------------------------------------------------------------------

/// `tt.splat (arith.constant c)` → `arith.constant dense<c>`.
fn splat_of_constant<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let Some(element) = constant_splat(src) else {
        return false;
    };
    match constant(rewriter, op.location(), dense_splat(ty, element), ty) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// Identity views (`tt.broadcast`/`tt.reshape` to the operand's type, `tt.trans` with the
/// identity order), and views of splats (a splat of the result type).
fn fold_view<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let identity_order = i32_array_attr(&op, "order").is_none_or(|order| {
        order
            .iter()
            .enumerate()
            .all(|(index, dim)| *dim as usize == index)
    });
    if src.r#type() == ty && op_name(&op) != "tt.expand_dims" && identity_order {
        return replace(rewriter, op, &[src]);
    }
    let Some(splat) = splat_of(src) else {
        return false;
    };
    match rebuild_splat(rewriter, op.location(), splat, ty) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.broadcast (tt.broadcast x)` → `tt.broadcast x`.
fn broadcast_of_broadcast<'c, 'a>(
    op: OperationRef<'c, 'a>,
    rewriter: &RewriterBase<'c, 'a>,
) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let Some(inner) = defined_by(src, "tt.broadcast").and_then(|inner| operand(inner, 0)) else {
        return false;
    };
    match build(
        rewriter,
        op.location(),
        "tt.broadcast",
        &[inner],
        &[],
        &[ty],
    ) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.reshape (tt.reshape x)` and `tt.reshape (tt.expand_dims x)` → `tt.reshape x` (tensors
/// without encodings: with encodings the intermediate layout matters). The result may reorder
/// elements if either reshape could.
fn reshape_chain<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let inner = defined_by(src, "tt.reshape").or_else(|| defined_by(src, "tt.expand_dims"));
    let Some(inner) = inner else { return false };
    let Some(origin) = operand(inner, 0) else {
        return false;
    };
    if !no_encodings(&[origin.r#type(), ty]) {
        return false;
    }
    let reorder = op.attribute("allow_reorder").is_ok() || inner.attribute("allow_reorder").is_ok();
    let unit =
        // SAFETY: `op`'s context is live for the rewrite; unit attributes are owned by it.
        unsafe { Attribute::from_raw(mlir_sys::mlirUnitAttrGet(op.context().to_ref().to_raw())) };
    let attributes: &[(&str, Attribute)] = if reorder {
        &[("allow_reorder", unit)]
    } else {
        &[]
    };
    match build(
        rewriter,
        op.location(),
        "tt.reshape",
        &[origin],
        attributes,
        &[ty],
    ) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.trans (tt.trans x, inner), outer` → `tt.trans x, inner∘outer`, or `x` when that is the
/// identity and `x` has the result type.
fn trans_of_trans<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let Some(inner) = defined_by(src, "tt.trans") else {
        return false;
    };
    let (Some(origin), Some(outer_order), Some(inner_order)) = (
        operand(inner, 0),
        i32_array_attr(&op, "order"),
        i32_array_attr(&inner, "order"),
    ) else {
        return false;
    };
    let Some(order) = outer_order
        .iter()
        .map(|&dim| inner_order.get(dim as usize).copied())
        .collect::<Option<Vec<i32>>>()
    else {
        return false;
    };
    if order
        .iter()
        .enumerate()
        .all(|(index, dim)| *dim as usize == index)
        && origin.r#type() == ty
    {
        return replace(rewriter, op, &[origin]);
    }
    let order = i32_array(op.context(), &order);
    match build(
        rewriter,
        op.location(),
        "tt.trans",
        &[origin],
        &[("order", order)],
        &[ty],
    ) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.unsplat (tt.splat x)` → `x`; `tt.unsplat (arith.constant dense<c>)` → `arith.constant c`.
fn unsplat_of_splat<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let value = match splat_of(src) {
        Some(SplatOf::Value(value)) if value.r#type() == ty => Some(value),
        Some(SplatOf::Constant(element)) => constant(rewriter, op.location(), element, ty),
        _ => None,
    };
    value.is_some_and(|value| replace(rewriter, op, &[value]))
}

/// `tt.addptr p, 0` → `p`.
fn addptr_zero<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(ptr), Some(offset)) = (operand(op, 0), operand(op, 1)) else {
        return false;
    };
    constant_int(offset) == Some(0) && replace(rewriter, op, &[ptr])
}

/// `tt.addptr (tt.addptr p, a), b` → `tt.addptr p, (arith.addi a, b)` when `a` and `b` have one
/// type.
fn addptr_of_addptr<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(ptr), Some(outer), Some(ty)) = (operand(op, 0), operand(op, 1), result_type(op))
    else {
        return false;
    };
    let Some(inner) = defined_by(ptr, "tt.addptr") else {
        return false;
    };
    let (Some(base), Some(first)) = (operand(inner, 0), operand(inner, 1)) else {
        return false;
    };
    if first.r#type() != outer.r#type() {
        return false;
    }
    let location = op.location();
    let Some(sum) = build(
        rewriter,
        location,
        "arith.addi",
        &[first, outer],
        &[],
        &[outer.r#type()],
    ) else {
        return false;
    };
    match build(rewriter, location, "tt.addptr", &[base, sum], &[], &[ty]) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.addptr (tt.splat p), (tt.splat o)` → `tt.splat (tt.addptr p, o)` (the offset may also be a
/// constant splat): one scalar address computation instead of one per element.
fn addptr_of_splats<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(ptr), Some(offset), Some(ty)) = (operand(op, 0), operand(op, 1), result_type(op))
    else {
        return false;
    };
    let Some(base) = defined_by(ptr, "tt.splat").and_then(|splat| operand(splat, 0)) else {
        return false;
    };
    let location = op.location();
    let scalar = match splat_of(offset) {
        Some(SplatOf::Value(value)) => Some(value),
        Some(SplatOf::Constant(element)) => {
            let element_type =
                // SAFETY: `element` is a live attribute; its type is owned by the same context.
                unsafe { Type::from_raw(mlir_sys::mlirAttributeGetType(element.to_raw())) };
            constant(rewriter, location, element, element_type)
        }
        None => None,
    };
    let Some(scalar) = scalar else { return false };
    let Some(sum) = build(
        rewriter,
        location,
        "tt.addptr",
        &[base, scalar],
        &[],
        &[base.r#type()],
    ) else {
        return false;
    };
    match build(rewriter, location, "tt.splat", &[sum], &[], &[ty]) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.advance p, [0, ...]` → `p`.
fn advance_zero<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let Some(ptr) = operand(op, 0) else {
        return false;
    };
    op.operands()
        .skip(1)
        .all(|offset| constant_int(offset) == Some(0))
        && replace(rewriter, op, &[ptr])
}

/// `tt.load` with a constant mask: all-true drops the mask and `other`; all-false becomes `other`
/// (left alone without `other`: the result is undefined, not zero).
fn load_constant_mask<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let sizes = i32_array_attr(&op, "operandSegmentSizes").unwrap_or_default();
    if sizes.len() != 3 || sizes[1] != 1 {
        return false;
    }
    let (Some(ptr), Some(mask)) = (operand(op, 0), operand(op, 1)) else {
        return false;
    };
    match constant_int(mask) {
        Some(0) if sizes[2] == 1 => {
            operand(op, 2).is_some_and(|other| replace(rewriter, op, &[other]))
        }
        Some(0) | None => false,
        Some(_) => set_operands(rewriter, op, &[ptr], Some(&[1, 0, 0])),
    }
}

/// `tt.store` with a constant mask: all-true drops the mask, all-false erases the store.
fn store_constant_mask<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    if op.operand_count() != 3 {
        return false;
    }
    let (Some(ptr), Some(value), Some(mask)) = (operand(op, 0), operand(op, 1), operand(op, 2))
    else {
        return false;
    };
    match constant_int(mask) {
        Some(0) => {
            rewriter.erase_op(op);
            true
        }
        Some(_) => set_operands(rewriter, op, &[ptr, value], None),
        None => false,
    }
}

/// A cast to the operand's own type → the operand.
fn cast_identity<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    src.r#type() == ty && replace(rewriter, op, &[src])
}

/// `tt.fp_to_fp` of a constant +0.0 (scalar or splat) → the constant +0.0 of the result type,
/// which every float format represents exactly.
fn fp_to_fp_of_zero<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let Some(element) = constant_splat(src) else {
        return false;
    };
    let raw = element.to_raw();
    // SAFETY: `raw` is a live attribute; the double is read only from a float attribute (`&&`
    // short-circuits).
    let positive_zero = unsafe {
        mlir_sys::mlirAttributeIsAFloat(raw) && {
            let value = mlir_sys::mlirFloatAttrGetValueDouble(raw);
            value == 0.0 && value.is_sign_positive()
        }
    };
    if !positive_zero {
        return false;
    }
    let element_type = as_tensor(ty).map(|info| info.element).unwrap_or(ty);
    // SAFETY: `element_type` is a live type, the result element of `tt.fp_to_fp` (a float by
    // ODS); its context owns the new attribute.
    let zero = unsafe {
        Attribute::from_raw(mlir_sys::mlirFloatAttrDoubleGet(
            mlir_sys::mlirTypeGetContext(element_type.to_raw()),
            element_type.to_raw(),
            0.0,
        ))
    };
    let value = if as_tensor(ty).is_some() {
        dense_splat(ty, zero)
    } else {
        zero
    };
    match constant(rewriter, op.location(), value, ty) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.bitcast (tt.bitcast x)` → `tt.bitcast x` (or `x` when it has the result type).
fn bitcast_of_bitcast<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let Some(origin) = defined_by(src, "tt.bitcast").and_then(|inner| operand(inner, 0)) else {
        return false;
    };
    if origin.r#type() == ty {
        return replace(rewriter, op, &[origin]);
    }
    match build(rewriter, op.location(), "tt.bitcast", &[origin], &[], &[ty]) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}

/// `tt.int_to_ptr (tt.ptr_to_int p)` → `p` and `tt.ptr_to_int (tt.int_to_ptr i)` → `i`, when the
/// types round-trip.
fn int_pointer_round_trip<'c, 'a>(
    op: OperationRef<'c, 'a>,
    rewriter: &RewriterBase<'c, 'a>,
) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let inverse = if op_name(&op) == "tt.int_to_ptr" {
        "tt.ptr_to_int"
    } else {
        "tt.int_to_ptr"
    };
    let Some(origin) = defined_by(src, inverse).and_then(|inner| operand(inner, 0)) else {
        return false;
    };
    origin.r#type() == ty && replace(rewriter, op, &[origin])
}

/// `tt.split (tt.join a, b)` → `a, b`.
fn split_of_join<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(src), Some(ty)) = (operand(op, 0), result_type(op)) else {
        return false;
    };
    let Some(join) = defined_by(src, "tt.join") else {
        return false;
    };
    let (Some(lhs), Some(rhs)) = (operand(join, 0), operand(join, 1)) else {
        return false;
    };
    lhs.r#type() == ty && replace(rewriter, op, &[lhs, rhs])
}

/// `tt.join (tt.split x)#0, (tt.split x)#1` → `x`.
fn join_of_split<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(lhs), Some(rhs), Some(ty)) = (operand(op, 0), operand(op, 1), result_type(op)) else {
        return false;
    };
    let Some(split) = defined_by(lhs, "tt.split") else {
        return false;
    };
    let (Some(first), Some(second), Some(origin)) =
        (result(split, 0), result(split, 1), operand(split, 0))
    else {
        return false;
    };
    lhs == first && rhs == second && origin.r#type() == ty && replace(rewriter, op, &[origin])
}

/// `tt.make_range {start = s, end = s + 1}` → `arith.constant dense<s>`.
fn make_range_of_one<'c, 'a>(op: OperationRef<'c, 'a>, rewriter: &RewriterBase<'c, 'a>) -> bool {
    let (Some(start), Some(end), Some(ty)) = (
        crate::ir::int_attr(&op, "start"),
        crate::ir::int_attr(&op, "end"),
        result_type(op),
    ) else {
        return false;
    };
    if end - start != 1 {
        return false;
    }
    let Ok(element) = op.attribute("start") else {
        return false;
    };
    match constant(rewriter, op.location(), dense_splat(ty, element), ty) {
        Some(value) => replace(rewriter, op, &[value]),
        None => false,
    }
}
