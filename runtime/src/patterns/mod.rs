//! The lowering-pattern suite run by `tritium-gpu-check` next to the benchmark kernels.
//!
//! Each [`Pattern`] is a small TTIR kernel in `test/Inputs/gpu/<name>.ttir` that exercises one
//! family of lowering patterns (elementwise arith, math, masked loads and stores, casts,
//! reductions, layout conversions, control flow, `tt.dot`, grids, atomics, ...). For each one this
//! module knows how to build a [`Case`] from a seeded RNG: fresh random inputs (and sizes, chosen
//! so that masks matter), the launch grid, scalar arguments by name, and for every output the
//! expected contents computed by an independent CPU reference written from the ops' semantics
//! (see `cases.rs`), with a per-output tolerance ([`Want`]).
//!
//! [`run_pattern`] then launches the kernel twice, once with every output filled with `0xFF`
//! bytes and once with `0x5A` bytes (so an element the kernel never writes fails whichever its
//! expected value), checks every element of every output, checks that elements the kernel must
//! not write (masked-off stores, padding) kept their previous contents, that a guard zone after
//! each output is untouched, and that no input was modified. Arguments are passed in the order
//! of `K.json`'s `arg_names` (matched by name with the case's), and their types are checked
//! against its `signature` and the PTX entry.

mod cases;

use std::path::Path;

use crate::device::{Device, DeviceBuffer, Stream};
use crate::launch::{Kernel, KernelArg};
use crate::metadata::{ElemType, KernelMetadata, ParamType};
use crate::reference::{Rng, f16_to_f32};

pub use cases::{fp8_decode, fp8_encode};

/// A lowering-pattern kernel and how to check it.
pub struct Pattern {
    /// Kernel file stem (`test/Inputs/gpu/<name>.ttir` or `.ttgir`, after the passes listed in
    /// `<name>.passes` when present, compiled to `<name>.ptx`) and entry name.
    pub name: &'static str,
    /// What the kernel checks, one line.
    pub what: &'static str,
    /// Builds a case (inputs, launch, expected outputs) from the RNG.
    pub build: fn(&mut Rng) -> Case,
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pattern").field("name", &self.name).finish()
    }
}

/// Every pattern, in run order.
pub fn patterns() -> &'static [Pattern] {
    cases::PATTERNS
}

/// The pattern called `name`.
pub fn find(name: &str) -> Option<&'static Pattern> {
    patterns().iter().find(|p| p.name == name)
}

/// Host data of one buffer, element type included.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// `f32`.
    F32(Vec<f32>),
    /// `f16`, as bits.
    F16(Vec<u16>),
    /// `bf16`, as bits.
    Bf16(Vec<u16>),
    /// `i8`.
    I8(Vec<i8>),
    /// `i32`.
    I32(Vec<i32>),
    /// `i64`.
    I64(Vec<i64>),
    /// `f8E4M3FN` bytes.
    Fp8E4(Vec<u8>),
    /// `f8E5M2` bytes.
    Fp8E5(Vec<u8>),
}

