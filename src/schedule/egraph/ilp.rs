//! Exact extraction of the top scope as an integer linear program (CBC, feature `lp`):
//! `tessera schedule --exact`, and the test that the greedy extraction reaches its optimum.

use super::extract::Choice;
use super::graph::{How, SNode, StreamGraph};
use crate::st::area::Weights;
use std::collections::{BTreeMap, HashMap};

/// Exact extraction of the top-level scope by integer linear programming (CBC), for the
/// selection rooted at `root`. One binary per node and per class of the top scope reachable
/// from the root: the root is active, an active class picks exactly one node, a picked
/// node activates its children, each program input is declared in at most one layout, and
/// integer levels forbid cyclic selections. A node costs its own area plus, for a body,
/// the body's greedy DAG cost (from `bodies`) times its multiplicity: bodies are separate
/// scopes paid per copy, which is not linear, so they keep the greedy choice.
///
/// `start` is a feasible selection (the greedy one with the inputs fixed); its cost bounds
/// the optimum, which makes the model small enough for CBC on the paper's apps: a node
/// whose own cost plus a lower bound of its most expensive child exceeds it is left out,
/// and levels are only needed inside the strongly connected parts of what is left
/// (reshapes and relabels make the only cycles). CBC stops after `seconds`; without a
/// proven optimum by then there is no result.
pub fn choose_ilp(
    g: &StreamGraph,
    w: &Weights,
    bodies: &Choice,
    start: &Choice,
    root: usize,
    seconds: f64,
) -> Result<(Choice, f64), String> {
    use coin_cbc::{Model, Sense};
    use std::collections::HashSet;
    let ctx = g.classes[root].key.ctx;
    let cost = |nd: &SNode| -> f64 {
        let body = match &nd.body {
            Some((b, _, _)) => bodies[*b].0 * nd.mult as f64,
            None => 0.0,
        };
        nd.own.scalar(w) + body
    };
    let in_scope = |c: usize| g.classes[c].key.ctx == ctx;
    let usable = |nd: &SNode| cost(nd).is_finite() && nd.kids.iter().all(|(k, _)| in_scope(*k));
    // The bound: the cost of `start`'s selection, each class paid once.
    let ub = {
        let (mut seen, mut stack, mut total) = (HashSet::new(), vec![root], 0.0);
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            match start[c].1.map(|n| &g.classes[c].nodes[n]) {
                Some(nd) if usable(nd) => {
                    total += cost(nd);
                    stack.extend(nd.kids.iter().map(|(k, _)| *k));
                }
                _ => {
                    total = f64::INFINITY;
                    break;
                }
            }
        }
        total
    };
    let slack = 1e-6 * ub.abs().max(1.0);
    // Lower bounds of the classes' costs (a class costs at least its node plus its most
    // expensive child), iterated up from 0 over the top-scope classes reachable from root.
    let mut reach = vec![root];
    let mut seen: HashSet<usize> = HashSet::from([root]);
    let mut at = 0;
    while at < reach.len() {
        let c = reach[at];
        at += 1;
        for nd in g.classes[c].nodes.iter().filter(|nd| usable(nd)) {
            for (k, _) in &nd.kids {
                if seen.insert(*k) {
                    reach.push(*k);
                }
            }
        }
    }
    let mut lb: HashMap<usize, f64> = reach.iter().map(|c| (*c, 0.0)).collect();
    for _ in 0..reach.len().min(64) {
        let mut changed = false;
        for &c in &reach {
            let best = g.classes[c]
                .nodes
                .iter()
                .filter(|nd| usable(nd))
                .map(|nd| cost(nd) + nd.kids.iter().map(|(k, _)| lb[k]).fold(0.0, f64::max))
                .fold(f64::INFINITY, f64::min);
            if best > lb[&c] + 1e-9 {
                lb.insert(c, best);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let keep = |nd: &SNode| {
        usable(nd)
            && cost(nd) + nd.kids.iter().map(|(k, _)| lb[k]).fold(0.0, f64::max) <= ub + slack
    };
    // The classes reachable from the root through kept nodes.
    let mut idx: HashMap<usize, usize> = HashMap::new();
    let mut order = Vec::new();
    let mut stack = vec![root];
    while let Some(c) = stack.pop() {
        if idx.contains_key(&c) {
            continue;
        }
        idx.insert(c, order.len());
        order.push(c);
        for nd in g.classes[c].nodes.iter().filter(|nd| keep(nd)) {
            stack.extend(nd.kids.iter().map(|(k, _)| *k));
        }
    }
    let succ: Vec<Vec<usize>> = order
        .iter()
        .map(|&c| {
            let mut v: Vec<usize> = g.classes[c]
                .nodes
                .iter()
                .filter(|nd| keep(nd))
                .flat_map(|nd| nd.kids.iter().map(|(k, _)| idx[k]))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let scc = strongly_connected(&succ);
    let mut scc_size = vec![0usize; order.len()];
    for &s in &scc {
        scc_size[s] += 1;
    }
    let mut m = Model::default();
    m.set_parameter("log", "0");
    m.set_parameter("seconds", &seconds.to_string());
    m.set_obj_sense(Sense::Minimize);
    let active: Vec<_> = order.iter().map(|_| m.add_binary()).collect();
    // Levels only where a cycle can close: inside a strongly connected part.
    let level: Vec<Option<coin_cbc::Col>> = (0..order.len())
        .map(|i| {
            (scc_size[scc[i]] > 1 || succ[i].contains(&i)).then(|| {
                let t = m.add_integer();
                m.set_col_lower(t, 0.0);
                m.set_col_upper(t, scc_size[scc[i]] as f64);
                t
            })
        })
        .collect();
    let root_row = m.add_row();
    m.set_row_equal(root_row, 1.0);
    m.set_weight(root_row, active[0], 1.0);
    let mut picks: Vec<Vec<(usize, coin_cbc::Col)>> = vec![Vec::new(); order.len()];
    let mut inputs: BTreeMap<usize, Vec<coin_cbc::Col>> = BTreeMap::new();
    for (i, &c) in order.iter().enumerate() {
        let one = m.add_row();
        m.set_row_equal(one, 0.0);
        m.set_weight(one, active[i], -1.0);
        for (ni, nd) in g.classes[c].nodes.iter().enumerate() {
            if !keep(nd) {
                continue;
            }
            let x = m.add_binary();
            m.set_obj_coeff(x, cost(nd));
            m.set_weight(one, x, 1.0);
            picks[i].push((ni, x));
            if let How::Input(k) = *nd.how {
                inputs.entry(k).or_default().push(x);
            }
            for (k, _) in &nd.kids {
                let j = idx[k];
                // x <= active[k]
                let r = m.add_row();
                m.set_row_upper(r, 0.0);
                m.set_weight(r, x, 1.0);
                m.set_weight(r, active[j], -1.0);
                // level[i] >= level[j] + 1 - big * (1 - x), within one strongly connected part
                if let (Some(li), Some(lj)) = (level[i], level[j]) {
                    if scc[i] == scc[j] {
                        let big = scc_size[scc[i]] as f64 + 1.0;
                        let r = m.add_row();
                        m.set_row_lower(r, 1.0 - big);
                        m.set_weight(r, li, 1.0);
                        m.set_weight(r, lj, -1.0);
                        m.set_weight(r, x, -big);
                    }
                }
            }
        }
    }
    for xs in inputs.values() {
        let r = m.add_row();
        m.set_row_upper(r, 1.0);
        for x in xs {
            m.set_weight(r, *x, 1.0);
        }
    }
    let sol = m.solve();
    if sol.raw().is_seconds_limit_reached() {
        return Err(format!(
            "{} {seconds} s (--exact-seconds raises the limit)",
            super::ILP_TIME_LIMIT
        ));
    }
    if !sol.raw().is_proven_optimal() {
        return Err("the ILP has no proven optimum".into());
    }
    let mut choice = start.clone();
    for (i, &c) in order.iter().enumerate() {
        choice[c].1 = None;
        for (ni, x) in &picks[i] {
            if sol.col(*x) > 0.5 {
                choice[c].1 = Some(*ni);
            }
        }
    }
    Ok((choice, sol.raw().obj_value()))
}

/// The strongly connected component of every vertex (Tarjan, iterative), numbered from 0.
fn strongly_connected(succ: &[Vec<usize>]) -> Vec<usize> {
    let n = succ.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let mut comp = vec![usize::MAX; n];
    let (mut next, mut comps) = (0, 0);
    for s in 0..n {
        if index[s] != usize::MAX {
            continue;
        }
        // (vertex, next successor to visit)
        let mut call = vec![(s, 0)];
        index[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on_stack[s] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = comps;
                        if w == v {
                            break;
                        }
                    }
                    comps += 1;
                }
            }
        }
    }
    comp
}
