//! The whole compiler as one call: TTIR (or TTGIR) text → TTIR passes → TTGIR passes → LLVM →
//! PTX, with the launch metadata a runtime needs.

use crate::ptx::{self, Arch};
use mlir_sys::*;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Once;
use tritium_dialects::melior::{
    Context,
    diagnostic::DiagnosticSeverity,
    ir::{Module, operation::OperationLike},
    pass::PassManager,
    utility::parse_pass_pipeline,
};
use tritium_passes::ir_util::*;

/// Options of one compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub num_warps: u32,
    pub num_stages: u32,
    pub arch: Arch,
    /// Keep the TTGIR and LLVM IR texts in the result.
    pub keep_intermediates: bool,
}

/// A compiled kernel.
#[derive(Debug)]
pub struct Compiled {
    /// Entry symbol (the public `tt.func`).
    pub name: String,
    pub ptx: String,
    pub num_warps: u32,
    /// Dynamic shared memory bytes a launch must provide.
    pub shared: u64,
    pub arch: Arch,
    /// Parameter types, in order (`*f32`, `i32`, ...).
    pub signature: Vec<String>,
    pub arg_names: Vec<String>,
    pub ttgir: Option<String>,
    pub llvm_dialect: Option<String>,
    pub llvm_ir: Option<String>,
}

impl Compiled {
    /// The launch metadata JSON (`K.json`).
    pub fn metadata_json(&self) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        format!(
            "{{\"name\": {}, \"num_warps\": {}, \"shared\": {}, \"arch\": {}, \"signature\": [{}], \"arg_names\": [{}]}}\n",
            quote(&self.name),
            self.num_warps,
            self.shared,
            quote(&self.arch.name()),
            self.signature
                .iter()
                .map(|s| quote(s))
                .collect::<Vec<_>>()
                .join(", "),
            self.arg_names
                .iter()
                .map(|s| quote(s))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Registers MLIR's and Tritium's passes once per process (they live in MLIR's global registry).
pub fn register_passes_once() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        unsafe { mlirRegisterAllPasses() };
        tritium_passes::register_all();
        crate::register_all();
    });
}

/// Collects the context's diagnostics as `file:line:col: error: message` lines.
struct Diagnostics {
    lines: Rc<RefCell<Vec<String>>>,
}

impl Diagnostics {
    fn attach(context: &Context) -> Diagnostics {
        let lines = Rc::new(RefCell::new(Vec::new()));
        let sink = lines.clone();
        context.attach_diagnostic_handler(move |diagnostic| {
            let severity = match diagnostic.severity() {
                DiagnosticSeverity::Error => "error",
                DiagnosticSeverity::Warning => "warning",
                DiagnosticSeverity::Note => "note",
                DiagnosticSeverity::Remark => "remark",
            };
            let location = source_position(&diagnostic.location().to_string());
            sink.borrow_mut()
                .push(format!("{location}: {severity}: {diagnostic}"));
            true
        });
        Diagnostics { lines }
    }

    fn take(&self, fallback: &str) -> String {
        let lines = self.lines.borrow();
        if lines.is_empty() {
            fallback.to_owned()
        } else {
            lines.join("\n")
        }
    }
}

fn run_pipeline(
    context: &Context,
    module: &mut Module,
    pipeline: &str,
    diagnostics: &Diagnostics,
) -> Result<(), String> {
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .map_err(|e| format!("bad pipeline '{pipeline}': {e}"))?;
    manager
        .run(module)
        .map_err(|_| diagnostics.take(&format!("pipeline '{pipeline}' failed")))
}

/// The name of a named location (`loc("x_ptr"(...))` or `loc("x_ptr")`); empty for file
/// positions (`loc("k.ttir":3:7)`) and other locations.
fn argument_name(location: &str) -> String {
    let Some(rest) = location.strip_prefix("loc(\"") else {
        return String::new();
    };
    let Some(end) = rest.find('"') else {
        return String::new();
    };
    match rest[end + 1..].chars().next() {
        Some('(') | Some(')') => rest[..end].to_owned(),
        _ => String::new(),
    }
}

/// `file:line:col` of a printed location: the first file position inside it (named and call-site
/// locations wrap one), or the location text itself when there is none.
fn source_position(location: &str) -> String {
    let mut rest = location;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('"') else { break };
        let (file, tail) = (&after[..end], &after[end + 1..]);
        let digits = |t: &str| {
            t.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        };
        if let Some(tail) = tail.strip_prefix(':') {
            let line = digits(tail);
            let col = tail[line.len()..]
                .strip_prefix(':')
                .map(digits)
                .unwrap_or_default();
            if !line.is_empty() && !col.is_empty() {
                return format!("{file}:{line}:{col}");
            }
        }
        rest = tail;
    }
    location
        .trim_start_matches("loc(")
        .trim_end_matches(')')
        .replace('"', "")
}

