//! `-triton-rewrite-tensor-pointer`: replaces block pointers (`!tt.ptr<tensor<...>>`, made by
//! `tt.make_tensor_ptr` and moved by `tt.advance`) by tensors of pointers and masks.
//!
//! A block pointer is tracked as its base pointer, shape and strides (`i64`, loop-invariant) and
//! per-dimension offsets (`i64`). `tt.advance` adds to the offsets. At a `tt.load` or `tt.store`
//! through a block pointer the pass builds, per dimension `d`, `off_d = splat(offset_d) +
//! make_range(0, n_d)` expanded to rank r, the pointers `splat(base) + Σ broadcast(off_d *
//! stride_d)`, and for each dimension of `boundaryCheck` the mask `0 <= off_d < shape_d`; a masked
//! load gets `other` = NaN for `padding = nan`, zeros otherwise. Loops (`scf.for`) and branches
//! (`scf.if`) carrying block pointers carry their offsets instead. Block pointers crossing a
//! function boundary or an `scf.while` are reported as errors.

use super::util::*;
use crate::ir_util::*;
use mlir_sys::*;
use std::collections::HashMap;
use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::melior::ir::{OperationRef, Type, TypeLike, operation::OperationLike};
use tritium_dialects::pass::{Options, PassDef, PassFailed, PassResult, dialects, fail};

pub static PASS: PassDef = PassDef {
    argument: "triton-rewrite-tensor-pointer",
    summary: "Rewrite block pointers (make_tensor_ptr/advance) into tensors of pointers and masks",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::tt(), dialects::arith(), dialects::scf()],
    run,
};

/// What a block pointer stands for.
#[derive(Clone)]
struct BlockPtr {
    /// The scalar `!tt.ptr<T>` the block is relative to.
    base: MlirValue,
    shape: Vec<MlirValue>,
    strides: Vec<MlirValue>,
    /// `i64` offset of the block's first element, per dimension.
    offsets: Vec<MlirValue>,
    /// `tensor<n0 x n1 x ... x T>`.
    block: MlirType,
}

impl BlockPtr {
    /// Whether `other` has the same base, shape and strides (so only offsets differ).
    fn same_frame(&self, other: &BlockPtr) -> bool {
        let same_values = |a: &[MlirValue], b: &[MlirValue]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(*x, *y))
        };
        same(self.base, other.base)
            && same_values(&self.shape, &other.shape)
            && same_values(&self.strides, &other.strides)
    }
}

/// The block type of a `!tt.ptr<tensor<...>>`.
fn block_type(ty: MlirType) -> Option<MlirType> {
    // SAFETY: `ty` is a live type of the function being rewritten.
    let (pointee, _) = tritium_dialects::ir::as_pointer(unsafe { Type::from_raw(ty) })?;
    let pointee = pointee.to_raw();
    is_tensor(pointee).then_some(pointee)
}

fn is_block_ptr(value: MlirValue) -> bool {
    block_type(value_type(value)).is_some()
}

struct Rewrite {
    ctx: MlirContext,
    infos: HashMap<usize, BlockPtr>,
    /// Ops whose results are block pointers, erased once unused.
    dead: Vec<MlirOperation>,
}

type Step = Result<(), PassFailed>;

fn error(op: MlirOperation, message: &str) -> PassFailed {
    // SAFETY: `op` is a live operation of the function being rewritten.
    fail(unsafe { OperationRef::from_raw(op) }.location(), message)
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module_op = module.to_raw();
    let mut rewrite = Rewrite {
        ctx: context_of(module_op),
        infos: HashMap::new(),
        dead: Vec::new(),
    };
    let functions: Vec<MlirOperation> = blocks_of(module_op)
        .into_iter()
        .flat_map(block_ops)
        .collect();
    for op in functions {
        if op_name(op) != "tt.func" {
            continue;
        }
        if blocks_of(op)
            .iter()
            .flat_map(|block| block_args(*block))
            .any(is_block_ptr)
        {
            return Err(error(
                op,
                "block pointer function arguments are not supported",
            ));
        }
        for block in blocks_of(op) {
            rewrite.block(block)?;
        }
    }
    rewrite.erase_dead();
    let mut leftover = None;
    walk(module_op, &mut |op| {
        if leftover.is_none()
            && operands(op)
                .into_iter()
                .chain(results(op))
                .any(is_block_ptr)
        {
            leftover = Some(op);
        }
    });
    match leftover {
        Some(op) => Err(error(op, "block pointer left after rewriting")),
        None => Ok(()),
    }
}

