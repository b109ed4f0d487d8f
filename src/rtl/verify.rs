//! Emit, lint, simulate and compare: the RTL's outputs against the interpreter on every
//! valid clock of several frames driven back to back.
//!
//! The comparison checks timing as well as data: `valid_out` must be low before the
//! design's latency, follow the output layout's valid clocks for every frame, and never be
//! `x`; every bit the interpreter defines must be equal on those clocks (an `x` or `z` is a
//! mismatch; don't-care atoms are skipped). Full-size frames take the expected outputs from
//! the fast evaluator ([`crate::seq::fast::expected`]).

use super::encode::{atom_bits, atom_from_bits};
use super::lint::lint;
use super::sim::{simulate, Simulator};
use super::tb::{parse_output, testbench, PRE_CLOCKS};
use super::{emit_with, Rtl, RtlOptions};
use crate::seq::fast;
use crate::seq::{Program, Value};
use crate::st::stream::flatten;
use crate::st::verify::{check_compatible, random_frames};
use crate::st::Design;
use std::path::Path;
use std::time::Duration;

/// How to verify.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// The simulator.
    pub sim: Simulator,
    /// Seed of the random inputs (the interpreter's `random_frames`).
    pub seed: u64,
    /// Frames driven back to back (at least 2 is the project's rule).
    pub frames: usize,
    /// Run Verilator lint first.
    pub lint: bool,
    /// Generator options.
    pub rtl: RtlOptions,
    /// Dump every signal to `wave.vcd` in the work directory. A failing run is simulated
    /// again with the dump either way.
    pub vcd: bool,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            sim: Simulator::Icarus,
            seed: 0,
            frames: 2,
            lint: true,
            rtl: RtlOptions::default(),
            vcd: false,
        }
    }
}

/// The outcome of [`verify_rtl`].
#[derive(Clone, Debug)]
pub struct RtlVerification {
    /// The generated Verilog.
    pub rtl: Rtl,
    /// The simulator used.
    pub sim: Simulator,
    /// Lint result: `None` if not run, `Some(Err(messages))` on warnings.
    pub lint: Option<Result<(), String>>,
    /// Frames simulated.
    pub frames: usize,
    /// Clocks simulated.
    pub clocks_simulated: u64,
    /// Valid output clocks seen.
    pub valid_clocks: u64,
    /// Output atoms compared.
    pub atoms_checked: u64,
    /// Output atoms the interpreter leaves undefined.
    pub atoms_dont_care: u64,
    /// Disagreements (data, `x`, or `valid_out`), in total.
    pub mismatch_count: u64,
    /// The first disagreements, described.
    pub mismatches: Vec<String>,
    /// Wall time of lint, simulator build and simulation run.
    pub times: (Duration, Duration, Duration),
    /// The RTL's output atoms of the first frame, in the program's atom order:
    /// [`Value::Undef`] where the interpreter leaves the atom undefined (the program says
    /// nothing there) or the simulation gave no defined bits.
    pub first_frame: Vec<Value>,
    /// The waveform written (`wave.vcd` in the work directory), if any.
    pub vcd: Option<std::path::PathBuf>,
}

impl RtlVerification {
    /// True if lint (when run) is clean and every output agrees.
    pub fn passed(&self) -> bool {
        self.lint.as_ref().is_none_or(|l| l.is_ok()) && self.mismatch_count == 0
    }
}

/// Verifies the RTL of `d` against program `p` on `opts.frames` random frames, in the work
/// directory `dir` (created if needed; it keeps `design.v`, the testbench and the traces
/// for inspection).
pub fn verify_rtl(
    d: &Design,
    p: &Program,
    dir: &Path,
    opts: &VerifyOptions,
) -> Result<RtlVerification, String> {
    if opts.frames == 0 {
        return Err("at least one frame is needed".into());
    }
    let inputs = random_frames(p, opts.seed, opts.frames);
    verify_rtl_on(d, p, dir, opts, &inputs)
}

