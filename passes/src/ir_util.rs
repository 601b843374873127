//! Small raw-handle helpers shared by the passes: values as map keys, types with encodings,
//! inserting `ttg.convert_layout`, and encodings as [`Encoding`]s (the layout crate's one model),
//! converted to and from attributes through the dialect's C accessors.

use mlir_sys::*;
use std::ffi::CString;
use tritium_dialects::ffi::string_ref_str;
use tritium_layout::encoding::Encoding;

/// A value as a hashable key.
pub fn key(value: MlirValue) -> usize {
    value.ptr as usize
}

pub fn op_name(op: MlirOperation) -> String {
    unsafe { string_ref_str(mlirIdentifierStr(mlirOperationGetName(op))).to_owned() }
}

pub fn operands(op: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        (0..mlirOperationGetNumOperands(op))
            .map(|i| mlirOperationGetOperand(op, i))
            .collect()
    }
}

pub fn results(op: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        (0..mlirOperationGetNumResults(op))
            .map(|i| mlirOperationGetResult(op, i))
            .collect()
    }
}

pub fn value_type(value: MlirValue) -> MlirType {
    unsafe { mlirValueGetType(value) }
}

pub fn is_tensor(ty: MlirType) -> bool {
    unsafe { mlirTypeIsARankedTensor(ty) }
}

pub fn shape(ty: MlirType) -> Vec<i64> {
    if !is_tensor(ty) {
        return Vec::new();
    }
    unsafe {
        (0..mlirShapedTypeGetRank(ty))
            .map(|i| mlirShapedTypeGetDimSize(ty, i as isize))
            .collect()
    }
}

pub fn element_type(ty: MlirType) -> MlirType {
    if is_tensor(ty) {
        unsafe { mlirShapedTypeGetElementType(ty) }
    } else {
        ty
    }
}

pub fn encoding_attr(ty: MlirType) -> Option<MlirAttribute> {
    if !is_tensor(ty) {
        return None;
    }
    let attr = unsafe { mlirRankedTensorTypeGetEncoding(ty) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// The text of `attr`, for diagnostics (never parsed back).
pub fn print_attr(attr: MlirAttribute) -> String {
    let mut out = String::new();
    unsafe extern "C" fn append(text: MlirStringRef, data: *mut std::ffi::c_void) {
        let out = unsafe { &mut *(data as *mut String) };
        out.push_str(unsafe { string_ref_str(text) });
    }
    unsafe { mlirAttributePrint(attr, Some(append), &mut out as *mut String as *mut _) };
    out
}

/// The text of `ty`, for diagnostics (never parsed back).
pub fn print_type(ty: MlirType) -> String {
    let mut out = String::new();
    unsafe extern "C" fn append(text: MlirStringRef, data: *mut std::ffi::c_void) {
        let out = unsafe { &mut *(data as *mut String) };
        out.push_str(unsafe { string_ref_str(text) });
    }
    unsafe { mlirTypePrint(ty, Some(append), &mut out as *mut String as *mut _) };
    out
}

/// The encoding of a ranked tensor type (every `#ttg.*` kind, `#ttg.linear` included); `None`
/// for other types, tensors without an encoding, or another dialect's.
pub fn encoding_of(ty: MlirType) -> Option<Encoding> {
    encoding_from_attr(encoding_attr(ty)?)
}

/// The encoding of any `#ttg.*` encoding attribute (a tensor's, a `!ttg.memdesc`'s, ...), read
/// through the C accessors; `None` for other attributes.
pub fn encoding_from_attr(attr: MlirAttribute) -> Option<Encoding> {
    tritium_dialects::encoding::encoding_from_raw(attr)
}

/// The encoding of a `!ttg.memdesc` type; `None` for other types.
pub fn memdesc_encoding_of(ty: MlirType) -> Option<Encoding> {
    unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(ty) }.then_some(())?;
    encoding_from_attr(unsafe { tritium_dialects::ffi::ttg::tritiumMemDescTypeGetEncoding(ty) })
}

/// The MLIR attribute of an encoding, built through the C constructors (the uniqued attribute
/// [`encoding_from_attr`] reads back as `encoding`).
pub fn encoding_to_attr(ctx: MlirContext, encoding: &Encoding) -> MlirAttribute {
    tritium_dialects::encoding::encoding_to_raw(ctx, encoding)
}

/// `ty` (a ranked tensor) with its encoding replaced.
pub fn with_encoding(ty: MlirType, encoding: MlirAttribute) -> MlirType {
    let shape = shape(ty);
    unsafe {
        mlirRankedTensorTypeGet(
            shape.len() as isize,
            shape.as_ptr(),
            element_type(ty),
            encoding,
        )
    }
}

pub fn context_of(op: MlirOperation) -> MlirContext {
    unsafe { mlirOperationGetContext(op) }
}

pub fn defining_op(value: MlirValue) -> Option<MlirOperation> {
    unsafe { mlirValueIsAOpResult(value).then(|| mlirOpResultGetOwner(value)) }
}

pub fn int_attr(op: MlirOperation, name: &str) -> Option<i64> {
    let name = CString::new(name).unwrap();
    unsafe {
        let attr =
            mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name.as_ptr()));
        (!attr.ptr.is_null() && mlirAttributeIsAInteger(attr))
            .then(|| mlirIntegerAttrGetValueInt(attr))
    }
}