impl Rewrite {
    fn i64(&self) -> MlirType {
        // SAFETY: `self.ctx` is the live context of the module being rewritten.
        unsafe { mlirIntegerTypeGet(self.ctx, 64) }
    }

    fn i32(&self) -> MlirType {
        // SAFETY: `self.ctx` is the live context of the module being rewritten.
        unsafe { mlirIntegerTypeGet(self.ctx, 32) }
    }

    fn info(&self, op: MlirOperation, value: MlirValue) -> Result<BlockPtr, PassFailed> {
        self.infos
            .get(&key(value))
            .cloned()
            .ok_or_else(|| error(op, "block pointer of unknown origin"))
    }

    fn block(&mut self, block: MlirBlock) -> Step {
        for op in block_ops(block) {
            self.op(op)?;
        }
        Ok(())
    }

    fn op(&mut self, op: MlirOperation) -> Step {
        let name = op_name(op);
        match name.as_str() {
            "tt.make_tensor_ptr" => self.make_tensor_ptr(op),
            "tt.advance" => self.advance(op),
            "tt.load" if is_block_ptr(operand(op, 0)) => self.load(op),
            "tt.store" if is_block_ptr(operand(op, 0)) => self.store(op),
            "scf.for" => self.for_loop(op),
            "scf.if" => self.if_op(op),
            // Yields are rewritten by the op they belong to.
            "scf.yield" => Ok(()),
            _ => {
                for block in blocks_of(op) {
                    self.block(block)?;
                }
                if operands(op)
                    .into_iter()
                    .chain(results(op))
                    .any(is_block_ptr)
                {
                    return Err(error(
                        op,
                        &format!("'{name}' on a block pointer is not supported"),
                    ));
                }
                Ok(())
            }
        }
    }

    /// `extsi` to i64 of an i32 offset (i64 offsets pass through).
    fn to_i64(&self, at: At, loc: MlirLocation, value: MlirValue) -> MlirValue {
        if same_type(value_type(value), self.i64()) {
            value
        } else {
            at.value("arith.extsi", loc, &[value], self.i64(), &[])
        }
    }

    fn make_tensor_ptr(&mut self, op: MlirOperation) -> Step {
        let ins = operands(op);
        // ODS and the verifier: the base, then `rank` shape, stride and offset values, `rank`
        // being the block's rank (so the slices below are in bounds and `offsets`, `shape` and
        // `strides` have one entry per block dim, which `pointers` and `mask` index).
        let rank = ins.len().saturating_sub(1) / 3;
        let at = At::Before(op);
        let loc = location(op);
        let Some(block) = block_type(value_type(result(op, 0))) else {
            return Err(error(op, "make_tensor_ptr must produce a block pointer"));
        };
        let offsets = ins[1 + 2 * rank..]
            .iter()
            .map(|offset| self.to_i64(at, loc, *offset))
            .collect();
        let info = BlockPtr {
            base: ins[0],
            shape: ins[1..1 + rank].to_vec(),
            strides: ins[1 + rank..1 + 2 * rank].to_vec(),
            offsets,
            block,
        };
        self.infos.insert(key(result(op, 0)), info);
        self.dead.push(op);
        Ok(())
    }

