//! Running a design in bursts: the design of slowdown `s`, mapped over `tseq 1 (m-1)`, is a
//! design of slowdown `m*s` with exactly the same hardware.
//!
//! A time map runs its body freely: during the `m-1` invalid periods the body computes on
//! invalid data, and the outputs of those clocks are invalid too. The body's counters
//! wrap every `s` clocks, so when the next valid frame arrives (after `m*s` clocks) the body
//! is back at phase 0. The partition that splits the padded input
//! `(tseq n (i + (m-1)(n+i)) X)` into `(tseq 1 (m-1) (tseq n i X))`, and the unpartition
//! that joins the output back, keep every atom on its clock and lane: they are wiring.
//! So the area at `m*s` is at most the area at `s`, which makes the explored front
//! monotone along multiples (issue 5): the scheduler of a slower design may always return a
//! faster design run in bursts.

use crate::st::{Design, Layout, StOp};

/// The `(n, i, X)` of an outermost `(tseq n i X)`.
fn outer_tseq(l: &Layout) -> Option<(u64, u64, &Layout)> {
    match l {
        Layout::TSeq(n, i, x) => Some((*n, *i, x)),
        _ => None,
    }
}

/// `d` (slowdown `s`) run once every `m` frames' worth of clocks: a design of slowdown
/// `m*s` named `name`. Every input and the output must be laid out as an outermost `tseq`
/// (the padding goes there), and the design may have at most two inputs (a time map takes
/// one or two streams).
pub fn burst(d: &Design, m: u64, name: &str) -> Result<Design, String> {
    if m < 2 {
        return Err(format!("a burst factor is at least 2, not {m}"));
    }
    if d.inputs.is_empty() || d.inputs.len() > 2 {
        return Err(format!(
            "a design runs in bursts through a time map of one or two inputs; this one has {}",
            d.inputs.len()
        ));
    }
    let Some((no, io, xo)) = outer_tseq(d.output_layout()) else {
        return Err(format!(
            "the output layout {} has no outer tseq to pad",
            d.output_layout()
        ));
    };
    let mut out = Design::new(name);
    let mut args = Vec::new();
    for i in &d.inputs {
        let Some((n, ii, x)) = outer_tseq(&i.layout) else {
            return Err(format!(
                "the input `{}` has layout {}, with no outer tseq to pad",
                i.name, i.layout
            ));
        };
        let padded = Layout::tseq(n, ii + (m - 1) * (n + ii), x.clone());
        let input = out.add_input(i.name.clone(), padded)?;
        let split = StOp::PartitionTT {
            no: 1,
            ni: n,
            io: m - 1,
            ii,
            elem: x.clone(),
        };
        args.push(out.add(split, &[input])?);
    }
    let body = d.copy_as_body(&mut out)?;
    let map = if args.len() == 1 {
        StOp::MapT {
            n: 1,
            i: m - 1,
            body,
        }
    } else {
        StOp::Map2T {
            n: 1,
            i: m - 1,
            body,
        }
    };
    let mapped = out.add(map, &args)?;
    let join = StOp::UnpartitionTT {
        no: 1,
        ni: no,
        io: m - 1,
        ii: io,
        elem: xo.clone(),
    };
    let root = out.add(join, &[mapped])?;
    out.set_output(root)?;
    crate::st::check::check_design(&out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::st::area::area;
    use crate::st::text::parse_design;

    #[test]
    fn burst_keeps_the_hardware_and_multiplies_the_clocks() {
        let text = "(design abs4)\n(input I (tseq 2 0 (sseq 2 int8)))\n(output (map_t 2 0 (map_s 2 abs) I))\n";
        let d = parse_design("abs4.st", text).expect("a valid design");
        let b = burst(&d, 3, "inc_x3").expect("bursts");
        assert_eq!(b.clocks(), 3 * d.clocks());
        assert_eq!(b.inputs[0].layout.to_string(), "(tseq 2 4 (sseq 2 int8))");
        assert_eq!(b.output_layout().to_string(), "(tseq 2 4 (sseq 2 int8))");
        assert_eq!(area(&b).total, area(&d).total);
    }

    #[test]
    fn burst_needs_an_outer_tseq() {
        let text = "(design abs4)\n(input I (sseq 4 int8))\n(output (map_s 4 abs I))\n";
        let d = parse_design("abs4.st", text).expect("a valid design");
        let e = burst(&d, 2, "inc_x2").unwrap_err();
        assert!(e.contains("no outer tseq"), "{e}");
    }
}
