//! `-tritongpu-pipeline{num-stages}`: software pipelining of the loads that feed tensor-core
//! dots. In an `scf.for`, a global `tt.load` whose only use is a `ttg.local_alloc` read only by
//! `ttng.warp_group_dot`s or only by `ttg.local_load`s, or whose value reaches a dot through
//! register ops of the body (an operand upcast or scaled before it is staged, as tl.dot_scaled's
//! are, or converted into an `mma.sync` operand), is turned into `cp.async` copies into a ring of
//! shared-memory buffers, issued `num-stages - 1` iterations ahead; the second kind of load is
//! replaced by a `ttg.local_load` of its slot, in its own layout, from a buffer in that layout's
//! order (swizzled for `ldmatrix` when it converts into an `mma.sync` operand, unswizzled
//! otherwise):
//!
//! * before the loop: one multi-buffered `ttg.local_alloc` per load, and the copies of the first
//!   `num-stages - 1` iterations (each iteration's copies one commit group), masked off past the
//!   loop's end;
//! * the loop carries the copies' loop-carried operands (pointers) as of the last iteration
//!   issued, `num-stages - 2` ahead, and the ring slots it reads and writes: each iteration
//!   advances them one step and copies with the result; the original iter args the copies
//!   replaced are dropped;
//! * at the top of each iteration: `ttg.async_wait {num = num-stages - 2}` (this iteration's group
//!   has landed); the dots read the read slot through `ttg.memdesc_index`;
//! * in a loop without wgmmas whose rings are read only into registers, the slot is free once
//!   this iteration has read it: the copies of iteration `i + num-stages - 1` go at the end of the
//!   body into the slot just read, and a ring has `num-stages - 1` slots, as Triton's (the
//!   lowering puts a barrier between the reads and the copies);
//! * otherwise a ring has `num-stages` slots. A single accumulating wgmma stays in flight as in
//!   Triton (unless it reads a buffer a `ttg.local_alloc` of the body rewrites every iteration): it
//!   becomes asynchronous and a `ttng.warp_group_dot_wait {pendings = 1}` follows it, after which
//!   the previous iteration's dot is done with the slot the copies overwrite, so the copies go
//!   there; otherwise the dots are synchronous and the copies go at the top;
//! * after the loop: `ttg.async_wait {num = 0}` (and `warp_group_dot_wait {pendings = 0}`).
//!
//! A wgmma operand of 4-byte elements staged K-major from memory that is contiguous along the
//! other dim (tf32 B of a row-major matrix) is not copied one element per `cp.async`: it takes
//! the second kind's path — 16-byte copies into a ring in memory's order (swizzled by row
//! groups), read back in 4x4 blocks a thread and stored by the body's own `ttg.local_alloc`
//! into the K-major operand ([`transposing_read`]) — a ring of one operand buffer per slot, so
//! the dot stays in flight while the next iteration writes the next buffer.
//!
//! The copies' pointers and masks come from cloning, for the iteration they prefetch, the ops the
//! load's operands are computed with: pure ops of the loop body over the induction variable,
//! loop invariants and loop-carried values whose updates are themselves such ops (pointer
//! increments), and `scf.if`s computing values only (a fused persistent loop's tile prologue,
//! divisions included), whose clones run only when the iteration they stand for exists. Loads
//! with a nonzero `other` (cp.async zero-fills) or operands computed otherwise are left alone,
//! as are loops with an induction variable other than i32.
//!
//! An accumulating wgmma whose result is also read in later `scf.if`s of the body (a fused
//! loop's epilogue, once per tile) stays in flight too: a `warp_group_dot_wait {pendings = 0}`
//! goes before those reads. Afterwards, iter args nothing needs any more (state the clones now
//! compute ahead, kept alive only by a branch's `else` side) are yielded unchanged, for
//! canonicalization to drop.
//!
//! Stages per loop: those of its schedule (`tt.scheduled_max_stage + 1`, from
//! -tritongpu-schedule-loops; only the loads with a `tt.latency` are then staged, and the
//! schedule's attributes are removed), else its `tt.num_stages` (`tl.range(num_stages=...)`),
//! else `num-stages`; below 2 the loop is left alone.

use crate::axis_info::{AxisInfoAnalysis, pointee_bytes};
use crate::ir_util::*;
use crate::ttir::util::is_zero_constant;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::{build, clone_with};
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{OptionKind, Options, PassDef, PassOption, PassResult, dialects};
use tritium_layout::encoding::Encoding;

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-pipeline",
    summary: "Software-pipeline the loads feeding tensor-core dots (cp.async or TMA into rings of buffers) and TMA stores in loops",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "num-stages",
        description: "Pipeline depth (buffers per load) of loops without tt.num_stages or a schedule; below 2 those are left alone",
        kind: OptionKind::Int,
        default: "3",
    }],
    dependent_dialects: || {
        vec![
            dialects::ttg(),
            dialects::ttng(),
            dialects::arith(),
            dialects::tt(),
        ]
    },
    run,
};

/// Ops the copies' addresses may be recomputed with.
fn is_recomputable(op: MlirOperation) -> bool {
    // SAFETY: region count of a live op.
    if unsafe { mlirOperationGetNumRegions(op) } != 0 {
        return false;
    }
    let name = op_name(op);
    (name.starts_with("arith.") && !name.contains("div") && !name.contains("rem"))
        || matches!(
            name.as_str(),
            "tt.addptr"
                | "tt.splat"
                | "tt.broadcast"
                | "tt.expand_dims"
                | "tt.make_range"
                | "ttg.convert_layout"
        )
}

/// A candidate: the load, its staging alloc, and the elements each cp.async moves.
struct Staged {
    load: MlirOperation,
    /// The `ttg.local_alloc` the loaded tensor is staged in for the dots; `None` when the
    /// tensor is used in registers (upcast, scaled, ...) on its way to a dot: the copies then
    /// go to a plain buffer the loop reads back with `ttg.local_load`, as Triton pipelines
    /// mixed-precision operands.
    alloc: Option<MlirOperation>,
    /// One ring slot: a mutable memdesc of the loaded shape.
    buffer: MlirType,
    vector: u64,
    /// For a tensor read back with `ttg.local_load`: the layout to read it in, when not the
    /// load's own (see [`transposing_read`]).
    read_encoding: Option<Encoding>,
    /// With `read_encoding`: the body's `ttg.local_alloc` of the tensor for its dots, which
    /// becomes a store into a ring of operand buffers (one per slot), so the dot can stay in
    /// flight while the next iteration writes the next buffer.
    operand_alloc: Option<MlirOperation>,
}

/// Elements per `cp.async` of a load into its buffer: what axis info proves contiguous and
/// aligned along the pointers' fastest dim, the registers hold consecutively there, and the
/// buffer stores contiguously — `None` unless that is 4, 8 or 16 bytes. One element when the
/// buffer's contiguous dim is another.
fn copy_vector(axis: &AxisInfoAnalysis, load: MlirOperation, buffer: MlirType) -> Option<u64> {
    let ins = operands(load);
    let pointers = *ins.first()?;
    let ty = value_type(pointers);
    let rank = shape(ty).len();
    let elem_bytes = pointee_bytes(element_type(ty)).max(1);
    let info = axis.get(pointers);
    let fact = |facts: &[u64], d: usize| facts.get(d).copied().unwrap_or(1);
    let Some(Encoding::Blocked(blocked)) = encoding_of(ty) else {
        return None;
    };
    let fastest = *blocked.order.first()? as usize;
    let contiguous = match memdesc_encoding_of(buffer)? {
        Encoding::NvmmaShared(shared) => shared.contiguous_dim(rank),
        Encoding::SwizzledShared(shared) => *shared.order.first()? as usize,
        _ => return None,
    };
    if contiguous != fastest {
        // The buffer keeps another dim contiguous (a K-major tf32 operand from N-major
        // memory): one element a copy, as Triton does; cp.async moves 4, 8 or 16 bytes.
        return matches!(elem_bytes, 4 | 8 | 16).then_some(1);
    }
    let mut vec = (16 / elem_bytes).max(1);
    vec = vec.min(fact(&info.contiguity, fastest));
    vec = vec.min((fact(&info.divisibility, fastest) / elem_bytes).max(1));
    vec = vec.min(*blocked.size_per_thread.get(fastest)? as u64);
    if let Some(&mask) = ins.get(1) {
        vec = vec.min(fact(&axis.get(mask).constancy, fastest));
    }
    let vec = 1u64 << (63 - vec.max(1).leading_zeros());
    matches!(vec * elem_bytes, 4 | 8 | 16).then_some(vec)
}

