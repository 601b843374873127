//! Reading the parsed module through the MLIR C API: ops, regions, attributes, types and
//! locations. Every handle passed in comes from the module being interpreted, which outlives the
//! interpreter's run, so the handles are live for every call here.

use crate::value::{Elem, Num};
use mlir_sys::*;
use tritium_dialects::ffi::{self, string_ref_str};

pub use tritium_passes::ir_util::{
    block_args, block_ops, bool_attr, int_attr, key, op_name, operands, results, string_attr,
    value_type,
};
pub use tritium_passes::ttir::util::attr;

/// The blocks of region `index` of `op`.
pub fn region_blocks(op: MlirOperation, index: isize) -> Vec<MlirBlock> {
    let mut blocks = Vec::new();
    // SAFETY: `op` is live; the region is read only below the op's region count.
    unsafe {
        if index >= mlirOperationGetNumRegions(op) {
            return blocks;
        }
        let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
        while !block.ptr.is_null() {
            blocks.push(block);
            block = mlirBlockGetNextInRegion(block);
        }
    }
    blocks
}

/// Whether `op` has an attribute `name` (unit attributes have nothing else).
pub fn has_attr(op: MlirOperation, name: &str) -> bool {
    attr(op, name).is_some()
}

/// The values of a `array<i32: ...>` attribute.
pub fn i32_array_attr(op: MlirOperation, name: &str) -> Option<Vec<i64>> {
    let attr = attr(op, name)?;
    // SAFETY: elements are read only from a dense i32 array, below its length.
    unsafe {
        mlirAttributeIsADenseI32Array(attr).then(|| {
            (0..mlirDenseArrayGetNumElements(attr))
                .map(|i| i64::from(mlirDenseI32ArrayGetElement(attr, i)))
                .collect()
        })
    }
}

/// The symbol a `FlatSymbolRefAttr` attribute names.
pub fn symbol_ref_attr(op: MlirOperation, name: &str) -> Option<String> {
    let attr = attr(op, name)?;
    // SAFETY: the value is read only from a flat symbol reference; it is copied at once.
    unsafe {
        mlirAttributeIsAFlatSymbolRef(attr)
            .then(|| string_ref_str(mlirFlatSymbolRefAttrGetValue(attr)).to_owned())
    }
}

/// A scalar attribute's value: integers (and bools) as `i64`, floats as `f64`.
pub enum AttrValue {
    Int(i64),
    Float(f64),
}

pub fn scalar_attr_value(attr: MlirAttribute) -> Option<AttrValue> {
    // SAFETY: each getter is called on the attribute kind it reads, tested just before.
    unsafe {
        if mlirAttributeIsAInteger(attr) {
            Some(AttrValue::Int(mlirIntegerAttrGetValueInt(attr)))
        } else if mlirAttributeIsABool(attr) {
            Some(AttrValue::Int(-i64::from(mlirBoolAttrGetValue(attr))))
        } else if mlirAttributeIsAFloat(attr) {
            Some(AttrValue::Float(mlirFloatAttrGetValueDouble(attr)))
        } else {
            None
        }
    }
}

