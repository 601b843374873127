//! The `--signature` of Triton's ahead-of-time compiler: one entry per kernel parameter, in order:
//! a type (`*fp16`, `i32`, `fp32`, `*f32`-style too) with an optional `:16` (divisible by 16) or
//! `:1` (equal to 1) hint, or a literal for a `tl.constexpr` parameter (or an integer specialized
//! to 1, which Triton 3.6 drops from the kernel's signature).

use crate::types::Dt;

/// A literal value of the signature.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
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
    text.split(',').map(|e| parse_entry(e.trim())).collect()
}

fn parse_entry(entry: &str) -> Result<Entry, String> {
    if entry.is_empty() {
        return Err("empty signature entry".into());
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
    if let Some(s) = entry
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| entry.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
    {
        return Ok(Entry::Literal(Literal::Str(s.to_owned())));
    }
    Err(format!(
        "signature entry '{entry}' is neither a type (e.g. *fp32, i32:16, fp16) nor a literal"
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
        assert!(parse("i32:8").is_err());
    }
}
