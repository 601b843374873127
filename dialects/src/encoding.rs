//! `#ttg.*` encodings and `!ttg.memdesc` in Rust, through the C accessors of `cpp/TritonGPUCAPI.cpp`.
//!
//! An encoding's one Rust model is [`tritium_layout::Encoding`] (re-exported here). This module
//! converts MLIR attributes to it and back field by field through the C accessors (never through
//! attribute text): [`encoding_from_raw`]/[`encoding_to_raw`] on raw handles, and
//! [`EncodingAttribute::from_attribute`]/[`EncodingAttribute::to_attribute`] on melior's. A
//! conversion to an attribute and back gives the identical (uniqued) attribute.
//!
//! The rules about an encoding on its own are [`Encoding::verify`] in the layout crate; the parser
//! of every encoding runs them through [`tritium_verify_encoding`]. Rules that need the module
//! (warps per CTA against `ttg.num-warps`, encoding rank against tensor rank) live in
//! `verify/ttg.rs`.

use crate::ffi::ttg as ffi;
use melior::{
    Context,
    ir::{Attribute, Type, TypeLike, attribute::AttributeLike},
};
use mlir_sys::{MlirAttribute, MlirContext, MlirStringRef};
use std::ffi::{c_uint, c_void};
pub use tritium_layout::encoding::{
    BlockedEncoding, CtaLayout, DotOperandEncoding, Encoding, LinearEncoding, NvidiaMmaEncoding,
    NvmmaSharedEncoding, SliceEncoding, SwizzledSharedEncoding,
};

/// Calls a C array getter twice: for the length, then for the values.
///
/// `get(out, capacity)` is only ever called as `(NULL, 0)` or with `out` pointing to `capacity`
/// writable, initialized `T`s (a `Vec` of exactly that length).
///
/// # Safety
/// `get` must behave like the array getters of `cpp/TritonGPUCAPI.cpp` (`copyOut`): write at most
/// `capacity` values to `out` (nothing when `out` is NULL or `capacity` is 0) and return the
/// array's full length, the same on both calls (attributes and types are immutable).
unsafe fn read_array<T: Copy + Default>(get: impl Fn(*mut T, isize) -> isize) -> Vec<T> {
    let len = get(std::ptr::null_mut(), 0).max(0) as usize;
    let mut values = vec![T::default(); len];
    if len > 0 {
        get(values.as_mut_ptr(), len as isize);
    }
    values
}

/// [`read_array`] for `unsigned` arrays.
///
/// # Safety
/// As for [`read_array`].
unsafe fn read_u32s(get: impl Fn(*mut c_uint, isize) -> isize) -> Vec<u32> {
    // SAFETY: the caller guarantees that `get` is a capacity-respecting C array getter.
    unsafe { read_array(get) }
}

/// The CTA parameters of a blocked, nvidia_mma, swizzled_shared or nvmma_shared attribute; one CTA
/// in the default order (what the text omits) reads as [`CtaLayout::single`].
///
/// # Safety
/// `attr` must be a live, non-null attribute (`withCTAParams` `dyn_cast`s it, which asserts on
/// NULL). Any kind is accepted: the getters read 0 values from other attributes.
unsafe fn read_cta(attr: MlirAttribute) -> CtaLayout {
    // SAFETY: `attr` is a live non-null attribute (this function's contract); the three CTA
    // getters `dyn_cast` it to one of the four kinds with CTA parameters (0 for any other kind),
    // and `copyOut` writes at most `capacity` values to `out`, which is what `read_array` needs.
    let layout = unsafe {
        CtaLayout::new(
            read_u32s(|o, c| ffi::tritiumEncodingGetCTAsPerCGA(attr, o, c)),
            read_u32s(|o, c| ffi::tritiumEncodingGetCTASplitNum(attr, o, c)),
            read_u32s(|o, c| ffi::tritiumEncodingGetCTAOrder(attr, o, c)),
        )
    };
    if layout.is_omitted() {
        CtaLayout::single()
    } else {
        layout
    }
}

/// `values` with exactly `len` entries (padded with `fill`): the constructors read `len` values
/// from every array, whatever Rust holds.
fn exactly(values: &[u32], len: usize, fill: u32) -> Vec<u32> {
    let mut out = values.to_vec();
    out.resize(len, fill);
    out
}

