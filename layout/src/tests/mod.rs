//! Unit tests (one test binary). `Rng` is a tiny splitmix64 generator so the
//! property tests are deterministic without external crates.

mod conversion_tests;
mod encoding_tests;
mod kernel_files;
mod linear_tests;
mod text_tests;

use crate::linear::{LinearLayout, out_dim_name};

/// splitmix64.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below((hi - lo + 1) as u64) as u32
    }

    pub(crate) fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub(crate) fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// A random layout: in-dims from `in_names` with `0..=max_in_bits` bits
/// each, out-dims `dim0..` with `0..=max_out_bits` bits each, and uniformly
/// random bases.
pub(crate) fn random_layout(
    rng: &mut Rng,
    in_names: &[&str],
    n_out: usize,
    max_in_bits: u32,
    max_out_bits: u32,
) -> LinearLayout {
    let outs: Vec<(String, u32)> = (0..n_out)
        .map(|j| (out_dim_name(j), 1u32 << rng.range(0, max_out_bits)))
        .collect();
    let ins: Vec<(&str, Vec<Vec<u32>>)> = in_names
        .iter()
        .map(|n| {
            let k = rng.range(0, max_in_bits);
            let bases = (0..k)
                .map(|_| {
                    outs.iter()
                        .map(|(_, s)| rng.below(*s as u64) as u32)
                        .collect()
                })
                .collect();
            (*n, bases)
        })
        .collect();
    LinearLayout::from_bases(ins, outs.iter().map(|(n, s)| (n.as_str(), *s)).collect()).unwrap()
}

/// Evaluates a layout on a packed input the slow way: XOR of the bases of
/// the set bits, one in-dim at a time, through the named `apply`.
pub(crate) fn eval_slow(l: &LinearLayout, packed: u64) -> Vec<u32> {
    let vals = l.unpack_ins(packed);
    let names = l.in_dim_names();
    let inputs: Vec<(&str, u32)> = names.iter().copied().zip(vals).collect();
    l.apply(&inputs).into_iter().map(|(_, c)| c).collect()
}

/// All packed inputs, grouped by packed output.
pub(crate) fn preimage_table(l: &LinearLayout) -> std::collections::HashMap<u64, Vec<u64>> {
    let mut m: std::collections::HashMap<u64, Vec<u64>> = Default::default();
    for x in 0..l.total_in_size() {
        m.entry(l.apply_packed(x)).or_default().push(x);
    }
    m
}
