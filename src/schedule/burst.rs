//! Running a design in bursts: the design of slowdown `s`, mapped over `tseq 1 (m-1)`, is a
//! design of slowdown `m*s` with exactly the same hardware.
//!
//! A time map runs its body freely: during the `m-1` invalid periods the body computes on
//! invalid data, and the outputs of those clocks are invalid too. The body's counters
//! wrap every `s` clocks, so when the next valid frame arrives (after `m*s` clocks) the body
//! is back at phase 0. A port laid out as an outermost `(tseq n i X)` is padded to
//! `(tseq n (i + (m-1)(n+i)) X)`, and the partition that splits it into
//! `(tseq 1 (m-1) (tseq n i X))` (and the unpartition that joins the output back) keeps
//! every atom on its clock and lane: they are wiring. A port with no outer `tseq` (the
//! lanes of an s = 1 design, or `(sseq 4 (tseq 8 0 X))`) is laid out as
//! `(tseq 1 (m-1) L)` itself, which the time map reads as it is.
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
/// `m*s` named `name`. The design may have at most two inputs (a time map takes one or two
/// streams).
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
    let mut out = Design::new(name);
    let mut args = Vec::new();
    for i in &d.inputs {
        let arg = match outer_tseq(&i.layout) {
            Some((n, ii, x)) => {
                let padded = Layout::tseq(n, ii + (m - 1) * (n + ii), x.clone());
                let input = out.add_input(i.name.clone(), padded)?;
                let split = StOp::PartitionTT {
                    no: 1,
                    ni: n,
                    io: m - 1,
                    ii,
                    elem: x.clone(),
                };
                out.add(split, &[input])?
            }
            None => out.add_input(i.name.clone(), Layout::tseq(1, m - 1, i.layout.clone()))?,
        };
        args.push(arg);
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
    let root = match outer_tseq(d.output_layout()) {
        Some((no, io, xo)) => {
            let join = StOp::UnpartitionTT {
                no: 1,
                ni: no,
                io: m - 1,
                ii: io,
                elem: xo.clone(),
            };
            out.add(join, &[mapped])?
        }
        None => mapped,
    };
    out.set_output(root)?;
    crate::st::check::check_design(&out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::st::area::area;
    use crate::st::text::parse_design;
    use crate::st::verify::{check_compatible, random_frames, verify};

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
    fn a_port_without_an_outer_tseq_is_mapped_as_it_is() {
        // an s = 1 design, all lanes in space, and one streaming each lane over time
        let program = "(input I (seq 4 int8))\n(output (map 4 abs I))\n";
        let p = crate::seq::parse_program("abs4.seq", "abs4", program).expect("a valid program");
        for (layout, body) in [
            ("(sseq 4 int8)", "(map_s 4 abs I)"),
            ("(sseq 2 (tseq 2 0 int8))", "(map_s 2 (map_t 2 0 abs) I)"),
        ] {
            let text = format!("(design abs4)\n(input I {layout})\n(output {body})\n");
            let d = parse_design("abs4.st", &text).expect("a valid design");
            let b = burst(&d, 3, "abs4_x3").expect("bursts");
            assert_eq!(b.clocks(), 3 * d.clocks());
            assert_eq!(
                b.inputs[0].layout.to_string(),
                format!("(tseq 1 2 {layout})")
            );
            assert_eq!(
                b.output_layout().to_string(),
                format!("(tseq 1 2 {layout})")
            );
            assert_eq!(area(&b).total, area(&d).total);
            check_compatible(&b, &p).expect("the program's ports");
            let frames = random_frames(&p, 5, 3);
            let v = verify(&b, &p, &frames).expect("the design runs");
            assert!(v.passed(), "{layout}: {:?}", v.mismatches.first());
        }
    }
}
