//! The pass lists of the compiler's TTIR and TTGIR stages, and the named pipelines built from them:
//! `-tritium-ttir` (Triton 3.6's make_ttir order) and `-tritium-ttgir`.
//!
//! Each list is defined here once. `tritium_lowering::compile` runs [`ttir_passes`] and
//! [`ttgir_passes`] as its `ttir` and `ttgir` stages, and the pipelines `triton-opt` registers
//! print the same lists, so the two drivers cannot differ.

use crate::convert_to_gpu::{MAX_NUM_STAGES, check_launch_options, parse_target};
use tritium_dialects::pass::{
    OptionKind, Options, PassOption, PassSpec, PipelineDef, pipeline_text,
};
use tritium_dialects::verify::ttg::THREADS_PER_WARP;

/// The TTIR stage: Triton's `make_ttir`. The unroller clamps the trip count: without it (Triton's
/// behaviour, the pass's default) a loop with `ub < lb` and `step > 1` can run iterations after
/// unrolling that it would not have run (found by the fuzzer's differential check).
pub fn ttir_passes() -> Vec<PassSpec> {
    let mut passes: Vec<PassSpec> = [
        "inline",
        "triton-rewrite-tensor-pointer",
        "canonicalize",
        "triton-combine",
        "triton-reorder-broadcast",
        "cse",
        "symbol-dce",
    ]
    .into_iter()
    .map(PassSpec::new)
    .collect();
    passes.push(PassSpec::new("triton-loop-unroll").option("clamp-trip-count", true));
    passes
}

/// What the TTGIR stage is compiled for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TtgirOptions {
    /// Warps per program: a power of two in 1..=32.
    pub num_warps: u32,
    /// Software pipelining stages (`-tritongpu-pipeline`'s buffers per pipelined load).
    pub num_stages: u32,
    /// Compute capability times ten (`90` for `cuda:90`).
    pub capability: u32,
    /// Run eligible dot kernels persistently (`-tritium-persistent-programs` first): the kernel
    /// then takes the requested program count as a last parameter, which its launcher passes.
    pub persistent_programs: bool,
    /// Read dot loops' pointer-tensor tiles through TMA descriptors (`-tritium-descriptor-loads`,
    /// after persistence), those of the kernel's arguments passed as parameters the launcher
    /// encodes (`-tritium-host-descriptors`; sm_90 and later only).
    pub descriptor_loads: bool,
}

/// The TTGIR stage: layouts, coalescing, tensor cores, layout-conversion removal and software
/// pipelining, in the order of Triton 3.6's `make_ttgir` for the passes Tritium has.
pub fn ttgir_passes(options: &TtgirOptions) -> Result<Vec<PassSpec>, String> {
    let warps = options.num_warps;
    let stages = options.num_stages;
    check_launch_options(warps as i64, THREADS_PER_WARP, 1, stages as i64)?;
    parse_target(&format!("cuda:{}", options.capability))?;
    let mut passes = Vec::new();
    if options.persistent_programs {
        passes.push(PassSpec::new("tritium-persistent-programs"));
    }
    if options.descriptor_loads && options.capability >= 90 {
        passes.push(PassSpec::new("tritium-descriptor-loads"));
        passes.push(PassSpec::new("tritium-host-descriptors"));
    }
    passes.extend([
        PassSpec::new("convert-triton-to-tritongpu")
            .option("num-warps", warps)
            .option("num-stages", stages)
            .option("target", format!("cuda:{}", options.capability)),
        PassSpec::new("tritongpu-coalesce"),
        PassSpec::new("tritongpu-F32DotTC"),
        PassSpec::new("tritongpu-accelerate-matmul"),
        PassSpec::new("tritongpu-remove-layout-conversions"),
        PassSpec::new("tritongpu-optimize-thread-locality"),
        PassSpec::new("cse"),
        PassSpec::new("tritongpu-remove-layout-conversions"),
        PassSpec::new("tritongpu-optimize-dot-operands"),
        PassSpec::new("triton-nvidia-optimize-descriptor-encoding"),
        PassSpec::new("tritongpu-fuse-nested-loops"),
        PassSpec::new("canonicalize"),
        PassSpec::new("triton-licm"),
        PassSpec::new("canonicalize"),
        PassSpec::new("tritongpu-optimize-accumulator-init"),
        PassSpec::new("tritongpu-combine-tensor-select-and-if"),
        PassSpec::new("tritongpu-assign-latencies").option("num-stages", stages),
        PassSpec::new("tritongpu-schedule-loops"),
        PassSpec::new("tritongpu-pipeline").option("num-stages", stages),
        PassSpec::new("tritium-prefetch-loop-loads").option("num-stages", stages),
        PassSpec::new("canonicalize"),
        PassSpec::new("tritongpu-prefetch"),
        PassSpec::new("tritongpu-remove-layout-conversions"),
        PassSpec::new("tritongpu-reduce-data-duplication"),
        PassSpec::new("tritongpu-reorder-instructions"),
        PassSpec::new("tritium-early-loads"),
        PassSpec::new("tritium-loop-pointer-offsets"),
    ]);
    if options.capability >= 90 {
        passes.push(
            PassSpec::new("triton-nvidia-tma-lowering")
                .option("compute-capability", options.capability),
        );
    }
    passes.extend([
        PassSpec::new("triton-nvidia-gpu-fence-insertion")
            .option("compute-capability", options.capability),
        PassSpec::new("canonicalize"),
        PassSpec::new("cse"),
        PassSpec::new("symbol-dce"),
    ]);
    Ok(passes)
}

