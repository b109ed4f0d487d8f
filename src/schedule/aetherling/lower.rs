//! Back-to-front lowering of one program for one requested output layout (reference §4.4):
//! each node is lowered once per scope, in the layout its first consumer asks for; a later
//! consumer that asks for another layout gets a `reshape` of the first.
//!
//! Layouts are handled as one [`LayerForm`] per `seq` layer of a node's type (Aetherling's
//! `Type_Rewrite` lists), so the per-operator tables can read which layer is in space, in
//! time or split.

use super::super::slowdown::{aetherling_forms, build_layout, LayerForm};
use crate::seq::op::Op;
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::seq::{NodeId as SeqId, Program};
use crate::st::design::BodyId;
use crate::st::stream::{flatten, unflatten};
use crate::st::{Design, Layout, NodeId as StId, StOp};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A value of type `t` restructured to the nesting of `layout` (same atoms in flat order):
/// a layout may split a layer, e.g. `(tseq 1 0 (sseq 3 _))` for a `(seq 3 _)`.
fn relay(v: &Value, t: &SeqType, layout: &Layout) -> Value {
    unflatten(&flatten(v, t), &layout.to_seq())
}

/// One layout form per `seq` layer of a type, outermost first.
pub(super) type Forms = Vec<LayerForm>;

/// What a scope (the program, or one use of a function body) has lowered so far.
#[derive(Clone, Default)]
struct Scope {
    memo: HashMap<SeqId, (StId, Forms)>,
    args: Vec<Option<(StId, Forms)>>,
}

/// What an Unpartition sub-search depends on at the top-level scope: the producer, the
/// requested forms (with the operator's lengths and type), and the forms of the program
/// inputs its producer reaches (`None`: not yet declared).
pub(super) type SearchKey = (SeqId, u64, u64, SeqType, Forms, Vec<Option<Forms>>);

/// What a keyed search's candidate producer depends on: the producer, its forms, and the
/// forms of the program inputs it reaches (as in [`SearchKey`]).
pub(super) type ProducerKey = (SeqId, Forms, Vec<Option<Forms>>);

/// A candidate producer lowered on its own: the area of its sub-design (`None`: it reads a
/// function parameter) and its layout, or why it cannot be lowered.
pub(super) type ProducerCost = Result<(Option<crate::st::area::Area>, Layout), String>;

/// The Unpartition sub-searches already run, shared by every copy of the lowering state
/// (one per [`super::schedule`] call): the winning producer forms per [`SearchKey`].
///
/// A search lowers its producer `x` in every candidate form in a copy of the state and
/// keeps the candidate of least area of the sub-design reaching the result. At the top
/// level, when no node `x` reaches (through arguments) has been lowered yet in the scope,
/// that lowering reads nothing of the state but the forms of the program inputs `x`
/// reaches (bodies get fresh scopes), and the sub-design it builds (hash-consing aside,
/// which keeps its structure) and so its area are the same whatever else the design
/// holds: the same key picks the same winner, and lowering the winner directly gives the
/// state the full search would have kept. Other searches are run in full.
#[derive(Default)]
pub(super) struct SearchMemo {
    pub(super) winners: HashMap<SearchKey, Forms>,
    /// Per candidate producer of a keyed search: what lowering it alone gives (see
    /// [`super::search`]); shared by the searches of one producer for different outputs.
    pub(super) producers: HashMap<ProducerKey, ProducerCost>,
    /// Per node: the nodes it reaches through arguments, and the program inputs it reaches
    /// through arguments and bodies.
    cones: HashMap<SeqId, (Vec<SeqId>, Vec<usize>)>,
    /// When to give up (a time budget): every `lower` after it fails, so one candidate
    /// (whose sub-searches cost whole designs) cannot run past it.
    pub(super) deadline: Option<std::time::Instant>,
    /// Nodes lowered so far, over every candidate and trial.
    pub(super) steps: u64,
    /// The most nodes to lower (a budget counted in work, so that whether it is reached
    /// does not depend on the machine): every `lower` past it fails, as past `deadline`.
    pub(super) max_steps: Option<u64>,
}

/// A shared [`SearchMemo`].
pub(super) type Memo = Rc<RefCell<SearchMemo>>;

