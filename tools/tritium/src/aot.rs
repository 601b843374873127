//! Ahead-of-time kernel libraries, in the style of Triton's AOT compiler
//! (`triton/tools/compile.py`): from a compiled kernel, a C header and source with the PTX
//! embedded and a typed launch function `CUresult NAME(CUstream stream, <the kernel's
//! arguments>)`, and a Rust module with the same launch over `tritium-runtime`.
//!
//! The C needs no CUDA headers: it declares the five driver functions it calls (unless
//! `cuda.h` was included first) and links against `libcuda`. When `ptxas` is available the cubin
//! is embedded too and loaded first (no JIT at load time), with the PTX as the fallback (a GPU
//! the cubin was not assembled for). The launch grid is given as C
//! expressions over the kernel's integer arguments (`--grid "(n + 1023) / 1024"`), as in Triton;
//! without one the launch function takes `gridX, gridY, gridZ` after the stream.

use tritium_runtime::{DescriptorValue, KernelMetadata, ParamType};

/// A kernel's launch grid: up to three expressions over its integer arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// `x`, `y`, `z`; a missing one is `1`.
    pub dims: [String; 3],
}

/// Why an AOT library cannot be written.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AotError {
    #[error("--grid '{grid}': {reason}")]
    Grid { grid: String, reason: String },
    #[error("kernel argument {index} has no name (the IR gives its argument no name location)")]
    UnnamedArgument { index: usize },
    #[error("kernel argument `{name}` is {ty}, which the AOT launcher cannot pass")]
    UnsupportedType { name: String, ty: String },
    #[error("the metadata records no signature for kernel `{0}`")]
    NoSignature(String),
    #[error("the kernel's metadata: {0}")]
    Metadata(String),
}

impl Grid {
    /// Parses `X[,Y[,Z]]`, each an expression of integer literals, the names of the kernel's
    /// integer arguments (`integers`), `+ - * / %` and parentheses.
    pub fn parse(text: &str, integers: &[&str]) -> Result<Grid, AotError> {
        let error = |reason: String| AotError::Grid {
            grid: text.to_owned(),
            reason,
        };
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(error("expected 1 to 3 comma-separated expressions".into()));
        }
        for part in &parts {
            let mut depth = 0i32;
            let mut chars = part.char_indices().peekable();
            while let Some((start, c)) = chars.next() {
                if c.is_ascii_alphabetic() || c == '_' {
                    let mut end = start + 1;
                    while let Some(&(i, c)) = chars.peek() {
                        if !(c.is_ascii_alphanumeric() || c == '_') {
                            break;
                        }
                        end = i + 1;
                        chars.next();
                    }
                    let name = &part[start..end];
                    if !integers.contains(&name) {
                        return Err(error(format!(
                            "`{name}` is not an integer argument of the kernel (those are: {})",
                            integers.join(", ")
                        )));
                    }
                } else if c == '(' {
                    depth += 1;
                } else if c == ')' {
                    depth -= 1;
                    if depth < 0 {
                        return Err(error("unbalanced parentheses".into()));
                    }
                } else if !(c.is_ascii_digit() || c.is_whitespace() || "+-*/%".contains(c)) {
                    return Err(error(format!("unexpected character '{c}'")));
                }
            }
            if depth != 0 {
                return Err(error("unbalanced parentheses".into()));
            }
        }
        let dim = |i: usize| parts.get(i).map_or("1".to_owned(), |p| p.to_string());
        Ok(Grid {
            dims: [dim(0), dim(1), dim(2)],
        })
    }
}

/// One kernel parameter as the generated code passes it.
struct Param<'a> {
    name: &'a str,
    /// The C type (`CUdeviceptr`, `int32_t`, ...).
    c_type: &'static str,
    /// The Rust parameter type and the `KernelArg` that passes it.
    rust_type: &'static str,
    rust_arg: &'static str,
    integer: bool,
}

