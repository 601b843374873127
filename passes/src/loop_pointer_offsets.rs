//! `-tritium-loop-pointer-offsets`: a loop-carried tensor of pointers advanced by the same
//! amount in every element (`tt.addptr %p, splat(%s)`, a matmul's or attention's operand
//! pointers moving one block along K) is carried as one scalar offset instead: the body reads
//! `tt.addptr %init, splat(%offset)`, and `%offset` grows by `%s` each iteration (in i64, so the
//! sum cannot wrap where the pointer steps did not).
//!
//! Carried as pointers, every element's address is a loop-carried register pair advanced each
//! iteration, and LLVM's loop strength reduction, given sixteen such induction variables of a
//! pipelined 4-warp matmul, keeps them all and adds copies and re-additions (25% more SASS
//! instructions than Triton's loop, measured with ncu). As offsets, the per-element addresses
//! are loop-invariant bases plus one uniform scalar, which is what Triton's own loop ends up with.
//! The now unused pointer iter args are left to `canonicalize`.
//!
//! Block pointers reach the copies another way: the addresses are recomputed every iteration
//! from a scalar row offset, `tt.addptr %base, (splat(%row) + %range) * splat(%stride) + %cols`
//! in i64. Split into `%range * %stride + %cols` (loop invariant: added to the base once, before
//! the loop) and `%row * %stride` (one uniform scalar, through the same opaque move), each
//! address costs one 64-bit add per iteration; LLVM had made each its own induction variable
//! again (attention's K and V tiles: 16, 446 SASS instructions in the loop against Triton's 348).
//! The same split takes i32 offsets (the scalar part sign-extended, as `tt.addptr` extends them)
//! and pointers whose moving part is in their base: tutorial 11's B operand,
//! `broadcast(addptr(splat(%b), (splat(%k) + %range) * %stride)) + %cols`, whose per-row products
//! ptxas otherwise recomputes each K step on the uniform datapath (1.05x Triton's time).

use crate::ir_util::*;
use crate::ttir::util::defined_outside;
use mlir_sys::*;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::build;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritium-loop-pointer-offsets",
    summary: "Carry uniformly advanced tensors of pointers through scf.for as scalar offsets",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith(), dialects::scf()],
    run,
};

/// How much an iter arg's pointers advance per iteration, in elements.
enum Step {
    /// `tt.splat %s` (an integer scalar computed anywhere before the advance).
    Scalar(MlirValue),
    /// A splat integer constant.
    Constant(i64),
}

struct Candidate {
    /// The iter arg's index (block argument `index + 1`, result `index`).
    index: usize,
    /// The `tt.addptr` computing its next value.
    advance: MlirOperation,
    step: Step,
}

fn is_pointer_tensor(ty: MlirType) -> bool {
    // SAFETY: type queries on a live type.
    is_tensor(ty) && unsafe { tritium_dialects::ffi::tritiumTypeIsPointer(element_type(ty)) }
}

/// The per-iteration step of `inc` (the offsets of an advance) when every element gets the same.
fn uniform_step(inc: MlirValue) -> Option<Step> {
    if let Some(c) = constant_int(inc) {
        return Some(Step::Constant(c));
    }
    let splat = defining_op(inc).filter(|op| op_name(*op) == "tt.splat")?;
    let scalar = *operands(splat).first()?;
    // SAFETY: type query on a live value's type.
    unsafe { mlirTypeIsAInteger(value_type(scalar)) }.then_some(Step::Scalar(scalar))
}

/// The most addresses a thread may hold per carried tensor for the rewrite to pay: each becomes a
/// loop-invariant base, live across the loop beside the per-iteration sums. A masked 1000^3
/// matmul's 64 unvectorized addresses per operand spilled twice as much (1092 bytes against 456
/// in ptxas) and ran 1.85x slower; a pipelined matmul's 8 vectors per operand gained 10%.
const MAX_ADDRESSES_PER_THREAD: u64 = 16;

/// The most registers a thread may hold for a loop's dot results plus its hoisted block-pointer
/// bases (two each) for the split of [`split_recomputed_addresses`]: three quarters of the 255
/// a thread can have, the rest left to the body's temporaries.
const MAX_DOT_AND_BASE_REGISTERS: u64 = 192;

