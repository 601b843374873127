//! Shape manipulation: splat, broadcast, expand_dims, reshape, trans, cat/join/split, ranges,
//! gathers and histograms.

use super::util::*;
use crate::ir::i32_array_attr;
use melior::ir::{OperationRef, Type, operation::OperationLike};

/// Source and result either both carry an encoding or both carry none (ops whose result encoding
/// is inferred by layout rules Tritium does not model).
fn encoding_presence(src: Type, res: Type) -> Rule {
    ensure(encoding(src).is_some() == encoding(res).is_some(), || {
        format!(
            "requires operand and result to both have an encoding or both have none, but found {} and {}",
            show(src),
            show(res)
        )
    })
}

fn same_element(src: Type, res: Type) -> Rule {
    ensure(elem(src) == elem(res), || {
        format!(
            "requires the result element type {} to be the operand's {}",
            show(elem(res)),
            show(elem(src))
        )
    })
}

/// `tt.splat`: a scalar broadcast to a tensor of that element type.
pub fn splat(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    ensure(!is_tensor(src), || {
        format!("requires a scalar operand, but found {}", show(src))
    })?;
    ensure(elem(res) == src, || {
        format!(
            "requires the result element type {} to be the operand type {}",
            show(elem(res)),
            show(src)
        )
    })
}

/// `tt.unsplat`: the element of a one-element tensor.
pub fn unsplat(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    ensure(numel(&shape(src)) == 1, || {
        format!("requires a one-element tensor, but found {}", show(src))
    })?;
    ensure(res == elem(src), || {
        format!(
            "requires the result type {} to be the operand element type {}",
            show(res),
            show(elem(src))
        )
    })
}

/// `tt.expand_dims`: a size-1 dimension inserted at `axis`; a sliced encoding becomes its parent.
pub fn expand_dims(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    let axis = int_or(op, "axis", -1);
    let mut expected = shape(src);
    ensure(axis >= 0 && axis as usize <= expected.len(), || {
        format!("requires axis in [0, {}], but found {axis}", expected.len())
    })?;
    same_element(src, res)?;
    expected.insert(axis as usize, 1);
    ensure(shape(res) == expected, || {
        format!(
            "requires result shape {}, but found {}",
            show_shape(&expected),
            show(res)
        )
    })?;
    check_slice_of(res, src, axis, "the operand")
}

/// `tt.reshape`: same element type and element count.
pub fn reshape(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    same_element(src, res)?;
    let (from, to) = (numel(&shape(src)), numel(&shape(res)));
    ensure(from == to, || {
        format!(
            "requires the same number of elements, but {} has {from} and {} has {to}",
            show(src),
            show(res)
        )
    })?;
    encoding_presence(src, res)
}

/// `tt.broadcast`: same rank; each dimension equal or broadcast from 1; same encoding.
pub fn broadcast(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    let (from, to) = (shape(src), shape(res));
    ensure(from.len() == to.len(), || {
        format!(
            "requires operand and result of the same rank, but found {} and {}",
            show(src),
            show(res)
        )
    })?;
    for (dim, (&a, &b)) in from.iter().zip(&to).enumerate() {
        ensure(a == b || a == 1, || {
            format!(
                "cannot broadcast dimension {dim} of size {a} to {b}: only size-1 dimensions broadcast"
            )
        })?;
    }
    encodings_agree(&[src, res], "operand and result")
}

/// `tt.cat`: the result stacks both operands along dimension 0.
pub fn cat(op: &OperationRef) -> Rule {
    let (lhs, rhs, res) = (operand(op, 0)?, operand(op, 1)?, result(op, 0)?);
    let (a, b, c) = (shape(lhs), shape(rhs), shape(res));
    ensure(c.len() == a.len(), || {
        format!(
            "requires a result of the operands' rank {}, but found {}",
            a.len(),
            show(res)
        )
    })?;
    let mut expected = a.clone();
    expected[0] = a[0] + b[0];
    ensure(c == expected, || {
        format!(
            "requires result shape {}, but found {}",
            show_shape(&expected),
            show(res)
        )
    })?;
    encoding_presence(lhs, res)
}

