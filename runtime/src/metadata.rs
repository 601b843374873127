//! Kernel launch metadata (`K.json` beside `K.ptx`) and the kernel signature check.
//!
//! [`KernelMetadata`] is the one definition of the file: the compiler writes it and the runtime
//! and the cache read it. It holds every field Triton 3.6 writes for a CUDA kernel (`hash`,
//! `target`, the compile options `num_warps` ... `instrumentation_mode`, `triton_version`, then
//! `shared`, the scratch sizes and `name`), in Triton's order and with Triton's meaning, plus
//! Tritium's `signature` and `arg_names`. Every field but `name` and `num_warps` has Triton's
//! default when absent, so Triton's own metadata files load too (without a signature, arguments
//! are not type-checked).
//!
//! ```json
//! {"hash":"9f2c...","target":{"backend":"cuda","arch":90,"warp_size":32},"num_warps":4,
//!  "num_ctas":1,"num_stages":3, ..., "arch":"sm90", ..., "shared":0, ..., "name":"add_kernel",
//!  "signature":["*f32","*f32","*f32","i32"],"arg_names":["x_ptr","y_ptr","out_ptr","n"]}
//! ```

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Result, RuntimeError};

/// Element type of the memory a pointer parameter points to (or a buffer holds).
///
/// Spelled as in the `tt` dialect (`f16`, `bf16`, `f32`, `i32`, `fp8e4nv`, ...); Triton's
/// `fp16`/`fp32`/`fp64` spellings are accepted when parsing. Anything else is kept verbatim as
/// [`ElemType::Other`] and only matches the identical spelling.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// `i1` (stored as one byte).
    I1,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// IEEE half.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// 8-bit float e4m3 (NVIDIA flavour, `f8E4M3FN`).
    Fp8E4Nv,
    /// 8-bit float e5m2.
    Fp8E5,
    /// Triton's e4m3 with bias 15.
    Fp8E4B15,
    /// e4m3 with bias 8 (AMD flavour, `f8E4M3FNUZ`).
    Fp8E4B8,
    /// e5m2 with bias 16 (AMD flavour, `f8E5M2FNUZ`).
    Fp8E5B16,
    /// Any other spelling, kept as written.
    Other(String),
}

impl ElemType {
    /// The canonical spelling.
    pub fn name(&self) -> &str {
        match self {
            ElemType::I1 => "i1",
            ElemType::I8 => "i8",
            ElemType::I16 => "i16",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::U8 => "u8",
            ElemType::U16 => "u16",
            ElemType::U32 => "u32",
            ElemType::U64 => "u64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::Fp8E4Nv => "fp8e4nv",
            ElemType::Fp8E5 => "fp8e5",
            ElemType::Fp8E4B15 => "fp8e4b15",
            ElemType::Fp8E4B8 => "fp8e4b8",
            ElemType::Fp8E5B16 => "fp8e5b16",
            ElemType::Other(s) => s,
        }
    }

    /// Size of one element in bytes, when known.
    pub fn size_bytes(&self) -> Option<usize> {
        Some(match self {
            ElemType::I1 | ElemType::I8 | ElemType::U8 => 1,
            ElemType::Fp8E4Nv
            | ElemType::Fp8E5
            | ElemType::Fp8E4B15
            | ElemType::Fp8E4B8
            | ElemType::Fp8E5B16 => 1,
            ElemType::I16 | ElemType::U16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::I32 | ElemType::U32 | ElemType::F32 => 4,
            ElemType::I64 | ElemType::U64 | ElemType::F64 => 8,
            ElemType::Other(_) => return None,
        })
    }

