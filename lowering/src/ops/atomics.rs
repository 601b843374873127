//! `tt.atomic_rmw` and `tt.atomic_cas`: one predicated `atom.global` per element, issued only by
//! the first copy of duplicated elements (registers, lanes and warps that hold the same element);
//! the old values reach every copy through shared memory. A scalar pointer is updated once per
//! program (by thread 0) and the old value is broadcast through shared memory.

use crate::builder::{Builder, IntPredicate, Value};
use crate::layout_map::ThreadMap;
use crate::state::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_passes::ir_util::*;

/// `.sem.scope` of an atomic op (`atom.acq_rel.gpu`).
fn atomic_qualifiers(op: MlirOperation) -> String {
    let sem = match int_attr(op, "sem").unwrap_or(4) {
        1 => ".relaxed",
        2 => ".acquire",
        3 => ".release",
        _ => ".acq_rel",
    };
    let scope = match int_attr(op, "scope").unwrap_or(1) {
        2 => ".cta",
        3 => ".sys",
        _ => ".gpu",
    };
    format!("{sem}{scope}")
}

/// PTX register letter and integer width for an atomic operand of `bits`.
fn atomic_register(bits: u32) -> (&'static str, u32) {
    match bits {
        64 => ("l", 64),
        16 => ("h", 16),
        _ => ("r", 32),
    }
}

/// Whether some element of `map` is held by more than one lane or warp.
fn has_broadcast(map: &ThreadMap) -> bool {
    map.lane_broadcast_mask() != 0 || map.warp_broadcast_mask() != 0
}

/// Shared-memory scratch of `tt.atomic_rmw` and `tt.atomic_cas`, in bytes: the old values of a
/// used result pass through shared memory when other lanes/warps hold copies of its elements
/// (the whole tensor) or when the pointer is a scalar (one element, from thread 0).
pub fn atomic_scratch(op: MlirOperation) -> LResult<u64> {
    let (Some(&ptr), Some(&out)) = (operands(op).first(), results(op).first()) else {
        return err(op, "an atomic op needs a pointer operand and a result");
    };
    if !has_uses(out) {
        return Ok(0);
    }
    let ptr_type = value_type(ptr);
    let bytes = smem_bytes(element_type(value_type(out)));
    if !is_tensor(ptr_type) {
        return Ok(bytes);
    }
    let map = thread_map_of(op, ptr_type)?;
    if has_broadcast(&map) {
        Ok(map.numel() * bytes)
    } else {
        Ok(0)
    }
}

