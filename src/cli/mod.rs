//! The `tessera` command line: argument parsing and output formats. Each command's work is
//! done by the library layers; this module only reads files, calls them and prints.
//!
//! Exit codes: 0 success, 1 a check that ran and failed (e.g. a simulation mismatch),
//! 2 a user error (bad file, bad arguments, ill-typed program).

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
    /// Type-check a program (.seq) and print its type.
    ///
    /// Prints the program's inputs, output type and operator counts. Errors name the file,
    /// line and column, what was expected and what was found, and exit with code 2.
    Check {
        /// The program file (.seq).
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
        Command::Check { file, json } => program_cmds::check(&file, json),
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