    /// Parses a spelling; never fails (unknown spellings become [`ElemType::Other`]).
    pub fn parse(s: &str) -> ElemType {
        match s.trim() {
            "i1" | "u1" | "bool" => ElemType::I1,
            "i8" => ElemType::I8,
            "i16" => ElemType::I16,
            "i32" => ElemType::I32,
            "i64" => ElemType::I64,
            "u8" => ElemType::U8,
            "u16" => ElemType::U16,
            "u32" => ElemType::U32,
            "u64" => ElemType::U64,
            "f16" | "fp16" => ElemType::F16,
            "bf16" => ElemType::BF16,
            "f32" | "fp32" => ElemType::F32,
            "f64" | "fp64" => ElemType::F64,
            "fp8e4nv" | "f8E4M3FN" => ElemType::Fp8E4Nv,
            "fp8e5" | "f8E5M2" => ElemType::Fp8E5,
            "fp8e4b15" => ElemType::Fp8E4B15,
            "fp8e4b8" | "f8E4M3FNUZ" => ElemType::Fp8E4B8,
            "fp8e5b16" | "f8E5M2FNUZ" => ElemType::Fp8E5B16,
            other => ElemType::Other(other.to_string()),
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The type of one kernel parameter, serialized as a string: `"ptr"` (pointer, element type not
/// recorded), `"*f32"`, `"*f16"`, `"*bf16"`, `"*i32"`, `"*fp8e4nv"`, ... (typed pointer), or one
/// of the scalars `"i1"`, `"i32"`, `"i64"`, `"f32"`, `"f64"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ParamType {
    /// A global-memory pointer, optionally with its element type.
    Ptr(Option<ElemType>),
    /// `i1`, passed as one byte.
    I1,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `nvTmaDesc`: a host-side TMA descriptor (`CUtensorMap`, 128 bytes) passed by value, as
    /// Triton passes `tensordesc` arguments on sm_90; see [`crate::TensorMap`].
    TensorDesc,
}

impl ParamType {
    /// Whether an argument of kind `arg` may be passed for this parameter. Pointers match
    /// pointers; element types must agree when both sides know theirs.
    pub fn accepts(&self, arg: &ArgKind) -> bool {
        match (self, arg) {
            (ParamType::Ptr(want), ArgKind::Ptr(have)) => match (want, have) {
                (Some(w), Some(h)) => w == h,
                _ => true,
            },
            (ParamType::I1, ArgKind::I1)
            | (ParamType::I32, ArgKind::I32)
            | (ParamType::I64, ArgKind::I64)
            | (ParamType::F32, ArgKind::F32)
            | (ParamType::F64, ArgKind::F64)
            | (ParamType::TensorDesc, ArgKind::TensorDesc) => true,
            _ => false,
        }
    }
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::Ptr(None) => f.write_str("ptr"),
            ParamType::Ptr(Some(e)) => write!(f, "*{e}"),
            ParamType::I1 => f.write_str("i1"),
            ParamType::I32 => f.write_str("i32"),
            ParamType::I64 => f.write_str("i64"),
            ParamType::F32 => f.write_str("f32"),
            ParamType::F64 => f.write_str("f64"),
            ParamType::TensorDesc => f.write_str("nvTmaDesc"),
        }
    }
}

impl FromStr for ParamType {
    type Err = RuntimeError;

    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim();
        if let Some(elem) = s.strip_prefix('*') {
            if elem.trim().is_empty() {
                return Err(RuntimeError::Metadata(format!(
                    "pointer parameter type `{s}` has no element type (write `ptr` or e.g. `*f32`)"
                )));
            }
            return Ok(ParamType::Ptr(Some(ElemType::parse(elem))));
        }
        Ok(match s {
            "ptr" => ParamType::Ptr(None),
            "i1" => ParamType::I1,
            "i32" => ParamType::I32,
            "i64" => ParamType::I64,
            "f32" | "fp32" => ParamType::F32,
            "f64" | "fp64" => ParamType::F64,
            "nvTmaDesc" => ParamType::TensorDesc,
            other => {
                return Err(RuntimeError::Metadata(format!(
                    "unknown parameter type `{other}` (expected ptr, *ELEM, i1, i32, i64, f32, f64 or nvTmaDesc)"
                )));
            }
        })
    }
}

impl TryFrom<String> for ParamType {
    type Error = RuntimeError;
    fn try_from(s: String) -> Result<Self> {
        s.parse()
    }
}

impl From<ParamType> for String {
    fn from(p: ParamType) -> String {
        p.to_string()
    }
}

/// What a launch argument is, for the signature check (see [`crate::KernelArg::kind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgKind {
    /// A device pointer, with the element type its buffer was tagged with, if any.
    Ptr(Option<ElemType>),
    /// `bool`.
    I1,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// A host-side TMA descriptor.
    TensorDesc,
}

