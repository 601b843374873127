//! Helpers shared by the TTIR passes: building ops at an insertion point (before an op, or through
//! a pattern rewriter), classifying ops (pure, speculatable, elementwise), loops, constants, and
//! running a list of [`RawPattern`]s with MLIR's greedy driver.
//!
//! Raw handles: every `MlirOperation`, `MlirValue`, `MlirType`, `MlirAttribute` and `MlirBlock`
//! these helpers take comes from the IR the calling pass is transforming (or was just built in its
//! context), so it is live while the pass runs; the C API calls rely on that. Passes run on
//! verified IR, so ops matched by name have the operands, results and regions ODS gives them.

use crate::ir_util::*;
use mlir_sys::*;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::ffi::str_ref;
use tritium_dialects::melior::{ContextRef, create_op_rewrite_pattern};

pub fn string_ref(text: &CString) -> MlirStringRef {
    // SAFETY: `text` is a NUL-terminated string; the ref is used while it lives.
    unsafe { mlirStringRefCreateFromCString(text.as_ptr()) }
}

/// Where new ops go: right before an op, or at a pattern rewriter's insertion point.
#[derive(Clone, Copy)]
pub enum At {
    Before(MlirOperation),
    Rewriter(MlirRewriterBase),
}

impl At {
    pub fn insert(self, op: MlirOperation) -> MlirOperation {
        // SAFETY: (raw handles: see the module documentation) `op` is a new, unattached op;
        // `before` is live and in a block, or `rewriter` is the live rewriter of the running
        // pattern, which takes ownership of `op`.
        unsafe {
            match self {
                At::Before(before) => {
                    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op)
                }
                At::Rewriter(rewriter) => {
                    mlirRewriterBaseInsert(rewriter, op);
                }
            }
        }
        op
    }

    /// Inserts a new op and returns it.
    pub fn op(
        self,
        name: &str,
        loc: MlirLocation,
        operands: &[MlirValue],
        results: &[MlirType],
        attrs: &[(&str, MlirAttribute)],
    ) -> MlirOperation {
        self.insert(tritium_dialects::build::build(
            name, loc, operands, results, attrs,
        ))
    }

    /// Inserts a new single-result op and returns its result.
    pub fn value(
        self,
        name: &str,
        loc: MlirLocation,
        operands: &[MlirValue],
        result: MlirType,
        attrs: &[(&str, MlirAttribute)],
    ) -> MlirValue {
        // SAFETY: the op was just created with exactly one result type.
        unsafe { mlirOperationGetResult(self.op(name, loc, operands, &[result], attrs), 0) }
    }

    /// `name a, b` with the result type of `a` (arith binary ops).
    pub fn binary(self, name: &str, loc: MlirLocation, a: MlirValue, b: MlirValue) -> MlirValue {
        self.value(name, loc, &[a, b], value_type(a), &[])
    }

    /// `arith.cmpi predicate, a, b`.
    pub fn cmpi(self, loc: MlirLocation, predicate: CmpI, a: MlirValue, b: MlirValue) -> MlirValue {
        let ty = value_type(a);
        // SAFETY: `a` is a live value (module documentation), so its type and context are live.
        let ctx = unsafe { mlirTypeGetContext(ty) };
        // SAFETY: `ctx` is the live context of `a`.
        let i1 = unsafe { mlirIntegerTypeGet(ctx, 1) };
        let result = if is_tensor(ty) {
            with_element(ty, i1)
        } else {
            i1
        };
        let attr = ctx.i64_attr(predicate as i64);
        self.value("arith.cmpi", loc, &[a, b], result, &[("predicate", attr)])
    }

    /// `arith.constant` of `attr` (typed attribute).
    pub fn constant(self, loc: MlirLocation, attr: MlirAttribute) -> MlirValue {
        self.value(
            "arith.constant",
            loc,
            &[],
            // SAFETY: `attr` is a live attribute (module documentation).
            unsafe { mlirAttributeGetType(attr) },
            &[("value", attr)],
        )
    }

    /// An integer (or index) constant of type `ty`: a scalar, or a splat when `ty` is a tensor.
    pub fn int_constant(self, loc: MlirLocation, ty: MlirType, value: i64) -> MlirValue {
        self.constant(loc, int_attr_of(ty, value))
    }

    /// `tt.splat value : -> ty`.
    pub fn splat(self, loc: MlirLocation, value: MlirValue, ty: MlirType) -> MlirValue {
        self.value("tt.splat", loc, &[value], ty, &[])
    }
}

