//! `-tritongpu-remove-layout-conversions`: removes `ttg.convert_layout`s by moving values into
//! the layout their memory accesses prefer.
//!
//! For each tensor shape, the layout of the function's global loads and stores of that shape (when
//! they agree, else that of its loads when those agree) is preferred. Conversions *into* the preferred layout are rematerialized
//! backward through cheap ops (elementwise arith, splat, make_range, constants, addptr);
//! conversions *out of* it are pushed forward through elementwise ops and absorbed by reductions.
//! Both directions move values toward the preferred layout, so the rewrite terminates; chains of
//! conversions fold, and identity conversions vanish. Conversions that no rule removes remain
//! (lowering handles every conversion).

use crate::ir_util::*;
use crate::ttir::util::same_type;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::{Encoding, SliceEncoding};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-remove-layout-conversions",
    summary: "Remove layout conversions by propagating the layouts memory accesses prefer",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// Elementwise ops without side effects, cheap enough to compute again in another layout.
fn is_rematerializable(name: &str) -> bool {
    (name.starts_with("arith.") && name != "arith.constant")
        // The math dialect is elementwise and pure; so are the libdevice calls Triton emits
        // (`tt.extern_elementwise`, `pure = true` for every one a kernel can name).
        || name.starts_with("math.")
        || name == "tt.extern_elementwise"
        || matches!(
            name,
            "math.exp"
                | "math.exp2"
                | "math.log"
                | "math.log2"
                | "math.sqrt"
                | "math.rsqrt"
                | "math.absf"
                | "math.absi"
                | "math.fma"
                | "math.floor"
                | "math.ceil"
                | "math.sin"
                | "math.cos"
                | "math.erf"
                | "math.tanh"
                | "tt.addptr"
                | "tt.int_to_ptr"
                | "tt.ptr_to_int"
                | "tt.bitcast"
                | "tt.fp_to_fp"
                | "tt.precise_sqrt"
                | "tt.precise_divf"
                | "tt.mulhiui"
                | "tt.clampf"
        )
}

/// [`is_rematerializable`] for an op: a `tt.extern_elementwise` only when marked pure; also a
/// plain global load too small to anchor a layout ([`is_anchor_access`]), cloned in place.
fn is_rematerializable_op(op: MlirOperation) -> bool {
    let name = op_name(op);
    if name == "tt.load" {
        return !is_anchor_access(op) && !bool_attr(op, "isVolatile").unwrap_or(false);
    }
    is_rematerializable(&name)
        && (name != "tt.extern_elementwise" || bool_attr(op, "pure").unwrap_or(false))
}

fn is_cheap_source(name: &str) -> bool {
    matches!(name, "tt.splat" | "tt.make_range" | "arith.constant")
}

/// Whether `op`'s result can be built in any layout from scratch: a cheap source or an index
/// chain ([`is_index_chain`]), possibly under `tt.expand_dims`/`tt.broadcast` (which the
/// backward rules carry into the layout asked for).
fn builds_anywhere(op: MlirOperation) -> bool {
    let mut current = op;
    // Shape ops first: a rank-2 index grid is at most an expand_dims and a broadcast per rank.
    for _ in 0..INDEX_CHAIN_LIMIT {
        let name = op_name(current);
        if name != "tt.expand_dims" && name != "tt.broadcast" {
            return is_cheap_source(&name) || is_index_chain(current);
        }
        // ODS: expand_dims and broadcast have one operand.
        match operands(current).first().and_then(|&v| defining_op(v)) {
            Some(def) => current = def,
            None => return false,
        }
    }
    false
}

fn replace_and_erase(op: MlirOperation, with: MlirValue) {
    // SAFETY: `op` is a live single-result op (a convert_layout, or a clone of one) and `with` a
    // live value of its type; `op` is not used after it is destroyed (the rewrite moves on to the
    // next op).
    unsafe {
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), with);
        mlirOperationDestroy(op);
    }
}

fn insert_after(after: MlirOperation, op: MlirOperation) -> MlirOperation {
    // SAFETY: `after` is a live op in a block and `op` a new, unattached op, whose ownership the
    // block takes.
    unsafe { mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(after), after, op) };
    op
}

fn insert_before(before: MlirOperation, op: MlirOperation) -> MlirOperation {
    // SAFETY: `before` is a live op in a block and `op` a new, unattached op, whose ownership the
    // block takes.
    unsafe { mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op) };
    op
}

/// Threads per program, from the module's `ttg.num-warps` and `ttg.threads-per-warp`.
fn program_threads(op: MlirOperation) -> i64 {
    let mut module = op;
    // SAFETY: parent traversal of live ops, ending at the null parent of the top op.
    unsafe {
        while !mlirOperationGetParentOperation(module).ptr.is_null() {
            module = mlirOperationGetParentOperation(module);
        }
    }
    int_attr(module, "ttg.num-warps").unwrap_or(4)
        * int_attr(module, "ttg.threads-per-warp").unwrap_or(32)
}

/// Whether a global load or store fixes the layouts around it (Triton's "expensive" accesses):
/// one with fewer elements than the program has threads (a handful of indices) is cheaper to
/// redo in the layout its users want, so it anchors nothing and may be rematerialized.
fn is_anchor_access(op: MlirOperation) -> bool {
    let name = op_name(op);
    if name != "tt.load" && name != "tt.store" {
        return false;
    }
    let Some(&ptr) = operands(op).first() else {
        return false;
    };
    let ty = value_type(ptr);
    !is_tensor(ty) || shape(ty).iter().product::<i64>() >= program_threads(op)
}

