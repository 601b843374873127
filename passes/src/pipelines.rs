//! Named pipelines: `-tritium-ttir` (Triton 3.6's make_ttir order) and `-tritium-ttgir`.

use crate::convert_to_gpu::{MAX_NUM_STAGES, check_launch_options, parse_target};
use tritium_dialects::pass::{OptionKind, Options, PassOption, PipelineDef};
use tritium_dialects::verify::ttg::THREADS_PER_WARP;

pub static TTIR: PipelineDef = PipelineDef {
    argument: "tritium-ttir",
    summary: "Triton's TTIR pipeline (make_ttir): inline, rewrite-tensor-pointer, canonicalize, combine, \
              reorder-broadcast, cse, symbol-dce, loop-unroll",
    options: &[],
    build: |_| {
        Ok("inline,triton-rewrite-tensor-pointer,canonicalize,triton-combine,triton-reorder-broadcast,cse,symbol-dce,\
            triton-loop-unroll"
            .into())
    },
};

pub static TTGIR: PipelineDef = PipelineDef {
    argument: "tritium-ttgir",
    summary: "TTIR to TTGIR for sm_90: layouts, coalescing, layout-conversion removal",
    options: &[
        PassOption {
            name: "num-warps",
            description: "Warps per program",
            kind: OptionKind::Int,
            default: "4",
        },
        PassOption {
            name: "num-stages",
            description: "Software pipelining stages (recorded as the module's ttg.num-stages)",
            kind: OptionKind::Int,
            default: "3",
        },
        PassOption {
            name: "target",
            description: "Target: cuda:80, cuda:86, cuda:89 or cuda:90",
            kind: OptionKind::String,
            default: "cuda:90",
        },
    ],
    build: ttgir,
};

fn ttgir(options: &Options) -> Result<String, String> {
    let warps = options.int("num-warps");
    let stages = options.int("num-stages");
    let target = options.string("target");
    if stages < 0 {
        return Err(format!(
            "num-stages must be in 0..={MAX_NUM_STAGES}, got {stages}"
        ));
    }
    check_launch_options(warps, THREADS_PER_WARP, 1, stages)?;
    parse_target(target)?;
    Ok(format!(
        "convert-triton-to-tritongpu{{num-warps={warps} num-stages={stages} target={target}}},tritongpu-coalesce,\
         tritongpu-remove-layout-conversions,tritongpu-optimize-thread-locality,cse,\
         tritongpu-remove-layout-conversions,\
         tritongpu-reduce-data-duplication,canonicalize,cse,symbol-dce"
    ))
}
