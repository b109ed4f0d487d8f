//! Least-area extraction from the stream graph and the design it denotes.
//!
//! Costs are the area model's: a node costs its own area, plus its body's cost times the
//! number of body copies it instantiates, plus its children's costs. The greedy extractor
//! computes, for every stream class, the least such cost by a Bellman-Ford style fixed point
//! (the graph has cycles: relabels in both directions, reshapes between views), choosing
//! the first cheapest node for ties; the nodes due in each round of that fixed point are kept
//! in bit sets over a compact copy of the graph ([`super::fixpoint`]). The chosen selection
//! is then built as a DAG: a class used twice in one scope is built once (its area paid
//! once), so the design's area is at most the extraction's tree cost.

use super::fixpoint::Due;
pub use super::fixpoint::Scan;
use super::graph::{emit, How, StreamGraph};
use crate::st::area::Weights;
use crate::st::design::BodyId;
use crate::st::{Design, Layout, NodeId as StId, StOp};
use crate::util::fxhash::FxBuild;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Hash maps keyed by class and node indices, hashed with Fx (SipHash showed in profiles).
type HashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
type HashSet<K> = std::collections::HashSet<K, FxBuild>;

/// Per class: the least cost and the node that achieves it.
pub type Choice = Vec<(f64, Option<usize>)>;

/// DAG-aware greedy choice per class (extraction-gym's "greedy DAG"): a node's cost is the
/// area of the union of the classes its chosen sub-DAG reaches (each paid once), so a
/// value shared by two consumers is not paid twice. Bodies are separate scopes: a body's
/// cost is its root's total, times the node's multiplicity. `input_ok(k, norm)` says
/// whether program input `k` may be declared in a layout of normal form `norm`.
pub fn choose(g: &StreamGraph, w: &Weights, input_ok: &dyn Fn(usize, &Layout) -> bool) -> Choice {
    choose_on(g, &Scan::new(g, w), input_ok)
}

/// [`choose`] over the scan of `g` under the weights ([`Chosen::scan`]): the choices of
/// one graph under different input constraints share it.
pub fn choose_on(
    g: &StreamGraph,
    scan: &Scan,
    input_ok: &dyn Fn(usize, &Layout) -> bool,
) -> Choice {
    choose_from(g, scan, input_ok, None).0
}

/// Persistent: a class's set is its first child's with a few classes added, sharing the
/// rest, so a chain of n classes holds n log n entries rather than n^2 / 2.
type Set = imbl::GenericHashMap<usize, f64, FxBuild, imbl::shared_ptr::DefaultSharedPtr>;

/// The per-class sets of a choice.
type Sets = Vec<Option<std::rc::Rc<Set>>>;

/// A finished [`choose`]: its choice, the sets behind it and how many nodes each class had,
/// so that a later choice over the same graph with nodes added ([`choose_more`]) starts from
/// it, and the graph's scan, for later choices over the same graph ([`choose_on`]).
pub struct Chosen {
    /// The choice per class.
    pub best: Choice,
    /// The scan of the graph it was chosen on.
    pub scan: Scan,
    sets: Sets,
    nodes: Vec<usize>,
    /// [`Chosen::fixing`]'s choices, by the normal forms they fix the inputs to.
    fixed: RefCell<HashMap<Vec<Option<Layout>>, Rc<Choice>>>,
}

impl Chosen {
    /// The choice over `g` (the graph this was chosen on) with each program input `k`
    /// declared only in a layout of the normal form `norms[k]`, where given. Every root of
    /// the graph that fixes its inputs alike gets the same choice, so it is extracted once
    /// per graph and constraint, not once per root.
    pub fn fixing(&self, g: &StreamGraph, norms: &[Option<Layout>]) -> Rc<Choice> {
        if let Some(c) = self.fixed.borrow().get(norms) {
            return c.clone();
        }
        let c = Rc::new(choose_on(g, &self.scan, &|k, norm| {
            input_fixed_to(norms, k, norm)
        }));
        self.fixed.borrow_mut().insert(norms.to_vec(), c.clone());
        c
    }
}

/// Whether program input `k` may be declared in a layout of the normal form `norm` when
/// each input `j` is fixed to the normal form `norms[j]` where given (free where not).
pub fn input_fixed_to(norms: &[Option<Layout>], k: usize, norm: &Layout) -> bool {
    norms
        .get(k)
        .and_then(Option::as_ref)
        .is_none_or(|f| f == norm)
}

