//! Picking terms out of e-classes.
//!
//! [`scope_term`] gives the smallest term of a function body *within its scope*: it follows
//! only data children, so numbers, types, literals and nested function bodies stay
//! references to their e-classes (pattern holes). Substitution ([`scope_term`] with a
//! replacement for an `arg`) is how fusion rules compose two bodies: `f . g` is `f`'s term
//! with `(arg 0)` replaced by `g`. [`best_term`] extracts a whole smallest term (egg's
//! greedy extractor by term size), used to print and to rebuild programs.

use super::analysis::{SeqEGraph, Sort};
use super::lang::SeqLang;
use super::pattern::Pat;
use egg::{AstSize, ENodeOrVar, Extractor, Id, Language, RecExpr, Var};
use indexmap::IndexMap;
use std::collections::BTreeMap;

/// A class an extracted fragment refers to without expanding it.
pub fn hole_var(id: Id) -> Var {
    format!("?%c{}", usize::from(id))
        .parse()
        .expect("a valid variable name")
}

/// Replacement for `(arg index)` leaves during [`scope_term`]: `index -> fragment`.
pub type ArgSubst<'a> = &'a dyn Fn(u8) -> Option<Pat>;

/// The smallest term of class `root` within its scope, as a pattern whose holes are
/// recorded in `holes` (variable -> class). `(arg i T)` leaves are replaced by `subst(i)`
/// when it gives a fragment (a fragment's own variables are kept as they are).
pub fn scope_term(
    egraph: &SeqEGraph,
    root: Id,
    subst: ArgSubst<'_>,
    holes: &mut IndexMap<Var, Id>,
) -> Pat {
    scope_term_with(egraph, root, None, subst, holes)
}

/// [`scope_term`] with every occurrence of class `class` replaced by `frag`: the context
/// of one sub-term, as the row split of a stencil kernel takes it apart (the kernel with its
/// per-row part replaced by a new argument).
pub fn scope_term_replacing(
    egraph: &SeqEGraph,
    root: Id,
    class: Id,
    frag: &Pat,
    subst: ArgSubst<'_>,
    holes: &mut IndexMap<Var, Id>,
) -> Pat {
    scope_term_with(egraph, root, Some((class, frag)), subst, holes)
}

/// [`scope_term`], with class `replace.0` (if any) spliced as fragment `replace.1`.
fn scope_term_with(
    egraph: &SeqEGraph,
    root: Id,
    replace: Option<(Id, &Pat)>,
    subst: ArgSubst<'_>,
    holes: &mut IndexMap<Var, Id>,
) -> Pat {
    let root = egraph.find(root);
    let choice = choose(egraph, root);
    let mut pat = Pat::default();
    let mut memo: BTreeMap<Id, Id> = BTreeMap::new();
    if let Some((class, frag)) = replace {
        let id = splice(&mut pat, frag);
        memo.insert(egraph.find(class), id);
        if memo.contains_key(&root) {
            return pat;
        }
    }
    build(egraph, root, &choice, subst, holes, &mut pat, &mut memo);
    pat
}

/// Smallest scope cost per class reachable from `root` through data children, with the
/// chosen node. A fixpoint, so cycles (from isomorphism rules) are harmless.
fn choose(egraph: &SeqEGraph, root: Id) -> BTreeMap<Id, (usize, SeqLang)> {
    let mut classes = vec![root];
    let mut seen = std::collections::BTreeSet::from([root]);
    let mut k = 0;
    while k < classes.len() {
        let c = classes[k];
        k += 1;
        for n in &egraph[c].nodes {
            for d in n.data_children() {
                let d = egraph.find(*d);
                if seen.insert(d) {
                    classes.push(d);
                }
            }
        }
    }
    let mut best: BTreeMap<Id, (usize, SeqLang)> = BTreeMap::new();
    loop {
        let mut changed = false;
        for c in &classes {
            for n in &egraph[*c].nodes {
                let mut cost = 1usize;
                let mut ok = true;
                for d in n.data_children() {
                    match best.get(&egraph.find(*d)) {
                        Some((dc, _)) => cost = cost.saturating_add(*dc),
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if ok && best.get(c).is_none_or(|(bc, _)| cost < *bc) {
                    best.insert(*c, (cost, n.clone()));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    best
}

fn build(
    egraph: &SeqEGraph,
    class: Id,
    choice: &BTreeMap<Id, (usize, SeqLang)>,
    subst: ArgSubst<'_>,
    holes: &mut IndexMap<Var, Id>,
    pat: &mut Pat,
    memo: &mut BTreeMap<Id, Id>,
) -> Id {
    if let Some(id) = memo.get(&class) {
        return *id;
    }
    let node = choice[&class].1.clone();
    if let SeqLang::Arg([i, _]) = &node {
        if let Sort::Num(k) = &egraph[*i].data.sort {
            if let Some(frag) = u8::try_from(*k).ok().and_then(subst) {
                let id = splice(pat, &frag);
                memo.insert(class, id);
                return id;
            }
        }
    }
    let data: Vec<Id> = node
        .data_children()
        .iter()
        .map(|d| egraph.find(*d))
        .collect();
    let new = node.map_children(|c| {
        let c = egraph.find(c);
        if data.contains(&c) {
            build(egraph, c, choice, subst, holes, pat, memo)
        } else {
            let v = hole_var(c);
            holes.insert(v, c);
            pat.add(ENodeOrVar::Var(v))
        }
    });
    let id = pat.add(ENodeOrVar::ENode(new));
    memo.insert(class, id);
    id
}

/// Appends a copy of `frag` to `pat` and returns the id of its root.
pub fn splice(pat: &mut Pat, frag: &Pat) -> Id {
    let mut map: Vec<Id> = Vec::with_capacity(frag.as_ref().len());
    for n in frag.as_ref() {
        let new = match n {
            ENodeOrVar::Var(v) => ENodeOrVar::Var(*v),
            ENodeOrVar::ENode(e) => {
                ENodeOrVar::ENode(e.clone().map_children(|c| map[usize::from(c)]))
            }
        };
        map.push(pat.add(new));
    }
    *map.last().expect("a fragment is never empty")
}

/// A smallest whole term of a class (by number of nodes).
pub fn best_term(egraph: &SeqEGraph, id: Id) -> RecExpr<SeqLang> {
    Extractor::new(egraph, AstSize).find_best(id).1
}
