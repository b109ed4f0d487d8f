//! Random well-typed programs over the whole sequence language, for comparing the schedulers
//! (issue 16: the e-graph's design must be no larger than the baseline's on any program).
//!
//! A program is a chain of `let` bindings from one input `I` of `uint8`s, each binding one
//! operator applied at some layer of the previous value (wrapped in `map`s over the layers
//! outside it): `map` with an atom body, `reduce` (add or mul), `shift` with an init,
//! `stencil_1d` windows, `down_1d`, `up_1d`, `partition`, `unpartition`, `transpose`, and
//! joins: `map2` of the current value with an *earlier* one of the same shape (a fork-join:
//! the earlier value feeds both the chain and the join, often through a branch that changed
//! nesting), `map2 atuple` then a map over the tuples, or `map2` with a constant or counter.
//! The generator tracks shapes itself, so every program type-checks (the test says so);
//! values stay small ([`MAX_ATOMS`]) so a debug build schedules them in well under a second.
//!
//! Because the program is a list of bindings, a binding can be dropped by reading its
//! argument in its place ([`Generated::without`]), which is how a losing program is
//! minimised ([`super::versus::minimise`]).

use crate::util::rng::Rng;

/// No value of a generated program holds more atoms than this.
pub const MAX_ATOMS: u64 = 48;

/// The deepest nesting of a value.
const MAX_RANK: usize = 3;

/// The lengths the input may have.
const INPUT_LENGTHS: [u64; 6] = [4, 6, 8, 9, 12, 16];

/// One `let` of a generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Its name (`v1`, `v2`, ...).
    pub name: String,
    /// The expression, reading earlier bindings by name.
    pub expr: String,
    /// The earlier bindings (or the input `I`) it reads.
    pub args: Vec<String>,
    /// The lengths of its `seq` layers, outermost first (the atoms are `uint8`).
    pub shape: Vec<u64>,
    /// Sequence operators written in `expr`.
    pub operators: usize,
}

/// A generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The seed it was drawn from.
    pub seed: u64,
    /// The input's layer lengths.
    pub input: Vec<u64>,
    /// The bindings, in order; the last is the output.
    pub bindings: Vec<Binding>,
}

fn seq_type(shape: &[u64]) -> String {
    shape
        .iter()
        .rev()
        .fold("uint8".to_string(), |t, n| format!("(seq {n} {t})"))
}

/// A literal of `shape` (a nested list; a bare number for a scalar), every atom `k`.
fn literal(shape: &[u64], k: u64) -> String {
    match shape.split_first() {
        None => k.to_string(),
        Some((n, rest)) => {
            let one = literal(rest, k);
            format!("({})", vec![one; *n as usize].join(" "))
        }
    }
}

/// A one-argument atom function on `uint8`.
fn unary_body(rng: &mut Rng) -> String {
    let k = rng.range(1, 255);
    match rng.range(0, 5) {
        0 => format!("(fn (v) (add v (const uint8 {k})))"),
        1 => format!("(fn (v) (lsr v (const uint8 {})))", rng.range(1, 7)),
        2 => format!("(fn (v) (mul v (const uint8 {})))", rng.range(2, 9)),
        3 => format!("(fn (v) (if (lt v (const uint8 {k})) v (const uint8 {k})))"),
        4 => format!("(fn (v) (sub (const uint8 {k}) v))"),
        _ => "(fn (v) (cast uint8 (abs (cast int8 v))))".into(),
    }
}

/// A two-argument atom function on `uint8`s.
fn binary_body(rng: &mut Rng) -> String {
    match rng.range(0, 4) {
        0 => "(fn (a b) (add a b))".into(),
        1 => "(fn (a b) (sub a b))".into(),
        2 => "(fn (a b) (mul a b))".into(),
        3 => "(fn (a b) (if (lt a b) a b))".into(),
        _ => "(fn (a b) (add (lsr a (const uint8 1)) (lsr b (const uint8 1))))".into(),
    }
}

/// `f` applied at layer `depth` of `x` (of layer lengths `shape`): wrapped in one `map` per
/// outer layer. `f` builds the expression from its argument's name. Returns the expression
/// and the `map`s written.
fn at_layer(shape: &[u64], depth: usize, x: &str, f: &dyn Fn(&str) -> String) -> (String, usize) {
    if depth == 0 {
        return (f(x), 0);
    }
    let r = format!("r{depth}");
    let (inner, maps) = at_layer(&shape[1..], depth - 1, &r, f);
    (
        format!("(map {} (fn ({r}) {inner}) {x})", shape[0]),
        maps + 1,
    )
}

