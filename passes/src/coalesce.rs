//! `-tritongpu-coalesce`: gives each global load and store the blocked layout that makes its
//! accesses coalesced and vectorized: threads own `vec` consecutive elements along the pointer's
//! most contiguous dimension, where `vec` is what axis info proves aligned and contiguous (up to
//! 16 bytes) — or, as in Triton, the largest such count among the accesses of the same shape
//! and order connected to it by SSA values. Operands are converted to that layout and the
//! result converted back;
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

/// Ops connected by SSA values (an op, its operands' producers, the ops owning the blocks it
/// is in), by union-find over op addresses: the slice Triton's coalescing looks through.
struct Components {
    parent: std::collections::HashMap<usize, usize>,
}

impl Components {
    fn find(&mut self, x: usize) -> usize {
        let mut root = x;
        while let Some(&p) = self.parent.get(&root) {
            if p == root {
                break;
            }
            root = p;
        }
        let mut node = x;
        while node != root {
            let next = self.parent.get(&node).copied().unwrap_or(root);
            self.parent.insert(node, root);
            node = next;
        }
        root
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }
    fn of(ops: &[MlirOperation]) -> Components {
        let mut c = Components {
            parent: ops
                .iter()
                .map(|o| (o.ptr as usize, o.ptr as usize))
                .collect(),
        };
        for &op in ops {
            for operand in operands(op) {
                // SAFETY: queries on live values: a block argument's owner block and its
                // parent op, or a result's producer.
                let source = unsafe {
                    if mlirValueIsABlockArgument(operand) {
                        mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(operand))
                    } else {
                        mlirOpResultGetOwner(operand)
                    }
                };
                if !source.ptr.is_null() && c.parent.contains_key(&(source.ptr as usize)) {
                    c.union(op.ptr as usize, source.ptr as usize);
                }
            }
        }
        c
    }
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
    // As Triton: a thread moves as many elements as the widest access of the same shape and
    // order connected to this one (an f32 load feeding a bf16 store moves 8, like the store),
    // so connected accesses share a layout instead of converting between two.
    let mut components = Components::of(&ops);
    let widest: Vec<u32> = accesses
        .iter()
        .map(|(op, a)| {
            let root = components.find(op.ptr as usize);
            accesses
                .iter()
                .filter(|(other, b)| {
                    b.dims == a.dims
                        && b.order == a.order
                        && components.find(other.ptr as usize) == root
                })
                .map(|(_, b)| b.per_thread)
                .max()
                .unwrap_or(a.per_thread)
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
