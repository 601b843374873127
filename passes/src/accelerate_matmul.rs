//! `-tritongpu-accelerate-matmul`: puts `tt.dot` on tensor cores, with Triton's choices.
//!
//! * sm_90 (wgmma, `#ttg.nvidia_mma` version 3): a 2-D dot of f16, bf16, f32 (tf32 precision),
//!   fp8 or i8 operands with an f32 accumulator (or f16 for f16 and fp8, i32 for i8), M filling
//!   whole warpgroups, `num_warps` a multiple of 4, becomes `ttng.warp_group_dot`. B — and A when it comes from memory (a load,
//!   or a loop-carried value) — is staged by `ttg.local_alloc` into a `#ttg.nvmma_shared`
//!   buffer (the widest swizzle the contiguous dim fills; K-major for 8- and 32-bit types); an
//!   A computed in registers (attention's `p`) stays there in `#ttg.dot_op` of the mma layout.
//!   `instrShape = [16, N, 256 / bits]` with the largest N dividing the tile that the warps
//!   along N leave, warps per CTA as Triton's `warpsPerTileV3` (all along M for a dot whose
//!   result feeds another dot).
//! * sm_80–sm_89, and sm_90 dots wgmma cannot take (mma v2, `mma.sync`): f16 or bf16 operands
//!   with an f32 accumulator (or f16 with f16), f32 at tf32 precision, i8 with i32, whose
//!   shape tiles by 16x8 and the instruction's K, operands in `#ttg.dot_op` layouts
//!   (`kWidth = 32 / bits`), Triton's `warpsPerTileV2` (every warp along the batch for
//!   batched, rank-3 dots; `instrShape = [1, 16, 8]`).
//!
//! The accumulator is converted into the mma layout and back around the dot; a loop-carried
//! accumulator is carried in the mma layout. Every other dot stays on the FMA path, as Triton
//! leaves it.
//!
//! fp8 dots that wgmma does not take are upcast to f16 (exact) and go on mma v2, as Triton runs
//! them on mma.sync.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::{
    DotOperandEncoding, Encoding, NvidiaMmaEncoding, NvmmaSharedEncoding,
};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-accelerate-matmul",
    summary: "Put tt.dot on tensor cores: wgmma (sm_90) or mma.sync with #ttg.nvidia_mma accumulators",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg(), dialects::ttng()],
    run,
};

/// Warps per CTA of an mma v2 accumulator of `shape` (Triton's `warpsPerTileV2`): double the
/// warps along M while M has at least as many 16-row tiles per warp as N has 16-column ones
/// (and M has room), else along N.
pub fn warps_per_tile_v2(shape: [i64; 2], num_warps: u32) -> Vec<u32> {
    let mut warps = [1i64, 1];
    let per_warp = [16i64, 8];
    loop {
        if warps[0] * warps[1] >= num_warps as i64 {
            break;
        }
        if shape[0] / per_warp[0] / warps[0] >= shape[1] / (per_warp[1] * 2) / warps[1] {
            if warps[0] < shape[0] / per_warp[0] {
                warps[0] *= 2;
            } else {
                warps[1] *= 2;
            }
        } else {
            warps[1] *= 2;
        }
    }
    vec![warps[0] as u32, warps[1] as u32]
}

/// Warps per CTA of an mma v3 accumulator (Triton's `warpsPerTileV3`): whole warpgroups along
/// M; then double along M while M has rows for them, else along N. A dot feeding another dot
/// puts every warp along M (the chained dot then reduces rows within warps).
pub fn warps_per_tile_v3(shape: [i64; 2], num_warps: u32, chained: bool) -> Vec<u32> {
    if chained {
        return vec![num_warps, 1];
    }
    let mut warps = [4i64, 1];
    while warps[0] * warps[1] < num_warps as i64 {
        if shape[0] > 16 * warps[0] {
            warps[0] *= 2;
        } else {
            warps[1] *= 2;
        }
    }
    vec![warps[0] as u32, warps[1] as u32]
}

