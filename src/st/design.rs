//! A space-time design: an arena of typed nodes addressed by [`NodeId`], with function
//! bodies as closed sub-designs ([`Body`]) addressed by [`BodyId`].
//!
//! Every node is added through [`Design::add`], which computes its output layout from the
//! exact operator types ([`super::check`]) and rejects any mismatch, so a `Design` is well
//! typed by construction. Nodes and bodies are hash-consed: equal sub-terms are one node, so
//! the design is a DAG and a body used by two maps is stored once (and instantiated twice in
//! hardware). Children always have smaller ids than their parents.

use super::check;
use super::layout::Layout;
use super::op::StOp;
use crate::seq::op::AtomOp;
use crate::util::fxhash::FxBuild;
use indexmap::IndexSet;
use std::collections::HashMap;
use std::fmt;

/// The index of a node in a [`Design`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    /// The position in the arena.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.0)
    }
}

/// The index of a function body in a [`Design`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(u32);

impl BodyId {
    /// The position in the body table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One operator application.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// The operator and its static parameters.
    pub op: StOp,
    /// The data inputs, in order.
    pub args: Vec<NodeId>,
}

/// A closed function body: the layouts of its parameters (the [`StOp::Arg`] leaves) and the
/// node computing its result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Body {
    /// Parameter layouts, by index.
    pub params: Vec<Layout>,
    /// The result node.
    pub root: NodeId,
}

/// A named design input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDecl {
    /// The name.
    pub name: String,
    /// Its layout.
    pub layout: Layout,
    /// The [`StOp::Input`] node.
    pub node: NodeId,
}

/// A well-typed space-time design.
#[derive(Clone, Debug)]
pub struct Design {
    /// The design's name.
    pub name: String,
    /// The nodes in arena order, hash-consed: a node is stored and hashed once (a constant
    /// may hold a frame-sized value).
    nodes: IndexSet<Node, FxBuild>,
    layouts: Vec<Layout>,
    /// The bodies, hash-consed like the nodes.
    bodies: IndexSet<Body, FxBuild>,
    /// The inputs, in declaration order.
    pub inputs: Vec<InputDecl>,
    output: Option<NodeId>,
}

impl PartialEq for Design {
    /// Arena equality (the hash-cons tables are derived data). Two designs built in
    /// different orders are compared with [`Design::canonical`] first.
    fn eq(&self, other: &Design) -> bool {
        self.name == other.name
            && self.nodes.iter().eq(&other.nodes)
            && self.layouts == other.layouts
            && self.bodies.iter().eq(&other.bodies)
            && self.inputs == other.inputs
            && self.output == other.output
    }
}

impl Design {
    /// An empty design.
    pub fn new(name: impl Into<String>) -> Design {
        Design {
            name: name.into(),
            nodes: IndexSet::default(),
            layouts: Vec::new(),
            bodies: IndexSet::default(),
            inputs: Vec::new(),
            output: None,
        }
    }

    /// Declares an input; names must be unique.
    pub fn add_input(&mut self, name: impl Into<String>, layout: Layout) -> Result<NodeId, String> {
        let name = name.into();
        if self.inputs.iter().any(|i| i.name == name) {
            return Err(format!("the input `{name}` is declared twice"));
        }
        layout.validate()?;
        let k = self.inputs.len();
        let node = self.push(StOp::Input(k), Vec::new(), layout.clone());
        self.inputs.push(InputDecl { name, layout, node });
        Ok(node)
    }

    /// Adds the placeholder for parameter `k` of a body under construction.
    pub fn add_arg(&mut self, k: u8, layout: Layout) -> Result<NodeId, String> {
        layout.validate()?;
        Ok(self.push(StOp::Arg(k, layout.clone()), Vec::new(), layout))
    }

    /// Adds an operator applied to `args`, checking every input layout against the
    /// operator's exact type. Errors name the operator and the mismatching layouts.
    pub fn add(&mut self, op: StOp, args: &[NodeId]) -> Result<NodeId, String> {
        if matches!(op, StOp::Input(_) | StOp::Arg(..)) {
            return Err(format!(
                "{op}: inputs and parameters are added with add_input / add_arg"
            ));
        }
        if args.len() != op.arity() {
            return Err(format!(
                "{op}: takes {} input(s), found {}",
                op.arity(),
                args.len()
            ));
        }
        if let Some(a) = args.iter().find(|a| a.index() >= self.nodes.len()) {
            return Err(format!("{op}: unknown node {a}"));
        }
        if let Some(b) = op.body() {
            if b.index() >= self.bodies.len() {
                return Err(format!("{op}: unknown body"));
            }
        }
        let layout = check::output_layout(self, &op, args)?;
        Ok(self.push(op, args.to_vec(), layout))
    }

