//! Rule loading and the soundness test of every rule.

use std::process::Command;
use tessera::egraph::rules::RuleSet;
use tessera::egraph::soundness::{check_rules, CheckConfig};

fn tessera() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
}

#[test]
fn built_in_rules_load_and_every_rule_is_sound() {
    let rules = RuleSet::defaults();
    assert!(rules.rules.len() >= 40);
    for c in check_rules(&rules, &CheckConfig::default()) {
        assert!(c.ok(), "{}", c.line());
        assert!(
            c.instances >= 3,
            "{} was barely tested: {}",
            c.rule,
            c.line()
        );
    }
}

#[test]
fn soundness_holds_for_other_seeds() {
    let rules = RuleSet::defaults();
    for seed in [2, 3] {
        let cfg = CheckConfig {
            seed,
            instances: 8,
            ..CheckConfig::default()
        };
        for c in check_rules(&rules, &cfg) {
            assert!(c.ok(), "seed {seed}: {}", c.line());
        }
    }
}

#[test]
fn the_rules_directory_matches_the_built_in_rules() {
    let dir = RuleSet::load_dir(std::path::Path::new("rules/seq")).unwrap();
    let builtin = RuleSet::defaults();
    let names = |r: &RuleSet| r.rules.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    let mut a = names(&dir);
    let mut b = names(&builtin);
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn rules_check_passes_and_catches_an_unsound_file() {
    let ok = tessera().args(["rules", "--check"]).output().unwrap();
    let text = String::from_utf8_lossy(&ok.stdout);
    assert_eq!(ok.status.code(), Some(0), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ok ")).count(),
        RuleSet::defaults().rules.len()
    );

    let bad = tessera()
        .args(["rules", "--check", "--rules", "tests/data/egraph/unsound"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{text}");
    for rule in [
        "shift-off-by-one",
        "down-nest-docs-bug",
        "map-nest-transposed",
        "cast-cast-wide-enough",
        "cast-add-widening",
        "strided-down-shift-unmoved",
        "strided-down-shift-groups-index",
        "map-shift-not-strict",
        "lsr-add",
        "lsl-lsl-first-amount-twice",
        "stencil-rows-not-strict",
        "stencil-rows-rows-reversed",
        "row-lsl-common-without-the-shift",
        "stencil-rows-oldest-row-delayed-thrice",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with("FAIL") && l.contains(rule)),
            "{rule} not caught:\n{text}"
        );
    }
}

#[test]
fn loader_errors_name_file_rule_and_reason() {
    let cases = [
        (
            "unknown_condition.rules",
            "rule `uses-unknown`",
            "unknown condition `frobnicate`",
        ),
        (
            "unbound_variable.rules",
            "rule `unbound-rhs`",
            "unbound variable ?m",
        ),
        (
            "malformed_pattern.rules",
            "rule `malformed`",
            "`map` takes 3",
        ),
    ];
    for (file, rule, reason) in cases {
        let path = format!("tests/data/egraph/bad/{file}");
        let text = std::fs::read_to_string(&path).unwrap();
        let err = RuleSet::from_texts(&[(path.clone(), text)], "test").unwrap_err();
        let shown = err.to_string();
        assert!(shown.starts_with(&path), "{shown}");
        assert!(shown.contains(rule) && shown.contains(reason), "{shown}");
    }
    // The command line reports it as a user error.
    let dir = std::env::temp_dir().join(format!("tessera-bad-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        "tests/data/egraph/bad/unbound_variable.rules",
        dir.join("x.rules"),
    )
    .unwrap();
    let out = tessera()
        .args(["rules", "--rules"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unbound variable ?m"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_malformed_rules_are_rejected() {
    let bad = [
        ("(rule r (lhs ?x) (rhs ?x))", "must be an operator form"),
        (
            "(rule r (lhs (map ?n ?f ?x)) (rhs ?x) (where (factor ?m ?a ?b)))",
            "unbound variable ?m",
        ),
        (
            "(rule r (lhs (map ?n ?f ?x)) (rhs ?x) (where (factor ?n ?f ?b)))",
            "already bound",
        ),
        ("(rule r (lhs (map ?n ?x ?x)) (rhs ?x))", "stands for"),
        ("(rule r (lhs (map ?n ?f ?x)))", "missing `(rhs"),
        (
            "(rule r (lhs (map ?n ?f ?x)) (rhs ?x) (colour red))",
            "unknown section",
        ),
        ("(rule R (lhs (map ?n ?f ?x)) (rhs ?x))", "needs a name"),
        (
            "(rule r (lhs (map ?n ?f ?x)) (rhs (map ?n ?f 1.5)))",
            "unexpected `1.5`",
        ),
        (
            "(rule r (lhs (map ?n ?f ?x)) (rhs ?x)) (rule r (lhs (map ?n ?f ?x)) (rhs ?x))",
            "defined twice",
        ),
    ];
    for (text, want) in bad {
        let err = RuleSet::from_texts(&[("t.rules".into(), text.into())], "test").unwrap_err();
        assert!(err.to_string().contains(want), "{text}: {err}");
    }
}
