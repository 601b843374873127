//! `-tritongpu-fuse-nested-loops`: an `scf.for` marked `tt.flatten` (`tl.range(...,
//! flatten=True)`; Triton's tests mark it `ttg.always-fuse`) whose body holds exactly one inner
//! `scf.for` — itself innermost, its bounds defined outside the outer loop, its induction
//! variable of the outer one's type — becomes a single loop over
//! `len(outer) * max(1, len(inner))` iterations, the shape of Triton's persistent kernels
//! after fusion:
//!
//! ```text
//! T = -1; i = lb_i - step_i
//! for _ in range(total):
//!     T = 0 if T == inner_len - 1 else T + 1
//!     if T == 0:              i += step_i; prologue(i); j = lb_j; inner iter args = inits
//!     if T < len_j:           body(i, j); j += step_j
//!     if T == inner_len - 1:  epilogue(i); outer iter args = outer yield
//! ```
//!
//! The prologue (the outer body's ops before the inner loop) and the epilogue (those after it)
//! run once per outer iteration, the inner body once per inner iteration, as before; prologue
//! values used later (not the inner loop's inits, consumed by the prologue's branch), the inner
//! loop's iter args and its induction variable are carried by the fused loop, tensors with a
//! `ub.poison` placeholder. The inner loop's `tt.num_stages` moves to the fused loop. Other loop
//! nests are left alone.
//!
//! A `tt.flatten` nest is first prepared as Triton does (its tests' `ttg.always-fuse` nests
//! are not): the outer loop's pure invariants are hoisted, prologue ops only the epilogue reads
//! move into it, and the inner loop's length is speculated — `scf.if len(inner) <= 0` runs a
//! copy of the nest without the inner loop, the `else` side the nest with its inner loop marked
//! `ttg.must-execute`, fused over `len(outer) * len(inner)` iterations with the inner body
//! unguarded, where -tritongpu-pipeline stages its loads (docs/passes-ttgir.md).

use crate::ir_util::*;
use crate::ttir::util::{
    attr, defined_outside, float_attr_of, for_parts, int_attr_of, is_ancestor, location,
    remove_attr, set_attr, set_operands, terminator,
};
use mlir_sys::*;
use std::collections::HashSet;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::{build, constant};
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-fuse-nested-loops",
    summary: "Fuse a tt.flatten loop nest into a single loop",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::scf(), dialects::arith()],
    run,
};

/// The loop attributes asking for fusion.
const FLATTEN: [&str; 2] = ["tt.flatten", "ttg.always-fuse"];

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let nests: Vec<(MlirOperation, MlirOperation)> = collect_ops(module)
        .into_iter()
        .filter(|&op| op_name(op) == "scf.for" && FLATTEN.iter().any(|a| attr(op, a).is_some()))
        .filter_map(|outer| {
            // Hoisting first also takes the inner loop's bounds out when they are invariant
            // (constants, sums of arguments), as Triton's speculation does.
            if is_prepared(outer) {
                crate::ttir::licm::hoist_speculatable(outer);
            }
            fusible_inner(outer).map(|inner| (outer, inner))
        })
        .collect();
    for (outer, inner) in nests {
        // Triton prepares a `tt.flatten` nest (its tests' `ttg.always-fuse` ones are fused
        // as they are): invariants leave the outer loop, prologue values only the epilogue
        // reads move there, and the inner loop is made to run at least once.
        let must_execute = if is_prepared(outer) {
            sink_into_epilogue(outer, inner);
            speculate_inner_length(outer, inner);
            true
        } else {
            attr(inner, MUST_EXECUTE).is_some()
        };
        fuse(outer, inner, must_execute);
    }
    Ok(())
}

/// Whether the nest is prepared before fusion: `tt.flatten` ones, not Triton's test attribute.
fn is_prepared(outer: MlirOperation) -> bool {
    attr(outer, FLATTEN[0]).is_some() && attr(outer, FLATTEN[1]).is_none()
}

/// Marks an inner loop known to run at least once per outer iteration (Triton's name).
const MUST_EXECUTE: &str = "ttg.must-execute";

