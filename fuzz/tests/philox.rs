//! `tl.rand` as Triton computes it: the tutorial dropout kernel, built by the front end and run
//! in the interpreter, keeps exactly the elements whose Philox4x32-10 number (written here from
//! Triton's `philox_impl` and `uint_to_uniform_float`) exceeds `p`.

use tritium_fuzz::corpus::repo_root;
use tritium_interp::{Arg, Buffer, Launch};

/// Triton's `randint(seed, offset)`: the first word of Philox4x32 with 10 rounds on counter
/// `(offset, 0, 0, 0)` and key `(seed_lo, seed_hi)`.
fn philox(seed: u64, offset: u32) -> u32 {
    let (mut c0, mut c1, mut c2, mut c3) = (offset, 0u32, 0u32, 0u32);
    let (mut k0, mut k1) = (seed as u32, (seed >> 32) as u32);
    let umulhi = |a: u32, b: u32| ((u64::from(a) * u64::from(b)) >> 32) as u32;
    for _ in 0..10 {
        let (a, b) = (0xD251_1F53u32, 0xCD9E_8D57u32);
        let (old0, old2) = (c0, c2);
        c0 = umulhi(b, old2) ^ c1 ^ k0;
        c2 = umulhi(a, old0) ^ c3 ^ k1;
        c1 = b.wrapping_mul(old2);
        c3 = a.wrapping_mul(old0);
        k0 = k0.wrapping_add(0x9E37_79B9);
        k1 = k1.wrapping_add(0xBB67_AE85);
    }
    c0
}

/// Triton's `uint_to_uniform_float` for 32-bit words.
fn uniform(x: u32) -> f32 {
    let x = x as i32;
    let x = if x < 0 {
        x.wrapping_neg().wrapping_sub(1)
    } else {
        x
    };
    x as f32 * 4.656_612_7e-10
}

#[test]
fn dropout_keeps_what_philox_says() {
    let python =
        std::fs::read_to_string(repo_root().join("test/Inputs/frontend/tutorials.py")).unwrap();
    let (context, _sink) = tritium_interp::new_context_with_sink();
    let module = tritium_frontend::build(
        &context,
        &python,
        "tutorials.py",
        Some("dropout_kernel"),
        "*fp32:16, *fp32:16, i32, fp32, i32, 1024",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let n = 3000usize;
    let (p, seed) = (0.3f32, 1234i32);
    let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let args = vec![
        Arg::Buffer(Buffer {
            name: "x".into(),
            bytes: bytes(&x),
        }),
        Arg::Buffer(Buffer {
            name: "out".into(),
            bytes: vec![0xff; n * 4],
        }),
        Arg::Int(n as i64),
        Arg::Float(f64::from(p)),
        Arg::Int(i64::from(seed)),
    ];
    let outcome = tritium_interp::run_module(
        module.as_operation().to_raw(),
        None,
        Launch::new([n.div_ceil(1024) as u32, 1, 1], args),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let Arg::Buffer(out) = &outcome.args[1] else {
        panic!("no output buffer")
    };
    let mut kept = 0;
    for (i, (&xi, chunk)) in x.iter().zip(out.bytes.chunks_exact(4)).enumerate() {
        let got = f32::from_le_bytes(chunk.try_into().unwrap());
        let keep = uniform(philox(seed as u64, i as u32)) > p;
        let want = if keep { xi / (1.0 - p) } else { 0.0 };
        kept += usize::from(keep);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "element {i}: got {got}, want {want}"
        );
    }
    // About 70% kept: the random numbers are not degenerate.
    assert!((1800..2400).contains(&kept), "{kept} kept");
}
