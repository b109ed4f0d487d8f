//! Measuring stream nodes in a scratch design and adding them to their stream classes.

use super::how::{emit, How};
use super::{SNode, StreamGraph};
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::st::area::{area, Area};
use crate::st::{Design, Layout, StOp};

fn zero_value(t: &SeqType) -> Value {
    match t {
        SeqType::Scalar(_) => Value::Scalar(0),
        SeqType::ATuple(a, b) => Value::pair(zero_value(a), zero_value(b)),
        SeqType::STuple(n, e) | SeqType::Seq(n, e) => {
            Value::List((0..*n).map(|_| zero_value(e)).collect())
        }
    }
}

impl StreamGraph<'_> {
    /// Measures a node in a scratch design: own area, body multiplicity, output layout.
    fn measure(
        &mut self,
        how: &How,
        kids: &[Layout],
        body: Option<(&[Layout], &Layout)>,
    ) -> Option<(Area, u64, Layout)> {
        let key = (
            how.clone(),
            kids.to_vec(),
            body.map(|(p, r)| (p.to_vec(), r.clone())),
        );
        if let Some(c) = self.costs.get(&key) {
            return c.clone();
        }
        let got = (|| -> Result<(Area, u64, Layout), String> {
            let mut d = Design::new("scratch");
            let mut ids = Vec::new();
            for (k, l) in kids.iter().enumerate() {
                ids.push(d.add_input(format!("k{k}"), l.clone())?);
            }
            let b = match body {
                Some((params, root)) => Some(d.body_with(params.to_vec(), |d, _| {
                    d.add(
                        StOp::Const {
                            value: zero_value(&root.to_seq()),
                            layout: root.clone(),
                            delay: 0,
                        },
                        &[],
                    )
                })?),
                None => None,
            };
            let id = emit(&mut d, how, &ids, b)?;
            let out = d.layout(id).clone();
            if matches!(how, How::Relabel) {
                return Ok((Area::default(), 0, out));
            }
            d.set_output(id)?;
            let rep = area(&d);
            let (mult, own) = if body.is_some() {
                let (m, placeholder) = rep.by_op.get("const").copied().unwrap_or_default();
                let t = rep.total;
                let own = Area {
                    logic: t.logic.saturating_sub(placeholder.logic),
                    ff_bits: t.ff_bits.saturating_sub(placeholder.ff_bits),
                    ram_bits: t.ram_bits.saturating_sub(placeholder.ram_bits),
                    dsp: t.dsp.saturating_sub(placeholder.dsp),
                };
                (m, own)
            } else {
                (0, rep.total)
            };
            Ok((own, mult, out))
        })()
        .ok();
        self.costs.insert(key, got.clone());
        got
    }

    /// Adds a node to class `idx` if it builds and type-checks.
    pub(super) fn add_node(
        &mut self,
        idx: usize,
        how: How,
        kids: Vec<(usize, Layout)>,
        body: Option<(usize, Vec<Layout>, Layout)>,
    ) {
        let kid_layouts: Vec<Layout> = kids.iter().map(|(_, l)| l.clone()).collect();
        let measured = match &how {
            How::Input(_) => Some((Area::default(), 0, self.classes[idx].views[0].clone())),
            How::Arg(_, l) => Some((Area::default(), 0, l.clone())),
            _ => self.measure(
                &how,
                &kid_layouts,
                body.as_ref().map(|(_, p, r)| (p.as_slice(), r)),
            ),
        };
        let Some((own, mult, out)) = measured else {
            return;
        };
        if out.normalize() != self.classes[idx].key.norm {
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
        if nodes
            .iter()
            .any(|n| n.how == node.how && n.kids == node.kids && n.body == node.body)
        {
            return;
        }
        nodes.push(node);
        self.nodes += 1;
    }
}
