//! A checked sequence program: an arena of typed nodes addressed by [`NodeId`].
//!
//! Nodes are hash-consed, so two structurally equal sub-terms are one node and the program is
//! a DAG. Children always have smaller ids than their parents, so id order is a topological
//! order. Function bodies of `map`, `map2` and `reduce` live in the same arena as closed
//! sub-DAGs over [`Op::Arg`] leaves; identical bodies are one node.

use super::op::Op;
use super::types::SeqType;
use std::collections::HashMap;
use std::fmt;

/// The index of a node in a [`Program`].
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

/// One operator application.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// The operator and its static parameters.
    pub op: Op,
    /// The data inputs, in order.
    pub args: Vec<NodeId>,
}

/// A named, typed program input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDecl {
    /// The name used in the source.
    pub name: String,
    /// Its type.
    pub ty: SeqType,
    /// The [`Op::Input`] node.
    pub node: NodeId,
}

/// A type-checked program.
#[derive(Clone, Debug)]
pub struct Program {
    /// The program's name (the file stem unless the source names it).
    pub name: String,
    nodes: Vec<Node>,
    types: Vec<SeqType>,
    index: HashMap<Node, NodeId>,
    /// The inputs, in declaration order.
    pub inputs: Vec<InputDecl>,
    /// The output node.
    pub output: NodeId,
}

impl Program {
    /// An empty program with no inputs; `output` is set by [`Program::set_output`].
    pub fn new(name: impl Into<String>) -> Program {
        Program {
            name: name.into(),
            nodes: Vec::new(),
            types: Vec::new(),
            index: HashMap::new(),
            inputs: Vec::new(),
            output: NodeId(0),
        }
    }

    /// Adds a node of type `ty`, or returns the existing equal node.
    ///
    /// The caller guarantees `ty` is the node's type; [`crate::seq::check`] computes it.
    pub fn add(&mut self, op: Op, args: Vec<NodeId>, ty: SeqType) -> NodeId {
        let node = Node { op, args };
        if let Some(&id) = self.index.get(&node) {
            debug_assert_eq!(self.types[id.index()], ty, "hash-consed node changed type");
            return id;
        }
        let id = NodeId(u32::try_from(self.nodes.len()).expect("more than 2^32 nodes"));
        self.nodes.push(node.clone());
        self.types.push(ty);
        self.index.insert(node, id);
        id
    }

    /// Declares an input and returns its node.
    pub fn add_input(&mut self, name: impl Into<String>, ty: SeqType) -> NodeId {
        let index = self.inputs.len();
        let node = self.add(Op::Input(index), Vec::new(), ty.clone());
        self.inputs.push(InputDecl {
            name: name.into(),
            ty,
            node,
        });
        node
    }

    /// Sets the output node.
    pub fn set_output(&mut self, output: NodeId) {
        self.output = output;
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The type of a node's value.
    pub fn ty(&self, id: NodeId) -> &SeqType {
        &self.types[id.index()]
    }

    /// The program's output type.
    pub fn output_type(&self) -> &SeqType {
        self.ty(self.output)
    }

    /// Number of nodes in the arena (bodies included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True if the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// All node ids in topological order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The nodes of one scope reachable from `root`, in topological order: the nodes a
    /// program output or a function body computes, without descending into nested bodies.
    pub fn scope(&self, root: NodeId) -> Vec<NodeId> {
        let args = |i: usize, out: &mut Vec<usize>| {
            out.extend(self.nodes[i].args.iter().map(|a| a.index()));
        };
        crate::util::arena::reachable(root.index() + 1, &[root.index()], args)
            .into_iter()
            .map(|i| NodeId(i as u32))
            .collect()
    }

    /// Every node reachable from the output, bodies included, in topological order.
    pub fn reachable(&self) -> Vec<NodeId> {
        let mut roots = vec![self.output.index()];
        roots.extend(self.inputs.iter().map(|i| i.node.index()));
        let children = |i: usize, out: &mut Vec<usize>| {
            let node = &self.nodes[i];
            out.extend(node.args.iter().chain(&node.op.bodies()).map(|a| a.index()));
        };
        crate::util::arena::reachable(self.nodes.len(), &roots, children)
            .into_iter()
            .map(|i| NodeId(i as u32))
            .collect()
    }

    /// How many reachable nodes use each operator name, sorted by name.
    pub fn op_counts(&self) -> Vec<(&'static str, usize)> {
        let mut counts: std::collections::BTreeMap<&'static str, usize> = Default::default();
        for id in self.reachable() {
            *counts.entry(self.node(id).op.name()).or_default() += 1;
        }
        counts.into_iter().collect()
    }
}
