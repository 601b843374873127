//! `-tritongpu-prefetch`: in an `scf.for` whose single `tt.dot` accumulates in an `mma.sync`
//! layout (`#ttg.nvidia_mma` version 2) and reads both operands from shared buffers the loop
//! carries — `ttg.local_load` of an iter-arg memdesc, possibly through single-use casts
//! (`tt.fp_to_fp`, `arith.extf`/`truncf`/`sitofp`/`uitofp`) — the first K slice of each operand
//! is read into registers one iteration early:
//!
//! * before the loop, the slice `[.., 0:W]` of A's initial buffer and `[0:W, ..]` of B's are
//!   loaded (and cast), and carried as new iter args;
//! * in the body, the dot becomes `K / W` dots chained through the accumulator: the first on the
//!   carried slices, the others on slices `k·W` read just before them;
//! * at the end of the body the first slices of the buffers yielded for the next iteration are
//!   loaded and yielded.
//!
//! `W` is 256 bits of the dot's operand elements (16 for f16/bf16, 32 for 8-bit types, 8 for
//! tf32); loops where `K` is not a multiple of it are left alone. The shared-memory reads of
//! the next iteration then overlap this iteration's tensor-core work. Pipelined loops read
//! their operands from a slot of a ring (`ttg.memdesc_index`), not from a carried buffer, and
//! are left alone (as Triton's pipeliner output is by its prefetch).

use crate::ir_util::*;
use crate::tma_lowering::At;
use crate::ttir::util::{erase, set_operands, terminator, with_shape};
use mlir_sys::*;
use tritium_dialects::build::{build, clone_with};
use tritium_dialects::ffi;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::Encoding;

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-prefetch",
    summary: "Read the next iteration's first K slice of mma.sync operands one iteration early",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// Casts an operand may go through between its shared-memory read and the dot.
const CASTS: [&str; 5] = [
    "tt.fp_to_fp",
    "arith.extf",
    "arith.truncf",
    "arith.sitofp",
    "arith.uitofp",
];

/// One operand's path from a carried buffer to the dot.
struct Operand {
    /// Iter-arg index of the buffer (block argument `index + 1`).
    index: usize,
    load: MlirOperation,
    /// The casts from the load to the dot, in order.
    casts: Vec<MlirOperation>,
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    for for_op in crate::schedule::innermost_loops(module.to_raw()) {
        if let Some((dot, a, b)) = candidate(for_op) {
            prefetch_loop(for_op, dot, &a, &b);
        }
    }
    Ok(())
}

/// The carried-buffer path of `value` (a dot operand) in `body`.
fn operand_path(value: MlirValue, body: MlirBlock) -> Option<Operand> {
    let mut casts = Vec::new();
    let mut v = value;
    loop {
        let def = defining_op(v)?;
        // SAFETY: block query on a live op.
        if unsafe { mlirOperationGetBlock(def).ptr } != body.ptr || use_count(v) != 1 {
            return None;
        }
        let name = op_name(def);
        if name == "ttg.local_load" {
            let src = *operands(def).first()?;
            // SAFETY: block-argument queries on a live value.
            let index = unsafe {
                if !mlirValueIsABlockArgument(src) || mlirBlockArgumentGetOwner(src).ptr != body.ptr
                {
                    return None;
                }
                mlirBlockArgumentGetArgNumber(src) as usize
            };
            casts.reverse();
            return (index > 0 && operands(def).len() == 1).then_some(Operand {
                index: index - 1,
                load: def,
                casts,
            });
        }
        if !CASTS.contains(&name.as_str()) {
            return None;
        }
        casts.push(def);
        v = operands(def)[0];
    }
}

fn candidate(for_op: MlirOperation) -> Option<(MlirOperation, Operand, Operand)> {
    let body = *blocks_of(for_op).first()?;
    let dots: Vec<MlirOperation> = block_ops(body)
        .into_iter()
        .filter(|&op| op_name(op) == "tt.dot")
        .collect();
    let [dot] = dots[..] else {
        return None;
    };
    let Some(Encoding::NvidiaMma(mma)) = encoding_of(value_type(results(dot)[0])) else {
        return None;
    };
    if mma.version_major != 2 {
        return None;
    }
    let ins = operands(dot);
    let a = operand_path(ins[0], body)?;
    let b = operand_path(ins[1], body)?;
    let (a_shape, bits) = (
        shape(value_type(ins[0])),
        element_bits(element_type(value_type(ins[0]))),
    );
    let k = *a_shape.last()?;
    let width = 256 / bits.max(1);
    (width > 0 && k >= width && k % width == 0 && a.index != b.index).then_some((dot, a, b))
}

fn element_bits(ty: MlirType) -> i64 {
    // SAFETY: type queries on a live type.
    unsafe {
        if mlirTypeIsAInteger(ty) {
            mlirIntegerTypeGetWidth(ty) as i64
        } else if mlirTypeIsAFloat(ty) {
            mlirFloatTypeGetWidth(ty) as i64
        } else {
            0
        }
    }
}

