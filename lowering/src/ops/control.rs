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
        let result_names: Vec<String> = (0..types.len()).map(|_| self.e.fresh_raw()).collect();
        let iter_args: Vec<String> = arg_names
            .iter()
            .zip(&inits)
            .map(|(a, i)| format!("{a} = {i}"))
            .collect();
        let results_text = if types.is_empty() {
            String::new()
        } else {
            format!("{}:{} = ", "%r".to_owned() + &result_names[0], types.len())
        };
        let header = format!(
            "{results_text}scf.for {iv} = {lb} to {ub} step {step} iter_args({}) -> ({}) : {iv_type} {{",
            iter_args.join(", "),
            types.join(", ")
        );
        self.e.open(&header);
        let mut op_in = unsafe { mlirBlockGetFirstOperation(body) };
        while !op_in.ptr.is_null() {
            if op_name(op_in) == "scf.yield" {
                let yielded: Vec<String> =
                    operands(op_in).iter().flat_map(|v| self.get(*v)).collect();
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
                self.lower_op(op_in)?;
            }
            op_in = unsafe { mlirOperationGetNextInBlock(op_in) };
        }
        self.e.close();
        let mut index = 0;
        for out in outs {
            let ty = value_type(*out);
            let count = if is_tensor(ty) {
                self.thread_map(op, ty)?.num_registers()
            } else {
                1
            };
            let names: Vec<String> = (index..index + count)
                .map(|i| format!("%r{}#{i}", result_names[0]))
                .collect();
            index += count;
            self.values.insert(key(*out), names);
        }
        Ok(())
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
            let mut op_in = unsafe { mlirBlockGetFirstOperation(*block) };
            while !op_in.ptr.is_null() {
                if op_name(op_in) == "scf.yield" {
                    let yielded: Vec<String> =
                        operands(op_in).iter().flat_map(|v| self.get(*v)).collect();
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
                    self.lower_op(op_in)?;
                }
                op_in = unsafe { mlirOperationGetNextInBlock(op_in) };
            }
        }
        self.e.close();
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
}