/// The integer of `arith.constant` (scalar or splat), if `value` is one.
pub fn constant_int(value: MlirValue) -> Option<i64> {
    let op = defining_op(value)?;
    if op_name(op) != "arith.constant" {
        return None;
    }
    let name = CString::new("value").unwrap();
    unsafe {
        let mut attr =
            mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name.as_ptr()));
        if mlirAttributeIsADenseElements(attr) {
            if !mlirDenseElementsAttrIsSplat(attr) {
                return None;
            }
            attr = mlirDenseElementsAttrGetSplatValue(attr);
        }
        if mlirAttributeIsAInteger(attr) {
            let width = mlirIntegerTypeGetWidth(mlirAttributeGetType(attr));
            return Some(if width == 1 {
                (mlirIntegerAttrGetValueInt(attr) & 1) as i64
            } else {
                mlirIntegerAttrGetValueInt(attr)
            });
        }
        if mlirAttributeIsABool(attr) {
            return Some(mlirBoolAttrGetValue(attr) as i64);
        }
    }
    None
}

/// Walks `op` and everything nested, pre-order.
pub fn walk(op: MlirOperation, f: &mut dyn FnMut(MlirOperation)) {
    f(op);
    unsafe {
        for r in 0..mlirOperationGetNumRegions(op) {
            let region = mlirOperationGetRegion(op, r);
            let mut block = mlirRegionGetFirstBlock(region);
            while !block.ptr.is_null() {
                let mut child = mlirBlockGetFirstOperation(block);
                while !child.ptr.is_null() {
                    let next = mlirOperationGetNextInBlock(child);
                    walk(child, f);
                    child = next;
                }
                block = mlirBlockGetNextInRegion(block);
            }
        }
    }
}

/// All ops nested in `op`, pre-order (snapshot: safe to mutate while iterating).
pub fn collect_ops(op: MlirOperation) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    walk(op, &mut |child| ops.push(child));
    ops
}

pub fn blocks_of(op: MlirOperation) -> Vec<MlirBlock> {
    let mut blocks = Vec::new();
    unsafe {
        for r in 0..mlirOperationGetNumRegions(op) {
            let region = mlirOperationGetRegion(op, r);
            let mut block = mlirRegionGetFirstBlock(region);
            while !block.ptr.is_null() {
                blocks.push(block);
                block = mlirBlockGetNextInRegion(block);
            }
        }
    }
    blocks
}

