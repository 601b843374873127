//! The C interface to the glue in `dialects/cpp` (mirrors `cpp/tritium-c.h`).
#![allow(non_snake_case)]

use mlir_sys::{MlirDialectHandle, MlirOperation, MlirStringRef, MlirType};
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
    pub fn tritiumTypeIsPointer(type_: MlirType) -> bool;
    pub fn tritiumPointerTypeGet(pointee: MlirType, address_space: c_int) -> MlirType;
    pub fn tritiumPointerTypeGetPointee(type_: MlirType) -> MlirType;
    pub fn tritiumPointerTypeGetAddressSpace(type_: MlirType) -> c_int;
    pub fn tritiumTypeIsTensorDesc(type_: MlirType) -> bool;
    pub fn tritiumTensorDescTypeGetBlockType(type_: MlirType) -> MlirType;
}

/// # Safety
/// `s` must be valid for the duration of the returned slice's use.
pub unsafe fn string_ref_str<'a>(s: MlirStringRef) -> &'a str {
    if s.length == 0 {
        return "";
    }
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    std::str::from_utf8(bytes).unwrap_or("")
}
