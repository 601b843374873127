//! `tritium-gpu-check DIR [--bench] [options]`: checks (and optionally times) the benchmark
//! kernels and the lowering-pattern kernels whose PTX is in DIR against CPU references. See
//! `tritium_runtime::suite` and `tritium_runtime::patterns`.

use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use tritium_runtime::patterns::patterns;
use tritium_runtime::suite::{KERNELS, SuiteOptions, run_suite, selected_kernels};

/// What the checker does, after the usage line of `--help`.
const ABOUT: &str = "\
Launches each of add, softmax, rmsnorm, matmul and of the lowering patterns (--list) that has
DIR/K.ptx + DIR/K.json on fresh random inputs (outputs poisoned first), compares every element
with a CPU reference, and prints `PASS K ...` or `FAIL K ...` per kernel. --bench adds, for the
four benchmark kernels, the median time of --reps runs (default 100) measured with CUDA events,
L2 flushed between runs. Without a CUDA driver or GPU each kernel is reported as
`SKIP: K: reason`. The last line is `N passed, M failed, K skipped`; the exit code is 0 when
nothing failed, 1 when something did, 2 on a usage error.";

#[derive(clap::Parser)]
#[command(name = "tritium-gpu-check", about = "Checks (and times) Tritium's PTX on the GPU", long_about = ABOUT)]
struct Cli {
    /// Directory holding K.ptx + K.json for each kernel
    dir: Option<PathBuf>,
    /// Also time the benchmark kernels
    #[arg(long)]
    bench: bool,
    /// RNG seed [default: from the clock, printed]
    #[arg(long)]
    seed: Option<u64>,
    /// Timed launches; the median is reported [default: 100]
    #[arg(long)]
    reps: Option<usize>,
    /// Untimed launches before timing [default: 10]
    #[arg(long)]
    warmup: Option<usize>,
    /// M = N = K of the matmul case, a multiple of 16 [default: 4096]
    #[arg(long)]
    matmul_size: Option<usize>,
    /// Run only these kernels: K,K..
    #[arg(long, value_delimiter = ',')]
    only: Option<Vec<String>>,
    /// CUDA device ordinal [default: 0]
    #[arg(long)]
    device: Option<usize>,
    /// List the kernels the checker knows
    #[arg(long)]
    list: bool,
}

impl Cli {
    fn options(self) -> Result<SuiteOptions, String> {
        let mut options = SuiteOptions::new(self.dir.ok_or("missing DIR")?);
        options.bench = self.bench;
        options.seed = self.seed;
        options.reps = self.reps.unwrap_or(options.reps).max(1);
        options.warmup = self.warmup.unwrap_or(options.warmup);
        options.matmul_size = self.matmul_size.unwrap_or(options.matmul_size);
        options.device = self.device.unwrap_or(options.device);
        options.only = self
            .only
            .map(|kernels| kernels.iter().map(|k| k.trim().to_owned()).collect());
        Ok(options)
    }
}

/// A usage error: the message, the summary line the suite's callers parse, exit code 2.
fn usage_error(message: &str) -> ExitCode {
    eprintln!("tritium-gpu-check: {message}");
    say("0 passed, 0 failed, 0 skipped");
    ExitCode::from(2)
}

/// Prints a line and flushes (progress stays visible); a closed stdout is not an error.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help and --version.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            let _ = error.print();
            say("0 passed, 0 failed, 0 skipped");
            return ExitCode::from(2);
        }
    };
    if cli.list {
        for k in KERNELS {
            say(&format!("{k:<14} benchmark kernel"));
        }
        for p in patterns() {
            say(&format!("{:<14} {}", p.name, p.what));
        }
        return ExitCode::SUCCESS;
    }
    let opts = match cli.options() {
        Ok(opts) => opts,
        Err(message) => return usage_error(&message),
    };
    // A progress bar on stderr while kernels run (drawn only on a terminal); the result lines
    // go to stdout, with the bar suspended while each is printed.
    let total = selected_kernels(&opts).map_or(0, |k| k.len() as u64);
    let progress = indicatif::ProgressBar::new(total).with_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} kernels {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let result = run_suite(&opts, &mut |line| {
        progress.suspend(|| say(line));
        if let Some(kernel) = ["PASS ", "FAIL ", "SKIP: "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
        {
            progress.inc(1);
            progress.set_message(kernel.split([' ', ':']).next().unwrap_or("").to_owned());
        }
    });
    progress.finish_and_clear();
    match result {
        Ok(summary) => {
            say(&summary.line());
            ExitCode::from(summary.exit_code() as u8)
        }
        Err(e) => {
            eprintln!("tritium-gpu-check: {e}");
            say("0 passed, 0 failed, 0 skipped");
            ExitCode::from(2)
        }
    }
}