/// The loop-body ops `roots` depend on, in body order, if every one is recomputable and every
/// loop-carried value they read is updated by such ops; also the iter-arg indices they read.
pub(crate) struct Slice {
    pub(crate) ops: Vec<MlirOperation>,
    /// Iter args (index among the iter args) read by the slice, closed under their updates.
    pub(crate) args: Vec<usize>,
}

pub(crate) fn slice_of(
    body: MlirBlock,
    for_op: MlirOperation,
    roots: &[MlirValue],
) -> Option<Slice> {
    slice_with(body, for_op, roots, false)
}

/// Whether `op` is an `scf.if` computing values only (index arithmetic, divisions included,
/// nested `scf.if`s): a fused loop's prologue. Cloned for another iteration, it runs only when
/// that iteration does ([`clone_iteration`]'s `valid`), so its divisions are never speculated.
fn is_value_branch(op: MlirOperation) -> bool {
    if op_name(op) != "scf.if" {
        return false;
    }
    let mut ok = true;
    walk(op, &mut |nested| {
        if nested.ptr == op.ptr {
            return;
        }
        let name = op_name(nested);
        // SAFETY: region count of a live op.
        let regions = unsafe { mlirOperationGetNumRegions(nested) };
        ok &= match name.as_str() {
            "scf.if" | "scf.yield" => true,
            _ => {
                regions == 0
                    && (is_recomputable(nested)
                        || (name.starts_with("arith.") && crate::ttir::util::is_pure(&name)))
            }
        };
    });
    ok
}

/// [`slice_of`], also taking value-only `scf.if`s of the body ([`is_value_branch`]) when
/// `branches`: their clones must then be given the iteration's `valid`.
pub(crate) fn slice_with(
    body: MlirBlock,
    for_op: MlirOperation,
    roots: &[MlirValue],
    branches: bool,
) -> Option<Slice> {
    // SAFETY: traversal of live ops and values of the loop body; the yield is the body's
    // terminator (checked to be an scf.yield), its operand `j` exists for every iter arg `j`.
    unsafe {
        let yield_op = mlirBlockGetTerminator(body);
        if yield_op.ptr.is_null() || op_name(yield_op) != "scf.yield" {
            return None;
        }
        let mut in_slice: HashSet<usize> = HashSet::new();
        let mut args: Vec<usize> = Vec::new();
        let mut work: Vec<MlirValue> = roots.to_vec();
        while let Some(v) = work.pop() {
            if mlirValueIsABlockArgument(v) {
                if mlirBlockArgumentGetOwner(v).ptr == body.ptr {
                    let n = mlirBlockArgumentGetArgNumber(v) as usize;
                    if n > 0 && !args.contains(&(n - 1)) {
                        args.push(n - 1);
                        work.push(mlirOperationGetOperand(yield_op, (n - 1) as isize));
                    }
                }
                continue;
            }
            let def = mlirOpResultGetOwner(v);
            // Only ops directly in the body matter; anything defined outside is invariant.
            if mlirOperationGetBlock(def).ptr != body.ptr {
                if !is_outside(def, for_op) {
                    return None;
                }
                continue;
            }
            if !in_slice.insert(def.ptr as usize) {
                continue;
            }
            if is_recomputable(def) {
                work.extend(operands(def));
            } else if branches && is_value_branch(def) {
                work.extend(crate::ttir::util::external_operands(def));
            } else {
                return None;
            }
        }
        let ops: Vec<MlirOperation> = block_ops(body)
            .into_iter()
            .filter(|op| in_slice.contains(&(op.ptr as usize)))
            .collect();
        args.sort_unstable();
        Some(Slice { ops, args })
    }
}

/// Whether `op` is outside the loop (not nested in it).
fn is_outside(op: MlirOperation, for_op: MlirOperation) -> bool {
    // SAFETY: parent traversal of live ops, ending at the null parent of the top op.
    unsafe {
        let mut parent = mlirOperationGetParentOperation(op);
        while !parent.ptr.is_null() {
            if parent.ptr == for_op.ptr {
                return false;
            }
            parent = mlirOperationGetParentOperation(parent);
        }
        true
    }
}

/// Clones the slice before `at` for one iteration: `iv` the induction variable's value and
/// `state` the iter args' values (by iter-arg index); returns the map from the body's values to
/// the clones'.
///
/// `valid` (whether that iteration runs) guards the clones of the slice's `scf.if`s: a branch
/// of an iteration past the loop's end takes its `else` side.
pub(crate) fn clone_iteration(
    body: MlirBlock,
    slice: &Slice,
    at: MlirOperation,
    iv: MlirValue,
    state: &HashMap<usize, MlirValue>,
    valid: Option<MlirValue>,
) -> HashMap<usize, MlirValue> {
    let mut map: HashMap<usize, MlirValue> = HashMap::new();
    // SAFETY: block arguments of the live body; clones of live ops inserted before the live
    // `at` (its block takes ownership); operands are remapped to values dominating `at`.
    unsafe {
        map.insert(key(mlirBlockGetArgument(body, 0)), iv);
        for (&j, &v) in state {
            map.insert(key(mlirBlockGetArgument(body, j as isize + 1)), v);
        }
        for &op in &slice.ops {
            let copy = if mlirOperationGetNumRegions(op) != 0 {
                let copy = mlirOperationClone(op);
                // Values from outside the branch (every one the clone's ops read that is not
                // its own) are this iteration's.
                walk(copy, &mut |nested| {
                    for (n, v) in operands(nested).into_iter().enumerate() {
                        if let Some(&to) = map.get(&key(v)) {
                            mlirOperationSetOperand(nested, n as isize, to);
                        }
                    }
                });
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, copy);
                let valid = valid.expect("a slice with branches is cloned with `valid`");
                let cond = mlirOperationGetOperand(copy, 0);
                let guarded = build(
                    "arith.andi",
                    mlirOperationGetLocation(op),
                    &[cond, valid],
                    &[value_type(cond)],
                    &[],
                );
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), copy, guarded);
                mlirOperationSetOperand(copy, 0, mlirOperationGetResult(guarded, 0));
                copy
            } else {
                let ins: Vec<MlirValue> = operands(op)
                    .into_iter()
                    .map(|v| map.get(&key(v)).copied().unwrap_or(v))
                    .collect();
                let types: Vec<MlirType> = results(op).into_iter().map(value_type).collect();
                let copy = clone_with(op, &ins, &types);
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, copy);
                copy
            };
            for (i, r) in results(op).into_iter().enumerate() {
                map.insert(key(r), mlirOperationGetResult(copy, i as isize));
            }
        }
    }
    map
}

/// The iter args' values one iteration later, from a cloned iteration's map.
pub(crate) fn next_state(
    body: MlirBlock,
    slice: &Slice,
    map: &HashMap<usize, MlirValue>,
    state: &HashMap<usize, MlirValue>,
) -> HashMap<usize, MlirValue> {
    // SAFETY: the body's terminator is its scf.yield (checked by `slice_of`), with one operand
    // per iter arg.
    let yield_op = unsafe { mlirBlockGetTerminator(body) };
    slice
        .args
        .iter()
        .map(|&j| {
            // SAFETY: see above.
            let yielded = unsafe { mlirOperationGetOperand(yield_op, j as isize) };
            let v = map
                .get(&key(yielded))
                .copied()
                .or_else(|| {
                    // A value yielded unchanged (an iter arg) or defined outside the loop.
                    // SAFETY: queries on a live value.
                    unsafe {
                        if mlirValueIsABlockArgument(yielded)
                            && mlirBlockArgumentGetOwner(yielded).ptr == body.ptr
                        {
                            let n = mlirBlockArgumentGetArgNumber(yielded) as usize;
                            state.get(&(n - 1)).copied()
                        } else {
                            None
                        }
                    }
                })
                .unwrap_or(yielded);
            (j, v)
        })
        .collect()
}

/// Builder shorthands for scalar i32 arithmetic and constants before `at`.
pub(crate) struct At {
    pub(crate) at: MlirOperation,
    pub(crate) loc: MlirLocation,
    pub(crate) ctx: MlirContext,
}

