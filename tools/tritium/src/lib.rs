//! Tritium as a library: compile TTIR, TTGIR or `@triton.jit` Python to PTX and Triton's launch
//! metadata through the on-disk cache ([`Compiler`], no GPU needed), and load and launch the
//! result on a GPU ([`Jit`]).
//!
//! Compiling needs no GPU and no CUDA toolkit:
//!
//! ```
//! use tritium::{Compiler, Environment, Request};
//! # fn main() -> Result<(), tritium::Error> {
//! # let dir = tempfile::tempdir().unwrap();
//! let compiler = Compiler::with_cache(Some(tritium_runtime::Cache::open(dir.path())?), Environment::default());
//! let add = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/add.ttir");
//! let request = Request::from_file(add, None, None, Default::default())?;
//! let output = compiler.compile(&request)?;
//! assert_eq!(output.metadata.name, "add_kernel");
//! assert!(output.ptx.contains(".visible .entry add_kernel("));
//! // The second time comes from the cache.
//! assert!(compiler.compile(&request)?.cached);
//! # Ok(()) }
//! ```
//!
//! Running needs the CUDA driver and a GPU ([`Jit::new`] fails with
//! [`RuntimeError::NoDriver`] or [`RuntimeError::NoDevice`] otherwise):
//!
//! ```no_run
//! use tritium::{Jit, JitOptions};
//! use tritium_runtime::KernelArg;
//! # fn main() -> Result<(), tritium::Error> {
//! let jit = Jit::new()?; // cache under $TRITIUM_CACHE_DIR or ~/.cache/tritium
//! let kernel = jit.load_file("add.ttir", &JitOptions { num_warps: 4, ..Default::default() })?;
//! let n = 1 << 20;
//! let device = jit.device();
//! let x = device.upload(&vec![1.0f32; n])?;
//! let y = device.upload(&vec![2.0f32; n])?;
//! let out = device.alloc_elems::<f32>(n)?;
//! let stream = device.create_stream()?;
//! kernel.launch(&stream, ((n / 1024) as u32, 1, 1), &[KernelArg::Buffer(&x),
//!     KernelArg::Buffer(&y), KernelArg::Buffer(&out), KernelArg::I32(n as i32)])?;
//! # Ok(()) }
//! ```
//!
//! Every compilation honours Triton's debugging variables ([`Environment`]).

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod aot;
mod environment;

pub use environment::Environment;
pub use tritium_lowering::compile::{CompileOptions, Compiled};
pub use tritium_lowering::debug::{DebugOptions, DumpFilter};
pub use tritium_lowering::diagnostics::CompileError;
pub use tritium_lowering::ptx::Arch;
pub use tritium_lowering::stage::StageTimes;
pub use tritium_runtime::RuntimeError;

use std::path::{Path, PathBuf};
use tritium_lowering::compile::{compile_built, compile_timed};
use tritium_runtime::{Cache, Device, Kernel, KernelMetadata};

/// Why a compilation or a launch failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A stage of the compiler failed, or the options were bad (diagnostics at their sources).
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The runtime (driver, device, cache, metadata) failed.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// An input file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A request that makes no sense (an option for another kind of input, ...).
    #[error("{0}")]
    Usage(String),
}