/// The CTA arrays for a constructor of a rank-`rank` encoding: `None` (NULL pointers) for one CTA
/// in the default order, which the constructor fills in (or leaves empty, for nvmma_shared).
fn cta_arrays(cta: &CtaLayout, rank: usize) -> Option<[Vec<u32>; 3]> {
    if cta.is_omitted() {
        return None;
    }
    let default_order: Vec<u32> = (0..rank as u32).rev().collect();
    let mut order = cta.cta_order.clone();
    if order.len() != rank {
        order = default_order;
    }
    Some([
        exactly(&cta.ctas_per_cga, rank, 1),
        exactly(&cta.cta_split_num, rank, 1),
        order,
    ])
}

fn pointers(arrays: &Option<[Vec<u32>; 3]>) -> [*const c_uint; 3] {
    match arrays {
        Some([a, b, c]) => [a.as_ptr(), b.as_ptr(), c.as_ptr()],
        None => [std::ptr::null(); 3],
    }
}

/// Reads a `#ttg.*` encoding attribute through the C accessors; `None` for a null or any other
/// attribute (or a slice/dot_op whose parent is not a `ttg` encoding).
pub fn encoding_from_raw(a: MlirAttribute) -> Option<Encoding> {
    if a.ptr.is_null() {
        return None;
    }
    // SAFETY: `a` is non-null (checked above) and, like every raw handle this module takes, a live
    // attribute of a live context. The `tritiumAttributeIsA*` predicates use `isa_and_nonnull`,
    // so they accept any attribute. Every kind-specific accessor (`cast<...>` in
    // TritonGPUCAPI.cpp, which asserts on the wrong kind) is called only inside the branch whose
    // predicate checked that kind; the shared getters (`WarpsPerCTA`, `Order`, the CTA arrays)
    // `dyn_cast` and read 0 values from the other kinds. The array getters copy at most
    // `capacity` values (`copyOut`), as `read_array` needs. Slice and dot_op parents are live
    // attributes of the same context (a NULL one is rejected by the recursive call).
    unsafe {
        if ffi::tritiumAttributeIsABlockedEncoding(a) {
            return Some(Encoding::Blocked(BlockedEncoding {
                size_per_thread: read_u32s(|o, c| {
                    ffi::tritiumBlockedEncodingGetSizePerThread(a, o, c)
                }),
                threads_per_warp: read_u32s(|o, c| {
                    ffi::tritiumBlockedEncodingGetThreadsPerWarp(a, o, c)
                }),
                warps_per_cta: read_u32s(|o, c| ffi::tritiumEncodingGetWarpsPerCTA(a, o, c)),
                order: read_u32s(|o, c| ffi::tritiumEncodingGetOrder(a, o, c)),
                cta_layout: read_cta(a),
            }));
        }
        if ffi::tritiumAttributeIsASliceEncoding(a) {
            let parent = encoding_from_raw(ffi::tritiumSliceEncodingGetParent(a))?;
            return Some(Encoding::Slice(SliceEncoding::new(
                ffi::tritiumSliceEncodingGetDim(a),
                parent,
            )));
        }
        if ffi::tritiumAttributeIsANvidiaMmaEncoding(a) {
            return Some(Encoding::NvidiaMma(NvidiaMmaEncoding {
                version_major: ffi::tritiumNvidiaMmaEncodingGetVersionMajor(a),
                version_minor: ffi::tritiumNvidiaMmaEncodingGetVersionMinor(a),
                warps_per_cta: read_u32s(|o, c| ffi::tritiumEncodingGetWarpsPerCTA(a, o, c)),
                instr_shape: read_u32s(|o, c| ffi::tritiumNvidiaMmaEncodingGetInstrShape(a, o, c)),
                cta_layout: read_cta(a),
            }));
        }
        if ffi::tritiumAttributeIsADotOperandEncoding(a) {
            let parent = encoding_from_raw(ffi::tritiumDotOperandEncodingGetParent(a))?;
            return Some(Encoding::DotOperand(DotOperandEncoding::new(
                ffi::tritiumDotOperandEncodingGetOpIdx(a),
                parent,
                ffi::tritiumDotOperandEncodingGetKWidth(a),
            )));
        }
        if ffi::tritiumAttributeIsALinearEncoding(a) {
            let rank = ffi::tritiumLinearEncodingGetRank(a);
            let bases = |which| -> Vec<Vec<u32>> {
                let flat: Vec<i32> =
                    read_array(|o, c| ffi::tritiumLinearEncodingGetBases(a, which, o, c));
                if rank == 0 {
                    return Vec::new();
                }
                // Negative values (never parsed; only built) read as out-of-range ones, which
                // `Encoding::verify` rejects.
                flat.chunks(rank as usize)
                    .map(|basis| basis.iter().map(|&v| v as u32).collect())
                    .collect()
            };
            return Some(Encoding::Linear(LinearEncoding {
                rank,
                register: bases(ffi::LINEAR_REGISTER),
                lane: bases(ffi::LINEAR_LANE),
                warp: bases(ffi::LINEAR_WARP),
                block: bases(ffi::LINEAR_BLOCK),
            }));
        }
        if ffi::tritiumAttributeIsASwizzledSharedEncoding(a) {
            return Some(Encoding::SwizzledShared(SwizzledSharedEncoding {
                vec: ffi::tritiumSwizzledSharedEncodingGetVec(a),
                per_phase: ffi::tritiumSwizzledSharedEncodingGetPerPhase(a),
                max_phase: ffi::tritiumSwizzledSharedEncodingGetMaxPhase(a),
                order: read_u32s(|o, c| ffi::tritiumEncodingGetOrder(a, o, c)),
                cta_layout: read_cta(a),
            }));
        }
        if ffi::tritiumAttributeIsANvmmaSharedEncoding(a) {
            return Some(Encoding::NvmmaShared(NvmmaSharedEncoding {
                swizzling_byte_width: ffi::tritiumNvmmaSharedEncodingGetSwizzlingByteWidth(a),
                transposed: ffi::tritiumNvmmaSharedEncodingGetTransposed(a),
                element_bit_width: ffi::tritiumNvmmaSharedEncodingGetElementBitWidth(a),
                fp4_padded: ffi::tritiumNvmmaSharedEncodingGetFp4Padded(a),
                cta_layout: read_cta(a),
            }));
        }
    }
    None
}