/// The lowering state of one candidate.
#[derive(Clone)]
pub(super) struct Lowerer<'p> {
    pub(super) p: &'p Program,
    pub(super) d: Design,
    /// The design's slowdown, for default layouts of values nobody asks for.
    s: u64,
    scopes: Vec<Scope>,
    /// Per program input: its node and forms once known.
    inputs: Vec<Option<(StId, Forms)>>,
    /// The sub-searches already run.
    pub(super) search: Memo,
    /// How many [`Lowerer::lower`] calls are open (see [`MAX_DEPTH`]).
    depth: usize,
}

/// The deepest chain of operators Aetherling's lowering takes. It is the reference's
/// back-to-front recursion, kept as written (the first consumer of a value picks its
/// layout, deep inside each operator's table); one level takes a few hundred bytes of
/// stack, so this bound keeps it well inside a thread's stack. Deeper programs are
/// refused with an error naming the bound; the e-graph scheduler has no such bound.
pub const MAX_DEPTH: usize = 1000;

impl<'p> Lowerer<'p> {
    /// A lowerer; with `fixed`, the inputs are declared up front with those forms.
    pub(super) fn new(
        p: &'p Program,
        s: u64,
        fixed: Option<Vec<Forms>>,
        search: Memo,
    ) -> Result<Self, String> {
        let mut d = Design::new(format!("{}_s{s}", p.name));
        let mut inputs = vec![None; p.inputs.len()];
        if let Some(fixed) = fixed {
            for (k, (decl, forms)) in p.inputs.iter().zip(fixed).enumerate() {
                let layout = build_layout(&decl.ty, &forms);
                let node = d.add_input(decl.name.clone(), layout)?;
                inputs[k] = Some((node, forms));
            }
        }
        Ok(Lowerer {
            p,
            d,
            s,
            scopes: vec![Scope::default()],
            inputs,
            search,
            depth: 0,
        })
    }

    /// The forms each input was first requested in (a default for unused inputs).
    pub(super) fn input_forms(&self) -> Vec<Forms> {
        self.p
            .inputs
            .iter()
            .zip(&self.inputs)
            .map(|(decl, got)| match got {
                Some((_, f)) => f.clone(),
                None => self.default_forms(&decl.ty, self.s),
            })
            .collect()
    }

    /// A fresh state at the top-level scope with an empty design holding only the program
    /// inputs already declared (same forms): what a keyed search's producer lowering reads
    /// of the state (see [`SearchMemo`]), without copying the design built so far.
    pub(super) fn detached(&self) -> Result<Self, String> {
        let mut d = Design::new(self.d.name.clone());
        let mut inputs = vec![None; self.inputs.len()];
        for (k, got) in self.inputs.iter().enumerate() {
            if let Some((_, forms)) = got {
                let decl = &self.p.inputs[k];
                let node = d.add_input(decl.name.clone(), build_layout(&decl.ty, forms))?;
                inputs[k] = Some((node, forms.clone()));
            }
        }
        Ok(Lowerer {
            p: self.p,
            d,
            s: self.s,
            scopes: vec![Scope::default()],
            inputs,
            search: self.search.clone(),
            depth: self.depth,
        })
    }

    /// Whether lowering is inside a function body (not at the program's top level).
    pub(super) fn in_body(&self) -> bool {
        self.scopes.len() > 1
    }

    /// The [`SearchKey`] of a sub-search of producer `x` here, if its result depends on no
    /// more than the key (see [`SearchMemo`]).
    pub(super) fn search_key(
        &self,
        x: SeqId,
        no: u64,
        ni: u64,
        ty: &SeqType,
        forms: &[LayerForm],
    ) -> Option<SearchKey> {
        let [scope] = self.scopes.as_slice() else {
            return None;
        };
        let mut memo = self.search.borrow_mut();
        let (reach, inputs) = memo.cones.entry(x).or_insert_with(|| self.cone(x));
        if reach.iter().any(|id| scope.memo.contains_key(id)) {
            return None;
        }
        let state = inputs
            .iter()
            .map(|k| self.inputs[*k].as_ref().map(|(_, f)| f.clone()))
            .collect();
        Some((x, no, ni, ty.clone(), forms.to_vec(), state))
    }

