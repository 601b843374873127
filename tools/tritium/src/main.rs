//! `tritium`: compile Triton TTIR to PTX, and run or benchmark kernels on an NVIDIA GPU.

#![warn(clippy::undocumented_unsafe_blocks)]

mod run;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tritium_lowering::compile::{CompileOptions, Compiled, compile_built, compile_timed};
use tritium_lowering::diagnostics::CompileError;
use tritium_lowering::ptx::Arch;
use tritium_lowering::stage::StageTimes;

#[derive(Parser)]
#[command(
    name = "tritium",
    version,
    about = "Tritium: a Triton-class GPU kernel compiler on MLIR, in Rust"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
pub struct CompileArgs {
    /// Input: TTIR (or TTGIR), e.g. add.ttir, or Python with @triton.jit kernels, e.g. kernel.py
    pub input: PathBuf,
    /// Python input: the kernel to compile [default: the file's only @triton.jit function]
    #[arg(short = 'n', long)]
    pub kernel_name: Option<String>,
    /// Python input: one entry per kernel parameter, in order: a type (*fp16, *fp32, i32, fp32,
    /// ...) with an optional :16 (divisible by 16) hint, or a value for a tl.constexpr parameter
    /// or an integer specialized to 1, e.g. "*fp32:16, *fp32:16, i32:16, 1024"
    #[arg(short = 's', long, allow_hyphen_values = true)]
    pub signature: Option<String>,
    /// Warps per program (power of two, 1..32) [default: TTGIR's ttg.num-warps, else 4]
    #[arg(short = 'w', long)]
    pub num_warps: Option<u32>,
    /// Software pipelining stages (short form -ns) [default: the module's ttg.num-stages, else 3]
    #[arg(long)]
    pub num_stages: Option<u32>,
    /// Target GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a [default: TTGIR's ttg.target, else sm_90a]
    #[arg(long)]
    pub arch: Option<String>,
}

