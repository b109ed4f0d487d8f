//! Hand-computed tests of every operator of the sequence language in the reference
//! interpreter (docs/language.md §4-§5).
//!
//! Each test is a tiny program text run through `parse_program` and `interp::eval`; the
//! expected values are worked out by hand in the comments. Outputs are compared in the text
//! form (`[a, b]` sequences, `<a, b>` seq-tuples, `(a, b)` atom tuples, `_` don't-care).
//! Every program also runs in the fast evaluator (`seq::fast`), which must print the same
//! (after writing a don't-care atom tuple as a pair of don't-cares, as it does).

use tessera::seq::value::{format_value, from_json};
use tessera::seq::{fast, interp, parse_program, Value};

/// Runs `text` on inputs given as a JSON array (one element per input) and prints the output.
fn run(text: &str, inputs: &str) -> String {
    let p = parse_program("t.seq", "t", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let doc: serde_json::Value = serde_json::from_str(inputs).expect("test inputs are JSON");
    let docs = doc.as_array().expect("an array of inputs");
    assert_eq!(docs.len(), p.inputs.len(), "number of inputs");
    let values: Vec<Value> = p
        .inputs
        .iter()
        .zip(docs)
        .map(|(d, j)| from_json(j, &d.ty, &d.name).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let out = interp::eval(&p, &values).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let quick = fast::eval(&p, &values).unwrap_or_else(|e| panic!("fast: {e}\n{text}"));
    let t = p.output_type();
    assert_eq!(
        format_value(&interp::expand_undef(&out, t), t),
        format_value(&quick, t),
        "the fast evaluator differs\n{text}"
    );
    format_value(&out, t)
}

/// Evaluates an expression that needs no input (constants only).
fn val(expr: &str) -> String {
    run(&format!("(input Unused bit)\n(output {expr})"), "[0]")
}

/// `(OP (const T A) (const T B))`.
fn bin(op: &str, t: &str, a: &str, b: &str) -> String {
    val(&format!("({op} (const {t} {a}) (const {t} {b}))"))
}

/// `(OP (const T X) (const uint8 S))`: the shifts.
fn shift_op(op: &str, t: &str, x: &str, s: u32) -> String {
    val(&format!("({op} (const {t} {x}) (const uint8 {s}))"))
}

/// `(div (const T X) (const fixp1_7 C))`.
fn div(t: &str, x: &str, c: &str) -> String {
    val(&format!("(div (const {t} {x}) (const fixp1_7 {c}))"))
}

// ---------------------------------------------------------------------------------------
// Atom operators

#[test]
fn abs_signed_unsigned_and_the_minimum() {
    assert_eq!(val("(abs (const int8 -5))"), "5");
    assert_eq!(val("(abs (const int8 127))"), "127");
    assert_eq!(val("(abs (const int8 0))"), "0");
    // |-128| = 128 does not fit int8: it wraps back to -128.
    assert_eq!(val("(abs (const int8 -128))"), "-128");
    assert_eq!(val("(abs (const int8 -127))"), "127");
    assert_eq!(val("(abs (const int16 -32768))"), "-32768");
    assert_eq!(val("(abs (const int16 -300))"), "300");
    assert_eq!(val("(abs (const int32 -2147483648))"), "-2147483648");
    assert_eq!(val("(abs (const int32 -7))"), "7");
    // Unsigned: the identity, even with the top bit set.
    assert_eq!(val("(abs (const uint8 200))"), "200");
    assert_eq!(val("(abs (const uint16 65535))"), "65535");
    assert_eq!(val("(abs (const uint32 4294967295))"), "4294967295");
}

#[test]
fn boolean_operators() {
    assert_eq!(val("(not (const bit 0))"), "1");
    assert_eq!(val("(not (const bit 1))"), "0");
    for (a, b, and, or) in [(0, 0, 0, 0), (0, 1, 0, 1), (1, 0, 0, 1), (1, 1, 1, 1)] {
        assert_eq!(
            bin("and", "bit", &a.to_string(), &b.to_string()),
            and.to_string()
        );
        assert_eq!(
            bin("or", "bit", &a.to_string(), &b.to_string()),
            or.to_string()
        );
    }
}

#[test]
fn add_wraps_at_every_width() {
    assert_eq!(bin("add", "uint8", "200", "100"), "44"); // 300 - 256
    assert_eq!(bin("add", "uint8", "255", "1"), "0");
    assert_eq!(bin("add", "int8", "127", "1"), "-128");
    assert_eq!(bin("add", "int8", "-128", "-1"), "127");
    assert_eq!(bin("add", "int8", "-5", "3"), "-2");
    assert_eq!(bin("add", "uint16", "65535", "2"), "1");
    assert_eq!(bin("add", "int16", "32767", "1"), "-32768");
    assert_eq!(bin("add", "uint32", "4294967295", "2"), "1");
    assert_eq!(bin("add", "int32", "2147483647", "1"), "-2147483648");
    // The explicit atom tuple form is the same operator.
    assert_eq!(
        val("(add (atuple (const uint8 250) (const uint8 10)))"),
        "4"
    );
}

#[test]
fn sub_is_first_minus_second_and_wraps() {
    assert_eq!(bin("sub", "uint8", "10", "3"), "7");
    assert_eq!(bin("sub", "uint8", "3", "10"), "249"); // 256 - 7
    assert_eq!(bin("sub", "int8", "3", "10"), "-7");
    assert_eq!(bin("sub", "int8", "-128", "1"), "127");
    assert_eq!(bin("sub", "uint16", "0", "1"), "65535");
    assert_eq!(bin("sub", "int16", "-32768", "1"), "32767");
    assert_eq!(bin("sub", "uint32", "0", "1"), "4294967295");
    assert_eq!(bin("sub", "int32", "-2147483648", "1"), "2147483647");
}

#[test]
fn mul_wraps_at_every_width() {
    assert_eq!(bin("mul", "uint8", "15", "17"), "255");
    assert_eq!(bin("mul", "uint8", "16", "16"), "0"); // 256
    assert_eq!(bin("mul", "uint8", "20", "13"), "4"); // 260 - 256
    assert_eq!(bin("mul", "int8", "12", "11"), "-124"); // 132 - 256
    assert_eq!(bin("mul", "int8", "-1", "-128"), "-128"); // 128 wraps
    assert_eq!(bin("mul", "int8", "-3", "5"), "-15");
    assert_eq!(bin("mul", "uint16", "300", "300"), "24464"); // 90000 - 65536
    assert_eq!(bin("mul", "int16", "-200", "200"), "25536"); // -40000 + 65536
    assert_eq!(bin("mul", "uint32", "65536", "65536"), "0");
    assert_eq!(bin("mul", "uint32", "65537", "65537"), "131073"); // 2^32 + 2^17 + 1
    assert_eq!(bin("mul", "int32", "-3", "5"), "-15");
    assert_eq!(bin("mul", "int32", "65536", "-32768"), "-2147483648"); // -2^31
}

#[test]
fn div_by_power_of_two_reciprocals() {
    // floor(x * c) with c = 1/16, 1/8, 1/4: x >> 4, x >> 3, x >> 2.
    assert_eq!(div("uint8", "200", "1/16"), "12"); // 12.5
    assert_eq!(div("uint8", "200", "1/8"), "25");
    assert_eq!(div("uint8", "203", "1/4"), "50"); // 50.75
    assert_eq!(div("uint8", "255", "0.0625"), "15"); // decimal literal of 1/16
    assert_eq!(div("uint32", "4294967295", "1/16"), "268435455");
    assert_eq!(div("uint32", "4294967295", "1/4"), "1073741823");
    assert_eq!(div("uint16", "65535", "1/8"), "8191");
    assert_eq!(div("uint8", "77", "1"), "77"); // c = 1
}

#[test]
fn div_by_odd_reciprocals_and_above_one() {
    // 3/128: floor(200 * 3 / 128) = floor(4.6875) = 4.
    assert_eq!(div("uint8", "200", "3/128"), "4");
    assert_eq!(div("uint8", "42", "3/128"), "0"); // 126/128
    assert_eq!(div("uint8", "43", "3/128"), "1"); // 129/128
                                                  // 1/128: x >> 7.
    assert_eq!(div("uint8", "255", "1/128"), "1");
    // 1.9921875 = 255/128: 100 -> 199.2 -> 199; 200 -> 398.4 -> 398 wraps to 142.
    assert_eq!(div("uint8", "100", "255/128"), "199");
    assert_eq!(div("uint8", "200", "255/128"), "142");
    assert_eq!(div("int8", "100", "255/128"), "-57"); // 199 - 256
    assert_eq!(div("uint32", "4294967295", "3/2"), "2147483646"); // 6442450942 mod 2^32
                                                                  // c = 0: always 0.
    assert_eq!(div("uint8", "255", "0"), "0");
}

#[test]
fn div_of_negative_rounds_toward_minus_infinity() {
    assert_eq!(div("int8", "-7", "1/4"), "-2"); // -1.75
    assert_eq!(div("int8", "-8", "1/4"), "-2");
    assert_eq!(div("int8", "-9", "1/4"), "-3"); // -2.25
    assert_eq!(div("int8", "-1", "1/16"), "-1"); // -0.0625
    assert_eq!(div("int8", "-128", "1/16"), "-8");
    assert_eq!(div("int8", "-100", "3/128"), "-3"); // -2.34
    assert_eq!(div("int16", "-32768", "1/8"), "-4096");
    assert_eq!(div("int32", "-2147483648", "1/2"), "-1073741824");
    assert_eq!(div("int32", "-5", "1/2"), "-3"); // -2.5
                                                 // -128 * 255/128 = -255, wraps to 1 in int8.
    assert_eq!(div("int8", "-128", "255/128"), "1");
}

#[test]
fn lsr_is_logical_and_gives_zero_from_the_width() {
    assert_eq!(shift_op("lsr", "uint8", "200", 3), "25");
    assert_eq!(shift_op("lsr", "uint8", "200", 0), "200");
    assert_eq!(shift_op("lsr", "uint8", "200", 7), "1");
    assert_eq!(shift_op("lsr", "uint8", "200", 8), "0");
    assert_eq!(shift_op("lsr", "uint8", "255", 255), "0");
    // Logical on signed types: zeros come in at the top.
    assert_eq!(shift_op("lsr", "int8", "-1", 1), "127");
    assert_eq!(shift_op("lsr", "int8", "-128", 7), "1");
    assert_eq!(shift_op("lsr", "int8", "-2", 0), "-2");
    assert_eq!(shift_op("lsr", "int8", "-1", 8), "0");
    assert_eq!(shift_op("lsr", "int16", "-2", 1), "32767");
    assert_eq!(shift_op("lsr", "uint16", "65535", 15), "1");
    assert_eq!(shift_op("lsr", "uint16", "65535", 16), "0");
    assert_eq!(shift_op("lsr", "int32", "-1", 31), "1");
    assert_eq!(shift_op("lsr", "int32", "-1", 32), "0");
    assert_eq!(shift_op("lsr", "uint32", "4294967295", 200), "0");
}

#[test]
fn lsl_wraps_and_gives_zero_from_the_width() {
    assert_eq!(shift_op("lsl", "uint8", "1", 7), "128");
    assert_eq!(shift_op("lsl", "uint8", "3", 7), "128"); // 384 - 256
    assert_eq!(shift_op("lsl", "uint8", "5", 0), "5");
    assert_eq!(shift_op("lsl", "uint8", "1", 8), "0");
    assert_eq!(shift_op("lsl", "uint8", "255", 100), "0");
    assert_eq!(shift_op("lsl", "int8", "1", 7), "-128");
    assert_eq!(shift_op("lsl", "int8", "-1", 1), "-2");
    assert_eq!(shift_op("lsl", "int8", "64", 1), "-128");
    assert_eq!(shift_op("lsl", "uint16", "1", 15), "32768");
    assert_eq!(shift_op("lsl", "uint16", "1", 16), "0");
    assert_eq!(shift_op("lsl", "int16", "3", 14), "-16384"); // 49152 - 65536
    assert_eq!(shift_op("lsl", "uint32", "5", 31), "2147483648");
    assert_eq!(shift_op("lsl", "uint32", "1", 32), "0");
    assert_eq!(shift_op("lsl", "int32", "1", 31), "-2147483648");
    assert_eq!(shift_op("lsl", "int32", "1", 40), "0");
}

#[test]
fn lt_signed_and_unsigned() {
    assert_eq!(bin("lt", "uint8", "100", "200"), "1");
    assert_eq!(bin("lt", "uint8", "200", "100"), "0");
    assert_eq!(bin("lt", "uint8", "7", "7"), "0");
    // The same bits as int8: 200 is -56.
    assert_eq!(bin("lt", "int8", "-56", "100"), "1");
    assert_eq!(bin("lt", "int8", "100", "-56"), "0");
    assert_eq!(bin("lt", "int8", "-128", "127"), "1");
    assert_eq!(bin("lt", "int8", "-1", "-1"), "0");
    assert_eq!(bin("lt", "uint16", "65535", "0"), "0");
    assert_eq!(bin("lt", "int16", "-1", "0"), "1");
    assert_eq!(bin("lt", "uint32", "4294967295", "0"), "0");
    assert_eq!(bin("lt", "uint32", "2147483648", "2147483649"), "1");
    assert_eq!(bin("lt", "int32", "-2147483648", "2147483647"), "1");
    assert_eq!(bin("lt", "int32", "-1", "0"), "1");
    assert_eq!(bin("lt", "bit", "0", "1"), "1");
    assert_eq!(bin("lt", "bit", "1", "0"), "0");
    assert_eq!(bin("lt", "fixp1_7", "1/4", "1/2"), "1");
    assert_eq!(bin("lt", "fixp1_7", "1.5", "1/2"), "0");
}

#[test]
fn eq_on_scalars_and_atom_tuples() {
    assert_eq!(bin("eq", "uint8", "5", "5"), "1");
    assert_eq!(bin("eq", "uint8", "5", "6"), "0");
    assert_eq!(bin("eq", "int8", "-1", "-1"), "1");
    assert_eq!(bin("eq", "int32", "-1", "2147483647"), "0");
    assert_eq!(bin("eq", "bit", "1", "1"), "1");
    assert_eq!(bin("eq", "(atuple uint8 bit)", "(1 0)", "(1 0)"), "1");
    assert_eq!(bin("eq", "(atuple uint8 bit)", "(1 0)", "(1 1)"), "0");
    assert_eq!(bin("eq", "(atuple uint8 bit)", "(2 0)", "(1 0)"), "0");
}

#[test]
fn if_selects_the_first_on_one() {
    assert_eq!(
        val("(if (const bit 1) (const int8 -3) (const int8 4))"),
        "-3"
    );
    assert_eq!(
        val("(if (const bit 0) (const int8 -3) (const int8 4))"),
        "4"
    );
    // The one-tuple form (atuple bit (atuple t t)), and atom-tuple branches.
    assert_eq!(
        val("(if (atuple (const bit 0) (atuple (const uint8 1) (const uint8 2))))"),
        "2"
    );
    assert_eq!(
        val("(if (const bit 1) (const (atuple uint8 bit) (7 1)) (const (atuple uint8 bit) (8 0)))"),
        "(7, 1)"
    );
}

#[test]
fn atuple_fst_snd() {
    assert_eq!(val("(atuple (const uint8 3) (const bit 1))"), "(3, 1)");
    assert_eq!(val("(tuple (const int8 -3) (const bit 0))"), "(-3, 0)");
    assert_eq!(val("(fst (const (atuple uint8 bit) (3 1)))"), "3");
    assert_eq!(val("(snd (const (atuple uint8 bit) (3 1)))"), "1");
    // Nested atom tuples.
    let t = "(const (atuple uint32 (atuple uint8 int8)) (9 (8 -7)))";
    assert_eq!(val(&format!("(snd (snd {t}))")), "-7");
    assert_eq!(val(&format!("(fst (snd {t}))")), "8");
    assert_eq!(val(&format!("(fst {t})")), "9");
}

// ---------------------------------------------------------------------------------------
// Generators

#[test]
fn const_of_every_shape() {
    assert_eq!(val("(const uint8 5)"), "5");
    assert_eq!(val("(const int8 -128)"), "-128");
    assert_eq!(val("(const fixp1_7 1/16)"), "0.0625");
    assert_eq!(val("(const fixp1_7 3/128)"), "0.0234375");
    assert_eq!(
        val("(const (seq 2 (seq 3 uint8)) ((0 1 0) (1 2 1)))"),
        "[[0, 1, 0], [1, 2, 1]]"
    );
    assert_eq!(val("(const (stuple 2 uint8) (4 5))"), "<4, 5>");
    assert_eq!(val("(const (seq 3 int8) (1 _ -1))"), "[1, _, -1]");
    assert_eq!(
        val("(const (seq 2 (seq 2 uint8)) (_ (1 2)))"),
        "[[_, _], [1, 2]]"
    );
}

#[test]
fn counter_counts_and_wraps() {
    assert_eq!(val("(counter 5 3 uint8)"), "[0, 3, 6, 9, 12]");
    assert_eq!(val("(counter 4 100 uint8)"), "[0, 100, 200, 44]"); // 300 - 256
    assert_eq!(val("(counter 3 -64 int8)"), "[0, -64, -128]");
    assert_eq!(val("(counter 4 -1 int8)"), "[0, -1, -2, -3]");
    assert_eq!(val("(counter 4 100 int8)"), "[0, 100, -56, 44]");
    assert_eq!(val("(counter 3 0 uint16)"), "[0, 0, 0]");
    assert_eq!(val("(counter 3 2147483648 uint32)"), "[0, 2147483648, 0]");
    assert_eq!(val("(counter 1 7 uint8)"), "[0]");
}

// ---------------------------------------------------------------------------------------
// Higher-order operators

#[test]
fn map_every_function_form() {
    let t = "(input I (seq 3 int8))";
    let i = "[[-1, -128, 5]]";
    assert_eq!(
        run(&format!("{t} (output (map 3 abs I))"), i),
        "[1, -128, 5]"
    );
    assert_eq!(
        run(
            &format!("{t} (output (map 3 (fn (x) (sub (const int8 0) x)) I))"),
            i
        ),
        "[1, -128, -5]"
    );
    assert_eq!(
        run(
            &format!("(def neg (x) (sub (const int8 0) x)) {t} (output (map 3 neg I))"),
            i
        ),
        "[1, -128, -5]"
    );
    // Nested: map over rows, the operator form without its input as the function.
    assert_eq!(
        run(
            "(input I (seq 2 (seq 2 int8))) (output (map 2 (map 2 abs) I))",
            "[[[-1, 2], [-3, -4]]]"
        ),
        "[[1, 2], [3, 4]]"
    );
}

#[test]
fn map2_keeps_operand_order() {
    let t = "(input A (seq 3 uint8)) (input B (seq 3 uint8))";
    let ab = "[[10, 20, 1], [3, 25, 2]]";
    assert_eq!(
        run(&format!("{t} (output (map2 3 sub A B))"), ab),
        "[7, 251, 255]"
    );
    assert_eq!(
        run(
            &format!("{t} (output (map2 3 (fn (x y) (sub y x)) A B))"),
            ab
        ),
        "[249, 5, 1]"
    );
    assert_eq!(
        run(&format!("{t} (output (map2 3 atuple A B))"), ab),
        "[(10, 3), (20, 25), (1, 2)]"
    );
    assert_eq!(
        run(&format!("{t} (output (map2 3 lt A B))"), ab),
        "[0, 1, 1]"
    );
}

#[test]
fn reduce_folds_and_wraps() {
    let t = "(input I (seq 4 uint8))";
    assert_eq!(
        run(&format!("{t} (output (reduce 4 add I))"), "[[1, 2, 3, 4]]"),
        "[10]"
    );
    assert_eq!(
        run(
            &format!("{t} (output (reduce 4 add I))"),
            "[[100, 100, 100, 1]]"
        ),
        "[45]"
    ); // 301 - 256
    assert_eq!(
        run(&format!("{t} (output (reduce 4 mul I))"), "[[2, 3, 4, 11]]"),
        "[8]"
    ); // 264

    // `(reduce 4 sub I)` is refused: only associative and commutative reducers give the
    // interpreter's result in hardware (seq_errors.rs,
    // reducers_must_be_associative_and_commutative).

    // A lambda on the pair.
    assert_eq!(
        run(
            &format!(
                "{t} (output (reduce 4 (fn (p) (if (lt (fst p) (snd p)) (snd p) (fst p))) I))"
            ),
            "[[3, 9, 2, 7]]"
        ),
        "[9]"
    );
    // n = 1 is the identity, wrapped in a sequence.
    assert_eq!(
        run(
            "(input I (seq 1 uint8)) (output (reduce 1 add I))",
            "[[42]]"
        ),
        "[42]"
    );
    // Rows of (seq 1 t), reduced with (map 1 add), as in k3.
    assert_eq!(
        run(
            "(input I (seq 3 (seq 1 uint8))) (output (reduce 3 (map 1 add) I))",
            "[[[1], [20], [200]]]"
        ),
        "[[221]]"
    );
    // Element-wise sums of two-element rows.
    assert_eq!(
        run(
            "(input I (seq 3 (seq 2 int8))) (output (reduce 3 (map 2 add) I))",
            "[[[1, -1], [2, -2], [125, -126]]]"
        ),
        "[[-128, 127]]"
    ); // 128 and -129 wrap
}

// ---------------------------------------------------------------------------------------
// Sequence operators

#[test]
fn up_and_down() {
    assert_eq!(
        run("(input I (seq 1 uint8)) (output (up_1d 3 I))", "[[9]]"),
        "[9, 9, 9]"
    );
    assert_eq!(
        run(
            "(input I (seq 1 (seq 2 uint8))) (output (up_1d 2 I))",
            "[[[1, 2]]]"
        ),
        "[[1, 2], [1, 2]]"
    );
    assert_eq!(
        run("(input I (seq 1 uint8)) (output (up_1d 1 I))", "[[9]]"),
        "[9]"
    );
    let t = "(input I (seq 4 uint8))";
    let i = "[[5, 6, 7, 8]]";
    assert_eq!(run(&format!("{t} (output (down_1d 4 0 I))"), i), "[5]");
    assert_eq!(run(&format!("{t} (output (down_1d 4 3 I))"), i), "[8]");
    assert_eq!(run(&format!("{t} (output (select_1d 4 2 I))"), i), "[7]");
    assert_eq!(run(&format!("{t} (output (Select_1d 4 1 I))"), i), "[6]");
    assert_eq!(
        run(
            "(input I (seq 2 (seq 2 uint8))) (output (down_1d 2 1 I))",
            "[[[1, 2], [3, 4]]]"
        ),
        "[[3, 4]]"
    );
}

#[test]
fn shift_with_and_without_init() {
    let t = "(input I (seq 5 uint8))";
    let i = "[[1, 2, 3, 4, 5]]";
    assert_eq!(
        run(&format!("{t} (output (shift 5 1 I))"), i),
        "[_, 1, 2, 3, 4]"
    );
    assert_eq!(
        run(&format!("{t} (output (shift 5 2 I))"), i),
        "[_, _, 1, 2, 3]"
    );
    assert_eq!(
        run(&format!("{t} (output (shift 5 2 (init 9) I))"), i),
        "[9, 9, 1, 2, 3]"
    );
    // Amount 0 is the identity, with or without init.
    assert_eq!(
        run(&format!("{t} (output (shift 5 0 I))"), i),
        "[1, 2, 3, 4, 5]"
    );
    assert_eq!(
        run(&format!("{t} (output (shift 5 0 (init 9) I))"), i),
        "[1, 2, 3, 4, 5]"
    );
    // Amount n: nothing of the input is left.
    assert_eq!(
        run(&format!("{t} (output (shift 5 5 I))"), i),
        "[_, _, _, _, _]"
    );
    assert_eq!(
        run(&format!("{t} (output (shift 5 5 (init 0) I))"), i),
        "[0, 0, 0, 0, 0]"
    );
    // Two shifts in series add up.
    assert_eq!(
        run(
            &format!("{t} (output (shift 5 1 (init 7) (shift 5 2 I)))"),
            i
        ),
        "[7, _, _, 1, 2]"
    );
    // Elements that are sequences: the init is a literal of the element type.
    assert_eq!(
        run(
            "(input I (seq 3 (seq 2 int8))) (output (shift 3 1 (init (-1 -2)) I))",
            "[[[1, 2], [3, 4], [5, 6]]]"
        ),
        "[[-1, -2], [1, 2], [3, 4]]"
    );
    assert_eq!(
        run(
            "(input I (seq 3 (seq 2 int8))) (output (shift 3 1 I))",
            "[[[1, 2], [3, 4], [5, 6]]]"
        ),
        "[[_, _], [1, 2], [3, 4]]"
    );
}

#[test]
fn partition_unpartition_transpose() {
    let t = "(input I (seq 6 uint8))";
    let i = "[[1, 2, 3, 4, 5, 6]]";
    assert_eq!(
        run(&format!("{t} (output (partition 2 3 I))"), i),
        "[[1, 2, 3], [4, 5, 6]]"
    );
    assert_eq!(
        run(&format!("{t} (output (partition 3 2 I))"), i),
        "[[1, 2], [3, 4], [5, 6]]"
    );
    assert_eq!(
        run(&format!("{t} (output (partition 6 1 I))"), i),
        "[[1], [2], [3], [4], [5], [6]]"
    );
    assert_eq!(
        run(&format!("{t} (output (partition 1 6 I))"), i),
        "[[1, 2, 3, 4, 5, 6]]"
    );
    assert_eq!(
        run(
            &format!("{t} (output (unpartition 3 2 (partition 3 2 I)))"),
            i
        ),
        "[1, 2, 3, 4, 5, 6]"
    );
    assert_eq!(
        run(
            "(input I (seq 2 (seq 3 uint8))) (output (unpartition 2 3 I))",
            "[[[1, 2, 3], [4, 5, 6]]]"
        ),
        "[1, 2, 3, 4, 5, 6]"
    );
    assert_eq!(
        run(
            "(input I (seq 2 (seq 3 uint8))) (output (transpose 2 3 I))",
            "[[[1, 2, 3], [4, 5, 6]]]"
        ),
        "[[1, 4], [2, 5], [3, 6]]"
    );
    assert_eq!(
        run(
            "(input I (seq 2 (seq 3 uint8))) (output (transpose 3 2 (transpose 2 3 I)))",
            "[[[1, 2, 3], [4, 5, 6]]]"
        ),
        "[[1, 2, 3], [4, 5, 6]]"
    );
    assert_eq!(
        run(
            "(input I (seq 1 (seq 3 uint8))) (output (transpose 1 3 I))",
            "[[[7, 8, 9]]]"
        ),
        "[[7], [8], [9]]"
    );
}

#[test]
fn seq_tuples() {
    let t = "(input A (seq 2 uint8)) (input B (seq 2 uint8)) (input C (seq 2 uint8))";
    let abc = "[[1, 2], [3, 4], [5, 6]]";
    assert_eq!(
        run(&format!("{t} (output (stuple A B))"), abc),
        "<[1, 2], [3, 4]>"
    );
    assert_eq!(
        run(&format!("{t} (output (stuple_append (stuple A B) C))"), abc),
        "<[1, 2], [3, 4], [5, 6]>"
    );
    // Element-wise, as in the stencils.
    assert_eq!(
        run(
            &format!("{t} (output (map2 2 stuple_append (map2 2 stuple A B) C))"),
            abc
        ),
        "[<1, 3, 5>, <2, 4, 6>]"
    );
    assert_eq!(
        run(
            &format!(
                "{t} (output (map 2 (stuple_to_seq 3)
                   (partition 2 1 (map2 2 stuple_append (map2 2 stuple A B) C))))"
            ),
            abc
        ),
        "[[1, 3, 5], [2, 4, 6]]"
    );
    let s = "(input I (seq 3 int8))";
    assert_eq!(
        run(&format!("{s} (output (seq_to_stuple 3 I))"), "[[1, -2, 3]]"),
        "[<1, -2, 3>]"
    );
    assert_eq!(
        run(
            &format!("{s} (output (stuple_to_seq 3 (seq_to_stuple 3 I)))"),
            "[[1, -2, 3]]"
        ),
        "[1, -2, 3]"
    );
    assert_eq!(
        run(
            "(input I (seq 1 (stuple 2 uint8))) (output (stuple_to_seq 2 I))",
            "[[[7, 8]]]"
        ),
        "[7, 8]"
    );
}

