//! The fuzzer's resource bounds: a thread that watches the running input's time and the
//! process's memory, and on either bound exceeded prints the input, writes it to a file and
//! aborts. A hung or runaway input cannot be stopped any other way from inside the process,
//! and an abort is what a test runner or `scripts/fuzz.sh` notices.
//!
//! The time bound is on the CPU time the process spends on the input (all its threads), so
//! a machine that stalls the process (other jobs, memory pressure) does not make a quick
//! input look hung; ten times the bound in wall-clock time also counts, for an input that
//! blocks without computing.
//!
//! The same file, written as each input starts, is what survives a crash of the process
//! itself (a stack overflow), so the script keeps the input that caused it.

use super::Input;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The bounds and where the running input is kept.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Most CPU time one input may take (and ten times this in wall-clock time).
    pub time: Duration,
    /// Most resident memory of the whole process, in bytes.
    pub memory: u64,
    /// A directory where the running input is written as it starts, as `input.seq` or
    /// `input.st` (with `input.program.seq` for a design's program); `None`: kept in
    /// memory only.
    pub current: Option<PathBuf>,
}

struct Running {
    since: Instant,
    cpu_since: Option<Duration>,
    input: Input,
}

/// Watches inputs announced with [`Watchdog::start`].
pub struct Watchdog {
    bounds: Bounds,
    running: Arc<Mutex<Option<Running>>>,
}

/// The CPU time this process has used, all threads (Linux; `None` elsewhere).
pub fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces, in parentheses): state is
    // field 3, utime 14 and stime 15, in clock ticks of 1/100 s on Linux.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// The resident memory of this process in bytes (Linux; `None` elsewhere).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

impl Watchdog {
    /// Starts the watching thread (it polls every 50 ms for the life of the process).
    pub fn new(bounds: Bounds) -> Watchdog {
        let running: Arc<Mutex<Option<Running>>> = Arc::new(Mutex::new(None));
        let shared = Arc::clone(&running);
        let b = bounds.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(50));
            let guard = shared.lock().unwrap_or_else(|e| e.into_inner());
            let Some(r) = guard.as_ref() else {
                continue;
            };
            let cpu = match (r.cpu_since, cpu_time()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => r.since.elapsed(),
            };
            let over = if cpu > b.time {
                Some(format!("ran past its bound of {:?} of CPU time", b.time))
            } else if r.since.elapsed() > 10 * b.time {
                Some(format!("ran past {:?} of wall-clock time", 10 * b.time))
            } else {
                match resident_bytes() {
                    Some(m) if m > b.memory => Some(format!(
                        "took the process past its memory bound: {} MB resident, bound {} MB",
                        m >> 20,
                        b.memory >> 20
                    )),
                    _ => None,
                }
            };
            if let Some(why) = over {
                eprintln!(
                    "fuzz: an input {why}; aborting.\n--- input (.{}):\n{}",
                    r.input.ext, r.input.text
                );
                if let Some(p) = &r.input.program {
                    eprintln!("--- its program:\n{p}");
                }
                std::process::abort();
            }
        });
        Watchdog { bounds, running }
    }

    /// Announces that `input` starts now.
    pub fn start(&self, input: &Input) {
        if let Some(dir) = &self.bounds.current {
            // Losing the record only loses the name of a crash, not the run.
            let other = if input.ext == "seq" { "st" } else { "seq" };
            let _ = std::fs::remove_file(dir.join(format!("input.{other}")));
            let _ = std::fs::write(dir.join(format!("input.{}", input.ext)), &input.text);
            let program = dir.join("input.program.seq");
            match &input.program {
                Some(p) => {
                    let _ = std::fs::write(program, p);
                }
                None => {
                    let _ = std::fs::remove_file(program);
                }
            }
        }
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = Some(Running {
            since: Instant::now(),
            cpu_since: cpu_time(),
            input: input.clone(),
        });
    }

    /// Announces that the running input finished.
    pub fn finish(&self) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
