//! Dot products, reductions, scans, elementwise maps, printing and function returns.

use super::util::*;
use crate::ir::{i32_array_attr, op_name};
use melior::ir::{
    BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike, attribute::AttributeLike,
    operation::OperationLike, r#type::FunctionType,
};

/// A predicate on element types.
type TypeTest = fn(Type) -> bool;

/// Requires `a`, `b`, `c` to agree on whether they carry an encoding, and `#ttg.dot_op` operand
/// encodings to name their operand index and the accumulator's encoding as parent.
fn check_dot_encodings(a: Type, b: Type, c: Type) -> Rule {
    let present = [a, b, c].map(|ty| encoding(ty).is_some());
    ensure(present[0] == present[1] && present[1] == present[2], || {
        format!(
            "requires a, b and c to all have encodings or all have none, but found {}, {} and {}",
            show(a),
            show(b),
            show(c)
        )
    })?;
    let Some(parent) = encoding(c) else {
        return Ok(());
    };
    for (index, operand) in [a, b].into_iter().enumerate() {
        let Some(found) = encoding(operand) else {
            continue;
        };
        if let Some((op_index, op_parent)) = as_dot_operand(found) {
            ensure(op_index == index as i64 && op_parent == parent, || {
                format!(
                    "requires operand #{index} to have a #ttg.dot_op encoding with opIdx = {index} and parent {parent}, but found {found}"
                )
            })?;
        }
    }
    Ok(())
}

/// Checks `[B,] M x K` * `[B,] K x N` -> `[B,] M x N` and returns the rank.
fn check_dot_shapes(
    a: Type,
    b: Type,
    c: Type,
    (m, k_a): (i64, i64),
    (k_b, n): (i64, i64),
) -> Result<usize, String> {
    let (sa, sb, sc) = (shape(a), shape(b), shape(c));
    let rank = sa.len();
    ensure(
        (rank == 2 || rank == 3) && sb.len() == rank && sc.len() == rank,
        || {
            format!(
                "requires a, b and c of rank 2 (or 3, batched), but found {}, {} and {}",
                show(a),
                show(b),
                show(c)
            )
        },
    )?;
    if rank == 3 {
        ensure(sa[0] == sb[0] && sa[0] == sc[0], || {
            format!(
                "requires one batch size, but found {}, {} and {}",
                sa[0], sb[0], sc[0]
            )
        })?;
    }
    ensure(k_a == k_b, || {
        format!(
            "requires a's K ({k_a}) to equal b's K ({k_b}): {} * {}",
            show(a),
            show(b)
        )
    })?;
    ensure(sc[rank - 2] == m && sc[rank - 1] == n, || {
        format!(
            "requires an accumulator of {m}x{n} (a's M x b's N), but found {}",
            show(c)
        )
    })?;
    Ok(rank)
}

/// `InputPrecision` cases that need fp32 operands: tf32x3, bf16x3, bf16x6.
const F32_ONLY_PRECISIONS: [(i64, &str); 3] = [(1, "tf32x3"), (3, "bf16x3"), (4, "bf16x6")];

/// `tt.dot`: `[B,] MxK * KxN + MxN` with a supported element/accumulator combination.
pub fn dot(op: &OperationRef) -> Rule {
    let (a, b, c) = (operand(op, 0)?, operand(op, 1)?, operand(op, 2)?);
    let (sa, sb) = (shape(a), shape(b));
    ensure(sa.len() >= 2 && sb.len() >= 2, || {
        format!(
            "requires a and b of rank 2 (or 3, batched), but found {} and {}",
            show(a),
            show(b)
        )
    })?;
    let (ra, rb) = (sa.len(), sb.len());
    check_dot_shapes(a, b, c, (sa[ra - 2], sa[ra - 1]), (sb[rb - 2], sb[rb - 1]))?;
    let (ea, eb, ec) = (elem(a), elem(b), elem(c));
    let accumulators: &[(&str, TypeTest)] = if is_int(ea) || is_int(eb) {
        ensure(ea == eb, || {
            format!(
                "requires integer operands of one type, but found {} and {}",
                show(ea),
                show(eb)
            )
        })?;
        &[("i32", is_i32)]
    } else if is_fp8(ea) || is_fp8(eb) {
        ensure(is_fp8(ea) && is_fp8(eb), || {
            format!(
                "mixes fp8 only with fp8, but found {} and {}",
                show(ea),
                show(eb)
            )
        })?;
        &[("f32", is_f32), ("f16", is_f16)]
    } else {
        ensure(ea == eb, || {
            format!(
                "requires a and b of one element type, but found {} and {}",
                show(ea),
                show(eb)
            )
        })?;
        if is_f16(ea) {
            &[("f32", is_f32), ("f16", is_f16)]
        } else if is_bf16(ea) || is_f32(ea) {
            &[("f32", is_f32)]
        } else if is_f64(ea) {
            &[("f64", is_f64)]
        } else {
            return Err(format!("does not support {} operands", show(ea)));
        }
    };
    ensure(accumulators.iter().any(|(_, accepts)| accepts(ec)), || {
        let names: Vec<_> = accumulators.iter().map(|(name, _)| *name).collect();
        format!(
            "requires a {} accumulator for {} operands, but found {}",
            names.join(" or "),
            show(ea),
            show(ec)
        )
    })?;
    let precision = int_or(op, "inputPrecision", 2);
    if let Some((_, name)) = F32_ONLY_PRECISIONS
        .iter()
        .find(|(value, _)| *value == precision)
    {
        ensure(is_f32(ea) && is_f32(eb), || {
            format!(
                "takes inputPrecision = {name} only for f32 operands, but found {}",
                show(ea)
            )
        })?;
    }
    let imprecise = int_or(op, "maxNumImpreciseAcc", 0);
    ensure(imprecise >= 0, || {
        format!("requires maxNumImpreciseAcc >= 0, but found {imprecise}")
    })?;
    check_dot_encodings(a, b, c)
}

