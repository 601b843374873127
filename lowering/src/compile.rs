//! The whole compiler as one function, [`compile_timed`]: TTIR (or TTGIR) text → every
//! [`Stage`] in order → PTX, with the launch metadata a runtime needs.
//!
//! Like Cranelift's `Context::optimize`, each stage runs and then what it produced is verified:
//! MLIR's verifier after each MLIR stage (the pass manager's own per-pass verifier is off, so the
//! check belongs to the stage), LLVM's module verifier after translation and after optimization.
//! A failure is a [`CompileError`] naming the stage, with its diagnostics. The MLIR stages run the
//! pass lists [`Stage::passes`] gives, the same lists `triton-opt`'s named pipelines print.

use crate::debug::{self, DebugOptions};
use crate::diagnostics::{CompileError, Diagnostic, DiagnosticSink};
use crate::location::{self, has_file};
use crate::ptx::{self, Arch};
use crate::stage::{Stage, StageTimes};
use mlir_sys::*;
use std::time::Instant;
use tritium_dialects::melior::{
    Context,
    ir::{
        Module,
        operation::{OperationLike, OperationPrintingFlags},
    },
    pass::PassManager,
    utility::parse_pass_pipeline,
};
use tritium_dialects::pass::pipeline_text;
use tritium_passes::ir_util::*;
use tritium_passes::pipelines::TtgirOptions;

/// Warps per program when neither the options nor the module say.
pub const DEFAULT_NUM_WARPS: u32 = 4;
/// Software pipelining stages when neither the options nor the module say.
pub const DEFAULT_NUM_STAGES: u32 = 3;

/// Options of one compilation. `None` takes the value the input module records (TTGIR's
/// `ttg.num-warps`, `ttg.num-stages`, `ttg.target`), else the default; a value that contradicts
/// the module is an error.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    pub num_warps: Option<u32>,
    pub num_stages: Option<u32>,
    /// Default `sm_90a` (or `sm_NN` from the module's `cuda:NN`).
    pub arch: Option<Arch>,
    /// Keep the TTGIR and LLVM IR texts in the result.
    pub keep_intermediates: bool,
    /// Emit line tables from the input's locations (`.file`/`.loc` in the PTX), as Triton does.
    pub line_info: bool,
    /// Triton's debugging switches (IR dumps, pass timing, reproducers).
    pub debug: DebugOptions,
    /// Run eligible dot kernels persistently (`-tritium-persistent-programs`, TTIR input only):
    /// the result's `virtual_programs` says whether the kernel was rewritten.
    pub persistent_programs: bool,
    /// Read dot loops' pointer-tensor tiles through TMA descriptors (`-tritium-descriptor-loads`),
    /// those of the kernel's arguments passed by the launcher (`-tritium-host-descriptors`; TTIR
    /// input for sm_90 and later only).
    pub descriptor_loads: bool,
}

/// A compiled kernel.
#[derive(Debug)]
pub struct Compiled {
    /// Entry symbol (the public `tt.func`).
    pub name: String,
    pub ptx: String,
    pub num_warps: u32,
    pub num_stages: u32,
    /// Dynamic shared memory bytes a launch must provide.
    pub shared: u64,
    pub arch: Arch,
    /// Parameter types, in order (`*f32`, `i32`, ...).
    pub signature: Vec<String>,
    pub arg_names: Vec<String>,
    /// Global scratch bytes per program (0: none; else the kernel's last parameter is the
    /// scratch base) and their alignment.
    pub global_scratch_size: u64,
    pub global_scratch_align: u64,
    /// Per host-side TMA descriptor parameter (`nvTmaDesc`), what the runtime needs to encode
    /// it (Triton's `tensordesc_meta`: swizzle, elem_size, elem_type, block_size, fp4_padded).
    pub tensordesc_meta: Vec<serde_json::Value>,
    /// Per TMA descriptor the launcher encodes from the arguments (`-tritium-host-descriptors`:
    /// parameters after the signature's and the program count, before the global scratch), the
    /// runtime's `HostDescriptor`: base argument, extents and strides, box and swizzle.
    pub host_descriptors: Vec<serde_json::Value>,
    /// PTX ISA version times ten (84: PTX 8.4).
    pub ptx_version: u32,
    /// The kernel runs its programs persistently (`-tritium-persistent-programs`): its last
    /// parameter, after the signature's and before the global scratch, is the number of
    /// programs asked for along axis 0; a launch may run fewer (at least one).
    pub virtual_programs: bool,
    /// TTIR after the TTIR pipeline (TTIR input only).
    pub ttir: Option<String>,
    pub ttgir: Option<String>,
    pub llvm_dialect: Option<String>,
    pub llvm_ir: Option<String>,
}

/// Compiles TTIR (or TTGIR, whose layouts are then kept) `source` to PTX.
pub fn compile(
    source: &str,
    filename: &str,
    options: &CompileOptions,
) -> Result<Compiled, CompileError> {
    compile_timed(source, filename, options, &mut StageTimes::default())
}

