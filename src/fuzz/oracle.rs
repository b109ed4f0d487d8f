//! What the fuzzer checks of one input: each stage of the pipeline either refuses the input
//! with a diagnostic naming its file, or its result agrees with the reference interpreter.
//!
//! A program goes through: the checker; the program writer and back (same types, same
//! values); the reference interpreter against the fast evaluator; the scheduler at a random
//! slowdown and clock; the design's checker, writer and reader (the same text back); the cycle
//! simulator against the interpreter; the Verilog generator; and, when asked, Icarus
//! simulation of the Verilog against the interpreter. A design text goes through the reader,
//! checker, latency, area and timing models, pipelining, writer and reader, simulator and Verilog
//! generator; a mutated design computes something else than its program, so only a panic
//! counts there.
//!
//! Sizes stay moderate: evaluation is skipped past [`EVAL_ATOMS`], scheduling past
//! [`SCHEDULE_CLOCKS`], design simulation and Verilog past [`DESIGN_CLOCKS`]. Runaway memory
//! on huge sizes is its own concern (issue 18, point 2); the fuzzer looks for wrong answers
//! and crashes on the sizes real programs have.

use crate::egraph::soundness::random_input;
use crate::schedule::slowdown::{default_slowdowns, max_slowdown};
use crate::schedule::{aetherling, egraph};
use crate::seq::types::SeqType;
use crate::seq::value::{format_value, random_value};
use crate::seq::{fast, interp, parse_program, program_text, Program, Value};
use crate::st::pipeline::{baseline_at, Clock};
use crate::st::verify::{check_compatible, random_frames, verify};
use crate::st::{latency, parse_design, Design};
use crate::util::diag::Diagnostic;
use crate::util::rng::Rng;
use std::path::Path;

/// Programs whose inputs hold more atoms than this, or any of whose values holds more than
/// 16 times this, are checked but not evaluated.
pub const EVAL_ATOMS: u64 = 4096;

/// Programs whose fully sequential slowdown ([`max_slowdown`]) is above this are not
/// scheduled.
pub const SCHEDULE_CLOCKS: u64 = 256;

/// Designs of more clocks per period than this, or whose inputs or output carry more atoms,
/// are checked but not simulated nor turned into Verilog; nor are designs of a longer
/// latency simulated.
pub const DESIGN_CLOCKS: u64 = 4096;

/// How far down the pipeline an input went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Refused by the reader or checker, with a diagnostic.
    Rejected,
    /// Accepted, not evaluated (too large).
    Checked,
    /// Evaluated by both evaluators, which agreed.
    Evaluated,
    /// Scheduled (or refused by the scheduler with a message).
    Scheduled,
    /// A design simulated clock by clock (against the interpreter for a scheduled one).
    Simulated,
    /// Its Verilog simulated by Icarus against the interpreter.
    RtlSimulated,
}

/// How deep to take a program that checks.
#[derive(Clone, Debug, Default)]
pub struct Depth {
    /// Schedule it (at a random slowdown) and simulate the design.
    pub schedule: bool,
    /// Also simulate its Verilog with Icarus, in this work directory.
    pub rtl_sim: Option<std::path::PathBuf>,
}

/// What one program or design gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How far it went.
    pub stage: Stage,
    /// The text of the design scheduled from a program, for mutation.
    pub design: Option<String>,
}

impl Outcome {
    fn at(stage: Stage) -> Outcome {
        Outcome {
            stage,
            design: None,
        }
    }
}

/// A refusal must name the file it refuses (the CLI prints it as the error).
fn refused(d: &Diagnostic, file: &str, text: &str) -> Result<Outcome, String> {
    if d.file != file {
        return Err(format!(
            "the diagnostic names `{}`, not the file `{file}`: {d}\n--- input:\n{text}",
            d.file
        ));
    }
    Ok(Outcome::at(Stage::Rejected))
}

/// Reads and checks `.seq` text and, if it checks, runs [`program`] on it.
pub fn program_source(
    file: &str,
    text: &str,
    rng: &mut Rng,
    depth: &Depth,
) -> Result<Outcome, String> {
    match parse_program(file, "fuzz", text) {
        Err(d) => refused(&d, file, text),
        Ok(p) => program(&p, rng, depth).map_err(|e| format!("{e}\n--- program:\n{text}")),
    }
}

