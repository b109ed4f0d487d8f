//! Options shared by several commands: the e-graph limits of `prove` and `saturate`, and
//! the clock target of every command that makes a design.

use super::rtl_cmds::DesignSource;
use super::schedule_cmds::Strategy;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most seconds a time option takes: about 31 years. Beyond it `Instant + limit`
/// overflows (a panic), and no run is meant to last that long: leave the option out for
/// no limit.
pub(super) const MAX_SECONDS: f64 = 1e9;

/// A number of seconds given as `flag`: positive, finite and at most [`MAX_SECONDS`], else
/// an error that says so (exit 2).
pub(super) fn seconds(flag: &str, x: f64) -> Result<Duration, String> {
    if x.is_finite() && x > 0.0 && x <= MAX_SECONDS {
        if let Ok(d) = Duration::try_from_secs_f64(x) {
            return Ok(d);
        }
    }
    // Huge values print in exponent form, not as hundreds of digits.
    let shown = if x.is_finite() && x.abs() >= 1e6 {
        format!("{x:e}")
    } else {
        x.to_string()
    };
    Err(format!(
        "{flag}: expected a positive number of seconds up to {MAX_SECONDS:e} (leave the option out for no limit), found {shown}"
    ))
}

/// Options of the commands that saturate an e-graph (`prove`, `saturate`).
#[derive(clap::Args, Debug)]
pub(super) struct SatArgs {
    /// Read the rules from this directory instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub(super) rules: Option<PathBuf>,
    /// Inner factors nesting may use: a list such as 2,4, or `all`.
    #[arg(long, value_name = "LIST")]
    factors: Option<String>,
    /// Rule sets to use, such as program,simplify,core or program,simplify,core,extra
    /// (default program,simplify,core; `prove` adds fusion and commute). `program` rules
    /// rewrite the program once, then `simplify` and `fusion` rules run to a fixpoint, then
    /// the others saturate.
    #[arg(long, value_name = "LIST")]
    sets: Option<String>,
    /// Iteration limit (default: `saturate` 6 and `prove` 40; 6 iterations and 3000 e-nodes
    /// are the scheduler's phase 1, which `saturate` shows).
    #[arg(long, value_name = "N")]
    iter_limit: Option<usize>,
    /// E-node limit (default: `saturate` 3000, `prove` 100000).
    #[arg(long, value_name = "N")]
    node_limit: Option<usize>,
    /// Time limit in seconds, at most 1e9 (default none: results would depend on the
    /// machine).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
}

/// The clock target of the commands that make designs.
#[derive(clap::Args, Debug, Clone)]
pub struct ClockArgs {
    /// The clock to meet, in MHz: a scheduled design gets the pipeline registers its
    /// modelled critical path needs at this clock, chosen with the design, with 5% of the
    /// period left for place-and-route's variation on the iCE40 (docs/timing.md); 0 leaves
    /// designs without pipeline registers. An operator too slow for a clock given
    /// here is an error that names it and the clock it allows; under the default (225 MHz)
    /// it is registered on both sides and limits the clock instead. A design read from a
    /// .st file is used as written.
    #[arg(long, value_name = "F")]
    clock_mhz: Option<f64>,
    /// The device whose delay model the clock is met on: ice40-hx8k (calibrated against
    /// nextpnr-ice40) or xc7-estimate (an estimate, not measured).
    #[arg(
        long = "target",
        id = "clock_target",
        value_name = "DEVICE",
        default_value = "ice40-hx8k"
    )]
    target: String,
}

impl ClockArgs {
    /// The clock target, `None` for 0 MHz (no pipelining); errors on a bad value or device.
    pub fn clock(&self) -> Result<Option<crate::st::pipeline::Clock>, String> {
        let target = crate::st::delay::Target::named(&self.target).ok_or_else(|| {
            format!(
                "--target: unknown device `{}` (known: {})",
                self.target,
                crate::st::delay::Target::NAMES.join(", ")
            )
        })?;
        let mhz = self
            .clock_mhz
            .unwrap_or(crate::st::pipeline::Clock::DEFAULT_MHZ);
        if !mhz.is_finite() || !(0.0..=10_000.0).contains(&mhz) {
            return Err(format!(
                "--clock-mhz: expected a clock from 0 (no pipelining) to 10000 MHz, found {mhz}"
            ));
        }
        Ok((mhz > 0.0).then_some(crate::st::pipeline::Clock {
            target,
            mhz,
            strict: self.clock_mhz.is_some(),
        }))
    }
}

impl SatArgs {
    pub(super) fn options(self) -> super::egraph_cmds::SatOptions {
        super::egraph_cmds::SatOptions {
            rules: self.rules,
            factors: self.factors,
            sets: self.sets,
            iter_limit: self.iter_limit,
            node_limit: self.node_limit,
            time_limit: self.time_limit,
        }
    }
}

/// The design a command works on: a design file used as written, or a program scheduled at
/// a slowdown (`area`, `fmax`, `rtl`, `dot`).
#[derive(clap::Args, Debug)]
pub(super) struct DesignArgs {
    /// A design (.st), or a program (.seq) to schedule first (needs --slowdown).
    design: PathBuf,
    /// For a program: the slowdown to schedule it at.
    #[arg(long, value_name = "S")]
    slowdown: Option<u64>,
    /// For a program: the scheduler (default egraph).
    #[arg(long, value_enum)]
    strategy: Option<Strategy>,
    #[command(flatten)]
    clock: ClockArgs,
}

impl DesignArgs {
    /// The design or program file.
    pub(super) fn file(&self) -> &Path {
        &self.design
    }

    /// Where the design comes from; an error for options a design file would ignore or a
    /// bad clock.
    pub(super) fn source(&self) -> Result<DesignSource<'_>, String> {
        Ok(DesignSource {
            file: &self.design,
            slowdown: self.slowdown,
            strategy: program_only(&self.design, self.slowdown, self.strategy)?,
            clock: self.clock.clock()?,
        })
    }
}

/// The scheduler of a command that takes a design (.st) or a program (.seq): an error if
/// `--slowdown` or `--strategy` is given with a design, which is used as written and would
/// silently ignore them.
pub(super) fn program_only(
    file: &Path,
    slowdown: Option<u64>,
    strategy: Option<Strategy>,
) -> Result<Strategy, String> {
    if file.extension().is_none_or(|e| e != "seq") {
        let given: Vec<&str> = [
            slowdown.map(|_| "--slowdown"),
            strategy.map(|_| "--strategy"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !given.is_empty() {
            return Err(format!(
                "{}: {} {} with a program (.seq); a design (.st) is used as written",
                file.display(),
                given.join(" and "),
                if given.len() == 1 { "goes" } else { "go" }
            ));
        }
    }
    Ok(strategy.unwrap_or(Strategy::Egraph))
}
