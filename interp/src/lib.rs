//! A reference interpreter for Triton's `tt` IR (TTIR).
//!
//! [`run_module`] executes a `tt.func` kernel on the CPU for every program of its grid, one
//! program after the other (so atomics run program by program), with Triton's semantics: block
//! values, masks and `other`, pointer arithmetic into host [`Buffer`]s, integer and float
//! semantics per element type (f16/bf16 through `half`, fp8 through `float8`, each op rounded
//! once to its result type), `tt.reduce`/`tt.scan` with their combine regions, block pointers and
//! tensor descriptors, `tt.dot`, `scf` control flow and `tt.call`. An out-of-bounds or unaligned
//! access, a failed `tt.assert` or an unsupported op is an [`InterpError`] naming the op's
//! `file:line:col`.
//!
//! The IR is read through the MLIR C API from the parsed (or pass-transformed) module; no text is
//! parsed here. Slow is fine, wrong is not: every op computes in `f64` or `i64` and rounds or
//! wraps to its type, so results are the correctly rounded ones wherever that is defined.

pub mod cli;
mod exec;
mod ir;
pub mod memory;
pub mod value;

pub use exec::Limits;
pub use memory::Buffer;

use exec::Machine;
use ir::TypeKind;
use memory::Memory;
use mlir_sys::MlirOperation;
use std::collections::HashMap;
use tritium_dialects::melior::{Context, ir::Module, ir::operation::OperationLike};
use value::{Data, Elem, Num, Tensor, Val, int_to_float, round, wrap};

/// Triton's largest block (`TRITON_MAX_TENSOR_NUMEL`): a tensor type with more elements is
/// refused before anything runs.
pub const MAX_TENSOR_ELEMENTS: usize = 1 << 20;

/// Why a run failed: at an op (`file:line:col`) or, for launch problems, at the kernel.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{location}: error: {message}")]
pub struct InterpError {
    pub location: String,
    pub message: String,
}

impl InterpError {
    fn at(location: impl Into<String>, message: impl Into<String>) -> InterpError {
        InterpError {
            location: location.into(),
            message: message.into(),
        }
    }
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A buffer for a pointer parameter.
    Buffer(Buffer),
    /// An integer parameter (wrapped to its width).
    Int(i64),
    /// A float parameter (rounded to its type).
    Float(f64),
    /// A tensor parameter (of a helper function or a test case), exactly of its type.
    Block(Tensor),
    /// A host-side tensor descriptor (`!tt.tensordesc` parameter) of a row-major tensor in
    /// `buffer`: its shape and strides in elements, outermost first.
    Desc {
        buffer: Buffer,
        shape: Vec<i64>,
        strides: Vec<i64>,
    },
}

/// What to run: the grid, the arguments in parameter order, the limits.
#[derive(Clone, Debug)]
pub struct Launch {
    pub grid: [u32; 3],
    pub args: Vec<Arg>,
    pub limits: Limits,
}

impl Launch {
    pub fn new(grid: [u32; 3], args: Vec<Arg>) -> Launch {
        Launch {
            grid,
            args,
            limits: Limits::default(),
        }
    }
}

/// What a run left behind.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Every argument after the run: buffers with their final contents, scalars as given.
    pub args: Vec<Arg>,
    /// The lines `tt.print` wrote, in program order.
    pub printed: Vec<String>,
    /// What the last program's `tt.return` returned (blocks only).
    pub returned: Vec<Tensor>,
    /// Ops executed.
    pub steps: u64,
    /// Where the results depend on what a correct run may choose differently (the order of
    /// programs for racing stores or the values atomics return; where buffers are, through
    /// `tt.ptr_to_int`), the first sign of it: another run may differ there and be right.
    pub run_specific: Option<String>,
}

/// The kernel to run: `name`, or the module's first public `tt.func`.
fn find_kernel(module: MlirOperation, name: Option<&str>) -> Result<MlirOperation, InterpError> {
    let funcs = ir::functions(module);
    let found = match name {
        Some(name) => funcs.iter().find(|(n, _)| n == name),
        None => funcs
            .iter()
            .find(|(_, op)| ir::string_attr(*op, "sym_visibility").as_deref() != Some("private")),
    };
    found.map(|(_, op)| *op).ok_or_else(|| {
        InterpError::at(
            ir::location(module),
            match name {
                Some(name) => format!("no tt.func @{name}"),
                None => "no public tt.func to run".to_owned(),
            },
        )
    })
}

