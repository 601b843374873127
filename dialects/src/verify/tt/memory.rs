//! Pointers, loads and stores, atomics, block pointers and tensor descriptors.

use super::util::*;
use crate::ir::{as_pointer, as_tensor_desc, i32_array_attr};
use melior::ir::{OperationRef, Type, operation::OperationLike};

/// Rejects tensors of block pointers and returns the scalar pointee of a pointer (tensor).
fn element_pointee<'c>(ptr: Type<'c>, what: &str) -> Result<Type<'c>, String> {
    let pointee = pointee_elem(ptr)
        .ok_or_else(|| format!("requires {what} to be a pointer, but found {}", show(ptr)))?;
    ensure(!is_tensor(pointee), || {
        format!(
            "requires {what} to point to scalars, but found {} (block pointers take tt.advance/boundaryCheck)",
            show(ptr)
        )
    })?;
    Ok(pointee)
}

/// `tt.addptr`: pointers advanced by integer offsets of the same shape and encoding.
pub fn addptr(op: &OperationRef) -> Rule {
    let (ptr, offset, res) = (operand(op, 0)?, operand(op, 1)?, result(op, 0)?);
    element_pointee(ptr, "the pointer operand")?;
    shapes_agree(&[ptr, offset, res], "pointer, offset and result")?;
    encodings_agree(&[ptr, offset, res], "pointer, offset and result")
}

/// The block type of a block pointer.
fn block_of<'c>(ptr: Type<'c>) -> Result<Type<'c>, String> {
    as_pointer(ptr)
        .map(|(pointee, _)| pointee)
        .filter(|pointee| is_tensor(*pointee))
        .ok_or_else(|| format!("expected a block pointer, but found {}", show(ptr)))
}

/// `tt.advance`: one offset per dimension of the block.
pub fn advance(op: &OperationRef) -> Rule {
    let rank = shape(block_of(operand(op, 0)?)?).len();
    let offsets = op.operand_count() - 1;
    ensure(offsets == rank, || {
        format!("requires {rank} offsets (one per block dimension), but found {offsets}")
    })
}

/// `tt.make_tensor_ptr`: shape, strides and offsets have one entry per block dimension and
/// `order` is a permutation of the dimensions.
pub fn make_tensor_ptr(op: &OperationRef) -> Rule {
    let rank = shape(block_of(result(op, 0)?)?).len();
    let per_group = (op.operand_count() - 1) / 3;
    ensure(per_group == rank, || {
        format!(
            "requires {rank} shape, stride and offset values (the block rank), but found {per_group} of each"
        )
    })?;
    let order = i32_array_attr(op, "order").unwrap_or_default();
    ensure(is_permutation(&order, rank), || {
        format!("requires order to be a permutation of 0..{rank}, but found {order:?}")
    })
}

/// `boundaryCheck` holds distinct dimensions of the block.
fn check_boundary(op: &OperationRef, rank: usize) -> Rule {
    let dims = i32_array_attr(op, "boundaryCheck").unwrap_or_default();
    let mut seen = vec![false; rank];
    for dim in &dims {
        ensure(*dim >= 0 && (*dim as usize) < rank, || {
            format!("requires boundaryCheck dimensions in [0, {rank}), but found {dim}")
        })?;
        ensure(!std::mem::replace(&mut seen[*dim as usize], true), || {
            format!("requires distinct boundaryCheck dimensions, but {dim} repeats")
        })?;
    }
    Ok(())
}

/// `tt.load`: block pointers take boundaryCheck/padding, other pointers take mask/other.
pub fn load(op: &OperationRef) -> Rule {
    let ptr = operand(op, 0)?;
    let sizes = segments(op, 3).unwrap_or_else(|| {
        let count = op.operand_count();
        vec![1, usize::from(count > 1), usize::from(count > 2)]
    });
    let (has_mask, has_other) = (sizes[1] > 0, sizes[2] > 0);
    ensure(!has_other || has_mask, || {
        "takes `other` only together with a mask".into()
    })?;
    if is_block_pointer(ptr) {
        ensure(!has_mask, || {
            "cannot take a mask or `other` with a block pointer; use boundaryCheck and padding"
                .into()
        })?;
        check_boundary(op, shape(block_of(ptr)?).len())
    } else {
        element_pointee(ptr, "the pointer operand")?;
        ensure(
            i32_array_attr(op, "boundaryCheck")
                .unwrap_or_default()
                .is_empty(),
            || "takes boundaryCheck only with a block pointer".into(),
        )?;
        ensure(op.attribute("padding").is_err(), || {
            "takes padding only with a block pointer".into()
        })
    }
}