/// The attribute of `encoding` in `ctx`, built through the C constructors. Not verified (see
/// [`Encoding::verify`]); arrays shorter than the encoding's rank are padded rather than read out
/// of bounds. [`encoding_from_raw`] of the result gives `encoding` back whenever it verifies.
pub fn encoding_to_raw(ctx: MlirContext, encoding: &Encoding) -> MlirAttribute {
    // SAFETY: `ctx` is a live context (this module's contract for raw handles). Each constructor
    // reads exactly `rank` values from every array it gets (`arrayIn`/`CTAIn` in
    // TritonGPUCAPI.cpp), and every array passed holds at least that many: `exactly` pads or cuts
    // each array to the rank, `cta_arrays` returns three arrays of exactly `rank` values (or NULL
    // pointers, which the constructors replace by defaults or leave empty, with a CTA rank of 0
    // for nvmma_shared), instr_shape is passed with its own length, and the linear bases are
    // flattened to `len * rank` values, matching `num * rank` on the C++ side. The arrays live to
    // the end of their match arm, past the call, and are copied into the uniqued attribute.
    // Slice and dot_op parents are live attributes built in the same context.
    unsafe {
        match encoding {
            Encoding::Blocked(b) => {
                let rank = b.size_per_thread.len();
                let threads = exactly(&b.threads_per_warp, rank, 1);
                let warps = exactly(&b.warps_per_cta, rank, 1);
                let order = exactly(&b.order, rank, 0);
                let cta = cta_arrays(&b.cta_layout, rank);
                let [ctas, split, cta_order] = pointers(&cta);
                ffi::tritiumBlockedEncodingGet(
                    ctx,
                    rank as isize,
                    b.size_per_thread.as_ptr(),
                    threads.as_ptr(),
                    warps.as_ptr(),
                    order.as_ptr(),
                    ctas,
                    split,
                    cta_order,
                )
            }
            Encoding::Slice(s) => {
                ffi::tritiumSliceEncodingGet(ctx, s.dim, encoding_to_raw(ctx, &s.parent))
            }
            Encoding::NvidiaMma(m) => {
                let rank = m.warps_per_cta.len();
                let cta = cta_arrays(&m.cta_layout, rank);
                let [ctas, split, order] = pointers(&cta);
                ffi::tritiumNvidiaMmaEncodingGet(
                    ctx,
                    m.version_major,
                    m.version_minor,
                    rank as isize,
                    m.warps_per_cta.as_ptr(),
                    m.instr_shape.len() as isize,
                    m.instr_shape.as_ptr(),
                    ctas,
                    split,
                    order,
                )
            }
            Encoding::DotOperand(d) => ffi::tritiumDotOperandEncodingGet(
                ctx,
                d.op_idx,
                encoding_to_raw(ctx, &d.parent),
                d.k_width,
            ),
            Encoding::Linear(l) => {
                let flat = |bases: &[Vec<u32>]| -> Vec<i32> {
                    bases
                        .iter()
                        .flat_map(|basis| exactly(basis, l.rank(), 0))
                        .map(|v| v as i32)
                        .collect()
                };
                let (r, la, w, b) = (
                    flat(&l.register),
                    flat(&l.lane),
                    flat(&l.warp),
                    flat(&l.block),
                );
                ffi::tritiumLinearEncodingGet(
                    ctx,
                    l.rank,
                    r.as_ptr(),
                    l.register.len() as isize,
                    la.as_ptr(),
                    l.lane.len() as isize,
                    w.as_ptr(),
                    l.warp.len() as isize,
                    b.as_ptr(),
                    l.block.len() as isize,
                )
            }
            Encoding::SwizzledShared(s) => {
                let rank = s.order.len();
                let cta = cta_arrays(&s.cta_layout, rank);
                let [ctas, split, cta_order] = pointers(&cta);
                ffi::tritiumSwizzledSharedEncodingGet(
                    ctx,
                    s.vec,
                    s.per_phase,
                    s.max_phase,
                    rank as isize,
                    s.order.as_ptr(),
                    ctas,
                    split,
                    cta_order,
                )
            }
            Encoding::NvmmaShared(n) => {
                let c = &n.cta_layout;
                let rank = c
                    .ctas_per_cga
                    .len()
                    .max(c.cta_split_num.len())
                    .max(c.cta_order.len());
                let cta = cta_arrays(c, rank);
                let [ctas, split, order] = pointers(&cta);
                ffi::tritiumNvmmaSharedEncodingGet(
                    ctx,
                    n.swizzling_byte_width,
                    n.transposed,
                    n.element_bit_width,
                    n.fp4_padded,
                    if cta.is_some() { rank as isize } else { 0 },
                    ctas,
                    split,
                    order,
                )
            }
        }
    }
}