/// Refuses tensor types over [`MAX_TENSOR_ELEMENTS`] anywhere in the module.
fn check_sizes(module: MlirOperation) -> Result<(), InterpError> {
    let mut error = None;
    tritium_passes::ir_util::walk(module, &mut |op| {
        if error.is_some() {
            return;
        }
        for result in ir::results(op) {
            let shape = tritium_passes::ir_util::shape(ir::value_type(result));
            let n = shape
                .iter()
                .try_fold(1usize, |acc, &d| acc.checked_mul(d.max(0) as usize));
            if n.is_none_or(|n| n > MAX_TENSOR_ELEMENTS) {
                error = Some(exec::fail(
                    op,
                    format!(
                        "a tensor of shape {shape:?} has more than {MAX_TENSOR_ELEMENTS} elements"
                    ),
                ));
            }
        }
    });
    error.map_or(Ok(()), Err)
}

/// Runs kernel `kernel` (or the first public one) of the parsed, verified `module` over the
/// launch's grid.
pub fn run_module(
    module: MlirOperation,
    kernel: Option<&str>,
    launch: Launch,
) -> Result<Outcome, InterpError> {
    let func = find_kernel(module, kernel)?;
    check_sizes(module)?;
    let here = ir::location(func);
    let Some(&entry) = ir::region_blocks(func, 0).first() else {
        return Err(InterpError::at(here, "the kernel has no body"));
    };
    let params = ir::block_args(entry);
    if params.len() != launch.args.len() {
        return Err(InterpError::at(
            here,
            format!(
                "the kernel takes {} arguments, {} given",
                params.len(),
                launch.args.len()
            ),
        ));
    }
    let mut memory = Memory::default();
    let mut values = Vec::new();
    let mut buffer_slots = Vec::new();
    for (i, (param, arg)) in params.iter().zip(launch.args.iter()).enumerate() {
        let ty = ir::value_type(*param);
        let kind = ir::type_kind(ty);
        let bad = || {
            InterpError::at(
                here.clone(),
                format!(
                    "argument {i} is {}, which {} cannot be passed as",
                    ir::type_text(ty),
                    match arg {
                        Arg::Buffer(b) => format!("buffer `{}`", b.name),
                        Arg::Int(v) => format!("integer {v}"),
                        Arg::Float(v) => format!("float {v}"),
                        Arg::Block(t) => format!("a block of shape {:?}", t.shape),
                        Arg::Desc { buffer, .. } => format!("a descriptor of `{}`", buffer.name),
                    }
                ),
            )
        };
        if let (
            Some(TypeKind::Desc(pointee, block)),
            Arg::Desc {
                buffer,
                shape,
                strides,
            },
        ) = (&kind, arg)
        {
            if shape.len() != block.len() || strides.len() != block.len() {
                return Err(bad());
            }
            buffer_slots.push(i);
            let base = memory.add(buffer.clone());
            values.push(Val::Desc(std::rc::Rc::new(value::TensorDesc {
                base,
                pointee: *pointee,
                shape: shape.clone(),
                strides: strides.clone(),
                block: block.clone(),
                pad_nan: false,
            })));
            continue;
        }
        let value = match (kind, arg) {
            (Some(TypeKind::Block(elem @ Elem::Ptr(_), shape)), Arg::Buffer(b))
                if shape.is_empty() =>
            {
                buffer_slots.push(i);
                let base = memory.add(b.clone());
                Tensor::scalar_int(elem, base as i64)
            }
            (Some(TypeKind::Block(Elem::Num(Num::Int(w)), shape)), Arg::Int(v))
                if shape.is_empty() =>
            {
                Tensor::scalar_int(Elem::Num(Num::Int(w)), wrap(w, *v))
            }
            (Some(TypeKind::Block(Elem::Num(n), shape)), Arg::Float(v))
                if shape.is_empty() && n.is_float() =>
            {
                Tensor::new(Elem::Num(n), Vec::new(), Data::F(vec![round(n, *v)]))
            }
            (Some(TypeKind::Block(Elem::Num(n), shape)), Arg::Int(v))
                if shape.is_empty() && n.is_float() =>
            {
                Tensor::new(
                    Elem::Num(n),
                    Vec::new(),
                    Data::F(vec![int_to_float(n, *v, 64, true)]),
                )
            }
            (Some(TypeKind::Block(elem, shape)), Arg::Block(t))
                if t.elem == elem && t.shape == shape =>
            {
                t.clone()
            }
            _ => return Err(bad()),
        };
        values.push(Val::tensor(value));
    }
    let funcs: HashMap<String, MlirOperation> = ir::functions(module).into_iter().collect();
    let mut machine = Machine::new(&mut memory, funcs, launch.limits);
    machine.grid = launch.grid.map(i64::from);
    let mut returned = Vec::new();
    for z in 0..launch.grid[2] {
        for y in 0..launch.grid[1] {
            for x in 0..launch.grid[0] {
                machine.pid = [x, y, z].map(i64::from);
                returned = machine.call(func, values.clone())?;
            }
        }
    }
    let returned = returned
        .into_iter()
        .filter_map(|v| match v {
            Val::T(t) => Some(std::rc::Rc::unwrap_or_clone(t)),
            _ => None,
        })
        .collect();
    let printed = std::mem::take(&mut machine.printed);
    let steps = machine.steps;
    let run_specific = memory.writes.run_specific.take();
    let mut buffers = memory.buffers.into_iter();
    let args = launch
        .args
        .into_iter()
        .enumerate()
        .map(|(i, arg)| {
            if buffer_slots.contains(&i) {
                match (buffers.next(), arg) {
                    (Some(buffer), Arg::Desc { shape, strides, .. }) => Arg::Desc {
                        buffer,
                        shape,
                        strides,
                    },
                    (Some(buffer), _) => Arg::Buffer(buffer),
                    (None, arg) => arg,
                }
            } else {
                arg
            }
        })
        .collect();
    Ok(Outcome {
        args,
        printed,
        returned,
        steps,
        run_specific,
    })
}