/// `arith.cmpi` predicates.
#[derive(Clone, Copy)]
pub enum CmpI {
    Slt = 2,
    Sge = 5,
    Ult = 6,
}

/// An integer attribute of type `ty` (a dense splat when `ty` is a tensor).
pub fn int_attr_of(ty: MlirType, value: i64) -> MlirAttribute {
    // SAFETY: `ty` is a live integer type or tensor of them (module documentation); the attributes
    // are owned by its context.
    unsafe {
        let element = element_type(ty);
        let scalar = mlirIntegerAttrGet(element, value);
        if is_tensor(ty) {
            mlirDenseElementsAttrSplatGet(ty, scalar)
        } else {
            scalar
        }
    }
}

/// A float attribute of type `ty` (a dense splat when `ty` is a tensor).
pub fn float_attr_of(ty: MlirType, value: f64) -> MlirAttribute {
    // SAFETY: `ty` is a live float type or tensor of them (module documentation); the attributes
    // are owned by its context.
    unsafe {
        let element = element_type(ty);
        let scalar = mlirFloatAttrDoubleGet(mlirTypeGetContext(ty), element, value);
        if is_tensor(ty) {
            mlirDenseElementsAttrSplatGet(ty, scalar)
        } else {
            scalar
        }
    }
}

/// A ranked tensor type like `ty` with a new element type (same shape and encoding).
pub fn with_element(ty: MlirType, element: MlirType) -> MlirType {
    let dims = shape(ty);
    // SAFETY: `ty` is a live ranked tensor type (module documentation); `dims` lives through the
    // call, which copies it.
    unsafe {
        mlirRankedTensorTypeGet(
            dims.len() as isize,
            dims.as_ptr(),
            element,
            mlirRankedTensorTypeGetEncoding(ty),
        )
    }
}

/// A ranked tensor type like `ty` with a new shape (same element type and encoding).
pub fn with_shape(ty: MlirType, dims: &[i64]) -> MlirType {
    // SAFETY: `ty` is a live ranked tensor type (module documentation); `dims` lives through the
    // call, which copies it.
    unsafe {
        mlirRankedTensorTypeGet(
            dims.len() as isize,
            dims.as_ptr(),
            element_type(ty),
            mlirRankedTensorTypeGetEncoding(ty),
        )
    }
}

/// `tensor<dims x element>` without encoding.
pub fn tensor_of(dims: &[i64], element: MlirType) -> MlirType {
    // SAFETY: `element` is a live type (module documentation); `dims` lives through the call, which
    // copies it.
    unsafe {
        mlirRankedTensorTypeGet(
            dims.len() as isize,
            dims.as_ptr(),
            element,
            mlirAttributeGetNull(),
        )
    }
}

pub fn location(op: MlirOperation) -> MlirLocation {
    // SAFETY: `op` is a live operation (module documentation).
    unsafe { mlirOperationGetLocation(op) }
}

