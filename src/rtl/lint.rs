//! Verilator lint: `verilator --lint-only -Wall` with the waivers listed in `docs/rtl.md`.
//!
//! `WIDTH` stays fatal: it is the warning that catches generator bugs (Icarus and Yosys
//! accept width mismatches silently).

use super::tools::run;
use std::path::Path;

/// Warnings waived for generated code, with the reason (also in `docs/rtl.md`).
pub const WAIVERS: &[(&str, &str)] = &[
    (
        "DECLFILENAME",
        "one file holds the top module and one module per function body",
    ),
    (
        "UNUSEDSIGNAL",
        "lane and tuple slices leave bits unread (e.g. `fst` reads half a tuple, a map ignores a parameter)",
    ),
];

/// Lints `file` (relative to `dir`) with `top` as the top module. `Ok(())` if Verilator
/// exits 0; otherwise the error holds Verilator's messages.
pub fn lint(dir: &Path, file: &str, top: &str) -> Result<(), String> {
    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into()];
    for (w, _) in WAIVERS {
        args.push(format!("-Wno-{w}"));
    }
    args.push("--top-module".into());
    args.push(top.into());
    args.push(file.into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run("verilator", &args, dir, &[])?
        .check()
        .map(|_| ())
        .map_err(|e| format!("lint failed: {e}"))
}
