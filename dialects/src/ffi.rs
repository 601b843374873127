//! The C interface to the glue in `dialects/cpp` (mirrors `cpp/tritium-c.h`).
#![allow(non_snake_case)]

use mlir_sys::{MlirDialectHandle, MlirOperation, MlirPassManager, MlirStringRef, MlirType};
use std::ffi::{c_char, c_int, c_void};

pub const OPTION_STRING: c_int = 0;
pub const OPTION_INT: c_int = 1;
pub const OPTION_BOOL: c_int = 2;
pub const OPTION_FLOAT: c_int = 3;

#[repr(C)]
pub struct TritiumOptionInfo {
    pub name: *const c_char,
    pub description: *const c_char,
    pub kind: c_int,
    pub default_value: *const c_char,
}

pub type RunPass = unsafe extern "C" fn(
    user_data: *const c_void,
    op: MlirOperation,
    option_values: *const MlirStringRef,
    num_values: usize,
) -> bool;

#[repr(C)]
pub struct TritiumPassInfo {
    pub argument: *const c_char,
    pub summary: *const c_char,
    pub op_name: *const c_char,
    pub options: *const TritiumOptionInfo,
    pub num_options: usize,
    pub dependent_dialects: *const MlirDialectHandle,
    pub num_dependent_dialects: usize,
    pub run: RunPass,
    pub user_data: *const c_void,
}

pub type AppendText = unsafe extern "C" fn(text: MlirStringRef, out: *mut c_void);

pub type BuildPipeline = unsafe extern "C" fn(
    user_data: *const c_void,
    option_values: *const MlirStringRef,
    num_values: usize,
    append: AppendText,
    out: *mut c_void,
) -> bool;

#[repr(C)]
pub struct TritiumPipelineInfo {
    pub argument: *const c_char,
    pub summary: *const c_char,
    pub options: *const TritiumOptionInfo,
    pub num_options: usize,
    pub build: BuildPipeline,
    pub user_data: *const c_void,
}

unsafe extern "C" {
    pub fn mlirGetDialectHandle__tt__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__ttg__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__ttng__() -> MlirDialectHandle;
    pub fn tritiumRegisterPass(info: *const TritiumPassInfo);
    pub fn tritiumRegisterPipeline(info: *const TritiumPipelineInfo);
    /// MLIR's crash reproducer on `pm`: a failing or crashing pass writes the pipeline and its
    /// input IR to `path` (`PassManager::enableCrashReproducerGeneration`).
    pub fn tritiumPassManagerEnableCrashReproducer(pm: MlirPassManager, path: MlirStringRef);
    pub fn tritiumTypeIsPointer(type_: MlirType) -> bool;
    pub fn tritiumPointerTypeGet(pointee: MlirType, address_space: c_int) -> MlirType;
    pub fn tritiumPointerTypeGetPointee(type_: MlirType) -> MlirType;
    pub fn tritiumPointerTypeGetAddressSpace(type_: MlirType) -> c_int;
    pub fn tritiumTypeIsTensorDesc(type_: MlirType) -> bool;
    pub fn tritiumTensorDescTypeGetBlockType(type_: MlirType) -> MlirType;
    /// `!tt.tensordesc<block>` of a ranked tensor type.
    pub fn tritiumTensorDescTypeGet(block_type: MlirType) -> MlirType;
    /// `#arith.fastmath<...>` from its flag bits (no C-API constructor upstream).
    pub fn tritiumArithFastMathAttrGet(
        context: mlir_sys::MlirContext,
        flags: std::ffi::c_uint,
    ) -> mlir_sys::MlirAttribute;
}

/// A string ref viewing `text`, valid while `text` is. MLIR string refs carry their length, so
/// `text` needs no NUL terminator (and may not be cut short by one).
pub fn str_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr() as *const std::ffi::c_char,
        length: text.len(),
    }
}

/// # Safety
/// `s` must be valid for the duration of the returned slice's use.
pub unsafe fn string_ref_str<'a>(s: MlirStringRef) -> &'a str {
    if s.length == 0 {
        return "";
    }
    // SAFETY: by this function's contract `s` points to `s.length` bytes valid for the returned
    // lifetime (non-empty: checked above).
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    std::str::from_utf8(bytes).unwrap_or("")
}

/// `ttg` encodings and types (`cpp/TritonGPUCAPI.cpp`; safe wrappers in [`crate::encoding`]).
pub mod ttg {
    use mlir_sys::{MlirAttribute, MlirContext, MlirType};
    use std::ffi::{c_int, c_uint};

    pub const LINEAR_REGISTER: c_int = 0;
    pub const LINEAR_LANE: c_int = 1;
    pub const LINEAR_WARP: c_int = 2;
    pub const LINEAR_BLOCK: c_int = 3;

