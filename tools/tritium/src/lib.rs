//! Tritium as a library: compile TTIR (text or file) to PTX through an on-disk cache and launch
//! it on the GPU.
//!
//! ```no_run
//! use tritium::{Jit, JitOptions};
//! use tritium_runtime::KernelArg;
//! # fn main() -> Result<(), String> {
//! let jit = Jit::new()?; // cache under $TRITIUM_CACHE_DIR or ~/.cache/tritium
//! let kernel = jit.load_file("add.ttir", &JitOptions { num_warps: 4, ..Default::default() })?;
//! let n = 1 << 20;
//! let device = jit.device();
//! let x = device.upload(&vec![1.0f32; n]).map_err(|e| e.to_string())?;
//! let y = device.upload(&vec![2.0f32; n]).map_err(|e| e.to_string())?;
//! let out = device.alloc_elems::<f32>(n).map_err(|e| e.to_string())?;
//! let stream = device.create_stream().map_err(|e| e.to_string())?;
//! kernel
//!     .launch(&stream, ((n / 1024) as u32, 1, 1), &[KernelArg::Buffer(&x), KernelArg::Buffer(&y),
//!             KernelArg::Buffer(&out), KernelArg::I32(n as i32)])
//!     .map_err(|e| e.to_string())?;
//! # Ok(()) }
//! ```

#![warn(clippy::undocumented_unsafe_blocks)]

use tritium_lowering::compile::{CompileOptions, compile};
use tritium_lowering::ptx::Arch;
use tritium_runtime::{Cache, Device, Kernel, KernelMetadata};

/// Options of a JIT compilation (part of the cache key).
#[derive(Clone, Debug)]
pub struct JitOptions {
    pub num_warps: u32,
    pub num_stages: u32,
    /// `None`: the device's own architecture (`sm_90a` on Hopper).
    pub arch: Option<String>,
}

impl Default for JitOptions {
    fn default() -> Self {
        JitOptions {
            num_warps: 4,
            num_stages: 3,
            arch: None,
        }
    }
}

/// Compiles through the cache and loads kernels on one device.
pub struct Jit {
    device: Device,
    cache: Cache,
}

/// The compiler's identity in cache keys: a new Tritium or LLVM version invalidates entries.
pub fn compiler_version() -> String {
    format!(
        "tritium {} / LLVM {}",
        env!("CARGO_PKG_VERSION"),
        tritium_lowering::llvm_version()
    )
}

/// Compiles TTIR (or TTGIR) text to `(ptx, metadata json)`, through `cache` when given.
pub fn compile_cached(
    cache: Option<&Cache>,
    ir: &str,
    name: &str,
    options: &CompileOptions,
) -> Result<(String, String), String> {
    let run = || {
        compile(ir, name, options)
            .map(|c| (c.ptx.clone(), c.metadata_json()))
            .map_err(|error| error.to_string())
    };
    let Some(cache) = cache else { return run() };
    // `module`: taken from the input (TTGIR) or the default.
    let given = |value: Option<u32>| value.map_or("module".to_owned(), |v| v.to_string());
    let key = Cache::key(
        ir,
        &format!(
            "num_warps={} num_stages={}",
            given(options.num_warps),
            given(options.num_stages)
        ),
        &options.arch.map_or("module".to_owned(), |arch| arch.name()),
        &compiler_version(),
    );
    if let Some(entry) = cache.get(&key) {
        return Ok((entry.ptx, entry.json));
    }
    let (ptx, json) = run()?;
    cache.put(&key, &ptx, &json).map_err(|e| e.to_string())?;
    Ok((ptx, json))
}

impl Jit {
    /// Device 0 and the default cache directory.
    pub fn new() -> Result<Jit, String> {
        let device = Device::new(0).map_err(|e| e.to_string())?;
        let cache = Cache::open_default().map_err(|e| e.to_string())?;
        Ok(Jit { device, cache })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    fn arch(&self, options: &JitOptions) -> String {
        options.arch.clone().unwrap_or_else(|| {
            let arch = self.device.arch();
            if arch == "sm_90" {
                "sm_90a".to_owned()
            } else {
                arch
            }
        })
    }

    /// Compiles (or fetches from the cache) and loads TTIR text.
    pub fn load(&self, ir: &str, name: &str, options: &JitOptions) -> Result<Kernel, String> {
        let compile_options = CompileOptions {
            num_warps: Some(options.num_warps),
            num_stages: Some(options.num_stages),
            arch: Some(Arch::parse(&self.arch(options))?),
            keep_intermediates: false,
            line_info: false,
        };
        let (ptx, json) = compile_cached(Some(&self.cache), ir, name, &compile_options)?;
        let metadata = KernelMetadata::from_json(&json).map_err(|e| e.to_string())?;
        Kernel::from_ptx(&self.device, &ptx, metadata).map_err(|e| e.to_string())
    }

    /// [`Jit::load`] of a file.
    pub fn load_file(&self, path: &str, options: &JitOptions) -> Result<Kernel, String> {
        let ir = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        self.load(&ir, path, options)
    }
}
