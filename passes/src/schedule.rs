//! The two passes before `-tritongpu-pipeline` in Triton's `make_ttgir`, which decide what the
//! pipeliner does and record it as attributes (so a test, or a user, can look at or override
//! the decision before the loop is rewritten):
//!
//! * `-tritongpu-assign-latencies{num-stages}`: in each innermost `scf.for`, every load the
//!   pipeliner can stage (a `tt.load` feeding dots through shared memory or `mma.sync` operands,
//!   with cp.async-sized accesses and addresses the loop can compute ahead; on sm_90 a
//!   `tt.descriptor_load` of a loop-invariant TMA descriptor staged for wgmma) gets
//!   `tt.latency = S - 1`, `S` the loop's `tt.num_stages` (from `tl.range(num_stages=...)`) or
//!   the option. A single accumulating `ttng.warp_group_dot` the pipeliner would keep in flight
//!   gets `tt.self_latency = 1`.
//! * `-tritongpu-schedule-loops`: a loop with latencies gets a coarse schedule: the loop's
//!   `tt.scheduled_max_stage` is its largest latency; a load of latency `L` and the ops of the
//!   body computing its address get `loop.stage = max - L` and `loop.cluster = 1`; every other
//!   op of the body `loop.stage = max` and `loop.cluster = 0` (consumers first, then the
//!   prefetch, as the pipelined body is laid out).
//!
//! `-tritongpu-pipeline` follows a schedule when there is one (`S = max + 1`, only the loads of
//! stages below `max` are staged) and removes these attributes.

use crate::axis_info::AxisInfoAnalysis;
use crate::ir_util::*;
use crate::ttir::util::{attr, remove_attr, set_attr};
use mlir_sys::*;
use std::collections::HashSet;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{OptionKind, Options, PassDef, PassOption, PassResult, dialects};

pub static ASSIGN_LATENCIES: PassDef = PassDef {
    argument: "tritongpu-assign-latencies",
    summary: "Mark the loads the pipeliner stages with their latency in iterations (tt.latency)",
    anchor: Some("builtin.module"),
    options: &[PassOption {
        name: "num-stages",
        description: "Stages of loops without tt.num_stages (latency = stages - 1; below 2 none)",
        kind: OptionKind::Int,
        default: "3",
    }],
    dependent_dialects: || vec![dialects::ttg()],
    run: run_assign_latencies,
};

pub static SCHEDULE_LOOPS: PassDef = PassDef {
    argument: "tritongpu-schedule-loops",
    summary: "Give loops with latencies a coarse schedule (loop.stage, loop.cluster)",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run: run_schedule_loops,
};

/// A load's latency in iterations.
pub const LATENCY: &str = "tt.latency";
/// An op's own latency (a wgmma left in flight into the next iteration).
pub const SELF_LATENCY: &str = "tt.self_latency";
/// The stage of an op of a scheduled loop body.
pub const STAGE: &str = "loop.stage";
/// The position of an op's cluster in the scheduled body.
pub const CLUSTER: &str = "loop.cluster";
/// The last stage of a scheduled loop.
pub const MAX_STAGE: &str = "tt.scheduled_max_stage";

/// The innermost `scf.for`s of `module` (no loop nested in them).
pub(crate) fn innermost_loops(module: MlirOperation) -> Vec<MlirOperation> {
    collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "scf.for")
        .filter(|op| {
            collect_ops(*op)
                .iter()
                .skip(1)
                .all(|inner| op_name(*inner) != "scf.for")
        })
        .collect()
}

/// The stages a loop is pipelined with: its schedule's (`tt.scheduled_max_stage + 1`), else its
/// `tt.num_stages`, else `default`; `None` below 2 (not pipelined).
pub(crate) fn loop_stages(for_op: MlirOperation, default: i64) -> Option<i64> {
    let stages = match int_attr(for_op, MAX_STAGE) {
        Some(max) => max + 1,
        None => int_attr(for_op, "tt.num_stages").unwrap_or(default),
    };
    (stages >= 2).then_some(stages)
}

/// Whether -tritongpu-schedule-loops scheduled `for_op`: then only the loads with a latency
/// are staged.
pub(crate) fn is_scheduled(for_op: MlirOperation) -> bool {
    attr(for_op, MAX_STAGE).is_some()
}

/// Whether a load of a scheduled loop is to be staged (it has a positive latency).
pub(crate) fn has_latency(load: MlirOperation) -> bool {
    int_attr(load, LATENCY).is_some_and(|l| l > 0)
}

/// Removes every schedule attribute from `op` and the ops nested in it (the pipeliner's
/// clones of scheduled ops, before and in the loop, included).
pub(crate) fn clear_schedule(op: MlirOperation) {
    for op in collect_ops(op) {
        for name in [MAX_STAGE, LATENCY, SELF_LATENCY, STAGE, CLUSTER] {
            remove_attr(op, name);
        }
    }
}

fn run_assign_latencies(module: OperationRef, options: &Options) -> PassResult {
    let default = options.int("num-stages");
    let module = module.to_raw();
    let axis = AxisInfoAnalysis::run(module);
    let tma = crate::pipeline_tma::enabled(module);
    for for_op in innermost_loops(module) {
        let Some(stages) = loop_stages(for_op, default) else {
            continue;
        };
        let mut loads = crate::pipeline::stageable_loads(for_op, &axis);
        if tma {
            loads.extend(crate::pipeline_tma::stageable_loads(for_op));
        }
        for &load in &loads {
            set_attr(load, LATENCY, context_of(load).i32_attr(stages - 1));
        }
        if !loads.is_empty()
            && let Some(dot) = crate::pipeline::dot_kept_in_flight(for_op, &loads)
        {
            set_attr(dot, SELF_LATENCY, context_of(dot).i32_attr(1));
        }
    }
    Ok(())
}

fn run_schedule_loops(module: OperationRef, _options: &Options) -> PassResult {
    for for_op in innermost_loops(module.to_raw()) {
        schedule_loop(for_op);
    }
    Ok(())
}

fn schedule_loop(for_op: MlirOperation) {
    let Some(&body) = blocks_of(for_op).first() else {
        return;
    };
    let ops = block_ops(body);
    let loads: Vec<(MlirOperation, i64)> = ops
        .iter()
        .filter_map(|&op| int_attr(op, LATENCY).filter(|&l| l > 0).map(|l| (op, l)))
        .collect();
    let Some(max) = loads.iter().map(|&(_, l)| l).max() else {
        return;
    };
    // The stage of each load's address computation: its load's (the earliest when shared).
    let mut early: Vec<(HashSet<usize>, i64)> = Vec::new();
    for &(load, latency) in &loads {
        let roots: Vec<MlirValue> = operands(load);
        let mut ops_of_load: HashSet<usize> = HashSet::from([load.ptr as usize]);
        if let Some(slice) = crate::pipeline::slice_with(body, for_op, &roots, true) {
            ops_of_load.extend(slice.ops.iter().map(|op| op.ptr as usize));
        }
        early.push((ops_of_load, max - latency));
    }
    set_attr(for_op, MAX_STAGE, context_of(for_op).i32_attr(max));
    for op in ops {
        if op_name(op) == "scf.yield" {
            continue;
        }
        let stage = early
            .iter()
            .filter(|(set, _)| set.contains(&(op.ptr as usize)))
            .map(|&(_, stage)| stage)
            .min();
        let (stage, cluster) = match stage {
            Some(stage) => (stage, 1),
            None => (max, 0),
        };
        set_attr(op, STAGE, context_of(op).i32_attr(stage));
        set_attr(op, CLUSTER, context_of(op).i32_attr(cluster));
    }
}
