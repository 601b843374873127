//! Triton's typing rules on runtime values: constants, casts, broadcasting, type promotion and
//! the binary operators. Each function emits the ops it needs at the builder's current location
//! and returns a plain `String` error, which the caller places at the source position.

use crate::ir::{ContextAttrs, Ir, Value};
use crate::types::{Dt, I1, I32, I64, Ty};

pub type S<T> = Result<T, String>;

/// A runtime value: an SSA value and its Triton type.
#[derive(Clone, Debug)]
pub struct TV {
    pub v: Value,
    pub ty: Ty,
}

/// A Python number (a constexpr operand of a runtime operation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// One operand of a binary operation: a constexpr number or a runtime value.
#[derive(Clone, Debug)]
pub enum Operand {
    Num(Num),
    T(TV),
}

impl Operand {
    /// The element type this operand has on its own (a number's default type).
    fn dt(&self) -> S<Dt> {
        match self {
            Operand::Num(n) => num_dt(*n),
            Operand::T(t) => Ok(t.ty.dt.clone()),
        }
    }
    fn is_num(&self) -> bool {
        matches!(self, Operand::Num(_))
    }
}

/// The binary operators of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `tl.maximum`/`tl.minimum`; `true`: propagate NaNs (`arith.maximumf`).
    Max(bool),
    Min(bool),
}

impl Bin {
    pub fn symbol(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::FloorDiv => "//",
            Bin::Mod => "%",
            Bin::And => "&",
            Bin::Or => "|",
            Bin::Xor => "^",
            Bin::Shl => "<<",
            Bin::Shr => ">>",
            Bin::Lt => "<",
            Bin::Le => "<=",
            Bin::Gt => ">",
            Bin::Ge => ">=",
            Bin::Eq => "==",
            Bin::Ne => "!=",
            Bin::Max(_) => "maximum",
            Bin::Min(_) => "minimum",
        }
    }
    fn is_compare(self) -> bool {
        matches!(
            self,
            Bin::Lt | Bin::Le | Bin::Gt | Bin::Ge | Bin::Eq | Bin::Ne
        )
    }
}

/// The type a Python number gets on its own: `int32` (else `uint32`, `int64`, `uint64`), `fp32`,
/// `int1`.
pub fn num_dt(n: Num) -> S<Dt> {
    Ok(match n {
        Num::Int(v) if (i32::MIN as i128..=i32::MAX as i128).contains(&v) => I32,
        Num::Int(v) if (0..=u32::MAX as i128).contains(&v) => Dt::Int {
            bits: 32,
            signed: false,
        },
        Num::Int(v) if (i64::MIN as i128..=i64::MAX as i128).contains(&v) => I64,
        Num::Int(v) if (0..=u64::MAX as i128).contains(&v) => Dt::Int {
            bits: 64,
            signed: false,
        },
        Num::Int(v) => return Err(format!("integer {v} does not fit in 64 bits")),
        Num::Float(_) => Dt::F32,
        Num::Bool(_) => I1,
    })
}

/// `arith.constant` of `n` as type `ty` (a dense splat for a block type).
pub fn constant(ir: &Ir, n: Num, ty: &Ty) -> S<TV> {
    let element = ty.dt.to_mlir(ir);
    let attr = match (&ty.dt, n) {
        (Dt::Int { bits, .. }, n) => {
            let v = match n {
                Num::Int(v) => v,
                Num::Bool(b) => b as i128,
                Num::Float(f) => f as i128,
            };
            // Any value with a two's-complement pattern of `bits` bits (so 0xFFFFFFFF is an
            // int32 -1, as Triton's bit patterns are), whatever the signedness.
            let (lo, hi) = if *bits == 1 {
                (0, 1)
            } else {
                (-(1i128 << (bits - 1)), (1i128 << bits) - 1)
            };
            if v < lo || v > hi {
                return Err(format!("{v} is out of range for {}", ty.dt.name()));
            }
            ir.int_attr(element, v as i64)
        }
        (d, n) if d.is_float() => {
            let v = match n {
                Num::Int(v) => v as f64,
                Num::Float(f) => f,
                Num::Bool(b) => b as i64 as f64,
            };
            ir.float_attr(element, v)
        }
        (d, _) => return Err(format!("cannot make a constant of type {}", d.name())),
    };
    let mlir_ty = ty.to_mlir(ir);
    let value = if ty.is_block() {
        ir.splat_attr(mlir_ty, attr)
    } else {
        attr
    };
    Ok(TV {
        v: ir.op1("arith.constant", &[], mlir_ty, &[("value", value)]),
        ty: ty.clone(),
    })
}

