//! `-tritium-descriptor-loads`: a dot loop's tiles loaded through tensors of pointers are read
//! through TMA descriptors instead (`tt.make_tensor_descriptor` before the
//! loop, `tt.descriptor_load` in it), so that `-tritongpu-pipeline` copies them with TMA bulk
//! copies and mbarriers rather than a `cp.async` per 16 bytes per thread.
//!
//! Why: Triton's tutorial 03 matmul (pointer tensors) runs 2.5% slower on an H100 than the same
//! tile loop written with tensor descriptors (`bench/matmul-forms.py`, 4096³): the descriptor
//! form issues one copy per tile and stage from one thread, where pointers cost every thread its
//! address arithmetic and copies, and the registers to hold them.
//!
//! A `tt.load` in an `scf.for` body is rewritten when everything below holds, so that the
//! descriptor reads exactly the elements the pointers did (or zeros that are never stored):
//! - its result is a 2-D tile used only as a `tt.dot` operand (B only with 16-bit elements:
//!   wgmma reads 8- and 32-bit B tiles K-major only, and TMA cannot transpose N-contiguous rows);
//! - its pointer is `splat(base) + rows * S + cols` (built from splats, broadcasts,
//!   `expand_dims`, adds and multiplies by a scalar), where `rows` and `cols` are `x +
//!   make_range` (optionally wrapped, below), the column stride is 1 and `S` a scalar stride:
//!   either an iter arg of the loop starting there and advanced each iteration by a splat of
//!   `a * S + b` (`a` rows and `b` columns, constants: tutorial 03), or computed so in the body,
//!   `x` linear in the induction variable (tutorial 11's `ks = ki * BLOCK_K + offs_k`);
//! - every dimension is bounded: its index is compared (`<`) with a scalar in the load's mask,
//!   such that, with the loop's constant bounds, the compared value plus the iteration's advance
//!   is the same in every iteration (tutorial 03's `offs_k < K - k * BLOCK_K` is column `< K`),
//!   the masked-off elements reading zero (the descriptor's padding); or its index wraps,
//!   constant over the loop (`(x + make_range) % m`, tutorial 03's `% M`, or `where(x +
//!   make_range < m, x + make_range, 0)`, tutorials 09 and 11's), where the descriptor
//!   reads zeros for the rows (columns) at `x + i >= m` instead of wrapping around. Those rows of
//!   the dot's result differ, so they must never be stored: the loaded tile's rows (columns) are
//!   followed through dots (rows of A and the accumulator are rows of the result, columns of B
//!   its columns), loop-carried values and elementwise ops to `tt.store`s whose mask holds
//!   `x + i < m` for that dimension; any other use leaves the load alone;
//! - a batched kernel's base may be moved per program: `splat(addptr(base, program_id(a) * B))`
//!   (`a_ptr + tl.program_id(2) * stride_ab + ...`) reads through a 3-D descriptor whose
//!   leading dimension is the batch (extent `tt.get_num_programs(a)`, stride `B`, box 1,
//!   coordinate the program id, always in bounds), the load returning the 2-D tile (a
//!   rank-reducing load);
//! - TMA's rules: the base 16-byte aligned and the row stride a multiple of 16 bytes by the
//!   divisibility facts (`tt.divisibility`), a tile of at most 256 by 256 elements with rows of a
//!   multiple of 16 bytes (a batch's stride a multiple of 16 bytes too).
//!
//! Only where no program builds a descriptor for one tile: at the function's top level, before
//! a loop around the dot loop (`-tritium-persistent-programs`'s program loop), their operands
//! defined there (made once for many tiles); or, one program a tile, right before the dot loop's
//! top-level op when the base, extents and stride are the function's arguments or constants
//! (`-tritium-host-descriptors` then makes them parameters the launcher encodes). Built in the
//! kernel for one tile, the tensor maps' writes and fences ate what the copies gained
//! (`bench/persistent-ab.py`, an H100). A loop's loads are rewritten together or not at all (the pipeliner pipelines
//! a loop's TMA copies or its `cp.async` copies, not both). The pointer iter args nothing else
//! reads are dropped. Offsets are assumed not to overflow 32 bits (the pointers computed them
//! in i32; the descriptor in 64 bits). Only for targets with TMA (sm_90 and later):
//! `-tritium-ttgir` runs it after persistence, before the conversion to TTGIR.

use crate::axis_info::{AxisInfoAnalysis, pointee_bytes};
use crate::ir_util::*;
use crate::ttir::util::{
    At, CmpI, attr, defined_outside, erase, for_parts, is_pure_elementwise, is_zero_constant,
    location, replace_uses, result, terminator,
};
use mlir_sys::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use tritium_dialects::ffi;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};

pub static PASS: PassDef = PassDef {
    argument: "tritium-descriptor-loads",
    summary: "Read a dot loop's pointer-tensor tiles through TMA descriptors",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith()],
    run,
};

/// TMA's largest box side, in elements.
const MAX_BOX: i64 = 256;
/// TMA's alignment of the base address and of row strides, in bytes.
const TMA_ALIGN: u64 = 16;

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    for func in collect_ops(module) {
        if op_name(func) == "tt.func" {
            rewrite_function(func);
        }
    }
    Ok(())
}