/// The wgmma instruction N for a tile (Triton's choice): the largest multiple of 8 (of 16 for
/// 8-bit integers past 16, up to 224) that divides the tile's N and fits the columns the warps
/// along N leave each warpgroup.
pub fn instr_n_v3(shape: [i64; 2], num_warps: u32, int8: bool) -> Option<u32> {
    let m_warps = (shape[0] / 16).max(1);
    let n_warps = (num_warps as i64 / m_warps).max(1);
    let max_n = (shape[1] / n_warps).max(8);
    let candidates: Vec<i64> = if int8 {
        let mut v: Vec<i64> = (1..=14).rev().map(|i| 16 * i).collect();
        v.extend([24, 8]);
        v.retain(|n| *n <= 224);
        v
    } else {
        (1..=32).rev().map(|i| 8 * i).collect()
    };
    candidates
        .into_iter()
        .find(|&n| shape[1] % n == 0 && n <= max_n)
        .map(|n| n as u32)
}

/// The operand element bits of a dot wgmma takes (operand and accumulator types and the input
/// precision), or `None`.
fn wgmma_types(a: MlirType, b: MlirType, c: MlirType, precision: i64) -> Option<u32> {
    // SAFETY: type kind queries on live types.
    unsafe {
        let half = |t: MlirType| mlirTypeIsAF16(t) || mlirTypeIsABF16(t);
        let fp8 = |t: MlirType| mlirTypeIsAFloat8E4M3FN(t) || mlirTypeIsAFloat8E5M2(t);
        let i8 = |t: MlirType| mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8;
        let i32 = mlirTypeIsAInteger(c) && mlirIntegerTypeGetWidth(c) == 32;
        let sixteen_bit = (half(a) && mlirTypeEqual(a, b) && mlirTypeIsAF32(c))
            || (mlirTypeIsAF16(a) && mlirTypeIsAF16(b) && mlirTypeIsAF16(c));
        let eight_bit = (fp8(a) && fp8(b) && (mlirTypeIsAF32(c) || mlirTypeIsAF16(c)))
            || (i8(a) && i8(b) && i32);
        if sixteen_bit {
            Some(16)
        } else if mlirTypeIsAF32(a) && mlirTypeIsAF32(b) && mlirTypeIsAF32(c) && precision == 0 {
            Some(32)
        } else if eight_bit {
            Some(8)
        } else {
            None
        }
    }
}

/// Whether the dot's result reaches another dot through a chain of uses (not through loop
/// back edges: an accumulator reaching its own dot is not a chain).
fn feeds_another_dot(dot: MlirOperation) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut work: Vec<MlirValue> = results(dot);
    while let Some(value) = work.pop() {
        if !seen.insert(key(value)) {
            continue;
        }
        for owner in crate::ir_util::users(value) {
            let name = op_name(owner);
            if owner.ptr != dot.ptr && (name == "tt.dot" || name == "ttng.warp_group_dot") {
                return true;
            }
            if name != "scf.yield" {
                work.extend(results(owner));
            }
        }
    }
    false
}

/// Whether operand A comes from memory (so wgmma reads it from shared memory) rather than being
/// computed in registers: through layout conversions, a load or a block argument.
fn comes_from_memory(value: MlirValue) -> bool {
    let mut v = value;
    loop {
        let Some(op) = defining_op(v) else {
            return true;
        };
        match op_name(op).as_str() {
            "ttg.convert_layout" => match operands(op).first() {
                Some(&source) => v = source,
                None => return false,
            },
            "tt.load" | "ttg.local_load" | "tt.descriptor_load" => return true,
            _ => return false,
        }
    }
}

/// The value under layout conversions.
fn strip_converts(mut value: MlirValue) -> MlirValue {
    while let Some(op) = defining_op(value) {
        if op_name(op) != "ttg.convert_layout" {
            break;
        }
        match operands(op).first() {
            Some(&source) => value = source,
            None => break,
        }
    }
    value
}

/// The `#ttg.nvmma_shared` layout wgmma reads a [rows, cols] operand tile from: `k_dim` is the
/// operand's K dim; `order0` the register layout's fastest dim. 16-bit types follow the
/// registers' contiguity (wgmma transposes either way); others must be K-major.
pub(crate) fn nvmma_layout(
    tile: [i64; 2],
    bits: u32,
    k_dim: usize,
    order0: usize,
) -> Option<NvmmaSharedEncoding> {
    let contiguous = if bits == 16 { order0 } else { k_dim };
    let transposed = contiguous == 0;
    let contiguous_bytes = tile[contiguous] * bits as i64 / 8;
    let swizzle = [128, 64, 32].into_iter().find(|&s| contiguous_bytes >= s)?;
    (tile[1 - contiguous] >= 8).then(|| NvmmaSharedEncoding::new(swizzle as u32, transposed, bits))
}

