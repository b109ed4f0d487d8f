//! Progress bars on stderr (indicatif) for the commands that can take long: `explore`,
//! `schedule`, `report`, `verify` of several slowdowns, and synthesis (`area --yosys`,
//! `fmax`). The library reports through [`crate::util::progress::Progress`]; this module
//! alone decides whether and how that is shown. Progress never goes to stdout, so what a
//! command prints there stays byte-identical run to run.

use crate::util::progress::{Progress, Reporter};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A bar appears only once its task has run this long: quick commands stay silent.
const DELAY: Duration = Duration::from_millis(1500);

/// Overrides [`DELAY`] (milliseconds), so a test can see a bar on a short command.
const DELAY_VAR: &str = "TESSERA_PROGRESS_DELAY_MS";

/// [`DELAY`], or the delay [`DELAY_VAR`] gives.
fn delay() -> Duration {
    std::env::var(DELAY_VAR)
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(DELAY, Duration::from_millis)
}

/// Whether to draw progress: only for a person watching a terminal, and never with
/// `--json` (whose readers are programs) or `--quiet`.
pub fn wanted(stderr_is_terminal: bool, json: bool, quiet: bool) -> bool {
    stderr_is_terminal && !json && !quiet
}

/// The reporter of a command: bars on stderr when [`wanted`], else none.
pub fn reporter(json: bool, quiet: bool) -> Reporter {
    if wanted(std::io::stderr().is_terminal(), json, quiet) {
        Reporter::new(Arc::new(Bars::default()))
    } else {
        Reporter::none()
    }
}

/// Draws the current task as a bar (a known number of steps) or a spinner (phases only).
#[derive(Default)]
struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    fn with(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = self
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            f(bar);
        }
    }
}

impl Progress for Bars {
    fn begin(&self, what: &str, total: u64) {
        let style = if total == 0 {
            ProgressStyle::with_template("{spinner} {prefix} [{elapsed}] {wide_msg}")
        } else {
            ProgressStyle::with_template("{prefix} [{elapsed}] {bar:30} {pos}/{len} {wide_msg}")
        }
        .expect("a valid template");
        let bar = ProgressBar::with_draw_target(
            (total > 0).then_some(total),
            ProgressDrawTarget::hidden(),
        )
        .with_style(style)
        .with_prefix(what.to_string());
        // Shown only if still running after DELAY (a detached thread: it never holds the
        // process up, and a finished bar stays hidden).
        let shown = bar.clone();
        let wait = delay();
        std::thread::spawn(move || {
            std::thread::sleep(wait);
            if !shown.is_finished() {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(200));
            }
        });
        let old = self
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .replace(bar);
        if let Some(old) = old {
            old.finish_and_clear();
        }
    }

    fn phase(&self, msg: &str) {
        self.with(|b| b.set_message(msg.to_string()));
    }

    fn advance(&self, msg: &str) {
        self.with(|b| {
            b.inc(1);
            b.set_message(msg.to_string());
        });
    }

    fn end(&self) {
        if let Some(bar) = self
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_only_on_a_terminal_without_json_or_quiet() {
        assert!(wanted(true, false, false));
        assert!(!wanted(false, false, false), "stderr piped or redirected");
        assert!(!wanted(true, true, false), "--json");
        assert!(!wanted(true, false, true), "--quiet");
        assert!(!wanted(false, true, true));
    }

    #[test]
    fn a_bar_follows_begin_advance_end() {
        let b = Bars::default();
        b.begin("explore x", 3);
        b.phase("x: saturation");
        b.advance("s=4 e-graph");
        b.advance("s=4 baseline");
        b.with(|bar| {
            assert_eq!(bar.position(), 2);
            assert_eq!(bar.length(), Some(3));
            assert_eq!(bar.message(), "s=4 baseline");
            // not yet shown: the task is younger than DELAY
            assert!(bar.is_hidden());
        });
        b.end();
        assert!(b.current.lock().unwrap().is_none());
        // reports after the end, or without a task, go nowhere
        b.advance("late");
        b.phase("late");
    }
}
