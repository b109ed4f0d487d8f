//! Lowering of `map` and `map2`: one (nested) map node per layer form of the output and
//! per combination of body parameter layouts.

use super::how::{wraps, How};
use super::layout::split_top;
use super::StreamGraph;
use crate::seq::types::SeqType;
use crate::st::Layout;
use egg::Id;

impl StreamGraph<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_map(
        &mut self,
        idx: usize,
        ctx: usize,
        ty: &SeqType,
        l: &Layout,
        n: Id,
        f: Id,
        xs: &[Id],
    ) {
        let Some(n) = self.num(n) else { return };
        let Some((_, e)) = ty.as_seq() else { return };
        let e = e.clone();
        let mut elem_types = Vec::new();
        for x in xs {
            match self.value_type(*x).as_ref().and_then(|t| t.as_seq()) {
                Some((_, et)) => elem_types.push(et.clone()),
                None => return,
            }
        }
        for (form, le) in split_top(l, n, &e) {
            let ws = wraps(&form, n);
            let c = le.clocks();
            let options: Vec<std::rc::Rc<Vec<Layout>>> =
                elem_types.iter().map(|t| self.cands(t, c)).collect();
            let mut combos: Vec<Vec<Layout>> = vec![Vec::new()];
            for opts in &options {
                combos = combos
                    .iter()
                    .flat_map(|p| {
                        opts.iter().map(move |o| {
                            let mut v = p.clone();
                            v.push(o.clone());
                            v
                        })
                    })
                    .collect();
            }
            combos.truncate(self.bounds.param_combos);
            for params in combos {
                let bctx = self.ctxs.insert_full(Some(params.clone())).0;
                let Some(kb) = self.request(bctx, f, &le) else {
                    continue;
                };
                let mut kids = Vec::new();
                for (x, p) in xs.iter().zip(&params) {
                    let lx = form.apply(n, p.clone());
                    match self.request(ctx, *x, &lx) {
                        Some(k) => kids.push((k, lx)),
                        None => break,
                    }
                }
                if kids.len() != xs.len() {
                    continue;
                }
                let how = How::Map {
                    ws: ws.clone(),
                    params: params.clone(),
                };
                self.add_node(idx, how, kids, Some((kb, params, le.clone())));
            }
        }
    }
}
