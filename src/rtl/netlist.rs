//! A small typed netlist and its Verilog-2005 printer.
//!
//! Every [`Expr`] knows its width, and the constructors refuse operands of different widths
//! (they panic: a width mismatch is a generator bug, not a user error). The printed Verilog
//! therefore has no implicit extension or truncation, which is what Verilator's `WIDTH`
//! lint demands. Modules print deterministically, in the order items were added.

use std::fmt::{self, Write};

/// A named signal (wire, reg or port) of a fixed width.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sig {
    /// The Verilog identifier.
    pub name: String,
    /// Width in bits (at least 1).
    pub width: u32,
}

impl Sig {
    /// A signal.
    pub fn new(name: impl Into<String>, width: u32) -> Sig {
        assert!(width > 0, "zero-width signal");
        Sig {
            name: name.into(),
            width,
        }
    }

    /// The whole signal as an expression.
    pub fn e(&self) -> Expr {
        Expr::raw(self.name.clone(), self.width)
    }

    /// Bits `lo .. lo+width` (slicing is only legal on named signals).
    pub fn bits(&self, lo: u32, width: u32) -> Expr {
        assert!(
            width > 0 && lo + width <= self.width,
            "slice [{}+:{width}] of {} ({} bits)",
            lo,
            self.name,
            self.width
        );
        if lo == 0 && width == self.width {
            return self.e();
        }
        if width == 1 {
            Expr::raw(format!("{}[{lo}]", self.name), 1)
        } else {
            Expr::raw(format!("{}[{}:{lo}]", self.name, lo + width - 1), width)
        }
    }

    /// Unsigned `self < c` for a constant `c`, written as logic on the bits rather than as
    /// a `<` ([`Expr::lt_const`]).
    pub fn lt_lit(&self, c: u64) -> Expr {
        Expr::lt_const(|i| self.bits(i, 1), self.width, c)
    }

    /// Unsigned `self >= c` for a constant `c`: the complement of [`Sig::lt_lit`].
    pub fn ge_lit(&self, c: u64) -> Expr {
        Expr::not(&self.lt_lit(c))
    }

    /// Sign extension to `width` bits (reads the top bit).
    pub fn sext(&self, width: u32) -> Expr {
        assert!(width >= self.width);
        if width == self.width {
            return self.e();
        }
        let msb = self.bits(self.width - 1, 1);
        Expr::concat(&[Expr::repl(width - self.width, &msb), self.e()])
    }
}

/// A Verilog expression of a known width.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    text: String,
    /// Width in bits.
    pub width: u32,
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn same(op: &str, a: &Expr, b: &Expr) {
    assert_eq!(
        a.width, b.width,
        "width mismatch in `{a} {op} {b}`: {} vs {} bits",
        a.width, b.width
    );
}

impl Expr {
    /// An expression from text the caller vouches for (an identifier, a part-select).
    pub fn raw(text: impl Into<String>, width: u32) -> Expr {
        assert!(width > 0, "zero-width expression");
        Expr {
            text: text.into(),
            width,
        }
    }

