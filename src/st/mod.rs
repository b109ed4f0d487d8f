//! The space-time IR: layouts, operators, type checker, cycle simulator, latency and area.
//!
//! A [`Design`] is an arena of space-time operators ([`StOp`]) whose every value has an
//! exact [`Layout`]: which atoms travel on which wires during which clocks. The layer knows
//! nothing of e-graphs or Verilog; it is the contract both sides meet:
//!
//! - [`check`]: exact operator types, syntactic layout equality at every composition;
//! - [`compare`]: comparisons against a constant, narrowed to the bits that decide them;
//! - [`latency`]: per-node latency and latency-matching FIFO insertion;
//! - [`pipeline`], [`late_rows`], [`unroll`]: pipeline registers for a clock;
//! - [`sim`]: a clock-by-clock simulator, compared with the interpreter by [`verify`];
//! - [`stall`]: a design run at a slower slowdown by a clock enable;
//! - [`area`]: the area model used to rank designs, [`merged`]: the pipeline registers
//!   synthesis merges with registers the design already has;
//! - [`text`]: the `.st` file format (`docs/space-time.md`).

pub mod area;
pub mod check;
pub mod compare;
pub mod delay;
pub mod design;
pub mod dot;
pub mod estimate;
pub mod known;
pub mod late_rows;
pub mod latency;
pub mod layout;
pub mod merged;
pub mod op;
pub mod perm;
pub mod pipeline;
pub mod sim;
pub mod stall;
pub mod stream;
pub mod text;
pub mod unroll;
pub mod verify;

pub use design::{Body, BodyId, Design, InputDecl, Node, NodeId};
pub use layout::Layout;
pub use op::StOp;

pub use text::{load_design, parse_design};
