//! Typed helpers over melior for our types and for reading ops.

use crate::ffi;
use melior::ir::{
    Attribute, Type, TypeLike, attribute::AttributeLike, operation::OperationLike,
    r#type::RankedTensorType,
};

/// `!tt.ptr<pointee, address_space>`.
pub fn pointer_type<'c>(pointee: Type<'c>, address_space: i32) -> Type<'c> {
    // SAFETY: `pointee` is a live type; the C API builds the pointer type in its context, which
    // owns it for `'c`.
    unsafe { Type::from_raw(ffi::tritiumPointerTypeGet(pointee.to_raw(), address_space)) }
}

/// If `ty` is `!tt.ptr<T, AS>`: `(T, AS)`.
pub fn as_pointer(ty: Type) -> Option<(Type, i32)> {
    // SAFETY: `ty` is a live type; the pointee and address space are read only from a `!tt.ptr`.
    unsafe {
        ffi::tritiumTypeIsPointer(ty.to_raw()).then(|| {
            (
                Type::from_raw(ffi::tritiumPointerTypeGetPointee(ty.to_raw())),
                ffi::tritiumPointerTypeGetAddressSpace(ty.to_raw()),
            )
        })
    }
}

/// If `ty` is `!tt.tensordesc<tensor<...>>`: the block type.
pub fn as_tensor_desc(ty: Type) -> Option<Type> {
    // SAFETY: `ty` is a live type; the block type is read only from a `!tt.tensordesc`.
    unsafe {
        ffi::tritiumTypeIsTensorDesc(ty.to_raw())
            .then(|| Type::from_raw(ffi::tritiumTensorDescTypeGetBlockType(ty.to_raw())))
    }
}

/// Shape, element type and encoding of a ranked tensor type.
pub struct TensorInfo<'c> {
    pub shape: Vec<i64>,
    pub element: Type<'c>,
    pub encoding: Option<Attribute<'c>>,
}

/// If `ty` is a ranked tensor: its shape, element type and encoding.
pub fn as_tensor(ty: Type) -> Option<TensorInfo> {
    // Check the kind first: melior's `try_from` prints the type into its error otherwise.
    // SAFETY: `ty` is a live type; the kind test only reads it.
    if !unsafe { mlir_sys::mlirTypeIsARankedTensor(ty.to_raw()) } {
        return None;
    }
    let tensor = RankedTensorType::try_from(ty).ok()?;
    // SAFETY: `ty` is a live ranked tensor type (checked above); the getters only read it.
    let rank = unsafe { mlir_sys::mlirShapedTypeGetRank(ty.to_raw()) };
    let shape = (0..rank)
        // SAFETY: `i` is below the rank of the ranked tensor `ty`.
        .map(|i| unsafe { mlir_sys::mlirShapedTypeGetDimSize(ty.to_raw(), i as isize) })
        .collect();
    // SAFETY: `ty` is a live ranked tensor type; its element type lives in the same context.
    let element = unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw())) };
    Some(TensorInfo {
        shape,
        element,
        encoding: tensor.encoding(),
    })
}

/// The element type of a tensor, or the type itself for a scalar.
pub fn element_type(ty: Type) -> Type {
    as_tensor(ty).map(|info| info.element).unwrap_or(ty)
}

/// The shape of a tensor, or `[]` for a scalar.
pub fn shape_of(ty: Type) -> Vec<i64> {
    as_tensor(ty).map(|info| info.shape).unwrap_or_default()
}

/// An op's name as an owned string.
pub fn op_name<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_owned()
}

/// The integer value of an integer attribute (`axis = 1 : i32`), if it is one.
pub fn int_attr<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<i64> {
    let attribute = op.attribute(name).ok()?;
    // SAFETY: `attribute` is a live attribute of `op`; its value is read only when it is an
    // integer.
    unsafe {
        mlir_sys::mlirAttributeIsAInteger(attribute.to_raw())
            .then(|| mlir_sys::mlirIntegerAttrGetValueInt(attribute.to_raw()))
    }
}

/// The values of a `array<i32: ...>` attribute, if it is one.
pub fn i32_array_attr<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<Vec<i32>> {
    let attribute = op.attribute(name).ok()?;
    // SAFETY: `attribute` is a live attribute of `op`; elements are read only from a dense i32
    // array, below its length.
    unsafe {
        let raw = attribute.to_raw();
        mlir_sys::mlirAttributeIsADenseI32Array(raw).then(|| {
            (0..mlir_sys::mlirDenseArrayGetNumElements(raw))
                .map(|i| mlir_sys::mlirDenseI32ArrayGetElement(raw, i))
                .collect()
        })
    }
}