/// Moves the prologue ops whose results only the epilogue reads (pure, speculatable, without
/// regions) to the start of the epilogue, so the fused loop need not carry their values.
fn sink_into_epilogue(outer: MlirOperation, inner: MlirOperation) {
    let body = blocks_of(outer)[0];
    let ops = block_ops(body);
    let split = ops
        .iter()
        .position(|op| op.ptr == inner.ptr)
        .expect("inner is in the body");
    let epilogue: HashSet<usize> = ops[split + 1..].iter().map(|op| op.ptr as usize).collect();
    let mut sunk: HashSet<usize> = HashSet::new();
    for &op in ops[..split].iter().rev() {
        if crate::ttir::util::num_regions(op) != 0 || !crate::ttir::util::is_speculatable(op) {
            continue;
        }
        let users: Vec<MlirOperation> = results(op)
            .into_iter()
            .flat_map(crate::ir_util::users)
            .map(|user| top_level_in(user, body))
            .collect();
        let only_epilogue = !users.is_empty()
            && users.iter().all(|u| {
                let key = u.ptr as usize;
                sunk.contains(&key) || (epilogue.contains(&key) && !is_terminator(*u, body))
            });
        if only_epilogue {
            sunk.insert(op.ptr as usize);
        }
    }
    // In body order, right after the inner loop.
    let mut at = inner;
    for &op in &ops[..split] {
        if sunk.contains(&(op.ptr as usize)) {
            // SAFETY: `op` moves within its live block to after `at`; every user of it comes
            // later in the epilogue (or is sunk after it, in order).
            unsafe { mlirOperationMoveAfter(op, at) };
            at = op;
        }
    }
}

fn is_terminator(op: MlirOperation, block: MlirBlock) -> bool {
    terminator(block).ptr == op.ptr
}

/// The op of `block` that is or holds `op`.
fn top_level_in(op: MlirOperation, block: MlirBlock) -> MlirOperation {
    let mut top = op;
    // SAFETY: parent queries on live ops nested in `block`'s parent.
    unsafe {
        while !top.ptr.is_null() && mlirOperationGetBlock(top).ptr != block.ptr {
            top = mlirOperationGetParentOperation(top);
        }
    }
    top
}

/// Triton's speculation on the inner loop's length: `scf.if len(inner) <= 0` runs a copy of
/// the nest without the inner loop (its results are its inits), the `else` branch the nest,
/// whose inner loop is marked `ttg.must-execute`: fused, its body then runs on every fused
/// iteration without a guard, where the pipeliner can stage its loads.
fn speculate_inner_length(outer: MlirOperation, inner: MlirOperation) {
    let loc = location(outer);
    let parts = for_parts(inner);
    let pre = Builder { at: outer, loc };
    let len = pre.trip_count(parts.lb, parts.ub, parts.step);
    let zero = pre.int(len, 0);
    let empty = pre.cmp(3, len, zero);
    let result_types: Vec<MlirType> = results(outer).into_iter().map(value_type).collect();
    let (if_op, [then_yield, else_yield]) = if_op(&pre, empty, &result_types);
    // SAFETY: a deep copy of the live nest, inserted in the then-block (which owns it).
    let copy = unsafe {
        let copy = mlirOperationClone(outer);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(then_yield), then_yield, copy);
        copy
    };
    let copy_inner = collect_ops(copy)
        .into_iter()
        .skip(1)
        .find(|&op| op_name(op) == "scf.for")
        .expect("the copy holds the inner loop");
    for (r, init) in results(copy_inner)
        .into_iter()
        .zip(for_parts(copy_inner).inits)
    {
        crate::ttir::util::replace_uses(r, init);
    }
    // SAFETY: the copied inner loop's results are unused now.
    unsafe { mlirOperationDestroy(copy_inner) };
    for name in FLATTEN {
        remove_attr(copy, name);
    }
    set_operands(then_yield, &results(copy));
    for (r, to) in results(outer).into_iter().zip(results(if_op)) {
        crate::ttir::util::replace_uses(r, to);
    }
    // SAFETY: the nest moves into the else-block before its yield (its results' uses now go
    // to the if's results).
    unsafe { mlirOperationMoveBefore(outer, else_yield) };
    set_operands(else_yield, &results(outer));
    let unit = context_of(inner).unit_attr();
    set_attr(inner, MUST_EXECUTE, unit);
}

