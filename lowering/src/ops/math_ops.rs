//! Elementwise math beyond MLIR's standard conversions: the single-instruction f32 paths
//! (`ex2.approx`, `rsqrt.approx`, `div.full`), the accurate functions of [`crate::math`] (in f32
//! for f32/f16/bf16, in f64 for f64; called as module-level helper functions), `tt.clampf`, `tt.mulhiui`, `tt.precise_sqrt`/`precise_divf`,
//! `tt.extern_elementwise` (libdevice `__nv_*` symbols mapped to Tritium's own implementations)
//! and `tt.elementwise_inline_asm`.

use crate::builder::{BinOp, Builder, CastOp, FloatPredicate, IntPredicate, Intrinsic, Value};
use crate::math;
use crate::registry::OpLowering;
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::{element_type, int_attr, string_attr, value_type};

/// `math` dialect ops that [`crate::math`] implements (the math-to-LLVM conversion would leave
/// libm calls the GPU does not have).
pub fn soft_math_function(op_name: &str) -> Option<&'static str> {
    let name = op_name.strip_prefix("math.")?;
    math::FUNCTIONS.iter().copied().find(|f| *f == name)
}

/// Math ops whose f32 form is a single approximate PTX instruction, as in Triton and libdevice
/// (`ex2.approx.f32` ≤ 2 ulp, `rsqrt.approx.f32` ≤ 2 ulp, `div.full.f32` ≤ 2 ulp); every other f32
/// function is computed in f32 by [`math::f32`].
const FAST_F32: &[&str] = &["math.exp2", "math.rsqrt", "arith.divf"];

