//! Reading `.st` files: top-level forms, expressions, names and layouts.

mod ops;

use crate::seq::types::{normalize_name, ScalarType, SeqType};
use crate::seq::value::{parse_literal, Value};
use crate::st::design::{Design, NodeId};
use crate::st::layout::Layout;
use crate::st::op::StOp;
use crate::util::diag::{Diagnostic, Pos};
use crate::util::sexp::{parse_file, Sexp, SexpKind};
use std::collections::HashMap;
use std::path::Path;

/// Reads a design file; the design is named by its `(design NAME)` form, else the file stem.
pub fn load_design(path: &Path) -> Result<Design, Diagnostic> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::file(&file, format!("cannot read the file: {e}")))?;
    parse_design(&file, &text).map_err(|mut e| {
        // a program given where a design is read: say which is which
        if path.extension().is_some_and(|x| x == "seq") {
            e.message.push_str(
                "\n  (this reads a space-time design, a .st file; a .seq file is a program: \
                 `tessera schedule FILE.seq --slowdown S -o FILE.st` writes its design)",
            );
        }
        e
    })
}

/// Parses one layout written as in `.st` files (`(tseq 16 0 uint8)`); `what` names the
/// text in errors (a file, or a command-line option).
pub fn parse_layout(what: &str, text: &str) -> Result<Layout, Diagnostic> {
    let forms = parse_file(what, text)?;
    let [form] = forms.as_slice() else {
        return Err(Diagnostic::file(
            what,
            format!("expected one layout, found {} forms", forms.len()),
        ));
    };
    let p = Parser {
        file: what,
        d: Design::new("layout"),
        globals: HashMap::new(),
    };
    p.layout(form)
}

/// Parses and checks design text; `file` names it in errors (and, through its stem, names a
/// design without a `(design NAME)` form).
pub fn parse_design(file: &str, text: &str) -> Result<Design, Diagnostic> {
    let forms = parse_file(file, text)?;
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "design".into());
    let mut p = Parser {
        file,
        d: Design::new(stem),
        globals: HashMap::new(),
    };
    let mut output = None;
    for form in &forms {
        let items = form.list().unwrap_or_default();
        let head = form.head().map(normalize_name).unwrap_or_default();
        match (head.as_str(), items) {
            ("design", [_, name]) => {
                p.d.name = p.word(name, "a design name")?.to_string();
            }
            ("input", [_, name, layout]) => {
                let n = p.word(name, "an input name")?.to_string();
                p.fresh(&n, name.pos)?;
                let l = p.layout(layout)?;
                let id = p.d.add_input(n.clone(), l).map_err(|m| p.err(form.pos, m))?;
                p.globals.insert(n, id);
            }
            ("let", [_, name, e]) => {
                let n = p.word(name, "a name")?.to_string();
                p.fresh(&n, name.pos)?;
                let id = p.expr(e, &Env::default())?;
                p.globals.insert(n, id);
            }
            ("output", [_, e]) => {
                if output.is_some() {
                    return Err(p.err(form.pos, "a design has exactly one output form"));
                }
                output = Some((p.expr(e, &Env::default())?, form.pos));
            }
            _ => {
                return Err(p.err(
                    form.pos,
                    format!(
                        "expected (design NAME), (input NAME LAYOUT), (let NAME EXPR) or (output EXPR), found `{}`",
                        form.excerpt(50)
                    ),
                ))
            }
        }
    }
    let Some((out, pos)) = output else {
        return Err(Diagnostic::file(
            file,
            "the design has no output: add `(output EXPR)`",
        ));
    };
    if p.d.inputs.is_empty() {
        return Err(Diagnostic::file(
            file,
            "the design has no input: add `(input NAME LAYOUT)`",
        ));
    }
    p.d.set_output(out).map_err(|m| p.err(pos, m))?;
    crate::st::check::check_design(&p.d).map_err(|m| p.err(pos, m))?;
    Ok(p.d)
}