/// `ttg.local_alloc` of `value` (its own register layout) into a buffer of `encoding`, right
/// after `value` is defined (at the start of its block for a block argument): each operand is
/// staged as soon as it is loaded, as Triton places it, so the next operand's global loads
/// overlap with it, and an operand defined outside a loop (attention's Q) is staged once, not
/// every iteration. The definition dominates the dot, so the buffer does too.
fn stage_in_shared(near: MlirOperation, value: MlirValue, encoding: &Encoding) -> MlirValue {
    let ty = value_type(value);
    let ctx = context_of(near);
    let dims = shape(ty);
    let attr = encoding_to_attr(ctx, encoding);
    // SAFETY: live handles of one context; `dims` outlives the call; the new op is inserted
    // into `before`'s block, which takes ownership.
    unsafe {
        let space = tritium_dialects::ffi::ttg::tritiumSharedMemorySpaceGet(ctx);
        let memdesc = tritium_dialects::ffi::ttg::tritiumMemDescTypeGet(
            element_type(ty),
            dims.len() as isize,
            dims.as_ptr(),
            attr,
            space,
            false,
            dims.len() as isize,
            dims.as_ptr(),
        );
        let alloc = tritium_dialects::build::build(
            "ttg.local_alloc",
            mlirOperationGetLocation(near),
            &[value],
            &[memdesc],
            &[],
        );
        match defining_op(value) {
            Some(def) => mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(def), def, alloc),
            None => mlirBlockInsertOwnedOperation(mlirBlockArgumentGetOwner(value), 0, alloc),
        }
        mlirOperationGetResult(alloc, 0)
    }
}

/// The fastest dim of a tensor's register layout.
pub(crate) fn fastest_dim(ty: MlirType) -> usize {
    encoding_of(ty)
        .map(|e| e.order(2))
        .and_then(|o| o.first().copied())
        .unwrap_or(1) as usize
}