impl FuncLowering<'_> {
    pub fn lower_atomic(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (Some(&ptr_value), Some(&out)) = (ins.first(), outs.first()) else {
            return err(op, "an atomic op needs a pointer operand and a result");
        };
        let ptr_type = value_type(ptr_value);
        let result_type = value_type(out);
        let elem = element_type(result_type);
        let bits = type_bits(elem);
        let is_cas = name == "tt.atomic_cas";
        let qualifiers = atomic_qualifiers(op);
        let ptrs = self.regs(op, ptr_value)?;
        let operand_values: Vec<Vec<Value>> = if is_cas {
            let (Some(&compare), Some(&value)) = (ins.get(1), ins.get(2)) else {
                return err(op, "tt.atomic_cas needs a compare and a value operand");
            };
            vec![self.regs(op, compare)?, self.regs(op, value)?]
        } else {
            let Some(&value) = ins.get(1) else {
                return err(op, "tt.atomic_rmw needs a value operand");
            };
            vec![self.regs(op, value)?]
        };
        let masks = match ins.get(2) {
            Some(&mask) if !is_cas => Some(self.regs(op, mask)?),
            _ => None,
        };
        let kind = int_attr(op, "atomic_rmw_op").unwrap_or(4);
        let float = is_float(elem);
        if ![16, 32, 64].contains(&bits) {
            let what = if is_cas { "atomic_cas" } else { "atomic_rmw" };
            return err(
                op,
                format!("{what} on {bits}-bit elements is not supported"),
            );
        }
        if !is_cas && float && (kind == 6 || kind == 7) && bits == 16 {
            return err(op, "atomic max/min on 16-bit floats is not supported");
        }
        let map = if is_tensor(ptr_type) {
            Some(self.thread_map(op, ptr_type)?)
        } else {
            None
        };
        let count = map.as_ref().map(|m| m.num_registers()).unwrap_or(1);
        // Which thread issues: the first copy of each element (thread 0 for scalars).
        let first_copy = match &map {
            Some(map) => self.first_copy_predicate(map),
            None => Some(self.prologue_is_thread0()),
        };
        let mut regs: Vec<Option<Value>> = vec![None; count];
        for (r, slot) in regs.iter_mut().enumerate() {
            if map
                .as_ref()
                .is_some_and(|m| m.register_duplicate.get(r) == Some(&true))
            {
                continue;
            }
            let mut predicate = first_copy;
            if let Some(m) = &masks {
                let Some(mv) = pick(m, r) else {
                    return err(op, "internal error: the mask has no lowered value");
                };
                predicate = Some(match predicate {
                    Some(p) => self.b.and(p, mv),
                    None => mv,
                });
            }
            let predicate = match predicate {
                Some(p) => p,
                None => self.b.const_bool(true),
            };
            let Some(ptr) = pick(&ptrs, r) else {
                return err(op, "internal error: the pointer has no lowered value");
            };
            let mut args = Vec::with_capacity(operand_values.len());
            for v in &operand_values {
                match pick(v, r) {
                    Some(a) => args.push(a),
                    None => return err(op, "internal error: an operand has no lowered value"),
                }
            }
            let old = match args.as_slice() {
                [compare, value] if is_cas => {
                    self.atom_cas(ptr, *compare, *value, predicate, elem, &qualifiers)
                }
                [value] if float && (kind == 6 || kind == 7) => {
                    self.atom_float_minmax(ptr, *value, predicate, elem, kind == 6, &qualifiers)
                }
                [value] => {
                    let (opcode, suffix) = rmw_opcode(op, kind, elem, bits)?;
                    self.atom_rmw(ptr, *value, predicate, elem, opcode, &suffix, &qualifiers)
                }
                _ => return err(op, "internal error: wrong number of atomic operands"),
            };
            *slot = Some(old);
        }
        // Duplicate registers take their original's value.
        let mut values: Vec<Value> = Vec::with_capacity(count);
        if let Some(map) = &map {
            let mut by_coord: HashMap<&[u32], usize> = HashMap::new();
            for (r, coord) in map.registers.iter().enumerate() {
                if map.register_duplicate.get(r) != Some(&true) {
                    by_coord.entry(coord.as_slice()).or_insert(r);
                }
            }
            for (r, coord) in map.registers.iter().enumerate() {
                let source = regs.get(r).copied().flatten().or_else(|| {
                    by_coord
                        .get(coord.as_slice())
                        .and_then(|&original| regs.get(original).copied().flatten())
                });
                match source {
                    Some(v) => values.push(v),
                    None => {
                        return err(op, "internal error: a duplicated register has no original");
                    }
                }
            }
        } else {
            match regs.first().copied().flatten() {
                Some(v) => values.push(v),
                None => return err(op, "internal error: the atomic produced no value"),
            }
        }
        // Copies in other lanes/warps (or every thread, for a scalar) read the old values back.
        if has_uses(out) && first_copy.is_some() {
            values = match &map {
                Some(map) => self.share_duplicates(op, result_type, map, &values, elem)?,
                None => vec![self.broadcast_from_thread0(op, values[0], elem)?],
            };
        }
        self.set(out, values);
        Ok(())
    }

    /// `tid.x == 0`, in the prologue.
    fn prologue_is_thread0(&mut self) -> Value {
        let zero = self.b.prologue_i32(0);
        let ty = self.b.i1();
        let predicate = self.b.i64_attr(IntPredicate::Eq as i64);
        let icmp = self.b.create_in_prologue(
            "llvm.icmp",
            &[self.tid, zero],
            &[ty],
            &[("predicate", predicate)],
        );
        Builder::result(icmp)
    }

    /// Every thread writes the elements it holds (first copies) to shared memory; every thread
    /// then reads back all of its registers.
    fn share_duplicates(
        &mut self,
        op: MlirOperation,
        ty: MlirType,
        map: &ThreadMap,
        values: &[Value],
        elem: MlirType,
    ) -> LResult<Vec<Value>> {
        self.reserve_scratch(atomic_scratch(op)?);
        let thread = self.thread_base(op, ty)?;
        let base = self.smem_base();
        let first = self.first_copy_predicate(map);
        self.barrier_before_write();
        for (r, (coord, &value)) in map.registers.iter().zip(values).enumerate() {
            if map.register_duplicate.get(r) == Some(&true) {
                continue;
            }
            let c = self.runtime_coord(&thread, coord);
            let index = self.linear_index(&c, &map.shape);
            match first {
                Some(p) => {
                    let after = self.b.begin_if(p);
                    self.smem_store(base, index, value, elem);
                    self.b.restore(after);
                }
                None => self.smem_store(base, index, value, elem),
            }
        }
        self.barrier();
        let mut out = Vec::with_capacity(map.registers.len());
        for coord in &map.registers {
            let c = self.runtime_coord(&thread, coord);
            let index = self.linear_index(&c, &map.shape);
            out.push(self.smem_load(base, index, elem));
        }
        Ok(out)
    }

    /// Thread 0's `value`, in every thread (through shared memory).
    fn broadcast_from_thread0(
        &mut self,
        op: MlirOperation,
        value: Value,
        elem: MlirType,
    ) -> LResult<Value> {
        self.reserve_scratch(atomic_scratch(op)?);
        let base = self.smem_base();
        let zero = self.b.const_i32(0);
        let is_first = self.b.icmp(IntPredicate::Eq, self.tid, zero);
        self.barrier_before_write();
        let after = self.b.begin_if(is_first);
        self.smem_store(base, zero, value, elem);
        self.b.restore(after);
        self.barrier();
        Ok(self.smem_load(base, zero, elem))
    }

    #[allow(clippy::too_many_arguments)]
    fn atom_rmw(
        &mut self,
        ptr: Value,
        value: Value,
        predicate: Value,
        elem: MlirType,
        opcode: &str,
        suffix: &str,
        qualifiers: &str,
    ) -> Value {
        let bits = type_bits(elem);
        let (letter, width) = atomic_register(bits);
        let v = self.bits_of(value, elem, bits);
        let ty = self.b.int_type(width);
        let old = self.b.asm_volatile(
            &format!(
                "mov.b{width} $0, 0;\n\t@$1 atom{qualifiers}.global.{opcode}{suffix} $0, [$2], $3;"
            ),
            &format!("=&{letter},b,l,{letter}"),
            &[predicate, ptr, v],
            ty,
        );
        self.value_from_bits(old, elem, bits, width)
    }

    fn atom_cas(
        &mut self,
        ptr: Value,
        compare: Value,
        value: Value,
        predicate: Value,
        elem: MlirType,
        qualifiers: &str,
    ) -> Value {
        let bits = type_bits(elem);
        let (letter, width) = atomic_register(bits);
        let c = self.bits_of(compare, elem, bits);
        let v = self.bits_of(value, elem, bits);
        let ty = self.b.int_type(width);
        let old = self.b.asm_volatile(
            &format!(
                "mov.b{width} $0, 0;\n\t@$1 atom{qualifiers}.global.cas.b{width} $0, [$2], $3, $4;"
            ),
            &format!("=&{letter},b,l,{letter},{letter}"),
            &[predicate, ptr, c, v],
            ty,
        );
        self.value_from_bits(old, elem, bits, width)
    }

    /// Float max/min through integer atomics: non-negative values order like signed integers,
    /// negative ones like unsigned integers in reverse.
    fn atom_float_minmax(
        &mut self,
        ptr: Value,
        value: Value,
        predicate: Value,
        elem: MlirType,
        is_max: bool,
        qualifiers: &str,
    ) -> Value {
        let bits = type_bits(elem);
        let int_type = self.b.int_type(bits);
        let lty = self.llvm_type(elem);
        let as_int = self.b.bitcast(value, int_type);
        let zero = self.b.const_int(int_type, 0);
        let non_negative = self.b.icmp(IntPredicate::Sge, as_int, zero);
        let negative = self.b.icmp(IntPredicate::Slt, as_int, zero);
        let p_pos = self.b.and(predicate, non_negative);
        let p_neg = self.b.and(predicate, negative);
        let (pos_op, neg_op) = if is_max {
            ("max", "min")
        } else {
            ("min", "max")
        };
        let a = self.atom_rmw(
            ptr,
            as_int,
            p_pos,
            int_type,
            pos_op,
            &format!(".s{bits}"),
            qualifiers,
        );
        let b = self.atom_rmw(
            ptr,
            as_int,
            p_neg,
            int_type,
            neg_op,
            &format!(".u{bits}"),
            qualifiers,
        );
        let old = self.b.select(non_negative, a, b);
        self.b.bitcast(old, lty)
    }
}

/// PTX opcode and type suffix of an RMW kind (`RMWOp` enum value) on `elem`.
fn rmw_opcode(
    op: MlirOperation,
    kind: i64,
    elem: MlirType,
    bits: u32,
) -> LResult<(&'static str, String)> {
    let float = is_float(elem);
    Ok(match kind {
        1 => ("and", format!(".b{bits}")),
        2 => ("or", format!(".b{bits}")),
        3 => ("xor", format!(".b{bits}")),
        5 | 4 if float => {
            let Some(name) = ptx_float_name(elem) else {
                return err(op, "atomic add on this float type is not supported");
            };
            if bits == 16 {
                ("add", format!(".noftz.{name}"))
            } else {
                ("add", format!(".{name}"))
            }
        }
        4 => ("add", format!(".u{bits}")),
        6 => ("max", format!(".s{bits}")),
        7 => ("min", format!(".s{bits}")),
        8 => ("max", format!(".u{bits}")),
        9 => ("min", format!(".u{bits}")),
        _ => ("exch", format!(".b{bits}")),
    })
}
