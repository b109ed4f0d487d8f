//! Space-time operators (reference §2.2), with the static parameters that fix their exact
//! input and output layouts. Parameter orders follow Aetherling's constructors.
//!
//! Typing lives in [`super::check`], clock-by-clock behaviour in [`super::sim`] and
//! [`super::perm`], area in [`super::area`]; `docs/space-time.md` describes each operator.

use super::design::BodyId;
use super::layout::Layout;
use crate::seq::op::AtomOp;
use crate::seq::value::Value;
use std::fmt;

/// A space-time operator. Data inputs are the node's `args`; higher-order operators name a
/// closed function body ([`super::design::Body`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StOp {
    /// Design input number `k`.
    Input(usize),
    /// Parameter `k` of the enclosing body, with its layout.
    Arg(u8, Layout),
    /// `Const_Gen`: a constant value laid out in `layout`, repeated every period, starting
    /// `delay` clocks after its scope starts.
    Const {
        /// The value, of type `layout.to_seq()`.
        value: Value,
        /// Its layout.
        layout: Layout,
        /// Clocks after the scope's start before the first period.
        delay: u64,
    },
    /// The counters `Counter_s/t/ts/tn`: flat atom `e` of `layout` is `e * incr` (wrapping);
    /// `layout` has only `sseq`/`tseq` layers over one integer scalar.
    Counter {
        /// The output layout.
        layout: Layout,
        /// The step.
        incr: u64,
        /// Clocks after the scope's start before the first period.
        delay: u64,
    },
    /// An atom operator on one atom.
    Atom(AtomOp),
    /// Two atoms to an atom tuple.
    ATuple,
    /// `t -> t -> (stuple 2 t)`.
    STuple,
    /// `(stuple n-1 t) -> t -> (stuple n t)`.
    STupleAppend,
    /// `Map_s n f : (sseq n a) -> (sseq n b)`.
    MapS { n: u64, body: BodyId },
    /// `Map_t n i f : (tseq n i a) -> (tseq n i b)`.
    MapT { n: u64, i: u64, body: BodyId },
    /// `Map2_s n f`.
    Map2S { n: u64, body: BodyId },
    /// `Map2_t n i f`.
    Map2T { n: u64, i: u64, body: BodyId },
    /// `Reduce_s n f : (sseq n t) -> (sseq 1 t)`: a chain of `n-1` copies of `f`. `regs` are
    /// the pipeline registers of the chain: one after each listed link (1-based, ascending,
    /// below `n-1`), the elements entering later links delayed to match, so the operator's
    /// latency is `regs.len()`.
    ReduceS {
        n: u64,
        body: BodyId,
        regs: Vec<u64>,
    },
    /// `Reduce_t n i f : (tseq n i t) -> (tseq 1 (n-1+i) t)`.
    ReduceT { n: u64, i: u64, body: BodyId },
    /// `Up_1d_s n t : (sseq 1 t) -> (sseq n t)`.
    UpS { n: u64, elem: Layout },
    /// `Up_1d_t n i t : (tseq 1 (n-1+i) t) -> (tseq n i t)`.
    UpT { n: u64, i: u64, elem: Layout },
    /// `Down_1d_s n idx t : (sseq n t) -> (sseq 1 t)`.
    DownS { n: u64, idx: u64, elem: Layout },
    /// `Down_1d_t n i idx t : (tseq n i t) -> (tseq 1 (n-1+i) t)`.
    DownT {
        n: u64,
        i: u64,
        idx: u64,
        elem: Layout,
    },
    /// `Shift_s n s t` on `(sseq n t)`.
    ShiftS {
        n: u64,
        amount: u64,
        elem: Layout,
        init: Option<Value>,
    },
    /// `Shift_t n i s t` on `(tseq n i t)`.
    ShiftT {
        n: u64,
        i: u64,
        amount: u64,
        elem: Layout,
        init: Option<Value>,
    },
    /// `Shift_ts no io ni s t` on `(tseq no io (sseq ni t))`, shifting the flattened
    /// `no*ni` elements.
    ShiftTS {
        no: u64,
        io: u64,
        ni: u64,
        amount: u64,
        elem: Layout,
        init: Option<Value>,
    },
    /// `Shift_tt no ni io ii s t` on `(tseq no io (tseq ni ii t))`.
    ShiftTT {
        no: u64,
        ni: u64,
        io: u64,
        ii: u64,
        amount: u64,
        elem: Layout,
        init: Option<Value>,
    },
    /// `Shift_tn no nis io iis s t` on `(tseq no io (tseq nis0 iis0 (tseq nis1 iis1 .. t)))`.
    ShiftTN {
        no: u64,
        io: u64,
        nis: Vec<u64>,
        iis: Vec<u64>,
        amount: u64,
        elem: Layout,
        init: Option<Value>,
    },
    /// `Partition_s_ss no ni t : (sseq no*ni t) -> (sseq no (sseq ni t))`.
    PartitionSS { no: u64, ni: u64, elem: Layout },
    /// `Unpartition_s_ss no ni t`, the inverse.
    UnpartitionSS { no: u64, ni: u64, elem: Layout },
    /// `Partition_t_tt no ni io ii t :
    /// (tseq no*ni (no*ii + io*(ni+ii)) t) -> (tseq no io (tseq ni ii t))`.
    PartitionTT {
        no: u64,
        ni: u64,
        io: u64,
        ii: u64,
        elem: Layout,
    },
    /// `Unpartition_t_tt no ni io ii t`, the inverse.
    UnpartitionTT {
        no: u64,
        ni: u64,
        io: u64,
        ii: u64,
        elem: Layout,
    },
    /// `Serialize n i t : (tseq 1 (n-1+i) (stuple n t)) -> (tseq n i t)`.
    Serialize { n: u64, i: u64, elem: Layout },
    /// `Deserialize n i t : (tseq n i t) -> (tseq 1 (n-1+i) (stuple n t))`.
    Deserialize { n: u64, i: u64, elem: Layout },
    /// `STupleToSSeq n t : (stuple n t) -> (sseq n t)`.
    STupleToSSeq { n: u64, elem: Layout },
    /// `SSeqToSTuple n t : (sseq n t) -> (stuple n t)`.
    SSeqToSTuple { n: u64, elem: Layout },
    /// `Reshape from to`: the same flattened value, relaid out.
    Reshape { from: Layout, to: Layout },
    /// `Transpose no ni from to`: a `(seq no (seq ni t))` laid out in `from`, delivered as
    /// its transpose `(seq ni (seq no t))` (`out[i][o] = x[o][i]`) laid out in `to`, over
    /// the same clocks. Wiring when every atom keeps its clock and lane (one of the two
    /// layers in space and the other in time, swapped: Aetherling's flip); a buffer
    /// otherwise.
    Transpose {
        no: u64,
        ni: u64,
        from: Layout,
        to: Layout,
    },
    /// `FIFO t d`: the whole stream delayed by `delay` clocks.
    Fifo { layout: Layout, delay: u64 },
    /// `stall k f`: the body `f` (slowdown `s`, one or two parameters) clock-enabled for
    /// the first `s` clocks of every `s + idle` and held for the other `idle`, so the
    /// design of slowdown `s` serves slowdown `s + idle` (`super::stall`).
    Stall {
        /// Clocks the body is held in every period.
        idle: u64,
        /// The function run, with its own (slowdown `s`) layouts.
        body: BodyId,
        /// Its number of parameters (1 or 2).
        inputs: u8,
    },
}

