//! TTGIR to LLVM/NVVM lowering and in-process PTX emission.

/// Registers the lowering passes. Call once, before parsing a command line.
pub fn register_all() {}
