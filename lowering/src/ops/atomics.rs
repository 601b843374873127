//! `tt.atomic_rmw` and `tt.atomic_cas`: one predicated `atom.global` per element, issued only by
//! the first copy of duplicated elements (registers, lanes and warps that hold the same element);
//! the old values reach every copy through shared memory. A scalar pointer is updated once per
//! program (by thread 0) and the old value is broadcast through shared memory.

use crate::layout_map::ThreadMap;
use crate::to_llvm::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_passes::ir_util::*;

/// `.sem.scope` of an atomic op (`atom.acq_rel.gpu`).
pub(crate) fn atomic_qualifiers(op: MlirOperation) -> String {
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

impl FuncLowering<'_> {
    pub(crate) fn lower_atomic(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        let result_type = value_type(outs[0]);
        let elem = element_type(result_type);
        let bits = type_bits(elem);
        let is_cas = name == "tt.atomic_cas";
        let qualifiers = atomic_qualifiers(op);
        self.atomic_ptr_type = llvm_type(element_type(ptr_type));
        let ptrs = self.get(ins[0]);
        let operand_values: Vec<Vec<String>> = if is_cas {
            vec![self.get(ins[1]), self.get(ins[2])]
        } else {
            vec![self.get(ins[1])]
        };
        let masks = if is_cas {
            None
        } else {
            ins.get(2).map(|m| self.get(*m))
        };
        let kind = int_attr(op, "atomic_rmw_op").unwrap_or(4);
        let float = is_float(elem);
        if !is_cas && ![16, 32, 64].contains(&bits) {
            return err(
                op,
                format!("atomic_rmw on {bits}-bit elements is not supported"),
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
            None => {
                let zero = self.e.prologue_const(0, "i32");
                Some(
                    self.e
                        .prologue_op(&format!("llvm.icmp \"eq\" {}, {zero} : i32", self.tid)),
                )
            }
        };
        let lty = llvm_type(elem);
        let mut regs: Vec<Option<String>> = vec![None; count];
        for (r, slot) in regs.iter_mut().enumerate() {
            if map.as_ref().is_some_and(|m| m.register_duplicate[r]) {
                continue;
            }
            let mut predicate = first_copy.clone();
            if let Some(m) = &masks {
                let mv = pick(m, r);
                predicate = Some(match predicate {
                    Some(p) => self.e.op(&format!("llvm.and {p}, {mv} : i1")),
                    None => mv,
                });
            }
            let predicate = match predicate {
                Some(p) => p,
                None => self.e.constant(1, "i1"),
            };
            let ptr = pick(&ptrs, r);
            let args: Vec<String> = operand_values.iter().map(|v| pick(v, r)).collect();
            let old = if is_cas {
                self.atom_cas(&ptr, &args[0], &args[1], &predicate, elem, &qualifiers)
            } else if float && (kind == 6 || kind == 7) {
                self.atom_float_minmax(&ptr, &args[0], &predicate, elem, kind == 6, &qualifiers)
            } else {
                let (opcode, suffix) = rmw_opcode(kind, elem, bits);
                self.atom_rmw(
                    &ptr,
                    &args[0],
                    &predicate,
                    elem,
                    opcode,
                    &suffix,
                    &qualifiers,
                )
            };
            *slot = Some(old);
        }
        // Duplicate registers take their original's value.
        let mut values: Vec<String> = Vec::with_capacity(count);
        if let Some(map) = &map {
            let mut by_coord: HashMap<Vec<u32>, usize> = HashMap::new();
            for (r, coord) in map.registers.iter().enumerate() {
                if !map.register_duplicate[r] {
                    by_coord.entry(coord.clone()).or_insert(r);
                }
            }
            for (r, coord) in map.registers.iter().enumerate() {
                let source = regs[r]
                    .clone()
                    .unwrap_or_else(|| regs[by_coord[coord]].clone().unwrap_or_default());
                values.push(source);
            }
        } else {
            values.push(regs[0].clone().unwrap_or_default());
        }
        // Copies in other lanes/warps (or every thread, for a scalar) read the old values back.
        let used = unsafe { !mlirValueGetFirstUse(outs[0]).ptr.is_null() };
        if used && first_copy.is_some() {
            values = match &map {
                Some(map) => self.share_duplicates(op, result_type, map, &values, elem)?,
                None => vec![self.broadcast_from_thread0(&values[0], elem)],
            };
        }
        let _ = lty;
        self.values.insert(key(outs[0]), values);
        Ok(())
    }

    /// Every thread writes the elements it holds (first copies) to shared memory; every thread
    /// then reads back all of its registers.
    fn share_duplicates(
        &mut self,
        op: MlirOperation,
        ty: MlirType,
        map: &ThreadMap,
        values: &[String],
        elem: MlirType,
    ) -> LResult<Vec<String>> {
        let (_, bytes) = Self::smem_type(elem);
        self.reserve_scratch(map.numel() * bytes);
        let thread = self.thread_base(op, ty)?;
        let base = self.smem_base();
        let first = self.first_copy_predicate(map);
        self.barrier();
        for (r, coord) in map.registers.iter().enumerate() {
            if map.register_duplicate[r] {
                continue;
            }
            let c = self.runtime_coord(&thread, coord);
            let index = self.linear_index(&c, &map.shape);
            if let Some(p) = &first {
                self.e.open(&format!("scf.if {p} {{"));
                self.smem_store(&base, &index, &values[r], elem);
                self.e.close();
            } else {
                self.smem_store(&base, &index, &values[r], elem);
            }
        }
        self.barrier();
        let mut out = Vec::new();
        for coord in map.registers.clone() {
            let c = self.runtime_coord(&thread, &coord);
            let index = self.linear_index(&c, &map.shape);
            out.push(self.smem_load(&base, &index, elem));
        }
        Ok(out)
    }

    /// Thread 0's `value`, in every thread (through shared memory).
    pub(crate) fn broadcast_from_thread0(&mut self, value: &str, elem: MlirType) -> String {
        let (_, bytes) = Self::smem_type(elem);
        self.reserve_scratch(bytes);
        let base = self.smem_base();
        let zero = self.e.constant(0, "i32");
        let is_first = self
            .e
            .op(&format!("llvm.icmp \"eq\" {}, {zero} : i32", self.tid));
        self.barrier();
        self.e.open(&format!("scf.if {is_first} {{"));
        self.smem_store(&base, &zero, value, elem);
        self.e.close();
        self.barrier();
        self.smem_load(&base, &zero, elem)
    }

    #[allow(clippy::too_many_arguments)]
    fn atom_rmw(
        &mut self,
        ptr: &str,
        value: &str,
        predicate: &str,
        elem: MlirType,
        opcode: &str,
        suffix: &str,
        qualifiers: &str,
    ) -> String {
        let bits = type_bits(elem);
        let (letter, width) = atomic_register(bits);
        let pty = self.atomic_ptr_type.clone();
        let v = self.bits_of(value, elem, bits);
        let old = self.e.op(&format!(
            "llvm.inline_asm has_side_effects \"mov.b{width} $0, 0;\\n\\t@$1 atom{qualifiers}.global.{opcode}{suffix} $0, [$2], $3;\", \"=&{letter},b,l,{letter}\" {predicate}, {ptr}, {v} : (i1, {pty}, i{width}) -> i{width}"
        ));
        let lty = llvm_type(elem);
        self.value_from_bits(&old, elem, bits, width, &lty)
    }

    fn atom_cas(
        &mut self,
        ptr: &str,
        compare: &str,
        value: &str,
        predicate: &str,
        elem: MlirType,
        qualifiers: &str,
    ) -> String {
        let bits = type_bits(elem);
        let (letter, width) = atomic_register(bits);
        let pty = self.atomic_ptr_type.clone();
        let c = self.bits_of(compare, elem, bits);
        let v = self.bits_of(value, elem, bits);
        let old = self.e.op(&format!(
            "llvm.inline_asm has_side_effects \"mov.b{width} $0, 0;\\n\\t@$1 atom{qualifiers}.global.cas.b{width} $0, [$2], $3, $4;\", \"=&{letter},b,l,{letter},{letter}\" {predicate}, {ptr}, {c}, {v} : (i1, {pty}, i{width}, i{width}) -> i{width}"
        ));
        let lty = llvm_type(elem);
        self.value_from_bits(&old, elem, bits, width, &lty)
    }

    /// Float max/min through integer atomics: non-negative values order like signed integers,
    /// negative ones like unsigned integers in reverse.
    fn atom_float_minmax(
        &mut self,
        ptr: &str,
        value: &str,
        predicate: &str,
        elem: MlirType,
        is_max: bool,
        qualifiers: &str,
    ) -> String {
        let bits = type_bits(elem);
        let ity = format!("i{bits}");
        let lty = llvm_type(elem);
        let as_int = self.e.op(&format!("llvm.bitcast {value} : {lty} to {ity}"));
        let zero = self.e.constant(0, &ity);
        let non_negative = self
            .e
            .op(&format!("llvm.icmp \"sge\" {as_int}, {zero} : {ity}"));
        let negative = self
            .e
            .op(&format!("llvm.icmp \"slt\" {as_int}, {zero} : {ity}"));
        let p_pos = self
            .e
            .op(&format!("llvm.and {predicate}, {non_negative} : i1"));
        let p_neg = self.e.op(&format!("llvm.and {predicate}, {negative} : i1"));
        let int_type = unsafe { mlirIntegerTypeGet(mlirTypeGetContext(elem), bits) };
        let (pos_op, neg_op) = if is_max {
            ("max", "min")
        } else {
            ("min", "max")
        };
        let a = self.atom_rmw(
            ptr,
            &as_int,
            &p_pos,
            int_type,
            pos_op,
            &format!(".s{bits}"),
            qualifiers,
        );
        let b = self.atom_rmw(
            ptr,
            &as_int,
            &p_neg,
            int_type,
            neg_op,
            &format!(".u{bits}"),
            qualifiers,
        );
        let old = self
            .e
            .op(&format!("llvm.select {non_negative}, {a}, {b} : i1, {ity}"));
        self.e.op(&format!("llvm.bitcast {old} : {ity} to {lty}"))
    }
}

/// PTX opcode and type suffix of an RMW kind (`RMWOp` enum value) on `elem`.
fn rmw_opcode(kind: i64, elem: MlirType, bits: u32) -> (&'static str, String) {
    let float = is_float(elem);
    match kind {
        1 => ("and", format!(".b{bits}")),
        2 => ("or", format!(".b{bits}")),
        3 => ("xor", format!(".b{bits}")),
        5 | 4 if float => {
            let name = print_type(elem);
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
    }
}

/// Register `r` of a value list (scalars have one).
pub(crate) fn pick(values: &[String], r: usize) -> String {
    values
        .get(r)
        .or(values.first())
        .cloned()
        .unwrap_or_default()
}