pub fn attr(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    // SAFETY: `op` is a live operation; the name ref lives for the call.
    let attr = unsafe { mlirOperationGetAttributeByName(op, str_ref(name)) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// After arguments were appended to `func`'s entry block (the first new one at `first_new`):
/// updates its type and gives the new arguments the attribute dictionaries `dicts`, keeping the
/// others' (an empty dictionary for each argument that had none).
pub fn append_argument_attrs(func: MlirOperation, first_new: usize, dicts: &[MlirAttribute]) {
    crate::convert_to_gpu::update_function_type(func);
    let ctx = crate::ir_util::context_of(func);
    // SAFETY: attribute reads on a live op; the new attributes are made in its context from
    // vectors that outlive the calls copying them.
    unsafe {
        let mut all: Vec<MlirAttribute> = match attr(func, "arg_attrs") {
            Some(existing) => (0..mlirArrayAttrGetNumElements(existing))
                .map(|i| mlirArrayAttrGetElement(existing, i))
                .collect(),
            None => Vec::new(),
        };
        all.resize(first_new, mlirDictionaryAttrGet(ctx, 0, std::ptr::null()));
        all.extend_from_slice(dicts);
        set_attr(
            func,
            "arg_attrs",
            mlirArrayAttrGet(ctx, all.len() as isize, all.as_ptr()),
        );
    }
}

pub fn set_attr(op: MlirOperation, name: &str, value: MlirAttribute) {
    // SAFETY: `op` and `value` are live handles of one context; the name ref lives for the call.
    unsafe { mlirOperationSetAttributeByName(op, str_ref(name), value) };
}

/// Sets an inherent attribute (a property) of `op`.
pub fn set_inherent(op: MlirOperation, name: &str, value: MlirAttribute) {
    // SAFETY: `op` and `value` are live handles of one context; the name ref lives for the call.
    unsafe { mlirOperationSetInherentAttributeByName(op, str_ref(name), value) };
}

pub fn remove_attr(op: MlirOperation, name: &str) -> bool {
    // SAFETY: `op` is a live operation; the name ref lives for the call.
    unsafe { mlirOperationRemoveAttributeByName(op, str_ref(name)) }
}

/// The values of an `array<i32: ...>` attribute.
pub fn i32_array(op: MlirOperation, name: &str) -> Option<Vec<i32>> {
    let attr = attr(op, name)?;
    // SAFETY: `attr` is a live attribute of `op`; elements are read only from a dense i32 array,
    // below its length.
    unsafe {
        mlirAttributeIsADenseI32Array(attr).then(|| {
            (0..mlirDenseArrayGetNumElements(attr))
                .map(|i| mlirDenseI32ArrayGetElement(attr, i))
                .collect()
        })
    }
}

pub fn same(a: MlirValue, b: MlirValue) -> bool {
    a.ptr == b.ptr
}

pub fn same_type(a: MlirType, b: MlirType) -> bool {
    // SAFETY: `a` and `b` are live types (module documentation).
    unsafe { mlirTypeEqual(a, b) }
}

/// Result `index` of `op`. Panics (caught and reported by the pass machinery) when `op` has no
/// such result: a bug in the pass, not in the IR.
pub fn result(op: MlirOperation, index: usize) -> MlirValue {
    let count = results(op).len();
    assert!(
        index < count,
        "result #{index} of an op with {count} results"
    );
    // SAFETY: `op` is a live operation and `index` below its result count (checked above).
    unsafe { mlirOperationGetResult(op, index as isize) }
}

/// Operand `index` of `op`. Panics (caught and reported by the pass machinery) when `op` has no
/// such operand: a bug in the pass, not in the IR.
pub fn operand(op: MlirOperation, index: usize) -> MlirValue {
    let count = operands(op).len();
    assert!(
        index < count,
        "operand #{index} of an op with {count} operands"
    );
    // SAFETY: `op` is a live operation and `index` below its operand count (checked above).
    unsafe { mlirOperationGetOperand(op, index as isize) }
}

/// The op defining `value` if it is named `name`.
pub fn defined_by(value: MlirValue, name: &str) -> Option<MlirOperation> {
    defining_op(value).filter(|op| op_name(*op) == name)
}

/// The splat element of an `arith.constant` (scalar or dense splat).
pub fn constant_element(value: MlirValue) -> Option<MlirAttribute> {
    let op = defined_by(value, "arith.constant")?;
    let attr = attr(op, "value")?;
    // SAFETY: `attr` is the live `value` attribute of an `arith.constant`; the splat is read only
    // from a splat dense attribute.
    unsafe {
        if mlirAttributeIsADenseElements(attr) {
            return mlirDenseElementsAttrIsSplat(attr)
                .then(|| mlirDenseElementsAttrGetSplatValue(attr));
        }
        (mlirAttributeIsAInteger(attr) || mlirAttributeIsAFloat(attr)).then_some(attr)
    }
}

/// Whether `value` is a constant (scalar or splat) zero: integer 0 or float ±0.0.
pub fn is_zero_constant(value: MlirValue) -> bool {
    let Some(element) = constant_element(value) else {
        return false;
    };
    // SAFETY: `element` is a live attribute; each value is read only from the kind it belongs to
    // (checked first).
    unsafe {
        if mlirAttributeIsAInteger(element) {
            return mlirIntegerAttrGetValueInt(element) == 0;
        }
        mlirAttributeIsAFloat(element) && mlirFloatAttrGetValueDouble(element) == 0.0
    }
}

pub fn num_regions(op: MlirOperation) -> usize {
    // SAFETY: `op` is a live operation (module documentation).
    unsafe { mlirOperationGetNumRegions(op) as usize }
}

/// The first block of region `index` of `op`. Panics (caught and reported by the pass
/// machinery) when `op` has no such region: a bug in the pass, not in the IR.
pub fn body(op: MlirOperation, index: usize) -> MlirBlock {
    let count = num_regions(op);
    assert!(
        index < count,
        "region #{index} of an op with {count} regions"
    );
    // SAFETY: `op` is a live operation with a region `index` (checked above).
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index as isize)) }
}

