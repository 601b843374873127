//! Tests that find what examples miss, without a GPU:
//!
//! - [`differential`]: every TTIR kernel of the project ([`corpus`]) through the interpreter
//!   before and after each TTIR pass and the whole TTIR pipeline, on random inputs;
//! - [`mutate`] and [`campaign`]: a structured fuzzer that mutates the corpus's kernels and runs
//!   each mutant through parse, verify, every named pipeline and the lowering to PTX in a worker
//!   process, recording panics, aborts, hangs and accepted-then-broken IR.

pub mod campaign;
pub mod corpus;
pub mod differential;
pub mod emulate;
pub mod mutate;