fn params(metadata: &KernelMetadata) -> Result<Vec<Param<'_>>, AotError> {
    if metadata.signature.is_empty() {
        return Err(AotError::NoSignature(metadata.name.clone()));
    }
    metadata
        .signature
        .iter()
        .enumerate()
        .map(|(index, ty)| {
            let name = metadata
                .arg_names
                .get(index)
                .map(String::as_str)
                .filter(|n| is_identifier(n))
                .ok_or(AotError::UnnamedArgument { index })?;
            let (c_type, rust_type, rust_arg, integer) = match ty {
                ParamType::Ptr(_) => ("CUdeviceptr", "&DeviceBuffer", "Buffer", false),
                ParamType::I1 => ("uint8_t", "bool", "I1", false),
                ParamType::I32 => ("int32_t", "i32", "I32", true),
                ParamType::I64 => ("int64_t", "i64", "I64", true),
                ParamType::F32 => ("float", "f32", "F32", false),
                ParamType::F64 => ("double", "f64", "F64", false),
                ParamType::TensorDesc => ("CUtensorMap", "&TensorMap", "TensorMap", false),
            };
            Ok(Param {
                name,
                c_type,
                rust_type,
                rust_arg,
                integer,
            })
        })
        .collect()
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The names of a kernel's integer arguments (what a grid expression may use).
pub fn integer_arguments(metadata: &KernelMetadata) -> Vec<&str> {
    params(metadata)
        .map(|params| {
            params
                .into_iter()
                .filter(|p| p.integer)
                .map(|p| p.name)
                .collect()
        })
        .unwrap_or_default()
}

/// The C library and Rust module of one kernel.
#[derive(Clone, Debug)]
pub struct AotLibrary {
    /// `NAME.h`
    pub header: String,
    /// `NAME.c`
    pub source: String,
    /// `NAME.rs`: includes `NAME.ptx` and `NAME.json` (written beside it) at compile time.
    pub rust: String,
}

/// The C header, C source and Rust module for `metadata`'s kernel, its `ptx` and (when
/// assembled) its `cubin`, with launch functions named `name` and the grid `grid` (`None`: a
/// launch parameter).
pub fn generate(
    name: &str,
    ptx: &str,
    cubin: Option<&[u8]>,
    metadata: &KernelMetadata,
    grid: Option<&Grid>,
) -> Result<AotLibrary, AotError> {
    let params = params(metadata)?;
    let descriptors = host_descriptor_code(metadata, &params)?;
    Ok(AotLibrary {
        header: c_header(name, metadata, &params, grid),
        source: c_source(name, ptx, cubin, metadata, &params, grid, &descriptors),
        rust: rust_module(name, metadata, &params, grid),
    })
}

/// The C that encodes the kernel's launcher-made TMA descriptors (`host_descriptors`):
/// declarations, the encoding before the launch, and the parameters' addresses in order.
#[derive(Default)]
struct DescriptorCode {
    variables: String,
    encode: String,
    arguments: Vec<String>,
}