impl At {
    pub(crate) fn insert(&self, op: MlirOperation) -> MlirValue {
        // SAFETY: `at` is live in a block, which takes ownership; every op built here has one
        // result.
        unsafe {
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(self.at), self.at, op);
            mlirOperationGetResult(op, 0)
        }
    }
    pub(crate) fn i32(&self, v: i64) -> MlirValue {
        let attr = self.ctx.i32_attr(v);
        self.insert(tritium_dialects::build::constant(self.loc, attr))
    }
    pub(crate) fn bin(&self, name: &str, a: MlirValue, b: MlirValue) -> MlirValue {
        self.insert(build(name, self.loc, &[a, b], &[value_type(a)], &[]))
    }
    /// `mask & splat(valid)` (just the splat without a mask), an i1 tensor of the shape and
    /// layout of `pointer_type`: an access's mask restricted to an iteration that runs.
    pub(crate) fn mask_and(
        &self,
        pointer_type: MlirType,
        mask: Option<MlirValue>,
        valid: MlirValue,
    ) -> MlirValue {
        let dims = shape(pointer_type);
        // SAFETY: types of the live context; the mask tensor has the pointers' shape and
        // encoding.
        let mask_type = unsafe {
            mlirRankedTensorTypeGet(
                dims.len() as isize,
                dims.as_ptr(),
                mlirIntegerTypeGet(self.ctx, 1),
                encoding_attr(pointer_type).unwrap_or(mlirAttributeGetNull()),
            )
        };
        let splat_valid = self.insert(tritium_dialects::build::splat(self.loc, valid, mask_type));
        match mask {
            Some(m) => self.bin("arith.andi", m, splat_valid),
            None => splat_valid,
        }
    }

    /// `a < b` (signed).
    pub(crate) fn lt(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        // SAFETY: types and attributes of the live context; predicate 2 is `slt`.
        let (i1, predicate) = unsafe { (mlirIntegerTypeGet(self.ctx, 1), self.ctx.i64_attr(2)) };
        self.insert(build(
            "arith.cmpi",
            self.loc,
            &[a, b],
            &[i1],
            &[("predicate", predicate)],
        ))
    }
}

/// The copies of one iteration (one commit group): for each staged load, a
/// `ttg.async_copy_global_to_local` of its pointers into slot `slot` of its ring, masked by its
/// mask and `valid`.
#[allow(clippy::too_many_arguments)]
/// The pointers and mask of one staged load's copies.
type CopySource = (MlirValue, Option<MlirValue>);

/// Each staged load's pointers and mask in the iteration `map` clones (read before the loads
/// are replaced).
fn copy_sources(staged: &[Staged], map: &HashMap<usize, MlirValue>) -> Vec<CopySource> {
    staged
        .iter()
        .map(|s| {
            let ins = operands(s.load);
            let pointers = map.get(&key(ins[0])).copied().unwrap_or(ins[0]);
            let mask = ins.get(1).map(|&m| map.get(&key(m)).copied().unwrap_or(m));
            (pointers, mask)
        })
        .collect()
}

fn issue_copies(
    at: &At,
    staged: &[Staged],
    rings: &[MlirValue],
    sources: &[CopySource],
    slot: MlirValue,
    valid: MlirValue,
) {
    let mut tokens = Vec::new();
    for ((s, &ring), &(pointers, mask)) in staged.iter().zip(rings).zip(sources) {
        let mask = at.mask_and(value_type(pointers), mask, valid);
        let buffer = index_view(at, ring, slot, s.buffer);
        // SAFETY: the token type and attributes of the live context.
        let (token_type, contiguity) = unsafe {
            (
                tritium_dialects::ffi::ttg::tritiumAsyncTokenTypeGet(at.ctx),
                at.ctx.i32_attr(s.vector as i64),
            )
        };
        // `other` is zero (checked by `candidates`), which is what cp.async fills in.
        let copy_operands = vec![pointers, buffer, mask];
        // SAFETY: a dense array attribute of the live context (src, result, mask, no other).
        let segments = unsafe { mlirDenseI32ArrayGet(at.ctx, 4, [1i32, 1, 1, 0].as_ptr()) };
        tokens.push(at.insert(build(
            "ttg.async_copy_global_to_local",
            at.loc,
            &copy_operands,
            &[token_type],
            &[
                ("contiguity", contiguity),
                ("operandSegmentSizes", segments),
            ],
        )));
    }
    // SAFETY: the token type of the live context.
    let token_type = unsafe { tritium_dialects::ffi::ttg::tritiumAsyncTokenTypeGet(at.ctx) };
    at.insert(build(
        "ttg.async_commit_group",
        at.loc,
        &tokens,
        &[token_type],
        &[],
    ));
}

/// `ttg.memdesc_index %ring[%slot]` with the staging alloc's (mutable) buffer type.
fn index_view(at: &At, ring: MlirValue, slot: MlirValue, buffer: MlirType) -> MlirValue {
    at.insert(build(
        "ttg.memdesc_index",
        at.loc,
        &[ring, slot],
        &[buffer],
        &[],
    ))
}