pub static TTIR: PipelineDef = PipelineDef {
    argument: "tritium-ttir",
    summary: "Triton's TTIR pipeline (make_ttir): inline, rewrite-tensor-pointer, canonicalize, combine, \
              reorder-broadcast, cse, symbol-dce, loop-unroll",
    options: &[],
    build: |_| Ok(pipeline_text(&ttir_passes())),
};

pub static TTGIR: PipelineDef = PipelineDef {
    argument: "tritium-ttgir",
    summary: "TTIR to TTGIR: layouts, coalescing, tensor cores, layout-conversion removal",
    options: &[
        PassOption {
            name: "num-warps",
            description: "Warps per program",
            kind: OptionKind::Int,
            default: "4",
        },
        PassOption {
            name: "num-stages",
            description: "Software pipelining stages: buffers per pipelined load (below 2: none)",
            kind: OptionKind::Int,
            default: "3",
        },
        PassOption {
            name: "target",
            description: "Target: cuda:80, cuda:86, cuda:89 or cuda:90",
            kind: OptionKind::String,
            default: "cuda:90",
        },
        PassOption {
            name: "persistent-programs",
            description: "Run dot kernels' programs persistently (-tritium-persistent-programs); \
                          the kernel then takes the requested program count as its last parameter",
            kind: OptionKind::Bool,
            default: "false",
        },
        PassOption {
            name: "descriptor-loads",
            description: "Read dot loops' pointer tiles through TMA descriptors \
                          (-tritium-descriptor-loads), those of the kernel's arguments passed as \
                          parameters the launcher encodes (-tritium-host-descriptors); sm_90 and \
                          later",
            kind: OptionKind::Bool,
            default: "false",
        },
    ],
    build: |options| ttgir_passes(&ttgir_options(options)?).map(|passes| pipeline_text(&passes)),
};

/// The `-tritium-ttgir` options as the stage takes them.
pub fn ttgir_options(options: &Options) -> Result<TtgirOptions, String> {
    let capability = parse_target(options.string("target"))?;
    let stages = options.int("num-stages");
    if !(0..=MAX_NUM_STAGES).contains(&stages) {
        return Err(format!(
            "num-stages must be in 0..={MAX_NUM_STAGES}, got {stages}"
        ));
    }
    let int = |name: &str| {
        u32::try_from(options.int(name)).map_err(|_| {
            format!(
                "{name} must be a positive integer, got {}",
                options.int(name)
            )
        })
    };
    Ok(TtgirOptions {
        num_warps: int("num-warps")?,
        num_stages: int("num-stages")?,
        capability,
        persistent_programs: options.bool("persistent-programs"),
        descriptor_loads: options.bool("descriptor-loads"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelines_print_the_stage_lists() {
        let ttir = (TTIR.build)(&Options::defaults(TTIR.options)).unwrap();
        assert_eq!(ttir, pipeline_text(&ttir_passes()));
        let options = Options::defaults(TTGIR.options)
            .with("num-warps", "8")
            .with("target", "cuda:80");
        let expected = TtgirOptions {
            num_warps: 8,
            num_stages: 3,
            capability: 80,
            persistent_programs: false,
            descriptor_loads: false,
        };
        assert_eq!(ttgir_options(&options).unwrap(), expected);
        assert_eq!(
            (TTGIR.build)(&options).unwrap(),
            pipeline_text(&ttgir_passes(&expected).unwrap())
        );
        assert!((TTGIR.build)(&options).unwrap().starts_with(
            "convert-triton-to-tritongpu{num-warps=8 num-stages=3 target=cuda:80},tritongpu-coalesce,"
        ));
    }

    #[test]
    fn bad_ttgir_options_are_errors() {
        let options = Options::defaults(TTGIR.options).with("num-warps", "3");
        assert!(
            (TTGIR.build)(&options)
                .unwrap_err()
                .contains("power of two")
        );
        let options = Options::defaults(TTGIR.options).with("target", "hip:gfx90a");
        assert!((TTGIR.build)(&options).unwrap_err().contains("cuda:"));
    }
}
