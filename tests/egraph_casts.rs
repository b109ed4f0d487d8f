//! Casts through the e-graph: conversion both ways, the cast rules (soundness on many
//! instances, the narrowing they allow), and cast programs scheduled at several slowdowns
//! and simulated in the space-time simulator against the interpreter.

use std::path::Path;
use tessera::egraph::convert::{expr_to_program, input_sigs, program_to_expr};
use tessera::egraph::lang::SeqLang;
use tessera::egraph::rules::RuleSet;
use tessera::egraph::soundness::{check_rule, CheckConfig};
use tessera::schedule::egraph;
use tessera::seq::op::{AtomOp, Op};
use tessera::seq::{interp, load_program, parse_program, Program};
use tessera::st::check::check_design;
use tessera::st::text::parse_design;
use tessera::st::verify::{random_frames, verify};
use tessera::st::StOp;

fn program(text: &str) -> Program {
    parse_program("c.seq", "c", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every cast op of every scope of `p`.
fn casts_of(p: &Program) -> Vec<AtomOp> {
    let mut out = Vec::new();
    let mut todo = vec![p.output];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        let n = p.node(id);
        if let Op::Atom(a @ AtomOp::Cast(_)) = n.op {
            out.push(a);
        }
        todo.extend(n.args.iter().copied());
        todo.extend(n.op.bodies());
    }
    out.sort();
    out
}

#[test]
fn casts_convert_to_the_egraph_and_back() {
    let p = program(
        "(input I (seq 4 int8))
         (output (map 4 (fn (x) (atuple (cast uint16 x) (cast bit (cast int32 x)))) I))",
    );
    let e = program_to_expr(&p, None);
    let text = e.to_string();
    assert!(text.contains("(cast uint16 (arg 0 int8))"), "{text}");
    assert!(
        text.contains("(cast bit (cast int32 (arg 0 int8)))"),
        "{text}"
    );
    let back = expr_to_program(&e, &input_sigs(&p), "back").unwrap();
    assert_eq!(casts_of(&back), casts_of(&p));
    let frames = random_frames(&p, 3, 4);
    for fr in frames {
        assert_eq!(interp::eval(&p, &fr), interp::eval(&back, &fr));
    }
    // A body term prints and parses back exactly; a cast is a node with its type child,
    // never an atom operator named `cast_uint16`.
    let body = "(cast uint8 (add (atuple (cast uint16 (arg 0 uint8)) (arg 1 uint16))))";
    let parsed: egg::RecExpr<SeqLang> = body.parse().unwrap();
    assert_eq!(parsed.to_string(), body);
    assert!("(cast_uint16 (arg 0 uint8))"
        .parse::<egg::RecExpr<SeqLang>>()
        .is_err());
}

#[test]
fn rule_patterns_read_both_cast_forms() {
    let text = "(rule one-word (lhs (cast_uint8 (cast ?w ?x))) (rhs (cast uint8 ?x)))";
    let rules = RuleSet::from_texts(&[("t.rules".into(), text.into())], "test").unwrap();
    let r = &rules.rules[0];
    assert_eq!(r.lhs_text(), "(cast uint8 (cast ?w ?x))");
    // Sound only where the middle cast is at least 8 bits wide: the checker finds a bit.
    assert!(!check_rule(r, &CheckConfig::default()).ok());
}

#[test]
fn cast_rules_are_sound_on_many_instances() {
    let rules = RuleSet::defaults();
    let cast_rules: Vec<_> = rules
        .rules
        .iter()
        .filter(|r| r.file.ends_with("cast.rules"))
        .collect();
    assert_eq!(cast_rules.len(), 7);
    for seed in [4, 5, 6, 7] {
        let cfg = CheckConfig {
            seed,
            instances: 60,
            ..CheckConfig::default()
        };
        for r in &cast_rules {
            let c = check_rule(r, &cfg);
            assert!(c.ok(), "seed {seed}: {}", c.line());
            assert!(c.instances >= 60, "{}", c.line());
        }
    }
}

#[test]
fn a_wide_sum_cast_back_is_scheduled_narrow() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wide = load_program(&root.join("examples/derivations/cast_narrowing_lhs.seq")).unwrap();
    let narrow = load_program(&root.join("examples/derivations/cast_narrowing_rhs.seq")).unwrap();
    let o = egraph::Options::default();
    for s in [1, 2, 4] {
        let a = egraph::schedule(&wide, s, &o).unwrap();
        let b = egraph::schedule(&narrow, s, &o).unwrap();
        assert_eq!(a.area, b.area, "s={s}:\n{}", a.design.to_text());
        let frames = random_frames(&wide, s, 2);
        assert!(verify(&a.design, &wide, &frames).unwrap().passed());
    }
    // Without the rules the uint16 adder stays: twice the logic.
    let plain = egraph::Options {
        saturate: false,
        ..egraph::Options::default()
    };
    let a = egraph::schedule(&wide, 1, &plain).unwrap();
    let b = egraph::schedule(&narrow, 1, &plain).unwrap();
    assert!(a.area > b.area, "{} vs {}", a.area, b.area);
}

