//! Every TTIR kernel of the project through the interpreter before and after each TTIR pass, the
//! whole TTIR pipeline and each TTGIR pass (see `tritium_fuzz::differential`).

use tritium_fuzz::differential::{Verdict, check};

#[test]
fn passes_keep_every_kernels_results() {
    let kernels = tritium_fuzz::corpus::all();
    let mut same = 0;
    let mut runs = 0;
    let mut changed = 0;
    let mut ttgir = 0;
    let mut skipped = Vec::new();
    let mut differs = Vec::new();
    for kernel in &kernels {
        let started = std::time::Instant::now();
        match check(kernel, 7) {
            Verdict::Same {
                runs: r,
                changed: c,
                ttgir: t,
            } => {
                same += 1;
                runs += r;
                changed += c;
                ttgir += usize::from(t);
            }
            Verdict::Skipped(why) => skipped.push(format!("{}: {why}", kernel.name)),
            Verdict::Differs(what) => differs.push(format!("{}: {what}", kernel.name)),
        }
        let took = started.elapsed().as_secs_f64();
        if took > 2.0 {
            eprintln!("slow: {} took {took:.1} s", kernel.name);
        }
    }
    eprintln!(
        "{} kernels: {same} checked ({ttgir} through the TTGIR passes too; {runs} interpreter runs, {changed} passes that changed the IR), {} skipped, {} differ",
        kernels.len(),
        skipped.len(),
        differs.len()
    );
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    assert!(
        differs.is_empty(),
        "{} kernels differ:\n{}",
        differs.len(),
        differs.join("\n")
    );
    assert!(same >= 40, "only {same} kernels checked");
}

/// The comparison has teeth: a kernel whose addf became a subf differs.
#[test]
fn a_miscompile_is_caught() {
    let source = std::fs::read_to_string(
        tritium_fuzz::corpus::repo_root().join("test/Inputs/kernels/add.ttir"),
    )
    .unwrap();
    let wrong = source.replace("arith.addf", "arith.subf");
    let run = |text: &str| {
        let outcome = tritium_interp::run_source(text, "add.ttir", None, {
            let (context, sink) = tritium_interp::new_context_with_sink();
            let module = tritium_interp::parse(&context, &sink, text, "add.ttir").unwrap();
            let params =
                tritium_interp::kernel_params(module.as_operation().to_raw(), None).unwrap();
            tritium_interp::Launch::new(
                [2, 1, 1],
                tritium_fuzz::differential::make_args(&params, 64, 1).unwrap(),
            )
        });
        outcome.unwrap()
    };
    let (context, sink) = tritium_interp::new_context_with_sink();
    let module = tritium_interp::parse(&context, &sink, &source, "add.ttir").unwrap();
    let params = tritium_interp::kernel_params(module.as_operation().to_raw(), None).unwrap();
    let difference = tritium_fuzz::differential::compare(&params, &run(&source), &run(&wrong));
    assert!(
        difference
            .is_some_and(|d| d.contains("64 elements differ") || d.contains("elements differ"))
    );
}

