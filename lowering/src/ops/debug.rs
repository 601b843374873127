//! `tt.print` (CUDA's `vprintf` with a global format string and an argument buffer, as `printf`
//! compiles) and `tt.assert` (`__assertfail` where any element is false). Both are resolved by
//! the CUDA driver's JIT linker. Also the two ops Triton's TTIR borrows from other dialects for
//! `tl.debug_barrier` (`gpu.barrier`: `bar.sync 0`) and `tl.assume` (`llvm.intr.assume` on a
//! scalar condition, rebuilt on its register).

use crate::builder::{Builder, CastOp, Value};
use crate::state::*;
use mlir_sys::*;
use tritium_passes::ir_util::*;

/// The vararg type a printed element is promoted to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Promoted {
    /// `!llvm.ptr` (address space 0).
    Ptr,
    I32,
    I64,
    F64,
}

impl Promoted {
    fn llvm_type(self, b: &Builder) -> MlirType {
        match self {
            Promoted::Ptr => b.ptr_type(0),
            Promoted::I32 => b.i32(),
            Promoted::I64 => b.i64(),
            Promoted::F64 => b.f64(),
        }
    }
}

/// printf conversion and the promoted (vararg) type of an element type.
fn print_spec(elem: MlirType, hex: bool, signed: bool) -> (&'static str, Promoted) {
    let bits = type_bits(elem);
    if is_pointer(elem) {
        return ("%p", Promoted::Ptr);
    }
    if is_float(elem) {
        return if hex {
            ("0x%016llx", Promoted::I64)
        } else {
            ("%f", Promoted::F64)
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
    (spec, if wide { Promoted::I64 } else { Promoted::I32 })
}

/// A boolean attribute of an op (false when absent or not a bool).
fn bool_attr(op: MlirOperation, name: &str) -> bool {
    // SAFETY: attribute queries on a live op; the value is read only from a bool attribute.
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, str_ref(name));
        !attr.ptr.is_null() && mlirAttributeIsABool(attr) && mlirBoolAttrGetValue(attr)
    }
}

