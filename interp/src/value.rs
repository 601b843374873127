//! Values of the interpreter: element types, blocks (tensors and scalars) and their element
//! semantics (integer wrapping, rounding to each float type).

use std::rc::Rc;

/// A scalar type as it lies in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Num {
    /// Signless integer of this many bits (`i1` .. `i64`; `index` is 64).
    Int(u32),
    F16,
    BF16,
    F32,
    F64,
    F8E4M3FN,
    F8E5M2,
    /// A pointer stored in memory (`!tt.ptr<!tt.ptr<T>>`'s pointee).
    Addr,
}

impl Num {
    /// Bytes one element occupies in memory (`i1` as a byte, as Triton stores bools).
    pub fn bytes(self) -> u64 {
        match self {
            Num::Int(w) => u64::from(w.div_ceil(8).max(1)),
            Num::F16 | Num::BF16 => 2,
            Num::F32 => 4,
            Num::F64 | Num::Addr => 8,
            Num::F8E4M3FN | Num::F8E5M2 => 1,
        }
    }

    pub fn is_float(self) -> bool {
        !matches!(self, Num::Int(_) | Num::Addr)
    }

    /// Bits of the type (`i1`: 1).
    pub fn bits(self) -> u32 {
        match self {
            Num::Int(w) => w,
            _ => (self.bytes() * 8) as u32,
        }
    }

    /// Machine epsilon: the spacing of values just above 1.
    pub fn epsilon(self) -> f64 {
        match self {
            Num::F16 => half::f16::EPSILON.to_f64(),
            Num::BF16 => half::bf16::EPSILON.to_f64(),
            Num::F32 => f32::EPSILON as f64,
            Num::F64 => f64::EPSILON,
            Num::F8E4M3FN => 0.125,
            Num::F8E5M2 => 0.25,
            Num::Int(_) | Num::Addr => 0.0,
        }
    }
}

/// The element type of a value: a number, or a pointer to numbers of a type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    Num(Num),
    Ptr(Num),
}

impl Elem {
    pub fn is_float(self) -> bool {
        matches!(self, Elem::Num(n) if n.is_float())
    }

    /// The integer width, for integers.
    pub fn int_width(self) -> Option<u32> {
        match self {
            Elem::Num(Num::Int(w)) => Some(w),
            _ => None,
        }
    }

    /// How an element of this type is stored (pointers: 8-byte addresses).
    pub fn storage(self) -> Num {
        match self {
            Elem::Num(n) => n,
            Elem::Ptr(_) => Num::Addr,
        }
    }
}

/// Element data: integers (sign-extended from their width) and addresses as `i64`, floats as the
/// `f64` that equals the element exactly.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    I(Vec<i64>),
    F(Vec<f64>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::I(v) => v.len(),
            Data::F(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements at `indices`, in that order.
    pub fn gather(&self, indices: impl Iterator<Item = usize>) -> Data {
        match self {
            Data::I(v) => Data::I(indices.map(|i| v[i]).collect()),
            Data::F(v) => Data::F(indices.map(|i| v[i]).collect()),
        }
    }

    pub fn zeros(float: bool, n: usize) -> Data {
        if float {
            Data::F(vec![0.0; n])
        } else {
            Data::I(vec![0; n])
        }
    }
}

/// A block of elements (a scalar is shape `[]`), row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub elem: Elem,
    pub shape: Vec<usize>,
    pub data: Data,
}

impl Tensor {
    pub fn new(elem: Elem, shape: Vec<usize>, data: Data) -> Tensor {
        debug_assert_eq!(shape.iter().product::<usize>(), data.len());
        Tensor { elem, shape, data }
    }

    pub fn scalar_int(elem: Elem, v: i64) -> Tensor {
        Tensor::new(elem, Vec::new(), Data::I(vec![v]))
    }

    pub fn numel(&self) -> usize {
        self.data.len()
    }

    pub fn ints(&self) -> Option<&[i64]> {
        match &self.data {
            Data::I(v) => Some(v),
            Data::F(_) => None,
        }
    }

    pub fn floats(&self) -> Option<&[f64]> {
        match &self.data {
            Data::F(v) => Some(v),
            Data::I(_) => None,
        }
    }
}

/// A block pointer (`tt.make_tensor_ptr`): a view of a strided tensor in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockPtr {
    pub base: u64,
    pub pointee: Num,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offsets: Vec<i64>,
    pub block: Vec<usize>,
}

/// A tensor descriptor (`tt.make_tensor_descriptor`): loads and stores of `block` tiles, with
/// every out-of-bounds element zero on load and dropped on store.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDesc {
    pub base: u64,
    pub pointee: Num,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub block: Vec<usize>,
    /// `tt.make_tensor_descriptor`'s padding: NaN instead of zero for out-of-bounds loads.
    pub pad_nan: bool,
}