/// For each `tt.trans` of the function whose result has an access layout's shape, that layout
/// with the transposition undone: a value computed there (a mask) transposes into the access
/// layout by relabeling registers, so the backward rules may rematerialize into it.
fn untransposed_access_layouts(
    func: MlirOperation,
    access: &[MlirAttribute],
) -> Vec<MlirAttribute> {
    let mut found: Vec<MlirAttribute> = Vec::new();
    for op in collect_ops(func) {
        if op_name(op) != "tt.trans" {
            continue;
        }
        let Some(&result) = results(op).first() else {
            continue;
        };
        let result_type = value_type(result);
        let order: Vec<u32> = crate::ttir::util::i32_array(op, "order")
            .unwrap_or_default()
            .iter()
            .map(|&o| o.max(0) as u32)
            .collect();
        let inverse = inverse_permutation(&order);
        let dims: Vec<u32> = shape(result_type).iter().map(|&d| d as u32).collect();
        for &layout in access {
            let Some(encoding) = encoding_of(with_encoding(result_type, layout)) else {
                continue;
            };
            if encoding.rank() != Some(dims.len()) {
                continue;
            }
            if let Ok(untransposed) = encoding.transposed(&dims, &inverse) {
                let attr = encoding_to_attr(context_of(op), &untransposed);
                // SAFETY: live attributes of the function's context.
                let known = access
                    .iter()
                    .chain(&found)
                    .any(|a| unsafe { mlirAttributeEqual(*a, attr) });
                if !known {
                    found.push(attr);
                }
            }
        }
    }
    found
}

/// The inverse of a permutation (`inverse[order[i]] = i`).
fn inverse_permutation(order: &[u32]) -> Vec<u32> {
    let mut inverse = vec![0u32; order.len()];
    for (i, &o) in order.iter().enumerate() {
        if let Some(slot) = inverse.get_mut(o as usize) {
            *slot = i as u32;
        }
    }
    inverse
}

/// Every layout a global load or store of the function uses.
fn access_layouts(func: MlirOperation) -> Vec<MlirAttribute> {
    let mut layouts: Vec<MlirAttribute> = Vec::new();
    for op in collect_ops(func) {
        if !is_anchor_access(op) {
            continue;
        }
        let Some(encoding) = operands(op)
            .first()
            .and_then(|&p| encoding_attr(value_type(p)))
        else {
            continue;
        };
        if !layouts.iter().any(|l| {
            // SAFETY: live attributes of the function's types.
            unsafe { mlirAttributeEqual(*l, encoding) }
        }) {
            layouts.push(encoding);
        }
    }
    layouts
}

/// The preferred layout per tensor shape: that of the loads and stores when they all agree, else
/// that of the loads when they agree (as Triton, which propagates layouts forward from loads:
/// the values computed from them stay in their layout and a store of another width converts).
fn preferred_layouts(func: MlirOperation) -> HashMap<Vec<i64>, MlirAttribute> {
    // Per shape: the agreed layout of all accesses, and of the loads alone.
    let mut all: HashMap<Vec<i64>, Option<MlirAttribute>> = HashMap::new();
    let mut loads: HashMap<Vec<i64>, Option<MlirAttribute>> = HashMap::new();
    let agree = |entry: &mut Option<MlirAttribute>, encoding: MlirAttribute| {
        // SAFETY: both are live attributes of the function's types.
        if entry.is_some_and(|existing| !unsafe { mlirAttributeEqual(existing, encoding) }) {
            *entry = None;
        }
    };
    for op in collect_ops(func) {
        if !is_anchor_access(op) {
            continue;
        }
        // ODS: loads and stores take the pointer first.
        let Some(&ptr) = operands(op).first() else {
            continue;
        };
        let ty = value_type(ptr);
        let Some(encoding) = encoding_attr(ty) else {
            continue;
        };
        agree(all.entry(shape(ty)).or_insert(Some(encoding)), encoding);
        if op_name(op) == "tt.load" {
            agree(loads.entry(shape(ty)).or_insert(Some(encoding)), encoding);
        }
    }
    all.into_iter()
        .filter_map(|(shape, attr)| {
            let attr = attr.or_else(|| loads.get(&shape).copied().flatten())?;
            Some((shape, attr))
        })
        .collect()
}

/// Whether `ty`'s encoding is the layout of a global memory access (`access`, of any shape) or a
/// slice of one (layouts of values that feed them through expand_dims/broadcast): the layouts
/// conversions are rematerialized backward into.
fn in_preferred_family(access: &[MlirAttribute], ty: MlirType) -> bool {
    let Some(attr) = encoding_attr(ty) else {
        return false;
    };
    let encoding = encoding_from_attr(attr);
    access.iter().any(|p| {
        // SAFETY: both are live attributes: `attr` is `ty`'s encoding and `p` one of the
        // function's tensor encodings (from `preferred_layouts`); equality compares the handles.
        let same = unsafe { mlirAttributeEqual(attr, *p) };
        same || encoding
            .as_ref()
            .zip(encoding_from_attr(*p))
            .is_some_and(|(e, p)| is_slice_of(e, &p))
    })
}

/// Whether `encoding` is a slice (of a slice ...) of `parent`.
fn is_slice_of(encoding: &Encoding, parent: &Encoding) -> bool {
    match encoding {
        Encoding::Slice(slice) => *slice.parent == *parent || is_slice_of(&slice.parent, parent),
        _ => false,
    }
}

/// Whether `ty` is in a tensor-core accumulator's layout family (`#ttg.nvidia_mma`, or a slice
/// of it): values computed from a dot's result stay there, as Triton keeps them (attention's
/// softmax runs on the accumulator's registers), and only stores convert out.
fn in_mma_family(ty: MlirType) -> bool {
    fn mma(e: &Encoding) -> bool {
        match e {
            Encoding::NvidiaMma(_) => true,
            Encoding::Slice(s) => mma(&s.parent),
            _ => false,
        }
    }
    encoding_of(ty).as_ref().is_some_and(mma)
}

