use super::{Rng, eval_slow, preimage_table, random_layout};
use crate::error::LayoutError;
use crate::linear::*;

fn ll(ins: Vec<(&str, Vec<Vec<u32>>)>, outs: Vec<(&str, u32)>) -> LinearLayout {
    LinearLayout::from_bases(ins, outs).unwrap()
}

#[test]
fn identity_and_zeros() {
    let id = LinearLayout::identity_1d(8, "in", "out");
    assert_eq!(id.bases("in"), &[vec![1], vec![2], vec![4]]);
    assert_eq!(id.out_dim_size("out"), 8);
    for x in 0..8 {
        assert_eq!(id.apply(&[("in", x)]), vec![("out".to_string(), x)]);
    }
    assert!(id.is_bijective());
    let z = LinearLayout::zeros_1d(4, "in", "out");
    assert_eq!(z.bases("in"), &[vec![0], vec![0]]);
    assert_eq!(z.out_dim_size("out"), 1);
    assert!(z.is_surjective() && !z.is_injective());
    assert_eq!(z.free_variable_mask("in"), 0b11);
    let s = LinearLayout::strided_1d(4, 8, "in", "out");
    assert_eq!(s.bases("in"), &[vec![8], vec![16]]);
    assert_eq!(s.out_dim_size("out"), 32);
    assert!(LinearLayout::empty().is_bijective());
    assert_eq!(id.in_dim_size("absent"), 1);
    assert_eq!(id.out_dim_size("absent"), 1);
}

#[test]
fn from_bases_validates() {
    let e = LinearLayout::from_bases(vec![("a", vec![vec![4]])], vec![("o", 4)]);
    assert!(matches!(e, Err(LayoutError::InvalidLayout(_))));
    let e = LinearLayout::from_bases(vec![("a", vec![vec![1, 2]])], vec![("o", 4)]);
    assert!(e.is_err());
    let e = LinearLayout::from_bases(vec![("a", vec![]), ("a", vec![])], vec![("o", 4)]);
    assert!(e.is_err());
    let e = LinearLayout::from_bases(vec![("a", vec![])], vec![("o", 3)]);
    assert!(e.is_err());
    let l = LinearLayout::from_bases_infer_sizes(
        vec![("a", vec![vec![1, 0], vec![0, 4], vec![3, 0]])],
        &["x", "y"],
    )
    .unwrap();
    assert_eq!(l.out_dims(), vec![("x", 4), ("y", 8)]);
}

#[test]
fn product_shares_and_shifts_out_dims() {
    // 4 registers then 8 lanes along dim0, then 2 warps along dim1.
    let l = LinearLayout::identity_1d(4, REGISTER, "dim0")
        * LinearLayout::identity_1d(8, LANE, "dim0")
        * LinearLayout::identity_1d(2, WARP, "dim1");
    assert_eq!(l.in_dim_names(), vec![REGISTER, LANE, WARP]);
    assert_eq!(l.out_dims(), vec![("dim0", 32), ("dim1", 2)]);
    assert_eq!(l.bases(LANE), &[vec![4, 0], vec![8, 0], vec![16, 0]]);
    assert_eq!(l.bases(WARP), &[vec![0, 1]]);
    // Same in-dim on both sides: inner bases first, outer shifted.
    let r = LinearLayout::identity_1d(2, REGISTER, "dim0")
        * LinearLayout::identity_1d(2, REGISTER, "dim1")
        * LinearLayout::identity_1d(2, REGISTER, "dim0");
    assert_eq!(r.bases(REGISTER), &[vec![1, 0], vec![0, 1], vec![2, 0]]);
    assert_eq!(r.out_dims(), vec![("dim0", 4), ("dim1", 2)]);
    // Zeros broadcast but still scale the outer part.
    let z = LinearLayout::zeros_1d(2, LANE, "dim0") * LinearLayout::identity_1d(2, WARP, "dim0");
    assert_eq!(z.bases(WARP), &[vec![1]]);
    let mut acc = LinearLayout::empty();
    acc *= LinearLayout::identity_1d(2, "a", "x");
    acc *= &LinearLayout::identity_1d(2, "b", "y");
    assert_eq!(acc.in_dim_names(), vec!["a", "b"]);
}

