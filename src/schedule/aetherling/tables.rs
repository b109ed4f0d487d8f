//! Aetherling's lowering tables for the structure-changing operators: Partition
//! (reference §4.5.7, sixteen cases tried in order), Unpartition (§4.5.8) and the seq-tuple
//! conversions (§4.5.9–§4.5.10). Where no direct operator exists they emit a `reshape`.

use super::super::slowdown::{build_layout, LayerForm};
use super::lower::{Forms, Lowerer};
use crate::seq::types::SeqType;
use crate::seq::NodeId as SeqId;
use crate::st::{Layout, NodeId as StId, StOp};
use LayerForm::{Nested, Space, Time, TimeSpace};

/// What a table row emits after lowering the producer.
enum Emit {
    /// Nothing: the producer already has the output layout.
    Same,
    /// A reshape to the output layout.
    Reshape,
    /// `partition_s_ss a b`.
    PartitionSS(u64, u64),
    /// `map_t a ia (partition_s_ss b c)`.
    MapPartitionSS(u64, u64, u64, u64),
    /// `partition_t_tt a b ia ib` over the element layout given.
    PartitionTT(u64, u64, u64, u64, Layout),
    /// `unpartition_s_ss no ni`.
    UnpartitionSS(u64, u64),
    /// `serialize n i`.
    Serialize(u64, u64),
}

/// `front` followed by `rest`.
pub(super) fn join(front: Vec<LayerForm>, rest: &[LayerForm]) -> Forms {
    let mut v = front;
    v.extend(rest.iter().cloned());
    v
}

