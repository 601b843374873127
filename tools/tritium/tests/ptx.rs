//! PTX snapshots of the shared kernels, through the `tritium` binary. Line tables are off
//! (`TRITON_DISABLE_LINE_INFO=1`) so that the snapshots show the code; `line_info.rs` tests them.

use std::path::Path;
use std::process::Command;

fn compile(kernel: &str, warps: u32) -> (String, String) {
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../test/Inputs/kernels/{kernel}.ttir"));
    let out = std::env::temp_dir().join(format!("tritium-ptx-{}-{kernel}", std::process::id()));
    let cache = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_tritium"))
        .env("TRITON_DISABLE_LINE_INFO", "1")
        .env("TRITIUM_CACHE_DIR", cache.path())
        .args([
            "compile",
            input.to_str().unwrap(),
            "--num-warps",
            &warps.to_string(),
            "--arch",
            "sm_90a",
            "-o",
            out.to_str().unwrap(),
        ])
        .status()
        .expect("run tritium");
    assert!(status.success(), "compiling {kernel} failed");
    let ptx = std::fs::read_to_string(out.join(format!("{kernel}.ptx"))).unwrap();
    let json = std::fs::read_to_string(out.join(format!("{kernel}.json"))).unwrap();
    std::fs::remove_dir_all(&out).ok();
    // The hash names the compiler's build: not part of a snapshot.
    let mut metadata: serde_json::Value = serde_json::from_str(&json).unwrap();
    metadata["hash"] = "[hash]".into();
    (ptx, serde_json::to_string_pretty(&metadata).unwrap())
}

#[test]
fn ptx_of_shared_kernels() {
    for (kernel, warps) in [("add", 4), ("softmax", 8), ("rmsnorm", 8)] {
        let (ptx, json) = compile(kernel, warps);
        insta::assert_snapshot!(format!("{kernel}_ptx"), ptx);
        insta::assert_snapshot!(format!("{kernel}_json"), json);
    }
}
