//! In-process PTX emission, as three stages of [`crate::compile`]: LLVM-dialect module → LLVM IR
//! (MLIR's translation, [`translate`]) → O3 ([`optimize`]) → NVPTX assembly ([`codegen`], LLVM's
//! NVPTX backend, statically linked). No CUDA toolkit involved. [`LlvmModule::verify`] is LLVM's
//! module verifier, run after translation and after optimization.

use melior::ir::Module;
use mlir_sys::{
    LLVMContextCreate, LLVMContextDispose, LLVMContextRef, LLVMModuleRef,
    mlirTranslateModuleToLLVMIR,
};
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::Once;

type TargetRef = *mut c_void;
type TargetMachineRef = *mut c_void;
type MemoryBufferRef = *mut c_void;
type PassBuilderOptionsRef = *mut c_void;
type ErrorRef = *mut c_void;

unsafe extern "C" {
    fn LLVMInitializeNVPTXTargetInfo();
    fn LLVMInitializeNVPTXTarget();
    fn LLVMInitializeNVPTXTargetMC();
    fn LLVMInitializeNVPTXAsmPrinter();
    fn LLVMGetTargetFromTriple(
        triple: *const c_char,
        target: *mut TargetRef,
        error: *mut *mut c_char,
    ) -> c_int;
    fn LLVMCreateTargetMachine(
        target: TargetRef,
        triple: *const c_char,
        cpu: *const c_char,
        features: *const c_char,
        level: c_int,
        reloc: c_int,
        code_model: c_int,
    ) -> TargetMachineRef;
    fn LLVMDisposeTargetMachine(machine: TargetMachineRef);
    fn LLVMParseCommandLineOptions(
        argc: c_int,
        argv: *const *const c_char,
        overview: *const c_char,
    );
    fn LLVMSetTarget(module: LLVMModuleRef, triple: *const c_char);
    fn LLVMCreateTargetDataLayout(machine: TargetMachineRef) -> *mut c_void;
    fn LLVMSetModuleDataLayout(module: LLVMModuleRef, layout: *mut c_void);
    fn LLVMDisposeTargetData(layout: *mut c_void);
    fn LLVMCreatePassBuilderOptions() -> PassBuilderOptionsRef;
    fn LLVMDisposePassBuilderOptions(options: PassBuilderOptionsRef);
    fn LLVMRunPasses(
        module: LLVMModuleRef,
        passes: *const c_char,
        machine: TargetMachineRef,
        options: PassBuilderOptionsRef,
    ) -> ErrorRef;
    fn LLVMGetErrorMessage(error: ErrorRef) -> *mut c_char;
    fn LLVMDisposeErrorMessage(message: *mut c_char);
    fn LLVMTargetMachineEmitToMemoryBuffer(
        machine: TargetMachineRef,
        module: LLVMModuleRef,
        file_type: c_int,
        error: *mut *mut c_char,
        buffer: *mut MemoryBufferRef,
    ) -> c_int;
    fn LLVMGetBufferStart(buffer: MemoryBufferRef) -> *const c_char;
    fn LLVMGetBufferSize(buffer: MemoryBufferRef) -> usize;
    fn LLVMDisposeMemoryBuffer(buffer: MemoryBufferRef);
    fn LLVMDisposeMessage(message: *mut c_char);
    fn LLVMDisposeModule(module: LLVMModuleRef);
    fn LLVMPrintModuleToString(module: LLVMModuleRef) -> *mut c_char;
    fn LLVMVerifyModule(module: LLVMModuleRef, action: c_int, message: *mut *mut c_char) -> c_int;
}

const TRIPLE: &CStr = c"nvptx64-nvidia-cuda";
const CODEGEN_LEVEL_AGGRESSIVE: c_int = 3;
const RELOC_DEFAULT: c_int = 0;
const CODE_MODEL_DEFAULT: c_int = 0;
const ASSEMBLY_FILE: c_int = 0;
/// `LLVMReturnStatusAction`: the verifier reports through its return value and message.
const VERIFIER_RETURN_STATUS: c_int = 2;

/// A GPU architecture Tritium can emit PTX for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    /// Compute capability times ten (80, 90).
    pub capability: u32,
    /// `sm_90a`: architecture-specific features (wgmma, setmaxnreg).
    pub accelerated: bool,
}

impl Arch {
    /// Parses `sm_80`, `sm_90`, `sm_90a`.
    pub fn parse(text: &str) -> Result<Arch, String> {
        let digits = text
            .strip_prefix("sm_")
            .ok_or_else(|| format!("unknown arch '{text}' (expected sm_80, sm_90 or sm_90a)"))?;
        let (digits, accelerated) = match digits.strip_suffix('a') {
            Some(digits) => (digits, true),
            None => (digits, false),
        };
        let capability: u32 = digits
            .parse()
            .map_err(|_| format!("unknown arch '{text}' (expected sm_80, sm_90 or sm_90a)"))?;
        if !matches!(capability, 80 | 86 | 89 | 90) || (accelerated && capability != 90) {
            return Err(format!(
                "unsupported arch '{text}' (supported: sm_80, sm_86, sm_89, sm_90, sm_90a)"
            ));
        }
        Ok(Arch {
            capability,
            accelerated,
        })
    }

