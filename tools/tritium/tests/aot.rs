//! `tritium aot`: the C library builds with `cc` (no CUDA headers) and, linked against the mock
//! driver of `runtime/tests/mock_cuda`, launches `add_kernel` with the right grid, block and
//! arguments; the Rust module is what the committed `aot/add_kernel.rs` holds, and it compiles
//! against `tritium-runtime` (it is a module of this test).

use std::path::{Path, PathBuf};
use std::process::Command;

// As `tritium aot` writes it: left unformatted.
#[rustfmt::skip]
#[allow(dead_code)]
#[path = "aot/add_kernel.rs"]
mod add_kernel;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tritium aot examples/add.ttir --grid GRID` into a fresh directory.
fn aot(grid: Option<&str>) -> tempfile::TempDir {
    aot_with_path(grid, None)
}

/// [`aot`] with `path` first on PATH.
fn aot_with_path(grid: Option<&str>, path: Option<&Path>) -> tempfile::TempDir {
    aot_of("examples/add.ttir", grid, path)
}

/// `tritium aot INPUT` (relative to the repository) into a fresh directory, with `--grid GRID`
/// and `path` first on PATH when given.
fn aot_of(input: &str, grid: Option<&str>, path: Option<&Path>) -> tempfile::TempDir {
    aot_of_with(input, grid, path, &[])
}

/// [`aot_of`] with more command-line arguments.
fn aot_of_with(
    input: &str,
    grid: Option<&str>,
    path: Option<&Path>,
    more: &[&str],
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_tritium"));
    if let Some(path) = path {
        let old = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![path.to_path_buf()];
        paths.extend(std::env::split_paths(&old));
        command.env("PATH", std::env::join_paths(paths).unwrap());
    }
    command
        .arg("aot")
        .arg(root().join(input))
        .arg("-o")
        .arg(dir.path())
        .env("TRITIUM_CACHE_DIR", dir.path().join("cache"));
    if let Some(grid) = grid {
        command.args(["--grid", grid]);
    }
    command.args(more);
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    dir
}

/// Compiles `file` in `dir` as C99 with every warning an error (`-pedantic` too).
fn build_strictly(file: &str, dir: &Path) {
    run_cc(
        &[
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-c",
            file,
        ],
        dir,
    );
}

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

fn run_cc(args: &[&str], dir: &Path) -> bool {
    match Command::new(cc()).args(args).current_dir(dir).output() {
        Ok(output) if output.status.success() => true,
        Ok(output) => panic!(
            "{} {args:?} failed:\n{}",
            cc(),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) => {
            eprintln!("skipping: no C compiler ({error})");
            false
        }
    }
}

const MAIN_C: &str = r#"
#include "add_kernel.h"
#include <stdio.h>
#include <stdint.h>

#define N 3000

int main(void) {
    static float x[N], y[N], out[N];
    /* The mock driver's device pointers are host addresses. */
    CUdeviceptr dx = (CUdeviceptr)(uintptr_t)x, dy = (CUdeviceptr)(uintptr_t)y;
    CUdeviceptr dout = (CUdeviceptr)(uintptr_t)out;
    int i;
    for (i = 0; i < N; i++) { x[i] = (float)i; y[i] = 2.0f * (float)i; out[i] = -1.0f; }
    if (add_kernel((CUstream)0, dx, dy, dout, N) != 0) { puts("launch failed"); return 1; }
    for (i = 0; i < N; i++)
        if (out[i] != 3.0f * (float)i) { printf("out[%d] = %f\n", i, out[i]); return 1; }
    if (add_kernel((CUstream)0, dx, dy, dout, 0) != 1) { puts("empty grid launched"); return 1; }
    unload_add_kernel();
    puts("ok");
    return 0;
}
"#;

#[test]
fn c_library_builds_without_cuda_headers_and_launches() {
    let dir = aot(Some("(n + 1023) / 1024"));
    build_and_launch(dir.path());
}

/// With `ptxas` on PATH the cubin is embedded and loaded first. The stand-in `ptxas` here
/// "assembles" by copying the PTX, which the mock driver loads like any image: the launch then
/// shows that the embedded bytes are the kernel.
#[test]
fn c_library_embeds_the_cubin_when_ptxas_is_available() {
    let tools = tempfile::tempdir().unwrap();
    let ptxas = tools.path().join("ptxas");
    std::fs::write(
        &ptxas,
        "#!/bin/sh\n# ptxas -lineinfo -arch=ARCH IN -o OUT\nwhile [ $# -gt 0 ]; do\n  case $1 in\n    -o) out=$2; shift;;\n    -*) ;;\n    *) in=$1;;\n  esac\n  shift\ndone\ncp \"$in\" \"$out\"\n",
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&ptxas).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&ptxas, permissions).unwrap();
    let dir = aot_with_path(Some("(n + 1023) / 1024"), Some(tools.path()));
    let source = std::fs::read_to_string(dir.path().join("add_kernel.c")).unwrap();
    assert!(source.contains("static const unsigned char add_kernel_cubin[] = {"));
    assert!(source.contains("if (add_kernel_load_image(add_kernel_cubin) == 0) return 0;"));
    // The PTX's first bytes, "//\n// Generated", as the cubin's.
    assert!(source.contains("    0x2f, 0x2f, 0x0a, 0x2f, 0x2f, 0x20, 0x47, 0x65,"));
    build_and_launch(dir.path());
}

/// Builds `add_kernel.c` strictly and a test program against the mock driver, and launches.
fn build_and_launch(path: &Path) {
    std::fs::write(path.join("main.c"), MAIN_C).unwrap();
    let mock = root().join("runtime/tests/mock_cuda/mock_cuda.c");
    let strict = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    if !run_cc(&[&strict[..], &["-c", "add_kernel.c"]].concat(), path) {
        return;
    }
    assert!(run_cc(
        &["-c", mock.to_str().unwrap(), "-o", "mock_cuda.o"],
        path
    ));
    assert!(run_cc(
        &[
            &strict[..],
            &["main.c", "add_kernel.o", "mock_cuda.o", "-lm", "-o", "main"]
        ]
        .concat(),
        path
    ));
    let log = path.join("launches.log");
    let output = Command::new(path.join("main"))
        .env("MOCK_CUDA_LOG", &log)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n");
    // ceil(3000 / 1024) programs of 4 warps.
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "add_kernel grid=3,1,1 block=128,1,1 shared=0\n"
    );
}

#[test]
fn c_header_declares_a_typed_launch() {
    let dir = aot(Some("(n + 1023) / 1024"));
    let header = std::fs::read_to_string(dir.path().join("add_kernel.h")).unwrap();
    insta::assert_snapshot!("add_kernel_h", header);
    let dir = aot(None);
    let header = std::fs::read_to_string(dir.path().join("add_kernel.h")).unwrap();
    assert!(header.contains(
        "CUresult add_kernel(CUstream stream, unsigned int gridX, unsigned int gridY, \
         unsigned int gridZ, CUdeviceptr x_ptr, CUdeviceptr y_ptr, CUdeviceptr out_ptr, \
         int32_t n);"
    ));
}

#[test]
fn rust_module_is_the_committed_one() {
    let dir = aot(Some("(n + 1023) / 1024"));
    let generated = std::fs::read_to_string(dir.path().join("add_kernel.rs")).unwrap();
    assert_eq!(
        generated,
        include_str!("aot/add_kernel.rs"),
        "tritium aot writes another Rust module: regenerate tests/aot with \
         `tritium aot examples/add.ttir --grid \"(n + 1023) / 1024\" -o tools/tritium/tests/aot`"
    );
}

