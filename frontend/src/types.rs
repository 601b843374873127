//! Triton's types: scalar element types (`Dt`, Triton's `dtype`) and block types (`Ty`: an
//! element type and a shape, empty for a scalar), their names, and the MLIR types they lower to.

use crate::ir::{Ir, Type};

/// An element type of triton.language.
#[derive(Clone, Debug, PartialEq)]
pub enum Dt {
    /// `int1` (bool), `int8..int64`, `uint8..uint64`.
    Int {
        bits: u32,
        signed: bool,
    },
    F8E4,
    F8E5,
    F16,
    BF16,
    F32,
    F64,
    /// `pointer<T>`.
    Ptr(Box<Dt>),
    /// A block pointer: `pointer<block<T, shape>>`.
    BlockPtr(Box<Ty>),
    /// A tensor descriptor of one block type.
    Desc(Box<Ty>),
    Void,
}

/// A value's type: element type and shape (empty for scalars).
#[derive(Clone, Debug, PartialEq)]
pub struct Ty {
    pub dt: Dt,
    pub shape: Vec<i64>,
}

pub const I1: Dt = Dt::Int {
    bits: 1,
    signed: true,
};
pub const I32: Dt = Dt::Int {
    bits: 32,
    signed: true,
};
pub const I64: Dt = Dt::Int {
    bits: 64,
    signed: true,
};

impl Dt {
    pub fn is_int(&self) -> bool {
        matches!(self, Dt::Int { .. })
    }
    pub fn is_bool(&self) -> bool {
        matches!(self, Dt::Int { bits: 1, .. })
    }
    pub fn is_signed(&self) -> bool {
        matches!(self, Dt::Int { signed: true, .. })
    }
    pub fn is_unsigned(&self) -> bool {
        matches!(self, Dt::Int { signed: false, .. })
    }
    pub fn is_float(&self) -> bool {
        matches!(
            self,
            Dt::F8E4 | Dt::F8E5 | Dt::F16 | Dt::BF16 | Dt::F32 | Dt::F64
        )
    }
    pub fn is_fp8(&self) -> bool {
        matches!(self, Dt::F8E4 | Dt::F8E5)
    }
    pub fn is_ptr(&self) -> bool {
        matches!(self, Dt::Ptr(_))
    }
    pub fn bits(&self) -> u32 {
        match self {
            Dt::Int { bits, .. } => *bits,
            Dt::F8E4 | Dt::F8E5 => 8,
            Dt::F16 | Dt::BF16 => 16,
            Dt::F32 => 32,
            Dt::F64 => 64,
            Dt::Ptr(_) | Dt::BlockPtr(_) | Dt::Desc(_) => 64,
            Dt::Void => 0,
        }
    }
    /// The floating-point significand precision's rank (wider float = larger).
    pub fn float_rank(&self) -> u32 {
        match self {
            Dt::F8E4 | Dt::F8E5 => 1,
            Dt::F16 | Dt::BF16 => 2,
            Dt::F32 => 3,
            Dt::F64 => 4,
            _ => 0,
        }
    }
    /// Kind order of the weak-typing rule: bool < uint < int < float.
    pub fn kind(&self) -> u32 {
        match self {
            Dt::Int { bits: 1, .. } => 0,
            Dt::Int { signed: false, .. } => 1,
            Dt::Int { .. } => 2,
            d if d.is_float() => 3,
            _ => 4,
        }
    }
    /// Triton's spelling: `fp32`, `int32`, `uint8`, `pointer<fp16>`, ...
    pub fn name(&self) -> String {
        match self {
            Dt::Int { bits: 1, .. } => "int1".into(),
            Dt::Int { bits, signed: true } => format!("int{bits}"),
            Dt::Int {
                bits,
                signed: false,
            } => format!("uint{bits}"),
            Dt::F8E4 => "fp8e4nv".into(),
            Dt::F8E5 => "fp8e5".into(),
            Dt::F16 => "fp16".into(),
            Dt::BF16 => "bf16".into(),
            Dt::F32 => "fp32".into(),
            Dt::F64 => "fp64".into(),
            Dt::Ptr(p) => format!("pointer<{}>", p.name()),
            Dt::BlockPtr(t) => format!("pointer<{}>", t.name()),
            Dt::Desc(t) => format!("tensor_descriptor<{}>", t.name()),
            Dt::Void => "void".into(),
        }
    }
    /// Short name used in mangled function names and signatures (`fp32`, `i32`, `*fp16`).
    pub fn mangle(&self) -> String {
        match self {
            Dt::Int { bits: 1, .. } => "i1".into(),
            Dt::Int { bits, signed: true } => format!("i{bits}"),
            Dt::Int {
                bits,
                signed: false,
            } => format!("u{bits}"),
            Dt::Ptr(p) => format!("P{}", p.mangle()),
            Dt::BlockPtr(t) => format!("P{}", t.mangle()),
            Dt::Desc(t) => format!("D{}", t.mangle()),
            other => other.name(),
        }
    }
    /// Parses a type of a signature or a `tl.<name>` dtype: `fp32`/`f32`/`float32`, `i32`/`int32`,
    /// `u8`/`uint8`, `bf16`, `fp8e4nv`, `*fp16` (pointer), `i1`/`int1`/`bool`.
    pub fn parse(text: &str) -> Option<Dt> {
        if let Some(rest) = text.strip_prefix('*') {
            return Some(Dt::Ptr(Box::new(Dt::parse(rest)?)));
        }
        let int = |bits, signed| Some(Dt::Int { bits, signed });
        match text {
            "i1" | "int1" | "bool" | "u1" => int(1, true),
            "i8" | "int8" => int(8, true),
            "i16" | "int16" => int(16, true),
            "i32" | "int32" => int(32, true),
            "i64" | "int64" => int(64, true),
            "u8" | "uint8" => int(8, false),
            "u16" | "uint16" => int(16, false),
            "u32" | "uint32" => int(32, false),
            "u64" | "uint64" => int(64, false),
            "fp8e4nv" | "float8e4nv" | "f8e4nv" | "float8_e4m3fn" => Some(Dt::F8E4),
            "fp8e5" | "float8e5" | "f8e5" | "float8_e5m2" => Some(Dt::F8E5),
            "fp16" | "f16" | "float16" | "half" => Some(Dt::F16),
            "bf16" | "bfloat16" => Some(Dt::BF16),
            "fp32" | "f32" | "float32" | "float" => Some(Dt::F32),
            "fp64" | "f64" | "float64" | "double" => Some(Dt::F64),
            "void" => Some(Dt::Void),
            _ => None,
        }
    }

