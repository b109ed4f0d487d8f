//! Infrastructure shared by every layer: diagnostics, positioned s-expressions, a
//! deterministic random number generator, a deterministic parallel map.

pub mod alloc;
pub mod arena;
pub mod budget;
pub mod diag;
pub mod fxhash;
pub mod par;
pub mod progress;
pub mod rng;
pub mod sexp;
