//! The CUDA driver, devices, streams, events, device memory and timing.
//!
//! The driver is reached through cudarc's raw bindings (`cudarc::driver::sys`), which `dlopen`
//! `libcuda.so` on first use. cudarc panics when the library or a symbol is missing, so this
//! module checks both itself before the first driver call (see [`driver_version`]); every entry
//! point then returns [`RuntimeError::NoDriver`] / [`RuntimeError::NoDevice`] on a machine
//! without a driver or GPU instead of panicking.

use std::ffi::{CStr, c_void};
use std::sync::{Arc, OnceLock};

use cudarc::driver::sys;

use crate::error::{Result, RuntimeError};
use crate::metadata::ElemType;

/// Driver symbols this crate calls. All exist in every driver since CUDA 12.0 (the CUDA 13
/// driver still exports them); they are checked up front so a missing one is an error, not a
/// panic inside cudarc.
const REQUIRED_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuDriverGetVersion",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuModuleLoadDataEx",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    "cuMemsetD8_v2",
    "cuMemsetD8Async",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime",
    "cuEventDestroy_v2",
];

/// Outcome of loading and initialising the driver, computed once per process.
enum DriverState {
    Ready { version: i32 },
    NoDriver(String),
    NoDevice(String),
}

static DRIVER: OnceLock<DriverState> = OnceLock::new();
static HAS_ELAPSED_V2: OnceLock<bool> = OnceLock::new();
static HAS_LAUNCH_EX: OnceLock<bool> = OnceLock::new();

/// Whether the driver exports `cuLaunchKernelEx` (launch attributes: programmatic dependent
/// launch); checked with the other symbols when the driver loads.
pub(crate) fn has_launch_ex() -> bool {
    *HAS_LAUNCH_EX.get().unwrap_or(&false)
}

fn has_symbol(name: &str) -> bool {
    // SAFETY: only called after `is_culib_present()` returned true, so `culib()` finds the
    // library and does not panic; looking a symbol up has no side effects.
    unsafe {
        sys::culib()
            .get::<unsafe extern "C" fn()>(name.as_bytes())
            .is_ok()
    }
}

fn load_driver() -> DriverState {
    // SAFETY: dlopen/dlclose of the candidate library names; no driver function is called.
    if !unsafe { sys::is_culib_present() } {
        return DriverState::NoDriver(
            "the CUDA driver library libcuda.so.1 could not be loaded (is the NVIDIA driver \
             installed, and is its directory on the loader path / LD_LIBRARY_PATH?)"
                .into(),
        );
    }
    if let Some(missing) = REQUIRED_SYMBOLS.iter().find(|s| !has_symbol(s)) {
        return DriverState::NoDriver(format!(
            "libcuda lacks `{missing}`: the CUDA driver is too old (CUDA 12 or newer needed)"
        ));
    }
    HAS_ELAPSED_V2.get_or_init(|| has_symbol("cuEventElapsedTime_v2"));
    HAS_LAUNCH_EX.get_or_init(|| has_symbol("cuLaunchKernelEx"));
    // SAFETY: the symbol exists (checked above); cuInit(0) is always a valid call.
    let res = unsafe { sys::cuInit(0) };
    match res {
        sys::CUresult::CUDA_SUCCESS => {}
        sys::CUresult::CUDA_ERROR_NO_DEVICE => {
            return DriverState::NoDevice(format!(
                "the CUDA driver found no GPU ({})",
                error_text(res)
            ));
        }
        _ => {
            return DriverState::NoDriver(format!(
                "the CUDA driver failed to initialise: cuInit: {}",
                error_text(res)
            ));
        }
    }
    let mut version = 0;
    // SAFETY: valid out pointer.
    let res = unsafe { sys::cuDriverGetVersion(&mut version) };
    if res != sys::CUresult::CUDA_SUCCESS {
        return DriverState::NoDriver(format!("cuDriverGetVersion: {}", error_text(res)));
    }
    DriverState::Ready { version }
}

