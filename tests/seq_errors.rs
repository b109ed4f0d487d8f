//! Broken programs and inputs: every error is a diagnostic with the file, the line:column
//! of the form at fault and a message saying what was expected; nothing panics.
//!
//! Checked through the library (`parse_program`, `from_json`) and through the built binary
//! (exit code 2, the message on stderr). The last test mutates every example file a few
//! thousand times, deterministically, and requires the front end (and, for small programs,
//! the interpreter) never to panic.

use std::path::PathBuf;
use std::process::{Command, Output};
use tessera::fuzz::mutate::{self, Mutation};
use tessera::seq::value::{from_json, random_value};
use tessera::seq::{interp, parse_program, Program, SeqType};
use tessera::util::diag::{Diagnostic, Pos};
use tessera::util::rng::Rng;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse(text: &str) -> Result<Program, Diagnostic> {
    parse_program("bad.seq", "bad", text)
}

/// Asserts that `text` fails at `line:col` with a message holding every one of `words`.
#[track_caller]
fn fails_at(text: &str, line: u32, col: u32, words: &[&str]) {
    let e = match parse(text) {
        Ok(_) => panic!("accepted a broken program:\n{text}"),
        Err(e) => e,
    };
    assert_eq!(e.file, "bad.seq");
    assert_eq!(e.pos, Some(Pos { line, col }), "{e}\n{text}");
    for w in words {
        assert!(e.message.contains(w), "`{w}` not in: {e}");
    }
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("bad.seq:{line}:{col}: error: ")),
        "{shown}"
    );
}

/// Asserts that `text` fails with a whole-file error holding `words`.
#[track_caller]
fn fails_whole(text: &str, words: &[&str]) {
    let e = parse(text).expect_err("a broken program was accepted");
    assert_eq!(e.pos, None, "{e}");
    for w in words {
        assert!(e.message.contains(w), "`{w}` not in: {e}");
    }
}

const I4: &str = "(input I (seq 4 uint8))\n";

// ---------------------------------------------------------------------------------------
// Syntax

#[test]
fn unbalanced_parentheses() {
    fails_at(
        "(input I (seq 4 uint8))\n(output (map 4 abs I)",
        2,
        1,
        &["unbalanced", "never closed"],
    );
    fails_at(
        "(input I (seq 4 uint8)))\n(output I)",
        1,
        24,
        &["unbalanced", "closes nothing"],
    );
    // The culprit is the parenthesis left open, not the last one opened.
    fails_at(
        "(input I (seq 4 uint8))\n\n(output\n  (map 4 (fn (x) (abs x) I))",
        3,
        1,
        &["never closed"],
    );
    // A `)` inside a comment does not count.
    assert!(parse("(input I (seq 4 uint8)) ; )\n(output I)").is_ok());
    fails_at(
        "(input I (seq 4 uint8)) ; (\n(output I))",
        2,
        11,
        &["closes nothing"],
    );
}

#[test]
fn junk_at_top_level() {
    fails_at(
        "(input I (seq 4 uint8))\nhello\n(output I)",
        2,
        1,
        &["expected a top-level form", "`hello`"],
    );
    fails_at(
        "(input I (seq 4 uint8))\n(frobnicate 1)\n(output I)",
        2,
        1,
        &["top-level form", "(frobnicate 1)"],
    );
    fails_at(
        "()\n(input I (seq 4 uint8))\n(output I)",
        1,
        1,
        &["top-level form"],
    );
    fails_at(
        "(input I (seq 4 uint8))\n(output I)\n(output I)",
        3,
        1,
        &["one output", "second"],
    );
    fails_at(
        "(input I (seq 4 uint8))\n(output \"x\")",
        2,
        9,
        &["no strings"],
    );
    fails_at("(input I)\n(output I)", 1, 1, &["(input NAME TYPE)"]);
    fails_at(
        "(input I (seq 4 uint8))\n(let a)\n(output I)",
        2,
        1,
        &["(let NAME EXPR)"],
    );
    fails_at(
        "(def f x (abs x))\n(input I (seq 4 uint8))\n(output I)",
        1,
        8,
        &["parameter list"],
    );
    fails_at(
        "(input I (seq 4 uint8))\n(output ())",
        2,
        9,
        &["expected an expression", "()"],
    );
    fails_at(
        "(input I (seq 4 uint8))\n(output (let ((x)) x))",
        2,
        15,
        &["binding"],
    );
}