/// The inner loop of a fusible nest (see the module docs).
fn fusible_inner(outer: MlirOperation) -> Option<MlirOperation> {
    let body = *blocks_of(outer).first()?;
    let loops: Vec<MlirOperation> = collect_ops(outer)
        .into_iter()
        .skip(1)
        .filter(|&op| op_name(op) == "scf.for")
        .collect();
    let [inner] = loops[..] else {
        return None;
    };
    // SAFETY: block query on a live op.
    if unsafe { mlirOperationGetBlock(inner).ptr } != body.ptr {
        return None;
    }
    let parts = for_parts(inner);
    let outer_parts = for_parts(outer);
    let same_type = |a: MlirValue, b: MlirValue| {
        // SAFETY: type equality of live values.
        unsafe { mlirTypeEqual(value_type(a), value_type(b)) }
    };
    ([parts.lb, parts.ub, parts.step]
        .iter()
        .all(|&v| defined_outside(v, outer))
        && same_type(parts.lb, outer_parts.lb))
    .then_some(inner)
}

/// Inserts ops right before `at`.
struct Builder {
    at: MlirOperation,
    loc: MlirLocation,
}

impl Builder {
    fn op(&self, op: MlirOperation) -> MlirOperation {
        // SAFETY: `at` is live in a block, which takes ownership of the new op.
        unsafe { mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(self.at), self.at, op) };
        op
    }
    fn value(&self, op: MlirOperation) -> MlirValue {
        // SAFETY: every op built through this has a result.
        unsafe { mlirOperationGetResult(self.op(op), 0) }
    }
    fn bin(&self, name: &str, a: MlirValue, b: MlirValue) -> MlirValue {
        self.value(build(name, self.loc, &[a, b], &[value_type(a)], &[]))
    }
    fn int(&self, like: MlirValue, v: i64) -> MlirValue {
        self.value(constant(self.loc, int_attr_of(value_type(like), v)))
    }
    /// `arith.cmpi` with MLIR's predicate number (0 eq, 2 slt, 3 sle).
    fn cmp(&self, predicate: i64, a: MlirValue, b: MlirValue) -> MlirValue {
        // SAFETY: i1 and i64 types and an attribute of the live location's context.
        let (i1, pred) = unsafe {
            let ctx = mlirLocationGetContext(self.loc);
            (mlirIntegerTypeGet(ctx, 1), ctx.i64_attr(predicate))
        };
        self.value(build(
            "arith.cmpi",
            self.loc,
            &[a, b],
            &[i1],
            &[("predicate", pred)],
        ))
    }
    fn select(&self, c: MlirValue, a: MlirValue, b: MlirValue) -> MlirValue {
        self.value(build(
            "arith.select",
            self.loc,
            &[c, a, b],
            &[value_type(a)],
            &[],
        ))
    }
    /// A value of type `ty` standing for "not computed yet": zero for numbers and tensors of
    /// them, `ub.poison` otherwise (the fused loop overwrites it before any read).
    fn placeholder(&self, ty: MlirType) -> MlirValue {
        // SAFETY: type queries on a live type.
        let (int, float) = unsafe {
            let element = element_type(ty);
            (mlirTypeIsAInteger(element), mlirTypeIsAFloat(element))
        };
        if int {
            self.value(constant(self.loc, int_attr_of(ty, 0)))
        } else if float {
            self.value(constant(self.loc, float_attr_of(ty, 0.0)))
        } else {
            self.poison(ty)
        }
    }
    fn poison(&self, ty: MlirType) -> MlirValue {
        self.value(build("ub.poison", self.loc, &[], &[ty], &[]))
    }
    /// `len(range(lb, ub, step))` for a positive step: `ceildiv(ub - lb, step)`.
    fn trip_count(&self, lb: MlirValue, ub: MlirValue, step: MlirValue) -> MlirValue {
        let diff = self.bin("arith.subi", ub, lb);
        self.bin("arith.ceildivsi", diff, step)
    }
}

