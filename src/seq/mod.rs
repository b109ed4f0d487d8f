//! The sequence language: types, syntax, type checker and the reference interpreter.
//!
//! This layer knows nothing of clocks or e-graphs. Its interpreter is the judge every later
//! layer (space-time simulation, RTL simulation, rewrite-rule soundness) is compared with.

pub mod build;
pub mod check;
pub mod derived;
pub mod front;
pub mod interp;
pub mod op;
pub mod program;
pub mod types;
pub mod value;

pub use front::{load_program, parse_program};
pub use op::{AtomOp, Op};
pub use program::{NodeId, Program};
pub use types::{ScalarType, SeqType};
pub use value::Value;
