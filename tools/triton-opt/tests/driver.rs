//! Snapshot and round-trip tests of the `triton-opt` driver, run against the built binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn triton_opt(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_triton-opt"))
        .args(args)
        .output()
        .expect("run triton-opt");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/Inputs/kernels")
}

/// Kernel files with the given extension, the syntax sampler included, sorted.
fn kernel_files(extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [kernels_dir(), kernels_dir().join("syntax")] {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.to_string_lossy().ends_with(extension) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The ops of a module as text, with SSA names erased (Triton reuses names across sibling regions
/// where MLIR's printer uniques them) and location information dropped: what must agree between
/// Triton's print and ours.
fn normalized_ops(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_end();
        if trimmed.starts_with("#loc") || trimmed.is_empty() {
            continue;
        }
        let without_loc = match trimmed.rfind(" loc(") {
            Some(i) if trimmed.ends_with(')') => &trimmed[..i],
            _ => trimmed,
        };
        let mut out = String::new();
        let mut chars = without_loc.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' {
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_alphanumeric() || n == '_' || n == '.' || n == '$' || n == '-' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                let _ = name;
                out.push_str("%_");
            } else {
                out.push(c);
            }
        }
        // Inline `loc(...)` of block arguments and function arguments.
        lines.push(strip_inline_locs(&out));
    }
    lines
}

fn strip_inline_locs(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(" loc(") {
        out.push_str(&rest[..i]);
        let mut depth = 0;
        let mut end = rest.len();
        for (j, c) in rest[i + 1..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1 + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

const PRINT_FLAGS: [&str; 2] = ["--mlir-print-debuginfo", "--mlir-use-nameloc-as-prefix"];

fn round_trip(path: &Path) {
    let name = path.display().to_string();
    let (ok, first, err) = triton_opt(&[&name, PRINT_FLAGS[0], PRINT_FLAGS[1]]);
    assert!(ok, "{name} does not parse/verify:\n{err}");
    let reparsed = std::env::temp_dir().join(format!(
        "tritium-roundtrip-{}-{}",
        std::process::id(),
        path.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&reparsed, &first).unwrap();
    let (ok, second, err) =
        triton_opt(&[reparsed.to_str().unwrap(), PRINT_FLAGS[0], PRINT_FLAGS[1]]);
    std::fs::remove_file(&reparsed).ok();
    assert!(ok, "{name}: our own print does not parse:\n{err}");
    assert_eq!(
        first, second,
        "{name}: print -> parse -> print is not a fixed point"
    );
    let original = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        normalized_ops(&first),
        normalized_ops(&original),
        "{name}: printed differently from Triton"
    );
}

#[test]
fn every_ttir_round_trips_as_triton_prints_it() {
    let files = kernel_files(".ttir");
    assert!(
        files.len() >= 15,
        "expected the shared kernels and the syntax sampler"
    );
    for file in files {
        round_trip(&file);
    }
}

#[test]
fn pass_list_snapshot() {
    let (ok, help, _) = triton_opt(&["--help"]);
    assert!(ok);
    let ours: Vec<&str> = help
        .lines()
        .filter(|line| {
            let flag = line.trim_start();
            flag.starts_with("--tritium")
                || flag.starts_with("--triton")
                || flag.starts_with("--tritongpu")
                || flag.starts_with("--convert-triton")
                || flag.starts_with("--test-tritium")
                || flag.starts_with("--test-print-alignment")
                || flag.starts_with("--allocate-shared")
        })
        .map(str::trim)
        .collect();
    insta::assert_snapshot!(ours.join("\n"));
}

#[test]
fn add_round_trip_snapshot() {
    let (ok, text, err) = triton_opt(&[kernels_dir().join("add.ttir").to_str().unwrap()]);
    assert!(ok, "{err}");
    insta::assert_snapshot!(text);
}

/// The TTGIR Tritium produces for the memory-bound kernels: Triton's layouts, no conversions.
#[test]
fn ttgir_of_memory_bound_kernels() {
    for (kernel, warps) in [("add", 4), ("softmax", 8), ("rmsnorm", 8)] {
        let path = kernels_dir().join(format!("{kernel}.ttir"));
        let ttgir = format!("--tritium-ttgir=num-warps={warps}");
        let (ok, text, err) = triton_opt(&[path.to_str().unwrap(), "--tritium-ttir", &ttgir]);
        assert!(ok, "{kernel}: {err}");
        assert!(
            !text.contains("ttg.convert_layout"),
            "{kernel}: unexpected layout conversion"
        );
        let triton =
            std::fs::read_to_string(kernels_dir().join(format!("{kernel}.ttgir"))).unwrap();
        let layouts = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| l.starts_with("#blocked"))
                .map(|l| l.split_once(" = ").unwrap().1.to_owned())
                .collect()
        };
        assert_eq!(
            layouts(&text),
            layouts(&triton),
            "{kernel}: layouts differ from Triton's"
        );
        insta::assert_snapshot!(format!("ttgir_{kernel}"), text);
    }
}

/// `--tritium-ttir` on every kernel's `.source.ttir` (Triton's input to make_ttir) gives the
/// multiset of op names of Triton's `.ttir`, except where docs/passes-ttir.md says why not.
#[test]
fn ttir_pipeline_matches_triton_op_counts() {
    use std::collections::BTreeMap;
    fn op_counts(text: &str) -> BTreeMap<String, i64> {
        let mut counts = BTreeMap::new();
        for line in text.lines() {
            let mut rest = line.trim();
            if rest.starts_with('%') {
                match rest.find(" = ") {
                    Some(i) => rest = &rest[i + 3..],
                    None => continue,
                }
            }
            let name: String = rest
                .trim_start_matches('"')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            if name.contains('.') && name.starts_with(|c: char| c.is_ascii_lowercase()) {
                *counts.entry(name).or_insert(0) += 1;
            }
        }
        counts
    }
    // (kernel, op, ours - Triton's): our `tt` canonicalizer folds `tt.split(tt.join(a, b))`,
    // Triton 3.6's does not.
    let known: &[(&str, &str, i64)] = &[("s_shapes", "tt.split", -1)];
    let sources = kernel_files(".source.ttir");
    assert!(
        sources.len() >= 15,
        "expected the shared kernels and the syntax sampler"
    );
    let mut failures = Vec::new();
    for source in sources {
        let name = source
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".source.ttir", "");
        let (ok, ours, err) = triton_opt(&[source.to_str().unwrap(), "--tritium-ttir"]);
        assert!(ok, "{name}: {err}");
        let expected =
            std::fs::read_to_string(source.with_file_name(format!("{name}.ttir"))).unwrap();
        let (ours, theirs) = (op_counts(&ours), op_counts(&expected));
        let mut difference: Vec<(String, i64)> = ours
            .keys()
            .chain(theirs.keys())
            .map(|op| {
                (
                    op.clone(),
                    ours.get(op).unwrap_or(&0) - theirs.get(op).unwrap_or(&0),
                )
            })
            .filter(|(_, delta)| *delta != 0)
            .collect();
        difference.sort();
        difference.dedup();
        let mut allowed: Vec<(String, i64)> = known
            .iter()
            .filter(|k| k.0 == name)
            .map(|k| (k.1.to_owned(), k.2))
            .collect();
        allowed.sort();
        if difference != allowed {
            failures.push(format!(
                "{name}: ours - Triton's = {difference:?}, documented: {allowed:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "op multisets differ:\n{}",
        failures.join("\n")
    );
}
