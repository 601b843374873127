//! End-to-end tests of the driver layer and of `tritium-gpu-check` against a stand-in
//! `libcuda.so` (tests/mock_cuda/mock_cuda.c, built here with the system C compiler). The mock
//! keeps "device" memory on the host and runs C versions of the benchmark kernels, so these
//! tests cover everything except the real GPU: library loading, device queries, memory copies,
//! argument marshalling, grids and blocks, shared-memory opt-in, JIT error logs, event timing,
//! and the checker's PASS/FAIL/SKIP logic.
//!
//! The driver library is loaded once per process and found through `LD_LIBRARY_PATH`, which
//! the loader reads at start-up, so each test runs its body in a child process (this same test
//! binary, re-executed with the mock on the library path).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use tritium_runtime::{
    Device, ElemType, Kernel, KernelArg, KernelMetadata, L2Flush, LaunchFlags, Module,
    RuntimeError, device_count, driver_version, median,
};

const CHILD_VAR: &str = "TRITIUM_MOCK_CHILD";

/// Builds the mock once per process; `None` (test skipped) when no C compiler is available.
fn mock_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mock-cuda");
        std::fs::create_dir_all(&dir).ok()?;
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mock_cuda/mock_cuda.c");
        let tmp = dir.join(format!("libcuda.so.tmp{}", std::process::id()));
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let status = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&tmp)
            .arg(&src)
            .arg("-lm")
            .status();
        match status {
            Ok(s) if s.success() => {}
            other => {
                eprintln!("skipping mock-driver tests: cannot build the mock with {cc}: {other:?}");
                return None;
            }
        }
        std::fs::rename(&tmp, dir.join("libcuda.so")).ok()?;
        Some(dir)
    })
    .as_deref()
}

fn with_mock(cmd: &mut Command, dir: &Path) {
    let mut path = dir.as_os_str().to_owned();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    cmd.env("LD_LIBRARY_PATH", path);
}

fn show(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs test `name` of this binary in a child process with the mock driver; returns false when
/// already in the child (the caller then runs the body).
fn in_child(name: &str, envs: &[(&str, &str)]) -> bool {
    if std::env::var(CHILD_VAR).as_deref() == Ok(name) {
        return true;
    }
    let Some(dir) = mock_dir() else { return false };
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, name);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    with_mock(&mut cmd, dir);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "child {name} failed:\n{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "child {name} ran no test:\n{}",
        show(&out)
    );
    false
}

const FILL_PTX: &str = "\
.version 8.7
.target sm_90a
.address_size 64
.visible .entry fill_kernel(
\t.param .u64 .ptr .global .align 1 fill_kernel_param_0,
\t.param .u32 fill_kernel_param_1,
\t.param .f32 fill_kernel_param_2,
\t.param .u8 fill_kernel_param_3,
\t.param .u64 fill_kernel_param_4,
\t.param .f64 fill_kernel_param_5
)
{
\tret;
}
";

const PERSISTENT_PTX: &str = "\
.version 8.7
.target sm_90a
.address_size 64
.visible .entry persistent_kernel(
\t.param .u64 .ptr .global .align 1 persistent_kernel_param_0,
\t.param .u32 persistent_kernel_param_1,
\t.param .u32 persistent_kernel_param_2
)
{
\tret;
}
";

fn fill_md() -> KernelMetadata {
    KernelMetadata::from_json(
        r#"{"name":"fill_kernel","num_warps":8,"shared":0,"arch":"sm_90a",
            "signature":["*f32","i32","f32","i1","i64","f64"],
            "arg_names":["out","n","value","flag","big","d"]}"#,
    )
    .unwrap()
}

