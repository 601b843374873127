//! [`LinearLayout`]: a linear map over GF(2) between named, power-of-two
//! sized index spaces.
//!
//! See the crate documentation for the model and a worked example.

use std::fmt;
use std::ops::{Mul, MulAssign};

use crate::error::LayoutError;

/// Input dimension: the register index within a thread.
pub const REGISTER: &str = "register";
/// Input dimension: the lane (thread) index within a warp.
pub const LANE: &str = "lane";
/// Input dimension: the warp index within a CTA.
pub const WARP: &str = "warp";
/// Input dimension: the CTA (block) index within a CGA (cluster).
pub const BLOCK: &str = "block";
/// Input dimension of shared-memory layouts: the element offset within a
/// CTA's buffer.
pub const OFFSET: &str = "offset";

/// Input dimensions of every distributed (register) layout, in order.
pub const DISTRIBUTED_IN_DIMS: [&str; 4] = [REGISTER, LANE, WARP, BLOCK];
/// Input dimensions of every shared-memory layout, in order.
pub const SHARED_IN_DIMS: [&str; 2] = [OFFSET, BLOCK];

/// Most index bits a layout may have on either side (all in-dims together, or
/// all out-dims together). Keeps every packed index inside a `u64`.
pub const MAX_TOTAL_BITS: u32 = 63;

/// Largest log2 size of a single in- or out-dimension: at most 2^24 (16M)
/// elements along a tensor dim, registers, lanes, warps, CTAs or shared
/// offsets. Triton's largest tensor has 2^20 elements
/// (`TRITON_MAX_TENSOR_NUMEL`); the limit keeps every coordinate and every
/// product of sizes far from `u32` overflow, and makes absurd shapes a
/// [`LayoutError`] instead of minutes of work. Layouts that would exceed it
/// (from [`LinearLayout::from_bases`], [`LinearLayout::checked_mul`], the
/// `try_*` constructors and every `Encoding::to_linear`) are errors.
pub const MAX_DIM_BITS: u32 = 24;

/// Largest log2 number of registers per thread of a distributed encoding's
/// layout (2^16): `Encoding::to_linear` rejects encodings whose threads would
/// hold more (e.g. `sizePerThread = [1048576]`, or a 2^24-element tensor over
/// 128 threads), which no kernel could compile or run.
pub const MAX_REGISTER_BITS: u32 = 16;

/// The standard name of tensor dimension `i`: `"dim0"`, `"dim1"`, ...
pub fn out_dim_name(i: usize) -> String {
    format!("dim{i}")
}

/// The standard names of the dimensions of a rank-`rank` tensor.
pub fn standard_out_dim_names(rank: usize) -> Vec<String> {
    (0..rank).map(out_dim_name).collect()
}

/// `log2(size)` if `size` is a power of two (1 counts), else `None`.
pub fn exact_log2(size: u32) -> Option<u32> {
    if size.is_power_of_two() {
        Some(size.trailing_zeros())
    } else {
        None
    }
}

fn log2_or_panic(size: u32, what: &str) -> u32 {
    match exact_log2(size) {
        Some(l) => l,
        None => panic!("{what}: size {size} is not a power of two"),
    }
}

