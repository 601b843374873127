//! The `triton.language` library (and the Python builtins a kernel may use): each function
//! checks its arguments like Triton 3.6 and emits the `tt`/`arith`/`math`/`scf` ops it stands for.

use crate::codegen::{Args, Gen, R, Val};
use crate::ir::{self, ContextAttrs, Value};
use crate::semantic::{self, Bin, Num, Operand, TV};
use crate::types::{Dt, I1, I32, I64, Ty};

/// The module index of the front end's own Python library (`prelude.py`).
const PRELUDE: usize = 1;

/// The canonical name of a library path: `tl.NAME`, `libdevice.NAME`, `triton.NAME` or
/// `builtins.NAME`.
fn normalize(path: &str) -> String {
    for prefix in [
        "triton.language.extra.cuda.libdevice.",
        "triton.language.extra.libdevice.",
        "triton.language.math.libdevice.",
    ] {
        if let Some(rest) = path.strip_prefix(prefix) {
            return format!("libdevice.{rest}");
        }
    }
    for prefix in [
        "triton.language.math.",
        "triton.language.standard.",
        "triton.language.core.",
        "triton.language.random.",
        "triton.language.",
    ] {
        if let Some(rest) = path.strip_prefix(prefix) {
            return format!("tl.{rest}");
        }
    }
    path.to_owned()
}

fn int_arg(g: &Gen, v: Option<Val>, what: &str) -> R<i64> {
    match v {
        Some(Val::Int(i)) => Ok(i as i64),
        Some(Val::Bool(b)) => Ok(b as i64),
        Some(other) => Err(g.err(format!(
            "{what} must be a constexpr integer, got {}",
            other.kind()
        ))),
        None => Err(g.err(format!("missing argument {what}"))),
    }
}

fn shape_arg(g: &Gen, v: Option<Val>, what: &str) -> R<Vec<i64>> {
    match v {
        Some(Val::Int(i)) => Ok(vec![i as i64]),
        Some(Val::Tuple(items)) => items
            .into_iter()
            .map(|i| int_arg(g, Some(i), what))
            .collect(),
        Some(other) => Err(g.err(format!(
            "{what} must be a constexpr tuple of integers, got {}",
            other.kind()
        ))),
        None => Err(g.err(format!("missing argument {what}"))),
    }
}

/// A block shape: constexpr dimensions, each at least 1 (and a power of 2, as Triton requires).
fn dims_arg(g: &Gen, v: Option<Val>, what: &str) -> R<Vec<i64>> {
    let dims = shape_arg(g, v, what)?;
    if let Some(d) = dims.iter().find(|d| **d < 1 || (**d & (**d - 1)) != 0) {
        return Err(g.err(format!(
            "{what}: every dimension of a block must be a power of 2, got {d} in {dims:?}"
        )));
    }
    Ok(dims)
}

fn dtype_arg(g: &Gen, v: Option<Val>, what: &str) -> R<Dt> {
    match v {
        Some(Val::Dtype(d)) => Ok(d),
        Some(Val::Str(s)) => Dt::parse(&s).ok_or_else(|| g.err(format!("unknown dtype '{s}'"))),
        Some(other) => Err(g.err(format!("{what} must be a dtype, got {}", other.kind()))),
        None => Err(g.err(format!("missing argument {what}"))),
    }
}

fn str_arg(g: &Gen, v: Option<Val>, what: &str) -> R<Option<String>> {
    match v {
        None | Some(Val::None) => Ok(None),
        Some(Val::Str(s)) => Ok(Some(s)),
        Some(other) => Err(g.err(format!("{what} must be a string, got {}", other.kind()))),
    }
}

fn tensor_arg(g: &mut Gen, v: Option<Val>, what: &str) -> R<TV> {
    match v {
        Some(v) => g.tensor(&v),
        None => Err(g.err(format!("missing argument {what}"))),
    }
}

fn block_arg(g: &mut Gen, v: Option<Val>, what: &str) -> R<TV> {
    let t = tensor_arg(g, v, what)?;
    if !t.ty.is_block() {
        return Err(g.err(format!(
            "{what} must be a block, got a scalar {}",
            t.ty.name()
        )));
    }
    Ok(t)
}

fn axis_of(g: &Gen, v: Option<Val>, rank: usize) -> R<Option<usize>> {
    match v {
        None | Some(Val::None) => Ok(None),
        Some(v) => {
            let a = int_arg(g, Some(v), "axis")?;
            let r = rank as i64;
            let a2 = if a < 0 { a + r } else { a };
            if a2 < 0 || a2 >= r.max(1) {
                return Err(g.err(format!(
                    "axis {a} is out of range for a block of rank {rank}"
                )));
            }
            Ok(Some(a2 as usize))
        }
    }
}

fn op1(g: &Gen, name: &str, operands: &[Value], ty: Ty, attrs: &[(&str, ir::Attr)]) -> TV {
    TV {
        v: g.ir.op1(name, operands, ty.to_mlir(&g.ir), attrs),
        ty,
    }
}

fn t(v: TV) -> Val {
    Val::T(v)
}