fn rewrite_function(func: MlirOperation) {
    let loads: Vec<MlirOperation> = collect_ops(func)
        .into_iter()
        .filter(|op| op_name(*op) == "tt.load")
        .collect();
    if loads.is_empty() {
        return;
    }
    let facts = AxisInfoAnalysis::run(func);
    let mut atoms = Atoms::default();
    // Each plan with the op its descriptors are made before: where they are made once for many
    // tiles (before a loop around the dot loop: the persistent programs' loop), or where the
    // launcher makes them (built in the kernel for one tile, their cost, a 128-byte tensor map
    // written and fenced per descriptor, ate what the copies gained: bench/persistent-ab.py).
    let mut plans: Vec<(Plan, MlirOperation)> = loads
        .into_iter()
        .filter_map(|load| {
            let plan = plan_load(load, &facts, &mut atoms)?;
            let site = descriptor_site(&plan, func, &atoms)?;
            Some((plan, site))
        })
        .collect();
    // A loop's loads all go through descriptors or none does: `-tritongpu-pipeline` pipelines a
    // loop's TMA copies or its cp.async copies, not both.
    let planned: HashSet<usize> = plans.iter().map(|(p, _)| p.load.ptr as usize).collect();
    plans.retain(|(plan, _)| {
        block_ops(blocks_of(plan.for_op)[0])
            .into_iter()
            .filter(|op| op_name(*op) == "tt.load")
            .all(|load| planned.contains(&(load.ptr as usize)))
    });
    // Loops whose pointer iter args may now be dead, with those args' indices.
    let mut loops: Vec<(MlirOperation, Vec<usize>)> = Vec::new();
    for (plan, outer) in &plans {
        apply(plan, *outer, &atoms);
        let carried: Vec<usize> = plan.iter_arg.into_iter().collect();
        match loops.iter_mut().find(|(l, _)| l.ptr == plan.for_op.ptr) {
            Some((_, indices)) => indices.extend(carried),
            None => loops.push((plan.for_op, carried)),
        }
    }
    for (for_op, indices) in loops {
        crate::pipeline::drop_dead_iter_args(for_op, &indices);
    }
}

// ----------------------------------------------------------------------------------------------
// Scalars as linear combinations
// ----------------------------------------------------------------------------------------------

/// A scalar i32 as `constant + sum(coefficient * atom)`, atoms being SSA values (by key) that are
/// not sums or constant multiples themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Lin {
    constant: i64,
    terms: BTreeMap<usize, i64>,
}

impl Lin {
    fn constant(value: i64) -> Lin {
        Lin {
            constant: value,
            terms: BTreeMap::new(),
        }
    }

    fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    fn coefficient(&self, atom: usize) -> i64 {
        self.terms.get(&atom).copied().unwrap_or(0)
    }

    /// `self + factor * other`, `None` on overflow.
    fn plus(&self, other: &Lin, factor: i64) -> Option<Lin> {
        let mut sum = self.clone();
        sum.constant = sum
            .constant
            .checked_add(other.constant.checked_mul(factor)?)?;
        for (&atom, &c) in &other.terms {
            let entry = sum.terms.entry(atom).or_insert(0);
            *entry = entry.checked_add(c.checked_mul(factor)?)?;
            if *entry == 0 {
                sum.terms.remove(&atom);
            }
        }
        Some(sum)
    }

    fn times(&self, factor: i64) -> Option<Lin> {
        Lin::default().plus(self, factor)
    }
}

/// The SSA values standing for atoms, by key.
#[derive(Default)]
struct Atoms {
    values: HashMap<usize, MlirValue>,
}

impl Atoms {
    fn atom(&mut self, value: MlirValue) -> Lin {
        self.values.insert(key(value), value);
        let mut lin = Lin::default();
        lin.terms.insert(key(value), 1);
        lin
    }

    /// `value` (an i32 scalar) as a linear combination.
    fn linear(&mut self, value: MlirValue) -> Option<Lin> {
        if !is_i32(value_type(value)) {
            return None;
        }
        if let Some(c) = constant_int(value) {
            return Some(Lin::constant(c));
        }
        let Some(op) = defining_op(value) else {
            return Some(self.atom(value));
        };
        let ins = operands(op);
        match op_name(op).as_str() {
            "arith.addi" => self.linear(ins[0])?.plus(&self.linear(ins[1])?, 1),
            "arith.subi" => self.linear(ins[0])?.plus(&self.linear(ins[1])?, -1),
            "arith.muli" => {
                let (a, b) = (self.linear(ins[0])?, self.linear(ins[1])?);
                match (a.as_constant(), b.as_constant()) {
                    (_, Some(c)) => a.times(c),
                    (Some(c), _) => b.times(c),
                    _ => Some(self.atom(value)),
                }
            }
            _ => Some(self.atom(value)),
        }
    }

    /// The scalar a tensor splats (`tt.splat` or a splat constant).
    fn splat_of(&mut self, value: MlirValue) -> Option<Lin> {
        if let Some(op) = defining_op(value)
            && op_name(op) == "tt.splat"
        {
            return self.linear(operands(op)[0]);
        }
        let op = defining_op(value).filter(|op| op_name(*op) == "arith.constant")?;
        constant_int(result(op, 0)).map(Lin::constant)
    }

    /// Whether every atom of `lin` is defined outside `op`.
    fn defined_outside(&self, lin: &Lin, op: MlirOperation) -> bool {
        lin.terms
            .keys()
            .all(|k| self.values.get(k).is_some_and(|v| defined_outside(*v, op)))
    }