/// Registers a thread holds for the results of the dots in `for_op` (accumulators and scores,
/// live through most of a matmul or attention body).
fn dot_registers(for_op: MlirOperation) -> u64 {
    collect_ops(for_op)
        .into_iter()
        .filter(|op| matches!(op_name(*op).as_str(), "tt.dot" | "ttng.warp_group_dot"))
        .filter_map(|op| {
            // SAFETY: both dot ops have one result.
            let ty = value_type(unsafe { mlirOperationGetResult(op, 0) });
            let dims: Vec<u32> = shape(ty).iter().map(|&d| d as u32).collect();
            encoding_of(ty)?.total_elems_per_thread(&dims).ok()
        })
        .map(|elements| elements as u64)
        .sum()
}

/// The addresses a thread holds for the pointer tensor `value`, read only by the cp.async
/// copies among `users`: its elements, one per copy of `contiguity` elements (the width the
/// pipeliner chose and recorded on each copy; none recorded: one element).
fn addresses_per_thread(value: MlirValue, users: &[MlirOperation]) -> Option<u64> {
    let ty = value_type(value);
    let dims: Vec<u32> = shape(ty).iter().map(|&d| d as u32).collect();
    let elements = encoding_of(ty)?.total_elems_per_thread(&dims).ok()? as u64;
    let vector = users
        .iter()
        .filter(|op| op_name(**op) == "ttg.async_copy_global_to_local")
        .map(|op| int_attr(*op, "contiguity").unwrap_or(1).max(1) as u64)
        .min()
        .unwrap_or(1);
    Some(elements.div_ceil(vector))
}

/// Whether every use of `value` other than by `except` is a `ttg.async_copy_global_to_local`,
/// whose access width the pipeliner already fixed: a `tt.load` would be vectorized from the
/// addresses' divisibility, which the opaque offset hides.
fn only_copied(value: MlirValue, except: MlirOperation) -> bool {
    users(value)
        .into_iter()
        .all(|user| user.ptr == except.ptr || op_name(user) == "ttg.async_copy_global_to_local")
}

fn candidates(body: MlirBlock) -> Vec<Candidate> {
    // SAFETY: the body's terminator is its scf.yield; block arguments 1.. are the iter args.
    let (yield_op, args) = unsafe { (mlirBlockGetTerminator(body), block_args(body)) };
    let yielded = operands(yield_op);
    let mut found = Vec::new();
    for (index, &next) in yielded.iter().enumerate() {
        let Some(&arg) = args.get(index + 1) else {
            break;
        };
        if !is_pointer_tensor(value_type(arg)) {
            continue;
        }
        let Some(advance) = defining_op(next).filter(|op| op_name(*op) == "tt.addptr") else {
            continue;
        };
        let ins = operands(advance);
        // SAFETY: block query on a live op.
        let in_body = unsafe { mlirOperationGetBlock(advance).ptr == body.ptr };
        if !in_body || ins.len() != 2 || ins[0].ptr != arg.ptr {
            continue;
        }
        if !only_copied(arg, advance) || !only_copied(next, yield_op) {
            continue;
        }
        let mut copies = users(arg);
        copies.extend(users(next));
        if addresses_per_thread(arg, &copies).is_none_or(|n| n > MAX_ADDRESSES_PER_THREAD) {
            continue;
        }
        if let Some(step) = uniform_step(ins[1]) {
            found.push(Candidate {
                index,
                advance,
                step,
            });
        }
    }
    found
}

