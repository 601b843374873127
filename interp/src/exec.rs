//! The interpreter proper: runs one program of a kernel op by op over whole blocks.
//!
//! Every op computes all elements of its result at once (a scalar is a block of shape `[]`).
//! Regions of `tt.reduce` and `tt.scan` run once per combining step on blocks of all the
//! positions that combine at that step, so their scalar-typed ops see blocks too: elementwise
//! ops therefore broadcast a shape-`[]` operand against a block.

use crate::InterpError;
use crate::ir::{self, TypeKind};
use crate::memory::{Memory, Scalar, decode, encode};
use crate::value::*;
use mlir_sys::{MlirBlock, MlirOperation, MlirValue};
use std::collections::HashMap;
use std::rc::Rc;

pub(crate) type R<T> = Result<T, InterpError>;

/// Bounds on one run, so that a kernel that loops forever or grows without bound ends in an
/// error instead of a hang.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Ops executed over the whole launch (every program).
    pub max_steps: u64,
    /// `tt.call` nesting.
    pub max_call_depth: usize,
    /// Elements computed over the whole launch (the sum of every op's result sizes): bounds the
    /// time of a launch whose ops are few but whose blocks are large.
    pub max_elements: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 50_000_000,
            max_call_depth: 64,
            max_elements: 1 << 34,
        }
    }
}

pub(crate) fn fail(op: MlirOperation, message: impl Into<String>) -> InterpError {
    InterpError {
        location: ir::location(op),
        message: format!("{}: {}", ir::op_name(op), message.into()),
    }
}

type Env = HashMap<usize, Val>;

pub(crate) struct Machine<'m> {
    pub mem: &'m mut Memory,
    pub funcs: HashMap<String, MlirOperation>,
    pub grid: [i64; 3],
    pub pid: [i64; 3],
    pub steps: u64,
    /// Elements computed so far (see [`Limits::max_elements`]).
    pub elements: u64,
    pub limits: Limits,
    /// Lines `tt.print` wrote.
    pub printed: Vec<String>,
    /// TMA descriptors `ttng.tensormap_create` wrote, by address (their pointee and block
    /// come from the `ttng.reinterpret_tensor_descriptor` that reads them).
    pub tensormaps: HashMap<u64, TensorDesc>,
    depth: usize,
}

const TERMINATORS: &[&str] = &[
    "scf.yield",
    "scf.condition",
    "tt.return",
    "tt.reduce.return",
    "tt.scan.return",
    "tt.map_elementwise.return",
];

impl<'m> Machine<'m> {
    /// Who an access of element `element` of `op` is, for the write log.
    fn writer(&self, op: MlirOperation, element: usize) -> crate::memory::Writer {
        let [x, y, z] = self.pid.map(|p| p as u64);
        let [gx, gy, _] = self.grid.map(|g| g as u64);
        crate::memory::Writer {
            program: x + gx * (y + gy * z),
            op: op.ptr as usize,
            element,
        }
    }

    /// Whether `op`'s first result has any use.
    fn result_used(op: MlirOperation) -> bool {
        // SAFETY: a result count query on a live op.
        let has_result = unsafe { mlir_sys::mlirOperationGetNumResults(op) > 0 };
        has_result && tritium_passes::ir_util::has_uses(tritium_passes::ttir::util::result(op, 0))
    }

    pub fn new(mem: &'m mut Memory, funcs: HashMap<String, MlirOperation>, limits: Limits) -> Self {
        Machine {
            mem,
            funcs,
            grid: [1; 3],
            pid: [0; 3],
            steps: 0,
            elements: 0,
            limits,
            printed: Vec::new(),
            tensormaps: HashMap::new(),
            depth: 0,
        }
    }

    /// Calls `func` with `args`; returns what its `tt.return` returns.
    pub fn call(&mut self, func: MlirOperation, args: Vec<Val>) -> R<Vec<Val>> {
        let Some(&entry) = ir::region_blocks(func, 0).first() else {
            return Err(fail(func, "the function has no body"));
        };
        if self.depth >= self.limits.max_call_depth {
            return Err(fail(
                func,
                format!(
                    "calls nest deeper than {} (recursion?)",
                    self.limits.max_call_depth
                ),
            ));
        }
        self.depth += 1;
        let mut env = Env::new();
        let result = self.run_block(entry, args, &mut env);
        self.depth -= 1;
        result
    }

    /// Runs `block` with its arguments bound to `args`; returns its terminator's operands.
    fn run_block(&mut self, block: MlirBlock, args: Vec<Val>, env: &mut Env) -> R<Vec<Val>> {
        let params = ir::block_args(block);
        for (param, arg) in params.iter().zip(args) {
            env.insert(ir::key(*param), arg);
        }
        for op in ir::block_ops(block) {
            let name = ir::op_name(op);
            if TERMINATORS.contains(&name.as_str()) {
                return ir::operands(op).iter().map(|v| get(env, op, *v)).collect();
            }
            self.steps += 1;
            if self.steps > self.limits.max_steps {
                return Err(fail(
                    op,
                    format!(
                        "the launch executed more than {} ops (an endless loop?)",
                        self.limits.max_steps
                    ),
                ));
            }
            // The results' sizes are known from their types: a block too large to compute is
            // refused before it is allocated (a mutant's 31 x 2^31 tensor would abort).
            let declared = ir::results(op).iter().try_fold(0u64, |sum, &r| {
                let ty = tritium_passes::ir_util::value_type(r);
                if !tritium_passes::ir_util::is_tensor(ty) {
                    return Some(sum);
                }
                ir::shape(ty)
                    .iter()
                    .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
                    .and_then(|n| sum.checked_add(n))
            });
            if declared.is_none_or(|n| self.elements.saturating_add(n) > self.limits.max_elements) {
                return Err(fail(
                    op,
                    format!(
                        "the op's results would take the launch past {} elements (raise \
                         Limits::max_elements)",
                        self.limits.max_elements
                    ),
                ));
            }
            let values = self.exec(op, &name, env)?;
            for value in &values {
                if let Val::T(t) = value {
                    self.elements += t.numel() as u64;
                }
            }
            if self.elements > self.limits.max_elements {
                return Err(fail(
                    op,
                    format!(
                        "the launch computed more than {} elements (raise Limits::max_elements)",
                        self.limits.max_elements
                    ),
                ));
            }
            for (result, value) in ir::results(op).iter().zip(values) {
                env.insert(ir::key(*result), value);
            }
        }
        Ok(Vec::new())
    }

    /// Runs region `index` of `op` (its entry block).
    fn run_region(
        &mut self,
        op: MlirOperation,
        index: isize,
        args: Vec<Val>,
        env: &mut Env,
    ) -> R<Vec<Val>> {
        let Some(&block) = ir::region_blocks(op, index).first() else {
            return Ok(Vec::new());
        };
        self.run_block(block, args, env)
    }

