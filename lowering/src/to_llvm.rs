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
use tritium_passes::axis_info::{AxisInfoAnalysis, gcd};
use tritium_passes::ir_util::*;

/// What the lowering needs to know about the module beyond its IR.
pub struct Lowered {
    /// The LLVM-dialect module text.
    pub text: String,
    /// Dynamic shared memory a launch must provide, in bytes.
    pub shared_bytes: u64,
}

/// A lowering failure, reported at an op.
pub struct LowerError {
    pub op: Option<MlirOperation>,
    pub message: String,
}

type LResult<T> = Result<T, LowerError>;

fn err<T>(op: MlirOperation, message: impl Into<String>) -> LResult<T> {
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
    print_type(ty)
}

fn type_bits(ty: MlirType) -> u32 {
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

fn is_float(ty: MlirType) -> bool {
    unsafe { mlirTypeIsAFloat(ty) }
}

fn pointee(ty: MlirType) -> MlirType {
    unsafe { ffi::tritiumPointerTypeGetPointee(ty) }
}

struct FuncLowering<'a> {
    e: Emitter,
    values: HashMap<usize, Vec<String>>,
    axis: &'a AxisInfoAnalysis,
    num_warps: u32,
    threads_per_warp: u32,
    maps: HashMap<String, ThreadMap>,
    /// Per layout: runtime coordinate of (lane, warp) contribution, per dim.
    bases: HashMap<String, Vec<String>>,
    lane: String,
    warp: String,
    shared_bytes: u64,
    uses_shared: bool,
}

pub fn lower_module(module: MlirOperation) -> LResult<Lowered> {
    let num_warps = int_attr(module, "ttg.num-warps").unwrap_or(4) as u32;
    let threads_per_warp = int_attr(module, "ttg.threads-per-warp").unwrap_or(32) as u32;
    let axis = AxisInfoAnalysis::run(module);
    let mut text = String::from("module {\n");
    let mut shared_bytes = 0u64;
    let mut uses_shared = false;
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
        };
        text.push_str(&lowering.lower_func(func)?);
        shared_bytes = shared_bytes.max(lowering.shared_bytes);
        uses_shared |= lowering.uses_shared;
    }
    if uses_shared {
        text.push_str("  llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>\n");
    }
    text.push_str("}\n");
    Ok(Lowered { text, shared_bytes })
}

fn symbol_name(func: MlirOperation) -> String {
    let key = std::ffi::CString::new("sym_name").unwrap();
    unsafe {
        let attr =
            mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString(key.as_ptr()));
        ffi::string_ref_str(mlirStringAttrGetValue(attr)).to_owned()
    }
}

