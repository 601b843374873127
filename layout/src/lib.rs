//! # tritium-layout: every GPU tensor layout as a linear layout over GF(2)
//!
//! Tritium's passes and lowering ask the same questions of every Triton 3.6
//! layout encoding (`#ttg.blocked`, `#ttg.slice`, `#ttg.nvidia_mma`,
//! `#ttg.dot_op`, `#ttg.linear`, `#ttg.swizzled_shared`, `#ttg.nvmma_shared`): which thread
//! holds which element, how many elements a thread can load with one
//! vector instruction, which threads hold duplicates, and what a layout
//! conversion costs. This crate answers them with one representation, the
//! [`LinearLayout`], and converts each encoding into it. It is pure Rust with
//! no dependencies.
//!
//! ## The model
//!
//! A linear layout maps named *input* dimensions to named *output*
//! dimensions:
//!
//! * distributed (register) layouts: `register, lane, warp, block ->
//!   dim0, dim1, ..` — which tensor element register `r` of lane `l` of warp
//!   `w` of CTA `b` holds;
//! * shared-memory layouts: `offset, block -> dim0, dim1, ..` — which tensor
//!   element is stored at element offset `o` of CTA `b`'s buffer.
//!
//! Every dimension has a power-of-two size. An input dimension of size
//! `2^k` has `k` *basis vectors*, one per bit; a basis vector holds one
//! coordinate per output dimension. The image of an input is the **XOR** of
//! the basis vectors of its set bits (over all input dims), per output dim.
//! So a layout is a matrix over GF(2), and composing, inverting or testing
//! layouts is Gaussian elimination. Zero basis vectors express broadcasting
//! (several threads holding the same element); XOR-combinations express
//! swizzles.
//!
//! ## Worked example: `add`'s blocked layout
//!
//! The `add` kernel (`shared/kernels/add.ttgir`) computes on
//! `tensor<1024xf32, #blocked>` with
//!
//! ```text
//! #blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
//! ```
//!
//! Each thread holds 4 consecutive elements, 32 lanes cover 128, 4 warps
//! cover 512: the CTA tile is 512 elements, so the 1024-element tensor is
//! covered twice and each thread gets a second group of 4 registers, 512
//! elements further. As bases:
//!
//! ```text
//!  - register=1 -> (1)        sizePerThread: registers 0..3 are
//!    register=2 -> (2)          consecutive elements
//!    register=4 -> (512)      the tile repeats in registers
//!  - lane=1 -> (4)            lanes step by 4 elements
//!    lane=2 -> (8)
//!    lane=4 -> (16)
//!    lane=8 -> (32)
//!    lane=16 -> (64)
//!  - warp=1 -> (128)          warps step by 128 elements
//!    warp=2 -> (256)
//!  - block is a size 1 dimension
//! where out dims are: [dim0 (size 1024)]
//! ```
//!
//! (`Display` prints exactly these lines, without the comments). Register
//! 6 (`0b110`) of lane 5 (`0b101`) of warp 2 (`0b10`) holds
//! `2 ^ 512 ^ 4 ^ 16 ^ 256 = 790`,
//! i.e. `(r & 3) + 4*lane + 128*warp + 512*(r >> 2)`. The first two register
//! bases are `1, 2` in the contiguous dim, so loads vectorise 4-wide
//! ([`LinearLayout::get_num_consecutive_in_out`] returns 4). In Rust:
//!
//! ```ignore
//! use tritium_layout::*;
//! let enc = coalesced_blocked(&[1024], &[0], 4, 4, 32); // what the coalesce pass picks
//! let ll = enc.to_linear(&[1024])?;
//! assert_eq!(ll.bases(REGISTER), &[vec![1], vec![2], vec![512]]);
//! assert_eq!(ll.apply(&[(REGISTER, 6), (LANE, 5), (WARP, 2)]), vec![("dim0".to_string(), 790)]);
//! assert_eq!(ll.get_num_consecutive_in_out("dim0"), 4);
//! assert!(ll.is_bijective()); // every element held exactly once
//! ```
//!
//! With shape `[256]` instead, the tile (512) is larger than the tensor:
//! coordinates wrap modulo 256, so the `warp=2` basis becomes `0` — warps 2
//! and 3 hold copies of warps 0 and 1 ([`LinearLayout::warp_broadcast_mask`]
//! returns `0b10`), and stores should be predicated on `warp & 0b10 == 0`.
//!
//! ## Typical uses
//!
//! * **Encodings:** build an [`Encoding`] (or parse one from text with
//!   [`parse_encoding`] / [`parse_aliases`]) and call
//!   [`Encoding::to_linear`] with the tensor shape.
//! * **Per-thread data:** [`LinearLayout::register_coords`] gives the
//!   coordinates of each register of a thread; [`Encoding::elems_per_thread`],
//!   [`Encoding::total_elems_per_thread`], [`Encoding::contig_per_thread`] and
//!   [`Encoding::vector_width`] the counts lowering needs.
//! * **Duplicates:** [`LinearLayout::free_variable_masks`] (and the
//!   `*_broadcast_mask` shorthands) say which lane/warp/register bits select
//!   copies; the inputs with those bits clear hold every element once.
//! * **Reductions:** [`LinearLayout::in_bits_along`] says which register,
//!   lane and warp bits move along the reduced axis.
//! * **Layout conversions:** [`classify_conversion`] says whether a
//!   `convert_layout` is a no-op, a register permutation, warp shuffles or
//!   needs shared memory; `src.invert_and_compose(&dst)` is the exact data
//!   movement (for each source register/lane/warp/block, where the value
//!   goes in the destination).
//! * **Shared memory:** for a register layout `reg` and a shared layout
//!   `smem` of the same tensor, `reg.invert_and_compose(&smem)` maps
//!   `(register, lane, warp, block)` to `(offset, block)`; its
//!   [`LinearLayout::get_num_consecutive_in_out`]`("offset")` is the
//!   vector width of `ld.shared`/`st.shared`.
//! * **Default/coalesced layouts:** [`default_blocked`] and
//!   [`coalesced_blocked`] reproduce the encodings Triton's
//!   `convert-triton-to-tritongpu` and `coalesce` passes assign.
//!
//! Everything is re-exported at the crate root; the modules
//! ([`linear`], [`encoding`], [`verify`], [`heuristics`], [`conversion`],
//! [`text`], [`error`]) are public too.
//!
//! ## One model of an encoding
//!
//! [`Encoding`] is the only Rust representation of a `#ttg.*` encoding in
//! Tritium. The dialect crate (`tritium_dialects::encoding`) converts MLIR
//! attributes to and from it through C accessors (no attribute text is
//! printed or parsed); [`Encoding::verify`] holds the rules the `ttg`
//! parser reports; [`Encoding::to_linear`] is the one place an encoding
//! becomes a linear layout. The text parser ([`parse_encoding`]) is for
//! tests and fixtures.

