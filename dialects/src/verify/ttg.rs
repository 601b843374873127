//! Verifier rules of the `ttg` and `ttng` dialects, one function per op. ODS has already checked
//! operand counts, type classes and declared type relations when these run.
//!
//! Every op first has each tensor, buffer and descriptor it touches checked against the launch
//! shape of its module ([`check_tensor_encoding`], [`check_memdesc`]): a distributed encoding of the
//! tensor's rank whose warps, lanes and CTAs multiply to `ttg.num-warps`, `ttg.threads-per-warp` and
//! `ttg.num-ctas`. Rules about an encoding on its own are [`Encoding::verify`], run when it is
//! parsed. docs/ttg.md lists every rule.

use super::Check;
use crate::{
    encoding::{Encoding, EncodingAttribute, MemDesc, is_shared_memory_space},
    ir::{
        as_pointer, as_tensor, as_tensor_desc, bit_width, i32_array_attr, int_attr, is_integer,
        type_text,
    },
};
use melior::ir::{
    Attribute, BlockLike, Location, OperationRef, RegionLike, Type, TypeLike, ValueLike,
    attribute::AttributeLike, operation::OperationLike,
};
use std::collections::HashSet;

pub fn verify(name: &str, op: OperationRef) -> Check {
    for value in op.operands() {
        check_value_type(&op, value.r#type())?;
    }
    for value in op.results() {
        check_value_type(&op, value.r#type())?;
    }
    match name {
        "local_alloc" => local_alloc(&op),
        "local_load" => local_load(&op),
        "local_store" => local_store(&op),
        "memdesc_index" => memdesc_index(&op),
        "memdesc_subslice" => memdesc_subslice(&op),
        "memdesc_trans" => memdesc_trans(&op),
        "memdesc_reshape" => memdesc_reshape(&op),
        "async_copy_global_to_local" => async_copy_global_to_local(&op),
        "async_wait" => non_negative(&op, "num"),
        "global_scratch_alloc" => global_scratch_alloc(&op),
        "warp_group_dot" => warp_group_dot(&op),
        "warp_group_dot_wait" => warp_group_dot_wait(&op),
        "init_barrier" => barrier_with_count(&op, "count", 1),
        "arrive_barrier" => barrier_with_count(&op, "count", 1),
        "barrier_expect" => barrier_with_count(&op, "size", 0),
        "inval_barrier" | "wait_barrier" => check_barrier(&op, "alloc", &operand_type(&op, 0)?),
        "async_tma_copy_global_to_local" => tma_load(&op),
        "async_tma_copy_local_to_global" | "async_tma_reduce" => tma_store(&op),
        "async_tma_store_wait" => non_negative(&op, "pendings"),
        "tensormap_create" => tensormap_create(&op),
        _ => Ok(()),
    }
}

//===----------------------------------------------------------------------===//
// Encodings in context
//===----------------------------------------------------------------------===//

/// The launch shape of the nearest enclosing op (usually the module) that declares it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    pub num_warps: Option<i64>,
    pub threads_per_warp: Option<i64>,
    pub num_ctas: Option<i64>,
}

/// `ttg.num-warps`, `ttg.threads-per-warp` and `ttg.num-ctas` of the ops enclosing `op`.
pub fn launch_shape<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> LaunchShape {
    let mut shape = LaunchShape::default();
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        shape.num_warps = shape
            .num_warps
            .or_else(|| int_attr(&parent, "ttg.num-warps"));
        shape.threads_per_warp = shape
            .threads_per_warp
            .or_else(|| int_attr(&parent, "ttg.threads-per-warp"));
        shape.num_ctas = shape.num_ctas.or_else(|| int_attr(&parent, "ttg.num-ctas"));
        current = parent.parent_operation();
    }
    shape
}

//===----------------------------------------------------------------------===//
// Module attributes
//===----------------------------------------------------------------------===//

/// The attributes that make up the launch shape, in the (sorted) order MLIR verifies them.
const LAUNCH_ATTRS: [&str; 3] = ["ttg.num-ctas", "ttg.num-warps", "ttg.threads-per-warp"];

/// Most warps per CTA: 1024 threads, CUDA's limit per block, in warps of 32.
pub const MAX_NUM_WARPS: i64 = 32;

