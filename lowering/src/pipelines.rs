//! The pass lists of the compiler's `allocate-shared-memory` and `llvm-dialect` stages, and the
//! `-tritium-llvm` pipeline built from them (defined once: [`crate::compile`] runs the same lists).

use tritium_dialects::pass::{OptionKind, PassOption, PassSpec, PipelineDef, pipeline_text};

/// MLIR's standard conversions that finish what `-convert-triton-gpu-to-llvm` leaves (scalar
/// arith/math/scf) in the LLVM dialect.
pub const FINISH_PIPELINE: &[&str] = &[
    "convert-scf-to-cf",
    "convert-arith-to-llvm",
    "convert-math-to-llvm",
    "convert-index-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
    "canonicalize",
    "cse",
];

/// The shared-memory allocation stage.
pub fn allocate_passes() -> Vec<PassSpec> {
    vec![PassSpec::new(crate::allocate::PASS.argument)]
}

/// The stage lowering TTGIR to the LLVM dialect for compute capability `capability` (0: the
/// module's `ttg.target`): Tritium's conversion, then MLIR's.
pub fn llvm_passes(capability: u32) -> Vec<PassSpec> {
    std::iter::once(
        PassSpec::new(crate::CONVERT_TO_LLVM.argument).option("compute-capability", capability),
    )
    .chain(FINISH_PIPELINE.iter().copied().map(PassSpec::new))
    .collect()
}

pub static LLVM_PIPELINE: PipelineDef = PipelineDef {
    argument: "tritium-llvm",
    summary: "TTGIR to the LLVM dialect: allocate-shared-memory, convert-triton-gpu-to-llvm, MLIR's standard conversions",
    options: &[PassOption {
        name: "compute-capability",
        description: "Target compute capability (80, 86, 89, 90); 0: from the module's ttg.target",
        kind: OptionKind::Int,
        default: "0",
    }],
    build: |options| {
        let capability = u32::try_from(options.int("compute-capability"))
            .map_err(|_| "compute-capability must not be negative".to_string())?;
        let passes: Vec<PassSpec> = allocate_passes()
            .into_iter()
            .chain(llvm_passes(capability))
            .collect();
        Ok(pipeline_text(&passes))
    },
};
