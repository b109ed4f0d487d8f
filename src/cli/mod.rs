//! The `tessera` command line: argument parsing and output formats. Each command's work is
//! done by the library layers; this module only reads files, calls them and prints.
//!
//! Exit codes: 0 success, 1 a check that ran and failed (e.g. a simulation mismatch),
//! 2 a user error (bad file, bad arguments, ill-typed program).

mod design_cmds;
mod program_cmds;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Tessera compiles streaming image-processing programs, written in a small sequence
/// language, into space-time hardware designs, scheduled by equality saturation.
#[derive(Parser, Debug)]
#[command(name = "tessera", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    /// Run a program (.seq) in the reference interpreter and print its output.
    ///
    /// Values print as nested arrays: sequences [a, b], seq-tuples <a, b>, atom tuples
    /// (a, b), don't-care `_` (null in JSON). Without --input, the inputs are random
    /// (seed 0 unless --random says otherwise) and are printed too.
    Eval {
        /// The program file (.seq).
        file: PathBuf,
        /// A JSON file with the inputs: an object mapping each input name to its value,
        /// or, for a program with one input, just the value.
        #[arg(long, conflicts_with = "random")]
        input: Option<PathBuf>,
        /// Use random inputs from this seed (the same seed gives the same inputs everywhere).
        #[arg(long, value_name = "SEED")]
        random: Option<u64>,
        /// Print inputs and output as one JSON object.
        #[arg(long)]
        json: bool,
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
    },
    /// Print the model area of a design (.st) by operator (docs/area-model.md).
    Area {
        /// The design file (.st).
        design: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
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
        } => design_cmds::sim(&design, &program, random, frames, json),
        Command::Area { design, json } => design_cmds::area_cmd(&design, json),
        Command::Eval {
            file,
            input,
            random,
            json,
        } => program_cmds::eval(&file, input.as_deref(), random, json),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            2
        }
    }
}

/// A user error, printed as it is, exiting with code 2.
pub type CliResult = Result<i32, Box<dyn std::error::Error>>;
