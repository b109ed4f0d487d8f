//! The `tessera` command line: argument parsing and output formats. Each command's work is
//! done by the library layers; this module only reads files, calls them and prints.
//!
//! Exit codes: 0 success, 1 a check that ran and failed (e.g. a simulation mismatch),
//! 2 a user error (bad file, bad arguments, ill-typed program).

mod args;
mod design_cmds;
mod egraph_cmds;
mod errors;
mod image_cmds;
mod program_cmds;
mod progress;
mod report_cmds;
mod rtl_cmds;
mod schedule_cmds;

use crate::util::budget::Budget;
pub use args::ClockArgs;
use args::{program_only, DesignArgs, SatArgs};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Tessera compiles streaming image-processing programs, written in a small sequence
/// language, into space-time hardware designs, scheduled by equality saturation.
#[derive(Parser, Debug)]
#[command(name = "tessera", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Draw no progress bars on stderr. Bars are drawn only when stderr is a terminal,
    /// never with --json, and only for work that runs longer than a second or two
    /// (explore, schedule, report, verify, synthesis).
    #[arg(long, global = true)]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the rewrite rules, and with --check test every rule for soundness.
    ///
    /// Rules are read from the built-in rule files (rules/ in the source tree) or from
    /// --rules DIR (every *.rules file under it). Loading rejects unknown conditions,
    /// unbound variables and malformed patterns (exit 2). --check instantiates each rule
    /// at random, runs both sides in the reference interpreter on random inputs (with
    /// don't-care values), prints one line per rule, and exits 1 if any rule fails.
    Rules {
        /// Test every rule for soundness.
        #[arg(long)]
        check: bool,
        /// List the lowering rules (rules/lower/: how each sequence operator is built from
        /// space-time operators in each output layout) instead of the rewrite rules. They
        /// are checked against the interpreter by `cargo test --test lower_rules`.
        #[arg(long, conflicts_with_all = ["check", "rules"])]
        lower: bool,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
        /// Read the rules from this directory instead of the built-in ones.
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
        /// Seed of the random test (the same seed gives the same test everywhere).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Prove two programs (.seq) equal by equality saturation.
    ///
    /// Both programs go into one e-graph, which is saturated with the rules until they
    /// meet in one e-class. Exit 0 if proven, 1 if not (saturated, or a limit hit, which
    /// is said), 2 on a user error (unreadable file, programs of different types).
    /// --explain prints the derivation: each step names the rule instance applied
    /// (e.g. map-nest[2x4]; `<=` means applied right to left), the subterm it rewrote
    /// and the whole term after it. By default nesting may use any number found in the
    /// two programs as inner factor, and splits only the programs' own lengths.
    Prove {
        /// The first program (.seq).
        a: PathBuf,
        /// The second program (.seq).
        b: PathBuf,
        /// Print the derivation.
        #[arg(long)]
        explain: bool,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
        /// Print the saturation report (iterations, e-nodes, e-classes, stop reason).
        #[arg(long)]
        stats: bool,
        #[command(flatten)]
        sat: SatArgs,
    },
    /// Saturate one program (.seq) with the rules and report the e-graph's size.
    ///
    /// By default within the scheduler's phase-1 limits (6 iterations, 3000 e-nodes), so the
    /// e-graph shown is the one `schedule` and `explore` start from; the limits used are
    /// printed. Exit 0 if saturation completed, 1 if a limit stopped it (the report says
    /// which).
    Saturate {
        /// The program file (.seq).
        file: PathBuf,
        /// Print the full report (rules applied, skipped instances).
        #[arg(long)]
        stats: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        sat: SatArgs,
    },
    /// Explore the area/throughput front of a program with the e-graph scheduler.
    ///
    /// One row per slowdown: throughput (output atoms per clock), the model area (vector and
    /// scalar), the stream graph's size, the chosen input and output layouts, whether the
    /// row is Pareto-optimal, and the Aetherling baseline's area beside it.
    Explore {
        /// The program file (.seq).
        file: PathBuf,
        /// Comma-separated slowdowns (default: every divisor of the fully sequential
        /// design's clock count).
        #[arg(long, value_name = "LIST")]
        slowdowns: Option<String>,
        /// Only slowdowns up to N (with the default list).
        #[arg(long, value_name = "N", conflicts_with = "slowdowns")]
        max_slowdown: Option<u64>,
        /// Leave out the Aetherling baseline column (computed beside the e-graph's rows by
        /// default).
        #[arg(long)]
        no_baseline: bool,
        /// The most nodes the baseline may lower at one slowdown before its column says
        /// "over budget" instead of an area (counted in work, not time, so every machine
        /// prints the same table); 0: no limit. Aetherling's Unpartition searches grow with
        /// the slowdown: demosaic at 8294400 lowers 15 million nodes (about 80 s), every other
        /// paper app and example fewer than 3 million at every slowdown.
        #[arg(long, value_name = "N", default_value_t = crate::schedule::egraph::BASELINE_STEPS)]
        baseline_steps: u64,
        #[command(flatten)]
        clock: ClockArgs,
        /// Print the rows as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Schedule a program (.seq): the least-area space-time design at a slowdown, the
    /// fastest design within an area, or the best under an area/slowdown objective.
    ///
    /// The slowdown is the number of clocks the design takes for one whole input (1 = fully
    /// parallel). Prints the design in the .st format (or writes it with -o) and a summary
    /// line on stderr: output layout, latency, model area. If the slowdown cannot be met,
    /// says which slowdowns near it can. Strategy `egraph` (the default) is Tessera's e-graph
    /// scheduler; `aetherling` is Aetherling's own algorithm. --max-area and --objective
    /// schedule every default slowdown (the divisors of the fully sequential design's clock
    /// count) and pick one.
    #[command(group(clap::ArgGroup::new("target").required(true).args(["slowdown", "max_area", "objective"])))]
    Schedule {
        /// The program file (.seq).
        file: PathBuf,
        /// Clocks per whole input.
        #[arg(long, value_name = "S")]
        slowdown: Option<u64>,
        /// The fastest design whose model area (scalar) is at most A.
        #[arg(long, value_name = "A")]
        max_area: Option<f64>,
        /// The design minimizing an objective over the default slowdowns: `area-time` is
        /// model area x slowdown.
        #[arg(long, value_enum, value_name = "O")]
        objective: Option<schedule_cmds::Objective>,
        /// Which scheduler to use.
        #[arg(long, value_enum, default_value = "egraph")]
        strategy: schedule_cmds::Strategy,
        #[command(flatten)]
        clock: ClockArgs,
        /// Write the design (.st) here instead of printing it.
        #[arg(short = 'o', long = "output", value_name = "DESIGN.st")]
        output: Option<PathBuf>,
        /// Pin the output layout, written as in .st files, e.g. "(tseq 16 0 uint8)"
        /// (egraph strategy; the slowdown must equal the layout's clocks).
        #[arg(long, value_name = "LAYOUT")]
        output_layout: Option<String>,
        /// Add the derivation from the program to the design: the rewrites to the
        /// scheduled sequence term, then each lowering to a space-time operator.
        #[arg(long)]
        explain: bool,
        /// Do not try the designs of faster slowdowns run in bursts or stalled (egraph
        /// strategy).
        #[arg(long)]
        no_burst: bool,
        /// With the e-graph strategy: extract the top scope exactly by ILP (needs a build
        /// with `--features lp` and CBC; practical for small programs only).
        #[arg(long)]
        exact: bool,
        /// CBC's time limit per candidate output layout with --exact, in seconds; a layout
        /// without a proven optimum by then gets no design.
        #[arg(long, value_name = "SECS", default_value_t = 60.0, requires = "exact")]
        exact_seconds: f64,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Type-check a program (.seq) or a space-time design (.st).
    ///
    /// For a program: its inputs, output type and operator counts. For a design: its input
    /// and output layouts, clocks, latency and model area. Errors name the file, line and
    /// column, what was expected and what was found, and exit with code 2.
    Check {
        /// The program (.seq) or design (.st) file.
        file: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a program (.seq) and print its output (the fast evaluator; --reference for the
    /// reference interpreter).
    ///
    /// Values print as nested arrays: sequences [a, b], seq-tuples <a, b>, atom tuples
    /// (a, b), don't-care `_` (null in JSON). Without --input, the inputs are random
    /// (seed 0 unless --random says otherwise) and are printed too. The fast evaluator
    /// computes on flat columns and runs a 1920x1080 frame in well under a second; the
    /// reference interpreter, the judge of every test, builds trees and takes minutes.
    ///
    /// Images: `--image IN.png` feeds an image file (PNG, PGM or PPM) to the input,
    /// `-o OUT.png` writes the output as an image (examples in docs/gallery.md):
    /// `tessera eval examples/big_real_32_conv2d.seq --image scene.png -o blurred.png`.
    Eval {
        /// The program file (.seq).
        file: PathBuf,
        /// A JSON file with the inputs: an object mapping each input name to its value,
        /// or, for a program with one input, just the value.
        #[arg(long, conflicts_with_all = ["random", "images"])]
        input: Option<PathBuf>,
        /// Use random inputs from this seed (the same seed gives the same inputs everywhere).
        #[arg(long, value_name = "SEED", conflicts_with = "images")]
        random: Option<u64>,
        #[command(flatten)]
        image: image_cmds::ImageArgs,
        /// Print inputs and output as one JSON object (with -o: the files read and written).
        #[arg(long)]
        json: bool,
        /// Use the reference interpreter instead of the fast evaluator (same output).
        #[arg(long)]
        reference: bool,
        /// The most memory the run may be estimated to need, in GB (default 16): a larger
        /// estimate is refused before the run starts (docs/language.md §9).
        #[arg(long, value_name = "GB")]
        max_memory_gb: Option<f64>,
    },
    /// Simulate a design (.st) clock by clock and compare it with its program (.seq).
    ///
    /// Drives random inputs frame after frame, flattens the design's valid outputs and
    /// compares them with the interpreter's (don't-care positions skipped). Joins whose
    /// inputs arrive at different clocks get latency-matching FIFOs first. Exits 0 if every
    /// atom agrees, 1 on a mismatch, 2 on a user error.
    Sim {
        /// The design file (.st).
        design: PathBuf,
        /// The sequence program the design implements.
        #[arg(long)]
        program: PathBuf,
        /// Random inputs from this seed (default 0).
        #[arg(long, value_name = "SEED")]
        random: Option<u64>,
        /// Number of frames driven back to back.
        #[arg(long, default_value_t = 3)]
        frames: usize,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// The most memory the run may be estimated to need, in GB (default 16): a larger
        /// estimate is refused before the run starts (docs/language.md §9).
        #[arg(long, value_name = "GB")]
        max_memory_gb: Option<f64>,
    },
    /// Print the model area of a design (.st) by operator (docs/area-model.md).
    Area {
        #[command(flatten)]
        source: DesignArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Also synthesize the design's Verilog with Yosys (synth_xilinx for xc7, out of
        /// context) and report LUT, LUTRAM, SRL, FF, BRAM, DSP and CARRY4 (docs/rtl.md).
        #[arg(long)]
        yosys: bool,
        /// Drive output lanes that carry a don't-care atom on every valid clock with 0, so
        /// synthesis removes the logic computing them (docs/timing.md §"Don't-care output
        /// lanes").
        #[arg(long)]
        prune_dont_care: bool,
    },
    /// Measure a design's clock by place-and-route on the iCE40 HX8K.
    ///
    /// The design's Verilog is wrapped in a register harness (a shift register drives every
    /// input, every output is captured into registers: every path is register to register
    /// and nothing is optimized away), synthesized with `synth_ice40` and placed and routed
    /// with `nextpnr-ice40 --hx8k --package ct256 --seed N`. Prints Fmax, logic cells (the
    /// harness's flip-flops included, as in ../shared/data/aetherling_rtl_measured.csv),
    /// block RAMs and the critical path as the design's signals. Needs yosys and
    /// nextpnr-ice40 (apt-get install -y yosys nextpnr-ice40). A design too large for the
    /// HX8K says so (exit 1). nextpnr's router sometimes does not converge on a placement:
    /// a run past 60 s is stopped and the next seed tried (three in all); the seed used is
    /// printed. A program is scheduled for --clock-mhz first, like every command.
    Fmax {
        #[command(flatten)]
        source: DesignArgs,
        /// nextpnr's placer seed (seeds move Fmax by about 10%; Aetherling's measured
        /// numbers use seed 1).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Keep the harness, netlist and reports in this directory.
        #[arg(long, value_name = "DIR")]
        work: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Drive output lanes that carry a don't-care atom on every valid clock with 0, so
        /// synthesis removes the logic computing them (docs/timing.md §"Don't-care output
        /// lanes").
        #[arg(long)]
        prune_dont_care: bool,
    },
    /// Write the Verilog-2005 of a design (.st), and with --testbench a testbench.
    ///
    /// The top module has a clock, a valid_in held high from the first input clock on, one
    /// port per input lane, valid_out and one port per output lane (docs/rtl.md). With
    /// --testbench, tb.v, in.bin (random inputs), clkgen.v (Icarus) and main.cpp
    /// (Verilator) are written beside OUT.
    Rtl {
        #[command(flatten)]
        source: DesignArgs,
        /// The Verilog file to write.
        #[arg(short, long, value_name = "OUT.v")]
        output: PathBuf,
        /// Also write a testbench and its stimulus beside OUT.
        #[arg(long)]
        testbench: bool,
        /// Random inputs of the testbench from this seed (default 0).
        #[arg(long, value_name = "SEED", requires = "testbench")]
        random: Option<u64>,
        /// Frames of the testbench, back to back.
        #[arg(long, default_value_t = 2, requires = "testbench")]
        frames: usize,
        /// Drive output lanes that carry a don't-care atom on every valid clock with 0, so
        /// synthesis removes the logic computing them (docs/timing.md §"Don't-care output
        /// lanes").
        #[arg(long)]
        prune_dont_care: bool,
        /// The most memory the run may be estimated to need, in GB (default 16): a larger
        /// estimate is refused before the run starts (docs/language.md §9).
        #[arg(long, value_name = "GB")]
        max_memory_gb: Option<f64>,
    },
    /// Check a design's Verilog against its program: emit, Verilator lint, simulate random
    /// frames back to back (Icarus by default), compare every valid output clock with the
    /// interpreter.
    ///
    /// Prints one line per design; exits 0 if lint is clean and every output agrees, 1 on
    /// a failure (the work directory is then kept), 2 on a user error or missing tool.
    ///
    /// On an image: `--image IN.png` drives the image in every frame (Verilator unless
    /// --sim says otherwise) and `-o OUT.png` writes the RTL's output image of the first
    /// frame, pixels the program leaves undefined in magenta; it equals `tessera eval
    /// FILE.seq --image IN.png -o OUT.png` byte for byte when the verification passes.
    Verify {
        /// A design (.st, with --program), or a program (.seq) to schedule at each slowdown.
        design: PathBuf,
        /// For a design: the sequence program it implements.
        #[arg(long)]
        program: Option<PathBuf>,
        /// For a program: schedule and verify at this slowdown.
        #[arg(long, value_name = "S", conflicts_with_all = ["slowdowns", "all"])]
        slowdown: Option<u64>,
        /// For a program: a comma-separated list of slowdowns.
        #[arg(long, value_name = "LIST", conflicts_with = "all")]
        slowdowns: Option<String>,
        /// For a program: every slowdown `explore` reports by default (the divisors of the
        /// fully sequential design's clock count).
        #[arg(long)]
        all: bool,
        /// For a program: the scheduler (default egraph).
        #[arg(long, value_enum)]
        strategy: Option<schedule_cmds::Strategy>,
        #[command(flatten)]
        clock: ClockArgs,
        /// The simulator: icarus or verilator (default icarus; verilator with --image, whose
        /// frames are long).
        #[arg(long)]
        sim: Option<String>,
        /// Random inputs from this seed (default 0).
        #[arg(long, value_name = "SEED", conflicts_with = "images")]
        random: Option<u64>,
        /// Number of frames driven back to back (with --image, the image in each).
        #[arg(long, default_value_t = 3)]
        frames: usize,
        /// Keep the Verilog, testbench and traces in this directory.
        #[arg(long, value_name = "DIR")]
        work: Option<PathBuf>,
        #[command(flatten)]
        image: image_cmds::ImageArgs,
        /// Write the simulation's waveform (every signal of the design, as VCD) to this
        /// file. A failing run writes `wave.vcd` into its kept work directory either way.
        #[arg(long, value_name = "FILE")]
        vcd: Option<PathBuf>,
        /// Drive output lanes that carry a don't-care atom on every valid clock with 0, so
        /// synthesis removes the logic computing them (docs/timing.md §"Don't-care output
        /// lanes").
        #[arg(long)]
        prune_dont_care: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// The most memory the run may be estimated to need, in GB (default 16): a larger
        /// estimate is refused before the run starts (docs/language.md §9).
        #[arg(long, value_name = "GB")]
        max_memory_gb: Option<f64>,
    },
    /// Draw a design as a Graphviz graph: every operator with its parameters and latency,
    /// the layout on every edge, function bodies as dashed clusters.
    ///
    /// The graph is of the design as its Verilog is generated (latency-matching FIFOs
    /// included) and names each box as the Verilog names its net (`n12`). Render it with
    /// Graphviz (apt-get install graphviz):
    /// `tessera dot examples/conv2d.seq --slowdown 4 | dot -Tsvg -o conv2d_s4.svg`.
    Dot {
        #[command(flatten)]
        source: DesignArgs,
        /// Write the graph to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Write the synthetic test scene as an image file (PNG, PGM or PPM).
    ///
    /// The same picture for the same size on every machine: gradients, hard edges at
    /// several angles, a checkerboard, rings that get thinner outwards and bars whose period
    /// falls to 2 pixels. `gray` is its luma, `rgb` the colour scene, `bayer-grbg` the colour
    /// scene through a G R / B G colour filter (the raw frame `demosaic.seq` and
    /// `camera.seq` take).
    TestImage {
        /// The image file to write (.png, .pgm, .ppm or .pnm).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// Pixels per row.
        #[arg(long, default_value_t = 1920)]
        width: u32,
        /// Rows.
        #[arg(long, default_value_t = 1080)]
        height: u32,
        /// gray, rgb or bayer-grbg.
        #[arg(long, default_value = "gray")]
        kind: String,
    },
    /// Quality-of-results report: every app at the paper's slowdowns, scheduled by the
    /// e-graph scheduler and by Aetherling's algorithm, in model area, graph sizes and
    /// compile time, beside the paper's published Vivado figures.
    ///
    /// With --yosys, both designs are synthesized (LUT/FF/BRAM/DSP) and the rank
    /// correlation between the area model and synthesis is printed. docs/results.md is
    /// this report (scripts/results.sh regenerates it).
    Report(report_cmds::ReportArgs),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    use clap::{CommandFactory, FromArgMatches};
    // `--slowdown -1` is a bad value to be named as such (`invalid digit`), not an unknown
    // flag `-1` whose tip (`-- -1`) fails too
    let command = Cli::command().mut_subcommands(|c| c.allow_negative_numbers(true));
    let parsed = command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let files = cli.command.files();
    let result = run(cli.command, cli.quiet);
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{}", errors::naming_a_file(&e.to_string(), &files));
            2
        }
    }
}

/// Runs one command: its exit code, or the error to print (exit 2).
fn run(command: Command, quiet: bool) -> CliResult {
    match command {
        Command::Rules {
            check,
            lower,
            json,
            rules,
            seed,
        } => {
            if lower {
                egraph_cmds::lower_rules(json)
            } else {
                egraph_cmds::rules(rules.as_deref(), check, json, seed)
            }
        }
        Command::Prove {
            a,
            b,
            explain,
            json,
            stats,
            sat,
        } => egraph_cmds::prove_cmd(&a, &b, explain, json, stats, &sat.options()),
        Command::Saturate {
            file,
            stats,
            json,
            sat,
        } => egraph_cmds::saturate_cmd(&file, json, stats, &sat.options()),
        Command::Schedule {
            file,
            slowdown,
            max_area,
            objective,
            strategy,
            clock,
            output,
            output_layout,
            explain,
            no_burst,
            exact,
            exact_seconds,
            json,
        } => {
            // clap's required group guarantees one of the three.
            let target = match (slowdown, max_area, objective) {
                (Some(s), _, _) => schedule_cmds::Target::Slowdown(s),
                (_, Some(a), _) => schedule_cmds::Target::MaxArea(a),
                (_, _, o) => schedule_cmds::Target::Objective(
                    o.unwrap_or(schedule_cmds::Objective::AreaTime),
                ),
            };
            schedule_cmds::schedule(
                &file,
                &schedule_cmds::ScheduleArgs {
                    target,
                    strategy,
                    out: output.as_deref(),
                    exact,
                    exact_seconds,
                    json,
                    explain,
                    output_layout: output_layout.as_deref(),
                    burst: !no_burst,
                    clock: clock.clock()?,
                    progress: progress::reporter(json, quiet),
                },
            )
        }
        Command::Explore {
            file,
            slowdowns,
            max_slowdown,
            no_baseline,
            baseline_steps,
            clock,
            json,
        } => schedule_cmds::explore(
            &file,
            slowdowns.as_deref(),
            max_slowdown,
            (!no_baseline).then_some((baseline_steps > 0).then_some(baseline_steps)),
            json,
            clock.clock()?,
            progress::reporter(json, quiet),
        ),
        Command::Check { file, json } => {
            if file.extension().is_some_and(|e| e == "st") {
                design_cmds::check(&file, json)
            } else {
                program_cmds::check(&file, json)
            }
        }
        Command::Sim {
            design,
            program,
            random,
            frames,
            json,
            max_memory_gb,
        } => design_cmds::sim(
            &design,
            &program,
            (random, frames),
            json,
            Budget::from_gb(max_memory_gb)?,
        ),
        Command::Area {
            source,
            json,
            yosys,
            prune_dont_care,
        } => source.source()?.design().and_then(|d| {
            if yosys {
                let opts = rtl_options(prune_dont_care);
                rtl_cmds::area_yosys(&d, json, &opts, &progress::reporter(json, quiet))
            } else {
                design_cmds::area_cmd(&d, json)
            }
        }),
        Command::Fmax {
            source,
            seed,
            work,
            json,
            prune_dont_care,
        } => source.source()?.design().and_then(|d| {
            let progress = progress::reporter(json, quiet);
            let opts = rtl_options(prune_dont_care);
            rtl_cmds::fmax(&d, seed, work.as_deref(), json, &opts, &progress)
        }),
        Command::Rtl {
            source,
            output,
            testbench,
            random,
            frames,
            prune_dont_care,
            max_memory_gb,
        } => rtl_cmds::rtl(
            &source.source()?,
            &output,
            (testbench, random.unwrap_or(0), frames),
            &rtl_options(prune_dont_care),
            Budget::from_gb(max_memory_gb)?,
        ),
        Command::Verify {
            design,
            program,
            slowdown,
            slowdowns,
            all,
            strategy,
            clock,
            sim,
            random,
            frames,
            work,
            image,
            vcd,
            prune_dont_care,
            json,
            max_memory_gb,
        } => verify_cmd(
            &design,
            program.as_deref(),
            (slowdown, slowdowns.as_deref(), all),
            rtl_cmds::VerifyArgs {
                file: &design,
                program: program.as_deref(),
                slowdowns: Vec::new(),
                strategy: program_only(&design, None, strategy)?,
                clock: clock.clock()?,
                sim: sim.as_deref().unwrap_or(if image.images.is_empty() {
                    "icarus"
                } else {
                    "verilator"
                }),
                seed: random.unwrap_or(0),
                frames,
                work: work.as_deref(),
                image: &image,
                vcd: vcd.as_deref(),
                rtl: rtl_options(prune_dont_care),
                json,
                progress: progress::reporter(json, quiet),
                budget: Budget::from_gb(max_memory_gb)?,
            },
        ),
        Command::Dot { source, output } => source
            .source()?
            .design()
            .and_then(|d| design_cmds::dot(&d, output.as_deref())),
        Command::TestImage {
            output,
            width,
            height,
            kind,
        } => image_cmds::test_image(&output, width, height, &kind),
        Command::Eval {
            file,
            input,
            random,
            image,
            json,
            reference,
            max_memory_gb,
        } => program_cmds::eval(
            &file,
            input.as_deref(),
            random,
            (json, reference),
            &image,
            Budget::from_gb(max_memory_gb)?,
        ),
        Command::Report(args) => {
            let progress = progress::reporter(args.json, quiet);
            report_cmds::report(&args, progress)
        }
    }
}

/// `tessera verify`: resolves the slowdowns of a program, then verifies.
fn verify_cmd(
    file: &std::path::Path,
    program: Option<&std::path::Path>,
    (one, list, all): (Option<u64>, Option<&str>, bool),
    mut args: rtl_cmds::VerifyArgs,
) -> CliResult {
    if file.extension().is_some_and(|e| e == "seq") {
        if program.is_some() {
            return Err("--program goes with a design (.st); a program is scheduled itself".into());
        }
        let p = crate::seq::load_program(file)?;
        args.slowdowns = schedule_cmds::slowdown_list(&p, one, list, all)?;
    } else if one.is_some() || list.is_some() || all {
        return Err(format!(
            "{}: --slowdown, --slowdowns and --all go with a program (.seq); a design (.st) is used as written",
            file.display()
        )
        .into());
    }
    rtl_cmds::verify(&args)
}

/// A user error, printed as it is, exiting with code 2.
pub type CliResult = Result<i32, Box<dyn std::error::Error>>;

/// The RTL generator's options of a command: the defaults, with `--prune-dont-care`.
fn rtl_options(prune_dont_care: bool) -> crate::rtl::RtlOptions {
    crate::rtl::RtlOptions {
        prune_dont_care,
        ..crate::rtl::RtlOptions::default()
    }
}
