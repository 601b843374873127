use super::{Rng, preimage_table};
use crate::encoding::*;
use crate::heuristics::*;
use crate::linear::*;

fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[u32]) -> BlockedEncoding {
    BlockedEncoding::new(spt.to_vec(), tpw.to_vec(), wpc.to_vec(), order.to_vec())
}

fn coords(l: &LinearLayout, reg: u32, lane: u32, warp: u32) -> Vec<u32> {
    l.apply_flat(&[reg, lane, warp, 0])
}

#[test]
fn add_blocked_layout_worked_example() {
    // add.ttgir: tensor<1024xf32>, 16-byte aligned, contiguous, 4 warps.
    let vec = mem_access_elems_per_thread(32, 16, 1024, 1024);
    assert_eq!(vec, 4);
    let enc = coalesced_blocked(&[1024], &[0], vec, 4, 32);
    assert_eq!(enc, blocked(&[4], &[32], &[4], &[0]));
    let l = enc.to_linear(&[1024]).unwrap();
    assert_eq!(l.in_dim_names(), DISTRIBUTED_IN_DIMS.to_vec());
    assert_eq!(l.bases(REGISTER), &[vec![1], vec![2], vec![512]]);
    assert_eq!(
        l.bases(LANE),
        &[vec![4], vec![8], vec![16], vec![32], vec![64]]
    );
    assert_eq!(l.bases(WARP), &[vec![128], vec![256]]);
    assert_eq!(l.in_dim_size(BLOCK), 1);
    assert!(l.is_bijective());
    assert_eq!(
        l.apply(&[(REGISTER, 6), (LANE, 5), (WARP, 2)]),
        vec![("dim0".to_string(), 790)]
    );
    for r in 0..8 {
        for t in 0..32 {
            for w in 0..4 {
                assert_eq!(
                    coords(&l, r, t, w),
                    vec![(r & 3) + 4 * t + 128 * w + 512 * (r >> 2)]
                );
            }
        }
    }
    assert_eq!(l.get_num_consecutive_in_out("dim0"), 4);
    let e = Encoding::from(enc);
    assert_eq!(e.total_elems_per_thread(&[1024]).unwrap(), 8);
    assert_eq!(e.elems_per_thread(&[1024]).unwrap(), vec![8]);
    assert_eq!(e.contig_per_thread(&[1024]).unwrap(), vec![4]);
    assert_eq!(e.vector_width(&[1024]).unwrap(), 4);
    // Worked example text in the crate docs.
    let expect = [
        " - register=1 -> (1)",
        "   register=2 -> (2)",
        "   register=4 -> (512)",
        " - lane=1 -> (4)",
        "   lane=2 -> (8)",
        "   lane=4 -> (16)",
        "   lane=8 -> (32)",
        "   lane=16 -> (64)",
        " - warp=1 -> (128)",
        "   warp=2 -> (256)",
        " - block is a size 1 dimension",
        "where out dims are: [dim0 (size 1024)]",
    ];
    assert_eq!(l.to_string(), expect.join("\n"));
    // Smaller shape: warps 2,3 hold copies of warps 0,1.
    let small = e.to_linear(&[256]).unwrap();
    assert_eq!(small.bases(WARP), &[vec![128], vec![0]]);
    assert_eq!(small.warp_broadcast_mask(), 0b10);
    assert_eq!(small.lane_broadcast_mask(), 0);
    assert_eq!(small.in_dim_size(REGISTER), 4);
}

#[test]
fn softmax_and_rmsnorm_blocked_layouts() {
    // softmax/rmsnorm: tensor<4096xf32>, 8 warps.
    let enc = coalesced_blocked(&[4096], &[0], 4, 8, 32);
    assert_eq!(enc, blocked(&[4], &[32], &[8], &[0]));
    let l = enc.to_linear(&[4096]).unwrap();
    assert_eq!(
        l.bases(REGISTER),
        &[vec![1], vec![2], vec![1024], vec![2048]]
    );
    assert_eq!(l.bases(WARP), &[vec![128], vec![256], vec![512]]);
    assert!(l.is_bijective());
    // Per-thread vector width is capped by the element count.
    assert_eq!(
        coalesced_blocked(&[256], &[0], 4, 8, 32),
        blocked(&[1], &[32], &[8], &[0])
    );
    assert_eq!(
        coalesced_blocked(&[512], &[0], 4, 8, 32),
        blocked(&[2], &[32], &[8], &[0])
    );
}

#[test]
fn default_blocked_layouts() {
    assert_eq!(
        default_blocked(&[1024], 4, 32, 1),
        blocked(&[1], &[32], &[4], &[0])
    );
    assert_eq!(
        default_blocked(&[64, 64], 4, 32, 1),
        blocked(&[1, 1], &[1, 32], &[2, 2], &[1, 0])
    );
    assert_eq!(
        default_blocked(&[128, 16], 4, 32, 1),
        blocked(&[1, 1], &[2, 16], &[4, 1], &[1, 0])
    );
    assert_eq!(
        default_blocked(&[16], 4, 32, 1),
        blocked(&[1], &[32], &[4], &[0])
    );
    let multi = default_blocked(&[64, 64], 4, 32, 4);
    assert_eq!(multi.cta_layout.ctas_per_cga, vec![4, 1]);
    assert_eq!(multi.cta_layout.cta_split_num, vec![4, 1]);
    assert_eq!(multi.cta_layout.cta_order, vec![1, 0]);
    let l = multi.to_linear(&[64, 64]).unwrap();
    assert_eq!(l.bases(BLOCK), &[vec![16, 0], vec![32, 0]]);
    assert!(l.is_surjective());
}

