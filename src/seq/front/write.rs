//! Writes a [`Program`] back as `.seq` text that the front end reads to an equivalent
//! program: the same inputs (names and types, in order), the same output type and the same
//! value on every input.
//!
//! Programs built in memory (the random programs of the rule soundness check and of the
//! fuzzer) have no text of their own; this is how one that fails becomes a regression file.
//! Every node of the top scope becomes a top-level `let`, and every function body a
//! `(fn (PARAMS) (let ((NAME EXPR) ...) RESULT))`, so the text is as flat as the program.

use crate::seq::op::{AtomOp, Op};
use crate::seq::program::{NodeId, Program};
use crate::seq::types::SeqType;
use crate::seq::value::{format_scalar, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// The program as `.seq` text (see the module documentation).
pub fn program_text(p: &Program) -> String {
    // Let names are a prefix and a node number; the prefix is lengthened until no input is
    // named like a let.
    let mut prefix = String::from("n");
    while p.inputs.iter().any(|i| {
        i.name
            .strip_prefix(prefix.as_str())
            .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
    }) {
        prefix.push('n');
    }
    let mut out = String::new();
    for i in &p.inputs {
        let _ = writeln!(out, "(input {} {})", i.name, i.ty);
    }
    let mut names: HashMap<NodeId, String> =
        p.inputs.iter().map(|i| (i.node, i.name.clone())).collect();
    for id in p.scope(p.output) {
        if names.contains_key(&id) {
            continue;
        }
        let name = format!("{prefix}{}", id.index());
        let _ = writeln!(out, "(let {name} {})", expr(p, id, &names, &[], 0));
        names.insert(id, name);
    }
    let _ = writeln!(out, "(output {})", names[&p.output]);
    out
}

/// The expression of node `id`, whose arguments are named by `names`; `params` names the
/// parameters of the enclosing function, `depth` is its nesting (for fresh names).
fn expr(
    p: &Program,
    id: NodeId,
    names: &HashMap<NodeId, String>,
    params: &[String],
    depth: usize,
) -> String {
    let node = p.node(id);
    let args: Vec<&str> = node.args.iter().map(|a| names[a].as_str()).collect();
    let args = args.join(" ");
    let f = |body: NodeId, arity: usize| function(p, body, arity, depth + 1);
    match &node.op {
        Op::Input(i) => p.inputs[*i].name.clone(),
        Op::Arg(i, _) => params[*i as usize].clone(),
        Op::Const(v, t) => format!("(const {t} {})", literal(v, t)),
        Op::Counter { n, incr, ty } => format!("(counter {n} {incr} {ty})"),
        Op::Atom(AtomOp::Cast(t)) => format!("(cast {t} {args})"),
        Op::Atom(a) => format!("({} {args})", a.name()),
        Op::ATuple => format!("(atuple {args})"),
        Op::Map { n, body } => format!("(map {n} {} {args})", f(*body, 1)),
        Op::Map2 { n, body } => format!("(map2 {n} {} {args})", f(*body, 2)),
        Op::Reduce { n, body } => format!("(reduce {n} {} {args})", f(*body, 1)),
        Op::HMap { n, bodies } => {
            let fs: Vec<String> = bodies.iter().map(|b| f(*b, 1)).collect();
            format!("(hmap {n} (list_to_seq {}) {args})", fs.join(" "))
        }
        Op::Shift { n, amount, init } => match init {
            Some(v) => {
                let t = p.ty(id).as_seq().map_or(p.ty(id), |(_, e)| e);
                format!("(shift {n} {amount} (init {}) {args})", literal(v, t))
            }
            None => format!("(shift {n} {amount} {args})"),
        },
        op => format!("({op} {args})"),
    }
}

/// A function of `arity` parameters whose body computes `body`.
fn function(p: &Program, body: NodeId, arity: usize, depth: usize) -> String {
    let params: Vec<String> = (0..arity).map(|i| format!("p{depth}_{i}")).collect();
    let mut names: HashMap<NodeId, String> = HashMap::new();
    let mut lets = Vec::new();
    for id in p.scope(body) {
        if let Op::Arg(i, _) = p.node(id).op {
            names.insert(id, params[i as usize].clone());
            continue;
        }
        let name = format!("v{depth}_{}", id.index());
        lets.push(format!("({name} {})", expr(p, id, &names, &params, depth)));
        names.insert(id, name);
    }
    let result = &names[&body];
    if lets.is_empty() {
        format!("(fn ({}) {result})", params.join(" "))
    } else {
        format!(
            "(fn ({}) (let ({}) {result}))",
            params.join(" "),
            lets.join(" ")
        )
    }
}

/// A literal of type `t` in the syntax of `const` and `init`.
fn literal(v: &Value, t: &SeqType) -> String {
    match (v, t) {
        (Value::Undef, _) => "_".into(),
        (Value::Scalar(raw), SeqType::Scalar(s)) => format_scalar(*raw, *s),
        (Value::Pair(pair), SeqType::ATuple(a, b)) => {
            format!("({} {})", literal(&pair.0, a), literal(&pair.1, b))
        }
        (Value::List(xs), SeqType::Seq(_, e) | SeqType::STuple(_, e)) => {
            let items: Vec<String> = xs.iter().map(|x| literal(x, e)).collect();
            format!("({})", items.join(" "))
        }
        // A value that does not have its type cannot come from a checked program; writing
        // a don't-care keeps the text readable, and the reader then reports the difference.
        _ => "_".into(),
    }
}
