//! `ttg.local_alloc` / `local_store` / `local_load` / `local_dealloc`: tensors staged in shared
//! memory at the offset `-allocate-shared-memory` gave the buffer. Shared layouts without
//! swizzling (`#ttg.swizzled_shared` with maxPhase 1) address elements in their `order`
//! (fastest dimension first). A buffer whose only readers are dot operands is not written here:
//! `tt.dot` stages its operands itself, so the data goes through shared memory once.

use crate::to_llvm::*;
use mlir_sys::*;
use tritium_dialects::ffi::ttg;
use tritium_passes::ir_util::*;

/// A memdesc: where its buffer starts and how its elements are laid out.
#[derive(Clone, Debug)]
pub(crate) struct SharedBuffer {
    pub base: String,
    pub shape: Vec<u32>,
    /// Dimensions fastest first.
    pub order: Vec<u32>,
    pub elem: MlirType,
}

fn memdesc_layout(op: MlirOperation, ty: MlirType) -> LResult<(Vec<u32>, Vec<u32>, MlirType)> {
    unsafe {
        if !ttg::tritiumTypeIsMemDesc(ty) {
            return err(op, "expected a !ttg.memdesc");
        }
        let mut shape = [0i64; 8];
        let rank = ttg::tritiumMemDescTypeGetShape(ty, shape.as_mut_ptr(), 8).max(0) as usize;
        let shape: Vec<u32> = shape[..rank.min(8)].iter().map(|&d| d as u32).collect();
        let encoding = ttg::tritiumMemDescTypeGetEncoding(ty);
        let text = print_attr(encoding);
        let Ok(tritium_layout::encoding::Encoding::SwizzledShared(shared)) =
            tritium_layout::text::parse_encoding(&text)
        else {
            return err(
                op,
                format!(
                    "shared layout {text} is not supported by the lowering yet (only #ttg.swizzled_shared)"
                ),
            );
        };
        if shared.max_phase > 1 {
            return err(
                op,
                "swizzled shared layouts (maxPhase > 1) are not supported by the lowering yet",
            );
        }
        Ok((
            shape,
            shared.order.clone(),
            ttg::tritiumMemDescTypeGetElementType(ty),
        ))
    }
}

/// Whether every reader of `memdesc` is a `ttg.local_load` feeding only `tt.dot`s.
fn read_only_by_dots(memdesc: MlirValue) -> bool {
    let mut any = false;
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

impl FuncLowering<'_> {
    /// Row-major index of `coord` with dimensions ordered fastest-first by `order`.
    fn ordered_index(&mut self, coord: &[String], shape: &[u32], order: &[u32]) -> String {
        let slowest_first: Vec<usize> = order.iter().rev().map(|&d| d as usize).collect();
        let coords: Vec<String> = slowest_first.iter().map(|&d| coord[d].clone()).collect();
        let dims: Vec<u32> = slowest_first.iter().map(|&d| shape[d]).collect();
        self.linear_index(&coords, &dims)
    }

    fn write_tensor(
        &mut self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        value: MlirValue,
    ) -> LResult<()> {
        let ty = value_type(value);
        let map = self.thread_map(op, ty)?;
        let thread = self.thread_base(op, ty)?;
        let values = self.get(value);
        self.barrier();
        for (r, coord) in map.registers.iter().enumerate() {
            if map.register_duplicate[r] {
                continue;
            }
            let c = self.runtime_coord(&thread, coord);
            let index = self.ordered_index(&c, &buffer.shape, &buffer.order);
            self.smem_store(&buffer.base, &index, &values[r], buffer.elem);
        }
        self.barrier();
        Ok(())
    }

    pub(crate) fn lower_local(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        match name {
            "ttg.local_alloc" => {
                let memdesc = outs[0];
                if ins.len() == 1 && read_only_by_dots(memdesc) {
                    // tt.dot stages the source itself: keep its registers.
                    let v = self.get(ins[0]);
                    self.values.insert(key(memdesc), v);
                    return Ok(());
                }
                let (shape, order, elem) = memdesc_layout(op, value_type(memdesc))?;
                let (_, bytes) = Self::smem_type(elem);
                let numel: u64 = shape.iter().map(|&d| d as u64).product();
                self.reserve_scratch(numel * bytes);
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
                let buffer = self.buffer(op, ins[1])?;
                self.write_tensor(op, &buffer, ins[0])?;
            }
            "ttg.local_load" => {
                if is_dot_operand_feed(op) {
                    let v = self.get(ins[0]);
                    self.values.insert(key(outs[0]), v);
                    return Ok(());
                }
                let buffer = self.buffer(op, ins[0])?;
                let ty = value_type(outs[0]);
                let map = self.thread_map(op, ty)?;
                let thread = self.thread_base(op, ty)?;
                let mut regs = Vec::new();
                for coord in &map.registers {
                    let c = self.runtime_coord(&thread, coord);
                    let index = self.ordered_index(&c, &buffer.shape, &buffer.order);
                    regs.push(self.smem_load(&buffer.base, &index, buffer.elem));
                }
                self.values.insert(key(outs[0]), regs);
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
