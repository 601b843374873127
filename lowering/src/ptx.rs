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
type ValueRef = *mut c_void;
type UseRef = *mut c_void;
type BasicBlockRef = *mut c_void;
type BuilderRef = *mut c_void;
type MetadataRef = *mut c_void;
type TypeRef = *mut c_void;

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
    fn LLVMGetFirstFunction(module: LLVMModuleRef) -> ValueRef;
    fn LLVMGetNextFunction(function: ValueRef) -> ValueRef;
    fn LLVMGetFirstBasicBlock(function: ValueRef) -> BasicBlockRef;
    fn LLVMGetNextBasicBlock(block: BasicBlockRef) -> BasicBlockRef;
    fn LLVMGetFirstInstruction(block: BasicBlockRef) -> ValueRef;
    fn LLVMGetNextInstruction(instruction: ValueRef) -> ValueRef;
    fn LLVMGetInstructionOpcode(instruction: ValueRef) -> c_int;
    fn LLVMGetIsDisjoint(instruction: ValueRef) -> c_int;
    fn LLVMGetOperand(user: ValueRef, index: u32) -> ValueRef;
    fn LLVMIsAConstantInt(value: ValueRef) -> ValueRef;
    fn LLVMIsAInstruction(value: ValueRef) -> ValueRef;
    fn LLVMGetFirstUse(value: ValueRef) -> UseRef;
    fn LLVMGetNextUse(use_: UseRef) -> UseRef;
    fn LLVMGetUser(use_: UseRef) -> ValueRef;
    fn LLVMCreateBuilderInContext(context: LLVMContextRef) -> BuilderRef;
    fn LLVMPositionBuilderBefore(builder: BuilderRef, instruction: ValueRef);
    fn LLVMBuildAdd(
        builder: BuilderRef,
        lhs: ValueRef,
        rhs: ValueRef,
        name: *const c_char,
    ) -> ValueRef;
    fn LLVMSetNUW(instruction: ValueRef, flag: c_int);
    fn LLVMSetNSW(instruction: ValueRef, flag: c_int);
    fn LLVMInstructionGetDebugLoc(instruction: ValueRef) -> MetadataRef;
    fn LLVMInstructionSetDebugLoc(instruction: ValueRef, location: MetadataRef);
    fn LLVMReplaceAllUsesWith(old: ValueRef, new: ValueRef);
    fn LLVMInstructionEraseFromParent(instruction: ValueRef);
    fn LLVMDisposeBuilder(builder: BuilderRef);
    fn LLVMTypeOf(value: ValueRef) -> TypeRef;
    fn LLVMGetTypeKind(ty: TypeRef) -> c_int;
    fn LLVMGetIntTypeWidth(ty: TypeRef) -> u32;
    fn LLVMConstIntGetZExtValue(value: ValueRef) -> u64;
    fn LLVMConstInt(ty: TypeRef, value: u64, sign_extend: c_int) -> ValueRef;
    fn LLVMInt64TypeInContext(context: LLVMContextRef) -> TypeRef;
    fn LLVMInt32TypeInContext(context: LLVMContextRef) -> TypeRef;
    fn LLVMBuildMul(
        builder: BuilderRef,
        lhs: ValueRef,
        rhs: ValueRef,
        name: *const c_char,
    ) -> ValueRef;
    fn LLVMBuildZExt(
        builder: BuilderRef,
        value: ValueRef,
        ty: TypeRef,
        name: *const c_char,
    ) -> ValueRef;
    fn LLVMBuildTrunc(
        builder: BuilderRef,
        value: ValueRef,
        ty: TypeRef,
        name: *const c_char,
    ) -> ValueRef;
}

/// `LLVMOpcode` values (llvm-c/Core.h).
const OPCODE_MUL: c_int = 12;
const OPCODE_OR: c_int = 24;
const OPCODE_ZEXT: c_int = 31;
/// `LLVMIntegerTypeKind`.
const INTEGER_TYPE: c_int = 8;

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
/// has them) and the scalarizer; last, two rewrites that let NVPTX's instruction selection see
/// what O3's canonical forms hide from it ([`disjoint_offsets_of_products_as_adds`],
/// [`products_share_wide_multiplies`]).
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
    disjoint_offsets_of_products_as_adds(module);
    products_share_wide_multiplies(module);
    Ok(())
}

