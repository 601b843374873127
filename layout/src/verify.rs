//! The rules about an encoding on its own: what the `ttg` dialect accepts.
//!
//! [`Encoding::verify`] is run on every `#ttg.*` encoding the MLIR parser
//! builds (through `tritium_dialects::encoding::tritium_verify_encoding`);
//! its `Err` text is the diagnostic the user sees. Rules that need the
//! module (warps against `ttg.num-warps`, the encoding's rank against the
//! tensor's) live in the dialect's verifier (`dialects/src/verify/ttg.rs`).
//!
//! These are well-formedness rules, deliberately looser than what
//! [`Encoding::to_linear`] needs: e.g. a blocked `sizePerThread` of 3 is a
//! valid attribute but has no linear layout (`to_linear` reports that, as
//! [`crate::LayoutError::InvalidEncoding`]).

use crate::encoding::{CtaLayout, Encoding};

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
    values
        .iter()
        .fold(1u64, |acc, &v| acc.saturating_mul(v as u64))
}

impl CtaLayout {
    /// The rules of `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` on an encoding of
    /// rank `rank` (`None` for `nvmma_shared`, whose rank the attribute does
    /// not fix).
    pub fn verify(&self, rank: Option<usize>) -> Result<(), String> {
        if self.is_omitted()
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

impl Encoding {
    /// The rules about the encoding on its own (docs/ttg.md lists them).
    /// `Err` says what is wrong, as the `ttg` parser reports it.
    pub fn verify(&self) -> Result<(), String> {
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
                b.cta_layout.verify(Some(rank))
            }
            Encoding::Slice(s) => {
                if !s.parent.is_distributed() {
                    return Err("the parent of a slice must be a distributed encoding".into());
                }
                match s.parent.rank() {
                    Some(rank) if (s.dim as usize) >= rank => Err(format!(
                        "slice dim {} is out of range for a parent of rank {rank}",
                        s.dim
                    )),
                    _ => Ok(()),
                }
            }
            Encoding::NvidiaMma(m) => {
                let rank = m.warps_per_cta.len();
                if rank < 2 {
                    return Err("an nvidia_mma encoding needs at least two dimensions".into());
                }
                check_powers_of_two("warpsPerCTA", &m.warps_per_cta)?;
                let instr_shape = &m.instr_shape;
                match m.version_major {
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
                    v => {
                        return Err(format!(
                            "versionMajor {v} is not supported (2: mma.sync, 3: wgmma)"
                        ));
                    }
                }
                if m.version_major == 3 && !product(&m.warps_per_cta).is_multiple_of(4) {
                    return Err("wgmma needs whole warp groups: warpsPerCTA must multiply to a multiple of 4".into());
                }
                m.cta_layout.verify(Some(rank))
            }
            Encoding::DotOperand(d) => {
                if d.op_idx > 1 {
                    return Err(format!("opIdx must be 0 (A) or 1 (B), not {}", d.op_idx));
                }
                match d.parent.as_ref() {
                    Encoding::Blocked(_) if d.k_width != 0 => {
                        Err("kWidth must be 0 (omitted) for a blocked parent".into())
                    }
                    Encoding::NvidiaMma(_) if d.k_width == 0 => {
                        Err("kWidth must be given for an nvidia_mma parent".into())
                    }
                    Encoding::NvidiaMma(m) if m.version_major == 3 && d.op_idx != 0 => Err(
                        "wgmma reads B from shared memory: opIdx must be 0 for a version 3 parent"
                            .into(),
                    ),
                    Encoding::Blocked(_) | Encoding::NvidiaMma(_) | Encoding::Linear(_) => Ok(()),
                    _ => Err(
                        "the parent of a dot_op must be a blocked, nvidia_mma or linear encoding"
                            .into(),
                    ),
                }
            }
            Encoding::Linear(l) => {
                for (_, bases) in l.bases() {
                    if bases.iter().any(|basis| basis.len() != l.rank()) {
                        return Err(format!("every basis must have {} entries", l.rank));
                    }
                    if bases.iter().flatten().any(|&v| v > i32::MAX as u32) {
                        return Err("bases must hold non-negative integers".into());
                    }
                }
                if l.lane.len() > 6 || l.warp.len() > 10 || l.block.len() > 10 {
                    return Err("too many lane, warp or block bases".into());
                }
                Ok(())
            }
            Encoding::SwizzledShared(s) => {
                if s.vec == 0 || s.per_phase == 0 || s.max_phase == 0 {
                    return Err("vec, perPhase and maxPhase must be positive".into());
                }
                if s.order.is_empty() {
                    return Err("a swizzled_shared encoding needs at least one dimension".into());
                }
                check_permutation("order", &s.order)?;
                s.cta_layout.verify(Some(s.order.len()))
            }
            Encoding::NvmmaShared(n) => {
                if ![0, 32, 64, 128].contains(&n.swizzling_byte_width) {
                    return Err(format!(
                        "swizzlingByteWidth must be 0, 32, 64 or 128, not {}",
                        n.swizzling_byte_width
                    ));
                }
                if ![4, 8, 16, 32, 64].contains(&n.element_bit_width) {
                    return Err(format!(
                        "elementBitWidth must be 4, 8, 16, 32 or 64, not {}",
                        n.element_bit_width
                    ));
                }
                n.cta_layout.verify(None)
            }
        }
    }
}
