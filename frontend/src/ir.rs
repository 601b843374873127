//! Building TTIR through the MLIR C API: ops by name with operands, result types, attributes and
//! regions (the generic `create` pattern of `tritium_lowering::builder`), types and attributes by
//! their C constructors. Nothing here prints or parses IR.
//!
//! Every handle in this module belongs to the one context an [`Ir`] was made with, which outlives
//! it; that is the invariant each `unsafe` block below relies on.

use mlir_sys::*;
pub use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::ffi::{str_ref, tritiumPointerTypeGet, tritiumTensorDescTypeGet};

pub type Value = MlirValue;
pub type Type = MlirType;
pub type Attr = MlirAttribute;

/// The insertion state: ops are appended to `block`, located at `loc`.
pub struct Ir {
    pub ctx: MlirContext,
    pub loc: MlirLocation,
    pub block: MlirBlock,
    /// The file named in new locations.
    pub file: String,
}

impl Ir {
    /// A builder for `ctx` (live for as long as the builder) creating ops of file `file`.
    pub fn new(ctx: MlirContext, file: &str, block: MlirBlock) -> Ir {
        // SAFETY: `ctx` is a live context; the location is uniqued in it.
        let loc = unsafe { mlirLocationUnknownGet(ctx) };
        Ir {
            ctx,
            loc,
            block,
            file: file.to_owned(),
        }
    }

    /// `loc("file":line:col)`.
    pub fn file_loc(&self, line: u32, col: u32) -> MlirLocation {
        // SAFETY: live context; the file name is copied into the uniqued location.
        unsafe { mlirLocationFileLineColGet(self.ctx, str_ref(&self.file), line, col) }
    }

    /// `loc("name"(child))`.
    pub fn name_loc(&self, name: &str, child: MlirLocation) -> MlirLocation {
        // SAFETY: live context and location; the name is copied.
        unsafe { mlirLocationNameGet(self.ctx, str_ref(name), child) }
    }

    /// Creates `name` at the current location and appends it to the current block.
    pub fn op(
        &self,
        name: &str,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, Attr)],
        regions: Vec<MlirRegion>,
    ) -> MlirOperation {
        let op = self.make(name, operands, results, attrs, regions);
        // SAFETY: `op` was just created and is owned by nobody; the block takes it.
        unsafe { mlirBlockAppendOwnedOperation(self.block, op) };
        op
    }

    /// [`Ir::op`] with one result, returned.
    pub fn op1(
        &self,
        name: &str,
        operands: &[Value],
        result: Type,
        attrs: &[(&str, Attr)],
    ) -> Value {
        result0(self.op(name, operands, &[result], attrs, Vec::new()))
    }

    /// Creates an op without inserting it.
    pub fn make(
        &self,
        name: &str,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, Attr)],
        mut regions: Vec<MlirRegion>,
    ) -> MlirOperation {
        // SAFETY: the state borrows `name`, the slices and `named` only until mlirOperationCreate
        // returns; the regions are moved into the new op, which then owns them.
        unsafe {
            let named: Vec<MlirNamedAttribute> = attrs
                .iter()
                .map(|(key, attr)| MlirNamedAttribute {
                    name: mlirIdentifierGet(self.ctx, str_ref(key)),
                    attribute: *attr,
                })
                .collect();
            let mut state = mlirOperationStateGet(str_ref(name), self.loc);
            if !operands.is_empty() {
                mlirOperationStateAddOperands(
                    &mut state,
                    operands.len() as isize,
                    operands.as_ptr(),
                );
            }
            if !results.is_empty() {
                mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
            }
            if !named.is_empty() {
                mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            }
            if !regions.is_empty() {
                mlirOperationStateAddOwnedRegions(
                    &mut state,
                    regions.len() as isize,
                    regions.as_mut_ptr(),
                );
            }
            mlirOperationCreate(&mut state)
        }
    }

    /// A new block (not in any region) with arguments of `types`.
    pub fn new_block(&self, types: &[Type]) -> MlirBlock {
        let locs = vec![self.loc; types.len()];
        // SAFETY: types and locations are live handles of this context; the block is owned by the
        // caller until put into a region.
        unsafe { mlirBlockCreate(types.len() as isize, types.as_ptr(), locs.as_ptr()) }
    }

    /// A region owning `block`.
    pub fn region_of(&self, block: MlirBlock) -> MlirRegion {
        // SAFETY: `block` is a detached block; the new region takes ownership of it.
        unsafe {
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, block);
            region
        }
    }

    // Types.

    pub fn int(&self, bits: u32) -> Type {
        // SAFETY: live context.
        unsafe { mlirIntegerTypeGet(self.ctx, bits) }
    }
    pub fn f16(&self) -> Type {
        // SAFETY: live context.
        unsafe { mlirF16TypeGet(self.ctx) }
    }
    pub fn bf16(&self) -> Type {
        // SAFETY: live context.
        unsafe { mlirBF16TypeGet(self.ctx) }
    }
    pub fn f32(&self) -> Type {
        // SAFETY: live context.
        unsafe { mlirF32TypeGet(self.ctx) }
    }
    pub fn f64(&self) -> Type {
        // SAFETY: live context.
        unsafe { mlirF64TypeGet(self.ctx) }
    }
    pub fn f8e4m3fn(&self) -> Type {
        // SAFETY: live context.
        unsafe { mlirFloat8E4M3FNTypeGet(self.ctx) }
    }
    pub fn f8e5m2(&self) -> Type {
        // SAFETY: live context.
        unsafe { mlirFloat8E5M2TypeGet(self.ctx) }
    }
    /// `!tt.ptr<pointee, 1>`.
    pub fn ptr(&self, pointee: Type) -> Type {
        // SAFETY: `pointee` is a live type of this context.
        unsafe { tritiumPointerTypeGet(pointee, 1) }
    }
    /// `tensor<shape x element>` (no encoding).
    pub fn tensor(&self, shape: &[i64], element: Type) -> Type {
        // SAFETY: live element type; the shape is copied; a null encoding means none.
        unsafe {
            mlirRankedTensorTypeGet(
                shape.len() as isize,
                shape.as_ptr(),
                element,
                mlirAttributeGetNull(),
            )
        }
    }
    pub fn function_type(&self, inputs: &[Type], results: &[Type]) -> Type {
        // SAFETY: live types; the arrays are copied.
        unsafe {
            mlirFunctionTypeGet(
                self.ctx,
                inputs.len() as isize,
                inputs.as_ptr(),
                results.len() as isize,
                results.as_ptr(),
            )
        }
    }

    // Attributes (the rest: `ContextAttrs`).

    pub fn splat_attr(&self, ty: Type, element: Attr) -> Attr {
        // SAFETY: `ty` is a live shaped type whose element type is `element`'s type.
        unsafe { mlirDenseElementsAttrSplatGet(ty, element) }
    }
}

