//! The online-softmax state pair of a loop, kept per thread.
//!
//! A loop carrying a running maximum `m` and a sum `l` of exponentials rescaled to it,
//!
//! ```text
//! %mx = tt.reduce(%x) {max}           %m' = max(%m, %mx)
//! %l' = %l * exp(%m - %m') + tt.reduce(exp(%x - splat(%m'))) {add}
//! ```
//!
//! (cross-entropy, a looped softmax, flash attention's row statistics; `exp2` alike) reduces
//! across the whole program twice per iteration: shuffles, a shared-memory exchange and
//! barriers, before the next iteration can start. The pair is a monoid — `(m1, l1) ∘ (m2, l2) =
//! (M, l1·e^(m1−M) + l2·e^(m2−M))` with `M = max(m1, m2)` — so each thread can keep its own pair
//! over the elements it holds, and the pairs are merged once after the loop. Inside the loop `%x`
//! is reshaped (without moving data) into `[R, T, V]`: `V` consecutive elements in a thread's
//! registers, `T` threads, `R` repetitions, also in registers; reducing dims 2 and 0 leaves one
//! value per thread, in registers only. Each iteration then computes as many `exp`s as before
//! (one per element, one per thread for the rescale) and no cross-thread step.
//!
//! Where a thread has seen only `−inf` so far, its maximum stays `−inf` and `x − m'` would be
//! `−inf − (−inf)`: the subtrahend is taken as 0 there (both exponentials are then 0, the pair's
//! identity), one compare and select per thread and iteration. The merged result is the
//! original's wherever the original is not NaN; the original is NaN where its first iteration
//! sees only `−inf` (`exp(−inf − (−inf))`), and the rewritten loop gives the limit there instead.

use crate::ir_util::*;
use crate::ttir::util::{
    At, body, erase, float_attr_of, for_parts, location, rebuild_for, same, set_inherent,
    set_operands, terminator, with_element,
};
use mlir_sys::*;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::clone_with;
use tritium_layout::encoding::{BlockedEncoding, Encoding, SliceEncoding};
use tritium_layout::linear::{LANE, REGISTER, WARP, out_dim_name};

/// The ops of one matched pair, all in the loop body.
struct Pair {
    /// Indices among the loop's carried values (block argument `i + 1`, result `i`).
    max_index: usize,
    sum_index: usize,
    /// `%x`, the tensor both reductions read.
    x: MlirValue,
    reduce_max: MlirOperation,
    fold_max: MlirOperation,
    rescale_sub: MlirOperation,
    rescale_exp: MlirOperation,
    rescale_mul: MlirOperation,
    splat: MlirOperation,
    shift_sub: MlirOperation,
    shift_exp: MlirOperation,
    reduce_sum: MlirOperation,
    fold_sum: MlirOperation,
}

/// The one op using `value` (once), if there is exactly one use.
fn sole_user(value: MlirValue) -> Option<MlirOperation> {
    match users(value).as_slice() {
        [op] => Some(*op),
        _ => None,
    }
}

fn same_op(a: MlirOperation, b: MlirOperation) -> bool {
    a.ptr == b.ptr
}

fn same_values(a: &[MlirValue], b: &[MlirValue]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(*x, *y))
}

fn in_block(op: MlirOperation, block: MlirBlock) -> bool {
    // SAFETY: `op` is a live operation.
    unsafe { mlirOperationGetBlock(op).ptr == block.ptr }
}

/// The operand of the binary `op` other than `known`, if `known` is one of them.
fn other_operand(op: MlirOperation, known: MlirValue) -> Option<MlirValue> {
    match operands(op).as_slice() {
        [a, b] if a.ptr == known.ptr => Some(*b),
        [a, b] if b.ptr == known.ptr => Some(*a),
        _ => None,
    }
}

/// Whether `ty` is a float type with infinities (the running maximum starts at −inf).
fn has_infinity(ty: MlirType) -> bool {
    // SAFETY: `ty` is a live type; the predicates accept any type.
    unsafe { mlirTypeIsAF16(ty) || mlirTypeIsABF16(ty) || mlirTypeIsAF32(ty) || mlirTypeIsAF64(ty) }
}

