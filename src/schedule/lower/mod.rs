//! Lowering rules: how one sequence operator, delivered in one output layout, is built from
//! space-time operators.
//!
//! The rules are data (`rules/lower/*.rules`, format in `docs/rules.md`). A rule names the
//! sequence operator it lowers, the output layout it produces (a pattern over the top
//! `seq` layer), side conditions, the layouts it needs its producers and its function body
//! in, and the space-time term that builds it. The e-graph scheduler's stream graph offers
//! one stream node per matching rule instance ([`LowerRule::match_out`]), and the chosen
//! instances are emitted into the design with [`Instance::emit`]. Every rule is checked on
//! random instances against the interpreter in `tests/lower_rules.rs`.

mod build;
mod parse;
mod pattern;

pub use pattern::{Bound, Env, Expr, LayPat};

use crate::schedule::slowdown::streaming_layout;
use crate::seq::types::SeqType;
use crate::st::verify::implements;
use crate::st::Layout;
use crate::util::diag::Diagnostic;
use std::sync::OnceLock;

/// The built-in lowering rule files, compiled in from `rules/lower/`.
pub const DEFAULT_LOWER_FILES: &[(&str, &str)] = &[
    (
        "rules/lower/map.rules",
        include_str!("../../../rules/lower/map.rules"),
    ),
    (
        "rules/lower/resize.rules",
        include_str!("../../../rules/lower/resize.rules"),
    ),
    (
        "rules/lower/shift.rules",
        include_str!("../../../rules/lower/shift.rules"),
    ),
    (
        "rules/lower/transpose.rules",
        include_str!("../../../rules/lower/transpose.rules"),
    ),
    (
        "rules/lower/relabel.rules",
        include_str!("../../../rules/lower/relabel.rules"),
    ),
];

/// The sequence operators that have lowering rules, with the role of each argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeqHead {
    /// `(map N F x)`.
    Map,
    /// `(map2 N F x y)`.
    Map2,
    /// `(reduce N F x)`.
    Reduce,
    /// `(down_1d N IDX x)`.
    Down,
    /// `(up_1d N x)`.
    Up,
    /// `(shift N AMOUNT INIT x)`.
    Shift,
    /// `(transpose NO NI x)`.
    Transpose,
    /// `(partition NO NI x)`.
    Partition,
    /// `(unpartition NO NI x)`.
    Unpartition,
    /// `(stuple_to_seq N x)`.
    STupleToSeq,
    /// `(seq_to_stuple N x)`.
    SeqToSTuple,
}

/// What an argument of a sequence operator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A number (a length, an index, an amount).
    Num,
    /// The function body of a higher-order operator.
    Body,
    /// The shift's initial element (absent for don't-care).
    Init,
    /// A producer.
    Input,
}

impl SeqHead {
    /// Every operator with lowering rules.
    pub const ALL: [SeqHead; 11] = [
        SeqHead::Map,
        SeqHead::Map2,
        SeqHead::Reduce,
        SeqHead::Down,
        SeqHead::Up,
        SeqHead::Shift,
        SeqHead::Transpose,
        SeqHead::Partition,
        SeqHead::Unpartition,
        SeqHead::STupleToSeq,
        SeqHead::SeqToSTuple,
    ];

