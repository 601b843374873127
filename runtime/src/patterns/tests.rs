//! Tests of the pattern suite that need no GPU: the cases match the TTIR files, the inputs are
//! fresh per seed and reproducible, the references agree with each other and with known values,
//! and the output check catches unwritten, clobbered and out-of-bounds elements.

use std::path::PathBuf;

use super::cases::{argmax_first, bf16_round, matmul_ref};
use super::*;

fn gpu_inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test/Inputs/gpu")
}

/// Splits at commas outside brackets.
fn split_top(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in s.chars() {
        match c {
            '(' | '<' | '{' | '[' => depth += 1,
            ')' | '>' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// `(function name, [(param name, type)])` of the `tt.func public` in a TTIR file.
fn ttir_signature(text: &str) -> (String, Vec<(String, ParamType)>) {
    let start = text.find("tt.func public @").expect("tt.func public") + "tt.func public @".len();
    let open = start + text[start..].find('(').unwrap();
    let name = text[start..open].trim().to_string();
    let mut depth = 0;
    let mut close = open;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let params = split_top(&text[open + 1..close])
        .into_iter()
        .map(|p| {
            let p = p.trim();
            let (n, rest) = p.split_once(':').expect("name: type");
            let ty = rest
                .split(" {")
                .next()
                .unwrap()
                .split(" loc(")
                .next()
                .unwrap()
                .trim();
            let pt = if let Some(e) = ty
                .strip_prefix("!tt.ptr<")
                .and_then(|e| e.strip_suffix('>'))
            {
                ParamType::Ptr(Some(ElemType::parse(e)))
            } else if ty.starts_with("!tt.tensordesc<") {
                ParamType::TensorDesc
            } else {
                ty.parse().unwrap_or_else(|e| panic!("{ty}: {e}"))
            };
            (n.trim().trim_start_matches('%').to_string(), pt)
        })
        .collect();
    (name, params)
}

#[test]
fn every_ttir_file_has_a_case_with_its_exact_signature() {
    let mut files: Vec<String> = std::fs::read_dir(gpu_inputs())
        .expect("test/Inputs/gpu")
        .filter_map(|e| {
            let p = e.ok()?.path();
            matches!(p.extension()?.to_str()?, "ttir" | "ttgir")
                .then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    files.sort();
    let mut names: Vec<String> = patterns().iter().map(|p| p.name.to_string()).collect();
    names.sort();
    assert_eq!(
        files, names,
        "test/Inputs/gpu/*.ttir and *.ttgir vs the pattern list"
    );
    for p in patterns() {
        let input = |ext: &str| gpu_inputs().join(format!("{}.{ext}", p.name));
        let path = if input("ttir").exists() {
            input("ttir")
        } else {
            input("ttgir")
        };
        let text = std::fs::read_to_string(path).unwrap();
        let (func, params) = ttir_signature(&text);
        assert_eq!(func, p.name, "entry name of {}.ttir", p.name);
        let case = (p.build)(&mut Rng::new(3));
        let have: Vec<(String, ParamType)> = case
            .args
            .iter()
            .map(|(n, a)| (n.to_string(), a.param_type()))
            .collect();
        assert_eq!(params, have, "parameters of {}", p.name);
    }
}

#[test]
fn cases_are_valid_reproducible_and_fresh_per_seed() {
    for p in patterns() {
        let a = (p.build)(&mut pattern_rng(1, p.name));
        a.validate().unwrap_or_else(|e| panic!("{}: {e}", p.name));
        // (Compared as text: inputs and references may hold NaN, which `==` never matches.)
        let again = (p.build)(&mut pattern_rng(1, p.name));
        assert_eq!(format!("{a:?}"), format!("{again:?}"), "{}", p.name);
        let b = (p.build)(&mut pattern_rng(2, p.name));
        assert_ne!(a, b, "{}: same case for two seeds", p.name);
        assert!(a.grid.0 >= 1 && a.grid.1 >= 1 && a.grid.2 >= 1);
        assert!(!a.note.is_empty());
    }
    assert!(find("ew_f32").is_some() && find("add").is_none());
}

fn out_of<'a>(c: &'a Case, name: &str) -> &'a Output {
    match &c.args.iter().find(|(n, _)| *n == name).unwrap().1 {
        Arg::Out(o) => o,
        _ => panic!("{name} is not an output"),
    }
}

fn in_of<'a>(c: &'a Case, name: &str) -> &'a Data {
    match &c.args.iter().find(|(n, _)| *n == name).unwrap().1 {
        Arg::In(d) => d,
        _ => panic!("{name} is not an input"),
    }
}

fn exact<'a>(c: &'a Case, name: &str) -> &'a Data {
    match &out_of(c, name).want {
        Want::Exact(d) => d,
        _ => panic!("{name} is not exact"),
    }
}