/// The staged loads of a loop body that can be pipelined: loads staged in shared memory for
/// the dots (`only use a ttg.local_alloc read only by ttng.warp_group_dot`s), and loads whose
/// values reach a dot through register ops (mixed-precision and scaled operands, their scales).
fn candidates(body: MlirBlock, axis: &AxisInfoAnalysis) -> Vec<Staged> {
    let mut found = Vec::new();
    // SAFETY: iteration over the live body's ops and use lists.
    unsafe {
        let mut op = mlirBlockGetFirstOperation(body);
        while !op.ptr.is_null() {
            if op_name(op) == "tt.load" {
                let loaded = results(op)[0];
                let loaded_users = users(loaded);
                let zero_other = operands(op).get(2).is_none_or(|&o| is_zero_constant(o));
                if zero_other && is_tensor(value_type(loaded)) {
                    let user = loaded_users.first().copied();
                    let staged_for_dots = loaded_users.len() == 1
                        && user.is_some_and(|alloc| {
                            op_name(alloc) == "ttg.local_alloc"
                                && mlirOperationGetBlock(alloc).ptr == body.ptr
                                && (only_dot_users(results(alloc)[0])
                                    || only_used_by(results(alloc)[0], "ttg.local_load"))
                        });
                    let mut read_encoding = None;
                    let mut operand_alloc = None;
                    let (alloc, buffer) = if staged_for_dots {
                        let alloc = user.expect("checked above");
                        let alloc_buffer = mutable(value_type(results(alloc)[0]));
                        match transposing_read(axis, op, alloc_buffer) {
                            Some((buffer, layout)) if only_dot_users(results(alloc)[0]) => {
                                read_encoding = Some(layout);
                                operand_alloc = Some(alloc);
                                (None, Some(buffer))
                            }
                            _ => (Some(alloc), Some(alloc_buffer)),
                        }
                    } else if let Some(operand) = mma_v2_operand_of(loaded) {
                        (None, mma_v2_operand_buffer(value_type(loaded), &operand))
                    } else if reaches_dot(loaded, body) {
                        (None, register_buffer(value_type(loaded)))
                    } else {
                        (None, None)
                    };
                    if let Some(buffer) = buffer
                        && let Some(vector) = copy_vector(axis, op, buffer)
                    {
                        found.push(Staged {
                            load: op,
                            alloc,
                            buffer,
                            vector,
                            read_encoding,
                            operand_alloc,
                        });
                    }
                }
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
    found
}

/// A wgmma operand of 4-byte elements whose buffer keeps the other dim contiguous than memory
/// does (tf32 B of a row-major K x N matrix: wgmma reads tf32 K-major only) would be copied one
/// element per `cp.async` (32 copies a thread and iteration for a 32x128 tile; both compilers
/// ran such matmuls at a fifth of tf32 peak). Instead its copies go 16 bytes at a time into a
/// buffer in memory's order, and the loop transposes through registers: it reads the slot back
/// (`ttg.local_load`) in a layout holding up to 4x4 elements a thread, and the body's own
/// `ttg.local_alloc` stores them for the dot — 16-byte reads and writes. Eight consecutive lanes
/// run along the operand's contiguous dim, so each 16-byte write phase covers the 128-byte
/// swizzle's eight columns; the buffer is swizzled by those lanes' row groups so that their
/// reads fall in distinct columns too. Returns that buffer and the layout to read it in.
fn transposing_read(
    axis: &AxisInfoAnalysis,
    load: MlirOperation,
    alloc_buffer: MlirType,
) -> Option<(MlirType, Encoding)> {
    let ty = value_type(results(load)[0]);
    let dims = shape(ty);
    let elem_bytes = pointee_bytes(element_type(value_type(operands(load)[0])));
    if dims.len() != 2 || elem_bytes != 4 {
        return None;
    }
    if !matches!(memdesc_encoding_of(alloc_buffer)?, Encoding::NvmmaShared(_))
        || copy_vector(axis, load, alloc_buffer)? != 1
    {
        return None;
    }
    let Some(Encoding::Blocked(loaded)) = encoding_of(ty) else {
        return None;
    };
    // `fast`: memory's contiguous dim (the buffer's); `other`: the operand's.
    let fast = *loaded.order.first()? as usize;
    let other = 1 - fast;
    let warps = loaded.num_warps();
    let (fast_len, other_len) = (dims[fast] as u32, dims[other] as u32);
    let vector = 16 / elem_bytes as u32;
    let per_thread = (fast_len * other_len / (32 * warps)).max(1);
    let fast_size = fast_len.min(vector);
    let other_size = (per_thread / fast_size).clamp(1, vector).min(other_len);
    let other_lanes = (other_len / other_size).clamp(1, 8);
    let fast_lanes = 32 / other_lanes;
    let fast_warps = (fast_len / (fast_size * fast_lanes)).clamp(1, warps);
    let other_warps = warps / fast_warps;
    let mut size_per_thread = vec![0; 2];
    let mut threads_per_warp = vec![0; 2];
    let mut warps_per_cta = vec![0; 2];
    size_per_thread[fast] = fast_size;
    size_per_thread[other] = other_size;
    threads_per_warp[fast] = fast_lanes;
    threads_per_warp[other] = other_lanes;
    warps_per_cta[fast] = fast_warps;
    warps_per_cta[other] = other_warps;
    let mut layout = tritium_layout::encoding::BlockedEncoding::new(
        size_per_thread,
        threads_per_warp,
        warps_per_cta,
        vec![other as u32, fast as u32],
    );
    layout.cta_layout = loaded.cta_layout.clone();
    // The buffer's rows are `other` indices; the eight lanes of a read phase start `other_size`
    // rows apart, so a phase that changes every `other_size` rows puts them in eight distinct
    // 16-byte columns (when a row has eight).
    let columns = fast_len / vector;
    let shared = tritium_layout::encoding::SwizzledSharedEncoding::new(
        vector,
        other_size,
        columns.clamp(1, 8),
        loaded.order.clone(),
    );
    let buffer = buffer_type(ty, &Encoding::SwizzledShared(shared));
    if copy_vector(axis, load, buffer)? != vector as u64 {
        return None;
    }
    Some((buffer, Encoding::Blocked(layout)))
}

/// Whether `value` flows, through ops of `body` (not around the loop), into a tensor-core dot
/// or a buffer one reads.
fn reaches_dot(value: MlirValue, body: MlirBlock) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![value];
    while let Some(v) = work.pop() {
        for owner in users(v) {
            // SAFETY: `owner` is a live op of the module.
            if unsafe { mlirOperationGetBlock(owner) }.ptr != body.ptr
                || !seen.insert(owner.ptr as usize)
            {
                continue;
            }
            let name = op_name(owner);
            if name == "ttng.warp_group_dot" || name == "tt.dot" {
                return true;
            }
            if name == "ttg.local_alloc" && only_dot_users(results(owner)[0]) {
                return true;
            }
            if name != "scf.yield" {
                work.extend(results(owner));
            }
        }
    }
    false
}

/// `ty` (a memdesc) made mutable.
fn mutable(ty: MlirType) -> MlirType {
    mutable_with_slots(ty, None)
}

/// `ty` (a memdesc) made mutable, with a leading dimension of `slots` buffers when given (a
/// ring of them).
fn mutable_with_slots(ty: MlirType, slots: Option<i64>) -> MlirType {
    let mut dims = crate::tma_lowering::memdesc_dims(ty);
    if let Some(slots) = slots {
        dims.insert(0, slots);
    }
    // SAFETY: memdesc accessors on a live type; `dims` outlives the call.
    unsafe {
        tritium_dialects::ffi::ttg::tritiumMemDescTypeGet(
            tritium_dialects::ffi::ttg::tritiumMemDescTypeGetElementType(ty),
            dims.len() as isize,
            dims.as_ptr(),
            tritium_dialects::ffi::ttg::tritiumMemDescTypeGetEncoding(ty),
            tritium_dialects::ffi::ttg::tritiumMemDescTypeGetMemorySpace(ty),
            true,
            dims.len() as isize,
            dims.as_ptr(),
        )
    }
}

/// A mutable shared-memory buffer of `ty`'s shape and element type in `shared`.
fn buffer_type(ty: MlirType, shared: &Encoding) -> MlirType {
    let dims = shape(ty);
    // SAFETY: live handles of one context; `dims` outlives the call.
    unsafe {
        let ctx = mlirTypeGetContext(ty);
        tritium_dialects::ffi::ttg::tritiumMemDescTypeGet(
            element_type(ty),
            dims.len() as isize,
            dims.as_ptr(),
            encoding_to_attr(ctx, shared),
            tritium_dialects::ffi::ttg::tritiumSharedMemorySpaceGet(ctx),
            true,
            dims.len() as isize,
            dims.as_ptr(),
        )
    }
}

/// A buffer for a tensor the loop reads back into registers in its own (blocked) layout:
/// unswizzled, in the layout's dimension order, so the copies and the reads of each thread are
/// its own contiguous runs.
fn register_buffer(ty: MlirType) -> Option<MlirType> {
    let Some(Encoding::Blocked(blocked)) = encoding_of(ty) else {
        return None;
    };
    let shared = Encoding::SwizzledShared(tritium_layout::encoding::SwizzledSharedEncoding::new(
        1,
        1,
        1,
        blocked.order.clone(),
    ));
    Some(buffer_type(ty, &shared))
}

/// The `#ttg.dot_op` of an `mma.sync` (mma v2) operand when `loaded`'s only use converts it
/// into one: the loop then reads its slot with `ldmatrix` straight into operand registers.
fn mma_v2_operand_of(loaded: MlirValue) -> Option<tritium_layout::encoding::DotOperandEncoding> {
    let [convert] = users(loaded)[..] else {
        return None;
    };
    if op_name(convert) != "ttg.convert_layout" {
        return None;
    }
    match encoding_of(value_type(results(convert)[0]))? {
        Encoding::DotOperand(operand) if matches!(&*operand.parent, Encoding::NvidiaMma(mma) if mma.version_major == 2) => {
            Some(operand)
        }
        _ => None,
    }
}

/// A buffer for an `mma.sync` operand, swizzled so that `ldmatrix` reads it without bank
/// conflicts (unswizzled, the 2-warp matmul configs of Triton's tutorial 03 ran 25 M bank
/// conflicts where Triton's swizzled buffers have 0.3 M).
fn mma_v2_operand_buffer(
    ty: MlirType,
    operand: &tritium_layout::encoding::DotOperandEncoding,
) -> Option<MlirType> {
    let Some(Encoding::Blocked(blocked)) = encoding_of(ty) else {
        return None;
    };
    let shared = Encoding::SwizzledShared(
        tritium_layout::encoding::SwizzledSharedEncoding::for_mma_operand(
            operand,
            &shape(ty),
            blocked.order.clone(),
            crate::tma_lowering::elem_bits(element_type(ty)),
        ),
    );
    Some(buffer_type(ty, &shared))
}

/// Whether `value` (a buffer) is read only by wgmmas, directly or through transposed views of
/// it (attention backward's qT, read by one dot as loaded and by another transposed).
fn only_dot_users(value: MlirValue) -> bool {
    let owners = users(value);
    !owners.is_empty()
        && owners
            .into_iter()
            .all(|owner| match op_name(owner).as_str() {
                "ttng.warp_group_dot" => true,
                "ttg.memdesc_trans" => only_dot_users(results(owner)[0]),
                _ => false,
            })
}

/// The transposed views of `buffer`, now a ring slot, become mutable as it is.
fn make_views_mutable(buffer: MlirValue) {
    for owner in users(buffer) {
        if op_name(owner) == "ttg.memdesc_trans" {
            let view = results(owner)[0];
            // SAFETY: the view's result type is replaced by the same memdesc type made mutable.
            unsafe { mlirValueSetType(view, mutable(value_type(view))) };
            make_views_mutable(view);
        }
    }
}

fn pipeline_loop(for_op: MlirOperation, stages: i64, scheduled: bool, axis: &AxisInfoAnalysis) {
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    let ins = operands(for_op);
    let (Some(&lb), Some(&ub), Some(&step)) = (ins.first(), ins.get(1), ins.get(2)) else {
        return;
    };
    // SAFETY: type query on a live value.
    let i32_iv = unsafe {
        let t = value_type(lb);
        mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32
    };
    if !i32_iv {
        return;
    }
    let mut staged = candidates(body, axis);
    // A schedule (-tritongpu-schedule-loops) says which loads to stage.
    if scheduled {
        staged.retain(|s| crate::schedule::has_latency(s.load));
    }
    if staged.is_empty() {
        return;
    }
    let roots: Vec<MlirValue> = staged
        .iter()
        .flat_map(|s| operands(s.load).into_iter().take(2))
        .collect();
    let Some(slice) = slice_with(body, for_op, &roots, true) else {
        return;
    };
    // Branches in the copies' addresses run only for iterations that do.
    let has_branches = slice.ops.iter().any(|&op| op_name(op) == "scf.if");
    let ctx = context_of(for_op);
    // SAFETY: live op location.
    let loc = unsafe { mlirOperationGetLocation(for_op) };
    let before = At {
        at: for_op,
        loc,
        ctx,
    };

    // Rings read only into registers (`ttg.local_load`s feeding `mma.sync` or register ops), in
    // a loop without wgmmas, are done with a slot once this iteration's reads are: the copies go
    // at the end of the body, into the slot just read, and a ring needs one slot less (Triton's
    // `num-stages - 1`; the lowering's barrier orders the reads before the copies overwrite).
    let register_rings = !has_wgmma(body)
        && staged.iter().all(|s| {
            s.alloc
                .is_none_or(|alloc| only_used_by(results(alloc)[0], "ttg.local_load"))
        });
    let slots = if register_rings { stages - 1 } else { stages };

    // The rings of buffers, before the loop.
    let rings: Vec<MlirValue> = staged
        .iter()
        .map(|s| {
            let ring_type = mutable_with_slots(s.buffer, Some(slots));
            before.insert(build("ttg.local_alloc", loc, &[], &[ring_type], &[]))
        })
        .collect();
    // The transposed operands' rings (one buffer per slot, written in the body).
    let operand_rings: Vec<Option<MlirValue>> = staged
        .iter()
        .map(|s| {
            s.operand_alloc.map(|alloc| {
                let slot = mutable(value_type(results(alloc)[0]));
                let ring_type = mutable_with_slots(slot, Some(slots));
                before.insert(build("ttg.local_alloc", loc, &[], &[ring_type], &[]))
            })
        })
        .collect();

    // Prologue: iterations 0 .. stages - 2.
    let init = |j: usize| {
        // SAFETY: operand `j + 3` of the live loop is iter arg `j`'s init (scf.for's operands:
        // bounds, step, then one init per iter arg; `j` is an iter-arg index of its body).
        unsafe { mlirOperationGetOperand(for_op, j as isize + 3) }
    };
    let mut state: HashMap<usize, MlirValue> = slice.args.iter().map(|&j| (j, init(j))).collect();
    let mut iv = lb;
    // The iter args of the last iteration the prologue issues (`stages - 2`).
    let mut issued_state = state.clone();
    for s in 0..stages - 1 {
        let guard = has_branches.then(|| before.lt(iv, ub));
        let map = clone_iteration(body, &slice, for_op, iv, &state, guard);
        let valid = guard.unwrap_or_else(|| before.lt(iv, ub));
        let slot = before.i32(s);
        issue_copies(
            &before,
            &staged,
            &rings,
            &copy_sources(&staged, &map),
            slot,
            valid,
        );
        issued_state = state.clone();
        state = next_state(body, &slice, &map, &state);
        iv = before.bin("arith.addi", iv, step);
    }

    // In the loop: wait for this iteration's copies, prefetch `stages - 1` ahead.
    // SAFETY: the first op of the live body (it has at least the yield).
    let top = unsafe { mlirBlockGetFirstOperation(body) };
    let inside = At { at: top, loc, ctx };
    // SAFETY: the token type and attributes of the live context.
    let (token_type, pending) = unsafe {
        (
            tritium_dialects::ffi::ttg::tritiumAsyncTokenTypeGet(ctx),
            ctx.i32_attr(stages - 2),
        )
    };
    inside.insert(build(
        "ttg.async_wait",
        loc,
        &[],
        &[token_type],
        &[("num", pending)],
    ));
    // The loop carries, besides its own iter args, the sliced iter args of the last iteration
    // issued (`stages - 2` ahead; the prologue's last to start with) and the ring slots read
    // and written, so an iteration advances them by one step and copies with the result, as
    // Triton's pipelined loops do.
    // SAFETY: block argument 0 of the live body is the induction variable; the new block
    // arguments (of the context's types, at the loop's location) are appended to the live body.
    let body_iv = unsafe { mlirBlockGetArgument(body, 0) };
    let i32_type = value_type(lb);
    let ahead_args: Vec<(usize, MlirValue)> = slice
        .args
        .iter()
        .map(|&j| {
            let ty = value_type(issued_state[&j]);
            // SAFETY: a new argument of a live type appended to the live body.
            (j, unsafe { mlirBlockAddArgument(body, ty, loc) })
        })
        .collect();
    // SAFETY: as above.
    let extract = unsafe { mlirBlockAddArgument(body, i32_type, loc) };
    let insert_slot = if register_rings {
        extract
    } else {
        // SAFETY: as above.
        unsafe { mlirBlockAddArgument(body, i32_type, loc) }
    };
    let issued_steps = inside.i32(stages - 2);
    let issued_steps = inside.bin("arith.muli", issued_steps, step);
    let issued_iv = inside.bin("arith.addi", body_iv, issued_steps);
    let ahead_iv = inside.bin("arith.addi", issued_iv, step);
    let carried: HashMap<usize, MlirValue> = ahead_args.iter().copied().collect();
    // With the accumulating dot kept in flight, the copies go after its wait: the slot they
    // overwrite was read by the previous iteration's dot, complete only from there on.
    // A transposed operand's alloc becomes a ring slot below: staged as well.
    let staged_allocs: HashSet<usize> = staged
        .iter()
        .filter_map(|s| s.alloc.or(s.operand_alloc).map(|a| a.ptr as usize))
        .collect();
    let in_flight_wait = if register_rings {
        None
    } else {
        keep_dot_in_flight(body, for_op, &staged_allocs)
    };
    let copies_at = match in_flight_wait {
        Some(after_wait) => At {
            at: after_wait,
            loc,
            ctx,
        },
        None => At { at: top, loc, ctx },
    };
    // The issued iteration's updates give the state of the one to issue (the rest of that
    // clone is unused and folds away).
    let issued_guard = has_branches.then(|| copies_at.lt(issued_iv, ub));
    let issued = clone_iteration(
        body,
        &slice,
        copies_at.at,
        issued_iv,
        &carried,
        issued_guard,
    );
    let next_ahead = next_state(body, &slice, &issued, &carried);
    let guard = has_branches.then(|| copies_at.lt(ahead_iv, ub));
    let map = clone_iteration(body, &slice, copies_at.at, ahead_iv, &next_ahead, guard);
    let valid = guard.unwrap_or_else(|| copies_at.lt(ahead_iv, ub));
    // A register ring's copies wait for the reads below; the rest go here.
    let sources = copy_sources(&staged, &map);
    let mut deferred_copies = None;
    if register_rings {
        deferred_copies = Some((sources, valid));
    } else {
        issue_copies(&copies_at, &staged, &rings, &sources, insert_slot, valid);
    }
    // Every view first, then the loads and allocs they replace go: the top of the body, where
    // the views are inserted, may be one of those loads.
    let views: Vec<MlirValue> = staged
        .iter()
        .zip(&rings)
        .map(|(s, &ring)| index_view(&inside, ring, extract, s.buffer))
        .collect();
    for (s, view) in staged.iter().zip(views) {
        match s.alloc {
            // SAFETY: the alloc and load are live ops of the body whose only uses are the
            // alloc's dots (redirected to the view) and the alloc itself; both are destroyed
            // once unused.
            Some(alloc) => unsafe {
                mlirValueReplaceAllUsesOfWith(results(alloc)[0], view);
                make_views_mutable(view);
                mlirOperationDestroy(alloc);
                mlirOperationDestroy(s.load);
            },
            None => {
                let loaded = results(s.load)[0];
                let read = At {
                    at: s.load,
                    // SAFETY: the location of a live op.
                    loc: unsafe { mlirOperationGetLocation(s.load) },
                    ctx,
                };
                let read_type = match &s.read_encoding {
                    Some(layout) => {
                        with_encoding(value_type(loaded), encoding_to_attr(ctx, layout))
                    }
                    None => value_type(loaded),
                };
                let value = read.insert(build(
                    "ttg.local_load",
                    read.loc,
                    &[view],
                    &[read_type],
                    &[],
                ));
                // SAFETY: the load is a live op of the body; its uses move to the read-back
                // value, after which it has none and is destroyed.
                unsafe {
                    mlirValueReplaceAllUsesOfWith(loaded, value);
                    mlirOperationDestroy(s.load);
                }
            }
        }
    }
    for (s, operand_ring) in staged.iter().zip(&operand_rings) {
        let (Some(alloc), Some(ring)) = (s.operand_alloc, *operand_ring) else {
            continue;
        };
        let slot_type = mutable(value_type(results(alloc)[0]));
        let view = index_view(&inside, ring, extract, slot_type);
        let value = operands(alloc)[0];
        let store = build("ttg.local_store", loc, &[value, view], &[], &[]);
        // SAFETY: the store goes right before the live alloc, in its block; the alloc's uses
        // (the dots) move to the slot's view, after which it has none and is destroyed.
        unsafe {
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(alloc), alloc, store);
            mlirValueReplaceAllUsesOfWith(results(alloc)[0], view);
            mlirOperationDestroy(alloc);
        }
        make_views_mutable(view);
    }
    if let Some((sources, valid)) = deferred_copies {
        // At the end of the body: the reads' conversions into operand layouts fold into reads
        // at the conversions (right before the dots) later, and must still come first.
        // SAFETY: the body's terminator is its scf.yield (checked by `slice_of`).
        let end = unsafe { mlirBlockGetTerminator(body) };
        let at = At { at: end, loc, ctx };
        issue_copies(&at, &staged, &rings, &sources, insert_slot, valid);
    }
    // SAFETY: the body's terminator is its scf.yield (checked by `slice_of`).
    let yield_op = unsafe { mlirBlockGetTerminator(body) };
    let bump = At {
        at: yield_op,
        loc,
        ctx,
    };
    let next_slot = |slot: MlirValue| {
        let one = bump.i32(1);
        let next = bump.bin("arith.addi", slot, one);
        let depth = bump.i32(slots);
        let wraps = bump.lt(next, depth);
        let zero = bump.i32(0);
        bump.insert(build(
            "arith.select",
            loc,
            &[wraps, next, zero],
            &[i32_type],
            &[],
        ))
    };
    let next_extract = next_slot(extract);
    let mut yielded = operands(yield_op);
    yielded.extend(ahead_args.iter().map(|(j, _)| next_ahead[j]));
    yielded.push(next_extract);
    if !register_rings {
        yielded.push(next_slot(insert_slot));
    }
    crate::ttir::util::set_operands(yield_op, &yielded);
    let mut inits = operands(for_op)[3..].to_vec();
    inits.extend(slice.args.iter().map(|j| issued_state[j]));
    inits.push(before.i32(0));
    if !register_rings {
        inits.push(before.i32(stages - 1));
    }
    let for_op = replace_loop(for_op, &inits);
    let for_op = drop_dead_iter_args(for_op, &slice.args);

    // After the loop: drain the copies still in flight (those past the end are zero-fills).
    // SAFETY: `for_op` is live in a block; the wait goes right after it.
    unsafe {
        let wait = build(
            "ttg.async_wait",
            loc,
            &[],
            &[token_type],
            &[("num", ctx.i32_attr(0))],
        );
        mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(for_op), for_op, wait);
    }
}

