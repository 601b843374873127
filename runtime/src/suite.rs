//! The GPU check behind `tritium-gpu-check`: launches the benchmark kernels and the
//! lowering-pattern kernels ([`crate::patterns`]) found in a directory on fresh random inputs,
//! compares every output element with the CPU references, and optionally times the benchmark
//! kernels.
//!
//! For each `K` in [`KERNELS`] with a `DIR/K.ptx` (and `DIR/K.json`), the kernel is launched with
//! exactly the parameters of `shared/kernels/K.ttir`, in order, on the shapes of the benchmark
//! table (`shared/README.md`). Outputs are filled with `0xFF` bytes (NaN) before the checked
//! launch, so an element the kernel never writes fails. Triton's own PTX appends two scratch
//! pointer parameters; when the PTX entry declares more parameters than the benchmark passes,
//! the extra ones are passed as null pointers (and the report says so), so Triton's PTX can be
//! used to validate this checker itself.
//!
//! Then each pattern with a `DIR/<pattern>.ptx` runs as described in [`crate::patterns`]; its
//! inputs come from the run's seed mixed with the pattern's name.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use crate::device::{Device, L2Flush, Stream, median};
use crate::error::RuntimeError;
use crate::launch::{Kernel, KernelArg};
use crate::metadata::{ElemType, KernelMetadata, ParamType};
use crate::patterns;
use crate::reference::{self, Comparison, Rng, Tolerance};

/// The benchmark kernels, in the order they are run.
pub const KERNELS: [&str; 4] = ["add", "softmax", "rmsnorm", "matmul"];

/// What to run.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// Directory holding `K.ptx` + `K.json`.
    pub dir: PathBuf,
    /// Also time each kernel.
    pub bench: bool,
    /// RNG seed; `None` picks one from the clock (it is printed).
    pub seed: Option<u64>,
    /// Untimed launches before timing.
    pub warmup: usize,
    /// Timed launches; the median is reported.
    pub reps: usize,
    /// M = N = K of the matmul case (multiple of 16; the benchmark uses 4096).
    pub matmul_size: usize,
    /// Run only these kernels (`None`: all present).
    pub only: Option<Vec<String>>,
    /// CUDA device ordinal.
    pub device: usize,
}

impl SuiteOptions {
    /// Defaults: check only, 10 warmup + 100 timed runs when benchmarking, 4096^3 matmul.
    pub fn new(dir: impl Into<PathBuf>) -> SuiteOptions {
        SuiteOptions {
            dir: dir.into(),
            bench: false,
            seed: None,
            warmup: 10,
            reps: 100,
            matmul_size: 4096,
            only: None,
            device: 0,
        }
    }
}

/// How one kernel fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every element matched.
    Pass,
    /// Load, launch or comparison failed.
    Fail,
    /// No driver or GPU.
    Skip,
}

/// One kernel's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseReport {
    /// Kernel name (`add`, ...).
    pub kernel: String,
    /// Outcome.
    pub outcome: Outcome,
    /// Details (errors, shapes, timing) or the skip reason.
    pub detail: String,
}

impl CaseReport {
    /// `PASS add ...`, `FAIL add ...` or `SKIP: add: reason`, always a single line (line
    /// breaks in the detail, e.g. a JIT log, become ` | `).
    pub fn line(&self) -> String {
        let detail = self
            .detail
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" | ");
        match self.outcome {
            Outcome::Pass => format!("PASS {} {detail}", self.kernel),
            Outcome::Fail => format!("FAIL {} {detail}", self.kernel),
            Outcome::Skip => format!("SKIP: {}: {detail}", self.kernel),
        }
    }
}

/// All results.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Per kernel, in run order.
    pub reports: Vec<CaseReport>,
}

impl Summary {
    fn count(&self, o: Outcome) -> usize {
        self.reports.iter().filter(|r| r.outcome == o).count()
    }

    /// Kernels that passed.
    pub fn passed(&self) -> usize {
        self.count(Outcome::Pass)
    }

    /// Kernels that failed.
    pub fn failed(&self) -> usize {
        self.count(Outcome::Fail)
    }

    /// Kernels skipped.
    pub fn skipped(&self) -> usize {
        self.count(Outcome::Skip)
    }

    /// `N passed, M failed, K skipped`.
    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }

    /// 0 when nothing failed, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.failed() == 0 { 0 } else { 1 }
    }
}