/// An `scf.if` on `cond` with `results`, inserted before `b.at`, each region one block ending in
/// an `scf.yield` (operands set later): the op and the two yields.
fn if_op(
    b: &Builder,
    cond: MlirValue,
    results: &[MlirType],
) -> (MlirOperation, [MlirOperation; 2]) {
    // SAFETY: regions and blocks created here are handed to the new op (which owns them); the
    // yields go into those blocks; every handle belongs to the live location's context.
    unsafe {
        let regions: Vec<MlirRegion> = (0..2).map(|_| mlirRegionCreate()).collect();
        let mut yields = [MlirOperation {
            ptr: std::ptr::null_mut(),
        }; 2];
        for (k, &region) in regions.iter().enumerate() {
            let block = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
            mlirRegionAppendOwnedBlock(region, block);
            let y = build("scf.yield", b.loc, &[], &[], &[]);
            mlirBlockAppendOwnedOperation(block, y);
            yields[k] = y;
        }
        let name = tritium_dialects::ffi::str_ref("scf.if");
        let mut state = mlirOperationStateGet(name, b.loc);
        mlirOperationStateAddOperands(&mut state, 1, &cond);
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        mlirOperationStateAddOwnedRegions(&mut state, 2, regions.as_ptr());
        let op = b.op(mlirOperationCreate(&mut state));
        (op, yields)
    }
}

/// Replaces the uses of `from` outside `region_owner` (all uses when `None`) by `to`.
fn replace_uses_outside(from: MlirValue, to: MlirValue, region_owner: Option<MlirOperation>) {
    // The uses are listed before any operand is set.
    for (owner, n) in crate::ir_util::uses(from) {
        if region_owner.is_none_or(|r| !is_ancestor(r, owner)) {
            // SAFETY: `owner` is a live op using `from` at operand `n`; `to` is a live value.
            unsafe { mlirOperationSetOperand(owner, n as isize, to) };
        }
    }
}