#[test]
fn missing_output_or_input() {
    fails_whole(I4, &["no output", "(output EXPR)"]);
    fails_whole(
        "(output (const uint8 1))",
        &["no input", "(input NAME TYPE)"],
    );
    fails_whole("", &["no output"]);
    fails_whole("; only a comment\n", &["no output"]);
}

#[test]
fn unknown_operators_and_types() {
    fails_at(
        &format!("{I4}(output (frob 4 I))"),
        2,
        10,
        &["unknown operator `frob`"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (frob x)) I))"),
        2,
        25,
        &["unknown operator `frob`"],
    );
    fails_at(
        "(input I (seq 4 uint9))\n(output I)",
        1,
        17,
        &["unknown type `uint9`"],
    );
    fails_at(
        "(input I (sequence 4 uint8))\n(output I)",
        1,
        10,
        &["expected a type"],
    );
    fails_at(
        &format!("{I4}(output (map 4 frob I))"),
        2,
        16,
        &["expected a function", "`frob`"],
    );
}

// ---------------------------------------------------------------------------------------
// Arity and types

#[test]
fn wrong_number_of_inputs_or_parameters() {
    fails_at(
        &format!("{I4}(output (up_1d 4 I I))"),
        2,
        9,
        &["`up_1d` takes 1 input(s), found 2"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (add x x x)) I))"),
        2,
        24,
        &["`add` takes 1 or 2 input(s), found 3"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (if x x)) I))"),
        2,
        24,
        &["`if` takes 1 or 3 input(s), found 2"],
    );
    fails_at(
        &format!("{I4}(output (map2 4 add I))"),
        2,
        9,
        &["`map2` takes 2 input(s), found 1"],
    );
    fails_at(
        &format!("{I4}(output (map 4 abs))"),
        2,
        9,
        &["is a function here, not a value"],
    );
    fails_at(
        &format!("{I4}(output (partition 2))"),
        2,
        9,
        &["needs its parameters"],
    );
    fails_at(
        &format!("(def f (x y) (add x y))\n{I4}(output (map 4 f I))"),
        3,
        16,
        &["`f` takes 2 argument(s), found 1"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x y) (add x y)) I))"),
        2,
        16,
        &["takes 2 argument(s), but is given 1"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (up_1d 2 I) I))"),
        2,
        16,
        &["used as a function", "must not name its inputs"],
    );
    fails_at(
        &format!("{I4}(output (map 4 up_1d I))"),
        2,
        16,
        &["needs its parameters"],
    );
}

