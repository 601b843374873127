//! Named pipelines: `-tritium-ttir` (Triton 3.6's make_ttir order) and `-tritium-ttgir`.

use tritium_dialects::pass::{OptionKind, Options, PassOption, PipelineDef};

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
            description: "Software pipelining stages",
            kind: OptionKind::Int,
            default: "3",
        },
        PassOption {
            name: "target",
            description: "Target, e.g. cuda:90",
            kind: OptionKind::String,
            default: "cuda:90",
        },
    ],
    build: ttgir,
};

fn ttgir(options: &Options) -> Result<String, String> {
    let warps = options.int("num-warps");
    if warps <= 0 || warps & (warps - 1) != 0 || warps > 32 {
        return Err(format!(
            "num-warps must be a power of two in 1..32, got {warps}"
        ));
    }
    Ok(format!(
        "convert-triton-to-tritongpu{{num-warps={warps} target={}}},tritongpu-coalesce,\
         tritongpu-remove-layout-conversions,tritongpu-optimize-thread-locality,cse,\
         tritongpu-remove-layout-conversions,\
         tritongpu-reduce-data-duplication,canonicalize,cse,symbol-dce",
        options.string("target")
    ))
}