/// `f` applied elementwise to `x` and `y` (both of layer lengths `shape`): `map2` over every
/// layer. Returns the expression and the `map2`s written.
fn zip_all(shape: &[u64], x: &str, y: &str, body: &str) -> (String, usize) {
    match shape.split_first() {
        None => unreachable!("values are sequences"),
        Some((n, [])) => (format!("(map2 {n} {body} {x} {y})"), 1),
        Some((n, rest)) => {
            let d = shape.len();
            let (inner, k) = zip_all(rest, &format!("a{d}"), &format!("b{d}"), body);
            (
                format!("(map2 {n} (fn (a{d} b{d}) {inner}) {x} {y})"),
                k + 1,
            )
        }
    }
}

fn divisors(n: u64) -> Vec<u64> {
    (2..n).filter(|d| n.is_multiple_of(*d)).collect()
}

fn atoms(shape: &[u64]) -> u64 {
    shape.iter().product()
}

impl Generated {
    /// A random program of `seed` with 3 to 12 sequence operators (a `map` over each of
    /// `k` layers counts `k`).
    pub fn random(seed: u64) -> Generated {
        let mut rng = Rng::new(seed);
        let target = rng.range(3, 12) as usize;
        let n = *rng.pick(&INPUT_LENGTHS);
        let input = if rng.range(0, 2) == 0 {
            let ds = divisors(n);
            let a = *rng.pick(&ds);
            vec![a, n / a]
        } else {
            vec![n]
        };
        let mut g = Generated {
            seed,
            input,
            bindings: Vec::new(),
        };
        let mut tries = 0;
        while g.operators() < target && tries < 200 {
            tries += 1;
            if let Some(b) = g.step(&mut rng) {
                if g.operators() + b.operators <= 12 {
                    g.bindings.push(b);
                }
            }
        }
        g
    }

    /// Sequence operators in the program.
    pub fn operators(&self) -> usize {
        self.bindings.iter().map(|b| b.operators).sum()
    }

    /// The current value: the last binding, or the input.
    fn current(&self) -> (String, Vec<u64>) {
        match self.bindings.last() {
            Some(b) => (b.name.clone(), b.shape.clone()),
            None => ("I".into(), self.input.clone()),
        }
    }

