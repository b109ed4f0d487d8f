//! The e-graph layer: the egg language and analysis, rules as data, saturation, proofs.
//!
//! - [`lang`]: the egg language [`lang::SeqLang`] (applicative, integer leaves, type terms,
//!   closed function bodies over `(arg I T)`);
//! - [`analysis`]: per-class [`analysis::Sort`] (kind and sequence type), checked on merge;
//! - [`convert`]: `Program <-> RecExpr`, so a proven-equal or extracted term can be run;
//! - [`pattern`], [`rules`], [`conditions`], [`apply`]: rule files (`rules/`), their loader,
//!   the named conditions and generators, and the applier that types and unions instances
//!   under parameterized names (`map-nest[4x2]`);
//! - [`extract`]: smallest terms of classes (whole, or within a function body's scope);
//! - [`saturate`]: the runner with node, iteration and time limits and its report;
//! - [`prove`]: proofs of equality and their derivations;
//! - [`random`], [`soundness`]: random rule instances and the interpreter-based rule test.
//!
//! The rule format and every rule are documented in `docs/rules.md`.

pub mod analysis;
pub mod apply;
pub mod conditions;
pub mod convert;
pub mod extract;
pub mod lang;
pub mod pattern;
pub mod prove;
pub mod random;
pub mod rules;
pub mod saturate;
pub mod soundness;
