//! Axis-info analysis: for every integer or pointer value (scalar or tensor), per dimension,
//! - `contiguity`: length of runs of consecutive values (+1 each step) along the dim,
//! - `divisibility`: largest power of two dividing the first value of each run (bytes for pointers),
//! - `constancy`: length of runs of equal values along the dim.
//!
//! Seeded by `tt.divisibility`/`tt.contiguity`/`tt.constancy` on function arguments, propagated
//! forward through constants, make_range, splat, broadcast, expand_dims, arith, addptr, select,
//! and `scf.for`/`scf.if` (to a fixed point over loop-carried values).

use crate::ir_util::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::ffi::str_ref;

/// The largest divisibility tracked (2^30), standing for "divisible by anything we care about".
pub const MAX_DIVISIBILITY: u64 = 1 << 30;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisInfo {
    pub contiguity: Vec<u64>,
    pub divisibility: Vec<u64>,
    pub constancy: Vec<u64>,
    /// The value, when it is a known constant (scalar or splat).
    pub constant: Option<i64>,
}

impl AxisInfo {
    fn unknown(rank: usize) -> AxisInfo {
        let rank = rank.max(1);
        AxisInfo {
            contiguity: vec![1; rank],
            divisibility: vec![1; rank],
            constancy: vec![1; rank],
            constant: None,
        }
    }

    fn constant_of(value: i64, shape: &[i64]) -> AxisInfo {
        let rank = shape.len().max(1);
        let dims: Vec<u64> = if shape.is_empty() {
            vec![1]
        } else {
            shape.iter().map(|&s| s as u64).collect()
        };
        AxisInfo {
            contiguity: vec![1; rank],
            divisibility: vec![pow2_divisor(value); rank],
            constancy: dims,
            constant: Some(value),
        }
    }

    fn rank(&self) -> usize {
        self.contiguity.len()
    }

    /// Contiguity along `d`, 1 (no fact) for a dim this info does not have.
    fn contiguity_at(&self, d: usize) -> u64 {
        self.contiguity.get(d).copied().unwrap_or(1)
    }

    /// Divisibility along `d`, 1 (no fact) for a dim this info does not have.
    fn divisibility_at(&self, d: usize) -> u64 {
        self.divisibility.get(d).copied().unwrap_or(1)
    }

    /// Constancy along `d`, 1 (no fact) for a dim this info does not have.
    fn constancy_at(&self, d: usize) -> u64 {
        self.constancy.get(d).copied().unwrap_or(1)
    }

    /// Merge of two possible values (loop back-edges, scf.if branches): the weaker facts.
    fn join(&self, other: &AxisInfo) -> AxisInfo {
        let rank = self.rank().min(other.rank());
        AxisInfo {
            contiguity: (0..rank)
                .map(|d| gcd(self.contiguity[d], other.contiguity[d]))
                .collect(),
            divisibility: (0..rank)
                .map(|d| gcd(self.divisibility[d], other.divisibility[d]))
                .collect(),
            constancy: (0..rank)
                .map(|d| gcd(self.constancy[d], other.constancy[d]))
                .collect(),
            constant: if self.constant == other.constant {
                self.constant
            } else {
                None
            },
        }
    }
}

pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn pow2_divisor(value: i64) -> u64 {
    if value == 0 {
        MAX_DIVISIBILITY
    } else {
        (1u64 << value.unsigned_abs().trailing_zeros()).min(MAX_DIVISIBILITY)
    }
}

/// Axis info of every value in a function (or module).
pub struct AxisInfoAnalysis {
    infos: HashMap<usize, AxisInfo>,
}

impl AxisInfoAnalysis {
    /// Runs the analysis over everything nested in `root`.
    pub fn run(root: MlirOperation) -> AxisInfoAnalysis {
        let mut analysis = AxisInfoAnalysis {
            infos: HashMap::new(),
        };
        // Loop-carried values converge in a few rounds: facts only get weaker.
        for _ in 0..8 {
            let before = analysis.infos.clone();
            analysis.visit(root);
            if before == analysis.infos {
                break;
            }
        }
        analysis
    }