/// The view `[offsets, offsets + dims)` of `buffer` (a memdesc), as `ttg.memdesc_subslice`.
fn subslice(at: MlirOperation, buffer: MlirValue, offsets: &[i32], dims: &[i64]) -> MlirValue {
    let ty = value_type(buffer);
    // SAFETY: memdesc accessors on a live memdesc type (rank asked first, then filled); the new
    // type and attribute belong to its context; the op goes right before the live `at`.
    unsafe {
        let rank = ffi::ttg::tritiumMemDescTypeGetAllocShape(ty, std::ptr::null_mut(), 0).max(0);
        let mut alloc = vec![0i64; rank as usize];
        if rank > 0 {
            ffi::ttg::tritiumMemDescTypeGetAllocShape(ty, alloc.as_mut_ptr(), rank);
        }
        let view = ffi::ttg::tritiumMemDescTypeGet(
            ffi::ttg::tritiumMemDescTypeGetElementType(ty),
            dims.len() as isize,
            dims.as_ptr(),
            ffi::ttg::tritiumMemDescTypeGetEncoding(ty),
            ffi::ttg::tritiumMemDescTypeGetMemorySpace(ty),
            ffi::ttg::tritiumMemDescTypeIsMutable(ty),
            alloc.len() as isize,
            alloc.as_ptr(),
        );
        let ctx = mlirTypeGetContext(ty);
        let offsets_attr = mlirDenseI32ArrayGet(ctx, offsets.len() as isize, offsets.as_ptr());
        At::new(at).insert(build(
            "ttg.memdesc_subslice",
            mlirOperationGetLocation(at),
            &[buffer],
            &[view],
            &[("offsets", offsets_attr)],
        ))
    }
}

/// Slice `k` (of width `width` along K) of `operand`, read from `buffer` and cast as the dot
/// reads it, before `at`. `is_a`: K is the last dim (A), else the one before it (B).
fn read_slice(
    at: MlirOperation,
    operand: &Operand,
    buffer: MlirValue,
    is_a: bool,
    k: i64,
    width: i64,
) -> MlirValue {
    let loaded_type = value_type(results(operand.load)[0]);
    let mut dims = shape(loaded_type);
    let rank = dims.len();
    let k_dim = if is_a { rank - 1 } else { rank - 2 };
    dims[k_dim] = width;
    let mut offsets = vec![0i32; rank];
    offsets[k_dim] = (k * width) as i32;
    let view = subslice(at, buffer, &offsets, &dims);
    let mut value = At::new(at).insert(clone_with(
        operand.load,
        &[view],
        &[with_shape(loaded_type, &dims)],
    ));
    for &cast in &operand.casts {
        let ty = with_shape(value_type(results(cast)[0]), &dims);
        value = At::new(at).insert(clone_with(cast, &[value], &[ty]));
    }
    value
}

fn prefetch_loop(for_op: MlirOperation, dot: MlirOperation, a: &Operand, b: &Operand) {
    let body = blocks_of(for_op)[0];
    let ins = operands(dot);
    let k = *shape(value_type(ins[0])).last().expect("checked rank");
    let width = 256 / element_bits(element_type(value_type(ins[0])));
    let inits = operands(for_op)[3..].to_vec();
    let args = block_args(body);
    let yield_op = terminator(body);
    let yielded = operands(yield_op);

    // Before the loop: the first slices of the initial buffers.
    let a0 = read_slice(for_op, a, inits[a.index], true, 0, width);
    let b0 = read_slice(for_op, b, inits[b.index], false, 0, width);
    // SAFETY: new block arguments of the slices' types appended to the live body.
    let (a_arg, b_arg) = unsafe {
        let loc = mlirOperationGetLocation(for_op);
        (
            mlirBlockAddArgument(body, value_type(a0), loc),
            mlirBlockAddArgument(body, value_type(b0), loc),
        )
    };

    // The dot over K / W slices, the first from the carried registers.
    let result_type = value_type(results(dot)[0]);
    let mut acc = At::new(dot).insert(clone_with(dot, &[a_arg, b_arg, ins[2]], &[result_type]));
    for step in 1..k / width {
        let a_k = read_slice(dot, a, args[a.index + 1], true, step, width);
        let b_k = read_slice(dot, b, args[b.index + 1], false, step, width);
        acc = At::new(dot).insert(clone_with(dot, &[a_k, b_k, acc], &[result_type]));
    }
    // The next iteration's first slices, from the buffers it reads.
    let a_next = read_slice(yield_op, a, yielded[a.index], true, 0, width);
    let b_next = read_slice(yield_op, b, yielded[b.index], false, 0, width);
    // SAFETY: the dot's result and the new chain's are live values of one type.
    unsafe { mlirValueReplaceAllUsesOfWith(results(dot)[0], acc) };
    erase(dot);
    for operand in [a, b] {
        for &cast in operand.casts.iter().rev() {
            erase(cast);
        }
        erase(operand.load);
    }
    let mut new_yield = operands(yield_op);
    new_yield.extend([a_next, b_next]);
    set_operands(yield_op, &new_yield);
    let mut new_inits = inits;
    new_inits.extend([a0, b0]);
    crate::pipeline::replace_loop(for_op, &new_inits);
}