    /// A sized literal `W'hV`; `v` is masked to `width` bits (widths above 64 are built
    /// from 64-bit chunks).
    pub fn lit(v: u64, width: u32) -> Expr {
        assert!(width > 0);
        if width > 64 {
            return Expr::concat(&[Expr::lit(0, width - 64), Expr::lit(v, 64)]);
        }
        let v = if width == 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        };
        Expr::raw(format!("{width}'h{v:x}"), width)
    }

    /// The literal `0` of a width.
    pub fn zero(width: u32) -> Expr {
        Expr::lit(0, width)
    }

    /// `{a, b, ...}`, the first part in the most significant bits.
    pub fn concat(parts: &[Expr]) -> Expr {
        assert!(!parts.is_empty());
        if parts.len() == 1 {
            return parts[0].clone();
        }
        let w = parts.iter().map(|p| p.width).sum();
        let inner: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
        Expr::raw(format!("{{{}}}", inner.join(", ")), w)
    }

    /// `{n{e}}`.
    pub fn repl(n: u32, e: &Expr) -> Expr {
        assert!(n > 0);
        if n == 1 {
            return e.clone();
        }
        Expr::raw(format!("{{{n}{{{}}}}}", e.text), n * e.width)
    }

    /// Zero extension to `width` bits.
    pub fn zext(&self, width: u32) -> Expr {
        assert!(width >= self.width, "zext of {self} to {width} bits");
        if width == self.width {
            return self.clone();
        }
        Expr::concat(&[Expr::zero(width - self.width), self.clone()])
    }

    fn bin(op: &str, a: &Expr, b: &Expr, width: u32) -> Expr {
        Expr::raw(format!("({} {op} {})", a.text, b.text), width)
    }

    /// `a + b` (wrapping, same widths).
    pub fn add(a: &Expr, b: &Expr) -> Expr {
        same("+", a, b);
        Expr::bin("+", a, b, a.width)
    }

    /// `a - b` (wrapping, same widths).
    pub fn sub(a: &Expr, b: &Expr) -> Expr {
        same("-", a, b);
        Expr::bin("-", a, b, a.width)
    }

    /// `a * b`, truncated to the operands' width.
    pub fn mul(a: &Expr, b: &Expr) -> Expr {
        same("*", a, b);
        Expr::bin("*", a, b, a.width)
    }

    /// Bitwise and.
    pub fn and(a: &Expr, b: &Expr) -> Expr {
        same("&", a, b);
        Expr::bin("&", a, b, a.width)
    }

    /// Bitwise or.
    pub fn or(a: &Expr, b: &Expr) -> Expr {
        same("|", a, b);
        Expr::bin("|", a, b, a.width)
    }

    /// Bitwise not.
    pub fn not(a: &Expr) -> Expr {
        Expr::raw(format!("(~{})", a.text), a.width)
    }

    /// `a == b` (1 bit).
    pub fn eq(a: &Expr, b: &Expr) -> Expr {
        same("==", a, b);
        Expr::bin("==", a, b, 1)
    }

    /// `a != b` (1 bit).
    pub fn ne(a: &Expr, b: &Expr) -> Expr {
        same("!=", a, b);
        Expr::bin("!=", a, b, 1)
    }

    /// Unsigned `a < b` (1 bit).
    pub fn lt(a: &Expr, b: &Expr) -> Expr {
        same("<", a, b);
        Expr::bin("<", a, b, 1)
    }

    /// Unsigned `a >= b` (1 bit).
    pub fn ge(a: &Expr, b: &Expr) -> Expr {
        same(">=", a, b);
        Expr::bin(">=", a, b, 1)
    }

    /// Unsigned `x < c` of the `w`-bit value whose bit `i` is `bit(i)`, for a constant
    /// `c`, written as logic on the bits rather than as a `<`: Yosys maps a `<` to a carry
    /// chain even against a constant (its `alumacc`), which costs a LUT and a carry cell
    /// per bit and, on a phase counter, put a chain between the counter and the design's
    /// `valid_out` (`tessera fmax` on conv2d at s = 48: 226.4 MHz with the chain;
    /// docs/timing.md). As logic, ABC maps it into about one LUT per three bits, a tree of
    /// them deep (`x < 1001` on 16 bits: 5 LUTs where the chain took 21 and 14 carries).
    pub fn lt_const(bit: impl Fn(u32) -> Expr, w: u32, c: u64) -> Expr {
        if c == 0 {
            return Expr::lit(0, 1);
        }
        if w < 64 && c >= 1u64 << w {
            return Expr::lit(1, 1);
        }
        // The bits below c's lowest one decide nothing; from there up, `x[i:k] < c[i:k]` is
        // `~x[i] | below` where c has a one at i, `~x[i] & below` where it has a zero.
        let k = c.trailing_zeros();
        let mut e = Expr::not(&bit(k));
        for i in k + 1..w {
            let not_x = Expr::not(&bit(i));
            e = if (c >> i) & 1 == 1 {
                Expr::or(&not_x, &e)
            } else {
                Expr::and(&not_x, &e)
            };
        }
        e
    }

    /// Signed `a < b` (1 bit).
    pub fn slt(a: &Expr, b: &Expr) -> Expr {
        same("<", a, b);
        Expr::raw(format!("($signed({}) < $signed({}))", a.text, b.text), 1)
    }

    /// Logical shift right by a variable amount (any width); the result has `a`'s width.
    pub fn shr(a: &Expr, by: &Expr) -> Expr {
        Expr::raw(format!("({} >> {})", a.text, by.text), a.width)
    }

    /// Shift left by a variable amount; the result has `a`'s width.
    pub fn shl(a: &Expr, by: &Expr) -> Expr {
        Expr::raw(format!("({} << {})", a.text, by.text), a.width)
    }

    /// `c ? a : b` with a 1-bit condition.
    pub fn mux(c: &Expr, a: &Expr, b: &Expr) -> Expr {
        assert_eq!(c.width, 1, "mux condition {c} is not 1 bit");
        same("?:", a, b);
        Expr::raw(format!("({} ? {} : {})", c.text, a.text, b.text), a.width)
    }

    /// The reduction `&a` (1 bit), true when `a` is all ones.
    pub fn and_all(parts: &[Expr]) -> Expr {
        assert!(!parts.is_empty());
        let mut e = parts[0].clone();
        for p in &parts[1..] {
            e = Expr::and(&e, p);
        }
        e
    }
}

