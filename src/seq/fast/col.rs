//! Columns: one atom slot of a batch of values, as runs over shared scalar buffers.
//!
//! Sequence operators that only move data (`shift`, `down_1d`, a chunk of a `map`, the
//! concatenation of chunk results) make new runs over existing buffers instead of copying,
//! and constants are one repeating run (a *cyclic* run), so a constant in a body applied
//! to a million elements costs one copy of the constant.

use std::rc::Rc;

/// Pieces shorter than this are copied rather than referenced: a run costs a few words
/// and a lookup on every read, which only pays off for long runs.
const MIN_RUN: usize = 256;

/// Scalars with don't-care marks; `undef` is `None` when every scalar is known.
#[derive(Debug)]
pub(super) struct Buf {
    data: Vec<u32>,
    undef: Option<Vec<bool>>,
}

impl Buf {
    /// A shareable buffer (a constant's slot, reused by every evaluation of the constant).
    pub fn shared(data: Vec<u32>, undef: Option<Vec<bool>>) -> Rc<Buf> {
        Rc::new(Buf { data, undef })
    }
}

/// Logical positions `at .. at + len` of a column, read from `buf` from index `off` on;
/// a cyclic run wraps around the end of its buffer.
#[derive(Clone, Debug)]
struct Seg {
    buf: Rc<Buf>,
    at: usize,
    len: usize,
    off: usize,
    cyclic: bool,
}

impl Seg {
    fn period(&self) -> usize {
        self.buf.data.len()
    }

    /// Copies `out.len()` scalars from position `from` (relative to the run) on.
    fn read(&self, from: usize, out: &mut [u32], undef: Option<&mut [bool]>) {
        let d = &self.buf.data;
        let u = self.buf.undef.as_deref();
        if !self.cyclic {
            let s = self.off + from;
            out.copy_from_slice(&d[s..s + out.len()]);
            if let Some(dst) = undef {
                match u {
                    Some(u) => dst.copy_from_slice(&u[s..s + dst.len()]),
                    None => dst.fill(false),
                }
            }
            return;
        }
        let p = d.len();
        let start = (self.off + from) % p;
        if p == 1 {
            out.fill(d[0]);
        } else {
            let mut j = start;
            for o in out.iter_mut() {
                *o = d[j];
                j += 1;
                if j == p {
                    j = 0;
                }
            }
        }
        if let Some(dst) = undef {
            match u {
                None => dst.fill(false),
                Some(u) => {
                    let mut j = start;
                    for o in dst.iter_mut() {
                        *o = u[j];
                        j += 1;
                        if j == p {
                            j = 0;
                        }
                    }
                }
            }
        }
    }
}

/// One atom slot of a batch of values: a logical vector of scalars made of runs.
#[derive(Clone, Debug)]
pub(super) struct Col {
    segs: Vec<Seg>,
    len: usize,
}

impl Col {
    /// A column owning `data` (and its marks, `None` if every scalar is known).
    pub fn dense(data: Vec<u32>, undef: Option<Vec<bool>>) -> Col {
        let len = data.len();
        if len == 0 {
            return Col {
                segs: Vec::new(),
                len,
            };
        }
        let buf = Rc::new(Buf { data, undef });
        Col {
            segs: vec![Seg {
                buf,
                at: 0,
                len,
                off: 0,
                cyclic: false,
            }],
            len,
        }
    }

    /// `len` scalars repeating `data` (which must not be empty), starting at `data[phase]`.
    pub fn cycle(data: Vec<u32>, undef: Option<Vec<bool>>, phase: usize, len: usize) -> Col {
        Col::cycle_buf(Buf::shared(data, undef), phase, len)
    }

    /// `len` scalars repeating a shared buffer, starting at index `phase`.
    pub fn cycle_buf(buf: Rc<Buf>, phase: usize, len: usize) -> Col {
        let p = buf.data.len();
        debug_assert!(p > 0 && phase < p);
        if len == 0 {
            return Col::dense(Vec::new(), None);
        }
        Col {
            segs: vec![Seg {
                buf,
                at: 0,
                len,
                off: phase,
                cyclic: len > p - phase,
            }],
            len,
        }
    }

