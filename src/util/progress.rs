//! Progress of long work, as the library reports it: a [`Progress`] sink that the caller
//! supplies (the command line draws bars with it, `src/cli/progress.rs`), so no layer of the
//! library depends on how, or whether, progress is shown. Reports never change a result.

use std::sync::Arc;

/// Where long work reports how far it got. Called from worker threads, so `Send + Sync`.
pub trait Progress: Send + Sync {
    /// A task of `total` steps begins (0: a count not known in advance, e.g. the phases of
    /// one schedule); `what` names it ("explore conv2d").
    fn begin(&self, what: &str, total: u64);
    /// What the task is doing now ("s=16: extraction"), without a step done.
    fn phase(&self, msg: &str);
    /// One step of the task is done; `msg` says which ("s=16 baseline").
    fn advance(&self, msg: &str);
    /// The task is over (its bar goes away).
    fn end(&self);
}

/// An optional [`Progress`] sink, cheap to clone and to carry in options; the default
/// reports nowhere.
#[derive(Clone, Default)]
pub struct Reporter(Option<Arc<dyn Progress>>);

impl Reporter {
    /// Reports to `sink`.
    pub fn new(sink: Arc<dyn Progress>) -> Reporter {
        Reporter(Some(sink))
    }

    /// Reports nowhere.
    pub fn none() -> Reporter {
        Reporter(None)
    }

    /// True if reports go somewhere (so a caller may skip formatting a message).
    pub fn is_active(&self) -> bool {
        self.0.is_some()
    }

    /// [`Progress::begin`], if there is a sink.
    pub fn begin(&self, what: &str, total: u64) {
        if let Some(p) = &self.0 {
            p.begin(what, total);
        }
    }

    /// [`Progress::phase`], if there is a sink; `msg` is only built then.
    pub fn phase(&self, msg: impl FnOnce() -> String) {
        if let Some(p) = &self.0 {
            p.phase(&msg());
        }
    }

    /// [`Progress::advance`], if there is a sink; `msg` is only built then.
    pub fn advance(&self, msg: impl FnOnce() -> String) {
        if let Some(p) = &self.0 {
            p.advance(&msg());
        }
    }

    /// [`Progress::end`], if there is a sink.
    pub fn end(&self) {
        if let Some(p) = &self.0 {
            p.end();
        }
    }
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_active() {
            "Reporter(active)"
        } else {
            "Reporter(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records every call, to check what reaches the sink.
    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Progress for Log {
        fn begin(&self, what: &str, total: u64) {
            self.0.lock().unwrap().push(format!("begin {what} {total}"));
        }
        fn phase(&self, msg: &str) {
            self.0.lock().unwrap().push(format!("phase {msg}"));
        }
        fn advance(&self, msg: &str) {
            self.0.lock().unwrap().push(format!("advance {msg}"));
        }
        fn end(&self) {
            self.0.lock().unwrap().push("end".into());
        }
    }

    #[test]
    fn a_reporter_forwards_to_its_sink_and_the_default_to_none() {
        let log = Arc::new(Log::default());
        let r = Reporter::new(log.clone());
        r.begin("explore x", 2);
        r.phase(|| "s=2: extraction".into());
        r.advance(|| "s=2".into());
        r.end();
        assert_eq!(
            *log.0.lock().unwrap(),
            [
                "begin explore x 2",
                "phase s=2: extraction",
                "advance s=2",
                "end"
            ]
        );
        let quiet = Reporter::default();
        assert!(!quiet.is_active());
        quiet.phase(|| panic!("a message is not built without a sink"));
    }
}