/// A port direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `input wire`.
    In,
    /// `output wire`.
    Out,
}

/// One module item, printed in order.
#[derive(Clone, Debug)]
enum Item {
    Comment(String),
    Wire(Sig),
    Reg(Sig),
    Mem {
        sig: Sig,
        depth: u64,
    },
    Assign(Sig, Expr),
    Raw(String),
    /// The statement of an `always @(posedge clk)` block, with the separator before it.
    OnClock(String),
}

/// A Verilog module under construction.
#[derive(Clone, Debug)]
pub struct Module {
    /// The module name.
    pub name: String,
    ports: Vec<(Dir, Sig)>,
    items: Vec<Item>,
    header: Vec<String>,
    /// Whether the module has a clock enable `ce` (see [`Module::clock_enable`]).
    ce: bool,
}

impl Module {
    /// An empty module.
    pub fn new(name: impl Into<String>) -> Module {
        Module {
            name: name.into(),
            ports: Vec::new(),
            items: Vec::new(),
            header: Vec::new(),
            ce: false,
        }
    }

    /// Declares the clock-enable input `ce`: every register of the module (its
    /// [`Module::on_clock`] blocks) then updates only on the clocks where `ce` is high, on
    /// the one clock `clk`. Modules it instantiates must get the same enable.
    pub fn clock_enable(&mut self) -> Sig {
        assert!(!self.ce, "{} already has a clock enable", self.name);
        self.ce = true;
        self.port(Dir::In, "ce", 1)
    }

    /// The clock enable, if the module has one.
    pub fn ce(&self) -> Option<Expr> {
        self.ce.then(|| Expr::raw("ce", 1))
    }

    /// A comment line printed above the module.
    pub fn doc(&mut self, line: impl Into<String>) {
        self.header.push(line.into());
    }

    /// Declares a port.
    pub fn port(&mut self, dir: Dir, name: impl Into<String>, width: u32) -> Sig {
        let s = Sig::new(name, width);
        self.ports.push((dir, s.clone()));
        s
    }

    /// The ports, in order.
    pub fn ports(&self) -> &[(Dir, Sig)] {
        &self.ports
    }