#[test]
fn reducers_must_be_associative_and_commutative() {
    // The interpreter folds left to right, the hardware as a tree: `(reduce 4 sub I)` passed
    // `check` and then failed `verify --all` at s = 2 and 4.
    let why = "must be associative and commutative";
    fails_at(
        &format!("{I4}(output (reduce 4 sub I))"),
        2,
        19,
        &["reduce 4", why, "found `sub`", "accepted: add"],
    );
    fails_at(
        "(input I (seq 4 (seq 2 uint8)))\n(output (reduce 4 (map 2 sub) I))",
        2,
        19,
        &[why, "found `sub`"],
    );
    fails_at(
        &format!("{I4}(output (reduce 4 lsl I))"),
        2,
        19,
        &[why, "`lsl` on uint8"],
    );
    fails_at(
        "(input I (seq 4 int8))\n(output (reduce 4 (fn (p) (add (fst p) (fst p))) I))",
        2,
        19,
        &[why, "other operands"],
    );
    fails_at(
        "(input I (seq 4 int8))\n(output (reduce 4 (fn (p) (if (lt (fst p) (snd p)) (fst p) (fst p))) I))",
        2,
        19,
        &[why, "not the min or max"],
    );
    fails_at(
        &format!("{I4}(output (reduce 4 fst I))"),
        2,
        19,
        &[why, "`fst` on uint8"],
    );
    // every accepted form
    for (ty, f) in [
        ("uint8", "add"),
        ("int16", "mul"),
        ("bit", "and"),
        ("bit", "or"),
        ("bit", "eq"),
        ("int8", "(fn (p) (add (snd p) (fst p)))"),
        ("int8", "(fn (p) (if (lt (fst p) (snd p)) (fst p) (snd p)))"),
        ("int8", "(fn (p) (if (lt (fst p) (snd p)) (snd p) (fst p)))"),
        (
            "uint8",
            "(fn (p) (if (lt (snd p) (fst p)) (fst p) (snd p)))",
        ),
        ("(seq 2 uint8)", "(map 2 add)"),
        (
            "(seq 2 (seq 3 int8))",
            "(map 2 (map 3 (fn (p) (if (lt (snd p) (fst p)) (snd p) (fst p)))))",
        ),
    ] {
        let text = format!("(input I (seq 4 {ty}))\n(output (reduce 4 {f} I))");
        if let Err(e) = parse(&text) {
            panic!("{e}\n{text}");
        }
    }
}

#[test]
fn type_mismatches() {
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (add x (const int8 1))) I))"),
        2,
        24,
        &["add", "(atuple uint8 int8)"],
    );
    fails_at(
        "(input I (seq 4 uint8)) (input J (seq 3 uint8))\n(output (map2 4 add I J))",
        2,
        9,
        &["map2 4", "(seq 4 _)", "(seq 3 uint8)"],
    );
    fails_at(
        &format!("{I4}(output (reduce 4 lt I))"),
        2,
        9,
        &["reduce 4", "element type uint8", "returns bit"],
    );
    fails_at(
        "(input I (seq 4 uint8)) (input J (seq 4 int8))\n(output (stuple I J))",
        2,
        9,
        &["stuple", "one type"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (if x x x)) I))"),
        2,
        24,
        &["if: expected (atuple bit (atuple t t))"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (div x (const uint8 2))) I))"),
        2,
        24,
        &["div", "fixp1_7"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (lsl x (const uint16 2))) I))"),
        2,
        24,
        &["lsl", "(atuple t uint8)"],
    );
    fails_at(
        &format!("{I4}(output (map 4 not I))"),
        2,
        16,
        &["not: expected bit, found uint8"],
    );
    fails_at(
        &format!("{I4}(output (down_1d 4 4 I))"),
        2,
        9,
        &["index 4 is out of range"],
    );
    fails_at(&format!("{I4}(output (shift 4 5 I))"), 2, 9, &["shift 4 5"]);
    fails_at(
        &format!("{I4}(output (up_1d 3 I))"),
        2,
        9,
        &["up_1d 3", "(seq 1 _)"],
    );
    fails_at(
        "(input I (seq 4 (seq 3 uint8)))\n(output (stuple_to_seq 3 I))",
        2,
        9,
        &["stuple_to_seq 3", "(seq 1 _)", "(seq 4 (seq 3 uint8))"],
    );
    fails_at(
        "(input I (seq 16 uint8))\n(output (stencil_1d 16 17 I))",
        2,
        9,
        &["window is longer"],
    );
    fails_at(
        &format!("{I4}(output (shift 4 1 (init (1 2)) I))"),
        2,
        26,
        &["literal of type uint8"],
    );
    fails_at(
        &format!("{I4}(output (const (seq 3 uint8) (1 2)))"),
        2,
        30,
        &["literal of type (seq 3 uint8)"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (add x 5)) I))"),
        2,
        31,
        &["bare number", "(const TYPE 5)"],
    );
    fails_at(
        &format!("{I4}(output (fn (x) x))"),
        2,
        9,
        &["function is not a value"],
    );
    fails_at(
        &format!("{I4}(output (counter 4 1 bit))"),
        2,
        22,
        &["counter counts in an integer type"],
    );
}

