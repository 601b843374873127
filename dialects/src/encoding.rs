//! The `#ttg.*` layout encodings and `!ttg.memdesc` as plain Rust values, read from and turned back
//! into MLIR attributes and types through the C accessors of `cpp/TritonGPUCAPI.cpp`.
//!
//! [`Encoding::validate`] holds the rules about an encoding on its own (array ranks, permutations,
//! powers of two, versions); the parser of every encoding runs them through
//! [`tritium_verify_encoding`]. Rules that need the module (warps per CTA against `ttg.num-warps`,
//! encoding rank against tensor rank) live in `verify/ttg.rs`.

use crate::ffi::ttg as ffi;
use melior::{
    Context,
    ir::{Attribute, Type, TypeLike, attribute::AttributeLike},
};
use mlir_sys::{MlirAttribute, MlirStringRef};
use std::ffi::{c_uint, c_void};

/// How CTAs of a cluster (CGA) split a tensor: Triton's `CTAsPerCGA`, `CTASplitNum`, `CTAOrder`.
/// All three empty means a single CTA, whatever the rank (the text then omits them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CtaLayout {
    pub ctas_per_cga: Vec<u32>,
    pub cta_split_num: Vec<u32>,
    pub cta_order: Vec<u32>,
}

impl CtaLayout {
    /// A single CTA.
    pub fn single() -> CtaLayout {
        CtaLayout::default()
    }

    /// Whether this is one CTA (empty, or all ones with the default order).
    pub fn is_single(&self) -> bool {
        let rank = self.cta_order.len();
        self.ctas_per_cga.iter().all(|&n| n == 1)
            && self.cta_split_num.iter().all(|&n| n == 1)
            && self.cta_order.iter().copied().eq((0..rank as u32).rev())
    }

    /// The number of CTAs of the cluster.
    pub fn num_ctas(&self) -> u64 {
        self.ctas_per_cga.iter().map(|&n| n as u64).product()
    }

    fn read(attr: MlirAttribute) -> CtaLayout {
        let layout = unsafe {
            CtaLayout {
                ctas_per_cga: read_u32s(|out, cap| {
                    ffi::tritiumEncodingGetCTAsPerCGA(attr, out, cap)
                }),
                cta_split_num: read_u32s(|out, cap| {
                    ffi::tritiumEncodingGetCTASplitNum(attr, out, cap)
                }),
                cta_order: read_u32s(|out, cap| ffi::tritiumEncodingGetCTAOrder(attr, out, cap)),
            }
        };
        if layout.is_single() {
            CtaLayout::single()
        } else {
            layout
        }
    }

    /// Pointers for a constructor of a rank-`rank` encoding: NULL for a single CTA.
    fn pointers(&self) -> [*const c_uint; 3] {
        if self.is_single() {
            [std::ptr::null(); 3]
        } else {
            [
                self.ctas_per_cga.as_ptr(),
                self.cta_split_num.as_ptr(),
                self.cta_order.as_ptr(),
            ]
        }
    }

    fn validate(&self, rank: Option<usize>) -> Result<(), String> {
        if self.is_single()
            && (self.ctas_per_cga.is_empty() || rank.is_none_or(|r| r == self.cta_order.len()))
        {
            return Ok(());
        }
        let n = rank.unwrap_or(self.cta_order.len());
        if self.ctas_per_cga.len() != n
            || self.cta_split_num.len() != n
            || self.cta_order.len() != n
        {
            return Err(format!(
                "CTAsPerCGA, CTASplitNum and CTAOrder must have {n} entries"
            ));
        }
        check_permutation("CTAOrder", &self.cta_order)?;
        check_powers_of_two("CTAsPerCGA", &self.ctas_per_cga)?;
        for (&ctas, &split) in self.ctas_per_cga.iter().zip(&self.cta_split_num) {
            if split == 0 || ctas % split != 0 {
                return Err(format!(
                    "CTASplitNum {:?} must divide CTAsPerCGA {:?}",
                    self.cta_split_num, self.ctas_per_cga
                ));
            }
        }
        Ok(())
    }
}