    pub fn name(&self) -> String {
        format!(
            "sm_{}{}",
            self.capability,
            if self.accelerated { "a" } else { "" }
        )
    }

    /// The PTX ISA version emitted, times ten: 8.4 is understood by every CUDA 12.4+ driver.
    pub fn ptx_version(&self) -> u32 {
        84
    }

    /// LLVM's NVPTX feature string for [`Arch::ptx_version`].
    pub fn ptx_features(&self) -> String {
        format!("+ptx{}", self.ptx_version())
    }
}

fn initialize() {
    static INIT: Once = Once::new();
    // SAFETY: LLVM's target initializers take no arguments; `INIT` runs them once per process,
    // before any NVPTX target is looked up.
    INIT.call_once(|| unsafe {
        // 32-bit shared, constant and local pointers (as Triton compiles): shared-memory
        // address arithmetic in 32 bits instead of 64. The option is read when a target
        // machine is created, so it is set before any.
        let args = [c"tritium".as_ptr(), c"-nvptx-short-ptr".as_ptr()];
        LLVMParseCommandLineOptions(args.len() as c_int, args.as_ptr(), std::ptr::null());
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
    });
}

/// The text of an LLVM message (empty for null), which is then disposed.
///
/// # Safety
/// `message` is null or a NUL-terminated string LLVM allocated for the caller to dispose with
/// `LLVMDisposeMessage`, not used after this call.
unsafe fn take_message(message: *mut c_char) -> String {
    if message.is_null() {
        return String::new();
    }
    // SAFETY: by this function's contract `message` is a live NUL-terminated string (non-null:
    // checked above); the text is copied out before it is disposed.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: LLVM allocated `message` for us to dispose, once; it is not used afterwards.
    unsafe { LLVMDisposeMessage(message) };
    text
}

/// An LLVM IR module in its own LLVM context, disposed on drop.
pub struct LlvmModule {
    context: LLVMContextRef,
    module: LLVMModuleRef,
}

impl LlvmModule {
    /// LLVM's module verifier: `Err` with its report when the module is broken.
    pub fn verify(&self) -> Result<(), String> {
        let mut message: *mut c_char = std::ptr::null_mut();
        // SAFETY: `self.module` is live (owned until drop); with the return-status action the
        // verifier only reports, and sets `message` to a string we own (or leaves it null).
        let broken =
            unsafe { LLVMVerifyModule(self.module, VERIFIER_RETURN_STATUS, &mut message) } != 0;
        // SAFETY: `message` is null or the verifier's report, ours to dispose.
        let report = unsafe { take_message(message) };
        if broken {
            Err(report.trim_end().to_owned())
        } else {
            Ok(())
        }
    }

    /// The module as LLVM IR text.
    pub fn print(&self) -> String {
        // SAFETY: `self.module` is live; LLVMPrintModuleToString returns a string we own.
        unsafe { take_message(LLVMPrintModuleToString(self.module)) }
    }
}

impl Drop for LlvmModule {
    fn drop(&mut self) {
        // SAFETY: `LlvmModule` owns both and disposes them once, here: the module first, then
        // the context it lives in.
        unsafe {
            LLVMDisposeModule(self.module);
            LLVMContextDispose(self.context);
        }
    }
}

/// Translates a module in the LLVM dialect (with NVVM ops) to LLVM IR. `None` when MLIR's
/// translation fails; it has emitted diagnostics on the module's context.
pub fn translate(module: &Module) -> Option<LlvmModule> {
    // SAFETY: `module` is a live MLIR module; the translation builds the LLVM module in the fresh
    // `context`, and both are then owned by the returned `LlvmModule` (the context alone is
    // disposed here when translation fails).
    unsafe {
        let context = LLVMContextCreate();
        let llvm_module = mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), context);
        if llvm_module.is_null() {
            LLVMContextDispose(context);
            return None;
        }
        Some(LlvmModule {
            context,
            module: llvm_module,
        })
    }
}

/// LLVM's NVPTX target machine for one architecture, disposed on drop.
pub struct TargetMachine {
    machine: TargetMachineRef,
}

