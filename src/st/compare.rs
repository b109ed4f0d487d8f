//! Unsigned comparisons against a constant, narrowed to the bits that decide them.
//!
//! `c < x` cannot change with the bits of `x` below the constant's trailing ones, nor
//! `x < c` with those below its trailing zeros: `15 < x` is "a bit of `x[7:4]` is set".
//! Synthesis does not see this on every device (Yosys builds `8'd15 < x` as a carry chain
//! on the iCE40), so the RTL writes the narrowed form ([`crate::rtl`]'s atoms), and the
//! area and delay models charge what it writes: a reduction of a few bits is one LUT,
//! not a carry chain the width of the operand. Any other constant is compared as logic on
//! the bits that decide (`(x >> lo) < m`): Yosys maps a `<` to a carry chain even against
//! a constant, 22 LUTs where the logic takes 5 (16 bits, against 1000).

use super::layout::Layout;

/// What an unsigned `lt` of `w`-bit atoms with one constant operand reads of its variable
/// operand `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowLt {
    /// The result is this constant, whatever `x` is (`x < 0`, `max < x`).
    Always(bool),
    /// True when a bit of `x` from `lo` up is set: `(2^lo - 1) < x`.
    AnyAbove { lo: u32 },
    /// True when no bit of `x` from `lo` up is set: `x < 2^lo`.
    NoneAbove { lo: u32 },
    /// `x >> lo` compared with the constant `m`, as `m < (x >> lo)` when the constant is on
    /// the left (`const_left`), else `(x >> lo) < m`: logic on the `w - lo` bits read (about
    /// one LUT per three bits, a tree of them deep), not a carry chain.
    Shifted { lo: u32, m: u64, const_left: bool },
}

impl NarrowLt {
    /// The narrowed form of `lt` on the atom tuple `input` (both operands one type) with
    /// the constant operands `konst`; `None` for a signed comparison, which is not narrowed.
    pub fn of_lt(input: &Layout, konst: (Option<u64>, Option<u64>)) -> Option<NarrowLt> {
        let Layout::ATuple(a, _) = input else {
            return None;
        };
        match **a {
            Layout::Scalar(t) if !t.is_signed() => NarrowLt::of(t.width(), konst),
            _ => None,
        }
    }

    /// The narrowed form of an unsigned `w`-bit `lt` whose left (`konst.0`) or right
    /// (`konst.1`) operand is a constant; `None` when both or neither are constants.
    pub fn of(w: u32, konst: (Option<u64>, Option<u64>)) -> Option<NarrowLt> {
        if w == 0 || w > 64 {
            return None;
        }
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        match konst {
            (Some(c), None) => {
                // c < x  <=>  x >= c + 1 = (m + 1) * 2^lo  <=>  (x >> lo) > m
                let c = c & mask;
                if c == mask {
                    return Some(NarrowLt::Always(false));
                }
                let lo = c.trailing_ones();
                let m = c >> lo;
                Some(match (m, lo) {
                    (0, _) => NarrowLt::AnyAbove { lo },
                    _ => NarrowLt::Shifted {
                        lo,
                        m,
                        const_left: true,
                    },
                })
            }
            (None, Some(c)) => {
                // x < c = m * 2^lo  <=>  (x >> lo) < m
                let c = c & mask;
                if c == 0 {
                    return Some(NarrowLt::Always(false));
                }
                let lo = c.trailing_zeros();
                let m = c >> lo;
                Some(match (m, lo) {
                    (1, _) => NarrowLt::NoneAbove { lo },
                    _ => NarrowLt::Shifted {
                        lo,
                        m,
                        const_left: false,
                    },
                })
            }
            _ => None,
        }
    }

    /// The result for a variable operand `x` (what the RTL's expression computes).
    pub fn eval(self, x: u64) -> bool {
        match self {
            NarrowLt::Always(b) => b,
            NarrowLt::AnyAbove { lo } => shr(x, lo) != 0,
            NarrowLt::NoneAbove { lo } => shr(x, lo) == 0,
            NarrowLt::Shifted {
                lo,
                m,
                const_left: true,
            } => m < shr(x, lo),
            NarrowLt::Shifted { lo, m, .. } => shr(x, lo) < m,
        }
    }
}

fn shr(x: u64, by: u32) -> u64 {
    x.checked_shr(by).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every constant and every operand of 1 to 8 bits, on either side: the narrowed form
    /// decides exactly as the full comparison.
    #[test]
    fn narrowed_comparisons_equal_the_full_ones() {
        for w in 1..=8u32 {
            let n = 1u64 << w;
            for c in 0..n {
                let left = NarrowLt::of(w, (Some(c), None));
                let right = NarrowLt::of(w, (None, Some(c)));
                for x in 0..n {
                    if let Some(l) = left {
                        assert_eq!(l.eval(x), c < x, "{c} < {x} on {w} bits: {l:?}");
                    }
                    if let Some(r) = right {
                        assert_eq!(r.eval(x), x < c, "{x} < {c} on {w} bits: {r:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_threshold_below_a_power_of_two_reads_the_high_bits() {
        assert_eq!(
            NarrowLt::of(8, (Some(15), None)),
            Some(NarrowLt::AnyAbove { lo: 4 })
        );
        assert_eq!(
            NarrowLt::of(8, (None, Some(32))),
            Some(NarrowLt::NoneAbove { lo: 5 })
        );
        assert_eq!(
            NarrowLt::of(8, (Some(0b0101_0111), None)),
            Some(NarrowLt::Shifted {
                lo: 3,
                m: 0b01010,
                const_left: true
            })
        );
        // nothing to drop: an even constant on the left, an odd one on the right, still
        // compared as logic on every bit
        assert_eq!(
            NarrowLt::of(8, (Some(100), None)),
            Some(NarrowLt::Shifted {
                lo: 0,
                m: 100,
                const_left: true
            })
        );
        assert_eq!(
            NarrowLt::of(8, (None, Some(101))),
            Some(NarrowLt::Shifted {
                lo: 0,
                m: 101,
                const_left: false
            })
        );
        assert_eq!(NarrowLt::of(8, (Some(1), Some(2))), None);
    }
}
