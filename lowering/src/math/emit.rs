//! The math algorithms as LLVM-dialect ops: each function becomes an internal
//! `llvm.func @__tritium_<name>_f64(f64...) -> f64` that the lowering calls per element, built
//! through the typed [`Builder`].

use super::f32::Ops32;
use super::{Ops, TWO_OVER_PI};
use crate::builder::{
    Builder, CastOp, ContextAttrs, FloatPredicate, IntPredicate, Intrinsic, Value,
};
use mlir_sys::*;
use tritium_passes::ir_util::block_args;

/// Builds the [`Ops`] of the algorithms at a builder's insertion point: `F` values are f64, `I`
/// i64, `B` i1 and `W` i128.
pub struct BuilderOps<'a> {
    pub b: &'a mut Builder,
    /// Whether the code built reads the 2/π table ([`TABLE_SYMBOL`], see [`define_table`]).
    pub uses_table: bool,
}

impl<'a> BuilderOps<'a> {
    pub fn new(b: &'a mut Builder) -> BuilderOps<'a> {
        BuilderOps {
            b,
            uses_table: false,
        }
    }

    fn i128(&self) -> MlirType {
        self.b.int_type(128)
    }
}

/// Symbol of the global table of 2/π words.
pub const TABLE_SYMBOL: &str = "__tritium_two_over_pi";

/// Defines, at the builder's insertion point (the module body), the global holding
/// [`TWO_OVER_PI`]: `llvm.mlir.global internal constant @__tritium_two_over_pi(dense<...> :
/// tensor<Nxi32>) {addr_space = 1 : i32} : !llvm.array<N x i32>`.
pub fn define_table(b: &mut Builder) {
    let words: Vec<i32> = TWO_OVER_PI.iter().map(|w| *w as i32).collect();
    let n = words.len();
    let i32 = b.i32();
    let shape = [n as i64];
    // SAFETY: `shape` and `words` outlive the calls, which copy them; the tensor type has
    // exactly `n` elements of the i32 type of this context.
    let value = unsafe {
        let tensor = mlirRankedTensorTypeGet(1, shape.as_ptr(), i32, mlirAttributeGetNull());
        mlirDenseElementsAttrInt32Get(tensor, n as isize, words.as_ptr())
    };
    let array = b.array_type(i32, n as u32);
    let attrs = [
        ("sym_name", b.string_attr(TABLE_SYMBOL)),
        ("global_type", b.type_attr(array)),
        ("linkage", b.linkage(true)),
        ("constant", b.unit_attr()),
        ("addr_space", b.i32_attr(1)),
        ("value", value),
    ];
    let region = b.empty_region();
    b.create("llvm.mlir.global", &[], &[], &attrs, vec![region]);
}

/// Defines, at the builder's insertion point (the module body), `llvm.func internal
/// @__tritium_<name>_f64` computing `name` (see [`super::FUNCTIONS`]; `name` must be one of
/// them). Returns whether its body reads the 2/π table, which the caller then defines with
/// [`define_table`]. The builder's insertion point is left as it was.
pub fn define_function(b: &mut Builder, name: &str) -> bool {
    let f64 = b.f64();
    let params = vec![f64; super::arity(name)];
    let (region, entry) = b.region_with_block(&params);
    let func_type = b.func_type(f64, &params, false);
    let attrs = [
        ("sym_name", b.string_attr(&symbol(name))),
        ("function_type", b.type_attr(func_type)),
        ("linkage", b.linkage(true)),
    ];
    b.create("llvm.func", &[], &[], &attrs, vec![region]);
    let saved = b.save();
    b.set_end(entry);
    let args = block_args(entry);
    let mut ops = BuilderOps::new(b);
    let result = super::eval(&mut ops, name, &args);
    let uses_table = ops.uses_table;
    b.ret(&[result]);
    b.restore(saved);
    uses_table
}

pub fn symbol(name: &str) -> String {
    format!("__tritium_{name}_f64")
}

impl Ops for BuilderOps<'_> {
    type F = Value;
    type I = Value;
    type B = Value;
    type W = Value;
    fn f(&mut self, c: f64) -> Value {
        self.b.const_f64(c)
    }
    fn i(&mut self, c: i64) -> Value {
        self.b.const_i64(c)
    }
    fn add(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fadd(*a, *b)
    }
    fn sub(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fsub(*a, *b)
    }
    fn mul(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fmul(*a, *b)
    }
    fn div(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fdiv(*a, *b)
    }
    fn fma(&mut self, a: &Value, b: &Value, c: &Value) -> Value {
        self.b.intr(Intrinsic::Fma, &[*a, *b, *c])
    }
    fn neg(&mut self, a: &Value) -> Value {
        self.b.fneg(*a)
    }
    fn abs(&mut self, a: &Value) -> Value {
        self.b.intr(Intrinsic::FAbs, &[*a])
    }
    fn rint(&mut self, a: &Value) -> Value {
        self.b.intr(Intrinsic::RoundEven, &[*a])
    }
    fn sqrt(&mut self, a: &Value) -> Value {
        self.b.intr(Intrinsic::Sqrt, &[*a])
    }
    fn lt(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Olt, *a, *b)
    }
    fn eq(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Oeq, *a, *b)
    }
    fn is_nan(&mut self, a: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Uno, *a, *a)
    }
    fn sel(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        self.b.select(*c, *a, *b)
    }
    fn isel(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        self.b.select(*c, *a, *b)
    }
    fn float_bits(&mut self, a: &Value) -> Value {
        let i64 = self.b.i64();
        self.b.bitcast(*a, i64)
    }
    fn bits_float(&mut self, a: &Value) -> Value {
        let f64 = self.b.f64();
        self.b.bitcast(*a, f64)
    }
    fn f2i(&mut self, a: &Value) -> Value {
        let i64 = self.b.i64();
        self.b.cast(CastOp::FpToSi, *a, i64)
    }
    fn i2f(&mut self, a: &Value) -> Value {
        let f64 = self.b.f64();
        self.b.cast(CastOp::SiToFp, *a, f64)
    }
    fn iadd(&mut self, a: &Value, b: &Value) -> Value {
        self.b.add(*a, *b)
    }
    fn isub(&mut self, a: &Value, b: &Value) -> Value {
        self.b.sub(*a, *b)
    }
    fn iand(&mut self, a: &Value, b: &Value) -> Value {
        self.b.and(*a, *b)
    }
    fn ior(&mut self, a: &Value, b: &Value) -> Value {
        self.b.or(*a, *b)
    }
    fn shl(&mut self, a: &Value, s: u32) -> Value {
        let c = self.i(s as i64);
        self.b.shl(*a, c)
    }
    fn lshr(&mut self, a: &Value, s: u32) -> Value {
        let c = self.i(s as i64);
        self.b.lshr(*a, c)
    }
    fn ashr(&mut self, a: &Value, s: u32) -> Value {
        let c = self.i(s as i64);
        self.b.ashr(*a, c)
    }
    fn shl_var(&mut self, a: &Value, s: &Value) -> Value {
        self.b.shl(*a, *s)
    }
    fn ieq(&mut self, a: &Value, b: &Value) -> Value {
        self.b.icmp(IntPredicate::Eq, *a, *b)
    }
    fn ilt(&mut self, a: &Value, b: &Value) -> Value {
        self.b.icmp(IntPredicate::Slt, *a, *b)
    }
    fn and(&mut self, a: &Value, b: &Value) -> Value {
        self.b.and(*a, *b)
    }
    fn or(&mut self, a: &Value, b: &Value) -> Value {
        self.b.or(*a, *b)
    }
    fn not(&mut self, a: &Value) -> Value {
        let t = self.b.const_bool(true);
        self.b.xor(*a, t)
    }
    fn clz(&mut self, a: &Value) -> Value {
        self.b.ctlz(*a)
    }
    fn table(&mut self, index: &Value) -> Value {
        self.uses_table = true;
        let ptr = self.b.ptr_type(1);
        let base = self.b.address_of(TABLE_SYMBOL, ptr);
        let i32 = self.b.i32();
        let array = self.b.array_type(i32, TWO_OVER_PI.len() as u32);
        let address = self.b.gep_array(base, *index, array);
        let word = self.b.load(address, i32);
        let i64 = self.b.i64();
        self.b.zext(word, i64)
    }
    fn wide(&mut self, a: &Value) -> Value {
        let w = self.i128();
        self.b.zext(*a, w)
    }
    fn wconst(&mut self, c: u128) -> Value {
        let w = self.i128();
        if let Ok(small) = i64::try_from(c) {
            // An i64 attribute value is sign-extended to 128 bits: exact for 0 <= c < 2^63.
            return self.b.const_int(w, small);
        }
        // Wider: the two 64-bit halves, zero-extended, `hi << 64 | lo`.
        let lo = self.b.const_i64(c as u64 as i64);
        let lo = self.b.zext(lo, w);
        let hi = self.b.const_i64((c >> 64) as u64 as i64);
        let hi = self.b.zext(hi, w);
        let shift = self.b.const_int(w, 64);
        let hi = self.b.shl(hi, shift);
        self.b.or(hi, lo)
    }
    fn wadd(&mut self, a: &Value, b: &Value) -> Value {
        self.b.add(*a, *b)
    }
    fn wsub(&mut self, a: &Value, b: &Value) -> Value {
        self.b.sub(*a, *b)
    }
    fn wmul(&mut self, a: &Value, b: &Value) -> Value {
        self.b.mul(*a, *b)
    }
    fn wand(&mut self, a: &Value, b: &Value) -> Value {
        self.b.and(*a, *b)
    }
    fn wor(&mut self, a: &Value, b: &Value) -> Value {
        self.b.or(*a, *b)
    }
    fn wshl(&mut self, a: &Value, s: u32) -> Value {
        let c = self.wconst(s as u128);
        self.b.shl(*a, c)
    }
    fn wlshr(&mut self, a: &Value, s: u32) -> Value {
        let c = self.wconst(s as u128);
        self.b.lshr(*a, c)
    }
    fn wshl_var(&mut self, a: &Value, s: &Value) -> Value {
        let w = self.wide(s);
        self.b.shl(*a, w)
    }
    fn narrow(&mut self, a: &Value) -> Value {
        let i64 = self.b.i64();
        self.b.trunc(*a, i64)
    }
    fn wsel(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        self.b.select(*c, *a, *b)
    }
}

