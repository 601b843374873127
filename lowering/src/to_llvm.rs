//! `-convert-triton-gpu-to-llvm{compute-capability ptx-version}`: lowers a TTGIR module to the
//! LLVM dialect (with NVVM and inline PTX), one thread's view at a time.
//!
//! Every distributed tensor becomes the list of scalars its thread holds (`ThreadMap`): elementwise
//! ops become one scalar op per register, loads and stores become vectorized predicated PTX
//! (widths proven by axis info), reductions combine within a thread, then across lanes with
//! butterfly shuffles, then across warps through shared memory; layout conversions and other data
//! movement go through registers when the owning thread does not change, else through shared
//! memory. The result is LLVM dialect plus scalar `arith`/`math`/`scf`, finished by MLIR's
//! standard conversions (see [`crate::FINISH_PIPELINE`]).

use crate::emit::Emitter;
use crate::layout_map::ThreadMap;
use mlir_sys::*;
use std::collections::HashMap;
use std::fmt::Write;
use tritium_dialects::ffi;
use tritium_passes::axis_info::AxisInfoAnalysis;
use tritium_passes::ir_util::*;

/// What the lowering needs to know about the module beyond its IR.
pub struct Lowered {
    /// The LLVM-dialect module text.
    pub text: String,
    /// Dynamic shared memory a launch must provide, in bytes.
    pub shared_bytes: u64,
    /// The shared-memory scratch each op uses during its own lowering.
    pub scratch: Vec<(MlirOperation, u64)>,
}

/// A lowering failure, reported at an op.
pub struct LowerError {
    pub op: Option<MlirOperation>,
    pub message: String,
}

pub type LResult<T> = Result<T, LowerError>;

pub(crate) fn err<T>(op: MlirOperation, message: impl Into<String>) -> LResult<T> {
    Err(LowerError {
        op: Some(op),
        message: message.into(),
    })
}

/// Scalar type text in the LLVM dialect.
pub fn llvm_type(ty: MlirType) -> String {
    unsafe {
        if ffi::tritiumTypeIsPointer(ty) {
            let space = ffi::tritiumPointerTypeGetAddressSpace(ty);
            return if space == 0 {
                "!llvm.ptr".into()
            } else {
                format!("!llvm.ptr<{space}>")
            };
        }
    }
    if is_fp8(ty) {
        return "i8".into();
    }
    print_type(ty)
}

/// The 8-bit float types, which the LLVM dialect holds as `i8`.
pub(crate) fn is_fp8(ty: MlirType) -> bool {
    (unsafe { mlirTypeIsAFloat(ty) }) && print_type(ty).starts_with("f8")
}

pub(crate) fn type_bits(ty: MlirType) -> u32 {
    unsafe {
        if ffi::tritiumTypeIsPointer(ty) {
            64
        } else if mlirTypeIsAInteger(ty) {
            mlirIntegerTypeGetWidth(ty)
        } else if mlirTypeIsAFloat(ty) {
            mlirFloatTypeGetWidth(ty)
        } else if mlirTypeIsAIndex(ty) {
            64
        } else {
            32
        }
    }
}

/// A float type the LLVM dialect has (fp8 types are held as `i8` and are not).
pub(crate) fn is_float(ty: MlirType) -> bool {
    unsafe { mlirTypeIsAFloat(ty) && !is_fp8(ty) }
}

pub(crate) fn pointee(ty: MlirType) -> MlirType {
    unsafe { ffi::tritiumPointerTypeGetPointee(ty) }
}

