//! Structured mutations of TTIR/TTGIR text: each one edits one syntactic element a kernel author
//! could get wrong (a literal, a shape, an element type, an op of the same family, a predicate,
//! an attribute, an operand, a whole op line), so that most mutants still parse and many still
//! verify, reaching the passes and the lowering.

use rand::Rng;
use rand::seq::SliceRandom;

/// Integers that find edge cases: zero, one, signs, powers of two and their neighbours, the
/// limits of i32 and Triton's largest block.
const INTERESTING: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "16",
    "31",
    "32",
    "33",
    "64",
    "127",
    "128",
    "255",
    "256",
    "1023",
    "1024",
    "4096",
    "65536",
    "1048576",
    "2097152",
    "16777216",
    "2147483647",
    "-2147483648",
    "4294967296",
    "9223372036854775807",
];

/// Ops that take and give the same types, by family: one may stand for another.
const FAMILIES: &[&[&str]] = &[
    &[
        "arith.addf",
        "arith.subf",
        "arith.mulf",
        "arith.divf",
        "arith.remf",
        "arith.maxnumf",
        "arith.minnumf",
        "arith.maximumf",
        "arith.minimumf",
    ],
    &[
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.divsi",
        "arith.divui",
        "arith.remsi",
        "arith.remui",
        "arith.andi",
        "arith.ori",
        "arith.xori",
        "arith.shli",
        "arith.shrsi",
        "arith.shrui",
        "arith.maxsi",
        "arith.minsi",
        "arith.maxui",
        "arith.minui",
    ],
    &["arith.extsi", "arith.extui"],
    &["arith.sitofp", "arith.uitofp"],
    &["arith.fptosi", "arith.fptoui"],
    &[
        "math.exp",
        "math.exp2",
        "math.log",
        "math.log2",
        "math.sqrt",
        "math.rsqrt",
        "math.sin",
        "math.cos",
        "math.absf",
        "math.floor",
        "math.ceil",
        "math.tanh",
        "math.erf",
    ],
    &[
        "tt.get_program_id x",
        "tt.get_program_id y",
        "tt.get_program_id z",
    ],
    &[
        "tt.get_num_programs x",
        "tt.get_num_programs y",
        "tt.get_num_programs z",
    ],
    &["tt.trans", "tt.reshape"],
    &["tt.splat", "tt.broadcast"],
];

const PREDICATES: &[&str] = &[
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge", "oeq", "olt", "ogt", "une",
    "uno",
];

const ELEMENT_TYPES: &[&str] = &[
    "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2",
];

/// Attributes whose values steer passes and the lowering.
const ATTRIBUTES: &[&str] = &[
    "axis = ",
    "start = ",
    "end = ",
    "tt.divisibility = ",
    "\"ttg.num-warps\" = ",
    "\"ttg.threads-per-warp\" = ",
    "tt.num_stages = ",
    "maxNumImpreciseAcc = ",
    "packed_element = ",
];

/// Byte ranges of the decimal integers in `text` (with a leading minus).
fn integers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // A number starts after a delimiter, or after the `x` of a shape (`128x64`).
        let after_shape_x = i >= 2 && bytes[i - 1] == b'x' && bytes[i - 2].is_ascii_digit();
        let starts = bytes[i].is_ascii_digit()
            && (i == 0
                || after_shape_x
                || !(bytes[i - 1].is_ascii_alphanumeric()
                    || matches!(bytes[i - 1], b'_' | b'%' | b'#' | b'.')));
        if starts {
            let begin = if i > 0 && bytes[i - 1] == b'-' {
                i - 1
            } else {
                i
            };
            let mut end = i;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            // Not the start of a float literal or an identifier.
            if end >= bytes.len()
                || !(bytes[end] == b'.' || bytes[end].is_ascii_alphabetic() && bytes[end] != b'x')
            {
                out.push((begin, end));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of `needle` in `text`.
fn occurrences(text: &str, needle: &str) -> Vec<(usize, usize)> {
    text.match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .collect()
}

fn replace_range(text: &str, (begin, end): (usize, usize), with: &str) -> String {
    format!("{}{with}{}", &text[..begin], &text[end..])
}

/// Lines that are ops inside a function body (start with `%` or an op name, not a brace).
fn op_lines(lines: &[&str]) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            (t.starts_with('%')
                || t.starts_with("tt.")
                || t.starts_with("scf.")
                || t.starts_with("arith."))
                && !t.starts_with("tt.func")
        })
        .map(|(i, _)| i)
        .collect()
}

/// SSA names used in `text`.
fn ssa_names(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let mut end = i + 1;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b'#')
            {
                end += 1;
            }
            if end > i + 1 {
                names.push(&text[i..end]);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    names
}

