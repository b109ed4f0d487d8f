//! The memory budget of the commands whose memory grows with a frame of data (`eval`,
//! `sim`, `verify`, `rtl`): each estimates its peak from the program or design before it
//! starts, and a run whose estimate is over the budget is refused with the estimate,
//! instead of being killed by the allocator part way (docs/language.md §9).

use std::path::Path;

/// The default budget in GB (10^9 bytes): two thirds of a 24 GB machine, leaving room for
/// the system and for estimates that are a little low.
pub const DEFAULT_GB: f64 = 16.0;

/// The most memory a run may be estimated to need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The limit in bytes.
    pub bytes: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            bytes: (DEFAULT_GB * 1e9) as u64,
        }
    }
}

impl Budget {
    /// The budget of `--max-memory-gb X` (the default without it): X positive, finite and
    /// at most 2^20 GB, else an error that says so.
    pub fn from_gb(x: Option<f64>) -> Result<Budget, String> {
        let Some(x) = x else {
            return Ok(Budget::default());
        };
        if x.is_finite() && x > 0.0 && x <= 1_048_576.0 {
            return Ok(Budget {
                bytes: (x * 1e9) as u64,
            });
        }
        Err(format!(
            "--max-memory-gb: expected a positive number of GB up to 1048576, found {x}"
        ))
    }

    /// Ok if `estimate` bytes fit; else the refusal: `file`, what needs the memory, the
    /// estimate and the limit.
    pub fn check(&self, file: &Path, what: &str, estimate: u64) -> Result<(), String> {
        if estimate <= self.bytes {
            return Ok(());
        }
        Err(format!(
            "{}: {what} needs about {} of memory, over the limit of {} (--max-memory-gb; docs/language.md §9)",
            file.display(),
            gb(estimate),
            gb(self.bytes)
        ))
    }
}

/// Bytes with one decimal: GB, MB below 0.1 GB, kB below 0.1 MB.
pub fn gb(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e8 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e5 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} kB", b / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_names_file_estimate_and_limit() {
        let b = Budget::from_gb(Some(2.0)).unwrap();
        assert!(b.check(Path::new("a.seq"), "x", 2_000_000_000).is_ok());
        let e = b.check(Path::new("a.seq"), "evaluating one frame", 6_400_000_000);
        assert_eq!(
            e.unwrap_err(),
            "a.seq: evaluating one frame needs about 6.4 GB of memory, over the limit of 2.0 GB (--max-memory-gb; docs/language.md §9)"
        );
    }

    #[test]
    fn bad_limits_are_errors() {
        for x in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(Budget::from_gb(Some(x)).is_err(), "{x}");
        }
        assert_eq!(Budget::from_gb(None).unwrap(), Budget::default());
        assert_eq!(gb(50_000_000), "50.0 MB");
        assert_eq!(gb(2_500), "2.5 kB");
    }
}