#[test]
fn api_against_mock_driver() {
    let log = std::env::temp_dir().join(format!("tritium-mock-log-{}", std::process::id()));
    let log_s = log.to_string_lossy().into_owned();
    if !in_child("api_against_mock_driver", &[("MOCK_CUDA_LOG", &log_s)]) {
        let _ = std::fs::remove_file(&log);
        return;
    }
    let log = PathBuf::from(std::env::var("MOCK_CUDA_LOG").unwrap());
    let _ = std::fs::remove_file(&log);

    assert_eq!(driver_version().unwrap(), 13000);
    assert_eq!(device_count().unwrap(), 1);
    let e = Device::new(1).unwrap_err();
    assert!(matches!(e, RuntimeError::NoDevice(_)), "{e}");
    let dev = Device::new(0).unwrap();
    assert_eq!(dev.name(), "Mock GPU");
    assert_eq!(dev.arch(), "sm_90");
    assert_eq!(dev.compute_capability(), (9, 0));
    assert_eq!(dev.sm_count(), 132);
    assert_eq!(dev.max_shared_per_block_optin(), 232448);
    assert!(dev.same_context(&Device::new(0).unwrap()));

    // Memory: round trips, tags, size checks, poison.
    let xs: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
    let b = dev.upload(&xs).unwrap();
    assert_eq!(b.len_bytes(), 4000);
    assert_eq!(b.elem(), Some(&ElemType::F32));
    assert_eq!(b.download::<f32>().unwrap(), xs);
    let h: Vec<u16> = vec![0x3c00, 0xc000, 0x7bff];
    let hb = dev.upload(&h).unwrap();
    assert_eq!(hb.elem(), Some(&ElemType::F16));
    assert_eq!(hb.download::<u16>().unwrap(), h);
    let hb = hb.with_elem(ElemType::BF16);
    assert_eq!(hb.elem(), Some(&ElemType::BF16));
    let big: Vec<i64> = vec![i64::MIN, -1, 0, i64::MAX];
    assert_eq!(dev.upload(&big).unwrap().download::<i64>().unwrap(), big);
    assert!(matches!(
        b.copy_from(&vec![0f32; 1001]).unwrap_err(),
        RuntimeError::InvalidArgument(_)
    ));
    assert!(dev.alloc(6).unwrap().download::<f32>().is_err());
    b.poison().unwrap();
    assert!(b.download::<f32>().unwrap().iter().all(|v| v.is_nan()));
    let mut part = [0f32; 3];
    b.copy_from(&[1.0f32, 2.0, 3.0]).unwrap();
    b.copy_to(&mut part).unwrap();
    assert_eq!(part, [1.0, 2.0, 3.0]);
    let empty = dev.alloc(0).unwrap();
    assert_eq!(empty.device_ptr(), 0);
    assert!(empty.download::<u8>().unwrap().is_empty());

    // Modules: JIT errors carry the log; unknown entries are a metadata error.
    let e = Module::load_ptx(&dev, "// MOCK_JIT_ERROR\n").unwrap_err();
    match &e {
        RuntimeError::ModuleLoad { log, .. } => assert!(log.contains("syntax error"), "{e}"),
        other => panic!("expected ModuleLoad, got {other}"),
    }
    assert!(e.to_string().contains("CUDA_ERROR_INVALID_PTX"), "{e}");
    let module = Module::load_ptx(&dev, FILL_PTX).unwrap();
    let e = Kernel::new(&module, KernelMetadata::new("nope_kernel", 4)).unwrap_err();
    assert!(
        e.to_string().contains("no kernel named `nope_kernel`"),
        "{e}"
    );

    // Launch: every scalar type arrives intact, in order, with 32 * num_warps threads.
    let k = Kernel::new(&module, fill_md()).unwrap();
    assert_eq!(k.attributes().num_regs, 40);
    let n = 100usize;
    let out = dev.alloc_elems::<f32>(n).unwrap();
    out.poison().unwrap();
    let stream = dev.create_stream().unwrap();
    let args = [
        KernelArg::Buffer(&out),
        KernelArg::I32(n as i32),
        KernelArg::F32(2.5),
        KernelArg::I1(true),
        KernelArg::I64(1 << 40),
        KernelArg::F64(-0.125),
    ];
    k.launch(&stream, (3, 2, 1), &args).unwrap();
    stream.synchronize().unwrap();
    let got = out.download::<f32>().unwrap();
    assert!(got[..n - 2].iter().all(|&v| v == 3.5), "{got:?}");
    assert_eq!(got[n - 2], (1u64 << 40) as f32);
    assert_eq!(got[n - 1], -0.125);

    // Signature errors name the argument.
    let mut bad = args;
    bad[2] = KernelArg::I32(1);
    let e = k.launch(&stream, (1, 1, 1), &bad).unwrap_err().to_string();
    assert!(
        e.contains("argument 2 (`value`)") && e.contains("expects f32, got i32"),
        "{e}"
    );
    let f16buf = dev.alloc_elems::<u16>(4).unwrap();
    let mut bad = args;
    bad[0] = KernelArg::Buffer(&f16buf);
    let e = k.launch(&stream, (1, 1, 1), &bad).unwrap_err().to_string();
    assert!(e.contains("expects *f32, got a buffer of f16"), "{e}");
    let e = k
        .launch(&stream, (1, 1, 1), &args[..5])
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes 6 arguments"), "{e}");
    let e = k.launch(&stream, (0, 1, 1), &args).unwrap_err();
    assert!(matches!(e, RuntimeError::InvalidArgument(_)), "{e}");

    // More than 48 KiB of dynamic shared memory is opted in (the mock refuses otherwise), with
    // the largest carveout preferred; more than the device allows is refused up front.
    let mut md = fill_md();
    md.shared = 147456;
    let ks = Kernel::new(&module, md.clone()).unwrap();
    ks.launch(&dev.default_stream(), (1, 1, 1), &args).unwrap();
    md.shared = 300_000;
    let e = Kernel::new(&module, md).unwrap_err().to_string();
    assert!(e.contains("at most 232448"), "{e}");

    // Timing with L2 flushes.
    let flush = L2Flush::with_bytes(&dev, 1 << 20).unwrap();
    let times = stream
        .time_launches(|s| k.launch(s, (1, 1, 1), &args), 2, 7, Some(&flush))
        .unwrap();
    assert_eq!(times.len(), 7);
    assert!(times.iter().all(|t| t.is_finite() && *t >= 0.0));
    assert!(median(&times).is_some());

    // Programmatic dependent and cooperative launches go through cuLaunchKernelEx with their
    // attributes.
    for flags in [
        LaunchFlags {
            programmatic_dependent: true,
            cooperative: false,
        },
        LaunchFlags {
            programmatic_dependent: false,
            cooperative: true,
        },
    ] {
        out.poison().unwrap();
        k.launch_with(&stream, (3, 2, 1), &args, None, flags)
            .unwrap();
        stream.synchronize().unwrap();
        let got = out.download::<f32>().unwrap();
        assert!(got[..n - 2].iter().all(|&v| v == 3.5), "{got:?}");
    }

    // A kernel with virtual programs gets the requested count after its arguments; along axis 0
    // only as many programs start as the GPU holds (132 SMs, two an SM at this shared memory in
    // the mock), each running every launched-count-th virtual program; 2-D grids keep their size.
    let module = Module::load_ptx(&dev, PERSISTENT_PTX).unwrap();
    let mut md = KernelMetadata::from_json(
        r#"{"name":"persistent_kernel","num_warps":4,"signature":["*i32","i32"],
            "virtual_programs":true}"#,
    )
    .unwrap();
    for (shared, grid, launched) in [
        (0, (1000, 1, 1), "264,1,1"),
        (0, (5, 1, 1), "5,1,1"),
        (0, (300, 2, 1), "300,2,1"),
        (147456, (1000, 1, 1), "132,1,1"),
    ] {
        md.shared = shared;
        let k = Kernel::new(&module, md.clone()).unwrap();
        let count = dev.upload(&vec![0i32; (grid.0 * grid.1) as usize]).unwrap();
        k.launch(
            &stream,
            grid,
            &[KernelArg::Buffer(&count), KernelArg::I32(3)],
        )
        .unwrap();
        stream.synchronize().unwrap();
        let got = count.download::<i32>().unwrap();
        assert!(got.iter().all(|&c| c == 1), "{grid:?}: {got:?}");
        let launches = std::fs::read_to_string(&log).unwrap();
        let line = format!("persistent_kernel grid={launched} block=128,1,1 shared={shared}");
        assert!(launches.contains(&line), "{line} not in {launches}");
    }

    let launches = std::fs::read_to_string(&log).unwrap();
    let first = launches.lines().next().unwrap();
    assert_eq!(first, "fill_kernel grid=3,2,1 block=256,1,1 shared=0");
    assert!(launches.contains("fill_kernel pdl"), "{launches}");
    assert!(launches.contains("fill_kernel cooperative"), "{launches}");
    assert!(
        launches.contains("shared=147456 prefer_shared"),
        "{launches}"
    );
    let _ = std::fs::remove_file(&log);
}

