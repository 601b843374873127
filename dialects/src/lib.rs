//! Tritium's MLIR dialects and the plumbing every other crate stands on.
//!
//! - `tt` (Triton's tile IR), `ttg` (GPU layouts) and `ttng` (Hopper ops) are declared in ODS
//!   (`dialects/td`) and compiled to C++ by `build.rs`; [`register_dialects`] makes them available
//!   to a [`melior::dialect::DialectRegistry`].
//! - Every verifier body is Rust: the generated `verify()` methods call [`verify::verify_op`].
//! - [`pass`] lets a Rust file define an MLIR pass (flag, options, anchor, run function) that
//!   registers in MLIR's own pass registry, and [`pass::PipelineDef`] a named pipeline.
//! - [`ir`] holds small typed helpers over melior for reading and building our ops.
//!
//! Every `unsafe` block says why it is sound in a `// SAFETY:` comment (handles valid, lifetimes,
//! bounds); `clippy::undocumented_unsafe_blocks` checks it.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod attrs;
pub mod build;
pub mod context;
pub mod diag;
pub mod encoding;
pub mod ffi;
pub mod ir;
pub mod ods;
pub mod pass;
pub mod rewrite;
pub mod verify;

use melior::dialect::{DialectHandle, DialectRegistry};

/// The `tt` dialect handle.
pub fn tt_handle() -> DialectHandle {
    // SAFETY: the handle getter of a dialect compiled into this crate; it returns a static handle.
    unsafe { DialectHandle::from_raw(ffi::mlirGetDialectHandle__tt__()) }
}

/// The `ttg` dialect handle.
pub fn ttg_handle() -> DialectHandle {
    // SAFETY: the handle getter of a dialect compiled into this crate; it returns a static handle.
    unsafe { DialectHandle::from_raw(ffi::mlirGetDialectHandle__ttg__()) }
}

/// The `ttng` dialect handle.
pub fn ttng_handle() -> DialectHandle {
    // SAFETY: the handle getter of a dialect compiled into this crate; it returns a static handle.
    unsafe { DialectHandle::from_raw(ffi::mlirGetDialectHandle__ttng__()) }
}

/// Inserts `tt`, `ttg` and `ttng` into `registry`.
pub fn register_dialects(registry: &DialectRegistry) {
    register_dialects_raw(registry.to_raw());
}

/// Inserts `tt`, `ttg` and `ttng` into a registry owned by C++.
pub fn register_dialects_raw(registry: mlir_sys::MlirDialectRegistry) {
    for handle in [tt_handle(), ttg_handle(), ttng_handle()] {
        // SAFETY: `handle` is a static dialect handle and `registry` a live registry owned by the
        // caller.
        unsafe { mlir_sys::mlirDialectHandleInsertDialect(handle.to_raw(), registry) };
    }
}

pub use melior;
pub use mlir_sys;