/// The terminator of `block`. Panics (caught and reported by the pass machinery) on an empty
/// region's null block.
pub fn terminator(block: MlirBlock) -> MlirOperation {
    assert!(!block.ptr.is_null(), "the terminator of an empty region");
    // SAFETY: `block` is a live, non-null block (checked above).
    unsafe { mlirBlockGetTerminator(block) }
}

/// Whether `ancestor` is `op` or one of its parents.
pub fn is_ancestor(ancestor: MlirOperation, op: MlirOperation) -> bool {
    let mut current = op;
    while !current.ptr.is_null() {
        if current.ptr == ancestor.ptr {
            return true;
        }
        // SAFETY: `current` is a live, non-null operation (the loop condition).
        current = unsafe { mlirOperationGetParentOperation(current) };
    }
    false
}

/// The op owning the block `value` is defined in (its defining op's parent, or its block's).
fn value_parent_op(value: MlirValue) -> MlirOperation {
    // SAFETY: `value` is a live value (module documentation): an op result has an owner op, a block
    // argument an owner block, both in the IR.
    unsafe {
        if mlirValueIsAOpResult(value) {
            mlirOperationGetParentOperation(mlirOpResultGetOwner(value))
        } else {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(value))
        }
    }
}

/// Whether `value` is defined outside `op` (not by it, nor inside its regions).
pub fn defined_outside(value: MlirValue, op: MlirOperation) -> bool {
    if defining_op(value).is_some_and(|def| def.ptr == op.ptr) {
        return false;
    }
    !is_ancestor(op, value_parent_op(value))
}

/// Every operand of every op nested in `op` (itself included) that is defined outside `op`.
pub fn external_operands(op: MlirOperation) -> Vec<MlirValue> {
    let mut out = Vec::new();
    walk(op, &mut |nested| {
        for value in operands(nested) {
            if defined_outside(value, op) {
                out.push(value);
            }
        }
    });
    out
}

/// Replaces every use of `from` by `to`.
pub fn replace_uses(from: MlirValue, to: MlirValue) {
    // SAFETY: `from` and `to` are live values of one context (module documentation).
    unsafe { mlirValueReplaceAllUsesOfWith(from, to) };
}

pub fn erase(op: MlirOperation) {
    // SAFETY: `op` is a live operation that the caller has detached from its uses (module
    // documentation); it is not used afterwards.
    unsafe { mlirOperationDestroy(op) };
}

// ----------------------------------------------------------------------------------------------
// Op classes
// ----------------------------------------------------------------------------------------------

/// Elementwise ops with no memory effects (Triton's `Elementwise` + memory-effect free).
pub fn is_pure_elementwise(name: &str) -> bool {
    (name.starts_with("arith.") && name != "arith.constant")
        || name.starts_with("math.")
        || matches!(
            name,
            "tt.addptr"
                | "tt.int_to_ptr"
                | "tt.ptr_to_int"
                | "tt.bitcast"
                | "tt.fp_to_fp"
                | "tt.clampf"
                | "tt.precise_sqrt"
                | "tt.precise_divf"
                | "tt.mulhiui"
        )
}