    /// Whether every atom of `lin` but `allowed` (the loop's induction variable) is defined
    /// outside `op`.
    fn defined_outside_but(&self, lin: &Lin, op: MlirOperation, allowed: usize) -> bool {
        lin.terms
            .keys()
            .all(|&k| k == allowed || self.values.get(&k).is_some_and(|v| defined_outside(*v, op)))
    }

    /// Builds `lin` as i32 arithmetic at `at`.
    fn materialize(&self, lin: &Lin, at: At, loc: MlirLocation, i32_type: MlirType) -> MlirValue {
        let mut sum: Option<MlirValue> = None;
        for (atom, &c) in &lin.terms {
            let value = self.values[atom];
            let term = if c == 1 {
                value
            } else {
                let factor = at.int_constant(loc, i32_type, c);
                at.binary("arith.muli", loc, value, factor)
            };
            sum = Some(match sum {
                None => term,
                Some(s) => at.binary("arith.addi", loc, s, term),
            });
        }
        match sum {
            None => at.int_constant(loc, i32_type, lin.constant),
            Some(s) if lin.constant == 0 => s,
            Some(s) => {
                let c = at.int_constant(loc, i32_type, lin.constant);
                at.binary("arith.addi", loc, s, c)
            }
        }
    }
}

fn is_i32(ty: MlirType) -> bool {
    // SAFETY: `ty` is a live type; the width is read only from an integer type.
    unsafe { mlirTypeIsAInteger(ty) && mlirIntegerTypeGetWidth(ty) == 32 }
}

// ----------------------------------------------------------------------------------------------
// Index vectors, pointers and masks
// ----------------------------------------------------------------------------------------------

/// A 1-D index vector `start + make_range(0, size)`, optionally wrapped `% modulus`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct IndexVector {
    start: Lin,
    /// The scalar equal to `start` when the vector was built as `splat(scalar) + make_range(0,
    /// size)` (by key): coordinates reuse it rather than recomputing its terms.
    start_value: Option<usize>,
    size: i64,
    wrap: Option<Wrap>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Wrap {
    /// The vector before the `%` (by key), which stores' masks compare.
    unwrapped: usize,
    modulus: Lin,
}

fn index_vector(value: MlirValue, atoms: &mut Atoms) -> Option<IndexVector> {
    let op = defining_op(value)?;
    let ins = operands(op);
    match op_name(op).as_str() {
        "tt.make_range" => {
            let start = int_attr(op, "start")?;
            Some(IndexVector {
                start: Lin::constant(start),
                start_value: None,
                size: int_attr(op, "end")? - start,
                wrap: None,
            })
        }
        "arith.addi" => {
            for (vector, other) in [(ins[0], ins[1]), (ins[1], ins[0])] {
                if let Some(offset) = atoms.splat_of(other) {
                    let mut inner = index_vector(vector, atoms)?;
                    if inner.wrap.is_some() {
                        return None;
                    }
                    if inner.start == Lin::default()
                        && let Some(scalar) = defining_op(other)
                            .filter(|op| op_name(*op) == "tt.splat")
                            .map(|op| operands(op)[0])
                    {
                        atoms.values.insert(key(scalar), scalar);
                        inner.start_value = Some(key(scalar));
                    }
                    inner.start = inner.start.plus(&offset, 1)?;
                    return Some(inner);
                }
            }
            None
        }
        // `where(v < m, v, 0)`: past `m`, row 0 again (tutorial 09's and 11's persistent
        // kernels); the descriptor reads zeros there, as for `% m`.
        "arith.select" => {
            let cmp = defining_op(ins[0]).filter(|op| op_name(*op) == "arith.cmpi")?;
            let compared = operands(cmp);
            if int_attr(cmp, "predicate")? != CmpI::Slt as i64
                || compared[0].ptr != ins[1].ptr
                || atoms.splat_of(ins[2])? != Lin::default()
            {
                return None;
            }
            wrapped(ins[1], compared[1], atoms)
        }
        "arith.remsi" => wrapped(ins[0], ins[1], atoms),
        _ => None,
    }
}

/// `unwrapped` (an index vector) wrapped at the scalar `modulus` splats.
fn wrapped(unwrapped: MlirValue, modulus: MlirValue, atoms: &mut Atoms) -> Option<IndexVector> {
    let inner = index_vector(unwrapped, atoms)?;
    if inner.wrap.is_some() {
        return None;
    }
    let modulus = atoms.splat_of(modulus)?;
    Some(IndexVector {
        wrap: Some(Wrap {
            unwrapped: key(unwrapped),
            modulus,
        }),
        ..inner
    })
}

/// One summand of a 2-D offset tensor: `vector` along `dim` times `scale`.
struct Term {
    dim: usize,
    vector: IndexVector,
    scale: Lin,
}

/// A 2-D tensor of pointers as its scalar base, the scalar offsets added to that base
/// (`splat(addptr(p, o))`: a batch's offset), and offset terms.
struct PointerTerms {
    base: MlirValue,
    scalar_offsets: Vec<MlirValue>,
    terms: Vec<Term>,
}

fn pointer_terms(value: MlirValue, atoms: &mut Atoms) -> Option<PointerTerms> {
    let op = defining_op(value)?;
    let ins = operands(op);
    match op_name(op).as_str() {
        "tt.splat" => {
            let (mut base, mut scalar_offsets) = (ins[0], Vec::new());
            while let Some(add) = defining_op(base).filter(|op| op_name(*op) == "tt.addptr") {
                scalar_offsets.push(operands(add)[1]);
                base = operands(add)[0];
            }
            Some(PointerTerms {
                base,
                scalar_offsets,
                terms: Vec::new(),
            })
        }
        "tt.broadcast" => pointer_terms(ins[0], atoms),
        "tt.addptr" => {
            let mut found = pointer_terms(ins[0], atoms)?;
            found.terms.extend(offset_terms(ins[1], atoms)?);
            Some(found)
        }
        _ => None,
    }
}

