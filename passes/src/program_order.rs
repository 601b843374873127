//! `-tritium-program-order`: a kernel over a 2-D grid whose tiles are read along one program axis
//! and written along the other (a transpose) walks its grid in groups of `group-size` rows of
//! tiles: with `(x, y)` the hardware's program ids, `L = y * nx + x` the order the hardware starts
//! programs in, and `W = group-size * ny`,
//!
//! ```text
//! first = (L / W) * group-size;   size = min(nx - first, group-size)
//! program_id(0) = first + (L % W) % size;   program_id(1) = (L % W) / size
//! ```
//!
//! (the grouped order of Triton's matmul tutorials, over the whole grid). It is a bijection of
//! the grid for any extents, so every program still runs once; Triton promises no order among
//! programs. Where the grid has more than 2^32 programs in a plane the hardware ids are kept
//! (the 32-bit arithmetic would wrap); axis 2 is left as it is.
//!
//! Why: a transpose reads pieces of rows of X one tile wide and writes pieces of rows of Y one
//! tile wide. In the hardware's order the programs in flight together (about two thousand on an
//! H200) write whole rows of Y but only a few tile-wide pieces of each row of X, so the reads
//! touch many DRAM pages for little data each; in groups, both sides are read and written in
//! pieces of about the same length.
//!
//! A kernel is rewritten only when it plainly is such a grid: one public `tt.func`, program ids
//! along axes 0 and 1 both used, a global load or store whose pointer tensor is contiguous (axis
//! info) along a dimension that only program axis 0 moves and another one along a dimension that
//! only axis 1 moves; and none of: `tt.get_num_programs` (the kernel orders its own programs),
//! atomics, `tt.print`/`tt.assert` (they print program ids), inline assembly, calls, or a
//! `tritium.virtual_programs` kernel.

use crate::axis_info::AxisInfoAnalysis;
use crate::ir_util::*;
use crate::ttir::util::{At, erase, location, replace_uses, result};
use mlir_sys::*;
use std::collections::{BTreeSet, HashSet};
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::melior::ir::{OperationRef, operation::OperationLike};
use tritium_dialects::pass::{
    OptionKind, Options, PassDef, PassOption, PassResult, dialects, fail,
};

pub static PASS: PassDef = PassDef {
    argument: "tritium-program-order",
    summary: "Walk a transposing kernel's 2-D grid in groups of rows of tiles",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "group-size",
        description: "Rows of tiles (program_id(0) values) walked together, 1 to 4096",
        kind: OptionKind::Int,
        default: "32",
    }],
    dependent_dialects: || vec![dialects::tt(), dialects::arith()],
    run,
};

/// Ops whose presence keeps a kernel's order (see the module documentation).
const BLOCKING_OPS: [&str; 8] = [
    "tt.get_num_programs",
    "tt.atomic_rmw",
    "tt.atomic_cas",
    "tt.print",
    "tt.assert",
    "tt.elementwise_inline_asm",
    "tt.call",
    "ttg.global_scratch_alloc",
];

fn run(module: OperationRef, options: &Options) -> PassResult {
    let group = options.int("group-size");
    if !(1..=4096).contains(&group) {
        return Err(fail(
            module.location(),
            &format!("tritium-program-order: group-size must be 1 to 4096, got {group}"),
        ));
    }
    let module = module.to_raw();
    let Some(&top) = blocks_of(module).first() else {
        return Ok(());
    };
    for func in block_ops(top) {
        if op_name(func) == "tt.func" && why_left_alone(func).is_none() {
            renumber(func, group);
        }
    }
    Ok(())
}

/// Why `func` keeps the hardware's program order (`None`: it is rewritten).
pub fn why_left_alone(func: MlirOperation) -> Option<&'static str> {
    if string_attr(func, "sym_visibility").as_deref() == Some("private") {
        return Some("not a kernel (private)");
    }
    if crate::ttir::util::attr(func, crate::persistent_programs::VIRTUAL_PROGRAMS).is_some() {
        return Some("persistent programs");
    }
    let mut blocked = None;
    let mut axes = BTreeSet::new();
    let mut accesses = Vec::new();
    walk(func, &mut |op| {
        let name = op_name(op);
        if let Some(&b) = BLOCKING_OPS.iter().find(|&&b| b == name) {
            blocked.get_or_insert(b);
        }
        if name == "tt.get_program_id" {
            axes.insert(int_attr(op, "axis").unwrap_or(0));
        }
        if matches!(name.as_str(), "tt.load" | "tt.store") {
            accesses.push(operands(op)[0]);
        }
    });
    if blocked.is_some() {
        return blocked;
    }
    if !(axes.contains(&0) && axes.contains(&1)) {
        return Some("not a 2-D grid (program ids along axes 0 and 1)");
    }
    let analysis = AxisInfoAnalysis::run(func);
    let mut moved_by = HashSet::new();
    for ptr in accesses {
        if let Some(dim) = contiguous_dim(&analysis, ptr) {
            let moving = axes_moving(ptr, dim);
            if moving.len() == 1 {
                moved_by.extend(moving);
            }
        }
    }
    if !(moved_by.contains(&0) && moved_by.contains(&1)) {
        return Some("no access contiguous along each program axis (not a transpose)");
    }
    None
}