/// Ops without memory effects (CSE may merge two identical ones).
pub fn is_pure(name: &str) -> bool {
    is_pure_elementwise(name)
        || matches!(
            name,
            "arith.constant"
                | "ub.poison"
                | "tt.splat"
                | "tt.unsplat"
                | "tt.expand_dims"
                | "tt.reshape"
                | "tt.broadcast"
                | "tt.cat"
                | "tt.join"
                | "tt.split"
                | "tt.trans"
                | "tt.get_program_id"
                | "tt.get_num_programs"
                | "tt.make_range"
                | "tt.dot"
                | "tt.dot_scaled"
                | "tt.reduce"
                | "tt.scan"
                | "tt.histogram"
                | "tt.gather"
                | "tt.make_tensor_ptr"
                | "tt.advance"
                | "tt.make_tensor_descriptor"
                | "ttg.convert_layout"
        )
}

/// Whether `op` is pure and may also run when its result is not needed (hoisting it out of a
/// loop that runs no iteration is safe): integer division and remainder only by a constant that
/// is neither 0 nor -1.
pub fn is_speculatable(op: MlirOperation) -> bool {
    let name = op_name(op);
    if !is_pure(&name) {
        return false;
    }
    if matches!(
        name.as_str(),
        "arith.divsi"
            | "arith.divui"
            | "arith.remsi"
            | "arith.remui"
            | "arith.ceildivsi"
            | "arith.ceildivui"
            | "arith.floordivsi"
    ) {
        return constant_int(operand(op, 1)).is_some_and(|divisor| divisor != 0 && divisor != -1);
    }
    true
}

/// Ops that may write memory, or whose effects we do not know. Ops with regions count only for
/// themselves: callers walk the nested ops.
pub fn may_write(op: MlirOperation) -> bool {
    let name = op_name(op);
    if is_pure(&name) {
        return false;
    }
    let flag = |key: &str| {
        // SAFETY: `a` is a live attribute of `op`; the bool is read only from a bool attribute
        // (`&&` short-circuits).
        attr(op, key).is_some_and(|a| unsafe { mlirAttributeIsABool(a) && mlirBoolAttrGetValue(a) })
    };
    match name.as_str() {
        "tt.load" => flag("isVolatile"),
        "tt.extern_elementwise" => !flag("pure"),
        "tt.descriptor_load"
        | "tt.descriptor_gather"
        | "scf.for"
        | "scf.if"
        | "scf.while"
        | "scf.yield"
        | "scf.condition"
        | "tt.reduce.return"
        | "tt.scan.return"
        | "tt.map_elementwise"
        | "tt.map_elementwise.return"
        | "tt.return" => false,
        _ => true,
    }
}

// ----------------------------------------------------------------------------------------------
// Loops
// ----------------------------------------------------------------------------------------------

/// `scf.for` operands: lower bound, upper bound, step, then the iter_args' initial values.
pub struct ForParts {
    pub lb: MlirValue,
    pub ub: MlirValue,
    pub step: MlirValue,
    pub inits: Vec<MlirValue>,
}

pub fn for_parts(op: MlirOperation) -> ForParts {
    let ins = operands(op);
    ForParts {
        lb: ins[0],
        ub: ins[1],
        step: ins[2],
        inits: ins[3..].to_vec(),
    }
}

/// Copies every attribute of `from` (inherent and discardable) onto `to`.
///
/// The attribute names are copied as string refs into `mlirOperationSetAttributeByName`, which
/// interns them.
pub fn copy_attributes(from: MlirOperation, to: MlirOperation) {
    // SAFETY: `from` and `to` are live operations of one context; attribute `i` exists below the
    // count.
    unsafe {
        for i in 0..mlirOperationGetNumAttributes(from) {
            let named = mlirOperationGetAttribute(from, i);
            mlirOperationSetAttributeByName(to, mlirIdentifierStr(named.name), named.attribute);
        }
    }
}

