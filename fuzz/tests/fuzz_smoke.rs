//! A bounded fuzzing run in the test suite: a fixed seed and a fixed number of executions (so a
//! failure replays with `tritium-fuzz --seed 11 --executions 400`), no finding allowed.

use std::time::Duration;
use tritium_fuzz::campaign::{self, Config};

#[test]
fn a_bounded_campaign_finds_nothing() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-smoke");
    let _ = std::fs::remove_dir_all(&out);
    let config = Config {
        duration: Duration::from_secs(150),
        max_executions: 400,
        seed: 11,
        out,
        // Debug builds on a loaded CI machine: a hang here is an input taking 30 s.
        timeout: Duration::from_secs(30),
        worker: env!("CARGO_BIN_EXE_tritium-fuzz").into(),
    };
    let summary = campaign::run(&config).expect("the campaign runs");
    eprintln!("{summary:?}");
    assert!(
        summary.executions > 50,
        "only {} executions",
        summary.executions
    );
    assert!(
        summary.compiled > 0,
        "no mutant compiled: the mutations are too coarse"
    );
    let findings: Vec<String> = summary
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.file.display(), f.what))
        .collect();
    assert!(findings.is_empty(), "findings:\n{}", findings.join("\n"));
}

/// Findings of earlier campaigns, each run through the worker's checks in process: they must
/// come out as ordinary classes (rejected, compiled), not crash the test.
#[test]
fn earlier_findings_are_handled() {
    // Seed 43: a tensor argument of 31 x 2^31 elements; making its interpreter input aborted
    // the worker on the allocation.
    let huge_tensor_argument = r#"module {
  tt.func @store(%base: !tt.ptr<f32>, %v: tensor<31x2147483647xf32>) {
    tt.return
  }
}"#;
    // And a block that large as an op result, which the interpreter refuses by its type.
    let huge_result = r#"module {
  tt.func @splat(%p: !tt.ptr<f32>) {
    %c = arith.constant 1.0 : f32
    %s = tt.splat %c : f32 -> tensor<31x2147483647xf32>
    tt.return
  }
}"#;
    for (name, source) in [
        ("huge_tensor_argument", huge_tensor_argument),
        ("huge_result", huge_result),
    ] {
        let class = tritium_fuzz::campaign::exercise(source, name);
        assert!(!class.contains("BUG"), "{name}: {class}");
    }
}