/// A view of a shared-memory buffer (`!ttg.memdesc`): the buffer's element at `index[i]` is
/// element `i` of the view, in row-major order of `shape`. Sub-views (`ttg.memdesc_index`,
/// `memdesc_subslice`, `memdesc_trans`, `memdesc_reshape`) only select and order indices.
#[derive(Clone, Debug)]
pub struct SharedView {
    pub buffer: Rc<std::cell::RefCell<Data>>,
    pub elem: Elem,
    pub shape: Vec<usize>,
    pub index: Vec<usize>,
}

impl SharedView {
    /// The view's elements as a block.
    pub fn read(&self) -> Tensor {
        let data = self.buffer.borrow().gather(self.index.iter().copied());
        Tensor::new(self.elem, self.shape.clone(), data)
    }

    /// Writes `value` (of the view's shape) into the buffer, where `on` (all when `None`).
    pub fn write(&self, value: &Tensor, on: Option<&[bool]>) {
        let mut buffer = self.buffer.borrow_mut();
        for (i, &at) in self.index.iter().enumerate() {
            if on.is_some_and(|on| !on[i]) {
                continue;
            }
            match (&mut *buffer, &value.data) {
                (Data::I(b), Data::I(v)) => b[at] = v[i.min(v.len() - 1)],
                (Data::F(b), Data::F(v)) => b[at] = v[i.min(v.len() - 1)],
                _ => {}
            }
        }
    }
}

/// A value the interpreter holds.
#[derive(Clone, Debug)]
pub enum Val {
    T(Rc<Tensor>),
    Block(Rc<BlockPtr>),
    Desc(Rc<TensorDesc>),
    Shared(Rc<SharedView>),
    /// An asynchronous-copy token: copies complete at once here.
    Token,
}

impl Val {
    pub fn tensor(t: Tensor) -> Val {
        Val::T(Rc::new(t))
    }
}

/// Sign-extends the low `width` bits of `v` (the canonical form of an `i<width>`).
pub fn wrap(width: u32, v: i64) -> i64 {
    if width >= 64 {
        v
    } else {
        let shift = 64 - width;
        (v << shift) >> shift
    }
}

/// The low `width` bits of `v`, zero-extended (the unsigned reading).
pub fn unsigned(width: u32, v: i64) -> u64 {
    if width >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << width) - 1)
    }
}

/// `x` rounded to nearest-even in `num` (saturating to the largest finite value for the fp8
/// types, which have no infinity or, for e4m3fn, no infinity to overflow to).
pub fn round(num: Num, x: f64) -> f64 {
    match num {
        Num::F64 => x,
        Num::F32 => x as f32 as f64,
        Num::F16 => half::f16::from_f64(x).to_f64(),
        Num::BF16 => bf16_nearest(x).to_f64(),
        Num::F8E4M3FN => float8::F8E4M3::from_f64(x).to_f64(),
        Num::F8E5M2 => {
            // Infinities stay infinities; only finite values saturate.
            if x.is_infinite() {
                x
            } else {
                float8::F8E5M2::from_f64(x).to_f64()
            }
        }
        Num::Int(_) | Num::Addr => x,
    }
}

/// `x` rounded to nearest-even bf16. `half::bf16::from_f64` misrounds some values just above a
/// midpoint (2.851564 becomes 2.84375), so this rounds to f32 with round-to-odd first, which
/// keeps the information a second rounding needs, then uses the (correct) f32 conversion.
fn bf16_nearest(x: f64) -> half::bf16 {
    let mut r = x as f32;
    if (r as f64).abs() > x.abs() {
        r = f32::from_bits(r.to_bits() - 1);
    }
    if (r as f64) != x && !x.is_nan() {
        r = f32::from_bits(r.to_bits() | 1);
    }
    half::bf16::from_f32(r)
}

/// The bits of float `x` (exact in `num`) as `num` stores it.
pub fn float_to_bits(num: Num, x: f64) -> u64 {
    match num {
        Num::F64 => x.to_bits(),
        Num::F32 => u64::from((x as f32).to_bits()),
        Num::F16 => u64::from(half::f16::from_f64(x).to_bits()),
        Num::BF16 => u64::from(bf16_nearest(x).to_bits()),
        Num::F8E4M3FN => {
            if x.is_nan() {
                0x7f
            } else {
                u64::from(float8::F8E4M3::from_f64(x).to_bits())
            }
        }
        Num::F8E5M2 => {
            if x.is_infinite() {
                if x > 0.0 { 0x7c } else { 0xfc }
            } else {
                u64::from(float8::F8E5M2::from_f64(x).to_bits())
            }
        }
        Num::Int(_) | Num::Addr => x as u64,
    }
}