/// A batch of tiles: the tile's base moved by `stride` elements per program along grid `axis`
/// (`a_ptr + tl.program_id(2) * stride_ab`), read as a leading descriptor dimension of extent
/// the program count, coordinate the program id.
struct Batch {
    index: MlirValue,
    axis: i64,
    stride: Lin,
}

/// `offset` (a scalar i32 added to the base) as a program id times a stride.
fn batch_of(offset: MlirValue, atoms: &mut Atoms) -> Option<Batch> {
    let program_id = |value: MlirValue| {
        defining_op(value)
            .filter(|op| op_name(*op) == "tt.get_program_id")
            .and_then(|op| int_attr(op, "axis"))
    };
    if !is_i32(value_type(offset)) {
        return None;
    }
    if let Some(mul) = defining_op(offset).filter(|op| op_name(*op) == "arith.muli") {
        let ins = operands(mul);
        for (index, stride) in [(ins[0], ins[1]), (ins[1], ins[0])] {
            if let Some(axis) = program_id(index) {
                let stride = atoms.linear(stride)?;
                return Some(Batch {
                    index,
                    axis,
                    stride,
                });
            }
        }
    }
    let lin = atoms.linear(offset)?;
    let [(&atom, &c)] = lin.terms.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let index = atoms.values[&atom];
    let axis = program_id(index)?;
    (lin.constant == 0).then(|| Batch {
        index,
        axis,
        stride: Lin::constant(c),
    })
}

fn offset_terms(value: MlirValue, atoms: &mut Atoms) -> Option<Vec<Term>> {
    let op = defining_op(value)?;
    let ins = operands(op);
    match op_name(op).as_str() {
        "tt.broadcast" => offset_terms(ins[0], atoms),
        "arith.addi" => {
            let mut terms = offset_terms(ins[0], atoms)?;
            terms.extend(offset_terms(ins[1], atoms)?);
            Some(terms)
        }
        "arith.muli" => {
            for (inner, other) in [(ins[0], ins[1]), (ins[1], ins[0])] {
                if let Some(factor) = atoms.splat_of(other) {
                    let mut terms = offset_terms(inner, atoms)?;
                    for term in &mut terms {
                        term.scale = match (term.scale.as_constant(), factor.as_constant()) {
                            (Some(c), _) => factor.times(c)?,
                            (_, Some(c)) => term.scale.times(c)?,
                            _ => return None,
                        };
                    }
                    return Some(terms);
                }
            }
            None
        }
        "tt.expand_dims" => {
            let axis = int_attr(op, "axis")?;
            if shape(value_type(value)).len() != 2 || !(0..2).contains(&axis) {
                return None;
            }
            Some(vec![Term {
                dim: 1 - axis as usize,
                vector: index_vector(ins[0], atoms)?,
                scale: Lin::constant(1),
            }])
        }
        _ => None,
    }
}

/// `vector < bound` along `dim`, one conjunct of a mask.
struct Bounded {
    dim: usize,
    vector: IndexVector,
    vector_key: usize,
    bound: Lin,
}

/// The conjuncts of a 2-D mask that compare an index vector with a splat scalar. With `strict`,
/// `None` when any conjunct is something else (a load's mask must be understood whole; a store's
/// may hold more).
fn mask_conjuncts(mask: MlirValue, strict: bool, atoms: &mut Atoms) -> Option<Vec<Bounded>> {
    let mut found = Vec::new();
    let mut work = vec![mask];
    while let Some(value) = work.pop() {
        let op = defining_op(value);
        let name = op.map(op_name).unwrap_or_default();
        match name.as_str() {
            "arith.andi" | "tt.broadcast" => work.extend(operands(op?)),
            "arith.cmpi" => match compared(op?, atoms) {
                Some(bounded) => found.push(bounded),
                None if strict => return None,
                None => {}
            },
            _ if strict => return None,
            _ => {}
        }
    }
    Some(found)
}

/// `expand_dims(vector) < splat(bound)`.
fn compared(cmp: MlirOperation, atoms: &mut Atoms) -> Option<Bounded> {
    if int_attr(cmp, "predicate")? != CmpI::Slt as i64 {
        return None;
    }
    let ins = operands(cmp);
    let expand = defining_op(ins[0]).filter(|op| op_name(*op) == "tt.expand_dims")?;
    let axis = int_attr(expand, "axis")?;
    if shape(value_type(ins[0])).len() != 2 || !(0..2).contains(&axis) {
        return None;
    }
    let vector = operands(expand)[0];
    Some(Bounded {
        dim: 1 - axis as usize,
        vector: index_vector(vector, atoms)?,
        vector_key: key(vector),
        bound: atoms.splat_of(ins[1])?,
    })
}

// ----------------------------------------------------------------------------------------------
// Planning a load
// ----------------------------------------------------------------------------------------------

/// How one dimension of the tile is read: coordinate `start + moved` in a tensor of extent
/// `bound`, `moved` being `rate * (iv - lb)`.
struct DimPlan {
    start: Lin,
    start_value: Option<usize>,
    moved: Lin,
    bound: Lin,
}