#[test]
fn rust_module_loads_on_a_gpu_or_reports_none() {
    let device = match tritium_runtime::Device::new(0) {
        Ok(device) => device,
        Err(error) if error.is_unavailable() => return,
        Err(error) => panic!("{error}"),
    };
    add_kernel::AddKernel::load(&device).unwrap();
}

#[test]
fn a_grid_over_a_pointer_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_tritium"))
        .arg("aot")
        .arg(root().join("examples/add.ttir"))
        .args(["--grid", "x_ptr / 4", "-o"])
        .arg(std::env::temp_dir())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: --grid 'x_ptr / 4': `x_ptr` is not an integer argument of the kernel (those are: n)\n"
    );
}

/// A kernel with global scratch (device-made TMA descriptors): the C launcher allocates
/// `global_scratch_size` bytes per program on the stream, passes the base as the last argument
/// and frees it on the stream; the source builds strictly.
#[test]
fn c_launcher_allocates_global_scratch() {
    let dir = aot_of(
        "test/Inputs/gpu/tma_copy.ttir",
        Some("(M + 63) / 64, (N + 63) / 64"),
        None,
    );
    let source = std::fs::read_to_string(dir.path().join("tma_copy.c")).unwrap();
    let metadata: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("tma_copy.json")).unwrap())
            .unwrap();
    let per_program = metadata["global_scratch_size"].as_u64().unwrap();
    assert!(per_program > 0);
    assert!(source.contains("void *args[7] = {&x, &out, &acc, &M, &N, &ld, &global_scratch};"));
    assert!(source.contains(&format!(
        "cuMemAllocAsync(&global_scratch, (size_t){per_program} * gridX * gridY * gridZ, stream)"
    )));
    assert!(source.contains("cuMemFreeAsync(global_scratch, stream)"));
    run_cc(
        &[
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-c",
            "tma_copy.c",
        ],
        dir.path(),
    );
}

