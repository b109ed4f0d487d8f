//! A fast, deterministic hasher for maps keyed by small values (layouts, nodes, indices):
//! the standard SipHash showed in profiles of the scheduler, and nothing here needs its
//! protection against adversarial keys.

use std::hash::{BuildHasherDefault, Hasher};

/// FxHash's mixing. Unseeded, so a map's iteration order is the same on every run (the
/// extraction sums costs in that order).
#[derive(Clone, Copy, Default)]
pub struct Fx(u64);

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
}

/// [`Fx`] as a map's hasher.
pub type FxBuild = BuildHasherDefault<Fx>;
