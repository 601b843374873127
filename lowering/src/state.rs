//! What every lowering shares: the per-function state ([`FuncLowering`]: the typed builder, the
//! registers each TTGIR value maps to, per-layout thread maps and bases), errors located at an op,
//! and small type helpers. The op families in `ops/` import only this module and
//! [`crate::builder`], never each other's files, so there are no import circles.

use crate::builder::{BinOp, Builder, IntPredicate, Value};
use crate::layout_map::ThreadMap;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use tritium_dialects::ffi;
use tritium_layout::encoding::Encoding;
use tritium_layout::linear::REGISTER;
use tritium_passes::axis_info::AxisInfoAnalysis;
use tritium_passes::ir_util::*;

pub use tritium_dialects::attrs::ContextAttrs;
pub use tritium_dialects::ffi::str_ref;

/// The most registers one thread may hold for one tensor: beyond it the lowering would build
/// millions of ops (Triton's own limit on a tensor is 2^20 elements).
pub const MAX_REGISTERS_PER_THREAD: usize = 1 << 14;

/// A lowering failure, reported at an op.
#[derive(Debug)]
pub struct LowerError {
    pub op: Option<MlirOperation>,
    pub message: String,
}

pub type LResult<T> = Result<T, LowerError>;

pub fn err<T>(op: MlirOperation, message: impl Into<String>) -> LResult<T> {
    Err(LowerError {
        op: Some(op),
        message: message.into(),
    })
}

/// The 8-bit float types, which the LLVM dialect holds as `i8`.
pub fn is_fp8(ty: MlirType) -> bool {
    // SAFETY: type queries on a live type.
    unsafe { mlirTypeIsAFloat(ty) && mlirFloatTypeGetWidth(ty) == 8 }
}

/// Bits of a scalar type (pointers and index: 64).
pub fn type_bits(ty: MlirType) -> u32 {
    // SAFETY: type queries on a live type.
    unsafe {
        if ffi::tritiumTypeIsPointer(ty) || mlirTypeIsAIndex(ty) {
            64
        } else if mlirTypeIsAInteger(ty) {
            mlirIntegerTypeGetWidth(ty)
        } else if mlirTypeIsAFloat(ty) {
            mlirFloatTypeGetWidth(ty)
        } else {
            32
        }
    }
}

/// A float type the LLVM dialect has (fp8 types are held as `i8` and are not).
pub fn is_float(ty: MlirType) -> bool {
    // SAFETY: type query on a live type.
    unsafe { mlirTypeIsAFloat(ty) && !is_fp8(ty) }
}

/// `!ttg.async.token`: orders async copies; lowered to nothing (zero registers).
pub fn is_async_token(ty: MlirType) -> bool {
    // SAFETY: type query on a live type.
    unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsAsyncToken(ty) }
}

pub fn is_pointer(ty: MlirType) -> bool {
    // SAFETY: type query on a live type.
    unsafe { ffi::tritiumTypeIsPointer(ty) }
}

/// The pointee of a `!tt.ptr` type (any other type is returned as is; callers pass pointers).
pub fn pointee(ty: MlirType) -> MlirType {
    if !is_pointer(ty) {
        return ty;
    }
    // SAFETY: `ty` is a live `!tt.ptr` type (checked above), which the C++ side casts to.
    unsafe { ffi::tritiumPointerTypeGetPointee(ty) }
}

pub fn is_bf16(ty: MlirType) -> bool {
    // SAFETY: type query on a live type.
    unsafe { mlirTypeIsABF16(ty) }
}

pub fn is_f16(ty: MlirType) -> bool {
    // SAFETY: type query on a live type.
    unsafe { mlirTypeIsAF16(ty) }
}

pub fn is_f32(ty: MlirType) -> bool {
    // SAFETY: type query on a live type.
    unsafe { mlirTypeIsAF32(ty) }
}

/// The LLVM-dialect type of a scalar `tt`/builtin type: `!tt.ptr<T, s>` → `!llvm.ptr<s>`, fp8 →
/// `i8`, index → `i64`, anything else as is.
pub fn llvm_type(ctx: MlirContext, ty: MlirType) -> MlirType {
    // SAFETY: type queries and constructors on a live context.
    unsafe {
        if ffi::tritiumTypeIsPointer(ty) {
            let space = ffi::tritiumPointerTypeGetAddressSpace(ty);
            return mlirLLVMPointerTypeGet(ctx, space as u32);
        }
        if is_fp8(ty) {
            return mlirIntegerTypeGet(ctx, 8);
        }
        if mlirTypeIsAIndex(ty) {
            return mlirIntegerTypeGet(ctx, 64);
        }
    }
    ty
}