#[test]
fn stencil_1d_windows_are_trailing_and_oldest_first() {
    let t = "(input I (seq 5 uint8))";
    let i = "[[1, 2, 3, 4, 5]]";
    assert_eq!(
        run(&format!("{t} (output (stencil_1d 5 3 I))"), i),
        "[[_, _, 1], [_, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]"
    );
    assert_eq!(
        run(&format!("{t} (output (stencil_1d 5 3 (init 0) I))"), i),
        "[[0, 0, 1], [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]"
    );
    assert_eq!(
        run(&format!("{t} (output (stencil_1d 5 2 I))"), i),
        "[[_, 1], [1, 2], [2, 3], [3, 4], [4, 5]]"
    );
    assert_eq!(
        run(&format!("{t} (output (stencil_1d 5 1 I))"), i),
        "[[1], [2], [3], [4], [5]]"
    );
    assert_eq!(
        run(&format!("{t} (output (stencil_1d 5 5 (init 9) I))"), i),
        "[[9, 9, 9, 9, 1], [9, 9, 9, 1, 2], [9, 9, 1, 2, 3], [9, 1, 2, 3, 4], [1, 2, 3, 4, 5]]"
    );
}

#[test]
fn stencil_2d_windows_are_bottom_right_anchored() {
    // 4x4 image 1..16. Window k = r*4 + c holds x[(r-2+i)*4 + (c-2+j)]; positions before
    // the flat image are don't-care, positions left of column 0 wrap to the row above.
    let t = "(input I (seq 16 uint8))";
    let i = "[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]]";
    let out = run(&format!("{t} (output (stencil_2d 4 4 3 3 I))"), i);
    let wins: Vec<&str> = out[1..out.len() - 1].split("]], [[").collect();
    assert_eq!(wins.len(), 16);
    // k = 10 (r 2, c 2): rows 0..2, columns 0..2.
    assert_eq!(wins[10], "1, 2, 3], [5, 6, 7], [9, 10, 11");
    // k = 15 (r 3, c 3): rows 1..3, columns 1..3.
    assert_eq!(wins[15], "6, 7, 8], [10, 11, 12], [14, 15, 16]]");
    // k = 12 (r 3, c 0): flat indices 2,3,4 / 6,7,8 / 10,11,12: wrapped.
    assert_eq!(wins[12], "3, 4, 5], [7, 8, 9], [11, 12, 13");
    // k = 4 (r 1, c 0): flat -6 -5 -4 / -2 -1 0 / 2 3 4.
    assert_eq!(wins[4], "_, _, _], [_, _, 1], [3, 4, 5");
    assert!(wins[0].starts_with("[[_, _, _], [_, _, _], [_, _, 1"));
    // With init the positions before the image are that value.
    let out = run(&format!("{t} (output (stencil_2d 4 4 3 3 (init 0) I))"), i);
    let wins: Vec<&str> = out[1..out.len() - 1].split("]], [[").collect();
    assert_eq!(wins[4], "0, 0, 0], [0, 0, 1], [3, 4, 5");
    // 2x2 on a 3x2 image: window (r-1, c-1), (r-1, c), (r, c-1), (r, c).
    assert_eq!(
        run(
            "(input I (seq 6 uint8)) (output (stencil_2d 3 2 2 2 I))",
            "[[1, 2, 3, 4, 5, 6]]"
        ),
        "[[[_, _], [_, 1]], [[_, _], [1, 2]], [[_, 1], [2, 3]], [[1, 2], [3, 4]], \
         [[2, 3], [4, 5]], [[3, 4], [5, 6]]]"
    );
    // Non-square windows: 2 rows x 3 columns on a 2x3 image.
    assert_eq!(
        run(
            "(input I (seq 6 uint8)) (output (stencil_2d 2 3 2 3 (init 0) I))",
            "[[1, 2, 3, 4, 5, 6]]"
        ),
        "[[[0, 0, 0], [0, 0, 1]], [[0, 0, 0], [0, 1, 2]], [[0, 0, 0], [1, 2, 3]], \
         [[0, 0, 1], [2, 3, 4]], [[0, 1, 2], [3, 4, 5]], [[1, 2, 3], [4, 5, 6]]]"
    );
}

