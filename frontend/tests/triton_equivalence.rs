//! The front end's TTIR equals Triton 3.6's: for each kernel of `test/Inputs/frontend/*.py`
//! (copies of `shared/bench/cases_visible.py` and the syntax sampler), the TTIR Tritium builds
//! from the Python source and the TTIR Triton's frontend produced (`.source.ttir`, checked in)
//! have the same multiset of op names after the TTIR pipeline (`-tritium-ttir`) runs on both;
//! moreover the same multiset of printed op lines (attributes and types included) once value
//! names, block labels and symbol names are blanked.

use std::collections::BTreeMap;
use std::path::PathBuf;
use tritium_dialects::melior::{
    Context, ir::Module, ir::operation::OperationLike, pass::PassManager,
    utility::parse_pass_pipeline,
};
use tritium_dialects::pass::pipeline_text;
use tritium_lowering::stage::Stage;
use tritium_passes::pipelines::TtgirOptions;

fn inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test/Inputs")
}

/// Runs `-tritium-ttir` on `module` and returns its op-name multiset and its printed lines,
/// normalized and sorted.
fn ttir_ops(context: &Context, module: &mut Module) -> (BTreeMap<String, i64>, Vec<String>) {
    let options = TtgirOptions {
        num_warps: 4,
        num_stages: 3,
        capability: 90,
        persistent_programs: false,
        descriptor_loads: false,
    };
    let passes = Stage::TtirPasses.passes(&options).unwrap().unwrap();
    let manager = PassManager::new(context);
    parse_pass_pipeline(
        manager.as_operation_pass_manager(),
        &format!("builtin.module({})", pipeline_text(&passes)),
    )
    .unwrap();
    manager.run(module).expect("the TTIR pipeline runs");
    assert!(module.as_operation().verify(), "the TTIR verifies");
    let text = module.as_operation().to_string();
    (op_counts(&text), normalized_lines(&text))
}

/// Each op line with `%names`, `^bb` labels and `@symbols` blanked, sorted.
fn normalized_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| blank_names(l.trim()))
        .filter(|l| {
            !(l.is_empty()
                || l.starts_with('}')
                || l.starts_with("module")
                || l.starts_with("tt.func"))
        })
        .collect();
    lines.sort();
    lines
}