/// Every kernel the check knows, in run order: the benchmark kernels, then the patterns.
pub fn known_kernels() -> Vec<&'static str> {
    KERNELS
        .into_iter()
        .chain(patterns::patterns().iter().map(|p| p.name))
        .collect()
}

/// The known kernels (benchmark kernels and patterns) that have a `K.ptx` in `dir`, in run
/// order.
pub fn present_kernels(dir: &Path) -> Vec<&'static str> {
    known_kernels()
        .into_iter()
        .filter(|k| dir.join(format!("{k}.ptx")).is_file())
        .collect()
}

/// Number of `.param` declarations of `.entry NAME(...)` in PTX text, or `None` when the entry
/// is not found.
pub fn ptx_param_count(ptx: &str, entry: &str) -> Option<usize> {
    let mut rest = ptx;
    while let Some(pos) = rest.find(".entry") {
        let after = rest[pos + ".entry".len()..].trim_start();
        rest = &rest[pos + ".entry".len()..];
        let Some(tail) = after.strip_prefix(entry) else {
            continue;
        };
        let tail = tail.trim_start();
        if !tail.starts_with('(') {
            continue; // a longer name with this prefix
        }
        let close = tail.find(')')?;
        return Some(tail[..close].matches(".param").count());
    }
    None
}

/// One benchmark kernel's parameters: name and type, in order (from `shared/kernels/K.ttir`).
fn expected_params(kernel: &str) -> Vec<(&'static str, ParamType)> {
    let f32p = || ParamType::Ptr(Some(ElemType::F32));
    let f16p = || ParamType::Ptr(Some(ElemType::F16));
    match kernel {
        "add" => vec![
            ("x_ptr", f32p()),
            ("y_ptr", f32p()),
            ("out_ptr", f32p()),
            ("n", ParamType::I32),
        ],
        "softmax" => vec![
            ("out_ptr", f32p()),
            ("in_ptr", f32p()),
            ("in_stride", ParamType::I32),
            ("out_stride", ParamType::I32),
            ("n_cols", ParamType::I32),
        ],
        "rmsnorm" => vec![
            ("X", f32p()),
            ("Y", f32p()),
            ("W", f32p()),
            ("stride", ParamType::I32),
            ("N", ParamType::I32),
            ("eps", ParamType::F32),
        ],
        "matmul" => vec![
            ("a_ptr", f16p()),
            ("b_ptr", f16p()),
            ("c_ptr", f16p()),
            ("M", ParamType::I32),
            ("N", ParamType::I32),
            ("K", ParamType::I32),
            ("sam", ParamType::I32),
            ("sbk", ParamType::I32),
            ("scm", ParamType::I32),
        ],
        _ => Vec::new(),
    }
}

struct Ctx<'a> {
    dev: &'a Device,
    stream: Stream,
    opts: &'a SuiteOptions,
    rng: Rng,
    flush: Option<L2Flush>,
}

/// A loaded benchmark kernel and the number of trailing null parameters it needs.
struct Loaded {
    kernel: Kernel,
    extra: usize,
}

impl Loaded {
    fn args<'b>(&self, mut args: Vec<KernelArg<'b>>) -> Vec<KernelArg<'b>> {
        args.extend(std::iter::repeat_n(KernelArg::Ptr(0), self.extra));
        args
    }

    fn describe(&self) -> String {
        let a = self.kernel.attributes();
        let md = self.kernel.metadata();
        let mut s = format!(
            "warps={} shared={} regs={} spill={}B",
            md.num_warps, md.shared, a.num_regs, a.local_bytes
        );
        if self.extra > 0 {
            s.push_str(&format!(" (+{} trailing null params)", self.extra));
        }
        s
    }
}

type CaseResult = Result<String, String>;

fn err(e: RuntimeError) -> String {
    e.to_string()
}

