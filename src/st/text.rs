//! The `.st` design format: s-expressions read with [`crate::util::sexp::parse_file`].
//! `docs/space-time.md` documents it; [`Design::to_text`] writes it and [`parse_design`]
//! reads it back losslessly (`parse_design(d.to_text())` is `d` up to [`Design::canonical`]).
//!
//! ```text
//! (design map4abs_s2)
//! (input I (tseq 2 0 (sseq 2 int8)))
//! (output (map_t 2 0 (map_s 2 abs) I))
//! ```
//!
//! Every node is built through the checked builder, so a file that parses is well typed;
//! errors carry the file, line and column of the offending form.

use super::design::{Design, NodeId};
use super::layout::Layout;
use super::op::StOp;
use crate::seq::op::AtomOp;
use crate::seq::types::{normalize_name, ScalarType, SeqType};
use crate::seq::value::{format_scalar, parse_scalar, Value};
use crate::util::diag::{Diagnostic, Pos};
use crate::util::sexp::{parse_file, Sexp, SexpKind};
use std::collections::HashMap;
use std::path::Path;

/// Reads a design file; the design is named by its `(design NAME)` form, else the file stem.
pub fn load_design(path: &Path) -> Result<Design, Diagnostic> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::file(&file, format!("cannot read the file: {e}")))?;
    parse_design(&file, &text)
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
    super::check::check_design(&p.d).map_err(|m| p.err(pos, m))?;
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
        sx.atom()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|n| *n <= super::layout::MAX_SIZE)
            .ok_or_else(|| {
                self.err(
                    sx.pos,
                    format!(
                        "expected a whole number for the {what}, found `{}`",
                        sx.excerpt(40)
                    ),
                )
            })
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

    /// Parses a literal of type `t`.
    fn literal(&self, sx: &Sexp, t: &SeqType) -> Result<Value, Diagnostic> {
        match (t, &sx.kind) {
            (_, SexpKind::Atom(a)) if a == "_" => Ok(Value::Undef),
            (SeqType::Scalar(s), SexpKind::Atom(text)) => parse_scalar(text, *s)
                .map(Value::Scalar)
                .map_err(|m| self.err(sx.pos, m)),
            (SeqType::ATuple(a, b), SexpKind::List(xs)) if xs.len() == 2 => Ok(Value::pair(
                self.literal(&xs[0], a)?,
                self.literal(&xs[1], b)?,
            )),
            (SeqType::Seq(n, e) | SeqType::STuple(n, e), SexpKind::List(xs))
                if xs.len() as u64 == *n =>
            {
                xs.iter()
                    .map(|x| self.literal(x, e))
                    .collect::<Result<_, _>>()
                    .map(Value::List)
            }
            _ => Err(self.err(
                sx.pos,
                format!("expected a literal of type {t}, found `{}`", sx.excerpt(40)),
            )),
        }
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

    /// Reads the static parameters of a first-order operator. `None` for the higher-order
    /// operators, which are read by [`Parser::higher_order`].
    fn op_params(
        &mut self,
        key: &str,
        head: &str,
        c: &mut Cursor<'_>,
    ) -> Result<Option<StOp>, Diagnostic> {
        let form = c.form;
        if let Some(a) = AtomOp::ALL
            .into_iter()
            .find(|a| normalize_name(a.name()) == key)
        {
            return Ok(Some(StOp::Atom(a)));
        }
        let op = match key {
            "atuple" => StOp::ATuple,
            "stuple" => StOp::STuple,
            "stupleappend" => StOp::STupleAppend,
            "maps" | "mapt" | "map2s" | "map2t" | "reduces" | "reducet" => return Ok(None),
            "const" => {
                let layout = self.layout(
                    c.next()
                        .ok_or_else(|| self.err(form.pos, "const: missing the layout"))?,
                )?;
                let v = c
                    .next()
                    .ok_or_else(|| self.err(form.pos, "const: missing the value"))?;
                let value = self.literal(v, &layout.to_seq())?;
                let delay = self.delay(c)?;
                StOp::Const {
                    value,
                    layout,
                    delay,
                }
            }
            "counter" => {
                let layout = self.layout(
                    c.next()
                        .ok_or_else(|| self.err(form.pos, "counter: missing the layout"))?,
                )?;
                let incr = self.num(c.next(), form, "increment")?;
                let delay = self.delay(c)?;
                StOp::Counter {
                    layout,
                    incr,
                    delay,
                }
            }
            "up1ds" => StOp::UpS {
                n: self.num(c.next(), form, "n")?,
                elem: self.elem(c)?,
            },
            "up1dt" => StOp::UpT {
                n: self.num(c.next(), form, "n")?,
                i: self.num(c.next(), form, "invalid count")?,
                elem: self.elem(c)?,
            },
            "down1ds" | "select1ds" => StOp::DownS {
                n: self.num(c.next(), form, "n")?,
                idx: self.num(c.next(), form, "index")?,
                elem: self.elem(c)?,
            },
            "down1dt" | "select1dt" => StOp::DownT {
                n: self.num(c.next(), form, "n")?,
                i: self.num(c.next(), form, "invalid count")?,
                idx: self.num(c.next(), form, "index")?,
                elem: self.elem(c)?,
            },
            "shifts" => {
                let (n, amount) = (
                    self.num(c.next(), form, "n")?,
                    self.num(c.next(), form, "amount")?,
                );
                let elem = self.elem(c)?;
                let init = self.init(c, &elem)?;
                StOp::ShiftS {
                    n,
                    amount,
                    elem,
                    init,
                }
            }
            "shiftt" => {
                let n = self.num(c.next(), form, "n")?;
                let i = self.num(c.next(), form, "invalid count")?;
                let amount = self.num(c.next(), form, "amount")?;
                let elem = self.elem(c)?;
                let init = self.init(c, &elem)?;
                StOp::ShiftT {
                    n,
                    i,
                    amount,
                    elem,
                    init,
                }
            }
            "shiftts" => {
                let no = self.num(c.next(), form, "outer n")?;
                let io = self.num(c.next(), form, "outer invalid count")?;
                let ni = self.num(c.next(), form, "inner n")?;
                let amount = self.num(c.next(), form, "amount")?;
                let elem = self.elem(c)?;
                let init = self.init(c, &elem)?;
                StOp::ShiftTS {
                    no,
                    io,
                    ni,
                    amount,
                    elem,
                    init,
                }
            }
            "shifttt" => {
                let no = self.num(c.next(), form, "outer n")?;
                let ni = self.num(c.next(), form, "inner n")?;
                let io = self.num(c.next(), form, "outer invalid count")?;
                let ii = self.num(c.next(), form, "inner invalid count")?;
                let amount = self.num(c.next(), form, "amount")?;
                let elem = self.elem(c)?;
                let init = self.init(c, &elem)?;
                StOp::ShiftTT {
                    no,
                    ni,
                    io,
                    ii,
                    amount,
                    elem,
                    init,
                }
            }
            "shifttn" => {
                let no = self.num(c.next(), form, "outer n")?;
                let io = self.num(c.next(), form, "outer invalid count")?;
                let nis = self.nums(c.next(), form, "inner lengths")?;
                let iis = self.nums(c.next(), form, "inner invalid counts")?;
                let amount = self.num(c.next(), form, "amount")?;
                let elem = self.elem(c)?;
                let init = self.init(c, &elem)?;
                StOp::ShiftTN {
                    no,
                    io,
                    nis,
                    iis,
                    amount,
                    elem,
                    init,
                }
            }
            "partitionsss" | "unpartitionsss" => {
                let no = self.num(c.next(), form, "outer n")?;
                let ni = self.num(c.next(), form, "inner n")?;
                let elem = self.elem(c)?;
                if key == "partitionsss" {
                    StOp::PartitionSS { no, ni, elem }
                } else {
                    StOp::UnpartitionSS { no, ni, elem }
                }
            }
            "partitionttt" | "unpartitionttt" => {
                let no = self.num(c.next(), form, "outer n")?;
                let ni = self.num(c.next(), form, "inner n")?;
                let io = self.num(c.next(), form, "outer invalid count")?;
                let ii = self.num(c.next(), form, "inner invalid count")?;
                let elem = self.elem(c)?;
                if key == "partitionttt" {
                    StOp::PartitionTT {
                        no,
                        ni,
                        io,
                        ii,
                        elem,
                    }
                } else {
                    StOp::UnpartitionTT {
                        no,
                        ni,
                        io,
                        ii,
                        elem,
                    }
                }
            }
            "serialize" | "deserialize" => {
                let n = self.num(c.next(), form, "n")?;
                let i = self.num(c.next(), form, "invalid count")?;
                let elem = self.elem(c)?;
                if key == "serialize" {
                    StOp::Serialize { n, i, elem }
                } else {
                    StOp::Deserialize { n, i, elem }
                }
            }
            "stupletosseq" | "sseqtostuple" => {
                let n = self.num(c.next(), form, "n")?;
                let elem = self.elem(c)?;
                if key == "stupletosseq" {
                    StOp::STupleToSSeq { n, elem }
                } else {
                    StOp::SSeqToSTuple { n, elem }
                }
            }
            "reshape" => {
                let from = self.elem(c)?;
                let to = self.elem(c)?;
                StOp::Reshape { from, to }
            }
            "fifo" => {
                let layout = self.elem(c)?;
                let delay = self.num(c.next(), form, "delay")?;
                StOp::Fifo { layout, delay }
            }
            _ => {
                return Err(self.err(
                    form.pos,
                    format!("unknown operator `{head}` (see docs/space-time.md for the list)"),
                ))
            }
        };
        Ok(Some(op))
    }

    fn elem(&self, c: &mut Cursor<'_>) -> Result<Layout, Diagnostic> {
        let sx = c.next().ok_or_else(|| {
            self.err(
                c.form.pos,
                format!("`{}`: missing a layout", c.form.excerpt(40)),
            )
        })?;
        self.layout(sx)
    }

    fn nums(&self, sx: Option<&Sexp>, form: &Sexp, what: &str) -> Result<Vec<u64>, Diagnostic> {
        let sx = sx.ok_or_else(|| self.err(form.pos, format!("missing the {what}")))?;
        let xs = sx
            .list()
            .ok_or_else(|| self.err(sx.pos, format!("expected a list of {what}, like (2 3)")))?;
        xs.iter().map(|x| self.num(Some(x), form, what)).collect()
    }

    fn init(&self, c: &mut Cursor<'_>, elem: &Layout) -> Result<Option<Value>, Diagnostic> {
        match c.option("init") {
            Some(f) => match f.list() {
                Some([_, v]) => Ok(Some(self.literal(v, &elem.to_seq())?)),
                _ => Err(self.err(f.pos, "expected (init VALUE)")),
            },
            None => Ok(None),
        }
    }

    fn delay(&self, c: &mut Cursor<'_>) -> Result<u64, Diagnostic> {
        match c.option("delay") {
            Some(f) => match f.list() {
                Some([_, v]) => self.num(Some(v), f, "delay"),
                _ => Err(self.err(f.pos, "expected (delay CLOCKS)")),
            },
            None => Ok(0),
        }
    }

    /// `(map_s N F x)`, `(map_t N I F x)`, `(map2_s N F x y)`, `(map2_t N I F x y)`,
    /// `(reduce_s N F x)`, `(reduce_t N I F x)`. The inputs are read first: they fix the
    /// layouts of the function's parameters.
    fn higher_order(
        &mut self,
        key: &str,
        sx: &Sexp,
        c: &mut Cursor<'_>,
        env: &Env,
        extra: &[NodeId],
    ) -> Result<NodeId, Diagnostic> {
        let form = c.form;
        let n = self.num(c.next(), form, "n")?;
        let timed = key.ends_with('t');
        let i = if timed {
            self.num(c.next(), form, "invalid count")?
        } else {
            0
        };
        let f = c
            .next()
            .ok_or_else(|| self.err(form.pos, format!("{key}: missing the function")))?;
        let mut args = Vec::new();
        for a in c.rest() {
            args.push(self.expr(a, env)?);
        }
        args.extend_from_slice(extra);
        let arity = if key.starts_with("map2") { 2 } else { 1 };
        if args.len() != arity {
            return Err(self.err(
                sx.pos,
                format!(
                    "`{}` takes {arity} input(s), found {}",
                    form.excerpt(30),
                    args.len()
                ),
            ));
        }
        // The element layout each input carries, per the operator's outer layer.
        let mut params = Vec::new();
        for a in &args {
            let l = self.d.layout(*a);
            let e = match (l, timed) {
                (Layout::SSeq(m, e), false) if *m == n => Some(e.as_ref().clone()),
                (Layout::TSeq(m, j, e), true) if *m == n && *j == i => Some(e.as_ref().clone()),
                _ => None,
            };
            let e = e.ok_or_else(|| {
                let want = if timed { format!("(tseq {n} {i} _)") } else { format!("(sseq {n} _)") };
                self.err(
                    sx.pos,
                    format!("{key}: layout mismatch: the operator takes {want}, but its input gives {l}"),
                )
            })?;
            params.push(if key.starts_with("reduce") {
                e.zipped_pair()
            } else {
                e
            });
        }
        let body = self.function(f, params)?;
        let op = match key {
            "maps" => StOp::MapS { n, body },
            "mapt" => StOp::MapT { n, i, body },
            "map2s" => StOp::Map2S { n, body },
            "map2t" => StOp::Map2T { n, i, body },
            "reduces" => StOp::ReduceS { n, body },
            _ => StOp::ReduceT { n, i, body },
        };
        self.d.add(op, &args).map_err(|m| self.err(sx.pos, m))
    }

    /// A function: `(fn (x ..) BODY)`, `(fn ((x LAYOUT) ..) BODY)`, an operator name
    /// (`abs`) or an operator form missing its inputs (`(map_s 2 abs)`).
    fn function(
        &mut self,
        f: &Sexp,
        params: Vec<Layout>,
    ) -> Result<super::design::BodyId, Diagnostic> {
        let mut args = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let k = u8::try_from(k).map_err(|_| self.err(f.pos, "too many parameters"))?;
            args.push(
                self.d
                    .add_arg(k, p.clone())
                    .map_err(|m| self.err(f.pos, m))?,
            );
        }
        let root = if f.head().map(normalize_name).as_deref() == Some("fn") {
            let items = f.list().unwrap_or_default();
            let (Some(names), Some(body), 3) =
                (items.get(1).and_then(Sexp::list), items.get(2), items.len())
            else {
                return Err(self.err(f.pos, "expected (fn (PARAM ...) BODY)"));
            };
            if names.len() != params.len() {
                return Err(self.err(
                    f.pos,
                    format!(
                        "the function must take {} parameter(s), it names {}",
                        params.len(),
                        names.len()
                    ),
                ));
            }
            let mut env = Env {
                locals: Vec::new(),
                closed: true,
            };
            for ((nm, arg), p) in names.iter().zip(&args).zip(&params) {
                let name = match nm.list() {
                    Some([n, l]) => {
                        let declared = self.layout(l)?;
                        if &declared != p {
                            return Err(self.err(
                                l.pos,
                                format!("layout mismatch: this parameter receives {p}, but is declared {declared}"),
                            ));
                        }
                        self.word(n, "a parameter name")?
                    }
                    _ => self.word(nm, "a parameter name")?,
                };
                env.locals.push((name.to_string(), *arg));
            }
            self.expr(body, &env)?
        } else {
            let env = Env {
                locals: Vec::new(),
                closed: true,
            };
            self.apply(f, &env, &args)?
        };
        self.d
            .add_body(params, root)
            .map_err(|m| self.err(f.pos, m))
    }
}

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
            w.node_doc(o, 0).pretty(2, &mut s);
            out.push_str(&s);
            out.push_str(")\n");
        }
        out
    }
}