/// Loads and initialises the driver (once per process) and returns its version as CUDA encodes
/// it (e.g. `13000` for 13.0). Without `libcuda` this is [`RuntimeError::NoDriver`], without a
/// GPU [`RuntimeError::NoDevice`]; it never panics.
pub fn driver_version() -> Result<i32> {
    let state = DRIVER.get_or_init(|| {
        std::panic::catch_unwind(load_driver).unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("panic while loading libcuda");
            DriverState::NoDriver(msg.to_string())
        })
    });
    match state {
        DriverState::Ready { version } => Ok(*version),
        DriverState::NoDriver(m) => Err(RuntimeError::NoDriver(m.clone())),
        DriverState::NoDevice(m) => Err(RuntimeError::NoDevice(m.clone())),
    }
}

/// `"CUDA_ERROR_X: description"` for a driver result (the driver must be loaded).
pub(crate) fn error_text(res: sys::CUresult) -> String {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let mut desc: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: the driver is loaded whenever a CUresult exists; out pointers are valid, and the
    // strings returned are static.
    unsafe {
        let name = if sys::cuGetErrorName(res, &mut name) == sys::CUresult::CUDA_SUCCESS
            && !name.is_null()
        {
            CStr::from_ptr(name).to_string_lossy().into_owned()
        } else {
            format!("{res:?}")
        };
        let desc = if sys::cuGetErrorString(res, &mut desc) == sys::CUresult::CUDA_SUCCESS
            && !desc.is_null()
        {
            CStr::from_ptr(desc).to_string_lossy().into_owned()
        } else {
            String::new()
        };
        if desc.is_empty() {
            name
        } else {
            format!("{name}: {desc}")
        }
    }
}

/// Turns a driver result into a `Result`, naming the call.
pub(crate) fn check(res: sys::CUresult, call: &'static str) -> Result<()> {
    if res == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(RuntimeError::Driver {
            call,
            code: res as u32,
            message: error_text(res),
        })
    }
}

/// Number of CUDA devices.
pub fn device_count() -> Result<usize> {
    driver_version()?;
    let mut n = 0;
    // SAFETY: driver initialised; valid out pointer.
    check(unsafe { sys::cuDeviceGetCount(&mut n) }, "cuDeviceGetCount")?;
    Ok(n.max(0) as usize)
}

struct DeviceInner {
    ordinal: usize,
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
    name: String,
    cc: (u32, u32),
    sm_count: u32,
    total_mem: usize,
    max_shared_optin: u32,
    sm_limits: SmLimits,
    driver_version: i32,
}

/// The JIT options asking ptxas to fit `blocks` blocks of `threads` threads on an SM at once
/// (`CU_JIT_MIN_CTA_PER_SM`, the JIT's `.minnctapersm`; it takes effect only with the block size
/// beside it), values in the pointer-sized slots the driver reads them from.
pub(crate) fn occupancy_jit_options(
    (threads, blocks): (u32, u32),
) -> [(sys::CUjit_option, *mut c_void); 2] {
    [
        (
            sys::CUjit_option::CU_JIT_MIN_CTA_PER_SM,
            blocks as usize as *mut c_void,
        ),
        (
            sys::CUjit_option::CU_JIT_MAX_THREADS_PER_BLOCK,
            threads as usize as *mut c_void,
        ),
    ]
}

/// What one SM holds at once, as the driver reports it (each 0 where it reports nothing): the
/// limits a kernel's occupancy is computed from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SmLimits {
    /// 32-bit registers an SM has.
    pub registers: u32,
    /// Shared memory an SM has, bytes.
    pub shared_bytes: u32,
    /// Shared memory the system reserves for each resident block, bytes.
    pub reserved_shared_per_block: u32,
    /// Threads resident at once.
    pub threads: u32,
    /// Blocks resident at once.
    pub blocks: u32,
}

