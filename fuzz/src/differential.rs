//! Differential testing of the passes: a kernel runs in the interpreter on random inputs, then
//! again after each pass of the `-tritium-ttir` pipeline (applied one after the other, as the
//! pipeline does), after the whole pipeline at once, and after each pass of the TTGIR stage (4
//! warps, sm_90; the interpreter ignores layouts and treats shared-memory descriptors as the
//! tensors they hold); every buffer must match the previous run's within the rounding of its
//! element type.

use crate::corpus::Kernel;
use rand::{Rng, SeedableRng, rngs::StdRng};
use tritium_dialects::melior::{
    Context,
    ir::{Module, operation::OperationLike},
    pass::PassManager,
    utility::parse_pass_pipeline,
};
use tritium_dialects::pass::pipeline_text;
use tritium_interp::value::{Data, Elem, Num, Tensor, bits_to_float, float_to_bits, round, wrap};
use tritium_interp::{Arg, Buffer, Launch, Limits, Outcome, ParamKind};

/// Elements of every buffer a kernel gets: enough for every kernel of the corpus at the
/// scalar sizes tried below, small enough to copy for each run.
pub const BUFFER_ELEMENTS: usize = 1 << 16;

/// Integer scalars (sizes, strides, counts) and grids tried in order until the original kernel
/// runs without a fault: the first that works is the configuration every pass is checked with.
const CONFIGS: [(i64, [u32; 3]); 3] = [(64, [2, 1, 1]), (16, [2, 2, 1]), (1, [1, 1, 1])];

/// Ops one run may execute (every program together).
const MAX_STEPS: u64 = 2_000_000;

/// Elements one run may compute (every program together).
const MAX_ELEMENTS: u64 = 1 << 30;

/// What checking one kernel found.
#[derive(Debug)]
pub enum Verdict {
    /// Every pass and the pipeline kept the results; `runs` interpreter runs compared, `changed`
    /// passes changed the IR; `ttgir`: whether the TTGIR passes were checked too (the kernel may
    /// be one the TTGIR stage rejects with a diagnostic).
    Same {
        runs: usize,
        changed: usize,
        ttgir: bool,
    },
    /// Not checked, and why (not a whole TTIR kernel, or no configuration runs cleanly).
    Skipped(String),
    /// A pass changed the results (or failed, or broke the IR): what and where.
    Differs(String),
}

/// The passes checked one by one: the TTIR stage's, in order.
pub fn pass_names() -> Vec<String> {
    tritium_passes::pipelines::ttir_passes()
        .iter()
        .map(|p| pipeline_text(std::slice::from_ref(p)))
        .collect()
}

/// The TTGIR stage's passes for `num_warps` on compute capability `capability`.
pub fn ttgir_pass_names(num_warps: u32, capability: u32) -> Vec<String> {
    let options = tritium_passes::pipelines::TtgirOptions {
        num_warps,
        num_stages: 3,
        capability,
        persistent_programs: false,
        descriptor_loads: false,
    };
    tritium_passes::pipelines::ttgir_passes(&options)
        .unwrap_or_default()
        .iter()
        .map(|p| pipeline_text(std::slice::from_ref(p)))
        .collect()
}

/// Runs `passes` (pipeline text) on `module`; `Err` carries the diagnostics.
pub fn run_passes(
    context: &Context,
    sink: &std::cell::RefCell<Vec<String>>,
    module: &mut Module,
    passes: &str,
) -> Result<(), String> {
    tritium_lowering::pass_registry::register_all();
    let manager = PassManager::new(context);
    manager.enable_verifier(false);
    let pipeline = format!("builtin.module({passes})");
    parse_pass_pipeline(manager.as_operation_pass_manager(), &pipeline)
        .map_err(|e| format!("bad pipeline {pipeline}: {e}"))?;
    let taken = |what: &str| {
        let diagnostics = std::mem::take(&mut *sink.borrow_mut());
        format!("{what}: {}", diagnostics.join("; "))
    };
    if manager.run(module).is_err() {
        return Err(taken(&format!("{passes} failed")));
    }
    if !module.as_operation().verify() {
        return Err(taken(&format!("the IR after {passes} does not verify")));
    }
    sink.borrow_mut().clear();
    Ok(())
}