/// TMA descriptors the launcher makes (`host_descriptors`): encoded at each launch from the
/// arguments named in the metadata (extents and strides innermost first, strides in bytes, the
/// box and swizzle as recorded, zero fill), passed after the requested program count; an empty
/// tensor gets a one-element descriptor of zeros; bad metadata and negative extents are errors.
#[test]
fn host_descriptors_against_mock_driver() {
    if !in_child("host_descriptors_against_mock_driver", &[]) {
        return;
    }
    let dev = Device::new(0).unwrap();
    let module = Module::load_ptx(&dev, &ptx_for("descriptor_probe_kernel", 7)).unwrap();
    let json = r#"{"name":"descriptor_probe_kernel","num_warps":4,
        "signature":["*i64","i32","i32","i32"],"virtual_programs":true,
        "host_descriptors":[
          {"base":0,"shape":[{"arg":1},{"arg":2}],"strides":[{"arg":3},{"value":1}],
           "swizzle":3,"elem_size":2,"elem_type":6,"block_size":[128,64]},
          {"base":0,"shape":[{"programs":0},{"arg":1}],
           "strides":[{"product":[{"arg":3},{"value":2}]},{"value":1}],
           "swizzle":1,"elem_size":2,"elem_type":10,"block_size":[16,16]}]}"#;
    let md = KernelMetadata::from_json(json).unwrap();
    let k = Kernel::new(&module, md.clone()).unwrap();
    let out = dev.upload(&vec![0i64; 33]).unwrap();
    let base = out.device_ptr();
    let stream = dev.create_stream().unwrap();
    let launch = |m: i32, kk: i32, stride: i32| {
        k.launch(
            &stream,
            (7, 1, 1),
            &[
                KernelArg::Buffer(&out),
                KernelArg::I32(m),
                KernelArg::I32(kk),
                KernelArg::I32(stride),
            ],
        )
    };
    launch(1000, 200, 208).unwrap();
    stream.synchronize().unwrap();
    let got = out.download::<i64>().unwrap();
    assert_eq!(got[0], 7, "the requested program count");
    // f16 (driver type 6), 128-byte swizzle (3), L2 promotion 128 B (2), zero fill; [K, M].
    let first = &got[1..17];
    assert_eq!(first[..6], [base as i64, 2, 6, 3, 2, 0]);
    assert_eq!(first[6..8], [200, 1000]);
    assert_eq!(first[11], 208 * 2);
    // bf16: PTX's code 10 is the driver's 9; [M, the programs asked for along x] (7, however
    // many the persistent launch starts).
    let second = &got[17..33];
    assert_eq!(second[..4], [base as i64, 2, 9, 1]);
    assert_eq!(second[6..8], [1000, 7]);
    // Its row stride, the product of argument 3 and 2, in bytes.
    assert_eq!(second[11], 208 * 2 * 2);
    // An empty tensor (K = 0): one element of zeros elsewhere, 16-byte rows.
    launch(1000, 0, 208).unwrap();
    stream.synchronize().unwrap();
    let got = out.download::<i64>().unwrap();
    assert_ne!(got[1], base as i64);
    assert_eq!(got[7..9], [1, 1]);
    assert_eq!(got[12], 16);
    assert_eq!(got[17], base as i64, "the other descriptor is not empty");
    let e = launch(-1, 200, 208).unwrap_err().to_string();
    assert!(e.contains("argument 1 is negative"), "{e}");
    // A product the kernel's 32 bits would have wrapped.
    let e = launch(1000, 200, 1 << 30).unwrap_err().to_string();
    assert!(e.contains("leaves the 32 bits"), "{e}");
    // Metadata naming a non-pointer base or a non-integer extent is refused at load.
    let mut bad = md.clone();
    bad.host_descriptors[0].base = 1;
    let e = Kernel::new(&module, bad).unwrap_err().to_string();
    assert!(e.contains("is not a pointer parameter"), "{e}");
    let mut bad = md.clone();
    bad.host_descriptors[1].shape[1] = tritium_runtime::DescriptorValue::Arg(0);
    let e = Kernel::new(&module, bad).unwrap_err().to_string();
    assert!(e.contains("argument 0 is not an integer parameter"), "{e}");
    // A program count along no grid axis, or as a stride, is refused too.
    let mut bad = md.clone();
    bad.host_descriptors[1].shape[0] = tritium_runtime::DescriptorValue::Programs(3);
    let e = Kernel::new(&module, bad).unwrap_err().to_string();
    assert!(e.contains("grid axis 3"), "{e}");
    let mut bad = md;
    bad.host_descriptors[0].strides[0] = tritium_runtime::DescriptorValue::Programs(1);
    let e = Kernel::new(&module, bad).unwrap_err().to_string();
    assert!(e.contains("a stride is a program count"), "{e}");
}

