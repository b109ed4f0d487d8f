//! Rule patterns: the s-expression syntax of rule sides, and what each variable stands for.
//!
//! A pattern is an e-graph term with variables: `(map ?n ?f (partition ?no ?ni ?x))`.
//! Atoms are variables `?name`, whole numbers, `_` (the don't-care literal, e.g. a shift
//! without init) and scalar types (`uint8`). `(arg I)` without a type is a function-body
//! placeholder whose type is left open: on a left side it matches any type, on a right side
//! it is inferred from the enclosing `map`/`map2`/`reduce`/`hmap`. A cast is `(cast T x)`
//! with `T` a type or a type variable; the one word `(cast_uint16 x)` means
//! `(cast uint16 x)`.

use super::lang::{AtomName, Literal, ScalarName, SeqLang};
use crate::seq::op::AtomOp;
use crate::util::diag::Diagnostic;
use crate::util::sexp::{Sexp, SexpKind};
use egg::{ENodeOrVar, Id, PatternAst, Var};
use indexmap::IndexMap;

/// A pattern: an egg pattern AST (a tree; the root is the last node).
pub type Pat = PatternAst<SeqLang>;

/// Prefix of the variables standing for an inferred `arg` type.
pub const INFER_PREFIX: &str = "?%t";

/// True for the placeholder variable of an inferred `arg` type.
pub fn is_infer(v: Var) -> bool {
    v.to_string().starts_with(INFER_PREFIX)
}

/// A variable whose type is inferred. On a right side every occurrence is inferred on its
/// own, so one name serves all; on a left side each occurrence gets its own name (see
/// [`parse_pattern`]) so that they match independently.
pub fn infer_var() -> Var {
    INFER_PREFIX.parse().expect("a valid variable name")
}

fn numbered_infer_var(k: usize) -> Var {
    format!("{INFER_PREFIX}{k}")
        .parse()
        .expect("a valid variable name")
}

/// What a pattern variable stands for, from the position it occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// An integer parameter.
    Num,
    /// A type.
    Type,
    /// A literal (a shift's init, a constant's value).
    Lit,
    /// A data value (a producer).
    Data,
    /// A function body of this many parameters.
    Body(u8),
    /// The function list of an `hmap`.
    FnList,
}

impl Role {
    /// A word for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Role::Num => "a number",
            Role::Type => "a type",
            Role::Lit => "a literal",
            Role::Data => "a value",
            Role::Body(_) => "a function",
            Role::FnList => "a function list",
        }
    }
}

/// The role of each child position of a node.
pub fn child_roles(node: &SeqLang) -> Vec<Role> {
    use Role::*;
    match node {
        SeqLang::TSeq(_) | SeqLang::TSTuple(_) => vec![Num, Type],
        SeqLang::TATuple(_) => vec![Type, Type],
        SeqLang::Arg(_) => vec![Num, Type],
        SeqLang::Const(_) => vec![Lit, Type],
        SeqLang::Counter(_) => vec![Num, Num, Type],
        SeqLang::Cast(_) => vec![Type, Data],
        SeqLang::Map(_) => vec![Num, Body(1), Data],
        SeqLang::Map2(_) => vec![Num, Body(2), Data, Data],
        SeqLang::Reduce(_) => vec![Num, Body(1), Data],
        SeqLang::HMap(_) => vec![Num, FnList, Data],
        SeqLang::ListToSeq(fs) => vec![Body(1); fs.len()],
        SeqLang::Up(_) | SeqLang::STupleToSeq(_) | SeqLang::SeqToSTuple(_) => vec![Num, Data],
        SeqLang::Down(_)
        | SeqLang::Partition(_)
        | SeqLang::Unpartition(_)
        | SeqLang::Transpose(_) => {
            vec![Num, Num, Data]
        }
        SeqLang::Shift(_) => vec![Num, Num, Lit, Data],
        SeqLang::Atom(..) => vec![Data],
        SeqLang::ATuple(_) | SeqLang::STuple(_) | SeqLang::STupleAppend(_) => vec![Data, Data],
        SeqLang::Num(_) | SeqLang::Scalar(_) | SeqLang::Lit(_) | SeqLang::Input(_) => vec![],
    }
}

