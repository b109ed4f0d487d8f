//! Comparisons against constants in RTL. The RTL writes an unsigned `lt` with a constant
//! operand narrowed to the bits that decide it (`st::compare`: `15 < x` is "a bit of
//! `x[7:4]` is set"); this compares every edge value of a type, on both sides of `lt`,
//! with every constant of a list that has each narrowed form (thresholds just below and at
//! powers of two, constants with trailing ones and zeros, none, the extremes), in Icarus
//! against the interpreter. Signed comparisons, which are not narrowed, are checked the
//! same way.

use std::path::{Path, PathBuf};
use tessera::rtl::tools::require_tool;
use tessera::rtl::verify::{verify_rtl, VerifyOptions};
use tessera::schedule::egraph;
use tessera::seq::types::ScalarType;
use tessera::seq::value::scalar_to_int;
use tessera::seq::{parse_program, Program};

fn work(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("rtl_compare")
        .join(name)
}

/// Raw values of `t` that sit on every narrowed form's boundaries.
fn constants(t: ScalarType) -> Vec<u64> {
    let m = t.mask();
    let small = [
        0,
        1,
        2,
        3,
        4,
        7,
        8,
        15,
        16,
        17,
        0b0101_0111,
        100,
        127,
        128,
        200,
    ];
    let top = [m >> 1, (m >> 1) + 1, m - 1, m, m - 16, m & 0x1234_5678];
    let mut v: Vec<u64> = small.into_iter().chain(top).collect();
    v.iter_mut().for_each(|x| *x &= m);
    v.sort_unstable();
    v.dedup();
    v
}

/// `(atuple f0 (atuple f1 ... fn))`.
fn nest(fields: &[String]) -> String {
    let (last, rest) = fields.split_last().unwrap();
    rest.iter()
        .rev()
        .fold(last.clone(), |acc, f| format!("(atuple {f} {acc})"))
}

/// For each element `e` of a constant sequence of edge values and `x` of a random input:
/// `c < v` and `v < c` for every constant `c` of [`constants`].
fn program(t: ScalarType) -> (Program, usize) {
    let lit = |raw: u64| scalar_to_int(raw, t).to_string();
    let cs = constants(t);
    let edges: Vec<String> = cs.iter().map(|c| lit(*c)).collect();
    let n = edges.len();
    let compares = |v: &str| -> Vec<String> {
        cs.iter()
            .flat_map(|c| {
                let c = format!("(const {t} {})", lit(*c));
                [format!("(lt {c} {v})"), format!("(lt {v} {c})")]
            })
            .collect()
    };
    let mut fields = compares("e");
    fields.extend(compares("x"));
    let text = format!(
        "(input I (seq {n} {t}))
         (let E (const (seq {n} {t}) ({})))
         (output (map2 {n} (fn (x e) {}) I E))",
        edges.join(" "),
        nest(&fields)
    );
    let p = parse_program("compare.seq", &format!("compare_{t}"), &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    (p, n)
}

#[test]
fn comparisons_against_constants_in_icarus() {
    if !require_tool(
        &["iverilog", "vvp", "verilator"],
        "comparisons in RTL simulation",
    ) {
        return;
    }
    let mut failures = Vec::new();
    for t in [
        ScalarType::UInt8,
        ScalarType::UInt16,
        ScalarType::UInt32,
        ScalarType::Int8,
    ] {
        let (p, n) = program(t);
        let d = egraph::schedule(&p, 1, &egraph::Options::default())
            .unwrap_or_else(|e| panic!("{t}: {e}"))
            .design;
        let opts = VerifyOptions {
            seed: 7,
            frames: 2,
            ..VerifyOptions::default()
        };
        let dir = work(&t.to_string());
        match verify_rtl(&d, &p, &dir, &opts) {
            Ok(v) if v.passed() => assert_eq!(v.atoms_checked as usize, 2 * n, "{t}"),
            Ok(v) => failures.push(format!(
                "{t} (work dir {}): lint {:?}, {} mismatches, first {:?}",
                dir.display(),
                v.lint,
                v.mismatch_count,
                v.mismatches.first()
            )),
            Err(e) => failures.push(format!("{t}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