fn host_descriptor_code(
    metadata: &KernelMetadata,
    params: &[Param],
) -> Result<DescriptorCode, AotError> {
    let mut code = DescriptorCode::default();
    if !metadata.host_descriptors.is_empty() {
        code.variables += "    CUdeviceptr zeros = 0;\n";
    }
    for (i, desc) in metadata.host_descriptors.iter().enumerate() {
        let (data_type, swizzle) = tritium_runtime::tensormap::driver_codes(&desc.meta)
            .map_err(|e| AotError::Metadata(e.to_string()))?;
        let value = |v: &DescriptorValue| -> Result<String, AotError> {
            let argument = |index: usize| {
                params
                    .get(index)
                    .filter(|p| p.integer)
                    .map(|p| format!("(int64_t){}", p.name))
                    .ok_or_else(|| {
                        AotError::Metadata(format!(
                            "host descriptor {i}: argument {index} is not an integer"
                        ))
                    })
            };
            match v {
                DescriptorValue::Value(c) => Ok(format!("{c}ull")),
                DescriptorValue::Programs(axis) => Ok(format!(
                    "(unsigned long long)grid{}",
                    ["X", "Y", "Z"][(*axis).min(2) as usize]
                )),
                DescriptorValue::Arg(index) => {
                    Ok(format!("(unsigned long long){}", argument(*index)?))
                }
                // The kernel's 32-bit product, as it computed it.
                DescriptorValue::Product(factors) => {
                    let factors = factors
                        .iter()
                        .map(|f| match f {
                            DescriptorValue::Arg(index) => argument(*index),
                            DescriptorValue::Value(c) => Ok(format!("(int64_t){c}")),
                            _ => Err(AotError::Metadata(format!(
                                "host descriptor {i}: a product of a program count"
                            ))),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(format!(
                        "(unsigned long long)(int64_t)(int32_t)(uint32_t)({})",
                        factors.join(" * ")
                    ))
                }
            }
        };
        let base = params
            .get(desc.base)
            .filter(|p| p.c_type == "CUdeviceptr")
            .ok_or_else(|| {
                AotError::Metadata(format!(
                    "host descriptor {i}: argument {} is not a pointer",
                    desc.base
                ))
            })?;
        let rank = desc.meta.block_size.len();
        // The driver takes every list innermost first, strides in bytes without the innermost.
        let dims = desc
            .shape
            .iter()
            .rev()
            .map(value)
            .collect::<Result<Vec<_>, _>>()?;
        let strides = desc.strides[..rank.saturating_sub(1)]
            .iter()
            .rev()
            .map(|s| value(s).map(|s| format!("{s} * {}", desc.meta.elem_size)))
            .collect::<Result<Vec<_>, _>>()?;
        let boxes: Vec<String> = desc
            .meta
            .block_size
            .iter()
            .rev()
            .map(u32::to_string)
            .collect();
        let list = |items: &[String]| {
            if items.is_empty() {
                "0".to_owned()
            } else {
                items.join(", ")
            }
        };
        let unit_stride = 16u32.div_ceil(desc.meta.elem_size.max(1)) * desc.meta.elem_size;
        code.variables += &format!(
            "    CUtensorMap host_descriptor{i};
"
        );
        code.arguments.push(format!("&host_descriptor{i}"));
        code.encode += &format!(
            r#"    /* The TMA descriptor of `{base}` the kernel reads through (of an empty tensor: 128
     * zeroed bytes for the launch, every element past the first out of bounds). */
    {{
        const unsigned long long dims[{rank}] = {{{dims}}};
        const unsigned long long strides[{strides_len}] = {{{strides}}};
        const unsigned long long one[{rank}] = {{{ones}}};
        const unsigned long long unit_strides[{strides_len}] = {{{unit_strides}}};
        const unsigned int box[{rank}] = {{{boxes}}};
        const unsigned int element_strides[{rank}] = {{{ones}}};
        int empty = 0;
        for (int d = 0; d < {rank}; d++) empty |= dims[d] == 0;
        if (empty && zeros == 0) {{
            result = cuMemAllocAsync(&zeros, 128, stream);
            if (result != 0) return result;
            result = cuMemsetD8Async(zeros, 0, 128, stream);
        }}
        if (result == 0)
            result = cuTensorMapEncodeTiled(&host_descriptor{i}, {data_type}, {rank},
                                            (void *)(empty ? zeros : {base}),
                                            empty ? one : dims, empty ? unit_strides : strides,
                                            box, element_strides, 0, {swizzle}, 2, 0);
        if (result != 0) goto release;
    }}
"#,
            base = base.name,
            dims = dims.join(", "),
            strides_len = rank.saturating_sub(1).max(1),
            strides = list(&strides),
            ones = vec!["1"; rank].join(", "),
            unit_strides = list(&vec![format!("{unit_stride}ull"); rank.saturating_sub(1)]),
            boxes = boxes.join(", "),
        );
    }
    Ok(code)
}

fn c_signature(params: &[Param], grid: Option<&Grid>) -> String {
    let mut list = vec!["CUstream stream".to_owned()];
    if grid.is_none() {
        list.extend(
            [
                "unsigned int gridX",
                "unsigned int gridY",
                "unsigned int gridZ",
            ]
            .map(String::from),
        );
    }
    list.extend(params.iter().map(|p| format!("{} {}", p.c_type, p.name)));
    list.join(", ")
}

fn c_header(
    name: &str,
    metadata: &KernelMetadata,
    params: &[Param],
    grid: Option<&Grid>,
) -> String {
    let guard = format!("TRITIUM_AOT_{}_H", name.to_ascii_uppercase());
    let grid_doc = match grid {
        Some(grid) => format!("grid ({})", grid.dims.join(", ")),
        None => "grid (gridX, gridY, gridZ)".to_owned(),
    };
    format!(
        r#"/* Generated by `tritium aot`: kernel `{kernel}` ({warps} warps, {shared} bytes of dynamic
 * shared memory, {arch}). Link with libcuda (-lcuda). */
#ifndef {guard}
#define {guard}

#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif

#if !defined(CUDA_VERSION) && !defined(TRITIUM_AOT_DRIVER_TYPES)
#define TRITIUM_AOT_DRIVER_TYPES
/* The CUDA driver API types the launcher uses, as cuda.h declares them. */
typedef int CUresult;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
{tensor_map_type}#endif

/* Loads the embedded PTX into the current context (the launch does it on first use). */
CUresult load_{name}(void);
/* Unloads it. */
void unload_{name}(void);
/* Launches `{kernel}` on `stream` over the {grid_doc}; returns the driver's result
 * (CUDA_ERROR_INVALID_VALUE for an empty grid). */
CUresult {name}({signature});

#ifdef __cplusplus
}}
#endif

