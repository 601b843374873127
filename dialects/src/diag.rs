//! Reporting errors through MLIR's diagnostic engine, so they carry source locations.

use melior::ir::Location;
use mlir_sys::mlirEmitError;
use std::ffi::CString;

/// Emits `message` as an error at `location`.
pub fn emit_error(location: Location, message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlirEmitError(location.to_raw(), text.as_ptr()) }
}
