//! Progress bars (issue 18): drawn on a terminal's stderr only, never on a captured stderr,
//! with `--json` or `--quiet`, and never on stdout, whose bytes stay the same run to run.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Makes a bar appear at once instead of after 1.5 s, so a short command would show one.
const DELAY_VAR: &str = "TESSERA_PROGRESS_DELAY_MS";

fn conv2d() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/conv2d.seq")
        .display()
        .to_string()
}

/// Runs tessera with stdout and stderr captured (pipes, not a terminal).
fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .env(DELAY_VAR, "0")
        .output()
        .expect("run tessera")
}

#[test]
fn a_captured_stderr_gets_no_progress_and_stdout_is_the_same_twice() {
    let c = conv2d();
    let a = tessera(&["explore", &c]);
    let b = tessera(&["explore", &c]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout, "explore's stdout differs between runs");
    // explore prints nothing on stderr but progress, which a pipe must not get
    assert!(
        a.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );

    let a = tessera(&["schedule", &c, "--slowdown", "16"]);
    let b = tessera(&["schedule", &c, "--slowdown", "16"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    // only the summary line: no bar, no carriage return, no escape sequence
    let err = String::from_utf8(a.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("; conv2d at slowdown 16"), "{err}");
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
}

/// Runs `tessera ARGS` under `script`, whose pseudo-terminal is the command's stdout and
/// stderr; returns what the terminal showed, or None where `script` is missing.
fn on_a_terminal(args: &[&str]) -> Option<String> {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())?;
    // stdout to /dev/null: what remains on the terminal is stderr
    let cmd = format!(
        "{} {} >/dev/null",
        env!("CARGO_BIN_EXE_tessera"),
        args.join(" ")
    );
    let out = Command::new(script)
        .args(["-qec", &cmd, "/dev/null"])
        .env(DELAY_VAR, "0")
        .output()
        .expect("run script");
    assert!(out.status.success(), "{cmd}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_terminal_gets_a_bar_unless_quiet_or_json() {
    let c = conv2d();
    let Some(shown) = on_a_terminal(&["explore", &c]) else {
        eprintln!("skipped: no `script` to give tessera a terminal");
        return;
    };
    assert!(shown.contains("explore conv2d"), "{shown:?}");
    assert!(shown.contains("/30"), "a bar of the 30 jobs: {shown:?}");
    for quiet in ["--quiet", "--json"] {
        let shown = on_a_terminal(&["explore", &c, quiet]).unwrap();
        assert!(shown.is_empty(), "{quiet}: {shown:?}");
    }
}