impl TargetMachine {
    pub fn new(arch: Arch) -> Result<TargetMachine, String> {
        initialize();
        // `sm_NN[a]` and `+ptxNN`: no NUL bytes.
        let cpu = CString::new(arch.name()).unwrap();
        let features = CString::new(arch.ptx_features()).unwrap();
        // SAFETY: the NVPTX target is initialized; every string is NUL-terminated and outlives
        // the calls (LLVM copies them); `target` and `error` are out-parameters LLVM sets, and an
        // error message is ours to dispose. The new machine is owned by `TargetMachine`.
        unsafe {
            let mut target: TargetRef = std::ptr::null_mut();
            let mut error: *mut c_char = std::ptr::null_mut();
            if LLVMGetTargetFromTriple(TRIPLE.as_ptr(), &mut target, &mut error) != 0 {
                return Err(format!("NVPTX target unavailable: {}", take_message(error)));
            }
            let machine = LLVMCreateTargetMachine(
                target,
                TRIPLE.as_ptr(),
                cpu.as_ptr(),
                features.as_ptr(),
                CODEGEN_LEVEL_AGGRESSIVE,
                RELOC_DEFAULT,
                CODE_MODEL_DEFAULT,
            );
            if machine.is_null() {
                return Err(format!(
                    "cannot create an NVPTX target machine for {}",
                    arch.name()
                ));
            }
            Ok(TargetMachine { machine })
        }
    }
}

impl Drop for TargetMachine {
    fn drop(&mut self) {
        // SAFETY: `TargetMachine` owns the (non-null) machine and disposes it once, here.
        unsafe { LLVMDisposeTargetMachine(self.machine) };
    }
}

/// Sets the module's triple and data layout for `machine` and runs LLVM's `default<O3>`, then,
/// with `group_scalar_chains`, the SLP vectorizer with a generic target's costs (as Triton's O3
/// has them) and the scalarizer.
pub fn optimize(
    module: &LlvmModule,
    machine: &TargetMachine,
    group_scalar_chains: bool,
) -> Result<(), String> {
    // SAFETY: the module and machine are live (owned by their wrappers); the strings are
    // NUL-terminated literals; the data layout is copied into the module before it is disposed,
    // the pass options are disposed once after the run, and an error is consumed by
    // LLVMGetErrorMessage, whose message is ours to dispose.
    unsafe {
        LLVMSetTarget(module.module, TRIPLE.as_ptr());
        let layout = LLVMCreateTargetDataLayout(machine.machine);
        LLVMSetModuleDataLayout(module.module, layout);
        LLVMDisposeTargetData(layout);

        let options = LLVMCreatePassBuilderOptions();
        let mut error_ref = LLVMRunPasses(
            module.module,
            c"default<O3>".as_ptr(),
            machine.machine,
            options,
        );
        if error_ref.is_null() && group_scalar_chains {
            // Triton's O3 runs without a target machine, so its SLP vectorizer, costed for a
            // generic target, groups independent scalar chains into short vectors; NVPTX's cost
            // model (32-bit registers) never does. NVPTX splits the vectors again, but the grouped
            // order is what ptxas allocates registers for: dropout's eight Philox streams per
            // thread take 48 registers in the ungrouped order and 32 (as Triton's) grouped.
            //
            // The scalarizer then splits what the grouping made into vectors, in the grouped
            // order: NVPTX would split most of them anyway, but keeps `<2 x half>` whole, and
            // the grouping pairs two rows' f16 reduction chains (seeded by a two-row vector store
            // of their partials) into `setp.f16x2` + `selp.b16` + repacking (argmin_rows_f16:
            // 472 SASS instructions and 36 registers grouped, 444 and 32 scalarized; Triton 423
            // and 32).
            error_ref = LLVMRunPasses(
                module.module,
                c"function(slp-vectorizer,scalarizer)".as_ptr(),
                std::ptr::null_mut(),
                options,
            );
        }
        LLVMDisposePassBuilderOptions(options);
        if !error_ref.is_null() {
            let message = LLVMGetErrorMessage(error_ref);
            let text = CStr::from_ptr(message).to_string_lossy().into_owned();
            LLVMDisposeErrorMessage(message);
            return Err(format!("LLVM optimization failed: {text}"));
        }
    }
    Ok(())
}

/// PTX assembly of the module, from LLVM's NVPTX backend.
pub fn codegen(module: &LlvmModule, machine: &TargetMachine) -> Result<String, String> {
    // SAFETY: the module and machine are live; `error` and `buffer` are out-parameters LLVM sets
    // (an error message is ours to dispose). On success `buffer` is a memory buffer we own: its
    // start and size describe one allocation, read (and copied) before it is disposed.
    unsafe {
        let mut error: *mut c_char = std::ptr::null_mut();
        let mut buffer: MemoryBufferRef = std::ptr::null_mut();
        let failed = LLVMTargetMachineEmitToMemoryBuffer(
            machine.machine,
            module.module,
            ASSEMBLY_FILE,
            &mut error,
            &mut buffer,
        );
        if failed != 0 {
            return Err(format!("PTX emission failed: {}", take_message(error)));
        }
        let bytes = std::slice::from_raw_parts(
            LLVMGetBufferStart(buffer) as *const u8,
            LLVMGetBufferSize(buffer),
        );
        let ptx = String::from_utf8_lossy(bytes).into_owned();
        LLVMDisposeMemoryBuffer(buffer);
        Ok(ptx)
    }
}
