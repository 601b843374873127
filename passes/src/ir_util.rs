//! Small raw-handle helpers shared by the passes: values as map keys, types with encodings,
//! inserting `ttg.convert_layout`, and encodings as [`Encoding`]s (the layout crate's one model),
//! converted to and from attributes through the dialect's C accessors.

use mlir_sys::*;
use tritium_dialects::ffi::{str_ref, string_ref_str};
use tritium_layout::encoding::Encoding;

/// A value as a hashable key.
pub fn key(value: MlirValue) -> usize {
    value.ptr as usize
}

pub fn op_name(op: MlirOperation) -> String {
    // SAFETY: `op` is a live operation (every raw handle these helpers take comes from the
    // IR the calling pass transforms, so it is live while the pass runs); its name is owned
    // by the context.
    unsafe { string_ref_str(mlirIdentifierStr(mlirOperationGetName(op))).to_owned() }
}

pub fn operands(op: MlirOperation) -> Vec<MlirValue> {
    // SAFETY: `op` is a live operation; operand `i` exists below the count.
    unsafe {
        (0..mlirOperationGetNumOperands(op))
            .map(|i| mlirOperationGetOperand(op, i))
            .collect()
    }
}

pub fn results(op: MlirOperation) -> Vec<MlirValue> {
    // SAFETY: `op` is a live operation; result `i` exists below the count.
    unsafe {
        (0..mlirOperationGetNumResults(op))
            .map(|i| mlirOperationGetResult(op, i))
            .collect()
    }
}

pub fn value_type(value: MlirValue) -> MlirType {
    // SAFETY: `value` is a live value.
    unsafe { mlirValueGetType(value) }
}

pub fn is_tensor(ty: MlirType) -> bool {
    // SAFETY: `ty` is a live type; the kind test only reads it.
    unsafe { mlirTypeIsARankedTensor(ty) }
}

pub fn shape(ty: MlirType) -> Vec<i64> {
    if !is_tensor(ty) {
        return Vec::new();
    }
    // SAFETY: `ty` is a live ranked tensor type (checked above); `i` is below its rank.
    unsafe {
        (0..mlirShapedTypeGetRank(ty))
            .map(|i| mlirShapedTypeGetDimSize(ty, i as isize))
            .collect()
    }
}

pub fn element_type(ty: MlirType) -> MlirType {
    if is_tensor(ty) {
        // SAFETY: `ty` is a live ranked tensor type (checked above).
        unsafe { mlirShapedTypeGetElementType(ty) }
    } else {
        ty
    }
}