    fn exec(&mut self, op: MlirOperation, name: &str, env: &mut Env) -> R<Vec<Val>> {
        let operands = ir::operands(op);
        let arg = |i: usize| -> R<Val> {
            let v = operands
                .get(i)
                .ok_or_else(|| fail(op, format!("missing operand {i}")))?;
            get(env, op, *v)
        };
        let tensor = |i: usize| -> R<Rc<Tensor>> {
            match arg(i)? {
                Val::T(t) => Ok(t),
                Val::Shared(view) => Ok(Rc::new(view.read())),
                _ => Err(fail(op, format!("operand {i} is not a tensor or scalar"))),
            }
        };
        let view = |i: usize| -> R<Rc<SharedView>> {
            match arg(i)? {
                Val::Shared(v) => Ok(v),
                _ => Err(fail(op, format!("operand {i} is not shared memory"))),
            }
        };
        let one = |v: Tensor| Ok(vec![Val::tensor(v)]);
        let (result_elem, result_shape) = result_block(op, 0);
        match name {
            // ---- constants and program coordinates ----
            "arith.constant" => one(constant(op)?),
            "ub.poison" => one(zeros(op)?),
            "tt.get_program_id" | "tt.get_num_programs" => {
                let axis = ir::int_attr(op, "axis").unwrap_or(0).clamp(0, 2) as usize;
                let v = if name == "tt.get_program_id" {
                    self.pid[axis]
                } else {
                    self.grid[axis]
                };
                one(Tensor::scalar_int(Elem::Num(Num::Int(32)), v))
            }
            "tt.make_range" => {
                let start = ir::int_attr(op, "start").unwrap_or(0);
                let end = ir::int_attr(op, "end").unwrap_or(0);
                let elem = result_elem.ok_or_else(|| fail(op, "bad result type"))?;
                one(Tensor::new(
                    elem,
                    vec![(end - start).max(0) as usize],
                    Data::I((start..end).map(|v| wrap(32, v)).collect()),
                ))
            }

            // ---- arith: integers ----
            "arith.addi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                a.wrapping_add(b)
            })?),
            "arith.subi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                a.wrapping_sub(b)
            })?),
            "arith.muli" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                a.wrapping_mul(b)
            })?),
            "arith.divsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                if b == 0 { -1 } else { a.wrapping_div(b) }
            })?),
            "arith.remsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                if b == 0 { a } else { a.wrapping_rem(b) }
            })?),
            "arith.divui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let (a, b) = (unsigned(w, a), unsigned(w, b));
                a.checked_div(b).map_or(-1, |q| q as i64)
            })?),
            "arith.remui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let (a, b) = (unsigned(w, a), unsigned(w, b));
                if b == 0 { a as i64 } else { (a % b) as i64 }
            })?),
            "arith.ceildivsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                if b == 0 {
                    -1
                } else {
                    let q = a.wrapping_div(b);
                    if (a % b != 0) && ((a < 0) == (b < 0)) {
                        q + 1
                    } else {
                        q
                    }
                }
            })?),
            "arith.ceildivui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let (a, b) = (unsigned(w, a), unsigned(w, b));
                if b == 0 { -1 } else { a.div_ceil(b) as i64 }
            })?),
            "arith.floordivsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                if b == 0 {
                    -1
                } else {
                    let q = a.wrapping_div(b);
                    if (a % b != 0) && ((a < 0) != (b < 0)) {
                        q - 1
                    } else {
                        q
                    }
                }
            })?),
            "arith.andi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| a & b)?),
            "arith.ori" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| a | b)?),
            "arith.xori" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| a ^ b)?),
            "arith.shli" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let s = unsigned(w, b);
                if s >= u64::from(w) { 0 } else { a << s }
            })?),
            "arith.shrui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let s = unsigned(w, b);
                if s >= u64::from(w) {
                    0
                } else {
                    (unsigned(w, a) >> s) as i64
                }
            })?),
            "arith.shrsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let s = unsigned(w, b).min(u64::from(w) - 1);
                a >> s
            })?),
            "arith.maxsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                a.max(b)
            })?),
            "arith.minsi" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, _| {
                a.min(b)
            })?),
            "arith.maxui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                if unsigned(w, a) >= unsigned(w, b) {
                    a
                } else {
                    b
                }
            })?),
            "arith.minui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                if unsigned(w, a) <= unsigned(w, b) {
                    a
                } else {
                    b
                }
            })?),
            "tt.mulhiui" => one(int_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b, w| {
                let p = u128::from(unsigned(w, a)) * u128::from(unsigned(w, b));
                (p >> w) as i64
            })?),
            "arith.cmpi" => {
                let predicate = ir::int_attr(op, "predicate").unwrap_or(0);
                let (a, b) = (tensor(0)?, tensor(1)?);
                let w = a.elem.int_width().unwrap_or(64);
                let mut t = int_binary(op, &a, &b, |x, y, _| {
                    let (ux, uy) = (unsigned(w, x), unsigned(w, y));
                    let r = match predicate {
                        0 => x == y,
                        1 => x != y,
                        2 => x < y,
                        3 => x <= y,
                        4 => x > y,
                        5 => x >= y,
                        6 => ux < uy,
                        7 => ux <= uy,
                        8 => ux > uy,
                        _ => ux >= uy,
                    };
                    -i64::from(r)
                })?;
                t.elem = Elem::Num(Num::Int(1));
                one(t)
            }

            // ---- arith: floats ----
            "arith.addf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b| a + b)?),
            "arith.subf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b| a - b)?),
            "arith.mulf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b| a * b)?),
            "arith.divf" | "tt.precise_divf" => {
                one(float_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b| a / b)?)
            }
            "arith.remf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, |a, b| a % b)?),
            "arith.maxnumf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, f64::max)?),
            "arith.minnumf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, f64::min)?),
            "arith.maximumf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, maximum)?),
            "arith.minimumf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, minimum)?),
            "math.powf" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, f64::powf)?),
            "math.atan2" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, f64::atan2)?),
            "math.copysign" => one(float_binary(op, &*tensor(0)?, &*tensor(1)?, f64::copysign)?),
            "arith.negf" => one(float_unary(op, &*tensor(0)?, |x| -x)?),
            "arith.cmpf" => {
                let predicate = ir::int_attr(op, "predicate").unwrap_or(0);
                let (a, b) = (tensor(0)?, tensor(1)?);
                let (x, y, shape) = float_pair(op, &a, &b)?;
                let n = x.len().max(y.len());
                let data = (0..n)
                    .map(|i| {
                        let (p, q) = (x[pick(x.len(), i)], y[pick(y.len(), i)]);
                        let unordered = p.is_nan() || q.is_nan();
                        let r = match predicate {
                            0 => false,
                            1 => !unordered && p == q,
                            2 => !unordered && p > q,
                            3 => !unordered && p >= q,
                            4 => !unordered && p < q,
                            5 => !unordered && p <= q,
                            6 => !unordered && p != q,
                            7 => !unordered,
                            8 => unordered || p == q,
                            9 => unordered || p > q,
                            10 => unordered || p >= q,
                            11 => unordered || p < q,
                            12 => unordered || p <= q,
                            13 => unordered || p != q,
                            14 => unordered,
                            _ => true,
                        };
                        -i64::from(r)
                    })
                    .collect();
                one(Tensor::new(Elem::Num(Num::Int(1)), shape, Data::I(data)))
            }
            "arith.select" => {
                let (c, a, b) = (tensor(0)?, tensor(1)?, tensor(2)?);
                let cond = c.ints().ok_or_else(|| fail(op, "condition is not i1"))?;
                let shape = [&c.shape, &a.shape, &b.shape]
                    .into_iter()
                    .max_by_key(|s| s.iter().product::<usize>())
                    .cloned()
                    .unwrap_or_default();
                let n: usize = shape.iter().product();
                let choose = |i: usize| cond[pick(cond.len(), i)] != 0;
                let data = match (&a.data, &b.data) {
                    (Data::I(x), Data::I(y)) => Data::I(
                        (0..n)
                            .map(|i| {
                                if choose(i) {
                                    x[pick(x.len(), i)]
                                } else {
                                    y[pick(y.len(), i)]
                                }
                            })
                            .collect(),
                    ),
                    (Data::F(x), Data::F(y)) => Data::F(
                        (0..n)
                            .map(|i| {
                                if choose(i) {
                                    x[pick(x.len(), i)]
                                } else {
                                    y[pick(y.len(), i)]
                                }
                            })
                            .collect(),
                    ),
                    _ => return Err(fail(op, "operands of different kinds")),
                };
                one(Tensor::new(a.elem, shape, data))
            }

            // ---- casts ----
            "arith.extsi" | "arith.trunci" | "arith.index_cast" | "arith.index_castui"
            | "arith.extui" => {
                let a = tensor(0)?;
                let from = a.elem.int_width().unwrap_or(64);
                let to = out_num(op, result_elem)?;
                let Num::Int(to) = to else {
                    return Err(fail(op, "result is not an integer"));
                };
                let zero_extend = matches!(name, "arith.extui" | "arith.index_castui");
                let src = a
                    .ints()
                    .ok_or_else(|| fail(op, "operand is not an integer"))?;
                let data = src
                    .iter()
                    .map(|&v| {
                        let v = if zero_extend {
                            unsigned(from, v) as i64
                        } else {
                            v
                        };
                        wrap(to, v)
                    })
                    .collect();
                one(Tensor::new(
                    Elem::Num(Num::Int(to)),
                    a.shape.clone(),
                    Data::I(data),
                ))
            }
            "arith.sitofp" | "arith.uitofp" => {
                let a = tensor(0)?;
                let from = a.elem.int_width().unwrap_or(64);
                let to = out_num(op, result_elem)?;
                let src = a
                    .ints()
                    .ok_or_else(|| fail(op, "operand is not an integer"))?;
                let signed = name == "arith.sitofp";
                let data = src
                    .iter()
                    .map(|&v| int_to_float(to, v, from, signed))
                    .collect();
                one(Tensor::new(Elem::Num(to), a.shape.clone(), Data::F(data)))
            }
            "arith.fptosi" | "arith.fptoui" => {
                let a = tensor(0)?;
                let Num::Int(to) = out_num(op, result_elem)? else {
                    return Err(fail(op, "result is not an integer"));
                };
                let src = a
                    .floats()
                    .ok_or_else(|| fail(op, "operand is not a float"))?;
                let signed = name == "arith.fptosi";
                let data = src.iter().map(|&x| float_to_int(x, to, signed)).collect();
                one(Tensor::new(
                    Elem::Num(Num::Int(to)),
                    a.shape.clone(),
                    Data::I(data),
                ))
            }
            "arith.extf" | "arith.truncf" | "tt.fp_to_fp" => {
                let a = tensor(0)?;
                let to = out_num(op, result_elem)?;
                let src = a
                    .floats()
                    .ok_or_else(|| fail(op, "operand is not a float"))?;
                // tt.fp_to_fp: rounding = rtz (0) or rtne (1, and the default).
                let toward_zero = name == "tt.fp_to_fp" && ir::int_attr(op, "rounding") == Some(0);
                let data = src
                    .iter()
                    .map(|&x| {
                        if toward_zero {
                            round_toward_zero(to, x)
                        } else {
                            round(to, x)
                        }
                    })
                    .collect();
                one(Tensor::new(Elem::Num(to), a.shape.clone(), Data::F(data)))
            }
            "arith.bitcast" | "tt.bitcast" | "tt.int_to_ptr" | "tt.ptr_to_int" => {
                if name == "tt.ptr_to_int" && self.mem.writes.run_specific.is_none() {
                    // The interpreter's addresses are not a GPU's (nor another run's).
                    self.mem.writes.run_specific =
                        Some("tt.ptr_to_int: the results depend on where the buffers are".into());
                }
                let a = tensor(0)?;
                let to = result_elem.ok_or_else(|| fail(op, "bad result type"))?;
                let (from_num, to_num) = (a.elem.storage(), to.storage());
                let bits: Vec<u64> = match &a.data {
                    Data::I(v) => v.iter().map(|&x| encode(from_num, Scalar::I(x))).collect(),
                    Data::F(v) => v.iter().map(|&x| encode(from_num, Scalar::F(x))).collect(),
                };
                let data = if to.is_float() {
                    Data::F(
                        bits.iter()
                            .map(|&b| match decode(to_num, b) {
                                Scalar::F(x) => x,
                                Scalar::I(i) => i as f64,
                            })
                            .collect(),
                    )
                } else {
                    Data::I(
                        bits.iter()
                            .map(|&b| match decode(to_num, b) {
                                Scalar::I(i) => i,
                                Scalar::F(x) => x as i64,
                            })
                            .collect(),
                    )
                };
                one(Tensor::new(to, a.shape.clone(), data))
            }

            // ---- math ----
            "math.exp" => one(float_unary(op, &*tensor(0)?, f64::exp)?),
            "math.exp2" => one(float_unary(op, &*tensor(0)?, f64::exp2)?),
            "math.expm1" => one(float_unary(op, &*tensor(0)?, f64::exp_m1)?),
            "math.log" => one(float_unary(op, &*tensor(0)?, f64::ln)?),
            "math.log2" => one(float_unary(op, &*tensor(0)?, f64::log2)?),
            "math.log10" => one(float_unary(op, &*tensor(0)?, f64::log10)?),
            "math.log1p" => one(float_unary(op, &*tensor(0)?, f64::ln_1p)?),
            "math.sqrt" | "tt.precise_sqrt" => one(float_unary(op, &*tensor(0)?, f64::sqrt)?),
            "math.rsqrt" => one(float_unary(op, &*tensor(0)?, |x| 1.0 / x.sqrt())?),
            "math.cbrt" => one(float_unary(op, &*tensor(0)?, f64::cbrt)?),
            "math.sin" => one(float_unary(op, &*tensor(0)?, f64::sin)?),
            "math.cos" => one(float_unary(op, &*tensor(0)?, f64::cos)?),
            "math.tan" => one(float_unary(op, &*tensor(0)?, f64::tan)?),
            "math.asin" => one(float_unary(op, &*tensor(0)?, f64::asin)?),
            "math.acos" => one(float_unary(op, &*tensor(0)?, f64::acos)?),
            "math.atan" => one(float_unary(op, &*tensor(0)?, f64::atan)?),
            "math.sinh" => one(float_unary(op, &*tensor(0)?, f64::sinh)?),
            "math.cosh" => one(float_unary(op, &*tensor(0)?, f64::cosh)?),
            "math.tanh" => one(float_unary(op, &*tensor(0)?, f64::tanh)?),
            "math.asinh" => one(float_unary(op, &*tensor(0)?, f64::asinh)?),
            "math.acosh" => one(float_unary(op, &*tensor(0)?, f64::acosh)?),
            "math.atanh" => one(float_unary(op, &*tensor(0)?, f64::atanh)?),
            "math.erf" => one(float_unary(op, &*tensor(0)?, libm::erf)?),
            "math.erfc" => one(float_unary(op, &*tensor(0)?, libm::erfc)?),
            "math.floor" => one(float_unary(op, &*tensor(0)?, f64::floor)?),
            "math.ceil" => one(float_unary(op, &*tensor(0)?, f64::ceil)?),
            "math.trunc" => one(float_unary(op, &*tensor(0)?, f64::trunc)?),
            "math.round" => one(float_unary(op, &*tensor(0)?, f64::round)?),
            "math.roundeven" => one(float_unary(op, &*tensor(0)?, f64::round_ties_even)?),
            "math.absf" => one(float_unary(op, &*tensor(0)?, f64::abs)?),
            "math.absi" => {
                let a = tensor(0)?;
                let w = a.elem.int_width().unwrap_or(64);
                let src = a
                    .ints()
                    .ok_or_else(|| fail(op, "operand is not an integer"))?;
                let data = src.iter().map(|&v| wrap(w, v.wrapping_abs())).collect();
                one(Tensor::new(a.elem, a.shape.clone(), Data::I(data)))
            }
            "math.fma" => {
                let (a, b, c) = (tensor(0)?, tensor(1)?, tensor(2)?);
                let ab = float_binary(op, &a, &b, |x, y| x * y)?;
                // One rounding of a*b+c: the f64 product of two narrower floats is exact, and
                // for f64 itself mul_add is fused.
                let to = out_num(op, result_elem)?;
                let (x, y, z) = (
                    a.floats().unwrap_or_default(),
                    b.floats().unwrap_or_default(),
                    c.floats().unwrap_or_default(),
                );
                let n = ab.numel().max(z.len());
                let data = (0..n)
                    .map(|i| {
                        round(
                            to,
                            x[pick(x.len(), i)].mul_add(y[pick(y.len(), i)], z[pick(z.len(), i)]),
                        )
                    })
                    .collect();
                let shape = if c.numel() >= ab.numel() {
                    c.shape.clone()
                } else {
                    ab.shape.clone()
                };
                one(Tensor::new(Elem::Num(to), shape, Data::F(data)))
            }
            "tt.clampf" => {
                let (x, lo, hi) = (tensor(0)?, tensor(1)?, tensor(2)?);
                let propagate = ir::int_attr(op, "propagateNan").unwrap_or(0) != 0;
                let (xs, ls, hs) = (
                    x.floats().unwrap_or_default(),
                    lo.floats().unwrap_or_default(),
                    hi.floats().unwrap_or_default(),
                );
                let data = (0..xs.len())
                    .map(|i| {
                        let v = xs[i];
                        if propagate && v.is_nan() {
                            v
                        } else {
                            v.max(ls[pick(ls.len(), i)]).min(hs[pick(hs.len(), i)])
                        }
                    })
                    .collect();
                one(Tensor::new(x.elem, x.shape.clone(), Data::F(data)))
            }
            "tt.extern_elementwise" => one(extern_elementwise(op, &operands, env)?),
            "tt.elementwise_inline_asm" => inline_asm(op, &operands, env),

            // ---- shapes ----
            "tt.splat" => {
                let a = tensor(0)?;
                let shape = result_shape.clone();
                let n: usize = shape.iter().product();
                let data = a.data.gather(std::iter::repeat_n(0, n));
                one(Tensor::new(a.elem, shape, data))
            }
            "tt.unsplat" => {
                let a = tensor(0)?;
                one(Tensor::new(a.elem, Vec::new(), a.data.gather(0..1)))
            }
            "tt.broadcast" => {
                let a = tensor(0)?;
                one(broadcast(&a, &result_shape))
            }
            // TTGIR: layouts and shared memory do not change values; a memory descriptor made
            // from a tensor is that tensor.
            "ttg.local_alloc" => {
                let TypeKind::MemDesc(num, shape) = result_kind(op)? else {
                    return Err(fail(op, "result is not a memory descriptor"));
                };
                let n: usize = shape.iter().product();
                let data = match operands.first() {
                    Some(_) => tensor(0)?.data.clone(),
                    None => Data::zeros(num.is_float(), n),
                };
                Ok(vec![Val::Shared(Rc::new(SharedView {
                    buffer: Rc::new(std::cell::RefCell::new(data)),
                    elem: Elem::Num(num),
                    shape,
                    index: (0..n).collect(),
                }))])
            }
            "ttg.local_load" => one(view(0)?.read()),
            "ttg.local_store" => {
                view(1)?.write(&*tensor(0)?, None);
                Ok(Vec::new())
            }
            "ttg.memdesc_index"
            | "ttg.memdesc_subslice"
            | "ttg.memdesc_trans"
            | "ttg.memdesc_reshape" => {
                let src = view(0)?;
                let TypeKind::MemDesc(_, shape) = result_kind(op)? else {
                    return Err(fail(op, "result is not a memory descriptor"));
                };
                let index = sub_view(op, name, &src, &shape, &arg)?;
                Ok(vec![Val::Shared(Rc::new(SharedView {
                    buffer: src.buffer.clone(),
                    elem: src.elem,
                    shape,
                    index,
                }))])
            }
            "ttg.async_copy_global_to_local" => {
                // Operands: pointers, destination, then mask and other when present; the copy
                // completes at once (waits are no-ops).
                let dst = view(1)?;
                let mut load_operands = vec![operands[0]];
                load_operands.extend(operands.iter().skip(2));
                let loaded = self.load_pointers(op, &load_operands, env, dst.elem)?;
                dst.write(&loaded, None);
                Ok(vec![Val::Token])
            }
            "ttg.async_commit_group" | "ttg.async_wait" => Ok(vec![Val::Token]),
            "ttng.warp_group_dot_wait" => (0..operands.len()).map(arg).collect(),
            "ttg.local_dealloc" | "ttng.fence_async_shared" => Ok(Vec::new()),
            "ttng.warp_group_dot" => {
                let c = tensor(2)?;
                // useC = false: the accumulator starts at zero.
                let use_c = match operands.get(3) {
                    Some(_) => scalar_int(op, &arg(3)?)? != 0,
                    None => true,
                };
                let c = if use_c {
                    c
                } else {
                    Rc::new(Tensor::new(
                        c.elem,
                        c.shape.clone(),
                        Data::zeros(c.elem.is_float(), c.numel()),
                    ))
                };
                one(dot(op, &*tensor(0)?, &*tensor(1)?, &c)?)
            }

            "tt.expand_dims" | "tt.reshape" | "ttg.convert_layout" => {
                let a = tensor(0)?;
                one(Tensor::new(a.elem, result_shape.clone(), a.data.clone()))
            }
            "tt.trans" => {
                let a = tensor(0)?;
                let order = ir::i32_array_attr(op, "order").unwrap_or_default();
                one(transpose(&a, &order))
            }
            "tt.cat" => {
                let (a, b) = (tensor(0)?, tensor(1)?);
                let data = match (&a.data, &b.data) {
                    (Data::I(x), Data::I(y)) => Data::I([x.as_slice(), y].concat()),
                    (Data::F(x), Data::F(y)) => Data::F([x.as_slice(), y].concat()),
                    _ => return Err(fail(op, "operands of different kinds")),
                };
                one(Tensor::new(a.elem, result_shape.clone(), data))
            }
            "tt.join" => {
                let (a, b) = (tensor(0)?, tensor(1)?);
                let n = a.numel();
                let index = (0..2 * n).map(|i| if i % 2 == 0 { i / 2 } else { n + i / 2 });
                let both = match (&a.data, &b.data) {
                    (Data::I(x), Data::I(y)) => Data::I([x.as_slice(), y].concat()),
                    (Data::F(x), Data::F(y)) => Data::F([x.as_slice(), y].concat()),
                    _ => return Err(fail(op, "operands of different kinds")),
                };
                one(Tensor::new(
                    a.elem,
                    result_shape.clone(),
                    both.gather(index),
                ))
            }
            "tt.split" => {
                let a = tensor(0)?;
                let n = a.numel() / 2;
                let half = |k: usize| {
                    Val::tensor(Tensor::new(
                        a.elem,
                        result_shape.clone(),
                        a.data.gather((0..n).map(|i| 2 * i + k)),
                    ))
                };
                Ok(vec![half(0), half(1)])
            }
            "tt.gather" => {
                let (src, idx) = (tensor(0)?, tensor(1)?);
                let axis = ir::int_attr(op, "axis").unwrap_or(0) as usize;
                one(gather(op, &src, &idx, axis)?)
            }
            "tt.histogram" => {
                let src = tensor(0)?;
                let mask = operands.get(1).map(|_| tensor(1)).transpose()?;
                let bins = result_shape.first().copied().unwrap_or(0);
                let mut counts = vec![0i64; bins];
                for (i, &v) in src.ints().unwrap_or_default().iter().enumerate() {
                    let on = mask
                        .as_ref()
                        .is_none_or(|m| m.ints().is_some_and(|m| m[i] != 0));
                    if on && v >= 0 && (v as usize) < bins {
                        counts[v as usize] += 1;
                    }
                }
                let elem = result_elem.ok_or_else(|| fail(op, "bad result type"))?;
                let w = elem.int_width().unwrap_or(32);
                one(Tensor::new(
                    elem,
                    vec![bins],
                    Data::I(counts.into_iter().map(|c| wrap(w, c)).collect()),
                ))
            }

            // ---- reductions ----
            "tt.reduce" => self.reduce(op, &operands, env),
            "tt.map_elementwise" => self.map_elementwise(op, &operands, env),
            "tt.scan" => self.scan(op, &operands, env),
            "tt.dot" => one(dot(op, &*tensor(0)?, &*tensor(1)?, &*tensor(2)?)?),

            // ---- memory ----
            "tt.addptr" => {
                let (p, off) = (tensor(0)?, tensor(1)?);
                let Elem::Ptr(pointee) = p.elem else {
                    return Err(fail(op, "operand 0 is not a pointer"));
                };
                let size = pointee.bytes() as i64;
                let mut t =
                    int_binary(op, &p, &off, |a, b, _| a.wrapping_add(b.wrapping_mul(size)))?;
                t.elem = p.elem;
                one(t)
            }
            "tt.load" => self.load(op, &operands, env),
            "tt.store" => self.store(op, &operands, env).map(|()| Vec::new()),
            "tt.atomic_rmw" => one(self.atomic_rmw(op, &operands, env)?),
            "tt.atomic_cas" => one(self.atomic_cas(op, &operands, env)?),
            "tt.make_tensor_ptr" => {
                let TypeKind::BlockPtr(pointee, block) = result_kind(op)? else {
                    return Err(fail(op, "result is not a block pointer"));
                };
                let base = scalar_int(op, &arg(0)?)? as u64;
                let rank = block.len();
                let ints = |from: usize| -> R<Vec<i64>> {
                    (from..from + rank)
                        .map(|i| scalar_int(op, &arg(i)?))
                        .collect()
                };
                Ok(vec![Val::Block(Rc::new(BlockPtr {
                    base,
                    pointee,
                    shape: ints(1)?,
                    strides: ints(1 + rank)?,
                    offsets: ints(1 + 2 * rank)?,
                    block,
                }))])
            }
            "tt.advance" => {
                let Val::Block(p) = arg(0)? else {
                    return Err(fail(op, "operand 0 is not a block pointer"));
                };
                let mut moved = (*p).clone();
                for (d, offset) in moved.offsets.iter_mut().enumerate() {
                    *offset = wrap(32, *offset + scalar_int(op, &arg(1 + d)?)?);
                }
                Ok(vec![Val::Block(Rc::new(moved))])
            }
            "tt.make_tensor_descriptor" => {
                let TypeKind::Desc(pointee, block) = result_kind(op)? else {
                    return Err(fail(op, "result is not a tensor descriptor"));
                };
                let base = scalar_int(op, &arg(0)?)? as u64;
                let rank = block.len();
                let ints = |from: usize| -> R<Vec<i64>> {
                    (from..from + rank)
                        .map(|i| scalar_int(op, &arg(i)?))
                        .collect()
                };
                Ok(vec![Val::Desc(Rc::new(TensorDesc {
                    base,
                    pointee,
                    shape: ints(1)?,
                    strides: ints(1 + rank)?,
                    block,
                    pad_nan: ir::int_attr(op, "padding") == Some(2),
                }))])
            }
            "tt.descriptor_load" => one(self.descriptor_load(op, &operands, env)?),
            // ---- TMA (the copies complete at once; barriers and fences do nothing) ----
            "ttg.global_scratch_alloc" => {
                let bytes = ir::int_attr(op, "nbytes").unwrap_or(0).max(0) as usize;
                let addr = self.mem.add(crate::memory::Buffer {
                    name: "global scratch".into(),
                    bytes: vec![0; bytes],
                });
                let elem = result_elem.ok_or_else(|| fail(op, "bad result type"))?;
                one(Tensor::scalar_int(elem, addr as i64))
            }
            "ttng.tensormap_create" => {
                let segments = ir::i32_array_attr(op, "operandSegmentSizes").unwrap_or_default();
                let rank = segments.get(2).copied().unwrap_or(0).max(0) as usize;
                if segments.len() != 6 || operands.len() != 1 + 4 * rank {
                    return Err(fail(op, "bad operand segments"));
                }
                let at = scalar_int(op, &arg(0)?)? as u64;
                let base = scalar_int(op, &arg(1)?)? as u64;
                let ints = |from: usize, n: usize| -> R<Vec<i64>> {
                    (from..from + n).map(|i| scalar_int(op, &arg(i)?)).collect()
                };
                // Innermost first in the op, outermost first in a descriptor; strides in bytes.
                let mut shape = ints(2 + rank, rank)?;
                shape.reverse();
                let mut strides = ints(2 + 2 * rank, rank - 1)?;
                strides.reverse();
                self.tensormaps.insert(
                    at,
                    TensorDesc {
                        base,
                        pointee: Num::Int(8),
                        shape,
                        strides,
                        block: Vec::new(),
                        pad_nan: ir::int_attr(op, "fill_mode") == Some(1),
                    },
                );
                Ok(Vec::new())
            }
            "ttng.reinterpret_tensor_descriptor" => {
                let TypeKind::Desc(pointee, block) = result_kind(op)? else {
                    return Err(fail(op, "result is not a tensor descriptor"));
                };
                let at = scalar_int(op, &arg(0)?)? as u64;
                let Some(written) = self.tensormaps.get(&at) else {
                    return Err(fail(
                        op,
                        "no ttng.tensormap_create wrote a descriptor there",
                    ));
                };
                let size = pointee.bytes() as i64;
                let mut strides: Vec<i64> = written.strides.iter().map(|s| s / size).collect();
                strides.push(1);
                Ok(vec![Val::Desc(Rc::new(TensorDesc {
                    pointee,
                    strides,
                    block,
                    ..written.clone()
                }))])
            }
            "ttng.async_tma_copy_global_to_local" => {
                // desc, coord..., barrier, result, pred
                let n = operands.len();
                if n < 4 {
                    return Err(fail(op, "missing operands"));
                }
                if scalar_int(op, &arg(n - 1)?)? != 0 {
                    let dst = view(n - 2)?;
                    let loaded = self.descriptor_read(
                        op,
                        &operands[..n - 3],
                        env,
                        dst.elem,
                        dst.shape.clone(),
                    )?;
                    dst.write(&loaded, None);
                }
                Ok(Vec::new())
            }
            "ttng.async_tma_copy_local_to_global" | "ttng.async_tma_reduce" => {
                let n = operands.len();
                let value = view(n - 1)?.read();
                let kind = if name == "ttng.async_tma_reduce" {
                    ir::int_attr(op, "kind").unwrap_or(0)
                } else {
                    0
                };
                self.descriptor_write(op, &operands[..n - 1], &value, kind, env)?;
                Ok(Vec::new())
            }
            "ttng.init_barrier"
            | "ttng.inval_barrier"
            | "ttng.barrier_expect"
            | "ttng.arrive_barrier"
            | "ttng.wait_barrier"
            | "ttng.async_tma_store_wait"
            | "ttng.tensormap_fenceproxy_acquire" => Ok(Vec::new()),
            "tt.descriptor_gather" | "tt.descriptor_scatter" => {
                self.descriptor_rows(op, name, &operands, env)
            }
            "tt.descriptor_store" | "tt.descriptor_reduce" => self
                .descriptor_store(op, name, &operands, env)
                .map(|()| Vec::new()),

            // ---- control flow ----
            "scf.for" => self.scf_for(op, &operands, env),
            "scf.while" => self.scf_while(op, &operands, env),
            "scf.if" => {
                let c = scalar_int(op, &arg(0)?)?;
                let region = if c != 0 { 0 } else { 1 };
                self.run_region(op, region, Vec::new(), env)
            }
            "scf.execute_region" => self.run_region(op, 0, Vec::new(), env),
            "tt.call" => {
                let callee = ir::symbol_ref_attr(op, "callee")
                    .ok_or_else(|| fail(op, "no callee attribute"))?;
                let func = *self
                    .funcs
                    .get(&callee)
                    .ok_or_else(|| fail(op, format!("no function @{callee}")))?;
                let args = (0..operands.len()).map(arg).collect::<R<Vec<_>>>()?;
                self.call(func, args)
            }

            // ---- debugging ----
            "tt.print" => {
                let prefix = ir::string_attr(op, "prefix").unwrap_or_default();
                let mut line = format!(
                    "pid ({}, {}, {}){prefix}",
                    self.pid[0], self.pid[1], self.pid[2]
                );
                for i in 0..operands.len() {
                    line.push(' ');
                    line.push_str(&show(&*tensor(i)?));
                }
                self.printed.push(line);
                Ok(Vec::new())
            }
            "tt.assert" => {
                let c = tensor(0)?;
                if c.ints().is_some_and(|v| v.contains(&0)) {
                    let message = ir::string_attr(op, "message").unwrap_or_default();
                    return Err(fail(
                        op,
                        format!(
                            "device assertion failed in program ({}, {}, {}): {message}",
                            self.pid[0], self.pid[1], self.pid[2]
                        ),
                    ));
                }
                Ok(Vec::new())
            }
            _ => Err(fail(op, "the interpreter does not support this op")),
        }
    }

    // ---- structured control flow ----

    fn scf_for(&mut self, op: MlirOperation, operands: &[MlirValue], env: &mut Env) -> R<Vec<Val>> {
        let lower = get(env, op, operands[0])?;
        let upper = scalar_int(op, &get(env, op, operands[1])?)?;
        let step = scalar_int(op, &get(env, op, operands[2])?)?;
        let mut carried = operands[3..]
            .iter()
            .map(|v| get(env, op, *v))
            .collect::<R<Vec<_>>>()?;
        let Val::T(lower) = lower else {
            return Err(fail(op, "bad lower bound"));
        };
        let elem = lower.elem;
        let width = elem.int_width().unwrap_or(64);
        let unsigned_cmp = ir::has_attr(op, "unsignedCmp");
        let mut iv = scalar_int(op, &Val::T(lower))?;
        if step <= 0 {
            return Err(fail(op, format!("step {step} is not positive")));
        }
        loop {
            let more = if unsigned_cmp {
                unsigned(width, iv) < unsigned(width, upper)
            } else {
                iv < upper
            };
            if !more {
                break;
            }
            let mut args = vec![Val::tensor(Tensor::scalar_int(elem, iv))];
            args.extend(carried);
            carried = self.run_region(op, 0, args, env)?;
            let next = iv.wrapping_add(step);
            // The induction variable stops where it would wrap around its type.
            if wrap(width, next) != next || (!unsigned_cmp && next < iv) {
                break;
            }
            iv = next;
        }
        Ok(carried)
    }

    fn scf_while(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<Vec<Val>> {
        let mut args = operands
            .iter()
            .map(|v| get(env, op, *v))
            .collect::<R<Vec<_>>>()?;
        loop {
            let mut condition = self.run_region(op, 0, args, env)?;
            if condition.is_empty() {
                return Err(fail(op, "the before region has no scf.condition"));
            }
            let go = scalar_int(op, &condition.remove(0))?;
            if go == 0 {
                return Ok(condition);
            }
            args = self.run_region(op, 1, condition, env)?;
        }
    }

    // ---- reductions ----

    fn combine(
        &mut self,
        op: MlirOperation,
        left: &[Tensor],
        right: &[Tensor],
        env: &mut Env,
    ) -> R<Vec<Tensor>> {
        let args = left
            .iter()
            .chain(right)
            .map(|t| Val::tensor(t.clone()))
            .collect();
        let out = self.run_region(op, 0, args, env)?;
        out.into_iter()
            .map(|v| match v {
                Val::T(t) => Ok(Rc::unwrap_or_clone(t)),
                _ => Err(fail(op, "the combine region returns a non-tensor")),
            })
            .collect()
    }

    fn reduce(&mut self, op: MlirOperation, operands: &[MlirValue], env: &mut Env) -> R<Vec<Val>> {
        let inputs = operands
            .iter()
            .map(|v| tensor_of(op, get(env, op, *v)?))
            .collect::<R<Vec<_>>>()?;
        let axis = ir::int_attr(op, "axis").unwrap_or(0) as usize;
        let first = inputs.first().ok_or_else(|| fail(op, "no operands"))?;
        if axis >= first.shape.len() {
            return Err(fail(op, format!("axis {axis} out of range")));
        }
        let n = first.shape[axis];
        let out_shape: Vec<usize> = first
            .shape
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != axis)
            .map(|(_, &s)| s)
            .collect();
        // Slices k = 0..n along the axis, each a block of the result's shape.
        let mut slices: Vec<Vec<Tensor>> = (0..n)
            .map(|k| inputs.iter().map(|t| slice(t, axis, k)).collect())
            .collect();
        // A tree of combines, earlier elements on the left: each level combines all its pairs
        // in one run of the region, as blocks of all the pairs side by side.
        while slices.len() > 1 {
            let pairs = slices.len() / 2;
            let odd = (slices.len() % 2 == 1).then(|| slices.pop()).flatten();
            let (lefts, rights): (Vec<_>, Vec<_>) = slices
                .chunks(2)
                .map(|pair| (pair[0].clone(), pair[1].clone()))
                .unzip();
            let left = stack(&lefts, inputs.len());
            let right = stack(&rights, inputs.len());
            let combined = self.combine(op, &left, &right, env)?;
            let mut next = unstack(&combined, pairs, &out_shape);
            next.extend(odd);
            slices = next;
        }
        let result = slices.pop().unwrap_or_default();
        Ok(result
            .into_iter()
            .map(|mut t| {
                t.shape = out_shape.clone();
                Val::tensor(t)
            })
            .collect())
    }

    /// `tt.map_elementwise`: the region takes `pack` consecutive elements of each source (source
    /// by source) and gives `pack` elements of each result; it runs once per position in the
    /// pack, on blocks of every `pack`-th element.
    fn map_elementwise(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<Vec<Val>> {
        let inputs = operands
            .iter()
            .map(|v| tensor_of(op, get(env, op, *v)?))
            .collect::<R<Vec<_>>>()?;
        let pack = ir::int_attr(op, "pack").unwrap_or(1).max(1) as usize;
        let first = inputs.first().ok_or_else(|| fail(op, "no operands"))?;
        let n = first.numel();
        if n % pack != 0 {
            return Err(fail(
                op,
                format!("{n} elements are not a multiple of pack {pack}"),
            ));
        }
        let groups = n / pack;
        let part = |t: &Tensor, k: usize| {
            Val::tensor(Tensor::new(
                t.elem,
                vec![groups],
                t.data.gather((0..groups).map(|g| g * pack + k)),
            ))
        };
        let args = inputs
            .iter()
            .flat_map(|t| (0..pack).map(move |k| part(t, k)))
            .collect();
        let parts = self.run_region(op, 0, args, env)?;
        let results = ir::results(op);
        if parts.len() != results.len() * pack {
            return Err(fail(op, "the region returns the wrong number of values"));
        }
        let mut out = Vec::new();
        for (r, result) in results.iter().enumerate() {
            let Some(TypeKind::Block(elem, shape)) = ir::type_kind(ir::value_type(*result)) else {
                return Err(fail(op, "unsupported result type"));
            };
            let pieces = parts[r * pack..(r + 1) * pack]
                .iter()
                .map(|v| tensor_of(op, v.clone()))
                .collect::<R<Vec<_>>>()?;
            let data = (0..n).map(|i| (i % pack, i / pack));
            let values = match &pieces[0].data {
                Data::I(_) => Data::I(
                    data.map(|(k, g)| pieces[k].ints().map_or(0, |v| v[pick(v.len(), g)]))
                        .collect(),
                ),
                Data::F(_) => Data::F(
                    data.map(|(k, g)| pieces[k].floats().map_or(0.0, |v| v[pick(v.len(), g)]))
                        .collect(),
                ),
            };
            out.push(Val::tensor(Tensor::new(elem, shape, values)));
        }
        Ok(out)
    }

    fn scan(&mut self, op: MlirOperation, operands: &[MlirValue], env: &mut Env) -> R<Vec<Val>> {
        let inputs = operands
            .iter()
            .map(|v| tensor_of(op, get(env, op, *v)?))
            .collect::<R<Vec<_>>>()?;
        let axis = ir::int_attr(op, "axis").unwrap_or(0) as usize;
        let reverse = ir::bool_attr(op, "reverse").unwrap_or(false);
        let first = inputs.first().ok_or_else(|| fail(op, "no operands"))?;
        if axis >= first.shape.len() {
            return Err(fail(op, format!("axis {axis} out of range")));
        }
        let n = first.shape[axis];
        let order: Vec<usize> = if reverse {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        };
        let mut outputs: Vec<Tensor> = inputs.iter().map(|t| (**t).clone()).collect();
        let mut acc: Option<Vec<Tensor>> = None;
        for k in order {
            let current: Vec<Tensor> = inputs.iter().map(|t| slice(t, axis, k)).collect();
            let next = match acc {
                None => current,
                Some(previous) => self.combine(op, &previous, &current, env)?,
            };
            for (out, value) in outputs.iter_mut().zip(&next) {
                write_slice(out, axis, k, value);
            }
            acc = Some(next);
        }
        Ok(outputs.into_iter().map(Val::tensor).collect())
    }

    // ---- memory ----

    fn access_error(
        &self,
        op: MlirOperation,
        fault: crate::memory::Fault,
        element: usize,
    ) -> InterpError {
        let addr = match &fault {
            crate::memory::Fault::OutOfBounds { addr, .. }
            | crate::memory::Fault::Unaligned { addr, .. } => *addr,
        };
        fail(
            op,
            format!(
                "{fault} ({}), element {element} of program ({}, {}, {})",
                self.mem.whereabouts(addr),
                self.pid[0],
                self.pid[1],
                self.pid[2]
            ),
        )
    }

    fn load(&mut self, op: MlirOperation, operands: &[MlirValue], env: &mut Env) -> R<Vec<Val>> {
        let ptr = get(env, op, operands[0])?;
        if let Val::Block(block) = &ptr {
            let boundary = ir::i32_array_attr(op, "boundaryCheck").unwrap_or_default();
            let pad_nan = ir::int_attr(op, "padding") == Some(2);
            return Ok(vec![Val::tensor(
                self.block_load(op, block, &boundary, pad_nan)?,
            )]);
        }
        let (elem, _) = result_block(op, 0);
        let elem = elem.ok_or_else(|| fail(op, "bad result type"))?;
        Ok(vec![Val::tensor(
            self.load_pointers(op, operands, env, elem)?,
        )])
    }

    /// A load through a block of pointers (`operands`: pointers, then mask and other when
    /// present) of elements of type `elem`.
    fn load_pointers(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
        elem: Elem,
    ) -> R<Tensor> {
        let ptr = tensor_of(op, get(env, op, operands[0])?)?;
        let (mask, other) = mask_and_other(op, operands, env)?;
        let num = elem.storage();
        let addrs = ptr
            .ints()
            .ok_or_else(|| fail(op, "pointer operand is not a pointer"))?;
        let n = addrs.len();
        let mut bits = Vec::with_capacity(n);
        let mut on = Vec::with_capacity(n);
        for (i, &addr) in addrs.iter().enumerate() {
            let enabled = mask.as_ref().is_none_or(|m| m[pick(m.len(), i)] != 0);
            on.push(enabled);
            bits.push(if enabled {
                self.mem
                    .read_bits(addr as u64, num)
                    .map_err(|f| self.access_error(op, f, i))?
            } else {
                0
            });
        }
        let data = decode_all(num, elem, &bits);
        let data = match other {
            Some(other) => merge(&on, data, &other.data),
            None => data,
        };
        Ok(Tensor::new(elem, ptr.shape.clone(), data))
    }

    fn store(&mut self, op: MlirOperation, operands: &[MlirValue], env: &mut Env) -> R<()> {
        let ptr = get(env, op, operands[0])?;
        let value = tensor_of(op, get(env, op, operands[1])?)?;
        if let Val::Block(block) = &ptr {
            let boundary = ir::i32_array_attr(op, "boundaryCheck").unwrap_or_default();
            return self.block_store(op, block, &boundary, &value);
        }
        let ptr = tensor_of(op, ptr)?;
        let mask = match operands.get(2) {
            Some(m) => Some(
                tensor_of(op, get(env, op, *m)?)?
                    .ints()
                    .map(<[i64]>::to_vec)
                    .ok_or_else(|| fail(op, "mask is not i1"))?,
            ),
            None => None,
        };
        let num = value.elem.storage();
        let addrs = ptr
            .ints()
            .ok_or_else(|| fail(op, "pointer operand is not a pointer"))?;
        for (i, &addr) in addrs.iter().enumerate() {
            if mask.as_ref().is_some_and(|m| m[pick(m.len(), i)] == 0) {
                continue;
            }
            let bits = element_bits(&value, pick(value.numel(), i));
            self.mem
                .write_bits(addr as u64, num, bits)
                .map_err(|f| self.access_error(op, f, i))?;
            let writer = self.writer(op, i);
            if let Some(what) = self.mem.writes.store(addr as u64, bits, writer) {
                self.mem.note_run_specific(addr as u64, what);
            }
        }
        Ok(())
    }

    /// The address of each element of a block pointer's block and whether it is in bounds of
    /// the dims in `checked` (all dims: `None`).
    fn block_addresses(
        block: &BlockPtr,
        offsets: &[i64],
        checked: Option<&[i64]>,
    ) -> Vec<(u64, bool)> {
        let n: usize = block.block.iter().product();
        let rank = block.block.len();
        let size = block.pointee.bytes() as i64;
        (0..n)
            .map(|flat| {
                let mut rest = flat;
                let mut addr = block.base as i64;
                let mut inside = true;
                for d in (0..rank).rev() {
                    let i = (rest % block.block[d]) as i64;
                    rest /= block.block[d];
                    let c = offsets[d] + i;
                    let is_checked = checked.is_none_or(|dims| dims.contains(&(d as i64)));
                    if is_checked && (c < 0 || c >= block.shape[d]) {
                        inside = false;
                    }
                    addr = addr.wrapping_add(c.wrapping_mul(block.strides[d]).wrapping_mul(size));
                }
                (addr as u64, inside)
            })
            .collect()
    }

    fn block_load(
        &mut self,
        op: MlirOperation,
        block: &BlockPtr,
        boundary: &[i64],
        pad_nan: bool,
    ) -> R<Tensor> {
        let num = block.pointee;
        let elem = Elem::Num(num);
        let mut bits = Vec::new();
        let mut on = Vec::new();
        for (i, (addr, inside)) in Self::block_addresses(block, &block.offsets, Some(boundary))
            .into_iter()
            .enumerate()
        {
            on.push(inside);
            bits.push(if inside {
                self.mem
                    .read_bits(addr, num)
                    .map_err(|f| self.access_error(op, f, i))?
            } else {
                0
            });
        }
        let data = decode_all(num, elem, &bits);
        let pad = if pad_nan && num.is_float() {
            Data::F(vec![f64::NAN])
        } else {
            Data::zeros(num.is_float(), 1)
        };
        Ok(Tensor::new(
            elem,
            block.block.clone(),
            merge(&on, data, &pad),
        ))
    }

    fn block_store(
        &mut self,
        op: MlirOperation,
        block: &BlockPtr,
        boundary: &[i64],
        value: &Tensor,
    ) -> R<()> {
        let num = block.pointee;
        for (i, (addr, inside)) in Self::block_addresses(block, &block.offsets, Some(boundary))
            .into_iter()
            .enumerate()
        {
            if inside {
                let bits = element_bits(value, i);
                self.mem
                    .write_bits(addr, num, bits)
                    .map_err(|f| self.access_error(op, f, i))?;
                let writer = self.writer(op, i);
                if let Some(what) = self.mem.writes.store(addr, bits, writer) {
                    self.mem.note_run_specific(addr, what);
                }
            }
        }
        Ok(())
    }

    fn descriptor_view(
        op: MlirOperation,
        desc: &TensorDesc,
        indices: &[i64],
    ) -> R<Vec<(u64, bool)>> {
        if indices.len() != desc.block.len() {
            return Err(fail(op, "index count does not match the descriptor's rank"));
        }
        let view = BlockPtr {
            base: desc.base,
            pointee: desc.pointee,
            shape: desc.shape.clone(),
            strides: desc.strides.clone(),
            offsets: indices.to_vec(),
            block: desc.block.clone(),
        };
        Ok(Self::block_addresses(&view, indices, None))
    }

    fn descriptor_load(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<Tensor> {
        let (elem, shape) = result_block(op, 0);
        let Val::Desc(desc) = get(env, op, operands[0])? else {
            return Err(fail(op, "operand 0 is not a tensor descriptor"));
        };
        let elem = elem.unwrap_or(Elem::Num(desc.pointee));
        self.descriptor_read(op, operands, env, elem, shape)
    }

    /// The block of descriptor `operands[0]` at indices `operands[1..]`, out-of-bounds elements
    /// zero (or NaN).
    fn descriptor_read(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
        elem: Elem,
        shape: Vec<usize>,
    ) -> R<Tensor> {
        let Val::Desc(desc) = get(env, op, operands[0])? else {
            return Err(fail(op, "operand 0 is not a tensor descriptor"));
        };
        let indices = operands[1..]
            .iter()
            .map(|v| scalar_int(op, &get(env, op, *v)?))
            .collect::<R<Vec<_>>>()?;
        let num = desc.pointee;
        let mut bits = Vec::new();
        let mut on = Vec::new();
        for (i, (addr, inside)) in Self::descriptor_view(op, &desc, &indices)?
            .into_iter()
            .enumerate()
        {
            on.push(inside);
            bits.push(if inside {
                self.mem
                    .read_bits(addr, num)
                    .map_err(|f| self.access_error(op, f, i))?
            } else {
                0
            });
        }
        let pad = if desc.pad_nan && num.is_float() {
            Data::F(vec![f64::NAN])
        } else {
            Data::zeros(num.is_float(), 1)
        };
        let data = merge(&on, decode_all(num, elem, &bits), &pad);
        Ok(Tensor::new(elem, shape, data))
    }

    /// `tt.descriptor_gather` / `tt.descriptor_scatter`: rows `x_offsets` of a 2-D descriptor,
    /// columns from `y_offset`, out-of-bounds elements zero (gather) or dropped (scatter).
    fn descriptor_rows(
        &mut self,
        op: MlirOperation,
        name: &str,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<Vec<Val>> {
        let Val::Desc(desc) = get(env, op, operands[0])? else {
            return Err(fail(op, "operand 0 is not a tensor descriptor"));
        };
        if desc.shape.len() != 2 {
            return Err(fail(op, "the descriptor is not 2-D"));
        }
        let rows = tensor_of(op, get(env, op, operands[1])?)?;
        let rows = rows
            .ints()
            .ok_or_else(|| fail(op, "x_offsets are not integers"))?;
        let column = scalar_int(op, &get(env, op, operands[2])?)?;
        let num = desc.pointee;
        let scatter = name == "tt.descriptor_scatter";
        let (width, values) = if scatter {
            let src = tensor_of(op, get(env, op, operands[3])?)?;
            (src.shape.get(1).copied().unwrap_or(1), Some(src))
        } else {
            (result_block(op, 0).1.get(1).copied().unwrap_or(1), None)
        };
        let size = num.bytes() as i64;
        let mut bits = Vec::new();
        let mut on = Vec::new();
        for (r, &row) in rows.iter().enumerate() {
            for j in 0..width {
                let i = r * width + j;
                let c = column + j as i64;
                let inside = (0..desc.shape[0]).contains(&row) && (0..desc.shape[1]).contains(&c);
                let addr = (desc.base as i64)
                    .wrapping_add((row * desc.strides[0] + c * desc.strides[1]).wrapping_mul(size))
                    as u64;
                on.push(inside);
                match &values {
                    Some(src) if inside => self
                        .mem
                        .write_bits(addr, num, element_bits(src, i))
                        .map_err(|f| self.access_error(op, f, i))?,
                    None if inside => bits.push(
                        self.mem
                            .read_bits(addr, num)
                            .map_err(|f| self.access_error(op, f, i))?,
                    ),
                    _ => bits.push(0),
                }
            }
        }
        if scatter {
            return Ok(Vec::new());
        }
        let (elem, shape) = result_block(op, 0);
        let elem = elem.unwrap_or(Elem::Num(num));
        let data = merge(
            &on,
            decode_all(num, elem, &bits),
            &Data::zeros(num.is_float(), 1),
        );
        Ok(vec![Val::tensor(Tensor::new(elem, shape, data))])
    }

    fn descriptor_store(
        &mut self,
        op: MlirOperation,
        name: &str,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<()> {
        let value = tensor_of(op, get(env, op, operands[1])?)?;
        let kind = if name == "tt.descriptor_reduce" {
            ir::int_attr(op, "kind").unwrap_or(0)
        } else {
            0
        };
        let mut desc_and_indices = vec![operands[0]];
        desc_and_indices.extend_from_slice(&operands[2..]);
        self.descriptor_write(op, &desc_and_indices, &value, kind, env)
    }

    /// Stores (`kind` 0) or reduces `value` into the block of descriptor `operands[0]` at
    /// indices `operands[1..]`; out-of-bounds elements are dropped.
    fn descriptor_write(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        value: &Tensor,
        kind: i64,
        env: &mut Env,
    ) -> R<()> {
        let Val::Desc(desc) = get(env, op, operands[0])? else {
            return Err(fail(op, "operand 0 is not a tensor descriptor"));
        };
        let indices = operands[1..]
            .iter()
            .map(|v| scalar_int(op, &get(env, op, *v)?))
            .collect::<R<Vec<_>>>()?;
        let num = desc.pointee;
        for (i, (addr, inside)) in Self::descriptor_view(op, &desc, &indices)?
            .into_iter()
            .enumerate()
        {
            if !inside {
                continue;
            }
            let new = element_bits(value, i);
            let bits = if kind == 0 {
                new
            } else {
                let old = self
                    .mem
                    .read_bits(addr, num)
                    .map_err(|f| self.access_error(op, f, i))?;
                reduce_bits(op, num, kind, old, new)?
            };
            self.mem
                .write_bits(addr, num, bits)
                .map_err(|f| self.access_error(op, f, i))?;
        }
        Ok(())
    }

    fn atomic_rmw(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<Tensor> {
        let ptr = tensor_of(op, get(env, op, operands[0])?)?;
        let value = tensor_of(op, get(env, op, operands[1])?)?;
        let mask = match operands.get(2) {
            Some(m) => Some(tensor_of(op, get(env, op, *m)?)?),
            None => None,
        };
        let used = Self::result_used(op);
        let kind = ir::int_attr(op, "atomic_rmw_op").unwrap_or(0);
        let num = value.elem.storage();
        let addrs = ptr
            .ints()
            .ok_or_else(|| fail(op, "pointer operand is not a pointer"))?;
        let mut old_bits = Vec::with_capacity(addrs.len());
        for (i, &addr) in addrs.iter().enumerate() {
            let enabled = mask
                .as_ref()
                .is_none_or(|m| m.ints().is_some_and(|m| m[pick(m.len(), i)] != 0));
            if !enabled {
                old_bits.push(0);
                continue;
            }
            let addr = addr as u64;
            let old = self
                .mem
                .read_bits(addr, num)
                .map_err(|f| self.access_error(op, f, i))?;
            let new = element_bits(&value, pick(value.numel(), i));
            let result = rmw_bits(op, num, kind, old, new)?;
            self.mem
                .write_bits(addr, num, result)
                .map_err(|f| self.access_error(op, f, i))?;
            let writer = self.writer(op, i);
            let ordered = kind == ATOMIC_EXCH;
            if let Some(what) = self.mem.writes.atomic(addr, writer, used, ordered) {
                self.mem.note_run_specific(addr, what);
            }
            old_bits.push(old);
        }
        Ok(Tensor::new(
            value.elem,
            ptr.shape.clone(),
            decode_all(num, value.elem, &old_bits),
        ))
    }

    fn atomic_cas(
        &mut self,
        op: MlirOperation,
        operands: &[MlirValue],
        env: &mut Env,
    ) -> R<Tensor> {
        let ptr = tensor_of(op, get(env, op, operands[0])?)?;
        let cmp = tensor_of(op, get(env, op, operands[1])?)?;
        let value = tensor_of(op, get(env, op, operands[2])?)?;
        let used = Self::result_used(op);
        let num = value.elem.storage();
        let addrs = ptr
            .ints()
            .ok_or_else(|| fail(op, "pointer operand is not a pointer"))?;
        let mut old_bits = Vec::with_capacity(addrs.len());
        for (i, &addr) in addrs.iter().enumerate() {
            let addr = addr as u64;
            let old = self
                .mem
                .read_bits(addr, num)
                .map_err(|f| self.access_error(op, f, i))?;
            let writer = self.writer(op, i);
            if let Some(what) = self.mem.writes.atomic(addr, writer, used, true) {
                self.mem.note_run_specific(addr, what);
            }
            if old == element_bits(&cmp, pick(cmp.numel(), i)) {
                let new = element_bits(&value, pick(value.numel(), i));
                self.mem
                    .write_bits(addr, num, new)
                    .map_err(|f| self.access_error(op, f, i))?;
            }
            old_bits.push(old);
        }
        Ok(Tensor::new(
            value.elem,
            ptr.shape.clone(),
            decode_all(num, value.elem, &old_bits),
        ))
    }
}

// ---- helpers ----

/// The buffer indices of the sub-view `name` of `src` whose shape is `shape`.
fn sub_view(
    op: MlirOperation,
    name: &str,
    src: &SharedView,
    shape: &[usize],
    arg: &dyn Fn(usize) -> R<Val>,
) -> R<Vec<usize>> {
    let n: usize = shape.iter().product();
    let rank = src.shape.len();
    match name {
        "ttg.memdesc_index" => {
            let i = scalar_int(op, &arg(1)?)?;
            let count = src.shape.first().copied().unwrap_or(0);
            if i < 0 || i as usize >= count {
                return Err(fail(
                    op,
                    format!("index {i} is out of range for {count} buffers"),
                ));
            }
            let m = src.index.len() / count.max(1);
            Ok(src.index[i as usize * m..(i as usize + 1) * m].to_vec())
        }
        "ttg.memdesc_subslice" => {
            let offsets = ir::i32_array_attr(op, "offsets").unwrap_or_default();
            let mut strides = vec![1usize; rank];
            for d in (0..rank.saturating_sub(1)).rev() {
                strides[d] = strides[d + 1] * src.shape[d + 1];
            }
            let mut out = Vec::with_capacity(n);
            for flat in 0..n {
                let mut rest = flat;
                let mut at = 0;
                for d in (0..rank.min(shape.len())).rev() {
                    let c = rest % shape[d] + offsets.get(d).copied().unwrap_or(0).max(0) as usize;
                    rest /= shape[d];
                    if c >= src.shape[d] {
                        return Err(fail(op, "the subslice is outside its source"));
                    }
                    at += c * strides[d];
                }
                out.push(src.index[at]);
            }
            Ok(out)
        }
        "ttg.memdesc_trans" => {
            let order = ir::i32_array_attr(op, "order").unwrap_or_default();
            let as_tensor = Tensor::new(
                Elem::Num(Num::Int(64)),
                src.shape.clone(),
                Data::I(src.index.iter().map(|&i| i as i64).collect()),
            );
            let moved = transpose(&as_tensor, &order);
            Ok(moved
                .ints()
                .unwrap_or_default()
                .iter()
                .map(|&i| i as usize)
                .collect())
        }
        _ => Ok(src.index.clone()),
    }
}

fn get(env: &Env, op: MlirOperation, value: MlirValue) -> R<Val> {
    env.get(&ir::key(value))
        .cloned()
        .ok_or_else(|| fail(op, "uses a value that was never computed"))
}

fn tensor_of(op: MlirOperation, v: Val) -> R<Rc<Tensor>> {
    match v {
        Val::T(t) => Ok(t),
        Val::Shared(view) => Ok(Rc::new(view.read())),
        _ => Err(fail(op, "expected a tensor or scalar operand")),
    }
}

/// The single integer of a scalar (or one-element) value.
fn scalar_int(op: MlirOperation, v: &Val) -> R<i64> {
    match v {
        Val::T(t) => t
            .ints()
            .and_then(|v| v.first().copied())
            .ok_or_else(|| fail(op, "expected an integer scalar")),
        _ => Err(fail(op, "expected an integer scalar")),
    }
}

/// Index into an operand of `len` elements for element `i` of the result (a one-element operand
/// broadcasts).
fn pick(len: usize, i: usize) -> usize {
    if len == 1 { 0 } else { i }
}

fn result_kind(op: MlirOperation) -> R<TypeKind> {
    let results = ir::results(op);
    let result = results.first().ok_or_else(|| fail(op, "no result"))?;
    let ty = ir::value_type(*result);
    ir::type_kind(ty).ok_or_else(|| fail(op, format!("unsupported type {}", ir::type_text(ty))))
}

/// Element type and shape of result `i`, when it is a block.
fn result_block(op: MlirOperation, i: usize) -> (Option<Elem>, Vec<usize>) {
    match ir::results(op)
        .get(i)
        .and_then(|r| ir::type_kind(ir::value_type(*r)))
    {
        Some(TypeKind::Block(elem, shape)) => (Some(elem), shape),
        _ => (None, Vec::new()),
    }
}

fn out_num(op: MlirOperation, elem: Option<Elem>) -> R<Num> {
    match elem {
        Some(Elem::Num(n)) => Ok(n),
        _ => Err(fail(op, "unsupported result type")),
    }
}

fn broadcast_shape(op: MlirOperation, a: &Tensor, b: &Tensor) -> R<Vec<usize>> {
    if a.shape == b.shape || b.numel() == 1 && b.shape.is_empty() {
        Ok(a.shape.clone())
    } else if a.numel() == 1 && a.shape.is_empty() {
        Ok(b.shape.clone())
    } else {
        Err(fail(
            op,
            format!("operand shapes {:?} and {:?} differ", a.shape, b.shape),
        ))
    }
}

fn int_binary(
    op: MlirOperation,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(i64, i64, u32) -> i64,
) -> R<Tensor> {
    let shape = broadcast_shape(op, a, b)?;
    let (Some(x), Some(y)) = (a.ints(), b.ints()) else {
        return Err(fail(op, "operands are not integers"));
    };
    let width = match a.elem {
        Elem::Num(Num::Int(w)) => w,
        _ => 64,
    };
    let n = x.len().max(y.len());
    let data = (0..n)
        .map(|i| wrap(width, f(x[pick(x.len(), i)], y[pick(y.len(), i)], width)))
        .collect();
    Ok(Tensor::new(a.elem, shape, Data::I(data)))
}

fn float_pair<'a>(
    op: MlirOperation,
    a: &'a Tensor,
    b: &'a Tensor,
) -> R<(&'a [f64], &'a [f64], Vec<usize>)> {
    let shape = broadcast_shape(op, a, b)?;
    match (a.floats(), b.floats()) {
        (Some(x), Some(y)) => Ok((x, y, shape)),
        _ => Err(fail(op, "operands are not floats")),
    }
}

fn float_binary(
    op: MlirOperation,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(f64, f64) -> f64,
) -> R<Tensor> {
    let (x, y, shape) = float_pair(op, a, b)?;
    let Elem::Num(num) = a.elem else {
        return Err(fail(op, "operands are not floats"));
    };
    let n = x.len().max(y.len());
    let data = (0..n)
        .map(|i| round(num, f(x[pick(x.len(), i)], y[pick(y.len(), i)])))
        .collect();
    Ok(Tensor::new(a.elem, shape, Data::F(data)))
}

fn float_unary(op: MlirOperation, a: &Tensor, f: impl Fn(f64) -> f64) -> R<Tensor> {
    let (Some(x), Elem::Num(num)) = (a.floats(), a.elem) else {
        return Err(fail(op, "operand is not a float"));
    };
    let data = x.iter().map(|&v| round(num, f(v))).collect();
    Ok(Tensor::new(a.elem, a.shape.clone(), Data::F(data)))
}

/// IEEE maximum: NaN if either is NaN, and +0 above -0.
fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { b } else { a }
    } else {
        a.max(b)
    }
}

fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { a } else { b }
    } else {
        a.min(b)
    }
}

