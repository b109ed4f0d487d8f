//! The fast evaluator (`seq::fast`) against the reference interpreter (`seq::interp`), the
//! judge: on every example program, on random instances of every rewrite rule's left side
//! (the programs of the rule soundness check, `egraph::random`), and on random atom
//! expressions over every atom operator. Inputs are random with about one atom in sixteen
//! don't care.
//!
//! The reference may return a bare don't-care for a whole atom tuple where the fast
//! evaluator returns a pair of don't-cares (it stores scalars only), so outputs are
//! compared after `interp::expand_undef`, which writes both the same way.

use std::path::{Path, PathBuf};
use std::time::Instant;
use tessera::egraph::random::random_lhs;
use tessera::egraph::rules::RuleSet;
use tessera::egraph::soundness::random_input;
use tessera::seq::value::format_value;
use tessera::seq::{fast, interp, load_program, parse_program, FlatValue, Program, Value};
use tessera::util::rng::Rng;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs both evaluators on `inputs` and panics with the program and input if they differ.
fn same(p: &Program, inputs: &[Value], what: &str) {
    let t = p.output_type();
    let want = interp::eval(p, inputs).unwrap_or_else(|e| panic!("{what}: reference: {e}"));
    let got = fast::eval(p, inputs).unwrap_or_else(|e| panic!("{what}: fast: {e}"));
    let (want, got) = (
        interp::expand_undef(&want, t),
        interp::expand_undef(&got, t),
    );
    if want != got {
        let shown: Vec<String> = p
            .inputs
            .iter()
            .zip(inputs)
            .map(|(d, v)| format!("{} = {}", d.name, format_value(v, &d.ty)))
            .collect();
        panic!(
            "{what}: the evaluators differ on {}\n  reference: {}\n  fast:      {}",
            shown.join(", "),
            format_value(&want, t),
            format_value(&got, t)
        );
    }
    // The flat entry point gives the same value.
    let flat: Vec<FlatValue> = p
        .inputs
        .iter()
        .zip(inputs)
        .map(|(d, v)| FlatValue::from_value(v, &d.ty))
        .collect();
    let out = fast::eval_flat(p, &flat).unwrap();
    assert_eq!(out.to_value(), got, "{what}: eval_flat");
}

fn random_inputs(p: &Program, rng: &mut Rng, undef: bool) -> Vec<Value> {
    p.inputs
        .iter()
        .map(|d| {
            if undef {
                random_input(&d.ty, rng)
            } else {
                tessera::seq::value::random_value(&d.ty, rng)
            }
        })
        .collect()
}

fn seq_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            seq_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "seq") {
            out.push(path);
        }
    }
}

#[test]
fn every_example_program_evaluates_like_the_reference() {
    let mut files = Vec::new();
    seq_files(&root().join("examples"), &mut files);
    seq_files(&root().join("tests/data/seq"), &mut files);
    files.sort();
    let mut checked = 0;
    for f in &files {
        let p = load_program(f).unwrap_or_else(|e| panic!("{e}"));
        // The 1920x1080 apps take the reference a minute each; their 16x8 variants in
        // examples/small have the same shape, and tests/seq_examples.rs checks the full
        // frames against the published golden model.
        let atoms: u64 = p.inputs.iter().map(|d| d.ty.atoms()).sum();
        if atoms > 100_000 {
            continue;
        }
        let mut rng = Rng::new(17);
        for k in 0..4 {
            let inputs = random_inputs(&p, &mut rng, k > 0);
            same(&p, &inputs, &format!("{} (input {k})", f.display()));
        }
        checked += 1;
    }
    assert!(
        checked >= 40,
        "only {checked} example programs were checked"
    );
}

#[test]
fn random_rule_instances_evaluate_like_the_reference() {
    let t0 = Instant::now();
    let rules = RuleSet::defaults();
    let mut programs = 0;
    for (r, rule) in rules.rules.iter().enumerate() {
        let mut rng = Rng::new(1000 + r as u64);
        let mut got = 0;
        for _ in 0..400 {
            if got == 10 {
                break;
            }
            let Some(p) = random_lhs(rule, &mut rng) else {
                continue;
            };
            got += 1;
            for k in 0..3 {
                let inputs = random_inputs(&p, &mut rng, k > 0);
                same(&p, &inputs, &format!("{} instance {got}", rule.name));
            }
        }
        programs += got;
    }
    assert!(programs >= 300, "only {programs} random programs");
    eprintln!("{programs} random programs in {:?}", t0.elapsed());
}