/// A new `scf.for` in place of `old`, taking its body, with `inits` (the old ones first, then
/// those of block arguments the body has gained): the old results' uses go to the new ones.
pub(crate) fn replace_loop(old: MlirOperation, inits: &[MlirValue]) -> MlirOperation {
    let new = crate::ttir::util::rebuild_for(old, inits);
    // SAFETY: `old` is live with no more results than `new` (its inits are a prefix); once its
    // results are unused it is erased.
    unsafe {
        for i in 0..mlirOperationGetNumResults(old) {
            mlirValueReplaceAllUsesOfWith(
                mlirOperationGetResult(old, i),
                mlirOperationGetResult(new, i),
            );
        }
        mlirOperationDestroy(old);
    }
    new
}

/// Drops the iter args among `candidates` that nothing needs any more (the pipelined loads'
/// pointers, now carried ahead): the loop result is unused and the block argument feeds only
/// pure ops whose results feed only each other and its own yield operand.
pub(crate) fn drop_dead_iter_args(for_op: MlirOperation, candidates: &[usize]) -> MlirOperation {
    let Some(&body) = blocks_of(for_op).first() else {
        return for_op;
    };
    // SAFETY: the body's terminator is its scf.yield.
    let yield_op = unsafe { mlirBlockGetTerminator(body) };
    let mut dead: Vec<(usize, Vec<MlirOperation>)> = Vec::new();
    for &j in candidates {
        // SAFETY: result `j` and block argument `j + 1` exist (j is an iter-arg index).
        let (result, arg) = unsafe {
            (
                mlirOperationGetResult(for_op, j as isize),
                mlirBlockGetArgument(body, j as isize + 1),
            )
        };
        if has_uses(result) {
            continue;
        }
        if let Some(chain) = update_chain(arg, yield_op, j) {
            dead.push((j, chain));
        }
    }
    if dead.is_empty() {
        return for_op;
    }
    let dead_indices: HashSet<usize> = dead.iter().map(|(j, _)| *j).collect();
    let kept_yield: Vec<MlirValue> = operands(yield_op)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dead_indices.contains(i))
        .map(|(_, v)| v)
        .collect();
    crate::ttir::util::set_operands(yield_op, &kept_yield);
    for (_, chain) in &dead {
        for &op in chain.iter().rev() {
            // SAFETY: the chain's ops are live and used only by later chain ops (erased first)
            // and the yield operand just removed.
            unsafe { mlirOperationDestroy(op) };
        }
    }
    let mut indices: Vec<usize> = dead_indices.iter().copied().collect();
    indices.sort_unstable_by(|a, b| b.cmp(a));
    for &j in &indices {
        // SAFETY: block argument `j + 1` is now unused.
        unsafe { mlirBlockEraseArgument(body, j as u32 + 1) };
    }
    let ins = operands(for_op);
    let inits: Vec<MlirValue> = ins[3..]
        .iter()
        .enumerate()
        .filter(|(i, _)| !dead_indices.contains(i))
        .map(|(_, v)| *v)
        .collect();
    let new = crate::ttir::util::rebuild_for(for_op, &inits);
    let mut next = 0;
    // SAFETY: result `i` of the old loop and `next` of the new exist; the old loop is erased
    // once its results' uses are moved (the dead ones have none).
    unsafe {
        for i in 0..mlirOperationGetNumResults(for_op) as usize {
            if dead_indices.contains(&i) {
                continue;
            }
            mlirValueReplaceAllUsesOfWith(
                mlirOperationGetResult(for_op, i as isize),
                mlirOperationGetResult(new, next),
            );
            next += 1;
        }
        mlirOperationDestroy(for_op);
    }
    new
}