fn constant(op: MlirOperation) -> R<Tensor> {
    let (elem, shape) = result_block(op, 0);
    let elem = elem.ok_or_else(|| fail(op, "unsupported constant type"))?;
    let attr = ir::attr(op, "value").ok_or_else(|| fail(op, "no value attribute"))?;
    let (values, splat) =
        ir::constant_values(attr).ok_or_else(|| fail(op, "unsupported constant value"))?;
    let n: usize = shape.iter().product();
    let width = elem.int_width().unwrap_or(64);
    let data = if elem.is_float() {
        let Elem::Num(num) = elem else { unreachable!() };
        let floats: Vec<f64> = values
            .iter()
            .map(|v| match v {
                ir::AttrValue::Float(x) => round(num, *x),
                ir::AttrValue::Int(i) => *i as f64,
            })
            .collect();
        Data::F(floats)
    } else {
        Data::I(
            values
                .iter()
                .map(|v| match v {
                    ir::AttrValue::Int(i) => wrap(width, *i),
                    ir::AttrValue::Float(x) => *x as i64,
                })
                .collect(),
        )
    };
    let data = if splat {
        data.gather(std::iter::repeat_n(0, n))
    } else {
        data
    };
    if data.len() != n {
        return Err(fail(op, "constant has the wrong number of elements"));
    }
    Ok(Tensor::new(elem, shape, data))
}