    /// The facts about `value` (unknown values get the weakest facts).
    pub fn get(&self, value: MlirValue) -> AxisInfo {
        self.infos
            .get(&key(value))
            .cloned()
            .unwrap_or_else(|| AxisInfo::unknown(shape(value_type(value)).len()))
    }

    fn set(&mut self, value: MlirValue, info: AxisInfo) {
        self.infos.insert(key(value), info);
    }

    /// For loop-carried and region values: join with what is already known.
    fn merge(&mut self, value: MlirValue, info: AxisInfo) {
        let merged = match self.infos.get(&key(value)) {
            Some(old) => old.join(&info),
            None => info,
        };
        self.set(value, merged);
    }

    fn visit(&mut self, root: MlirOperation) {
        for op in collect_ops(root) {
            self.visit_op(op);
        }
    }

    fn seed_function_arguments(&mut self, func: MlirOperation) {
        let Some(entry) = blocks_of(func).first().copied() else {
            return;
        };
        for (i, arg) in block_args(entry).into_iter().enumerate() {
            let rank = shape(value_type(arg)).len().max(1);
            let mut info = AxisInfo::unknown(rank);
            if let Some(d) = arg_attr_int(func, i, "tt.divisibility") {
                info.divisibility = vec![d as u64; rank];
            }
            if let Some(c) = arg_attr_int(func, i, "tt.contiguity") {
                info.contiguity = vec![c as u64; rank];
            }
            if let Some(c) = arg_attr_int(func, i, "tt.constancy") {
                info.constancy = vec![c as u64; rank];
            }
            self.set(arg, info);
        }
    }