    fn advance(&mut self, op: MlirOperation) -> Step {
        let mut info = self.info(op, operand(op, 0))?;
        let at = At::Before(op);
        let loc = location(op);
        for (offset, delta) in info
            .offsets
            .iter_mut()
            .zip(operands(op).into_iter().skip(1))
        {
            let delta = self.to_i64(at, loc, delta);
            *offset = at.binary("arith.addi", loc, *offset, delta);
        }
        self.infos.insert(key(result(op, 0)), info);
        self.dead.push(op);
        Ok(())
    }

    /// The tensor of pointers of `info`'s block, and each dimension's offsets (`off_d`, expanded
    /// to the block's rank).
    fn pointers(&self, at: At, loc: MlirLocation, info: &BlockPtr) -> (MlirValue, Vec<MlirValue>) {
        let dims = shape(info.block);
        let rank = dims.len();
        let i64 = self.i64();
        let pointer = value_type(info.base);
        let pointers_type = with_element(info.block, pointer);
        let base = at.splat(loc, info.base, pointers_type);
        let mut expanded = Vec::new();
        let mut sum: Option<MlirValue> = None;
        for (d, &n) in dims.iter().enumerate() {
            let line = tensor_of(&[n], i64);
            let start = at.splat(loc, info.offsets[d], line);
            let range = at.insert(tritium_dialects::build::make_range(
                loc,
                0,
                n as i32,
                tensor_of(&[n], self.i32()),
            ));
            let range = at.value("arith.extsi", loc, &[result(range, 0)], line, &[]);
            let mut offset = at.binary("arith.addi", loc, start, range);
            let mut current = vec![n];
            for axis in (0..rank).filter(|axis| *axis != d) {
                current.insert(axis, 1);
                let axis_attr = self.ctx.i32_attr(axis as i64);
                offset = at.value(
                    "tt.expand_dims",
                    loc,
                    &[offset],
                    tensor_of(&current, i64),
                    &[("axis", axis_attr)],
                );
            }
            expanded.push(offset);
            let stride = at.splat(loc, info.strides[d], tensor_of(&current, i64));
            let mut scaled = at.binary("arith.muli", loc, offset, stride);
            if current != dims {
                scaled = at.value("tt.broadcast", loc, &[scaled], tensor_of(&dims, i64), &[]);
            }
            sum = Some(match sum {
                Some(total) => at.binary("arith.addi", loc, total, scaled),
                None => scaled,
            });
        }
        // A rank-0 block has no offsets: its pointer is the base.
        let pointers = match sum {
            Some(sum) => at.value("tt.addptr", loc, &[base, sum], pointers_type, &[]),
            None => base,
        };
        (pointers, expanded)
    }

    /// `0 <= off_d < shape_d` for every `d` in `boundaryCheck`, and-ed together.
    fn mask(
        &self,
        at: At,
        loc: MlirLocation,
        op: MlirOperation,
        info: &BlockPtr,
        expanded: &[MlirValue],
    ) -> Option<MlirValue> {
        let dims = shape(info.block);
        // SAFETY: `self.ctx` is the live context of the module being rewritten.
        let i1 = unsafe { mlirIntegerTypeGet(self.ctx, 1) };
        let mut mask: Option<MlirValue> = None;
        // The verifier keeps boundaryCheck dims below the block's rank.
        for d in i32_array(op, "boundaryCheck").unwrap_or_default() {
            let offset = expanded[d as usize];
            let ty = value_type(offset);
            let zero = at.int_constant(loc, ty, 0);
            let lower = at.cmpi(loc, CmpI::Sge, offset, zero);
            let bound = at.splat(loc, info.shape[d as usize], ty);
            let upper = at.cmpi(loc, CmpI::Slt, offset, bound);
            let mut inside = at.binary("arith.andi", loc, lower, upper);
            if shape(ty) != dims {
                inside = at.value("tt.broadcast", loc, &[inside], tensor_of(&dims, i1), &[]);
            }
            mask = Some(match mask {
                Some(all) => at.binary("arith.andi", loc, all, inside),
                None => inside,
            });
        }
        mask
    }

