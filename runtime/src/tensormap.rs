//! Host-side TMA descriptors: a `CUtensorMap` the driver encodes (`cuTensorMapEncodeTiled`) for
//! a kernel's `nvTmaDesc` parameter, passed by value as Triton passes `tensordesc` arguments.
//!
//! The compiler records, per descriptor parameter, Triton's `tensordesc_meta` entry in `K.json`:
//! the TMA box (`block_size`, outermost dim first), the swizzle mode, the element size and the
//! `CUtensorMapDataType`. The caller gives the tensor: its base address, shape and strides in
//! elements (outermost first, the innermost stride 1), and passes the shape (`i32`) and strides
//! (`i64`) again as the scalar arguments that follow the descriptor.

use cudarc::driver::sys;

use crate::device::{Device, check};
use crate::error::{Result, RuntimeError};

/// A 128-byte, 128-byte-aligned TMA descriptor.
#[repr(C, align(128))]
#[derive(Clone, Copy)]
pub struct TensorMap {
    pub(crate) words: [u64; 16],
}

impl std::fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorMap").finish_non_exhaustive()
    }
}

/// One `tensordesc_meta` entry of `K.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TensorDescMeta {
    /// `CUtensorMapSwizzle` (0 none, 1 32 B, 2 64 B, 3 128 B).
    pub swizzle: u32,
    /// Bytes per element.
    pub elem_size: u32,
    /// `CUtensorMapDataType`.
    pub elem_type: u32,
    /// The box, outermost dim first.
    pub block_size: Vec<u32>,
}

impl TensorDescMeta {
    /// Reads an entry as the compiler writes it.
    pub fn from_json(value: &serde_json::Value) -> Result<TensorDescMeta> {
        let bad = |what: &str| RuntimeError::Metadata(format!("tensordesc_meta: {what}"));
        let int = |name: &str| {
            value
                .get(name)
                .and_then(|v| v.as_u64())
                .map(|v| v as u32)
                .ok_or_else(|| bad(&format!("no integer `{name}`")))
        };
        let block_size = value
            .get("block_size")
            .and_then(|v| v.as_array())
            .ok_or_else(|| bad("no `block_size` list"))?
            .iter()
            .map(|v| {
                v.as_u64()
                    .map(|v| v as u32)
                    .ok_or_else(|| bad("a box dim is not an integer"))
            })
            .collect::<Result<Vec<u32>>>()?;
        if block_size.is_empty() || block_size.len() > 5 {
            return Err(bad("the box has 1 to 5 dims"));
        }
        Ok(TensorDescMeta {
            swizzle: int("swizzle")?,
            elem_size: int("elem_size")?,
            elem_type: int("elem_type")?,
            block_size,
        })
    }
}

/// The driver's data type for a `tensordesc_meta` element-type code, which (as Triton's) is the
/// device encoding of PTX's `tensormap.replace.tile.elemtype`: the two agree up to `f32` (7);
/// then PTX has `f32.ftz` 8, `f64` 9, `bf16` 10, where the driver has `FLOAT64` 8, `BFLOAT16` 9,
/// `FLOAT32_FTZ` 10.
fn data_type(code: u32) -> Result<sys::CUtensorMapDataType> {
    use sys::CUtensorMapDataType as T;
    Ok(match code {
        0 => T::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        1 => T::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        2 => T::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        3 => T::CU_TENSOR_MAP_DATA_TYPE_INT32,
        4 => T::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        5 => T::CU_TENSOR_MAP_DATA_TYPE_INT64,
        6 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        7 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        8 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ,
        9 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        10 => T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        other => {
            return Err(RuntimeError::Metadata(format!(
                "tensordesc_meta: unknown element type code {other}"
            )));
        }
    })
}

fn swizzle(code: u32) -> Result<sys::CUtensorMapSwizzle> {
    use sys::CUtensorMapSwizzle as S;
    Ok(match code {
        0 => S::CU_TENSOR_MAP_SWIZZLE_NONE,
        1 => S::CU_TENSOR_MAP_SWIZZLE_32B,
        2 => S::CU_TENSOR_MAP_SWIZZLE_64B,
        3 => S::CU_TENSOR_MAP_SWIZZLE_128B,
        other => {
            return Err(RuntimeError::Metadata(format!(
                "tensordesc_meta: unknown swizzle mode {other}"
            )));
        }
    })
}