fn zeros(op: MlirOperation) -> R<Tensor> {
    let (elem, shape) = result_block(op, 0);
    let elem = elem.ok_or_else(|| fail(op, "unsupported type"))?;
    let n = shape.iter().product();
    Ok(Tensor::new(elem, shape, Data::zeros(elem.is_float(), n)))
}

fn broadcast(a: &Tensor, shape: &[usize]) -> Tensor {
    let rank = shape.len();
    let n: usize = shape.iter().product();
    let src_shape: Vec<usize> = if a.shape.len() == rank {
        a.shape.clone()
    } else {
        vec![1; rank]
    };
    let index = (0..n).map(|flat| {
        let mut rest = flat;
        let mut src = 0;
        let mut stride = 1;
        for d in (0..rank).rev() {
            let i = rest % shape[d];
            rest /= shape[d];
            if src_shape[d] != 1 {
                src += i * stride;
            }
            stride *= src_shape[d];
        }
        src
    });
    Tensor::new(a.elem, shape.to_vec(), a.data.gather(index))
}

fn transpose(a: &Tensor, order: &[i64]) -> Tensor {
    let rank = a.shape.len();
    let order: Vec<usize> = if order.len() == rank {
        order.iter().map(|&d| d as usize).collect()
    } else {
        (0..rank).rev().collect()
    };
    let shape: Vec<usize> = order.iter().map(|&d| a.shape[d]).collect();
    let mut src_strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        src_strides[d] = src_strides[d + 1] * a.shape[d + 1];
    }
    let n = a.numel();
    let index = (0..n).map(|flat| {
        let mut rest = flat;
        let mut src = 0;
        for d in (0..rank).rev() {
            let i = rest % shape[d];
            rest /= shape[d];
            src += i * src_strides[order[d]];
        }
        src
    });
    let data = a.data.gather(index);
    Tensor::new(a.elem, shape, data)
}

