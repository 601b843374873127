//! Canonicalization patterns of our dialects (Rust), handed to MLIR through the dialect hook.

use mlir_sys::{MlirRewritePatternSet, MlirStringRef};

/// Called by `Dialect::getCanonicalizationPatterns` in the glue.
#[unsafe(no_mangle)]
pub extern "C" fn tritium_add_canonicalization_patterns(_dialect: MlirStringRef, _set: MlirRewritePatternSet) {}