impl fmt::Display for ArgKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgKind::Ptr(None) => f.write_str("a pointer"),
            ArgKind::Ptr(Some(e)) => write!(f, "*{e}"),
            ArgKind::I1 => f.write_str("i1"),
            ArgKind::I32 => f.write_str("i32"),
            ArgKind::I64 => f.write_str("i64"),
            ArgKind::F32 => f.write_str("f32"),
            ArgKind::F64 => f.write_str("f64"),
            ArgKind::TensorDesc => f.write_str("a TMA descriptor"),
        }
    }
}

/// The GPU a kernel is compiled for: Triton's `GPUTarget`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuTarget {
    /// `cuda`.
    pub backend: String,
    /// Compute capability times ten (80, 90).
    pub arch: u32,
    /// Threads per warp (32).
    pub warp_size: u32,
}

/// Launch metadata of one compiled kernel (`K.json`): Triton 3.6's fields, in its order, then
/// Tritium's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelMetadata {
    /// The compilation's hash: the compile-cache key (Triton: the cache directory's name).
    #[serde(default)]
    pub hash: String,
    /// The GPU compiled for; absent in files that do not record it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<GpuTarget>,
    /// Warps per block: the launch uses `32 * num_warps` threads.
    pub num_warps: u32,
    /// CTAs per cluster (1: no clusters).
    #[serde(default = "one")]
    pub num_ctas: u32,
    /// Software-pipelining stages the compiler used.
    #[serde(default = "default_num_stages")]
    pub num_stages: u32,
    /// Threads per warp.
    #[serde(default = "warp_size")]
    pub warp_size: u32,
    /// `.maxnreg` of the kernel, when one was asked for.
    #[serde(default)]
    pub maxnreg: Option<u32>,
    /// Cluster shape of the launch.
    #[serde(default = "unit_cluster")]
    pub cluster_dims: [u32; 3],
    /// PTX ISA version times ten (84: `.version 8.4`).
    #[serde(default)]
    pub ptx_version: Option<u32>,
    /// Extra `ptxas` options.
    #[serde(default)]
    pub ptx_options: Option<String>,
    /// A user file that replaced one stage's IR.
    #[serde(default)]
    pub ir_override: Option<String>,
    /// Floating-point multiply-add contraction allowed.
    #[serde(default = "yes")]
    pub enable_fp_fusion: bool,
    /// Denormals flushed in library math (`__nvvm_reflect("__CUDA_FTZ")`).
    #[serde(default = "yes")]
    pub enable_reflect_ftz: bool,
    /// Launched with `cuLaunchCooperativeKernel`.
    #[serde(default)]
    pub launch_cooperative_grid: bool,
    /// Launched with programmatic dependent launch.
    #[serde(default)]
    pub launch_pdl: bool,
    /// The fp8 element types the target supports.
    #[serde(default)]
    pub supported_fp8_dtypes: Vec<String>,
    /// fp8 types `tt.dot` accepts only through an upcast on this target.
    #[serde(default)]
    pub deprecated_fp8_dot_operand_dtypes: Vec<String>,
    /// `tt.dot`'s input precision when the kernel names none.
    #[serde(default = "tf32")]
    pub default_dot_input_precision: String,
    /// The input precisions `tt.dot` accepts.
    #[serde(default)]
    pub allowed_dot_input_precisions: Vec<String>,
    /// fp8 dots' default imprecise-accumulation interval.
    #[serde(default)]
    pub max_num_imprecise_acc_default: u64,
    /// External bitcode libraries linked, as `[name, path]` (none: Tritium has its own math).
    #[serde(default)]
    pub extern_libs: Vec<(String, String)>,
    /// Compiled in debug mode (`TRITON_DEBUG`): device assertions kept.
    #[serde(default)]
    pub debug: bool,
    /// `cuda`.
    #[serde(default = "cuda")]
    pub backend_name: String,
    /// Integer overflow checks inserted (debug mode).
    #[serde(default)]
    pub sanitize_overflow: bool,
    /// Device assertions kept (debug mode).
    #[serde(default)]
    pub enable_assertions: bool,
    /// Triton's spelling of the target, `sm90`; older Tritium files hold `sm_90a`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub arch: String,
    /// Instrumentation pass run (none: empty).
    #[serde(default)]
    pub instrumentation_mode: String,
    /// The Triton release whose IR and metadata this follows.
    #[serde(default)]
    pub triton_version: String,
    /// Tensor-descriptor metadata (none: Tritium makes no TMA descriptors on the host).
    #[serde(default)]
    pub tensordesc_meta: Vec<serde_json::Value>,
    /// Dynamic shared memory in bytes, passed to the launch.
    #[serde(default)]
    pub shared: u32,
    /// Tensor memory bytes (Blackwell; 0).
    #[serde(default)]
    pub tmem_size: u32,
    /// Global scratch bytes per program (0: none needed).
    #[serde(default)]
    pub global_scratch_size: u32,
    /// Alignment of the global scratch buffer.
    #[serde(default = "one")]
    pub global_scratch_align: u32,
    /// Profiler scratch bytes.
    #[serde(default)]
    pub profile_scratch_size: u32,
    /// Alignment of the profiler scratch buffer.
    #[serde(default = "one")]
    pub profile_scratch_align: u32,
    /// Entry symbol in the PTX (`.entry NAME`).
    pub name: String,
    /// Tritium: parameter types in order; empty when not recorded (then arguments are not
    /// checked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signature: Vec<ParamType>,
    /// Tritium: parameter names in order (optional, used in error messages).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arg_names: Vec<String>,
    /// Tritium: the kernel runs its programs persistently (`-tritium-persistent-programs`).
    /// Its last parameter, after the signature's and before the global scratch, is the number
    /// of programs the grid asks for along axis 0; the launcher may start fewer (as many as fit
    /// on the GPU at once), each running the virtual programs `p, p + launched, ...`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub virtual_programs: bool,
    /// Tritium: TMA descriptors the launcher encodes from the arguments
    /// (`-tritium-host-descriptors`), passed by value after the signature's parameters and the
    /// program count, before the global scratch; see [`HostDescriptor`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_descriptors: Vec<HostDescriptor>,
}