/// A number as a runtime scalar of its default type.
pub fn to_tensor(ir: &Ir, n: Num) -> S<TV> {
    constant(ir, n, &Ty::scalar(num_dt(n)?))
}

/// `tt.splat` of a scalar to `shape`.
pub fn splat(ir: &Ir, t: &TV, shape: &[i64]) -> TV {
    let ty = Ty::block(t.ty.dt.clone(), shape.to_vec());
    TV {
        v: ir.op1("tt.splat", &[t.v], ty.to_mlir(ir), &[]),
        ty,
    }
}

/// `tt.expand_dims` at `axis`.
pub fn expand_dims(ir: &Ir, t: &TV, axis: usize) -> S<TV> {
    if t.ty.shape.is_empty() {
        return Ok(splat(ir, t, &[1]));
    }
    if axis > t.ty.shape.len() {
        return Err(format!(
            "expand_dims axis {axis} is out of range for a block of rank {}",
            t.ty.shape.len()
        ));
    }
    let mut shape = t.ty.shape.clone();
    shape.insert(axis, 1);
    let ty = t.ty.with_dt(t.ty.dt.clone());
    let ty = Ty { shape, ..ty };
    Ok(TV {
        v: ir.op1(
            "tt.expand_dims",
            &[t.v],
            ty.to_mlir(ir),
            &[("axis", ir.i32_attr(axis as i64))],
        ),
        ty,
    })
}

