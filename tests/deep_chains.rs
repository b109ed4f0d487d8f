//! Regression tests of issue 18, point 1: programs whose lets form one long chain of
//! operators (`(let aK (map 4 abs aK-1))`, `map2` and mixed chains) go through every pass
//! without a stack overflow, and the `.st` written for such a design reads back.
//!
//! The passes that used to recurse once per operator (the stream graph's design builder, the
//! design copy, the `.st` writer's nesting) are run on a small stack: a recursion that a
//! chain deepens overflows it at these lengths, while the iterative passes need a few
//! kilobytes whatever the length.

use std::path::PathBuf;
use std::process::{Command, Output};
use tessera::schedule::egraph::{schedule, Options};
use tessera::seq::{parse_program, Program};
use tessera::st::parse_design;
use tessera::util::sexp::MAX_NESTING;

/// The shape of a chain.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// `(map 4 abs aK-1)`.
    Map,
    /// `(map2 4 add aK-1 aK-2)`.
    Map2,
    /// `map` and `map2` links alternating.
    Mixed,
}

const KINDS: [Kind; 3] = [Kind::Map, Kind::Map2, Kind::Mixed];

/// A program of `n` lets, each using the one before (declared in dependency order).
fn chain(kind: Kind, n: usize) -> String {
    let mut s = String::from("(input I (seq 4 int8))\n(let a0 (map 4 abs I))\n");
    s.push_str("(let a1 (map 4 abs a0))\n");
    for k in 2..n {
        let map = match kind {
            Kind::Map => true,
            Kind::Map2 => false,
            Kind::Mixed => k % 2 == 0,
        };
        if map {
            s.push_str(&format!("(let a{k} (map 4 abs a{}))\n", k - 1));
        } else {
            s.push_str(&format!("(let a{k} (map2 4 add a{} a{}))\n", k - 1, k - 2));
        }
    }
    s.push_str(&format!("(output a{})\n", n - 1));
    s
}

fn program(kind: Kind, n: usize) -> Program {
    let name = format!("{kind:?}_{n}").to_lowercase();
    parse_program(&format!("{name}.seq"), &name, &chain(kind, n)).expect("a chain checks")
}

/// Runs `f` on a thread with a 256 KiB stack (the main thread has 8 MiB): far too little
/// for a pass that recurses once per operator of these chains.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic")
}

/// The deepest parenthesis nesting of a text.
fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[test]
fn chains_of_1500_evaluate_schedule_and_read_back_on_a_small_stack() {
    on_small_stack(|| {
        for kind in KINDS {
            let p = program(kind, 1500);
            let inputs = tessera::st::verify::random_frames(&p, 7, 1).remove(0);
            let fast = tessera::seq::fast::eval(&p, &inputs).expect("fast eval");
            let reference = tessera::seq::interp::eval(&p, &inputs).expect("reference eval");
            assert_eq!(fast, reference, "{kind:?}");
            for s in [1, 2, 4] {
                let got = schedule(&p, s, &Options::default())
                    .unwrap_or_else(|e| panic!("{kind:?} at s = {s}: {e}"));
                assert_eq!(got.design.clocks(), s);
                let text = got.design.to_text();
                assert!(nesting(&text) <= MAX_NESTING, "{kind:?} at s = {s}");
                let back = parse_design("chain.st", &text).expect("reads back");
                assert_eq!(
                    back.canonical(),
                    got.design.canonical(),
                    "{kind:?} at s = {s}"
                );
                tessera::rtl::emit(&got.design).expect("rtl");
            }
        }
    });
}

#[test]
fn a_deep_design_is_written_with_lets_and_reads_back_equal() {
    // The chain of the report: 198 lets at slowdown 1 nested past 200 parentheses.
    let p = program(Kind::Map, 198);
    let got = schedule(&p, 1, &Options::default()).expect("schedules");
    let text = got.design.to_text();
    assert!(nesting(&text) < 64, "nests {} deep", nesting(&text));
    let back = parse_design("chain_198_lets.st", &text).expect("reads back");
    assert_eq!(back.canonical(), got.design.canonical());
    assert_eq!(back.to_text(), text, "writing is a fixed point");
}