impl CompileArgs {
    /// The compile options these arguments give; what is not given comes from the module.
    pub fn options(&self, keep_intermediates: bool) -> Result<CompileOptions, String> {
        Ok(CompileOptions {
            num_warps: self.num_warps,
            num_stages: self.num_stages,
            arch: self.arch.as_deref().map(Arch::parse).transpose()?,
            keep_intermediates,
            // Python kernels get line tables, so profilers show their source lines.
            line_info: is_python(&self.input),
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Compile a kernel: writes DIR/K.ptx and DIR/K.json (name, num_warps, num_stages, shared, arch,
    /// signature, arg_names)
    Compile {
        #[command(flatten)]
        args: CompileArgs,
        /// Output directory
        #[arg(short, long, default_value = ".")]
        output: PathBuf,
        /// Also write intermediate stages: any of ttir (after the TTIR passes), ttgir, llir (LLVM
        /// dialect), ll (LLVM IR), ptx
        #[arg(long, value_delimiter = ',')]
        emit: Vec<String>,
        /// Also assemble a cubin with `ptxas` when it is on PATH
        #[arg(long)]
        cubin: bool,
        /// Print each stage's wall time (ms) and the total
        #[arg(long)]
        timing: bool,
        /// Base name of the output files (short form -on) [default: the kernel's name for
        /// Python input, the input file's stem otherwise]
        #[arg(long)]
        out_name: Option<String>,
    },
    /// Compile and launch a kernel once on generated inputs, printing a summary of each buffer
    Run(run::RunArgs),
    /// Compile and time a kernel: median of many launches (CUDA events, L2 flushed between runs)
    Bench(run::BenchArgs),
    /// Print Tritium's version and the LLVM/MLIR version it is built on
    Version,
}

/// Compiles `args.input`, recording each stage's time in `times`.
pub fn compile_file(
    args: &CompileArgs,
    keep: bool,
    times: &mut StageTimes,
) -> Result<Compiled, String> {
    let options = args.options(keep)?;
    let source = std::fs::read_to_string(&args.input)
        .map_err(|e| format!("{}: cannot read: {e}", args.input.display()))?;
    let filename = args.input.display().to_string();
    if is_python(&args.input) {
        let signature = args.signature.as_deref().unwrap_or("");
        let kernel = args.kernel_name.as_deref();
        return compile_built(
            |context| {
                tritium_frontend::build(context, &source, &filename, kernel, signature)
                    .map_err(|e| CompileError::Source(e.to_string()))
            },
            &filename,
            &options,
            times,
        )
        .map_err(|error| error.to_string());
    }
    if args.kernel_name.is_some() || args.signature.is_some() {
        return Err(format!(
            "{filename}: --kernel-name and --signature are for Python input (.py)"
        ));
    }
    compile_timed(&source, &filename, &options, times).map_err(|error| error.to_string())
}

/// Whether `input` is Python source (by its extension).
fn is_python(input: &std::path::Path) -> bool {
    input.extension().is_some_and(|e| e == "py")
}

fn kernel_stem(input: &std::path::Path) -> String {
    let name = input
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("kernel");
    name.split('.').next().unwrap_or("kernel").to_owned()
}

fn run_compile(
    args: CompileArgs,
    output: PathBuf,
    emit: Vec<String>,
    cubin: bool,
    timing: bool,
    out_name: Option<String>,
) -> Result<(), String> {
    for stage in &emit {
        if !["ttir", "ttgir", "llir", "ll", "ptx"].contains(&stage.as_str()) {
            return Err(format!(
                "unknown --emit stage '{stage}' (expected ttir, ttgir, llir, ll, ptx)"
            ));
        }
    }
    let mut times = StageTimes::default();
    let compiled = compile_file(&args, !emit.is_empty(), &mut times)?;
    if timing {
        print!("{times}");
    }
    std::fs::create_dir_all(&output).map_err(|e| format!("{}: {e}", output.display()))?;
    // Python input is named by its kernel (a file may hold several), TTIR by its file.
    let stem = if let Some(name) = out_name {
        name
    } else if is_python(&args.input) {
        compiled.name.clone()
    } else {
        kernel_stem(&args.input)
    };
    if let Some(text) = compiled
        .ttir
        .as_ref()
        .filter(|_| emit.iter().any(|s| s == "ttir"))
    {
        let path = output.join(format!("{stem}.ttir"));
        if path.canonicalize().ok() == args.input.canonicalize().ok() {
            return Err(format!(
                "--emit ttir would overwrite the input {}: choose another -o",
                args.input.display()
            ));
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let write = |ext: &str, text: &str| {
        let path = output.join(format!("{stem}.{ext}"));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("ptx", &compiled.ptx)?;
    write("json", &compiled.metadata_json())?;
    if let Some(text) = compiled
        .ttgir
        .as_ref()
        .filter(|_| emit.iter().any(|s| s == "ttgir"))
    {
        write("ttgir", text)?;
    }
    if let Some(text) = compiled
        .llvm_dialect
        .as_ref()
        .filter(|_| emit.iter().any(|s| s == "llir"))
    {
        write("llir.mlir", text)?;
    }
    if let Some(text) = compiled
        .llvm_ir
        .as_ref()
        .filter(|_| emit.iter().any(|s| s == "ll"))
    {
        write("ll", text)?;
    }
    if cubin {
        let ptx = output.join(format!("{stem}.ptx"));
        let out = output.join(format!("{stem}.cubin"));
        match std::process::Command::new("ptxas")
            .arg(format!("-arch={}", compiled.arch.name()))
            .arg(&ptx)
            .arg("-o")
            .arg(&out)
            .status()
        {
            Ok(status) if status.success() => {}
            Ok(status) => return Err(format!("ptxas failed ({status})")),
            Err(_) => eprintln!("note: ptxas not found on PATH; no cubin written"),
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // Triton's AOT compiler spells these `-ns` and `-on`; clap's short options are one letter.
    let argv = std::env::args_os().map(|a| {
        if a == "-ns" {
            "--num-stages".into()
        } else if a == "-on" {
            "--out-name".into()
        } else if let Some(rest) = a.to_str().and_then(|a| a.strip_prefix("-ns=")) {
            format!("--num-stages={rest}").into()
        } else {
            a
        }
    });
    let cli = Cli::parse_from(argv);
    let result = match cli.command {
        Command::Compile {
            args,
            output,
            emit,
            cubin,
            timing,
            out_name,
        } => run_compile(args, output, emit, cubin, timing, out_name),
        Command::Run(args) => run::run(args),
        Command::Bench(args) => run::bench(args),
        Command::Version => {
            println!("tritium {}", env!("CARGO_PKG_VERSION"));
            println!("LLVM/MLIR {}", tritium_lowering::llvm_version());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            let located = message
                .lines()
                .next()
                .is_some_and(|l| l.contains(": error: "));
            if message.starts_with("error:") || located {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}