pub struct FuncLowering<'a> {
    pub(crate) e: Emitter,
    pub(crate) values: HashMap<usize, Vec<String>>,
    pub(crate) axis: &'a AxisInfoAnalysis,
    pub(crate) num_warps: u32,
    pub(crate) threads_per_warp: u32,
    pub(crate) maps: HashMap<String, ThreadMap>,
    /// Per layout: runtime coordinate of (lane, warp) contribution, per dim.
    pub(crate) bases: HashMap<String, Vec<String>>,
    pub(crate) lane: String,
    pub(crate) warp: String,
    pub(crate) shared_bytes: u64,
    pub(crate) uses_shared: bool,
    /// The thread index in the CTA (`tid.x`).
    pub(crate) tid: String,
    /// Target compute capability (from `ttg.target`, e.g. 90).
    pub(crate) capability: u32,
    /// Module-level definitions (globals, helper functions, declarations) by symbol.
    pub(crate) globals: std::collections::BTreeMap<String, String>,
    /// LLVM type of the pointers of the atomic being lowered.
    pub(crate) atomic_ptr_type: String,
    /// The op being lowered (its `allocation.offset` places its shared-memory scratch).
    pub(crate) current_op: Option<MlirOperation>,
    /// Shared-memory scratch each op needs, in bytes (for `-allocate-shared-memory`).
    pub(crate) scratch: Vec<(MlirOperation, u64)>,
    /// `ttg.local_alloc` buffers by memdesc value.
    pub(crate) buffers: HashMap<usize, crate::ops::local::SharedBuffer>,
}

pub fn lower_module(module: MlirOperation) -> LResult<Lowered> {
    let num_warps = int_attr(module, "ttg.num-warps").unwrap_or(4) as u32;
    let threads_per_warp = int_attr(module, "ttg.threads-per-warp").unwrap_or(32) as u32;
    let axis = AxisInfoAnalysis::run(module);
    let mut text = String::from("module {\n");
    let mut shared_bytes = 0u64;
    let mut uses_shared = false;
    let capability = string_attr(module, "ttg.target")
        .and_then(|t| t.strip_prefix("cuda:").and_then(|c| c.parse().ok()))
        .unwrap_or(90);
    let mut globals = std::collections::BTreeMap::new();
    let mut scratch = Vec::new();
    for func in collect_ops(module)
        .into_iter()
        .filter(|op| op_name(*op) == "tt.func")
    {
        let mut lowering = FuncLowering {
            e: Emitter::new(),
            values: HashMap::new(),
            axis: &axis,
            num_warps,
            threads_per_warp,
            maps: HashMap::new(),
            bases: HashMap::new(),
            lane: String::new(),
            warp: String::new(),
            shared_bytes: 0,
            uses_shared: false,
            tid: String::new(),
            capability,
            globals: std::mem::take(&mut globals),
            atomic_ptr_type: String::new(),
            current_op: None,
            scratch: Vec::new(),
            buffers: HashMap::new(),
        };
        text.push_str(&lowering.lower_func(func)?);
        globals = std::mem::take(&mut lowering.globals);
        shared_bytes = shared_bytes.max(lowering.shared_bytes);
        uses_shared |= lowering.uses_shared;
        scratch.append(&mut lowering.scratch);
    }
    for definition in globals.values() {
        text.push_str(definition);
    }
    if uses_shared {
        text.push_str("  llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>\n");
    }
    text.push_str("}\n");
    // Scratch placed by -allocate-shared-memory may sit above offset 0.
    if let Some(allocated) = int_attr(module, "ttg.shared") {
        shared_bytes = shared_bytes.max(allocated as u64);
    }
    Ok(Lowered {
        text,
        shared_bytes,
        scratch,
    })
}

/// An arith float cast that MLIR's conversion cannot do: an fp8 side, or truncation toward zero.
fn needs_float_cast(op: MlirOperation, name: &str, ins: &[MlirValue], outs: &[MlirValue]) -> bool {
    let from = element_type(value_type(ins[0]));
    let to = element_type(value_type(outs[0]));
    is_fp8(from)
        || is_fp8(to)
        || (name == "arith.truncf" && int_attr(op, "roundingmode") == Some(3))
}

/// A string attribute of an op, if present.
pub(crate) fn string_attr(op: MlirOperation, name: &str) -> Option<String> {
    let key = std::ffi::CString::new(name).unwrap();
    unsafe {
        let attr =
            mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(key.as_ptr()));
        (!attr.ptr.is_null() && mlirAttributeIsAString(attr))
            .then(|| ffi::string_ref_str(mlirStringAttrGetValue(attr)).to_owned())
    }
}