/// The role of every variable of a pattern (the first occurrence decides; a conflicting
/// later occurrence is an error). `root` is the role of the whole pattern.
pub fn var_roles(pat: &Pat, root: Role) -> Result<IndexMap<Var, Role>, String> {
    let nodes = pat.as_ref();
    let mut roles: Vec<Option<Role>> = vec![None; nodes.len()];
    if let Some(last) = roles.last_mut() {
        *last = Some(root);
    }
    let mut out: IndexMap<Var, Role> = IndexMap::new();
    for i in (0..nodes.len()).rev() {
        match &nodes[i] {
            ENodeOrVar::Var(v) => {
                let r = roles[i].unwrap_or(Role::Data);
                match out.get(v) {
                    Some(prev) if *prev != r && !(is_body(*prev) && is_body(r)) => {
                        return Err(format!(
                            "variable {v} stands for {} in one place and {} in another",
                            prev.describe(),
                            r.describe()
                        ))
                    }
                    Some(_) => {}
                    None => {
                        out.insert(*v, r);
                    }
                }
            }
            ENodeOrVar::ENode(n) => {
                for (c, r) in egg::Language::children(n).iter().zip(child_roles(n)) {
                    roles[usize::from(*c)] = Some(r);
                }
            }
        }
    }
    out.reverse();
    Ok(out)
}

fn is_body(r: Role) -> bool {
    matches!(r, Role::Body(_))
}

/// Reads a pattern. `file` names the source in errors.
pub fn parse_pattern(file: &str, sx: &Sexp) -> Result<Pat, Diagnostic> {
    let mut pat = Pat::default();
    add_sexp(file, sx, &mut pat)?;
    Ok(pat)
}

fn add_sexp(file: &str, sx: &Sexp, pat: &mut Pat) -> Result<Id, Diagnostic> {
    let err = |m: String| Diagnostic::at(file, sx.pos, m);
    match &sx.kind {
        SexpKind::Atom(a) => {
            let node = if let Some(name) = a.strip_prefix('?') {
                let ok = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if !ok {
                    return Err(err(format!(
                        "`{a}`: a variable is `?` followed by letters, digits, `_` or `-`"
                    )));
                }
                ENodeOrVar::Var(a.parse().map_err(|_| err(format!("bad variable `{a}`")))?)
            } else if let Ok(n) = a.parse::<u64>() {
                ENodeOrVar::ENode(SeqLang::Num(n))
            } else if a == "_" {
                ENodeOrVar::ENode(SeqLang::Lit(Literal::undef()))
            } else if let Ok(s) = a.parse::<ScalarName>() {
                ENodeOrVar::ENode(SeqLang::Scalar(s))
            } else {
                return Err(err(format!(
                    "unexpected `{a}` in a pattern: expected a variable `?x`, a number, `_`, a scalar type, or an operator form `(op ...)`"
                )));
            };
            Ok(pat.add(node))
        }
        SexpKind::List(items) => {
            let Some(head) = sx.head() else {
                return Err(err(format!(
                    "expected an operator form `(op ...)`, found `{}`",
                    sx.excerpt(40)
                )));
            };
            let args = &items[1..];
            // `(arg I)`: the type is inferred.
            if head == "arg" && args.len() == 1 {
                let i = add_sexp(file, &args[0], pat)?;
                let k = pat
                    .as_ref()
                    .iter()
                    .filter(|n| matches!(n, ENodeOrVar::Var(v) if is_infer(*v)))
                    .count();
                let t = pat.add(ENodeOrVar::Var(numbered_infer_var(k)));
                return Ok(pat.add(ENodeOrVar::ENode(SeqLang::Arg([i, t]))));
            }
            // `(cast_uint16 x)`, the one-word form of a cast, is `(cast uint16 x)`.
            if let Some(AtomOp::Cast(to)) = AtomOp::ALL.into_iter().find(|a| a.name() == head) {
                if args.len() != 1 {
                    return Err(err(format!(
                        "`{head}` takes 1 argument(s) in a pattern, found {}",
                        args.len()
                    )));
                }
                let t = pat.add(ENodeOrVar::ENode(SeqLang::Scalar(ScalarName(to))));
                let x = add_sexp(file, &args[0], pat)?;
                return Ok(pat.add(ENodeOrVar::ENode(SeqLang::Cast([t, x]))));
            }
            let mut ids = Vec::with_capacity(args.len());
            for a in args {
                ids.push(add_sexp(file, a, pat)?);
            }
            let node = make_node(head, ids).map_err(err)?;
            Ok(pat.add(ENodeOrVar::ENode(node)))
        }
    }
}