/// Element `k` along `axis` of every position of the other dims: a block of the other dims.
fn slice(t: &Tensor, axis: usize, k: usize) -> Tensor {
    let outer: usize = t.shape[..axis].iter().product();
    let n = t.shape[axis];
    let inner: usize = t.shape[axis + 1..].iter().product();
    let index =
        (0..outer).flat_map(move |o| (0..inner).map(move |i| o * n * inner + k * inner + i));
    let shape: Vec<usize> = t
        .shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != axis)
        .map(|(_, &s)| s)
        .collect();
    Tensor::new(t.elem, shape, t.data.gather(index))
}

fn write_slice(t: &mut Tensor, axis: usize, k: usize, value: &Tensor) {
    let outer: usize = t.shape[..axis].iter().product();
    let n = t.shape[axis];
    let inner: usize = t.shape[axis + 1..].iter().product();
    let mut j = 0;
    for o in 0..outer {
        for i in 0..inner {
            let at = o * n * inner + k * inner + i;
            let src = pick(value.numel(), j);
            match (&mut t.data, &value.data) {
                (Data::I(d), Data::I(v)) => d[at] = v[src],
                (Data::F(d), Data::F(v)) => d[at] = v[src],
                _ => {}
            }
            j += 1;
        }
    }
    t.elem = value.elem;
}