    /// The nodes `x` reaches through arguments, and the inputs it reaches through
    /// arguments and bodies (sorted).
    fn cone(&self, x: SeqId) -> (Vec<SeqId>, Vec<usize>) {
        let mut reach = Vec::new();
        let mut inputs = Vec::new();
        let mut seen = std::collections::HashSet::new();
        // (node, reached through arguments only)
        let mut stack = vec![(x, true)];
        let mut top = std::collections::HashSet::new();
        while let Some((id, direct)) = stack.pop() {
            let fresh = if direct {
                top.insert(id)
            } else {
                seen.insert(id)
            };
            if !fresh {
                continue;
            }
            if direct {
                reach.push(id);
            }
            let node = self.p.node(id);
            if let Op::Input(k) = node.op {
                inputs.push(k);
            }
            for a in &node.args {
                stack.push((*a, direct));
            }
            for b in node.op.bodies() {
                stack.push((b, false));
            }
        }
        inputs.sort_unstable();
        inputs.dedup();
        (reach, inputs)
    }

    pub(super) fn into_design(self) -> Design {
        self.d
    }

    fn default_forms(&self, t: &SeqType, clocks: u64) -> Forms {
        aetherling_forms(t, clocks)
            .into_iter()
            .next()
            .map(|(f, _)| f)
            .unwrap_or_default()
    }

    /// The layout of node `id` in `forms`.
    pub(super) fn layout(&self, id: SeqId, forms: &[LayerForm]) -> Layout {
        build_layout(self.p.ty(id), forms)
    }

    /// A reshape from `from` to `to` (nothing if they are equal).
    pub(super) fn reshape(&mut self, x: StId, to: Layout) -> Result<StId, String> {
        let from = self.d.layout(x).clone();
        if from == to {
            return Ok(x);
        }
        self.d.add(StOp::Reshape { from, to }, &[x])
    }

    /// Lowers node `id` so that its output has the layout of `forms`.
    pub(super) fn lower(&mut self, id: SeqId, forms: &[LayerForm]) -> Result<StId, String> {
        {
            let mut search = self.search.borrow_mut();
            search.steps += 1;
            if search.max_steps.is_some_and(|m| search.steps > m)
                || search
                    .deadline
                    .is_some_and(|d| std::time::Instant::now() > d)
            {
                return Err("out of budget".into());
            }
        }
        let scope = self.scopes.last().expect("a scope");
        if let Some((st, first)) = scope.memo.get(&id).cloned() {
            if first == forms {
                return Ok(st);
            }
            let to = self.layout(id, forms);
            return self.reshape(st, to);
        }
        if self.depth >= MAX_DEPTH {
            return Err(format!(
                "Aetherling's lowering recurses once per operator, and this program nests \
                 operators more than {MAX_DEPTH} deep (the e-graph scheduler has no such bound)"
            ));
        }
        self.depth += 1;
        let st = self.lower_op(id, forms);
        self.depth -= 1;
        let st = st?;
        // The searches bound a candidate's cost by the reshape from this layout.
        debug_assert_eq!(self.d.layout(st), &self.layout(id, forms), "lowered layout");
        let scope = self.scopes.last_mut().expect("a scope");
        scope.memo.insert(id, (st, forms.to_vec()));
        Ok(st)
    }

    /// A first request reuses `slot` if filled (reshaping if the forms differ), else fills
    /// it with `make`.
    fn first_wins(
        &mut self,
        slot: Option<(StId, Forms)>,
        id: SeqId,
        forms: &[LayerForm],
    ) -> Result<Result<StId, Layout>, String> {
        match slot {
            Some((st, first)) if first == forms => Ok(Ok(st)),
            Some((st, _)) => {
                let to = self.layout(id, forms);
                self.reshape(st, to).map(Ok)
            }
            None => Ok(Err(self.layout(id, forms))),
        }
    }