/// A TMA descriptor parameter the launcher encodes (`cuTensorMapEncodeTiled`) at each launch from
/// the kernel's arguments: the tensor at argument `base`, with extents and strides (in elements,
/// outermost first) read from arguments or given, boxes and swizzle as in `tensordesc_meta`,
/// out-of-bounds elements zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostDescriptor {
    /// The argument holding the tensor's base address.
    pub base: usize,
    /// The extents, outermost first.
    pub shape: Vec<DescriptorValue>,
    /// The strides in elements, outermost first (the innermost 1).
    pub strides: Vec<DescriptorValue>,
    /// The box, swizzle and element type, as a `tensordesc_meta` entry gives them.
    #[serde(flatten)]
    pub meta: crate::TensorDescMeta,
}

/// An extent or stride of a [`HostDescriptor`]: `{"arg": index}`, `{"value": v}`,
/// `{"programs": axis}` or `{"product": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DescriptorValue {
    /// The integer argument `index`.
    Arg(usize),
    /// A constant.
    Value(u64),
    /// The number of programs the launch's grid asks for along `axis` (0, 1 or 2): the extent
    /// of a batch dimension indexed by the program id (`tl.program_id(axis)`).
    Programs(u32),
    /// The product of arguments and constants, which the kernel computed in 32 bits (`M * K`, a
    /// batch's stride): refused when it does not fit there.
    Product(Vec<DescriptorValue>),
}

fn one() -> u32 {
    1
}
fn default_num_stages() -> u32 {
    3
}
fn warp_size() -> u32 {
    32
}
fn unit_cluster() -> [u32; 3] {
    [1, 1, 1]
}
fn yes() -> bool {
    true
}
fn tf32() -> String {
    "tf32".into()
}
fn cuda() -> String {
    "cuda".into()
}

/// The Triton release whose metadata format [`KernelMetadata`] follows.
pub const TRITON_VERSION: &str = "3.6.0";

impl KernelMetadata {
    /// Metadata with the given entry name and warps, no dynamic shared memory, and Triton's
    /// defaults for everything else (no target recorded).
    pub fn new(name: impl Into<String>, num_warps: u32) -> Self {
        serde_json::from_value(serde_json::json!({"name": name.into(), "num_warps": num_warps}))
            .expect("every other field has a default")
    }