#[test]
fn aetherling_refuses_a_chain_past_its_depth_bound_and_lowers_one_below() {
    use tessera::schedule::aetherling::{schedule as aetherling, MAX_DEPTH};
    let deep = program(Kind::Map, MAX_DEPTH + 10);
    let Err(err) = aetherling(&deep, 2) else {
        panic!("a chain past the bound is refused")
    };
    assert!(err.contains(&format!("more than {MAX_DEPTH}")), "{err}");
    let shallow = program(Kind::Mixed, MAX_DEPTH - 10);
    let got = aetherling(&shallow, 2).expect("lowered");
    assert_eq!(got.design.clocks(), 2);
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-deep-chains-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs the binary with a 1 MiB main-thread stack (`ulimit -s`), killed after 300 s.
fn tessera(args: &[&str]) -> Output {
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -s 1024 && exec timeout 300 \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("run tessera");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "tessera {args:?}: {err}");
    out
}

fn iverilog() -> bool {
    Command::new("iverilog").arg("-V").output().is_ok()
}

#[test]
fn the_binary_runs_every_command_on_deep_chains() {
    for kind in KINDS {
        // Past the old overflow (between 2000 and 3000 lets) for the front end and scheduler.
        let long = scratch(&format!("{kind:?}_2500.seq"));
        std::fs::write(&long, chain(kind, 2500)).unwrap();
        let long = long.display().to_string();
        tessera(&["check", &long]);
        tessera(&["eval", &long]);
        tessera(&["eval", "--reference", &long]);
        let rows = tessera(&["explore", &long, "--slowdowns", "1,2,4", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&rows.stdout).expect("json");
        let rows = json["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 3, "{json}");
        for row in rows {
            assert!(row["error"].is_null() && row["area"].is_f64(), "{row}");
            // Past Aetherling's depth bound: its column is empty, not a crash.
            assert!(row["baseline"].is_null(), "{row}");
        }
        let st = scratch(&format!("{kind:?}_2500.st")).display().to_string();
        tessera(&["schedule", &long, "--slowdown", "1", "-o", &st]);
        tessera(&["check", &st]);
        let v = scratch(&format!("{kind:?}_2500.v")).display().to_string();
        tessera(&["rtl", &st, "-o", &v]);

        // Simulation steps every operator on every clock, and a chain's latency grows with
        // its length: a shorter chain keeps the test quick.
        let short = scratch(&format!("{kind:?}_200.seq"));
        std::fs::write(&short, chain(kind, 200)).unwrap();
        let short = short.display().to_string();
        let st = scratch(&format!("{kind:?}_200.st")).display().to_string();
        tessera(&["schedule", &short, "--slowdown", "2", "-o", &st]);
        tessera(&["check", &st]);
        tessera(&["sim", &st, "--program", &short]);
        if iverilog() {
            let work = scratch(&format!("{kind:?}_200_work")).display().to_string();
            tessera(&["verify", &st, "--program", &short, "--work", &work]);
        }
    }
}

#[test]
fn explain_refuses_a_term_too_large_to_print_and_explains_a_long_map_chain() {
    let explain = Options {
        explain: true,
        ..Options::default()
    };
    // A map2 chain on the two lets before doubles its term (as a tree) at every link.
    let Err(err) = schedule(&program(Kind::Map2, 100), 2, &explain) else {
        panic!("a term too large to print is refused")
    };
    assert!(err.contains("written out as a tree"), "{err}");
    let got = schedule(&program(Kind::Map, 300), 2, &explain).expect("explained");
    let e = got.explanation.expect("an explanation");
    assert!(e.lowering.len() >= 300, "{} lines", e.lowering.len());
}
