//! `-triton-rewrite-tensor-descriptor-to-pointer`: replaces tensor descriptors made in the
//! kernel by tensors of pointers and masks, for targets without TMA (Triton runs it in
//! `make_ttir` below sm_90; Tritium's lowering also takes descriptors per element, see
//! `lowering/src/ops/descriptor.rs`, so the pass is available under its flag but not in the
//! pipelines).
//!
//! `tt.make_tensor_descriptor %base, [shape], [strides]` is tracked as its base, shape (`i32`)
//! and strides (`i64`). At a `tt.descriptor_load %d[%i...]` the pass builds, per dimension `d`,
//! `idx_d = splat(i_d) + make_range(0, n_d)` expanded to the block's rank, the pointers
//! `splat(base) + Σ broadcast(extsi(idx_d) * stride_d)` and the mask `0 <= idx_d < shape_d` over
//! every dimension; the load takes `other` = zero (NaN for `padding = nan`). A rank-reduced
//! access (a `1x16x32` block as a `16x32` tensor) reshapes the block's pointers and mask to the
//! tensor's shape.
//! `tt.descriptor_store` becomes a masked `tt.store`, `tt.descriptor_reduce` a masked
//! `tt.atomic_rmw` (relaxed, gpu scope: add → `fadd` on floats, `min`/`max` → signed for
//! integers and floats alike as Triton, `and`/`or`/`xor`; `inc`/`dec` have no atomic and are
//! errors). A descriptor that is not made in the kernel (a kernel argument) or that flows into
//! anything but these accesses is an error at its use.

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::melior::ir::{OperationRef, operation::OperationLike};
use tritium_dialects::pass::{Options, PassDef, PassFailed, PassResult, dialects, fail};

pub static PASS: PassDef = PassDef {
    argument: "triton-rewrite-tensor-descriptor-to-pointer",
    summary: "Rewrite tensor descriptors (make_tensor_descriptor and its loads, stores, reductions) into tensors of pointers and masks",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith()],
    run,
};

/// What a descriptor stands for.
#[derive(Clone)]
struct Desc {
    base: MlirValue,
    shape: Vec<MlirValue>,
    strides: Vec<MlirValue>,
    /// `padding = nan`.
    nan: bool,
}

fn error(op: MlirOperation, message: &str) -> PassFailed {
    // SAFETY: `op` is a live operation of the module being rewritten.
    fail(unsafe { OperationRef::from_raw(op) }.location(), message)
}

fn is_descriptor(value: MlirValue) -> bool {
    // SAFETY: type query on a live type.
    unsafe { tritium_dialects::ffi::tritiumTypeIsTensorDesc(value_type(value)) }
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let ctx = context_of(module);
    let mut descs: HashMap<usize, Desc> = HashMap::new();
    let mut made = Vec::new();
    for op in collect_ops(module) {
        let name = op_name(op);
        match name.as_str() {
            "tt.make_tensor_descriptor" => {
                let ins = operands(op);
                let rank = (ins.len().saturating_sub(1)) / 2;
                descs.insert(
                    key(result(op, 0)),
                    Desc {
                        base: ins[0],
                        shape: ins[1..1 + rank].to_vec(),
                        strides: ins[1 + rank..1 + 2 * rank].to_vec(),
                        nan: int_attr(op, "padding") == Some(2),
                    },
                );
                made.push(op);
            }
            "tt.descriptor_load" | "tt.descriptor_store" | "tt.descriptor_reduce" => {
                let desc = operand(op, 0);
                let Some(info) = descs.get(&key(desc)).cloned() else {
                    return Err(error(
                        op,
                        "the descriptor is not made by tt.make_tensor_descriptor in this kernel",
                    ));
                };
                match name.as_str() {
                    "tt.descriptor_load" => load(ctx, op, &info),
                    _ => store(ctx, op, &info, name == "tt.descriptor_reduce")?,
                }
            }
            _ => {}
        }
    }
    for op in made.into_iter().rev() {
        if has_uses(result(op, 0)) {
            let user = users(result(op, 0))[0];
            return Err(error(
                user,
                "a tensor descriptor used other than by descriptor loads, stores and reductions",
            ));
        }
        erase(op);
    }
    let mut leftover = None;
    walk(module, &mut |op| {
        if leftover.is_none() && operands(op).into_iter().any(is_descriptor) {
            leftover = Some(op);
        }
    });
    match leftover {
        Some(op) => Err(error(op, "tensor descriptor left after rewriting")),
        None => Ok(()),
    }
}

fn int_type(ctx: MlirContext, bits: u32) -> MlirType {
    // SAFETY: a builtin type of the live context.
    unsafe { mlirIntegerTypeGet(ctx, bits) }
}