/// An attribute of an op by name, if present.
pub fn attribute(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    // SAFETY: attribute query on a live op.
    let attr = unsafe { mlirOperationGetAttributeByName(op, str_ref(name)) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// The `sym_name` of a function.
pub fn symbol_name(func: MlirOperation) -> String {
    string_attr(func, "sym_name").unwrap_or_default()
}

pub fn i32_array(op: MlirOperation, name: &str) -> Vec<i32> {
    // SAFETY: attribute queries on a live op; indices stay below the element count.
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, str_ref(name));
        if attr.ptr.is_null() || !mlirAttributeIsADenseI32Array(attr) {
            return Vec::new();
        }
        (0..mlirDenseArrayGetNumElements(attr))
            .map(|i| mlirDenseI32ArrayGetElement(attr, i))
            .collect()
    }
}

/// A conversion into an FMA dot-operand layout whose users are all `tt.dot` (which then stage
/// the source through shared memory themselves).
pub fn is_dot_operand_feed(op: MlirOperation) -> bool {
    let Some(&result) = results(op).first() else {
        return false;
    };
    // Only FMA operands (blocked parent): tensor-core operands are real registers.
    match encoding_of(value_type(result)) {
        Some(Encoding::DotOperand(dot)) if matches!(*dot.parent, Encoding::Blocked(_)) => {}
        _ => return false,
    }
    only_read_by_dots(result)
}

/// Whether every use of `value` is a `tt.dot` operand.
pub fn only_read_by_dots(value: MlirValue) -> bool {
    users(value)
        .into_iter()
        .all(|user| op_name(user) == "tt.dot")
}

/// The thread map of a distributed tensor type, bounded by [`MAX_REGISTERS_PER_THREAD`]; errors
/// are located at `op`. Needs no lowering state, so shared-memory sizes can be computed from
/// types alone.
pub fn thread_map_of(op: MlirOperation, ty: MlirType) -> LResult<ThreadMap> {
    let dims: Vec<u32> = shape(ty).iter().map(|&d| d as u32).collect();
    let Some(encoding) = encoding_of(ty).filter(|e| e.is_distributed()) else {
        return err(
            op,
            "tensor without a distributed layout encoding (run -tritium-ttgir first)",
        );
    };
    let layout = encoding.to_linear(&dims).map_err(|e| LowerError {
        op: Some(op),
        message: e.to_string(),
    })?;
    // Checked before the registers are enumerated (2^bits of them).
    let register_bits = layout.bases(REGISTER).len();
    if register_bits > MAX_REGISTERS_PER_THREAD.trailing_zeros() as usize {
        return err(
            op,
            format!(
                "a thread would hold 2^{register_bits} registers of one tensor (at most {MAX_REGISTERS_PER_THREAD})"
            ),
        );
    }
    Ok(ThreadMap::from_linear(&layout, &dims))
}