    /// `len` scalars repeating the whole of `c`.
    pub fn repeat(c: &Col, len: usize) -> Col {
        let (d, u) = c.to_vecs();
        Col::cycle(d, u, 0, len)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// True if some scalar may be don't care.
    pub fn has_undef(&self) -> bool {
        self.segs.iter().any(|s| s.buf.undef.is_some())
    }

    /// The period, if the column is one cyclic run shorter than the column.
    pub fn period(&self) -> Option<usize> {
        match self.segs.as_slice() {
            [s] if s.cyclic && s.period() < self.len => Some(s.period()),
            _ => None,
        }
    }

    /// The run holding position `i`.
    fn seg_at(&self, i: usize) -> usize {
        self.segs.partition_point(|s| s.at + s.len <= i)
    }

    /// Positions `start .. start + len`, sharing the buffers.
    pub fn slice(&self, start: usize, len: usize) -> Col {
        debug_assert!(start + len <= self.len);
        let mut segs = Vec::new();
        if len > 0 {
            let mut k = self.seg_at(start);
            let end = start + len;
            let mut at = start;
            while at < end {
                let s = &self.segs[k];
                let from = at - s.at;
                let n = (s.len - from).min(end - at);
                segs.push(Seg {
                    buf: s.buf.clone(),
                    at: at - start,
                    len: n,
                    off: if s.cyclic {
                        (s.off + from) % s.period()
                    } else {
                        s.off + from
                    },
                    cyclic: s.cyclic,
                });
                at += n;
                k += 1;
            }
        }
        Col { segs, len }
    }

    /// Copies positions `start .. start + out.len()` into `out` and, if given, their marks
    /// into `undef`.
    pub fn read(&self, start: usize, out: &mut [u32], mut undef: Option<&mut [bool]>) {
        let end = start + out.len();
        let mut k = self.seg_at(start);
        let mut at = start;
        while at < end {
            let s = &self.segs[k];
            let from = at - s.at;
            let n = (s.len - from).min(end - at);
            let (o0, o1) = (at - start, at - start + n);
            s.read(
                from,
                &mut out[o0..o1],
                undef.as_deref_mut().map(|u| &mut u[o0..o1]),
            );
            at += n;
            k += 1;
        }
    }

    /// Positions `start .. start + len` without copying, if they lie in one plain run.
    pub fn contig(&self, start: usize, len: usize) -> Option<(&[u32], Option<&[bool]>)> {
        if len == 0 {
            return Some((&[], None));
        }
        let s = &self.segs[self.seg_at(start)];
        if s.cyclic || start + len > s.at + s.len {
            return None;
        }
        let b = s.off + (start - s.at);
        let u = s.buf.undef.as_deref().map(|u| &u[b..b + len]);
        Some((&s.buf.data[b..b + len], u))
    }

    /// Every scalar and, if any may be don't care, every mark.
    pub fn to_vecs(&self) -> (Vec<u32>, Option<Vec<bool>>) {
        let mut d = vec![0; self.len];
        if self.has_undef() {
            let mut u = vec![false; self.len];
            self.read(0, &mut d, Some(&mut u));
            (d, Some(u))
        } else {
            self.read(0, &mut d, None);
            (d, None)
        }
    }

    /// The columns one after the other.
    pub fn concat(cols: &[Col]) -> Col {
        let total = cols.iter().map(Col::len).sum();
        let pieces = cols.iter().map(|c| c.segs.len()).sum();
        let mut b = Builder::new(total, pieces);
        for c in cols {
            b.push(c, 0, c.len);
        }
        b.finish()
    }

    /// `count` blocks of `block` scalars, block `k` from position `start + k * stride`.
    pub fn strided(&self, start: usize, block: usize, stride: usize, count: usize) -> Col {
        if count == 1 {
            return self.slice(start, block);
        }
        if let Some(p) = self.period() {
            if stride.is_multiple_of(p) {
                // Every block reads the same positions of the period.
                let one = self.slice(start, block);
                let (d, u) = one.to_vecs();
                return Col::cycle(d, u, 0, block * count);
            }
        }
        let mut b = Builder::new(block * count, count);
        for k in 0..count {
            b.push(self, start + k * stride, block);
        }
        b.finish()
    }

    /// Applies `f`, an operation on whole instances of `rin` scalars giving `rout` scalars
    /// each, to this column; a cyclic column whose period holds whole instances is
    /// transformed once per period instead of once per instance.
    pub fn per_instance(&self, rin: usize, rout: usize, f: impl FnOnce(&Col) -> Col) -> Col {
        if let [s] = self.segs.as_slice() {
            let p = s.period();
            if s.cyclic && p < self.len && p.is_multiple_of(rin) && s.off.is_multiple_of(rin) {
                let period = Col {
                    segs: vec![Seg {
                        buf: s.buf.clone(),
                        at: 0,
                        len: p,
                        off: 0,
                        cyclic: false,
                    }],
                    len: p,
                };
                let out = f(&period);
                let (d, u) = out.to_vecs();
                return Col::cycle(d, u, s.off / rin * rout, self.len / rin * rout);
            }
        }
        f(self)
    }
}

/// Builds a column from pieces of other columns: by reference when the pieces are long,
/// by copy when they are short.
pub(super) struct Builder {
    len: usize,
    segs: Option<Vec<Seg>>,
    data: Vec<u32>,
    undef: Option<Vec<bool>>,
}

impl Builder {
    /// A builder for `total` scalars that will come in about `pieces` pieces.
    pub fn new(total: usize, pieces: usize) -> Builder {
        let by_ref = pieces.saturating_mul(MIN_RUN) <= total;
        Builder {
            len: 0,
            segs: by_ref.then(Vec::new),
            data: if by_ref {
                Vec::new()
            } else {
                Vec::with_capacity(total)
            },
            undef: None,
        }
    }