/// A call of a library function.
pub fn call(g: &mut Gen, path: &str, args: Args) -> R<Val> {
    let name = normalize(path);
    if let Some(f) = name.strip_prefix("libdevice.") {
        return libdevice(g, f, args);
    }
    match name.as_str() {
        // Python builtins on constexprs (and min/max on runtime values as tl.minimum/maximum).
        "builtins.min" | "builtins.max" => {
            let is_max = name == "builtins.max";
            let items = if args.pos.len() == 1 {
                match &args.pos[0] {
                    Val::Tuple(t) => t.clone(),
                    other => vec![other.clone()],
                }
            } else {
                args.pos.clone()
            };
            let mut acc = items
                .first()
                .cloned()
                .ok_or_else(|| g.err(format!("{name}() needs arguments")))?;
            for v in &items[1..] {
                acc = g.binop(
                    if is_max {
                        Bin::Max(false)
                    } else {
                        Bin::Min(false)
                    },
                    acc,
                    v.clone(),
                )?;
            }
            Ok(acc)
        }
        "builtins.len" => match args.pos.first() {
            Some(Val::Tuple(t)) => Ok(Val::Int(t.len() as i128)),
            Some(Val::T(t)) if t.ty.is_block() => Ok(Val::Int(t.ty.shape[0] as i128)),
            _ => Err(g.err("len() needs a tuple or a block")),
        },
        "builtins.float" => match args.pos.first() {
            Some(Val::Str(s)) => match s.trim() {
                "inf" | "+inf" => Ok(Val::Float(f64::INFINITY)),
                "-inf" => Ok(Val::Float(f64::NEG_INFINITY)),
                "nan" => Ok(Val::Float(f64::NAN)),
                other => other
                    .parse::<f64>()
                    .map(Val::Float)
                    .map_err(|_| g.err(format!("cannot convert '{other}' to float"))),
            },
            Some(v) if v.num().is_some() => Ok(match v.num() {
                Some(Num::Int(i)) => Val::Float(i as f64),
                Some(Num::Bool(b)) => Val::Float(b as i64 as f64),
                _ => v.clone(),
            }),
            _ => Err(g.err("float() needs a constexpr")),
        },
        "builtins.int" => match args.pos.first().and_then(Val::num) {
            Some(Num::Float(f)) => Ok(Val::Int(f as i128)),
            Some(Num::Int(i)) => Ok(Val::Int(i)),
            Some(Num::Bool(b)) => Ok(Val::Int(b as i128)),
            None => Err(g.err("int() needs a constexpr number")),
        },
        "builtins.bool" => match args.pos.first().and_then(Val::truthy) {
            Some(b) => Ok(Val::Bool(b)),
            None => Err(g.err("bool() needs a constexpr")),
        },
        "builtins.abs" => match args.pos.first() {
            Some(Val::Int(i)) => Ok(Val::Int(i.abs())),
            Some(Val::Float(f)) => Ok(Val::Float(f.abs())),
            Some(v) => math1(g, "tl.abs", v.clone()),
            None => Err(g.err("abs() needs an argument")),
        },
        "tl.static_print" => {
            let parts: Vec<String> = args
                .pos
                .iter()
                .map(|v| match v {
                    Val::Str(s) => s.clone(),
                    Val::Int(i) => i.to_string(),
                    Val::Float(f) => f.to_string(),
                    Val::Bool(b) => (if *b { "True" } else { "False" }).to_string(),
                    other => other.kind(),
                })
                .collect();
            eprintln!("{}", parts.join(" "));
            Ok(Val::None)
        }
        "builtins.range" => Err(g.err("range() can only be used as the iterable of a for loop")),
        "triton.cdiv" | "tl.cdiv" => {
            let x = args.get(0, "x").ok_or_else(|| g.err("cdiv needs x"))?;
            let d = args.get(1, "div").ok_or_else(|| g.err("cdiv needs div"))?;
            let dm1 = g.binop(Bin::Sub, d.clone(), Val::Int(1))?;
            let s = g.binop(Bin::Add, x, dm1)?;
            g.binop(Bin::FloorDiv, s, d)
        }
        "triton.next_power_of_2" | "tl.next_power_of_2" => match args.pos.first() {
            Some(Val::Int(n)) => Ok(Val::Int(if *n <= 1 {
                1
            } else {
                1i128 << (128 - (n - 1).leading_zeros())
            })),
            _ => Err(g.err("next_power_of_2 needs a constexpr integer")),
        },
        "tl.constexpr" => Ok(args.pos.first().cloned().unwrap_or(Val::None)),
        "tl.to_tensor" => {
            let v = args
                .get(0, "x")
                .ok_or_else(|| g.err("to_tensor needs a value"))?;
            Ok(t(g.tensor(&v)?))
        }
        "tl.pointer_type" => Ok(Val::Dtype(Dt::Ptr(Box::new(dtype_arg(
            g,
            args.get(0, "element_ty"),
            "element_ty",
        )?)))),
        "tl.static_assert" => {
            let c = args
                .get(0, "cond")
                .ok_or_else(|| g.err("static_assert needs a condition"))?;
            match c.truthy() {
                Some(true) => Ok(Val::None),
                Some(false) => {
                    let msg = match args.get(1, "msg") {
                        Some(Val::Str(s)) => s,
                        _ => String::new(),
                    };
                    Err(g.err(format!("static_assert failed: {msg}")))
                }
                None => Err(g.err("static_assert needs a constexpr condition")),
            }
        }
        // Dropped without debug mode, as Triton does.
        "tl.device_assert" if !g.debug => Ok(Val::None),
        "tl.device_assert" => {
            let cond = args
                .get(0, "cond")
                .ok_or_else(|| g.err("device_assert needs a condition"))?;
            if args.get(2, "mask").is_some_and(|m| !matches!(m, Val::None)) {
                return Err(g.err("device_assert's mask is not supported: assert `cond | ~mask`"));
            }
            let msg = str_arg(g, args.get(1, "msg"), "msg")?.unwrap_or_default();
            g.device_assert(&cond, &msg)?;
            Ok(Val::None)
        }
        "tl.debug_barrier" => {
            g.ir.op("gpu.barrier", &[], &[], &[], Vec::new());
            Ok(Val::None)
        }
        "tl.program_id" | "tl.num_programs" => {
            let axis = int_arg(g, args.get(0, "axis").or(Some(Val::Int(0))), "axis")?;
            if !(0..3).contains(&axis) {
                return Err(g.err(format!("axis must be 0, 1 or 2, got {axis}")));
            }
            let op = if name == "tl.program_id" {
                "tt.get_program_id"
            } else {
                "tt.get_num_programs"
            };
            Ok(t(op1(
                g,
                op,
                &[],
                Ty::scalar(I32),
                &[("axis", g.ir.i32_attr(axis))],
            )))
        }
        "tl.arange" => {
            let (Some(Val::Int(s)), Some(Val::Int(e))) = (args.get(0, "start"), args.get(1, "end"))
            else {
                return Err(g.err("tl.arange's start and end must be constexpr integers"));
            };
            let n = e - s;
            if n <= 0 || (n & (n - 1)) != 0 {
                return Err(g.err(format!("tl.arange's range must be a power of 2, got {n}")));
            }
            if s < 0 || e > i32::MAX as i128 {
                return Err(g.err("tl.arange's bounds must fit in int32 and be non-negative"));
            }
            let ty = Ty::block(I32, vec![n as i64]);
            Ok(t(op1(
                g,
                "tt.make_range",
                &[],
                ty,
                &[
                    ("start", g.ir.i32_attr(s as i64)),
                    ("end", g.ir.i32_attr(e as i64)),
                ],
            )))
        }
        "tl.zeros" | "tl.full" => {
            let shape = dims_arg(g, args.get(0, "shape"), "shape")?;
            let (value, dt) = if name == "tl.zeros" {
                (Val::Int(0), dtype_arg(g, args.get(1, "dtype"), "dtype")?)
            } else {
                (
                    args.get(1, "value")
                        .ok_or_else(|| g.err("tl.full needs a value"))?,
                    dtype_arg(g, args.get(2, "dtype"), "dtype")?,
                )
            };
            full(g, &shape, value, &dt)
        }
        "tl.zeros_like" | "tl.full_like" => {
            let x = tensor_arg(g, args.get(0, "input"), "input")?;
            let value = if name == "tl.zeros_like" {
                Val::Int(0)
            } else {
                args.get(1, "value")
                    .ok_or_else(|| g.err("full_like needs a value"))?
            };
            let dt = match args.kw("dtype") {
                Some(Val::Dtype(d)) => d,
                _ => x.ty.dt.clone(),
            };
            full(g, &x.ty.shape, value, &dt)
        }
        "tl.cast" => {
            let x = args
                .get(0, "input")
                .ok_or_else(|| g.err("cast needs an input"))?;
            to(
                g,
                x,
                &Args {
                    pos: args.pos.iter().skip(1).cloned().collect(),
                    kw: args.kw.clone(),
                },
            )
        }
        "tl.where" => {
            let c = args
                .get(0, "condition")
                .ok_or_else(|| g.err("where needs a condition"))?;
            let x = args.get(1, "x").ok_or_else(|| g.err("where needs x"))?;
            let y = args.get(2, "y").ok_or_else(|| g.err("where needs y"))?;
            where_(g, c, x, y)
        }
        "tl.maximum" | "tl.minimum" => {
            let x = args.get(0, "x").ok_or_else(|| g.err("missing x"))?;
            let y = args.get(1, "y").ok_or_else(|| g.err("missing y"))?;
            let all = propagate_nan(g, args.get(2, "propagate_nan"))?;
            g.binop(
                if name == "tl.maximum" {
                    Bin::Max(all)
                } else {
                    Bin::Min(all)
                },
                x,
                y,
            )
        }
        "tl.clamp" => clamp(g, args),
        "tl.fma" => {
            let x = tensor_arg(g, args.get(0, "x"), "x")?;
            let y = tensor_arg(g, args.get(1, "y"), "y")?;
            let z = tensor_arg(g, args.get(2, "z"), "z")?;
            let shape = g.s(semantic::broadcast_shape(&x.ty.shape, &y.ty.shape))?;
            let shape = g.s(semantic::broadcast_shape(&shape, &z.ty.shape))?;
            let vs: Vec<Value> = [x.clone(), y, z]
                .iter()
                .map(|v| g.s(semantic::broadcast_to(&g.ir, v, &shape)).map(|v| v.v))
                .collect::<R<_>>()?;
            Ok(t(op1(
                g,
                "math.fma",
                &vs,
                Ty::block(x.ty.dt.clone(), shape),
                &[],
            )))
        }
        "tl.umulhi" => {
            let x = args.get(0, "x").ok_or_else(|| g.err("missing x"))?;
            let y = args.get(1, "y").ok_or_else(|| g.err("missing y"))?;
            let (a, b) = promote_pair(g, x, y)?;
            if !a.ty.dt.is_int() {
                return Err(g.err("umulhi needs integer operands"));
            }
            Ok(t(op1(g, "tt.mulhiui", &[a.v, b.v], a.ty.clone(), &[])))
        }
        "tl.div_rn" => {
            let x = args.get(0, "x").ok_or_else(|| g.err("missing x"))?;
            let y = args.get(1, "y").ok_or_else(|| g.err("missing y"))?;
            let (a, b) = promote_pair(g, x, y)?;
            if a.ty.dt != Dt::F32 {
                return Err(g.err(format!(
                    "div_rn needs fp32 operands, got {}",
                    a.ty.dt.name()
                )));
            }
            Ok(t(op1(g, "tt.precise_divf", &[a.v, b.v], a.ty.clone(), &[])))
        }
        "tl.exp" | "tl.exp2" | "tl.log" | "tl.log2" | "tl.cos" | "tl.sin" | "tl.sqrt"
        | "tl.rsqrt" | "tl.abs" | "tl.floor" | "tl.ceil" | "tl.erf" | "tl.sqrt_rn"
        | "tl.sigmoid" => {
            let x = args
                .get(0, "x")
                .ok_or_else(|| g.err(format!("{name} needs an argument")))?;
            math1(g, &name, x)
        }
        "tl.sum" | "tl.max" | "tl.min" | "tl.argmax" | "tl.argmin" | "tl.xor_sum" | "tl.reduce" => {
            reduction(g, &name, args)
        }
        "tl.cumsum" | "tl.cumprod" | "tl.associative_scan" => scan(g, &name, args),
        "tl.dot" => dot(g, args),
        "tl.load" => load(g, args),
        "tl.store" => store(g, args),
        "tl.atomic_add" | "tl.atomic_max" | "tl.atomic_min" | "tl.atomic_and" | "tl.atomic_or"
        | "tl.atomic_xor" | "tl.atomic_xchg" => atomic(g, &name[10..], args),
        "tl.atomic_cas" => atomic_cas(g, args),
        "tl.make_block_ptr" => make_block_ptr(g, args),
        "tl.advance" => {
            let p = tensor_arg(g, args.get(0, "base"), "base")?;
            let offsets = match args.get(1, "offsets") {
                Some(Val::Tuple(items)) => items,
                Some(other) => vec![other],
                None => return Err(g.err("advance needs offsets")),
            };
            advance(g, p, offsets)
        }
        "tl.make_tensor_descriptor" => make_tensor_descriptor(g, args),
        "tl.load_tensor_descriptor" => {
            let d = tensor_arg(g, args.get(0, "desc"), "desc")?;
            desc_method(
                g,
                d,
                "load",
                Args {
                    pos: args.pos.iter().skip(1).cloned().collect(),
                    kw: args.kw.clone(),
                },
            )
        }
        "tl.store_tensor_descriptor" => {
            let d = tensor_arg(g, args.get(0, "desc"), "desc")?;
            desc_method(
                g,
                d,
                "store",
                Args {
                    pos: args.pos.iter().skip(1).cloned().collect(),
                    kw: args.kw.clone(),
                },
            )
        }
        "tl.reshape" | "tl.view" => {
            let x = block_arg(g, args.get(0, "input"), "input")?;
            let shape = if args.pos.len() > 2 {
                shape_arg(g, Some(Val::Tuple(args.pos[1..].to_vec())), "shape")?
            } else {
                shape_arg(g, args.get(1, "shape"), "shape")?
            };
            let reorder = args
                .kw("can_reorder")
                .and_then(|v| v.truthy())
                .unwrap_or(name == "tl.view");
            reshape(g, &x, shape, reorder)
        }
        "tl.trans" | "tl.permute" => {
            let x = block_arg(g, args.get(0, "input"), "input")?;
            let dims = if args.pos.len() > 2 {
                Some(shape_arg(
                    g,
                    Some(Val::Tuple(args.pos[1..].to_vec())),
                    "dims",
                )?)
            } else {
                match args.get(1, "dims") {
                    None | Some(Val::None) => None,
                    v => Some(shape_arg(g, v, "dims")?),
                }
            };
            trans(g, &x, dims)
        }
        "tl.expand_dims" => {
            let x = tensor_arg(g, args.get(0, "input"), "input")?;
            let axes = shape_arg(g, args.get(1, "axis"), "axis")?;
            let rank = x.ty.shape.len() + axes.len();
            let mut axes: Vec<usize> = axes
                .iter()
                .map(|a| {
                    if *a < 0 {
                        (*a + rank as i64) as usize
                    } else {
                        *a as usize
                    }
                })
                .collect();
            axes.sort();
            let mut cur = x;
            for a in axes {
                cur = g.s(semantic::expand_dims(&g.ir, &cur, a))?;
            }
            Ok(t(cur))
        }
        "tl.broadcast_to" => {
            let x = tensor_arg(g, args.get(0, "input"), "input")?;
            let shape = if args.pos.len() > 2 {
                dims_arg(g, Some(Val::Tuple(args.pos[1..].to_vec())), "shape")?
            } else {
                dims_arg(g, args.get(1, "shape"), "shape")?
            };
            Ok(t(g.s(semantic::broadcast_to(&g.ir, &x, &shape))?))
        }
        "tl.broadcast" => {
            let x = tensor_arg(g, args.get(0, "input"), "input")?;
            let y = tensor_arg(g, args.get(1, "other"), "other")?;
            let (a, b) = g.s(semantic::broadcast_pair(&g.ir, &x, &y))?;
            Ok(Val::Tuple(vec![t(a), t(b)]))
        }
        "tl.join" | "tl.interleave" => {
            let x = tensor_arg(g, args.get(0, "a"), "a")?;
            let y = tensor_arg(g, args.get(1, "b"), "b")?;
            let (a, b) = promote_tensors(g, x, y)?;
            let (a, b) = g.s(semantic::broadcast_pair(&g.ir, &a, &b))?;
            let mut shape = a.ty.shape.clone();
            shape.push(2);
            let j = op1(
                g,
                "tt.join",
                &[a.v, b.v],
                Ty::block(a.ty.dt.clone(), shape),
                &[],
            );
            if name == "tl.join" {
                return Ok(t(j));
            }
            let mut flat = a.ty.shape.clone();
            if let Some(last) = flat.last_mut() {
                *last *= 2;
            } else {
                flat.push(2);
            }
            reshape(g, &j, flat, false)
        }
        "tl.split" => {
            let x = block_arg(g, args.get(0, "a"), "a")?;
            if x.ty.shape.last() != Some(&2) {
                return Err(g.err(format!(
                    "split needs a last dimension of size 2, got shape {:?}",
                    x.ty.shape
                )));
            }
            let mut shape = x.ty.shape.clone();
            shape.pop();
            let ty = Ty {
                dt: x.ty.dt.clone(),
                shape,
            };
            let rt = ty.to_mlir(&g.ir);
            let op = g.ir.op("tt.split", &[x.v], &[rt, rt], &[], Vec::new());
            Ok(Val::Tuple(vec![
                t(TV {
                    v: ir::result(op, 0),
                    ty: ty.clone(),
                }),
                t(TV {
                    v: ir::result(op, 1),
                    ty,
                }),
            ]))
        }
        "tl.cat" => {
            let x = block_arg(g, args.get(0, "input"), "input")?;
            let y = block_arg(g, args.get(1, "other"), "other")?;
            if args.get(2, "can_reorder").and_then(|v| v.truthy()) != Some(true) {
                return Err(g.err("tl.cat may reorder elements: pass can_reorder=True"));
            }
            if x.ty != y.ty || x.ty.shape.len() != 1 {
                return Err(g.err("tl.cat needs two 1-D blocks of the same type"));
            }
            let ty = Ty::block(x.ty.dt.clone(), vec![x.ty.shape[0] * 2]);
            Ok(t(op1(g, "tt.cat", &[x.v, y.v], ty, &[])))
        }
        "tl.gather" => {
            let src = block_arg(g, args.get(0, "src"), "src")?;
            let idx = block_arg(g, args.get(1, "index"), "index")?;
            let axis = int_arg(g, args.get(2, "axis"), "axis")?;
            let ty = idx.ty.with_dt(src.ty.dt.clone());
            Ok(t(op1(
                g,
                "tt.gather",
                &[src.v, idx.v],
                ty,
                &[("axis", g.ir.i32_attr(axis))],
            )))
        }
        "tl.histogram" => {
            let x = block_arg(g, args.get(0, "input"), "input")?;
            let bins = int_arg(g, args.get(1, "num_bins"), "num_bins")?;
            let mut operands = vec![x.v];
            if let Some(m) = args.get(2, "mask").filter(|m| !matches!(m, Val::None)) {
                let m = g.tensor(&m)?;
                let m = g.s(semantic::broadcast_to(&g.ir, &m, &x.ty.shape))?;
                operands.push(m.v);
            }
            Ok(t(op1(
                g,
                "tt.histogram",
                &operands,
                Ty::block(I32, vec![bins]),
                &[],
            )))
        }
        "tl.multiple_of" | "tl.max_contiguous" | "tl.max_constancy" => {
            let x = tensor_arg(g, args.get(0, "input"), "input")?;
            let values = shape_arg(g, args.get(1, "values"), "values")?;
            let attr = match name.as_str() {
                "tl.multiple_of" => "tt.divisibility",
                "tl.max_contiguous" => "tt.contiguity",
                _ => "tt.constancy",
            };
            let vals: Vec<i32> = values.iter().map(|v| *v as i32).collect();
            if let Some(op) = ir::defining_op(x.v) {
                ir::set_attr(op, attr, ir::dense_i32_elements(&g.ir, &vals));
            } else if let Some((block, index)) = ir::block_arg_position(x.v) {
                // A loop's argument: the loop op, made after its body, takes the hint.
                g.argument_hints.push(crate::codegen::ArgumentHint {
                    block,
                    index,
                    attr,
                    values: vals,
                });
            }
            Ok(t(x))
        }
        "tl.assume" => {
            let c = tensor_arg(g, args.get(0, "cond"), "cond")?;
            let c = g.s(semantic::cast(&g.ir, &c, &I1, None))?;
            // No operand bundles (MLIR's op requires their sizes, even when empty).
            let bundles = g.ir.i32_array(&[]);
            g.ir.op(
                "llvm.intr.assume",
                &[c.v],
                &[],
                &[("op_bundle_sizes", bundles)],
                Vec::new(),
            );
            Ok(Val::None)
        }
        // Python's print in a kernel is device_print, as in Triton.
        "tl.device_print" | "builtins.print" => {
            let prefix = str_arg(g, args.get(0, "prefix"), "prefix")?.unwrap_or_default();
            let hex = args.kw("hex").and_then(|v| v.truthy()).unwrap_or(false);
            let mut operands = Vec::new();
            let mut signed = Vec::new();
            for v in args.pos.iter().skip(1) {
                let x = g.tensor(v)?;
                signed.push(x.ty.dt.is_signed() as i32);
                operands.push(x.v);
            }
            let mut p = prefix;
            if p.len() > 2 && !p.starts_with(' ') {
                p = format!(" {p}");
            }
            if !operands.is_empty() && !p.ends_with(':') && !p.ends_with(": ") {
                p.push(':');
            }
            if !p.ends_with(' ') && !operands.is_empty() {
                p.push(' ');
            }
            let attrs = [
                ("prefix", g.ir.string_attr(&p)),
                ("hex", g.ir.bool_attr(hex)),
                ("isSigned", g.ir.i32_array(&signed)),
            ];
            g.ir.op("tt.print", &operands, &[], &attrs, Vec::new());
            Ok(Val::None)
        }
        "tl.inline_asm_elementwise" => inline_asm(g, args),
        // Programmatic dependent launch (`launch_pdl=True`): wait for the previous kernel's
        // writes, or let the next kernel start. As Triton: an inline asm with a dummy result.
        "tl.extra.cuda.gdc_wait" | "tl.extra.cuda.gdc_launch_dependents" => {
            if !args.pos.is_empty() {
                return Err(g.err(format!("{name} takes no arguments")));
            }
            let instruction = if name.ends_with("gdc_wait") {
                "griddepcontrol.wait"
            } else {
                "griddepcontrol.launch_dependents"
            };
            let attrs = [
                (
                    "asm_string",
                    g.ir.string_attr(&format!("{instruction}; // dummy $0")),
                ),
                ("constraints", g.ir.string_attr("=r")),
                ("packed_element", g.ir.i32_attr(1)),
                ("pure", g.ir.bool_attr(false)),
            ];
            let i32_type = Ty::scalar(I32).to_mlir(&g.ir);
            g.ir.op(
                "tt.elementwise_inline_asm",
                &[],
                &[i32_type],
                &attrs,
                Vec::new(),
            );
            Ok(Val::None)
        }
        "tl.static_range" | "tl.range" => Err(g.err(format!(
            "{name} can only be used as the iterable of a for loop"
        ))),
        "tl.rand"
        | "tl.randn"
        | "tl.randint"
        | "tl.randint4x"
        | "tl.philox"
        | "tl.pair_uniform_to_normal"
        | "tl.uint_to_uniform_float" => g.call_jit(PRELUDE, &name[3..], args),
        "tl.softmax" | "tl.swizzle2d" | "tl.flip" | "tl.sort" => {
            g.call_jit(PRELUDE, &name[3..], args)
        }
        "tl.fdiv" => {
            let x = args.get(0, "x").ok_or_else(|| g.err("missing x"))?;
            let y = args.get(1, "y").ok_or_else(|| g.err("missing y"))?;
            let ieee = args
                .get(2, "ieee_rounding")
                .and_then(|v| v.truthy())
                .unwrap_or(false);
            let (a, b) = promote_pair(g, x, y)?;
            if !a.ty.dt.is_float() {
                return Err(g.err(format!(
                    "fdiv needs floating-point operands, got {}",
                    a.ty.dt.name()
                )));
            }
            let op = if ieee {
                "tt.precise_divf"
            } else {
                "arith.divf"
            };
            Ok(t(op1(g, op, &[a.v, b.v], a.ty.clone(), &[])))
        }
        "tl.ravel" => {
            let x = block_arg(g, args.get(0, "x"), "x")?;
            let reorder = args
                .get(1, "can_reorder")
                .and_then(|v| v.truthy())
                .unwrap_or(false);
            let n = x.ty.numel();
            reshape(g, &x, vec![n], reorder)
        }
        "tl.dot_scaled" => dot_scaled(g, args),
        _ => Err(g.err(format!(
            "unknown function '{}'",
            path.replace("triton.language.", "tl.")
        ))),
    }
}