/// Threads per warp on NVIDIA GPUs, the only value Tritium supports.
pub const THREADS_PER_WARP: i64 = 32;

/// Most CTAs per cluster (Hopper's non-portable cluster size).
pub const MAX_NUM_CTAS: i64 = 16;

fn integer_value(value: Attribute) -> Option<i64> {
    let raw = value.to_raw();
    // SAFETY: `raw` is a live attribute; the getter is only called on integer attributes.
    unsafe {
        (mlir_sys::mlirAttributeIsAInteger(raw)
            && !is_integer(Type::from_raw(mlir_sys::mlirAttributeGetType(raw)), Some(1)))
        .then(|| mlir_sys::mlirIntegerAttrGetValueInt(raw))
    }
}

fn power_of_two_in(value: i64, max: i64) -> bool {
    (1..=max).contains(&value) && (value as u64).is_power_of_two()
}

/// The rule for one `ttg.*` attribute of `op` on its own.
fn check_attribute_value(name: &str, value: Attribute) -> Check {
    let int =
        || integer_value(value).ok_or_else(|| format!("{name} must be an integer, not {value}"));
    match name {
        "ttg.num-warps" => {
            let n = int()?;
            if !power_of_two_in(n, MAX_NUM_WARPS) {
                return Err(format!(
                    "{name} must be a power of two in 1..={MAX_NUM_WARPS}, not {n}"
                ));
            }
        }
        "ttg.threads-per-warp" => {
            let n = int()?;
            if n != THREADS_PER_WARP {
                return Err(format!(
                    "{name} must be {THREADS_PER_WARP} (an NVIDIA warp), not {n}"
                ));
            }
        }
        "ttg.num-ctas" => {
            let n = int()?;
            if !power_of_two_in(n, MAX_NUM_CTAS) {
                return Err(format!(
                    "{name} must be a power of two in 1..={MAX_NUM_CTAS}, not {n}"
                ));
            }
        }
        "ttg.num-stages" => {
            let n = int()?;
            if n < 0 {
                return Err(format!("{name} must be non-negative, not {n}"));
            }
        }
        // SAFETY: `value` is a live attribute; the kind test only reads it.
        "ttg.target" if !unsafe { mlir_sys::mlirAttributeIsAString(value.to_raw()) } => {
            return Err(format!(
                "{name} must be a string such as \"cuda:90\", not {value}"
            ));
        }
        _ => {}
    }
    Ok(())
}

/// The rules for a `ttg.*` discardable attribute of `op`: the launch-shape attributes hold valid
/// values, and once the last of them present has been checked, every tensor and buffer type used
/// inside `op` has a layout for that launch shape (not only those of `ttg` ops: `tt`, `arith`,
/// `scf`, ... ops and block arguments too). `Err` carries where and what to report.
pub fn verify_attribute<'c>(
    op: &OperationRef<'c, '_>,
    name: &str,
    value: Attribute<'c>,
) -> Result<(), (Location<'c>, String)> {
    let op_text = crate::ir::op_name(op);
    check_attribute_value(name, value)
        .map_err(|m| (op.location(), format!("'{op_text}' op {m}")))?;
    let last_launch_attr = LAUNCH_ATTRS
        .iter()
        .rev()
        .find(|attr| op.attribute(attr).is_ok());
    if last_launch_attr == Some(&name) {
        let mut seen = HashSet::new();
        check_nested_types(op, &mut seen)?;
    }
    Ok(())
}

/// Checks every operand, result and block-argument type of the ops nested in `op` with the rules
/// of [`check_value_type`], each (type, launch shape) pair once.
fn check_nested_types<'c>(
    op: &OperationRef<'c, '_>,
    seen: &mut HashSet<(usize, LaunchShape)>,
) -> Result<(), (Location<'c>, String)> {
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut next = b.first_operation();
            while let Some(nested) = next {
                let launch = launch_shape(&nested);
                let mut check = |ty: Type<'c>| -> Result<(), (Location<'c>, String)> {
                    if seen.insert((ty.to_raw().ptr as usize, launch)) {
                        check_value_type(&nested, ty).map_err(|m| {
                            (
                                nested.location(),
                                format!("'{}' op {m}", crate::ir::op_name(&nested)),
                            )
                        })?;
                    }
                    Ok(())
                };
                for value in nested.operands() {
                    check(value.r#type())?;
                }
                for value in nested.results() {
                    check(value.r#type())?;
                }
                for nested_region in nested.regions() {
                    let mut inner = nested_region.first_block();
                    while let Some(ib) = inner {
                        for index in 0..ib.argument_count() {
                            if let Ok(arg) = ib.argument(index) {
                                check(arg.r#type())?;
                            }
                        }
                        inner = ib.next_in_region();
                    }
                }
                check_nested_types(&nested, seen)?;
                next = nested.next_in_block();
            }
            block = b.next_in_region();
        }
    }
    Ok(())
}