/// Compiles TTIR (or TTGIR, whose layouts are then kept) `source` to PTX.
pub fn compile(source: &str, filename: &str, options: &CompileOptions) -> Result<Compiled, String> {
    register_passes_once();
    if !options.num_warps.is_power_of_two() || options.num_warps > 32 {
        return Err(format!(
            "--num-warps must be a power of two between 1 and 32, got {}",
            options.num_warps
        ));
    }
    let context = tritium_dialects::context::new_context();
    let diagnostics = Diagnostics::attach(&context);
    let mut module = parse_module(&context, source, filename)
        .ok_or_else(|| diagnostics.take(&format!("{filename}: cannot parse")))?;
    if !module.as_operation().verify() {
        return Err(diagnostics.take(&format!("{filename}: verification failed")));
    }
    let raw = module.as_operation().to_raw();
    let funcs: Vec<MlirOperation> = collect_ops(raw)
        .into_iter()
        .filter(|op| op_name(*op) == "tt.func")
        .collect();
    if funcs.is_empty() {
        return Err(format!(
            "{filename}: no tt.func: the input must be Triton TTIR (or TTGIR)"
        ));
    }
    let is_ttgir = int_attr(raw, "ttg.num-warps").is_some();
    let capability = options.arch.capability;
    if !is_ttgir {
        run_pipeline(
            &context,
            &mut module,
            "builtin.module(tritium-ttir)",
            &diagnostics,
        )?;
        let pipeline = format!(
            "builtin.module(tritium-ttgir{{num-warps={} num-stages={} target=cuda:{capability}}})",
            options.num_warps, options.num_stages
        );
        run_pipeline(&context, &mut module, &pipeline, &diagnostics)?;
    }
    let raw = module.as_operation().to_raw();
    let num_warps = int_attr(raw, "ttg.num-warps").unwrap_or(options.num_warps as i64) as u32;
    let kernel = collect_ops(raw)
        .into_iter()
        .find(|op| op_name(*op) == "tt.func" && !is_private(*op))
        .ok_or_else(|| format!("{filename}: no public tt.func to compile"))?;
    let (name, signature, arg_names) = kernel_signature(kernel);
    let ttgir = options
        .keep_intermediates
        .then(|| module.as_operation().to_string());
    run_pipeline(
        &context,
        &mut module,
        "builtin.module(tritium-llvm)",
        &diagnostics,
    )?;
    let raw = module.as_operation().to_raw();
    let shared = int_attr(raw, "ttg.shared").unwrap_or(0) as u64;
    let llvm_dialect = options
        .keep_intermediates
        .then(|| module.as_operation().to_string());
    let emitted = ptx::emit(&module, options.arch, options.keep_intermediates)?;
    Ok(Compiled {
        name,
        ptx: emitted.ptx,
        num_warps,
        shared,
        arch: options.arch,
        signature,
        arg_names,
        ttgir,
        llvm_dialect,
        llvm_ir: emitted.llvm_ir,
    })
}

fn parse_module<'c>(context: &'c Context, source: &str, filename: &str) -> Option<Module<'c>> {
    let source = std::ffi::CString::new(source).ok()?;
    let name = std::ffi::CString::new(filename).ok()?;
    unsafe {
        let op = mlirOperationCreateParse(
            context.to_raw(),
            mlirStringRefCreateFromCString(source.as_ptr()),
            mlirStringRefCreateFromCString(name.as_ptr()),
        );
        if op.ptr.is_null() {
            return None;
        }
        let module = mlirModuleFromOperation(op);
        if module.ptr.is_null() {
            mlirOperationDestroy(op);
            return None;
        }
        Some(Module::from_raw(module))
    }
}

fn is_private(func: MlirOperation) -> bool {
    let key = std::ffi::CString::new("sym_visibility").unwrap();
    unsafe {
        let attr =
            mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString(key.as_ptr()));
        !attr.ptr.is_null()
            && tritium_dialects::ffi::string_ref_str(mlirStringAttrGetValue(attr)) == "private"
    }
}

fn kernel_signature(func: MlirOperation) -> (String, Vec<String>, Vec<String>) {
    let key = std::ffi::CString::new("sym_name").unwrap();
    let name = unsafe {
        let attr =
            mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString(key.as_ptr()));
        tritium_dialects::ffi::string_ref_str(mlirStringAttrGetValue(attr)).to_owned()
    };
    let entry = blocks_of(func)[0];
    let mut signature = Vec::new();
    let mut names = Vec::new();
    for arg in block_args(entry) {
        let ty = value_type(arg);
        let text = unsafe {
            if tritium_dialects::ffi::tritiumTypeIsPointer(ty) {
                format!(
                    "*{}",
                    print_type(tritium_dialects::ffi::tritiumPointerTypeGetPointee(ty))
                )
            } else {
                print_type(ty)
            }
        };
        signature.push(text);
        let location = unsafe { mlirValueGetLocation(arg) };
        let mut loc_text = String::new();
        unsafe extern "C" fn append(text: MlirStringRef, data: *mut std::ffi::c_void) {
            unsafe {
                (*(data as *mut String)).push_str(tritium_dialects::ffi::string_ref_str(text))
            };
        }
        unsafe {
            mlirLocationPrint(
                location,
                Some(append),
                &mut loc_text as *mut String as *mut _,
            )
        };
        names.push(argument_name(&loc_text));
    }
    (name, signature, names)
}

#[cfg(test)]
mod tests {
    use super::{argument_name, source_position};

    #[test]
    fn argument_names_come_from_named_locations_only() {
        assert_eq!(argument_name(r#"loc("x_ptr"(#loc))"#), "x_ptr");
        assert_eq!(argument_name(r#"loc("n")"#), "n");
        assert_eq!(argument_name(r#"loc("k.ttir":3:7)"#), "");
        assert_eq!(argument_name("loc(unknown)"), "");
    }

    #[test]
    fn diagnostics_point_at_the_source_position() {
        assert_eq!(source_position(r#"loc("k.ttir":3:7)"#), "k.ttir:3:7");
        assert_eq!(
            source_position(r#"loc("da"("sampler.py":137:35))"#),
            "sampler.py:137:35"
        );
        assert_eq!(
            source_position(r#"loc(callsite("x"("a.py":1:2) at "b.py":3:4))"#),
            "a.py:1:2"
        );
        assert_eq!(source_position("loc(unknown)"), "unknown");
    }
}