/// `x.NAME(args)`.
pub fn method(g: &mut Gen, recv: Val, name: &str, args: Args) -> R<Val> {
    if let Val::T(x) = &recv
        && matches!(x.ty.dt, Dt::Desc(_))
    {
        return desc_method(g, x.clone(), name, args);
    }
    if let Val::Dtype(d) = &recv {
        return match name {
            "is_floating" => Ok(Val::Bool(d.is_float())),
            "is_int" => Ok(Val::Bool(d.is_int())),
            "is_int_signed" => Ok(Val::Bool(d.is_signed())),
            "is_int_unsigned" => Ok(Val::Bool(d.is_unsigned())),
            "is_ptr" => Ok(Val::Bool(d.is_ptr())),
            "is_fp8" => Ok(Val::Bool(d.is_fp8())),
            "is_fp16" => Ok(Val::Bool(*d == Dt::F16)),
            "is_bf16" => Ok(Val::Bool(*d == Dt::BF16)),
            "is_fp32" => Ok(Val::Bool(*d == Dt::F32)),
            "is_fp64" => Ok(Val::Bool(*d == Dt::F64)),
            _ => Err(g.err(format!("dtype has no method '{name}'"))),
        };
    }
    if name == "to" {
        return to(g, recv, &args);
    }
    let mut pos = vec![recv];
    pos.extend(args.pos);
    call(
        g,
        &format!("triton.language.{name}"),
        Args { pos, kw: args.kw },
    )
}

/// `x.to(dtype, fp_downcast_rounding=None, bitcast=False)`.
fn to(g: &mut Gen, x: Val, args: &Args) -> R<Val> {
    let dt = dtype_arg(g, args.get(0, "dtype"), "dtype")?;
    let rounding = str_arg(
        g,
        args.get(1, "fp_downcast_rounding"),
        "fp_downcast_rounding",
    )?;
    let bitcast = args
        .get(2, "bitcast")
        .and_then(|v| v.truthy())
        .unwrap_or(false);
    if let Some(n) = x.num() {
        // A constexpr number converted: a constant of that type.
        return Ok(t(g.s(semantic::constant(&g.ir, n, &Ty::scalar(dt)))?));
    }
    let x = g.tensor(&x)?;
    Ok(t(if bitcast {
        g.s(semantic::bitcast(&g.ir, &x, &dt))?
    } else {
        g.s(semantic::cast(&g.ir, &x, &dt, rounding.as_deref()))?
    }))
}

/// A block of `shape` filled with `value` (a number: one dense constant; a scalar: a splat).
fn full(g: &mut Gen, shape: &[i64], value: Val, dt: &Dt) -> R<Val> {
    let ty = Ty::block(dt.clone(), shape.to_vec());
    if let Some(n) = value.num() {
        return Ok(t(g.s(semantic::constant(&g.ir, n, &ty))?));
    }
    let v = g.tensor(&value)?;
    if v.ty.is_block() {
        return Err(g.err("tl.full's value must be a scalar"));
    }
    let v = g.s(semantic::cast(&g.ir, &v, dt, None))?;
    Ok(t(semantic::splat(&g.ir, &v, shape)))
}

fn propagate_nan(g: &Gen, v: Option<Val>) -> R<bool> {
    Ok(match v {
        None | Some(Val::None) => false,
        Some(Val::Int(i)) => i != 0,
        Some(Val::Bool(b)) => b,
        Some(Val::Str(s)) => s == "ALL",
        Some(Val::Module(m)) => m.ends_with(".ALL"),
        Some(other) => {
            return Err(g.err(format!(
                "propagate_nan must be tl.PropagateNan, got {}",
                other.kind()
            )));
        }
    })
}

/// Two operands promoted to one type and broadcast to one shape.
fn promote_pair(g: &mut Gen, x: Val, y: Val) -> R<(TV, TV)> {
    let a = operand(g, &x)?;
    let b = operand(g, &y)?;
    let (adt, bdt) = (dt_of(g, &a)?, dt_of(g, &b)?);
    let ct = g.s(semantic::computation_type(
        &adt,
        matches!(a, Operand::Num(_)),
        &bdt,
        matches!(b, Operand::Num(_)),
        false,
    ))?;
    let a = g.s(semantic::materialize(&g.ir, &a, &ct))?;
    let b = g.s(semantic::materialize(&g.ir, &b, &ct))?;
    g.s(semantic::broadcast_pair(&g.ir, &a, &b))
}

fn promote_tensors(g: &mut Gen, x: TV, y: TV) -> R<(TV, TV)> {
    promote_pair(g, Val::T(x), Val::T(y))
}