#[test]
fn zero_lengths() {
    fails_at(
        "(input I (seq 0 uint8))\n(output I)",
        1,
        15,
        &["at least 1", "zero-length"],
    );
    fails_at(
        "(input I (stuple 0 uint8))\n(output I)",
        1,
        18,
        &["zero-length"],
    );
    fails_at(
        &format!("{I4}(output (partition 0 4 I))"),
        2,
        20,
        &["at least 1"],
    );
    fails_at(
        &format!("{I4}(output (map 0 abs I))"),
        2,
        14,
        &["at least 1"],
    );
    fails_at(
        &format!("{I4}(output (counter 0 1 uint8))"),
        2,
        18,
        &["at least 1"],
    );
    fails_at(
        "(input I (seq 1 uint8))\n(output (up_1d 0 I))",
        2,
        16,
        &["at least 1"],
    );
}

#[test]
fn partitions_whose_sizes_do_not_multiply() {
    fails_at(
        "(input I (seq 6 uint8))\n(output (partition 4 2 I))",
        2,
        9,
        &["partition 4 2", "(seq 8 _)", "(seq 6 uint8)"],
    );
    fails_at(
        "(input I (seq 4 (seq 3 uint8)))\n(output (unpartition 4 2 I))",
        2,
        9,
        &["unpartition 4 2", "(seq 4 (seq 2 _))"],
    );
    fails_at(
        "(input I (seq 4 (seq 3 uint8)))\n(output (transpose 3 4 I))",
        2,
        9,
        &["transpose 3 4"],
    );
    fails_at(
        "(input I (seq 15 uint8))\n(output (stencil_2d 4 4 3 3 I))",
        2,
        9,
        &["stencil_2d 4 4 3 3", "(seq 16 _)"],
    );
}

#[test]
fn non_atoms_into_atom_operators() {
    fails_at(
        &format!("{I4}(output (abs I))"),
        2,
        9,
        &["abs: needs an atom", "(seq 4 uint8)"],
    );
    fails_at(
        &format!("{I4}(output (add I I))"),
        2,
        9,
        &["add: operand 1 must be an atom", "(seq 4 uint8)", "map it"],
    );
    fails_at(
        "(input I (atuple (seq 2 uint8) bit))\n(output I)",
        1,
        18,
        &["an atuple holds atoms"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (fst x)) I))"),
        2,
        24,
        &["fst: expected an atom tuple"],
    );
}

// ---------------------------------------------------------------------------------------
// Names

#[test]
fn undefined_names() {
    fails_at(
        &format!("{I4}(output (map 4 abs J))"),
        2,
        20,
        &["undefined name `J`"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (abs y)) I))"),
        2,
        29,
        &["undefined name `y`"],
    );
    fails_at(
        &format!("{I4}(output (f I))"),
        2,
        10,
        &["unknown operator `f`"],
    );
    // A local let is visible only in its body.
    fails_at(
        &format!("{I4}(output (map 4 add (map2 4 atuple (let ((a I)) a) a)))"),
        2,
        51,
        &["undefined name `a`"],
    );
}

#[test]
fn cycles() {
    fails_at(
        &format!("{I4}(let a (map 4 abs b))\n(let b (map 4 abs a))\n(output a)"),
        3,
        19,
        &["cycle", "a -> b -> a"],
    );
    fails_at(
        &format!("{I4}(let a (map 4 abs a))\n(output a)"),
        2,
        19,
        &["cycle", "a -> a"],
    );
    fails_at(
        &format!("(def f (x) (g x))\n(def g (x) (f x))\n{I4}(output (f I))"),
        2,
        12,
        &["cycle", "f -> g -> f"],
    );
    fails_at(
        &format!("(def f (x) (map 4 f x))\n{I4}(output (f I))"),
        1,
        19,
        &["cycle", "f -> f"],
    );
    // An unused let is checked too.
    fails_at(
        &format!("{I4}(let a (abs b))\n(let b (abs a))\n(output I)"),
        3,
        13,
        &["cycle"],
    );
}