/// Per-function lowering state. Each op family adds methods to it in its own file of `ops/`.
pub struct FuncLowering<'a> {
    /// Builds the lowered ops (at the position of the op being lowered; prologue at the top).
    pub b: Builder,
    /// The registers one thread holds for each TTGIR value (scalars: one).
    pub values: HashMap<usize, Vec<Value>>,
    pub axis: &'a AxisInfoAnalysis,
    pub num_warps: u32,
    pub threads_per_warp: u32,
    /// Thread maps by tensor type (types are uniqued, so the handle is the key).
    pub maps: HashMap<usize, ThreadMap>,
    /// Per tensor type: runtime coordinate contributed by (lane, warp), per dim.
    pub bases: HashMap<usize, Vec<Value>>,
    pub lane: Value,
    /// The warp index, made on first use ([`Lowering::warp`]).
    pub warp_index: Option<Value>,
    /// The thread index in the CTA (`tid.x`).
    pub tid: Value,
    pub shared_bytes: u64,
    pub uses_shared: bool,
    /// Target compute capability (`compute-capability`, else `ttg.target`, e.g. 90).
    pub capability: u32,
    /// PTX ISA version times ten.
    pub ptx_version: u32,
    /// The module body, where globals and helper functions go.
    pub module_body: MlirBlock,
    /// Module-level symbols already defined by the lowering (helpers, globals, declarations).
    pub defined: HashSet<String>,
    /// The op being lowered (its `allocation.offset` places its shared-memory scratch).
    pub current_op: Option<MlirOperation>,
    /// Shared-memory scratch each op needs, in bytes (for `-allocate-shared-memory`).
    pub scratch: Vec<(MlirOperation, u64)>,
    /// `ttg.local_alloc` buffers by memdesc value.
    pub buffers: HashMap<usize, crate::ops::local::SharedBuffer>,
    /// A shared-memory write whose closing barrier is not emitted yet: it goes right before the
    /// next op that may touch shared memory (or after the next `fence.proxy.async`), so
    /// consecutive buffer writes and the fence before a wgmma share one barrier.
    pub barrier_pending: bool,
    /// Some thread may have read shared memory since the last barrier (conservatively true at the
    /// top of a region body, which a loop's back edge also reaches): a write to shared memory
    /// needs a barrier first, as Triton's membar analysis places one for write-after-read.
    pub shared_read_since_barrier: bool,
    /// Offsets of this function's `ttg.global_scratch_alloc` buffers in a program's slice of
    /// the global scratch (by op), the slice's bytes, and the scratch parameter (when any).
    pub global_scratch_offsets: HashMap<usize, u64>,
    pub global_scratch_size: u64,
    pub global_scratch_base: Option<Value>,
}