/// Converting [`Encoding`]s to and from melior attributes (import the trait to write
/// `Encoding::from_attribute(attr)` and `encoding.to_attribute(&context)`).
pub trait EncodingAttribute: Sized {
    /// Reads a `#ttg.*` encoding; `None` for any other attribute (or a slice/dot_op of one).
    fn from_attribute(attr: Attribute) -> Option<Self>;
    /// The attribute for this encoding (not verified: see [`Encoding::verify`]).
    fn to_attribute<'c>(&self, context: &'c Context) -> Attribute<'c>;
}

impl EncodingAttribute for Encoding {
    fn from_attribute(attr: Attribute) -> Option<Encoding> {
        encoding_from_raw(attr.to_raw())
    }

    fn to_attribute<'c>(&self, context: &'c Context) -> Attribute<'c> {
        // SAFETY: `encoding_to_raw` returns a non-null attribute uniqued in `context`, which
        // outlives `'c`.
        unsafe { Attribute::from_raw(encoding_to_raw(context.to_raw(), self)) }
    }
}

/// `#ttg.shared_memory`.
pub fn shared_memory_space(context: &Context) -> Attribute<'_> {
    // SAFETY: `context` is live (borrowed) and has the ttg dialect loaded; the result is a non-null
    // attribute uniqued in it.
    unsafe { Attribute::from_raw(ffi::tritiumSharedMemorySpaceGet(context.to_raw())) }
}

/// Whether `attr` is a shared-memory encoding (`#ttg.swizzled_shared` or `#ttg.nvmma_shared`).
pub fn is_shared_encoding(attr: Attribute) -> bool {
    // SAFETY: `attr` is a live attribute; the predicate uses `isa_and_nonnull`, so any kind is fine.
    unsafe { ffi::tritiumAttributeIsASharedEncoding(attr.to_raw()) }
}

/// Whether `attr` is `#ttg.shared_memory`.
pub fn is_shared_memory_space(attr: Attribute) -> bool {
    // SAFETY: `attr` is a live attribute; the predicate uses `isa_and_nonnull`, so any kind is fine.
    unsafe { ffi::tritiumAttributeIsASharedMemorySpace(attr.to_raw()) }
}

/// `!ttg.async.token`.
pub fn async_token_type(context: &Context) -> Type<'_> {
    // SAFETY: `context` is live (borrowed) and has the ttg dialect loaded; the result is a non-null
    // type uniqued in it.
    unsafe { Type::from_raw(ffi::tritiumAsyncTokenTypeGet(context.to_raw())) }
}

/// Whether `ty` is `!ttg.async.token`.
pub fn is_async_token(ty: Type) -> bool {
    // SAFETY: `ty` is a live type; the predicate uses `isa_and_nonnull`, so any kind is fine.
    unsafe { ffi::tritiumTypeIsAsyncToken(ty.to_raw()) }
}

