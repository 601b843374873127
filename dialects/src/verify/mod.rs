//! Rust bodies of every `tt`/`ttg`/`ttng` op verifier. The generated C++ `verify()` of each op
//! calls [`tritium_verify_op`], which dispatches on the op name.

mod tt;
pub mod ttg;

use crate::diag::emit_error;
use melior::ir::{OperationRef, operation::OperationLike};
use mlir_sys::MlirOperation;

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
    std::panic::catch_unwind(|| verify_op(unsafe { OperationRef::from_raw(op) })).unwrap_or_else(
        |_| {
            let op = unsafe { OperationRef::from_raw(op) };
            emit_error(op.location(), "internal error: the verifier panicked");
            false
        },
    )
}