#[test]
fn closed_function_bodies() {
    fails_at(
        &format!("{I4}(let k (const uint8 3))\n(output (map 4 (fn (x) (add x k)) I))"),
        3,
        31,
        &["`k` is defined outside this function body", "closed"],
    );
    fails_at(
        &format!("(def f (x) (add x I))\n{I4}(output (map 4 f I))"),
        1,
        19,
        &["`I` is defined outside this def body", "closed"],
    );
    fails_at(
        &format!("{I4}(output (map 4 (fn (x) (let ((y x)) (map 4 abs I))) I))"),
        2,
        48,
        &["closed"],
    );
}

#[test]
fn duplicate_names() {
    fails_at(
        "(input I (seq 4 uint8))\n(input I (seq 4 uint8))\n(output I)",
        2,
        8,
        &["`I` is defined twice"],
    );
    fails_at(
        &format!("{I4}(def I (x) x)\n(output I)"),
        2,
        6,
        &["`I` is defined twice"],
    );
    fails_at(
        &format!("{I4}(let a I)\n(let a I)\n(output I)"),
        3,
        6,
        &["`a` is defined twice"],
    );
    fails_at(
        &format!("{I4}(output (map2 4 (fn (x x) (add x x)) I I))"),
        2,
        24,
        &["parameter `x` appears twice"],
    );
    fails_at(
        &format!("{I4}(let map (map 4 abs I))\n(output I)"),
        2,
        6,
        &["`map` is an operator or keyword"],
    );
    fails_at(
        &format!("{I4}(let uint8 I)\n(output I)"),
        2,
        6,
        &["keyword"],
    );
    fails_at(
        &format!("{I4}(let 12 I)\n(output I)"),
        2,
        6,
        &["expected a name"],
    );
}