    unsafe extern "C" {
        pub fn tritiumAttributeIsABlockedEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsASliceEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsANvidiaMmaEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsADotOperandEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsALinearEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsASwizzledSharedEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsANvmmaSharedEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsASharedEncoding(attr: MlirAttribute) -> bool;
        pub fn tritiumAttributeIsASharedMemorySpace(attr: MlirAttribute) -> bool;

        pub fn tritiumBlockedEncodingGetSizePerThread(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumBlockedEncodingGetThreadsPerWarp(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumEncodingGetWarpsPerCTA(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumEncodingGetOrder(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumEncodingGetCTAsPerCGA(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumEncodingGetCTASplitNum(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumEncodingGetCTAOrder(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumSliceEncodingGetDim(attr: MlirAttribute) -> c_uint;
        pub fn tritiumSliceEncodingGetParent(attr: MlirAttribute) -> MlirAttribute;
        pub fn tritiumNvidiaMmaEncodingGetVersionMajor(attr: MlirAttribute) -> c_uint;
        pub fn tritiumNvidiaMmaEncodingGetVersionMinor(attr: MlirAttribute) -> c_uint;
        pub fn tritiumNvidiaMmaEncodingGetInstrShape(
            attr: MlirAttribute,
            out: *mut c_uint,
            capacity: isize,
        ) -> isize;
        pub fn tritiumDotOperandEncodingGetOpIdx(attr: MlirAttribute) -> c_uint;
        pub fn tritiumDotOperandEncodingGetParent(attr: MlirAttribute) -> MlirAttribute;
        pub fn tritiumDotOperandEncodingGetKWidth(attr: MlirAttribute) -> c_uint;
        pub fn tritiumLinearEncodingGetRank(attr: MlirAttribute) -> c_uint;
        pub fn tritiumLinearEncodingGetBases(
            attr: MlirAttribute,
            which: c_int,
            out: *mut i32,
            capacity: isize,
        ) -> isize;
        pub fn tritiumSwizzledSharedEncodingGetVec(attr: MlirAttribute) -> c_uint;
        pub fn tritiumSwizzledSharedEncodingGetPerPhase(attr: MlirAttribute) -> c_uint;
        pub fn tritiumSwizzledSharedEncodingGetMaxPhase(attr: MlirAttribute) -> c_uint;
        pub fn tritiumNvmmaSharedEncodingGetSwizzlingByteWidth(attr: MlirAttribute) -> c_uint;
        pub fn tritiumNvmmaSharedEncodingGetTransposed(attr: MlirAttribute) -> bool;
        pub fn tritiumNvmmaSharedEncodingGetElementBitWidth(attr: MlirAttribute) -> c_uint;
        pub fn tritiumNvmmaSharedEncodingGetFp4Padded(attr: MlirAttribute) -> bool;

        pub fn tritiumBlockedEncodingGet(
            ctx: MlirContext,
            rank: isize,
            size_per_thread: *const c_uint,
            threads_per_warp: *const c_uint,
            warps_per_cta: *const c_uint,
            order: *const c_uint,
            ctas_per_cga: *const c_uint,
            cta_split_num: *const c_uint,
            cta_order: *const c_uint,
        ) -> MlirAttribute;
        pub fn tritiumSliceEncodingGet(
            ctx: MlirContext,
            dim: c_uint,
            parent: MlirAttribute,
        ) -> MlirAttribute;
        pub fn tritiumNvidiaMmaEncodingGet(
            ctx: MlirContext,
            version_major: c_uint,
            version_minor: c_uint,
            rank: isize,
            warps_per_cta: *const c_uint,
            instr_rank: isize,
            instr_shape: *const c_uint,
            ctas_per_cga: *const c_uint,
            cta_split_num: *const c_uint,
            cta_order: *const c_uint,
        ) -> MlirAttribute;
        pub fn tritiumDotOperandEncodingGet(
            ctx: MlirContext,
            op_idx: c_uint,
            parent: MlirAttribute,
            k_width: c_uint,
        ) -> MlirAttribute;
        pub fn tritiumLinearEncodingGet(
            ctx: MlirContext,
            rank: c_uint,
            register_bases: *const i32,
            num_register: isize,
            lane_bases: *const i32,
            num_lane: isize,
            warp_bases: *const i32,
            num_warp: isize,
            block_bases: *const i32,
            num_block: isize,
        ) -> MlirAttribute;
        pub fn tritiumSwizzledSharedEncodingGet(
            ctx: MlirContext,
            vec: c_uint,
            per_phase: c_uint,
            max_phase: c_uint,
            rank: isize,
            order: *const c_uint,
            ctas_per_cga: *const c_uint,
            cta_split_num: *const c_uint,
            cta_order: *const c_uint,
        ) -> MlirAttribute;
        pub fn tritiumNvmmaSharedEncodingGet(
            ctx: MlirContext,
            swizzling_byte_width: c_uint,
            transposed: bool,
            element_bit_width: c_uint,
            fp4_padded: bool,
            cta_rank: isize,
            ctas_per_cga: *const c_uint,
            cta_split_num: *const c_uint,
            cta_order: *const c_uint,
        ) -> MlirAttribute;
        pub fn tritiumSharedMemorySpaceGet(ctx: MlirContext) -> MlirAttribute;

        pub fn tritiumTypeIsMemDesc(type_: MlirType) -> bool;
        pub fn tritiumMemDescTypeGet(
            element_type: MlirType,
            rank: isize,
            shape: *const i64,
            encoding: MlirAttribute,
            memory_space: MlirAttribute,
            mutable_memory: bool,
            alloc_rank: isize,
            alloc_shape: *const i64,
        ) -> MlirType;
        pub fn tritiumMemDescTypeGetShape(type_: MlirType, out: *mut i64, capacity: isize)
        -> isize;
        pub fn tritiumMemDescTypeGetAllocShape(
            type_: MlirType,
            out: *mut i64,
            capacity: isize,
        ) -> isize;
        pub fn tritiumMemDescTypeGetElementType(type_: MlirType) -> MlirType;
        pub fn tritiumMemDescTypeGetEncoding(type_: MlirType) -> MlirAttribute;
        pub fn tritiumMemDescTypeGetMemorySpace(type_: MlirType) -> MlirAttribute;
        pub fn tritiumMemDescTypeIsMutable(type_: MlirType) -> bool;
        pub fn tritiumTypeIsAsyncToken(type_: MlirType) -> bool;
        pub fn tritiumAsyncTokenTypeGet(ctx: MlirContext) -> MlirType;
    }
}