/// What an `__nv_*` symbol lowers to.
enum Extern {
    /// A function of [`crate::math`].
    Soft(&'static str),
    /// An LLVM intrinsic or instruction on a float element type.
    Float(Native),
    /// An LLVM intrinsic or instruction on an integer element type.
    Int(Native),
}

/// The native lowerings of libdevice functions.
#[derive(Clone, Copy)]
enum Native {
    /// An intrinsic whose result has the type of its first operand.
    Intr(Intrinsic),
    Rsqrt,
    IsNan,
    IsInf,
    SignBit,
    FDiv,
    Rcp,
    Abs,
    Ctlz,
    CtPop,
    UMulHi,
    MulHi,
}

impl Native {
    /// Number of operands.
    fn arity(self) -> usize {
        match self {
            Native::Intr(Intrinsic::Fma) => 3,
            Native::Intr(
                Intrinsic::MinNum
                | Intrinsic::MaxNum
                | Intrinsic::CopySign
                | Intrinsic::SMin
                | Intrinsic::SMax
                | Intrinsic::UMin
                | Intrinsic::UMax,
            )
            | Native::FDiv
            | Native::UMulHi
            | Native::MulHi => 2,
            _ => 1,
        }
    }
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
    let natives: &[(&str, Native)] = &[
        ("sqrt", Native::Intr(Intrinsic::Sqrt)),
        ("fabs", Native::Intr(Intrinsic::FAbs)),
        ("floor", Native::Intr(Intrinsic::Floor)),
        ("ceil", Native::Intr(Intrinsic::Ceil)),
        ("trunc", Native::Intr(Intrinsic::Trunc)),
        ("round", Native::Intr(Intrinsic::Round)),
        ("rint", Native::Intr(Intrinsic::RoundEven)),
        ("nearbyint", Native::Intr(Intrinsic::RoundEven)),
        ("fma", Native::Intr(Intrinsic::Fma)),
        ("fmin", Native::Intr(Intrinsic::MinNum)),
        ("fmax", Native::Intr(Intrinsic::MaxNum)),
        ("copysign", Native::Intr(Intrinsic::CopySign)),
        ("rsqrt", Native::Rsqrt),
        ("isnan", Native::IsNan),
        ("isinf", Native::IsInf),
        ("signbit", Native::SignBit),
        ("fdivide", Native::FDiv),
        ("frcp_rn", Native::Rcp),
    ];
    for (name, native) in natives {
        if stem(name) {
            return Some(Extern::Float(*native));
        }
    }
    let ints: &[(&str, Native)] = &[
        ("abs", Native::Abs),
        ("llabs", Native::Abs),
        ("min", Native::Intr(Intrinsic::SMin)),
        ("llmin", Native::Intr(Intrinsic::SMin)),
        ("umin", Native::Intr(Intrinsic::UMin)),
        ("ullmin", Native::Intr(Intrinsic::UMin)),
        ("max", Native::Intr(Intrinsic::SMax)),
        ("llmax", Native::Intr(Intrinsic::SMax)),
        ("umax", Native::Intr(Intrinsic::UMax)),
        ("ullmax", Native::Intr(Intrinsic::UMax)),
        ("popc", Native::CtPop),
        ("popcll", Native::CtPop),
        ("clz", Native::Ctlz),
        ("clzll", Native::Ctlz),
        ("umulhi", Native::UMulHi),
        ("umul64hi", Native::UMulHi),
        ("mulhi", Native::MulHi),
        ("mul64hi", Native::MulHi),
    ];
    ints.iter()
        .find(|(name, _)| base == *name)
        .map(|(_, native)| Extern::Int(*native))
}

/// Whether a type is an integer type (the LLVM dialect's `iN`).
/// `y` when `value` is `arith.subf(0, y)` (a scalar or splat zero, either sign) of the same type.
fn negated_operand(value: MlirValue) -> Option<MlirValue> {
    let sub = tritium_passes::ir_util::defining_op(value)
        .filter(|op| tritium_passes::ir_util::op_name(*op) == "arith.subf")?;
    let ins = tritium_passes::ir_util::operands(sub);
    let (&zero, &y) = (ins.first()?, ins.get(1)?);
    // SAFETY: comparing two live types (uniqued in one context).
    let same = unsafe { mlirTypeEqual(value_type(y), value_type(value)) };
    (tritium_passes::ttir::util::is_zero_constant(zero) && same).then_some(y)
}

fn is_integer(ty: MlirType) -> bool {
    // SAFETY: type kind query on a live type.
    unsafe { mlirTypeIsAInteger(ty) }
}

impl FuncLowering<'_> {
    /// `math.*` functions and `arith.divf`: the f32 fast path for exp2, rsqrt and divf; else
    /// our accurate implementation where [`crate::math`] has one (in f32 for f32 and narrower
    /// types where [`math::f32`] has it); else MLIR's conversion per register.
    pub fn lower_math_function(&mut self, o: &OpLowering) -> LResult<()> {
        let out = nth(o.op, &o.outs, 0, "the result")?;
        if is_f32(element_type(value_type(out))) && FAST_F32.contains(&o.name.as_str()) {
            return self.lower_fast_math(o.op, &o.name, &o.ins, &o.outs);
        }
        if let Some(function) = soft_math_function(&o.name) {
            return self.lower_soft_math(o.op, function, &o.ins, &o.outs);
        }
        self.lower_elementwise(o.op, &o.name, &o.ins, &o.outs)
    }

    /// Makes the helper function of `name` (and the 2/π table it may read) part of the module.
    fn ensure_math_function(&mut self, name: &str) -> String {
        let symbol = math::emit::symbol(name);
        let mut uses_table = false;
        self.define_once(&symbol, |b| {
            uses_table = math::emit::define_function(b, name)
        });
        if uses_table {
            self.define_once(math::emit::TABLE_SYMBOL, math::emit::define_table);
        }
        symbol
    }

    /// Makes the f32 helper function of `name` (and the 2/π table it may read) part of the
    /// module.
    fn ensure_math_function32(&mut self, name: &str) -> String {
        let symbol = math::emit::symbol32(name);
        let mut uses_table = false;
        self.define_once(&symbol, |b| {
            uses_table = math::emit::define_function32(b, name)
        });
        if uses_table {
            self.define_once(math::emit::TABLE_SYMBOL, math::emit::define_table);
        }
        symbol
    }

    /// One scalar call of an accurate math function on `elem` values.
    pub fn call_math(
        &mut self,
        op: MlirOperation,
        name: &str,
        args: &[Value],
        elem: MlirType,
    ) -> LResult<Value> {
        if !is_float(elem) {
            return err(op, format!("'{name}' needs float operands"));
        }
        if args.len() != math::arity(name) {
            return err(
                op,
                format!(
                    "'{name}' takes {} operand(s), got {}",
                    math::arity(name),
                    args.len()
                ),
            );
        }
        // f32 (and f16/bf16, through f32) in f32 where an f32 algorithm exists.
        if type_bits(elem) <= 32 && math::f32::FUNCTIONS.contains(&name) {
            return self.call_math32(op, name, args, elem);
        }
        let symbol = self.ensure_math_function(name);
        let f64 = self.b.f64();
        self.call_widened(op, &symbol, args, f64, elem)
    }