/// `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    pub size_per_thread: Vec<u32>,
    pub threads_per_warp: Vec<u32>,
    pub warps_per_cta: Vec<u32>,
    /// Dimensions from fastest- to slowest-varying.
    pub order: Vec<u32>,
    pub cta: CtaLayout,
}

impl Blocked {
    /// A single-CTA blocked encoding.
    pub fn new(
        size_per_thread: Vec<u32>,
        threads_per_warp: Vec<u32>,
        warps_per_cta: Vec<u32>,
        order: Vec<u32>,
    ) -> Blocked {
        Blocked {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
            cta: CtaLayout::single(),
        }
    }
}

/// Any `#ttg.*` layout encoding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Blocked(Blocked),
    /// `#ttg.slice<{dim, parent}>`: `parent` with dimension `dim` removed.
    Slice {
        dim: u32,
        parent: Box<Encoding>,
    },
    /// `#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape}>`.
    NvidiaMma {
        version_major: u32,
        version_minor: u32,
        warps_per_cta: Vec<u32>,
        instr_shape: Vec<u32>,
        cta: CtaLayout,
    },
    /// `#ttg.dot_op<{opIdx, parent, kWidth}>` (`kWidth` 0 is omitted from the text).
    DotOperand {
        op_idx: u32,
        parent: Box<Encoding>,
        k_width: u32,
    },
    /// `#ttg.linear<{register, lane, warp, block}>`: each basis has `rank` entries.
    Linear {
        rank: u32,
        register: Vec<Vec<i32>>,
        lane: Vec<Vec<i32>>,
        warp: Vec<Vec<i32>>,
        block: Vec<Vec<i32>>,
    },
    /// `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`.
    SwizzledShared {
        vec: u32,
        per_phase: u32,
        max_phase: u32,
        order: Vec<u32>,
        cta: CtaLayout,
    },
    /// `#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth[, fp4Padded]}>`.
    NvmmaShared {
        swizzling_byte_width: u32,
        transposed: bool,
        element_bit_width: u32,
        fp4_padded: bool,
        cta: CtaLayout,
    },
}

/// Calls a C array getter twice: for the length, then for the values.
unsafe fn read_array<T: Copy + Default>(get: impl Fn(*mut T, isize) -> isize) -> Vec<T> {
    let len = get(std::ptr::null_mut(), 0).max(0) as usize;
    let mut values = vec![T::default(); len];
    if len > 0 {
        get(values.as_mut_ptr(), len as isize);
    }
    values
}

unsafe fn read_u32s(get: impl Fn(*mut c_uint, isize) -> isize) -> Vec<u32> {
    unsafe { read_array(get) }
}

fn check_permutation(name: &str, values: &[u32]) -> Result<(), String> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    if sorted.iter().copied().eq(0..values.len() as u32) {
        Ok(())
    } else {
        Err(format!(
            "{name} {values:?} must be a permutation of 0..{}",
            values.len()
        ))
    }
}

fn check_powers_of_two(name: &str, values: &[u32]) -> Result<(), String> {
    if values.iter().all(|v| v.is_power_of_two()) {
        Ok(())
    } else {
        Err(format!("{name} {values:?} must hold powers of two"))
    }
}

fn product(values: &[u32]) -> u64 {
    values.iter().map(|&v| v as u64).product()
}

impl Encoding {
    /// Reads a `#ttg.*` encoding; `None` for any other attribute (or a slice/dot_op of one).
    pub fn from_attribute(attr: Attribute) -> Option<Encoding> {
        Self::from_raw(attr.to_raw())
    }

