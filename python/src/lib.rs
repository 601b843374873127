//! `tritium._tritium`: the native half of the Python package (`import tritium`).
//!
//! The Python side (`python/tritium`) finds a kernel's source, binds and specializes the
//! arguments of a call and keeps the in-memory cache; this module compiles through
//! [`tritium::Compiler`] (the front end, every stage and the on-disk cache), compiles several
//! requests at once on a thread pool ([`compile_many`], for autotuning: each compilation has its
//! own MLIR context), and loads and launches kernels through `tritium-runtime` on a stream that
//! PyTorch owns. Every failure is a Python exception: [`CompilationError`] for the compiler,
//! [`NoGpuError`] for a machine without a driver or GPU, [`DriverError`] for the rest.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyTuple};
use rayon::prelude::*;
use tritium::{Arch, CompileOptions, Compiler, Request};
use tritium_runtime::{KernelArg, RuntimeError};

create_exception!(
    _tritium,
    CompilationError,
    PyException,
    "The kernel does not compile: the message has the file:line:col of the Python source."
);
create_exception!(
    _tritium,
    NoGpuError,
    PyRuntimeError,
    "No CUDA driver or no GPU: kernels compile, but cannot run."
);
create_exception!(
    _tritium,
    DriverError,
    PyRuntimeError,
    "A CUDA driver call failed (module load, launch, ...)."
);

fn runtime_err(error: RuntimeError) -> PyErr {
    if error.is_unavailable() {
        NoGpuError::new_err(error.to_string())
    } else {
        DriverError::new_err(error.to_string())
    }
}

fn tritium_err(error: tritium::Error) -> PyErr {
    match error {
        tritium::Error::Runtime(e) => runtime_err(e),
        other => CompilationError::new_err(other.to_string()),
    }
}

/// One compilation: a Python module's text, the kernel, its specialization and options.
#[pyclass(module = "tritium._tritium", frozen, from_py_object)]
#[derive(Clone)]
struct CompileRequest {
    source: String,
    filename: String,
    kernel: String,
    signature: String,
    key_source: Option<String>,
    num_warps: u32,
    num_stages: u32,
    arch: String,
    debug: bool,
    other_modules: Vec<(String, String, String)>,
    persistent_programs: bool,
    descriptor_loads: bool,
}

#[pymethods]
impl CompileRequest {
    /// `source` is the module's text (named `filename` in locations and errors), `signature`
    /// the AOT-style specialization (`"*fp32:16, i32, 1024"`, docs/frontend.md), `key_source`
    /// what identifies the source in the cache key (default: the whole text), `other_modules`
    /// the `(name, text, filename)` of each other module whose `@jit` functions it imports,
    /// `persistent_programs` whether a dot kernel may run its programs persistently,
    /// `descriptor_loads` whether a dot loop's pointer tiles may be read through TMA
    /// descriptors (sm_90 and later).
    #[new]
    #[pyo3(signature = (source, filename, kernel, signature, key_source=None, num_warps=4, num_stages=3, arch="sm_90a".to_owned(), debug=false, other_modules=Vec::new(), persistent_programs=false, descriptor_loads=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        source: String,
        filename: String,
        kernel: String,
        signature: String,
        key_source: Option<String>,
        num_warps: u32,
        num_stages: u32,
        arch: String,
        debug: bool,
        other_modules: Vec<(String, String, String)>,
        persistent_programs: bool,
        descriptor_loads: bool,
    ) -> CompileRequest {
        CompileRequest {
            source,
            filename,
            kernel,
            signature,
            key_source,
            num_warps,
            num_stages,
            arch,
            debug,
            other_modules,
            persistent_programs,
            descriptor_loads,
        }
    }
}