    /// A comment line in the body.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.items.push(Item::Comment(text.into()));
    }

    /// Declares a wire.
    pub fn wire(&mut self, name: impl Into<String>, width: u32) -> Sig {
        let s = Sig::new(name, width);
        self.items.push(Item::Wire(s.clone()));
        s
    }

    /// Declares a wire driven by `e`.
    pub fn wire_eq(&mut self, name: impl Into<String>, e: Expr) -> Sig {
        let s = self.wire(name, e.width);
        self.assign(&s, e);
        s
    }

    /// Declares a reg (driven by an `always` block the caller adds).
    pub fn reg(&mut self, name: impl Into<String>, width: u32) -> Sig {
        let s = Sig::new(name, width);
        self.items.push(Item::Reg(s.clone()));
        s
    }

    /// Declares a memory `reg [W-1:0] name [0:depth-1]`.
    pub fn mem(&mut self, name: impl Into<String>, width: u32, depth: u64) -> Sig {
        let s = Sig::new(name, width);
        self.items.push(Item::Mem {
            sig: s.clone(),
            depth,
        });
        s
    }

    /// `assign lhs = e;` (equal widths).
    pub fn assign(&mut self, lhs: &Sig, e: Expr) {
        assert_eq!(
            lhs.width, e.width,
            "assign {} ({} bits) = {e} ({} bits)",
            lhs.name, lhs.width, e.width
        );
        self.items.push(Item::Assign(lhs.clone(), e));
    }

    /// Verbatim lines (always blocks, instances), indented by the printer.
    pub fn raw(&mut self, text: impl Into<String>) {
        self.items.push(Item::Raw(text.into()));
    }

    /// `always @(posedge clk)` followed by `stmt`, which starts with its separator (` ` for a
    /// statement on the same line, `\n  ` for one on the next). In a module with a clock
    /// enable the statement is guarded: `always @(posedge clk) if (ce)` then `stmt`; a
    /// dangling `else` in `stmt` binds to its own inner `if`, so any statement keeps its
    /// meaning on the enabled clocks. Every register of a module is written through here.
    pub fn on_clock(&mut self, stmt: impl Into<String>) {
        self.items.push(Item::OnClock(stmt.into()));
    }

    /// `always @(posedge clk) lhs <= e;`.
    pub fn ff(&mut self, lhs: &Sig, e: Expr) {
        assert_eq!(lhs.width, e.width, "{} <= {e}", lhs.name);
        self.on_clock(format!(" {} <= {e};", lhs.name));
    }

    /// Instantiates `module` as `inst` with named connections.
    pub fn instance(&mut self, module: &str, inst: &str, conns: &[(String, Expr)]) {
        let mut s = format!("{module} {inst} (");
        for (k, (p, e)) in conns.iter().enumerate() {
            let sep = if k + 1 == conns.len() { "" } else { "," };
            let _ = write!(s, "\n  .{p}({e}){sep}");
        }
        s.push_str("\n);");
        self.raw(s);
    }
}

fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for h in &self.header {
            writeln!(f, "// {h}")?;
        }
        writeln!(f, "module {} (", self.name)?;
        for (k, (d, s)) in self.ports.iter().enumerate() {
            let dir = match d {
                Dir::In => "input ",
                Dir::Out => "output",
            };
            let sep = if k + 1 == self.ports.len() { "" } else { "," };
            writeln!(f, "  {dir} wire {}{}{sep}", range(s.width), s.name)?;
        }
        writeln!(f, ");")?;
        for it in &self.items {
            match it {
                Item::Comment(c) => writeln!(f, "  // {c}")?,
                Item::Wire(s) => writeln!(f, "  wire {}{};", range(s.width), s.name)?,
                Item::Reg(s) => writeln!(f, "  reg {}{};", range(s.width), s.name)?,
                Item::Mem { sig, depth } => writeln!(
                    f,
                    "  reg {}{} [0:{}];",
                    range(sig.width),
                    sig.name,
                    depth - 1
                )?,
                Item::Assign(l, e) => writeln!(f, "  assign {} = {e};", l.name)?,
                Item::Raw(t) => {
                    debug_assert!(!t.contains("posedge"), "a register outside on_clock: {t}");
                    for line in t.lines() {
                        writeln!(f, "  {line}")?;
                    }
                }
                Item::OnClock(stmt) => {
                    let guard = if self.ce { " if (ce)" } else { "" };
                    for line in format!("always @(posedge clk){guard}{stmt}").lines() {
                        writeln!(f, "  {line}")?;
                    }
                }
            }
        }
        writeln!(f, "endmodule")
    }
}

