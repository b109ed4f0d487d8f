//! Slowdowns and the candidate output layouts that meet them.
//!
//! A design's *slowdown* is the number of clocks its output layout spans: the clocks the
//! hardware takes for one whole input. For a slowdown `s` and the program's output type, the
//! scheduler tries every layout with exactly `s` clocks that this module offers:
//!
//! - [`aetherling_layouts`]: exactly the enumeration of Aetherling's scheduler (reference
//!   §4.3): distribute `s` over the `seq` layers, and per layer offer `sseq`, the most
//!   serial `tseq no io (sseq ni)`, `tseq n i`, and the spread-out nested forms
//!   `tseq n io (tseq 1 ii)` and `tseq n io (tseq 1 k (tseq 1 k))`;
//! - [`tessera_layouts`]: those plus the mixed form Aetherling could not express (reference
//!   §7.1), parallel lanes *and* evenly spread invalid clocks in one layer:
//!   `tseq no 0 (tseq 1 ii (sseq ni))`, e.g. 12 atoms in 8 clocks as 3 lanes on every
//!   other clock, `(tseq 4 0 (tseq 1 1 (sseq 3 t)))`.

use crate::seq::program::Program;
use crate::seq::types::SeqType;
use crate::st::Layout;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// How one `seq` layer of length `n` is laid out.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LayerForm {
    /// `sseq n`: all elements in parallel.
    Space,
    /// `tseq n i`: one element per period, then `i` idle periods.
    Time { i: u64 },
    /// `tseq no io (sseq ni)` with `no * ni = n`.
    TimeSpace { no: u64, io: u64, ni: u64 },
    /// `tseq n0 i0 (tseq n1 i1 (...))` with the product of the `n`s equal to `n`.
    Nested(Vec<(u64, u64)>),
    /// `tseq no io (tseq 1 ii (sseq ni))`: lanes and spread-out idle clocks in one layer.
    Mixed { no: u64, io: u64, ii: u64, ni: u64 },
}

impl LayerForm {
    /// Wraps the element layout `inner` of a layer of length `n`.
    pub fn apply(&self, n: u64, inner: Layout) -> Layout {
        match self {
            LayerForm::Space => Layout::sseq(n, inner),
            LayerForm::Time { i } => Layout::tseq(n, *i, inner),
            LayerForm::TimeSpace { no, io, ni } => Layout::tseq(*no, *io, Layout::sseq(*ni, inner)),
            LayerForm::Nested(levels) => levels
                .iter()
                .rev()
                .fold(inner, |acc, (k, i)| Layout::tseq(*k, *i, acc)),
            LayerForm::Mixed { no, io, ii, ni } => {
                Layout::tseq(*no, *io, Layout::tseq(1, *ii, Layout::sseq(*ni, inner)))
            }
        }
    }

    /// Clocks per element of the layer (the layer's own slowdown).
    pub fn periods(&self, n: u64) -> u64 {
        match self {
            LayerForm::Space => 1,
            LayerForm::Time { i } => n + i,
            LayerForm::TimeSpace { no, io, .. } => no + io,
            LayerForm::Nested(levels) => levels.iter().map(|(k, i)| k + i).product(),
            LayerForm::Mixed { no, io, ii, .. } => (no + io) * (1 + ii),
        }
    }

    /// Lanes of the layer's elements in parallel (a layout's lanes are the product of its
    /// layers' and `stuple`s').
    fn lanes(&self, n: u64) -> u64 {
        match self {
            LayerForm::Space => n,
            LayerForm::TimeSpace { ni, .. } | LayerForm::Mixed { ni, .. } => *ni,
            LayerForm::Time { .. } | LayerForm::Nested(_) => 1,
        }
    }

    /// Aetherling's `rewrite_nesting_depth`, used to try simpler layouts first.
    fn depth(&self) -> usize {
        match self {
            LayerForm::Space | LayerForm::Time { .. } => 1,
            LayerForm::TimeSpace { .. } => 2,
            LayerForm::Nested(levels) => levels.len(),
            LayerForm::Mixed { .. } => 3,
        }
    }
}

/// Lengths of the `seq` layers of `t`, outermost first (`stuple` layers are not counted:
/// they always travel in parallel).
pub fn seq_layers(t: &SeqType) -> Vec<u64> {
    let mut out = Vec::new();
    let mut cur = t;
    loop {
        match cur {
            SeqType::Seq(n, e) => {
                out.push(*n);
                cur = e;
            }
            SeqType::STuple(_, e) => cur = e,
            _ => return out,
        }
    }
}