fn operand(g: &Gen, v: &Val) -> R<Operand> {
    match v {
        Val::T(t) => Ok(Operand::T(t.clone())),
        other => other.num().map(Operand::Num).ok_or_else(|| {
            g.err(format!(
                "expected a tensor or a number, got {}",
                other.kind()
            ))
        }),
    }
}

fn dt_of(g: &Gen, o: &Operand) -> R<Dt> {
    match o {
        Operand::T(t) => Ok(t.ty.dt.clone()),
        Operand::Num(n) => g.s(semantic::num_dt(*n)),
    }
}

/// `tl.where(c, x, y)`: `arith.select` after promotion and broadcasting.
pub fn where_(g: &mut Gen, c: Val, x: Val, y: Val) -> R<Val> {
    let c = g.tensor(&c)?;
    let c = g.s(semantic::cast(&g.ir, &c, &I1, None))?;
    let (a, b) = promote_pair(g, x, y)?;
    let shape = g.s(semantic::broadcast_shape(&c.ty.shape, &a.ty.shape))?;
    let c = g.s(semantic::broadcast_to(&g.ir, &c, &shape))?;
    let a = g.s(semantic::broadcast_to(&g.ir, &a, &shape))?;
    let b = g.s(semantic::broadcast_to(&g.ir, &b, &shape))?;
    Ok(t(op1(
        g,
        "arith.select",
        &[c.v, a.v, b.v],
        a.ty.clone(),
        &[],
    )))
}

fn clamp(g: &mut Gen, args: Args) -> R<Val> {
    let x = args.get(0, "x").ok_or_else(|| g.err("clamp needs x"))?;
    let lo = args.get(1, "min").ok_or_else(|| g.err("clamp needs min"))?;
    let hi = args.get(2, "max").ok_or_else(|| g.err("clamp needs max"))?;
    let nan = propagate_nan(g, args.get(3, "propagate_nan"))?;
    let xt = g.tensor(&x)?;
    if xt.ty.dt.is_float() {
        let lo = operand(g, &lo)?;
        let hi = operand(g, &hi)?;
        let lo = g.s(semantic::materialize(&g.ir, &lo, &xt.ty.dt))?;
        let hi = g.s(semantic::materialize(&g.ir, &hi, &xt.ty.dt))?;
        let shape = g.s(semantic::broadcast_shape(&xt.ty.shape, &lo.ty.shape))?;
        let shape = g.s(semantic::broadcast_shape(&shape, &hi.ty.shape))?;
        let xs = g.s(semantic::broadcast_to(&g.ir, &xt, &shape))?;
        let lo = g.s(semantic::broadcast_to(&g.ir, &lo, &shape))?;
        let hi = g.s(semantic::broadcast_to(&g.ir, &hi, &shape))?;
        let attr = g.ir.i32_attr(if nan { 0xFFFF } else { 0 });
        return Ok(t(op1(
            g,
            "tt.clampf",
            &[xs.v, lo.v, hi.v],
            xs.ty.clone(),
            &[("propagateNan", attr)],
        )));
    }
    let m = g.binop(Bin::Max(false), x, lo)?;
    g.binop(Bin::Min(false), m, hi)
}

/// One-argument math functions.
fn math1(g: &mut Gen, name: &str, x: Val) -> R<Val> {
    let x = g.tensor(&x)?;
    let dt = x.ty.dt.clone();
    if name == "tl.abs" {
        return Ok(t(if dt.is_float() {
            op1(g, "math.absf", &[x.v], x.ty.clone(), &[])
        } else if dt.is_signed() && !dt.is_bool() {
            op1(g, "math.absi", &[x.v], x.ty.clone(), &[])
        } else if dt.is_int() {
            x
        } else {
            return Err(g.err(format!("abs is not defined for {}", dt.name())));
        }));
    }
    if !dt.is_float() {
        return Err(g.err(format!(
            "{name} expects a floating-point argument, got {} (cast it with .to(tl.float32))",
            x.ty.name()
        )));
    }
    if name == "tl.sigmoid" {
        let neg = g.binop(Bin::Sub, Val::Int(0), t(x))?;
        let e = math1(g, "tl.exp", neg)?;
        let d = g.binop(Bin::Add, Val::Int(1), e)?;
        return g.binop(Bin::Div, Val::Int(1), d);
    }
    let op = match name {
        "tl.exp" => "math.exp",
        "tl.exp2" => "math.exp2",
        "tl.log" => "math.log",
        "tl.log2" => "math.log2",
        "tl.cos" => "math.cos",
        "tl.sin" => "math.sin",
        "tl.sqrt" => "math.sqrt",
        "tl.rsqrt" => "math.rsqrt",
        "tl.floor" => "math.floor",
        "tl.ceil" => "math.ceil",
        "tl.erf" => "math.erf",
        _ => {
            if dt != Dt::F32 {
                return Err(g.err(format!("sqrt_rn needs fp32, got {}", dt.name())));
            }
            "tt.precise_sqrt"
        }
    };
    Ok(t(op1(g, op, &[x.v], x.ty.clone(), &[])))
}

/// `libdevice.NAME(args)`: `tt.extern_elementwise` calling `__nv_NAME[f]`.
fn libdevice(g: &mut Gen, name: &str, args: Args) -> R<Val> {
    if args.pos.is_empty() {
        return Err(g.err(format!("libdevice.{name} needs arguments")));
    }
    let mut values: Vec<TV> = Vec::new();
    let first = g.tensor(&args.pos[0])?;
    values.push(first.clone());
    for v in &args.pos[1..] {
        let (a, b) = promote_pair(g, Val::T(values[0].clone()), v.clone())?;
        values[0] = a;
        values.push(b);
    }
    let shape = values.iter().try_fold(Vec::new(), |s, v| {
        g.s(semantic::broadcast_shape(&s, &v.ty.shape))
    })?;
    let values: Vec<TV> = values
        .iter()
        .map(|v| g.s(semantic::broadcast_to(&g.ir, v, &shape)))
        .collect::<R<_>>()?;
    let dt = values[0].ty.dt.clone();
    let symbol = match dt {
        Dt::F32 => format!("__nv_{name}f"),
        Dt::F64 => format!("__nv_{name}"),
        _ => {
            return Err(g.err(format!(
                "libdevice.{name} is only supported on fp32 and fp64, got {}",
                dt.name()
            )));
        }
    };
    let operands: Vec<Value> = values.iter().map(|v| v.v).collect();
    let attrs = [
        ("libname", g.ir.string_attr("")),
        ("libpath", g.ir.string_attr("")),
        ("pure", g.ir.bool_attr(true)),
        ("symbol", g.ir.string_attr(&symbol)),
    ];
    Ok(t(op1(
        g,
        "tt.extern_elementwise",
        &operands,
        values[0].ty.clone(),
        &attrs,
    )))
}

pub fn reshape(g: &mut Gen, x: &TV, mut shape: Vec<i64>, reorder: bool) -> R<Val> {
    if let Some(i) = shape.iter().position(|d| *d == -1) {
        let known: i64 = shape.iter().filter(|d| **d != -1).product();
        shape[i] = x.ty.numel() / known.max(1);
    }
    let numel: i64 = shape.iter().product();
    if shape.iter().any(|d| *d < 1) || numel != x.ty.numel() {
        return Err(g.err(format!(
            "cannot reshape a block of {} elements to shape {:?}",
            x.ty.numel(),
            shape
        )));
    }
    let ty = Ty::block(x.ty.dt.clone(), shape);
    let attrs: Vec<(&str, ir::Attr)> = if reorder {
        vec![("allow_reorder", g.ir.unit_attr())]
    } else {
        vec![]
    };
    Ok(t(op1(g, "tt.reshape", &[x.v], ty, &attrs)))
}

pub fn trans(g: &mut Gen, x: &TV, dims: Option<Vec<i64>>) -> R<Val> {
    let rank = x.ty.shape.len();
    let order: Vec<i64> = match dims {
        Some(d) if !d.is_empty() => d,
        _ => {
            if rank != 2 {
                return Err(g.err("trans without dims needs a 2-D block"));
            }
            vec![1, 0]
        }
    };
    let mut sorted = order.clone();
    sorted.sort();
    if sorted != (0..rank as i64).collect::<Vec<_>>() {
        return Err(g.err(format!(
            "{order:?} is not a permutation of the {rank} dimensions"
        )));
    }
    let shape = order.iter().map(|d| x.ty.shape[*d as usize]).collect();
    let ty = Ty::block(x.ty.dt.clone(), shape);
    let order32: Vec<i32> = order.iter().map(|d| *d as i32).collect();
    Ok(t(op1(
        g,
        "tt.trans",
        &[x.v],
        ty,
        &[("order", g.ir.i32_array(&order32))],
    )))
}

#[derive(Clone)]
enum Combine {
    Add,
    Mul,
    Max,
    Min,
    Xor,
    ArgMin,
    ArgMax,
    Jit((usize, String)),
}

/// Builds the combine region body of a reduce or scan over `dts` and returns its block.
fn combine_region(
    g: &mut Gen,
    dts: &[Dt],
    combine: &Combine,
    ret_op: &str,
) -> R<mlir_sys::MlirBlock> {
    let n = dts.len();
    let types: Vec<ir::Type> = dts
        .iter()
        .chain(dts.iter())
        .map(|d| d.to_mlir(&g.ir))
        .collect();
    let block = g.ir.new_block(&types);
    let saved = g.ir.block;
    g.ir.block = block;
    let arg = |i: usize| TV {
        v: ir::block_arg(block, i),
        ty: Ty::scalar(dts[i % n].clone()),
    };
    let result = (|| -> R<Vec<Value>> {
        Ok(match combine {
            Combine::Add | Combine::Mul | Combine::Max | Combine::Min | Combine::Xor => {
                let op = match combine {
                    Combine::Add => Bin::Add,
                    Combine::Mul => Bin::Mul,
                    Combine::Max => Bin::Max(false),
                    Combine::Min => Bin::Min(false),
                    _ => Bin::Xor,
                };
                vec![g.s(semantic::emit_binary(&g.ir, op, &arg(0), &arg(1)))?.v]
            }
            Combine::ArgMin | Combine::ArgMax => {
                let (v1, i1, v2, i2) = (arg(0), arg(1), arg(2), arg(3));
                let eq = g.s(semantic::emit_binary(&g.ir, Bin::Eq, &v1, &v2))?;
                let ilt = g.s(semantic::emit_binary(&g.ir, Bin::Lt, &i1, &i2))?;
                let tie = g.s(semantic::emit_binary(&g.ir, Bin::And, &eq, &ilt))?;
                let cmp = if matches!(combine, Combine::ArgMin) {
                    Bin::Lt
                } else {
                    Bin::Gt
                };
                let better = g.s(semantic::emit_binary(&g.ir, cmp, &v1, &v2))?;
                let pick = g.s(semantic::emit_binary(&g.ir, Bin::Or, &better, &tie))?;
                let v = g.ir.op1(
                    "arith.select",
                    &[pick.v, v1.v, v2.v],
                    v1.ty.to_mlir(&g.ir),
                    &[],
                );
                let i = g.ir.op1(
                    "arith.select",
                    &[pick.v, i1.v, i2.v],
                    i1.ty.to_mlir(&g.ir),
                    &[],
                );
                vec![v, i]
            }
            Combine::Jit((m, f)) => {
                let pos: Vec<Val> = (0..2 * n).map(|i| Val::T(arg(i))).collect();
                let r = g.call_jit(*m, f, Args { pos, kw: vec![] })?;
                let items = match r {
                    Val::Tuple(items) => items,
                    other => vec![other],
                };
                if items.len() != n {
                    return Err(g.err(format!("the combine function must return {n} values")));
                }
                let mut vals = Vec::new();
                for (item, dt) in items.iter().zip(dts) {
                    let x = g.tensor(item)?;
                    let x = g.s(semantic::cast(&g.ir, &x, dt, None))?;
                    vals.push(x.v);
                }
                vals
            }
        })
    })();
    match result {
        Ok(values) => {
            g.ir.op(ret_op, &values, &[], &[], Vec::new());
            g.ir.block = saved;
            Ok(block)
        }
        Err(e) => {
            g.ir.block = saved;
            ir::destroy_block(block);
            Err(e)
        }
    }
}

