//! The type checker: exact layouts of every operator (reference §2.2).
//!
//! A composition is legal only if the producer's output layout equals the consumer's input
//! layout syntactically, as in Aetherling: equal layouts imply equal clocks, so producer and
//! consumer can be wired with no handshake. Every operator takes as many clocks in as out
//! (checked here on every node, as a guard on the formulas themselves).

use super::design::{Design, NodeId};
use super::layout::Layout;
use super::op::StOp;
use crate::seq::check::result_type;
use crate::seq::op::Op;
use crate::seq::value::check_value;

/// The output layout of `op` applied to `args`, or an error naming the operator and the
/// mismatching layouts.
pub fn output_layout(d: &Design, op: &StOp, args: &[NodeId]) -> Result<Layout, String> {
    let found: Vec<&Layout> = args.iter().map(|a| d.layout(*a)).collect();
    let (expected, out) = signature(d, op, &found)?;
    for (k, (want, got)) in expected.iter().zip(&found).enumerate() {
        if want != *got {
            let which = if args.len() > 1 {
                format!("input {}", k + 1)
            } else {
                "the input".to_string()
            };
            return Err(format!(
                "{op}: layout mismatch on {which}: the operator takes {want}, but its producer `{}` gives {got}",
                d.node(args[k]).op.name()
            ));
        }
    }
    out.validate().map_err(|m| format!("{op}: {m}"))?;
    for (k, l) in expected.iter().enumerate() {
        if l.clocks() != out.clocks() {
            return Err(format!(
                "{op}: internal error: input {} takes {} clocks but the output {}",
                k + 1,
                l.clocks(),
                out.clocks()
            ));
        }
    }
    Ok(out)
}

