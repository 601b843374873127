//! `tritium compile kernel.py`: Python kernels compile through the whole pipeline, and bad
//! kernels are reported as `kernel.py:LINE:COL: error: ...` with the line and a caret, exit 1.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory holding `kernel.py` with `source`.
fn kernel_dir(test: &str, source: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritium-frontend-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernel.py"), source).unwrap();
    dir
}

/// Runs `tritium compile kernel.py ARGS -o out` in `dir`: (exit code, stdout, stderr).
fn compile_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tritium"))
        .current_dir(dir)
        .args(["compile", "kernel.py"])
        .args(args)
        .args(["-o", "out"])
        .output()
        .expect("run tritium");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The stderr of compiling `source` with `signature`, which must fail with exit code 1.
fn error_of(test: &str, source: &str, signature: &str) -> String {
    let dir = kernel_dir(test, source);
    let (code, _, stderr) = compile_in(&dir, &["-s", signature]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{test}: expected exit 1, stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{test}: {stderr}");
    stderr
}

const HEADER: &str = "import triton\nimport triton.language as tl\n\n@triton.jit\n";

#[test]
fn python_kernel_compiles_to_ptx_and_ttir() {
    let source = format!(
        "{HEADER}def add(x, y, out, n, BLOCK: tl.constexpr):\n    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    m = offs < n\n    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)\n"
    );
    let dir = kernel_dir("ok", &source);
    let (code, _, stderr) = compile_in(
        &dir,
        &[
            "-n",
            "add",
            "-s",
            "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
            "-w",
            "4",
            "-ns",
            "3",
            "--emit",
            "ttir,ttgir",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let ptx = std::fs::read_to_string(dir.join("out/add.ptx")).unwrap();
    assert!(ptx.contains(".entry add("), "{ptx}");
    // Line tables for the Python source (and no `debug` target, which would stop ptxas
    // optimizing).
    assert!(ptx.contains(".file\t1 \"kernel.py\""), "{ptx}");
    assert!(ptx.contains(".loc\t1 8 "), "{ptx}");
    assert!(ptx.lines().any(|l| l == ".target sm_90a"), "{ptx}");
    let ttir = std::fs::read_to_string(dir.join("out/add.ttir")).unwrap();
    assert!(
        ttir.contains("tt.make_range {end = 1024 : i32, start = 0 : i32}"),
        "{ttir}"
    );
    assert!(ttir.contains("{tt.divisibility = 16 : i32}"), "{ttir}");
    let json = std::fs::read_to_string(dir.join("out/add.json")).unwrap();
    assert!(
        json.contains("\"num_stages\":3") && json.contains("\"num_warps\":4"),
        "{json}"
    );
    assert!(dir.join("out/add.ttgir").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn syntax_error() {
    let stderr = error_of(
        "syntax",
        &format!("{HEADER}def k(x):\n    y = (x +\n"),
        "*fp32",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn pointer_plus_float() {
    let stderr = error_of(
        "ptrfloat",
        &format!("{HEADER}def k(x):\n    p = x + 1.5\n    tl.store(p, 1.0)\n"),
        "*fp32:16",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn non_constexpr_arange_bound() {
    let stderr = error_of(
        "arange",
        &format!("{HEADER}def k(x, n):\n    offs = tl.arange(0, n)\n    tl.store(x + offs, 1.0)\n"),
        "*fp32:16, i32",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn broadcast_shape_mismatch() {
    let stderr = error_of(
        "broadcast",
        &format!(
            "{HEADER}def k(x):\n    a = tl.arange(0, 16) + tl.arange(0, 32)\n    tl.store(x + a, 1.0)\n"
        ),
        "*fp32:16",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn unsupported_statement() {
    let stderr = error_of(
        "with",
        &format!("{HEADER}def k(x):\n    with open('f') as f:\n        pass\n"),
        "*fp32:16",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn undefined_name() {
    let stderr = error_of(
        "undefined",
        &format!("{HEADER}def k(x):\n    tl.store(x, undefined_value)\n"),
        "*fp32:16",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn loop_carried_type_change() {
    let stderr = error_of(
        "carried",
        &format!(
            "{HEADER}def k(x, n):\n    acc = 0\n    for i in range(n):\n        acc += tl.load(x + i)\n    tl.store(x, acc)\n"
        ),
        "*fp32:16, i32",
    );
    insta::assert_snapshot!(stderr);
}

#[test]
fn signature_errors() {
    let source = format!("{HEADER}def k(x, n, BLOCK: tl.constexpr):\n    pass\n");
    let stderr = error_of("sigcount", &source, "*fp32:16, i32");
    insta::assert_snapshot!("signature_count", stderr);
    let stderr = error_of("sigtype", &source, "*fp33, i32, 16");
    insta::assert_snapshot!("signature_type", stderr);
    let stderr = error_of("sigconstexpr", &source, "*fp32, i32, i32");
    insta::assert_snapshot!("signature_constexpr", stderr);
}

#[test]
fn unknown_kernel_name() {
    let dir = kernel_dir("name", &format!("{HEADER}def k(x):\n    pass\n"));
    let (code, _, stderr) = compile_in(&dir, &["-n", "nope", "-s", "*fp32"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1);
    assert_eq!(
        stderr.trim(),
        "kernel.py: error: no @triton.jit function 'nope' (found: k)"
    );
}

/// Tutorial-style kernels (matmul with a fused activation, layer norm, dropout, a spin lock,
/// flash attention with block pointers, a persistent softmax, sort and flip) compile from Python
/// to PTX.
#[test]
fn tutorial_kernels_compile_to_ptx() {
    let input =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/Inputs/frontend/tutorials.py");
    let dir =
        std::env::temp_dir().join(format!("tritium-frontend-{}-tutorials", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&input, dir.join("kernel.py")).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "matmul_act_kernel",
            "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 64, 8, 'leaky_relu'",
            "8",
        ),
        (
            "layer_norm_fwd",
            "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 1024",
            "8",
        ),
        (
            "dropout_kernel",
            "*fp32:16, *fp32:16, i32:16, fp32, i32, 1024",
            "4",
        ),
        (
            "spin_lock_accumulate",
            "*i32, *i32, *fp32:16, *fp32:16, i32, 128",
            "4",
        ),
        (
            "attn_fwd",
            "*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 128, 64",
            "4",
        ),
        (
            "softmax_multirow",
            "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32, 1024, 2",
            "4",
        ),
        (
            "sort_flip_kernel",
            "*fp32:16, *fp32:16, *fp32:16, *fp32:16, 2, 64",
            "4",
        ),
        (
            "early_exit_kernel",
            "*fp32:16, *fp32:16, i32, i32, 256",
            "4",
        ),
    ];
    for (kernel, signature, warps) in cases {
        let (code, _, stderr) = compile_in(&dir, &["-n", kernel, "-s", signature, "-w", warps]);
        assert_eq!(code, 0, "{kernel}: {stderr}");
        let ptx = std::fs::read_to_string(dir.join(format!("out/{kernel}.ptx"))).unwrap();
        assert!(ptx.contains(&format!(".entry {kernel}(")), "{kernel}");
        assert!(ptx.contains(".loc\t1 "), "{kernel}: no line info");
    }
    std::fs::remove_dir_all(&dir).ok();
}