/// `tt.addptr %base, tt.splat(%offset)` (offsets of `base`'s shape and layout, in i64), inserted
/// by `insert`.
///
/// In the loop (`opaque`), the offset first goes through an empty `mov.b64` of inline PTX, which
/// LLVM cannot see through: its loop strength reduction would otherwise turn each address back
/// into an induction variable of its own (sixteen 64-bit ones for a pipelined 4-warp matmul,
/// which is what this pass removes), and ptxas drops the move.
fn offset_pointers(
    ctx: MlirContext,
    loc: MlirLocation,
    base: MlirValue,
    offset: MlirValue,
    opaque: bool,
    insert: &dyn Fn(MlirOperation),
) -> MlirValue {
    let ty = value_type(base);
    let dims = shape(ty);
    // SAFETY: live handles of one context; the new ops are handed to `insert`, which places them.
    unsafe {
        let i64_type = mlirIntegerTypeGet(ctx, 64);
        let offset = if opaque {
            let string = |text: &str| ctx.string_attr(text);
            let copy = build(
                "tt.elementwise_inline_asm",
                loc,
                &[offset],
                &[i64_type],
                &[
                    ("asm_string", string("mov.b64 $0, $1;")),
                    ("constraints", string("=l,l")),
                    ("pure", mlirBoolAttrGet(ctx, 1)),
                    ("packed_element", ctx.i32_attr(1)),
                ],
            );
            insert(copy);
            mlirOperationGetResult(copy, 0)
        } else {
            offset
        };
        let offsets_type = mlirRankedTensorTypeGet(
            dims.len() as isize,
            dims.as_ptr(),
            i64_type,
            encoding_attr(ty).unwrap_or(mlirAttributeGetNull()),
        );
        let splat = build("tt.splat", loc, &[offset], &[offsets_type], &[]);
        insert(splat);
        let pointers = build(
            "tt.addptr",
            loc,
            &[base, mlirOperationGetResult(splat, 0)],
            &[ty],
            &[],
        );
        insert(pointers);
        mlirOperationGetResult(pointers, 0)
    }
}

fn rewrite(for_op: MlirOperation) {
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    let found = candidates(body);
    if found.is_empty() {
        return;
    }
    let ctx = context_of(for_op);
    let inits = operands(for_op)[3..].to_vec();
    // SAFETY: live handles of one context. New ops go before the loop (the zero), at the top of
    // the body (the pointers read there), right after each advance (the next offset, whose step
    // is defined before the advance), and right after the new loop (the final pointers). The old
    // loop is replaced by one with the offsets as extra iter args, its results' uses moved.
    unsafe {
        let loc = mlirOperationGetLocation(for_op);
        let i64_type = mlirIntegerTypeGet(ctx, 64);
        let zero = build(
            "arith.constant",
            loc,
            &[],
            &[i64_type],
            &[("value", mlirIntegerAttrGet(i64_type, 0))],
        );
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(for_op), for_op, zero);
        let zero = mlirOperationGetResult(zero, 0);
        let yield_op = mlirBlockGetTerminator(body);
        let mut yielded = operands(yield_op);
        let mut new_inits = inits.clone();
        let first = mlirBlockGetFirstOperation(body);
        for candidate in &found {
            let arg = mlirBlockGetArgument(body, candidate.index as isize + 1);
            let offset = mlirBlockAddArgument(body, i64_type, loc);
            let read = offset_pointers(ctx, loc, inits[candidate.index], offset, true, &|op| {
                mlirBlockInsertOwnedOperationBefore(body, first, op)
            });
            mlirValueReplaceAllUsesOfWith(arg, read);
            let step = match candidate.step {
                Step::Constant(c) => {
                    let constant = build(
                        "arith.constant",
                        loc,
                        &[],
                        &[i64_type],
                        &[("value", mlirIntegerAttrGet(i64_type, c))],
                    );
                    mlirBlockInsertOwnedOperationAfter(body, candidate.advance, constant);
                    mlirOperationGetResult(constant, 0)
                }
                Step::Scalar(s) => {
                    let width = mlirIntegerTypeGetWidth(value_type(s));
                    if width == 64 {
                        s
                    } else {
                        let ext = build("arith.extsi", loc, &[s], &[i64_type], &[]);
                        mlirBlockInsertOwnedOperationAfter(body, candidate.advance, ext);
                        mlirOperationGetResult(ext, 0)
                    }
                }
            };
            // The next offset goes after the advance, or after the step's own op when that
            // was just inserted there.
            let step_op = mlirValueIsAOpResult(step).then(|| mlirOpResultGetOwner(step));
            let after = match step_op {
                Some(op)
                    if mlirOperationGetBlock(op).ptr == body.ptr
                        && mlirOperationIsBeforeInBlock(candidate.advance, op) =>
                {
                    op
                }
                _ => candidate.advance,
            };
            let next = build("arith.addi", loc, &[offset, step], &[i64_type], &[]);
            mlirBlockInsertOwnedOperationAfter(body, after, next);
            let next = mlirOperationGetResult(next, 0);
            // What reads the advanced pointers (a pipelined loop's copies for a later
            // iteration) reads the base plus the next offset: one add per address, not two.
            let last = std::cell::Cell::new(mlirOpResultGetOwner(next));
            let advanced = offset_pointers(ctx, loc, inits[candidate.index], next, true, &|op| {
                mlirBlockInsertOwnedOperationAfter(body, last.get(), op);
                last.set(op);
            });
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(candidate.advance, 0), advanced);
            yielded.push(next);
            new_inits.push(zero);
        }
        crate::ttir::util::set_operands(yield_op, &yielded);
        let new = crate::pipeline::replace_loop(for_op, &new_inits);
        let block = mlirOperationGetBlock(new);
        let old_count = inits.len();
        // The loop's final pointers, for what reads them after it.
        let mut at = new;
        for (k, candidate) in found.iter().enumerate() {
            let result = mlirOperationGetResult(new, candidate.index as isize);
            if !has_uses(result) {
                continue;
            }
            let offset = mlirOperationGetResult(new, (old_count + k) as isize);
            let last = std::cell::Cell::new(at);
            let pointers =
                offset_pointers(ctx, loc, inits[candidate.index], offset, false, &|op| {
                    mlirBlockInsertOwnedOperationAfter(block, last.get(), op);
                    last.set(op);
                });
            at = last.get();
            mlirValueReplaceAllUsesOfWith(result, pointers);
        }
    }
}