/// `x` when `value` is `convert_layout(x)` with `x` in an mma family layout.
fn mma_source(value: MlirValue) -> Option<MlirValue> {
    let def = defining_op(value)?;
    if op_name(def) != "ttg.convert_layout" {
        return None;
    }
    let source = operands(def)[0];
    (in_mma_family(value_type(source)) && !in_mma_family(value_type(value))).then_some(source)
}

fn is_preferred(preferred: &HashMap<Vec<i64>, MlirAttribute>, ty: MlirType) -> bool {
    match (preferred.get(&shape(ty)), encoding_attr(ty)) {
        // SAFETY: both are live attributes of the function's types.
        (Some(p), Some(e)) => unsafe { mlirAttributeEqual(*p, e) },
        _ => false,
    }
}

/// The most ops a backward rematerialization may compute twice (the producer keeps other users
/// in its own layout): index arithmetic is cheaper to repeat than a conversion, a long chain
/// (a Philox generator, a math function) is not — Triton's cost model makes the same call.
const DUPLICATION_LIMIT: usize = 12;

/// A reduce now reading operands in `encoding`: its tensor results become slices of it, and
/// their users read conversions back to the old types.
fn retype_reduce_results(op: MlirOperation, outs: &[MlirValue], encoding: &Encoding) {
    let axis = int_attr(op, "axis").unwrap_or(0) as u32;
    for result in outs {
        let ty = value_type(*result);
        if is_tensor(ty) {
            let slice = Encoding::Slice(SliceEncoding::new(axis, encoding.clone()));
            // SAFETY: `result` is a live result of `op` and the new type a live tensor type of
            // its context.
            unsafe {
                mlirValueSetType(
                    *result,
                    with_encoding(ty, encoding_to_attr(context_of(op), &slice)),
                )
            };
            convert_all_uses_after(*result, ty);
        }
    }
}

/// Whether every use of `value` is a `ttg.convert_layout`.
fn only_converted(value: MlirValue) -> bool {
    let all = users(value);
    !all.is_empty() && all.iter().all(|u| op_name(*u) == "ttg.convert_layout")
}

/// Whether every use of `value` is the stored value of a `tt.descriptor_store` or
/// `tt.descriptor_reduce` (operand 1, after the descriptor; the reduce's kind is an attribute).
fn only_stored_through_descriptors(value: MlirValue) -> bool {
    let uses = uses(value);
    !uses.is_empty()
        && uses.iter().all(|&(owner, number)| {
            number == 1
                && matches!(
                    op_name(owner).as_str(),
                    "tt.descriptor_store" | "tt.descriptor_reduce"
                )
        })
}

/// Whether `value` has more than one use (besides the conversion being removed, others that
/// would keep the producer alive in its own layout).
fn has_several_uses(value: MlirValue) -> bool {
    use_count(value) > 1
}

/// The number of rematerializable ops `op`'s value is computed with (itself included), counted
/// until `limit` is passed: the ops a backward rematerialization of it could end up cloning.
fn backward_slice_size(op: MlirOperation, limit: usize) -> usize {
    let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut work = vec![op];
    while let Some(current) = work.pop() {
        if !seen.insert(current.ptr as usize) {
            continue;
        }
        if seen.len() > limit {
            break;
        }
        for operand in operands(current) {
            if let Some(def) = defining_op(operand)
                && is_rematerializable_op(def)
                && is_tensor(value_type(operand))
            {
                work.push(def);
            }
        }
    }
    seen.len()
}

/// The most ops an index chain ([`is_index_chain`]) may have.
const INDEX_CHAIN_LIMIT: usize = 8;

/// Whether `op` computes index arithmetic from scratch: integer adds, subtractions, multiplies
/// and casts (at most [`INDEX_CHAIN_LIMIT`] ops) whose tensor operands all come from ranges,
/// splats and constants. Rebuilt in the layout a conversion asks for, such a chain leaves no
/// conversion behind and the original keeps its other users, so it is cloned even out of an
/// access layout (a block pointer's offsets, rewritten to pointers in a loop, follow the loads'
/// layouts as Triton's rematerialization makes them).
fn is_index_chain(op: MlirOperation) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![op];
    while let Some(current) = work.pop() {
        if !seen.insert(current.ptr as usize) {
            continue;
        }
        if seen.len() > INDEX_CHAIN_LIMIT {
            return false;
        }
        let name = op_name(current);
        if is_cheap_source(&name) {
            continue;
        }
        if !matches!(
            name.as_str(),
            "arith.addi"
                | "arith.subi"
                | "arith.muli"
                | "arith.extsi"
                | "arith.extui"
                | "arith.trunci"
        ) {
            return false;
        }
        for operand in operands(current) {
            match defining_op(operand) {
                Some(def) => work.push(def),
                None => return false,
            }
        }
    }
    true
}

/// `value`, an [`is_index_chain`] value, computed again in `encoding`: each op of the chain is
/// cloned right after its original (which dominates every use of it), once per value.
fn rebuild_index_chain(
    value: MlirValue,
    encoding: MlirAttribute,
    memo: &mut HashMap<usize, MlirValue>,
) -> MlirValue {
    if let Some(&clone) = memo.get(&key(value)) {
        return clone;
    }
    let Some(def) = defining_op(value) else {
        return value;
    };
    let ty = with_encoding(value_type(value), encoding);
    let new_operands: Vec<MlirValue> = operands(def)
        .into_iter()
        .map(|operand| {
            if is_tensor(value_type(operand)) {
                rebuild_index_chain(operand, encoding, memo)
            } else {
                operand
            }
        })
        .collect();
    let new = insert_after(
        def,
        tritium_dialects::build::clone_with(def, &new_operands, &[ty]),
    );
    if op_name(def) == "arith.constant" {
        crate::convert_to_gpu_retype(new, ty);
    }
    // SAFETY: every op of an index chain has one result.
    let clone = unsafe { mlirOperationGetResult(new, 0) };
    memo.insert(key(value), clone);
    clone
}

