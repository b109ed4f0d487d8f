//! Mutations of s-expression text (`.seq` programs and `.st` designs), by tokens: a
//! mutation deletes, repeats, swaps or replaces tokens and whole parenthesized forms, puts
//! in boundary numbers (0, 2^28, 2^64, ...), truncates, or writes a stray byte. Most results
//! are malformed, some still parse and reach later stages with odd sizes.
//!
//! A [`Mutation`] is plain data and [`apply`] is deterministic, so a failing input is its
//! base text and a short list of mutations, which a property-based runner can shrink.

/// Numbers a mutation puts in place of a number: boundaries of the widths, of the front
/// end's limits (2^28 atoms) and of `u64`, and forms that are not whole numbers.
pub const NUMBERS: [&str; 26] = [
    "0",
    "1",
    "2",
    "3",
    "4",
    "7",
    "8",
    "16",
    "255",
    "256",
    "-1",
    "-128",
    "65535",
    "65536",
    "268435456",
    "268435457",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "1/128",
    "0.5",
    "1e300",
    "-0",
    "+1",
    "0x10",
];

/// Stray characters a mutation may write: delimiters, comment and literal syntax, a NUL,
/// a multi-byte character.
const CHARS: [&str; 12] = [
    "(", ")", ";", "_", "/", ".", "-", "\"", "\0", "é", "\n", " ",
];

/// The kinds of mutation ([`Mutation::kind`] is taken modulo this).
pub const KINDS: u8 = 12;

/// One edit: `kind` selects what (modulo [`KINDS`]), `at` where (modulo the number of
/// tokens), `pick` a second token, a replacement, or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mutation {
    /// Which edit.
    pub kind: u8,
    /// Where (a token index, modulo the token count).
    pub at: u64,
    /// What with (an index into the tokens, [`NUMBERS`], the vocabulary or a byte table).
    pub pick: u64,
}

/// A token: delimiters, atoms, whitespace runs and comments are separate tokens, so the
/// text joins back exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tok {
    text: String,
    /// Not whitespace or a comment.
    solid: bool,
}

fn tokenize(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let mut end = start + c.len_utf8();
        let solid = match c {
            '(' | ')' => true,
            ';' => {
                while let Some(&(i, d)) = chars.peek() {
                    if d == '\n' {
                        break;
                    }
                    end = i + d.len_utf8();
                    chars.next();
                }
                false
            }
            c if c.is_whitespace() => {
                while let Some(&(i, d)) = chars.peek() {
                    if !d.is_whitespace() {
                        break;
                    }
                    end = i + d.len_utf8();
                    chars.next();
                }
                false
            }
            _ => {
                while let Some(&(i, d)) = chars.peek() {
                    if d.is_whitespace() || matches!(d, '(' | ')' | ';') {
                        break;
                    }
                    end = i + d.len_utf8();
                    chars.next();
                }
                true
            }
        };
        out.push(Tok {
            text: text[start..end].to_string(),
            solid,
        });
    }
    out
}