/// A new op right before `old`, with its name and attributes, the given operands and result
/// types, and `old`'s regions moved into it unchanged: the caller adjusts block arguments,
/// terminators and the uses of `old`'s results, then erases `old`.
pub fn rebuild(old: MlirOperation, operands: &[MlirValue], results: &[MlirType]) -> MlirOperation {
    let name = op_name(old);
    // SAFETY: `old` is a live operation with `num_regions(old)` regions; the operand and result
    // handles belong to its context; `name`, `operands`, `results` and `regions` outlive the
    // state, which `mlirOperationCreate` consumes (taking ownership of the new regions).
    unsafe {
        let mut state = mlirOperationStateGet(str_ref(&name), location(old));
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let count = num_regions(old);
        let regions: Vec<MlirRegion> = (0..count).map(|_| mlirRegionCreate()).collect();
        mlirOperationStateAddOwnedRegions(&mut state, count as isize, regions.as_ptr());
        let new = mlirOperationCreate(&mut state);
        copy_attributes(old, new);
        for index in 0..count as isize {
            mlirRegionTakeBody(
                mlirOperationGetRegion(new, index),
                mlirOperationGetRegion(old, index),
            );
        }
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(old), old, new);
        new
    }
}

/// [`rebuild`] for `scf.for`: same bounds, new initial values (and so result types).
pub fn rebuild_for(old: MlirOperation, inits: &[MlirValue]) -> MlirOperation {
    let parts = for_parts(old);
    let mut ins = vec![parts.lb, parts.ub, parts.step];
    ins.extend_from_slice(inits);
    let types: Vec<MlirType> = inits.iter().map(|v| value_type(*v)).collect();
    rebuild(old, &ins, &types)
}

/// Replaces all operands of `op` by `values`.
pub fn set_operands(op: MlirOperation, values: &[MlirValue]) {
    // SAFETY: `op` is a live operation and every value a live value of its context; `values` lives
    // through the call, which copies it.
    unsafe { mlirOperationSetOperands(op, values.len() as isize, values.as_ptr()) };
}

// ----------------------------------------------------------------------------------------------
// Patterns
// ----------------------------------------------------------------------------------------------

/// A pattern body on raw handles: rewrites `op` through `rewriter` (whose insertion point is right
/// before `op`) and returns whether it changed anything. Returning false must leave the IR as is.
pub type RawPattern = fn(MlirOperation, MlirRewriterBase) -> bool;

/// Runs `patterns` (root op name, pattern) on `op` and everything nested with MLIR's greedy
/// driver, folding and erasing dead ops as it goes (as Triton's pattern passes do). Returns false
/// when the driver did not converge.
pub fn apply_patterns(op: MlirOperation, patterns: &[(&str, RawPattern)]) -> bool {
    // SAFETY: `op` is a live operation; the pattern set is consumed by freezing, the frozen set and
    // the config are destroyed after the driver, and each pattern gets the live op and rewriter of
    // its match.
    unsafe {
        let ctx = mlirOperationGetContext(op);
        let context = ContextRef::from_raw(ctx);
        let set = mlirRewritePatternSetCreate(ctx);
        for (root, pattern) in patterns {
            let pattern = *pattern;
            let rewrite = create_op_rewrite_pattern(
                root,
                1,
                context.to_ref(),
                move |_pattern, op, rewriter| {
                    catch_unwind(AssertUnwindSafe(|| {
                        let rewriter = mlirPatternRewriterAsBase(rewriter);
                        mlirRewriterBaseSetInsertionPointBefore(rewriter, op);
                        pattern(op, rewriter)
                    }))
                    .unwrap_or(false)
                },
                &[],
            );
            mlirRewritePatternSetAdd(set, rewrite.into_raw());
        }
        let frozen = mlirFreezeRewritePattern(set);
        let config = mlirGreedyRewriteDriverConfigCreate();
        let result = mlirApplyPatternsAndFoldGreedilyWithOp(op, frozen, config);
        mlirGreedyRewriteDriverConfigDestroy(config);
        mlirFrozenRewritePatternSetDestroy(frozen);
        result.value != 0
    }
}

/// Replaces `op` with `values` through the rewriter.
pub fn rewrite_replace(
    rewriter: MlirRewriterBase,
    op: MlirOperation,
    values: &[MlirValue],
) -> bool {
    // SAFETY: `rewriter` is the live rewriter of the running pattern and `op` the op it matched;
    // `values` lives through the call.
    unsafe {
        mlirRewriterBaseReplaceOpWithValues(rewriter, op, values.len() as isize, values.as_ptr())
    };
    true
}
