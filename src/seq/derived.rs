//! Derived forms, expanded into primitives when a program is read.
//!
//! `stencil_1d` and `stencil_2d` are the Stencil seed's operators. They expand to exactly the
//! idiom the paper's applications use (reference/benchmarks.md §1a-§1d): chains of 1-element
//! (or 1-row) shifts, zipped oldest-first with `map2 stuple` / `map2 stuple_append`, then
//! `partition n 1` and `map n (stuple_to_seq w)`. A window at position j is therefore trailing:
//! its last element is `x[j]`, its first `x[j-w+1]`.

use super::build;
use super::op::Op;
use super::program::{NodeId, Program};
use super::types::SeqType;
use super::value::Value;

/// `stencil_1d n w`: `(seq n t) -> (seq n (seq w t))`, window `j` = `x[j-w+1] .. x[j]`.
pub fn stencil_1d(
    p: &mut Program,
    n: u64,
    w: u64,
    init: Option<Value>,
    x: NodeId,
) -> Result<NodeId, String> {
    if w > n {
        return Err(format!(
            "stencil_1d {n} {w}: the window is longer than the sequence"
        ));
    }
    let mut taps = vec![x];
    for _ in 1..w {
        let prev = *taps.last().expect("non-empty");
        let shift = Op::Shift {
            n,
            amount: 1,
            init: init.clone(),
        };
        taps.push(build::apply(p, shift, &[prev])?);
    }
    taps.reverse(); // oldest first
    windows(p, n, &taps)
}

/// `stencil_2d rows cols wr wc`: `(seq rows*cols t) -> (seq rows*cols (seq wr (seq wc t)))`
/// over a row-major image; window `k = r*cols + c` holds rows `r-wr+1 .. r` and columns
/// `c-wc+1 .. c` (positions left of column 0 wrap to the previous row: the shift is flat).
pub fn stencil_2d(
    p: &mut Program,
    [rows, cols, wr, wc]: [u64; 4],
    init: Option<Value>,
    x: NodeId,
) -> Result<NodeId, String> {
    let n = rows
        .checked_mul(cols)
        .ok_or_else(|| "stencil_2d: size overflows".to_string())?;
    if p.ty(x).as_seq().map(|(len, _)| len) != Some(n) {
        return Err(format!(
            "stencil_2d {rows} {cols} {wr} {wc}: expected input of type (seq {n} _), found {}",
            p.ty(x)
        ));
    }
    if wr > rows || wc > cols {
        return Err(format!(
            "stencil_2d {rows} {cols} {wr} {wc}: the window is larger than the image"
        ));
    }
    let mut row_streams = vec![x];
    for _ in 1..wr {
        let prev = *row_streams.last().expect("non-empty");
        let shift = Op::Shift {
            n,
            amount: cols,
            init: init.clone(),
        };
        row_streams.push(build::apply(p, shift, &[prev])?);
    }
    let mut row_windows = row_streams
        .into_iter()
        .map(|r| stencil_1d(p, n, wc, init.clone(), r))
        .collect::<Result<Vec<_>, _>>()?;
    row_windows.reverse(); // oldest row first
    windows(p, n, &row_windows)
}

/// Zips `taps` (each `(seq n t)`) elementwise into `(seq n (seq taps.len() t))`.
fn windows(p: &mut Program, n: u64, taps: &[NodeId]) -> Result<NodeId, String> {
    let w = taps.len() as u64;
    let elem = |p: &Program, id: NodeId| -> Result<SeqType, String> {
        p.ty(id)
            .as_seq()
            .map(|(_, e)| e.clone())
            .ok_or_else(|| format!("stencil: expected a sequence, found {}", p.ty(id)))
    };
    let t = elem(p, taps[0])?;
    let tuples = if w == 1 {
        taps[0]
    } else {
        let a = build::arg(p, 0, t.clone());
        let b = build::arg(p, 1, t.clone());
        let pair = build::apply(p, Op::STuple, &[a, b])?;
        let mut acc = build::map2(p, n, pair, taps[0], taps[1])?;
        for (k, tap) in taps.iter().enumerate().skip(2) {
            let tup = build::arg(p, 0, SeqType::stuple(k as u64, t.clone()));
            let x = build::arg(p, 1, t.clone());
            let append = build::apply(p, Op::STupleAppend, &[tup, x])?;
            acc = build::map2(p, n, append, acc, *tap)?;
        }
        acc
    };
    let grouped = build::apply(p, Op::Partition { no: n, ni: 1 }, &[tuples])?;
    if w == 1 {
        return Ok(grouped);
    }
    let inner = SeqType::seq(1, SeqType::stuple(w, t));
    let a = build::arg(p, 0, inner);
    let body = build::apply(p, Op::STupleToSeq { n: w }, &[a])?;
    build::map(p, n, body, grouped)
}
