//! The paper's published place-and-route figures (`../shared/data/aetherling_results.csv`):
//! Vivado 2018.2 LUTs, FFs, BRAM36, BRAM18 and DSP48 per system, app and design point.
//!
//! The `parallelism_or_slowdown` column is the slowdown in clocks per whole input for every
//! app (`../shared/reference/benchmarks.md` §6), so a report row of slowdown `s` matches the
//! CSV row with that number directly.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The system whose rows the report puts beside its own: Aetherling itself.
pub const SYSTEM: &str = "aetherling";

/// One published design point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PaperRow {
    /// LUTs.
    pub luts: u64,
    /// Flip-flops.
    pub ffs: u64,
    /// 36 Kb block RAMs.
    pub bram36: u64,
    /// 18 Kb block RAMs.
    pub bram18: u64,
    /// DSP48 blocks.
    pub dsp: u64,
}

/// Every row of the CSV, by (system, app, slowdown).
#[derive(Clone, Debug, Default)]
pub struct PaperTable {
    /// The file read.
    pub source: PathBuf,
    rows: BTreeMap<(String, String, u64), PaperRow>,
}

/// The columns the table needs, in the names of the CSV header.
const COLUMNS: [&str; 8] = [
    "system",
    "app",
    "parallelism_or_slowdown",
    "luts",
    "ffs",
    "bram36",
    "bram18",
    "dsp",
];

impl PaperTable {
    /// Reads the CSV at `path`.
    pub fn load(path: &Path) -> Result<PaperTable, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the paper's results: {e}", path.display()))?;
        PaperTable::parse(&text, path)
    }

    /// Parses CSV text (`source` names it in errors). Columns are found by their header
    /// names, so their order does not matter; extra columns are ignored.
    pub fn parse(text: &str, source: &Path) -> Result<PaperTable, String> {
        let err = |line: usize, msg: String| format!("{}:{line}: {msg}", source.display());
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| err(1, "the file is empty".into()))?;
        let header: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut at = [0usize; COLUMNS.len()];
        for (k, name) in COLUMNS.iter().enumerate() {
            at[k] = header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| err(1, format!("the header has no `{name}` column")))?;
        }
        let mut rows = BTreeMap::new();
        for (i, line) in lines {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            let cell = |k: usize| {
                cells
                    .get(at[k])
                    .copied()
                    .ok_or_else(|| err(i + 1, format!("the row has no `{}` cell", COLUMNS[k])))
            };
            let number = |k: usize| -> Result<u64, String> {
                let c = cell(k)?;
                c.parse().map_err(|_| {
                    err(
                        i + 1,
                        format!("`{}` is `{c}`, not a whole number", COLUMNS[k]),
                    )
                })
            };
            let row = PaperRow {
                luts: number(3)?,
                ffs: number(4)?,
                bram36: number(5)?,
                bram18: number(6)?,
                dsp: number(7)?,
            };
            rows.insert(
                (cell(0)?.to_string(), cell(1)?.to_string(), number(2)?),
                row,
            );
        }
        Ok(PaperTable {
            source: source.to_path_buf(),
            rows,
        })
    }

    /// The row of `system`, `app` at `slowdown`, if published.
    pub fn get(&self, system: &str, app: &str, slowdown: u64) -> Option<PaperRow> {
        self.rows
            .get(&(system.to_string(), app.to_string(), slowdown))
            .copied()
    }

    /// True if `system` published any row for `app`.
    pub fn has_app(&self, system: &str, app: &str) -> bool {
        self.rows.keys().any(|(s, a, _)| s == system && a == app)
    }

    /// How many rows were read.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True if the file had no data rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_by_header_name() {
        let t = PaperTable::parse(
            "app,system,parallelism_or_slowdown,ffs,luts,bram36,bram18,dsp\nmap,aetherling,25,133,81,0,0,0\n",
            Path::new("x.csv"),
        )
        .unwrap();
        assert_eq!(
            t.get("aetherling", "map", 25),
            Some(PaperRow {
                luts: 81,
                ffs: 133,
                bram36: 0,
                bram18: 0,
                dsp: 0
            })
        );
        assert!(t.get("aetherling", "map", 5).is_none());
        assert!(t.has_app("aetherling", "map") && !t.has_app("spatial", "map"));
    }

    #[test]
    fn bad_rows_name_the_line() {
        let e = PaperTable::parse(
            "system,app,parallelism_or_slowdown,luts,ffs,bram36,bram18,dsp\na,b,x,1,1,1,1,1\n",
            Path::new("x.csv"),
        )
        .unwrap_err();
        assert!(e.starts_with("x.csv:2:"), "{e}");
        let e = PaperTable::parse("system,app\n", Path::new("x.csv")).unwrap_err();
        assert!(e.contains("parallelism_or_slowdown"), "{e}");
    }
}