/// `Kernel::from_ptx` builds a kernel a second time where registers keep fewer of its blocks on
/// an SM than its shared memory allows (the mock's sm_90 occupancy), and keeps that build only
/// when it holds more blocks without spilling more; it does not try past a sixth of the
/// registers, where shared memory is not what binds, or when switched off. A launch runs the
/// second build only where its grid fills the fuller SMs' waves well enough.
#[test]
fn occupancy_retry_against_mock_driver() {
    let log = std::env::temp_dir().join(format!("tritium-mock-occ-{}", std::process::id()));
    let log_s = log.to_string_lossy().into_owned();
    if !in_child(
        "occupancy_retry_against_mock_driver",
        &[("MOCK_CUDA_LOG", &log_s)],
    ) {
        let _ = std::fs::remove_file(&log);
        return;
    }
    let log = PathBuf::from(std::env::var("MOCK_CUDA_LOG").unwrap());
    let _ = std::fs::remove_file(&log);
    let dev = Device::new(0).unwrap();
    let limits = dev.sm_limits();
    assert_eq!(limits.blocks_without_registers(128, 57344), Some(4));
    assert_eq!(limits.blocks_without_registers(128, 0), Some(16));
    let md = |shared| {
        let mut md = KernelMetadata::new("attn_kernel", 4);
        md.shared = shared;
        md
    };
    let ptx = |marks: &str| format!("// {marks}\n{}", ptx_for("attn_kernel", 1));
    // (first build's registers, blocks an SM; the second's registers, local bytes, hint)
    let built = |marks: &str, shared| {
        let k = Kernel::from_ptx(&dev, &ptx(marks), md(shared)).unwrap();
        let second = k.occupancy_build();
        (
            k.attributes().num_regs,
            k.blocks_per_sm().unwrap(),
            second.map(|a| (a.num_regs, a.local_bytes, a.occupancy_hint)),
        )
    };
    // 149 registers hold three blocks where 56 KiB of shared memory allows four.
    let module = Module::load_ptx(&dev, &ptx("MOCK_REGS 149 MOCK_HINTED_REGS 128")).unwrap();
    assert_eq!(
        Kernel::new(&module, md(57344))
            .unwrap()
            .blocks_per_sm()
            .unwrap(),
        3
    );
    assert_eq!(
        built("MOCK_REGS 149 MOCK_HINTED_REGS 128", 57344),
        (149, 3, Some((128, 0, Some(4))))
    );
    // The second build spills: only the first is kept.
    assert_eq!(
        built(
            "MOCK_REGS 149 MOCK_HINTED_REGS 128 MOCK_HINTED_LOCAL 64",
            57344
        ),
        (149, 3, None)
    );
    // Four blocks would cost 200 registers more than a sixth: no second build.
    assert_eq!(
        built("MOCK_REGS 200 MOCK_HINTED_REGS 128", 57344),
        (200, 2, None)
    );
    // Without shared memory, threads bind before it: no second build.
    assert_eq!(built("MOCK_REGS 40 MOCK_HINTED_REGS 32", 0), (40, 12, None));
    // Registers already allow what shared memory does.
    assert_eq!(
        built("MOCK_REGS 120 MOCK_HINTED_REGS 96", 57344),
        (120, 4, None)
    );

    // Which build each grid runs on the mock's 132 SMs (3 blocks an SM, or 4).
    let k = Kernel::from_ptx(&dev, &ptx("MOCK_REGS 149 MOCK_HINTED_REGS 128"), md(57344)).unwrap();
    let stream = dev.create_stream().unwrap();
    let out = dev.alloc(64).unwrap();
    for (grid, regs) in [
        // Many waves: the fuller SMs win (21 waves of 396 against 16 of 528).
        ((64, 128, 1), 128),
        // 1024 programs: 3 waves of 396 against 2 of 528.
        ((1024, 1, 1), 128),
        // 600 programs: two waves either way, the fuller SMs' second one emptier: the first.
        ((600, 1, 1), 149),
        // One program an SM (a persistent grid): never the second.
        ((132, 1, 1), 149),
    ] {
        k.launch(&stream, grid, &[KernelArg::Buffer(&out)]).unwrap();
        assert_eq!(k.attributes_for_grid(grid).num_regs, regs, "{grid:?}");
        let launches = std::fs::read_to_string(&log).unwrap();
        let last = launches.lines().last().unwrap();
        let want = format!(
            "attn_kernel grid={},{},{} block=128,1,1 shared=57344 prefer_shared regs={regs}",
            grid.0, grid.1, grid.2
        );
        assert_eq!(last, want);
    }
    stream.synchronize().unwrap();
}

