//! Modules (PTX or cubin loaded into a context), kernels and launches.

use std::ffi::{CString, c_void};
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::sys;

use crate::device::{Device, DeviceBuffer, Stream, check, error_text, occupancy_jit_options};
use crate::error::{Result, RuntimeError};
use crate::metadata::{ArgKind, DescriptorValue, KernelMetadata};
use crate::tensormap::TensorMap;

/// Kernels using more dynamic shared memory than this must opt in through
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
pub const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

struct ModuleInner {
    device: Device,
    raw: sys::CUmodule,
}

// SAFETY: module handles may be used from any thread once their context is current.
unsafe impl Send for ModuleInner {}
unsafe impl Sync for ModuleInner {}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: loaded by cuModuleLoadDataEx and unloaded once, after every Kernel using
            // it (they hold this Arc) is gone.
            unsafe {
                sys::cuModuleUnload(self.raw);
            }
        }
    }
}

/// A loaded module. Cheap to clone.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("raw", &self.inner.raw)
            .finish_non_exhaustive()
    }
}

/// The PTX text at `path`.
fn read_ptx(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| RuntimeError::io(path, e))?;
    String::from_utf8(bytes)
        .map_err(|_| RuntimeError::InvalidArgument(format!("{} is not UTF-8", path.display())))
}

const LOG_BYTES: usize = 64 * 1024;
/// The zeros a host descriptor of an empty tensor reads.
const ZEROS_BYTES: usize = 128;

impl Module {
    /// JIT-compiles PTX text for `device` and loads it. A JIT failure comes back as
    /// [`RuntimeError::ModuleLoad`] with ptxas's error log.
    pub fn load_ptx(device: &Device, ptx: &str) -> Result<Module> {
        Self::load_ptx_text(device, ptx, None)
    }

    /// As [`Module::load_ptx`], asking ptxas to fit `blocks_per_sm` blocks of `threads` threads
    /// on an SM at once (`CU_JIT_MIN_CTA_PER_SM`, the JIT's form of `.minnctapersm`): it then
    /// allocates at most the registers that leaves each thread.
    pub fn load_ptx_for_occupancy(
        device: &Device,
        ptx: &str,
        threads: u32,
        blocks_per_sm: u32,
    ) -> Result<Module> {
        Self::load_ptx_text(device, ptx, Some((threads, blocks_per_sm)))
    }

    fn load_ptx_text(device: &Device, ptx: &str, occupancy: Option<(u32, u32)>) -> Result<Module> {
        let text = CString::new(ptx)
            .map_err(|_| RuntimeError::InvalidArgument("PTX text contains a NUL byte".into()))?;
        Self::load_image(device, text.as_ptr() as *const c_void, occupancy)
    }