    /// The head's name as written in programs and rules.
    pub fn name(self) -> &'static str {
        match self {
            SeqHead::Map => "map",
            SeqHead::Map2 => "map2",
            SeqHead::Reduce => "reduce",
            SeqHead::Down => "down_1d",
            SeqHead::Up => "up_1d",
            SeqHead::Shift => "shift",
            SeqHead::Transpose => "transpose",
            SeqHead::Partition => "partition",
            SeqHead::Unpartition => "unpartition",
            SeqHead::STupleToSeq => "stuple_to_seq",
            SeqHead::SeqToSTuple => "seq_to_stuple",
        }
    }

    /// The head of a name.
    pub fn from_name(s: &str) -> Option<SeqHead> {
        SeqHead::ALL.into_iter().find(|h| h.name() == s)
    }

    /// The roles of the arguments, in order.
    pub fn roles(self) -> &'static [Role] {
        use Role::*;
        match self {
            SeqHead::Map | SeqHead::Reduce => &[Num, Body, Input],
            SeqHead::Map2 => &[Num, Body, Input, Input],
            SeqHead::Down | SeqHead::Transpose | SeqHead::Partition | SeqHead::Unpartition => {
                &[Num, Num, Input]
            }
            SeqHead::Up | SeqHead::STupleToSeq | SeqHead::SeqToSTuple => &[Num, Input],
            SeqHead::Shift => &[Num, Num, Init, Input],
        }
    }

    /// True for the operators that keep their atoms in flat order (they only regroup
    /// layers): their rules match the whole output layout, `(out ?l)`, not its top layer.
    pub fn whole_layout(self) -> bool {
        matches!(
            self,
            SeqHead::Partition | SeqHead::Unpartition | SeqHead::STupleToSeq | SeqHead::SeqToSTuple
        )
    }

    /// The length of the output's top `seq` layer, given the operator's numbers (in
    /// argument order; `None` if one is missing).
    pub fn out_len(self, nums: &[u64]) -> Option<u64> {
        match self {
            SeqHead::Reduce | SeqHead::Down | SeqHead::SeqToSTuple => Some(1),
            SeqHead::Transpose => nums.get(1).copied(),
            SeqHead::Unpartition => nums.first()?.checked_mul(*nums.get(1)?),
            _ => nums.first().copied(),
        }
    }
}

/// A requirement of a rule, in the order the rule lists them (the order the stream graph
/// requests them).
#[derive(Clone, Debug)]
pub enum Need {
    /// Producer `input` (its index among the operator's inputs) in layout `layout`.
    In {
        /// Which input.
        input: usize,
        /// Its layout.
        layout: LayPat,
    },
    /// The function body, with parameter layouts `params` and result layout `out`.
    Body {
        /// The parameters' layouts.
        params: Vec<LayPat>,
        /// The result's layout.
        out: LayPat,
    },
}

/// A side condition, run in order after the output layout matched.
#[derive(Clone, Debug)]
pub enum Cond {
    /// A comparison of two numbers (`=`, `!=`, `<`, `<=`, `>`, `>=`).
    Cmp(String, Expr, Expr),
    /// Binds a variable to a number.
    Let(usize, Expr),
    /// `(largest-divisor ?d N LIMIT)`: `?d` is the largest divisor of N that is at most LIMIT.
    LargestDivisor(usize, Expr, Expr),
    /// `(divisor-split ?a ?b N LA LB)`: `?a * ?b = N` with `?a <= LA`, `?b <= LB` and `?a`
    /// as large as possible; no match if there is none.
    DivisorSplit(usize, usize, Expr, Expr, Expr),
    /// `(layout ?l L)`: the layout bound to `?l` has the form of the pattern `L`, whose
    /// variables it binds (how a rule looks below the output's top layer).
    Layout(usize, LayPat),
}

/// A space-time term: the right side of a rule.
#[derive(Clone, Debug)]
pub enum Term {
    /// A producer (an input variable of the rule, or a parameter of an enclosing `fn`).
    Var(usize),
    /// A space-time operator applied to its static arguments and producers.
    Op(String, Vec<TArg>),
}

/// One argument of a space-time operator in a term.
#[derive(Clone, Debug)]
pub enum TArg {
    /// A number.
    Num(Expr),
    /// A list of numbers (the inner layers of `shift_tn`).
    Nums(Vec<Expr>),
    /// A layout.
    Lay(LayPat),
    /// The shift's initial element; `wrap` makes it a one-element list (for `sseq 1`).
    Init {
        /// The variable.
        var: usize,
        /// Wrapped in a one-element list.
        wrap: bool,
    },
    /// The rule's function body (`?f`).
    Body,
    /// A function: parameter variables and the term they build.
    Fn(Vec<usize>, Box<Term>),
    /// A producer.
    Input(Box<Term>),
}