impl StOp {
    /// The number of data inputs.
    pub fn arity(&self) -> usize {
        match self {
            StOp::Input(_) | StOp::Arg(..) | StOp::Const { .. } | StOp::Counter { .. } => 0,
            StOp::ATuple
            | StOp::STuple
            | StOp::STupleAppend
            | StOp::Map2S { .. }
            | StOp::Map2T { .. } => 2,
            StOp::Stall { inputs, .. } => *inputs as usize,
            _ => 1,
        }
    }

    /// The function body of a higher-order operator.
    pub fn body(&self) -> Option<BodyId> {
        match self {
            StOp::MapS { body, .. }
            | StOp::MapT { body, .. }
            | StOp::Map2S { body, .. }
            | StOp::Map2T { body, .. }
            | StOp::ReduceS { body, .. }
            | StOp::ReduceT { body, .. }
            | StOp::Stall { body, .. } => Some(*body),
            _ => None,
        }
    }

    /// True for operators that only move atoms between clocks and lanes (and fill shifted-in
    /// positions); they are simulated, timed and costed by [`super::perm`].
    pub fn is_data_movement(&self) -> bool {
        matches!(
            self,
            StOp::UpS { .. }
                | StOp::UpT { .. }
                | StOp::DownS { .. }
                | StOp::DownT { .. }
                | StOp::ShiftS { .. }
                | StOp::ShiftT { .. }
                | StOp::ShiftTS { .. }
                | StOp::ShiftTT { .. }
                | StOp::ShiftTN { .. }
                | StOp::PartitionSS { .. }
                | StOp::UnpartitionSS { .. }
                | StOp::PartitionTT { .. }
                | StOp::UnpartitionTT { .. }
                | StOp::Serialize { .. }
                | StOp::Deserialize { .. }
                | StOp::STupleToSSeq { .. }
                | StOp::SSeqToSTuple { .. }
                | StOp::Reshape { .. }
                | StOp::Transpose { .. }
                | StOp::Fifo { .. }
        )
    }