/// The pointers of the block at `indices` and its in-bounds mask, of the shape of `tensor`: the
/// block's, or the block's without leading unit dims (a rank-reduced access: both are built over
/// the block, then reshaped).
fn pointers_and_mask(
    ctx: MlirContext,
    op: MlirOperation,
    info: &Desc,
    indices: &[MlirValue],
    tensor: MlirType,
) -> (MlirValue, MlirValue) {
    let at = At::Before(op);
    let loc = location(op);
    // SAFETY: operand 0 of a descriptor access is a `!tt.tensordesc` (verified IR).
    let dims = shape(unsafe {
        tritium_dialects::ffi::tritiumTensorDescTypeGetBlockType(value_type(operand(op, 0)))
    });
    let block = with_shape(tensor, &dims);
    let rank = dims.len();
    let (i1, i32, i64) = (int_type(ctx, 1), int_type(ctx, 32), int_type(ctx, 64));
    let pointer = value_type(info.base);
    let pointers_type = with_element(block, pointer);
    let base = at.splat(loc, info.base, pointers_type);
    let mut sum: Option<MlirValue> = None;
    let mut mask: Option<MlirValue> = None;
    for (d, &n) in dims.iter().enumerate() {
        let line = tensor_of(&[n], i32);
        let start = at.splat(loc, indices[d], line);
        let range = at.insert(tritium_dialects::build::make_range(loc, 0, n as i32, line));
        let mut index = at.binary("arith.addi", loc, start, result(range, 0));
        let mut current = vec![n];
        for axis in (0..rank).filter(|axis| *axis != d) {
            current.insert(axis, 1);
            index = at.value(
                "tt.expand_dims",
                loc,
                &[index],
                tensor_of(&current, i32),
                &[("axis", ctx.i32_attr(axis as i64))],
            );
        }
        let small = tensor_of(&current, i32);
        let zero = at.int_constant(loc, small, 0);
        let lower = at.cmpi(loc, CmpI::Sge, index, zero);
        let bound = at.splat(loc, info.shape[d], small);
        let upper = at.cmpi(loc, CmpI::Slt, index, bound);
        let mut inside = at.binary("arith.andi", loc, lower, upper);
        let wide = at.value("arith.extsi", loc, &[index], tensor_of(&current, i64), &[]);
        let stride = at.splat(loc, info.strides[d], tensor_of(&current, i64));
        let mut scaled = at.binary("arith.muli", loc, wide, stride);
        if current != dims {
            scaled = at.value("tt.broadcast", loc, &[scaled], tensor_of(&dims, i64), &[]);
            inside = at.value("tt.broadcast", loc, &[inside], tensor_of(&dims, i1), &[]);
        }
        sum = Some(match sum {
            Some(total) => at.binary("arith.addi", loc, total, scaled),
            None => scaled,
        });
        mask = Some(match mask {
            Some(all) => at.binary("arith.andi", loc, all, inside),
            None => inside,
        });
    }
    let pointers = match sum {
        Some(sum) => at.value("tt.addptr", loc, &[base, sum], pointers_type, &[]),
        None => base,
    };
    // Rank 0 has no dims: everything is in bounds.
    let mask = mask.unwrap_or_else(|| at.int_constant(loc, i1, 1));
    let tile = shape(tensor);
    if tile == dims {
        return (pointers, mask);
    }
    // Rank-reduced: the leading unit dims dropped (the element order stays).
    let reshape = |value: MlirValue| {
        at.value(
            "tt.reshape",
            loc,
            &[value],
            with_shape(value_type(value), &tile),
            &[],
        )
    };
    (reshape(pointers), reshape(mask))
}

fn load(ctx: MlirContext, op: MlirOperation, info: &Desc) {
    let ins = operands(op);
    let out = result(op, 0);
    let ty = value_type(out);
    let (pointers, mask) = pointers_and_mask(ctx, op, info, &ins[1..], ty);
    let at = At::Before(op);
    let loc = location(op);
    // SAFETY: `element_type(ty)` is a live type.
    let value = if unsafe { mlirTypeIsAFloat(element_type(ty)) } {
        float_attr_of(ty, if info.nan { f64::NAN } else { 0.0 })
    } else {
        int_attr_of(ty, 0)
    };
    let other = at.constant(loc, value);
    let mut attrs = vec![("operandSegmentSizes", ctx.i32_array(&[1, 1, 1]))];
    for name in ["cache", "evict", "isVolatile"] {
        if let Some(value) = attr(op, name) {
            attrs.push((name, value));
        }
    }
    let new = at.value("tt.load", loc, &[pointers, mask, other], ty, &attrs);
    replace_uses(out, new);
    erase(op);
}

fn store(ctx: MlirContext, op: MlirOperation, info: &Desc, reduce: bool) -> Result<(), PassFailed> {
    let ins = operands(op);
    let value = ins[1];
    let ty = value_type(value);
    let at = At::Before(op);
    let loc = location(op);
    if reduce {
        // SAFETY: type query on a live type.
        let float = unsafe { mlirTypeIsAFloat(element_type(ty)) };
        let rmw = match (int_attr(op, "kind").unwrap_or(0), float) {
            (1, true) => 5,
            (1, false) => 4,
            (2, _) => 7,
            (3, _) => 6,
            (6, false) => 1,
            (7, false) => 2,
            (8, false) => 3,
            _ => {
                return Err(error(
                    op,
                    "this descriptor reduction has no atomic equivalent without TMA",
                ));
            }
        };
        let (pointers, mask) = pointers_and_mask(ctx, op, info, &ins[2..], ty);
        at.value(
            "tt.atomic_rmw",
            loc,
            &[pointers, value, mask],
            ty,
            &[
                ("atomic_rmw_op", ctx.i32_attr(rmw)),
                ("sem", ctx.i32_attr(1)),
                ("scope", ctx.i32_attr(1)),
            ],
        );
    } else {
        let (pointers, mask) = pointers_and_mask(ctx, op, info, &ins[2..], ty);
        let mut attrs = Vec::new();
        for name in ["cache", "evict"] {
            if let Some(value) = attr(op, name) {
                attrs.push((name, value));
            }
        }
        at.op("tt.store", loc, &[pointers, value, mask], &[], &attrs);
    }
    erase(op);
    Ok(())
}