impl SmLimits {
    /// The blocks of `threads` threads using `shared` bytes of shared memory an SM could hold
    /// if registers were no limit; `None` when the driver did not report the limits.
    pub fn blocks_without_registers(&self, threads: u32, shared: u32) -> Option<u32> {
        if self.threads == 0 || self.blocks == 0 || self.shared_bytes == 0 || threads == 0 {
            return None;
        }
        let by_threads = self.threads / threads;
        let by_shared = if shared == 0 {
            u32::MAX
        } else {
            self.shared_bytes / (shared + self.reserved_shared_per_block)
        };
        Some(by_threads.min(by_shared).min(self.blocks))
    }
}

// SAFETY: the driver API is thread-safe; the context handle is only used after making it
// current on the calling thread.
unsafe impl Send for DeviceInner {}
unsafe impl Sync for DeviceInner {}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        // SAFETY: balances the cuDevicePrimaryCtxRetain in `Device::new`.
        unsafe {
            sys::cuDevicePrimaryCtxRelease_v2(self.dev);
        }
    }
}

/// One GPU, through its primary context. Cheap to clone; buffers, streams, modules and kernels
/// keep their device alive.
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("ordinal", &self.inner.ordinal)
            .field("name", &self.inner.name)
            .field("arch", &self.arch())
            .finish()
    }
}