/// Rewrites a 2-D dot onto wgmma if it fits (see the module docs); returns whether it did.
fn to_warp_group_dot(dot: MlirOperation, num_warps: u32) -> bool {
    let ins = operands(dot);
    let outs = results(dot);
    let (Some(&a), Some(&b), Some(&c), Some(&d)) =
        (ins.first(), ins.get(1), ins.get(2), outs.first())
    else {
        return false;
    };
    let (a_type, b_type, c_type) = (value_type(a), value_type(b), value_type(c));
    let (sa, sb, sc) = (shape(a_type), shape(b_type), shape(c_type));
    if sa.len() != 2 || sb.len() != 2 || sc.len() != 2 || !num_warps.is_multiple_of(4) {
        return false;
    }
    let precision = int_attr(dot, "inputPrecision").unwrap_or(2);
    let Some(bits) = wgmma_types(
        element_type(a_type),
        element_type(b_type),
        element_type(c_type),
        precision,
    ) else {
        return false;
    };
    let k_instr = 256 / bits;
    let (m, n, k) = (sc[0], sc[1], sa[1]);
    // SAFETY: type kind query on a live type.
    let int8 = unsafe { mlirTypeIsAInteger(element_type(a_type)) };
    let Some(instr_n) = instr_n_v3([m, n], num_warps, int8) else {
        return false;
    };
    let warps = warps_per_tile_v3([m, n], num_warps, feeds_another_dot(dot));
    if m % (16 * warps[0] as i64) != 0
        || n % (instr_n as i64 * warps[1] as i64) != 0
        || k % k_instr as i64 != 0
    {
        return false;
    }
    let a_source = strip_converts(a);
    let b_source = strip_converts(b);
    let a_in_registers = bits == 16 && !comes_from_memory(a);
    let b_layout = nvmma_layout([k, n], bits, 0, fastest_dim(value_type(b_source)));
    let a_layout = if a_in_registers {
        None
    } else {
        match nvmma_layout([m, k], bits, 1, fastest_dim(value_type(a_source))) {
            Some(l) => Some(l),
            None => return false,
        }
    };
    let Some(b_layout) = b_layout else {
        return false;
    };
    let ctx = context_of(dot);
    let mma = Encoding::NvidiaMma(NvidiaMmaEncoding::v3(warps, instr_n, k_instr));
    let mma_attr = encoding_to_attr(ctx, &mma);
    let new_a = match a_layout {
        Some(layout) => stage_in_shared(dot, a_source, &Encoding::NvmmaShared(layout)),
        None => {
            let operand = Encoding::DotOperand(DotOperandEncoding::new(0, mma.clone(), 32 / bits));
            insert_convert_before(
                dot,
                a,
                with_encoding(a_type, encoding_to_attr(ctx, &operand)),
            )
        }
    };
    let new_b = stage_in_shared(dot, b_source, &Encoding::NvmmaShared(b_layout));
    let new_c = insert_convert_before(dot, c, with_encoding(c_type, mma_attr));
    let d_type = value_type(d);
    let mut attrs = vec![];
    for name in ["inputPrecision", "maxNumImpreciseAcc"] {
        // SAFETY: attribute lookup on a live op.
        let attr =
            unsafe { mlirOperationGetAttributeByName(dot, tritium_dialects::ffi::str_ref(name)) };
        if !attr.ptr.is_null() {
            attrs.push((name, attr));
        }
    }
    // SAFETY: live handles; the new op is inserted before `dot` (its block owns it), the old
    // dot's uses move to its result and the dead dot is destroyed.
    unsafe {
        let is_async = mlirBoolAttrGet(ctx, 0);
        attrs.push(("isAsync", is_async));
        let wgmma = tritium_dialects::build::build(
            "ttng.warp_group_dot",
            mlirOperationGetLocation(dot),
            &[new_a, new_b, new_c],
            &[with_encoding(d_type, mma_attr)],
            &attrs,
        );
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(dot), dot, wgmma);
        let result = mlirOperationGetResult(wgmma, 0);
        mlirValueReplaceAllUsesOfWith(d, result);
        mlirOperationDestroy(dot);
        let back = convert_all_uses_after(result, d_type);
        carry_accumulator_in_mma(new_c, result, back);
    }
    true
}

/// Warps per CTA of a batched (rank-3) mma v2 accumulator: every warp along the batch, as
/// Triton's `warpsPerTileV2` exits early for rank 3 (warps beyond the batch size replicate).
pub fn warps_per_tile_v2_batched(_shape: [i64; 3], num_warps: u32) -> Vec<u32> {
    vec![num_warps, 1, 1]
}