    /// Loads a cubin (or fatbin) image for `device`.
    pub fn load_cubin(device: &Device, image: &[u8]) -> Result<Module> {
        // The driver reads the ELF header to find the image size; an 8-byte-aligned copy keeps
        // it happy whatever the caller's buffer alignment.
        if image.len() < 16 || &image[..4] != b"\x7fELF" && &image[..4] != b"\x50\xed\x55\xba" {
            return Err(RuntimeError::InvalidArgument(
                "not a cubin (ELF) or fatbin image".into(),
            ));
        }
        let mut aligned = vec![0u64; image.len().div_ceil(8)];
        // SAFETY: `aligned` has at least `image.len()` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                image.as_ptr(),
                aligned.as_mut_ptr() as *mut u8,
                image.len(),
            );
        }
        Self::load_image(device, aligned.as_ptr() as *const c_void, None)
    }

    /// Reads and loads `path`: PTX when it ends in `.ptx`, otherwise a cubin/fatbin.
    pub fn load_file(device: &Device, path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        if path.extension().is_some_and(|e| e == "ptx") {
            Self::load_ptx(device, &read_ptx(path)?)
        } else {
            let bytes = std::fs::read(path).map_err(|e| RuntimeError::io(path, e))?;
            Self::load_cubin(device, &bytes)
        }
    }

    /// `occupancy`: (threads a block, blocks an SM) for ptxas to plan its registers by.
    fn load_image(
        device: &Device,
        image: *const c_void,
        occupancy: Option<(u32, u32)>,
    ) -> Result<Module> {
        device.bind()?;
        let mut err_log = vec![0u8; LOG_BYTES];
        let mut info_log = vec![0u8; LOG_BYTES];
        use sys::CUjit_option as O;
        let mut opts = vec![
            O::CU_JIT_ERROR_LOG_BUFFER,
            O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_INFO_LOG_BUFFER,
            O::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        ];
        // Option values are passed in pointer-sized slots; sizes and counts go in by value.
        let mut vals: Vec<*mut c_void> = vec![
            err_log.as_mut_ptr() as *mut c_void,
            LOG_BYTES as *mut c_void,
            info_log.as_mut_ptr() as *mut c_void,
            LOG_BYTES as *mut c_void,
        ];
        for (opt, val) in occupancy.map(occupancy_jit_options).into_iter().flatten() {
            opts.push(opt);
            vals.push(val);
        }
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` points to a NUL-terminated PTX string or an aligned cubin; the log
        // buffers outlive the call and their sizes are given.
        let res = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                image,
                opts.len() as u32,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        if res != sys::CUresult::CUDA_SUCCESS {
            let end = err_log.iter().position(|&b| b == 0).unwrap_or(LOG_BYTES);
            return Err(RuntimeError::ModuleLoad {
                code: res as u32,
                message: error_text(res),
                log: String::from_utf8_lossy(&err_log[..end]).into_owned(),
            });
        }
        Ok(Module {
            inner: Arc::new(ModuleInner {
                device: device.clone(),
                raw,
            }),
        })
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }
}

/// One launch argument. Scalars are passed by value; buffers as their device address.
#[derive(Debug, Clone, Copy)]
pub enum KernelArg<'a> {
    /// A device buffer (its element type, if tagged, is checked against typed pointers).
    Buffer(&'a DeviceBuffer),
    /// A raw device address (e.g. 0 for an unused scratch pointer); never type-checked.
    Ptr(u64),
    /// `i1`.
    I1(bool),
    /// `i32`.
    I32(i32),
    /// `i64`.
    I64(i64),
    /// `f32`.
    F32(f32),
    /// `f64`.
    F64(f64),
    /// A host-side TMA descriptor (`nvTmaDesc`), passed by value.
    TensorMap(&'a crate::tensormap::TensorMap),
}

impl KernelArg<'_> {
    /// What the signature check sees.
    pub fn kind(&self) -> ArgKind {
        match self {
            KernelArg::Buffer(b) => ArgKind::Ptr(b.elem().cloned()),
            KernelArg::Ptr(_) => ArgKind::Ptr(None),
            KernelArg::I1(_) => ArgKind::I1,
            KernelArg::I32(_) => ArgKind::I32,
            KernelArg::I64(_) => ArgKind::I64,
            KernelArg::F32(_) => ArgKind::F32,
            KernelArg::F64(_) => ArgKind::F64,
            KernelArg::TensorMap(_) => ArgKind::TensorDesc,
        }
    }

    /// The argument's bytes in a zero-padded 8-byte slot (little endian, as the driver reads
    /// parameters: it copies exactly the parameter's size from the start of the slot).
    fn slot(&self) -> u64 {
        match *self {
            KernelArg::Buffer(b) => b.device_ptr(),
            KernelArg::Ptr(p) => p,
            KernelArg::I1(v) => v as u64,
            KernelArg::I32(v) => v as u32 as u64,
            KernelArg::I64(v) => v as u64,
            KernelArg::F32(v) => v.to_bits() as u64,
            KernelArg::F64(v) => v.to_bits(),
            // Passed through its own address (see `Kernel::launch`).
            KernelArg::TensorMap(_) => 0,
        }
    }
}

/// Launch attributes beyond grid, block and shared memory (Triton's launch options).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchFlags {
    /// A programmatic dependent launch (`launch_pdl=True`): the kernel may start before the
    /// previous kernel on the stream has finished; its `griddepcontrol.wait`
    /// (`tl.extra.cuda.gdc_wait()`) waits for that kernel's writes.
    pub programmatic_dependent: bool,
    /// A cooperative launch (`launch_cooperative_grid=True`): every program of the grid is
    /// resident at once (the launch fails if they do not fit), so programs may wait on each
    /// other.
    pub cooperative: bool,
}

/// Static attributes of a loaded kernel, as the driver reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelAttributes {
    /// Registers per thread.
    pub num_regs: u32,
    /// Largest block the kernel can be launched with.
    pub max_threads_per_block: u32,
    /// Statically declared shared memory, bytes.
    pub static_shared_bytes: u32,
    /// Local memory per thread (register spills), bytes.
    pub local_bytes: u32,
    /// The blocks an SM ptxas was asked to fit: set for [`Kernel::from_ptx`]'s second build
    /// ([`Kernel::occupancy_build`]), `None` for a kernel's first.
    pub occupancy_hint: Option<u32>,
}

/// The most of a thread's registers (one part in six) a second build for more blocks an SM may
/// take away: the one kernel measured, tutorial 06's causal
/// attention at head dim 64 (64x64 tiles, 4 warps), went from 146–149 to 127–128 registers and
/// three blocks an SM to four, 2.7–6% faster on an H100; larger cuts were not measured.
const OCCUPANCY_MAX_REGISTER_CUT: (u32, u32) = (1, 6);

/// What one block an SM more is taken to gain, in percent of a wave's time, when a launch
/// weighs the second build's fuller SMs against its emptier last wave. Measured on an H100
/// (session 32): attention's 3 → 4 blocks 6% faster at 8192 programs; a 128x128 matmul tile's 2
/// → 3 blocks lost 5.5% at 1024 programs, which waves of 264 and 396 programs predict if the
/// third block gains 6.6%. Half the measured gain, so a close call keeps the first build.
const OCCUPANCY_BLOCK_GAIN_PERCENT: u64 = 3;

/// Whether a launch of `programs` programs on `sms` SMs should run the build that holds `more`
/// blocks an SM rather than the one holding `fewer`. A launch takes about (waves) × (blocks an SM)
/// block-times on each SM, so the emptier last wave of the fuller build can cost more than its
/// extra block gains ([`OCCUPANCY_BLOCK_GAIN_PERCENT`]); a grid of about one program an SM (a
/// persistent kernel) never gains.
fn prefers_more_blocks(programs: u64, sms: u64, fewer: u32, more: u32) -> bool {
    let cost = |blocks: u32| {
        let blocks = u64::from(blocks.max(1));
        programs.div_ceil(sms.max(1) * blocks) * blocks
    };
    more > fewer && cost(more) * 100 <= cost(fewer) * (100 + OCCUPANCY_BLOCK_GAIN_PERCENT)
}

/// The programs a grid asks for.
fn grid_programs(grid: (u32, u32, u32)) -> u64 {
    u64::from(grid.0) * u64::from(grid.1) * u64::from(grid.2)
}

/// [`Kernel::from_ptx`]'s second build of a kernel, planned for more blocks an SM.
struct OccupancyBuild {
    /// Keeps `func` loaded.
    _module: Module,
    func: sys::CUfunction,
    attributes: KernelAttributes,
    /// Blocks an SM of this build and of the first.
    blocks_per_sm: u32,
    first_blocks_per_sm: u32,
}

/// A kernel: a function in a loaded module plus its launch metadata.
pub struct Kernel {
    module: Module,
    func: sys::CUfunction,
    metadata: KernelMetadata,
    attributes: KernelAttributes,
    /// The global scratch of kernels that need it (`global_scratch_size` bytes per program),
    /// grown to the largest grid launched so far and shared by all their launches.
    global_scratch: std::sync::Mutex<Option<DeviceBuffer>>,
    /// Zeros a host descriptor of an empty tensor points at (allocated on first need).
    zeros: std::sync::Mutex<Option<DeviceBuffer>>,
    /// For a kernel with `virtual_programs`: how many of its programs the GPU holds at once
    /// (SMs times the occupancy at its block size and shared memory).
    resident_programs: u32,
    /// A second build for more blocks an SM, run by the launches whose grids it suits.
    occupancy_build: Option<OccupancyBuild>,
}

// SAFETY: function handles are usable from any thread once their context is current; the
// module (kept alive by `module`) owns them.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("metadata", &self.metadata)
            .field("attributes", &self.attributes)
            .finish()
    }
}

impl Kernel {
    /// Looks up `metadata.name` in `module`, reads its attributes, and opts in to more than
    /// 48 KiB of dynamic shared memory when `metadata.shared` needs it.
    pub fn new(module: &Module, metadata: KernelMetadata) -> Result<Kernel> {
        metadata.validate()?;
        let device = module.device();
        device.bind()?;
        let name = CString::new(metadata.name.as_str()).map_err(|_| {
            RuntimeError::Metadata(format!("kernel name {:?} contains NUL", metadata.name))
        })?;
        let mut func: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: module is loaded; valid out pointer and C string.
        let res = unsafe { sys::cuModuleGetFunction(&mut func, module.inner.raw, name.as_ptr()) };
        if res == sys::CUresult::CUDA_ERROR_NOT_FOUND {
            return Err(RuntimeError::Metadata(format!(
                "the module has no kernel named `{}`",
                metadata.name
            )));
        }
        check(res, "cuModuleGetFunction")?;

        let get = |a: sys::CUfunction_attribute| -> Result<u32> {
            let mut v = 0;
            // SAFETY: valid function and out pointer.
            check(
                unsafe { sys::cuFuncGetAttribute(&mut v, a, func) },
                "cuFuncGetAttribute",
            )?;
            Ok(v.max(0) as u32)
        };
        use sys::CUfunction_attribute as F;
        let attributes = KernelAttributes {
            num_regs: get(F::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            max_threads_per_block: get(F::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            static_shared_bytes: get(F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            local_bytes: get(F::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            occupancy_hint: None,
        };
        if metadata.threads_per_block() > attributes.max_threads_per_block {
            return Err(RuntimeError::Metadata(format!(
                "kernel `{}` is launched with {} threads (num_warps {}) but can run at most {} \
                 per block (its .maxntid or register use)",
                metadata.name,
                metadata.threads_per_block(),
                metadata.num_warps,
                attributes.max_threads_per_block
            )));
        }
        if metadata.shared > DEFAULT_SHARED_LIMIT {
            let limit = device.max_shared_per_block_optin();
            if metadata.shared + attributes.static_shared_bytes > limit {
                return Err(RuntimeError::Metadata(format!(
                    "kernel `{}` needs {} bytes of dynamic (+{} static) shared memory; {} allows \
                     at most {limit} per block",
                    metadata.name,
                    metadata.shared,
                    attributes.static_shared_bytes,
                    device.name()
                )));
            }
            // As Triton's launcher: a kernel past 48 KiB gets the largest shared-memory carveout
            // (the driver would otherwise pick the smallest that fits, leaving the rest as L1).
            // SAFETY: valid function and cache preference.
            check(
                unsafe {
                    sys::cuFuncSetCacheConfig(func, sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED)
                },
                "cuFuncSetCacheConfig(PREFER_SHARED)",
            )?;
            // SAFETY: valid function; the value is within the device's opt-in limit.
            check(
                unsafe {
                    sys::cuFuncSetAttribute(
                        func,
                        F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        metadata.shared as i32,
                    )
                },
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
            )?;
        }
        let mut kernel = Kernel {
            module: module.clone(),
            func,
            metadata,
            attributes,
            global_scratch: std::sync::Mutex::new(None),
            zeros: std::sync::Mutex::new(None),
            resident_programs: u32::MAX,
            occupancy_build: None,
        };
        if kernel.metadata.virtual_programs {
            kernel.resident_programs = device
                .sm_count()
                .saturating_mul(kernel.blocks_per_sm()?.max(1));
        }
        Ok(kernel)
    }

    /// JIT-loads `ptx` and looks up the kernel described by `metadata`.
    ///
    /// Where registers hold fewer of the kernel's blocks on an SM than its shared memory would
    /// (ptxas does not know a kernel's dynamic shared memory, so it cannot plan for it), the PTX
    /// is compiled once more asking for as many blocks an SM as the shared memory allows, if
    /// that takes each thread at most a sixth of its registers; the second build is kept when
    /// the SM then holds more blocks and it spills no more ([`Kernel::occupancy_build`]). Each
    /// launch then runs the build its grid suits: the second where its fuller SMs gain more
    /// than its emptier last wave costs. `TRITIUM_OCCUPANCY_RETRY=0` turns the second build off.
    pub fn from_ptx(device: &Device, ptx: &str, metadata: KernelMetadata) -> Result<Kernel> {
        let module = Module::load_ptx(device, ptx)?;
        let mut first = Kernel::new(&module, metadata.clone())?;
        if std::env::var("TRITIUM_OCCUPANCY_RETRY").is_ok_and(|v| v == "0") {
            return Ok(first);
        }
        let Some((target, blocks)) = first.shared_memory_occupancy_target()? else {
            return Ok(first);
        };
        let threads = first.metadata.threads_per_block();
        // A driver without the option (or a JIT failure here) keeps the first build.
        let Ok(module) = Module::load_ptx_for_occupancy(device, ptx, threads, target) else {
            return Ok(first);
        };
        let second = Kernel::new(&module, metadata)?;
        let second_blocks = second.blocks_per_sm()?;
        if second.attributes.local_bytes <= first.attributes.local_bytes && second_blocks > blocks {
            first.occupancy_build = Some(OccupancyBuild {
                _module: second.module,
                func: second.func,
                attributes: KernelAttributes {
                    occupancy_hint: Some(target),
                    ..second.attributes
                },
                blocks_per_sm: second_blocks,
                first_blocks_per_sm: blocks,
            });
        }
        Ok(first)
    }

    /// The attributes of the second build [`Kernel::from_ptx`] kept, if it kept one (its
    /// `occupancy_hint` the blocks an SM it was planned for).
    pub fn occupancy_build(&self) -> Option<KernelAttributes> {
        self.occupancy_build.as_ref().map(|build| build.attributes)
    }

    /// The second build, when a launch of `programs` programs should run it.
    fn occupancy_build_for(&self, programs: u64) -> Option<&OccupancyBuild> {
        let sms = u64::from(self.module.device().sm_count());
        self.occupancy_build.as_ref().filter(|build| {
            prefers_more_blocks(
                programs,
                sms,
                build.first_blocks_per_sm,
                build.blocks_per_sm,
            )
        })
    }

    /// The attributes of the build a launch over `grid` runs ([`Kernel::attributes`] or
    /// [`Kernel::occupancy_build`]'s).
    pub fn attributes_for_grid(&self, grid: (u32, u32, u32)) -> KernelAttributes {
        self.occupancy_build_for(grid_programs(grid))
            .map_or(self.attributes, |build| build.attributes)
    }

    /// Blocks of this kernel (its first build) an SM holds at once at its block size and
    /// dynamic shared memory (the driver's occupancy calculator).
    pub fn blocks_per_sm(&self) -> Result<u32> {
        let mut per_sm = 0;
        // SAFETY: valid out pointer and function; the block size and dynamic shared memory are
        // the launch's.
        check(
            unsafe {
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    &mut per_sm,
                    self.func,
                    self.metadata.threads_per_block() as i32,
                    self.metadata.shared as usize,
                )
            },
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        )?;
        Ok(per_sm.max(0) as u32)
    }

    /// The blocks an SM the kernel's shared memory allows and the blocks it holds now, when
    /// shared memory is the SM's binding limit apart from registers, registers keep the kernel
    /// below it, and reaching it costs each thread at most [`OCCUPANCY_MAX_REGISTER_CUT`] of its
    /// registers; else `None`.
    fn shared_memory_occupancy_target(&self) -> Result<Option<(u32, u32)>> {
        let limits = self.module.device().sm_limits();
        let threads = self.metadata.threads_per_block();
        let shared = self.metadata.shared + self.attributes.static_shared_bytes;
        if shared == 0 || limits.registers == 0 {
            return Ok(None);
        }
        let (Some(target), Some(unlimited)) = (
            limits.blocks_without_registers(threads, shared),
            limits.blocks_without_registers(threads, 0),
        ) else {
            return Ok(None);
        };
        // Shared memory binds (not threads or the block count), and registers bind below it.
        let blocks = self.blocks_per_sm()?;
        if target == 0 || target >= unlimited || blocks >= target {
            return Ok(None);
        }
        // Registers are allocated per warp in units of 256, so a thread's count rounds to 8.
        let registers_at_target = (limits.registers / (target * threads) / 8 * 8).min(255);
        let (cut, of) = OCCUPANCY_MAX_REGISTER_CUT;
        if registers_at_target * of < self.attributes.num_regs * (of - cut) {
            return Ok(None);
        }
        Ok(Some((target, blocks)))
    }

    /// Loads `DIR/NAME.ptx` with `DIR/NAME.json` (as [`Kernel::from_ptx`]).
    pub fn load(device: &Device, dir: impl AsRef<Path>, name: &str) -> Result<Kernel> {
        let dir = dir.as_ref();
        let metadata = KernelMetadata::load(dir, name)?;
        let ptx = read_ptx(&dir.join(format!("{name}.ptx")))?;
        Kernel::from_ptx(device, &ptx, metadata)
    }

    /// The launch metadata.
    pub fn metadata(&self) -> &KernelMetadata {
        &self.metadata
    }

    /// Attributes the driver reports for the kernel.
    pub fn attributes(&self) -> KernelAttributes {
        self.attributes
    }

    /// The module holding the kernel.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// Enqueues one launch on `stream`: `grid` blocks of `32 * num_warps` threads with
    /// `shared` bytes of dynamic shared memory. `args` are checked against the metadata's
    /// signature first (when it has one).
    pub fn launch(&self, stream: &Stream, grid: (u32, u32, u32), args: &[KernelArg]) -> Result<()> {
        self.launch_with_scratch(stream, grid, args, None)
    }

    /// The metadata's `host_descriptors` encoded for `args` (already checked against the
    /// signature, which the metadata's validation matched the descriptors to) and the grid the
    /// launch asks for (program counts: a batch dimension's extent).
    fn host_descriptor_maps(
        &self,
        args: &[KernelArg],
        grid: (u32, u32, u32),
    ) -> Result<Vec<TensorMap>> {
        let mut maps = Vec::with_capacity(self.metadata.host_descriptors.len());
        for (i, desc) in self.metadata.host_descriptors.iter().enumerate() {
            let bad = |what: String| {
                RuntimeError::InvalidArgument(format!(
                    "kernel {}: the TMA descriptor the launcher makes from argument {}: {what}",
                    self.metadata.name, desc.base
                ))
            };
            let integer = |index: usize| -> Result<i64> {
                match args.get(index) {
                    Some(KernelArg::I32(v)) => Ok(i64::from(*v)),
                    Some(KernelArg::I64(v)) => Ok(*v),
                    _ => Err(bad(format!("argument {index} is not an integer"))),
                }
            };
            let value = |v: &DescriptorValue| -> Result<u64> {
                let number = match v {
                    DescriptorValue::Value(v) => return Ok(*v),
                    DescriptorValue::Programs(axis) => {
                        return Ok(u64::from(match axis {
                            0 => grid.0,
                            1 => grid.1,
                            _ => grid.2,
                        }));
                    }
                    DescriptorValue::Arg(index) => integer(*index)?,
                    DescriptorValue::Product(factors) => {
                        // The kernel multiplied in 32 bits: a product past them wrapped there.
                        let mut product: i64 = 1;
                        for f in factors {
                            let factor = match f {
                                DescriptorValue::Arg(index) => integer(*index)?,
                                DescriptorValue::Value(c) => *c as i64,
                                _ => return Err(bad("a product of a program count".into())),
                            };
                            product = product
                                .checked_mul(factor)
                                .filter(|p| i32::try_from(*p).is_ok())
                                .ok_or_else(|| {
                                    bad(format!(
                                        "the product {v:?} leaves the 32 bits the kernel \
                                         computes it in"
                                    ))
                                })?;
                        }
                        product
                    }
                };
                u64::try_from(number).map_err(|_| {
                    bad(match v {
                        DescriptorValue::Arg(index) => {
                            format!("argument {index} is negative ({number})")
                        }
                        _ => format!("the product {v:?} is negative ({number})"),
                    })
                })
            };
            let base = match args.get(desc.base) {
                Some(KernelArg::Buffer(b)) => b.device_ptr(),
                Some(KernelArg::Ptr(p)) => *p,
                _ => return Err(bad("not a pointer".into())),
            };
            let shape = desc.shape.iter().map(value).collect::<Result<Vec<u64>>>()?;
            let strides = desc
                .strides
                .iter()
                .map(value)
                .collect::<Result<Vec<u64>>>()?;
            let meta = &desc.meta;
            let map = if shape.contains(&0) {
                // The driver encodes no empty tensor; the kernel reads only padding (zeros) from
                // one: a one-element tensor of zeros, every box element past it padding.
                let zeros = self.zeros()?;
                let unit_strides: Vec<u64> = (0..shape.len())
                    .map(|d| {
                        if d + 1 == shape.len() {
                            1
                        } else {
                            16u64.div_ceil(u64::from(meta.elem_size.max(1)))
                        }
                    })
                    .collect();
                TensorMap::encode(
                    self.module.device(),
                    zeros,
                    &vec![1; shape.len()],
                    &unit_strides,
                    meta,
                    false,
                )
            } else {
                TensorMap::encode(self.module.device(), base, &shape, &strides, meta, false)
            };
            maps.push(map.map_err(|e| bad(format!("descriptor {i}: {e}")))?);
        }
        Ok(maps)
    }

    /// The address of [`ZEROS_BYTES`] zeroed device bytes (more than one element of any type),
    /// owned by the kernel.
    fn zeros(&self) -> Result<u64> {
        let mut zeros = self
            .zeros
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if zeros.is_none() {
            let buffer = self.module.device().alloc(ZEROS_BYTES)?;
            buffer.fill_bytes(0)?;
            *zeros = Some(buffer);
        }
        Ok(zeros.as_ref().map_or(0, DeviceBuffer::device_ptr))
    }

    /// [`Kernel::launch`] with the global scratch given (a device address of at least
    /// `programs * global_scratch_size` bytes, `global_scratch_align`-aligned, alive until the
    /// launch completes: Triton's allocator protocol, which CUDA graph capture needs) instead of
    /// the kernel's own buffer, which grows (allocating, after a synchronization) when a larger
    /// grid needs more.
    pub fn launch_with_scratch(
        &self,
        stream: &Stream,
        grid: (u32, u32, u32),
        args: &[KernelArg],
        scratch_given: Option<u64>,
    ) -> Result<()> {
        self.launch_with(stream, grid, args, scratch_given, LaunchFlags::default())
    }

    /// [`Kernel::launch_with_scratch`] with launch attributes ([`LaunchFlags`]: Triton's
    /// `launch_pdl` and `launch_cooperative_grid`), through `cuLaunchKernelEx` when any is set.
    pub fn launch_with(
        &self,
        stream: &Stream,
        grid: (u32, u32, u32),
        args: &[KernelArg],
        scratch_given: Option<u64>,
        flags: LaunchFlags,
    ) -> Result<()> {
        if flags != LaunchFlags::default() && !crate::device::has_launch_ex() {
            return Err(RuntimeError::InvalidArgument(
                "launch_pdl and launch_cooperative_grid need cuLaunchKernelEx, which this CUDA \
                 driver lacks"
                    .into(),
            ));
        }
        let kinds: Vec<ArgKind> = args.iter().map(KernelArg::kind).collect();
        self.metadata.check_args(&kinds)?;
        let device = self.module.device();
        for (i, a) in args.iter().enumerate() {
            if let KernelArg::Buffer(b) = a
                && !b.device().same_context(device)
            {
                return Err(RuntimeError::InvalidArgument(format!(
                    "argument {i}: buffer lives on another device"
                )));
            }
        }
        if !stream.device().same_context(device) {
            return Err(RuntimeError::InvalidArgument(
                "the stream belongs to another device".into(),
            ));
        }
        if grid.0 == 0 || grid.1 == 0 || grid.2 == 0 {
            return Err(RuntimeError::InvalidArgument(format!(
                "empty grid {grid:?}"
            )));
        }
        if grid.1 > 65535 || grid.2 > 65535 {
            return Err(RuntimeError::InvalidArgument(format!(
                "grid {grid:?}: y and z are limited to 65535"
            )));
        }
        device.bind()?;
        let mut slots: Vec<u64> = args.iter().map(KernelArg::slot).collect();
        // The launcher's descriptors count the programs asked for, as `tt.get_num_programs`
        // does (a persistent kernel's program count included).
        let host_maps = self.host_descriptor_maps(args, grid)?;
        let second = self.occupancy_build_for(grid_programs(grid));
        let func = second.map_or(self.func, |build| build.func);
        let resident_programs = second.map_or(self.resident_programs, |build| {
            device.sm_count().saturating_mul(build.blocks_per_sm.max(1))
        });
        let grid = if self.metadata.virtual_programs {
            // The requested count follows the arguments; along axis 0 only as many programs
            // start as the GPU holds at once (a grid with more than one row of programs keeps
            // its size: each runs its own virtual program).
            slots.push(KernelArg::I32(grid.0.min(i32::MAX as u32) as i32).slot());
            if grid.1 == 1 && grid.2 == 1 {
                (grid.0.min(resident_programs), 1, 1)
            } else {
                grid
            }
        } else {
            grid
        };
        // The launcher's descriptors follow the program count.
        let first_map = slots.len();
        slots.extend(std::iter::repeat_n(0, host_maps.len()));
        // Triton's global scratch parameter follows the arguments when the kernel has one.
        let mut scratch = self
            .global_scratch
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let (Some(address), true) = (scratch_given, self.metadata.global_scratch_size > 0) {
            let align = u64::from(self.metadata.global_scratch_align.max(1));
            if address == 0 || address % align != 0 {
                return Err(RuntimeError::InvalidArgument(format!(
                    "the global scratch at {address:#x} is not {align}-byte aligned"
                )));
            }
            slots.push(address);
        } else if self.metadata.global_scratch_size > 0 {
            let programs = grid.0 as usize * grid.1 as usize * grid.2 as usize;
            let bytes = programs * self.metadata.global_scratch_size as usize;
            if scratch.as_ref().is_none_or(|b| b.len_bytes() < bytes) {
                // Earlier launches may still use the old buffer.
                device.synchronize()?;
                // Zeroed once: the descriptor copy into it (`tensormap.cp_fenceproxy`, 4 bytes
                // a lane) reads as uninitialized memory to compute-sanitizer's initcheck.
                let buffer = device.alloc(bytes)?;
                buffer.fill_bytes(0)?;
                *scratch = Some(buffer);
            }
            slots.push(scratch.as_ref().map_or(0, DeviceBuffer::device_ptr));
        }
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .zip(args.iter().map(Some).chain(std::iter::repeat(None)))
            .enumerate()
            .map(|(i, (s, arg))| match arg {
                Some(KernelArg::TensorMap(map)) => map.words.as_ptr() as *mut c_void,
                _ if (first_map..first_map + host_maps.len()).contains(&i) => {
                    host_maps[i - first_map].words.as_ptr() as *mut c_void
                }
                _ => s as *mut u64 as *mut c_void,
            })
            .collect();
        let params_ptr = if params.is_empty() {
            std::ptr::null_mut()
        } else {
            params.as_mut_ptr()
        };
        let block = self.metadata.threads_per_block();
        if flags != LaunchFlags::default() {
            let mut attributes = Vec::new();
            for (wanted, id) in [
                (
                    flags.programmatic_dependent,
                    sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                ),
                (
                    flags.cooperative,
                    sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
                ),
            ] {
                if wanted {
                    // SAFETY: an all-zero attribute (id 0, zero value) is a valid C value of
                    // the bindgen union; the fields set are the attribute's id and its int
                    // (`programmaticStreamSerializationAllowed` and `cooperative` share it).
                    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
                    attribute.id = id;
                    attribute.value.cooperative = 1;
                    attributes.push(attribute);
                }
            }
            let config = sys::CUlaunchConfig {
                gridDimX: grid.0,
                gridDimY: grid.1,
                gridDimZ: grid.2,
                blockDimX: block,
                blockDimY: 1,
                blockDimZ: 1,
                sharedMemBytes: self.metadata.shared,
                hStream: stream.raw,
                attrs: attributes.as_mut_ptr(),
                numAttrs: attributes.len() as u32,
            };
            // SAFETY: as for cuLaunchKernel below; `config` and its attributes outlive the
            // call, and the symbol exists (checked above).
            let res =
                unsafe { sys::cuLaunchKernelEx(&config, func, params_ptr, std::ptr::null_mut()) };
            return check(res, "cuLaunchKernelEx");
        }
        // SAFETY: the function is loaded; every parameter pointer points to an 8-byte slot (or a
        // 128-byte descriptor) that outlives the call (the driver copies parameters before
        // returning); the argument count and kinds were checked against the signature when one
        // is recorded, and the scratch buffer stays alive in `self` (grown only after a device
        // synchronization).
        let res = unsafe {
            sys::cuLaunchKernel(
                func,
                grid.0,
                grid.1,
                grid.2,
                block,
                1,
                1,
                self.metadata.shared,
                stream.raw,
                params_ptr,
                std::ptr::null_mut(),
            )
        };
        check(res, "cuLaunchKernel")
    }
}

#[cfg(test)]
mod tests {
    use super::prefers_more_blocks;

    /// The grids measured on an H100 (132 SMs): tutorial 06's causal attention (64 x 128
    /// programs, 3 → 4 blocks an SM, faster) and a 4096³ matmul in 128x128 tiles (1024
    /// programs, 2 → 3 blocks, slower).
    #[test]
    fn fuller_sms_against_the_last_wave() {
        assert!(prefers_more_blocks(8192, 132, 3, 4));
        assert!(!prefers_more_blocks(1024, 132, 2, 3));
        // A persistent grid gains nothing from room for more blocks.
        assert!(!prefers_more_blocks(132, 132, 1, 2));
        assert!(!prefers_more_blocks(264, 132, 2, 3));
        // Fewer programs than one wave of either: the same time.
        assert!(!prefers_more_blocks(100, 132, 3, 4));
        // Where the fuller SMs take a wave fewer.
        assert!(prefers_more_blocks(500, 132, 3, 4));
        assert!(!prefers_more_blocks(8192, 132, 4, 4));
    }
}
