use super::{Rng, preimage_table};
use crate::conversion::*;
use crate::encoding::*;
use crate::linear::*;

/// A random surjective distributed layout over `outs`: the unit vectors of
/// every output bit, shuffled and dealt to lanes, warps and blocks (some of
/// whose bases are broadcasts), the rest to registers (with some duplicated
/// registers); optionally some bases are XORed together (a swizzle).
fn random_distributed(rng: &mut Rng, outs: &[(String, u32)], counts: [u32; 3]) -> LinearLayout {
    let n_out = outs.len();
    let mut pool: Vec<Vec<u32>> = vec![];
    for (j, (_, s)) in outs.iter().enumerate() {
        for b in 0..s.trailing_zeros() {
            let mut v = vec![0; n_out];
            v[j] = 1 << b;
            pool.push(v);
        }
    }
    rng.shuffle(&mut pool);
    let zero = vec![0u32; n_out];
    let deal = |k: u32, rng: &mut Rng, pool: &mut Vec<Vec<u32>>| -> Vec<Vec<u32>> {
        (0..k)
            .map(|_| {
                if pool.is_empty() || rng.chance(1, 4) {
                    zero.clone()
                } else {
                    pool.pop().unwrap()
                }
            })
            .collect()
    };
    let lanes = deal(counts[0], rng, &mut pool);
    let warps = deal(counts[1], rng, &mut pool);
    let blocks = deal(counts[2], rng, &mut pool);
    let mut regs = vec![];
    for v in pool {
        if rng.chance(1, 6) {
            regs.push(vec![0; n_out]);
        }
        regs.push(v);
    }
    let mut l = LinearLayout::from_bases(
        vec![
            (REGISTER, regs),
            (LANE, lanes),
            (WARP, warps),
            (BLOCK, blocks),
        ],
        outs.iter().map(|(n, s)| (n.as_str(), *s)).collect(),
    )
    .unwrap();
    if rng.chance(1, 3) {
        l = xor_mutation(rng, &l);
    }
    l
}

fn set_bases(l: &LinearLayout, dim: &str, bases: Vec<Vec<u32>>) -> LinearLayout {
    let ins: Vec<(&str, Vec<Vec<u32>>)> = DISTRIBUTED_IN_DIMS
        .iter()
        .map(|n| {
            (
                *n,
                if *n == dim {
                    bases.clone()
                } else {
                    l.bases(n).to_vec()
                },
            )
        })
        .collect();
    LinearLayout::from_bases(ins, l.out_dims()).unwrap()
}