/// Whether a dot of these element types and shape maps onto `mma.sync.m16n8k16`.
fn is_mma_v2_dot(a: MlirType, b: MlirType, c: MlirType, precision: i64) -> Option<u32> {
    let (sa, sb, sc) = (shape(a), shape(b), shape(c));
    let rank = sc.len();
    if !(2..=3).contains(&rank) || sa.len() != rank || sb.len() != rank {
        return None;
    }
    let (sa, sc) = (&sa[rank - 2..], &sc[rank - 2..]);
    let (ea, eb, ec) = (element_type(a), element_type(b), element_type(c));
    // SAFETY: type kind queries on live types.
    let bits = unsafe {
        let half = |t: MlirType| mlirTypeIsAF16(t) || mlirTypeIsABF16(t);
        let i8 = |t: MlirType| mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8;
        let i32 = mlirTypeIsAInteger(ec) && mlirIntegerTypeGetWidth(ec) == 32;
        if half(ea) && mlirTypeEqual(ea, eb) && mlirTypeIsAF32(ec)
            || mlirTypeIsAF16(ea) && mlirTypeIsAF16(eb) && mlirTypeIsAF16(ec)
        {
            16
        } else if mlirTypeIsAF32(ea) && mlirTypeIsAF32(eb) && mlirTypeIsAF32(ec) && precision == 0 {
            32
        } else if i8(ea) && i8(eb) && i32 {
            8
        } else {
            return None;
        }
    };
    let k_instr = 256 / bits as i64;
    (sc[0] % 16 == 0 && sc[1] % 8 == 0 && sa[1] % k_instr == 0).then_some(bits)
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    let module = module.to_raw();
    let capability = string_attr(module, "ttg.target")
        .and_then(|t| crate::convert_to_gpu::parse_target(&t).ok())
        .unwrap_or(90);
    if capability < 80 {
        return Ok(());
    }
    let num_warps = int_attr(module, "ttg.num-warps").unwrap_or(4).clamp(1, 32) as u32;
    let ctx = context_of(module);
    for dot in collect_ops(module) {
        if op_name(dot) != "tt.dot" {
            continue;
        }
        if capability == 90 && to_warp_group_dot(dot, num_warps) {
            tracing::debug!(num_warps, "accelerate-matmul: tt.dot to wgmma (mma v3)");
            continue;
        }
        upcast_fp8_operands(dot);
        let ins = operands(dot);
        let outs = results(dot);
        let (Some(&a), Some(&b), Some(&c), Some(&d)) =
            (ins.first(), ins.get(1), ins.get(2), outs.first())
        else {
            continue;
        };
        let (a_type, b_type, c_type) = (value_type(a), value_type(b), value_type(c));
        let precision = int_attr(dot, "inputPrecision").unwrap_or(2);
        let Some(bits) = is_mma_v2_dot(a_type, b_type, c_type, precision) else {
            tracing::debug!(
                precision,
                "accelerate-matmul: tt.dot kept on FMA (no mma for its types)"
            );
            continue;
        };
        let dims = shape(c_type);
        let warps = if dims.len() == 3 {
            warps_per_tile_v2_batched([dims[0], dims[1], dims[2]], num_warps)
        } else {
            warps_per_tile_v2([dims[0], dims[1]], num_warps)
        };
        tracing::debug!(
            ?warps,
            bits,
            "accelerate-matmul: tt.dot to mma.sync (mma v2)"
        );
        let mma = Encoding::NvidiaMma(NvidiaMmaEncoding::v2(warps));
        let operand = |index: u32| {
            encoding_to_attr(
                ctx,
                &Encoding::DotOperand(DotOperandEncoding::new(index, mma.clone(), 32 / bits)),
            )
        };
        let mma_attr = encoding_to_attr(ctx, &mma);
        let new_a = insert_convert_before(dot, a, with_encoding(a_type, operand(0)));
        let new_b = insert_convert_before(dot, b, with_encoding(b_type, operand(1)));
        let new_c = insert_convert_before(dot, c, with_encoding(c_type, mma_attr));
        let d_type = value_type(d);
        // SAFETY: `dot` is a live tt.dot with operands a, b, c (ODS) and one result; the new
        // operands are live values defined before it; the result's new type differs only in its
        // encoding, and every use is redirected to a conversion back to the old type below.
        unsafe {
            mlirOperationSetOperand(dot, 0, new_a);
            mlirOperationSetOperand(dot, 1, new_b);
            mlirOperationSetOperand(dot, 2, new_c);
            mlirValueSetType(d, with_encoding(d_type, mma_attr));
        }
        let back = convert_all_uses_after(d, d_type);
        carry_accumulator_in_mma(new_c, d, back);
    }
    Ok(())
}

/// An fp8 dot (both operands e4m3 or e5m2, an f32 or f16 accumulator) that wgmma did not take:
/// its operands are upcast to f16 with `tt.fp_to_fp` (exact) in the layouts they were made in
/// (under any layout conversion), so it runs on
/// mma v2 as an f16 dot, as Triton runs fp8 dots on mma.sync.
fn upcast_fp8_operands(dot: MlirOperation) {
    let ins = operands(dot);
    let (Some(&a), Some(&b), Some(&c)) = (ins.first(), ins.get(1), ins.get(2)) else {
        return;
    };
    // SAFETY: type kind queries on live types; `f16` is a type of the dot's context.
    let (fp8_operands, accumulator_ok, f16) = unsafe {
        let fp8 = |t: MlirType| mlirTypeIsAFloat8E4M3FN(t) || mlirTypeIsAFloat8E5M2(t);
        let acc = element_type(value_type(c));
        (
            fp8(element_type(value_type(a))) && fp8(element_type(value_type(b))),
            mlirTypeIsAF32(acc) || mlirTypeIsAF16(acc),
            mlirF16TypeGet(context_of(dot)),
        )
    };
    if !fp8_operands || !accumulator_ok {
        return;
    }
    for (index, operand) in [(0isize, a), (1, b)] {
        // Upcast in the layout the operand was made in, not in an FMA dot-operand layout
        // (which repeats all of K in every thread).
        let operand = strip_converts(operand);
        let ty = crate::ttir::util::with_element(value_type(operand), f16);
        // SAFETY: the location of the live dot.
        let loc = unsafe { mlirOperationGetLocation(dot) };
        let wide =
            crate::ttir::util::At::Before(dot).value("tt.fp_to_fp", loc, &[operand], ty, &[]);
        // SAFETY: `dot` is a live tt.dot (ODS: operands a, b, c; `index` is 0 or 1) and `wide` a
        // live value of the operand's shape and layout defined before it.
        unsafe { mlirOperationSetOperand(dot, index, wide) };
    }
}

