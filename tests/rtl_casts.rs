//! Every ordered pair of the seven cast types in RTL: one program per source type casts each
//! element of a random input and of a constant sequence of edge values (0, 1, -1, the
//! minimum and maximum of both readings, ...) to all seven types; it is scheduled by the
//! e-graph scheduler, emitted, linted, simulated in Icarus and compared with the interpreter
//! (which `tests/seq_casts.rs` checks against Rust's `as`).

use std::path::{Path, PathBuf};
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::schedule::egraph;
use tessera::seq::op::AtomOp;
use tessera::seq::types::ScalarType;
use tessera::seq::value::scalar_to_int;
use tessera::seq::{parse_program, Program};

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_casts")
        .join(name)
}

/// Eight edge values of `t`, as literals.
fn edges(t: ScalarType) -> Vec<String> {
    let m = t.mask();
    let top = (m >> 1) + 1;
    [0, 1, m, m >> 1, top, top + 1, m - 1, 0x5555_5555]
        .iter()
        .map(|raw| scalar_to_int(raw & m, t).to_string())
        .collect()
}

/// `(atuple (cast bit v) (atuple (cast int8 v) ... (cast uint32 v)))`.
fn all_casts(v: &str) -> String {
    let casts: Vec<String> = AtomOp::CAST_TARGETS
        .iter()
        .map(|t| format!("(cast {t} {v})"))
        .collect();
    let (last, rest) = casts.split_last().unwrap();
    rest.iter()
        .rev()
        .fold(last.clone(), |acc, c| format!("(atuple {c} {acc})"))
}

/// The program casting from `from`.
fn program(from: ScalarType) -> Program {
    let text = format!(
        "(input I (seq 8 {from}))
         (let E (const (seq 8 {from}) ({})))
         (output (map2 8 (fn (x e) (atuple {} {})) I E))",
        edges(from).join(" "),
        all_casts("x"),
        all_casts("e")
    );
    parse_program("casts.seq", &format!("casts_from_{from}"), &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn every_pair_of_types_in_icarus() {
    if !require_tool(&["iverilog", "vvp", "verilator"], "casts in RTL simulation") {
        return;
    }
    let mut failures = Vec::new();
    for from in AtomOp::CAST_TARGETS {
        let p = program(from);
        for s in [1, 8] {
            let d = egraph::schedule(&p, s, &egraph::Options::default())
                .unwrap_or_else(|e| panic!("{from} s={s}: {e}"))
                .design;
            let opts = VerifyOptions {
                seed: s + 100,
                frames: 2,
                ..VerifyOptions::default()
            };
            let dir = work(&format!("{from}_s{s}"));
            match verify_rtl(&d, &p, &dir, &opts) {
                Ok(v) if v.passed() => assert_eq!(v.atoms_checked, 16, "{from} s={s}"),
                Ok(v) => failures.push(format!(
                    "{from} s={s} (work dir {}): lint {:?}, {} mismatches, first {:?}",
                    dir.display(),
                    v.lint,
                    v.mismatch_count,
                    v.mismatches.first()
                )),
                Err(e) => failures.push(format!("{from} s={s}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
