//! Values of the fast evaluator: a batch of instances of one type, and the sequence
//! operators on them.
//!
//! A value does not know its type or its batch size: the evaluator does. In the plain form
//! ([`FVal::Cols`]) each atom slot is one column holding the batch's instances one after
//! the other, each in flat order, so a `map` body sees its input as the same columns with
//! a larger batch, and `partition`/`unpartition` change nothing. Seq-tuples are built from
//! separate values (the taps of a stencil), so [`FVal::Stack`] keeps one of a value's
//! dimensions as a list of parts instead of interleaving them: a 3x3 window over an image
//! is then nine views of the image rather than nine times its size.

use super::col::{Builder, Col};

/// A batch of values of one type.
#[derive(Clone, Debug)]
pub(super) enum FVal {
    /// One column per atom slot (the scalars of one atom, left to right).
    Cols(Vec<Col>),
    /// The dimension at `depth` (0: the outermost `seq` or `stuple` of the type) held as
    /// one value per index: part `i` is the value with that index fixed, of the type
    /// without that dimension. `inner` is the number of atoms one index covers (the
    /// product of the dimensions below it). Always at least two parts.
    Stack {
        depth: usize,
        inner: usize,
        parts: Vec<FVal>,
    },
}

impl FVal {
    /// A stack, or for one part the part with a dimension of 1 inserted (the same layout).
    pub fn stack(depth: usize, inner: usize, mut parts: Vec<FVal>) -> FVal {
        if parts.len() == 1 {
            return parts.pop().expect("one part").insert_dim(depth);
        }
        FVal::Stack {
            depth,
            inner,
            parts,
        }
    }

    /// Atoms in the whole batch.
    pub fn len(&self) -> usize {
        match self {
            FVal::Cols(cols) => cols[0].len(),
            FVal::Stack { parts, .. } => parts.iter().map(FVal::len).sum(),
        }
    }

    /// True for a stack over the outermost dimension.
    pub fn is_outer_stack(&self) -> bool {
        matches!(self, FVal::Stack { depth: 0, .. })
    }

    /// The plain form: one column per slot, parts interleaved.
    pub fn into_cols(self) -> Vec<Col> {
        match self {
            FVal::Cols(cols) => cols,
            FVal::Stack { inner, parts, .. } => {
                let parts: Vec<Vec<Col>> = parts.into_iter().map(FVal::into_cols).collect();
                let k = parts.len();
                let outer = parts[0][0].len() / inner;
                (0..parts[0].len())
                    .map(|s| {
                        let plain: Option<Vec<_>> =
                            parts.iter().map(|p| p[s].contig(0, p[s].len())).collect();
                        if let Some(plain) = plain {
                            return interleave(&plain, inner);
                        }
                        let mut b = Builder::new(k * outer * inner, k * outer);
                        for o in 0..outer {
                            for p in &parts {
                                b.push(&p[s], o * inner, inner);
                            }
                        }
                        b.finish()
                    })
                    .collect()
            }
        }
    }

    /// Instances `i0 .. i0 + n` of a batch whose instances have `r` atoms each.
    pub fn slice(&self, r: usize, i0: usize, n: usize) -> FVal {
        match self {
            FVal::Cols(cols) => FVal::Cols(cols.iter().map(|c| c.slice(i0 * r, n * r)).collect()),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => FVal::Stack {
                depth: *depth,
                inner: *inner,
                parts: parts
                    .iter()
                    .map(|p| p.slice(r / parts.len(), i0, n))
                    .collect(),
            },
        }
    }

    /// The batches one after the other.
    pub fn concat(vals: Vec<FVal>) -> FVal {
        if vals.len() == 1 {
            return vals.into_iter().next().expect("one value");
        }
        let same_stacks = match &vals[0] {
            FVal::Stack {
                depth,
                inner,
                parts,
            } => vals.iter().all(|v| {
                matches!(v, FVal::Stack { depth: d, inner: i, parts: q }
                    if d == depth && i == inner && q.len() == parts.len())
            }),
            FVal::Cols(_) => false,
        };
        if same_stacks {
            let FVal::Stack { depth, inner, .. } = vals[0] else {
                unreachable!("checked above")
            };
            let mut columns: Vec<Vec<FVal>> = Vec::new();
            for v in vals {
                let FVal::Stack { parts, .. } = v else {
                    unreachable!("checked above")
                };
                columns.resize_with(parts.len(), Vec::new);
                for (c, p) in columns.iter_mut().zip(parts) {
                    c.push(p);
                }
            }
            let parts = columns.into_iter().map(FVal::concat).collect();
            return FVal::Stack {
                depth,
                inner,
                parts,
            };
        }
        let cols: Vec<Vec<Col>> = vals.into_iter().map(FVal::into_cols).collect();
        FVal::Cols(
            (0..cols[0].len())
                .map(|s| Col::concat(&cols.iter().map(|c| c[s].clone()).collect::<Vec<_>>()))
                .collect(),
        )
    }

