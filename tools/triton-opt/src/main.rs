//! `triton-opt`: MLIR's `mlir-opt` driver (MlirOptMain) with every upstream dialect, extension and
//! pass, plus Tritium's `tt`/`ttg`/`ttng` dialects and Rust passes. mlir-opt's pass-manager,
//! printing, timing and reproducer flags work; `-debug`/`-debug-only` exist only in an LLVM
//! built with assertions (Debian's is not), so Tritium's passes log through `TRITIUM_LOG`.

#![warn(clippy::undocumented_unsafe_blocks)]

use mlir_sys::{MlirDialectRegistry, mlirRegisterAllDialects};
use std::ffi::{CString, c_char, c_int};

unsafe extern "C" {
    fn tritiumOptMain(
        argc: c_int,
        argv: *mut *mut c_char,
        register: extern "C" fn(MlirDialectRegistry),
    ) -> c_int;
}

extern "C" fn register_dialects(registry: MlirDialectRegistry) {
    // SAFETY: `tritiumOptMain` (OptMain.cpp) calls this with its live, local dialect registry.
    unsafe { mlirRegisterAllDialects(registry) };
    tritium_dialects::register_dialects_raw(registry);
}

fn main() {
    // MLIR's passes and every pass and pipeline of Tritium's registry, as `tritium compile` does.
    tritium_lowering::pass_registry::register_all();
    let args: Vec<CString> = std::env::args_os()
        .map(|arg| CString::new(arg.into_encoded_bytes()).unwrap_or_default())
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|arg| arg.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: `argv` holds `args.len()` pointers to NUL-terminated strings owned by `args`, then
    // a null, as C's `main` receives them; both outlive the call (the process exits after it) and
    // MlirOptMain does not write through them.
    let code = unsafe { tritiumOptMain(args.len() as c_int, argv.as_mut_ptr(), register_dialects) };
    std::process::exit(code);
}
