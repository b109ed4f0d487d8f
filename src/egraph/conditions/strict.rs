//! The `strict` condition: a function body that maps don't-care arguments to don't-care.
//!
//! A map commutes with a shift without init only if the function turns the moved-in
//! don't-care element into don't-care again: `map f (shift _ x)` has `f(_)` where
//! `shift _ (map f x)` has `_`. A body with a constant, a counter or a shift with an init
//! gives defined atoms from don't-care arguments, and the rewrite would lose them.
//!
//! The test is an abstract interpretation of the body over three facts about a value, from
//! strongest to weakest: every atom is entirely don't-care (`Full`); every atom has a
//! don't-care part (`Tainted`: an atom tuple with one defined side); nothing is known
//! (`Unknown`). Atom operators other than `fst`, `snd` and `if` are don't-care when any part
//! of their operand is (the interpreter's `atom`), so they turn `Tainted` into `Full`. A class
//! holds equal terms, so the strongest fact of any of its nodes holds for the class.

use super::super::analysis::{SeqEGraph, Sort};
use super::super::lang::SeqLang;
use crate::seq::op::AtomOp;
use crate::seq::value::Value;
use egg::Id;
use std::collections::HashMap;

/// What is known of a value's don't-care atoms, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Undef {
    /// Nothing.
    Unknown,
    /// Every atom has a don't-care part.
    Tainted,
    /// Every atom is entirely don't-care.
    Full,
}

/// An atom tuple (or the pair `reduce` hands its function) of two values.
fn pair(a: Undef, b: Undef) -> Undef {
    match (a, b) {
        (Undef::Full, Undef::Full) => Undef::Full,
        (Undef::Unknown, Undef::Unknown) => Undef::Unknown,
        _ => Undef::Tainted,
    }
}

/// True if body `f` (of one or two arguments) gives an entirely don't-care value whenever
/// its arguments are entirely don't-care.
pub fn strict(eg: &SeqEGraph, f: Id) -> bool {
    let mut walk = Walk {
        eg,
        memo: HashMap::new(),
    };
    walk.class(eg.find(f), [Undef::Full, Undef::Full]) == Undef::Full
}

struct Walk<'a> {
    eg: &'a SeqEGraph,
    /// Per class and argument facts; `Unknown` while a class is being visited, so a cycle
    /// through the e-graph proves nothing.
    memo: HashMap<(Id, [Undef; 2]), Undef>,
}

impl Walk<'_> {
    fn class(&mut self, id: Id, env: [Undef; 2]) -> Undef {
        let id = self.eg.find(id);
        if let Some(u) = self.memo.get(&(id, env)) {
            return *u;
        }
        self.memo.insert((id, env), Undef::Unknown);
        let mut best = Undef::Unknown;
        for node in &self.eg[id].nodes {
            best = best.max(self.node(node, env));
            if best == Undef::Full {
                break;
            }
        }
        self.memo.insert((id, env), best);
        best
    }

    /// Body `f` with its arguments bound to `args`.
    fn body(&mut self, f: Id, args: [Undef; 2]) -> Undef {
        self.class(f, args)
    }

    fn node(&mut self, node: &SeqLang, env: [Undef; 2]) -> Undef {
        let eg = self.eg;
        match node {
            SeqLang::Arg([i, _]) => match eg[*i].data.sort.num() {
                Some(0) => env[0],
                Some(1) => env[1],
                _ => Undef::Unknown,
            },
            SeqLang::Atom(op, [x]) => {
                let x = self.class(*x, env);
                match op.0 {
                    // These pass a part of the operand through, or choose by a defined
                    // condition: only an entirely don't-care operand is sure to give one.
                    AtomOp::Fst | AtomOp::Snd | AtomOp::If => {
                        if x == Undef::Full {
                            Undef::Full
                        } else {
                            Undef::Unknown
                        }
                    }
                    _ => atom(x),
                }
            }
            SeqLang::Cast([_, x]) => atom(self.class(*x, env)),
            SeqLang::ATuple([a, b]) | SeqLang::STuple([a, b]) | SeqLang::STupleAppend([a, b]) => {
                let (a, b) = (self.class(*a, env), self.class(*b, env));
                if matches!(node, SeqLang::ATuple(_)) {
                    pair(a, b)
                } else {
                    // Every element comes from one of the two.
                    a.min(b)
                }
            }
            SeqLang::Shift([_, _, init, x]) => match &eg[*init].data.sort {
                Sort::Lit(v) if all_undef(v) => self.class(*x, env),
                _ => Undef::Unknown,
            },
            SeqLang::Up([_, x])
            | SeqLang::STupleToSeq([_, x])
            | SeqLang::SeqToSTuple([_, x])
            | SeqLang::Down([_, _, x])
            | SeqLang::Partition([_, _, x])
            | SeqLang::Unpartition([_, _, x])
            | SeqLang::Transpose([_, _, x]) => self.class(*x, env),
            SeqLang::Map([_, f, x]) => {
                let x = self.class(*x, env);
                self.body(*f, [x, Undef::Unknown])
            }
            SeqLang::Map2([_, f, x, y]) => {
                let (x, y) = (self.class(*x, env), self.class(*y, env));
                self.body(*f, [x, y])
            }
            SeqLang::Reduce([n, f, x]) => {
                let x = self.class(*x, env);
                // The accumulator starts as an element and becomes f's result: the
                // weakest of every step's fact holds for every length.
                let mut acc = if eg[*n].data.sort.num() == Some(1) {
                    x
                } else {
                    Undef::Full
                };
                let mut r = self.body(*f, [pair(x, x), Undef::Unknown]);
                loop {
                    acc = acc.min(r);
                    let next = self.body(*f, [pair(acc, x), Undef::Unknown]).min(acc);
                    if next == acc {
                        return acc;
                    }
                    r = next;
                }
            }
            SeqLang::HMap([_, fs, x]) => {
                let x = self.class(*x, env);
                let items: Option<Vec<Id>> = eg[*fs].nodes.iter().find_map(|n| match n {
                    SeqLang::ListToSeq(items) => Some(items.to_vec()),
                    _ => None,
                });
                match items {
                    Some(items) => items
                        .into_iter()
                        .map(|f| self.body(f, [x, Undef::Unknown]))
                        .min()
                        .unwrap_or(Undef::Unknown),
                    None => Undef::Unknown,
                }
            }
            // Constants, counters and inputs are defined whatever the arguments.
            _ => Undef::Unknown,
        }
    }
}