impl FuncLowering<'_> {
    /// The warp index (`tid.x / 32`), in the prologue. It is the same in every lane, but ptxas
    /// cannot see that through a division of `tid`: read back from lane 0 (`shfl.sync.idx`), it
    /// is provably warp-uniform, so what derives from it (each warpgroup's wgmma descriptors,
    /// per-warp offsets) lives in uniform registers instead of being moved there (R2UR) on every
    /// use. Made on first use: a kernel that never needs it gets no shuffle.
    pub fn warp(&mut self) -> Value {
        if let Some(warp) = self.warp_index {
            return warp;
        }
        let warp = if self.num_warps == 1 {
            self.b.prologue_i32(0)
        } else {
            let threads_per_warp = self.b.prologue_i32(self.threads_per_warp as i64);
            let divided = self.b.prologue_bin(BinOp::UDiv, self.tid, threads_per_warp);
            let lane0 = self.b.prologue_i32(0);
            let i32 = self.b.i32();
            let asm = self
                .b
                .string_attr("shfl.sync.idx.b32 $0, $1, $2, 0x1f, 0xffffffff;");
            let constraints = self.b.string_attr("=r,r,r");
            let side_effects = self.b.unit_attr();
            // Volatile, so LLVM never sinks it into code only some lanes run.
            let op = self.b.create_in_prologue(
                "llvm.inline_asm",
                &[divided, lane0],
                &[i32],
                &[
                    ("asm_string", asm),
                    ("constraints", constraints),
                    ("has_side_effects", side_effects),
                ],
            );
            Builder::result(op)
        };
        self.warp_index = Some(warp);
        warp
    }

    pub fn ctx(&self) -> MlirContext {
        self.b.ctx
    }

    /// The LLVM-dialect type of a scalar type.
    pub fn llvm_type(&self, ty: MlirType) -> MlirType {
        llvm_type(self.b.ctx, ty)
    }

    /// The LLVM-dialect type of a value's elements.
    pub fn elem_llvm_type(&self, value: MlirValue) -> MlirType {
        self.llvm_type(element_type(value_type(value)))
    }

    pub fn get(&self, value: MlirValue) -> Vec<Value> {
        self.values.get(&key(value)).cloned().unwrap_or_default()
    }

    /// The registers of a TTGIR value, or a located error when it was never lowered.
    pub fn regs(&self, op: MlirOperation, value: MlirValue) -> LResult<Vec<Value>> {
        if is_async_token(value_type(value)) {
            return Ok(Vec::new());
        }
        match self.values.get(&key(value)) {
            Some(regs) if !regs.is_empty() => Ok(regs.clone()),
            _ => err(op, "internal error: an operand has no lowered value"),
        }
    }

    /// The one register of a scalar TTGIR value.
    pub fn scalar(&self, op: MlirOperation, value: MlirValue) -> LResult<Value> {
        // Non-empty: `regs` returns at least one register.
        Ok(self.regs(op, value)?[0])
    }

    /// Binds a TTGIR value to its registers.
    pub fn set(&mut self, value: MlirValue, regs: Vec<Value>) {
        self.values.insert(key(value), regs);
    }

    /// The thread map of a tensor type (cached per type).
    pub fn thread_map(&mut self, op: MlirOperation, ty: MlirType) -> LResult<ThreadMap> {
        if let Some(map) = self.maps.get(&(ty.ptr as usize)) {
            return Ok(map.clone());
        }
        let map = thread_map_of(op, ty)?;
        self.maps.insert(ty.ptr as usize, map.clone());
        Ok(map)
    }

    /// Registers one thread holds for a value of type `ty` (scalars: 1).
    pub fn register_count(&mut self, op: MlirOperation, ty: MlirType) -> LResult<usize> {
        if is_async_token(ty) {
            Ok(0)
        } else if is_tensor(ty) {
            Ok(self.thread_map(op, ty)?.num_registers())
        } else {
            Ok(1)
        }
    }

    /// Runtime per-dim coordinates contributed by this thread's lane and warp.
    pub fn thread_base(&mut self, op: MlirOperation, ty: MlirType) -> LResult<Vec<Value>> {
        if let Some(base) = self.bases.get(&(ty.ptr as usize)) {
            return Ok(base.clone());
        }
        let map = self.thread_map(op, ty)?;
        let base = self.thread_base_of_map(&map);
        self.bases.insert(ty.ptr as usize, base.clone());
        Ok(base)
    }

    /// [`Self::thread_base`] of a map that no tensor type names (not cached).
    pub fn thread_base_of_map(&mut self, map: &ThreadMap) -> Vec<Value> {
        let rank = map.shape.len();
        let mut base = Vec::new();
        // Every lane and warp basis has one entry per dim (the layout's outputs are the dims).
        for d in 0..rank {
            let lane_terms: Vec<u64> = map.lane_bases.iter().map(|basis| basis[d] as u64).collect();
            let warp_terms: Vec<u64> = map.warp_bases.iter().map(|basis| basis[d] as u64).collect();
            let zero = self.b.prologue_i32(0);
            base.push(self.prologue_thread_xor(zero, &lane_terms, &warp_terms));
        }
        base
    }

    /// `acc ^ Σ (lane bit i · lane_terms[i]) ^ Σ (warp bit j · warp_terms[j])`, in the prologue:
    /// a GF(2)-linear thread coordinate or offset. With every lane bit given, the terms are taken
    /// as bits of `tid.x` (= warp · 32 + lane), so a field that crosses from lane into warp bits
    /// (rows 8·warp + lane/4, say) is one `(tid >> b) & mask`: LLVM's loop strength reduction
    /// sees the rows of one thread as one base plus constants and chains their addresses, where
    /// an `or` of a lane part and a warp part left it one induction variable per row (16 more
    /// 64-bit registers live across an attention loop).
    pub fn prologue_thread_xor(
        &mut self,
        acc: Value,
        lane_terms: &[u64],
        warp_terms: &[u64],
    ) -> Value {
        let lane_bits = self.threads_per_warp.trailing_zeros() as usize;
        if lane_terms.len() == lane_bits {
            let terms: Vec<u64> = lane_terms.iter().chain(warp_terms).copied().collect();
            return self.prologue_xor_bits(acc, self.tid, &terms);
        }
        let acc = self.prologue_xor_bits(acc, self.lane, lane_terms);
        if warp_terms.iter().all(|&term| term == 0) {
            return acc;
        }
        let warp = self.warp();
        self.prologue_xor_bits(acc, warp, warp_terms)
    }

    /// `acc ^ Σ_bit (((source >> bit) & 1) * terms[bit])` (xor-combined), in the prologue: a
    /// GF(2)-linear thread coordinate or offset from the bits of `source` (a lane or warp id).
    /// A run of consecutive bits whose terms are consecutive powers of two (the usual blocked
    /// layout: lane bit i moves 2^(k+i) elements) is one field, `((source >> b) & mask) << k`,
    /// instead of four instructions per bit (which LLVM does not merge back).
    pub fn prologue_xor_bits(&mut self, mut acc: Value, source: Value, terms: &[u64]) -> Value {
        let mut bit = 0;
        while bit < terms.len() {
            let term = terms[bit];
            if term == 0 {
                bit += 1;
                continue;
            }
            let mut run = 1;
            if term.is_power_of_two() {
                while bit + run < terms.len() && terms[bit + run] == term << run {
                    run += 1;
                }
            }
            if run == 1 {
                acc = self.prologue_xor_bit(acc, source, bit, term as i64);
            } else {
                let shift = self.b.prologue_i32(bit as i64);
                let mask = self.b.prologue_i32((1i64 << run) - 1);
                let up = self.b.prologue_i32(term.trailing_zeros() as i64);
                let shifted = self.b.prologue_bin(BinOp::LShr, source, shift);
                let field = self.b.prologue_bin(BinOp::And, shifted, mask);
                let placed = self.b.prologue_bin(BinOp::Shl, field, up);
                acc = self.b.prologue_bin(BinOp::Xor, acc, placed);
            }
            bit += run;
        }
        acc
    }

    /// `acc ^ (((source >> bit) & 1) * term)`, in the prologue: one lane or warp bit's share of
    /// a GF(2)-linear thread coordinate or offset.
    pub fn prologue_xor_bit(&mut self, acc: Value, source: Value, bit: usize, term: i64) -> Value {
        let shift = self.b.prologue_i32(bit as i64);
        let one = self.b.prologue_i32(1);
        let mult = self.b.prologue_i32(term);
        let shifted = self.b.prologue_bin(BinOp::LShr, source, shift);
        let masked = self.b.prologue_bin(BinOp::And, shifted, one);
        let scaled = self.b.prologue_bin(BinOp::Mul, masked, mult);
        self.b.prologue_bin(BinOp::Xor, acc, scaled)
    }

    /// The `i1` that is true in exactly one thread among those holding the same elements.
    pub fn first_copy_predicate(&mut self, map: &ThreadMap) -> Option<Value> {
        let lane_mask = map.lane_broadcast_mask();
        let warp_mask = map.warp_broadcast_mask();
        if lane_mask == 0 && warp_mask == 0 {
            return None;
        }
        let zero = self.b.prologue_i32(0);
        let lm = self.b.prologue_i32(lane_mask as i64);
        let wm = self.b.prologue_i32(warp_mask as i64);
        let a = self.b.prologue_bin(BinOp::And, self.lane, lm);
        let c = if warp_mask == 0 {
            a
        } else {
            let warp = self.warp();
            let b = self.b.prologue_bin(BinOp::And, warp, wm);
            self.b.prologue_bin(BinOp::Or, a, b)
        };
        let ty = self.b.i1();
        let predicate = self.b.i64_attr(IntPredicate::Eq as i64);
        let op =
            self.b
                .create_in_prologue("llvm.icmp", &[c, zero], &[ty], &[("predicate", predicate)]);
        Some(Builder::result(op))
    }

    /// Records that the op being lowered uses `bytes` of shared-memory scratch.
    pub fn reserve_scratch(&mut self, bytes: u64) {
        let offset = self
            .current_op
            .and_then(|op| int_attr(op, "allocation.offset"))
            .unwrap_or(0) as u64;
        self.shared_bytes = self.shared_bytes.max(offset + bytes);
        if let Some(op) = self.current_op {
            match self.scratch.iter_mut().find(|(o, _)| o.ptr == op.ptr) {
                Some(entry) => entry.1 = entry.1.max(bytes),
                None => self.scratch.push((op, bytes)),
            }
        }
    }

    /// LLVM types of a value list, flattened (tensors expand to their registers).
    pub fn flat_types(
        &mut self,
        op: MlirOperation,
        values: &[MlirValue],
    ) -> LResult<Vec<MlirType>> {
        let mut types = Vec::new();
        for v in values {
            let ty = value_type(*v);
            // A shared-memory descriptor travels as its buffer's base address.
            // SAFETY: a type query on a live type.
            if unsafe { ffi::ttg::tritiumTypeIsMemDesc(ty) } {
                // SAFETY: a pointer type of the live context.
                types.push(unsafe { mlirLLVMPointerTypeGet(self.b.ctx, 3) });
                continue;
            }
            let count = self.register_count(op, ty)?;
            if count == 0 {
                continue;
            }
            types.extend(std::iter::repeat_n(self.llvm_type(element_type(ty)), count));
        }
        Ok(types)
    }

    /// Defines a module-level symbol once: `build` runs with the builder at the end of the module
    /// body (for globals and helper functions), the first time `symbol` is asked for.
    pub fn define_once(&mut self, symbol: &str, build: impl FnOnce(&mut Builder)) {
        if !self.defined.insert(symbol.to_string()) {
            return;
        }
        let saved = self.b.save();
        self.b.set_end(self.module_body);
        build(&mut self.b);
        self.b.restore(saved);
    }

    /// Base of the dynamic shared memory (`@global_smem`, address space 3).
    pub fn shared_base(&mut self) -> Value {
        self.uses_shared = true;
        self.define_once("global_smem", |b| {
            let array = b.array_type(b.i8(), 0);
            let attrs = [
                ("sym_name", b.string_attr("global_smem")),
                ("global_type", b.type_attr(array)),
                ("linkage", b.linkage(false)),
                ("addr_space", b.i32_attr(3)),
                // Buffers are placed at offsets aligned for their swizzle (see
                // `buffer_alignment`); the base is where the driver puts dynamic shared memory,
                // 1024-byte aligned in practice (Triton declares 16 and relies on the same; the
                // GPU tests' 128-byte-swizzled wgmma operands check it). Declaring only 16 keeps
                // LLVM from learning the base's low address bits, with which it turns a wgmma
                // descriptor's `add` of a tile offset into a disjoint `or`: ptxas does not
                // rematerialize those in uniform registers but holds each in two vector
                // registers (attention backward D=128: 276 `R2UR` and 1048 bytes spilled with
                // 1024; 11 `R2UR` in the loop and 832 bytes with 16).
                ("alignment", b.i64_attr(16)),
            ];
            let region = b.empty_region();
            b.create("llvm.mlir.global", &[], &[], &attrs, vec![region]);
        });
        let ty = self.b.ptr_type(3);
        self.b.address_of("global_smem", ty)
    }
}

