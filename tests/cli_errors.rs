//! Every user error names its file (issue 18): one case per class of error the commands
//! can meet — unreadable inputs, syntax and type errors (with line and column), bad input
//! values, a design that does not implement its program, programs of different types,
//! unwritable outputs, options that do not fit the file, a missing tool — each asserting
//! exit 2, no panic, and the file's path on stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(rel)
        .display()
        .to_string()
}

/// A scratch directory of this test process, with the test's bad files.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-cli-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(name: &str, text: &str) -> String {
    let p = scratch().join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("run tessera")
}

/// Asserts exit 2, no panic, and `file` (and every one of `words`) on stderr.
#[track_caller]
fn names(out: &Output, file: &str, words: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(file), "`{file}` not in: {err}");
    for w in words {
        assert!(err.contains(w), "`{w}` not in: {err}");
    }
}

#[test]
fn an_unreadable_input_is_named() {
    let missing_seq = scratch().join("missing.seq").display().to_string();
    let missing_st = scratch().join("missing.st").display().to_string();
    let conv = example("conv2d.seq");
    let design = example("designs/map4abs_s2.st");
    for args in [
        vec!["check", &missing_seq],
        vec!["check", &missing_st],
        vec!["eval", &missing_seq],
        vec!["saturate", &missing_seq],
        vec!["explore", &missing_seq],
        vec!["schedule", &missing_seq, "--slowdown", "4"],
        vec!["area", &missing_st],
        vec!["dot", &missing_st],
        vec!["rtl", &missing_st, "-o", "/dev/null"],
        vec!["report", "--app", &missing_seq],
    ] {
        let file = if args.contains(&missing_st.as_str()) {
            &missing_st
        } else {
            &missing_seq
        };
        names(&tessera(&args), file, &["cannot read"]);
    }
    names(
        &tessera(&["prove", &conv, &missing_seq]),
        &missing_seq,
        &["cannot read"],
    );
    names(
        &tessera(&["sim", &design, "--program", &missing_seq]),
        &missing_seq,
        &["cannot read"],
    );
    names(
        &tessera(&["sim", &missing_st, "--program", &conv]),
        &missing_st,
        &["cannot read"],
    );
    let missing_json = scratch().join("missing.json").display().to_string();
    names(
        &tessera(&["eval", &conv, "--input", &missing_json]),
        &missing_json,
        &["cannot read"],
    );
    let missing_png = scratch().join("missing.png").display().to_string();
    names(
        &tessera(&["eval", &conv, "--image", &missing_png]),
        &missing_png,
        &[],
    );
    let missing_dir = scratch().join("no-rules-here").display().to_string();
    names(
        &tessera(&["rules", "--rules", &missing_dir]),
        &missing_dir,
        &[],
    );
}

#[test]
fn syntax_and_type_errors_give_file_line_and_column() {
    let seq = write(
        "typo.seq",
        "(input I (seq 4 uint8))\n(output (map 4 abss I))\n",
    );
    names(&tessera(&["check", &seq]), &format!("{seq}:2:"), &[]);
    names(&tessera(&["eval", &seq]), &format!("{seq}:2:"), &[]);
    let st = write(
        "lanes.st",
        "(design d)\n(input I (tseq 2 0 (sseq 2 int8)))\n(output (map_t 2 0 (map_s 3 abs) I))\n",
    );
    names(
        &tessera(&["check", &st]),
        &format!("{st}:3:"),
        &["mismatch"],
    );
    names(&tessera(&["area", &st]), &format!("{st}:3:"), &[]);
    // (file, text, line, what the message says)
    let told = [
        // the operator as written, not the reader's lookup key (`mapt`)
        (
            "timed.st",
            "(design d)\n(input I (tseq 4 0 int8))\n(output (map_t 4 0 abs (map_t 3 0 abs I)))\n",
            3,
            "map_t: layout mismatch",
        ),
        // a literal written as a program value gets the literal's spelling
        (
            "init.seq",
            "(input I (seq 16 int8))\n(output (shift 16 2 (init (const int8 -3)) I))\n",
            2,
            "without `const`, as `-3`",
        ),
        // a design in a file not named .st is read as a program, and told so
        (
            "design.txt",
            "(design d)\n(input I (tseq 4 0 int8))\n(output (map_t 4 0 abs I))\n",
            1,
            "a file named .st",
        ),
    ];
    for (name, text, line, says) in told {
        let f = write(name, text);
        names(&tessera(&["check", &f]), &format!("{f}:{line}:"), &[says]);
    }
    // a program where a design is read says which file is which
    let conv = example("conv2d.seq");
    names(
        &tessera(&["sim", &conv, "--program", &conv]),
        &format!("{conv}:"),
        &["a .seq file is a program", "tessera schedule"],
    );
}

