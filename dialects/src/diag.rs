//! Reporting errors through MLIR's diagnostic engine, so they carry source locations.

use melior::ir::Location;
use mlir_sys::mlirEmitError;
use std::ffi::CString;

/// Emits `message` as an error at `location`.
pub fn emit_error(location: Location, message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `location` is a live location and `text` a NUL-terminated string alive during the
    // call, which copies it.
    unsafe { mlirEmitError(location.to_raw(), text.as_ptr()) }
}