#[test]
#[should_panic(expected = "conflicting dim orders")]
fn product_rejects_conflicting_orders() {
    let a = LinearLayout::identity_1d(2, "r", "x") * LinearLayout::identity_1d(2, "r", "y");
    let b = LinearLayout::identity_1d(2, "r", "y") * LinearLayout::identity_1d(2, "r", "x");
    let _ = a * b;
}

#[test]
fn apply_is_linear_property() {
    let mut rng = Rng::new(1);
    for _ in 0..300 {
        let l = random_layout(&mut rng, &[REGISTER, LANE, WARP], 3, 3, 4);
        let n = l.total_in_size();
        assert_eq!(l.apply_packed(0), 0);
        for _ in 0..8 {
            let x = rng.below(n);
            let y = rng.below(n);
            let fx = eval_slow(&l, x);
            let fy = eval_slow(&l, y);
            let fxy = eval_slow(&l, x ^ y);
            let xor: Vec<u32> = fx.iter().zip(&fy).map(|(a, b)| a ^ b).collect();
            assert_eq!(fxy, xor, "{l}");
            assert_eq!(l.pack_outs(&fxy), l.apply_packed(x ^ y));
            assert_eq!(l.apply_flat(&l.unpack_ins(x)), fx);
            assert_eq!(l.pack_ins(&l.unpack_ins(x)), x);
        }
    }
}

fn random_bijective(rng: &mut Rng) -> LinearLayout {
    loop {
        let n_out = rng.range(1, 3) as usize;
        let outs: Vec<(String, u32)> = (0..n_out)
            .map(|j| (out_dim_name(j), 1u32 << rng.range(0, 3)))
            .collect();
        let total: u32 = outs.iter().map(|(_, s)| s.trailing_zeros()).sum();
        // Split `total` input bits over up to three in-dims.
        let a = rng.range(0, total);
        let b = rng.range(0, total - a);
        let sizes = [a, b, total - a - b];
        let names = ["x", "y", "z"];
        let ins = names
            .iter()
            .zip(sizes)
            .map(|(n, k)| {
                (
                    *n,
                    (0..k)
                        .map(|_| {
                            outs.iter()
                                .map(|(_, s)| rng.below(*s as u64) as u32)
                                .collect()
                        })
                        .collect(),
                )
            })
            .collect();
        let l = LinearLayout::from_bases(ins, outs.iter().map(|(n, s)| (n.as_str(), *s)).collect())
            .unwrap();
        if l.is_bijective() {
            return l;
        }
    }
}

fn identity_on(dims: &[(&str, u32)]) -> LinearLayout {
    let mut l = LinearLayout::empty();
    for (n, s) in dims {
        l *= LinearLayout::identity_1d(*s, n, n);
    }
    l
}

#[test]
fn invert_bijective_property() {
    let mut rng = Rng::new(2);
    for _ in 0..300 {
        let l = random_bijective(&mut rng);
        let inv = l.invert().unwrap();
        // L ∘ L⁻¹ = id on the outs, L⁻¹ ∘ L = id on the ins.
        let a = inv.compose(&l).unwrap();
        assert!(a.equivalent(&identity_on(&l.out_dims())), "{l}\n{inv}\n{a}");
        let b = l.compose(&inv).unwrap();
        assert!(b.equivalent(&identity_on(&l.in_dims())), "{l}\n{b}");
        assert!(inv.is_bijective());
    }
}

#[test]
fn invert_surjective_picks_smallest_preimage() {
    let mut rng = Rng::new(3);
    let mut checked = 0;
    while checked < 200 {
        let l = random_layout(&mut rng, &["x", "y"], 2, 4, 2);
        if !l.is_surjective() {
            assert_eq!(l.invert(), Err(LayoutError::NotSurjective));
            continue;
        }
        checked += 1;
        let inv = l.invert().unwrap();
        let table = preimage_table(&l);
        for y in 0..l.total_out_size() {
            let coords = l.unpack_outs(y);
            let x = inv.apply_flat(&coords);
            let xp = l.pack_ins(&x);
            assert_eq!(l.apply_packed(xp), y);
            let min = *table[&y].iter().min().unwrap();
            assert_eq!(xp, min, "{l}");
            assert_eq!(l.min_preimage(&coords), Some(x));
        }
        // Pseudo-inverse output has every free bit clear.
        let masks = l.free_variable_masks();
        for b in 0..inv.total_in_bits() {
            let x = inv.apply_flat(&inv.unpack_ins(1 << b));
            for ((_, m), v) in masks.iter().zip(&x) {
                assert_eq!(v & m, 0);
            }
        }
    }
}