#[test]
fn occupancy_retry_off_against_mock_driver() {
    if !in_child(
        "occupancy_retry_off_against_mock_driver",
        &[("TRITIUM_OCCUPANCY_RETRY", "0")],
    ) {
        return;
    }
    let dev = Device::new(0).unwrap();
    let mut md = KernelMetadata::new("attn_kernel", 4);
    md.shared = 57344;
    let ptx = format!(
        "// MOCK_REGS 149 MOCK_HINTED_REGS 128\n{}",
        ptx_for("attn_kernel", 1)
    );
    let k = Kernel::from_ptx(&dev, &ptx, md).unwrap();
    assert_eq!(k.attributes().num_regs, 149);
    assert!(k.occupancy_build().is_none());
    assert_eq!(k.attributes_for_grid((8192, 1, 1)).num_regs, 149);
}

#[test]
fn no_device_from_mock_driver() {
    if !in_child(
        "no_device_from_mock_driver",
        &[("MOCK_CUDA_NO_DEVICE", "1")],
    ) {
        return;
    }
    let e = driver_version().unwrap_err();
    assert!(matches!(e, RuntimeError::NoDevice(_)), "{e}");
    assert!(e.to_string().contains("CUDA_ERROR_NO_DEVICE"), "{e}");
    let e = Device::new(0).unwrap_err();
    assert!(e.is_unavailable(), "{e}");
}