impl Data {
    /// Element type (what the kernel's pointer parameter points to).
    pub fn elem(&self) -> ElemType {
        match self {
            Data::F32(_) => ElemType::F32,
            Data::F16(_) => ElemType::F16,
            Data::Bf16(_) => ElemType::BF16,
            Data::I8(_) => ElemType::I8,
            Data::I32(_) => ElemType::I32,
            Data::I64(_) => ElemType::I64,
            Data::Fp8E4(_) => ElemType::Fp8E4Nv,
            Data::Fp8E5(_) => ElemType::Fp8E5,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::F16(v) | Data::Bf16(v) => v.len(),
            Data::I8(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::Fp8E4(v) | Data::Fp8E5(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per element.
    pub fn elem_size(&self) -> usize {
        elem_size(&self.elem())
    }

    /// The elements as little-endian bytes, as they lie in device memory.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::F16(v) | Data::Bf16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::Fp8E4(v) | Data::Fp8E5(v) => v.clone(),
        }
    }
}

fn elem_size(e: &ElemType) -> usize {
    e.size_bytes().unwrap_or(1)
}

/// Element `i` of little-endian `bytes` with `size`-byte elements, zero-extended.
fn elem_bits(bytes: &[u8], size: usize, i: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&bytes[i * size..(i + 1) * size]);
    u64::from_le_bytes(b)
}

/// The value of a floating-point element (`None` for integers).
fn float_value(e: &ElemType, bits: u64) -> Option<f32> {
    match e {
        ElemType::F32 => Some(f32::from_bits(bits as u32)),
        ElemType::F16 => Some(f16_to_f32(bits as u16)),
        ElemType::BF16 => Some(f32::from_bits((bits as u32) << 16)),
        ElemType::Fp8E4Nv => Some(fp8_decode(bits as u8, false)),
        ElemType::Fp8E5 => Some(fp8_decode(bits as u8, true)),
        _ => None,
    }
}

/// An element's value for messages.
fn show(e: &ElemType, bits: u64) -> String {
    match e {
        ElemType::F32 => format!("{:e}", f32::from_bits(bits as u32)),
        ElemType::F16 => format!("{:e} ({bits:#06x})", f16_to_f32(bits as u16)),
        ElemType::BF16 => format!("{:e} ({bits:#06x})", f32::from_bits((bits as u32) << 16)),
        ElemType::I8 => format!("{}", bits as u8 as i8),
        ElemType::I32 => format!("{}", bits as u32 as i32),
        ElemType::I64 => format!("{}", bits as i64),
        ElemType::Fp8E4Nv => format!("{:e} ({bits:#04x})", fp8_decode(bits as u8, false)),
        ElemType::Fp8E5 => format!("{:e} ({bits:#04x})", fp8_decode(bits as u8, true)),
        _ => format!("{bits:#x}"),
    }
}

/// What an output must contain.
#[derive(Debug, Clone, PartialEq)]
pub enum Want {
    /// Exactly these values: integers bit for bit, floating-point types (f32, f16, fp8) as
    /// values (`-0 == +0`; NaN never matches).
    Exact(Data),
    /// f32 output within `max(atol, ulps * ulp(want))` of an f64 reference (the unrounded
    /// value). NaN never matches; infinities must match exactly.
    Approx {
        /// The reference.
        want: Vec<f64>,
        /// Allowed error in units in the last place of the f32 nearest the reference.
        ulps: f64,
        /// Allowed absolute error (for results near zero).
        atol: f64,
    },
}

impl Want {
    /// Element type of the output buffer.
    pub fn elem(&self) -> ElemType {
        match self {
            Want::Exact(d) => d.elem(),
            Want::Approx { .. } => ElemType::F32,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Want::Exact(d) => d.len(),
            Want::Approx { want, .. } => want.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One output buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Contents before each launch; `None`: poisoned (`0xFF`, then `0x5A` bytes).
    pub init: Option<Data>,
    /// Expected contents after the launch.
    pub want: Want,
    /// Elements the kernel must not write (`true`): they must keep their contents from before
    /// the launch, whatever `want` says there.
    pub keep: Option<Vec<bool>>,
    /// Elements the kernel may leave alone or write (`true`): they hold either their contents
    /// from before the launch or `want`. TMA stores write whole 16-byte chunks, so the elements
    /// past a tensor's last column up to the next 16-byte boundary are such.
    pub untouched_or_want: Option<Vec<bool>>,
}

impl Output {
    /// A poisoned output that must end up holding `want`.
    pub fn new(want: Want) -> Output {
        Output {
            init: None,
            want,
            keep: None,
            untouched_or_want: None,
        }
    }

    /// Exactly `data`.
    pub fn exact(data: Data) -> Output {
        Output::new(Want::Exact(data))
    }

    /// Within `ulps` units in the last place (or `atol`) of `want`.
    pub fn approx(want: Vec<f64>, ulps: f64, atol: f64) -> Output {
        Output::new(Want::Approx { want, ulps, atol })
    }

    /// Marks elements the kernel must leave alone.
    pub fn keeping(mut self, keep: Vec<bool>) -> Output {
        self.keep = Some(keep);
        self
    }

    /// Marks elements that may keep their contents or hold `want`.
    pub fn or_untouched(mut self, elements: Vec<bool>) -> Output {
        self.untouched_or_want = Some(elements);
        self
    }

    /// Starts from `init` instead of poison (atomics read their target).
    pub fn starting_from(mut self, init: Data) -> Output {
        self.init = Some(init);
        self
    }
}

/// One kernel argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An input buffer (must be unchanged after the launch).
    In(Data),
    /// An output buffer.
    Out(Output),
    /// `i32` scalar.
    I32(i32),
    /// `i64` scalar.
    I64(i64),
    /// `f32` scalar.
    F32(f32),
    /// A host-side TMA descriptor (`nvTmaDesc`) of `buffer` (an [`Arg::In`] or [`Arg::Out`],
    /// checked like one): a row-major tensor of `shape` with `strides` in elements, outermost
    /// first. The kernel's next parameters take the shape and strides again as scalars.
    Desc {
        /// The tensor's buffer.
        buffer: Box<Arg>,
        /// Its dims, outermost first.
        shape: Vec<u64>,
        /// Its strides in elements, outermost first (the last 1).
        strides: Vec<u64>,
    },
}

impl Arg {
    /// The buffer argument itself, or a descriptor's buffer.
    pub fn buffer(&self) -> &Arg {
        match self {
            Arg::Desc { buffer, .. } => buffer,
            other => other,
        }
    }