/// The PTX name of a float type (`f16`, `bf16`, `f32`, `f64`), as instruction suffixes spell it.
pub fn ptx_float_name(ty: MlirType) -> Option<&'static str> {
    // SAFETY: type kind queries on a live type.
    unsafe {
        if mlirTypeIsAF16(ty) {
            Some("f16")
        } else if mlirTypeIsABF16(ty) {
            Some("bf16")
        } else if mlirTypeIsAF32(ty) {
            Some("f32")
        } else if mlirTypeIsAF64(ty) {
            Some("f64")
        } else {
            None
        }
    }
}

/// The `n`th of an op's operands or results, or a located error naming `what`.
pub fn nth(op: MlirOperation, values: &[MlirValue], n: usize, what: &str) -> LResult<MlirValue> {
    match values.get(n) {
        Some(&v) => Ok(v),
        None => err(op, format!("missing {what}")),
    }
}

/// Inline-asm constraint letter of a float register of `bits`.
pub fn float_constraint(bits: u32) -> &'static str {
    match bits {
        64 => "d",
        16 => "h",
        _ => "f",
    }
}

/// Register `r` of a value's registers, or its only register when the value is a scalar used
/// with a tensor (a splat operand); `None` when there are none.
pub fn pick(values: &[Value], r: usize) -> Option<Value> {
    values.get(r).or(values.first()).copied()
}