#[test]
fn coalesced_matches_matmul_and_syntax_kernels() {
    // matmul.ttgir: A tile 128x64 f16 and B tile 64x256 f16, 8 warps.
    assert_eq!(
        coalesced_blocked(&[128, 64], &[1, 0], 8, 8, 32),
        blocked(&[1, 8], &[4, 8], &[8, 1], &[1, 0])
    );
    assert_eq!(
        coalesced_blocked(&[64, 256], &[1, 0], 8, 8, 32),
        blocked(&[1, 8], &[1, 32], &[8, 1], &[1, 0])
    );
    // s_dot.ttgir: 32x64 f32, 4 warps.
    assert_eq!(
        coalesced_blocked(&[32, 64], &[1, 0], 4, 4, 32),
        blocked(&[1, 4], &[2, 16], &[4, 1], &[1, 0])
    );
    assert_eq!(
        blocked_for_shape(&[128, 32], &[1, 8], &[1, 0], 4, 32, CtaLayout::default()),
        blocked(&[1, 8], &[8, 4], &[4, 1], &[1, 0])
    );
    assert_eq!(order_from_contiguity(&[1, 128]), vec![1, 0]);
    assert_eq!(order_from_contiguity(&[128, 1]), vec![0, 1]);
    assert_eq!(order_from_contiguity(&[8, 8]), vec![1, 0]);
    assert_eq!(order_from_contiguity(&[1, 1, 64, 1]), vec![2, 3, 1, 0]);
    assert_eq!(mem_access_elems_per_thread(16, 16, 64, 64), 8);
    assert_eq!(mem_access_elems_per_thread(32, 4, 64, 64), 1);
    assert_eq!(mem_access_elems_per_thread(8, 16, 4, 64), 4);
}

#[test]
fn blocked_2d_repeats_fastest_dim_first() {
    // s_shapes: sizePerThread [2, 2], threadsPerWarp [32, 1], warps [4, 1].
    let enc = blocked(&[2, 2], &[32, 1], &[4, 1], &[1, 0]);
    let l = enc.to_linear(&[256, 8]).unwrap();
    // sizePerThread (dim1 then dim0), then repeats: dim1 x4, dim0 x1.
    assert_eq!(
        l.bases(REGISTER),
        &[vec![0, 1], vec![1, 0], vec![0, 2], vec![0, 4]]
    );
    assert_eq!(l.bases(LANE)[0], vec![2, 0]);
    assert_eq!(l.bases(WARP), &[vec![64, 0], vec![128, 0]]);
    let e = Encoding::from(enc);
    assert_eq!(e.elems_per_thread(&[256, 8]).unwrap(), vec![2, 8]);
    assert_eq!(e.contig_per_thread(&[256, 8]).unwrap(), vec![2, 8]);
    assert_eq!(e.vector_width(&[256, 8]).unwrap(), 2);
}

#[test]
fn blocked_broadcast_registers_are_kept() {
    // sizePerThread 4 on a 2-element tensor: registers duplicate.
    let l = blocked(&[4], &[32], &[1], &[0]).to_linear(&[2]).unwrap();
    assert_eq!(l.bases(REGISTER), &[vec![1], vec![0]]);
    assert_eq!(l.register_broadcast_mask(), 0b10);
    assert_eq!(l.lane_broadcast_mask(), 0b11111);
    let e = Encoding::from(blocked(&[4], &[32], &[1], &[0]));
    assert_eq!(e.total_elems_per_thread(&[2]).unwrap(), 4);
    assert_eq!(e.elems_per_thread(&[2]).unwrap(), vec![2]);
}

fn random_pow2(rng: &mut Rng, max_log: u32) -> u32 {
    1 << rng.range(0, max_log)
}

fn random_blocked(rng: &mut Rng, rank: usize) -> BlockedEncoding {
    let mut order: Vec<u32> = (0..rank as u32).collect();
    rng.shuffle(&mut order);
    BlockedEncoding::new(
        (0..rank).map(|_| random_pow2(rng, 2)).collect(),
        (0..rank).map(|_| random_pow2(rng, 2)).collect(),
        (0..rank).map(|_| random_pow2(rng, 1)).collect(),
        order,
    )
}

#[test]
fn blocked_covers_every_element_and_holders_are_free_duplicates() {
    let mut rng = Rng::new(11);
    for _ in 0..300 {
        let rank = rng.range(1, 3) as usize;
        let enc = random_blocked(&mut rng, rank);
        let shape: Vec<u32> = (0..rank)
            .map(|_| random_pow2(&mut rng, 4 / rank as u32 + 1))
            .collect();
        let l = enc.to_linear(&shape).unwrap();
        assert_eq!(l.out_dims().iter().map(|d| d.1).collect::<Vec<_>>(), shape);
        // Register count: sizePerThread times the tile repeats.
        let tile = enc.tile_shape();
        let expect_regs: u32 = (0..rank)
            .map(|d| enc.size_per_thread[d] * (shape[d] / tile[d]).max(1))
            .product();
        assert_eq!(l.in_dim_size(REGISTER), expect_regs, "{enc:?} {shape:?}");
        assert_eq!(l.in_dim_size(LANE), enc.num_lanes());
        assert_eq!(l.in_dim_size(WARP), enc.num_warps());
        // Surjective, checked by brute force.
        let table = preimage_table(&l);
        assert_eq!(table.len() as u64, l.total_out_size(), "{enc:?} {shape:?}");
        assert!(l.is_surjective());
        // Every element's holders are its smallest holder XOR any subset of
        // the free bits (which for blocked are exactly the zero bases).
        let masks: Vec<u32> = l
            .free_variable_masks()
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        for n in DISTRIBUTED_IN_DIMS {
            assert_eq!(l.free_variable_mask(n), l.zero_bases_mask(n));
        }
        let free = l.pack_ins(&masks);
        for holders in table.values() {
            let x0 = *holders.iter().min().unwrap();
            assert_eq!(x0 & free, 0);
            let mut expect = vec![];
            let mut s = free;
            loop {
                expect.push(x0 ^ s);
                if s == 0 {
                    break;
                }
                s = (s - 1) & free;
            }
            expect.sort_unstable();
            let mut got = holders.clone();
            got.sort_unstable();
            assert_eq!(got, expect);
        }
    }
}

