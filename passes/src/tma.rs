//! What a TMA (Hopper's tensor memory accelerator) descriptor of a tensor-descriptor block is:
//! the box one `cp.async.bulk.tensor` moves, the swizzle mode, the element type code, and how
//! many boxes cover the block. Shared by `-triton-nvidia-tma-lowering` (which writes the
//! descriptor on the device with `ttng.tensormap_create`), the lowering of the TMA copies (which
//! splits a block into boxes) and the compiler's `tensordesc_meta` (from which the runtime
//! encodes host-side descriptors with `cuTensorMapEncodeTiled`), so the three always agree.
//!
//! The block lives in shared memory in a `#ttg.nvmma_shared` layout (not transposed, swizzle
//! 32, 64 or 128 bytes): rows of the swizzle width, 8-row swizzle atoms, the innermost dim cut
//! into column blocks of the swizzle width stored one after the other. That is exactly what a
//! TMA copy with the same swizzle writes for a box whose innermost extent is the swizzle width,
//! so a block is moved as one box per column block (and per 256 rows, TMA's box limit).

use tritium_layout::encoding::{Encoding, NvmmaSharedEncoding};

/// Largest extent of a TMA box along one dim.
pub const MAX_BOX_DIM: u32 = 256;

/// Bytes of a TMA descriptor (`CUtensorMap`) and their alignment in global memory.
pub const DESCRIPTOR_BYTES: u32 = 128;

/// The TMA view of a descriptor block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaBox {
    /// The box, outermost dim first (as the block's shape).
    pub box_dims: Vec<u32>,
    /// `CUtensorMapSwizzle`: 0 none, 1 32 B, 2 64 B, 3 128 B.
    pub swizzle_mode: u32,
    /// Bytes per element.
    pub elem_bytes: u32,
}

impl TmaBox {
    /// Boxes along each dim that cover `block` (outermost first).
    pub fn messages(&self, block: &[u32]) -> Vec<u32> {
        block
            .iter()
            .zip(&self.box_dims)
            .map(|(&b, &x)| b / x)
            .collect()
    }

    /// Bytes one box moves.
    pub fn box_bytes(&self) -> u32 {
        self.box_dims.iter().product::<u32>() * self.elem_bytes
    }
}

/// How many leading unit dims of a descriptor block a tensor or buffer of shape `tile` drops: the
/// rank-reduced accesses the verifier allows (a `1x128x64` block loaded as `128x64`), which TMA
/// moves with the block's box and coordinates into a buffer of the tile's shape. `Some(0)` for
/// the block itself; `None` when `tile` is not the block without leading unit dims.
pub fn dropped_unit_dims<T: Copy + PartialEq + From<u8>>(block: &[T], tile: &[T]) -> Option<usize> {
    let dropped = block.len().checked_sub(tile.len())?;
    (block[..dropped].iter().all(|&d| d == T::from(1)) && block[dropped..] == *tile)
        .then_some(dropped)
}

/// The `#ttg.nvmma_shared` layout Triton gives a descriptor block of `block` elements of
/// `elem_bits`: the widest swizzle (128, 64, 32 bytes) the innermost dim's bytes fill, or `None`
/// when TMA cannot move the block (rank above 5, innermost dim under 32 bytes, a dim not a power
/// of two).
pub fn block_encoding(block: &[u32], elem_bits: u32) -> Option<NvmmaSharedEncoding> {
    if block.is_empty() || block.len() > 5 || !matches!(elem_bits, 8 | 16 | 32 | 64) {
        return None;
    }
    if !block.iter().all(|d| d.is_power_of_two()) {
        return None;
    }
    let inner_bytes = block[block.len() - 1] * elem_bits / 8;
    let swizzle = [128, 64, 32].into_iter().find(|&s| inner_bytes >= s)?;
    Some(NvmmaSharedEncoding::new(swizzle, false, elem_bits))
}

/// The TMA box of a block in shared layout `encoding`, or why TMA cannot move it.
pub fn tma_box(block: &[u32], elem_bits: u32, encoding: &Encoding) -> Result<TmaBox, String> {
    let Encoding::NvmmaShared(nvmma) = encoding else {
        return Err("a TMA block needs a #ttg.nvmma_shared layout".into());
    };
    if nvmma.transposed || nvmma.fp4_padded {
        return Err("a TMA block needs a non-transposed, unpadded #ttg.nvmma_shared layout".into());
    }
    let swizzle_mode = match nvmma.swizzling_byte_width {
        32 => 1,
        64 => 2,
        128 => 3,
        other => {
            return Err(format!(
                "TMA blocks need a swizzle of 32, 64 or 128 bytes (got {other})"
            ));
        }
    };
    if block.is_empty() || block.len() > 5 {
        return Err(format!(
            "TMA moves blocks of rank 1 to 5 (got rank {})",
            block.len()
        ));
    }
    if !matches!(elem_bits, 8 | 16 | 32 | 64) || !block.iter().all(|d| d.is_power_of_two()) {
        return Err("TMA blocks need power-of-two dims of 8- to 64-bit elements".into());
    }
    let rank = block.len();
    let swizzle_elems = nvmma.swizzling_byte_width * 8 / elem_bits;
    let mut box_dims: Vec<u32> = block.iter().map(|&d| d.min(MAX_BOX_DIM)).collect();
    box_dims[rank - 1] = block[rank - 1].min(swizzle_elems);
    if box_dims[rank - 1] * elem_bits / 8 != nvmma.swizzling_byte_width {
        return Err(format!(
            "the block's innermost dim ({} bytes) is narrower than its {}-byte swizzle",
            block[rank - 1] * elem_bits / 8,
            nvmma.swizzling_byte_width
        ));
    }
    Ok(TmaBox {
        box_dims,
        swizzle_mode,
        elem_bytes: elem_bits / 8,
    })
}