    /// The parameter type this argument needs.
    pub fn param_type(&self) -> ParamType {
        match self {
            Arg::Desc { .. } => ParamType::TensorDesc,
            Arg::In(d) => ParamType::Ptr(Some(d.elem())),
            Arg::Out(o) => ParamType::Ptr(Some(o.want.elem())),
            Arg::I32(_) => ParamType::I32,
            Arg::I64(_) => ParamType::I64,
            Arg::F32(_) => ParamType::F32,
        }
    }
}

/// One launch of a pattern kernel with its expected results.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Grid (programs along x, y, z).
    pub grid: (u32, u32, u32),
    /// Arguments by parameter name, in the order of the TTIR function.
    pub args: Vec<(&'static str, Arg)>,
    /// Sizes and parameters for the report, e.g. `n=12345`.
    pub note: String,
}

impl Case {
    /// Checks the case's own consistency: output lengths match `keep` and `init`.
    pub fn validate(&self) -> Result<(), String> {
        for (name, a) in &self.args {
            if let Arg::Out(o) = a.buffer() {
                if o.want.is_empty() {
                    return Err(format!("{name}: empty output"));
                }
                for (what, mask) in [
                    ("keep", &o.keep),
                    ("untouched-or-want", &o.untouched_or_want),
                ] {
                    if let Some(k) = mask
                        && k.len() != o.want.len()
                    {
                        return Err(format!(
                            "{name}: {what} mask of {} for {}",
                            k.len(),
                            o.want.len()
                        ));
                    }
                }
                if let Some(i) = &o.init
                    && (i.len() != o.want.len() || i.elem() != o.want.elem())
                {
                    return Err(format!("{name}: init does not match the output"));
                }
            }
        }
        Ok(())
    }
}

/// Bytes of untouched poison checked after every output (catches writes past the end).
pub const GUARD_BYTES: usize = 256;

/// The two poison bytes outputs are filled with, one launch each.
pub const POISONS: [u8; 2] = [0xFF, 0x5A];

/// The order to pass `case.args` in: by `K.json`'s `arg_names` when it has them (they must be
/// the case's names, in any order), else the case's own order. Types are checked against the
/// signature when one is recorded.
pub fn launch_order(case: &Case, md: &KernelMetadata) -> Result<Vec<usize>, String> {
    let names: Vec<&str> = case.args.iter().map(|(n, _)| *n).collect();
    let order: Vec<usize> = if md.arg_names.is_empty() {
        (0..names.len()).collect()
    } else {
        let mut order = Vec::new();
        for n in &md.arg_names {
            match names.iter().position(|m| m == n) {
                Some(i) if !order.contains(&i) => order.push(i),
                _ => {
                    return Err(format!(
                        "K.json arg_names [{}] do not match the suite's parameters [{}]",
                        md.arg_names.join(", "),
                        names.join(", ")
                    ));
                }
            }
        }
        if order.len() != names.len() {
            return Err(format!(
                "K.json arg_names [{}] do not match the suite's parameters [{}]",
                md.arg_names.join(", "),
                names.join(", ")
            ));
        }
        order
    };
    if !md.signature.is_empty() {
        if md.signature.len() != order.len() {
            return Err(format!(
                "K.json signature has {} parameters, the suite passes {}",
                md.signature.len(),
                order.len()
            ));
        }
        for (pos, &i) in order.iter().enumerate() {
            let (name, arg) = &case.args[i];
            let have = arg.param_type();
            if md.signature[pos] != have {
                return Err(format!(
                    "parameter {pos} (`{name}`) is {} in K.json, the suite passes {have}",
                    md.signature[pos]
                ));
            }
        }
    }
    Ok(order)
}

/// Largest error of an approximate output, in ulps, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ErrorStats {
    /// Largest `|got - want| / ulp(want)` over the elements not within `atol`.
    pub max_ulps: f64,
    /// Largest `|got - want|`.
    pub max_abs: f64,
}

/// One ulp of the f32 nearest `w` (the spacing of f32 values in its binade; 2^-149 at zero).
pub fn ulp_f32(w: f64) -> f64 {
    let a = (w as f32).abs();
    if !a.is_finite() {
        return f64::INFINITY;
    }
    let e = (a.to_bits() >> 23) & 0xff;
    if e == 0 {
        (2f64).powi(-149)
    } else {
        (2f64).powi(e as i32 - 127 - 23)
    }
}

/// Checks every element of one output. `got` holds the buffer after the launch (guard zone
/// included), `before` its contents before (same length). Returns error statistics for
/// approximate outputs, or a description of the wrong elements.
pub fn check_output(out: &Output, got: &[u8], before: &[u8]) -> Result<ErrorStats, String> {
    let elem = out.want.elem();
    let size = elem_size(&elem);
    let n = out.want.len();
    if got.len() != before.len() || got.len() < n * size {
        return Err(format!(
            "internal: {} bytes read back, {} before, {n} elements expected",
            got.len(),
            before.len()
        ));
    }
    let mut stats = ErrorStats::default();
    let mut bad = 0usize;
    let mut unwritten = 0usize;
    let mut clobbered = 0usize;
    let mut first = Vec::new();
    let mut note = |i: usize, what: String| {
        if first.len() < 3 {
            first.push(format!("[{i}] {what}"));
        }
    };
    let want_bits = match &out.want {
        Want::Exact(d) => Some(d.to_bytes()),
        Want::Approx { .. } => None,
    };
    for i in 0..n {
        let g = elem_bits(got, size, i);
        let b = elem_bits(before, size, i);
        if out.keep.as_ref().is_some_and(|k| k[i]) {
            if g != b {
                clobbered += 1;
                note(
                    i,
                    format!("must stay {}, got {}", show(&elem, b), show(&elem, g)),
                );
            }
            continue;
        }
        if g == b && out.untouched_or_want.as_ref().is_some_and(|k| k[i]) {
            continue;
        }
        let ok = match (&out.want, &want_bits) {
            (Want::Exact(_), Some(wb)) => {
                let w = elem_bits(wb, size, i);
                match (float_value(&elem, g), float_value(&elem, w)) {
                    (Some(gv), Some(wv)) => gv == wv,
                    _ => g == w,
                }
            }
            (Want::Approx { want, ulps, atol }, _) => {
                let gf = f32::from_bits(g as u32) as f64;
                let w = want[i];
                if gf.is_nan() || w.is_nan() {
                    // A NaN reference wants a NaN.
                    gf.is_nan() && w.is_nan()
                } else if gf.is_infinite() || w.is_infinite() || (w as f32).is_infinite() {
                    gf == w as f32 as f64
                } else {
                    let d = (gf - w).abs();
                    let u = d / ulp_f32(w);
                    stats.max_abs = stats.max_abs.max(d);
                    if d > *atol {
                        stats.max_ulps = stats.max_ulps.max(u);
                    }
                    d <= *atol || u <= *ulps
                }
            }
            _ => unreachable!("exact outputs have bytes"),
        };
        if !ok {
            bad += 1;
            if g == b {
                unwritten += 1;
            }
            let w = match (&out.want, &want_bits) {
                (Want::Exact(_), Some(wb)) => show(&elem, elem_bits(wb, size, i)),
                (Want::Approx { want, .. }, _) => format!("{:e}", want[i]),
                _ => String::new(),
            };
            note(i, format!("got {} want {w}", show(&elem, g)));
        }
    }
    let guard_bad = got[n * size..]
        .iter()
        .zip(&before[n * size..])
        .filter(|(g, b)| g != b)
        .count();
    if bad == 0 && clobbered == 0 && guard_bad == 0 {
        return Ok(stats);
    }
    let mut msg = Vec::new();
    if bad > 0 {
        let mut s = format!("{bad} of {n} elements wrong");
        if unwritten > 0 {
            s.push_str(&format!(" ({unwritten} unchanged by the launch)"));
        }
        if let Want::Approx { ulps, atol, .. } = &out.want {
            s.push_str(&format!(" (tolerance {ulps} ulp or {atol:e}"));
            if stats.max_ulps > 0.0 {
                s.push_str(&format!("; max {:.1} ulp", stats.max_ulps));
            }
            s.push(')');
        }
        msg.push(s);
    }
    if clobbered > 0 {
        msg.push(format!("{clobbered} elements written that must not be"));
    }
    if guard_bad > 0 {
        msg.push(format!("{guard_bad} bytes written past the end"));
    }
    msg.extend(first);
    Err(msg.join("; "))
}

/// A per-pattern RNG: the run's seed mixed with the pattern's name, so `--only NAME --seed S`
/// reproduces the inputs NAME got in a full run with seed S.
pub fn pattern_rng(seed: u64, name: &str) -> Rng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    Rng::new(seed ^ h)
}

