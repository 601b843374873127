//! `ttg.local_alloc` / `local_store` / `local_load` / `local_dealloc`: tensors staged in shared
//! memory at the offset `-allocate-shared-memory` gave the buffer. Shared layouts without
//! swizzling (`#ttg.swizzled_shared` with maxPhase 1) address elements in their `order`
//! (fastest dimension first). A buffer whose only readers are dot operands is not written here:
//! `tt.dot` stages its operands itself, so the data goes through shared memory once.

use crate::builder::*;
use crate::state::*;
use mlir_sys::*;
use tritium_dialects::ffi::ttg;
use tritium_layout::encoding::Encoding;
use tritium_passes::ir_util::*;

/// A memdesc: where its buffer starts and how its elements are laid out.
#[derive(Clone, Debug)]
pub struct SharedBuffer {
    pub base: Value,
    pub shape: Vec<u32>,
    /// Dimensions fastest first.
    pub order: Vec<u32>,
    pub elem: MlirType,
    pub addressing: Addressing,
}

/// How a buffer maps a tensor coordinate to an element offset.
#[derive(Clone, Debug, PartialEq)]
pub enum Addressing {
    /// Row-major over the dimensions in `order` (any shape): unswizzled layouts.
    Ordered,
    /// The inverse of the shared layout's linear map (swizzled layouts, power-of-two shapes):
    /// bit `i` of dimension `d` of the coordinate XORs `bits[d][i]` into the offset, and so does
    /// `origin` (a `ttg.memdesc_subslice` view's start, which in a swizzled layout XORs rather
    /// than adds).
    Linear { bits: Vec<Vec<u32>>, origin: u32 },
}

impl SharedBuffer {
    /// Whether `other` lays out the same elements in the same way (any base): two buffers one
    /// loop-carried or conditional memdesc may stand for.
    pub fn same_layout(&self, other: &SharedBuffer) -> bool {
        self.shape == other.shape
            && self.order == other.order
            && self.elem.ptr == other.elem.ptr
            && self.addressing == other.addressing
    }
}

impl Addressing {
    /// The offset of a compile-time coordinate (the `Linear` map; `Ordered` buffers address
    /// through [`FuncLowering::ordered_index`]).
    pub fn offset_of(&self, coord: &[u32]) -> u32 {
        let Addressing::Linear { bits, .. } = self else {
            return 0;
        };
        let mut offset = 0;
        for (d, &c) in coord.iter().enumerate() {
            for (i, &b) in bits
                .get(d)
                .map(|v| v.as_slice())
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                if c >> i & 1 == 1 {
                    offset ^= b;
                }
            }
        }
        offset
    }

    /// The element offset of a coordinate: [`Self::offset_of`] XOR the view's origin.
    pub fn offset_at(&self, coord: &[u32]) -> u32 {
        self.offset_of(coord) ^ self.origin()
    }

    pub fn origin(&self) -> u32 {
        match self {
            Addressing::Linear { origin, .. } => *origin,
            Addressing::Ordered => 0,
        }
    }
}

/// The element offset map of a shared encoding over `shape`: the inverse of its linear layout
/// (offset → coordinate), read as one XOR term per coordinate bit.
pub fn linear_addressing(encoding: &Encoding, shape: &[u32]) -> Result<Addressing, String> {
    use tritium_layout::linear::{OFFSET, out_dim_name};
    // Leading (outermost) dims of a multi-buffered allocation may have any size (3 stages):
    // their offsets are multiples of the inner size either way, so the map of the shape rounded
    // up to powers of two addresses every element of the real one.
    let rank = shape.len();
    let leading = rank.saturating_sub(2);
    if !shape[leading..].iter().all(|d| d.is_power_of_two()) {
        return Err(format!(
            "a swizzled shared-memory buffer needs power-of-two dimensions, got {shape:?}"
        ));
    }
    let rounded: Vec<u32> = shape.iter().map(|d| d.next_power_of_two()).collect();
    let shape = &rounded[..];
    let layout = encoding.to_linear(shape).map_err(|e| e.to_string())?;
    let inverse = layout.invert().map_err(|e| e.to_string())?;
    let bits = (0..shape.len())
        .map(|d| {
            let name = out_dim_name(d);
            inverse
                .bases(&name)
                .iter()
                .map(|basis| {
                    let names = inverse.out_dim_names();
                    let at = names.iter().position(|n| *n == OFFSET).unwrap_or(0);
                    basis.get(at).copied().unwrap_or(0)
                })
                .collect()
        })
        .collect();
    Ok(Addressing::Linear { bits, origin: 0 })
}

/// The shape of a `!ttg.memdesc` type.
fn memdesc_shape(op: MlirOperation, memdesc: MlirType) -> LResult<Vec<u32>> {
    // SAFETY: `memdesc` is a memdesc (checked by the caller); the first call only asks the rank,
    // the second writes at most `rank` entries into a buffer of that length.
    let dims = unsafe {
        let rank = ttg::tritiumMemDescTypeGetShape(memdesc, std::ptr::null_mut(), 0).max(0);
        let mut dims = vec![0i64; rank as usize];
        if rank > 0 {
            ttg::tritiumMemDescTypeGetShape(memdesc, dims.as_mut_ptr(), rank);
        }
        dims
    };
    dims.iter()
        .map(|&d| match u32::try_from(d) {
            Ok(d) if d > 0 => Ok(d),
            _ => err(op, "a shared-memory buffer needs a static, positive shape"),
        })
        .collect()
}

