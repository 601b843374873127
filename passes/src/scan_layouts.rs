//! `-tritium-scan-layouts`: a `tt.scan` whose blocked layout spreads the scan axis over lanes
//! and warps in short runs (`sizePerThread` along the axis below the axis length over its
//! threads) is computed in a layout where each thread holds one contiguous run of the axis
//! instead: the same lanes and warps, `sizePerThread[axis] = shape[axis] / (lanes · warps
//! along it)`. Its operands are converted into that layout before the scan and its results back
//! after it.
//!
//! In the spread layout every one of a thread's `R` runs along the axis takes a warp-wide scan
//! of its own (5 shuffle rounds each) and a cross-warp step; in the contiguous one a thread scans
//! its run in registers, and one warp scan and one cross-warp step serve all of it. The two
//! conversions are a shared-memory round trip each (tensors of up to 32 KiB an operand): a
//! 4096-wide running maximum over 4 warps (`R` = 32) goes from 160 shuffles and 348 `FMNMX` to
//! 6 and 71, 899 SASS instructions to 480, 104 registers to 89. Triton scans in the spread
//! layout.

use crate::ir_util::*;
use mlir_sys::*;
use tritium_dialects::melior::ir::OperationRef;
use tritium_dialects::pass::{Options, PassDef, PassResult, dialects};
use tritium_layout::encoding::{BlockedEncoding, Encoding};

pub static PASS: PassDef = PassDef {
    argument: "tritium-scan-layouts",
    summary: "Scan in a layout where each thread holds one contiguous run of the axis (converting around the scan)",
    anchor: Some("builtin.module"),
    options: &[],
    dependent_dialects: || vec![dialects::ttg()],
    run,
};

/// The fewest runs a thread for which the two shared-memory round trips are paid: at 4, 8 and
/// 32 runs (linear_scan, cumsum_rows, cummax_rows) measured level to 1% faster on the H100; at
/// 2 a warp scan and a cross-warp step (one barrier) saved against two conversions (two
/// barriers), unmeasured, so left in the spread layout.
const MIN_RUNS_PER_THREAD: u32 = 4;

/// The most shared memory a conversion around a scan may take (its scratch holds the whole
/// tensor): larger scans keep their layout rather than cut how many programs an SM holds, or
/// ask for more than a program may have.
const MAX_CONVERSION_BYTES: u64 = 32 * 1024;

/// Bytes of a tensor's elements (pointers as 8).
fn tensor_bytes(ty: MlirType) -> u64 {
    let bits = match crate::tma_lowering::elem_bits(element_type(ty)) {
        0 => 64,
        b => b.max(8),
    };
    let count: i64 = shape(ty).iter().product();
    u64::try_from(count).unwrap_or(u64::MAX) * u64::from(bits / 8)
}

/// The contiguous-run layout for a scan along `axis` of a tensor of `dims` in `blocked`, when
/// it differs from `blocked` by at least [`MIN_RUNS_PER_THREAD`] runs a thread.
pub fn contiguous_run_layout(
    blocked: &BlockedEncoding,
    dims: &[i64],
    axis: usize,
) -> Option<BlockedEncoding> {
    let length = u32::try_from(*dims.get(axis)?).ok()?;
    let threads = blocked.threads_per_warp.get(axis)? * blocked.warps_per_cta.get(axis)?;
    let have = *blocked.size_per_thread.get(axis)?;
    // Lanes or warps beyond the axis length hold copies: leave those layouts alone.
    if threads == 0 || have == 0 || length % threads != 0 {
        return None;
    }
    let want = length / threads;
    if want % have != 0 || want / have < MIN_RUNS_PER_THREAD {
        return None;
    }
    let mut size_per_thread = blocked.size_per_thread.clone();
    size_per_thread[axis] = want;
    Some(BlockedEncoding {
        size_per_thread,
        ..blocked.clone()
    })
}

fn run(module: OperationRef, _options: &Options) -> PassResult {
    for op in collect_ops(module.to_raw()) {
        if op_name(op) != "tt.scan" {
            continue;
        }
        let inputs = operands(op);
        let Some(&first) = inputs.first() else {
            continue;
        };
        let input_type = value_type(first);
        let Some(Encoding::Blocked(blocked)) = encoding_of(input_type) else {
            continue;
        };
        let dims = shape(input_type);
        let Some(axis) = int_attr(op, "axis").and_then(|a| usize::try_from(a).ok()) else {
            continue;
        };
        if inputs
            .iter()
            .any(|v| tensor_bytes(value_type(*v)) > MAX_CONVERSION_BYTES)
        {
            continue;
        }
        // The verifier gives every operand and result the same shape and layout.
        let Some(contiguous) = contiguous_run_layout(&blocked, &dims, axis) else {
            continue;
        };
        let attr = encoding_to_attr(context_of(op), &Encoding::Blocked(contiguous));
        for (index, input) in inputs.iter().enumerate() {
            let converted =
                insert_convert_before(op, *input, with_encoding(value_type(*input), attr));
            // SAFETY: `op` is a live tt.scan with an operand at `index`; the converted value is
            // defined just before it.
            unsafe { mlirOperationSetOperand(op, index as isize, converted) };
        }
        for result in results(op) {
            let spread = value_type(result);
            // SAFETY: `result` is a live result of `op`; its users are redirected to a
            // conversion back into `spread` right after.
            unsafe { mlirValueSetType(result, with_encoding(spread, attr)) };
            convert_all_uses_after(result, spread);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(size: u32, lanes: u32, warps: u32) -> BlockedEncoding {
        BlockedEncoding::new(vec![size], vec![lanes], vec![warps], vec![0])
    }

    #[test]
    fn a_spread_axis_becomes_one_run_a_thread() {
        let layout = contiguous_run_layout(&blocked(1, 32, 4), &[4096], 0).unwrap();
        assert_eq!(layout.size_per_thread, vec![32]);
        assert_eq!(layout.threads_per_warp, vec![32]);
        assert_eq!(layout.warps_per_cta, vec![4]);
        let vectorized = contiguous_run_layout(&blocked(4, 32, 4), &[4096], 0).unwrap();
        assert_eq!(vectorized.size_per_thread, vec![32]);
    }

    #[test]
    fn short_or_replicated_axes_stay() {
        // Two runs a thread: below the threshold.
        assert!(contiguous_run_layout(&blocked(4, 32, 4), &[1024], 0).is_none());
        // One run a thread already.
        assert!(contiguous_run_layout(&blocked(4, 32, 4), &[512], 0).is_none());
        // The axis is shorter than its threads: lanes hold copies.
        assert!(contiguous_run_layout(&blocked(1, 32, 4), &[64], 0).is_none());
    }

    #[test]
    fn only_the_axis_changes() {
        let two_d = BlockedEncoding::new(vec![1, 1], vec![4, 8], vec![4, 1], vec![1, 0]);
        let layout = contiguous_run_layout(&two_d, &[16, 256], 1).unwrap();
        assert_eq!(layout.size_per_thread, vec![1, 32]);
        assert_eq!(layout.threads_per_warp, two_d.threads_per_warp);
        assert_eq!(layout.warps_per_cta, two_d.warps_per_cta);
        assert_eq!(layout.order, two_d.order);
        // Along the other axis the rows are already whole per thread group: 16 rows over 4x4.
        assert!(contiguous_run_layout(&two_d, &[16, 256], 0).is_none());
    }
}
