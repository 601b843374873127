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

/// Shape, order (fastest first) and element type of a `!ttg.memdesc` the lowering can address.
fn memdesc_layout(op: MlirOperation, ty: MlirType) -> LResult<(Vec<u32>, Vec<u32>, MlirType)> {
    // SAFETY: type query on a live type.
    if !unsafe { ttg::tritiumTypeIsMemDesc(ty) } {
        return err(op, "expected a !ttg.memdesc");
    }
    let shape = memdesc_shape(op, ty)?;
    let shared = match memdesc_encoding_of(ty) {
        Some(Encoding::SwizzledShared(shared)) => shared,
        Some(Encoding::NvmmaShared(_)) => {
            return err(
                op,
                "shared layout #ttg.nvmma_shared is not supported by the lowering yet (only #ttg.swizzled_shared)",
            );
        }
        _ => {
            return err(
                op,
                "the buffer's shared layout is not supported by the lowering yet (only #ttg.swizzled_shared)",
            );
        }
    };
    if shared.max_phase > 1 {
        return err(
            op,
            "swizzled shared layouts (maxPhase > 1) are not supported by the lowering yet",
        );
    }
    let mut sorted = shared.order.clone();
    sorted.sort_unstable();
    if !sorted.iter().copied().eq(0..shape.len() as u32) {
        return err(
            op,
            "the shared layout's order must be a permutation of the buffer's dimensions",
        );
    }
    // SAFETY: `ty` is a memdesc.
    let elem = unsafe { ttg::tritiumMemDescTypeGetElementType(ty) };
    Ok((shape, shared.order, elem))
}