#[test]
fn slice_layouts() {
    let parent = Encoding::from(blocked(&[1, 4], &[2, 16], &[4, 1], &[1, 0]));
    let s0 = SliceEncoding::new(0, parent.clone());
    let l = s0.to_linear(&[64]).unwrap();
    assert_eq!(l.out_dims(), vec![("dim0", 64)]);
    assert_eq!(l.bases(REGISTER), &[vec![1], vec![2]]);
    assert_eq!(
        l.bases(LANE),
        &[vec![4], vec![8], vec![16], vec![32], vec![0]]
    );
    assert_eq!(l.bases(WARP), &[vec![0], vec![0]]);
    assert_eq!(l.lane_broadcast_mask(), 0b10000);
    assert_eq!(l.warp_broadcast_mask(), 0b11);
    let s1 = SliceEncoding::new(1, parent);
    let l = s1.to_linear(&[8]).unwrap();
    assert_eq!(l.in_dim_size(REGISTER), 1);
    assert_eq!(
        l.bases(LANE),
        &[vec![0], vec![0], vec![0], vec![0], vec![1]]
    );
    assert_eq!(l.bases(WARP), &[vec![2], vec![4]]);
    // matmul: slice dim 1 of blocked1 over 128 rows: 4 registers per thread.
    let b1 = Encoding::from(blocked(&[1, 8], &[4, 8], &[8, 1], &[1, 0]));
    let e = Encoding::Slice(SliceEncoding::new(1, b1));
    let l = e.to_linear(&[128]).unwrap();
    assert_eq!(l.bases(REGISTER), &[vec![32], vec![64]]);
    assert_eq!(
        l.bases(LANE),
        &[vec![0], vec![0], vec![0], vec![1], vec![2]]
    );
    assert_eq!(l.bases(WARP), &[vec![4], vec![8], vec![16]]);
    assert_eq!(e.order(1), vec![0]);
    assert_eq!(e.total_elems_per_thread(&[128]).unwrap(), 4);
    // Slicing the middle dim of a rank-3 layout renames the later dim.
    let p3 = Encoding::from(blocked(&[1, 2, 2], &[32, 1, 1], &[4, 1, 1], &[2, 1, 0]));
    let l = SliceEncoding::new(1, p3.clone())
        .to_linear(&[128, 4])
        .unwrap();
    assert_eq!(l.out_dim_names(), vec!["dim0", "dim1"]);
    assert_eq!(l.bases(REGISTER), &[vec![0, 1], vec![0, 2]]);
    assert_eq!(
        Encoding::Slice(SliceEncoding::new(1, p3)).order(2),
        vec![1, 0]
    );
}

#[test]
fn mma_v2_accumulator_one_warp() {
    let mma = NvidiaMmaEncoding::v2(vec![1, 1]);
    let l = mma.to_linear(&[16, 8]).unwrap();
    assert_eq!(l.bases(REGISTER), &[vec![0, 1], vec![8, 0]]);
    assert_eq!(
        l.bases(LANE),
        &[vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]
    );
    assert!(l.is_bijective());
    for t in 0..32 {
        let regs = l.register_coords(t, 0, 0);
        assert_eq!(
            regs,
            vec![
                vec![t / 4, 2 * (t % 4)],
                vec![t / 4, 2 * (t % 4) + 1],
                vec![t / 4 + 8, 2 * (t % 4)],
                vec![t / 4 + 8, 2 * (t % 4) + 1],
            ]
        );
    }
}

#[test]
fn mma_v2_accumulator_many_warps_and_repeats() {
    // warps [2, 2] (row-major), shape 64x32: repeats along N then M.
    let l = NvidiaMmaEncoding::v2(vec![2, 2])
        .to_linear(&[64, 32])
        .unwrap();
    assert_eq!(l.in_dim_size(REGISTER), 16);
    for r in 0..16 {
        for t in 0..32 {
            for w in 0..4 {
                let (r0, r1, r2, r3) = (r & 1, (r >> 1) & 1, (r >> 2) & 1, r >> 3);
                let (wn, wm) = (w & 1, w >> 1);
                let row = t / 4 + 8 * r1 + 16 * wm + 32 * r3;
                let col = 2 * (t % 4) + r0 + 8 * wn + 16 * r2;
                assert_eq!(coords(&l, r, t, w), vec![row, col]);
            }
        }
    }
    assert!(l.is_bijective());
    let e = Encoding::from(NvidiaMmaEncoding::v2(vec![2, 2]));
    assert_eq!(e.elems_per_thread(&[64, 32]).unwrap(), vec![4, 4]);
    assert_eq!(e.contig_per_thread(&[64, 32]).unwrap(), vec![1, 2]);
    // Small shape: warps along N broadcast.
    let s = NvidiaMmaEncoding::v2(vec![2, 2])
        .to_linear(&[32, 8])
        .unwrap();
    assert_eq!(s.warp_broadcast_mask(), 0b01);
    // Batched.
    let b = NvidiaMmaEncoding::v2(vec![2, 1, 1])
        .to_linear(&[2, 16, 8])
        .unwrap();
    assert!(b.is_bijective());
    assert_eq!(b.bases(WARP), &[vec![1, 0, 0]]);
}

