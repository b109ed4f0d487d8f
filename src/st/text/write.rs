//! Writing `.st` files: a canonical, pretty-printed form that reads back to an equal design.

use crate::seq::types::SeqType;
use crate::seq::value::{format_scalar, Value};
use crate::st::design::{Design, NodeId};
use crate::st::layout::Layout;
use crate::st::op::StOp;
use std::collections::HashMap;

/// A minimal document tree for pretty printing.
enum Doc {
    Atom(String),
    List(Vec<Doc>),
}

impl Doc {
    fn flat(&self) -> String {
        match self {
            Doc::Atom(s) => s.clone(),
            Doc::List(xs) => format!(
                "({})",
                xs.iter().map(Doc::flat).collect::<Vec<_>>().join(" ")
            ),
        }
    }

    /// Prints on one line when it fits in `width` columns, else breaks before every list
    /// argument after the head and its leading atoms.
    fn pretty(&self, indent: usize, out: &mut String) {
        let flat = self.flat();
        let Doc::List(xs) = self else {
            out.push_str(&flat);
            return;
        };
        if indent + flat.len() <= 96 || xs.len() < 2 {
            out.push_str(&flat);
            return;
        }
        out.push('(');
        let lead = xs
            .iter()
            .take_while(|x| matches!(x, Doc::Atom(_)))
            .count()
            .max(1);
        out.push_str(
            &xs[..lead]
                .iter()
                .map(Doc::flat)
                .collect::<Vec<_>>()
                .join(" "),
        );
        for x in &xs[lead..] {
            out.push('\n');
            out.push_str(&" ".repeat(indent + 2));
            x.pretty(indent + 2, out);
        }
        out.push(')');
    }
}

/// Writes a literal of type `t` in the `.st`/`.seq` literal syntax.
fn literal_doc(v: &Value, t: &SeqType) -> Doc {
    match (v, t) {
        (Value::Undef, _) => Doc::Atom("_".into()),
        (Value::Scalar(raw), SeqType::Scalar(s)) => Doc::Atom(format_scalar(*raw, *s)),
        (Value::Pair(p), SeqType::ATuple(a, b)) => {
            Doc::List(vec![literal_doc(&p.0, a), literal_doc(&p.1, b)])
        }
        (Value::List(xs), SeqType::Seq(_, e) | SeqType::STuple(_, e)) => {
            Doc::List(xs.iter().map(|x| literal_doc(x, e)).collect())
        }
        _ => Doc::Atom("_".into()),
    }
}

fn layout_doc(l: &Layout) -> Doc {
    Doc::Atom(l.to_string())
}

/// `(delay D)`, omitted when 0.
fn delay_doc(delay: u64) -> Option<Doc> {
    (delay > 0).then(|| Doc::List(vec![Doc::Atom("delay".into()), num(delay)]))
}

fn num(n: u64) -> Doc {
    Doc::Atom(n.to_string())
}

impl Design {
    /// The design in the `.st` format; [`parse_design`] reads it back to an equal design.
    pub fn to_text(&self) -> String {
        let d = self.canonical();
        let mut w = Writer {
            d: &d,
            shallow: false,
            names: HashMap::new(),
            next: 0,
            taken: d.inputs.iter().map(|i| i.name.clone()).collect(),
        };
        let mut out = format!("(design {})\n", d.name);
        for i in &d.inputs {
            out.push_str(&format!("(input {} {})\n", i.name, i.layout));
            w.names.insert(i.node, i.name.clone());
        }
        if let Some(o) = d.try_output() {
            for (id, name) in w.bind_shared(&d.scope(o), 0) {
                let mut s = format!("(let {name} ");
                let doc = w.node_doc(id, 0);
                doc.pretty(2, &mut s);
                out.push_str(&s);
                out.push_str(")\n");
                w.names.insert(id, name);
            }
            let mut s = String::from("(output ");
            // An output that is an input (a design that only relabels its input) is
            // written by name: an input has no operator form.
            match w.names.get(&o) {
                Some(name) => s.push_str(name),
                None => w.node_doc(o, 0).pretty(2, &mut s),
            }
            out.push_str(&s);
            out.push_str(")\n");
        }
        out
    }
}

/// Node `id`'s operator as it is written, with its static parameters but without its
/// function body (shown as `fn`) and its inputs: `map_t 16 0 fn`, `shift_t 16 0 4 uint8`.
pub fn op_label(d: &Design, id: NodeId) -> String {
    let mut w = Writer {
        d,
        shallow: true,
        names: HashMap::new(),
        next: 0,
        taken: Vec::new(),
    };
    let doc = w.node_doc(id, 0);
    let flat = doc.flat();
    flat[1..flat.len() - 1].to_string()
}