    fn from_raw(a: MlirAttribute) -> Option<Encoding> {
        if a.ptr.is_null() {
            return None;
        }
        unsafe {
            if ffi::tritiumAttributeIsABlockedEncoding(a) {
                return Some(Encoding::Blocked(Blocked {
                    size_per_thread: read_u32s(|o, c| {
                        ffi::tritiumBlockedEncodingGetSizePerThread(a, o, c)
                    }),
                    threads_per_warp: read_u32s(|o, c| {
                        ffi::tritiumBlockedEncodingGetThreadsPerWarp(a, o, c)
                    }),
                    warps_per_cta: read_u32s(|o, c| ffi::tritiumEncodingGetWarpsPerCTA(a, o, c)),
                    order: read_u32s(|o, c| ffi::tritiumEncodingGetOrder(a, o, c)),
                    cta: CtaLayout::read(a),
                }));
            }
            if ffi::tritiumAttributeIsASliceEncoding(a) {
                let parent = Self::from_raw(ffi::tritiumSliceEncodingGetParent(a))?;
                return Some(Encoding::Slice {
                    dim: ffi::tritiumSliceEncodingGetDim(a),
                    parent: Box::new(parent),
                });
            }
            if ffi::tritiumAttributeIsANvidiaMmaEncoding(a) {
                return Some(Encoding::NvidiaMma {
                    version_major: ffi::tritiumNvidiaMmaEncodingGetVersionMajor(a),
                    version_minor: ffi::tritiumNvidiaMmaEncodingGetVersionMinor(a),
                    warps_per_cta: read_u32s(|o, c| ffi::tritiumEncodingGetWarpsPerCTA(a, o, c)),
                    instr_shape: read_u32s(|o, c| {
                        ffi::tritiumNvidiaMmaEncodingGetInstrShape(a, o, c)
                    }),
                    cta: CtaLayout::read(a),
                });
            }
            if ffi::tritiumAttributeIsADotOperandEncoding(a) {
                let parent = Self::from_raw(ffi::tritiumDotOperandEncodingGetParent(a))?;
                return Some(Encoding::DotOperand {
                    op_idx: ffi::tritiumDotOperandEncodingGetOpIdx(a),
                    parent: Box::new(parent),
                    k_width: ffi::tritiumDotOperandEncodingGetKWidth(a),
                });
            }
            if ffi::tritiumAttributeIsALinearEncoding(a) {
                let rank = ffi::tritiumLinearEncodingGetRank(a);
                let bases = |which| {
                    let flat: Vec<i32> =
                        read_array(|o, c| ffi::tritiumLinearEncodingGetBases(a, which, o, c));
                    if rank == 0 {
                        Vec::new()
                    } else {
                        flat.chunks(rank as usize).map(<[i32]>::to_vec).collect()
                    }
                };
                return Some(Encoding::Linear {
                    rank,
                    register: bases(ffi::LINEAR_REGISTER),
                    lane: bases(ffi::LINEAR_LANE),
                    warp: bases(ffi::LINEAR_WARP),
                    block: bases(ffi::LINEAR_BLOCK),
                });
            }
            if ffi::tritiumAttributeIsASwizzledSharedEncoding(a) {
                return Some(Encoding::SwizzledShared {
                    vec: ffi::tritiumSwizzledSharedEncodingGetVec(a),
                    per_phase: ffi::tritiumSwizzledSharedEncodingGetPerPhase(a),
                    max_phase: ffi::tritiumSwizzledSharedEncodingGetMaxPhase(a),
                    order: read_u32s(|o, c| ffi::tritiumEncodingGetOrder(a, o, c)),
                    cta: CtaLayout::read(a),
                });
            }
            if ffi::tritiumAttributeIsANvmmaSharedEncoding(a) {
                return Some(Encoding::NvmmaShared {
                    swizzling_byte_width: ffi::tritiumNvmmaSharedEncodingGetSwizzlingByteWidth(a),
                    transposed: ffi::tritiumNvmmaSharedEncodingGetTransposed(a),
                    element_bit_width: ffi::tritiumNvmmaSharedEncodingGetElementBitWidth(a),
                    fp4_padded: ffi::tritiumNvmmaSharedEncodingGetFp4Padded(a),
                    cta: CtaLayout::read(a),
                });
            }
        }
        None
    }