struct Plan {
    load: MlirOperation,
    for_op: MlirOperation,
    /// The pointer's iter-arg index (block argument `iter_arg + 1`), when a loop carries it.
    iter_arg: Option<usize>,
    base: MlirValue,
    row_stride: Lin,
    dims: [DimPlan; 2],
    batch: Option<Batch>,
}

fn plan_load(load: MlirOperation, facts: &AxisInfoAnalysis, atoms: &mut Atoms) -> Option<Plan> {
    // SAFETY: the parent of a live op.
    let for_op = unsafe { mlirOperationGetParentOperation(load) };
    if for_op.ptr.is_null() || op_name(for_op) != "scf.for" {
        return None;
    }
    let body = *blocks_of(for_op).first()?;
    let induction = *block_args(body).first()?;
    let parts = for_parts(for_op);
    let (lower_bound, step) = (constant_int(parts.lb)?, constant_int(parts.step)?);
    if !is_i32(value_type(induction)) || step <= 0 {
        return None;
    }
    if bool_attr(load, "isVolatile") == Some(true) {
        return None;
    }
    let ins = operands(load);
    let (pointer, mask, other) = (ins[0], ins.get(1).copied(), ins.get(2).copied());
    let tile = result(load, 0);
    let tile_shape = shape(value_type(tile));
    let [rows, cols] = tile_shape[..] else {
        return None;
    };
    let bytes = pointee_bytes(value_type(pointer));
    if rows > MAX_BOX || cols > MAX_BOX || !(cols as u64 * bytes).is_multiple_of(TMA_ALIGN) {
        return None;
    }
    if !only_dot_operand(tile, bytes) {
        return None;
    }
    // The pointer: an iter arg of this loop advanced by a splat each iteration (its initial
    // value decomposed), or computed in the body from the induction variable and values from
    // outside (decomposed as it is).
    let carried = block_args(body)
        .iter()
        .skip(1)
        .position(|arg| arg.ptr == pointer.ptr);
    let (iter_arg, delta, start) = match carried {
        Some(iter_arg) => {
            let next = operands(terminator(body))[iter_arg];
            let advance = defining_op(next).filter(|op| op_name(*op) == "tt.addptr")?;
            if operands(advance)[0].ptr != pointer.ptr {
                return None;
            }
            let delta = atoms.splat_of(operands(advance)[1])?;
            (Some(iter_arg), delta, parts.inits[iter_arg])
        }
        None => (None, Lin::default(), pointer),
    };

    let PointerTerms {
        base,
        scalar_offsets,
        terms,
    } = pointer_terms(start, atoms)?;
    let batch = match scalar_offsets[..] {
        [] => None,
        [offset] => Some(batch_of(offset, atoms)?),
        _ => return None,
    };
    let mut by_dim: [Option<Term>; 2] = [None, None];
    for term in terms {
        let slot = &mut by_dim[term.dim];
        if slot.is_some() {
            return None;
        }
        *slot = Some(term);
    }
    let [Some(row_term), Some(col_term)] = by_dim else {
        return None;
    };
    if row_term.vector.size != rows
        || col_term.vector.size != cols
        || col_term.scale != Lin::constant(1)
    {
        return None;
    }
    let row_stride = row_term.scale.clone();
    // TMA: base and row stride 16-byte aligned.
    let base_divisibility = facts.get(base).divisibility.first().copied().unwrap_or(1);
    if !base_divisibility.is_multiple_of(TMA_ALIGN)
        || !(divisibility(&row_stride, atoms, facts) * bytes).is_multiple_of(TMA_ALIGN)
    {
        return None;
    }
    if !atoms.defined_outside(&row_stride, for_op) || !defined_outside(base, for_op) {
        return None;
    }
    if let Some(batch) = &batch
        && (!(divisibility(&batch.stride, atoms, facts) * bytes).is_multiple_of(TMA_ALIGN)
            || !atoms.defined_outside(&batch.stride, for_op)
            || !defined_outside(batch.index, for_op))
    {
        return None;
    }

    let conjuncts = match mask {
        Some(mask) => mask_conjuncts(mask, true, atoms)?,
        None => Vec::new(),
    };
    if mask.is_some() && other.is_some_and(|o| !is_zero_constant(o)) {
        return None;
    }
    let shape = LoopShape {
        for_op,
        lower_bound,
        step,
        iv: atoms.atom(induction),
    };
    for (row_advance, col_advance) in advances(&delta, &row_stride) {
        let dims = [
            plan_dim(&row_term, row_advance, 0, &conjuncts, &shape, atoms),
            plan_dim(&col_term, col_advance, 1, &conjuncts, &shape, atoms),
        ];
        let [Some(row_dim), Some(col_dim)] = dims else {
            continue;
        };
        let wraps: Vec<Condition> = [&row_term, &col_term]
            .iter()
            .enumerate()
            .filter_map(|(dim, term)| {
                term.vector.wrap.as_ref().map(|wrap| Condition {
                    dim,
                    unwrapped_key: wrap.unwrapped,
                    unwrapped: IndexVector {
                        wrap: None,
                        ..term.vector.clone()
                    },
                    modulus: wrap.modulus.clone(),
                })
            })
            .collect();
        if !wraps.is_empty() && !wrapped_never_stored(tile, wraps, atoms) {
            return None;
        }
        return Some(Plan {
            load,
            for_op,
            iter_arg,
            base,
            row_stride,
            dims: [row_dim, col_dim],
            batch,
        });
    }
    None
}