pub fn block_args(block: MlirBlock) -> Vec<MlirValue> {
    unsafe {
        (0..mlirBlockGetNumArguments(block))
            .map(|i| mlirBlockGetArgument(block, i))
            .collect()
    }
}

/// Inserts `ttg.convert_layout %value : T -> to` right before `before`, returning the new value.
pub fn insert_convert_before(before: MlirOperation, value: MlirValue, to: MlirType) -> MlirValue {
    let op = tritium_dialects::build::convert_layout(
        unsafe { mlirOperationGetLocation(before) },
        value,
        to,
    );
    unsafe {
        let block = mlirOperationGetBlock(before);
        mlirBlockInsertOwnedOperationBefore(block, before, op);
        mlirOperationGetResult(op, 0)
    }
}

/// Inserts `ttg.convert_layout` right after the definition of `value` (or at the start of its
/// block for block arguments) and redirects every other use of `value` to it.
pub fn convert_all_uses_after(value: MlirValue, to: MlirType) -> MlirValue {
    unsafe {
        let (block, after) = if mlirValueIsAOpResult(value) {
            let owner = mlirOpResultGetOwner(value);
            (mlirOperationGetBlock(owner), Some(owner))
        } else {
            (mlirBlockArgumentGetOwner(value), None)
        };
        let loc = match after {
            Some(owner) => mlirOperationGetLocation(owner),
            None => mlirLocationUnknownGet(mlirTypeGetContext(to)),
        };
        let op = tritium_dialects::build::convert_layout(loc, value, to);
        match after {
            Some(owner) => mlirBlockInsertOwnedOperationAfter(block, owner, op),
            None => mlirBlockInsertOwnedOperation(block, 0, op),
        }
        let converted = mlirOperationGetResult(op, 0);
        let mut except = op;
        mlirValueReplaceAllUsesExcept(value, converted, 1, &mut except);
        converted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritium_dialects::context::new_context;
    use tritium_dialects::melior::ir::{Type, TypeLike};
    use tritium_layout::encoding::{LinearEncoding, SliceEncoding};

    #[test]
    fn encodings_of_types_round_trip_through_the_accessors() {
        let context = new_context();
        let ctx = context.to_raw();
        let linear = "#ttg.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>";
        let ty = Type::parse(&context, &format!("tensor<128x2xf32, {linear}>")).unwrap();
        let encoding = encoding_of(ty.to_raw()).expect("a linear encoding");
        assert_eq!(
            encoding,
            tritium_layout::text::parse_encoding(linear).unwrap()
        );
        assert!(matches!(&encoding, Encoding::Linear(l) if l.lane[0] == [1, 1]));
        let attr = encoding_to_attr(ctx, &encoding);
        assert_eq!(attr.ptr, encoding_attr(ty.to_raw()).unwrap().ptr);
        // Built in Rust, read back.
        let slice = Encoding::Slice(SliceEncoding::new(1, encoding.clone()));
        let column = Type::parse(&context, "tensor<128xf32>").unwrap();
        let sliced = with_encoding(column.to_raw(), encoding_to_attr(ctx, &slice));
        assert_eq!(encoding_of(sliced), Some(slice));
        let map = encoding.to_linear(&[128, 2]).unwrap();
        assert_eq!(
            LinearEncoding::from_layout(&map).map(Encoding::Linear),
            Ok(encoding)
        );
        // Buffers, and types without a ttg encoding.
        let md = Type::parse(
            &context,
            "!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, #ttg.shared_memory>",
        )
        .unwrap();
        assert!(matches!(
            memdesc_encoding_of(md.to_raw()),
            Some(Encoding::SwizzledShared(s)) if s.max_phase == 8
        ));
        assert_eq!(encoding_of(md.to_raw()), None);
        let plain = Type::parse(&context, "tensor<4xf32>").unwrap();
        assert_eq!(encoding_of(plain.to_raw()), None);
        assert_eq!(memdesc_encoding_of(plain.to_raw()), None);
    }
}