impl Device {
    /// Opens GPU number `ordinal` (0 for the first), retaining its primary context and making it
    /// current on this thread.
    pub fn new(ordinal: usize) -> Result<Device> {
        let driver_version = driver_version()?;
        let count = device_count()?;
        if count == 0 {
            return Err(RuntimeError::NoDevice(
                "the CUDA driver reports 0 devices".into(),
            ));
        }
        if ordinal >= count {
            return Err(RuntimeError::NoDevice(format!(
                "device {ordinal} requested but only {count} present"
            )));
        }
        let mut dev: sys::CUdevice = 0;
        // SAFETY: valid out pointers, ordinal in range.
        unsafe {
            check(sys::cuDeviceGet(&mut dev, ordinal as i32), "cuDeviceGet")?;
        }
        let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
            let mut v = 0;
            // SAFETY: valid out pointer and device.
            check(
                unsafe { sys::cuDeviceGetAttribute(&mut v, a, dev) },
                "cuDeviceGetAttribute",
            )?;
            Ok(v)
        };
        use sys::CUdevice_attribute as A;
        let major = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let sm_count = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let max_shared_optin = attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
        // Only tuning reads these: a driver that does not report one leaves it 0.
        let limit = |a| attr(a).map_or(0, |v| v.max(0) as u32);
        let sm_limits = SmLimits {
            registers: limit(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
            shared_bytes: limit(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
            reserved_shared_per_block: limit(
                A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            ),
            threads: limit(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
            blocks: limit(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
        };
        let mut name_buf = [0 as std::ffi::c_char; 256];
        let mut total_mem = 0usize;
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: buffers and out pointers are valid for the sizes given.
        unsafe {
            check(
                sys::cuDeviceGetName(name_buf.as_mut_ptr(), name_buf.len() as i32, dev),
                "cuDeviceGetName",
            )?;
            check(
                sys::cuDeviceTotalMem_v2(&mut total_mem, dev),
                "cuDeviceTotalMem",
            )?;
            check(
                sys::cuDevicePrimaryCtxRetain(&mut ctx, dev),
                "cuDevicePrimaryCtxRetain",
            )?;
        }
        // SAFETY: the driver NUL-terminates the name within the buffer.
        let name = unsafe { CStr::from_ptr(name_buf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let device = Device {
            inner: Arc::new(DeviceInner {
                ordinal,
                dev,
                ctx,
                name,
                cc: (major.max(0) as u32, minor.max(0) as u32),
                sm_count: sm_count.max(0) as u32,
                total_mem,
                max_shared_optin: max_shared_optin.max(0) as u32,
                sm_limits,
                driver_version,
            }),
        };
        device.bind()?;
        Ok(device)
    }

    /// Makes this device's context current on the calling thread. Every operation does this
    /// itself, so it is only needed before calling the driver directly.
    pub fn bind(&self) -> Result<()> {
        // SAFETY: the context is retained for as long as `self` lives.
        check(
            unsafe { sys::cuCtxSetCurrent(self.inner.ctx) },
            "cuCtxSetCurrent",
        )
    }

    /// Whether both handles use the same CUDA context (the same GPU's primary context).
    pub fn same_context(&self, other: &Device) -> bool {
        self.inner.ctx == other.inner.ctx
    }

    /// The ordinal this device was opened with.
    pub fn ordinal(&self) -> usize {
        self.inner.ordinal
    }

    /// Marketing name, e.g. `NVIDIA H200`.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Compute capability `(major, minor)`, e.g. `(9, 0)`.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.cc
    }

    /// `sm_XY` for the compute capability, e.g. `sm_90` (PTX may target `sm_90a` on it).
    pub fn arch(&self) -> String {
        format!("sm_{}{}", self.inner.cc.0, self.inner.cc.1)
    }

    /// Number of streaming multiprocessors.
    pub fn sm_count(&self) -> u32 {
        self.inner.sm_count
    }

    /// What one SM holds at once (registers, shared memory, threads, blocks).
    pub fn sm_limits(&self) -> SmLimits {
        self.inner.sm_limits
    }

    /// Device memory in bytes.
    pub fn total_memory(&self) -> usize {
        self.inner.total_mem
    }

    /// Largest dynamic shared memory a block may opt in to, in bytes.
    pub fn max_shared_per_block_optin(&self) -> u32 {
        self.inner.max_shared_optin
    }

    /// Driver version, e.g. `13000`.
    pub fn driver_version(&self) -> i32 {
        self.inner.driver_version
    }

    /// The cubin the driver's JIT makes of `ptx` for this device (what `cuModuleLoadData`
    /// would load): Triton's `asm["cubin"]`, without a CUDA toolkit. `occupancy`: (threads a
    /// block, blocks an SM) asked of ptxas, as [`crate::Module::load_ptx_for_occupancy`] does
    /// (a kernel's [`crate::KernelAttributes::occupancy_hint`]).
    pub fn link_cubin(&self, ptx: &str, occupancy: Option<(u32, u32)>) -> Result<Vec<u8>> {
        const LOG_BYTES: usize = 16 * 1024;
        // Not among the symbols a launch needs: checked here, so a driver without them still
        // runs kernels.
        const LINKER: [&str; 4] = [
            "cuLinkCreate_v2",
            "cuLinkAddData_v2",
            "cuLinkComplete",
            "cuLinkDestroy",
        ];
        if let Some(missing) = LINKER.iter().find(|s| !has_symbol(s)) {
            return Err(RuntimeError::NoDriver(format!(
                "libcuda lacks `{missing}`: no cubin can be made"
            )));
        }
        self.bind()?;
        let mut source = ptx.as_bytes().to_vec();
        source.push(0);
        let mut err_log = vec![0u8; LOG_BYTES];
        let mut opts = vec![
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // Option values are passed in pointer-sized slots; sizes and counts go in by value.
        let mut vals: Vec<*mut c_void> = vec![
            err_log.as_mut_ptr() as *mut c_void,
            LOG_BYTES as *mut c_void,
        ];
        for (opt, val) in occupancy.map(occupancy_jit_options).into_iter().flatten() {
            opts.push(opt);
            vals.push(val);
        }
        let failed = |res: sys::CUresult, log: &[u8]| {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            RuntimeError::ModuleLoad {
                code: res as u32,
                message: error_text(res),
                log: String::from_utf8_lossy(&log[..end]).into_owned(),
            }
        };
        let mut state: sys::CUlinkState = std::ptr::null_mut();
        // SAFETY: the context is current; the log buffer outlives the link state, which is
        // destroyed below on every path.
        let res = unsafe {
            sys::cuLinkCreate_v2(
                opts.len() as u32,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
                &mut state,
            )
        };
        if res != sys::CUresult::CUDA_SUCCESS {
            return Err(failed(res, &err_log));
        }
        // SAFETY: `state` is a live link state; `source` is NUL-terminated PTX of the given
        // size and outlives the call; the image `cuLinkComplete` returns is owned by `state` and
        // copied out before `state` is destroyed.
        unsafe {
            let res = sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                source.as_mut_ptr() as *mut c_void,
                source.len(),
                c"kernel.ptx".as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            let mut image: *mut c_void = std::ptr::null_mut();
            let mut size = 0usize;
            let res = if res == sys::CUresult::CUDA_SUCCESS {
                sys::cuLinkComplete(state, &mut image, &mut size)
            } else {
                res
            };
            let out = if res == sys::CUresult::CUDA_SUCCESS && !image.is_null() {
                Ok(std::slice::from_raw_parts(image as *const u8, size).to_vec())
            } else {
                Err(failed(res, &err_log))
            };
            sys::cuLinkDestroy(state);
            out
        }
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: context current.
        check(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")
    }

    /// The legacy default stream (synchronises with all blocking streams).
    pub fn default_stream(&self) -> Stream {
        Stream {
            device: self.clone(),
            raw: std::ptr::null_mut(),
            owned: false,
        }
    }

    /// A new stream. It is a blocking stream (flags 0): it orders with the default stream, so
    /// the synchronous copies of [`DeviceBuffer`] see its results.
    pub fn create_stream(&self) -> Result<Stream> {
        self.bind()?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: valid out pointer; context current.
        check(
            unsafe { sys::cuStreamCreate(&mut raw, 0) },
            "cuStreamCreate",
        )?;
        Ok(Stream {
            device: self.clone(),
            raw,
            owned: true,
        })
    }

    /// Allocates `bytes` bytes of device memory (contents undefined, no element type).
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer> {
        self.bind()?;
        let mut ptr: sys::CUdeviceptr = 0;
        if bytes > 0 {
            // SAFETY: valid out pointer; context current.
            check(unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) }, "cuMemAlloc")?;
        }
        Ok(DeviceBuffer {
            device: self.clone(),
            ptr,
            bytes,
            elem: None,
        })
    }

    /// Allocates room for `n` elements of `T`, tagged with `T`'s element type.
    pub fn alloc_elems<T: Element>(&self, n: usize) -> Result<DeviceBuffer> {
        let bytes = n.checked_mul(size_of::<T>()).ok_or_else(|| {
            RuntimeError::InvalidArgument(format!("{n} elements overflow usize bytes"))
        })?;
        Ok(self.alloc(bytes)?.with_elem(T::elem_type()))
    }

    /// Allocates a buffer holding a copy of `data`, tagged with `T`'s element type.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer> {
        let buf = self.alloc_elems::<T>(data.len())?;
        buf.copy_from(data)?;
        Ok(buf)
    }
}

/// Plain numeric types that can be copied to and from device memory byte for byte.
///
/// # Safety
/// Implementors must be `Copy` types without padding for which every bit pattern is valid.
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// The element type a buffer of these is tagged with.
    fn elem_type() -> ElemType;
}

macro_rules! element {
    ($($t:ty => $e:expr),* $(,)?) => {$(
        // SAFETY: primitive integer/float types: no padding, all bit patterns valid.
        unsafe impl Element for $t {
            fn elem_type() -> ElemType { $e }
        }
    )*};
}

element! {
    f32 => ElemType::F32,
    f64 => ElemType::F64,
    i8 => ElemType::I8,
    i16 => ElemType::I16,
    i32 => ElemType::I32,
    i64 => ElemType::I64,
    u8 => ElemType::U8,
    // u16 carries f16 bit patterns (use `with_elem(ElemType::BF16)` for bf16 bits).
    u16 => ElemType::F16,
    u32 => ElemType::U32,
    u64 => ElemType::U64,
}

fn bytes_of<T: Element>(data: &[T]) -> usize {
    std::mem::size_of_val(data)
}

/// A device allocation, freed on drop. Carries an optional element type, checked against typed
/// pointer parameters at launch.
pub struct DeviceBuffer {
    device: Device,
    ptr: sys::CUdeviceptr,
    bytes: usize,
    elem: Option<ElemType>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("bytes", &self.bytes)
            .field("elem", &self.elem)
            .finish()
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.ptr != 0 && self.device.bind().is_ok() {
            // SAFETY: allocated by cuMemAlloc in this context and freed exactly once.
            unsafe {
                sys::cuMemFree_v2(self.ptr);
            }
        }
    }
}

impl DeviceBuffer {
    /// Size in bytes.
    pub fn len_bytes(&self) -> usize {
        self.bytes
    }

