//! The per-operator lowering of maps, reductions, up/down sampling and shifts for each
//! layer form (reference §4.5.2–§4.5.6).

use super::super::lowering::{
    down_in, nested_map, reduce_in, shift_op, shrink_input, up_split, wraps,
};
use super::super::slowdown::{build_layout, LayerForm};
use super::lower::{Forms, Lowerer};
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::seq::NodeId as SeqId;
use crate::st::{NodeId as StId, StOp};

impl Lowerer<'_> {
    pub(super) fn map(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        inputs: &[SeqId],
        body: SeqId,
        n: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("map: missing layout")?;
        let elem_types: Vec<SeqType> = inputs
            .iter()
            .map(|x| {
                self.p
                    .ty(*x)
                    .as_seq()
                    .map(|(_, e)| e.clone())
                    .ok_or("map: not a sequence")
            })
            .collect::<Result<_, _>>()?;
        debug_assert!(ty.as_seq().is_some());
        let (b, param_forms) = self.lower_body(body, rest, &elem_types)?;
        let mut producers = Vec::new();
        let mut params = Vec::new();
        for (k, x) in inputs.iter().enumerate() {
            let mut f = vec![r.clone()];
            f.extend(param_forms[k].iter().cloned());
            producers.push(self.lower(*x, &f)?);
            params.push(build_layout(&elem_types[k], &param_forms[k]));
        }
        nested_map(&mut self.d, &wraps(r, n), b, &params, &producers)
    }

    /// The input layer form of a `reduce`/`down_1d` over `n` elements whose length-1 output
    /// layer has form `r` ([`shrink_input`]), and whether a reshape must drop an `sseq 1`
    /// afterwards: a sequential output `tseq 1 d` too short for the `n` elements is fed by a
    /// split input, whose result carries an `sseq 1` layer (reference §4.5.5).
    pub(super) fn shrink(r: &LayerForm, n: u64) -> Result<(LayerForm, bool), String> {
        let u = shrink_input(r, n)
            .ok_or_else(|| format!("no input layout for a length-1 output laid out as {r:?}"))?;
        let drop_sseq1 = matches!(r, LayerForm::Time { i: d } if d + 1 < n);
        Ok((u, drop_sseq1))
    }

    pub(super) fn reduce(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        body: SeqId,
        n: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("reduce: missing layout")?;
        let elem_ty = ty.as_seq().ok_or("reduce: not a sequence")?.1.clone();
        let le = build_layout(&elem_ty, rest);
        let (b, _) = self.lower_body(body, rest, &[elem_ty.zipped_pair()])?;
        let (u, drop_sseq1) = Self::shrink(r, n)?;
        let mut in_forms = vec![u.clone()];
        in_forms.extend(rest.iter().cloned());
        let xs = self.lower(x, &in_forms)?;
        let out = reduce_in(&mut self.d, n, &u, &le, b, &[xs])?;
        if drop_sseq1 {
            return self.reshape(out, build_layout(ty, forms));
        }
        Ok(out)
    }

    pub(super) fn down(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        n: u64,
        idx: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("down_1d: missing layout")?;
        let le = build_layout(ty.as_seq().ok_or("down_1d: not a sequence")?.1, rest);
        let (u, drop_sseq1) = Self::shrink(r, n)?;
        let mut in_forms = vec![u.clone()];
        in_forms.extend(rest.iter().cloned());
        let xs = self.lower(x, &in_forms)?;
        let out = down_in(&mut self.d, n, idx, &u, &le, &[xs])?;
        if drop_sseq1 {
            return self.reshape(out, build_layout(ty, forms));
        }
        Ok(out)
    }

    pub(super) fn up(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        n: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("up_1d: missing layout")?;
        let le = build_layout(ty.as_seq().ok_or("up_1d: not a sequence")?.1, rest);
        let with = |f: LayerForm| -> Forms {
            let mut v = vec![f];
            v.extend(rest.iter().cloned());
            v
        };
        match *r {
            LayerForm::Space => {
                let xs = self.lower(x, &with(LayerForm::Space))?;
                self.d.add(StOp::UpS { n, elem: le }, &[xs])
            }
            LayerForm::Time { i } => {
                let xs = self.lower(x, &with(LayerForm::Time { i: n + i - 1 }))?;
                self.d.add(StOp::UpT { n, i, elem: le }, &[xs])
            }
            LayerForm::TimeSpace { no, io, ni } => {
                let xs = self.lower(
                    x,
                    &with(LayerForm::TimeSpace {
                        no: 1,
                        io: no + io - 1,
                        ni: 1,
                    }),
                )?;
                up_split(&mut self.d, (no, io, ni), &le, &[xs])
            }
            _ => Err("up_1d has no lowering under nested time layouts in Aetherling".into()),
        }
    }

    pub(super) fn shift(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        n: u64,
        amount: u64,
        init: &Option<Value>,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("shift: missing layout")?;
        let le = build_layout(ty.as_seq().ok_or("shift: not a sequence")?.1, rest);
        let xs = self.lower(x, forms)?;
        let init = init.clone();
        let op = shift_op(r, n, amount, le, init)?;
        self.d.add(op, &[xs])
    }
}
