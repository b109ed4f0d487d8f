//! Infrastructure shared by every layer: diagnostics, positioned s-expressions, a
//! deterministic random number generator.

pub mod arena;
pub mod diag;
pub mod rng;
pub mod sexp;