fn f32v(d: &Data) -> &[f32] {
    match d {
        Data::F32(v) => v,
        _ => panic!("not f32"),
    }
}

fn i32v(d: &Data) -> &[i32] {
    match d {
        Data::I32(v) => v,
        _ => panic!("not i32"),
    }
}

#[test]
fn references_agree_with_each_other() {
    let mut r = Rng::new(17);
    // reduce_1d: the argmax value is the max, at the index it names.
    let c = (find("reduce_1d").unwrap().build)(&mut r);
    let x = f32v(in_of(&c, "x"));
    let (mx, av, ai) = (
        f32v(exact(&c, "o_max")),
        f32v(exact(&c, "o_amax_v")),
        i32v(exact(&c, "o_amax_i")),
    );
    assert_eq!(mx, av);
    for (b, &i) in ai.iter().enumerate() {
        assert_eq!(x[i as usize], mx[b]);
        assert_eq!(i as usize / 1024, b);
        assert!(
            x[b * 1024..i as usize].iter().all(|&v| v < mx[b]),
            "first max"
        );
    }
    // scan: block totals agree between the forward and reversed sums.
    let c = (find("scan").unwrap().build)(&mut r);
    let (cs, rs) = (f32v(exact(&c, "o_cumsum")), f32v(exact(&c, "o_rcumsum")));
    for start in (0..cs.len()).step_by(1024) {
        let end = (start + 1024).min(cs.len());
        assert_eq!(cs[end - 1], rs[start]);
    }
    // reduce_2d: the column sums and the row sums have the same total.
    let c = (find("reduce_2d").unwrap().build)(&mut r);
    let total = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>();
    assert_eq!(
        total(f32v(exact(&c, "o_sum0"))),
        total(f32v(exact(&c, "o_sum1")))
    );
    assert!(f32v(exact(&c, "o_ctr")).iter().all(|&v| v <= 0.0));
    // for_accum: the partial sums add up to the totals.
    let c = (find("for_accum").unwrap().build)(&mut r);
    let (out, outv) = (f32v(exact(&c, "out")), f32v(exact(&c, "outv")));
    for (row, &t) in out.iter().enumerate() {
        assert_eq!(outv[row * 128..(row + 1) * 128].iter().sum::<f32>(), t);
    }
    // store_mask: kept elements are exactly those the kernel must not store.
    let c = (find("store_mask").unwrap().build)(&mut r);
    let x = f32v(in_of(&c, "x"));
    let keep = out_of(&c, "outp").keep.as_ref().unwrap();
    assert_eq!(
        keep.iter().filter(|&&k| !k).count(),
        x.iter().filter(|&&v| v > 0.0).count()
    );
}

#[test]
fn reference_spot_values() {
    assert_eq!(argmax_first(&[1.0, 3.0, 2.0, 3.0]), 1);
    assert_eq!(argmax_first(&[f32::NEG_INFINITY, -5.0]), 1);
    let eye = [1.0, 0.0, 0.0, 1.0];
    let b = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(matmul_ref(&eye, &b, None, 2, 2, 2), b.to_vec());
    assert_eq!(
        matmul_ref(&b, &b, Some(&[1.0; 4]), 2, 2, 2),
        vec![8.0, 11.0, 16.0, 23.0]
    );
    // remsi/divsi truncate toward zero, shrsi is arithmetic: the semantics the i32 cases use.
    assert_eq!((-7i32 / 2, -7i32 % 2, -8i32 >> 1), (-3, -1, -4));
    // bf16: keep the top 16 bits, round to nearest, ties to even.
    assert_eq!(bf16_round(1.0), 1.0);
    assert_eq!(bf16_round(f32::from_bits(0x3f80_8000)), 1.0); // tie, even stays
    assert_eq!(
        bf16_round(f32::from_bits(0x3f81_8000)).to_bits(),
        0x3f82_0000
    ); // tie, odd up
    assert_eq!(
        bf16_round(f32::from_bits(0x3f80_8001)).to_bits(),
        0x3f81_0000
    );
    assert_eq!(bf16_round(-3.0), -3.0);
    assert_eq!(ulp_f32(1.0), 2f64.powi(-23));
    assert_eq!(ulp_f32(1.5), 2f64.powi(-23));
    assert_eq!(ulp_f32(-3.0), 2f64.powi(-22));
    assert_eq!(ulp_f32(0.0), 2f64.powi(-149));
}