/// `!ttg.memdesc<shape x element, encoding, memory_space[, mutable][, alloc_shape]>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemDesc<'c> {
    pub shape: Vec<i64>,
    pub element: Type<'c>,
    pub encoding: Attribute<'c>,
    pub memory_space: Attribute<'c>,
    pub mutable: bool,
    /// The shape of the whole allocation this is a view of (equal to `shape` when it is all of it).
    pub alloc_shape: Vec<i64>,
}

impl<'c> MemDesc<'c> {
    /// A whole buffer in shared memory.
    pub fn new(
        context: &'c Context,
        shape: Vec<i64>,
        element: Type<'c>,
        encoding: Attribute<'c>,
        mutable: bool,
    ) -> Self {
        let alloc_shape = shape.clone();
        MemDesc {
            shape,
            element,
            encoding,
            memory_space: shared_memory_space(context),
            mutable,
            alloc_shape,
        }
    }

    /// Reads a `!ttg.memdesc` type.
    pub fn from_type(ty: Type<'c>) -> Option<Self> {
        let raw = ty.to_raw();
        // SAFETY: `raw` is a live type of a context that outlives `'c`; `tritiumTypeIsMemDesc`
        // (`isa_and_nonnull`) accepts any type, and the `cast<MemDescType>` accessors run only
        // after it returned true. The shape getters copy at most `capacity` values (`copyOut`).
        // The element type, encoding and memory space of a memdesc are non-null (its parser
        // requires all three; `to_type` passes non-null melior handles) and live in that context.
        unsafe {
            if !ffi::tritiumTypeIsMemDesc(raw) {
                return None;
            }
            Some(MemDesc {
                shape: read_array(|o, c| ffi::tritiumMemDescTypeGetShape(raw, o, c)),
                element: Type::from_raw(ffi::tritiumMemDescTypeGetElementType(raw)),
                encoding: Attribute::from_raw(ffi::tritiumMemDescTypeGetEncoding(raw)),
                memory_space: Attribute::from_raw(ffi::tritiumMemDescTypeGetMemorySpace(raw)),
                mutable: ffi::tritiumMemDescTypeIsMutable(raw),
                alloc_shape: read_array(|o, c| ffi::tritiumMemDescTypeGetAllocShape(raw, o, c)),
            })
        }
    }

    /// The type.
    pub fn to_type(&self) -> Type<'c> {
        // SAFETY: the element type, encoding and memory space are live handles of the `'c`
        // context; `shape` and `alloc_shape` are passed with their own lengths (`Vec::as_ptr` is
        // non-null, so an empty `alloc_shape` is read as 0 values, not as "same as shape") and
        // are copied into the uniqued type during the call.
        unsafe {
            Type::from_raw(ffi::tritiumMemDescTypeGet(
                self.element.to_raw(),
                self.shape.len() as isize,
                self.shape.as_ptr(),
                self.encoding.to_raw(),
                self.memory_space.to_raw(),
                self.mutable,
                self.alloc_shape.len() as isize,
                self.alloc_shape.as_ptr(),
            ))
        }
    }

    /// The decoded encoding, when it is a `#ttg.*` one.
    pub fn layout(&self) -> Option<Encoding> {
        encoding_from_raw(self.encoding.to_raw())
    }
}