impl CompileRequest {
    fn request(&self) -> Result<Request, tritium::Error> {
        let arch = Arch::parse(&self.arch).map_err(tritium::CompileError::Options)?;
        let mut options = CompileOptions {
            num_warps: Some(self.num_warps),
            num_stages: Some(self.num_stages),
            arch: Some(arch),
            line_info: true,
            persistent_programs: self.persistent_programs,
            descriptor_loads: self.descriptor_loads,
            ..Default::default()
        };
        options.debug.debug = self.debug;
        let mut request = Request::python(
            self.source.clone(),
            self.filename.clone(),
            Some(&self.kernel),
            self.signature.clone(),
            options,
        );
        request.key_source = self.key_source.clone();
        request.keep_stages = true;
        request.other_modules = self
            .other_modules
            .iter()
            .map(|(name, source, file)| tritium_frontend::OtherModule {
                name: name.clone(),
                source: source.clone(),
                file: file.clone(),
            })
            .collect();
        Ok(request)
    }

    fn compile(&self) -> Result<Compiled, tritium::Error> {
        let compiler = Compiler::new()?;
        let output = compiler.compile(&self.request()?)?;
        Ok(Compiled {
            name: output.metadata.name.clone(),
            hash: output.metadata.hash.clone(),
            metadata_json: output.metadata.to_json(),
            ptx: output.ptx,
            ttir: output.stages.ttir,
            ttgir: output.stages.ttgir,
            llir: output.stages.llir,
            cached: output.cached,
        })
    }
}

/// A compiled kernel: its PTX, the stages' IR and `K.json`.
#[pyclass(module = "tritium._tritium", frozen, get_all)]
struct Compiled {
    name: String,
    hash: String,
    metadata_json: String,
    ptx: String,
    ttir: Option<String>,
    ttgir: Option<String>,
    llir: Option<String>,
    /// The result came from the on-disk cache.
    cached: bool,
}

/// Compiles one request (through the on-disk cache), without holding the GIL.
#[pyfunction]
fn compile(py: Python<'_>, request: CompileRequest) -> PyResult<Compiled> {
    py.detach(|| request.compile()).map_err(tritium_err)
}

/// Compiles every request on a pool of `threads` threads (default: one per core), each
/// compilation in its own MLIR context; returns, in order, a `Compiled` or the
/// `CompilationError` of each.
#[pyfunction]
#[pyo3(signature = (requests, threads=None))]
fn compile_many(
    py: Python<'_>,
    requests: Vec<CompileRequest>,
    threads: Option<usize>,
) -> PyResult<Vec<Py<PyAny>>> {
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, requests.len().max(1));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("tritium-compile-{i}"))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start compile threads: {e}")))?;
    let results: Vec<Result<Compiled, tritium::Error>> =
        py.detach(|| pool.install(|| requests.par_iter().map(CompileRequest::compile).collect()));
    results
        .into_iter()
        .map(|result| match result {
            Ok(compiled) => Ok(Py::new(py, compiled)?.into_any()),
            Err(error) => Ok(tritium_err(error).into_value(py).into_any()),
        })
        .collect()
}

/// The compiler's identity (part of every cache key).
#[pyfunction]
fn compiler_version() -> String {
    tritium::compiler_version()
}

/// The `triton.language` functions the front end compiles (`tritium.language` exposes them).
#[pyfunction]
fn language_functions() -> Vec<&'static str> {
    tritium_frontend::LANGUAGE_FUNCTIONS.to_vec()
}

/// The on-disk cache's directory (`$TRITIUM_CACHE_DIR`, else `~/.cache/tritium`).
#[pyfunction]
fn cache_dir() -> String {
    tritium_runtime::Cache::default_dir().display().to_string()
}

/// One GPU, through its primary context (the one PyTorch uses).
#[pyclass(module = "tritium._tritium", frozen)]
struct Device {
    inner: tritium_runtime::Device,
}

#[pymethods]
impl Device {
    /// Opens GPU `ordinal`; `NoGpuError` without a driver or GPU.
    #[new]
    fn new(ordinal: usize) -> PyResult<Device> {
        Ok(Device {
            inner: tritium_runtime::Device::new(ordinal).map_err(runtime_err)?,
        })
    }