fn xor(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// XORs one basis into another (keeps the span, so stays surjective).
fn xor_mutation(rng: &mut Rng, l: &LinearLayout) -> LinearLayout {
    let all: Vec<(&str, usize)> = DISTRIBUTED_IN_DIMS
        .iter()
        .flat_map(|n| (0..l.bases(n).len()).map(move |i| (*n, i)))
        .collect();
    if all.len() < 2 {
        return l.clone();
    }
    let (d1, i1) = all[rng.below(all.len() as u64) as usize];
    let (d2, i2) = all[rng.below(all.len() as u64) as usize];
    if (d1, i1) == (d2, i2) {
        return l.clone();
    }
    let mut b = l.bases(d1).to_vec();
    b[i1] = xor(&b[i1], l.basis(d2, i2));
    let m = set_bases(l, d1, b);
    if m.is_surjective() { m } else { l.clone() }
}

fn swap_between(rng: &mut Rng, l: &LinearLayout, d1: &str, d2: &str) -> LinearLayout {
    let (n1, n2) = (l.bases(d1).len(), l.bases(d2).len());
    if n1 == 0 || n2 == 0 {
        return l.clone();
    }
    let i = rng.below(n1 as u64) as usize;
    let j = rng.below(n2 as u64) as usize;
    let mut b1 = l.bases(d1).to_vec();
    let mut b2 = l.bases(d2).to_vec();
    std::mem::swap(&mut b1[i], &mut b2[j]);
    set_bases(&set_bases(l, d1, b1), d2, b2)
}

fn mutate(
    rng: &mut Rng,
    src: &LinearLayout,
    outs: &[(String, u32)],
    counts: [u32; 3],
) -> LinearLayout {
    match rng.below(9) {
        0 => src.clone(),
        1 => {
            let mut r = src.bases(REGISTER).to_vec();
            rng.shuffle(&mut r);
            set_bases(src, REGISTER, r)
        }
        2 => swap_between(rng, src, REGISTER, LANE),
        3 => swap_between(rng, src, LANE, WARP),
        4 => swap_between(rng, src, WARP, BLOCK),
        5 => {
            // Duplicate or drop registers.
            let mut r = src.bases(REGISTER).to_vec();
            if rng.chance(1, 2) || r.is_empty() {
                let pos = rng.below(r.len() as u64 + 1) as usize;
                r.insert(pos, vec![0; outs.len()]);
            } else if let Some(p) = r.iter().position(|b| b.iter().all(|&c| c == 0)) {
                r.remove(p);
            }
            set_bases(src, REGISTER, r)
        }
        6 => xor_mutation(rng, src),
        7 => {
            let m = swap_between(rng, src, LANE, LANE);
            swap_between(rng, &m, REGISTER, LANE)
        }
        _ => random_distributed(rng, outs, counts),
    }
}

/// Classification by enumerating every destination thread and register.
fn brute_force(src: &LinearLayout, dst: &LinearLayout) -> (ConversionKind, bool) {
    let same = src.in_dim_size(REGISTER) == dst.in_dim_size(REGISTER)
        && (0..src.total_in_size()).all(|x| src.apply_packed(x) == dst.apply_packed(x));
    let table = preimage_table(src);
    let mut level = 0;
    let mut crosses = false;
    for x in 0..dst.total_in_size() {
        let xi = dst.unpack_ins(x);
        let holders = &table[&dst.apply_packed(x)];
        let mut best = 3;
        let mut same_block = false;
        for &h in holders {
            let hi = src.unpack_ins(h);
            let lvl = if hi[1..] == xi[1..] {
                1
            } else if hi[2..] == xi[2..] {
                2
            } else {
                3
            };
            best = best.min(lvl);
            same_block |= hi[3] == xi[3];
        }
        level = level.max(best);
        crosses |= !same_block;
    }
    let kind = if same {
        ConversionKind::NoOp
    } else {
        match level {
            0 | 1 => ConversionKind::RegisterPermute,
            2 => ConversionKind::IntraWarp,
            _ => ConversionKind::SharedMemory,
        }
    };
    (kind, crosses)
}

#[test]
fn classification_agrees_with_brute_force() {
    let mut rng = Rng::new(21);
    let mut seen = std::collections::HashMap::new();
    let mut crossing = 0;
    for _ in 0..400 {
        let n_out = rng.range(1, 2) as usize;
        let outs: Vec<(String, u32)> = (0..n_out)
            .map(|j| (out_dim_name(j), 1 << rng.range(1, 7 / n_out as u32)))
            .collect();
        let counts = [rng.range(0, 3), rng.range(0, 2), rng.range(0, 1)];
        let src = random_distributed(&mut rng, &outs, counts);
        let dst = mutate(&mut rng, &src, &outs, counts);
        let got = classify_conversion(&src, &dst).unwrap();
        let (want, crosses) = brute_force(&src, &dst);
        assert_eq!(got, want, "src:\n{src}\ndst:\n{dst}");
        assert_eq!(conversion_crosses_ctas(&src, &dst).unwrap(), crosses);
        crossing += crosses as u32;
        *seen.entry(got).or_insert(0) += 1;
    }
    // Every kind is exercised.
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.values().all(|&c| c >= 20), "{seen:?}");
    assert!(crossing >= 10);
}

