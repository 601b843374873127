//! `-tritium-persistent-programs`: a kernel whose programs each compute one tile with a pipelined
//! dot loop runs its programs persistently. The kernel gets one more `i32` parameter, the number
//! of programs the caller asked for along axis 0 (`N`); its body becomes a loop
//!
//! ```text
//! for v in range(program_id(0), N, num_programs(0)):
//!     body, with program_id(0) read as v
//! ```
//!
//! and the runtime launches only as many programs along axis 0 as the GPU holds at once (the
//! SMs times the kernel's occupancy), passing `N`; a grid with more than one row (axes 1, 2)
//! is launched whole. Every virtual program `0..N` still runs once, in the same increasing
//! order per SM; a launch of at most that many programs runs each body once, as before.
//!
//! Why: a program a tile pays, per tile, a program's launch on its SM and its retirement
//! after the last stores, with the tensor cores idle in between. A 4096³ f16 matmul of
//! 128x256 tiles is 512 programs, four waves on 132 SMs; run persistently, each SM keeps one
//! program for its four tiles (tutorial 11's hand-written persistent kernel: 2.1% slower than
//! cuBLAS where tutorial 03's, one program a tile, is 3.8% slower; H100, `bench/matmul-forms.py`).
//!
//! The kernel is left alone unless its programs are plainly independent and the rewrite cannot
//! change what it does: one public `tt.func` body block ending in an empty `tt.return`, a
//! `tt.dot` (or `tt.dot_scaled`) inside an `scf.for`, program ids along axis 0 only (a grid of
//! rows, as attention's heads, keeps its programs: the runtime would launch it whole anyway),
//! loops whose trip counts do not depend on the program id (uneven work, as causal attention's,
//! is better balanced by the hardware's block scheduler than by a fixed stride),
//! and none of: atomics (programs that communicate), `scf.while` (a program may wait on
//! another), `tt.get_num_programs` or a loop starting at `program_id(0)` (the kernel already
//! strides over its work, as Triton's persistent tutorials with `NUM_SMS` do),
//! `tt.print`/`tt.assert` (they print the hardware program id), inline assembly (it may read
//! `%ctaid`), calls, tensor descriptors made in the kernel (their global scratch is per
//! launched program). The function is marked `tritium.virtual_programs`
//! (its last argument is `N`); the compiler leaves that argument out of the kernel's signature
//! and records `virtual_programs` in the kernel's metadata for the launcher.

use crate::ir_util::*;
use crate::ttir::util::{
    At, append_argument_attrs, attr, erase, location, replace_uses, result, set_attr, terminator,
};
use mlir_sys::*;
use std::collections::HashSet;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::build::build;
use tritium_dialects::ffi::str_ref;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritium-persistent-programs",
    summary: "Run a dot kernel's programs persistently: a loop over the requested programs",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::scf(), dialects::arith()],
    run,
};

/// The unit attribute on a kernel whose last argument is the requested number of programs.
pub const VIRTUAL_PROGRAMS: &str = "tritium.virtual_programs";

/// Ops whose presence keeps a kernel as it is (see the module documentation).
const BLOCKING_OPS: [&str; 10] = [
    "tt.atomic_rmw",
    "tt.atomic_cas",
    "scf.while",
    "tt.get_num_programs",
    "tt.print",
    "tt.assert",
    "tt.elementwise_inline_asm",
    "tt.call",
    "tt.make_tensor_descriptor",
    "ttg.global_scratch_alloc",
];

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let Some(&top) = blocks_of(module).first() else {
        return Ok(());
    };
    for func in block_ops(top) {
        if op_name(func) == "tt.func" && why_left_alone(func).is_none() {
            make_persistent(func);
        }
    }
    Ok(())
}