/// The ops (in body order) computing iter arg `j`'s next value from `arg` alone, when `arg`
/// and every such op's results are used only by each other and yield operand `j`.
fn update_chain(arg: MlirValue, yield_op: MlirOperation, j: usize) -> Option<Vec<MlirOperation>> {
    let mut seen: HashSet<usize> = HashSet::new();
    let mut work = vec![arg];
    while let Some(v) = work.pop() {
        for (user, number) in uses(v) {
            if user.ptr == yield_op.ptr {
                if number != j {
                    return None;
                }
            } else {
                // SAFETY: both ops are live ops of the module.
                let same_block = unsafe {
                    mlirOperationGetBlock(user).ptr == mlirOperationGetBlock(yield_op).ptr
                };
                if !is_recomputable(user) || !same_block {
                    return None;
                }
                if seen.insert(user.ptr as usize) {
                    work.extend(results(user));
                }
            }
        }
    }
    // Body order, so erasing in reverse erases users first.
    // SAFETY: the yield is a live op in a block.
    let block = unsafe { mlirOperationGetBlock(yield_op) };
    Some(
        block_ops(block)
            .into_iter()
            .filter(|op| seen.contains(&(op.ptr as usize)))
            .collect(),
    )
}

/// Whether the body holds a `ttng.warp_group_dot` (it reads its operands from shared memory
/// asynchronously).
fn has_wgmma(body: MlirBlock) -> bool {
    block_ops(body)
        .into_iter()
        .any(|op| op_name(op) == "ttng.warp_group_dot")
}