/// Whether `value` (defined by `def`) can be asked for in another layout: the backward rules
/// then compute it there, from its producers' conversions (an elementwise chain beside the one
/// a forward move follows, e.g. the running mean a Welford update reads with the new sample).
fn cheap_to_recompute(value: MlirValue, def: MlirOperation) -> bool {
    op_name(def) != "ttg.convert_layout"
        && op_name(def) != "tt.load"
        && is_rematerializable_op(def)
        && results(def).len() == 1
        && !in_mma_family(value_type(value))
        && (!has_several_uses(value)
            || backward_slice_size(def, DUPLICATION_LIMIT) <= DUPLICATION_LIMIT)
}

/// One pass of local rewrites; returns whether anything changed.
/// Producers rematerialized in a layout during one backward sweep: (value, target type) → its
/// clone. A value shared by several conversions into one layout is computed there once, so a
/// DAG of shared values (a sorting network) is not unfolded into a tree. Valid only within the
/// sweep: it destroys conversions alone, never a producer or a clone.
type Rematerialized = HashMap<(usize, usize), MlirValue>;

fn rewrite_once(
    func: MlirOperation,
    preferred: &HashMap<Vec<i64>, MlirAttribute>,
    access: &[MlirAttribute],
) -> bool {
    let mut changed = false;
    let mut memo = Rematerialized::new();
    for op in collect_ops(func) {
        if op_name(op) != "ttg.convert_layout" {
            continue;
        }
        // ODS: convert_layout has one operand and one result.
        let src = operands(op)[0];
        let dst_type = value_type(results(op)[0]);
        // convert(x: A -> A) = x
        if same_type(value_type(src), dst_type) {
            replace_and_erase(op, src);
            changed = true;
            continue;
        }
        // descriptor_store(convert(x)) = descriptor_store(x): a TMA store stages its value in
        // shared memory from any register layout, so a dot's result goes there from its own
        // registers (as Triton's forward propagation leaves it) instead of through a
        // conversion's round trip and a second, narrower copy.
        if only_stored_through_descriptors(results(op)[0]) {
            replace_and_erase(op, src);
            changed = true;
            continue;
        }
        // yield(convert(x: mma -> D)): the loop carries x in the mma layout.
        if in_mma_family(value_type(src))
            && !in_mma_family(dst_type)
            && let Some((user, position)) = single_use(results(op)[0])
            && op_name(user) == "scf.yield"
        {
            // SAFETY: `user` is a live scf.yield; its block's arguments are read only when the
            // parent is an scf.for with that many iter args (checked in `carry_in_layout`).
            let arg = unsafe {
                let block = mlirOperationGetBlock(user);
                let parent = mlirBlockGetParentOperation(block);
                (op_name(parent) == "scf.for"
                    && position as isize + 1 < mlirBlockGetNumArguments(block))
                .then(|| mlirBlockGetArgument(block, position as isize + 1))
            };
            if let Some(arg) = arg
                && carry_in_layout(arg, value_type(src))
            {
                changed = true;
                continue;
            }
        }
        // Into the shape's preferred layout from another: the one direction every move between
        // two access layouts may take (see the rules below).
        let toward_preferred =
            is_preferred(preferred, dst_type) && !is_preferred(preferred, value_type(src));
        let Some(def) = defining_op(src) else {
            // A loop-carried value moves into an access layout or an mma one, but never out of
            // an mma layout (the yield rule above carries values there: the two moves would
            // undo each other every round, attention's running max and sum at BLOCK_M = 128).
            // Out of an access layout only into its shape's preferred one (B's pointers of a
            // grouped GEMM, built from the column offsets C's store uses, carried in the store's
            // layout and converted for the load every iteration).
            let into_anchor = (in_preferred_family(access, dst_type)
                && (!in_preferred_family(access, value_type(src)) || toward_preferred)
                && !in_mma_family(value_type(src)))
                || (in_mma_family(dst_type) && !in_mma_family(value_type(src)));
            if into_anchor && carry_in_layout(src, dst_type) {
                changed = true;
            }
            continue;
        };
        let def_name = op_name(def);
        // convert(convert(x)) = convert(x)
        if def_name == "ttg.convert_layout" {
            // SAFETY: `op` and `def` are live ops of the function; `def` is a convert_layout
            // (ODS: one operand), so operand 0 of both exists.
            unsafe { mlirOperationSetOperand(op, 0, operands(def)[0]) };
            changed = true;
            continue;
        }
        // convert(local_load(m)) = local_load(m) in the converted layout: a read from shared
        // memory yields any register layout, and the round trip through a second buffer goes.
        if def_name == "ttg.local_load"
            && single_use(src).is_some()
            && matches!(
                encoding_of(dst_type),
                Some(Encoding::Blocked(_) | Encoding::Slice(_) | Encoding::DotOperand(_))
            )
        {
            let ins = operands(def);
            let new = insert_before(
                op,
                tritium_dialects::build::clone_with(def, &ins, &[dst_type]),
            );
            // SAFETY: `new` is the clone of a single-result op (a local_load).
            replace_and_erase(op, unsafe { mlirOperationGetResult(new, 0) });
            // The old read had this conversion as its only user (it reads memory, so the dead-op
            // sweep keeps it).
            // SAFETY: `def` is a live local_load whose only use was the conversion just erased.
            unsafe { mlirOperationDestroy(def) };
            changed = true;
            continue;
        }
        // Sources that are free to build in any layout.
        if is_cheap_source(&def_name) {
            let ins = operands(def);
            let new = insert_before(
                op,
                tritium_dialects::build::clone_with(def, &ins, &[dst_type]),
            );
            if def_name == "arith.constant" {
                crate::convert_to_gpu_retype(new, dst_type);
            }
            // SAFETY: `new` is the clone of a single-result op (a cheap source).
            replace_and_erase(op, unsafe { mlirOperationGetResult(new, 0) });
            changed = true;
            continue;
        }
        // Values computed in an mma layout stay there (forward rules move their users in), and
        // values already in a load/store layout are not moved into another one (two accesses
        // of a shape in different layouts would otherwise pull a producer back and forth) —
        // except into the shape's preferred layout, the one direction every move then takes
        // (a random mask computed in a store's layout moves to the loads' one, as Triton's).
        if in_preferred_family(access, value_type(src))
            && !in_mma_family(value_type(src))
            && !toward_preferred
            && (in_preferred_family(access, dst_type) || in_mma_family(dst_type))
            && is_index_chain(def)
            && let Some(encoding) = encoding_attr(dst_type)
        {
            // Rebuilt whole: a conversion left inside the chain would read as one out of the
            // preferred layout, and the forward rules would move the chain back.
            let clone = rebuild_index_chain(src, encoding, &mut HashMap::new());
            replace_and_erase(op, clone);
            changed = true;
            continue;
        }
        // A shape no global access has (a row or column of offsets broadcast into the tiles of
        // two accesses in different layouts, B's loads and C's stores in a grouped GEMM) is
        // not held to its first access layout: the backward rules build it again in the other
        // one (cheap chains only; the original keeps its users).
        let unanchored_shape = !preferred.contains_key(&shape(dst_type))
            && in_preferred_family(access, dst_type)
            && !in_mma_family(dst_type);
        if in_mma_family(value_type(src))
            || (in_preferred_family(access, value_type(src))
                && !toward_preferred
                && !unanchored_shape)
        {
            continue;
        }
        // Backward through a transposition: trans(m) in S is m in S untransposed, relabeled.
        if def_name == "tt.trans" && in_preferred_family(access, dst_type) {
            let operand = operands(def)[0];
            let order: Vec<u32> = crate::ttir::util::i32_array(def, "order")
                .unwrap_or_default()
                .iter()
                .map(|&o| o.max(0) as u32)
                .collect();
            let dims: Vec<u32> = shape(dst_type).iter().map(|&d| d as u32).collect();
            let Some(untransposed) = encoding_of(dst_type)
                .and_then(|e| e.transposed(&dims, &inverse_permutation(&order)).ok())
            else {
                continue;
            };
            let operand_type = with_encoding(
                value_type(operand),
                encoding_to_attr(context_of(op), &untransposed),
            );
            let converted = insert_convert_before(op, operand, operand_type);
            let new = insert_before(
                op,
                tritium_dialects::build::clone_with(def, &[converted], &[dst_type]),
            );
            // SAFETY: `new` is the clone of a single-result op (tt.trans).
            replace_and_erase(op, unsafe { mlirOperationGetResult(new, 0) });
            changed = true;
            continue;
        }
        // Backward through shape ops: broadcast takes its operand in the result's layout,
        // expand_dims in the slice of it. Into an mma layout too: a row or column broadcast
        // over an accumulator (attention backward's m and Delta) converts its vector, not the tile.
        if (in_preferred_family(access, dst_type) || in_mma_family(dst_type))
            && (def_name == "tt.broadcast" || def_name == "tt.expand_dims")
        {
            // ODS: broadcast and expand_dims have one operand.
            let operand = operands(def)[0];
            let operand_type = value_type(operand);
            // `in_preferred_family` holds only for types with an encoding.
            let Some(dst_encoding) = encoding_attr(dst_type) else {
                continue;
            };
            let encoding = if def_name == "tt.broadcast" {
                dst_encoding
            } else {
                let axis = int_attr(def, "axis").unwrap_or(0) as u32;
                let Some(parent) = encoding_of(dst_type) else {
                    continue;
                };
                let slice = Encoding::Slice(SliceEncoding::new(axis, parent));
                encoding_to_attr(context_of(op), &slice)
            };
            let converted =
                insert_convert_before(op, operand, with_encoding(operand_type, encoding));
            let new = insert_before(
                op,
                tritium_dialects::build::clone_with(def, &[converted], &[dst_type]),
            );
            // SAFETY: `new` is the clone of a single-result op (broadcast or expand_dims).
            replace_and_erase(op, unsafe { mlirOperationGetResult(new, 0) });
            changed = true;
            continue;
        }
        // Backward: compute the producer in the preferred layout, once per (value, layout):
        // the clone goes right after the producer (which dominates every use), and further
        // conversions of the same value into that layout reuse it.
        // Into an mma layout, only short chains (a causal mask's comparison of broadcast
        // indices): computing them there beats converting their tile.
        let short_into_mma = in_mma_family(dst_type)
            && backward_slice_size(def, DUPLICATION_LIMIT) <= DUPLICATION_LIMIT;
        if (in_preferred_family(access, dst_type) || short_into_mma)
            && is_rematerializable_op(def)
            && results(def).len() == 1
            && (!has_several_uses(src)
                || backward_slice_size(def, DUPLICATION_LIMIT) <= DUPLICATION_LIMIT
                || only_converted(src))
        {
            // A long chain used only through conversions moves whole into this one's layout;
            // the other conversions then start from there (computed once, as Triton does).
            let move_whole = has_several_uses(src)
                && backward_slice_size(def, DUPLICATION_LIMIT) > DUPLICATION_LIMIT;
            let memo_key = (key(src), dst_type.ptr as usize);
            if let Some(&clone) = memo.get(&memo_key) {
                replace_and_erase(op, clone);
                changed = true;
                continue;
            }
            let src_shape = shape(value_type(src));
            let Some(dst_encoding) = encoding_attr(dst_type) else {
                continue;
            };
            let mut after = def;
            let mut new_operands = Vec::new();
            for operand in operands(def) {
                let ty = value_type(operand);
                if is_tensor(ty) && shape(ty) == src_shape {
                    let convert = tritium_dialects::build::convert_layout(
                        // SAFETY: `def` is a live op.
                        unsafe { mlirOperationGetLocation(def) },
                        operand,
                        with_encoding(ty, dst_encoding),
                    );
                    insert_after(after, convert);
                    after = convert;
                    // SAFETY: a convert_layout has one result.
                    new_operands.push(unsafe { mlirOperationGetResult(convert, 0) });
                } else {
                    new_operands.push(operand);
                }
            }
            let new = tritium_dialects::build::clone_with(def, &new_operands, &[dst_type]);
            insert_after(after, new);
            // SAFETY: `new` is the clone of a single-result op (checked above).
            let clone = unsafe { mlirOperationGetResult(new, 0) };
            memo.insert(memo_key, clone);
            if move_whole {
                for other in users(src) {
                    if other.ptr != op.ptr {
                        // SAFETY: `other` is a live convert_layout (`only_converted`) reading
                        // `src`; `clone` is a live value of the same shape and element type,
                        // defined right after `src`'s producer, so it dominates `other`.
                        unsafe { mlirOperationSetOperand(other, 0, clone) };
                    }
                }
            }
            replace_and_erase(op, clone);
            changed = true;
        }
    }
    // Forward: ops fed by conversions out of the preferred layout run in it instead.
    for op in collect_ops(func) {
        let name = op_name(op);
        let ins = operands(op);
        let outs = results(op);
        // An accumulator: an elementwise op combining a loop's iter arg with a value converted
        // out of the preferred layout carries the iter arg in that layout instead (a column sum
        // accumulates in the load's layout, as Triton's).
        if is_rematerializable_op(op)
            && outs.len() == 1
            && let Some(source) = ins.iter().find_map(|v| preferred_source(preferred, *v))
            && let Some(&arg) = ins.iter().find(|&&v| {
                // SAFETY: kind query on a live value.
                let is_argument = unsafe { mlirValueIsABlockArgument(v) };
                is_argument
                    && !is_preferred(preferred, value_type(v))
                    && shape(value_type(v)) == shape(value_type(source))
            })
            && let Some(attr) = encoding_attr(value_type(source))
            && carry_in_layout(arg, with_encoding(value_type(arg), attr))
        {
            changed = true;
            continue;
        }
        // A histogram reads its operand in any layout: the conversion into it goes (without a
        // mask, which would have to follow it).
        if name == "tt.histogram"
            && ins.len() == 1
            && let Some(&input) = ins.first()
            && let Some(source) = preferred_source(preferred, input)
        {
            // SAFETY: `op` is a live tt.histogram (operand 0 its input) and `source` a live
            // value of the same shape and element type.
            unsafe { mlirOperationSetOperand(op, 0, source) };
            changed = true;
            continue;
        }
        // A scan fed by conversions out of the preferred layout (or an mma one) scans in it:
        // its results have its operands' layout, and their users read conversions back.
        if name == "tt.scan" {
            let sources: Vec<Option<MlirValue>> = ins
                .iter()
                .map(|v| mma_source(*v).or_else(|| preferred_source(preferred, *v)))
                .collect();
            if sources.iter().all(Option::is_some) && !sources.is_empty() {
                let sources: Vec<MlirValue> = sources.into_iter().flatten().collect();
                let Some(attr) = encoding_attr(value_type(sources[0])) else {
                    continue;
                };
                if sources.iter().any(|s| {
                    // SAFETY: live attributes of the function's types.
                    encoding_attr(value_type(*s))
                        .is_none_or(|a| !unsafe { mlirAttributeEqual(a, attr) })
                }) {
                    continue;
                }
                for (i, s) in sources.iter().enumerate() {
                    // SAFETY: `op` is a live `tt.scan` with one operand per source.
                    unsafe { mlirOperationSetOperand(op, i as isize, *s) };
                }
                for result in &outs {
                    let ty = value_type(*result);
                    if is_tensor(ty) {
                        // SAFETY: a live result of `op`; the new type differs only in its
                        // encoding.
                        unsafe { mlirValueSetType(*result, with_encoding(ty, attr)) };
                        convert_all_uses_after(*result, ty);
                    }
                }
                changed = true;
            }
            continue;
        }
        if name == "tt.reduce" {
            // Operands computed (by rematerializable ops) outside the shape's preferred layout
            // are asked for in it: the backward rules then compute them there, and the reduce
            // joins the rest of the kernel's layout.
            if let Some(&first) = ins.first()
                && let Some(&want) = preferred.get(&shape(value_type(first)))
                && ins.iter().all(|&v| {
                    is_tensor(value_type(v))
                        && !is_preferred(preferred, value_type(v))
                        && !in_mma_family(value_type(v))
                        && defining_op(v).is_some_and(|d| {
                            is_rematerializable_op(d) && op_name(d) != "ttg.convert_layout"
                        })
                })
            {
                let Some(encoding) = encoding_of(with_encoding(value_type(first), want)) else {
                    continue;
                };
                for (i, &v) in ins.iter().enumerate() {
                    let converted =
                        insert_convert_before(op, v, with_encoding(value_type(v), want));
                    // SAFETY: `op` is a live tt.reduce and `i` one of its operand indices.
                    unsafe { mlirOperationSetOperand(op, i as isize, converted) };
                }
                retype_reduce_results(op, &outs, &encoding);
                changed = true;
                continue;
            }
            let mut sources: Vec<Option<MlirValue>> = ins
                .iter()
                .map(|v| mma_source(*v).or_else(|| preferred_source(preferred, *v)))
                .collect();
            // Operands that are free to build in any layout (argmax's index range, or a row
            // argmin's broadcast column indices) follow the others: they are converted, and the
            // backward rules rebuild them.
            let cheap = |v: MlirValue| defining_op(v).is_some_and(builds_anywhere);
            if let Some(Some(leader)) = sources.iter().find(|s| s.is_some()).copied()
                && sources
                    .iter()
                    .zip(&ins)
                    .all(|(s, &v)| s.is_some() || cheap(v))
                && let Some(attr) = encoding_attr(value_type(leader))
            {
                for (slot, &v) in sources.iter_mut().zip(&ins) {
                    if slot.is_none() {
                        *slot = Some(insert_convert_before(
                            op,
                            v,
                            with_encoding(value_type(v), attr),
                        ));
                    }
                }
            }
            if sources.iter().all(Option::is_some) && !sources.is_empty() {
                let sources: Vec<MlirValue> = sources.into_iter().flatten().collect();
                // `sources` is not empty (checked above). An encoding the layout crate cannot
                // read (a linear one) has no slice to give the results: leave the reduce alone.
                let Some(encoding) = encoding_of(value_type(sources[0])) else {
                    continue;
                };
                if sources
                    .iter()
                    .any(|s| encoding_of(value_type(*s)).as_ref() != Some(&encoding))
                {
                    continue;
                }
                for (i, s) in sources.iter().enumerate() {
                    // SAFETY: `op` is a live `tt.reduce` with one operand per source (`sources` has
                    // one entry per operand), each a live value.
                    unsafe { mlirOperationSetOperand(op, i as isize, *s) };
                }
                retype_reduce_results(op, &outs, &encoding);
                changed = true;
            }
            continue;
        }
        // expand_dims / broadcast of convert(x: mma family -> D) run on x.
        if (name == "tt.expand_dims" || name == "tt.broadcast") && ins.len() == 1 && outs.len() == 1
        {
            let Some(source) = mma_source(ins[0]) else {
                continue;
            };
            let out_type = value_type(outs[0]);
            let Some(source_encoding) = encoding_of(value_type(source)) else {
                continue;
            };
            let encoding = if name == "tt.broadcast" {
                source_encoding
            } else {
                let axis = int_attr(op, "axis").unwrap_or(-1);
                match source_encoding {
                    Encoding::Slice(slice) if slice.dim as i64 == axis => *slice.parent,
                    _ => continue,
                }
            };
            let new_type = with_encoding(out_type, encoding_to_attr(context_of(op), &encoding));
            let new = insert_before(
                op,
                tritium_dialects::build::clone_with(op, &[source], &[new_type]),
            );
            // SAFETY: `new` is the clone of a single-result op.
            let back =
                insert_convert_before(op, unsafe { mlirOperationGetResult(new, 0) }, out_type);
            replace_and_erase(op, back);
            changed = true;
            continue;
        }
        if !is_rematerializable_op(op) || outs.len() != 1 {
            continue;
        }
        // One result (checked above).
        let out_type = value_type(outs[0]);
        if is_tensor(out_type) && !in_mma_family(out_type) && forward_into_mma(op, &ins, out_type) {
            changed = true;
            continue;
        }
        if !is_tensor(out_type)
            || is_preferred(preferred, out_type)
            || !preferred.contains_key(&shape(out_type))
        {
            continue;
        }
        let out_shape = shape(out_type);
        let mut any_converted = false;
        let mut ok = true;
        for operand in &ins {
            let ty = value_type(*operand);
            if !is_tensor(ty) || shape(ty) != out_shape {
                continue;
            }
            if preferred_source(preferred, *operand).is_some() {
                any_converted = true;
            } else if !defining_op(*operand)
                .is_some_and(|d| is_cheap_source(&op_name(d)) || cheap_to_recompute(*operand, d))
            {
                ok = false;
            }
        }
        if !ok || !any_converted {
            continue;
        }
        // `preferred` has the shape (checked above).
        let target = preferred[&out_shape];
        let mut new_operands = Vec::new();
        for operand in &ins {
            let ty = value_type(*operand);
            if is_tensor(ty) && shape(ty) == out_shape {
                match preferred_source(preferred, *operand) {
                    Some(source) => new_operands.push(source),
                    None => new_operands.push(insert_convert_before(
                        op,
                        *operand,
                        with_encoding(ty, target),
                    )),
                }
            } else {
                new_operands.push(*operand);
            }
        }
        let new = insert_before(
            op,
            tritium_dialects::build::clone_with(
                op,
                &new_operands,
                &[with_encoding(out_type, target)],
            ),
        );
        // SAFETY: `new` is the clone of a single-result op (checked above).
        let back = insert_convert_before(op, unsafe { mlirOperationGetResult(new, 0) }, out_type);
        replace_and_erase(op, back);
        changed = true;
    }
    changed
}

