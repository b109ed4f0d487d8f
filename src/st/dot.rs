//! A design as a Graphviz graph (`tessera dot`): one box per operator with its static
//! parameters and latency, the producer's layout on every edge, and each function body as a
//! cluster whose result feeds the operator that applies it (a dashed edge).
//!
//! The graph is of the design as the RTL generator builds it, after latency matching
//! ([`insert_fifos`]: the FIFOs that align joins are drawn), and its boxes carry the names
//! the generated Verilog gives those nodes' nets (`n12`), so a box can be found in the
//! Verilog and in a waveform (a constant may have no net of its own: the generator folds
//! it into the body variant that reads it).

use super::design::{BodyId, Design, NodeId};
use super::latency::{analyze, insert_fifos};
use super::op::StOp;
use super::text::op_label;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The Graphviz text of `d`. Errors only where the latency analysis does (a reducer whose
/// body has latency).
pub fn to_dot(d: &Design) -> Result<String, String> {
    let aligned = insert_fifos(d)?;
    let d = &aligned;
    let lat = analyze(d)?;
    let mut g = Graph {
        d,
        latency: &lat.node,
        out: String::new(),
        drawn: BTreeSet::new(),
    };
    let _ = writeln!(g.out, "digraph \"{}\" {{", escape(&d.name));
    g.out.push_str("  rankdir=LR;\n");
    g.out
        .push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    g.out
        .push_str("  edge [fontname=\"monospace\", fontsize=9];\n");
    for i in &d.inputs {
        let _ = writeln!(
            g.out,
            "  n{} [shape=ellipse, label=\"input {}\"];",
            i.node.index(),
            escape(&i.name)
        );
    }
    g.scope(&d.top_scope(), None, "  ");
    let o = d.output();
    let _ = writeln!(
        g.out,
        "  output [shape=ellipse, label=\"output\\nlatency {}\"];",
        lat.output
    );
    let _ = writeln!(
        g.out,
        "  n{} -> output [label=\"{}\"];",
        o.index(),
        escape(&d.layout(o).to_string())
    );
    g.out.push_str("}\n");
    Ok(g.out)
}

struct Graph<'d> {
    d: &'d Design,
    latency: &'d [Option<u64>],
    out: String,
    /// Bodies already drawn: a body shared by several operators is drawn once.
    drawn: BTreeSet<BodyId>,
}

impl Graph<'_> {
    /// The Graphviz name of node `id` drawn in `body` (`None`: the top scope). Nodes inside
    /// bodies are named per body, because the arena shares equal nodes (an `arg 0` of one
    /// layout, say) between bodies, and each body is drawn as its own cluster.
    fn name(id: NodeId, body: Option<BodyId>) -> String {
        match body {
            None => format!("n{}", id.index()),
            Some(b) => format!("b{}_n{}", b.index(), id.index()),
        }
    }

    fn scope(&mut self, ids: &[NodeId], body: Option<BodyId>, indent: &str) {
        for &id in ids {
            let node = self.d.node(id);
            let me = Self::name(id, body);
            match &node.op {
                StOp::Input(_) => {}
                StOp::Arg(k, _) => {
                    let _ = writeln!(self.out, "{indent}{me} [shape=ellipse, label=\"arg {k}\"];");
                }
                _ => {
                    let latency = self.latency[id.index()]
                        .map_or(String::new(), |l| format!("\\nlatency {l}"));
                    let _ = writeln!(
                        self.out,
                        "{indent}{me} [label=\"n{}: {}{latency}\"];",
                        id.index(),
                        escape(&op_label(self.d, id))
                    );
                }
            }
            if let Some(b) = node.op.body() {
                self.body(b, indent);
                let root = Self::name(self.d.body(b).root, Some(b));
                let _ = writeln!(
                    self.out,
                    "{indent}{root} -> {me} [style=dashed, label=\"fn\"];"
                );
            }
            for a in &node.args {
                let _ = writeln!(
                    self.out,
                    "{indent}{} -> {me} [label=\"{}\"];",
                    Self::name(*a, body),
                    escape(&self.d.layout(*a).to_string())
                );
            }
        }
    }

    fn body(&mut self, b: BodyId, indent: &str) {
        if !self.drawn.insert(b) {
            return;
        }
        let root = self.d.body(b).root;
        let _ = writeln!(
            self.out,
            "{indent}subgraph cluster_b{} {{\n{indent}  label=\"function body {}\";\n{indent}  style=dashed;",
            b.index(),
            b.index()
        );
        let scope = self.d.scope(root);
        self.scope(&scope, Some(b), &format!("{indent}  "));
        let _ = writeln!(self.out, "{indent}}}");
    }
}

/// Escapes a label for a double-quoted Graphviz string.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::st::parse_design;

    #[test]
    fn every_operator_edge_and_body_is_drawn() {
        let text = "(design twice)\n(input I (tseq 4 0 int8))\n\
                    (output (map_t 4 0 (fn (x0) (abs x0)) (fifo (tseq 4 0 int8) 1 I)))\n";
        let d = parse_design("twice.st", text).unwrap();
        let dot = to_dot(&d).unwrap();
        assert!(dot.starts_with("digraph \"twice\" {"), "{dot}");
        assert!(dot.contains("label=\"input I\""), "{dot}");
        assert!(dot.contains("map_t 4 0 fn"), "{dot}");
        assert!(dot.contains("fifo (tseq 4 0 int8) 1"), "{dot}");
        assert!(dot.contains("subgraph cluster_b0"), "{dot}");
        assert!(dot.contains("abs"), "{dot}");
        assert!(dot.contains("[style=dashed, label=\"fn\"]"), "{dot}");
        assert!(
            dot.contains("label=\"(tseq 4 0 int8)\""),
            "an edge shows its layout: {dot}"
        );
        assert!(dot.contains("output\\nlatency 1"), "{dot}");
        assert!(dot.trim_end().ends_with('}'));
    }
}
