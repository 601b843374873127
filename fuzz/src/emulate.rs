//! The lowering checked against the interpreter, on the CPU: a kernel runs in the reference
//! interpreter on random inputs (the configuration [`crate::differential`] finds), then compiles
//! through the whole pipeline to LLVM IR, which `test/Inputs/emulate/simt_emu.py` runs on the
//! host with the same inputs (threads as pthreads, shuffles, barriers and the NVPTX inline asm
//! emulated; see docs/testing.md). Every buffer must match the interpreter's within the rounding
//! of its element type, as between passes.

use crate::corpus::{Kernel, repo_root};
use crate::differential::{Verdict, compare, first_clean_run, first_clean_run_among};
use std::path::{Path, PathBuf};
use std::process::Command;
use tritium_interp::{Arg, Outcome, ParamKind};
use tritium_lowering::compile::{CompileOptions, compile};

/// A directory of its own under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> std::io::Result<Self> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("tritium-emulate-{}-{n}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // TRITIUM_EMULATE_KEEP=1 leaves the IR, inputs and outputs for a look.
        if std::env::var_os("TRITIUM_EMULATE_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The emulator script.
pub fn emulator() -> PathBuf {
    repo_root().join("test/Inputs/emulate/simt_emu.py")
}

/// Kernels whose results any correct implementation may compute otherwise than the
/// interpreter (a path fragment, and why): checked by neither side's order.
pub const IMPLEMENTATION_DEFINED: &[(&str, &str)] = &[(
    "kernels/syntax/s_scan_reduce",
    "a scan combines with `a * b + 1`, which is not associative: a parallel scan (Triton's too) \
     groups it otherwise than the interpreter's sequential one",
)];

/// Checks one kernel compiled for `num_warps` warps on `arch` (`sm_80`, `sm_90a`, ...); `seed`
/// picks its inputs.
pub fn check_lowered(kernel: &Kernel, seed: u64, num_warps: u32, arch: &str) -> Verdict {
    check_lowered_with(kernel, seed, num_warps, arch, |ir| ir)
}

/// [`check_lowered`] with the LLVM IR passed through `edit` first (a test breaks it on purpose
/// to see the check fail).
pub fn check_lowered_with(
    kernel: &Kernel,
    seed: u64,
    num_warps: u32,
    arch: &str,
    edit: impl Fn(String) -> String,
) -> Verdict {
    check(kernel, seed, num_warps, arch, edit, Variant::default())
}

/// What a check compiles beyond the default pipeline.
#[derive(Clone, Copy, Default)]
struct Variant {
    persistent_programs: bool,
    descriptor_loads: bool,
}

/// [`check_lowered`] of the kernel compiled with persistent programs
/// (`-tritium-persistent-programs`), launched as the runtime would on a GPU holding only half
/// its programs at once: half the grid's programs (rounded up), each running the virtual
/// programs `p, p + launched, ...`, with the grid's count passed after the arguments. Skipped
/// when the pass leaves the kernel one program a tile.
pub fn check_lowered_persistent(kernel: &Kernel, seed: u64, num_warps: u32, arch: &str) -> Verdict {
    let variant = Variant {
        persistent_programs: true,
        ..Variant::default()
    };
    check(kernel, seed, num_warps, arch, |ir| ir, variant)
}

/// A host descriptor's extent or stride (`{"arg": i}`, `{"value": c}`, `{"programs": a}`,
/// `{"product": [...]}`) for a launch, as the runtime computes it.
fn descriptor_value(v: &serde_json::Value, args: &[Arg], grid: &[u32; 3]) -> Option<i64> {
    if let Some(arg) = v.get("arg").and_then(|a| a.as_u64()) {
        match args.get(arg as usize) {
            Some(Arg::Int(v)) => Some(*v),
            _ => None,
        }
    } else if let Some(axis) = v.get("programs").and_then(|a| a.as_u64()) {
        // The grid asked for, as the runtime counts it.
        grid.get(axis as usize).map(|&g| g as i64)
    } else if let Some(factors) = v.get("product").and_then(|f| f.as_array()) {
        // Computed in 32 bits by the kernel.
        let product = factors
            .iter()
            .try_fold(1i64, |p, f| p.checked_mul(descriptor_value(f, args, grid)?))?;
        i32::try_from(product).ok().map(i64::from)
    } else {
        v.get("value").and_then(|c| c.as_i64())
    }
}

/// [`check_lowered`] of the kernel compiled with its dot loops' pointer tiles read through TMA
/// descriptors (`-tritium-descriptor-loads`; `arch` sm_90a), with persistent programs (launched
/// as [`check_lowered_persistent`] launches) or one program a tile. Skipped when the pass reads
/// no tile through a descriptor.
pub fn check_lowered_descriptors(
    kernel: &Kernel,
    seed: u64,
    num_warps: u32,
    arch: &str,
    persistent_programs: bool,
) -> Verdict {
    let variant = Variant {
        persistent_programs,
        descriptor_loads: true,
    };
    check(kernel, seed, num_warps, arch, |ir| ir, variant)
}

fn check(
    kernel: &Kernel,
    seed: u64,
    num_warps: u32,
    arch: &str,
    edit: impl Fn(String) -> String,
    variant: Variant,
) -> Verdict {
    if let Some((_, why)) = IMPLEMENTATION_DEFINED
        .iter()
        .find(|(path, _)| kernel.name.contains(path))
    {
        return Verdict::Skipped(format!("implementation-defined results: {why}"));
    }
    let (context, sink) = tritium_interp::new_context_with_sink();
    let module = match tritium_interp::parse(&context, &sink, &kernel.source, &kernel.name) {
        Ok(module) => module,
        Err(_) => return Verdict::Skipped("does not parse or verify".into()),
    };
    let op = module.as_operation().to_raw();
    if tritium_passes::ir_util::int_attr(op, "ttg.num-warps").is_some() {
        return Verdict::Skipped("TTGIR".into());
    }
    let params = match tritium_interp::kernel_params(op, None) {
        Ok(params) => params,
        Err(e) => return Verdict::Skipped(e.message),
    };
    // Descriptor loads: sizes of 80 first (divisible by 16, as TMA's strides must be, but not by
    // the tiles), so that the last K step is partial and rows and columns wrap.
    let found = if variant.descriptor_loads {
        first_clean_run_among(op, &params, seed, &[(80, [2, 1, 1])])
            .or_else(|_| first_clean_run(op, &params, seed))
    } else {
        first_clean_run(op, &params, seed)
    };
    let (launch, reference) = match found {
        Ok(found) => found,
        Err(why) => return Verdict::Skipped(why),
    };
    if let Some(why) = &reference.run_specific {
        return Verdict::Skipped(format!(
            "the results depend on the order of programs here ({why})"
        ));
    }
    let arch = match tritium_lowering::ptx::Arch::parse(arch) {
        Ok(arch) => arch,
        Err(e) => return Verdict::Skipped(e),
    };
    let options = CompileOptions {
        num_warps: Some(num_warps),
        arch: Some(arch),
        keep_intermediates: true,
        persistent_programs: variant.persistent_programs,
        descriptor_loads: variant.descriptor_loads,
        ..CompileOptions::default()
    };
    let compiled = match compile(&kernel.source, &kernel.name, &options) {
        Ok(compiled) => compiled,
        Err(e) => return Verdict::Skipped(format!("does not compile: {e}")),
    };
    // (Descriptor loads also apply to hand-written persistent kernels, which stay as they are.)
    if variant.persistent_programs && !variant.descriptor_loads && !compiled.virtual_programs {
        return Verdict::Skipped("left one program a tile".into());
    }
    if variant.descriptor_loads
        && (kernel.source.contains("tt.make_tensor_descriptor")
            || !compiled.ttgir.as_deref().is_some_and(|ttgir| {
                ttgir.contains("ttng.tensormap_create") || ttgir.contains("tritium.host_descriptor")
            }))
    {
        return Verdict::Skipped("no tile read through a descriptor made by the pass".into());
    }
    let Some(llvm_ir) = compiled.llvm_ir else {
        return Verdict::Skipped("no LLVM IR kept".into());
    };
    let scratch = match Scratch::new(&compiled.name) {
        Ok(scratch) => scratch,
        Err(e) => return Verdict::Differs(format!("no scratch directory: {e}")),
    };
    let ll = scratch.path("kernel.ll");
    if let Err(e) = std::fs::write(&ll, edit(llvm_ir)) {
        return Verdict::Differs(format!("cannot write {}: {e}", ll.display()));
    }
    // To compare against another build's lowering (bisecting a difference): its `tritium`.
    if let Ok(other) = std::env::var("TRITIUM_EMULATE_WITH") {
        let source = scratch.path("kernel.ttir");
        let written = std::fs::write(&source, &kernel.source);
        let status = written.is_ok().then(|| {
            Command::new(&other)
                .arg("compile")
                .arg(&source)
                .args([
                    "--num-warps",
                    &num_warps.to_string(),
                    "--emit",
                    "ll",
                    "--out-name",
                    "kernel",
                    "-o",
                ])
                .arg(&scratch.0)
                .env("TRITIUM_CACHE_DIR", scratch.path("cache"))
                .output()
        });
        if !matches!(status, Some(Ok(ref o)) if o.status.success()) {
            return Verdict::Skipped(format!("{other} does not compile it"));
        }
    }
    // One command-line argument per kernel parameter; buffers through files.
    let mut cli = Vec::new();
    let mut buffer_files = Vec::new();
    for (i, (param, arg)) in params.iter().zip(&launch.args).enumerate() {
        match (arg, &param.kind) {
            (Arg::Buffer(buffer), ParamKind::Pointer(_)) => {
                let path = scratch.path(&format!("arg{i}"));
                if let Err(e) = std::fs::write(&path, &buffer.bytes) {
                    return Verdict::Differs(format!("cannot write {}: {e}", path.display()));
                }
                cli.push(format!("buf:{}", path.display()));
                buffer_files.push((i, path));
            }
            (Arg::Int(v), ParamKind::Scalar(num)) => {
                let kind = if num.bits() > 32 { "i64" } else { "i32" };
                cli.push(format!("{kind}:{v}"));
            }
            (Arg::Float(v), ParamKind::Scalar(num)) => {
                let kind = if num.bits() > 32 { "f64" } else { "f32" };
                cli.push(format!("{kind}:{v:?}"));
            }
            _ => return Verdict::Skipped(format!("parameter {i} is not a pointer or a scalar")),
        }
    }
    let mut grid = launch.grid;
    if compiled.virtual_programs {
        // The requested count after the arguments, before the global scratch.
        cli.push(format!("i32:{}", grid[0]));
        if grid[1] * grid[2] == 1 {
            grid[0] = grid[0].div_ceil(2);
        }
    }
    // The launcher's TMA descriptors (`-tritium-host-descriptors`), described with the
    // launch's values.
    for desc in &compiled.host_descriptors {
        let value = |v: &serde_json::Value| descriptor_value(v, &launch.args, &launch.grid);
        let list = |key: &str| -> Option<Vec<i64>> {
            desc.get(key)?.as_array()?.iter().map(value).collect()
        };
        let (Some(dims), Some(strides)) = (list("shape"), list("strides")) else {
            return Verdict::Differs(format!("a host descriptor's extents or strides: {desc}"));
        };
        let described = serde_json::json!({
            "base": desc["base"],
            "elem_type": desc["elem_type"],
            "swizzle": desc["swizzle"],
            "box": desc["block_size"],
            "dims": dims,
            "strides": strides,
        });
        cli.push(format!("tmap:{described}"));
    }
    // Global scratch (device-side TMA descriptors): the kernel's last parameter, one
    // zero-filled slice per program, as the runtime allocates it.
    if compiled.global_scratch_size > 0 {
        let programs: u64 = launch.grid.iter().map(|&g| g as u64).product();
        let slice = compiled
            .global_scratch_size
            .next_multiple_of(compiled.global_scratch_align.max(1));
        let path = scratch.path("global_scratch");
        if let Err(e) = std::fs::write(&path, vec![0u8; (slice * programs) as usize]) {
            return Verdict::Differs(format!("cannot write {}: {e}", path.display()));
        }
        cli.push(format!("buf:{}", path.display()));
    }
    let grid = grid.map(|g| g.to_string()).join(",");
    let output = Command::new("python3")
        .arg(emulator())
        .arg(&ll)
        .arg(&compiled.name)
        .arg(compiled.num_warps.to_string())
        .arg(&grid)
        .args(&cli)
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) => return Verdict::Differs(format!("cannot run python3: {e}")),
    };
    if output.status.code() == Some(2) {
        let said = String::from_utf8_lossy(&output.stdout);
        return Verdict::Skipped(said.trim().to_string());
    }
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        let tail: String = said
            .chars()
            .rev()
            .take(1500)
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        return Verdict::Differs(format!("the emulated kernel failed: {tail}"));
    }
    let mut args = launch.args.clone();
    for (i, path) in &buffer_files {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => return Verdict::Differs(format!("cannot read {}: {e}", path.display())),
        };
        if let Some(Arg::Buffer(buffer)) = args.get_mut(*i) {
            buffer.bytes = bytes;
        }
    }
    let emulated = Outcome {
        args,
        printed: Vec::new(),
        returned: reference.returned.clone(),
        steps: 0,
        run_specific: None,
    };
    match compare(&params, &reference, &emulated) {
        Some(difference) => Verdict::Differs(format!(
            "the lowered kernel computes otherwise: {difference}"
        )),
        None => Verdict::Same {
            runs: 1,
            changed: 0,
            ttgir: true,
        },
    }
}

/// Whether the emulator can run here (python3 and clang on the path or in LLVM 22's bin).
pub fn available() -> bool {
    let clang = Path::new("/usr/lib/llvm-22/bin/clang").exists()
        || Command::new("clang").arg("--version").output().is_ok();
    clang
        && Command::new("python3")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}
