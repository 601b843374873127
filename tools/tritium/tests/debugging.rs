//! Triton's debugging variables and `tritium compile`'s debugging flags, through the binary.
//! Each run gets its own cache directory, so that nothing is shared between tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn input(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// `tritium ARGS` with the variables `env`, a fresh cache and a fresh output directory.
fn tritium(args: &[&str], env: &[(&str, &str)]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_tritium"));
    command
        .args(args)
        .arg("-o")
        .arg(dir.path().join("out"))
        .env("TRITIUM_CACHE_DIR", dir.path().join("cache"));
    for var in [
        "MLIR_ENABLE_DUMP",
        "MLIR_ENABLE_TIMING",
        "LLVM_IR_ENABLE_DUMP",
        "TRITON_KERNEL_DUMP",
        "TRITON_DUMP_DIR",
        "TRITON_REPRODUCER_PATH",
        "TRITON_ALWAYS_COMPILE",
        "TRITON_DEBUG",
        "TRITON_DISABLE_LINE_INFO",
        "TRITIUM_LOG",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    (command.output().unwrap(), dir)
}

fn compile_add(env: &[(&str, &str)]) -> (Output, tempfile::TempDir) {
    let add = input("examples/add.ttir");
    tritium(&["compile", add.to_str().unwrap()], env)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn mlir_enable_dump_prints_the_ir_before_every_pass() {
    let (output, _dir) = compile_add(&[("MLIR_ENABLE_DUMP", "1")]);
    assert!(output.status.success());
    let text = stderr(&output);
    for pass in [
        "IR Dump Before Inliner (inline)",
        "IR Dump Before convert-triton-to-tritongpu (convert-triton-to-tritongpu)",
        "IR Dump Before tritongpu-coalesce",
        "IR Dump Before convert-triton-gpu-to-llvm",
    ] {
        assert!(
            text.contains(pass),
            "no '{pass}' in:\n{}",
            &text[..text.len().min(2000)]
        );
    }
    // With locations, as Triton prints them.
    assert!(text.contains("loc("), "no locations in the dump");

    let (output, _dir) = compile_add(&[("MLIR_ENABLE_DUMP", "add_kernel")]);
    assert!(stderr(&output).contains("IR Dump Before Inliner"));
    let (output, _dir) = compile_add(&[("MLIR_ENABLE_DUMP", "softmax_kernel")]);
    assert!(
        !stderr(&output).contains("IR Dump"),
        "another kernel's dump was asked for"
    );
}

#[test]
fn mlir_enable_timing_prints_mlirs_pass_timing() {
    let (output, _dir) = compile_add(&[("MLIR_ENABLE_TIMING", "1")]);
    assert!(output.status.success());
    let text = stderr(&output);
    assert!(text.contains("Execution time report"), "{text}");
    assert!(text.contains("tritongpu-coalesce"), "{text}");
}

#[test]
fn llvm_ir_enable_dump_prints_llvm_ir_after_every_pass() {
    let (output, _dir) = compile_add(&[("LLVM_IR_ENABLE_DUMP", "1")]);
    assert!(output.status.success());
    let text = stderr(&output);
    assert!(
        text.contains("*** IR Dump After"),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert!(text.contains("define ptx_kernel void @add_kernel"));
}

fn dumped_files(dir: &Path) -> Vec<String> {
    let hashes: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(hashes.len(), 1, "one directory per compilation: {hashes:?}");
    let mut files: Vec<String> = std::fs::read_dir(&hashes[0])
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn triton_kernel_dump_writes_every_stage() {
    let dump = tempfile::tempdir().unwrap();
    let dump_dir = dump.path().to_str().unwrap();
    let (output, _dir) = compile_add(&[("TRITON_KERNEL_DUMP", "1"), ("TRITON_DUMP_DIR", dump_dir)]);
    assert!(output.status.success(), "{}", stderr(&output));
    insta::assert_snapshot!("kernel_dump_files", dumped_files(dump.path()).join("\n"));
}

#[test]
fn dump_dir_flag_is_triton_kernel_dump() {
    let dump = tempfile::tempdir().unwrap();
    let add = input("examples/add.ttir");
    let (output, _dir) = tritium(
        &[
            "compile",
            add.to_str().unwrap(),
            "--dump-dir",
            dump.path().to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let files = dumped_files(dump.path());
    assert!(files.contains(&"add_kernel.ttgir".to_owned()), "{files:?}");
    assert!(files.contains(&"add_kernel.llir".to_owned()), "{files:?}");
}

#[test]
fn triton_reproducer_path_captures_the_failing_pipeline() {
    let repro_dir = tempfile::tempdir().unwrap();
    let repro = repro_dir.path().join("repro.mlir");
    let failing = input("test/tritium/Inputs/block-pointer-argument.ttir");
    let (output, _dir) = tritium(
        &["compile", failing.to_str().unwrap()],
        &[("TRITON_REPRODUCER_PATH", repro.to_str().unwrap())],
    );
    assert!(!output.status.success());
    let text = stderr(&output);
    assert!(text.contains("note: MLIR reproducer in"), "{text}");
    let reproducer = std::fs::read_to_string(&repro).unwrap();
    assert!(reproducer.contains("mlir_reproducer"), "{reproducer}");
    assert!(
        reproducer.contains("triton-rewrite-tensor-pointer"),
        "{reproducer}"
    );
    assert!(reproducer.contains("tt.func public @block_pointer_argument"));
}

#[test]
fn compile_uses_the_cache_unless_told_otherwise() {
    let add = input("examples/add.ttir");
    let dir = tempfile::tempdir().unwrap();
    let run = |env: &[(&str, &str)]| {
        let output = Command::new(env!("CARGO_BIN_EXE_tritium"))
            .args(["compile", add.to_str().unwrap(), "-o"])
            .arg(dir.path().join("out"))
            .env("TRITIUM_CACHE_DIR", dir.path().join("cache"))
            .env("TRITIUM_LOG", "tritium=debug")
            .env_remove("TRITON_ALWAYS_COMPILE")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(output.status.success());
        stderr(&output).contains("cache hit")
    };
    assert!(!run(&[]), "the first compilation cannot hit");
    assert!(run(&[]), "the second comes from the cache");
    assert!(!run(&[("TRITON_ALWAYS_COMPILE", "1")]));
    let entries = std::fs::read_dir(dir.path().join("cache")).unwrap().count();
    assert_eq!(entries, 1);
}

#[test]
fn tritium_log_shows_the_passes_decisions() {
    let (output, _dir) = compile_add(&[("TRITIUM_LOG", "tritium_passes=debug")]);
    assert!(output.status.success());
    let text = stderr(&output);
    assert!(text.contains("tritium_passes::coalesce"), "{text}");
    assert!(
        text.contains("remove-layout-conversions: fixed point"),
        "{text}"
    );
}

#[test]
fn triton_debug_is_recorded_in_the_metadata() {
    let (output, dir) = compile_add(&[("TRITON_DEBUG", "1")]);
    assert!(output.status.success());
    let json = std::fs::read_to_string(dir.path().join("out/add.json")).unwrap();
    let metadata: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(metadata["debug"], true);
    assert_eq!(metadata["enable_assertions"], true);
}

#[test]
fn ptx_carries_line_tables_unless_disabled() {
    let (output, dir) = compile_add(&[]);
    assert!(output.status.success());
    let ptx = std::fs::read_to_string(dir.path().join("out/add.ptx")).unwrap();
    assert!(ptx.contains(".file\t1 \"cases_visible.py\""), "{ptx}");
    // The kernel's loads are on line 11 of the Python source, as in Triton's own PTX.
    assert!(ptx.contains(".loc\t1 11 "), "{ptx}");
    assert!(
        ptx.lines().any(|l| l == ".target sm_90a"),
        "`debug` left in .target"
    );

    let (output, dir) = compile_add(&[("TRITON_DISABLE_LINE_INFO", "1")]);
    assert!(output.status.success());
    let ptx = std::fs::read_to_string(dir.path().join("out/add.ptx")).unwrap();
    assert!(!ptx.contains(".loc"));
}

#[test]
fn a_module_with_two_public_kernels_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let two = dir.path().join("two.ttir");
    std::fs::write(
        &two,
        "module {\n  tt.func public @first(%p: !tt.ptr<f32>) {\n    tt.return\n  }\n  \
         tt.func public @second(%p: !tt.ptr<f32>) {\n    tt.return\n  }\n}\n",
    )
    .unwrap();
    let (output, _dir) = tritium(&["compile", two.to_str().unwrap()], &[]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(
        text.contains("two.ttir:5:3: error: a second public kernel `second` (after `first`)"),
        "{text}"
    );
}

const ASSERTING_KERNEL: &str = r#"import triton
import triton.language as tl

@triton.jit
def checked_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_assert(x >= 0, "negative input")
    assert n > 0, "empty"
    tl.store(out_ptr + offs, x, mask=offs < n)
"#;

#[test]
fn triton_debug_keeps_device_assertions_of_python_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = dir.path().join("checked.py");
    std::fs::write(&kernel, ASSERTING_KERNEL).unwrap();
    let compile = |env: &[(&str, &str)]| {
        let args = [
            "compile",
            kernel.to_str().unwrap(),
            "-s",
            "*fp32:16, *fp32:16, i32, 256",
            "--emit",
            "ttir",
        ];
        let (output, out) = tritium(&args, env);
        assert!(output.status.success(), "{}", stderr(&output));
        let read = |ext: &str| {
            std::fs::read_to_string(out.path().join(format!("out/checked_copy.{ext}"))).unwrap()
        };
        (read("ttir"), read("ptx"))
    };
    let (ttir, ptx) = compile(&[("TRITON_DEBUG", "1")]);
    assert!(
        ttir.contains(r#"tt.assert %0, "negative input" : tensor<256xi1>"#),
        "{ttir}"
    );
    assert!(ttir.contains(r#""empty" : i1"#), "{ttir}");
    assert!(ptx.contains("__assertfail"));
    let (ttir, ptx) = compile(&[]);
    assert!(!ttir.contains("tt.assert") && !ptx.contains("__assertfail"));
}

/// `run` (and `bench`) compile through the same path: the variables work there too, and the
/// dump comes before the launch, so it is there without a GPU as well.
#[test]
fn run_honours_the_variables_before_it_needs_a_gpu() {
    let add = input("examples/add.ttir");
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tritium"))
        .arg("run")
        .arg(&add)
        .args([
            "--grid",
            "4",
            "--arg",
            "x=buf:f32:4096",
            "--arg",
            "y=buf:f32:4096",
        ])
        .args(["--arg", "out=buf:f32:4096:zeros", "--arg", "n=4096"])
        .env("TRITIUM_CACHE_DIR", dir.path())
        .env("MLIR_ENABLE_DUMP", "add_kernel")
        .output()
        .unwrap();
    assert!(stderr(&output).contains("IR Dump Before tritongpu-coalesce"));
}
