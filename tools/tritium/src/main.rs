//! `tritium`: compile Triton TTIR to PTX, and run or benchmark kernels on an NVIDIA GPU.

#![warn(clippy::undocumented_unsafe_blocks)]

mod aot_command;
mod run;

use anyhow::Context;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tritium::{
    Arch, CompileOptions, Compiler, Environment, Request, assemble_cubin, is_python, write_atomic,
};

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
    /// Run a dot kernel's programs persistently (-tritium-persistent-programs; TTIR and Python
    /// input): the kernel then takes the requested program count as a last parameter, which
    /// Tritium's runtime passes and the metadata's "virtual_programs" announces
    #[arg(long)]
    pub persistent_programs: bool,
    /// Read a dot loop's pointer-tensor tiles through TMA descriptors, where a loop over tiles
    /// encloses the dot loop (with --persistent-programs, or a hand-written persistent kernel's
    /// own) (-tritium-descriptor-loads); descriptors of the kernel's arguments become parameters
    /// the launcher encodes, listed as "host_descriptors" in the metadata
    /// (-tritium-host-descriptors) (TTIR and Python input, sm_90 and later)
    #[arg(long)]
    pub descriptor_loads: bool,
}

impl CompileArgs {
    /// The compile options these arguments give; what is not given comes from the module.
    pub fn options(&self, keep_intermediates: bool) -> anyhow::Result<CompileOptions> {
        Ok(CompileOptions {
            num_warps: self.num_warps,
            num_stages: self.num_stages,
            arch: self
                .arch
                .as_deref()
                .map(Arch::parse)
                .transpose()
                .map_err(anyhow::Error::msg)?,
            keep_intermediates,
            persistent_programs: self.persistent_programs,
            descriptor_loads: self.descriptor_loads,
            // Line tables, so profilers show source lines, as Triton emits them
            // (TRITON_DISABLE_LINE_INFO=1 turns them off).
            line_info: true,
            ..Default::default()
        })
    }

    /// The compilation these arguments ask for.
    pub fn request(&self, keep_intermediates: bool) -> anyhow::Result<Request> {
        Request::from_file(
            &self.input,
            self.kernel_name.as_deref(),
            self.signature.as_deref(),
            self.options(keep_intermediates)?,
        )
        .map_err(Into::into)
    }
}

/// The compiler of the CLI: the default cache (none when it cannot be opened) and the process
/// environment.
pub fn cli_compiler(environment: Environment) -> Compiler {
    Compiler::with_cache(tritium_runtime::Cache::open_default().ok(), environment)
}

#[derive(Subcommand)]
enum Command {
    /// Compile a kernel: writes DIR/K.ptx and DIR/K.json (Triton 3.6's metadata fields plus the
    /// signature), through the compile cache
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
        /// Write every stage's IR to DIR/HASH/ (as TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR=DIR)
        #[arg(long, value_name = "DIR")]
        dump_dir: Option<PathBuf>,
    },
    /// Ahead of time: a C header and source (and a Rust module) with the PTX embedded and a
    /// typed launch function, as Triton's AOT compiler writes
    Aot(aot_command::AotArgs),
    /// Compile and launch a kernel once on generated inputs, printing a summary of each buffer
    Run(run::RunArgs),
    /// Compile and time a kernel: median of many launches (CUDA events, L2 flushed between runs)
    Bench(run::BenchArgs),
    /// Print Tritium's version and the LLVM/MLIR version it is built on
    Version,
}

fn kernel_stem(input: &std::path::Path) -> String {
    let name = input
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("kernel");
    name.split('.').next().unwrap_or("kernel").to_owned()
}

struct CompileCommand {
    args: CompileArgs,
    output: PathBuf,
    emit: Vec<String>,
    cubin: bool,
    timing: bool,
    out_name: Option<String>,
    dump_dir: Option<PathBuf>,
}

