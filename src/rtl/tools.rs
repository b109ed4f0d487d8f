//! Finding the external tools (`iverilog`, `vvp`, `verilator`, `yosys`) and running them.
//!
//! Policy for tests ([`require_tool`]): a missing tool fails loudly when `CI` or
//! `RTL_REQUIRE_TOOLS` is set, so a CI run cannot pass without simulating anything;
//! elsewhere the caller prints `SKIPPED` and returns.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The Debian package providing a tool, for messages.
pub fn apt_package(tool: &str) -> &str {
    match tool {
        "iverilog" | "vvp" => "iverilog",
        other => other,
    }
}

/// The tool's path on `PATH`, if any.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// True when missing tools must fail (`CI` or `RTL_REQUIRE_TOOLS` set to anything but
/// empty, `0` or `false`).
pub fn tools_required() -> bool {
    ["CI", "RTL_REQUIRE_TOOLS"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|s| !s.is_empty() && s != "0" && s != "false"))
}

/// Checks that every tool is on `PATH`. Returns `true` if all are; if one is missing,
/// panics when [`tools_required`], else prints `SKIPPED: <what> (<tool> not found)` and
/// returns `false`.
pub fn require_tool(tools: &[&str], what: &str) -> bool {
    for t in tools {
        if find_tool(t).is_none() {
            let msg = format!(
                "{t} not found on PATH; install it with apt-get install -y {}",
                apt_package(t)
            );
            if tools_required() {
                panic!("{msg} (required because CI or RTL_REQUIRE_TOOLS is set)");
            }
            eprintln!("SKIPPED: {what} ({msg})");
            return false;
        }
    }
    true
}

/// The output of a finished tool run.
#[derive(Clone, Debug)]
pub struct Run {
    /// The command line, for messages.
    pub command: String,
    /// Exit status success.
    pub ok: bool,
    /// The signal that ended the tool, if one did (the kernel's out-of-memory killer sends
    /// SIGKILL, and a tool killed that way prints nothing).
    pub signal: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall time.
    pub time: Duration,
}

/// The tool's path, or an error saying how to install it.
fn tool_path(tool: &str) -> Result<PathBuf, String> {
    find_tool(tool).ok_or_else(|| {
        format!(
            "{tool} not found on PATH; install it with apt-get install -y {}",
            apt_package(tool)
        )
    })
}

/// Runs `tool args...` in `dir`; errors only if the tool cannot be started.
pub fn run(tool: &str, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Result<Run, String> {
    let path = tool_path(tool)?;
    let t0 = Instant::now();
    let mut cmd = Command::new(&path);
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {tool}: {e}"))?;
    Ok(Run {
        command: format!("{tool} {}", args.join(" ")),
        ok: out.status.success(),
        signal: out.status.signal(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        time: t0.elapsed(),
    })
}

/// [`run`] stopped after `limit`: `Ok(None)` when it did not finish in time (it is killed).
pub fn run_within(
    tool: &str,
    args: &[&str],
    dir: &Path,
    limit: Duration,
) -> Result<Option<Run>, String> {
    let path = tool_path(tool)?;
    let t0 = Instant::now();
    // output goes to files, so a chatty tool cannot fill a pipe and stall
    let out_path = dir.join(format!("{tool}.stdout"));
    let err_path = dir.join(format!("{tool}.stderr"));
    let file = |p: &Path| {
        std::fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))
    };
    let mut child = Command::new(&path)
        .args(args)
        .current_dir(dir)
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .spawn()
        .map_err(|e| format!("cannot run {tool}: {e}"))?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if t0.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for {tool}: {e}")),
        }
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Ok(Some(Run {
        command: format!("{tool} {}", args.join(" ")),
        ok: status.success(),
        signal: status.signal(),
        stdout: read(&out_path),
        stderr: read(&err_path),
        time: t0.elapsed(),
    }))
}

impl Run {
    /// `Ok(self)` on success, else an error with the command and its output.
    pub fn check(self) -> Result<Run, String> {
        if self.ok {
            return Ok(self);
        }
        let how = match self.signal {
            // SIGKILL is what the kernel's out-of-memory killer sends
            Some(9) => {
                " (killed by signal 9, SIGKILL: the machine may have run out of memory)".to_string()
            }
            Some(n) => format!(" (killed by signal {n})"),
            None => String::new(),
        };
        Err(format!(
            "`{}` failed{how}:\n{}{}",
            self.command,
            tail(&self.stdout, 40),
            tail(&self.stderr, 40)
        ))
    }
}

/// The last `n` lines of a text.
pub fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let from = lines.len().saturating_sub(n);
    let mut t = lines[from..].join("\n");
    if !t.is_empty() {
        t.push('\n');
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_killed_by_a_signal_says_so() {
        let dir = std::env::temp_dir();
        let err = run("sh", &["-c", "kill -KILL $$"], &dir, &[])
            .unwrap()
            .check()
            .unwrap_err();
        assert!(err.contains("killed by signal 9"), "{err}");
        let err = run("sh", &["-c", "echo broken >&2; exit 3"], &dir, &[])
            .unwrap()
            .check()
            .unwrap_err();
        assert!(!err.contains("signal") && err.contains("broken"), "{err}");
    }
}
