//! The one registry of Tritium's passes and pipelines: `triton-opt` and `tritium compile` both
//! register [`all_passes`] and [`all_pipelines`] through [`register_all`], and the pass-list
//! snapshot and `docs/passes.md` are checked against the same lists.

use crate::pipelines::LLVM_PIPELINE;
use std::sync::Once;
use tritium_dialects::pass::{PassEntry, PipelineDef, register_pass, register_pipeline};

/// The passes of this crate, in pipeline order.
pub static PASSES: &[PassEntry] = &[
    PassEntry {
        pass: &crate::allocate::PASS,
        description: "Places every shared-memory buffer of a TTGIR module: the scratch each op \
            needs while it is lowered (layout conversions through shared memory, cross-warp \
            reductions and scans, atomics' broadcasts, gathers, histograms, dot staging) and the \
            ttg.local_alloc buffers. Each buffer lives over an interval of the ops in program \
            order; buffers are placed first-fit, largest first, at 16-byte aligned offsets that \
            overlap no buffer live at the same time. Offsets go on the ops as allocation.offset \
            and the total on the module as ttg.shared.",
    },
    PassEntry {
        pass: &crate::CONVERT_TO_LLVM,
        description: "Lowers a TTGIR module to the LLVM dialect one thread's view at a time: every \
            distributed tensor becomes the scalars its thread holds, read off the tensor's linear \
            layout. Elementwise ops become one scalar op per register, loads and stores \
            vectorized predicated PTX, reductions combine within a thread, across lanes \
            (shuffles) and across warps (shared memory); data movement stays in registers when \
            the owning thread does not change, else goes through shared memory. The result is \
            LLVM dialect with NVVM ops and inline PTX plus scalar arith/math/scf, which MLIR's \
            standard conversions finish (see -tritium-llvm).",
    },
];

/// Every Tritium pass: the TTIR/TTGIR passes of `tritium-passes`, then the lowering's.
pub fn all_passes() -> Vec<&'static PassEntry> {
    tritium_passes::PASSES.iter().chain(PASSES).collect()
}

/// Every named pipeline: `-tritium-ttir`, `-tritium-ttgir`, `-tritium-llvm`.
pub fn all_pipelines() -> Vec<&'static PipelineDef> {
    tritium_passes::PIPELINES
        .iter()
        .copied()
        .chain([&LLVM_PIPELINE])
        .collect()
}

/// Registers MLIR's upstream passes and every Tritium pass and pipeline in MLIR's global
/// registry, once per process. Call before parsing a command line or a pipeline (`triton-opt`).
pub fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: takes no arguments and only adds MLIR's upstream passes to its global
        // registry; `ONCE` runs it once per process (registering one again is a no-op).
        unsafe { mlir_sys::mlirRegisterAllPasses() };
    });
    register_tritium();
}

/// Registers the upstream passes Tritium's own pipelines run ([`UPSTREAM_PASSES_USED`]) and
/// every Tritium pass and pipeline: what compiling needs, without the few milliseconds all of
/// MLIR's passes take to register in every process.
pub fn register_for_compile() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for (_, register) in UPSTREAM_PASSES_USED {
            // SAFETY: each takes no arguments and only adds one upstream pass to MLIR's global
            // registry; `ONCE` runs them once per process (registering one again is a no-op).
            unsafe { register() };
        }
    });
    register_tritium();
}

/// The upstream passes Tritium's pipelines (TTIR, TTGIR, LLVM) run, with the C API function
/// registering each (a test checks every stage's passes are Tritium's or listed here).
pub const UPSTREAM_PASSES_USED: &[(&str, unsafe extern "C" fn())] = &[
    ("inline", mlir_sys::mlirRegisterTransformsInliner),
    (
        "canonicalize",
        mlir_sys::mlirRegisterTransformsCanonicalizer,
    ),
    ("cse", mlir_sys::mlirRegisterTransformsCSE),
    ("symbol-dce", mlir_sys::mlirRegisterTransformsSymbolDCE),
    (
        "convert-scf-to-cf",
        mlir_sys::mlirRegisterConversionSCFToControlFlowPass,
    ),
    (
        "convert-arith-to-llvm",
        mlir_sys::mlirRegisterConversionArithToLLVMConversionPass,
    ),
    (
        "convert-math-to-llvm",
        mlir_sys::mlirRegisterConversionConvertMathToLLVMPass,
    ),
    (
        "convert-index-to-llvm",
        mlir_sys::mlirRegisterConversionConvertIndexToLLVMPass,
    ),
    (
        "convert-cf-to-llvm",
        mlir_sys::mlirRegisterConversionConvertControlFlowToLLVMPass,
    ),
    (
        "reconcile-unrealized-casts",
        mlir_sys::mlirRegisterConversionReconcileUnrealizedCastsPass,
    ),
    (
        DEBUG_INFO_SCOPE_PASS,
        mlir_sys::mlirRegisterLLVMDIScopeForLLVMFuncOpPass,
    ),
];