/// The ways the pointer's per-iteration advance `delta` splits into rows of `row_stride` and
/// columns: unique with a symbolic stride; with a constant one, columns first, then rows.
fn advances(delta: &Lin, row_stride: &Lin) -> Vec<(i64, i64)> {
    if let Some(stride) = row_stride.as_constant() {
        let Some(d) = delta.as_constant() else {
            return Vec::new();
        };
        let mut ways = vec![(0, d)];
        if stride != 0 && d != 0 && d % stride == 0 {
            ways.push((d / stride, 0));
        }
        return ways;
    }
    let Some((&atom, &c)) = row_stride.terms.iter().next() else {
        return Vec::new();
    };
    let rows = delta.coefficient(atom) / c;
    match delta
        .plus(row_stride, -rows)
        .and_then(|rest| rest.as_constant())
    {
        Some(cols) => vec![(rows, cols)],
        None => Vec::new(),
    }
}

/// The largest power of two known to divide `lin`.
fn divisibility(lin: &Lin, atoms: &Atoms, facts: &AxisInfoAnalysis) -> u64 {
    let mut d = if lin.constant == 0 {
        crate::axis_info::MAX_DIVISIBILITY
    } else {
        1 << lin.constant.unsigned_abs().trailing_zeros().min(30)
    };
    for (atom, &c) in &lin.terms {
        let fact = facts
            .get(atoms.values[atom])
            .divisibility
            .first()
            .copied()
            .unwrap_or(1);
        let term = fact.saturating_mul(1 << c.unsigned_abs().trailing_zeros().min(30));
        d = crate::axis_info::gcd(d, term);
    }
    d
}

/// The loop a load is planned in: its constant lower bound and step, its induction variable.
struct LoopShape {
    for_op: MlirOperation,
    lower_bound: i64,
    step: i64,
    iv: Lin,
}

fn plan_dim(
    term: &Term,
    advance: i64,
    dim: usize,
    conjuncts: &[Bounded],
    shape: &LoopShape,
    atoms: &Atoms,
) -> Option<DimPlan> {
    let LoopShape {
        for_op,
        lower_bound,
        step,
        ref iv,
    } = *shape;
    let iv_key = *iv.terms.keys().next()?;
    if advance % step != 0 || !atoms.defined_outside_but(&term.vector.start, for_op, iv_key) {
        return None;
    }
    let rate = advance / step;
    let moved = Lin::default()
        .plus(iv, rate)?
        .plus(&Lin::constant(lower_bound), -rate)?;
    // The coordinate's terms, checked for overflow here once.
    term.vector.start.plus(&moved, 1)?;
    let mut masks = conjuncts.iter().filter(|c| c.dim == dim);
    let (first, second) = (masks.next(), masks.next());
    if second.is_some() {
        return None;
    }
    if let Some(wrap) = &term.vector.wrap {
        // The wrapped index is always in bounds (rows past the modulus read zeros instead); the
        // rows that differ must be the same in every iteration (the accumulator sums them).
        if rate != 0
            || first.is_some()
            || !atoms.defined_outside(&wrap.modulus, for_op)
            || !atoms.defined_outside(&term.vector.start, for_op)
        {
            return None;
        }
        return Some(DimPlan {
            start: term.vector.start.clone(),
            start_value: term.vector.start_value,
            moved,
            bound: wrap.modulus.clone(),
        });
    }
    let masked = first?;
    if masked.vector.wrap.is_some() || masked.vector.size != term.vector.size {
        return None;
    }
    // Element i is read when masked.start + i < E, its coordinate being start + i + rate * (iv -
    // lb): in bounds when the coordinate is below E - masked.start + start + rate * (iv - lb),
    // which must not depend on the iteration.
    let bound = masked
        .bound
        .plus(&masked.vector.start, -1)?
        .plus(&term.vector.start, 1)?
        .plus(&moved, 1)?;
    if bound.coefficient(iv_key) != 0 || !atoms.defined_outside(&bound, for_op) {
        return None;
    }
    Some(DimPlan {
        start: term.vector.start.clone(),
        start_value: term.vector.start_value,
        moved,
        bound,
    })
}

/// Whether `value` is used only as operand 0 or 1 of `tt.dot`s, and as operand 1 (its rows
/// along K, N contiguous) only with 16-bit elements: wgmma reads 8- and 32-bit B operands
/// K-major only, which a TMA copy of N-contiguous rows cannot give (the pointer path's copies
/// transpose them on their way to shared memory).
fn only_dot_operand(value: MlirValue, bytes: u64) -> bool {
    let readers = uses(value);
    !readers.is_empty()
        && readers.iter().all(|&(op, index)| {
            op_name(op) == "tt.dot" && (index == 0 || (index == 1 && bytes == 2))
        })
}

// ----------------------------------------------------------------------------------------------
// Wrapped rows are never stored
// ----------------------------------------------------------------------------------------------

/// Elements at index `i` along `dim` with `unwrapped[i] >= modulus` may differ from the
/// pointers' reading.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Condition {
    dim: usize,
    unwrapped_key: usize,
    unwrapped: IndexVector,
    modulus: Lin,
}