    fn visit_op(&mut self, op: MlirOperation) {
        let name = op_name(op);
        let ins = operands(op);
        let outs = results(op);
        let out_shape = outs
            .first()
            .map(|v| shape(value_type(*v)))
            .unwrap_or_default();
        let rank = out_shape.len().max(1);
        // A missing operand (only in IR that failed verification) has no facts.
        let get = |s: &Self, i: usize| match ins.get(i) {
            Some(value) => s.get(*value),
            None => AxisInfo::unknown(rank),
        };
        let info = match name.as_str() {
            "tt.func" | "func.func" => {
                self.seed_function_arguments(op);
                return;
            }
            "arith.constant" => match outs.first().and_then(|out| constant_int(*out)) {
                Some(value) => AxisInfo::constant_of(value, &out_shape),
                None => AxisInfo::unknown(rank),
            },
            // A value never read before it is redefined (fused loops' placeholders): it
            // weakens nothing it is joined with.
            "ub.poison" => {
                let dims: Vec<u64> = if out_shape.is_empty() {
                    vec![1]
                } else {
                    out_shape.iter().map(|&s| s.max(1) as u64).collect()
                };
                AxisInfo {
                    contiguity: dims.clone(),
                    divisibility: vec![MAX_DIVISIBILITY; rank],
                    constancy: dims,
                    constant: None,
                }
            }
            "tt.make_range" => {
                let start = int_attr(op, "start").unwrap_or(0);
                let end = int_attr(op, "end").unwrap_or(start.saturating_add(1));
                AxisInfo {
                    contiguity: vec![end.saturating_sub(start).max(1) as u64],
                    divisibility: vec![pow2_divisor(start)],
                    constancy: vec![1],
                    constant: None,
                }
            }
            "tt.splat" => {
                let src = get(self, 0);
                let dims: Vec<u64> = if out_shape.is_empty() {
                    vec![1]
                } else {
                    out_shape.iter().map(|&s| s.max(1) as u64).collect()
                };
                AxisInfo {
                    contiguity: vec![1; rank],
                    divisibility: vec![src.divisibility_at(0); rank],
                    constancy: dims,
                    constant: src.constant,
                }
            }
            "tt.broadcast" => {
                let src = get(self, 0);
                let src_shape = ins
                    .first()
                    .map(|v| shape(value_type(*v)))
                    .unwrap_or_default();
                let mut info = src.clone();
                for (d, &size) in out_shape.iter().enumerate().take(src.rank()) {
                    if src_shape.get(d) == Some(&1) && size != 1 {
                        info.contiguity[d] = 1;
                        info.constancy[d] = size as u64;
                    }
                }
                info
            }
            "tt.expand_dims" => {
                let src = get(self, 0);
                let axis = int_attr(op, "axis").unwrap_or(0) as usize;
                let mut info = src.clone();
                let src_rank = ins.first().map_or(0, |v| shape(value_type(*v)).len());
                if src_rank == 0 || axis > info.rank() {
                    info = AxisInfo::unknown(rank);
                } else {
                    info.contiguity.insert(axis, 1);
                    // Along the new dim every element is its own block: the divisibility is
                    // what divides every element. With contiguity 1 everywhere each element is
                    // a block start in every dim (so all the divisibilities hold at once); a
                    // contiguous run holds consecutive integers, of which only 1 divides all.
                    let every_element = if src.contiguity.iter().all(|&c| c == 1) {
                        src.divisibility.iter().copied().max().unwrap_or(1)
                    } else {
                        1
                    };
                    info.divisibility.insert(axis, every_element);
                    info.constancy.insert(axis, 1);
                }
                info
            }
            // Result dimension d is operand dimension order[d]: the facts move with it.
            "tt.trans" => {
                let src = get(self, 0);
                let order = crate::ttir::util::i32_array(op, "order").unwrap_or_default();
                if order.len() != rank || src.rank() != rank {
                    AxisInfo::unknown(rank)
                } else {
                    let pick = |facts: &[u64]| -> Vec<u64> {
                        order
                            .iter()
                            .map(|&o| facts.get(o.max(0) as usize).copied().unwrap_or(1))
                            .collect()
                    };
                    AxisInfo {
                        contiguity: pick(&src.contiguity),
                        divisibility: pick(&src.divisibility),
                        constancy: pick(&src.constancy),
                        constant: src.constant,
                    }
                }
            }
            "ttg.convert_layout" | "arith.extsi" | "arith.extui" | "arith.trunci"
            | "arith.index_cast" | "tt.int_to_ptr" | "tt.ptr_to_int" | "tt.bitcast" => get(self, 0),
            "arith.addi" | "arith.subi" | "tt.addptr" => self.add_like(&name, &ins, rank),
            "arith.muli" => {
                let (a, b) = (get(self, 0), get(self, 1));
                let constant = a.constant.zip(b.constant).map(|(x, y)| x.wrapping_mul(y));
                let mut info = AxisInfo::unknown(rank);
                for d in 0..rank {
                    info.divisibility[d] =
                        (a.divisibility_at(d).saturating_mul(b.divisibility_at(d)))
                            .min(MAX_DIVISIBILITY);
                    info.constancy[d] = gcd(a.constancy_at(d), b.constancy_at(d));
                    if a.constant == Some(1) {
                        info.contiguity[d] = b.contiguity_at(d);
                    } else if b.constant == Some(1) {
                        info.contiguity[d] = a.contiguity_at(d);
                    }
                }
                info.constant = constant;
                info
            }
            "arith.divsi" | "arith.divui" | "arith.remsi" | "arith.remui" | "arith.andi"
            | "arith.ori" | "arith.xori" | "arith.shli" | "arith.shrsi" | "arith.shrui"
            | "arith.maxsi" | "arith.minsi" | "arith.maxui" | "arith.minui" => {
                let (a, b) = (get(self, 0), get(self, 1));
                let mut info = AxisInfo::unknown(rank);
                for d in 0..rank {
                    info.constancy[d] = gcd(a.constancy_at(d), b.constancy_at(d));
                }
                if name == "arith.remsi" || name == "arith.remui" {
                    // x % c keeps runs of contiguity that do not cross multiples of c.
                    if let Some(c) = b.constant.filter(|c| *c > 0) {
                        for d in 0..rank {
                            info.contiguity[d] = gcd(a.contiguity_at(d), c as u64);
                            info.divisibility[d] = gcd(a.divisibility_at(d), c as u64);
                        }
                    } else {
                        // x % n with n unknown but a multiple of D along d (a splat with
                        // divisibility D): wraps happen only at multiples of D, so runs of x
                        // that start at multiples of gcd(run, D) stay contiguous.
                        for d in 0..rank {
                            if b.constancy_at(d) > 1 || rank == 0 {
                                let wrap = gcd(b.divisibility_at(d), a.divisibility_at(d));
                                info.contiguity[d] =
                                    gcd(gcd(a.contiguity_at(d), wrap), b.constancy_at(d));
                                info.divisibility[d] = wrap;
                            }
                        }
                    }
                }
                if let Some(c) = b
                    .constant
                    .filter(|c| *c > 0 && (name == "arith.divsi" || name == "arith.divui"))
                {
                    {
                        for d in 0..rank {
                            // Runs of `c` values starting at multiples of `c` divide to the same value.
                            let run = gcd(a.contiguity_at(d), gcd(a.divisibility_at(d), c as u64));
                            info.constancy[d] = info.constancy[d].max(run.min(c as u64));
                        }
                    }
                }
                info
            }
            "arith.cmpi" => {
                let (a, b) = (get(self, 0), get(self, 1));
                let mut info = AxisInfo::unknown(rank);
                for d in 0..rank {
                    let mut constancy = gcd(a.constancy_at(d), b.constancy_at(d));
                    // A contiguous run compared with a constant flips at most at the constant, so it is
                    // constant over blocks aligned to both divisibilities.
                    if b.constancy_at(d) > 1 && a.contiguity_at(d) > 1 {
                        constancy = constancy.max(
                            gcd(
                                a.contiguity_at(d),
                                gcd(a.divisibility_at(d), b.divisibility_at(d)),
                            )
                            .min(b.constancy_at(d)),
                        );
                    } else if a.constancy_at(d) > 1 && b.contiguity_at(d) > 1 {
                        constancy = constancy.max(
                            gcd(
                                b.contiguity_at(d),
                                gcd(a.divisibility_at(d), b.divisibility_at(d)),
                            )
                            .min(a.constancy_at(d)),
                        );
                    }
                    info.constancy[d] = constancy;
                }
                info
            }
            "arith.select" => {
                let (c, a, b) = (get(self, 0), get(self, 1), get(self, 2));
                match c.constant {
                    // A known condition picks one side.
                    Some(0) => b,
                    Some(_) => a,
                    None => {
                        let mut info = a.join(&b);
                        // A scalar `i1` condition picks a whole tensor: it limits nothing along the
                        // dims (its axis info has rank 1 whatever the tensors' rank). A tensor
                        // condition splits runs where it may change.
                        if !shape(value_type(ins[0])).is_empty() {
                            for d in 0..info.rank() {
                                let cond = c.constancy_at(d);
                                info.constancy[d] = gcd(info.constancy[d], cond);
                                info.contiguity[d] = gcd(info.contiguity[d], cond);
                            }
                        }
                        info
                    }
                }
            }
            "scf.for" => {
                // Region args: iv is unknown; iter_args join the inits and the yielded values.
                let Some(body) = blocks_of(op).first().copied() else {
                    return;
                };
                let args = block_args(body);
                // The induction variable is lb + k·step: divisible by whatever divides both.
                if let (Some(&iv), Some(&lb), Some(&step)) = (args.first(), ins.first(), ins.get(2))
                {
                    let (lb, step) = (self.get(lb), self.get(step));
                    let mut info = AxisInfo::unknown(1);
                    info.divisibility[0] = gcd(lb.divisibility_at(0), step.divisibility_at(0));
                    self.set(iv, info);
                }
                let yielded = terminator_operands(body);
                // Operands: lb, ub, step, then one init per iter_arg (block arg i + 1, result i).
                for (i, init) in ins.iter().skip(3).enumerate() {
                    let (Some(&arg), Some(&out)) = (args.get(i + 1), outs.get(i)) else {
                        break;
                    };
                    let init_info = self.get(*init);
                    self.merge(arg, init_info.clone());
                    if let Some(y) = yielded
                        .get(i)
                        .filter(|y| self.infos.contains_key(&key(**y)))
                    {
                        let info = self.get(*y);
                        self.merge(arg, info.clone());
                        self.merge(out, info);
                    }
                    self.merge(out, init_info);
                }
                return;
            }
            "scf.if" => {
                for block in blocks_of(op) {
                    for (&out, y) in outs.iter().zip(terminator_operands(block)) {
                        if self.infos.contains_key(&key(y)) {
                            let info = self.get(y);
                            self.merge(out, info);
                        }
                    }
                }
                return;
            }
            _ => AxisInfo::unknown(rank),
        };
        // `tl.multiple_of` / `tl.max_contiguous` / `tl.max_constancy` put their hints on the
        // op making the value (a `tl.where`'s select, an add): they replace what was derived.
        let info = with_hints(op, info);
        for out in outs {
            self.set(out, info.clone());
        }
    }