    /// `symbol` (a helper computing in `wide`) on `elem` arguments: narrower ones extended to
    /// `wide` and the result rounded back.
    fn call_widened(
        &mut self,
        op: MlirOperation,
        symbol: &str,
        args: &[Value],
        wide: MlirType,
        elem: MlirType,
    ) -> LResult<Value> {
        let narrow = type_bits(elem) < type_bits(wide);
        let args: Vec<Value> = args
            .iter()
            .map(|&a| {
                if narrow {
                    self.b.cast(CastOp::FpExt, a, wide)
                } else {
                    a
                }
            })
            .collect();
        let Some(r) = self.b.call(symbol, &args, Some(wide)) else {
            return err(
                op,
                "internal error: a call with a result type gave no value",
            );
        };
        Ok(if narrow {
            let lty = self.llvm_type(elem);
            self.b.cast(CastOp::FpTrunc, r, lty)
        } else {
            r
        })
    }

    /// `name` of [`math::f32`] (a function of its list or `exp_neg`) on f32, f16 or bf16
    /// arguments, computed in f32.
    fn call_math32(
        &mut self,
        op: MlirOperation,
        name: &str,
        args: &[Value],
        elem: MlirType,
    ) -> LResult<Value> {
        let symbol = self.ensure_math_function32(name);
        let f32 = self.b.f32();
        self.call_widened(op, &symbol, args, f32, elem)
    }

