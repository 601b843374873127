//! Turns the dialects' ODS (`td/`) into C++ with `mlir-tblgen` and compiles it together with the
//! hand-written glue (`cpp/`) into one static library. Reruns only when a `.td` or glue file changes.

use std::{
    env, fs,
    path::{Path, PathBuf},
    process::Command,
};

/// One `mlir-tblgen` invocation: generator flags, input file (relative to `td/`), output name.
struct Gen {
    args: &'static [&'static str],
    input: &'static str,
    output: &'static str,
}

const GENS: &[Gen] = &[
    Gen {
        args: &["-gen-dialect-decls", "-dialect=tt"],
        input: "tt/TritonOps.td",
        output: "tt/TritonDialect.h.inc",
    },
    Gen {
        args: &["-gen-dialect-defs", "-dialect=tt"],
        input: "tt/TritonOps.td",
        output: "tt/TritonDialect.cpp.inc",
    },
    Gen {
        args: &["-gen-enum-decls"],
        input: "tt/TritonEnums.td",
        output: "tt/TritonEnums.h.inc",
    },
    Gen {
        args: &["-gen-enum-defs"],
        input: "tt/TritonEnums.td",
        output: "tt/TritonEnums.cpp.inc",
    },
    Gen {
        args: &["-gen-typedef-decls", "-typedefs-dialect=tt"],
        input: "tt/TritonTypes.td",
        output: "tt/TritonTypes.h.inc",
    },
    Gen {
        args: &["-gen-typedef-defs", "-typedefs-dialect=tt"],
        input: "tt/TritonTypes.td",
        output: "tt/TritonTypes.cpp.inc",
    },
    Gen {
        args: &["-gen-op-decls"],
        input: "tt/TritonOps.td",
        output: "tt/TritonOps.h.inc",
    },
    Gen {
        args: &["-gen-op-defs"],
        input: "tt/TritonOps.td",
        output: "tt/TritonOps.cpp.inc",
    },
    Gen {
        args: &["-gen-dialect-decls", "-dialect=ttg"],
        input: "ttg/TritonGPUOps.td",
        output: "ttg/TritonGPUDialect.h.inc",
    },
    Gen {
        args: &["-gen-dialect-defs", "-dialect=ttg"],
        input: "ttg/TritonGPUOps.td",
        output: "ttg/TritonGPUDialect.cpp.inc",
    },
    Gen {
        args: &["-gen-attrdef-decls", "-attrdefs-dialect=ttg"],
        input: "ttg/TritonGPUAttrs.td",
        output: "ttg/TritonGPUAttrs.h.inc",
    },
    Gen {
        args: &["-gen-attrdef-defs", "-attrdefs-dialect=ttg"],
        input: "ttg/TritonGPUAttrs.td",
        output: "ttg/TritonGPUAttrs.cpp.inc",
    },
    Gen {
        args: &["-gen-enum-decls"],
        input: "ttg/TritonGPUEnums.td",
        output: "ttg/TritonGPUEnums.h.inc",
    },
    Gen {
        args: &["-gen-enum-defs"],
        input: "ttg/TritonGPUEnums.td",
        output: "ttg/TritonGPUEnums.cpp.inc",
    },
    Gen {
        args: &["-gen-typedef-decls", "-typedefs-dialect=ttg"],
        input: "ttg/TritonGPUTypes.td",
        output: "ttg/TritonGPUTypes.h.inc",
    },
    Gen {
        args: &["-gen-typedef-defs", "-typedefs-dialect=ttg"],
        input: "ttg/TritonGPUTypes.td",
        output: "ttg/TritonGPUTypes.cpp.inc",
    },
    Gen {
        args: &["-gen-op-decls"],
        input: "ttg/TritonGPUOps.td",
        output: "ttg/TritonGPUOps.h.inc",
    },
    Gen {
        args: &["-gen-op-defs"],
        input: "ttg/TritonGPUOps.td",
        output: "ttg/TritonGPUOps.cpp.inc",
    },
    Gen {
        args: &["-gen-dialect-decls", "-dialect=ttng"],
        input: "ttng/TritonNvidiaGPUOps.td",
        output: "ttng/TritonNvidiaGPUDialect.h.inc",
    },
    Gen {
        args: &["-gen-dialect-defs", "-dialect=ttng"],
        input: "ttng/TritonNvidiaGPUOps.td",
        output: "ttng/TritonNvidiaGPUDialect.cpp.inc",
    },
    Gen {
        args: &["-gen-op-decls", "-op-include-regex=^ttng\\."],
        input: "ttng/TritonNvidiaGPUOps.td",
        output: "ttng/TritonNvidiaGPUOps.h.inc",
    },
    Gen {
        args: &["-gen-op-defs", "-op-include-regex=^ttng\\."],
        input: "ttng/TritonNvidiaGPUOps.td",
        output: "ttng/TritonNvidiaGPUOps.cpp.inc",
    },
];

const SOURCES: &[&str] = &[
    "cpp/TritonDialect.cpp",
    "cpp/TritonOps.cpp",
    "cpp/TritonGPU.cpp",
    "cpp/TritonGPUOps.cpp",
    "cpp/TritonGPUCAPI.cpp",
    "cpp/CAPI.cpp",
];

fn main() {
    let prefix = PathBuf::from(
        env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()),
    );
    let include = prefix.join("include");
    let tblgen = prefix.join("bin/mlir-tblgen");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let td = manifest.join("td");

    rerun_if_changed_in(&td);
    rerun_if_changed_in(&manifest.join("cpp"));
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");

    for generation in GENS {
        let output = out.join(generation.output);
        fs::create_dir_all(output.parent().unwrap()).unwrap();
        let status = Command::new(&tblgen)
            .args(generation.args)
            .arg(format!("-I{}", include.display()))
            .arg(format!("-I{}", td.display()))
            .arg(td.join(generation.input))
            .arg("-o")
            .arg(&output)
            .status()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot run {}: {error} (run scripts/bootstrap)",
                    tblgen.display()
                )
            });
        assert!(
            status.success(),
            "mlir-tblgen failed on {} ({:?})",
            generation.input,
            generation.args
        );
    }

    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .files(SOURCES.iter().map(|source| manifest.join(source)))
        .include(&out)
        .include(manifest.join("cpp"))
        .include(&include)
        .flag("-fno-exceptions")
        .flag("-D_GNU_SOURCE")
        .flag("-D__STDC_CONSTANT_MACROS")
        .flag("-D__STDC_FORMAT_MACROS")
        .flag("-D__STDC_LIMIT_MACROS")
        .warnings(false)
        .flag_if_supported("-Wno-unused-parameter")
        .opt_level(2)
        .debug(false)
        .compile("tritium_dialects_cpp");
}

fn rerun_if_changed_in(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rerun_if_changed_in(&path);
        } else {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