/// Names visible inside an expression.
#[derive(Clone, Default)]
struct Env {
    locals: Vec<(String, NodeId)>,
    /// Inside a function body, design-level names are invisible.
    closed: bool,
}

struct Parser<'a> {
    file: &'a str,
    d: Design,
    globals: HashMap<String, NodeId>,
}

/// Parameters read from an operator form, in order.
struct Cursor<'s> {
    items: &'s [Sexp],
    at: usize,
    form: &'s Sexp,
}

impl<'s> Cursor<'s> {
    fn next(&mut self) -> Option<&'s Sexp> {
        let x = self.items.get(self.at);
        self.at += 1;
        x
    }

    /// An optional `(KEY ...)` form at the cursor.
    fn option(&mut self, key: &str) -> Option<&'s Sexp> {
        let x = self.items.get(self.at)?;
        if x.head().map(normalize_name).as_deref() == Some(key) {
            self.at += 1;
            Some(x)
        } else {
            None
        }
    }

    fn rest(&self) -> &'s [Sexp] {
        self.items.get(self.at..).unwrap_or_default()
    }
}

impl Parser<'_> {
    fn err(&self, pos: Pos, m: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.file, pos, m)
    }

    fn word<'s>(&self, sx: &'s Sexp, what: &str) -> Result<&'s str, Diagnostic> {
        sx.atom().ok_or_else(|| {
            self.err(
                sx.pos,
                format!("expected {what}, found `{}`", sx.excerpt(40)),
            )
        })
    }

    fn fresh(&self, name: &str, pos: Pos) -> Result<(), Diagnostic> {
        if self.globals.contains_key(name) {
            return Err(self.err(pos, format!("`{name}` is defined twice")));
        }
        Ok(())
    }

    fn num(&self, sx: Option<&Sexp>, form: &Sexp, what: &str) -> Result<u64, Diagnostic> {
        let sx = sx.ok_or_else(|| {
            self.err(
                form.pos,
                format!("`{}`: missing the {what}", form.excerpt(40)),
            )
        })?;
        sx.natural(what, crate::st::layout::MAX_SIZE)
            .map_err(|e| self.err(sx.pos, e))
    }

    /// Parses a layout.
    pub(crate) fn layout(&self, sx: &Sexp) -> Result<Layout, Diagnostic> {
        let l = self.layout_inner(sx)?;
        l.validate().map_err(|m| self.err(sx.pos, m))?;
        Ok(l)
    }

    fn layout_inner(&self, sx: &Sexp) -> Result<Layout, Diagnostic> {
        if let Some(w) = sx.atom() {
            return ScalarType::from_name(w).map(Layout::Scalar).ok_or_else(|| {
                self.err(sx.pos, format!("unknown layout `{w}`: expected a scalar type or an (sseq ..), (tseq ..), (stuple ..), (atuple ..) form"))
            });
        }
        let items = sx.list().unwrap_or_default();
        let head = sx.head().map(normalize_name).unwrap_or_default();
        let n = |k: usize| self.num(items.get(k), sx, "length");
        match (head.as_str(), items.len()) {
            ("sseq", 3) => Ok(Layout::sseq(n(1)?, self.layout_inner(&items[2])?)),
            ("stuple", 3) => Ok(Layout::stuple(n(1)?, self.layout_inner(&items[2])?)),
            ("tseq", 4) => Ok(Layout::tseq(n(1)?, n(2)?, self.layout_inner(&items[3])?)),
            ("atuple", 3) => Ok(Layout::atuple(
                self.layout_inner(&items[1])?,
                self.layout_inner(&items[2])?,
            )),
            _ => Err(self.err(
                sx.pos,
                format!("expected a layout such as int8, (sseq N L), (tseq N I L), (stuple N L) or (atuple A B), found `{}`", sx.excerpt(40)),
            )),
        }
    }

    /// Parses a literal of type `t` ([`crate::seq::value::parse_literal`]).
    fn literal(&self, sx: &Sexp, t: &SeqType) -> Result<Value, Diagnostic> {
        parse_literal(self.file, sx, t)
    }

    fn expr(&mut self, sx: &Sexp, env: &Env) -> Result<NodeId, Diagnostic> {
        if let Some(w) = sx.atom() {
            if let Some((_, id)) = env.locals.iter().rev().find(|(n, _)| n == w) {
                return Ok(*id);
            }
            if !env.closed {
                if let Some(id) = self.globals.get(w) {
                    return Ok(*id);
                }
            }
            let hint = if env.closed && self.globals.contains_key(w) {
                " (a function body is closed: it sees only its parameters)"
            } else {
                ""
            };
            return Err(self.err(sx.pos, format!("undefined name `{w}`{hint}")));
        }
        if sx.head().map(normalize_name).as_deref() == Some("let") {
            return self.local_let(sx, env);
        }
        self.apply(sx, env, &[])
    }

    /// `(let ((NAME EXPR) ...) BODY)`.
    fn local_let(&mut self, sx: &Sexp, env: &Env) -> Result<NodeId, Diagnostic> {
        let items = sx.list().unwrap_or_default();
        let (Some(binds), Some(body), 3) =
            (items.get(1).and_then(Sexp::list), items.get(2), items.len())
        else {
            return Err(self.err(sx.pos, "expected (let ((NAME EXPR) ...) BODY)"));
        };
        let mut env = env.clone();
        for b in binds {
            match b.list() {
                Some([name, e]) => {
                    let n = self.word(name, "a name")?.to_string();
                    let id = self.expr(e, &env)?;
                    env.locals.push((n, id));
                }
                _ => return Err(self.err(b.pos, "expected a binding (NAME EXPR)")),
            }
        }
        self.expr(body, &env)
    }

    /// An operator form; `extra` are data inputs supplied by an enclosing higher-order
    /// operator when the form is used as a function.
    fn apply(&mut self, sx: &Sexp, env: &Env, extra: &[NodeId]) -> Result<NodeId, Diagnostic> {
        let (head_sx, items): (&Sexp, &[Sexp]) = match &sx.kind {
            SexpKind::Atom(_) => (sx, &[]),
            SexpKind::List(xs) if !xs.is_empty() => (&xs[0], &xs[1..]),
            SexpKind::List(_) => {
                return Err(self.err(sx.pos, "expected an operator form, found ()"))
            }
        };
        let head = self.word(head_sx, "an operator name")?;
        let key = normalize_name(head);
        let mut c = Cursor {
            items,
            at: 0,
            form: sx,
        };
        let Some(op) = self.op_params(&key, head, &mut c)? else {
            // higher-order: (map_s N F x) etc.; the function comes before the inputs.
            return self.higher_order(&key, sx, &mut c, env, extra);
        };
        let mut args = Vec::new();
        for a in c.rest() {
            args.push(self.expr(a, env)?);
        }
        args.extend_from_slice(extra);
        // Binary atom operators accept their two operands directly: (add x y).
        if let StOp::Atom(a) = op {
            if args.len() == 2 && a.sugar_arity() >= 2 {
                let t = self
                    .d
                    .add(StOp::ATuple, &args)
                    .map_err(|m| self.err(sx.pos, m))?;
                args = vec![t];
            }
        }
        if let StOp::Const { .. } | StOp::Counter { .. } = op {
            if !args.is_empty() {
                return Err(self.err(sx.pos, format!("{}: takes no inputs", op.name())));
            }
        }
        if args.len() != op.arity() {
            return Err(self.err(
                sx.pos,
                format!("{op}: takes {} input(s), found {}", op.arity(), args.len()),
            ));
        }
        self.d.add(op, &args).map_err(|m| self.err(sx.pos, m))
    }
}
