//! `-convert-triton-gpu-to-llvm{compute-capability ptx-version}`: lowers a TTGIR module to the
//! LLVM dialect (with NVVM and inline PTX), one thread's view at a time, in place.
//!
//! Every distributed tensor becomes the list of scalars its thread holds ([`FuncLowering::values`],
//! read off the linear layout by [`crate::layout_map::ThreadMap`]). Each `tt.func` becomes an
//! `llvm.func` kernel built next to it with the typed [`crate::builder::Builder`]; every op of its
//! body is looked up in [`crate::registry`] and lowered by its family's function in `ops/`. The
//! result is LLVM dialect plus scalar `arith`/`math`/`scf`, finished by MLIR's standard
//! conversions (see [`crate::FINISH_PIPELINE`]).

use crate::builder::{Builder, Value};
use crate::registry::{OpLowering, lowering_of};
pub use crate::state::*;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use tritium_passes::axis_info::AxisInfoAnalysis;
use tritium_passes::ir_util::*;

/// What the lowering leaves beyond the rewritten module.
pub struct Lowered {
    /// Dynamic shared memory a launch must provide, in bytes.
    pub shared_bytes: u64,
    /// Global scratch bytes per program (0: the kernel has no scratch parameter) and their
    /// alignment.
    pub global_scratch_size: u64,
    pub global_scratch_align: u64,
}

/// Target options of the lowering.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Compute capability times ten plus minor (80, 86, 89, 90).
    pub capability: u32,
    /// PTX ISA version times ten (e.g. 84 for PTX 8.4).
    pub ptx_version: u32,
}

/// Lowers every `tt.func` of `module` to an `llvm.func` kernel, in place.
pub fn lower_module(module: MlirOperation, target: Target) -> LResult<Lowered> {
    let num_warps = int_attr(module, "ttg.num-warps").unwrap_or(4);
    let threads_per_warp = int_attr(module, "ttg.threads-per-warp").unwrap_or(32);
    if !(1..=32).contains(&num_warps) || threads_per_warp != 32 {
        return err(
            module,
            format!(
                "the lowering needs ttg.num-warps in 1..32 and ttg.threads-per-warp 32 (got {num_warps} and {threads_per_warp})"
            ),
        );
    }
    let axis = AxisInfoAnalysis::run(module);
    // SAFETY: `module` is a live builtin.module; its body is its only block.
    let module_body = unsafe { mlirModuleGetBody(mlirModuleFromOperation(module)) };
    let ctx = context_of(module);
    let mut shared_bytes = 0u64;
    let (mut global_scratch_size, mut global_scratch_align) = (0u64, 1u64);
    let mut defined = HashSet::new();
    let funcs: Vec<MlirOperation> = collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "tt.func")
        .collect();
    for func in funcs {
        // SAFETY: `func` is a live op of the module.
        let loc = unsafe { mlirOperationGetLocation(func) };
        let mut lowering = FuncLowering {
            b: Builder::at_end(ctx, loc, module_body),
            values: HashMap::new(),
            axis: &axis,
            num_warps: num_warps as u32,
            threads_per_warp: threads_per_warp as u32,
            maps: HashMap::new(),
            bases: HashMap::new(),
            // Set by `lower_func` before any op is lowered.
            lane: MlirValue {
                ptr: std::ptr::null(),
            },
            warp_index: None,
            tid: MlirValue {
                ptr: std::ptr::null(),
            },
            shared_bytes: 0,
            uses_shared: false,
            capability: target.capability,
            ptx_version: target.ptx_version,
            module_body,
            defined: std::mem::take(&mut defined),
            current_op: None,
            barrier_pending: false,
            shared_read_since_barrier: false,
            scratch: Vec::new(),
            buffers: HashMap::new(),
            global_scratch_offsets: HashMap::new(),
            global_scratch_size: 0,
            global_scratch_base: None,
        };
        lowering.lower_func(func)?;
        defined = std::mem::take(&mut lowering.defined);
        shared_bytes = shared_bytes.max(lowering.shared_bytes);
        if lowering.global_scratch_size > 0 {
            global_scratch_size = global_scratch_size.max(lowering.global_scratch_size);
            global_scratch_align = global_scratch_align.max(global_scratch_alignment(func));
        }
        // SAFETY: the kernel replaced it; nothing refers to the TTGIR function any more.
        unsafe {
            mlirOperationRemoveFromParent(func);
            mlirOperationDestroy(func);
        }
    }
    // Scratch placed by -allocate-shared-memory may sit above offset 0.
    if let Some(allocated) = int_attr(module, "ttg.shared") {
        shared_bytes = shared_bytes.max(allocated.max(0) as u64);
    }
    Ok(Lowered {
        shared_bytes,
        global_scratch_size,
        global_scratch_align,
    })
}