#[test]
fn invert_and_compose_matches_pointwise() {
    let mut rng = Rng::new(4);
    let mut ok = 0;
    let mut failed = 0;
    for _ in 0..400 {
        let b = random_layout(&mut rng, &[REGISTER, LANE, WARP], 2, 3, 3);
        let a = random_layout(&mut rng, &[REGISTER, LANE, WARP, BLOCK], 2, 2, 3);
        // Shrink A's out-dims to fit B's.
        let mut a = a;
        for (n, s) in b.out_dims() {
            if a.out_dim_size(n) > s {
                a = a.mod_out_dim(n, s);
            }
        }
        let table = preimage_table(&b);
        let all_in_image = (0..a.total_in_size()).all(|x| {
            let y = b.pack_outs(&pad(&a, &b, &a.unpack_outs(a.apply_packed(x))));
            table.contains_key(&y)
        });
        match a.invert_and_compose(&b) {
            Ok(c) => {
                assert!(all_in_image);
                ok += 1;
                assert_eq!(c.in_dim_names(), a.in_dim_names());
                assert_eq!(c.out_dim_names(), b.in_dim_names());
                for x in 0..a.total_in_size() {
                    let cx = c.apply_flat(&a.unpack_ins(x));
                    let bcx = b.apply_flat(&cx);
                    let ax = pad(&a, &b, &a.unpack_outs(a.apply_packed(x)));
                    assert_eq!(bcx, ax);
                    let y = b.pack_outs(&ax);
                    assert_eq!(b.pack_ins(&cx), *table[&y].iter().min().unwrap());
                }
            }
            Err(LayoutError::NotInImage(_)) => {
                assert!(!all_in_image);
                failed += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(ok > 50 && failed > 20, "ok {ok} failed {failed}");
}

/// A's coordinates rearranged into B's out-dim order.
fn pad(a: &LinearLayout, b: &LinearLayout, coords: &[u32]) -> Vec<u32> {
    b.out_dim_names()
        .iter()
        .map(|n| {
            a.out_dim_names()
                .iter()
                .position(|m| m == n)
                .map_or(0, |j| coords[j])
        })
        .collect()
}

#[test]
fn compose_matches_pointwise() {
    let mut rng = Rng::new(5);
    for _ in 0..300 {
        let inner = random_layout(&mut rng, &["x", "y"], 2, 3, 3);
        // Outer takes inner's out-dims as in-dims, at least as large.
        let mut ins = vec![];
        for (n, s) in inner.out_dims() {
            let k = s.trailing_zeros() + rng.range(0, 1);
            ins.push((
                n,
                (0..k)
                    .map(|_| vec![rng.below(8) as u32, rng.below(4) as u32])
                    .collect(),
            ));
        }
        let outer = ll(ins, vec![("p", 8), ("q", 4)]);
        let c = inner.compose(&outer).unwrap();
        for x in 0..inner.total_in_size() {
            let mid = inner.apply_flat(&inner.unpack_ins(x));
            let mut flat = vec![0; outer.num_in_dims()];
            for (j, n) in inner.out_dim_names().iter().enumerate() {
                let i = outer.in_dim_names().iter().position(|m| m == n).unwrap();
                flat[i] = mid[j];
            }
            assert_eq!(c.apply_flat(&inner.unpack_ins(x)), outer.apply_flat(&flat));
        }
    }
    let a = LinearLayout::identity_1d(8, "x", "m");
    let b = LinearLayout::identity_1d(4, "m", "o");
    assert!(matches!(a.compose(&b), Err(LayoutError::DimMismatch(_))));
}

#[test]
fn free_variables_and_kernel() {
    let l = ll(
        vec![
            (REGISTER, vec![vec![1], vec![2]]),
            (LANE, vec![vec![0], vec![4], vec![1]]),
            (WARP, vec![vec![8], vec![0]]),
        ],
        vec![("dim0", 16)],
    );
    let m = l.free_variable_masks();
    assert_eq!(
        m,
        vec![
            (REGISTER.to_string(), 0),
            (LANE.to_string(), 0b101),
            (WARP.to_string(), 0b10)
        ]
    );
    assert_eq!(l.zero_bases_mask(LANE), 0b001);
    assert_eq!(l.lane_broadcast_mask(), 0b101);
    assert_eq!(l.warp_broadcast_mask(), 0b10);
    assert_eq!(l.kernel_basis().len(), 3);
    for k in l.kernel_basis() {
        assert_eq!(l.apply_packed(k), 0);
    }
    assert_eq!(l.preimages(&[5]).len(), 8);
    assert_eq!(l.rank(), 4);
    assert!(l.image_contains(&[15]));
}

#[test]
fn free_variables_property() {
    // Inputs with all free bits clear reach every image point exactly once.
    let mut rng = Rng::new(6);
    for _ in 0..300 {
        let l = random_layout(&mut rng, &[REGISTER, LANE, WARP], 2, 3, 3);
        let masks: Vec<u32> = l
            .free_variable_masks()
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        let packed_mask = l.pack_ins(&masks);
        let table = preimage_table(&l);
        let mut hits = std::collections::HashMap::new();
        for x in 0..l.total_in_size() {
            if x & packed_mask == 0 {
                *hits.entry(l.apply_packed(x)).or_insert(0) += 1;
            }
        }
        assert_eq!(hits.len(), table.len());
        assert!(hits.values().all(|&c| c == 1));
        let free = packed_mask.count_ones();
        assert_eq!(l.rank() + free, l.total_in_bits());
    }
}

#[test]
fn sublayout_and_zero_checks() {
    let l = ll(
        vec![
            (REGISTER, vec![vec![1, 0], vec![0, 2]]),
            (LANE, vec![vec![2, 0], vec![0, 1]]),
            (WARP, vec![vec![0, 0]]),
        ],
        vec![("dim0", 4), ("dim1", 4)],
    );
    let s = l.sublayout(&[LANE, REGISTER], &["dim1"]);
    assert_eq!(s.in_dim_names(), vec![REGISTER, LANE]);
    assert_eq!(s.out_dims(), vec![("dim1", 4)]);
    assert_eq!(s.bases(REGISTER), &[vec![0], vec![2]]);
    assert!(l.sublayout_is_zero(&[WARP], &["dim0", "dim1"]));
    assert!(!l.sublayout_is_zero(&[LANE], &["dim1"]));
    assert_eq!(l.in_bits_along(REGISTER, "dim1"), 0b10);
    assert_eq!(l.in_bits_along(LANE, "dim0"), 0b01);
    let r = l.remove_out_dim("dim0");
    assert_eq!(r.out_dim_names(), vec!["dim1"]);
}

#[test]
fn transpose_reshape_flatten() {
    let l = ll(
        vec![(REGISTER, vec![vec![1, 0], vec![0, 1], vec![2, 0]])],
        vec![("dim0", 4), ("dim1", 2)],
    );
    let t = l.transpose_outs(&["dim1", "dim0"]).unwrap();
    assert_eq!(t.bases(REGISTER), &[vec![0, 1], vec![1, 0], vec![0, 2]]);
    assert!(t.equivalent(&l));
    assert_ne!(t, l);
    assert!(l.transpose_outs(&["dim1"]).is_err());
    // dim0 is most minor when flattening.
    let f = l.flatten_outs();
    assert_eq!(f.out_dims(), vec![("dim0", 8)]);
    assert_eq!(f.bases(REGISTER), &[vec![1], vec![4], vec![2]]);
    let r = f.reshape_outs(&[("a", 2), ("b", 4)]).unwrap();
    assert_eq!(r.bases(REGISTER), &[vec![1, 0], vec![0, 2], vec![0, 1]]);
    assert!(f.reshape_outs(&[("a", 4)]).is_err());
    let two = LinearLayout::identity_1d(4, "x", "o") * LinearLayout::identity_1d(2, "y", "o");
    let fi = two.flatten_ins();
    assert_eq!(fi.in_dims(), vec![("x", 8)]);
    let ri = fi.reshape_ins(&[("p", 2), ("q", 4)]).unwrap();
    assert_eq!(ri.bases("q"), &[vec![2], vec![4]]);
    let ti = two.transpose_ins(&["y", "x"]).unwrap();
    assert_eq!(ti.in_dim_names(), vec!["y", "x"]);
    assert!(ti.equivalent(&two));
    let w = two.with_in_dims(&["z", "x", "y"]).unwrap();
    assert_eq!(w.in_dims(), vec![("z", 1), ("x", 4), ("y", 2)]);
    assert!(two.with_in_dims(&["x"]).is_err());
    let wo = two.with_out_dims(&["n", "o"]).unwrap();
    assert_eq!(wo.out_dims(), vec![("n", 1), ("o", 8)]);
    assert!(wo.equivalent(&two));
}

#[test]
fn reshape_property() {
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let l = random_layout(&mut rng, &["x", "y"], 3, 3, 3);
        let f = l.flatten_outs();
        for x in 0..l.total_in_size() {
            assert_eq!(f.apply_packed(x), l.apply_packed(x));
        }
        let fi = l.flatten_ins();
        for x in 0..l.total_in_size() {
            assert_eq!(fi.apply_packed(x), l.apply_packed(x));
        }
    }
}

#[test]
fn num_consecutive_in_out() {
    let l = ll(
        vec![
            (REGISTER, vec![vec![1], vec![2], vec![512]]),
            (LANE, vec![vec![4], vec![8]]),
        ],
        vec![("dim0", 1024)],
    );
    assert_eq!(l.get_num_consecutive_in_out("dim0"), 4);
    assert_eq!(l.contiguous_run(REGISTER, "dim0"), 4);
    // A lane basis inside the run breaks alignment.
    let bad = ll(
        vec![(REGISTER, vec![vec![1], vec![2]]), (LANE, vec![vec![2]])],
        vec![("dim0", 4)],
    );
    assert_eq!(bad.get_num_consecutive_in_out("dim0"), 2);
    // Registers along another dim first: no vectorisation along dim1.
    let l2 = ll(
        vec![(REGISTER, vec![vec![1, 0], vec![0, 1], vec![0, 2]])],
        vec![("dim0", 2), ("dim1", 4)],
    );
    assert_eq!(l2.get_num_consecutive_in_out("dim1"), 1);
    assert_eq!(l2.get_num_consecutive_in_out("dim0"), 2);
    assert_eq!(l2.contiguous_run(REGISTER, "dim1"), 4);
    assert_eq!(LinearLayout::empty().get_num_consecutive_in_out("dim0"), 1);
}

#[test]
fn display_format() {
    let l = ll(
        vec![(REGISTER, vec![vec![1], vec![2]]), (BLOCK, vec![])],
        vec![("dim0", 4)],
    );
    assert_eq!(
        l.to_string(),
        " - register=1 -> (1)\n   register=2 -> (2)\n - block is a size 1 dimension\nwhere out dims are: [dim0 (size 4)]"
    );
}

#[test]
fn register_coords_of_a_thread() {
    let l = LinearLayout::identity_1d(2, REGISTER, "dim0")
        * LinearLayout::identity_1d(4, LANE, "dim0")
        * LinearLayout::identity_1d(2, WARP, "dim0");
    assert_eq!(l.register_coords(3, 1, 0), vec![vec![14], vec![15]]);
    assert_eq!(l.min_preimage(&[9]), Some(vec![1, 0, 1]));
    assert_eq!(l.preimages(&[9]), vec![vec![1, 0, 1]]);
}

#[test]
fn oversized_products_and_constructors_are_errors() {
    let big = LinearLayout::identity_1d(1 << 20, REGISTER, "dim0");
    let bigger = LinearLayout::identity_1d(1 << 10, LANE, "dim0");
    let err = big.checked_mul(&bigger).unwrap_err();
    assert!(err.to_string().contains("larger than 2^24"), "{err}");
    assert!(LinearLayout::try_identity_1d(1 << 25, REGISTER, "dim0").is_err());
    assert!(LinearLayout::try_identity_1d(3, REGISTER, "dim0").is_err());
    assert!(LinearLayout::try_zeros_1d(1 << 31, REGISTER, "dim0").is_err());
    assert!(LinearLayout::try_strided_1d(1 << 12, 1 << 13, REGISTER, "dim0").is_err());
    let a = LinearLayout::identity_1d(2, "r", "x") * LinearLayout::identity_1d(2, "r", "y");
    let b = LinearLayout::identity_1d(2, "r", "y") * LinearLayout::identity_1d(2, "r", "x");
    assert!(a.checked_mul(&b).is_err());
}
