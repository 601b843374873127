//! Parses every encoding in the reference Triton 3.6 kernels
//! (`shared/kernels/**/*.ttgir`) and lowers every tensor and memdesc type
//! found there. Skipped (with a note) when the files are not present.

use std::path::PathBuf;

use crate::encoding::*;
use crate::heuristics::coalesced_blocked;
use crate::linear::*;
use crate::text::{parse_aliases, parse_encoding_with};

fn kernels_dir() -> Option<PathBuf> {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        here.join("../shared/kernels"),
        here.join("../../shared/kernels"),
        PathBuf::from("/work/shared/kernels"),
    ]
    .into_iter()
    .find(|p| p.join("add.ttgir").is_file())
}

fn read(name: &str) -> Option<String> {
    std::fs::read_to_string(kernels_dir()?.join(name)).ok()
}

/// Splits at top-level commas (outside `<>`, `{}`, `[]`, `()`).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '{' | '[' | '(' => depth += 1,
            '>' | '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// `(shape, encoding text)` of every `tensor<..>` / `memdesc<..>` type with
/// an encoding.
fn types_with_encodings(text: &str) -> Vec<(Vec<u32>, String)> {
    let mut out = vec![];
    for key in ["tensor<", "memdesc<"] {
        let mut rest = text;
        while let Some(p) = rest.find(key) {
            let body = &rest[p + key.len()..];
            let mut depth = 1;
            let mut end = 0;
            for (i, c) in body.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' if body[..i].ends_with('-') => {}
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let parts = split_top(&body[..end]);
            rest = &body[end..];
            if parts.len() < 2 || !parts[1].starts_with('#') {
                continue;
            }
            let shape: Vec<u32> = parts[0].split('x').map_while(|d| d.parse().ok()).collect();
            out.push((shape, parts[1].to_string()));
        }
    }
    out
}

fn module_int(text: &str, key: &str) -> u32 {
    let p = text.find(key).unwrap_or_else(|| panic!("no {key}"));
    let rest = &text[p + key.len()..];
    let rest = rest.trim_start_matches(['"', ' ', '=']);
    rest.split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn every_reference_encoding_lowers() {
    let Some(dir) = kernels_dir() else {
        eprintln!("note: shared/kernels not found; skipping");
        return;
    };
    let mut files = vec![];
    for d in [dir.clone(), dir.join("syntax")] {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "ttgir") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 10);
    let mut lowered = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let aliases = parse_aliases(&text).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        for (_, e) in &aliases {
            let printed = e.to_string();
            let lookup = |_: &str| None;
            assert_eq!(&parse_encoding_with(&printed, &lookup).unwrap(), e);
        }
        let lookup = |n: &str| aliases.iter().find(|(m, _)| m == n).map(|(_, e)| e.clone());
        let warps = module_int(&text, "ttg.num-warps");
        let lanes = module_int(&text, "ttg.threads-per-warp");
        for (shape, enc_text) in types_with_encodings(&text) {
            if enc_text == "#smem" {
                continue;
            }
            let enc = parse_encoding_with(&enc_text, &lookup)
                .unwrap_or_else(|e| panic!("{f:?}: {enc_text}: {e}"));
            if enc.is_shared() {
                let (n, l) = enc
                    .shared_buffers(&shape)
                    .unwrap_or_else(|e| panic!("{f:?}: {enc} {shape:?}: {e}"));
                assert!(l.is_bijective(), "{f:?}: {enc} {shape:?}");
                let dims: Vec<u32> = l.out_dims().iter().map(|d| d.1).collect();
                assert_eq!(
                    n * l.total_out_size(),
                    shape.iter().map(|&d| d as u64).product()
                );
                assert_eq!(dims, shape[shape.len() - dims.len()..]);
            } else {
                let l = enc
                    .to_linear(&shape)
                    .unwrap_or_else(|e| panic!("{f:?}: {enc} {shape:?}: {e}"));
                let dims: Vec<u32> = l.out_dims().iter().map(|d| d.1).collect();
                assert_eq!(dims, shape);
                assert!(l.is_surjective(), "{f:?}: {enc} {shape:?}");
                assert_eq!(l.in_dim_size(WARP), warps, "{f:?}: {enc}");
                assert_eq!(l.in_dim_size(LANE), lanes, "{f:?}: {enc}");
                let regs = enc.total_elems_per_thread(&shape).unwrap();
                assert_eq!(regs, l.in_dim_size(REGISTER));
            }
            lowered += 1;
        }
    }
    assert!(lowered > 100, "only {lowered} types lowered");
}

fn alias(text: &str, name: &str) -> Encoding {
    parse_aliases(text)
        .unwrap()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap()
        .1
}

#[test]
fn coalesced_reproduces_reference_kernels() {
    let Some(add) = read("add.ttgir") else {
        eprintln!("note: shared/kernels not found; skipping");
        return;
    };
    let expect = |shape: &[u32], order: &[u32], vec, warps| {
        Encoding::from(coalesced_blocked(shape, order, vec, warps, 32))
    };
    assert_eq!(alias(&add, "blocked"), expect(&[1024], &[0], 4, 4));
    let softmax = read("softmax.ttgir").unwrap();
    assert_eq!(alias(&softmax, "blocked"), expect(&[4096], &[0], 4, 8));
    let rmsnorm = read("rmsnorm.ttgir").unwrap();
    assert_eq!(alias(&rmsnorm, "blocked"), expect(&[4096], &[0], 4, 8));
    let matmul = read("matmul.ttgir").unwrap();
    assert_eq!(alias(&matmul, "blocked"), expect(&[64, 256], &[1, 0], 8, 8));
    assert_eq!(
        alias(&matmul, "blocked1"),
        expect(&[128, 64], &[1, 0], 8, 8)
    );
    assert_eq!(
        alias(&matmul, "mma"),
        Encoding::from(NvidiaMmaEncoding::v3(vec![8, 1], 256, 16))
    );
}