/// The dimension a tensor of pointers is most contiguous along, if it is contiguous at all and
/// that dimension is the only one with that contiguity.
fn contiguous_dim(analysis: &AxisInfoAnalysis, ptr: MlirValue) -> Option<usize> {
    let ty = value_type(ptr);
    if !is_tensor(ty) || shape(ty).len() < 2 {
        return None;
    }
    let contiguity = analysis.get(ptr).contiguity;
    let best = *contiguity.iter().max()?;
    let mut at = contiguity.iter().enumerate().filter(|&(_, &c)| c == best);
    match (best > 1, at.next(), at.next()) {
        (true, Some((dim, _)), None) => Some(dim),
        _ => None,
    }
}

/// The program axes whose ids move the values of `value` along dimension `dim`: those that reach
/// it through a 1-D tensor (`pid * BLOCK + make_range`) expanded into `dim`. A scalar splat
/// straight into a tensor of higher rank moves the whole tile along no one dimension and is
/// not followed; an op that changes rank otherwise (reshape, join, ...) stops the walk.
fn axes_moving(value: MlirValue, dim: usize) -> BTreeSet<i64> {
    let mut axes = BTreeSet::new();
    let mut tracked = vec![(value, dim)];
    let mut seen = HashSet::new();
    let mut scalars = Vec::new();
    while let Some((v, d)) = tracked.pop() {
        if !seen.insert((key(v), d)) {
            continue;
        }
        let Some(op) = defining_op(v) else {
            continue;
        };
        let rank = shape(value_type(v)).len();
        match op_name(op).as_str() {
            "tt.make_range" => {}
            "tt.expand_dims" => {
                let axis = int_attr(op, "axis").unwrap_or(0) as usize;
                if d != axis {
                    tracked.push((operands(op)[0], if d > axis { d - 1 } else { d }));
                }
            }
            "tt.broadcast" => {
                let src = operands(op)[0];
                if shape(value_type(src)).get(d).copied().unwrap_or(1) != 1 {
                    tracked.push((src, d));
                }
            }
            "tt.splat" => {
                if rank == 1 {
                    scalars.push(operands(op)[0]);
                }
            }
            "tt.trans" => {
                let order = crate::ttir::util::i32_array(op, "order").unwrap_or_default();
                if let Some(&from) = order.get(d) {
                    tracked.push((operands(op)[0], from as usize));
                }
            }
            _ => {
                for operand in operands(op) {
                    let ty = value_type(operand);
                    if is_tensor(ty) && shape(ty).len() == rank {
                        tracked.push((operand, d));
                    }
                }
            }
        }
    }
    // The program ids in the backward slices of the scalars that offset those ranges.
    let mut seen = HashSet::new();
    while let Some(v) = scalars.pop() {
        if !seen.insert(key(v)) {
            continue;
        }
        if let Some(op) = defining_op(v) {
            if op_name(op) == "tt.get_program_id" {
                axes.insert(int_attr(op, "axis").unwrap_or(0));
            }
            scalars.extend(operands(op));
        }
    }
    axes
}

/// The rewrite of the module documentation on an eligible kernel.
fn renumber(func: MlirOperation, group: i64) {
    let entry = blocks_of(func)[0];
    let Some(&first) = block_ops(entry).first() else {
        return;
    };
    let old_ids: Vec<MlirOperation> = collect_ops(func)
        .into_iter()
        .filter(|&op| op_name(op) == "tt.get_program_id")
        .collect();
    let loc = location(func);
    let ctx = context_of(func);
    let at = At::Before(first);
    // SAFETY: integer types of the function's live context.
    let (i32_type, i64_type) =
        unsafe { (mlirIntegerTypeGet(ctx, 32), mlirIntegerTypeGet(ctx, 64)) };
    let along =
        |name: &str, axis: i64| at.value(name, loc, &[], i32_type, &[("axis", ctx.i32_attr(axis))]);
    let x = along("tt.get_program_id", 0);
    let y = along("tt.get_program_id", 1);
    let nx = along("tt.get_num_programs", 0);
    let ny = along("tt.get_num_programs", 1);
    // Whether the plane's program count fits 32 bits (the renumbering's arithmetic).
    let wide = |v| at.value("arith.extui", loc, &[v], i64_type, &[]);
    let plane = at.binary("arith.muli", loc, wide(nx), wide(ny));
    let limit = at.int_constant(loc, i64_type, u32::MAX as i64);
    let fits = at.cmpi(loc, crate::ttir::util::CmpI::Ule, plane, limit);
    let group_size = at.int_constant(loc, i32_type, group);
    let launched = at.binary("arith.addi", loc, at.binary("arith.muli", loc, y, nx), x);
    let group_width = at.binary("arith.muli", loc, group_size, ny);
    let group_index = at.binary("arith.divui", loc, launched, group_width);
    let in_group = at.binary("arith.remui", loc, launched, group_width);
    let first_row = at.binary("arith.muli", loc, group_index, group_size);
    let rows_left = at.binary("arith.subi", loc, nx, first_row);
    let rows = at.binary("arith.minui", loc, rows_left, group_size);
    let row = at.binary(
        "arith.addi",
        loc,
        first_row,
        at.binary("arith.remui", loc, in_group, rows),
    );
    let column = at.binary("arith.divui", loc, in_group, rows);
    let select = |renumbered, hardware| {
        at.value(
            "arith.select",
            loc,
            &[fits, renumbered, hardware],
            i32_type,
            &[],
        )
    };
    let new_ids = [select(row, x), select(column, y)];
    for op in old_ids {
        let axis = int_attr(op, "axis").unwrap_or(0);
        if let Some(&id) = new_ids.get(axis as usize) {
            replace_uses(result(op, 0), id);
            erase(op);
        }
    }
}