struct Writer<'d> {
    d: &'d Design,
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
        let mut out = Vec::new();
        for id in scope {
            let shared = uses.get(id).copied().unwrap_or(0) > 1;
            if shared && !self.names.contains_key(id) {
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
            StOp::MapS { n, body } | StOp::Map2S { n, body } | StOp::ReduceS { n, body } => {
                items.push(num(*n));
                items.push(self.body_doc(*body, depth));
            }
            StOp::MapT { n, i, body }
            | StOp::Map2T { n, i, body }
            | StOp::ReduceT { n, i, body } => {
                items.push(num(*n));
                items.push(num(*i));
                items.push(self.body_doc(*body, depth));
            }
            op => items.extend(params_doc(op)),
        }
        for a in &node.args {
            items.push(self.arg_doc(*a, depth));
        }
        Doc::List(items)
    }

    fn arg_doc(&mut self, a: NodeId, depth: usize) -> Doc {
        match self.names.get(&a) {
            Some(n) => Doc::Atom(n.clone()),
            None => self.node_doc(a, depth),
        }
    }

    fn body_doc(&mut self, b: super::design::BodyId, depth: usize) -> Doc {
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
        StOp::Fifo { layout, delay } => v.extend([layout_doc(layout), num(*delay)]),
        _ => {}
    }
    v
}