#endif
"#,
        kernel = metadata.name,
        warps = metadata.num_warps,
        shared = metadata.shared,
        arch = metadata.arch,
        signature = c_signature(params, grid),
        tensor_map_type = if params.iter().any(|p| p.c_type == "CUtensorMap")
            || !metadata.host_descriptors.is_empty()
        {
            // As cuda.h: 128 bytes, 64-byte aligned (cuTensorMapEncodeTiled requires it).
            "/* A host-side TMA descriptor, filled by cuTensorMapEncodeTiled. */\ntypedef struct CUtensorMap_st {\n    unsigned long long opaque[16];\n}\n#if defined(__GNUC__) || defined(__clang__)\n__attribute__((aligned(64)))\n#endif\nCUtensorMap;\n"
        } else {
            ""
        },
    )
}

/// `text` as a C string literal, split into lines.
fn c_string_literal(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        out.push_str("    \"");
        for c in line.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
                c => {
                    let mut buffer = [0u8; 4];
                    for byte in c.encode_utf8(&mut buffer).bytes() {
                        // Octal escapes end after three digits, unlike hex ones.
                        out.push_str(&format!("\\{byte:03o}"));
                    }
                }
            }
        }
        out.push_str("\"\n");
    }
    out
}

/// `bytes` as the initializer of a C byte array, 16 a line, with a NUL after them.
fn c_byte_array(bytes: &[u8]) -> String {
    let mut lines: Vec<String> = bytes
        .chunks(16)
        .map(|chunk| {
            let row: Vec<String> = chunk.iter().map(|b| format!("0x{b:02x}")).collect();
            format!("    {},", row.join(", "))
        })
        .collect();
    lines.push("    0x00".into());
    lines.join("\n")
}