    fn add_like(&mut self, name: &str, ins: &[MlirValue], rank: usize) -> AxisInfo {
        let (Some(&lhs), Some(&rhs)) = (ins.first(), ins.get(1)) else {
            return AxisInfo::unknown(rank);
        };
        let (a, b) = (self.get(lhs), self.get(rhs));
        // Pointer offsets count elements; pointer divisibility counts bytes.
        let scale = if name == "tt.addptr" {
            pointee_bytes(value_type(lhs))
        } else {
            1
        };
        let mut info = AxisInfo::unknown(rank);
        for d in 0..rank.min(a.rank()).min(b.rank()) {
            info.contiguity[d] = if name == "arith.subi" {
                gcd(a.contiguity_at(d), b.constancy_at(d))
            } else {
                gcd(a.contiguity_at(d), b.constancy_at(d))
                    .max(gcd(a.constancy_at(d), b.contiguity_at(d)))
            };
            info.divisibility[d] = gcd(
                a.divisibility_at(d),
                b.divisibility_at(d).saturating_mul(scale),
            )
            .min(MAX_DIVISIBILITY);
            info.constancy[d] = gcd(a.constancy_at(d), b.constancy_at(d));
        }
        info.constant = match (name, a.constant, b.constant) {
            ("arith.addi", Some(x), Some(y)) => Some(x.wrapping_add(y)),
            ("arith.subi", Some(x), Some(y)) => Some(x.wrapping_sub(y)),
            _ => None,
        };
        info
    }
}

