//! `tritium-gpu-check DIR [--bench] [options]`: checks (and optionally times) the benchmark
//! kernels and the lowering-pattern kernels whose PTX is in DIR against CPU references. See
//! `tritium_runtime::suite` and `tritium_runtime::patterns`.

use std::io::Write;
use std::process::ExitCode;

use tritium_runtime::patterns::patterns;
use tritium_runtime::suite::{KERNELS, SuiteOptions, run_suite};

const USAGE: &str = "\
usage: tritium-gpu-check DIR [--bench] [--seed N] [--reps N] [--warmup N]
                         [--matmul-size S] [--only K,K..] [--device N]
       tritium-gpu-check --list

Launches each of add, softmax, rmsnorm, matmul and of the lowering patterns (--list) that has
DIR/K.ptx + DIR/K.json on fresh random inputs (outputs poisoned first), compares every element
with a CPU reference, and prints `PASS K ...` or `FAIL K ...` per kernel. --bench adds, for the
four benchmark kernels, the median time of --reps runs (default 100) measured with CUDA events,
L2 flushed between runs. Without a CUDA driver or GPU each kernel is reported as
`SKIP: K: reason`. The last line is `N passed, M failed, K skipped`; the exit code is 0 when
nothing failed, 1 when something did, 2 on a usage error.";

fn parse(args: &[String]) -> Result<SuiteOptions, String> {
    let mut dir = None;
    let mut bench = false;
    let mut rest: Vec<(String, String)> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--bench" => bench = true,
            "-h" | "--help" => return Err(String::new()),
            "--list" => return Err("--list".into()),
            "--seed" | "--reps" | "--warmup" | "--matmul-size" | "--only" | "--device" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                rest.push((a.clone(), v.clone()));
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => {
                if dir.replace(s.to_string()).is_some() {
                    return Err("more than one DIR given".into());
                }
            }
        }
    }
    let mut opts = SuiteOptions::new(dir.ok_or("missing DIR")?);
    opts.bench = bench;
    let num = |k: &str, v: &str| -> Result<u64, String> {
        v.parse::<u64>()
            .map_err(|_| format!("{k}: `{v}` is not a non-negative integer"))
    };
    for (k, v) in rest {
        match k.as_str() {
            "--seed" => opts.seed = Some(num(&k, &v)?),
            "--reps" => opts.reps = num(&k, &v)?.max(1) as usize,
            "--warmup" => opts.warmup = num(&k, &v)? as usize,
            "--matmul-size" => opts.matmul_size = num(&k, &v)? as usize,
            "--device" => opts.device = num(&k, &v)? as usize,
            "--only" => {
                opts.only = Some(v.split(',').map(|s| s.trim().to_string()).collect());
            }
            _ => unreachable!("options are matched above"),
        }
    }
    Ok(opts)
}

/// Prints a line and flushes (progress stays visible); a closed stdout is not an error.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            if e.is_empty() {
                say(USAGE);
                return ExitCode::SUCCESS;
            }
            if e == "--list" {
                for k in KERNELS {
                    say(&format!("{k:<14} benchmark kernel"));
                }
                for p in patterns() {
                    say(&format!("{:<14} {}", p.name, p.what));
                }
                return ExitCode::SUCCESS;
            }
            eprintln!("tritium-gpu-check: {e}\n\n{USAGE}");
            say("0 passed, 0 failed, 0 skipped");
            return ExitCode::from(2);
        }
    };
    match run_suite(&opts, &mut |line| say(line)) {
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
