//! One generator per space-time operator, and the modules of a design: one Verilog module
//! per function body (instantiated once per hardware instance: `n` times under `map_s n`,
//! `n-1` times under `reduce_s n`, once under the time operators) and the top module.
//!
//! Every node's output is one flat vector `n<id>` (lane 0 in the low bits), so the Verilog
//! reads like the design. Timing follows [`crate::st::sim`] exactly: each node starts its
//! latency ([`crate::st::latency`]) after its scope, and counts its phase from then.

use super::atoms::{atom_expr, Consts};
use super::dont_care::dont_care_lanes;
use super::encode::atom_lit;
use super::movement::gen_move;
use super::netlist::{ident, Dir, Expr, Module, Sig};
use super::scope::{Scope, Storage};
use super::RtlOptions;
use crate::seq::value::Value;
use crate::st::known::{generator_lanes, movement_lanes, Known};
use crate::st::latency::LatencyReport;
use crate::st::perm::Perm;
use crate::st::stream::flatten;
use crate::st::{BodyId, Design, Layout, NodeId, StOp};
use std::collections::{BTreeMap, HashMap};

/// What the generator built for one node of one scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    /// The module (scope) holding it.
    pub module: String,
    /// The node.
    pub node: NodeId,
    /// The operator, as printed in `.st` files.
    pub op: String,
    /// The generator used (`wiring`, `delay-taps`, `perm-buffer`, `atom`, ...).
    pub generator: &'static str,
    /// Storage it instantiated (per module, not multiplied by instances).
    pub storage: Storage,
}

/// A body with the known lanes of its parameters and whether it runs under a clock
/// enable (inside a `stall`): one module variant each.
type BodyKey = (BodyId, Vec<Vec<Known>>, bool);

/// Builds every module of a (latency-aligned) design.
pub struct Emitter<'d> {
    d: &'d Design,
    lat: &'d LatencyReport,
    opts: &'d RtlOptions,
    prefix: String,
    /// Body modules by (body, known parameter lanes): module name and known result lanes.
    bodies: HashMap<BodyKey, (String, Vec<Known>)>,
    variants: BTreeMap<BodyId, usize>,
    /// Modules in emission order (bodies before their users, the top last).
    pub modules: Vec<Module>,
    /// Per node and scope, what was generated.
    pub nodes: Vec<NodeInfo>,
}