fn terminator_operands(block: MlirBlock) -> Vec<MlirValue> {
    // SAFETY: `block` is a live block of the op being analysed; a null terminator (an empty block)
    // is handled.
    unsafe {
        let term = mlirBlockGetTerminator(block);
        if term.ptr.is_null() {
            Vec::new()
        } else {
            operands(term)
        }
    }
}

/// Bytes of the pointee of a pointer or tensor of pointers (1 when unknown).
pub fn pointee_bytes(ty: MlirType) -> u64 {
    let element = element_type(ty);
    // SAFETY: `element` is a live type; the pointee is read only from a pointer type, and each
    // width only from the kind it belongs to.
    unsafe {
        if tritium_dialects::ffi::tritiumTypeIsPointer(element) {
            let pointee = tritium_dialects::ffi::tritiumPointerTypeGetPointee(element);
            if mlirTypeIsAInteger(pointee) {
                return (mlirIntegerTypeGetWidth(pointee) as u64).div_ceil(8).max(1);
            }
            if mlirTypeIsAFloat(pointee) {
                return (mlirFloatTypeGetWidth(pointee) as u64).div_ceil(8).max(1);
            }
            if tritium_dialects::ffi::tritiumTypeIsPointer(pointee) {
                return 8;
            }
        }
    }
    1
}