    /// A batch of `to` instances repeating this batch of `from` instances.
    pub fn repeat(self, from: usize, to: usize) -> FVal {
        match self {
            FVal::Cols(cols) => FVal::Cols(
                cols.iter()
                    .map(|c| Col::repeat(c, c.len() / from * to))
                    .collect(),
            ),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => FVal::Stack {
                depth,
                inner,
                parts: parts.into_iter().map(|p| p.repeat(from, to)).collect(),
            },
        }
    }

    /// The same batch seen one dimension down: the outermost dimension joins the batch
    /// (what a `map` body receives).
    pub fn peel(self) -> FVal {
        match self {
            FVal::Cols(_) => self,
            FVal::Stack { depth: 0, .. } => FVal::Cols(self.into_cols()),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => FVal::Stack {
                depth: depth - 1,
                inner,
                parts: parts.into_iter().map(FVal::peel).collect(),
            },
        }
    }

    /// The same data with a dimension of length 1 inserted at `d`.
    pub fn insert_dim(self, d: usize) -> FVal {
        match self {
            FVal::Cols(_) => self,
            FVal::Stack {
                depth,
                inner,
                parts,
            } => {
                let (depth, pd) = if depth >= d {
                    (depth + 1, d)
                } else {
                    (depth, d - 1)
                };
                FVal::Stack {
                    depth,
                    inner,
                    parts: parts.into_iter().map(|p| p.insert_dim(pd)).collect(),
                }
            }
        }
    }

    /// The same data with the dimension of length 1 at `d` removed.
    pub fn remove_dim(self, d: usize) -> FVal {
        match self {
            FVal::Cols(_) => self,
            FVal::Stack {
                depth,
                inner,
                parts,
            } => {
                debug_assert_ne!(depth, d, "a stack has at least two parts");
                let (depth, pd) = if depth > d {
                    (depth - 1, d)
                } else {
                    (depth, d - 1)
                };
                FVal::Stack {
                    depth,
                    inner,
                    parts: parts.into_iter().map(|p| p.remove_dim(pd)).collect(),
                }
            }
        }
    }

    /// `partition`: the outermost dimension split in two.
    pub fn split_outer(self) -> FVal {
        match self {
            FVal::Cols(_) => self,
            FVal::Stack { depth: 0, .. } => FVal::Cols(self.into_cols()),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => FVal::Stack {
                depth: depth + 1,
                inner,
                parts: parts.into_iter().map(FVal::split_outer).collect(),
            },
        }
    }

    /// `unpartition`: the two outermost dimensions joined.
    pub fn join_outer(self) -> FVal {
        match self {
            FVal::Cols(_) => self,
            FVal::Stack { depth: 0 | 1, .. } => FVal::Cols(self.into_cols()),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => FVal::Stack {
                depth: depth - 1,
                inner,
                parts: parts.into_iter().map(FVal::join_outer).collect(),
            },
        }
    }

    /// Element `j` of a `(seq n e)` batch whose elements have `re` atoms.
    pub fn part(&self, n: usize, re: usize, j: usize) -> FVal {
        match self {
            FVal::Stack {
                depth: 0, parts, ..
            } => parts[j].clone(),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => FVal::stack(
                depth - 1,
                *inner,
                parts
                    .iter()
                    .map(|p| p.part(n, re / parts.len(), j))
                    .collect(),
            ),
            FVal::Cols(cols) => {
                let count = cols[0].len() / (n * re);
                FVal::Cols(
                    cols.iter()
                        .map(|c| c.strided(j * re, re, n * re, count))
                        .collect(),
                )
            }
        }
    }

    /// Every element of a `(seq n e)` batch (see [`FVal::part`]).
    pub fn parts(self, n: usize, re: usize) -> Vec<FVal> {
        match self {
            FVal::Stack {
                depth: 0, parts, ..
            } => parts,
            v => (0..n).map(|j| v.part(n, re, j)).collect(),
        }
    }

    /// The pairing `reduce` hands its function: atom by atom, the left value's slots then
    /// the right's.
    pub fn zip(a: FVal, b: FVal) -> FVal {
        match (a, b) {
            (
                FVal::Stack {
                    depth,
                    inner,
                    parts: pa,
                },
                FVal::Stack {
                    depth: db,
                    parts: pb,
                    ..
                },
            ) if depth == db && pa.len() == pb.len() => FVal::Stack {
                depth,
                inner,
                parts: pa
                    .into_iter()
                    .zip(pb)
                    .map(|(x, y)| FVal::zip(x, y))
                    .collect(),
            },
            (a, b) => {
                let mut cols = a.into_cols();
                cols.extend(b.into_cols());
                FVal::Cols(cols)
            }
        }
    }