    /// One random operator on the current value, or `None` if the draw does not apply.
    fn step(&self, rng: &mut Rng) -> Option<Binding> {
        let (x, shape) = self.current();
        let rank = shape.len();
        let depth = rng.range(0, rank as u64 - 1) as usize;
        let n = shape[depth];
        let inner = &shape[depth + 1..];
        let mut out = shape.clone();
        let one = |expr: (String, usize), out: Vec<u64>, args: Vec<String>| {
            (atoms(&out) <= MAX_ATOMS && out.len() <= MAX_RANK).then(|| Binding {
                name: format!("v{}", self.bindings.len() + 1),
                operators: expr.1 + 1,
                expr: expr.0,
                args,
                shape: out,
            })
        };
        match rng.range(0, 12) {
            0 | 1 => {
                let body = unary_body(rng);
                let d = rank - 1;
                let (e, k) = at_layer(&shape, d, &x, &|r| format!("(map {} {body} {r})", shape[d]));
                one((e, k), out, vec![x])
            }
            2 if n >= 2 => {
                let amount = rng.range(1, n - 1);
                let init = literal(inner, rng.range(0, 255));
                let f = |r: &str| format!("(shift {n} {amount} (init {init}) {r})");
                one(at_layer(&shape, depth, &x, &f), out, vec![x])
            }
            3 if n >= 2 => {
                let i = rng.range(0, n - 1);
                out[depth] = 1;
                let f = |r: &str| format!("(down_1d {n} {i} {r})");
                one(at_layer(&shape, depth, &x, &f), out, vec![x])
            }
            4 if n == 1 => {
                let m = rng.range(2, 4);
                out[depth] = m;
                let f = |r: &str| format!("(up_1d {m} {r})");
                one(at_layer(&shape, depth, &x, &f), out, vec![x])
            }
            5 if n >= 2 => {
                let op = if rng.range(0, 3) == 0 { "mul" } else { "add" };
                let body = inner
                    .iter()
                    .rev()
                    .fold(op.to_string(), |b, m| format!("(map {m} {b})"));
                out[depth] = 1;
                let f = |r: &str| format!("(reduce {n} {body} {r})");
                let (e, k) = at_layer(&shape, depth, &x, &f);
                one((e, k + inner.len()), out, vec![x])
            }
            6 if !divisors(n).is_empty() => {
                let no = *rng.pick(&divisors(n));
                out.splice(depth..=depth, [no, n / no]);
                let f = |r: &str| format!("(partition {no} {} {r})", n / no);
                one(at_layer(&shape, depth, &x, &f), out, vec![x])
            }
            7 if depth + 1 < rank => {
                let m = shape[depth + 1];
                let transpose = rng.range(0, 3) == 0;
                let f = |r: &str| {
                    if transpose {
                        format!("(transpose {n} {m} {r})")
                    } else {
                        format!("(unpartition {n} {m} {r})")
                    }
                };
                if transpose {
                    out.swap(depth, depth + 1);
                } else {
                    out.splice(depth..=depth + 1, [n * m]);
                }
                one(at_layer(&shape, depth, &x, &f), out, vec![x])
            }
            8 if shape[rank - 1] >= 3 => {
                // Windows of the innermost layer, then (mostly) their sums: a stencil.
                let m = shape[rank - 1];
                let k = rng.range(2, 3);
                let init = rng.range(0, 255);
                let d = rank - 1;
                let sum = rng.range(0, 3) != 0;
                let f = |r: &str| {
                    let w = format!("(stencil_1d {m} {k} (init {init}) {r})");
                    if sum {
                        format!("(unpartition {m} 1 (map {m} (fn (w) (reduce {k} add w)) {w}))")
                    } else {
                        w
                    }
                };
                if !sum {
                    out.push(k);
                }
                let (e, maps) = at_layer(&shape, d, &x, &f);
                one((e, maps + if sum { 3 } else { 0 }), out, vec![x])
            }
            9 | 10 => {
                // A fork-join: the current value joined with an earlier one of its shape.
                let earlier: Vec<&Binding> = self
                    .bindings
                    .iter()
                    .rev()
                    .skip(1)
                    .filter(|b| b.shape == shape)
                    .collect();
                let (y, tuple) = match earlier.is_empty() {
                    true if self.input == shape && !self.bindings.is_empty() => {
                        ("I".to_string(), rng.coin())
                    }
                    true => return None,
                    false => (rng.pick(&earlier).name.clone(), rng.coin()),
                };
                if tuple && rank == 1 {
                    let e = format!(
                        "(map {n} (fn (t) (add (fst t) (mul (snd t) (const uint8 3)))) (map2 {n} atuple {x} {y}))"
                    );
                    one((e, 1), out, vec![x, y])
                } else {
                    let body = binary_body(rng);
                    let (e, k) = zip_all(&shape, &x, &y, &body);
                    one((e, k - 1), out, vec![x, y])
                }
            }
            11 => {
                // A join with a constant (a kernel) or, for one layer, a counter.
                let body = binary_body(rng);
                let c = if rank == 1 && rng.coin() {
                    format!("(counter {n} {} uint8)", rng.range(1, 3))
                } else {
                    format!(
                        "(const {} {})",
                        seq_type(&shape),
                        literal(&shape, rng.range(0, 255))
                    )
                };
                let (e, k) = zip_all(&shape, &x, &c, &body);
                one((e, k - 1), out, vec![x])
            }
            _ => None,
        }
    }

    /// The program's text: a comment naming the seed, the input, the bindings, the output.
    pub fn text(&self) -> String {
        let mut t = format!(
            "; random program, seed {} ({} operators)\n(input I {})\n",
            self.seed,
            self.operators(),
            seq_type(&self.input)
        );
        for b in &self.bindings {
            t.push_str(&format!("(let {} {})\n", b.name, b.expr));
        }
        let out = self.bindings.last().map_or("I", |b| b.name.as_str());
        t.push_str(&format!("(output {out})\n"));
        t
    }

    /// The program without binding `i`: its readers read its argument `arg` instead, if that
    /// has the same shape (else `None`).
    pub fn without(&self, i: usize, arg: usize) -> Option<Generated> {
        let b = &self.bindings[i];
        let with = b.args.get(arg)?;
        let with_shape = if with == "I" {
            self.input.clone()
        } else {
            self.bindings
                .iter()
                .find(|c| &c.name == with)?
                .shape
                .clone()
        };
        if with_shape != b.shape {
            return None;
        }
        let mut g = self.clone();
        let gone = g.bindings.remove(i);
        for c in &mut g.bindings[i..] {
            c.expr = replace_name(&c.expr, &gone.name, with);
            for a in &mut c.args {
                if *a == gone.name {
                    a.clone_from(with);
                }
            }
        }
        // A program of only its input has nothing to schedule.
        (!g.bindings.is_empty()).then_some(g)
    }
}

/// `text` with every whole-word occurrence of `name` replaced by `with`.
fn replace_name(text: &str, name: &str, with: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(if word == name { with } else { word });
        word.clear();
    };
    for ch in text.chars() {
        if ch == '(' || ch == ')' || ch.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(ch);
        } else {
            word.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_words_only() {
        assert_eq!(
            replace_name("(map2 4 add v1 v12)", "v1", "I"),
            "(map2 4 add I v12)"
        );
    }
}
