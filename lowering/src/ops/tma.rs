//! mbarriers and TMA (sm_90): `ttng.init_barrier` / `inval_barrier` / `barrier_expect` /
//! `arrive_barrier` / `wait_barrier` → `mbarrier.*`; `ttng.async_tma_copy_global_to_local` →
//! `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`,
//! `async_tma_copy_local_to_global` / `async_tma_reduce` → `cp.async.bulk.tensor` /
//! `cp.reduce.async.bulk.tensor` in a bulk group, `async_tma_store_wait` →
//! `cp.async.bulk.wait_group.read`; `ttng.tensormap_create` → a 128-byte descriptor built in
//! shared memory with `tensormap.replace` and copied out with `tensormap.cp_fenceproxy`,
//! `tensormap_fenceproxy_acquire` → `fence.proxy.tensormap::generic.acquire`;
//! `ttng.reinterpret_tensor_descriptor` and `ttg.global_scratch_alloc` are address arithmetic.
//!
//! One thread (thread 0) initialises, arrives on and invalidates barriers and issues every TMA
//! copy, as Triton does; all threads wait on a barrier's phase. A block larger than one TMA box
//! (`tritium_passes::tma::tma_box`: the swizzle width innermost, at most 256 along each dim) is
//! moved as several boxes, each to the offset the buffer's own layout gives the box's origin.
//! A rank-reduced buffer (a `1x128x64` block's `128x64` tile) takes the block's box, whose
//! leading extents are 1: the copy has one coordinate per block dim, the tile the buffer's.
//!
//! A tensor descriptor is one register here: the generic address of its 128-byte `CUtensorMap`
//! (a kernel parameter passed by value, or global scratch written by `tensormap_create`).

use crate::builder::*;
use crate::ops::local::{Addressing, SharedBuffer};
use crate::registry::OpLowering;
use crate::state::*;
use mlir_sys::*;
use tritium_dialects::ffi;
use tritium_passes::ir_util::*;
use tritium_passes::tma::{TmaBox, dropped_unit_dims, tma_box};

/// Shared-memory scratch of `ttng.tensormap_create`: the descriptor it builds.
pub fn tensormap_scratch(_op: MlirOperation) -> LResult<u64> {
    Ok(tritium_passes::tma::DESCRIPTOR_BYTES as u64)
}

/// The block type of a `!tt.tensordesc` value's type, or a located error.
fn descriptor_block(op: MlirOperation, desc: MlirValue) -> LResult<MlirType> {
    let ty = value_type(desc);
    // SAFETY: type query on a live type.
    if !unsafe { ffi::tritiumTypeIsTensorDesc(ty) } {
        return err(op, "expected a !tt.tensordesc operand");
    }
    // SAFETY: `ty` is a `!tt.tensordesc` (checked above).
    Ok(unsafe { ffi::tritiumTensorDescTypeGetBlockType(ty) })
}

/// The TMA box of the descriptor's block, from the shared layout of the buffer it moves.
fn box_of(
    op: MlirOperation,
    block: &[u32],
    elem: MlirType,
    buffer_type: MlirType,
) -> LResult<TmaBox> {
    let Some(encoding) = memdesc_encoding_of(buffer_type) else {
        return err(op, "the TMA buffer has no shared-memory layout");
    };
    tma_box(block, type_bits(elem), &encoding).map_err(|message| LowerError {
        op: Some(op),
        message,
    })
}

/// `(coordinate step, byte step)` when box `i` of a copy sits at `i` times both from box 0 at
/// the block's origin (boxes along one block dim, stored one after another): a warp can then
/// find its box from its index alone.
fn box_steps(boxes: &[(Vec<u32>, u64)]) -> Option<(Vec<u32>, u64)> {
    let (first, second) = (boxes.first()?, boxes.get(1)?);
    if first.0.iter().any(|&c| c != 0) || first.1 != 0 {
        return None;
    }
    let (origin_step, offset_step) = (&second.0, second.1);
    let even = boxes.iter().enumerate().all(|(i, (origin, offset))| {
        *offset == i as u64 * offset_step
            && origin
                .iter()
                .zip(origin_step)
                .all(|(&c, &step)| u64::from(c) == i as u64 * u64::from(step))
    });
    even.then(|| (origin_step.clone(), offset_step))
}

