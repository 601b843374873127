//! The debugging switches of a compilation, with the meaning of Triton's environment variables
//! (`MLIR_ENABLE_DUMP`, `MLIR_ENABLE_TIMING`, `LLVM_IR_ENABLE_DUMP`, `TRITON_REPRODUCER_PATH`,
//! `TRITON_DEBUG`). The drivers read the environment ([`DebugOptions::from_env`]); library users
//! may set the fields themselves. Everything here prints to stderr, as Triton does.

use mlir_sys::*;
use std::ffi::{CString, c_char};
use std::path::PathBuf;
use std::sync::Mutex;

/// Which kernels `MLIR_ENABLE_DUMP` prints the IR of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DumpFilter {
    /// `MLIR_ENABLE_DUMP=1`: every kernel.
    All,
    /// `MLIR_ENABLE_DUMP=NAME`: only the kernel named `NAME`.
    Kernel(String),
}

impl DumpFilter {
    pub fn selects(&self, kernel: &str) -> bool {
        match self {
            DumpFilter::All => true,
            DumpFilter::Kernel(name) => name == kernel,
        }
    }
}

/// Triton's debugging switches for one compilation; all off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugOptions {
    /// `MLIR_ENABLE_DUMP`: print the module before every MLIR pass (and after a failing one).
    pub dump_ir: Option<DumpFilter>,
    /// `MLIR_ENABLE_TIMING`: MLIR's pass timing report, one per stage.
    pub pass_timing: bool,
    /// `LLVM_IR_ENABLE_DUMP`: LLVM's `-print-after-all` during optimization and code generation.
    pub dump_llvm_ir: bool,
    /// `TRITON_REPRODUCER_PATH`: when an MLIR pass fails or crashes, the stage's pipeline and the
    /// IR it started from are written here (`triton-opt --run-reproducer PATH` replays it).
    pub reproducer: Option<PathBuf>,
    /// `TRITON_DEBUG`: compile in debug mode (device assertions kept; `debug` in `K.json`).
    pub debug: bool,
}

/// Triton's reading of a boolean variable: `1`, `true`, `on`, `yes` in any case.
pub fn is_true(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "on" | "yes"
    )
}

/// Triton's reading of a false one: `0`, `false`, `off`, `no` in any case, or empty.
fn is_false(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "" | "0" | "false" | "off" | "no"
    )
}

impl DebugOptions {
    /// The switches the process environment sets.
    pub fn from_env() -> DebugOptions {
        DebugOptions::from_env_with(|name| std::env::var(name).ok())
    }

    /// The switches an environment, given as a lookup function, sets.
    pub fn from_env_with(env: impl Fn(&str) -> Option<String>) -> DebugOptions {
        let flag = |name: &str| env(name).is_some_and(|v| is_true(&v));
        let dump_ir = env("MLIR_ENABLE_DUMP").and_then(|value| {
            if is_true(&value) {
                Some(DumpFilter::All)
            } else if is_false(&value) {
                None
            } else {
                Some(DumpFilter::Kernel(value.trim().to_owned()))
            }
        });
        DebugOptions {
            dump_ir,
            pass_timing: flag("MLIR_ENABLE_TIMING"),
            dump_llvm_ir: flag("LLVM_IR_ENABLE_DUMP"),
            reproducer: env("TRITON_REPRODUCER_PATH")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            debug: flag("TRITON_DEBUG"),
        }
    }

    /// Whether the IR of `kernel` is dumped before every pass.
    pub fn dumps(&self, kernel: &str) -> bool {
        self.dump_ir.as_ref().is_some_and(|f| f.selects(kernel))
    }
}

/// Sets up `manager` for one stage of `kernel` as `options` ask: IR printing, timing, reproducer.
///
/// # Safety
/// `context` is the live context `manager` runs in, and `manager` a live pass manager.
pub(crate) unsafe fn configure_pass_manager(
    context: MlirContext,
    manager: MlirPassManager,
    options: &DebugOptions,
    kernel: &str,
) {
    // SAFETY: by this function's contract both handles are live; the printing flags are created
    // and destroyed here (the pass manager copies them); the path strings outlive the calls that
    // read them (MLIR copies what it keeps).
    unsafe {
        if options.dumps(kernel) {
            // Module-scope printing requires a single-threaded context, as Triton disables it.
            mlirContextEnableMultithreading(context, false);
            let flags = mlirOpPrintingFlagsCreate();
            mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
            mlirPassManagerEnableIRPrinting(
                manager,
                true,  // before every pass
                false, // not after every pass ...
                true,  // the whole module
                false,
                true, // ... only after one that failed
                flags,
                MlirStringRef {
                    data: std::ptr::null(),
                    length: 0,
                }, // to stderr
            );
            mlirOpPrintingFlagsDestroy(flags);
        }
        if options.pass_timing {
            mlirPassManagerEnableTiming(manager);
        }
        if let Some(path) = &options.reproducer {
            let path = path.to_string_lossy();
            tritium_dialects::ffi::tritiumPassManagerEnableCrashReproducer(
                manager,
                MlirStringRef {
                    data: path.as_ptr() as *const c_char,
                    length: path.len(),
                },
            );
        }
    }
}

/// Sets LLVM's `-print-after-all` (a process-wide LLVM option, as in Triton) to `enabled`.
pub(crate) fn set_llvm_print_after_all(enabled: bool) {
    // LLVM's option parser is process-global state: one caller at a time.
    static LLVM_OPTIONS: Mutex<Option<bool>> = Mutex::new(None);
    let mut current = LLVM_OPTIONS.lock().unwrap_or_else(|e| e.into_inner());
    if current.unwrap_or(false) == enabled {
        return;
    }
    let program = c"tritium";
    let option = CString::new(format!("-print-after-all={enabled}")).expect("no NUL");
    let argv = [program.as_ptr(), option.as_ptr()];
    // SAFETY: `argv` holds two NUL-terminated strings that outlive the call; LLVM only reads
    // them; the overview may be null.
    unsafe { LLVMParseCommandLineOptions(2, argv.as_ptr(), std::ptr::null()) };
    *current = Some(enabled);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> DebugOptions {
        DebugOptions::from_env_with(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn tritons_variables_set_the_switches() {
        assert_eq!(from(&[]), DebugOptions::default());
        assert_eq!(
            from(&[("MLIR_ENABLE_DUMP", "1")]).dump_ir,
            Some(DumpFilter::All)
        );
        assert_eq!(from(&[("MLIR_ENABLE_DUMP", "0")]).dump_ir, None);
        let one = from(&[("MLIR_ENABLE_DUMP", "add_kernel")]);
        assert!(one.dumps("add_kernel") && !one.dumps("softmax_kernel"));
        let all = from(&[
            ("MLIR_ENABLE_TIMING", "true"),
            ("LLVM_IR_ENABLE_DUMP", "ON"),
            ("TRITON_REPRODUCER_PATH", "/tmp/r.mlir"),
            ("TRITON_DEBUG", "1"),
        ]);
        assert!(all.pass_timing && all.dump_llvm_ir && all.debug);
        assert_eq!(all.reproducer, Some(PathBuf::from("/tmp/r.mlir")));
        assert!(!from(&[("TRITON_DEBUG", "0")]).debug);
    }
}