    /// The device address (0 for an empty buffer).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The device this buffer lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The element type tag, if any.
    pub fn elem(&self) -> Option<&ElemType> {
        self.elem.as_ref()
    }

    /// Replaces the element type tag.
    pub fn set_elem(&mut self, elem: Option<ElemType>) {
        self.elem = elem;
    }

    /// Returns the buffer retagged with `elem` (e.g. a `u16` upload as [`ElemType::BF16`]).
    pub fn with_elem(mut self, elem: ElemType) -> Self {
        self.elem = Some(elem);
        self
    }

    /// Copies `data` to the start of the buffer (synchronous).
    pub fn copy_from<T: Element>(&self, data: &[T]) -> Result<()> {
        let n = bytes_of(data);
        if n > self.bytes {
            return Err(RuntimeError::InvalidArgument(format!(
                "copying {n} bytes into a buffer of {} bytes",
                self.bytes
            )));
        }
        if n == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: `data` is valid for `n` bytes and the buffer holds at least `n`.
        check(
            unsafe { sys::cuMemcpyHtoD_v2(self.ptr, data.as_ptr() as *const c_void, n) },
            "cuMemcpyHtoD",
        )
    }

    /// Copies the start of the buffer into `out`, after waiting for all work on the device.
    pub fn copy_to<T: Element>(&self, out: &mut [T]) -> Result<()> {
        let n = bytes_of(out);
        if n > self.bytes {
            return Err(RuntimeError::InvalidArgument(format!(
                "reading {n} bytes from a buffer of {} bytes",
                self.bytes
            )));
        }
        self.device.synchronize()?;
        if n == 0 {
            return Ok(());
        }
        // SAFETY: `out` is valid for `n` writable bytes and every bit pattern is a valid `T`.
        check(
            unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, self.ptr, n) },
            "cuMemcpyDtoH",
        )
    }

    /// The whole buffer as a `Vec<T>` (its size must be a multiple of `size_of::<T>()`), after
    /// waiting for all work on the device.
    pub fn download<T: Element + Default>(&self) -> Result<Vec<T>> {
        let sz = size_of::<T>();
        if !self.bytes.is_multiple_of(sz) {
            return Err(RuntimeError::InvalidArgument(format!(
                "buffer of {} bytes is not a whole number of {sz}-byte elements",
                self.bytes
            )));
        }
        let mut out = vec![T::default(); self.bytes / sz];
        self.copy_to(&mut out)?;
        Ok(out)
    }

    /// Sets every byte to `byte` (synchronous).
    pub fn fill_bytes(&self, byte: u8) -> Result<()> {
        if self.bytes == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the range is inside the allocation.
        check(
            unsafe { sys::cuMemsetD8_v2(self.ptr, byte, self.bytes) },
            "cuMemsetD8",
        )?;
        self.device.synchronize()
    }

    /// Sets every byte to `byte`, ordered on `stream`.
    pub fn fill_bytes_async(&self, byte: u8, stream: &Stream) -> Result<()> {
        if self.bytes == 0 {
            return Ok(());
        }
        self.device.bind()?;
        // SAFETY: the range is inside the allocation; the stream belongs to this context.
        check(
            unsafe { sys::cuMemsetD8Async(self.ptr, byte, self.bytes, stream.raw) },
            "cuMemsetD8Async",
        )
    }

    /// Fills the buffer with `0xFF` bytes: NaN for every float type, -1 for integers. Used on
    /// outputs before a launch so that an element the kernel never writes cannot pass a check.
    pub fn poison(&self) -> Result<()> {
        self.fill_bytes(0xFF)
    }
}

