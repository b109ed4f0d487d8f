//! Don't-care output lanes: output ports that carry a don't-care atom on every valid clock.
//!
//! A stencil's first windows reach before the frame (a `shift` without `init`), so the
//! program leaves their outputs undefined. When the output layout puts only such positions
//! on a lane (a 4x4 `conv2d` at slowdown 1 or 2: its first ten positions), the RTL drives
//! that port with 0 and synthesis removes the kernels that computed it. The valid outputs,
//! which `tessera verify` compares with the interpreter, are unchanged.
//!
//! Which atoms are don't-care comes from the space-time simulator on a few random frames.
//! Every operator but `if` gives don't-care exactly when an operand is one, and shifts fill
//! the same positions whatever the data, so one run shows the don't-care atoms of every
//! input — unless an `if` chose between a defined and a don't-care branch on a known
//! condition ([`SimStats::undef_by_data`]); then nothing is pruned.

use crate::seq::value::{random_value, Value};
use crate::st::sim::{simulate, SimStats};
use crate::st::stream::Lane;
use crate::st::Design;
use crate::util::rng::Rng;

/// Frames simulated: the first (whose earlier frame does not exist) and two after it.
const FRAMES: usize = 3;

/// Largest design simulated, in clocks per period times nodes: beyond it (frame-sized
/// designs, whose don't-care positions are a vanishing share of every lane) no lane is
/// pruned, so emitting stays fast.
pub const MAX_WORK: u64 = 1 << 16;

/// One flag per output lane: true where the lane carries a don't-care atom on every valid
/// clock of every simulated frame, and the run shows this holds for any input data. All
/// false when the design is larger than [`MAX_WORK`] or does not simulate.
pub fn dont_care_lanes(d: &Design) -> Vec<bool> {
    let ol = d.output_layout();
    let none = vec![false; ol.lanes() as usize];
    if d.clocks().saturating_mul(d.len() as u64) > MAX_WORK {
        return none;
    }
    let mut rng = Rng::new(0);
    let frames: Vec<Vec<Vec<Value>>> = (0..FRAMES)
        .map(|_| {
            d.inputs
                .iter()
                .map(|i| {
                    let t = i.layout.atom().to_seq();
                    (0..i.layout.atoms())
                        .map(|_| random_value(&t, &mut rng))
                        .collect()
                })
                .collect()
        })
        .collect();
    let Ok(run) = simulate(d, &frames) else {
        return none;
    };
    if !data_independent(&run.stats) {
        return none;
    }
    let mut dc = vec![true; none.len()];
    for idx in ol.placement().iter().flatten() {
        for (k, a) in idx.iter().enumerate() {
            let undef_everywhere = run
                .frames
                .iter()
                .all(|f| matches!(&f[*a as usize], Lane::Val(v) if all_undef(v)));
            dc[k] &= undef_everywhere;
        }
    }
    dc
}

/// Whether the don't-care atoms of the run are those of every input.
fn data_independent(s: &SimStats) -> bool {
    s.undef_by_data == 0 && s.violations.is_empty()
}

/// Whether every part of the atom `v` is don't-care.
fn all_undef(v: &Value) -> bool {
    match v {
        Value::Undef => true,
        Value::Pair(p) => all_undef(&p.0) && all_undef(&p.1),
        _ => false,
    }
}
