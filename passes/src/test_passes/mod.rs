//! Test-only passes (`-test-*`), like MLIR's `-test-*` passes: they exercise the pass API and
//! analyses from lit tests and are not part of any pipeline.

pub mod op_count;
pub mod print_alignment;
