//! `tritium compile --timing`: one row per stage, in pipeline order, then the total.

use std::path::Path;
use std::process::Command;

/// Runs `tritium compile KERNEL --timing` and returns its table with every time replaced by `<ms>`
/// (the stage names and their order are what is checked, not the times).
fn timing_table(kernel: &str) -> String {
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test/Inputs/kernels")
        .join(kernel);
    let out = std::env::temp_dir().join(format!("tritium-timing-{}-{kernel}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_tritium"))
        .args(["compile", input.to_str().unwrap(), "--timing", "-o"])
        .arg(&out)
        .output()
        .expect("run tritium");
    std::fs::remove_dir_all(&out).ok();
    assert!(
        output.status.success(),
        "{kernel}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split_whitespace().collect();
            if let Some(time) = fields.get_mut(1)
                && time.parse::<f64>().is_ok()
            {
                *time = "<ms>";
            }
            fields.join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn timing_of_ttir_input_names_every_stage() {
    insta::assert_snapshot!("timing_add_ttir", timing_table("add.ttir"));
}

#[test]
fn timing_of_ttgir_input_skips_the_ttir_and_ttgir_passes() {
    insta::assert_snapshot!("timing_add_ttgir", timing_table("add.ttgir"));
}