/// An atom operator that is don't-care when any part of its operand is.
fn atom(x: Undef) -> Undef {
    if x == Undef::Unknown {
        Undef::Unknown
    } else {
        Undef::Full
    }
}

/// True if no atom of `v` is defined.
fn all_undef(v: &Value) -> bool {
    match v {
        Value::Undef => true,
        Value::Scalar(_) => false,
        Value::Pair(p) => all_undef(&p.0) && all_undef(&p.1),
        Value::List(xs) => xs.iter().all(all_undef),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egraph::analysis::SeqAnalysis;

    fn is_strict(body: &str) -> bool {
        let mut eg = SeqEGraph::new(SeqAnalysis::new(vec![]));
        let id = eg.add_expr(&body.parse().expect("a term"));
        eg.rebuild();
        strict(&eg, id)
    }

    #[test]
    fn atom_operators_with_a_constant_operand_keep_dont_care() {
        assert!(is_strict(
            "(map2 3 (lsl (atuple (arg 0 uint8) (arg 1 uint8))) (arg 0 (seq 3 uint8)) (const [0,1,0] (seq 3 uint8)))"
        ));
        assert!(is_strict("(add (atuple (arg 0 uint8) (arg 1 uint8)))"));
        // conv2d's weighted row sum: a constant per element, then a reduction.
        assert!(is_strict(
            "(reduce 3 (add (arg 0 (atuple_type uint8 uint8))) (map 3 (lsl (arg 0 (atuple_type uint8 uint8))) (map2 3 (atuple (arg 0 uint8) (arg 1 uint8)) (arg 0 (seq 3 uint8)) (const [0,1,0] (seq 3 uint8)))))"
        ));
        assert!(is_strict("(shift 4 1 _ (arg 0 (seq 4 uint8)))"));
        assert!(is_strict("(fst (atuple (arg 0 uint8) (arg 1 uint8)))"));
    }

    #[test]
    fn constants_inits_and_projections_are_not_strict() {
        assert!(!is_strict("(const [3] (seq 1 uint8))"));
        assert!(!is_strict(
            "(shift 4 1 [80,80] (arg 0 (seq 4 (seq 2 uint8))))"
        ));
        // fst of a pair whose first side is defined.
        assert!(!is_strict(
            "(map2 3 (fst (atuple (arg 1 uint8) (arg 0 uint8))) (arg 0 (seq 3 uint8)) (const [0,1,0] (seq 3 uint8)))"
        ));
        // A seq-tuple with one defined element.
        assert!(!is_strict(
            "(stuple (arg 0 (seq 3 uint8)) (const [0,1,0] (seq 3 uint8)))"
        ));
    }
}