    fn load(&mut self, op: MlirOperation) -> Step {
        let info = self.info(op, operand(op, 0))?;
        let at = At::Before(op);
        let loc = location(op);
        let (pointers, expanded) = self.pointers(at, loc, &info);
        let mask = self.mask(at, loc, op, &info, &expanded);
        let mut ins = vec![pointers];
        let mut other = None;
        if let Some(mask) = mask {
            ins.push(mask);
            let ty = value_type(result(op, 0));
            let element = element_type(ty);
            let nan = int_attr(op, "padding") == Some(2);
            // SAFETY: `element` is a live type.
            let value = if unsafe { mlirTypeIsAFloat(element) } {
                float_attr_of(ty, if nan { f64::NAN } else { 0.0 })
            } else {
                int_attr_of(ty, 0)
            };
            other = Some(at.constant(loc, value));
            ins.extend(other);
        }
        let segments = self
            .ctx
            .i32_array(&[1, (ins.len() > 1) as i32, other.is_some() as i32]);
        let mut attrs = vec![("operandSegmentSizes", segments)];
        for name in ["cache", "evict", "isVolatile"] {
            if let Some(value) = attr(op, name) {
                attrs.push((name, value));
            }
        }
        let new = at.value("tt.load", loc, &ins, value_type(result(op, 0)), &attrs);
        replace_uses(result(op, 0), new);
        erase(op);
        Ok(())
    }

    fn store(&mut self, op: MlirOperation) -> Step {
        let info = self.info(op, operand(op, 0))?;
        let at = At::Before(op);
        let loc = location(op);
        let (pointers, expanded) = self.pointers(at, loc, &info);
        let mut ins = vec![pointers, operand(op, 1)];
        ins.extend(self.mask(at, loc, op, &info, &expanded));
        let mut attrs = Vec::new();
        for name in ["cache", "evict"] {
            if let Some(value) = attr(op, name) {
                attrs.push((name, value));
            }
        }
        at.op("tt.store", loc, &ins, &[], &attrs);
        erase(op);
        Ok(())
    }

    /// The values standing for `values` once block pointers are replaced by their offsets, and
    /// for each block pointer its info.
    fn flatten(
        &self,
        op: MlirOperation,
        values: &[MlirValue],
    ) -> Result<(Vec<MlirValue>, Vec<Option<BlockPtr>>), PassFailed> {
        let mut flat = Vec::new();
        let mut infos = Vec::new();
        for value in values {
            if is_block_ptr(*value) {
                let info = self.info(op, *value)?;
                flat.extend(&info.offsets);
                infos.push(Some(info));
            } else {
                flat.push(*value);
                infos.push(None);
            }
        }
        Ok((flat, infos))
    }

    /// Maps `old` results of a rebuilt op onto `new`'s: plain values are replaced, block pointers
    /// get their frame from `frames` and offsets from the new results.
    fn remap_results(
        &mut self,
        old: MlirOperation,
        new: MlirOperation,
        frames: &[Option<BlockPtr>],
    ) {
        let new_results = results(new);
        let mut next = 0;
        for (value, frame) in results(old).into_iter().zip(frames) {
            match frame {
                None => {
                    replace_uses(value, new_results[next]);
                    next += 1;
                }
                Some(frame) => {
                    let count = frame.offsets.len();
                    let info = BlockPtr {
                        offsets: new_results[next..next + count].to_vec(),
                        ..frame.clone()
                    };
                    self.infos.insert(key(value), info);
                    next += count;
                }
            }
        }
        self.dead.push(old);
    }