/// `tt.reduce` of `inputs` along `axis` (all axes, after a reshape, when `None`).
fn reduce(
    g: &mut Gen,
    inputs: Vec<TV>,
    axis: Option<usize>,
    keep_dims: bool,
    combine: Combine,
) -> R<Vec<TV>> {
    let mut inputs = inputs;
    let axis = match axis {
        Some(a) => a,
        None => {
            for x in inputs.iter_mut() {
                if x.ty.shape.len() != 1 {
                    let Val::T(r) = reshape(g, x, vec![x.ty.numel()], true)? else {
                        unreachable!()
                    };
                    *x = r;
                }
            }
            0
        }
    };
    let shape = &inputs[0].ty.shape;
    let mut out_shape = shape.clone();
    out_shape.remove(axis);
    let dts: Vec<Dt> = inputs.iter().map(|x| x.ty.dt.clone()).collect();
    let block = combine_region(g, &dts, &combine, "tt.reduce.return")?;
    let result_tys: Vec<Ty> = dts
        .iter()
        .map(|d| Ty::block(d.clone(), out_shape.clone()))
        .collect();
    let mlir: Vec<ir::Type> = result_tys.iter().map(|t| t.to_mlir(&g.ir)).collect();
    let operands: Vec<Value> = inputs.iter().map(|x| x.v).collect();
    let region = g.ir.region_of(block);
    let op = g.ir.op(
        "tt.reduce",
        &operands,
        &mlir,
        &[("axis", g.ir.i32_attr(axis as i64))],
        vec![region],
    );
    let mut outs: Vec<TV> = result_tys
        .into_iter()
        .enumerate()
        .map(|(i, ty)| TV {
            v: ir::result(op, i),
            ty,
        })
        .collect();
    if keep_dims {
        for o in outs.iter_mut() {
            *o = g.s(semantic::expand_dims(&g.ir, o, axis))?;
        }
    }
    Ok(outs)
}

/// The first tensor of an input that may be a tuple of tensors (`tl.reduce`,
/// `tl.associative_scan`): it gives the rank and axis.
fn first_of_input(args: &Args) -> Option<Val> {
    match args.get(0, "input") {
        Some(Val::Tuple(items)) => items.first().cloned(),
        other => other,
    }
}

fn reduction(g: &mut Gen, name: &str, args: Args) -> R<Val> {
    let x = if name == "tl.reduce" {
        block_arg(g, first_of_input(&args), "input")?
    } else {
        block_arg(g, args.get(0, "input"), "input")?
    };
    let rank = x.ty.shape.len();
    let axis = axis_of(g, args.get(1, "axis"), rank)?;
    let keep = args
        .kw("keep_dims")
        .and_then(|v| v.truthy())
        .unwrap_or(false);
    let single = |outs: Vec<TV>| Val::T(outs.into_iter().next().expect("one result"));
    match name {
        "tl.reduce" => {
            let inputs = match args.get(0, "input") {
                Some(Val::Tuple(items)) => {
                    items.iter().map(|v| g.tensor(v)).collect::<R<Vec<_>>>()?
                }
                _ => vec![x],
            };
            let f = match args.get(2, "combine_fn") {
                Some(Val::JitFn(m, f)) => (m, f),
                _ => return Err(g.err("tl.reduce's combine_fn must be a @triton.jit function")),
            };
            let keep = args
                .get(3, "keep_dims")
                .and_then(|v| v.truthy())
                .unwrap_or(false);
            let n = inputs.len();
            let outs = reduce(g, inputs, axis, keep, Combine::Jit(f))?;
            Ok(if n == 1 {
                single(outs)
            } else {
                Val::Tuple(outs.into_iter().map(Val::T).collect())
            })
        }
        "tl.sum" | "tl.xor_sum" => {
            let mut x = x;
            let dtype = args.kw("dtype").or_else(|| args.pos.get(3).cloned());
            if let Some(Val::Dtype(d)) = dtype {
                x = g.s(semantic::cast(&g.ir, &x, &d, None))?;
            } else if x.ty.dt.is_int() && x.ty.dt.bits() < 32 && name == "tl.sum" {
                let to = if x.ty.dt.is_unsigned() {
                    Dt::Int {
                        bits: 32,
                        signed: false,
                    }
                } else {
                    I32
                };
                x = g.s(semantic::cast(&g.ir, &x, &to, None))?;
            }
            if name == "tl.xor_sum" && !x.ty.dt.is_int() {
                return Err(g.err("xor_sum needs integers"));
            }
            let keep = keep
                || args
                    .get(2, "keep_dims")
                    .and_then(|v| v.truthy())
                    .unwrap_or(false);
            let c = if name == "tl.sum" {
                Combine::Add
            } else {
                Combine::Xor
            };
            Ok(single(reduce(g, vec![x], axis, keep, c)?))
        }
        _ => {
            let is_max = name == "tl.max" || name == "tl.argmax";
            let indices = name.starts_with("tl.arg")
                || args
                    .get(2, "return_indices")
                    .and_then(|v| v.truthy())
                    .unwrap_or(false);
            let keep = if name.starts_with("tl.arg") {
                keep || args
                    .get(3, "keep_dims")
                    .and_then(|v| v.truthy())
                    .unwrap_or(false)
            } else {
                keep || args
                    .get(4, "keep_dims")
                    .and_then(|v| v.truthy())
                    .unwrap_or(false)
            };
            if indices {
                let axis = axis.unwrap_or(0);
                let n = x.ty.shape[axis];
                let idx = op1(
                    g,
                    "tt.make_range",
                    &[],
                    Ty::block(I32, vec![n]),
                    &[("start", g.ir.i32_attr(0)), ("end", g.ir.i32_attr(n))],
                );
                let mut idx = idx;
                if rank > 1 {
                    for d in 0..rank {
                        if d != axis {
                            idx = g.s(semantic::expand_dims(&g.ir, &idx, d))?;
                        }
                    }
                    idx = g.s(semantic::broadcast_to(&g.ir, &idx, &x.ty.shape))?;
                }
                let c = if is_max {
                    Combine::ArgMax
                } else {
                    Combine::ArgMin
                };
                let outs = reduce(g, vec![x, idx], Some(axis), keep, c)?;
                if name.starts_with("tl.arg") {
                    return Ok(Val::T(outs[1].clone()));
                }
                return Ok(Val::Tuple(outs.into_iter().map(Val::T).collect()));
            }
            let mut x = x;
            if x.ty.dt.bits() < 32 {
                let to = if x.ty.dt.is_float() { Dt::F32 } else { I32 };
                x = g.s(semantic::cast(&g.ir, &x, &to, None))?;
            }
            let c = if is_max { Combine::Max } else { Combine::Min };
            Ok(single(reduce(g, vec![x], axis, keep, c)?))
        }
    }
}

fn scan(g: &mut Gen, name: &str, args: Args) -> R<Val> {
    let x = if name == "tl.associative_scan" {
        block_arg(g, first_of_input(&args), "input")?
    } else {
        block_arg(g, args.get(0, "input"), "input")?
    };
    let rank = x.ty.shape.len();
    let axis = axis_of(g, args.get(1, "axis").or(Some(Val::Int(0))), rank)?.unwrap_or(0);
    // A tuple of tensors scans together (one combine over all of them).
    let inputs: Vec<TV> = match args.get(0, "input") {
        Some(Val::Tuple(items)) if name == "tl.associative_scan" => {
            items.iter().map(|v| g.tensor(v)).collect::<R<Vec<_>>>()?
        }
        _ => vec![x.clone()],
    };
    if inputs.iter().any(|i| i.ty.shape != x.ty.shape) {
        return Err(g.err("associative_scan's inputs must have one shape"));
    }
    let (combine, reverse, x) = match name {
        "tl.associative_scan" => {
            let f = match args.get(2, "combine_fn") {
                Some(Val::JitFn(m, f)) => (m, f),
                _ => {
                    return Err(
                        g.err("associative_scan's combine_fn must be a @triton.jit function")
                    );
                }
            };
            let rev = args
                .get(3, "reverse")
                .and_then(|v| v.truthy())
                .unwrap_or(false);
            (Combine::Jit(f), rev, x)
        }
        _ => {
            let rev = args
                .get(2, "reverse")
                .and_then(|v| v.truthy())
                .unwrap_or(false);
            let mut x = x;
            if name == "tl.cumsum" {
                if let Some(Val::Dtype(d)) = args.get(3, "dtype") {
                    x = g.s(semantic::cast(&g.ir, &x, &d, None))?;
                } else if x.ty.dt.is_int() && x.ty.dt.bits() < 32 {
                    x = g.s(semantic::cast(&g.ir, &x, &I32, None))?;
                }
            }
            (
                if name == "tl.cumsum" {
                    Combine::Add
                } else {
                    Combine::Mul
                },
                rev,
                x,
            )
        }
    };
    // cumsum/cumprod may have cast their one input.
    let inputs = if inputs.len() == 1 { vec![x] } else { inputs };
    let dts: Vec<Dt> = inputs.iter().map(|i| i.ty.dt.clone()).collect();
    let block = combine_region(g, &dts, &combine, "tt.scan.return")?;
    let region = g.ir.region_of(block);
    let attrs = [
        ("axis", g.ir.i32_attr(axis as i64)),
        ("reverse", g.ir.bool_attr(reverse)),
    ];
    let operands: Vec<Value> = inputs.iter().map(|i| i.v).collect();
    let types: Vec<ir::Type> = inputs.iter().map(|i| i.ty.to_mlir(&g.ir)).collect();
    let op = g.ir.op("tt.scan", &operands, &types, &attrs, vec![region]);
    let outs: Vec<Val> = inputs
        .iter()
        .enumerate()
        .map(|(k, i)| {
            t(TV {
                v: ir::result(op, k),
                ty: i.ty.clone(),
            })
        })
        .collect();
    Ok(if outs.len() == 1 {
        outs.into_iter().next().expect("one result")
    } else {
        Val::Tuple(outs)
    })
}

/// A dot's accumulator: `acc` when given (of the product's type `ret_ty`), else zeros.
fn accumulator(g: &mut Gen, acc: Option<Val>, ret_ty: &Ty, what: &str) -> R<TV> {
    let Some(v) = acc else {
        return semantic::constant(&g.ir, Num::Int(0), ret_ty).map_err(|e| g.err(e));
    };
    let acc = g.tensor(&v)?;
    if acc.ty != *ret_ty {
        return Err(g.err(format!(
            "{what}'s acc has type {} but the product has type {}",
            acc.ty.name(),
            ret_ty.name()
        )));
    }
    Ok(acc)
}