/// [`choose`] with every input allowed, keeping what [`choose_more`] needs.
pub fn choose_all(g: &StreamGraph, w: &Weights) -> Chosen {
    choose_scan(g, Scan::new(g, w))
}

/// [`choose_all`] over a scan priced otherwise ([`Scan::priced`]), for a second selection
/// of the same graph under another cost.
pub fn choose_scan(g: &StreamGraph, scan: Scan) -> Chosen {
    let (best, sets, nodes) = choose_from(g, &scan, &|_, _| true, None);
    Chosen {
        best,
        scan,
        sets,
        nodes,
        fixed: Default::default(),
    }
}

/// [`choose_all`] after nodes were added to existing classes of the graph `before` was
/// chosen on: only the new nodes and what they improve are evaluated again. A node's cost
/// only falls when its children's do, so the earlier choice is where the fixed point resumes.
pub fn choose_more(g: &StreamGraph, w: &Weights, before: Chosen) -> Chosen {
    let scan = Scan::new(g, w);
    let (best, sets, nodes) = choose_from(g, &scan, &|_, _| true, Some(before));
    Chosen {
        best,
        scan,
        sets,
        nodes,
        fixed: Default::default(),
    }
}

fn choose_from(
    g: &StreamGraph,
    scan: &Scan,
    input_ok: &dyn Fn(usize, &Layout) -> bool,
    start: Option<Chosen>,
) -> (Choice, Sets, Vec<usize>) {
    use std::rc::Rc;
    let n = g.classes.len();
    let nodes: Vec<usize> = g.classes.iter().map(|c| c.nodes.len()).collect();
    let (mut best, mut sets, old) = match start {
        Some(c) if c.best.len() == n => (c.best, c.sets, Some(c.nodes)),
        _ => (vec![(f64::INFINITY, None); n], vec![None; n], None),
    };
    // The fixed point is the one of rounds that scan every class from the last to the
    // first and each class's nodes in order, evaluating a node when a child or its body
    // changed since the node was last evaluated (within the round or in the one before),
    // for at most `last` + 1 rounds. A node's result depends only on its children's and
    // body's choices (and its class's best, which only falls), so evaluating it again with
    // none of them changed changes nothing: `due` holds exactly the nodes such a scan
    // would change anything with, and they are evaluated in the scan's order.
    let last = n.min(200);
    let mut due = Due::new(scan.node_count());
    for (i, &(ci, ni)) in scan.at.iter().enumerate() {
        if old.as_ref().is_none_or(|o| ni >= o[ci]) {
            due.now(i);
        }
    }
    for _round in 0..=last {
        while let Some(i) = due.pop() {
            let (ci, ni) = scan.at[i];
            let kid_classes = scan.kids(i);
            'node: {
                if let Some(k) = scan.input[i] {
                    if !input_ok(k, &g.classes[ci].key.norm) {
                        break 'node;
                    }
                }
                let mut mine = scan.own[i];
                if let Some((b, mult)) = scan.body[i] {
                    mine += best[b].0 * mult as f64;
                }
                if !mine.is_finite() {
                    break 'node;
                }
                // Union of the children's sets, starting from the largest.
                let mut kids: Vec<&Rc<Set>> = Vec::with_capacity(kid_classes.len());
                for k in kid_classes {
                    match &sets[*k as usize] {
                        Some(s) => kids.push(s),
                        None => break 'node,
                    }
                }
                kids.sort_by_key(|s| std::cmp::Reverse(s.len()));
                let mut total = mine;
                // The classes the other children add to the first child's set, in the
                // order met; the union itself is only built for a node that improves.
                let mut extra: Vec<(usize, f64)> = Vec::new();
                if let Some(first) = kids.first() {
                    if first.contains_key(&ci) {
                        break 'node;
                    }
                    total += best[kid_classes
                        .iter()
                        .map(|k| *k as usize)
                        .find(|k| sets[*k].as_ref().is_some_and(|s| Rc::ptr_eq(s, first)))
                        .unwrap_or(kid_classes[0] as usize)]
                    .0;
                    let mut met: HashSet<usize> = HashSet::default();
                    for s in &kids[1..] {
                        for (k, v) in s.iter() {
                            if *k == ci {
                                break 'node;
                            }
                            if !first.contains_key(k) && met.insert(*k) {
                                total += v;
                                extra.push((*k, *v));
                            }
                        }
                    }
                }
                if total + 1e-9 < best[ci].0 {
                    let mut u = kids.first().map(|f| (***f).clone()).unwrap_or_default();
                    u.extend(extra);
                    u.insert(ci, mine);
                    best[ci] = (total, Some(ni));
                    sets[ci] = Some(Rc::new(u));
                    for r in scan.readers(ci) {
                        due.after(*r as usize, i);
                    }
                }
            }
        }
        if !due.next_round() {
            break;
        }
    }
    (best, sets, nodes)
}