/// Shape, order (fastest first), element type and addressing of a `!ttg.memdesc` the lowering
/// can address.
fn memdesc_layout(
    op: MlirOperation,
    ty: MlirType,
) -> LResult<(Vec<u32>, Vec<u32>, MlirType, Addressing)> {
    // SAFETY: type query on a live type.
    if !unsafe { ttg::tritiumTypeIsMemDesc(ty) } {
        return err(op, "expected a !ttg.memdesc");
    }
    let shape = memdesc_shape(op, ty)?;
    // SAFETY: `ty` is a memdesc.
    let elem = unsafe { ttg::tritiumMemDescTypeGetElementType(ty) };
    let encoding = memdesc_encoding_of(ty);
    let (order, swizzled) = match &encoding {
        Some(Encoding::SwizzledShared(shared)) => {
            // An order over the trailing dims only: the leading (buffer-index) dims are slowest.
            let lead = shape.len().saturating_sub(shared.order.len()) as u32;
            let mut order: Vec<u32> = shared.order.iter().map(|d| d + lead).collect();
            order.extend((0..lead).rev());
            (order, shared.max_phase > 1)
        }
        Some(Encoding::NvmmaShared(shared)) => (shared.order(shape.len()), true),
        _ => {
            return err(
                op,
                "the buffer's shared layout is not supported by the lowering yet (only #ttg.swizzled_shared and #ttg.nvmma_shared)",
            );
        }
    };
    let mut sorted = order.clone();
    sorted.sort_unstable();
    if !sorted.iter().copied().eq(0..shape.len() as u32) {
        return err(
            op,
            "the shared layout's order must be a permutation of the buffer's dimensions",
        );
    }
    // A ring of swizzled buffers keeps its one buffer's encoding: its leading (buffer-index)
    // dims become the slowest dims of the same swizzle.
    let encoding = match encoding {
        Some(Encoding::SwizzledShared(shared)) if shared.order.len() < shape.len() => {
            let mut ring = shared.clone();
            ring.order = order.clone();
            Some(Encoding::SwizzledShared(ring))
        }
        other => other,
    };
    let addressing = match (&encoding, swizzled) {
        (Some(encoding), true) => match linear_addressing(encoding, &shape) {
            Ok(addressing) => addressing,
            Err(message) => return err(op, message),
        },
        _ => Addressing::Ordered,
    };
    Ok((shape, order, elem, addressing))
}

/// Elements a thread moves per shared-memory access of `map` in `buffer` (at most 16 bytes):
/// the largest power of two `v` such that every aligned group of `v` registers holds `v`
/// consecutive elements along the buffer's fastest dimension starting at a multiple of `v`, and
/// no lane or warp moves that start off a multiple of `v` (so the address is `v`-aligned). 1
/// for element types that are not 16 or 32 bits wide. Stores also need no duplicated register
/// inside a group (duplicates are skipped one by one).
/// The bits an element takes in shared memory: an `i1` is a byte.
fn storage_bits(elem: MlirType) -> u32 {
    match type_bits(elem) {
        1 => 8,
        bits => bits,
    }
}

/// How a thread's registers go to or from `buffer` in vectors: `width` elements, the registers
/// `base + k * stride` (k < width) of every group, the bases being the registers whose index
/// has no bit of `stride * (width - 1)` set. The registers of a vector are consecutive in the
/// layout's own order (stride 1) or, when the buffer's contiguous dim is not the registers'
/// fastest (a tile transposed on its way into a K-major wgmma operand), a stride apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct VectorPlan {
    width: usize,
    stride: usize,
}

impl VectorPlan {
    const SCALAR: VectorPlan = VectorPlan {
        width: 1,
        stride: 1,
    };

    /// The first register of each vector, in register order.
    fn bases(self, count: usize) -> impl Iterator<Item = usize> {
        let span = self.stride * self.width;
        (0..count).filter(move |r| (r % span) < self.stride)
    }

    /// The registers of the vector starting at `base`.
    fn members(self, base: usize) -> impl Iterator<Item = usize> {
        (0..self.width).map(move |k| base + k * self.stride)
    }
}

fn vector_plan(
    map: &crate::layout_map::ThreadMap,
    buffer: &SharedBuffer,
    store: bool,
) -> VectorPlan {
    let bits = storage_bits(buffer.elem);
    if !(bits == 8 || bits == 16 || bits == 32)
        || is_pointer(buffer.elem)
        || buffer.order.is_empty()
    {
        return VectorPlan::SCALAR;
    }
    let count = map.num_registers();
    // A swizzled buffer's register offsets, computed once for every stride tried.
    let linear = match buffer.addressing {
        Addressing::Linear { .. } => Some(LinearOffsets {
            thread_mask: thread_offset_mask(map, &buffer.addressing),
            registers: map
                .registers
                .iter()
                .map(|c| buffer.addressing.offset_at(c))
                .collect(),
        }),
        Addressing::Ordered => None,
    };
    let mut best = VectorPlan::SCALAR;
    let mut stride = 1;
    while stride < count {
        let width = match &linear {
            Some(offsets) => linear_vector_width(map, buffer, offsets, store, stride),
            None => ordered_vector_width(map, buffer, store, stride),
        };
        if width > best.width {
            best = VectorPlan { width, stride };
        }
        stride *= 2;
    }
    best
}

