//! Triton 3.6 `#ttg.*` layout encodings as plain structs, and their
//! conversion to [`LinearLayout`]s.
//!
//! Every distributed encoding lowers to a layout with in-dims
//! `[register, lane, warp, block]` ([`DISTRIBUTED_IN_DIMS`]); every shared
//! encoding to one with in-dims `[offset, block]` ([`SHARED_IN_DIMS`]). The
//! out-dims are always `dim0, dim1, ..` in tensor order with sizes equal to
//! the tensor shape. Shapes are per-dimension powers of two (Triton's
//! requirement for tensors).
//!
//! ## How a CTA layout is fitted to a shape
//!
//! Each encoding first describes one CTA's *tile*: registers, lanes and
//! warps, each laid out over the dims in some order. The tile is then fitted
//! to the per-CTA shape (`shape / CTASplitNum`), one dim at a time:
//!
//! * tile smaller than the shape: more register bases are appended that
//!   repeat the tile (stride = tile size); dims are visited in the
//!   encoding's *repetition order* (for `blocked` its `order`, fastest
//!   first), so the repeats of the fastest dim get the lower register bits;
//! * tile larger than the shape: coordinates wrap (are reduced modulo the
//!   shape), so lanes/warps whose coordinate falls outside become
//!   broadcasts (zero bases) and the wrapped register bases become
//!   duplicated registers (zero bases are kept, matching Triton's register
//!   counts; `slice` later drops them).
//!
//! Finally the CGA layout (`block` in-dim) is multiplied in: along each dim,
//! `CTASplitNum` CTAs take consecutive pieces, and the remaining
//! `CTAsPerCGA / CTASplitNum` CTAs hold copies.

use crate::error::LayoutError;
use crate::linear::{
    BLOCK, DISTRIBUTED_IN_DIMS, LANE, LinearLayout, MAX_DIM_BITS, MAX_REGISTER_BITS, OFFSET,
    REGISTER, SHARED_IN_DIMS, WARP, exact_log2, out_dim_name, standard_out_dim_names,
};

fn enc_err<T>(msg: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError::InvalidEncoding(msg.into()))
}

fn check_pow2(what: &str, v: &[u32]) -> Result<(), LayoutError> {
    if let Some(x) = v.iter().find(|x| exact_log2(**x).is_none()) {
        return enc_err(format!("{what} = {v:?}: {x} is not a power of two"));
    }
    Ok(())
}

/// Powers of two whose product (one in-dim of the layout: registers, lanes,
/// warps or CTAs) is at most `2^max_bits`.
fn check_pow2_product(what: &str, v: &[u32], max_bits: u32) -> Result<(), LayoutError> {
    check_pow2(what, v)?;
    let bits: u32 = v.iter().map(|x| x.trailing_zeros()).sum();
    if bits > max_bits {
        return enc_err(format!(
            "{what} = {v:?} multiplies to 2^{bits}, more than the 2^{max_bits} a layout supports"
        ));
    }
    Ok(())
}

fn check_perm(what: &str, order: &[u32], rank: usize) -> Result<(), LayoutError> {
    let mut seen = vec![false; rank];
    if order.len() != rank {
        return enc_err(format!("{what} = {order:?} does not have rank {rank}"));
    }
    for &o in order {
        if o as usize >= rank || seen[o as usize] {
            return enc_err(format!("{what} = {order:?} is not a permutation"));
        }
        seen[o as usize] = true;
    }
    Ok(())
}

fn check_shape(shape: &[u32], rank: usize) -> Result<(), LayoutError> {
    if shape.len() != rank {
        return Err(LayoutError::DimMismatch(format!(
            "shape {shape:?} does not have the encoding's rank {rank}"
        )));
    }
    if shape.is_empty() {
        return enc_err("rank-0 shapes have no layout");
    }
    check_pow2("shape", shape)?;
    if let Some(d) = shape.iter().find(|&&d| d.trailing_zeros() > MAX_DIM_BITS) {
        return enc_err(format!(
            "shape {shape:?}: dim {d} is larger than 2^{MAX_DIM_BITS}, the most a layout supports"
        ));
    }
    Ok(())
}

/// `[rank-1, rank-2, .., 0]` (row-major, last dim fastest); with
/// `row_major == false` the two fastest entries are swapped
/// (`[rank-2, rank-1, rank-3, .., 0]`).
pub fn matrix_order(rank: usize, row_major: bool) -> Vec<u32> {
    let mut o: Vec<u32> = (0..rank as u32).rev().collect();
    if !row_major && rank >= 2 {
        o.swap(0, 1);
    }
    o
}

/// Product over `order` (fastest first) of `identity_1d(sizes[d], in_dim,
/// dim_d)`: a row of `in_dim` indices filling the dims in that order.
/// Panics where [`try_identity_nd`] errors.
pub fn identity_nd(in_dim: &str, sizes: &[u32], order: &[u32]) -> LinearLayout {
    try_identity_nd(in_dim, sizes, order).unwrap_or_else(|e| panic!("{e}"))
}

/// [`identity_nd`], with an error for a dim of `order` not in `sizes`,
/// sizes that are not powers of two, or a layout larger than the limits.
pub fn try_identity_nd(
    in_dim: &str,
    sizes: &[u32],
    order: &[u32],
) -> Result<LinearLayout, LayoutError> {
    broadcast_nd(in_dim, sizes, order, usize::MAX)
}

/// Like [`identity_nd`] but the `k_dim` factor is a broadcast
/// (`zeros_1d`): used for dot operands, whose lanes/warps along K hold
/// copies.
fn broadcast_nd(
    in_dim: &str,
    sizes: &[u32],
    order: &[u32],
    k_dim: usize,
) -> Result<LinearLayout, LayoutError> {
    let mut l = LinearLayout::empty();
    for &d in order {
        let n = out_dim_name(d as usize);
        let Some(&size) = sizes.get(d as usize) else {
            return Err(LayoutError::DimMismatch(format!(
                "order {order:?} names dim {d}, but there are {} sizes",
                sizes.len()
            )));
        };
        let factor = if d as usize == k_dim {
            LinearLayout::try_zeros_1d(size, in_dim, &n)?
        } else {
            LinearLayout::try_identity_1d(size, in_dim, &n)?
        };
        l = l.checked_mul(&factor)?;
    }
    Ok(l)
}

fn saturating_product(values: &[u32]) -> u32 {
    values.iter().fold(1u32, |acc, &v| acc.saturating_mul(v))
}

/// The product of `values`, saturating instead of overflowing.
fn product(values: &[u32]) -> u64 {
    values
        .iter()
        .fold(1u64, |acc, &v| acc.saturating_mul(v as u64))
}

fn names_ref(names: &[String]) -> Vec<&str> {
    names.iter().map(|s| s.as_str()).collect()
}

// ---------------------------------------------------------------------------
// CTA (CGA) layout
// ---------------------------------------------------------------------------

/// How CTAs of a cluster (CGA) split a tensor: Triton's `CTAsPerCGA`,
/// `CTASplitNum`, `CTAOrder`. The default (all vectors empty) means a single
/// CTA, for any rank — what an encoding without those parameters has.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CtaLayout {
    /// CTAs along each dim.
    pub ctas_per_cga: Vec<u32>,
    /// Into how many pieces each dim is split (the other CTAs along the dim
    /// hold copies). Divides `ctas_per_cga`.
    pub cta_split_num: Vec<u32>,
    /// Order of the CTA id over the dims, fastest first.
    pub cta_order: Vec<u32>,
}

