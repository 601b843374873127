//! Rust bodies of every `tt`/`ttg`/`ttng` op verifier. The generated C++ `verify()` of each op
//! calls [`tritium_verify_op`], which dispatches on the op name.

mod tt;
pub mod ttg;

use crate::diag::emit_error;
use melior::ir::{Attribute, OperationRef, operation::OperationLike};
use mlir_sys::{MlirAttribute, MlirOperation, MlirStringRef};

/// The result of one verifier rule: `Err` carries the message reported on the op.
pub type Check = Result<(), String>;

/// Verifies `op` with the rules of its dialect; returns false after emitting an error on failure.
pub fn verify_op(op: OperationRef) -> bool {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("");
    let result = match name.split_once('.') {
        Some(("tt", op_name)) => tt::verify(op_name, op),
        Some(("ttg", op_name)) | Some(("ttng", op_name)) => ttg::verify(op_name, op),
        _ => Ok(()),
    };
    match result {
        Ok(()) => true,
        Err(message) => {
            emit_error(op.location(), &format!("'{name}' op {message}"));
            false
        }
    }
}

/// Called by the generated C++ verifiers. Never unwinds into C++.
#[unsafe(no_mangle)]
pub extern "C" fn tritium_verify_op(op: MlirOperation) -> bool {
    // SAFETY: the C++ verifier passes the live operation it is verifying; it outlives this call.
    let op = unsafe { OperationRef::from_raw(op) };
    std::panic::catch_unwind(|| verify_op(op)).unwrap_or_else(|_| {
        emit_error(op.location(), "internal error: the verifier panicked");
        false
    })
}

/// Verifies the `ttg.*` attribute `name = value` of `op`; returns false after emitting an error
/// (at `op`, or at a nested op whose layout disagrees with it) on failure.
pub fn verify_ttg_attribute(op: OperationRef, name: &str, value: Attribute) -> bool {
    match ttg::verify_attribute(&op, name, value) {
        Ok(()) => true,
        Err((location, message)) => {
            emit_error(location, &message);
            false
        }
    }
}

/// Called by `TritonGPUDialect::verifyOperationAttribute` for every `ttg.*` discardable
/// attribute. Never unwinds into C++.
#[unsafe(no_mangle)]
pub extern "C" fn tritium_verify_ttg_attribute(
    op: MlirOperation,
    name: MlirStringRef,
    value: MlirAttribute,
) -> bool {
    // SAFETY: the C++ verifier passes a live operation, the name of one of its attributes (a
    // string owned by the context) and that attribute's value; all outlive this call.
    let (op, name, value) = unsafe {
        (
            OperationRef::from_raw(op),
            crate::ffi::string_ref_str(name),
            Attribute::from_raw(value),
        )
    };
    std::panic::catch_unwind(|| verify_ttg_attribute(op, name, value)).unwrap_or_else(|_| {
        emit_error(op.location(), "internal error: the verifier panicked");
        false
    })
}