/// Random arguments for `params`: every pointer a buffer of [`BUFFER_ELEMENTS`] random elements
/// of its type (integers small and non-negative, as they often index), integer scalars `ints`,
/// float scalars in [0.5, 1.5).
pub fn make_args(params: &[tritium_interp::Param], ints: i64, seed: u64) -> Option<Vec<Arg>> {
    let mut rng = StdRng::seed_from_u64(seed);
    params
        .iter()
        .enumerate()
        .map(|(i, p)| match p.kind.clone() {
            ParamKind::Pointer(num) => {
                let size = num.bytes() as usize;
                let mut bytes = Vec::with_capacity(BUFFER_ELEMENTS * size);
                for _ in 0..BUFFER_ELEMENTS {
                    let bits = if num.is_float() {
                        float_to_bits(num, round(num, rng.gen_range(-1.0..1.0)))
                    } else if num == Num::Addr {
                        0
                    } else {
                        rng.gen_range(0..8u64)
                    };
                    bytes.extend_from_slice(&bits.to_le_bytes()[..size]);
                }
                Some(Arg::Buffer(Buffer {
                    name: if p.name.is_empty() {
                        format!("arg{i}")
                    } else {
                        p.name.clone()
                    },
                    bytes,
                }))
            }
            ParamKind::Scalar(num) if num.is_float() => Some(Arg::Float(rng.gen_range(0.5..1.5))),
            ParamKind::Scalar(_) => Some(Arg::Int(ints)),
            ParamKind::Block(num, shape) => {
                // A tensor argument as large as its type says (a mutant's may not fit in memory:
                // 31 x 2^31 elements aborted the worker; tritium-fuzz, seed 43).
                let n = shape
                    .iter()
                    .try_fold(1usize, |n, &d| n.checked_mul(d))
                    .filter(|&n| n <= 1 << 20)?;
                let data = if num.is_float() {
                    Data::F(
                        (0..n)
                            .map(|_| round(num, rng.gen_range(-1.0..1.0)))
                            .collect(),
                    )
                } else {
                    let bits = num.bits();
                    Data::I((0..n).map(|_| wrap(bits, rng.gen_range(0..8))).collect())
                };
                Some(Arg::Block(Tensor::new(Elem::Num(num), shape, data)))
            }
            ParamKind::Desc(num, block) => {
                // A row-major tensor a little larger than the block along every dim (so the
                // block at the origin is in bounds and one at the edge is partly out).
                let shape: Vec<usize> = block.iter().map(|&d| d + 3).collect();
                let n: usize = shape.iter().product();
                if n > 1 << 20 {
                    return None;
                }
                let size = num.bytes() as usize;
                let mut bytes = Vec::with_capacity(n * size);
                for _ in 0..n {
                    let bits = if num.is_float() {
                        float_to_bits(num, round(num, rng.gen_range(-1.0..1.0)))
                    } else {
                        rng.gen_range(0..8u64)
                    };
                    bytes.extend_from_slice(&bits.to_le_bytes()[..size]);
                }
                let mut strides = vec![1i64; shape.len()];
                for d in (0..shape.len().saturating_sub(1)).rev() {
                    strides[d] = strides[d + 1] * shape[d + 1] as i64;
                }
                Some(Arg::Desc {
                    buffer: Buffer {
                        name: if p.name.is_empty() {
                            format!("arg{i}")
                        } else {
                            p.name.clone()
                        },
                        bytes,
                    },
                    shape: shape.iter().map(|&d| d as i64).collect(),
                    strides,
                })
            }
            ParamKind::Other => None,
        })
        .collect()
}

