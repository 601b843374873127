//! Verifier rules of the `ttg` and `ttng` dialects.

use super::Check;
use melior::ir::OperationRef;

pub fn verify(_name: &str, _op: OperationRef) -> Check {
    Ok(())
}