/// `ScaleDotElemType` cases: name, and the element types that may hold the format.
const SCALED_FORMATS: [(&str, &str, TypeTest); 7] = [
    ("e4m3", "f8E4M3FN or i8", |ty| {
        // SAFETY: `ty` is a live type; the kind test only reads it.
        is_i8(ty) || unsafe { mlir_sys::mlirTypeIsAFloat8E4M3FN(ty.to_raw()) }
    }),
    ("e5m2", "f8E5M2 or i8", |ty| {
        // SAFETY: `ty` is a live type; the kind test only reads it.
        is_i8(ty) || unsafe { mlir_sys::mlirTypeIsAFloat8E5M2(ty.to_raw()) }
    }),
    ("e2m3", "i8", is_i8),
    ("e3m2", "i8", is_i8),
    ("e2m1", "i8", is_i8),
    ("bf16", "bf16", is_bf16),
    ("fp16", "f16", is_f16),
];

/// `tt.dot_scaled`: like `tt.dot`, with e2m1 operands packing two elements per i8 (along K when
/// `*_k_pack`, else along M/N), f32 accumulation, and i8 scales of one row per M (N) row.
pub fn dot_scaled(op: &OperationRef) -> Rule {
    let (a, b, c) = (operand(op, 0)?, operand(op, 1)?, operand(op, 2)?);
    let sizes = segments(op, 5).unwrap_or_else(|| vec![1, 1, 1, 0, 0]);
    let mut next = 3;
    let mut optional = |present: bool| -> Result<Option<Type>, String> {
        if !present {
            return Ok(None);
        }
        next += 1;
        operand(op, next - 1).map(Some)
    };
    let a_scale = optional(sizes[3] > 0)?;
    let b_scale = optional(sizes[4] > 0)?;
    let mut packing = [1i64; 2];
    for (index, (operand_ty, attr, k_pack)) in [
        (a, "a_elem_type", "lhs_k_pack"),
        (b, "b_elem_type", "rhs_k_pack"),
    ]
    .into_iter()
    .enumerate()
    {
        let format = int_or(op, attr, -1);
        let (name, holders, holds) = SCALED_FORMATS
            .get(format as usize)
            .copied()
            .ok_or_else(|| format!("has an unknown {attr} {format}"))?;
        ensure(holds(elem(operand_ty)), || {
            format!(
                "requires {name} operand #{index} to hold {holders}, but found {}",
                show(operand_ty)
            )
        })?;
        if name == "e2m1" {
            packing[index] = 2;
        }
        // SAFETY: `value` is a live attribute of `op`; it is read as a bool only when it is one
        // (ODS makes it a BoolAttr; anything else counts as the default, true).
        let along_k = op.attribute(k_pack).map_or(true, |value| unsafe {
            !mlir_sys::mlirAttributeIsABool(value.to_raw())
                || mlir_sys::mlirBoolAttrGetValue(value.to_raw())
        });
        if !along_k {
            packing[index] = -packing[index];
        }
    }
    let (sa, sb) = (shape(a), shape(b));
    ensure(sa.len() >= 2 && sb.len() >= 2, || {
        format!(
            "requires a and b of rank 2 (or 3, batched), but found {} and {}",
            show(a),
            show(b)
        )
    })?;
    let (ra, rb) = (sa.len(), sb.len());
    // packing > 0: packed along K; packing < 0: packed along M (a) or N (b).
    let scale = |value: i64, factor: i64, along_k: bool| {
        if (factor > 0) == along_k {
            value.saturating_mul(factor.abs())
        } else {
            value
        }
    };
    let m = scale(sa[ra - 2], packing[0], false);
    let k_a = scale(sa[ra - 1], packing[0], true);
    let k_b = scale(sb[rb - 2], packing[1], true);
    let n = scale(sb[rb - 1], packing[1], false);
    let rank = check_dot_shapes(a, b, c, (m, k_a), (k_b, n))?;
    ensure(is_f32(elem(c)), || {
        format!("requires an f32 accumulator, but found {}", show(c))
    })?;
    for (name, scale_ty, rows) in [("a_scale", a_scale, m), ("b_scale", b_scale, n)] {
        let Some(scale_ty) = scale_ty else { continue };
        let scale_shape = shape(scale_ty);
        ensure(
            scale_shape.len() == rank
                && scale_shape[rank - 2] == rows
                && k_a % scale_shape[rank - 1] == 0,
            || {
                format!(
                    "requires {name} of shape {rows}xG with G dividing K = {k_a}, but found {}",
                    show(scale_ty)
                )
            },
        )?;
    }
    Ok(())
}