/// Why `func` stays as it is (`None`: it is rewritten).
pub fn why_left_alone(func: MlirOperation) -> Option<&'static str> {
    if string_attr(func, "sym_visibility").as_deref() == Some("private") {
        return Some("not a kernel (private)");
    }
    if attr(func, VIRTUAL_PROGRAMS).is_some() {
        return Some("already persistent");
    }
    let blocks = blocks_of(func);
    let [entry] = blocks.as_slice() else {
        return Some("not one body block");
    };
    let ret = terminator(*entry);
    if op_name(ret) != "tt.return" || !operands(ret).is_empty() {
        return Some("does not end in an empty tt.return");
    }
    let mut blocked = None;
    let mut looped_dot = false;
    // Values computed from the program id (a forward slice; values a loop carries back from its
    // body are not followed: this only steers a performance choice).
    let mut from_program_id: HashSet<usize> = HashSet::new();
    walk(func, &mut |op| {
        let name = op_name(op);
        let args = operands(op);
        if name == "scf.for"
            && args
                .iter()
                .take(3)
                .any(|v| from_program_id.contains(&key(*v)))
        {
            // Uneven work, or a hand-written persistent loop starting at the program id.
            blocked.get_or_insert("a loop's bounds depend on the program id");
        }
        if name == "tt.get_program_id" || args.iter().any(|v| from_program_id.contains(&key(*v))) {
            from_program_id.extend(results(op).into_iter().map(key));
            for block in blocks_of(op) {
                from_program_id.extend(block_args(block).into_iter().map(key));
            }
        }
        if let Some(&b) = BLOCKING_OPS.iter().find(|&&b| b == name) {
            blocked.get_or_insert(b);
        }
        if name == "tt.get_program_id" && int_attr(op, "axis") != Some(0) {
            blocked.get_or_insert("a program id along axis 1 or 2");
        }
        if matches!(name.as_str(), "tt.dot" | "tt.dot_scaled") && in_for_loop(op, func) {
            looped_dot = true;
        }
    });
    if blocked.is_some() {
        return blocked;
    }
    (!looped_dot).then_some("no tt.dot in a loop")
}

/// Whether an `scf.for` inside `func` encloses `op`.
fn in_for_loop(op: MlirOperation, func: MlirOperation) -> bool {
    // SAFETY: parent queries on live ops; the walk stops at `func`, an ancestor of `op`.
    unsafe {
        let mut at = mlirOperationGetParentOperation(op);
        while !at.ptr.is_null() && !mlirOperationEqual(at, func) {
            if op_name(at) == "scf.for" {
                return true;
            }
            at = mlirOperationGetParentOperation(at);
        }
    }
    false
}

/// The rewrite of the module documentation, on an eligible kernel.
fn make_persistent(func: MlirOperation) {
    let entry = blocks_of(func)[0];
    let ret = terminator(entry);
    let body_ops: Vec<MlirOperation> = block_ops(entry)
        .into_iter()
        .filter(|op| op.ptr != ret.ptr)
        .collect();
    let loc = location(func);
    let ctx = context_of(func);
    // SAFETY: a new argument of a live block; the type lives in the function's context.
    let (i32_type, requested) = unsafe {
        let i32_type = mlirIntegerTypeGet(ctx, 32);
        (i32_type, mlirBlockAddArgument(entry, i32_type, loc))
    };
    // SAFETY: an empty dictionary of the function's context.
    let no_attrs = unsafe { mlirDictionaryAttrGet(ctx, 0, std::ptr::null()) };
    append_argument_attrs(func, block_args(entry).len() - 1, &[no_attrs]);
    set_attr(func, VIRTUAL_PROGRAMS, ctx.unit_attr());

    let first = body_ops.first().copied().unwrap_or(ret);
    let at = At::Before(first);
    // SAFETY: an i32 attribute of the live context (the axis, as the front end writes it).
    let axis_x = unsafe { mlirIntegerAttrGet(i32_type, 0) };
    let launched_id = at.op(
        "tt.get_program_id",
        loc,
        &[],
        &[i32_type],
        &[("axis", axis_x)],
    );
    let launched = at.op(
        "tt.get_num_programs",
        loc,
        &[],
        &[i32_type],
        &[("axis", axis_x)],
    );
    // SAFETY: a block with the induction variable's argument, owned by the new loop's region;
    // the loop is inserted before the body's first op and the body moved into it below.
    let (program_loop, loop_body) = unsafe {
        let block = mlirBlockCreate(1, &i32_type, &loc);
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);
        let mut state = mlirOperationStateGet(str_ref("scf.for"), loc);
        let bounds = [result(launched_id, 0), requested, result(launched, 0)];
        mlirOperationStateAddOperands(&mut state, 3, bounds.as_ptr());
        mlirOperationStateAddOwnedRegions(&mut state, 1, &region);
        let program_loop = at.insert(mlirOperationCreate(&mut state));
        mlirBlockAppendOwnedOperation(block, build("scf.yield", loc, &[], &[], &[]));
        (program_loop, block)
    };
    let virtual_id = block_args(loop_body)[0];
    let loop_yield = terminator(loop_body);
    for op in body_ops {
        // SAFETY: `op` is a live op of the entry block, moved before the loop's yield.
        unsafe { mlirOperationMoveBefore(op, loop_yield) };
    }
    // Every program_id(0) of the body (now in the loop) reads the virtual program.
    for op in collect_ops(program_loop) {
        if op_name(op) == "tt.get_program_id" && int_attr(op, "axis") == Some(0) {
            replace_uses(result(op, 0), virtual_id);
            erase(op);
        }
    }
}