fn run_compile(command: CompileCommand) -> anyhow::Result<()> {
    let CompileCommand {
        args,
        output,
        emit,
        cubin,
        timing,
        out_name,
        dump_dir,
    } = command;
    for stage in &emit {
        if !["ttir", "ttgir", "llir", "ll", "ptx"].contains(&stage.as_str()) {
            anyhow::bail!("unknown --emit stage '{stage}' (expected ttir, ttgir, llir, ll, ptx)");
        }
    }
    let mut environment = Environment::from_env();
    if let Some(dir) = dump_dir {
        environment.kernel_dump_dir = Some(dir);
    }
    let mut request = args.request(!emit.is_empty())?;
    // The stage times exist only when the stages run.
    request.always_compile = timing;
    let result = cli_compiler(environment).compile(&request)?;
    if timing {
        print!("{}", result.times);
    }
    std::fs::create_dir_all(&output).with_context(|| output.display().to_string())?;
    // Python input is named by its kernel (a file may hold several), TTIR by its file.
    let stem = if let Some(name) = out_name {
        name
    } else if is_python(&args.input) {
        result.metadata.name.clone()
    } else {
        kernel_stem(&args.input)
    };
    // Present whenever `--emit` asked for stages: they bypass the cache.
    let stages = result.compiled.as_ref();
    if let Some(text) = stages
        .and_then(|c| c.ttir.as_ref())
        .filter(|_| emit.iter().any(|s| s == "ttir"))
    {
        let path = output.join(format!("{stem}.ttir"));
        if path.canonicalize().ok() == args.input.canonicalize().ok() {
            anyhow::bail!(
                "--emit ttir would overwrite the input {}: choose another -o",
                args.input.display()
            );
        }
        write_atomic(&path, text.as_bytes())?;
    }
    let write = |ext: &str, text: &str| {
        write_atomic(&output.join(format!("{stem}.{ext}")), text.as_bytes())
    };
    write("ptx", &result.ptx)?;
    write("json", &result.metadata.to_json_line())?;
    if let Some(text) = stages
        .and_then(|c| c.ttgir.as_ref())
        .filter(|_| emit.iter().any(|s| s == "ttgir"))
    {
        write("ttgir", text)?;
    }
    if let Some(text) = stages
        .and_then(|c| c.llvm_dialect.as_ref())
        .filter(|_| emit.iter().any(|s| s == "llir"))
    {
        write("llir.mlir", text)?;
    }
    if let Some(text) = stages
        .and_then(|c| c.llvm_ir.as_ref())
        .filter(|_| emit.iter().any(|s| s == "ll"))
    {
        write("ll", text)?;
    }
    if cubin {
        match assemble_cubin(&result.ptx)? {
            Some(binary) => write_atomic(&output.join(format!("{stem}.cubin")), &binary)?,
            None => eprintln!("note: ptxas not found on PATH; no cubin written"),
        }
    }
    Ok(())
}

/// `TRITIUM_LOG=tritium_passes=debug` (tracing's filter syntax) logs to stderr.
fn init_logging() {
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("TRITIUM_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .without_time()
            .init();
    }
}

fn main() -> ExitCode {
    init_logging();
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
            dump_dir,
        } => run_compile(CompileCommand {
            args,
            output,
            emit,
            cubin,
            timing,
            out_name,
            dump_dir,
        }),
        Command::Aot(args) => aot_command::run(args),
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
        Err(error) => {
            let message = format!("{error:#}");
            let located = message
                .lines()
                .next()
                .is_some_and(|l| l.contains(": error: "));
            if message.starts_with("error:") || located {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            if let Some(path) = tritium::Environment::from_env().debug.reproducer
                && path.exists()
            {
                eprintln!(
                    "note: MLIR reproducer in {0} (replay: triton-opt --run-reproducer {0})",
                    path.display()
                );
            }
            ExitCode::FAILURE
        }
    }
}