impl CtaLayout {
    /// A single CTA (the default; printed as nothing).
    pub fn single() -> CtaLayout {
        CtaLayout::default()
    }

    pub fn new(ctas_per_cga: Vec<u32>, cta_split_num: Vec<u32>, cta_order: Vec<u32>) -> CtaLayout {
        CtaLayout {
            ctas_per_cga,
            cta_split_num,
            cta_order,
        }
    }

    /// Whether the parameters are absent (single CTA, any rank).
    pub fn is_default(&self) -> bool {
        self.ctas_per_cga.is_empty() && self.cta_split_num.is_empty() && self.cta_order.is_empty()
    }

    /// Whether the attribute text omits these parameters: absent, or one CTA
    /// with the default order `[rank-1, .., 0]` (the dialect stores them
    /// either way; this crate reads both as [`CtaLayout::single`]).
    pub fn is_omitted(&self) -> bool {
        let rank = self.cta_order.len();
        self.ctas_per_cga.iter().all(|&n| n == 1)
            && self.cta_split_num.iter().all(|&n| n == 1)
            && self.cta_order.iter().copied().eq((0..rank as u32).rev())
    }

    /// Number of CTAs in the cluster.
    pub fn num_ctas(&self) -> u32 {
        self.ctas_per_cga.iter().product()
    }

    /// One CTA in the cluster.
    pub fn is_single(&self) -> bool {
        self.num_ctas() == 1
    }

    /// Checks the parameters against a tensor rank.
    pub fn validate(&self, rank: usize) -> Result<(), LayoutError> {
        if self.is_default() {
            return Ok(());
        }
        if self.ctas_per_cga.len() != rank || self.cta_split_num.len() != rank {
            return enc_err(format!("CTA layout {self:?} does not have rank {rank}"));
        }
        check_pow2_product("CTAsPerCGA", &self.ctas_per_cga, MAX_DIM_BITS)?;
        check_pow2("CTASplitNum", &self.cta_split_num)?;
        check_perm("CTAOrder", &self.cta_order, rank)?;
        for (c, s) in self.ctas_per_cga.iter().zip(&self.cta_split_num) {
            if c % s != 0 {
                return enc_err(format!(
                    "CTASplitNum {:?} does not divide CTAsPerCGA {:?}",
                    self.cta_split_num, self.ctas_per_cga
                ));
            }
        }
        Ok(())
    }

    /// The part of `shape` one CTA holds: `max(1, shape[d] / split[d])`.
    pub fn shape_per_cta(&self, shape: &[u32]) -> Vec<u32> {
        if self.is_default() {
            return shape.to_vec();
        }
        shape
            .iter()
            .zip(&self.cta_split_num)
            .map(|(s, p)| (s / p.max(&1)).max(1))
            .collect()
    }

    /// `block -> (dim0, ..)` for a rank-`rank` tensor: along each dim (in
    /// `CTAOrder`), `split` CTAs take consecutive pieces and the remaining
    /// CTAs broadcast. Out-dim sizes are the splits.
    pub fn to_linear(&self, rank: usize) -> Result<LinearLayout, LayoutError> {
        self.validate(rank)?;
        let names = standard_out_dim_names(rank);
        let order: Vec<u32> = if self.is_default() {
            (0..rank as u32).rev().collect()
        } else {
            self.cta_order.clone()
        };
        let mut l = LinearLayout::empty();
        for &d in &order {
            // `order` is a permutation of 0..rank and both vectors have `rank`
            // entries (validated above).
            let d = d as usize;
            let (ctas, split) = if self.is_default() {
                (1, 1)
            } else {
                (self.ctas_per_cga[d], self.cta_split_num[d])
            };
            l = l.checked_mul(&LinearLayout::try_identity_1d(split, BLOCK, &names[d])?)?;
            l = l.checked_mul(&LinearLayout::try_zeros_1d(ctas / split, BLOCK, &names[d])?)?;
        }
        l.transpose_outs(&names_ref(&names))
    }
}

/// Fits a one-CTA layout (out-dims: all tensor dims, in repetition order;
/// first in-dim: register or offset) to `shape` and multiplies in the CGA
/// layout. Returns out-dims in standard order and in-dims exactly `in_dims`.
fn combine_cta_cga(
    cta: LinearLayout,
    cga: &CtaLayout,
    shape: &[u32],
    in_dims: &[&str],
) -> Result<LinearLayout, LayoutError> {
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let Some(&first_in) = in_dims.first() else {
        return Err(LayoutError::DimMismatch("a layout needs in-dims".into()));
    };
    let mut cga_ll = cga.to_linear(rank)?;
    for (d, n) in names.iter().enumerate() {
        if cga_ll.out_dim_size(n) > shape[d] {
            cga_ll = cga_ll.mod_out_dim(n, shape[d]);
        }
    }
    let cta_order: Vec<String> = cta.out_dim_names().iter().map(|s| s.to_string()).collect();
    let mut sorted = cta_order.clone();
    sorted.sort();
    let mut expect = names.clone();
    expect.sort();
    if sorted != expect {
        return Err(LayoutError::DimMismatch(format!(
            "CTA layout out-dims {cta_order:?} are not the tensor dims {names:?}"
        )));
    }
    let mut cta = cta;
    // The CTA layout's out-dims in repetition order, with their tensor dims
    // (every name is one of `names`, checked above).
    let dims: Vec<(usize, &String)> = cta_order
        .iter()
        .filter_map(|n| names.iter().position(|m| m == n).map(|d| (d, n)))
        .collect();
    // Registers (offsets) that repeat the tile to cover the shape.
    let mut repeat_bits = 0;
    for &(d, n) in &dims {
        let want = (shape[d] / cga_ll.out_dim_size(n)).max(1);
        let have = cta.out_dim_size(n);
        if have < want {
            repeat_bits += (want / have).trailing_zeros();
        }
    }
    let bits = cta.in_dim_size_log2(first_in) + repeat_bits;
    if first_in == REGISTER && bits > MAX_REGISTER_BITS {
        return enc_err(format!(
            "a thread would hold 2^{bits} registers of a {shape:?} tensor, more than the 2^{MAX_REGISTER_BITS} supported"
        ));
    }
    for &(d, n) in &dims {
        let want = (shape[d] / cga_ll.out_dim_size(n)).max(1);
        let have = cta.out_dim_size(n);
        if have < want {
            cta = cta.checked_mul(&LinearLayout::try_identity_1d(want / have, first_in, n)?)?;
        } else if have > want {
            cta = cta.mod_out_dim(n, want);
        }
    }
    let cga_t = cga_ll.transpose_outs(&names_ref(&cta_order))?;
    let l = cta
        .checked_mul(&cga_t)?
        .transpose_outs(&names_ref(&names))?
        .with_in_dims(in_dims)?;
    for (d, n) in names.iter().enumerate() {
        debug_assert_eq!(l.out_dim_size(n), shape[d]);
    }
    Ok(l)
}

// ---------------------------------------------------------------------------
// Distributed encodings
// ---------------------------------------------------------------------------

