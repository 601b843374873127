//! Rust passes in MLIR's own pass registry.
//!
//! A pass is one `static` [`PassDef`]: its flag, summary, anchor op, typed options with defaults,
//! dependent dialects and run function. [`register_pass`] (one line per pass) makes it usable as a
//! `triton-opt` flag, inside `--pass-pipeline` strings (`tt.func(my-pass{opt=1})`) and in `--help`.
//! Options use MLIR's syntax (`{num-warps=8 target=cuda:90}`) and are parsed and checked by MLIR
//! before `run` sees them. [`PipelineDef`] does the same for named pipelines.
//!
//! [`PassEntry`] is a pass as the registry lists it (with its long description), [`PassSpec`] one
//! pass of a pipeline with option values, and [`dialects`] the handles passes declare as the
//! dialects they create.
//!
//! A pass that emits an error diagnostic fails, even if its `run` returned `Ok` (an error without
//! a failure would print and still exit 0): [`run_pass`] watches the errors emitted on its thread
//! while `run` runs.

use crate::{diag::emit_error, ffi};
use melior::{
    dialect::DialectHandle,
    ir::{Location, OperationRef, operation::OperationLike},
};
use mlir_sys::{
    MlirDiagnostic, MlirDiagnosticSeverity_MlirDiagnosticError, MlirLogicalResult, MlirOperation,
    MlirStringRef, mlirContextAttachDiagnosticHandler, mlirContextDetachDiagnosticHandler,
    mlirDiagnosticGetSeverity, mlirOperationGetContext,
};
use std::{
    ffi::{CString, c_void},
    panic::{AssertUnwindSafe, catch_unwind},
    sync::atomic::{AtomicUsize, Ordering},
    thread::ThreadId,
};

/// The type of a pass or pipeline option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    String,
    Int,
    Bool,
    Float,
}

/// One option: `name=value` in MLIR's option syntax.
#[derive(Debug)]
pub struct PassOption {
    pub name: &'static str,
    pub description: &'static str,
    pub kind: OptionKind,
    /// The default, written as it would be on the command line.
    pub default: &'static str,
}

/// The option values a pass or pipeline runs with, already parsed and checked by MLIR.
pub struct Options<'a> {
    definitions: &'static [PassOption],
    values: Vec<&'a str>,
}

impl<'a> Options<'a> {
    /// The options of `definitions` at their defaults (for running a pass from Rust).
    pub fn defaults(definitions: &'static [PassOption]) -> Options<'static> {
        Options {
            definitions,
            values: definitions.iter().map(|option| option.default).collect(),
        }
    }

    /// These options with `name` set to `value` (written as on the command line).
    pub fn with(mut self, name: &str, value: &'a str) -> Options<'a> {
        let index = self
            .definitions
            .iter()
            .position(|option| option.name == name)
            .unwrap_or_else(|| panic!("no option named `{name}`"));
        self.values[index] = value;
        self
    }

    /// Panics when the pass asks for an option it does not declare (a bug in the pass, not in
    /// the IR or the command line).
    fn raw(&self, name: &str, kind: OptionKind) -> &'a str {
        let index = self
            .definitions
            .iter()
            .position(|option| option.name == name && option.kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} option named `{name}`"));
        // MLIR passes one value per declared option; the default stands in should one be missing.
        self.values
            .get(index)
            .copied()
            .unwrap_or(self.definitions[index].default)
    }

    pub fn string(&self, name: &str) -> &'a str {
        self.raw(name, OptionKind::String)
    }

    pub fn int(&self, name: &str) -> i64 {
        self.raw(name, OptionKind::Int).parse().unwrap_or(0)
    }

    pub fn bool(&self, name: &str) -> bool {
        self.raw(name, OptionKind::Bool) == "true"
    }

    pub fn float(&self, name: &str) -> f64 {
        self.raw(name, OptionKind::Float).parse().unwrap_or(0.0)
    }
}

/// A pass failed; its diagnostics have already been emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassFailed;

/// Emits `message` at `location` and returns the failure to propagate.
pub fn fail(location: Location, message: &str) -> PassFailed {
    emit_error(location, message);
    PassFailed
}

pub type PassResult = Result<(), PassFailed>;

/// A Rust pass.
pub struct PassDef {
    /// The flag, e.g. `triton-combine`.
    pub argument: &'static str,
    /// One line shown by `--help`.
    pub summary: &'static str,
    /// The op the pass runs on (`builtin.module`, `tt.func`), or `None` for any op.
    pub anchor: Option<&'static str>,
    pub options: &'static [PassOption],
    /// Dialects whose ops the pass may create.
    pub dependent_dialects: fn() -> Vec<DialectHandle>,
    pub run: fn(OperationRef, &Options) -> PassResult,
}

/// No dependent dialects.
pub fn no_dialects() -> Vec<DialectHandle> {
    Vec::new()
}

/// The dialect handles passes list in `dependent_dialects`: every dialect whose ops a pass may
/// create must be loaded before the pass manager runs (passes may not load dialects).
pub mod dialects {
    use melior::dialect::DialectHandle;