pub(crate) fn symbol_name(func: MlirOperation) -> String {
    let key = std::ffi::CString::new("sym_name").unwrap();
    unsafe {
        let attr =
            mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString(key.as_ptr()));
        ffi::string_ref_str(mlirStringAttrGetValue(attr)).to_owned()
    }
}

impl<'a> FuncLowering<'a> {
    pub(crate) fn lower_func(&mut self, func: MlirOperation) -> LResult<String> {
        let name = symbol_name(func);
        let entry = blocks_of(func)[0];
        let mut params = Vec::new();
        for (i, arg) in block_args(entry).into_iter().enumerate() {
            let ty = value_type(arg);
            if is_tensor(ty) {
                return err(func, "kernel arguments must be scalars or pointers");
            }
            let name = format!("%arg{i}");
            params.push(format!("{name}: {}", llvm_type(ty)));
            self.values.insert(key(arg), vec![name]);
        }
        let threads = self.num_warps * self.threads_per_warp;
        let tid = self.e.prologue_op("nvvm.read.ptx.sreg.tid.x : i32");
        self.tid = tid.clone();
        let tpw = self.e.prologue_const(self.threads_per_warp as i64, "i32");
        self.lane = self.e.prologue_op(&format!("llvm.urem {tid}, {tpw} : i32"));
        self.warp = self.e.prologue_op(&format!("llvm.udiv {tid}, {tpw} : i32"));
        self.lower_block(entry)?;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "  llvm.func @{name}({}) attributes {{nvvm.kernel, nvvm.reqntid = array<i32: {threads}>}} {{",
            params.join(", ")
        );
        out.push_str(&self.e.take_prologue());
        out.push_str(&self.e.take_body());
        out.push_str("  }\n");
        Ok(out)
    }

    pub(crate) fn lower_block(&mut self, block: MlirBlock) -> LResult<()> {
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        while !op.ptr.is_null() {
            self.lower_op(op)?;
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Ok(())
    }

    pub(crate) fn get(&self, value: MlirValue) -> Vec<String> {
        self.values.get(&key(value)).cloned().unwrap_or_default()
    }

    pub(crate) fn scalar(&self, value: MlirValue) -> String {
        self.get(value).into_iter().next().unwrap_or_default()
    }

    pub(crate) fn thread_map(&mut self, op: MlirOperation, ty: MlirType) -> LResult<ThreadMap> {
        let text = print_type(ty);
        if let Some(map) = self.maps.get(&text) {
            return Ok(map.clone());
        }
        let dims: Vec<u32> = shape(ty).iter().map(|&d| d as u32).collect();
        let Some(encoding) = encoding_of(ty) else {
            if let Some(map) =
                encoding_attr(ty).and_then(|a| ThreadMap::from_linear_text(&print_attr(a), &dims))
            {
                self.maps.insert(text, map.clone());
                return Ok(map);
            }
            return err(
                op,
                format!("tensor without a layout encoding: {text} (run -tritium-ttgir first)"),
            );
        };
        let map = ThreadMap::new(&encoding, &dims).map_err(|m| LowerError {
            op: Some(op),
            message: m,
        })?;
        self.maps.insert(text, map.clone());
        Ok(map)
    }

    /// Runtime per-dim coordinates contributed by this thread's lane and warp.
    pub(crate) fn thread_base(&mut self, op: MlirOperation, ty: MlirType) -> LResult<Vec<String>> {
        let text = print_type(ty);
        if let Some(base) = self.bases.get(&text) {
            return Ok(base.clone());
        }
        let map = self.thread_map(op, ty)?;
        let rank = map.shape.len();
        let mut base = Vec::new();
        for d in 0..rank {
            let mut acc = self.e.prologue_const(0, "i32");
            for (source, bases) in [
                (self.lane.clone(), &map.lane_bases),
                (self.warp.clone(), &map.warp_bases),
            ] {
                for (bit, basis) in bases.iter().enumerate() {
                    if basis[d] == 0 {
                        continue;
                    }
                    let shift = self.e.prologue_const(bit as i64, "i32");
                    let one = self.e.prologue_const(1, "i32");
                    let mult = self.e.prologue_const(basis[d] as i64, "i32");
                    let shifted = self
                        .e
                        .prologue_op(&format!("llvm.lshr {source}, {shift} : i32"));
                    let masked = self
                        .e
                        .prologue_op(&format!("llvm.and {shifted}, {one} : i32"));
                    let term = self
                        .e
                        .prologue_op(&format!("llvm.mul {masked}, {mult} : i32"));
                    acc = self.e.prologue_op(&format!("llvm.xor {acc}, {term} : i32"));
                }
            }
            base.push(acc);
        }
        self.bases.insert(text, base.clone());
        Ok(base)
    }

    /// The `i1` that is true in exactly one thread among those holding the same elements.
    pub(crate) fn first_copy_predicate(&mut self, map: &ThreadMap) -> Option<String> {
        let lane_mask = map.lane_broadcast_mask();
        let warp_mask = map.warp_broadcast_mask();
        if lane_mask == 0 && warp_mask == 0 {
            return None;
        }
        let zero = self.e.prologue_const(0, "i32");
        let lm = self.e.prologue_const(lane_mask as i64, "i32");
        let wm = self.e.prologue_const(warp_mask as i64, "i32");
        let lane = self.lane.clone();
        let warp = self.warp.clone();
        let a = self.e.prologue_op(&format!("llvm.and {lane}, {lm} : i32"));
        let b = self.e.prologue_op(&format!("llvm.and {warp}, {wm} : i32"));
        let c = self.e.prologue_op(&format!("llvm.or {a}, {b} : i32"));
        Some(
            self.e
                .prologue_op(&format!("llvm.icmp \"eq\" {c}, {zero} : i32")),
        )
    }

    pub(crate) fn lower_op(&mut self, op: MlirOperation) -> LResult<()> {
        let outer = self.current_op.replace(op);
        let result = self.lower_op_inner(op);
        self.current_op = outer;
        result
    }

    /// Records that the op being lowered uses `bytes` of shared-memory scratch.
    pub(crate) fn reserve_scratch(&mut self, bytes: u64) {
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

    fn lower_op_inner(&mut self, op: MlirOperation) -> LResult<()> {
        let name = op_name(op);
        let ins = operands(op);
        let outs = results(op);
        match name.as_str() {
            "tt.return" => {
                self.e.line("llvm.return");
            }
            "arith.constant" => self.lower_constant(op, &outs)?,
            "tt.get_program_id" | "tt.get_num_programs" => {
                let axis = ["x", "y", "z"][int_attr(op, "axis").unwrap_or(0) as usize % 3];
                let register = if name == "tt.get_program_id" {
                    "ctaid"
                } else {
                    "nctaid"
                };
                let v = self
                    .e
                    .op(&format!("nvvm.read.ptx.sreg.{register}.{axis} : i32"));
                self.values.insert(key(outs[0]), vec![v]);
            }
            "tt.make_range" => {
                let ty = value_type(outs[0]);
                let map = self.thread_map(op, ty)?;
                let base = self.thread_base(op, ty)?;
                let start = int_attr(op, "start").unwrap_or(0);
                let mut regs = Vec::new();
                for coord in &map.registers {
                    let c = self.e.constant(coord[0] as i64, "i32");
                    let x = self.e.op(&format!("llvm.xor {}, {c} : i32", base[0]));
                    let s = self.e.constant(start, "i32");
                    regs.push(self.e.op(&format!("llvm.add {x}, {s} : i32")));
                }
                self.values.insert(key(outs[0]), regs);
            }
            "tt.splat" => {
                let v = self.scalar(ins[0]);
                let map = self.thread_map(op, value_type(outs[0]))?;
                self.values
                    .insert(key(outs[0]), vec![v; map.num_registers()]);
            }
            "tt.addptr" => {
                let ptrs = self.get(ins[0]);
                let offsets = self.get(ins[1]);
                let ptr_type = element_type(value_type(ins[0]));
                let elem = llvm_type(pointee(ptr_type));
                let pty = llvm_type(ptr_type);
                let oty = llvm_type(element_type(value_type(ins[1])));
                let mut regs = Vec::new();
                for (i, p) in ptrs.iter().enumerate() {
                    let o = offsets
                        .get(i)
                        .or(offsets.first())
                        .cloned()
                        .unwrap_or_default();
                    regs.push(self.e.op(&format!(
                        "llvm.getelementptr {p}[{o}] : ({pty}, {oty}) -> {pty}, {elem}"
                    )));
                }
                self.values.insert(key(outs[0]), regs);
            }
            "tt.load" => self.lower_load(op, &ins, &outs)?,
            "tt.store" => self.lower_store(op, &ins)?,
            "tt.reduce" => self.lower_reduce(op, &ins, &outs)?,
            "ttg.convert_layout" if is_dot_operand_feed(op) => {
                // Consumed by tt.dot, which reads the source through shared memory itself.
                let v = self.get(ins[0]);
                self.values.insert(key(outs[0]), v);
            }
            "tt.dot" => self.lower_dot(op, &ins, &outs)?,
            "ttg.local_alloc" | "ttg.local_store" | "ttg.local_load" | "ttg.local_dealloc" => {
                self.lower_local(op, &name, &ins, &outs)?
            }
            "ttg.convert_layout" | "tt.broadcast" | "tt.expand_dims" | "tt.reshape"
            | "tt.trans" | "tt.join" | "tt.split" | "tt.cat" | "tt.unsplat" => {
                self.lower_movement(op, &name, &ins, &outs)?
            }
            "math.exp" | "math.exp2" | "math.log" | "math.log2" | "math.rsqrt" | "arith.divf"
                if unsafe {
                    mlirTypeEqual(
                        element_type(value_type(outs[0])),
                        mlirF32TypeGet(context_of(op)),
                    )
                } =>
            {
                self.lower_fast_math(op, &name, &ins, &outs)?
            }
            "tt.precise_sqrt" | "tt.precise_divf" | "tt.mulhiui" => {
                self.lower_precise(op, &name, &ins, &outs)?
            }
            "tt.atomic_rmw" | "tt.atomic_cas" => self.lower_atomic(op, &name, &ins, &outs)?,
            "tt.scan" => self.lower_scan(op, &ins, &outs)?,
            "tt.gather" => self.lower_gather(op, &ins, &outs)?,
            "tt.histogram" => self.lower_histogram(op, &ins, &outs)?,
            "tt.clampf" => self.lower_clampf(op, &ins, &outs)?,
            "tt.extern_elementwise" => self.lower_extern(op, &ins, &outs)?,
            "tt.elementwise_inline_asm" => self.lower_inline_asm(op, &ins, &outs)?,
            "tt.print" => self.lower_print(op, &ins)?,
            "tt.assert" => self.lower_assert(op, &ins)?,
            "scf.while" => self.lower_while(op, &ins, &outs)?,
            "tt.make_tensor_descriptor" => self.lower_make_descriptor(&ins, &outs)?,
            "tt.descriptor_load" => self.lower_descriptor_load(op, &ins, &outs)?,
            "tt.descriptor_store" => self.lower_descriptor_store(op, &ins, false)?,
            "tt.descriptor_reduce" => self.lower_descriptor_store(op, &ins, true)?,
            "tt.fp_to_fp" => self.lower_float_cast(op, &name, &ins, &outs)?,
            "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.uitofp" | "arith.fptosi"
            | "arith.fptoui"
                if needs_float_cast(op, &name, &ins, &outs) =>
            {
                self.lower_float_cast(op, &name, &ins, &outs)?
            }
            _ if crate::ops::math_ops::soft_math_function(&name).is_some() => {
                let function = crate::ops::math_ops::soft_math_function(&name).unwrap_or_default();
                self.lower_soft_math(op, function, &ins, &outs)?
            }
            "tt.bitcast" | "tt.int_to_ptr" | "tt.ptr_to_int" => {
                let from = element_type(value_type(ins[0]));
                let to = element_type(value_type(outs[0]));
                let cast = match (unsafe { ffi::tritiumTypeIsPointer(from) }, unsafe {
                    ffi::tritiumTypeIsPointer(to)
                }) {
                    (true, false) => "llvm.ptrtoint",
                    (false, true) => "llvm.inttoptr",
                    _ => "llvm.bitcast",
                };
                let (ft, tt) = (llvm_type(from), llvm_type(to));
                let regs = self
                    .get(ins[0])
                    .iter()
                    .map(|v| {
                        if ft == tt {
                            v.clone()
                        } else {
                            self.e.op(&format!("{cast} {v} : {ft} to {tt}"))
                        }
                    })
                    .collect();
                self.values.insert(key(outs[0]), regs);
            }
            "scf.for" => self.lower_for(op, &ins, &outs)?,
            "scf.yield" | "scf.condition" => return err(op, "unexpected terminator"),
            "scf.if" => self.lower_if(op, &ins, &outs)?,
            _ if name.starts_with("arith.") || name.starts_with("math.") => {
                self.lower_elementwise(op, &name, &ins, &outs)?
            }
            _ => {
                return err(
                    op,
                    format!("lowering of '{name}' to LLVM is not implemented"),
                );
            }
        }
        Ok(())
    }

    pub(crate) fn flat_types(
        &mut self,
        op: MlirOperation,
        values: &[MlirValue],
    ) -> LResult<Vec<String>> {
        let mut types = Vec::new();
        for v in values {
            let ty = value_type(*v);
            let count = if is_tensor(ty) {
                self.thread_map(op, ty)?.num_registers()
            } else {
                1
            };
            types.extend(std::iter::repeat_n(llvm_type(element_type(ty)), count));
        }
        Ok(types)
    }
}

/// A conversion into a dot-operand layout whose users are all `tt.dot`.
pub(crate) fn is_dot_operand_feed(op: MlirOperation) -> bool {
    let result = results(op)[0];
    if !print_type(value_type(result)).contains("#ttg.dot_op") {
        return false;
    }
    unsafe {
        let mut user = mlirValueGetFirstUse(result);
        while !user.ptr.is_null() {
            if op_name(mlirOpOperandGetOwner(user)) != "tt.dot" {
                return false;
            }
            user = mlirOpOperandGetNextUse(user);
        }
    }
    true
}

/// A borrowed string for a C-API call (valid while `text` is; MLIR string refs need no NUL).
pub(crate) fn sref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr() as *const _,
        length: text.len(),
    }
}

pub(crate) fn i32_array(op: MlirOperation, name: &str) -> Vec<i32> {
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, sref(name));
        if attr.ptr.is_null() || !mlirAttributeIsADenseI32Array(attr) {
            return Vec::new();
        }
        (0..mlirDenseArrayGetNumElements(attr))
            .map(|i| mlirDenseI32ArrayGetElement(attr, i))
            .collect()
    }
}

/// `<{name = value, ...}>` of an op's attributes (for the generic form of scalar ops).
pub(crate) fn inherent_attrs_text(op: MlirOperation) -> String {
    let count = unsafe { mlirOperationGetNumAttributes(op) };
    if count == 0 {
        return String::new();
    }
    let mut parts = Vec::new();
    for i in 0..count {
        let named = unsafe { mlirOperationGetAttribute(op, i) };
        let name = unsafe { ffi::string_ref_str(mlirIdentifierStr(named.name)) };
        parts.push(format!("{name} = {}", print_attr(named.attribute)));
    }
    format!(" <{{{}}}>", parts.join(", "))
}