/// A context with Tritium's dialects whose diagnostics are collected into `sink`.
pub fn new_context_with_sink() -> (Context, std::rc::Rc<std::cell::RefCell<Vec<String>>>) {
    let context = tritium_dialects::context::new_context();
    let sink = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let collected = sink.clone();
    context.attach_diagnostic_handler(move |diagnostic| {
        collected
            .borrow_mut()
            .push(format!("{}: {}", diagnostic.location(), diagnostic));
        true
    });
    (context, sink)
}

/// Parses and verifies `source` in `context`; the error carries MLIR's diagnostics.
pub fn parse<'c>(
    context: &'c Context,
    sink: &std::cell::RefCell<Vec<String>>,
    source: &str,
    filename: &str,
) -> Result<Module<'c>, InterpError> {
    let failed = |what: &str| {
        let diagnostics = std::mem::take(&mut *sink.borrow_mut());
        InterpError::at(
            filename,
            if diagnostics.is_empty() {
                what.to_owned()
            } else {
                format!("{what}:\n{}", diagnostics.join("\n"))
            },
        )
    };
    let module = tritium_dialects::ir::parse_module(context, source, filename)
        .ok_or_else(|| failed("cannot parse"))?;
    if !module.as_operation().verify() {
        return Err(failed("the module does not verify"));
    }
    sink.borrow_mut().clear();
    Ok(module)
}

/// Parses, verifies and runs `source` (TTIR text).
pub fn run_source(
    source: &str,
    filename: &str,
    kernel: Option<&str>,
    launch: Launch,
) -> Result<Outcome, InterpError> {
    let (context, sink) = new_context_with_sink();
    let module = parse(&context, &sink, source, filename)?;
    run_module(module.as_operation().to_raw(), kernel, launch)
}

/// Parameter types of the kernel, printed (`*f32`, `i32`, ...), with their names when the
/// arguments carry named locations.
pub fn kernel_params(
    module: MlirOperation,
    kernel: Option<&str>,
) -> Result<Vec<Param>, InterpError> {
    let func = find_kernel(module, kernel)?;
    let Some(&entry) = ir::region_blocks(func, 0).first() else {
        return Err(InterpError::at(
            ir::location(func),
            "the kernel has no body",
        ));
    };
    Ok(ir::block_args(entry)
        .into_iter()
        .map(|arg| {
            let ty = ir::value_type(arg);
            let kind = match ir::type_kind(ty) {
                Some(TypeKind::Block(Elem::Ptr(n), shape)) if shape.is_empty() => {
                    ParamKind::Pointer(n)
                }
                Some(TypeKind::Block(Elem::Num(n), shape)) if shape.is_empty() => {
                    ParamKind::Scalar(n)
                }
                Some(TypeKind::Block(Elem::Num(n), shape)) => ParamKind::Block(n, shape),
                Some(TypeKind::Desc(n, block)) => ParamKind::Desc(n, block),
                _ => ParamKind::Other,
            };
            Param {
                name: ir::value_name(arg),
                kind,
            }
        })
        .collect())
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// From the argument's named location (`loc("x_ptr")`); empty when it has none.
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// `!tt.ptr<T>`.
    Pointer(Num),
    /// An integer or float scalar.
    Scalar(Num),
    /// A tensor of numbers of this shape.
    Block(Num, Vec<usize>),
    /// A tensor descriptor (`!tt.tensordesc`) of blocks of this shape (an [`Arg::Desc`]).
    Desc(Num, Vec<usize>),
    /// Anything else (the interpreter cannot be handed one).
    Other,
}