    pub fn tt() -> DialectHandle {
        crate::tt_handle()
    }

    pub fn ttg() -> DialectHandle {
        crate::ttg_handle()
    }

    pub fn ttng() -> DialectHandle {
        crate::ttng_handle()
    }

    pub fn arith() -> DialectHandle {
        DialectHandle::arith()
    }

    pub fn math() -> DialectHandle {
        // SAFETY: the handle getter of MLIR's upstream math dialect (its C API, linked through
        // mlir-sys); it takes nothing and returns a static handle.
        unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__math__()) }
    }

    pub fn scf() -> DialectHandle {
        DialectHandle::scf()
    }

    pub fn llvm() -> DialectHandle {
        DialectHandle::llvm()
    }

    pub fn nvvm() -> DialectHandle {
        // SAFETY: the handle getter of MLIR's upstream NVVM dialect (its C API, linked through
        // mlir-sys); it takes nothing and returns a static handle.
        unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__nvvm__()) }
    }
}

/// A named pipeline: `build` turns option values into a textual pass pipeline.
pub struct PipelineDef {
    pub argument: &'static str,
    pub summary: &'static str,
    pub options: &'static [PassOption],
    pub build: fn(&Options) -> Result<String, String>,
}

fn leak_c_string(text: &str) -> *const std::ffi::c_char {
    CString::new(text)
        .expect("pass metadata has no NUL")
        .into_raw()
}

fn option_infos(options: &'static [PassOption]) -> &'static [ffi::TritiumOptionInfo] {
    let infos: Vec<_> = options
        .iter()
        .map(|option| ffi::TritiumOptionInfo {
            name: leak_c_string(option.name),
            description: leak_c_string(option.description),
            kind: match option.kind {
                OptionKind::String => ffi::OPTION_STRING,
                OptionKind::Int => ffi::OPTION_INT,
                OptionKind::Bool => ffi::OPTION_BOOL,
                OptionKind::Float => ffi::OPTION_FLOAT,
            },
            default_value: leak_c_string(option.default),
        })
        .collect();
    Box::leak(infos.into_boxed_slice())
}

/// The option values MLIR parsed, in the order of `definitions`.
///
/// # Safety
/// `values` must point to `count` string refs that stay valid for `'a`.
unsafe fn option_values<'a>(
    definitions: &'static [PassOption],
    values: *const MlirStringRef,
    count: usize,
) -> Options<'a> {
    let raw = if count == 0 {
        &[][..]
    } else {
        // SAFETY: by this function's contract `values` points to `count` string refs valid for
        // `'a`.
        unsafe { std::slice::from_raw_parts(values, count) }
    };
    Options {
        definitions,
        values: raw
            .iter()
            // SAFETY: each string ref is valid for the call (see above); the borrowed options do
            // not outlive it.
            .map(|value| unsafe { ffi::string_ref_str(*value) })
            .collect(),
    }
}

/// Counts the error diagnostics emitted on one thread (the one running a pass; with
/// multi-threading, passes on other ops run on other threads at the same time).
struct ErrorWatch {
    thread: ThreadId,
    errors: AtomicUsize,
}

unsafe extern "C" fn count_errors(
    diagnostic: MlirDiagnostic,
    user_data: *mut c_void,
) -> MlirLogicalResult {
    // SAFETY: `user_data` is the `ErrorWatch` that `run_pass` attached with this handler and
    // keeps alive until it detaches it; `diagnostic` is live during the call.
    let watch = unsafe { &*(user_data as *const ErrorWatch) };
    // SAFETY: see above: `diagnostic` is a live diagnostic.
    let severity = unsafe { mlirDiagnosticGetSeverity(diagnostic) };
    if severity == MlirDiagnosticSeverity_MlirDiagnosticError
        && std::thread::current().id() == watch.thread
    {
        watch.errors.fetch_add(1, Ordering::Relaxed);
    }
    // Not handled: the diagnostic goes on to the handlers that print or verify it.
    MlirLogicalResult { value: 0 }
}

unsafe extern "C" fn run_pass(
    user_data: *const c_void,
    op: MlirOperation,
    values: *const MlirStringRef,
    count: usize,
) -> bool {
    // SAFETY: `user_data` is the `&'static PassDef` that `register_pass` registered with this
    // callback.
    let def = unsafe { &*(user_data as *const PassDef) };
    // SAFETY: MLIR passes the live operation the pass runs on; it outlives this call.
    let op_ref = unsafe { OperationRef::from_raw(op) };
    // SAFETY: `values` points to `count` option strings that live for this call.
    let options = unsafe { option_values(def.options, values, count) };
    let watch = ErrorWatch {
        thread: std::thread::current().id(),
        errors: AtomicUsize::new(0),
    };
    // SAFETY: `op` is live, so is its context; `watch` outlives the handler, which is detached
    // below before `watch` is dropped (and there is no user-data destructor to call).
    let (context, handler) = unsafe {
        let context = mlirOperationGetContext(op);
        let handler = mlirContextAttachDiagnosticHandler(
            context,
            Some(count_errors),
            &watch as *const ErrorWatch as *mut c_void,
            None,
        );
        (context, handler)
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| (def.run)(op_ref, &options)));
    // SAFETY: `handler` was attached to `context` above and is detached exactly once.
    unsafe { mlirContextDetachDiagnosticHandler(context, handler) };
    let op = op_ref;
    match outcome {
        Ok(result) => result.is_ok() && watch.errors.load(Ordering::Relaxed) == 0,
        Err(payload) => {
            let reason = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("unknown");
            emit_error(
                op.location(),
                &format!("internal error in pass '{}': {reason}", def.argument),
            );
            false
        }
    }
}