/// One loaded lowering rule.
#[derive(Clone, Debug)]
pub struct LowerRule {
    /// Its name (unique).
    pub name: String,
    /// What it builds, in words.
    pub doc: String,
    /// The file it came from.
    pub file: String,
    /// The sequence operator it lowers.
    pub head: SeqHead,
    /// The variable of each of the operator's arguments (in [`SeqHead::roles`] order).
    pub seq_vars: Vec<usize>,
    /// The variables of the operator's producers, in argument order (what
    /// [`Need::In::input`] indexes).
    pub inputs: Vec<usize>,
    /// The variable of the operator's function body, for higher-order operators.
    pub body: Option<usize>,
    /// The output layout.
    pub out: LayPat,
    /// Side conditions.
    pub conds: Vec<Cond>,
    /// Producers and body, in request order.
    pub needs: Vec<Need>,
    /// The space-time term.
    pub st: Term,
    /// Layout variables not fixed by the output: chosen by the scheduler among the
    /// candidate layouts of input `.1`'s element type with the body result's clock count.
    pub choices: Vec<(usize, usize)>,
    /// Every variable's name, indexed by variable number.
    pub vars: Vec<String>,
    /// The rule's clauses as written (all but `doc`), for listings.
    pub text: Vec<String>,
    /// The index of the first rule whose space-time term is the same up to variable
    /// names (see [`Instance`]).
    pub shape: usize,
    /// For `(in ?x (same-wires ?l))`: the hidden variable the scheduler binds to each
    /// layout of the producer with the wires of `?l`, and `?l`.
    pub same_wires: Option<(usize, usize)>,
}

/// A loaded set of lowering rules.
#[derive(Clone, Debug)]
pub struct LowerRules {
    /// The rules, in file order (the order the stream graph tries them).
    pub rules: Vec<LowerRule>,
}

impl LowerRules {
    /// Reads rule files (name, text); errors name the file, position and rule.
    pub fn parse(files: &[(&str, &str)]) -> Result<LowerRules, Diagnostic> {
        let mut rules: Vec<LowerRule> = Vec::new();
        for (file, text) in files {
            for r in parse::parse_file(file, text)? {
                if rules.iter().any(|q| q.name == r.name) {
                    return Err(Diagnostic::file(
                        file,
                        format!("lowering rule `{}` is defined twice", r.name),
                    ));
                }
                rules.push(r);
            }
        }
        let shapes: Vec<String> = rules.iter().map(build::symbolic_term).collect();
        for (k, r) in rules.iter_mut().enumerate() {
            r.shape = shapes.iter().position(|s| *s == shapes[k]).unwrap_or(k);
        }
        Ok(LowerRules { rules })
    }

    /// The rules as text: one block per rule (name, file, doc, clauses).
    pub fn listing(&self) -> String {
        let mut s = format!(
            "{} lowering rules (built-in, rules/lower/)\n",
            self.rules.len()
        );
        for r in &self.rules {
            s.push_str(&format!("\n{}  [{}]  {}\n", r.name, r.head.name(), r.file));
            if !r.doc.is_empty() {
                s.push_str(&format!("  {}\n", r.doc));
            }
            for c in &r.text {
                s.push_str(&format!("  {c}\n"));
            }
        }
        s
    }

    /// The rules of one sequence operator, with their indices, in file order.
    pub fn for_head(&self, head: SeqHead) -> impl Iterator<Item = (usize, &LowerRule)> {
        self.rules
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.head == head)
    }
}

/// The built-in rules (`rules/lower/`), loaded once.
pub fn rules() -> &'static LowerRules {
    static RULES: OnceLock<LowerRules> = OnceLock::new();
    RULES.get_or_init(|| {
        LowerRules::parse(DEFAULT_LOWER_FILES)
            .unwrap_or_else(|e| panic!("the built-in lowering rules do not load: {e}"))
    })
}

/// The operator-level facts a rule is matched against.
#[derive(Clone, Debug)]
pub struct SeqArgs {
    /// The numbers, in argument order (for [`Role::Num`] arguments).
    pub nums: Vec<u64>,
    /// The shift's initial element, if any.
    pub init: Option<crate::seq::value::Value>,
    /// The type of the output's elements (below the top layer); for a
    /// [`SeqHead::whole_layout`] operator, the output's type.
    pub elem: SeqType,
}