/// The exact input layouts and the output layout of `op`. Operators whose parameters do not
/// fix their input layouts (atom operators and tuples) take them from `found`.
pub fn signature(
    d: &Design,
    op: &StOp,
    found: &[&Layout],
) -> Result<(Vec<Layout>, Layout), String> {
    let err = |m: String| format!("{op}: {m}");
    let sum = |xs: &[u64]| -> Result<u64, String> {
        xs.iter()
            .try_fold(0u64, |a, x| a.checked_add(*x))
            .ok_or_else(|| err("parameters overflow".into()))
    };
    let mul = |a: u64, b: u64| {
        a.checked_mul(b)
            .ok_or_else(|| err("parameters overflow".into()))
    };
    let positive = |xs: &[u64]| -> Result<(), String> {
        if xs.contains(&0) {
            Err(err("lengths must be at least 1".into()))
        } else {
            Ok(())
        }
    };
    let valid = |l: &Layout| l.validate().map_err(err);
    let sseq = Layout::sseq;
    let tseq = Layout::tseq;
    match op {
        StOp::Input(k) => Ok((vec![], d.inputs[*k].layout.clone())),
        StOp::Arg(_, l) => Ok((vec![], l.clone())),
        StOp::Const { value, layout, .. } => {
            valid(layout)?;
            check_value(value, &layout.to_seq()).map_err(err)?;
            Ok((vec![], layout.clone()))
        }
        StOp::Counter { layout, .. } => {
            valid(layout)?;
            if !counter_layout_ok(layout) {
                return Err(err(format!(
                    "a counter's layout has only sseq/tseq layers over an integer scalar, found {layout}"
                )));
            }
            Ok((vec![], layout.clone()))
        }
        StOp::Atom(a) => {
            if !found[0].is_atom() {
                return Err(err(format!(
                    "needs an atom (a scalar or atuple layout), found {}",
                    found[0]
                )));
            }
            let t = found[0].to_seq();
            let out = result_type(&Op::Atom(*a), &[&t])?;
            let out = Layout::from_atom_type(&out)
                .ok_or_else(|| err(format!("needs an atom, found {}", found[0])))?;
            Ok((vec![found[0].clone()], out))
        }
        StOp::ATuple => {
            for (k, l) in found.iter().enumerate() {
                if !l.is_atom() {
                    return Err(err(format!(
                        "input {} must be an atom (scalar or atuple), found {l}",
                        k + 1
                    )));
                }
            }
            Ok((
                vec![found[0].clone(), found[1].clone()],
                Layout::atuple(found[0].clone(), found[1].clone()),
            ))
        }
        StOp::STuple => {
            if found[0] != found[1] {
                return Err(err(format!(
                    "both inputs must have one layout, found {} and {}",
                    found[0], found[1]
                )));
            }
            Ok((
                vec![found[0].clone(), found[0].clone()],
                Layout::stuple(2, found[0].clone()),
            ))
        }
        StOp::STupleAppend => match found[0] {
            Layout::STuple(n, e) => Ok((
                vec![found[0].clone(), e.as_ref().clone()],
                Layout::stuple(n + 1, e.as_ref().clone()),
            )),
            other => Err(err(format!(
                "the first input must be an stuple, found {other}"
            ))),
        },
        StOp::MapS { n, body } | StOp::MapT { n, body, .. } => {
            positive(&[*n])?;
            let b = d.body(*body);
            if b.params.len() != 1 {
                return Err(err(format!(
                    "the function must take 1 parameter, it takes {}",
                    b.params.len()
                )));
            }
            let (a, r) = (b.params[0].clone(), d.layout(b.root).clone());
            Ok(match op {
                StOp::MapT { i, .. } => (vec![tseq(*n, *i, a)], tseq(*n, *i, r)),
                _ => (vec![sseq(*n, a)], sseq(*n, r)),
            })
        }
        StOp::Map2S { n, body } | StOp::Map2T { n, body, .. } => {
            positive(&[*n])?;
            let b = d.body(*body);
            if b.params.len() != 2 {
                return Err(err(format!(
                    "the function must take 2 parameters, it takes {}",
                    b.params.len()
                )));
            }
            let (a0, a1, r) = (
                b.params[0].clone(),
                b.params[1].clone(),
                d.layout(b.root).clone(),
            );
            Ok(match op {
                StOp::Map2T { i, .. } => {
                    (vec![tseq(*n, *i, a0), tseq(*n, *i, a1)], tseq(*n, *i, r))
                }
                _ => (vec![sseq(*n, a0), sseq(*n, a1)], sseq(*n, r)),
            })
        }
        StOp::ReduceS { n, body, .. } | StOp::ReduceT { n, body, .. } => {
            positive(&[*n])?;
            if let StOp::ReduceS { regs, .. } = op {
                if regs.windows(2).any(|w| w[0] >= w[1])
                    || regs.first() == Some(&0)
                    || regs.last().is_some_and(|&c| c + 1 >= *n)
                {
                    return Err(err(format!(
                        "reduce_s {n}: pipeline registers go after links 1 .. {} of the chain, each once, in ascending order; found (regs {})",
                        n.saturating_sub(2),
                        crate::st::op::join(regs)
                    )));
                }
            }
            let b = d.body(*body);
            let r = d.layout(b.root).clone();
            if b.params.len() != 1 || b.params[0] != r.zipped_pair() {
                return Err(err(format!(
                    "a reducer with result {r} must take one parameter of layout {} (the zipped pair), it takes ({})",
                    r.zipped_pair(),
                    b.params.iter().map(Layout::to_string).collect::<Vec<_>>().join(", ")
                )));
            }
            Ok(match op {
                StOp::ReduceT { i, .. } => {
                    let inv = sum(&[*n - 1, *i])?;
                    (vec![tseq(*n, *i, r.clone())], tseq(1, inv, r))
                }
                _ => (vec![sseq(*n, r.clone())], sseq(1, r)),
            })
        }
        StOp::Stall { idle, body, inputs } => {
            positive(&[*idle])?;
            let b = d.body(*body);
            if !(1..=2).contains(inputs) || b.params.len() != *inputs as usize {
                return Err(err(format!(
                    "a stall takes one or two inputs, as many as its function's parameters; it has {inputs} inputs and the function {} parameters",
                    b.params.len()
                )));
            }
            let r = d.layout(b.root);
            let pad = |l: &Layout| super::stall::pad(l, *idle).map_err(err);
            let ins = b.params.iter().map(pad).collect::<Result<Vec<_>, _>>()?;
            Ok((ins, pad(r)?))
        }
        StOp::UpS { n, elem } => {
            positive(&[*n])?;
            Ok((vec![sseq(1, elem.clone())], sseq(*n, elem.clone())))
        }
        StOp::UpT { n, i, elem } => {
            positive(&[*n])?;
            let inv = sum(&[*n - 1, *i])?;
            Ok((vec![tseq(1, inv, elem.clone())], tseq(*n, *i, elem.clone())))
        }
        StOp::DownS { n, idx, elem } | StOp::DownT { n, idx, elem, .. } => {
            positive(&[*n])?;
            if idx >= n {
                return Err(err(format!("index {idx} is out of range 0..{n}")));
            }
            Ok(match op {
                StOp::DownT { i, .. } => {
                    let inv = sum(&[*n - 1, *i])?;
                    (vec![tseq(*n, *i, elem.clone())], tseq(1, inv, elem.clone()))
                }
                _ => (vec![sseq(*n, elem.clone())], sseq(1, elem.clone())),
            })
        }
        StOp::ShiftS { .. }
        | StOp::ShiftT { .. }
        | StOp::ShiftTS { .. }
        | StOp::ShiftTT { .. }
        | StOp::ShiftTN { .. } => {
            if let StOp::ShiftTN { nis, iis, .. } = op {
                if nis.len() != iis.len() || nis.is_empty() {
                    return Err(err(format!(
                        "needs as many inner lengths as inner invalid counts (at least one), found {} and {}",
                        nis.len(),
                        iis.len()
                    )));
                }
            }
            let (layout, count, amount, init) = op.shift_info().expect("a shift");
            valid(&layout)?;
            if amount > count {
                return Err(err(format!(
                    "a shift by {amount} empties a sequence of {count} elements"
                )));
            }
            if let Some(v) = init {
                let e = layout_elem_of_shift(op);
                check_value(v, &e.to_seq()).map_err(|m| err(format!("init: {m}")))?;
            }
            Ok((vec![layout.clone()], layout))
        }
        StOp::PartitionSS { no, ni, elem } | StOp::UnpartitionSS { no, ni, elem } => {
            positive(&[*no, *ni])?;
            let flat = sseq(mul(*no, *ni)?, elem.clone());
            let nested = sseq(*no, sseq(*ni, elem.clone()));
            Ok(if matches!(op, StOp::PartitionSS { .. }) {
                (vec![flat], nested)
            } else {
                (vec![nested], flat)
            })
        }
        StOp::PartitionTT {
            no,
            ni,
            io,
            ii,
            elem,
        }
        | StOp::UnpartitionTT {
            no,
            ni,
            io,
            ii,
            elem,
        } => {
            positive(&[*no, *ni])?;
            let inv = sum(&[mul(*no, *ii)?, mul(*io, sum(&[*ni, *ii])?)?])?;
            let flat = tseq(mul(*no, *ni)?, inv, elem.clone());
            let nested = tseq(*no, *io, tseq(*ni, *ii, elem.clone()));
            valid(&flat)?;
            Ok(if matches!(op, StOp::PartitionTT { .. }) {
                (vec![flat], nested)
            } else {
                (vec![nested], flat)
            })
        }
        StOp::Serialize { n, i, elem } | StOp::Deserialize { n, i, elem } => {
            positive(&[*n])?;
            let inv = sum(&[*n - 1, *i])?;
            let packed = tseq(1, inv, Layout::stuple(*n, elem.clone()));
            let serial = tseq(*n, *i, elem.clone());
            Ok(if matches!(op, StOp::Serialize { .. }) {
                (vec![packed], serial)
            } else {
                (vec![serial], packed)
            })
        }
        StOp::STupleToSSeq { n, elem } | StOp::SSeqToSTuple { n, elem } => {
            positive(&[*n])?;
            let tup = Layout::stuple(*n, elem.clone());
            let sq = sseq(*n, elem.clone());
            Ok(if matches!(op, StOp::STupleToSSeq { .. }) {
                (vec![tup], sq)
            } else {
                (vec![sq], tup)
            })
        }
        StOp::Reshape { from, to } => {
            valid(from)?;
            valid(to)?;
            if from.clocks() != to.clocks() {
                return Err(err(format!(
                    "a reshape keeps the clock count, but {from} takes {} and {to} takes {}",
                    crate::util::diag::count(from.clocks(), "clock"),
                    crate::util::diag::count(to.clocks(), "clock")
                )));
            }
            if from.atoms() != to.atoms() {
                return Err(err(format!(
                    "a reshape keeps the element count, but {from} holds {} atoms and {to} holds {}",
                    from.atoms(),
                    to.atoms()
                )));
            }
            if from.atom() != to.atom() {
                return Err(err(format!(
                    "a reshape keeps the atom type, but {from} holds {} and {to} holds {}",
                    from.atom(),
                    to.atom()
                )));
            }
            Ok((vec![from.clone()], to.clone()))
        }
        StOp::Transpose { no, ni, from, to } => {
            positive(&[*no, *ni])?;
            valid(from)?;
            valid(to)?;
            let n = mul(*no, *ni)?;
            for (l, what) in [(from, "input"), (to, "output")] {
                if l.atoms() % n != 0 {
                    return Err(err(format!(
                        "a transpose of {no}x{ni} elements needs a multiple of {n} atoms, but its {what} {l} holds {}",
                        l.atoms()
                    )));
                }
            }
            if from.clocks() != to.clocks()
                || from.atoms() != to.atoms()
                || from.atom() != to.atom()
            {
                return Err(err(format!(
                    "a transpose keeps the clock count, the element count and the atom type, but {from} ({} atoms of {} over {} clocks) and {to} ({} atoms of {} over {} clocks) differ",
                    from.atoms(), from.atom(), from.clocks(), to.atoms(), to.atom(), to.clocks()
                )));
            }
            Ok((vec![from.clone()], to.clone()))
        }
        StOp::Fifo { layout, .. } => {
            valid(layout)?;
            Ok((vec![layout.clone()], layout.clone()))
        }
    }
}