/// Called by the parser of every `ttg` encoding (cpp/TritonGPU.cpp): runs [`Encoding::verify`] and
/// reports the failure through `report`. Never unwinds into C++.
///
/// # Safety
/// `attr` must be a live attribute and `report` must accept `user` and a string valid during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tritium_verify_encoding(
    attr: MlirAttribute,
    report: unsafe extern "C" fn(MlirStringRef, *mut c_void),
    user: *mut c_void,
) -> bool {
    let result = std::panic::catch_unwind(|| match encoding_from_raw(attr) {
        Some(encoding) => encoding.verify(),
        None => Err("the parent is not a ttg encoding".to_owned()),
    })
    .unwrap_or_else(|_| Err("internal error: the encoding check panicked".to_owned()));
    match result {
        Ok(()) => true,
        Err(message) => {
            // SAFETY: `report` and `user` are the callback pair C++ passed (this function's
            // contract); `message` is valid UTF-8 of `message.len()` bytes and outlives the call,
            // which copies it.
            unsafe {
                report(
                    MlirStringRef {
                        data: message.as_ptr() as *const _,
                        length: message.len(),
                    },
                    user,
                )
            };
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::new_context;
    use mlir_sys::*;
    use std::collections::{BTreeSet, HashMap};
    use tritium_layout::text::{parse_aliases, parse_encoding};

    fn parse<'c>(context: &'c Context, text: &str) -> Attribute<'c> {
        Attribute::parse(context, text).unwrap_or_else(|| panic!("cannot parse {text}"))
    }

    fn kind(encoding: &Encoding) -> &'static str {
        match encoding {
            Encoding::Blocked(_) => "blocked",
            Encoding::Slice(_) => "slice",
            Encoding::NvidiaMma(_) => "nvidia_mma",
            Encoding::DotOperand(_) => "dot_op",
            Encoding::Linear(_) => "linear",
            Encoding::SwizzledShared(_) => "swizzled_shared",
            Encoding::NvmmaShared(_) => "nvmma_shared",
        }
    }

    /// Attribute -> Encoding (C accessors) -> attribute is the identical uniqued attribute, and
    /// the Encoding equals what the text parser makes of `oracle_text`.
    fn check(context: &Context, attr: Attribute, oracle_text: &str) -> Encoding {
        let encoding = Encoding::from_attribute(attr).unwrap_or_else(|| panic!("{attr}"));
        let back = encoding.to_attribute(context);
        assert_eq!(
            back.to_raw().ptr,
            attr.to_raw().ptr,
            "{attr} -> {encoding:?}"
        );
        let oracle = parse_encoding(oracle_text).unwrap_or_else(|e| panic!("{oracle_text}: {e}"));
        assert_eq!(encoding, oracle, "{attr}");
        assert_eq!(encoding.verify(), Ok(()), "{attr}");
        encoding
    }

    /// Text -> attribute -> Encoding -> attribute gives the same attribute and text.
    fn round_trip(text: &str) -> Encoding {
        let context = new_context();
        let attr = parse(&context, text);
        let encoding = check(&context, attr, text);
        assert_eq!(encoding.to_attribute(&context).to_string(), text);
        encoding
    }

    /// Every `#ttg.*` encoding in a type (tensors, buffers, descriptors, pointers to tensors).
    fn encodings_in_type(ty: MlirType, out: &mut Vec<MlirAttribute>) {
        // SAFETY: `ty` is a live, non-null type of a parsed module; each `cast`-based getter runs
        // only after the predicate of its kind (ranked tensor, memdesc, tensor descriptor,
        // pointer) returned true, and the types it returns are live in the same context.
        unsafe {
            if mlirTypeIsARankedTensor(ty) {
                let e = mlirRankedTensorTypeGetEncoding(ty);
                if !e.ptr.is_null() {
                    out.push(e);
                }
                encodings_in_type(mlirShapedTypeGetElementType(ty), out);
            } else if ffi::tritiumTypeIsMemDesc(ty) {
                out.push(ffi::tritiumMemDescTypeGetEncoding(ty));
            } else if crate::ffi::tritiumTypeIsTensorDesc(ty) {
                encodings_in_type(crate::ffi::tritiumTensorDescTypeGetBlockType(ty), out);
            } else if crate::ffi::tritiumTypeIsPointer(ty) {
                encodings_in_type(crate::ffi::tritiumPointerTypeGetPointee(ty), out);
            }
        }
    }

    fn encodings_in_op(op: MlirOperation, out: &mut Vec<MlirAttribute>) {
        // SAFETY: `op` is a live operation of the module the caller holds; operand, result,
        // region and argument indices stay below the counts MLIR reports, and the block and
        // operation walks stop at the null handle that ends each list.
        unsafe {
            for i in 0..mlirOperationGetNumOperands(op) {
                encodings_in_type(mlirValueGetType(mlirOperationGetOperand(op, i)), out);
            }
            for i in 0..mlirOperationGetNumResults(op) {
                encodings_in_type(mlirValueGetType(mlirOperationGetResult(op, i)), out);
            }
            for r in 0..mlirOperationGetNumRegions(op) {
                let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
                while !block.ptr.is_null() {
                    for i in 0..mlirBlockGetNumArguments(block) {
                        encodings_in_type(mlirValueGetType(mlirBlockGetArgument(block, i)), out);
                    }
                    let mut child = mlirBlockGetFirstOperation(block);
                    while !child.ptr.is_null() {
                        encodings_in_op(child, out);
                        child = mlirOperationGetNextInBlock(child);
                    }
                    block = mlirBlockGetNextInRegion(block);
                }
            }
        }
    }

    /// Every encoding of every Triton 3.6 kernel in test/Inputs/kernels (and its syntax/ corpus)
    /// converts attribute -> Encoding -> the identical attribute, agrees with the text parser, and
    /// every encoding alias the file declares is among them.
    #[test]
    fn reference_kernels_round_trip() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/Inputs/kernels");
        let mut files = vec![];
        for d in [dir.clone(), dir.join("syntax")] {
            for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{d:?}: {e}")) {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "ttgir") {
                    files.push(path);
                }
            }
        }
        files.sort();
        assert!(files.len() >= 10, "{files:?}");
        let context = new_context();
        let mut kinds = BTreeSet::new();
        let mut checked = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let module = melior::ir::Module::parse(&context, &text)
                .unwrap_or_else(|| panic!("{file:?} does not parse"));
            let mut attrs = vec![];
            encodings_in_op(module.as_operation().to_raw(), &mut attrs);
            let mut seen: HashMap<usize, Encoding> = HashMap::new();
            for raw in attrs {
                // SAFETY: `raw` is a non-null encoding of `module`, live in `context`.
                let attr = unsafe { Attribute::from_raw(raw) };
                if is_shared_memory_space(attr) || seen.contains_key(&(raw.ptr as usize)) {
                    continue;
                }
                let encoding = check(&context, attr, &attr.to_string());
                kinds.insert(kind(&encoding));
                seen.insert(raw.ptr as usize, encoding);
                checked += 1;
            }
            let found: Vec<&Encoding> = seen.values().collect();
            for (name, alias) in parse_aliases(&text).unwrap_or_else(|e| panic!("{file:?}: {e}")) {
                assert!(
                    found.contains(&&alias),
                    "{file:?}: #{name} = {alias} is not among the module's encodings"
                );
            }
        }
        let expected = [
            "blocked",
            "dot_op",
            "nvidia_mma",
            "nvmma_shared",
            "slice",
            "swizzled_shared",
        ];
        assert_eq!(
            kinds,
            expected.into_iter().collect(),
            "kinds in the kernels"
        );
        assert!(checked >= 50, "only {checked} encodings checked");
    }

    const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>";
    const MMA: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>";
    const LINEAR: &str = "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []}>";

    #[test]
    fn blocked() {
        let encoding = round_trip(BLOCKED);
        assert_eq!(
            encoding,
            Encoding::Blocked(BlockedEncoding::new(
                vec![1, 8],
                vec![4, 8],
                vec![8, 1],
                vec![1, 0]
            ))
        );
        assert_eq!(
            (
                encoding.rank(),
                encoding.num_warps(),
                encoding.threads_per_warp()
            ),
            (Some(2), Some(8), Some(32))
        );
        let multi = round_trip(
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], \
             CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = [0]}>",
        );
        assert_eq!(multi.num_ctas(), Some(2));
    }

    #[test]
    fn slice_and_dot_operand() {
        let slice = round_trip(&format!("#ttg.slice<{{dim = 1, parent = {BLOCKED}}}>"));
        assert_eq!(slice.rank(), Some(1));
        assert!(
            matches!(&slice, Encoding::Slice(s) if s.dim == 1 && matches!(*s.parent, Encoding::Blocked(_)))
        );
        let dot = round_trip(&format!(
            "#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>"
        ));
        assert!(matches!(&dot, Encoding::DotOperand(d) if d.op_idx == 0 && d.k_width == 2));
        assert_eq!(dot.num_warps(), Some(8));
        round_trip(&format!("#ttg.dot_op<{{opIdx = 1, parent = {BLOCKED}}}>"));
        round_trip(&format!("#ttg.slice<{{dim = 0, parent = {LINEAR}}}>"));
        round_trip(&format!(
            "#ttg.dot_op<{{opIdx = 1, parent = {LINEAR}, kWidth = 4}}>"
        ));
    }

    #[test]
    fn linear() {
        let linear = round_trip(LINEAR);
        assert_eq!(
            (linear.rank(), linear.num_warps(), linear.threads_per_warp()),
            (Some(2), Some(4), Some(32))
        );
        // Bases that mix dims, CTA bases, no bases at all.
        round_trip(
            "#ttg.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], \
             warp = [[32, 0], [64, 0]], block = []}>",
        );
        let cluster = round_trip(
            "#ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [[64]], block = [[128], [0]]}>",
        );
        assert_eq!(cluster.num_ctas(), Some(4));
        let empty = round_trip("#ttg.linear<{register = [], lane = [], warp = [], block = []}>");
        assert_eq!(empty.rank(), None);
    }

    #[test]
    fn mma_and_shared() {
        let mma = round_trip(MMA);
        assert!(
            matches!(&mma, Encoding::NvidiaMma(m) if m.version_major == 3 && m.instr_shape == [16, 256, 16])
        );
        round_trip(
            "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], \
             CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0], instrShape = [16, 8]}>",
        );
        let swizzled = round_trip(
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
        );
        assert!(swizzled.is_shared());
        round_trip(
            "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], \
             CTAsPerCGA = [1, 2], CTASplitNum = [1, 1], CTAOrder = [0, 1]}>",
        );
        let nvmma = round_trip(
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>",
        );
        assert_eq!(nvmma.rank(), None);
        round_trip(
            "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8, fp4Padded = true, \
             CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
        );
    }

    #[test]
    fn built_from_rust() {
        let context = new_context();
        let blocked = Encoding::Blocked(BlockedEncoding::new(vec![4], vec![32], vec![4], vec![0]));
        let slice = Encoding::Slice(SliceEncoding::new(
            0,
            Encoding::Blocked(BlockedEncoding::new(
                vec![1, 1],
                vec![1, 32],
                vec![4, 1],
                vec![1, 0],
            )),
        ));
        let linear = Encoding::Linear(LinearEncoding::new(
            vec![vec![1]],
            vec![vec![2], vec![4], vec![8], vec![16], vec![32]],
            vec![vec![64], vec![0]],
            vec![],
        ));
        let shared = Encoding::SwizzledShared(SwizzledSharedEncoding::new(1, 1, 1, vec![1, 0]));
        for encoding in [blocked, slice, linear, shared] {
            let attr = encoding.to_attribute(&context);
            assert_eq!(Encoding::from_attribute(attr), Some(encoding.clone()));
            assert_eq!(attr, parse(&context, &encoding.to_string()));
        }
        // One CTA spelled out is the attribute without CTA parameters.
        let mut spelled = BlockedEncoding::new(vec![1, 1], vec![4, 8], vec![4, 1], vec![1, 0]);
        spelled.cta_layout = CtaLayout::new(vec![1, 1], vec![1, 1], vec![1, 0]);
        let plain = BlockedEncoding::new(vec![1, 1], vec![4, 8], vec![4, 1], vec![1, 0]);
        assert_eq!(
            Encoding::from(spelled).to_attribute(&context),
            Encoding::from(plain).to_attribute(&context)
        );
        let mut nvmma = NvmmaSharedEncoding::new(128, false, 16);
        let plain_nvmma = Encoding::from(nvmma.clone()).to_attribute(&context);
        nvmma.cta_layout = CtaLayout::new(vec![1, 1], vec![1, 1], vec![1, 0]);
        assert_eq!(Encoding::from(nvmma).to_attribute(&context), plain_nvmma);
        let bad = Encoding::Blocked(BlockedEncoding::new(vec![4], vec![3], vec![4], vec![0]));
        assert_eq!(
            bad.verify(),
            Err("threadsPerWarp [3] must hold powers of two".to_owned())
        );
        // Arrays shorter than the rank are padded, not read out of bounds.
        let short = Encoding::Blocked(BlockedEncoding::new(vec![4, 1], vec![32], vec![], vec![0]));
        let attr = short.to_attribute(&context);
        assert!(Encoding::from_attribute(attr).is_some_and(|e| e.verify().is_err()));
        assert_eq!(Encoding::from_attribute(parse(&context, "[1, 2]")), None);
        assert_eq!(
            encoding_from_raw(MlirAttribute {
                ptr: std::ptr::null()
            }),
            None
        );
    }

    #[test]
    fn memdesc_and_token() {
        let context = new_context();
        let text = format!(
            "!ttg.memdesc<64x32xf16, {}, #ttg.shared_memory, mutable, 3x64x64>",
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
        );
        let ty = Type::parse(&context, &text).expect("memdesc");
        let md = MemDesc::from_type(ty).expect("a memdesc");
        assert_eq!(
            (md.shape.as_slice(), md.alloc_shape.as_slice(), md.mutable),
            (&[64, 32][..], &[3, 64, 64][..], true)
        );
        assert!(is_shared_memory_space(md.memory_space) && is_shared_encoding(md.encoding));
        assert!(matches!(
            md.layout(),
            Some(Encoding::NvmmaShared(n)) if n.swizzling_byte_width == 128
        ));
        assert_eq!(md.to_type(), ty);
        let whole = MemDesc::new(
            &context,
            vec![128],
            Type::parse(&context, "i64").unwrap(),
            md.encoding,
            false,
        );
        assert_eq!(
            whole.to_type().to_string(),
            "!ttg.memdesc<128xi64, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>"
        );
        let token = async_token_type(&context);
        assert!(is_async_token(token) && MemDesc::from_type(token).is_none());
        assert_eq!(token.to_string(), "!ttg.async.token");
    }
}
