//! S-expressions with source positions, shared by every text format of the project
//! (`.seq` programs, `.st` designs, rule files).
//!
//! The tree itself is read by `symbolic_expressions`. That crate keeps no positions, reads
//! one expression per call and has no comments, so this module first blanks comments (keeping
//! every column), checks the parentheses itself to report the exact unbalanced one, wraps the
//! file in one list, and then pairs each node of the parsed tree, in pre-order, with the
//! position of the token that starts it.

use super::diag::{Diagnostic, Pos};
use symbolic_expressions::Sexp as RawSexp;

/// The deepest parenthesis nesting a file may have: far above any real program, design or
/// rule, and low enough that the recursive reader stays within a 2 MB thread stack.
pub const MAX_NESTING: usize = 200;

/// An s-expression node with the position where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sexp {
    /// The node.
    pub kind: SexpKind,
    /// Where its first character is.
    pub pos: Pos,
}

/// The two shapes of a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SexpKind {
    /// A bare word or number.
    Atom(String),
    /// A parenthesized list.
    List(Vec<Sexp>),
}

impl Sexp {
    /// The text of an atom.
    pub fn atom(&self) -> Option<&str> {
        match &self.kind {
            SexpKind::Atom(s) => Some(s),
            SexpKind::List(_) => None,
        }
    }

    /// The items of a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            SexpKind::List(xs) => Some(xs),
            SexpKind::Atom(_) => None,
        }
    }

    /// The head word of a list such as `(map 4 abs x)`.
    pub fn head(&self) -> Option<&str> {
        self.list().and_then(|xs| xs.first()).and_then(Sexp::atom)
    }

    /// The whole number an atom spells, at most `max`; else what to tell the user about
    /// it, for a field named `what` ("the length"): a number too large is named as such,
    /// not as something other than a number.
    pub fn natural(&self, what: &str, max: u64) -> Result<u64, String> {
        let text = self.atom().unwrap_or("");
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        match text.parse::<u64>() {
            Ok(n) if n <= max => Ok(n),
            _ if digits => Err(format!(
                "the {what} {} is too large: at most {max}",
                self.excerpt(40)
            )),
            _ => Err(format!(
                "expected a whole number for the {what}, found `{}`",
                self.excerpt(40)
            )),
        }
    }

    /// A short rendering for messages, cut at `max` characters.
    pub fn excerpt(&self, max: usize) -> String {
        let s = self.to_string();
        if s.chars().count() <= max {
            s
        } else {
            let cut: String = s.chars().take(max).collect();
            format!("{cut}...")
        }
    }
}

