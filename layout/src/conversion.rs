//! Classifying `ttg.convert_layout` between two distributed layouts of the
//! same tensor.

use crate::encoding::Encoding;
use crate::error::LayoutError;
use crate::linear::{BLOCK, DISTRIBUTED_IN_DIMS, Echelon, LANE, LinearLayout, REGISTER, WARP};

/// The cheapest mechanism that implements a layout conversion. Ordered from
/// cheapest to most expensive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConversionKind {
    /// Both layouts are the same map: nothing to do.
    NoOp,
    /// Every thread already holds every element it needs: only registers
    /// are renamed/duplicated/dropped.
    RegisterPermute,
    /// Every thread finds every element it needs within its own warp:
    /// warp shuffles (plus register moves).
    IntraWarp,
    /// Data crosses warps (or CTAs): goes through shared memory (distributed
    /// shared memory when it crosses CTAs; see
    /// [`conversion_crosses_ctas`]).
    SharedMemory,
}

fn normalize(
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<(LinearLayout, LinearLayout), LayoutError> {
    let s = src.with_in_dims(&DISTRIBUTED_IN_DIMS)?;
    let outs = s.out_dim_names();
    let mut d_outs = dst.out_dim_names();
    let mut s_sorted = outs.clone();
    s_sorted.sort();
    d_outs.sort();
    if s_sorted != d_outs {
        return Err(LayoutError::DimMismatch(format!(
            "conversion between different tensor dims {:?} and {:?}",
            src.out_dim_names(),
            dst.out_dim_names()
        )));
    }
    for o in &outs {
        if src.out_dim_size(o) != dst.out_dim_size(o) {
            return Err(LayoutError::DimMismatch(format!(
                "conversion between different shapes ({o}: {} vs {})",
                src.out_dim_size(o),
                dst.out_dim_size(o)
            )));
        }
    }
    let d = dst
        .with_in_dims(&DISTRIBUTED_IN_DIMS)?
        .transpose_outs(&outs)?;
    for n in [LANE, WARP, BLOCK] {
        if s.in_dim_size(n) != d.in_dim_size(n) {
            return Err(LayoutError::DimMismatch(format!(
                "conversion between layouts with different {n} counts ({} vs {})",
                s.in_dim_size(n),
                d.in_dim_size(n)
            )));
        }
    }
    Ok((s, d))
}

/// Whether every destination thread can get all its elements from source
/// threads that agree with it on every in-dim outside `movable`.
///
/// For a destination input `x' = (r', l', w', b')` the value it needs is
/// `dst(x')`; the source threads with the same fixed dims hold
/// `src(fixed part of x') + span(src bases of movable dims)`. Since both are
/// linear, it suffices that each dst basis of a movable dim lies in that
/// span, and that `dst basis ^ src basis` does for each basis of a fixed dim.
fn reachable(s: &LinearLayout, d: &LinearLayout, movable: &[&str]) -> bool {
    let mut cols = vec![];
    for m in movable {
        for b in s.bases(m) {
            cols.push(s.pack_outs(b));
        }
    }
    let span = Echelon::new(&cols);
    DISTRIBUTED_IN_DIMS.iter().all(|dim| {
        d.bases(dim).iter().enumerate().all(|(i, b)| {
            let mut v = d.pack_outs(b);
            if !movable.contains(dim) {
                v ^= s.pack_outs(s.basis(dim, i));
            }
            span.contains(v)
        })
    })
}

/// Classifies the conversion from `src` to `dst`, two distributed layouts
/// (in-dims among `register, lane, warp, block`) of the same tensor. Lane,
/// warp and block counts must agree; register counts may differ.
pub fn classify_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<ConversionKind, LayoutError> {
    let (s, d) = normalize(src, dst)?;
    if s == d {
        return Ok(ConversionKind::NoOp);
    }
    if reachable(&s, &d, &[REGISTER]) {
        return Ok(ConversionKind::RegisterPermute);
    }
    if reachable(&s, &d, &[REGISTER, LANE]) {
        return Ok(ConversionKind::IntraWarp);
    }
    Ok(ConversionKind::SharedMemory)
}

/// Whether the conversion needs data from another CTA of the cluster.
pub fn conversion_crosses_ctas(
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<bool, LayoutError> {
    let (s, d) = normalize(src, dst)?;
    Ok(!reachable(&s, &d, &[REGISTER, LANE, WARP]))
}

/// [`classify_conversion`] on two encodings of a tensor of `shape`.
pub fn classify_encoding_conversion(
    src: &Encoding,
    dst: &Encoding,
    shape: &[u32],
) -> Result<ConversionKind, LayoutError> {
    classify_conversion(&src.to_linear(shape)?, &dst.to_linear(shape)?)
}