/// Keeps the loop's accumulating wgmma in flight across iterations, as Triton's pipeliner does:
/// where the body has one `ttng.warp_group_dot` whose accumulator is loop-carried (its C operand
/// is an iter arg used only there, its result only yielded back to it), the dot becomes
/// asynchronous, a `ttng.warp_group_dot_wait {pendings = 1}` after it waits for the previous
/// iteration's, and one with `pendings = 0` after the loop for the last. Returns the op after
/// the in-loop wait.
fn keep_dot_in_flight(
    body: MlirBlock,
    for_op: MlirOperation,
    staged: &HashSet<usize>,
) -> Option<MlirOperation> {
    let dots = wgmmas(body);
    if dots
        .iter()
        .any(|&d| crate::ir_util::bool_attr(d, "isAsync").unwrap_or(false))
    {
        return None;
    }
    let [_] = dots[..] else {
        return keep_last_dot_in_flight(body, for_op, &dots, staged);
    };
    let (dot, index, yield_op) = single_dot_in_flight(body, staged)?;
    let acc_out = results(dot)[0];
    wait_in_branches(dot, body);
    make_async(dot);
    let wait = dot_wait(dot, acc_out, 1);
    // SAFETY: the wait goes right after the live dot in its block, which owns it; the yield's
    // operand `index` exists (checked above).
    unsafe {
        mlirBlockInsertOwnedOperationAfter(body, dot, wait);
        mlirOperationSetOperand(yield_op, index as isize, mlirOperationGetResult(wait, 0));
    }
    drain_after_loop(for_op, index, dot);
    // SAFETY: next-op query on the live wait.
    let after = unsafe { mlirOperationGetNextInBlock(wait) };
    (!after.ptr.is_null()).then_some(after)
}

/// The `ttng.warp_group_dot`s of `body`, in order.
fn wgmmas(body: MlirBlock) -> Vec<MlirOperation> {
    block_ops(body)
        .into_iter()
        .filter(|&op| op_name(op) == "ttng.warp_group_dot")
        .collect()
}

/// The body's only `ttng.warp_group_dot` when it can stay in flight into the next iteration: a
/// synchronous dot accumulating into an iter arg it alone reads, its result yielded (at
/// `index`, by `yield_op`) and used nowhere else, reading no buffer the body rewrites each
/// iteration (`staged`: the allocs about to become ring slots).
fn single_dot_in_flight(
    body: MlirBlock,
    staged: &HashSet<usize>,
) -> Option<(MlirOperation, usize, MlirOperation)> {
    let dots = wgmmas(body);
    let [dot] = dots[..] else {
        return None;
    };
    if crate::ir_util::bool_attr(dot, "isAsync").unwrap_or(false)
        || reads_per_iteration_buffer(dot, body, staged)
    {
        return None;
    }
    let acc_in = *operands(dot).get(2)?;
    let acc_out = *results(dot).first()?;
    // SAFETY: use lists and block arguments of live values; the body's terminator is its yield.
    unsafe {
        let arg_is_body_iter_arg = mlirValueIsABlockArgument(acc_in)
            && mlirBlockArgumentGetOwner(acc_in).ptr == body.ptr
            && mlirBlockArgumentGetArgNumber(acc_in) > 0;
        if !arg_is_body_iter_arg || !has_single_use(acc_in) {
            return None;
        }
        let index = mlirBlockArgumentGetArgNumber(acc_in) as usize - 1;
        let yield_op = mlirBlockGetTerminator(body);
        let mut yielded = false;
        for (user, number) in uses(acc_out) {
            if user.ptr == yield_op.ptr {
                if number != index {
                    return None;
                }
                yielded = true;
            } else if !in_branch_after(user, dot, body) {
                return None;
            }
        }
        if op_name(yield_op) != "scf.yield" || !yielded {
            return None;
        }
        Some((dot, index, yield_op))
    }
}

/// Whether `user` is nested in an `scf.if` of `body` that comes after `dot`: a fused loop's
/// epilogue, reading the accumulator once per tile after a wait of its own.
pub(crate) fn in_branch_after(user: MlirOperation, dot: MlirOperation, body: MlirBlock) -> bool {
    // SAFETY: parent and order queries on live ops of `body`.
    unsafe {
        if mlirOperationGetBlock(user).ptr == body.ptr {
            return false;
        }
        let mut top = user;
        while mlirOperationGetBlock(top).ptr != body.ptr {
            top = mlirOperationGetParentOperation(top);
            if top.ptr.is_null() {
                return false;
            }
        }
        op_name(top) == "scf.if" && mlirOperationIsBeforeInBlock(dot, top)
    }
}

/// Before each block's first user of the in-flight `dot`'s result nested in a branch (see
/// [`in_branch_after`]), a `warp_group_dot_wait {pendings = 0}` that those users read instead.
pub(crate) fn wait_in_branches(dot: MlirOperation, body: MlirBlock) {
    let acc_out = results(dot)[0];
    let users: Vec<(MlirOperation, isize)> = uses(acc_out)
        .into_iter()
        .filter(|&(user, _)| in_branch_after(user, dot, body))
        .map(|(user, number)| (user, number as isize))
        .collect();
    let mut waits: HashMap<usize, (MlirOperation, MlirValue)> = HashMap::new();
    for (user, n) in users {
        // SAFETY: the user is live in a block; a wait goes before the block's first user (in
        // block order) and every user there reads its result.
        unsafe {
            let block = mlirOperationGetBlock(user);
            let entry = waits.entry(block.ptr as usize).or_insert_with(|| {
                let wait = dot_wait(dot, acc_out, 0);
                mlirBlockInsertOwnedOperationBefore(block, user, wait);
                (wait, mlirOperationGetResult(wait, 0))
            });
            if mlirOperationIsBeforeInBlock(user, entry.0) {
                mlirOperationMoveBefore(entry.0, user);
            }
            mlirOperationSetOperand(user, n, entry.1);
        }
    }
}

/// The loads of `for_op` the cp.async pipelining stages (see the module docs), whatever the
/// loop's stages and induction variable type: -tritongpu-assign-latencies marks these.
pub(crate) fn stageable_loads(
    for_op: MlirOperation,
    axis: &AxisInfoAnalysis,
) -> Vec<MlirOperation> {
    let Some(&body) = blocks_of(for_op).first() else {
        return Vec::new();
    };
    let staged = candidates(body, axis);
    let roots: Vec<MlirValue> = staged
        .iter()
        .flat_map(|s| operands(s.load).into_iter().take(2))
        .collect();
    if staged.is_empty() || slice_with(body, for_op, &roots, true).is_none() {
        return Vec::new();
    }
    staged.iter().map(|s| s.load).collect()
}

/// The wgmma of `for_op` the pipelining would keep in flight (a single accumulating dot; see
/// [`single_dot_in_flight`]), for -tritongpu-assign-latencies' `tt.self_latency`.
pub(crate) fn dot_kept_in_flight(
    for_op: MlirOperation,
    staged_loads: &[MlirOperation],
) -> Option<MlirOperation> {
    let body = *blocks_of(for_op).first()?;
    // The staged loads' allocs become ring slots (TMA loads' too).
    let staged: HashSet<usize> = staged_loads
        .iter()
        .filter_map(|&load| {
            let users = users(results(load)[0]);
            users
                .into_iter()
                .find(|u| op_name(*u) == "ttg.local_alloc")
                .map(|a| a.ptr as usize)
        })
        .collect();
    single_dot_in_flight(body, &staged).map(|(dot, _, _)| dot)
}

/// Whether `dot` reads a buffer that a `ttg.local_alloc` of the loop body writes every
/// iteration (an operand upcast or scaled in registers, then staged): one allocation serves all
/// iterations, so a dot left in flight would still be reading it when the next iteration's
/// alloc overwrites it. The allocs in `staged` (by op address) are about to become ring slots.
fn reads_per_iteration_buffer(
    dot: MlirOperation,
    body: MlirBlock,
    staged: &HashSet<usize>,
) -> bool {
    operands(dot).into_iter().take(2).any(|operand| {
        let mut value = operand;
        loop {
            let Some(def) = defining_op(value) else {
                return false;
            };
            match op_name(def).as_str() {
                "ttg.memdesc_trans" | "ttg.memdesc_subslice" | "ttg.memdesc_reinterpret" => {
                    value = operands(def)[0];
                }
                "ttg.local_alloc" => {
                    // SAFETY: block query on a live op.
                    let in_body = unsafe { mlirOperationGetBlock(def).ptr == body.ptr };
                    return in_body && !staged.contains(&(def.ptr as usize));
                }
                _ => return false,
            }
        }
    })
}