impl Error {
    fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// What is compiled.
#[derive(Clone, Debug)]
pub enum Source {
    /// TTIR or TTGIR text.
    Ir(String),
    /// Python with `@triton.jit` kernels: which one (`None`: the only one) and its signature
    /// (`"*fp32:16, i32, 1024"`, see docs/frontend.md).
    Python {
        text: String,
        kernel: Option<String>,
        signature: String,
    },
}

/// One compilation: the source, the name its locations use, the options.
#[derive(Clone, Debug)]
pub struct Request {
    pub source: Source,
    /// The input's name in diagnostics and line tables (its path).
    pub filename: String,
    pub options: CompileOptions,
    /// Compile even when the cache has the result (`--timing`, `--emit` need the stages).
    pub always_compile: bool,
    /// What identifies the source in the cache key when not the whole text: the Python package
    /// passes the kernel's and its callees' sources (and the globals they read), so that an
    /// unrelated change elsewhere in the file keeps the cached kernel.
    pub key_source: Option<String>,
    /// Also return the TTIR, TTGIR and LLVM IR ([`Output::stages`]), kept in the cache entry
    /// beside the PTX (Triton's `CompiledKernel.asm`).
    pub keep_stages: bool,
    /// For Python input: the other modules whose `@jit` functions the kernel's module imports.
    pub other_modules: Vec<tritium_frontend::OtherModule>,
}

impl Request {
    /// TTIR or TTGIR text named `filename`.
    pub fn ir(
        text: impl Into<String>,
        filename: impl Into<String>,
        options: CompileOptions,
    ) -> Request {
        Request {
            source: Source::Ir(text.into()),
            filename: filename.into(),
            options,
            always_compile: false,
            key_source: None,
            keep_stages: false,
            other_modules: Vec::new(),
        }
    }

    /// Python `text` named `filename`: kernel `kernel` (`None`: the only one) specialized by
    /// `signature`.
    pub fn python(
        text: impl Into<String>,
        filename: impl Into<String>,
        kernel: Option<&str>,
        signature: impl Into<String>,
        options: CompileOptions,
    ) -> Request {
        Request {
            source: Source::Python {
                text: text.into(),
                kernel: kernel.map(str::to_owned),
                signature: signature.into(),
            },
            filename: filename.into(),
            options,
            always_compile: false,
            key_source: None,
            keep_stages: false,
            other_modules: Vec::new(),
        }
    }

    /// The file at `path`: Python (`.py`, with `kernel` and `signature`) or TTIR/TTGIR.
    pub fn from_file(
        path: impl AsRef<Path>,
        kernel: Option<&str>,
        signature: Option<&str>,
        options: CompileOptions,
    ) -> Result<Request, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.to_owned(),
            source,
        })?;
        let filename = path.display().to_string();
        let source = if is_python(path) {
            Source::Python {
                text,
                kernel: kernel.map(str::to_owned),
                signature: signature.unwrap_or("").to_owned(),
            }
        } else if kernel.is_some() || signature.is_some() {
            return Err(Error::Usage(format!(
                "{filename}: --kernel-name and --signature are for Python input (.py)"
            )));
        } else {
            Source::Ir(text)
        };
        Ok(Request {
            source,
            filename,
            options,
            always_compile: false,
            key_source: None,
            keep_stages: false,
            other_modules: Vec::new(),
        })
    }

    /// The input text.
    pub fn text(&self) -> &str {
        match &self.source {
            Source::Ir(text) | Source::Python { text, .. } => text,
        }
    }

    /// The cache key: the source, every option that changes the output, the target and the
    /// compiler's identity.
    pub fn cache_key(&self) -> String {
        let options = &self.options;
        let given = |value: Option<u32>| value.map_or("module".to_owned(), |v| v.to_string());
        let mut described = format!(
            "num_warps={} num_stages={} line_info={} debug={}",
            given(options.num_warps),
            given(options.num_stages),
            options.line_info,
            options.debug.debug
        );
        if options.persistent_programs {
            described += " persistent_programs";
        }
        if options.descriptor_loads {
            described += " descriptor_loads";
        }
        if let Source::Python {
            kernel, signature, ..
        } = &self.source
        {
            described += &format!(" python kernel={kernel:?} signature={signature:?}");
        }
        if self.key_source.is_some() {
            described += &format!(" filename={:?}", self.filename);
        } else {
            for m in &self.other_modules {
                described += &format!(
                    " module={:?} file={:?} source={:?}",
                    m.name, m.file, m.source
                );
            }
        }
        Cache::key(
            self.key_source.as_deref().unwrap_or(self.text()),
            &described,
            &options.arch.map_or("module".to_owned(), |arch| arch.name()),
            &compiler_version(),
        )
    }
}

/// Whether `path` is Python source (by its extension).
pub fn is_python(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py")
}

