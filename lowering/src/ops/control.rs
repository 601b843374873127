//! Structured control flow carrying distributed tensors (`scf.for`, `scf.if`, `scf.while`).

use crate::to_llvm::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

impl FuncLowering<'_> {
    pub(crate) fn lower_for(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let (lb, ub, step) = (
            self.scalar(ins[0]),
            self.scalar(ins[1]),
            self.scalar(ins[2]),
        );
        let iv_type = llvm_type(value_type(ins[0]));
        let inits: Vec<String> = ins[3..].iter().flat_map(|v| self.get(*v)).collect();
        let types = self.flat_types(op, &ins[3..])?;
        let body = blocks_of(op)[0];
        let args = block_args(body);
        let iv = self.e.fresh();
        self.values.insert(key(args[0]), vec![iv.clone()]);
        let mut arg_names = Vec::new();
        for arg in &args[1..] {
            let ty = value_type(*arg);
            let count = if is_tensor(ty) {
                self.thread_map(op, ty)?.num_registers()
            } else {
                1
            };
            let names: Vec<String> = (0..count).map(|_| self.e.fresh()).collect();
            arg_names.extend(names.clone());
            self.values.insert(key(*arg), names);
        }
        let result = self.e.fresh_raw();
        let iter_args: Vec<String> = arg_names
            .iter()
            .zip(&inits)
            .map(|(a, i)| format!("{a} = {i}"))
            .collect();
        let results_text = if types.is_empty() {
            String::new()
        } else {
            format!("%r{result}:{} = ", types.len())
        };
        let header = format!(
            "{results_text}scf.for {iv} = {lb} to {ub} step {step} iter_args({}) -> ({}) : {iv_type} {{",
            iter_args.join(", "),
            types.join(", ")
        );
        self.e.open(&header);
        self.lower_yielding_block(body, &types)?;
        self.e.close();
        self.bind_results(op, outs, &result)
    }

    pub(crate) fn lower_if(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let cond = self.scalar(ins[0]);
        let types = self.flat_types(op, outs)?;
        let result = self.e.fresh_raw();
        let results_text = if types.is_empty() {
            String::new()
        } else {
            format!("%r{result}:{} = ", types.len())
        };
        let types_text = if types.is_empty() {
            String::new()
        } else {
            format!(" -> ({})", types.join(", "))
        };
        self.e
            .open(&format!("{results_text}scf.if {cond}{types_text} {{"));
        let blocks = blocks_of(op);
        for (i, block) in blocks.iter().enumerate() {
            if i == 1 {
                self.e.reopen("} else {");
            }
            self.lower_yielding_block(*block, &types)?;
        }
        self.e.close();
        self.bind_results(op, outs, &result)
    }
}

impl FuncLowering<'_> {
    /// Lowers the ops of a region block whose terminator is `scf.yield` of values of `types`
    /// (flattened to registers).
    fn lower_yielding_block(&mut self, block: MlirBlock, types: &[String]) -> LResult<()> {
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        while !op.ptr.is_null() {
            if op_name(op) == "scf.yield" {
                let yielded: Vec<String> = operands(op).iter().flat_map(|v| self.get(*v)).collect();
                if yielded.is_empty() {
                    self.e.line("scf.yield");
                } else {
                    self.e.line(&format!(
                        "scf.yield {} : {}",
                        yielded.join(", "),
                        types.join(", ")
                    ));
                }
            } else {
                self.lower_op(op)?;
            }
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Ok(())
    }

    /// Binds each of `outs` to its registers among the results `%r<result>#i` of a lowered
    /// multi-result op.
    fn bind_results(&mut self, op: MlirOperation, outs: &[MlirValue], result: &str) -> LResult<()> {
        let mut index = 0;
        for out in outs {
            let ty = value_type(*out);
            let count = if is_tensor(ty) {
                self.thread_map(op, ty)?.num_registers()
            } else {
                1
            };
            let names: Vec<String> = (index..index + count)
                .map(|i| format!("%r{result}#{i}"))
                .collect();
            index += count;
            self.values.insert(key(*out), names);
        }
        Ok(())
    }

    /// Registers of a value list's types, flattened (tensors expand to their registers).
    fn names_for(&mut self, op: MlirOperation, values: &[MlirValue]) -> LResult<Vec<Vec<String>>> {
        let mut out = Vec::new();
        for v in values {
            let ty = value_type(*v);
            let count = if is_tensor(ty) {
                self.thread_map(op, ty)?.num_registers()
            } else {
                1
            };
            out.push((0..count).map(|_| self.e.fresh()).collect());
        }
        Ok(out)
    }

    /// `scf.while`: the before region ends in `scf.condition`, the after region in `scf.yield`;
    /// tensors travel as their registers.
    pub(crate) fn lower_while(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let blocks = blocks_of(op);
        let (before, after) = (blocks[0], blocks[1]);
        let before_args = block_args(before);
        let after_args = block_args(after);
        let inits: Vec<String> = ins.iter().flat_map(|v| self.get(*v)).collect();
        let init_types = self.flat_types(op, ins)?;
        let result_types = self.flat_types(op, outs)?;
        let before_names = self.names_for(op, &before_args)?;
        for (arg, names) in before_args.iter().zip(&before_names) {
            self.values.insert(key(*arg), names.clone());
        }
        let after_names = self.names_for(op, &after_args)?;
        for (arg, names) in after_args.iter().zip(&after_names) {
            self.values.insert(key(*arg), names.clone());
        }
        let result = self.e.fresh_raw();
        let results_text = if result_types.is_empty() {
            String::new()
        } else {
            format!("%r{result}:{} = ", result_types.len())
        };
        let bindings: Vec<String> = before_names
            .iter()
            .flatten()
            .zip(&inits)
            .map(|(a, i)| format!("{a} = {i}"))
            .collect();
        self.e.open(&format!(
            "{results_text}scf.while ({}) : ({}) -> ({}) {{",
            bindings.join(", "),
            init_types.join(", "),
            result_types.join(", ")
        ));
        let mut inner = unsafe { mlirBlockGetFirstOperation(before) };
        while !inner.ptr.is_null() {
            if op_name(inner) == "scf.condition" {
                let operands_in = operands(inner);
                let cond = self.scalar(operands_in[0]);
                let passed: Vec<String> =
                    operands_in[1..].iter().flat_map(|v| self.get(*v)).collect();
                if passed.is_empty() {
                    self.e.line(&format!("scf.condition({cond})"));
                } else {
                    self.e.line(&format!(
                        "scf.condition({cond}) {} : {}",
                        passed.join(", "),
                        result_types.join(", ")
                    ));
                }
            } else {
                self.lower_op(inner)?;
            }
            inner = unsafe { mlirOperationGetNextInBlock(inner) };
        }
        let after_params: Vec<String> = after_names
            .iter()
            .flatten()
            .zip(&result_types)
            .map(|(a, t)| format!("{a}: {t}"))
            .collect();
        self.e.reopen("} do {");
        self.e.line(&format!("^bb0({}):", after_params.join(", ")));
        self.lower_yielding_block(after, &init_types)?;
        self.e.close();
        self.bind_results(op, outs, &result)
    }
}
