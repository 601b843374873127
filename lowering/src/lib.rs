//! TTGIR to LLVM/NVVM lowering and in-process PTX emission.
//!
//! - [`to_llvm`]: the `-convert-triton-gpu-to-llvm` pass (TTGIR → LLVM dialect + NVVM + inline PTX).
//! - [`ptx`]: LLVM dialect → LLVM IR → NVPTX assembly, in process.
//! - [`compile`]: the whole pipeline from TTIR text to PTX and launch metadata.

pub mod allocate;
pub mod builder;
pub mod compile;
pub mod layout_map;
pub mod math;
pub mod ops;
pub mod ptx;
pub mod registry;
pub mod state;
pub mod to_llvm;

use mlir_sys::*;
use state::string_attr;
use tritium_dialects::melior::dialect::DialectHandle;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::melior::ir::operation::OperationLike;
use tritium_dialects::pass::{
    OptionKind, Options, PassDef, PassOption, PassResult, PipelineDef, fail, register_pass,
    register_pipeline,
};
use tritium_passes::ir_util::*;

/// MLIR's standard conversions that finish what `-convert-triton-gpu-to-llvm` leaves (scalar
/// arith/math/scf) in the LLVM dialect.
pub const FINISH_PIPELINE: &str = "convert-scf-to-cf,convert-arith-to-llvm,convert-math-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts,canonicalize,cse";

pub static CONVERT_TO_LLVM: PassDef = PassDef {
    argument: "convert-triton-gpu-to-llvm",
    summary: "Lower TTGIR to the LLVM dialect (NVVM, inline PTX) one thread's view at a time",
    anchor: Some("builtin.module"),
    options: &[
        PassOption {
            name: "compute-capability",
            description: "Target compute capability (80, 86, 89, 90); 0: from the module's ttg.target",
            kind: OptionKind::Int,
            default: "0",
        },
        PassOption {
            name: "ptx-version",
            description: "PTX ISA version times ten",
            kind: OptionKind::Int,
            default: "84",
        },
    ],
    dependent_dialects: lowered_dialects,
    run: run_convert,
};

pub static LLVM_PIPELINE: PipelineDef = PipelineDef {
    argument: "tritium-llvm",
    summary: "TTGIR to the LLVM dialect: allocate-shared-memory, convert-triton-gpu-to-llvm, MLIR's standard conversions",
    options: &[],
    build: |_| {
        Ok(format!(
            "allocate-shared-memory,convert-triton-gpu-to-llvm,{FINISH_PIPELINE}"
        ))
    },
};

/// The dialects whose ops `-convert-triton-gpu-to-llvm` creates.
fn lowered_dialects() -> Vec<DialectHandle> {
    // SAFETY: the handles of dialects linked into this binary.
    let (nvvm, math) = unsafe {
        (
            DialectHandle::from_raw(mlirGetDialectHandle__nvvm__()),
            DialectHandle::from_raw(mlirGetDialectHandle__math__()),
        )
    };
    vec![
        DialectHandle::llvm(),
        nvvm,
        DialectHandle::scf(),
        DialectHandle::arith(),
        math,
    ]
}

/// Registers the lowering passes. Call once, before parsing a command line.
pub fn register_all() {
    register_pass(&allocate::PASS);
    register_pass(&CONVERT_TO_LLVM);
    register_pipeline(&LLVM_PIPELINE);
}

fn run_convert(module_ref: OperationRef, options: &Options) -> PassResult {
    let module = module_ref.to_raw();
    let capability = match options.int("compute-capability") {
        0 => string_attr(module, "ttg.target")
            .and_then(|t| t.strip_prefix("cuda:").and_then(|c| c.parse().ok()))
            .unwrap_or(90),
        explicit => explicit.clamp(0, 1000) as u32,
    };
    if !matches!(capability, 80 | 86 | 89 | 90) {
        return Err(fail(
            module_ref.location(),
            &format!("compute capability {capability} is not supported (80, 86, 89 or 90)"),
        ));
    }
    let target = to_llvm::Target {
        capability,
        ptx_version: options.int("ptx-version").clamp(0, 1000) as u32,
    };
    let lowered = to_llvm::lower_module(module, target).map_err(|error| {
        // SAFETY: the failing op (or the module) is live; locations are uniqued in the context.
        let location = unsafe {
            tritium_dialects::melior::ir::Location::from_raw(mlirOperationGetLocation(
                error.op.unwrap_or(module),
            ))
        };
        fail(location, &error.message)
    })?;
    // SAFETY: `module` is live; the attribute is made in its context.
    unsafe {
        let i32_type = mlirIntegerTypeGet(context_of(module), 32);
        mlirOperationSetDiscardableAttributeByName(
            module,
            builder::sref("ttg.shared"),
            mlirIntegerAttrGet(i32_type, lowered.shared_bytes as i64),
        );
    }
    Ok(())
}

/// The LLVM/MLIR version Tritium is built on (from the linked LLVM).
pub fn llvm_version() -> String {
    unsafe extern "C" {
        fn LLVMGetVersion(major: *mut u32, minor: *mut u32, patch: *mut u32);
    }
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    unsafe { LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}