/// [`vector_plan`]'s width at `stride` for an unswizzled buffer: each group's registers are
/// consecutive along the buffer's contiguous dim from a multiple of the width, and no lane or
/// warp moves a thread along it by less.
fn ordered_vector_width(
    map: &crate::layout_map::ThreadMap,
    buffer: &SharedBuffer,
    store: bool,
    stride: usize,
) -> usize {
    let bits = storage_bits(buffer.elem);
    let fast = buffer.order[0] as usize;
    let Some(&extent) = buffer.shape.get(fast) else {
        return 1;
    };
    let count = map.num_registers();
    let mut vec = (128 / bits) as usize;
    // Vectors are whole b32 words (a byte pair would be stored as a word).
    while vec > 1 && vec as u32 * bits >= 32 {
        let v = vec as u32;
        let plan = VectorPlan { width: vec, stride };
        let threads_aligned = map
            .lane_bases
            .iter()
            .chain(&map.warp_bases)
            .all(|basis| basis.get(fast).is_some_and(|&c| c % v == 0));
        let groups_contiguous = count.is_multiple_of(vec * stride)
            && plan.bases(count).all(|start| {
                let first = &map.registers[start];
                first.get(fast).is_some_and(|&c| c % v == 0)
                    && plan.members(start).enumerate().skip(1).all(|(k, r)| {
                        let next = &map.registers[r];
                        (!store || !map.register_duplicate[r])
                            && next.len() == first.len()
                            && next.iter().zip(first).enumerate().all(|(d, (&n, &f))| {
                                if d == fast { n == f + k as u32 } else { n == f }
                            })
                    })
            });
        if extent.is_multiple_of(v) && threads_aligned && groups_contiguous {
            return vec;
        }
        vec /= 2;
    }
    1
}

/// Elements a thread can write per access of `map` into `buffer` (as `ttg.local_alloc` does).
pub fn store_vector_width(map: &crate::layout_map::ThreadMap, buffer: &SharedBuffer) -> usize {
    vector_plan(map, buffer, true).width
}

/// [`vector_plan`]'s width at `stride` for a swizzled buffer: every group of `v` registers
/// lands on `v` consecutive offsets starting at a multiple of `v`, and no lane or warp bit
/// moves the offset by less than `v` elements.
/// A swizzled buffer's element offsets of a thread's registers, and the offset bits its lane and
/// warp can set.
struct LinearOffsets {
    thread_mask: u32,
    registers: Vec<u32>,
}

fn linear_vector_width(
    map: &crate::layout_map::ThreadMap,
    buffer: &SharedBuffer,
    linear: &LinearOffsets,
    store: bool,
    stride: usize,
) -> usize {
    let bits = storage_bits(buffer.elem);
    let thread_mask = linear.thread_mask;
    let offsets = &linear.registers;
    let count = offsets.len();
    let mut vec = (128 / bits) as usize;
    // Vectors are whole b32 words.
    while vec > 1 && vec as u32 * bits >= 32 {
        let v = vec as u32;
        let plan = VectorPlan { width: vec, stride };
        let fits = count.is_multiple_of(vec * stride)
            && thread_mask & (v - 1) == 0
            && plan.bases(count).all(|start| {
                offsets[start].is_multiple_of(v)
                    && plan.members(start).enumerate().skip(1).all(|(k, r)| {
                        (!store || !map.register_duplicate[r])
                            && offsets[r] == offsets[start] + k as u32
                    })
            });
        if fits {
            return vec;
        }
        vec /= 2;
    }
    1
}

/// The offset bits a thread's lane and warp can set in a `Linear` buffer.
fn thread_offset_mask(map: &crate::layout_map::ThreadMap, addressing: &Addressing) -> u32 {
    map.lane_bases
        .iter()
        .chain(&map.warp_bases)
        .fold(0, |mask, basis| mask | addressing.offset_of(basis))
}

/// The buffer as a `Linear` map (row-major unswizzled buffers of power-of-two shapes are linear
/// too), for views whose origin must XOR in.
fn as_linear(op: MlirOperation, buffer: &SharedBuffer) -> LResult<Addressing> {
    match &buffer.addressing {
        Addressing::Linear { .. } => Ok(buffer.addressing.clone()),
        Addressing::Ordered => {
            if !buffer.shape.iter().all(|d| d.is_power_of_two()) {
                return err(
                    op,
                    "a view into a buffer of non-power-of-two shape is not supported",
                );
            }
            Ok(as_linear_terms(buffer))
        }
    }
}

/// How one `ldmatrix.x4` (or `stmatrix.x4`) moves eight registers of a layout between a buffer
/// and registers: the element offsets (XOR terms) each lane's row address is made of.
struct MatrixAccess {
    trans: bool,
    /// The offset term of each lane bit for the row address the lane supplies (rows of
    /// matrix `lane / 8`, row `lane % 8`).
    lane_terms: [u32; 5],
    warp_terms: Vec<u32>,
}

/// The row offsets of a [`MatrixAccess`]: the buffer's XOR-linear map, each lane's row term,
/// and the offset bits that row term can set.
struct MatrixRows {
    addressing: Addressing,
    row: Value,
    thread_bits: u32,
}