#[test]
fn mma_v3_accumulator() {
    // 4 warps (one warpgroup) cover 64 rows; each warp 16 rows x N.
    let mma = NvidiaMmaEncoding::v3(vec![4, 1], 64, 16);
    let l = mma.to_linear(&[64, 64]).unwrap();
    assert_eq!(l.in_dim_size(REGISTER), 32);
    assert!(l.is_bijective());
    for r in 0..32 {
        for t in 0..32 {
            for w in 0..4 {
                let row = t / 4 + 8 * ((r >> 1) & 1) + 16 * w;
                let col = 2 * (t % 4) + (r & 1) + 8 * (r >> 2);
                assert_eq!(coords(&l, r, t, w), vec![row, col]);
            }
        }
    }
    // matmul.ttgir: 128x256 accumulator, 8 warps, instrShape [16, 256, 16].
    let e = Encoding::from(NvidiaMmaEncoding::v3(vec![8, 1], 256, 16));
    assert_eq!(e.total_elems_per_thread(&[128, 256]).unwrap(), 128);
    let l = e.to_linear(&[128, 256]).unwrap();
    assert!(l.is_bijective());
    assert_eq!(l.bases(WARP), &[vec![16, 0], vec![32, 0], vec![64, 0]]);
    // Warps [4, 2]: warps 0-3 are the first warpgroup (rows), bit 2 is N.
    let l = NvidiaMmaEncoding::v3(vec![4, 2], 64, 16)
        .to_linear(&[64, 128])
        .unwrap();
    assert_eq!(l.bases(WARP), &[vec![16, 0], vec![32, 0], vec![0, 64]]);
    assert!(
        NvidiaMmaEncoding::v3(vec![2, 2], 64, 16)
            .to_linear(&[64, 64])
            .is_err()
    );
}

#[test]
fn mma_v2_dot_operands_match_ptx_fragments() {
    let mma = Encoding::from(NvidiaMmaEncoding::v2(vec![1, 1]));
    // A (m16n8k16, f16, kWidth 2): a0..a7.
    let a = DotOperandEncoding::new(0, mma.clone(), 2)
        .to_linear(&[16, 16])
        .unwrap();
    assert!(a.is_bijective());
    for t in 0..32 {
        let (g, tig) = (t / 4, t % 4);
        let regs = a.register_coords(t, 0, 0);
        for (i, c) in regs.iter().enumerate() {
            let i = i as u32;
            let row = g + 8 * ((i >> 1) & 1);
            let col = 2 * tig + (i & 1) + 8 * (i >> 2);
            assert_eq!(c, &vec![row, col], "lane {t} reg {i}");
        }
    }
    // B (k16 x n8, f16): b0..b3.
    let b = DotOperandEncoding::new(1, mma.clone(), 2)
        .to_linear(&[16, 8])
        .unwrap();
    assert!(b.is_bijective());
    for t in 0..32 {
        let (g, tig) = (t / 4, t % 4);
        for (i, c) in b.register_coords(t, 0, 0).iter().enumerate() {
            let i = i as u32;
            assert_eq!(c, &vec![2 * tig + (i & 1) + 8 * (i >> 1), g]);
        }
    }
    // tf32 (kWidth 1): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4).
    let a1 = DotOperandEncoding::new(0, mma.clone(), 1)
        .to_linear(&[16, 8])
        .unwrap();
    for t in 0..32 {
        let (g, tig) = (t / 4, t % 4);
        assert_eq!(
            a1.register_coords(t, 0, 0),
            vec![
                vec![g, tig],
                vec![g + 8, tig],
                vec![g, tig + 4],
                vec![g + 8, tig + 4]
            ]
        );
    }
    // Warps broadcast along K: with warps [2, 2], A ignores the N warp bit.
    let mma22 = Encoding::from(NvidiaMmaEncoding::v2(vec![2, 2]));
    let a = DotOperandEncoding::new(0, mma22.clone(), 2)
        .to_linear(&[32, 32])
        .unwrap();
    assert_eq!(a.bases(WARP), &[vec![0, 0], vec![16, 0]]);
    // K repeats come first in the registers.
    assert_eq!(a.bases(REGISTER)[3], vec![0, 16]);
    let b = DotOperandEncoding::new(1, mma22, 2)
        .to_linear(&[32, 32])
        .unwrap();
    assert_eq!(b.bases(WARP), &[vec![0, 8], vec![0, 0]]);
    assert_eq!(b.bases(REGISTER)[2], vec![16, 0]);
    let e = Encoding::from(DotOperandEncoding::new(0, mma, 2));
    assert_eq!(e.order(2), vec![1, 0]);
    assert_eq!(e.vector_width(&[16, 16]).unwrap(), 2);
}