// ------------------------------------------------------------------ tritium-gpu-check

fn ptx_for(entry: &str, params: usize) -> String {
    let ps: Vec<String> = (0..params)
        .map(|i| format!("\t.param .u64 {entry}_param_{i}"))
        .collect();
    format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry {entry}(\n{}\n)\n{{\n\tret;\n}}\n",
        ps.join(",\n")
    )
}

/// A kernel directory like the compiler writes: all four kernels, `add` in Triton's form (two
/// trailing scratch parameters, Triton's JSON without a signature).
fn kernel_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tritium-mock-kernels-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let kernels = [
        (
            "add",
            "add_kernel",
            4,
            2,
            r#"{"name": "add_kernel", "num_warps": 4, "shared": 0}"#,
        ),
        (
            "softmax",
            "softmax_kernel",
            8,
            0,
            r#"{"name":"softmax_kernel","num_warps":8,"shared":32,"arch":"sm_90a",
               "signature":["*f32","*f32","i32","i32","i32"]}"#,
        ),
        (
            "rmsnorm",
            "rmsnorm_kernel",
            8,
            0,
            r#"{"name":"rmsnorm_kernel","num_warps":8,"shared":32,"arch":"sm_90a",
               "signature":["*f32","*f32","*f32","i32","i32","f32"],
               "arg_names":["X","Y","W","stride","N","eps"]}"#,
        ),
        (
            "matmul",
            "matmul_kernel",
            8,
            0,
            r#"{"name":"matmul_kernel","num_warps":8,"shared":147456,"arch":"sm_90a",
               "signature":["*f16","*f16","*f16","i32","i32","i32","i32","i32","i32"]}"#,
        ),
    ];
    for (k, entry, _, extra, json) in kernels {
        let params = match k {
            "add" => 4,
            "softmax" => 5,
            "rmsnorm" => 6,
            _ => 9,
        };
        std::fs::write(d.join(format!("{k}.ptx")), ptx_for(entry, params + extra)).unwrap();
        std::fs::write(d.join(format!("{k}.json")), json).unwrap();
    }
    d
}

