//! Spread streaming layouts: a value streamed at `1/k` of its streaming rate.
//!
//! At a slowdown well above a frame's pixel count, a design may stream each value as it
//! would at `s/k` clocks but hold every clock's atoms for `k` clocks, its idle clocks spread
//! evenly, `(tseq 64 0 (tseq 1 24 uint8))` for 64 pixels in 1600 clocks: every operator
//! then runs one element every `k` clocks and may be a `k`-clock sequential one (an
//! accumulator instead of an adder tree). Aetherling's spread-out layouts without idle
//! clocks at the end (`tseq n 0 (tseq 1 ii)`) are of this kind, and at such slowdowns
//! these designs are often the least-area ones, so the e-graph scheduler's retry of a
//! truncated stream graph lowers these views early ([`is_spread_streaming`]), after the
//! streaming ones, before its node bound may cut it.

use super::slowdown::streaming_layout;
use crate::seq::types::SeqType;
use crate::st::Layout;

/// `l` with each of its clocks stretched to `k`: the element of its outermost chain of
/// time layers (the part laid out in one clock, when `l` streams) wrapped in
/// `tseq 1 (k-1)`; a layout with no time layer is wrapped whole.
pub fn stretch(l: &Layout, k: u64) -> Layout {
    match l {
        Layout::TSeq(n, i, e) => Layout::tseq(*n, *i, stretch(e, k)),
        other => Layout::tseq(1, k - 1, other.clone()),
    }
}

/// The stretch factor a layout suggests: one more than the idle periods of its first
/// `tseq 1 i` layer with `i > 0` (following the outermost chain of time layers).
fn spread_factor(l: &Layout) -> Option<u64> {
    match l {
        Layout::TSeq(1, i, _) if *i > 0 => Some(i + 1),
        Layout::TSeq(_, _, e) => spread_factor(e),
        _ => None,
    }
}

/// Whether `l` lays out a value of type `t` as a spread streaming layout: the streaming
/// layout of `t` over `l.clocks() / k` clocks ([`streaming_layout`]) stretched by `k`
/// ([`stretch`]), up to wiring (equal normal forms), for the `k` its first `tseq 1 i`
/// layer names.
pub fn is_spread_streaming(t: &SeqType, l: &Layout) -> bool {
    let Some(k) = spread_factor(l) else {
        return false;
    };
    let clocks = l.clocks();
    if !clocks.is_multiple_of(k) {
        return false;
    }
    streaming_layout(t, clocks / k)
        .is_some_and(|base| stretch(&base, k).normalize() == l.normalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn u8s(n: u64) -> SeqType {
        SeqType::seq(n, ScalarType::UInt8.into())
    }

    fn lay(s: &str) -> Layout {
        crate::st::text::parse_layout("test", s).unwrap()
    }

    #[test]
    fn spread_layouts_are_streaming_ones_stretched() {
        let t = u8s(64);
        for yes in [
            "(tseq 64 0 (tseq 1 24 uint8))",
            "(tseq 32 0 (tseq 1 49 (sseq 2 uint8)))",
        ] {
            assert!(is_spread_streaming(&t, &lay(yes)), "{yes}");
        }
        for no in [
            "(tseq 64 1536 uint8)",
            "(tseq 64 0 uint8)",
            "(tseq 64 0 (tseq 1 4 (tseq 1 4 uint8)))",
            // 64 atoms have no streaming layout over 320 clocks (every clock valid)
            "(tseq 64 256 (tseq 1 4 uint8))",
        ] {
            assert!(!is_spread_streaming(&t, &lay(no)), "{no}");
        }
        assert_eq!(
            stretch(&lay("(tseq 32 0 (sseq 2 uint8))"), 3).to_string(),
            "(tseq 32 0 (tseq 1 2 (sseq 2 uint8)))"
        );
        assert_eq!(
            stretch(&lay("(sseq 2 uint8)"), 3).to_string(),
            "(tseq 1 2 (sseq 2 uint8))"
        );
    }
}