/// Persistent kernels (a `tt.flatten` tile loop around a K loop) compute the same after the
/// whole pipeline — fusion with the inner length speculated, then cp.async or TMA pipelining
/// of the fused loop with its tile prologue cloned ahead and the wgmma kept in flight — as
/// before, in the interpreter (copies complete at once, so a copy into a ring slot still to be
/// read shows as a wrong result): several tiles per program, ragged edges, and K = 0 (the
/// speculated empty inner loop). The corpus check above runs these kernels on one tile only.
#[test]
fn fused_persistent_loops_keep_their_results() {
    use tritium_dialects::pass::pipeline_text;
    use tritium_interp::{Arg, Buffer, Launch, Limits};
    use tritium_passes::pipelines::{TtgirOptions, ttgir_passes, ttir_passes};

    let root = tritium_fuzz::corpus::repo_root();
    let f16_buffer = |name: &str, n: usize, seed: u64| {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let bytes = (0..n)
            .flat_map(|_| {
                let v: f64 = rng.gen_range(-1.0..1.0);
                let bits = tritium_interp::value::float_to_bits(
                    tritium_interp::value::Num::F16,
                    tritium_interp::value::round(tritium_interp::value::Num::F16, v),
                );
                (bits as u16).to_le_bytes()
            })
            .collect();
        Buffer {
            name: name.to_string(),
            bytes,
        }
    };
    let desc = |name: &str, rows: usize, cols: usize, seed: u64| {
        vec![
            Arg::Desc {
                buffer: f16_buffer(name, rows * cols, seed),
                shape: vec![rows as i64, cols as i64],
                strides: vec![cols as i64, 1],
            },
            Arg::Int(rows as i64),
            Arg::Int(cols as i64),
            Arg::Int(cols as i64),
            Arg::Int(1),
        ]
    };
    // (file, warps, programs, arguments) per case.
    let mut cases: Vec<(&str, u32, u32, Vec<Arg>)> = Vec::new();
    for (m, n, k) in [(200usize, 144usize, 96usize), (130, 80, 0)] {
        let (sa, sb, sc) = (k + 16, n + 16, n + 16);
        cases.push((
            "test/Inputs/gpu/persistent_matmul.ttir",
            4,
            3,
            vec![
                Arg::Buffer(f16_buffer("a", m * sa, 1)),
                Arg::Buffer(f16_buffer("b", k.max(1) * sb, 2)),
                Arg::Buffer(f16_buffer("c", m * sc, 3)),
                Arg::Int(m as i64),
                Arg::Int(n as i64),
                Arg::Int(k as i64),
                Arg::Int(sa as i64),
                Arg::Int(sb as i64),
                Arg::Int(sc as i64),
            ],
        ));
        let mut args = desc("a", m, k.max(16), 4);
        args.extend(desc("b", k.max(16), n, 5));
        args.extend(desc("c", m, n, 6));
        args.extend([m as i64, n as i64, k as i64].map(Arg::Int));
        cases.push((
            "test/Inputs/kernels/dot/persistent_descriptor.ttir",
            4,
            3,
            args,
        ));
    }
    for (file, warps, programs, args) in cases {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        let (context, sink) = tritium_interp::new_context_with_sink();
        let mut module = tritium_interp::parse(&context, &sink, &source, file).unwrap();
        let op = module.as_operation().to_raw();
        let params = tritium_interp::kernel_params(op, None).unwrap();
        let launch = Launch {
            grid: [programs, 1, 1],
            args,
            limits: Limits {
                max_steps: 50_000_000,
                max_elements: 1 << 34,
                ..Limits::default()
            },
        };
        let before = tritium_interp::run_module(op, None, launch.clone()).unwrap();
        let ttgir = ttgir_passes(&TtgirOptions {
            num_warps: warps,
            num_stages: 3,
            capability: 90,
            persistent_programs: false,
            descriptor_loads: false,
        })
        .unwrap();
        for passes in [pipeline_text(&ttir_passes()), pipeline_text(&ttgir)] {
            tritium_fuzz::differential::run_passes(&context, &sink, &mut module, &passes)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        let text = module.as_operation().to_string();
        assert!(
            text.contains("pendings = 1") && text.contains("scf.if"),
            "{file}: the fused loop was not pipelined with its wgmma in flight"
        );
        let after =
            tritium_interp::run_module(module.as_operation().to_raw(), None, launch).unwrap();
        let difference = tritium_fuzz::differential::compare(&params, &before, &after);
        assert!(difference.is_none(), "{file}: {difference:?}");
    }
}

/// Every TTIR kernel of the project compiled (4 warps, sm_90a) and its LLVM IR run on the CPU
/// (`tritium_fuzz::emulate`) computes what the interpreter computes on the same inputs. Kernels
/// the emulator cannot run (tensor-core and TMA instructions, ...) are listed, not failed.
#[test]
fn lowered_kernels_compute_what_the_interpreter_computes() {
    if !tritium_fuzz::emulate::available() {
        eprintln!("skipped: python3 or clang-22 missing (scripts/bootstrap installs them)");
        return;
    }
    // TRITIUM_EMULATE_ONLY=text: only the kernels whose path contains it.
    let only = std::env::var("TRITIUM_EMULATE_ONLY").unwrap_or_default();
    let kernels: Vec<_> = tritium_fuzz::corpus::ttir_files()
        .into_iter()
        .filter(|k| k.name.contains(&only))
        .collect();
    let mut same = 0;
    let mut skipped = Vec::new();
    let mut differs = Vec::new();
    // sm_90a for every kernel; sm_80 too for those with a dot (mma.sync, ldmatrix and cp.async
    // are emulated; wgmma and TMA are not).
    let mut runs = 0;
    for kernel in &kernels {
        let mut targets = vec!["sm_90a"];
        if kernel.source.contains("tt.dot") {
            targets.push("sm_80");
        }
        // The warps a corpus case runs with (its metadata beside it), else 4.
        let warps = std::fs::read_to_string(
            tritium_fuzz::corpus::repo_root()
                .join(&kernel.name)
                .with_extension("json"),
        )
        .ok()
        .and_then(|text| {
            let start = text.find("\"num_warps\":")? + "\"num_warps\":".len();
            let digits: String = text[start..]
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<u32>().ok()
        })
        .unwrap_or(4);
        for arch in targets {
            runs += 1;
            match tritium_fuzz::emulate::check_lowered(kernel, 11, warps, arch) {
                Verdict::Same { .. } => same += 1,
                Verdict::Skipped(why) => skipped.push(format!("{} ({arch}): {why}", kernel.name)),
                Verdict::Differs(what) => differs.push(format!("{} ({arch}): {what}", kernel.name)),
            }
        }
    }
    eprintln!(
        "{} kernels, {runs} compilations: {same} emulated and equal, {} skipped, {} differ",
        kernels.len(),
        skipped.len(),
        differs.len()
    );
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    assert!(
        differs.is_empty(),
        "{} kernels differ:\n{}",
        differs.len(),
        differs.join("\n")
    );
}

/// Every TTIR dot kernel of the project (but those reading `num_programs`) through `check`:
/// the names of those emulated equal and of those skipped (with why); fails on any that differs.
fn emulate_dot_kernels(
    check: impl Fn(&tritium_fuzz::corpus::Kernel) -> Verdict,
) -> (Vec<String>, Vec<String>) {
    let mut same = Vec::new();
    let mut skipped = Vec::new();
    let mut differs = Vec::new();
    for kernel in tritium_fuzz::corpus::ttir_files()
        .iter()
        .filter(|k| k.source.contains("tt.dot") && !k.source.contains("num_programs"))
    {
        match check(kernel) {
            Verdict::Same { .. } => same.push(kernel.name.clone()),
            Verdict::Skipped(why) => skipped.push(format!("{}: {why}", kernel.name)),
            Verdict::Differs(what) => differs.push(format!("{}: {what}", kernel.name)),
        }
    }
    assert!(differs.is_empty(), "{}", differs.join("\n"));
    (same, skipped)
}

/// Dot kernels compiled with persistent programs compute what the interpreter computes when
/// half as many programs are launched as the grid asks for (each then runs two virtual
/// programs, or one): sm_80, whose mma.sync and cp.async the emulator runs.
#[test]
fn persistent_programs_keep_the_results() {
    if !tritium_fuzz::emulate::available() {
        eprintln!("skipped: python3 or clang-22 missing (scripts/bootstrap installs them)");
        return;
    }
    let (same, skipped) =
        emulate_dot_kernels(|k| tritium_fuzz::emulate::check_lowered_persistent(k, 5, 4, "sm_80"));
    eprintln!("emulated persistent and equal: {same:?}\nskipped: {skipped:#?}");
    // Tutorial 03's kernel as Triton emits its TTIR, at least, is rewritten and checked.
    assert!(
        same.iter().any(|name| name.ends_with("mm_f16.ttir")),
        "no persistent matmul was emulated: {same:?} / {skipped:?}"
    );
}

/// Dot kernels whose pointer tiles `-tritium-descriptor-loads` reads through TMA descriptors
/// (parameters the launcher encodes, `-tritium-host-descriptors`: the emulated launch passes
/// them as the runtime would) compute what the interpreter computes (sm_90a: TMA copies,
/// mbarriers and wgmma emulated), with persistent programs (half the programs launched) and one
/// program a tile, on inputs whose sizes are not multiples of the tiles (the rows and columns
/// that tutorial 03's `% M` and `% N` wrap read zeros instead and are never stored).
#[test]
fn descriptor_loads_keep_the_results() {
    if !tritium_fuzz::emulate::available() {
        eprintln!("skipped: python3 or clang-22 missing (scripts/bootstrap installs them)");
        return;
    }
    for persistent in [true, false] {
        let (same, skipped) = emulate_dot_kernels(|k| {
            tritium_fuzz::emulate::check_lowered_descriptors(k, 7, 4, "sm_90a", persistent)
        });
        eprintln!(
            "emulated with descriptor loads (persistent: {persistent}) and equal: {same:#?}\nskipped: {skipped:#?}"
        );
        // Tutorial 03's kernel as Triton emits its TTIR, tutorial 11's hand-written
        // persistent kernel (tile loop fused or not) and the batched matmul (3-D descriptors
        // of a leading batch dimension), at least, are rewritten and checked.
        for wanted in [
            "mm_f16.ttir",
            "t11_persistent.ttir",
            "t11_persistent_fused.ttir",
            "batched_matmul.ttir",
        ] {
            assert!(
                same.iter().any(|name| name.ends_with(wanted)),
                "{wanted} was not emulated (persistent: {persistent}): {same:?} / {skipped:?}"
            );
        }
    }
}

/// The emulation check is not vacuous: the add kernel passes it, and its lowered IR with the add
/// turned into a subtraction does not.
#[test]
fn a_wrong_lowering_is_caught_on_the_cpu() {
    if !tritium_fuzz::emulate::available() {
        eprintln!("skipped: python3 or clang-22 missing (scripts/bootstrap installs them)");
        return;
    }
    let path = tritium_fuzz::corpus::repo_root().join("test/Inputs/kernels/add.ttir");
    let kernel = tritium_fuzz::corpus::Kernel {
        name: "test/Inputs/kernels/add.ttir".into(),
        source: std::fs::read_to_string(&path).expect("add.ttir"),
    };
    assert!(matches!(
        tritium_fuzz::emulate::check_lowered(&kernel, 3, 4, "sm_90a"),
        Verdict::Same { .. }
    ));
    let subtract = |ir: String| ir.replacen("fadd", "fsub", 1);
    assert!(
        matches!(
            tritium_fuzz::emulate::check_lowered_with(&kernel, 3, 4, "sm_90a", subtract),
            Verdict::Differs(_)
        ),
        "an add turned into a subtraction went unnoticed"
    );
}
