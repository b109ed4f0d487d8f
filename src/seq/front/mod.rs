//! The front end: reads a `.seq` file, resolves names, expands derived forms and type-checks
//! every node as it builds the [`Program`]. The syntax is documented in `docs/language.md`.
//!
//! Checking happens while building: a node is only added once its inputs are typed, so the
//! first error found is reported with the position of the form that caused it.

use super::build;
use super::op::Op;
use super::program::{NodeId, Program};
use super::types::{normalize_name, ScalarType, SeqType};
use super::value::parse_scalar;
use crate::util::diag::{Diagnostic, Pos};
use crate::util::sexp::{parse_file, Sexp};
use indexmap::IndexMap;
use ops::head_of;
use std::path::Path;

mod ops;
mod syntax;
mod write;

pub use write::program_text;

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
                // a space-time design read as a program (a file not named .st)
                let design = if head == "design" {
                    "; this is a space-time design, which the commands read from a file named .st"
                } else {
                    ""
                };
                return Err(self.err(
                    form.pos,
                    format!(
                        "expected a top-level form `(input ...)`, `(let ...)`, `(def ...)` or `(output ...)`, found `{}`{design}",
                        form.excerpt(40)
                    ),
                ));
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