fn check_launch_shape(encoding: &Encoding, launch: LaunchShape, what: &str) -> Check {
    let checks = [
        (
            encoding.num_warps(),
            launch.num_warps,
            "warps",
            "ttg.num-warps",
        ),
        (
            encoding.threads_per_warp(),
            launch.threads_per_warp,
            "threads per warp",
            "ttg.threads-per-warp",
        ),
        (encoding.num_ctas(), launch.num_ctas, "CTAs", "ttg.num-ctas"),
    ];
    for (have, want, noun, attr) in checks {
        if let (Some(have), Some(want)) = (have, want)
            && have as i64 != want
        {
            return Err(format!(
                "{what} has a layout for {have} {noun}, but the module has {attr} = {want}"
            ));
        }
    }
    Ok(())
}

/// The rules for a tensor type used by `op`: a `ttg` encoding must be a distributed one of the
/// tensor's rank that fits the module's warps, threads per warp and CTAs. Tensors without an
/// encoding, or with another dialect's, and non-tensor types pass.
pub fn check_tensor_encoding<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, ty: Type) -> Check {
    let Some(tensor) = as_tensor(ty) else {
        return Ok(());
    };
    let Some(encoding) = tensor.encoding.and_then(Encoding::from_attribute) else {
        return Ok(());
    };
    let what = type_text(ty);
    if encoding.is_shared() {
        return Err(format!(
            "{what} has a shared-memory encoding; tensors need a distributed one"
        ));
    }
    if let Some(rank) = encoding.rank()
        && rank != tensor.shape.len()
    {
        return Err(format!(
            "{what} has an encoding of rank {rank} for a tensor of rank {}",
            tensor.shape.len()
        ));
    }
    check_launch_shape(&encoding, launch_shape(op), &what)?;
    check_tensor_size(&encoding, &tensor.shape, &what)
}

/// Registers per thread of a distributed `encoding` for `shape` (each dim at least 1), as the
/// layout crate counts them (duplicated registers included), saturating; a lower bound where the
/// count depends on more than the encoding's parameters (mma, dot_op of mma).
fn registers_per_thread(encoding: &Encoding, shape: &[u128]) -> u128 {
    let product = |values: &mut dyn Iterator<Item = u128>| {
        values.fold(1u128, |acc, v| acc.saturating_mul(v.max(1)))
    };
    // A thread holds at least its share of the elements.
    let threads = product(
        &mut [
            encoding.threads_per_warp(),
            encoding.num_warps(),
            encoding.num_ctas(),
        ]
        .into_iter()
        .map(|n| n.unwrap_or(1) as u128),
    );
    let share = product(&mut shape.iter().copied()).div_ceil(threads);
    let per_dim = |spt: &[u32], tile: &dyn Fn(usize) -> u128, split: &[u32]| {
        product(&mut shape.iter().enumerate().map(|(d, &extent)| {
            let spt = spt.get(d).copied().unwrap_or(1) as u128;
            let split = split.get(d).copied().unwrap_or(1).max(1) as u128;
            let tile = tile(d).max(1);
            // The tile's own registers, repeated to cover the CTA's part of the dim.
            spt.saturating_mul((extent / split).max(1).div_ceil(tile))
        }))
    };
    let exact = match encoding {
        Encoding::Blocked(b) => {
            let tile = |d: usize| {
                [&b.size_per_thread, &b.threads_per_warp, &b.warps_per_cta]
                    .iter()
                    .map(|v| v.get(d).copied().unwrap_or(1) as u128)
                    .product::<u128>()
            };
            per_dim(&b.size_per_thread, &tile, &b.cta_layout.cta_split_num)
        }
        Encoding::DotOperand(dot) => match dot.parent.as_ref() {
            // An FMA operand holds its whole K extent (per CTA) in every thread.
            Encoding::Blocked(b) if shape.len() >= 2 => {
                let k = if dot.op_idx == 0 {
                    shape.len() - 1
                } else {
                    shape.len() - 2
                };
                let mut spt = b.size_per_thread.clone();
                let k_split = b
                    .cta_layout
                    .cta_split_num
                    .get(k)
                    .copied()
                    .unwrap_or(1)
                    .max(1) as u128;
                if let Some(entry) = spt.get_mut(k) {
                    *entry = u32::try_from((shape[k] / k_split).max(1)).unwrap_or(u32::MAX);
                }
                let tile = |d: usize| {
                    if d == k {
                        spt[d] as u128
                    } else {
                        [&b.size_per_thread, &b.threads_per_warp, &b.warps_per_cta]
                            .iter()
                            .map(|v| v.get(d).copied().unwrap_or(1) as u128)
                            .product::<u128>()
                    }
                };
                per_dim(&spt, &tile, &b.cta_layout.cta_split_num)
            }
            _ => 0,
        },
        Encoding::Slice(slice) => {
            let mut parent_shape = shape.to_vec();
            parent_shape.insert((slice.dim as usize).min(shape.len()), 1);
            registers_per_thread(&slice.parent, &parent_shape)
        }
        Encoding::Linear(linear) => 1u128 << linear.register.len().min(127),
        _ => 0,
    };
    exact.max(share)
}

