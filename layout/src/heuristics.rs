//! The blocked encodings Triton's passes pick: the default one assigned by
//! `convert-triton-to-tritongpu` and the coalesced one picked by the
//! `coalesce` pass for memory accesses.

use crate::encoding::{BlockedEncoding, CtaLayout};

/// Triton's shape-aware `BlockedEncodingAttr` builder: given the shape,
/// `sizePerThread` and `order`, distribute `threads_per_warp` lanes and
/// `num_warps` warps over the dims starting from the fastest (`order[0]`).
/// Each dim except the slowest takes as many threads as it has
/// `sizePerThread` blocks (capped by the threads left), lanes first, then
/// warps; the slowest dim takes every remaining lane and warp (possibly
/// more than it needs: those broadcast).
pub fn blocked_for_shape(
    shape: &[u32],
    size_per_thread: &[u32],
    order: &[u32],
    num_warps: u32,
    threads_per_warp: u32,
    cta_layout: CtaLayout,
) -> BlockedEncoding {
    let rank = shape.len();
    let valid_order = {
        let mut sorted = order.to_vec();
        sorted.sort_unstable();
        sorted.iter().copied().eq(0..rank as u32)
    };
    if rank == 0 || size_per_thread.len() != rank || !valid_order {
        // No layout fits: an encoding of the given parameters (its `validate`
        // and `to_linear` say what is wrong).
        return BlockedEncoding {
            size_per_thread: size_per_thread.to_vec(),
            threads_per_warp: vec![1; size_per_thread.len()],
            warps_per_cta: vec![1; size_per_thread.len()],
            order: order.to_vec(),
            cta_layout,
        };
    }
    let (num_warps, threads_per_warp) = (num_warps.max(1), threads_per_warp.max(1));
    let per_cta = cta_layout.shape_per_cta(shape);
    let mut tpw = vec![1u32; rank];
    let mut wpc = vec![1u32; rank];
    let mut lanes_left = threads_per_warp;
    let mut threads_left = num_warps.saturating_mul(threads_per_warp);
    let mut warps_left = num_warps;
    let mut prev_lanes = 1;
    let mut prev_warps = 1;
    for &d in &order[..rank - 1] {
        let d = d as usize;
        let want = (per_cta.get(d).copied().unwrap_or(1) / size_per_thread[d].max(1)).max(1);
        let threads = threads_left.clamp(1, want);
        tpw[d] = threads.clamp(1, lanes_left.max(1));
        wpc[d] = (threads / tpw[d]).clamp(1, warps_left.max(1));
        warps_left /= wpc[d];
        lanes_left /= tpw[d];
        threads_left /= threads;
        prev_lanes *= tpw[d];
        prev_warps *= wpc[d];
    }
    let last = order[rank - 1] as usize;
    tpw[last] = (threads_per_warp / prev_lanes).max(1);
    wpc[last] = (num_warps / prev_warps).max(1);
    BlockedEncoding {
        size_per_thread: size_per_thread.to_vec(),
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order: order.to_vec(),
        cta_layout,
    }
}

/// The blocked encoding `convert-triton-to-tritongpu` gives every tensor:
/// `sizePerThread` all 1, `order = [rank-1, .., 0]` (row-major), lanes and
/// warps distributed from the fastest dim by [`blocked_for_shape`]. With
/// several CTAs, the CTAs split the dims from the slowest one
/// (`CTASplitNum = CTAsPerCGA`), leftover CTAs broadcasting along the last
/// dim.
///
/// For shape `[1024]` and 4 warps of 32: `sizePerThread = [1],
/// threadsPerWarp = [32], warpsPerCTA = [4], order = [0]`.
pub fn default_blocked(
    shape: &[u32],
    num_warps: u32,
    threads_per_warp: u32,
    num_ctas: u32,
) -> BlockedEncoding {
    let rank = shape.len();
    let order: Vec<u32> = (0..rank as u32).rev().collect();
    let spt = vec![1u32; rank];
    let cta = if num_ctas <= 1 || rank == 0 {
        CtaLayout::default()
    } else {
        let mut ctas = vec![1u32; rank];
        let mut left = num_ctas;
        for &d in order.iter().rev() {
            let d = d as usize;
            ctas[d] = left.clamp(1, (shape[d] / spt[d]).max(1));
            left /= ctas[d];
        }
        let split = ctas.clone();
        ctas[rank - 1] *= left;
        CtaLayout::new(ctas, split, order.clone())
    };
    blocked_for_shape(shape, &spt, &order, num_warps, threads_per_warp, cta)
}

/// The encoding the `coalesce` pass picks for a global memory access of a
/// tensor of `shape`, whose pointer is most contiguous along `order[0]` and
/// allows `per_thread_elems` elements per vector access (see
/// [`mem_access_elems_per_thread`]). The vector width is capped at
/// `max(1, numElems / numThreads)` so every thread gets work, put in
/// `sizePerThread[order[0]]` (other dims 1), and lanes/warps are laid out by
/// [`blocked_for_shape`]. (The pass additionally widens loads using other
/// accesses of the same pointer slice and caps stores at their own width;
/// pass the final `per_thread_elems`.)
///
/// `add` (shape `[1024]`, f32, 16-byte aligned and contiguous, 4 warps):
/// `sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]`.
pub fn coalesced_blocked(
    shape: &[u32],
    order: &[u32],
    per_thread_elems: u32,
    num_warps: u32,
    threads_per_warp: u32,
) -> BlockedEncoding {
    let num_elems: u64 = shape.iter().map(|&s| s as u64).product();
    let threads = (num_warps.max(1) as u64) * (threads_per_warp.max(1) as u64);
    let limit = (num_elems / threads).max(1).min(u32::MAX as u64) as u32;
    let per_thread = per_thread_elems.max(1).min(limit);
    let mut spt = vec![1u32; shape.len()];
    if let Some(fastest) = order.first().and_then(|&d| spt.get_mut(d as usize)) {
        *fastest = per_thread;
    }
    blocked_for_shape(
        shape,
        &spt,
        order,
        num_warps,
        threads_per_warp,
        CtaLayout::default(),
    )
}

/// The dims sorted by decreasing contiguity (stable, ties favouring the
/// later dim): Triton's `getOrderFromContiguity`. All-equal contiguity gives
/// `[rank-1, .., 0]`.
pub fn order_from_contiguity(contiguity: &[u64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..contiguity.len() as u32).rev().collect();
    order.sort_by(|&a, &b| contiguity[b as usize].cmp(&contiguity[a as usize]));
    order
}

/// Elements per thread a single memory access may cover along its most
/// contiguous dim: `min(alignment, 128 bits / element)`, where the alignment
/// is `min(divisibility in elements, contiguity, shape along the dim)`.
/// `divisibility_bytes` is the pointer's known byte divisibility along that
/// dim (AxisInfo divisibility) and `contiguity` its contiguity.
pub fn mem_access_elems_per_thread(
    elem_bits: u32,
    divisibility_bytes: u64,
    contiguity: u64,
    shape_along: u32,
) -> u32 {
    let elem_bytes = (elem_bits / 8).max(1) as u64;
    let max_multiple = (divisibility_bytes / elem_bytes).max(1);
    let max_contig = contiguity.min(shape_along as u64);
    let alignment = max_multiple.min(max_contig).max(1);
    alignment.min((128 / elem_bits.max(1)).max(1) as u64) as u32
}