/// Elements a thread moves per shared-memory access of `map` in `buffer` (at most 16 bytes):
/// the largest power of two `v` such that every aligned group of `v` registers holds `v`
/// consecutive elements along the buffer's fastest dimension starting at a multiple of `v`, and
/// no lane or warp moves that start off a multiple of `v` (so the address is `v`-aligned). 1
/// for element types that are not 16 or 32 bits wide. Stores also need no duplicated register
/// inside a group (duplicates are skipped one by one).
fn vector_width(map: &crate::layout_map::ThreadMap, buffer: &SharedBuffer, store: bool) -> usize {
    let bits = type_bits(buffer.elem);
    if !(bits == 16 || bits == 32) || is_pointer(buffer.elem) || buffer.order.is_empty() {
        return 1;
    }
    let fast = buffer.order[0] as usize;
    let Some(&extent) = buffer.shape.get(fast) else {
        return 1;
    };
    let count = map.num_registers();
    let mut vec = (128 / bits) as usize;
    while vec > 1 {
        let v = vec as u32;
        let threads_aligned = map
            .lane_bases
            .iter()
            .chain(&map.warp_bases)
            .all(|basis| basis.get(fast).is_some_and(|&c| c % v == 0));
        let groups_contiguous = count.is_multiple_of(vec)
            && (0..count).step_by(vec).all(|start| {
                let first = &map.registers[start];
                first.get(fast).is_some_and(|&c| c % v == 0)
                    && (1..vec).all(|k| {
                        let next = &map.registers[start + k];
                        (!store || !map.register_duplicate[start + k])
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

/// Whether every reader of `memdesc` is a `ttg.local_load` feeding only `tt.dot`s.
fn read_only_by_dots(memdesc: MlirValue) -> bool {
    let mut any = false;
    // SAFETY: use-list traversal of a live value.
    unsafe {
        let mut user = mlirValueGetFirstUse(memdesc);
        while !user.ptr.is_null() {
            let owner = mlirOpOperandGetOwner(user);
            if op_name(owner) != "ttg.local_load" || !is_dot_operand_feed(owner) {
                return false;
            }
            any = true;
            user = mlirOpOperandGetNextUse(user);
        }
    }
    any
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

impl FuncLowering<'_> {
    /// Row-major index of `coord` with dimensions ordered fastest-first by `order` (a permutation
    /// of the dimensions, checked by [`memdesc_layout`]; `coord` has the buffer's rank, checked
    /// by [`Self::check_rank`], so every index is in range).
    /// `values` (16- or 32-bit elements) packed into one integer, element k at bits `k*bits..`.
    fn pack_vector(&mut self, values: &[Value], elem: MlirType) -> Value {
        let bits = type_bits(elem);
        let word_type = self.b.int_type(bits * values.len() as u32);
        let mut word = self.b.const_int(word_type, 0);
        for (k, &v) in values.iter().enumerate() {
            let raw = self.bits_of(v, elem, bits);
            let raw = self.b.trunc(raw, self.b.int_type(bits));
            let wide = self.b.zext(raw, word_type);
            let shifted = self.b.bin_imm(BinOp::Shl, wide, (k as u32 * bits) as i64);
            word = self.b.or(word, shifted);
        }
        word
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

    fn write_tensor(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        value: MlirValue,
    ) -> LResult<()> {
        let ty = value_type(value);
        let map = self.thread_map(op, ty)?;
        Self::check_rank(op, &map, buffer)?;
        let thread = self.thread_base(op, ty)?;
        let values = self.regs(op, value)?;
        if values.len() < map.num_registers() {
            return err(
                op,
                "internal error: the stored tensor has too few registers",
            );
        }
        self.barrier();
        let vec = vector_width(&map, buffer, true);
        // `register_duplicate` has one entry per register, and `values` at least as many.
        for (r, coord) in map.registers.iter().enumerate().step_by(vec) {
            if map.register_duplicate[r] {
                continue;
            }
            let c = self.runtime_coord(&thread, coord);
            let index = self.ordered_index(&c, &buffer.shape, &buffer.order);
            if vec == 1 {
                self.smem_store(buffer.base, index, values[r], buffer.elem);
            } else {
                let word = self.pack_vector(&values[r..r + vec], buffer.elem);
                let address = self.smem_address(buffer.base, index, self.llvm_type(buffer.elem));
                self.b
                    .store_aligned(word, address, vec as u64 * smem_bytes(buffer.elem));
            }
        }
        self.barrier();
        Ok(())
    }

    /// Reads the tensor `out` (of its own layout) from `buffer`.
    fn read_tensor(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        out: MlirValue,
    ) -> LResult<()> {
        let ty = value_type(out);
        let map = self.thread_map(op, ty)?;
        Self::check_rank(op, &map, buffer)?;
        let thread = self.thread_base(op, ty)?;
        let mut regs = Vec::with_capacity(map.num_registers());
        let vec = vector_width(&map, buffer, false);
        for coord in map.registers.iter().step_by(vec) {
            let c = self.runtime_coord(&thread, coord);
            let index = self.ordered_index(&c, &buffer.shape, &buffer.order);
            if vec == 1 {
                regs.push(self.smem_load(buffer.base, index, buffer.elem));
            } else {
                let address = self.smem_address(buffer.base, index, self.llvm_type(buffer.elem));
                let bits = type_bits(buffer.elem);
                let word_type = self.b.int_type(bits * vec as u32);
                let word =
                    self.b
                        .load_aligned(address, word_type, vec as u64 * smem_bytes(buffer.elem));
                let part_type = self.b.int_type(bits);
                for k in 0..vec {
                    let shifted = self.b.bin_imm(BinOp::LShr, word, (k as u32 * bits) as i64);
                    let part = self.b.trunc(shifted, part_type);
                    regs.push(self.value_from_bits(part, buffer.elem, bits, bits));
                }
            }
        }
        self.set(out, regs);
        Ok(())
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
                let (shape, order, elem) = memdesc_layout(op, value_type(memdesc))?;
                self.reserve_scratch(local_alloc_scratch(op)?);
                let base = self.smem_base();
                let buffer = SharedBuffer {
                    base,
                    shape,
                    order,
                    elem,
                };
                if let Some(&source) = ins.first() {
                    self.write_tensor(op, &buffer, source)?;
                }
                self.buffers.insert(key(memdesc), buffer);
            }
            "ttg.local_store" => {
                let value = nth(op, ins, 0, "the stored tensor")?;
                let buffer = self.buffer(op, nth(op, ins, 1, "the buffer")?)?;
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
                let buffer = self.buffer(op, memdesc)?;
                self.read_tensor(op, &buffer, out)?;
            }
            _ => {} // local_dealloc: the allocation's lifetime ends; nothing to emit.
        }
        Ok(())
    }

    fn buffer(&self, op: MlirOperation, memdesc: MlirValue) -> LResult<SharedBuffer> {
        match self.buffers.get(&key(memdesc)) {
            Some(buffer) => Ok(buffer.clone()),
            None => err(
                op,
                "shared-memory buffer not produced by a ttg.local_alloc in this function",
            ),
        }
    }
}