    /// Metadata for a kernel compiled for compute capability `capability` (80, 90), with what
    /// Triton's CUDA backend derives from it: the target, `arch`, the fp8 types and dot
    /// precisions, the imprecise-accumulation default.
    pub fn for_cuda(name: impl Into<String>, num_warps: u32, capability: u32) -> Self {
        let mut fp8 = vec!["fp8e4b15".to_owned(), "fp8e5".to_owned()];
        if capability >= 89 {
            fp8.push("fp8e4nv".to_owned());
        }
        fp8.sort();
        KernelMetadata {
            target: Some(GpuTarget {
                backend: "cuda".into(),
                arch: capability,
                warp_size: 32,
            }),
            supported_fp8_dtypes: fp8,
            deprecated_fp8_dot_operand_dtypes: if capability >= 90 {
                vec!["fp8e4b15".into()]
            } else {
                Vec::new()
            },
            allowed_dot_input_precisions: ["tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"]
                .map(String::from)
                .to_vec(),
            max_num_imprecise_acc_default: if capability == 90 { 1 << 30 } else { 0 },
            arch: format!("sm{capability}"),
            triton_version: TRITON_VERSION.into(),
            ..KernelMetadata::new(name, num_warps)
        }
    }

    /// Parses and validates JSON text.
    pub fn from_json(text: &str) -> Result<Self> {
        let md: KernelMetadata =
            serde_json::from_str(text).map_err(|e| RuntimeError::Metadata(e.to_string()))?;
        md.validate()?;
        Ok(md)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        // Serializing a struct of strings, numbers and lists cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// One line of JSON and a newline, as `K.json` is written.
    pub fn to_json_line(&self) -> String {
        // Serializing a struct of strings, numbers and lists cannot fail.
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }

    /// Reads a metadata file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| RuntimeError::io(path, e))?;
        Self::from_json(&text)
            .map_err(|e| RuntimeError::Metadata(format!("{}: {}", path.display(), strip(&e))))
    }

    /// Reads `DIR/KERNEL.json`.
    pub fn load(dir: impl AsRef<Path>, kernel: &str) -> Result<Self> {
        Self::from_file(dir.as_ref().join(format!("{kernel}.json")))
    }

    /// Threads per block (`32 * num_warps`).
    pub fn threads_per_block(&self) -> u32 {
        32 * self.num_warps
    }

    /// Checks internal consistency: a non-empty name, 1..=32 warps, names matching the signature.
    pub fn validate(&self) -> Result<()> {
        if self.name.trim().is_empty() {
            return Err(RuntimeError::Metadata("empty kernel name".into()));
        }
        if self.num_warps == 0 || self.num_warps > 32 {
            return Err(RuntimeError::Metadata(format!(
                "num_warps = {} (must be 1..=32: at most 1024 threads per block)",
                self.num_warps
            )));
        }
        if !self.arg_names.is_empty() && self.arg_names.len() != self.signature.len() {
            return Err(RuntimeError::Metadata(format!(
                "{} arg_names for {} signature entries",
                self.arg_names.len(),
                self.signature.len()
            )));
        }
        for (i, desc) in self.host_descriptors.iter().enumerate() {
            let bad =
                |what: String| RuntimeError::Metadata(format!("host_descriptors[{i}]: {what}"));
            let rank = desc.meta.block_size.len();
            if !(1..=5).contains(&rank) || desc.shape.len() != rank || desc.strides.len() != rank {
                return Err(bad(format!(
                    "a box of {rank} dims (1 to 5) with {} extents and {} strides",
                    desc.shape.len(),
                    desc.strides.len()
                )));
            }
            if !matches!(self.signature.get(desc.base), Some(ParamType::Ptr(_))) {
                return Err(bad(format!(
                    "its base, argument {}, is not a pointer parameter",
                    desc.base
                )));
            }
            let mut values: Vec<&DescriptorValue> =
                desc.shape.iter().chain(&desc.strides).collect();
            while let Some(value) = values.pop() {
                match value {
                    DescriptorValue::Arg(index)
                        if !matches!(
                            self.signature.get(*index),
                            Some(ParamType::I32 | ParamType::I64)
                        ) =>
                    {
                        return Err(bad(format!("argument {index} is not an integer parameter")));
                    }
                    DescriptorValue::Programs(axis) if *axis > 2 => {
                        return Err(bad(format!("grid axis {axis} (0, 1 or 2)")));
                    }
                    DescriptorValue::Product(factors) => {
                        if factors.iter().any(|f| {
                            !matches!(f, DescriptorValue::Arg(_) | DescriptorValue::Value(_))
                        }) {
                            return Err(bad(
                                "a product of other than arguments and constants".into()
                            ));
                        }
                        values.extend(factors);
                    }
                    _ => {}
                }
            }
            if desc
                .strides
                .iter()
                .any(|s| matches!(s, DescriptorValue::Programs(_)))
            {
                return Err(bad("a stride is a program count".into()));
            }
        }
        Ok(())
    }