/// A loop-carried value converted inside the loop: `scf.for` carries it in `to` instead. The
/// init is converted before the loop, the yielded value before the yield (where the backward
/// rules can rematerialize it, e.g. `addptr(arg, step)`), other uses of the argument read a
/// conversion back, and so does the loop's result. Returns whether `arg` was an iter arg.
fn carry_in_layout(arg: MlirValue, to: MlirType) -> bool {
    // SAFETY: `arg` is a live block argument (it has no defining op); the block's parent, the
    // loop's operands, results and yield are read only after checking the loop is an scf.for
    // with iter arg `index` (argument `index + 1`, operand `index + 3`, result `index`, yield
    // operand `index`); every new op is inserted into a live block, which owns it.
    unsafe {
        if mlirValueIsAOpResult(arg) {
            return false;
        }
        let block = mlirBlockArgumentGetOwner(arg);
        let for_op = mlirBlockGetParentOperation(block);
        if for_op.ptr.is_null() || op_name(for_op) != "scf.for" {
            return false;
        }
        let index = mlirBlockArgumentGetArgNumber(arg) - 1;
        if index < 0 || index >= mlirOperationGetNumResults(for_op) {
            return false;
        }
        let yield_op = mlirBlockGetTerminator(block);
        if yield_op.ptr.is_null() || op_name(yield_op) != "scf.yield" {
            return false;
        }
        let from = value_type(arg);
        let init = mlirOperationGetOperand(for_op, index + 3);
        let new_init = insert_convert_before(for_op, init, to);
        mlirOperationSetOperand(for_op, index + 3, new_init);
        mlirValueSetType(arg, to);
        // Every use of the argument now reads it back in its old layout (the convert that
        // triggered this folds into the argument itself).
        let back = tritium_dialects::build::convert_layout(
            mlirLocationUnknownGet(mlirTypeGetContext(to)),
            arg,
            from,
        );
        mlirBlockInsertOwnedOperation(block, 0, back);
        let mut except = back;
        mlirValueReplaceAllUsesExcept(arg, mlirOperationGetResult(back, 0), 1, &mut except);
        let yielded = mlirOperationGetOperand(yield_op, index);
        let converted = insert_convert_before(yield_op, yielded, to);
        mlirOperationSetOperand(yield_op, index, converted);
        let result = mlirOperationGetResult(for_op, index);
        mlirValueSetType(result, to);
        convert_all_uses_after(result, from);
        true
    }
}

