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
use tessera::fuzz::pipelines::{atom_program, structural_program};
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

#[test]
fn random_atom_expressions_evaluate_like_the_reference() {
    let mut rng = Rng::new(5);
    for case in 0..120 {
        let (text, body) = atom_program(&mut rng);
        let p = parse_program("t.seq", "t", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for k in 0..3 {
            let inputs = random_inputs(&p, &mut rng, k > 0);
            same(&p, &inputs, &format!("case {case}: {body}"));
        }
    }
}

#[test]
fn random_structural_pipelines_evaluate_like_the_reference() {
    let mut rng = Rng::new(9);
    for case in 0..300 {
        let text = structural_program(&mut rng);
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