/// Offsets of a function's `ttg.global_scratch_alloc` buffers in one program's slice (each at
/// its alignment, in program order) and the slice's size, rounded up to the largest alignment.
fn global_scratch_layout(func: MlirOperation) -> (HashMap<usize, u64>, u64) {
    let mut offsets = HashMap::new();
    let mut end = 0u64;
    for op in collect_ops(func) {
        if op_name(op) != "ttg.global_scratch_alloc" {
            continue;
        }
        let bytes = int_attr(op, "nbytes").unwrap_or(0).max(0) as u64;
        let align = int_attr(op, "alignment").unwrap_or(1).max(1) as u64;
        let at = end.div_ceil(align) * align;
        offsets.insert(op.ptr as usize, at);
        end = at + bytes;
    }
    let align = global_scratch_alignment(func);
    (offsets, end.div_ceil(align) * align)
}

/// The largest alignment of a function's global scratch buffers (1 without any).
fn global_scratch_alignment(func: MlirOperation) -> u64 {
    collect_ops(func)
        .into_iter()
        .filter(|&op| op_name(op) == "ttg.global_scratch_alloc")
        .map(|op| int_attr(op, "alignment").unwrap_or(1).max(1) as u64)
        .max()
        .unwrap_or(1)
}

impl FuncLowering<'_> {
    /// Builds the `llvm.func` kernel of `func` right before it.
    fn lower_func(&mut self, func: MlirOperation) -> LResult<()> {
        let name = symbol_name(func);
        let Some(&entry) = blocks_of(func).first() else {
            return err(func, "a kernel needs a body");
        };
        let mut param_types = Vec::new();
        // Per parameter: whether it is a host-side TMA descriptor (a 128-byte `CUtensorMap`
        // passed by value, as Triton passes `tensordesc` arguments).
        let mut descriptors = Vec::new();
        for arg in block_args(entry) {
            let ty = value_type(arg);
            if is_tensor(ty) {
                return err(func, "kernel arguments must be scalars or pointers");
            }
            // SAFETY: type query on a live type.
            let is_desc = unsafe { tritium_dialects::ffi::tritiumTypeIsTensorDesc(ty) };
            if is_desc && self.capability < 90 {
                return err(
                    func,
                    "tensor descriptor arguments (host-side TMA descriptors) need sm_90",
                );
            }
            param_types.push(if is_desc {
                self.b.ptr_type(0)
            } else {
                self.llvm_type(ty)
            });
            descriptors.push(is_desc);
        }
        let (scratch_offsets, scratch_size) = global_scratch_layout(func);
        if scratch_size > 0 {
            // Triton's global scratch parameter, after the arguments.
            param_types.push(self.b.ptr_type(1));
            descriptors.push(false);
        }
        self.global_scratch_offsets = scratch_offsets;
        self.global_scratch_size = scratch_size;
        let threads = (self.num_warps * self.threads_per_warp) as i32;
        let (region, body) = self.b.region_with_block(&param_types);
        let void = self.b.void_type();
        let func_type = self.b.func_type(void, &param_types, false);
        let mut attrs = vec![
            ("sym_name", self.b.string_attr(&name)),
            ("function_type", self.b.type_attr(func_type)),
            ("nvvm.kernel", self.b.unit_attr()),
            ("nvvm.reqntid", self.b.i32_array(&[threads])),
        ];
        if descriptors.iter().any(|&d| d) {
            attrs.push(("arg_attrs", self.descriptor_arg_attrs(&descriptors)));
        }
        self.b.set_before(func);
        self.b.create("llvm.func", &[], &[], &attrs, vec![region]);
        let params = block_args(body);
        for (arg, &param) in block_args(entry).into_iter().zip(&params) {
            self.set(arg, vec![param]);
        }
        if scratch_size > 0 {
            self.global_scratch_base = params.last().copied();
        }
        // Thread ids first, then the prologue anchor: prologue ops go before it, the body after.
        self.b.set_end(body);
        self.tid = self.b.special_register("tid.x");
        let tpw = self.b.const_i32(self.threads_per_warp as i64);
        self.lane = self.b.urem(self.tid, tpw);
        self.warp_index = None;
        let descriptor_params: Vec<Value> = params
            .iter()
            .zip(&descriptors)
            .filter(|&(_, &is_desc)| is_desc)
            .map(|(&param, _)| param)
            .collect();
        self.prefetch_descriptor_params(&descriptor_params);
        let anchor_type = self.b.i32();
        let anchor = self
            .b
            .create("llvm.mlir.poison", &[], &[anchor_type], &[], Vec::new());
        self.b.mark_prologue(anchor);
        self.lower_block(entry)?;
        // SAFETY: the anchor has no uses; it only marked where the prologue ends.
        unsafe {
            mlirOperationRemoveFromParent(anchor);
            mlirOperationDestroy(anchor);
        }
        Ok(())
    }

    /// `arg_attrs` of the kernel: a host-side TMA descriptor parameter is the address of a
    /// 128-byte, 64-byte-aligned `byval` grid constant (`.param .align 64 .b8 P[128]`).
    fn descriptor_arg_attrs(&self, descriptors: &[bool]) -> MlirAttribute {
        let ctx = self.ctx();
        let byval_type = self.b.array_type(self.b.i8(), 128);
        let named = |name: &str, attr: MlirAttribute| {
            // SAFETY: an identifier and attribute of the live context.
            unsafe { mlirNamedAttributeGet(mlirIdentifierGet(ctx, str_ref(name)), attr) }
        };
        let dicts: Vec<MlirAttribute> = descriptors
            .iter()
            .map(|&is_desc| {
                let entries: Vec<MlirNamedAttribute> = if is_desc {
                    vec![
                        named("llvm.align", self.b.i64_attr(64)),
                        named("llvm.byval", self.b.type_attr(byval_type)),
                        named("nvvm.grid_constant", self.b.unit_attr()),
                    ]
                } else {
                    Vec::new()
                };
                // SAFETY: the entries are live attributes of the context; the call copies them.
                unsafe { mlirDictionaryAttrGet(ctx, entries.len() as isize, entries.as_ptr()) }
            })
            .collect();
        // SAFETY: the dictionaries are live attributes of the context; the call copies them.
        unsafe { mlirArrayAttrGet(ctx, dicts.len() as isize, dicts.as_ptr()) }
    }

    /// Lowers the ops of a block in order, at the builder's insertion point.
    pub fn lower_block(&mut self, block: MlirBlock) -> LResult<()> {
        // Lowering builds new ops elsewhere and never erases TTGIR ops (the function is destroyed
        // only once all of it is lowered), so the snapshot stays live.
        for op in block_ops(block) {
            self.lower_op(op)?;
        }
        Ok(())
    }

    /// A located error when a result would hold more than [`MAX_REGISTERS_PER_VALUE`] values
    /// per thread. Results only `tt.dot`s read are exempt: FMA dots stage their operands from
    /// shared memory instead of holding their (K-replicated) layout in registers.
    fn check_register_budget(&mut self, op: MlirOperation, outs: &[MlirValue]) -> LResult<()> {
        for &out in outs {
            let ty = value_type(out);
            if !is_tensor(ty) || only_read_by_dots(out) {
                continue;
            }
            let count = self.register_count(op, ty)?;
            if count > MAX_REGISTERS_PER_VALUE {
                return err(
                    op,
                    format!(
                        "a result of {count} values per thread is over the lowering's limit of \
                         {MAX_REGISTERS_PER_VALUE} (its layout repeats elements across the \
                         registers; compiling it would take minutes and gigabytes)"
                    ),
                );
            }
        }
        Ok(())
    }

    /// Lowers one op through the registry; the lowered ops carry its location.
    pub fn lower_op(&mut self, op: MlirOperation) -> LResult<()> {
        let outer = self.current_op.replace(op);
        let outer_loc = self.b.loc;
        // SAFETY: `op` is live.
        self.b.loc = unsafe { mlirOperationGetLocation(op) };
        let lowering = OpLowering {
            op,
            name: op_name(op),
            ins: operands(op),
            outs: results(op),
        };
        let touches_shared = may_touch_shared_memory(op, &lowering.name);
        if touches_shared {
            self.flush_barrier();
        }
        let result = match self.check_register_budget(op, &lowering.outs) {
            Err(e) => Err(e),
            Ok(()) => match lowering_of(&lowering.name) {
                Some(lower) => lower(self, &lowering),
                None if matches!(lowering.name.as_str(), "scf.yield" | "scf.condition") => {
                    err(op, "unexpected terminator")
                }
                None => err(
                    op,
                    format!("lowering of '{}' to LLVM is not implemented", lowering.name),
                ),
            },
        };
        // Checked after the op that crosses it, so the error points at the op that made the
        // function too large (a scf.for's body counts as it is lowered, op by op).
        let result = result.and_then(|()| {
            if self.b.ops_created > MAX_LLVM_OPS_PER_FUNCTION {
                err(
                    op,
                    format!(
                        "the kernel's lowering has made {} LLVM operations so far, over the limit \
                         of {MAX_LLVM_OPS_PER_FUNCTION} (LLVM's time on one function grows faster \
                         than its size); use more warps or smaller blocks",
                        self.b.ops_created
                    ),
                )
            } else {
                Ok(())
            }
        });
        if touches_shared && !is_async_shared_write(&lowering.name) {
            self.shared_read_since_barrier = true;
        }
        if result.is_ok() && lowering.name.starts_with("arith.") {
            for &out in &lowering.outs {
                self.share_constant_registers(op, out);
            }
        }
        self.b.loc = outer_loc;
        self.current_op = outer;
        result
    }

    /// Registers of `value` that axis info proves equal (in one block of its constancy along
    /// every dim) take the first one's value, so a mask constant along a dim is computed once
    /// per block rather than per element, as Triton's lowering does. With a thread's coordinates
    /// `t ^ c_r` (linear over GF(2)), two registers fall in one aligned block exactly when their
    /// offsets `c_r` agree above the block size.
    fn share_constant_registers(&mut self, op: MlirOperation, value: MlirValue) {
        let ty = value_type(value);
        if !is_tensor(ty) {
            return;
        }
        let constancy = self.axis.get(value).constancy;
        let block_masks: Vec<u32> = constancy
            .iter()
            .map(|&c| {
                // The largest power of two dividing the constancy: its aligned blocks lie
                // inside the constancy's.
                let block = 1u64 << c.max(1).trailing_zeros().min(31);
                !(block as u32 - 1)
            })
            .collect();
        if block_masks.iter().all(|&m| m == u32::MAX) {
            return;
        }
        let Ok(map) = self.thread_map(op, ty) else {
            return;
        };
        let mut regs = self.get(value);
        if regs.len() != map.registers.len() || block_masks.len() != map.shape.len() {
            return;
        }
        let mut first: HashMap<Vec<u32>, usize> = HashMap::new();
        for (r, coord) in map.registers.iter().enumerate() {
            let block: Vec<u32> = coord.iter().zip(&block_masks).map(|(c, m)| c & m).collect();
            match first.get(&block) {
                Some(&earlier) => regs[r] = regs[earlier],
                None => {
                    first.insert(block, r);
                }
            }
        }
        self.set(value, regs);
    }

    /// Binds every result of `outs` to one register per element its thread holds, taking them in
    /// order from `flat` (the results of a lowered multi-result op).
    pub fn bind_flat(
        &mut self,
        op: MlirOperation,
        outs: &[MlirValue],
        flat: &[Value],
    ) -> LResult<()> {
        let mut index = 0;
        for out in outs {
            let count = self.register_count(op, value_type(*out))?;
            let Some(regs) = flat.get(index..index + count) else {
                return err(op, "internal error: lowered op has too few results");
            };
            self.set(*out, regs.to_vec());
            index += count;
        }
        Ok(())
    }
}

