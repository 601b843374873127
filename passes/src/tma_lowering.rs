//! `-triton-nvidia-tma-lowering`: tensor-descriptor accesses become TMA copies on sm_90, as in
//! Triton's `TMALowering`.
//!
//! * `tt.make_tensor_descriptor` → `ttg.global_scratch_alloc` of 128 bytes,
//!   `ttng.tensormap_create` (box, global dims and byte strides innermost first, the block's
//!   swizzle, NaN fill for `padding = nan`), `ttng.tensormap_fenceproxy_acquire` and
//!   `ttng.reinterpret_tensor_descriptor` to the descriptor type with the block's
//!   `#ttg.nvmma_shared` layout;
//! * `tt.descriptor_load` → a `ttg.local_alloc` buffer and a one-arrival mbarrier:
//!   `init_barrier`, `barrier_expect` (the block's bytes), `async_tma_copy_global_to_local`,
//!   `wait_barrier` (phase 0), `inval_barrier`, then `ttg.local_load` in the load's layout;
//! * `tt.descriptor_store` / `tt.descriptor_reduce` → `ttg.local_alloc` of the value,
//!   `ttng.fence_async_shared`, `async_tma_copy_local_to_global` / `async_tma_reduce` and
//!   `async_tma_store_wait {pendings = 0}`.
//!
//! A rank-reduced access (a `1x128x64` block loaded or stored as a `128x64` tensor:
//! `-triton-combine` folds a batched kernel's reshapes into it) gets a buffer of the tensor's
//! shape in the block's layout; the copy keeps one coordinate per block dim, and its lowering
//! moves the block's box (leading extents 1) into it.
//!
//! Descriptors TMA cannot take stay as they are and keep the per-element lowering
//! (`lowering/src/ops/descriptor.rs`): a block TMA cannot move (`tma::block_encoding`), a
//! last stride that is not the constant 1, a descriptor used by anything but loads, stores and
//! reductions of its own block shape, rank-reduced or not (control flow, gathers and
//! scatters). Host-side descriptors
//! (kernel arguments) are always TMA descriptors; their accesses are rewritten the same way.
//! Nothing changes below compute capability 90.

use crate::ir_util::*;
use crate::tma::{
    DESCRIPTOR_BYTES, block_encoding, dropped_unit_dims, elem_kind, elem_type_code, tma_box,
};
use mlir_sys::*;
use tritium_dialects::build::{build, constant};
use tritium_dialects::ffi;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{OptionKind, Options, PassDef, PassOption, PassResult, dialects};
use tritium_layout::encoding::{Encoding, SwizzledSharedEncoding};

pub static PASS: PassDef = PassDef {
    argument: "triton-nvidia-tma-lowering",
    summary: "Lower tensor-descriptor loads, stores and reductions to TMA copies with mbarriers",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "compute-capability",
        description: "Compute capability (times ten); TMA is used from 90 (0: the module's ttg.target)",
        kind: OptionKind::Int,
        default: "0",
    }],
    dependent_dialects: || vec![dialects::ttg(), dialects::ttng(), dialects::arith()],
    run,
};

/// Builds ops right before `at`.
pub(crate) struct At {
    pub(crate) at: MlirOperation,
    pub(crate) loc: MlirLocation,
    pub(crate) ctx: MlirContext,
}