#[test]
fn mma_v3_and_fma_dot_operands() {
    // s_dot.ttgir: A in registers for wgmma, 64x32, warps [4, 1].
    let mma = Encoding::from(NvidiaMmaEncoding::v3(vec![4, 1], 64, 16));
    let a = DotOperandEncoding::new(0, mma.clone(), 2)
        .to_linear(&[64, 32])
        .unwrap();
    assert!(a.is_bijective());
    assert_eq!(a.bases(WARP), &[vec![16, 0], vec![32, 0]]);
    assert!(
        DotOperandEncoding::new(1, mma, 2)
            .to_linear(&[32, 64])
            .is_err()
    );
    // FMA: blocked parent, whole K in registers, lanes/warps along K broadcast.
    let p = Encoding::from(blocked(&[4, 4], &[2, 16], &[4, 1], &[1, 0]));
    let a = DotOperandEncoding::new(0, p.clone(), 0)
        .to_linear(&[64, 32])
        .unwrap();
    assert!(a.is_surjective());
    assert_eq!(a.in_dim_size(REGISTER), 32 * 8);
    assert_eq!(a.lane_broadcast_mask(), 0b01111);
    let b = DotOperandEncoding::new(1, p, 0)
        .to_linear(&[32, 64])
        .unwrap();
    assert!(b.is_surjective());
    assert_eq!(b.lane_broadcast_mask(), 0b10000);
    assert_eq!(b.warp_broadcast_mask(), 0b11);
}

fn swizzled_offset(vec: u32, per_phase: u32, max_phase: u32, cols: u32, r: u32, c: u32) -> u32 {
    let phase = (r / per_phase) % max_phase;
    r * cols + ((((c / vec) ^ phase) * vec) % cols) + c % vec
}

#[test]
fn swizzled_shared_layouts() {
    for (vec, per_phase, max_phase, rows, cols) in [
        (8, 1, 4, 16, 64),
        (4, 1, 8, 64, 32),
        (4, 2, 4, 32, 16),
        (1, 1, 1, 8, 8),
        (8, 1, 8, 8, 16),
    ] {
        let enc = SwizzledSharedEncoding::new(vec, per_phase, max_phase, vec![1, 0]);
        let l = enc.to_linear(&[rows, cols]).unwrap();
        assert_eq!(l.in_dim_names(), SHARED_IN_DIMS.to_vec());
        assert!(l.is_bijective());
        let inv = l.invert().unwrap();
        for r in 0..rows {
            for c in 0..cols {
                let off = swizzled_offset(vec, per_phase, max_phase, cols, r, c);
                assert_eq!(
                    l.apply_flat(&[off, 0]),
                    vec![r, c],
                    "{vec} {per_phase} {max_phase}"
                );
                assert_eq!(inv.apply_flat(&[r, c]), vec![off, 0]);
            }
        }
        // order [0, 1]: dim0 is the contiguous one.
        let t = SwizzledSharedEncoding::new(vec, per_phase, max_phase, vec![0, 1])
            .to_linear(&[cols, rows])
            .unwrap();
        for r in 0..rows {
            for c in 0..cols {
                let off = swizzled_offset(vec, per_phase, max_phase, cols, r, c);
                assert_eq!(t.apply_flat(&[off, 0]), vec![c, r]);
            }
        }
    }
    let l1 = SwizzledSharedEncoding::new(1, 1, 1, vec![0])
        .to_linear(&[128])
        .unwrap();
    assert_eq!(
        l1,
        LinearLayout::identity_1d(128, OFFSET, "dim0")
            .with_in_dims(&SHARED_IN_DIMS)
            .unwrap()
    );
    // Rank 3, order [2, 1, 0]: dim0 is slowest.
    let l3 = SwizzledSharedEncoding::new(2, 1, 2, vec![2, 1, 0])
        .to_linear(&[2, 4, 4])
        .unwrap();
    assert!(l3.is_bijective());
    assert_eq!(l3.bases(OFFSET).last().unwrap(), &vec![1, 0, 0]);
}

fn nvmma_offset(s: u32, bits: u32, transposed: bool, shape: &[u32], idx: &[u32]) -> u32 {
    let n = shape.len();
    let (row, col, rows, cols) = if transposed {
        (idx[n - 1], idx[n - 2], shape[n - 1], shape[n - 2])
    } else {
        (idx[n - 2], idx[n - 1], shape[n - 2], shape[n - 1])
    };
    let mut batch = 0;
    for d in 0..n - 2 {
        batch = batch * shape[d] + idx[d];
    }
    let inner = if s == 0 {
        row * cols + col
    } else {
        let tile_cols = 8 * s / bits;
        let vec = 128 / bits;
        let (per_phase, max_phase) = (128 / s, s / 16);
        let block = col / tile_cols;
        let cc = col % tile_cols;
        let phase = (row / per_phase) % max_phase;
        block * rows * tile_cols + row * tile_cols + ((cc / vec) ^ phase) * vec + cc % vec
    };
    batch * rows * cols + inner
}

#[test]
fn nvmma_shared_layouts() {
    let cases: &[(u32, u32, bool, &[u32])] = &[
        (128, 16, false, &[64, 64]),
        (128, 16, false, &[16, 128]),
        (64, 16, false, &[32, 32]),
        (32, 16, false, &[16, 16]),
        (128, 8, false, &[16, 128]),
        (32, 8, false, &[64, 32]),
        (32, 8, true, &[32, 64]),
        (128, 32, true, &[32, 64]),
        (128, 32, false, &[32, 64]),
        (64, 16, true, &[32, 64]),
        (0, 16, false, &[16, 32]),
        (128, 16, false, &[4, 128, 64]),
    ];
    for &(s, bits, transposed, shape) in cases {
        let enc = NvmmaSharedEncoding::new(s, transposed, bits);
        let l = enc.to_linear(shape).unwrap();
        assert!(l.is_bijective(), "{enc:?} {shape:?}");
        let total: u32 = shape.iter().product();
        for off in 0..total {
            let idx = l.apply_flat(&[off, 0]);
            assert_eq!(
                nvmma_offset(s, bits, transposed, shape, &idx),
                off,
                "{enc:?} {shape:?}"
            );
        }
        assert_eq!(
            Encoding::from(enc).order(shape.len())[0] as usize,
            if transposed {
                shape.len() - 2
            } else {
                shape.len() - 1
            }
        );
    }
    // Smaller than one atom.
    assert!(
        NvmmaSharedEncoding::new(128, false, 16)
            .to_linear(&[64, 32])
            .is_err()
    );
    assert!(
        NvmmaSharedEncoding::new(128, false, 16)
            .to_linear(&[4, 64])
            .is_err()
    );
}