/// Where two runs' buffers differ beyond rounding, if they do. Floats may differ by a few units
/// of the element type's epsilon relative to their magnitude (passes may reassociate or fuse);
/// NaN matches NaN; integers must be equal.
pub fn compare(
    params: &[tritium_interp::Param],
    before: &Outcome,
    after: &Outcome,
) -> Option<String> {
    if before.returned.len() != after.returned.len() {
        return Some("a different number of results".into());
    }
    for (i, (a, b)) in before.returned.iter().zip(&after.returned).enumerate() {
        if let Some(difference) = compare_blocks(a, b) {
            return Some(format!("result {i}: {difference}"));
        }
    }
    for (param, (a, b)) in params.iter().zip(before.args.iter().zip(&after.args)) {
        let (a, b, num) = match (a, b, &param.kind) {
            (Arg::Buffer(a), Arg::Buffer(b), ParamKind::Pointer(num))
            | (Arg::Desc { buffer: a, .. }, Arg::Desc { buffer: b, .. }, ParamKind::Desc(num, _)) => {
                (a, b, num)
            }
            _ => continue,
        };
        let num = *num;
        if a.bytes == b.bytes {
            continue;
        }
        let size = num.bytes() as usize;
        let mut bad = Vec::new();
        let mut count = 0;
        let bits = |c: &[u8]| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        };
        let scale = if num.is_float() {
            scale_of(a.bytes.chunks(size).map(|c| bits_to_float(num, bits(c))))
        } else {
            0.0
        };
        for (i, (x, y)) in a.bytes.chunks(size).zip(b.bytes.chunks(size)).enumerate() {
            if x == y {
                continue;
            }
            let same = num.is_float()
                && close(
                    num,
                    scale,
                    bits_to_float(num, bits(x)),
                    bits_to_float(num, bits(y)),
                );
            if !same {
                count += 1;
                if bad.len() < 3 {
                    let show = |c: &[u8]| {
                        if num.is_float() {
                            format!("{}", bits_to_float(num, bits(c)))
                        } else {
                            format!("{:#x}", bits(c))
                        }
                    };
                    bad.push(format!("[{i}] {} vs {}", show(x), show(y)));
                }
            }
        }
        if count > 0 {
            return Some(format!(
                "`{}`: {count} elements differ: {}",
                a.name,
                bad.join(", ")
            ));
        }
    }
    None
}

