//! The textual `#ttg.*` attribute forms: printing ([`std::fmt::Display`])
//! and parsing ([`parse_encoding`], [`parse_aliases`]).
//!
//! ```text
//! #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
//! #ttg.slice<{dim = 1, parent = #blocked1}>
//! #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
//! #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
//! #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [1, 0]], warp = [[2, 0]], block = []}>
//! #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
//! #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
//! ```
//!
//! The optional CTA parameters `CTAsPerCGA`, `CTASplitNum`, `CTAOrder` are
//! accepted on every encoding that has a CTA layout and printed only when
//! present.
//!
//! Production code converts MLIR attributes through the dialect's C
//! accessors (`tritium_dialects::encoding`), never through this text; the
//! parser serves tests and fixtures (and is the independent oracle the
//! accessor round-trip tests compare against).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::encoding::{
    BlockedEncoding, CtaLayout, DotOperandEncoding, Encoding, LinearEncoding, NvidiaMmaEncoding,
    NvmmaSharedEncoding, SliceEncoding, SwizzledSharedEncoding,
};
use crate::error::LayoutError;

fn list(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn cta_params(c: &CtaLayout) -> String {
    if c.is_default() {
        String::new()
    } else {
        format!(
            ", CTAsPerCGA = {}, CTASplitNum = {}, CTAOrder = {}",
            list(&c.ctas_per_cga),
            list(&c.cta_split_num),
            list(&c.cta_order)
        )
    }
}

impl fmt::Display for Encoding {
    /// The full textual attribute, parents printed inline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Encoding::Blocked(e) => e.fmt(f),
            Encoding::Slice(e) => e.fmt(f),
            Encoding::NvidiaMma(e) => e.fmt(f),
            Encoding::DotOperand(e) => e.fmt(f),
            Encoding::Linear(e) => e.fmt(f),
            Encoding::SwizzledShared(e) => e.fmt(f),
            Encoding::NvmmaShared(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for BlockedEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}}}>",
            list(&self.size_per_thread),
            list(&self.threads_per_warp),
            list(&self.warps_per_cta),
            list(&self.order),
            cta_params(&self.cta_layout)
        )
    }
}

impl fmt::Display for SliceEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.slice<{{dim = {}, parent = {}}}>",
            self.dim, self.parent
        )
    }
}

impl fmt::Display for NvidiaMmaEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.nvidia_mma<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}{}, instrShape = {}}}>",
            self.version_major,
            self.version_minor,
            list(&self.warps_per_cta),
            cta_params(&self.cta_layout),
            list(&self.instr_shape)
        )
    }
}

impl fmt::Display for DotOperandEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.dot_op<{{opIdx = {}, parent = {}",
            self.op_idx, self.parent
        )?;
        if self.k_width != 0 {
            write!(f, ", kWidth = {}", self.k_width)?;
        }
        write!(f, "}}>")
    }
}

impl fmt::Display for LinearEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bases = |b: &[Vec<u32>]| {
            let items: Vec<String> = b.iter().map(|v| list(v)).collect();
            format!("[{}]", items.join(", "))
        };
        write!(
            f,
            "#ttg.linear<{{register = {}, lane = {}, warp = {}, block = {}}}>",
            bases(&self.register),
            bases(&self.lane),
            bases(&self.warp),
            bases(&self.block)
        )
    }
}

impl fmt::Display for SwizzledSharedEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}{}}}>",
            self.vec,
            self.per_phase,
            self.max_phase,
            list(&self.order),
            cta_params(&self.cta_layout)
        )
    }
}

impl fmt::Display for NvmmaSharedEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#ttg.nvmma_shared<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}",
            self.swizzling_byte_width, self.transposed, self.element_bit_width
        )?;
        if self.fp4_padded {
            write!(f, ", fp4Padded = true")?;
        }
        write!(f, "{}}}>", cta_params(&self.cta_layout))
    }
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

#[derive(Debug)]
enum Value {
    Int(i64),
    List(Vec<i64>),
    /// A non-empty list of lists (`#ttg.linear` bases).
    Bases(Vec<Vec<i64>>),
    Bool(bool),
    Attr(Encoding),
}

struct Parser<'a, 'b> {
    s: &'a [u8],
    pos: usize,
    aliases: &'b dyn Fn(&str) -> Option<Encoding>,
}

fn perr<T>(msg: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError::Parse(msg.into()))
}