    /// What kernels are compiled for: `sm_90a` on Hopper (its wgmma), else `sm_NN`.
    #[getter]
    fn arch(&self) -> String {
        let arch = self.inner.arch();
        if arch == "sm_90" {
            "sm_90a".to_owned()
        } else {
            arch
        }
    }

    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    #[getter]
    fn capability(&self) -> (u32, u32) {
        self.inner.compute_capability()
    }

    /// Shared memory one block may use, opting in (bytes).
    #[getter]
    fn max_shared(&self) -> u32 {
        self.inner.max_shared_per_block_optin()
    }

    #[getter]
    fn sm_count(&self) -> u32 {
        self.inner.sm_count()
    }

    /// The cubin the driver's JIT makes of `ptx` for this GPU (Triton's `asm["cubin"]`); with
    /// `threads` and `blocks_per_sm`, planned for that many blocks an SM (a loaded kernel's
    /// `occupancy_hint`).
    #[pyo3(signature = (ptx, threads=None, blocks_per_sm=None))]
    fn link_cubin<'py>(
        &self,
        py: Python<'py>,
        ptx: &str,
        threads: Option<u32>,
        blocks_per_sm: Option<u32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let cubin = self
            .inner
            .link_cubin(ptx, threads.zip(blocks_per_sm))
            .map_err(runtime_err)?;
        Ok(PyBytes::new(py, &cubin))
    }
}

/// How a launch argument is passed.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Ptr,
    I1,
    I32,
    I64,
    F32,
    F64,
    /// A host-side tensor descriptor (`tensordesc<fp16[64, 64]>`): passed from Python as
    /// `(base address, shape, strides, nan_padding)`, encoded here with the `tensordesc_meta`
    /// entry `meta` of the kernel, and launched as the `CUtensorMap` followed by the shape (i32)
    /// and strides (i64), as Triton does.
    Desc {
        meta: usize,
    },
}

impl Kind {
    fn parse(spelling: &str, descriptors: &mut usize) -> PyResult<Kind> {
        Ok(match spelling {
            s if s.starts_with("tensordesc<") => {
                *descriptors += 1;
                Kind::Desc {
                    meta: *descriptors - 1,
                }
            }
            s if s.starts_with('*') => Kind::Ptr,
            "i1" => Kind::I1,
            "i32" => Kind::I32,
            "i64" => Kind::I64,
            "fp32" | "f32" => Kind::F32,
            "fp64" | "f64" => Kind::F64,
            other => {
                return Err(PyValueError::new_err(format!(
                    "parameters of type {other} cannot be passed from Python"
                )));
            }
        })
    }
}

/// A kernel loaded on a device.
#[pyclass(module = "tritium._tritium", frozen)]
struct Kernel {
    inner: tritium_runtime::Kernel,
    device: tritium_runtime::Device,
    kinds: Vec<Kind>,
    arg_names: Vec<String>,
    /// Per descriptor parameter, what its `CUtensorMap` is encoded for.
    descriptor_meta: Vec<tritium_runtime::TensorDescMeta>,
}

