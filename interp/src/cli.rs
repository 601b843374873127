//! `tritium run --interpret`: the same `--grid` and `--arg` syntax as a GPU run, executed by the
//! interpreter, printing each buffer's first elements afterwards.

use crate::value::{Num, bits_to_float, float_to_bits, round};
use crate::{Arg, Buffer, Launch, Limits, ParamKind};
use rand::{Rng, SeedableRng};

/// An element type by its `--arg` name.
pub fn elem_by_name(name: &str) -> Option<Num> {
    Some(match name {
        "f32" => Num::F32,
        "f16" => Num::F16,
        "bf16" => Num::BF16,
        "f64" => Num::F64,
        "fp8e4" | "f8e4m3fn" => Num::F8E4M3FN,
        "fp8e5" | "f8e5m2" => Num::F8E5M2,
        "i1" | "i8" | "u8" => Num::Int(8),
        "i16" => Num::Int(16),
        "i32" => Num::Int(32),
        "i64" => Num::Int(64),
        _ => return None,
    })
}

/// Little-endian bytes of `count` elements of `num`, filled as `fill` says (`rand`: uniform in
/// [-1, 1) for floats and in [-100, 100) for integers, from a fixed seed).
pub fn make_buffer(
    num: Num,
    count: usize,
    fill: &str,
    rng: &mut impl Rng,
) -> Result<Vec<u8>, String> {
    let size = num.bytes() as usize;
    let mut bytes = Vec::with_capacity(count * size);
    for i in 0..count {
        let value: f64 = match fill {
            "rand" if num.is_float() => rng.gen_range(-1.0..1.0),
            "rand" => f64::from(rng.gen_range(-100i32..100)),
            "zeros" => 0.0,
            "ones" => 1.0,
            "iota" => i as f64,
            _ => return Err(format!("unknown fill '{fill}' (rand, zeros, ones, iota)")),
        };
        let bits = if num.is_float() {
            float_to_bits(num, round(num, value))
        } else {
            value as i64 as u64
        };
        bytes.extend_from_slice(&bits.to_le_bytes()[..size]);
    }
    Ok(bytes)
}

/// Runs `input` (TTIR) in the interpreter with `--arg` `specs` over `grid`; returns the report
/// (`tt.print` lines, then each buffer's first elements).
pub fn run(input: &std::path::Path, grid: &[u32], specs: &[String]) -> Result<String, String> {
    let source = std::fs::read_to_string(input)
        .map_err(|e| format!("{}: cannot read: {e}", input.display()))?;
    let filename = input.display().to_string();
    let (context, sink) = crate::new_context_with_sink();
    let module = crate::parse(&context, &sink, &source, &filename).map_err(|e| e.to_string())?;
    let module_op = module.as_operation().to_raw();
    let params = crate::kernel_params(module_op, None).map_err(|e| e.to_string())?;
    if params.len() != specs.len() {
        return Err(format!(
            "the kernel takes {} arguments, {} --arg given",
            params.len(),
            specs.len()
        ));
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0);
    let mut args = Vec::new();
    let mut elems = Vec::new();
    for (param, spec) in params.iter().zip(specs) {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("--arg '{spec}': expected NAME=VALUE"))?;
        if let Some(rest) = value.strip_prefix("buf:") {
            let parts: Vec<&str> = rest.split(':').collect();
            let [elem, count, fill @ ..] = parts.as_slice() else {
                return Err(format!("--arg '{spec}': expected buf:ELEM:COUNT[:FILL]"));
            };
            let num = elem_by_name(elem)
                .ok_or_else(|| format!("--arg '{spec}': unknown element type '{elem}'"))?;
            let count: usize = count
                .parse()
                .map_err(|_| format!("--arg '{spec}': bad count '{count}'"))?;
            let fill = fill.first().copied().unwrap_or("rand");
            let bytes = make_buffer(num, count, fill, &mut rng)?;
            elems.push(Some(num));
            args.push(Arg::Buffer(Buffer {
                name: name.to_owned(),
                bytes,
            }));
        } else {
            elems.push(None);
            args.push(match param.kind {
                ParamKind::Scalar(n) if n.is_float() => Arg::Float(
                    value
                        .parse()
                        .map_err(|_| format!("--arg '{spec}': not a number"))?,
                ),
                _ => Arg::Int(
                    value
                        .parse()
                        .map_err(|_| format!("--arg '{spec}': not an integer"))?,
                ),
            });
        }
    }
    let grid = [
        grid.first().copied().unwrap_or(1),
        grid.get(1).copied().unwrap_or(1),
        grid.get(2).copied().unwrap_or(1),
    ];
    let launch = Launch {
        grid,
        args,
        limits: Limits::default(),
    };
    let outcome = crate::run_module(module_op, None, launch).map_err(|e| e.to_string())?;
    let mut report = String::new();
    for line in &outcome.printed {
        report.push_str(line);
        report.push('\n');
    }
    for (arg, elem) in outcome.args.iter().zip(elems) {
        if let (Arg::Buffer(b), Some(num)) = (arg, elem) {
            report.push_str(&format!(
                "{}: {} x {} = [{}, ...]\n",
                b.name,
                elem_name(num),
                b.bytes.len() / num.bytes() as usize,
                preview(num, &b.bytes, 8).join(", ")
            ));
        }
    }
    report.push_str(&format!("interpreted {} ops\n", outcome.steps));
    Ok(report)
}

fn elem_name(num: Num) -> &'static str {
    match num {
        Num::F32 => "f32",
        Num::F16 => "f16",
        Num::BF16 => "bf16",
        Num::F64 => "f64",
        Num::F8E4M3FN => "fp8e4",
        Num::F8E5M2 => "fp8e5",
        Num::Int(8) => "i8",
        Num::Int(16) => "i16",
        Num::Int(32) => "i32",
        Num::Int(_) => "i64",
        Num::Addr => "ptr",
    }
}

/// The first `count` elements of `bytes` as text.
pub fn preview(num: Num, bytes: &[u8], count: usize) -> Vec<String> {
    let size = num.bytes() as usize;
    bytes
        .chunks_exact(size)
        .take(count)
        .map(|chunk| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(chunk);
            let bits = u64::from_le_bytes(b);
            if num == Num::F64 {
                bits_to_float(num, bits).to_string()
            } else if num.is_float() {
                // Every narrower float is exactly an f32, which prints shortest.
                (bits_to_float(num, bits) as f32).to_string()
            } else {
                crate::value::wrap(num.bits(), bits as i64).to_string()
            }
        })
        .collect()
}