    fn param_label(&self, i: usize) -> String {
        match self.arg_names.get(i) {
            Some(n) => format!("argument {i} (`{n}`)"),
            None => format!("argument {i}"),
        }
    }

    /// Checks launch arguments against [`Self::signature`]: count, kinds, and pointer element
    /// types where both sides know them. Indices in messages start at 0. With no recorded
    /// signature everything is accepted.
    pub fn check_args(&self, args: &[ArgKind]) -> Result<()> {
        if self.signature.is_empty() {
            return Ok(());
        }
        if args.len() != self.signature.len() {
            let params: Vec<String> = self
                .signature
                .iter()
                .enumerate()
                .map(|(i, t)| match self.arg_names.get(i) {
                    Some(n) => format!("{n}: {t}"),
                    None => t.to_string(),
                })
                .collect();
            return Err(RuntimeError::Signature(format!(
                "kernel `{}` takes {} arguments ({}), got {}",
                self.name,
                self.signature.len(),
                params.join(", "),
                args.len()
            )));
        }
        for (i, (want, have)) in self.signature.iter().zip(args).enumerate() {
            if !want.accepts(have) {
                let want_s = match want {
                    ParamType::Ptr(None) => "a pointer".to_string(),
                    t => t.to_string(),
                };
                let have_s = match (want, have) {
                    // A typed buffer against a typed pointer: say which element types disagree.
                    (ParamType::Ptr(_), ArgKind::Ptr(Some(e))) => format!("a buffer of {e}"),
                    _ => have.to_string(),
                };
                return Err(RuntimeError::Signature(format!(
                    "{}: kernel `{}` expects {want_s}, got {have_s}",
                    self.param_label(i),
                    self.name
                )));
            }
        }
        Ok(())
    }
}

