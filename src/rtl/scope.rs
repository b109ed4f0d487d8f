//! One Verilog module under construction for one scope of a design (the top level or a
//! function body), with the control every operator generator shares.
//!
//! Timing is static (reference §6.1, docs/rtl.md): a scope has one sticky `start` input,
//! and every node of the scope starts a fixed number of clocks after it (its latency from
//! [`crate::st::latency`]). So the control is one saturating `age` counter per scope,
//! `st_<lat>` wires (`start && age >= lat`) and phase counters `ph_<lat>_<m>` counting
//! `0 .. m-1` from the clock a node starts. Counters are held at 0 while their start is low,
//! so a low `start` doubles as a synchronous reset; counters of equal (start, modulus) are
//! shared. Declarations happen on first request; the counters are driven in [`Scope::finish`].

use super::netlist::{clog2, Expr, Module, Sig};
use crate::st::layout::Layout;
use std::collections::{BTreeMap, HashMap};

/// Most distinct pieces for which a phase-indexed choice is written as a chain of range
/// comparisons; more become a `case` table.
const MAX_RANGES: usize = 8;

/// Storage that one generator instantiated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    /// Bits held in flip-flops.
    pub ff_bits: u64,
    /// Bits held in memories written for RAM inference.
    pub ram_bits: u64,
}

impl Storage {
    /// All storage bits.
    pub fn total(&self) -> u64 {
        self.ff_bits + self.ram_bits
    }
}

impl std::ops::AddAssign for Storage {
    fn add_assign(&mut self, o: Storage) {
        self.ff_bits += o.ff_bits;
        self.ram_bits += o.ram_bits;
    }
}

/// The module of one scope plus its shared control.
pub struct Scope {
    /// The module being built.
    pub m: Module,
    start: Sig,
    started: BTreeMap<u64, Sig>,
    counters: BTreeMap<(u64, u64), Sig>,
    gated: BTreeMap<(String, u64), Sig>,
    /// Delay lines by (signal, enable if gated, delay).
    delays: HashMap<(String, Option<String>, u64), Sig>,
    enables: HashMap<(u64, Expr), Sig>,
    names: HashMap<String, usize>,
    /// Storage instantiated by the generator currently running (reset per node by the
    /// caller).
    pub storage: Storage,
}

impl Scope {
    /// A scope whose start signal is `start` (a port of `m`).
    pub fn new(m: Module, start: Sig) -> Scope {
        Scope {
            m,
            start,
            started: BTreeMap::new(),
            counters: BTreeMap::new(),
            gated: BTreeMap::new(),
            delays: HashMap::new(),
            enables: HashMap::new(),
            names: HashMap::new(),
            storage: Storage::default(),
        }
    }

    /// A fresh identifier starting with `base`.
    pub fn fresh(&mut self, base: &str) -> String {
        let k = self.names.entry(base.to_string()).or_insert(0);
        *k += 1;
        if *k == 1 {
            base.to_string()
        } else {
            format!("{base}_{}", *k - 1)
        }
    }

    /// High from the clock `lat` clocks after the scope starts, onwards (sticky).
    pub fn started(&mut self, lat: u64) -> Expr {
        if lat == 0 {
            return self.start.e();
        }
        if let Some(s) = self.started.get(&lat) {
            return s.e();
        }
        let s = self.m.wire(format!("st_{lat}"), 1);
        self.started.insert(lat, s.clone());
        s.e()
    }

    /// The phase `(t - start - lat) mod modulus` of a node starting `lat` clocks after the
    /// scope; `None` when `modulus` is 1 (the phase is always 0).
    pub fn phase(&mut self, lat: u64, modulus: u64) -> Option<Sig> {
        if modulus <= 1 {
            return None;
        }
        if let Some(s) = self.counters.get(&(lat, modulus)) {
            return Some(s.clone());
        }
        self.started(lat);
        let s = self.m.reg(format!("ph_{lat}_{modulus}"), clog2(modulus));
        self.counters.insert((lat, modulus), s.clone());
        Some(s)
    }

    /// `x` delayed by `d` clocks, as storage sized exactly `d` words: registers for
    /// `d <= REGISTER_CHAIN_MAX` (4), otherwise a circular memory of `d-1` words read into an output register
    /// (a synchronous read port: Yosys infers LUTRAM or block RAM, or SRLs). Requests for
    /// the same signal and delay share one line.
    pub fn delay(&mut self, x: &Sig, d: u64) -> Sig {
        self.line(x, d, None, d)
    }

