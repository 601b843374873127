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