/// The compiler's identity in cache keys: its version, LLVM's, and the size and modification
/// time of the running executable (which links the compiler), so a rebuilt compiler never
/// reads entries of an older build.
pub fn compiler_version() -> String {
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}-{modified}", m.len())
        })
        .unwrap_or_default();
    format!(
        "tritium {} / LLVM {} / build {build}",
        env!("CARGO_PKG_VERSION"),
        tritium_lowering::llvm_version()
    )
}

/// A compilation's result.
#[derive(Debug)]
pub struct Output {
    pub ptx: String,
    /// What `K.json` holds.
    pub metadata: KernelMetadata,
    /// The compiler's result with the stages' IR when the options kept them; `None` when the
    /// result came from the cache.
    pub compiled: Option<Compiled>,
    /// Each stage's wall time (empty for a cached result).
    pub times: StageTimes,
    /// The result came from the cache.
    pub cached: bool,
    /// The stages' IR when [`Request::keep_stages`] asked for them.
    pub stages: Stages,
}

/// The IR of a kernel's stages, as Triton's `asm`: `ttir` (after the TTIR passes, with
/// locations), `ttgir`, `llir` (LLVM IR after optimization).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stages {
    pub ttir: Option<String>,
    pub ttgir: Option<String>,
    pub llir: Option<String>,
}

impl Stages {
    const FILES: [&'static str; 3] = ["kernel.ttir", "kernel.ttgir", "kernel.llir"];

    fn from_compiled(compiled: &Compiled) -> Stages {
        Stages {
            ttir: compiled.ttir.clone(),
            ttgir: compiled.ttgir.clone(),
            llir: compiled.llvm_ir.clone(),
        }
    }

    fn from_entry(entry: &tritium_runtime::CacheEntry) -> Stages {
        let [ttir, ttgir, llir] = Stages::FILES.map(|name| entry.extra(name));
        Stages { ttir, ttgir, llir }
    }

    fn files(&self) -> Vec<(&'static str, &str)> {
        Stages::FILES
            .into_iter()
            .zip([&self.ttir, &self.ttgir, &self.llir])
            .filter_map(|(name, text)| Some((name, text.as_deref()?)))
            .collect()
    }

    fn is_complete(&self) -> bool {
        self.ttgir.is_some() && self.llir.is_some()
    }
}

/// Compiles through an on-disk cache, honouring an [`Environment`]. Needs no GPU.
#[derive(Clone, Debug)]
pub struct Compiler {
    cache: Option<Cache>,
    environment: Environment,
}

impl Compiler {
    /// The default cache (`$TRITIUM_CACHE_DIR`, else `~/.cache/tritium`) and the process
    /// environment.
    pub fn new() -> Result<Compiler, Error> {
        Ok(Compiler::with_cache(
            Some(Cache::open_default()?),
            Environment::from_env(),
        ))
    }

    /// A compiler with the given cache (`None`: none) and environment.
    pub fn with_cache(cache: Option<Cache>, environment: Environment) -> Compiler {
        Compiler { cache, environment }
    }

    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    /// The options `request` compiles with once the environment is applied: its debugging
    /// switches added, line tables off under `TRITON_DISABLE_LINE_INFO`, the stages kept when
    /// they are dumped.
    pub fn effective_options(&self, request: &Request) -> CompileOptions {
        let env = &self.environment;
        let mut options = request.options.clone();
        let debug = &mut options.debug;
        debug.dump_ir = debug.dump_ir.take().or_else(|| env.debug.dump_ir.clone());
        debug.pass_timing |= env.debug.pass_timing;
        debug.dump_llvm_ir |= env.debug.dump_llvm_ir;
        debug.reproducer = debug
            .reproducer
            .take()
            .or_else(|| env.debug.reproducer.clone());
        debug.debug |= env.debug.debug;
        options.line_info &= !env.disable_line_info;
        options.keep_intermediates |= env.kernel_dump_dir.is_some();
        options
    }