/// Every basic block of the module's functions, in order.
///
/// # Safety
/// The handles stay valid while the module keeps those blocks.
unsafe fn basic_blocks(module: &LlvmModule) -> Vec<BasicBlockRef> {
    let mut blocks = Vec::new();
    // SAFETY: the module is live (owned by `module`); LLVM's iterators return null at the end.
    unsafe {
        let mut function = LLVMGetFirstFunction(module.module);
        while !function.is_null() {
            let mut block = LLVMGetFirstBasicBlock(function);
            while !block.is_null() {
                blocks.push(block);
                block = LLVMGetNextBasicBlock(block);
            }
            function = LLVMGetNextFunction(function);
        }
    }
    blocks
}

/// The instructions of a live block, in order.
///
/// # Safety
/// `block` is live; the handles stay valid while the block keeps those instructions.
unsafe fn instructions(block: BasicBlockRef) -> Vec<ValueRef> {
    let mut all = Vec::new();
    // SAFETY: `block` is live; LLVM's iterator returns null at its end.
    unsafe {
        let mut instruction = LLVMGetFirstInstruction(block);
        while !instruction.is_null() {
            all.push(instruction);
            instruction = LLVMGetNextInstruction(instruction);
        }
    }
    all
}

/// The users of a live value.
///
/// # Safety
/// `value` is live.
unsafe fn users(value: ValueRef) -> Vec<ValueRef> {
    let mut all = Vec::new();
    // SAFETY: `value` is live; LLVM's use list iterator returns null at its end.
    unsafe {
        let mut use_ = LLVMGetFirstUse(value);
        while !use_.is_null() {
            all.push(LLVMGetUser(use_));
            use_ = LLVMGetNextUse(use_);
        }
    }
    all
}

/// A live value's integer width, 0 when it is not an integer.
///
/// # Safety
/// `value` is live.
unsafe fn int_width(value: ValueRef) -> u32 {
    // SAFETY: type queries on a live value.
    unsafe {
        let ty = LLVMTypeOf(value);
        if LLVMGetTypeKind(ty) == INTEGER_TYPE {
            LLVMGetIntTypeWidth(ty)
        } else {
            0
        }
    }
}

/// One `mul.wide.u32` for both halves of a 32-bit product by a constant: where a block computes
/// `x·k` (the low half, `mul i32`) and `zext(x)·k` in 64 bits (the high half of `tt.mulhiui`),
/// the low half becomes the wide product's truncation (O3 narrows such a truncation back to a
/// `mul i32`, so this runs after it). ptxas makes one `IMAD.WIDE.U32` of the pair instead of an
/// `IMAD` and an `IMAD.HI`, which share the multiply pipe: dropout's Philox rounds, bound by
/// that pipe, 554 → 460 SASS instructions and 6% faster on the H100 (Triton's PTX keeps the
/// halves apart).
fn products_share_wide_multiplies(module: &LlvmModule) {
    use std::collections::HashMap;
    // SAFETY: the module is live; each block's instructions are only read while collecting;
    // each pair is then rebuilt at the earlier of its two multiplies (whose factor is defined
    // before both), and the replaced multiplies are erased once, after the block's walk.
    unsafe {
        let builder = LLVMCreateBuilderInContext(module.context);
        let (i32_type, i64_type) = (
            LLVMInt32TypeInContext(module.context),
            LLVMInt64TypeInContext(module.context),
        );
        for block in basic_blocks(module) {
            // (factor, constant) → the low / the wide multiply, with its place in the block.
            let mut low: HashMap<(ValueRef, u64), (usize, ValueRef)> = HashMap::new();
            let mut wide: HashMap<(ValueRef, u64), (usize, ValueRef)> = HashMap::new();
            for (place, instruction) in instructions(block).into_iter().enumerate() {
                if LLVMGetInstructionOpcode(instruction) != OPCODE_MUL {
                    continue;
                }
                let (x, k) = (
                    LLVMGetOperand(instruction, 0),
                    LLVMGetOperand(instruction, 1),
                );
                if LLVMIsAConstantInt(k).is_null() {
                    continue;
                }
                let constant = LLVMConstIntGetZExtValue(k);
                match int_width(instruction) {
                    32 => {
                        low.entry((x, constant)).or_insert((place, instruction));
                    }
                    64 if constant <= u64::from(u32::MAX)
                        && !LLVMIsAInstruction(x).is_null()
                        && LLVMGetInstructionOpcode(x) == OPCODE_ZEXT
                        && int_width(LLVMGetOperand(x, 0)) == 32 =>
                    {
                        let factor = LLVMGetOperand(x, 0);
                        wide.entry((factor, constant))
                            .or_insert((place, instruction));
                    }
                    _ => {}
                }
            }
            let mut pairs: Vec<_> = low
                .into_iter()
                .filter_map(|(key, narrow)| wide.get(&key).map(|&w| (narrow, w, key)))
                .collect();
            // Block order, so that the output does not depend on the maps' iteration order.
            pairs.sort_by_key(|&((place, _), _, _)| place);
            for ((narrow_place, narrow), (wide_place, wide), (factor, constant)) in pairs {
                // The shared product goes where the first of the two was.
                let first = if narrow_place < wide_place {
                    narrow
                } else {
                    wide
                };
                LLVMPositionBuilderBefore(builder, first);
                let extended = LLVMBuildZExt(builder, factor, i64_type, c"".as_ptr());
                let k = LLVMConstInt(i64_type, constant, 0);
                let product = LLVMBuildMul(builder, extended, k, c"".as_ptr());
                LLVMSetNUW(product, 1);
                let truncated = LLVMBuildTrunc(builder, product, i32_type, c"".as_ptr());
                let location = LLVMInstructionGetDebugLoc(narrow);
                for new in [extended, product, truncated] {
                    LLVMInstructionSetDebugLoc(new, location);
                }
                LLVMReplaceAllUsesWith(narrow, truncated);
                LLVMReplaceAllUsesWith(wide, product);
                LLVMInstructionEraseFromParent(narrow);
                LLVMInstructionEraseFromParent(wide);
            }
        }
        LLVMDisposeBuilder(builder);
    }
}

