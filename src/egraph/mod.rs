//! The e-graph layer: the egg language and analysis, rules as data, saturation, proofs.

pub mod analysis;
pub mod convert;
pub mod lang;
pub mod apply;
pub mod conditions;
pub mod extract;
pub mod pattern;
pub mod rules;
pub mod prove;
pub mod saturate;
