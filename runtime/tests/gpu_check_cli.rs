//! The `tritium-gpu-check` binary: usage errors, and on a machine without a CUDA driver, SKIP
//! lines with exit code 0.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tritium-gpu-check"))
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tritium-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn usage_errors_exit_2() {
    let out = bin().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing DIR"));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("0 passed, 0 failed, 0 skipped\n"));
    let out = bin().args(["/nonexistent/dir"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["x", "--frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: tritium-gpu-check"));
}

#[test]
fn skips_every_present_kernel_without_a_driver() {
    if tritium_runtime::driver_version().is_ok() {
        return; // GPU machine: the fake PTX here would (rightly) fail
    }
    let d = temp_dir("skip");
    for k in ["add", "softmax", "rmsnorm"] {
        std::fs::write(d.join(format!("{k}.ptx")), "// not real").unwrap();
        std::fs::write(d.join(format!("{k}.json")), r#"{"name":"k","num_warps":4}"#).unwrap();
    }
    for extra in [&[][..], &["--bench"][..]] {
        let out = bin().arg(&d).args(extra).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 4, "{stdout}");
        for (line, k) in lines.iter().zip(["add", "softmax", "rmsnorm"]) {
            assert!(
                line.starts_with(&format!("SKIP: {k}: no CUDA driver")),
                "{line}"
            );
        }
        assert_eq!(lines[3], "0 passed, 0 failed, 3 skipped");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