/// Matches the pair whose maximum is carried value `max_index` of `for_op`.
fn match_pair(for_op: MlirOperation, max_index: usize) -> Option<Pair> {
    let block = body(for_op, 0);
    let args = block_args(block);
    let yield_op = terminator(block);
    let yielded = operands(yield_op);
    let m = *args.get(max_index + 1)?;
    let m_new = *yielded.get(max_index)?;
    let fold_max = defining_op(m_new)?;
    let max_name = op_name(fold_max);
    if !matches!(max_name.as_str(), "arith.maxnumf" | "arith.maximumf")
        || !in_block(fold_max, block)
        || !has_infinity(value_type(m))
        || is_tensor(value_type(m))
    {
        return None;
    }
    let reduced = other_operand(fold_max, m)?;
    let reduce_max = defining_op(reduced)?;
    if op_name(reduce_max) != "tt.reduce"
        || operands(reduce_max).len() != 1
        || !in_block(reduce_max, block)
        || !same_op(sole_user(reduced)?, fold_max)
        || super::single_combine(reduce_max).as_deref() != Some(max_name.as_str())
    {
        return None;
    }
    let x = operands(reduce_max)[0];
    if shape(value_type(x)).len() != 1 {
        return None;
    }
    // %m: read by the fold and by `%m − %m'` only.
    let m_users = users(m);
    if m_users.len() != 2 || !m_users.iter().any(|op| same_op(*op, fold_max)) {
        return None;
    }
    let rescale_sub = *m_users.iter().find(|op| !same_op(**op, fold_max))?;
    if op_name(rescale_sub) != "arith.subf"
        || !in_block(rescale_sub, block)
        || !same_values(&operands(rescale_sub), &[m, m_new])
    {
        return None;
    }
    // %m': yielded once, read by the rescale and by the splat.
    let m_new_users = users(m_new);
    if m_new_users.len() != 3
        || m_new_users
            .iter()
            .filter(|op| same_op(**op, yield_op))
            .count()
            != 1
        || yielded.iter().filter(|v| v.ptr == m_new.ptr).count() != 1
        || !m_new_users.iter().any(|op| same_op(*op, rescale_sub))
    {
        return None;
    }
    let splat = *m_new_users
        .iter()
        .find(|op| !same_op(**op, yield_op) && !same_op(**op, rescale_sub))?;
    if op_name(splat) != "tt.splat" || !in_block(splat, block) {
        return None;
    }
    let rescale_exp = sole_user(results(rescale_sub)[0])?;
    let exp_name = op_name(rescale_exp);
    if !matches!(exp_name.as_str(), "math.exp" | "math.exp2") || !in_block(rescale_exp, block) {
        return None;
    }
    let rescale_mul = sole_user(results(rescale_exp)[0])?;
    if op_name(rescale_mul) != "arith.mulf" || !in_block(rescale_mul, block) {
        return None;
    }
    let l = other_operand(rescale_mul, results(rescale_exp)[0])?;
    let sum_index = args.iter().skip(1).position(|a| a.ptr == l.ptr)?;
    if sum_index == max_index || !same_op(sole_user(l)?, rescale_mul) {
        return None;
    }
    let fold_sum = sole_user(results(rescale_mul)[0])?;
    if op_name(fold_sum) != "arith.addf"
        || !in_block(fold_sum, block)
        || !same_op(sole_user(results(fold_sum)[0])?, yield_op)
        || yielded.get(sum_index)?.ptr != results(fold_sum)[0].ptr
    {
        return None;
    }
    let summed = other_operand(fold_sum, results(rescale_mul)[0])?;
    let reduce_sum = defining_op(summed)?;
    if op_name(reduce_sum) != "tt.reduce"
        || operands(reduce_sum).len() != 1
        || !in_block(reduce_sum, block)
        || super::single_combine(reduce_sum).as_deref() != Some("arith.addf")
    {
        return None;
    }
    let shift_exp = defining_op(operands(reduce_sum)[0])?;
    if op_name(shift_exp) != exp_name
        || !in_block(shift_exp, block)
        || !same_op(sole_user(results(shift_exp)[0])?, reduce_sum)
    {
        return None;
    }
    let shift_sub = defining_op(operands(shift_exp)[0])?;
    if op_name(shift_sub) != "arith.subf"
        || !in_block(shift_sub, block)
        || !same_values(&operands(shift_sub), &[x, results(splat)[0]])
        || !same_op(sole_user(results(shift_sub)[0])?, shift_exp)
        || !same_op(sole_user(results(splat)[0])?, shift_sub)
    {
        return None;
    }
    Some(Pair {
        max_index,
        sum_index,
        x,
        reduce_max,
        fold_max,
        rescale_sub,
        rescale_exp,
        rescale_mul,
        splat,
        shift_sub,
        shift_exp,
        reduce_sum,
        fold_sum,
    })
}

