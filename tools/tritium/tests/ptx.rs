//! PTX snapshots of the shared kernels, through the `tritium` binary.

use std::path::Path;
use std::process::Command;

fn compile(kernel: &str, warps: u32) -> (String, String) {
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../test/Inputs/kernels/{kernel}.ttir"));
    let out = std::env::temp_dir().join(format!("tritium-ptx-{}-{kernel}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_tritium"))
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
    (ptx, json)
}

#[test]
fn ptx_of_shared_kernels() {
    for (kernel, warps) in [("add", 4), ("softmax", 8), ("rmsnorm", 8)] {
        let (ptx, json) = compile(kernel, warps);
        insta::assert_snapshot!(format!("{kernel}_ptx"), ptx);
        insta::assert_snapshot!(format!("{kernel}_json"), json);
    }
}
