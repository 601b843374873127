//! The stages of a compilation, in order, and the time each took.
//!
//! [`Stage::ALL`] is the pipeline of [`crate::compile::compile`]: it runs each stage, then verifies
//! what the stage produced (MLIR's verifier after the MLIR stages, LLVM's module verifier after
//! translation and optimization). The MLIR stages' pass lists come from the crates that define
//! the passes ([`Stage::passes`]); `triton-opt`'s `-tritium-ttir`, `-tritium-ttgir` and
//! `-tritium-llvm` print the same lists ([`Stage::pipeline`]).

use std::fmt;
use std::time::Duration;
use tritium_dialects::pass::{PassSpec, PipelineDef};
use tritium_passes::pipelines::{self as ttgir_pipelines, TtgirOptions};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Parse the input text and verify it.
    Parse,
    /// Triton's `make_ttir` passes (skipped for TTGIR input).
    TtirPasses,
    /// TTIR to TTGIR: layouts, coalescing, tensor cores, layout-conversion removal (skipped for
    /// TTGIR input).
    TtgirPasses,
    /// `-allocate-shared-memory`.
    AllocateSharedMemory,
    /// `-convert-triton-gpu-to-llvm` and MLIR's standard conversions.
    LowerToLlvm,
    /// MLIR's translation of the LLVM dialect to LLVM IR.
    TranslateToLlvmIr,
    /// LLVM's `default<O3>` for the NVPTX target, then the SLP vectorizer with a generic target's
    /// costs (as Triton's O3 runs it) and the scalarizer (kernels without a dot).
    OptimizeLlvm,
    /// LLVM's NVPTX backend: PTX assembly.
    Nvptx,
}

impl Stage {
    /// Every stage, in the order a compilation runs them.
    pub const ALL: [Stage; 8] = [
        Stage::Parse,
        Stage::TtirPasses,
        Stage::TtgirPasses,
        Stage::AllocateSharedMemory,
        Stage::LowerToLlvm,
        Stage::TranslateToLlvmIr,
        Stage::OptimizeLlvm,
        Stage::Nvptx,
    ];