    /// `transpose no ni` of a batch whose innermost elements have `re` atoms.
    pub fn transpose(self, no: usize, ni: usize, re: usize) -> FVal {
        match self {
            FVal::Stack {
                depth: 0, parts, ..
            } => FVal::Stack {
                depth: 1,
                inner: re,
                parts,
            },
            FVal::Stack {
                depth: 1, parts, ..
            } => FVal::Stack {
                depth: 0,
                inner: no * re,
                parts,
            },
            FVal::Stack {
                depth,
                inner,
                parts,
            } => {
                let k = parts.len();
                FVal::Stack {
                    depth,
                    inner,
                    parts: parts
                        .into_iter()
                        .map(|p| p.transpose(no, ni, re / k))
                        .collect(),
                }
            }
            FVal::Cols(cols) => {
                let r = no * ni * re;
                FVal::Cols(
                    cols.iter()
                        .map(|c| {
                            c.per_instance(r, r, |c| {
                                let count = c.len() / r;
                                let mut b = Builder::new(c.len(), count * no * ni);
                                for k in 0..count {
                                    for i in 0..ni {
                                        for o in 0..no {
                                            b.push(c, k * r + (o * ni + i) * re, re);
                                        }
                                    }
                                }
                                b.finish()
                            })
                        })
                        .collect(),
                )
            }
        }
    }

    /// `up_1d n` of a batch of `(seq 1 e)`, `e` of `re` atoms.
    pub fn up(self, n: usize, re: usize) -> FVal {
        match self {
            FVal::Stack { depth: 0, .. } => FVal::Cols(self.into_cols()).up(n, re),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => {
                let k = parts.len();
                FVal::Stack {
                    depth,
                    inner,
                    parts: parts.into_iter().map(|p| p.up(n, re / k)).collect(),
                }
            }
            FVal::Cols(cols) => FVal::Cols(
                cols.iter()
                    .map(|c| {
                        c.per_instance(re, n * re, |c| {
                            let count = c.len() / re;
                            if count == 1 {
                                return Col::repeat(c, n * re);
                            }
                            let mut b = Builder::new(count * n * re, count * n);
                            for k in 0..count {
                                for _ in 0..n {
                                    b.push(c, k * re, re);
                                }
                            }
                            b.finish()
                        })
                    })
                    .collect(),
            ),
        }
    }

    /// `down_1d n idx` of a batch of `(seq n e)`, `e` of `re` atoms.
    pub fn down(self, n: usize, idx: usize, re: usize) -> FVal {
        match self {
            FVal::Stack {
                depth: 0, parts, ..
            } => parts[idx].clone().insert_dim(0),
            FVal::Stack {
                depth,
                inner,
                parts,
            } => {
                let k = parts.len();
                FVal::Stack {
                    depth,
                    inner,
                    parts: parts.into_iter().map(|p| p.down(n, idx, re / k)).collect(),
                }
            }
            FVal::Cols(_) => self.part(n, re, idx),
        }
    }

    /// `shift n amount` of a batch of `(seq n e)`, `e` of `re` atoms; `fill` is the
    /// element moved in, as one value of `e` (one column of `re` atoms per slot).
    pub fn shift(self, n: usize, amount: usize, re: usize, fill: &[Col]) -> FVal {
        match self {
            FVal::Stack {
                depth: 0,
                inner,
                parts,
            } => {
                let count = parts[0].len() / re;
                let moved_in =
                    FVal::Cols(fill.iter().map(|f| Col::repeat(f, count * re)).collect());
                let mut out = vec![moved_in; amount];
                out.extend(parts.into_iter().take(n - amount));
                FVal::stack(0, inner, out)
            }
            FVal::Stack { .. } => FVal::Cols(self.into_cols()).shift(n, amount, re, fill),
            FVal::Cols(cols) => {
                let r = n * re;
                FVal::Cols(
                    cols.iter()
                        .zip(fill)
                        .map(|(c, f)| {
                            c.per_instance(r, r, |c| {
                                let count = c.len() / r;
                                let head = Col::repeat(f, amount * re);
                                let mut b = Builder::new(c.len(), 2 * count);
                                for k in 0..count {
                                    b.push(&head, 0, amount * re);
                                    b.push(c, k * r, (n - amount) * re);
                                }
                                b.finish()
                            })
                        })
                        .collect(),
                )
            }
        }
    }
}

/// Interleaves plain columns block by block: block `o` of every part, then block `o + 1`.
fn interleave(parts: &[(&[u32], Option<&[bool]>)], inner: usize) -> Col {
    let total: usize = parts.iter().map(|p| p.0.len()).sum();
    let mut data = Vec::with_capacity(total);
    let any_undef = parts.iter().any(|p| p.1.is_some());
    let mut undef = Vec::with_capacity(if any_undef { total } else { 0 });
    for o in 0..parts[0].0.len() / inner {
        let r = o * inner..(o + 1) * inner;
        for (d, u) in parts {
            data.extend_from_slice(&d[r.clone()]);
            if any_undef {
                match u {
                    Some(u) => undef.extend_from_slice(&u[r.clone()]),
                    None => undef.resize(undef.len() + inner, false),
                }
            }
        }
    }
    Col::dense(data, any_undef.then_some(undef))
}
