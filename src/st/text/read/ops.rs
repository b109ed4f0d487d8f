//! Reading operator forms: the static parameters of every space-time operator and the
//! functions of the higher-order ones.

use super::{Cursor, Env, Parser};

use crate::seq::op::AtomOp;
use crate::seq::types::normalize_name;
use crate::seq::value::Value;
use crate::st::design::NodeId;
use crate::st::layout::Layout;
use crate::st::op::StOp;
use crate::util::diag::Diagnostic;
use crate::util::sexp::Sexp;

impl Parser<'_> {
    /// Reads the static parameters of a first-order operator. `None` for the higher-order
    /// operators, which are read by [`Parser::higher_order`].
    pub(super) fn op_params(
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
            "maps" | "mapt" | "map2s" | "map2t" | "reduces" | "reducet" | "stall" => {
                return Ok(None)
            }
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
            "transpose" => {
                let no = self.num(c.next(), form, "no")?;
                let ni = self.num(c.next(), form, "ni")?;
                let from = self.elem(c)?;
                let to = self.elem(c)?;
                StOp::Transpose { no, ni, from, to }
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
    pub(super) fn higher_order(
        &mut self,
        key: &str,
        sx: &Sexp,
        c: &mut Cursor<'_>,
        env: &Env,
        extra: &[NodeId],
    ) -> Result<NodeId, Diagnostic> {
        let form = c.form;
        if key == "stall" {
            return self.stall(sx, c, env, extra);
        }
        // messages name the operator as written (`map_t`), not by its lookup key (`mapt`)
        let name = form.head().unwrap_or(key);
        let n = self.num(c.next(), form, "n")?;
        let timed = key.ends_with('t');
        let i = if timed {
            self.num(c.next(), form, "invalid count")?
        } else {
            0
        };
        let regs = match c.option("regs") {
            Some(r) if key == "reduces" => r
                .list()
                .unwrap_or_default()
                .iter()
                .skip(1)
                .map(|x| self.num(Some(x), r, "register position"))
                .collect::<Result<Vec<u64>, _>>()?,
            Some(r) => {
                return Err(self.err(r.pos, format!("{name}: only reduce_s takes (regs ...)")))
            }
            None => Vec::new(),
        };
        let f = c
            .next()
            .ok_or_else(|| self.err(form.pos, format!("{name}: missing the function")))?;
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
                    format!("{name}: layout mismatch: the operator takes {want}, but its input gives {l}"),
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
            "reduces" => StOp::ReduceS { n, body, regs },
            _ => StOp::ReduceT { n, i, body },
        };
        self.d.add(op, &args).map_err(|m| self.err(sx.pos, m))
    }

    /// `(stall K F x [y])`: the function's parameters are the inputs' layouts without the
    /// `K` idle clocks.
    fn stall(
        &mut self,
        sx: &Sexp,
        c: &mut Cursor<'_>,
        env: &Env,
        extra: &[NodeId],
    ) -> Result<NodeId, Diagnostic> {
        let form = c.form;
        let idle = self.num(c.next(), form, "idle clocks")?;
        let f = c
            .next()
            .ok_or_else(|| self.err(form.pos, "stall: missing the function"))?;
        let mut args = Vec::new();
        for a in c.rest() {
            args.push(self.expr(a, env)?);
        }
        args.extend_from_slice(extra);
        if !(1..=2).contains(&args.len()) {
            return Err(self.err(
                sx.pos,
                format!(
                    "`{}` takes 1 or 2 inputs, found {}",
                    form.excerpt(30),
                    args.len()
                ),
            ));
        }
        let params = args
            .iter()
            .map(|a| crate::st::stall::unpad(self.d.layout(*a), idle))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|m| self.err(sx.pos, format!("stall: {m}")))?;
        let body = self.function(f, params)?;
        let op = StOp::Stall {
            idle,
            body,
            inputs: args.len() as u8,
        };
        self.d.add(op, &args).map_err(|m| self.err(sx.pos, m))
    }

    /// A function: `(fn (x ..) BODY)`, `(fn ((x LAYOUT) ..) BODY)`, an operator name
    /// (`abs`) or an operator form missing its inputs (`(map_s 2 abs)`).
    fn function(
        &mut self,
        f: &Sexp,
        params: Vec<Layout>,
    ) -> Result<crate::st::design::BodyId, Diagnostic> {
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