/// Bits needed to count `0 .. n-1` (at least 1).
pub fn clog2(n: u64) -> u32 {
    if n <= 2 {
        1
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// A Verilog identifier made from arbitrary text: letters, digits and `_` kept, anything
/// else replaced by `_`, a leading digit prefixed.
pub fn ident(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'm');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// Verilog-2005 keywords, which [`ident`] never returns.
const KEYWORDS: &[&str] = &[
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "buf",
    "bufif0",
    "bufif1",
    "case",
    "casex",
    "casez",
    "cell",
    "cmos",
    "config",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "edge",
    "else",
    "end",
    "endcase",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endprimitive",
    "endspecify",
    "endtable",
    "endtask",
    "event",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "highz0",
    "highz1",
    "if",
    "ifnone",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "instance",
    "integer",
    "join",
    "large",
    "liblist",
    "library",
    "localparam",
    "macromodule",
    "medium",
    "module",
    "nand",
    "negedge",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "or",
    "output",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_onevent",
    "pulsestyle_ondetect",
    "rcmos",
    "real",
    "realtime",
    "reg",
    "release",
    "repeat",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "scalared",
    "showcancelled",
    "signed",
    "small",
    "specify",
    "specparam",
    "strong0",
    "strong1",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "unsigned",
    "use",
    "uwire",
    "vectored",
    "wait",
    "wand",
    "weak0",
    "weak1",
    "while",
    "wire",
    "wor",
    "xnor",
    "xor",
    "clkgen",
    "tb",
    "logic",
    "bit",
    "byte",
    "int",
    "shortint",
    "longint",
    "bind",
    "class",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_tracked_and_printed() {
        let mut m = Module::new("t");
        let a = m.port(Dir::In, "a", 8);
        let y = m.port(Dir::Out, "y", 9);
        let s = Expr::add(&a.e().zext(9), &Expr::lit(3, 9));
        m.assign(&y, s);
        let text = m.to_string();
        assert!(text.contains("assign y = ({1'h0, a} + 9'h3);"), "{text}");
        assert_eq!(clog2(1), 1);
        assert_eq!(clog2(4), 2);
        assert_eq!(clog2(5), 3);
        assert_eq!(ident("3x-y"), "m3x_y");
    }

    #[test]
    fn a_clock_enable_guards_every_register() {
        let build = |ce: bool| {
            let mut m = Module::new("t");
            m.port(Dir::In, "clk", 1);
            if ce {
                m.clock_enable();
            }
            let r = m.reg("r", 2);
            m.ff(&r, Expr::lit(1, 2));
            m.on_clock("\n  if (!s) r <= 2'h0;\n  else r <= 2'h1;");
            m.to_string()
        };
        let plain = build(false);
        assert!(
            plain.contains("  always @(posedge clk) r <= 2'h1;\n"),
            "{plain}"
        );
        assert!(
            plain.contains("  always @(posedge clk)\n    if (!s)"),
            "{plain}"
        );
        assert!(!plain.contains("ce"), "{plain}");
        let ce = build(true);
        assert!(ce.contains("  input  wire ce\n"), "{ce}");
        assert!(
            ce.contains("  always @(posedge clk) if (ce) r <= 2'h1;\n"),
            "{ce}"
        );
        assert!(
            ce.contains("  always @(posedge clk) if (ce)\n    if (!s)"),
            "{ce}"
        );
    }

    #[test]
    #[should_panic(expected = "width mismatch")]
    fn mismatched_widths_panic() {
        let _ = Expr::add(&Expr::lit(1, 8), &Expr::lit(1, 9));
    }
}
