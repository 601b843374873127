//! Casts and elementwise ops whose operands and results share one shape.

use super::util::*;
use melior::ir::{OperationRef, attribute::AttributeLike, operation::OperationLike};

/// `tt.int_to_ptr` / `tt.ptr_to_int`: i64 ↔ pointer, elementwise (ODS checks the classes).
pub fn int_pointer_cast(op: &OperationRef) -> Rule {
    let (src, dst) = (operand(op, 0)?, result(op, 0)?);
    encodings_agree(&[src, dst], "operand and result")?;
    ensure(
        !is_block_pointer(elem(src)) && !is_block_pointer(elem(dst)),
        || "cannot convert block pointers to or from integers".into(),
    )
}

/// `tt.bitcast`: same element bit width; pointers only to pointers.
pub fn bitcast(op: &OperationRef) -> Rule {
    let (src, dst) = (operand(op, 0)?, result(op, 0)?);
    encodings_agree(&[src, dst], "operand and result")?;
    let (from, to) = (elem(src), elem(dst));
    ensure(!is_block_pointer(from) && !is_block_pointer(to), || {
        "cannot bitcast block pointers".into()
    })?;
    ensure(is_pointer(from) == is_pointer(to), || {
        format!(
            "cannot bitcast between pointers and non-pointers ({} to {}); use tt.ptr_to_int or tt.int_to_ptr",
            show(from),
            show(to)
        )
    })?;
    ensure(width(from) == width(to), || {
        format!(
            "requires operand and result elements of the same bit width, but {} has {} bits and {} has {}",
            show(from),
            width(from).unwrap_or(0),
            show(to),
            width(to).unwrap_or(0)
        )
    })
}

/// `tt.fp_to_fp`: a float conversion; narrowing needs a rounding mode, other conversions take none.
pub fn fp_to_fp(op: &OperationRef) -> Rule {
    let (src, dst) = (operand(op, 0)?, result(op, 0)?);
    encodings_agree(&[src, dst], "operand and result")?;
    let (from, to) = (elem(src), elem(dst));
    let (from_bits, to_bits) = (width(from).unwrap_or(0), width(to).unwrap_or(0));
    let rounding = op.attribute("rounding").is_ok();
    if to_bits < from_bits {
        ensure(rounding, || {
            format!(
                "requires a rounding mode to narrow {} to {}",
                show(from),
                show(to)
            )
        })
    } else {
        ensure(!rounding, || {
            format!(
                "takes a rounding mode only when it narrows, but {} to {} does not narrow",
                show(from),
                show(to)
            )
        })
    }
}

/// `tt.extern_elementwise`: one shape and one encoding for every operand and the result; a symbol.
pub fn extern_elementwise(op: &OperationRef) -> Rule {
    let types: Vec<_> = operand_types(op)
        .into_iter()
        .chain(result_types(op))
        .collect();
    shapes_agree(&types, "operands and result")?;
    encodings_agree(&types, "operands and result")?;
    let symbol_length = op
        .attribute("symbol")
        // SAFETY: `symbol` is a live attribute of `op`; its string is read only from a string
        // attribute (ODS makes `symbol` one).
        .map(|symbol| unsafe {
            if mlir_sys::mlirAttributeIsAString(symbol.to_raw()) {
                mlir_sys::mlirStringAttrGetValue(symbol.to_raw()).length
            } else {
                0
            }
        })
        .unwrap_or(0);
    ensure(symbol_length > 0, || "requires a non-empty symbol".into())
}

/// A string attribute's value (empty when absent or not a string).
fn string_value(op: &OperationRef, name: &str) -> String {
    op.attribute(name)
        // SAFETY: `name` is a live attribute of `op`; its string is read only from a string
        // attribute and copied at once.
        .map(|attr| unsafe {
            if mlir_sys::mlirAttributeIsAString(attr.to_raw()) {
                crate::ffi::string_ref_str(mlir_sys::mlirStringAttrGetValue(attr.to_raw()))
                    .to_owned()
            } else {
                String::new()
            }
        })
        .unwrap_or_default()
}

/// `tt.elementwise_inline_asm`: every argument and result has the same shape and encoding, the
/// element count is a multiple of `packed_element`, and every `$N` of the assembly names one of
/// the operands the constraints declare (LLVM aborts on any other).
pub fn inline_asm(op: &OperationRef) -> Rule {
    let asm = string_value(op, "asm_string");
    let constraints = string_value(op, "constraints");
    let declared = constraints
        .split(',')
        .filter(|c| !c.trim().is_empty() && !c.trim().starts_with('~'))
        .count();
    // LLVM's inline-asm printer aborts the process on any other `$` sequence.
    let bad_dollar = || {
        format!("asm_string \"{asm}\" has a '$' that is not $N, ${{N}} (an operand number) or $$")
    };
    let mut chars = asm.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            continue;
        }
        let braced = match chars.peek() {
            Some('$') => {
                chars.next();
                continue;
            }
            Some('{') => {
                chars.next();
                true
            }
            Some(d) if d.is_ascii_digit() => false,
            _ => return Err(bad_dollar()),
        };
        let mut digits = String::new();
        while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
            digits.push(d);
            chars.next();
        }
        if braced && (digits.is_empty() || chars.next() != Some('}')) {
            return Err(bad_dollar());
        }
        let n = digits.parse::<usize>().unwrap_or(usize::MAX);
        ensure(n < declared, || {
            format!(
                "asm_string refers to ${digits}, but the constraints \"{constraints}\" declare {declared} operands"
            )
        })?;
    }
    let packed = int_or(op, "packed_element", 1);
    ensure(packed >= 1, || {
        format!("requires packed_element >= 1, but found {packed}")
    })?;
    let types: Vec<_> = operand_types(op)
        .into_iter()
        .chain(result_types(op))
        .collect();
    shapes_agree(&types, "arguments and results")?;
    encodings_agree(&types, "arguments and results")?;
    if let Some(first) = types.first().copied().filter(|ty| is_tensor(*ty)) {
        let count = numel(&shape(first));
        ensure(count % packed == 0, || {
            format!(
                "requires the element count {count} to be a multiple of packed_element {packed}"
            )
        })?;
    }
    Ok(())
}
