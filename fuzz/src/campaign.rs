//! The fuzzing campaign: a parent process mutates kernels of the corpus and hands each mutant to
//! a worker process (this binary's `worker` mode), which runs it through parse and verify, the
//! interpreter, and the whole compiler (every stage, each verified) and answers with the
//! outcome's class. A worker that dies (panic across the C API, abort) or takes longer than the
//! timeout (a hang) is a finding; so is a class that names a bug (IR a stage made that does not
//! verify, a panic caught in Rust). Mutants that reach a new class join the pool, so the
//! campaign moves towards the parts of the compiler the seeds did not reach.

use crate::corpus::{self, Kernel};
use crate::mutate;
use rand::{SeedableRng, rngs::StdRng, seq::SliceRandom};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use tritium_lowering::compile::{CompileOptions, compile};
use tritium_lowering::diagnostics::CompileError;
use tritium_lowering::ptx::Arch;

/// What a worker run of one input found, as a short class (`rejected:parse`,
/// `compiled`, `BUG:...`). Classes starting with `BUG:` are findings.
pub fn exercise(source: &str, name: &str) -> String {
    let interpreted = interpret(source, name);
    let options = options_for(source);
    let compiled = match compile(source, name, &options) {
        Ok(_) => "compiled".to_owned(),
        Err(CompileError::Verify { stage, diagnostics }) => format!(
            "BUG: the IR after stage `{stage}` does not verify: {}",
            diagnostics
                .first()
                .map(|d| d.message.lines().next().unwrap_or("").to_owned())
                .unwrap_or_default()
        ),
        Err(CompileError::Stage { stage, diagnostics }) => {
            let unlocated = diagnostics.iter().any(|d| d.location.is_empty());
            format!(
                "rejected:{stage}{}:{}",
                if unlocated { ":unlocated" } else { "" },
                message_kind(
                    diagnostics
                        .first()
                        .map(|d| d.message.as_str())
                        .unwrap_or("")
                )
            )
        }
        Err(other) => format!("rejected:options:{}", message_kind(&other.to_string())),
    };
    format!("{interpreted} {compiled}")
}

/// The first words of a message, without numbers and names: what kind of error it is.
fn message_kind(message: &str) -> String {
    message
        .split_whitespace()
        .take(5)
        .filter(|w| !w.contains(|c: char| c.is_ascii_digit() || c == '%' || c == '\'' || c == '`'))
        .collect::<Vec<_>>()
        .join("_")
}

/// Compile options from the input's hash: 1, 4 or 8 warps, sm_90a or sm_80.
fn options_for(source: &str) -> CompileOptions {
    let hash = source.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    CompileOptions {
        num_warps: Some([4, 8, 1][(hash % 3) as usize]),
        arch: Arch::parse(if hash & 8 == 0 { "sm_90a" } else { "sm_80" }).ok(),
        ..CompileOptions::default()
    }
}

/// The interpreter on the input (small limits), as a class: it must fail cleanly or run.
fn interpret(source: &str, name: &str) -> String {
    let (context, sink) = tritium_interp::new_context_with_sink();
    let Ok(module) = tritium_interp::parse(&context, &sink, source, name) else {
        return "invalid".into();
    };
    let op = tritium_dialects::melior::ir::operation::OperationLike::to_raw(&module.as_operation());
    if tritium_passes::ir_util::int_attr(op, "ttg.num-warps").is_some() {
        return "valid-ttgir".into();
    }
    let Ok(params) = tritium_interp::kernel_params(op, None) else {
        return "valid:no-kernel".into();
    };
    let Some(args) = crate::differential::make_args(&params, 16, 0) else {
        return "valid:untyped-args".into();
    };
    let launch = tritium_interp::Launch {
        grid: [2, 1, 1],
        args,
        limits: tritium_interp::Limits {
            max_steps: 100_000,
            max_elements: 1 << 26,
            ..Default::default()
        },
    };
    let Ok(before) = tritium_interp::run_module(op, None, launch.clone()) else {
        return "valid:faults".into();
    };
    // A mutant that runs cleanly must compute the same after the TTIR pipeline. A difference is
    // a candidate miscompile (`DIFF:`, saved for triage, not a finding: a mutant may compute
    // with undefined behaviour, such as an over-wide shift, that a pass may fold differently).
    let Ok(mut after) = tritium_interp::parse(&context, &sink, source, name) else {
        return "valid:runs".into();
    };
    let pipeline = tritium_dialects::pass::pipeline_text(&tritium_passes::pipelines::ttir_passes());
    if crate::differential::run_passes(&context, &sink, &mut after, &pipeline).is_err() {
        return "valid:runs:ttir-rejects".into();
    }
    let after_op =
        tritium_dialects::melior::ir::operation::OperationLike::to_raw(&after.as_operation());
    match tritium_interp::run_module(after_op, None, launch) {
        Ok(outcome) => match crate::differential::compare(&params, &before, &outcome) {
            Some(difference) => {
                format!("DIFF: the TTIR pipeline changed the results: {difference}")
            }
            None => "valid:runs:same".into(),
        },
        Err(e) => format!(
            "DIFF: the kernel fails after the TTIR pipeline: {}",
            e.message
        ),
    }
}

