//! Comparing finished designs at a clock: which of two candidates (the roots of a stream
//! graph, the retries, a slowdown's own design and a faster one's in bursts) the scheduler
//! keeps.
//!
//! Their model areas are compared where both modelled clocks reach the target; otherwise
//! the area per clock rate, so that a design limited far below the target by one slow
//! path does not win on area alone. `fuzz::versus` judges the baseline's designs against
//! the e-graph's the same way.

use super::Options;
use crate::st::pipeline::{critical_path, Clock};
use crate::st::Design;

/// A finished design's model area and, under a clock target, its modelled clock (MHz):
/// what the comparisons read, found once per design (a modelled clock walks the design).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rated {
    pub area: f64,
    pub mhz: Option<f64>,
}

impl Rated {
    /// Design `d` of model area `area`, its clock modelled if the options have a target.
    pub fn of(d: &Design, area: f64, o: &Options) -> Rated {
        let timed = o.clock.as_ref().is_some_and(|c| c.mhz > 0.0);
        Rated {
            area,
            mhz: timed.then(|| model_clock(d, o)).flatten(),
        }
    }

    /// Whether this is a better choice than `b` at the options' clock ([`better_at`]). A
    /// root of `tests/data/search/slow_root_max_window.seq` at s = 18 built 609.75 at
    /// 142.9 MHz, limited by an output reshape, and was kept against another of 680 at
    /// 214.1 MHz while designs were compared by area alone.
    pub fn better_than(self, b: Rated, o: &Options) -> bool {
        better_at((self.area, self.mhz), (b.area, b.mhz), o.clock.as_ref())
    }

    /// [`as_fast`] on the clocks found (true where either has none).
    pub fn as_fast_as(self, b: Rated, o: &Options) -> bool {
        match (self.mhz, b.mhz) {
            (Some(fa), Some(fb)) => reaches(fa, fb, o),
            _ => true,
        }
    }
}

/// Whether a design of model area and modelled clock (MHz) `a` is a better choice than one
/// of `b` at `clock`: of two that reach the clock, the smaller; otherwise the one with less
/// area per clock rate, a clock above the target counting as the target (area per pixel a
/// second: twice the area at twice the clock is as good). Under a clock asked for
/// ([`Clock::strict`]) a design that reaches it beats one that misses it first. Without a
/// clock (or a clock the model cannot find), the smaller.
pub fn better_at(a: (f64, Option<f64>), b: (f64, Option<f64>), clock: Option<&Clock>) -> bool {
    let smaller = a.0 < b.0 - 1e-9;
    let (Some(c), Some(fa), Some(fb)) = (clock.filter(|c| c.mhz > 0.0), a.1, b.1) else {
        return smaller;
    };
    let t = c.mhz;
    let (reach_a, reach_b) = (fa >= t - 1e-9, fb >= t - 1e-9);
    if c.strict && reach_a != reach_b {
        return reach_a;
    }
    if reach_a && reach_b {
        return smaller;
    }
    a.0 / fa.min(t) < b.0 / fb.min(t) * (1.0 - 1e-12)
}

/// Whether design `a`'s modelled clock reaches the clock target, or `b`'s clock where `b`
/// misses the target too: a smaller design that misses a clock the other meets is not
/// better (an accumulator slower than the clock alone limits it).
pub(super) fn as_fast(a: &Design, b: &Design, o: &Options) -> bool {
    let (Some(fa), Some(fb)) = (model_clock(a, o), model_clock(b, o)) else {
        return true;
    };
    reaches(fa, fb, o)
}

/// Whether clock `fa` reaches the options' target, or `fb` where that misses it too.
fn reaches(fa: f64, fb: f64, o: &Options) -> bool {
    let target = o.clock.as_ref().map_or(f64::INFINITY, |c| c.mhz);
    fa >= target.min(fb) - 1e-9
}

/// The clock a design's modelled critical path allows on the clock target's device.
pub(super) fn model_clock(d: &Design, o: &Options) -> Option<f64> {
    let t = Clock::device(o.clock.as_ref());
    critical_path(d, &t).ok().map(|c| c.mhz)
}