    /// The short name errors and `--timing` print.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::TtirPasses => "ttir",
            Stage::TtgirPasses => "ttgir",
            Stage::AllocateSharedMemory => "allocate-shared-memory",
            Stage::LowerToLlvm => "llvm-dialect",
            Stage::TranslateToLlvmIr => "llvm-ir",
            Stage::OptimizeLlvm => "llvm-opt",
            Stage::Nvptx => "ptx",
        }
    }

    /// What the stage does, in words.
    pub fn title(self) -> &'static str {
        match self {
            Stage::Parse => "parsing the input",
            Stage::TtirPasses => "TTIR passes",
            Stage::TtgirPasses => "TTGIR passes",
            Stage::AllocateSharedMemory => "shared-memory allocation",
            Stage::LowerToLlvm => "lowering to the LLVM dialect",
            Stage::TranslateToLlvmIr => "translation to LLVM IR",
            Stage::OptimizeLlvm => "LLVM optimization",
            Stage::Nvptx => "NVPTX code generation",
        }
    }

    /// The MLIR passes a pass-pipeline stage runs on the module (`None` for the other stages).
    pub fn passes(self, ttgir: &TtgirOptions) -> Option<Result<Vec<PassSpec>, String>> {
        match self {
            Stage::TtirPasses => Some(Ok(ttgir_pipelines::ttir_passes())),
            Stage::TtgirPasses => Some(ttgir_pipelines::ttgir_passes(ttgir)),
            Stage::AllocateSharedMemory => Some(Ok(crate::pipelines::allocate_passes())),
            Stage::LowerToLlvm => Some(Ok(crate::pipelines::llvm_passes(ttgir.capability))),
            _ => None,
        }
    }

    /// The `triton-opt` pipeline that runs this stage's passes (`-tritium-llvm` runs two stages).
    pub fn pipeline(self) -> Option<&'static PipelineDef> {
        match self {
            Stage::TtirPasses => Some(&ttgir_pipelines::TTIR),
            Stage::TtgirPasses => Some(&ttgir_pipelines::TTGIR),
            Stage::AllocateSharedMemory | Stage::LowerToLlvm => {
                Some(&crate::pipelines::LLVM_PIPELINE)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The wall time of each stage of one compilation (`tritium compile --timing`).
#[derive(Clone, Debug, Default)]
pub struct StageTimes {
    /// In the order run; `None` for a stage skipped (TTIR/TTGIR passes of TTGIR input).
    rows: Vec<(Stage, Option<Duration>)>,
}

impl StageTimes {
    pub fn record(&mut self, stage: Stage, time: Duration) {
        self.rows.push((stage, Some(time)));
    }

    pub fn skip(&mut self, stage: Stage) {
        self.rows.push((stage, None));
    }

    /// The time of `stage`, if it ran.
    pub fn get(&self, stage: Stage) -> Option<Duration> {
        self.rows
            .iter()
            .find(|(s, _)| *s == stage)
            .and_then(|(_, time)| *time)
    }

    /// Every stage recorded, in order, with its time (`None`: skipped).
    pub fn rows(&self) -> &[(Stage, Option<Duration>)] {
        &self.rows
    }

    pub fn total(&self) -> Duration {
        self.rows.iter().filter_map(|(_, time)| *time).sum()
    }
}

impl fmt::Display for StageTimes {
    /// A table: `stage  ms`, one row per stage, then the total.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |time: Duration| format!("{:.3}", time.as_secs_f64() * 1e3);
        writeln!(f, "{:<24}{:>12}", "stage", "ms")?;
        for (stage, time) in &self.rows {
            match time {
                Some(time) => writeln!(f, "{:<24}{:>12}", stage.name(), ms(*time))?,
                None => writeln!(f, "{:<24}{:>12}  (skipped)", stage.name(), "-")?,
            }
        }
        writeln!(f, "{:<24}{:>12}", "total", ms(self.total()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritium_dialects::pass::{Options, pipeline_text};

    /// Each `triton-opt` pipeline expands to exactly the pass lists of the stages it stands for.
    #[test]
    fn triton_opt_pipelines_are_the_compile_stages() {
        let ttgir = TtgirOptions {
            num_warps: 8,
            num_stages: 2,
            capability: 80,
            persistent_programs: false,
            descriptor_loads: false,
        };
        let mut by_pipeline: Vec<(&'static str, Vec<PassSpec>)> = Vec::new();
        for stage in Stage::ALL {
            let (Some(pipeline), Some(passes)) = (stage.pipeline(), stage.passes(&ttgir)) else {
                assert!(stage.pipeline().is_none() && stage.passes(&ttgir).is_none());
                continue;
            };
            let passes = passes.unwrap();
            match by_pipeline.last_mut() {
                Some((argument, list)) if *argument == pipeline.argument => list.extend(passes),
                _ => by_pipeline.push((pipeline.argument, passes)),
            }
        }
        let names: Vec<&str> = by_pipeline.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["tritium-ttir", "tritium-ttgir", "tritium-llvm"]);
        for (argument, passes) in by_pipeline {
            let pipeline = crate::pass_registry::all_pipelines()
                .into_iter()
                .find(|p| p.argument == argument)
                .unwrap();
            let options = match argument {
                "tritium-ttgir" => Options::defaults(pipeline.options)
                    .with("num-warps", "8")
                    .with("num-stages", "2")
                    .with("target", "cuda:80"),
                "tritium-llvm" => {
                    Options::defaults(pipeline.options).with("compute-capability", "80")
                }
                _ => Options::defaults(pipeline.options),
            };
            assert_eq!(
                (pipeline.build)(&options).unwrap(),
                pipeline_text(&passes),
                "-{argument} differs from the compile stages"
            );
        }
    }

    #[test]
    fn timing_table_lists_every_stage_and_the_total() {
        let mut times = StageTimes::default();
        times.record(Stage::Parse, Duration::from_micros(1500));
        times.skip(Stage::TtirPasses);
        times.record(Stage::Nvptx, Duration::from_millis(2));
        assert_eq!(times.total(), Duration::from_micros(3500));
        assert_eq!(times.get(Stage::TtirPasses), None);
        let table = times.to_string();
        assert_eq!(
            table.lines().collect::<Vec<_>>(),
            [
                "stage                             ms",
                "parse                          1.500",
                "ttir                               -  (skipped)",
                "ptx                            2.000",
                "total                          3.500",
            ]
        );
    }
}