/// Follows the elements the conditions mark from `tile` to every use: true when each reaches
/// only `tt.store`s whose masks exclude them.
fn wrapped_never_stored(tile: MlirValue, conditions: Vec<Condition>, atoms: &mut Atoms) -> bool {
    let mut marked: HashMap<usize, Vec<Condition>> = HashMap::new();
    let mut work: Vec<(MlirValue, Vec<Condition>)> = vec![(tile, conditions)];
    while let Some((value, conditions)) = work.pop() {
        let known = marked.entry(key(value)).or_default();
        let fresh: Vec<Condition> = conditions
            .into_iter()
            .filter(|c| !known.contains(c))
            .collect();
        if fresh.is_empty() {
            continue;
        }
        known.extend(fresh.iter().cloned());
        let all = known.clone();
        for (user, index) in uses(value) {
            let name = op_name(user);
            match name.as_str() {
                "tt.dot" => {
                    // Rows of A and of the accumulator are rows of the result; columns of B
                    // its columns. A mark along K would spread to every element.
                    let kept_dim = match index {
                        0 => Some(0),
                        1 => Some(1),
                        2 => None,
                        _ => return false,
                    };
                    if kept_dim.is_some_and(|d| all.iter().any(|c| c.dim != d)) {
                        return false;
                    }
                    work.push((result(user, 0), all.clone()));
                }
                "scf.yield" => {
                    // SAFETY: the parent of a live op.
                    let parent = unsafe { mlirOperationGetParentOperation(user) };
                    // Carried to the next iteration, the marked rows must be the same ones
                    // there: a loop over tiles (whose rows change) ends the chase.
                    let invariant = all.iter().all(|c| {
                        atoms.defined_outside(&c.unwrapped.start, parent)
                            && atoms.defined_outside(&c.modulus, parent)
                    });
                    if op_name(parent) != "scf.for" || !invariant {
                        return false;
                    }
                    let body = blocks_of(parent)[0];
                    work.push((result(parent, index), all.clone()));
                    work.push((block_args(body)[index + 1], all.clone()));
                }
                "tt.store" => {
                    let Some(&mask) = operands(user).get(2) else {
                        return false;
                    };
                    if index != 1 || !mask_excludes(mask, &all, atoms) {
                        return false;
                    }
                }
                "ttg.convert_layout" => work.push((result(user, 0), all.clone())),
                _ if is_pure_elementwise(&name)
                    && results(user)
                        .iter()
                        .all(|r| shape(value_type(*r)) == shape(value_type(value))) =>
                {
                    for r in results(user) {
                        work.push((r, all.clone()));
                    }
                }
                _ => return false,
            }
        }
    }
    true
}

/// Whether `mask` holds `unwrapped < modulus` along each condition's dimension.
fn mask_excludes(mask: MlirValue, conditions: &[Condition], atoms: &mut Atoms) -> bool {
    let Some(conjuncts) = mask_conjuncts(mask, false, atoms) else {
        return false;
    };
    conditions.iter().all(|condition| {
        conjuncts.iter().any(|c| {
            c.dim == condition.dim
                && c.bound == condition.modulus
                && (c.vector_key == condition.unwrapped_key || c.vector == condition.unwrapped)
        })
    })
}

// ----------------------------------------------------------------------------------------------
// The rewrite
// ----------------------------------------------------------------------------------------------

/// Rewrites the plan's load, its descriptor made right before `outer`.
fn apply(plan: &Plan, outer: MlirOperation, atoms: &Atoms) {
    let load = plan.load;
    let loc = location(load);
    let ctx = context_of(load);
    // SAFETY: integer types of the live context.
    let (i32_type, i64_type) =
        unsafe { (mlirIntegerTypeGet(ctx, 32), mlirIntegerTypeGet(ctx, 64)) };
    let at = At::Before(outer);
    let stride_i64 = |lin: &Lin| {
        let stride32 = atoms.materialize(lin, at, loc, i32_type);
        at.value("arith.extsi", loc, &[stride32], i64_type, &[])
    };
    let mut extents: Vec<MlirValue> = Vec::new();
    let mut strides: Vec<MlirValue> = Vec::new();
    if let Some(batch) = &plan.batch {
        // SAFETY: an i32 attribute of the live context (the axis, as the front end writes it).
        let axis = unsafe { mlirIntegerAttrGet(i32_type, batch.axis) };
        extents.push(at.value("tt.get_num_programs", loc, &[], i32_type, &[("axis", axis)]));
        strides.push(stride_i64(&batch.stride));
    }
    extents.extend(
        plan.dims
            .iter()
            .map(|d| atoms.materialize(&d.bound, at, loc, i32_type)),
    );
    strides.push(stride_i64(&plan.row_stride));
    strides.push(at.int_constant(loc, i64_type, 1));
    let tile_type = value_type(result(load, 0));
    // A batch reads a box of one tile (`1 x rows x cols`) as the tile itself (a rank-reducing
    // load, which Triton's verifier allows).
    let block_type = if plan.batch.is_some() {
        let mut dims = vec![1];
        dims.extend(shape(tile_type));
        // SAFETY: a ranked tensor type of the live context, no encoding (TTIR).
        unsafe {
            mlirRankedTensorTypeGet(
                dims.len() as isize,
                dims.as_ptr(),
                element_type(tile_type),
                mlirAttributeGetNull(),
            )
        }
    } else {
        tile_type
    };
    // SAFETY: a tensor type of the live context (no encoding before the TTGIR conversion).
    let desc_type = unsafe { ffi::tritiumTensorDescTypeGet(block_type) };
    let mut operands_of_desc = vec![plan.base];
    operands_of_desc.extend(extents);
    operands_of_desc.extend(strides);
    let desc = at.value(
        "tt.make_tensor_descriptor",
        loc,
        &operands_of_desc,
        desc_type,
        &[],
    );
    let here = At::Before(load);
    let coordinates: Vec<MlirValue> = plan
        .dims
        .iter()
        .map(|d| match d.start_value {
            Some(start) if d.moved == Lin::default() => atoms.values[&start],
            Some(start) => {
                let step = atoms.materialize(&d.moved, here, loc, i32_type);
                here.binary("arith.addi", loc, atoms.values[&start], step)
            }
            None => {
                let lin = d.start.plus(&d.moved, 1).unwrap_or_default();
                atoms.materialize(&lin, here, loc, i32_type)
            }
        })
        .collect();
    let mut attrs = Vec::new();
    for name in ["cache", "evict"] {
        if let Some(a) = attr(load, name) {
            attrs.push((name, a));
        }
    }
    let mut operands_of_load = vec![desc];
    operands_of_load.extend(plan.batch.as_ref().map(|b| b.index));
    operands_of_load.extend(coordinates);
    let read = here.value(
        "tt.descriptor_load",
        loc,
        &operands_of_load,
        tile_type,
        &attrs,
    );
    replace_uses(result(load, 0), read);
    erase(load);
}

