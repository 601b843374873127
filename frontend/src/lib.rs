//! Tritium's front end for Triton's kernel language: reads the Python source of `@triton.jit`
//! kernels (parsed with `rustpython-parser`; no Python interpreter involved) and builds TTIR with
//! the MLIR C API, as Triton 3.6's frontend would for the same specialization.
//!
//! [`build`] turns a module's source, a kernel name and an AOT-style signature
//! (`"*fp32:16, i32, 1024"`, see [`signature`]) into a TTIR module; [`FrontendError`] reports
//! `file:line:col: error: ...` with the source line and a caret. `docs/frontend.md` lists what is
//! supported and how each construct maps to `tt` ops.

#![warn(clippy::undocumented_unsafe_blocks)]

mod builtins;
mod codegen;
pub mod diag;
mod ir;
mod semantic;
pub mod signature;
pub mod types;

pub use diag::FrontendError;

use codegen::{Gen, Val};
use diag::Source;
use rustpython_parser::ast;
use tritium_dialects::melior::{Context, ir::Module};

/// The `triton.language` functions the front end compiles (`tl.NAME(...)`), for the Python
/// package's `tritium.language`; `frontend/tests/semantics.rs` checks that each is dispatched.
/// `tl.math.NAME` and `libdevice.NAME` (fp32/fp64) are read too.
pub const LANGUAGE_FUNCTIONS: &[&str] = &[
    "abs",
    "advance",
    "arange",
    "argmax",
    "argmin",
    "associative_scan",
    "assume",
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_xchg",
    "atomic_xor",
    "broadcast",
    "broadcast_to",
    "cast",
    "cat",
    "cdiv",
    "ceil",
    "clamp",
    "cos",
    "cumprod",
    "cumsum",
    "debug_barrier",
    "device_assert",
    "device_print",
    "div_rn",
    "dot",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "fdiv",
    "flip",
    "floor",
    "fma",
    "full",
    "full_like",
    "gather",
    "histogram",
    "inline_asm_elementwise",
    "interleave",
    "join",
    "load",
    "load_tensor_descriptor",
    "log",
    "log2",
    "make_block_ptr",
    "make_tensor_descriptor",
    "max",
    "max_constancy",
    "max_contiguous",
    "maximum",
    "min",
    "minimum",
    "multiple_of",
    "next_power_of_2",
    "num_programs",
    "pair_uniform_to_normal",
    "permute",
    "philox",
    "pointer_type",
    "program_id",
    "rand",
    "randint",
    "randint4x",
    "randn",
    "range",
    "ravel",
    "reduce",
    "reshape",
    "rsqrt",
    "sigmoid",
    "sin",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "sqrt_rn",
    "static_assert",
    "static_print",
    "static_range",
    "store",
    "store_tensor_descriptor",
    "sum",
    "swizzle2d",
    "to_tensor",
    "trans",
    "uint_to_uniform_float",
    "umulhi",
    "view",
    "where",
    "xor_sum",
    "zeros",
    "zeros_like",
];

/// How the kernel is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Triton's debug mode (`TRITON_DEBUG=1`): `tl.device_assert` and runtime `assert`
    /// statements become `tt.assert`; without it they are dropped, as Triton drops them.
    pub debug: bool,
    /// `maxNumImpreciseAcc` of an fp8 `tl.dot` that names none (Triton's
    /// `max_num_imprecise_acc_default`): how many K elements the tensor cores may sum in their
    /// reduced-precision fp8 accumulator before the sum joins the f32 accumulator.
    pub max_num_imprecise_acc_default: i32,
}

impl BuildOptions {
    /// Triton's CUDA defaults for compute capability `capability` (80, 90): on Hopper, fp8
    /// dots accumulate imprecisely throughout (2^30, wgmma's own accumulation; a smaller value
    /// splits each wgmma's sum out into f32 adds), elsewhere the option does not apply (0).
    pub fn for_capability(capability: u32) -> Self {
        BuildOptions {
            debug: false,
            max_num_imprecise_acc_default: if capability == 90 { 1 << 30 } else { 0 },
        }
    }
}

impl Default for BuildOptions {
    /// For the default target, `sm_90a`.
    fn default() -> Self {
        BuildOptions::for_capability(90)
    }
}

/// Builds the TTIR module of kernel `kernel` (or the only `@triton.jit` function) of the Python
/// `source` (named `file` in locations and errors), specialized by `signature`.
pub fn build<'c>(
    context: &'c Context,
    source: &str,
    file: &str,
    kernel: Option<&str>,
    signature: &str,
) -> Result<Module<'c>, FrontendError> {
    build_with(
        context,
        source,
        file,
        kernel,
        signature,
        BuildOptions::default(),
    )
}

