//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong in this crate. No entry point panics: a missing driver, a machine
/// without a GPU, a PTX that does not JIT, or a bad argument list all come back as one of these.
#[derive(Debug)]
pub enum RuntimeError {
    /// The CUDA driver library (`libcuda.so.1`) could not be loaded, lacks a symbol this crate
    /// needs, or failed to initialise.
    NoDriver(String),
    /// The driver loaded but there is no (usable) GPU, or the requested ordinal does not exist.
    NoDevice(String),
    /// A CUDA driver call failed.
    Driver {
        /// The driver function, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The numeric `CUresult`.
        code: u32,
        /// The driver's name and description of the error.
        message: String,
    },
    /// Loading a module failed; `log` is the JIT's error log (may be empty).
    ModuleLoad {
        /// Driver error code.
        code: u32,
        /// The driver's name and description of the error.
        message: String,
        /// The PTX JIT's error log.
        log: String,
    },
    /// The arguments passed to a launch do not match the kernel's signature.
    Signature(String),
    /// Kernel metadata could not be parsed or is inconsistent.
    Metadata(String),
    /// A caller-side mistake: wrong buffer size, zero grid, and the like.
    InvalidArgument(String),
    /// A file system error.
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// `Result` with [`RuntimeError`].
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;

impl RuntimeError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        RuntimeError::Io {
            path: path.into(),
            source,
        }
    }

    /// True for [`RuntimeError::NoDriver`] and [`RuntimeError::NoDevice`]: the machine cannot
    /// run kernels at all (tests and the GPU check skip rather than fail on these).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, RuntimeError::NoDriver(_) | RuntimeError::NoDevice(_))
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::NoDriver(m) => write!(f, "no CUDA driver: {m}"),
            RuntimeError::NoDevice(m) => write!(f, "no CUDA device: {m}"),
            RuntimeError::Driver {
                call,
                code,
                message,
            } => write!(f, "{call} failed: {message} (CUresult {code})"),
            RuntimeError::ModuleLoad { code, message, log } => {
                write!(f, "module load failed: {message} (CUresult {code})")?;
                let log = log.trim();
                if !log.is_empty() {
                    write!(f, "\nJIT log:\n{log}")?;
                }
                Ok(())
            }
            RuntimeError::Signature(m) => write!(f, "signature mismatch: {m}"),
            RuntimeError::Metadata(m) => write!(f, "bad kernel metadata: {m}"),
            RuntimeError::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            RuntimeError::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RuntimeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