/// The worker: for each line on stdin (a file path), runs [`exercise`] on that file and prints
/// its class on one line. A panic that Rust can catch is reported as a class.
pub fn worker() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(path) = line else { break };
        let source = std::fs::read_to_string(&path).unwrap_or_default();
        let class =
            std::panic::catch_unwind(|| exercise(&source, "fuzz.ttir")).unwrap_or_else(|payload| {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                format!("BUG: panic: {}", message.lines().next().unwrap_or(""))
            });
        if writeln!(stdout, "{}", class.replace('\n', " ")).is_err() || stdout.flush().is_err() {
            break;
        }
    }
}

/// How to run a campaign.
#[derive(Clone, Debug)]
pub struct Config {
    /// Stop after this long...
    pub duration: Duration,
    /// ...or after this many executions, whichever comes first.
    pub max_executions: u64,
    pub seed: u64,
    /// Where findings (and the worker's scratch file) go.
    pub out: PathBuf,
    /// An input that keeps the worker busy longer (CPU time, so that a loaded machine does not
    /// make slow inputs hangs; or ten times as long by the clock) is a hang.
    pub timeout: Duration,
    /// The `tritium-fuzz` binary (its `worker` mode).
    pub worker: PathBuf,
}

/// One finding: the input is saved as `file`.
#[derive(Clone, Debug)]
pub struct Finding {
    pub what: String,
    pub file: PathBuf,
}

/// What a campaign did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub executions: u64,
    /// Executions whose input passed the verifier.
    pub valid: u64,
    /// Executions that compiled to PTX.
    pub compiled: u64,
    /// Distinct outcome classes seen.
    pub classes: usize,
    /// Rejections whose diagnostics had no location (a rule violation, not a crash).
    pub unlocated: u64,
    /// Mutants that ran cleanly but computed something else after the TTIR pipeline
    /// (candidate miscompiles, saved as `diff-N.ttir` for triage).
    pub differences: u64,
    pub findings: Vec<Finding>,
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    /// Inputs this worker has been asked about.
    answered: u64,
}

/// A worker's answer to one input, with the CPU time and the time by the clock it took.
struct Reply {
    answer: Result<String, RecvTimeoutError>,
    cpu: Duration,
    wall: Duration,
}

impl Worker {
    fn start(exe: &Path, log: &Path) -> std::io::Result<Worker> {
        let stderr = std::fs::File::create(log)?;
        let mut child = Command::new(exe)
            .arg("worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let (send, replies) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Worker {
            child,
            stdin,
            replies,
            answered: 0,
        })
    }

    /// Sends `input` (a file path) and waits for the reply, or a timeout once the worker has spent
    /// `limit` of CPU time on it (where the OS reports it; else `limit` by the clock), or
    /// 10 × `limit` by the clock (a worker stuck without computing). Also says how long it took.
    fn ask(&mut self, input: &Path, limit: Duration) -> Reply {
        let start_cpu = self.cpu_time();
        let started = Instant::now();
        let sent = writeln!(self.stdin, "{}", input.display()).and_then(|()| self.stdin.flush());
        let answer = match sent {
            Ok(()) => self.reply_within(limit, start_cpu, started),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        self.answered += 1;
        Reply {
            answer,
            cpu: match (start_cpu, self.cpu_time()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => started.elapsed(),
            },
            wall: started.elapsed(),
        }
    }

    fn reply_within(
        &self,
        limit: Duration,
        start_cpu: Option<Duration>,
        started: Instant,
    ) -> Result<String, RecvTimeoutError> {
        loop {
            match self.replies.recv_timeout(Duration::from_millis(200)) {
                Err(RecvTimeoutError::Timeout) => {}
                other => return other,
            }
            let busy = match (start_cpu, self.cpu_time()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => started.elapsed(),
            };
            if busy > limit || started.elapsed() > limit * 10 {
                return Err(RecvTimeoutError::Timeout);
            }
        }
    }

    /// User + system CPU time of the worker process (all its threads), from /proc on Linux.
    fn cpu_time(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // Fields after the parenthesised command name; utime and stime are the 12th and 13th,
        // in clock ticks of the /proc ABI (USER_HZ, 100 per second).
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }

    fn stop(mut self) {
        // The worker may already be gone; either way it is reaped here.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The seeds: every kernel of the corpus (TTIR files, lit cases) plus the TTGIR files.
pub fn seeds() -> Vec<Kernel> {
    let mut seeds = corpus::all();
    let root = corpus::repo_root();
    for dir in ["test/Inputs", "../shared/kernels"] {
        let mut stack = vec![root.join(dir)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "ttgir")
                    && let Ok(source) = std::fs::read_to_string(&path)
                {
                    seeds.push(Kernel {
                        name: path.display().to_string(),
                        source,
                    });
                }
            }
        }
    }
    seeds.sort_by(|a, b| a.name.cmp(&b.name));
    seeds
}

