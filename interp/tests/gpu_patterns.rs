//! The interpreter against the CPU references of the GPU pattern suite: every
//! `test/Inputs/gpu/<name>.ttir` whose pattern the runtime knows runs on fresh random inputs (the
//! suite's own case builder and seeds), and every output must pass the suite's own check, guard
//! zone and elements that must not be written included.

use tritium_interp::{Arg, Buffer, Launch};
use tritium_runtime::patterns::{self, Arg as CaseArg, GUARD_BYTES, POISONS, check_output};

fn gpu_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/Inputs/gpu")
}

/// Runs pattern `name`'s case for `seed`; `Err` describes what is wrong.
fn check_pattern(pattern: &patterns::Pattern, seed: u64) -> Result<(), String> {
    let path = gpu_dir().join(format!("{}.ttir", pattern.name));
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let case = (pattern.build)(&mut patterns::pattern_rng(seed, pattern.name));
    case.validate()?;
    for poison in POISONS {
        let mut before = Vec::new();
        let args: Vec<Arg> = case
            .args
            .iter()
            .map(|(name, arg)| match arg {
                CaseArg::Desc {
                    buffer,
                    shape,
                    strides,
                } => {
                    let bytes = match &**buffer {
                        CaseArg::In(data) => data.to_bytes(),
                        CaseArg::Out(out) => {
                            let size = out.want.len() * out.want.elem().size_bytes().unwrap_or(1);
                            let mut bytes = vec![poison; size + GUARD_BYTES];
                            if let Some(init) = &out.init {
                                let init = init.to_bytes();
                                bytes[..init.len()].copy_from_slice(&init);
                            }
                            before.push(bytes.clone());
                            bytes
                        }
                        _ => Vec::new(),
                    };
                    Arg::Desc {
                        buffer: Buffer {
                            name: name.to_string(),
                            bytes,
                        },
                        shape: shape.iter().map(|&d| d as i64).collect(),
                        strides: strides.iter().map(|&d| d as i64).collect(),
                    }
                }
                CaseArg::In(data) => Arg::Buffer(Buffer {
                    name: name.to_string(),
                    bytes: data.to_bytes(),
                }),
                CaseArg::Out(out) => {
                    let size = out.want.len() * out.want.elem().size_bytes().unwrap_or(1);
                    let mut bytes = vec![poison; size + GUARD_BYTES];
                    if let Some(init) = &out.init {
                        let init = init.to_bytes();
                        bytes[..init.len()].copy_from_slice(&init);
                    }
                    before.push(bytes.clone());
                    Arg::Buffer(Buffer {
                        name: name.to_string(),
                        bytes,
                    })
                }
                CaseArg::I32(v) => Arg::Int(i64::from(*v)),
                CaseArg::I64(v) => Arg::Int(*v),
                CaseArg::F32(v) => Arg::Float(f64::from(*v)),
            })
            .collect();
        let grid = [case.grid.0, case.grid.1, case.grid.2];
        let outcome = tritium_interp::run_source(
            &source,
            &path.display().to_string(),
            None,
            Launch::new(grid, args),
        )
        .map_err(|e| e.to_string())?;
        let mut problems = Vec::new();
        let mut k = 0;
        for ((name, arg), got) in case.args.iter().zip(&outcome.args) {
            let got = match got {
                Arg::Buffer(got) | Arg::Desc { buffer: got, .. } => got,
                _ => continue,
            };
            match arg.buffer() {
                CaseArg::Out(out) => {
                    if let Err(e) = check_output(out, &got.bytes, &before[k]) {
                        problems.push(format!("{name}: {e}"));
                    }
                    k += 1;
                }
                CaseArg::In(data) if got.bytes != data.to_bytes() => {
                    problems.push(format!("{name}: input modified"));
                }
                _ => {}
            }
        }
        if !problems.is_empty() {
            return Err(format!(
                "{} (poison {poison:#x}): {}",
                case.note,
                problems.join(" | ")
            ));
        }
    }
    Ok(())
}

#[test]
fn interpreter_matches_the_gpu_pattern_references() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for pattern in patterns::patterns() {
        if !gpu_dir().join(format!("{}.ttir", pattern.name)).exists() {
            continue;
        }
        checked += 1;
        for seed in [1, 2] {
            if let Err(e) = check_pattern(pattern, seed) {
                failures.push(format!("{} seed {seed}: {e}", pattern.name));
            }
        }
    }
    assert!(checked >= 30, "only {checked} patterns found");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