fn err(e: crate::error::RuntimeError) -> String {
    e.to_string()
}

/// Runs one pattern: loads `DIR/<name>.ptx` + `.json`, builds its case from `seed`, launches it
/// once per poison byte and checks everything. Returns the report detail.
pub fn run_pattern(
    dev: &Device,
    stream: &Stream,
    dir: &Path,
    p: &Pattern,
    seed: u64,
) -> Result<String, String> {
    let ptx_path = dir.join(format!("{}.ptx", p.name));
    let ptx =
        std::fs::read_to_string(&ptx_path).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let md = KernelMetadata::load(dir, p.name).map_err(err)?;
    let case = (p.build)(&mut pattern_rng(seed, p.name));
    case.validate()?;
    let order = launch_order(&case, &md)?;
    let declared = crate::suite::ptx_param_count(&ptx, &md.name)
        .ok_or_else(|| format!("{}: no `.entry {}(`", ptx_path.display(), md.name))?;
    // After the arguments, the launch appends the requested program count (virtual programs),
    // the descriptors it encodes (host_descriptors) and Triton's global scratch pointer.
    let appended = usize::from(md.virtual_programs)
        + md.host_descriptors.len()
        + usize::from(md.global_scratch_size > 0);
    if declared != order.len() + appended {
        return Err(format!(
            "PTX entry `{}` declares {declared} parameters; the suite passes {}{}",
            md.name,
            order.len(),
            if appended > 0 {
                format!(" and the launch appends {appended}")
            } else {
                String::new()
            }
        ));
    }
    let kernel = Kernel::from_ptx(dev, &ptx, md).map_err(err)?;

    // Device buffers, one per pointer argument (None for scalars).
    let mut bufs: Vec<Option<DeviceBuffer>> = Vec::with_capacity(case.args.len());
    for (_, a) in &case.args {
        bufs.push(match a.buffer() {
            Arg::In(d) => {
                let b = dev
                    .alloc(d.len() * d.elem_size())
                    .map_err(err)?
                    .with_elem(d.elem());
                b.copy_from(&d.to_bytes()).map_err(err)?;
                Some(b)
            }
            Arg::Out(o) => {
                let bytes = o.want.len() * elem_size(&o.want.elem()) + GUARD_BYTES;
                Some(dev.alloc(bytes).map_err(err)?.with_elem(o.want.elem()))
            }
            _ => None,
        });
    }
    // The descriptors of descriptor arguments, with the K.json entries of their parameters.
    let mut maps: Vec<Option<crate::TensorMap>> = vec![None; case.args.len()];
    let mut next_meta = 0;
    for &i in &order {
        if let (Arg::Desc { shape, strides, .. }, Some(b)) = (&case.args[i].1, &bufs[i]) {
            let meta = kernel
                .metadata()
                .tensordesc_meta
                .get(next_meta)
                .ok_or_else(|| {
                    "K.json has fewer tensordesc_meta entries than descriptor parameters"
                        .to_string()
                })?;
            next_meta += 1;
            let meta = crate::TensorDescMeta::from_json(meta).map_err(err)?;
            maps[i] = Some(
                crate::TensorMap::encode(dev, b.device_ptr(), shape, strides, &meta, false)
                    .map_err(err)?,
            );
        }
    }
    let mut approx: Vec<String> = Vec::new();
    let mut outputs = 0;
    for (run, &poison) in POISONS.iter().enumerate() {
        // Outputs: poison everything (guard included), then the initial contents if any.
        let mut before: Vec<Vec<u8>> = Vec::new();
        for ((_, a), b) in case.args.iter().zip(&bufs) {
            if let (Arg::Out(o), Some(b)) = (a.buffer(), b) {
                b.fill_bytes(poison).map_err(err)?;
                let mut bytes = vec![poison; b.len_bytes()];
                if let Some(init) = &o.init {
                    let ib = init.to_bytes();
                    b.copy_from(&ib).map_err(err)?;
                    bytes[..ib.len()].copy_from_slice(&ib);
                }
                before.push(bytes);
            }
        }
        let args: Vec<KernelArg> = order
            .iter()
            .map(|&i| match (&case.args[i].1, &bufs[i]) {
                (Arg::Desc { .. }, Some(_)) => match &maps[i] {
                    Some(map) => KernelArg::TensorMap(map),
                    None => unreachable!("descriptor arguments have descriptors"),
                },
                (_, Some(b)) => KernelArg::Buffer(b),
                (Arg::I32(v), None) => KernelArg::I32(*v),
                (Arg::I64(v), None) => KernelArg::I64(*v),
                (Arg::F32(v), None) => KernelArg::F32(*v),
                _ => unreachable!("pointer arguments have buffers"),
            })
            .collect();
        kernel.launch(stream, case.grid, &args).map_err(err)?;
        stream
            .synchronize()
            .map_err(|e| format!("kernel failed: {e}"))?;
        let mut problems = Vec::new();
        let mut k = 0;
        for ((name, a), b) in case.args.iter().zip(&bufs) {
            let Some(b) = b else { continue };
            match a.buffer() {
                Arg::Out(o) => {
                    let got = b.download::<u8>().map_err(err)?;
                    match check_output(o, &got, &before[k]) {
                        Ok(stats) => {
                            if run == 0 && matches!(o.want, Want::Approx { .. }) {
                                approx.push(if stats.max_ulps > 0.0 {
                                    format!("{name} {:.1}ulp", stats.max_ulps)
                                } else {
                                    format!("{name} abs {:.1e}", stats.max_abs)
                                });
                            }
                        }
                        Err(e) => problems.push(format!("{name}: {e}")),
                    }
                    k += 1;
                }
                Arg::In(d) if run == 0 && b.download::<u8>().map_err(err)? != d.to_bytes() => {
                    problems.push(format!("{name}: input modified by the kernel"));
                }
                _ => {}
            }
        }
        outputs = k;
        if !problems.is_empty() {
            const SHOWN: usize = 3;
            if problems.len() > SHOWN {
                let more = problems.len() - SHOWN;
                problems.truncate(SHOWN);
                problems.push(format!("{more} more outputs wrong"));
            }
            return Err(format!(
                "{} grid={:?} outputs poisoned with {poison:#04x}: {}",
                case.note,
                case.grid,
                problems.join(" | ")
            ));
        }
    }
    let a = kernel.attributes();
    let md = kernel.metadata();
    let mut line = format!(
        "{} grid={:?} warps={} shared={} regs={} spill={}B: {outputs} outputs exact",
        case.note, case.grid, md.num_warps, md.shared, a.num_regs, a.local_bytes
    );
    if !approx.is_empty() {
        line = line.replace(" outputs exact", " outputs ok");
        line.push_str(&format!(" (max error: {})", approx.join(", ")));
    }
    Ok(line)
}

#[cfg(test)]
mod tests;