/// [`verify_rtl`] on given frames: `inputs[f]` holds one value per program input
/// (`opts.frames` is not used).
pub fn verify_rtl_on(
    d: &Design,
    p: &Program,
    dir: &Path,
    opts: &VerifyOptions,
    inputs: &[Vec<Value>],
) -> Result<RtlVerification, String> {
    check_compatible(d, p)?;
    if inputs.is_empty() {
        return Err("at least one frame is needed".into());
    }
    let rtl = emit_with(d, &opts.rtl)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(dir.join("design.v"), &rtl.verilog)
        .map_err(|e| format!("cannot write design.v: {e}"))?;
    let flat: Vec<Vec<Vec<Value>>> = inputs
        .iter()
        .map(|fr| {
            fr.iter()
                .zip(&p.inputs)
                .map(|(v, i)| flatten(v, &i.ty))
                .collect()
        })
        .collect();
    let tb = testbench(&rtl, &flat, opts.sim.four_state(), opts.seed, opts.vcd);
    // Verilator's lint reads design.v only and writes nothing beside it, so it runs while
    // the simulator builds and runs: on a large design each takes seconds.
    let (lint_done, simulated) = std::thread::scope(|scope| {
        let linting = opts.lint.then(|| {
            scope.spawn(|| {
                let t0 = std::time::Instant::now();
                let r = lint(dir, "design.v", &rtl.top);
                (r, t0.elapsed())
            })
        });
        let simulated = simulate(opts.sim, dir, "design.v", &tb);
        let lint_done = linting.map(|h| h.join().expect("the lint thread does not panic"));
        (lint_done, simulated)
    });
    let (text, build, exec) = simulated?;
    let lint_time = lint_done.as_ref().map(|l| l.1).unwrap_or_default();
    let lint_result = lint_done.map(|l| l.0);
    let lines = parse_output(&text)?;
    let mut expected: Vec<Vec<Value>> = Vec::new();
    for (f, fr) in inputs.iter().enumerate() {
        // A frame repeated (an image driven several times) is interpreted once.
        let out = match f.checked_sub(1) {
            Some(prev) if inputs[prev] == *fr => expected[prev].clone(),
            _ => flatten(&fast::expected(p, fr)?, p.output_type()),
        };
        expected.push(out);
    }
    let mut v = RtlVerification {
        sim: opts.sim,
        lint: lint_result,
        frames: inputs.len(),
        clocks_simulated: tb.clocks,
        valid_clocks: 0,
        atoms_checked: 0,
        atoms_dont_care: 0,
        mismatch_count: 0,
        mismatches: Vec::new(),
        times: (lint_time, build, exec),
        first_frame: vec![Value::Undef; expected[0].len()],
        vcd: None,
        rtl,
    };
    compare(&mut v, &lines, &expected)?;
    if !v.passed() && !opts.vcd {
        // The waveform of a failure, from the same stimulus: the first run stays fast.
        let tb = testbench(&v.rtl, &flat, opts.sim.four_state(), opts.seed, true);
        simulate(opts.sim, dir, "design.v", &tb)?;
    }
    if opts.vcd || !v.passed() {
        v.vcd = Some(dir.join("wave.vcd")).filter(|p| p.exists());
    }
    Ok(v)
}

fn compare(
    v: &mut RtlVerification,
    lines: &[super::tb::OutLine],
    expected: &[Vec<Value>],
) -> Result<(), String> {
    let ol = v.rtl.design.output_layout().clone();
    let p = ol.clocks();
    let w = ol.atom_bits() as usize;
    let lanes = ol.lanes() as usize;
    let atom = ol.atom().clone();
    let start = PRE_CLOCKS + v.rtl.latency;
    let end = start + v.frames as u64 * p;
    let mut seen = 0u64;
    let report = |v: &mut RtlVerification, msg: String| {
        v.mismatch_count += 1;
        if v.mismatches.len() < 10 {
            v.mismatches.push(msg);
        }
    };
    for l in lines {
        if l.clock >= end {
            continue;
        }
        seen += 1;
        let want = l.clock >= start && ol.is_valid_clock((l.clock - start) % p);
        let got = match l.valid {
            '1' => true,
            '0' => false,
            c => {
                report(v, format!("clock {}: valid_out is {c}", l.clock));
                continue;
            }
        };
        if got != want {
            report(
                v,
                format!(
                    "clock {}: valid_out is {}, expected {} (latency {}, period {p})",
                    l.clock,
                    u8::from(got),
                    u8::from(want),
                    v.rtl.latency
                ),
            );
            continue;
        }
        if !want {
            continue;
        }
        v.valid_clocks += 1;
        if l.bits.len() != lanes * w {
            return Err(format!(
                "clock {}: {} output bits, expected {}",
                l.clock,
                l.bits.len(),
                lanes * w
            ));
        }
        let tau = l.clock - start;
        let (f, c) = ((tau / p) as usize, tau % p);
        let idx = ol.lane_atoms(c).expect("a valid clock");
        let bits: Vec<char> = l.bits.chars().collect();
        for (k, a) in idx.iter().enumerate() {
            let exp = atom_bits(&expected[f][*a as usize], &atom);
            let got = &bits[(lanes - 1 - k) * w..(lanes - k) * w];
            if exp.iter().all(Option::is_none) {
                v.atoms_dont_care += 1;
                continue;
            }
            v.atoms_checked += 1;
            if f == 0 {
                // Parts the interpreter leaves undefined stay undefined, whatever bits a
                // two-state simulator put there.
                let masked: Vec<char> = exp
                    .iter()
                    .zip(got)
                    .map(|(e, g)| if e.is_some() { *g } else { 'x' })
                    .collect();
                v.first_frame[*a as usize] = atom_from_bits(&masked, &atom);
            }
            let ok = exp.iter().zip(got).all(|(e, g)| match e {
                None => true,
                Some(b) => *g == if *b { '1' } else { '0' },
            });
            if !ok {
                let want: String = exp
                    .iter()
                    .map(|b| match b {
                        Some(true) => '1',
                        Some(false) => '0',
                        None => '-',
                    })
                    .collect();
                let got: String = got.iter().collect();
                report(
                    v,
                    format!(
                        "clock {} (frame {f}, clock {c} of the period), lane {k}, atom {a}: got {got}, expected {want}",
                        l.clock
                    ),
                );
            }
        }
    }
    if seen < end {
        report(
            v,
            format!("the simulation stopped after {seen} clocks, expected {end}"),
        );
    }
    Ok(())
}