/// Schedules `p` at each slowdown, checks the design and simulates it against the
/// interpreter; returns the designs' texts.
fn schedule_and_simulate(p: &Program, slowdowns: &[u64]) -> Vec<String> {
    let o = egraph::Options::default();
    slowdowns
        .iter()
        .map(|&s| {
            let got = egraph::schedule(p, s, &o).unwrap_or_else(|e| panic!("s={s}: {e}"));
            check_design(&got.design).unwrap_or_else(|e| panic!("s={s}: {e}"));
            assert_eq!(got.design.clocks(), s);
            let frames = random_frames(p, 40 + s, 3);
            let v = verify(&got.design, p, &frames).unwrap();
            assert!(
                v.passed(),
                "s={s}: {:?}\n{}",
                v.mismatches.first(),
                got.design.to_text()
            );
            let casts = got.design.to_text().matches("cast_").count();
            assert!(casts > 0, "s={s}: no cast in\n{}", got.design.to_text());
            got.design.to_text()
        })
        .collect()
}

#[test]
fn cast_programs_schedule_at_every_slowdown() {
    // A cast after a shift, and sign extension then truncation in one body.
    let p = program(
        "(input I (seq 16 int8))
         (output (map 16 (fn (x) (atuple (cast int32 x) (cast uint8 (mul (cast int16 x) (cast int16 x)))))
                   (shift 16 1 I)))",
    );
    schedule_and_simulate(&p, &[1, 2, 4, 8, 16]);
    let q = program("(input I (seq 8 uint16)) (output (map 8 (cast bit) (shift 8 2 (init 1) I)))");
    schedule_and_simulate(&q, &[1, 2, 8]);
}

#[test]
fn the_box_blur_schedules_and_simulates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = load_program(&root.join("examples/box5x5_u16.seq")).unwrap();
    let designs = schedule_and_simulate(&p, &[1, 4, 16, 64]);
    // The stencil's storage holds uint8 pixels: the casts are in the kernel.
    for d in designs {
        let shifts: Vec<&str> = d.lines().filter(|l| l.contains("(shift_")).collect();
        assert!(!shifts.is_empty(), "{d}");
        assert!(
            shifts
                .iter()
                .all(|l| l.contains("uint8") && !l.contains("uint16")),
            "{d}"
        );
    }
    // The Aetherling baseline lowers casts too (an atom operator like any other).
    let base = tessera::schedule::aetherling::schedule(&p, 16).unwrap();
    let frames = random_frames(&p, 5, 2);
    assert!(verify(&base.design, &p, &frames).unwrap().passed());
    let d = &base.design;
    assert!(d
        .ids()
        .any(|id| matches!(d.node(id).op, StOp::Atom(AtomOp::Cast(_)))));
    // `.st` files write a cast as the one word `cast_uint16` and read it back.
    let text = d.to_text();
    assert!(text.contains("(cast_uint16 "), "{text}");
    let back = parse_design("box.st", &text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.to_text(), d.canonical().to_text());
}