fn too_large_to_eval(p: &Program) -> bool {
    let inputs: u64 = p.inputs.iter().map(|i| i.ty.atoms()).sum();
    inputs > EVAL_ATOMS
        || p.reachable()
            .into_iter()
            .any(|id| p.ty(id).atoms() > 16 * EVAL_ATOMS)
}

/// Takes a checked program down the pipeline as far as `depth` says (see the module
/// documentation); an error describes the disagreement.
pub fn program(p: &Program, rng: &mut Rng, depth: &Depth) -> Result<Outcome, String> {
    let text = program_text(p);
    let back = parse_program("written.seq", "fuzz", &text).map_err(|e| {
        format!("the written program does not read back: {e}\n--- written:\n{text}")
    })?;
    let types = |q: &Program| -> Vec<(String, SeqType)> {
        q.inputs
            .iter()
            .map(|i| (i.name.clone(), i.ty.clone()))
            .collect()
    };
    if types(&back) != types(p) || back.output_type() != p.output_type() {
        return Err(format!(
            "the written program reads back with other types\n--- written:\n{text}"
        ));
    }
    if too_large_to_eval(p) {
        return Ok(Outcome::at(Stage::Checked));
    }
    for k in 0..2 {
        let inputs: Vec<Value> = p
            .inputs
            .iter()
            .map(|d| {
                if k == 0 {
                    random_value(&d.ty, rng)
                } else {
                    random_input(&d.ty, rng)
                }
            })
            .collect();
        let want = interp::eval(p, &inputs).map_err(|e| format!("reference interpreter: {e}"))?;
        let t = p.output_type();
        let want = interp::expand_undef(&want, t);
        for (who, q) in [
            ("fast evaluator", p),
            ("fast evaluator, written program", &back),
        ] {
            let got = fast::eval(q, &inputs).map_err(|e| format!("{who}: {e}"))?;
            let got = interp::expand_undef(&got, t);
            if got != want {
                return Err(format!(
                    "{who} differs from the reference interpreter on inputs {}\n  reference: {}\n  got:       {}",
                    shown(p, &inputs),
                    format_value(&want, t),
                    format_value(&got, t)
                ));
            }
        }
    }
    if !depth.schedule || max_slowdown(p) > SCHEDULE_CLOCKS {
        return Ok(Outcome::at(Stage::Evaluated));
    }
    schedule_and_simulate(p, rng, depth)
}

