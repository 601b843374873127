//! Typed construction of LLVM-dialect (and scalar `arith`/`math`/`scf`/`nvvm`) ops through the
//! MLIR C API: one method per op, operands as [`Value`]s, types and attributes made by their C
//! constructors. Nothing here prints or parses IR.
//!
//! A [`Builder`] inserts at one point of one block (the end of a block, or before an op) and
//! keeps a second point, the *prologue*, at the top of the function's entry block, for values
//! every later op may use (thread ids, layout bases).

use mlir_sys::*;
pub use tritium_dialects::attrs::ContextAttrs;
use tritium_dialects::ffi::str_ref;

/// One SSA value of the lowered IR.
pub type Value = MlirValue;

/// Where new ops go: appended to `block`, or inserted before `before`.
#[derive(Clone, Copy)]
pub struct InsertPoint {
    block: MlirBlock,
    before: Option<MlirOperation>,
}

/// `llvm.icmp` predicates (the values of LLVM's `ICmpPredicate` enum attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntPredicate {
    Eq = 0,
    Ne = 1,
    Slt = 2,
    Sle = 3,
    Sgt = 4,
    Sge = 5,
    Ult = 6,
    Ule = 7,
    Ugt = 8,
    Uge = 9,
}

/// `llvm.fcmp` predicates (the values of LLVM's `FCmpPredicate` enum attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatPredicate {
    Oeq = 1,
    Ogt = 2,
    Oge = 3,
    Olt = 4,
    Ole = 5,
    One = 6,
    Ord = 7,
    Ueq = 8,
    Ugt = 9,
    Uge = 10,
    Ult = 11,
    Ule = 12,
    Une = 13,
    Uno = 14,
}

/// Two-operand integer and float LLVM instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

impl BinOp {
    fn name(self) -> &'static str {
        match self {
            BinOp::Add => "llvm.add",
            BinOp::Sub => "llvm.sub",
            BinOp::Mul => "llvm.mul",
            BinOp::UDiv => "llvm.udiv",
            BinOp::SDiv => "llvm.sdiv",
            BinOp::URem => "llvm.urem",
            BinOp::SRem => "llvm.srem",
            BinOp::And => "llvm.and",
            BinOp::Or => "llvm.or",
            BinOp::Xor => "llvm.xor",
            BinOp::Shl => "llvm.shl",
            BinOp::LShr => "llvm.lshr",
            BinOp::AShr => "llvm.ashr",
            BinOp::FAdd => "llvm.fadd",
            BinOp::FSub => "llvm.fsub",
            BinOp::FMul => "llvm.fmul",
            BinOp::FDiv => "llvm.fdiv",
            BinOp::FRem => "llvm.frem",
        }
    }
}

/// LLVM conversion instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastOp {
    Bitcast,
    ZExt,
    SExt,
    Trunc,
    FpExt,
    FpTrunc,
    SiToFp,
    UiToFp,
    FpToSi,
    FpToUi,
    PtrToInt,
    IntToPtr,
    AddrSpaceCast,
}

impl CastOp {
    fn name(self) -> &'static str {
        match self {
            CastOp::Bitcast => "llvm.bitcast",
            CastOp::ZExt => "llvm.zext",
            CastOp::SExt => "llvm.sext",
            CastOp::Trunc => "llvm.trunc",
            CastOp::FpExt => "llvm.fpext",
            CastOp::FpTrunc => "llvm.fptrunc",
            CastOp::SiToFp => "llvm.sitofp",
            CastOp::UiToFp => "llvm.uitofp",
            CastOp::FpToSi => "llvm.fptosi",
            CastOp::FpToUi => "llvm.fptoui",
            CastOp::PtrToInt => "llvm.ptrtoint",
            CastOp::IntToPtr => "llvm.inttoptr",
            CastOp::AddrSpaceCast => "llvm.addrspacecast",
        }
    }
}

/// LLVM intrinsics whose result has the type of their first operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    Fma,
    FAbs,
    Sqrt,
    RoundEven,
    Round,
    Rint,
    Floor,
    Ceil,
    Trunc,
    MinNum,
    MaxNum,
    Minimum,
    Maximum,
    CopySign,
    SMin,
    SMax,
    UMin,
    UMax,
    CtPop,
}