/// [`pick`], as a located error when there is no register.
pub fn pick_reg(op: MlirOperation, values: &[Value], r: usize) -> LResult<Value> {
    match pick(values, r) {
        Some(v) => Ok(v),
        None => err(op, "internal error: an operand has no lowered value"),
    }
}

/// Bytes of a scalar in shared memory (i1 as one byte, pointers as eight).
pub fn smem_bytes(elem: MlirType) -> u64 {
    let bits = type_bits(elem);
    if bits == 1 {
        1
    } else if is_pointer(elem) {
        8
    } else {
        (bits / 8).max(1) as u64
    }
}

/// `(mask, other)` of a load (`first_optional` = 1) or `(mask, None)` of a store (2). By
/// position: the `tt.load` verifier accepts `other` only together with a mask.
pub fn load_store_optionals(
    ins: &[MlirValue],
    first_optional: usize,
) -> (Option<MlirValue>, Option<MlirValue>) {
    let mask = ins.get(first_optional).copied();
    let other = if first_optional == 1 {
        ins.get(2).copied()
    } else {
        None
    };
    (mask, other)
}

/// PTX register class for a scalar of `bits`: (type suffix, constraint letter, register width).
pub fn asm_register(bits: u32) -> (&'static str, &'static str, u32) {
    match bits {
        64 => ("b64", "l", 64),
        32 => ("b32", "r", 32),
        16 => ("b16", "h", 16),
        _ => ("b8", "h", 16),
    }
}