impl Parser<'_, '_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn context(&self) -> String {
        let end = (self.pos + 30).min(self.s.len());
        String::from_utf8_lossy(&self.s[self.pos..end]).into_owned()
    }

    fn expect(&mut self, c: u8) -> Result<(), LayoutError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            perr(format!("expected '{}' at '{}'", c as char, self.context()))
        }
    }

    fn ident(&mut self) -> Result<String, LayoutError> {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || b"_.$-".contains(&self.s[self.pos]))
        {
            self.pos += 1;
        }
        if start == self.pos {
            return perr(format!("expected an identifier at '{}'", self.context()));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn int(&mut self) -> Result<i64, LayoutError> {
        self.ws();
        let start = self.pos;
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        let t = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        let v = t
            .parse()
            .or_else(|_| perr(format!("expected an integer at '{}'", self.context())))?;
        // Allow typed integers such as `0 : i32`.
        let save = self.pos;
        if self.peek() == Some(b':') {
            self.pos += 1;
            if self.ident().is_err() {
                self.pos = save;
            }
        }
        Ok(v)
    }

    fn value(&mut self) -> Result<Value, LayoutError> {
        match self.peek() {
            Some(b'[') => {
                self.pos += 1;
                let mut v = vec![];
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Value::List(v));
                }
                if self.peek() == Some(b'[') {
                    let mut rows = vec![];
                    loop {
                        match self.value()? {
                            Value::List(row) => rows.push(row),
                            other => return perr(format!("bad basis {other:?}")),
                        }
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                return Ok(Value::Bases(rows));
                            }
                            _ => return perr(format!("bad list at '{}'", self.context())),
                        }
                    }
                }
                loop {
                    v.push(self.int()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Value::List(v));
                        }
                        _ => return perr(format!("bad list at '{}'", self.context())),
                    }
                }
            }
            Some(b'#') => Ok(Value::Attr(self.attr()?)),
            Some(c) if c.is_ascii_digit() || c == b'-' => Ok(Value::Int(self.int()?)),
            Some(_) => match self.ident()?.as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                other => perr(format!("unexpected value '{other}'")),
            },
            None => perr("unexpected end of input"),
        }
    }

    fn attr(&mut self) -> Result<Encoding, LayoutError> {
        self.expect(b'#')?;
        let name = self.ident()?;
        let Some(mnemonic) = name.strip_prefix("ttg.") else {
            if name.contains('.') {
                return perr(format!("unknown attribute #{name}"));
            }
            return (self.aliases)(&name)
                .ok_or_else(|| LayoutError::Parse(format!("unknown alias #{name}")));
        };
        self.expect(b'<')?;
        self.expect(b'{')?;
        let mut kv: BTreeMap<String, Value> = BTreeMap::new();
        if self.peek() != Some(b'}') {
            loop {
                let k = self.ident()?;
                self.expect(b'=')?;
                let v = self.value()?;
                if kv.insert(k.clone(), v).is_some() {
                    return perr(format!("duplicate key {k}"));
                }
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => break,
                    _ => return perr(format!("expected ',' or '}}' at '{}'", self.context())),
                }
            }
        }
        self.expect(b'}')?;
        self.expect(b'>')?;
        build(mnemonic, kv)
    }
}

struct Fields {
    kv: BTreeMap<String, Value>,
    what: String,
}

impl Fields {
    fn take(&mut self, k: &str) -> Option<Value> {
        self.kv.remove(k)
    }

    fn uint(v: i64, k: &str) -> Result<u32, LayoutError> {
        u32::try_from(v).or_else(|_| perr(format!("{k} = {v} out of range")))
    }

    fn int(&mut self, k: &str) -> Result<u32, LayoutError> {
        match self.take(k) {
            Some(Value::Int(v)) => Self::uint(v, k),
            Some(other) => perr(format!(
                "{}: {k} must be an integer, got {other:?}",
                self.what
            )),
            None => perr(format!("{}: missing {k}", self.what)),
        }
    }

    fn opt_int(&mut self, k: &str) -> Result<Option<u32>, LayoutError> {
        if self.kv.contains_key(k) {
            self.int(k).map(Some)
        } else {
            Ok(None)
        }
    }

    fn list(&mut self, k: &str) -> Result<Vec<u32>, LayoutError> {
        match self.take(k) {
            Some(Value::List(v)) => v.into_iter().map(|x| Self::uint(x, k)).collect(),
            Some(other) => perr(format!("{}: {k} must be a list, got {other:?}", self.what)),
            None => perr(format!("{}: missing {k}", self.what)),
        }
    }

    /// A list of bases: `[]` or `[[..], ..]`.
    fn bases(&mut self, k: &str) -> Result<Vec<Vec<u32>>, LayoutError> {
        let rows = match self.take(k) {
            Some(Value::List(v)) if v.is_empty() => vec![],
            Some(Value::Bases(rows)) => rows,
            Some(other) => {
                return perr(format!(
                    "{}: {k} must be a list of bases, got {other:?}",
                    self.what
                ));
            }
            None => return perr(format!("{}: missing {k}", self.what)),
        };
        rows.into_iter()
            .map(|row| row.into_iter().map(|x| Self::uint(x, k)).collect())
            .collect()
    }

    fn opt_bool(&mut self, k: &str) -> Result<Option<bool>, LayoutError> {
        match self.take(k) {
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => perr(format!("{}: {k} must be a bool, got {other:?}", self.what)),
            None => Ok(None),
        }
    }

    fn attr(&mut self, k: &str) -> Result<Encoding, LayoutError> {
        match self.take(k) {
            Some(Value::Attr(e)) => Ok(e),
            Some(other) => perr(format!(
                "{}: {k} must be an attribute, got {other:?}",
                self.what
            )),
            None => perr(format!("{}: missing {k}", self.what)),
        }
    }