#[test]
fn register_to_shared_vectorisation() {
    // A blocked layout storing 8 f16 per thread along the row into a 128B
    // swizzled buffer: each thread's 8 registers are one 16-byte chunk.
    let reg = blocked(&[1, 8], &[4, 8], &[8, 1], &[1, 0])
        .to_linear(&[128, 64])
        .unwrap();
    let smem = NvmmaSharedEncoding::new(128, false, 16)
        .to_linear(&[128, 64])
        .unwrap();
    let m = reg.invert_and_compose(&smem).unwrap();
    assert_eq!(m.out_dim_names(), vec![OFFSET, BLOCK]);
    assert_eq!(m.get_num_consecutive_in_out(OFFSET), 8);
    for x in 0..reg.total_in_size() {
        let regin = reg.unpack_ins(x);
        let off = m.apply_flat(&regin);
        assert_eq!(smem.apply_flat(&off), reg.apply_flat(&regin));
    }
    // Against a swizzle with vec 4, only 4 consecutive registers stay together.
    let sw = SwizzledSharedEncoding::new(4, 1, 8, vec![1, 0])
        .to_linear(&[128, 64])
        .unwrap();
    assert_eq!(
        reg.invert_and_compose(&sw)
            .unwrap()
            .get_num_consecutive_in_out(OFFSET),
        4
    );
}

#[test]
fn cta_layouts() {
    // 2 CTAs split dim0, 2 more broadcast.
    let cta = CtaLayout::new(vec![4, 1], vec![2, 1], vec![1, 0]);
    let mut enc = blocked(&[1, 4], &[4, 8], &[4, 1], &[1, 0]);
    enc.cta_layout = cta.clone();
    let l = enc.to_linear(&[64, 32]).unwrap();
    assert_eq!(l.bases(BLOCK), &[vec![32, 0], vec![0, 0]]);
    assert_eq!(l.block_broadcast_mask(), 0b10);
    assert!(l.is_surjective());
    assert_eq!(cta.shape_per_cta(&[64, 32]), vec![32, 32]);
    assert_eq!(cta.num_ctas(), 4);
    let bad = CtaLayout::new(vec![2, 1], vec![4, 1], vec![1, 0]);
    assert!(bad.validate(2).is_err());
    // Split larger than the shape: wraps.
    let mut enc = blocked(&[1], &[32], &[1], &[0]);
    enc.cta_layout = CtaLayout::new(vec![4], vec![4], vec![0]);
    let l = enc.to_linear(&[2]).unwrap();
    assert_eq!(l.out_dims(), vec![("dim0", 2)]);
    assert!(l.is_surjective());
    // Shared with CTAs.
    let mut sh = SwizzledSharedEncoding::new(1, 1, 1, vec![1, 0]);
    sh.cta_layout = CtaLayout::new(vec![1, 2], vec![1, 2], vec![1, 0]);
    let l = sh.to_linear(&[8, 16]).unwrap();
    assert_eq!(l.in_dim_size(OFFSET), 64);
    assert_eq!(l.bases(BLOCK), &[vec![0, 8]]);
    assert!(l.is_bijective());
}

#[test]
fn invalid_encodings_are_errors() {
    assert!(blocked(&[3], &[32], &[4], &[0]).to_linear(&[128]).is_err());
    assert!(blocked(&[1], &[32], &[4], &[1]).to_linear(&[128]).is_err());
    assert!(
        blocked(&[1, 1], &[32, 1], &[4, 1], &[0, 1])
            .to_linear(&[128])
            .is_err()
    );
    assert!(blocked(&[1], &[32], &[4], &[0]).to_linear(&[100]).is_err());
    let mut mma = NvidiaMmaEncoding::v2(vec![1, 1]);
    mma.instr_shape = vec![16, 16];
    assert!(mma.to_linear(&[16, 16]).is_err());
    let dot = DotOperandEncoding::new(0, Encoding::from(NvidiaMmaEncoding::v2(vec![1, 1])), 0);
    assert!(dot.to_linear(&[16, 16]).is_err());
    let sl = SliceEncoding::new(
        0,
        Encoding::from(SwizzledSharedEncoding::new(1, 1, 1, vec![1, 0])),
    );
    assert!(sl.to_linear(&[8]).is_err());
    let mut nv = NvmmaSharedEncoding::new(128, false, 16);
    nv.fp4_padded = true;
    assert!(nv.to_linear(&[64, 64]).is_err());
}

fn linear(register: &[[u32; 2]], lane: &[[u32; 2]], warp: &[[u32; 2]]) -> LinearEncoding {
    let v = |b: &[[u32; 2]]| b.iter().map(|x| x.to_vec()).collect::<Vec<_>>();
    LinearEncoding::new(v(register), v(lane), v(warp), vec![])
}