/// `info` with the hints `op` carries (`tt.divisibility`, `tt.contiguity`, `tt.constancy`) in
/// place of the derived facts (one value for every dim, or one per dim). A loop's
/// `tt.divisibility_argN` (the front end's record of a hint on a carried value, as Triton's) is
/// not read: passes that rebuild a loop may renumber its arguments; the same hint is on the op
/// making the argument's first value, which the loop's join starts from (as in Triton).
fn with_hints(op: MlirOperation, mut info: AxisInfo) -> AxisInfo {
    for (attr, facts) in [
        ("tt.divisibility", &mut info.divisibility),
        ("tt.contiguity", &mut info.contiguity),
        ("tt.constancy", &mut info.constancy),
    ] {
        if let Some(values) = op_hint(op, attr) {
            for (d, fact) in facts.iter_mut().enumerate() {
                let value = if values.len() == 1 {
                    values[0]
                } else {
                    values.get(d).copied().unwrap_or(*fact)
                };
                *fact = value.max(1);
            }
        }
    }
    info
}

/// The per-dimension values of a hint attribute on `op` (`dense<128> : tensor<1xi32>` as the
/// front end writes it, a dense i32 array, or an integer).
fn op_hint(op: MlirOperation, name: &str) -> Option<Vec<u64>> {
    // SAFETY: attribute lookup on a live op; each getter is called only on an attribute of the
    // kind it reads, and elements only below the attribute's length.
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, str_ref(name));
        if attr.ptr.is_null() {
            return None;
        }
        if mlirAttributeIsAInteger(attr) {
            return Some(vec![mlirIntegerAttrGetValueInt(attr).max(1) as u64]);
        }
        if mlirAttributeIsADenseI32Array(attr) {
            let n = mlirDenseArrayGetNumElements(attr);
            return Some(
                (0..n)
                    .map(|i| mlirDenseI32ArrayGetElement(attr, i).max(1) as u64)
                    .collect(),
            );
        }
        if mlirAttributeIsADenseIntElements(attr) {
            let n = mlirElementsAttrGetNumElements(attr);
            return Some(
                (0..n)
                    .map(|i| mlirDenseElementsAttrGetInt32Value(attr, i as isize).max(1) as u64)
                    .collect(),
            );
        }
        None
    }
}

fn arg_attr_int(func: MlirOperation, index: usize, name: &str) -> Option<i64> {
    // SAFETY: `func` is a live function op; the array is indexed below its length, the element
    // is looked up by name only when it is a dictionary (ODS's `DictArrayAttr` makes it one in
    // verified IR; checked anyway), and the value is read only from an integer attribute.
    unsafe {
        let attrs = mlirOperationGetAttributeByName(func, str_ref("arg_attrs"));
        if attrs.ptr.is_null()
            || !mlirAttributeIsAArray(attrs)
            || index as isize >= mlirArrayAttrGetNumElements(attrs)
        {
            return None;
        }
        let dict = mlirArrayAttrGetElement(attrs, index as isize);
        if !mlirAttributeIsADictionary(dict) {
            return None;
        }
        let value = mlirDictionaryAttrGetElementByName(dict, str_ref(name));
        (!value.ptr.is_null() && mlirAttributeIsAInteger(value))
            .then(|| mlirIntegerAttrGetValueInt(value))
    }
}