    /// Appends positions `start .. start + len` of `c`.
    pub fn push(&mut self, c: &Col, start: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(segs) = &mut self.segs {
            for s in c.slice(start, len).segs {
                let s = Seg {
                    at: self.len + s.at,
                    ..s
                };
                // Consecutive pieces of one buffer (chunks of one column) merge into one run.
                if let Some(last) = segs.last_mut() {
                    if !last.cyclic
                        && !s.cyclic
                        && Rc::ptr_eq(&last.buf, &s.buf)
                        && last.off + last.len == s.off
                    {
                        last.len += s.len;
                        continue;
                    }
                }
                segs.push(s);
            }
            self.len += len;
            return;
        }
        let pos = self.data.len();
        if let Some((d, u)) = c.contig(start, len) {
            self.data.extend_from_slice(d);
            match (u, &mut self.undef) {
                (Some(u), Some(mine)) => mine.extend_from_slice(u),
                (Some(u), None) => {
                    let mut mine = vec![false; pos];
                    mine.extend_from_slice(u);
                    self.undef = Some(mine);
                }
                (None, Some(mine)) => mine.resize(pos + len, false),
                (None, None) => {}
            }
        } else {
            self.data.resize(pos + len, 0);
            if c.has_undef() && self.undef.is_none() {
                self.undef = Some(vec![false; pos]);
            }
            if let Some(mine) = &mut self.undef {
                mine.resize(pos + len, false);
            }
            c.read(
                start,
                &mut self.data[pos..],
                self.undef.as_mut().map(|u| &mut u[pos..]),
            );
        }
        self.len += len;
    }

    pub fn finish(self) -> Col {
        match self.segs {
            Some(segs) => Col {
                segs,
                len: self.len,
            },
            None => Col::dense(self.data, self.undef),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(c: &Col) -> Vec<Option<u32>> {
        let (d, u) = c.to_vecs();
        d.iter()
            .enumerate()
            .map(|(i, x)| (!u.as_ref().is_some_and(|u| u[i])).then_some(*x))
            .collect()
    }

    #[test]
    fn slices_reads_and_concatenations_agree() {
        let a = Col::dense((0..1000).collect(), None);
        let c = Col::cycle(vec![7, 8, 9], Some(vec![false, true, false]), 1, 500);
        let cat = Col::concat(&[a.slice(10, 600), c.clone(), a.slice(0, 3)]);
        assert_eq!(cat.len(), 1103);
        let v = vals(&cat);
        assert_eq!(v[0], Some(10));
        assert_eq!(v[599], Some(609));
        assert_eq!(&v[600..604], &[None, Some(9), Some(7), None]);
        assert_eq!(&v[1100..], &[Some(0), Some(1), Some(2)]);
        let s = cat.slice(598, 6);
        assert_eq!(vals(&s), v[598..604].to_vec());
        assert_eq!(vals(&cat.strided(1, 2, 300, 3)), {
            let mut w = v[1..3].to_vec();
            w.extend_from_slice(&v[301..303]);
            w.extend_from_slice(&v[601..603]);
            w
        });
    }

    #[test]
    fn cyclic_columns_stay_cyclic_under_aligned_gathers() {
        let c = Col::cycle(vec![1, 2, 3, 4, 5, 6], None, 0, 6000);
        let g = c.strided(2, 2, 6, 1000);
        assert_eq!(g.period(), Some(2));
        assert_eq!(vals(&g)[..4], [Some(3), Some(4), Some(3), Some(4)]);
        let r = c.per_instance(3, 1, |p| {
            let (d, _) = p.to_vecs();
            Col::dense(d.chunks(3).map(|x| x.iter().sum()).collect(), None)
        });
        assert_eq!(r.period(), Some(2));
        assert_eq!(vals(&r)[..3], [Some(6), Some(15), Some(6)]);
    }
}
