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
        let rank = shape.len();
        let reg_bases = layout.bases(REGISTER).to_vec();
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
            lane_bases: layout.bases(LANE).to_vec(),
            warp_bases: layout.bases(WARP).to_vec(),
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