#[test]
fn a_bad_input_value_names_its_file() {
    let json = write("inputs.json", "{\"x\": 1}");
    names(
        &tessera(&["eval", &example("conv2d.seq"), "--input", &json]),
        &json,
        &["expected"],
    );
    let png = write("not_a.png", "garbage");
    names(
        &tessera(&["eval", &example("conv2d.seq"), "--image", &png]),
        &png,
        &["decode"],
    );
}

#[test]
fn a_design_that_does_not_implement_its_program_names_both() {
    let design = example("designs/map4abs_s2.st");
    let program = example("conv2d.seq");
    for cmd in ["sim", "verify"] {
        let out = tessera(&[cmd, &design, "--program", &program]);
        names(&out, &design, &[&program, "does not implement"]);
    }
}

#[test]
fn programs_of_different_types_name_both() {
    let (a, b) = (example("conv2d.seq"), example("map.seq"));
    names(&tessera(&["prove", &a, &b]), &a, &[&b, "type"]);
}

#[test]
fn an_unwritable_output_is_named() {
    // a file stands where the directory should be, so nothing can be written under it
    let blocker = write("blocker", "");
    let under = |name: &str| format!("{blocker}/{name}");
    let conv = example("conv2d.seq");
    let design = example("designs/map4abs_s2.st");
    let st = under("d.st");
    names(
        &tessera(&["schedule", &conv, "--slowdown", "4", "-o", &st]),
        &st,
        &["cannot write"],
    );
    let v = under("d.v");
    names(&tessera(&["rtl", &design, "-o", &v]), &v, &["cannot write"]);
    let dot = under("d.dot");
    names(
        &tessera(&["dot", &design, "-o", &dot]),
        &dot,
        &["cannot write"],
    );
    let png = under("scene.png");
    names(
        &tessera(&["test-image", "-o", &png, "--width", "8", "--height", "8"]),
        &png,
        &["cannot write"],
    );
    let img = scratch().join("scene.pgm").display().to_string();
    let made = tessera(&["test-image", "-o", &img, "--width", "4", "--height", "4"]);
    assert!(made.status.success());
    names(
        &tessera(&["eval", &conv, "--image", &img, "-o", &png]),
        &png,
        &[],
    );
}

#[test]
fn an_option_that_does_not_fit_the_file_names_it() {
    let conv = example("conv2d.seq");
    let design = example("designs/map4abs_s2.st");
    names(&tessera(&["area", &conv]), &conv, &["--slowdown"]);
    names(
        &tessera(&["rtl", &conv, "-o", "/dev/null"]),
        &conv,
        &["--slowdown"],
    );
    names(&tessera(&["verify", &design]), &design, &["--program"]);
    names(
        &tessera(&["verify", &conv, "--program", &conv, "--slowdown", "4"]),
        &conv,
        &["--program"],
    );
    names(
        &tessera(&["schedule", &conv, "--slowdown", "0"]),
        &conv,
        &["at least 1"],
    );
    names(
        &tessera(&["explore", &conv, "--clock-mhz=-3"]),
        &conv,
        &["--clock-mhz"],
    );
    names(
        &tessera(&["explore", &conv, "--clock-mhz", "-3"]),
        &conv,
        &["--clock-mhz"],
    );
    names(
        &tessera(&["explore", &conv, "--slowdowns", ""]),
        &conv,
        &["--slowdowns: give at least one slowdown"],
    );
    names(
        &tessera(&["explore", &conv, "--max-slowdown", "0"]),
        &conv,
        &["--max-slowdown 0 leaves no slowdown", "the least is 1"],
    );
    // a negative number is a bad value, not an unknown flag
    let out = tessera(&["schedule", &conv, "--slowdown", "-1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid value '-1' for '--slowdown"), "{err}");
    assert!(!err.contains("unexpected argument"), "{err}");
    names(
        &tessera(&[
            "sim",
            &design,
            "--program",
            &example("seed/map4abs.seq"),
            "--frames",
            "0",
        ]),
        &design,
        &["--frames"],
    );
    names(
        &tessera(&["verify", &conv, "--slowdowns", "4,16", "--vcd", "/dev/null"]),
        &conv,
        &["one slowdown"],
    );
}

#[test]
fn a_missing_tool_names_the_design() {
    let design = example("designs/map4abs_s2.st");
    for args in [
        vec!["area", &design, "--yosys"],
        vec!["fmax", &design],
        vec!["verify", &design, "--program", "examples/seed/map4abs.seq"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PATH", scratch().join("no-tools-here"))
            .output()
            .unwrap();
        names(&out, &design, &["not found on PATH"]);
    }
}
