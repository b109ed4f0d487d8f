//! Measuring stream nodes in a scratch design and adding them to their stream classes.

use super::how::{emit, How};
use super::{addr, Lay, SNode, StreamGraph};
use crate::seq::value::Value;
use crate::st::area::{area, Area};
use crate::st::perm::Perm;
use crate::st::{Design, Layout, StOp};
use std::rc::Rc;

/// `a` without the part `b` of it (each component at least 0).
fn minus(a: Area, b: Area) -> Area {
    Area {
        logic: a.logic.saturating_sub(b.logic),
        ff_bits: a.ff_bits.saturating_sub(b.ff_bits),
        ram_bits: a.ram_bits.saturating_sub(b.ram_bits),
        dsp: a.dsp.saturating_sub(b.dsp),
    }
}

impl StreamGraph<'_> {
    /// Measures a node in a scratch design: own area, body multiplicity, output layout.
    fn measure(
        &mut self,
        how: &Rc<How>,
        kids: &[(usize, Lay)],
        body: Option<&(usize, Rc<Vec<Layout>>, Lay)>,
        konst: Option<&(usize, u64)>,
    ) -> Option<(Area, u64, Lay)> {
        let key = (
            addr(how),
            kids.iter().map(|(_, l)| addr(l)).collect(),
            body.map(|(_, p, r)| (addr(p), addr(r))),
            konst.copied(),
        );
        if let Some(c) = self.caches.costs.get(&key) {
            return c.clone();
        }
        let got = Self::measure_new(how, kids, body, konst, self.bounds.reshape_atoms)
            .ok()
            .map(|(own, mult, out)| (own, mult, self.intern_owned(out)));
        self.caches.costs.insert(key, got.clone());
        got
    }

    /// [`StreamGraph::measure`] of a node not measured before.
    fn measure_new(
        how: &Rc<How>,
        kids: &[(usize, Lay)],
        body: Option<&(usize, Rc<Vec<Layout>>, Lay)>,
        konst: Option<&(usize, u64)>,
        analysis_atoms: u64,
    ) -> Result<(Area, u64, Layout), String> {
        let mut d = Design::new("scratch");
        let mut ids = Vec::new();
        for (k, (_, l)) in kids.iter().enumerate() {
            ids.push(match (konst, &**l) {
                (Some(&(side, c)), Layout::ATuple(a, b)) => {
                    // the operand tuple built from an input and the literal, as the
                    // extracted design builds it, so the area model sees the constant
                    let (lc, lv) = if side == 0 { (a, b) } else { (b, a) };
                    let v = d.add_input(format!("k{k}"), (**lv).clone())?;
                    let c = d.add(
                        StOp::Const {
                            value: Value::Scalar(c),
                            layout: (**lc).clone(),
                            delay: 0,
                        },
                        &[],
                    )?;
                    let pair = if side == 0 { [c, v] } else { [v, c] };
                    d.add(StOp::ATuple, &pair)?
                }
                _ => d.add_input(format!("k{k}"), (**l).clone())?,
            });
        }
        let b = match body {
            // The body is measured as its own class: any constant of its result layout
            // stands in for it here, and the constant's area is taken off below. A
            // don't-care one costs nothing to build, check and hash, where a zero value of a
            // frame-sized result type was a third of a 1920x1080 schedule's time.
            Some((_, params, root)) => Some(d.body_with(params.to_vec(), |d, _| {
                d.add(
                    StOp::Const {
                        value: Value::Undef,
                        layout: (**root).clone(),
                        delay: 0,
                    },
                    &[],
                )
            })?),
            None => None,
        };
        let id = emit(&mut d, how, &ids, b)?;
        let out = d.layout(id).clone();
        if how.is_relabel() {
            return Ok((Area::default(), 0, out));
        }
        d.set_output(id)?;
        // As for reshapes (`add_reshape`): data movement between frame-sized layouts whose
        // periods do not line up (a buffered transpose of a whole 1920x1080 frame) buffers
        // most of the frame, and measuring it walks every atom, twice a node; such nodes
        // are not offered.
        for n in d.top_scope() {
            let op = &d.node(n).op;
            if op.is_data_movement() {
                let atoms =
                    Perm::sources_analysis_atoms_of(op, d.layout(d.node(n).args[0]), d.layout(n));
                if atoms.is_some_and(|a| a > analysis_atoms) {
                    return Err("a movement too large to analyse".into());
                }
            }
        }
        let rep = area(&d);
        if konst.is_some() {
            // the literal and its tuple are the children's; only the operator is this node's
            let of = |op: &str| rep.by_op.get(op).copied().unwrap_or_default().1;
            let own = minus(minus(rep.total, of("const")), of("atuple"));
            return Ok((own, 0, out));
        }
        let (mult, own) = if body.is_some() {
            let (m, placeholder) = rep.by_op.get("const").copied().unwrap_or_default();
            (m, minus(rep.total, placeholder))
        } else {
            (0, rep.total)
        };
        Ok((own, mult, out))
    }

    /// Adds a node to class `idx` if it builds and type-checks.
    pub(super) fn add_node(
        &mut self,
        idx: usize,
        how: How,
        kids: Vec<(usize, Layout)>,
        body: Option<(usize, Vec<Layout>, Layout)>,
    ) {
        self.add_priced_node(idx, how, kids, body, None);
    }

    /// [`StreamGraph::add_node`] for an atom operator whose operand tuple has the literal
    /// `konst` (side, value) on one side: measured with it, as the finished design is.
    pub(super) fn add_priced_node(
        &mut self,
        idx: usize,
        how: How,
        kids: Vec<(usize, Layout)>,
        body: Option<(usize, Vec<Layout>, Layout)>,
        konst: Option<(usize, u64)>,
    ) {
        let kids: Vec<(usize, Lay)> = kids
            .into_iter()
            .map(|(k, l)| (k, self.intern_owned(l)))
            .collect();
        let body = body.map(|(b, p, r)| (b, self.intern_params(p), self.intern_owned(r)));
        let how = self.intern_how(how);
        let measured = match &*how {
            How::Input(_) => Some((Area::default(), 0, self.classes[idx].views[0].clone())),
            How::Arg(_, l) => Some((Area::default(), 0, self.intern(l))),
            _ => self.measure(&how, &kids, body.as_ref(), konst.as_ref()),
        };
        let Some((own, mult, out)) = measured else {
            return;
        };
        // interned: equal normal forms are one allocation
        if !Rc::ptr_eq(&self.norm(&out), &self.classes[idx].key.norm) {
            return;
        }
        let node = SNode {
            how,
            kids,
            body,
            own,
            mult,
            out,
            src: self.lowering.clone(),
        };
        let nodes = &mut self.classes[idx].nodes;
        let same_body =
            |a: &Option<(usize, Rc<Vec<Layout>>, Lay)>,
             b: &Option<(usize, Rc<Vec<Layout>>, Lay)>| match (a, b) {
                (None, None) => true,
                (Some((ka, pa, ra)), Some((kb, pb, rb))) => {
                    ka == kb && Rc::ptr_eq(pa, pb) && Rc::ptr_eq(ra, rb)
                }
                _ => false,
            };
        if nodes.iter().any(|n| {
            Rc::ptr_eq(&n.how, &node.how)
                && n.kids.len() == node.kids.len()
                && n.kids
                    .iter()
                    .zip(&node.kids)
                    .all(|((a, la), (b, lb))| a == b && Rc::ptr_eq(la, lb))
                && same_body(&n.body, &node.body)
        }) {
            return;
        }
        nodes.push(node);
        self.nodes += 1;
    }
}