// ---------------------------------------------------------------------------------------
// Don't-care propagation (docs/language.md §5)

/// Runs `(map2 2 F (shift 2 1 I) I)` on [3, 4]: F's first operand is don't-care at 0.
fn with_dc(f: &str, ty: &str) -> String {
    run(
        &format!("(input I (seq 2 {ty})) (output (map2 2 {f} (shift 2 1 I) I))"),
        "[[3, 4]]",
    )
}

#[test]
fn atom_operators_propagate_dont_care() {
    assert_eq!(with_dc("add", "uint8"), "[_, 7]");
    assert_eq!(with_dc("sub", "uint8"), "[_, 255]"); // 3 - 4
    assert_eq!(with_dc("mul", "uint8"), "[_, 12]");
    assert_eq!(with_dc("lt", "uint8"), "[_, 1]");
    assert_eq!(with_dc("eq", "uint8"), "[_, 0]");
    // Even where the result would not depend on the unknown value.
    assert_eq!(
        with_dc("(fn (x y) (mul x (const uint8 0)))", "uint8"),
        "[_, 0]"
    );
    assert_eq!(with_dc("(fn (x y) (eq x x))", "uint8"), "[_, 1]");
    assert_eq!(
        with_dc("(fn (x y) (or (const bit 1) (eq x y)))", "uint8"),
        "[_, 1]"
    );
    assert_eq!(with_dc("(fn (x y) (abs x))", "int8"), "[_, 3]");
    assert_eq!(
        with_dc("(fn (x y) (lsr x (const uint8 8)))", "uint8"),
        "[_, 0]"
    );
    assert_eq!(
        with_dc("(fn (x y) (div x (const fixp1_7 0)))", "uint8"),
        "[_, 0]"
    );
    // An atom tuple holding a don't-care is printed with it.
    assert_eq!(with_dc("atuple", "uint8"), "[(_, 3), (3, 4)]");
}