fn c_source(
    name: &str,
    ptx: &str,
    cubin: Option<&[u8]>,
    metadata: &KernelMetadata,
    params: &[Param],
    grid: Option<&Grid>,
    descriptors: &DescriptorCode,
) -> String {
    let grid_lines = match grid {
        Some(grid) => format!(
            "    unsigned int gridX = (unsigned int)({});\n    unsigned int gridY = (unsigned int)({});\n    unsigned int gridZ = (unsigned int)({});\n",
            grid.dims[0], grid.dims[1], grid.dims[2]
        ),
        None => String::new(),
    };
    let mut arguments: Vec<String> = params.iter().map(|p| format!("&{}", p.name)).collect();
    let launch_call = format!(
        "cuLaunchKernel({name}_function, gridX, gridY, gridZ, {}, 1, 1, {}, stream, args, NULL)",
        metadata.threads_per_block(),
        metadata.shared
    );
    // A kernel that runs its programs persistently takes the requested program count after its
    // arguments; this launcher launches the whole grid (each program then runs once).
    let requested = if metadata.virtual_programs {
        arguments.push("&requested_programs".into());
        (
            "    int requested_programs = 0;\n",
            "    requested_programs = (int)gridX;\n",
        )
    } else {
        ("", "")
    };
    // The TMA descriptors the launcher encodes follow the program count.
    arguments.extend(descriptors.arguments.iter().cloned());
    let has_descriptors = !descriptors.arguments.is_empty();
    // A kernel with global scratch (device-made TMA descriptors) takes one more parameter: the
    // base of `global_scratch_size` bytes per program, allocated on the stream for the launch
    // and freed after it (stream-ordered, so no synchronization).
    let scratch = metadata.global_scratch_size;
    let mut declarations = String::new();
    if scratch > 0 || has_descriptors {
        declarations += "CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, CUstream stream);\nCUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream);\n";
    }
    if has_descriptors {
        declarations += "CUresult cuMemsetD8Async(CUdeviceptr pointer, unsigned char value, size_t count,\n                         CUstream stream);\nCUresult cuTensorMapEncodeTiled(CUtensorMap *map, int data_type, unsigned int rank, void *address,\n                                const unsigned long long *dims,\n                                const unsigned long long *byte_strides, const unsigned int *box,\n                                const unsigned int *element_strides, int interleave, int swizzle,\n                                int l2_promotion, int oob_fill);\n";
    }
    let mut variables = descriptors.variables.clone();
    let mut launch = descriptors.encode.clone();
    if scratch > 0 {
        arguments.push("&global_scratch".into());
        variables += "    CUdeviceptr global_scratch = 0;\n";
        launch += &format!(
            "    /* {scratch} bytes of global scratch per program. */\n    result = cuMemAllocAsync(&global_scratch, (size_t){scratch} * gridX * gridY * gridZ, stream);\n    if (result != 0) {}\n    result = {launch_call};\n    CUresult freed = cuMemFreeAsync(global_scratch, stream);\n    if (result == 0) result = freed;\n",
            if has_descriptors {
                "goto release;"
            } else {
                "return result;"
            }
        );
    } else if has_descriptors {
        launch += &format!("    result = {launch_call};\n");
    } else {
        launch += &format!("    return {launch_call};\n");
    }
    if has_descriptors {
        launch += "release:\n    if (zeros != 0) {\n        CUresult freed_zeros = cuMemFreeAsync(zeros, stream);\n        if (result == 0) result = freed_zeros;\n    }\n";
    }
    if scratch > 0 || has_descriptors {
        launch += "    return result;\n";
    }
    let (scratch_declarations, scratch_variable) = (declarations, variables);
    format!(
        r#"/* Generated by `tritium aot`: kernel `{kernel}`. */
#include "{name}.h"

#include <stddef.h>

#ifndef CUDA_VERSION
/* The driver functions the launcher calls, as cuda.h declares them. */
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int num_options,
                            int *options, void **option_values);
CUresult cuModuleUnload(CUmodule module);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name);
CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value);
CUresult cuFuncSetCacheConfig(CUfunction function, int config);
CUresult cuLaunchKernel(CUfunction function, unsigned int gridX, unsigned int gridY,
                        unsigned int gridZ, unsigned int blockX, unsigned int blockY,
                        unsigned int blockZ, unsigned int shared_bytes, CUstream stream,
                        void **params, void **extra);
{scratch_declarations}#endif

/* CUDA_ERROR_INVALID_VALUE, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES and
 * CU_FUNC_CACHE_PREFER_SHARED. */