impl FuncLowering<'_> {
    /// A shared-memory pointer as the 32-bit address PTX's `.shared` operands take.
    fn shared_u32(&mut self, ptr: Value) -> Value {
        let i64t = self.b.i64();
        let i32t = self.b.i32();
        let wide = self.b.cast(CastOp::PtrToInt, ptr, i64t);
        self.b.trunc(wide, i32t)
    }

    /// `tid.x == 0`.
    fn is_thread0(&mut self) -> Value {
        let zero = self.b.const_i32(0);
        self.b.icmp(IntPredicate::Eq, self.tid, zero)
    }

    /// `tid.x < 32`: the threads of warp 0.
    fn is_warp0(&mut self) -> Value {
        let n = self.b.const_i32(self.threads_per_warp as i64);
        self.b.icmp(IntPredicate::Ult, self.tid, n)
    }

    /// The 32-bit shared address of a barrier (a `memdesc<1xi64>`).
    fn barrier_address(&mut self, op: MlirOperation, memdesc: MlirValue) -> LResult<Value> {
        let buffer = self.buffer_of(op, memdesc)?;
        Ok(self.shared_u32(buffer.base))
    }

    /// A descriptor's `CUtensorMap` as a 64-bit generic address.
    fn descriptor_address(&mut self, op: MlirOperation, desc: MlirValue) -> LResult<Value> {
        let parts = self.get(desc);
        let [ptr] = parts[..] else {
            return err(
                op,
                "this tensor descriptor is not a TMA descriptor (made by tt.make_tensor_descriptor \
                 without -triton-nvidia-tma-lowering, or passed through control flow)",
            );
        };
        let ty = type_of(ptr);
        // SAFETY: type queries on a live type.
        let space = unsafe {
            if !mlirTypeIsALLVMPointerType(ty) {
                return err(op, "internal error: a TMA descriptor is not a pointer");
            }
            mlirLLVMPointerTypeGetAddressSpace(ty)
        };
        let generic = if space == 0 {
            ptr
        } else {
            let to = self.b.ptr_type(0);
            self.b.cast(CastOp::AddrSpaceCast, ptr, to)
        };
        let i64t = self.b.i64();
        Ok(self.b.cast(CastOp::PtrToInt, generic, i64t))
    }

    /// At the kernel's entry, thread 0 prefetches each host-side descriptor parameter (a
    /// `CUtensorMap` grid constant, by its generic address) into the TMA unit's descriptor
    /// cache, so that the first bulk copy does not wait for the descriptor's fetch from the
    /// parameter space.
    pub(crate) fn prefetch_descriptor_params(&mut self, params: &[Value]) {
        if params.is_empty() {
            return;
        }
        let first = self.is_thread0();
        let i64t = self.b.i64();
        for &param in params {
            let address = self.b.cast(CastOp::PtrToInt, param, i64t);
            self.b.inline_asm(
                "@$0 prefetch.tensormap [$1];",
                "b,l",
                &[first, address],
                None,
                true,
            );
        }
    }

    /// `ttng.init_barrier %bar, count`: thread 0 initialises the mbarrier.
    pub fn lower_init_barrier(&mut self, o: &OpLowering) -> LResult<()> {
        let count = int_attr(o.op, "count").unwrap_or(1);
        if self.shared_read_since_barrier {
            self.barrier();
        }
        let bar = self.barrier_address(o.op, o.ins[0])?;
        let pred = self.is_thread0();
        self.b.inline_asm(
            &format!("@$0 mbarrier.init.shared::cta.b64 [$1], {count};"),
            "b,r",
            &[pred, bar],
            None,
            true,
        );
        // Every thread sees the initialised barrier before it uses it.
        self.barrier_after_write();
        Ok(())
    }

    /// `ttng.inval_barrier %bar`: once every thread is done with it, thread 0 invalidates it.
    pub fn lower_inval_barrier(&mut self, o: &OpLowering) -> LResult<()> {
        if self.shared_read_since_barrier {
            self.barrier();
        }
        let bar = self.barrier_address(o.op, o.ins[0])?;
        let pred = self.is_thread0();
        self.b.inline_asm(
            "@$0 mbarrier.inval.shared::cta.b64 [$1];",
            "b,r",
            &[pred, bar],
            None,
            true,
        );
        self.barrier_after_write();
        Ok(())
    }

    /// `ttng.barrier_expect %bar, bytes, %pred`: thread 0 arrives, expecting `bytes` of
    /// transactions.
    pub fn lower_barrier_expect(&mut self, o: &OpLowering) -> LResult<()> {
        let size = int_attr(o.op, "size").unwrap_or(0);
        let bar = self.barrier_address(o.op, o.ins[0])?;
        let pred = self.scalar(o.op, o.ins[1])?;
        let first = self.is_thread0();
        let pred = self.b.and(pred, first);
        self.b.inline_asm(
            &format!("@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {size};"),
            "b,r",
            &[pred, bar],
            None,
            true,
        );
        Ok(())
    }

    /// `ttng.arrive_barrier %bar, count[, %pred]`: thread 0 arrives `count` times.
    pub fn lower_arrive_barrier(&mut self, o: &OpLowering) -> LResult<()> {
        let count = int_attr(o.op, "count").unwrap_or(1);
        let bar = self.barrier_address(o.op, o.ins[0])?;
        let mut pred = self.is_thread0();
        if let Some(&p) = o.ins.get(1) {
            let p = self.scalar(o.op, p)?;
            pred = self.b.and(pred, p);
        }
        self.b.inline_asm(
            &format!("@$0 mbarrier.arrive.shared::cta.b64 _, [$1], {count};"),
            "b,r",
            &[pred, bar],
            None,
            true,
        );
        Ok(())
    }

    /// `ttng.wait_barrier %bar, %phase[, %pred]`: every thread polls until the phase of
    /// parity `phase` has completed.
    pub fn lower_wait_barrier(&mut self, o: &OpLowering) -> LResult<()> {
        let bar = self.barrier_address(o.op, o.ins[0])?;
        let phase = self.scalar(o.op, o.ins[1])?;
        // Operands: alloc, phase, then the optional pred and the deps (segment sizes).
        let segments = i32_array(o.op, "operandSegmentSizes");
        let has_pred = segments.get(2).is_some_and(|&n| n == 1);
        let saved = if has_pred {
            let pred = self.scalar(o.op, o.ins[2])?;
            Some(self.b.begin_if(pred))
        } else {
            None
        };
        // The label is local to the braces, so the loop may appear any number of times.
        self.b.inline_asm(
            "{\n\t.reg .pred wait_done;\n\twait_loop:\n\t\
             mbarrier.try_wait.parity.shared::cta.b64 wait_done, [$0], $1;\n\t\
             @!wait_done bra.uni wait_loop;\n\t}",
            "r,r,~{memory}",
            &[bar, phase],
            None,
            true,
        );
        if let Some(point) = saved {
            self.b.restore(point);
        }
        Ok(())
    }

    /// Per box of a block copy: (the box's element coordinates relative to the block origin,
    /// outermost first, one per block dim; its byte offset in the buffer). The buffer holds the
    /// block, or the block without leading unit dims (a rank-reduced access).
    fn box_origins(
        &self,
        op: MlirOperation,
        buffer: &SharedBuffer,
        block: &[u32],
        tma: &TmaBox,
    ) -> LResult<Vec<(Vec<u32>, u64)>> {
        let Some(dropped) = dropped_unit_dims(block, &buffer.shape) else {
            return err(
                op,
                format!(
                    "the TMA buffer's shape {:?} is not the descriptor's block {block:?} (nor \
                     the block without leading unit dims)",
                    buffer.shape
                ),
            );
        };
        // The buffer's dims: the block's past the dropped unit dims, whose box extents are 1.
        let (block, box_dims) = (&block[dropped..], &tma.box_dims[dropped..]);
        let Addressing::Linear { .. } = buffer.addressing else {
            return err(
                op,
                "a TMA buffer needs a swizzled (#ttg.nvmma_shared) layout",
            );
        };
        let box_elems: u32 = box_dims.iter().product();
        // Inside one box the layout must keep elements within the box's own span: TMA writes
        // the box contiguously (swizzled inside it).
        for (d, &extent) in box_dims.iter().enumerate() {
            let mut unit = vec![0u32; block.len()];
            let mut bit = 1;
            while bit < extent {
                unit[d] = bit;
                if buffer.addressing.offset_of(&unit) >= box_elems {
                    return err(
                        op,
                        "the buffer's layout does not store a TMA box contiguously",
                    );
                }
                bit <<= 1;
            }
        }
        let messages: Vec<u32> = block.iter().zip(box_dims).map(|(&b, &x)| b / x).collect();
        let total: u32 = messages.iter().product();
        let bytes = smem_bytes(buffer.elem);
        let mut out = Vec::with_capacity(total as usize);
        for index in 0..total {
            let mut rest = index;
            let mut coord = vec![0u32; block.len()];
            for d in (0..block.len()).rev() {
                coord[d] = (rest % messages[d]) * box_dims[d];
                rest /= messages[d];
            }
            let offset = buffer.addressing.offset_at(&coord);
            if !offset.is_multiple_of(box_elems) {
                return err(op, "the buffer's layout does not align a TMA box");
            }
            let mut origin = vec![0u32; dropped];
            origin.extend(coord);
            out.push((origin, offset as u64 * bytes));
        }
        Ok(out)
    }

    /// `ttng.async_tma_copy_global_to_local %desc[%coord] %buf, %bar, %pred`: one TMA load per
    /// box, box `i` started by lane 0 of warp `i % num_warps` (a tile of several boxes, B's
    /// 64x256 in four, is issued by as many warps at once rather than one after another by one
    /// thread, as Triton spreads them); each completes its bytes on the barrier, whose
    /// transaction count may run ahead of the `expect_tx` arrival without completing the phase.
    /// Where the boxes step evenly through the block and the buffer (`box_steps`), every warp
    /// runs one copy instruction whose box is its own warp index's, not one instruction per box
    /// each predicated off in all warps but one: ptxas wraps each copy from a lane-dependent
    /// predicate in a loop over the predicate's values, which every warp then runs.
    pub fn lower_tma_load(&mut self, o: &OpLowering) -> LResult<()> {
        let op = o.op;
        let desc = o.ins[0];
        // Operands: desc, coord..., barrier, result, pred.
        let n = o.ins.len();
        if n < 4 {
            return err(op, "async_tma_copy_global_to_local needs its operands");
        }
        let coords = &o.ins[1..n - 3];
        let (bar_v, buf_v, pred_v) = (o.ins[n - 3], o.ins[n - 2], o.ins[n - 1]);
        let block_type = descriptor_block(op, desc)?;
        let block: Vec<u32> = shape(block_type).iter().map(|&d| d as u32).collect();
        let elem = element_type(block_type);
        if coords.len() != block.len() {
            return err(op, "TMA copies need one coordinate per block dim");
        }
        let tma = box_of(op, &block, elem, value_type(buf_v))?;
        let buffer = self.buffer_of(op, buf_v)?;
        let boxes = self.box_origins(op, &buffer, &block, &tma)?;
        self.barrier_before_async_write();
        let tmap = self.descriptor_address(op, desc)?;
        let bar = self.barrier_address(op, bar_v)?;
        let pred = self.scalar(op, pred_v)?;
        let warps = self.num_warps.max(1) as usize;
        let mut coord_regs = Vec::with_capacity(coords.len());
        for &c in coords {
            coord_regs.push(self.scalar(op, c)?);
        }
        let rank = block.len();
        let dst_base = self.shared_u32(buffer.base);
        // PTX lists coordinates innermost first.
        let list: Vec<String> = (0..rank).map(|i| format!("${}", 4 + i)).collect();
        let asm = format!(
            "@$0 cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes \
             [$1], [$2, {{{}}}], [$3];",
            list.join(", ")
        );
        let constraints = format!("b,r,l,r{}", ",r".repeat(rank));
        if boxes.len() > 1
            && let Some((origin_step, offset_step)) = box_steps(&boxes)
        {
            // Round r: warp w copies box w + r·warps, if there is one; lane 0 starts it.
            let warp = self.warp();
            let zero = self.b.const_i32(0);
            let lane0 = self.b.icmp(IntPredicate::Eq, self.lane, zero);
            let pred = self.b.and(pred, lane0);
            let count = self.b.const_i32(boxes.len() as i64);
            for round in 0..boxes.len().div_ceil(warps) {
                let index = match round * warps {
                    0 => warp,
                    first => self.b.bin_imm(BinOp::Add, warp, first as i64),
                };
                let exists = self.b.icmp(IntPredicate::Ult, index, count);
                let issuer = self.b.and(pred, exists);
                let offset = self.b.bin_imm(BinOp::Mul, index, offset_step as i64);
                let dst = self.b.bin(BinOp::Add, dst_base, offset);
                let mut operands = vec![issuer, dst, tmap, bar];
                for d in (0..rank).rev() {
                    let c = if origin_step[d] == 0 {
                        coord_regs[d]
                    } else {
                        let step = self.b.bin_imm(BinOp::Mul, index, origin_step[d] as i64);
                        self.b.bin(BinOp::Add, coord_regs[d], step)
                    };
                    operands.push(c);
                }
                self.b.inline_asm(&asm, &constraints, &operands, None, true);
            }
            return Ok(());
        }
        let issuers: Vec<Value> = (0..boxes.len().min(warps))
            .map(|warp| {
                let lane0 = self
                    .b
                    .const_i32((warp * self.threads_per_warp as usize) as i64);
                let issuer = self.b.icmp(IntPredicate::Eq, self.tid, lane0);
                self.b.and(pred, issuer)
            })
            .collect();
        for (i, (origin, offset)) in boxes.into_iter().enumerate() {
            let dst = self.b.bin_imm(BinOp::Add, dst_base, offset as i64);
            let mut operands = vec![issuers[i % issuers.len()], dst, tmap, bar];
            for d in (0..rank).rev() {
                let c = if origin[d] == 0 {
                    coord_regs[d]
                } else {
                    self.b.bin_imm(BinOp::Add, coord_regs[d], origin[d] as i64)
                };
                operands.push(c);
            }
            self.b.inline_asm(&asm, &constraints, &operands, None, true);
        }
        Ok(())
    }

    /// `ttng.async_tma_copy_local_to_global` (`kind` None) and `ttng.async_tma_reduce`: thread 0
    /// starts one bulk store (or reduction) per box and commits them as one bulk group.
    pub fn lower_tma_store(&mut self, o: &OpLowering, reduce: bool) -> LResult<()> {
        let op = o.op;
        // Operands: desc, coord..., src (a reduction's kind is an attribute).
        if o.ins.len() < 3 {
            return err(
                op,
                "a TMA store needs a descriptor, coordinates and a buffer",
            );
        }
        let (desc, coords, src) = (o.ins[0], &o.ins[1..o.ins.len() - 1], o.ins[o.ins.len() - 1]);
        let block_type = descriptor_block(op, desc)?;
        let block: Vec<u32> = shape(block_type).iter().map(|&d| d as u32).collect();
        let elem = element_type(block_type);
        if coords.len() != block.len() {
            return err(op, "TMA copies need one coordinate per block dim");
        }
        let tma = box_of(op, &block, elem, value_type(src))?;
        let buffer = self.buffer_of(op, src)?;
        let boxes = self.box_origins(op, &buffer, &block, &tma)?;
        let instruction = if reduce {
            let kind = match int_attr(op, "kind").unwrap_or(1) {
                1 => "add",
                2 => "min",
                3 => "max",
                4 => "inc",
                5 => "dec",
                6 => "and",
                7 => "or",
                8 => "xor",
                other => return err(op, format!("unknown TMA reduction kind {other}")),
            };
            let float = is_float(elem);
            if float && !matches!(kind, "add" | "min" | "max") {
                return err(op, format!("a TMA {kind} reduction needs integer elements"));
            }
            format!(
                "cp.reduce.async.bulk.tensor.{}d.global.shared::cta.{kind}.tile.bulk_group",
                block.len()
            )
        } else {
            format!(
                "cp.async.bulk.tensor.{}d.global.shared::cta.bulk_group",
                block.len()
            )
        };
        let tmap = self.descriptor_address(op, desc)?;
        let pred = self.is_thread0();
        let mut coord_regs = Vec::with_capacity(coords.len());
        for &c in coords {
            coord_regs.push(self.scalar(op, c)?);
        }
        let rank = block.len();
        let src_base = self.shared_u32(buffer.base);
        let list: Vec<String> = (0..rank).map(|i| format!("${}", 3 + i)).collect();
        let asm = format!("@$0 {instruction} [$1, {{{}}}], [$2];", list.join(", "));
        let constraints = format!("b,l,r{}", ",r".repeat(rank));
        for (origin, offset) in boxes {
            let src_addr = self.b.bin_imm(BinOp::Add, src_base, offset as i64);
            let mut operands = vec![pred, tmap, src_addr];
            for d in (0..rank).rev() {
                let c = if origin[d] == 0 {
                    coord_regs[d]
                } else {
                    self.b.bin_imm(BinOp::Add, coord_regs[d], origin[d] as i64)
                };
                operands.push(c);
            }
            self.b.inline_asm(&asm, &constraints, &operands, None, true);
        }
        self.b
            .inline_asm("@$0 cp.async.bulk.commit_group;", "b", &[pred], None, true);
        Ok(())
    }

    /// `ttng.async_tma_store_wait {pendings}`: thread 0 waits until at most `pendings` bulk
    /// groups still read shared memory; a later write of the buffers waits at a barrier.
    pub fn lower_tma_store_wait(&mut self, o: &OpLowering) -> LResult<()> {
        let pendings = int_attr(o.op, "pendings").unwrap_or(0).max(0);
        let pred = self.is_thread0();
        self.b.inline_asm(
            &format!("@$0 cp.async.bulk.wait_group.read {pendings};"),
            "b",
            &[pred],
            None,
            true,
        );
        Ok(())
    }

    /// `ttng.tensormap_create`: warp 0 zeroes a 128-byte descriptor in shared memory, thread 0
    /// fills in every field with `tensormap.replace`, and warp 0 copies it to `desc_ptr` with
    /// `tensormap.cp_fenceproxy` (a release to the tensormap proxy).
    pub fn lower_tensormap_create(&mut self, o: &OpLowering) -> LResult<()> {
        let op = o.op;
        // desc_ptr, global_address, box_dim..., global_dim..., global_stride...,
        // element_stride...
        let segments = i32_array(op, "operandSegmentSizes");
        if segments.len() != 6 || segments[..2] != [1, 1] {
            return err(op, "tensormap_create needs its operand segments");
        }
        let rank = segments[2] as usize;
        if rank == 0
            || rank > 5
            || segments[3] as usize != rank
            || segments[4] as usize + 1 != rank
            || segments[5] as usize != rank
        {
            return err(
                op,
                "tensormap_create needs rank box dims, global dims and element strides and rank - 1 global strides (rank 1 to 5)",
            );
        }
        let mut regs = Vec::with_capacity(o.ins.len());
        for &v in &o.ins {
            regs.push(self.scalar(op, v)?);
        }
        let (desc_ptr, global) = (regs[0], regs[1]);
        let box_dim = &regs[2..2 + rank];
        let global_dim = &regs[2 + rank..2 + 2 * rank];
        let global_stride = &regs[2 + 2 * rank..1 + 3 * rank];
        let element_stride = &regs[1 + 3 * rank..1 + 4 * rank];
        self.reserve_scratch(tritium_passes::tma::DESCRIPTOR_BYTES as u64);
        self.barrier_before_write();
        let smem = self.smem_base();
        let smem32 = self.shared_u32(smem);
        let i64t = self.b.i64();
        let warp0 = self.is_warp0();
        let first = self.is_thread0();
        // Warp 0 zeroes the 32 words.
        let word = self.b.bin_imm(BinOp::Shl, self.tid, 2);
        let zero_at = self.b.add(smem32, word);
        let zero = self.b.const_i32(0);
        self.b.inline_asm(
            "@$0 st.shared.b32 [$1], $2;",
            "b,r,r",
            &[warp0, zero_at, zero],
            None,
            true,
        );
        self.b
            .inline_asm("bar.warp.sync -1;", "~{memory}", &[], None, true);
        let field = |name: &str, bits: u32| {
            format!("@$0 tensormap.replace.tile.{name}.shared::cta.b1024.b{bits} [$1], $2;")
        };
        let global_int = self.b.cast(CastOp::PtrToInt, global, i64t);
        self.b.inline_asm(
            &field("global_address", 64),
            "b,r,l",
            &[first, smem32, global_int],
            None,
            true,
        );
        let replace_imm = |l: &mut Self, name: &str, value: i64| {
            l.b.inline_asm(
                &format!("@$0 tensormap.replace.tile.{name}.shared::cta.b1024.b32 [$1], {value};"),
                "b,r",
                &[first, smem32],
                None,
                true,
            );
        };
        replace_imm(self, "rank", rank as i64 - 1);
        for (name, values, bits) in [
            ("box_dim", box_dim, 32),
            ("global_dim", global_dim, 32),
            ("global_stride", global_stride, 64),
            ("element_stride", element_stride, 32),
        ] {
            for (i, &v) in values.iter().enumerate() {
                let letter = if bits == 64 { "l" } else { "r" };
                self.b.inline_asm(
                    &format!(
                        "@$0 tensormap.replace.tile.{name}.shared::cta.b1024.b{bits} [$1], {i}, $2;"
                    ),
                    &format!("b,r,{letter}"),
                    &[first, smem32, v],
                    None,
                    true,
                );
            }
        }
        for name in [
            "elem_type",
            "interleave_layout",
            "swizzle_mode",
            "fill_mode",
        ] {
            let value = int_attr(op, name).unwrap_or(0);
            let ptx_name = if name == "elem_type" {
                "elemtype"
            } else {
                name
            };
            replace_imm(self, ptx_name, value);
        }
        let desc_int = self.b.cast(CastOp::PtrToInt, desc_ptr, i64t);
        self.b.inline_asm(
            "@$0 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$1], [$2], 128;",
            "b,l,r",
            &[warp0, desc_int, smem32],
            None,
            true,
        );
        // The copy reads the scratch asynchronously: wait before anyone reuses it.
        self.b.inline_asm(
            "@$0 cp.async.bulk.commit_group;\n\t@$0 cp.async.bulk.wait_group.read 0;",
            "b",
            &[warp0],
            None,
            true,
        );
        self.barrier();
        Ok(())
    }

    /// `ttng.tensormap_fenceproxy_acquire %ptr`: the descriptor written through the generic
    /// proxy becomes visible to the TMA unit's reads.
    pub fn lower_tensormap_fence_acquire(&mut self, o: &OpLowering) -> LResult<()> {
        let ptr = self.scalar(o.op, o.ins[0])?;
        let i64t = self.b.i64();
        let address = self.b.cast(CastOp::PtrToInt, ptr, i64t);
        self.b.inline_asm(
            "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;",
            "l",
            &[address],
            None,
            true,
        );
        Ok(())
    }

    /// `ttng.reinterpret_tensor_descriptor %ptr`: the descriptor is the pointer.
    pub fn lower_reinterpret_descriptor(&mut self, o: &OpLowering) -> LResult<()> {
        let ptr = self.scalar(o.op, o.ins[0])?;
        self.set(o.outs[0], vec![ptr]);
        Ok(())
    }

    /// `ttg.global_scratch_alloc {nbytes, alignment}`: this program's slice of the global
    /// scratch buffer (the kernel's last parameter: `global_scratch_size` bytes per program,
    /// programs in linear order x, then y, then z), at the op's offset in the slice.
    pub fn lower_global_scratch_alloc(&mut self, o: &OpLowering) -> LResult<()> {
        let Some(&offset) = self.global_scratch_offsets.get(&(o.op.ptr as usize)) else {
            return err(
                o.op,
                "internal error: a global scratch buffer has no offset",
            );
        };
        let Some(base) = self.global_scratch_base else {
            return err(
                o.op,
                "internal error: the kernel has no global scratch parameter",
            );
        };
        let x = self.b.special_register("ctaid.x");
        let y = self.b.special_register("ctaid.y");
        let z = self.b.special_register("ctaid.z");
        let nx = self.b.special_register("nctaid.x");
        let ny = self.b.special_register("nctaid.y");
        let zy = self.b.mul(z, ny);
        let zy = self.b.add(zy, y);
        let zyx = self.b.mul(zy, nx);
        let program = self.b.add(zyx, x);
        let i64t = self.b.i64();
        let program = self.b.zext(program, i64t);
        let slice = self
            .b
            .bin_imm(BinOp::Mul, program, self.global_scratch_size as i64);
        let at = self.b.bin_imm(BinOp::Add, slice, offset as i64);
        let i8t = self.b.i8();
        let ptr = self.b.gep(base, at, i8t);
        self.set(o.outs[0], vec![ptr]);
        Ok(())
    }
}