/// `tt.join`: the result has a new minor dimension of size 2.
pub fn join(op: &OperationRef) -> Rule {
    let (lhs, res) = (operand(op, 0)?, result(op, 0)?);
    same_element(lhs, res)?;
    let mut expected = shape(lhs);
    expected.push(2);
    ensure(shape(res) == expected, || {
        format!(
            "requires result shape {}, but found {}",
            show_shape(&expected),
            show(res)
        )
    })?;
    encoding_presence(lhs, res)
}

/// `tt.split`: the operand's minor dimension is 2 and is removed.
pub fn split(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    same_element(src, res)?;
    let mut expected = shape(src);
    ensure(expected.last() == Some(&2), || {
        format!(
            "requires an operand whose last dimension is 2, but found {}",
            show(src)
        )
    })?;
    expected.pop();
    ensure(shape(res) == expected, || {
        format!(
            "requires result shape {}, but found {}",
            show_shape(&expected),
            show(res)
        )
    })?;
    encoding_presence(src, res)
}

/// `tt.trans`: `order` permutes the dimensions; result dimension i is operand dimension order[i].
pub fn trans(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    same_element(src, res)?;
    let from = shape(src);
    let order = i32_array_attr(op, "order").unwrap_or_default();
    ensure(is_permutation(&order, from.len()), || {
        format!(
            "requires order to be a permutation of 0..{}, but found {order:?}",
            from.len()
        )
    })?;
    let expected: Vec<i64> = order.iter().map(|&dim| from[dim as usize]).collect();
    ensure(shape(res) == expected, || {
        format!(
            "requires result shape {}, but found {}",
            show_shape(&expected),
            show(res)
        )
    })?;
    encoding_presence(src, res)
}

/// `tt.make_range`: `[start, end)` with `0 <= start < end` and a power-of-two length, as a 1-D
/// i32 tensor of that length.
pub fn make_range(op: &OperationRef) -> Rule {
    let (start, end) = (int_or(op, "start", 0), int_or(op, "end", 0));
    let res = result(op, 0)?;
    ensure(start >= 0, || {
        format!("requires start >= 0, but found {start}")
    })?;
    ensure(end > start, || {
        format!("requires end > start, but found [{start}, {end})")
    })?;
    let length = end - start;
    ensure(length & (length - 1) == 0, || {
        format!("requires a power-of-two length, but [{start}, {end}) has {length} elements")
    })?;
    ensure(shape(res) == [length], || {
        format!(
            "requires result shape {length} for [{start}, {end}), but found {}",
            show(res)
        )
    })
}

/// `tt.gather`: indices of the source's rank select along `axis`; the result has the indices'
/// shape and encoding and the source's element type.
pub fn gather(op: &OperationRef) -> Rule {
    let (src, indices, res) = (operand(op, 0)?, operand(op, 1)?, result(op, 0)?);
    let (from, index_shape) = (shape(src), shape(indices));
    ensure(from.len() == index_shape.len(), || {
        format!(
            "requires indices of the source's rank, but found {} and {}",
            show(src),
            show(indices)
        )
    })?;
    let axis = int_or(op, "axis", -1);
    ensure(axis >= 0 && (axis as usize) < from.len(), || {
        format!("requires axis in [0, {}), but found {axis}", from.len())
    })?;
    for dim in (0..from.len()).filter(|&dim| dim != axis as usize) {
        ensure(from[dim] == index_shape[dim], || {
            format!(
                "requires indices dimension {dim} to match the source ({}), but found {}",
                from[dim], index_shape[dim]
            )
        })?;
    }
    ensure(shape(res) == index_shape, || {
        format!(
            "requires the result to have the indices' shape, but found {}",
            show(res)
        )
    })?;
    same_element(src, res)?;
    encodings_agree(&[indices, res], "indices and result")?;
    encoding_presence(src, res)
}

/// `tt.histogram`: 1-D integers counted into a 1-D integer tensor of bins; the mask has the
/// operand's shape and encoding.
pub fn histogram(op: &OperationRef) -> Rule {
    let (src, res) = (operand(op, 0)?, result(op, 0)?);
    ensure(shape(src).len() == 1, || {
        format!("requires a 1-D operand, but found {}", show(src))
    })?;
    ensure(shape(res).len() == 1, || {
        format!("requires a 1-D result, but found {}", show(res))
    })?;
    if op.operand_count() > 1 {
        let mask = operand(op, 1)?;
        shapes_agree(&[src, mask], "operand and mask")?;
        encodings_agree(&[src, mask], "operand and mask")?;
    }
    encoding_presence(src, res)
}