fn dot(g: &mut Gen, args: Args) -> R<Val> {
    let a = block_arg(g, args.get(0, "input"), "input")?;
    let b = block_arg(g, args.get(1, "other"), "other")?;
    let acc = args.get(2, "acc").filter(|v| !matches!(v, Val::None));
    let precision = str_arg(g, args.get(3, "input_precision"), "input_precision")?;
    let allow_tf32 = args.get(4, "allow_tf32").and_then(|v| v.truthy());
    let max_imprecise = args
        .get(5, "max_num_imprecise_acc")
        .filter(|v| !matches!(v, Val::None));
    let out_dtype = match args.get(6, "out_dtype") {
        None | Some(Val::None) => Dt::F32,
        v => dtype_arg(g, v, "out_dtype")?,
    };
    let (ra, rb) = (a.ty.shape.len(), b.ty.shape.len());
    if ra != rb || !(2..=3).contains(&ra) {
        return Err(g.err(format!(
            "tl.dot needs two 2-D (or 3-D) blocks, got shapes {:?} and {:?}",
            a.ty.shape, b.ty.shape
        )));
    }
    let (m, k) = (a.ty.shape[ra - 2], a.ty.shape[ra - 1]);
    let (k2, n) = (b.ty.shape[rb - 2], b.ty.shape[rb - 1]);
    if k != k2 {
        return Err(g.err(format!(
            "tl.dot: the inner dimensions differ: {:?} x {:?}",
            a.ty.shape, b.ty.shape
        )));
    }
    if m < 16 || n < 16 || k < 16 {
        return Err(g.err(format!(
            "tl.dot needs M >= 16, N >= 16 and K >= 16, got M={m}, N={n}, K={k}"
        )));
    }
    if a.ty.dt != b.ty.dt && !(a.ty.dt.is_fp8() && b.ty.dt.is_fp8()) {
        return Err(g.err(format!(
            "tl.dot needs operands of one type, got {} and {}",
            a.ty.dt.name(),
            b.ty.dt.name()
        )));
    }
    // As Triton: the imprecise-accumulation interval concerns fp8 x fp8 only; unnamed, it is
    // the target's default; named, it cannot exceed K.
    let both_fp8 = a.ty.dt.is_fp8() && b.ty.dt.is_fp8();
    let max_imprecise = match max_imprecise {
        None if both_fp8 => i64::from(g.max_num_imprecise_acc_default),
        None => 0,
        Some(v) => {
            let v = int_arg(g, Some(v), "max_num_imprecise_acc")?;
            if both_fp8 && v > k {
                return Err(g.err(format!(
                    "tl.dot: max_num_imprecise_acc ({v}) must be <= K ({k})"
                )));
            }
            v
        }
    };
    let ret_dt = if a.ty.dt.is_int() { I32 } else { out_dtype };
    let mut shape = a.ty.shape[..ra - 2].to_vec();
    shape.extend([m, n]);
    let ret_ty = Ty::block(ret_dt.clone(), shape);
    let acc = accumulator(g, acc, &ret_ty, "tl.dot")?;
    let p = match precision.as_deref() {
        Some("tf32") => 0,
        Some("tf32x3") => 1,
        Some("ieee") => 2,
        Some("bf16x3") => 3,
        Some("bf16x6") => 4,
        Some(other) => {
            return Err(g.err(format!(
                "unknown input_precision '{other}' (tf32, tf32x3, ieee)"
            )));
        }
        None if allow_tf32 == Some(false) => 2,
        None => 0,
    };
    let attrs = [
        ("inputPrecision", g.ir.i32_attr(p)),
        ("maxNumImpreciseAcc", g.ir.i32_attr(max_imprecise)),
    ];
    Ok(t(op1(g, "tt.dot", &[a.v, b.v, acc.v], ret_ty, &attrs)))
}

/// The `tt.dot_scaled` element-type code of a format name (Triton's `ScaleDotElemType`) and the
/// element type an operand in it holds: e2m1 stays packed in uint8, the others are bitcast from
/// their unsigned integer of the same width when given as one.
fn scaled_format(g: &Gen, format: &str, x: TV, side: &str) -> R<(i64, TV)> {
    let unsigned = |bits| Dt::Int {
        bits,
        signed: false,
    };
    let (code, holds, raw) = match format {
        "e4m3" => (0, Dt::F8E4, unsigned(8)),
        "e5m2" => (1, Dt::F8E5, unsigned(8)),
        "e2m1" => (4, unsigned(8), unsigned(8)),
        "bf16" => (5, Dt::BF16, unsigned(16)),
        "fp16" => (6, Dt::F16, unsigned(16)),
        other => {
            return Err(g.err(format!(
                "tl.dot_scaled: {side}_format '{other}' is not one of e2m1, e4m3, e5m2, bf16, fp16"
            )));
        }
    };
    if x.ty.dt == holds {
        return Ok((code, x));
    }
    if x.ty.dt != raw {
        return Err(g.err(format!(
            "tl.dot_scaled: {side} in format {format} must hold {} (or {}), got {}",
            holds.name(),
            raw.name(),
            x.ty.dt.name()
        )));
    }
    let cast = semantic::bitcast(&g.ir, &x, &holds).map_err(|e| g.err(e))?;
    Ok((code, cast))
}

/// `tl.dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc, fast_math,
/// lhs_k_pack, rhs_k_pack, out_dtype)`: `tt.dot_scaled` with Triton 3.6's frontend checks.
fn dot_scaled(g: &mut Gen, args: Args) -> R<Val> {
    let lhs = block_arg(g, args.get(0, "lhs"), "lhs")?;
    let lhs_scale = args.get(1, "lhs_scale").filter(|v| !matches!(v, Val::None));
    let lhs_format = str_arg(g, args.get(2, "lhs_format"), "lhs_format")?
        .ok_or_else(|| g.err("tl.dot_scaled needs lhs_format"))?;
    let rhs = block_arg(g, args.get(3, "rhs"), "rhs")?;
    let rhs_scale = args.get(4, "rhs_scale").filter(|v| !matches!(v, Val::None));
    let rhs_format = str_arg(g, args.get(5, "rhs_format"), "rhs_format")?
        .ok_or_else(|| g.err("tl.dot_scaled needs rhs_format"))?;
    let acc = args.get(6, "acc").filter(|v| !matches!(v, Val::None));
    let flag = |v: Option<Val>, default: bool| v.and_then(|v| v.truthy()).unwrap_or(default);
    let fast_math = flag(args.get(7, "fast_math"), false);
    let lhs_k_pack = flag(args.get(8, "lhs_k_pack"), true);
    let rhs_k_pack = flag(args.get(9, "rhs_k_pack"), true);
    let out_dtype = match args.get(10, "out_dtype") {
        None | Some(Val::None) => Dt::F32,
        v => dtype_arg(g, v, "out_dtype")?,
    };
    let (ra, rb) = (lhs.ty.shape.len(), rhs.ty.shape.len());
    if ra != rb || !(2..=3).contains(&ra) {
        return Err(g.err(format!(
            "tl.dot_scaled needs two 2-D (or 3-D) blocks, got shapes {:?} and {:?}",
            lhs.ty.shape, rhs.ty.shape
        )));
    }
    let (a_code, lhs) = scaled_format(g, &lhs_format, lhs, "lhs")?;
    let (b_code, rhs) = scaled_format(g, &rhs_format, rhs, "rhs")?;
    for (format, k_pack, side) in [
        (&lhs_format, lhs_k_pack, "lhs"),
        (&rhs_format, rhs_k_pack, "rhs"),
    ] {
        if !k_pack && format != "e2m1" {
            return Err(g.err(format!(
                "tl.dot_scaled: only e2m1 operands can be packed along a dimension other than K \
                 ({side}_k_pack=False with {side}_format '{format}')"
            )));
        }
    }
    if out_dtype != Dt::F32 {
        return Err(g.err(format!(
            "tl.dot_scaled accumulates in float32, got out_dtype {}",
            out_dtype.name()
        )));
    }
    let packing = |format: &str| if format == "e2m1" { 2 } else { 1 };
    let (mut m, k_lhs) = (lhs.ty.shape[ra - 2], lhs.ty.shape[ra - 1]);
    let (k_rhs, mut n) = (rhs.ty.shape[rb - 2], rhs.ty.shape[rb - 1]);
    let k_a = if lhs_k_pack {
        k_lhs * packing(&lhs_format)
    } else {
        k_lhs
    };
    let k_b = if rhs_k_pack {
        k_rhs * packing(&rhs_format)
    } else {
        k_rhs
    };
    if k_a != k_b {
        return Err(g.err(format!(
            "tl.dot_scaled: the operands hold different numbers of K elements ({k_a} and {k_b}; \
             shapes {:?} and {:?})",
            lhs.ty.shape, rhs.ty.shape
        )));
    }
    if !lhs_k_pack {
        m *= packing(&lhs_format);
    }
    if !rhs_k_pack {
        n *= packing(&rhs_format);
    }
    let mut shape = lhs.ty.shape[..ra - 2].to_vec();
    shape.extend([m, n]);
    let ret_ty = Ty::block(Dt::F32, shape);
    let acc = accumulator(g, acc, &ret_ty, "tl.dot_scaled")?;
    let mut operands = vec![lhs.v, rhs.v, acc.v];
    let mut segments = vec![1, 1, 1, 0, 0];
    for (index, (scale, rows, side)) in [(lhs_scale, m, "lhs"), (rhs_scale, n, "rhs")]
        .into_iter()
        .enumerate()
    {
        let Some(scale) = scale else { continue };
        let scale = g.tensor(&scale)?;
        let groups = scale.ty.shape.last().copied().unwrap_or(0);
        let batch = &ret_ty.shape[..ret_ty.shape.len() - 2];
        let wanted_rank = batch.len() + 2;
        if scale.ty.dt
            != (Dt::Int {
                bits: 8,
                signed: false,
            })
            || scale.ty.shape.len() != wanted_rank
            || scale.ty.shape[..batch.len()] != *batch
            || scale.ty.shape[wanted_rank - 2] != rows
            || groups < 1
            || k_a % groups != 0
        {
            return Err(g.err(format!(
                "tl.dot_scaled: {side}_scale must be a uint8 block of shape [{}{rows}, K / group] \
                 (K = {k_a}), got {}",
                batch.iter().map(|d| format!("{d}, ")).collect::<String>(),
                scale.ty.name()
            )));
        }
        operands.push(scale.v);
        segments[3 + index] = 1;
    }
    let attrs = [
        ("a_elem_type", g.ir.i32_attr(a_code)),
        ("b_elem_type", g.ir.i32_attr(b_code)),
        ("fastMath", g.ir.bool_attr(fast_math)),
        ("lhs_k_pack", g.ir.bool_attr(lhs_k_pack)),
        ("rhs_k_pack", g.ir.bool_attr(rhs_k_pack)),
        ("operandSegmentSizes", g.ir.i32_array(&segments)),
    ];
    Ok(t(op1(g, "tt.dot_scaled", &operands, ret_ty, &attrs)))
}

fn cache_code(g: &Gen, v: Option<Val>) -> R<i64> {
    Ok(match str_arg(g, v, "cache_modifier")?.as_deref() {
        None | Some("") => 1,
        Some(".ca") => 2,
        Some(".cg") => 3,
        Some(".wb") => 4,
        Some(".cs") => 5,
        Some(".wt") => 6,
        Some(".cv") => 7,
        Some(other) => return Err(g.err(format!("unknown cache modifier '{other}'"))),
    })
}

fn evict_code(g: &Gen, v: Option<Val>) -> R<i64> {
    Ok(match str_arg(g, v, "eviction_policy")?.as_deref() {
        None | Some("") | Some("evict_normal") => 1,
        Some("evict_first") => 2,
        Some("evict_last") => 3,
        Some(other) => return Err(g.err(format!("unknown eviction policy '{other}'"))),
    })
}

fn boundary_check(g: &Gen, v: Option<Val>) -> R<Vec<i32>> {
    Ok(match v {
        None | Some(Val::None) => vec![],
        v => shape_arg(g, v, "boundary_check")?
            .iter()
            .map(|d| *d as i32)
            .collect(),
    })
}