/// `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>`.
///
/// Each thread holds a `sizePerThread` block of elements, the lanes of a
/// warp tile `threadsPerWarp` such blocks, and the warps tile
/// `warpsPerCTA` warp tiles; `order` (fastest dim first) orders registers,
/// lanes and warps alike. The CTA tile is `sizePerThread * threadsPerWarp *
/// warpsPerCTA` per dim: larger shapes repeat it in registers (stride = tile
/// size), smaller shapes make lanes/warps broadcast.
///
/// Register basis list for shape `S`, in order: the `sizePerThread` bases
/// (dims in `order`), then the tile repeats (dims in `order`). Lanes and
/// warps: their `threadsPerWarp`/`warpsPerCTA` bases in `order`, zeroed
/// where the tile exceeds `S`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockedEncoding {
    pub size_per_thread: Vec<u32>,
    pub threads_per_warp: Vec<u32>,
    pub warps_per_cta: Vec<u32>,
    pub order: Vec<u32>,
    pub cta_layout: CtaLayout,
}

impl BlockedEncoding {
    /// A single-CTA blocked encoding.
    pub fn new(
        size_per_thread: Vec<u32>,
        threads_per_warp: Vec<u32>,
        warps_per_cta: Vec<u32>,
        order: Vec<u32>,
    ) -> BlockedEncoding {
        BlockedEncoding {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
            cta_layout: CtaLayout::default(),
        }
    }

    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// Warps per CTA in total (saturating at `u32::MAX`).
    pub fn num_warps(&self) -> u32 {
        saturating_product(&self.warps_per_cta)
    }

    /// Lanes per warp in total (saturating at `u32::MAX`).
    pub fn num_lanes(&self) -> u32 {
        saturating_product(&self.threads_per_warp)
    }

    /// The CTA tile `sizePerThread * threadsPerWarp * warpsPerCTA` (each
    /// saturating at `u32::MAX`; missing entries count as 1).
    pub fn tile_shape(&self) -> Vec<u32> {
        let at = |v: &[u32], d: usize| v.get(d).copied().unwrap_or(1);
        (0..self.rank())
            .map(|d| {
                saturating_product(&[
                    at(&self.size_per_thread, d),
                    at(&self.threads_per_warp, d),
                    at(&self.warps_per_cta, d),
                ])
            })
            .collect()
    }

    pub fn validate(&self) -> Result<(), LayoutError> {
        let r = self.rank();
        if self.size_per_thread.len() != r
            || self.threads_per_warp.len() != r
            || self.warps_per_cta.len() != r
        {
            return enc_err(format!("blocked parameters of different ranks: {self:?}"));
        }
        check_pow2_product("sizePerThread", &self.size_per_thread, MAX_REGISTER_BITS)?;
        check_pow2_product("threadsPerWarp", &self.threads_per_warp, MAX_DIM_BITS)?;
        check_pow2_product("warpsPerCTA", &self.warps_per_cta, MAX_DIM_BITS)?;
        check_perm("order", &self.order, r)?;
        for d in 0..r {
            let tile = self.size_per_thread[d] as u128
                * self.threads_per_warp[d] as u128
                * self.warps_per_cta[d] as u128;
            if tile > 1 << MAX_DIM_BITS {
                return enc_err(format!(
                    "the CTA tile (sizePerThread * threadsPerWarp * warpsPerCTA) has {tile} elements along dim {d}, more than the 2^{MAX_DIM_BITS} a layout supports"
                ));
            }
        }
        self.cta_layout.validate(r)
    }

    /// The linear layout for a tensor of this shape.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.validate()?;
        check_shape(shape, self.rank())?;
        let cta = try_identity_nd(REGISTER, &self.size_per_thread, &self.order)?
            .checked_mul(&try_identity_nd(LANE, &self.threads_per_warp, &self.order)?)?
            .checked_mul(&try_identity_nd(WARP, &self.warps_per_cta, &self.order)?)?;
        combine_cta_cga(cta, &self.cta_layout, shape, &DISTRIBUTED_IN_DIMS)
    }
}

/// `#ttg.slice<{dim, parent}>`: the parent layout of the tensor with a
/// size-1 dim `dim` inserted, with that out-dim removed. Registers that
/// become duplicates (zero bases) are dropped, so a thread's registers stay
/// distinct; lanes/warps that spread along `dim` become broadcasts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SliceEncoding {
    pub dim: u32,
    pub parent: Box<Encoding>,
}

impl SliceEncoding {
    pub fn new(dim: u32, parent: Encoding) -> SliceEncoding {
        SliceEncoding {
            dim,
            parent: Box::new(parent),
        }
    }

    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        if !self.parent.is_distributed() {
            return enc_err("slice of a non-distributed parent");
        }
        let dim = self.dim as usize;
        if dim > shape.len() {
            return enc_err(format!("slice dim {dim} out of range for shape {shape:?}"));
        }
        let mut pshape = shape.to_vec();
        pshape.insert(dim, 1);
        let parent = self.parent.to_linear(&pshape)?;
        let mut l = parent.remove_out_dim(&out_dim_name(dim));
        for d in dim + 1..=shape.len() {
            l = l.rename_out_dim(&out_dim_name(d), &out_dim_name(d - 1));
        }
        Ok(l.remove_zero_bases(REGISTER))
    }
}

/// `#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape}>`:
/// the accumulator layout of NVIDIA tensor-core instructions.
///
/// * v2 (`mma.sync.m16n8k*`, Ampere): `instrShape = [16, 8]` (or `[1, 16,
///   8]` with a batch dim). In one warp, lane `t` holds rows `t/4` and
///   `t/4 + 8`, columns `2*(t%4) + {0, 1}`: register bases `(0,1), (8,0)`,
///   lane bases `(0,2), (0,4), (1,0), (2,0), (4,0)`. Warps tile the
///   `16x8` warp tiles row-major (`warpsPerCTA[1]` fastest).
/// * v3 (`wgmma.m64nNk*`, Hopper): `instrShape = [16, N, K]`, the per-warp
///   slice of the warpgroup's 64xN tile: the v2 pattern repeated N/8 times
///   along columns (extra register bases `(0,8), (0,16), ..`). Warps are
///   ordered column-major (`warpsPerCTA[0]` fastest), so each group of 4
///   consecutive warps (a warpgroup) covers 64 consecutive rows.
///
/// Tiles beyond the warps repeat in registers, columns first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvidiaMmaEncoding {
    pub version_major: u32,
    pub version_minor: u32,
    pub warps_per_cta: Vec<u32>,
    pub instr_shape: Vec<u32>,
    pub cta_layout: CtaLayout,
}

/// The register/lane tile shared by mma accumulators and operands
/// (`kWidth` consecutive registers along the inner dim, then 4 lanes along
/// inner, 8 lanes along outer, then register repeats along outer and inner).
fn mma_tile(
    tile_shape: &[u32],
    k_width: u32,
    inner: usize,
    outer: usize,
    rep_order: &[u32],
) -> Result<LinearLayout, LayoutError> {
    let (Some(&m), Some(&n)) = (tile_shape.get(outer), tile_shape.get(inner)) else {
        return enc_err(format!(
            "mma tile {tile_shape:?} has no dims {outer} and {inner}"
        ));
    };
    let lanes_k = k_width.checked_mul(4).filter(|&w| w > 0);
    let Some(lanes_k) = lanes_k.filter(|&w| m.is_multiple_of(8) && n.is_multiple_of(w)) else {
        return enc_err(format!(
            "mma tile {tile_shape:?} incompatible with kWidth {k_width}"
        ));
    };
    let rank = tile_shape.len();
    let inner_n = out_dim_name(inner);
    let outer_n = out_dim_name(outer);
    let mut l = try_identity_nd(REGISTER, &vec![1; rank], rep_order)?;
    for factor in [
        LinearLayout::try_identity_1d(k_width, REGISTER, &inner_n)?,
        LinearLayout::try_identity_1d(4, LANE, &inner_n)?,
        LinearLayout::try_identity_1d(8, LANE, &outer_n)?,
        LinearLayout::try_identity_1d(m / 8, REGISTER, &outer_n)?,
        LinearLayout::try_identity_1d(n / lanes_k, REGISTER, &inner_n)?,
    ] {
        l = l.checked_mul(&factor)?;
    }
    Ok(l)
}