pub fn encoding_attr(ty: MlirType) -> Option<MlirAttribute> {
    if !is_tensor(ty) {
        return None;
    }
    // SAFETY: `ty` is a live ranked tensor type (checked above); no encoding is a null attribute,
    // tested below.
    let attr = unsafe { mlirRankedTensorTypeGetEncoding(ty) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// The text of `attr`, for diagnostics (never parsed back).
pub fn print_attr(attr: MlirAttribute) -> String {
    let mut out = String::new();
    unsafe extern "C" fn append(text: MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `print_attr` passes its own `&mut String` as `data`, alive and not otherwise
        // borrowed during the print call.
        let out = unsafe { &mut *(data as *mut String) };
        // SAFETY: MLIR passes a string ref valid during the callback; the text is copied out.
        out.push_str(unsafe { string_ref_str(text) });
    }
    // SAFETY: `attr` is a live attribute and `out` outlives the call that appends to it through
    // `append`.
    unsafe { mlirAttributePrint(attr, Some(append), &mut out as *mut String as *mut _) };
    out
}

/// The text of `ty`, for diagnostics (never parsed back).
pub fn print_type(ty: MlirType) -> String {
    let mut out = String::new();
    unsafe extern "C" fn append(text: MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `print_type` passes its own `&mut String` as `data`, alive and not otherwise
        // borrowed during the print call.
        let out = unsafe { &mut *(data as *mut String) };
        // SAFETY: MLIR passes a string ref valid during the callback; the text is copied out.
        out.push_str(unsafe { string_ref_str(text) });
    }
    // SAFETY: `ty` is a live type and `out` outlives the call that appends to it through `append`.
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
    // SAFETY: `ty` is a live type; the predicate (`isa_and_nonnull`) accepts any type.
    unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(ty) }.then_some(())?;
    // SAFETY: `ty` is a live `!ttg.memdesc` (checked just above), so the `cast<MemDescType>` of
    // the accessor holds; it returns the memdesc's live encoding attribute.
    let encoding = unsafe { tritium_dialects::ffi::ttg::tritiumMemDescTypeGetEncoding(ty) };
    encoding_from_attr(encoding)
}

/// The MLIR attribute of an encoding, built through the C constructors (the uniqued attribute
/// [`encoding_from_attr`] reads back as `encoding`).
pub fn encoding_to_attr(ctx: MlirContext, encoding: &Encoding) -> MlirAttribute {
    tritium_dialects::encoding::encoding_to_raw(ctx, encoding)
}

/// `ty` (a ranked tensor) with its encoding replaced.
pub fn with_encoding(ty: MlirType, encoding: MlirAttribute) -> MlirType {
    let shape = shape(ty);
    // SAFETY: `ty` is a live ranked tensor type and `encoding` a live attribute (or null: no
    // encoding) of its context; `shape` lives through the call, which copies it.
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
    // SAFETY: `op` is a live operation.
    unsafe { mlirOperationGetContext(op) }
}

pub fn defining_op(value: MlirValue) -> Option<MlirOperation> {
    // SAFETY: `value` is a live value; the owner is read only from an op result.
    unsafe { mlirValueIsAOpResult(value).then(|| mlirOpResultGetOwner(value)) }
}

/// A string attribute of an op, if present.
pub fn string_attr(op: MlirOperation, name: &str) -> Option<String> {
    // SAFETY: attribute queries on a live op; the attribute's kind is checked before its string
    // is read, and the string is copied before returning.
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, tritium_dialects::ffi::str_ref(name));
        (!attr.ptr.is_null() && mlirAttributeIsAString(attr))
            .then(|| string_ref_str(mlirStringAttrGetValue(attr)).to_owned())
    }
}

/// A bool attribute of an op, if present.
pub fn bool_attr(op: MlirOperation, name: &str) -> Option<bool> {
    // SAFETY: `op` is a live operation; the value is read only from a bool attribute.
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, str_ref(name));
        (!attr.ptr.is_null() && mlirAttributeIsABool(attr)).then(|| mlirBoolAttrGetValue(attr))
    }
}