fn gpu_check(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Option<Output> {
    let mock = mock_dir()?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tritium-gpu-check"));
    cmd.arg(dir).args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    with_mock(&mut cmd, mock);
    Some(cmd.output().unwrap())
}

#[test]
fn gpu_check_passes_correct_kernels_and_fails_wrong_ones() {
    let dir = kernel_dir("pass");
    let log = dir.join("launches.log");
    let log_s = log.to_string_lossy().into_owned();
    let Some(out) = gpu_check(
        &dir,
        &["--matmul-size", "512", "--seed", "7"],
        &[("MOCK_CUDA_LOG", &log_s)],
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("device 0: Mock GPU (sm_90, 132 SMs, driver 13.0), seed 7"));
    for (line, k) in lines[1..5]
        .iter()
        .zip(["add", "softmax", "rmsnorm", "matmul"])
    {
        assert!(line.starts_with(&format!("PASS {k} ")), "{stdout}");
    }
    assert!(lines[1].contains("(+2 trailing null params)"), "{stdout}");
    assert_eq!(lines[5], "4 passed, 0 failed, 0 skipped");
    assert_eq!(lines.len(), 6, "{stdout}");
    // Launch configurations of the benchmark table (matmul at 512^3: 4 x 2 tiles).
    let launches = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        launches.lines().collect::<Vec<_>>(),
        [
            "add_kernel grid=65536,1,1 block=128,1,1 shared=0",
            "softmax_kernel grid=8192,1,1 block=256,1,1 shared=32",
            "rmsnorm_kernel grid=8192,1,1 block=256,1,1 shared=32",
            "matmul_kernel grid=8,1,1 block=256,1,1 shared=147456 prefer_shared",
        ]
    );

    // One unwritten element (left as NaN poison) fails that kernel only, exit code 1.
    for k in ["softmax", "matmul"] {
        let out = gpu_check(
            &dir,
            &["--matmul-size", "256", "--only", &format!("{k},rmsnorm")],
            &[("MOCK_CUDA_BUG", k)],
        )
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
        assert!(stdout.contains("PASS rmsnorm "), "{stdout}");
        let fail = stdout
            .lines()
            .find(|l| l.starts_with(&format!("FAIL {k} ")))
            .unwrap_or_else(|| panic!("no FAIL line for {k}: {stdout}"));
        assert!(fail.contains("1 of") && fail.contains("(1 NaN)"), "{fail}");
        assert!(
            stdout.ends_with("1 passed, 1 failed, 0 skipped\n"),
            "{stdout}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gpu_check_bench_and_bad_kernels() {
    let dir = kernel_dir("bench");
    let Some(out) = gpu_check(
        &dir,
        &[
            "--bench",
            "--reps",
            "3",
            "--warmup",
            "1",
            "--only",
            "rmsnorm,matmul",
            "--matmul-size",
            "256",
        ],
        &[],
    ) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stdout.contains("timing: median of 3 runs after 1 warmup, L2 flushed"),
        "{stdout}"
    );
    let rms = stdout
        .lines()
        .find(|l| l.starts_with("PASS rmsnorm"))
        .unwrap();
    assert!(rms.contains("| median ") && rms.ends_with(" GB/s"), "{rms}");
    let mm = stdout
        .lines()
        .find(|l| l.starts_with("PASS matmul"))
        .unwrap();
    assert!(mm.ends_with(" TFLOP/s"), "{mm}");

    // Broken inputs fail with a reason, and the run goes on.
    std::fs::write(
        dir.join("softmax.ptx"),
        "// MOCK_JIT_ERROR\n.entry softmax_kernel(\n.param .u64 a\n)",
    )
    .unwrap();
    std::fs::write(dir.join("rmsnorm.ptx"), ptx_for("rmsnorm_kernel", 5)).unwrap();
    std::fs::write(
        dir.join("matmul.json"),
        r#"{"name":"matmul_kernel","num_warps":8,"shared":147456,"signature":["*f32","*f16","*f16","i32","i32","i32","i32","i32","i32"]}"#,
    )
    .unwrap();
    std::fs::remove_file(dir.join("add.json")).unwrap();
    let out = gpu_check(&dir, &["--matmul-size", "256"], &[]).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let line = |k: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("FAIL {k} ")))
            .unwrap_or_else(|| panic!("no FAIL {k}: {stdout}"))
            .to_string()
    };
    assert!(line("add").contains("add.json"), "{stdout}");
    assert!(
        line("softmax").contains("declares 1 parameters"),
        "{stdout}"
    );
    assert!(
        line("rmsnorm").contains("declares 5 parameters"),
        "{stdout}"
    );
    assert!(
        line("matmul")
            .contains("argument 0: kernel `matmul_kernel` expects *f32, got a buffer of f16"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("0 passed, 4 failed, 0 skipped\n"),
        "{stdout}"
    );

    // A JIT failure shows the log.
    std::fs::write(
        dir.join("softmax.ptx"),
        format!("// MOCK_JIT_ERROR\n{}", ptx_for("softmax_kernel", 5)),
    )
    .unwrap();
    let out = gpu_check(&dir, &["--only", "softmax"], &[]).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.contains("FAIL softmax module load failed: CUDA_ERROR_INVALID_PTX"),
        "{stdout}"
    );
    assert!(stdout.contains("ptxas mock: syntax error"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gpu_check_skips_when_the_driver_sees_no_gpu() {
    let dir = kernel_dir("nogpu");
    let Some(out) = gpu_check(&dir, &["--bench"], &[("MOCK_CUDA_NO_DEVICE", "1")]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        stdout.starts_with("SKIP: add: no CUDA device: the CUDA driver found no GPU"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("0 passed, 0 failed, 4 skipped\n"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