    /// The attribute for this encoding (not validated: see [`Encoding::validate`]).
    pub fn to_attribute<'c>(&self, context: &'c Context) -> Attribute<'c> {
        let ctx = context.to_raw();
        let raw = unsafe {
            match self {
                Encoding::Blocked(b) => {
                    let [ctas, split, order] = b.cta.pointers();
                    ffi::tritiumBlockedEncodingGet(
                        ctx,
                        b.size_per_thread.len() as isize,
                        b.size_per_thread.as_ptr(),
                        b.threads_per_warp.as_ptr(),
                        b.warps_per_cta.as_ptr(),
                        b.order.as_ptr(),
                        ctas,
                        split,
                        order,
                    )
                }
                Encoding::Slice { dim, parent } => {
                    ffi::tritiumSliceEncodingGet(ctx, *dim, parent.to_attribute(context).to_raw())
                }
                Encoding::NvidiaMma {
                    version_major,
                    version_minor,
                    warps_per_cta,
                    instr_shape,
                    cta,
                } => {
                    let [ctas, split, order] = cta.pointers();
                    ffi::tritiumNvidiaMmaEncodingGet(
                        ctx,
                        *version_major,
                        *version_minor,
                        warps_per_cta.len() as isize,
                        warps_per_cta.as_ptr(),
                        instr_shape.len() as isize,
                        instr_shape.as_ptr(),
                        ctas,
                        split,
                        order,
                    )
                }
                Encoding::DotOperand {
                    op_idx,
                    parent,
                    k_width,
                } => ffi::tritiumDotOperandEncodingGet(
                    ctx,
                    *op_idx,
                    parent.to_attribute(context).to_raw(),
                    *k_width,
                ),
                Encoding::Linear {
                    rank,
                    register,
                    lane,
                    warp,
                    block,
                } => {
                    let flat = |bases: &Vec<Vec<i32>>| bases.concat();
                    let (r, l, w, b) = (flat(register), flat(lane), flat(warp), flat(block));
                    ffi::tritiumLinearEncodingGet(
                        ctx,
                        *rank,
                        r.as_ptr(),
                        register.len() as isize,
                        l.as_ptr(),
                        lane.len() as isize,
                        w.as_ptr(),
                        warp.len() as isize,
                        b.as_ptr(),
                        block.len() as isize,
                    )
                }
                Encoding::SwizzledShared {
                    vec,
                    per_phase,
                    max_phase,
                    order,
                    cta,
                } => {
                    let [ctas, split, cta_order] = cta.pointers();
                    ffi::tritiumSwizzledSharedEncodingGet(
                        ctx,
                        *vec,
                        *per_phase,
                        *max_phase,
                        order.len() as isize,
                        order.as_ptr(),
                        ctas,
                        split,
                        cta_order,
                    )
                }
                Encoding::NvmmaShared {
                    swizzling_byte_width,
                    transposed,
                    element_bit_width,
                    fp4_padded,
                    cta,
                } => {
                    let [ctas, split, order] = cta.pointers();
                    let cta_rank = if cta.is_single() {
                        0
                    } else {
                        cta.cta_order.len() as isize
                    };
                    ffi::tritiumNvmmaSharedEncodingGet(
                        ctx,
                        *swizzling_byte_width,
                        *transposed,
                        *element_bit_width,
                        *fp4_padded,
                        cta_rank,
                        ctas,
                        split,
                        order,
                    )
                }
            }
        };
        unsafe { Attribute::from_raw(raw) }
    }

    /// Register layouts (tensors): blocked, slice, nvidia_mma, dot_op, linear.
    pub fn is_distributed(&self) -> bool {
        !self.is_shared()
    }

    /// Shared-memory layouts (buffers): swizzled_shared, nvmma_shared.
    pub fn is_shared(&self) -> bool {
        matches!(
            self,
            Encoding::SwizzledShared { .. } | Encoding::NvmmaShared { .. }
        )
    }

    /// The rank of the tensors the encoding is written for (`None` for `nvmma_shared`, which fits any
    /// rank, and for a linear layout without bases).
    pub fn rank(&self) -> Option<usize> {
        match self {
            Encoding::Blocked(b) => Some(b.size_per_thread.len()),
            Encoding::Slice { parent, .. } => parent.rank().map(|r| r.saturating_sub(1)),
            Encoding::NvidiaMma { warps_per_cta, .. } => Some(warps_per_cta.len()),
            Encoding::DotOperand { parent, .. } => parent.rank(),
            Encoding::Linear {
                rank,
                register,
                lane,
                warp,
                block,
            } => {
                let any = [register, lane, warp, block]
                    .iter()
                    .any(|bases| !bases.is_empty());
                (any || *rank > 0).then_some(*rank as usize)
            }
            Encoding::SwizzledShared { order, .. } => Some(order.len()),
            Encoding::NvmmaShared { .. } => None,
        }
    }

    /// The number of warps a CTA must have for this (distributed) layout.
    pub fn num_warps(&self) -> Option<u64> {
        match self {
            Encoding::Blocked(b) => Some(product(&b.warps_per_cta)),
            Encoding::NvidiaMma { warps_per_cta, .. } => Some(product(warps_per_cta)),
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
                parent.num_warps()
            }
            Encoding::Linear { warp, .. } => Some(1 << warp.len()),
            _ => None,
        }
    }

    /// The number of threads a warp must have for this (distributed) layout.
    pub fn threads_per_warp(&self) -> Option<u64> {
        match self {
            Encoding::Blocked(b) => Some(product(&b.threads_per_warp)),
            Encoding::NvidiaMma { .. } => Some(32),
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
                parent.threads_per_warp()
            }
            Encoding::Linear { lane, .. } => Some(1 << lane.len()),
            _ => None,
        }
    }

    /// The number of CTAs of the cluster the layout spans.
    pub fn num_ctas(&self) -> Option<u64> {
        match self {
            Encoding::Blocked(b) => Some(b.cta.num_ctas()),
            Encoding::NvidiaMma { cta, .. }
            | Encoding::SwizzledShared { cta, .. }
            | Encoding::NvmmaShared { cta, .. } => Some(cta.num_ctas()),
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
                parent.num_ctas()
            }
            Encoding::Linear { block, .. } => Some(1 << block.len()),
        }
    }

    /// The rules about the encoding on its own. `Err` says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Encoding::Blocked(b) => {
                let rank = b.size_per_thread.len();
                if rank == 0 {
                    return Err("a blocked encoding needs at least one dimension".into());
                }
                if b.threads_per_warp.len() != rank
                    || b.warps_per_cta.len() != rank
                    || b.order.len() != rank
                {
                    return Err(format!(
                        "sizePerThread, threadsPerWarp, warpsPerCTA and order must all have {rank} entries"
                    ));
                }
                if b.size_per_thread.contains(&0) {
                    return Err("sizePerThread must be positive".into());
                }
                check_powers_of_two("threadsPerWarp", &b.threads_per_warp)?;
                check_powers_of_two("warpsPerCTA", &b.warps_per_cta)?;
                check_permutation("order", &b.order)?;
                b.cta.validate(Some(rank))
            }
            Encoding::Slice { dim, parent } => {
                if !parent.is_distributed() {
                    return Err("the parent of a slice must be a distributed encoding".into());
                }
                match parent.rank() {
                    Some(rank) if (*dim as usize) >= rank => Err(format!(
                        "slice dim {dim} is out of range for a parent of rank {rank}"
                    )),
                    _ => Ok(()),
                }
            }
            Encoding::NvidiaMma {
                version_major,
                warps_per_cta,
                instr_shape,
                cta,
                ..
            } => {
                let rank = warps_per_cta.len();
                if rank < 2 {
                    return Err("an nvidia_mma encoding needs at least two dimensions".into());
                }
                check_powers_of_two("warpsPerCTA", warps_per_cta)?;
                match version_major {
                    2 if instr_shape.len() != 2 => {
                        return Err("versionMajor 2 needs instrShape = [m, n]".into());
                    }
                    3 if instr_shape.len() != 3 => {
                        return Err("versionMajor 3 needs instrShape = [m, n, k]".into());
                    }
                    3 if instr_shape[0] != 16
                        || instr_shape[1] % 8 != 0
                        || !(8..=256).contains(&instr_shape[1]) =>
                    {
                        return Err(format!(
                            "wgmma instrShape {instr_shape:?} must be [16, n, k] with n a multiple of 8 in 8..=256"
                        ));
                    }
                    2 | 3 => {}
                    _ => {
                        return Err(format!(
                            "versionMajor {version_major} is not supported (2: mma.sync, 3: wgmma)"
                        ));
                    }
                }
                if *version_major == 3 && !product(warps_per_cta).is_multiple_of(4) {
                    return Err("wgmma needs whole warp groups: warpsPerCTA must multiply to a multiple of 4".into());
                }
                cta.validate(Some(rank))
            }
            Encoding::DotOperand {
                op_idx,
                parent,
                k_width,
            } => {
                if *op_idx > 1 {
                    return Err(format!("opIdx must be 0 (A) or 1 (B), not {op_idx}"));
                }
                match parent.as_ref() {
                    Encoding::Blocked(_) if *k_width != 0 => {
                        Err("kWidth must be 0 (omitted) for a blocked parent".into())
                    }
                    Encoding::NvidiaMma { .. } if *k_width == 0 => {
                        Err("kWidth must be given for an nvidia_mma parent".into())
                    }
                    Encoding::NvidiaMma {
                        version_major: 3, ..
                    } if *op_idx != 0 => Err(
                        "wgmma reads B from shared memory: opIdx must be 0 for a version 3 parent"
                            .into(),
                    ),
                    Encoding::Blocked(_) | Encoding::NvidiaMma { .. } | Encoding::Linear { .. } => {
                        Ok(())
                    }
                    _ => Err(
                        "the parent of a dot_op must be a blocked, nvidia_mma or linear encoding"
                            .into(),
                    ),
                }
            }
            Encoding::Linear {
                rank,
                register,
                lane,
                warp,
                block,
            } => {
                for bases in [register, lane, warp, block] {
                    if bases.iter().any(|basis| basis.len() != *rank as usize) {
                        return Err(format!("every basis must have {rank} entries"));
                    }
                    if bases.iter().flatten().any(|&v| v < 0) {
                        return Err("bases must hold non-negative integers".into());
                    }
                }
                if lane.len() > 6 || warp.len() > 10 || block.len() > 10 {
                    return Err("too many lane, warp or block bases".into());
                }
                Ok(())
            }
            Encoding::SwizzledShared {
                vec,
                per_phase,
                max_phase,
                order,
                cta,
            } => {
                if *vec == 0 || *per_phase == 0 || *max_phase == 0 {
                    return Err("vec, perPhase and maxPhase must be positive".into());
                }
                if order.is_empty() {
                    return Err("a swizzled_shared encoding needs at least one dimension".into());
                }
                check_permutation("order", order)?;
                cta.validate(Some(order.len()))
            }
            Encoding::NvmmaShared {
                swizzling_byte_width,
                element_bit_width,
                cta,
                ..
            } => {
                if ![0, 32, 64, 128].contains(swizzling_byte_width) {
                    return Err(format!(
                        "swizzlingByteWidth must be 0, 32, 64 or 128, not {swizzling_byte_width}"
                    ));
                }
                if ![4, 8, 16, 32, 64].contains(element_bit_width) {
                    return Err(format!(
                        "elementBitWidth must be 4, 8, 16, 32 or 64, not {element_bit_width}"
                    ));
                }
                cta.validate(None)
            }
        }
    }
}