/// The size limits of the layout crate (`tritium_layout::MAX_DIM_BITS`,
/// `MAX_REGISTER_BITS`): every dim at most 2^24, a blocked encoding's tile at most 2^24 along
/// each dim, and at most 2^16 registers per thread. Beyond them no layout is built (and no kernel
/// could hold the values), so the type is rejected here rather than deep in a pass or the lowering.
fn check_tensor_size(encoding: &Encoding, shape: &[i64], what: &str) -> Check {
    use tritium_layout::linear::{MAX_DIM_BITS, MAX_REGISTER_BITS};
    if let Some(dim) = shape.iter().find(|&&d| d > 1 << MAX_DIM_BITS) {
        return Err(format!(
            "{what} has a dimension of {dim}; layouts support at most 2^{MAX_DIM_BITS}"
        ));
    }
    if let Encoding::Blocked(b) = encoding {
        for d in 0..b.size_per_thread.len() {
            let tile = [&b.size_per_thread, &b.threads_per_warp, &b.warps_per_cta]
                .iter()
                .map(|v| v.get(d).copied().unwrap_or(1) as u128)
                .product::<u128>();
            if tile > 1 << MAX_DIM_BITS {
                return Err(format!(
                    "{what} has a CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA) of {tile} elements along dim {d}; layouts support at most 2^{MAX_DIM_BITS}"
                ));
            }
        }
    }
    let dims: Vec<u128> = shape.iter().map(|&d| d.max(1) as u128).collect();
    let registers = registers_per_thread(encoding, &dims);
    if registers > 1 << MAX_REGISTER_BITS {
        return Err(format!(
            "{what} needs {registers} registers per thread; at most 2^{MAX_REGISTER_BITS} are supported"
        ));
    }
    Ok(())
}

/// The rules for a `!ttg.memdesc` used by `op`: a shared encoding whose rank is at most the
/// buffer's (leading dims may index buffers), in `#ttg.shared_memory`, inside its allocation.
pub fn check_memdesc<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, ty: Type) -> Check {
    let Some(md) = MemDesc::from_type(ty) else {
        return Ok(());
    };
    let what = type_text(ty);
    if !is_shared_memory_space(md.memory_space) {
        return Err(format!("{what} must be in #ttg.shared_memory"));
    }
    if md.alloc_shape.len() < md.shape.len()
        || md
            .shape
            .iter()
            .rev()
            .zip(md.alloc_shape.iter().rev())
            .any(|(dim, alloc)| dim > alloc)
    {
        return Err(format!(
            "{what} is larger than its allocation {:?}",
            md.alloc_shape
        ));
    }
    let Some(encoding) = md.layout() else {
        return Ok(());
    };
    if !encoding.is_shared() {
        return Err(format!("{what} needs a shared-memory encoding"));
    }
    if let Some(rank) = encoding.rank()
        && rank > md.shape.len()
    {
        return Err(format!(
            "{what} has an encoding of rank {rank} for a buffer of rank {}",
            md.shape.len()
        ));
    }
    check_launch_shape(&encoding, launch_shape(op), &what)
}