/// [`build`] with [`BuildOptions`].
pub fn build_with<'c>(
    context: &'c Context,
    source: &str,
    file: &str,
    kernel: Option<&str>,
    signature: &str,
    options: BuildOptions,
) -> Result<Module<'c>, FrontendError> {
    build_with_modules(context, source, file, kernel, signature, options, &[])
}

/// Another Python module whose `@triton.jit` functions (and constexpr globals) the kernel's
/// module imports: `import pkg.helpers`, `from pkg.helpers import f`, or relatively
/// (`from .helpers import f`, matched by the name's last components).
#[derive(Clone, Debug)]
pub struct OtherModule {
    /// The dotted module name (`pkg.helpers`).
    pub name: String,
    pub source: String,
    /// Its file, for locations and errors.
    pub file: String,
}

/// [`build_with`], the kernel's module importing `@jit` functions from `others`.
pub fn build_with_modules<'c>(
    context: &'c Context,
    source: &str,
    file: &str,
    kernel: Option<&str>,
    signature: &str,
    options: BuildOptions,
    others: &[OtherModule],
) -> Result<Module<'c>, FrontendError> {
    let raw = build_raw(
        context.to_raw(),
        source,
        file,
        kernel,
        signature,
        options,
        others,
    )?;
    // SAFETY: `raw` is a module of `context` that nothing else owns; `Module` takes ownership.
    Ok(unsafe { Module::from_raw(raw) })
}

fn is_jit(decorators: &[ast::Expr]) -> bool {
    decorators.iter().any(|d| {
        let d = match d {
            ast::Expr::Call(c) => &*c.func,
            other => other,
        };
        match d {
            ast::Expr::Name(n) => n.id.as_str() == "jit",
            ast::Expr::Attribute(a) => a.attr.as_str() == "jit",
            _ => false,
        }
    })
}

fn import_target(module: &str) -> Val {
    Val::Module(canonical_module(module))
}

/// `tritium` (the Python package, whose `tritium.language` mirrors `triton.language`) is read
/// as `triton`: `import tritium.language as tl` gives the same `tl` as Triton's import.
fn canonical_module(module: &str) -> String {
    match module.strip_prefix("tritium") {
        Some(rest) if rest.is_empty() || rest.starts_with('.') => format!("triton{rest}"),
        _ => module.to_owned(),
    }
}

/// The front end's own library (random numbers), compiled on demand like the user's module.
const PRELUDE: &str = include_str!("prelude.py");
const PRELUDE_FILE: &str = "<tritium>/prelude.py";

/// Reads module `index`'s scope: imports, `@triton.jit` functions, constexpr globals (other
/// statements are host code and ignored).
fn load_module<'s>(g: &mut Gen<'s>, index: usize, body: &'s [ast::Stmt]) {
    g.cur = index;
    g.src = g.modules[index].src;
    g.ir.file = g.src.file.clone();
    for stmt in body {
        match stmt {
            ast::Stmt::Import(i) => {
                for alias in &i.names {
                    let name = alias.name.as_str();
                    let globals = &mut g.modules[index].globals;
                    match &alias.asname {
                        Some(a) => globals.insert(a.to_string(), import_target(name)),
                        None => {
                            let top = name.split('.').next().unwrap_or(name);
                            globals.insert(top.to_owned(), import_target(top))
                        }
                    };
                }
            }
            ast::Stmt::ImportFrom(i) => {
                let base = i.module.as_ref().map(|m| m.to_string()).unwrap_or_default();
                let base = canonical_module(&base);
                for alias in &i.names {
                    let full = format!("{base}.{}", alias.name);
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name).to_string();
                    let value = match full
                        .strip_prefix("triton.language.")
                        .and_then(codegen::dtype_of_name)
                    {
                        Some(dt) => Val::Dtype(dt),
                        None => import_target(&full),
                    };
                    g.modules[index].globals.insert(bound, value);
                }
            }
            ast::Stmt::FunctionDef(f) if is_jit(&f.decorator_list) => {
                g.modules[index].funcs.insert(f.name.to_string(), f);
            }
            ast::Stmt::Assign(a) => {
                if let Some(v) = eval_global(g, &a.value) {
                    for t in &a.targets {
                        if let ast::Expr::Name(n) = t {
                            g.modules[index].globals.insert(n.id.to_string(), v.clone());
                        }
                    }
                }
            }
            ast::Stmt::AnnAssign(a) => {
                if let (Some(value), ast::Expr::Name(n)) = (&a.value, &*a.target)
                    && let Some(v) = eval_global(g, value)
                {
                    g.modules[index].globals.insert(n.id.to_string(), v);
                }
            }
            _ => {}
        }
    }
}