impl NvidiaMmaEncoding {
    /// An Ampere `mma.sync` (v2) accumulator layout, `instrShape = [16, 8]`.
    pub fn v2(warps_per_cta: Vec<u32>) -> NvidiaMmaEncoding {
        let mut instr = vec![1; warps_per_cta.len().saturating_sub(2)];
        instr.extend([16, 8]);
        NvidiaMmaEncoding {
            version_major: 2,
            version_minor: 0,
            warps_per_cta,
            instr_shape: instr,
            cta_layout: CtaLayout::default(),
        }
    }

    /// A Hopper `wgmma` (v3) accumulator layout, `instrShape = [16, n, k]`.
    pub fn v3(warps_per_cta: Vec<u32>, n: u32, k: u32) -> NvidiaMmaEncoding {
        NvidiaMmaEncoding {
            version_major: 3,
            version_minor: 0,
            warps_per_cta,
            instr_shape: vec![16, n, k],
            cta_layout: CtaLayout::default(),
        }
    }

    pub fn rank(&self) -> usize {
        self.warps_per_cta.len()
    }

    pub fn num_warps(&self) -> u32 {
        self.warps_per_cta.iter().product()
    }

    pub fn is_ampere(&self) -> bool {
        self.version_major == 2
    }

    pub fn is_hopper(&self) -> bool {
        self.version_major == 3
    }

    /// Order of warp ids over dims: row-major for v2, column-major for v3.
    pub fn warp_order(&self) -> Vec<u32> {
        matrix_order(self.rank(), !self.is_hopper())
    }

    /// The per-warp accumulator tile `[.., M, N]`.
    pub fn warp_tile(&self) -> Result<Vec<u32>, LayoutError> {
        let rank = self.rank();
        let mut tile = vec![1u32; rank];
        match self.version_major {
            2 => {
                let is = &self.instr_shape;
                if is.len() < 2 || is[is.len() - 2..] != [16, 8] {
                    return enc_err(format!("mma v2 instrShape {is:?} is not [.., 16, 8]"));
                }
                tile[rank - 2] = 16;
                tile[rank - 1] = 8;
            }
            3 => {
                let is = &self.instr_shape;
                if is.len() != 3
                    || is[0] != 16
                    || !is[1].is_multiple_of(8)
                    || !is[1].is_power_of_two()
                    || is[1] > 256
                {
                    return enc_err(format!(
                        "mma v3 instrShape {is:?} is not [16, N, K] with N a power of two in 8..=256"
                    ));
                }
                tile[rank - 2] = 16;
                tile[rank - 1] = is[1];
            }
            v => return enc_err(format!("unsupported mma versionMajor {v}")),
        }
        Ok(tile)
    }

    pub fn validate(&self) -> Result<(), LayoutError> {
        let rank = self.rank();
        if !(2..=3).contains(&rank) {
            return enc_err(format!(
                "mma warpsPerCTA {:?} must have rank 2 or 3",
                self.warps_per_cta
            ));
        }
        if self.is_hopper() && (rank != 2 || !self.warps_per_cta[0].is_multiple_of(4)) {
            return enc_err(format!(
                "mma v3 needs rank 2 and warpsPerCTA[0] a multiple of 4 (whole warpgroups along M), got {:?}",
                self.warps_per_cta
            ));
        }
        check_pow2_product("warpsPerCTA", &self.warps_per_cta, MAX_DIM_BITS)?;
        self.warp_tile()?;
        self.cta_layout.validate(rank)
    }

    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.validate()?;
        let rank = self.rank();
        check_shape(shape, rank)?;
        let tile = self.warp_tile()?;
        let rep_order = matrix_order(rank, true);
        let cta = mma_tile(&tile, 2, rank - 1, rank - 2, &rep_order)?;
        let order = cta
            .out_dim_names()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>();
        let warps = try_identity_nd(WARP, &self.warps_per_cta, &self.warp_order())?
            .transpose_outs(&names_ref(&order))?;
        combine_cta_cga(
            cta.checked_mul(&warps)?,
            &self.cta_layout,
            shape,
            &DISTRIBUTED_IN_DIMS,
        )
    }
}

/// `#ttg.dot_op<{opIdx, parent, kWidth}>`: the register layout of a dot
/// operand (`opIdx = 0`: A, `M x K`; `1`: B, `K x N`).
///
/// * `nvidia_mma` parent: the `mma.sync` fragment layout. Each lane holds
///   `kWidth` consecutive K elements per register group; A's warp tile is
///   `16 x 8*kWidth` (lane `t`: rows `t/4 (+8)`, K `kWidth*(t%4) + i (+
///   4*kWidth)`), B's is `8*kWidth x 8`. Warps follow the parent's warp
///   order and broadcast along K. Repeats go K first. For a v3 parent only
///   A may live in registers.
/// * `blocked` parent (FMA dots): the parent with the whole K extent in
///   each thread's registers and the lanes/warps along K broadcast.
///   `kWidth` is unused (0).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotOperandEncoding {
    pub op_idx: u32,
    pub parent: Box<Encoding>,
    pub k_width: u32,
}

impl DotOperandEncoding {
    pub fn new(op_idx: u32, parent: Encoding, k_width: u32) -> DotOperandEncoding {
        DotOperandEncoding {
            op_idx,
            parent: Box::new(parent),
            k_width,
        }
    }