fn shown(p: &Program, inputs: &[Value]) -> String {
    p.inputs
        .iter()
        .zip(inputs)
        .map(|(d, v)| format!("{} = {}", d.name, format_value(v, &d.ty)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A slowdown to schedule `p` at: mostly one `explore` would try, sometimes any up to
/// twice the sequential one (which the scheduler may refuse).
fn pick_slowdown(p: &Program, rng: &mut Rng) -> u64 {
    let usual = default_slowdowns(p);
    if rng.range(0, 4) == 0 {
        rng.range(1, 2 * max_slowdown(p))
    } else {
        *rng.pick(&usual)
    }
}

fn schedule_and_simulate(p: &Program, rng: &mut Rng, depth: &Depth) -> Result<Outcome, String> {
    let s = pick_slowdown(p, rng);
    let aetherling = rng.range(0, 3) == 0;
    // As the commands make them: mostly for the default clock, sometimes for none or for
    // a clock asked for.
    let clock = match rng.range(0, 3) {
        0 => None,
        1 => Some(Clock::default_target()),
        _ => Some(Clock::ice40(*rng.pick(&[50.0, 150.0, 300.0, 600.0]))),
    };
    let got = if aetherling {
        aetherling::schedule(p, s).and_then(|b| baseline_at(b.design, clock.as_ref()))
    } else {
        let o = egraph::Options {
            baseline: false,
            clock: clock.clone(),
            ..egraph::Options::default()
        };
        egraph::schedule(p, s, &o).map(|g| g.design)
    };
    let strategy = match &clock {
        Some(c) => format!(
            "{} (clock {} MHz{})",
            if aetherling { "aetherling" } else { "egraph" },
            c.mhz,
            if c.strict { ", strict" } else { "" }
        ),
        None => (if aetherling { "aetherling" } else { "egraph" }).to_string(),
    };
    let Ok(d) = got else {
        // Not every slowdown has a design; the scheduler says so, which is all it owes.
        return Ok(Outcome::at(Stage::Scheduled));
    };
    let at = format!("the {strategy} design at slowdown {s}");
    crate::st::check::check_design(&d).map_err(|e| format!("{at} does not check: {e}"))?;
    let text = d.to_text();
    let back = parse_design("scheduled.st", &text)
        .map_err(|e| format!("{at} does not read back: {e}\n--- design:\n{text}"))?;
    if back.to_text() != text {
        return Err(format!(
            "{at} reads back as another design\n--- written:\n{text}\n--- read back and written again:\n{}",
            back.to_text()
        ));
    }
    let seed = rng.next_u64();
    let v =
        verify(&d, p, &random_frames(p, seed, 2)).map_err(|e| format!("{at}: simulation: {e}"))?;
    if !v.passed() {
        return Err(format!(
            "{at} simulates unlike the interpreter (seed {seed}): {} mismatches {:?}, violations {:?}, latency {} (model {})\n--- design:\n{text}",
            v.mismatch_count, v.mismatches.first(), v.sim.violations, v.sim.latency, v.sim.model_latency
        ));
    }
    crate::rtl::emit(&d).map_err(|e| format!("{at}: no Verilog: {e}\n--- design:\n{text}"))?;
    let mut stage = Stage::Simulated;
    if let Some(dir) = &depth.rtl_sim {
        rtl_simulate(&d, p, dir, seed).map_err(|e| format!("{at}: {e}\n--- design:\n{text}"))?;
        stage = Stage::RtlSimulated;
    }
    Ok(Outcome {
        stage,
        design: Some(text),
    })
}

fn rtl_simulate(d: &Design, p: &Program, dir: &Path, seed: u64) -> Result<(), String> {
    let opts = crate::rtl::verify::VerifyOptions {
        seed,
        ..Default::default()
    };
    let v = crate::rtl::verify::verify_rtl(d, p, dir, &opts).map_err(|e| format!("RTL: {e}"))?;
    if !v.passed() {
        return Err(format!(
            "the Verilog simulates unlike the interpreter (seed {seed}): lint {:?}, {} mismatches {:?}",
            v.lint, v.mismatch_count, v.mismatches
        ));
    }
    Ok(())
}

/// Reads `.st` text and, if it parses, runs every design stage on it; with `program`, also
/// simulates it on the program's random inputs when their types fit (only a panic or an
/// inconsistency of the design tools counts: a mutated design may compute anything).
pub fn design_source(
    file: &str,
    text: &str,
    program: Option<&Program>,
    seed: u64,
) -> Result<Outcome, String> {
    let d = match parse_design(file, text) {
        Err(e) => return refused(&e, file, text),
        Ok(d) => d,
    };
    let fail = |what: String| format!("{what}\n--- design:\n{text}");
    crate::st::check::check_design(&d)
        .map_err(|e| fail(format!("a design that reads does not check: {e}")))?;
    let written = d.to_text();
    let back = parse_design("written.st", &written).map_err(|e| {
        fail(format!(
            "the written design does not read back: {e}\n--- written:\n{written}"
        ))
    })?;
    if back.to_text() != written {
        return Err(fail(format!(
            "the written design reads back as another\n--- written:\n{written}"
        )));
    }
    let big = d.clocks() > DESIGN_CLOCKS
        || d.inputs.iter().any(|i| i.layout.atoms() > DESIGN_CLOCKS)
        || d.output_layout().atoms() > DESIGN_CLOCKS;
    if big {
        return Ok(Outcome::at(Stage::Checked));
    }
    // The models answer or refuse; either is fine, a panic is not.
    let _ = latency::analyze(&d);
    let _ = crate::st::area::area(&d);
    let _ = crate::st::pipeline::critical_path(&d, &crate::st::delay::Target::ice40_hx8k());
    let _ = crate::rtl::emit(&d);
    let _ = Clock::default_target().pipeline(&d);
    let Some(p) = program else {
        return Ok(Outcome::at(Stage::Checked));
    };
    if check_compatible(&d, p).is_err() || too_large_to_eval(p) {
        return Ok(Outcome::at(Stage::Checked));
    }
    let aligned = match latency::analyze(&d) {
        // The simulator runs until the output's latency has passed: a FIFO thousands of
        // clocks deep (a mutated depth) makes that as long.
        Ok(l) if l.output > DESIGN_CLOCKS => return Ok(Outcome::at(Stage::Checked)),
        Ok(l) if !l.misaligned.is_empty() => latency::insert_fifos(&d).ok(),
        _ => None,
    };
    let _ = verify(
        aligned.as_ref().unwrap_or(&d),
        p,
        &random_frames(p, seed, 2),
    );
    Ok(Outcome::at(Stage::Simulated))
}