/// Booleans live in memory as bytes: a pointer to `i1` becomes one to `i8` (with `i8` as the
/// element type), as Triton's loads and stores treat it; other pointers pass through.
fn bool_pointer_as_bytes(g: &Gen, p: TV, elem: Box<Dt>) -> R<(TV, Box<Dt>)> {
    if !elem.is_bool() {
        return Ok((p, elem));
    }
    let i8 = Dt::Int {
        bits: 8,
        signed: true,
    };
    let bytes = g.s(semantic::cast(
        &g.ir,
        &p,
        &Dt::Ptr(Box::new(i8.clone())),
        None,
    ))?;
    Ok((bytes, Box::new(i8)))
}

fn load(g: &mut Gen, args: Args) -> R<Val> {
    let p = tensor_arg(g, args.get(0, "pointer"), "pointer")?;
    let mask = args.get(1, "mask").filter(|v| !matches!(v, Val::None));
    let other = args.get(2, "other").filter(|v| !matches!(v, Val::None));
    let bc = boundary_check(g, args.get(3, "boundary_check"))?;
    let padding = str_arg(g, args.get(4, "padding_option"), "padding_option")?;
    let cache = cache_code(g, args.get(5, "cache_modifier"))?;
    let evict = evict_code(g, args.get(6, "eviction_policy"))?;
    let volatile = args
        .get(7, "volatile")
        .and_then(|v| v.truthy())
        .unwrap_or(false);
    let mut attrs = vec![
        ("boundaryCheck", g.ir.i32_array(&bc)),
        ("cache", g.ir.i32_attr(cache)),
        ("evict", g.ir.i32_attr(evict)),
        ("isVolatile", g.ir.bool_attr(volatile)),
    ];
    if let Dt::BlockPtr(block) = &p.ty.dt {
        if mask.is_some() || other.is_some() {
            return Err(g.err("a load through a block pointer takes boundary_check and padding_option, not mask/other"));
        }
        match padding.as_deref() {
            None | Some("") => {}
            Some("zero") => attrs.push(("padding", g.ir.i32_attr(1))),
            Some("nan") => attrs.push(("padding", g.ir.i32_attr(2))),
            Some(other) => {
                return Err(g.err(format!("unknown padding_option '{other}' (zero, nan)")));
            }
        }
        attrs.push(("operandSegmentSizes", g.ir.i32_array(&[1, 0, 0])));
        let ty = (**block).clone();
        return Ok(t(op1(g, "tt.load", &[p.v], ty, &attrs)));
    }
    let Dt::Ptr(elem) = p.ty.dt.clone() else {
        return Err(g.err(format!("tl.load needs a pointer, got {}", p.ty.name())));
    };
    // Booleans live in memory as bytes: load int8 and compare with 0, as Triton does.
    let is_bool = elem.is_bool();
    let (p, elem) = bool_pointer_as_bytes(g, p, elem)?;
    let mut p = p;
    let mut operands = vec![];
    let mut m = None;
    if let Some(mask) = mask {
        let mt = g.tensor(&mask)?;
        if !mt.ty.dt.is_bool() {
            return Err(g.err(format!(
                "the mask must be a boolean block, got {}",
                mt.ty.name()
            )));
        }
        if mt.ty.is_block() && !p.ty.is_block() {
            return Err(g.err("the mask cannot be a block when the pointer is a scalar"));
        }
        let (pp, mm) = g.s(semantic::broadcast_pair(&g.ir, &p, &mt))?;
        p = pp;
        m = Some(mm);
    }
    operands.push(p.v);
    let mut segments = vec![1, 0, 0];
    if let Some(m) = &m {
        operands.push(m.v);
        segments[1] = 1;
    }
    if let Some(o) = other {
        if m.is_none() {
            return Err(g.err("tl.load's other needs a mask"));
        }
        let o = operand(g, &o)?;
        let o = g.s(semantic::materialize(&g.ir, &o, &elem))?;
        let o = g.s(semantic::broadcast_to(&g.ir, &o, &p.ty.shape))?;
        operands.push(o.v);
        segments[2] = 1;
    }
    attrs.push(("operandSegmentSizes", g.ir.i32_array(&segments)));
    let ty = p.ty.with_dt((*elem).clone());
    let loaded = op1(g, "tt.load", &operands, ty, &attrs);
    if is_bool {
        return Ok(t(g.s(semantic::cast(&g.ir, &loaded, &I1, None))?));
    }
    Ok(t(loaded))
}

fn store(g: &mut Gen, args: Args) -> R<Val> {
    let p = tensor_arg(g, args.get(0, "pointer"), "pointer")?;
    let value = args
        .get(1, "value")
        .ok_or_else(|| g.err("tl.store needs a value"))?;
    let mask = args.get(2, "mask").filter(|v| !matches!(v, Val::None));
    let bc = boundary_check(g, args.get(3, "boundary_check"))?;
    let cache = cache_code(g, args.get(4, "cache_modifier"))?;
    let evict = evict_code(g, args.get(5, "eviction_policy"))?;
    let attrs = [
        ("boundaryCheck", g.ir.i32_array(&bc)),
        ("cache", g.ir.i32_attr(cache)),
        ("evict", g.ir.i32_attr(evict)),
    ];
    if let Dt::BlockPtr(block) = &p.ty.dt {
        let v = operand(g, &value)?;
        let v = g.s(semantic::materialize(&g.ir, &v, &block.dt))?;
        let v = g.s(semantic::broadcast_to(&g.ir, &v, &block.shape))?;
        g.ir.op("tt.store", &[p.v, v.v], &[], &attrs, Vec::new());
        return Ok(Val::None);
    }
    let Dt::Ptr(elem) = p.ty.dt.clone() else {
        return Err(g.err(format!("tl.store needs a pointer, got {}", p.ty.name())));
    };
    let (p, elem) = bool_pointer_as_bytes(g, p, elem)?;
    let v = operand(g, &value)?;
    let v = g.s(semantic::materialize(&g.ir, &v, &elem))?;
    if v.ty.is_block() && !p.ty.is_block() {
        return Err(g.err(format!(
            "cannot store a block ({}) through a scalar pointer",
            v.ty.name()
        )));
    }
    let v = g.s(semantic::broadcast_to(&g.ir, &v, &p.ty.shape))?;
    let mut operands = vec![p.v, v.v];
    if let Some(mask) = mask {
        let mt = g.tensor(&mask)?;
        if !mt.ty.dt.is_bool() {
            return Err(g.err(format!(
                "the mask must be a boolean block, got {}",
                mt.ty.name()
            )));
        }
        let mt = g.s(semantic::broadcast_to(&g.ir, &mt, &p.ty.shape))?;
        operands.push(mt.v);
    }
    g.ir.op("tt.store", &operands, &[], &attrs, Vec::new());
    Ok(Val::None)
}

fn sem_scope(g: &Gen, sem: Option<Val>, scope: Option<Val>) -> R<(i64, i64)> {
    let sem = match str_arg(g, sem, "sem")?.as_deref() {
        None | Some("acq_rel") => 4,
        Some("relaxed") => 1,
        Some("acquire") => 2,
        Some("release") => 3,
        Some(other) => {
            return Err(g.err(format!(
                "unknown sem '{other}' (relaxed, acquire, release, acq_rel)"
            )));
        }
    };
    let scope = match str_arg(g, scope, "scope")?.as_deref() {
        None | Some("gpu") => 1,
        Some("cta") => 2,
        Some("sys") => 3,
        Some(other) => return Err(g.err(format!("unknown scope '{other}' (gpu, cta, sys)"))),
    };
    Ok((sem, scope))
}

/// Pointer, value and mask of an atomic, broadcast to one shape (an all-true mask when none).
fn atomic_operands(g: &mut Gen, args: &Args, value_name: &str) -> R<(TV, TV, TV, Dt)> {
    let p = tensor_arg(g, args.get(0, "pointer"), "pointer")?;
    let Dt::Ptr(elem) = p.ty.dt.clone() else {
        return Err(g.err(format!("atomics need a pointer, got {}", p.ty.name())));
    };
    let v = args
        .get(1, value_name)
        .ok_or_else(|| g.err("missing value"))?;
    let v = operand(g, &v)?;
    let v = g.s(semantic::materialize(&g.ir, &v, &elem))?;
    let (p, v) = g.s(semantic::broadcast_pair(&g.ir, &p, &v))?;
    let m = match args.get(2, "mask").filter(|v| !matches!(v, Val::None)) {
        Some(m) => {
            let m = g.tensor(&m)?;
            g.s(semantic::broadcast_to(&g.ir, &m, &p.ty.shape))?
        }
        None => g.s(semantic::constant(
            &g.ir,
            Num::Bool(true),
            &p.ty.with_dt(I1),
        ))?,
    };
    Ok((p, v, m, (*elem).clone()))
}

fn rmw(g: &Gen, op: i64, p: &TV, v: &TV, m: &TV, sem: i64, scope: i64) -> TV {
    let attrs = [
        ("atomic_rmw_op", g.ir.i32_attr(op)),
        ("sem", g.ir.i32_attr(sem)),
        ("scope", g.ir.i32_attr(scope)),
    ];
    op1(g, "tt.atomic_rmw", &[p.v, v.v, m.v], v.ty.clone(), &attrs)
}

fn atomic(g: &mut Gen, kind: &str, args: Args) -> R<Val> {
    let (p, v, m, elem) = atomic_operands(g, &args, "val")?;
    let (sem, scope) = sem_scope(g, args.get(3, "sem"), args.get(4, "scope"))?;
    let float = elem.is_float();
    // 32- and 64-bit elements (and 16-bit floats for add), as the hardware atomics.
    let wide = elem.bits() == 32 || elem.bits() == 64;
    if elem.is_bool()
        || elem.is_ptr()
        || !(wide || (kind == "add" && matches!(elem, Dt::F16 | Dt::BF16)))
    {
        return Err(g.err(format!(
            "atomic_{kind} does not support {} elements",
            elem.name()
        )));
    }
    let code = match kind {
        "add" if float => 5,
        "add" => 4,
        "and" => 1,
        "or" => 2,
        "xor" => 3,
        "xchg" => 10,
        "max" | "min" if float => {
            if elem != Dt::F32 && elem != Dt::F64 {
                return Err(g.err(format!("atomic_{kind} on {} is not supported", elem.name())));
            }
            return atomic_float_minmax(g, kind == "max", p, v, m, sem, scope, &elem);
        }
        "max" if elem.is_unsigned() => 8,
        "max" => 6,
        "min" if elem.is_unsigned() => 9,
        "min" => 7,
        _ => return Err(g.err(format!("atomic_{kind} is not supported"))),
    };
    if matches!(kind, "and" | "or" | "xor") && float {
        return Err(g.err(format!("atomic_{kind} needs integers, got {}", elem.name())));
    }
    Ok(t(rmw(g, code, &p, &v, &m, sem, scope)))
}