fn load(ctx: &Ctx, kernel: &str) -> Result<Loaded, String> {
    let dir = &ctx.opts.dir;
    let ptx_path = dir.join(format!("{kernel}.ptx"));
    let ptx =
        std::fs::read_to_string(&ptx_path).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let mut md = KernelMetadata::load(dir, kernel).map_err(err)?;
    let expected = expected_params(kernel);
    let declared = ptx_param_count(&ptx, &md.name).ok_or_else(|| {
        format!(
            "{}: no `.entry {}(` (the entry name from {kernel}.json)",
            ptx_path.display(),
            md.name
        )
    })?;
    if declared < expected.len() {
        let names: Vec<String> = expected.iter().map(|(n, t)| format!("{n}: {t}")).collect();
        return Err(format!(
            "PTX entry `{}` declares {declared} parameters; the benchmark passes {} ({})",
            md.name,
            expected.len(),
            names.join(", ")
        ));
    }
    let extra = declared - expected.len();
    if extra == 0 && md.signature.is_empty() {
        // No recorded signature: check the launch against the benchmark's own.
        md.signature = expected.iter().map(|(_, t)| t.clone()).collect();
        md.arg_names = expected.iter().map(|(n, _)| n.to_string()).collect();
    }
    let kernel = Kernel::from_ptx(ctx.dev, &ptx, md).map_err(err)?;
    Ok(Loaded { kernel, extra })
}

fn check_cmp(cmp: Comparison) -> Result<Comparison, String> {
    if cmp.passed() {
        Ok(cmp)
    } else {
        Err(format!("wrong result: {cmp}"))
    }
}

/// Times the launch (L2 flushed between runs) and formats `median ms` plus a rate.
fn bench(
    ctx: &Ctx,
    l: &Loaded,
    grid: (u32, u32, u32),
    args: &[KernelArg],
    rate: impl Fn(f64) -> String,
) -> Result<String, String> {
    let times = ctx
        .stream
        .time_launches(
            |s| l.kernel.launch(s, grid, args),
            ctx.opts.warmup,
            ctx.opts.reps,
            ctx.flush.as_ref(),
        )
        .map_err(err)?;
    let med = median(&times).unwrap_or(f32::NAN) as f64;
    let min = times.iter().copied().fold(f32::INFINITY, f32::min);
    Ok(format!(
        " | median {med:.4} ms (min {min:.4}, {} runs) {}",
        times.len(),
        rate(med)
    ))
}

fn gbps(bytes: f64) -> impl Fn(f64) -> String {
    move |ms| format!("{:.0} GB/s", bytes / ms / 1e6)
}

fn grid_1d(n: usize) -> Result<(u32, u32, u32), String> {
    u32::try_from(n)
        .map(|x| (x, 1, 1))
        .map_err(|_| format!("grid of {n} blocks is too large"))
}

fn case_add(ctx: &mut Ctx) -> CaseResult {
    let l = load(ctx, "add")?;
    let n: usize = 1 << 26;
    let x = ctx.rng.normal_f32(n);
    let y = ctx.rng.normal_f32(n);
    let dx = ctx.dev.upload(&x).map_err(err)?;
    let dy = ctx.dev.upload(&y).map_err(err)?;
    let dout = ctx.dev.alloc_elems::<f32>(n).map_err(err)?;
    let args = l.args(vec![
        KernelArg::Buffer(&dx),
        KernelArg::Buffer(&dy),
        KernelArg::Buffer(&dout),
        KernelArg::I32(n as i32),
    ]);
    let grid = grid_1d(n.div_ceil(1024))?;
    dout.poison().map_err(err)?;
    l.kernel.launch(&ctx.stream, grid, &args).map_err(err)?;
    let got = dout.download::<f32>().map_err(err)?;
    let cmp = check_cmp(reference::compare(
        &got,
        &reference::add(&x, &y),
        Tolerance::EXACT,
    ))?;
    let mut line = format!("n={n} grid={grid:?} {} {cmp}", l.describe());
    if ctx.opts.bench {
        line += &bench(ctx, &l, grid, &args, gbps((3 * n * 4) as f64))?;
    }
    Ok(line)
}

const ROWS: usize = 8192;
const COLS: usize = 4096;
/// Per-element tolerance for softmax and rmsnorm against the f64 references.
const ROW_TOL: Tolerance = Tolerance::new(1e-6, 1e-5);

fn case_softmax(ctx: &mut Ctx) -> CaseResult {
    let l = load(ctx, "softmax")?;
    let x = ctx.rng.normal_f32(ROWS * COLS);
    let dx = ctx.dev.upload(&x).map_err(err)?;
    let dout = ctx.dev.alloc_elems::<f32>(ROWS * COLS).map_err(err)?;
    let args = l.args(vec![
        KernelArg::Buffer(&dout),
        KernelArg::Buffer(&dx),
        KernelArg::I32(COLS as i32),
        KernelArg::I32(COLS as i32),
        KernelArg::I32(COLS as i32),
    ]);
    let grid = grid_1d(ROWS)?;
    dout.poison().map_err(err)?;
    l.kernel.launch(&ctx.stream, grid, &args).map_err(err)?;
    let got = dout.download::<f32>().map_err(err)?;
    let want = reference::softmax_rows(&x, ROWS, COLS);
    let cmp = check_cmp(reference::compare(&got, &want, ROW_TOL))?;
    let mut line = format!("{ROWS}x{COLS} grid={grid:?} {} {cmp}", l.describe());
    if ctx.opts.bench {
        line += &bench(ctx, &l, grid, &args, gbps((2 * ROWS * COLS * 4) as f64))?;
    }
    Ok(line)
}