/// The TMA element-type code of an element type, as Triton's compiler emits it in
/// `ttng.tensormap_create`'s `elem_type` and in `tensordesc_meta`: the encoding of PTX's
/// `tensormap.replace.tile.elemtype` (`u8` 0, `u16` 1, `s32` 3, `s64` 5, `f16` 6, `f32` 7,
/// `f64` 9, `bf16` 10; integers and fp8 by width). It agrees with the driver's
/// `CUtensorMapDataType` up to `f32`; past it the runtime maps it (`f64` 8, `bf16` 9 there), as
/// Triton's launcher does.
pub fn elem_type_code(kind: ElemKind) -> u32 {
    match kind {
        ElemKind::Int(8) | ElemKind::Fp8 => 0,
        ElemKind::Int(16) => 1,
        ElemKind::Int(32) => 3,
        ElemKind::Int(_) => 5,
        ElemKind::F16 => 6,
        ElemKind::F32 => 7,
        ElemKind::F64 => 9,
        ElemKind::Bf16 => 10,
    }
}

/// The element kinds a TMA descriptor distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemKind {
    Int(u32),
    Fp8,
    F16,
    Bf16,
    F32,
    F64,
}

/// The [`ElemKind`] of an MLIR scalar type (`None`: not an element TMA moves).
pub fn elem_kind(ty: mlir_sys::MlirType) -> Option<ElemKind> {
    // SAFETY: type queries on a live type.
    unsafe {
        use mlir_sys::*;
        if mlirTypeIsAInteger(ty) {
            let w = mlirIntegerTypeGetWidth(ty);
            return matches!(w, 8 | 16 | 32 | 64).then_some(ElemKind::Int(w));
        }
        if mlirTypeIsAF16(ty) {
            Some(ElemKind::F16)
        } else if mlirTypeIsABF16(ty) {
            Some(ElemKind::Bf16)
        } else if mlirTypeIsAF32(ty) {
            Some(ElemKind::F32)
        } else if mlirTypeIsAF64(ty) {
            Some(ElemKind::F64)
        } else if mlirTypeIsAFloat(ty) && mlirFloatTypeGetWidth(ty) == 8 {
            Some(ElemKind::Fp8)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As Triton's compiler writes `elem_type` (the device encoding its launcher maps back with
    /// `TMA_DTYPE_DEVICE_TO_HOST`): bf16 is 10 and f64 9, not the driver's 9 and 8.
    #[test]
    fn element_codes_are_ptxs() {
        let codes = [
            (ElemKind::Fp8, 0),
            (ElemKind::Int(16), 1),
            (ElemKind::Int(32), 3),
            (ElemKind::F16, 6),
            (ElemKind::F32, 7),
            (ElemKind::F64, 9),
            (ElemKind::Bf16, 10),
        ];
        for (kind, code) in codes {
            assert_eq!(elem_type_code(kind), code, "{kind:?}");
        }
    }

    #[test]
    fn rank_reduced_tiles_drop_leading_unit_dims() {
        assert_eq!(dropped_unit_dims::<i64>(&[1, 128, 64], &[128, 64]), Some(1));
        assert_eq!(
            dropped_unit_dims::<i64>(&[1, 1, 16, 32], &[16, 32]),
            Some(2)
        );
        assert_eq!(
            dropped_unit_dims::<i64>(&[1, 1, 16, 32], &[1, 16, 32]),
            Some(1)
        );
        assert_eq!(dropped_unit_dims::<u32>(&[128, 64], &[128, 64]), Some(0));
        assert_eq!(dropped_unit_dims::<i64>(&[2, 8, 32], &[16, 32]), None);
        assert_eq!(dropped_unit_dims::<i64>(&[1, 16, 32], &[32, 16]), None);
        assert_eq!(dropped_unit_dims::<i64>(&[16, 32], &[1, 16, 32]), None);
    }

    #[test]
    fn boxes_follow_the_swizzle() {
        let enc = Encoding::NvmmaShared(block_encoding(&[64, 64], 32).unwrap());
        let b = tma_box(&[64, 64], 32, &enc).unwrap();
        // Triton's s_descriptor: box [64, 32] (written innermost first as [32, 64]), swizzle 3.
        assert_eq!(b.box_dims, vec![64, 32]);
        assert_eq!(b.swizzle_mode, 3);
        assert_eq!(b.messages(&[64, 64]), vec![1, 2]);
        let enc = Encoding::NvmmaShared(block_encoding(&[128, 64], 16).unwrap());
        let b = tma_box(&[128, 64], 16, &enc).unwrap();
        assert_eq!((b.box_dims.clone(), b.box_bytes()), (vec![128, 64], 16384));
        let enc = Encoding::NvmmaShared(block_encoding(&[512, 16], 16).unwrap());
        let b = tma_box(&[512, 16], 16, &enc).unwrap();
        assert_eq!((b.box_dims.clone(), b.swizzle_mode), (vec![256, 16], 1));
        assert_eq!(b.messages(&[512, 16]), vec![2, 1]);
        assert!(block_encoding(&[64, 4], 32).is_none());
        // A batched block's leading unit dim adds a box dim of 1; its tile is the 2-D block's.
        let enc = Encoding::NvmmaShared(block_encoding(&[1, 128, 64], 16).unwrap());
        let b = tma_box(&[1, 128, 64], 16, &enc).unwrap();
        assert_eq!(
            (b.box_dims.clone(), b.box_bytes()),
            (vec![1, 128, 64], 16384)
        );
        assert!(block_encoding(&[48, 64], 16).is_none());
    }
}