/// The most operators a written expression nests before a node is named by a `let`.
const INLINE_DEPTH: usize = 32;

struct Writer<'d> {
    d: &'d Design,
    /// Bodies as `fn` and no inputs: one operator's label.
    shallow: bool,
    /// Names of inputs, parameters and let-bound nodes.
    names: HashMap<NodeId, String>,
    next: usize,
    taken: Vec<String>,
}

impl Writer<'_> {
    /// Chooses let names for the nodes of a scope used more than once (in order).
    fn bind_shared(&mut self, scope: &[NodeId], _depth: usize) -> Vec<(NodeId, String)> {
        let mut uses: HashMap<NodeId, usize> = HashMap::new();
        for id in scope {
            for a in &self.d.node(*id).args {
                *uses.entry(*a).or_default() += 1;
            }
        }
        // How many operators deep each node's written form nests, counting only the
        // arguments written inline; a node as deep as `INLINE_DEPTH` is named, so a file nests
        // by at most that many operators (plus layouts and literals) however long the
        // design's chains are, and reads back (`util::sexp::MAX_NESTING`).
        let mut level: HashMap<NodeId, usize> = HashMap::new();
        let mut out = Vec::new();
        for id in scope {
            let shared = uses.get(id).copied().unwrap_or(0) > 1;
            let deep = if self.names.contains_key(id) {
                level.insert(*id, 0);
                false
            } else {
                let l = 1 + self
                    .d
                    .node(*id)
                    .args
                    .iter()
                    .map(|a| level.get(a).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
                let deep = l >= INLINE_DEPTH;
                level.insert(*id, if shared || deep { 0 } else { l });
                deep
            };
            if (shared || deep) && !self.names.contains_key(id) {
                let name = loop {
                    let n = format!("v{}", self.next);
                    self.next += 1;
                    if !self.taken.contains(&n) {
                        break n;
                    }
                };
                out.push((*id, name));
            }
        }
        out
    }

    fn node_doc(&mut self, id: NodeId, depth: usize) -> Doc {
        let node = self.d.node(id).clone();
        let mut items = vec![Doc::Atom(node.op.name().to_string())];
        match &node.op {
            StOp::Const {
                value,
                layout,
                delay,
            } => {
                items.push(layout_doc(layout));
                items.push(literal_doc(value, &layout.to_seq()));
                items.extend(delay_doc(*delay));
            }
            StOp::Counter {
                layout,
                incr,
                delay,
            } => {
                items.push(layout_doc(layout));
                items.push(num(*incr));
                items.extend(delay_doc(*delay));
            }
            StOp::MapS { n, body } | StOp::Map2S { n, body } => {
                items.push(num(*n));
                items.push(self.body_doc(*body, depth));
            }
            StOp::ReduceS { n, body, regs } => {
                items.push(num(*n));
                if !regs.is_empty() {
                    let mut r = vec![Doc::Atom("regs".into())];
                    r.extend(regs.iter().map(|c| num(*c)));
                    items.push(Doc::List(r));
                }
                items.push(self.body_doc(*body, depth));
            }
            StOp::MapT { n, i, body }
            | StOp::Map2T { n, i, body }
            | StOp::ReduceT { n, i, body } => {
                items.push(num(*n));
                items.push(num(*i));
                items.push(self.body_doc(*body, depth));
            }
            StOp::Stall { idle, body, .. } => {
                items.push(num(*idle));
                items.push(self.body_doc(*body, depth));
            }
            op => items.extend(params_doc(op)),
        }
        if !self.shallow {
            for a in &node.args {
                items.push(self.arg_doc(*a, depth));
            }
        }
        Doc::List(items)
    }

    fn arg_doc(&mut self, a: NodeId, depth: usize) -> Doc {
        match self.names.get(&a) {
            Some(n) => Doc::Atom(n.clone()),
            None => self.node_doc(a, depth),
        }
    }

    fn body_doc(&mut self, b: crate::st::design::BodyId, depth: usize) -> Doc {
        if self.shallow {
            return Doc::Atom("fn".into());
        }
        let body = self.d.body(b).clone();
        let scope = self.d.scope(body.root);
        // Parameters are named by depth; names from the enclosing scope are invisible.
        let saved = std::mem::take(&mut self.names);
        let pnames: Vec<String> = (0..body.params.len())
            .map(|k| format!("{}{depth}", ["x", "y"].get(k).unwrap_or(&"z")))
            .collect();
        for id in &scope {
            if let StOp::Arg(k, _) = self.d.node(*id).op {
                self.names.insert(*id, pnames[usize::from(k)].clone());
            }
        }
        let binds = self.bind_shared(&scope, depth + 1);
        let mut bdocs = Vec::new();
        for (id, name) in &binds {
            let doc = self.node_doc(*id, depth + 1);
            bdocs.push(Doc::List(vec![Doc::Atom(name.clone()), doc]));
            self.names.insert(*id, name.clone());
        }
        let root = self.arg_doc(body.root, depth + 1);
        let inner = if bdocs.is_empty() {
            root
        } else {
            Doc::List(vec![Doc::Atom("let".into()), Doc::List(bdocs), root])
        };
        self.names = saved;
        Doc::List(vec![
            Doc::Atom("fn".into()),
            Doc::List(pnames.into_iter().map(Doc::Atom).collect()),
            inner,
        ])
    }
}