    fn lower_op(&mut self, id: SeqId, forms: &[LayerForm]) -> Result<StId, String> {
        let node = self.p.node(id).clone();
        let ty = self.p.ty(id).clone();
        let a = &node.args;
        match &node.op {
            Op::Input(k) => match self.first_wins(self.inputs[*k].clone(), id, forms)? {
                Ok(st) => Ok(st),
                Err(layout) => {
                    let name = self.p.inputs[*k].name.clone();
                    let st = self.d.add_input(name, layout)?;
                    self.inputs[*k] = Some((st, forms.to_vec()));
                    Ok(st)
                }
            },
            Op::Arg(i, _) => {
                let i = usize::from(*i);
                let slot = self
                    .scopes
                    .last()
                    .and_then(|s| s.args.get(i).cloned().flatten());
                match self.first_wins(slot, id, forms)? {
                    Ok(st) => Ok(st),
                    Err(layout) => {
                        let st = self.d.add_arg(i as u8, layout)?;
                        let scope = self.scopes.last_mut().expect("a scope");
                        if scope.args.len() <= i {
                            scope.args.resize(i + 1, None);
                        }
                        scope.args[i] = Some((st, forms.to_vec()));
                        Ok(st)
                    }
                }
            }
            Op::Const(v, t) => {
                let layout = build_layout(t, forms);
                let value = relay(v, t, &layout);
                self.d.add(
                    StOp::Const {
                        value,
                        layout,
                        delay: 0,
                    },
                    &[],
                )
            }
            Op::Counter { incr, .. } => {
                let layout = build_layout(&ty, forms);
                self.d.add(
                    StOp::Counter {
                        layout,
                        incr: *incr,
                        delay: 0,
                    },
                    &[],
                )
            }
            Op::Atom(op) => {
                let x = self.lower(a[0], forms)?;
                self.d.add(StOp::Atom(*op), &[x])
            }
            Op::ATuple | Op::STuple | Op::STupleAppend => {
                let x = self.lower(a[0], forms)?;
                let y = self.lower(a[1], forms)?;
                let op = match node.op {
                    Op::ATuple => StOp::ATuple,
                    Op::STuple => StOp::STuple,
                    _ => StOp::STupleAppend,
                };
                self.d.add(op, &[x, y])
            }
            Op::Map { n, body } | Op::Map2 { n, body } => self.map(&ty, forms, a, *body, *n),
            Op::Reduce { n, body } => self.reduce(&ty, forms, a[0], *body, *n),
            Op::Down { n, idx } => self.down(&ty, forms, a[0], *n, *idx),
            Op::Up { n } => self.up(&ty, forms, a[0], *n),
            Op::Shift { n, amount, init } => self.shift(&ty, forms, a[0], *n, *amount, init),
            Op::Partition { no, ni } => self.partition(&ty, forms, a[0], *no, *ni),
            Op::Unpartition { no, ni } => self.unpartition(&ty, forms, a[0], *no, *ni),
            Op::STupleToSeq { n } => self.stuple_to_seq(&ty, forms, a[0], *n),
            Op::SeqToSTuple { n } => self.seq_to_stuple(&ty, forms, a[0], *n),
            other => Err(format!(
                "Aetherling's scheduler has no lowering for `{}`",
                other.name()
            )),
        }
    }

    /// Lowers a function body so that it returns `out_forms`; returns the body and the forms
    /// its parameters were requested in (defaults for parameters it ignores).
    pub(super) fn lower_body(
        &mut self,
        body: SeqId,
        out_forms: &[LayerForm],
        param_types: &[SeqType],
    ) -> Result<(BodyId, Vec<Forms>), String> {
        self.scopes.push(Scope {
            memo: HashMap::new(),
            args: vec![None; param_types.len()],
        });
        let root = self.lower(body, out_forms);
        let scope = self.scopes.pop().expect("pushed above");
        let root = root?;
        let clocks = self.d.layout(root).clocks();
        let mut params = Vec::new();
        let mut forms = Vec::new();
        for (k, t) in param_types.iter().enumerate() {
            let f = match scope.args.get(k).cloned().flatten() {
                Some((_, f)) => f,
                None => self.default_forms(t, clocks),
            };
            params.push(build_layout(t, &f));
            forms.push(f);
        }
        Ok((self.d.add_body(params, root)?, forms))
    }
}
