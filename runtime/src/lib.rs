//! # tritium-runtime
//!
//! Loads and launches Tritium-compiled PTX kernels through the CUDA driver API, and checks them.
//! This crate has no MLIR dependency: it only needs the PTX text and the launch metadata the
//! compiler writes beside it (`K.ptx` + `K.json`, see [`KernelMetadata`]).
//!
//! * [`metadata`]: the `K.json` format (Triton 3.6's fields: hash, target, `num_warps`,
//!   `num_stages`, dynamic shared bytes, entry name, ...; plus the parameter signature) and the
//!   launch-argument check.
//! * [`device`] / [`launch`]: a thin, safe layer over the driver API (through `cudarc`'s raw
//!   bindings, with `libcuda.so` loaded at run time): [`Device`], [`Stream`], [`DeviceBuffer`],
//!   [`Module`], [`Kernel`], CUDA-event timing ([`Stream::time_launches`], [`median`]) and an
//!   [`L2Flush`] for benchmarks. On a machine without the driver or a GPU every entry point
//!   returns [`RuntimeError::NoDriver`] / [`RuntimeError::NoDevice`]; nothing panics.
//! * [`cache`]: the on-disk compile cache (`$TRITIUM_CACHE_DIR`, else the XDG cache directory),
//!   keyed by a SHA-256 of IR, options, target and compiler version, with atomic, race-safe
//!   writes and self-healing of corrupt entries.
//! * [`reference`](mod@reference): CPU references for the benchmark kernels (add, softmax, rmsnorm, f16
//!   matmul), f16 conversion, a seeded RNG and element-by-element comparison.
//! * [`patterns`]: the lowering-pattern suite (`test/Inputs/gpu/*.ttir`): per kernel, random
//!   inputs, the launch, and an independent CPU reference with per-op tolerances.
//! * [`suite`]: the GPU check run by the `tritium-gpu-check` binary, which needs no Rust
//!   toolchain on the GPU machine (see the crate README).
//!
//! ```no_run
//! use tritium_runtime::{Device, Kernel, KernelArg};
//! # fn main() -> tritium_runtime::Result<()> {
//! let dev = Device::new(0)?;
//! let add = Kernel::load(&dev, "out", "add")?; // out/add.ptx + out/add.json
//! let n = 1 << 20;
//! let x = dev.upload(&vec![1.0f32; n])?;
//! let y = dev.upload(&vec![2.0f32; n])?;
//! let out = dev.alloc_elems::<f32>(n)?;
//! let stream = dev.create_stream()?;
//! add.launch(&stream, ((n / 1024) as u32, 1, 1),
//!            &[KernelArg::Buffer(&x), KernelArg::Buffer(&y), KernelArg::Buffer(&out),
//!              KernelArg::I32(n as i32)])?;
//! assert!(out.download::<f32>()?.iter().all(|&v| v == 3.0));
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod cache;
pub mod device;
mod error;
pub mod launch;
pub mod metadata;
pub mod patterns;
pub mod reference;
pub mod suite;
pub mod tensormap;

pub use cache::{Cache, CacheEntry};
pub use device::{
    Device, DeviceBuffer, Element, Event, L2Flush, SmLimits, Stream, device_count, driver_version,
    median, time_launches,
};
pub use error::{Result, RuntimeError};
pub use launch::{Kernel, KernelArg, KernelAttributes, LaunchFlags, Module};
pub use metadata::{
    ArgKind, DescriptorValue, ElemType, GpuTarget, HostDescriptor, KernelMetadata, ParamType,
};
pub use tensormap::{TensorDescMeta, TensorMap};