/// The normal forms each program input is used in by the selection rooted at `root`.
pub fn used_inputs(g: &StreamGraph, choice: &Choice, root: usize) -> BTreeMap<usize, Vec<Layout>> {
    let mut out: BTreeMap<usize, Vec<Layout>> = BTreeMap::new();
    let mut seen = vec![false; g.classes.len()];
    let mut stack = vec![root];
    while let Some(c) = stack.pop() {
        if std::mem::replace(&mut seen[c], true) {
            continue;
        }
        let Some(ni) = choice[c].1 else { continue };
        let nd = &g.classes[c].nodes[ni];
        if let How::Input(k) = *nd.how {
            let v = out.entry(k).or_default();
            if !v.contains(&nd.out) {
                v.push((*nd.out).clone());
            }
        }
        stack.extend(nd.kids.iter().map(|(k, _)| *k));
        if let Some((b, _, _)) = &nd.body {
            stack.push(*b);
        }
    }
    out
}

/// Builds the design of the selection.
pub struct Builder<'g, 'a> {
    g: &'g StreamGraph<'a>,
    choice: &'g Choice,
    /// The design under construction.
    pub d: Design,
    inputs: Vec<StId>,
    bodies: HashMap<(usize, Vec<Layout>, Layout), BodyId>,
}

impl<'g, 'a> Builder<'g, 'a> {
    /// A builder whose design declares the inputs `inputs` (name, layout) in order.
    pub fn new(
        g: &'g StreamGraph<'a>,
        choice: &'g Choice,
        name: &str,
        inputs: &[(String, Layout)],
    ) -> Result<Self, String> {
        let mut d = Design::new(name);
        let mut ids = Vec::new();
        for (n, l) in inputs {
            ids.push(d.add_input(n.clone(), l.clone())?);
        }
        Ok(Builder {
            g,
            choice,
            d,
            inputs: ids,
            bodies: HashMap::default(),
        })
    }

    /// `id` in exactly layout `want` (a wiring reshape if only the normal forms agree).
    fn fix(&mut self, id: StId, want: &Layout) -> Result<StId, String> {
        let got = self.d.layout(id).clone();
        if got == *want {
            return Ok(id);
        }
        self.d.add(
            StOp::Reshape {
                from: got,
                to: want.clone(),
            },
            &[id],
        )
    }

    /// Builds class `c` in the current scope (arguments `args`).
    ///
    /// Iterative (a chain of thousands of operators is as deep as it is long), with the
    /// recursive order of effects: each child is built, then fixed to its layout, before the
    /// next child.
    pub fn build(
        &mut self,
        c: usize,
        memo: &mut HashMap<usize, StId>,
        args: &[StId],
    ) -> Result<StId, String> {
        /// A class being built: its chosen node and the children fixed so far.
        struct Frame {
            c: usize,
            ni: usize,
            kids: Vec<StId>,
        }
        let g = self.g;
        let mut stack: Vec<Frame> = Vec::new();
        // The class to visit next (`None`: continue the top frame).
        let mut visit = Some(c);
        loop {
            // The class finished on this step and its design node.
            let (c, id) = if let Some(c) = visit.take() {
                let done = match memo.get(&c) {
                    Some(id) => Some(*id),
                    None => {
                        let ni = self.choice[c]
                            .1
                            .ok_or_else(|| format!("stream class {c} has no finite-cost node"))?;
                        match &*g.classes[c].nodes[ni].how {
                            How::Input(k) => {
                                Some(*self.inputs.get(*k).ok_or("input out of range")?)
                            }
                            How::Arg(k, _) => {
                                Some(*args.get(usize::from(*k)).ok_or("argument out of range")?)
                            }
                            _ => {
                                stack.push(Frame {
                                    c,
                                    ni,
                                    kids: Vec::new(),
                                });
                                None
                            }
                        }
                    }
                };
                match done {
                    Some(id) => (c, id),
                    None => continue,
                }
            } else {
                let top = stack.last().expect("a frame to continue");
                let nd = &g.classes[top.c].nodes[top.ni];
                if top.kids.len() < nd.kids.len() {
                    visit = Some(nd.kids[top.kids.len()].0);
                    continue;
                }
                let Frame { c, kids, .. } = stack.pop().expect("a frame");
                let body = match &nd.body {
                    Some((b, params, root)) => Some(self.build_body(*b, params, root)?),
                    None => None,
                };
                (c, emit(&mut self.d, &nd.how, &kids, body)?)
            };
            memo.insert(c, id);
            match stack.last_mut() {
                Some(top) => {
                    let want = &g.classes[top.c].nodes[top.ni].kids[top.kids.len()].1;
                    let fixed = self.fix(id, want)?;
                    top.kids.push(fixed);
                }
                None => return Ok(id),
            }
        }
    }

