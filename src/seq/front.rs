//! The front end: reads a `.seq` file, resolves names, expands derived forms and type-checks
//! every node as it builds the [`Program`]. The syntax is documented in `docs/language.md`.
//!
//! Checking happens while building: a node is only added once its inputs are typed, so the
//! first error found is reported with the position of the form that caused it.

use super::build;
use super::derived;
use super::op::{AtomOp, Op};
use super::program::{NodeId, Program};
use super::types::{normalize_name, ScalarType, SeqType};
use super::value::{parse_scalar, Value};
use crate::util::diag::{Diagnostic, Pos};
use crate::util::sexp::{parse_file, Sexp};
use indexmap::IndexMap;
use std::path::Path;

/// The largest number of atoms one type may hold; far above the 1920x1080 apps, and low
/// enough that a typo such as `(seq 99999999999 ...)` is an error, not an out-of-memory.
pub const MAX_ATOMS: u64 = 1 << 28;

/// The deepest chain of expressions (through lets and defs) the front end elaborates: far
/// above real programs, and low enough that the recursive checker stays within a 2 MB
/// thread stack. The reader limits parenthesis nesting itself
/// ([`crate::util::sexp::MAX_NESTING`]).
pub const MAX_DEPTH: usize = 400;

/// Reads and checks a program file.
pub fn load_program(path: &Path) -> Result<Program, Diagnostic> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::file(&file, format!("cannot read the file: {e}")))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    parse_program(&file, &name, &text)
}

/// Checks program text; `file` names it in errors and `name` becomes the program's name.
pub fn parse_program(file: &str, name: &str, text: &str) -> Result<Program, Diagnostic> {
    let forms = parse_file(file, text)?;
    let mut front = Front {
        file,
        prog: Program::new(name),
        globals: IndexMap::new(),
        defs: IndexMap::new(),
        in_progress: Vec::new(),
        depth: 0,
    };
    let mut output: Option<&Sexp> = None;
    for form in &forms {
        front.declare(form, &mut output)?;
    }
    let Some(out) = output else {
        return Err(Diagnostic::file(
            file,
            "the program has no output: add a form `(output EXPR)`",
        ));
    };
    if front.prog.inputs.is_empty() {
        return Err(Diagnostic::file(
            file,
            "the program has no input: add a form `(input NAME TYPE)`",
        ));
    }
    // Check every let, used or not, so a broken binding never hides.
    for name in front.globals.keys().cloned().collect::<Vec<_>>() {
        front.global(&name, out.pos)?;
    }
    let root = front.expr(&out.list().expect("checked in declare")[1], &Env::top())?;
    front.prog.set_output(root);
    Ok(front.prog)
}

enum Global<'a> {
    Input(NodeId),
    Let(&'a Sexp, Option<NodeId>),
}

struct Def<'a> {
    params: Vec<String>,
    body: &'a Sexp,
}

struct Front<'a> {
    file: &'a str,
    prog: Program,
    globals: IndexMap<String, Global<'a>>,
    defs: IndexMap<String, Def<'a>>,
    /// Lets and defs being expanded, to report cycles.
    in_progress: Vec<String>,
    /// How many expressions are being elaborated, one inside the other.
    depth: usize,
}

/// The names visible in an expression.
#[derive(Clone, Default)]
struct Env {
    locals: Vec<(String, NodeId)>,
    /// Set inside function and def bodies, which may not read program-level names.
    closed: Option<&'static str>,
}

impl Env {
    fn top() -> Env {
        Env::default()
    }

    fn closed(what: &'static str) -> Env {
        Env {
            locals: Vec::new(),
            closed: Some(what),
        }
    }

    fn lookup(&self, name: &str) -> Option<NodeId> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }
}

/// What an operator keyword denotes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Head {
    Atom(AtomOp),
    ATuple,
    Map,
    Map2,
    Reduce,
    HMap,
    Up,
    Down,
    Shift,
    Partition,
    Unpartition,
    Transpose,
    STuple,
    STupleAppend,
    STupleToSeq,
    SeqToSTuple,
    Stencil1d,
    Stencil2d,
}

