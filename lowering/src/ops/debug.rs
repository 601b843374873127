//! `tt.print` (CUDA's `vprintf` with a global format string and an argument buffer, as `printf`
//! compiles) and `tt.assert` (`__assertfail` where any element is false). Both are resolved by
//! the CUDA driver's JIT linker.

use crate::to_llvm::*;
use mlir_sys::*;
use tritium_dialects::ffi;
use tritium_passes::ir_util::*;

/// A string as an MLIR string literal body (NUL-terminated).
fn mlir_string(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes().chain(std::iter::once(0)) {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\22"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out
}

impl FuncLowering<'_> {
    /// A generic pointer to a NUL-terminated global string.
    fn global_string(&mut self, prefix: &str, text: &str) -> String {
        let symbol = format!("{prefix}_{}", self.globals.len());
        let len = text.len() + 1;
        self.globals.insert(
            symbol.clone(),
            format!(
                "  llvm.mlir.global internal constant @{symbol}(\"{}\") {{addr_space = 1 : i32}} : !llvm.array<{len} x i8>\n",
                mlir_string(text)
            ),
        );
        let p = self
            .e
            .op(&format!("llvm.mlir.addressof @{symbol} : !llvm.ptr<1>"));
        self.e.op(&format!(
            "llvm.addrspacecast {p} : !llvm.ptr<1> to !llvm.ptr"
        ))
    }

    pub(crate) fn lower_print(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        self.globals.insert(
            "vprintf".into(),
            "  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32\n".into(),
        );
        let prefix = string_attr(op, "prefix").unwrap_or_default();
        let hex = unsafe {
            let attr = mlirOperationGetAttributeByName(op, sref("hex"));
            !attr.ptr.is_null() && mlirBoolAttrGetValue(attr)
        };
        let signed = i32_array(op, "isSigned");
        let pids: Vec<String> = ["x", "y", "z"]
            .iter()
            .map(|a| self.e.op(&format!("nvvm.read.ptx.sreg.ctaid.{a} : i32")))
            .collect();
        if ins.is_empty() {
            let fmt = self.global_string("printfFormat", &format!("pid (%u, %u, %u) {prefix}\n"));
            self.vprintf(&fmt, &pids, &["i32", "i32", "i32"]);
            return Ok(());
        }
        for (i, arg) in ins.iter().enumerate() {
            let ty = value_type(*arg);
            let elem = element_type(ty);
            let is_signed = signed.get(i).copied().unwrap_or(1) != 0;
            let (spec, promoted) = self.print_spec(elem, hex, is_signed);
            let operand_note = if ins.len() > 1 {
                format!("(operand {i}) ")
            } else {
                String::new()
            };
            let values = self.get(*arg);
            if !is_tensor(ty) {
                let fmt = self.global_string(
                    "printfFormat",
                    &format!("pid (%u, %u, %u) {prefix}{operand_note}{spec}\n"),
                );
                let v = self.promote(&values[0], elem, &promoted, is_signed);
                let mut args = pids.clone();
                args.push(v);
                self.vprintf(&fmt, &args, &["i32", "i32", "i32", &promoted]);
                continue;
            }
            let map = self.thread_map(op, ty)?;
            let rank = map.shape.len();
            let idx = vec!["%d"; rank].join(", ");
            let fmt = self.global_string(
                "printfFormat",
                &format!("pid (%u, %u, %u) idx ({idx}) {prefix}{operand_note}{spec}\n"),
            );
            let thread = self.thread_base(op, ty)?;
            for (r, coord) in map.registers.clone().iter().enumerate() {
                if map.register_duplicate[r] {
                    continue;
                }
                let c = self.runtime_coord(&thread, coord);
                let v = self.promote(&values[r], elem, &promoted, is_signed);
                let mut args = pids.clone();
                args.extend(c);
                args.push(v);
                let mut types = vec!["i32"; 3 + rank];
                types.push(&promoted);
                self.vprintf(&fmt, &args, &types);
            }
        }
        Ok(())
    }

    /// printf conversion and the promoted (vararg) type of an element type.
    fn print_spec(&self, elem: MlirType, hex: bool, signed: bool) -> (String, String) {
        let bits = type_bits(elem);
        if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            return ("%p".into(), "!llvm.ptr".into());
        }
        if is_float(elem) {
            return if hex {
                ("0x%016llx".into(), "i64".into())
            } else {
                ("%f".into(), "f64".into())
            };
        }
        let wide = bits > 32;
        let spec = match (hex, signed, wide) {
            (true, _, false) => "0x%08x",
            (true, _, true) => "0x%016llx",
            (false, true, false) => "%d",
            (false, true, true) => "%lld",
            (false, false, false) => "%u",
            (false, false, true) => "%llu",
        };
        (spec.into(), if wide { "i64" } else { "i32" }.into())
    }

    fn promote(&mut self, value: &str, elem: MlirType, promoted: &str, signed: bool) -> String {
        let lty = llvm_type(elem);
        let bits = type_bits(elem);
        if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            return if lty == "!llvm.ptr" {
                value.to_owned()
            } else {
                self.e
                    .op(&format!("llvm.addrspacecast {value} : {lty} to !llvm.ptr"))
            };
        }
        if is_float(elem) {
            return match promoted {
                "i64" => {
                    let b = self
                        .e
                        .op(&format!("llvm.bitcast {value} : {lty} to i{bits}"));
                    if bits == 64 {
                        b
                    } else {
                        self.e.op(&format!("llvm.zext {b} : i{bits} to i64"))
                    }
                }
                _ if bits == 64 => value.to_owned(),
                _ => self.e.op(&format!("llvm.fpext {value} : {lty} to f64")),
            };
        }
        let target: u32 = promoted[1..].parse().unwrap_or(32);
        if bits == target {
            value.to_owned()
        } else if signed && bits > 1 {
            self.e
                .op(&format!("llvm.sext {value} : {lty} to {promoted}"))
        } else {
            self.e
                .op(&format!("llvm.zext {value} : {lty} to {promoted}"))
        }
    }

    fn vprintf(&mut self, format: &str, args: &[String], types: &[&str]) {
        let struct_ty = format!("!llvm.struct<({})>", types.join(", "));
        let one = self.e.prologue_const(1, "i32");
        let buffer = self.e.prologue_op(&format!(
            "llvm.alloca {one} x {struct_ty} : (i32) -> !llvm.ptr"
        ));
        for (i, (a, t)) in args.iter().zip(types).enumerate() {
            let field = self.e.op(&format!(
                "llvm.getelementptr {buffer}[0, {i}] : (!llvm.ptr) -> !llvm.ptr, {struct_ty}"
            ));
            self.e
                .line(&format!("llvm.store {a}, {field} : {t}, !llvm.ptr"));
        }
        self.e.op(&format!(
            "llvm.call @vprintf({format}, {buffer}) : (!llvm.ptr, !llvm.ptr) -> i32"
        ));
    }

    pub(crate) fn lower_assert(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        self.globals.insert(
            "__assertfail".into(),
            "  llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)\n".into(),
        );
        let message = string_attr(op, "message").unwrap_or_default();
        let conds = self.get(ins[0]);
        let mut all = self.e.constant(1, "i1");
        for c in &conds {
            all = self.e.op(&format!("llvm.and {all}, {c} : i1"));
        }
        let t = self.e.constant(1, "i1");
        let failed = self.e.op(&format!("llvm.xor {all}, {t} : i1"));
        self.e.open(&format!("scf.if {failed} {{"));
        let msg = self.global_string("assertMessage", &message);
        let file = self.global_string("assertFile", "<unknown>");
        let func = self.global_string("assertFunc", "<kernel>");
        let line = self.e.constant(0, "i32");
        let size = self.e.constant(1, "i64");
        self.e.line(&format!(
            "llvm.call @__assertfail({msg}, {file}, {line}, {func}, {size}) : (!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) -> ()"
        ));
        self.e.close();
        Ok(())
    }
}