impl At {
    pub(crate) fn new(at: MlirOperation) -> At {
        // SAFETY: `at` is a live op.
        let loc = unsafe { mlirOperationGetLocation(at) };
        At {
            at,
            loc,
            ctx: context_of(at),
        }
    }
    pub(crate) fn insert_op(&self, op: MlirOperation) -> MlirOperation {
        // SAFETY: `at` is live in a block, which takes ownership of the new op.
        unsafe { mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(self.at), self.at, op) };
        op
    }
    pub(crate) fn insert(&self, op: MlirOperation) -> MlirValue {
        let op = self.insert_op(op);
        // SAFETY: every op inserted through this has a result.
        unsafe { mlirOperationGetResult(op, 0) }
    }
    pub(crate) fn int_type(&self, bits: u32) -> MlirType {
        // SAFETY: a builtin type of the live context.
        unsafe { mlirIntegerTypeGet(self.ctx, bits) }
    }
    pub(crate) fn int_attr(&self, bits: u32, v: i64) -> MlirAttribute {
        // SAFETY: an integer attribute of the live context.
        unsafe { mlirIntegerAttrGet(self.int_type(bits), v) }
    }
    pub(crate) fn constant(&self, bits: u32, v: i64) -> MlirValue {
        self.insert(constant(self.loc, self.int_attr(bits, v)))
    }
    pub(crate) fn bool_attr(&self, v: bool) -> MlirAttribute {
        // SAFETY: a bool attribute of the live context.
        unsafe { mlirBoolAttrGet(self.ctx, v as i32) }
    }
    pub(crate) fn segments(&self, sizes: &[i32]) -> MlirAttribute {
        // SAFETY: a dense array attribute of the live context; `sizes` outlives the call.
        unsafe { mlirDenseI32ArrayGet(self.ctx, sizes.len() as isize, sizes.as_ptr()) }
    }
    /// `!ttg.memdesc<shape x elem, encoding, #smem[, mutable]>`.
    pub(crate) fn memdesc(
        &self,
        shape: &[i64],
        elem: MlirType,
        encoding: &Encoding,
        mutable: bool,
    ) -> MlirType {
        let enc = encoding_to_attr(self.ctx, encoding);
        // SAFETY: constructors on live handles of one context; `shape` outlives the call.
        unsafe {
            ffi::ttg::tritiumMemDescTypeGet(
                elem,
                shape.len() as isize,
                shape.as_ptr(),
                enc,
                ffi::ttg::tritiumSharedMemorySpaceGet(self.ctx),
                mutable,
                shape.len() as isize,
                shape.as_ptr(),
            )
        }
    }
}

/// The compute capability from the option, else the module's `ttg.target` (`cuda:NN`).
pub(crate) fn capability_of(module: MlirOperation, options: &Options) -> i64 {
    match options.int("compute-capability") {
        0 => string_attr(module, "ttg.target")
            .and_then(|t| t.strip_prefix("cuda:").and_then(|c| c.parse().ok()))
            .unwrap_or(0),
        c => c,
    }
}

fn run(module: OperationRef, options: &Options) -> PassResult {
    let module = module.to_raw();
    if capability_of(module, options) < 90 {
        return Ok(());
    }
    crate::optimize_descriptor_encoding::assign_encodings(module);
    for op in collect_ops(module) {
        if op_name(op) == "tt.make_tensor_descriptor" {
            lower_make_descriptor(op);
        }
    }
    for op in collect_ops(module) {
        let name = op_name(op);
        if !matches!(
            name.as_str(),
            "tt.descriptor_load" | "tt.descriptor_store" | "tt.descriptor_reduce"
        ) {
            continue;
        }
        let desc = operands(op)[0];
        if !is_tma_descriptor(desc) {
            continue;
        }
        match name.as_str() {
            "tt.descriptor_load" => lower_load(op),
            _ => lower_store(op),
        }
    }
    Ok(())
}

/// The block type of a descriptor type.
pub(crate) fn block_of(desc_type: MlirType) -> Option<MlirType> {
    // SAFETY: type queries on a live type; the block is read only from a tensordesc.
    unsafe {
        ffi::tritiumTypeIsTensorDesc(desc_type)
            .then(|| ffi::tritiumTensorDescTypeGetBlockType(desc_type))
    }
}

/// Whether a descriptor value is a TMA descriptor: a kernel argument or a
/// `ttng.reinterpret_tensor_descriptor`, whose block has a layout TMA can move.
pub(crate) fn is_tma_descriptor(desc: MlirValue) -> bool {
    let from_tma = match defining_op(desc) {
        Some(def) => op_name(def) == "ttng.reinterpret_tensor_descriptor",
        // A block argument: a kernel's (control flow carrying descriptors is left alone).
        None => is_kernel_argument(desc),
    };
    from_tma && tma_layout(value_type(desc)).is_some()
}

/// Whether `value` is an argument of a `tt.func`'s entry block.
fn is_kernel_argument(value: MlirValue) -> bool {
    // SAFETY: queries on a live value; the owner is read only from a block argument.
    unsafe {
        if !mlirValueIsABlockArgument(value) {
            return false;
        }
        let block = mlirBlockArgumentGetOwner(value);
        let parent = mlirBlockGetParentOperation(block);
        !parent.ptr.is_null() && op_name(parent) == "tt.func"
    }
}