fn check_value_type<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, ty: Type) -> Check {
    check_tensor_encoding(op, ty)?;
    check_memdesc(op, ty)?;
    if let Some(block) = as_tensor_desc(ty)
        && let Some(encoding) = as_tensor(block)
            .and_then(|t| t.encoding)
            .and_then(Encoding::from_attribute)
        && !encoding.is_shared()
    {
        return Err(format!(
            "{} needs a shared-memory encoding for its block",
            type_text(ty)
        ));
    }
    Ok(())
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

// Bounds are checked first: melior's out-of-range error prints (and so verifies) the op.
fn operand_type<'c>(op: &OperationRef<'c, '_>, index: usize) -> Result<Type<'c>, String> {
    let missing = || format!("expected an operand #{index}");
    if index >= op.operand_count() {
        return Err(missing());
    }
    op.operand(index).map(|v| v.r#type()).map_err(|_| missing())
}

fn result_type<'c>(op: &OperationRef<'c, '_>, index: usize) -> Result<Type<'c>, String> {
    let missing = || format!("expected a result #{index}");
    if index >= op.result_count() {
        return Err(missing());
    }
    op.result(index).map(|v| v.r#type()).map_err(|_| missing())
}

fn memdesc<'c>(ty: Type<'c>, what: &str) -> Result<MemDesc<'c>, String> {
    MemDesc::from_type(ty)
        .ok_or_else(|| format!("{what} must be a !ttg.memdesc, not {}", type_text(ty)))
}

/// Shape and element type of a tensor or buffer.
fn shape_and_element(ty: Type) -> Option<(Vec<i64>, Type)> {
    if let Some(tensor) = as_tensor(ty) {
        return Some((tensor.shape, tensor.element));
    }
    MemDesc::from_type(ty).map(|md| (md.shape, md.element))
}

/// `a` and `b` must agree on shape and element type.
fn same_shape_and_element(a: Type, a_name: &str, b: Type, b_name: &str) -> Check {
    let (Some((a_shape, a_elem)), Some((b_shape, b_elem))) =
        (shape_and_element(a), shape_and_element(b))
    else {
        return Ok(());
    };
    if a_shape != b_shape {
        return Err(format!(
            "{a_name} shape {a_shape:?} does not match the {b_name} shape {b_shape:?}"
        ));
    }
    if a_elem != b_elem {
        return Err(format!(
            "{a_name} element type {a_elem} does not match the {b_name} element type {b_elem}"
        ));
    }
    Ok(())
}

fn non_negative(op: &OperationRef, attr: &str) -> Check {
    match int_attr(op, attr) {
        Some(value) if value < 0 => Err(format!("{attr} must be non-negative, not {value}")),
        _ => Ok(()),
    }
}

fn product(shape: &[i64]) -> i64 {
    shape
        .iter()
        .fold(1i64, |count, &dim| count.saturating_mul(dim))
}

/// Whether two buffers are views of the same kind of memory: element type, encoding, memory space
/// and mutability.
fn same_buffer_kind(src: &MemDesc, result: &MemDesc, check_encoding: bool) -> Check {
    if src.element != result.element {
        return Err(format!(
            "result element type {} differs from the source's {}",
            result.element, src.element
        ));
    }
    if check_encoding && src.encoding != result.encoding {
        return Err(format!(
            "result encoding {} differs from the source's {}",
            result.encoding, src.encoding
        ));
    }
    if src.memory_space != result.memory_space {
        return Err("result memory space differs from the source's".into());
    }
    if src.mutable != result.mutable {
        return Err("result mutability differs from the source's".into());
    }
    Ok(())
}

//===----------------------------------------------------------------------===//
// ttg
//===----------------------------------------------------------------------===//

fn local_alloc(op: &OperationRef) -> Check {
    let result = memdesc(result_type(op, 0)?, "the result")?;
    if result.alloc_shape != result.shape {
        return Err(format!(
            "allocates a whole buffer: drop the allocation shape {:?}",
            result.alloc_shape
        ));
    }
    if op.operand_count() > 0 {
        same_shape_and_element(operand_type(op, 0)?, "source", result.to_type(), "buffer")?;
    } else if !result.mutable {
        return Err("a buffer without an initial value must be mutable".into());
    }
    match int_attr(op, "alignment") {
        Some(alignment) if alignment <= 0 || !(alignment as u64).is_power_of_two() => {
            Err(format!("alignment must be a power of two, not {alignment}"))
        }
        _ => Ok(()),
    }
}

fn local_load(op: &OperationRef) -> Check {
    let src = operand_type(op, 0)?;
    same_shape_and_element(result_type(op, 0)?, "result", src, "buffer")
}

fn local_store(op: &OperationRef) -> Check {
    let dst = operand_type(op, 1)?;
    same_shape_and_element(operand_type(op, 0)?, "stored tensor", dst, "buffer")?;
    if !memdesc(dst, "the destination")?.mutable {
        return Err("cannot store into an immutable buffer".into());
    }
    Ok(())
}

fn memdesc_index(op: &OperationRef) -> Check {
    let src = memdesc(operand_type(op, 0)?, "the source")?;
    let result = memdesc(result_type(op, 0)?, "the result")?;
    if src.shape.len() < 2 {
        return Err(format!(
            "the source must have rank >= 2 to be indexed, not {}",
            src.shape.len()
        ));
    }
    if result.shape.len() + 1 != src.shape.len() {
        return Err(format!(
            "the result must have rank {} (one less than the source), not {}",
            src.shape.len() - 1,
            result.shape.len()
        ));
    }
    if result.shape[..] != src.shape[1..] {
        return Err(format!(
            "result shape {:?} must be the source shape without its first dim, {:?}",
            result.shape,
            &src.shape[1..]
        ));
    }
    if result.alloc_shape != result.shape && result.alloc_shape[..] != src.alloc_shape[1..] {
        return Err(format!(
            "result allocation shape {:?} must be {:?}",
            result.alloc_shape,
            &src.alloc_shape[1..]
        ));
    }
    same_buffer_kind(&src, &result, true)
}

fn memdesc_subslice(op: &OperationRef) -> Check {
    let src = memdesc(operand_type(op, 0)?, "the source")?;
    let result = memdesc(result_type(op, 0)?, "the result")?;
    let offsets = i32_array_attr(op, "offsets").unwrap_or_default();
    if result.shape.len() != src.shape.len() || offsets.len() != src.shape.len() {
        return Err(format!(
            "the source, the result and the offsets must all have rank {}",
            src.shape.len()
        ));
    }
    for (dim, ((&offset, &size), &extent)) in offsets
        .iter()
        .zip(&result.shape)
        .zip(&src.shape)
        .enumerate()
    {
        if offset < 0 || offset as i64 + size > extent {
            return Err(format!(
                "dim {dim}: offset {offset} + size {size} exceeds the source's {extent}"
            ));
        }
    }
    if result.alloc_shape != src.alloc_shape {
        return Err(format!(
            "result allocation shape {:?} must be the source's {:?}",
            result.alloc_shape, src.alloc_shape
        ));
    }
    same_buffer_kind(&src, &result, true)
}

fn memdesc_trans(op: &OperationRef) -> Check {
    let src = memdesc(operand_type(op, 0)?, "the source")?;
    let result = memdesc(result_type(op, 0)?, "the result")?;
    let order = i32_array_attr(op, "order").unwrap_or_default();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    if !sorted.iter().copied().eq(0..src.shape.len() as i32) {
        return Err(format!(
            "order {order:?} must be a permutation of 0..{}",
            src.shape.len()
        ));
    }
    let expected: Vec<i64> = order.iter().map(|&d| src.shape[d as usize]).collect();
    if result.shape != expected {
        return Err(format!(
            "result shape {:?} must be the source shape permuted by the order, {expected:?}",
            result.shape
        ));
    }
    same_buffer_kind(&src, &result, false)
}

fn memdesc_reshape(op: &OperationRef) -> Check {
    let src = memdesc(operand_type(op, 0)?, "the source")?;
    let result = memdesc(result_type(op, 0)?, "the result")?;
    if product(&src.shape) != product(&result.shape) {
        return Err(format!(
            "result shape {:?} must have as many elements as the source shape {:?}",
            result.shape, src.shape
        ));
    }
    same_buffer_kind(&src, &result, false)
}

fn async_copy_global_to_local(op: &OperationRef) -> Check {
    let src = operand_type(op, 0)?;
    let dst = memdesc(operand_type(op, 1)?, "the destination")?;
    let Some(pointers) = as_tensor(src) else {
        return Ok(());
    };
    if pointers.shape != dst.shape {
        return Err(format!(
            "pointer shape {:?} does not match the buffer shape {:?}",
            pointers.shape, dst.shape
        ));
    }
    if let Some((pointee, _)) = as_pointer(pointers.element)
        && pointee != dst.element
    {
        return Err(format!(
            "pointee type {pointee} does not match the buffer element type {}",
            dst.element
        ));
    }
    if !dst.mutable {
        return Err("cannot copy into an immutable buffer".into());
    }
    match int_attr(op, "contiguity") {
        Some(contiguity) if contiguity < 1 => {
            Err(format!("contiguity must be positive, not {contiguity}"))
        }
        _ => Ok(()),
    }
}

fn global_scratch_alloc(op: &OperationRef) -> Check {
    non_negative(op, "nbytes")?;
    if let Some(alignment) = int_attr(op, "alignment")
        && (alignment <= 0 || !(alignment as u64).is_power_of_two())
    {
        return Err(format!("alignment must be a power of two, not {alignment}"));
    }
    let result = result_type(op, 0)?;
    match as_pointer(result) {
        Some((pointee, 1)) if is_integer(pointee, Some(8)) => Ok(()),
        _ => Err(format!(
            "the result must be !tt.ptr<i8>, not {}",
            type_text(result)
        )),
    }
}

//===----------------------------------------------------------------------===//
// ttng
//===----------------------------------------------------------------------===//

fn warp_group_dot(op: &OperationRef) -> Check {
    let a = operand_type(op, 0)?;
    let b = operand_type(op, 1)?;
    let d = result_type(op, 0)?;
    let (Some((a_shape, a_elem)), Some((b_shape, b_elem)), Some(acc)) =
        (shape_and_element(a), shape_and_element(b), as_tensor(d))
    else {
        return Ok(());
    };
    if a_shape.len() != 2 || b_shape.len() != 2 || acc.shape.len() != 2 {
        return Err("A, B and the accumulator must be 2-D".into());
    }
    let (m, k, n) = (a_shape[0], a_shape[1], b_shape[1]);
    if b_shape[0] != k {
        return Err(format!(
            "A is {m}x{k} but B is {}x{n}: the K dims differ",
            b_shape[0]
        ));
    }
    if acc.shape != [m, n] {
        return Err(format!(
            "the accumulator shape {:?} must be [{m}, {n}]",
            acc.shape
        ));
    }
    if bit_width(a_elem) != bit_width(b_elem) {
        return Err(format!(
            "A ({a_elem}) and B ({b_elem}) must have elements of the same width"
        ));
    }
    let acc_encoding = acc.encoding.and_then(Encoding::from_attribute);
    if let Some(encoding) = &acc_encoding
        && !matches!(encoding, Encoding::NvidiaMma(mma) if mma.version_major == 3)
    {
        return Err("the accumulator needs an #ttg.nvidia_mma encoding of version 3".into());
    }
    if let (Some(a_tensor), Some(acc_attr)) = (as_tensor(a), acc.encoding) {
        let expected = |attr: Attribute| match Encoding::from_attribute(attr) {
            Some(Encoding::DotOperand(dot)) if dot.op_idx == 0 => Some(*dot.parent) == acc_encoding,
            _ => false,
        };
        if !a_tensor.encoding.is_some_and(expected) {
            return Err(format!(
                "A in registers needs a #ttg.dot_op<{{opIdx = 0, parent = {acc_attr}, ...}}> encoding"
            ));
        }
    }
    non_negative(op, "maxNumImpreciseAcc")
}

fn warp_group_dot_wait(op: &OperationRef) -> Check {
    if op.operand_count() == 0 {
        return Err("must wait on at least one value".into());
    }
    non_negative(op, "pendings")
}

/// An mbarrier: `!ttg.memdesc<1xi64>` (or one i64 per CTA).
fn check_barrier(op: &OperationRef, what: &str, ty: &Type) -> Check {
    let md = memdesc(*ty, what)?;
    let num_ctas = launch_shape(op).num_ctas.unwrap_or(1);
    if !is_integer(md.element, Some(64))
        || md.shape.len() != 1
        || (md.shape[0] != 1 && md.shape[0] != num_ctas)
    {
        return Err(format!(
            "{what} must be an mbarrier, a !ttg.memdesc<1xi64>, not {}",
            type_text(*ty)
        ));
    }
    Ok(())
}

fn barrier_with_count(op: &OperationRef, attr: &str, min: i64) -> Check {
    check_barrier(op, "alloc", &operand_type(op, 0)?)?;
    match int_attr(op, attr) {
        Some(value) if value < min => Err(format!("{attr} must be at least {min}, not {value}")),
        _ => Ok(()),
    }
}

/// The block of a tensor descriptor and the number of coordinates an access to it needs.
fn descriptor_block(ty: Type) -> Result<(Vec<i64>, Type), String> {
    as_tensor_desc(ty)
        .and_then(as_tensor)
        .map(|block| (block.shape, block.element))
        .ok_or_else(|| format!("expected a tensor descriptor, not {}", type_text(ty)))
}

fn check_tma_access(desc: Type, coords: usize, buffer: &MemDesc, what: &str) -> Check {
    let (block_shape, block_elem) = descriptor_block(desc)?;
    if coords != block_shape.len() {
        return Err(format!(
            "expected {} coordinates for a block of rank {}, got {coords}",
            block_shape.len(),
            block_shape.len()
        ));
    }
    if product(&buffer.shape) != product(&block_shape) || buffer.shape.last() != block_shape.last()
    {
        return Err(format!(
            "{what} shape {:?} does not match the descriptor's block shape {block_shape:?}",
            buffer.shape
        ));
    }
    if buffer.element != block_elem {
        return Err(format!(
            "{what} element type {} does not match the descriptor's {block_elem}",
            buffer.element
        ));
    }
    Ok(())
}

fn tma_load(op: &OperationRef) -> Check {
    let count = op.operand_count();
    if count < 4 {
        return Err(
            "expected a descriptor, coordinates, a buffer, a barrier and a predicate".into(),
        );
    }
    let result = memdesc(operand_type(op, count - 2)?, "the destination")?;
    check_tma_access(operand_type(op, 0)?, count - 4, &result, "destination")?;
    if !result.mutable {
        return Err("cannot copy into an immutable buffer".into());
    }
    check_barrier(op, "the barrier", &operand_type(op, count - 3)?)
}

fn tma_store(op: &OperationRef) -> Check {
    let count = op.operand_count();
    if count < 2 {
        return Err("expected a descriptor, coordinates and a buffer".into());
    }
    let src = memdesc(operand_type(op, count - 1)?, "the source")?;
    check_tma_access(operand_type(op, 0)?, count - 2, &src, "source")?;
    match int_attr(op, "kind") {
        Some(0) => Err("the reduction kind must not be none".into()),
        _ => Ok(()),
    }
}

fn tensormap_create(op: &OperationRef) -> Check {
    let segments = i32_array_attr(op, "operandSegmentSizes").unwrap_or_default();
    if let [_, _, box_dim, global_dim, global_stride, element_stride] = segments[..] {
        let rank = box_dim;
        if !(1..=5).contains(&rank) {
            return Err(format!("a TMA descriptor has rank 1 to 5, not {rank}"));
        }
        if global_dim != rank || element_stride != rank || global_stride != rank - 1 {
            return Err(format!(
                "rank {rank} needs {rank} box dims, {rank} global dims, {} global strides and {rank} element strides",
                rank - 1
            ));
        }
    }
    for (attr, max) in [
        ("elem_type", 15),
        ("interleave_layout", 2),
        ("swizzle_mode", 3),
        ("fill_mode", 1),
    ] {
        match int_attr(op, attr) {
            Some(value) if !(0..=max).contains(&value) => {
                return Err(format!("{attr} must be in 0..={max}, not {value}"));
            }
            _ => {}
        }
    }
    Ok(())
}
