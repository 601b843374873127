//! Creating an MLIR context with every dialect Tritium reads or produces.

use melior::{Context, dialect::DialectRegistry, utility::register_all_dialects};

/// The dialects Tritium builds ops of (passes and lowering create them by name, which needs
/// them loaded); any other registered dialect loads when the parser or a pass needs it. Loading
/// all of MLIR's (about 50) took a third of a small kernel's compile time.
pub const LOADED_DIALECTS: &[&std::ffi::CStr] = &[
    c"builtin", c"func", c"arith", c"math", c"scf", c"cf", c"ub", c"index", c"gpu", c"llvm",
    c"nvvm", c"tt", c"ttg", c"ttng",
];

/// A context with every upstream dialect and `tt`/`ttg`/`ttng` registered, those Tritium
/// builds ([`LOADED_DIALECTS`]) loaded, and the LLVM IR translations registered.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    crate::register_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    for name in LOADED_DIALECTS {
        // SAFETY: a live context; the name is a NUL-terminated static string.
        unsafe {
            mlir_sys::mlirContextGetOrLoadDialect(
                context.to_raw(),
                mlir_sys::mlirStringRefCreateFromCString(name.as_ptr()),
            )
        };
    }
    // SAFETY: `context` is a live context owned here.
    unsafe { mlir_sys::mlirRegisterAllLLVMTranslations(context.to_raw()) };
    context
}