/// Builds the layout of `t` with one form per `seq` layer, outermost first.
pub fn build_layout<F: std::borrow::Borrow<LayerForm>>(t: &SeqType, forms: &[F]) -> Layout {
    match t {
        SeqType::Seq(n, e) => forms[0].borrow().apply(*n, build_layout(e, &forms[1..])),
        SeqType::STuple(n, e) => Layout::stuple(*n, build_layout(e, forms)),
        atom => Layout::from_atom_type(atom).expect("an atom type"),
    }
}

/// Aetherling's candidate output layouts for type `t` at slowdown `s` (reference §4.3),
/// simplest first.
pub fn aetherling_layouts(t: &SeqType, s: u64) -> Vec<Layout> {
    aetherling_forms(t, s).into_iter().map(|(_, l)| l).collect()
}

/// [`aetherling_layouts`] with the per-layer form of each candidate.
pub fn aetherling_forms(t: &SeqType, s: u64) -> Vec<(Vec<LayerForm>, Layout)> {
    enumerate(t, s, aetherling_layer_forms)
}

/// Tessera's candidates: Aetherling's plus the mixed forms, simplest first.
pub fn tessera_layouts(t: &SeqType, s: u64) -> Vec<Layout> {
    tessera_layouts_first(t, s, usize::MAX, u64::MAX)
}

/// Tessera's forms for a layer of length `n` over `s_l` clocks: Aetherling's, then the
/// mixed ones.
fn tessera_layer_forms(n: u64, s_l: u64) -> Vec<LayerForm> {
    let mut forms = aetherling_layer_forms(n, s_l);
    forms.extend(mixed_layer_forms(n, s_l));
    forms
}

/// The first `cap` of Tessera's candidates, simplest first; each layout is ranked by the
/// simplest per-layer forms that build it. Only the layouts returned are built: the
/// candidates are ranked by (total depth, split of `s` over the layers, choice of form per
/// layer), and [`Splits`] walks the splits of one depth lazily, pruned by the depths their
/// remaining layers can reach, so the first `cap` layouts are found without listing the
/// (at 1920x1080, hundreds of thousands of) splits or (possibly millions of) deeper
/// combinations. Layouts with more than `max_lanes` lanes are skipped.
pub fn tessera_layouts_first(t: &SeqType, s: u64, cap: usize, max_lanes: u64) -> Vec<Layout> {
    let mut splits = Splits::new(seq_layers(t), max_lanes);
    let Some((lowest, highest)) = splits.range(0, s) else {
        return Vec::new();
    };
    let mut seen: HashSet<Layout> = HashSet::new();
    let mut out = Vec::new();
    let mut visit = |combo: &[&LayerForm]| {
        let layout = build_layout(t, combo);
        debug_assert_eq!(layout.clocks(), s);
        if layout.lanes() <= max_lanes && seen.insert(layout.clone()) {
            out.push(layout);
        }
        out.len() < cap
    };
    for depth in lowest..=highest {
        if !splits.walk_depth(depth, s, &mut visit) {
            break;
        }
    }
    out
}

/// The splits of a slowdown over `seq` layers, in [`distributions`] order, with each
/// layer's forms (Aetherling's and the mixed ones) for its share of the clocks.
struct Splits {
    layers: Vec<u64>,
    /// The most lanes a layout may have.
    max_lanes: u64,
    /// By (layer `l`, clocks left for layers `l..`): the least and greatest total depth of
    /// the layers from `l` on over the splits of those clocks whose layers all have a form
    /// (`None`: no such split). It depends on the layers only, not on `max_lanes`, so it is
    /// taken from [`RANGES`] and put back when done.
    ranges: Ranges,
}

type FxMap<K, V> = HashMap<K, V, crate::util::fxhash::FxBuild>;

/// [`Splits::ranges`]' type.
type Ranges = FxMap<(usize, u64), Option<(usize, usize)>>;

/// A layer's forms for its share of the clocks ([`layer_forms`]), `None` if it has none.
type Forms = Option<Rc<LayerForms>>;