/// When the accumulator is a loop-carried value — `c = convert(arg)`, `yield convert(d)` at
/// `arg`'s position — the loop carries it in the mma layout instead: converted once before the
/// loop and once after, not twice per iteration (the accumulator part of Triton's
/// remove-layout-conversions).
fn carry_accumulator_in_mma(converted_c: MlirValue, d: MlirValue, back: MlirValue) {
    let Some(convert_in) = defining_op(converted_c) else {
        return;
    };
    let Some(&arg) = operands(convert_in).first() else {
        return;
    };
    let Some((yield_op, position)) = single_use(back) else {
        return;
    };
    // SAFETY: handle queries on live values and ops; every index below is checked against the
    // op's operand/argument/result counts before it is used.
    unsafe {
        if mlirValueIsAOpResult(arg)
            || single_use(arg).map(|(op, _)| op.ptr) != Some(convert_in.ptr)
        {
            return;
        }
        let block = mlirBlockArgumentGetOwner(arg);
        let for_op = mlirBlockGetParentOperation(block);
        if op_name(for_op) != "scf.for"
            || op_name(yield_op) != "scf.yield"
            || mlirOperationGetBlock(yield_op).ptr != block.ptr
        {
            return;
        }
        // Block argument 0 is the induction variable; iter arg i is argument i + 1, operand
        // i + 3 of the loop, result i and yield operand i.
        let index = mlirBlockArgumentGetArgNumber(arg) - 1;
        if index < 0 || index != position as isize || index >= mlirOperationGetNumResults(for_op) {
            return;
        }
        let mma_type = value_type(d);
        let init = mlirOperationGetOperand(for_op, index + 3);
        let new_init = insert_convert_before(for_op, init, mma_type);
        mlirOperationSetOperand(for_op, index + 3, new_init);
        mlirValueSetType(arg, mma_type);
        mlirValueReplaceAllUsesOfWith(converted_c, arg);
        mlirOperationDestroy(convert_in);
        mlirOperationSetOperand(yield_op, index, d);
        if let Some(convert_out) = defining_op(back) {
            mlirOperationDestroy(convert_out);
        }
        let result = mlirOperationGetResult(for_op, index);
        let old_type = value_type(result);
        mlirValueSetType(result, mma_type);
        convert_all_uses_after(result, old_type);
    }
}

#[cfg(test)]
mod tests {
    use super::warps_per_tile_v2;

    #[test]
    fn warps_follow_triton_v2_choice() {
        assert_eq!(warps_per_tile_v2([128, 128], 4), vec![2, 2]);
        assert_eq!(warps_per_tile_v2([128, 256], 8), vec![2, 4]);
        assert_eq!(warps_per_tile_v2([64, 64], 4), vec![2, 2]);
        assert_eq!(warps_per_tile_v2([16, 64], 4), vec![1, 4]);
        assert_eq!(warps_per_tile_v2([256, 16], 8), vec![8, 1]);
        assert_eq!(warps_per_tile_v2([64, 256], 8), vec![2, 4]);
        assert_eq!(
            super::warps_per_tile_v2_batched([2, 32, 32], 4),
            vec![4, 1, 1]
        );
        assert_eq!(
            super::warps_per_tile_v2_batched([8, 64, 64], 8),
            vec![8, 1, 1]
        );
    }
}
