//! Triton's environment variables, read in one place for the CLI and the library.

use std::path::PathBuf;
use tritium_lowering::debug::{DebugOptions, is_true};

/// What the environment asks of every compilation, with Triton's meaning:
///
/// | variable | effect |
/// | --- | --- |
/// | `MLIR_ENABLE_DUMP=1` / `=NAME` | the IR before every MLIR pass, for every kernel / kernel `NAME` |
/// | `MLIR_ENABLE_TIMING=1` | MLIR's pass timing report for each stage |
/// | `LLVM_IR_ENABLE_DUMP=1` | LLVM IR after every LLVM pass |
/// | `TRITON_REPRODUCER_PATH=FILE` | an MLIR reproducer of a failing pass |
/// | `TRITON_DEBUG=1` | debug mode: device assertions kept |
/// | `TRITON_KERNEL_DUMP=1` | every stage's IR written to `TRITON_DUMP_DIR/HASH/` |
/// | `TRITON_DUMP_DIR=DIR` | where (default `~/.triton/dump`) |
/// | `TRITON_ALWAYS_COMPILE=1` | compile even when the cache has the kernel |
/// | `TRITON_DISABLE_LINE_INFO=1` | no `.file`/`.loc` line tables in the PTX |
///
/// The variables that print or write something also bypass the cache lookup (the result is
/// still stored), so that what they show is there on every run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// `MLIR_ENABLE_DUMP`, `MLIR_ENABLE_TIMING`, `LLVM_IR_ENABLE_DUMP`,
    /// `TRITON_REPRODUCER_PATH`, `TRITON_DEBUG`.
    pub debug: DebugOptions,
    /// `TRITON_ALWAYS_COMPILE`.
    pub always_compile: bool,
    /// `TRITON_KERNEL_DUMP` with `TRITON_DUMP_DIR`: the directory stage dumps go to.
    pub kernel_dump_dir: Option<PathBuf>,
    /// `TRITON_DISABLE_LINE_INFO`.
    pub disable_line_info: bool,
}

impl Environment {
    /// The process environment's settings.
    pub fn from_env() -> Environment {
        Environment::from_env_with(|name| std::env::var(name).ok())
    }

    /// The settings of an environment given as a lookup function.
    pub fn from_env_with(env: impl Fn(&str) -> Option<String>) -> Environment {
        let flag = |name: &str| env(name).is_some_and(|v| is_true(&v));
        let kernel_dump_dir = flag("TRITON_KERNEL_DUMP").then(|| {
            env("TRITON_DUMP_DIR")
                .filter(|dir| !dir.trim().is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    let home = env("HOME").map(PathBuf::from).unwrap_or_default();
                    home.join(".triton").join("dump")
                })
        });
        Environment {
            debug: DebugOptions::from_env_with(&env),
            always_compile: flag("TRITON_ALWAYS_COMPILE"),
            kernel_dump_dir,
            disable_line_info: flag("TRITON_DISABLE_LINE_INFO"),
        }
    }

    /// Whether a compilation must run even on a cache hit: asked for, or something is to be
    /// printed or written that only a compilation produces.
    pub fn bypasses_cache(&self) -> bool {
        let debug = &self.debug;
        self.always_compile
            || self.kernel_dump_dir.is_some()
            || debug.dump_ir.is_some()
            || debug.pass_timing
            || debug.dump_llvm_ir
            || debug.reproducer.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Environment {
        Environment::from_env_with(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn tritons_variables_have_tritons_meaning() {
        assert_eq!(from(&[]), Environment::default());
        assert!(!from(&[]).bypasses_cache());
        assert!(from(&[("TRITON_ALWAYS_COMPILE", "1")]).bypasses_cache());
        assert!(from(&[("MLIR_ENABLE_DUMP", "add_kernel")]).bypasses_cache());
        assert_eq!(
            from(&[("TRITON_KERNEL_DUMP", "1"), ("HOME", "/home/u")]).kernel_dump_dir,
            Some(PathBuf::from("/home/u/.triton/dump"))
        );
        assert_eq!(
            from(&[("TRITON_KERNEL_DUMP", "1"), ("TRITON_DUMP_DIR", "/tmp/d")]).kernel_dump_dir,
            Some(PathBuf::from("/tmp/d"))
        );
        // TRITON_DUMP_DIR alone dumps nothing, as in Triton.
        assert_eq!(from(&[("TRITON_DUMP_DIR", "/tmp/d")]).kernel_dump_dir, None);
        assert!(from(&[("TRITON_DISABLE_LINE_INFO", "1")]).disable_line_info);
        assert!(from(&[("TRITON_DEBUG", "1")]).debug.debug);
    }
}