/// The printed form of a type (for diagnostics).
pub fn type_text(ty: Type) -> String {
    ty.to_string()
}

/// Element types as the bit width an element occupies in memory (pointers: 64).
pub fn bit_width(ty: Type) -> Option<u32> {
    if as_pointer(ty).is_some() {
        return Some(64);
    }
    // SAFETY: `ty` is a live type; each width getter is called only on the kind it reads (checked
    // first).
    unsafe {
        let raw = ty.to_raw();
        if mlir_sys::mlirTypeIsAInteger(raw) {
            return Some(mlir_sys::mlirIntegerTypeGetWidth(raw));
        }
        if mlir_sys::mlirTypeIsAFloat(raw) {
            return Some(mlir_sys::mlirFloatTypeGetWidth(raw));
        }
        if mlir_sys::mlirTypeIsAIndex(raw) {
            return Some(64);
        }
    }
    None
}

/// Whether `ty` is a (scalar) float type.
pub fn is_float(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlir_sys::mlirTypeIsAFloat(ty.to_raw()) }
}

/// Whether `ty` is a (scalar) integer type of `width` bits (any width when `None`).
pub fn is_integer(ty: Type, width: Option<u32>) -> bool {
    // SAFETY: `ty` is a live type; the width is read only from an integer type (`&&`
    // short-circuits).
    unsafe {
        mlir_sys::mlirTypeIsAInteger(ty.to_raw())
            && width.is_none_or(|w| mlir_sys::mlirIntegerTypeGetWidth(ty.to_raw()) == w)
    }
}

/// Like [`as_tensor`], but never formats `ty`: checks the type kind before converting, so it is
/// cheap on scalars and safe in verifiers that run while the context is still loading dialects.
pub fn ranked_tensor(ty: Type) -> Option<TensorInfo> {
    let raw = ty.to_raw();
    // SAFETY: `ty` is a live type; the kind test only reads it.
    if !unsafe { mlir_sys::mlirTypeIsARankedTensor(raw) } {
        return None;
    }
    // SAFETY: `raw` is a live ranked tensor type (checked above).
    let rank = unsafe { mlir_sys::mlirShapedTypeGetRank(raw) };
    let shape = (0..rank)
        // SAFETY: `i` is below the rank of the ranked tensor `raw`.
        .map(|i| unsafe { mlir_sys::mlirShapedTypeGetDimSize(raw, i as isize) })
        .collect();
    // SAFETY: `raw` is a live ranked tensor type; its element type lives in the same context.
    let element = unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw)) };
    // SAFETY: `raw` is a live ranked tensor type; a missing encoding is a null attribute, tested
    // below.
    let encoding = unsafe { mlir_sys::mlirRankedTensorTypeGetEncoding(raw) };
    // SAFETY: `encoding` is a non-null attribute owned by the context of `ty`.
    let encoding = (!encoding.ptr.is_null()).then(|| unsafe { Attribute::from_raw(encoding) });
    Some(TensorInfo {
        shape,
        element,
        encoding,
    })
}

/// Parses `source` as a module in `context` (diagnostics go to the context's handlers).
pub fn parse_module<'c>(
    context: &'c melior::Context,
    source: &str,
    filename: &str,
) -> Option<melior::ir::Module<'c>> {
    let source = std::ffi::CString::new(source).ok()?;
    let name = std::ffi::CString::new(filename).ok()?;
    // SAFETY: the context is live and both strings are NUL-terminated and outlive the call (MLIR
    // copies what it keeps); a parsed op that is not a module is destroyed here, as nothing else
    // owns it, and a module is handed to `Module`, which owns and destroys it.
    unsafe {
        use mlir_sys::{
            mlirEmitError, mlirIdentifierStr, mlirModuleFromOperation, mlirOperationCreateParse,
            mlirOperationDestroy, mlirOperationGetLocation, mlirOperationGetName,
            mlirStringRefCreateFromCString,
        };
        let op = mlirOperationCreateParse(
            context.to_raw(),
            mlirStringRefCreateFromCString(source.as_ptr()),
            mlirStringRefCreateFromCString(name.as_ptr()),
        );
        if op.ptr.is_null() {
            return None;
        }
        let module = mlirModuleFromOperation(op);
        if module.ptr.is_null() {
            // A single top-level op that is not a module: say so where it is.
            let message = std::ffi::CString::new(format!(
                "the input must be a module, not '{}'",
                ffi::string_ref_str(mlirIdentifierStr(mlirOperationGetName(op)))
            ))
            .unwrap_or_default();
            mlirEmitError(mlirOperationGetLocation(op), message.as_ptr());
            mlirOperationDestroy(op);
            return None;
        }
        Some(melior::ir::Module::from_raw(module))
    }
}