impl Intrinsic {
    fn name(self) -> &'static str {
        match self {
            Intrinsic::Fma => "llvm.intr.fma",
            Intrinsic::FAbs => "llvm.intr.fabs",
            Intrinsic::Sqrt => "llvm.intr.sqrt",
            Intrinsic::RoundEven => "llvm.intr.roundeven",
            Intrinsic::Round => "llvm.intr.round",
            Intrinsic::Rint => "llvm.intr.rint",
            Intrinsic::Floor => "llvm.intr.floor",
            Intrinsic::Ceil => "llvm.intr.ceil",
            Intrinsic::Trunc => "llvm.intr.trunc",
            Intrinsic::MinNum => "llvm.intr.minnum",
            Intrinsic::MaxNum => "llvm.intr.maxnum",
            Intrinsic::Minimum => "llvm.intr.minimum",
            Intrinsic::Maximum => "llvm.intr.maximum",
            Intrinsic::CopySign => "llvm.intr.copysign",
            Intrinsic::SMin => "llvm.intr.smin",
            Intrinsic::SMax => "llvm.intr.smax",
            Intrinsic::UMin => "llvm.intr.umin",
            Intrinsic::UMax => "llvm.intr.umax",
            Intrinsic::CtPop => "llvm.intr.ctpop",
        }
    }
}

/// `llvm.atomicrmw` operations (LLVM's `AtomicBinOp` enum attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicBinOp {
    Xchg = 0,
    Add = 1,
    Sub = 2,
    And = 3,
    Nand = 4,
    Or = 5,
    Xor = 6,
    Max = 7,
    Min = 8,
    UMax = 9,
    UMin = 10,
    FAdd = 11,
}

/// LLVM's `AtomicOrdering` enum attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOrdering {
    Monotonic = 2,
    Acquire = 4,
    Release = 5,
    AcqRel = 6,
    SeqCst = 7,
}

/// The typed op builder. Cheap to copy state out of and back (see [`Builder::save`]).
pub struct Builder {
    pub ctx: MlirContext,
    /// Location given to every op created (the TTGIR op being lowered).
    pub loc: MlirLocation,
    point: InsertPoint,
    prologue: Option<InsertPoint>,
    /// LLVM-dialect ops made so far (what LLVM's time on the function grows with).
    pub ops_created: usize,
}

impl ContextAttrs for Builder {
    fn context(&self) -> MlirContext {
        self.ctx
    }
}

impl Builder {
    /// A builder appending to `block`.
    pub fn at_end(ctx: MlirContext, loc: MlirLocation, block: MlirBlock) -> Builder {
        Builder {
            ctx,
            loc,
            point: InsertPoint {
                block,
                before: None,
            },
            prologue: None,
            ops_created: 0,
        }
    }

    /// The current insertion point, to restore with [`Builder::restore`].
    pub fn save(&self) -> InsertPoint {
        self.point
    }

    pub fn restore(&mut self, point: InsertPoint) {
        self.point = point;
    }

    /// Inserts at the end of `block` from now on.
    pub fn set_end(&mut self, block: MlirBlock) {
        self.point = InsertPoint {
            block,
            before: None,
        };
    }

    /// Inserts before `op` from now on.
    pub fn set_before(&mut self, op: MlirOperation) {
        // SAFETY: `op` is a live operation; its block is where it sits.
        let block = unsafe { mlirOperationGetBlock(op) };
        self.point = InsertPoint {
            block,
            before: Some(op),
        };
    }

    /// Makes the current insertion point the prologue: later [`Builder::in_prologue`] ops go
    /// there, ahead of everything built at the (moving) main point.
    pub fn mark_prologue(&mut self, anchor: MlirOperation) {
        // SAFETY: `anchor` is a live operation in a block.
        let block = unsafe { mlirOperationGetBlock(anchor) };
        self.prologue = Some(InsertPoint {
            block,
            before: Some(anchor),
        });
    }

    /// The block new ops are inserted into.
    pub fn block(&self) -> MlirBlock {
        self.point.block
    }

