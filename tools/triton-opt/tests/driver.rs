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

/// Tritium's flags as `triton-opt --help` lists them.
fn tritium_help_lines(help: &str) -> Vec<&str> {
    help.lines()
        .map(str::trim)
        .filter(|flag| {
            flag.starts_with("--tritium")
                || flag.starts_with("--triton")
                || flag.starts_with("--tritongpu")
                || flag.starts_with("--convert-triton")
                || flag.starts_with("--test-tritium")
                || flag.starts_with("--test-print-alignment")
                || flag.starts_with("--allocate-shared")
        })
        .collect()
}

/// The registry (`tritium_lowering::registry`) is what `triton-opt` registers: every pass and
/// pipeline in `--help` with its summary, and nothing else of ours. The snapshot is the registry
/// itself: flags, the dialects each pass creates, options with defaults, summaries.
#[test]
fn pass_list_snapshot() {
    use tritium_lowering::pass_registry::{all_passes, all_pipelines};
    let (ok, help, _) = triton_opt(&["--help"]);
    assert!(ok);
    // --help lists passes, then pipelines, each sorted.
    let mut listed = tritium_help_lines(&help);
    listed.sort_unstable();
    let mut registered: Vec<(&str, &str)> = all_passes()
        .iter()
        .map(|entry| (entry.pass.argument, entry.pass.summary))
        .chain(all_pipelines().iter().map(|p| (p.argument, p.summary)))
        .collect();
    registered.sort_unstable();
    let flag = |line: &str| line.split_whitespace().next().unwrap_or("").to_owned();
    assert_eq!(
        listed.iter().map(|line| flag(line)).collect::<Vec<_>>(),
        registered
            .iter()
            .map(|(argument, _)| format!("--{argument}"))
            .collect::<Vec<_>>(),
        "--help and the registry list different passes"
    );
    for (line, (argument, summary)) in listed.iter().zip(&registered) {
        assert!(
            line.ends_with(summary),
            "--{argument}: --help shows '{line}'"
        );
    }
    // `{name=default ...}`, or nothing without options.
    let defaults = |options: &[tritium_dialects::pass::PassOption]| {
        let options: Vec<String> = options
            .iter()
            .map(|option| format!("{}={}", option.name, option.default))
            .collect();
        if options.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", options.join(" "))
        }
    };
    let mut snapshot = Vec::new();
    for entry in all_passes() {
        let pass = entry.pass;
        let dialects: Vec<String> = (pass.dependent_dialects)()
            .iter()
            .map(|handle| handle.namespace().as_str().unwrap_or("?").to_owned())
            .collect();
        snapshot.push(format!(
            "--{}{} creates [{}]: {}",
            pass.argument,
            defaults(pass.options),
            dialects.join(", "),
            pass.summary
        ));
    }
    for pipeline in all_pipelines() {
        snapshot.push(format!(
            "--{}{} (pipeline): {}",
            pipeline.argument,
            defaults(pipeline.options),
            pipeline.summary
        ));
    }
    insta::assert_snapshot!(snapshot.join("\n"));
}

/// `-tritium-ttir`, `-tritium-ttgir` and `-tritium-llvm` expand, in the real driver, to exactly
/// the pass lists of the stages `tritium compile` runs (both sides printed by MLIR's
/// `--dump-pass-pipeline`, every option spelled out).
#[test]
fn named_pipelines_are_the_compile_stages() {
    use tritium_dialects::pass::pipeline_text;
    use tritium_lowering::stage::Stage;
    use tritium_passes::pipelines::TtgirOptions;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("empty.mlir");
    std::fs::write(&input, "module {}\n").unwrap();
    let input = input.to_str().unwrap().to_owned();
    let dump = |pipeline: &str| {
        let (ok, _, err) =
            triton_opt(&[&input, pipeline, "--dump-pass-pipeline", "-o", "/dev/null"]);
        assert!(ok, "{pipeline}: {err}");
        err
    };
    let ttgir = TtgirOptions {
        num_warps: 8,
        num_stages: 2,
        capability: 80,
        persistent_programs: false,
        descriptor_loads: false,
    };
    let stages = |stages: &[Stage]| {
        let passes: Vec<_> = stages
            .iter()
            .flat_map(|stage| stage.passes(&ttgir).unwrap().unwrap())
            .collect();
        format!("--pass-pipeline=builtin.module({})", pipeline_text(&passes))
    };
    for (flag, compiled) in [
        ("--tritium-ttir", stages(&[Stage::TtirPasses])),
        (
            "--tritium-ttgir=num-warps=8 num-stages=2 target=cuda:80",
            stages(&[Stage::TtgirPasses]),
        ),
        (
            "--tritium-llvm=compute-capability=80",
            stages(&[Stage::AllocateSharedMemory, Stage::LowerToLlvm]),
        ),
    ] {
        assert_eq!(
            dump(flag),
            dump(&compiled),
            "{flag} is not what compile runs"
        );
    }
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
    // Triton 3.6's does not; the unroller clamps a dynamic trip count at zero (`ub < lb ? 0 :
    // ub - lb`: a constant, a compare and a select), which Triton's does not (docs/passes-ttir.md).
    let known: &[(&str, &str, i64)] = &[
        ("s_shapes", "tt.split", -1),
        ("s_control", "arith.cmpi", 1),
        ("s_control", "arith.constant", 1),
        ("s_control", "arith.select", 1),
    ];
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

/// Every kernel of the corpus (test/Inputs/corpus, Triton 3.6's TTIR and TTGIR of
/// bench/cases_corpus.py) through `-tritium-ttir` and `-tritium-ttgir` has at most as many
/// `ttg.convert_layout`s as Triton's TTGIR. (The scans' regrouping into one run a thread is the
/// scan lowering's own, not a conversion in the TTGIR: lowering/src/ops/scan.rs.)
#[test]
fn corpus_layout_conversions_against_triton() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/Inputs/corpus");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("test/Inputs/corpus")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttir"))
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 30,
        "the corpus has {} kernels",
        entries.len()
    );
    let count = |text: &str| text.matches("ttg.convert_layout").count();
    let mut problems = Vec::new();
    for ttir in &entries {
        let name = ttir.file_stem().unwrap().to_string_lossy().into_owned();
        let metadata = std::fs::read_to_string(ttir.with_extension("json")).expect("metadata");
        let warps =
            serde_json::from_str::<serde_json::Value>(&metadata).expect("json")["num_warps"]
                .as_u64()
                .expect("num_warps");
        let triton = count(&std::fs::read_to_string(ttir.with_extension("ttgir")).expect("ttgir"));
        let ttgir_option = format!("--tritium-ttgir=num-warps={warps}");
        let (ok, ours, err) =
            triton_opt(&[ttir.to_str().unwrap(), "--tritium-ttir", &ttgir_option]);
        assert!(ok, "{name}: {err}");
        let ours = count(&ours);
        if ours > triton {
            problems.push(format!("{name}: {ours} conversions, Triton {triton}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