fn shape_text(shape: &[i64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// `t` broadcast to `shape` (splat for a scalar, `tt.broadcast` for a block).
pub fn broadcast_to(ir: &Ir, t: &TV, shape: &[i64]) -> S<TV> {
    if t.ty.shape == shape {
        return Ok(t.clone());
    }
    if t.ty.shape.is_empty() {
        return Ok(splat(ir, t, shape));
    }
    let mut t = t.clone();
    while t.ty.shape.len() < shape.len() {
        t = expand_dims(ir, &t, 0)?;
    }
    if t.ty.shape.len() != shape.len()
        || t.ty
            .shape
            .iter()
            .zip(shape)
            .any(|(from, to)| *from != 1 && from != to)
    {
        return Err(format!(
            "cannot broadcast a block of shape {} to shape {}",
            shape_text(&t.ty.shape),
            shape_text(shape)
        ));
    }
    if t.ty.shape == shape {
        return Ok(t);
    }
    let ty = Ty::block(t.ty.dt.clone(), shape.to_vec());
    Ok(TV {
        v: ir.op1("tt.broadcast", &[t.v], ty.to_mlir(ir), &[]),
        ty,
    })
}

/// The shape two shapes broadcast to (numpy rules; a scalar is rank 0).
pub fn broadcast_shape(a: &[i64], b: &[i64]) -> S<Vec<i64>> {
    if a.is_empty() {
        return Ok(b.to_vec());
    }
    if b.is_empty() {
        return Ok(a.to_vec());
    }
    let rank = a.len().max(b.len());
    let pad = |s: &[i64]| {
        let mut v = vec![1; rank - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (a2, b2) = (pad(a), pad(b));
    let mut out = Vec::with_capacity(rank);
    for (i, (x, y)) in a2.iter().zip(&b2).enumerate() {
        out.push(if x == y || *y == 1 {
            *x
        } else if *x == 1 {
            *y
        } else {
            return Err(format!(
                "cannot broadcast shapes {} and {}: dimension {i} is {x} and {y}",
                shape_text(a),
                shape_text(b)
            ));
        });
    }
    Ok(out)
}

/// Both values broadcast to their common shape.
pub fn broadcast_pair(ir: &Ir, a: &TV, b: &TV) -> S<(TV, TV)> {
    let shape = broadcast_shape(&a.ty.shape, &b.ty.shape)?;
    Ok((broadcast_to(ir, a, &shape)?, broadcast_to(ir, b, &shape)?))
}

/// Integer promotion of two integer types.
pub fn integer_promote(a: &Dt, b: &Dt) -> S<Dt> {
    let (
        Dt::Int {
            bits: ab,
            signed: asg,
        },
        Dt::Int {
            bits: bb,
            signed: bsg,
        },
    ) = (a, b)
    else {
        return Err(format!(
            "expected integers, got {} and {}",
            a.name(),
            b.name()
        ));
    };
    if asg == bsg {
        return Ok(if ab >= bb { a.clone() } else { b.clone() });
    }
    // Mixed signedness: the unsigned type if it is at least as wide, else the signed one.
    let (u, ub, s, sb) = if *asg { (b, bb, a, ab) } else { (a, ab, b, bb) };
    Ok(if ub >= sb { u.clone() } else { s.clone() })
}

/// The type a binary arithmetic operation computes in (Triton's promotion rules, Python numbers
/// being weakly typed: a number of a lower or equal kind takes the block's type).
pub fn computation_type(a: &Dt, a_num: bool, b: &Dt, b_num: bool, div_or_mod: bool) -> S<Dt> {
    if a_num != b_num {
        let (num, other) = if a_num { (a, b) } else { (b, a) };
        if num.kind() <= other.kind() {
            if div_or_mod && matches!(other, Dt::F16 | Dt::BF16) {
                return Ok(Dt::F32);
            }
            return Ok(other.clone());
        }
    }
    if *a == Dt::F64 || *b == Dt::F64 {
        return Ok(Dt::F64);
    }
    if *a == Dt::F32 || *b == Dt::F32 {
        return Ok(Dt::F32);
    }
    if *a == Dt::F16 || *b == Dt::F16 {
        return Ok(if div_or_mod || *a == Dt::BF16 || *b == Dt::BF16 {
            Dt::F32
        } else {
            Dt::F16
        });
    }
    if *a == Dt::BF16 && *b == Dt::BF16 {
        return Ok(if div_or_mod { Dt::F32 } else { Dt::BF16 });
    }
    if *a == Dt::BF16 || *b == Dt::BF16 {
        return Ok(Dt::F32);
    }
    if a.is_fp8() && b.is_fp8() {
        return Ok(if a == b { a.clone() } else { Dt::F16 });
    }
    if a.is_fp8() || b.is_fp8() {
        return Ok(Dt::F16);
    }
    if !a.is_int() || !b.is_int() {
        return Err(format!(
            "unsupported operand types {} and {}",
            a.name(),
            b.name()
        ));
    }
    if div_or_mod && a.is_signed() != b.is_signed() {
        return Err(format!(
            "cannot use / or % between {} and {}: the signedness differs (cast one first)",
            a.name(),
            b.name()
        ));
    }
    integer_promote(a, b)
}

fn rounding_code(r: &str) -> S<i64> {
    match r {
        "rtz" => Ok(0),
        "rtne" => Ok(1),
        other => Err(format!(
            "unknown fp_downcast_rounding '{other}' (expected 'rtne' or 'rtz')"
        )),
    }
}

/// `t` converted to element type `dst` (Triton's `cast` / `.to`).
pub fn cast(ir: &Ir, t: &TV, dst: &Dt, rounding: Option<&str>) -> S<TV> {
    let src = &t.ty.dt;
    if src == dst {
        return Ok(t.clone());
    }
    let ty = t.ty.with_dt(dst.clone());
    let rt = ty.to_mlir(ir);
    let one = |name: &str| TV {
        v: ir.op1(name, &[t.v], rt, &[]),
        ty: ty.clone(),
    };
    if matches!((src, dst), (Dt::F16, Dt::BF16) | (Dt::BF16, Dt::F16)) {
        let wide = cast(ir, t, &Dt::F32, None)?;
        return cast(ir, &wide, dst, rounding);
    }
    if src.is_float() && dst.is_float() {
        let down = src.bits() > dst.bits();
        let custom = src.is_fp8() || dst.is_fp8() || (down && rounding == Some("rtz"));
        if custom {
            let mut attrs = Vec::new();
            if down {
                attrs.push((
                    "rounding",
                    ir.i32_attr(rounding_code(rounding.unwrap_or("rtne"))?),
                ));
            }
            return Ok(TV {
                v: ir.op1("tt.fp_to_fp", &[t.v], rt, &attrs),
                ty,
            });
        }
        return Ok(one(if down { "arith.truncf" } else { "arith.extf" }));
    }
    if src.is_int() && dst.is_int() {
        if dst.is_bool() {
            return compare_zero(ir, t);
        }
        let (sb, db) = (src.bits(), dst.bits());
        if sb == db {
            return Ok(TV { v: t.v, ty });
        }
        if db < sb {
            return Ok(one("arith.trunci"));
        }
        return Ok(one(if src.is_signed() && !src.is_bool() {
            "arith.extsi"
        } else {
            "arith.extui"
        }));
    }
    if src.is_float() && dst.is_int() {
        if dst.is_bool() {
            return compare_zero(ir, t);
        }
        return Ok(one(if dst.is_signed() {
            "arith.fptosi"
        } else {
            "arith.fptoui"
        }));
    }
    if src.is_int() && dst.is_float() {
        return Ok(one(if src.is_bool() || src.is_unsigned() {
            "arith.uitofp"
        } else {
            "arith.sitofp"
        }));
    }
    if src.is_ptr() && dst.is_int() {
        match dst.bits() {
            64 => return Ok(one("tt.ptr_to_int")),
            1 => {
                let as_int = cast(ir, t, &I64, None)?;
                return compare_zero(ir, &as_int);
            }
            _ => {}
        }
    }
    if src.is_int() && src.bits() == 64 && dst.is_ptr() {
        return Ok(one("tt.int_to_ptr"));
    }
    if src.is_ptr() && dst.is_ptr() {
        return Ok(one("tt.bitcast"));
    }
    Err(format!("cannot cast {} to {}", src.name(), dst.name()))
}

/// `t != 0` (the conversion of a number to `int1`).
fn compare_zero(ir: &Ir, t: &TV) -> S<TV> {
    let zero = constant(ir, Num::Int(0), &t.ty)?;
    emit_binary(ir, Bin::Ne, t, &zero)
}

/// `t` reinterpreted as `dst` (same width; pointers convert as by [`cast`]).
pub fn bitcast(ir: &Ir, t: &TV, dst: &Dt) -> S<TV> {
    let src = &t.ty.dt;
    if src.is_ptr() || dst.is_ptr() {
        return cast(ir, t, dst, None);
    }
    if src.bits() != dst.bits() {
        return Err(format!(
            "cannot bitcast {} ({} bits) to {} ({} bits)",
            src.name(),
            src.bits(),
            dst.name(),
            dst.bits()
        ));
    }
    let ty = t.ty.with_dt(dst.clone());
    if ty.to_mlir(ir).ptr == t.ty.to_mlir(ir).ptr {
        return Ok(TV { v: t.v, ty });
    }
    Ok(TV {
        v: ir.op1("tt.bitcast", &[t.v], ty.to_mlir(ir), &[]),
        ty,
    })
}

/// An operand as a runtime value of element type `dt` (a number becomes a constant of it).
pub fn materialize(ir: &Ir, o: &Operand, dt: &Dt) -> S<TV> {
    match o {
        Operand::Num(n) => {
            if dt.is_unsigned() && matches!(n, Num::Int(v) if *v < 0) {
                return Err(format!(
                    "cannot combine the negative number {} with an unsigned value of type {}",
                    match n {
                        Num::Int(v) => *v,
                        _ => 0,
                    },
                    dt.name()
                ));
            }
            constant(ir, *n, &Ty::scalar(dt.clone()))
        }
        Operand::T(t) => cast(ir, t, dt, None),
    }
}

/// `a op b` with Triton's promotion, broadcasting and pointer arithmetic.
pub fn binary(ir: &Ir, op: Bin, a: &Operand, b: &Operand) -> S<TV> {
    let (adt, bdt) = (a.dt()?, b.dt()?);
    if adt.is_ptr() || bdt.is_ptr() || matches!(adt, Dt::BlockPtr(_)) {
        return pointer_arith(ir, op, a, b, &adt, &bdt);
    }
    let div_or_mod = matches!(op, Bin::Div | Bin::Mod);
    let bitwise = matches!(op, Bin::And | Bin::Or | Bin::Xor | Bin::Shl | Bin::Shr);
    let mut ct = if bitwise {
        if !adt.is_int() || !bdt.is_int() {
            return Err(format!(
                "operator {} needs integer operands, got {} and {}",
                op.symbol(),
                adt.name(),
                bdt.name()
            ));
        }
        if a.is_num() != b.is_num() {
            computation_type(&adt, a.is_num(), &bdt, b.is_num(), false)?
        } else {
            integer_promote(&adt, &bdt)?
        }
    } else {
        computation_type(&adt, a.is_num(), &bdt, b.is_num(), div_or_mod)
            .map_err(|e| format!("{e} for operator {}", op.symbol()))?
    };
    if op == Bin::Div && ct.is_int() {
        ct = Dt::F32;
    }
    if op == Bin::FloorDiv && !ct.is_int() {
        return Err(format!(
            "floor division (//) needs integer operands, got {} and {}",
            adt.name(),
            bdt.name()
        ));
    }
    let x = materialize(ir, a, &ct)?;
    let y = materialize(ir, b, &ct)?;
    let (x, y) = broadcast_pair(ir, &x, &y)?;
    emit_binary(ir, op, &x, &y)
}

/// The op of `op` on two values of one type and shape.
pub fn emit_binary(ir: &Ir, op: Bin, x: &TV, y: &TV) -> S<TV> {
    let dt = &x.ty.dt;
    let float = dt.is_float();
    let signed = dt.is_signed();
    if op.is_compare() {
        let (name, pred) = if float {
            (
                "arith.cmpf",
                match op {
                    Bin::Eq => 1,
                    Bin::Gt => 2,
                    Bin::Ge => 3,
                    Bin::Lt => 4,
                    Bin::Le => 5,
                    _ => 13,
                },
            )
        } else {
            (
                "arith.cmpi",
                match (op, signed) {
                    (Bin::Eq, _) => 0,
                    (Bin::Ne, _) => 1,
                    (Bin::Lt, true) => 2,
                    (Bin::Le, true) => 3,
                    (Bin::Gt, true) => 4,
                    (Bin::Ge, true) => 5,
                    (Bin::Lt, false) => 6,
                    (Bin::Le, false) => 7,
                    (Bin::Gt, false) => 8,
                    _ => 9,
                },
            )
        };
        let ty = x.ty.with_dt(I1);
        return Ok(TV {
            v: ir.op1(
                name,
                &[x.v, y.v],
                ty.to_mlir(ir),
                &[("predicate", ir.i64_attr(pred))],
            ),
            ty,
        });
    }
    let name = match (op, float) {
        (Bin::Add, true) => "arith.addf",
        (Bin::Add, false) => "arith.addi",
        (Bin::Sub, true) => "arith.subf",
        (Bin::Sub, false) => "arith.subi",
        (Bin::Mul, true) => "arith.mulf",
        (Bin::Mul, false) => "arith.muli",
        (Bin::Div, true) => "arith.divf",
        (Bin::Mod, true) => "arith.remf",
        (Bin::Mod, false) if signed => "arith.remsi",
        (Bin::Mod, false) => "arith.remui",
        (Bin::FloorDiv, false) if signed => "arith.divsi",
        (Bin::FloorDiv, false) => "arith.divui",
        (Bin::And, false) => "arith.andi",
        (Bin::Or, false) => "arith.ori",
        (Bin::Xor, false) => "arith.xori",
        (Bin::Shl, false) => "arith.shli",
        (Bin::Shr, false) if signed => "arith.shrsi",
        (Bin::Shr, false) => "arith.shrui",
        (Bin::Max(false), true) => "arith.maxnumf",
        (Bin::Max(true), true) => "arith.maximumf",
        (Bin::Min(false), true) => "arith.minnumf",
        (Bin::Min(true), true) => "arith.minimumf",
        (Bin::Max(_), false) if signed => "arith.maxsi",
        (Bin::Max(_), false) => "arith.maxui",
        (Bin::Min(_), false) if signed => "arith.minsi",
        (Bin::Min(_), false) => "arith.minui",
        _ => {
            return Err(format!(
                "operator {} is not defined for {}",
                op.symbol(),
                dt.name()
            ));
        }
    };
    Ok(TV {
        v: ir.op1(name, &[x.v, y.v], x.ty.to_mlir(ir), &[]),
        ty: x.ty.clone(),
    })
}

fn pointer_arith(ir: &Ir, op: Bin, a: &Operand, b: &Operand, adt: &Dt, bdt: &Dt) -> S<TV> {
    let bad = || {
        format!(
            "unsupported operand types for {}: {} and {}",
            op.symbol(),
            adt.name(),
            bdt.name()
        )
    };
    let (ptr, off, negate) = match op {
        Bin::Add if adt.is_ptr() && bdt.is_int() => (a, b, false),
        Bin::Add if bdt.is_ptr() && adt.is_int() => (b, a, false),
        Bin::Sub if adt.is_ptr() && bdt.is_int() => (a, b, true),
        Bin::Add | Bin::Sub if adt.is_ptr() || bdt.is_ptr() => {
            return Err(format!(
                "{}: pointer arithmetic needs a pointer and an integer offset",
                bad()
            ));
        }
        _ => return Err(bad()),
    };
    let Operand::T(ptr) = ptr else {
        return Err(bad());
    };
    let mut off = match off {
        Operand::Num(n) => to_tensor(ir, *n)?,
        Operand::T(t) => t.clone(),
    };
    if off.ty.dt.is_bool() {
        return Err(bad());
    }
    if negate {
        let zero = constant(ir, Num::Int(0), &off.ty)?;
        off = emit_binary(ir, Bin::Sub, &zero, &off)?;
    }
    let (p, o) = broadcast_pair(ir, ptr, &off)?;
    Ok(TV {
        v: ir.op1("tt.addptr", &[p.v, o.v], p.ty.to_mlir(ir), &[]),
        ty: p.ty,
    })
}