#[test]
fn linear_encoding_is_its_bases() {
    let enc = linear(
        &[[0, 1], [0, 2]],
        &[[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]],
        &[[4, 0], [8, 0]],
    );
    let e = Encoding::from(enc.clone());
    let l = e.to_linear(&[16, 32]).unwrap();
    assert_eq!(l.in_dim_names(), DISTRIBUTED_IN_DIMS.to_vec());
    assert_eq!(l.bases(REGISTER), enc.register.as_slice());
    assert_eq!(l.bases(LANE), enc.lane.as_slice());
    assert_eq!(l.bases(WARP), enc.warp.as_slice());
    assert!(l.is_bijective());
    assert_eq!(LinearEncoding::from_layout(&l).unwrap(), enc);
    assert_eq!(
        (e.rank(), e.num_warps(), e.threads_per_warp(), e.num_ctas()),
        (Some(2), Some(4), Some(32), Some(1))
    );
    assert_eq!(e.order(2), vec![1, 0]);
    assert_eq!(e.vector_width(&[16, 32]).unwrap(), 4);
    assert_eq!(e.cta_layout(), None);
    // A linear layout of a blocked one is the same map.
    let b = blocked(&[1, 4], &[4, 8], &[2, 2], &[1, 0]);
    let bl = b.to_linear(&[32, 64]).unwrap();
    let as_linear = Encoding::from(LinearEncoding::from_layout(&bl).unwrap());
    assert_eq!(as_linear.to_linear(&[32, 64]).unwrap(), bl);
}

#[test]
fn linear_encoding_fits_other_shapes() {
    let enc = linear(&[[0, 1]], &[[0, 2], [1, 0]], &[[2, 0]]);
    // The bases cover 4x4; a 4x8 tensor repeats them in a register (dim 1
    // is the fastest: registers move along it first).
    assert_eq!(enc.order(), vec![1, 0]);
    let wide = enc.to_linear(&[4, 8]).unwrap();
    assert_eq!(wide.bases(REGISTER), &[vec![0, 1], vec![0, 4]]);
    assert_eq!(wide.bases(WARP), &[vec![2, 0]]);
    // A 2x4 tensor: the warp basis wraps to a broadcast.
    let short = enc.to_linear(&[2, 4]).unwrap();
    assert_eq!(short.bases(WARP), &[vec![0, 0]]);
    assert_eq!(short.warp_broadcast_mask(), 1);
    // A 4x1 tensor: the register basis along dim 1 is dropped.
    let narrow = enc.to_linear(&[4, 1]).unwrap();
    assert!(narrow.bases(REGISTER).is_empty());
    assert_eq!(narrow.bases(LANE), &[vec![0, 0], vec![1, 0]]);
    assert!(enc.to_linear(&[4]).is_err());
}

#[test]
fn verify_reports_the_dialect_rules() {
    let ok = Encoding::from(blocked(&[1, 8], &[4, 8], &[8, 1], &[1, 0]));
    assert_eq!(ok.verify(), Ok(()));
    let bad = Encoding::from(blocked(&[4], &[3], &[4], &[0]));
    assert_eq!(
        bad.verify(),
        Err("threadsPerWarp [3] must hold powers of two".to_owned())
    );
    let order = Encoding::from(blocked(&[1, 1], &[4, 8], &[4, 1], &[0, 0]));
    assert_eq!(
        order.verify(),
        Err("order [0, 0] must be a permutation of 0..2".to_owned())
    );
    let slice = Encoding::from(SliceEncoding::new(2, ok.clone()));
    assert_eq!(
        slice.verify(),
        Err("slice dim 2 is out of range for a parent of rank 2".to_owned())
    );
    let mma = Encoding::from(NvidiaMmaEncoding::v3(vec![8, 1], 256, 16));
    assert_eq!(mma.verify(), Ok(()));
    let b_of_v3 = Encoding::from(DotOperandEncoding::new(1, mma.clone(), 2));
    assert_eq!(
        b_of_v3.verify(),
        Err("wgmma reads B from shared memory: opIdx must be 0 for a version 3 parent".to_owned())
    );
    let mut ragged = linear(&[[0, 1]], &[[0, 2]], &[]);
    ragged.lane[0].push(0);
    assert_eq!(
        Encoding::from(ragged).verify(),
        Err("every basis must have 2 entries".to_owned())
    );
    let nvmma = Encoding::from(NvmmaSharedEncoding::new(96, false, 16));
    assert_eq!(
        nvmma.verify(),
        Err("swizzlingByteWidth must be 0, 32, 64 or 128, not 96".to_owned())
    );
    let mut multi = blocked(&[1, 1], &[4, 8], &[4, 1], &[1, 0]);
    multi.cta_layout = CtaLayout::new(vec![1, 2], vec![2, 1], vec![1, 0]);
    assert_eq!(
        Encoding::from(multi).verify(),
        Err("CTASplitNum [2, 1] must divide CTAsPerCGA [1, 2]".to_owned())
    );
    // Well-formed, but without a linear layout: verify accepts it, to_linear does not.
    let odd = Encoding::from(blocked(&[3], &[32], &[4], &[0]));
    assert_eq!(odd.verify(), Ok(()));
    assert!(odd.to_linear(&[512]).is_err());
}

// ---------------------------------------------------------------------------
// Limits: oversized encodings and shapes are errors, quickly.
// ---------------------------------------------------------------------------

fn assert_layout_error(result: Result<LinearLayout, crate::LayoutError>, needle: &str) {
    match result {
        Ok(l) => panic!(
            "expected an error mentioning {needle:?}, got a layout of {} registers",
            l.in_dim_size(REGISTER)
        ),
        Err(e) => assert!(
            e.to_string().contains(needle),
            "{e} does not mention {needle:?}"
        ),
    }
}