/// The pass giving LLVM functions a debug-info scope (line tables), run after the lowering.
pub const DEBUG_INFO_SCOPE_PASS: &str = "ensure-debug-info-scope-on-llvm-func";

fn register_tritium() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for entry in all_passes() {
            register_pass(entry.pass);
        }
        for pipeline in all_pipelines() {
            register_pipeline(pipeline);
        }
    });
}

/// The registry as Markdown (`docs/passes.md`, checked by a test): every pass with its summary,
/// description, options and the dialects it creates, then every pipeline with its expansion at
/// default options.
pub fn markdown() -> String {
    use tritium_dialects::pass::Options;
    let mut out = String::from(
        "# Pass registry\n\n\
         Generated from `lowering/src/pass_registry.rs` (`tritium_lowering::pass_registry::markdown`); a test \
         fails when this file is stale. Regenerate with\n\
         `UPDATE_DOCS=1 cargo test -p tritium-lowering registry_doc`.\n",
    );
    for entry in all_passes() {
        let pass = entry.pass;
        out.push_str(&format!(
            "\n## `-{}`\n\n{}.\n\n",
            pass.argument, pass.summary
        ));
        out.push_str(&format!("{}\n\n", entry.description));
        out.push_str(&format!(
            "- runs on: `{}`\n",
            pass.anchor.unwrap_or("any op")
        ));
        let dialects: Vec<String> = (pass.dependent_dialects)()
            .iter()
            .map(|handle| format!("`{}`", handle.namespace().as_str().unwrap_or("?")))
            .collect();
        out.push_str(&format!(
            "- creates ops of: {}\n",
            if dialects.is_empty() {
                "no dialect beyond its input's".to_owned()
            } else {
                dialects.join(", ")
            }
        ));
        for option in pass.options {
            out.push_str(&format!(
                "- option `{}` ({:?}, default `{}`): {}\n",
                option.name, option.kind, option.default, option.description
            ));
        }
    }
    out.push_str("\n# Pipelines\n");
    for pipeline in all_pipelines() {
        let expansion = (pipeline.build)(&Options::defaults(pipeline.options))
            .unwrap_or_else(|error| format!("error: {error}"));
        out.push_str(&format!(
            "\n## `-{}`\n\n{}.\n\n",
            pipeline.argument, pipeline.summary
        ));
        for option in pipeline.options {
            out.push_str(&format!(
                "- option `{}` ({:?}, default `{}`): {}\n",
                option.name, option.kind, option.default, option.description
            ));
        }
        out.push_str(&format!("\n    {}\n", expansion.replace(',', ",\n    ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_is_listed_once_with_docs() {
        let mut names: Vec<&str> = all_passes().iter().map(|e| e.pass.argument).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a pass is listed twice");
        for entry in all_passes() {
            assert!(!entry.pass.summary.is_empty(), "{}", entry.pass.argument);
            assert!(
                entry.description.len() > entry.pass.summary.len(),
                "{}: the description should say more than the summary",
                entry.pass.argument
            );
        }
    }

    /// `register_for_compile` registers every upstream pass the compile stages run: each pass
    /// of the TTIR, TTGIR (sm_80 and sm_90), allocation and LLVM stages is Tritium's or listed.
    #[test]
    fn compile_registers_every_upstream_pass_it_runs() {
        let ours: Vec<&str> = all_passes().iter().map(|e| e.pass.argument).collect();
        let mut stages = tritium_passes::pipelines::ttir_passes();
        for capability in [80, 90] {
            let options = tritium_passes::pipelines::TtgirOptions {
                num_warps: 4,
                num_stages: 3,
                capability,
                persistent_programs: true,
                descriptor_loads: true,
            };
            stages.extend(tritium_passes::pipelines::ttgir_passes(&options).unwrap());
            stages.extend(crate::pipelines::llvm_passes(capability));
        }
        stages.extend(crate::pipelines::allocate_passes());
        let upstream: Vec<&str> = UPSTREAM_PASSES_USED.iter().map(|(name, _)| *name).collect();
        for spec in stages {
            assert!(
                ours.contains(&spec.name) || upstream.contains(&spec.name),
                "{} runs when compiling but register_for_compile does not register it",
                spec.name
            );
        }
    }

    #[test]
    fn registry_doc_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/passes.md");
        let generated = markdown();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let current = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            current == generated,
            "docs/passes.md is stale: run UPDATE_DOCS=1 cargo test -p tritium-lowering registry_doc"
        );
    }
}