/// Builds the [`Ops32`] of the f32 algorithms at a builder's insertion point: `F` values are
/// f32, `I` i32, `B` i1 and `L` i64.
pub struct BuilderOps32<'a> {
    pub b: &'a mut Builder,
    /// Whether the code built reads the 2/π table ([`TABLE_SYMBOL`], see [`define_table`]).
    pub uses_table: bool,
}

/// Defines, at the builder's insertion point (the module body), `llvm.func internal
/// @__tritium_<name>_f32` computing `name` of [`super::f32::FUNCTIONS`] in f32. Returns whether
/// its body reads the 2/π table. The builder's insertion point is left as it was.
pub fn define_function32(b: &mut Builder, name: &str) -> bool {
    let f32 = b.f32();
    let params = vec![f32; super::arity(name)];
    let (region, entry) = b.region_with_block(&params);
    let func_type = b.func_type(f32, &params, false);
    let attrs = [
        ("sym_name", b.string_attr(&symbol32(name))),
        ("function_type", b.type_attr(func_type)),
        ("linkage", b.linkage(true)),
    ];
    b.create("llvm.func", &[], &[], &attrs, vec![region]);
    let saved = b.save();
    b.set_end(entry);
    let args = block_args(entry);
    let mut ops = BuilderOps32 {
        b,
        uses_table: false,
    };
    let result = super::f32::eval(&mut ops, name, &args);
    let uses_table = ops.uses_table;
    b.ret(&[result]);
    b.restore(saved);
    uses_table
}