/// One mutation of `text`; `None` when the chosen kind found nothing to change.
pub fn mutate_once(text: &str, rng: &mut impl Rng) -> Option<String> {
    match rng.gen_range(0..11) {
        0 => {
            let spots = integers(text);
            let spot = *spots.choose(rng)?;
            Some(replace_range(text, spot, INTERESTING.choose(rng)?))
        }
        1 => {
            // A tensor dimension: the integer right before an `x` inside `tensor<...>`.
            let spots: Vec<(usize, usize)> = integers(text)
                .into_iter()
                .filter(|&(_, end)| text.as_bytes().get(end) == Some(&b'x'))
                .collect();
            let spot = *spots.choose(rng)?;
            let dims = [
                "0", "1", "2", "3", "5", "8", "64", "96", "1024", "4096", "65536", "16777216",
            ];
            Some(replace_range(text, spot, dims.choose(rng)?))
        }
        2 => {
            let family = FAMILIES.choose(rng)?;
            let spots: Vec<(usize, usize)> = family
                .iter()
                .flat_map(|name| occurrences(text, name))
                .filter(|&(_, end)| {
                    !text[end..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                })
                .collect();
            let spot = *spots.choose(rng)?;
            Some(replace_range(text, spot, family.choose(rng)?))
        }
        3 => {
            let spots: Vec<(usize, usize)> = PREDICATES
                .iter()
                .flat_map(|p| {
                    occurrences(text, &format!("cmpi {p},"))
                        .into_iter()
                        .chain(occurrences(text, &format!("cmpf {p},")))
                })
                .collect();
            let (begin, end) = *spots.choose(rng)?;
            let kind = &text[begin..begin + 5];
            Some(replace_range(
                text,
                (begin, end),
                &format!("{kind} {},", PREDICATES.choose(rng)?),
            ))
        }
        4 => {
            let spots: Vec<(usize, usize)> = ELEMENT_TYPES
                .iter()
                .flat_map(|t| {
                    occurrences(text, &format!("x{t}>"))
                        .into_iter()
                        .map(|(b, e)| (b + 1, e - 1))
                })
                .collect();
            let spot = *spots.choose(rng)?;
            Some(replace_range(text, spot, ELEMENT_TYPES.choose(rng)?))
        }
        5 => {
            let attribute = ATTRIBUTES.choose(rng)?;
            let spots = occurrences(text, attribute);
            let (_, end) = *spots.choose(rng)?;
            let digits = text[end..]
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .unwrap_or(0);
            Some(replace_range(
                text,
                (end, end + digits),
                INTERESTING.choose(rng)?,
            ))
        }
        6 => {
            // Delete an op.
            let lines: Vec<&str> = text.lines().collect();
            let victim = *op_lines(&lines).choose(rng)?;
            Some(
                lines
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != victim)
                    .map(|(_, l)| *l)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        }
        7 => {
            // Duplicate an op (its result names clash unless the op has none).
            let lines: Vec<&str> = text.lines().collect();
            let chosen = *op_lines(&lines).choose(rng)?;
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            let copy = out[chosen].replacen('%', "%dup_", 1);
            out.insert(chosen + 1, copy);
            Some(out.join("\n"))
        }
        8 => {
            // Use another value as an operand.
            let lines: Vec<&str> = text.lines().collect();
            let chosen = *op_lines(&lines).choose(rng)?;
            let line = lines[chosen];
            let names = ssa_names(line);
            let operand = *names.get(1..)?.choose(rng)?;
            let before: Vec<&str> = lines[..chosen].iter().flat_map(|l| ssa_names(l)).collect();
            let replacement = *before.choose(rng)?;
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[chosen] = line.replacen(operand, replacement, 1);
            Some(out.join("\n"))
        }
        9 => {
            // Annotate a loop for unrolling.
            let spots = occurrences(text, "scf.yield");
            let (begin, _) = *spots.choose(rng)?;
            let close = text[begin..].find('}')? + begin + 1;
            let factor = ["2", "3", "8", "1000", "100000", "-1"].choose(rng)?;
            Some(format!(
                "{} {{tt.loop_unroll_factor = {factor} : i32}}{}",
                &text[..close],
                &text[close..]
            ))
        }
        _ => {
            // Swap two op lines.
            let lines: Vec<&str> = text.lines().collect();
            let ops = op_lines(&lines);
            let a = *ops.choose(rng)?;
            let b = *ops.choose(rng)?;
            let mut out: Vec<&str> = lines.clone();
            out.swap(a, b);
            Some(out.join("\n"))
        }
    }
}

/// One to three mutations of `text`.
pub fn mutate(text: &str, rng: &mut impl Rng) -> String {
    let mut out = text.to_owned();
    let rounds = rng.gen_range(1..=3);
    let mut done = 0;
    for _ in 0..20 {
        if done == rounds {
            break;
        }
        if let Some(next) = mutate_once(&out, rng) {
            out = next;
            done += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn integers_skip_names_and_floats() {
        let text = "%c16_i32 = arith.constant 16 : i32 tensor<128x64xf32> 1.5e0 #loc3";
        let found: Vec<&str> = integers(text)
            .into_iter()
            .map(|(b, e)| &text[b..e])
            .collect();
        assert_eq!(found, ["16", "128", "64"]);
    }

    #[test]
    fn mutants_differ_from_their_seed() {
        let seed = "module {\n  tt.func public @k(%x: !tt.ptr<f32>) {\n    %c = arith.constant 4 : i32\n    %a = arith.addi %c, %c : i32\n    tt.return\n  }\n}";
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let changed = (0..50).filter(|_| mutate(seed, &mut rng) != seed).count();
        assert!(changed > 40, "{changed}");
    }
}