impl<'a> FuncLowering<'a> {
    fn lower_func(&mut self, func: MlirOperation) -> LResult<String> {
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

    fn lower_block(&mut self, block: MlirBlock) -> LResult<()> {
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        while !op.ptr.is_null() {
            self.lower_op(op)?;
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Ok(())
    }

    fn get(&self, value: MlirValue) -> Vec<String> {
        self.values.get(&key(value)).cloned().unwrap_or_default()
    }

    fn scalar(&self, value: MlirValue) -> String {
        self.get(value).into_iter().next().unwrap_or_default()
    }

    fn thread_map(&mut self, op: MlirOperation, ty: MlirType) -> LResult<ThreadMap> {
        let text = print_type(ty);
        if let Some(map) = self.maps.get(&text) {
            return Ok(map.clone());
        }
        let Some(encoding) = encoding_of(ty) else {
            return err(
                op,
                format!("tensor without a layout encoding: {text} (run -tritium-ttgir first)"),
            );
        };
        let dims: Vec<u32> = shape(ty).iter().map(|&d| d as u32).collect();
        let map = ThreadMap::new(&encoding, &dims).map_err(|m| LowerError {
            op: Some(op),
            message: m,
        })?;
        self.maps.insert(text, map.clone());
        Ok(map)
    }

    /// Runtime per-dim coordinates contributed by this thread's lane and warp.
    fn thread_base(&mut self, op: MlirOperation, ty: MlirType) -> LResult<Vec<String>> {
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
    fn first_copy_predicate(&mut self, map: &ThreadMap) -> Option<String> {
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

    fn lower_op(&mut self, op: MlirOperation) -> LResult<()> {
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
            "ttg.convert_layout" | "tt.broadcast" | "tt.expand_dims" | "tt.reshape"
            | "tt.trans" => self.lower_movement(op, &name, ins[0], outs[0])?,
            "math.exp" | "math.exp2" | "math.log" | "math.log2" | "math.rsqrt" | "arith.divf"
            | "math.sin" | "math.cos"
                if unsafe {
                    mlirTypeEqual(
                        element_type(value_type(outs[0])),
                        mlirF32TypeGet(context_of(op)),
                    )
                } =>
            {
                self.lower_fast_math(op, &name, &ins, &outs)?
            }
            "tt.precise_sqrt" => {
                self.lower_elementwise_asm(op, &ins, &outs, "sqrt.rn.f32 $0, $1;", "=f,f")?
            }
            "tt.precise_divf" => {
                self.lower_elementwise_asm(op, &ins, &outs, "div.rn.f32 $0, $1, $2;", "=f,f,f")?
            }
            "tt.mulhiui" => {
                self.lower_elementwise_asm(op, &ins, &outs, "mul.hi.u32 $0, $1, $2;", "=r,r,r")?
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
                    .map(|v| self.e.op(&format!("{cast} {v} : {ft} to {tt}")))
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

    fn lower_constant(&mut self, op: MlirOperation, outs: &[MlirValue]) -> LResult<()> {
        let key_name = std::ffi::CString::new("value").unwrap();
        let ty = value_type(outs[0]);
        let attr = unsafe {
            mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(key_name.as_ptr()))
        };
        let scalar_attr = unsafe {
            if mlirAttributeIsADenseElements(attr) {
                if !mlirDenseElementsAttrIsSplat(attr) {
                    return err(
                        op,
                        "non-splat dense constants are not supported by the lowering yet",
                    );
                }
                mlirDenseElementsAttrGetSplatValue(attr)
            } else {
                attr
            }
        };
        let elem = element_type(ty);
        let text = print_attr(scalar_attr);
        let value = if unsafe { mlirTypeIsAIndex(elem) } {
            let v = text.split(':').next().unwrap_or("0").trim().to_owned();
            self.e.op(&format!("llvm.mlir.constant({v} : i64) : i64"))
        } else {
            self.e
                .op(&format!("llvm.mlir.constant({text}) : {}", llvm_type(elem)))
        };
        let count = if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        };
        self.values.insert(key(outs[0]), vec![value; count]);
        Ok(())
    }

    /// Any scalar arith/math op, applied to each register.
    fn lower_elementwise(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let attrs = inherent_attrs_text(op);
        let operand_types: Vec<String> = ins
            .iter()
            .map(|v| llvm_type(element_type(value_type(*v))))
            .collect();
        let result_types: Vec<String> = outs
            .iter()
            .map(|v| llvm_type(element_type(value_type(*v))))
            .collect();
        let count = outs
            .first()
            .map(|v| value_type(*v))
            .filter(|t| is_tensor(*t))
            .map(|t| self.thread_map(op, t))
            .transpose()?
            .map(|m| m.num_registers())
            .unwrap_or(1);
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let mut regs = Vec::new();
        for r in 0..count {
            let args: Vec<String> = inputs
                .iter()
                .map(|vals| vals.get(r).or(vals.first()).cloned().unwrap_or_default())
                .collect();
            let v = self.e.op(&format!(
                "\"{name}\"({}){attrs} : ({}) -> {}",
                args.join(", "),
                operand_types.join(", "),
                result_types.join(", ")
            ));
            regs.push(v);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    fn lower_elementwise_asm(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
        asm: &str,
        constraints: &str,
    ) -> LResult<()> {
        let ty = value_type(outs[0]);
        let elem = llvm_type(element_type(ty));
        let count = if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        };
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        let types: Vec<String> = ins
            .iter()
            .map(|v| llvm_type(element_type(value_type(*v))))
            .collect();
        let mut regs = Vec::new();
        for r in 0..count {
            let args: Vec<String> = inputs
                .iter()
                .map(|vals| vals.get(r).or(vals.first()).cloned().unwrap_or_default())
                .collect();
            regs.push(self.e.op(&format!(
                "llvm.inline_asm \"{asm}\", \"{constraints}\" {} : ({}) -> {elem}",
                args.join(", "),
                types.join(", ")
            )));
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// f32 transcendentals and division as Triton emits them: the approximate PTX instructions.
    fn lower_fast_math(
        &mut self,
        op: MlirOperation,
        name: &str,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ty = value_type(outs[0]);
        let count = if is_tensor(ty) {
            self.thread_map(op, ty)?.num_registers()
        } else {
            1
        };
        let a = self.get(ins[0]);
        let b = ins.get(1).map(|v| self.get(*v)).unwrap_or_default();
        let mut regs = Vec::new();
        for r in 0..count {
            let x = a.get(r).or(a.first()).cloned().unwrap_or_default();
            let v = match name {
                "math.exp" => {
                    let log2e = self.e.constant_f32(std::f32::consts::LOG2_E);
                    let scaled = self.e.op(&format!("llvm.fmul {x}, {log2e} : f32"));
                    self.e.op(&format!("llvm.inline_asm \"ex2.approx.f32 $0, $1;\", \"=f,f\" {scaled} : (f32) -> f32"))
                }
                "math.exp2" => self.e.op(&format!(
                    "llvm.inline_asm \"ex2.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.log2" => self.e.op(&format!(
                    "llvm.inline_asm \"lg2.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.log" => {
                    let l = self.e.op(&format!(
                        "llvm.inline_asm \"lg2.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                    ));
                    let ln2 = self.e.constant_f32(std::f32::consts::LN_2);
                    self.e.op(&format!("llvm.fmul {l}, {ln2} : f32"))
                }
                "math.rsqrt" => self.e.op(&format!(
                    "llvm.inline_asm \"rsqrt.approx.ftz.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.sin" => self.e.op(&format!(
                    "llvm.inline_asm \"sin.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                "math.cos" => self.e.op(&format!(
                    "llvm.inline_asm \"cos.approx.f32 $0, $1;\", \"=f,f\" {x} : (f32) -> f32"
                )),
                _ => {
                    let y = b.get(r).or(b.first()).cloned().unwrap_or_default();
                    self.e.op(&format!("llvm.inline_asm \"div.full.f32 $0, $1, $2;\", \"=f,f,f\" {x}, {y} : (f32, f32) -> f32"))
                }
            };
            regs.push(v);
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// Elements per vector access for a load/store through `ptr`.
    fn vector_width(
        &self,
        ptr: MlirValue,
        mask: Option<MlirValue>,
        map: &ThreadMap,
        elem_bits: u32,
    ) -> usize {
        let ty = value_type(ptr);
        let rank = map.shape.len();
        let info = self.axis.get(ptr);
        // The fastest dim: the most contiguous one.
        let fastest = (0..rank)
            .max_by_key(|&d| (info.contiguity[d], d))
            .unwrap_or(0);
        let elem_bytes = (elem_bits / 8).max(1) as u64;
        let mut vec = (128 / elem_bits.max(8)) as u64;
        vec = vec.min(info.contiguity[fastest]);
        vec = vec.min((info.divisibility[fastest] / elem_bytes).max(1));
        if let Some(mask) = mask {
            vec = vec.min(self.axis.get(mask).constancy[fastest]);
        }
        // Consecutive registers along the fastest dim.
        let mut run = 1usize;
        while run < map.num_registers() {
            let expected: Vec<u32> = (0..rank)
                .map(|d| {
                    if d == fastest {
                        map.registers[0][d] + run as u32
                    } else {
                        map.registers[0][d]
                    }
                })
                .collect();
            if map.registers[run] != expected {
                break;
            }
            run += 1;
        }
        let run = 1u64 << (63 - (run as u64).leading_zeros());
        let mut v = vec.min(run).max(1);
        v = 1u64 << (63 - v.leading_zeros());
        // Every group of `v` registers must also be consecutive.
        let _ = ty;
        if elem_bits < 16 {
            v = 1;
        }
        if elem_bits == 16 {
            v = v.min(4);
        }
        gcd(v, map.num_registers() as u64) as usize
    }

    fn lower_load(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        if !is_tensor(ptr_type) && unsafe { !ffi::tritiumTypeIsPointer(ptr_type) } {
            return err(
                op,
                "block-pointer loads must be rewritten first (-triton-rewrite-tensor-pointer)",
            );
        }
        let (mask, other) = load_store_optionals(op, ins, 1);
        let result_type = value_type(outs[0]);
        let elem = element_type(result_type);
        let bits = type_bits(elem);
        let ptrs = self.get(ins[0]);
        let masks = mask.map(|m| self.get(m));
        let others = other.map(|o| self.get(o));
        let (map, count) = if is_tensor(ptr_type) {
            let map = self.thread_map(op, ptr_type)?;
            let n = map.num_registers();
            (Some(map), n)
        } else {
            (None, 1)
        };
        let vec = match &map {
            Some(map) => self.vector_width(ins[0], mask, map, bits.max(8)),
            None => 1,
        };
        let (reg_type, constraint, width) = asm_register(bits);
        let lty = llvm_type(elem);
        let mut regs: Vec<String> = Vec::with_capacity(count);
        let cache = cache_suffix(op);
        for start in (0..count).step_by(vec) {
            let mut asm = String::new();
            let mut constraints: Vec<String> = (0..vec).map(|_| format!("={constraint}")).collect();
            let mut operands = Vec::new();
            let mut operand_types = Vec::new();
            // Masked-off lanes keep `other` (or zero).
            let mut inits = Vec::new();
            for j in 0..vec {
                let init = match &others {
                    Some(o) => self.to_bits(&o[(start + j).min(o.len() - 1)], elem, bits),
                    None => self.e.constant(0, &format!("i{width}")),
                };
                inits.push(init);
            }
            operands.push(ptrs[start.min(ptrs.len() - 1)].clone());
            operand_types.push(llvm_type(element_type(ptr_type)));
            constraints.push("l".into());
            let pred_index = vec + 1;
            let predicated = masks.is_some();
            if let Some(m) = &masks {
                operands.push(m[start.min(m.len() - 1)].clone());
                operand_types.push("i1".into());
                constraints.push("b".into());
            }
            let init_base = if predicated { vec + 2 } else { vec + 1 };
            for (j, init) in inits.iter().enumerate() {
                let _ = write!(asm, "mov.b{width} ${j}, ${};\\n\\t", init_base + j);
                operands.push(init.clone());
                operand_types.push(format!("i{width}"));
                constraints.push(constraint.to_string());
            }
            let dests: Vec<String> = (0..vec).map(|j| format!("${j}")).collect();
            let vector = if vec > 1 {
                format!(".v{vec}")
            } else {
                String::new()
            };
            let dest_text = if vec > 1 {
                format!("{{ {} }}", dests.join(", "))
            } else {
                dests[0].clone()
            };
            let guard = if predicated {
                format!("@${pred_index} ")
            } else {
                String::new()
            };
            let _ = write!(
                asm,
                "{guard}ld.global{cache}{vector}.{reg_type} {dest_text}, [ ${vec} + 0 ];"
            );
            let result_ty = if vec > 1 {
                format!(
                    "!llvm.struct<({})>",
                    vec![format!("i{width}"); vec].join(", ")
                )
            } else {
                format!("i{width}")
            };
            let loaded = self.e.op(&format!(
                "llvm.inline_asm has_side_effects \"{asm}\", \"{}\" {} : ({}) -> {result_ty}",
                constraints.join(","),
                operands.join(", "),
                operand_types.join(", ")
            ));
            for j in 0..vec {
                let raw = if vec > 1 {
                    self.e
                        .op(&format!("llvm.extractvalue {loaded}[{j}] : {result_ty}"))
                } else {
                    loaded.clone()
                };
                regs.push(self.from_bits(&raw, elem, bits, width, &lty));
            }
        }
        self.values.insert(key(outs[0]), regs);
        Ok(())
    }

    /// A value as the integer register the PTX instruction moves.
    fn to_bits(&mut self, value: &str, elem: MlirType, bits: u32) -> String {
        let (_, _, width) = asm_register(bits);
        let lty = llvm_type(elem);
        let as_int = if is_float(elem) {
            self.e
                .op(&format!("llvm.bitcast {value} : {lty} to i{bits}"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e.op(&format!("llvm.ptrtoint {value} : {lty} to i64"))
        } else {
            value.to_owned()
        };
        if width > bits {
            self.e
                .op(&format!("llvm.zext {as_int} : i{bits} to i{width}"))
        } else {
            as_int
        }
    }

    fn from_bits(&mut self, raw: &str, elem: MlirType, bits: u32, width: u32, lty: &str) -> String {
        let narrowed = if width > bits {
            self.e
                .op(&format!("llvm.trunc {raw} : i{width} to i{bits}"))
        } else {
            raw.to_owned()
        };
        if is_float(elem) {
            self.e
                .op(&format!("llvm.bitcast {narrowed} : i{bits} to {lty}"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e
                .op(&format!("llvm.inttoptr {narrowed} : i64 to {lty}"))
        } else {
            narrowed
        }
    }

    fn lower_store(&mut self, op: MlirOperation, ins: &[MlirValue]) -> LResult<()> {
        let ptr_type = value_type(ins[0]);
        if !is_tensor(ptr_type) && unsafe { !ffi::tritiumTypeIsPointer(ptr_type) } {
            return err(
                op,
                "block-pointer stores must be rewritten first (-triton-rewrite-tensor-pointer)",
            );
        }
        let (mask, _) = load_store_optionals(op, ins, 2);
        let elem = element_type(value_type(ins[1]));
        let bits = type_bits(elem);
        let ptrs = self.get(ins[0]);
        let values = self.get(ins[1]);
        let masks = mask.map(|m| self.get(m));
        let (map, count) = if is_tensor(ptr_type) {
            let map = self.thread_map(op, ptr_type)?;
            let n = map.num_registers();
            (Some(map), n)
        } else {
            (None, 1)
        };
        // Only one of the threads (and registers) holding the same element stores it.
        let first_copy = match &map {
            Some(map) => self.first_copy_predicate(map),
            None => {
                let zero = self.e.prologue_const(0, "i32");
                let tid_is_zero_lane = self
                    .e
                    .prologue_op(&format!("llvm.icmp \"eq\" {}, {zero} : i32", self.lane));
                let warp_zero = self
                    .e
                    .prologue_op(&format!("llvm.icmp \"eq\" {}, {zero} : i32", self.warp));
                Some(
                    self.e
                        .prologue_op(&format!("llvm.and {tid_is_zero_lane}, {warp_zero} : i1")),
                )
            }
        };
        let vec = match &map {
            Some(map) => self.vector_width(ins[0], mask, map, bits.max(8)),
            None => 1,
        };
        let (reg_type, constraint, width) = asm_register(bits);
        let cache = cache_suffix(op);
        for start in (0..count).step_by(vec) {
            if map.as_ref().is_some_and(|m| m.register_duplicate[start]) {
                continue;
            }
            let mut predicate = first_copy.clone();
            if let Some(m) = &masks {
                let mv = m[start.min(m.len() - 1)].clone();
                predicate = Some(match predicate {
                    Some(p) => self.e.op(&format!("llvm.and {p}, {mv} : i1")),
                    None => mv,
                });
            }
            let mut operands = Vec::new();
            let mut types = Vec::new();
            let mut constraints = Vec::new();
            let mut index = 0;
            let guard = if let Some(p) = &predicate {
                operands.push(p.clone());
                types.push("i1".to_owned());
                constraints.push("b".to_owned());
                index += 1;
                "@$0 ".to_owned()
            } else {
                String::new()
            };
            operands.push(ptrs[start.min(ptrs.len() - 1)].clone());
            types.push(llvm_type(element_type(ptr_type)));
            constraints.push("l".into());
            let ptr_index = index;
            index += 1;
            let mut srcs = Vec::new();
            for j in 0..vec {
                let v = values[(start + j).min(values.len() - 1)].clone();
                let b = self.to_bits(&v, elem, bits);
                operands.push(b);
                types.push(format!("i{width}"));
                constraints.push(constraint.to_owned());
                srcs.push(format!("${}", index + j));
            }
            let vector = if vec > 1 {
                format!(".v{vec}")
            } else {
                String::new()
            };
            let src_text = if vec > 1 {
                format!("{{ {} }}", srcs.join(", "))
            } else {
                srcs[0].clone()
            };
            self.e.line(&format!(
                "llvm.inline_asm has_side_effects \"{guard}st.global{cache}{vector}.{reg_type} [ ${ptr_index} + 0 ], {src_text};\", \"{}\" {} : ({}) -> ()",
                constraints.join(","),
                operands.join(", "),
                types.join(", ")
            ));
        }
        Ok(())
    }

    fn barrier(&mut self) {
        self.e
            .line("llvm.inline_asm has_side_effects \"bar.sync 0;\", \"\"  : () -> ()");
    }

    fn smem_base(&mut self) -> String {
        self.uses_shared = true;
        self.e.op("llvm.mlir.addressof @global_smem : !llvm.ptr<3>")
    }

    /// Address of element `index` (i32 SSA value) of a shared array of `lty`.
    fn smem_address(&mut self, base: &str, index: &str, lty: &str) -> String {
        self.e.op(&format!(
            "llvm.getelementptr {base}[{index}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, {lty}"
        ))
    }

    /// Storage type of a scalar in shared memory (i1 as i8, pointers as i64).
    fn smem_type(elem: MlirType) -> (String, u64) {
        let bits = type_bits(elem);
        if bits == 1 {
            ("i8".into(), 1)
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            ("i64".into(), 8)
        } else {
            (llvm_type(elem), (bits / 8) as u64)
        }
    }

    fn smem_store(&mut self, base: &str, index: &str, value: &str, elem: MlirType) {
        let (sty, _) = Self::smem_type(elem);
        let lty = llvm_type(elem);
        let stored = if type_bits(elem) == 1 {
            self.e.op(&format!("llvm.zext {value} : i1 to i8"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e.op(&format!("llvm.ptrtoint {value} : {lty} to i64"))
        } else {
            value.to_owned()
        };
        let address = self.smem_address(base, index, &sty);
        self.e.line(&format!(
            "llvm.store {stored}, {address} : {sty}, !llvm.ptr<3>"
        ));
    }

    fn smem_load(&mut self, base: &str, index: &str, elem: MlirType) -> String {
        let (sty, _) = Self::smem_type(elem);
        let lty = llvm_type(elem);
        let address = self.smem_address(base, index, &sty);
        let loaded = self
            .e
            .op(&format!("llvm.load {address} : !llvm.ptr<3> -> {sty}"));
        if type_bits(elem) == 1 {
            self.e.op(&format!("llvm.trunc {loaded} : i8 to i1"))
        } else if unsafe { ffi::tritiumTypeIsPointer(elem) } {
            self.e.op(&format!("llvm.inttoptr {loaded} : i64 to {lty}"))
        } else {
            loaded
        }
    }

    /// Row-major index (i32 SSA) of register `r` of `map` at this thread, via `coord_of` which maps
    /// a destination coordinate (runtime per-dim SSA values) to the source-shape coordinate.
    fn runtime_coord(&mut self, base: &[String], constant: &[u32]) -> Vec<String> {
        base.iter()
            .zip(constant)
            .map(|(b, &c)| {
                if c == 0 {
                    b.clone()
                } else {
                    let k = self.e.constant(c as i64, "i32");
                    self.e.op(&format!("llvm.xor {b}, {k} : i32"))
                }
            })
            .collect()
    }

    fn linear_index(&mut self, coord: &[String], dims: &[u32]) -> String {
        let mut index = self.e.constant(0, "i32");
        for (c, &d) in coord.iter().zip(dims) {
            let size = self.e.constant(d as i64, "i32");
            let scaled = self.e.op(&format!("llvm.mul {index}, {size} : i32"));
            index = self.e.op(&format!("llvm.add {scaled}, {c} : i32"));
        }
        index
    }

    /// Data movement between layouts/shapes: registers when every destination element is already
    /// in the same thread, else through shared memory.
    fn lower_movement(
        &mut self,
        op: MlirOperation,
        name: &str,
        src: MlirValue,
        dst: MlirValue,
    ) -> LResult<()> {
        let src_type = value_type(src);
        let dst_type = value_type(dst);
        let src_map = self.thread_map(op, src_type)?;
        let dst_map = self.thread_map(op, dst_type)?;
        let src_vals = self.get(src);
        let src_rank = src_map.shape.len();
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let order = i32_array(op, "order");
        if name == "tt.reshape"
            && unsafe {
                mlirOperationGetAttributeByName(op, sref("allow_reorder"))
                    .ptr
                    .is_null()
            } == false
        {
            // Any element order is allowed: keep registers as they are when the counts agree.
            if src_map.num_registers() == dst_map.num_registers() {
                self.values.insert(key(dst), src_vals);
                return Ok(());
            }
        }
        // Destination coordinate -> source coordinate, as a linear map where possible.
        let project = |coord: &[u32]| -> Option<Vec<u32>> {
            match name {
                "ttg.convert_layout" => Some(coord.to_vec()),
                "tt.broadcast" => Some(
                    coord
                        .iter()
                        .enumerate()
                        .map(|(d, &c)| if src_map.shape[d] == 1 { 0 } else { c })
                        .collect(),
                ),
                "tt.expand_dims" => Some(
                    coord
                        .iter()
                        .enumerate()
                        .filter(|(d, _)| *d != axis)
                        .map(|(_, &c)| c)
                        .collect(),
                ),
                "tt.trans" => Some(
                    (0..src_rank)
                        .map(|d| coord[order.iter().position(|&o| o as usize == d).unwrap_or(d)])
                        .collect(),
                ),
                _ => None,
            }
        };
        // Register path: lane and warp bases project onto the source's, and every destination
        // register's source element is some register of the same thread.
        let lanes_match = |dst_bases: &[Vec<u32>], src_bases: &[Vec<u32>]| {
            let n = dst_bases.len().max(src_bases.len());
            (0..n).all(|i| {
                let d = dst_bases
                    .get(i)
                    .and_then(|b| project(b))
                    .unwrap_or_else(|| vec![0; src_rank]);
                let s = src_bases
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| vec![0; src_rank]);
                d == s
            })
        };
        if name != "tt.reshape"
            && lanes_match(&dst_map.lane_bases, &src_map.lane_bases)
            && lanes_match(&dst_map.warp_bases, &src_map.warp_bases)
        {
            let by_coord: HashMap<Vec<u32>, usize> = src_map
                .registers
                .iter()
                .enumerate()
                .rev()
                .map(|(i, c)| (c.clone(), i))
                .collect();
            let mapped: Option<Vec<String>> = dst_map
                .registers
                .iter()
                .map(|c| {
                    project(c)
                        .and_then(|p| by_coord.get(&p))
                        .map(|&i| src_vals[i].clone())
                })
                .collect();
            if let Some(regs) = mapped {
                self.values.insert(key(dst), regs);
                return Ok(());
            }
        }
        // Shared-memory path: every thread writes what it holds, then reads what it needs.
        let elem = element_type(src_type);
        let (_, bytes) = Self::smem_type(elem);
        self.shared_bytes = self.shared_bytes.max(src_map.numel() * bytes);
        let src_base = self.thread_base(op, src_type)?;
        let dst_base = self.thread_base(op, dst_type)?;
        let base = self.smem_base();
        self.barrier();
        for (r, coord) in src_map.registers.iter().enumerate() {
            if src_map.register_duplicate[r] {
                continue;
            }
            let c = self.runtime_coord(&src_base, coord);
            let index = self.linear_index(&c, &src_map.shape);
            let value = src_vals[r].clone();
            self.smem_store(&base, &index, &value, elem);
        }
        self.barrier();
        let mut regs = Vec::new();
        for coord in dst_map.registers.clone() {
            let c = self.runtime_coord(&dst_base, &coord);
            let source = match name {
                "tt.reshape" => {
                    let index = self.linear_index(&c, &dst_map.shape);
                    regs.push(self.smem_load(&base, &index, elem));
                    continue;
                }
                "ttg.convert_layout" => c,
                "tt.broadcast" => c
                    .iter()
                    .enumerate()
                    .map(|(d, v)| {
                        if src_map.shape[d] == 1 {
                            self.e.constant(0, "i32")
                        } else {
                            v.clone()
                        }
                    })
                    .collect(),
                "tt.expand_dims" => c
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| *d != axis)
                    .map(|(_, v)| v.clone())
                    .collect(),
                "tt.trans" => (0..src_rank)
                    .map(|d| c[order.iter().position(|&o| o as usize == d).unwrap_or(d)].clone())
                    .collect(),
                _ => return err(op, format!("unsupported data movement '{name}'")),
            };
            let index = self.linear_index(&source, &src_map.shape);
            regs.push(self.smem_load(&base, &index, elem));
        }
        self.values.insert(key(dst), regs);
        Ok(())
    }

    /// Emits the combine region of a reduce/scan on scalars `a` and `b`; returns the results.
    fn combine(
        &mut self,
        region_op: MlirOperation,
        a: &[String],
        b: &[String],
    ) -> LResult<Vec<String>> {
        let block = blocks_of(region_op)[0];
        let args = block_args(block);
        for (i, arg) in args.iter().enumerate() {
            let v = if i < a.len() {
                a[i].clone()
            } else {
                b[i - a.len()].clone()
            };
            self.values.insert(key(*arg), vec![v]);
        }
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        let mut out = Vec::new();
        while !op.ptr.is_null() {
            let name = op_name(op);
            if name == "tt.reduce.return" || name == "tt.scan.return" {
                out = operands(op).iter().map(|v| self.scalar(*v)).collect();
            } else {
                self.lower_op(op)?;
            }
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Ok(out)
    }

    fn shuffle_xor(&mut self, value: &str, elem: MlirType, lane_mask: u32) -> String {
        let bits = type_bits(elem);
        let lty = llvm_type(elem);
        let mask = self.e.constant(lane_mask as i64, "i32");
        let shfl = |e: &mut Emitter, v: &str| {
            e.op(&format!(
            "llvm.inline_asm has_side_effects \"shfl.sync.bfly.b32 $0, $1, $2, 0x1f, 0xffffffff;\", \"=r,r,r\" {v}, {mask} : (i32, i32) -> i32"
        ))
        };
        if bits == 64 {
            let as_int = if is_float(elem) {
                self.e.op(&format!("llvm.bitcast {value} : {lty} to i64"))
            } else {
                value.to_owned()
            };
            let lo = self.e.op(&format!("llvm.trunc {as_int} : i64 to i32"));
            let shift = self.e.constant(32, "i64");
            let hi64 = self.e.op(&format!("llvm.lshr {as_int}, {shift} : i64"));
            let hi = self.e.op(&format!("llvm.trunc {hi64} : i64 to i32"));
            let lo_s = shfl(&mut self.e, &lo);
            let hi_s = shfl(&mut self.e, &hi);
            let lo_w = self.e.op(&format!("llvm.zext {lo_s} : i32 to i64"));
            let hi_w = self.e.op(&format!("llvm.zext {hi_s} : i32 to i64"));
            let hi_shift = self.e.op(&format!("llvm.shl {hi_w}, {shift} : i64"));
            let joined = self.e.op(&format!("llvm.or {hi_shift}, {lo_w} : i64"));
            return if is_float(elem) {
                self.e.op(&format!("llvm.bitcast {joined} : i64 to {lty}"))
            } else {
                joined
            };
        }
        let as_i32 = if is_float(elem) && bits == 32 {
            self.e.op(&format!("llvm.bitcast {value} : {lty} to i32"))
        } else if is_float(elem) {
            let i = self
                .e
                .op(&format!("llvm.bitcast {value} : {lty} to i{bits}"));
            self.e.op(&format!("llvm.zext {i} : i{bits} to i32"))
        } else if bits < 32 {
            self.e.op(&format!("llvm.zext {value} : i{bits} to i32"))
        } else {
            value.to_owned()
        };
        let s = shfl(&mut self.e, &as_i32);
        if is_float(elem) && bits == 32 {
            self.e.op(&format!("llvm.bitcast {s} : i32 to {lty}"))
        } else if is_float(elem) {
            let t = self.e.op(&format!("llvm.trunc {s} : i32 to i{bits}"));
            self.e.op(&format!("llvm.bitcast {t} : i{bits} to {lty}"))
        } else if bits < 32 {
            self.e.op(&format!("llvm.trunc {s} : i32 to i{bits}"))
        } else {
            s
        }
    }

    fn lower_reduce(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let axis = int_attr(op, "axis").unwrap_or(0) as usize;
        let src_type = value_type(ins[0]);
        let map = self.thread_map(op, src_type)?;
        let rank = map.shape.len();
        let elems: Vec<MlirType> = ins.iter().map(|v| element_type(value_type(*v))).collect();
        let inputs: Vec<Vec<String>> = ins.iter().map(|v| self.get(*v)).collect();
        // 1. Within the thread: combine registers with the same coordinates off the axis.
        let mut groups: Vec<(Vec<u32>, Vec<String>)> = Vec::new();
        for (r, coord) in map.registers.iter().enumerate() {
            if map.register_duplicate[r] {
                continue;
            }
            let mut off_axis = coord.clone();
            off_axis[axis] = 0;
            let values: Vec<String> = inputs.iter().map(|vals| vals[r].clone()).collect();
            match groups.iter().position(|(k, _)| *k == off_axis) {
                Some(g) => {
                    let acc = groups[g].1.clone();
                    groups[g].1 = self.combine(op, &acc, &values)?;
                }
                None => groups.push((off_axis, values)),
            }
        }
        // 2. Across lanes: butterfly over lane bits that move along the axis only.
        for (bit, basis) in map.lane_bases.iter().enumerate() {
            let along_axis =
                basis[axis] != 0 && basis.iter().enumerate().all(|(d, &c)| d == axis || c == 0);
            if !along_axis {
                continue;
            }
            for group in groups.iter_mut().map(|(_, v)| v) {
                let shuffled: Vec<String> = group
                    .clone()
                    .iter()
                    .zip(&elems)
                    .map(|(v, e)| self.shuffle_xor(v, *e, 1 << bit))
                    .collect();
                let acc = group.clone();
                *group = self.combine(op, &acc, &shuffled)?;
            }
        }
        let warp_axis_bits: Vec<usize> = map
            .warp_bases
            .iter()
            .enumerate()
            .filter(|(_, b)| b[axis] != 0)
            .map(|(i, _)| i)
            .collect();
        let lane_mixed = map
            .lane_bases
            .iter()
            .any(|b| b[axis] != 0 && b.iter().enumerate().any(|(d, &c)| d != axis && c != 0));
        if lane_mixed {
            return err(
                op,
                "reduction over a layout whose lanes mix the reduced and kept dimensions is not supported",
            );
        }
        if rank == 1 {
            // The whole tensor reduces to one scalar per operand; every thread gets it.
            let mut values = groups
                .into_iter()
                .next()
                .map(|(_, v)| v)
                .unwrap_or_default();
            if !warp_axis_bits.is_empty() {
                let warps = 1u32 << warp_axis_bits.len();
                let base = self.smem_base();
                let mut offset_elems = 0u64;
                let mut slot_bases = Vec::new();
                for elem in &elems {
                    let (_, bytes) = Self::smem_type(*elem);
                    // Each operand gets its own 16-byte aligned region.
                    let start_bytes = (offset_elems).div_ceil(16) * 16;
                    slot_bases.push(start_bytes);
                    offset_elems = start_bytes + warps as u64 * bytes;
                }
                self.shared_bytes = self.shared_bytes.max(offset_elems);
                self.barrier();
                // Warp index along the axis (compact over the axis warp bits).
                let warp_index = self.compact_bits(&self.warp.clone(), &warp_axis_bits);
                for (i, elem) in elems.iter().enumerate() {
                    let region = self.region_base(&base, slot_bases[i]);
                    self.smem_store(&region, &warp_index, &values[i].clone(), *elem);
                }
                self.barrier();
                let mut acc: Option<Vec<String>> = None;
                for w in 0..warps {
                    let index = self.e.constant(w as i64, "i32");
                    let loaded: Vec<String> = elems
                        .iter()
                        .enumerate()
                        .map(|(i, elem)| {
                            let region = self.region_base(&base, slot_bases[i]);
                            self.smem_load(&region, &index, *elem)
                        })
                        .collect();
                    acc = Some(match acc {
                        None => loaded,
                        Some(prev) => self.combine(op, &prev, &loaded)?,
                    });
                }
                values = acc.unwrap_or_default();
            }
            for (i, out) in outs.iter().enumerate() {
                self.values.insert(key(*out), vec![values[i].clone()]);
            }
            return Ok(());
        }
        // Rank >= 2: partials go through shared memory indexed by (warp along axis, output element).
        let out_type = value_type(outs[0]);
        let out_map = self.thread_map(op, out_type)?;
        let warps = 1u64 << warp_axis_bits.len();
        let out_numel = out_map.numel();
        let base = self.smem_base();
        let mut slot_bases = Vec::new();
        let mut total = 0u64;
        for elem in &elems {
            let (_, bytes) = Self::smem_type(*elem);
            let start = total.div_ceil(16) * 16;
            slot_bases.push(start);
            total = start + warps * out_numel * bytes;
        }
        self.shared_bytes = self.shared_bytes.max(total);
        let src_base = self.thread_base(op, src_type)?;
        self.barrier();
        let warp_index = if warp_axis_bits.is_empty() {
            self.e.constant(0, "i32")
        } else {
            self.compact_bits(&self.warp.clone(), &warp_axis_bits)
        };
        let out_dims = out_map.shape.clone();
        for (coord, values) in groups.clone() {
            let c = self.runtime_coord(&src_base, &coord);
            let kept: Vec<String> = c
                .iter()
                .enumerate()
                .filter(|(d, _)| *d != axis)
                .map(|(_, v)| v.clone())
                .collect();
            let inner = self.linear_index(&kept, &out_dims);
            let numel = self.e.constant(out_numel as i64, "i32");
            let row = self.e.op(&format!("llvm.mul {warp_index}, {numel} : i32"));
            let index = self.e.op(&format!("llvm.add {row}, {inner} : i32"));
            for (i, elem) in elems.iter().enumerate() {
                let region = self.region_base(&base, slot_bases[i]);
                self.smem_store(&region, &index, &values[i], *elem);
            }
        }
        self.barrier();
        let out_base = self.thread_base(op, out_type)?;
        let mut per_output: Vec<Vec<String>> = vec![Vec::new(); outs.len()];
        for coord in out_map.registers.clone() {
            let c = self.runtime_coord(&out_base, &coord);
            let inner = self.linear_index(&c, &out_dims);
            let mut acc: Option<Vec<String>> = None;
            for w in 0..warps {
                let offset = self.e.constant((w * out_numel) as i64, "i32");
                let index = self.e.op(&format!("llvm.add {inner}, {offset} : i32"));
                let loaded: Vec<String> = elems
                    .iter()
                    .enumerate()
                    .map(|(i, elem)| {
                        let region = self.region_base(&base, slot_bases[i]);
                        self.smem_load(&region, &index, *elem)
                    })
                    .collect();
                acc = Some(match acc {
                    None => loaded,
                    Some(prev) => self.combine(op, &prev, &loaded)?,
                });
            }
            for (i, v) in acc.unwrap_or_default().into_iter().enumerate() {
                per_output[i].push(v);
            }
        }
        for (i, out) in outs.iter().enumerate() {
            self.values.insert(key(*out), per_output[i].clone());
        }
        Ok(())
    }

    /// `d = a * b + c` with FMAs: A and B are staged in shared memory from their (any) source
    /// layout; each thread then walks K, loading the A rows and B columns of its own C elements.
    fn lower_dot(
        &mut self,
        op: MlirOperation,
        ins: &[MlirValue],
        outs: &[MlirValue],
    ) -> LResult<()> {
        let c_type = value_type(ins[2]);
        let c_map = self.thread_map(op, c_type)?;
        if c_map.shape.len() != 2 {
            return err(
                op,
                "batched (rank-3) tt.dot is not supported by the FMA lowering yet",
            );
        }
        let (m, n) = (c_map.shape[0] as u64, c_map.shape[1] as u64);
        let mut staged = Vec::new();
        let mut offset = 0u64;
        for operand in &ins[..2] {
            let source = defining_op(*operand)
                .filter(|d| op_name(*d) == "ttg.convert_layout")
                .map(|d| operands(d)[0])
                .unwrap_or(*operand);
            let ty = value_type(source);
            let elem = element_type(ty);
            let (_, bytes) = Self::smem_type(elem);
            let numel: u64 = shape(ty).iter().product::<i64>() as u64;
            let start = offset.div_ceil(16) * 16;
            offset = start + numel * bytes;
            staged.push((source, ty, elem, start));
        }
        let k = shape(staged[0].1)[1] as u64;
        self.shared_bytes = self.shared_bytes.max(offset);
        let base = self.smem_base();
        self.barrier();
        for (source, ty, elem, start) in &staged {
            let map = self.thread_map(op, *ty)?;
            let thread = self.thread_base(op, *ty)?;
            let region = self.region_base(&base, *start);
            let values = self.get(*source);
            for (r, coord) in map.registers.iter().enumerate() {
                if map.register_duplicate[r] {
                    continue;
                }
                let c = self.runtime_coord(&thread, coord);
                let index = self.linear_index(&c, &map.shape);
                self.smem_store(&region, &index, &values[r], *elem);
            }
        }
        self.barrier();
        // The rows and columns this thread's C registers need.
        let c_base = self.thread_base(op, c_type)?;
        let mut rows: Vec<u32> = c_map.registers.iter().map(|c| c[0]).collect();
        rows.sort_unstable();
        rows.dedup();
        let mut cols: Vec<u32> = c_map.registers.iter().map(|c| c[1]).collect();
        cols.sort_unstable();
        cols.dedup();
        let acc_type = element_type(c_type);
        let acc_lty = llvm_type(acc_type);
        let init = self.get(ins[2]);
        let count = init.len();
        let lb = self.e.constant(0, "i32");
        let ub = self.e.constant(k as i64, "i32");
        let step = self.e.constant(1, "i32");
        let iv = self.e.fresh();
        let args: Vec<String> = (0..count).map(|_| self.e.fresh()).collect();
        let result = self.e.fresh_raw();
        let iter_args: Vec<String> = args
            .iter()
            .zip(&init)
            .map(|(a, i)| format!("{a} = {i}"))
            .collect();
        self.e.open(&format!(
            "%r{result}:{count} = scf.for {iv} = {lb} to {ub} step {step} iter_args({}) -> ({}) : i32 {{",
            iter_args.join(", "),
            vec![acc_lty.clone(); count].join(", ")
        ));
        let a_region = self.region_base(&base, staged[0].3);
        let b_region = self.region_base(&base, staged[1].3);
        let k_const = self.e.constant(k as i64, "i32");
        let n_const = self.e.constant(n as i64, "i32");
        let mut a_values = HashMap::new();
        for &row in &rows {
            let r = self.runtime_coord(&c_base[..1], &[row])[0].clone();
            let scaled = self.e.op(&format!("llvm.mul {r}, {k_const} : i32"));
            let index = self.e.op(&format!("llvm.add {scaled}, {iv} : i32"));
            let v = self.smem_load(&a_region, &index, staged[0].2);
            a_values.insert(row, self.to_accumulator(&v, staged[0].2, acc_type));
        }
        let mut b_values = HashMap::new();
        for &col in &cols {
            let c = self.runtime_coord(&c_base[1..], &[col])[0].clone();
            let scaled = self.e.op(&format!("llvm.mul {iv}, {n_const} : i32"));
            let index = self.e.op(&format!("llvm.add {scaled}, {c} : i32"));
            let v = self.smem_load(&b_region, &index, staged[1].2);
            b_values.insert(col, self.to_accumulator(&v, staged[1].2, acc_type));
        }
        let mut next = Vec::new();
        for (r, coord) in c_map.registers.iter().enumerate() {
            let (a, b) = (&a_values[&coord[0]], &b_values[&coord[1]]);
            let acc = &args[r];
            next.push(if is_float(acc_type) {
                self.e.op(&format!("llvm.intr.fma({a}, {b}, {acc}) : ({acc_lty}, {acc_lty}, {acc_lty}) -> {acc_lty}"))
            } else {
                let p = self.e.op(&format!("llvm.mul {a}, {b} : {acc_lty}"));
                self.e.op(&format!("llvm.add {p}, {acc} : {acc_lty}"))
            });
        }
        self.e.line(&format!(
            "scf.yield {} : {}",
            next.join(", "),
            vec![acc_lty.clone(); count].join(", ")
        ));
        self.e.close();
        let _ = m;
        let out: Vec<String> = (0..count).map(|i| format!("%r{result}#{i}")).collect();
        self.values.insert(key(outs[0]), out);
        Ok(())
    }

    /// An operand element widened to the accumulator type.
    fn to_accumulator(&mut self, value: &str, from: MlirType, to: MlirType) -> String {
        let (fb, tb) = (type_bits(from), type_bits(to));
        let (fl, tl) = (llvm_type(from), llvm_type(to));
        if unsafe { mlirTypeEqual(from, to) } {
            value.to_owned()
        } else if is_float(from) && is_float(to) && fb < tb {
            self.e.op(&format!("llvm.fpext {value} : {fl} to {tl}"))
        } else if is_float(from) && is_float(to) {
            self.e.op(&format!("llvm.fptrunc {value} : {fl} to {tl}"))
        } else if !is_float(from) && !is_float(to) && fb < tb {
            self.e.op(&format!("llvm.sext {value} : {fl} to {tl}"))
        } else if !is_float(from) && is_float(to) {
            self.e.op(&format!("llvm.sitofp {value} : {fl} to {tl}"))
        } else {
            value.to_owned()
        }
    }

    fn region_base(&mut self, base: &str, byte_offset: u64) -> String {
        if byte_offset == 0 {
            return base.to_owned();
        }
        let offset = self.e.constant(byte_offset as i64, "i32");
        self.e.op(&format!(
            "llvm.getelementptr {base}[{offset}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8"
        ))
    }

    /// Gathers the given bits of `value` into a compact integer (bit i of the result = bit bits[i]).
    fn compact_bits(&mut self, value: &str, bits: &[usize]) -> String {
        let mut acc = self.e.constant(0, "i32");
        for (i, &bit) in bits.iter().enumerate() {
            let shift = self.e.constant(bit as i64, "i32");
            let one = self.e.constant(1, "i32");
            let s = self.e.op(&format!("llvm.lshr {value}, {shift} : i32"));
            let b = self.e.op(&format!("llvm.and {s}, {one} : i32"));
            let place = self.e.constant(i as i64, "i32");
            let p = self.e.op(&format!("llvm.shl {b}, {place} : i32"));
            acc = self.e.op(&format!("llvm.or {acc}, {p} : i32"));
        }
        acc
    }

    fn flat_types(&mut self, op: MlirOperation, values: &[MlirValue]) -> LResult<Vec<String>> {
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

    fn lower_for(
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

    fn lower_if(
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

/// A conversion into a dot-operand layout whose users are all `tt.dot`.
fn is_dot_operand_feed(op: MlirOperation) -> bool {
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

fn sref(text: &str) -> MlirStringRef {
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    MlirStringRef {
        data: leaked.as_ptr() as *const _,
        length: leaked.len(),
    }
}

fn i32_array(op: MlirOperation, name: &str) -> Vec<i32> {
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

/// `(mask, other)` of a load (`first_optional` = 1) or `(mask, None)` of a store (2).
fn load_store_optionals(
    op: MlirOperation,
    ins: &[MlirValue],
    first_optional: usize,
) -> (Option<MlirValue>, Option<MlirValue>) {
    // operandSegmentSizes tells which optional operands are present for loads; stores have at most a mask.
    let mask = ins.get(first_optional).copied();
    let other = if first_optional == 1 {
        ins.get(2).copied()
    } else {
        None
    };
    let _ = op;
    (mask, other)
}

/// PTX register class for a scalar of `bits`: (type suffix, constraint letter, register width).
fn asm_register(bits: u32) -> (&'static str, &'static str, u32) {
    match bits {
        64 => ("b64", "l", 64),
        32 => ("b32", "r", 32),
        16 => ("b16", "h", 16),
        _ => ("b8", "h", 16),
    }
}

fn cache_suffix(op: MlirOperation) -> String {
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

/// `<{name = value, ...}>` of an op's attributes (for the generic form of scalar ops).
fn inherent_attrs_text(op: MlirOperation) -> String {
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