/// `x`'s elements as `[R, T, V]` in a blocked layout that places each where `x`'s layout does
/// (`V` consecutive elements a thread, then `T` threads, then `R` repeats in registers): the
/// blocked encoding and the three sizes, if `x`'s layout is of that form.
fn thread_split(x_type: MlirType) -> Option<(BlockedEncoding, [u32; 3])> {
    let n = u32::try_from(*shape(x_type).first()?).ok()?;
    let encoding = encoding_of(x_type)?;
    let layout = encoding.to_linear(&[n]).ok()?;
    let dim = out_dim_name(0);
    let registers: Vec<u32> = (0..layout.bases(REGISTER).len())
        .map(|i| layout.basis_coord(REGISTER, i, &dim))
        .collect();
    let vector = registers
        .iter()
        .enumerate()
        .take_while(|(i, b)| **b == 1 << i)
        .count();
    let size_per_thread = 1u32 << vector;
    let repeats = 1u32 << registers[vector..].iter().filter(|b| **b != 0).count();
    let threads = n / size_per_thread / repeats;
    if threads < 2 || size_per_thread * threads * repeats != n {
        return None;
    }
    let lanes = layout.in_dim_size(LANE);
    let warps = layout.in_dim_size(WARP);
    let blocked = BlockedEncoding::new(
        vec![1, 1, size_per_thread],
        vec![1, lanes, 1],
        vec![1, warps, 1],
        vec![2, 1, 0],
    );
    let sizes = [repeats, threads, size_per_thread];
    // The split must be a relabeling: the same hardware place for every element.
    let split = Encoding::Blocked(blocked.clone()).to_linear(&sizes).ok()?;
    let names: Vec<String> = (0..3).map(out_dim_name).collect();
    let flat = split
        .transpose_outs(&[&names[2], &names[1], &names[0]])
        .ok()?
        .reshape_outs(&[(&dim, n)])
        .ok()?;
    flat.equivalent(&layout).then_some((blocked, sizes))
}

/// A ranked tensor type of `shape`, `element` and `encoding`.
fn tensor_type(ctx: MlirContext, dims: &[u32], element: MlirType, encoding: &Encoding) -> MlirType {
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let attr = encoding_to_attr(ctx, encoding);
    // SAFETY: `element` and `attr` are live handles of `ctx`; `dims` lives through the call.
    unsafe { mlirRankedTensorTypeGet(dims.len() as isize, dims.as_ptr(), element, attr) }
}

/// A clone of `op` (a `tt.reduce` of one operand) reducing `input` along `axis` into `result`.
fn reduce_along(
    at: At,
    op: MlirOperation,
    input: MlirValue,
    axis: i64,
    result: MlirType,
) -> MlirValue {
    let copy = clone_with(op, &[input], &[result]);
    set_inherent(copy, "axis", context_of(op).i32_attr(axis));
    at.insert(copy);
    results(copy)[0]
}

/// A clone of the binary or unary `op` with `operands` (in its operand order) and `result`.
fn clone_at(at: At, op: MlirOperation, ins: &[MlirValue], result: MlirType) -> MlirValue {
    let copy = at.insert(clone_with(op, ins, &[result]));
    results(copy)[0]
}

/// `op`'s operands with each `(from, to)` replaced.
fn replacing(op: MlirOperation, replacements: &[(MlirValue, MlirValue)]) -> Vec<MlirValue> {
    operands(op)
        .into_iter()
        .map(|v| {
            replacements
                .iter()
                .find(|(from, _)| same(*from, v))
                .map_or(v, |(_, to)| *to)
        })
        .collect()
}