    /// The MLIR type of one element.
    pub fn to_mlir(&self, ir: &Ir) -> Type {
        match self {
            Dt::Int { bits, .. } => ir.int(*bits),
            Dt::F8E4 => ir.f8e4m3fn(),
            Dt::F8E5 => ir.f8e5m2(),
            Dt::F16 => ir.f16(),
            Dt::BF16 => ir.bf16(),
            Dt::F32 => ir.f32(),
            Dt::F64 => ir.f64(),
            Dt::Ptr(p) => ir.ptr(p.to_mlir(ir)),
            Dt::BlockPtr(t) => ir.ptr(t.to_mlir(ir)),
            Dt::Desc(t) => crate::ir::tensor_desc_type(t.to_mlir(ir)),
            Dt::Void => ir.int(1),
        }
    }
}

impl Ty {
    pub fn scalar(dt: Dt) -> Ty {
        Ty { dt, shape: vec![] }
    }
    pub fn block(dt: Dt, shape: Vec<i64>) -> Ty {
        Ty { dt, shape }
    }
    pub fn is_block(&self) -> bool {
        !self.shape.is_empty()
    }
    pub fn with_dt(&self, dt: Dt) -> Ty {
        Ty {
            dt,
            shape: self.shape.clone(),
        }
    }
    pub fn numel(&self) -> i64 {
        self.shape.iter().product()
    }
    pub fn name(&self) -> String {
        if self.shape.is_empty() {
            self.dt.name()
        } else {
            let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
            format!("<[{}], {}>", dims.join(", "), self.dt.name())
        }
    }
    pub fn mangle(&self) -> String {
        if self.shape.is_empty() {
            self.dt.mangle()
        } else {
            let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
            format!("{}S{}S", self.dt.mangle(), dims.join("_"))
        }
    }
    pub fn to_mlir(&self, ir: &Ir) -> Type {
        let element = self.dt.to_mlir(ir);
        if self.shape.is_empty() {
            element
        } else {
            ir.tensor(&self.shape, element)
        }
    }
}