/// The end (exclusive) of the form that starts at token `i`: past the matching `)` for a
/// `(`, else just past the token. `None` if the parenthesis is never closed.
fn form_end(toks: &[Tok], i: usize) -> Option<usize> {
    if toks[i].text != "(" {
        return Some(i + 1);
    }
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(i) {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_number(t: &str) -> bool {
    let t = t.strip_prefix('-').unwrap_or(t);
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// Applies `muts` in order to `text`. `vocabulary` holds words a replacement may use (the
/// keywords and names of the corpus); an empty vocabulary uses the text's own words.
pub fn apply(text: &str, muts: &[Mutation], vocabulary: &[String]) -> String {
    let mut toks = tokenize(text);
    for m in muts {
        mutate(&mut toks, *m, vocabulary);
    }
    toks.into_iter().map(|t| t.text).collect()
}

fn solid_tok(text: &str) -> Tok {
    Tok {
        text: text.to_string(),
        solid: true,
    }
}

fn mutate(toks: &mut Vec<Tok>, m: Mutation, vocabulary: &[String]) {
    let solid: Vec<usize> = (0..toks.len()).filter(|&i| toks[i].solid).collect();
    if solid.is_empty() {
        toks.push(solid_tok(CHARS[(m.pick % CHARS.len() as u64) as usize]));
        return;
    }
    let pick_in = |n: usize, k: u64| (k % n as u64) as usize;
    let i = solid[pick_in(solid.len(), m.at)];
    let j = solid[pick_in(solid.len(), m.pick)];
    let space = || Tok {
        text: " ".into(),
        solid: false,
    };
    match m.kind % KINDS {
        0 => {
            toks.remove(i);
        }
        1 => {
            let t = toks[i].clone();
            toks.insert(i, space());
            toks.insert(i, t);
        }
        2 => toks.swap(i, j),
        3 => {
            // The first number at or after `i`, else any token.
            let k = solid
                .iter()
                .copied()
                .find(|&k| k >= i && is_number(&toks[k].text))
                .unwrap_or(i);
            toks[k].text = NUMBERS[pick_in(NUMBERS.len(), m.pick)].to_string();
        }
        4 => {
            let word = if vocabulary.is_empty() {
                toks[j].text.clone()
            } else {
                vocabulary[pick_in(vocabulary.len(), m.pick)].clone()
            };
            toks[i].text = word;
        }
        5 => {
            let p = if m.pick.is_multiple_of(2) { "(" } else { ")" };
            toks.insert(i, solid_tok(p));
        }
        6 => {
            if let Some(end) = form_end(toks, i) {
                toks.drain(i..end);
            }
        }
        7 => {
            if let Some(end) = form_end(toks, i) {
                let copy: Vec<Tok> = toks[i..end].to_vec();
                let at = end;
                toks.insert(at, space());
                for (k, t) in copy.into_iter().enumerate() {
                    toks.insert(at + 1 + k, t);
                }
            }
        }
        8 => {
            // Replace the form at `i` with a copy of the form at `j` (a splice).
            if let (Some(ei), Some(ej)) = (form_end(toks, i), form_end(toks, j)) {
                let copy: Vec<Tok> = toks[j..ej].to_vec();
                toks.splice(i..ei, copy);
            }
        }
        9 => toks.truncate(i),
        10 => {
            let t = &mut toks[i];
            let c = CHARS[pick_in(CHARS.len(), m.pick)];
            let cut = t
                .text
                .char_indices()
                .map(|(k, _)| k)
                .nth(pick_in(t.text.chars().count().max(1), m.pick / 16));
            match cut {
                Some(k) => t.text.insert_str(k, c),
                None => t.text.push_str(c),
            }
        }
        _ => {
            // A number nearby, changed by a little or doubled.
            if let Some(k) = solid
                .iter()
                .copied()
                .find(|&k| k >= i && is_number(&toks[k].text))
            {
                if let Ok(v) = toks[k].text.parse::<i128>() {
                    let v = match m.pick % 4 {
                        0 => v + 1,
                        1 => v - 1,
                        2 => v * 2,
                        _ => v / 2,
                    };
                    toks[k].text = v.to_string();
                }
            }
        }
    }
}

/// The distinct words (atoms that are not numbers) of `texts`, sorted.
pub fn vocabulary<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut words: Vec<String> = texts
        .into_iter()
        .flat_map(tokenize)
        .filter(|t| t.solid && t.text != "(" && t.text != ")" && !is_number(&t.text))
        .map(|t| t.text)
        .collect();
    words.sort();
    words.dedup();
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_join_back_to_the_text() {
        let text = "; c\n(input I (seq 4 uint8)) ; end\n(output (map 4 abs I))\n";
        let toks = tokenize(text);
        assert_eq!(
            toks.iter().map(|t| t.text.as_str()).collect::<String>(),
            text
        );
        assert_eq!(apply(text, &[], &[]), text);
    }

    #[test]
    fn each_kind_edits_as_documented() {
        let text = "(output (map 4 abs I))";
        let m = |kind, at, pick| apply(text, &[Mutation { kind, at, pick }], &[]);
        // Solid tokens: ( output ( map 4 abs I ) )
        assert_eq!(m(0, 3, 0), "(output ( 4 abs I))");
        assert_eq!(m(3, 0, 14), "(output (map 268435456 abs I))");
        assert_eq!(m(6, 2, 0), "(output )");
        assert_eq!(m(8, 5, 6), "(output (map 4 I I))");
        assert_eq!(m(9, 2, 0), "(output ");
        assert_eq!(m(11, 0, 2), "(output (map 8 abs I))");
        let vocab = vec!["reduce".to_string()];
        assert_eq!(
            apply(
                text,
                &[Mutation {
                    kind: 4,
                    at: 3,
                    pick: 0
                }],
                &vocab
            ),
            "(output (reduce 4 abs I))"
        );
    }
}