impl std::fmt::Display for Sexp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            SexpKind::Atom(s) => f.write_str(s),
            SexpKind::List(xs) => {
                f.write_str("(")?;
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Reads every top-level s-expression of a file. `;` starts a comment to the end of the line.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<Sexp>, Diagnostic> {
    let clean = blank_comments(file, text)?;
    let starts = scan(file, &clean)?;
    // One wrapping list makes the whole file one expression for symbolic_expressions.
    let wrapped = format!("({clean}\n)");
    let raw = symbolic_expressions::parser::parse_str(&wrapped)
        .map_err(|e| Diagnostic::file(file, format!("cannot read the file: {e}")))?;
    let RawSexp::List(items) = raw else {
        return Err(Diagnostic::file(file, "cannot read the file"));
    };
    let mut starts = starts.into_iter();
    items
        .into_iter()
        .map(|item| attach(file, item, &mut starts))
        .collect()
}

/// Replaces comments, tabs and carriage returns by spaces, so columns stay where they were
/// and symbolic_expressions sees only the separators it knows.
fn blank_comments(file: &str, text: &str) -> Result<String, Diagnostic> {
    let mut out = String::with_capacity(text.len());
    let mut in_comment = false;
    let mut pos = Pos { line: 1, col: 1 };
    for c in text.chars() {
        match c {
            '\n' => {
                in_comment = false;
                out.push('\n');
            }
            ';' => {
                in_comment = true;
                out.push(' ');
            }
            _ if in_comment => out.push(' '),
            '\t' | '\r' => out.push(' '),
            '"' => {
                return Err(Diagnostic::at(
                    file,
                    pos,
                    "unexpected `\"`: this format has no strings",
                ))
            }
            c if c.is_control() => {
                return Err(Diagnostic::at(
                    file,
                    pos,
                    format!("unexpected control character U+{:04X}", c as u32),
                ))
            }
            c => out.push(c),
        }
        if c == '\n' {
            pos.line += 1;
            pos.col = 1;
        } else {
            pos.col += 1;
        }
    }
    Ok(out)
}

/// Positions of the tokens that start nodes, in pre-order; checks that parentheses balance
/// and nest at most [`MAX_NESTING`] deep.
fn scan(file: &str, text: &str) -> Result<Vec<Pos>, Diagnostic> {
    let mut starts = Vec::new();
    let mut open: Vec<Pos> = Vec::new();
    let mut pos = Pos { line: 1, col: 1 };
    let mut in_atom = false;
    for c in text.chars() {
        match c {
            '(' => {
                in_atom = false;
                starts.push(pos);
                open.push(pos);
                if open.len() > MAX_NESTING {
                    return Err(Diagnostic::at(
                        file,
                        pos,
                        format!("parentheses nest more than {MAX_NESTING} deep here"),
                    ));
                }
            }
            ')' => {
                in_atom = false;
                if open.pop().is_none() {
                    return Err(Diagnostic::at(
                        file,
                        pos,
                        "unbalanced parentheses: this `)` closes nothing",
                    ));
                }
            }
            ' ' | '\n' => in_atom = false,
            _ => {
                if !in_atom {
                    starts.push(pos);
                    in_atom = true;
                }
            }
        }
        if c == '\n' {
            pos.line += 1;
            pos.col = 1;
        } else {
            pos.col += 1;
        }
    }
    if let Some(p) = open.pop() {
        return Err(Diagnostic::at(
            file,
            p,
            "unbalanced parentheses: this `(` is never closed",
        ));
    }
    Ok(starts)
}

fn attach(
    file: &str,
    raw: RawSexp,
    starts: &mut impl Iterator<Item = Pos>,
) -> Result<Sexp, Diagnostic> {
    let pos = starts
        .next()
        .ok_or_else(|| Diagnostic::file(file, "internal error: token positions out of step"))?;
    let kind = match raw {
        RawSexp::String(s) => SexpKind::Atom(s),
        RawSexp::List(xs) => SexpKind::List(
            xs.into_iter()
                .map(|x| attach(file, x, starts))
                .collect::<Result<_, _>>()?,
        ),
        RawSexp::Empty => SexpKind::List(Vec::new()),
    };
    Ok(Sexp { kind, pos })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_the_source() {
        let forms = parse_file("t", "; header\n(a (b 12)\n   c)\n(d)").unwrap();
        assert_eq!(forms.len(), 2);
        assert_eq!(forms[0].pos, Pos { line: 2, col: 1 });
        let items = forms[0].list().unwrap();
        assert_eq!(items[1].pos, Pos { line: 2, col: 4 });
        assert_eq!(items[1].list().unwrap()[1].pos, Pos { line: 2, col: 7 });
        assert_eq!(items[2].pos, Pos { line: 3, col: 4 });
        assert_eq!(forms[1].pos, Pos { line: 4, col: 1 });
        assert_eq!(forms[0].to_string(), "(a (b 12) c)");
    }

    #[test]
    fn unbalanced_parentheses_name_the_culprit() {
        let e = parse_file("f.seq", "(a\n  (b c)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.seq:1:1: error: unbalanced parentheses: this `(` is never closed"
        );
        let e = parse_file("f.seq", "(a))").unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 1, col: 4 }));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "(".repeat(100_000), ")".repeat(100_000));
        let e = parse_file("d", &deep).unwrap_err();
        assert!(e.message.contains("nest more than 200"), "{e}");
        assert_eq!(e.pos, Some(Pos { line: 1, col: 201 }));
        let ok = format!("{}{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert!(parse_file("d", &ok).is_ok());
    }

    #[test]
    fn tabs_and_empty_lists() {
        let forms = parse_file("t", "(a\t()\tb)").unwrap();
        assert_eq!(forms[0].to_string(), "(a () b)");
        assert!(parse_file("t", "").unwrap().is_empty());
        assert!(parse_file("t", "\"x\"").is_err());
    }
}
