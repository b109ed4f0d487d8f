//! Stalled designs: the design of slowdown `s` serving any slower `s' > s` by holding it
//! for `s' - s` clocks of every period (`st::stall`), with the same hardware plus one
//! phase counter and a clock enable.
//!
//! With bursts (`super::burst`, free but only for multiples) this makes every slowdown
//! reachable from every faster design: from `d` to `S`, stall to the least divisor `e` of
//! `S` above `d` and run that in bursts of `S / e`. The stall's control costs
//! `control_area(e)`, which grows with `e` only, so the least such `e` is the cheapest, and
//! a multiple of `S` can reach the same `e`: stalling keeps the front monotone along
//! multiples.

use super::burst::burst;
use crate::st::latency;
use crate::st::{Design, StOp};

/// `d` (slowdown `s`) held for `to - s` clocks of every `to`: a design of slowdown `to`
/// named `name`. Every input and the output must be laid out as an outermost `tseq` whose
/// elements' clocks divide `to - s`, and the design may have at most two inputs. If `d`'s
/// output would straddle the idle clocks (its latency leaves it too late in its period)
/// a FIFO delays it to the next period start first.
pub fn stall(d: &Design, to: u64, name: &str) -> Result<Design, String> {
    let s = d.clocks();
    if to <= s {
        return Err(format!(
            "a stall slows a design down: {to} clocks is not more than its {s}"
        ));
    }
    if d.inputs.is_empty() || d.inputs.len() > 2 {
        return Err(format!(
            "a stall runs a design of one or two inputs; this one has {}",
            d.inputs.len()
        ));
    }
    let idle = to - s;
    let rep = latency::analyze(d)?;
    if !rep.misaligned.is_empty() {
        return Err("the design is not latency-matched".into());
    }
    let body = if crate::st::stall::latency(rep.output, d.output_layout(), idle).is_ok() {
        d.clone()
    } else {
        let mut padded = d.clone();
        let root = padded.output();
        let fifo = StOp::Fifo {
            layout: d.output_layout().clone(),
            delay: s - rep.output % s,
        };
        let f = padded.add(fifo, &[root])?;
        padded.set_output(f)?;
        padded
    };
    let mut out = Design::new(name);
    let mut args = Vec::new();
    for i in &d.inputs {
        let l = crate::st::stall::pad(&i.layout, idle)
            .map_err(|e| format!("the input `{}`: {e}", i.name))?;
        args.push(out.add_input(i.name.clone(), l)?);
    }
    let body = body.copy_as_body(&mut out)?;
    let op = StOp::Stall {
        idle,
        body,
        inputs: args.len() as u8,
    };
    let root = out.add(op, &args)?;
    out.set_output(root)?;
    crate::st::check::check_design(&out)?;
    latency::analyze(&out)?;
    Ok(out)
}

/// The least divisor of `target` greater than `from` (`target` itself at worst).
pub fn stall_target(from: u64, target: u64) -> u64 {
    (from + 1..=target)
        .find(|e| target.is_multiple_of(*e))
        .unwrap_or(target)
}

/// `d` (slowdown `from`, not dividing `target`) serving `target`: stalled to
/// [`stall_target`] and run there in bursts. Returns the design and the stalled slowdown.
pub fn stall_to(d: &Design, target: u64, name: &str) -> Result<(Design, u64), String> {
    let e = stall_target(d.clocks(), target);
    let x = stall(d, e, name)?;
    if e == target {
        Ok((x, e))
    } else {
        Ok((burst(&x, target / e, name)?, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::st::area::area;
    use crate::st::text::parse_design;

    #[test]
    fn stall_adds_only_the_control() {
        let text = "(design abs4)\n(input I (tseq 2 0 (sseq 2 int8)))\n(output (map_t 2 0 (map_s 2 abs) I))\n";
        let d = parse_design("abs4.st", text).expect("a valid design");
        let st = stall(&d, 3, "abs4_s3").expect("stalls");
        assert_eq!(st.clocks(), 3);
        assert_eq!(st.inputs[0].layout.to_string(), "(tseq 2 1 (sseq 2 int8))");
        assert_eq!(st.output_layout().to_string(), "(tseq 2 1 (sseq 2 int8))");
        let ctrl = crate::st::stall::control_area(2, 1);
        assert_eq!(area(&st).total, area(&d).total + ctrl);
    }

    #[test]
    fn stall_then_burst_reaches_the_least_divisor() {
        assert_eq!(stall_target(2, 9), 3);
        assert_eq!(stall_target(4, 6), 6);
        assert_eq!(stall_target(5, 7), 7);
        let text = "(design abs4)\n(input I (tseq 2 0 (sseq 2 int8)))\n(output (map_t 2 0 (map_s 2 abs) I))\n";
        let d = parse_design("abs4.st", text).expect("a valid design");
        let (x, e) = stall_to(&d, 9, "abs4_s9").expect("stalls");
        assert_eq!((x.clocks(), e), (9, 3));
        assert_eq!(
            area(&x).total,
            area(&d).total + crate::st::stall::control_area(2, 1)
        );
    }

    #[test]
    fn stall_needs_whole_idle_elements() {
        let text = "(design id)\n(input I (tseq 2 0 (tseq 2 0 int8)))\n(output (map_t 2 0 (map_t 2 0 abs) I))\n";
        let d = parse_design("id.st", text).expect("a valid design");
        let e = stall(&d, 5, "id_s5").unwrap_err();
        assert!(e.contains("not a whole number"), "{e}");
        assert!(stall(&d, 6, "id_s6").is_ok());
    }
}