#[test]
fn blocked_tile_of_2_pow_33_is_an_error() {
    // sizePerThread * threadsPerWarp * warpsPerCTA = 2^26 * 32 * 4 = 2^33 (was a panic in the
    // layout product).
    let enc = blocked(&[1 << 26], &[32], &[4], &[0]);
    assert_layout_error(enc.to_linear(&[1024]), "sizePerThread");
    let enc = blocked(&[1 << 16], &[1 << 10], &[1 << 7], &[0]);
    assert_layout_error(enc.to_linear(&[1024]), "CTA tile");
    // Two dims whose products overflow u32.
    let enc = blocked(&[1, 1], &[1 << 20, 1 << 20], &[1, 1], &[1, 0]);
    assert_layout_error(enc.to_linear(&[1024, 1024]), "threadsPerWarp");
}

#[test]
fn too_many_registers_per_thread_is_an_error() {
    // 2^20 registers per thread, held even though the tensor has 1024 elements.
    let enc = blocked(&[1 << 20], &[32], &[4], &[0]);
    assert_layout_error(enc.to_linear(&[1024]), "sizePerThread");
    // 2^22 elements over 128 threads: 2^15 registers are fine, 2^24 elements are not.
    let enc = blocked(&[1], &[32], &[4], &[0]);
    assert_eq!(
        enc.to_linear(&[1 << 22]).unwrap().in_dim_size(REGISTER),
        1 << 15
    );
    assert_layout_error(enc.to_linear(&[1 << 24]), "registers");
    // A dot operand holds its whole K extent.
    let dot = DotOperandEncoding::new(
        0,
        Encoding::Blocked(blocked(&[1, 1], &[4, 8], &[4, 1], &[1, 0])),
        0,
    );
    assert_layout_error(dot.to_linear(&[16, 1 << 20]), "registers");
}

#[test]
fn oversized_shapes_are_errors() {
    let enc = blocked(&[1], &[32], &[4], &[0]);
    assert_layout_error(enc.to_linear(&[1 << 31]), "larger than 2^24");
    let shared = SwizzledSharedEncoding::new(1, 1, 1, vec![1, 0]);
    assert_layout_error(shared.to_linear(&[1 << 30, 2]), "larger than 2^24");
    let mma = NvidiaMmaEncoding::v2(vec![1 << 20, 1 << 20]);
    assert_layout_error(mma.to_linear(&[64, 64]), "warpsPerCTA");
    let mut hopper = NvidiaMmaEncoding::v3(vec![4, 1], 1 << 20, 16);
    assert_layout_error(hopper.to_linear(&[64, 64]), "instrShape");
    hopper.instr_shape[1] = 256;
    assert!(hopper.to_linear(&[64, 256]).is_ok());
    let dot = DotOperandEncoding::new(
        0,
        Encoding::NvidiaMma(NvidiaMmaEncoding::v2(vec![4, 1])),
        1 << 30,
    );
    assert_layout_error(dot.to_linear(&[64, 64]), "kWidth");
}

#[test]
fn degenerate_heuristic_inputs_do_not_panic() {
    // Rank 0, zero warps or threads: an encoding whose to_linear says what is wrong.
    assert!(default_blocked(&[], 4, 32, 2).to_linear(&[]).is_err());
    let enc = default_blocked(&[1024], 0, 0, 1);
    assert!(enc.validate().is_ok());
    let enc = coalesced_blocked(&[64], &[], 4, 0, 32);
    assert_eq!(enc.rank(), 0);
}

/// The worked example of docs/tensor-cores.md: which thread of a 128x64 `#ttg.nvidia_mma` v3
/// accumulator (`instrShape = [16, 64, 16]`, `warpsPerCTA = [8, 1]`) holds which element, and
/// the wgmma A operand in registers (`#ttg.dot_op<{opIdx = 0, kWidth = 2}>`) over K = 32.
#[test]
fn tensor_core_worked_example() {
    use crate::encoding::{DotOperandEncoding, Encoding, NvidiaMmaEncoding};
    let mma = Encoding::NvidiaMma(NvidiaMmaEncoding::v3(vec![8, 1], 64, 16));
    let acc = mma.to_linear(&[128, 64]).unwrap();
    // 32 f32 registers per thread: the mma.sync C pattern (rows g and g + 8, columns 2t and
    // 2t + 1 of each 8 columns), for each of the 8 column groups.
    let lane0 = acc.register_coords(0, 0, 0);
    assert_eq!(lane0.len(), 32);
    assert_eq!(
        &lane0[..8],
        &[
            vec![0, 0],
            vec![0, 1],
            vec![8, 0],
            vec![8, 1],
            vec![0, 8],
            vec![0, 9],
            vec![8, 8],
            vec![8, 9]
        ]
    );
    // Lane 5 = group 1, thread-in-group 1; warp 5 = warpgroup 1, warp 1 in it: rows 16*5 + 1.
    let lane5_warp5 = acc.register_coords(5, 5, 0);
    assert_eq!(
        &lane5_warp5[..4],
        &[vec![81, 2], vec![81, 3], vec![89, 2], vec![89, 3]]
    );
    assert_eq!(lane5_warp5[31], vec![89, 59]);
    // The register A operand: per 16x16 K tile, a0 a1 (row g, k 2t..2t+1), a2 a3 (row g + 8),
    // a4 a5 (row g, k + 8), a6 a7 (row g + 8, k + 8).
    let a = Encoding::DotOperand(DotOperandEncoding::new(0, mma, 2))
        .to_linear(&[128, 32])
        .unwrap();
    let a5 = a.register_coords(5, 0, 0);
    assert_eq!(
        &a5[..8],
        &[
            vec![1, 2],
            vec![1, 3],
            vec![9, 2],
            vec![9, 3],
            vec![1, 10],
            vec![1, 11],
            vec![9, 10],
            vec![9, 11]
        ]
    );
    assert_eq!(a5.len(), 16);
}
