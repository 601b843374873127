//! `-tritongpu-coalesce`: gives each global load and store the blocked layout that makes its
//! accesses coalesced and vectorized: threads own `vec` consecutive elements along the pointer's
//! most contiguous dimension, where `vec` is what axis info proves aligned and contiguous (up to
//! 16 bytes) — for a load, as in Triton, the largest such count among the accesses of the same
//! shape and order connected to it through values. Operands are converted to that layout and the result
//! converted back;
//! `-tritongpu-remove-layout-conversions` then propagates the layout.

use crate::axis_info::{AxisInfoAnalysis, pointee_bytes};
use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::Encoding;
use tritium_layout::heuristics::{
    coalesced_blocked, mem_access_elems_per_thread, order_from_contiguity,
};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-coalesce",
    summary: "Pick coalesced, vectorized layouts for global loads and stores",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// Warps and threads per warp recorded on the module.
pub fn module_warps(module: MlirOperation) -> (u32, u32) {
    (
        int_attr(module, "ttg.num-warps").unwrap_or(4) as u32,
        int_attr(module, "ttg.threads-per-warp").unwrap_or(32) as u32,
    )
}

/// The coalesced encoding for an access through `ptr`.
pub fn coalesced_encoding(
    analysis: &AxisInfoAnalysis,
    ptr: MlirValue,
    num_warps: u32,
    threads: u32,
) -> Option<Encoding> {
    let access = access_of(analysis, ptr)?;
    Some(Encoding::Blocked(coalesced_blocked(
        &access.dims,
        &access.order,
        access.per_thread,
        num_warps,
        threads,
    )))
}

/// What an access through a tensor of pointers can vectorize: its shape, the dims by
/// decreasing contiguity, and the elements a thread can move at once along the first.
struct Access {
    dims: Vec<u32>,
    order: Vec<u32>,
    per_thread: u32,
}

fn access_of(analysis: &AxisInfoAnalysis, ptr: MlirValue) -> Option<Access> {
    let ty = value_type(ptr);
    if !is_tensor(ty) {
        return None;
    }
    // The verifier bounds tensor dims with a layout by 2^24.
    let dims: Vec<u32> = shape(ty)
        .iter()
        .map(|&d| u32::try_from(d.max(1)).unwrap_or(u32::MAX))
        .collect();
    let info = analysis.get(ptr);
    if info.contiguity.len() != dims.len() || info.divisibility.len() != dims.len() {
        return None;
    }
    let order = order_from_contiguity(&info.contiguity);
    // `order` is a permutation of the dims, of which there is at least one (a ranked tensor's
    // axis info has one entry per dim, checked above).
    let fastest = *order.first()? as usize;
    let elem_bits = (pointee_bytes(ty) * 8) as u32;
    let per_thread = mem_access_elems_per_thread(
        elem_bits,
        info.divisibility[fastest],
        info.contiguity[fastest],
        dims[fastest],
    );
    Some(Access {
        dims,
        order,
        per_thread,
    })
}

/// The ops connected to `op` through values, in either direction, transitively: Triton's
/// multi-root slice (backward through operands' defining ops, block arguments not followed;
/// forward through results' users), the set whose memory accesses a load's width is shared with.
fn connected_slice(op: MlirOperation) -> std::collections::HashSet<usize> {
    let mut seen = std::collections::HashSet::from([op.ptr as usize]);
    let mut work = vec![op];
    while let Some(current) = work.pop() {
        let mut next: Vec<MlirOperation> = operands(current)
            .into_iter()
            .filter_map(defining_op)
            .collect();
        for result in results(current) {
            next.extend(crate::ir_util::users(result));
        }
        for other in next {
            if seen.insert(other.ptr as usize) {
                work.push(other);
            }
        }
    }
    seen
}

fn run(module_ref: OperationRef, _options: &Options) -> PassResult {
    let module = module_ref.to_raw();
    let ctx = context_of(module);
    let (num_warps, threads) = module_warps(module);
    let analysis = AxisInfoAnalysis::run(module);
    let ops = collect_ops(module);
    // ODS: loads and stores take the pointer first.
    let accesses: Vec<(MlirOperation, Access)> = ops
        .iter()
        .filter(|op| matches!(op_name(**op).as_str(), "tt.load" | "tt.store"))
        .filter_map(|&op| {
            let ptr = *operands(op).first()?;
            Some((op, access_of(&analysis, ptr)?))
        })
        .collect();
    // As Triton: a load moves as many elements per thread as the widest access of the same
    // shape and order connected to it (an f32 load feeding a bf16 store moves 8, like the
    // store, which then needs no conversion; the loads beside an i8 store move 8 too, so the
    // arithmetic between them runs in one layout); a store keeps its own count.
    let widest: Vec<u32> = accesses
        .iter()
        .map(|(op, a)| {
            if op_name(*op) != "tt.load" {
                return a.per_thread;
            }
            let connected = connected_slice(*op);
            accesses
                .iter()
                .filter(|(other, b)| {
                    b.dims == a.dims
                        && b.order == a.order
                        && connected.contains(&(other.ptr as usize))
                })
                .map(|(_, b)| b.per_thread)
                .fold(a.per_thread, u32::max)
        })
        .collect();
    for ((op, access), per_thread) in accesses.iter().zip(widest) {
        let (op, name) = (*op, op_name(*op));
        let ins = operands(op);
        let Some(&ptr) = ins.first() else {
            continue;
        };
        let encoding = Encoding::Blocked(coalesced_blocked(
            &access.dims,
            &access.order,
            per_thread,
            num_warps,
            threads,
        ));
        if encoding_of(value_type(ptr)).as_ref() == Some(&encoding) {
            continue;
        }
        tracing::debug!(op = name, ?encoding, "coalesce: new layout for the access");
        let attr = encoding_to_attr(ctx, &encoding);
        for (i, operand) in ins.iter().enumerate() {
            let ty = value_type(*operand);
            if is_tensor(ty) {
                let converted = insert_convert_before(op, *operand, with_encoding(ty, attr));
                // SAFETY: `op` is a live load or store, `i` one of its operand indices and
                // `converted` a live value.
                unsafe { mlirOperationSetOperand(op, i as isize, converted) };
            }
        }
        for result in results(op) {
            let old = value_type(result);
            // SAFETY: `result` is a live result of the load; the new type differs only in its
            // encoding.
            unsafe { mlirValueSetType(result, with_encoding(old, attr)) };
            convert_all_uses_after(result, old);
        }
    }
    Ok(())
}
