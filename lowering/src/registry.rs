//! The one table of lowerings: TTGIR op name → the function that lowers it. Each function lives
//! in the file of its family under `ops/`; `to_llvm.rs` only looks ops up here.
//!
//! Adding the lowering of an op is one function in its family's file, one line here and one lit
//! test in `test/Conversion/` (see docs/lowering.md).
//!
//! Every lowering (and scratch function) runs on ops that MLIR's verifier accepted, ODS and the
//! dialect verifiers included: `compile` verifies the module after each stage, `triton-opt`
//! when it parses it and after each pass. So the fixed operands and results an op declares are
//! there, and lowerings index them directly (`o.ins[0]`, `o.outs[0]`, `ins[1]` of a `tt.store`)
//! without a check at each site. Variadic and optional operands and results (`tt.load`'s mask
//! and `other`, `scf.for`'s iter args, the operands of `tt.reduce`/`tt.scan`/`tt.print`, ...)
//! are read with `get`/`first` and a located error, or checked before they are indexed.

use crate::state::{FuncLowering, LResult};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The op being lowered, with its operands and results (in order; a verified op has all its
/// fixed ones, see the module docs).
pub struct OpLowering {
    pub op: MlirOperation,
    pub name: String,
    pub ins: Vec<MlirValue>,
    pub outs: Vec<MlirValue>,
}

pub type LowerFn = fn(&mut FuncLowering<'_>, &OpLowering) -> LResult<()>;

/// Elementwise `arith` and `math` ops lowered one register at a time (after their special
/// cases: f32 fast math, casts MLIR cannot convert, our f64 math functions).
const ELEMENTWISE: &[&str] = &[
    "arith.addf",
    "arith.addi",
    "arith.andi",
    "arith.bitcast",
    "arith.ceildivsi",
    "arith.ceildivui",
    "arith.cmpf",
    "arith.cmpi",
    "arith.divsi",
    "arith.divui",
    "arith.extsi",
    "arith.extui",
    "arith.floordivsi",
    "arith.index_cast",
    "arith.index_castui",
    "arith.maximumf",
    "arith.maxnumf",
    "arith.maxsi",
    "arith.maxui",
    "arith.minimumf",
    "arith.minnumf",
    "arith.minsi",
    "arith.minui",
    "arith.mulf",
    "arith.muli",
    "arith.mulhisi",
    "arith.mulhiui",
    "arith.negf",
    "arith.ori",
    "arith.remf",
    "arith.remsi",
    "arith.remui",
    "arith.select",
    "arith.shli",
    "arith.shrsi",
    "arith.shrui",
    "arith.subf",
    "arith.subi",
    "arith.trunci",
    "arith.xori",
    "math.absf",
    "math.absi",
    "math.ceil",
    "math.copysign",
    "math.ctlz",
    "math.ctpop",
    "math.cttz",
    "math.floor",
    "math.fma",
    "math.round",
    "math.roundeven",
    "math.sqrt",
    "math.trunc",
];

/// Math ops with an f32 fast path (approximate PTX, as Triton) and, in f64, our own algorithms.
const MATH_FUNCTIONS: &[&str] = &[
    "math.acos",
    "math.acosh",
    "math.asin",
    "math.asinh",
    "math.atan",
    "math.atan2",
    "math.atanh",
    "math.cbrt",
    "math.cos",
    "math.cosh",
    "math.erf",
    "math.erfc",
    "math.exp",
    "math.exp2",
    "math.expm1",
    "math.log",
    "math.log10",
    "math.log1p",
    "math.log2",
    "math.powf",
    "math.rsqrt",
    "math.sin",
    "math.sinh",
    "math.tan",
    "math.tanh",
    "arith.divf",
];

const FLOAT_CASTS: &[&str] = &[
    "arith.extf",
    "arith.truncf",
    "arith.sitofp",
    "arith.uitofp",
    "arith.fptosi",
    "arith.fptoui",
];

const DATA_MOVEMENT: &[&str] = &[
    "tt.broadcast",
    "tt.expand_dims",
    "tt.reshape",
    "tt.trans",
    "tt.join",
    "tt.split",
    "tt.cat",
    "tt.unsplat",
];

fn table() -> Vec<(&'static str, LowerFn)> {
    let mut t: Vec<(&'static str, LowerFn)> = vec![
        // ops/program.rs: program ids, ranges, splats, pointer arithmetic.
        ("tt.get_program_id", |l, o| l.lower_program_id(o)),
        ("tt.get_num_programs", |l, o| l.lower_program_id(o)),
        ("tt.make_range", |l, o| l.lower_make_range(o)),
        ("tt.splat", |l, o| l.lower_splat(o)),
        ("ub.poison", |l, o| l.lower_poison(o)),
        ("tt.addptr", |l, o| l.lower_addptr(o)),
        // ops/elementwise.rs
        ("arith.constant", |l, o| l.lower_constant(o.op, &o.outs)),
        // ops/control.rs
        ("tt.return", |l, o| l.lower_return(o)),
        ("scf.for", |l, o| l.lower_for(o.op, &o.ins, &o.outs)),
        ("scf.if", |l, o| l.lower_if(o.op, &o.ins, &o.outs)),
        ("scf.while", |l, o| l.lower_while(o.op, &o.ins, &o.outs)),
        // ops/memory.rs
        ("tt.load", |l, o| l.lower_load(o.op, &o.ins, &o.outs)),
        ("tt.store", |l, o| l.lower_store(o.op, &o.ins)),
        // ops/reduce.rs, ops/scan.rs, ops/gather.rs
        ("tt.reduce", |l, o| l.lower_reduce(o.op, &o.ins, &o.outs)),
        ("tt.scan", |l, o| l.lower_scan(o.op, &o.ins, &o.outs)),
        ("tt.gather", |l, o| l.lower_gather(o.op, &o.ins, &o.outs)),
        ("tt.histogram", |l, o| {
            l.lower_histogram(o.op, &o.ins, &o.outs)
        }),
        // ops/movement.rs
        ("ttg.convert_layout", |l, o| {
            l.lower_movement(o.op, &o.name, &o.ins, &o.outs)
        }),
        // ops/dot.rs
        ("tt.dot", |l, o| l.lower_dot(o.op, &o.ins, &o.outs)),
        // ops/async_copy.rs
        ("ttg.async_copy_global_to_local", |l, o| {
            l.lower_async_copy(o.op, &o.ins, &o.outs)
        }),
        ("ttg.async_commit_group", |l, o| {
            l.lower_async_commit(&o.outs)
        }),
        ("ttg.async_wait", |l, o| l.lower_async_wait(o.op, &o.outs)),
        // ops/wgmma.rs
        ("ttng.warp_group_dot", |l, o| {
            l.lower_warp_group_dot(o.op, &o.ins, &o.outs)
        }),
        ("ttng.warp_group_dot_wait", |l, o| {
            l.lower_warp_group_dot_wait(o.op, &o.ins, &o.outs)
        }),
        ("ttng.fence_async_shared", |l, o| {
            l.lower_fence_async_shared(o.op)
        }),
        // ops/local.rs
        ("ttg.local_alloc", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("ttg.local_store", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("ttg.local_load", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("ttg.local_dealloc", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("ttg.memdesc_index", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("ttg.memdesc_subslice", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("ttg.memdesc_trans", |l, o| {
            l.lower_local(o.op, &o.name, &o.ins, &o.outs)
        }),
        // ops/math_ops.rs
        ("tt.precise_sqrt", |l, o| {
            l.lower_precise(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("tt.precise_divf", |l, o| {
            l.lower_precise(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("tt.mulhiui", |l, o| {
            l.lower_precise(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("tt.clampf", |l, o| l.lower_clampf(o.op, &o.ins, &o.outs)),
        ("tt.extern_elementwise", |l, o| {
            l.lower_extern(o.op, &o.ins, &o.outs)
        }),
        ("tt.elementwise_inline_asm", |l, o| {
            l.lower_inline_asm(o.op, &o.ins, &o.outs)
        }),
        // ops/atomics.rs
        ("tt.atomic_rmw", |l, o| {
            l.lower_atomic(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("tt.atomic_cas", |l, o| {
            l.lower_atomic(o.op, &o.name, &o.ins, &o.outs)
        }),
        // ops/debug.rs
        ("tt.print", |l, o| l.lower_print(o.op, &o.ins)),
        ("tt.assert", |l, o| l.lower_assert(o.op, &o.ins)),
        ("gpu.barrier", |l, _| l.lower_barrier()),
        ("llvm.intr.assume", |l, o| l.lower_assume(o.op, &o.ins)),
        // ops/descriptor.rs
        ("tt.make_tensor_descriptor", |l, o| {
            l.lower_make_descriptor(o.op, &o.ins, &o.outs)
        }),
        ("tt.descriptor_load", |l, o| {
            l.lower_descriptor_load(o.op, &o.ins, &o.outs)
        }),
        ("tt.descriptor_store", |l, o| {
            l.lower_descriptor_store(o.op, &o.ins, false)
        }),
        ("tt.descriptor_reduce", |l, o| {
            l.lower_descriptor_store(o.op, &o.ins, true)
        }),
        // ops/tma.rs
        ("ttng.init_barrier", |l, o| l.lower_init_barrier(o)),
        ("ttng.inval_barrier", |l, o| l.lower_inval_barrier(o)),
        ("ttng.barrier_expect", |l, o| l.lower_barrier_expect(o)),
        ("ttng.arrive_barrier", |l, o| l.lower_arrive_barrier(o)),
        ("ttng.wait_barrier", |l, o| l.lower_wait_barrier(o)),
        ("ttng.async_tma_copy_global_to_local", |l, o| {
            l.lower_tma_load(o)
        }),
        ("ttng.async_tma_copy_local_to_global", |l, o| {
            l.lower_tma_store(o, false)
        }),
        ("ttng.async_tma_reduce", |l, o| l.lower_tma_store(o, true)),
        ("ttng.async_tma_store_wait", |l, o| {
            l.lower_tma_store_wait(o)
        }),
        ("ttng.tensormap_create", |l, o| l.lower_tensormap_create(o)),
        ("ttng.tensormap_fenceproxy_acquire", |l, o| {
            l.lower_tensormap_fence_acquire(o)
        }),
        ("ttng.reinterpret_tensor_descriptor", |l, o| {
            l.lower_reinterpret_descriptor(o)
        }),
        ("ttg.global_scratch_alloc", |l, o| {
            l.lower_global_scratch_alloc(o)
        }),
        // ops/casts.rs
        ("tt.fp_to_fp", |l, o| {
            l.lower_float_cast(o.op, &o.name, &o.ins, &o.outs)
        }),
        ("tt.bitcast", |l, o| l.lower_bitcast(o)),
        ("tt.int_to_ptr", |l, o| l.lower_bitcast(o)),
        ("tt.ptr_to_int", |l, o| l.lower_bitcast(o)),
    ];
    for name in DATA_MOVEMENT {
        t.push((name, |l, o| {
            l.lower_movement(o.op, &o.name, &o.ins, &o.outs)
        }));
    }
    for name in FLOAT_CASTS {
        t.push((name, |l, o| l.lower_arith_cast(o)));
    }
    for name in MATH_FUNCTIONS {
        t.push((name, |l, o| l.lower_math_function(o)));
    }
    for name in ELEMENTWISE {
        t.push((name, |l, o| {
            l.lower_elementwise(o.op, &o.name, &o.ins, &o.outs)
        }));
    }
    t
}

static LOWERINGS: LazyLock<HashMap<&'static str, LowerFn>> =
    LazyLock::new(|| table().into_iter().collect());

/// The lowering of an op, if there is one.
pub fn lowering_of(name: &str) -> Option<LowerFn> {
    LOWERINGS.get(name).copied()
}

/// The shared-memory scratch an op needs, in bytes, from its types and layouts alone (the
/// lowering reserves exactly this; `-allocate-shared-memory` places it).
pub type ScratchFn = fn(MlirOperation) -> LResult<u64>;

fn scratch_table() -> Vec<(&'static str, ScratchFn)> {
    use crate::ops::*;
    let mut t: Vec<(&'static str, ScratchFn)> = vec![
        ("tt.atomic_rmw", atomics::atomic_scratch),
        ("tt.atomic_cas", atomics::atomic_scratch),
        ("tt.dot", dot::dot_scratch),
        ("tt.gather", gather::gather_scratch),
        ("tt.histogram", gather::histogram_scratch),
        ("ttg.local_alloc", local::local_alloc_scratch),
        ("tt.reduce", reduce::reduce_scratch),
        ("tt.scan", scan::scan_scratch),
        ("ttg.convert_layout", movement::movement_scratch),
        ("ttng.tensormap_create", tma::tensormap_scratch),
    ];
    for name in DATA_MOVEMENT {
        t.push((name, movement::movement_scratch));
    }
    t
}

static SCRATCH: LazyLock<HashMap<&'static str, ScratchFn>> =
    LazyLock::new(|| scratch_table().into_iter().collect());

/// How an op's shared-memory scratch is sized, if it uses any.
pub fn scratch_of(name: &str) -> Option<ScratchFn> {
    SCRATCH.get(name).copied()
}

/// Every op name the lowering handles, sorted (for docs and tests).
pub fn lowered_ops() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = LOWERINGS.keys().copied().collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_op_has_one_lowering() {
        let table = super::table();
        let mut names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "an op is listed twice");
        assert!(names.contains(&"tt.load") && names.contains(&"arith.addf"));
    }
}