/// Whether `ldmatrix` reads (and `stmatrix` writes) `map`'s registers in `buffer` (16-bit
/// elements): with
/// `r`, `l`, `w` the offset terms of the register, lane and warp bits (offsets are XOR-linear),
/// each group of eight registers is four 8x8 matrices of 16-byte rows:
/// - plain: register bit 0 and lane bits 0, 1 step 1, 2, 4 elements along a row, lane bits
///   2..4 pick the row, register bits 1, 2 the matrix;
/// - `.trans`: lane bits 2..4 step 1, 2, 4 along a row, register bit 0 and lane bits 0, 1 pick
///   the row, register bits 1, 2 the matrix;
///
/// and every other term (higher registers, warps, the view's origin) keeps rows 16-byte aligned.
fn matrix_plan(map: &crate::layout_map::ThreadMap, buffer: &SharedBuffer) -> Option<MatrixAccess> {
    if storage_bits(buffer.elem) != 16 || is_pointer(buffer.elem) || map.lane_bases.len() != 5 {
        return None;
    }
    let count = map.num_registers();
    if count < 8 || !count.is_power_of_two() || map.registers.len() != count {
        return None;
    }
    let addressing = match &buffer.addressing {
        Addressing::Linear { .. } => buffer.addressing.clone(),
        Addressing::Ordered => {
            if !buffer.shape.iter().all(|d| d.is_power_of_two()) {
                return None;
            }
            as_linear_terms(buffer)
        }
    };
    let reg_bits = count.trailing_zeros() as usize;
    let r: Vec<u32> = (0..reg_bits)
        .map(|i| addressing.offset_of(&map.registers[1 << i]))
        .collect();
    // The registers' offsets must be the XOR of their bits' terms.
    let linear = (0..count).all(|index| {
        let want = (0..reg_bits)
            .filter(|i| index >> i & 1 == 1)
            .fold(0, |acc, i| acc ^ r[i]);
        addressing.offset_of(&map.registers[index]) == want
    });
    if !linear {
        return None;
    }
    let l: Vec<u32> = map
        .lane_bases
        .iter()
        .map(|b| addressing.offset_of(b))
        .collect();
    let w: Vec<u32> = map
        .warp_bases
        .iter()
        .map(|b| addressing.offset_of(b))
        .collect();
    let aligned = |terms: &[u32]| terms.iter().all(|t| t % 8 == 0);
    let rest_aligned = aligned(&r[3..]) && aligned(&w) && addressing.origin() % 8 == 0;
    if r[0] == 1 && l[0] == 2 && l[1] == 4 && aligned(&[l[2], l[3], l[4], r[1], r[2]]) {
        return rest_aligned.then(|| MatrixAccess {
            trans: false,
            lane_terms: [l[2], l[3], l[4], r[1], r[2]],
            warp_terms: w,
        });
    }
    if l[2] == 1 && l[3] == 2 && l[4] == 4 && aligned(&[r[0], l[0], l[1], r[1], r[2]]) {
        return rest_aligned.then(|| MatrixAccess {
            trans: true,
            lane_terms: [r[0], l[0], l[1], r[1], r[2]],
            warp_terms: w,
        });
    }
    None
}

/// An `Ordered` buffer's offsets as XOR terms (power-of-two shapes, checked by
/// [`matrix_plan`]).
fn as_linear_terms(buffer: &SharedBuffer) -> Addressing {
    let mut bits = vec![Vec::new(); buffer.shape.len()];
    let mut stride = 1u32;
    for &d in &buffer.order {
        let d = d as usize;
        bits[d] = (0..buffer.shape[d].trailing_zeros())
            .map(|i| stride << i)
            .collect();
        stride *= buffer.shape[d];
    }
    Addressing::Linear { bits, origin: 0 }
}

/// `ttg.memdesc_subslice`: the sub-buffer starting at constant `offsets`.
fn subslice_view(
    op: MlirOperation,
    buffer: SharedBuffer,
    offsets: &[i32],
) -> LResult<SharedBuffer> {
    let Some(&result) = results(op).first() else {
        return err(op, "ttg.memdesc_subslice needs a result");
    };
    let shape = memdesc_shape(op, value_type(result))?;
    if offsets.len() != buffer.shape.len() || shape.len() != buffer.shape.len() {
        return err(
            op,
            "the subslice's offsets and shape must have the buffer's rank",
        );
    }
    let origin: Vec<u32> = offsets.iter().map(|&o| o.max(0) as u32).collect();
    let aligned = origin
        .iter()
        .zip(&shape)
        .zip(&buffer.shape)
        .all(|((&o, &s), &full)| s.is_power_of_two() && o % s == 0 && o + s <= full);
    if !aligned {
        return err(
            op,
            "a subslice must start at a multiple of its own (power-of-two) shape inside the buffer",
        );
    }
    let linear = as_linear(op, &buffer)?;
    let start = linear.offset_at(&origin);
    let Addressing::Linear { bits, .. } = linear else {
        return err(op, "internal error: a linear view without a linear map");
    };
    Ok(SharedBuffer {
        shape,
        addressing: Addressing::Linear {
            bits,
            origin: start,
        },
        ..buffer
    })
}

/// `ttg.memdesc_trans`: result dim `i` is source dim `order[i]`.
fn trans_view(op: MlirOperation, buffer: SharedBuffer, order: &[i32]) -> LResult<SharedBuffer> {
    let rank = buffer.shape.len();
    let mut sorted: Vec<i32> = order.to_vec();
    sorted.sort_unstable();
    if !sorted.iter().copied().eq(0..rank as i32) {
        return err(
            op,
            "memdesc_trans order must be a permutation of the buffer's dims",
        );
    }
    let source_dim = |i: usize| order[i] as usize;
    let mut result_dim = vec![0u32; rank];
    for i in 0..rank {
        result_dim[source_dim(i)] = i as u32;
    }
    let addressing = match &buffer.addressing {
        Addressing::Ordered => Addressing::Ordered,
        Addressing::Linear { bits, origin } => Addressing::Linear {
            bits: (0..rank).map(|i| bits[source_dim(i)].clone()).collect(),
            origin: *origin,
        },
    };
    Ok(SharedBuffer {
        shape: (0..rank).map(|i| buffer.shape[source_dim(i)]).collect(),
        order: buffer
            .order
            .iter()
            .map(|&d| result_dim[d as usize])
            .collect(),
        addressing,
        ..buffer
    })
}

/// Whether every reader of `memdesc` is a `ttg.local_load` feeding only `tt.dot`s.
fn read_only_by_dots(memdesc: MlirValue) -> bool {
    let readers = users(memdesc);
    !readers.is_empty()
        && readers
            .into_iter()
            .all(|owner| op_name(owner) == "ttg.local_load" && is_dot_operand_feed(owner))
}