/// Runs a campaign; findings are saved under `config.out`.
pub fn run(config: &Config) -> std::io::Result<Summary> {
    std::fs::create_dir_all(&config.out)?;
    let mut rng = StdRng::seed_from_u64(config.seed);
    let mut pool: Vec<String> = seeds().into_iter().map(|k| k.source).collect();
    let seed_count = pool.len();
    let current = config.out.join("current.ttir");
    let log = config.out.join("worker.stderr");
    let mut worker = Worker::start(&config.worker, &log)?;
    let mut seen: HashSet<String> = HashSet::new();
    let mut summary = Summary::default();
    let mut reported: HashSet<String> = HashSet::new();
    let started = Instant::now();
    while started.elapsed() < config.duration && summary.executions < config.max_executions {
        let parent = pool.choose(&mut rng).cloned().unwrap_or_default();
        let input = mutate::mutate(&parent, &mut rng);
        std::fs::write(&current, &input)?;
        summary.executions += 1;
        let reply = worker.ask(&current, config.timeout);
        let finding = match reply.answer {
            Ok(class) => {
                if !class.starts_with("invalid") {
                    summary.valid += 1;
                }
                if class.contains("compiled") {
                    summary.compiled += 1;
                }
                if class.contains(":unlocated") {
                    summary.unlocated += 1;
                    if reported.insert(class.clone()) {
                        let file = config
                            .out
                            .join(format!("unlocated-{}.ttir", summary.unlocated));
                        std::fs::write(&file, format!("// {class}\n{input}"))?;
                    }
                }
                if seen.insert(class.clone())
                    && !class.starts_with("invalid")
                    && pool.len() < seed_count + 2000
                {
                    pool.push(input.clone());
                }
                if let Some(at) = class.find("DIFF:") {
                    summary.differences += 1;
                    let kind = format!("diff {}", message_kind(&class[at..]));
                    if reported.insert(kind) {
                        let file = config
                            .out
                            .join(format!("diff-{}.ttir", summary.differences));
                        std::fs::write(&file, format!("// {}\n{input}", &class[at..]))?;
                    }
                }
                class.find("BUG:").map(|at| class[at..].to_owned())
            }
            Err(RecvTimeoutError::Timeout) => {
                let inputs_before = worker.answered - 1;
                worker.stop();
                // Triage: the same input once more, in a fresh worker, so that the finding says
                // whether the input hangs or the worker's state (or the machine) did.
                worker = Worker::start(&config.worker, &log)?;
                let again = worker.ask(&current, config.timeout);
                let verdict = match again.answer {
                    Ok(class) => format!(
                        "not reproduced: a fresh worker answered `{class}` in {:.1} s of CPU time",
                        again.cpu.as_secs_f64()
                    ),
                    Err(RecvTimeoutError::Timeout) => {
                        worker.stop();
                        worker = Worker::start(&config.worker, &log)?;
                        "reproduced in a fresh worker".to_owned()
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        worker.stop();
                        worker = Worker::start(&config.worker, &log)?;
                        "a fresh worker died on it".to_owned()
                    }
                };
                Some(format!(
                    "hang: no answer within {} s of CPU time ({:.1} s of CPU, {:.1} s by the \
                     clock, in a worker that had answered {inputs_before} inputs); {verdict}",
                    config.timeout.as_secs(),
                    reply.cpu.as_secs_f64(),
                    reply.wall.as_secs_f64(),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                worker.stop();
                let stderr = std::fs::read_to_string(&log).unwrap_or_default();
                let last = stderr
                    .lines()
                    .rev()
                    .find(|l| {
                        let l = l.to_lowercase();
                        l.contains("panicked") || l.contains("error") || l.contains("assertion")
                    })
                    .unwrap_or("the worker died")
                    .to_owned();
                worker = Worker::start(&config.worker, &log)?;
                Some(format!("crash: {last}"))
            }
        };
        if let Some(what) = finding {
            // One file per distinct finding (numbers and names stripped).
            let kind = message_kind(&what);
            if reported.insert(kind) {
                let file = config
                    .out
                    .join(format!("finding-{}.ttir", summary.findings.len()));
                std::fs::write(&file, format!("// {what}\n{input}"))?;
                summary.findings.push(Finding { what, file });
            }
        }
    }
    worker.stop();
    summary.classes = seen.len();
    Ok(summary)
}