/// Operand blocks side by side: `groups[g][o]` for each operand `o`, concatenated over `g`.
fn stack(groups: &[Vec<Tensor>], operands: usize) -> Vec<Tensor> {
    (0..operands)
        .map(|o| {
            let parts: Vec<&Tensor> = groups.iter().map(|g| &g[o]).collect();
            let elem = parts[0].elem;
            let data = match &parts[0].data {
                Data::I(_) => Data::I(
                    parts
                        .iter()
                        .flat_map(|t| t.ints().unwrap_or_default().iter().copied())
                        .collect(),
                ),
                Data::F(_) => Data::F(
                    parts
                        .iter()
                        .flat_map(|t| t.floats().unwrap_or_default().iter().copied())
                        .collect(),
                ),
            };
            let n = data.len();
            Tensor::new(elem, vec![n], data)
        })
        .collect()
}

/// The inverse of [`stack`]: `count` groups of blocks of `shape`.
fn unstack(stacked: &[Tensor], count: usize, shape: &[usize]) -> Vec<Vec<Tensor>> {
    let m: usize = shape.iter().product();
    (0..count)
        .map(|g| {
            stacked
                .iter()
                .map(|t| {
                    let data = if t.numel() == 1 && count * m != 1 {
                        // A region that returned a constant: the same for every group.
                        t.data.gather(std::iter::repeat_n(0, m))
                    } else {
                        t.data.gather(g * m..(g + 1) * m)
                    };
                    Tensor::new(t.elem, shape.to_vec(), data)
                })
                .collect()
        })
        .collect()
}

