//! Global loads and stores (vectorized, predicated inline PTX) and the shared-memory helpers every data-movement lowering uses.

use crate::layout_map::ThreadMap;
use crate::to_llvm::*;
use mlir_sys::*;
use std::fmt::Write;
use tritium_dialects::ffi;
use tritium_passes::axis_info::gcd;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// Elements per vector access for a load/store through `ptr`.
    pub(crate) fn vector_width(
        &self,
        ptr: MlirValue,
        mask: Option<MlirValue>,
        map: &ThreadMap,
        elem_bits: u32,
    ) -> usize {
        let ty = value_type(ptr);
        let rank = map.shape.len();
        let info = self.axis.get(ptr);
        // The fastest dim: the most contiguous one.
        let fastest = (0..rank)
            .max_by_key(|&d| (info.contiguity[d], d))
            .unwrap_or(0);
        let elem_bytes = (elem_bits / 8).max(1) as u64;
        let mut vec = (128 / elem_bits.max(8)) as u64;
        vec = vec.min(info.contiguity[fastest]);
        vec = vec.min((info.divisibility[fastest] / elem_bytes).max(1));
        if let Some(mask) = mask {
            vec = vec.min(self.axis.get(mask).constancy[fastest]);
        }
        // Consecutive registers along the fastest dim.
        let mut run = 1usize;
        while run < map.num_registers() {
            let expected: Vec<u32> = (0..rank)
                .map(|d| {
                    if d == fastest {
                        map.registers[0][d] + run as u32
                    } else {
                        map.registers[0][d]
                    }
                })
                .collect();
            if map.registers[run] != expected {
                break;
            }
            run += 1;
        }
        let run = 1u64 << (63 - (run as u64).leading_zeros());
        let mut v = vec.min(run).max(1);
        v = 1u64 << (63 - v.leading_zeros());
        // Every group of `v` registers must also be consecutive.
        let _ = ty;
        gcd(v, map.num_registers() as u64) as usize
    }

    pub(crate) fn lower_load(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        if !is_tensor(ptr_type) && unsafe { !ffi::tritiumTypeIsPointer(ptr_type) } {
            return err(
                op,
                "block-pointer loads must be rewritten first (-triton-rewrite-tensor-pointer)",
            );
        }
        let (mask, other) = load_store_optionals(op, ins, 1);
        let result_type = value_type(outs[0]);
        let elem = element_type(result_type);
        let bits = type_bits(elem);
        let ptrs = self.get(ins[0]);
        let masks = mask.map(|m| self.get(m));
        let others = other.map(|o| self.get(o));
        let (map, count) = if is_tensor(ptr_type) {
            let map = self.thread_map(op, ptr_type)?;
            let n = map.num_registers();
            (Some(map), n)
        } else {
            (None, 1)
        };
        let vec = match &map {
            Some(map) => self.vector_width(ins[0], mask, map, bits.max(8)),
            None => 1,
        };
        let (reg_type, constraint, width) = asm_register(bits);
        let lty = llvm_type(elem);
        let mut regs: Vec<String> = Vec::with_capacity(count);
        let cache = cache_suffix(op);
        let vec = if bits == 1 { 1 } else { vec };
        // Sub-32-bit elements travel packed in b32 registers when a vector fills them (so a
        // thread moves up to 16 bytes: 8 x f16 in a v4.b32).
        let packed = bits < 32 && vec as u32 * bits >= 32;
        let per = if packed { (32 / bits) as usize } else { 1 };
        let nregs = vec / per;
        let (reg_type, constraint, width) = if packed {
            ("b32", "r", 32)
        } else {
            (reg_type, constraint, width)
        };
        for start in (0..count).step_by(vec) {
            let mut asm = String::new();
            let mut constraints: Vec<String> =
                (0..nregs).map(|_| format!("={constraint}")).collect();
            let mut operands = Vec::new();
            let mut operand_types = Vec::new();
            // Masked-off lanes keep `other` (or zero).
            let mut inits = Vec::new();
            for j in 0..nregs {
                let init = match &others {
                    Some(o) if packed => self.pack_word(o, start + j * per, per, elem, bits),
                    Some(o) => self.bits_of(&o[(start + j).min(o.len() - 1)], elem, bits),
                    None => self.e.constant(0, &format!("i{width}")),
                };
                inits.push(init);
            }
            operands.push(ptrs[start.min(ptrs.len() - 1)].clone());
            operand_types.push(llvm_type(element_type(ptr_type)));
            constraints.push("l".into());
            let pred_index = nregs + 1;
            let predicated = masks.is_some();
            if let Some(m) = &masks {
                operands.push(m[start.min(m.len() - 1)].clone());
                operand_types.push("i1".into());
                constraints.push("b".into());
            }
            let init_base = if predicated { nregs + 2 } else { nregs + 1 };
            for (j, init) in inits.iter().enumerate() {
                let _ = write!(asm, "mov.b{width} ${j}, ${};\\n\\t", init_base + j);
                operands.push(init.clone());
                operand_types.push(format!("i{width}"));
                constraints.push(constraint.to_string());
            }
            let dests: Vec<String> = (0..nregs).map(|j| format!("${j}")).collect();
            let vector = if nregs > 1 {
                format!(".v{nregs}")
            } else {
                String::new()
            };
            let dest_text = if nregs > 1 {
                format!("{{ {} }}", dests.join(", "))
            } else {
                dests[0].clone()
            };
            let guard = if predicated {
                format!("@${pred_index} ")
            } else {
                String::new()
            };
            let _ = write!(
                asm,
                "{guard}ld.global{cache}{vector}.{reg_type} {dest_text}, [ ${nregs} + 0 ];"
            );
            let result_ty = if nregs > 1 {
                format!(
                    "!llvm.struct<({})>",
                    vec![format!("i{width}"); nregs].join(", ")
                )
            } else {
                format!("i{width}")
            };
            let loaded = self.e.op(&format!(
                "llvm.inline_asm has_side_effects \"{asm}\", \"{}\" {} : ({}) -> {result_ty}",
                constraints.join(","),
                operands.join(", "),
                operand_types.join(", ")
            ));
            for j in 0..nregs {
                let raw = if nregs > 1 {
                    self.e
                        .op(&format!("llvm.extractvalue {loaded}[{j}] : {result_ty}"))
                } else {
                    loaded.clone()
                };
                if packed {
                    for k in 0..per {
                        let sh = self.e.constant((k as u32 * bits) as i64, "i32");
                        let s = self.e.op(&format!("llvm.lshr {raw}, {sh} : i32"));
                        let part = self.e.op(&format!("llvm.trunc {s} : i32 to i{bits}"));
                        regs.push(self.value_from_bits(&part, elem, bits, bits, &lty));
                    }
                } else {
                    regs.push(self.value_from_bits(&raw, elem, bits, width, &lty));
                }
            }
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// A value as the integer register the PTX instruction moves.
    pub(crate) fn bits_of(&mut self, value: &str, elem: MlirType, bits: u32) -> String {
        let (_, _, width) = asm_register(bits);
        let lty = llvm_type(elem);
        let as_int = if is_float(elem) {
            self.e
                .op(&format!("llvm.bitcast {value} : {lty} to i{bits}"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e.op(&format!("llvm.ptrtoint {value} : {lty} to i64"))
        } else {
            value.to_owned()
        };
        if width > bits {
            self.e
                .op(&format!("llvm.zext {as_int} : i{bits} to i{width}"))
        } else {
            as_int
        }
    }

    pub(crate) fn value_from_bits(
        &mut self,
        raw: &str,
        elem: MlirType,
        bits: u32,
        width: u32,
        lty: &str,
    ) -> String {
        let narrowed = if width > bits {
            self.e
                .op(&format!("llvm.trunc {raw} : i{width} to i{bits}"))
        } else {
            raw.to_owned()
        };
        if is_float(elem) {
            self.e
                .op(&format!("llvm.bitcast {narrowed} : i{bits} to {lty}"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e
                .op(&format!("llvm.inttoptr {narrowed} : i64 to {lty}"))
        } else {
            narrowed
        }
    }

    pub(crate) fn lower_store(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        if !is_tensor(ptr_type) && unsafe { !ffi::tritiumTypeIsPointer(ptr_type) } {
            return err(
                op,
                "block-pointer stores must be rewritten first (-triton-rewrite-tensor-pointer)",
            );
        }
        let (mask, _) = load_store_optionals(op, ins, 2);
        let elem = element_type(value_type(ins[1]));
        let bits = type_bits(elem);
        let ptrs = self.get(ins[0]);
        let values = self.get(ins[1]);
        let masks = mask.map(|m| self.get(m));
        let (map, count) = if is_tensor(ptr_type) {
            let map = self.thread_map(op, ptr_type)?;
            let n = map.num_registers();
            (Some(map), n)
        } else {
            (None, 1)
        };
        // Only one of the threads (and registers) holding the same element stores it.
        let first_copy = match &map {
            Some(map) => self.first_copy_predicate(map),
            None => {
                let zero = self.e.prologue_const(0, "i32");
                let tid_is_zero_lane = self
                    .e
                    .prologue_op(&format!("llvm.icmp \"eq\" {}, {zero} : i32", self.lane));
                let warp_zero = self
                    .e
                    .prologue_op(&format!("llvm.icmp \"eq\" {}, {zero} : i32", self.warp));
                Some(
                    self.e
                        .prologue_op(&format!("llvm.and {tid_is_zero_lane}, {warp_zero} : i1")),
                )
            }
        };
        let vec = match &map {
            Some(map) => self.vector_width(ins[0], mask, map, bits.max(8)),
            None => 1,
        };
        let vec = if bits == 1 { 1 } else { vec };
        let (reg_type, constraint, width) = asm_register(bits);
        // Sub-32-bit elements packed in b32 registers, as for loads.
        let packed = bits < 32 && vec as u32 * bits >= 32;
        let per = if packed { (32 / bits) as usize } else { 1 };
        let nregs = vec / per;
        let (reg_type, constraint, width) = if packed {
            ("b32", "r", 32)
        } else {
            (reg_type, constraint, width)
        };
        let cache = cache_suffix(op);
        for start in (0..count).step_by(vec) {
            if map.as_ref().is_some_and(|m| m.register_duplicate[start]) {
                continue;
            }
            let mut predicate = first_copy.clone();
            if let Some(m) = &masks {
                let mv = m[start.min(m.len() - 1)].clone();
                predicate = Some(match predicate {
                    Some(p) => self.e.op(&format!("llvm.and {p}, {mv} : i1")),
                    None => mv,
                });
            }
            let mut operands = Vec::new();
            let mut types = Vec::new();
            let mut constraints = Vec::new();
            let mut index = 0;
            let guard = if let Some(p) = &predicate {
                operands.push(p.clone());
                types.push("i1".to_owned());
                constraints.push("b".to_owned());
                index += 1;
                "@$0 ".to_owned()
            } else {
                String::new()
            };
            operands.push(ptrs[start.min(ptrs.len() - 1)].clone());
            types.push(llvm_type(element_type(ptr_type)));
            constraints.push("l".into());
            let ptr_index = index;
            index += 1;
            let mut srcs = Vec::new();
            for j in 0..nregs {
                let b = if packed {
                    self.pack_word(&values, start + j * per, per, elem, bits)
                } else {
                    let v = values[(start + j).min(values.len() - 1)].clone();
                    self.bits_of(&v, elem, bits)
                };
                operands.push(b);
                types.push(format!("i{width}"));
                constraints.push(constraint.to_owned());
                srcs.push(format!("${}", index + j));
            }
            let vector = if nregs > 1 {
                format!(".v{nregs}")
            } else {
                String::new()
            };
            let src_text = if nregs > 1 {
                format!("{{ {} }}", srcs.join(", "))
            } else {
                srcs[0].clone()
            };
            self.e.line(&format!(
                "llvm.inline_asm has_side_effects \"{guard}st.global{cache}{vector}.{reg_type} [ ${ptr_index} + 0 ], {src_text};\", \"{}\" {} : ({}) -> ()",
                constraints.join(","),
                operands.join(", "),
                types.join(", ")
            ));
        }
        Ok(())
    }

    pub(crate) fn barrier(&mut self) {
        self.e
            .line("llvm.inline_asm has_side_effects \"bar.sync 0;\", \"\"  : () -> ()");
    }

    /// `per` sub-32-bit elements of `values` from `first` packed into one b32 word (element k in
    /// bits `k*bits..`), as a vectorized load/store moves them.
    fn pack_word(
        &mut self,
        values: &[String],
        first: usize,
        per: usize,
        elem: MlirType,
        bits: u32,
    ) -> String {
        let mut word = self.e.constant(0, "i32");
        for k in 0..per {
            let v = values[(first + k).min(values.len() - 1)].clone();
            let b = self.bits_of(&v, elem, bits);
            let b = self.e.op(&format!("llvm.zext {b} : i16 to i32"));
            let sh = self.e.constant((k as u32 * bits) as i64, "i32");
            let s = self.e.op(&format!("llvm.shl {b}, {sh} : i32"));
            word = self.e.op(&format!("llvm.or {word}, {s} : i32"));
        }
        word
    }

    pub(crate) fn smem_base(&mut self) -> String {
        self.uses_shared = true;
        let base = self.e.op("llvm.mlir.addressof @global_smem : !llvm.ptr<3>");
        // Where -allocate-shared-memory placed this op's scratch.
        match self
            .current_op
            .and_then(|op| int_attr(op, "allocation.offset"))
            .filter(|&o| o > 0)
        {
            Some(offset) => {
                let offset = self.e.constant(offset, "i32");
                self.e.op(&format!(
                    "llvm.getelementptr {base}[{offset}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8"
                ))
            }
            None => base,
        }
    }

    /// Address of element `index` (i32 SSA value) of a shared array of `lty`.
    pub(crate) fn smem_address(&mut self, base: &str, index: &str, lty: &str) -> String {
        self.e.op(&format!(
            "llvm.getelementptr {base}[{index}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, {lty}"
        ))
    }

    /// Storage type of a scalar in shared memory (i1 as i8, pointers as i64).
    pub(crate) fn smem_type(elem: MlirType) -> (String, u64) {
        let bits = type_bits(elem);
        if bits == 1 {
            ("i8".into(), 1)
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            ("i64".into(), 8)
        } else {
            (llvm_type(elem), (bits / 8) as u64)
        }
    }

    pub(crate) fn smem_store(&mut self, base: &str, index: &str, value: &str, elem: MlirType) {
        let (sty, _) = Self::smem_type(elem);
        let lty = llvm_type(elem);
        let stored = if type_bits(elem) == 1 {
            self.e.op(&format!("llvm.zext {value} : i1 to i8"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e.op(&format!("llvm.ptrtoint {value} : {lty} to i64"))
        } else {
            value.to_owned()
        };
        let address = self.smem_address(base, index, &sty);
        self.e.line(&format!(
            "llvm.store {stored}, {address} : {sty}, !llvm.ptr<3>"
        ));
    }

    pub(crate) fn smem_load(&mut self, base: &str, index: &str, elem: MlirType) -> String {
        let (sty, _) = Self::smem_type(elem);
        let lty = llvm_type(elem);
        let address = self.smem_address(base, index, &sty);
        let loaded = self
            .e
            .op(&format!("llvm.load {address} : !llvm.ptr<3> -> {sty}"));
        if type_bits(elem) == 1 {
            self.e.op(&format!("llvm.trunc {loaded} : i8 to i1"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e.op(&format!("llvm.inttoptr {loaded} : i64 to {lty}"))
        } else {
            loaded
        }
    }

    /// Row-major index (i32 SSA) of register `r` of `map` at this thread, via `coord_of` which maps
    /// a destination coordinate (runtime per-dim SSA values) to the source-shape coordinate.
    pub(crate) fn runtime_coord(&mut self, base: &[String], constant: &[u32]) -> Vec<String> {
        base.iter()
            .zip(constant)
            .map(|(b, &c)| {
                if c == 0 {
                    b.clone()
                } else {
                    let k = self.e.constant(c as i64, "i32");
                    self.e.op(&format!("llvm.xor {b}, {k} : i32"))
                }
            })
            .collect()
    }

    pub(crate) fn linear_index(&mut self, coord: &[String], dims: &[u32]) -> String {
        let mut index = self.e.constant(0, "i32");
        for (c, &d) in coord.iter().zip(dims) {
            let size = self.e.constant(d as i64, "i32");
            let scaled = self.e.op(&format!("llvm.mul {index}, {size} : i32"));
            index = self.e.op(&format!("llvm.add {scaled}, {c} : i32"));
        }
        index
    }

    pub(crate) fn region_base(&mut self, base: &str, byte_offset: u64) -> String {
        if byte_offset == 0 {
            return base.to_owned();
        }
        let offset = self.e.constant(byte_offset as i64, "i32");
        self.e.op(&format!(
            "llvm.getelementptr {base}[{offset}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8"
        ))
    }

    /// Gathers the given bits of `value` into a compact integer (bit i of the result = bit bits[i]).
    pub(crate) fn compact_bits(&mut self, value: &str, bits: &[usize]) -> String {
        let mut acc = self.e.constant(0, "i32");
        for (i, &bit) in bits.iter().enumerate() {
            let shift = self.e.constant(bit as i64, "i32");
            let one = self.e.constant(1, "i32");
            let s = self.e.op(&format!("llvm.lshr {value}, {shift} : i32"));
            let b = self.e.op(&format!("llvm.and {s}, {one} : i32"));
            let place = self.e.constant(i as i64, "i32");
            let p = self.e.op(&format!("llvm.shl {b}, {place} : i32"));
            acc = self.e.op(&format!("llvm.or {acc}, {p} : i32"));
        }
        acc
    }
}

/// `(mask, other)` of a load (`first_optional` = 1) or `(mask, None)` of a store (2).
pub(crate) fn load_store_optionals(
    op: MlirOperation,
    ins: &[MlirValue],
    first_optional: usize,
) -> (Option<MlirValue>, Option<MlirValue>) {
    // operandSegmentSizes tells which optional operands are present for loads; stores have at most a mask.
    let mask = ins.get(first_optional).copied();
    let other = if first_optional == 1 {
        ins.get(2).copied()
    } else {
        None
    };
    let _ = op;
    (mask, other)
}

/// PTX register class for a scalar of `bits`: (type suffix, constraint letter, register width).
pub(crate) fn asm_register(bits: u32) -> (&'static str, &'static str, u32) {
    match bits {
        64 => ("b64", "l", 64),
        32 => ("b32", "r", 32),
        16 => ("b16", "h", 16),
        _ => ("b8", "h", 16),
    }
}

pub(crate) fn cache_suffix(op: MlirOperation) -> String {
    let mut suffix = String::new();
    match int_attr(op, "cache").unwrap_or(1) {
        2 => suffix.push_str(".ca"),
        3 => suffix.push_str(".cg"),
        4 => suffix.push_str(".wb"),
        5 => suffix.push_str(".cs"),
        6 => suffix.push_str(".wt"),
        7 => suffix.push_str(".cv"),
        _ => {}
    }
    match int_attr(op, "evict").unwrap_or(1) {
        2 => suffix.push_str(".L1::evict_first"),
        3 => suffix.push_str(".L1::evict_last"),
        _ => {}
    }
    suffix
}