/// An elementwise op with an operand converted out of an mma family layout runs in that layout:
/// operands of that layout family come unconverted, cheap sources are rebuilt in it, others are
/// converted; its users read a conversion back.
fn forward_into_mma(op: MlirOperation, ins: &[MlirValue], out_type: MlirType) -> bool {
    let out_shape = shape(out_type);
    let mut target: Option<MlirType> = None;
    for operand in ins {
        let ty = value_type(*operand);
        if !is_tensor(ty) || shape(ty) != out_shape {
            continue;
        }
        if let Some(source) = mma_source(*operand) {
            let source_type = value_type(source);
            match target {
                None => target = Some(source_type),
                Some(t) if same_encoding(t, source_type) => {}
                Some(_) => return false,
            }
        }
    }
    let Some(target) = target else {
        return false;
    };
    let Some(target_encoding) = encoding_attr(target) else {
        return false;
    };
    let mut new_operands = Vec::new();
    for operand in ins {
        let ty = value_type(*operand);
        if !is_tensor(ty) || shape(ty) != out_shape {
            new_operands.push(*operand);
            continue;
        }
        let wanted = with_encoding(ty, target_encoding);
        match mma_source(*operand) {
            Some(source) if same_type(value_type(source), wanted) => new_operands.push(source),
            _ => new_operands.push(insert_convert_before(op, *operand, wanted)),
        }
    }
    let new = insert_before(
        op,
        tritium_dialects::build::clone_with(
            op,
            &new_operands,
            &[with_encoding(out_type, target_encoding)],
        ),
    );
    // SAFETY: `new` is the clone of a single-result op (the caller checked).
    let back = insert_convert_before(op, unsafe { mlirOperationGetResult(new, 0) }, out_type);
    replace_and_erase(op, back);
    true
}