/// The combine region's block of a reduce/scan/map: `(argument types, terminator name, terminator
/// operand types)`.
fn combine_block<'c>(op: &OperationRef<'c, '_>) -> Result<(Vec<Type<'c>>, String), String> {
    let region = op
        .region(0)
        .map_err(|_| "requires a combine region".to_string())?;
    let block = region
        .first_block()
        .ok_or_else(|| "requires a combine region with one block".to_string())?;
    let arguments = (0..block.argument_count())
        .filter_map(|index| block.argument(index).ok().map(|argument| argument.r#type()))
        .collect();
    let terminator = block
        .terminator()
        .map(|terminator| op_name(&terminator))
        .unwrap_or_default();
    Ok((arguments, terminator))
}

/// Every operand of a reduce/scan/map has the first operand's shape and encoding.
fn check_sources<'c>(op: &OperationRef<'c, '_>) -> Result<Vec<Type<'c>>, String> {
    let sources = operand_types(op);
    ensure(!sources.is_empty(), || {
        "requires at least one operand".into()
    })?;
    shapes_agree(&sources, "all operands")?;
    encodings_agree(&sources, "all operands")?;
    Ok(sources)
}

/// The block takes `expected` arguments, and ends with `terminator`.
fn check_block(op: &OperationRef, expected: &[Type], terminator: &str) -> Rule {
    let (arguments, found) = combine_block(op)?;
    ensure(arguments.len() == expected.len(), || {
        format!(
            "requires the combine region to take {} arguments, but found {}",
            expected.len(),
            arguments.len()
        )
    })?;
    for (index, (argument, wanted)) in arguments.iter().zip(expected).enumerate() {
        ensure(argument == wanted, || {
            format!(
                "requires combine region argument #{index} to be {}, but found {}",
                show(*wanted),
                show(*argument)
            )
        })?;
    }
    ensure(found == terminator, || {
        format!("requires the combine region to end with {terminator}")
    })
}

fn check_axis(op: &OperationRef, rank: usize) -> Result<usize, String> {
    let axis = int_or(op, "axis", -1);
    ensure(axis >= 0 && (axis as usize) < rank, || {
        format!("requires axis in [0, {rank}), but found {axis}")
    })?;
    Ok(axis as usize)
}

/// The combine region of a reduce/scan over `sources` takes two scalars per operand (the
/// accumulated values, then the new ones).
fn pairwise_arguments<'c>(sources: &[Type<'c>]) -> Vec<Type<'c>> {
    sources.iter().chain(sources).map(|ty| elem(*ty)).collect()
}

/// `tt.reduce`: `axis` is removed from every operand (rank-1 operands reduce to scalars).
pub fn reduce(op: &OperationRef) -> Rule {
    let sources = check_sources(op)?;
    let from = shape(sources[0]);
    let axis = check_axis(op, from.len())?;
    check_block(op, &pairwise_arguments(&sources), "tt.reduce.return")?;
    let results = result_types(op);
    ensure(results.len() == sources.len(), || {
        format!(
            "requires one result per operand ({}), but found {}",
            sources.len(),
            results.len()
        )
    })?;
    let mut reduced = from.clone();
    reduced.remove(axis);
    for (index, (source, res)) in sources.iter().zip(&results).enumerate() {
        if reduced.is_empty() {
            ensure(!is_tensor(*res) && *res == elem(*source), || {
                format!(
                    "requires result #{index} to be the scalar {}, but found {}",
                    show(elem(*source)),
                    show(*res)
                )
            })?;
            continue;
        }
        ensure(
            is_tensor(*res) && shape(*res) == reduced && elem(*res) == elem(*source),
            || {
                format!(
                    "requires result #{index} to be a {}x{} tensor, but found {}",
                    show_shape(&reduced),
                    show(elem(*source)),
                    show(*res)
                )
            },
        )?;
        check_slice_of(*source, *res, axis as i64, &format!("result #{index}"))?;
    }
    Ok(())
}

