//! Elementwise math beyond MLIR's standard conversions: the accurate functions of
//! [`crate::math`] (called as module-level helper functions), `tt.clampf`, `tt.mulhiui`,
//! `tt.precise_sqrt`/`precise_divf`, `tt.extern_elementwise` (libdevice `__nv_*` symbols mapped
//! to Tritium's own implementations) and `tt.elementwise_inline_asm`.

use crate::math;
use crate::ops::atomics::pick;
use crate::ops::casts::float_constraint;
use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// `math` dialect ops that [`crate::math`] implements (the math-to-LLVM conversion would leave
/// libm calls the GPU does not have).
pub(crate) fn soft_math_function(op_name: &str) -> Option<&'static str> {
    let name = op_name.strip_prefix("math.")?;
    math::FUNCTIONS.iter().copied().find(|f| *f == name)
}

/// What an `__nv_*` symbol lowers to.
enum Extern {
    /// A function of [`crate::math`].
    Soft(&'static str),
    /// An LLVM intrinsic or instruction on the element type (`{t}` is replaced by it).
    Native(&'static str),
}

fn extern_function(symbol: &str) -> Option<Extern> {
    let base = symbol.strip_prefix("__nv_")?;
    let base = base.strip_prefix("fast_").unwrap_or(base);
    let stem = |name: &str| -> bool { base == name || base.strip_suffix('f') == Some(name) };
    for f in math::FUNCTIONS {
        let libdevice = if *f == "powf" { "pow" } else { f };
        if stem(libdevice) {
            return Some(Extern::Soft(f));
        }
    }
    let natives: &[(&str, &str)] = &[
        ("sqrt", "llvm.intr.sqrt"),
        ("fabs", "llvm.intr.fabs"),
        ("floor", "llvm.intr.floor"),
        ("ceil", "llvm.intr.ceil"),
        ("trunc", "llvm.intr.trunc"),
        ("round", "llvm.intr.round"),
        ("rint", "llvm.intr.roundeven"),
        ("nearbyint", "llvm.intr.roundeven"),
        ("fma", "llvm.intr.fma"),
        ("fmin", "llvm.intr.minnum"),
        ("fmax", "llvm.intr.maxnum"),
        ("copysign", "llvm.intr.copysign"),
        ("rsqrt", "rsqrt"),
        ("isnan", "isnan"),
        ("isinf", "isinf"),
        ("signbit", "signbit"),
        ("fdivide", "llvm.fdiv"),
        ("frcp_rn", "rcp"),
    ];
    for (name, native) in natives {
        if stem(name) {
            return Some(Extern::Native(native));
        }
    }
    let ints: &[(&str, &str)] = &[
        ("abs", "llvm.intr.abs"),
        ("llabs", "llvm.intr.abs"),
        ("min", "llvm.intr.smin"),
        ("llmin", "llvm.intr.smin"),
        ("umin", "llvm.intr.umin"),
        ("ullmin", "llvm.intr.umin"),
        ("max", "llvm.intr.smax"),
        ("llmax", "llvm.intr.smax"),
        ("umax", "llvm.intr.umax"),
        ("ullmax", "llvm.intr.umax"),
        ("popc", "llvm.intr.ctpop"),
        ("popcll", "llvm.intr.ctpop"),
        ("clz", "llvm.intr.ctlz"),
        ("clzll", "llvm.intr.ctlz"),
        ("umulhi", "umulhi"),
        ("umul64hi", "umulhi"),
        ("mulhi", "mulhi"),
        ("mul64hi", "mulhi"),
    ];
    ints.iter()
        .find(|(name, _)| base == *name)
        .map(|(_, native)| Extern::Native(native))
}

impl FuncLowering<'_> {
    /// Number of registers of a (tensor or scalar) result.
    fn register_count(&mut self, op: MlirOperation, value: MlirValue) -> LResult<usize> {
        let ty = value_type(value);
        Ok(if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        })
    }

    /// Makes the helper function of `name` (and the 2/π table) part of the module.
    fn ensure_math_function(&mut self, name: &str) -> String {
        let symbol = math::emit::symbol(name);
        if !self.globals.contains_key(&symbol) {
            self.globals
                .insert(symbol.clone(), math::emit::function(name));
            if matches!(name, "sin" | "cos" | "tan") {
                self.globals.insert(
                    math::emit::TABLE_SYMBOL.to_owned(),
                    math::emit::table_global(),
                );
            }
        }
        symbol
    }

