//! Earlier Yosys and nextpnr-ice40 results, kept on disk (`tessera report --measure-cache
//! DIR`), so that a long report that was stopped resumes where it was instead of measuring
//! every design again.
//!
//! A result is keyed by everything that determines it: the tool and its version, the text
//! of the code that drives the tool and reads its output (`rtl/synth.rs`, `rtl/fmax.rs`,
//! compiled in), the tool's options and the Verilog it reads. A design whose Verilog did not
//! change between two commits is therefore not measured again, and any change to the
//! Verilog, the scripts or the tools measures it afresh. Both tools are deterministic for a
//! given input (nextpnr's placer seed is part of the key); errors are kept only where the
//! caller says they are deterministic too (a design too large for the device), never a run
//! stopped by a time limit.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The source of the code whose output a cached result is: a change to it changes every key.
const MEASURING_CODE: [&str; 3] = [
    include_str!("../rtl/synth.rs"),
    include_str!("../rtl/fmax.rs"),
    include_str!("../rtl/tools.rs"),
];

/// A directory of measured results, and how many this run reused and measured.
#[derive(Debug)]
pub struct MeasureCache {
    dir: PathBuf,
    versions: Mutex<BTreeMap<String, Option<String>>>,
    reused: AtomicUsize,
    measured: AtomicUsize,
}

/// One stored result.
#[derive(Serialize, Deserialize)]
enum Entry<R> {
    Ok(R),
    Err(String),
}

impl MeasureCache {
    /// The cache in `dir`, created if missing.
    pub fn open(dir: &Path) -> Result<MeasureCache, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the measurement cache {}: {e}", dir.display()))?;
        Ok(MeasureCache {
            dir: dir.to_path_buf(),
            versions: Mutex::new(BTreeMap::new()),
            reused: AtomicUsize::new(0),
            measured: AtomicUsize::new(0),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Results read from the cache in this run.
    pub fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Results measured (and stored) in this run.
    pub fn measured(&self) -> usize {
        self.measured.load(Ordering::Relaxed)
    }

    /// The stored result of running `tools` (every tool the measurement runs) on `inputs`
    /// (their options and the text they read), or `measure`'s, stored when it is a success
    /// or an error `keep_error` accepts. Without a readable version of every tool, `measure`
    /// runs and nothing is stored.
    pub(crate) fn get_or_measure<R: Serialize + DeserializeOwned>(
        &self,
        tools: &[&str],
        inputs: &[&str],
        keep_error: impl Fn(&str) -> bool,
        measure: impl FnOnce() -> Result<R, String>,
    ) -> Result<R, String> {
        let Some(versions) = tools
            .iter()
            .map(|t| self.version(t))
            .collect::<Option<Vec<_>>>()
        else {
            return measure();
        };
        let mut parts: Vec<&str> = tools.to_vec();
        parts.extend(versions.iter().map(String::as_str));
        parts.extend(inputs);
        let path = self.dir.join(format!("{}.json", key(&parts)));
        let stored = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<Entry<R>>(&t).ok());
        if let Some(e) = stored {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return match e {
                Entry::Ok(r) => Ok(r),
                Entry::Err(e) => Err(e),
            };
        }
        let result = measure();
        self.measured.fetch_add(1, Ordering::Relaxed);
        let entry = match &result {
            Ok(r) => Some(Entry::Ok(r)),
            Err(e) if keep_error(e) => Some(Entry::Err(e.clone())),
            Err(_) => None,
        };
        if let Some(text) = entry.and_then(|e| serde_json::to_string(&e).ok()) {
            // Written whole and renamed, so a run stopped mid-write leaves no torn entry.
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, text).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
        result
    }

    /// `tool --version`'s first line (`yosys -V`), read once.
    fn version(&self, tool: &str) -> Option<String> {
        let mut versions = self.versions.lock().unwrap_or_else(|e| e.into_inner());
        versions
            .entry(tool.to_string())
            .or_insert_with(|| {
                let flag = if tool == "yosys" { "-V" } else { "--version" };
                // the binary the measurement runs (`rtl::tools` finds it the same way)
                let path = crate::rtl::tools::find_tool(tool)?;
                let out = std::process::Command::new(path).arg(flag).output().ok()?;
                let text = String::from_utf8_lossy(&out.stdout).to_string()
                    + &String::from_utf8_lossy(&out.stderr);
                let line = text.lines().next()?.trim().to_string();
                (out.status.success() && !line.is_empty()).then_some(line)
            })
            .clone()
    }
}

/// `measure`'s result through `cache`, or measured when there is none.
pub(crate) fn measure_through<R: Serialize + DeserializeOwned>(
    cache: Option<&MeasureCache>,
    tools: &[&str],
    inputs: &[&str],
    keep_error: impl Fn(&str) -> bool,
    measure: impl FnOnce() -> Result<R, String>,
) -> Result<R, String> {
    match cache {
        Some(c) => c.get_or_measure(tools, inputs, keep_error, measure),
        None => measure(),
    }
}

/// The SHA-256 of everything that determines a result (the measuring code and `parts`),
/// in hex.
fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    // Each part is preceded by its length, so no two lists of parts hash the same text.
    for p in ["tessera measurement cache 1"]
        .iter()
        .chain(&MEASURING_CODE)
        .chain(parts)
    {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tessera-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_result_is_measured_once_and_an_error_only_when_kept() {
        // `cargo` stands in for a tool: the tests run where it is, and it prints a version.
        let dir = scratch("once");
        let c = MeasureCache::open(&dir).unwrap();
        let tool = "cargo";
        let mut runs = 0;
        for _ in 0..2 {
            let r: Result<u64, String> = c.get_or_measure(
                &[tool],
                &["a"],
                |_| false,
                || {
                    runs += 1;
                    Ok(7)
                },
            );
            assert_eq!(r, Ok(7));
        }
        assert_eq!((runs, c.measured(), c.reused()), (1, 1, 1));
        // Another input is another key.
        let r: Result<u64, String> = c.get_or_measure(&[tool], &["b"], |_| false, || Ok(8));
        assert_eq!(r, Ok(8));
        // An error not kept is measured again; a kept one is not.
        for keep in [false, false, true, true] {
            let r: Result<u64, String> = c.get_or_measure(
                &[tool],
                &["c", if keep { "kept" } else { "not kept" }],
                |_| keep,
                || Err("no".to_string()),
            );
            assert_eq!(r, Err("no".to_string()));
        }
        assert_eq!((c.measured(), c.reused()), (5, 2));
        // A fresh cache on the same directory finds what the first one stored.
        let again = MeasureCache::open(&dir).unwrap();
        let r: Result<u64, String> =
            again.get_or_measure(&[tool], &["a"], |_| false, || panic!("measured again"));
        assert_eq!((r, again.reused()), (Ok(7), 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn keys_separate_their_parts() {
        assert_ne!(key(&["t", "ab", "c"]), key(&["t", "a", "bc"]));
        assert_ne!(key(&["t", "a"]), key(&["t", "a", ""]));
        assert_eq!(key(&["t", "a"]), key(&["t", "a"]));
    }
}