    fn build_body(&mut self, b: usize, params: &[Layout], root: &Layout) -> Result<BodyId, String> {
        let key = (b, params.to_vec(), root.clone());
        if let Some(id) = self.bodies.get(&key) {
            return Ok(*id);
        }
        let mut args = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let k = u8::try_from(k).map_err(|_| "too many parameters")?;
            args.push(self.d.add_arg(k, p.clone())?);
        }
        let mut memo = HashMap::default();
        let r = self.build(b, &mut memo, &args)?;
        let r = self.fix(r, root)?;
        let id = self.d.add_body(params.to_vec(), r)?;
        self.bodies.insert(key, id);
        Ok(id)
    }

    /// Builds the top-level class `root` as the output, in exactly layout `out`.
    pub fn finish(mut self, root: usize, out: &Layout) -> Result<Design, String> {
        let mut memo = HashMap::default();
        let r = self.build(root, &mut memo, &[])?;
        let r = self.fix(r, out)?;
        self.d.set_output(r)?;
        Ok(self.d)
    }
}

/// The DAG cost of the selection rooted at `root`: within one scope every class is paid
/// once; a body is paid once per hardware copy (times the node's multiplicity). Infinite
/// if the selection is cyclic or reaches a class without a choice.
pub fn dag_cost(g: &StreamGraph, choice: &Choice, root: usize, w: &Weights) -> f64 {
    dag_cost_in(g, choice, root, w, &mut Marks::default())
}

/// Per scope depth, the DFS state of every class (0: unvisited, 1: in progress, 2: done),
/// all zero between calls. [`improve`] costs thousands of selections of one graph; one
/// hash map per scope and call was a tenth of `explore`'s instructions.
#[derive(Default)]
struct Marks(Vec<Vec<u8>>, usize);

fn dag_cost_in(g: &StreamGraph, choice: &Choice, root: usize, w: &Weights, m: &mut Marks) -> f64 {
    DagCost {
        g,
        choice,
        w,
        body_memo: HashMap::default(),
        marks: m,
    }
    .scope(root, 0)
}

/// One DAG cost computation: the selection, and each body's cost once computed.
struct DagCost<'a> {
    g: &'a StreamGraph<'a>,
    choice: &'a Choice,
    w: &'a Weights,
    body_memo: HashMap<usize, f64>,
    marks: &'a mut Marks,
}