/// Ops an invariant address computation is made of (the pipeliner clones them into the loop).
fn is_address_op(name: &str) -> bool {
    matches!(
        name,
        "tt.splat"
            | "tt.expand_dims"
            | "tt.broadcast"
            | "tt.make_range"
            | "arith.constant"
            | "arith.extsi"
            | "arith.addi"
            | "arith.muli"
            | "tt.addptr"
    )
}

/// Whether `value` is the same in every iteration of `for_op`: defined outside it, or by an
/// address op of the loop over such values.
fn is_invariant(value: MlirValue, for_op: MlirOperation) -> bool {
    if defined_outside(value, for_op) {
        return true;
    }
    defining_op(value).is_some_and(|def| {
        is_address_op(&op_name(def)) && operands(def).iter().all(|&v| is_invariant(v, for_op))
    })
}

/// `value` (invariant) available before `for_op`: itself when defined outside, else its address
/// ops cloned before the loop.
fn hoisted(value: MlirValue, for_op: MlirOperation) -> MlirValue {
    if defined_outside(value, for_op) {
        return value;
    }
    let def = defining_op(value).expect("an invariant value defined in the loop has an op");
    let ins: Vec<MlirValue> = operands(def).iter().map(|&v| hoisted(v, for_op)).collect();
    let clone = tritium_dialects::build::clone_with(def, &ins, &[value_type(value)]);
    // SAFETY: `for_op` is live in a block, which owns the clone after; the clone has one result.
    unsafe {
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(for_op), for_op, clone);
        mlirOperationGetResult(clone, 0)
    }
}

/// The scalar every element of `value` equals, when `value` is a `tt.splat` (through
/// `tt.expand_dims` and `tt.broadcast`).
fn uniform_scalar(value: MlirValue) -> Option<MlirValue> {
    let def = defining_op(value)?;
    match op_name(def).as_str() {
        "tt.splat" => operands(def).first().copied(),
        "tt.expand_dims" | "tt.broadcast" => uniform_scalar(*operands(def).first()?),
        _ => None,
    }
}

/// An offsets tensor (i32 or i64) of the loop split into a uniform part (a scalar computed in the loop,
/// right before `at`) and a loop-invariant tensor part (built before `for_op`): the block
/// pointers' `(splat(row) + range) * splat(stride) + columns`, whose row moves each iteration.
/// `None` when an op outside the supported ones (splat, addi, muli by a uniform invariant,
/// expand_dims, broadcast, invariant values) is met.
struct Split {
    scalar: Option<MlirValue>,
    tensor: Option<MlirValue>,
}

/// The sum of two optional uniform scalar parts (of one type), added right before `at`.
fn sum_scalars(
    a: Option<MlirValue>,
    b: Option<MlirValue>,
    loc: MlirLocation,
    at: MlirOperation,
) -> Option<MlirValue> {
    match (a, b) {
        (Some(x), Some(y)) => Some(inserted_before(
            at,
            build("arith.addi", loc, &[x, y], &[value_type(x)], &[]),
        )),
        (x, y) => x.or(y),
    }
}

/// Inserts the new one-result `op` right before the live `anchor`; its result.
fn inserted_before(anchor: MlirOperation, op: MlirOperation) -> MlirValue {
    // SAFETY: `anchor` is live in a block; `op` is new (owned by that block after) and has one
    // result.
    unsafe {
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, op);
        mlirOperationGetResult(op, 0)
    }
}