    /// Element order (fastest first): K fastest for mma parents, the
    /// parent's order for blocked parents.
    pub fn order(&self, rank: usize) -> Vec<u32> {
        match &*self.parent {
            Encoding::Blocked(b) => b.order.clone(),
            _ => {
                let mut o = matrix_order(rank, true);
                if self.op_idx == 1 && rank >= 2 {
                    o.swap(0, 1);
                }
                o
            }
        }
    }

    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        if self.op_idx > 1 {
            return enc_err(format!("dot_op opIdx {} is not 0 or 1", self.op_idx));
        }
        let is_a = self.op_idx == 0;
        match &*self.parent {
            Encoding::NvidiaMma(p) => {
                p.validate()?;
                let rank = p.rank();
                check_shape(shape, rank)?;
                if p.is_hopper() && !is_a {
                    return enc_err("wgmma takes operand B from shared memory only");
                }
                let kw = self.k_width;
                if kw == 0 || !kw.is_power_of_two() || kw.trailing_zeros() + 3 > MAX_DIM_BITS {
                    return enc_err(format!(
                        "dot_op kWidth {kw} must be a power of two in 1..=2^{}",
                        MAX_DIM_BITS - 3
                    ));
                }
                let mut tile = vec![1u32; rank];
                let (k_dim, other) = if is_a {
                    tile[rank - 2] = 16;
                    tile[rank - 1] = 8 * kw;
                    (rank - 1, rank - 2)
                } else {
                    tile[rank - 2] = 8 * kw;
                    tile[rank - 1] = 8;
                    (rank - 2, rank - 1)
                };
                let rep_order = self.order(rank);
                let cta = mma_tile(&tile, kw, k_dim, other, &rep_order)?;
                let order = cta
                    .out_dim_names()
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>();
                let warps = broadcast_nd(WARP, &p.warps_per_cta, &p.warp_order(), k_dim)?
                    .transpose_outs(&names_ref(&order))?;
                combine_cta_cga(
                    cta.checked_mul(&warps)?,
                    &p.cta_layout,
                    shape,
                    &DISTRIBUTED_IN_DIMS,
                )
            }
            Encoding::Blocked(p) => {
                p.validate()?;
                let rank = p.rank();
                check_shape(shape, rank)?;
                if rank < 2 {
                    return enc_err("dot operands need rank >= 2");
                }
                let k_dim = if is_a { rank - 1 } else { rank - 2 };
                let per_cta = p.cta_layout.shape_per_cta(shape);
                let mut thread = p.size_per_thread.clone();
                thread[k_dim] = per_cta[k_dim];
                if thread.iter().map(|t| t.trailing_zeros()).sum::<u32>() > MAX_REGISTER_BITS {
                    return enc_err(format!(
                        "a thread would hold {thread:?} registers of a {shape:?} dot operand, more than the 2^{MAX_REGISTER_BITS} supported"
                    ));
                }
                let cta = try_identity_nd(REGISTER, &thread, &p.order)?
                    .checked_mul(&broadcast_nd(LANE, &p.threads_per_warp, &p.order, k_dim)?)?
                    .checked_mul(&broadcast_nd(WARP, &p.warps_per_cta, &p.order, k_dim)?)?;
                combine_cta_cga(cta, &p.cta_layout, shape, &DISTRIBUTED_IN_DIMS)
            }
            other => enc_err(format!(
                "dot_op parent {other} is not nvidia_mma or blocked"
            )),
        }
    }
}

/// `#ttg.linear<{register, lane, warp, block}>`: a distributed layout given
/// directly by its bases. `register[i]` is the tensor coordinate (one entry
/// per dim, `rank` entries) of register `1 << i` of lane 0, warp 0, CTA 0;
/// likewise for `lane`, `warp` and `block`. Any other input is the XOR of
/// the bases of its set bits.
///
/// The bases describe the tensor shape they were written for (per dim, the
/// smallest power of two above every coordinate). [`LinearEncoding::to_linear`]
/// fits them to another shape as Triton does: a larger shape repeats the
/// layout in new register bases (dims in [`LinearEncoding::order`], fastest
/// first); a smaller one drops the register bases that fall outside and
/// wraps the lane, warp and block coordinates (so those become broadcasts).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinearEncoding {
    /// Entries per basis: the tensor rank.
    pub rank: u32,
    pub register: Vec<Vec<u32>>,
    pub lane: Vec<Vec<u32>>,
    pub warp: Vec<Vec<u32>>,
    pub block: Vec<Vec<u32>>,
}

impl LinearEncoding {
    /// The encoding of these bases; the rank is the length of the first
    /// basis (0 without any), as Triton's parser infers it.
    pub fn new(
        register: Vec<Vec<u32>>,
        lane: Vec<Vec<u32>>,
        warp: Vec<Vec<u32>>,
        block: Vec<Vec<u32>>,
    ) -> LinearEncoding {
        let rank = [&register, &lane, &warp, &block]
            .iter()
            .find_map(|bases| bases.first())
            .map_or(0, |b| b.len() as u32);
        LinearEncoding {
            rank,
            register,
            lane,
            warp,
            block,
        }
    }

    /// The encoding of a distributed linear layout (in-dims among
    /// `register, lane, warp, block`, out-dims `dim0, dim1, ..`).
    pub fn from_layout(layout: &LinearLayout) -> Result<LinearEncoding, LayoutError> {
        let rank = layout.num_out_dims();
        let l = layout
            .with_in_dims(&DISTRIBUTED_IN_DIMS)?
            .transpose_outs(&names_ref(&standard_out_dim_names(rank)))?;
        Ok(LinearEncoding {
            rank: rank as u32,
            register: l.bases(REGISTER).to_vec(),
            lane: l.bases(LANE).to_vec(),
            warp: l.bases(WARP).to_vec(),
            block: l.bases(BLOCK).to_vec(),
        })
    }

    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The bases of each in-dim, in [`DISTRIBUTED_IN_DIMS`] order.
    pub fn bases(&self) -> [(&'static str, &Vec<Vec<u32>>); 4] {
        [
            (REGISTER, &self.register),
            (LANE, &self.lane),
            (WARP, &self.warp),
            (BLOCK, &self.block),
        ]
    }

    /// Warps per CTA: one per combination of warp bases.
    pub fn num_warps(&self) -> u64 {
        1u64 << self.warp.len().min(63)
    }

    /// Lanes per warp.
    pub fn num_lanes(&self) -> u64 {
        1u64 << self.lane.len().min(63)
    }

    /// CTAs per cluster.
    pub fn num_ctas(&self) -> u64 {
        1u64 << self.block.len().min(63)
    }

    /// Element order, fastest first (Triton's `LinearEncodingAttr::getOrder`):
    /// the dims in the order the register bases first move along them, then
    /// the dims registers do not move along, slowest-varying last
    /// (`rank-1, .., 0`).
    pub fn order(&self) -> Vec<u32> {
        let mut order: Vec<u32> = Vec::with_capacity(self.rank());
        for basis in &self.register {
            if let Some(d) = basis.iter().position(|&c| c != 0)
                && !order.contains(&(d as u32))
            {
                order.push(d as u32);
            }
        }
        for d in (0..self.rank).rev() {
            if !order.contains(&d) {
                order.push(d);
            }
        }
        order
    }

    pub fn validate(&self) -> Result<(), LayoutError> {
        for (name, bases) in self.bases() {
            if let Some(b) = bases.iter().find(|b| b.len() != self.rank()) {
                return enc_err(format!(
                    "linear {name} basis {b:?} does not have {} entries",
                    self.rank
                ));
            }
            if let Some(c) = bases.iter().flatten().find(|&&c| c > i32::MAX as u32) {
                return enc_err(format!("linear {name} coordinate {c} is out of range"));
            }
        }
        Ok(())
    }

    /// The linear layout for a tensor of this shape (see the type's docs
    /// for shapes other than the bases').
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.validate()?;
        check_shape(shape, self.rank())?;
        let mut ins: Vec<Vec<Vec<u32>>> = self.bases().iter().map(|(_, b)| b.to_vec()).collect();
        for d in self.order() {
            let d = d as usize;
            let natural = ins
                .iter()
                .flatten()
                .map(|b| (b[d] as u64 + 1).next_power_of_two())
                .max()
                .unwrap_or(1);
            let want = shape[d] as u64;
            if natural < want {
                let mut size = natural;
                while size < want {
                    let mut basis = vec![0; self.rank()];
                    basis[d] = size as u32;
                    ins[0].push(basis);
                    size *= 2;
                }
            } else if natural > want {
                let mask = shape[d] - 1;
                ins[0].retain(|b| b[d] <= mask);
                for bases in &mut ins[1..] {
                    for b in bases.iter_mut() {
                        b[d] &= mask;
                    }
                }
            }
        }
        let names = standard_out_dim_names(self.rank());
        LinearLayout::from_bases(
            DISTRIBUTED_IN_DIMS.iter().copied().zip(ins).collect(),
            names
                .iter()
                .map(String::as_str)
                .zip(shape.iter().copied())
                .collect(),
        )
    }
}