fn blank_names(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '%' | '^' | '@' => {
                out.push(c);
                out.push('_');
                if c == '@' && chars.peek() == Some(&'"') {
                    chars.next();
                    for q in chars.by_ref() {
                        if q == '"' {
                            break;
                        }
                    }
                    continue;
                }
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || matches!(n, '_' | '.' | '$' | '-' | '#') {
                        chars.next();
                    } else {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

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

/// (Python file, kernel, signature, Triton's `.source.ttir` under test/Inputs/kernels).
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "cases_visible.py",
        "add_kernel",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
        "add",
    ),
    (
        "cases_visible.py",
        "softmax_kernel",
        "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4096",
        "softmax",
    ),
    (
        "cases_visible.py",
        "rmsnorm_kernel",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 4096",
        "rmsnorm",
    ),
    (
        "cases_visible.py",
        "matmul_kernel",
        "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8",
        "matmul",
    ),
];

/// The syntax sampler's kernels with the specializations `sampler.py` compiles them with.
const SAMPLER: &[(&str, &str)] = &[
    ("s_atomics", "*fp32:16, *i32:16, *fp32:16, i32:16, 256"),
    ("s_atomic_cas", "*i32:16, 32"),
    (
        "s_block_ptr",
        "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 64, 64",
    ),
    ("s_shapes", "*fp32:16, *fp32:16, 256"),
    ("s_scan_reduce", "*fp32:16, *fp32:16, *fp32:16, 256"),
    (
        "s_casts",
        "*fp32:16, *fp8e4nv:16, *fp8e5:16, *fp16:16, *i32:16, i32:16, 512",
    ),
    ("s_math", "*fp32:16, *fp32:16, i32:16, 512"),
    (
        "s_misc",
        "*fp32:16, *fp32:16, *i32:16, *i32:16, i32:16, 256",
    ),
    ("s_control", "*fp32:16, *fp32:16, i32, 128"),
    (
        "s_dot",
        "*fp32:16, *fp32:16, *fp32:16, *fp8e4nv:16, *fp8e4nv:16, *fp16:16, *i8:16, *i8:16, *i32:16, 64, 64, 32",
    ),
    ("s_descriptor", "*fp32:16, *fp32:16, i32:16, i32:16, 64, 64"),
];

#[test]
fn sampler_kernels_match_triton_op_multisets() {
    let failures: Vec<String> = SAMPLER
        .iter()
        .filter_map(|(k, s)| compare("sampler.py", k, s, &format!("syntax/{k}")).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn compare(file: &str, kernel: &str, signature: &str, reference: &str) -> Result<(), String> {
    tritium_lowering::pass_registry::register_all();
    let context = tritium_dialects::context::new_context();
    let source = std::fs::read_to_string(inputs().join("frontend").join(file)).unwrap();
    let mut ours = tritium_frontend::build(&context, &source, file, Some(kernel), signature)
        .map_err(|e| format!("{kernel}: {e}"))?;
    assert!(
        ours.as_operation().verify(),
        "{kernel}: the front end's TTIR verifies"
    );
    let (ours, our_lines) = ttir_ops(&context, &mut ours);
    assert!(ours.len() > 3, "{kernel}: no ops counted");
    let text = std::fs::read_to_string(inputs().join("kernels").join(
        if reference.ends_with(".ttir") {
            reference.to_string()
        } else {
            format!("{reference}.source.ttir")
        },
    ))
    .unwrap();
    let mut theirs = Module::parse(&context, &text).expect("Triton's TTIR parses");
    let (theirs, their_lines) = ttir_ops(&context, &mut theirs);
    if ours == theirs {
        if our_lines != their_lines {
            let only_ours: Vec<&String> = our_lines
                .iter()
                .filter(|l| !their_lines.contains(l))
                .collect();
            let only_theirs: Vec<&String> = their_lines
                .iter()
                .filter(|l| !our_lines.contains(l))
                .collect();
            return Err(format!(
                "{kernel}: same ops, different lines: ours {only_ours:?}, Triton {only_theirs:?}"
            ));
        }
        return Ok(());
    }
    let mut diff = Vec::new();
    for op in ours.keys().chain(theirs.keys()) {
        let (a, b) = (ours.get(op).unwrap_or(&0), theirs.get(op).unwrap_or(&0));
        if a != b
            && !diff
                .iter()
                .any(|d: &String| d.starts_with(&format!("{op}:")))
        {
            diff.push(format!("{op}: ours {a}, Triton {b}"));
        }
    }
    Err(format!("{kernel}: {}", diff.join("; ")))
}

#[test]
fn visible_cases_match_triton_op_multisets() {
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|(f, k, s, r)| compare(f, k, s, r).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The project's corpus (`bench/cases_corpus.py`): each case's kernel and signature from its
/// `CORPUS_SIGNATURES` table against Triton's frontend TTIR (`test/Inputs/corpus_frontend/<case>.source.ttir`).
fn corpus_cases() -> Vec<(String, String, String)> {
    let source = std::fs::read_to_string(inputs().join("../../bench/cases_corpus.py")).unwrap();
    let table = source
        .split("CORPUS_SIGNATURES = {")
        .nth(1)
        .expect("cases_corpus.py has CORPUS_SIGNATURES");
    let table = &table[..table.find('}').expect("the table closes")];
    table
        .lines()
        .filter_map(|line| {
            // 'case': ('kernel', "signature", warps),
            let quoted: Vec<&str> = line.split(['\'', '"']).collect();
            (quoted.len() >= 6).then(|| {
                (
                    quoted[1].to_owned(),
                    quoted[3].to_owned(),
                    quoted[5].to_owned(),
                )
            })
        })
        .collect()
}

#[test]
fn corpus_kernels_match_triton_op_multisets() {
    let cases = corpus_cases();
    assert!(cases.len() >= 30, "the corpus table parses");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(case, kernel, signature)| {
            compare(
                "../../../bench/cases_corpus.py",
                kernel,
                signature,
                &format!("../corpus_frontend/{case}"),
            )
            .err()
            .map(|e| format!("{case}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `tl.dot_scaled` (e4m3 operands given as raw bytes and as fp8, both scales): the same ops and
/// lines as the TTIR Triton 3.6 compiled from the same source (its `asm["ttir"]`).
#[test]
fn dot_scaled_matches_triton() {
    compare(
        "../../../python/tests/gpu/t10_dot_scaled.py",
        "scaled_matmul_kernel",
        "*u8:16, *fp8e4nv:16, *u8:16, *u8:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:16, \
         128, 128, 128, 'e4m3', 'e4m3', True, True, False, True",
        "dot_scaled_e4m3.triton.ttir",
    )
    .unwrap();
}
