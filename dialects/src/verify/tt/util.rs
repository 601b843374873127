//! Small readers shared by the `tt` verifier rules: operand/result types, tensor shapes, element
//! classes and `ttg` encodings (compared through their printed form, so no C++ accessor is needed).

use crate::{
    ffi::ttg,
    ir::{as_pointer, ranked_tensor as as_tensor},
};
use melior::ir::{
    Attribute, OperationRef, Type, TypeLike, ValueLike, attribute::AttributeLike,
    operation::OperationLike,
};

/// The outcome of one rule.
pub type Rule = Result<(), String>;

/// Fails with `message` unless `condition` holds.
pub fn ensure(condition: bool, message: impl FnOnce() -> String) -> Rule {
    if condition { Ok(()) } else { Err(message()) }
}

/// The type of operand `index`.
pub fn operand<'c>(op: &OperationRef<'c, '_>, index: usize) -> Result<Type<'c>, String> {
    op.operand(index)
        .map(|value| value.r#type())
        .map_err(|_| format!("expected an operand #{index}"))
}

/// The type of result `index`.
pub fn result<'c>(op: &OperationRef<'c, '_>, index: usize) -> Result<Type<'c>, String> {
    op.result(index)
        .map(|value| value.r#type())
        .map_err(|_| format!("expected a result #{index}"))
}

/// The types of all operands.
pub fn operand_types<'c>(op: &OperationRef<'c, '_>) -> Vec<Type<'c>> {
    op.operands().map(|value| value.r#type()).collect()
}

/// The types of all results.
pub fn result_types<'c>(op: &OperationRef<'c, '_>) -> Vec<Type<'c>> {
    op.results().map(|value| value.r#type()).collect()
}

/// The sizes of the operand groups of an op with `AttrSizedOperandSegments`; `None` when the op
/// carries no segment sizes.
pub fn segments(op: &OperationRef, groups: usize) -> Option<Vec<usize>> {
    let sizes = crate::ir::i32_array_attr(op, "operandSegmentSizes")?;
    (sizes.len() == groups).then(|| sizes.into_iter().map(|size| size.max(0) as usize).collect())
}

/// The integer value of attribute `name`, or `default` when it is absent.
pub fn int_or(op: &OperationRef, name: &str, default: i64) -> i64 {
    crate::ir::int_attr(op, name).unwrap_or(default)
}

/// The printed form of a type, for messages.
pub fn show(ty: Type) -> String {
    ty.to_string()
}

/// `[4, 8]` → `4x8` (scalars: `scalar`).
pub fn show_shape(shape: &[i64]) -> String {
    if shape.is_empty() {
        return "scalar".into();
    }
    shape
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

pub fn is_tensor(ty: Type) -> bool {
    as_tensor(ty).is_some()
}

/// Shape of a tensor (`[]` for a scalar).
pub fn shape(ty: Type) -> Vec<i64> {
    as_tensor(ty).map(|info| info.shape).unwrap_or_default()
}

/// Element type of a tensor, or the type itself.
pub fn elem(ty: Type) -> Type {
    as_tensor(ty).map(|info| info.element).unwrap_or(ty)
}

/// Encoding of a tensor type.
pub fn encoding(ty: Type) -> Option<Attribute> {
    as_tensor(ty).and_then(|info| info.encoding)
}

/// The number of elements of a shape (saturating: huge shapes do not overflow).
pub fn numel(shape: &[i64]) -> i64 {
    shape
        .iter()
        .fold(1i64, |count, &dim| count.saturating_mul(dim))
}

/// Whether two types carry the same encoding (both none, or equal attributes).
pub fn same_encoding(a: Type, b: Type) -> bool {
    encoding(a) == encoding(b)
}

/// Every tensor among `types` has the encoding of the first tensor.
pub fn encodings_agree(types: &[Type], what: &str) -> Rule {
    let mut tensors = types.iter().copied().filter(|ty| is_tensor(*ty));
    let Some(first) = tensors.next() else {
        return Ok(());
    };
    for other in tensors {
        ensure(same_encoding(first, other), || {
            format!(
                "requires {what} to have the same encoding, but found {} and {}",
                show(first),
                show(other)
            )
        })?;
    }
    Ok(())
}

/// Every type among `types` has the shape of the first (scalars have shape `[]`).
pub fn shapes_agree(types: &[Type], what: &str) -> Rule {
    let Some(first) = types.first().copied() else {
        return Ok(());
    };
    for other in &types[1..] {
        ensure(
            is_tensor(first) == is_tensor(*other) && shape(first) == shape(*other),
            || {
                format!(
                    "requires {what} to have the same shape, but found {} and {}",
                    show(first),
                    show(*other)
                )
            },
        )?;
    }
    Ok(())
}

/// Whether `ty` is a pointer whose pointee is a ranked tensor (a block pointer).
pub fn is_block_pointer(ty: Type) -> bool {
    as_pointer(ty).is_some_and(|(pointee, _)| is_tensor(pointee))
}

/// The pointee of a scalar pointer or of a tensor of pointers, as `(shape, element pointee)`.
pub fn pointee_elem(ty: Type) -> Option<Type> {
    as_pointer(elem(ty)).map(|(pointee, _)| pointee)
}

pub fn is_int(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsAInteger(ty.to_raw()) }
}

pub fn is_i8(ty: Type) -> bool {
    is_int(ty) && width(ty) == Some(8)
}

pub fn is_i32(ty: Type) -> bool {
    is_int(ty) && width(ty) == Some(32)
}

pub fn is_float(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsAFloat(ty.to_raw()) }
}

pub fn is_pointer(ty: Type) -> bool {
    as_pointer(ty).is_some()
}

pub fn is_f16(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsAF16(ty.to_raw()) }
}

pub fn is_bf16(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsABF16(ty.to_raw()) }
}

pub fn is_f32(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsAF32(ty.to_raw()) }
}