fn head_of(word: &str) -> Option<Head> {
    let key = normalize_name(word);
    if let Some(a) = AtomOp::ALL.into_iter().find(|a| a.name() == key) {
        return Some(Head::Atom(a));
    }
    Some(match key.as_str() {
        "atuple" | "tuple" => Head::ATuple,
        "map" => Head::Map,
        "map2" => Head::Map2,
        "reduce" => Head::Reduce,
        "hmap" => Head::HMap,
        "up1d" => Head::Up,
        "down1d" | "select1d" => Head::Down,
        "shift" => Head::Shift,
        "partition" => Head::Partition,
        "unpartition" => Head::Unpartition,
        "transpose" => Head::Transpose,
        "stuple" => Head::STuple,
        "stupleappend" => Head::STupleAppend,
        "stupletoseq" => Head::STupleToSeq,
        "seqtostuple" => Head::SeqToSTuple,
        "stencil1d" => Head::Stencil1d,
        "stencil2d" => Head::Stencil2d,
        _ => return None,
    })
}

impl Head {
    /// Names of the static parameters, in order.
    fn params(self) -> &'static [&'static str] {
        match self {
            Head::Map | Head::Map2 | Head::Reduce => &["n", "function"],
            Head::HMap => &["n", "functions"],
            Head::Up | Head::STupleToSeq | Head::SeqToSTuple => &["n"],
            Head::Down => &["n", "index"],
            Head::Shift => &["n", "amount"],
            Head::Partition | Head::Unpartition | Head::Transpose => &["no", "ni"],
            Head::Stencil1d => &["n", "w"],
            Head::Stencil2d => &["rows", "cols", "window-rows", "window-cols"],
            Head::Atom(_) | Head::ATuple | Head::STuple | Head::STupleAppend => &[],
        }
    }

    /// Whether an optional `(init V)` may follow the parameters.
    fn takes_init(self) -> bool {
        matches!(self, Head::Shift | Head::Stencil1d | Head::Stencil2d)
    }

    /// Accepted numbers of data inputs.
    fn arities(self) -> &'static [usize] {
        match self {
            Head::Atom(a) => match a.sugar_arity() {
                1 => &[1],
                2 => &[1, 2],
                _ => &[1, 3],
            },
            Head::ATuple | Head::Map2 | Head::STuple | Head::STupleAppend => &[2],
            _ => &[1],
        }
    }
}

