//! Layout fitting helpers: the layer forms of a layout's top layer ([`split_top_by`],
//! [`lays_out`]), fitting a normal form to a type ([`fit`]) and the candidate layouts of a
//! type ([`candidates`]).

use super::super::super::slowdown::{tessera_layouts_first, LayerForm};
use crate::seq::types::SeqType;
use crate::st::Layout;

/// Whether `l` lays out the type `t` layer by layer: each `seq` layer of `t` in one of the
/// layer forms [`split_top_by`] recognizes, its element laid out the same way (so a split
/// layer counts: `(tseq 240 0 (sseq 16 x))` lays out a `(seq 3840 _)`, although its own
/// type is `(seq 240 (seq 16 _))`), `stuple` layers as `stuple`s and atoms as themselves.
pub fn lays_out(l: &Layout, t: &SeqType) -> bool {
    match t {
        SeqType::Seq(n, e) => !split_top_by(l, *n, &|x: &Layout| lays_out(x, e)).is_empty(),
        SeqType::STuple(n, e) => matches!(l, Layout::STuple(m, le) if m == n && lays_out(le, e)),
        _ => l.to_seq() == *t,
    }
}

/// The ways the top `seq n _` layer of a layout `l` is laid out (space, time, time-space,
/// two or three nested time layers, mixed), each with its element layout, keeping those
/// whose element layout passes `is_e`. The lowering rules match the same forms
/// (`rules/lower/`); this serves [`lays_out`].
pub(super) fn split_top_by(
    l: &Layout,
    n: u64,
    is_e: &dyn Fn(&Layout) -> bool,
) -> Vec<(LayerForm, Layout)> {
    let mut out = Vec::new();
    match l {
        Layout::SSeq(m, le) if *m == n && is_e(le) => out.push((LayerForm::Space, (**le).clone())),
        Layout::TSeq(m, i, inner) => {
            if *m == n && is_e(inner) {
                out.push((LayerForm::Time { i: *i }, (**inner).clone()));
            }
            match &**inner {
                Layout::SSeq(ni, le) if m * ni == n && is_e(le) => out.push((
                    LayerForm::TimeSpace {
                        no: *m,
                        io: *i,
                        ni: *ni,
                    },
                    (**le).clone(),
                )),
                Layout::TSeq(m2, i2, le) => {
                    if m * m2 == n && is_e(le) {
                        out.push((
                            LayerForm::Nested(vec![(*m, *i), (*m2, *i2)]),
                            (**le).clone(),
                        ));
                    }
                    match &**le {
                        Layout::TSeq(m3, i3, le3) if m * m2 * m3 == n && is_e(le3) => out.push((
                            LayerForm::Nested(vec![(*m, *i), (*m2, *i2), (*m3, *i3)]),
                            (**le3).clone(),
                        )),
                        Layout::SSeq(ni, le3) if *m2 == 1 && m * ni == n && is_e(le3) => {
                            out.push((
                                LayerForm::Mixed {
                                    no: *m,
                                    io: *i,
                                    ii: *i2,
                                    ni: *ni,
                                },
                                (**le3).clone(),
                            ))
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    out
}

/// One layer of a normalized layout.
#[derive(Clone, Copy, Debug)]
enum Dim {
    S(u64),
    T(u64, u64),
}

/// A layout of type `ty` whose normal form is `norm` (the normalized layers cut at the
/// type's layer boundaries, splitting a layer where a boundary falls inside it), if any.
/// Each `seq` layer of the type becomes the (possibly split) layers it covers.
pub fn fit(norm: &Layout, ty: &SeqType) -> Option<Layout> {
    let mut dims = Vec::new();
    let mut cur = norm;
    loop {
        match cur {
            Layout::SSeq(k, t) | Layout::STuple(k, t) => {
                dims.push(Dim::S(*k));
                cur = t;
            }
            Layout::TSeq(k, i, t) => {
                dims.push(Dim::T(*k, *i));
                cur = t;
            }
            atom => break fit_rec(&mut dims.into_iter().rev().collect(), ty, atom),
        }
    }
}

/// `dims` is reversed (next layer last).
fn fit_rec(dims: &mut Vec<Dim>, ty: &SeqType, atom: &Layout) -> Option<Layout> {
    let (n, e, tuple) = match ty {
        SeqType::Seq(n, e) => (*n, &**e, false),
        SeqType::STuple(n, e) => (*n, &**e, true),
        _ => {
            return (dims.is_empty() && atom.to_seq() == *ty).then(|| atom.clone());
        }
    };
    let mut pieces = Vec::new();
    // A layer of one element takes a padding layer `tseq 1 i` (the normal form keeps it:
    // one valid clock then `i` idle ones); an atom cannot, so without this a padded
    // element (`(tseq 64 0 (tseq 1 4 uint8))`, a pixel every 5 clocks) fits no type with
    // a `seq 1` layer, and relabels such as `unpartition n 1` could not take it.
    if n == 1 {
        if let Some(&Dim::T(1, i)) = dims.last() {
            dims.pop();
            pieces.push(Dim::T(1, i));
        }
    }
    let mut r = n;
    while r > 1 {
        let d = dims.pop()?;
        match d {
            Dim::S(k) if r % k == 0 => {
                pieces.push(Dim::S(k));
                r /= k;
            }
            Dim::S(k) if k % r == 0 => {
                pieces.push(Dim::S(r));
                dims.push(Dim::S(k / r));
                r = 1;
            }
            Dim::T(k, i) if r % k == 0 => {
                pieces.push(Dim::T(k, i));
                r /= k;
            }
            Dim::T(k, i) if k % r == 0 && i % (k / r) == 0 => {
                pieces.push(Dim::T(r, i / (k / r)));
                dims.push(Dim::T(k / r, 0));
                r = 1;
            }
            _ => return None,
        }
    }
    let inner = fit_rec(dims, e, atom)?;
    if tuple {
        if pieces.iter().any(|p| matches!(p, Dim::T(..))) {
            return None;
        }
        return Some(Layout::stuple(n, inner));
    }
    if pieces.is_empty() {
        return Some(Layout::sseq(1, inner));
    }
    Some(pieces.iter().rev().fold(inner, |acc, p| match p {
        Dim::S(k) => Layout::sseq(*k, acc),
        Dim::T(k, i) => Layout::tseq(*k, *i, acc),
    }))
}

/// A layout of `t` over the clocks of `result` that follows `result`'s layers from the
/// outside in while they have `t`'s lengths (`tseq n i`, `sseq n`, `tseq no io (sseq ni)`),
/// with everything inside in space once `result` has a single clock left: the parameter
/// layout Aetherling propagates back through a body (a `map 32` over windows whose result
/// is `(tseq 32 4 (sseq 1 _))` reads its windows as `(tseq 32 4 (sseq 3 (sseq 3 _)))`).
pub fn following(t: &SeqType, result: &Layout) -> Option<Layout> {
    if result.clocks() == 1 {
        return Some(Layout::space_of(t));
    }
    let (n, e) = t.as_seq()?;
    match result {
        Layout::TSeq(m, i, inner) if *m == n => Some(Layout::tseq(n, *i, following(e, inner)?)),
        Layout::SSeq(m, inner) if *m == n => Some(Layout::sseq(n, following(e, inner)?)),
        Layout::TSeq(no, io, inner) => match &**inner {
            Layout::SSeq(ni, inner) if no * ni == n => Some(Layout::tseq(
                *no,
                *io,
                Layout::sseq(*ni, following(e, inner)?),
            )),
            _ => None,
        },
        _ => None,
    }
}

/// The first `cap` layouts of [`tessera_layouts_first`] (Aetherling's per-layer forms plus
/// the mixed forms) with at most `max_lanes` lanes, simplest first.
pub fn candidates(t: &SeqType, s: u64, cap: usize, max_lanes: u64) -> Vec<Layout> {
    tessera_layouts_first(t, s, cap, max_lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    #[test]
    fn a_split_element_lays_out_its_type() {
        let u = || SeqType::from(ScalarType::UInt32);
        let x = Layout::Scalar(ScalarType::UInt32);
        // One pair of camera rows, 16 pixels per clock: a (seq 3840 _) in 240 clocks.
        let row = Layout::tseq(240, 0, Layout::sseq(16, x.clone()));
        let rt = SeqType::seq(3840, u());
        assert!(lays_out(&row, &rt));
        assert_ne!(row.to_seq(), rt);
        // The demosaic's map over 540 such pairs: its top layer in time, each element
        // split; the exact-type test of the lowering rules does not match it.
        let frame = Layout::tseq(540, 0, row.clone());
        assert!(lays_out(&frame, &SeqType::seq(540, rt.clone())));
        assert!(split_top_by(&frame, 540, &|x: &Layout| x.to_seq() == rt).is_empty());
        // Wrong lengths do not lay out the type.
        assert!(!lays_out(&row, &SeqType::seq(3839, u())));
        assert!(!lays_out(&Layout::tseq(7, 0, x), &SeqType::seq(8, u())));
    }

    #[test]
    fn a_padded_element_fits_a_layer_of_one() {
        let u = || SeqType::from(ScalarType::UInt8);
        // A pixel every 5 clocks, and the same pixels as rows of one (what `unpartition
        // 64 1` reads): one wiring, so the relabel must find it.
        let padded = Layout::tseq(64, 0, Layout::tseq(1, 4, Layout::Scalar(ScalarType::UInt8)));
        let rows = SeqType::seq(64, SeqType::seq(1, u()));
        let f = fit(&padded.normalize(), &rows).unwrap();
        assert_eq!(f.to_string(), "(tseq 64 0 (tseq 1 4 uint8))");
        assert!(lays_out(&f, &rows));
        assert_eq!(f.normalize(), padded.normalize());
        // An atom cannot take the padding: `(seq 64 uint8)` has no layer to hold it.
        assert!(fit(&padded.normalize(), &SeqType::seq(64, u())).is_none());
    }

    #[test]
    fn a_parameter_follows_the_result_time_layers() {
        let u = || SeqType::from(ScalarType::UInt32);
        let x = || Layout::Scalar(ScalarType::UInt32);
        let win = SeqType::seq(3, SeqType::seq(3, u()));
        let pair = SeqType::seq(32, win.clone());
        // A pair of rows of 32 windows summed to one pixel each, a pixel every 36/32 clock.
        let result = Layout::tseq(32, 4, Layout::sseq(1, Layout::sseq(1, x())));
        assert_eq!(
            following(&pair, &result).unwrap().to_string(),
            "(tseq 32 4 (sseq 3 (sseq 3 uint32)))"
        );
        let split = Layout::tseq(8, 1, Layout::sseq(4, Layout::sseq(1, x())));
        assert_eq!(
            following(&pair, &split).unwrap().to_string(),
            "(tseq 8 1 (sseq 4 (sseq 3 (sseq 3 uint32))))"
        );
        // Layers of other lengths over several clocks: no such layout.
        assert!(following(&pair, &Layout::tseq(36, 0, x())).is_none());
        assert_eq!(following(&win, &x()).unwrap(), Layout::space_of(&win));
    }
}