thread_local! {
    /// [`Splits::ranges`] by layer lengths: the candidates of every type with those layers
    /// (many values of a program share a shape) at every clock count share them. Worked
    /// out again for every candidate list, they were a sixth of the e-graph's time in
    /// demosaic's one-slowdown explore at 8294400.
    static RANGES: RefCell<FxMap<Vec<u64>, Ranges>> = Default::default();
    /// [`layer_forms`] by (layer length, clocks).
    static FORMS: RefCell<FxMap<(u64, u64), Forms>> = Default::default();
}

/// Tessera's forms of a layer for its share of the clocks, with what a walk prunes by.
struct LayerForms {
    forms: Rc<[LayerForm]>,
    /// The least and greatest depth of the forms.
    depth: (usize, usize),
    /// The fewest lanes of the forms.
    lanes: u64,
}

/// [`tessera_layer_forms`] of a layer of length `n` over `clocks` clocks, `None` if it has
/// none; one shared list per (length, clocks).
fn layer_forms(n: u64, clocks: u64) -> Forms {
    if let Some(f) = FORMS.with(|m| m.borrow().get(&(n, clocks)).cloned()) {
        return f;
    }
    let forms: Rc<[LayerForm]> = tessera_layer_forms(n, clocks).into();
    let depths = forms.iter().map(LayerForm::depth);
    let got = match (depths.clone().min(), depths.max()) {
        (Some(lo), Some(hi)) => Some(Rc::new(LayerForms {
            depth: (lo, hi),
            lanes: forms.iter().map(|f| f.lanes(n)).min().unwrap_or(1),
            forms,
        })),
        _ => None,
    };
    FORMS.with(|m| m.borrow_mut().insert((n, clocks), got.clone()));
    got
}

impl Splits {
    fn new(layers: Vec<u64>, max_lanes: u64) -> Splits {
        let ranges = RANGES
            .with(|m| m.borrow_mut().remove(&layers))
            .unwrap_or_default();
        Splits {
            layers,
            max_lanes,
            ranges,
        }
    }