impl<'a> Front<'a> {
    fn err(&self, pos: Pos, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.file, pos, msg)
    }

    /// Registers one top-level form.
    fn declare(&mut self, form: &'a Sexp, output: &mut Option<&'a Sexp>) -> Result<(), Diagnostic> {
        let items = form.list().ok_or_else(|| {
            self.err(
                form.pos,
                format!(
                    "expected a top-level form `(input ...)`, `(let ...)`, `(def ...)` or `(output ...)`, found `{}`",
                    form.excerpt(40)
                ),
            )
        })?;
        let head = form.head().map(normalize_name).unwrap_or_default();
        match head.as_str() {
            "input" => {
                let [_, name, ty] = items else {
                    return Err(self.err(form.pos, "expected `(input NAME TYPE)`"));
                };
                let name = self.binder(name)?;
                let ty = self.ty(ty)?;
                let id = self.prog.add_input(name.clone(), ty);
                self.globals.insert(name, Global::Input(id));
            }
            "let" => {
                let [_, name, expr] = items else {
                    return Err(self.err(form.pos, "expected `(let NAME EXPR)` at the top level"));
                };
                let name = self.binder(name)?;
                self.globals.insert(name, Global::Let(expr, None));
            }
            "def" => {
                let [_, name, params, body] = items else {
                    return Err(self.err(form.pos, "expected `(def NAME (PARAM ...) EXPR)`"));
                };
                let name = self.binder(name)?;
                let params = self.params(params)?;
                self.defs.insert(name, Def { params, body });
            }
            "output" => {
                if items.len() != 2 {
                    return Err(self.err(form.pos, "expected `(output EXPR)`"));
                }
                if output.is_some() {
                    return Err(self.err(form.pos, "a program has one output; this is a second"));
                }
                *output = Some(form);
            }
            _ => {
                return Err(self.err(
                    form.pos,
                    format!(
                        "expected a top-level form `(input ...)`, `(let ...)`, `(def ...)` or `(output ...)`, found `{}`",
                        form.excerpt(40)
                    ),
                ))
            }
        }
        Ok(())
    }

    /// A new name: a word that is not a number, not taken, and not an operator keyword.
    fn binder(&self, sx: &Sexp) -> Result<String, Diagnostic> {
        let Some(name) = sx.atom() else {
            return Err(self.err(
                sx.pos,
                format!("expected a name, found `{}`", sx.excerpt(40)),
            ));
        };
        let starts_ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        if !starts_ok {
            return Err(self.err(sx.pos, format!("expected a name, found `{name}`")));
        }
        if head_of(name).is_some() || is_keyword(name) {
            return Err(self.err(
                sx.pos,
                format!("`{name}` is an operator or keyword and cannot be used as a name"),
            ));
        }
        if self.globals.contains_key(name) || self.defs.contains_key(name) {
            return Err(self.err(sx.pos, format!("`{name}` is defined twice")));
        }
        Ok(name.to_string())
    }

    fn params(&self, sx: &Sexp) -> Result<Vec<String>, Diagnostic> {
        let items = sx
            .list()
            .ok_or_else(|| self.err(sx.pos, "expected a parameter list such as `(x y)`"))?;
        let mut names: Vec<String> = Vec::new();
        for p in items {
            let name = p
                .atom()
                .filter(|n| head_of(n).is_none() && !is_keyword(n))
                .ok_or_else(|| {
                    self.err(p.pos, format!("expected a parameter name, found `{p}`"))
                })?;
            if names.iter().any(|n| n == name) {
                return Err(self.err(p.pos, format!("parameter `{name}` appears twice")));
            }
            names.push(name.to_string());
        }
        Ok(names)
    }

    /// Parses a type.
    fn ty(&self, sx: &Sexp) -> Result<SeqType, Diagnostic> {
        let t = self.ty_inner(sx)?;
        if t.atoms() > MAX_ATOMS {
            return Err(self.err(
                sx.pos,
                format!(
                    "type {t} holds {} atoms; the limit is {MAX_ATOMS}",
                    t.atoms()
                ),
            ));
        }
        Ok(t)
    }

    fn ty_inner(&self, sx: &Sexp) -> Result<SeqType, Diagnostic> {
        if let Some(word) = sx.atom() {
            return ScalarType::from_name(word).map(SeqType::Scalar).ok_or_else(|| {
                self.err(
                    sx.pos,
                    format!("unknown type `{word}`: expected bit, int8, uint8, int16, uint16, int32, uint32, fixp1_7 or a (seq ..), (stuple ..), (atuple ..) form"),
                )
            });
        }
        let items = sx.list().unwrap_or_default();
        let head = sx.head().map(normalize_name).unwrap_or_default();
        match (head.as_str(), items) {
            ("seq" | "stuple", [_, n, t]) => {
                let n = self.count(n, "length")?;
                let t = self.ty_inner(t)?;
                if n.checked_mul(t.atoms()).is_none_or(|a| a > MAX_ATOMS) {
                    return Err(self.err(sx.pos, format!("this type holds more than {MAX_ATOMS} atoms")));
                }
                Ok(if head == "seq" { SeqType::seq(n, t) } else { SeqType::stuple(n, t) })
            }
            ("atuple", [_, a, b]) => {
                let (a, b) = (self.ty_inner(a)?, self.ty_inner(b)?);
                for (t, s) in [(&a, &items[1]), (&b, &items[2])] {
                    if !t.is_atom() {
                        return Err(self.err(s.pos, format!("an atuple holds atoms, found {t}")));
                    }
                }
                Ok(SeqType::atuple(a, b))
            }
            _ => Err(self.err(
                sx.pos,
                format!("expected a type such as uint8, (seq N T), (stuple N T) or (atuple A B), found `{}`", sx.excerpt(40)),
            )),
        }
    }

    /// A positive count (sequence lengths, partition factors).
    fn count(&self, sx: &Sexp, what: &str) -> Result<u64, Diagnostic> {
        let n = self.natural(sx, what)?;
        if n == 0 {
            return Err(self.err(
                sx.pos,
                format!("{what} must be at least 1: zero-length sequences are not allowed"),
            ));
        }
        Ok(n)
    }

    fn natural(&self, sx: &Sexp, what: &str) -> Result<u64, Diagnostic> {
        sx.atom()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|n| *n <= MAX_ATOMS)
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

    /// Parses a literal of type `t`.
    fn literal(&self, sx: &Sexp, t: &SeqType) -> Result<Value, Diagnostic> {
        match (t, &sx.kind) {
            (_, crate::util::sexp::SexpKind::Atom(a)) if a == "_" => Ok(Value::Undef),
            (SeqType::Scalar(s), crate::util::sexp::SexpKind::Atom(text)) => parse_scalar(text, *s)
                .map(Value::Scalar)
                .map_err(|m| self.err(sx.pos, m)),
            (SeqType::ATuple(a, b), crate::util::sexp::SexpKind::List(xs)) if xs.len() == 2 => Ok(
                Value::pair(self.literal(&xs[0], a)?, self.literal(&xs[1], b)?),
            ),
            (SeqType::Seq(n, e) | SeqType::STuple(n, e), crate::util::sexp::SexpKind::List(xs))
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

    /// The node of a top-level name, checking its let on first use.
    fn global(&mut self, name: &str, use_pos: Pos) -> Result<NodeId, Diagnostic> {
        let expr = match self.globals.get(name) {
            Some(Global::Input(id)) | Some(Global::Let(_, Some(id))) => return Ok(*id),
            Some(Global::Let(expr, None)) => *expr,
            None => return Err(self.err(use_pos, format!("undefined name `{name}`"))),
        };
        self.enter(name, use_pos)?;
        let id = self.expr(expr, &Env::top())?;
        self.in_progress.pop();
        self.globals
            .insert(name.to_string(), Global::Let(expr, Some(id)));
        Ok(id)
    }

    /// Marks a let or def as being expanded; a second entry is a cycle.
    fn enter(&mut self, name: &str, pos: Pos) -> Result<(), Diagnostic> {
        if let Some(start) = self.in_progress.iter().position(|n| n == name) {
            let mut chain = self.in_progress[start..].to_vec();
            chain.push(name.to_string());
            return Err(self.err(
                pos,
                format!("cycle: `{name}` depends on itself ({})", chain.join(" -> ")),
            ));
        }
        self.in_progress.push(name.to_string());
        Ok(())
    }

    /// Elaborates an expression to a node.
    fn expr(&mut self, sx: &'a Sexp, env: &Env) -> Result<NodeId, Diagnostic> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(
                sx.pos,
                format!("expressions nest more than {MAX_DEPTH} deep here (through lets and defs)"),
            ));
        }
        self.depth += 1;
        let r = self.expr_inner(sx, env);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, sx: &'a Sexp, env: &Env) -> Result<NodeId, Diagnostic> {
        if let Some(word) = sx.atom() {
            return self.name(word, sx.pos, env);
        }
        let items = sx.list().unwrap_or_default();
        let Some(head) = sx.head() else {
            return Err(self.err(
                sx.pos,
                format!(
                    "expected an expression `(OPERATOR ...)`, found `{}`",
                    sx.excerpt(40)
                ),
            ));
        };
        match normalize_name(head).as_str() {
            "let" => return self.local_let(sx, env),
            "const" | "constgen" => {
                let [_, t, v] = items else {
                    return Err(self.err(sx.pos, "expected `(const TYPE VALUE)`"));
                };
                let t = self.ty(t)?;
                let v = self.literal(v, &t)?;
                return build::constant(&mut self.prog, v, t).map_err(|m| self.err(sx.pos, m));
            }
            "counter" => {
                let [_, n, incr, t] = items else {
                    return Err(self.err(sx.pos, "expected `(counter N INCREMENT TYPE)`"));
                };
                let n = self.count(n, "length")?;
                let ty = self.ty(t)?;
                let Some(s) = ty.as_scalar().filter(|s| s.is_int()) else {
                    return Err(self.err(
                        t.pos,
                        format!("a counter counts in an integer type, found {ty}"),
                    ));
                };
                let incr_raw = parse_scalar(incr.atom().unwrap_or("?"), s)
                    .map_err(|m| self.err(incr.pos, m))?;
                let op = Op::Counter {
                    n,
                    incr: incr_raw,
                    ty: s,
                };
                return Ok(self.prog.add(op, Vec::new(), SeqType::seq(n, s.into())));
            }
            "fn" | "lambda" => {
                return Err(self.err(
                    sx.pos,
                    "a function is not a value: it can only be the function of map, map2 or reduce",
                ))
            }
            _ => {}
        }
        if self.defs.contains_key(head) {
            let args = items[1..]
                .iter()
                .map(|a| self.expr(a, env))
                .collect::<Result<Vec<_>, _>>()?;
            return self.call_def(head, &args, sx.pos);
        }
        self.app(sx, env, None)
    }

    fn name(&mut self, word: &str, pos: Pos, env: &Env) -> Result<NodeId, Diagnostic> {
        if let Some(id) = env.lookup(word) {
            return Ok(id);
        }
        if word.parse::<i128>().is_ok() {
            return Err(self.err(
                pos,
                format!("a bare number is not a value: write `(const TYPE {word})`"),
            ));
        }
        if head_of(word).is_some() || self.defs.contains_key(word) {
            return Err(self.err(
                pos,
                format!("`{word}` is a function: apply it to inputs, like `({word} x)`"),
            ));
        }
        if let Some(what) = env.closed {
            if self.globals.contains_key(word) {
                return Err(self.err(
                    pos,
                    format!("`{word}` is defined outside this {what}, which is closed: pass it in as an argument"),
                ));
            }
            return Err(self.err(pos, format!("undefined name `{word}`")));
        }
        self.global(word, pos)
    }

    fn local_let(&mut self, sx: &'a Sexp, env: &Env) -> Result<NodeId, Diagnostic> {
        let items = sx.list().unwrap_or_default();
        let bad = || {
            self.err(
                sx.pos,
                "expected `(let ((NAME EXPR) ...) BODY)` inside an expression",
            )
        };
        let [_, bindings, body] = items else {
            return Err(bad());
        };
        let bindings = bindings.list().ok_or_else(bad)?;
        let mut inner = env.clone();
        for b in bindings {
            let [name, value] = b.list().unwrap_or_default() else {
                return Err(self.err(b.pos, "expected a binding `(NAME EXPR)`"));
            };
            let name = name
                .atom()
                .filter(|n| head_of(n).is_none() && !is_keyword(n) && n.parse::<i128>().is_err())
                .ok_or_else(|| self.err(name.pos, format!("expected a name, found `{name}`")))?;
            let id = self.expr(value, &inner)?;
            inner.locals.push((name.to_string(), id));
        }
        self.expr(body, &inner)
    }

    fn call_def(&mut self, name: &str, args: &[NodeId], pos: Pos) -> Result<NodeId, Diagnostic> {
        let def = &self.defs[name];
        if def.params.len() != args.len() {
            return Err(self.err(
                pos,
                format!(
                    "`{name}` takes {} argument(s), found {}",
                    def.params.len(),
                    args.len()
                ),
            ));
        }
        let body = def.body;
        let mut env = Env::closed("def body");
        env.locals = def
            .params
            .iter()
            .cloned()
            .zip(args.iter().copied())
            .collect();
        self.enter(name, pos)?;
        let id = self.expr(body, &env)?;
        self.in_progress.pop();
        Ok(id)
    }

    /// Elaborates a function of `arg_types.len()` arguments and returns its body's root.
    fn func(&mut self, sx: &'a Sexp, arg_types: &[SeqType]) -> Result<NodeId, Diagnostic> {
        let args: Vec<NodeId> = arg_types
            .iter()
            .enumerate()
            .map(|(i, t)| build::arg(&mut self.prog, i as u8, t.clone()))
            .collect();
        if let Some(word) = sx.atom() {
            if self.defs.contains_key(word) {
                return self.call_def(word, &args, sx.pos);
            }
            return match head_of(word) {
                Some(head) if head.params().is_empty() => self.finish(head, sx, &[], &args, None),
                Some(_) => Err(self.err(sx.pos, format!("`{word}` needs its parameters here, like `({word} ...)`"))),
                None => Err(self.err(
                    sx.pos,
                    format!("expected a function (an operator, a def, or `(fn (x) ...)`), found `{word}`"),
                )),
            };
        }
        let items = sx.list().unwrap_or_default();
        match sx.head().map(normalize_name).as_deref() {
            Some("fn" | "lambda") => {
                let [_, params, body] = items else {
                    return Err(self.err(sx.pos, "expected `(fn (PARAM ...) BODY)`"));
                };
                let params = self.params(params)?;
                if params.len() != args.len() {
                    return Err(self.err(
                        sx.pos,
                        format!(
                            "this function takes {} argument(s), but is given {}",
                            params.len(),
                            args.len()
                        ),
                    ));
                }
                let mut env = Env::closed("function body");
                env.locals = params.into_iter().zip(args).collect();
                self.expr(body, &env)
            }
            Some(_) => self.app(sx, &Env::closed("function body"), Some(&args)),
            None => Err(self.err(
                sx.pos,
                format!("expected a function, found `{}`", sx.excerpt(40)),
            )),
        }
    }

    /// Elaborates an operator form. With `given`, the form is a function (its data inputs
    /// are the given argument placeholders and the form itself must name none).
    fn app(
        &mut self,
        sx: &'a Sexp,
        env: &Env,
        given: Option<&[NodeId]>,
    ) -> Result<NodeId, Diagnostic> {
        let items = sx.list().unwrap_or_default();
        let word = sx.head().unwrap_or_default();
        let Some(head) = head_of(word) else {
            return Err(self.err(items[0].pos, format!("unknown operator `{word}`")));
        };
        let nparams = head.params().len();
        if items.len() < 1 + nparams {
            return Err(self.err(
                sx.pos,
                format!(
                    "`{word}` needs its parameters: ({word} {} INPUT...)",
                    head.params().join(" ").to_uppercase()
                ),
            ));
        }
        let params = &items[1..1 + nparams];
        let mut rest = &items[1 + nparams..];
        let mut init = None;
        if head.takes_init() {
            if let Some(first) = rest
                .first()
                .filter(|s| s.head().map(normalize_name).as_deref() == Some("init"))
            {
                init = Some(first);
                rest = &rest[1..];
            }
        }
        let inputs: Vec<NodeId> = match given {
            Some(g) if rest.is_empty() => g.to_vec(),
            Some(_) => {
                return Err(self.err(
                    sx.pos,
                    format!(
                        "`{}` is used as a function, so it must not name its inputs",
                        sx.excerpt(40)
                    ),
                ))
            }
            None => {
                if rest.is_empty() {
                    return Err(self.err(
                        sx.pos,
                        format!(
                            "`{}` is a function here, not a value: give it its input(s)",
                            sx.excerpt(40)
                        ),
                    ));
                }
                rest.iter()
                    .map(|a| self.expr(a, env))
                    .collect::<Result<_, _>>()?
            }
        };
        self.finish(head, sx, params, &inputs, init)
    }

    /// Builds the node(s) of an operator with its parameters and inputs.
    fn finish(
        &mut self,
        head: Head,
        sx: &'a Sexp,
        params: &'a [Sexp],
        inputs: &[NodeId],
        init: Option<&Sexp>,
    ) -> Result<NodeId, Diagnostic> {
        let pos = sx.pos;
        if !head.arities().contains(&inputs.len()) {
            let want = head
                .arities()
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(self.err(
                pos,
                format!(
                    "`{}` takes {want} input(s), found {}",
                    sx.head().unwrap_or(""),
                    inputs.len()
                ),
            ));
        }
        let e = |m: String| Diagnostic::at(self.file, pos, m);
        let init_value = |this: &Self, elem: &SeqType| -> Result<Option<Value>, Diagnostic> {
            match init {
                None => Ok(None),
                Some(i) => match i.list() {
                    Some([_, v]) => this.literal(v, elem).map(Some),
                    _ => Err(this.err(i.pos, "expected `(init VALUE)`")),
                },
            }
        };
        let input_elem = |this: &Self, k: usize| -> Option<SeqType> {
            let mut t = this.prog.ty(inputs[0]).clone();
            for _ in 0..k {
                t = t.as_seq()?.1.clone();
            }
            Some(t)
        };
        let op = match head {
            Head::Atom(a) => {
                let x = match inputs {
                    [x] => *x,
                    [x, y] => build::apply(&mut self.prog, Op::ATuple, &[*x, *y]).map_err(e)?,
                    [c, x, y] => {
                        let xy = build::apply(&mut self.prog, Op::ATuple, &[*x, *y]).map_err(e)?;
                        build::apply(&mut self.prog, Op::ATuple, &[*c, xy]).map_err(e)?
                    }
                    _ => unreachable!("arity checked"),
                };
                return build::apply(&mut self.prog, Op::Atom(a), &[x]).map_err(e);
            }
            Head::Map | Head::Map2 | Head::Reduce => {
                let n = self.count(&params[0], "length")?;
                let what = format!("{} {n}", sx.head().unwrap_or("map"));
                let arg_tys: Vec<SeqType> = if head == Head::Reduce {
                    vec![
                        super::check::reduce_input(self.prog.ty(inputs[0]), n)
                            .map_err(e)?
                            .1,
                    ]
                } else {
                    inputs
                        .iter()
                        .map(|i| super::check::map_input(&what, self.prog.ty(*i), n).cloned())
                        .collect::<Result<_, _>>()
                        .map_err(e)?
                };
                let body = self.func(&params[1], &arg_tys)?;
                let r = match head {
                    Head::Map => build::map(&mut self.prog, n, body, inputs[0]),
                    Head::Map2 => build::map2(&mut self.prog, n, body, inputs[0], inputs[1]),
                    _ => build::reduce(&mut self.prog, n, body, inputs[0]),
                };
                return r.map_err(e);
            }
            Head::HMap => {
                let n = self.count(&params[0], "length")?;
                let elem =
                    super::check::map_input(&format!("hmap {n}"), self.prog.ty(inputs[0]), n)
                        .map_err(e)?
                        .clone();
                let fs = &params[1];
                let is_list = fs.head().map(normalize_name).as_deref() == Some("listtoseq");
                let items = match fs.list() {
                    Some(items) if is_list => &items[1..],
                    _ => {
                        let msg = format!(
                            "hmap: expected its functions as `(list_to_seq F0 .. F{})`, found `{}`",
                            n.saturating_sub(1),
                            fs.excerpt(40)
                        );
                        return Err(self.err(fs.pos, msg));
                    }
                };
                let bodies = items
                    .iter()
                    .map(|f| self.func(f, std::slice::from_ref(&elem)))
                    .collect::<Result<Vec<_>, _>>()?;
                return build::hmap(&mut self.prog, n, &bodies, inputs[0]).map_err(e);
            }
            Head::Stencil1d | Head::Stencil2d => {
                let nums: Vec<u64> = params
                    .iter()
                    .map(|p| self.count(p, "size"))
                    .collect::<Result<_, _>>()?;
                let elem = input_elem(self, 1).ok_or_else(|| {
                    e(format!(
                        "{}: expected a sequence input, found {}",
                        sx.head().unwrap_or(""),
                        self.prog.ty(inputs[0])
                    ))
                })?;
                let init = init_value(self, &elem)?;
                let r = if head == Head::Stencil1d {
                    derived::stencil_1d(&mut self.prog, nums[0], nums[1], init, inputs[0])
                } else {
                    derived::stencil_2d(
                        &mut self.prog,
                        [nums[0], nums[1], nums[2], nums[3]],
                        init,
                        inputs[0],
                    )
                };
                return r.map_err(e);
            }
            Head::ATuple => Op::ATuple,
            Head::STuple => Op::STuple,
            Head::STupleAppend => Op::STupleAppend,
            Head::Up => Op::Up {
                n: self.count(&params[0], "length")?,
            },
            Head::Down => Op::Down {
                n: self.count(&params[0], "length")?,
                idx: self.natural(&params[1], "index")?,
            },
            Head::Shift => {
                let n = self.count(&params[0], "length")?;
                let amount = self.natural(&params[1], "shift amount")?;
                let elem = input_elem(self, 1);
                let init = match elem {
                    Some(t) => init_value(self, &t)?,
                    None => None,
                };
                Op::Shift { n, amount, init }
            }
            Head::Partition => Op::Partition {
                no: self.count(&params[0], "outer length")?,
                ni: self.count(&params[1], "inner length")?,
            },
            Head::Unpartition => Op::Unpartition {
                no: self.count(&params[0], "outer length")?,
                ni: self.count(&params[1], "inner length")?,
            },
            Head::Transpose => Op::Transpose {
                no: self.count(&params[0], "outer length")?,
                ni: self.count(&params[1], "inner length")?,
            },
            Head::STupleToSeq => Op::STupleToSeq {
                n: self.count(&params[0], "length")?,
            },
            Head::SeqToSTuple => Op::SeqToSTuple {
                n: self.count(&params[0], "length")?,
            },
        };
        build::apply(&mut self.prog, op, inputs).map_err(e)
    }
}

fn is_keyword(word: &str) -> bool {
    matches!(
        normalize_name(word).as_str(),
        "let"
            | "def"
            | "input"
            | "output"
            | "fn"
            | "lambda"
            | "const"
            | "constgen"
            | "counter"
            | "init"
            | "listtoseq"
    ) || ScalarType::from_name(word).is_some()
}