fn checked_log2(size: u32, what: &str) -> Result<u32, LayoutError> {
    match exact_log2(size) {
        Some(l) if l <= MAX_DIM_BITS => Ok(l),
        Some(_) => Err(LayoutError::InvalidLayout(format!(
            "{what}: size {size} is larger than 2^{MAX_DIM_BITS}"
        ))),
        None => Err(LayoutError::InvalidLayout(format!(
            "{what}: size {size} is not a power of two"
        ))),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct InDim {
    name: String,
    /// `bases[i][j]`: coordinate in out-dim `j` of the image of bit `i`.
    bases: Vec<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct OutDim {
    name: String,
    log2: u32,
}

/// A linear map over GF(2) from named input dimensions to named output
/// dimensions.
///
/// * Every input dimension has size `2^k` and exactly `k` *basis vectors*;
///   basis `i` is the image of the input index `1 << i`.
/// * A basis vector holds one coordinate per output dimension.
/// * The image of an arbitrary input is the XOR of the basis vectors of its
///   set bits, taken per output dimension.
/// * Every output dimension has a size `2^m`; all coordinates are `< 2^m`.
///
/// Dimension order matters in three places: (1) the order bases are listed
/// and printed, (2) *packed* indices (see [`LinearLayout::apply_packed`]),
/// where the first dimension occupies the least significant bits, and (3)
/// `reshape_*`/`flatten_*`, which also treat the first dimension as the most
/// minor. Structural equality (`==`) is order sensitive; use
/// [`LinearLayout::equivalent`] to compare maps irrespective of dim order.
///
/// A dimension that a layout does not mention behaves as a dimension of
/// size 1: `in_dim_size("foo") == 1`, it contributes nothing and is always 0.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LinearLayout {
    ins: Vec<InDim>,
    outs: Vec<OutDim>,
}

// ---------------------------------------------------------------------------
// GF(2) elimination on packed columns.
// ---------------------------------------------------------------------------

/// Row echelon form of a set of packed columns (one `u64` image per input
/// bit), tracking which input bits combine into each pivot, plus an echelon
/// basis of the kernel keyed by highest input bit.
pub(crate) struct Echelon {
    /// `pivots[b]`: a vector of the column span whose highest bit is `b`,
    /// and the input-bit combination producing it.
    pivots: Vec<Option<(u64, u64)>>,
    /// `kernel[b]`: a kernel vector (input bits) whose highest bit is `b`.
    kernel: Vec<Option<u64>>,
    rank: u32,
}

impl Echelon {
    pub(crate) fn new(cols: &[u64]) -> Echelon {
        assert!(cols.len() <= 64);
        let mut e = Echelon {
            pivots: vec![None; 64],
            kernel: vec![None; 64],
            rank: 0,
        };
        for (i, &c) in cols.iter().enumerate() {
            let mut v = c;
            let mut combo = 1u64 << i;
            loop {
                if v == 0 {
                    // Column i depends on earlier columns: `combo` is a
                    // kernel vector whose highest bit is i (all earlier
                    // combos only involve lower bits).
                    e.kernel[i] = Some(combo);
                    break;
                }
                let b = 63 - v.leading_zeros() as usize;
                match e.pivots[b] {
                    Some((pv, pc)) => {
                        v ^= pv;
                        combo ^= pc;
                    }
                    None => {
                        e.pivots[b] = Some((v, combo));
                        e.rank += 1;
                        break;
                    }
                }
            }
        }
        e
    }

    pub(crate) fn rank(&self) -> u32 {
        self.rank
    }

    /// Whether input bit `i` is free: its column lies in the span of the
    /// columns of the lower input bits.
    pub(crate) fn is_free(&self, i: usize) -> bool {
        self.kernel[i].is_some()
    }

    /// Whether `y` is in the column span.
    pub(crate) fn contains(&self, y: u64) -> bool {
        self.solve_any(y).is_some()
    }

    /// Some input combination mapping to `y`.
    fn solve_any(&self, mut y: u64) -> Option<u64> {
        let mut combo = 0u64;
        while y != 0 {
            let b = 63 - y.leading_zeros() as usize;
            let (pv, pc) = self.pivots[b]?;
            y ^= pv;
            combo ^= pc;
        }
        Some(combo)
    }

    /// The numerically smallest input (as a packed integer) mapping to `y`.
    /// The result has every free bit clear.
    pub(crate) fn solve_min(&self, y: u64) -> Option<u64> {
        let mut x = self.solve_any(y)?;
        // Reducing by the kernel echelon basis from the top clears every
        // kernel-pivot (= free) bit; the result is the unique element of the
        // coset x + ker with those bits clear, which is its minimum.
        for b in (0..64).rev() {
            if x >> b & 1 == 1
                && let Some(k) = self.kernel[b]
            {
                x ^= k;
            }
        }
        Some(x)
    }

    /// A basis of the kernel (input-bit combinations mapping to zero).
    pub(crate) fn kernel_basis(&self) -> Vec<u64> {
        self.kernel.iter().flatten().copied().collect()
    }
}

// ---------------------------------------------------------------------------
// Construction and accessors.
// ---------------------------------------------------------------------------

impl LinearLayout {
    /// The layout with no dimensions (maps the single point to the single
    /// point). The identity of `*`.
    pub fn empty() -> LinearLayout {
        LinearLayout::default()
    }

    /// `in_dim[i] -> out_dim[i]` for `i < size`. Panics unless `size` is a
    /// power of two of at most 2^[`MAX_DIM_BITS`]; see
    /// [`LinearLayout::try_identity_1d`].
    pub fn identity_1d(size: u32, in_dim: &str, out_dim: &str) -> LinearLayout {
        Self::strided_1d(size, 1, in_dim, out_dim)
    }

    /// [`LinearLayout::identity_1d`], with an error instead of a panic.
    pub fn try_identity_1d(
        size: u32,
        in_dim: &str,
        out_dim: &str,
    ) -> Result<LinearLayout, LayoutError> {
        Self::try_strided_1d(size, 1, in_dim, out_dim)
    }

    /// `in_dim[i] -> out_dim[i * stride]`; the out-dim has size
    /// `size * stride`. Panics unless both are powers of two and the out-dim
    /// fits in [`MAX_DIM_BITS`]; see [`LinearLayout::try_strided_1d`].
    pub fn strided_1d(size: u32, stride: u32, in_dim: &str, out_dim: &str) -> LinearLayout {
        Self::try_strided_1d(size, stride, in_dim, out_dim).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`LinearLayout::strided_1d`], with an error instead of a panic.
    pub fn try_strided_1d(
        size: u32,
        stride: u32,
        in_dim: &str,
        out_dim: &str,
    ) -> Result<LinearLayout, LayoutError> {
        let k = checked_log2(size, "strided_1d")?;
        let s = checked_log2(stride, "strided_1d stride")?;
        if k + s > MAX_DIM_BITS {
            return Err(LayoutError::InvalidLayout(format!(
                "strided_1d: out-dim {out_dim} of size 2^{} is larger than 2^{MAX_DIM_BITS}",
                k + s
            )));
        }
        Ok(LinearLayout {
            ins: vec![InDim {
                name: in_dim.to_string(),
                bases: (0..k).map(|i| vec![1u32 << (i + s)]).collect(),
            }],
            outs: vec![OutDim {
                name: out_dim.to_string(),
                log2: k + s,
            }],
        })
    }

    /// `in_dim[i] -> out_dim[0]` for `i < size` (a broadcast); the out-dim has
    /// size 1. Panics unless `size` is a power of two of at most
    /// 2^[`MAX_DIM_BITS`]; see [`LinearLayout::try_zeros_1d`].
    pub fn zeros_1d(size: u32, in_dim: &str, out_dim: &str) -> LinearLayout {
        Self::zeros_1d_with_out_size(size, in_dim, out_dim, 1)
    }

    /// [`LinearLayout::zeros_1d`], with an error instead of a panic.
    pub fn try_zeros_1d(
        size: u32,
        in_dim: &str,
        out_dim: &str,
    ) -> Result<LinearLayout, LayoutError> {
        Self::try_zeros_1d_with_out_size(size, in_dim, out_dim, 1)
    }

    /// Like [`LinearLayout::zeros_1d`] but declaring the out-dim's size.
    pub fn zeros_1d_with_out_size(
        size: u32,
        in_dim: &str,
        out_dim: &str,
        out_size: u32,
    ) -> LinearLayout {
        Self::try_zeros_1d_with_out_size(size, in_dim, out_dim, out_size)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`LinearLayout::zeros_1d_with_out_size`], with an error instead of a
    /// panic.
    pub fn try_zeros_1d_with_out_size(
        size: u32,
        in_dim: &str,
        out_dim: &str,
        out_size: u32,
    ) -> Result<LinearLayout, LayoutError> {
        let k = checked_log2(size, "zeros_1d")?;
        let m = checked_log2(out_size, "zeros_1d out size")?;
        Ok(LinearLayout {
            ins: vec![InDim {
                name: in_dim.to_string(),
                bases: vec![vec![0]; k as usize],
            }],
            outs: vec![OutDim {
                name: out_dim.to_string(),
                log2: m,
            }],
        })
    }

    /// Builds a layout from explicit bases.
    ///
    /// `ins[d] = (name, bases)` where `bases[i][j]` is the coordinate in
    /// out-dim `j` (in the order of `outs`) of the image of input `1 << i`.
    /// `outs[j] = (name, size)`. Errors on duplicate names, non-power-of-two
    /// sizes, wrong basis lengths, coordinates out of range, or more than
    /// [`MAX_TOTAL_BITS`] bits on either side.
    pub fn from_bases(
        ins: Vec<(&str, Vec<Vec<u32>>)>,
        outs: Vec<(&str, u32)>,
    ) -> Result<LinearLayout, LayoutError> {
        let mut out_dims = Vec::with_capacity(outs.len());
        for (name, size) in outs {
            let log2 = exact_log2(size).ok_or_else(|| {
                LayoutError::InvalidLayout(format!(
                    "out-dim {name} has size {size}, not a power of two"
                ))
            })?;
            out_dims.push(OutDim {
                name: name.to_string(),
                log2,
            });
        }
        let in_dims = ins
            .into_iter()
            .map(|(name, bases)| InDim {
                name: name.to_string(),
                bases,
            })
            .collect();
        let l = LinearLayout {
            ins: in_dims,
            outs: out_dims,
        };
        l.validate()?;
        Ok(l)
    }

    /// Like [`LinearLayout::from_bases`], but each out-dim's size is the
    /// smallest power of two above every coordinate used in it.
    pub fn from_bases_infer_sizes(
        ins: Vec<(&str, Vec<Vec<u32>>)>,
        out_names: &[&str],
    ) -> Result<LinearLayout, LayoutError> {
        let mut sizes = vec![1u32; out_names.len()];
        for (name, bases) in &ins {
            for b in bases {
                if b.len() != out_names.len() {
                    return Err(LayoutError::InvalidLayout(format!(
                        "basis of {name} has {} coordinates, expected {}",
                        b.len(),
                        out_names.len()
                    )));
                }
                for (j, &c) in b.iter().enumerate() {
                    let need = (c as u64 + 1).next_power_of_two();
                    if need > 1u64 << MAX_DIM_BITS {
                        return Err(LayoutError::InvalidLayout(format!(
                            "coordinate {c} too large"
                        )));
                    }
                    sizes[j] = sizes[j].max(need as u32);
                }
            }
        }
        let outs = out_names.iter().copied().zip(sizes).collect();
        Self::from_bases(ins, outs)
    }

    fn validate(&self) -> Result<(), LayoutError> {
        let bad = |m: String| Err(LayoutError::InvalidLayout(m));
        for (i, d) in self.ins.iter().enumerate() {
            if self.ins[..i].iter().any(|e| e.name == d.name) {
                return bad(format!("duplicate in-dim {}", d.name));
            }
            if d.bases.len() as u32 > MAX_DIM_BITS {
                return bad(format!("in-dim {} too large", d.name));
            }
            for b in &d.bases {
                if b.len() != self.outs.len() {
                    return bad(format!(
                        "basis of {} has {} coordinates, expected {}",
                        d.name,
                        b.len(),
                        self.outs.len()
                    ));
                }
                for (j, &c) in b.iter().enumerate() {
                    if self.outs[j].log2 < 32 && (c as u64) >= (1u64 << self.outs[j].log2) {
                        return bad(format!(
                            "basis of {} has coordinate {c} >= size {} of {}",
                            d.name,
                            1u64 << self.outs[j].log2,
                            self.outs[j].name
                        ));
                    }
                }
            }
        }
        for (j, o) in self.outs.iter().enumerate() {
            if self.outs[..j].iter().any(|e| e.name == o.name) {
                return bad(format!("duplicate out-dim {}", o.name));
            }
            if o.log2 > MAX_DIM_BITS {
                return bad(format!("out-dim {} too large", o.name));
            }
        }
        if self.total_in_bits() > MAX_TOTAL_BITS || self.total_out_bits() > MAX_TOTAL_BITS {
            return bad("too many index bits".to_string());
        }
        Ok(())
    }

    // ----- dims -----

    /// Names of the input dimensions, in order.
    pub fn in_dim_names(&self) -> Vec<&str> {
        self.ins.iter().map(|d| d.name.as_str()).collect()
    }

    /// Names of the output dimensions, in order.
    pub fn out_dim_names(&self) -> Vec<&str> {
        self.outs.iter().map(|d| d.name.as_str()).collect()
    }

    /// `(name, size)` of every output dimension, in order.
    pub fn out_dims(&self) -> Vec<(&str, u32)> {
        self.outs
            .iter()
            .map(|d| (d.name.as_str(), 1u32 << d.log2))
            .collect()
    }

    /// `(name, size)` of every input dimension, in order.
    pub fn in_dims(&self) -> Vec<(&str, u32)> {
        self.ins
            .iter()
            .map(|d| (d.name.as_str(), 1u32 << d.bases.len()))
            .collect()
    }

    pub fn num_in_dims(&self) -> usize {
        self.ins.len()
    }

    pub fn num_out_dims(&self) -> usize {
        self.outs.len()
    }

    pub fn has_in_dim(&self, name: &str) -> bool {
        self.in_index(name).is_some()
    }

    pub fn has_out_dim(&self, name: &str) -> bool {
        self.out_index(name).is_some()
    }

    fn in_index(&self, name: &str) -> Option<usize> {
        self.ins.iter().position(|d| d.name == name)
    }

    fn out_index(&self, name: &str) -> Option<usize> {
        self.outs.iter().position(|d| d.name == name)
    }

    /// log2 of an input dimension's size (0 if absent).
    pub fn in_dim_size_log2(&self, name: &str) -> u32 {
        self.in_index(name)
            .map_or(0, |i| self.ins[i].bases.len() as u32)
    }

    /// Size of an input dimension (1 if absent).
    pub fn in_dim_size(&self, name: &str) -> u32 {
        1 << self.in_dim_size_log2(name)
    }

    /// log2 of an output dimension's size (0 if absent).
    pub fn out_dim_size_log2(&self, name: &str) -> u32 {
        self.out_index(name).map_or(0, |j| self.outs[j].log2)
    }

    /// Size of an output dimension (1 if absent).
    pub fn out_dim_size(&self, name: &str) -> u32 {
        1 << self.out_dim_size_log2(name)
    }

    /// Total number of input bits (log2 of the input space size).
    pub fn total_in_bits(&self) -> u32 {
        self.ins.iter().map(|d| d.bases.len() as u32).sum()
    }

    /// Total number of output bits (log2 of the output space size).
    pub fn total_out_bits(&self) -> u32 {
        self.outs.iter().map(|d| d.log2).sum()
    }

    /// Product of all input dimension sizes.
    pub fn total_in_size(&self) -> u64 {
        1u64 << self.total_in_bits()
    }

    /// Product of all output dimension sizes.
    pub fn total_out_size(&self) -> u64 {
        1u64 << self.total_out_bits()
    }

    /// All bases of an input dimension (empty if absent).
    pub fn bases(&self, in_dim: &str) -> &[Vec<u32>] {
        match self.in_index(in_dim) {
            Some(i) => &self.ins[i].bases,
            None => &[],
        }
    }

    /// Basis `i` of `in_dim`: one coordinate per out-dim. Panics if absent.
    pub fn basis(&self, in_dim: &str, i: usize) -> &[u32] {
        &self.bases(in_dim)[i]
    }

    /// Coordinate in `out_dim` of basis `i` of `in_dim` (0 if the out-dim is
    /// absent).
    pub fn basis_coord(&self, in_dim: &str, i: usize, out_dim: &str) -> u32 {
        match self.out_index(out_dim) {
            Some(j) => self.basis(in_dim, i)[j],
            None => 0,
        }
    }

    // ----- packing -----

    fn out_offsets(&self) -> Vec<u32> {
        let mut acc = 0;
        self.outs
            .iter()
            .map(|d| {
                let o = acc;
                acc += d.log2;
                o
            })
            .collect()
    }

    fn pack_out(&self, coords: &[u32], offsets: &[u32]) -> u64 {
        coords
            .iter()
            .zip(offsets)
            .fold(0u64, |acc, (&c, &o)| acc | (c as u64) << o)
    }

    fn unpack_with(&self, v: u64, logs: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut shift = 0;
        logs.map(|l| {
            let c = (v >> shift) & ((1u64 << l) - 1);
            shift += l;
            c as u32
        })
        .collect()
    }

    /// Splits a packed output index into per-out-dim coordinates.
    pub fn unpack_outs(&self, packed: u64) -> Vec<u32> {
        self.unpack_with(packed, self.outs.iter().map(|d| d.log2))
    }

    /// Splits a packed input index into per-in-dim values.
    pub fn unpack_ins(&self, packed: u64) -> Vec<u32> {
        self.unpack_with(packed, self.ins.iter().map(|d| d.bases.len() as u32))
    }

    /// Packs per-in-dim values (in in-dim order) into one integer, the first
    /// dim in the least significant bits.
    pub fn pack_ins(&self, values: &[u32]) -> u64 {
        assert_eq!(values.len(), self.ins.len(), "pack_ins: wrong arity");
        let mut acc = 0u64;
        let mut shift = 0;
        for (v, d) in values.iter().zip(&self.ins) {
            let k = d.bases.len() as u32;
            assert!(
                (*v as u64) < (1u64 << k),
                "value {v} out of range for in-dim {} of size {}",
                d.name,
                1u64 << k
            );
            acc |= (*v as u64) << shift;
            shift += k;
        }
        acc
    }

    /// Packs per-out-dim coordinates (in out-dim order) into one integer.
    pub fn pack_outs(&self, coords: &[u32]) -> u64 {
        assert_eq!(coords.len(), self.outs.len(), "pack_outs: wrong arity");
        for (c, d) in coords.iter().zip(&self.outs) {
            assert!(
                (*c as u64) < (1u64 << d.log2),
                "coordinate {c} out of range for out-dim {}",
                d.name
            );
        }
        self.pack_out(coords, &self.out_offsets())
    }

    /// The packed image of every input bit, in packed input-bit order.
    pub(crate) fn columns(&self) -> Vec<u64> {
        let offs = self.out_offsets();
        self.ins
            .iter()
            .flat_map(|d| d.bases.iter())
            .map(|b| self.pack_out(b, &offs))
            .collect()
    }

    pub(crate) fn echelon(&self) -> Echelon {
        Echelon::new(&self.columns())
    }

    // ----- evaluation -----

    /// Applies the layout to a packed input index, returning a packed output
    /// index (first dims in the low bits on both sides).
    pub fn apply_packed(&self, x: u64) -> u64 {
        let offs = self.out_offsets();
        let mut acc = 0u64;
        let mut bit = 0;
        for d in &self.ins {
            for b in &d.bases {
                if x >> bit & 1 == 1 {
                    acc ^= self.pack_out(b, &offs);
                }
                bit += 1;
            }
        }
        acc
    }

    /// Applies the layout to per-in-dim values given in in-dim order,
    /// returning coordinates in out-dim order.
    pub fn apply_flat(&self, inputs: &[u32]) -> Vec<u32> {
        assert_eq!(inputs.len(), self.ins.len(), "apply_flat: wrong arity");
        let mut out = vec![0u32; self.outs.len()];
        for (d, &v) in self.ins.iter().zip(inputs) {
            assert!(
                (v as u64) < (1u64 << d.bases.len()),
                "value {v} out of range for in-dim {} of size {}",
                d.name,
                1u64 << d.bases.len()
            );
            for (i, b) in d.bases.iter().enumerate() {
                if v >> i & 1 == 1 {
                    for (o, c) in out.iter_mut().zip(b) {
                        *o ^= c;
                    }
                }
            }
        }
        out
    }

    /// Applies the layout to named inputs (missing in-dims are 0), returning
    /// `(out-dim, coordinate)` for every out-dim in order. Panics on an
    /// unknown in-dim or an out-of-range value.
    pub fn apply(&self, inputs: &[(&str, u32)]) -> Vec<(String, u32)> {
        let mut flat = vec![0u32; self.ins.len()];
        for (name, v) in inputs {
            let i = self
                .in_index(name)
                .unwrap_or_else(|| panic!("apply: unknown in-dim {name}"));
            flat[i] = *v;
        }
        let out = self.apply_flat(&flat);
        self.outs
            .iter()
            .zip(out)
            .map(|(d, c)| (d.name.clone(), c))
            .collect()
    }

    // ----- structure -----

    /// Rank of the layout as a GF(2) matrix (log2 of the image size).
    pub fn rank(&self) -> u32 {
        self.echelon().rank()
    }

    /// Every output in `[0, size)` of every out-dim is hit.
    pub fn is_surjective(&self) -> bool {
        self.rank() == self.total_out_bits()
    }

    /// No two inputs map to the same output.
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_bits()
    }

    /// Surjective and injective.
    pub fn is_bijective(&self) -> bool {
        let r = self.rank();
        r == self.total_in_bits() && r == self.total_out_bits()
    }

    /// For every in-dim (in order), the mask of its *free* bits: bit `i` of
    /// `in_dim` is free when its basis lies in the span of the bases before
    /// it (earlier in-dims, lower bits). Flipping free bits never reaches new
    /// outputs, so for a distributed layout the inputs with all free bits
    /// clear hold every element exactly once; a free bit whose basis is zero
    /// marks a broadcast (e.g. lanes or warps holding duplicate copies). When
    /// the nonzero bases are linearly independent (every Triton encoding but
    /// exotic linear ones) the free bits are exactly the zero bases.
    pub fn free_variable_masks(&self) -> Vec<(String, u32)> {
        let e = self.echelon();
        let mut bit = 0;
        self.ins
            .iter()
            .map(|d| {
                let mut mask = 0u32;
                for i in 0..d.bases.len() {
                    if e.is_free(bit) {
                        mask |= 1 << i;
                    }
                    bit += 1;
                }
                (d.name.clone(), mask)
            })
            .collect()
    }

    /// The free-bit mask of one in-dim (0 if absent). See
    /// [`LinearLayout::free_variable_masks`].
    pub fn free_variable_mask(&self, in_dim: &str) -> u32 {
        self.free_variable_masks()
            .into_iter()
            .find(|(n, _)| n == in_dim)
            .map_or(0, |(_, m)| m)
    }

    /// Mask of the bits of `in_dim` whose basis is entirely zero.
    pub fn zero_bases_mask(&self, in_dim: &str) -> u32 {
        self.bases(in_dim)
            .iter()
            .enumerate()
            .filter(|(_, b)| b.iter().all(|&c| c == 0))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// Mask of the bits of `in_dim` whose basis has a nonzero coordinate in
    /// `out_dim` (e.g. which lane bits move along the reduction axis).
    pub fn in_bits_along(&self, in_dim: &str, out_dim: &str) -> u32 {
        let Some(j) = self.out_index(out_dim) else {
            return 0;
        };
        self.bases(in_dim)
            .iter()
            .enumerate()
            .filter(|(_, b)| b[j] != 0)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// A basis of the kernel, as packed inputs (see
    /// [`LinearLayout::pack_ins`]).
    pub fn kernel_basis(&self) -> Vec<u64> {
        self.echelon().kernel_basis()
    }

    /// The restriction to the given in-dims and out-dims (kept in this
    /// layout's order; out-dim sizes unchanged). Unknown names are ignored.
    pub fn sublayout(&self, in_dims: &[&str], out_dims: &[&str]) -> LinearLayout {
        let keep_out: Vec<usize> = (0..self.outs.len())
            .filter(|&j| out_dims.contains(&self.outs[j].name.as_str()))
            .collect();
        LinearLayout {
            ins: self
                .ins
                .iter()
                .filter(|d| in_dims.contains(&d.name.as_str()))
                .map(|d| InDim {
                    name: d.name.clone(),
                    bases: d
                        .bases
                        .iter()
                        .map(|b| keep_out.iter().map(|&j| b[j]).collect())
                        .collect(),
                })
                .collect(),
            outs: keep_out.iter().map(|&j| self.outs[j].clone()).collect(),
        }
    }

    /// Whether the restriction to these dims maps everything to zero.
    pub fn sublayout_is_zero(&self, in_dims: &[&str], out_dims: &[&str]) -> bool {
        let s = self.sublayout(in_dims, out_dims);
        s.ins
            .iter()
            .all(|d| d.bases.iter().flatten().all(|&c| c == 0))
    }

    /// How many consecutive values of `in_dim` (starting at 0) map to
    /// consecutive, ascending elements of `out_dim`, as a power of two, such
    /// that the run is also aligned: the largest `2^k` where bases `0..k` of
    /// `in_dim` are exactly `1, 2, .., 2^(k-1)` in `out_dim` and zero
    /// elsewhere, and no other basis of any in-dim has a nonzero coordinate
    /// below `2^k` in `out_dim`. This is the vector width of a memory access
    /// whose fastest-varying (contiguous) dimension is `out_dim`.
    pub fn num_consecutive_in_out(&self, in_dim: &str, out_dim: &str) -> u32 {
        let (Some(i), Some(j)) = (self.in_index(in_dim), self.out_index(out_dim)) else {
            return 1;
        };
        let bases = &self.ins[i].bases;
        let mut k = 0usize;
        while k < bases.len()
            && bases[k]
                .iter()
                .enumerate()
                .all(|(jj, &c)| if jj == j { c == 1 << k } else { c == 0 })
        {
            k += 1;
        }
        // Shrink until no other basis touches the low k bits of out_dim.
        loop {
            let low = (1u64 << k) - 1;
            let clash = self.ins.iter().enumerate().any(|(ii, d)| {
                d.bases
                    .iter()
                    .enumerate()
                    .any(|(bi, b)| !(ii == i && bi < k) && (b[j] as u64) & low != 0)
            });
            if !clash || k == 0 {
                break;
            }
            k -= 1;
        }
        1 << k
    }

    /// [`LinearLayout::num_consecutive_in_out`] for the first in-dim (the
    /// register dim of distributed layouts, the offset dim of shared ones)
    /// and the given fastest-varying out-dim.
    pub fn get_num_consecutive_in_out(&self, fastest_out_dim: &str) -> u32 {
        match self.ins.first() {
            Some(d) => self.num_consecutive_in_out(&d.name.clone(), fastest_out_dim),
            None => 1,
        }
    }

    /// Length of the contiguous run of `out_dim` elements that a single value
    /// of the *other* in-dims covers through `in_dim`, regardless of which
    /// `in_dim` bits produce it: the largest `2^k` such that `1, 2, ..,
    /// 2^(k-1)` (in `out_dim`, zero elsewhere) all occur among the bases of
    /// `in_dim`, and no basis of another in-dim touches the low `k` bits of
    /// `out_dim`. For a distributed layout with `in_dim = register` this is
    /// Triton's per-dimension `contigPerThread`.
    pub fn contiguous_run(&self, in_dim: &str, out_dim: &str) -> u32 {
        let (Some(i), Some(j)) = (self.in_index(in_dim), self.out_index(out_dim)) else {
            return 1;
        };
        let unit = |b: &Vec<u32>, v: u32| {
            b.iter()
                .enumerate()
                .all(|(jj, &c)| if jj == j { c == v } else { c == 0 })
        };
        let bases = &self.ins[i].bases;
        let mut k = 0u32;
        while k < 31 && bases.iter().any(|b| unit(b, 1 << k)) {
            k += 1;
        }
        loop {
            let low = (1u64 << k) - 1;
            let clash = self
                .ins
                .iter()
                .enumerate()
                .any(|(ii, d)| ii != i && d.bases.iter().any(|b| (b[j] as u64) & low != 0));
            if !clash || k == 0 {
                break;
            }
            k -= 1;
        }
        1 << k
    }

    /// Same map, possibly different dim order: every in-dim and out-dim that
    /// is present in one layout but not the other must have size 1.
    pub fn equivalent(&self, other: &LinearLayout) -> bool {
        let mut outs: Vec<&str> = self.out_dim_names();
        for n in other.out_dim_names() {
            if !outs.contains(&n) {
                outs.push(n);
            }
        }
        if outs
            .iter()
            .any(|n| self.out_dim_size(n) != other.out_dim_size(n))
        {
            return false;
        }
        let mut ins: Vec<&str> = self.in_dim_names();
        for n in other.in_dim_names() {
            if !ins.contains(&n) {
                ins.push(n);
            }
        }
        ins.iter().all(|n| {
            let a = self.bases(n);
            let b = other.bases(n);
            a.len() == b.len()
                && (0..a.len()).all(|i| {
                    outs.iter()
                        .all(|o| self.basis_coord(n, i, o) == other.basis_coord(n, i, o))
                })
        })
    }

    /// Structural equality (same dims in the same order, same bases).
    pub fn equal(&self, other: &LinearLayout) -> bool {
        self == other
    }

    // ----- dim manipulation -----

    /// Reorders the out-dims to `order` (a permutation of the out-dim names).
    pub fn transpose_outs(&self, order: &[&str]) -> Result<LinearLayout, LayoutError> {
        let perm = permutation(&self.out_dim_names(), order, "out")?;
        Ok(LinearLayout {
            ins: self
                .ins
                .iter()
                .map(|d| InDim {
                    name: d.name.clone(),
                    bases: d
                        .bases
                        .iter()
                        .map(|b| perm.iter().map(|&j| b[j]).collect())
                        .collect(),
                })
                .collect(),
            outs: perm.iter().map(|&j| self.outs[j].clone()).collect(),
        })
    }

    /// Reorders the in-dims to `order` (a permutation of the in-dim names).
    pub fn transpose_ins(&self, order: &[&str]) -> Result<LinearLayout, LayoutError> {
        let perm = permutation(&self.in_dim_names(), order, "in")?;
        Ok(LinearLayout {
            ins: perm.iter().map(|&i| self.ins[i].clone()).collect(),
            outs: self.outs.clone(),
        })
    }

    /// Reinterprets the output space with new out-dims of the same total
    /// size: outputs are flattened with the *first* out-dim most minor and
    /// split again the same way. (For a row-major tensor reshape, transpose
    /// the outs to reverse order first, reshape, and transpose back.)
    pub fn reshape_outs(&self, new_outs: &[(&str, u32)]) -> Result<LinearLayout, LayoutError> {
        let logs = dims_log2(new_outs)?;
        if logs.iter().sum::<u32>() != self.total_out_bits() {
            return Err(LayoutError::DimMismatch(format!(
                "reshape_outs: total size {} != {}",
                1u64 << logs.iter().sum::<u32>(),
                self.total_out_size()
            )));
        }
        let offs = self.out_offsets();
        let ins = self
            .ins
            .iter()
            .map(|d| InDim {
                name: d.name.clone(),
                bases: d
                    .bases
                    .iter()
                    .map(|b| self.unpack_with(self.pack_out(b, &offs), logs.iter().copied()))
                    .collect(),
            })
            .collect();
        let l = LinearLayout {
            ins,
            outs: new_outs
                .iter()
                .zip(&logs)
                .map(|((n, _), &log2)| OutDim {
                    name: n.to_string(),
                    log2,
                })
                .collect(),
        };
        l.validate()?;
        Ok(l)
    }

    /// Reinterprets the input space with new in-dims of the same total size
    /// (first in-dim most minor).
    pub fn reshape_ins(&self, new_ins: &[(&str, u32)]) -> Result<LinearLayout, LayoutError> {
        let logs = dims_log2(new_ins)?;
        if logs.iter().sum::<u32>() != self.total_in_bits() {
            return Err(LayoutError::DimMismatch(format!(
                "reshape_ins: total size {} != {}",
                1u64 << logs.iter().sum::<u32>(),
                self.total_in_size()
            )));
        }
        let mut all = self.ins.iter().flat_map(|d| d.bases.iter().cloned());
        let ins = new_ins
            .iter()
            .zip(&logs)
            .map(|((n, _), &k)| InDim {
                name: n.to_string(),
                bases: (&mut all).take(k as usize).collect(),
            })
            .collect();
        let l = LinearLayout {
            ins,
            outs: self.outs.clone(),
        };
        l.validate()?;
        Ok(l)
    }

    /// Merges all out-dims into one named like the first out-dim. Panics when
    /// the merged dim would be larger than 2^[`MAX_DIM_BITS`] (use
    /// [`LinearLayout::reshape_outs`] for an error instead).
    pub fn flatten_outs(&self) -> LinearLayout {
        match self.outs.first() {
            None => self.clone(),
            Some(d) => {
                let name = d.name.clone();
                let size = self.total_out_size();
                assert!(size <= u32::MAX as u64 + 1 && self.total_out_bits() <= MAX_DIM_BITS);
                self.reshape_outs(&[(&name, size as u32)])
                    .expect("flatten_outs")
            }
        }
    }

    /// Merges all in-dims into one named like the first in-dim. Panics when
    /// the merged dim would be larger than 2^[`MAX_DIM_BITS`] (use
    /// [`LinearLayout::reshape_ins`] for an error instead).
    pub fn flatten_ins(&self) -> LinearLayout {
        match self.ins.first() {
            None => self.clone(),
            Some(d) => {
                let name = d.name.clone();
                assert!(self.total_in_bits() <= MAX_DIM_BITS);
                self.reshape_ins(&[(&name, self.total_in_size() as u32)])
                    .expect("flatten_ins")
            }
        }
    }

    /// Renames an in-dim (no-op if absent).
    pub fn rename_in_dim(mut self, from: &str, to: &str) -> LinearLayout {
        for d in &mut self.ins {
            if d.name == from {
                d.name = to.to_string();
            }
        }
        self
    }

    /// Renames an out-dim (no-op if absent).
    pub fn rename_out_dim(mut self, from: &str, to: &str) -> LinearLayout {
        for d in &mut self.outs {
            if d.name == from {
                d.name = to.to_string();
            }
        }
        self
    }

    /// Reorders the in-dims to exactly `names`, inserting size-1 dims for
    /// missing names. Errors if the layout has an in-dim not in `names`.
    pub fn with_in_dims(&self, names: &[&str]) -> Result<LinearLayout, LayoutError> {
        if let Some(d) = self.ins.iter().find(|d| !names.contains(&d.name.as_str())) {
            return Err(LayoutError::DimMismatch(format!(
                "unexpected in-dim {}",
                d.name
            )));
        }
        Ok(LinearLayout {
            ins: names
                .iter()
                .map(|n| match self.in_index(n) {
                    Some(i) => self.ins[i].clone(),
                    None => InDim {
                        name: n.to_string(),
                        bases: vec![],
                    },
                })
                .collect(),
            outs: self.outs.clone(),
        })
    }

    /// Reorders the out-dims to exactly `names`, inserting size-1 dims for
    /// missing names. Errors if the layout has an out-dim not in `names`.
    pub fn with_out_dims(&self, names: &[&str]) -> Result<LinearLayout, LayoutError> {
        let mut l = self.clone();
        for n in names {
            if !l.has_out_dim(n) {
                l.outs.push(OutDim {
                    name: n.to_string(),
                    log2: 0,
                });
                for d in &mut l.ins {
                    for b in &mut d.bases {
                        b.push(0);
                    }
                }
            }
        }
        l.transpose_outs(names)
    }

    /// Removes the bases of `in_dim` that are entirely zero (shrinking the
    /// dim), e.g. the duplicated registers of a sliced layout.
    pub fn remove_zero_bases(mut self, in_dim: &str) -> LinearLayout {
        if let Some(i) = self.in_index(in_dim) {
            self.ins[i].bases.retain(|b| b.iter().any(|&c| c != 0));
        }
        self
    }

    /// Drops an out-dim entirely (its coordinates are discarded).
    pub fn remove_out_dim(&self, out_dim: &str) -> LinearLayout {
        let names: Vec<&str> = self
            .out_dim_names()
            .into_iter()
            .filter(|n| *n != out_dim)
            .collect();
        self.sublayout(&self.in_dim_names(), &names)
    }

    /// Reduces every coordinate of `out_dim` modulo `size` (a power of two
    /// no larger than the current size) and sets the out-dim's size to
    /// `size`: bases whose coordinate wraps become broadcasts.
    pub fn mod_out_dim(mut self, out_dim: &str, size: u32) -> LinearLayout {
        let m = log2_or_panic(size, "mod_out_dim");
        if let Some(j) = self.out_index(out_dim)
            && m < self.outs[j].log2
        {
            self.outs[j].log2 = m;
            for d in &mut self.ins {
                for b in &mut d.bases {
                    b[j] &= size - 1;
                }
            }
        }
        self
    }

    // ----- algebra -----

    /// `outer ∘ self`: feeds this layout's outputs into `outer`'s inputs
    /// (matched by name). Every out-dim of `self` must be an in-dim of
    /// `outer` at least as large. The result has `self`'s in-dims and
    /// `outer`'s out-dims.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let mut map = Vec::with_capacity(self.outs.len());
        for o in &self.outs {
            let Some(i) = outer.in_index(&o.name) else {
                if o.log2 == 0 {
                    map.push(None);
                    continue;
                }
                return Err(LayoutError::DimMismatch(format!(
                    "compose: out-dim {} is not an in-dim of the outer layout",
                    o.name
                )));
            };
            if (outer.ins[i].bases.len() as u32) < o.log2 {
                return Err(LayoutError::DimMismatch(format!(
                    "compose: out-dim {} (size {}) larger than outer in-dim (size {})",
                    o.name,
                    1u64 << o.log2,
                    1u64 << outer.ins[i].bases.len()
                )));
            }
            map.push(Some(i));
        }
        let ins = self
            .ins
            .iter()
            .map(|d| InDim {
                name: d.name.clone(),
                bases: d
                    .bases
                    .iter()
                    .map(|b| {
                        let mut flat = vec![0u32; outer.ins.len()];
                        for (c, m) in b.iter().zip(&map) {
                            if let Some(i) = m {
                                flat[*i] = *c;
                            }
                        }
                        outer.apply_flat(&flat)
                    })
                    .collect(),
            })
            .collect();
        Ok(LinearLayout {
            ins,
            outs: outer.outs.clone(),
        })
    }

    /// The (pseudo-)inverse: maps this layout's outputs back to inputs.
    /// Requires a surjective layout. For a bijective layout this is the exact
    /// inverse; otherwise it picks, for every output, its *smallest*
    /// preimage, reading inputs as packed integers (first in-dim least
    /// significant), which is linear and has every free bit clear (so
    /// broadcast copies resolve to lane 0 / warp 0 / register 0, ...).
    pub fn invert(&self) -> Result<LinearLayout, LayoutError> {
        if !self.is_surjective() {
            return Err(LayoutError::NotSurjective);
        }
        let mut id = LinearLayout::empty();
        for o in &self.outs {
            id *= LinearLayout::identity_1d(1 << o.log2, &o.name, &o.name);
        }
        id.invert_and_compose(self)
    }

    /// `C = other⁻¹ ∘ self`: the layout from `self`'s inputs to `other`'s
    /// inputs with `other(C(x)) == self(x)` for every `x`, choosing the
    /// smallest preimage under `other` (as in [`LinearLayout::invert`]).
    ///
    /// With `self = src` and `other = dst` register layouts of one tensor,
    /// `C` tells, for each source (register, lane, warp, block), where the
    /// value lives in the destination: the data movement of a layout
    /// conversion. With `other` a shared layout it gives the shared-memory
    /// offset of each register.
    ///
    /// Out-dims of `self` are matched to `other`'s by name; they must fit in
    /// `other`'s sizes, and the image of `self` must lie in the image of
    /// `other` (otherwise [`LayoutError::NotInImage`]).
    pub fn invert_and_compose(&self, other: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let other_offs = other.out_offsets();
        let mut map = Vec::with_capacity(self.outs.len());
        for o in &self.outs {
            match other.out_index(&o.name) {
                Some(j) => {
                    if other.outs[j].log2 < o.log2 {
                        return Err(LayoutError::DimMismatch(format!(
                            "invert_and_compose: out-dim {} is larger in self ({}) than in other ({})",
                            o.name,
                            1u64 << o.log2,
                            1u64 << other.outs[j].log2
                        )));
                    }
                    map.push(Some(other_offs[j]));
                }
                None => map.push(None),
            }
        }
        let e = other.echelon();
        let mut ins = Vec::with_capacity(self.ins.len());
        for d in &self.ins {
            let mut bases = Vec::with_capacity(d.bases.len());
            for (bi, b) in d.bases.iter().enumerate() {
                let mut y = 0u64;
                for ((c, m), o) in b.iter().zip(&map).zip(&self.outs) {
                    match m {
                        Some(off) => y |= (*c as u64) << off,
                        None if *c != 0 => {
                            return Err(LayoutError::NotInImage(format!(
                                "basis {bi} of {} uses out-dim {} unknown to the other layout",
                                d.name, o.name
                            )));
                        }
                        None => {}
                    }
                }
                let x = e.solve_min(y).ok_or_else(|| {
                    LayoutError::NotInImage(format!(
                        "basis {bi} of {} ({b:?}) is not in the image of the other layout",
                        d.name
                    ))
                })?;
                bases.push(other.unpack_ins(x));
            }
            ins.push(InDim {
                name: d.name.clone(),
                bases,
            });
        }
        Ok(LinearLayout {
            ins,
            outs: other
                .ins
                .iter()
                .map(|d| OutDim {
                    name: d.name.clone(),
                    log2: d.bases.len() as u32,
                })
                .collect(),
        })
    }

    /// Whether `coords` (one per out-dim, in order) is in the image.
    pub fn image_contains(&self, coords: &[u32]) -> bool {
        self.echelon().contains(self.pack_outs(coords))
    }

    /// The smallest input (per in-dim values, in order) mapping to
    /// `coords`, or `None` if `coords` is not in the image.
    pub fn min_preimage(&self, coords: &[u32]) -> Option<Vec<u32>> {
        self.echelon()
            .solve_min(self.pack_outs(coords))
            .map(|x| self.unpack_ins(x))
    }

    /// Every input (per in-dim values) mapping to `coords`, smallest first.
    /// Enumerates the kernel, so only use it on small layouts.
    pub fn preimages(&self, coords: &[u32]) -> Vec<Vec<u32>> {
        let e = self.echelon();
        let Some(x0) = e.solve_min(self.pack_outs(coords)) else {
            return vec![];
        };
        let ker = e.kernel_basis();
        assert!(ker.len() <= 24, "preimages: kernel too large to enumerate");
        let mut all: Vec<u64> = (0u64..1 << ker.len())
            .map(|s| {
                ker.iter()
                    .enumerate()
                    .filter(|(i, _)| s >> i & 1 == 1)
                    .fold(x0, |acc, (_, k)| acc ^ k)
            })
            .collect();
        all.sort_unstable();
        all.into_iter().map(|x| self.unpack_ins(x)).collect()
    }

    // ----- distributed-layout conveniences -----

    /// Tensor coordinates (one per out-dim) of every register of the thread
    /// `(lane, warp, block)`, in register order. Missing in-dims count as
    /// size 1.
    pub fn register_coords(&self, lane: u32, warp: u32, block: u32) -> Vec<Vec<u32>> {
        let nregs = self.in_dim_size(REGISTER);
        let mut inputs: Vec<(&str, u32)> = vec![];
        for (n, v) in [(LANE, lane), (WARP, warp), (BLOCK, block)] {
            if self.has_in_dim(n) {
                inputs.push((n, v));
            } else {
                assert_eq!(v, 0, "register_coords: layout has no {n} dim");
            }
        }
        let has_reg = self.has_in_dim(REGISTER);
        (0..nregs)
            .map(|r| {
                let mut inp = inputs.clone();
                if has_reg {
                    inp.push((REGISTER, r));
                }
                self.apply(&inp).into_iter().map(|(_, c)| c).collect()
            })
            .collect()
    }

    /// Bits of the lane id that select duplicate copies (free lane bits).
    pub fn lane_broadcast_mask(&self) -> u32 {
        self.free_variable_mask(LANE)
    }

    /// Bits of the warp id that select duplicate copies (free warp bits).
    pub fn warp_broadcast_mask(&self) -> u32 {
        self.free_variable_mask(WARP)
    }

    /// Bits of the register index that select duplicate copies.
    pub fn register_broadcast_mask(&self) -> u32 {
        self.free_variable_mask(REGISTER)
    }

    /// Bits of the block id that select duplicate copies.
    pub fn block_broadcast_mask(&self) -> u32 {
        self.free_variable_mask(BLOCK)
    }
}

fn dims_log2(dims: &[(&str, u32)]) -> Result<Vec<u32>, LayoutError> {
    dims.iter()
        .map(|(n, s)| {
            exact_log2(*s).ok_or_else(|| {
                LayoutError::InvalidLayout(format!("dim {n} has size {s}, not a power of two"))
            })
        })
        .collect()
}

fn permutation(names: &[&str], order: &[&str], what: &str) -> Result<Vec<usize>, LayoutError> {
    let err = || {
        LayoutError::DimMismatch(format!(
            "{order:?} is not a permutation of the {what}-dims {names:?}"
        ))
    };
    if order.len() != names.len() {
        return Err(err());
    }
    let mut perm = Vec::with_capacity(order.len());
    for n in order {
        let j = names.iter().position(|m| m == n).ok_or_else(err)?;
        if perm.contains(&j) {
            return Err(err());
        }
        perm.push(j);
    }
    Ok(perm)
}

/// The shortest ordering containing both `a` and `b` as subsequences (dims
/// common to both must appear in the same relative order). Errors on
/// conflicting orders.
fn supremum(a: &[String], b: &[String]) -> Result<Vec<String>, LayoutError> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(a[i].clone());
            i += 1;
            j += 1;
        } else if i < a.len() && !b[j..].contains(&a[i]) {
            out.push(a[i].clone());
            i += 1;
        } else if j < b.len() && !a[i..].contains(&b[j]) {
            out.push(b[j].clone());
            j += 1;
        } else {
            return Err(LayoutError::DimMismatch(format!(
                "LinearLayout product: conflicting dim orders {a:?} and {b:?}"
            )));
        }
    }
    Ok(out)
}