/// Ops that only start or complete asynchronous copies into shared memory: they read none of it.
fn is_async_shared_write(name: &str) -> bool {
    matches!(
        name,
        "ttg.async_copy_global_to_local"
            | "ttg.async_commit_group"
            | "ttg.async_wait"
            | "ttng.async_tma_copy_global_to_local"
            | "ttng.barrier_expect"
            | "ttng.arrive_barrier"
            | "ttng.tensormap_fenceproxy_acquire"
            | "ttng.reinterpret_tensor_descriptor"
    )
}

/// Whether an op's lowering may read or write shared memory (or leave its block), so a pending
/// write barrier must be emitted before it. Ops without scratch, regions or buffers — loads
/// and stores to global memory, arithmetic, index computations — may run before it; shared
/// writes (`ttg.local_alloc` / `local_store`) place their own barriers, and
/// `ttng.fence_async_shared` emits it after the fence.
fn may_touch_shared_memory(op: MlirOperation, name: &str) -> bool {
    if matches!(
        name,
        "ttg.local_alloc"
            | "ttg.local_store"
            | "ttng.fence_async_shared"
            // Views of a buffer: address arithmetic only.
            | "ttg.memdesc_index"
            | "ttg.memdesc_subslice"
            | "ttg.memdesc_trans"
            | "ttg.memdesc_reshape"
            // Global memory and address arithmetic only.
            | "ttng.tensormap_fenceproxy_acquire"
            | "ttng.reinterpret_tensor_descriptor"
            | "ttg.global_scratch_alloc"
    ) {
        return false;
    }
    // SAFETY: region count of a live op.
    let has_regions = unsafe { mlirOperationGetNumRegions(op) } > 0;
    if has_regions {
        return true;
    }
    // Ops with a scratch size touch shared memory exactly when they need scratch (a register-only
    // layout conversion or a reduction finished in registers does not).
    if let Some(scratch) = crate::registry::scratch_of(name) {
        return scratch(op).is_ok_and(|b| b > 0);
    }
    name.starts_with("ttg.")
        || name.starts_with("ttng.")
        || name.starts_with("scf.")
        || matches!(name, "tt.return" | "tt.dot" | "tt.call")
}

/// The most values one thread may hold for one tensor result it computes: twice the default
/// layouts' limit (`tritium_passes::convert_to_gpu::MAX_ELEMENTS_PER_THREAD`), room for the
/// replication of mma operand layouts; a larger layout (an FMA dot-operand layout used by
/// elementwise ops repeats all of K in every thread) took minutes and gigabytes of memory to
/// lower. `state::MAX_REGISTERS_PER_THREAD` is the looser bound on any layout's thread map,
/// staged FMA operands included.
pub const MAX_REGISTERS_PER_VALUE: usize = 1024;

/// The most LLVM-dialect operations the lowering makes for one kernel. Code of that size is
/// compiled by LLVM in a few seconds; beyond it LLVM's time grows faster than the code (a 1-warp
/// 128x128 attention made 120,518 and took 10 s, most of it in NVPTX's straight-line strength
/// reduction; a 1-warp 128x128x128 scaled dot on sm_80, 153,545 and 20 s). The largest kernels
/// of the repository — the attention backward at head dim 128, fp8 dots upcast for mma v2 at
/// 64x256x128 — make about 35,000; typical matmuls and attention 3,000 to 12,000.
pub const MAX_LLVM_OPS_PER_FUNCTION: usize = 1 << 16;