// The crate has no `unsafe` code; should any appear, it must say why it is sound.
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod conversion;
pub mod encoding;
pub mod error;
pub mod heuristics;
pub mod linear;
pub mod text;
pub mod verify;

#[cfg(test)]
mod tests;

pub use conversion::{
    ConversionKind, classify_conversion, classify_encoding_conversion, conversion_crosses_ctas,
};
pub use encoding::{
    BlockedEncoding, CtaLayout, DotOperandEncoding, Encoding, LinearEncoding, NvidiaMmaEncoding,
    NvmmaSharedEncoding, SliceEncoding, SwizzledSharedEncoding, identity_nd, matrix_order,
    try_identity_nd,
};
pub use error::LayoutError;
pub use heuristics::{
    blocked_for_shape, coalesced_blocked, default_blocked, mem_access_elems_per_thread,
    order_from_contiguity,
};
pub use linear::{
    BLOCK, DISTRIBUTED_IN_DIMS, LANE, LinearLayout, MAX_DIM_BITS, MAX_REGISTER_BITS,
    MAX_TOTAL_BITS, OFFSET, REGISTER, SHARED_IN_DIMS, WARP, exact_log2, out_dim_name,
    standard_out_dim_names,
};
pub use text::{parse_aliases, parse_encoding, parse_encoding_with};