/// `where(value == −inf, 0, value)`: the subtrahend of a rescale, 0 where nothing finite was seen.
fn finite_or_zero(at: At, value: MlirValue, minus_inf: MlirValue, zero: MlirValue) -> MlirValue {
    let ty = value_type(value);
    // SAFETY: `ty` is a live type; the types and attributes are made in its context.
    let (bool_type, predicate) = unsafe {
        let ctx = mlirTypeGetContext(ty);
        let i1 = mlirIntegerTypeGet(ctx, 1);
        let bool_type = if is_tensor(ty) {
            with_element(ty, i1)
        } else {
            i1
        };
        // arith.cmpf predicate 1: `oeq`.
        (bool_type, ctx.i64_attr(1))
    };
    let is_minus_inf = at.value(
        "arith.cmpf",
        location_of_value(value),
        &[value, minus_inf],
        bool_type,
        &[("predicate", predicate)],
    );
    at.value(
        "arith.select",
        location_of_value(value),
        &[is_minus_inf, zero, value],
        ty,
        &[],
    )
}

fn location_of_value(value: MlirValue) -> MlirLocation {
    // SAFETY: `value` is a live value; its location is owned by its context.
    unsafe { mlirValueGetLocation(value) }
}

/// Rewrites one online-softmax pair of `for_op`, returning whether it did.
pub(super) fn rewrite_one(for_op: MlirOperation) -> bool {
    let carried = operands(terminator(body(for_op, 0))).len();
    let Some(pair) = (0..carried).find_map(|i| match_pair(for_op, i)) else {
        return false;
    };
    let x_type = value_type(pair.x);
    let Some((blocked, [repeats, threads, vector])) = thread_split(x_type) else {
        return false;
    };
    let ctx = context_of(for_op);
    let element = element_type(x_type);
    let split = Encoding::Blocked(blocked);
    let rows = Encoding::Slice(SliceEncoding::new(2, split.clone()));
    let per_thread = Encoding::Slice(SliceEncoding::new(0, rows.clone()));
    let split_type = tensor_type(ctx, &[repeats, threads, vector], element, &split);
    let rows_type = tensor_type(ctx, &[repeats, threads], element, &rows);
    let state_type = tensor_type(ctx, &[threads], element, &per_thread);

    let block = body(for_op, 0);
    let yield_op = terminator(block);
    let loc = location(for_op);
    let before_loop = At::Before(for_op);
    let minus_inf_state = before_loop.constant(loc, float_attr_of(state_type, f64::NEG_INFINITY));
    let zero_state = before_loop.constant(loc, float_attr_of(state_type, 0.0));
    let mut inits = for_parts(for_op).inits;
    let (m_init, l_init) = (inits[pair.max_index], inits[pair.sum_index]);
    inits[pair.max_index] = minus_inf_state;
    inits[pair.sum_index] = zero_state;
    let new_for = rebuild_for(for_op, &inits);
    let args = block_args(block);
    let (m, l) = (args[pair.max_index + 1], args[pair.sum_index + 1]);
    // SAFETY: `m` and `l` are live block arguments of the moved body; their only users are
    // erased below, and their new uses are built with the new type.
    unsafe {
        mlirBlockArgumentSetType(m, state_type);
        mlirBlockArgumentSetType(l, state_type);
    }

    // The loop body, per thread, before the yield.
    let at = At::Before(yield_op);
    let split_x = at.value(
        "tt.reshape",
        location(pair.reduce_max),
        &[pair.x],
        split_type,
        &[],
    );
    let per_thread_reduce = |template: MlirOperation, value: MlirValue| {
        let rows = reduce_along(at, template, value, 2, rows_type);
        reduce_along(at, template, rows, 0, state_type)
    };
    let thread_max = per_thread_reduce(pair.reduce_max, split_x);
    let m_reduced = results(pair.reduce_max)[0];
    let m_new = clone_at(
        at,
        pair.fold_max,
        &replacing(pair.fold_max, &[(m_reduced, thread_max)]),
        state_type,
    );
    let subtrahend = finite_or_zero(at, m_new, minus_inf_state, zero_state);
    let rescale_arg = clone_at(at, pair.rescale_sub, &[m, subtrahend], state_type);
    let rescale = clone_at(at, pair.rescale_exp, &[rescale_arg], state_type);
    let old_rescale = results(pair.rescale_exp)[0];
    let l_rescaled = clone_at(
        at,
        pair.rescale_mul,
        &replacing(pair.rescale_mul, &[(old_rescale, rescale)]),
        state_type,
    );
    let expand_loc = location(pair.splat);
    let expand = |value: MlirValue, axis: i64, dims: &[u32], encoding: &Encoding| {
        let ty = tensor_type(ctx, dims, element, encoding);
        let axis = [("axis", ctx.i32_attr(axis))];
        at.value("tt.expand_dims", expand_loc, &[value], ty, &axis)
    };
    let expanded = expand(
        expand(subtrahend, 0, &[1, threads], &rows),
        2,
        &[1, threads, 1],
        &split,
    );
    let broadcast = if repeats == 1 && vector == 1 {
        expanded
    } else {
        at.value("tt.broadcast", expand_loc, &[expanded], split_type, &[])
    };
    let shifted = clone_at(at, pair.shift_sub, &[split_x, broadcast], split_type);
    let exps = clone_at(at, pair.shift_exp, &[shifted], split_type);
    let thread_sum = per_thread_reduce(pair.reduce_sum, exps);
    let fold_ins = replacing(
        pair.fold_sum,
        &[
            (results(pair.rescale_mul)[0], l_rescaled),
            (results(pair.reduce_sum)[0], thread_sum),
        ],
    );
    let l_new = clone_at(at, pair.fold_sum, &fold_ins, state_type);
    let mut yielded = operands(yield_op);
    yielded[pair.max_index] = m_new;
    yielded[pair.sum_index] = l_new;
    set_operands(yield_op, &yielded);
    // After the loop: merge the threads' pairs and the initial one.
    let after = At::Before(for_op);
    let m_threads = results(new_for)[pair.max_index];
    let l_threads = results(new_for)[pair.sum_index];
    let scalar = element;
    let m_all = reduce_along(after, pair.reduce_max, m_threads, 0, scalar);
    let m_total = clone_at(after, pair.fold_max, &[m_init, m_all], scalar);
    let minus_inf = after.constant(loc, float_attr_of(scalar, f64::NEG_INFINITY));
    let zero = after.constant(loc, float_attr_of(scalar, 0.0));
    let m_subtrahend = finite_or_zero(after, m_total, minus_inf, zero);
    let m_splat = after.splat(loc, m_subtrahend, state_type);
    let thread_arg = clone_at(after, pair.rescale_sub, &[m_threads, m_splat], state_type);
    let thread_scale = clone_at(after, pair.rescale_exp, &[thread_arg], state_type);
    let l_scaled = clone_at(
        after,
        pair.rescale_mul,
        &[l_threads, thread_scale],
        state_type,
    );
    let l_all = reduce_along(after, pair.reduce_sum, l_scaled, 0, scalar);
    let init_arg = clone_at(after, pair.rescale_sub, &[m_init, m_subtrahend], scalar);
    let init_scale = clone_at(after, pair.rescale_exp, &[init_arg], scalar);
    let l_init_scaled = clone_at(after, pair.rescale_mul, &[l_init, init_scale], scalar);
    let l_total = clone_at(after, pair.fold_sum, &[l_init_scaled, l_all], scalar);

    // The templates cloned above, now unused.
    for op in [
        pair.fold_sum,
        pair.reduce_sum,
        pair.shift_exp,
        pair.shift_sub,
        pair.splat,
        pair.rescale_mul,
        pair.rescale_exp,
        pair.rescale_sub,
        pair.fold_max,
        pair.reduce_max,
    ] {
        erase(op);
    }

    for (index, old) in results(for_op).into_iter().enumerate() {
        let replacement = if index == pair.max_index {
            m_total
        } else if index == pair.sum_index {
            l_total
        } else {
            results(new_for)[index]
        };
        // SAFETY: `old` and `replacement` are live values of the same type.
        unsafe { mlirValueReplaceAllUsesOfWith(old, replacement) };
    }
    erase(for_op);
    true
}
