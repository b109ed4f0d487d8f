//! The `.st` design format: s-expressions read with [`crate::util::sexp::parse_file`].
//! `docs/space-time.md` documents it; [`Design::to_text`] writes it and [`parse_design`]
//! reads it back losslessly (`parse_design(d.to_text())` is `d` up to [`Design::canonical`]).
//!
//! ```text
//! (design map4abs_s2)
//! (input I (tseq 2 0 (sseq 2 int8)))
//! (output (map_t 2 0 (map_s 2 abs) I))
//! ```
//!
//! Every node is built through the checked builder, so a file that parses is well typed;
//! errors carry the file, line and column of the offending form.

mod read;
mod write;

pub use read::{load_design, parse_design, parse_layout};
pub use write::op_label;