#[pymethods]
impl Kernel {
    /// Loads `ptx` (described by `metadata_json`) on `device`; `kinds` are the runtime
    /// parameters' types in order (`*fp32`, `i32`, `i64`, `fp32`, `i1`) and `arg_names` their
    /// names, for error messages.
    #[new]
    fn new(
        py: Python<'_>,
        device: &Device,
        ptx: &str,
        metadata_json: &str,
        kinds: Vec<String>,
        arg_names: Vec<String>,
    ) -> PyResult<Kernel> {
        let mut descriptors = 0;
        let kinds = kinds
            .iter()
            .map(|k| Kind::parse(k, &mut descriptors))
            .collect::<PyResult<Vec<_>>>()?;
        let metadata =
            tritium_runtime::KernelMetadata::from_json(metadata_json).map_err(runtime_err)?;
        if metadata.tensordesc_meta.len() != descriptors {
            return Err(PyValueError::new_err(format!(
                "kernel {}: {descriptors} tensor descriptor parameters but {} tensordesc_meta entries",
                metadata.name,
                metadata.tensordesc_meta.len()
            )));
        }
        let descriptor_meta = metadata
            .tensordesc_meta
            .iter()
            .map(tritium_runtime::TensorDescMeta::from_json)
            .collect::<Result<Vec<_>, _>>()
            .map_err(runtime_err)?;
        let dev = device.inner.clone();
        let inner = py
            .detach(|| tritium_runtime::Kernel::from_ptx(&dev, ptx, metadata))
            .map_err(runtime_err)?;
        Ok(Kernel {
            inner,
            device: device.inner.clone(),
            kinds,
            arg_names,
            descriptor_meta,
        })
    }

    /// Registers per thread (of the first build, see `occupancy_n_regs`).
    #[getter]
    fn n_regs(&self) -> u32 {
        self.inner.attributes().num_regs
    }

    /// Spilled 4-byte registers per thread (local memory / 4, as Triton's `n_spills`).
    #[getter]
    fn n_spills(&self) -> u32 {
        self.inner.attributes().local_bytes / 4
    }

    /// The blocks an SM ptxas was asked to fit when the runtime kept a second build of the
    /// kernel for occupancy (`None`: built once), which launches over grids it suits run.
    #[getter]
    fn occupancy_hint(&self) -> Option<u32> {
        self.inner.occupancy_build().and_then(|a| a.occupancy_hint)
    }

    /// Registers per thread of that second build (`None`: built once).
    #[getter]
    fn occupancy_n_regs(&self) -> Option<u32> {
        self.inner.occupancy_build().map(|a| a.num_regs)
    }

    #[getter]
    fn max_threads(&self) -> u32 {
        self.inner.attributes().max_threads_per_block
    }