/// The PTX cache and eviction qualifiers of a load or store (`cache`, `evict` attributes).
pub fn cache_suffix(op: MlirOperation) -> String {
    let mut suffix = String::new();
    match int_attr(op, "cache").unwrap_or(1) {
        2 => suffix.push_str(".ca"),
        3 => suffix.push_str(".cg"),
        4 => suffix.push_str(".wb"),
        5 => suffix.push_str(".cs"),
        6 => suffix.push_str(".wt"),
        7 => suffix.push_str(".cv"),
        _ => {}
    }
    match int_attr(op, "evict").unwrap_or(1) {
        2 => suffix.push_str(".L1::evict_first"),
        3 => suffix.push_str(".L1::evict_last"),
        _ => {}
    }
    suffix
}

/// Shared helpers of the data-movement lowerings: bits of registers, shared-memory addressing.
impl FuncLowering<'_> {
    /// A value as the integer register a PTX instruction moves (`asm_register(bits)` wide).
    pub fn bits_of(&mut self, value: Value, elem: MlirType, bits: u32) -> Value {
        let (_, _, width) = asm_register(bits);
        let int = self.b.int_type(bits);
        let as_int = if is_float(elem) {
            self.b.bitcast(value, int)
        } else if is_pointer(elem) {
            let i64 = self.b.i64();
            self.b.cast(crate::builder::CastOp::PtrToInt, value, i64)
        } else {
            value
        };
        if width > bits {
            let wide = self.b.int_type(width);
            self.b.zext(as_int, wide)
        } else {
            as_int
        }
    }

    /// The inverse of [`Self::bits_of`]: a `width`-bit register back to an element of `elem`.
    pub fn value_from_bits(&mut self, raw: Value, elem: MlirType, bits: u32, width: u32) -> Value {
        let narrowed = if width > bits {
            let int = self.b.int_type(bits);
            self.b.trunc(raw, int)
        } else {
            raw
        };
        let lty = self.llvm_type(elem);
        if is_float(elem) {
            self.b.bitcast(narrowed, lty)
        } else if is_pointer(elem) {
            self.b.cast(crate::builder::CastOp::IntToPtr, narrowed, lty)
        } else {
            narrowed
        }
    }

    /// `per` sub-32-bit elements of `values` from `first` packed into one b32 word (element k in
    /// bits `k*bits..`), as a vectorized load/store moves them. `values` is a register list from
    /// [`Self::regs`] (never empty); indices past its end take its last register.
    pub fn pack_word(
        &mut self,
        values: &[Value],
        first: usize,
        per: usize,
        elem: MlirType,
        bits: u32,
    ) -> Value {
        let i32 = self.b.i32();
        if per == 2 && bits == 16 && is_float(elem) {
            // Two halves as a <2 x half> (or bf16) vector: LLVM then packs two f32 -> f16
            // conversions into one `cvt.rn.f16x2.f32` and two registers into one `mov.b32`.
            let lty = self.llvm_type(elem);
            let pair_type = self.b.vector_type(lty, 2);
            let mut pair = self.b.undef(pair_type);
            for k in 0..2 {
                let v = values[(first + k).min(values.len() - 1)];
                pair = self.b.insert_element(pair, v, k as i64);
            }
            return self.b.bitcast(pair, i32);
        }
        let mut word = self.b.const_i32(0);
        for k in 0..per {
            let v = values[(first + k).min(values.len() - 1)];
            let b = self.bits_of(v, elem, bits);
            let b = self.b.zext(b, i32);
            let s = self.b.bin_imm(BinOp::Shl, b, (k as u32 * bits) as i64);
            word = self.b.or(word, s);
        }
        word
    }

    /// `bar.sync 0`: every thread of the CTA waits here (shared memory is then consistent).
    pub fn barrier(&mut self) {
        self.barrier_pending = false;
        self.shared_read_since_barrier = false;
        self.b.barrier();
    }

    /// The barrier before a shared-memory write (earlier readers are done) — unless a write's
    /// closing barrier is still pending (nothing has read shared memory since that write's
    /// opening barrier), or nothing has touched shared memory since the last barrier (the
    /// kernel's first shared-memory op: a softmax's cross-warp reduction, a layout conversion
    /// before the stores; Triton's barrier analysis puts none there either).
    pub fn barrier_before_write(&mut self) {
        if !self.barrier_pending && self.shared_read_since_barrier {
            self.barrier();
        }
    }

    /// The barrier before an asynchronous copy into shared memory, where some thread may still
    /// read what it overwrites (the copies land only at the `cp.async.wait_group` and its
    /// barrier, so no write barrier follows them).
    pub fn barrier_before_async_write(&mut self) {
        if self.shared_read_since_barrier {
            self.barrier();
        }
    }

    /// Ends a shared-memory write: its barrier waits for the next op that may read.
    pub fn barrier_after_write(&mut self) {
        self.barrier_pending = true;
    }

    /// Emits a pending write barrier.
    pub fn flush_barrier(&mut self) {
        if self.barrier_pending {
            self.barrier();
        }
    }

    /// The op being lowered's shared-memory scratch (`allocation.offset` bytes into
    /// `@global_smem`).
    pub fn smem_base(&mut self) -> Value {
        let base = self.shared_base();
        match self
            .current_op
            .and_then(|op| int_attr(op, "allocation.offset"))
            .filter(|&o| o > 0)
        {
            Some(offset) => self.region_base(base, offset as u64),
            None => base,
        }
    }

    /// Address of element `index` (i32) of a shared array of `element`.
    pub fn smem_address(&mut self, base: Value, index: Value, element: MlirType) -> Value {
        self.b.gep(base, index, element)
    }

    /// Storage type of a scalar in shared memory (i1 as i8, pointers as i64) and its bytes.
    pub fn smem_type(&self, elem: MlirType) -> (MlirType, u64) {
        let storage = if type_bits(elem) == 1 {
            self.b.i8()
        } else if is_pointer(elem) {
            self.b.i64()
        } else {
            self.llvm_type(elem)
        };
        (storage, smem_bytes(elem))
    }

    pub fn smem_store(&mut self, base: Value, index: Value, value: Value, elem: MlirType) {
        let (storage, _) = self.smem_type(elem);
        let stored = if type_bits(elem) == 1 {
            self.b.zext(value, storage)
        } else if is_pointer(elem) {
            self.b
                .cast(crate::builder::CastOp::PtrToInt, value, storage)
        } else {
            value
        };
        let address = self.smem_address(base, index, storage);
        self.b.store(stored, address);
    }

    pub fn smem_load(&mut self, base: Value, index: Value, elem: MlirType) -> Value {
        let (storage, _) = self.smem_type(elem);
        let address = self.smem_address(base, index, storage);
        let loaded = self.b.load(address, storage);
        if type_bits(elem) == 1 {
            let i1 = self.b.i1();
            self.b.trunc(loaded, i1)
        } else if is_pointer(elem) {
            let lty = self.llvm_type(elem);
            self.b.cast(crate::builder::CastOp::IntToPtr, loaded, lty)
        } else {
            loaded
        }
    }

    /// Per-dim coordinates `base ^ constant` (runtime thread part, compile-time register part).
    pub fn runtime_coord(&mut self, base: &[Value], constant: &[u32]) -> Vec<Value> {
        base.iter()
            .zip(constant)
            .map(|(&b, &c)| {
                if c == 0 {
                    b
                } else {
                    self.b.bin_imm(BinOp::Xor, b, c as i64)
                }
            })
            .collect()
    }

    /// Row-major index (i32) of a runtime coordinate in a shape.
    pub fn linear_index(&mut self, coord: &[Value], dims: &[u32]) -> Value {
        let mut index = self.b.const_i32(0);
        for (&c, &d) in coord.iter().zip(dims) {
            let scaled = self.b.bin_imm(BinOp::Mul, index, d as i64);
            index = self.b.add(scaled, c);
        }
        index
    }

    /// `base + byte_offset` in shared memory.
    pub fn region_base(&mut self, base: Value, byte_offset: u64) -> Value {
        if byte_offset == 0 {
            return base;
        }
        let offset = self.b.const_i32(byte_offset as i64);
        let i8 = self.b.i8();
        self.b.gep(base, offset, i8)
    }

    /// Gathers the given bits of an i32 into a compact integer (bit i of the result = bit
    /// `bits[i]`).
    pub fn compact_bits(&mut self, value: Value, bits: &[usize]) -> Value {
        let mut acc = self.b.const_i32(0);
        for (i, &bit) in bits.iter().enumerate() {
            let s = self.b.bin_imm(BinOp::LShr, value, bit as i64);
            let b = self.b.bin_imm(BinOp::And, s, 1);
            let p = self.b.bin_imm(BinOp::Shl, b, i as i64);
            acc = self.b.or(acc, p);
        }
        acc
    }
}