/// A matmul compiled with persistent programs takes the requested program count after its
/// arguments: the C launcher passes `gridX` there (and launches the whole grid); the source
/// builds strictly. Without the option the kernel keeps its parameters.
#[test]
fn c_launcher_passes_the_requested_programs() {
    let grid = Some("(M + 127) / 128 * ((N + 127) / 128)");
    let input = "test/Inputs/kernels/dot/mm_f16.ttir";
    let dir = aot_of_with(input, grid, None, &["--persistent-programs"]);
    let source = std::fs::read_to_string(dir.path().join("matmul_kernel.c")).unwrap();
    let metadata = std::fs::read_to_string(dir.path().join("matmul_kernel.json")).unwrap();
    assert!(metadata.contains("\"virtual_programs\":true"), "{metadata}");
    assert!(source.contains(
        "void *args[10] = {&a_ptr, &b_ptr, &c_ptr, &M, &N, &K, &sam, &sbk, &scm, &requested_programs};"
    ));
    assert!(source.contains("    requested_programs = (int)gridX;\n    return cuLaunchKernel("));
    run_cc(
        &[
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-c",
            "matmul_kernel.c",
        ],
        dir.path(),
    );
    let dir = aot_of(input, grid, None);
    let source = std::fs::read_to_string(dir.path().join("matmul_kernel.c")).unwrap();
    assert!(source.contains("void *args[9] = {"), "{source}");
    assert!(!source.contains("requested_programs"));
}

/// Host-side descriptor parameters are `CUtensorMap`s by value, a type the header declares
/// (64-byte aligned) when cuda.h was not included; the source builds strictly.
#[test]
fn c_launcher_takes_tensor_maps() {
    let dir = aot_of("test/Inputs/gpu/tma_host.ttir", None, None);
    let header = std::fs::read_to_string(dir.path().join("tma_host.h")).unwrap();
    assert!(header.contains("typedef struct CUtensorMap_st {"));
    assert!(
        header.contains("CUtensorMap xd, int32_t xd_m, int32_t xd_n, int64_t xd_sm, int64_t xd_sn")
    );
    build_strictly("tma_host.c", dir.path());
}