#define TRITIUM_AOT_INVALID_VALUE 1
#define TRITIUM_AOT_MAX_DYNAMIC_SHARED 8
#define TRITIUM_AOT_PREFER_SHARED 1

static const {ptx_type} {name}_ptx[] =
{ptx_literal};

{cubin_array}static CUmodule {name}_module = NULL;
static CUfunction {name}_function = NULL;

/* Loads one image (cubin or PTX) and finds the kernel in it. */
static CUresult {name}_load_image(const void *image) {{
    CUresult result = cuModuleLoadDataEx(&{name}_module, image, 0, NULL, NULL);
    if (result != 0) return result;
    result = cuModuleGetFunction(&{name}_function, {name}_module, "{kernel}");
{shared_attribute}    if (result != 0) {{
        cuModuleUnload({name}_module);
        {name}_module = NULL;
        {name}_function = NULL;
    }}
    return result;
}}

CUresult load_{name}(void) {{
    if ({name}_function != NULL) return 0;
{load_body}}}

void unload_{name}(void) {{
    if ({name}_module != NULL) cuModuleUnload({name}_module);
    {name}_module = NULL;
    {name}_function = NULL;
}}

CUresult {name}({signature}) {{
{scratch_variable}{requested_variable}    void *args[{count}] = {{{arguments}}};
    CUresult result = load_{name}();
{grid_lines}    if (result != 0) return result;
    if (gridX == 0 || gridY == 0 || gridZ == 0) return TRITIUM_AOT_INVALID_VALUE;
{requested_value}{launch}}}
"#,
        requested_variable = requested.0,
        requested_value = requested.1,
        kernel = metadata.name,
        // C99 compilers need only take string literals of up to 4095 characters (`-pedantic`
        // says so): a longer PTX is embedded as bytes.
        ptx_type = if ptx.len() <= 4095 {
            "char"
        } else {
            "unsigned char"
        },
        ptx_literal = if ptx.len() <= 4095 {
            c_string_literal(ptx).trim_end().to_owned()
        } else {
            format!("{{\n{}\n}}", c_byte_array(ptx.as_bytes()))
        },
        cubin_array = match cubin {
            Some(cubin) => format!(
                "/* The cubin ptxas assembled from it ({} bytes). */\nstatic const unsigned char {name}_cubin[] = {{\n{}\n}};\n\n",
                cubin.len(),
                c_byte_array(cubin)
            ),
            None => String::new(),
        },
        load_body = match cubin {
            Some(_) => format!(
                "    /* The cubin first; the PTX, JIT-compiled, on a GPU it was not made for. */\n    if ({name}_load_image({name}_cubin) == 0) return 0;\n    return {name}_load_image({name}_ptx);\n"
            ),
            None => format!("    return {name}_load_image({name}_ptx);\n"),
        },
        shared_attribute = if metadata.shared > 48 * 1024 {
            format!(
                "    /* More than 48 KiB of dynamic shared memory must be asked for (and, as Triton's\n     * launcher does, the largest shared-memory carveout). */\n    if (result == 0)\n        result = cuFuncSetCacheConfig({name}_function, TRITIUM_AOT_PREFER_SHARED);\n    if (result == 0)\n        result = cuFuncSetAttribute({name}_function, TRITIUM_AOT_MAX_DYNAMIC_SHARED, {});\n",
                metadata.shared
            )
        } else {
            String::new()
        },
        signature = c_signature(params, grid),
        count = arguments.len().max(1),
        arguments = if arguments.is_empty() {
            "NULL".to_owned()
        } else {
            arguments.join(", ")
        },
    )
}