    /// One segment of `d` clocks of a chain of delay lines `chain` clocks deep in all (the
    /// taps of a data-movement operator). Without `en` it shifts on every clock; with `en`
    /// only on the clocks where `en` is high (the valid clocks of a layout with invalid
    /// clocks), so its output is the value `x` had on the `d`-th most recent such clock.
    /// Registers when the whole chain is at most `REGISTER_CHAIN_MAX` deep (or the segment
    /// at most 2), else a memory, so a deep chain stays in RAM however it is cut.
    pub fn delay_segment(&mut self, x: &Sig, d: u64, en: Option<&Sig>, chain: u64) -> Sig {
        self.line(x, d, en, if d <= 2 { d } else { chain })
    }

    /// A wire high on the clocks where a node starting `lat` clocks after the scope has
    /// started and `pattern` (an expression of its phase) is high: the enable of delay lines
    /// that shift on a layout's valid clocks. Shared per (`lat`, `pattern`).
    pub fn enable(&mut self, lat: u64, pattern: Expr) -> Sig {
        let key = (lat, pattern);
        if let Some(s) = self.enables.get(&key) {
            return s.clone();
        }
        let st = self.started(lat);
        let nm = self.fresh(&format!("en_{lat}"));
        let s = self.m.wire_eq(nm, Expr::and(&st, &key.1));
        self.enables.insert(key, s.clone());
        s
    }

    /// A counter `0 .. modulus-1` that advances on the clocks where `en` is high (held at 0
    /// while the scope's start is low); `None` when `modulus` is 1. Shared per (`en`,
    /// modulus).
    fn gated_counter(&mut self, en: &Sig, modulus: u64) -> Option<Sig> {
        if modulus <= 1 {
            return None;
        }
        let key = (en.name.clone(), modulus);
        if let Some(s) = self.gated.get(&key) {
            return Some(s.clone());
        }
        let nm = self.fresh(&format!("{}_ptr{modulus}", en.name));
        let s = self.m.reg(nm, clog2(modulus));
        self.gated.insert(key, s.clone());
        Some(s)
    }

    /// The delay line of [`Scope::delay`] and [`Scope::delay_segment`]: `d` words, shifting
    /// on every clock or only where `en` is high; registers when `depth` (the depth of the
    /// chain `x` is part of) is at most `REGISTER_CHAIN_MAX`, otherwise a circular memory of
    /// `d-1` words read into an output register.
    fn line(&mut self, x: &Sig, d: u64, en: Option<&Sig>, depth: u64) -> Sig {
        if d == 0 {
            return x.clone();
        }
        let key = (x.name.clone(), en.map(|e| e.name.clone()), d);
        if let Some(s) = self.delays.get(&key) {
            return s.clone();
        }
        let w = x.width;
        // gated lines are named apart (`_e`, `_gmem`) from the free-running ones
        let (reg_tag, mem_tag) = if en.is_some() {
            ("e", "gmem")
        } else {
            ("d", "mem")
        };
        let out = if depth <= crate::st::area::REGISTER_CHAIN_MAX {
            let mut cur = x.clone();
            for k in 0..d {
                let nm = self.fresh(&format!("{}_{reg_tag}{}", x.name, k + 1));
                let r = self.m.reg(nm, w);
                match en {
                    None => self.m.ff(&r, cur.e()),
                    Some(en) => self
                        .m
                        .on_clock(format!(" if ({}) {} <= {};", en.name, r.name, cur.name)),
                }
                cur = r;
            }
            self.storage.ff_bits += d * u64::from(w);
            cur
        } else {
            let depth = d - 1;
            let ptr = match en {
                None => self.phase(0, depth),
                Some(en) => self.gated_counter(en, depth),
            }
            .expect("depth >= 2");
            let nm = self.fresh(&format!("{}_{mem_tag}{d}", x.name));
            let mem = self.m.mem(nm, w, depth);
            let nm = self.fresh(&format!("{}_{reg_tag}{d}", x.name));
            let r = self.m.reg(nm, w);
            let (rn, mn, p, xn) = (&r.name, &mem.name, &ptr.name, &x.name);
            self.m.on_clock(match en {
                None => format!(" begin\n  {rn} <= {mn}[{p}];\n  {mn}[{p}] <= {xn};\nend"),
                Some(en) => format!(
                    "\n  if ({en}) begin\n    {rn} <= {mn}[{p}];\n    {mn}[{p}] <= {xn};\n  end",
                    en = en.name
                ),
            });
            self.storage.ram_bits += depth * u64::from(w);
            self.storage.ff_bits += u64::from(w);
            r
        };
        self.delays.insert(key, out.clone());
        out
    }