    /// A `math` dialect op implemented by [`crate::math`], per register.
    pub fn lower_soft_math(
        &mut self,
        op: MlirOperation,
        function: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let out = nth(op, outs, 0, "the result")?;
        let ty = value_type(out);
        let elem = element_type(ty);
        let count = self.register_count(op, ty)?;
        // exp(0 − y) is exp(−y): the two arguments differ only in the sign of a zero, which exp
        // maps to 1 either way; `exp_neg` takes the negation into its constants, so the
        // subtraction (silu's exp(−x), a log-sigmoid's exp(−|x|)) costs nothing.
        let negated = (function == "exp" && type_bits(elem) <= 32)
            .then(|| negated_operand(ins[0]))
            .flatten();
        let (function, ins) = match &negated {
            Some(y) => ("exp_neg", std::slice::from_ref(y)),
            None => (function, ins),
        };
        let mut inputs = Vec::with_capacity(ins.len());
        for v in ins {
            inputs.push(self.regs(op, *v)?);
        }
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let args: Vec<Value> = inputs
                .iter()
                .map(|v| pick_reg(op, v, r))
                .collect::<LResult<_>>()?;
            regs.push(if function == "exp_neg" {
                self.call_math32(op, function, &args, elem)?
            } else {
                self.call_math(op, function, &args, elem)?
            });
        }
        self.set(out, regs);
        Ok(())
    }

    /// f32 `exp2`, `rsqrt` and division as single approximate PTX instructions (what Triton
    /// emits, and what libdevice's `exp2f`/`rsqrtf` are).
    pub fn lower_fast_math(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let out = nth(op, outs, 0, "the result")?;
        let count = self.register_count(op, value_type(out))?;
        let Some(&first) = ins.first() else {
            return err(op, "expected an operand");
        };
        let a = self.regs(op, first)?;
        let b = match ins.get(1) {
            Some(&v) => Some(self.regs(op, v)?),
            None => None,
        };
        let f32 = self.b.f32();
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let x = pick_reg(op, &a, r)?;
            let v = match name {
                // As Triton: f32 exp2 is ex2.approx.ftz (2 ulp; results below 2^-126 flush to
                // zero), a single MUFU op where the non-ftz form adds a denormal fix-up.
                "math.exp2" => self.b.asm("ex2.approx.ftz.f32 $0, $1;", "=f,f", &[x], f32),
                // Not .ftz: subnormal arguments give their (finite) reciprocal square root.
                "math.rsqrt" => self.b.asm("rsqrt.approx.f32 $0, $1;", "=f,f", &[x], f32),
                _ => {
                    let Some(b) = &b else {
                        return err(op, "a division needs two operands");
                    };
                    let y = pick_reg(op, b, r)?;
                    self.b
                        .asm("div.full.f32 $0, $1, $2;", "=f,f,f", &[x, y], f32)
                }
            };
            regs.push(v);
        }
        self.set(out, regs);
        Ok(())
    }

    /// `tt.clampf`: `min(max(x, lo), hi)`, NaN-propagating with `propagateNan = all`.
    pub fn lower_clampf(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let out = nth(op, outs, 0, "the result")?;
        let propagate = int_attr(op, "propagateNan").unwrap_or(0) != 0;
        let (max, min) = if propagate {
            (Intrinsic::Maximum, Intrinsic::Minimum)
        } else {
            (Intrinsic::MaxNum, Intrinsic::MinNum)
        };
        if ins.len() != 3 {
            return err(op, "tt.clampf needs three operands");
        }
        self.lower_per_register(op, ins, out, |b, args| {
            let m = b.intr(max, &[args[0], args[1]]);
            b.intr(min, &[m, args[2]])
        })
    }

    /// `tt.precise_sqrt`, `tt.precise_divf` as single PTX instructions; `tt.mulhiui` as LLVM's
    /// widened multiply.
    pub fn lower_precise(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let out = nth(op, outs, 0, "the result")?;
        let elem = element_type(value_type(out));
        let bits = type_bits(elem);
        let expected = if name == "tt.precise_sqrt" { 1 } else { 2 };
        if ins.len() != expected {
            return err(op, format!("{name} needs {expected} operand(s)"));
        }
        if name == "tt.mulhiui" {
            return self
                .lower_per_register(op, ins, out, |b, args| b.mul_high(args[0], args[1], false));
        }
        // SAFETY: type kind queries on a live type.
        let (f32, f64) = unsafe { (mlirTypeIsAF32(elem), mlirTypeIsAF64(elem)) };
        let lty = if f64 { "f64" } else { "f32" };
        let (asm, constraints) = match name {
            _ if !f32 && !f64 => {
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
        let out = nth(op, outs, 0, "the result")?;
        let ty = value_type(out);
        if !is_float(element_type(ty)) {
            return err(op, format!("{name} needs float operands"));
        }
        let lty = self.llvm_type(element_type(ty));
        let count = self.register_count(op, ty)?;
        let mut inputs = Vec::with_capacity(ins.len());
        for v in ins {
            inputs.push(self.regs(op, *v)?);
        }
        let f32 = self.b.f32();
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let mut args = Vec::with_capacity(inputs.len());
            for v in &inputs {
                let x = pick_reg(op, v, r)?;
                args.push(self.b.cast(CastOp::FpExt, x, f32));
            }
            let wide = if name == "tt.precise_sqrt" {
                self.b.asm("sqrt.rn.f32 $0, $1;", "=f,f", &args, f32)
            } else {
                self.b.asm("div.rn.f32 $0, $1, $2;", "=f,f,f", &args, f32)
            };
            regs.push(self.b.cast(CastOp::FpTrunc, wide, lty));
        }
        self.set(out, regs);
        Ok(())
    }

    /// `tt.extern_elementwise`: libdevice symbols mapped to Tritium's implementations.
    pub fn lower_extern(
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
        let out = nth(op, outs, 0, "the result")?;
        let Some(&first) = ins.first() else {
            return err(
                op,
                format!("tt.extern_elementwise '{symbol}' needs operands"),
            );
        };
        let ty = value_type(out);
        let elem = element_type(ty);
        let arg_elem = element_type(value_type(first));
        let rty = self.llvm_type(elem);
        let aty = self.llvm_type(arg_elem);
        match &function {
            Extern::Soft(_) => {}
            Extern::Float(native) | Extern::Int(native) => {
                let float = matches!(function, Extern::Float(_));
                if (float && !is_float(arg_elem)) || (!float && !is_integer(aty)) {
                    let kind = if float { "float" } else { "integer" };
                    return err(op, format!("'{symbol}' needs {kind} operands"));
                }
                if ins.len() != native.arity() {
                    return err(
                        op,
                        format!(
                            "'{symbol}' takes {} operand(s), got {}",
                            native.arity(),
                            ins.len()
                        ),
                    );
                }
            }
        }
        let count = self.register_count(op, ty)?;
        let mut inputs = Vec::with_capacity(ins.len());
        for v in ins {
            inputs.push(self.regs(op, *v)?);
        }
        let mut regs = Vec::with_capacity(count);
        for r in 0..count {
            let args: Vec<Value> = inputs
                .iter()
                .map(|v| pick_reg(op, v, r))
                .collect::<LResult<_>>()?;
            let v = match &function {
                Extern::Soft(name) => self.call_math(op, name, &args, elem)?,
                Extern::Float(native) | Extern::Int(native) => {
                    self.native_call(*native, &args, aty, rty)
                }
            };
            regs.push(v);
        }
        self.set(out, regs);
        Ok(())
    }

    /// One libdevice function on registers `args` (as many as [`Native::arity`]; of type `aty`,
    /// float or integer as the function needs), giving a `rty`.
    fn native_call(
        &mut self,
        native: Native,
        args: &[Value],
        aty: MlirType,
        rty: MlirType,
    ) -> Value {
        let b = &mut self.b;
        // `lower_extern` checked that there are `native.arity()` (1 to 3) arguments.
        let a = args[0];
        match native {
            // f32: libdevice's rsqrtf is the hardware approximation (≤ 2 ulp).
            Native::Rsqrt if type_bits(aty) == 32 => {
                b.asm("rsqrt.approx.f32 $0, $1;", "=f,f", &[a], aty)
            }
            Native::Rsqrt => {
                let s = b.intr(Intrinsic::Sqrt, &[a]);
                let one = b.const_float(aty, 1.0);
                b.fdiv(one, s)
            }
            Native::Rcp => {
                let one = b.const_float(aty, 1.0);
                b.fdiv(one, a)
            }
            Native::FDiv => b.fdiv(a, args[1]),
            Native::IsNan | Native::IsInf | Native::SignBit => {
                let flag = match native {
                    Native::IsNan => b.fcmp(FloatPredicate::Uno, a, a),
                    Native::IsInf => {
                        let abs = b.intr(Intrinsic::FAbs, &[a]);
                        let inf = b.const_f64(f64::INFINITY);
                        let inf = b.cast(CastOp::FpTrunc, inf, aty);
                        b.fcmp(FloatPredicate::Oeq, abs, inf)
                    }
                    _ => {
                        let bits = match type_bits(aty) {
                            64 => 64,
                            32 => 32,
                            _ => 16,
                        };
                        let int = b.int_type(bits);
                        let i = b.bitcast(a, int);
                        let z = b.const_int(int, 0);
                        b.icmp(IntPredicate::Slt, i, z)
                    }
                };
                b.zext(flag, rty)
            }
            Native::UMulHi | Native::MulHi => {
                b.mul_high(a, args[1], matches!(native, Native::MulHi))
            }
            Native::Ctlz => {
                let v = b.ctlz(a);
                cast_int(b, v, rty)
            }
            Native::CtPop => {
                let v = b.intr(Intrinsic::CtPop, &[a]);
                cast_int(b, v, rty)
            }
            Native::Abs => b.iabs(a),
            Native::Intr(intrinsic) => b.intr(intrinsic, args),
        }
    }

    /// `tt.elementwise_inline_asm`: `packed_element` elements per asm instance; sub-32-bit
    /// elements are packed into 32-bit registers.
    pub fn lower_inline_asm(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let asm = string_attr(op, "asm_string").unwrap_or_default();
        let constraints = string_attr(op, "constraints").unwrap_or_default();
        let pack = int_attr(op, "packed_element").unwrap_or(1).max(1) as usize;
        // SAFETY: attribute kind query and getter on a live attribute of the matching kind.
        let pure = attribute(op, "pure").is_some_and(|attr| unsafe {
            mlirAttributeIsABool(attr) && mlirBoolAttrGetValue(attr)
        });
        let out = nth(op, outs, 0, "the result")?;
        let count = self.register_count(op, value_type(out))?;
        if count % pack != 0 {
            return err(
                op,
                format!(
                    "packed_element = {pack} does not divide the {count} elements a thread holds"
                ),
            );
        }
        let mut inputs = Vec::with_capacity(ins.len());
        for v in ins {
            inputs.push(self.regs(op, *v)?);
        }
        let in_elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let out_elems: Vec<MlirType> = outs.iter().map(|v| element_type(value_type(*v))).collect();
        // Registers per operand per instance, and elements per register.
        let group = |bits: u32| -> (usize, usize) {
            if bits < 32 && (pack * bits as usize) >= 32 {
                let per = 32 / bits as usize;
                (pack / per, per)
            } else {
                (pack, 1)
            }
        };
        let i32 = self.b.i32();
        let mut results: Vec<Vec<Value>> = vec![Vec::new(); outs.len()];
        for start in (0..count).step_by(pack) {
            let mut operands = Vec::new();
            for (vals, elem) in inputs.iter().zip(&in_elems) {
                let bits = type_bits(*elem);
                let (regs, per) = group(bits);
                for g in 0..regs {
                    if per == 1 {
                        operands.push(pick_reg(op, vals, start + g)?);
                    } else {
                        let mut word = self.b.const_i32(0);
                        for k in 0..per {
                            let v = pick_reg(op, vals, start + g * per + k)?;
                            // `bits_of` gives an i16 for 8- and 16-bit elements.
                            let b = self.bits_of(v, *elem, bits);
                            let b = self.b.zext(b, i32);
                            let s = self.b.bin_imm(BinOp::Shl, b, (k as u32 * bits) as i64);
                            word = self.b.or(word, s);
                        }
                        operands.push(word);
                    }
                }
            }
            let mut result_types = Vec::new();
            let mut layout = Vec::new();
            for elem in &out_elems {
                let bits = type_bits(*elem);
                let (regs, per) = group(bits);
                for _ in 0..regs {
                    result_types.push(if per == 1 { self.llvm_type(*elem) } else { i32 });
                }
                layout.push((regs, per, bits));
            }
            // LLVM aborts on an operand count the constraints do not match (with
            // packed_element > 1, each 32-bit element is an operand of its own).
            let declared = constraints
                .split(',')
                .filter(|c| !c.trim().is_empty() && !c.trim().starts_with('~'))
                .count();
            if declared != result_types.len() + operands.len() {
                return err(
                    op,
                    format!(
                        "the constraints \"{constraints}\" declare {declared} operands, but with packed_element = {pack} each instance has {} results and {} arguments",
                        result_types.len(),
                        operands.len()
                    ),
                );
            }
            let result_ty = match result_types.as_slice() {
                [one] => *one,
                _ => self.b.struct_type(&result_types),
            };
            let Some(v) = self
                .b
                .inline_asm(&asm, &constraints, &operands, Some(result_ty), !pure)
            else {
                return err(
                    op,
                    "internal error: inline asm with a result type gave no value",
                );
            };
            let mut index = 0;
            for (o, (regs, per, bits)) in layout.into_iter().enumerate() {
                for _ in 0..regs {
                    let raw = if result_types.len() == 1 {
                        v
                    } else {
                        self.b.extract_value(v, index as i64, result_types[index])
                    };
                    index += 1;
                    if per == 1 {
                        results[o].push(raw);
                    } else {
                        let elem = out_elems[o];
                        let lty = self.llvm_type(elem);
                        let int = self.b.int_type(bits);
                        for k in 0..per {
                            let s = self.b.bin_imm(BinOp::LShr, raw, (k as u32 * bits) as i64);
                            let t = self.b.trunc(s, int);
                            let value = if is_float(elem) {
                                self.b.bitcast(t, lty)
                            } else {
                                t
                            };
                            results[o].push(value);
                        }
                    }
                }
            }
        }
        for (out, regs) in outs.iter().zip(results) {
            self.set(*out, regs);
        }
        Ok(())
    }
}

/// An integer result converted to the integer type `to` (truncated or zero-extended; as is
/// when the widths agree).
fn cast_int(b: &mut Builder, v: Value, to: MlirType) -> Value {
    let (fb, tb) = (type_bits(value_type(v)), type_bits(to));
    if fb == tb {
        v
    } else if fb > tb {
        b.trunc(v, to)
    } else {
        b.zext(v, to)
    }
}