/// The value of float `bits` of type `num`.
pub fn bits_to_float(num: Num, bits: u64) -> f64 {
    match num {
        Num::F64 => f64::from_bits(bits),
        Num::F32 => f32::from_bits(bits as u32) as f64,
        Num::F16 => half::f16::from_bits(bits as u16).to_f64(),
        Num::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        Num::F8E4M3FN => float8::F8E4M3::from_bits(bits as u8).to_f64(),
        Num::F8E5M2 => float8::F8E5M2::from_bits(bits as u8).to_f64(),
        Num::Int(_) | Num::Addr => bits as f64,
    }
}

/// `x` rounded toward zero in `num`: round to nearest, then one step back toward zero when that
/// went away from zero.
pub fn round_toward_zero(num: Num, x: f64) -> f64 {
    let nearest = round(num, x);
    if x.is_nan() || nearest.abs() <= x.abs() {
        return nearest;
    }
    // Floats of one sign are ordered like their magnitude bits: one step down is one bit less.
    bits_to_float(num, float_to_bits(num, nearest) - 1)
}

/// Integer `v` of `from` (signed or not) converted to float `num`, rounded once.
pub fn int_to_float(num: Num, v: i64, width: u32, signed: bool) -> f64 {
    let value = if signed {
        wrap(width, v) as i128
    } else {
        unsigned(width, v) as i128
    };
    match num {
        // Rust's integer-to-float conversions round once, to nearest-even.
        Num::F32 => value as f32 as f64,
        Num::F64 => value as f64,
        _ => round(num, value as f64),
    }
}

/// Float `x` converted to an integer of `width` bits, toward zero, saturating at the type's
/// bounds; NaN is 0 (as PTX's `cvt.rzi`).
pub fn float_to_int(x: f64, width: u32, signed: bool) -> i64 {
    if x.is_nan() {
        return 0;
    }
    if signed {
        let max = if width >= 64 {
            i64::MAX as f64
        } else {
            ((1i64 << (width - 1)) - 1) as f64
        };
        let min = if width >= 64 {
            i64::MIN as f64
        } else {
            -((1i64 << (width - 1)) as f64)
        };
        if x >= max {
            return wrap(width, max as i64);
        }
        if x <= min {
            return wrap(width, min as i64);
        }
        wrap(width, x.trunc() as i64)
    } else {
        if x <= 0.0 {
            return 0;
        }
        let max = if width >= 64 {
            u64::MAX as f64
        } else {
            ((1u64 << width) - 1) as f64
        };
        if x >= max {
            return wrap(width, if width >= 64 { -1 } else { (1i64 << width) - 1 });
        }
        wrap(width, x.trunc() as u64 as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_to_their_width() {
        assert_eq!(wrap(8, 200), -56);
        assert_eq!(wrap(1, 1), -1);
        assert_eq!(unsigned(8, -1), 255);
        assert_eq!(wrap(32, i64::from(u32::MAX)), -1);
    }

    #[test]
    fn floats_round_to_nearest_even_per_type() {
        assert_eq!(round(Num::F16, 1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(
            round(Num::F16, 1.0 + 3.0 * 2f64.powi(-11)),
            1.0 + 2f64.powi(-9)
        );
        assert_eq!(round(Num::BF16, 1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(round(Num::BF16, 2.851564), 2.859375);
        assert_eq!(round(Num::BF16, 1e39), f64::INFINITY);
        assert_eq!(round(Num::F8E4M3FN, 1000.0), 448.0);
        assert_eq!(round(Num::F8E5M2, 1e6), 57344.0);
        assert_eq!(
            round_toward_zero(Num::F16, 1.0 + 3.0 * 2f64.powi(-11)),
            1.0 + 2f64.powi(-10)
        );
        assert_eq!(round_toward_zero(Num::F16, -1e6), -65504.0);
    }

    #[test]
    fn float_to_int_saturates() {
        assert_eq!(float_to_int(1e10, 32, true), i64::from(i32::MAX));
        assert_eq!(float_to_int(-1e10, 8, true), -128);
        assert_eq!(float_to_int(-3.0, 8, false), 0);
        assert_eq!(float_to_int(300.0, 8, false), wrap(8, 255));
        assert_eq!(float_to_int(f64::NAN, 32, true), 0);
        assert_eq!(float_to_int(-2.7, 32, true), -2);
    }

    #[test]
    fn fp8_bits_round_trip() {
        for b in 0u64..=255 {
            let x = bits_to_float(Num::F8E4M3FN, b);
            if !x.is_nan() {
                assert_eq!(
                    bits_to_float(Num::F8E4M3FN, float_to_bits(Num::F8E4M3FN, x)),
                    x
                );
            }
            let y = bits_to_float(Num::F8E5M2, b);
            if !y.is_nan() {
                assert_eq!(bits_to_float(Num::F8E5M2, float_to_bits(Num::F8E5M2, y)), y);
            }
        }
    }
}
