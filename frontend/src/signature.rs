//! The `--signature` of Triton's ahead-of-time compiler: one entry per kernel parameter, in order:
//! a type (`*fp16`, `i32`, `fp32`, `*f32`-style too) with an optional `:16` (divisible by 16) or
//! `:1` (equal to 1) hint, or a literal for a `tl.constexpr` parameter (or an integer specialized
//! to 1, which Triton 3.6 drops from the kernel's signature). A host-side tensor descriptor
//! (`triton.tools.tensor_descriptor.TensorDescriptor`) is `tensordesc<fp16[64, 64]>`: its element
//! type and block shape, as Triton's specialization spells it.

use crate::types::{Dt, Ty};

/// A literal value of the signature.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    /// An element type (`tl.float16`, `triton.language.fp16`), for a `tl.constexpr` parameter
    /// passed a dtype.
    Dtype(Dt),
    None,
}

/// One signature entry.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A runtime parameter of this type; `divisible16` adds `tt.divisibility = 16`.
    Type { dt: Dt, divisible16: bool },
    /// A compile-time value.
    Literal(Literal),
}

/// Parses a signature string. Entries are separated by commas; whitespace is ignored.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    split_top_level(text)
        .into_iter()
        .map(|e| parse_entry(e.trim()))
        .collect()
}

/// The comma-separated entries of `text`, commas inside `<>` or `[]` (a descriptor's block shape)
/// not splitting.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut entries = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' | '[' => depth += 1,
            '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                entries.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    entries.push(&text[start..]);
    entries
}

/// `tensordesc<fp16[64, 64]>`: the descriptor type of a block of that element type and shape.
fn parse_descriptor(entry: &str) -> Option<Result<Dt, String>> {
    let inner = entry.strip_prefix("tensordesc<")?;
    let bad = || {
        Err(format!(
            "signature entry '{entry}': a tensor descriptor is tensordesc<DTYPE[D0, D1, ...]>, e.g. tensordesc<fp16[64, 64]>"
        ))
    };
    let Some(inner) = inner.strip_suffix('>') else {
        return Some(bad());
    };
    let Some((elem, dims)) = inner.split_once('[') else {
        return Some(bad());
    };
    let Some(dims) = dims.trim().strip_suffix(']') else {
        return Some(bad());
    };
    let Some(elem) = Dt::parse(elem.trim()).filter(|d| d.is_int() || d.is_float()) else {
        return Some(Err(format!(
            "signature entry '{entry}': '{}' is not an element type",
            elem.trim()
        )));
    };
    let mut shape = Vec::new();
    for d in dims.split(',') {
        match d.trim().parse::<i64>() {
            Ok(n) if n > 0 && (n as u64).is_power_of_two() => shape.push(n),
            _ => {
                return Some(Err(format!(
                    "signature entry '{entry}': block dims must be powers of two, got '{}'",
                    d.trim()
                )));
            }
        }
    }
    if !(1..=5).contains(&shape.len()) {
        return Some(Err(format!(
            "signature entry '{entry}': a tensor descriptor has 1 to 5 dims"
        )));
    }
    Some(Ok(Dt::Desc(Box::new(Ty::block(elem, shape)))))
}

fn parse_entry(entry: &str) -> Result<Entry, String> {
    if entry.is_empty() {
        return Err("empty signature entry".into());
    }
    if let Some(desc) = parse_descriptor(entry) {
        return desc.map(|dt| Entry::Type {
            dt,
            divisible16: false,
        });
    }
    let (head, hint) = match entry.rsplit_once(':') {
        Some((head, hint)) if !head.is_empty() => (head.trim(), Some(hint.trim())),
        _ => (entry, None),
    };
    if let Some(dt) = Dt::parse(head).filter(|d| *d != Dt::Void) {
        return match hint {
            None => Ok(Entry::Type {
                dt,
                divisible16: false,
            }),
            Some("16") => Ok(Entry::Type {
                dt,
                divisible16: true,
            }),
            Some("1") if dt.is_int() => Ok(Entry::Literal(Literal::Int(1))),
            Some(other) => Err(format!(
                "signature entry '{entry}': unknown hint ':{other}' (expected ':16', or ':1' for an integer)"
            )),
        };
    }
    if hint.is_some() {
        return Err(format!("signature entry '{entry}': unknown type '{head}'"));
    }
    if let Ok(v) = entry.parse::<i128>() {
        return Ok(Entry::Literal(Literal::Int(v)));
    }
    if let Ok(v) = entry.parse::<f64>() {
        return Ok(Entry::Literal(Literal::Float(v)));
    }
    match entry {
        "True" | "true" => return Ok(Entry::Literal(Literal::Bool(true))),
        "False" | "false" => return Ok(Entry::Literal(Literal::Bool(false))),
        "None" => return Ok(Entry::Literal(Literal::None)),
        _ => {}
    }
    if let Some(name) = entry
        .strip_prefix("tl.")
        .or_else(|| entry.strip_prefix("triton.language."))
    {
        return match Dt::parse(name) {
            Some(dt) if !dt.is_ptr() && dt != Dt::Void => Ok(Entry::Literal(Literal::Dtype(dt))),
            _ => Err(format!("signature entry '{entry}': unknown dtype '{name}'")),
        };
    }
    if let Some(s) = entry
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| entry.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
    {
        return Ok(Entry::Literal(Literal::Str(s.to_owned())));
    }
    Err(format!(
        "signature entry '{entry}' is neither a type (e.g. *fp32, i32:16, fp16) nor a literal (e.g. 1024, 0.5, True, 'e4m3', tl.float16)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_types_hints_and_literals() {
        let entries = parse("*fp32:16, *f16, i32:16, i64, 1024, i32:1, fp32, 0.5, True").unwrap();
        assert_eq!(
            entries[0],
            Entry::Type {
                dt: Dt::Ptr(Box::new(Dt::F32)),
                divisible16: true
            }
        );
        assert_eq!(
            entries[1],
            Entry::Type {
                dt: Dt::Ptr(Box::new(Dt::F16)),
                divisible16: false
            }
        );
        assert_eq!(entries[4], Entry::Literal(Literal::Int(1024)));
        assert_eq!(entries[5], Entry::Literal(Literal::Int(1)));
        assert_eq!(entries[7], Entry::Literal(Literal::Float(0.5)));
        assert_eq!(entries[8], Entry::Literal(Literal::Bool(true)));
        assert!(parse("*fp33").is_err());
        let entries = parse("tl.float16, triton.language.bf16, tl.int8").unwrap();
        assert_eq!(entries[0], Entry::Literal(Literal::Dtype(Dt::F16)));
        assert_eq!(entries[1], Entry::Literal(Literal::Dtype(Dt::BF16)));
        assert_eq!(
            entries[2],
            Entry::Literal(Literal::Dtype(Dt::Int {
                bits: 8,
                signed: true
            }))
        );
        assert!(parse("tl.float17").is_err());
        let entries = parse("tensordesc<fp16[64, 32]>, i32, tensordesc<fp32[16]>").unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(
            entries[0],
            Entry::Type {
                dt: Dt::Desc(Box::new(Ty::block(Dt::F16, vec![64, 32]))),
                divisible16: false
            }
        );
        assert!(parse("tensordesc<fp16[48, 64]>").is_err());
        assert!(parse("tensordesc<fp16>").is_err());
        assert!(parse("tensordesc<*fp16[64]>").is_err());
        assert!(parse("i32:8").is_err());
    }
}