/// A CUDA stream (or the legacy default stream). Owned streams are destroyed on drop.
pub struct Stream {
    device: Device,
    pub(crate) raw: sys::CUstream,
    owned: bool,
}

// SAFETY: driver streams may be used from any thread; every use binds the context first.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.raw)
            .field("owned", &self.owned)
            .finish_non_exhaustive()
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.owned && self.device.bind().is_ok() {
            // SAFETY: created by cuStreamCreate and destroyed once.
            unsafe {
                sys::cuStreamDestroy_v2(self.raw);
            }
        }
    }
}

impl Stream {
    /// A stream someone else created (PyTorch's `torch.cuda.current_stream().cuda_stream`, or
    /// null for the legacy default stream), borrowed: dropping the result does not destroy it.
    ///
    /// # Safety
    ///
    /// `raw` must be null or a live `CUstream` of `device`'s primary context that outlives every
    /// launch enqueued through the result.
    pub unsafe fn from_raw(device: &Device, raw: *mut c_void) -> Stream {
        Stream {
            device: device.clone(),
            raw: raw as sys::CUstream,
            owned: false,
        }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits for all work queued on this stream.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: valid stream of the current context.
        check(
            unsafe { sys::cuStreamSynchronize(self.raw) },
            "cuStreamSynchronize",
        )
    }

