//! Lowering of the operators that have lowering rules (`rules/lower/`: every operator
//! but the leaves): one stream node per matching rule instance and, for a map, per
//! combination of candidate body parameter layouts, and for a relabel, per layout of its
//! producer with the same wires.

use super::how::How;
use super::{layout, StreamGraph};
use crate::egraph::analysis::Sort;
use crate::egraph::lang::SeqLang;
use crate::schedule::lower::{self, Env, Instance, Need, Role, SeqArgs, SeqHead};
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::st::Layout;
use egg::Id;

impl StreamGraph<'_> {
    /// Lowers `enode` (one of the operators with lowering rules) to the view `l`.
    pub(super) fn lower_by_rules(
        &mut self,
        idx: usize,
        ctx: usize,
        ty: &SeqType,
        l: &Layout,
        enode: &SeqLang,
    ) {
        let (head, children): (SeqHead, &[Id]) = match enode {
            SeqLang::Map(c) => (SeqHead::Map, c),
            SeqLang::Map2(c) => (SeqHead::Map2, c),
            SeqLang::Reduce(c) => (SeqHead::Reduce, c),
            SeqLang::Down(c) => (SeqHead::Down, c),
            SeqLang::Up(c) => (SeqHead::Up, c),
            SeqLang::Shift(c) => (SeqHead::Shift, c),
            SeqLang::Transpose(c) => (SeqHead::Transpose, c),
            SeqLang::Partition(c) => (SeqHead::Partition, c),
            SeqLang::Unpartition(c) => (SeqHead::Unpartition, c),
            SeqLang::STupleToSeq(c) => (SeqHead::STupleToSeq, c),
            SeqLang::SeqToSTuple(c) => (SeqHead::SeqToSTuple, c),
            _ => return,
        };
        let elem = if head.whole_layout() {
            ty
        } else {
            let Some((_, elem)) = ty.as_seq() else { return };
            elem
        };
        let (mut nums, mut init, mut body, mut inputs) = (Vec::new(), None, None, Vec::new());
        for (role, c) in head.roles().iter().zip(children) {
            match role {
                Role::Num => match self.num(*c) {
                    Some(n) => nums.push(n),
                    None => return,
                },
                Role::Init => {
                    init = match &self.eg[*c].data.sort {
                        Sort::Lit(Value::Undef) => None,
                        Sort::Lit(v) => Some(v.clone()),
                        _ => return,
                    }
                }
                Role::Body => body = Some(*c),
                Role::Input => inputs.push(*c),
            }
        }
        let args = SeqArgs {
            nums,
            init,
            elem: elem.clone(),
        };
        for (ri, rule) in lower::rules().for_head(head) {
            let Some(env) = rule.match_out(&args, l) else {
                continue;
            };
            if let Some((w, lv)) = rule.same_wires {
                self.relabel(idx, ctx, &env, (w, lv), inputs[0], ri);
                continue;
            }
            let Some(envs) = self.choose(rule, env, &inputs) else {
                continue;
            };
            for env in envs {
                let Some(inst) = Instance::new(ri, env) else {
                    continue;
                };
                let Ok(needs) = inst.need_layouts() else {
                    continue;
                };
                let mut kids = Vec::new();
                let mut body_node = None;
                let complete = needs.into_iter().all(|(need, mut ls)| match need {
                    Need::In { input, .. } => {
                        let lx = ls.remove(0);
                        self.request(ctx, inputs[*input], &lx)
                            .map(|k| kids.push((k, lx)))
                            .is_some()
                    }
                    Need::Body { .. } => {
                        let (Some(f), Some(out)) = (body, ls.pop()) else {
                            return false;
                        };
                        let bctx = self.body_context(&ls);
                        self.request(bctx, f, &out)
                            .map(|kb| body_node = Some((kb, ls, out)))
                            .is_some()
                    }
                });
                if complete {
                    self.add_node(idx, How::Lower(inst), kids, body_node);
                }
            }
        }
    }

    /// Adds the instances of a relabel rule (`(in ?x (same-wires ?l))`): one per layout
    /// of the producer `x` with the wires of the output view; if none is known, reshapes
    /// of `x` into the output view from its simplest candidate layouts.
    fn relabel(
        &mut self,
        idx: usize,
        ctx: usize,
        env: &Env,
        vars: (usize, usize),
        x: Id,
        ri: usize,
    ) {
        let Some(lower::Bound::Lay(l)) = env.get(vars.1).cloned() else {
            return;
        };
        let same = self.same_wires(ctx, x, &l);
        if same.is_empty() {
            if let Some(xt) = self.value_type(x) {
                for from in self.reshape_sources(&xt, l.clocks()) {
                    self.add_reshape(idx, ctx, x, &from, &l);
                }
            }
        }
        for lx in same {
            let mut e = env.clone();
            e.set(vars.0, lower::Bound::Lay(lx.clone()));
            let Some(inst) = Instance::new(ri, e) else {
                continue;
            };
            if let Some(kx) = self.request(ctx, x, &lx) {
                self.add_node(idx, How::Lower(inst), vec![(kx, lx)], None);
            }
        }
    }

    /// Binds the rule's choice variables (body parameter layouts not fixed by the output):
    /// every combination of the candidate layouts of each input's element type with the
    /// body result's clock count, first input outermost, at most `param_combos`.
    fn choose(&mut self, rule: &lower::LowerRule, env: Env, inputs: &[Id]) -> Option<Vec<Env>> {
        if rule.choices.is_empty() {
            return Some(vec![env]);
        }
        let result = rule.needs.iter().find_map(|n| match n {
            Need::Body { out, .. } => out.build(&env).ok(),
            Need::In { .. } => None,
        })?;
        let clocks = result.clocks();
        let result_norm = result.normalize();
        let mut opts = Vec::new();
        let mut streaming = Vec::new();
        let mut following = Vec::new();
        let mut same_wires = Vec::new();
        for (_, k) in &rule.choices {
            let t = self.value_type(*inputs.get(*k)?)?;
            let (_, et) = t.as_seq()?;
            opts.push(self.cands(et, clocks));
            streaming.push(self.caches.streaming(et, clocks));
            following.push(layout::following(et, &result));
            same_wires.push(super::fit(&result_norm, et));
        }
        // The first `param_combos` of the product, last choice fastest (an odometer), so
        // the long product of a map2 is never built.
        let mut combos = Vec::new();
        if opts.iter().any(|o| o.is_empty()) {
            return Some(combos);
        }
        let mut at = vec![0; opts.len()];
        let mut chosen: Vec<Vec<Layout>> = Vec::new();
        'odometer: while chosen.len() < self.bounds.param_combos {
            chosen.push(opts.iter().zip(&at).map(|(o, k)| o[*k].clone()).collect());
            let mut d = at.len();
            loop {
                if d == 0 {
                    break 'odometer;
                }
                d -= 1;
                at[d] += 1;
                if at[d] < opts[d].len() {
                    break;
                }
                at[d] = 0;
            }
        }
        // Every input in its streaming layout too (Aetherling's choice for a map body), so
        // the baseline's body stays in the search space however the candidates rank.
        // And every input following the result's time layers (Aetherling lowers a body back
        // to front: a `map 32` whose result is `(tseq 32 4 _)` reads `(tseq 32 4 _)`), and
        // every input with the wires of the body's result where its element type fits them
        // (what Aetherling propagates back through an elementwise or relabelling body, a
        // `(tseq 2 2 (sseq 4))` element under an outer `sseq`; issue 16's random programs).
        for ls in [streaming, following, same_wires] {
            if let Some(ls) = ls.into_iter().collect::<Option<Vec<Layout>>>() {
                if !chosen.contains(&ls) {
                    chosen.push(ls);
                }
            }
        }
        for ls in chosen {
            let mut e = env.clone();
            for ((var, _), l) in rule.choices.iter().zip(ls) {
                e.set(*var, lower::Bound::Lay(l));
            }
            combos.push(e);
        }
        Some(combos)
    }
}