/// Whether two floats of `num` agree within rounding: a few epsilons relative to their
/// magnitude or to `scale`, the largest magnitude of their block. The block floor is there
/// because passes may legitimately round intermediates differently (`add(dot(a, b, 0), c)` to
/// `dot(a, b, c)` rounds once instead of twice), and an element that nearly cancels then
/// differs by a rounding of the terms, not of itself.
fn close(num: Num, scale: f64, p: f64, q: f64) -> bool {
    let tolerance = 8.0 * num.epsilon() * p.abs().max(q.abs()).max(scale).max(num.epsilon());
    (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= tolerance
}

/// The largest finite magnitude among `values`.
fn scale_of(values: impl Iterator<Item = f64>) -> f64 {
    values
        .filter(|v| v.is_finite())
        .fold(0.0, |m, v| m.max(v.abs()))
}

fn compare_blocks(a: &Tensor, b: &Tensor) -> Option<String> {
    if a.shape != b.shape || a.elem != b.elem {
        return Some(format!("shape {:?} vs {:?}", a.shape, b.shape));
    }
    let bad: Vec<String> = match (&a.data, &b.data, a.elem) {
        (Data::F(x), Data::F(y), Elem::Num(num)) => {
            let scale = scale_of(x.iter().copied());
            x.iter()
                .zip(y)
                .enumerate()
                .filter(|&(_, (p, q))| !close(num, scale, *p, *q))
                .map(|(i, (p, q))| format!("[{i}] {p} vs {q}"))
                .collect()
        }
        (Data::I(x), Data::I(y), _) => x
            .iter()
            .zip(y)
            .enumerate()
            .filter(|&(_, (p, q))| p != q)
            .map(|(i, (p, q))| format!("[{i}] {p} vs {q}"))
            .collect(),
        _ => vec!["integers vs floats".into()],
    };
    (!bad.is_empty()).then(|| {
        format!(
            "{} elements differ: {}",
            bad.len(),
            bad.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        )
    })
}

/// The launch (and its outcome) of the first configuration the kernel `op` runs cleanly with;
/// `Err` says why there is none.
pub fn first_clean_run(
    op: mlir_sys::MlirOperation,
    params: &[tritium_interp::Param],
    seed: u64,
) -> Result<(Launch, Outcome), String> {
    first_clean_run_among(op, params, seed, &CONFIGS)
}

/// [`first_clean_run`] over the given (integer argument, grid) configurations.
pub fn first_clean_run_among(
    op: mlir_sys::MlirOperation,
    params: &[tritium_interp::Param],
    seed: u64,
    configs: &[(i64, [u32; 3])],
) -> Result<(Launch, Outcome), String> {
    let limits = Limits {
        max_steps: MAX_STEPS,
        max_elements: MAX_ELEMENTS,
        ..Limits::default()
    };
    let mut last_error = String::new();
    for &(ints, grid) in configs {
        let Some(args) = make_args(params, ints, seed) else {
            return Err("a parameter the interpreter cannot be given".into());
        };
        let launch = Launch { grid, args, limits };
        match tritium_interp::run_module(op, None, launch.clone()) {
            Ok(outcome) => return Ok((launch, outcome)),
            Err(e) => last_error = e.to_string(),
        }
    }
    Err(format!("no configuration runs: {last_error}"))
}

/// Checks one kernel; `seed` picks its random inputs.
pub fn check(kernel: &Kernel, seed: u64) -> Verdict {
    let (context, sink) = tritium_interp::new_context_with_sink();
    let mut module = match tritium_interp::parse(&context, &sink, &kernel.source, &kernel.name) {
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
    let (launch, original) = match first_clean_run(op, &params, seed) {
        Ok(found) => found,
        Err(why) => return Verdict::Skipped(why),
    };
    let interpret = |module: &Module, what: &str| {
        tritium_interp::run_module(module.as_operation().to_raw(), None, launch.clone())
            .map_err(|e| format!("after {what} the kernel fails: {e}"))
    };
    let mut runs = 1;
    let mut changed = 0;
    let mut previous = original.clone();
    for pass in pass_names() {
        let text = module.as_operation().to_string();
        if let Err(e) = run_passes(&context, &sink, &mut module, &pass) {
            return Verdict::Differs(e);
        }
        if module.as_operation().to_string() != text {
            changed += 1;
        }
        let outcome = match interpret(&module, &pass) {
            Ok(outcome) => outcome,
            Err(e) => return Verdict::Differs(e),
        };
        runs += 1;
        if let Some(difference) = compare(&params, &previous, &outcome) {
            return Verdict::Differs(format!("{pass} changed the results: {difference}"));
        }
        previous = outcome;
    }
    // The whole pipeline at once, from the original.
    let Ok(mut whole) = tritium_interp::parse(&context, &sink, &kernel.source, &kernel.name) else {
        return Verdict::Differs("the kernel no longer parses".into());
    };
    let pipeline = pipeline_text(&tritium_passes::pipelines::ttir_passes());
    if let Err(e) = run_passes(&context, &sink, &mut whole, &pipeline) {
        return Verdict::Differs(e);
    }
    match interpret(&whole, "the TTIR pipeline") {
        Ok(outcome) => {
            runs += 1;
            if let Some(difference) = compare(&params, &original, &outcome) {
                return Verdict::Differs(format!(
                    "the TTIR pipeline changed the results: {difference}"
                ));
            }
        }
        Err(e) => return Verdict::Differs(e),
    }
    // The TTGIR stage's passes, one after the other, from the TTIR pipeline's output: 4 warps
    // on sm_90 (wgmma with shared-memory operands) for every kernel, and 8 warps on sm_80
    // (mma.sync) for those with a dot.
    let mut ttgir = true;
    let mut targets = vec![(&mut module, 4, 90, previous)];
    if kernel.source.contains("tt.dot") {
        let from_pipeline = match interpret(&whole, "the TTIR pipeline") {
            Ok(outcome) => outcome,
            Err(e) => return Verdict::Differs(e),
        };
        targets.push((&mut whole, 8, 80, from_pipeline));
    }
    for (module, warps, capability, mut previous) in targets {
        for pass in ttgir_pass_names(warps, capability) {
            let text = module.as_operation().to_string();
            match run_passes(&context, &sink, module, &pass) {
                Ok(()) => {}
                Err(e) if e.contains("does not verify") => return Verdict::Differs(e),
                // A rejection with a diagnostic: nothing to compare.
                Err(_) => {
                    ttgir = false;
                    break;
                }
            }
            if module.as_operation().to_string() != text {
                changed += 1;
            }
            let what = format!("{pass} ({warps} warps, sm_{capability})");
            let outcome = match interpret(module, &what) {
                Ok(outcome) => outcome,
                // TTGIR the interpreter does not model (the pipeliner's multi-buffered shared
                // memory and asynchronous copies) ends the check for this kernel.
                Err(e) if e.contains("the interpreter does not support this op") => {
                    ttgir = false;
                    break;
                }
                Err(e) => return Verdict::Differs(e),
            };
            runs += 1;
            if let Some(difference) = compare(&params, &previous, &outcome) {
                return Verdict::Differs(format!("{what} changed the results: {difference}"));
            }
            previous = outcome;
        }
    }
    Verdict::Same {
        runs,
        changed,
        ttgir,
    }
}