// ---------------------------------------------------------------------------
// Shared encodings
// ---------------------------------------------------------------------------

/// `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`.
///
/// The buffer is the tensor in `order` (fastest dim first). With `col =
/// order[0]` and `row = order[1]`, element `(r, c)` is stored at
/// `r * cols + (c ^ (vec * ((r / perPhase) % maxPhase)) % cols)`: groups of
/// `vec` columns are XOR-permuted by the row's *phase*. As a linear layout
/// `offset -> (row, col)`: column bits map to columns, row bit `2^i` maps to
/// `(2^i, (vec * ((2^i / perPhase) % maxPhase)) % cols)`. Further dims
/// (`order[2..]`) follow, less significant first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzledSharedEncoding {
    pub vec: u32,
    pub per_phase: u32,
    pub max_phase: u32,
    pub order: Vec<u32>,
    pub cta_layout: CtaLayout,
}

impl SwizzledSharedEncoding {
    pub fn new(vec: u32, per_phase: u32, max_phase: u32, order: Vec<u32>) -> Self {
        SwizzledSharedEncoding {
            vec,
            per_phase,
            max_phase,
            order,
            cta_layout: CtaLayout::default(),
        }
    }

    /// The buffer of a tensor-core (mma) operand of `shape` (`order` fastest first) that
    /// `ldmatrix` reads without bank conflicts: each `ldmatrix` reads 8 rows of 16 bytes, so the
    /// vectors are 16 bytes along the contiguous dimension, rows sharing one 128-byte line of
    /// the 32 banks share a phase, and the next rows' vectors are XORed by their phase over as
    /// many phases as those 8 rows span (for an operand whose contiguous dimension is not k,
    /// the rows of one instruction are its k extent, `4 * kWidth`).
    pub fn for_mma_operand(
        operand: &DotOperandEncoding,
        shape: &[i64],
        order: Vec<u32>,
        element_bits: u32,
    ) -> Self {
        let rank = shape.len();
        let element_bytes = i64::from(element_bits.div_ceil(8).max(1));
        let inner = order
            .first()
            .map_or(rank.saturating_sub(1), |&d| d as usize);
        let row_bytes = shape.get(inner).copied().unwrap_or(1).max(1) * element_bytes;
        let vec = (16 / element_bytes).max(1);
        let per_phase = (128 / row_bytes).max(1);
        let k_dim = if operand.op_idx == 0 {
            rank.saturating_sub(1)
        } else {
            rank.saturating_sub(2)
        };
        let rows = if inner == k_dim {
            8
        } else {
            4 * i64::from(operand.k_width.max(1))
        };
        let max_phase = (rows / per_phase).max(1);
        SwizzledSharedEncoding::new(vec as u32, per_phase as u32, max_phase as u32, order)
    }

    pub fn rank(&self) -> usize {
        self.order.len()
    }

    pub fn validate(&self) -> Result<(), LayoutError> {
        check_pow2(
            "vec/perPhase/maxPhase",
            &[self.vec, self.per_phase, self.max_phase],
        )?;
        check_perm("order", &self.order, self.rank())?;
        self.cta_layout.validate(self.rank())
    }

    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.validate()?;
        let rank = self.rank();
        check_shape(shape, rank)?;
        let per_cta = self.cta_layout.shape_per_cta(shape);
        let cta = if rank == 1 {
            LinearLayout::try_identity_1d(per_cta[0], OFFSET, &out_dim_name(0))?
        } else {
            let col = self.order[0] as usize;
            let row = self.order[1] as usize;
            let (cols, rows) = (per_cta[col], per_cta[row]);
            let mut bases = vec![];
            for i in 0..cols.trailing_zeros() {
                bases.push(vec![0, 1 << i]);
            }
            for i in 0..rows.trailing_zeros() {
                let r = 1u32 << i;
                let swz = (self.vec as u64 * ((r / self.per_phase) % self.max_phase) as u64)
                    % cols as u64;
                bases.push(vec![r, swz as u32]);
            }
            let mut l = LinearLayout::from_bases(
                vec![(OFFSET, bases)],
                vec![(&out_dim_name(row), rows), (&out_dim_name(col), cols)],
            )?;
            for &d in &self.order[2..] {
                l = l.checked_mul(&LinearLayout::try_identity_1d(
                    per_cta[d as usize],
                    OFFSET,
                    &out_dim_name(d as usize),
                )?)?;
            }
            l
        };
        combine_cta_cga(cta, &self.cta_layout, shape, &SHARED_IN_DIMS)
    }
}

/// `#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth}>`:
/// the shared layout read by `wgmma`/written by TMA.
///
/// The contiguous dim is the last (`transposed = false`) or the
/// second-to-last (`transposed = true`). For a swizzle width `S` of 32, 64
/// or 128 bytes the buffer is made of *atoms* of 8 rows x `S` bytes; in an
/// atom, the 16-byte chunk `j` of row `r` is stored at chunk `j ^ ((r /
/// (128/S)) % (S/16))` (the CUTLASS `Swizzle<log2(S/16), 4, 3>` pattern). Atoms
/// stack along the rows first, then along the contiguous dim; leading
/// (batch/multi-buffer) dims are outermost. `S = 0` is plain row-major. The
/// per-CTA shape must be at least one atom.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvmmaSharedEncoding {
    pub swizzling_byte_width: u32,
    pub transposed: bool,
    pub element_bit_width: u32,
    /// FP4 padded layouts are parsed but not supported by `to_linear`.
    pub fp4_padded: bool,
    pub cta_layout: CtaLayout,
}

impl NvmmaSharedEncoding {
    pub fn new(swizzling_byte_width: u32, transposed: bool, element_bit_width: u32) -> Self {
        NvmmaSharedEncoding {
            swizzling_byte_width,
            transposed,
            element_bit_width,
            fp4_padded: false,
            cta_layout: CtaLayout::default(),
        }
    }

    /// The dim that is contiguous in memory.
    pub fn contiguous_dim(&self, rank: usize) -> usize {
        if rank >= 2 && self.transposed {
            rank - 2
        } else {
            rank - 1
        }
    }

    /// Element order (fastest first).
    pub fn order(&self, rank: usize) -> Vec<u32> {
        if rank < 2 {
            return vec![0];
        }
        let mut o = matrix_order(rank, !self.transposed);
        o.truncate(2);
        o.extend((0..rank as u32 - 2).rev());
        o
    }

