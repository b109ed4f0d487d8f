//! The e-graph layer: the egg language and analysis, rules as data, saturation, proofs.
