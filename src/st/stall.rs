//! The `stall` operator: a design of slowdown `s` serving slowdown `s + k` by holding it
//! for `k` clocks of every period.
//!
//! `(stall k F x [y])` runs the body `F` (whose layouts span `s` clocks) with a clock
//! enable: on for the first `s` clocks of every `s + k` counted from the operator's start,
//! off for the last `k`. While it is off every register of `F` holds, so `F` sees exactly
//! its own `s`-clock schedule, with `k` idle clocks after every period. The inputs and the
//! output are `F`'s layouts with those `k` clocks added to the invalid periods of the
//! outermost `tseq`: `(tseq n i X)` becomes `(tseq n (i + k/clocks(X)) X)`, which is why
//! `clocks(X)` must divide `k`.
//!
//! Latency: `F`'s output starts `L = q*s + r` enabled clocks after its input (`r < s`), so
//! its valid output clock `p` of a period leaves `q` periods of `s + k` and `r + p` clocks
//! after the input's start, provided `r + p < s` for every valid `p`, i.e. `r <= io *
//! clocks(Xo)` for an output `(tseq no io Xo)`; the operator's latency is then `q*(s + k)
//! + r`. Otherwise a period's output would straddle the idle clocks, so the operator is
//! rejected; the design builder (`schedule::stall`) pads `F`'s latency with a FIFO first.
//!
//! Hardware: one phase counter modulo `s + k` and the enable `phase < s`, the clock enable of
//! every register of `F` (`rtl::stall`: one clock, `always @(posedge clk) if (ce) ...` in
//! `F`'s modules); [`control_area`] is what the area model charges for them.

use super::area::Area;
use super::layout::Layout;

/// `l` with `idle` more invalid clocks in its outermost `tseq`.
pub fn pad(l: &Layout, idle: u64) -> Result<Layout, String> {
    let Layout::TSeq(n, i, x) = l else {
        return Err(format!("a stalled layout needs an outer tseq, found {l}"));
    };
    let c = x.clocks();
    if !idle.is_multiple_of(c) {
        return Err(format!(
            "{idle} idle clocks are not a whole number of the {c}-clock elements of {l}"
        ));
    }
    let i = i
        .checked_add(idle / c)
        .ok_or_else(|| "parameters overflow".to_string())?;
    Ok(Layout::tseq(*n, i, x.as_ref().clone()))
}

/// The layout `l` of a stall's input or output without its `idle` clocks: what the body
/// sees. The inverse of [`pad`].
pub fn unpad(l: &Layout, idle: u64) -> Result<Layout, String> {
    let Layout::TSeq(n, i, x) = l else {
        return Err(format!("a stalled layout needs an outer tseq, found {l}"));
    };
    let c = x.clocks();
    if !idle.is_multiple_of(c) || i * c < idle {
        return Err(format!(
            "{l} has no {idle} idle clocks at the end of its outer tseq (whole {c}-clock elements)"
        ));
    }
    Ok(Layout::tseq(*n, i - idle / c, x.as_ref().clone()))
}

/// The latency of a stall whose body (layouts of `s` clocks, output `out`) has latency
/// `body`, or why a period's output would straddle the idle clocks.
pub fn latency(body: u64, out: &Layout, idle: u64) -> Result<u64, String> {
    let s = out.clocks();
    let (q, r) = (body / s, body % s);
    let room = match out {
        Layout::TSeq(_, io, x) => io * x.clocks(),
        _ => 0,
    };
    if r > room {
        return Err(format!(
            "the body's latency {body} leaves its output {r} clocks into a {s}-clock period, \
             past the {room} invalid clocks at the period's end, so the output would straddle \
             the idle clocks; delay it to a multiple of {s}"
        ));
    }
    Ok(q * (s + idle) + r)
}

/// Whether the body runs on clock `tau` counted from the stall's start.
pub fn enabled(tau: u64, clocks: u64, idle: u64) -> bool {
    tau % (clocks + idle) < clocks
}

/// The stall's own control: a phase counter modulo `s + idle` (`clog2` flip-flops and as
/// many LUTs, as `area::counter` charges), one LUT computing the next enable from it and
/// the enable's flip-flop (`rtl::stall::body_enable`). What the enable costs on the body's
/// registers (merged with enables they already have) is not modelled.
pub fn control_area(clocks: u64, idle: u64) -> Area {
    let mut a = super::area::counter(clocks + idle);
    a.logic += 1;
    a.ff_bits += 1;
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn int8() -> Layout {
        Layout::Scalar(ScalarType::Int8)
    }

    #[test]
    fn pad_adds_whole_elements_to_the_outer_tseq() {
        let l = Layout::tseq(2, 0, Layout::sseq(2, int8()));
        assert_eq!(pad(&l, 1).unwrap().to_string(), "(tseq 2 1 (sseq 2 int8))");
        let nested = Layout::tseq(2, 0, Layout::tseq(2, 0, int8()));
        let e = pad(&nested, 1).unwrap_err();
        assert!(e.contains("not a whole number"), "{e}");
        assert_eq!(
            pad(&nested, 4).unwrap().to_string(),
            "(tseq 2 2 (tseq 2 0 int8))"
        );
    }

    #[test]
    fn latency_keeps_each_period_whole() {
        let dense = Layout::tseq(2, 0, int8());
        assert_eq!(latency(4, &dense, 1), Ok(6));
        assert!(latency(3, &dense, 1).is_err());
        let spare = Layout::tseq(2, 1, int8());
        assert_eq!(latency(3, &spare, 2), Ok(5));
        assert_eq!(latency(4, &spare, 2), Ok(6));
        assert!(latency(5, &spare, 2).is_err());
    }
}
