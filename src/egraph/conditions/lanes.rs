//! The lane-form fragments of the `seed-shift-lanes`, `hmap-lanes` and `shift-lanes`
//! generators: terms built here that the rule applier splices into the right side.

use crate::egraph::extract::hole_var;
use crate::egraph::lang::{Literal, SeqLang};
use crate::egraph::pattern::{infer_var, Pat};
use crate::seq::value::Value;
use egg::{ENodeOrVar, Id, Var};
use indexmap::IndexMap;

/// Small helpers to build fragments.
struct Frag(Pat);

impl Frag {
    fn node(&mut self, n: SeqLang) -> Id {
        self.0.add(ENodeOrVar::ENode(n))
    }
    fn var(&mut self, v: Var) -> Id {
        self.0.add(ENodeOrVar::Var(v))
    }
    fn num(&mut self, n: u64) -> Id {
        self.node(SeqLang::Num(n))
    }
    fn arg(&mut self, i: u64) -> Id {
        let i = self.num(i);
        let t = self.var(infer_var());
        self.node(SeqLang::Arg([i, t]))
    }
}

pub(super) fn seed_shift_lanes(no: Var, ni_var: Var, init: Var, ni: u64) -> Pat {
    let mut f = Frag(Pat::default());
    let mut items = Vec::new();
    // Lane 0: the previous row's last lane, shifted by one row.
    let a = f.arg(0);
    let (no_id, one, init_id) = (f.var(no), f.num(1), f.var(init));
    let shift = f.node(SeqLang::Shift([no_id, one, init_id, a]));
    let a = f.arg(0);
    let (ni_id, last) = (f.var(ni_var), f.num(ni - 1));
    let sel = f.node(SeqLang::Down([ni_id, last, a]));
    let one = f.num(1);
    items.push(f.node(SeqLang::Map([one, shift, sel])));
    // Lane i >= 1: lane i-1 of the same row.
    for i in 1..ni {
        let a = f.arg(0);
        let (ni_id, k) = (f.var(ni_var), f.num(i - 1));
        items.push(f.node(SeqLang::Down([ni_id, k, a])));
    }
    f.node(SeqLang::ListToSeq(items.into_boxed_slice()));
    f.0
}

/// Zips two lane sequences (`stuple` for the first two, `stuple_append` after) at the
/// depth of `lens` nested `map2`s, innermost first: `[1, no]` zips `(seq no (seq 1 t))`s
/// with `Map2 no (Map2 1 (stuple (arg 0) (arg 1)))`.
fn zip_lanes(f: &mut Frag, lens: &[Id], append: bool, acc: Id, lane: Id) -> Id {
    let (a0, a1) = (f.arg(0), f.arg(1));
    let mut body = if append {
        f.node(SeqLang::STupleAppend([a0, a1]))
    } else {
        f.node(SeqLang::STuple([a0, a1]))
    };
    let (outer, inner) = lens.split_last().expect("at least one map2 layer");
    for len in inner {
        let (b0, b1) = (f.arg(0), f.arg(1));
        body = f.node(SeqLang::Map2([*len, body, b0, b1]));
    }
    f.node(SeqLang::Map2([*outer, body, acc, lane]))
}

/// `hmap-lanes`: lane k is `Map 1 f_k (Select_1d n k x)`, the lanes zipped into
/// `(seq 1 (stuple n u))`.
pub(super) fn hmap_lanes(n: Var, x: Var, fs: &[Id], holes: &mut IndexMap<Var, Id>) -> Pat {
    let mut f = Frag(Pat::default());
    let (n_id, x_id) = (f.var(n), f.var(x));
    let mut lanes = Vec::new();
    for (k, &fk) in fs.iter().enumerate() {
        let v = hole_var(fk);
        holes.insert(v, fk);
        let body = f.var(v);
        let idx = f.num(k as u64);
        let sel = f.node(SeqLang::Down([n_id, idx, x_id]));
        let one = f.num(1);
        lanes.push(f.node(SeqLang::Map([one, body, sel])));
    }
    let one = f.num(1);
    let mut acc = zip_lanes(&mut f, &[one], false, lanes[0], lanes[1]);
    for lane in &lanes[2..] {
        acc = zip_lanes(&mut f, &[one], true, acc, *lane);
    }
    let _ = acc;
    f.0
}

pub(super) fn shift_lanes(no: Var, ni_var: Var, s: u64, init: &Value, x: Var, ni: u64) -> Pat {
    let mut f = Frag(Pat::default());
    let init1 = match init {
        Value::Undef => Value::Undef,
        v => Value::List(vec![v.clone()]),
    };
    let (no_id, ni_id, x_id) = (f.var(no), f.var(ni_var), f.var(x));
    let parts = f.node(SeqLang::Partition([no_id, ni_id, x_id]));
    let mut lanes = Vec::new();
    for k in 0..ni {
        let rows = (ni - 1 - k + s) / ni;
        let from = (k + ni * s.div_ceil(ni) - s) % ni;
        let a = f.arg(0);
        let idx = f.num(from);
        let sel = f.node(SeqLang::Down([ni_id, idx, a]));
        let lane = f.node(SeqLang::Map([no_id, sel, parts]));
        lanes.push(if rows == 0 {
            lane
        } else {
            let r = f.num(rows);
            let l = f.node(SeqLang::Lit(Literal(init1.clone())));
            f.node(SeqLang::Shift([no_id, r, l, lane]))
        });
    }
    let one = f.num(1);
    let mut acc = zip_lanes(&mut f, &[one, no_id], false, lanes[0], lanes[1]);
    for lane in &lanes[2..] {
        acc = zip_lanes(&mut f, &[one, no_id], true, acc, *lane);
    }
    let _ = acc;
    f.0
}
