//! Regression tests of issue 18 (hardening) through the binary: numeric options that used
//! to panic, slowdowns that used to hang, option combinations that were silently ignored.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn conv2d() -> String {
    root().join("examples/conv2d.seq").display().to_string()
}

/// Runs tessera, killed after `secs` seconds so a regression to a hang fails instead of
/// blocking the suite (the bound is generous: the commands answer in well under a second).
fn tessera_within(secs: u64, args: &[&str]) -> Output {
    let mut cmd = Command::new("timeout");
    cmd.arg(secs.to_string()).arg(env!("CARGO_BIN_EXE_tessera"));
    cmd.args(args).output().expect("run tessera")
}

fn tessera(args: &[&str]) -> Output {
    tessera_within(300, args)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-cli-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Asserts a user error: exit 2, no panic, every one of `words` on stderr.
#[track_caller]
fn user_error(out: &Output, words: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in words {
        assert!(err.contains(w), "`{w}` not in: {err}");
    }
}

#[test]
fn float_seconds_options_are_validated() {
    let c = conv2d();
    for bad in ["1e300", "2e19", "-1", "0", "NaN", "inf"] {
        let arg = format!("--time-limit={bad}");
        user_error(
            &tessera(&["saturate", &c, &arg]),
            &["--time-limit", "seconds"],
        );
        user_error(
            &tessera(&["prove", &c, &c, &arg]),
            &["--time-limit", "seconds"],
        );
        let arg = format!("--baseline-budget={bad}");
        user_error(
            &tessera(&["report", "--app", &c, "--slowdowns", "16", &arg]),
            &["--baseline-budget", "seconds"],
        );
        let arg = format!("--exact-seconds={bad}");
        user_error(
            &tessera(&["schedule", &c, "--slowdown", "16", "--exact", &arg]),
            &["--exact-seconds", "seconds"],
        );
    }
    // a sane limit still works
    let out = tessera(&["saturate", &c, "--time-limit", "100"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
}

#[test]
fn huge_slowdowns_are_refused_at_once_with_the_nearest_usable_one() {
    let c = conv2d();
    let huge = ["1000000000", "1000000000000", "18446744073709551615"];
    for s in huge {
        for extra in [&[][..], &["--no-burst"], &["--strategy", "aetherling"]] {
            let mut args = vec!["schedule", &c, "--slowdown", s];
            args.extend_from_slice(extra);
            user_error(
                &tessera_within(60, &args),
                &[
                    &format!("slowdown {s} is more clocks than a design may take"),
                    "slowdowns near",
                    "that can be met: 268435440",
                ],
            );
        }
    }
    let out = tessera_within(60, &["explore", &c, "--slowdowns", "1000000000,16"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text.contains("more clocks than a design may take"),
        "{text}"
    );
    // the suggestion is a slowdown that really can be met
    let out = tessera_within(60, &["schedule", &c, "--slowdown", "268435440"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn ignored_or_conflicting_options_are_errors() {
    let c = conv2d();
    let d = scratch("conv2d_s16.st");
    let d = d.to_str().unwrap();
    let out = tessera(&["schedule", &c, "--slowdown", "16", "-o", d]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = scratch("out.v");
    let v = v.to_str().unwrap();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["explore", &c, "--max-slowdown", "4", "--slowdowns", "2"],
            vec!["--max-slowdown", "--slowdowns"],
        ),
        (
            vec!["rtl", d, "--slowdown", "4", "-o", v],
            vec![d, "--slowdown goes with a program (.seq)"],
        ),
        (
            vec!["rtl", d, "--strategy", "aetherling", "-o", v],
            vec![d, "--strategy goes with a program (.seq)"],
        ),
        (
            vec!["area", d, "--slowdown", "4", "--strategy", "egraph"],
            vec![d, "--slowdown and --strategy go with a program"],
        ),
        (
            vec!["fmax", d, "--slowdown", "4"],
            vec![d, "--slowdown goes with a program"],
        ),
        (
            vec!["verify", d, "--program", &c, "--strategy", "egraph"],
            vec![d, "--strategy goes with a program"],
        ),
        (
            vec!["verify", d, "--program", &c, "--slowdown", "16"],
            vec![d, "go with a program (.seq)"],
        ),
        (
            vec!["verify", &c, "--slowdown", "2", "--all"],
            vec!["--slowdown", "--all"],
        ),
        (
            vec!["verify", &c, "--slowdowns", "2,4", "--all"],
            vec!["--slowdowns", "--all"],
        ),
        (
            vec!["verify", &c, "--slowdown", "2", "--slowdowns", "4"],
            vec!["--slowdown", "--slowdowns"],
        ),
        (
            vec!["rtl", d, "-o", v, "--frames", "3"],
            vec!["--testbench"],
        ),
        (
            vec!["rtl", d, "-o", v, "--random", "3"],
            vec!["--testbench"],
        ),
        (
            vec![
                "schedule",
                &c,
                "--slowdown",
                "16",
                "--strategy",
                "aetherling",
                "--no-burst",
            ],
            vec!["--no-burst applies to the egraph strategy only"],
        ),
    ];
    for (args, words) in cases {
        let out = tessera(&args);
        user_error(&out, &words);
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // the same options where they do apply still work
    let out = tessera(&["rtl", d, "-o", v]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = tessera(&["explore", &c, "--max-slowdown", "4", "--no-baseline"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // the table explains its columns
    let text = String::from_utf8_lossy(&out.stdout);
    for column in ["pareto ", "stream graph ", "vector ", "MHz, Mpx/s "] {
        assert!(text.contains(&format!("\n{column}")), "{column}: {text}");
    }
}

#[test]
fn explain_with_output_writes_the_explanation_into_the_file() {
    let c = conv2d();
    let c = c.as_str();
    let d = scratch("explained.st");
    let d = d.to_str().unwrap();
    let out = tessera(&["schedule", c, "--slowdown", "2", "--explain", "-o", d]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "the explanation went to stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = std::fs::read_to_string(d).unwrap();
    for w in [
        "; Explanation",
        "; Derivation from the program",
        "; Lowering",
    ] {
        assert!(text.contains(w), "`{w}` not in {d}:\n{text}");
    }
    // the same as printed without -o, and still a design that reads back
    let printed = tessera(&["schedule", c, "--slowdown", "2", "--explain"]);
    assert_eq!(String::from_utf8_lossy(&printed.stdout), text);
    let out = tessera(&["check", d]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn saturate_uses_and_names_the_schedulers_phase1_limits() {
    let c = conv2d();
    let out = tessera(&["saturate", &c]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("limits: 6 iterations, 3000 e-nodes, no time limit, the scheduler's phase 1"),
        "{text}"
    );
    // the e-graph it reports is the one the scheduler starts from
    let sched = tessera(&["schedule", &c, "--slowdown", "16"]);
    let err = String::from_utf8_lossy(&sched.stderr);
    let out = tessera(&["saturate", &c, "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let nodes = &j["enodes"];
    assert!(
        err.contains(&format!("e-graph {nodes} e-nodes")),
        "{j}\n{err}"
    );
    let out = tessera(&[
        "saturate",
        &c,
        "--iter-limit",
        "30",
        "--node-limit",
        "100000",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("limits: 30 iterations, 100000 e-nodes"),
        "{text}"
    );
    assert!(!text.contains("phase 1"), "{text}");
    assert_eq!(j["limits"]["iterations"], 6);
    assert_eq!(j["limits"]["enodes"], 3000);
    assert_eq!(j["limits"]["scheduler_phase1"], true);
}

#[test]
fn check_refuses_a_reducer_that_is_not_associative_and_commutative() {
    let f = scratch("reduce_sub.seq");
    std::fs::write(&f, "(input I (seq 4 uint8))\n(output (reduce 4 sub I))\n").unwrap();
    let f = f.to_str().unwrap();
    for cmd in ["check", "eval"] {
        let out = tessera(&[cmd, f]);
        user_error(
            &out,
            &[
                &format!("{f}:2:19: error: reduce 4"),
                "associative and commutative",
                "found `sub`",
            ],
        );
    }
}
