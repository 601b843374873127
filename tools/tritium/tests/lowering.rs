//! Every op family the lowering handles, compiled to PTX through the `tritium` binary from the
//! small TTIR kernels in `test/Inputs/lowering` (and Triton's syntax-sampler kernels). No GPU is
//! needed: this checks that PTX is produced and carries the instructions each op lowers to.

use std::path::{Path, PathBuf};
use std::process::Command;

fn inputs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/Inputs")
}

/// Compiles `path` with 4 warps for sm_90a; returns the PTX.
fn compile(path: &Path) -> String {
    compile_for(path, "sm_90a")
}

/// Compiles `path` with 4 warps for `arch`; returns the PTX.
fn compile_for(path: &Path, arch: &str) -> String {
    let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
    let out = std::env::temp_dir().join(format!("tritium-lowering-{}-{stem}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_tritium"))
        .args(["compile", path.to_str().unwrap(), "--num-warps", "4"])
        .args(["--arch", arch, "-o", out.to_str().unwrap()])
        .output()
        .expect("run tritium");
    assert!(
        output.status.success(),
        "compiling {} failed:\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let ptx = std::fs::read_to_string(out.join(format!("{stem}.ptx"))).unwrap();
    std::fs::remove_dir_all(&out).ok();
    assert!(
        ptx.contains(".entry"),
        "{}: no kernel entry in the PTX",
        path.display()
    );
    ptx
}

fn lowering(name: &str) -> String {
    compile(&inputs().join(format!("lowering/{name}.ttir")))
}

fn expect(ptx: &str, kernel: &str, needles: &[&str]) {
    for needle in needles {
        assert!(ptx.contains(needle), "{kernel}: '{needle}' not in the PTX");
    }
}

#[test]
fn atomics() {
    let ptx = lowering("atomics_broadcast");
    expect(
        &ptx,
        "atomics_broadcast",
        &["atom.acq_rel.gpu.global.add.f32", "bar.sync"],
    );
    let ptx = lowering("atomics");
    expect(
        &ptx,
        "atomics",
        &[
            "atom.relaxed.gpu.global.add.f32",
            "atom.acq_rel.gpu.global.max.s32",
            "atom.release.cta.global.add.noftz.f16",
            "atom.acquire.sys.global.cas.b32",
            "atom.acq_rel.gpu.global.add.u32",
            "bar.sync",
        ],
    );
}

#[test]
fn scan() {
    let ptx = lowering("scan");
    expect(&ptx, "scan", &["shfl.sync.bfly.b32", "bar.sync", "add.f32"]);
}

#[test]
fn gather_and_histogram() {
    let ptx = lowering("gather_histogram");
    expect(
        &ptx,
        "gather_histogram",
        &["atom.shared.add.u32", "ld.shared", "st.shared"],
    );
}

#[test]
fn shapes() {
    lowering("shapes");
}

#[test]
fn casts() {
    let ptx = lowering("casts");
    expect(
        &ptx,
        "casts",
        &[
            "cvt.rn.satfinite.e4m3x2.f32",
            "cvt.rn.satfinite.e5m2x2.f32",
            "cvt.rz.f16.f32",
            "cvt.rn.bf16.f32",
        ],
    );
}

#[test]
fn math() {
    let ptx = lowering("math");
    // Accurate f32 math is computed in f32: no approximate sin/cos and no f64 at all.
    assert!(!ptx.contains("sin.approx"), "math: sin.approx in the PTX");
    assert!(!ptx.contains(".f64"), "math: f64 arithmetic in f32 math");
    expect(
        &ptx,
        "math",
        &["sqrt.rn.f32", "div.rn.f32", "mul.hi.u32", "fma.rn.f32"],
    );
    let ptx = lowering("math64");
    expect(&ptx, "math64", &["__tritium_two_over_pi", "fma.rn.f64"]);
}

#[test]
fn control_flow() {
    lowering("while");
}

#[test]
fn print_and_assert() {
    let ptx = lowering("debug");
    expect(&ptx, "debug", &["vprintf", "__assertfail"]);
}

#[test]
fn sixteen_bit_vectors() {
    let ptx = lowering("vector16");
    expect(&ptx, "vector16", &["ld.global.v4.b32", "st.global.v4.b32"]);
}

#[test]
fn inline_asm() {
    let ptx = lowering("inline_asm");
    expect(&ptx, "inline_asm", &["add.f16x2"]);
}

#[test]
fn descriptors() {
    // sm_90: TMA (a descriptor written on the device, bulk copies and reductions).
    let ptx = lowering("descriptor");
    expect(
        &ptx,
        "descriptor",
        &[
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
            "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group",
        ],
    );
    // sm_80: per-element accesses.
    let ptx = compile_for(&inputs().join("lowering/descriptor.ttir"), "sm_80");
    expect(&ptx, "descriptor", &["red.relaxed.gpu.global.add.f32"]);
    assert!(
        !ptx.contains("cp.async.bulk"),
        "descriptor on sm_80: no TMA"
    );
}

/// Triton's syntax-sampler kernels (every TTIR op family in one place) all compile.
#[test]
fn syntax_sampler_kernels() {
    let dir = inputs().join("kernels/syntax");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name.ends_with(".ttir") && !name.ends_with(".source.ttir") {
            compile(&path);
            count += 1;
        }
    }
    assert!(
        count >= 11,
        "expected the syntax kernels in {}",
        dir.display()
    );
}