#[test]
fn fp8_codec_is_exact_and_rounds_to_nearest_even() {
    for e5 in [false, true] {
        for b in 0..=255u8 {
            let v = fp8_decode(b, e5);
            if !v.is_finite() {
                continue; // NaN; e5m2 infinities saturate (checked below)
            }
            if v == 0.0 {
                assert_eq!(fp8_encode(v, e5) & 0x7f, 0);
                continue;
            }
            assert_eq!(fp8_encode(v, e5), b, "roundtrip {b:#04x} e5m2={e5}");
        }
        // Midpoints between neighbours go to the even code; just off them, to the nearer.
        for b in 0..0x7au8 {
            let (lo, hi) = (fp8_decode(b, e5), fp8_decode(b + 1, e5));
            let mid = (lo + hi) / 2.0;
            let even = if b % 2 == 0 { b } else { b + 1 };
            assert_eq!(fp8_encode(mid, e5), even, "mid {b:#04x} e5m2={e5}");
            assert_eq!(fp8_encode(-mid, e5), even | 0x80);
            assert_eq!(fp8_encode(f32::from_bits(mid.to_bits() + 1), e5), b + 1);
            assert_eq!(fp8_encode(f32::from_bits(mid.to_bits() - 1), e5), b);
        }
    }
    // Known codes.
    assert_eq!(fp8_encode(1.0, false), 0x38);
    assert_eq!(fp8_encode(448.0, false), 0x7e);
    assert_eq!(fp8_encode(1e6, false), 0x7e); // saturates
    assert_eq!(fp8_encode(-1e6, false), 0xfe);
    assert_eq!(fp8_encode(2f32.powi(-9), false), 0x01); // smallest subnormal
    assert_eq!(fp8_encode(2f32.powi(-10), false), 0x00); // tie with zero: even
    assert_eq!(fp8_encode(1.0, true), 0x3c);
    assert_eq!(fp8_encode(57344.0, true), 0x7b);
    assert_eq!(fp8_encode(1e9, true), 0x7b);
    assert_eq!(fp8_encode(2f32.powi(-16), true), 0x01);
    assert_eq!(fp8_decode(0x7c, true), f32::INFINITY);
    assert_eq!(fp8_encode(f32::NEG_INFINITY, true), 0xfb);
    assert!(fp8_decode(0x7f, false).is_nan() && fp8_decode(0xff, false).is_nan());
    assert!(fp8_decode(0x7d, true).is_nan());
    assert_eq!(fp8_decode(0x7e, false), 448.0);
}

fn md(names: &[&str], sig: &[&str]) -> KernelMetadata {
    let mut m = KernelMetadata::new("k", 4);
    m.arg_names = names.iter().map(|s| s.to_string()).collect();
    m.signature = sig.iter().map(|s| s.parse().unwrap()).collect();
    m
}

#[test]
fn arguments_are_ordered_by_name_and_type_checked() {
    let case = Case {
        grid: (1, 1, 1),
        args: vec![
            ("x", Arg::In(Data::F32(vec![1.0]))),
            ("out", Arg::Out(Output::exact(Data::I32(vec![1])))),
            ("n", Arg::I32(1)),
        ],
        note: "t".into(),
    };
    assert_eq!(
        launch_order(&case, &KernelMetadata::new("k", 4)),
        Ok(vec![0, 1, 2])
    );
    assert_eq!(
        launch_order(&case, &md(&["n", "x", "out"], &["i32", "*f32", "*i32"])),
        Ok(vec![2, 0, 1])
    );
    let e = launch_order(&case, &md(&["n", "x", "y"], &[])).unwrap_err();
    assert!(e.contains("do not match"), "{e}");
    let e = launch_order(&case, &md(&["n", "x", "x"], &[])).unwrap_err();
    assert!(e.contains("do not match"), "{e}");
    let e = launch_order(&case, &md(&["x", "out"], &[])).unwrap_err();
    assert!(e.contains("do not match"), "{e}");
    let e = launch_order(&case, &md(&["x", "out", "n"], &["*f32", "*f32", "i32"])).unwrap_err();
    assert!(e.contains("parameter 1 (`out`) is *f32"), "{e}");
    let e = launch_order(&case, &md(&[], &["*f32", "*i32"])).unwrap_err();
    assert!(e.contains("signature has 2"), "{e}");
}