/// A matmul whose tiles are read through TMA descriptors the launcher makes
/// (`--descriptor-loads`: `host_descriptors` in the metadata): the C launcher encodes one per
/// tile operand with `cuTensorMapEncodeTiled` from the kernel's own arguments (extents, strides
/// in bytes, innermost first; f16, 128-byte swizzle) and passes them after the arguments; the
/// source builds strictly without CUDA headers.
#[test]
fn c_launcher_encodes_the_kernels_descriptors() {
    let input = "test/Inputs/kernels/dot/t11_persistent.ttir";
    let dir = aot_of_with(input, Some("132"), None, &["--descriptor-loads"]);
    let source = std::fs::read_to_string(dir.path().join("matmul_persistent_kernel.c")).unwrap();
    let metadata: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("matmul_persistent_kernel.json")).unwrap(),
    )
    .unwrap();
    let descriptors = metadata["host_descriptors"].as_array().unwrap();
    assert_eq!(descriptors.len(), 2, "{metadata}");
    assert!(source.contains(
        "void *args[11] = {&a_ptr, &b_ptr, &c_ptr, &M, &N, &K, &stride_am, &stride_bk, &stride_cm, &host_descriptor0, &host_descriptor1};"
    ), "{source}");
    for wanted in [
        "const unsigned long long dims[2] = {(unsigned long long)(int64_t)K, (unsigned long long)(int64_t)M};",
        "const unsigned long long strides[1] = {(unsigned long long)(int64_t)stride_am * 2};",
        "const unsigned int box[2] = {64, 128};",
        "result = cuTensorMapEncodeTiled(&host_descriptor0, 6, 2,",
        "(void *)(empty ? zeros : a_ptr),",
        "(void *)(empty ? zeros : b_ptr),",
        "box, element_strides, 0, 3, 2, 0);",
        "cuMemFreeAsync(zeros, stream)",
    ] {
        assert!(source.contains(wanted), "{wanted}\n{source}");
    }
    let header = std::fs::read_to_string(dir.path().join("matmul_persistent_kernel.h")).unwrap();
    assert!(header.contains("typedef struct CUtensorMap_st {"));
    build_strictly("matmul_persistent_kernel.c", dir.path());
}

/// A user's 3-D descriptors of strides `M * K`: the launcher computes the product as the kernel
/// did, in 32 bits.
#[test]
fn c_launcher_multiplies_the_batch_stride() {
    let input = "test/Inputs/kernels/dot/batched_descriptor_matmul.ttir";
    let dir = aot_of_with(input, None, None, &["--descriptor-loads"]);
    let source =
        std::fs::read_to_string(dir.path().join("batched_descriptor_matmul_kernel.c")).unwrap();
    for wanted in [
        "const unsigned long long dims[3] = {(unsigned long long)(int64_t)K, (unsigned long long)(int64_t)M, (unsigned long long)(int64_t)B};",
        "const unsigned long long strides[2] = {(unsigned long long)(int64_t)K * 2, (unsigned long long)(int64_t)(int32_t)(uint32_t)((int64_t)M * (int64_t)K) * 2};",
        "result = cuTensorMapEncodeTiled(&host_descriptor2, 6, 3,",
    ] {
        assert!(source.contains(wanted), "{wanted}\n{source}");
    }
    build_strictly("batched_descriptor_matmul_kernel.c", dir.path());
}

/// A batched matmul's 3-D descriptors: the batch dimension's extent is the grid's z, which the
/// launch function takes.
#[test]
fn c_launcher_counts_the_batch_from_the_grid() {
    let input = "test/Inputs/kernels/dot/batched_matmul.ttir";
    let dir = aot_of_with(input, None, None, &["--descriptor-loads"]);
    let source = std::fs::read_to_string(dir.path().join("batched_matmul_kernel.c")).unwrap();
    for wanted in [
        "const unsigned long long dims[3] = {(unsigned long long)(int64_t)K, (unsigned long long)(int64_t)M, (unsigned long long)gridZ};",
        "const unsigned long long strides[2] = {(unsigned long long)(int64_t)stride_am * 2, (unsigned long long)(int64_t)stride_ab * 2};",
        "const unsigned int box[3] = {32, 64, 1};",
        "result = cuTensorMapEncodeTiled(&host_descriptor1, 6, 3,",
    ] {
        assert!(source.contains(wanted), "{wanted}\n{source}");
    }
    build_strictly("batched_matmul_kernel.c", dir.path());
}
