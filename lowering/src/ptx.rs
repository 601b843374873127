//! In-process PTX emission: LLVM-dialect module → LLVM IR (MLIR's translation) → O3 → NVPTX
//! assembly (LLVM's NVPTX backend, statically linked). No CUDA toolkit involved.

use melior::ir::Module;
use mlir_sys::{LLVMContextCreate, LLVMContextDispose, LLVMModuleRef, mlirTranslateModuleToLLVMIR};
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
}

const TRIPLE: &str = "nvptx64-nvidia-cuda";
const CODEGEN_LEVEL_AGGRESSIVE: c_int = 3;
const RELOC_DEFAULT: c_int = 0;
const CODE_MODEL_DEFAULT: c_int = 0;
const ASSEMBLY_FILE: c_int = 0;

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

    /// The PTX ISA version emitted: 8.4 is understood by every CUDA 12.4+ driver.
    pub fn ptx_features(&self) -> &'static str {
        "+ptx84"
    }
}

fn initialize() {
    static INIT: Once = Once::new();
    INIT.call_once(|| unsafe {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
    });
}

unsafe fn take_message(message: *mut c_char) -> String {
    if message.is_null() {
        return String::new();
    }
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    unsafe { LLVMDisposeMessage(message) };
    text
}

/// What [`emit`] produces.
pub struct Emitted {
    pub ptx: String,
    /// The optimized LLVM IR, when asked for.
    pub llvm_ir: Option<String>,
}

/// Translates a module in the LLVM dialect (with NVVM ops) to PTX for `arch`.
pub fn emit(module: &Module, arch: Arch, keep_llvm_ir: bool) -> Result<Emitted, String> {
    initialize();
    unsafe {
        let llvm_context = LLVMContextCreate();
        let llvm_module = mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), llvm_context);
        if llvm_module.is_null() {
            LLVMContextDispose(llvm_context);
            return Err("translation to LLVM IR failed".into());
        }
        let result = emit_llvm_module(llvm_module, arch, keep_llvm_ir);
        LLVMDisposeModule(llvm_module);
        LLVMContextDispose(llvm_context);
        result
    }
}

unsafe fn emit_llvm_module(
    llvm_module: LLVMModuleRef,
    arch: Arch,
    keep_llvm_ir: bool,
) -> Result<Emitted, String> {
    let triple = CString::new(TRIPLE).unwrap();
    let cpu = CString::new(arch.name()).unwrap();
    let features = CString::new(arch.ptx_features()).unwrap();
    unsafe {
        let mut target: TargetRef = std::ptr::null_mut();
        let mut error: *mut c_char = std::ptr::null_mut();
        if LLVMGetTargetFromTriple(triple.as_ptr(), &mut target, &mut error) != 0 {
            return Err(format!("NVPTX target unavailable: {}", take_message(error)));
        }
        let machine = LLVMCreateTargetMachine(
            target,
            triple.as_ptr(),
            cpu.as_ptr(),
            features.as_ptr(),
            CODEGEN_LEVEL_AGGRESSIVE,
            RELOC_DEFAULT,
            CODE_MODEL_DEFAULT,
        );
        LLVMSetTarget(llvm_module, triple.as_ptr());
        let layout = LLVMCreateTargetDataLayout(machine);
        LLVMSetModuleDataLayout(llvm_module, layout);
        LLVMDisposeTargetData(layout);

        let options = LLVMCreatePassBuilderOptions();
        let pipeline = CString::new("default<O3>").unwrap();
        let error_ref = LLVMRunPasses(llvm_module, pipeline.as_ptr(), machine, options);
        LLVMDisposePassBuilderOptions(options);
        if !error_ref.is_null() {
            let message = LLVMGetErrorMessage(error_ref);
            let text = CStr::from_ptr(message).to_string_lossy().into_owned();
            LLVMDisposeErrorMessage(message);
            LLVMDisposeTargetMachine(machine);
            return Err(format!("LLVM optimization failed: {text}"));
        }
        let llvm_ir = keep_llvm_ir.then(|| take_message(LLVMPrintModuleToString(llvm_module)));

        let mut buffer: MemoryBufferRef = std::ptr::null_mut();
        let failed = LLVMTargetMachineEmitToMemoryBuffer(
            machine,
            llvm_module,
            ASSEMBLY_FILE,
            &mut error,
            &mut buffer,
        );
        LLVMDisposeTargetMachine(machine);
        if failed != 0 {
            return Err(format!("PTX emission failed: {}", take_message(error)));
        }
        let bytes = std::slice::from_raw_parts(
            LLVMGetBufferStart(buffer) as *const u8,
            LLVMGetBufferSize(buffer),
        );
        let ptx = String::from_utf8_lossy(bytes).into_owned();
        LLVMDisposeMemoryBuffer(buffer);
        Ok(Emitted { ptx, llvm_ir })
    }
}