/// The elements of a constant's `value`: one value for a scalar or a splat (`splat`), else all
/// of them in row-major order.
pub fn constant_values(attr: MlirAttribute) -> Option<(Vec<AttrValue>, bool)> {
    // SAFETY: each getter is called on the attribute kind it reads (tested first); element
    // indices are below the shape of the elements attribute's type.
    unsafe {
        if !mlirAttributeIsAElements(attr) {
            return scalar_attr_value(attr).map(|v| (vec![v], true));
        }
        if mlirAttributeIsADenseElements(attr) && mlirDenseElementsAttrIsSplat(attr) {
            return scalar_attr_value(mlirDenseElementsAttrGetSplatValue(attr))
                .map(|v| (vec![v], true));
        }
        let ty = mlirAttributeGetType(attr);
        let shape: Vec<u64> = (0..mlirShapedTypeGetRank(ty))
            .map(|i| mlirShapedTypeGetDimSize(ty, i as isize) as u64)
            .collect();
        let n: u64 = shape.iter().product();
        let mut values = Vec::with_capacity(n as usize);
        let mut index = vec![0u64; shape.len()];
        for _ in 0..n {
            let element = mlirElementsAttrGetValue(attr, index.len() as isize, index.as_mut_ptr());
            values.push(scalar_attr_value(element)?);
            for d in (0..shape.len()).rev() {
                index[d] += 1;
                if index[d] < shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Some((values, false))
    }
}

/// The shape of a ranked tensor type (`[]` for anything else).
pub fn shape(ty: MlirType) -> Vec<usize> {
    tritium_passes::ir_util::shape(ty)
        .into_iter()
        .map(|d| d.max(0) as usize)
        .collect()
}

/// A numeric scalar type.
pub fn num_of(ty: MlirType) -> Option<Num> {
    // SAFETY: `ty` is live; each kind test only reads it and the width is read from an integer.
    unsafe {
        Some(if mlirTypeIsAInteger(ty) {
            Num::Int(mlirIntegerTypeGetWidth(ty))
        } else if mlirTypeIsAIndex(ty) {
            Num::Int(64)
        } else if mlirTypeIsAF32(ty) {
            Num::F32
        } else if mlirTypeIsAF16(ty) {
            Num::F16
        } else if mlirTypeIsABF16(ty) {
            Num::BF16
        } else if mlirTypeIsAF64(ty) {
            Num::F64
        } else if mlirTypeIsAFloat8E4M3FN(ty) {
            Num::F8E4M3FN
        } else if mlirTypeIsAFloat8E5M2(ty) {
            Num::F8E5M2
        } else if ffi::tritiumTypeIsPointer(ty) {
            Num::Addr
        } else {
            return None;
        })
    }
}

/// What a type is to the interpreter.
pub enum TypeKind {
    /// A scalar or tensor of `Elem`, with its shape.
    Block(Elem, Vec<usize>),
    /// `!tt.ptr<tensor<shape x T>>`.
    BlockPtr(Num, Vec<usize>),
    /// `!tt.tensordesc<tensor<shape x T>>`.
    Desc(Num, Vec<usize>),
    /// `!ttg.memdesc<shape x T, ...>`.
    MemDesc(Num, Vec<usize>),
    /// `!ttg.async.token`.
    Token,
}

pub fn type_kind(ty: MlirType) -> Option<TypeKind> {
    // SAFETY: `ty` is live; element, pointee and block types are read only from the kinds that
    // have them (tested first).
    unsafe {
        if ffi::ttg::tritiumTypeIsMemDesc(ty) {
            let mut dims = [0i64; 8];
            let rank =
                ffi::ttg::tritiumMemDescTypeGetShape(ty, dims.as_mut_ptr(), dims.len() as isize);
            let rank = (rank.max(0) as usize).min(dims.len());
            return Some(TypeKind::MemDesc(
                num_of(ffi::ttg::tritiumMemDescTypeGetElementType(ty))?,
                dims[..rank].iter().map(|&d| d.max(0) as usize).collect(),
            ));
        }
        if ffi::ttg::tritiumTypeIsAsyncToken(ty) {
            return Some(TypeKind::Token);
        }
        if ffi::tritiumTypeIsTensorDesc(ty) {
            let block = ffi::tritiumTensorDescTypeGetBlockType(ty);
            return Some(TypeKind::Desc(
                num_of(mlirShapedTypeGetElementType(block))?,
                shape(block),
            ));
        }
        let (element, dims) = if mlirTypeIsARankedTensor(ty) {
            (mlirShapedTypeGetElementType(ty), shape(ty))
        } else {
            (ty, Vec::new())
        };
        if ffi::tritiumTypeIsPointer(element) {
            let pointee = ffi::tritiumPointerTypeGetPointee(element);
            if mlirTypeIsARankedTensor(pointee) {
                return Some(TypeKind::BlockPtr(
                    num_of(mlirShapedTypeGetElementType(pointee))?,
                    shape(pointee),
                ));
            }
            return Some(TypeKind::Block(Elem::Ptr(num_of(pointee)?), dims));
        }
        Some(TypeKind::Block(Elem::Num(num_of(element)?), dims))
    }
}

/// The printed form of a type, for messages.
pub fn type_text(ty: MlirType) -> String {
    tritium_passes::ir_util::print_type(ty)
}

/// `file:line:col` of `op` (the first file position its location holds: named and call-site
/// locations wrap one), or the location's text when it has none.
pub fn location(op: MlirOperation) -> String {
    // SAFETY: `op` is live; its location is owned by the context.
    let loc = unsafe { mlirOperationGetLocation(op) };
    file_position(loc).unwrap_or_else(|| location_text(loc))
}

fn file_position(loc: MlirLocation) -> Option<String> {
    // SAFETY: `loc` is live; each getter is called on the location kind it reads.
    unsafe {
        if mlirLocationIsAFileLineColRange(loc) {
            let file = string_ref_str(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
                loc,
            )));
            let line = mlirLocationFileLineColRangeGetStartLine(loc);
            let col = mlirLocationFileLineColRangeGetStartColumn(loc);
            Some(format!("{file}:{line}:{col}"))
        } else if mlirLocationIsAName(loc) {
            file_position(mlirLocationNameGetChildLoc(loc))
        } else if mlirLocationIsACallSite(loc) {
            file_position(mlirLocationCallSiteGetCallee(loc))
                .or_else(|| file_position(mlirLocationCallSiteGetCaller(loc)))
        } else if mlirLocationIsAFused(loc) {
            let n = mlirLocationFusedGetNumLocations(loc) as usize;
            let mut locs = vec![mlirLocationUnknownGet(mlirLocationGetContext(loc)); n];
            mlirLocationFusedGetLocations(loc, locs.as_mut_ptr());
            locs.into_iter().find_map(file_position)
        } else {
            None
        }
    }
}

fn location_text(loc: MlirLocation) -> String {
    let mut text = String::new();
    unsafe extern "C" fn append(part: MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the `&mut String` passed to mlirLocationPrint below, live and not
        // otherwise borrowed while it prints; `part` is valid during this call.
        unsafe { (*(data as *mut String)).push_str(string_ref_str(part)) };
    }
    // SAFETY: `loc` is live and `append` only writes to `text`, which outlives the call.
    unsafe { mlirLocationPrint(loc, Some(append), &mut text as *mut String as *mut _) };
    text
}

/// The `tt.func`s of a module by symbol name.
pub fn functions(module: MlirOperation) -> Vec<(String, MlirOperation)> {
    let mut funcs = Vec::new();
    for block in region_blocks(module, 0) {
        for op in block_ops(block) {
            if op_name(op) == "tt.func"
                && let Some(name) = string_attr(op, "sym_name")
            {
                funcs.push((name, op));
            }
        }
    }
    funcs
}

/// The name of a value's named location (`loc("x_ptr")`, as Triton gives kernel arguments);
/// empty when it has none.
pub fn value_name(value: MlirValue) -> String {
    // SAFETY: `value` is live; the name is read only from a name location and copied at once.
    unsafe {
        let loc = mlirValueGetLocation(value);
        if mlirLocationIsAName(loc) {
            string_ref_str(mlirIdentifierStr(mlirLocationNameGetName(loc))).to_owned()
        } else {
            String::new()
        }
    }
}
