//! Creating an MLIR context with every dialect Tritium reads or produces.

use melior::{Context, dialect::DialectRegistry, utility::register_all_dialects};

/// A context with all upstream dialects, `tt`/`ttg`/`ttng`, and the LLVM IR translations loaded.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    crate::register_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    // SAFETY: `context` is a live context owned here.
    unsafe { mlir_sys::mlirRegisterAllLLVMTranslations(context.to_raw()) };
    context
}