/// The static parameters of a first-order operator, as written after its name.
fn params_doc(op: &StOp) -> Vec<Doc> {
    let init_doc = |init: &Option<Value>, elem: &Layout| -> Vec<Doc> {
        init.iter()
            .map(|v| {
                Doc::List(vec![
                    Doc::Atom("init".into()),
                    literal_doc(v, &elem.to_seq()),
                ])
            })
            .collect()
    };
    let mut v = Vec::new();
    match op {
        StOp::UpS { n, elem } => v.extend([num(*n), layout_doc(elem)]),
        StOp::UpT { n, i, elem } => v.extend([num(*n), num(*i), layout_doc(elem)]),
        StOp::DownS { n, idx, elem } => v.extend([num(*n), num(*idx), layout_doc(elem)]),
        StOp::DownT { n, i, idx, elem } => {
            v.extend([num(*n), num(*i), num(*idx), layout_doc(elem)])
        }
        StOp::ShiftS {
            n,
            amount,
            elem,
            init,
        } => {
            v.extend([num(*n), num(*amount), layout_doc(elem)]);
            v.extend(init_doc(init, elem));
        }
        StOp::ShiftT {
            n,
            i,
            amount,
            elem,
            init,
        } => {
            v.extend([num(*n), num(*i), num(*amount), layout_doc(elem)]);
            v.extend(init_doc(init, elem));
        }
        StOp::ShiftTS {
            no,
            io,
            ni,
            amount,
            elem,
            init,
        } => {
            v.extend([num(*no), num(*io), num(*ni), num(*amount), layout_doc(elem)]);
            v.extend(init_doc(init, elem));
        }
        StOp::ShiftTT {
            no,
            ni,
            io,
            ii,
            amount,
            elem,
            init,
        } => {
            v.extend([
                num(*no),
                num(*ni),
                num(*io),
                num(*ii),
                num(*amount),
                layout_doc(elem),
            ]);
            v.extend(init_doc(init, elem));
        }
        StOp::ShiftTN {
            no,
            io,
            nis,
            iis,
            amount,
            elem,
            init,
        } => {
            v.extend([
                num(*no),
                num(*io),
                Doc::List(nis.iter().map(|x| num(*x)).collect()),
                Doc::List(iis.iter().map(|x| num(*x)).collect()),
                num(*amount),
                layout_doc(elem),
            ]);
            v.extend(init_doc(init, elem));
        }
        StOp::PartitionSS { no, ni, elem } | StOp::UnpartitionSS { no, ni, elem } => {
            v.extend([num(*no), num(*ni), layout_doc(elem)])
        }
        StOp::PartitionTT {
            no,
            ni,
            io,
            ii,
            elem,
        }
        | StOp::UnpartitionTT {
            no,
            ni,
            io,
            ii,
            elem,
        } => v.extend([num(*no), num(*ni), num(*io), num(*ii), layout_doc(elem)]),
        StOp::Serialize { n, i, elem } | StOp::Deserialize { n, i, elem } => {
            v.extend([num(*n), num(*i), layout_doc(elem)])
        }
        StOp::STupleToSSeq { n, elem } | StOp::SSeqToSTuple { n, elem } => {
            v.extend([num(*n), layout_doc(elem)])
        }
        StOp::Reshape { from, to } => v.extend([layout_doc(from), layout_doc(to)]),
        StOp::Transpose { no, ni, from, to } => {
            v.extend([num(*no), num(*ni), layout_doc(from), layout_doc(to)])
        }
        StOp::Fifo { layout, delay } => v.extend([layout_doc(layout), num(*delay)]),
        _ => {}
    }
    v
}