/// Whether `memdesc` is made by a `ttg.local_alloc` of a tensor. `tt.dot` then stages that
/// tensor itself when a dot operand is loaded from the buffer (the same test as
/// `dot_operand_source` in ops/dot.rs: keep the two in step).
fn allocated_from_tensor(memdesc: MlirValue) -> bool {
    defining_op(memdesc)
        .is_some_and(|alloc| op_name(alloc) == "ttg.local_alloc" && !operands(alloc).is_empty())
}

/// Whether a `ttg.local_alloc` keeps its source's registers instead of materializing a buffer
/// (a tensor read only as dot operands: `tt.dot` stages it itself).
fn alloc_is_forwarded(op: MlirOperation) -> bool {
    operands(op).len() == 1 && results(op).first().is_some_and(|&m| read_only_by_dots(m))
}

/// Byte alignment of an op's shared-memory buffer: a `#ttg.nvmma_shared` swizzle pattern
/// repeats every 8 rows of `swizzlingByteWidth` bytes and is read by wgmma from the address
/// bits, so its buffer starts on a multiple of that; everything else is 16-byte aligned.
pub fn buffer_alignment(op: MlirOperation) -> u64 {
    // `tensormap.replace` works on a 128-byte aligned descriptor.
    if op_name(op) == "ttng.tensormap_create" {
        return 128;
    }
    if op_name(op) != "ttg.local_alloc" {
        return 16;
    }
    match results(op)
        .first()
        .and_then(|&m| memdesc_encoding_of(value_type(m)))
    {
        Some(Encoding::NvmmaShared(shared)) => (8 * shared.swizzling_byte_width as u64).max(16),
        _ => 16,
    }
}

/// Shared-memory buffer of a `ttg.local_alloc`, in bytes, from its type alone (0 when the
/// allocation is forwarded to `tt.dot` and no buffer is materialized).
pub fn local_alloc_scratch(op: MlirOperation) -> LResult<u64> {
    if alloc_is_forwarded(op) {
        return Ok(0);
    }
    let Some(&memdesc) = results(op).first() else {
        return err(op, "ttg.local_alloc needs a result");
    };
    // The size needs the shape and element type only: a buffer whose layout the lowering cannot
    // address yet is still sized (the lowering reports the layout).
    let ty = value_type(memdesc);
    // SAFETY: type query on a live type.
    if !unsafe { ttg::tritiumTypeIsMemDesc(ty) } {
        return err(op, "expected a !ttg.memdesc");
    }
    let shape = memdesc_shape(op, ty)?;
    // SAFETY: `ty` is a memdesc.
    let elem = unsafe { ttg::tritiumMemDescTypeGetElementType(ty) };
    let numel: u64 = shape.iter().map(|&d| d as u64).product();
    Ok(numel * smem_bytes(elem))
}

/// Per-op cache of a thread's offsets in a `Linear` buffer: its lane/warp part, and that part
/// XORed with each register constant that overlaps it (all computed in the prologue).
#[derive(Default)]
pub struct OffsetCache {
    thread: Option<Value>,
    xored: std::collections::HashMap<u32, Value>,
}

