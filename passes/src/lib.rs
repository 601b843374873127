//! TTIR and TTGIR transforms and analyses, each a Rust pass registered in MLIR's pass registry.
//!
//! Every `unsafe` block says why it is sound in a `// SAFETY:` comment (handles valid, lifetimes,
//! bounds); `clippy::undocumented_unsafe_blocks` checks it.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod axis_info;
pub mod coalesce;
pub mod convert_to_gpu;
// `encoding_of`/`encoding_to_attr`/`parse_attr`/`print_attr` are being replaced elsewhere; the
// other unsafe blocks here carry SAFETY comments all the same.
#[allow(clippy::undocumented_unsafe_blocks)]
pub mod ir_util;
pub mod optimize_thread_locality;
pub mod pipelines;
pub mod reduce_data_duplication;
pub mod remove_layout_conversions;
pub mod test_passes;
pub mod ttir;

use tritium_dialects::pass::{PassDef, register_pass, register_pipeline};

/// Every pass of this crate (test passes included).
pub static PASSES: &[&PassDef] = &[
    &convert_to_gpu::PASS,
    &coalesce::PASS,
    &remove_layout_conversions::PASS,
    &optimize_thread_locality::PASS,
    &reduce_data_duplication::PASS,
];

/// Registers every pass and pipeline of this crate. Call once, before parsing a command line.
pub fn register_all() {
    for pass in PASSES.iter().chain(ttir::PASSES).chain(test_passes::PASSES) {
        register_pass(pass);
    }
    register_pipeline(&pipelines::TTIR);
    register_pipeline(&pipelines::TTGIR);
}

pub(crate) fn convert_to_gpu_retype(op: mlir_sys::MlirOperation, ty: mlir_sys::MlirType) {
    convert_to_gpu::retype_dense_constant(op, ty);
}