/// Where the plan's descriptor is made: before the loop of `func`'s body block around the dot
/// loop when every operand of the descriptor is defined before it (once for all its
/// iterations); or, when its base, extents and stride are `func`'s arguments or constants, before
/// the top-level op holding the dot loop (`-tritium-host-descriptors` then makes it a parameter
/// the launcher encodes: nothing is built in the kernel).
fn descriptor_site(plan: &Plan, func: MlirOperation, atoms: &Atoms) -> Option<MlirOperation> {
    let top = top_level_ancestor(plan.for_op, func);
    let before_top = defined_outside(plan.base, top)
        && atoms.defined_outside(&plan.row_stride, top)
        && plan
            .dims
            .iter()
            .all(|d| atoms.defined_outside(&d.bound, top))
        && plan
            .batch
            .as_ref()
            .is_none_or(|b| atoms.defined_outside(&b.stride, top) && defined_outside(b.index, top));
    if top.ptr != plan.for_op.ptr && op_name(top) == "scf.for" && before_top {
        return Some(top);
    }
    let entry = *blocks_of(func).first()?;
    let argument = |value: MlirValue| {
        // SAFETY: `value` is a live value; its owner block is read only from a block argument.
        unsafe {
            mlirValueIsABlockArgument(value) && mlirBlockArgumentGetOwner(value).ptr == entry.ptr
        }
    };
    let argument_or_constant = |lin: &Lin| {
        lin.as_constant().is_some_and(|c| c >= 0)
            || (lin.constant == 0
                && lin.terms.len() == 1
                && lin
                    .terms
                    .iter()
                    .all(|(atom, &c)| c == 1 && argument(atoms.values[atom])))
    };
    // A batch's extent is the program count, which the launcher knows.
    let from_arguments = argument(plan.base)
        && argument_or_constant(&plan.row_stride)
        && plan.dims.iter().all(|d| argument_or_constant(&d.bound))
        && plan
            .batch
            .as_ref()
            .is_none_or(|b| argument_or_constant(&b.stride));
    from_arguments.then_some(top)
}

/// The op of `func`'s body block that is `op` or holds it.
fn top_level_ancestor(op: MlirOperation, func: MlirOperation) -> MlirOperation {
    let mut current = op;
    // SAFETY: parent queries on live ops below `func`.
    unsafe {
        loop {
            let parent = mlirOperationGetParentOperation(current);
            if parent.ptr.is_null() || parent.ptr == func.ptr {
                return current;
            }
            current = parent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(constant: i64, terms: &[(usize, i64)]) -> Lin {
        Lin {
            constant,
            terms: terms.iter().copied().collect(),
        }
    }

    #[test]
    fn linear_combinations_cancel_and_overflow() {
        // K - 64 k + 64 k = K: the induction variable's terms cancel and leave no zero entry.
        let moving = lin(0, &[(1, 1), (2, -64)]);
        let sum = moving.plus(&lin(0, &[(2, 64)]), 1).unwrap();
        assert_eq!(sum, lin(0, &[(1, 1)]));
        assert_eq!(sum.coefficient(2), 0);
        assert_eq!(lin(5, &[]).as_constant(), Some(5));
        assert_eq!(sum.as_constant(), None);
        assert!(lin(i64::MAX, &[]).plus(&lin(1, &[]), 1).is_none());
        assert!(lin(0, &[(1, i64::MAX)]).times(2).is_none());
    }

    #[test]
    fn advances_split_rows_and_columns() {
        // A symbolic row stride S: 64 S is 64 rows, 64 is 64 columns, 64 S + 8 both.
        let stride = lin(0, &[(7, 1)]);
        assert_eq!(advances(&lin(0, &[(7, 64)]), &stride), vec![(64, 0)]);
        assert_eq!(advances(&lin(64, &[]), &stride), vec![(0, 64)]);
        assert_eq!(advances(&lin(8, &[(7, 64)]), &stride), vec![(64, 8)]);
        // Not a multiple of the stride's atom: no split.
        assert_eq!(advances(&lin(0, &[(9, 64)]), &stride), vec![]);
        // A constant stride is ambiguous: columns first, then whole rows.
        assert_eq!(
            advances(&lin(128, &[]), &lin(64, &[])),
            vec![(0, 128), (2, 0)]
        );
        assert_eq!(advances(&lin(32, &[]), &lin(64, &[])), vec![(0, 32)]);
    }
}