    /// `(vec, perPhase, maxPhase)` of the equivalent swizzle.
    pub fn swizzle_params(&self) -> Result<(u32, u32, u32), LayoutError> {
        let bits = self.element_bit_width;
        if ![8, 16, 32, 64].contains(&bits) {
            return enc_err(format!("nvmma_shared elementBitWidth {bits} unsupported"));
        }
        let vec = 128 / bits;
        match self.swizzling_byte_width {
            0 => Ok((vec, 1, 1)),
            s @ (32 | 64 | 128) => Ok((vec, 128 / s, s / 16)),
            s => enc_err(format!("nvmma_shared swizzlingByteWidth {s} unsupported")),
        }
    }

    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        if self.fp4_padded {
            return enc_err("nvmma_shared with fp4Padded is not supported");
        }
        let (vec, per_phase, max_phase) = self.swizzle_params()?;
        let rank = shape.len();
        check_shape(shape, rank)?;
        self.cta_layout.validate(rank)?;
        let per_cta = self.cta_layout.shape_per_cta(shape);
        if rank == 1 {
            let l = LinearLayout::try_identity_1d(per_cta[0], OFFSET, &out_dim_name(0))?;
            return combine_cta_cga(l, &self.cta_layout, shape, &SHARED_IN_DIMS);
        }
        let col = self.contiguous_dim(rank);
        let row = if col == rank - 1 { rank - 2 } else { rank - 1 };
        let (cols, rows) = (per_cta[col], per_cta[row]);
        let s = self.swizzling_byte_width;
        let (tile_cols, tile_rows) = if s == 0 {
            (cols, 1)
        } else {
            (8 * s / self.element_bit_width, 8)
        };
        if cols < tile_cols || rows < tile_rows {
            return enc_err(format!(
                "shape {shape:?} is smaller than one {tile_rows}x{tile_cols} nvmma_shared atom"
            ));
        }
        let mut bases = vec![];
        for i in 0..tile_cols.trailing_zeros() {
            bases.push(vec![0, 1 << i]);
        }
        for i in 0..rows.trailing_zeros() {
            let r = 1u32 << i;
            let swz = if r < tile_rows {
                vec * ((r / per_phase) % max_phase)
            } else {
                0
            };
            bases.push(vec![r, swz]);
        }
        for i in tile_cols.trailing_zeros()..cols.trailing_zeros() {
            bases.push(vec![0, 1 << i]);
        }
        let mut l = LinearLayout::from_bases(
            vec![(OFFSET, bases)],
            vec![(&out_dim_name(row), rows), (&out_dim_name(col), cols)],
        )?;
        for d in (0..rank - 2).rev() {
            l = l.checked_mul(&LinearLayout::try_identity_1d(
                per_cta[d],
                OFFSET,
                &out_dim_name(d),
            )?)?;
        }
        combine_cta_cga(l, &self.cta_layout, shape, &SHARED_IN_DIMS)
    }
}

// ---------------------------------------------------------------------------
// The sum type
// ---------------------------------------------------------------------------

/// Any `#ttg.*` layout encoding: Tritium's one Rust model of an encoding.
///
/// MLIR attributes convert to and from it through the dialect's C accessors
/// (`tritium_dialects::encoding`); the text form ([`crate::text`]) is for
/// tests and fixtures. [`Encoding::verify`] holds the rules the `ttg`
/// dialect enforces on an encoding on its own; [`Encoding::to_linear`] is
/// the one place an encoding becomes a register/lane/warp/block (or
/// offset/block) to element map.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Blocked(BlockedEncoding),
    Slice(SliceEncoding),
    NvidiaMma(NvidiaMmaEncoding),
    DotOperand(DotOperandEncoding),
    Linear(LinearEncoding),
    SwizzledShared(SwizzledSharedEncoding),
    NvmmaShared(NvmmaSharedEncoding),
}

impl From<BlockedEncoding> for Encoding {
    fn from(e: BlockedEncoding) -> Self {
        Encoding::Blocked(e)
    }
}
impl From<SliceEncoding> for Encoding {
    fn from(e: SliceEncoding) -> Self {
        Encoding::Slice(e)
    }
}
impl From<NvidiaMmaEncoding> for Encoding {
    fn from(e: NvidiaMmaEncoding) -> Self {
        Encoding::NvidiaMma(e)
    }
}
impl From<DotOperandEncoding> for Encoding {
    fn from(e: DotOperandEncoding) -> Self {
        Encoding::DotOperand(e)
    }
}
impl From<LinearEncoding> for Encoding {
    fn from(e: LinearEncoding) -> Self {
        Encoding::Linear(e)
    }
}
impl From<SwizzledSharedEncoding> for Encoding {
    fn from(e: SwizzledSharedEncoding) -> Self {
        Encoding::SwizzledShared(e)
    }
}
impl From<NvmmaSharedEncoding> for Encoding {
    fn from(e: NvmmaSharedEncoding) -> Self {
        Encoding::NvmmaShared(e)
    }
}

impl Encoding {
    /// The encoding of `tt.trans(x, order)` for `x` of this (distributed) encoding and `shape`:
    /// result dim `i` is source dim `order[i]`, each thread keeping its elements (a relabeling,
    /// no data movement). A single-CTA blocked layout stays blocked (its per-dim fields
    /// permuted); any other becomes the `#ttg.linear` of its bases with their coordinates
    /// permuted.
    pub fn transposed(&self, shape: &[u32], order: &[u32]) -> Result<Encoding, LayoutError> {
        let rank = shape.len();
        let is_permutation = order.len() == rank && {
            let mut seen = vec![false; rank];
            order
                .iter()
                .all(|&o| (o as usize) < rank && !std::mem::replace(&mut seen[o as usize], true))
        };
        if !is_permutation {
            return Err(LayoutError::DimMismatch(format!(
                "trans order {order:?} is not a permutation of {rank} dims"
            )));
        }
        if let Encoding::Blocked(b) = self
            && b.cta_layout.is_single()
            && b.size_per_thread.len() == rank
        {
            let permute = |v: &[u32]| order.iter().map(|&o| v[o as usize]).collect::<Vec<u32>>();
            // The source's fastest dim d becomes result dim position(order == d).
            let new_order = b
                .order
                .iter()
                .map(|&d| order.iter().position(|&o| o == d).unwrap_or(0) as u32)
                .collect();
            return Ok(Encoding::Blocked(BlockedEncoding {
                size_per_thread: permute(&b.size_per_thread),
                threads_per_warp: permute(&b.threads_per_warp),
                warps_per_cta: permute(&b.warps_per_cta),
                order: new_order,
                cta_layout: b.cta_layout.clone(),
            }));
        }
        let linear = LinearEncoding::from_layout(&self.to_linear(shape)?)?;
        let permute_all = |bases: &[Vec<u32>]| {
            bases
                .iter()
                .map(|b| order.iter().map(|&o| b[o as usize]).collect())
                .collect()
        };
        Ok(Encoding::Linear(LinearEncoding {
            rank: linear.rank,
            register: permute_all(&linear.register),
            lane: permute_all(&linear.lane),
            warp: permute_all(&linear.warp),
            block: permute_all(&linear.block),
        }))
    }