#[test]
fn out_of_range_literals() {
    // `(output (const T V))`: V starts at column 17 + len(T).
    let lit = |t: &str, v: &str, words: &[&str]| {
        let text = format!("{I4}(output (const {t} {v}))");
        fails_at(&text, 2, 17 + t.len() as u32, words);
    };
    lit("uint8", "256", &["256 does not fit uint8"]);
    lit("uint8", "-1", &["-1 does not fit uint8"]);
    lit("int8", "128", &["128 does not fit int8"]);
    lit("int8", "-129", &["-129 does not fit int8"]);
    lit("uint16", "65536", &["does not fit uint16"]);
    lit("int16", "-32769", &["does not fit int16"]);
    lit("uint32", "4294967296", &["does not fit uint32"]);
    lit("int32", "2147483648", &["does not fit int32"]);
    lit("bit", "2", &["expected a bit"]);
    lit("uint8", "1.5", &["expected an integer of type uint8"]);
    lit(
        "uint8",
        "99999999999999999999999999999999999999999",
        &["expected an integer"],
    );
    for bad in [
        "2",
        "1/3",
        "0.3",
        "-1/2",
        "1/0",
        "256/128",
        "340282366920938463463374607431768211455/1",
        "340282366920938463463374607431768211455.5",
        "99999999999999999999999999999999999999999.5",
    ] {
        lit("fixp1_7", bad, &["expected a fixp1_7 value", bad]);
    }
    fails_at(
        &format!("{I4}(output (counter 4 256 uint8))"),
        2,
        20,
        &["256 does not fit uint8"],
    );
    fails_at(
        "(input I (seq 99999999999999999999999 uint8))\n(output I)",
        1,
        15,
        &[
            "the length 99999999999999999999999 is too large",
            "at most 268435456",
        ],
    );
    fails_at(
        "(input I (seq 268435457 uint8))\n(output I)",
        1,
        15,
        &["the length 268435457 is too large"],
    );
    fails_at(
        "(input I (seq 4x uint8))\n(output I)",
        1,
        15,
        &["expected a whole number for the length, found `4x`"],
    );
    fails_at(
        "(input I (seq 65536 (seq 65536 uint8)))\n(output I)",
        1,
        10,
        &["more than 268435456 atoms"],
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // Runs on a test thread (2 MB of stack): a stack overflow would abort the whole binary.
    let nest = |d: usize| format!("{I4}(output {}I{})", "(abs ".repeat(d), ")".repeat(d));
    // The 201st open parenthesis: `(output` is the first, then one `(abs ` per 5 columns.
    fails_at(&nest(100_000), 2, 1004, &["parentheses nest more than 200"]);
    fails_at(&nest(200), 2, 1004, &["nest more than 200"]);
    // 199 levels are read, and checked (abs of a sequence is a type error at the core).
    fails_at(&nest(199), 2, 999, &["abs: needs an atom"]);
    let parens = format!("{I4}(output {}I{})", "(".repeat(30_000), ")".repeat(30_000));
    fails_at(&parens, 2, 208, &["nest more than 200"]); // 9 + 199
                                                        // A parenthesis in a comment does not count.
    let commented = format!("; {}\n{I4}(output I)", "(".repeat(1000));
    assert!(parse(&commented).is_ok());

    // Chains of lets, declared last first, so that checking the first recurses through all.
    let chain = |n: usize| {
        let mut t = format!("{I4}(output a{n})\n");
        for k in (1..=n).rev() {
            t.push_str(&format!("(let a{k} (map 4 abs a{}))\n", k - 1));
        }
        t + "(let a0 I)\n"
    };
    assert!(parse(&chain(150)).is_ok());
    let e = parse(&chain(5000)).expect_err("a 5000-deep chain is refused");
    assert!(e.message.contains("nest more than 400"), "{e}");
    assert!(e.pos.is_some());
    // The same through defs.
    let defs = |n: usize| {
        let mut t = format!("{I4}(output (f{n} I))\n");
        for k in (1..=n).rev() {
            t.push_str(&format!("(def f{k} (x) (f{} x))\n", k - 1));
        }
        t + "(def f0 (x) (map 4 abs x))\n"
    };
    assert!(parse(&defs(300)).is_ok());
    let e = parse(&defs(5000)).expect_err("a 5000-deep def chain is refused");
    assert!(e.message.contains("nest more than 400"), "{e}");
}

// ---------------------------------------------------------------------------------------
// JSON inputs

#[test]
fn bad_json_values_through_the_library() {
    let t = SeqType::seq(3, tessera::seq::ScalarType::UInt8.into());
    let j = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
    let e = from_json(&j("[1, 2]"), &t, "I").unwrap_err();
    assert!(
        e.contains("I: expected a value of type (seq 3 uint8)"),
        "{e}"
    );
    assert!(e.contains("2 elements"), "{e}");
    let e = from_json(&j("[1, 256, 3]"), &t, "I").unwrap_err();
    assert!(
        e.starts_with("I[1]: ") && e.contains("256 does not fit uint8"),
        "{e}"
    );
    let e = from_json(&j("[1, -1, 3]"), &t, "I").unwrap_err();
    assert!(e.starts_with("I[1]: "), "{e}");
    let e = from_json(&j("[1, 2.5, 3]"), &t, "I").unwrap_err();
    assert!(e.starts_with("I[1]: "), "{e}");
    let e = from_json(&j("[1, [2], 3]"), &t, "I").unwrap_err();
    assert!(e.starts_with("I[1]: "), "{e}");
    let e = from_json(&j("{\"a\": 1}"), &t, "I").unwrap_err();
    assert!(e.starts_with("I: expected a value of type"), "{e}");
    let e = from_json(&j("[1, true, 3]"), &t, "I").unwrap_err();
    assert!(e.starts_with("I[1]: "), "{e}");
    // Fixed point: exact multiples of 1/128 below 2 only.
    let f = SeqType::Scalar(tessera::seq::ScalarType::FixP1_7);
    assert!(from_json(&j("0.0625"), &f, "c").is_ok());
    assert!(from_json(&j("0.1"), &f, "c").is_err());
    assert!(from_json(&j("2"), &f, "c").is_err());
    assert!(from_json(&j("1e30"), &f, "c").is_err());
}

// ---------------------------------------------------------------------------------------
// Through the binary

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("run tessera")
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-seq-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Asserts a user error: exit code 2, nothing on stdout, a message on stderr that names
/// `place` (file:line:col) and holds `words`, and no panic.
#[track_caller]
fn cli_fails(out: &Output, place: &str, words: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&format!("{place}: error: ")),
        "`{place}` not in: {err}"
    );
    for w in words {
        assert!(err.contains(w), "`{w}` not in: {err}");
    }
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn cli_reports_program_errors_with_their_place() {
    let cases: [(&str, &str, &str, &[&str]); 6] = [
        (
            "unclosed.seq",
            "(input I (seq 4 uint8))\n(output (map 4 abs I)",
            "2:1",
            &["never closed"],
        ),
        (
            "unknown.seq",
            "(input I (seq 4 uint8))\n(output (frob 4 I))",
            "2:10",
            &["unknown operator `frob`"],
        ),
        (
            "types.seq",
            "(input I (seq 4 uint8))\n\n  (output (abs I))",
            "3:11",
            &["needs an atom"],
        ),
        (
            "cycle.seq",
            "(input I (seq 4 uint8))\n(let a (abs b))\n(let b (abs a))\n(output a)",
            "3:13",
            &["cycle"],
        ),
        (
            "range.seq",
            "(input I (seq 4 uint8))\n(output (const uint8 300))",
            "2:22",
            &["300 does not fit uint8"],
        ),
        (
            "fixp.seq",
            "(input I (seq 4 uint8))\n(output (const fixp1_7 340282366920938463463374607431768211455/1))",
            "2:24",
            &["fixp1_7"],
        ),
    ];
    for (name, text, at, words) in cases {
        let path = scratch(name, text);
        let p = path.to_str().unwrap();
        for cmd in ["check", "eval"] {
            cli_fails(&tessera(&[cmd, p]), &format!("{p}:{at}"), words);
        }
    }
    let path = scratch("noout.seq", "(input I (seq 4 uint8))");
    let p = path.to_str().unwrap();
    cli_fails(&tessera(&["check", p]), p, &["no output"]);
}

