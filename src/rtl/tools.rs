//! Finding the external tools (`iverilog`, `vvp`, `verilator`, `yosys`) and running them.
//!
//! Policy for tests ([`require_tool`]): a missing tool fails loudly when `CI` or
//! `RTL_REQUIRE_TOOLS` is set, so a CI run cannot pass without simulating anything;
//! elsewhere the caller prints `SKIPPED` and returns.

use std::os::unix::process::{CommandExt, ExitStatusExt};
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
    /// The address-space limit the tool ran under, in bytes ([`tool_memory_limit`]).
    pub memory_limit: Option<u64>,
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

/// The environment variable that sets [`tool_memory_limit`], in MB.
pub const TOOL_MEMORY_VAR: &str = "TESSERA_TOOL_MEMORY_MB";

/// The address space each external tool may use, in bytes: `TESSERA_TOOL_MEMORY_MB` if set
/// (0: no limit), else 85% of this machine's memory. Synthesis of a frame-scale design can
/// want more than the machine has (Yosys reached 15.9 GB on camera's baseline at
/// s = 8294400 on a 23 GB machine); with the limit the tool fails with an allocation error
/// that [`Run::check`] explains, instead of the kernel's out-of-memory killer choosing a
/// process to end, which may be this one or another program.
pub fn tool_memory_limit() -> Result<Option<u64>, String> {
    if let Ok(v) = std::env::var(TOOL_MEMORY_VAR) {
        let mb: u64 = v.trim().parse().map_err(|_| {
            format!("{TOOL_MEMORY_VAR} must be a whole number of MB (0: no limit), not {v:?}")
        })?;
        return Ok((mb > 0).then(|| mb.saturating_mul(1 << 20)));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let total_kb = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        });
    Ok(total_kb.map(|kb| kb / 100 * 85 * 1024))
}

/// A command for `path` in `dir` whose process may use at most `limit` bytes of address
/// space.
fn limited_command(path: &Path, dir: &Path, limit: Option<u64>) -> Command {
    let mut cmd = Command::new(path);
    cmd.current_dir(dir);
    if let Some(bytes) = limit {
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed; it makes one setrlimit call on a value
        // computed before the fork and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit {
                    rlim_cur: bytes as libc::rlim_t,
                    rlim_max: bytes as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd
}

/// Runs `tool args...` in `dir` under [`tool_memory_limit`]; errors only if the tool cannot
/// be started.
pub fn run(tool: &str, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Result<Run, String> {
    let path = tool_path(tool)?;
    let memory_limit = tool_memory_limit()?;
    let t0 = Instant::now();
    let mut cmd = limited_command(&path, dir, memory_limit);
    cmd.args(args);
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
        memory_limit,
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
    let memory_limit = tool_memory_limit()?;
    let t0 = Instant::now();
    // output goes to files, so a chatty tool cannot fill a pipe and stall
    let out_path = dir.join(format!("{tool}.stdout"));
    let err_path = dir.join(format!("{tool}.stderr"));
    let file = |p: &Path| {
        std::fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))
    };
    let mut child = limited_command(&path, dir, memory_limit)
        .args(args)
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
        memory_limit,
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
        let mut why = Vec::new();
        match self.signal {
            // SIGKILL is what the kernel's out-of-memory killer sends
            Some(9) => why.push(
                "killed by signal 9, SIGKILL: the machine may have run out of memory".to_string(),
            ),
            Some(n) => why.push(format!("killed by signal {n}")),
            None => {}
        }
        let said_memory = [&self.stdout, &self.stderr].iter().any(|t| {
            t.contains("bad_alloc") || t.contains("out of memory") || t.contains("Cannot allocate")
        });
        if let (Some(limit), true) = (self.memory_limit, said_memory || self.signal.is_some()) {
            why.push(format!(
                "it ran with its address space limited to {:.1} GB, which {TOOL_MEMORY_VAR} sets in MB (0: no limit)",
                limit as f64 / (1u64 << 30) as f64
            ));
        }
        let how = if why.is_empty() {
            String::new()
        } else {
            format!(" ({})", why.join("; "))
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
        let err = Run {
            stderr: "terminate called after throwing an instance of 'std::bad_alloc'".into(),
            signal: Some(6),
            memory_limit: Some(3 << 30),
            ..run("sh", &["-c", "exit 0"], &dir, &[]).unwrap()
        };
        let err = Run { ok: false, ..err }.check().unwrap_err();
        assert!(
            err.contains("killed by signal 6; it ran with its address space limited to 3.0 GB"),
            "{err}"
        );
        let err = run("sh", &["-c", "echo broken >&2; exit 3"], &dir, &[])
            .unwrap()
            .check()
            .unwrap_err();
        assert!(!err.contains("signal") && err.contains("broken"), "{err}");
    }
}