/// A matched rule with every variable bound: one stream node.
///
/// Two instances are equal when they build the same term (the same operators, numbers,
/// layouts and init over the same producers): for example `down-time-partial` on the view
/// `tseq 1 d L` and `down-time-one-lane` on `tseq 1 d (sseq 1 L)`, which is the same stream
/// class. They are one stream node, named after the first rule that built it.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The rule's index in [`rules()`].
    pub rule: usize,
    /// The variables' values.
    pub env: Env,
    /// What identifies the built term: the rule's shape and the term's values.
    key: (usize, Vec<Bound>),
}

impl PartialEq for Instance {
    fn eq(&self, other: &Instance) -> bool {
        self.key == other.key
    }
}

impl Eq for Instance {}

impl std::hash::Hash for Instance {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key.hash(h);
    }
}

impl Instance {
    /// The instance of rule `rule` (an index in [`rules()`]) with the bindings `env`;
    /// `None` if its term is undefined under them (a variable unbound, a number out of
    /// range).
    pub fn new(rule: usize, env: Env) -> Option<Instance> {
        let r = &rules().rules[rule];
        let key = (r.shape, build::term_leaves(r, &env)?);
        Some(Instance { rule, env, key })
    }

    /// The rule.
    pub fn rule(&self) -> &'static LowerRule {
        &rules().rules[self.rule]
    }

    /// True if the instance builds nothing: its term is its producer (a relabel).
    pub fn is_relabel(&self) -> bool {
        matches!(self.rule().st, Term::Var(_))
    }

    /// The layouts of the rule's needs (inputs and body), in the rule's order.
    pub fn need_layouts(&self) -> Result<Vec<(&'static Need, Vec<Layout>)>, String> {
        let r = self.rule();
        r.needs
            .iter()
            .map(|n| {
                let ls = match n {
                    Need::In { layout, .. } => vec![layout.build(&self.env)?],
                    Need::Body { params, out } => {
                        let mut v = Vec::new();
                        for p in params {
                            v.push(p.build(&self.env)?);
                        }
                        v.push(out.build(&self.env)?);
                        v
                    }
                };
                Ok((n, ls))
            })
            .collect()
    }
}

impl LowerRule {
    /// Matches the output layout `l` of an operator with arguments `args`: the partial
    /// binding (choice variables unbound) if the rule applies.
    pub fn match_out(&self, args: &SeqArgs, l: &Layout) -> Option<Env> {
        let mut env = Env::new(self.vars.len());
        let mut k = 0;
        for (role, v) in self.head.roles().iter().zip(&self.seq_vars) {
            match role {
                Role::Num => {
                    env.set(*v, Bound::Num(*args.nums.get(k)?));
                    k += 1;
                }
                Role::Init => env.set(*v, Bound::Init(args.init.clone())),
                Role::Body | Role::Input => {}
            }
        }
        if self.head.whole_layout() {
            let (LayPat::Var(v), true) = (&self.out, implements(l, &args.elem)) else {
                return None;
            };
            env.set(*v, Bound::Lay(l.clone()));
        } else {
            let (len, elem) = self.out.match_layer(l, &mut env)?;
            // A map's or a reduce's element is its body's result, which may also be the
            // element's streaming layout, splitting a layer (`(tseq 16 0 (sseq 2 x))` for a
            // `(seq 32 _)`): the layout Aetherling propagates into a map body, and the one
            // it adds streamed rows in (`(tseq 3 1 (sseq 2 uint8))` for `(seq 6 uint8)`).
            // An up repeats and a down selects whole elements, so such rows pass through
            // them as they are. Other operators' elements keep the element type's layers
            // (a shift's initial value is laid out by them); any other split would grow
            // the stream graph without reaching a design the baseline has.
            let fits = elem.to_seq() == args.elem
                || (matches!(
                    self.head,
                    SeqHead::Map | SeqHead::Map2 | SeqHead::Reduce | SeqHead::Up | SeqHead::Down
                ) && streaming_layout(&args.elem, elem.clocks()).as_ref() == Some(&elem));
            if len != self.head.out_len(&args.nums)? || !fits {
                return None;
            }
        }
        for c in &self.conds {
            pattern::run_cond(c, &mut env)?;
        }
        Some(env)
    }
}