/// Float atomic max/min through integer atomics: non-negative values order as signed integers,
/// negative ones in reverse as unsigned integers.
#[allow(clippy::too_many_arguments)]
fn atomic_float_minmax(
    g: &mut Gen,
    is_max: bool,
    p: TV,
    v: TV,
    m: TV,
    sem: i64,
    scope: i64,
    elem: &Dt,
) -> R<Val> {
    let idt = Dt::Int {
        bits: elem.bits(),
        signed: true,
    };
    let iv = g.s(semantic::bitcast(&g.ir, &v, &idt))?;
    let ip = g.s(semantic::cast(
        &g.ir,
        &p,
        &Dt::Ptr(Box::new(idt.clone())),
        None,
    ))?;
    let shift = g.s(semantic::constant(
        &g.ir,
        Num::Int(elem.bits() as i128 - 1),
        &iv.ty,
    ))?;
    let sign = op1(g, "arith.shrui", &[iv.v, shift.v], iv.ty.clone(), &[]);
    let zero = g.s(semantic::constant(&g.ir, Num::Int(0), &iv.ty))?;
    let neg = g.s(semantic::emit_binary(&g.ir, Bin::Ne, &sign, &zero))?;
    let one = g.s(semantic::constant(&g.ir, Num::Bool(true), &neg.ty))?;
    let pos = g.s(semantic::emit_binary(&g.ir, Bin::Xor, &neg, &one))?;
    let pos_mask = g.s(semantic::emit_binary(&g.ir, Bin::And, &m, &pos))?;
    let (pos_op, neg_op) = if is_max { (6, 9) } else { (7, 8) };
    let r_pos = rmw(g, pos_op, &ip, &iv, &pos_mask, sem, scope);
    let neg_mask = g.s(semantic::emit_binary(&g.ir, Bin::And, &m, &neg))?;
    let r_neg = rmw(g, neg_op, &ip, &iv, &neg_mask, sem, scope);
    let sel = op1(
        g,
        "arith.select",
        &[pos.v, r_pos.v, r_neg.v],
        r_pos.ty.clone(),
        &[],
    );
    Ok(t(g.s(semantic::bitcast(&g.ir, &sel, elem))?))
}

fn atomic_cas(g: &mut Gen, args: Args) -> R<Val> {
    let p = tensor_arg(g, args.get(0, "pointer"), "pointer")?;
    let Dt::Ptr(elem) = p.ty.dt.clone() else {
        return Err(g.err(format!("atomic_cas needs a pointer, got {}", p.ty.name())));
    };
    if elem.is_ptr() || !matches!(elem.bits(), 16 | 32 | 64) {
        return Err(g.err(format!(
            "atomic_cas does not support {} elements",
            elem.name()
        )));
    }
    let cmp = args
        .get(1, "cmp")
        .ok_or_else(|| g.err("atomic_cas needs cmp"))?;
    let val = args
        .get(2, "val")
        .ok_or_else(|| g.err("atomic_cas needs val"))?;
    let cmp = operand(g, &cmp)?;
    let cmp = g.s(semantic::materialize(&g.ir, &cmp, &elem))?;
    let val = operand(g, &val)?;
    let val = g.s(semantic::materialize(&g.ir, &val, &elem))?;
    let shape = g.s(semantic::broadcast_shape(&p.ty.shape, &cmp.ty.shape))?;
    let shape = g.s(semantic::broadcast_shape(&shape, &val.ty.shape))?;
    let p = g.s(semantic::broadcast_to(&g.ir, &p, &shape))?;
    let cmp = g.s(semantic::broadcast_to(&g.ir, &cmp, &shape))?;
    let val = g.s(semantic::broadcast_to(&g.ir, &val, &shape))?;
    let (sem, scope) = sem_scope(g, args.get(3, "sem"), args.get(4, "scope"))?;
    let attrs = [("sem", g.ir.i32_attr(sem)), ("scope", g.ir.i32_attr(scope))];
    Ok(t(op1(
        g,
        "tt.atomic_cas",
        &[p.v, cmp.v, val.v],
        val.ty.clone(),
        &attrs,
    )))
}

fn int_list(g: &mut Gen, v: Option<Val>, what: &str, dt: &Dt) -> R<Vec<TV>> {
    let items = match v {
        Some(Val::Tuple(items)) => items,
        Some(other) => vec![other],
        None => return Err(g.err(format!("missing {what}"))),
    };
    items
        .iter()
        .map(|i| {
            let o = operand(g, i)?;
            let x = g.s(semantic::materialize(&g.ir, &o, dt))?;
            if !x.ty.dt.is_int() || x.ty.is_block() {
                return Err(g.err(format!("{what} must be integer scalars")));
            }
            Ok(x)
        })
        .collect()
}

fn make_block_ptr(g: &mut Gen, args: Args) -> R<Val> {
    let base = tensor_arg(g, args.get(0, "base"), "base")?;
    let Dt::Ptr(elem) = base.ty.dt.clone() else {
        return Err(g.err("make_block_ptr's base must be a pointer"));
    };
    let shape = int_list(g, args.get(1, "shape"), "shape", &I64)?;
    let strides = int_list(g, args.get(2, "strides"), "strides", &I64)?;
    let offsets = int_list(g, args.get(3, "offsets"), "offsets", &I32)?;
    let block = dims_arg(g, args.get(4, "block_shape"), "block_shape")?;
    let order = shape_arg(g, args.get(5, "order"), "order")?;
    let rank = block.len();
    if shape.len() != rank || strides.len() != rank || offsets.len() != rank || order.len() != rank
    {
        return Err(g.err("make_block_ptr: shape, strides, offsets, block_shape and order must have one entry per dimension"));
    }
    let mut operands = vec![base.v];
    operands.extend(shape.iter().chain(&strides).chain(&offsets).map(|x| x.v));
    let order32: Vec<i32> = order.iter().map(|o| *o as i32).collect();
    let ty = Ty::scalar(Dt::BlockPtr(Box::new(Ty::block((*elem).clone(), block))));
    Ok(t(op1(
        g,
        "tt.make_tensor_ptr",
        &operands,
        ty,
        &[("order", g.ir.i32_array(&order32))],
    )))
}

fn advance(g: &mut Gen, p: TV, offsets: Vec<Val>) -> R<Val> {
    let Dt::BlockPtr(block) = &p.ty.dt else {
        return Err(g.err("tl.advance needs a block pointer (from tl.make_block_ptr)"));
    };
    if offsets.len() != block.shape.len() {
        return Err(g.err("tl.advance needs one offset per dimension"));
    }
    let offs = int_list(g, Some(Val::Tuple(offsets)), "offsets", &I32)?;
    let mut operands = vec![p.v];
    operands.extend(offs.iter().map(|o| o.v));
    Ok(t(op1(g, "tt.advance", &operands, p.ty.clone(), &[])))
}

fn make_tensor_descriptor(g: &mut Gen, args: Args) -> R<Val> {
    let base = tensor_arg(g, args.get(0, "base"), "base")?;
    let Dt::Ptr(elem) = base.ty.dt.clone() else {
        return Err(g.err("make_tensor_descriptor's base must be a pointer"));
    };
    let shape = int_list(g, args.get(1, "shape"), "shape", &I32)?;
    let strides = int_list(g, args.get(2, "strides"), "strides", &I64)?;
    let block = dims_arg(g, args.get(3, "block_shape"), "block_shape")?;
    if shape.len() != block.len() || strides.len() != block.len() {
        return Err(g.err("make_tensor_descriptor: shape, strides and block_shape must have one entry per dimension"));
    }
    let padding = match str_arg(g, args.get(4, "padding_option"), "padding_option")?.as_deref() {
        None | Some("zero") => 1,
        Some("nan") => 2,
        Some(other) => return Err(g.err(format!("unknown padding_option '{other}'"))),
    };
    let mut operands = vec![base.v];
    operands.extend(shape.iter().chain(&strides).map(|x| x.v));
    let ty = Ty::scalar(Dt::Desc(Box::new(Ty::block((*elem).clone(), block))));
    Ok(t(op1(
        g,
        "tt.make_tensor_descriptor",
        &operands,
        ty,
        &[("padding", g.ir.i32_attr(padding))],
    )))
}

fn desc_method(g: &mut Gen, d: TV, name: &str, args: Args) -> R<Val> {
    let Dt::Desc(block) = d.ty.dt.clone() else {
        return Err(g.err("expected a tensor descriptor"));
    };
    let offsets = int_list(g, args.get(0, "offsets"), "offsets", &I32)?;
    if offsets.len() != block.shape.len() {
        return Err(g.err("a tensor descriptor access needs one offset per dimension"));
    }
    let offs: Vec<Value> = offsets.iter().map(|o| o.v).collect();
    match name {
        "load" => {
            let mut operands = vec![d.v];
            operands.extend(offs);
            let attrs = [("cache", g.ir.i32_attr(1)), ("evict", g.ir.i32_attr(1))];
            Ok(t(op1(
                g,
                "tt.descriptor_load",
                &operands,
                (*block).clone(),
                &attrs,
            )))
        }
        "store" | "atomic_add" | "atomic_min" | "atomic_max" | "atomic_and" | "atomic_or"
        | "atomic_xor" => {
            let v = args.get(1, "value").ok_or_else(|| g.err("missing value"))?;
            let v = operand(g, &v)?;
            let v = g.s(semantic::materialize(&g.ir, &v, &block.dt))?;
            let v = g.s(semantic::broadcast_to(&g.ir, &v, &block.shape))?;
            let mut operands = vec![d.v, v.v];
            operands.extend(offs);
            if name == "store" {
                g.ir.op("tt.descriptor_store", &operands, &[], &[], Vec::new());
            } else {
                let kind = match name {
                    "atomic_add" => 1,
                    "atomic_min" => 2,
                    "atomic_max" => 3,
                    "atomic_and" => 6,
                    "atomic_or" => 7,
                    _ => 8,
                };
                g.ir.op(
                    "tt.descriptor_reduce",
                    &operands,
                    &[],
                    &[("kind", g.ir.i32_attr(kind))],
                    Vec::new(),
                );
            }
            Ok(Val::None)
        }
        _ => Err(g.err(format!("tensor descriptors have no method '{name}'"))),
    }
}

fn inline_asm(g: &mut Gen, args: Args) -> R<Val> {
    let asm = str_arg(g, args.get(0, "asm"), "asm")?.unwrap_or_default();
    let constraints = str_arg(g, args.get(1, "constraints"), "constraints")?.unwrap_or_default();
    let inputs = match args.get(2, "args") {
        Some(Val::Tuple(items)) => items,
        Some(other) => vec![other],
        None => vec![],
    };
    let dtypes = match args.get(3, "dtype") {
        Some(Val::Tuple(items)) => items
            .into_iter()
            .map(|d| dtype_arg(g, Some(d), "dtype"))
            .collect::<R<Vec<_>>>()?,
        d => vec![dtype_arg(g, d, "dtype")?],
    };
    let pure = args
        .get(4, "is_pure")
        .and_then(|v| v.truthy())
        .unwrap_or(false);
    let pack = int_arg(g, args.get(5, "pack"), "pack")?;
    let mut values: Vec<TV> = inputs.iter().map(|v| g.tensor(v)).collect::<R<_>>()?;
    let shape = values.iter().try_fold(Vec::new(), |s, v| {
        g.s(semantic::broadcast_shape(&s, &v.ty.shape))
    })?;
    for v in values.iter_mut() {
        *v = g.s(semantic::broadcast_to(&g.ir, v, &shape))?;
    }
    let tys: Vec<Ty> = dtypes
        .iter()
        .map(|d| Ty::block(d.clone(), shape.clone()))
        .collect();
    let mlir: Vec<ir::Type> = tys.iter().map(|t| t.to_mlir(&g.ir)).collect();
    let operands: Vec<Value> = values.iter().map(|v| v.v).collect();
    let attrs = [
        ("asm_string", g.ir.string_attr(&asm)),
        ("constraints", g.ir.string_attr(&constraints)),
        ("packed_element", g.ir.i32_attr(pack)),
        ("pure", g.ir.bool_attr(pure)),
    ];
    let op = g.ir.op(
        "tt.elementwise_inline_asm",
        &operands,
        &mlir,
        &attrs,
        Vec::new(),
    );
    let outs: Vec<Val> = tys
        .into_iter()
        .enumerate()
        .map(|(i, ty)| {
            t(TV {
                v: ir::result(op, i),
                ty,
            })
        })
        .collect();
    Ok(if outs.len() == 1 {
        outs.into_iter().next().unwrap_or(Val::None)
    } else {
        Val::Tuple(outs)
    })
}