impl FuncLowering<'_> {
    /// Declares an external function `@symbol` once (an `llvm.func` with an empty body).
    fn declare_function(&mut self, symbol: &str, result: MlirType, params: &[MlirType]) {
        self.define_once(symbol, |b| {
            let func_type = b.func_type(result, params, false);
            let attrs = [
                ("sym_name", b.string_attr(symbol)),
                ("function_type", b.type_attr(func_type)),
                ("linkage", b.linkage(false)),
            ];
            let region = b.empty_region();
            b.create("llvm.func", &[], &[], &attrs, vec![region]);
        });
    }

    /// A generic pointer to a NUL-terminated global string (an internal constant in address
    /// space 1).
    fn global_string(&mut self, prefix: &str, text: &str) -> Value {
        let symbol = format!("{prefix}_{}", self.defined.len());
        let mut bytes = text.to_owned();
        bytes.push('\0');
        let len = bytes.len() as u32;
        self.define_once(&symbol, |b| {
            let array = b.array_type(b.i8(), len);
            let attrs = [
                ("sym_name", b.string_attr(&symbol)),
                ("global_type", b.type_attr(array)),
                ("linkage", b.linkage(true)),
                ("constant", b.unit_attr()),
                ("value", b.string_attr(&bytes)),
                ("addr_space", b.i32_attr(1)),
            ];
            let region = b.empty_region();
            b.create("llvm.mlir.global", &[], &[], &attrs, vec![region]);
        });
        let global_ptr = self.b.ptr_type(1);
        let p = self.b.address_of(&symbol, global_ptr);
        let generic = self.b.ptr_type(0);
        self.b.cast(CastOp::AddrSpaceCast, p, generic)
    }

    pub fn lower_print(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        let (i32, ptr) = (self.b.i32(), self.b.ptr_type(0));
        self.declare_function("vprintf", i32, &[ptr, ptr]);
        let prefix = string_attr(op, "prefix").unwrap_or_default();
        let hex = bool_attr(op, "hex");
        let signed = i32_array(op, "isSigned");
        let pids: Vec<Value> = ["x", "y", "z"]
            .iter()
            .map(|a| self.b.special_register(&format!("ctaid.{a}")))
            .collect();
        if ins.is_empty() {
            let fmt = self.global_string("printfFormat", &format!("pid (%u, %u, %u) {prefix}\n"));
            self.vprintf(fmt, &pids);
            return Ok(());
        }
        for (i, arg) in ins.iter().enumerate() {
            let ty = value_type(*arg);
            let elem = element_type(ty);
            let is_signed = signed.get(i).copied().unwrap_or(1) != 0;
            let (spec, promoted) = print_spec(elem, hex, is_signed);
            let operand_note = if ins.len() > 1 {
                format!("(operand {i}) ")
            } else {
                String::new()
            };
            let values = self.regs(op, *arg)?;
            if !is_tensor(ty) {
                let fmt = self.global_string(
                    "printfFormat",
                    &format!("pid (%u, %u, %u) {prefix}{operand_note}{spec}\n"),
                );
                // Non-empty: `regs` returns at least one register.
                let v = self.promote(values[0], elem, promoted, is_signed);
                let mut args = pids.clone();
                args.push(v);
                self.vprintf(fmt, &args);
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
            for (r, coord) in map.registers.iter().enumerate() {
                if map.register_duplicate.get(r) == Some(&true) {
                    continue;
                }
                let Some(&value) = values.get(r) else {
                    return err(op, "internal error: a printed tensor has too few registers");
                };
                let c = self.runtime_coord(&thread, coord);
                let v = self.promote(value, elem, promoted, is_signed);
                let mut args = pids.clone();
                args.extend(c);
                args.push(v);
                self.vprintf(fmt, &args);
            }
        }
        Ok(())
    }

    /// `value` (an element of `elem`) as the vararg `promoted` type.
    fn promote(&mut self, value: Value, elem: MlirType, promoted: Promoted, signed: bool) -> Value {
        let bits = type_bits(elem);
        let target = promoted.llvm_type(&self.b);
        if is_pointer(elem) {
            return self.b.cast(CastOp::AddrSpaceCast, value, target);
        }
        if is_float(elem) {
            return match promoted {
                Promoted::I64 => {
                    let int = self.b.int_type(bits);
                    let b = self.b.bitcast(value, int);
                    self.b.zext(b, target)
                }
                _ => self.b.cast(CastOp::FpExt, value, target),
            };
        }
        let target_bits = if promoted == Promoted::I64 { 64 } else { 32 };
        if bits == target_bits {
            value
        } else if signed && bits > 1 {
            self.b.sext(value, target)
        } else {
            self.b.zext(value, target)
        }
    }

    /// `vprintf(format, buffer)` with `args` stored in a stack struct of their types.
    fn vprintf(&mut self, format: Value, args: &[Value]) {
        let types: Vec<MlirType> = args.iter().map(|a| value_type(*a)).collect();
        let struct_ty = self.b.struct_type(&types);
        let buffer = self.prologue_alloca(struct_ty);
        for (i, &a) in args.iter().enumerate() {
            let field = self.field_address(buffer, struct_ty, i as i32);
            self.b.store(a, field);
        }
        let i32 = self.b.i32();
        self.b.call("vprintf", &[format, buffer], Some(i32));
    }

    /// `llvm.alloca 1 x element` in the prologue (once per function entry, not per iteration).
    fn prologue_alloca(&mut self, element: MlirType) -> Value {
        let one = self.b.prologue_i32(1);
        let ty = self.b.ptr_type(0);
        let elem = self.b.type_attr(element);
        let op = self
            .b
            .create_in_prologue("llvm.alloca", &[one], &[ty], &[("elem_type", elem)]);
        Builder::result(op)
    }

    /// `llvm.getelementptr ptr[0, field]` into a struct of type `struct_ty`.
    fn field_address(&mut self, ptr: Value, struct_ty: MlirType, field: i32) -> Value {
        let ty = value_type(ptr);
        let indices = self.b.i32_array(&[0, field]);
        let elem = self.b.type_attr(struct_ty);
        let op = self.b.create(
            "llvm.getelementptr",
            &[ptr],
            &[ty],
            &[("rawConstantIndices", indices), ("elem_type", elem)],
            Vec::new(),
        );
        Builder::result(op)
    }

    pub fn lower_assert(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        let (ptr, i32, i64) = (self.b.ptr_type(0), self.b.i32(), self.b.i64());
        let void = self.b.void_type();
        self.declare_function("__assertfail", void, &[ptr, ptr, i32, ptr, i64]);
        let message = string_attr(op, "message").unwrap_or_default();
        let Some(&condition) = ins.first() else {
            return err(op, "tt.assert needs a condition");
        };
        let conds = self.regs(op, condition)?;
        let mut all = self.b.const_bool(true);
        for c in conds {
            all = self.b.and(all, c);
        }
        let t = self.b.const_bool(true);
        let failed = self.b.xor(all, t);
        let after = self.b.begin_if(failed);
        let msg = self.global_string("assertMessage", &message);
        let file = self.global_string("assertFile", "<unknown>");
        let func = self.global_string("assertFunc", "<kernel>");
        let line = self.b.const_i32(0);
        let size = self.b.const_i64(1);
        self.b
            .call("__assertfail", &[msg, file, line, func, size], None);
        self.b.restore(after);
        Ok(())
    }

    /// `gpu.barrier` (`tl.debug_barrier`): every thread of the CTA waits.
    pub fn lower_barrier(&mut self) -> LResult<()> {
        self.b.barrier();
        Ok(())
    }

    /// `llvm.intr.assume` on a scalar `i1` (`tl.assume`): the same op on its register.
    pub fn lower_assume(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        let Some(&condition) = ins.first() else {
            return err(op, "llvm.intr.assume needs a condition");
        };
        let conds = self.regs(op, condition)?;
        let bundles = self.b.i32_array(&[]);
        for c in conds {
            self.b.create(
                "llvm.intr.assume",
                &[c],
                &[],
                &[("op_bundle_sizes", bundles)],
                Vec::new(),
            );
        }
        Ok(())
    }
}