fn case_rmsnorm(ctx: &mut Ctx) -> CaseResult {
    let l = load(ctx, "rmsnorm")?;
    let eps = 1e-6f32;
    let x = ctx.rng.normal_f32(ROWS * COLS);
    let w = ctx.rng.normal_f32(COLS);
    let dx = ctx.dev.upload(&x).map_err(err)?;
    let dw = ctx.dev.upload(&w).map_err(err)?;
    let dy = ctx.dev.alloc_elems::<f32>(ROWS * COLS).map_err(err)?;
    let args = l.args(vec![
        KernelArg::Buffer(&dx),
        KernelArg::Buffer(&dy),
        KernelArg::Buffer(&dw),
        KernelArg::I32(COLS as i32),
        KernelArg::I32(COLS as i32),
        KernelArg::F32(eps),
    ]);
    let grid = grid_1d(ROWS)?;
    dy.poison().map_err(err)?;
    l.kernel.launch(&ctx.stream, grid, &args).map_err(err)?;
    let got = dy.download::<f32>().map_err(err)?;
    let want = reference::rmsnorm_rows(&x, &w, ROWS, COLS, eps);
    let cmp = check_cmp(reference::compare(&got, &want, ROW_TOL))?;
    let mut line = format!("{ROWS}x{COLS} grid={grid:?} {} {cmp}", l.describe());
    if ctx.opts.bench {
        line += &bench(ctx, &l, grid, &args, gbps((2 * ROWS * COLS * 4) as f64))?;
    }
    Ok(line)
}

/// Matmul tile sizes compiled into the benchmark kernel (BLOCK_M x BLOCK_N; BLOCK_K 64).
const BM: usize = 128;
const BN: usize = 256;

fn case_matmul(ctx: &mut Ctx) -> CaseResult {
    let s = ctx.opts.matmul_size;
    if s == 0 || !s.is_multiple_of(16) || s > 16384 {
        return Err(format!(
            "matmul size {s} must be a positive multiple of 16 up to 16384"
        ));
    }
    let l = load(ctx, "matmul")?;
    let (m, n, k) = (s, s, s);
    let a = ctx.rng.normal_f16(m * k);
    let b = ctx.rng.normal_f16(k * n);
    let da = ctx.dev.upload(&a).map_err(err)?;
    let db = ctx.dev.upload(&b).map_err(err)?;
    let dc = ctx.dev.alloc_elems::<u16>(m * n).map_err(err)?;
    let args = l.args(vec![
        KernelArg::Buffer(&da),
        KernelArg::Buffer(&db),
        KernelArg::Buffer(&dc),
        KernelArg::I32(m as i32),
        KernelArg::I32(n as i32),
        KernelArg::I32(k as i32),
        KernelArg::I32(k as i32), // sam: row stride of A
        KernelArg::I32(n as i32), // sbk: row stride of B
        KernelArg::I32(n as i32), // scm: row stride of C
    ]);
    let grid = grid_1d(m.div_ceil(BM) * n.div_ceil(BN))?;
    dc.poison().map_err(err)?;
    l.kernel.launch(&ctx.stream, grid, &args).map_err(err)?;
    let got: Vec<f32> = dc
        .download::<u16>()
        .map_err(err)?
        .into_iter()
        .map(reference::f16_to_f32)
        .collect();
    let want = reference::matmul_f16_acc(&a, &b, m, n, k);
    // f16 output: rounding alone is up to 2^-11 relative; accumulation order differs too.
    let cmp = check_cmp(reference::compare(&got, &want, Tolerance::new(1e-2, 1e-2)))?;
    let mut line = format!("{m}x{n}x{k} f16 grid={grid:?} {} {cmp}", l.describe());
    if ctx.opts.bench {
        let flops = 2.0 * (m * n * k) as f64;
        line += &bench(ctx, &l, grid, &args, move |ms| {
            format!("{:.0} TFLOP/s", flops / ms / 1e9)
        })?;
    }
    Ok(line)
}