fn split_offsets(value: MlirValue, for_op: MlirOperation, at: MlirOperation) -> Option<Split> {
    if is_invariant(value, for_op) {
        return Some(Split {
            scalar: None,
            tensor: Some(hoisted(value, for_op)),
        });
    }
    let def = defining_op(value)?;
    let ins = operands(def);
    let ty = value_type(value);
    // SAFETY: location of a live op.
    let loc = unsafe { mlirOperationGetLocation(def) };
    let inside = |op: MlirOperation| inserted_before(at, op);
    let before_loop = |op: MlirOperation| inserted_before(for_op, op);
    match op_name(def).as_str() {
        "tt.splat" => Some(Split {
            scalar: Some(*ins.first()?),
            tensor: None,
        }),
        "arith.addi" => {
            let (a, b) = (
                split_offsets(ins[0], for_op, at)?,
                split_offsets(ins[1], for_op, at)?,
            );
            let scalar = sum_scalars(a.scalar, b.scalar, loc, at);
            let tensor = match (a.tensor, b.tensor) {
                (Some(x), Some(y)) => {
                    Some(before_loop(build("arith.addi", loc, &[x, y], &[ty], &[])))
                }
                (x, y) => x.or(y),
            };
            Some(Split { scalar, tensor })
        }
        "arith.muli" => {
            // One factor is a uniform loop invariant: it distributes over the other's parts.
            let (factor, other) = [(ins[1], ins[0]), (ins[0], ins[1])]
                .into_iter()
                .find(|(f, _)| is_invariant(*f, for_op) && uniform_scalar(*f).is_some())?;
            let k = uniform_scalar(factor)?;
            let part = split_offsets(other, for_op, at)?;
            let scalar = part
                .scalar
                .map(|x| inside(build("arith.muli", loc, &[x, k], &[value_type(x)], &[])));
            let tensor = part.tensor.map(|t| {
                let factor = hoisted(factor, for_op);
                before_loop(build("arith.muli", loc, &[t, factor], &[ty], &[]))
            });
            Some(Split { scalar, tensor })
        }
        "tt.expand_dims" | "tt.broadcast" => {
            let part = split_offsets(ins[0], for_op, at)?;
            let tensor = part
                .tensor
                .map(|t| before_loop(tritium_dialects::build::clone_with(def, &[t], &[ty])));
            Some(Split {
                scalar: part.scalar,
                tensor,
            })
        }
        _ => None,
    }
}

/// A tensor of pointers of the loop split like [`split_offsets`]' offsets: a loop-invariant
/// tensor of pointers (built before `for_op`) and a uniform i64 scalar offset in elements
/// (computed in the loop, right before `at`; `None`: the pointers are invariant). Through
/// `tt.addptr` (offsets split, the invariant part added to the invariant base), `tt.broadcast`
/// and `tt.expand_dims`: tutorial 11's B operand, `broadcast(addptr(splat(%b), %ks * %stride)) +
/// %cols`, moves in its base, A's `broadcast(%rows) + %ks` in its offsets.
fn split_pointers(
    value: MlirValue,
    for_op: MlirOperation,
    at: MlirOperation,
) -> Option<(MlirValue, Option<MlirValue>)> {
    if is_invariant(value, for_op) {
        return Some((hoisted(value, for_op), None));
    }
    let def = defining_op(value)?;
    let ins = operands(def);
    let ty = value_type(value);
    // SAFETY: location of a live op.
    let loc = unsafe { mlirOperationGetLocation(def) };
    let before_loop = |op: MlirOperation| inserted_before(for_op, op);
    let inside = |op: MlirOperation| inserted_before(at, op);
    // An i32 scalar offset sign-extended, as `tt.addptr` extends its offsets.
    let to_i64 = |x: MlirValue| {
        // SAFETY: type queries on a live value; the extension has one result.
        unsafe {
            if mlirIntegerTypeGetWidth(value_type(x)) == 64 {
                x
            } else {
                let i64_type = mlirIntegerTypeGet(context_of(for_op), 64);
                inside(build("arith.extsi", loc, &[x], &[i64_type], &[]))
            }
        }
    };
    match op_name(def).as_str() {
        "tt.addptr" if ins.len() == 2 => {
            let (base, base_scalar) = split_pointers(ins[0], for_op, at)?;
            let Split { scalar, tensor } = split_offsets(ins[1], for_op, at)?;
            let invariant = match tensor {
                Some(t) => before_loop(build("tt.addptr", loc, &[base, t], &[ty], &[])),
                None => base,
            };
            let scalar = sum_scalars(base_scalar, scalar.map(to_i64), loc, at);
            Some((invariant, scalar))
        }
        "tt.expand_dims" | "tt.broadcast" => {
            let (base, scalar) = split_pointers(*ins.first()?, for_op, at)?;
            let invariant = before_loop(tritium_dialects::build::clone_with(def, &[base], &[ty]));
            Some((invariant, scalar))
        }
        _ => None,
    }
}

