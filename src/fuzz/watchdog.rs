//! The fuzzer's resource bounds: a thread that watches the running input's time and the
//! process's memory, and on either bound exceeded prints the input, writes it to a file and
//! aborts. A hung or runaway input cannot be stopped any other way from inside the process,
//! and an abort is what a test runner or `scripts/fuzz.sh` notices.
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
    /// Longest time one input may run.
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
    input: Input,
}

/// Watches inputs announced with [`Watchdog::start`].
pub struct Watchdog {
    bounds: Bounds,
    running: Arc<Mutex<Option<Running>>>,
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
            let over = if r.since.elapsed() > b.time {
                Some(format!("ran past its bound of {:?}", b.time))
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
            input: input.clone(),
        });
    }

    /// Announces that the running input finished.
    pub fn finish(&self) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