/// Rewrites `or disjoint x, c` (`c` a constant) that a multiply by a constant reads as
/// `add nuw nsw x, c`: the same value, since no bit is set in both (so neither wrap flag can be
/// violated). NVPTX's instruction selection distributes such a multiply over an added constant,
/// `(x + c)·k → x·k + c·k`, when `x·k` is computed as well, and over a lone `or disjoint`
/// too, but not where `x` is itself an `or disjoint` (a program's base `|` a thread's offset),
/// which it reassociates first: the offsets of a thread's run of elements, `base | i`, then
/// each take a multiply of their own. In dropout's Philox rounds, 7 `mul.lo` per thread more
/// than Triton's (whose LLVM distributes them), on the multiply pipe that bounds the kernel.
fn disjoint_offsets_of_products_as_adds(module: &LlvmModule) {
    /// Whether `value` is an instruction multiplying by a constant.
    ///
    /// # Safety
    /// `value` is a live LLVM value.
    unsafe fn is_product_by_constant(value: ValueRef) -> bool {
        // SAFETY: queries on a live value; operands are read only from a multiply (two).
        unsafe {
            !LLVMIsAInstruction(value).is_null()
                && LLVMGetInstructionOpcode(value) == OPCODE_MUL
                && (0..2).any(|i| !LLVMIsAConstantInt(LLVMGetOperand(value, i)).is_null())
        }
    }
    // SAFETY: the module is live; blocks, instructions and users are only read while
    // collecting; each rewritten `or` (a binary instruction: two operands) is replaced and
    // erased after the walk, once, and the builder is disposed once.
    unsafe {
        let rewrites: Vec<ValueRef> = basic_blocks(module)
            .into_iter()
            .flat_map(|block| instructions(block))
            .filter(|&instruction| {
                LLVMGetInstructionOpcode(instruction) == OPCODE_OR
                    && LLVMGetIsDisjoint(instruction) != 0
                    && !LLVMIsAConstantInt(LLVMGetOperand(instruction, 1)).is_null()
                    && users(instruction)
                        .into_iter()
                        .any(|user| is_product_by_constant(user))
            })
            .collect();
        if rewrites.is_empty() {
            return;
        }
        let builder = LLVMCreateBuilderInContext(module.context);
        for or in rewrites {
            LLVMPositionBuilderBefore(builder, or);
            let add = LLVMBuildAdd(
                builder,
                LLVMGetOperand(or, 0),
                LLVMGetOperand(or, 1),
                c"".as_ptr(),
            );
            LLVMSetNUW(add, 1);
            LLVMSetNSW(add, 1);
            LLVMInstructionSetDebugLoc(add, LLVMInstructionGetDebugLoc(or));
            LLVMReplaceAllUsesWith(or, add);
            LLVMInstructionEraseFromParent(or);
        }
        LLVMDisposeBuilder(builder);
    }
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