    /// Registers a body whose parameters have `params` layouts and whose result is `root`.
    /// The body must be closed: its scope may read only [`StOp::Arg`]s with those layouts,
    /// never a design input.
    pub fn add_body(&mut self, params: Vec<Layout>, root: NodeId) -> Result<BodyId, String> {
        if root.index() >= self.nodes.len() {
            return Err(format!("body root {root} does not exist"));
        }
        for id in self.scope(root) {
            match &self.node(id).op {
                StOp::Input(k) => {
                    return Err(format!(
                        "a function body is closed, but this one reads the design input `{}`",
                        self.inputs[*k].name
                    ))
                }
                StOp::Arg(k, l) => match params.get(usize::from(*k)) {
                    Some(p) if p == l => {}
                    Some(p) => {
                        return Err(format!(
                            "the body's parameter {k} is used with layout {l}, but is declared {p}"
                        ))
                    }
                    None => {
                        return Err(format!(
                            "the body uses parameter {k}, but has only {} parameter(s)",
                            params.len()
                        ))
                    }
                },
                _ => {}
            }
        }
        let (i, _) = self.bodies.insert_full(Body { params, root });
        Ok(BodyId(u32::try_from(i).map_err(|_| "too many bodies")?))
    }

    /// Builds a body with `params` layouts: `build` receives the argument nodes and returns
    /// the result node.
    pub fn body_with(
        &mut self,
        params: Vec<Layout>,
        build: impl FnOnce(&mut Design, &[NodeId]) -> Result<NodeId, String>,
    ) -> Result<BodyId, String> {
        let mut args = Vec::with_capacity(params.len());
        for (k, p) in params.iter().enumerate() {
            let k = u8::try_from(k).map_err(|_| "a body has at most 256 parameters")?;
            args.push(self.add_arg(k, p.clone())?);
        }
        let root = build(self, &args)?;
        self.add_body(params, root)
    }

    /// Sets the output node; it must compute in the design's top scope (no parameters).
    pub fn set_output(&mut self, out: NodeId) -> Result<(), String> {
        if out.index() >= self.nodes.len() {
            return Err(format!("output {out} does not exist"));
        }
        if self
            .scope(out)
            .iter()
            .any(|id| matches!(self.node(*id).op, StOp::Arg(..)))
        {
            return Err("the output reads a function parameter outside any function".into());
        }
        self.output = Some(out);
        Ok(())
    }

    fn push(&mut self, op: StOp, args: Vec<NodeId>, layout: Layout) -> NodeId {
        let (i, new) = self.nodes.insert_full(Node { op, args });
        if new {
            self.layouts.push(layout);
        }
        NodeId(u32::try_from(i).expect("more than 2^32 nodes"))
    }

    /// The output node.
    ///
    /// # Panics
    /// If no output was set; [`Design::try_output`] does not panic.
    pub fn output(&self) -> NodeId {
        self.output.expect("the design has no output")
    }