    /// Enqueues the kernel on `stream` (a raw `CUstream`; 0 for the legacy default stream)
    /// over a `gx * gy * gz` grid with the runtime arguments `args`: ints (device addresses for
    /// pointers), floats and bools; `dependent`: as a programmatic dependent launch (Triton's
    /// `launch_pdl=True`), `cooperative`: as a cooperative one (`launch_cooperative_grid=True`).
    #[pyo3(signature = (gx, gy, gz, stream, *args, scratch=None, dependent=false, cooperative=false))]
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        gx: u32,
        gy: u32,
        gz: u32,
        stream: usize,
        args: &Bound<'_, PyTuple>,
        scratch: Option<u64>,
        dependent: bool,
        cooperative: bool,
    ) -> PyResult<()> {
        let name = &self.inner.metadata().name;
        if args.len() != self.kinds.len() {
            return Err(PyTypeError::new_err(format!(
                "kernel {name}: {} runtime arguments given, {} expected",
                args.len(),
                self.kinds.len()
            )));
        }
        // The descriptors' tensor maps first: the argument list borrows them.
        let mut maps = Vec::new();
        for (i, (arg, kind)) in args.iter().zip(&self.kinds).enumerate() {
            if let Kind::Desc { meta } = kind {
                let arg_name = self.arg_names.get(i).map_or("?", String::as_str);
                let (base, shape, strides, nan): (u64, Vec<u64>, Vec<u64>, bool) =
                    arg.extract().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "kernel {name}: argument {arg_name}: expected a TensorDescriptor"
                        ))
                    })?;
                let map = tritium_runtime::TensorMap::encode(
                    &self.device,
                    base,
                    &shape,
                    &strides,
                    &self.descriptor_meta[*meta],
                    nan,
                )
                .map_err(|e| {
                    PyValueError::new_err(format!("kernel {name}: argument {arg_name}: {e}"))
                })?;
                maps.push((map, shape, strides));
            }
        }
        let mut maps = maps.iter();
        let mut values = Vec::with_capacity(args.len());
        for (i, (arg, kind)) in args.iter().zip(&self.kinds).enumerate() {
            let bad = |want: &str| {
                let arg_name = self.arg_names.get(i).map_or("?", String::as_str);
                let got = arg
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_owned(), |n| n.to_string());
                PyTypeError::new_err(format!(
                    "kernel {name}: argument {arg_name}: expected {want}, got {got}"
                ))
            };
            let value = match kind {
                Kind::Desc { .. } => {
                    let (map, shape, strides) = maps.next().expect("one map per descriptor");
                    values.push(KernelArg::TensorMap(map));
                    for &d in shape {
                        values.push(KernelArg::I32(
                            i32::try_from(d).map_err(|_| bad("a shape of int32s"))?,
                        ));
                    }
                    for &d in strides {
                        values.push(KernelArg::I64(
                            i64::try_from(d).map_err(|_| bad("strides of int64s"))?,
                        ));
                    }
                    continue;
                }
                Kind::Ptr => KernelArg::Ptr(arg.extract::<u64>().map_err(|_| bad("a pointer"))?),
                Kind::I1 => KernelArg::I1(arg.extract::<bool>().map_err(|_| bad("a bool"))?),
                Kind::I32 => {
                    if arg.is_instance_of::<PyFloat>() {
                        return Err(bad("an int"));
                    }
                    let v = arg.extract::<i64>().map_err(|_| bad("an int"))?;
                    KernelArg::I32(i32::try_from(v).map_err(|_| bad("an int32"))?)
                }
                Kind::I64 => {
                    if arg.is_instance_of::<PyFloat>() {
                        return Err(bad("an int"));
                    }
                    KernelArg::I64(arg.extract::<i64>().map_err(|_| bad("an int64"))?)
                }
                Kind::F32 | Kind::F64 => {
                    if !(arg.is_instance_of::<PyFloat>()
                        || arg.is_instance_of::<PyInt>()
                        || arg.is_instance_of::<PyBool>())
                    {
                        return Err(bad("a float"));
                    }
                    let v = arg.extract::<f64>().map_err(|_| bad("a float"))?;
                    match kind {
                        Kind::F32 => KernelArg::F32(v as f32),
                        _ => KernelArg::F64(v),
                    }
                }
            };
            values.push(value);
        }
        // SAFETY: `stream` is PyTorch's current stream of this device (or null, the legacy
        // default stream), which outlives the enqueue; the driver copies the arguments.
        let stream = unsafe {
            tritium_runtime::Stream::from_raw(&self.device, stream as *mut std::ffi::c_void)
        };
        self.inner
            .launch_with(
                &stream,
                (gx, gy, gz),
                &values,
                scratch,
                tritium_runtime::LaunchFlags {
                    programmatic_dependent: dependent,
                    cooperative,
                },
            )
            .map_err(|e| match e {
                RuntimeError::InvalidArgument(m) | RuntimeError::Signature(m) => {
                    PyValueError::new_err(format!("kernel {name}: {m}"))
                }
                other => runtime_err(other),
            })
    }
}

/// The native module.
#[pymodule]
fn _tritium(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CompilationError", py.get_type::<CompilationError>())?;
    m.add("NoGpuError", py.get_type::<NoGpuError>())?;
    m.add("DriverError", py.get_type::<DriverError>())?;
    m.add_class::<CompileRequest>()?;
    m.add_class::<Compiled>()?;
    m.add_class::<Device>()?;
    m.add_class::<Kernel>()?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(compile_many, m)?)?;
    m.add_function(wrap_pyfunction!(compiler_version, m)?)?;
    m.add_function(wrap_pyfunction!(cache_dir, m)?)?;
    m.add_function(wrap_pyfunction!(language_functions, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