/// The kernels [`run_suite`] checks for `opts`: those present, narrowed by `--only`.
pub fn selected_kernels(opts: &SuiteOptions) -> Result<Vec<&'static str>, String> {
    if !opts.dir.is_dir() {
        return Err(format!("{}: not a directory", opts.dir.display()));
    }
    let mut kernels = present_kernels(&opts.dir);
    if let Some(only) = &opts.only {
        let known = known_kernels();
        for o in only {
            if !known.contains(&o.as_str()) {
                return Err(format!(
                    "unknown kernel `{o}` (known: {})",
                    known.join(", ")
                ));
            }
        }
        kernels.retain(|k| only.iter().any(|o| o == k));
    }
    Ok(kernels)
}

/// Runs the check. `emit` receives each output line as soon as it is known (a header, then one
/// line per kernel); the caller prints [`Summary::line`] at the end. Errors are for unusable
/// options: a missing directory, or one with none of the kernels.
pub fn run_suite(opts: &SuiteOptions, emit: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    let kernels = selected_kernels(opts)?;
    if kernels.is_empty() {
        return Err(format!(
            "{}: none of {} or the {} patterns (`--list`) is present (as K.ptx with K.json)",
            opts.dir.display(),
            KERNELS.map(|k| format!("{k}.ptx")).join(", "),
            patterns::patterns().len()
        ));
    }
    let mut summary = Summary::default();
    let report = |summary: &mut Summary,
                  emit: &mut dyn FnMut(&str),
                  kernel: &str,
                  outcome,
                  detail: String| {
        let r = CaseReport {
            kernel: kernel.to_string(),
            outcome,
            detail,
        };
        emit(&r.line());
        summary.reports.push(r);
    };

    let dev = match Device::new(opts.device) {
        Ok(d) => d,
        Err(e) => {
            let outcome = if e.is_unavailable() {
                Outcome::Skip
            } else {
                Outcome::Fail
            };
            for k in kernels {
                report(&mut summary, emit, k, outcome, e.to_string());
            }
            return Ok(summary);
        }
    };
    let seed = opts.seed.unwrap_or_else(Rng::seed_from_time);
    emit(&format!(
        "device {}: {} ({}, {} SMs, driver {}.{}), seed {seed}{}",
        dev.ordinal(),
        dev.name(),
        dev.arch(),
        dev.sm_count(),
        dev.driver_version() / 1000,
        dev.driver_version() % 1000 / 10,
        if opts.bench {
            format!(
                ", timing: median of {} runs after {} warmup, L2 flushed",
                opts.reps, opts.warmup
            )
        } else {
            String::new()
        }
    ));
    let setup = (|| -> Result<(Stream, Option<L2Flush>), RuntimeError> {
        let stream = dev.create_stream()?;
        let flush = if opts.bench {
            Some(L2Flush::new(&dev)?)
        } else {
            None
        };
        Ok((stream, flush))
    })();
    let (stream, flush) = match setup {
        Ok(v) => v,
        Err(e) => {
            for k in kernels {
                report(&mut summary, emit, k, Outcome::Fail, e.to_string());
            }
            return Ok(summary);
        }
    };
    let mut ctx = Ctx {
        dev: &dev,
        stream,
        opts,
        rng: Rng::new(seed),
        flush,
    };
    for k in kernels {
        let run = |ctx: &mut Ctx| match k {
            "add" => case_add(ctx),
            "softmax" => case_softmax(ctx),
            "rmsnorm" => case_rmsnorm(ctx),
            "matmul" => case_matmul(ctx),
            _ => match patterns::find(k) {
                Some(p) => patterns::run_pattern(ctx.dev, &ctx.stream, &opts.dir, p, seed),
                None => Err(format!("no case for {k}")),
            },
        };
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| run(&mut ctx)))
            .unwrap_or_else(|_| Err("panicked (see stderr)".into()));
        match result {
            Ok(detail) => report(&mut summary, emit, k, Outcome::Pass, detail),
            Err(detail) => {
                report(&mut summary, emit, k, Outcome::Fail, detail);
                // A kernel fault poisons the context: later launches would fail too, and the
                // synchronize below surfaces that in their reports rather than hiding it.
                let _ = dev.synchronize();
            }
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRITON_ADD_PTX_HEAD: &str = "//\n.version 8.7\n.target sm_90a\n.address_size 64\n\n\
        .visible .entry add_kernel_2(\n\t.param .u64 add_kernel_2_param_0\n)\n{ ret; }\n\
        .visible .entry add_kernel(\n\t.param .u64 .ptr .global .align 1 add_kernel_param_0,\n\
        \t.param .u64 .ptr .global .align 1 add_kernel_param_1,\n\
        \t.param .u64 .ptr .global .align 1 add_kernel_param_2,\n\
        \t.param .u32 add_kernel_param_3,\n\
        \t.param .u64 .ptr .global .align 1 add_kernel_param_4,\n\
        \t.param .u64 .ptr .global .align 1 add_kernel_param_5\n)\n.reqntid 128\n{\n\tret;\n}\n";

    #[test]
    fn counts_ptx_entry_params() {
        assert_eq!(ptx_param_count(TRITON_ADD_PTX_HEAD, "add_kernel"), Some(6));
        assert_eq!(
            ptx_param_count(TRITON_ADD_PTX_HEAD, "add_kernel_2"),
            Some(1)
        );
        assert_eq!(ptx_param_count(TRITON_ADD_PTX_HEAD, "add"), None);
        assert_eq!(ptx_param_count(".entry k()\n{}", "k"), Some(0));
    }

    #[test]
    fn expected_params_match_the_benchmark_ttir() {
        // Names and order as in shared/kernels/K.ttir.
        let names = |k| {
            expected_params(k)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("add"), ["x_ptr", "y_ptr", "out_ptr", "n"]);
        assert_eq!(
            names("softmax"),
            ["out_ptr", "in_ptr", "in_stride", "out_stride", "n_cols"]
        );
        assert_eq!(names("rmsnorm"), ["X", "Y", "W", "stride", "N", "eps"]);
        assert_eq!(
            names("matmul"),
            [
                "a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "sam", "sbk", "scm"
            ]
        );
        assert_eq!(expected_params("rmsnorm")[5].1, ParamType::F32);
    }

    #[test]
    fn summary_lines_and_exit_codes() {
        let mut s = Summary::default();
        assert_eq!(s.line(), "0 passed, 0 failed, 0 skipped");
        s.reports.push(CaseReport {
            kernel: "add".into(),
            outcome: Outcome::Skip,
            detail: "no CUDA driver: x".into(),
        });
        assert_eq!(s.reports[0].line(), "SKIP: add: no CUDA driver: x");
        assert_eq!(s.exit_code(), 0);
        s.reports.push(CaseReport {
            kernel: "matmul".into(),
            outcome: Outcome::Fail,
            detail: "wrong".into(),
        });
        assert_eq!(s.line(), "0 passed, 1 failed, 1 skipped");
        assert_eq!(s.exit_code(), 1);
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tritium-suite-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn rejects_missing_or_empty_dirs() {
        let d = temp_dir("empty");
        let mut lines = Vec::new();
        let e = run_suite(&SuiteOptions::new(&d), &mut |l| lines.push(l.to_string())).unwrap_err();
        assert!(e.contains("none of"), "{e}");
        let e = run_suite(&SuiteOptions::new(d.join("nope")), &mut |_| {}).unwrap_err();
        assert!(e.contains("not a directory"), "{e}");
        let mut o = SuiteOptions::new(&d);
        o.only = Some(vec!["conv".into()]);
        assert!(
            run_suite(&o, &mut |_| {})
                .unwrap_err()
                .contains("unknown kernel")
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Without a driver (this machine) every present kernel is skipped with the reason.
    #[test]
    fn skips_without_a_driver() {
        if crate::driver_version().is_ok() {
            return; // a GPU machine: the fake PTX below would be a genuine failure
        }
        let d = temp_dir("skip");
        for k in ["add", "matmul"] {
            std::fs::write(d.join(format!("{k}.ptx")), "// fake").unwrap();
            std::fs::write(d.join(format!("{k}.json")), r#"{"name":"x","num_warps":4}"#).unwrap();
        }
        let mut lines = Vec::new();
        let s = run_suite(&SuiteOptions::new(&d), &mut |l| lines.push(l.to_string())).unwrap();
        assert_eq!(s.line(), "0 passed, 0 failed, 2 skipped");
        assert_eq!(s.exit_code(), 0);
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with("SKIP: add: no CUDA driver"),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("SKIP: matmul: "), "{lines:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
