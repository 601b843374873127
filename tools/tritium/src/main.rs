//! `tritium`: compile Triton TTIR to PTX, and run or benchmark kernels on an NVIDIA GPU.

#![warn(clippy::undocumented_unsafe_blocks)]

mod run;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tritium_lowering::compile::{CompileOptions, Compiled, compile_timed};
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
    /// Input TTIR (or TTGIR) file, e.g. add.ttir
    pub input: PathBuf,
    /// Warps per program (power of two, 1..32) [default: TTGIR's ttg.num-warps, else 4]
    #[arg(long)]
    pub num_warps: Option<u32>,
    /// Software pipelining stages [default: the module's ttg.num-stages, else 3]
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
        /// Also write intermediate stages: any of ttgir, llir (LLVM dialect), ll (LLVM IR), ptx
        #[arg(long, value_delimiter = ',')]
        emit: Vec<String>,
        /// Also assemble a cubin with `ptxas` when it is on PATH
        #[arg(long)]
        cubin: bool,
        /// Print each stage's wall time (ms) and the total
        #[arg(long)]
        timing: bool,
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
    compile_timed(&source, &args.input.display().to_string(), &options, times)
        .map_err(|error| error.to_string())
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
) -> Result<(), String> {
    for stage in &emit {
        if !["ttgir", "llir", "ll", "ptx"].contains(&stage.as_str()) {
            return Err(format!(
                "unknown --emit stage '{stage}' (expected ttgir, llir, ll, ptx)"
            ));
        }
    }
    let mut times = StageTimes::default();
    let compiled = compile_file(&args, !emit.is_empty(), &mut times)?;
    if timing {
        print!("{times}");
    }
    std::fs::create_dir_all(&output).map_err(|e| format!("{}: {e}", output.display()))?;
    let stem = kernel_stem(&args.input);
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
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compile {
            args,
            output,
            emit,
            cubin,
            timing,
        } => run_compile(args, output, emit, cubin, timing),
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
            if message.starts_with("error:") {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}