/// Device-side bytes of `data` followed by a poisoned guard zone.
fn device_bytes(data: &Data, poison: u8) -> Vec<u8> {
    let mut b = data.to_bytes();
    b.extend(std::iter::repeat_n(poison, GUARD_BYTES));
    b
}

#[test]
fn output_check_catches_unwritten_clobbered_and_overrun_elements() {
    let want = Data::I32(vec![5, -1, 7, 9]);
    let out = Output::exact(want.clone());
    let before = vec![0xFFu8; 16 + GUARD_BYTES];
    assert!(check_output(&out, &device_bytes(&want, 0xFF), &before).is_ok());
    // Element 1 expects -1 = the 0xFF poison: only the second (0x5A) launch can tell.
    let mut got = device_bytes(&Data::I32(vec![5, 0x5a5a_5a5a, 7, 9]), 0x5A);
    let e = check_output(&out, &got, &vec![0x5Au8; 16 + GUARD_BYTES]).unwrap_err();
    assert!(
        e.contains("1 of 4 elements wrong (1 unchanged by the launch)"),
        "{e}"
    );
    got[16] = 0; // a write past the end
    let e = check_output(&out, &got, &vec![0x5Au8; 16 + GUARD_BYTES]).unwrap_err();
    assert!(e.contains("1 bytes written past the end"), "{e}");
    // Kept elements must hold what was there before, whatever `want` says.
    let kept = out.clone().keeping(vec![false, false, true, false]);
    let got = device_bytes(&Data::I32(vec![5, -1, -1, 9]), 0xFF);
    assert!(check_output(&kept, &got, &before).is_ok());
    let got = device_bytes(&want, 0xFF);
    let e = check_output(&kept, &got, &before).unwrap_err();
    assert!(e.contains("1 elements written that must not be"), "{e}");
    // Floats compare as values: -0 == +0, NaN never.
    let out = Output::exact(Data::F32(vec![0.0, 1.0]));
    let before = vec![0u8; 8 + GUARD_BYTES];
    let got = device_bytes(&Data::F32(vec![-0.0, 1.0]), 0);
    assert!(check_output(&out, &got, &before).is_ok());
    let got = device_bytes(&Data::F32(vec![f32::NAN, 1.0]), 0);
    assert!(check_output(&out, &got, &before).is_err());
}

#[test]
fn approximate_outputs_use_ulps_or_atol() {
    let out = Output::approx(vec![1.0, 100.0, 1e-9], 2.0, 1e-7);
    let before = vec![0xFFu8; 12 + GUARD_BYTES];
    let ok = [
        f32::from_bits(1f32.to_bits() + 2),
        f32::from_bits(100f32.to_bits() - 2),
        5e-8,
    ];
    let s = check_output(&out, &device_bytes(&Data::F32(ok.to_vec()), 0xFF), &before).unwrap();
    assert!((s.max_ulps - 2.0).abs() < 1e-6, "{s:?}");
    let bad = [ok[0], f32::from_bits(100f32.to_bits() + 3), 5e-8];
    let e = check_output(&out, &device_bytes(&Data::F32(bad.to_vec()), 0xFF), &before).unwrap_err();
    assert!(
        e.contains("1 of 3 elements wrong") && e.contains("[1]"),
        "{e}"
    );
    let nan = [f32::from_bits(u32::MAX), 100.0, 0.0];
    let e = check_output(&out, &device_bytes(&Data::F32(nan.to_vec()), 0xFF), &before).unwrap_err();
    assert!(e.contains("unchanged by the launch"), "{e}");
}