/// `tt.store`: block pointers take boundaryCheck, other pointers take a mask.
pub fn store(op: &OperationRef) -> Rule {
    let ptr = operand(op, 0)?;
    if is_block_pointer(ptr) {
        ensure(op.operand_count() == 2, || {
            "cannot take a mask with a block pointer; use boundaryCheck".into()
        })?;
        check_boundary(op, shape(block_of(ptr)?).len())
    } else {
        element_pointee(ptr, "the pointer operand")?;
        ensure(
            i32_array_attr(op, "boundaryCheck")
                .unwrap_or_default()
                .is_empty(),
            || "takes boundaryCheck only with a block pointer".into(),
        )
    }
}

/// The value of an atomic has the pointer's shape and pointee type.
fn check_pointee_value<'c>(ptr: Type<'c>, value: Type<'c>, what: &str) -> Result<Type<'c>, String> {
    let pointee = element_pointee(ptr, "the pointer operand")?;
    ensure(
        shape(ptr) == shape(value) && is_tensor(ptr) == is_tensor(value),
        || {
            format!(
                "requires {what} to have the pointer's shape, but found {} for {}",
                show(value),
                show(ptr)
            )
        },
    )?;
    ensure(elem(value) == pointee, || {
        format!(
            "requires {what} elements to be the pointee type {}, but found {}",
            show(pointee),
            show(value)
        )
    })?;
    Ok(pointee)
}

/// `RMWOp` case values of `tt.atomic_rmw`.
const RMW_NAMES: [&str; 11] = [
    "?", "and", "or", "xor", "add", "fadd", "max", "min", "umax", "umin", "exch",
];

/// `tt.atomic_rmw`: value and result of the pointee type; the operation fits the element type.
pub fn atomic_rmw(op: &OperationRef) -> Rule {
    let (ptr, val, res) = (operand(op, 0)?, operand(op, 1)?, result(op, 0)?);
    let mut types = vec![ptr, val, res];
    if op.operand_count() > 2 {
        types.push(operand(op, 2)?);
    }
    encodings_agree(&types, "pointer, value, mask and result")?;
    let element = check_pointee_value(ptr, val, "the value")?;
    ensure(res == val, || {
        format!(
            "requires the result type {} to be the value type {}",
            show(res),
            show(val)
        )
    })?;
    let kind = int_or(op, "atomic_rmw_op", 0);
    let name = RMW_NAMES.get(kind as usize).copied().unwrap_or("?");
    let bits = width(element).unwrap_or(0);
    match name {
        "fadd" => ensure(is_float(element) && bits >= 16, || {
            format!(
                "fadd requires f16, bf16, f32 or f64 elements, but found {}",
                show(element)
            )
        }),
        "max" | "min" if is_float(element) => ensure(bits >= 16, || {
            format!(
                "{name} requires f16, bf16, f32 or f64 float elements, but found {}",
                show(element)
            )
        }),
        "and" | "or" | "xor" | "add" | "max" | "min" | "umax" | "umin" => {
            ensure(is_int(element) && (bits == 32 || bits == 64), || {
                format!(
                    "{name} requires i32 or i64 elements, but found {}",
                    show(element)
                )
            })
        }
        "exch" => ensure(
            (is_int(element) || is_float(element)) && (bits == 32 || bits == 64),
            || {
                format!(
                    "exch requires 32- or 64-bit integer or float elements, but found {}",
                    show(element)
                )
            },
        ),
        _ => Err(format!("has an unknown atomic_rmw_op {kind}")),
    }
}

/// `tt.atomic_cas`: compare value, new value and result of the pointee type, 16/32/64 bits wide.
pub fn atomic_cas(op: &OperationRef) -> Rule {
    let (ptr, cmp, val, res) = (
        operand(op, 0)?,
        operand(op, 1)?,
        operand(op, 2)?,
        result(op, 0)?,
    );
    encodings_agree(
        &[ptr, cmp, val, res],
        "pointer, compare value, value and result",
    )?;
    let element = check_pointee_value(ptr, val, "the value")?;
    ensure(cmp == val && res == val, || {
        format!(
            "requires the compare value, value and result to have one type, but found {}, {} and {}",
            show(cmp),
            show(val),
            show(res)
        )
    })?;
    let bits = width(element).unwrap_or(0);
    ensure(!is_pointer(element) && matches!(bits, 16 | 32 | 64), || {
        format!(
            "requires 16-, 32- or 64-bit integer or float elements, but found {}",
            show(element)
        )
    })
}

/// The block type of a tensor descriptor.
fn desc_block<'c>(desc: Type<'c>) -> Result<Type<'c>, String> {
    as_tensor_desc(desc)
        .ok_or_else(|| format!("expected a tensor descriptor, but found {}", show(desc)))
}