    /// One bit by phase: whether clock `c` of layout `l`'s period is valid, for a node
    /// starting `lat` clocks after the scope. Built from the layout's runs of valid clocks,
    /// or over one period of its pattern ([`Layout::valid_period`]) when they are many, so
    /// a long `tseq` costs no table of its clocks.
    pub fn valid_phase(&mut self, name: &str, lat: u64, l: &Layout) -> Expr {
        let bit = |v: bool| Expr::lit(u64::from(v), 1);
        if let Some(runs) = l.valid_runs(MAX_RANGES) {
            let runs = runs.into_iter().map(|(c, v)| (c, bit(v))).collect();
            return self.by_phase_runs(name, lat, l.clocks(), runs, 1);
        }
        let entries: Vec<Option<Expr>> = (0..l.valid_period())
            .map(|c| Some(bit(l.is_valid_clock(c))))
            .collect();
        self.by_phase(name, lat, &entries, 1)
    }

    /// A value chosen by phase, given as runs: phase `c` of `0 .. len` takes the expression of
    /// the last run starting at or before `c` (the first run starts at 0, adjacent runs
    /// differ). This is [`Scope::by_phase`] without a table of every phase: a pattern of a
    /// few runs (the valid clocks of a long `tseq`) costs memory in its runs, not its clocks.
    /// More than a few runs are expanded to the table, which the Verilog then holds anyway.
    pub fn by_phase_runs(
        &mut self,
        name: &str,
        lat: u64,
        len: u64,
        runs: Vec<(u64, Expr)>,
        width: u32,
    ) -> Expr {
        if runs.len() <= MAX_RANGES {
            return self.by_runs(lat, len, runs);
        }
        let mut entries = Vec::with_capacity(len as usize);
        for (k, (start, e)) in runs.iter().enumerate() {
            let end = runs.get(k + 1).map_or(len, |r| r.0);
            entries.extend((*start..end).map(|_| Some(e.clone())));
        }
        self.by_phase(name, lat, &entries, width)
    }

    /// At most [`MAX_RANGES`] runs (see [`Scope::by_phase_runs`]): the expression itself for
    /// one, else a chain of range comparisons on the phase counter of modulus `len`.
    fn by_runs(&mut self, lat: u64, len: u64, mut runs: Vec<(u64, Expr)>) -> Expr {
        if runs.len() == 1 {
            return runs.pop().expect("one run").1;
        }
        let ph = self
            .phase(lat, len)
            .expect("several runs need several phases");
        let mut e = runs.last().expect("runs").1.clone();
        for k in (0..runs.len() - 1).rev() {
            e = Expr::mux(&ph.lt_lit(runs[k + 1].0), &runs[k].1, &e);
        }
        e
    }

    /// A value chosen by phase: `entries[c]` is the expression for phase `c` of a node
    /// starting `lat` clocks after the scope, modulo `entries.len()` (`None`: don't care). Runs of equal entries become range comparisons, or a `case` table when there
    /// are many; a single run is the expression itself.
    pub fn by_phase(&mut self, name: &str, lat: u64, entries: &[Option<Expr>], width: u32) -> Expr {
        // Don't-care phases take their neighbour's choice, so runs stay long.
        let first = entries.iter().flatten().next().cloned();
        let Some(first) = first else {
            return Expr::zero(width);
        };
        let mut runs: Vec<(u64, Expr)> = vec![(0, first)];
        for (c, e) in entries.iter().enumerate() {
            if let Some(e) = e {
                if runs.last().is_some_and(|r| r.1 != *e) {
                    runs.push((c as u64, e.clone()));
                }
            }
        }
        if runs.len() <= MAX_RANGES {
            return self.by_runs(lat, entries.len() as u64, runs);
        }
        // a table repeating with a shorter period (e.g. the valid clocks of
        // `(tseq n 0 (tseq 1 2 t))`) is chosen by a counter of that period instead
        let q = min_period(entries);
        if q < entries.len() {
            let mut short: Vec<Option<Expr>> = vec![None; q];
            for (c, e) in entries.iter().enumerate() {
                if short[c % q].is_none() {
                    short[c % q].clone_from(e);
                }
            }
            return self.by_phase(name, lat, &short, width);
        }
        let ph = self
            .phase(lat, entries.len() as u64)
            .expect("several runs need several phases");
        // A case table: phases grouped by their expression, the commonest as default.
        let mut groups: Vec<(Expr, Vec<u64>)> = Vec::new();
        for (k, (start, e)) in runs.iter().enumerate() {
            let end = runs.get(k + 1).map_or(entries.len() as u64, |r| r.0);
            let phases = start.to_owned()..end;
            match groups.iter_mut().find(|g| g.0 == *e) {
                Some(g) => g.1.extend(phases),
                None => groups.push((e.clone(), phases.collect())),
            }
        }
        let def = (0..groups.len())
            .max_by_key(|k| (groups[*k].1.len(), usize::MAX - k))
            .expect("groups");
        let nm = self.fresh(name);
        let r = self.m.reg(nm, width);
        let mut s = format!("always @* begin\n  case ({})\n", ph.name);
        for (k, (e, phases)) in groups.iter().enumerate() {
            if k == def {
                continue;
            }
            let labels: Vec<String> = phases
                .iter()
                .map(|c| Expr::lit(*c, ph.width).to_string())
                .collect();
            s.push_str(&format!("    {}: {} = {e};\n", labels.join(", "), r.name));
        }
        s.push_str(&format!(
            "    default: {} = {};\n  endcase\nend",
            r.name, groups[def].0
        ));
        self.m.raw(s);
        r.e()
    }