    fn insert(&self, point: InsertPoint, op: MlirOperation) {
        // SAFETY: `op` was just created and is owned by no block; `point.block` is live and
        // `before`, when set, is an op of that block.
        unsafe {
            match point.before {
                Some(before) => mlirBlockInsertOwnedOperationBefore(point.block, before, op),
                None => mlirBlockAppendOwnedOperation(point.block, op),
            }
        }
    }

    /// Creates `name` with the given operands, result types, attributes and regions, at the
    /// insertion point. The one place ops are made; every typed method below calls it.
    pub fn create(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
        regions: Vec<MlirRegion>,
    ) -> MlirOperation {
        let op = self.make(name, operands, results, attributes, regions);
        self.insert(self.point, op);
        self.ops_created += 1;
        op
    }

    /// [`Builder::create`] at the prologue point (the main point when there is no prologue).
    pub fn create_in_prologue(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
    ) -> MlirOperation {
        let op = self.make(name, operands, results, attributes, Vec::new());
        self.insert(self.prologue.unwrap_or(self.point), op);
        self.ops_created += 1;
        op
    }

    fn make(
        &self,
        name: &str,
        operands: &[Value],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
        mut regions: Vec<MlirRegion>,
    ) -> MlirOperation {
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(key, attr)| MlirNamedAttribute {
                // SAFETY: the context is live; identifiers are uniqued in it.
                name: unsafe { mlirIdentifierGet(self.ctx, str_ref(key)) },
                attribute: *attr,
            })
            .collect();
        // SAFETY: the state borrows `name` and the slices only until mlirOperationCreate
        // returns; regions are moved into the new op (ownership passes to it).
        unsafe {
            let mut state = mlirOperationStateGet(str_ref(name), self.loc);
            if !operands.is_empty() {
                mlirOperationStateAddOperands(
                    &mut state,
                    operands.len() as isize,
                    operands.as_ptr(),
                );
            }
            if !results.is_empty() {
                mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
            }
            if !named.is_empty() {
                mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            }
            if !regions.is_empty() {
                mlirOperationStateAddOwnedRegions(
                    &mut state,
                    regions.len() as isize,
                    regions.as_mut_ptr(),
                );
            }
            mlirOperationCreate(&mut state)
        }
    }

    /// The first result of a just-built op (which has one: a caller asking for the result of an
    /// op without results is a bug, and panics).
    pub fn result(op: MlirOperation) -> Value {
        // SAFETY: `op` is live, and result 0 exists (checked first).
        unsafe {
            assert!(
                mlirOperationGetNumResults(op) > 0,
                "Builder::result of an op without results"
            );
            mlirOperationGetResult(op, 0)
        }
    }

    fn one(
        &mut self,
        name: &str,
        operands: &[Value],
        result: MlirType,
        attributes: &[(&str, MlirAttribute)],
    ) -> Value {
        let op = self.create(name, operands, &[result], attributes, Vec::new());
        Builder::result(op)
    }

    // ----- types -----

    pub fn int_type(&self, bits: u32) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirIntegerTypeGet(self.ctx, bits) }
    }
    pub fn i1(&self) -> MlirType {
        self.int_type(1)
    }
    pub fn i8(&self) -> MlirType {
        self.int_type(8)
    }
    pub fn i16(&self) -> MlirType {
        self.int_type(16)
    }
    pub fn i32(&self) -> MlirType {
        self.int_type(32)
    }
    pub fn i64(&self) -> MlirType {
        self.int_type(64)
    }
    pub fn f16(&self) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirF16TypeGet(self.ctx) }
    }
    pub fn bf16(&self) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirBF16TypeGet(self.ctx) }
    }
    pub fn f32(&self) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirF32TypeGet(self.ctx) }
    }
    pub fn f64(&self) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirF64TypeGet(self.ctx) }
    }
    /// `!llvm.ptr<space>`.
    pub fn ptr_type(&self, space: u32) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirLLVMPointerTypeGet(self.ctx, space) }
    }
    /// `!llvm.struct<(fields...)>`.
    pub fn struct_type(&self, fields: &[MlirType]) -> MlirType {
        // SAFETY: the context is live; `fields` outlives the call.
        unsafe {
            mlirLLVMStructTypeLiteralGet(self.ctx, fields.len() as isize, fields.as_ptr(), false)
        }
    }
    /// `vector<n x element>`.
    pub fn vector_type(&self, element: MlirType, n: u32) -> MlirType {
        let shape = [n as i64];
        // SAFETY: a valid element type; `shape` outlives the call.
        unsafe { mlirVectorTypeGet(1, shape.as_ptr(), element) }
    }
    /// `!llvm.array<n x element>`.
    pub fn array_type(&self, element: MlirType, n: u32) -> MlirType {
        // SAFETY: a valid element type.
        unsafe { mlirLLVMArrayTypeGet(element, n) }
    }
    pub fn void_type(&self) -> MlirType {
        // SAFETY: the context is live.
        unsafe { mlirLLVMVoidTypeGet(self.ctx) }
    }
    /// `!llvm.func<result (params...)>`.
    pub fn func_type(&self, result: MlirType, params: &[MlirType], variadic: bool) -> MlirType {
        // SAFETY: valid types; `params` outlives the call.
        unsafe { mlirLLVMFunctionTypeGet(result, params.len() as isize, params.as_ptr(), variadic) }
    }

    // ----- attributes -----

    /// `#llvm.linkage<internal>` / `<external>`.
    pub fn linkage(&self, internal: bool) -> MlirAttribute {
        let kind = if internal {
            MlirLLVMLinkage_MlirLLVMLinkageInternal
        } else {
            MlirLLVMLinkage_MlirLLVMLinkageExternal
        };
        // SAFETY: the context is live; `kind` is a valid linkage.
        unsafe { mlirLLVMLinkageAttrGet(self.ctx, kind) }
    }

    // ----- constants -----

    /// `llvm.mlir.constant` of an integer type.
    pub fn const_int(&mut self, ty: MlirType, value: i64) -> Value {
        let attr = self.int_attr(ty, value);
        self.one("llvm.mlir.constant", &[], ty, &[("value", attr)])
    }
    pub fn const_i32(&mut self, value: i64) -> Value {
        let ty = self.i32();
        self.const_int(ty, value)
    }
    pub fn const_i64(&mut self, value: i64) -> Value {
        let ty = self.i64();
        self.const_int(ty, value)
    }
    pub fn const_bool(&mut self, value: bool) -> Value {
        let ty = self.i1();
        self.const_int(ty, value as i64)
    }
    /// `llvm.mlir.constant` of a float type.
    pub fn const_float(&mut self, ty: MlirType, value: f64) -> Value {
        let attr = self.float_attr(ty, value);
        self.one("llvm.mlir.constant", &[], ty, &[("value", attr)])
    }
    pub fn const_f32(&mut self, value: f32) -> Value {
        let ty = self.f32();
        self.const_float(ty, value as f64)
    }
    pub fn const_f64(&mut self, value: f64) -> Value {
        let ty = self.f64();
        self.const_float(ty, value)
    }
    /// `llvm.mlir.constant` holding an attribute as is (integer or float of `ty`).
    pub fn const_attr(&mut self, ty: MlirType, value: MlirAttribute) -> Value {
        self.one("llvm.mlir.constant", &[], ty, &[("value", value)])
    }
    /// An i32 constant in the prologue.
    pub fn prologue_i32(&mut self, value: i64) -> Value {
        let ty = self.i32();
        let attr = self.int_attr(ty, value);
        let op = self.create_in_prologue("llvm.mlir.constant", &[], &[ty], &[("value", attr)]);
        Builder::result(op)
    }
    pub fn undef(&mut self, ty: MlirType) -> Value {
        self.one("llvm.mlir.undef", &[], ty, &[])
    }
    pub fn poison(&mut self, ty: MlirType) -> Value {
        self.one("llvm.mlir.poison", &[], ty, &[])
    }
    pub fn zero(&mut self, ty: MlirType) -> Value {
        self.one("llvm.mlir.zero", &[], ty, &[])
    }

    // ----- arithmetic -----

    pub fn bin(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let ty = type_of(a);
        self.one(op.name(), &[a, b], ty, &[])
    }
    /// A two-operand op built in the prologue.
    pub fn prologue_bin(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let ty = type_of(a);
        Builder::result(self.create_in_prologue(op.name(), &[a, b], &[ty], &[]))
    }
    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::Add, a, b)
    }
    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::Sub, a, b)
    }
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::Mul, a, b)
    }
    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::And, a, b)
    }
    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::Or, a, b)
    }
    pub fn xor(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::Xor, a, b)
    }
    pub fn shl(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::Shl, a, b)
    }
    pub fn lshr(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::LShr, a, b)
    }
    pub fn ashr(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::AShr, a, b)
    }
    pub fn udiv(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::UDiv, a, b)
    }
    pub fn urem(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::URem, a, b)
    }
    pub fn fadd(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::FAdd, a, b)
    }
    pub fn fsub(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::FSub, a, b)
    }
    pub fn fmul(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::FMul, a, b)
    }
    /// `a·b` as `arith.mulf` with `fastmath<contract>` (MLIR's arith conversion makes it an
    /// `llvm.fmul` with the flag): LLVM may fuse it into a following contractable add.
    pub fn fmul_contractable(&mut self, a: Value, b: Value) -> Value {
        let contract = self.arith_fastmath(true);
        let ty = type_of(a);
        self.one("arith.mulf", &[a, b], ty, &[("fastmath", contract)])
    }
    /// `#arith.fastmath<contract>`, or `<none>` without `contract`.
    pub fn arith_fastmath(&self, contract: bool) -> MlirAttribute {
        // SAFETY: the context is live; 0 and 32 are arith's FastMathFlags `none` and `contract`.
        unsafe {
            tritium_dialects::ffi::tritiumArithFastMathAttrGet(
                self.ctx,
                if contract { 32 } else { 0 },
            )
        }
    }
    pub fn fdiv(&mut self, a: Value, b: Value) -> Value {
        self.bin(BinOp::FDiv, a, b)
    }
    pub fn fneg(&mut self, a: Value) -> Value {
        let ty = type_of(a);
        self.one("llvm.fneg", &[a], ty, &[])
    }
    /// `a op constant` for an integer `a`.
    pub fn bin_imm(&mut self, op: BinOp, a: Value, imm: i64) -> Value {
        let ty = type_of(a);
        let c = self.const_int(ty, imm);
        self.bin(op, a, c)
    }

    pub fn icmp(&mut self, predicate: IntPredicate, a: Value, b: Value) -> Value {
        let attr = self.i64_attr(predicate as i64);
        let ty = self.i1();
        self.one("llvm.icmp", &[a, b], ty, &[("predicate", attr)])
    }
    pub fn fcmp(&mut self, predicate: FloatPredicate, a: Value, b: Value) -> Value {
        let attr = self.i64_attr(predicate as i64);
        let ty = self.i1();
        self.one("llvm.fcmp", &[a, b], ty, &[("predicate", attr)])
    }
    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = type_of(a);
        self.one("llvm.select", &[cond, a, b], ty, &[])
    }
    /// A conversion; the value itself when it already has type `to`.
    pub fn cast(&mut self, op: CastOp, value: Value, to: MlirType) -> Value {
        if type_equal(type_of(value), to) {
            return value;
        }
        self.one(op.name(), &[value], to, &[])
    }
    pub fn bitcast(&mut self, value: Value, to: MlirType) -> Value {
        self.cast(CastOp::Bitcast, value, to)
    }
    pub fn zext(&mut self, value: Value, to: MlirType) -> Value {
        self.cast(CastOp::ZExt, value, to)
    }
    pub fn sext(&mut self, value: Value, to: MlirType) -> Value {
        self.cast(CastOp::SExt, value, to)
    }
    pub fn trunc(&mut self, value: Value, to: MlirType) -> Value {
        self.cast(CastOp::Trunc, value, to)
    }
    /// The high half of the full product of two integers of one type (`mul.hi.{s,u}N`), as
    /// plain LLVM (widen, multiply, shift, narrow): NVPTX selects it as one `mul.hi`, and LLVM's
    /// folds see through it, which they cannot through inline asm (dropout's Philox: the
    /// first round's `lo(A·(x|i))` become `lo(A·x) + i·A` once the `mul.hi` beside them is
    /// ordinary IR, as with Triton's intrinsic).
    pub fn mul_high(&mut self, a: Value, b: Value, signed: bool) -> Value {
        let ty = type_of(a);
        // SAFETY: a type query on a live integer type.
        let bits = unsafe { mlirIntegerTypeGetWidth(ty) };
        let wide = self.int_type(2 * bits);
        let (x, y) = if signed {
            (self.sext(a, wide), self.sext(b, wide))
        } else {
            (self.zext(a, wide), self.zext(b, wide))
        };
        let product = self.mul(x, y);
        let high = self.bin_imm(BinOp::LShr, product, i64::from(bits));
        self.trunc(high, ty)
    }
    /// An intrinsic whose result type is its first operand's.
    pub fn intr(&mut self, intrinsic: Intrinsic, args: &[Value]) -> Value {
        let ty = type_of(args[0]);
        self.one(intrinsic.name(), args, ty, &[])
    }
    /// `llvm.call_intrinsic` of the LLVM intrinsic `name` (its attributes, such as `convergent`,
    /// come from LLVM's definition of it).
    pub fn call_intrinsic(&mut self, name: &str, args: &[Value], result: MlirType) -> Value {
        let intrin = self.string_attr(name);
        let bundles = self.i32_array(&[]);
        let segments = self.i32_array(&[args.len() as i32, 0]);
        self.one(
            "llvm.call_intrinsic",
            args,
            result,
            &[
                ("intrin", intrin),
                ("op_bundle_sizes", bundles),
                ("operandSegmentSizes", segments),
            ],
        )
    }
    /// `llvm.intr.ctlz` (zero input defined: gives the bit width).
    pub fn ctlz(&mut self, value: Value) -> Value {
        let ty = type_of(value);
        let attr = self.bool_attr(false);
        self.one("llvm.intr.ctlz", &[value], ty, &[("is_zero_poison", attr)])
    }
    /// `llvm.intr.abs` (INT_MIN stays INT_MIN).
    pub fn iabs(&mut self, value: Value) -> Value {
        let ty = type_of(value);
        let attr = self.bool_attr(false);
        self.one(
            "llvm.intr.abs",
            &[value],
            ty,
            &[("is_int_min_poison", attr)],
        )
    }
    pub fn bool_attr(&self, value: bool) -> MlirAttribute {
        // SAFETY: the context is live.
        unsafe { mlirBoolAttrGet(self.ctx, value as i32) }
    }

    // ----- memory -----

    /// `llvm.getelementptr ptr[index]` over elements of `element`.
    pub fn gep(&mut self, ptr: Value, index: Value, element: MlirType) -> Value {
        let ty = type_of(ptr);
        let indices = self.i32_array(&[i32::MIN]);
        let elem = self.type_attr(element);
        self.one(
            "llvm.getelementptr",
            &[ptr, index],
            ty,
            &[("rawConstantIndices", indices), ("elem_type", elem)],
        )
    }
    /// `llvm.getelementptr ptr[0, index]` into an array global.
    pub fn gep_array(&mut self, ptr: Value, index: Value, array: MlirType) -> Value {
        let ty = type_of(ptr);
        let indices = self.i32_array(&[0, i32::MIN]);
        let elem = self.type_attr(array);
        self.one(
            "llvm.getelementptr",
            &[ptr, index],
            ty,
            &[("rawConstantIndices", indices), ("elem_type", elem)],
        )
    }
    pub fn load(&mut self, ptr: Value, ty: MlirType) -> Value {
        self.one("llvm.load", &[ptr], ty, &[])
    }
    /// A load with an explicit alignment in bytes.
    pub fn load_aligned(&mut self, ptr: Value, ty: MlirType, alignment: u64) -> Value {
        let attr = self.i64_attr(alignment as i64);
        self.one("llvm.load", &[ptr], ty, &[("alignment", attr)])
    }
    pub fn store(&mut self, value: Value, ptr: Value) {
        self.create("llvm.store", &[value, ptr], &[], &[], Vec::new());
    }
    pub fn store_aligned(&mut self, value: Value, ptr: Value, alignment: u64) {
        let attr = self.i64_attr(alignment as i64);
        self.create(
            "llvm.store",
            &[value, ptr],
            &[],
            &[("alignment", attr)],
            Vec::new(),
        );
    }
    /// `llvm.alloca` of `count` elements of `element` (address space 0).
    pub fn alloca(&mut self, element: MlirType, count: Value) -> Value {
        let ty = self.ptr_type(0);
        let elem = self.type_attr(element);
        self.one("llvm.alloca", &[count], ty, &[("elem_type", elem)])
    }
    /// `llvm.mlir.addressof @symbol`.
    pub fn address_of(&mut self, symbol: &str, ptr_type: MlirType) -> Value {
        let attr = self.symbol_ref(symbol);
        self.one(
            "llvm.mlir.addressof",
            &[],
            ptr_type,
            &[("global_name", attr)],
        )
    }
    /// `llvm.atomicrmw`.
    pub fn atomic_rmw(
        &mut self,
        op: AtomicBinOp,
        ptr: Value,
        value: Value,
        ordering: AtomicOrdering,
        syncscope: Option<&str>,
    ) -> Value {
        let ty = type_of(value);
        let bin = self.i64_attr(op as i64);
        let ord = self.i64_attr(ordering as i64);
        let mut attrs = vec![("bin_op", bin), ("ordering", ord)];
        let scope;
        if let Some(s) = syncscope {
            scope = self.string_attr(s);
            attrs.push(("syncscope", scope));
        }
        self.one("llvm.atomicrmw", &[ptr, value], ty, &attrs)
    }

    // ----- aggregates -----

    pub fn extract_value(&mut self, aggregate: Value, index: i64, ty: MlirType) -> Value {
        let pos = self.i64_array(&[index]);
        self.one("llvm.extractvalue", &[aggregate], ty, &[("position", pos)])
    }
    /// `llvm.insertelement`: `vector` with lane `index` replaced by `value`.
    pub fn insert_element(&mut self, vector: Value, value: Value, index: i64) -> Value {
        let ty = type_of(vector);
        let position = self.const_i32(index);
        self.one("llvm.insertelement", &[vector, value, position], ty, &[])
    }
    /// `llvm.extractelement`: lane `index` of `vector`.
    pub fn extract_element(&mut self, vector: Value, index: i64, ty: MlirType) -> Value {
        let position = self.const_i32(index);
        self.one("llvm.extractelement", &[vector, position], ty, &[])
    }
    pub fn insert_value(&mut self, aggregate: Value, value: Value, index: i64) -> Value {
        let ty = type_of(aggregate);
        let pos = self.i64_array(&[index]);
        self.one(
            "llvm.insertvalue",
            &[aggregate, value],
            ty,
            &[("position", pos)],
        )
    }

    // ----- calls, inline PTX, special registers -----

    /// `llvm.inline_asm` returning `result` (`None`: no result). Operands bind to `$n` in order
    /// after the outputs, as the constraint string says.
    pub fn inline_asm(
        &mut self,
        asm: &str,
        constraints: &str,
        operands: &[Value],
        result: Option<MlirType>,
        side_effects: bool,
    ) -> Option<Value> {
        let asm_attr = self.string_attr(asm);
        let constraint_attr = self.string_attr(constraints);
        let mut attrs = vec![("asm_string", asm_attr), ("constraints", constraint_attr)];
        let unit = self.unit_attr();
        if side_effects {
            attrs.push(("has_side_effects", unit));
        }
        let results: Vec<MlirType> = result.into_iter().collect();
        let op = self.create("llvm.inline_asm", operands, &results, &attrs, Vec::new());
        result.map(|_| Builder::result(op))
    }
    /// [`Builder::inline_asm`] with one result.
    pub fn asm(
        &mut self,
        asm: &str,
        constraints: &str,
        operands: &[Value],
        result: MlirType,
    ) -> Value {
        self.inline_asm(asm, constraints, operands, Some(result), false)
            .unwrap_or_else(|| unreachable!("inline_asm with a result type returns a value"))
    }
    /// [`Builder::asm`] marked as having side effects (never hoisted or merged).
    pub fn asm_volatile(
        &mut self,
        asm: &str,
        constraints: &str,
        operands: &[Value],
        result: MlirType,
    ) -> Value {
        self.inline_asm(asm, constraints, operands, Some(result), true)
            .unwrap_or_else(|| unreachable!("inline_asm with a result type returns a value"))
    }
    /// `llvm.call @callee(args)`; `result` `None` for a void function.
    pub fn call(
        &mut self,
        callee: &str,
        args: &[Value],
        result: Option<MlirType>,
    ) -> Option<Value> {
        let callee_attr = self.symbol_ref(callee);
        let segments = self.i32_array(&[args.len() as i32, 0]);
        let bundles = self.i32_array(&[]);
        let results: Vec<MlirType> = result.into_iter().collect();
        let op = self.create(
            "llvm.call",
            args,
            &results,
            &[
                ("callee", callee_attr),
                ("operandSegmentSizes", segments),
                ("op_bundle_sizes", bundles),
            ],
            Vec::new(),
        );
        result.map(|_| Builder::result(op))
    }
    /// `nvvm.read.ptx.sreg.<register>` (e.g. `tid.x`, `ctaid.y`) as i32.
    pub fn special_register(&mut self, register: &str) -> Value {
        let ty = self.i32();
        self.one(&format!("nvvm.read.ptx.sreg.{register}"), &[], ty, &[])
    }
    /// [`Builder::special_register`] in the prologue.
    pub fn prologue_special_register(&mut self, register: &str) -> Value {
        let ty = self.i32();
        Builder::result(self.create_in_prologue(
            &format!("nvvm.read.ptx.sreg.{register}"),
            &[],
            &[ty],
            &[],
        ))
    }
    /// `bar.sync 0`: every thread of the CTA waits here. The memory clobber keeps LLVM's
    /// shared-memory loads and stores on their side of it: with side effects alone, machine code
    /// sinking moved a conversion's loads past the barrier and past the next loop's first
    /// `cp.async` copies into the same bytes (causal attention at 128-row tiles read garbage).
    pub fn barrier(&mut self) {
        self.inline_asm("bar.sync 0;", "~{memory}", &[], None, true);
    }
    pub fn ret(&mut self, values: &[Value]) {
        self.create("llvm.return", values, &[], &[], Vec::new());
    }

    // ----- regions -----

    /// A new region holding one block with arguments of `types`; returns both.
    pub fn region_with_block(&self, types: &[MlirType]) -> (MlirRegion, MlirBlock) {
        let locations = vec![self.loc; types.len()];
        // SAFETY: a fresh region and block; the block is moved into the region, which owns it.
        unsafe {
            let region = mlirRegionCreate();
            let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
            mlirRegionAppendOwnedBlock(region, block);
            (region, block)
        }
    }
    /// An empty region (no blocks).
    pub fn empty_region(&self) -> MlirRegion {
        // SAFETY: a fresh region, owned by the caller until moved into an op.
        unsafe { mlirRegionCreate() }
    }
    /// The results of an op.
    pub fn results_of(op: MlirOperation) -> Vec<Value> {
        // SAFETY: `op` is live.
        unsafe {
            (0..mlirOperationGetNumResults(op))
                .map(|i| mlirOperationGetResult(op, i))
                .collect()
        }
    }
    /// `scf.if cond { ... }` without results or else branch: builds the op and its `scf.yield`,
    /// moves the insertion point into the then-block (before the yield) and returns the point
    /// to [`Builder::restore`] once the guarded ops are built.
    pub fn begin_if(&mut self, cond: Value) -> InsertPoint {
        let after = self.save();
        let (then_region, then_block) = self.region_with_block(&[]);
        let else_region = self.empty_region();
        self.create("scf.if", &[cond], &[], &[], vec![then_region, else_region]);
        self.set_end(then_block);
        let terminator = self.create("scf.yield", &[], &[], &[], Vec::new());
        self.set_before(terminator);
        after
    }
}

pub fn type_of(value: Value) -> MlirType {
    // SAFETY: `value` is live.
    unsafe { mlirValueGetType(value) }
}

/// Whether two types are the same (types are uniqued).
pub fn type_equal(a: MlirType, b: MlirType) -> bool {
    // SAFETY: comparing uniqued handles is always sound.
    unsafe { mlirTypeEqual(a, b) }
}