/// [`compile`], recording each stage's wall time (verification included) in `times`.
pub fn compile_timed(
    source: &str,
    filename: &str,
    options: &CompileOptions,
    times: &mut StageTimes,
) -> Result<Compiled, CompileError> {
    compile_with(
        |context, sink| {
            tritium_dialects::ir::parse_module(context, source, filename).ok_or_else(|| {
                CompileError::Stage {
                    stage: Stage::Parse,
                    diagnostics: sink.take(&format!("{filename}: cannot parse")),
                }
            })
        },
        filename,
        options,
        times,
    )
}

/// [`compile_timed`] for a TTIR module built in memory (by the Python front end): `build` makes
/// it in the compilation's context (its time is the `parse` stage's), then every stage runs.
pub fn compile_built(
    build: impl for<'c> FnOnce(&'c Context) -> Result<Module<'c>, CompileError>,
    filename: &str,
    options: &CompileOptions,
    times: &mut StageTimes,
) -> Result<Compiled, CompileError> {
    compile_with(|context, _| build(context), filename, options, times)
}

fn compile_with(
    build: impl for<'c> FnOnce(&'c Context, &DiagnosticSink) -> Result<Module<'c>, CompileError>,
    filename: &str,
    options: &CompileOptions,
    times: &mut StageTimes,
) -> Result<Compiled, CompileError> {
    crate::pass_registry::register_for_compile();
    if let Some(warps) = options.num_warps
        && (!warps.is_power_of_two() || warps > 32)
    {
        return Err(CompileError::Options(format!(
            "--num-warps must be a power of two between 1 and 32, got {warps}"
        )));
    }
    let context = tritium_dialects::context::new_context();
    let sink = DiagnosticSink::attach(&context);
    let keep = options.keep_intermediates;

    let mut module = timed(times, Stage::Parse, || {
        let module = build(&context, &sink)?;
        verify_mlir(Stage::Parse, &module, &sink)?;
        if !collect_ops(module.as_operation().to_raw())
            .into_iter()
            .any(|op| op_name(op) == "tt.func")
        {
            return Err(CompileError::Stage {
                stage: Stage::Parse,
                diagnostics: vec![Diagnostic::error_at(
                    filename,
                    "no tt.func: the input must be Triton TTIR (or TTGIR)",
                )],
            });
        }
        Ok(module)
    })?;
    // The kernel's name, for MLIR_ENABLE_DUMP=NAME.
    let kernel_name = public_kernel(module.as_operation().to_raw(), filename, Stage::Parse)
        .map(crate::state::symbol_name)
        .unwrap_or_default();
    let target = Target::resolve(module.as_operation().to_raw(), filename, options)?;
    let ttgir_options = TtgirOptions {
        num_warps: target.num_warps,
        num_stages: target.num_stages,
        capability: target.arch.capability,
        persistent_programs: options.persistent_programs && !target.is_ttgir,
        descriptor_loads: options.descriptor_loads && !target.is_ttgir,
    };
    let mlir_stage = |stage: Stage, module: &mut Module, times: &mut StageTimes| {
        timed(times, stage, || {
            // Only called below for the four pass-pipeline stages, for which `passes` is `Some`.
            let passes = stage
                .passes(&ttgir_options)
                .expect("an MLIR pass-pipeline stage")
                .map_err(|message| CompileError::stage(stage, message))?;
            run_passes(
                &context,
                module,
                stage,
                &pipeline_text(&passes),
                &sink,
                (&options.debug, &kernel_name),
            )?;
            verify_mlir(stage, module, &sink)
        })
    };

    let mut ttir = None;
    if target.is_ttgir {
        times.skip(Stage::TtirPasses);
        times.skip(Stage::TtgirPasses);
    } else {
        mlir_stage(Stage::TtirPasses, &mut module, times)?;
        // With locations, values named after them, as Triton's `asm["ttir"]`.
        ttir = keep.then(|| {
            let flags = OperationPrintingFlags::new().enable_debug_info(true, false);
            // SAFETY: `flags` owns live printing flags; this only sets one of them.
            unsafe { mlirOpPrintingFlagsPrintNameLocAsPrefix(flags.to_raw()) };
            module
                .as_operation()
                .to_string_with_flags(flags)
                .unwrap_or_else(|_| module.as_operation().to_string())
        });
        mlir_stage(Stage::TtgirPasses, &mut module, times)?;
    }
    // The last stage that ran: symbol-dce drops private functions.
    let last_stage = if target.is_ttgir {
        Stage::Parse
    } else {
        Stage::TtgirPasses
    };
    let kernel = public_kernel(module.as_operation().to_raw(), filename, last_stage)?;
    // MLIR's verifier rejects public declarations, but a `nested` one has no body either.
    let (name, signature, arg_names) =
        kernel_signature(kernel).ok_or_else(|| CompileError::Stage {
            stage: last_stage,
            diagnostics: vec![Diagnostic::error_at(
                filename,
                "the kernel tt.func has no body",
            )],
        })?;
    let virtual_programs = attr_present(
        kernel,
        tritium_passes::persistent_programs::VIRTUAL_PROGRAMS,
    );
    let descriptors = tensordesc_meta(kernel)
        .and_then(|meta| Ok((meta, host_descriptors(kernel)?)))
        .map_err(|message| CompileError::Stage {
            stage: last_stage,
            diagnostics: vec![Diagnostic::error_at(filename, &message)],
        })?;
    let (tensordesc_meta, host_descriptors) = descriptors;
    let ttgir = keep.then(|| module.as_operation().to_string());

    mlir_stage(Stage::AllocateSharedMemory, &mut module, times)?;
    let shared = int_attr(module.as_operation().to_raw(), "ttg.shared").unwrap_or(0) as u64;
    // Kernels with a dot skip LLVM's SLP step (`ptx::optimize`): on the tutorials' matmul and
    // attention kernels it changed little (SASS within 5% either way, no spill removed) and cost
    // a third of their compile time.
    let mut has_dot = false;
    walk(module.as_operation().to_raw(), &mut |op| {
        has_dot |= matches!(
            op_name(op).as_str(),
            "tt.dot" | "tt.dot_scaled" | "ttng.warp_group_dot"
        );
    });
    mlir_stage(Stage::LowerToLlvm, &mut module, times)?;
    let module_op = module.as_operation().to_raw();
    let global_scratch_size =
        int_attr(module_op, "ttg.global_scratch_memory_size").unwrap_or(0) as u64;
    let global_scratch_align =
        int_attr(module_op, "ttg.global_scratch_memory_alignment").unwrap_or(1) as u64;
    if options.line_info {
        // A DISubprogram on each llvm.func from its location: translation then attaches the
        // ops' locations as !dbg line info. MLIR's pass needs a file in the callee of every
        // call-site location (ops inlined from a helper), which folded constants lack.
        // Module-level ops (globals) are outside any function: no call sites there either.
        let top = module.as_operation().to_raw();
        for op in collect_ops(top) {
            // SAFETY: `op` is a live op of the module; locations are uniqued in its context.
            unsafe {
                let mut loc = without_fileless_callees(mlirOperationGetLocation(op));
                if mlirOperationEqual(mlirOperationGetParentOperation(op), top) {
                    while mlirLocationIsACallSite(loc) {
                        loc = mlirLocationCallSiteGetCaller(loc);
                    }
                }
                mlirOperationSetLocation(op, loc);
            }
        }
        run_passes(
            &context,
            &mut module,
            Stage::LowerToLlvm,
            &format!(
                "{}{{emission-kind=LineTablesOnly}}",
                crate::pass_registry::DEBUG_INFO_SCOPE_PASS
            ),
            &sink,
            (&options.debug, &kernel_name),
        )?;
    }
    let llvm_dialect = keep.then(|| module.as_operation().to_string());

    let llvm = timed(times, Stage::TranslateToLlvmIr, || {
        let llvm = ptx::translate(&module).ok_or_else(|| CompileError::Stage {
            stage: Stage::TranslateToLlvmIr,
            diagnostics: sink.take("translation to LLVM IR failed"),
        })?;
        verify_llvm(Stage::TranslateToLlvmIr, &llvm)?;
        Ok(llvm)
    })?;
    // LLVM_IR_ENABLE_DUMP: LLVM prints the module after each of its passes, as in Triton.
    let dump_llvm = options.debug.dump_llvm_ir;
    if dump_llvm {
        debug::set_llvm_print_after_all(true);
    }
    let _reset_llvm_printing = dump_llvm.then_some(ResetLlvmPrinting);
    let machine = timed(times, Stage::OptimizeLlvm, || {
        let machine = ptx::TargetMachine::new(target.arch)
            .map_err(|message| CompileError::stage(Stage::OptimizeLlvm, message))?;
        ptx::optimize(&llvm, &machine, !has_dot)
            .map_err(|message| CompileError::stage(Stage::OptimizeLlvm, message))?;
        verify_llvm(Stage::OptimizeLlvm, &llvm)?;
        Ok(machine)
    })?;
    let llvm_ir = keep.then(|| llvm.print());
    let mut ptx = timed(times, Stage::Nvptx, || {
        ptx::codegen(&llvm, &machine).map_err(|message| CompileError::stage(Stage::Nvptx, message))
    })?;
    if options.line_info {
        ptx = without_debug_target(&ptx);
    }

    Ok(Compiled {
        name,
        ptx,
        num_warps: target.num_warps,
        num_stages: target.num_stages,
        shared,
        arch: target.arch,
        signature,
        arg_names,
        global_scratch_size,
        global_scratch_align,
        tensordesc_meta,
        host_descriptors,
        ptx_version: target.arch.ptx_version(),
        virtual_programs,
        ttir,
        ttgir,
        llvm_dialect,
        llvm_ir,
    })
}