fn gather(op: MlirOperation, src: &Tensor, idx: &Tensor, axis: usize) -> R<Tensor> {
    let rank = src.shape.len();
    if axis >= rank || idx.shape.len() != rank {
        return Err(fail(op, "bad gather axis or index rank"));
    }
    let indices = idx
        .ints()
        .ok_or_else(|| fail(op, "indices are not integers"))?;
    let mut src_strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        src_strides[d] = src_strides[d + 1] * src.shape[d + 1];
    }
    let mut out = Vec::with_capacity(indices.len());
    for (flat, &k) in indices.iter().enumerate() {
        if k < 0 || k as usize >= src.shape[axis] {
            return Err(fail(
                op,
                format!(
                    "index {k} at element {flat} is out of range for axis {axis} of size {}",
                    src.shape[axis]
                ),
            ));
        }
        let mut rest = flat;
        let mut at = 0;
        for d in (0..rank).rev() {
            let i = rest % idx.shape[d];
            rest /= idx.shape[d];
            at += if d == axis { k as usize } else { i } * src_strides[d];
        }
        out.push(at);
    }
    Ok(Tensor::new(
        src.elem,
        idx.shape.clone(),
        src.data.gather(out.into_iter()),
    ))
}

/// TF32 (10 mantissa bits) as `cvt.rna.tf32.f32` rounds: to nearest, ties away from zero.
pub(crate) fn to_tf32(x: f64) -> f64 {
    let f = x as f32;
    if !f.is_finite() {
        return f as f64;
    }
    f32::from_bits((f.to_bits() + 0x1000) & !0x1fff) as f64
}

fn dot(op: MlirOperation, a: &Tensor, b: &Tensor, c: &Tensor) -> R<Tensor> {
    let rank = a.shape.len();
    if rank < 2 || b.shape.len() != rank || c.shape.len() != rank {
        return Err(fail(op, "operands must be 2-D or 3-D blocks of one rank"));
    }
    let (m, k, n) = (a.shape[rank - 2], a.shape[rank - 1], b.shape[rank - 1]);
    let batch: usize = a.shape[..rank - 2].iter().product();
    if b.shape[rank - 2] != k || c.shape[rank - 2] != m || c.shape[rank - 1] != n {
        return Err(fail(op, "operand shapes do not match"));
    }
    let precision = ir::int_attr(op, "inputPrecision").unwrap_or(2);
    match (&a.data, &b.data, &c.data) {
        (Data::F(x), Data::F(y), Data::F(z)) => {
            let Elem::Num(acc) = c.elem else {
                return Err(fail(op, "accumulator is not a float"));
            };
            // TF32 inputs (f32 operands with inputPrecision = tf32) lose 13 mantissa bits.
            let tf32 = precision == 0 && a.elem == Elem::Num(Num::F32);
            let input = |v: f64| if tf32 { to_tf32(v) } else { v };
            let mut out = vec![0.0; batch * m * n];
            for bi in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let mut sum = z[bi * m * n + i * n + j];
                        for l in 0..k {
                            sum +=
                                input(x[bi * m * k + i * k + l]) * input(y[bi * k * n + l * n + j]);
                        }
                        out[bi * m * n + i * n + j] = round(acc, sum);
                    }
                }
            }
            Ok(Tensor::new(c.elem, c.shape.clone(), Data::F(out)))
        }
        (Data::I(x), Data::I(y), Data::I(z)) => {
            let w = c.elem.int_width().unwrap_or(32);
            let mut out = vec![0i64; batch * m * n];
            for bi in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let mut sum = z[bi * m * n + i * n + j];
                        for l in 0..k {
                            sum = sum.wrapping_add(
                                x[bi * m * k + i * k + l].wrapping_mul(y[bi * k * n + l * n + j]),
                            );
                        }
                        out[bi * m * n + i * n + j] = wrap(w, sum);
                    }
                }
            }
            Ok(Tensor::new(c.elem, c.shape.clone(), Data::I(out)))
        }
        _ => Err(fail(op, "mixed integer and float operands")),
    }
}

/// A load's mask (as integers) and `other`.
type MaskAndOther = (Option<Vec<i64>>, Option<Rc<Tensor>>);

