//! TTGIR to LLVM/NVVM lowering and in-process PTX emission.
//!
//! - [`to_llvm`]: the `-convert-triton-gpu-to-llvm` pass (TTGIR → LLVM dialect + NVVM + inline PTX).
//! - [`ptx`]: LLVM dialect → LLVM IR → NVPTX assembly, in process.
//! - [`compile`]: the whole pipeline from TTIR text to PTX and launch metadata, one named
//!   [`stage::Stage`] after another, each verified.
//! - [`pipelines`]: the pass lists of the lowering's stages and `-tritium-llvm`.
//! - [`registry`]: every pass and pipeline of Tritium, registered by both drivers.

pub mod allocate;
pub mod compile;
pub mod diagnostics;
pub mod emit;
pub mod layout_map;
pub mod math;
pub mod ops;
pub mod pipelines;
pub mod ptx;
pub mod registry;
pub mod stage;
pub mod to_llvm;

pub use pipelines::FINISH_PIPELINE;

use mlir_sys::*;
use tritium_dialects::melior::ir::{OperationRef, operation::OperationLike};
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
            description: "Target compute capability (80, 90)",
            kind: OptionKind::Int,
            default: "90",
        },
        PassOption {
            name: "ptx-version",
            description: "PTX ISA version times ten",
            kind: OptionKind::Int,
            default: "84",
        },
    ],
    // The lowered text it parses holds LLVM and NVVM ops plus scalar arith/math/scf.
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

fn run_convert(module_ref: OperationRef, _options: &Options) -> PassResult {
    let module = module_ref.to_raw();
    let lowered = match to_llvm::lower_module(module) {
        Ok(lowered) => lowered,
        Err(error) => {
            let location = error
                .op
                .map(|op| unsafe { mlirOperationGetLocation(op) })
                .unwrap_or(unsafe { mlirOperationGetLocation(module) });
            return Err(fail(
                unsafe { tritium_dialects::melior::ir::Location::from_raw(location) },
                &error.message,
            ));
        }
    };
    replace_module_body(module, &lowered.text)
        .map_err(|message| fail(module_ref.location(), &message))?;
    unsafe {
        let i32_type = mlirIntegerTypeGet(context_of(module), 32);
        let name = std::ffi::CString::new("ttg.shared").unwrap();
        mlirOperationSetDiscardableAttributeByName(
            module,
            mlirStringRefCreateFromCString(name.as_ptr()),
            mlirIntegerAttrGet(i32_type, lowered.shared_bytes as i64),
        );
    }
    Ok(())
}

/// Parses `text` as a module in `module`'s context and moves its ops into `module`'s body,
/// replacing what was there.
fn replace_module_body(module: MlirOperation, text: &str) -> Result<(), String> {
    unsafe {
        let ctx = context_of(module);
        let source = std::ffi::CString::new(text).map_err(|e| e.to_string())?;
        let parsed = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source.as_ptr()));
        if parsed.ptr.is_null() {
            let dump = std::env::temp_dir().join("tritium-lowered.mlir");
            let _ = std::fs::write(&dump, text);
            return Err(format!(
                "internal error: the lowered module does not parse (written to {})",
                dump.display()
            ));
        }
        let body = mlirModuleGetBody(mlirModuleFromOperation(module));
        let mut op = mlirBlockGetFirstOperation(body);
        while !op.ptr.is_null() {
            let next = mlirOperationGetNextInBlock(op);
            mlirOperationDestroy(op);
            op = next;
        }
        let parsed_body = mlirModuleGetBody(parsed);
        let mut op = mlirBlockGetFirstOperation(parsed_body);
        while !op.ptr.is_null() {
            let next = mlirOperationGetNextInBlock(op);
            mlirOperationRemoveFromParent(op);
            mlirBlockAppendOwnedOperation(body, op);
            op = next;
        }
        mlirModuleDestroy(parsed);
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