#[test]
fn cli_reports_missing_files_and_bad_arguments() {
    let missing = root().join("tests/data/seq/does_not_exist.seq");
    let m = missing.to_str().unwrap();
    cli_fails(&tessera(&["check", m]), m, &["cannot read"]);
    let out = tessera(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    let out = tessera(&["eval", "x.seq", "--random", "not-a-number"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cli_reports_bad_json_inputs() {
    let prog = root().join("examples/conv2d.seq");
    let prog = prog.to_str().unwrap();
    let two = scratch(
        "two.seq",
        "(input A (seq 2 uint8)) (input B (seq 2 uint8))\n(output (map2 2 add A B))",
    );
    let two = two.to_str().unwrap();
    let cases: [(&str, &str, &str, String, &[&str]); 8] = [
        (
            prog,
            "syntax.json",
            "[1, 2,\n 3,, 4]",
            ":2:4".into(),
            &["invalid JSON"],
        ),
        (
            prog,
            "short.json",
            "[1, 2, 3]",
            String::new(),
            &["I: expected a value of type (seq 16 uint8)"],
        ),
        (
            prog,
            "range.json",
            "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,300]",
            String::new(),
            &["I[15]", "300 does not fit uint8"],
        ),
        (
            prog,
            "name.json",
            "{\"I\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16], \"J\": 1}",
            String::new(),
            &["`J` is not an input of program conv2d"],
        ),
        (
            two,
            "missing.json",
            "{\"A\": [1, 2]}",
            String::new(),
            &["the input `B` is missing"],
        ),
        (
            two,
            "bare.json",
            "[1, 2]",
            String::new(),
            &["expected an object with the inputs A, B"],
        ),
        (
            prog,
            "string.json",
            "\"hello\"",
            String::new(),
            &["I: expected a value of type"],
        ),
        (prog, "empty.json", "", ":1:1".into(), &["invalid JSON"]),
    ];
    for (p, name, json, at, words) in cases {
        let input = scratch(name, json);
        let i = input.to_str().unwrap();
        cli_fails(
            &tessera(&["eval", p, "--input", i]),
            &format!("{i}{at}"),
            words,
        );
    }
}

// ---------------------------------------------------------------------------------------
// No-panic fuzzing

/// Every .seq file under examples/ and tests/data/seq/.
fn example_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("examples"), root().join("tests/data/seq")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "seq") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Largest type of any node, so that only programs with small values are interpreted.
fn largest_value(p: &Program) -> u64 {
    p.reachable()
        .into_iter()
        .map(|id| p.ty(id).atoms())
        .max()
        .unwrap_or(0)
}

#[test]
fn mutated_examples_never_panic() {
    let files = example_files();
    assert!(
        files.len() >= 20,
        "found only {} example files",
        files.len()
    );
    let mut rng = Rng::new(0x5eed);
    let (mut total, mut accepted, mut evaluated) = (0, 0, 0);
    let per_file = 4000 / files.len() + 1;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        assert_eq!(mutate::apply(&text, &[], &[]), text);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for round in 0..per_file {
            let edits: Vec<Mutation> = (0..rng.range(1, 3))
                .map(|_| Mutation {
                    kind: rng.range(0, u64::from(mutate::KINDS) - 1) as u8,
                    at: rng.next_u64(),
                    pick: rng.next_u64(),
                })
                .collect();
            let mutated = mutate::apply(&text, &edits, &[]);
            let seed = rng.next_u64();
            total += 1;
            let result = std::panic::catch_unwind(|| {
                let mut outcome = (false, false);
                if let Ok(p) = parse_program(&name, "fuzz", &mutated) {
                    outcome.0 = true;
                    if largest_value(&p) <= 4096 {
                        let mut r = Rng::new(seed);
                        let inputs: Vec<_> = p
                            .inputs
                            .iter()
                            .map(|d| random_value(&d.ty, &mut r))
                            .collect();
                        interp::eval(&p, &inputs).expect("inputs of the declared types");
                        outcome.1 = true;
                    }
                }
                outcome
            });
            match result {
                Ok((a, e)) => {
                    accepted += usize::from(a);
                    evaluated += usize::from(e);
                }
                Err(_) => {
                    let kept = scratch(&format!("panic_{round}_{name}"), &mutated);
                    panic!(
                        "mutation {round} of {} panicked; the text is in {}",
                        path.display(),
                        kept.display()
                    );
                }
            }
        }
    }
    // The mutations must leave some programs valid and break most of them.
    assert!(total >= 4000);
    assert!(accepted > total / 50, "only {accepted} of {total} accepted");
    assert!(accepted < total, "every mutation was accepted");
    assert!(evaluated > 0);
}

/// An atom operator written with its operands apart (`(lsr s 2)`) tuples them for the user:
/// an operand that is a sequence is that operator's error, named as written, with the fix.
#[test]
fn a_sequence_operand_of_an_atom_operator_names_the_operator() {
    fails_at(
        &format!("{I4}(output (map 4 (fn (s) (lsr s (const uint8 2))) (partition 4 1 I)))"),
        2,
        24,
        &[
            "lsr: operand 1 must be an atom",
            "found (seq 1 uint8)",
            "map it",
        ],
    );
}