#[test]
fn fst_snd_project_and_if_takes_a_known_branch() {
    assert_eq!(with_dc("(fn (x y) (fst (atuple x y)))", "uint8"), "[_, 3]");
    assert_eq!(with_dc("(fn (x y) (snd (atuple x y)))", "uint8"), "[3, 4]");
    // Known condition: the chosen branch decides, the other may be don't-care.
    assert_eq!(
        with_dc("(fn (x y) (if (const bit 0) x y))", "uint8"),
        "[3, 4]"
    );
    assert_eq!(
        with_dc("(fn (x y) (if (const bit 1) x y))", "uint8"),
        "[_, 3]"
    );
    // Unknown condition: don't-care, even if both branches agree.
    assert_eq!(with_dc("(fn (x y) (if (eq x y) y y))", "uint8"), "[_, 4]");
}

#[test]
fn dont_care_through_sequence_operators() {
    // Reduce over a window with a don't-care gives don't-care.
    assert_eq!(
        run(
            "(input I (seq 3 uint8)) (output (map 3 (reduce 3 add) (stencil_1d 3 3 I)))",
            "[[1, 2, 3]]"
        ),
        "[[_], [_], [6]]"
    );
    // Inputs may hold don't-cares (null in JSON); sequence operators move them.
    assert_eq!(
        run(
            "(input I (seq 4 uint8)) (output (transpose 2 2 (partition 2 2 I)))",
            "[[1, null, 3, 4]]"
        ),
        "[[1, 3], [_, 4]]"
    );
    assert_eq!(
        run(
            "(input I (seq 4 uint8)) (output (map 4 (fn (x) (add x (const uint8 1))) I))",
            "[[1, null, 3, 255]]"
        ),
        "[2, _, 4, 0]"
    );
    // A whole input may be don't-care.
    assert_eq!(
        run(
            "(input I (seq 2 (seq 2 uint8))) (output (map 2 (reduce 2 add) I))",
            "[null]"
        ),
        "[[_], [_]]"
    );
    // A don't-care that is shifted out is gone.
    assert_eq!(
        run(
            "(input I (seq 3 uint8)) (output (down_1d 3 2 (shift 3 1 (init 0) I)))",
            "[[1, 2, null]]"
        ),
        "[2]"
    );
}

#[test]
fn eval_checks_its_inputs() {
    let p = parse_program(
        "t.seq",
        "t",
        "(input I (seq 2 uint8)) (output (map 2 abs I))",
    )
    .unwrap();
    let err = interp::eval(&p, &[]).unwrap_err();
    assert!(
        err.contains("1 input(s)") && err.contains("0 value(s)"),
        "{err}"
    );
    let err = interp::eval(&p, &[Value::List(vec![Value::Scalar(1)])]).unwrap_err();
    assert!(err.contains("input `I`"), "{err}");
    let err = interp::eval(
        &p,
        &[Value::List(vec![Value::Scalar(1), Value::Scalar(256)])],
    )
    .unwrap_err();
    assert!(err.contains("input `I`") && err.contains("uint8"), "{err}");
}
