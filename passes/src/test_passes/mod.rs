//! Test-only passes (`-test-*`), like MLIR's `-test-*` passes: they exercise the pass API and
//! analyses from lit tests and are not part of any pipeline.

mod op_count;
mod print_alignment;

use tritium_dialects::pass::PassDef;

pub static PASSES: &[&PassDef] = &[&op_count::PASS, &print_alignment::PASS];