    /// Drives the shared control (age counter, start wires, phase counters) and returns the
    /// module.
    pub fn finish(mut self) -> Module {
        let max_lat = self.started.keys().copied().max().unwrap_or(0);
        if max_lat > 0 {
            let w = clog2(max_lat + 1);
            let age = self.m.reg("age", w);
            self.m.comment(format!(
                "clocks since start, saturating at {max_lat} (the latest node start)"
            ));
            self.m.on_clock(format!(
                "\n  if (!{s}) {a} <= {z};\n  else if ({a} != {top}) {a} <= {a} + {one};",
                s = self.start.name,
                a = age.name,
                z = Expr::zero(w),
                top = Expr::lit(max_lat, w),
                one = Expr::lit(1, w)
            ));
            // `start && age >= lat`, its comparison registered a clock ahead (`age` counts
            // from 0 on the clock after `start` rises, so `age >= lat` now is
            // `start && age >= lat - 1` then): only the AND with `start`, which keeps a
            // falling start a reset in the same clock, lies in front of the enables,
            // counters and `valid_out` these wires drive.
            for (lat, s) in self.started.clone() {
                let q = self.m.reg(format!("{}_q", s.name), 1);
                self.m
                    .ff(&q, Expr::and(&self.start.e(), &age.ge_lit(lat - 1)));
                self.m.assign(&s, Expr::and(&self.start.e(), &q.e()));
            }
        }
        for ((en, modulus), c) in self.gated.clone() {
            let start = self.start.e();
            self.drive_counter(&c, modulus, &start, Some(&en));
        }
        for ((lat, modulus), c) in self.counters.clone() {
            let st = self.started(lat);
            self.drive_counter(&c, modulus, &st, None);
        }
        self.m
    }

    /// Drives counter `c` of `0 .. modulus-1`: held at 0 while `st` is low, then advancing
    /// on every clock, or on the clocks `en` is high. Whether it is at its top is a flag
    /// registered a clock ahead (`<c>_top`), so its wrap-around is one LUT in front of the
    /// counter's reset: compared in the same clock, the counter's equality and the route
    /// back into its reset were sharpen's critical path at s = 144 (`tessera fmax`, seed 1:
    /// 225.5 MHz with the compare, docs/timing.md).
    fn drive_counter(&mut self, c: &Sig, modulus: u64, st: &Expr, en: Option<&str>) {
        let w = c.width;
        let top = self.m.reg(format!("{}_top", c.name), 1);
        let (z, one) = (Expr::zero(w), Expr::lit(1, w));
        let next_top = Expr::eq(&c.e(), &Expr::lit(modulus - 2, w));
        let (c, top) = (&c.name, &top.name);
        let advance = en.map_or(String::new(), |en| format!("if ({en}) "));
        self.m.on_clock(format!(
            "\n  if (!{st}) begin\n    {c} <= {z};\n    {top} <= 1'h0;\n  end\n  else {advance}begin\n    {c} <= {top} ? {z} : {c} + {one};\n    {top} <= {next_top};\n  end"
        ));
    }
}

/// The shortest period `q` (a divisor of `entries.len()`) with which the table repeats,
/// don't-care entries matching anything; `entries.len()` when none is shorter.
fn min_period(entries: &[Option<Expr>]) -> usize {
    let n = entries.len();
    'q: for q in 1..n {
        if !n.is_multiple_of(q) {
            continue;
        }
        let mut rep: Vec<Option<&Expr>> = vec![None; q];
        for (c, e) in entries.iter().enumerate() {
            let Some(e) = e else { continue };
            match rep[c % q] {
                None => rep[c % q] = Some(e),
                Some(r) if r == e => {}
                Some(_) => continue 'q,
            }
        }
        return q;
    }
    n
}