/// The `#ttg.nvmma_shared` layout of a descriptor type's block, when TMA can move it.
pub(crate) fn tma_layout(desc_type: MlirType) -> Option<Encoding> {
    let block = block_of(desc_type)?;
    let dims: Vec<u32> = shape(block).iter().map(|&d| d as u32).collect();
    let elem = element_type(block);
    elem_kind(elem)?;
    let encoding = encoding_of(block)?;
    tma_box(&dims, elem_bits(elem), &encoding).ok()?;
    Some(encoding)
}

pub(crate) fn elem_bits(elem: MlirType) -> u32 {
    // SAFETY: type queries on a live type.
    unsafe {
        if mlirTypeIsAInteger(elem) {
            mlirIntegerTypeGetWidth(elem)
        } else if mlirTypeIsAFloat(elem) {
            mlirFloatTypeGetWidth(elem)
        } else {
            0
        }
    }
}

/// Whether every use of a descriptor is a load, store or reduction of its block (rank-reduced or
/// not: [`dropped_unit_dims`]).
pub(crate) fn only_block_accesses(desc: MlirValue, block: MlirType) -> bool {
    let block_shape = shape(block);
    uses(desc).into_iter().all(|(owner, number)| {
        number == 0
            && match op_name(owner).as_str() {
                "tt.descriptor_load" => results(owner).first().is_some_and(|&r| {
                    dropped_unit_dims(&block_shape, &shape(value_type(r))).is_some()
                }),
                "tt.descriptor_store" | "tt.descriptor_reduce" => {
                    operands(owner).get(1).is_some_and(|&v| {
                        dropped_unit_dims(&block_shape, &shape(value_type(v))).is_some()
                    })
                }
                // Copies the pipeliner made (-tritongpu-pipeline on sm_90).
                "ttng.async_tma_copy_global_to_local"
                | "ttng.async_tma_copy_local_to_global"
                | "ttng.async_tma_reduce" => true,
                _ => false,
            }
    })
}

/// `tt.make_tensor_descriptor %base, [shape], [strides]` → a descriptor written on the device.
fn lower_make_descriptor(op: MlirOperation) {
    let ins = operands(op);
    let Some(&result) = results(op).first() else {
        return;
    };
    let Some(block) = block_of(value_type(result)) else {
        return;
    };
    let rank = shape(block).len();
    if ins.len() != 1 + 2 * rank || rank == 0 {
        return;
    }
    let elem = element_type(block);
    let bits = elem_bits(elem);
    let dims: Vec<u32> = shape(block).iter().map(|&d| d as u32).collect();
    let Some(kind) = elem_kind(elem) else {
        return;
    };
    let encoding = match encoding_of(block) {
        Some(e) => e,
        None => match block_encoding(&dims, bits) {
            Some(n) => Encoding::NvmmaShared(n),
            None => return,
        },
    };
    let Ok(tma) = tma_box(&dims, bits, &encoding) else {
        return;
    };
    if constant_int(ins[2 * rank]) != Some(1) || !only_block_accesses(result, block) {
        return;
    }
    let at = At::new(op);
    let i8_ptr = {
        // SAFETY: builtin and tt types of the live context.
        unsafe { ffi::tritiumPointerTypeGet(at.int_type(8), 1) }
    };
    let scratch = at.insert(build(
        "ttg.global_scratch_alloc",
        at.loc,
        &[],
        &[i8_ptr],
        &[
            ("alignment", at.int_attr(32, DESCRIPTOR_BYTES as i64)),
            ("nbytes", at.int_attr(32, DESCRIPTOR_BYTES as i64)),
        ],
    ));
    let elem_bytes = at.constant(64, (bits / 8) as i64);
    let mut create_operands = vec![scratch, ins[0]];
    for d in (0..rank).rev() {
        create_operands.push(at.constant(32, tma.box_dims[d] as i64));
    }
    for d in (0..rank).rev() {
        create_operands.push(ins[1 + d]);
    }
    for d in (0..rank - 1).rev() {
        let bytes = at.insert(build(
            "arith.muli",
            at.loc,
            &[ins[1 + rank + d], elem_bytes],
            &[at.int_type(64)],
            &[],
        ));
        create_operands.push(bytes);
    }
    let one = at.constant(32, 1);
    create_operands.extend(std::iter::repeat_n(one, rank));
    let nan = int_attr(op, "padding") == Some(2);
    let r = rank as i32;
    at.insert_op(build(
        "ttng.tensormap_create",
        at.loc,
        &create_operands,
        &[],
        &[
            ("elem_type", at.int_attr(32, elem_type_code(kind) as i64)),
            ("fill_mode", at.int_attr(32, nan as i64)),
            ("interleave_layout", at.int_attr(32, 0)),
            ("swizzle_mode", at.int_attr(32, tma.swizzle_mode as i64)),
            ("operandSegmentSizes", at.segments(&[1, 1, r, r, r - 1, r])),
        ],
    ));
    at.insert_op(build(
        "ttng.tensormap_fenceproxy_acquire",
        at.loc,
        &[scratch],
        &[],
        &[],
    ));
    let desc_type = {
        let block_with = with_encoding(block, encoding_to_attr(at.ctx, &encoding));
        // SAFETY: a tensordesc of a live ranked tensor type.
        unsafe { ffi::tritiumTensorDescTypeGet(block_with) }
    };
    let desc = at.insert(build(
        "ttng.reinterpret_tensor_descriptor",
        at.loc,
        &[scratch],
        &[desc_type],
        &[],
    ));
    // SAFETY: both values are live; the descriptor op has no uses left.
    unsafe { mlirValueReplaceAllUsesOfWith(result, desc) };
    erase(op);
}

