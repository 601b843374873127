//! `-tritongpu-accelerate-matmul`: puts `tt.dot` on tensor cores. A 2-D dot of f16 or bf16
//! operands with an f32 accumulator, whose shape tiles by `mma.sync.m16n8k16`, gets an
//! `#ttg.nvidia_mma` version 2 accumulator (Triton's choice of warps per CTA), operands in
//! `#ttg.dot_op` layouts of it (`kWidth = 2`), and conversions around it; every other dot stays
//! on the FMA path, as Triton leaves it.
//!
//! Not yet: mma version 3 (wgmma) for sm_90a, tf32/fp8/int8 operands, f16 accumulators.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::{DotOperandEncoding, Encoding, NvidiaMmaEncoding};

pub static PASS: PassDef = PassDef {
    argument: "tritongpu-accelerate-matmul",
    summary: "Put tt.dot on tensor cores: #ttg.nvidia_mma accumulators and #ttg.dot_op operands",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
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

/// Whether a dot of these element types and shape maps onto `mma.sync.m16n8k16`.
fn is_mma_v2_dot(a: MlirType, b: MlirType, c: MlirType) -> bool {
    let (sa, sb, sc) = (shape(a), shape(b), shape(c));
    if sa.len() != 2 || sb.len() != 2 || sc.len() != 2 {
        return false;
    }
    let (ea, eb, ec) = (element_type(a), element_type(b), element_type(c));
    // SAFETY: type kind queries on live types.
    let types_fit = unsafe {
        let half = |t: MlirType| mlirTypeIsAF16(t) || mlirTypeIsABF16(t);
        half(ea) && mlirTypeEqual(ea, eb) && mlirTypeIsAF32(ec)
    };
    types_fit && sc[0] % 16 == 0 && sc[1] % 8 == 0 && sa[1] % 16 == 0
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
        let ins = operands(dot);
        let outs = results(dot);
        let (Some(&a), Some(&b), Some(&c), Some(&d)) =
            (ins.first(), ins.get(1), ins.get(2), outs.first())
        else {
            continue;
        };
        let (a_type, b_type, c_type) = (value_type(a), value_type(b), value_type(c));
        if !is_mma_v2_dot(a_type, b_type, c_type) {
            continue;
        }
        let dims = shape(c_type);
        let mma = Encoding::NvidiaMma(NvidiaMmaEncoding::v2(warps_per_tile_v2(
            [dims[0], dims[1]],
            num_warps,
        )));
        let operand = |index: u32| {
            encoding_to_attr(
                ctx,
                &Encoding::DotOperand(DotOperandEncoding::new(index, mma.clone(), 2)),
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

/// The single user of a value, if it has exactly one.
fn single_user(value: MlirValue) -> Option<(MlirOperation, isize)> {
    // SAFETY: use-list traversal of a live value.
    unsafe {
        let first = mlirValueGetFirstUse(value);
        if first.ptr.is_null() || !mlirOpOperandGetNextUse(first).ptr.is_null() {
            return None;
        }
        Some((
            mlirOpOperandGetOwner(first),
            mlirOpOperandGetOperandNumber(first) as isize,
        ))
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
    let Some((yield_op, position)) = single_user(back) else {
        return;
    };
    // SAFETY: handle queries on live values and ops; every index below is checked against the
    // op's operand/argument/result counts before it is used.
    unsafe {
        if mlirValueIsAOpResult(arg)
            || single_user(arg).map(|(op, _)| op.ptr) != Some(convert_in.ptr)
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
        if index < 0 || index != position || index >= mlirOperationGetNumResults(for_op) {
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
    }
}