/// Registers `def` in MLIR's pass registry. Call once per process, before parsing command lines.
pub fn register_pass(def: &'static PassDef) {
    let options = option_infos(def.options);
    let dialects: &'static [mlir_sys::MlirDialectHandle] = Box::leak(
        (def.dependent_dialects)()
            .iter()
            .map(|handle| handle.to_raw())
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let info = ffi::TritiumPassInfo {
        argument: leak_c_string(def.argument),
        summary: leak_c_string(def.summary),
        op_name: leak_c_string(def.anchor.unwrap_or("")),
        options: options.as_ptr(),
        num_options: options.len(),
        dependent_dialects: dialects.as_ptr(),
        num_dependent_dialects: dialects.len(),
        run: run_pass,
        user_data: def as *const PassDef as *const c_void,
    };
    // SAFETY: the C++ side copies `info` (valid for the call); the strings, option infos and
    // dialect handles it points to are leaked, so they live as long as MLIR's registry, and
    // `user_data` is the `&'static PassDef` given back to `run_pass`.
    unsafe { ffi::tritiumRegisterPass(&info) };
}

unsafe extern "C" fn build_pipeline(
    user_data: *const c_void,
    values: *const MlirStringRef,
    count: usize,
    append: ffi::AppendText,
    out: *mut c_void,
) -> bool {
    // SAFETY: `user_data` is the `&'static PipelineDef` that `register_pipeline` registered with
    // this callback.
    let def = unsafe { &*(user_data as *const PipelineDef) };
    // SAFETY: `values` points to `count` option strings that live for this call.
    let options = unsafe { option_values(def.options, values, count) };
    match catch_unwind(AssertUnwindSafe(|| (def.build)(&options))) {
        Ok(Ok(text)) => {
            // SAFETY: `append` is the C++ callback paired with `out`; `text` outlives the call,
            // which copies it.
            unsafe {
                append(
                    MlirStringRef {
                        data: text.as_ptr() as *const _,
                        length: text.len(),
                    },
                    out,
                )
            };
            true
        }
        Ok(Err(message)) => {
            eprintln!("error: pipeline '{}': {message}", def.argument);
            false
        }
        Err(_) => false,
    }
}

/// Registers a named pipeline in MLIR's pass registry.
pub fn register_pipeline(def: &'static PipelineDef) {
    let options = option_infos(def.options);
    let info = ffi::TritiumPipelineInfo {
        argument: leak_c_string(def.argument),
        summary: leak_c_string(def.summary),
        options: options.as_ptr(),
        num_options: options.len(),
        build: build_pipeline,
        user_data: def as *const PipelineDef as *const c_void,
    };
    // SAFETY: the C++ side copies `info` (valid for the call); everything it points to is leaked
    // (lives as long as MLIR's registry), and `user_data` is the `&'static PipelineDef` given back
    // to `build_pipeline`.
    unsafe { ffi::tritiumRegisterPipeline(&info) };
}

/// A pass as the pass registry lists it (like an entry of Triton's `Passes.td`): the definition
/// MLIR runs plus the longer documentation `--help` has no room for.
pub struct PassEntry {
    pub pass: &'static PassDef,
    /// What the pass does and when it applies, in a paragraph or two (Passes.td's `description`;
    /// `summary` is the one-line form).
    pub description: &'static str,
}

/// One pass of a pipeline with its option values, printed in MLIR's syntax: `name` or
/// `name{key=value key=value}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassSpec {
    pub name: &'static str,
    pub options: Vec<(&'static str, String)>,
}

impl PassSpec {
    /// `name` with every option at its default.
    pub fn new(name: &'static str) -> PassSpec {
        PassSpec {
            name,
            options: Vec::new(),
        }
    }

    /// Adds `key=value`.
    pub fn option(mut self, key: &'static str, value: impl std::fmt::Display) -> PassSpec {
        self.options.push((key, value.to_string()));
        self
    }
}

impl std::fmt::Display for PassSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)?;
        if !self.options.is_empty() {
            let options: Vec<String> = self
                .options
                .iter()
                .map(|(key, value)| format!("{key}={value}"))
                .collect();
            write!(f, "{{{}}}", options.join(" "))?;
        }
        Ok(())
    }
}

/// `passes` as a textual pipeline body: `a,b{k=v},c`.
pub fn pipeline_text(passes: &[PassSpec]) -> String {
    passes
        .iter()
        .map(PassSpec::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