/// `tt.descriptor_load %desc[%idx]` → TMA into a buffer, waited on an mbarrier, then read. The
/// buffer has the loaded tensor's shape: the block's, or the block's without leading unit dims.
fn lower_load(op: MlirOperation) {
    let ins = operands(op);
    let out = results(op)[0];
    let desc = ins[0];
    let (Some(block), Some(encoding)) = (block_of(value_type(desc)), tma_layout(value_type(desc)))
    else {
        return;
    };
    let tile = shape(value_type(out));
    if dropped_unit_dims(&shape(block), &tile).is_none() {
        return;
    }
    let at = At::new(op);
    let elem = element_type(block);
    let buffer_type = at.memdesc(&tile, elem, &encoding, true);
    let buffer = at.insert(build("ttg.local_alloc", at.loc, &[], &[buffer_type], &[]));
    let barrier_encoding = Encoding::SwizzledShared(SwizzledSharedEncoding::new(1, 1, 1, vec![0]));
    let barrier_type = at.memdesc(&[1], at.int_type(64), &barrier_encoding, true);
    let barrier = at.insert(build("ttg.local_alloc", at.loc, &[], &[barrier_type], &[]));
    at.insert_op(build(
        "ttng.init_barrier",
        at.loc,
        &[barrier],
        &[],
        &[("count", at.int_attr(32, 1))],
    ));
    let bytes = tile.iter().product::<i64>() * (elem_bits(elem) / 8) as i64;
    let yes = at.constant(1, 1);
    at.insert_op(build(
        "ttng.barrier_expect",
        at.loc,
        &[barrier, yes],
        &[],
        &[("size", at.int_attr(32, bytes))],
    ));
    let mut copy_operands = vec![desc];
    copy_operands.extend_from_slice(&ins[1..]);
    copy_operands.extend([barrier, buffer, yes]);
    let mut attrs = Vec::new();
    for name in ["cache", "evict"] {
        if let Some(a) = attribute_of(op, name) {
            attrs.push((name, a));
        }
    }
    at.insert_op(build(
        "ttng.async_tma_copy_global_to_local",
        at.loc,
        &copy_operands,
        &[],
        &attrs,
    ));
    let phase = at.constant(32, 0);
    at.insert_op(build(
        "ttng.wait_barrier",
        at.loc,
        &[barrier, phase],
        &[],
        &[("operandSegmentSizes", at.segments(&[1, 1, 0, 0]))],
    ));
    at.insert_op(build("ttng.inval_barrier", at.loc, &[barrier], &[], &[]));
    let loaded = at.insert(build(
        "ttg.local_load",
        at.loc,
        &[buffer],
        &[value_type(out)],
        &[],
    ));
    // A `ttg.local_alloc` of the loaded tensor in the buffer's own layout (a wgmma operand) reads
    // the TMA buffer itself, as Triton's lowering does: no copy through registers.
    for user in users(out) {
        if op_name(user) != "ttg.local_alloc" {
            continue;
        }
        let Some(&staged) = results(user).first() else {
            continue;
        };
        let ty = value_type(staged);
        let same = memdesc_encoding_of(ty).as_ref() == Some(&encoding)
            // SAFETY: memdesc accessors on a live memdesc type.
            && unsafe { ffi::ttg::tritiumMemDescTypeGetElementType(ty).ptr == elem.ptr }
            && memdesc_dims(ty) == tile;
        if same {
            // SAFETY: both values are live memdescs of one buffer shape and layout; the alloc
            // has no uses left.
            unsafe { mlirValueReplaceAllUsesOfWith(staged, buffer) };
            erase(user);
        }
    }
    // SAFETY: both values are live; the load has no uses left.
    unsafe { mlirValueReplaceAllUsesOfWith(out, loaded) };
    erase(op);
    if users(loaded).is_empty() {
        erase(defining_op(loaded).unwrap_or(op));
    }
}

