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
            warp: MlirValue {
                ptr: std::ptr::null(),
            },
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
        };
        lowering.lower_func(func)?;
        defined = std::mem::take(&mut lowering.defined);
        shared_bytes = shared_bytes.max(lowering.shared_bytes);
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
    Ok(Lowered { shared_bytes })
}

impl FuncLowering<'_> {
    /// Builds the `llvm.func` kernel of `func` right before it.
    fn lower_func(&mut self, func: MlirOperation) -> LResult<()> {
        let name = symbol_name(func);
        let Some(&entry) = blocks_of(func).first() else {
            return err(func, "a kernel needs a body");
        };
        let mut param_types = Vec::new();
        for arg in block_args(entry) {
            let ty = value_type(arg);
            if is_tensor(ty) {
                return err(func, "kernel arguments must be scalars or pointers");
            }
            param_types.push(self.llvm_type(ty));
        }
        let threads = (self.num_warps * self.threads_per_warp) as i32;
        let (region, body) = self.b.region_with_block(&param_types);
        let void = self.b.void_type();
        let func_type = self.b.func_type(void, &param_types, false);
        let attrs = [
            ("sym_name", self.b.string_attr(&name)),
            ("function_type", self.b.type_attr(func_type)),
            ("nvvm.kernel", self.b.unit_attr()),
            ("nvvm.reqntid", self.b.i32_array(&[threads])),
        ];
        self.b.set_before(func);
        self.b.create("llvm.func", &[], &[], &attrs, vec![region]);
        for (arg, param) in block_args(entry).into_iter().zip(block_args(body)) {
            self.set(arg, vec![param]);
        }
        // Thread ids first, then the prologue anchor: prologue ops go before it, the body after.
        self.b.set_end(body);
        self.tid = self.b.special_register("tid.x");
        let tpw = self.b.const_i32(self.threads_per_warp as i64);
        self.lane = self.b.urem(self.tid, tpw);
        self.warp = self.b.udiv(self.tid, tpw);
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

    /// Lowers the ops of a block in order, at the builder's insertion point.
    pub fn lower_block(&mut self, block: MlirBlock) -> LResult<()> {
        // SAFETY: iteration over a live block's ops.
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        while !op.ptr.is_null() {
            self.lower_op(op)?;
            // SAFETY: `op` is still a live op of `block`: lowering builds new ops elsewhere and
            // never erases TTGIR ops (the function is destroyed only once all of it is lowered).
            op = unsafe { mlirOperationGetNextInBlock(op) };
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
        let result = match lowering_of(&lowering.name) {
            Some(lower) => lower(self, &lowering),
            None if matches!(lowering.name.as_str(), "scf.yield" | "scf.condition") => {
                err(op, "unexpected terminator")
            }
            None => err(
                op,
                format!("lowering of '{}' to LLVM is not implemented", lowering.name),
            ),
        };
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
        "ttg.async_copy_global_to_local" | "ttg.async_commit_group" | "ttg.async_wait"
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