/// A pipelined copy in `for_op`'s body whose addresses are recomputed every iteration from a
/// moving scalar (block pointers: `tt.addptr %base, (splat(%row) + %range) * %stride + %cols`
/// with i64 offsets) reads `tt.addptr(tt.addptr(%base, invariant part), splat(scalar part))`
/// instead: the invariant addresses are computed once, before the loop, and each iteration adds
/// one uniform scalar (opaque to LLVM's loop strength reduction, which otherwise makes every
/// address its own induction variable: attention's loop over K and V blocks had 16, moved by
/// register copies every iteration, 28% more SASS than Triton's).
fn split_recomputed_addresses(for_op: MlirOperation) {
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    let ctx = context_of(for_op);
    // Collected first: the rewrite inserts ops.
    let copies: Vec<MlirOperation> = block_ops(body)
        .into_iter()
        .filter(|&op| op_name(op) == "ttg.async_copy_global_to_local")
        .collect();
    // The copies whose addresses qualify, with the addresses a thread holds for each.
    let mut candidates = Vec::new();
    for copy in copies {
        let Some(&pointers) = operands(copy).first() else {
            continue;
        };
        let Some(addptr) = defining_op(pointers).filter(|op| op_name(*op) == "tt.addptr") else {
            continue;
        };
        let offsets = operands(addptr)[1];
        // Offsets that are one splat already are uniform (the carried offsets above).
        let uniform = defining_op(offsets).is_some_and(|op| op_name(op) == "tt.splat");
        if uniform || is_invariant(pointers, for_op) {
            continue;
        }
        let Some(count) =
            addresses_per_thread(pointers, &[copy]).filter(|&n| n <= MAX_ADDRESSES_PER_THREAD)
        else {
            continue;
        };
        candidates.push((copy, pointers, addptr, count));
    }
    // Hoisted bases stay live across the loop, two registers each, beside the dot results;
    // where that crowds the register file the recomputed addresses are cheaper (LLVM chains a
    // thread's rows: one add each). Attention at head dim 128 on the H200: 128x64 tiles (dots
    // 192 registers, bases 32) spilled and ran 1744 us split against 1197 us not; 64x64 tiles
    // (96 + 32) ran 1090 us split against 1192 us not.
    let bases: u64 = candidates.iter().map(|c| c.3).sum();
    if dot_registers(for_op) + 2 * bases > MAX_DOT_AND_BASE_REGISTERS {
        return;
    }
    for (copy, pointers, addptr, _) in candidates {
        // The split builds ops as it goes; a failed one leaves them unused (dead, pure) for
        // canonicalize.
        let Some((invariant, Some(scalar))) = split_pointers(pointers, for_op, addptr) else {
            continue;
        };
        // SAFETY: location of a live op; the new ops go before the copy (the per-iteration
        // pointers), which reads them.
        unsafe {
            let loc = mlirOperationGetLocation(addptr);
            let moved = offset_pointers(ctx, loc, invariant, scalar, true, &|op| {
                mlirBlockInsertOwnedOperationBefore(body, copy, op)
            });
            mlirOperationSetOperand(copy, 0, moved);
            // The old addresses (and what only they used, left to canonicalize) are dead.
            if !has_uses(pointers) {
                mlirOperationDestroy(addptr);
            }
        }
    }
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    for op in collect_ops(module.to_raw()) {
        if op_name(op) == "scf.for" {
            rewrite(op);
        }
    }
    for op in collect_ops(module.to_raw()) {
        if op_name(op) == "scf.for" {
            split_recomputed_addresses(op);
        }
    }
    Ok(())
}
