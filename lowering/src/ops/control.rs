//! Structured control flow carrying distributed tensors (`scf.for`, `scf.if`, `scf.while`) and
//! `tt.return`: each tensor travels as its thread's registers, flattened in operand order; a
//! shared-memory descriptor (`scf.for`, `scf.if`) as its buffer's base address, every buffer
//! it may stand for laid out alike.

use crate::builder::*;
use crate::registry::OpLowering;
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    pub fn lower_return(&mut self, o: &OpLowering) -> LResult<()> {
        if !o.ins.is_empty() {
            return err(o.op, "a kernel returns no values");
        }
        self.b.ret(&[]);
        Ok(())
    }

    /// The registers of a value list, flattened (a memdesc: its buffer's base).
    fn flat_regs(&self, op: MlirOperation, values: &[MlirValue]) -> LResult<Vec<Value>> {
        let mut flat = Vec::new();
        for v in values {
            if is_memdesc(*v) {
                flat.push(self.buffer_of(op, *v)?.base);
                continue;
            }
            flat.extend(self.regs(op, *v)?);
        }
        Ok(flat)
    }

    /// The memdescs among `values` (bound to their base, by `bind_flat`) become buffers laid out
    /// as the corresponding `templates` (a loop's inits, a branch's yielded values), and each
    /// of `alike` (values the same memdescs also take: yielded ones) must be laid out the same.
    fn bind_buffers(
        &mut self,
        op: MlirOperation,
        values: &[MlirValue],
        templates: &[MlirValue],
        alike: &[MlirValue],
    ) -> LResult<()> {
        for (i, (&v, &t)) in values.iter().zip(templates).enumerate() {
            if !is_memdesc(v) {
                continue;
            }
            let template = self.buffer_of(op, t)?;
            if let Some(&other) = alike.get(i)
                && !template.same_layout(&self.buffer_of(op, other)?)
            {
                return err(
                    op,
                    "a shared-memory descriptor carried through control flow stands for buffers of different layouts",
                );
            }
            let Some(&base) = self.get(v).first() else {
                return err(op, "internal error: a carried memdesc has no base");
            };
            let mut buffer = template;
            buffer.base = base;
            self.buffers.insert(v.ptr as usize, buffer);
        }
        Ok(())
    }

    pub fn lower_for(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        if ins.len() < 3 {
            return err(op, "scf.for needs bounds and a step");
        }
        let (lb, ub, step) = (
            self.scalar(op, ins[0])?,
            self.scalar(op, ins[1])?,
            self.scalar(op, ins[2])?,
        );
        let inits = self.flat_regs(op, &ins[3..])?;
        let types = self.flat_types(op, &ins[3..])?;
        let Some(&body) = blocks_of(op).first() else {
            return err(op, "scf.for without a body");
        };
        let args = block_args(body);
        let mut block_types = vec![value_type(lb)];
        block_types.extend(&types);
        let (region, block) = self.b.region_with_block(&block_types);
        let lowered_args = block_args(block);
        // Both blocks start with the induction variable: scf.for's verifier requires it of
        // `body`, and `block_types` starts with it.
        self.set(args[0], vec![lowered_args[0]]);
        self.bind_flat(op, &args[1..], &lowered_args[1..])?;
        self.bind_buffers(op, &args[1..], &ins[3..], &[])?;
        let saved = self.b.save();
        self.b.set_end(block);
        self.lower_yielding_block(body)?;
        self.b.restore(saved);
        let mut operands = vec![lb, ub, step];
        operands.extend(inits);
        let lowered = self
            .b
            .create("scf.for", &operands, &types, &[], vec![region]);
        self.bind_flat(op, outs, &Builder::results_of(lowered))?;
        let yielded = operands_of_terminator(body);
        self.bind_buffers(op, outs, &ins[3..], &yielded)
    }

    pub fn lower_if(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let Some(&condition) = ins.first() else {
            return err(op, "scf.if without a condition");
        };
        let cond = self.scalar(op, condition)?;
        let types = self.flat_types(op, outs)?;
        let blocks = blocks_of(op);
        let mut regions = Vec::new();
        for i in 0..2 {
            match blocks.get(i) {
                Some(&ttgir_block) => {
                    let (region, block) = self.b.region_with_block(&[]);
                    let saved = self.b.save();
                    self.b.set_end(block);
                    self.lower_yielding_block(ttgir_block)?;
                    self.b.restore(saved);
                    regions.push(region);
                }
                None => regions.push(self.b.empty_region()),
            }
        }
        let lowered = self.b.create("scf.if", &[cond], &types, &[], regions);
        self.bind_flat(op, outs, &Builder::results_of(lowered))?;
        if let (Some(&then_block), Some(&else_block)) = (blocks.first(), blocks.get(1)) {
            let from_then = operands_of_terminator(then_block);
            self.bind_buffers(op, outs, &from_then, &operands_of_terminator(else_block))?;
        }
        Ok(())
    }

    /// Lowers the ops of a region block whose terminator is `scf.yield`, yielding the flattened
    /// registers.
    fn lower_yielding_block(&mut self, block: MlirBlock) -> LResult<()> {
        // A loop body is also entered from its own end, after whatever it read.
        self.shared_read_since_barrier = true;
        for op in block_ops(block) {
            if op_name(op) == "scf.yield" {
                // Shared-memory writes in the block are complete before it ends.
                self.flush_barrier();
                let yielded = self.flat_regs(op, &operands(op))?;
                self.b.create("scf.yield", &yielded, &[], &[], Vec::new());
            } else {
                self.lower_op(op)?;
            }
        }
        Ok(())
    }

    /// `scf.while`: the before region ends in `scf.condition`, the after region in `scf.yield`.
    pub fn lower_while(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let blocks = blocks_of(op);
        let (Some(&before), Some(&after)) = (blocks.first(), blocks.get(1)) else {
            return err(op, "scf.while needs a before and an after region");
        };
        let inits = self.flat_regs(op, ins)?;
        let init_types = self.flat_types(op, ins)?;
        let result_types = self.flat_types(op, outs)?;

        let (before_region, before_block) = self.b.region_with_block(&init_types);
        self.bind_flat(op, &block_args(before), &block_args(before_block))?;
        let saved = self.b.save();
        self.b.set_end(before_block);
        self.shared_read_since_barrier = true;
        for inner in block_ops(before) {
            if op_name(inner) == "scf.condition" {
                self.flush_barrier();
                let operands_in = operands(inner);
                let Some(&condition) = operands_in.first() else {
                    return err(inner, "scf.condition without a condition");
                };
                let mut passed = vec![self.scalar(inner, condition)?];
                passed.extend(self.flat_regs(inner, &operands_in[1..])?);
                self.b
                    .create("scf.condition", &passed, &[], &[], Vec::new());
            } else {
                self.lower_op(inner)?;
            }
        }

        let (after_region, after_block) = self.b.region_with_block(&result_types);
        self.bind_flat(op, &block_args(after), &block_args(after_block))?;
        self.b.set_end(after_block);
        self.lower_yielding_block(after)?;
        self.b.restore(saved);

        let lowered = self.b.create(
            "scf.while",
            &inits,
            &result_types,
            &[],
            vec![before_region, after_region],
        );
        self.bind_flat(op, outs, &Builder::results_of(lowered))
    }
}

/// Whether `value` is a shared-memory descriptor.
fn is_memdesc(value: MlirValue) -> bool {
    // SAFETY: a type query on a live value's type.
    unsafe { tritium_dialects::ffi::ttg::tritiumTypeIsMemDesc(value_type(value)) }
}

/// The operands of `block`'s terminator.
fn operands_of_terminator(block: MlirBlock) -> Vec<MlirValue> {
    // SAFETY: `block` is a live block of the TTGIR being lowered; its terminator is live.
    let terminator = unsafe { mlirBlockGetTerminator(block) };
    if terminator.ptr.is_null() {
        Vec::new()
    } else {
        operands(terminator)
    }
}
