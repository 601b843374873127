//! Lowerings of TTGIR ops, grouped by kind; each file adds methods to
//! [`crate::to_llvm::FuncLowering`].

pub mod async_copy;
pub mod atomics;
pub mod casts;
pub mod control;
pub mod debug;
pub mod descriptor;
pub mod dot;
pub mod elementwise;
pub mod gather;
pub(crate) mod local;
pub mod math_ops;
pub mod memory;
pub mod mma;
pub mod movement;
pub mod program;
pub mod reduce;
pub mod scan;
pub mod tma;
pub mod wgmma;