/// Builds the node for operator `head` with these children.
pub fn make_node(head: &str, c: Vec<Id>) -> Result<SeqLang, String> {
    let arity = |n: usize| -> Result<(), String> {
        if c.len() == n {
            Ok(())
        } else {
            Err(format!(
                "`{head}` takes {n} argument(s) in a pattern, found {}",
                c.len()
            ))
        }
    };
    let a2 = || [c[0], c[1]];
    let a3 = || [c[0], c[1], c[2]];
    Ok(match head {
        "seq" => {
            arity(2)?;
            SeqLang::TSeq(a2())
        }
        "stuple_type" => {
            arity(2)?;
            SeqLang::TSTuple(a2())
        }
        "atuple_type" => {
            arity(2)?;
            SeqLang::TATuple(a2())
        }
        "arg" => {
            arity(2)?;
            SeqLang::Arg(a2())
        }
        "const" => {
            arity(2)?;
            SeqLang::Const(a2())
        }
        "counter" => {
            arity(3)?;
            SeqLang::Counter(a3())
        }
        "cast" => {
            arity(2)?;
            SeqLang::Cast(a2())
        }
        "atuple" => {
            arity(2)?;
            SeqLang::ATuple(a2())
        }
        "map" => {
            arity(3)?;
            SeqLang::Map(a3())
        }
        "map2" => {
            arity(4)?;
            SeqLang::Map2([c[0], c[1], c[2], c[3]])
        }
        "reduce" => {
            arity(3)?;
            SeqLang::Reduce(a3())
        }
        "hmap" => {
            arity(3)?;
            SeqLang::HMap(a3())
        }
        "list_to_seq" => {
            if c.is_empty() {
                return Err("`list_to_seq` needs at least one function".into());
            }
            SeqLang::ListToSeq(c.into_boxed_slice())
        }
        "up_1d" => {
            arity(2)?;
            SeqLang::Up(a2())
        }
        "down_1d" | "select_1d" => {
            arity(3)?;
            SeqLang::Down(a3())
        }
        "shift" => {
            arity(4)?;
            SeqLang::Shift([c[0], c[1], c[2], c[3]])
        }
        "partition" => {
            arity(3)?;
            SeqLang::Partition(a3())
        }
        "unpartition" => {
            arity(3)?;
            SeqLang::Unpartition(a3())
        }
        "transpose" => {
            arity(3)?;
            SeqLang::Transpose(a3())
        }
        "stuple" => {
            arity(2)?;
            SeqLang::STuple(a2())
        }
        "stuple_append" => {
            arity(2)?;
            SeqLang::STupleAppend(a2())
        }
        "stuple_to_seq" => {
            arity(2)?;
            SeqLang::STupleToSeq(a2())
        }
        "seq_to_stuple" => {
            arity(2)?;
            SeqLang::SeqToSTuple(a2())
        }
        other => match other.parse::<AtomName>() {
            Ok(a) => {
                arity(1)?;
                SeqLang::Atom(a, [c[0]])
            }
            Err(_) => return Err(format!("unknown operator `{other}` in a pattern")),
        },
    })
}

/// The variables of a pattern, in order of first appearance.
pub fn pattern_vars(pat: &Pat) -> Vec<Var> {
    let mut out: Vec<Var> = Vec::new();
    for n in pat.as_ref() {
        if let ENodeOrVar::Var(v) = n {
            if !out.contains(v) {
                out.push(*v);
            }
        }
    }
    out
}

/// Prints a pattern as an s-expression, with inferred `arg` types left out.
pub fn show_pattern(pat: &Pat) -> String {
    fn go(pat: &Pat, id: Id, out: &mut String) {
        match &pat[id] {
            ENodeOrVar::Var(v) => out.push_str(&v.to_string()),
            ENodeOrVar::ENode(n) => {
                let kids = egg::Language::children(n);
                if kids.is_empty() {
                    out.push_str(&n.to_string());
                    return;
                }
                out.push('(');
                out.push_str(&n.op_name());
                for k in kids {
                    if let (SeqLang::Arg(_), ENodeOrVar::Var(v)) = (n, &pat[*k]) {
                        if is_infer(*v) {
                            continue;
                        }
                    }
                    out.push(' ');
                    go(pat, *k, out);
                }
                out.push(')');
            }
        }
    }
    let mut s = String::new();
    if let Some(last) = pat.as_ref().len().checked_sub(1) {
        go(pat, Id::from(last), &mut s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::sexp::parse_file;

    fn pat(text: &str) -> Result<Pat, Diagnostic> {
        let forms = parse_file("t.rules", text).unwrap();
        parse_pattern("t.rules", &forms[0])
    }

    #[test]
    fn parses_and_prints() {
        let p = pat("(map ?n (partition 2 ?b (arg 0)) ?x)").unwrap();
        assert_eq!(show_pattern(&p), "(map ?n (partition 2 ?b (arg 0)) ?x)");
        let roles = var_roles(&p, Role::Data).unwrap();
        assert_eq!(roles[&"?n".parse::<Var>().unwrap()], Role::Num);
        assert_eq!(roles[&"?x".parse::<Var>().unwrap()], Role::Data);
    }

    #[test]
    fn rejects_malformed() {
        let e = pat("(map ?n ?f)").unwrap_err();
        assert!(e.message.contains("takes 3"), "{e}");
        let e = pat("(frobnicate ?x)").unwrap_err();
        assert!(e.message.contains("unknown operator"), "{e}");
        let e = pat("(map ?n ?x ?x)").unwrap();
        assert!(var_roles(&e, Role::Data).is_err());
    }
}