impl LinearLayout {
    /// The product `self * outer` (Triton's `operator*`). In-dims and
    /// out-dims are the ordered unions of both layouts'. For each in-dim,
    /// `self`'s bases come first, then `outer`'s; `outer`'s coordinates are
    /// scaled by `self`'s size in each out-dim, and each out-dim's size is
    /// the product of the two. With disjoint dims this is the direct sum;
    /// on a shared out-dim `outer` tiles `self` (it is the "slower" part).
    /// Errors on conflicting dim orders, a dimension larger than
    /// 2^[`MAX_DIM_BITS`] or more than [`MAX_TOTAL_BITS`] bits on a side.
    pub fn checked_mul(&self, outer: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let inner = self;
        let in_names = supremum(
            &inner.ins.iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
            &outer.ins.iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
        )?;
        let out_names = supremum(
            &inner
                .outs
                .iter()
                .map(|d| d.name.clone())
                .collect::<Vec<_>>(),
            &outer
                .outs
                .iter()
                .map(|d| d.name.clone())
                .collect::<Vec<_>>(),
        )?;
        // Sizes first: with every out-dim at most 2^MAX_DIM_BITS, shifting an outer
        // coordinate (< 2^outer bits) by the inner bits stays below 2^32.
        let mut outs = Vec::with_capacity(out_names.len());
        for n in &out_names {
            let log2 = inner.out_dim_size_log2(n) + outer.out_dim_size_log2(n);
            if log2 > MAX_DIM_BITS {
                return Err(LayoutError::InvalidLayout(format!(
                    "LinearLayout product: out-dim {n} of size 2^{log2} is larger than 2^{MAX_DIM_BITS}"
                )));
            }
            outs.push(OutDim {
                name: n.clone(),
                log2,
            });
        }
        for n in &in_names {
            let bits = inner.in_dim_size_log2(n) + outer.in_dim_size_log2(n);
            if bits > MAX_DIM_BITS {
                return Err(LayoutError::InvalidLayout(format!(
                    "LinearLayout product: in-dim {n} of size 2^{bits} is larger than 2^{MAX_DIM_BITS}"
                )));
            }
        }
        let shift: Vec<u32> = out_names
            .iter()
            .map(|n| inner.out_dim_size_log2(n))
            .collect();
        let lift = |l: &LinearLayout, b: &[u32], scale: bool| -> Vec<u32> {
            out_names
                .iter()
                .enumerate()
                .map(|(k, n)| match l.out_index(n) {
                    // `b` has one coordinate per out-dim of `l` (checked when `l` was built).
                    Some(j) => {
                        if scale {
                            b[j] << shift[k]
                        } else {
                            b[j]
                        }
                    }
                    None => 0,
                })
                .collect()
        };
        let ins = in_names
            .iter()
            .map(|n| {
                let mut bases: Vec<Vec<u32>> = inner
                    .bases(n)
                    .iter()
                    .map(|b| lift(inner, b, false))
                    .collect();
                bases.extend(outer.bases(n).iter().map(|b| lift(outer, b, true)));
                InDim {
                    name: n.clone(),
                    bases,
                }
            })
            .collect();
        let l = LinearLayout { ins, outs };
        l.validate()?;
        Ok(l)
    }
}

