//! The per-operator lowering of maps, reductions, up/down sampling and shifts for each
//! layer form (reference §4.5.2–§4.5.6).

use super::super::lowering::{nested_map, shift_op, wraps};
use super::super::slowdown::{build_layout, divisors, LayerForm};
use super::lower::{Forms, Lowerer};
use crate::seq::types::SeqType;
use crate::seq::value::Value;
use crate::seq::NodeId as SeqId;
use crate::st::{Layout, NodeId as StId, StOp};

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
    /// layer has form `r`, and whether a reshape must drop an `sseq 1` afterwards
    /// (reference §4.5.5).
    pub(super) fn shrink_input(r: &LayerForm, n: u64) -> Result<(LayerForm, bool), String> {
        let largest = |limit: u64| {
            divisors(n)
                .into_iter()
                .filter(|d| *d <= limit)
                .max()
                .unwrap_or(1)
        };
        match r {
            LayerForm::Space => Ok((LayerForm::Space, false)),
            LayerForm::Time { i: d } if d + 1 >= n => Ok((LayerForm::Time { i: d + 1 - n }, false)),
            LayerForm::Time { i: d } => {
                let no = largest(d + 1);
                Ok((
                    LayerForm::TimeSpace {
                        no,
                        io: d + 1 - no,
                        ni: n / no,
                    },
                    true,
                ))
            }
            LayerForm::TimeSpace {
                no: 1,
                io: d,
                ni: 1,
            } => {
                let no = if d + 1 >= n { n } else { largest(d + 1) };
                Ok((
                    LayerForm::TimeSpace {
                        no,
                        io: d + 1 - no,
                        ni: n / no,
                    },
                    false,
                ))
            }
            LayerForm::Nested(levels)
                if levels.len() == 2 && levels[0].0 == 1 && levels[1].0 == 1 =>
            {
                let (d0, d1) = (levels[0].1, levels[1].1);
                let no = divisors(n)
                    .into_iter()
                    .filter(|no| *no <= d0 + 1 && n / no <= d1 + 1)
                    .max()
                    .ok_or_else(|| format!("no split of {n} fits (tseq 1 {d0} (tseq 1 {d1} _))"))?;
                let ni = n / no;
                Ok((
                    LayerForm::Nested(vec![(no, d0 + 1 - no), (ni, d1 + 1 - ni)]),
                    false,
                ))
            }
            other => Err(format!(
                "no input layout for a length-1 output laid out as {other:?}"
            )),
        }
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
        let (u, drop_sseq1) = Self::shrink_input(r, n)?;
        let mut in_forms = vec![u.clone()];
        in_forms.extend(rest.iter().cloned());
        let xs = self.lower(x, &in_forms)?;
        let out = match u {
            LayerForm::Space => self.d.add(StOp::ReduceS { n, body: b }, &[xs])?,
            LayerForm::Time { i } => self.d.add(StOp::ReduceT { n, i, body: b }, &[xs])?,
            LayerForm::TimeSpace { no, io, ni } => {
                let inner = self
                    .d
                    .body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                        d.add(StOp::ReduceS { n: ni, body: b }, a)
                    })?;
                let partial = self.d.add(
                    StOp::MapT {
                        n: no,
                        i: io,
                        body: inner,
                    },
                    &[xs],
                )?;
                let combine = self
                    .d
                    .body_with(vec![Layout::sseq(1, le.zipped_pair())], |d, a| {
                        d.add(StOp::MapS { n: 1, body: b }, a)
                    })?;
                self.d.add(
                    StOp::ReduceT {
                        n: no,
                        i: io,
                        body: combine,
                    },
                    &[partial],
                )?
            }
            LayerForm::Nested(ref levels) => {
                let ((no, io), (ni, ii)) = (levels[0], levels[1]);
                let inner = self
                    .d
                    .body_with(vec![Layout::tseq(ni, ii, le.clone())], |d, a| {
                        d.add(
                            StOp::ReduceT {
                                n: ni,
                                i: ii,
                                body: b,
                            },
                            a,
                        )
                    })?;
                let partial = self.d.add(
                    StOp::MapT {
                        n: no,
                        i: io,
                        body: inner,
                    },
                    &[xs],
                )?;
                let k = ni + ii - 1;
                let combine =
                    self.d
                        .body_with(vec![Layout::tseq(1, k, le.zipped_pair())], |d, a| {
                            d.add(
                                StOp::MapT {
                                    n: 1,
                                    i: k,
                                    body: b,
                                },
                                a,
                            )
                        })?;
                self.d.add(
                    StOp::ReduceT {
                        n: no,
                        i: io,
                        body: combine,
                    },
                    &[partial],
                )?
            }
            other => return Err(format!("reduce: unsupported input layout {other:?}")),
        };
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
        let (u, drop_sseq1) = Self::shrink_input(r, n)?;
        let mut in_forms = vec![u.clone()];
        in_forms.extend(rest.iter().cloned());
        let xs = self.lower(x, &in_forms)?;
        let out = match u {
            LayerForm::Space => self.d.add(StOp::DownS { n, idx, elem: le }, &[xs])?,
            LayerForm::Time { i } => self.d.add(
                StOp::DownT {
                    n,
                    i,
                    idx,
                    elem: le,
                },
                &[xs],
            )?,
            LayerForm::TimeSpace { no, io, ni } => {
                let outer = StOp::DownT {
                    n: no,
                    i: io,
                    idx: idx / ni,
                    elem: Layout::sseq(ni, le.clone()),
                };
                let picked = self.d.add(outer, &[xs])?;
                let inner = self
                    .d
                    .body_with(vec![Layout::sseq(ni, le.clone())], |d, a| {
                        d.add(
                            StOp::DownS {
                                n: ni,
                                idx: idx % ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                self.d.add(
                    StOp::MapT {
                        n: 1,
                        i: no + io - 1,
                        body: inner,
                    },
                    &[picked],
                )?
            }
            LayerForm::Nested(ref levels) => {
                let ((no, io), (ni, ii)) = (levels[0], levels[1]);
                let outer = StOp::DownT {
                    n: no,
                    i: io,
                    idx: idx / ni,
                    elem: Layout::tseq(ni, ii, le.clone()),
                };
                let picked = self.d.add(outer, &[xs])?;
                let inner = self
                    .d
                    .body_with(vec![Layout::tseq(ni, ii, le.clone())], |d, a| {
                        d.add(
                            StOp::DownT {
                                n: ni,
                                i: ii,
                                idx: idx % ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                self.d.add(
                    StOp::MapT {
                        n: 1,
                        i: no + io - 1,
                        body: inner,
                    },
                    &[picked],
                )?
            }
            other => return Err(format!("down_1d: unsupported input layout {other:?}")),
        };
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
                let rep = self.d.add(
                    StOp::UpT {
                        n: no,
                        i: io,
                        elem: Layout::sseq(1, le.clone()),
                    },
                    &[xs],
                )?;
                let inner = self
                    .d
                    .body_with(vec![Layout::sseq(1, le.clone())], |d, a| {
                        d.add(
                            StOp::UpS {
                                n: ni,
                                elem: le.clone(),
                            },
                            a,
                        )
                    })?;
                self.d.add(
                    StOp::MapT {
                        n: no,
                        i: io,
                        body: inner,
                    },
                    &[rep],
                )
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
