//! Unit tests of the stream graph's layout helpers.

use super::*;
use crate::schedule::slowdown::tessera_layouts;
use crate::schedule::slowdown::LayerForm;
use crate::seq::types::ScalarType;
use layout::split_top_by;

fn u8t() -> SeqType {
    SeqType::Scalar(ScalarType::ALL[0])
}

#[test]
fn candidates_match_tessera_layouts() {
    let t = SeqType::seq(16, SeqType::seq(3, u8t()));
    for s in [1, 2, 4, 8, 16, 48] {
        let all = tessera_layouts(&t, s);
        assert_eq!(candidates(&t, s, usize::MAX, u64::MAX), all, "slowdown {s}");
        assert_eq!(
            candidates(&t, s, 3, u64::MAX),
            all.into_iter().take(3).collect::<Vec<_>>()
        );
    }
}

#[test]
fn fit_cuts_normal_forms_at_type_layers() {
    let a = Layout::Scalar(ScalarType::ALL[0]);
    // (tseq 4 0 (sseq 2 a)) seen as (seq 2 (seq 4 a)): each row spans two clocks.
    let norm = Layout::tseq(4, 0, Layout::sseq(2, a.clone()));
    let t = SeqType::seq(2, SeqType::seq(4, u8t()));
    let l = fit(&norm, &t).expect("a fit");
    assert_eq!(l.normalize(), norm);
    assert!(crate::st::verify::implements(&l, &t));
    // A length-1 layer becomes (sseq 1 _).
    let t1 = SeqType::seq(1, SeqType::seq(8, u8t()));
    let l1 = fit(&norm, &t1).expect("a fit");
    assert_eq!(l1.normalize(), norm);
    // An invalid-period split that does not divide has no fit.
    let bad = Layout::tseq(4, 1, a);
    assert!(fit(&bad, &SeqType::seq(2, SeqType::seq(2, u8t()))).is_none());
}

#[test]
fn split_top_finds_every_form() {
    let a = Layout::Scalar(ScalarType::ALL[0]);
    let e = u8t();
    let split_top =
        |l: &Layout, n: u64, e: &SeqType| split_top_by(l, n, &|x: &Layout| x.to_seq() == *e);
    let ts = Layout::tseq(2, 1, Layout::sseq(4, a.clone()));
    assert_eq!(
        split_top(&ts, 8, &e),
        vec![(
            LayerForm::TimeSpace {
                no: 2,
                io: 1,
                ni: 4
            },
            a.clone()
        )]
    );
    let t = Layout::tseq(8, 0, a.clone());
    assert_eq!(
        split_top(&t, 8, &e),
        vec![(LayerForm::Time { i: 0 }, a.clone())]
    );
    assert!(split_top(&t, 4, &e).is_empty());
}