    /// The keyword used in `.st` files.
    pub fn name(&self) -> &'static str {
        match self {
            StOp::Input(_) => "input",
            StOp::Arg(..) => "arg",
            StOp::Const { .. } => "const",
            StOp::Counter { .. } => "counter",
            StOp::Atom(a) => a.name(),
            StOp::ATuple => "atuple",
            StOp::STuple => "stuple",
            StOp::STupleAppend => "stuple_append",
            StOp::MapS { .. } => "map_s",
            StOp::MapT { .. } => "map_t",
            StOp::Map2S { .. } => "map2_s",
            StOp::Map2T { .. } => "map2_t",
            StOp::ReduceS { .. } => "reduce_s",
            StOp::ReduceT { .. } => "reduce_t",
            StOp::UpS { .. } => "up_1d_s",
            StOp::UpT { .. } => "up_1d_t",
            StOp::DownS { .. } => "down_1d_s",
            StOp::DownT { .. } => "down_1d_t",
            StOp::ShiftS { .. } => "shift_s",
            StOp::ShiftT { .. } => "shift_t",
            StOp::ShiftTS { .. } => "shift_ts",
            StOp::ShiftTT { .. } => "shift_tt",
            StOp::ShiftTN { .. } => "shift_tn",
            StOp::PartitionSS { .. } => "partition_s_ss",
            StOp::UnpartitionSS { .. } => "unpartition_s_ss",
            StOp::PartitionTT { .. } => "partition_t_tt",
            StOp::UnpartitionTT { .. } => "unpartition_t_tt",
            StOp::Serialize { .. } => "serialize",
            StOp::Deserialize { .. } => "deserialize",
            StOp::STupleToSSeq { .. } => "stuple_to_sseq",
            StOp::SSeqToSTuple { .. } => "sseq_to_stuple",
            StOp::Reshape { .. } => "reshape",
            StOp::Transpose { .. } => "transpose",
            StOp::Fifo { .. } => "fifo",
            StOp::Stall { .. } => "stall",
        }
    }

    /// For the shift operators: the shifted layout, the number of elements shifted (the
    /// product of the shifted layers' lengths), the amount and the init.
    pub fn shift_info(&self) -> Option<(Layout, u64, u64, Option<&Value>)> {
        let (layout, amount, init) = match self {
            StOp::ShiftS {
                n,
                amount,
                elem,
                init,
            } => (Layout::sseq(*n, elem.clone()), amount, init),
            StOp::ShiftT {
                n,
                i,
                amount,
                elem,
                init,
            } => (Layout::tseq(*n, *i, elem.clone()), amount, init),
            StOp::ShiftTS {
                no,
                io,
                ni,
                amount,
                elem,
                init,
            } => (
                Layout::tseq(*no, *io, Layout::sseq(*ni, elem.clone())),
                amount,
                init,
            ),
            StOp::ShiftTT {
                no,
                ni,
                io,
                ii,
                amount,
                elem,
                init,
            } => (
                Layout::tseq(*no, *io, Layout::tseq(*ni, *ii, elem.clone())),
                amount,
                init,
            ),
            StOp::ShiftTN {
                no,
                io,
                nis,
                iis,
                amount,
                elem,
                init,
            } => {
                let mut l = elem.clone();
                for (n, i) in nis.iter().zip(iis).rev() {
                    l = Layout::tseq(*n, *i, l);
                }
                (Layout::tseq(*no, *io, l), amount, init)
            }
            _ => return None,
        };
        let elem_atoms = match self {
            StOp::ShiftS { elem, .. }
            | StOp::ShiftT { elem, .. }
            | StOp::ShiftTS { elem, .. }
            | StOp::ShiftTT { elem, .. }
            | StOp::ShiftTN { elem, .. } => elem.atoms(),
            _ => 1,
        };
        let count = layout.atoms() / elem_atoms.max(1);
        Some((layout, count, *amount, init.as_ref()))
    }
}