fn build_raw(
    ctx: mlir_sys::MlirContext,
    source: &str,
    file: &str,
    kernel: Option<&str>,
    signature: &str,
    options: BuildOptions,
    others: &[OtherModule],
) -> Result<mlir_sys::MlirModule, FrontendError> {
    let src = Source::new(file, source);
    let other_srcs: Vec<Source> = others
        .iter()
        .map(|m| Source::new(&m.file, &m.source))
        .collect();
    let mut other_asts = Vec::new();
    for (m, other_src) in others.iter().zip(&other_srcs) {
        match rustpython_parser::parse(&m.source, rustpython_parser::Mode::Module, &m.file) {
            Ok(ast::Mod::Module(parsed)) => other_asts.push(parsed),
            Ok(_) => return Err(FrontendError::general(&m.file, "expected a Python module")),
            Err(e) => {
                return Err(other_src.error_at(
                    u32::from(e.offset) as usize,
                    format!("invalid syntax: {}", e.error),
                ));
            }
        }
    }
    let parsed =
        rustpython_parser::parse(source, rustpython_parser::Mode::Module, file).map_err(|e| {
            src.error_at(
                u32::from(e.offset) as usize,
                format!("invalid syntax: {}", e.error),
            )
        })?;
    let ast::Mod::Module(module_ast) = parsed else {
        return Err(FrontendError::general(file, "expected a Python module"));
    };
    let entries = signature::parse(signature)
        .map_err(|e| FrontendError::general(file, format!("--signature: {e}")))?;

    // SAFETY: live context; the location is uniqued in it.
    let loc = unsafe { mlir_sys::mlirLocationFileLineColGet(ctx, str_ref(file), 1, 0) };
    let module = ir::new_module(loc);
    let prelude_src = Source::new(PRELUDE_FILE, PRELUDE);
    let prelude =
        match rustpython_parser::parse(PRELUDE, rustpython_parser::Mode::Module, PRELUDE_FILE) {
            Ok(ast::Mod::Module(m)) => m,
            _ => {
                return Err(FrontendError::general(
                    PRELUDE_FILE,
                    "the front end's prelude does not parse",
                ));
            }
        };
    let mut g = Gen::new(ctx, &src, module, &prelude_src);
    g.debug = options.debug;
    g.max_num_imprecise_acc_default = options.max_num_imprecise_acc_default;
    for (m, other_src) in others.iter().zip(&other_srcs) {
        g.modules.push(codegen::PyModule {
            name: m.name.clone(),
            src: other_src,
            funcs: Default::default(),
            globals: Default::default(),
        });
    }
    let result = (|| {
        load_module(&mut g, 1, &prelude.body);
        for (i, parsed) in other_asts.iter().enumerate() {
            load_module(&mut g, 2 + i, &parsed.body);
        }
        load_module(&mut g, 0, &module_ast.body);
        let name = match kernel {
            Some(k) => k.to_owned(),
            None => {
                let mut names: Vec<&String> = g.modules[0].funcs.keys().collect();
                names.sort();
                match names.as_slice() {
                    [one] => (*one).clone(),
                    [] => {
                        return Err(FrontendError::general(
                            file,
                            "no @triton.jit function in this file",
                        ));
                    }
                    many => {
                        let list: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
                        return Err(FrontendError::general(
                            file,
                            format!(
                                "several @triton.jit functions ({}): pass --kernel-name",
                                list.join(", ")
                            ),
                        ));
                    }
                }
            }
        };
        let Some(def) = g.modules[0].funcs.get(&name).copied() else {
            let mut names: Vec<&String> = g.modules[0].funcs.keys().collect();
            names.sort();
            let list: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
            return Err(FrontendError::general(
                file,
                format!(
                    "no @triton.jit function '{name}' (found: {})",
                    list.join(", ")
                ),
            ));
        };
        g.kernel(def, &entries)
    })();
    match result {
        Ok(()) => Ok(module),
        Err(e) => {
            ir::destroy_module(module);
            Err(e)
        }
    }
}

/// A module-level assignment's value, when it is a compile-time constant (others are ignored:
/// they are host code).
fn eval_global<'s>(g: &mut Gen<'s>, value: &'s ast::Expr) -> Option<Val> {
    let scratch = g.ir.new_block(&[]);
    let saved = g.ir.block;
    g.ir.block = scratch;
    let r = g.expr(value);
    g.ir.block = saved;
    ir::destroy_block(scratch);
    match r {
        Ok(v) if v.is_const() && !matches!(v, Val::Method(..)) => Some(v),
        _ => None,
    }
}

fn str_ref(text: &str) -> mlir_sys::MlirStringRef {
    mlir_sys::MlirStringRef {
        data: text.as_ptr() as *const _,
        length: text.len(),
    }
}