/// `loc` with each call site whose callee has no file position replaced by its caller.
fn without_fileless_callees(loc: MlirLocation) -> MlirLocation {
    // SAFETY: `loc` is a live location; the getters are called on the matching kinds, and new
    // locations are made in its context.
    unsafe {
        if mlirLocationIsACallSite(loc) {
            let callee = without_fileless_callees(mlirLocationCallSiteGetCallee(loc));
            let caller = without_fileless_callees(mlirLocationCallSiteGetCaller(loc));
            if has_file(callee) {
                mlirLocationCallSiteGet(callee, caller)
            } else {
                caller
            }
        } else if mlirLocationIsAName(loc) {
            let child = without_fileless_callees(mlirLocationNameGetChildLoc(loc));
            mlirLocationNameGet(
                mlirLocationGetContext(loc),
                mlirIdentifierStr(mlirLocationNameGetName(loc)),
                child,
            )
        } else {
            loc
        }
    }
}

/// `ptx` with `, debug` dropped from its `.target` line: NVPTX marks line tables as debug
/// information, which would make ptxas compile without optimization (Triton drops it too).
fn without_debug_target(ptx: &str) -> String {
    ptx.lines()
        .map(|line| match line.strip_prefix(".target ") {
            Some(targets) => {
                let kept: Vec<&str> = targets
                    .split(',')
                    .map(str::trim)
                    .filter(|t| *t != "debug")
                    .collect();
                format!(".target {}", kept.join(", "))
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if ptx.ends_with('\n') { "\n" } else { "" }
}

/// Runs `run` as `stage`, recording its wall time (failed or not).
fn timed<T>(
    times: &mut StageTimes,
    stage: Stage,
    run: impl FnOnce() -> Result<T, CompileError>,
) -> Result<T, CompileError> {
    let start = Instant::now();
    let result = run();
    times.record(stage, start.elapsed());
    result
}

/// Runs the textual pipeline `passes` on the module. The pass manager's per-pass verifier is off:
/// the stage verifies once, after its last pass ([`verify_mlir`]).
fn run_passes(
    context: &Context,
    module: &mut Module,
    stage: Stage,
    passes: &str,
    sink: &DiagnosticSink,
    (debug, kernel): (&DebugOptions, &str),
) -> Result<(), CompileError> {
    let pipeline = format!("builtin.module({passes})");
    let manager = PassManager::new(context);
    manager.enable_verifier(false);
    // SAFETY: the pass manager was just created in `context`, both live for the call.
    unsafe { debug::configure_pass_manager(context.to_raw(), manager.to_raw(), debug, kernel) };
    parse_pass_pipeline(manager.as_operation_pass_manager(), &pipeline).map_err(|error| {
        sink.clear();
        CompileError::stage(stage, format!("bad pipeline '{pipeline}': {error}"))
    })?;
    manager.run(module).map_err(|_| CompileError::Stage {
        stage,
        diagnostics: sink.take(&format!("pipeline '{pipeline}' failed")),
    })?;
    sink.clear();
    Ok(())
}

/// MLIR's verifier on the whole module, as the check that ends `stage`.
fn verify_mlir(stage: Stage, module: &Module, sink: &DiagnosticSink) -> Result<(), CompileError> {
    if module.as_operation().verify() {
        sink.clear();
        Ok(())
    } else {
        Err(CompileError::Verify {
            stage,
            diagnostics: sink.take("the module does not verify"),
        })
    }
}

/// LLVM's module verifier, as the check that ends `stage`.
fn verify_llvm(stage: Stage, module: &ptx::LlvmModule) -> Result<(), CompileError> {
    module.verify().map_err(|report| CompileError::Verify {
        stage,
        diagnostics: report
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(Diagnostic::error)
            .collect(),
    })
}

/// What the kernel is compiled for: the options, checked against what the module records.
struct Target {
    /// The input is TTGIR (it has `ttg.num-warps`): its layouts are kept.
    is_ttgir: bool,
    num_warps: u32,
    num_stages: u32,
    arch: Arch,
}

impl Target {
    fn resolve(
        module: MlirOperation,
        filename: &str,
        options: &CompileOptions,
    ) -> Result<Target, CompileError> {
        let contradiction =
            |option: &'static str, given: String, attribute: &'static str, recorded: String| {
                CompileError::Contradiction {
                    file: filename.to_owned(),
                    option,
                    given,
                    attribute,
                    recorded,
                }
            };
        let recorded_warps = int_attr(module, "ttg.num-warps");
        let num_warps = match (options.num_warps, recorded_warps) {
            (Some(given), Some(recorded)) if i64::from(given) != recorded => {
                return Err(contradiction(
                    "--num-warps",
                    given.to_string(),
                    "ttg.num-warps",
                    recorded.to_string(),
                ));
            }
            (Some(given), _) => given,
            (None, Some(recorded)) => u32::try_from(recorded).map_err(|_| {
                CompileError::Options(format!("{filename}: ttg.num-warps = {recorded}"))
            })?,
            (None, None) => DEFAULT_NUM_WARPS,
        };
        let num_stages = match (options.num_stages, int_attr(module, "ttg.num-stages")) {
            (Some(given), Some(recorded)) if i64::from(given) != recorded => {
                return Err(contradiction(
                    "--num-stages",
                    given.to_string(),
                    "ttg.num-stages",
                    recorded.to_string(),
                ));
            }
            (Some(given), _) => given,
            (None, Some(recorded)) => u32::try_from(recorded).map_err(|_| {
                CompileError::Options(format!("{filename}: ttg.num-stages = {recorded}"))
            })?,
            (None, None) => DEFAULT_NUM_STAGES,
        };
        let recorded_target = string_attr(module, "ttg.target");
        let arch = match (options.arch, recorded_target) {
            (given, None) => given.unwrap_or(Arch::parse("sm_90a").expect("a supported arch")),
            (given, Some(recorded)) => {
                let capability: Option<u32> = recorded
                    .strip_prefix("cuda:")
                    .and_then(|digits| digits.parse().ok());
                match (given, capability) {
                    (Some(given), Some(capability)) if given.capability != capability => {
                        return Err(contradiction(
                            "--arch",
                            given.name(),
                            "ttg.target",
                            format!("\"{recorded}\""),
                        ));
                    }
                    (Some(given), _) => given,
                    (None, Some(90)) => Arch::parse("sm_90a").expect("a supported arch"),
                    (None, Some(capability)) => Arch::parse(&format!("sm_{capability}"))
                        .map_err(|e| CompileError::Options(format!("{filename}: {e}")))?,
                    (None, None) => {
                        return Err(CompileError::Options(format!(
                            "{filename}: ttg.target = \"{recorded}\" is not a CUDA target"
                        )));
                    }
                }
            }
        };
        Ok(Target {
            is_ttgir: recorded_warps.is_some(),
            num_warps,
            num_stages,
            arch,
        })
    }
}

/// The module's one public `tt.func`. None is an error of `stage`, and so are several: Tritium
/// compiles one kernel per module into one PTX, as Triton does.
fn public_kernel(
    module: MlirOperation,
    filename: &str,
    stage: Stage,
) -> Result<MlirOperation, CompileError> {
    let kernels: Vec<MlirOperation> = collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "tt.func" && !is_private(*op))
        .collect();
    let position = |op: MlirOperation| {
        // SAFETY: `op` is a live op of the module.
        location::file_position(unsafe { mlirOperationGetLocation(op) })
            .map_or_else(|| filename.to_owned(), |p| p.to_string())
    };
    match kernels.as_slice() {
        [kernel] => Ok(*kernel),
        [] => Err(CompileError::Stage {
            stage,
            diagnostics: vec![Diagnostic::error_at(
                filename,
                "no public tt.func to compile",
            )],
        }),
        [first, others @ ..] => Err(CompileError::Stage {
            stage,
            diagnostics: others
                .iter()
                .map(|op| {
                    Diagnostic::error_at(
                        position(*op),
                        format!(
                            "a second public kernel `{}` (after `{}`): a module holds one \
                             kernel; make the others private or compile each from its own file",
                            crate::state::symbol_name(*op),
                            crate::state::symbol_name(*first)
                        ),
                    )
                })
                .collect(),
        }),
    }
}

/// Turns LLVM's `-print-after-all` off again when dropped (after `LLVM_IR_ENABLE_DUMP`).
struct ResetLlvmPrinting;

impl Drop for ResetLlvmPrinting {
    fn drop(&mut self) {
        debug::set_llvm_print_after_all(false);
    }
}

fn attr_present(op: MlirOperation, name: &str) -> bool {
    tritium_passes::ttir::util::attr(op, name).is_some()
}

fn is_private(func: MlirOperation) -> bool {
    string_attr(func, "sym_visibility").as_deref() == Some("private")
}

/// Name, parameter types and argument names of a kernel; `None` when it has no body.
fn kernel_signature(func: MlirOperation) -> Option<(String, Vec<String>, Vec<String>)> {
    let name = crate::state::symbol_name(func);
    let entry = *blocks_of(func).first()?;
    let mut signature = Vec::new();
    let mut names = Vec::new();
    let mut args = block_args(entry);
    // The launcher's descriptors come last; then its program count.
    args.truncate(args.len() - host_descriptor_attrs(func).len());
    if attr_present(func, tritium_passes::persistent_programs::VIRTUAL_PROGRAMS) {
        // The requested program count: the launcher's, not the caller's.
        args.pop();
    }
    for arg in args {
        let ty = value_type(arg);
        // SAFETY: `ty` is the live type of an argument; its pointee is read only from a
        // `!tt.ptr` (checked first).
        let text = unsafe {
            if tritium_dialects::ffi::tritiumTypeIsTensorDesc(ty) {
                // Triton's expanded signature: the `CUtensorMap` passed by value.
                "nvTmaDesc".to_owned()
            } else if tritium_dialects::ffi::tritiumTypeIsPointer(ty) {
                format!(
                    "*{}",
                    print_type(tritium_dialects::ffi::tritiumPointerTypeGetPointee(ty))
                )
            } else {
                print_type(ty)
            }
        };
        signature.push(text);
        // SAFETY: `arg` is a live block argument.
        let location = unsafe { mlirValueGetLocation(arg) };
        names.push(location::location_name(location).unwrap_or_default());
    }
    Some((name, signature, names))
}

/// Triton's `tensordesc_meta` for each tensor-descriptor parameter of the kernel's signature, in
/// order: the TMA box and swizzle of its block's shared layout.
fn tensordesc_meta(func: MlirOperation) -> Result<Vec<serde_json::Value>, String> {
    let Some(&entry) = blocks_of(func).first() else {
        return Ok(Vec::new());
    };
    let mut args = block_args(entry);
    args.truncate(args.len() - host_descriptor_attrs(func).len());
    let mut meta = Vec::new();
    for arg in args {
        if let Some(entry) = descriptor_meta(value_type(arg))? {
            meta.push(entry);
        }
    }
    Ok(meta)
}

/// The `tensordesc_meta` entry of a `!tt.tensordesc` type (`None` for other types).
fn descriptor_meta(ty: MlirType) -> Result<Option<serde_json::Value>, String> {
    // SAFETY: type queries on a live type; the block type is read only from a tensordesc.
    let block = unsafe {
        if !tritium_dialects::ffi::tritiumTypeIsTensorDesc(ty) {
            return Ok(None);
        }
        tritium_dialects::ffi::tritiumTensorDescTypeGetBlockType(ty)
    };
    let dims: Vec<u32> = shape(block).iter().map(|&d| d as u32).collect();
    let elem = element_type(block);
    let kind = tritium_passes::tma::elem_kind(elem).ok_or_else(|| {
        "a tensor descriptor argument's element type is not one TMA moves".to_owned()
    })?;
    let encoding = encoding_of(block).ok_or_else(|| {
        "a tensor descriptor argument has no shared layout (run -triton-nvidia-optimize-descriptor-encoding)"
            .to_owned()
    })?;
    let bits = crate::state::type_bits(elem);
    let tma = tritium_passes::tma::tma_box(&dims, bits, &encoding)?;
    Ok(Some(serde_json::json!({
        "swizzle": tma.swizzle_mode,
        "elem_size": tma.elem_bytes,
        "elem_type": tritium_passes::tma::elem_type_code(kind),
        "block_size": tma.box_dims,
        "fp4_padded": false,
    })))
}

/// The `tritium.host_descriptor` dictionaries of the function's trailing arguments
/// (`-tritium-host-descriptors`), in order.
fn host_descriptor_attrs(func: MlirOperation) -> Vec<MlirAttribute> {
    let name = tritium_passes::host_descriptors::HOST_DESCRIPTOR;
    let Some(arg_attrs) = tritium_passes::ttir::util::attr(func, "arg_attrs") else {
        return Vec::new();
    };
    // SAFETY: reads of the function's live `arg_attrs` array and its dictionaries.
    let dicts: Vec<MlirAttribute> = unsafe {
        (0..mlirArrayAttrGetNumElements(arg_attrs))
            .map(|i| mlirArrayAttrGetElement(arg_attrs, i))
            .collect()
    };
    let mut found = Vec::new();
    for dict in dicts.iter().rev() {
        // SAFETY: a live attribute; the entry is looked up only in a dictionary.
        let entry = unsafe {
            if !mlirAttributeIsADictionary(*dict) {
                break;
            }
            mlirDictionaryAttrGetElementByName(*dict, tritium_dialects::ffi::str_ref(name))
        };
        if entry.ptr.is_null() {
            break;
        }
        found.push(entry);
    }
    found.reverse();
    found
}

/// The metadata's `host_descriptors`: per trailing descriptor parameter of the kernel made by
/// `-tritium-host-descriptors`, where the launcher finds its base, extents and strides, and its
/// `tensordesc_meta` fields.
fn host_descriptors(func: MlirOperation) -> Result<Vec<serde_json::Value>, String> {
    let attrs = host_descriptor_attrs(func);
    let Some(&entry) = blocks_of(func).first() else {
        return Ok(Vec::new());
    };
    let args = block_args(entry);
    let mut out = Vec::new();
    for (arg, dict) in args[args.len() - attrs.len()..].iter().zip(attrs) {
        // SAFETY: reads of a live dictionary; each entry's kind is checked before it is read.
        let (base, shape, strides) = unsafe {
            let get = |dict: MlirAttribute, key: &str| {
                mlirDictionaryAttrGetElementByName(dict, tritium_dialects::ffi::str_ref(key))
            };
            let integer = |a: MlirAttribute| {
                (!a.ptr.is_null() && mlirAttributeIsAInteger(a))
                    .then(|| mlirIntegerAttrGetValueInt(a))
            };
            let list = |key: &str| descriptor_entries(get(dict, key));
            (integer(get(dict, "base")), list("shape"), list("strides"))
        };
        let (Some(base), Some(shape), Some(strides)) = (base, shape, strides) else {
            return Err(
                "a tritium.host_descriptor argument attribute lacks base, shape or strides, or \
                 has an entry other than {arg|value|programs = n} with n >= 0 or {product = [...]}"
                    .to_owned(),
            );
        };
        let Some(mut meta) = descriptor_meta(value_type(*arg))? else {
            return Err("a tritium.host_descriptor argument is not a tensor descriptor".to_owned());
        };
        meta["base"] = serde_json::json!(base);
        meta["shape"] = serde_json::Value::Array(shape);
        meta["strides"] = serde_json::Value::Array(strides);
        if let Some(map) = meta.as_object_mut() {
            map.remove("fp4_padded");
        }
        out.push(meta);
    }
    Ok(out)
}

/// A `tritium.host_descriptor` list, `[{arg = i}, {value = c}, {programs = a}, {product =
/// [...]}, ...]`, as the metadata's JSON entries.
fn descriptor_entries(array: MlirAttribute) -> Option<Vec<serde_json::Value>> {
    // SAFETY: reads of a live attribute; each kind is checked before it is read.
    unsafe {
        if array.ptr.is_null() || !mlirAttributeIsAArray(array) {
            return None;
        }
        let get = |dict: MlirAttribute, key: &str| {
            mlirDictionaryAttrGetElementByName(dict, tritium_dialects::ffi::str_ref(key))
        };
        (0..mlirArrayAttrGetNumElements(array))
            .map(|i| {
                let entry = mlirArrayAttrGetElement(array, i);
                if !mlirAttributeIsADictionary(entry) {
                    return None;
                }
                let factors = get(entry, "product");
                if !factors.ptr.is_null() {
                    return Some(serde_json::json!({ "product": descriptor_entries(factors)? }));
                }
                ["arg", "value", "programs"].into_iter().find_map(|key| {
                    let a = get(entry, key);
                    (!a.ptr.is_null() && mlirAttributeIsAInteger(a))
                        .then(|| mlirIntegerAttrGetValueInt(a))
                        .filter(|&v| v >= 0)
                        .map(|v| serde_json::json!({ key: v }))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel without a dot goes through the SLP vectorizer with a generic target's costs (as
    /// Triton's O3), then the scalarizer: the grouping reorders dropout's eight Philox streams
    /// (32 registers after ptxas, 48 ungrouped: `bench/sass-compare.py`, which needs ptxas) and
    /// leaves no vector arithmetic behind. Argmin's f16 compare chains, which the grouping pairs
    /// into `<2 x half>` (`setp.f16x2` and a repacking `prmt` per select), stay scalar.
    #[test]
    fn kernels_without_a_dot_leave_the_grouping_scalar() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/Inputs");
        let options = CompileOptions {
            num_warps: Some(4),
            keep_intermediates: true,
            ..Default::default()
        };
        for (kernel, scalar_op) in [
            ("dropout", "= xor i32 "),
            ("argmin_rows_f16", "= fcmp olt half "),
        ] {
            let file = format!("corpus/{kernel}.ttir");
            let text = std::fs::read_to_string(root.join(&file)).unwrap();
            let llvm_ir = compile(&text, &file, &options).unwrap().llvm_ir.unwrap();
            assert!(llvm_ir.contains(scalar_op), "{kernel}: no `{scalar_op}`");
            for vector_op in ["xor <", "mul <", "add <", "fcmp olt <", "select <"] {
                assert!(
                    !llvm_ir.contains(vector_op),
                    "{kernel}: vector arithmetic left (`{vector_op}`)"
                );
            }
        }
    }

    /// Triton 3.6's tensor-core kernels (`test/Inputs/kernels/dot`, `num_stages=1`): Tritium's
    /// TTGIR for the same TTIR picks the same mma layouts, and leaves no more
    /// `ttg.convert_layout`s than Triton's.
    #[test]
    fn tensor_core_ttgir_matches_tritons_choices() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/Inputs/kernels/dot");
        for kernel in [
            "mm_f16",
            "mm_f16_w4",
            "mm_f16_small",
            "mm_bf16",
            "mm_tf32",
            "mm_fp8",
            "attn",
            "attn_d128",
        ] {
            let read =
                |ext: &str| std::fs::read_to_string(dir.join(format!("{kernel}.{ext}"))).unwrap();
            let metadata: serde_json::Value = serde_json::from_str(&read("json")).unwrap();
            let options = CompileOptions {
                num_warps: metadata["num_warps"].as_u64().map(|w| w as u32),
                num_stages: Some(1),
                keep_intermediates: true,
                ..Default::default()
            };
            let ours = compile(&read("ttir"), &format!("{kernel}.ttir"), &options)
                .unwrap_or_else(|e| panic!("{kernel}: {e}"));
            let ours = ours.ttgir.unwrap();
            let triton = read("ttgir");
            let mma_lines = |text: &str| -> Vec<String> {
                let mut lines: Vec<String> = text
                    .lines()
                    .filter(|l| l.starts_with("#mma") || l.starts_with("#shared"))
                    .map(|l| {
                        l.split_once(" = ")
                            .map(|(_, v)| v.to_string())
                            .unwrap_or_default()
                    })
                    .collect();
                lines.sort();
                lines
            };
            assert_eq!(
                mma_lines(&ours),
                mma_lines(&triton),
                "{kernel}: mma and shared layouts"
            );
            let converts = |text: &str| text.matches("ttg.convert_layout").count();
            assert!(
                converts(&ours) <= converts(&triton),
                "{kernel}: {} convert_layouts, Triton {}",
                converts(&ours),
                converts(&triton)
            );
        }
    }

    const TTGIR: &str = r#"module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:80", "ttg.num-stages" = 2 : i32} {
  tt.func public @k(%p: !tt.ptr<f32>) {
    tt.return
  }
}
"#;

    #[test]
    fn ttgir_input_keeps_its_recorded_options() {
        let compiled = compile(TTGIR, "k.ttgir", &CompileOptions::default()).unwrap();
        assert_eq!(
            (
                compiled.num_warps,
                compiled.num_stages,
                compiled.arch.name()
            ),
            (8, 2, "sm_80".to_owned())
        );
        assert!(compiled.ptx.contains(".target sm_80"));
        assert_eq!(
            (compiled.name.as_str(), compiled.shared, compiled.signature),
            ("k", 0, vec!["*f32".to_owned()])
        );
        assert_eq!(compiled.arg_names, [""]);
    }

    #[test]
    fn options_contradicting_ttgir_are_errors() {
        let options = CompileOptions {
            num_warps: Some(4),
            ..CompileOptions::default()
        };
        let error = compile(TTGIR, "k.ttgir", &options).unwrap_err();
        assert_eq!(
            error.to_string(),
            "k.ttgir: --num-warps 4 contradicts the module's ttg.num-warps = 8"
        );
        let options = CompileOptions {
            arch: Some(Arch::parse("sm_90a").unwrap()),
            ..CompileOptions::default()
        };
        let error = compile(TTGIR, "k.ttgir", &options).unwrap_err();
        assert_eq!(
            error.to_string(),
            "k.ttgir: --arch sm_90a contradicts the module's ttg.target = \"cuda:80\""
        );
    }

    #[test]
    fn every_stage_is_timed_in_order() {
        let ttir = TTGIR.replace(r#""ttg.num-warps" = 8 : i32, "#, "");
        let mut times = StageTimes::default();
        compile_timed(&ttir, "k.ttir", &CompileOptions::default(), &mut times).unwrap();
        let stages: Vec<Stage> = times.rows().iter().map(|(stage, _)| *stage).collect();
        assert_eq!(stages, Stage::ALL);
        assert!(times.rows().iter().all(|(_, time)| time.is_some()));

        let mut times = StageTimes::default();
        compile_timed(TTGIR, "k.ttgir", &CompileOptions::default(), &mut times).unwrap();
        assert_eq!(times.get(Stage::TtirPasses), None);
        assert!(times.get(Stage::Nvptx).is_some());
    }

    #[test]
    fn a_failing_ttir_pass_fails_the_ttir_stage() {
        let source = r#"module {
  tt.func public @k(%p: !tt.ptr<tensor<8xf32>>) {
    %v = tt.load %p : !tt.ptr<tensor<8xf32>>
    tt.return
  }
}
"#;
        let error = compile(source, "k.ttir", &CompileOptions::default()).unwrap_err();
        assert_eq!(error.failed_stage(), Some(Stage::TtirPasses));
        assert_eq!(
            error.to_string(),
            "stage `ttir` (TTIR passes) failed\n\
             k.ttir:2:3: error: block pointer function arguments are not supported"
        );
    }

    #[test]
    fn a_failing_stage_is_named_with_its_diagnostics() {
        let source = r#"module {
  tt.func public @k(%p: !tt.ptr<f32>) {
    %v = tt.load %p : !tt.ptr<f32>
    %t = tt.extern_elementwise %v {libname = "", libpath = "", pure = true, symbol = "__nv_cyl_bessel_i0f"} : (f32) -> f32
    tt.store %p, %t : !tt.ptr<f32>
    tt.return
  }
}
"#;
        let error = compile(source, "k.ttir", &CompileOptions::default()).unwrap_err();
        // Allocation runs the lowering to size its buffers, so lowering errors surface there.
        assert!(matches!(
            error.failed_stage(),
            Some(Stage::AllocateSharedMemory | Stage::LowerToLlvm)
        ));
        let diagnostics = error.diagnostics();
        assert_eq!(diagnostics[0].location, "k.ttir:4:10");
        assert!(
            diagnostics[0]
                .message
                .contains("no Tritium implementation of '__nv_cyl_bessel_i0f'")
        );
    }
}