impl Mul for &LinearLayout {
    type Output = LinearLayout;

    /// [`LinearLayout::checked_mul`]. Panics where it errors (conflicting
    /// dim orders, too many bits).
    fn mul(self, outer: &LinearLayout) -> LinearLayout {
        self.checked_mul(outer).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Mul for LinearLayout {
    type Output = LinearLayout;
    fn mul(self, outer: LinearLayout) -> LinearLayout {
        &self * &outer
    }
}

impl Mul<&LinearLayout> for LinearLayout {
    type Output = LinearLayout;
    fn mul(self, outer: &LinearLayout) -> LinearLayout {
        &self * outer
    }
}

impl MulAssign for LinearLayout {
    fn mul_assign(&mut self, outer: LinearLayout) {
        *self = &*self * &outer;
    }
}

impl MulAssign<&LinearLayout> for LinearLayout {
    fn mul_assign(&mut self, outer: &LinearLayout) {
        *self = &*self * outer;
    }
}

impl fmt::Display for LinearLayout {
    /// Prints one line per basis, e.g.
    ///
    /// ```text
    ///  - register=1 -> (1)
    ///    register=2 -> (2)
    ///  - lane=1 -> (4)
    /// where out dims are: [dim0 (size 1024)]
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.ins {
            if d.bases.is_empty() {
                writeln!(f, " - {} is a size 1 dimension", d.name)?;
                continue;
            }
            for (i, b) in d.bases.iter().enumerate() {
                let coords: Vec<String> = b.iter().map(|c| c.to_string()).collect();
                writeln!(
                    f,
                    " {} {}={} -> ({})",
                    if i == 0 { "-" } else { " " },
                    d.name,
                    1u64 << i,
                    coords.join(", ")
                )?;
            }
        }
        let outs: Vec<String> = self
            .outs
            .iter()
            .map(|o| format!("{} (size {})", o.name, 1u64 << o.log2))
            .collect();
        write!(f, "where out dims are: [{}]", outs.join(", "))
    }
}