    /// Compiles `request`, or takes its result from the cache.
    pub fn compile(&self, request: &Request) -> Result<Output, Error> {
        let effective = Request {
            options: self.effective_options(request),
            ..request.clone()
        };
        let key = effective.cache_key();
        let bypass = request.always_compile
            || effective.options.keep_intermediates
            || self.environment.bypasses_cache();
        if let Some(entry) = self
            .cache
            .as_ref()
            .filter(|_| !bypass)
            .and_then(|c| c.get(&key))
        {
            let stages = if request.keep_stages {
                Stages::from_entry(&entry)
            } else {
                Stages::default()
            };
            // An entry written without the stages is compiled again when they are asked for.
            if !request.keep_stages || stages.is_complete() {
                tracing::debug!(target: "tritium", key, "cache hit");
                return Ok(Output {
                    ptx: entry.ptx,
                    metadata: entry.metadata,
                    compiled: None,
                    times: StageTimes::default(),
                    cached: true,
                    stages,
                });
            }
            if let Some(cache) = &self.cache {
                cache.remove(&key);
            }
        }
        let mut effective = effective;
        effective.options.keep_intermediates |= request.keep_stages;
        if let Some(path) = &effective.options.debug.reproducer {
            // A reproducer left by an earlier run would be taken for this one's.
            let _ = std::fs::remove_file(path);
        }
        let mut times = StageTimes::default();
        let compiled = compile_request(&effective, &mut times)?;
        let metadata = kernel_metadata(&compiled, &key, &effective.options)?;
        let stages = if request.keep_stages {
            Stages::from_compiled(&compiled)
        } else {
            Stages::default()
        };
        if let Some(cache) = &self.cache {
            cache.put_with_extras(
                &key,
                &compiled.ptx,
                &metadata.to_json_line(),
                &stages.files(),
            )?;
        }
        if let Some(dir) = &self.environment.kernel_dump_dir {
            dump_stages(&dir.join(&key), &effective, &compiled, &metadata)?;
        }
        Ok(Output {
            ptx: compiled.ptx.clone(),
            metadata,
            compiled: Some(compiled),
            times,
            cached: false,
            stages,
        })
    }
}

fn compile_request(request: &Request, times: &mut StageTimes) -> Result<Compiled, CompileError> {
    let filename = &request.filename;
    match &request.source {
        Source::Ir(text) => compile_timed(text, filename, &request.options, times),
        Source::Python {
            text,
            kernel,
            signature,
        } => compile_built(
            |context| {
                // The module built has no target yet: the options' (default sm_90a) decides.
                let capability = request.options.arch.map_or(90, |arch| arch.capability);
                let options = tritium_frontend::BuildOptions {
                    debug: request.options.debug.debug,
                    ..tritium_frontend::BuildOptions::for_capability(capability)
                };
                tritium_frontend::build_with_modules(
                    context,
                    text,
                    filename,
                    kernel.as_deref(),
                    signature,
                    options,
                    &request.other_modules,
                )
                .map_err(|e| CompileError::Source(e.to_string()))
            },
            filename,
            &request.options,
            times,
        ),
    }
}

/// `K.json` of a compiled kernel: Triton's fields for its target, the compilation's values.
pub fn kernel_metadata(
    compiled: &Compiled,
    hash: &str,
    options: &CompileOptions,
) -> Result<KernelMetadata, Error> {
    let debug = options.debug.debug;
    let host_descriptors = compiled
        .host_descriptors
        .iter()
        .map(|d| serde_json::from_value(d.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::Runtime(RuntimeError::Metadata(format!(
                "internal error: a host descriptor the compiler described: {e}"
            )))
        })?;
    Ok(KernelMetadata {
        hash: hash.to_owned(),
        num_stages: compiled.num_stages,
        ptx_version: Some(compiled.ptx_version),
        debug,
        enable_assertions: debug,
        shared: compiled.shared as u32,
        signature: compiled
            .signature
            .iter()
            .filter_map(|ty| ty.parse().ok())
            .collect(),
        arg_names: compiled.arg_names.clone(),
        global_scratch_size: compiled.global_scratch_size as u32,
        global_scratch_align: compiled.global_scratch_align.max(1) as u32,
        tensordesc_meta: compiled.tensordesc_meta.clone(),
        virtual_programs: compiled.virtual_programs,
        host_descriptors,
        ..KernelMetadata::for_cuda(&compiled.name, compiled.num_warps, compiled.arch.capability)
    })
}

/// Writes `text` to `path` atomically: readers see the old file or the new one, never a part.
pub fn write_atomic(path: &Path, text: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    file.write_all(text).map_err(|e| Error::io(path, e))?;
    file.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Assembles `ptx` with `ptxas` (for the `.target` it names, with line tables, as Triton runs it);
/// `None` when `ptxas` is not on PATH.
pub fn assemble_cubin(ptx: &str) -> Result<Option<Vec<u8>>, Error> {
    let target = ptx
        .lines()
        .find_map(|line| line.trim().strip_prefix(".target "))
        .and_then(|targets| targets.split(',').next())
        .map(str::trim)
        .ok_or_else(|| Error::Usage("the PTX names no .target".into()))?;
    let dir = tempfile::tempdir().map_err(|e| Error::io(&std::env::temp_dir(), e))?;
    let input = dir.path().join("kernel.ptx");
    let output = dir.path().join("kernel.cubin");
    std::fs::write(&input, ptx).map_err(|e| Error::io(&input, e))?;
    let run = std::process::Command::new("ptxas")
        .arg("-lineinfo")
        .arg(format!("-arch={target}"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output();
    match run {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(Error::Usage(format!("cannot run ptxas: {error}"))),
        Ok(run) if !run.status.success() => Err(Error::Usage(format!(
            "ptxas failed ({}):\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr).trim_end()
        ))),
        Ok(_) => Ok(Some(
            std::fs::read(&output).map_err(|e| Error::io(&output, e))?,
        )),
    }
}

/// Triton's kernel dump: `DIR/NAME.source` (the input), `.ttir`, `.ttgir`, `.llir` (LLVM IR),
/// `.llir.mlir` (the LLVM dialect), `.ptx` and `.json`.
fn dump_stages(
    dir: &Path,
    request: &Request,
    compiled: &Compiled,
    metadata: &KernelMetadata,
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = &compiled.name;
    let json = metadata.to_json_line();
    let stages = [
        ("source", Some(request.text())),
        ("ttir", compiled.ttir.as_deref()),
        ("ttgir", compiled.ttgir.as_deref()),
        ("llir.mlir", compiled.llvm_dialect.as_deref()),
        ("llir", compiled.llvm_ir.as_deref()),
        ("ptx", Some(compiled.ptx.as_str())),
        ("json", Some(json.as_str())),
    ];
    for (extension, text) in stages {
        if let Some(text) = text {
            write_atomic(&dir.join(format!("{name}.{extension}")), text.as_bytes())?;
        }
    }
    eprintln!("tritium: dumped the stages of {name} to {}", dir.display());
    Ok(())
}

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
    compiler: Compiler,
}

impl Jit {
    /// Device 0, the default cache directory and the process environment.
    pub fn new() -> Result<Jit, Error> {
        let device = Device::new(0)?;
        Ok(Jit {
            device,
            compiler: Compiler::new()?,
        })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn compiler(&self) -> &Compiler {
        &self.compiler
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
    pub fn load(&self, ir: &str, name: &str, options: &JitOptions) -> Result<Kernel, Error> {
        let arch = Arch::parse(&self.arch(options)).map_err(CompileError::Options)?;
        let compile_options = CompileOptions {
            num_warps: Some(options.num_warps),
            num_stages: Some(options.num_stages),
            arch: Some(arch),
            line_info: true,
            ..Default::default()
        };
        let output = self
            .compiler
            .compile(&Request::ir(ir, name, compile_options))?;
        Ok(Kernel::from_ptx(
            &self.device,
            &output.ptx,
            output.metadata,
        )?)
    }

    /// [`Jit::load`] of a file.
    pub fn load_file(&self, path: &str, options: &JitOptions) -> Result<Kernel, Error> {
        let ir = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.into(),
            source,
        })?;
        self.load(&ir, path, options)
    }
}