/// `snake_case` to `CamelCase`.
fn camel_case(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn rust_module(
    name: &str,
    metadata: &KernelMetadata,
    params: &[Param],
    grid: Option<&Grid>,
) -> String {
    let type_name = camel_case(name);
    let mut launch_params = vec!["stream: &Stream".to_owned()];
    if grid.is_none() {
        launch_params.push("grid: (u32, u32, u32)".to_owned());
    }
    launch_params.extend(
        params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.rust_type)),
    );
    let grid_lines = match grid {
        Some(grid) => {
            // The integer arguments as i64 inside the block, so that expressions mixing i32
            // and i64 type-check.
            let widened: Vec<String> = params
                .iter()
                .filter(|p| p.integer && grid.dims.iter().any(|d| mentions(d, p.name)))
                .map(|p| format!("            let {0} = i64::from({0});\n", p.name))
                .collect();
            let dims = grid.dims.each_ref().map(|dim| {
                if dim.chars().all(|c| c.is_ascii_digit()) {
                    dim.clone()
                } else {
                    format!("({dim}) as u32")
                }
            });
            format!(
                "        let grid = {{\n{}            ({}, {}, {})\n        }};\n",
                widened.concat(),
                dims[0],
                dims[1],
                dims[2]
            )
        }
        None => String::new(),
    };
    let arguments: Vec<String> = params
        .iter()
        .map(|p| format!("KernelArg::{}({})", p.rust_arg, p.name))
        .collect();
    format!(
        r#"//! Generated by `tritium aot`: kernel `{kernel}` ({warps} warps, {shared} bytes of dynamic
//! shared memory, {arch}), its PTX and metadata embedded from `{name}.ptx` and `{name}.json`.

use tritium_runtime::{{Device, DeviceBuffer, Kernel, KernelArg, KernelMetadata, Result, Stream}};

/// The kernel's PTX.
pub const PTX: &str = include_str!("{name}.ptx");
/// The kernel's launch metadata (`K.json`).
pub const METADATA: &str = include_str!("{name}.json");

/// `{kernel}`, loaded on one device.
pub struct {type_name} {{
    kernel: Kernel,
}}

impl {type_name} {{
    /// Loads the embedded PTX on `device`.
    pub fn load(device: &Device) -> Result<{type_name}> {{
        let metadata = KernelMetadata::from_json(METADATA)?;
        Ok({type_name} {{
            kernel: Kernel::from_ptx(device, PTX, metadata)?,
        }})
    }}

    /// Launches the kernel on `stream`.
    pub fn launch(&self, {launch_params}) -> Result<()> {{
{grid_lines}        self.kernel.launch(stream, grid, &[{arguments}])
    }}
}}
"#,
        kernel = metadata.name,
        warps = metadata.num_warps,
        shared = metadata.shared,
        arch = metadata.arch,
        launch_params = launch_params.join(", "),
        arguments = arguments.join(", "),
    )
}

/// Whether the expression `text` uses the identifier `name`.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_expressions_of_integer_arguments() {
        let grid = Grid::parse("(n + 1023) / 1024", &["n"]).unwrap();
        assert_eq!(grid.dims, ["(n + 1023) / 1024", "1", "1"].map(String::from));
        assert!(Grid::parse("M/16, N/16, 1", &["M", "N"]).is_ok());
        let error = Grid::parse("x_ptr", &["n"]).unwrap_err().to_string();
        assert!(
            error.contains("`x_ptr` is not an integer argument"),
            "{error}"
        );
        assert!(Grid::parse("(n", &["n"]).is_err());
        assert!(Grid::parse("n; system()", &["n"]).is_err());
        assert!(Grid::parse("1,2,3,4", &[]).is_err());
        assert!(Grid::parse("", &[]).is_err());
    }

    #[test]
    fn c_strings_escape_what_c_needs() {
        assert_eq!(
            c_string_literal("a\"b\\c\n\td"),
            "    \"a\\\"b\\\\c\\n\"\n    \"\\td\"\n"
        );
        assert_eq!(c_string_literal("é"), "    \"\\303\\251\"\n");
    }

    #[test]
    fn names_become_rust_types() {
        assert_eq!(camel_case("add_kernel"), "AddKernel");
        assert!(mentions("(n+1)/2", "n") && !mentions("(nn+1)/2", "n"));
    }
}