impl ContextAttrs for Ir {
    fn context(&self) -> MlirContext {
        self.ctx
    }
}

/// `!tt.tensordesc<block>`.
pub fn tensor_desc_type(block: Type) -> Type {
    // SAFETY: `block` is a live ranked tensor type of the context the descriptor type is made in.
    unsafe { tritiumTensorDescTypeGet(block) }
}

/// `dense<[values]> : tensor<N x i32>` (the form of Triton's `tt.divisibility`-style hints).
pub fn dense_i32_elements(ir: &Ir, values: &[i32]) -> Attr {
    let ty = ir.tensor(&[values.len() as i64], ir.int(32));
    // SAFETY: a live shaped type with as many elements as `values`, which is copied.
    unsafe { mlirDenseElementsAttrInt32Get(ty, values.len() as isize, values.as_ptr()) }
}

/// A new detached block with arguments of `types` located at `locs` (one each).
pub fn new_block_with_locs(types: &[Type], locs: &[MlirLocation]) -> MlirBlock {
    // SAFETY: live types and locations, as many of each; the caller owns the block.
    unsafe { mlirBlockCreate(types.len() as isize, types.as_ptr(), locs.as_ptr()) }
}

/// Result 0 of `op`.
pub fn result0(op: MlirOperation) -> Value {
    result(op, 0)
}

/// Result `i` of `op` (which has it).
pub fn result(op: MlirOperation, i: usize) -> Value {
    // SAFETY: `op` is a live op with more than `i` results (its builder asked for them).
    unsafe { mlirOperationGetResult(op, i as isize) }
}

/// Argument `i` of `block`.
pub fn block_arg(block: MlirBlock, i: usize) -> Value {
    // SAFETY: `block` is live with more than `i` arguments (made with them).
    unsafe { mlirBlockGetArgument(block, i as isize) }
}

/// The block owning `value` and its position there, if `value` is a block argument.
pub fn block_arg_position(value: Value) -> Option<(MlirBlock, usize)> {
    // SAFETY: `value` is live; a block argument has an owner block and a number.
    unsafe {
        mlirValueIsABlockArgument(value).then(|| {
            (
                mlirBlockArgumentGetOwner(value),
                mlirBlockArgumentGetArgNumber(value) as usize,
            )
        })
    }
}

/// Sets the discardable attribute `name` on `op`.
pub fn set_attr(op: MlirOperation, name: &str, attr: Attr) {
    // SAFETY: live op and attribute; the name is copied.
    unsafe { mlirOperationSetDiscardableAttributeByName(op, str_ref(name), attr) }
}

/// The op defining `value`, if it is an op result.
pub fn defining_op(value: Value) -> Option<MlirOperation> {
    // SAFETY: `value` is live; the owner of an op result is its op.
    unsafe { mlirValueIsAOpResult(value).then(|| mlirOpResultGetOwner(value)) }
}

/// Appends `op` (detached) to the body of `module`.
pub fn module_append(module: MlirModule, op: MlirOperation) {
    // SAFETY: live module; `op` is detached, and the module body takes it.
    unsafe { mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), op) }
}

/// A new empty module at `loc`.
pub fn new_module(loc: MlirLocation) -> MlirModule {
    // SAFETY: live location; the caller owns the module (and hands it to melior).
    unsafe { mlirModuleCreateEmpty(loc) }
}

/// Destroys a module the caller owns and gives up.
pub fn destroy_module(module: MlirModule) {
    // SAFETY: the caller owns `module` and does not use it afterwards.
    unsafe { mlirModuleDestroy(module) }
}

/// Destroys a detached block the caller owns (used when an error abandons a region in building).
pub fn destroy_block(block: MlirBlock) {
    // SAFETY: the caller owns the detached `block` and does not use it afterwards.
    unsafe { mlirBlockDestroy(block) }
}