/// `#ttg.shared_memory`.
pub fn shared_memory_space(context: &Context) -> Attribute<'_> {
    unsafe { Attribute::from_raw(ffi::tritiumSharedMemorySpaceGet(context.to_raw())) }
}

/// Whether `attr` is a shared-memory encoding (`#ttg.swizzled_shared` or `#ttg.nvmma_shared`).
pub fn is_shared_encoding(attr: Attribute) -> bool {
    unsafe { ffi::tritiumAttributeIsASharedEncoding(attr.to_raw()) }
}

/// Whether `attr` is `#ttg.shared_memory`.
pub fn is_shared_memory_space(attr: Attribute) -> bool {
    unsafe { ffi::tritiumAttributeIsASharedMemorySpace(attr.to_raw()) }
}

/// `!ttg.async.token`.
pub fn async_token_type(context: &Context) -> Type<'_> {
    unsafe { Type::from_raw(ffi::tritiumAsyncTokenTypeGet(context.to_raw())) }
}

/// Whether `ty` is `!ttg.async.token`.
pub fn is_async_token(ty: Type) -> bool {
    unsafe { ffi::tritiumTypeIsAsyncToken(ty.to_raw()) }
}

/// `!ttg.memdesc<shape x element, encoding, memory_space[, mutable][, alloc_shape]>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemDesc<'c> {
    pub shape: Vec<i64>,
    pub element: Type<'c>,
    pub encoding: Attribute<'c>,
    pub memory_space: Attribute<'c>,
    pub mutable: bool,
    /// The shape of the whole allocation this is a view of (equal to `shape` when it is all of it).
    pub alloc_shape: Vec<i64>,
}