fn fuse(outer: MlirOperation, inner: MlirOperation, must_execute: bool) {
    let outer_body = blocks_of(outer)[0];
    let inner_body = blocks_of(inner)[0];
    let op_parts = for_parts(outer);
    let in_parts = for_parts(inner);
    let ops = block_ops(outer_body);
    let split = ops
        .iter()
        .position(|op| op.ptr == inner.ptr)
        .expect("inner is in the body");
    let prologue: Vec<MlirOperation> = ops[..split].to_vec();
    let outer_yield = terminator(outer_body);
    let epilogue: Vec<MlirOperation> = ops[split + 1..]
        .iter()
        .copied()
        .filter(|op| op.ptr != outer_yield.ptr)
        .collect();
    // Prologue values read after the prologue: carried by the fused loop.
    let in_prologue: HashSet<usize> = prologue.iter().map(|op| op.ptr as usize).collect();
    let carried: Vec<MlirValue> = prologue
        .iter()
        .flat_map(|&op| results(op))
        .filter(|&v| {
            crate::ir_util::users(v).iter().any(|&user| {
                // The inner loop's inits are read in the prologue's branch.
                if user.ptr == inner.ptr {
                    return false;
                }
                let mut top = user;
                // The user's op in the outer body (it may be nested in the inner loop).
                // SAFETY: parent queries on live ops.
                unsafe {
                    while mlirOperationGetBlock(top).ptr != outer_body.ptr {
                        top = mlirOperationGetParentOperation(top);
                    }
                }
                !in_prologue.contains(&(top.ptr as usize))
            })
        })
        .collect();
    let outer_args: Vec<MlirValue> = block_args(outer_body)[1..].to_vec();
    let inner_args: Vec<MlirValue> = block_args(inner_body)[1..].to_vec();
    let loc = location(outer);

    // Before the loop: trip counts, the fused trip count, the initial values.
    let pre = Builder { at: outer, loc };
    let len_i = pre.trip_count(op_parts.lb, op_parts.ub, op_parts.step);
    let len_j = pre.trip_count(in_parts.lb, in_parts.ub, in_parts.step);
    let one = pre.int(len_j, 1);
    let inner_len = if must_execute {
        len_j
    } else {
        pre.bin("arith.maxsi", one, len_j)
    };
    let total = pre.bin("arith.muli", len_i, inner_len);
    let zero = pre.int(len_j, 0);
    let minus_one = pre.int(len_j, -1);
    let i_init = pre.bin("arith.subi", op_parts.lb, op_parts.step);
    let mut inits = vec![minus_one, i_init];
    inits.extend_from_slice(&op_parts.inits);
    inits.push(zero);
    inits.extend(inner_args.iter().map(|&a| pre.placeholder(value_type(a))));
    // Poison, not zero, for carried tensors: axis info then keeps what the prologue's values
    // are known to be (contiguous column offsets, ...), which a zero placeholder would weaken.
    inits.extend(carried.iter().map(|&v| {
        let ty = value_type(v);
        if is_tensor(ty) {
            pre.poison(ty)
        } else {
            pre.placeholder(ty)
        }
    }));
    let types: Vec<MlirType> = inits.iter().map(|&v| value_type(v)).collect();

    // The fused loop and its body block.
    // SAFETY: a block of the loop's argument types, owned by the new loop's region; the loop is
    // inserted before `outer` (which it replaces).
    let (fused, body) = unsafe {
        let mut arg_types = vec![value_type(len_j)];
        arg_types.extend_from_slice(&types);
        let locs = vec![loc; arg_types.len()];
        let block = mlirBlockCreate(arg_types.len() as isize, arg_types.as_ptr(), locs.as_ptr());
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);
        let name = tritium_dialects::ffi::str_ref("scf.for");
        let mut state = mlirOperationStateGet(name, loc);
        let mut ins = vec![zero, total, one];
        ins.extend_from_slice(&inits);
        mlirOperationStateAddOperands(&mut state, ins.len() as isize, ins.as_ptr());
        mlirOperationStateAddResults(&mut state, types.len() as isize, types.as_ptr());
        mlirOperationStateAddOwnedRegions(&mut state, 1, &region);
        let fused = pre.op(mlirOperationCreate(&mut state));
        let y = build("scf.yield", loc, &[], &[], &[]);
        mlirBlockAppendOwnedOperation(block, y);
        (fused, block)
    };
    let args = block_args(body);
    let n_outer = outer_args.len();
    let n_inner = inner_args.len();
    let (t_arg, i_arg) = (args[1], args[2]);
    let o_args = args[3..3 + n_outer].to_vec();
    let j_arg = args[3 + n_outer];
    let k_args = args[4 + n_outer..4 + n_outer + n_inner].to_vec();
    let pv_args = args[4 + n_outer + n_inner..].to_vec();
    let fused_yield = terminator(body);
    let b = Builder {
        at: fused_yield,
        loc,
    };

    // T = 0 if T == inner_len - 1 else T + 1
    let one_b = b.int(len_j, 1);
    let t_next = b.bin("arith.addi", t_arg, one_b);
    let t_end = b.bin("arith.subi", inner_len, one_b);
    let rollover = b.cmp(0, t_arg, t_end);
    let zero_b = b.int(len_j, 0);
    let t = b.select(rollover, zero_b, t_next);

    // if T == 0: i += step_i; prologue(i); j = lb_j; inner iter args = inits
    let starts = b.cmp(0, t, zero_b);
    let mut pro_types = vec![value_type(j_arg)];
    pro_types.extend(carried.iter().map(|&v| value_type(v)));
    pro_types.extend(inner_args.iter().map(|&a| value_type(a)));
    pro_types.push(value_type(i_arg));
    let (pro_if, [pro_then, pro_else]) = if_op(&b, starts, &pro_types);
    let then_b = Builder { at: pro_then, loc };
    let i_next = then_b.bin("arith.addi", i_arg, op_parts.step);
    for &op in &prologue {
        // SAFETY: `op` moves from the outer body to before the then-yield (another live block).
        unsafe { mlirOperationMoveBefore(op, pro_then) };
    }
    let mut then_values = vec![in_parts.lb];
    then_values.extend_from_slice(&carried);
    then_values.extend_from_slice(&in_parts.inits);
    then_values.push(i_next);
    set_operands(pro_then, &then_values);
    let mut else_values = vec![j_arg];
    else_values.extend_from_slice(&pv_args);
    else_values.extend_from_slice(&k_args);
    else_values.push(i_arg);
    set_operands(pro_else, &else_values);
    let pro = results(pro_if);
    let j1 = pro[0];
    let pv1 = pro[1..1 + carried.len()].to_vec();
    let k1 = pro[1 + carried.len()..1 + carried.len() + n_inner].to_vec();
    let i1 = pro[pro.len() - 1];

    // if T < len_j: body(i, j); j += step_j (unguarded when the inner loop must execute:
    // every T is then one of its iterations)
    let inner_yield = terminator(inner_body);
    let (j2, k2) = if must_execute {
        for op in block_ops(inner_body) {
            if op.ptr != inner_yield.ptr {
                // SAFETY: `op` moves from the inner body to before the fused yield.
                unsafe { mlirOperationMoveBefore(op, fused_yield) };
            }
        }
        let j_step = b.bin("arith.addi", j1, in_parts.step);
        // An iter arg yielded unchanged is the value it had on entry.
        let inner_iv = block_args(inner_body)[0];
        let entry = |v: MlirValue| {
            if crate::ttir::util::same(v, inner_iv) {
                return j1;
            }
            inner_args
                .iter()
                .position(|&a| crate::ttir::util::same(a, v))
                .map_or(v, |n| k1[n])
        };
        (
            j_step,
            operands(inner_yield).into_iter().map(entry).collect(),
        )
    } else {
        let runs = b.cmp(2, t, len_j);
        let mut body_types = vec![value_type(j_arg)];
        body_types.extend(inner_args.iter().map(|&a| value_type(a)));
        let (body_if, [body_then, body_else]) = if_op(&b, runs, &body_types);
        for op in block_ops(inner_body) {
            if op.ptr != inner_yield.ptr {
                // SAFETY: `op` moves from the inner body to before the then-yield.
                unsafe { mlirOperationMoveBefore(op, body_then) };
            }
        }
        let j_step = Builder { at: body_then, loc }.bin("arith.addi", j1, in_parts.step);
        let mut then_values = vec![j_step];
        then_values.extend(operands(inner_yield));
        set_operands(body_then, &then_values);
        let mut else_values = vec![j1];
        else_values.extend_from_slice(&k1);
        set_operands(body_else, &else_values);
        let body_results = results(body_if);
        (body_results[0], body_results[1..].to_vec())
    };

    // if T == inner_len - 1: epilogue(i); outer iter args = outer yield
    let ends = b.cmp(0, t, t_end);
    let o_types: Vec<MlirType> = outer_args.iter().map(|&a| value_type(a)).collect();
    let (epi_if, [epi_then, epi_else]) = if_op(&b, ends, &o_types);
    for &op in &epilogue {
        // SAFETY: `op` moves from the outer body to before the then-yield.
        unsafe { mlirOperationMoveBefore(op, epi_then) };
    }
    set_operands(epi_then, &operands(outer_yield));
    set_operands(epi_else, &o_args);
    let o3 = results(epi_if);

    let mut yielded = vec![t, i1];
    yielded.extend_from_slice(&o3);
    yielded.push(j2);
    yielded.extend_from_slice(&k2);
    yielded.extend_from_slice(&pv1);
    set_operands(fused_yield, &yielded);

    // Rewire: the inner loop's results are the body's, first, since what the inner loop
    // yields may be the outer induction variable, an outer iter arg or a prologue value, which
    // the rewiring below then replaces in the epilogue too; the outer induction variable is
    // i_next inside the prologue and i1 after it; the inner one is j1; prologue values are pv1
    // past the prologue; iter args become the fused loop's.
    for (&from, &to) in results(inner).iter().zip(&k2) {
        replace_uses_outside(from, to, None);
    }
    let outer_iv = block_args(outer_body)[0];
    replace_uses_outside(outer_iv, i1, Some(pro_if));
    replace_uses_outside(outer_iv, i_next, None);
    for (&v, &to) in carried.iter().zip(&pv1) {
        replace_uses_outside(v, to, Some(pro_if));
    }
    for (&from, &to) in outer_args.iter().zip(&o_args) {
        replace_uses_outside(from, to, None);
    }
    replace_uses_outside(block_args(inner_body)[0], j1, None);
    for (&from, &to) in inner_args.iter().zip(&k1) {
        replace_uses_outside(from, to, None);
    }
    for (k, &r) in results(outer).iter().enumerate() {
        // SAFETY: result `2 + k` of the fused loop exists (its iter args start with T and i,
        // then the outer ones).
        let to = unsafe { mlirOperationGetResult(fused, 2 + k as isize) };
        replace_uses_outside(r, to, None);
    }
    // The inner loop's pipelining depth and the other loop attributes.
    if let Some(stages) = attr(inner, "tt.num_stages") {
        set_attr(fused, "tt.num_stages", stages);
    }
    for name in FLATTEN {
        remove_attr(fused, name);
    }
    // SAFETY: nothing outside the outer loop uses what it defines any more; destroying it drops
    // the inner loop (now empty) and the yields' stale operands with it.
    unsafe { mlirOperationDestroy(outer) };
}
