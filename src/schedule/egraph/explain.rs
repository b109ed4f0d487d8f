//! `--explain`: why a scheduled design equals its program.
//!
//! A design is explained in two parts. The *sequence term* is read off the extracted
//! selection: each chosen stream node records the phase-1 e-node it lowers, so following
//! the selection from the root gives a term of the program's e-class (reshapes pass
//! through; integers and types are the e-class's smallest term). The rewrite derivation
//! from the program to that term is then re-proven with egg's explanations
//! ([`crate::egraph::prove::prove_exprs`]). The *lowering* lists, outermost first, each
//! stream class of the design: the subterm, the layout it is built in and the space-time
//! operator that builds it.

use super::extract::Choice;
use super::graph::{How, StreamGraph};
use crate::egraph::convert::{reroot, ExprBuilder};
use crate::egraph::lang::SeqLang;
use crate::st::Layout;
use egg::{AstSize, Extractor, Id, Language, RecExpr};
use std::collections::{HashMap, HashSet};

/// The explanation of one extracted design.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The sequence term the design implements (in the program's e-class).
    pub term: RecExpr<SeqLang>,
    /// One line per stream class of the design, outermost first, indented by depth.
    pub lowering: Vec<String>,
}

/// Explains the selection `choice` rooted at stream class `root`.
pub fn explain(g: &StreamGraph, choice: &Choice, root: usize) -> Result<Explanation, String> {
    let ex = Extractor::new(g.egraph(), AstSize);
    let mut t = Terms {
        g,
        choice,
        ex: &ex,
        b: ExprBuilder::default(),
        memo: HashMap::new(),
    };
    let r = t.term(root, 0)?;
    let memo = t.memo;
    let all = t.b.finish();
    // The term is a DAG, but it is printed, and re-proven with egg's explanations, as a
    // tree: a program that reuses values (`(map2 4 add aK-1 aK-2)` chains) doubles it at
    // every level, which took 16 GB at 100 lets. Refused past a size instead.
    let size = tree_size(&all, r);
    if size > MAX_TREE {
        return Err(format!(
            "the selection's term is {size} nodes written out as a tree, more than the \
             {MAX_TREE} an explanation prints"
        ));
    }
    let mut lowering = Vec::new();
    let mut seen = HashSet::new();
    lines(
        g,
        choice,
        root,
        0,
        &[],
        &all,
        &memo,
        &mut seen,
        &mut lowering,
    );
    Ok(Explanation {
        term: reroot(&all, r),
        lowering,
    })
}

/// The largest term (as a tree) an explanation prints and re-proves.
pub const MAX_TREE: u64 = 10_000;

/// The size of the term rooted at `root` written out as a tree (saturating).
fn tree_size(e: &RecExpr<SeqLang>, root: Id) -> u64 {
    let nodes = e.as_ref();
    let mut size = vec![0u64; usize::from(root) + 1];
    for (i, n) in nodes.iter().enumerate().take(size.len()) {
        size[i] = n
            .children()
            .iter()
            .fold(1u64, |acc, c| acc.saturating_add(size[usize::from(*c)]));
    }
    size[usize::from(root)]
}

struct Terms<'a, 'g> {
    g: &'a StreamGraph<'g>,
    choice: &'a Choice,
    ex: &'a Extractor<'a, AstSize, SeqLang, crate::egraph::analysis::SeqAnalysis>,
    b: ExprBuilder,
    memo: HashMap<usize, Id>,
}

impl Terms<'_, '_> {
    /// The smallest term of a phase-1 e-class (integers, types, literals).
    fn leaf(&mut self, class: Id) -> Id {
        let (_, e) = self.ex.find_best(class);
        let mut ids: Vec<Id> = Vec::with_capacity(e.as_ref().len());
        for node in e.as_ref() {
            let n = node.clone().map_children(|c| ids[usize::from(c)]);
            ids.push(self.b.add(n));
        }
        *ids.last().expect("a term has a root")
    }

    fn term(&mut self, c: usize, depth: usize) -> Result<Id, String> {
        if let Some(id) = self.memo.get(&c) {
            return Ok(*id);
        }
        if depth > 4_000 {
            return Err("the selection is too deep to explain".into());
        }
        let ni = self.choice[c]
            .1
            .ok_or_else(|| format!("stream class {c} has no chosen node"))?;
        let nd = &self.g.classes[c].nodes[ni];
        let id = match &nd.src {
            None => match nd.kids.first() {
                Some((k, _)) => self.term(*k, depth + 1)?,
                None => self.leaf(self.g.classes[c].key.class),
            },
            Some(enode) => {
                let eg = self.g.egraph();
                let mut kids = Vec::new();
                for ch in enode.children() {
                    let ch = eg.find(*ch);
                    let stream = nd
                        .kids
                        .iter()
                        .map(|(k, _)| *k)
                        .chain(nd.body.as_ref().map(|(b, _, _)| *b))
                        .find(|k| self.g.classes[*k].key.class == ch);
                    kids.push(match stream {
                        Some(k) => self.term(k, depth + 1)?,
                        None => self.leaf(ch),
                    });
                }
                let mut it = kids.into_iter();
                let node = enode
                    .clone()
                    .map_children(|_| it.next().expect("one term per child"));
                self.b.add(node)
            }
        };
        self.memo.insert(c, id);
        Ok(id)
    }
}

/// A short description of how a stream node is built.
fn describe(how: &How) -> String {
    match how {
        How::Input(k) => format!("program input {k}"),
        How::Arg(k, _) => format!("function parameter {k}"),
        How::Op(op) => op.to_string(),
        How::Lower(inst) if inst.is_relabel() => {
            format!(
                "{}: {} (the same wires, no operator)",
                inst.rule().name,
                inst.show()
            )
        }
        How::Lower(inst) => format!("{}: {}", inst.rule().name, inst.show()),
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{} ...", s.chars().take(max).collect::<String>())
    }
}

/// The lowering's lines of class `c` and what it reads. `params` are the exact layouts of
/// the enclosing body's parameters: a body's context is shared by parameters laid out with
/// the same wires ([`super::graph`]), and a parameter is shown as the map passes it.
#[allow(clippy::too_many_arguments)]
fn lines(
    g: &StreamGraph,
    choice: &Choice,
    c: usize,
    depth: usize,
    params: &[Layout],
    all: &RecExpr<SeqLang>,
    memo: &HashMap<usize, Id>,
    seen: &mut HashSet<usize>,
    out: &mut Vec<String>,
) {
    let pad = "  ".repeat(depth);
    let Some(ni) = choice[c].1 else { return };
    let nd = &g.classes[c].nodes[ni];
    let term = memo
        .get(&c)
        .map(|id| clip(&reroot(all, *id).to_string(), 70))
        .unwrap_or_default();
    let layout = match &*nd.how {
        How::Arg(k, _) => params.get(usize::from(*k)).unwrap_or(&nd.out),
        _ => &nd.out,
    };
    if !seen.insert(c) {
        out.push(format!(
            "{pad}{term} in {layout}: shared, built once (above)"
        ));
        return;
    }
    out.push(format!("{pad}{term} in {layout} <- {}", describe(&nd.how)));
    for (k, _) in &nd.kids {
        lines(g, choice, *k, depth + 1, params, all, memo, seen, out);
    }
    if let Some((b, ps, _)) = &nd.body {
        let shown: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
        out.push(format!("{pad}  body ({}):", shown.join(", ")));
        lines(g, choice, *b, depth + 2, ps, all, memo, seen, out);
    }
}