    /// The linear layout for a tensor (distributed encodings: `[register,
    /// lane, warp, block] -> dims`) or buffer (shared encodings: `[offset,
    /// block] -> dims`) of this shape.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        match self {
            Encoding::Blocked(e) => e.to_linear(shape),
            Encoding::Slice(e) => e.to_linear(shape),
            Encoding::NvidiaMma(e) => e.to_linear(shape),
            Encoding::DotOperand(e) => e.to_linear(shape),
            Encoding::Linear(e) => e.to_linear(shape),
            Encoding::SwizzledShared(e) => e.to_linear(shape),
            Encoding::NvmmaShared(e) => e.to_linear(shape),
        }
    }

    /// Register layouts (values live in threads).
    pub fn is_distributed(&self) -> bool {
        !self.is_shared()
    }

    /// Shared-memory layouts.
    pub fn is_shared(&self) -> bool {
        matches!(self, Encoding::SwizzledShared(_) | Encoding::NvmmaShared(_))
    }

    /// The tensor rank the encoding is written for (`None` for
    /// `nvmma_shared`, which fits any rank >= 1, and for a linear layout
    /// without bases).
    pub fn rank(&self) -> Option<usize> {
        match self {
            Encoding::Blocked(e) => Some(e.rank()),
            Encoding::Slice(e) => e.parent.rank().map(|r| r.saturating_sub(1)),
            Encoding::NvidiaMma(e) => Some(e.rank()),
            Encoding::DotOperand(e) => e.parent.rank(),
            Encoding::Linear(e) => {
                let any = e.bases().iter().any(|(_, b)| !b.is_empty());
                (any || e.rank > 0).then_some(e.rank())
            }
            Encoding::SwizzledShared(e) => Some(e.rank()),
            Encoding::NvmmaShared(_) => None,
        }
    }

    /// Element order, fastest-varying dim first (Triton's `getOrder`).
    pub fn order(&self, rank: usize) -> Vec<u32> {
        match self {
            Encoding::Blocked(e) => e.order.clone(),
            Encoding::Slice(e) => e
                .parent
                .order(rank + 1)
                .into_iter()
                .filter(|&d| d != e.dim)
                .map(|d| if d > e.dim { d - 1 } else { d })
                .collect(),
            Encoding::NvidiaMma(_) => matrix_order(rank, true),
            Encoding::DotOperand(e) => e.order(rank),
            Encoding::Linear(e) => e.order(),
            Encoding::SwizzledShared(e) => e.order.clone(),
            Encoding::NvmmaShared(e) => e.order(rank),
        }
    }

    /// The CGA layout (a slice/dot operand uses its parent's); `None` for a
    /// linear layout, whose CTAs are its `block` bases.
    pub fn cta_layout(&self) -> Option<&CtaLayout> {
        match self {
            Encoding::Blocked(e) => Some(&e.cta_layout),
            Encoding::Slice(e) => e.parent.cta_layout(),
            Encoding::NvidiaMma(e) => Some(&e.cta_layout),
            Encoding::DotOperand(e) => e.parent.cta_layout(),
            Encoding::Linear(_) => None,
            Encoding::SwizzledShared(e) => Some(&e.cta_layout),
            Encoding::NvmmaShared(e) => Some(&e.cta_layout),
        }
    }

    /// Warps per CTA of a distributed encoding (blocked, mma: the product of
    /// `warpsPerCTA`; linear: 2^#warp bases; slice, dot_op: the parent's).
    pub fn num_warps(&self) -> Option<u64> {
        match self {
            Encoding::Blocked(e) => Some(product(&e.warps_per_cta)),
            Encoding::Slice(e) => e.parent.num_warps(),
            Encoding::NvidiaMma(e) => Some(product(&e.warps_per_cta)),
            Encoding::DotOperand(e) => e.parent.num_warps(),
            Encoding::Linear(e) => Some(e.num_warps()),
            _ => None,
        }
    }

    /// Threads per warp of a distributed encoding (blocked: the product of
    /// `threadsPerWarp`; mma: 32; linear: 2^#lane bases).
    pub fn threads_per_warp(&self) -> Option<u64> {
        match self {
            Encoding::Blocked(e) => Some(product(&e.threads_per_warp)),
            Encoding::Slice(e) => e.parent.threads_per_warp(),
            Encoding::NvidiaMma(_) => Some(32),
            Encoding::DotOperand(e) => e.parent.threads_per_warp(),
            Encoding::Linear(e) => Some(e.num_lanes()),
            _ => None,
        }
    }

    /// CTAs of the cluster the layout spans (the product of `CTAsPerCGA`;
    /// linear: 2^#block bases).
    pub fn num_ctas(&self) -> Option<u64> {
        match self {
            Encoding::Linear(e) => Some(e.num_ctas()),
            _ => self.cta_layout().map(|c| product(&c.ctas_per_cga)),
        }
    }

    /// Splits a shared-memory allocation shape into its buffers: the
    /// encoding describes one buffer (its rank for `swizzled_shared`, the
    /// last two dims for `nvmma_shared`) and any leading dims — e.g. the
    /// `3` of a 3-stage `!ttg.memdesc<3x128x64xf16, #shared>`, which need
    /// not be a power of two — count buffers laid out back to back. Returns
    /// `(number of buffers, layout of one buffer)`; buffer `i` starts at
    /// element offset `i * (product of the buffer shape)`.
    pub fn shared_buffers(&self, alloc_shape: &[u32]) -> Result<(u64, LinearLayout), LayoutError> {
        let rank = match self {
            Encoding::SwizzledShared(e) => e.rank(),
            Encoding::NvmmaShared(_) => alloc_shape.len().min(2),
            _ => return enc_err(format!("{self} is not a shared encoding")),
        };
        if alloc_shape.len() < rank {
            return Err(LayoutError::DimMismatch(format!(
                "allocation shape {alloc_shape:?} has fewer dims than {self}"
            )));
        }
        let (lead, buf) = alloc_shape.split_at(alloc_shape.len() - rank);
        let n = lead.iter().map(|&d| d as u64).product();
        Ok((n, self.to_linear(buf)?))
    }

    fn distributed(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        if !self.is_distributed() {
            return enc_err(format!("{self} is not a distributed encoding"));
        }
        self.to_linear(shape)
    }

    /// Registers per thread (including duplicated registers, if any).
    pub fn total_elems_per_thread(&self, shape: &[u32]) -> Result<u32, LayoutError> {
        Ok(self.distributed(shape)?.in_dim_size(REGISTER))
    }

    /// Per dim, how many distinct coordinates along that dim one thread's
    /// registers cover. The product can be below
    /// [`Encoding::total_elems_per_thread`] when registers are duplicated.
    pub fn elems_per_thread(&self, shape: &[u32]) -> Result<Vec<u32>, LayoutError> {
        let l = self.distributed(shape)?;
        Ok((0..shape.len())
            .map(|d| l.projected_size(REGISTER, &out_dim_name(d)))
            .collect())
    }

    /// Per dim, the length of the aligned run of consecutive elements each
    /// thread holds (Triton's `getContigPerThread`); see
    /// [`LinearLayout::contiguous_run`].
    pub fn contig_per_thread(&self, shape: &[u32]) -> Result<Vec<u32>, LayoutError> {
        let l = self.distributed(shape)?;
        Ok((0..shape.len())
            .map(|d| l.contiguous_run(REGISTER, &out_dim_name(d)))
            .collect())
    }

    /// The vector width of a global access with this layout when memory is
    /// contiguous along `order[0]`: consecutive registers that map to
    /// consecutive elements (see [`LinearLayout::num_consecutive_in_out`]).
    pub fn vector_width(&self, shape: &[u32]) -> Result<u32, LayoutError> {
        let l = self.distributed(shape)?;
        let fastest = self.order(shape.len())[0] as usize;
        Ok(l.num_consecutive_in_out(REGISTER, &out_dim_name(fastest)))
    }
}

impl LinearLayout {
    /// The number of distinct `out_dim` coordinates reached by `in_dim`
    /// alone: `2^rank` of its bases projected onto `out_dim`.
    pub fn projected_size(&self, in_dim: &str, out_dim: &str) -> u32 {
        let cols: Vec<u64> = self
            .bases(in_dim)
            .iter()
            .map(
                |b| match self.out_dim_names().iter().position(|n| *n == out_dim) {
                    Some(j) => b[j] as u64,
                    None => 0,
                },
            )
            .collect();
        1 << crate::linear::Echelon::new(&cols).rank()
    }
}
