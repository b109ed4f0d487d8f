//! Tessera: a compiler from streaming sequence programs to space-time hardware.
//!
//! The modules follow the pipeline: [`seq`] (the sequence language, its checker and
//! reference interpreter) feeds the later layers; [`util`] holds what every layer shares.

pub mod cli;
pub mod egraph;
pub mod fuzz;
pub mod imageio;
pub mod report;
pub mod rtl;
pub mod schedule;
pub mod seq;
pub mod st;
pub mod util;
