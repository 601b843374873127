//! The math algorithms as LLVM-dialect text: each function becomes an internal
//! `llvm.func @__tritium_<name>_f64` that the lowering calls per element.

use super::{Ops, TWO_OVER_PI};
use std::fmt::Write;

/// Emits ops as lines of text with fresh names.
pub struct TextOps {
    pub body: String,
    next: usize,
}

impl Default for TextOps {
    fn default() -> Self {
        Self::new()
    }
}

impl TextOps {
    pub fn new() -> TextOps {
        TextOps {
            body: String::new(),
            next: 0,
        }
    }

    fn op(&mut self, rhs: &str) -> String {
        self.next += 1;
        let name = format!("%m{}", self.next);
        let _ = writeln!(self.body, "    {name} = {rhs}");
        name
    }
}

/// Symbol of the global table of 2/π words.
pub const TABLE_SYMBOL: &str = "__tritium_two_over_pi";

/// The global holding [`TWO_OVER_PI`].
pub fn table_global() -> String {
    let words: Vec<String> = TWO_OVER_PI
        .iter()
        .map(|w| (*w as i32).to_string())
        .collect();
    format!(
        "  llvm.mlir.global internal constant @{TABLE_SYMBOL}(dense<[{}]> : tensor<{}xi32>) {{addr_space = 1 : i32}} : !llvm.array<{} x i32>\n",
        words.join(", "),
        TWO_OVER_PI.len(),
        TWO_OVER_PI.len()
    )
}

/// `llvm.func internal @__tritium_<name>_f64` computing `name` (see [`super::FUNCTIONS`]).
pub fn function(name: &str) -> String {
    let mut o = TextOps::new();
    let arity = super::arity(name);
    let args: Vec<String> = (0..arity).map(|i| format!("%a{i}")).collect();
    let result = super::eval(&mut o, name, &args);
    let params: Vec<String> = args.iter().map(|a| format!("{a}: f64")).collect();
    format!(
        "  llvm.func internal @{}({}) -> f64 {{\n{}    llvm.return {result} : f64\n  }}\n",
        symbol(name),
        params.join(", "),
        o.body
    )
}

pub fn symbol(name: &str) -> String {
    format!("__tritium_{name}_f64")
}

fn f64_text(c: f64) -> String {
    format!("0x{:016X}", c.to_bits())
}

