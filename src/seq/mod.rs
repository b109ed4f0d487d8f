//! The sequence language: types, syntax, type checker, the reference interpreter and the
//! fast evaluator.
//!
//! This layer knows nothing of clocks or e-graphs. Its reference interpreter is the judge
//! every later layer (space-time simulation, RTL simulation, rewrite-rule soundness, the fast
//! evaluator) is compared with; the fast evaluator ([`fast`], on [`FlatValue`]s) runs
//! full-size frames.

pub mod build;
pub mod check;
pub mod derived;
pub mod fast;
pub mod flat;
pub mod front;
pub mod interp;
pub mod op;
pub mod program;
mod scope;
pub mod types;
pub mod value;

pub use flat::FlatValue;
pub use front::{load_program, parse_program, program_text};
pub use op::{AtomOp, Op};
pub use program::{NodeId, Program};
pub use types::{ScalarType, SeqType};
pub use value::Value;