impl Lowerer<'_> {
    /// Emits `what` after lowering `x` in `in_forms`, ending in the layout of `out_forms`.
    fn emit(
        &mut self,
        ty: &SeqType,
        out_forms: &[LayerForm],
        x: SeqId,
        in_forms: &[LayerForm],
        what: Emit,
        elem: &Layout,
    ) -> Result<StId, String> {
        let xs = self.lower(x, in_forms)?;
        let out = build_layout(ty, out_forms);
        match what {
            Emit::Same | Emit::Reshape => self.reshape(xs, out),
            Emit::PartitionSS(no, ni) => self.d.add(
                StOp::PartitionSS {
                    no,
                    ni,
                    elem: elem.clone(),
                },
                &[xs],
            ),
            Emit::MapPartitionSS(a, ia, b, c) => {
                let inner =
                    self.d
                        .body_with(vec![Layout::sseq(b * c, elem.clone())], |d, args| {
                            d.add(
                                StOp::PartitionSS {
                                    no: b,
                                    ni: c,
                                    elem: elem.clone(),
                                },
                                args,
                            )
                        })?;
                self.d.add(
                    StOp::MapT {
                        n: a,
                        i: ia,
                        body: inner,
                    },
                    &[xs],
                )
            }
            Emit::PartitionTT(no, ni, io, ii, e) => self.d.add(
                StOp::PartitionTT {
                    no,
                    ni,
                    io,
                    ii,
                    elem: e,
                },
                &[xs],
            ),
            Emit::UnpartitionSS(no, ni) => self.d.add(
                StOp::UnpartitionSS {
                    no,
                    ni,
                    elem: elem.clone(),
                },
                &[xs],
            ),
            Emit::Serialize(n, i) => self.d.add(
                StOp::Serialize {
                    n,
                    i,
                    elem: elem.clone(),
                },
                &[xs],
            ),
        }
    }

    /// `partition no ni`: output forms `R0 : R1 : rest`.
    pub(super) fn partition(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        no: u64,
        ni: u64,
    ) -> Result<StId, String> {
        let [r0, r1, rest @ ..] = forms else {
            return Err("partition: missing layout".into());
        };
        let t = self
            .p
            .ty(x)
            .as_seq()
            .ok_or("partition: not a sequence")?
            .1
            .clone();
        let le = build_layout(&t, rest);
        let inv = |a: u64, b: u64, ia: u64, ib: u64| a * ib + ia * (b + ib);
        let (u, what) = match (r0, r1) {
            (Space, Time { i: ib }) if no == 1 => (
                TimeSpace {
                    no: ni,
                    io: *ib,
                    ni: 1,
                },
                Emit::Reshape,
            ),
            (
                TimeSpace {
                    no: a,
                    io: ia,
                    ni: 1,
                },
                Time { i: ib },
            ) => (Nested(vec![(*a, *ia), (ni, *ib)]), Emit::Reshape),
            (Space, Space) => (Space, Emit::PartitionSS(no, ni)),
            (Space, Time { i: ib }) => (
                TimeSpace {
                    no: ni,
                    io: *ib,
                    ni: no,
                },
                Emit::Reshape,
            ),
            (
                Space,
                TimeSpace {
                    no: b,
                    io: ib,
                    ni: c,
                },
            ) => (
                TimeSpace {
                    no: *b,
                    io: *ib,
                    ni: no * c,
                },
                Emit::Reshape,
            ),
            (Time { i: ia }, Space) => (TimeSpace { no, io: *ia, ni }, Emit::Same),
            (Time { i: ia }, Time { i: ib }) => (Nested(vec![(no, *ia), (ni, *ib)]), Emit::Same),
            (
                Time { i: ia },
                TimeSpace {
                    no: b,
                    io: ib,
                    ni: c,
                },
            ) => (
                TimeSpace {
                    no: no * b,
                    io: inv(no, *b, *ia, *ib),
                    ni: *c,
                },
                Emit::PartitionTT(no, *b, *ia, *ib, Layout::sseq(*c, le.clone())),
            ),
            (
                TimeSpace {
                    no: a,
                    io: ia,
                    ni: b,
                },
                Space,
            ) => (
                TimeSpace {
                    no: *a,
                    io: *ia,
                    ni: b * ni,
                },
                Emit::MapPartitionSS(*a, *ia, *b, ni),
            ),
            (
                TimeSpace {
                    no: a,
                    io: ia,
                    ni: b,
                },
                Time { i: ic },
            ) => (
                TimeSpace {
                    no: a * ni,
                    io: inv(*a, ni, *ia, *ic),
                    ni: *b,
                },
                Emit::Reshape,
            ),
            (
                TimeSpace {
                    no: a,
                    io: ia,
                    ni: b,
                },
                TimeSpace {
                    no: c,
                    io: ic,
                    ni: d,
                },
            ) => (
                TimeSpace {
                    no: a * c,
                    io: inv(*a, *c, *ia, *ic),
                    ni: b * d,
                },
                Emit::Reshape,
            ),
            (Nested(l), Space) if l.len() == 2 => {
                let ((a, ia), (b, ib)) = (l[0], l[1]);
                (
                    TimeSpace {
                        no: a * b,
                        io: inv(a, b, ia, ib),
                        ni,
                    },
                    Emit::PartitionTT(a, b, ia, ib, Layout::sseq(ni, le.clone())),
                )
            }
            (Nested(l), Time { i: ic }) if l.len() == 2 && l[1].1 == 0 => {
                let ((a, ia), (b, _)) = (l[0], l[1]);
                (
                    Nested(vec![(a * b, ia * b), (ni, *ic)]),
                    Emit::PartitionTT(a, b, ia, 0, Layout::tseq(ni, *ic, le.clone())),
                )
            }
            (Nested(l), Time { i: ic }) if l.len() == 2 => {
                (Nested(vec![l[0], l[1], (ni, *ic)]), Emit::Same)
            }
            (Time { i: ia }, Nested(l)) if l.len() == 2 && l[0].1 == 0 => {
                let ((b, _), (c, ic)) = (l[0], l[1]);
                (
                    Nested(vec![(no * b, ia * b), (c, ic)]),
                    Emit::PartitionTT(no, b, *ia, 0, Layout::tseq(c, ic, le.clone())),
                )
            }
            (Time { i: ia }, Nested(l)) if l.len() == 2 => {
                (Nested(vec![(no, *ia), l[0], l[1]]), Emit::Same)
            }
            _ => {
                return Err(format!(
                    "partition {no} {ni}: no lowering to {r0:?} / {r1:?}"
                ))
            }
        };
        self.emit(ty, forms, x, &join(vec![u], rest), what, &le)
    }

    /// `unpartition no ni`: output forms `R : rest`.
    pub(super) fn unpartition(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        no: u64,
        ni: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("unpartition: missing layout")?;
        let t = ty.as_seq().ok_or("unpartition: not a sequence")?.1.clone();
        let le = build_layout(&t, rest);
        let direct = match r {
            Time { i: 0 } if ni == 1 => Some((vec![Time { i: 0 }, Time { i: 0 }], Emit::Reshape)),
            Space => Some((vec![Space, Space], Emit::UnpartitionSS(no, ni))),
            TimeSpace {
                no: a,
                io: ia,
                ni: b,
            } if *a == no && *b == ni => Some((vec![Time { i: *ia }, Space], Emit::Same)),
            TimeSpace {
                no: a,
                io: ia,
                ni: b,
            } if a * b == no && ni == 1 => Some((
                vec![
                    TimeSpace {
                        no: *a,
                        io: *ia,
                        ni: *b,
                    },
                    Space,
                ],
                Emit::Reshape,
            )),
            Nested(l) if l.len() == 2 && l[0].0 == no && l[1].0 == ni => {
                Some((vec![Time { i: l[0].1 }, Time { i: l[1].1 }], Emit::Same))
            }
            Nested(l) if l.len() == 3 && l[0].0 == no && l[1].0 * l[2].0 == ni => Some((
                vec![Time { i: l[0].1 }, Nested(vec![l[1], l[2]])],
                Emit::Reshape,
            )),
            Nested(l) if l.len() == 3 && l[0].0 * l[1].0 == no && l[2].0 == ni => Some((
                vec![Nested(vec![l[0], l[1]]), Time { i: l[2].1 }],
                Emit::Reshape,
            )),
            _ => None,
        };
        if let Some((u, what)) = direct {
            return self.emit(ty, forms, x, &join(u, rest), what, &le);
        }
        self.unpartition_search(ty, forms, x, no, ni, r, rest)
    }

    /// `stuple_to_seq n`: `(seq 1 (stuple n t)) -> (seq n t)`.
    pub(super) fn stuple_to_seq(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        n: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("stuple_to_seq: missing layout")?;
        let le = build_layout(ty.as_seq().ok_or("stuple_to_seq: not a sequence")?.1, rest);
        let (u, what) = match r {
            Space => (Space, Emit::Reshape),
            Time { i } => (Time { i: n - 1 + i }, Emit::Serialize(n, *i)),
            TimeSpace { no, io, .. } => (
                TimeSpace {
                    no: 1,
                    io: no + io - 1,
                    ni: 1,
                },
                Emit::Reshape,
            ),
            Nested(l) if l.len() == 2 => {
                let ((a, ia), (b, ib)) = (l[0], l[1]);
                (
                    Nested(vec![(1, a + ia - 1), (1, b + ib - 1)]),
                    Emit::Reshape,
                )
            }
            other => return Err(format!("stuple_to_seq {n}: no lowering to {other:?}")),
        };
        self.emit(ty, forms, x, &join(vec![u], rest), what, &le)
    }

    /// `seq_to_stuple n`: `(seq n t) -> (seq 1 (stuple n t))`, always a reshape.
    pub(super) fn seq_to_stuple(
        &mut self,
        ty: &SeqType,
        forms: &[LayerForm],
        x: SeqId,
        n: u64,
    ) -> Result<StId, String> {
        let (r, rest) = forms.split_first().ok_or("seq_to_stuple: missing layout")?;
        let u = match r {
            Time { i: d } if d + 1 < n => {
                return Err(format!(
                    "seq_to_stuple {n}: {n} elements do not fit {} clocks",
                    d + 1
                ))
            }
            Time { .. } | Space | TimeSpace { .. } | Nested(_) => Self::shrink(r, n)?.0,
            other => return Err(format!("seq_to_stuple {n}: no lowering to {other:?}")),
        };
        let t = self
            .p
            .ty(x)
            .as_seq()
            .ok_or("seq_to_stuple: not a sequence")?
            .1
            .clone();
        let le = build_layout(&t, rest);
        self.emit(ty, forms, x, &join(vec![u], rest), Emit::Reshape, &le)
    }
}