impl Ops for TextOps {
    type F = String;
    type I = String;
    type B = String;
    type W = String;
    fn f(&mut self, c: f64) -> String {
        self.op(&format!("llvm.mlir.constant({} : f64) : f64", f64_text(c)))
    }
    fn i(&mut self, c: i64) -> String {
        self.op(&format!("llvm.mlir.constant({c} : i64) : i64"))
    }
    fn add(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.fadd {a}, {b} : f64"))
    }
    fn sub(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.fsub {a}, {b} : f64"))
    }
    fn mul(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.fmul {a}, {b} : f64"))
    }
    fn div(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.fdiv {a}, {b} : f64"))
    }
    fn fma(&mut self, a: &String, b: &String, c: &String) -> String {
        self.op(&format!(
            "llvm.intr.fma({a}, {b}, {c}) : (f64, f64, f64) -> f64"
        ))
    }
    fn neg(&mut self, a: &String) -> String {
        self.op(&format!("llvm.fneg {a} : f64"))
    }
    fn abs(&mut self, a: &String) -> String {
        self.op(&format!("llvm.intr.fabs({a}) : (f64) -> f64"))
    }
    fn rint(&mut self, a: &String) -> String {
        self.op(&format!("llvm.intr.roundeven({a}) : (f64) -> f64"))
    }
    fn sqrt(&mut self, a: &String) -> String {
        self.op(&format!("llvm.intr.sqrt({a}) : (f64) -> f64"))
    }
    fn lt(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.fcmp \"olt\" {a}, {b} : f64"))
    }
    fn eq(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.fcmp \"oeq\" {a}, {b} : f64"))
    }
    fn is_nan(&mut self, a: &String) -> String {
        self.op(&format!("llvm.fcmp \"uno\" {a}, {a} : f64"))
    }
    fn sel(&mut self, c: &String, a: &String, b: &String) -> String {
        self.op(&format!("llvm.select {c}, {a}, {b} : i1, f64"))
    }
    fn isel(&mut self, c: &String, a: &String, b: &String) -> String {
        self.op(&format!("llvm.select {c}, {a}, {b} : i1, i64"))
    }
    fn float_bits(&mut self, a: &String) -> String {
        self.op(&format!("llvm.bitcast {a} : f64 to i64"))
    }
    fn bits_float(&mut self, a: &String) -> String {
        self.op(&format!("llvm.bitcast {a} : i64 to f64"))
    }
    fn f2i(&mut self, a: &String) -> String {
        self.op(&format!("llvm.fptosi {a} : f64 to i64"))
    }
    fn i2f(&mut self, a: &String) -> String {
        self.op(&format!("llvm.sitofp {a} : i64 to f64"))
    }
    fn iadd(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.add {a}, {b} : i64"))
    }
    fn isub(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.sub {a}, {b} : i64"))
    }
    fn iand(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.and {a}, {b} : i64"))
    }
    fn ior(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.or {a}, {b} : i64"))
    }
    fn shl(&mut self, a: &String, s: u32) -> String {
        let c = self.i(s as i64);
        self.op(&format!("llvm.shl {a}, {c} : i64"))
    }
    fn lshr(&mut self, a: &String, s: u32) -> String {
        let c = self.i(s as i64);
        self.op(&format!("llvm.lshr {a}, {c} : i64"))
    }
    fn ashr(&mut self, a: &String, s: u32) -> String {
        let c = self.i(s as i64);
        self.op(&format!("llvm.ashr {a}, {c} : i64"))
    }
    fn shl_var(&mut self, a: &String, s: &String) -> String {
        self.op(&format!("llvm.shl {a}, {s} : i64"))
    }
    fn ieq(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.icmp \"eq\" {a}, {b} : i64"))
    }
    fn ilt(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.icmp \"slt\" {a}, {b} : i64"))
    }
    fn and(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.and {a}, {b} : i1"))
    }
    fn or(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.or {a}, {b} : i1"))
    }
    fn not(&mut self, a: &String) -> String {
        let t = self.op("llvm.mlir.constant(true) : i1");
        self.op(&format!("llvm.xor {a}, {t} : i1"))
    }
    fn clz(&mut self, a: &String) -> String {
        self.op(&format!(
            "\"llvm.intr.ctlz\"({a}) <{{is_zero_poison = false}}> : (i64) -> i64"
        ))
    }
    fn table(&mut self, index: &String) -> String {
        let base = self.op(&format!(
            "llvm.mlir.addressof @{TABLE_SYMBOL} : !llvm.ptr<1>"
        ));
        let n = TWO_OVER_PI.len();
        let address = self.op(&format!(
            "llvm.getelementptr {base}[0, {index}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, !llvm.array<{n} x i32>"
        ));
        let word = self.op(&format!("llvm.load {address} : !llvm.ptr<1> -> i32"));
        self.op(&format!("llvm.zext {word} : i32 to i64"))
    }
    fn wide(&mut self, a: &String) -> String {
        self.op(&format!("llvm.zext {a} : i64 to i128"))
    }
    fn wconst(&mut self, c: u128) -> String {
        self.op(&format!("llvm.mlir.constant({} : i128) : i128", c as i128))
    }
    fn wadd(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.add {a}, {b} : i128"))
    }
    fn wsub(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.sub {a}, {b} : i128"))
    }
    fn wmul(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.mul {a}, {b} : i128"))
    }
    fn wand(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.and {a}, {b} : i128"))
    }
    fn wor(&mut self, a: &String, b: &String) -> String {
        self.op(&format!("llvm.or {a}, {b} : i128"))
    }
    fn wshl(&mut self, a: &String, s: u32) -> String {
        let c = self.wconst(s as u128);
        self.op(&format!("llvm.shl {a}, {c} : i128"))
    }
    fn wlshr(&mut self, a: &String, s: u32) -> String {
        let c = self.wconst(s as u128);
        self.op(&format!("llvm.lshr {a}, {c} : i128"))
    }
    fn wshl_var(&mut self, a: &String, s: &String) -> String {
        let w = self.wide(s);
        self.op(&format!("llvm.shl {a}, {w} : i128"))
    }
    fn narrow(&mut self, a: &String) -> String {
        self.op(&format!("llvm.trunc {a} : i128 to i64"))
    }
    fn wsel(&mut self, c: &String, a: &String, b: &String) -> String {
        self.op(&format!("llvm.select {c}, {a}, {b} : i1, i128"))
    }
}
