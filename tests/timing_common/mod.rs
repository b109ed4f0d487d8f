//! Shared helpers for the timing tests (`timing.rs`, `late_rows.rs`): a program from the
//! examples, its design scheduled at a clock, and the check that a design computes what the
//! program does.
#![allow(dead_code)]

use std::path::Path;
use tessera::schedule::egraph;
use tessera::seq::{load_program, Program};
use tessera::st::pipeline::Clock;
use tessera::st::verify::{random_frames, verify};
use tessera::st::Design;

/// The program of `file`, relative to the crate.
pub fn program(file: &str) -> Program {
    load_program(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The e-graph scheduler's design of `p` at slowdown `s`, pipelined for `mhz` on the
/// iCE40 (asked for: strict), or not pipelined.
pub fn scheduled(p: &Program, s: u64, mhz: Option<f64>) -> Design {
    Schedules::new(p, mhz).at(s)
}

/// [`scheduled`] without bursts or stalls: the slowdown's own design, where a test is
/// about how that slowdown lays the program out (a faster design run slower may be
/// smaller, and would take its place).
pub fn scheduled_direct(p: &Program, s: u64, mhz: Option<f64>) -> Design {
    let o = egraph::Options {
        clock: mhz.map(Clock::ice40),
        burst: false,
        ..egraph::Options::default()
    };
    egraph::schedule(p, s, &o)
        .unwrap_or_else(|e| panic!("{} s={s}: {e}", p.name))
        .design
}

/// The e-graph scheduler's designs of one program at one clock (or none), those of
/// `egraph::schedule`, with the faster slowdowns' designs that bursts start from scheduled once for
/// all slowdowns asked ([`egraph::Memo`]) rather than again for each.
pub struct Schedules<'p> {
    p: &'p Program,
    o: egraph::Options,
    memo: egraph::Memo,
}

impl<'p> Schedules<'p> {
    /// No design of `p` scheduled yet, for `mhz` on the iCE40 or not pipelined.
    pub fn new(p: &'p Program, mhz: Option<f64>) -> Schedules<'p> {
        let o = egraph::Options {
            clock: mhz.map(Clock::ice40),
            ..egraph::Options::default()
        };
        Schedules {
            p,
            o,
            memo: egraph::Memo::new(),
        }
    }

    /// The design at slowdown `s`.
    pub fn at(&mut self, s: u64) -> Design {
        self.memo
            .schedule(self.p, s, &self.o)
            .unwrap_or_else(|e| panic!("{} s={s}: {e}", self.p.name))
            .design
    }
}

/// Asserts that `d` computes what `p` does on three random frames drawn with `seed`.
pub fn simulates_equal(d: &Design, p: &Program, seed: u64) {
    let frames = random_frames(p, seed, 3);
    let v = verify(d, p, &frames).unwrap_or_else(|e| panic!("{}: {e}", d.name));
    assert!(v.passed(), "{}: {:?}", d.name, v.mismatches.first());
}