impl FuncLowering<'_> {
    /// The element offset (i32) in `buffer` of the register at compile-time coordinate `coord`
    /// (lane 0, warp 0) of a thread whose lane/warp coordinate part is `thread`.
    ///
    /// `Linear` buffers: offset = thread part XOR register part. The register part splits into
    /// the bits the thread part can also set (XORed, once per distinct value, in the prologue)
    /// and the rest (added, so it folds into the access's immediate offset).
    pub fn element_offset(
        &mut self,
        map: &crate::layout_map::ThreadMap,
        buffer: &SharedBuffer,
        thread: &[Value],
        coord: &[u32],
        cache: &mut OffsetCache,
    ) -> Value {
        if let Addressing::Ordered = buffer.addressing {
            let c = self.runtime_coord(thread, coord);
            return self.ordered_index(&c, &buffer.shape, &buffer.order);
        }
        let addressing = &buffer.addressing;
        let mask = thread_offset_mask(map, addressing);
        let thread_part = match cache.thread {
            Some(v) => v,
            None => {
                let terms = |bases: &[Vec<u32>]| -> Vec<u64> {
                    bases
                        .iter()
                        .map(|basis| addressing.offset_of(basis) as u64)
                        .collect()
                };
                let (lane_terms, warp_terms) = (terms(&map.lane_bases), terms(&map.warp_bases));
                let zero = self.b.prologue_i32(0);
                let acc = self.prologue_thread_xor(zero, &lane_terms, &warp_terms);
                cache.thread = Some(acc);
                acc
            }
        };
        let constant = addressing.offset_at(coord);
        let (overlap, rest) = (constant & mask, constant & !mask);
        let base = if overlap == 0 {
            thread_part
        } else if let Some(&v) = cache.xored.get(&overlap) {
            v
        } else {
            let c = self.b.prologue_i32(overlap as i64);
            let v = self.b.prologue_bin(BinOp::Xor, thread_part, c);
            cache.xored.insert(overlap, v);
            v
        };
        if rest == 0 {
            base
        } else {
            self.b.bin_imm(BinOp::Add, base, rest as i64)
        }
    }

    /// Row-major index of `coord` with dimensions ordered fastest-first by `order` (a permutation
    /// of the dimensions, checked by [`memdesc_layout`]; `coord` has the buffer's rank, checked
    /// by [`Self::check_rank`], so every index is in range).
    /// `values` (8-, 16- or 32-bit elements, 4 to 16 bytes in all) packed into b32 words: one
    /// i32, or a `vector<n x i32>` that one `st.shared.v{2,4}.b32` stores.
    fn pack_vector(&mut self, values: &[Value], elem: MlirType) -> Value {
        let bits = storage_bits(elem);
        let per = (32 / bits).max(1) as usize;
        let words: Vec<Value> = (0..values.len().div_ceil(per))
            .map(|w| self.pack_word(values, w * per, per, elem, bits))
            .collect();
        if words.len() == 1 {
            return words[0];
        }
        let i32t = self.b.i32();
        let vector_type = self.b.vector_type(i32t, words.len() as u32);
        let mut vector = self.b.undef(vector_type);
        for (i, &w) in words.iter().enumerate() {
            vector = self.b.insert_element(vector, w, i as i64);
        }
        vector
    }

    /// The inverse of [`Self::pack_vector`]: `count` elements from a loaded i32 or
    /// `vector<n x i32>`.
    fn unpack_vector(&mut self, loaded: Value, count: usize, elem: MlirType) -> Vec<Value> {
        let bits = storage_bits(elem);
        let boolean = type_bits(elem) == 1;
        let per = (32 / bits).max(1) as usize;
        let i32t = self.b.i32();
        let word_count = count.div_ceil(per);
        let part_type = self.b.int_type(bits);
        let mut out = Vec::with_capacity(count);
        for w in 0..word_count {
            let word = if word_count == 1 {
                loaded
            } else {
                self.b.extract_element(loaded, w as i64, i32t)
            };
            for k in 0..per.min(count - w * per) {
                let shifted = self.b.bin_imm(BinOp::LShr, word, (k as u32 * bits) as i64);
                if boolean {
                    // A stored i1 is a 0/1 byte: its low bit.
                    let i1 = self.b.int_type(1);
                    out.push(self.b.trunc(shifted, i1));
                    continue;
                }
                let part = if bits == 32 {
                    shifted
                } else {
                    self.b.trunc(shifted, part_type)
                };
                out.push(self.value_from_bits(part, elem, bits, bits));
            }
        }
        out
    }

    /// The type [`Self::pack_vector`] makes for `count` elements.
    fn packed_type(&self, count: usize, elem: MlirType) -> MlirType {
        let bits = storage_bits(elem);
        let per = (32 / bits).max(1) as usize;
        let words = count.div_ceil(per) as u32;
        let i32t = self.b.i32();
        if words == 1 {
            i32t
        } else {
            self.b.vector_type(i32t, words)
        }
    }

    fn ordered_index(&mut self, coord: &[Value], shape: &[u32], order: &[u32]) -> Value {
        let slowest_first: Vec<usize> = order.iter().rev().map(|&d| d as usize).collect();
        let coords: Vec<Value> = slowest_first.iter().map(|&d| coord[d]).collect();
        let dims: Vec<u32> = slowest_first.iter().map(|&d| shape[d]).collect();
        self.linear_index(&coords, &dims)
    }

    /// Checks that a tensor of `map`'s shape can be addressed in `buffer`.
    fn check_rank(
        op: MlirOperation,
        map: &crate::layout_map::ThreadMap,
        buffer: &SharedBuffer,
    ) -> LResult<()> {
        if map.shape.len() == buffer.shape.len() {
            Ok(())
        } else {
            err(op, "the tensor and the shared-memory buffer differ in rank")
        }
    }

    pub(crate) fn write_tensor(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        value: MlirValue,
    ) -> LResult<()> {
        let values = self.regs(op, value)?;
        self.write_registers(op, buffer, value_type(value), &values)
    }

    /// Writes `values`, the registers of a tensor of type `ty`, into `buffer`.
    pub(crate) fn write_registers(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        ty: MlirType,
        values: &[Value],
    ) -> LResult<()> {
        let map = self.thread_map(op, ty)?;
        let thread = self.thread_base(op, ty)?;
        self.write_map_registers(op, buffer, &map, &thread, values)
    }

    /// Writes `values`, the registers of `map` (whose lanes and warps add `thread` to each
    /// register's coordinates), into `buffer`.
    pub(crate) fn write_map_registers(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        map: &crate::layout_map::ThreadMap,
        thread: &[Value],
        values: &[Value],
    ) -> LResult<()> {
        Self::check_rank(op, map, buffer)?;
        if values.len() < map.num_registers() {
            return err(
                op,
                "internal error: the stored tensor has too few registers",
            );
        }
        self.barrier_before_write();
        // stmatrix (sm_90) writes what ldmatrix would read; duplicated registers hold equal
        // values, so writing them again is harmless.
        if self.capability >= 90
            && let Some(plan) = matrix_plan(map, buffer)
        {
            self.write_stmatrix(map, buffer, &plan, values);
            self.barrier_after_write();
            return Ok(());
        }
        let plan = vector_plan(map, buffer, true);
        let vec = plan.width;
        let mut offsets = OffsetCache::default();
        // `register_duplicate` has one entry per register, and `values` at least as many.
        for r in plan.bases(map.num_registers()) {
            if map.register_duplicate[r] {
                continue;
            }
            let index = self.element_offset(map, buffer, thread, &map.registers[r], &mut offsets);
            if vec == 1 {
                self.smem_store(buffer.base, index, values[r], buffer.elem);
            } else {
                let members: Vec<Value> = plan.members(r).map(|m| values[m]).collect();
                let word = self.pack_vector(&members, buffer.elem);
                let address = self.smem_address(buffer.base, index, self.llvm_type(buffer.elem));
                self.b
                    .store_aligned(word, address, vec as u64 * smem_bytes(buffer.elem));
            }
        }
        self.barrier_after_write();
        Ok(())
    }

    /// Reads the tensor `out` (of its own layout) from `buffer`.
    fn read_tensor(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        out: MlirValue,
    ) -> LResult<()> {
        let regs = self.read_registers(op, buffer, value_type(out))?;
        self.set(out, regs);
        Ok(())
    }

    /// The registers of a tensor of type `ty` read from `buffer`.
    pub(crate) fn read_registers(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        ty: MlirType,
    ) -> LResult<Vec<Value>> {
        let map = self.thread_map(op, ty)?;
        self.read_map_registers(op, buffer, &map, |this| this.thread_base(op, ty))
    }

    /// The registers of `map` read from `buffer`; `thread_of` gives what its lanes and warps add
    /// to each register's coordinates (asked for only where `ldmatrix` does not read them).
    pub(crate) fn read_map_registers(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        map: &crate::layout_map::ThreadMap,
        thread_of: impl FnOnce(&mut Self) -> LResult<Vec<Value>>,
    ) -> LResult<Vec<Value>> {
        Self::check_rank(op, map, buffer)?;
        if let Some(plan) = matrix_plan(map, buffer) {
            return Ok(self.read_ldmatrix(map, buffer, &plan));
        }
        let thread = thread_of(self)?;
        let count = map.num_registers();
        let mut regs: Vec<Option<Value>> = vec![None; count];
        let plan = vector_plan(map, buffer, false);
        let vec = plan.width;
        let mut offsets = OffsetCache::default();
        for r in plan.bases(count) {
            let index = self.element_offset(map, buffer, &thread, &map.registers[r], &mut offsets);
            if vec == 1 {
                regs[r] = Some(self.smem_load(buffer.base, index, buffer.elem));
            } else {
                let address = self.smem_address(buffer.base, index, self.llvm_type(buffer.elem));
                let word_type = self.packed_type(vec, buffer.elem);
                let word =
                    self.b
                        .load_aligned(address, word_type, vec as u64 * smem_bytes(buffer.elem));
                let parts = self.unpack_vector(word, vec, buffer.elem);
                for (m, part) in plan.members(r).zip(parts) {
                    regs[m] = Some(part);
                }
            }
        }
        Ok(regs
            .into_iter()
            .map(|r| r.expect("every register belongs to one vector"))
            .collect())
    }

    /// The element offset of the row each lane supplies to `ldmatrix`/`stmatrix` before a
    /// register group's own term (see [`matrix_plan`]), computed once in the prologue.
    fn matrix_rows(&mut self, buffer: &SharedBuffer, plan: &MatrixAccess) -> MatrixRows {
        let addressing = match buffer.addressing {
            Addressing::Linear { .. } => buffer.addressing.clone(),
            // Power-of-two shapes (checked by the plan): row-major offsets are XOR terms too.
            Addressing::Ordered => as_linear_terms(buffer),
        };
        let wide = |terms: &[u32]| -> Vec<u64> { terms.iter().map(|&t| t as u64).collect() };
        let zero = self.b.prologue_i32(0);
        let row = self.prologue_thread_xor(zero, &wide(&plan.lane_terms), &wide(&plan.warp_terms));
        let thread_bits = plan
            .lane_terms
            .iter()
            .chain(&plan.warp_terms)
            .fold(0, |a, &t| a | t);
        MatrixRows {
            addressing,
            row,
            thread_bits,
        }
    }

    /// The 32-bit shared address a lane supplies for the register group starting at `coord`:
    /// the row offset XOR the group's constant term, an addition (folded into the instruction's
    /// immediate by ptxas) where the two share no bit. Made where it is used, so that the
    /// addresses of all groups are not live at once.
    fn matrix_group_address(
        &mut self,
        rows: &MatrixRows,
        buffer: &SharedBuffer,
        coord: &[u32],
    ) -> Value {
        let constant = rows.addressing.offset_at(coord);
        let index = if constant == 0 {
            rows.row
        } else if constant & rows.thread_bits == 0 {
            self.b.bin_imm(BinOp::Add, rows.row, constant as i64)
        } else {
            self.b.bin_imm(BinOp::Xor, rows.row, constant as i64)
        };
        let storage = self.llvm_type(buffer.elem);
        let address = self.smem_address(buffer.base, index, storage);
        let i64t = self.b.i64();
        let i32t = self.b.i32();
        let address = self.b.cast(CastOp::PtrToInt, address, i64t);
        self.b.trunc(address, i32t)
    }

    /// Writes the registers of `map` with one `stmatrix.x4` per eight (see [`matrix_plan`]).
    fn write_stmatrix(
        &mut self,
        map: &crate::layout_map::ThreadMap,
        buffer: &SharedBuffer,
        plan: &MatrixAccess,
        values: &[Value],
    ) {
        let asm = format!(
            "stmatrix.sync.aligned.m8n8.x4{}.shared.b16 [$0], {{$1, $2, $3, $4}};",
            if plan.trans { ".trans" } else { "" }
        );
        let rows = self.matrix_rows(buffer, plan);
        for group in (0..map.num_registers()).step_by(8) {
            let mut operands =
                vec![self.matrix_group_address(&rows, buffer, &map.registers[group])];
            for pair in values[group..group + 8].chunks(2) {
                operands.push(self.pack_vector(pair, buffer.elem));
            }
            self.b.inline_asm(&asm, "r,r,r,r,r", &operands, None, true);
        }
    }

    /// The registers of `map` read by one `ldmatrix.x4` per eight (see [`matrix_plan`]).
    fn read_ldmatrix(
        &mut self,
        map: &crate::layout_map::ThreadMap,
        buffer: &SharedBuffer,
        plan: &MatrixAccess,
    ) -> Vec<Value> {
        let i32t = self.b.i32();
        let words = self.b.struct_type(&[i32t, i32t, i32t, i32t]);
        let asm = format!(
            "ldmatrix.sync.aligned.m8n8.x4{}.shared.b16 {{$0, $1, $2, $3}}, [$4];",
            if plan.trans { ".trans" } else { "" }
        );
        let rows = self.matrix_rows(buffer, plan);
        let mut regs = Vec::with_capacity(map.num_registers());
        for group in (0..map.num_registers()).step_by(8) {
            let address = self.matrix_group_address(&rows, buffer, &map.registers[group]);
            // Volatile: the asm does not tell LLVM that it reads shared memory, so a read at an
            // address that stays the same across loop iterations (a one-slot ring, a buffer the
            // loop rewrites or carries) would otherwise be hoisted out of the loop.
            let loaded = self
                .b
                .asm_volatile(&asm, "=r,=r,=r,=r,r", &[address], words);
            for j in 0..4 {
                let word = self.b.extract_value(loaded, j, i32t);
                regs.extend(self.unpack_vector(word, 2, buffer.elem));
            }
        }
        regs
    }

    pub fn lower_local(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        match name {
            "ttg.local_alloc" => {
                let memdesc = nth(op, outs, 0, "the allocated buffer")?;
                if alloc_is_forwarded(op) {
                    // tt.dot stages the source itself: keep its registers.
                    let v = self.get(nth(op, ins, 0, "the allocated tensor")?);
                    self.set(memdesc, v);
                    return Ok(());
                }
                let (shape, order, elem, addressing) = memdesc_layout(op, value_type(memdesc))?;
                self.reserve_scratch(local_alloc_scratch(op)?);
                let base = self.smem_base();
                let buffer = SharedBuffer {
                    base,
                    shape,
                    order,
                    elem,
                    addressing,
                };
                if let Some(&source) = ins.first() {
                    self.write_tensor(op, &buffer, source)?;
                }
                self.buffers.insert(key(memdesc), buffer);
            }
            "ttg.local_store" => {
                let value = nth(op, ins, 0, "the stored tensor")?;
                let buffer = self.buffer_of(op, nth(op, ins, 1, "the buffer")?)?;
                self.write_tensor(op, &buffer, value)?;
            }
            "ttg.local_load" => {
                let memdesc = nth(op, ins, 0, "the buffer")?;
                let out = nth(op, outs, 0, "the loaded tensor")?;
                // A dot operand: tt.dot stages the tensor the buffer was allocated from, so the
                // buffer is not read here (the load keeps the allocation's registers, when it was
                // forwarded). A buffer filled otherwise (local_store) is read as any other load,
                // and tt.dot stages what was read.
                if is_dot_operand_feed(op) && allocated_from_tensor(memdesc) {
                    let v = self.get(memdesc);
                    self.set(out, v);
                    return Ok(());
                }
                let buffer = self.buffer_of(op, memdesc)?;
                self.read_tensor(op, &buffer, out)?;
            }
            "ttg.memdesc_index" | "ttg.memdesc_subslice" | "ttg.memdesc_trans" => {
                let source = nth(op, ins, 0, "the viewed buffer")?;
                let view = nth(op, outs, 0, "the view")?;
                let buffer = self.buffer_of(op, source)?;
                let viewed = match name {
                    "ttg.memdesc_index" => {
                        let index = self.scalar(op, nth(op, ins, 1, "the index")?)?;
                        self.index_view(op, buffer, index)?
                    }
                    "ttg.memdesc_subslice" => subslice_view(op, buffer, &i32_array(op, "offsets"))?,
                    _ => trans_view(op, buffer, &i32_array(op, "order"))?,
                };
                self.buffers.insert(key(view), viewed);
            }
            _ => {} // local_dealloc: the allocation's lifetime ends; nothing to emit.
        }
        Ok(())
    }

    /// `ttg.memdesc_index`: the `index`-th sub-buffer along dim 0 (which must be the slowest).
    fn index_view(
        &mut self,
        op: MlirOperation,
        buffer: SharedBuffer,
        index: Value,
    ) -> LResult<SharedBuffer> {
        if buffer.shape.len() < 2 {
            return err(op, "memdesc_index needs a buffer of rank 2 or more");
        }
        let inner: u32 = buffer.shape[1..].iter().product();
        let outermost = match &buffer.addressing {
            Addressing::Ordered => buffer.order.last() == Some(&0),
            Addressing::Linear { bits, .. } => {
                bits[0].iter().enumerate().all(|(i, &b)| b == inner << i)
            }
        };
        if !outermost {
            return err(
                op,
                "memdesc_index needs dim 0 to be the buffer's slowest dim",
            );
        }
        let scaled = self.b.bin_imm(BinOp::Mul, index, inner as i64);
        let (storage, _) = self.smem_type(buffer.elem);
        let base = self.smem_address(buffer.base, scaled, storage);
        let addressing = match buffer.addressing {
            Addressing::Ordered => Addressing::Ordered,
            Addressing::Linear { bits, origin } => Addressing::Linear {
                bits: bits[1..].to_vec(),
                origin,
            },
        };
        Ok(SharedBuffer {
            base,
            shape: buffer.shape[1..].to_vec(),
            order: buffer
                .order
                .iter()
                .filter(|&&d| d != 0)
                .map(|&d| d - 1)
                .collect(),
            elem: buffer.elem,
            addressing,
        })
    }

    /// The buffer a memdesc value addresses.
    pub(crate) fn buffer_of(&self, op: MlirOperation, memdesc: MlirValue) -> LResult<SharedBuffer> {
        match self.buffers.get(&key(memdesc)) {
            Some(buffer) => Ok(buffer.clone()),
            None => err(
                op,
                "shared-memory buffer not produced by a ttg.local_alloc in this function",
            ),
        }
    }
}
