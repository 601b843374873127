//! TTIR and TTGIR transforms and analyses, each a Rust pass registered in MLIR's pass registry.

pub mod test_passes;

use tritium_dialects::pass::{register_pass, register_pipeline};

/// Registers every pass and pipeline of this crate. Call once, before parsing a command line.
pub fn register_all() {
    for pass in test_passes::PASSES {
        register_pass(pass);
    }
    let _ = register_pipeline;
}
