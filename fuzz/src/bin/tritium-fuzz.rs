//! `tritium-fuzz`: mutates the repository's kernels and runs each mutant through parse, verify,
//! the interpreter and every compiler stage in a worker process; prints what it found.
//!
//!     cargo run --release -p tritium-fuzz -- --seconds 3600      # one hour
//!     cargo run --release -p tritium-fuzz -- --executions 500 --seed 3

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Duration;
use tritium_fuzz::campaign::{self, Config};

#[derive(Parser)]
#[command(about = "Fuzz Tritium: structured mutations of the repository's kernels")]
struct Cli {
    #[command(subcommand)]
    mode: Option<Mode>,
    /// Stop after this many seconds
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Stop after this many executions
    #[arg(long, default_value_t = u64::MAX)]
    executions: u64,
    /// Seed of the mutations (the same seed and count replay the same inputs)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where findings are written (finding-N.ttir, the finding on its first line)
    #[arg(long, default_value = "target/fuzz")]
    out: std::path::PathBuf,
    /// Seconds of the worker's CPU time (or ten times that by the clock) after which one input
    /// counts as a hang
    #[arg(long, default_value_t = 10)]
    timeout: u64,
}

#[derive(Subcommand)]
enum Mode {
    /// Internal: answer one class per input path read from stdin
    Worker,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Mode::Worker) = cli.mode {
        campaign::worker();
        return ExitCode::SUCCESS;
    }
    let worker = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("error: cannot find this executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = Config {
        duration: Duration::from_secs(cli.seconds),
        max_executions: cli.executions,
        seed: cli.seed,
        out: cli.out,
        timeout: Duration::from_secs(cli.timeout),
        worker,
    };
    match campaign::run(&config) {
        Ok(summary) => {
            println!(
                "{} executions: {} verified, {} compiled to PTX, {} outcome classes, {} unlocated rejections, {} differences after the TTIR pipeline, {} findings",
                summary.executions,
                summary.valid,
                summary.compiled,
                summary.classes,
                summary.unlocated,
                summary.differences,
                summary.findings.len()
            );
            for finding in &summary.findings {
                println!("{}: {}", finding.file.display(), finding.what);
            }
            if summary.findings.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