impl<'d> Emitter<'d> {
    /// An emitter; `prefix` names the modules.
    pub fn new(
        d: &'d Design,
        lat: &'d LatencyReport,
        opts: &'d RtlOptions,
        prefix: String,
    ) -> Emitter<'d> {
        Emitter {
            d,
            lat,
            opts,
            prefix,
            bodies: HashMap::new(),
            variants: BTreeMap::new(),
            modules: Vec::new(),
            nodes: Vec::new(),
        }
    }

    fn node_lat(&self, id: NodeId) -> Result<u64, String> {
        self.lat.node[id.index()].ok_or_else(|| format!("internal error: node {id} has no latency"))
    }

    /// The module of body `b` whose parameters have the `known` constant lanes, emitted on
    /// first use (one variant per distinct knowledge), and the known lanes of its result.
    /// With `ce` it is the variant with a clock enable (a `stall`'s body or a module inside
    /// one), named with a `_ce` suffix.
    fn body_module(
        &mut self,
        b: BodyId,
        known: Vec<Vec<Known>>,
        ce: bool,
    ) -> Result<(String, Vec<Known>), String> {
        let key = (b, known, ce);
        if let Some(n) = self.bodies.get(&key) {
            return Ok(n.clone());
        }
        let known = key.1.clone();
        let body = self.d.body(b).clone();
        let plain = known.iter().flatten().all(Known::is_unknown);
        let name = if plain {
            format!("{}_f{}", self.prefix, b.index())
        } else {
            let v = self.variants.entry(b).or_insert(0);
            *v += 1;
            format!("{}_f{}_k{}", self.prefix, b.index(), *v)
        };
        let name = if ce { format!("{name}_ce") } else { name };
        let mut m = Module::new(name.clone());
        m.doc(format!(
            "function body f{}: ({}) -> {}, latency {}",
            b.index(),
            body.params
                .iter()
                .map(Layout::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            self.d.layout(body.root),
            self.lat.body[b.index()].unwrap_or(0)
        ));
        if !plain {
            m.doc("variant for parameter lanes known to be constant (those ports are unread)");
        }
        m.port(Dir::In, "clk", 1);
        if ce {
            m.doc("variant with a clock enable: its registers hold while ce is low");
            m.clock_enable();
        }
        let start = m.port(Dir::In, "start", 1);
        let params: Vec<Sig> = body
            .params
            .iter()
            .enumerate()
            .map(|(k, p)| m.port(Dir::In, format!("a{k}"), width(p)))
            .collect();
        let out = m.port(Dir::Out, "o", width(self.d.layout(body.root)));
        let mut sc = Scope::new(m, start);
        let (vals, know) = self.gen_scope(&mut sc, body.root, &params, &known, &name, false)?;
        sc.m.assign(&out, vals[&body.root].e());
        self.modules.push(sc.finish());
        let result = (name, know[&body.root].clone());
        self.bodies.insert(key, result.clone());
        Ok(result)
    }

    /// Emits the top module: `clk`, `valid_in`, one port per input lane, `valid_out`, one
    /// port per output lane.
    pub fn top(&mut self, doc: &[String]) -> Result<String, String> {
        let d = self.d;
        let name = self.prefix.clone();
        let mut m = Module::new(name.clone());
        for line in doc {
            m.doc(line.clone());
        }
        m.port(Dir::In, "clk", 1);
        let start = m.port(Dir::In, "valid_in", 1);
        let mut in_ports = Vec::new();
        for i in &d.inputs {
            let w = i.layout.atom_bits() as u32;
            let lanes: Vec<Sig> = (0..i.layout.lanes())
                .map(|k| m.port(Dir::In, format!("in_{}_{k}", ident(&i.name)), w))
                .collect();
            in_ports.push(lanes);
        }
        let valid_out = m.port(Dir::Out, "valid_out", 1);
        let ol = d.output_layout().clone();
        let ow = ol.atom_bits() as u32;
        let out_ports: Vec<Sig> = (0..ol.lanes())
            .map(|k| m.port(Dir::Out, format!("out_{k}"), ow))
            .collect();
        let mut sc = Scope::new(m, start);
        // inputs become node vectors first, so the scope's nodes can read them
        let mut inputs = Vec::new();
        for (i, lanes) in d.inputs.iter().zip(&in_ports) {
            let parts: Vec<Expr> = lanes.iter().rev().map(Sig::e).collect();
            let nm = sc.fresh(&format!("in_{}", ident(&i.name)));
            let v = sc.m.wire_eq(nm, Expr::concat(&parts));
            inputs.push(v);
        }
        let root = d.output();
        let unknown: Vec<Vec<Known>> = d
            .inputs
            .iter()
            .map(|i| vec![Known::Unknown; i.layout.lanes() as usize])
            .collect();
        let (vals, _) = self.gen_scope(&mut sc, root, &inputs, &unknown, &name, true)?;
        let out = &vals[&root];
        let dont_care = if self.opts.prune_dont_care {
            dont_care_lanes(d)
        } else {
            vec![false; out_ports.len()]
        };
        for (k, p) in out_ports.iter().enumerate() {
            if dont_care[k] {
                sc.m.comment(format!(
                    "{}: don't-care on every valid clock (driven 0, its logic removed)",
                    p.name
                ));
                sc.m.assign(p, Expr::lit(0, ow));
            } else {
                sc.m.assign(p, out.bits(k as u32 * ow, ow));
            }
        }
        // valid_out: the output has started and this clock of its period is valid
        let lat = self.node_lat(root)?;
        let pattern = sc.valid_phase("out_pattern", lat, &ol);
        let st = sc.started(lat);
        sc.m.assign(&valid_out, Expr::and(&st, &pattern));
        self.modules.push(sc.finish());
        Ok(name)
    }

    /// Generates the nodes computing `root` in scope `sc`; `args` are the scope's inputs
    /// (design inputs at the top, parameters in a body), `args_known` their known lanes.
    /// Returns every node's vector and known lanes.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn gen_scope(
        &mut self,
        sc: &mut Scope,
        root: NodeId,
        args: &[Sig],
        args_known: &[Vec<Known>],
        module: &str,
        top: bool,
    ) -> Result<(HashMap<NodeId, Sig>, HashMap<NodeId, Vec<Known>>), String> {
        let d = self.d;
        // the top scope also holds unused inputs
        let ids = if top { d.top_scope() } else { d.scope(root) };
        let mut vals: HashMap<NodeId, Sig> = HashMap::new();
        let mut know: HashMap<NodeId, Vec<Known>> = HashMap::new();
        for id in ids {
            sc.storage = Storage::default();
            let node = d.node(id);
            let name = format!("n{}", id.index());
            sc.m.comment(format!("{name} = {} : {}", node.op, d.layout(id)));
            let (sig, generator, k) =
                self.gen_node(sc, id, &name, (args, args_known), (&vals, &know))?;
            know.insert(id, k);
            self.nodes.push(NodeInfo {
                module: module.to_string(),
                node: id,
                op: node.op.to_string(),
                generator,
                storage: sc.storage,
            });
            vals.insert(id, sig);
        }
        Ok((vals, know))
    }

    #[allow(clippy::type_complexity)]
    fn gen_node(
        &mut self,
        sc: &mut Scope,
        id: NodeId,
        name: &str,
        (args, args_known): (&[Sig], &[Vec<Known>]),
        (vals, know): (&HashMap<NodeId, Sig>, &HashMap<NodeId, Vec<Known>>),
    ) -> Result<(Sig, &'static str, Vec<Known>), String> {
        let d = self.d;
        let node = d.node(id);
        let layout = d.layout(id).clone();
        let arg = |k: usize| -> Sig { vals[&node.args[k]].clone() };
        let kn = |k: usize| -> &Vec<Known> { &know[&node.args[k]] };
        let unknown = || vec![Known::Unknown; layout.lanes() as usize];
        let wire = |sc: &mut Scope, e: Expr| sc.m.wire_eq(name.to_string(), e);
        // bodies instantiated in a clock-enabled module hold with it
        let ce = sc.m.ce().is_some();
        Ok(match &node.op {
            StOp::Input(k) => (wire(sc, args[*k].e()), "input", args_known[*k].clone()),
            StOp::Arg(k, _) => {
                let k = usize::from(*k);
                (wire(sc, args[k].e()), "parameter", args_known[k].clone())
            }
            StOp::Const {
                value,
                layout: l,
                delay,
            } => {
                let atoms = flatten(value, &l.to_seq());
                let k = generator_lanes(l, &atoms);
                (self.gen_table(sc, name, l, &atoms, *delay), "constant", k)
            }
            StOp::Counter {
                layout: l,
                incr,
                delay,
            } => {
                let mask = match l.atom() {
                    Layout::Scalar(s) => s.mask(),
                    _ => u64::MAX,
                };
                let atoms: Vec<Value> = (0..l.atoms())
                    .map(|e| Value::Scalar(e.wrapping_mul(*incr) & mask))
                    .collect();
                let k = generator_lanes(l, &atoms);
                (self.gen_table(sc, name, l, &atoms, *delay), "counter", k)
            }
            StOp::Atom(a) => {
                let x = arg(0);
                let (l, r) = kn(0)[0].parts();
                let konst: Consts = (l.scalar(), r.scalar());
                let e = atom_expr(sc, *a, d.layout(node.args[0]), &x, konst, name)?;
                (wire(sc, e), "atom", unknown())
            }
            StOp::ATuple => (
                wire(sc, Expr::concat(&[arg(0).e(), arg(1).e()])),
                "wiring",
                vec![Known::pair(&kn(0)[0], &kn(1)[0])],
            ),
            StOp::STuple | StOp::STupleAppend => {
                let k = kn(0).iter().chain(kn(1)).cloned().collect();
                let e = Expr::concat(&[arg(1).e(), arg(0).e()]);
                (wire(sc, e), "wiring", k)
            }
            StOp::MapS { n, body } | StOp::Map2S { n, body } => {
                let start = sc.started(self.node_lat(node.args[0])?);
                let ow = width(d.layout(d.body(*body).root));
                let mut outs = Vec::new();
                let mut out_known = Vec::new();
                for j in 0..*n as usize {
                    let slices: Vec<Vec<Known>> = (0..node.args.len())
                        .map(|k| {
                            let l = kn(k).len() / *n as usize;
                            kn(k)[j * l..(j + 1) * l].to_vec()
                        })
                        .collect();
                    let (module, ok) = self.body_module(*body, slices, ce)?;
                    out_known.extend(ok);
                    let j = j as u32;
                    let o = sc.m.wire(format!("{name}_i{j}"), ow);
                    let mut conns = clocks(sc, None);
                    conns.push(("start".to_string(), start.clone()));
                    for k in 0..node.args.len() {
                        let a = arg(k);
                        let w = a.width / *n as u32;
                        conns.push((format!("a{k}"), a.bits(j * w, w)));
                    }
                    conns.push(("o".to_string(), o.e()));
                    sc.m.instance(&module, &format!("u{}_{j}", id.index()), &conns);
                    outs.push(o.e());
                }
                outs.reverse();
                (wire(sc, Expr::concat(&outs)), "map-instances", out_known)
            }
            StOp::MapT { body, .. } | StOp::Map2T { body, .. } => {
                let all: Vec<Vec<Known>> = (0..node.args.len()).map(|k| kn(k).clone()).collect();
                let (module, out_known) = self.body_module(*body, all, ce)?;
                let start = sc.started(self.node_lat(node.args[0])?);
                let o = sc.m.wire(name.to_string(), width(&layout));
                let mut conns = clocks(sc, None);
                conns.push(("start".to_string(), start));
                for k in 0..node.args.len() {
                    conns.push((format!("a{k}"), arg(k).e()));
                }
                conns.push(("o".to_string(), o.e()));
                sc.m.instance(&module, &format!("u{}", id.index()), &conns);
                (o, "map-instance", out_known)
            }
            StOp::Stall { body, idle, .. } => {
                let all: Vec<Vec<Known>> = (0..node.args.len()).map(|k| kn(k).clone()).collect();
                let (module, out_known) = self.body_module(*body, all, true)?;
                let lat = self.node_lat(node.args[0])?;
                let start = sc.started(lat);
                let en = super::stall::body_enable(
                    sc,
                    name,
                    lat,
                    d.layout(d.body(*body).root).clocks(),
                    *idle,
                );
                let o = sc.m.wire(name.to_string(), width(&layout));
                let mut conns = clocks(sc, Some(en));
                conns.push(("start".to_string(), start));
                for k in 0..node.args.len() {
                    conns.push((format!("a{k}"), arg(k).e()));
                }
                conns.push(("o".to_string(), o.e()));
                sc.m.instance(&module, &format!("u{}", id.index()), &conns);
                (o, "stall-instance", out_known)
            }
            StOp::ReduceS { n, body, regs } => {
                let x = arg(0);
                let w = width(&layout);
                if *n == 1 {
                    return Ok((wire(sc, x.e()), "wiring", kn(0).clone()));
                }
                let in_lat = self.node_lat(node.args[0])?;
                // registers passed so far: the accumulator was registered after these links,
                // so the elements entering later links are delayed by as many clocks
                let mut passed = 0;
                let aw = layout.atom_bits() as u32;
                let lanes = layout.lanes() as usize;
                let mut acc = sc.m.wire_eq(format!("{name}_acc0"), x.bits(0, w));
                let mut acc_known = kn(0)[..lanes].to_vec();
                for j in 1..*n as u32 {
                    let xk = &kn(0)[j as usize * lanes..(j as usize + 1) * lanes];
                    let zk = acc_known
                        .iter()
                        .zip(xk)
                        .map(|(a, b)| Known::pair(a, b))
                        .collect();
                    let (module, ok) = self.body_module(*body, vec![zk], ce)?;
                    acc_known = ok;
                    if regs.contains(&u64::from(j - 1)) {
                        passed += 1;
                        acc = sc.delay(&acc, 1);
                    }
                    let start = sc.started(in_lat + passed);
                    let mut xj = sc.m.wire_eq(format!("{name}_x{j}"), x.bits(j * w, w));
                    if passed > 0 {
                        xj = sc.delay(&xj, passed);
                    }
                    let z = zip(&acc, &xj, aw);
                    let o = sc.m.wire(format!("{name}_acc{j}"), w);
                    let mut conns = clocks(sc, None);
                    conns.extend([
                        ("start".to_string(), start.clone()),
                        ("a0".to_string(), z),
                        ("o".to_string(), o.e()),
                    ]);
                    sc.m.instance(&module, &format!("u{}_{j}", id.index()), &conns);
                    acc = o;
                }
                let generator = if regs.is_empty() {
                    "reduce-tree"
                } else {
                    "reduce-chain-pipelined"
                };
                (wire(sc, acc.e()), generator, acc_known)
            }
            StOp::ReduceT { n, i, body } => {
                let x = arg(0);
                if *n == 1 {
                    return Ok((wire(sc, x.e()), "wiring", kn(0).clone()));
                }
                // the accumulator is never known; the element may be
                let zk = kn(0)
                    .iter()
                    .map(|k| Known::pair(&Known::Unknown, k))
                    .collect();
                let (module, _) = self.body_module(*body, vec![zk], ce)?;
                let in_lat = self.node_lat(node.args[0])?;
                let start = sc.started(in_lat);
                let t = d.layout(d.body(*body).root).clocks();
                let period = (n + i) * t;
                let aw = layout.atom_bits() as u32;
                // the accumulator is the combined value of T clocks ago: a delay line
                let new = sc.m.wire(name.to_string(), x.width);
                let prev = sc.delay(&new, t);
                let z = zip(&prev, &x, aw);
                let comb = sc.m.wire(format!("{name}_comb"), x.width);
                let mut conns = clocks(sc, None);
                conns.extend([
                    ("start".to_string(), start),
                    ("a0".to_string(), z),
                    ("o".to_string(), comb.e()),
                ]);
                sc.m.instance(&module, &format!("u{}", id.index()), &conns);
                // the first element's clocks: one run, or two when more follow
                let mut first = vec![(0, Expr::lit(1, 1))];
                if t < period {
                    first.push((t, Expr::lit(0, 1)));
                }
                let is_first = sc.by_phase_runs(&format!("{name}_first"), in_lat, period, first, 1);
                sc.m.assign(&new, Expr::mux(&is_first, &x.e(), &comb.e()));
                (new, "reduce-accumulator", unknown())
            }
            op => {
                let input = d.layout(node.args[0]);
                let in_lat = self.node_lat(node.args[0])?;
                let (s, kind) = gen_move(sc, name, op, input, &layout, &arg(0), in_lat, self.opts)?;
                let k = match Perm::of(op, input, &layout) {
                    Some(p) if kn(0).iter().any(|k| !k.is_unknown()) => movement_lanes(&p, kn(0)),
                    _ => unknown(),
                };
                (s, kind.name(), k)
            }
        })
    }

    /// A generator's lanes by phase: atom `atoms[e]` on its clock and lane of `l`.
    fn gen_table(
        &mut self,
        sc: &mut Scope,
        name: &str,
        l: &Layout,
        atoms: &[Value],
        delay: u64,
    ) -> Sig {
        let atom = l.atom().clone();
        let w = l.atom_bits() as u32;
        let place = l.placement();
        let mut parts = Vec::new();
        for k in 0..l.lanes() as usize {
            let entries: Vec<Option<Expr>> = place
                .iter()
                .map(|c| {
                    c.as_ref()
                        .map(|idx| atom_lit(&atoms[idx[k] as usize], &atom))
                })
                .collect();
            parts.push(sc.by_phase(&format!("{name}_l{k}"), delay, &entries, w));
        }
        parts.reverse();
        sc.m.wire_eq(name.to_string(), Expr::concat(&parts))
    }
}

/// The clock connections of an instance in `sc`: `clk`, and `ce` when the instance is
/// clock-enabled: the scope's own enable (instances in a clock-enabled module hold with
/// it), `en` (a stall's body), or both.
fn clocks(sc: &Scope, en: Option<Expr>) -> Vec<(String, Expr)> {
    let mut conns = vec![("clk".to_string(), Expr::raw("clk", 1))];
    let ce = match (sc.m.ce(), en) {
        (Some(a), Some(b)) => Some(Expr::and(&a, &b)),
        (a, b) => a.or(b),
    };
    if let Some(ce) = ce {
        conns.push(("ce".to_string(), ce));
    }
    conns
}

/// Bits of one clock of a layout: lanes times atom bits.
pub fn width(l: &Layout) -> u32 {
    (l.lanes() * l.atom_bits()) as u32
}

/// Lane-wise atom tuples `{a_k, b_k}` of two vectors of `w`-bit lanes.
fn zip(a: &Sig, b: &Sig, w: u32) -> Expr {
    let lanes = a.width / w;
    let parts: Vec<Expr> = (0..lanes)
        .rev()
        .flat_map(|k| [a.bits(k * w, w), b.bits(k * w, w)])
        .collect();
    Expr::concat(&parts)
}
