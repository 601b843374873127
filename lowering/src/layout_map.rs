//! The per-thread view of a distributed tensor: which tensor coordinate each register of a thread
//! holds, as `coord = R(register) ^ L(lane) ^ W(warp)` (linear layouts over GF(2)).

use tritium_layout::encoding::Encoding;
use tritium_layout::linear::{LANE, LinearLayout, REGISTER, WARP};

/// A distributed layout of a tensor shape, read off its linear layout.
#[derive(Clone, Debug)]
pub struct ThreadMap {
    pub shape: Vec<u32>,
    /// Coordinates of each register at lane 0, warp 0.
    pub registers: Vec<Vec<u32>>,
    /// Basis vectors of the lane and warp bits (one coordinate vector per bit).
    pub lane_bases: Vec<Vec<u32>>,
    pub warp_bases: Vec<Vec<u32>>,
    /// Registers that duplicate an earlier register (zero contribution).
    pub register_duplicate: Vec<bool>,
}

impl ThreadMap {
    pub fn new(encoding: &Encoding, shape: &[u32]) -> Result<ThreadMap, String> {
        let layout = encoding.to_linear(shape).map_err(|e| e.to_string())?;
        Ok(Self::from_linear(&layout, shape))
    }

    pub fn from_linear(layout: &LinearLayout, shape: &[u32]) -> ThreadMap {
        Self::from_bases(
            layout.bases(REGISTER),
            layout.bases(LANE),
            layout.bases(WARP),
            shape,
        )
    }

    /// The map of a layout given by its register, lane and warp bases.
    pub fn from_bases(
        reg_bases: &[Vec<u32>],
        lane_bases: &[Vec<u32>],
        warp_bases: &[Vec<u32>],
        shape: &[u32],
    ) -> ThreadMap {
        let rank = shape.len();
        let reg_bases = reg_bases.to_vec();
        let count = 1usize << reg_bases.len();
        let mut registers = Vec::with_capacity(count);
        let mut register_duplicate = Vec::with_capacity(count);
        let zero_bits: u32 = reg_bases
            .iter()
            .enumerate()
            .filter(|(_, b)| b.iter().all(|&c| c == 0))
            .map(|(i, _)| 1 << i)
            .sum();
        for r in 0..count {
            let mut coord = vec![0u32; rank];
            for (bit, basis) in reg_bases.iter().enumerate() {
                if r >> bit & 1 == 1 {
                    for d in 0..rank {
                        coord[d] ^= basis[d];
                    }
                }
            }
            registers.push(coord);
            register_duplicate.push(r as u32 & zero_bits != 0);
        }
        ThreadMap {
            shape: shape.to_vec(),
            registers,
            lane_bases: lane_bases.to_vec(),
            warp_bases: warp_bases.to_vec(),
            register_duplicate,
        }
    }

    pub fn num_registers(&self) -> usize {
        self.registers.len()
    }

    /// Lane bits whose basis is zero: lanes differing only there hold the same elements.
    pub fn lane_broadcast_mask(&self) -> u32 {
        zero_mask(&self.lane_bases)
    }

    pub fn warp_broadcast_mask(&self) -> u32 {
        zero_mask(&self.warp_bases)
    }

    /// Row-major linear index of a coordinate.
    pub fn linear_index(&self, coord: &[u32]) -> u64 {
        let mut index = 0u64;
        for (d, &c) in coord.iter().enumerate() {
            index = index * self.shape[d] as u64 + c as u64;
        }
        index
    }

    pub fn numel(&self) -> u64 {
        self.shape.iter().map(|&s| s as u64).product()
    }
}

fn zero_mask(bases: &[Vec<u32>]) -> u32 {
    bases
        .iter()
        .enumerate()
        .filter(|(_, b)| b.iter().all(|&c| c == 0))
        .map(|(i, _)| 1u32 << i)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::ThreadMap;

    #[test]
    fn linear_encoding() {
        let encoding = tritium_layout::text::parse_encoding(
            "#ttg.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>",
        )
        .unwrap();
        let map = ThreadMap::new(&encoding, &[128, 2]).unwrap();
        assert_eq!(map.registers, vec![vec![0, 0], vec![0, 1]]);
        assert_eq!(map.lane_bases[0], vec![1, 1]);
        assert_eq!(map.lane_bases.len(), 5);
        assert_eq!(map.warp_bases, vec![vec![32, 0], vec![64, 0]]);
    }
}
