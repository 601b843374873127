//! TTGIR to LLVM/NVVM lowering and in-process PTX emission.
//!
//! - [`to_llvm`]: the `-convert-triton-gpu-to-llvm` pass (TTGIR → LLVM dialect + NVVM + inline PTX).
//! - [`ptx`]: LLVM dialect → LLVM IR → NVPTX assembly, in process.
//! - [`compile`]: the whole pipeline from TTIR text to PTX and launch metadata, one named
//!   [`stage::Stage`] after another, each verified.
//! - [`pipelines`]: the pass lists of the lowering's stages and `-tritium-llvm`.
//! - [`registry`]: the one table of op lowerings; [`pass_registry`]: every pass and pipeline of
//!   Tritium, registered by both drivers.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod allocate;
pub mod builder;
pub mod compile;
pub mod debug;
pub mod diagnostics;
pub mod layout_map;
pub mod location;
pub mod math;
pub mod ops;
pub mod pass_registry;
pub mod pipelines;
pub mod ptx;
pub mod registry;
pub mod stage;
pub mod state;
pub mod to_llvm;

pub use pipelines::FINISH_PIPELINE;

use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::melior::ir::operation::OperationLike;
use tritium_dialects::pass::{
    OptionKind, Options, PassDef, PassOption, PassResult, dialects, fail,
};
use tritium_passes::ir_util::*;

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
    // The dialects of the ops it builds: LLVM and NVVM plus scalar arith/math/scf.
    dependent_dialects: || {
        vec![
            dialects::llvm(),
            dialects::nvvm(),
            dialects::arith(),
            dialects::math(),
            dialects::scf(),
        ]
    },
    run: run_convert,
};

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
            tritium_dialects::ffi::str_ref("ttg.shared"),
            mlirIntegerAttrGet(i32_type, lowered.shared_bytes as i64),
        );
        if lowered.global_scratch_size > 0 {
            // Triton's module attributes for the global scratch a launch provides per program.
            for (name, value) in [
                (
                    "ttg.global_scratch_memory_size",
                    lowered.global_scratch_size,
                ),
                (
                    "ttg.global_scratch_memory_alignment",
                    lowered.global_scratch_align,
                ),
            ] {
                mlirOperationSetDiscardableAttributeByName(
                    module,
                    tritium_dialects::ffi::str_ref(name),
                    mlirIntegerAttrGet(i32_type, value as i64),
                );
            }
        }
    }
    Ok(())
}

/// The LLVM/MLIR version Tritium is built on (from the linked LLVM).
pub fn llvm_version() -> String {
    unsafe extern "C" {
        fn LLVMGetVersion(major: *mut u32, minor: *mut u32, patch: *mut u32);
    }
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: LLVMGetVersion only writes one integer through each pointer, all to live locals.
    unsafe { LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}