/// `tt.make_tensor_descriptor`: one shape and stride per block dimension (1 to 5), the base points
/// to the block's element type, NaN padding only for floats.
pub fn make_tensor_descriptor(op: &OperationRef) -> Rule {
    let (base, block) = (operand(op, 0)?, desc_block(result(op, 0)?)?);
    let rank = shape(block).len();
    ensure((1..=5).contains(&rank), || {
        format!("requires a block of rank 1 to 5, but found rank {rank}")
    })?;
    let per_group = (op.operand_count() - 1) / 2;
    ensure(per_group == rank, || {
        format!(
            "requires {rank} shape and stride values (the block rank), but found {per_group} of each"
        )
    })?;
    let pointee = as_pointer(base).map(|(pointee, _)| pointee);
    ensure(pointee == Some(elem(block)), || {
        format!(
            "requires the base to point to the block element type {}, but found {}",
            show(elem(block)),
            show(base)
        )
    })?;
    ensure(
        int_or(op, "padding", 1) != 2 || is_float(elem(block)),
        || {
            format!(
                "takes NaN padding only for float blocks, but the block is {}",
                show(block)
            )
        },
    )
}

/// A loaded/stored tensor matches the descriptor block; leading unit dimensions of the block may be
/// dropped.
fn check_block_tensor(block: Type, tensor: Type, what: &str) -> Rule {
    let (block_shape, tensor_shape) = (shape(block), shape(tensor));
    let mismatch = || {
        format!(
            "requires {what} {} to match the descriptor block {}",
            show(tensor),
            show(block)
        )
    };
    ensure(tensor_shape.len() <= block_shape.len(), mismatch)?;
    let dropped = block_shape.len() - tensor_shape.len();
    ensure(block_shape[..dropped].iter().all(|&dim| dim == 1), mismatch)?;
    ensure(
        block_shape[dropped..] == tensor_shape[..] && elem(block) == elem(tensor),
        mismatch,
    )
}

/// `DescriptorReduceKind` case values.
const REDUCE_NAMES: [&str; 9] = [
    "none", "add", "min", "max", "inc", "dec", "and", "or", "xor",
];

/// `tt.descriptor_load/store/reduce`: one index per block dimension; the tensor matches the block.
pub fn descriptor_block_access(name: &str, op: &OperationRef) -> Rule {
    let block = desc_block(operand(op, 0)?)?;
    let rank = shape(block).len();
    let (tensor, indices, what) = match name {
        "descriptor_load" => (result(op, 0)?, op.operand_count() - 1, "the result"),
        _ => (operand(op, 1)?, op.operand_count() - 2, "the source"),
    };
    ensure(indices == rank, || {
        format!("requires {rank} indices (the block rank), but found {indices}")
    })?;
    check_block_tensor(block, tensor, what)?;
    if name == "descriptor_reduce" {
        let kind = int_or(op, "kind", 0);
        let kind_name = REDUCE_NAMES.get(kind as usize).copied().unwrap_or("?");
        let element = elem(block);
        match kind_name {
            "add" | "min" | "max" => Ok(()),
            "inc" | "dec" | "and" | "or" | "xor" => ensure(is_int(element), || {
                format!(
                    "{kind_name} requires integer elements, but found {}",
                    show(element)
                )
            }),
            _ => Err(format!("requires a reduction kind, but found {kind_name}")),
        }?;
    }
    Ok(())
}

/// `tt.descriptor_gather/scatter`: rows `x_offsets` of a 1xN block: a `len(x_offsets)`xN tensor.
pub fn descriptor_rows_access(name: &str, op: &OperationRef) -> Rule {
    let block = desc_block(operand(op, 0)?)?;
    let offsets = operand(op, 1)?;
    let tensor = if name == "descriptor_gather" {
        result(op, 0)?
    } else {
        operand(op, 3)?
    };
    let (block_shape, offsets_shape, tensor_shape) = (shape(block), shape(offsets), shape(tensor));
    ensure(block_shape.len() == 2 && block_shape[0] == 1, || {
        format!(
            "requires a descriptor block of one row (1xN), but found {}",
            show(block)
        )
    })?;
    ensure(offsets_shape.len() == 1, || {
        format!("requires 1-D x offsets, but found {}", show(offsets))
    })?;
    ensure(tensor_shape.len() == 2, || {
        format!("requires a 2-D tensor, but found {}", show(tensor))
    })?;
    ensure(tensor_shape[0] == offsets_shape[0], || {
        format!(
            "requires one tensor row per x offset ({}), but found {}",
            offsets_shape[0],
            show(tensor)
        )
    })?;
    ensure(tensor_shape[1] == block_shape[1], || {
        format!(
            "requires the tensor to have the block's {} columns, but found {}",
            block_shape[1],
            show(tensor)
        )
    })?;
    ensure(elem(tensor) == elem(block), || {
        format!(
            "requires the tensor elements to be the block's {}, but found {}",
            show(elem(block)),
            show(tensor)
        )
    })
}