pub fn symbol32(name: &str) -> String {
    format!("__tritium_{name}_f32")
}

impl Ops32 for BuilderOps32<'_> {
    type F = Value;
    type I = Value;
    type B = Value;
    type L = Value;
    fn f(&mut self, c: f32) -> Value {
        self.b.const_f32(c)
    }
    fn i(&mut self, c: i32) -> Value {
        self.b.const_i32(c as i64)
    }
    fn add(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fadd(*a, *b)
    }
    fn sub(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fsub(*a, *b)
    }
    fn mul(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fmul(*a, *b)
    }
    fn mul_scale(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fmul_contractable(*a, *b)
    }
    fn fma(&mut self, a: &Value, b: &Value, c: &Value) -> Value {
        self.b.intr(Intrinsic::Fma, &[*a, *b, *c])
    }
    fn neg(&mut self, a: &Value) -> Value {
        self.b.fneg(*a)
    }
    fn abs(&mut self, a: &Value) -> Value {
        self.b.intr(Intrinsic::FAbs, &[*a])
    }
    fn sqrt(&mut self, a: &Value) -> Value {
        self.b.intr(Intrinsic::Sqrt, &[*a])
    }
    fn copysign(&mut self, a: &Value, b: &Value) -> Value {
        self.b.intr(Intrinsic::CopySign, &[*a, *b])
    }
    fn rint(&mut self, a: &Value) -> Value {
        self.b.intr(Intrinsic::RoundEven, &[*a])
    }
    fn minimum(&mut self, a: &Value, b: &Value) -> Value {
        self.b.intr(Intrinsic::Minimum, &[*a, *b])
    }
    fn maximum(&mut self, a: &Value, b: &Value) -> Value {
        self.b.intr(Intrinsic::Maximum, &[*a, *b])
    }
    fn lt(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Olt, *a, *b)
    }
    fn eq(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Oeq, *a, *b)
    }
    fn ne(&mut self, a: &Value, b: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Une, *a, *b)
    }
    fn is_nan(&mut self, a: &Value) -> Value {
        self.b.fcmp(FloatPredicate::Uno, *a, *a)
    }
    fn sel(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        self.b.select(*c, *a, *b)
    }
    fn isel(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        self.b.select(*c, *a, *b)
    }
    fn bits(&mut self, a: &Value) -> Value {
        let i32 = self.b.i32();
        self.b.bitcast(*a, i32)
    }
    fn bits_float(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.bitcast(*a, f32)
    }
    fn i2f(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.cast(CastOp::SiToFp, *a, f32)
    }
    fn iadd(&mut self, a: &Value, b: &Value) -> Value {
        self.b.add(*a, *b)
    }
    fn isub(&mut self, a: &Value, b: &Value) -> Value {
        self.b.sub(*a, *b)
    }
    fn iand(&mut self, a: &Value, b: &Value) -> Value {
        self.b.and(*a, *b)
    }
    fn ior(&mut self, a: &Value, b: &Value) -> Value {
        self.b.or(*a, *b)
    }
    fn ixor(&mut self, a: &Value, b: &Value) -> Value {
        self.b.xor(*a, *b)
    }
    fn shl(&mut self, a: &Value, s: u32) -> Value {
        let c = self.b.const_i32(s as i64);
        self.b.shl(*a, c)
    }
    fn lshr(&mut self, a: &Value, s: u32) -> Value {
        let c = self.b.const_i32(s as i64);
        self.b.lshr(*a, c)
    }
    fn ashr(&mut self, a: &Value, s: u32) -> Value {
        let c = self.b.const_i32(s as i64);
        self.b.ashr(*a, c)
    }
    fn ieq(&mut self, a: &Value, b: &Value) -> Value {
        self.b.icmp(IntPredicate::Eq, *a, *b)
    }
    fn ult(&mut self, a: &Value, b: &Value) -> Value {
        self.b.icmp(IntPredicate::Ult, *a, *b)
    }
    fn ilt(&mut self, a: &Value, b: &Value) -> Value {
        self.b.icmp(IntPredicate::Slt, *a, *b)
    }
    fn and(&mut self, a: &Value, b: &Value) -> Value {
        self.b.and(*a, *b)
    }
    fn or(&mut self, a: &Value, b: &Value) -> Value {
        self.b.or(*a, *b)
    }
    fn not(&mut self, a: &Value) -> Value {
        let t = self.b.const_bool(true);
        self.b.xor(*a, t)
    }
    fn ex2(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.asm("ex2.approx.ftz.f32 $0, $1;", "=f,f", &[*a], f32)
    }
    fn ex2_full(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.asm("ex2.approx.f32 $0, $1;", "=f,f", &[*a], f32)
    }
    fn fma_sat(&mut self, a: &Value, b: &Value, c: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.asm(
            "fma.rn.sat.f32 $0, $1, $2, $3;",
            "=f,f,f,f",
            &[*a, *b, *c],
            f32,
        )
    }
    fn lg2(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.asm("lg2.approx.f32 $0, $1;", "=f,f", &[*a], f32)
    }
    fn rcp(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.asm("rcp.approx.ftz.f32 $0, $1;", "=f,f", &[*a], f32)
    }
    fn table(&mut self, index: &Value) -> Value {
        self.uses_table = true;
        let ptr = self.b.ptr_type(1);
        let base = self.b.address_of(TABLE_SYMBOL, ptr);
        let i32 = self.b.i32();
        let i64 = self.b.i64();
        let index = self.b.zext(*index, i64);
        let array = self.b.array_type(i32, TWO_OVER_PI.len() as u32);
        let address = self.b.gep_array(base, index, array);
        self.b.load(address, i32)
    }
    fn wmul(&mut self, a: &Value, b: &Value) -> Value {
        let a = self.wide(a);
        let b = self.wide(b);
        self.b.mul(a, b)
    }
    fn wide(&mut self, a: &Value) -> Value {
        let i64 = self.b.i64();
        self.b.zext(*a, i64)
    }
    fn lconst(&mut self, c: i64) -> Value {
        self.b.const_i64(c)
    }
    fn ladd(&mut self, a: &Value, b: &Value) -> Value {
        self.b.add(*a, *b)
    }
    fn lsub(&mut self, a: &Value, b: &Value) -> Value {
        self.b.sub(*a, *b)
    }
    fn land(&mut self, a: &Value, b: &Value) -> Value {
        self.b.and(*a, *b)
    }
    fn lor(&mut self, a: &Value, b: &Value) -> Value {
        self.b.or(*a, *b)
    }
    fn lshl(&mut self, a: &Value, s: u32) -> Value {
        let c = self.b.const_i64(s as i64);
        self.b.shl(*a, c)
    }
    fn llshr(&mut self, a: &Value, s: u32) -> Value {
        let c = self.b.const_i64(s as i64);
        self.b.lshr(*a, c)
    }
    fn lshl_var(&mut self, a: &Value, s: &Value) -> Value {
        let s = self.wide(s);
        self.b.shl(*a, s)
    }
    fn llshr_var(&mut self, a: &Value, s: &Value) -> Value {
        let s = self.wide(s);
        self.b.lshr(*a, s)
    }
    fn lo(&mut self, a: &Value) -> Value {
        let i32 = self.b.i32();
        self.b.trunc(*a, i32)
    }
    fn l2f(&mut self, a: &Value) -> Value {
        let f32 = self.b.f32();
        self.b.cast(CastOp::SiToFp, *a, f32)
    }
    fn f2l(&mut self, a: &Value) -> Value {
        let i64 = self.b.i64();
        self.b.cast(CastOp::FpToSi, *a, i64)
    }
    fn cold(
        &mut self,
        c: &Value,
        default: (Value, Value, Value),
        slow: impl FnOnce(&mut Self) -> (Value, Value, Value),
    ) -> (Value, Value, Value) {
        // Three stack slots (promoted to registers by LLVM) written by an `scf.if`.
        let (f32, i32) = (self.b.f32(), self.b.i32());
        let one = self.b.const_i32(1);
        let slots = [
            self.b.alloca(f32, one),
            self.b.alloca(f32, one),
            self.b.alloca(i32, one),
        ];
        let values = [default.0, default.1, default.2];
        for (v, s) in values.iter().zip(&slots) {
            self.b.store(*v, *s);
        }
        let after = self.b.begin_if(*c);
        let (r, r_lo, q) = slow(self);
        for (v, s) in [r, r_lo, q].iter().zip(&slots) {
            self.b.store(*v, *s);
        }
        self.b.restore(after);
        (
            self.b.load(slots[0], f32),
            self.b.load(slots[1], f32),
            self.b.load(slots[2], i32),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{define_function, define_table};
    use crate::builder::Builder;
    use mlir_sys::*;

    /// Every helper function, built into one module with the table, passes the verifier (the
    /// ops are well-typed and the symbols they use exist).
    #[test]
    fn helper_functions_verify() {
        let context = tritium_dialects::context::new_context();
        let ctx = context.to_raw();
        // SAFETY: a fresh module in a live context; every op built below goes into its body,
        // and the module is destroyed before the context.
        unsafe {
            let loc = mlirLocationUnknownGet(ctx);
            let module = mlirModuleCreateEmpty(loc);
            let body = mlirModuleGetBody(module);
            let mut b = Builder::at_end(ctx, loc, body);
            let mut table = false;
            for name in super::super::FUNCTIONS {
                table |= define_function(&mut b, name);
            }
            for name in super::super::f32::FUNCTIONS {
                table |= super::define_function32(&mut b, name);
            }
            assert!(table, "sin/cos/tan read the 2/π table");
            define_table(&mut b);
            let op = mlirModuleGetOperation(module);
            assert!(
                mlirOperationVerify(op),
                "the helper functions do not verify"
            );
            mlirModuleDestroy(module);
        }
    }
}