impl<'c> MemDesc<'c> {
    /// A whole buffer in shared memory.
    pub fn new(
        context: &'c Context,
        shape: Vec<i64>,
        element: Type<'c>,
        encoding: Attribute<'c>,
        mutable: bool,
    ) -> Self {
        let alloc_shape = shape.clone();
        MemDesc {
            shape,
            element,
            encoding,
            memory_space: shared_memory_space(context),
            mutable,
            alloc_shape,
        }
    }

    /// Reads a `!ttg.memdesc` type.
    pub fn from_type(ty: Type<'c>) -> Option<Self> {
        let raw = ty.to_raw();
        unsafe {
            if !ffi::tritiumTypeIsMemDesc(raw) {
                return None;
            }
            Some(MemDesc {
                shape: read_array(|o, c| ffi::tritiumMemDescTypeGetShape(raw, o, c)),
                element: Type::from_raw(ffi::tritiumMemDescTypeGetElementType(raw)),
                encoding: Attribute::from_raw(ffi::tritiumMemDescTypeGetEncoding(raw)),
                memory_space: Attribute::from_raw(ffi::tritiumMemDescTypeGetMemorySpace(raw)),
                mutable: ffi::tritiumMemDescTypeIsMutable(raw),
                alloc_shape: read_array(|o, c| ffi::tritiumMemDescTypeGetAllocShape(raw, o, c)),
            })
        }
    }