    /// Times `launch` with CUDA events: `warmup` untimed calls, then `reps` timed ones, each
    /// preceded (outside the timed region) by an L2 flush when `flush` is given. Returns one
    /// time in milliseconds per rep. `launch` must enqueue its work on this stream.
    pub fn time_launches<F>(
        &self,
        mut launch: F,
        warmup: usize,
        reps: usize,
        flush: Option<&L2Flush>,
    ) -> Result<Vec<f32>>
    where
        F: FnMut(&Stream) -> Result<()>,
    {
        for _ in 0..warmup {
            if let Some(fl) = flush {
                fl.flush(self)?;
            }
            launch(self)?;
        }
        let mut events = Vec::with_capacity(2 * reps);
        for _ in 0..2 * reps {
            events.push(Event::new(&self.device)?);
        }
        for r in 0..reps {
            if let Some(fl) = flush {
                fl.flush(self)?;
            }
            events[2 * r].record(self)?;
            launch(self)?;
            events[2 * r + 1].record(self)?;
        }
        self.synchronize()?;
        (0..reps)
            .map(|r| events[2 * r].elapsed_ms(&events[2 * r + 1]))
            .collect()
    }
}

/// [`Stream::time_launches`] on a new stream of `device`, without L2 flushing.
pub fn time_launches<F>(device: &Device, launch: F, warmup: usize, reps: usize) -> Result<Vec<f32>>
where
    F: FnMut(&Stream) -> Result<()>,
{
    device
        .create_stream()?
        .time_launches(launch, warmup, reps, None)
}

/// Median of a sample (mean of the middle two for even sizes); `None` when empty. NaNs sort last.
pub fn median(samples: &[f32]) -> Option<f32> {
    if samples.is_empty() {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// A CUDA event with timing enabled.
pub struct Event {
    device: Device,
    raw: sys::CUevent,
}

// SAFETY: as for streams.
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.raw)
            .finish_non_exhaustive()
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: created by cuEventCreate and destroyed once.
            unsafe {
                sys::cuEventDestroy_v2(self.raw);
            }
        }
    }
}