/// The message of an error without its category prefix.
fn strip(e: &RuntimeError) -> String {
    match e {
        RuntimeError::Metadata(m) => m.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_triton_metadata_and_ignores_unknown_fields() {
        let md = KernelMetadata::from_json(
            r#"{"name": "matmul_kernel", "num_warps": 8, "shared": 147456, "num_stages": 3, "cluster_dims": [1,1,1]}"#,
        )
        .unwrap();
        assert_eq!(md.name, "matmul_kernel");
        assert_eq!(md.num_warps, 8);
        assert_eq!(md.shared, 147456);
        assert_eq!(md.arch, "");
        assert!(md.signature.is_empty());
        assert_eq!(md.threads_per_block(), 256);
    }

    /// Every field Triton 3.6 writes for a CUDA kernel, in its order, then Tritium's.
    #[test]
    fn cuda_metadata_has_tritons_fields_in_tritons_order() {
        let mut md = KernelMetadata::for_cuda("add_kernel", 4, 90);
        md.hash = "ab12".into();
        md.ptx_version = Some(84);
        md.signature = vec![ParamType::Ptr(Some(ElemType::F32)), ParamType::I32];
        md.arg_names = vec!["x_ptr".into(), "n".into()];
        assert_eq!(
            md.to_json_line(),
            concat!(
                r#"{"hash":"ab12","target":{"backend":"cuda","arch":90,"warp_size":32},"#,
                r#""num_warps":4,"num_ctas":1,"num_stages":3,"warp_size":32,"maxnreg":null,"#,
                r#""cluster_dims":[1,1,1],"ptx_version":84,"ptx_options":null,"#,
                r#""ir_override":null,"enable_fp_fusion":true,"enable_reflect_ftz":true,"#,
                r#""launch_cooperative_grid":false,"launch_pdl":false,"#,
                r#""supported_fp8_dtypes":["fp8e4b15","fp8e4nv","fp8e5"],"#,
                r#""deprecated_fp8_dot_operand_dtypes":["fp8e4b15"],"#,
                r#""default_dot_input_precision":"tf32","#,
                r#""allowed_dot_input_precisions":["tf32","tf32x3","ieee","bf16x3","bf16x6"],"#,
                r#""max_num_imprecise_acc_default":1073741824,"extern_libs":[],"debug":false,"#,
                r#""backend_name":"cuda","sanitize_overflow":false,"enable_assertions":false,"#,
                r#""arch":"sm90","instrumentation_mode":"","triton_version":"3.6.0","#,
                r#""tensordesc_meta":[],"shared":0,"tmem_size":0,"global_scratch_size":0,"#,
                r#""global_scratch_align":1,"profile_scratch_size":0,"profile_scratch_align":1,"#,
                r#""name":"add_kernel","signature":["*f32","i32"],"arg_names":["x_ptr","n"]}"#,
                "\n"
            )
        );
        assert_eq!(KernelMetadata::from_json(&md.to_json_line()).unwrap(), md);
        let ampere = KernelMetadata::for_cuda("k", 4, 80);
        assert_eq!(ampere.supported_fp8_dtypes, ["fp8e4b15", "fp8e5"]);
        assert!(ampere.deprecated_fp8_dot_operand_dtypes.is_empty());
        assert_eq!(ampere.max_num_imprecise_acc_default, 0);
    }

    /// A file as Triton 3.6 writes it (libdevice path and all) loads.
    #[test]
    fn tritons_own_metadata_loads() {
        let text = r#"{"hash": "5f7c", "target": {"backend": "cuda", "arch": 90, "warp_size": 32},
            "num_warps": 8, "num_ctas": 1, "num_stages": 3, "warp_size": 32, "maxnreg": null,
            "ptx_version": null, "ptx_options": null, "ir_override": null,
            "enable_fp_fusion": true, "enable_reflect_ftz": true,
            "launch_cooperative_grid": false, "launch_pdl": false,
            "supported_fp8_dtypes": ["fp8e4b15", "fp8e4nv", "fp8e5"],
            "deprecated_fp8_dot_operand_dtypes": ["fp8e4b15"],
            "default_dot_input_precision": "tf32",
            "allowed_dot_input_precisions": ["tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"],
            "max_num_imprecise_acc_default": 1073741824,
            "extern_libs": [["libdevice", "/site-packages/triton/backends/nvidia/lib/libdevice.10.bc"]],
            "debug": false, "backend_name": "cuda", "sanitize_overflow": false,
            "enable_assertions": false, "arch": "sm90", "instrumentation_mode": "",
            "triton_version": "3.6.0", "tensordesc_meta": [], "shared": 147456, "tmem_size": 0,
            "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
            "profile_scratch_align": 1, "name": "matmul_kernel"}"#;
        let md = KernelMetadata::from_json(text).unwrap();
        assert_eq!(
            (md.name.as_str(), md.num_warps, md.shared),
            ("matmul_kernel", 8, 147456)
        );
        assert_eq!(md.target.unwrap().arch, 90);
        assert_eq!(md.extern_libs[0].0, "libdevice");
    }

    #[test]
    fn signature_roundtrip() {
        let text = r#"{"name":"k","num_warps":4,"shared":0,"arch":"sm_90a",
            "signature":["*f32","*fp16","ptr","*bf16","*fp8e4nv","*i8","*i64","*weird","i1","i32","i64","f32","f64"],
            "arg_names":["a","b","c","d","e","f","g","h","i","j","k","l","m"]}"#;
        let md = KernelMetadata::from_json(text).unwrap();
        assert_eq!(
            md.signature,
            vec![
                ParamType::Ptr(Some(ElemType::F32)),
                ParamType::Ptr(Some(ElemType::F16)),
                ParamType::Ptr(None),
                ParamType::Ptr(Some(ElemType::BF16)),
                ParamType::Ptr(Some(ElemType::Fp8E4Nv)),
                ParamType::Ptr(Some(ElemType::I8)),
                ParamType::Ptr(Some(ElemType::I64)),
                ParamType::Ptr(Some(ElemType::Other("weird".into()))),
                ParamType::I1,
                ParamType::I32,
                ParamType::I64,
                ParamType::F32,
                ParamType::F64,
            ]
        );
        let json = md.to_json();
        assert!(json.contains("\"*f16\""), "{json}");
        assert!(json.contains("\"ptr\""), "{json}");
        let back = KernelMetadata::from_json(&json).unwrap();
        assert_eq!(back, md);
    }

    #[test]
    fn bad_metadata_is_an_error() {
        for bad in [
            r#"{"name":"k"}"#,
            r#"{"name":"","num_warps":4}"#,
            r#"{"name":"k","num_warps":0}"#,
            r#"{"name":"k","num_warps":64}"#,
            r#"{"name":"k","num_warps":4,"signature":["u32"]}"#,
            r#"{"name":"k","num_warps":4,"signature":["*"]}"#,
            r#"{"name":"k","num_warps":4,"signature":["i32"],"arg_names":["a","b"]}"#,
            "not json",
        ] {
            let e = KernelMetadata::from_json(bad).unwrap_err();
            assert!(matches!(e, RuntimeError::Metadata(_)), "{bad}: {e}");
        }
    }

    fn add_md() -> KernelMetadata {
        KernelMetadata::from_json(
            r#"{"name":"add_kernel","num_warps":4,"signature":["*f32","*f32","*f32","i32"],
                "arg_names":["x_ptr","y_ptr","out_ptr","n"]}"#,
        )
        .unwrap()
    }

    #[test]
    fn check_args_accepts_matching_arguments() {
        let md = add_md();
        let f32p = ArgKind::Ptr(Some(ElemType::F32));
        md.check_args(&[f32p.clone(), ArgKind::Ptr(None), f32p, ArgKind::I32])
            .unwrap();
    }

    #[test]
    fn check_args_reports_kind_mismatch_with_name() {
        let md = add_md();
        let p = ArgKind::Ptr(None);
        let e = md
            .check_args(&[p.clone(), p.clone(), p, ArgKind::F32])
            .unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, RuntimeError::Signature(_)));
        assert!(
            msg.contains("argument 3 (`n`)") && msg.contains("expects i32, got f32"),
            "{msg}"
        );
    }

    #[test]
    fn check_args_reports_count_and_elem_mismatch() {
        let md = add_md();
        let e = md
            .check_args(&[ArgKind::Ptr(None)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("takes 4 arguments") && e.contains("got 1"),
            "{e}"
        );
        let e = md
            .check_args(&[
                ArgKind::Ptr(Some(ElemType::F16)),
                ArgKind::Ptr(None),
                ArgKind::Ptr(None),
                ArgKind::I32,
            ])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("argument 0 (`x_ptr`)") && e.contains("expects *f32, got a buffer of f16"),
            "{e}"
        );
        let e = md
            .check_args(&[
                ArgKind::I64,
                ArgKind::Ptr(None),
                ArgKind::Ptr(None),
                ArgKind::I32,
            ])
            .unwrap_err()
            .to_string();
        assert!(e.contains("expects *f32, got i64"), "{e}");
    }

    #[test]
    fn untyped_pointer_param_accepts_any_buffer_and_no_signature_accepts_all() {
        assert!(ParamType::Ptr(None).accepts(&ArgKind::Ptr(Some(ElemType::BF16))));
        assert!(!ParamType::Ptr(None).accepts(&ArgKind::I64));
        let md = KernelMetadata::new("k", 4);
        md.check_args(&[ArgKind::F64, ArgKind::I1]).unwrap();
    }

    #[test]
    fn load_from_dir() {
        let dir = std::env::temp_dir().join(format!("tritium-md-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("add.json"), add_md().to_json()).unwrap();
        assert_eq!(KernelMetadata::load(&dir, "add").unwrap(), add_md());
        let e = KernelMetadata::load(&dir, "missing").unwrap_err();
        assert!(matches!(e, RuntimeError::Io { .. }), "{e}");
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        let e = KernelMetadata::load(&dir, "bad").unwrap_err().to_string();
        assert!(e.contains("bad.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn elem_sizes() {
        assert_eq!(ElemType::parse("fp16").size_bytes(), Some(2));
        assert_eq!(ElemType::parse("fp8e4nv").size_bytes(), Some(1));
        assert_eq!(ElemType::parse("f64").size_bytes(), Some(8));
        assert_eq!(ElemType::parse("x").size_bytes(), None);
    }
}