/// A load's mask and `other`, from its operands (`ptr`, then `mask`, then `other`).
fn mask_and_other(op: MlirOperation, operands: &[MlirValue], env: &Env) -> R<MaskAndOther> {
    let mask = match operands.get(1) {
        Some(v) => Some(
            tensor_of(op, get(env, op, *v)?)?
                .ints()
                .map(<[i64]>::to_vec)
                .ok_or_else(|| fail(op, "mask is not i1"))?,
        ),
        None => None,
    };
    let other = match operands.get(2) {
        Some(v) => Some(tensor_of(op, get(env, op, *v)?)?),
        None => None,
    };
    Ok((mask, other))
}

fn decode_all(num: Num, elem: Elem, bits: &[u64]) -> Data {
    if elem.is_float() {
        Data::F(bits.iter().map(|&b| bits_to_float(num, b)).collect())
    } else {
        Data::I(
            bits.iter()
                .map(|&b| match decode(num, b) {
                    Scalar::I(v) => v,
                    Scalar::F(x) => x as i64,
                })
                .collect(),
        )
    }
}

/// `data` where `on`, else `fill` (one element broadcasts).
fn merge(on: &[bool], data: Data, fill: &Data) -> Data {
    match (data, fill) {
        (Data::I(mut d), Data::I(f)) => {
            for (i, v) in d.iter_mut().enumerate() {
                if !on[i] {
                    *v = f[pick(f.len(), i)];
                }
            }
            Data::I(d)
        }
        (Data::F(mut d), Data::F(f)) => {
            for (i, v) in d.iter_mut().enumerate() {
                if !on[i] {
                    *v = f[pick(f.len(), i)];
                }
            }
            Data::F(d)
        }
        (d, _) => d,
    }
}

fn element_bits(t: &Tensor, i: usize) -> u64 {
    let num = t.elem.storage();
    match &t.data {
        Data::I(v) => encode(num, Scalar::I(v[i])),
        Data::F(v) => encode(num, Scalar::F(v[i])),
    }
}

/// `tt.atomic_rmw`'s new value: and 1, or 2, xor 3, add 4, fadd 5, max 6, min 7, umax 8,
/// umin 9, exch 10.
/// `tt.atomic_rmw`'s `exch` (the one kind whose effect depends on the order of accesses).
const ATOMIC_EXCH: i64 = 10;

fn rmw_bits(op: MlirOperation, num: Num, kind: i64, old: u64, new: u64) -> R<u64> {
    let w = num.bits();
    let (so, sn) = (decode_int(num, old), decode_int(num, new));
    let float = |f: fn(f64, f64) -> f64| -> u64 {
        float_to_bits(
            num,
            round(num, f(bits_to_float(num, old), bits_to_float(num, new))),
        )
    };
    Ok(match kind {
        1 => old & new,
        2 => old | new,
        3 => old ^ new,
        4 => encode(num, Scalar::I(so.wrapping_add(sn))),
        5 => float(|a, b| a + b),
        6 | 7 if num.is_float() => {
            if kind == 6 {
                float(maximum)
            } else {
                float(minimum)
            }
        }
        6 => encode(num, Scalar::I(so.max(sn))),
        7 => encode(num, Scalar::I(so.min(sn))),
        8 => unsigned(w, so).max(unsigned(w, sn)),
        9 => unsigned(w, so).min(unsigned(w, sn)),
        ATOMIC_EXCH => new,
        _ => return Err(fail(op, format!("unknown atomic_rmw_op {kind}"))),
    })
}

/// `tt.descriptor_reduce`'s new value: add 1, min 2, max 3, inc 4, dec 5, and 6, or 7, xor 8.
fn reduce_bits(op: MlirOperation, num: Num, kind: i64, old: u64, new: u64) -> R<u64> {
    Ok(match kind {
        1 => rmw_bits(op, num, if num.is_float() { 5 } else { 4 }, old, new)?,
        2 => rmw_bits(op, num, 7, old, new)?,
        3 => rmw_bits(op, num, 6, old, new)?,
        6 => old & new,
        7 => old | new,
        8 => old ^ new,
        _ => {
            return Err(fail(
                op,
                format!("unsupported descriptor_reduce kind {kind}"),
            ));
        }
    })
}

fn decode_int(num: Num, bits: u64) -> i64 {
    match decode(num, bits) {
        Scalar::I(v) => v,
        Scalar::F(x) => x as i64,
    }
}

fn show(t: &Tensor) -> String {
    let items: Vec<String> = match &t.data {
        Data::I(v) => v.iter().map(|x| x.to_string()).collect(),
        Data::F(v) => v.iter().map(|x| format!("{x}")).collect(),
    };
    if t.shape.is_empty() {
        items.join(" ")
    } else {
        format!("[{}]", items.join(", "))
    }
}

/// libdevice functions by name (`__nv_expf`, `__nv_log1p`, ...), computed in f64 and rounded to
/// the result type.
fn extern_elementwise(op: MlirOperation, operands: &[MlirValue], env: &Env) -> R<Tensor> {
    let symbol = ir::string_attr(op, "symbol").unwrap_or_default();
    let base = symbol.strip_prefix("__nv_").unwrap_or(&symbol);
    let args = operands
        .iter()
        .map(|v| tensor_of(op, get(env, op, *v)?))
        .collect::<R<Vec<_>>>()?;
    let first = args.first().ok_or_else(|| fail(op, "no operands"))?;
    let (elem, shape) = result_block(op, 0);
    let num = out_num(op, elem)?;
    let unary: Option<fn(f64) -> f64> = match base.trim_end_matches('f') {
        "exp" => Some(f64::exp),
        "exp2" => Some(f64::exp2),
        "exp10" => Some(|x| 10f64.powf(x)),
        "expm1" => Some(f64::exp_m1),
        "log" => Some(f64::ln),
        "log2" => Some(f64::log2),
        "log10" => Some(f64::log10),
        "log1p" => Some(f64::ln_1p),
        "sqrt" => Some(f64::sqrt),
        "rsqrt" => Some(|x| 1.0 / x.sqrt()),
        "cbrt" => Some(f64::cbrt),
        "sin" => Some(f64::sin),
        "cos" => Some(f64::cos),
        "tan" => Some(f64::tan),
        "asin" => Some(f64::asin),
        "acos" => Some(f64::acos),
        "atan" => Some(f64::atan),
        "sinh" => Some(f64::sinh),
        "cosh" => Some(f64::cosh),
        "tanh" => Some(f64::tanh),
        "asinh" => Some(f64::asinh),
        "acosh" => Some(f64::acosh),
        "atanh" => Some(f64::atanh),
        "erf" => Some(libm::erf),
        "erfc" => Some(libm::erfc),
        "floor" => Some(f64::floor),
        "ceil" => Some(f64::ceil),
        "trunc" => Some(f64::trunc),
        "round" => Some(f64::round),
        "rint" | "nearbyint" => Some(f64::round_ties_even),
        "fabs" => Some(f64::abs),
        _ => None,
    };
    let binary: Option<fn(f64, f64) -> f64> = match base.trim_end_matches('f') {
        "pow" => Some(f64::powf),
        "atan2" => Some(f64::atan2),
        "fmod" => Some(|a, b| a % b),
        "hypot" => Some(f64::hypot),
        "fmin" => Some(f64::min),
        "fmax" => Some(f64::max),
        "copysign" => Some(f64::copysign),
        _ => None,
    };
    let floats = |t: &Tensor| -> R<Vec<f64>> {
        t.floats()
            .map(<[f64]>::to_vec)
            .ok_or_else(|| fail(op, "operand is not a float"))
    };
    let n: usize = shape.iter().product::<usize>().max(first.numel());
    let data = if let (Some(f), 1) = (unary, args.len()) {
        let x = floats(first)?;
        (0..n).map(|i| round(num, f(x[pick(x.len(), i)]))).collect()
    } else if let (Some(f), 2) = (binary, args.len()) {
        let (x, y) = (floats(first)?, floats(&args[1])?);
        (0..n)
            .map(|i| round(num, f(x[pick(x.len(), i)], y[pick(y.len(), i)])))
            .collect()
    } else if base.trim_end_matches('f') == "fma" && args.len() == 3 {
        let (x, y, z) = (floats(first)?, floats(&args[1])?, floats(&args[2])?);
        (0..n)
            .map(|i| {
                round(
                    num,
                    x[pick(x.len(), i)].mul_add(y[pick(y.len(), i)], z[pick(z.len(), i)]),
                )
            })
            .collect()
    } else {
        return Err(fail(
            op,
            format!("the interpreter does not know the extern function `{symbol}`"),
        ));
    };
    Ok(Tensor::new(
        Elem::Num(num),
        first.shape.clone(),
        Data::F(data),
    ))
}

/// `tt.elementwise_inline_asm` for the one-instruction PTX the tests use: `mov.bN`,
/// `add`/`sub`/`mul` of one scalar type and `cvt.rna.tf32.f32`, one element per instance.
fn inline_asm(op: MlirOperation, operands: &[MlirValue], env: &Env) -> R<Vec<Val>> {
    let asm = ir::string_attr(op, "asm_string").unwrap_or_default();
    let packed = ir::int_attr(op, "packed_element").unwrap_or(1);
    let unsupported = || {
        fail(
            op,
            format!(
                "the interpreter cannot run the inline PTX `{asm}` (packed_element = {packed})"
            ),
        )
    };
    if packed != 1 || ir::results(op).len() != 1 {
        return Err(unsupported());
    }
    let text = asm.trim().trim_end_matches(';');
    let (instruction, rest) = text.split_once(' ').ok_or_else(unsupported)?;
    let places: Vec<&str> = rest.split(',').map(str::trim).collect();
    if places.first() != Some(&"$0") {
        return Err(unsupported());
    }
    let inputs = places[1..]
        .iter()
        .map(|p| {
            let i: usize = p
                .strip_prefix('$')
                .and_then(|d| d.parse().ok())
                .ok_or_else(unsupported)?;
            let v = operands.get(i.wrapping_sub(1)).ok_or_else(unsupported)?;
            tensor_of(op, get(env, op, *v)?)
        })
        .collect::<R<Vec<_>>>()?;
    let (elem, shape) = result_block(op, 0);
    let elem = elem.ok_or_else(unsupported)?;
    let first = inputs.first().ok_or_else(unsupported)?;
    let parts: Vec<&str> = instruction.split('.').collect();
    let result = match (parts.as_slice(), inputs.len()) {
        (["mov", _], 1) => {
            // Same bits, reinterpreted as the result type.
            let bits: Vec<u64> = (0..first.numel()).map(|i| element_bits(first, i)).collect();
            Tensor::new(elem, shape, decode_all(elem.storage(), elem, &bits))
        }
        (["cvt", "rna", "tf32", "f32"], 1) => {
            let x = first.floats().ok_or_else(unsupported)?;
            Tensor::new(
                elem,
                shape,
                Data::F(x.iter().map(|&v| to_tf32(v)).collect()),
            )
        }
        ([kind @ ("add" | "sub" | "mul"), ty], 2) if ty.starts_with('f') => {
            let f = match *kind {
                "add" => |a: f64, b: f64| a + b,
                "sub" => |a, b| a - b,
                _ => |a, b| a * b,
            };
            float_binary(op, first, &inputs[1], f)?
        }
        ([kind @ ("add" | "sub" | "mul"), _], 2) => {
            let f = match *kind {
                "add" => |a: i64, b: i64, _: u32| a.wrapping_add(b),
                "sub" => |a: i64, b: i64, _: u32| a.wrapping_sub(b),
                _ => |a: i64, b: i64, _: u32| a.wrapping_mul(b),
            };
            int_binary(op, first, &inputs[1], f)?
        }
        _ => return Err(unsupported()),
    };
    Ok(vec![Val::tensor(result)])
}