    /// One scalar call of an accurate math function on `elem` values.
    pub(crate) fn call_math(
        &mut self,
        op: MlirOperation,
        name: &str,
        args: &[String],
        elem: MlirType,
    ) -> LResult<String> {
        if !is_float(elem) {
            return err(op, format!("'{name}' needs float operands"));
        }
        let symbol = self.ensure_math_function(name);
        let lty = llvm_type(elem);
        let wide: Vec<String> = args
            .iter()
            .map(|a| {
                if lty == "f64" {
                    a.clone()
                } else {
                    self.e.op(&format!("llvm.fpext {a} : {lty} to f64"))
                }
            })
            .collect();
        let types = vec!["f64"; wide.len()].join(", ");
        let r = self.e.op(&format!(
            "llvm.call @{symbol}({}) : ({types}) -> f64",
            wide.join(", ")
        ));
        Ok(if lty == "f64" {
            r
        } else {
            self.e.op(&format!("llvm.fptrunc {r} : f64 to {lty}"))
        })
    }

    /// A `math` dialect op implemented by [`crate::math`], per register.
    pub(crate) fn lower_soft_math(
        &mut self,
        op: MlirOperation,
        function: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let elem = element_type(value_type(outs[0]));
        let count = self.register_count(op, outs[0])?;
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let args: Vec<String> = inputs.iter().map(|v| pick(v, r)).collect();
            regs.push(self.call_math(op, function, &args, elem)?);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// `tt.clampf`: `min(max(x, lo), hi)`, NaN-propagating with `propagateNan = all`.
    pub(crate) fn lower_clampf(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let elem = element_type(value_type(outs[0]));
        let lty = llvm_type(elem);
        let propagate = int_attr(op, "propagateNan").unwrap_or(0) != 0;
        let (max, min) = if propagate {
            ("llvm.intr.maximum", "llvm.intr.minimum")
        } else {
            ("llvm.intr.maxnum", "llvm.intr.minnum")
        };
        let count = self.register_count(op, outs[0])?;
        let (x, lo, hi) = (self.get(ins[0]), self.get(ins[1]), self.get(ins[2]));
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let (a, l, h) = (pick(&x, r), pick(&lo, r), pick(&hi, r));
            let m = self
                .e
                .op(&format!("{max}({a}, {l}) : ({lty}, {lty}) -> {lty}"));
            regs.push(
                self.e
                    .op(&format!("{min}({m}, {h}) : ({lty}, {lty}) -> {lty}")),
            );
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// `tt.precise_sqrt`, `tt.precise_divf`, `tt.mulhiui` as single PTX instructions.
    pub(crate) fn lower_precise(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let elem = element_type(value_type(outs[0]));
        let bits = type_bits(elem);
        let lty = llvm_type(elem);
        let (asm, constraints) = match name {
            "tt.mulhiui" => {
                let c = if bits == 64 { "l" } else { "r" };
                (
                    format!("mul.hi.u{bits} $0, $1, $2;"),
                    format!("={c},{c},{c}"),
                )
            }
            _ if lty != "f32" && lty != "f64" => {
                // f16/bf16: through f32, which is exact for these.
                return self.lower_precise_narrow(op, name, ins, outs);
            }
            "tt.precise_sqrt" => {
                let c = float_constraint(bits);
                (format!("sqrt.rn.{lty} $0, $1;"), format!("={c},{c}"))
            }
            _ => {
                let c = float_constraint(bits);
                (format!("div.rn.{lty} $0, $1, $2;"), format!("={c},{c},{c}"))
            }
        };
        self.lower_elementwise_asm(op, ins, outs, &asm, &constraints)
    }

    fn lower_precise_narrow(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let lty = llvm_type(element_type(value_type(outs[0])));
        let count = self.register_count(op, outs[0])?;
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let args: Vec<String> = inputs
                .iter()
                .map(|v| {
                    let a = pick(v, r);
                    self.e.op(&format!("llvm.fpext {a} : {lty} to f32"))
                })
                .collect();
            let wide = if name == "tt.precise_sqrt" {
                self.e.op(&format!(
                    "llvm.inline_asm \"sqrt.rn.f32 $0, $1;\", \"=f,f\" {} : (f32) -> f32",
                    args[0]
                ))
            } else {
                self.e.op(&format!(
                    "llvm.inline_asm \"div.rn.f32 $0, $1, $2;\", \"=f,f,f\" {}, {} : (f32, f32) -> f32",
                    args[0], args[1]
                ))
            };
            regs.push(self.e.op(&format!("llvm.fptrunc {wide} : f32 to {lty}")));
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// `tt.extern_elementwise`: libdevice symbols mapped to Tritium's implementations.
    pub(crate) fn lower_extern(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let symbol = string_attr(op, "symbol").unwrap_or_default();
        let Some(function) = extern_function(&symbol) else {
            return err(
                op,
                format!(
                    "tt.extern_elementwise: no Tritium implementation of '{symbol}' (libdevice is not linked; \
                     supported: the __nv_ forms of {}, sqrt, rsqrt, fabs, floor, ceil, trunc, round, rint, \
                     nearbyint, fma, fmin, fmax, copysign, isnan, isinf, signbit, abs, min, max, popc, clz, mulhi)",
                    math::FUNCTIONS.join(", ").replace("powf", "pow")
                ),
            );
        };
        let elem = element_type(value_type(outs[0]));
        let arg_elem = element_type(value_type(ins[0]));
        let lty = llvm_type(elem);
        let aty = llvm_type(arg_elem);
        let count = self.register_count(op, outs[0])?;
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let args: Vec<String> = inputs.iter().map(|v| pick(v, r)).collect();
            let v = match &function {
                Extern::Soft(name) => self.call_math(op, name, &args, elem)?,
                Extern::Native(native) => self.native_call(native, &args, &aty, &lty),
            };
            regs.push(v);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    fn native_call(&mut self, native: &str, args: &[String], aty: &str, rty: &str) -> String {
        let e = &mut self.e;
        let a = &args[0];
        match native {
            "rsqrt" => {
                let s = e.op(&format!("llvm.intr.sqrt({a}) : ({aty}) -> {aty}"));
                let one = e.op(&format!("llvm.mlir.constant(1.0 : {aty}) : {aty}"));
                e.op(&format!("llvm.fdiv {one}, {s} : {aty}"))
            }
            "rcp" => {
                let one = e.op(&format!("llvm.mlir.constant(1.0 : {aty}) : {aty}"));
                e.op(&format!("llvm.fdiv {one}, {a} : {aty}"))
            }
            "llvm.fdiv" => e.op(&format!("llvm.fdiv {a}, {} : {aty}", args[1])),
            "isnan" | "isinf" | "signbit" => {
                let flag = match native {
                    "isnan" => e.op(&format!("llvm.fcmp \"uno\" {a}, {a} : {aty}")),
                    "isinf" => {
                        let abs = e.op(&format!("llvm.intr.fabs({a}) : ({aty}) -> {aty}"));
                        let inf = e.op("llvm.mlir.constant(0x7FF0000000000000 : f64) : f64");
                        let inf = if aty == "f64" {
                            inf
                        } else {
                            e.op(&format!("llvm.fptrunc {inf} : f64 to {aty}"))
                        };
                        e.op(&format!("llvm.fcmp \"oeq\" {abs}, {inf} : {aty}"))
                    }
                    _ => {
                        let bits = if aty == "f64" {
                            64
                        } else if aty == "f32" {
                            32
                        } else {
                            16
                        };
                        let i = e.op(&format!("llvm.bitcast {a} : {aty} to i{bits}"));
                        let z = e.op(&format!("llvm.mlir.constant(0 : i{bits}) : i{bits}"));
                        e.op(&format!("llvm.icmp \"slt\" {i}, {z} : i{bits}"))
                    }
                };
                if rty == "i1" {
                    flag
                } else {
                    e.op(&format!("llvm.zext {flag} : i1 to {rty}"))
                }
            }
            "umulhi" | "mulhi" => {
                let c = if aty == "i64" { "l" } else { "r" };
                let s = if native == "umulhi" { "u" } else { "s" };
                let bits = &aty[1..];
                e.op(&format!(
                    "llvm.inline_asm \"mul.hi.{s}{bits} $0, $1, $2;\", \"={c},{c},{c}\" {a}, {} : ({aty}, {aty}) -> {aty}",
                    args[1]
                ))
            }
            "llvm.intr.ctlz" => {
                let v = e.op(&format!(
                    "\"llvm.intr.ctlz\"({a}) <{{is_zero_poison = false}}> : ({aty}) -> {aty}"
                ));
                cast_int(e, &v, aty, rty)
            }
            "llvm.intr.ctpop" => {
                let v = e.op(&format!("llvm.intr.ctpop({a}) : ({aty}) -> {aty}"));
                cast_int(e, &v, aty, rty)
            }
            "llvm.intr.abs" => e.op(&format!(
                "\"llvm.intr.abs\"({a}) <{{is_int_min_poison = false}}> : ({aty}) -> {aty}"
            )),
            _ => {
                let types = vec![aty; args.len()].join(", ");
                e.op(&format!(
                    "{native}({}) : ({types}) -> {rty}",
                    args.join(", ")
                ))
            }
        }
    }

    /// `tt.elementwise_inline_asm`: `packed_element` elements per asm instance; sub-32-bit
    /// elements are packed into 32-bit registers.
    pub(crate) fn lower_inline_asm(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let asm = string_attr(op, "asm_string").unwrap_or_default();
        let constraints = string_attr(op, "constraints").unwrap_or_default();
        let pack = int_attr(op, "packed_element").unwrap_or(1).max(1) as usize;
        let pure = unsafe {
            let attr = mlirOperationGetAttributeByName(op, sref_of("pure"));
            !attr.ptr.is_null() && mlirBoolAttrGetValue(attr)
        };
        let count = self.register_count(op, outs[0])?;
        if count % pack != 0 {
            return err(
                op,
                format!(
                    "packed_element = {pack} does not divide the {count} elements a thread holds"
                ),
            );
        }
        let escaped = asm
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\0A");
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let in_elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let out_elems: Vec<MlirType> = outs.iter().map(|v| element_type(value_type(*v))).collect();
        // Registers per operand per instance.
        let group = |bits: u32| -> (usize, usize) {
            if bits < 32 && (pack * bits as usize) >= 32 {
                let per = 32 / bits as usize;
                (pack / per, per)
            } else {
                (pack, 1)
            }
        };
        let mut results: Vec<Vec<String>> = vec![Vec::new(); outs.len()];
        for start in (0..count).step_by(pack) {
            let mut operands = Vec::new();
            let mut operand_types = Vec::new();
            for (vals, elem) in inputs.iter().zip(&in_elems) {
                let bits = type_bits(*elem);
                let (regs, per) = group(bits);
                for g in 0..regs {
                    if per == 1 {
                        operands.push(pick(vals, start + g));
                        operand_types.push(llvm_type(*elem));
                    } else {
                        let mut word = self.e.constant(0, "i32");
                        for k in 0..per {
                            let v = pick(vals, start + g * per + k);
                            let b = self.bits_of(&v, *elem, bits);
                            // `to_bits` gives an i16 for 8- and 16-bit elements.
                            let b = self.e.op(&format!("llvm.zext {b} : i16 to i32"));
                            let sh = self.e.constant((k as u32 * bits) as i64, "i32");
                            let s = self.e.op(&format!("llvm.shl {b}, {sh} : i32"));
                            word = self.e.op(&format!("llvm.or {word}, {s} : i32"));
                        }
                        operands.push(word);
                        operand_types.push("i32".into());
                    }
                }
            }
            let mut result_types = Vec::new();
            let mut layout = Vec::new();
            for elem in &out_elems {
                let bits = type_bits(*elem);
                let (regs, per) = group(bits);
                for _ in 0..regs {
                    result_types.push(if per == 1 {
                        llvm_type(*elem)
                    } else {
                        "i32".into()
                    });
                }
                layout.push((regs, per, bits));
            }
            let result_ty = if result_types.len() == 1 {
                result_types[0].clone()
            } else {
                format!("!llvm.struct<({})>", result_types.join(", "))
            };
            let effects = if pure { "" } else { "has_side_effects " };
            let v = self.e.op(&format!(
                "llvm.inline_asm {effects}\"{escaped}\", \"{constraints}\" {} : ({}) -> {result_ty}",
                operands.join(", "),
                operand_types.join(", ")
            ));
            let mut index = 0;
            for (o, (regs, per, bits)) in layout.into_iter().enumerate() {
                for _ in 0..regs {
                    let raw = if result_types.len() == 1 {
                        v.clone()
                    } else {
                        self.e
                            .op(&format!("llvm.extractvalue {v}[{index}] : {result_ty}"))
                    };
                    index += 1;
                    if per == 1 {
                        results[o].push(raw);
                    } else {
                        let elem = out_elems[o];
                        let lty = llvm_type(elem);
                        for k in 0..per {
                            let sh = self.e.constant((k as u32 * bits) as i64, "i32");
                            let s = self.e.op(&format!("llvm.lshr {raw}, {sh} : i32"));
                            let t = self.e.op(&format!("llvm.trunc {s} : i32 to i{bits}"));
                            let value = if is_float(elem) {
                                self.e.op(&format!("llvm.bitcast {t} : i{bits} to {lty}"))
                            } else {
                                t
                            };
                            results[o].push(value);
                        }
                    }
                }
            }
        }
        for (o, out) in outs.iter().enumerate() {
            self.values
                .insert(key(*out), std::mem::take(&mut results[o]));
        }
        Ok(())
    }
}

fn cast_int(e: &mut crate::emit::Emitter, v: &str, from: &str, to: &str) -> String {
    let (fb, tb): (u32, u32) = (
        from[1..].parse().unwrap_or(32),
        to.get(1..).and_then(|t| t.parse().ok()).unwrap_or(32),
    );
    if fb == tb {
        v.to_owned()
    } else if fb > tb {
        e.op(&format!("llvm.trunc {v} : {from} to {to}"))
    } else {
        e.op(&format!("llvm.zext {v} : {from} to {to}"))
    }
}

/// A leaked string ref for attribute lookups.
pub(crate) fn sref_of(text: &str) -> MlirStringRef {
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    MlirStringRef {
        data: leaked.as_ptr() as *const _,
        length: leaked.len(),
    }
}