    /// The least and greatest total depth of layers `l..` over the splits of `clocks`
    /// among them whose layers all have a form; `None` if there is none.
    fn range(&mut self, l: usize, clocks: u64) -> Option<(usize, usize)> {
        if l == self.layers.len() {
            return (clocks == 1).then_some((0, 0));
        }
        if let Some(r) = self.ranges.get(&(l, clocks)) {
            return *r;
        }
        let mut got: Option<(usize, usize)> = None;
        for d in divisors(clocks) {
            if let Some((_, (lo, hi))) = self.share(l, clocks, d) {
                got = Some(got.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            }
        }
        self.ranges.insert((l, clocks), got);
        got
    }

    /// Layer `l`'s forms for a share of `d` of the `clocks` left for layers `l..`, and the
    /// least and greatest total depth of the splits that give it that share; `None` if no
    /// split completes it.
    fn share(&mut self, l: usize, clocks: u64, d: u64) -> Option<(Rc<LayerForms>, (usize, usize))> {
        let f = layer_forms(self.layers[l], d)?;
        let (rlo, rhi) = self.range(l + 1, clocks / d)?;
        let total = (f.depth.0 + rlo, f.depth.1 + rhi);
        Some((f, total))
    }

    /// Visits, in order, every combination of total depth `depth` of every split of `s`;
    /// stops (returning false) when `visit` does.
    fn walk_depth(
        &mut self,
        depth: usize,
        s: u64,
        visit: &mut impl FnMut(&[&LayerForm]) -> bool,
    ) -> bool {
        let mut split = Vec::with_capacity(self.layers.len());
        self.walk_splits(depth, s, (0, 0), self.max_lanes, &mut split, visit)
    }

    /// The splits extending `split` (the forms of its layers, whose depths add up to
    /// between `reached.0` and `reached.1`, leaving at most `lanes` lanes to the layers
    /// after them) over `clocks` more.
    fn walk_splits(
        &mut self,
        depth: usize,
        clocks: u64,
        reached: (usize, usize),
        lanes: u64,
        split: &mut Vec<Rc<[LayerForm]>>,
        visit: &mut impl FnMut(&[&LayerForm]) -> bool,
    ) -> bool {
        let l = split.len();
        if l == self.layers.len() {
            let (lo, hi) = suffix_depths(split);
            let mut combo = Vec::with_capacity(l);
            let (layers, max_lanes) = (&self.layers, self.max_lanes);
            return walk(layers, split, &lo, &hi, depth, max_lanes, &mut combo, visit);
        }
        for d in divisors(clocks) {
            let Some((f, (lo, hi))) = self.share(l, clocks, d) else {
                continue;
            };
            if depth < reached.0 + lo || depth > reached.1 + hi || f.lanes > lanes {
                continue;
            }
            split.push(f.forms.clone());
            let next = (reached.0 + f.depth.0, reached.1 + f.depth.1);
            let go_on = self.walk_splits(depth, clocks / d, next, lanes / f.lanes, split, visit);
            split.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
}

impl Drop for Splits {
    /// Puts the ranges back for the next candidate list of the same layers.
    fn drop(&mut self) {
        let layers = std::mem::take(&mut self.layers);
        let ranges = std::mem::take(&mut self.ranges);
        // `try_with`: a Splits dropped while its thread ends has nowhere to return them
        let _ = RANGES.try_with(|m| m.borrow_mut().insert(layers, ranges));
    }
}

/// The least and greatest total depth of layers `l..` for every `l` (one extra 0 at the end).
fn suffix_depths(options: &[Rc<[LayerForm]>]) -> (Vec<usize>, Vec<usize>) {
    let mut lo = vec![0; options.len() + 1];
    let mut hi = vec![0; options.len() + 1];
    for l in (0..options.len()).rev() {
        let d = options[l].iter().map(LayerForm::depth);
        lo[l] = lo[l + 1] + d.clone().min().unwrap_or(0);
        hi[l] = hi[l + 1] + d.max().unwrap_or(0);
    }
    (lo, hi)
}

/// Visits, in order, every choice of one form per remaining layer (of the lengths
/// `layers`) whose depths add up to `left` and whose lanes multiply to at most `lanes`;
/// stops (returning false) when `visit` does.
#[allow(clippy::too_many_arguments)]
fn walk<'f>(
    layers: &[u64],
    options: &'f [Rc<[LayerForm]>],
    lo: &[usize],
    hi: &[usize],
    left: usize,
    lanes: u64,
    combo: &mut Vec<&'f LayerForm>,
    visit: &mut impl FnMut(&[&'f LayerForm]) -> bool,
) -> bool {
    let l = combo.len();
    if l == options.len() {
        return left != 0 || visit(combo);
    }
    for form in options[l].iter() {
        let d = form.depth();
        let f = form.lanes(layers[l]);
        if d > left || left - d < lo[l + 1] || left - d > hi[l + 1] || f > lanes {
            continue;
        }
        combo.push(form);
        let go_on = walk(layers, options, lo, hi, left - d, lanes / f, combo, visit);
        combo.pop();
        if !go_on {
            return false;
        }
    }
    true
}

/// Aetherling's enumeration: every combination in order, each layout kept at its first
/// occurrence, then ordered by depth.
fn enumerate(
    t: &SeqType,
    s: u64,
    per_layer: impl Fn(u64, u64) -> Vec<LayerForm>,
) -> Vec<(Vec<LayerForm>, Layout)> {
    let layers = seq_layers(t);
    let mut found: Vec<(usize, Vec<LayerForm>, Layout)> = Vec::new();
    let mut seen: HashSet<Layout> = HashSet::new();
    for split in distributions(s, layers.len()) {
        let options: Vec<Vec<LayerForm>> = layers
            .iter()
            .zip(&split)
            .map(|(n, s_l)| per_layer(*n, *s_l))
            .collect();
        for combo in cross(&options) {
            let depth = combo.iter().map(LayerForm::depth).sum();
            let layout = build_layout(t, &combo);
            debug_assert_eq!(layout.clocks(), s);
            if seen.insert(layout.clone()) {
                found.push((depth, combo, layout));
            }
        }
    }
    found.sort_by_key(|(d, _, _)| *d); // stable: keeps enumeration order within a depth
    found.into_iter().map(|(_, f, l)| (f, l)).collect()
}

/// The per-layer options of Aetherling's `rewrite_AST_type_given_slowdowns` for a layer of
/// length `n` slowed down by `s_l`.
pub fn aetherling_layer_forms(n: u64, s_l: u64) -> Vec<LayerForm> {
    if s_l == 1 {
        return vec![LayerForm::Space];
    }
    let no = divisors(n)
        .into_iter()
        .filter(|d| *d <= s_l)
        .max()
        .unwrap_or(1);
    let mut forms = vec![LayerForm::TimeSpace {
        no,
        io: s_l - no,
        ni: n / no,
    }];
    if s_l >= n {
        forms.push(LayerForm::Time { i: s_l - n });
        // The periods `n + io` that divide `s_l`, io ascending: the divisors of `s_l` from
        // `n` up (walking every io was most of a 1920x1080 schedule: s_l is in millions).
        let periods: Vec<u64> = divisors(s_l).into_iter().filter(|d| *d >= n).collect();
        for d in &periods {
            forms.push(LayerForm::Nested(vec![(n, d - n), (1, s_l / d - 1)]));
        }
        for d in &periods {
            let q = s_l / d;
            let k = integer_sqrt(q);
            if k * k == q {
                forms.push(LayerForm::Nested(vec![(n, d - n), (1, k - 1), (1, k - 1)]));
            }
        }
    }
    forms
}

/// Parallel lanes with evenly spread idle clocks: `no` periods of `s_l / no` clocks, each
/// carrying `ni` lanes on its first clock. Only where the spread is even and there is
/// more than one lane (one lane is Aetherling's nested form).
///
/// Forms with more than twice the lanes of the narrowest form that meets `s_l` are left
/// out: they pay for every lane of every operator on the value and buy only idle clocks,
/// and on a 1920x1080 frame they are reshapes buffering most of the frame (whose analysis
/// alone would dominate scheduling).
pub fn mixed_layer_forms(n: u64, s_l: u64) -> Vec<LayerForm> {
    let narrowest = divisors(n)
        .into_iter()
        .filter(|ni| n / ni <= s_l)
        .min()
        .unwrap_or(n);
    let mut forms = Vec::new();
    for ni in divisors(n) {
        let no = n / ni;
        if ni > 1 && ni <= 2 * narrowest && no < s_l && s_l.is_multiple_of(no) {
            forms.push(LayerForm::Mixed {
                no,
                io: 0,
                ii: s_l / no - 1,
                ni,
            });
        }
    }
    forms
}

/// The streaming layout of `t` over `s` clocks, if there is one: the clocks go to the
/// outermost layers first, each taking as many as divide both its length and the clocks
/// left (`tseq n 0`, `tseq g 0 (sseq n/g)`, or `sseq n` once no clocks are left), so every
/// clock is valid and the layout has exactly `atoms / s` lanes. Where the clocks do not
/// factor that way, the padded layout of `padded_streaming_layout`. This is how a frame
/// streams: rows over time, each window in space (Aetherling's layouts for a map body's
/// parameters follow its output this way).
pub fn streaming_layout(t: &SeqType, s: u64) -> Option<Layout> {
    let layers = seq_layers(t);
    let mut left = s;
    let mut forms = Vec::with_capacity(layers.len());
    for &n in &layers {
        let g = gcd(n, left);
        forms.push(if g == 1 {
            LayerForm::Space
        } else if g == n {
            LayerForm::Time { i: 0 }
        } else {
            LayerForm::TimeSpace {
                no: g,
                io: 0,
                ni: n / g,
            }
        });
        left /= g;
    }
    if left == 1 {
        return Some(build_layout(t, &forms));
    }
    padded_streaming_layout(&layers, s).map(|forms| build_layout(t, &forms))
}

/// Where the clocks do not factor over the layers (128 pixels in 144 clocks, 4 row pairs in
/// 9), the layout Aetherling streams in: the outer layers take the clocks that divide, then
/// the first layer that cannot takes its idle clocks at its end, as a time layer
/// (`tseq 32 4`: a row pair of 32 pixels in 36 clocks) or, if it is longer than the clocks
/// left, as its widest time split that fits (`tseq 8 1 (sseq 4)` for 32 elements in 9
/// clocks); the layers inside it are in space.
fn padded_streaming_layout(layers: &[u64], s: u64) -> Option<Vec<LayerForm>> {
    let mut left = s;
    let mut forms = Vec::with_capacity(layers.len());
    for &n in layers {
        if left == 1 {
            forms.push(LayerForm::Space);
        } else if left.is_multiple_of(n) {
            forms.push(LayerForm::Time { i: 0 });
            left /= n;
        } else {
            let no = divisors(n).into_iter().filter(|d| *d <= left).max()?;
            forms.push(if no == n {
                LayerForm::Time { i: left - n }
            } else if no == 1 {
                LayerForm::Space
            } else {
                LayerForm::TimeSpace {
                    no,
                    io: left - no,
                    ni: n / no,
                }
            });
            if no > 1 {
                left = 1;
            }
        }
    }
    (left == 1).then_some(forms)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Every way to write `s` as an ordered product of `k` factors (one per layer).
pub fn distributions(s: u64, k: usize) -> Vec<Vec<u64>> {
    if k == 0 {
        return if s == 1 { vec![Vec::new()] } else { Vec::new() };
    }
    let mut out = Vec::new();
    for d in divisors(s) {
        for mut rest in distributions(s / d, k - 1) {
            rest.insert(0, d);
            out.push(rest);
        }
    }
    out
}

fn cross(options: &[Vec<LayerForm>]) -> Vec<Vec<LayerForm>> {
    options.iter().fold(vec![Vec::new()], |acc, opts| {
        acc.iter()
            .flat_map(|prefix| {
                opts.iter().map(move |o| {
                    let mut v = prefix.clone();
                    v.push(o.clone());
                    v
                })
            })
            .collect()
    })
}

/// The divisors of `n`, ascending.
pub fn divisors(n: u64) -> Vec<u64> {
    // Trial division costs sqrt(n): at a slowdown near 2^28 with many divisors, the
    // layout enumeration asks for the same few hundred numbers thousands of times.
    thread_local! {
        static KNOWN: RefCell<HashMap<u64, Rc<[u64]>>> = Default::default();
    }
    KNOWN.with(|k| {
        k.borrow_mut()
            .entry(n)
            .or_insert_with(|| divisors_by_trial(n).into())
            .to_vec()
    })
}

fn divisors_by_trial(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    // `d <= n / d`, not `d * d <= n`: the square overflows for n near u64::MAX.
    while d <= n / d {
        if n.is_multiple_of(d) {
            small.push(d);
            if d * d != n {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

fn integer_sqrt(q: u64) -> u64 {
    let mut r = (q as f64).sqrt() as u64;
    while r * r > q {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= q {
        r += 1;
    }
    r
}

/// Clocks a value of type `t` needs when every `seq` layer is serialized (`stuple`
/// components stay parallel): the slowdown of its fully sequential layout.
pub fn sequential_clocks(t: &SeqType) -> u64 {
    match t {
        SeqType::Seq(n, e) => n.saturating_mul(sequential_clocks(e)),
        SeqType::STuple(_, e) => sequential_clocks(e),
        _ => 1,
    }
}

/// The slowdown of the fully sequential design with the least idle time: every node must
/// pass its whole value through one lane, so the largest value of the program sets it.
pub fn max_slowdown(p: &Program) -> u64 {
    p.scope(p.output)
        .into_iter()
        .map(|id| sequential_clocks(p.ty(id)))
        .max()
        .unwrap_or(1)
}

/// Errors unless a design can take `s` clocks per frame: at least 1, and at most
/// [`MAX_SIZE`](crate::st::layout::MAX_SIZE), the most clocks a layout may span. Checked
/// before any layout is enumerated, so an unusable slowdown costs nothing however large.
pub fn check_slowdown(s: u64) -> Result<(), String> {
    use crate::st::layout::MAX_SIZE;
    if s == 0 {
        return Err("the slowdown is a number of clocks: at least 1".into());
    }
    if s > MAX_SIZE {
        return Err(format!(
            "slowdown {s} is more clocks than a design may take per frame (at most {MAX_SIZE} = 2^28)"
        ));
    }
    Ok(())
}

/// The slowdowns `explore` tries by default: the divisors of [`max_slowdown`].
pub fn default_slowdowns(p: &Program) -> Vec<u64> {
    divisors(max_slowdown(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::types::ScalarType;

    fn seq_int(n: u64) -> SeqType {
        SeqType::seq(n, ScalarType::Int8.into())
    }

    fn texts(ls: &[Layout]) -> Vec<String> {
        ls.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn paper_conv1d_at_one_third_pixel_per_clock() {
        // Reference §4.3: Seq 8 Int at s = 24 gives exactly the paper's six layouts.
        let mut got = texts(&aetherling_layouts(&seq_int(8), 24));
        got.sort();
        let mut want = vec![
            "(tseq 8 16 int8)",
            "(tseq 8 0 (tseq 1 2 int8))",
            "(tseq 8 4 (tseq 1 1 int8))",
            "(tseq 8 16 (tseq 1 0 int8))",
            "(tseq 8 16 (tseq 1 0 (tseq 1 0 int8)))",
            "(tseq 8 16 (sseq 1 int8))",
        ];
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn hand_checked_small_cases() {
        assert_eq!(
            texts(&aetherling_layouts(&seq_int(4), 2)),
            vec!["(tseq 2 0 (sseq 2 int8))"]
        );
        assert_eq!(
            texts(&aetherling_layouts(&seq_int(4), 3)),
            vec!["(tseq 2 1 (sseq 2 int8))"]
        );
        assert_eq!(
            texts(&aetherling_layouts(&seq_int(4), 1)),
            vec!["(sseq 4 int8)"]
        );
        // Seq 12 at s = 5: TSeq 4 1 (SSeq 3) (reference §4.10).
        assert!(texts(&aetherling_layouts(&seq_int(12), 5))
            .contains(&"(tseq 4 1 (sseq 3 int8))".to_string()));
    }

    #[test]
    fn every_candidate_has_the_slowdown_and_the_type() {
        let t = SeqType::seq(4, SeqType::seq(6, ScalarType::UInt8.into()));
        for s in [1, 2, 3, 4, 6, 8, 12, 24, 48] {
            for l in tessera_layouts(&t, s) {
                assert_eq!(l.clocks(), s, "{l}");
                assert_eq!(l.to_seq().atoms(), t.atoms(), "{l}");
            }
        }
    }

    #[test]
    fn mixed_forms_spread_lanes() {
        let got = texts(&tessera_layouts(&seq_int(12), 8));
        assert!(
            got.contains(&"(tseq 4 0 (tseq 1 1 (sseq 3 int8)))".to_string()),
            "{got:?}"
        );
        assert!(!texts(&aetherling_layouts(&seq_int(12), 8))
            .contains(&"(tseq 4 0 (tseq 1 1 (sseq 3 int8)))".to_string()));
    }

    #[test]
    fn streaming_layout_streams_the_outer_layers() {
        let u = || SeqType::from(ScalarType::UInt32);
        // A 1920x1080 frame's pair of rows of 3x3 windows at 16 pixels per clock: the
        // windows in space, the rows over time. At most 4x the lanes (576) and the 12
        // simplest candidates (every one with 256-480 lanes, its windows over time) missed
        // it, so the camera's demosaic map had no parameter layout its body could take.
        let win = SeqType::seq(3840, SeqType::seq(3, SeqType::seq(3, u())));
        let want = "(tseq 240 0 (sseq 16 (sseq 3 (sseq 3 uint32))))";
        assert_eq!(streaming_layout(&win, 240).unwrap().to_string(), want);
        let first = texts(&tessera_layouts_first(&win, 240, 12, 576));
        assert!(!first.contains(&want.to_string()), "{first:?}");
        let frame = SeqType::seq(540, SeqType::seq(3840, u()));
        assert_eq!(
            streaming_layout(&frame, 129600).unwrap().to_string(),
            "(tseq 540 0 (tseq 240 0 (sseq 16 uint32)))"
        );
        // Where the clocks do not factor over the layers, the first layer that cannot take
        // them pads: 7 clocks for 540 rows (6 of them a clock, one clock idle); a 16x8
        // frame's 4 row pairs of 32 pixels in 144 clocks (a pair every 36 clocks, 4 idle);
        // the same in 9 clocks (a pair a clock, 5 idle).
        assert_eq!(
            streaming_layout(&frame, 7).unwrap().to_string(),
            "(tseq 6 1 (sseq 90 (sseq 3840 uint32)))"
        );
        let pairs = SeqType::seq(4, SeqType::seq(32, u()));
        assert_eq!(
            streaming_layout(&pairs, 144).unwrap().to_string(),
            "(tseq 4 0 (tseq 32 4 uint32))"
        );
        assert_eq!(
            streaming_layout(&pairs, 9).unwrap().to_string(),
            "(tseq 4 5 (sseq 32 uint32))"
        );
        assert_eq!(
            streaming_layout(&SeqType::seq(32, u()), 9)
                .unwrap()
                .to_string(),
            "(tseq 8 1 (sseq 4 uint32))"
        );
        // A layer longer than the clocks with no divisor that fits (a prime) stays in
        // space and the padding goes inside it.
        assert_eq!(
            streaming_layout(&SeqType::seq(7, SeqType::seq(4, u())), 6)
                .unwrap()
                .to_string(),
            "(sseq 7 (tseq 4 2 uint32))"
        );
        assert_eq!(
            streaming_layout(&seq_int(4), 1).unwrap().to_string(),
            "(sseq 4 int8)"
        );
    }

    #[test]
    fn layer_forms_match_the_walk_over_every_idle_count() {
        // Aetherling's enumeration as written: every io from 0 to s_l - n.
        fn walked(n: u64, s_l: u64) -> Vec<LayerForm> {
            let mut forms = aetherling_layer_forms(n, s_l);
            if s_l < n || s_l == 1 {
                return forms;
            }
            forms.truncate(2);
            for io in 0..=s_l - n {
                if s_l.is_multiple_of(n + io) {
                    forms.push(LayerForm::Nested(vec![(n, io), (1, s_l / (n + io) - 1)]));
                }
            }
            for io in 0..=s_l - n {
                if s_l.is_multiple_of(n + io) {
                    let q = s_l / (n + io);
                    let k = integer_sqrt(q);
                    if k * k == q {
                        forms.push(LayerForm::Nested(vec![(n, io), (1, k - 1), (1, k - 1)]));
                    }
                }
            }
            forms
        }
        for n in 1..=24 {
            for s_l in 1..=300 {
                assert_eq!(
                    aetherling_layer_forms(n, s_l),
                    walked(n, s_l),
                    "n {n}, s_l {s_l}"
                );
            }
        }
    }

    /// The ranking [`tessera_layouts_first`] walks lazily, listed in full: every split of
    /// `s` (in [`distributions`] order) whose layers all have forms, every combination of
    /// its forms, ordered by (total depth, split, forms), each layout at its first place.
    fn ranked_in_full(t: &SeqType, s: u64, cap: usize, max_lanes: u64) -> Vec<Layout> {
        let layers = seq_layers(t);
        let mut ranked: Vec<(usize, usize, Vec<LayerForm>)> = Vec::new();
        for (k, split) in distributions(s, layers.len()).into_iter().enumerate() {
            let options: Vec<Vec<LayerForm>> = layers
                .iter()
                .zip(&split)
                .map(|(n, s_l)| tessera_layer_forms(*n, *s_l))
                .collect();
            for combo in cross(&options) {
                let depth = combo.iter().map(LayerForm::depth).sum();
                ranked.push((depth, k, combo));
            }
        }
        ranked.sort_by_key(|(d, k, _)| (*d, *k)); // stable: forms in cross order
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for (_, _, combo) in ranked {
            let l = build_layout(t, &combo);
            if l.lanes() <= max_lanes && seen.insert(l.clone()) {
                out.push(l);
            }
        }
        out.truncate(cap);
        out
    }

    #[test]
    fn the_lazy_walk_finds_the_first_candidates_of_the_full_ranking() {
        let u = || SeqType::from(ScalarType::UInt8);
        let types = [
            seq_int(12),
            SeqType::seq(4, SeqType::seq(6, u())),
            SeqType::seq(2, SeqType::stuple(3, SeqType::seq(4, u()))),
            SeqType::seq(3, SeqType::seq(2, SeqType::seq(4, u()))),
            SeqType::seq(8, SeqType::seq(1, SeqType::seq(3, SeqType::seq(3, u())))),
            u(),
        ];
        for t in &types {
            for s in [1, 2, 3, 4, 5, 6, 8, 9, 12, 16, 24, 36, 48, 60, 96, 144] {
                for (cap, max_lanes) in [
                    (usize::MAX, u64::MAX),
                    (12, u64::MAX),
                    (usize::MAX, 6),
                    (5, 4),
                    (3, 1),
                ] {
                    assert_eq!(
                        texts(&tessera_layouts_first(t, s, cap, max_lanes)),
                        texts(&ranked_in_full(t, s, cap, max_lanes)),
                        "{t} at {s}, cap {cap}, {max_lanes} lanes"
                    );
                }
            }
        }
    }

    #[test]
    fn divisors_and_distributions() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), vec![1]);
        assert_eq!(
            distributions(4, 2),
            vec![vec![1, 4], vec![2, 2], vec![4, 1]]
        );
    }
}