/// A random atom expression of scalar type `t` (bit, uint8 or int16) over the variables
/// `x` (int16), `c` (bit), `k` (uint8) and `p` (an atom tuple), at most `depth` deep,
/// exercising every atom operator.
fn atom_expr(rng: &mut Rng, t: &str, depth: u32) -> String {
    if depth == 0 || rng.range(0, 5) == 0 {
        return match (t, rng.range(0, 2)) {
            ("bit", 0) => "c".into(),
            ("bit", _) => format!("(const bit {})", rng.range(0, 1)),
            ("uint8", 0) => "k".into(),
            ("uint8", 1) => "(snd p)".into(),
            ("uint8", _) => format!("(const uint8 {})", rng.range(0, 255)),
            (_, 0) => "x".into(),
            (_, 1) => "(fst p)".into(),
            _ => format!("(const int16 {})", rng.range(0, 65535) as i64 - 32768),
        };
    }
    let d = depth - 1;
    let pick = rng.range(0, 8);
    let lsl_by = rng.range(0, 9);
    let divisor = rng.range(0, 255);
    let mut e = |t: &str| atom_expr(rng, t, d);
    match t {
        "bit" => match pick % 7 {
            0 => format!("(not {})", e("bit")),
            1 => format!("(and {} {})", e("bit"), e("bit")),
            2 => format!("(or {} {})", e("bit"), e("bit")),
            3 => format!("(lt {} {})", e("int16"), e("int16")),
            4 => format!("(eq {} {})", e("uint8"), e("uint8")),
            5 => format!(
                "(eq (atuple {} {}) (atuple {} {}))",
                e("int16"),
                e("bit"),
                e("int16"),
                e("bit")
            ),
            _ => format!("(if {} {} {})", e("bit"), e("bit"), e("bit")),
        },
        "uint8" => match pick % 4 {
            0 => format!("(add {} {})", e("uint8"), e("uint8")),
            1 => format!("(lsr {} {})", e("uint8"), e("uint8")),
            2 => format!("(lsl {} (const uint8 {lsl_by}))", e("uint8")),
            _ => format!("(if {} {} {})", e("bit"), e("uint8"), e("uint8")),
        },
        _ => match pick {
            0 => format!("(add {} {})", e("int16"), e("int16")),
            1 => format!("(sub {} {})", e("int16"), e("int16")),
            2 => format!("(mul {} {})", e("int16"), e("int16")),
            3 => format!("(div {} (const fixp1_7 {divisor}/128))", e("int16")),
            4 => format!("(abs {})", e("int16")),
            5 => format!("(lsr {} {})", e("int16"), e("uint8")),
            6 => format!("(lsl {} {})", e("int16"), e("uint8")),
            7 => format!("(if {} {} {})", e("bit"), e("int16"), e("int16")),
            _ => format!(
                "(fst (if {} (atuple {} k) (atuple {} k)))",
                e("bit"),
                e("int16"),
                e("int16")
            ),
        },
    }
}