impl DagCost<'_> {
    /// The cost of the scope (the top level or a body) rooted at `root`, at nesting `depth`.
    fn scope(&mut self, root: usize, depth: usize) -> f64 {
        if depth > 64 {
            return f64::INFINITY;
        }
        // A body scope nested in this one uses the next depth's marks: the same class may
        // be in both when two bodies share a context.
        if self.marks.0.len() <= depth {
            self.marks.0.resize_with(depth + 1, Vec::new);
        }
        let mut state = std::mem::take(&mut self.marks.0[depth]);
        state.resize(self.g.classes.len(), 0);
        let mut touched = Vec::new();
        let total = self.dfs(root, depth, &mut state, &mut touched);
        self.marks.1 += touched.len();
        for c in touched {
            state[c] = 0;
        }
        self.marks.0[depth] = state;
        total
    }

    fn dfs(
        &mut self,
        root: usize,
        depth: usize,
        state: &mut [u8],
        touched: &mut Vec<usize>,
    ) -> f64 {
        let mut total = 0.0;
        // Iterative DFS with explicit enter/exit to detect cycles.
        let mut stack = Vec::with_capacity(64);
        stack.push((root, false));
        while let Some((c, exit)) = stack.pop() {
            if exit {
                state[c] = 2;
                continue;
            }
            match state[c] {
                2 => continue,
                1 => return f64::INFINITY,
                _ => {}
            }
            let Some(ni) = self.choice[c].1 else {
                return f64::INFINITY;
            };
            state[c] = 1;
            touched.push(c);
            stack.push((c, true));
            let nd = &self.g.classes[c].nodes[ni];
            total += nd.own.scalar(self.w);
            if let Some((b, _, _)) = &nd.body {
                let bc = match self.body_memo.get(b) {
                    Some(v) => *v,
                    None => {
                        let v = self.scope(*b, depth + 1);
                        self.body_memo.insert(*b, v);
                        v
                    }
                };
                total += bc * nd.mult as f64;
            }
            for (k, _) in &nd.kids {
                match state[*k] {
                    2 => {}
                    1 => return f64::INFINITY,
                    _ => stack.push((*k, false)),
                }
            }
        }
        total
    }
}

/// Classes reachable from `root` under the selection (all scopes), in visit order.
pub(super) fn reachable(g: &StreamGraph, choice: &Choice, root: usize) -> Vec<usize> {
    let mut seen = vec![false; g.classes.len()];
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(c) = stack.pop() {
        if std::mem::replace(&mut seen[c], true) {
            continue;
        }
        out.push(c);
        let Some(ni) = choice[c].1 else { continue };
        let nd = &g.classes[c].nodes[ni];
        stack.extend(nd.kids.iter().rev().map(|(k, _)| *k));
        if let Some((b, _, _)) = &nd.body {
            stack.push(*b);
        }
    }
    out
}

/// The classes [`improve`] may visit in its DAG-cost walks (or 64 walks of the whole
/// selection, if more).
pub const IMPROVE_BUDGET: usize = 20_000_000;

/// DAG-aware improvement of a greedy selection: switches one class at a time to another
/// of its nodes (whose unselected descendants follow the greedy choice) when that lowers
/// the DAG cost; repeats until no switch helps (at most `passes` rounds).
pub fn improve(
    g: &StreamGraph,
    choice: &mut Choice,
    root: usize,
    w: &Weights,
    input_ok: &dyn Fn(usize, &Layout) -> bool,
    passes: usize,
) -> f64 {
    let mut marks = Marks::default();
    let mut best = dag_cost_in(g, choice, root, w, &mut marks);
    // Every candidate costs a walk of the whole selection, so the rounds are quadratic in
    // its size: past a budget of classes visited (a count, so the result stays the same run
    // to run) the selection is kept as it is. Every app of examples/ stays far below it; a
    // chain of thousands of operators reaches it.
    let budget = IMPROVE_BUDGET.max(marks.1 * 64);
    for _ in 0..passes {
        let mut improved = false;
        for c in reachable(g, choice, root) {
            let Some(cur) = choice[c].1 else { continue };
            for alt in 0..g.classes[c].nodes.len() {
                if alt == cur || choice[c].1 != Some(cur) {
                    continue;
                }
                let nd = &g.classes[c].nodes[alt];
                if let How::Input(k) = *nd.how {
                    if !input_ok(k, &g.classes[c].key.norm) {
                        continue;
                    }
                }
                if nd.kids.iter().any(|(k, _)| !choice[*k].0.is_finite())
                    || nd
                        .body
                        .as_ref()
                        .is_some_and(|(b, _, _)| !choice[*b].0.is_finite())
                {
                    continue;
                }
                if marks.1 > budget {
                    return best;
                }
                choice[c].1 = Some(alt);
                let cost = dag_cost_in(g, choice, root, w, &mut marks);
                if cost + 1e-9 < best {
                    best = cost;
                    improved = true;
                    break;
                }
                choice[c].1 = Some(cur);
            }
        }
        if !improved {
            break;
        }
    }
    best
}