impl fmt::Display for StOp {
    /// The operator head with its numeric parameters, e.g. `map_t 2 0` or `up_1d_t 4 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match self {
            StOp::Input(k) => write!(f, "{name} {k}"),
            StOp::Arg(k, l) => write!(f, "{name} {k} {l}"),
            StOp::Const { layout, delay, .. } => write!(f, "{name} {layout} (delay {delay})"),
            StOp::Counter {
                layout,
                incr,
                delay,
            } => {
                write!(f, "{name} {layout} {incr} (delay {delay})")
            }
            StOp::ReduceS { n, regs, .. } if !regs.is_empty() => {
                write!(f, "{name} {n} (regs {})", join(regs))
            }
            StOp::MapS { n, .. }
            | StOp::Map2S { n, .. }
            | StOp::ReduceS { n, .. }
            | StOp::UpS { n, .. } => write!(f, "{name} {n}"),
            StOp::MapT { n, i, .. }
            | StOp::Map2T { n, i, .. }
            | StOp::ReduceT { n, i, .. }
            | StOp::UpT { n, i, .. }
            | StOp::Serialize { n, i, .. }
            | StOp::Deserialize { n, i, .. } => write!(f, "{name} {n} {i}"),
            StOp::DownS { n, idx, .. } => write!(f, "{name} {n} {idx}"),
            StOp::DownT { n, i, idx, .. } => write!(f, "{name} {n} {i} {idx}"),
            StOp::ShiftS { n, amount, .. } => write!(f, "{name} {n} {amount}"),
            StOp::ShiftT { n, i, amount, .. } => write!(f, "{name} {n} {i} {amount}"),
            StOp::ShiftTS {
                no, io, ni, amount, ..
            } => {
                write!(f, "{name} {no} {io} {ni} {amount}")
            }
            StOp::ShiftTT {
                no,
                ni,
                io,
                ii,
                amount,
                ..
            } => {
                write!(f, "{name} {no} {ni} {io} {ii} {amount}")
            }
            StOp::ShiftTN {
                no,
                io,
                nis,
                iis,
                amount,
                ..
            } => write!(
                f,
                "{name} {no} {io} ({}) ({}) {amount}",
                join(nis),
                join(iis)
            ),
            StOp::PartitionSS { no, ni, .. } | StOp::UnpartitionSS { no, ni, .. } => {
                write!(f, "{name} {no} {ni}")
            }
            StOp::PartitionTT { no, ni, io, ii, .. }
            | StOp::UnpartitionTT { no, ni, io, ii, .. } => {
                write!(f, "{name} {no} {ni} {io} {ii}")
            }
            StOp::STupleToSSeq { n, .. } | StOp::SSeqToSTuple { n, .. } => {
                write!(f, "{name} {n}")
            }
            StOp::Reshape { from, to } => write!(f, "{name} {from} {to}"),
            StOp::Transpose { no, ni, from, to } => write!(f, "{name} {no} {ni} {from} {to}"),
            StOp::Fifo { layout, delay } => write!(f, "{name} {layout} {delay}"),
            StOp::Stall { idle, .. } => write!(f, "{name} {idle}"),
            _ => f.write_str(name),
        }
    }
}

/// Numbers separated by spaces.
pub(crate) fn join(xs: &[u64]) -> String {
    xs.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}