pub fn int_attr(op: MlirOperation, name: &str) -> Option<i64> {
    // SAFETY: `op` is a live operation; the value is read only from an integer attribute.
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, str_ref(name));
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
    // SAFETY: `op` is a live `arith.constant`; every getter is called on an attribute or type of
    // the kind it reads (checked just before): the splat only of a splat dense attribute, the
    // value only of an integer attribute, and the width only of an integer type (an integer
    // attribute may also be an `index`, which has no width).
    unsafe {
        let mut attr = mlirOperationGetAttributeByName(op, str_ref("value"));
        if attr.ptr.is_null() {
            return None;
        }
        if mlirAttributeIsADenseElements(attr) {
            if !mlirDenseElementsAttrIsSplat(attr) {
                return None;
            }
            attr = mlirDenseElementsAttrGetSplatValue(attr);
        }
        if mlirAttributeIsAInteger(attr) {
            let ty = mlirAttributeGetType(attr);
            let width = mlirTypeIsAInteger(ty).then(|| mlirIntegerTypeGetWidth(ty));
            return Some(if width == Some(1) {
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

/// Whether `value` has any use.
pub fn has_uses(value: MlirValue) -> bool {
    // SAFETY: `value` is a live value; its use list is only read.
    unsafe { !mlirValueGetFirstUse(value).ptr.is_null() }
}

/// Whether `value` has exactly one use.
pub fn has_single_use(value: MlirValue) -> bool {
    single_use(value).is_some()
}

/// The only use of `value` as (owner, operand number), if it has exactly one.
pub fn single_use(value: MlirValue) -> Option<(MlirOperation, usize)> {
    let [only] = uses(value)[..] else {
        return None;
    };
    Some(only)
}

/// How many uses `value` has (an op using it twice counts twice).
pub fn use_count(value: MlirValue) -> usize {
    uses(value).len()
}

/// The ops using `value` (once per use).
pub fn users(value: MlirValue) -> Vec<MlirOperation> {
    uses(value).into_iter().map(|(owner, _)| owner).collect()
}

/// Every use of `value` as (owner, operand number).
pub fn uses(value: MlirValue) -> Vec<(MlirOperation, usize)> {
    let mut out = Vec::new();
    // SAFETY: `value` is a live value; its use list is walked while no use is added or removed.
    unsafe {
        let mut operand = mlirValueGetFirstUse(value);
        while !mlirOpOperandIsNull(operand) {
            out.push((
                mlirOpOperandGetOwner(operand),
                mlirOpOperandGetOperandNumber(operand) as usize,
            ));
            operand = mlirOpOperandGetNextUse(operand);
        }
    }
    out
}

/// Whether `value` has uses and every one is an operand of an op named `name`.
pub fn only_used_by(value: MlirValue, name: &str) -> bool {
    let owners = users(value);
    !owners.is_empty() && owners.into_iter().all(|user| op_name(user) == name)
}

/// Walks `op` and everything nested, pre-order.
pub fn walk(op: MlirOperation, f: &mut dyn FnMut(MlirOperation)) {
    f(op);
    // SAFETY: `op` is a live operation; regions are indexed below their count, and each op's next
    // sibling is read before `f` runs on it (so `f` may not erase ops it is not given).
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
    // SAFETY: `op` is a live operation; regions are indexed below their count.
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
    // SAFETY: `block` is a live block; argument `i` exists below the count.
    unsafe {
        (0..mlirBlockGetNumArguments(block))
            .map(|i| mlirBlockGetArgument(block, i))
            .collect()
    }
}

/// The ops directly in `block`, in order (snapshot).
pub fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    // SAFETY: `block` is a live block; it is only read.
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            ops.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
    }
    ops
}

/// Inserts `ttg.convert_layout %value : T -> to` right before `before`, returning the new value.
pub fn insert_convert_before(before: MlirOperation, value: MlirValue, to: MlirType) -> MlirValue {
    let op = tritium_dialects::build::convert_layout(
        // SAFETY: `before` is a live operation.
        unsafe { mlirOperationGetLocation(before) },
        value,
        to,
    );
    // SAFETY: `before` is a live op in a block, which takes ownership of the new convert_layout
    // (one result).
    unsafe {
        let block = mlirOperationGetBlock(before);
        mlirBlockInsertOwnedOperationBefore(block, before, op);
        mlirOperationGetResult(op, 0)
    }
}

/// Inserts `ttg.convert_layout` right after the definition of `value` (or at the start of its
/// block for block arguments) and redirects every other use of `value` to it.
pub fn convert_all_uses_after(value: MlirValue, to: MlirType) -> MlirValue {
    // SAFETY: `value` is a live value, so is its owner op or block; the new convert_layout (one
    // result) is owned by that block, and `except` points to it for the call.
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

    /// Integer constants of every integer-like type, `index` included (which has no width to
    /// read).
    #[test]
    fn constant_ints() {
        let context = new_context();
        let module = tritium_dialects::melior::ir::Module::parse(
            &context,
            "module {
  %a = arith.constant 5 : index
  %b = arith.constant true
  %c = arith.constant dense<-3> : tensor<4xi32>
  %d = arith.constant dense<7> : tensor<4xindex>
  %e = arith.constant dense<[1, 2]> : tensor<2xi32>
  %f = arith.constant 1.0 : f32
}",
        )
        .expect("parses");
        use tritium_dialects::melior::ir::{BlockLike, operation::OperationLike};
        let body = module.body();
        let mut values = vec![];
        let mut op = body.first_operation();
        while let Some(o) = op {
            values.push(constant_int(results(o.to_raw())[0]));
            op = o.next_in_block();
        }
        assert_eq!(values, [Some(5), Some(1), Some(-3), Some(7), None, None]);
    }

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
