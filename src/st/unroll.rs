//! Reductions whose function is more than one operator, written out as applications of
//! that function, so that pipelining can put registers inside a link.
//!
//! A `reduce_s` chain takes registers only between its links (`(regs ...)`): a link is one
//! application of the reducer, which the walk times as a whole. A reducer of one operator
//! (`add`) is the shortest link there is, but a min or max is two, a comparison and a
//! selection (`if (lt a b) b a`: 4.52 ns on the iCE40 at 8 bits), and no chain of them
//! meets a clock whose stage is shorter than the pair: a 3x3 max filter stopped at 184.5
//! MHz against the default 225. [`unroll_reducers`] rebuilds such a chain as a balanced
//! tree of applications of its body, each an ordinary scope the walk may register inside;
//! [`super::pipeline`] keeps it where its data paths are faster (docs/timing.md §3,
//! "Reductions of several operators"). A tree computes the chain's result because a
//! scheduled design's reducers are its program's, which the front end accepts only in
//! forms that are associative and commutative (docs/language.md §4.4); a design read from
//! a `.st` file is not pipelined.

use super::design::{BodyId, Design, NodeId};
use super::layout::Layout;
use super::op::StOp;
use std::collections::HashMap;

/// `d` with every `reduce_s` chain (unpipelined, at least two links) whose reducer is more
/// than one operator written out as applications of its reducer, or `None` when `d` has no
/// such chain. Chains whose elements are not atoms or sequences in space or time of them
/// (seq-tuples) are left as they are.
pub fn unroll_reducers(d: &Design) -> Result<Option<Design>, String> {
    // The chains in the order of their ids: whatever one reaches (its input, and the bodies
    // that hold other chains) has a smaller id, so it is rebuilt before it.
    let chains: Vec<NodeId> = d.ids().filter(|&id| unrollable(d, id)).collect();
    if chains.is_empty() {
        return Ok(None);
    }
    let mut out = Design::new(d.name.clone());
    let mut map: HashMap<NodeId, NodeId> = HashMap::new();
    let mut bmap: HashMap<BodyId, BodyId> = HashMap::new();
    for i in &d.inputs {
        map.insert(i.node, out.add_input(i.name.clone(), i.layout.clone())?);
    }
    // the chains written out so far, seeded into every copy
    let mut replaced: HashMap<NodeId, NodeId> = HashMap::new();
    for id in chains {
        let node = d.node(id);
        let StOp::ReduceS { n, body, .. } = node.op else {
            unreachable!("unrollable keeps reduce_s chains")
        };
        let x = d.copy_into(&mut out, node.args[0], &mut map, &mut bmap);
        let f = d.body(body).clone();
        let r = d.layout(f.root).clone();
        let arg = d
            .scope(f.root)
            .into_iter()
            .find(|a| matches!(d.node(*a).op, StOp::Arg(0, _)));
        let element = |out: &mut Design, j: u64| {
            let one = out.add(
                StOp::DownS {
                    n,
                    idx: j,
                    elem: r.clone(),
                },
                &[x],
            )?;
            out.add(
                StOp::Reshape {
                    from: Layout::sseq(1, r.clone()),
                    to: r.clone(),
                },
                &[one],
            )
        };
        // a balanced tree of applications: the reducer is associative and commutative
        // (the front end checks its form), so any grouping gives the chain's result, and a
        // tree's depth is log2(n) links where a chain's is n - 1, each element waiting for
        // its link (measured: 8 elements at one clock, 641 logic cells as a written-out
        // chain against 337 as a pipelined chain)
        let mut level = (0..n)
            .map(|j| element(&mut out, j))
            .collect::<Result<Vec<_>, _>>()?;
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            for two in level.chunks(2) {
                let [a, b] = two else {
                    next.push(two[0]);
                    continue;
                };
                let pair = zip(&mut out, *a, *b, &r)?;
                // The body is closed: a fresh copy of it with its parameter bound to the
                // pair (an earlier copy may hold the same nodes unbound, in another body).
                let mut m = replaced.clone();
                if let Some(p) = arg {
                    m.insert(p, pair);
                }
                next.push(d.copy_into(&mut out, f.root, &mut m, &mut bmap));
            }
            level = next;
        }
        let acc = level[0];
        let whole = out.add(
            StOp::Reshape {
                from: r.clone(),
                to: Layout::sseq(1, r),
            },
            &[acc],
        )?;
        replaced.insert(id, whole);
        map.insert(id, whole);
    }
    let root = d.copy_into(&mut out, d.output(), &mut map, &mut bmap);
    out.set_output(root)?;
    Ok(Some(out))
}

/// True when `d` has a chain [`unroll_reducers`] writes out: a scan of its nodes, without
/// building anything.
pub fn has_reducers_to_unroll(d: &Design) -> bool {
    d.ids().any(|id| unrollable(d, id))
}

/// True for an unpipelined `reduce_s` chain of at least two links whose reducer is more
/// than one operator on its parameter ([`Design::reducer_atom`]) and whose elements
/// [`zip`] can pair.
fn unrollable(d: &Design, id: NodeId) -> bool {
    let StOp::ReduceS { n, body, regs } = &d.node(id).op else {
        return false;
    };
    let r = d.layout(d.body(*body).root);
    *n >= 2
        && regs.is_empty()
        && zippable(r)
        && d.reducer_atom(*body).is_none()
        && !rebinds_arg(d, *body)
}

/// True when a body nested in reducer `body` has a parameter equal to the reducer's (the
/// same node, as nodes are shared): binding the reducer's would bind it too.
fn rebinds_arg(d: &Design, body: BodyId) -> bool {
    let f = d.body(body);
    let param = StOp::Arg(0, f.params[0].clone());
    let mut bodies: Vec<BodyId> = d
        .scope(f.root)
        .into_iter()
        .filter_map(|id| d.node(id).op.body())
        .collect();
    while let Some(b) = bodies.pop() {
        for id in d.scope(d.body(b).root) {
            let op = &d.node(id).op;
            if *op == param {
                return true;
            }
            bodies.extend(op.body());
        }
    }
    false
}

/// True when values of layout `r` can be zipped into the pair a reducer takes.
fn zippable(r: &Layout) -> bool {
    match r {
        _ if r.is_atom() => true,
        Layout::SSeq(_, t) | Layout::TSeq(_, _, t) => zippable(t),
        _ => false,
    }
}

/// The zipped pair of `a` and `b`, both of layout `r` (`r.zipped_pair()`): atoms paired,
/// sequences paired element by element.
fn zip(out: &mut Design, a: NodeId, b: NodeId, r: &Layout) -> Result<NodeId, String> {
    if r.is_atom() {
        return out.add(StOp::ATuple, &[a, b]);
    }
    let (Layout::SSeq(_, t) | Layout::TSeq(_, _, t)) = r else {
        return Err(format!("internal error: no zipped pair of {r}"));
    };
    let t = (**t).clone();
    let body = out.body_with(vec![t.clone(), t.clone()], |out, args| {
        zip(out, args[0], args[1], &t)
    })?;
    let op = match r {
        Layout::TSeq(n, i, _) => StOp::Map2T { n: *n, i: *i, body },
        Layout::SSeq(n, _) => StOp::Map2S { n: *n, body },
        _ => unreachable!("a sequence layout"),
    };
    out.add(op, &[a, b])
}