pub fn is_f64(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsAF64(ty.to_raw()) }
}

/// The 8-bit float formats Triton knows.
pub fn is_fp8(ty: Type) -> bool {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type; the kind tests only read it.
    unsafe {
        mlir_sys::mlirTypeIsAFloat8E4M3FN(raw)
            || mlir_sys::mlirTypeIsAFloat8E5M2(raw)
            || mlir_sys::mlirTypeIsAFloat8E4M3FNUZ(raw)
            || mlir_sys::mlirTypeIsAFloat8E5M2FNUZ(raw)
            || mlir_sys::mlirTypeIsAFloat8E4M3B11FNUZ(raw)
            || mlir_sys::mlirTypeIsAFloat8E4M3(raw)
    }
}

/// Bit width of a scalar element (pointers: 64).
pub fn width(ty: Type) -> Option<u32> {
    crate::ir::bit_width(ty)
}

/// Whether `order` is a permutation of `0..rank`.
pub fn is_permutation(order: &[i32], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    order.len() == rank
        && order.iter().all(|&dim| {
            let fresh = dim >= 0 && (dim as usize) < rank && !seen[dim as usize];
            if fresh {
                seen[dim as usize] = true;
            }
            fresh
        })
}

/// If `attribute` is `#ttg.slice<{dim = d, parent = P}>`: `(d, P)`.
pub fn as_slice(attribute: Attribute) -> Option<(i64, Attribute)> {
    let raw = attribute.to_raw();
    // SAFETY: `raw` is a live attribute; dim and parent are read only from a slice encoding, whose
    // parent lives in the same context.
    unsafe {
        ttg::tritiumAttributeIsASliceEncoding(raw).then(|| {
            (
                i64::from(ttg::tritiumSliceEncodingGetDim(raw)),
                Attribute::from_raw(ttg::tritiumSliceEncodingGetParent(raw)),
            )
        })
    }
}

/// If `attribute` is `#ttg.dot_op<{opIdx = i, parent = P, ...}>`: `(i, P)`.
pub fn as_dot_operand(attribute: Attribute) -> Option<(i64, Attribute)> {
    let raw = attribute.to_raw();
    // SAFETY: `raw` is a live attribute; opIdx and parent are read only from a dot_op encoding,
    // whose parent lives in the same context.
    unsafe {
        ttg::tritiumAttributeIsADotOperandEncoding(raw).then(|| {
            (
                i64::from(ttg::tritiumDotOperandEncodingGetOpIdx(raw)),
                Attribute::from_raw(ttg::tritiumDotOperandEncodingGetParent(raw)),
            )
        })
    }
}

/// Checks that `reduced` (the encoding of a tensor with dimension `axis` removed) is the slice of
/// `full`'s encoding along `axis`: `#ttg.slice<{dim = axis, parent = <full's encoding>}>`.
pub fn check_slice_of(full: Type, reduced: Type, axis: i64, what: &str) -> Rule {
    match (encoding(full), encoding(reduced)) {
        (None, None) => Ok(()),
        (Some(parent), Some(slice)) => match as_slice(slice) {
            Some((dim, slice_parent)) if dim == axis && slice_parent == parent => Ok(()),
            _ => Err(format!(
                "requires the encoding of {what} to be #ttg.slice<{{dim = {axis}, parent = {parent}}}>, but found {slice}"
            )),
        },
        (Some(_), None) | (None, Some(_)) => Err(format!(
            "requires {} and {} to both have an encoding or both have none",
            show(full),
            show(reduced)
        )),
    }
}

/// Triton tensors have static, non-empty shapes: every tensor an op touches (block-pointer and
/// descriptor blocks included) has only positive, static dimensions.
pub fn static_shapes(op: &OperationRef) -> Rule {
    for ty in operand_types(op).into_iter().chain(result_types(op)) {
        let block = as_pointer(elem(ty))
            .map(|(pointee, _)| pointee)
            .or_else(|| crate::ir::as_tensor_desc(ty))
            .filter(|pointee| is_tensor(*pointee));
        for tensor in [Some(ty), block]
            .into_iter()
            .flatten()
            .filter(|ty| is_tensor(*ty))
        {
            ensure(shape(tensor).iter().all(|&dim| dim > 0), || {
                format!(
                    "requires tensors with static, positive dimensions, but found {}",
                    show(tensor)
                )
            })?;
        }
    }
    Ok(())
}
