//! Peak memory of simulating a design, estimated from its layouts before the simulation
//! starts (the budget of `tessera sim`, [`crate::util::budget`]).
//!
//! The simulator holds, for the whole run: the lanes of every clock of the input and output
//! layouts (a vector header and 8 bytes a lane per clock, [`PLACE_BYTES`] + 8 a lane), and
//! the same tables for every generator and data-movement node. For each frame in flight
//! (driven and not yet read: two, plus one per period of latency) it holds the frame's
//! input values as trees and as flat atoms, the expected output as both, and the output's
//! lanes: [`ATOM_BYTES`] each. Frames driven back to back add nothing: they are streamed.

use super::design::Design;
use super::layout::Layout;
use super::op::StOp;

/// Bytes of one clock's entry in a table of lanes by clock, besides 8 bytes a lane.
pub const PLACE_BYTES: u64 = 40;
/// Bytes of one atom of a value, as a tree node or a flat lane.
pub const ATOM_BYTES: u64 = 32;

/// Bytes of a table of `l`'s lanes on every clock.
pub fn table_bytes(l: &Layout) -> u64 {
    l.clocks()
        .saturating_mul(PLACE_BYTES.saturating_add(8u64.saturating_mul(l.lanes())))
}

/// Whether the simulator keeps a per-clock table for a node with this operator: the
/// generators and data movement, not the atom operators and the maps and reduces.
pub fn tabled(op: &StOp) -> bool {
    !matches!(
        op,
        StOp::Input(_)
            | StOp::Arg(..)
            | StOp::Atom(_)
            | StOp::ATuple
            | StOp::STuple
            | StOp::STupleAppend
            | StOp::MapS { .. }
            | StOp::MapT { .. }
            | StOp::Map2S { .. }
            | StOp::Map2T { .. }
            | StOp::ReduceS { .. }
            | StOp::ReduceT { .. }
            | StOp::Stall { .. }
    )
}

/// Bytes of the per-clock tables of `d`'s generator and data-movement nodes ([`tabled`]):
/// each a table of its lanes and its phase entries. The simulator and the Verilog
/// generator both build them.
pub fn node_tables_bytes(d: &Design) -> u64 {
    d.ids()
        .filter(|id| tabled(&d.node(*id).op))
        .map(|id| 2u64.saturating_mul(table_bytes(d.layout(id))))
        .fold(0, u64::saturating_add)
}

/// The estimated peak bytes of simulating `d` with output latency `latency` clocks,
/// checking each frame against its program: independent of the number of frames.
pub fn sim_bytes(d: &Design, latency: u64) -> u64 {
    let p = d.clocks().max(1);
    let tables: u64 = d
        .inputs
        .iter()
        .map(|i| table_bytes(&i.layout))
        .chain([table_bytes(d.output_layout()), node_tables_bytes(d)])
        .fold(0u64, u64::saturating_add);
    let atoms: u64 = d.inputs.iter().map(|i| i.layout.atoms()).sum::<u64>();
    let per_frame = atoms
        .saturating_mul(2)
        .saturating_add(d.output_layout().atoms().saturating_mul(3))
        .saturating_mul(ATOM_BYTES);
    let in_flight = 2 + latency / p;
    tables.saturating_add(per_frame.saturating_mul(in_flight))
}