    fn cta(&mut self) -> Result<CtaLayout, LayoutError> {
        let keys = ["CTAsPerCGA", "CTASplitNum", "CTAOrder"];
        let present = keys.iter().filter(|k| self.kv.contains_key(**k)).count();
        if present == 0 {
            return Ok(CtaLayout::default());
        }
        if present != 3 {
            return perr(format!("{}: CTA parameters must all be given", self.what));
        }
        Ok(CtaLayout::new(
            self.list("CTAsPerCGA")?,
            self.list("CTASplitNum")?,
            self.list("CTAOrder")?,
        ))
    }

    fn done(self) -> Result<(), LayoutError> {
        match self.kv.keys().next() {
            Some(k) => perr(format!("{}: unknown parameter {k}", self.what)),
            None => Ok(()),
        }
    }
}

fn build(mnemonic: &str, kv: BTreeMap<String, Value>) -> Result<Encoding, LayoutError> {
    let mut f = Fields {
        kv,
        what: format!("#ttg.{mnemonic}"),
    };
    let e = match mnemonic {
        "blocked" => Encoding::Blocked(BlockedEncoding {
            size_per_thread: f.list("sizePerThread")?,
            threads_per_warp: f.list("threadsPerWarp")?,
            warps_per_cta: f.list("warpsPerCTA")?,
            order: f.list("order")?,
            cta_layout: f.cta()?,
        }),
        "slice" => Encoding::Slice(SliceEncoding {
            dim: f.int("dim")?,
            parent: Box::new(f.attr("parent")?),
        }),
        "nvidia_mma" => Encoding::NvidiaMma(NvidiaMmaEncoding {
            version_major: f.int("versionMajor")?,
            version_minor: f.opt_int("versionMinor")?.unwrap_or(0),
            warps_per_cta: f.list("warpsPerCTA")?,
            instr_shape: f.list("instrShape")?,
            cta_layout: f.cta()?,
        }),
        "dot_op" => Encoding::DotOperand(DotOperandEncoding {
            op_idx: f.int("opIdx")?,
            parent: Box::new(f.attr("parent")?),
            k_width: f.opt_int("kWidth")?.unwrap_or(0),
        }),
        "linear" => Encoding::Linear(LinearEncoding::new(
            f.bases("register")?,
            f.bases("lane")?,
            f.bases("warp")?,
            f.bases("block")?,
        )),
        "swizzled_shared" => Encoding::SwizzledShared(SwizzledSharedEncoding {
            vec: f.int("vec")?,
            per_phase: f.int("perPhase")?,
            max_phase: f.int("maxPhase")?,
            order: f.list("order")?,
            cta_layout: f.cta()?,
        }),
        "nvmma_shared" => Encoding::NvmmaShared(NvmmaSharedEncoding {
            swizzling_byte_width: f.int("swizzlingByteWidth")?,
            transposed: f.opt_bool("transposed")?.unwrap_or(false),
            element_bit_width: f.int("elementBitWidth")?,
            fp4_padded: f.opt_bool("fp4Padded")?.unwrap_or(false),
            cta_layout: f.cta()?,
        }),
        other => return perr(format!("unsupported encoding #ttg.{other}")),
    };
    f.done()?;
    Ok(e)
}

const MNEMONICS: [&str; 7] = [
    "blocked",
    "slice",
    "nvidia_mma",
    "dot_op",
    "linear",
    "swizzled_shared",
    "nvmma_shared",
];

/// Parses one attribute, resolving `#alias` references through `aliases`.
pub fn parse_encoding_with(
    text: &str,
    aliases: &dyn Fn(&str) -> Option<Encoding>,
) -> Result<Encoding, LayoutError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        aliases,
    };
    let e = p.attr()?;
    if p.peek().is_some() {
        return perr(format!("trailing text '{}'", p.context()));
    }
    Ok(e)
}

/// Parses one self-contained attribute (parents written inline).
pub fn parse_encoding(text: &str) -> Result<Encoding, LayoutError> {
    parse_encoding_with(text, &|_| None)
}

impl FromStr for Encoding {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<Encoding, LayoutError> {
        parse_encoding(s)
    }
}

/// Parses the alias definitions of a module (`#blocked = #ttg.blocked<..>`
/// lines, each possibly referring to earlier aliases), skipping aliases of
/// anything else (`#loc`, `#ttg.shared_memory`, ...). Returns them in order.
pub fn parse_aliases(module_text: &str) -> Result<Vec<(String, Encoding)>, LayoutError> {
    let mut out: Vec<(String, Encoding)> = vec![];
    for line in module_text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        let Some((name, value)) = rest.split_once('=') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        let known = MNEMONICS.iter().any(|m| {
            value
                .strip_prefix("#ttg.")
                .and_then(|v| v.strip_prefix(m))
                .is_some_and(|v| v.starts_with('<'))
        });
        if !known || name.contains(char::is_whitespace) {
            continue;
        }
        let lookup = |a: &str| out.iter().find(|(n, _)| n == a).map(|(_, e)| e.clone());
        let e = parse_encoding_with(value, &lookup)?;
        out.push((name.to_string(), e));
    }
    Ok(out)
}