/// Marks a `ttng.warp_group_dot` asynchronous.
fn make_async(dot: MlirOperation) {
    // SAFETY: a bool attribute of the live dot's context set on it.
    unsafe {
        mlirOperationSetAttributeByName(
            dot,
            mlirStringRefCreateFromCString(c"isAsync".as_ptr()),
            mlirBoolAttrGet(context_of(dot), 1),
        );
    }
}

/// `ttng.warp_group_dot_wait %value {pendings}` at `dot`'s location (not inserted).
fn dot_wait(dot: MlirOperation, value: MlirValue, pendings: i64) -> MlirOperation {
    // SAFETY: attributes of the live context; a location of the live dot.
    unsafe {
        let ctx = context_of(dot);
        build(
            "ttng.warp_group_dot_wait",
            mlirOperationGetLocation(dot),
            &[value],
            &[value_type(value)],
            &[("pendings", ctx.i32_attr(pendings))],
        )
    }
}

/// After the loop, a `warp_group_dot_wait {pendings = 0}` of its result `index` (the last
/// iteration's in-flight dot), which the result's other users then read.
fn drain_after_loop(for_op: MlirOperation, index: usize, dot: MlirOperation) {
    // SAFETY: result `index` of the live loop exists; the wait goes right after the loop in its
    // block, which owns it; the result's other uses move to the wait's result.
    unsafe {
        let loop_result = mlirOperationGetResult(for_op, index as isize);
        let mut drain = dot_wait(dot, loop_result, 0);
        mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(for_op), for_op, drain);
        mlirValueReplaceAllUsesExcept(loop_result, mlirOperationGetResult(drain, 0), 1, &mut drain);
    }
}

/// With several dots (attention's QK^T then PV), the last one stays in flight into the next
/// iteration, as in Triton: where its result is only yielded (iter arg `j`), it becomes
/// asynchronous and a `warp_group_dot_wait {pendings = 0}` of iter arg `j` goes before the
/// arg's first use in the body — after the earlier dots, whose synchronous waits have drained
/// it anyway — and one of the loop result after the loop. The previous iteration's last dot is
/// then done before this one's, so the copies go right after it. Returns the op after it.
fn keep_last_dot_in_flight(
    body: MlirBlock,
    for_op: MlirOperation,
    dots: &[MlirOperation],
    staged: &HashSet<usize>,
) -> Option<MlirOperation> {
    let (&last, earlier) = dots.split_last()?;
    if earlier.is_empty() || reads_per_iteration_buffer(last, body, staged) {
        return None;
    }
    let acc_out = *results(last).first()?;
    if !has_single_use(acc_out) {
        return None;
    }
    let [(yield_op, index)] = uses(acc_out)[..] else {
        return None;
    };
    if op_name(yield_op) != "scf.yield" {
        return None;
    }
    // SAFETY: block argument `index + 1` of the live body is iter arg `index`.
    let arg = unsafe { mlirBlockGetArgument(body, index as isize + 1) };
    // The arg's first user in the body, which must come before the last dot.
    let ops = block_ops(body);
    let position = |op: MlirOperation| ops.iter().position(|o| o.ptr == op.ptr);
    let last_at = position(last)?;
    let mut first_use: Option<usize> = None;
    // Users outside the body's top level (nested regions) are located by their ancestor in it.
    for mut user in users(arg) {
        // SAFETY: `user` and its ancestors are live ops of the module.
        while unsafe { mlirOperationGetBlock(user) }.ptr != body.ptr {
            // SAFETY: as above.
            user = unsafe { mlirOperationGetParentOperation(user) };
            if user.ptr.is_null() {
                return None;
            }
        }
        let at = position(user)?;
        first_use = Some(first_use.map_or(at, |f| f.min(at)));
    }
    let first_use = first_use?;
    if first_use > last_at {
        return None;
    }
    make_async(last);
    let mut wait = dot_wait(last, arg, 0);
    // SAFETY: the wait goes before the arg's first user in the live body, which owns it; the
    // arg's other uses move to its result.
    unsafe {
        mlirBlockInsertOwnedOperationBefore(body, ops[first_use], wait);
        mlirValueReplaceAllUsesExcept(arg, mlirOperationGetResult(wait, 0), 1, &mut wait);
    }
    drain_after_loop(for_op, index, last);
    // SAFETY: next-op query on the live dot.
    let after = unsafe { mlirOperationGetNextInBlock(last) };
    (!after.ptr.is_null()).then_some(after)
}

/// Whether a live value has exactly one use.
fn run(module: OperationRef, options: &Options) -> PassResult {
    let default = options.int("num-stages");
    let module = module.to_raw();
    // sm_90: loads from tensor descriptors become multi-buffered TMA copies (pipeline_tma.rs).
    crate::pipeline_tma::run(module, default);
    // sm_90: stores through tensor descriptors in loops wait for the previous one, not their own.
    crate::pipeline_tma_stores::run(module, default);
    // Innermost loops only: a loop containing another loop is left alone.
    let loops = crate::schedule::innermost_loops(module);
    let axis = AxisInfoAnalysis::run(module);
    for for_op in loops {
        let scheduled = crate::schedule::is_scheduled(for_op);
        if let Some(stages) = crate::schedule::loop_stages(for_op, default) {
            pipeline_loop(for_op, stages, scheduled, &axis);
        }
    }
    // The schedule is spent.
    crate::schedule::clear_schedule(module);
    for for_op in collect_ops(module) {
        if op_name(for_op) == "scf.for" {
            release_branch_cycles(for_op);
        }
    }
    Ok(())
}

/// Iter args whose value nothing needs (a fused loop's prologue values the copies now compute
/// ahead, their old state kept by an `scf.if`'s `else` side, or the ahead state's values no
/// copy reads) are yielded unchanged, which canonicalization folds away with the branch
/// results that kept them alive. Needed: operands of ops with effects or regions other than
/// `scf.if`, every branch's condition, loop results used after the loop, and, backwards, what
/// needed values are computed from (a branch result: its condition and both sides; an iter
/// arg: its update).
fn release_branch_cycles(for_op: MlirOperation) {
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    // SAFETY: the body's terminator is checked to be its scf.yield; operands, results, block
    // arguments and parents of live ops and values of the loop.
    unsafe {
        let yield_op = mlirBlockGetTerminator(body);
        if yield_op.ptr.is_null() || op_name(yield_op) != "scf.yield" {
            return;
        }
        let mut live: HashSet<usize> = HashSet::new();
        let mut work: Vec<MlirValue> = Vec::new();
        walk(for_op, &mut |op| {
            if op.ptr == for_op.ptr {
                return;
            }
            let name = op_name(op);
            let parent = mlirOperationGetParentOperation(op);
            let region_op = mlirOperationGetNumRegions(op) != 0 && name != "scf.if";
            let inside_region_op = parent.ptr != for_op.ptr && op_name(parent) != "scf.if";
            if inside_region_op {
                return;
            }
            if region_op {
                work.extend(crate::ttir::util::external_operands(op));
            } else if name == "scf.if" {
                // Whether a branch runs matters even when it yields nothing (a guarded store).
                work.push(mlirOperationGetOperand(op, 0));
            } else if name != "scf.yield" && !crate::ttir::util::is_pure(&name) {
                work.extend(operands(op));
            }
        });
        let results_count = mlirOperationGetNumResults(for_op);
        for j in 0..results_count {
            if has_uses(mlirOperationGetResult(for_op, j)) {
                work.push(mlirBlockGetArgument(body, j + 1));
            }
        }
        while let Some(v) = work.pop() {
            if !live.insert(key(v)) {
                continue;
            }
            if mlirValueIsABlockArgument(v) {
                if mlirBlockArgumentGetOwner(v).ptr == body.ptr {
                    let n = mlirBlockArgumentGetArgNumber(v);
                    if n > 0 {
                        work.push(mlirOperationGetOperand(yield_op, n - 1));
                    }
                }
                continue;
            }
            let def = mlirOpResultGetOwner(v);
            if op_name(def) == "scf.if" {
                let p = mlirOpResultGetResultNumber(v);
                work.push(mlirOperationGetOperand(def, 0));
                for block in blocks_of(def) {
                    work.push(mlirOperationGetOperand(mlirBlockGetTerminator(block), p));
                }
            } else {
                work.extend(operands(def));
            }
        }
        for j in 0..results_count {
            let arg = mlirBlockGetArgument(body, j + 1);
            if !live.contains(&key(arg)) {
                mlirOperationSetOperand(yield_op, j, arg);
            }
        }
    }
}