    /// The output node, if set.
    pub fn try_output(&self) -> Option<NodeId> {
        self.output
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The output layout of a node.
    pub fn layout(&self, id: NodeId) -> &Layout {
        &self.layouts[id.index()]
    }

    /// A body.
    pub fn body(&self, id: BodyId) -> &Body {
        &self.bodies[id.index()]
    }

    /// The design's output layout.
    pub fn output_layout(&self) -> &Layout {
        self.layout(self.output())
    }

    /// Clocks per period of the design: its output layout's clocks (every operator takes as
    /// many clocks in as out, so the inputs agree).
    pub fn clocks(&self) -> u64 {
        self.output_layout().clocks()
    }

    /// Number of nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True if the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node id, in arena (topological) order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Every body id.
    pub fn body_ids(&self) -> impl Iterator<Item = BodyId> {
        (0..self.bodies.len() as u32).map(BodyId)
    }

    /// The one atom operator reducer `body` applies to its zipped pair, possibly under
    /// `map_s 1` layers (a reduction of `(sseq 1 t)` elements), or `None` when the reducer
    /// is anything else: a link of one operator, which no register inside can split
    /// (`super::unroll`), and, for `add`, the sums `super::late_rows` reorders.
    pub fn reducer_atom(&self, body: BodyId) -> Option<&AtomOp> {
        let node = self.node(self.body(body).root);
        let on_param =
            node.args.len() == 1 && matches!(self.node(node.args[0]).op, StOp::Arg(0, _));
        match &node.op {
            StOp::Atom(a) if on_param => Some(a),
            StOp::MapS { n: 1, body } if on_param => self.reducer_atom(*body),
            _ => None,
        }
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// The nodes of the scope computing `root` (not descending into bodies), in topological
    /// order.
    pub fn scope(&self, root: NodeId) -> Vec<NodeId> {
        let args = |i: usize, out: &mut Vec<usize>| {
            out.extend(self.nodes[i].args.iter().map(|a| a.index()));
        };
        crate::util::arena::reachable(root.index() + 1, &[root.index()], args)
            .into_iter()
            .map(|i| NodeId(i as u32))
            .collect()
    }

    /// The top scope: the nodes computing the output, plus every input node, in order.
    pub fn top_scope(&self) -> Vec<NodeId> {
        let mut ids = self.scope(self.output());
        for i in &self.inputs {
            if !ids.contains(&i.node) {
                ids.push(i.node);
            }
        }
        ids.sort();
        ids
    }

    /// The same design rebuilt in a canonical order (inputs first, then a depth-first walk
    /// from the output, arguments before bodies), dropping unreachable nodes. Two designs are
    /// structurally equal iff their canonical forms are equal.
    pub fn canonical(&self) -> Design {
        let mut out = Design::new(self.name.clone());
        let mut map: HashMap<NodeId, NodeId> = HashMap::new();
        let mut bmap: HashMap<BodyId, BodyId> = HashMap::new();
        for i in &self.inputs {
            let n = out
                .add_input(i.name.clone(), i.layout.clone())
                .expect("copied from a valid design");
            map.insert(i.node, n);
        }
        if let Some(o) = self.output {
            let n = self.copy_into(&mut out, o, &mut map, &mut bmap);
            out.output = Some(n);
        }
        out
    }

    /// Copies this design into `out` as a closed body whose parameters are this design's
    /// inputs, in order: the design becomes a function another design can map.
    pub fn copy_as_body(&self, out: &mut Design) -> Result<BodyId, String> {
        let root = self.try_output().ok_or("the design has no output")?;
        let mut map: HashMap<NodeId, NodeId> = HashMap::new();
        let mut bmap: HashMap<BodyId, BodyId> = HashMap::new();
        let mut params = Vec::with_capacity(self.inputs.len());
        for (k, i) in self.inputs.iter().enumerate() {
            let k = u8::try_from(k).map_err(|_| "a body has at most 256 parameters")?;
            map.insert(i.node, out.add_arg(k, i.layout.clone())?);
            params.push(i.layout.clone());
        }
        let root = self.copy_into(out, root, &mut map, &mut bmap);
        out.add_body(params, root)
    }

    /// Copies node `id` (and what it reaches) into `out`, arguments in order before the
    /// node itself. Iterative over arguments, so a long chain costs no stack; it recurses
    /// only into bodies, as deep as they nest. A node already in `map` is not copied but
    /// read as its entry, which is how a caller substitutes a node (a body's parameter
    /// bound to a value, `super::unroll`); bodies are copied once each, by `bmap`.
    pub(crate) fn copy_into(
        &self,
        out: &mut Design,
        id: NodeId,
        map: &mut HashMap<NodeId, NodeId>,
        bmap: &mut HashMap<BodyId, BodyId>,
    ) -> NodeId {
        // (node, how many of its arguments have been visited)
        let mut stack = vec![(id, 0usize)];
        while let Some((cur, next)) = stack.last_mut() {
            let cur = *cur;
            if map.contains_key(&cur) {
                stack.pop();
                continue;
            }
            let node = self.node(cur);
            if let Some(a) = node.args.get(*next) {
                *next += 1;
                stack.push((*a, 0));
                continue;
            }
            stack.pop();
            let args: Vec<NodeId> = node.args.iter().map(|a| map[a]).collect();
            let mut op = node.op.clone();
            if let Some(b) = op.body() {
                let nb = match bmap.get(&b) {
                    Some(nb) => *nb,
                    None => {
                        let body = self.body(b).clone();
                        let root = self.copy_into(out, body.root, map, bmap);
                        let nb = out
                            .add_body(body.params, root)
                            .expect("copied from a valid design");
                        bmap.insert(b, nb);
                        nb
                    }
                };
                set_body(&mut op, nb);
            }
            let n = match &op {
                StOp::Arg(k, l) => out.add_arg(*k, l.clone()),
                _ => out.add(op, &args),
            }
            .expect("copied from a valid design");
            map.insert(cur, n);
        }
        map[&id]
    }
}

/// Replaces the body reference of a higher-order operator.
pub(crate) fn set_body(op: &mut StOp, nb: BodyId) {
    match op {
        StOp::MapS { body, .. }
        | StOp::MapT { body, .. }
        | StOp::Map2S { body, .. }
        | StOp::Map2T { body, .. }
        | StOp::ReduceS { body, .. }
        | StOp::ReduceT { body, .. }
        | StOp::Stall { body, .. } => *body = nb,
        _ => {}
    }
}
