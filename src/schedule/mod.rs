//! Scheduling: from a sequence program and a slowdown to the least-area space-time design.

pub mod aetherling;
pub mod burst;
pub mod egraph;
pub mod lower;
pub mod lowering;
pub mod slowdown;
pub mod spread;
pub mod stall;