/// The driver's `CUtensorMapDataType` and `CUtensorMapSwizzle` values for `meta` (what a C
/// launcher passes to `cuTensorMapEncodeTiled`).
pub fn driver_codes(meta: &TensorDescMeta) -> Result<(u32, u32)> {
    Ok((
        data_type(meta.elem_type)? as u32,
        swizzle(meta.swizzle)? as u32,
    ))
}

impl TensorMap {
    /// Encodes a descriptor of the row-major tensor at device address `base` with `shape` and
    /// `strides` (in elements, outermost first, innermost stride 1), for the box and swizzle of
    /// `meta`; out-of-bounds elements read as zero, or as NaN with `nan_fill`. TMA needs
    /// `base` 16-byte aligned and every other stride a multiple of 16 bytes.
    pub fn encode(
        device: &Device,
        base: u64,
        shape: &[u64],
        strides: &[u64],
        meta: &TensorDescMeta,
        nan_fill: bool,
    ) -> Result<TensorMap> {
        let rank = meta.block_size.len();
        if shape.len() != rank || strides.len() != rank {
            return Err(RuntimeError::InvalidArgument(format!(
                "a rank-{rank} TMA descriptor needs {rank} dims and strides (got {} and {})",
                shape.len(),
                strides.len()
            )));
        }
        if strides[rank - 1] != 1 {
            return Err(RuntimeError::InvalidArgument(
                "a TMA descriptor's innermost stride must be 1".into(),
            ));
        }
        let elem = meta.elem_size as u64;
        if !base.is_multiple_of(16)
            || strides[..rank - 1]
                .iter()
                .any(|s| !(s * elem).is_multiple_of(16))
        {
            return Err(RuntimeError::InvalidArgument(
                "TMA needs a 16-byte aligned base and strides of multiples of 16 bytes".into(),
            ));
        }
        // The driver takes every list innermost first, strides in bytes without the innermost.
        let dims: Vec<u64> = shape.iter().rev().copied().collect();
        let byte_strides: Vec<u64> = strides[..rank - 1].iter().rev().map(|s| s * elem).collect();
        let boxes: Vec<u32> = meta.block_size.iter().rev().copied().collect();
        let element_strides = vec![1u32; rank];
        let data_type = data_type(meta.elem_type)?;
        let swizzle = swizzle(meta.swizzle)?;
        device.bind()?;
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        // SAFETY: `map` is a writable 128-byte CUtensorMap; every list has `rank` entries
        // (`byte_strides` rank - 1, as the API reads) and outlives the call.
        let res = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                data_type,
                rank as u32,
                base as *mut std::ffi::c_void,
                dims.as_ptr(),
                byte_strides.as_ptr(),
                boxes.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                if nan_fill {
                    sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                } else {
                    sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
                },
            )
        };
        check(res, "cuTensorMapEncodeTiled")?;
        Ok(TensorMap { words: map.opaque })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The metadata's codes are PTX's (as Triton's): past f32 they are not the driver's.
    #[test]
    fn element_codes_map_to_the_drivers_data_types() {
        use sys::CUtensorMapDataType as T;
        let cases = [
            (6, T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16),
            (7, T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32),
            (9, T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64),
            (10, T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16),
        ];
        for (code, expected) in cases {
            assert_eq!(data_type(code).unwrap(), expected, "code {code}");
        }
        assert!(data_type(13).is_err());
    }

    #[test]
    fn meta_reads_what_the_compiler_writes() {
        let v = serde_json::json!({"swizzle": 3, "elem_size": 2, "elem_type": 6,
            "block_size": [128, 64], "fp4_padded": false});
        let m = TensorDescMeta::from_json(&v).unwrap();
        assert_eq!(m.block_size, vec![128, 64]);
        assert_eq!((m.swizzle, m.elem_size, m.elem_type), (3, 2, 6));
        assert!(TensorDescMeta::from_json(&serde_json::json!({"swizzle": 3})).is_err());
        assert_eq!(std::mem::align_of::<TensorMap>(), 128);
        assert_eq!(std::mem::size_of::<TensorMap>(), 128);
    }
}
