//! Peak memory of writing a design's Verilog and of verifying it, estimated from its
//! layouts before either starts (the budget of `tessera rtl` and `tessera verify`,
//! [`crate::util::budget`]).
//!
//! Writing the Verilog builds, for each generator and data-movement node, a table of its
//! lanes on every clock of its period (valid-clock patterns are built from their runs and
//! cost nothing here): [`st::estimate::table_bytes`] twice, the table and its phase
//! entries. Verifying also holds every frame's inputs and expected output as trees and as
//! flat atoms ([`st::estimate::ATOM_BYTES`] an atom), the testbench's stimulus, and the
//! simulator's printed output of every clock with its parsed lines ([`LINE_BYTES`] plus two
//! characters a bit of the output).
//!
//! [`st::estimate::table_bytes`]: crate::st::estimate::table_bytes
//! [`st::estimate::ATOM_BYTES`]: crate::st::estimate::ATOM_BYTES

use super::tb::PRE_CLOCKS;
use crate::st::design::Design;
use crate::st::estimate::{node_tables_bytes, ATOM_BYTES};

/// Bytes of one clock's output line, printed and parsed, besides its bits.
pub const LINE_BYTES: u64 = 80;

/// The estimated peak bytes of generating `d`'s Verilog.
pub fn emit_bytes(d: &Design) -> u64 {
    node_tables_bytes(d)
}

/// The estimated peak bytes of verifying `d` (output latency `latency`) on `frames` frames
/// in an RTL simulator.
pub fn verify_bytes(d: &Design, latency: u64, frames: u64) -> u64 {
    let ol = d.output_layout();
    let clocks = d
        .clocks()
        .saturating_mul(frames)
        .saturating_add(latency + PRE_CLOCKS);
    let line = LINE_BYTES.saturating_add(2u64.saturating_mul(ol.bits_per_clock()));
    let stimulus: u64 = d
        .inputs
        .iter()
        .map(|i| i.layout.bits_per_clock())
        .sum::<u64>()
        / 8
        + 1;
    let atoms = d
        .inputs
        .iter()
        .map(|i| i.layout.atoms())
        .sum::<u64>()
        .saturating_add(ol.atoms())
        .saturating_mul(2 * ATOM_BYTES);
    emit_bytes(d)
        .saturating_add(clocks.saturating_mul(line.saturating_add(stimulus)))
        .saturating_add(atoms.saturating_mul(frames))
}
