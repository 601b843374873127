//! Global loads and stores: vectorized, predicated inline PTX (`ld.global.v4.b32`, ...), with
//! widths proven by axis info.

use crate::builder::*;
use crate::layout_map::ThreadMap;
use crate::state::*;
use mlir_sys::*;
use std::fmt::Write;
use tritium_passes::axis_info::gcd;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    /// Elements per vector access for a load/store through `ptr`.
    pub fn vector_width(
        &self,
        ptr: MlirValue,
        mask: Option<MlirValue>,
        map: &ThreadMap,
        elem_bits: u32,
    ) -> usize {
        let rank = map.shape.len();
        let info = self.axis.get(ptr);
        // Axis facts have one entry per dim of the value; a missing one counts as the weakest
        // fact (1: no vectorization), which is always correct.
        let fact = |facts: &[u64], d: usize| facts.get(d).copied().unwrap_or(1);
        // The fastest dim: the most contiguous one.
        let fastest = (0..rank)
            .max_by_key(|&d| (fact(&info.contiguity, d), d))
            .unwrap_or(0);
        let elem_bytes = (elem_bits / 8).max(1) as u64;
        let mut vec = (128 / elem_bits.max(8)) as u64;
        vec = vec.min(fact(&info.contiguity, fastest));
        vec = vec.min((fact(&info.divisibility, fastest) / elem_bytes).max(1));
        if let Some(mask) = mask {
            vec = vec.min(fact(&self.axis.get(mask).constancy, fastest));
        }
        // Consecutive registers along the fastest dim (`registers[0]` and `registers[run]`
        // exist: `run` stays below the register count; coordinates have `rank` entries).
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
        gcd(v, map.num_registers() as u64) as usize
    }

    pub fn lower_load(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        if !is_tensor(ptr_type) && !is_pointer(ptr_type) {
            return err(
                op,
                "block-pointer loads must be rewritten first (-triton-rewrite-tensor-pointer)",
            );
        }
        let (mask, other) = load_store_optionals(ins, 1);
        let result_type = value_type(outs[0]);
        let elem = element_type(result_type);
        let bits = type_bits(elem);
        let ptrs = self.regs(op, ins[0])?;
        let masks = mask.map(|m| self.regs(op, m)).transpose()?;
        let others = other.map(|o| self.regs(op, o)).transpose()?;
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
            asm_register(bits)
        };
        let word = self.b.int_type(width);
        let result_ty = if nregs > 1 {
            self.b.struct_type(&vec![word; nregs])
        } else {
            word
        };
        // `nregs >= 1`: `vec >= 1`, and a packed `vec` fills at least one b32 (`vec >= per`).
        // Register lists come from `regs` (never empty), so `len() - 1` does not wrap.
        let mut regs: Vec<Value> = Vec::with_capacity(count);
        for start in (0..count).step_by(vec.max(1)) {
            // Masked-off lanes keep `other` (or zero).
            let mut inits = Vec::with_capacity(nregs);
            for j in 0..nregs {
                let init = match &others {
                    Some(o) if packed => self.pack_word(o, start + j * per, per, elem, bits),
                    Some(o) => self.bits_of(o[(start + j).min(o.len() - 1)], elem, bits),
                    None => self.b.const_int(word, 0),
                };
                inits.push(init);
            }
            let mut asm = String::new();
            let mut constraints: Vec<String> =
                (0..nregs).map(|_| format!("={constraint}")).collect();
            let mut operands = vec![ptrs[start.min(ptrs.len() - 1)]];
            constraints.push("l".into());
            let pred_index = nregs + 1;
            let predicated = masks.is_some();
            if let Some(m) = &masks {
                operands.push(m[start.min(m.len() - 1)]);
                constraints.push("b".into());
            }
            let init_base = if predicated { nregs + 2 } else { nregs + 1 };
            for (j, init) in inits.iter().enumerate() {
                let _ = write!(asm, "mov.b{width} ${j}, ${};\n\t", init_base + j);
                operands.push(*init);
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
            let loaded = self
                .b
                .asm_volatile(&asm, &constraints.join(","), &operands, result_ty);
            for j in 0..nregs {
                let raw = if nregs > 1 {
                    self.b.extract_value(loaded, j as i64, word)
                } else {
                    loaded
                };
                if packed {
                    let part_type = self.b.int_type(bits);
                    for k in 0..per {
                        let s = self.b.bin_imm(BinOp::LShr, raw, (k as u32 * bits) as i64);
                        let part = self.b.trunc(s, part_type);
                        regs.push(self.value_from_bits(part, elem, bits, bits));
                    }
                } else {
                    regs.push(self.value_from_bits(raw, elem, bits, width));
                }
            }
        }
        self.set(outs[0], regs);
        Ok(())
    }

    pub fn lower_store(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        if !is_tensor(ptr_type) && !is_pointer(ptr_type) {
            return err(
                op,
                "block-pointer stores must be rewritten first (-triton-rewrite-tensor-pointer)",
            );
        }
        let (mask, _) = load_store_optionals(ins, 2);
        let elem = element_type(value_type(ins[1]));
        let bits = type_bits(elem);
        let ptrs = self.regs(op, ins[0])?;
        let values = self.regs(op, ins[1])?;
        let masks = mask.map(|m| self.regs(op, m)).transpose()?;
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
                let warp = self.warp();
                let zero = self.b.prologue_i32(0);
                let i1 = self.b.i1();
                let eq = self.b.i64_attr(IntPredicate::Eq as i64);
                let lane_zero = Builder::result(self.b.create_in_prologue(
                    "llvm.icmp",
                    &[self.lane, zero],
                    &[i1],
                    &[("predicate", eq)],
                ));
                let warp_zero = Builder::result(self.b.create_in_prologue(
                    "llvm.icmp",
                    &[warp, zero],
                    &[i1],
                    &[("predicate", eq)],
                ));
                Some(self.b.prologue_bin(BinOp::And, lane_zero, warp_zero))
            }
        };
        let vec = match &map {
            Some(map) => self.vector_width(ins[0], mask, map, bits.max(8)),
            None => 1,
        };
        let vec = if bits == 1 { 1 } else { vec };
        // Sub-32-bit elements packed in b32 registers, as for loads.
        let packed = bits < 32 && vec as u32 * bits >= 32;
        let per = if packed { (32 / bits) as usize } else { 1 };
        let nregs = vec / per;
        let (reg_type, constraint, _) = if packed {
            ("b32", "r", 32)
        } else {
            asm_register(bits)
        };
        let cache = cache_suffix(op);
        // As for loads: `nregs >= 1`, register lists are never empty, and `start` is below the
        // register count (`register_duplicate` has one entry per register).
        for start in (0..count).step_by(vec.max(1)) {
            if map.as_ref().is_some_and(|m| m.register_duplicate[start]) {
                continue;
            }
            let mut predicate = first_copy;
            if let Some(m) = &masks {
                let mv = m[start.min(m.len() - 1)];
                predicate = Some(match predicate {
                    Some(p) => self.b.and(p, mv),
                    None => mv,
                });
            }
            let mut operands = Vec::new();
            let mut constraints = Vec::new();
            let mut index = 0;
            let guard = if let Some(p) = predicate {
                operands.push(p);
                constraints.push("b".to_owned());
                index += 1;
                "@$0 ".to_owned()
            } else {
                String::new()
            };
            operands.push(ptrs[start.min(ptrs.len() - 1)]);
            constraints.push("l".into());
            let ptr_index = index;
            index += 1;
            let mut srcs = Vec::new();
            for j in 0..nregs {
                let word = if packed {
                    self.pack_word(&values, start + j * per, per, elem, bits)
                } else {
                    let v = values[(start + j).min(values.len() - 1)];
                    self.bits_of(v, elem, bits)
                };
                operands.push(word);
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
            self.b.inline_asm(
                &format!(
                    "{guard}st.global{cache}{vector}.{reg_type} [ ${ptr_index} + 0 ], {src_text};"
                ),
                &constraints.join(","),
                &operands,
                None,
                true,
            );
        }
        Ok(())
    }
}
