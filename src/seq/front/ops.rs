//! Operator forms: the keywords, their parameters and arities, functions given to
//! `map`/`map2`/`reduce`/`hmap`, and building each operator's node(s).

use super::{Env, Front};
use crate::seq::build;
use crate::seq::derived;
use crate::seq::op::{AtomOp, Op};
use crate::seq::program::NodeId;
use crate::seq::types::{normalize_name, ScalarType, SeqType};
use crate::seq::value::Value;
use crate::util::diag::Diagnostic;
use crate::util::sexp::Sexp;

/// What an operator keyword denotes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Head {
    Atom(AtomOp),
    /// `(cast T x)`: its target type is a parameter.
    Cast,
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

pub(super) fn head_of(word: &str) -> Option<Head> {
    let key = normalize_name(word);
    // `cast_uint16` (the one-word form of `(cast uint16)`) normalizes to `castuint16`.
    if let Some(a) = AtomOp::ALL
        .into_iter()
        .find(|a| normalize_name(a.name()) == key)
    {
        return Some(Head::Atom(a));
    }
    Some(match key.as_str() {
        "cast" => Head::Cast,
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
            Head::Cast => &["type"],
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
    /// The target type of a `cast`: bit or an integer type.
    fn cast_target(&self, sx: &Sexp) -> Result<ScalarType, Diagnostic> {
        let targets = "bit, int8, uint8, int16, uint16, int32 or uint32";
        match sx.atom().and_then(ScalarType::from_name) {
            Some(t) if AtomOp::castable(t) => Ok(t),
            Some(t) => Err(self.err(
                sx.pos,
                format!("cast: {t} is not a cast target; a cast converts between {targets}"),
            )),
            None => Err(self.err(
                sx.pos,
                format!(
                    "cast: expected the target type ({targets}) first, as in `(cast uint16 x)`, found `{}`",
                    sx.excerpt(40)
                ),
            )),
        }
    }

    /// Elaborates a function of `arg_types.len()` arguments and returns its body's root.
    pub(super) fn func(
        &mut self,
        sx: &'a Sexp,
        arg_types: &[SeqType],
    ) -> Result<NodeId, Diagnostic> {
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
    pub(super) fn app(
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
        if head == Head::Cast {
            // The target type first: `(cast x)` and `(cast foo x)` are about the type.
            self.cast_target(&params[0])?;
        }
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
    pub(super) fn finish(
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
                // the operands are tupled for the operator: an operand that is no atom is
                // the operator's error, not that of a tuple the user did not write
                if inputs.len() > 1 {
                    for (k, x) in inputs.iter().enumerate() {
                        let t = self.prog.ty(*x);
                        if !t.is_atom() {
                            let name = a.name();
                            return Err(e(format!(
                                "{name}: operand {} must be an atom (a scalar or atom tuple), \
                                 found {t}; to apply {name} to each element, map it",
                                k + 1
                            )));
                        }
                    }
                }
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
                        crate::seq::check::reduce_input(self.prog.ty(inputs[0]), n)
                            .map_err(e)?
                            .1,
                    ]
                } else {
                    inputs
                        .iter()
                        .map(|i| crate::seq::check::map_input(&what, self.prog.ty(*i), n).cloned())
                        .collect::<Result<_, _>>()
                        .map_err(e)?
                };
                let body = self.func(&params[1], &arg_tys)?;
                let r = match head {
                    Head::Map => build::map(&mut self.prog, n, body, inputs[0]),
                    Head::Map2 => build::map2(&mut self.prog, n, body, inputs[0], inputs[1]),
                    _ => build::reduce(&mut self.prog, n, body, inputs[0]),
                };
                let r = r.map_err(e)?;
                // after the typing, whose errors say more about an ill-typed function
                if head == Head::Reduce {
                    crate::seq::check::associative_commutative(&self.prog, body, &arg_tys[0])
                        .map_err(|why| {
                            self.err(
                                params[1].pos,
                                format!(
                                    "{what}: the function must be associative and commutative (the hardware reduces as a tree, not left to right): {why}; accepted: {}",
                                    crate::seq::check::REDUCERS
                                ),
                            )
                        })?;
                }
                return Ok(r);
            }
            Head::HMap => {
                let n = self.count(&params[0], "length")?;
                let elem =
                    crate::seq::check::map_input(&format!("hmap {n}"), self.prog.ty(inputs[0]), n)
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
            Head::Cast => Op::Atom(AtomOp::Cast(self.cast_target(&params[0])?)),
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