/// `tt.scan`: results have the operands' types.
pub fn scan(op: &OperationRef) -> Rule {
    let sources = check_sources(op)?;
    check_axis(op, shape(sources[0]).len())?;
    check_block(op, &pairwise_arguments(&sources), "tt.scan.return")?;
    ensure(result_types(op) == sources, || {
        "requires results of the operands' types".into()
    })
}

/// `tt.map_elementwise`: the region takes `pack` consecutive scalars of each operand, and results
/// have the operands' shape and encoding.
pub fn map_elementwise(op: &OperationRef) -> Rule {
    let sources = check_sources(op)?;
    let pack = int_or(op, "pack", 1);
    ensure(pack >= 1, || {
        format!("requires pack >= 1, but found {pack}")
    })?;
    let count = numel(&shape(sources[0]));
    ensure(count % pack == 0, || {
        format!("requires the element count {count} to be a multiple of pack {pack}")
    })?;
    let arguments: Vec<_> = sources
        .iter()
        .flat_map(|ty| std::iter::repeat_n(elem(*ty), pack as usize))
        .collect();
    check_block(op, &arguments, "tt.map_elementwise.return")?;
    let all: Vec<_> = sources.iter().copied().chain(result_types(op)).collect();
    shapes_agree(&all, "operands and results")?;
    encodings_agree(&all, "operands and results")
}

/// `tt.reduce.return` / `tt.scan.return` / `tt.map_elementwise.return`: the scalars the enclosing
/// op combines.
pub fn combine_return(name: &str, op: &OperationRef) -> Rule {
    let Some(parent) = op.parent_operation() else {
        return Ok(());
    };
    let expected: Vec<Type> = if name == "map_elementwise.return" {
        let pack = int_or(&parent, "pack", 1).max(1) as usize;
        result_types(&parent)
            .iter()
            .flat_map(|ty| std::iter::repeat_n(elem(*ty), pack))
            .collect()
    } else {
        operand_types(&parent).iter().map(|ty| elem(*ty)).collect()
    };
    let found = operand_types(op);
    ensure(found.len() == expected.len(), || {
        format!(
            "requires {} values (one per combined scalar), but found {}",
            expected.len(),
            found.len()
        )
    })?;
    for (index, (value, wanted)) in found.iter().zip(&expected).enumerate() {
        ensure(value == wanted, || {
            format!(
                "requires value #{index} to be {}, but found {}",
                show(*wanted),
                show(*value)
            )
        })?;
    }
    Ok(())
}

/// `tt.print`: one `isSigned` flag (0 or 1) per argument.
pub fn print(op: &OperationRef) -> Rule {
    let flags = i32_array_attr(op, "isSigned").unwrap_or_default();
    let count = op.operand_count();
    ensure(flags.len() == count, || {
        format!(
            "requires one isSigned flag per argument ({count}), but found {}",
            flags.len()
        )
    })?;
    ensure(flags.iter().all(|flag| *flag == 0 || *flag == 1), || {
        format!("requires isSigned flags of 0 or 1, but found {flags:?}")
    })
}

/// `tt.return`: the values match the enclosing function's result types.
pub fn func_return(op: &OperationRef) -> Rule {
    let Some(function) = op.parent_operation() else {
        return Ok(());
    };
    let Ok(attribute) = function.attribute("function_type") else {
        return Ok(());
    };
    // SAFETY: `attribute` is a live attribute of the function; its type is read only from a
    // type attribute (FunctionOpInterface makes `function_type` one).
    if !unsafe { mlir_sys::mlirAttributeIsAType(attribute.to_raw()) } {
        return Ok(());
    }
    // SAFETY: as above; the type is owned by the function's context.
    let ty = unsafe { Type::from_raw(mlir_sys::mlirTypeAttrGetValue(attribute.to_raw())) };
    let Ok(function_type) = FunctionType::try_from(ty) else {
        return Ok(());
    };
    let expected: Vec<Type> = (0..function_type.result_count())
        .filter_map(|index| function_type.result(index).ok())
        .collect();
    let found = operand_types(op);
    ensure(found.len() == expected.len(), || {
        format!(
            "returns {} values, but the function has {} results",
            found.len(),
            expected.len()
        )
    })?;
    for (index, (value, wanted)) in found.iter().zip(&expected).enumerate() {
        ensure(value == wanted, || {
            format!(
                "returns {} as value #{index}, but the function result is {}",
                show(*value),
                show(*wanted)
            )
        })?;
    }
    Ok(())
}