#[test]
fn classification_of_encodings() {
    let b4 = Encoding::from(BlockedEncoding::new(vec![4], vec![32], vec![4], vec![0]));
    let b1 = Encoding::from(BlockedEncoding::new(vec![1], vec![32], vec![4], vec![0]));
    assert_eq!(
        classify_encoding_conversion(&b4, &b4, &[1024]).unwrap(),
        ConversionKind::NoOp
    );
    assert_eq!(
        classify_encoding_conversion(&b4, &b1, &[1024]).unwrap(),
        ConversionKind::SharedMemory
    );
    // On 128 elements b4's warps hold copies, but lanes need data from
    // other warps: shared memory.
    assert_eq!(
        classify_encoding_conversion(&b1, &b4, &[128]).unwrap(),
        ConversionKind::SharedMemory
    );
    // Lanes exchange within a warp: 1 warp.
    let w1a = Encoding::from(BlockedEncoding::new(vec![4], vec![32], vec![1], vec![0]));
    let w1b = Encoding::from(BlockedEncoding::new(vec![1], vec![32], vec![1], vec![0]));
    assert_eq!(
        classify_encoding_conversion(&w1a, &w1b, &[128]).unwrap(),
        ConversionKind::IntraWarp
    );
    // mma accumulator -> A operand with kWidth 2 is the same map.
    let mma = Encoding::from(NvidiaMmaEncoding::v2(vec![1, 1]));
    let a = Encoding::from(DotOperandEncoding::new(0, mma.clone(), 2));
    assert_eq!(
        classify_encoding_conversion(&mma, &a, &[16, 16]).unwrap(),
        ConversionKind::NoOp
    );
    // ... with kWidth 4 (8-bit operands) registers and lanes move.
    let a4 = Encoding::from(DotOperandEncoding::new(0, mma.clone(), 4));
    assert_eq!(
        classify_encoding_conversion(&mma, &a4, &[16, 32]).unwrap(),
        ConversionKind::IntraWarp
    );
    // Same elements per thread, different register order.
    let rm = BlockedEncoding::new(vec![2, 2], vec![32, 1], vec![4, 1], vec![1, 0]);
    let cm = BlockedEncoding::new(vec![2, 2], vec![32, 1], vec![4, 1], vec![0, 1]);
    let (l_rm, l_cm) = (
        rm.to_linear(&[256, 2]).unwrap(),
        cm.to_linear(&[256, 2]).unwrap(),
    );
    assert_eq!(
        classify_conversion(&l_rm, &l_cm).unwrap(),
        ConversionKind::RegisterPermute
    );
    // The data movement map: register i of the source is register m(i) of
    // the destination, same thread.
    let m = l_rm.invert_and_compose(&l_cm).unwrap();
    assert_eq!(m.out_dim_names(), DISTRIBUTED_IN_DIMS.to_vec());
    assert_eq!(m.bases(REGISTER), &[vec![2, 0, 0, 0], vec![1, 0, 0, 0]]);
    assert_eq!(m.bases(LANE)[0], vec![0, 1, 0, 0]);
    // Mismatched shapes or warp counts are errors.
    assert!(classify_encoding_conversion(&b4, &b1, &[64]).is_ok());
    let l8 = BlockedEncoding::new(vec![1], vec![32], vec![8], vec![0])
        .to_linear(&[1024])
        .unwrap();
    assert!(classify_conversion(&l8, &b1.to_linear(&[1024]).unwrap()).is_err());
    assert!(
        classify_conversion(
            &b1.to_linear(&[512]).unwrap(),
            &b1.to_linear(&[1024]).unwrap()
        )
        .is_err()
    );
}

/// Splits `bits` bits randomly over `rank` dims, as power-of-two sizes.
fn spread(rng: &mut Rng, rank: usize, bits: u32) -> Vec<u32> {
    let mut v = vec![1u32; rank];
    for _ in 0..bits {
        let d = rng.below(rank as u64) as usize;
        v[d] *= 2;
    }
    v
}

#[test]
fn classification_of_random_blocked_pairs_agrees_with_brute_force() {
    let mut rng = Rng::new(22);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let rank = rng.range(1, 2) as usize;
        let bits = rng.range(3, 7);
        let shape: Vec<u32> = spread(&mut rng, rank, bits);
        let mk = |rng: &mut Rng| {
            let mut order: Vec<u32> = (0..rank as u32).collect();
            rng.shuffle(&mut order);
            let spt_bits = rng.range(0, 2);
            Encoding::from(BlockedEncoding::new(
                spread(rng, rank, spt_bits),
                spread(rng, rank, 3),
                spread(rng, rank, 1),
                order,
            ))
        };
        let (a, b) = (mk(&mut rng), mk(&mut rng));
        let (la, lb) = (a.to_linear(&shape).unwrap(), b.to_linear(&shape).unwrap());
        let got = classify_conversion(&la, &lb).unwrap();
        assert_eq!(got, brute_force(&la, &lb).0, "{a} -> {b} on {shape:?}");
        seen.insert(got);
    }
    assert!(seen.len() >= 3, "{seen:?}");
}