impl Event {
    /// Creates an event on `device`.
    pub fn new(device: &Device) -> Result<Event> {
        device.bind()?;
        let mut raw: sys::CUevent = std::ptr::null_mut();
        // SAFETY: valid out pointer; flags 0 = default (timing enabled).
        check(unsafe { sys::cuEventCreate(&mut raw, 0) }, "cuEventCreate")?;
        Ok(Event {
            device: device.clone(),
            raw,
        })
    }

    /// Records the event on `stream`.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.device.bind()?;
        // SAFETY: both handles belong to the current context.
        check(
            unsafe { sys::cuEventRecord(self.raw, stream.raw) },
            "cuEventRecord",
        )
    }

    /// Waits for the event.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: valid event.
        check(
            unsafe { sys::cuEventSynchronize(self.raw) },
            "cuEventSynchronize",
        )
    }

    /// Milliseconds from this event to `end` (waits for `end`).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        end.synchronize()?;
        let mut ms = 0f32;
        let v2 = *HAS_ELAPSED_V2.get().unwrap_or(&false);
        // SAFETY: both events are valid, recorded, and complete; the _v2 symbol is only used
        // when the driver exports it.
        let res = unsafe {
            if v2 {
                sys::cuEventElapsedTime_v2(&mut ms, self.raw, end.raw)
            } else {
                sys::cuEventElapsedTime(&mut ms, self.raw, end.raw)
            }
        };
        check(res, "cuEventElapsedTime")?;
        Ok(ms)
    }
}

/// Evicts the L2 cache between timed runs by writing a large buffer (256 MiB by default, far
/// above the H200's 60 MiB L2), as Triton's `do_bench` does.
#[derive(Debug)]
pub struct L2Flush {
    buf: DeviceBuffer,
}

impl L2Flush {
    /// Default flush size.
    pub const DEFAULT_BYTES: usize = 256 << 20;

    /// Allocates a 256 MiB flush buffer.
    pub fn new(device: &Device) -> Result<L2Flush> {
        Self::with_bytes(device, Self::DEFAULT_BYTES)
    }

    /// Allocates a flush buffer of `bytes` bytes.
    pub fn with_bytes(device: &Device, bytes: usize) -> Result<L2Flush> {
        Ok(L2Flush {
            buf: device.alloc(bytes)?,
        })
    }

    /// Enqueues the flush (a memset of the whole buffer) on `stream`.
    pub fn flush(&self, stream: &Stream) -> Result<()> {
        self.buf.fill_bytes_async(0, stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test machine has no GPU and no libcuda: every entry point must report that, not
    /// panic. On a GPU machine the same calls must succeed.
    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        match driver_version() {
            Ok(v) => {
                // A machine with a driver: opening device 0 must work or say NoDevice.
                assert!(v > 0);
                match Device::new(0) {
                    Ok(d) => assert!(!d.name().is_empty()),
                    Err(e) => assert!(matches!(e, RuntimeError::NoDevice(_)), "{e}"),
                }
            }
            Err(e) => {
                assert!(e.is_unavailable(), "{e}");
                let msg = e.to_string();
                assert!(msg.to_lowercase().contains("driver"), "{msg}");
                let e2 = Device::new(0).unwrap_err();
                assert!(e2.is_unavailable(), "{e2}");
                assert!(e2.to_string().to_lowercase().contains("driver"), "{e2}");
                assert!(device_count().unwrap_err().is_unavailable());
                // Repeated calls give the same answer (state is cached, nothing panics).
                assert_eq!(driver_version().unwrap_err().to_string(), msg);
            }
        }
    }

    #[test]
    fn median_of_samples() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f32::NAN, 1.0, 2.0]), Some(2.0));
    }
}