    fn for_loop(&mut self, op: MlirOperation) -> Step {
        let parts = for_parts(op);
        let body = body(op, 0);
        if !parts.inits.iter().any(|init| is_block_ptr(*init)) {
            return self.block(body);
        }
        let (inits, frames) = self.flatten(op, &parts.inits)?;
        // Block arguments: each block pointer is followed by its offsets, then erased.
        let args = block_args(body);
        let loc = location(op);
        let mut position = 1;
        let mut replaced = Vec::new();
        for (arg, frame) in args[1..].iter().zip(&frames) {
            position += 1;
            let Some(frame) = frame else { continue };
            let offsets: Vec<MlirValue> = (0..frame.offsets.len())
                // SAFETY: `body` is the live loop body and `position + k` at most its argument
                // count (arguments are inserted one after another, right after the block pointer
                // they replace).
                .map(|k| unsafe {
                    mlirBlockInsertArgument(body, (position + k) as isize, self.i64(), loc)
                })
                .collect();
            position += offsets.len();
            self.infos.insert(
                key(*arg),
                BlockPtr {
                    offsets,
                    ..frame.clone()
                },
            );
            replaced.push(*arg);
        }
        self.block(body)?;
        let yield_op = terminator(body);
        let yielded = operands(yield_op);
        for (value, frame) in yielded.iter().zip(&frames) {
            if let Some(frame) = frame
                && !self.info(yield_op, *value)?.same_frame(frame)
            {
                return Err(error(
                    yield_op,
                    "a loop may only carry advances of its initial block pointer",
                ));
            }
        }
        let (flat, _) = self.flatten(yield_op, &yielded)?;
        set_operands(yield_op, &flat);
        self.erase_dead();
        for arg in replaced.into_iter().rev() {
            if has_uses(arg) {
                return Err(error(
                    op,
                    "unsupported use of a block pointer carried by a loop",
                ));
            }
            self.infos.remove(&key(arg));
            // SAFETY: `arg` is a live argument of `body` with no uses left (checked above); it is
            // erased once.
            unsafe { mlirBlockEraseArgument(body, mlirBlockArgumentGetArgNumber(arg) as u32) };
        }
        let new = rebuild_for(op, &inits);
        self.remap_results(op, new, &frames);
        Ok(())
    }

    fn if_op(&mut self, op: MlirOperation) -> Step {
        for block in blocks_of(op) {
            self.block(block)?;
        }
        let outs = results(op);
        if !outs.iter().any(|value| is_block_ptr(*value)) {
            return Ok(());
        }
        let yields: Vec<MlirOperation> = blocks_of(op).into_iter().map(terminator).collect();
        let mut frames = Vec::new();
        let mut types = Vec::new();
        for (index, value) in outs.iter().enumerate() {
            if !is_block_ptr(*value) {
                frames.push(None);
                types.push(value_type(*value));
                continue;
            }
            let branches: Vec<BlockPtr> = yields
                .iter()
                .map(|y| self.info(*y, operand(*y, index)))
                .collect::<Result<_, _>>()?;
            if branches
                .iter()
                .any(|branch| !branch.same_frame(&branches[0]))
            {
                return Err(error(
                    op,
                    "both branches must yield advances of one block pointer",
                ));
            }
            types.extend(std::iter::repeat_n(self.i64(), branches[0].offsets.len()));
            frames.push(Some(branches[0].clone()));
        }
        for yield_op in &yields {
            let (flat, _) = self.flatten(*yield_op, &operands(*yield_op))?;
            set_operands(*yield_op, &flat);
        }
        let new = rebuild(op, &operands(op), &types);
        self.remap_results(op, new, &frames);
        Ok(())
    }

    /// Erases the ops of `dead` that have no uses left (users first).
    fn erase_dead(&mut self) {
        loop {
            let before = self.dead.len();
            let mut kept = Vec::new();
            for op in std::mem::take(&mut self.dead).into_iter().rev() {
                if results(op).into_iter().any(has_uses) {
                    kept.push(op);
                } else {
                    for value in results(op) {
                        self.infos.remove(&key(value));
                    }
                    erase(op);
                }
            }
            kept.reverse();
            self.dead = kept;
            if self.dead.len() == before {
                break;
            }
        }
    }
}