/// The element layout of a shift operator.
pub(crate) fn layout_elem_of_shift(op: &StOp) -> &Layout {
    match op {
        StOp::ShiftS { elem, .. }
        | StOp::ShiftT { elem, .. }
        | StOp::ShiftTS { elem, .. }
        | StOp::ShiftTT { elem, .. }
        | StOp::ShiftTN { elem, .. } => elem,
        _ => panic!("internal error: not a shift"),
    }
}

/// Counters count over `sseq`/`tseq` layers of one integer scalar.
fn counter_layout_ok(l: &Layout) -> bool {
    match l {
        Layout::Scalar(s) => s.is_int(),
        Layout::SSeq(_, t) | Layout::TSeq(_, _, t) => counter_layout_ok(t),
        _ => false,
    }
}

/// Re-checks every node of a design against the typing rules (a design built through
/// [`Design::add`] always passes; this guards designs assembled by other means and the
/// checker itself). Returns the first error.
pub fn check_design(d: &Design) -> Result<(), String> {
    let out = d.try_output().ok_or("the design has no output")?;
    let mut ids = d.top_scope();
    let mut seen_bodies = std::collections::HashSet::new();
    while let Some(id) = ids.pop() {
        let node = d.node(id);
        let args: Vec<&Layout> = node.args.iter().map(|a| d.layout(*a)).collect();
        let (expected, outl) = signature(d, &node.op, &args)?;
        if expected.iter().zip(&args).any(|(e, a)| e != *a) || &outl != d.layout(id) {
            return Err(format!("{}: layouts do not match its type", node.op));
        }
        if let Some(b) = node.op.body() {
            if seen_bodies.insert(b) {
                ids.extend(d.scope(d.body(b).root));
            }
        }
    }
    let clocks = d.layout(out).clocks();
    for i in &d.inputs {
        if i.layout.clocks() != clocks {
            return Err(format!(
                "input `{}` has layout {} ({} clocks), but the output {} takes {clocks} clocks; every operator keeps the clock count",
                i.name,
                i.layout,
                i.layout.clocks(),
                d.layout(out)
            ));
        }
    }
    Ok(())
}
