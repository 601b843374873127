//! Host memory as kernels see it: each buffer at its own address, far from the others, so that a
//! pointer can be checked against the buffer it points into.

use crate::value::{Num, bits_to_float, float_to_bits, wrap};

/// Where buffer `i` starts: one 2^40-byte window per buffer, so that any in-bounds pointer
/// arithmetic of a kernel stays in its buffer's window and a stray one cannot alias another
/// buffer.
fn base_of(index: usize) -> u64 {
    (index as u64 + 1) << 40
}

/// A buffer a kernel argument points to.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The argument's name, for messages.
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Why an access failed (the caller adds the op and the element).
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    OutOfBounds { addr: u64, size: u64 },
    Unaligned { addr: u64, size: u64 },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::OutOfBounds { addr, size } => {
                write!(f, "out-of-bounds access of {size} bytes at {addr:#x}")
            }
            Fault::Unaligned { addr, size } => {
                write!(f, "unaligned access of {size} bytes at {addr:#x}")
            }
        }
    }
}

/// Every buffer of one launch.
#[derive(Debug, Default)]
pub struct Memory {
    pub buffers: Vec<Buffer>,
    /// Who wrote each address last, to find results that depend on the order of programs.
    pub writes: WriteLog,
}

/// Who touched an address: the program (linear index over the grid), the op and the element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writer {
    pub program: u64,
    pub op: usize,
    pub element: usize,
}

/// The last plain store to each address and the first atomic access of each, and the first
/// sign that the launch's results depend on an order a GPU does not fix: two programs (or two
/// elements of one store) storing different values to one address, or the value an atomic
/// returns being used where another program or element accesses the address atomically too.
#[derive(Debug, Default)]
pub struct WriteLog {
    stores: std::collections::HashMap<u64, (Writer, u64)>,
    atomics: std::collections::HashMap<u64, Writer>,
    pub run_specific: Option<String>,
}

impl WriteLog {
    /// Records a plain store of `bits` at `addr`; a description of the conflict when it makes
    /// the launch order-dependent (the first time only).
    pub fn store(&mut self, addr: u64, bits: u64, writer: Writer) -> Option<String> {
        let (previous, old) = self.stores.insert(addr, (writer, bits))?;
        let conflict = old != bits
            && (previous.program != writer.program
                || (previous.op == writer.op && previous.element != writer.element));
        (conflict && self.run_specific.is_none()).then(|| {
            format!(
                "programs {} and {} store different values to one address",
                previous.program, writer.program
            )
        })
    }

    /// Records an atomic access of `addr`, whose returned value may be used (`result_used`) and
    /// whose effect may depend on the order of accesses (`ordered`: exchange, compare-and-swap);
    /// a description when it makes the launch order-dependent (the first time only).
    pub fn atomic(
        &mut self,
        addr: u64,
        writer: Writer,
        result_used: bool,
        ordered: bool,
    ) -> Option<String> {
        let first = *self.atomics.entry(addr).or_insert(writer);
        ((result_used || ordered) && first != writer && self.run_specific.is_none()).then(|| {
            format!(
                "what atomics leave or return depends on the order of programs {} and {}",
                first.program, writer.program
            )
        })
    }
}

impl Memory {
    /// Adds a buffer; returns its base address.
    pub fn add(&mut self, buffer: Buffer) -> u64 {
        self.buffers.push(buffer);
        base_of(self.buffers.len() - 1)
    }

    /// The buffer and byte offset of `size` bytes at `addr`, checked.
    fn locate(&self, addr: u64, size: u64) -> Result<(usize, usize), Fault> {
        let index = (addr >> 40) as usize;
        let buffer = index
            .checked_sub(1)
            .and_then(|i| self.buffers.get(i).map(|b| (i, b)));
        let Some((i, buffer)) = buffer else {
            return Err(Fault::OutOfBounds { addr, size });
        };
        let offset = addr - base_of(i);
        if offset + size > buffer.bytes.len() as u64 {
            return Err(Fault::OutOfBounds { addr, size });
        }
        if !addr.is_multiple_of(size) {
            return Err(Fault::Unaligned { addr, size });
        }
        Ok((i, offset as usize))
    }

    /// Which buffer `addr` belongs to and its offset there, for messages.
    pub fn whereabouts(&self, addr: u64) -> String {
        let index = (addr >> 40) as usize;
        match index.checked_sub(1).and_then(|i| self.buffers.get(i)) {
            Some(b) => format!(
                "byte {} of `{}` ({} bytes)",
                (addr as i64).wrapping_sub(base_of(index - 1) as i64),
                b.name,
                b.bytes.len()
            ),
            None => "outside every buffer".to_owned(),
        }
    }

    /// Reads `num`'s bytes at `addr` as bits.
    pub fn read_bits(&self, addr: u64, num: Num) -> Result<u64, Fault> {
        let size = num.bytes();
        let (i, offset) = self.locate(addr, size)?;
        let mut bytes = [0u8; 8];
        bytes[..size as usize]
            .copy_from_slice(&self.buffers[i].bytes[offset..offset + size as usize]);
        Ok(u64::from_le_bytes(bytes))
    }

    pub fn write_bits(&mut self, addr: u64, num: Num, bits: u64) -> Result<(), Fault> {
        let size = num.bytes();
        let (i, offset) = self.locate(addr, size)?;
        self.buffers[i].bytes[offset..offset + size as usize]
            .copy_from_slice(&bits.to_le_bytes()[..size as usize]);
        Ok(())
    }

    /// Notes where a launch became order-dependent: `what` at `addr`.
    pub fn note_run_specific(&mut self, addr: u64, what: String) {
        let at = self.whereabouts(addr);
        self.writes.run_specific = Some(format!("{at}: {what}"));
    }

    /// Checks that `num` at `addr` may be accessed.
    pub fn check(&self, addr: u64, num: Num) -> Result<(), Fault> {
        self.locate(addr, num.bytes()).map(|_| ())
    }
}

/// The interpreter's form of stored bits: `(int, float)` per the type.
pub fn decode(num: Num, bits: u64) -> Scalar {
    match num {
        Num::Int(w) => Scalar::I(wrap(w, bits as i64)),
        Num::Addr => Scalar::I(bits as i64),
        _ => Scalar::F(bits_to_float(num, bits)),
    }
}

/// The stored bits of a value.
pub fn encode(num: Num, value: Scalar) -> u64 {
    match value {
        Scalar::I(v) => match num {
            Num::Int(w) if w < 64 => (v as u64) & ((1u64 << w.max(8)) - 1) & mask_bits(w),
            _ => v as u64,
        },
        Scalar::F(x) => float_to_bits(num, x),
    }
}

/// Bits a stored integer of width `w` keeps: all of its bytes (an `i1` is stored as 0 or 1).
fn mask_bits(w: u32) -> u64 {
    if w == 1 { 1 } else { u64::MAX }
}

/// One element.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    I(i64),
    F(f64),
}