    /// The type.
    pub fn to_type(&self) -> Type<'c> {
        unsafe {
            Type::from_raw(ffi::tritiumMemDescTypeGet(
                self.element.to_raw(),
                self.shape.len() as isize,
                self.shape.as_ptr(),
                self.encoding.to_raw(),
                self.memory_space.to_raw(),
                self.mutable,
                self.alloc_shape.len() as isize,
                self.alloc_shape.as_ptr(),
            ))
        }
    }

    /// The decoded encoding, when it is a `#ttg.*` one.
    pub fn layout(&self) -> Option<Encoding> {
        Encoding::from_attribute(self.encoding)
    }
}

/// Called by the parser of every `ttg` encoding (cpp/TritonGPU.cpp): runs [`Encoding::validate`] and
/// reports the failure through `report`. Never unwinds into C++.
///
/// # Safety
/// `attr` must be a live attribute and `report` must accept `user` and a string valid during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tritium_verify_encoding(
    attr: MlirAttribute,
    report: unsafe extern "C" fn(MlirStringRef, *mut c_void),
    user: *mut c_void,
) -> bool {
    let result = std::panic::catch_unwind(|| match Encoding::from_raw(attr) {
        Some(encoding) => encoding.validate(),
        None => Err("the parent is not a ttg encoding".to_owned()),
    })
    .unwrap_or_else(|_| Err("internal error: the encoding check panicked".to_owned()));
    match result {
        Ok(()) => true,
        Err(message) => {
            unsafe {
                report(
                    MlirStringRef {
                        data: message.as_ptr() as *const _,
                        length: message.len(),
                    },
                    user,
                )
            };
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::new_context;

    fn parse<'c>(context: &'c Context, text: &str) -> Attribute<'c> {
        Attribute::parse(context, text).unwrap_or_else(|| panic!("cannot parse {text}"))
    }

    /// Text -> attribute -> Encoding -> attribute gives the same attribute and text.
    fn round_trip(text: &str) -> Encoding {
        let context = new_context();
        let attr = parse(&context, text);
        let encoding = Encoding::from_attribute(attr).expect("a ttg encoding");
        assert_eq!(encoding.validate(), Ok(()));
        let back = encoding.to_attribute(&context);
        assert_eq!(back, attr, "{text}");
        assert_eq!(back.to_string(), text);
        encoding
    }

    const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>";
    const MMA: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>";

    #[test]
    fn blocked() {
        let encoding = round_trip(BLOCKED);
        assert_eq!(
            encoding,
            Encoding::Blocked(Blocked::new(vec![1, 8], vec![4, 8], vec![8, 1], vec![1, 0]))
        );
        assert_eq!(
            (
                encoding.rank(),
                encoding.num_warps(),
                encoding.threads_per_warp()
            ),
            (Some(2), Some(8), Some(32))
        );
        let multi = round_trip(
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], \
             CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = [0]}>",
        );
        assert_eq!(multi.num_ctas(), Some(2));
    }

    #[test]
    fn slice_and_dot_operand() {
        let slice = round_trip(&format!("#ttg.slice<{{dim = 1, parent = {BLOCKED}}}>"));
        assert_eq!(slice.rank(), Some(1));
        assert!(
            matches!(&slice, Encoding::Slice { dim: 1, parent } if matches!(**parent, Encoding::Blocked(_)))
        );
        let dot = round_trip(&format!(
            "#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>"
        ));
        assert!(matches!(
            dot,
            Encoding::DotOperand {
                op_idx: 0,
                k_width: 2,
                ..
            }
        ));
        assert_eq!(dot.num_warps(), Some(8));
        round_trip(&format!("#ttg.dot_op<{{opIdx = 1, parent = {BLOCKED}}}>"));
    }

    #[test]
    fn mma_linear_and_shared() {
        let mma = round_trip(MMA);
        assert!(
            matches!(mma, Encoding::NvidiaMma { version_major: 3, ref instr_shape, .. } if instr_shape == &[16, 256, 16])
        );
        let linear = round_trip(
            "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], \
             warp = [[4, 0], [8, 0]], block = []}>",
        );
        assert_eq!(
            (linear.rank(), linear.num_warps(), linear.threads_per_warp()),
            (Some(2), Some(4), Some(32))
        );
        let swizzled = round_trip(
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
        );
        assert!(swizzled.is_shared());
        let nvmma = round_trip(
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>",
        );
        assert_eq!(nvmma.rank(), None);
        round_trip(
            "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8, fp4Padded = true, \
             CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
        );
    }

    #[test]
    fn built_from_rust() {
        let context = new_context();
        let blocked = Encoding::Blocked(Blocked::new(vec![4], vec![32], vec![4], vec![0]));
        let slice = Encoding::Slice {
            dim: 0,
            parent: Box::new(Encoding::Blocked(Blocked::new(
                vec![1, 1],
                vec![1, 32],
                vec![4, 1],
                vec![1, 0],
            ))),
        };
        for encoding in [blocked, slice] {
            let attr = encoding.to_attribute(&context);
            assert_eq!(Encoding::from_attribute(attr), Some(encoding));
        }
        let bad = Encoding::Blocked(Blocked::new(vec![4], vec![3], vec![4], vec![0]));
        assert_eq!(
            bad.validate(),
            Err("threadsPerWarp [3] must hold powers of two".to_owned())
        );
        assert_eq!(Encoding::from_attribute(parse(&context, "[1, 2]")), None);
    }

    #[test]
    fn memdesc_and_token() {
        let context = new_context();
        let text = format!(
            "!ttg.memdesc<64x32xf16, {}, #ttg.shared_memory, mutable, 3x64x64>",
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
        );
        let ty = Type::parse(&context, &text).expect("memdesc");
        let md = MemDesc::from_type(ty).expect("a memdesc");
        assert_eq!(
            (md.shape.as_slice(), md.alloc_shape.as_slice(), md.mutable),
            (&[64, 32][..], &[3, 64, 64][..], true)
        );
        assert!(is_shared_memory_space(md.memory_space) && is_shared_encoding(md.encoding));
        assert!(matches!(
            md.layout(),
            Some(Encoding::NvmmaShared {
                swizzling_byte_width: 128,
                ..
            })
        ));
        assert_eq!(md.to_type(), ty);
        let whole = MemDesc::new(
            &context,
            vec![128],
            Type::parse(&context, "i64").unwrap(),
            md.encoding,
            false,
        );
        assert_eq!(
            whole.to_type().to_string(),
            "!ttg.memdesc<128xi64, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>"
        );
        let token = async_token_type(&context);
        assert!(is_async_token(token) && MemDesc::from_type(token).is_none());
        assert_eq!(token.to_string(), "!ttg.async.token");
    }
}
