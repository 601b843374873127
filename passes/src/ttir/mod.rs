//! The TTIR passes of Triton's `make_ttir` (and the TTIR-level loop passes of `make_ttgir`), each
//! one file with Triton's flag: `-triton-combine`, `-triton-reorder-broadcast`,
//! `-triton-rewrite-tensor-pointer`, `-triton-loop-unroll`, `-triton-licm` and
//! `-triton-loop-aware-cse`. docs/passes-ttir.md describes each.

pub mod combine;
pub mod licm;
pub mod loop_aware_cse;
pub mod loop_unroll;
pub mod reorder_broadcast;
pub mod rewrite_tensor_descriptor;
pub mod rewrite_tensor_pointer;
pub mod util;