/// Whether two types have the same encoding attribute.
fn same_encoding(a: MlirType, b: MlirType) -> bool {
    match (encoding_attr(a), encoding_attr(b)) {
        // SAFETY: live attributes of the function's types.
        (Some(x), Some(y)) => unsafe { mlirAttributeEqual(x, y) },
        _ => false,
    }
}

/// `x` when `value` is `convert_layout(x)` with `x` in the preferred layout.
fn preferred_source(
    preferred: &HashMap<Vec<i64>, MlirAttribute>,
    value: MlirValue,
) -> Option<MlirValue> {
    let def = defining_op(value)?;
    if op_name(def) != "ttg.convert_layout" {
        return None;
    }
    // ODS: convert_layout has one operand.
    let source = operands(def)[0];
    is_preferred(preferred, value_type(source)).then_some(source)
}

/// Erases pure ops whose results are unused (rematerialization leaves the originals behind).
fn erase_dead(func: MlirOperation) {
    loop {
        let mut erased = false;
        for op in collect_ops(func).into_iter().rev() {
            let name = op_name(op);
            let pure = is_rematerializable_op(op)
                || is_cheap_source(&name)
                || matches!(
                    name.as_str(),
                    "ttg.convert_layout" | "tt.broadcast" | "tt.expand_dims"
                );
            if pure && !results(op).into_iter().any(has_uses) {
                // SAFETY: `op` is a live, pure op whose results have no uses; ops are visited
                // innermost first and not used after they are destroyed.
                unsafe { mlirOperationDestroy(op) };
                erased = true;
            }
        }
        if !erased {
            break;
        }
    }
}

fn run(module_ref: OperationRef, _options: &Options) -> PassResult {
    let module = module_ref.to_raw();
    let funcs: Vec<MlirOperation> = collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "tt.func")
        .collect();
    for func in funcs {
        let preferred = preferred_layouts(func);
        let mut access = access_layouts(func);
        access.extend(untransposed_access_layouts(func, &access));
        // A backward rematerialization moves one producer per round (the new conversions are
        // visited by the next), so the bound is the depth of the longest chain (a Philox
        // generator is over a hundred ops deep); every round that continues changed something.
        for round in 0..1024 {
            let changed = rewrite_once(func, &preferred, &access);
            erase_dead(func);
            if !changed {
                let left = collect_ops(func)
                    .into_iter()
                    .filter(|op| op_name(*op) == "ttg.convert_layout")
                    .count();
                tracing::debug!(
                    rounds = round + 1,
                    convert_layouts_left = left,
                    "remove-layout-conversions: fixed point"
                );
                break;
            }
        }
    }
    Ok(())
}