#[test]
fn random_atom_expressions_evaluate_like_the_reference() {
    let mut rng = Rng::new(5);
    for case in 0..120 {
        let t = *rng.pick(&["bit", "uint8", "int16"]);
        let depth = rng.range(1, 4) as u32;
        let body = atom_expr(&mut rng, t, depth);
        let n = rng.range(1, 40);
        let text = format!(
            "(input X (seq {n} int16)) (input C (seq {n} bit)) (input K (seq {n} uint8))
             (input P (seq {n} (atuple int16 uint8)))
             (output (map2 {n} (fn (xc kp) (let ((x (fst xc)) (c (snd xc)) (k (fst kp)) (p (snd kp))) {body}))
                (map2 {n} atuple X C) (map2 {n} atuple K P)))"
        );
        let p = parse_program("t.seq", "t", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for k in 0..3 {
            let inputs = random_inputs(&p, &mut rng, k > 0);
            same(&p, &inputs, &format!("case {case}: {body}"));
        }
    }
}

/// A random function `(seq b uint8) -> (seq b uint8)` for an `hmap` lane.
fn lane_fn(rng: &mut Rng, b: u64) -> String {
    let k = rng.range(0, 255);
    match rng.range(0, 4) {
        0 => format!("(fn (r) (map {b} (fn (v) (add v (const uint8 {k}))) r))"),
        1 => format!("(fn (r) (shift {b} 1 r))"),
        2 => format!("(fn (r) (shift {b} {} (init {k}) r))", rng.range(0, b)),
        3 => format!("(fn (r) (hmap {b} (list_to_seq {}) r))", {
            let fs: Vec<String> = (0..b)
                .map(|i| format!("(fn (v) (mul v (const uint8 {})))", i + k))
                .collect();
            fs.join(" ")
        }),
        _ => "(fn (r) r)".into(),
    }
}

/// One random step on an expression of type `(seq a (seq b uint8))`; returns the new
/// expression and its shape. The steps build values the fast evaluator holds as parts
/// (`hmap`, seq-tuples) and move them with every sequence operator.
fn structural_step(rng: &mut Rng, e: &str, a: u64, b: u64) -> (String, u64, u64) {
    let k = rng.range(0, 255);
    match rng.range(0, 11) {
        0 => {
            let fs: Vec<String> = (0..a).map(|_| lane_fn(rng, b)).collect();
            (format!("(hmap {a} (list_to_seq {}) {e})", fs.join(" ")), a, b)
        }
        1 => (format!("(map {a} {} {e})", lane_fn(rng, b)), a, b),
        2 => (format!("(transpose {a} {b} {e})"), b, a),
        3 => {
            let s = rng.range(0, a);
            if rng.coin() {
                let init: Vec<String> = (0..b).map(|i| (i * 7 % 256).to_string()).collect();
                (format!("(shift {a} {s} (init ({})) {e})", init.join(" ")), a, b)
            } else {
                (format!("(shift {a} {s} {e})"), a, b)
            }
        }
        4 => {
            let n = a * b;
            let divisors: Vec<u64> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
            let na = *rng.pick(&divisors);
            (
                format!("(partition {na} {} (unpartition {a} {b} {e}))", n / na),
                na,
                n / na,
            )
        }
        5 => {
            let i = rng.range(0, b - 1);
            (
                format!("(map {a} (fn (r) (up_1d {b} (down_1d {b} {i} r))) {e})"),
                a,
                b,
            )
        }
        6 => {
            let i = rng.range(0, a - 1);
            (format!("(up_1d {a} (down_1d {a} {i} {e}))"), a, b)
        }
        7 => (
            format!("(map {a} (fn (r) (up_1d {b} (reduce {b} add r))) {e})"),
            a,
            b,
        ),
        8 => (
            format!("(up_1d {a} (reduce {a} (map {b} add) {e}))"),
            a,
            b,
        ),
        9 => (
            format!(
                "(map {a} (unpartition 2 {b}) (map2 {a} (fn (r s) (stuple_to_seq 2 \
                 (map2 1 stuple (partition 1 {b} r) (partition 1 {b} s)))) {e} (shift {a} 1 {e})))"
            ),
            a,
            2 * b,
        ),
        _ => (
            format!(
                "(map {a} (fn (r) (map {b} (fn (v) (if (lt v (const uint8 {k})) v (const uint8 {k}))) r)) {e})"
            ),
            a,
            b,
        ),
    }
}

#[test]
fn random_structural_pipelines_evaluate_like_the_reference() {
    let mut rng = Rng::new(9);
    for case in 0..300 {
        let (mut a, mut b) = (rng.range(1, 4), rng.range(1, 4));
        let mut e = format!("(partition {a} {b} I)");
        let n = a * b;
        for _ in 0..rng.range(1, 5) {
            if a * b > 64 {
                break;
            }
            (e, a, b) = structural_step(&mut rng, &e, a, b);
        }
        let text = format!("(input I (seq {n} uint8)) (output {e})");
        let p = parse_program("t.seq", "t", &text).unwrap_or_else(|err| panic!("{err}\n{text}"));
        for k in 0..3 {
            let inputs = random_inputs(&p, &mut rng, k > 0);
            same(&p, &inputs, &format!("case {case}: {text}"));
        }
    }
}

#[test]
fn eval_flat_checks_its_inputs_and_names_them() {
    let p = parse_program(
        "t.seq",
        "t",
        "(input A (seq 2 uint8)) (input B (seq 2 uint8)) (output (map2 2 add A B))",
    )
    .unwrap();
    let ty = p.inputs[0].ty.clone();
    let ok = FlatValue {
        ty: ty.clone(),
        scalars: vec![1, 2],
        undef: vec![false, true],
    };
    let out = fast::eval_flat(&p, &[ok.clone(), ok.clone()]).unwrap();
    assert_eq!((out.get(0), out.get(1)), (Some(2), None));
    let err = fast::eval_flat(&p, std::slice::from_ref(&ok)).unwrap_err();
    assert!(err.contains("2 input(s), 1 value(s)"), "{err}");
    let wide = FlatValue {
        scalars: vec![1, 300],
        undef: vec![false, false],
        ..ok.clone()
    };
    let err = fast::eval_flat(&p, &[ok.clone(), wide]).unwrap_err();
    assert!(
        err.starts_with("input `B`") && err.contains("does not fit uint8"),
        "{err}"
    );
    let short = FlatValue {
        scalars: vec![1],
        undef: vec![false],
        ..ok.clone()
    };
    let err = fast::eval_flat(&p, &[short, ok.clone()]).unwrap_err();
    assert!(
        err.starts_with("input `A`") && err.contains("has 2 scalars"),
        "{err}"
    );
    let other = FlatValue {
        ty: tessera::seq::SeqType::seq(2, tessera::seq::ScalarType::Int8.into()),
        ..ok.clone()
    };
    let err = fast::eval_flat(&p, &[ok, other]).unwrap_err();
    assert!(
        err.contains(
            "input `B`: expected a value of type (seq 2 uint8), found one of type (seq 2 int8)"
        ),
        "{err}"
    );
    let err = fast::eval(&p, &[Value::Scalar(1), Value::Undef]).unwrap_err();
    assert!(err.starts_with("input `A`"), "{err}");
}

#[test]
fn the_cli_prints_the_same_with_either_evaluator() {
    let run = |file: &str, extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("eval")
            .arg(root().join("examples").join(file))
            .args(extra)
            .output()
            .expect("run tessera");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    for file in ["map.seq", "seed/diamond.seq", "small/camera_16x8.seq"] {
        for args in [&["--random", "3"][..], &["--random", "4", "--json"][..]] {
            let fast = run(file, args);
            let mut with_ref = args.to_vec();
            with_ref.push("--reference");
            assert_eq!(fast, run(file, &with_ref), "{file} {args:?}");
        }
    }
}