/// `tt.descriptor_store` / `tt.descriptor_reduce` → the value staged in shared memory (a buffer
/// of its shape: the block's, or rank-reduced), then a TMA store (or reduction) waited for before
/// the buffer can be reused.
fn lower_store(op: MlirOperation) {
    let ins = operands(op);
    let (desc, value) = (ins[0], ins[1]);
    let (Some(block), Some(encoding)) = (block_of(value_type(desc)), tma_layout(value_type(desc)))
    else {
        return;
    };
    let tile = shape(value_type(value));
    if dropped_unit_dims(&shape(block), &tile).is_none() {
        return;
    }
    let at = At::new(op);
    let buffer_type = at.memdesc(&tile, element_type(block), &encoding, false);
    let buffer = at.insert(build(
        "ttg.local_alloc",
        at.loc,
        &[value],
        &[buffer_type],
        &[],
    ));
    fence_and_store(&at, op, buffer);
    store_wait(&at);
    erase(op);
}

/// What a `tt.descriptor_store` / `tt.descriptor_reduce` `op` becomes once its value is in
/// `buffer`: `ttng.fence_async_shared` (the writes reach the async proxy), then
/// `ttng.async_tma_copy_local_to_global` (or `ttng.async_tma_reduce` of the op's kind) of the
/// buffer through the op's descriptor at its coordinates.
pub(crate) fn fence_and_store(at: &At, op: MlirOperation, buffer: MlirValue) {
    at.insert_op(build(
        "ttng.fence_async_shared",
        at.loc,
        &[],
        &[],
        &[("bCluster", at.bool_attr(false))],
    ));
    let ins = operands(op);
    let mut copy_operands = vec![ins[0]];
    copy_operands.extend_from_slice(&ins[2..]);
    copy_operands.push(buffer);
    let (copy, attributes) = if op_name(op) == "tt.descriptor_reduce" {
        let kind = attribute_of(op, "kind");
        (
            "ttng.async_tma_reduce",
            kind.map(|k| vec![("kind", k)]).unwrap_or_default(),
        )
    } else {
        ("ttng.async_tma_copy_local_to_global", Vec::new())
    };
    at.insert_op(build(copy, at.loc, &copy_operands, &[], &attributes));
}

/// `ttng.async_tma_store_wait {pendings = 0}`: the TMA stores issued so far have read their
/// buffers.
pub(crate) fn store_wait(at: &At) {
    at.insert_op(build(
        "ttng.async_tma_store_wait",
        at.loc,
        &[],
        &[],
        &[("pendings", at.int_attr(32, 0))],
    ));
}

/// Removes an op without uses from its block and destroys it.
pub(crate) fn erase(op: MlirOperation) {
    // SAFETY: `op` is live, in a block, and nothing uses its results any more.
    unsafe {
        mlirOperationRemoveFromParent(op);
        mlirOperationDestroy(op);
    }
}

/// An attribute of `op` by name, if present.
fn attribute_of(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    // SAFETY: attribute query on a live op.
    let attr = unsafe { mlirOperationGetAttributeByName(op, tritium_dialects::ffi::str_ref(name)) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// The shape of a `!ttg.memdesc` type.
pub(crate) fn memdesc_dims(ty: MlirType) -> Vec<i64> {
    // SAFETY: `ty` is a memdesc (the caller read its encoding); the first call asks the rank,
    // the second writes at most that many entries.
    unsafe {
        let rank = ffi::ttg::tritiumMemDescTypeGetShape(ty, std::ptr::null_mut(), 0).max(0);
        let mut dims = vec![0i64; rank as usize];
        if rank > 0 {
            ffi::ttg::tritiumMemDescTypeGetShape(ty, dims.as_mut_ptr(), rank);
        }
        dims
    }
}
