//! Every lowering rule of `rules/lower/`, checked on random instances: a random operator
//! instance (lengths, amounts, indices, initial values), a random output layout the rule
//! matches (random top-layer form, invalid clocks and nested element layouts), the design
//! the rule builds, simulated clock by clock on several frames back to back and compared
//! with the interpreter running the sequence operator. Also: the rule files' error
//! messages.

#[path = "st_common/mod.rs"]
mod common;

use common::*;
use tessera::schedule::egraph::graph::fit;
use tessera::schedule::lower::{
    rules, Bound, Instance, LowerRule, LowerRules, Need, SeqArgs, SeqHead,
};
use tessera::seq::build;
use tessera::seq::op::{AtomOp, Op};
use tessera::seq::types::SeqType;
use tessera::seq::value::random_value;
use tessera::seq::{NodeId as PNode, Program};
use tessera::st::{Design, Layout, NodeId, StOp};
use tessera::util::rng::Rng;

/// Matched instances checked per rule.
const INSTANCES: usize = 12;
/// Random output layouts tried per rule before giving up (the test then fails: the rule
/// is never exercised).
const TRIES: usize = 20_000;

/// Two factors of `n`, at random.
fn split(rng: &mut Rng, n: u64) -> (u64, u64) {
    let ds: Vec<u64> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
    let a = *rng.pick(&ds);
    (a, n / a)
}

/// A random layout of `seq n (elem)` whose top layer has a random form.
fn rand_top(rng: &mut Rng, n: u64, le: &Layout, max_idle: u64) -> Layout {
    let idle = |rng: &mut Rng| rng.range(0, max_idle);
    let le = le.clone();
    match rng.range(0, 5) {
        0 => Layout::sseq(n, le),
        1 => Layout::tseq(n, idle(rng), le),
        2 => {
            let (no, ni) = split(rng, n);
            Layout::tseq(no, idle(rng), Layout::sseq(ni, le))
        }
        3 => {
            let (a, b) = split(rng, n);
            Layout::tseq(a, idle(rng), Layout::tseq(b, idle(rng), le))
        }
        4 => {
            let (a, bc) = split(rng, n);
            let (b, c) = split(rng, bc);
            Layout::tseq(
                a,
                idle(rng),
                Layout::tseq(b, idle(rng), Layout::tseq(c, idle(rng), le)),
            )
        }
        _ => {
            let (no, ni) = split(rng, n);
            Layout::tseq(
                no,
                idle(rng),
                Layout::tseq(1, idle(rng), Layout::sseq(ni, le)),
            )
        }
    }
}

/// The operator instance: the numbers and init the rule sees, and the program.
struct Case {
    args: SeqArgs,
    /// The producers' types, in argument order.
    inputs: Vec<SeqType>,
    /// The output's top-layer length.
    out_len: u64,
    /// The reducer or mapped function at the atoms.
    leaf: Leaf,
}

/// `seq 1 t`.
fn seq_1(t: SeqType) -> SeqType {
    SeqType::seq(1, t)
}

fn rand_case(rng: &mut Rng, head: SeqHead, e: &SeqType) -> Case {
    let n = rng.range(1, 8);
    let seq = |k: u64| SeqType::Seq(k, Box::new(e.clone()));
    let leaf = if rng.coin() {
        Leaf::Abs
    } else {
        Leaf::AddConst(rng.next_u64())
    };
    let (nums, init, inputs) = match head {
        SeqHead::Map | SeqHead::Reduce => (vec![n], None, vec![seq(n)]),
        SeqHead::Map2 => (vec![n], None, vec![seq(n), seq(n)]),
        SeqHead::Down => (vec![n, rng.range(0, n - 1)], None, vec![seq(n)]),
        SeqHead::Up => (vec![n], None, vec![seq(1)]),
        SeqHead::Shift => {
            let init = rng.coin().then(|| random_value(e, rng));
            (vec![n, rng.range(0, n)], init, vec![seq(n)])
        }
        SeqHead::Transpose | SeqHead::Unpartition => {
            let ni = rng.range(1, 8);
            (
                vec![n, ni],
                None,
                vec![SeqType::seq(n, SeqType::seq(ni, e.clone()))],
            )
        }
        SeqHead::Partition => {
            let ni = rng.range(1, 8);
            (vec![n, ni], None, vec![seq(n * ni)])
        }
        SeqHead::STupleToSeq => (vec![n], None, vec![seq_1(SeqType::stuple(n, e.clone()))]),
        SeqHead::SeqToSTuple => (vec![n], None, vec![seq(n)]),
    };
    // The output's element: a transpose's is a whole row (`seq no e`); the relabels' rules
    // match the whole output, so they see its type.
    let elem = match head {
        SeqHead::Transpose => seq(n),
        SeqHead::Partition => SeqType::seq(n, SeqType::seq(nums[1], e.clone())),
        SeqHead::Unpartition => seq(n * nums[1]),
        SeqHead::STupleToSeq => seq(n),
        SeqHead::SeqToSTuple => seq_1(SeqType::stuple(n, e.clone())),
        _ => e.clone(),
    };
    Case {
        out_len: head.out_len(&nums).expect("every number is given"),
        args: SeqArgs { nums, init, elem },
        inputs,
        leaf,
    }
}

/// The sequence program of the case.
fn program(head: SeqHead, c: &Case) -> Program {
    let mut p = Program::new("rule");
    let xs: Vec<PNode> = c
        .inputs
        .iter()
        .enumerate()
        .map(|(k, t)| p.add_input(format!("I{k}"), t.clone()))
        .collect();
    let e = c.args.elem.clone();
    let n = c.args.nums[0];
    let leaf = c.leaf;
    let out = match head {
        SeqHead::Map => {
            let a = build::arg(&mut p, 0, e);
            let body = seq_deep(&mut p, a, &|p, x| seq_leaf(p, leaf, x));
            build::map(&mut p, n, body, xs[0]).unwrap()
        }
        SeqHead::Map2 => {
            let a = build::arg(&mut p, 0, e.clone());
            let b = build::arg(&mut p, 1, e);
            let body = seq_deep2(&mut p, a, b, &seq_add);
            build::map2(&mut p, n, body, xs[0], xs[1]).unwrap()
        }
        SeqHead::Reduce => {
            let a = build::arg(&mut p, 0, e.zipped_pair());
            let body = seq_deep(&mut p, a, &|p, x| {
                build::apply(p, Op::Atom(AtomOp::Add), &[x]).unwrap()
            });
            build::reduce(&mut p, n, body, xs[0]).unwrap()
        }
        SeqHead::Down => build::apply(
            &mut p,
            Op::Down {
                n,
                idx: c.args.nums[1],
            },
            &[xs[0]],
        )
        .unwrap(),
        SeqHead::Up => build::apply(&mut p, Op::Up { n }, &[xs[0]]).unwrap(),
        SeqHead::Transpose => build::apply(
            &mut p,
            Op::Transpose {
                no: n,
                ni: c.args.nums[1],
            },
            &[xs[0]],
        )
        .unwrap(),
        SeqHead::Shift => build::apply(
            &mut p,
            Op::Shift {
                n,
                amount: c.args.nums[1],
                init: c.args.init.clone(),
            },
            &[xs[0]],
        )
        .unwrap(),
        SeqHead::Partition | SeqHead::Unpartition => {
            let (no, ni) = (n, c.args.nums[1]);
            let op = match head {
                SeqHead::Partition => Op::Partition { no, ni },
                _ => Op::Unpartition { no, ni },
            };
            build::apply(&mut p, op, &[xs[0]]).unwrap()
        }
        SeqHead::STupleToSeq => build::apply(&mut p, Op::STupleToSeq { n }, &[xs[0]]).unwrap(),
        SeqHead::SeqToSTuple => build::apply(&mut p, Op::SeqToSTuple { n }, &[xs[0]]).unwrap(),
    };
    p.set_output(out);
    p
}

/// The design the rule instance builds: the producers are design inputs in the layouts
/// the rule needs, the body applies the case's function at the atoms.
fn design(rule: &LowerRule, inst: &Instance, c: &Case) -> (Design, NodeId) {
    let mut d = Design::new(&rule.name);
    let needs = inst.need_layouts().unwrap();
    let mut ins: Vec<(usize, Layout)> = needs
        .iter()
        .filter_map(|(n, ls)| match n {
            Need::In { input, .. } => Some((*input, ls[0].clone())),
            Need::Body { .. } => None,
        })
        .collect();
    let in_order = ins.clone();
    ins.sort_by_key(|(k, _)| *k);
    let nodes: Vec<NodeId> = ins
        .iter()
        .map(|(k, l)| d.add_input(format!("I{k}"), l.clone()).unwrap())
        .collect();
    let kids: Vec<NodeId> = in_order
        .iter()
        .map(|(k, _)| nodes[ins.iter().position(|(j, _)| j == k).unwrap()])
        .collect();
    let leaf = c.leaf;
    let body = needs.iter().find_map(|(n, ls)| match n {
        Need::Body { .. } => {
            let params = ls[..ls.len() - 1].to_vec();
            Some(
                d.body_with(params, |d, a| {
                    Ok(match rule.head {
                        SeqHead::Map => st_deep(d, a[0], &|d, x| st_leaf(d, leaf, x)),
                        SeqHead::Map2 => st_deep2(d, a[0], a[1], &st_add),
                        _ => st_deep(d, a[0], &|d, x| {
                            d.add(StOp::Atom(AtomOp::Add), &[x]).unwrap()
                        }),
                    })
                })
                .unwrap(),
            )
        }
        Need::In { .. } => None,
    });
    let out = inst
        .emit(&mut d, &kids, body)
        .unwrap_or_else(|e| panic!("{e}"));
    d.set_output(out).unwrap();
    (d, out)
}

/// The rule's element variable (the innermost variable of its output pattern).
fn elem_var(rule: &LowerRule) -> usize {
    let mut vs = Vec::new();
    rule.out.vars(&mut vs);
    *vs.last()
        .expect("an output pattern has an element variable")
}

/// A random output layout of a relabel case (its whole type, `c.args.elem`) over the
/// element layout `le` (an atom for the seq-tuple operators).
fn rand_whole(rng: &mut Rng, head: SeqHead, c: &Case, le: &Layout) -> Layout {
    let n = c.args.nums[0];
    match head {
        SeqHead::Partition => {
            let row = rand_top(rng, c.args.nums[1], le, 2);
            rand_top(rng, n, &row, 2)
        }
        SeqHead::Unpartition => rand_top(rng, n * c.args.nums[1], le, 2),
        SeqHead::STupleToSeq => rand_top(rng, n, le, 2),
        _ => rand_top(rng, 1, &Layout::stuple(n, le.clone()), 2),
    }
}

/// Runs `check` on random cases until `INSTANCES` of them matched the rule; `check` gets
/// the number the instance would have and says whether it matched (and was checked).
fn each_instance(ri: usize, rule: &LowerRule, mut check: impl FnMut(&mut Rng, u64) -> bool) {
    let mut rng = Rng::new(1000 + ri as u64);
    let (mut matched, mut tries) = (0, 0);
    while matched < INSTANCES {
        tries += 1;
        assert!(
            tries <= TRIES,
            "lowering rule `{}`: only {matched} of {TRIES} random output layouts match it",
            rule.name
        );
        if check(&mut rng, matched as u64 + 1) {
            matched += 1;
        }
    }
}

/// A relabel rule on random instances: the producer in the layout with the output's
/// wires fitted to its type (one the scheduler offers), the output must be the same wires
/// and simulate equal to the interpreter.
fn check_relabel(ri: usize, rule: &LowerRule) {
    let (w, _) = rule
        .same_wires
        .expect("a relabel rule has `(same-wires ?l)`");
    each_instance(ri, rule, |rng, k| {
        let s = scalar(rng);
        let tuple = matches!(rule.head, SeqHead::STupleToSeq | SeqHead::SeqToSTuple);
        let le = if tuple {
            Layout::Scalar(s)
        } else {
            rand_layout(rng, 2, s)
        };
        let c = rand_case(rng, rule.head, &le.to_seq());
        let l = rand_whole(rng, rule.head, &c, &le);
        let Some(mut env) = rule.match_out(&c.args, &l) else {
            return false;
        };
        let Some(lx) = fit(&l.normalize(), &c.inputs[0]) else {
            return false;
        };
        env.set(w, Bound::Lay(lx));
        let inst = Instance::new(ri, env).expect("a matched rule's term is defined");
        assert!(inst.is_relabel());
        built_matches(ri, rule, &inst, &c, &l, k, 2);
        true
    });
}

/// Builds the instance, checks it produces the wires of `l` (the layout it matched) and
/// simulates it on `frames` frames against the interpreter running the operator.
fn built_matches(
    ri: usize,
    rule: &LowerRule,
    inst: &Instance,
    c: &Case,
    l: &Layout,
    k: u64,
    frames: usize,
) {
    let p = program(rule.head, c);
    let (d, out) = design(rule, inst, c);
    assert_eq!(
        d.layout(out).normalize(),
        l.normalize(),
        "lowering rule `{}` ({}) builds {} instead of the layout it matched, {l}",
        rule.name,
        inst.show(),
        d.layout(out)
    );
    // Names the rule in the output of a failing check.
    eprintln!("lowering rule `{}`: {} on {l}", rule.name, inst.show());
    check_pair(&p, &d, 7 * ri as u64 + k, frames);
}

fn check_rule(ri: usize, rule: &LowerRule) {
    if rule.head.whole_layout() {
        return check_relabel(ri, rule);
    }
    each_instance(ri, rule, |rng, k| {
        let s = scalar(rng);
        let mut le = rand_layout(rng, 2, s);
        let c = rand_case(rng, rule.head, &le.to_seq());
        if rule.head == SeqHead::Transpose {
            // The output's element is a row of `no` elements.
            le = rand_top(rng, c.args.nums[0], &le, 2);
        }
        let max_idle = if c.out_len == 1 {
            2 * c.args.nums[0]
        } else {
            2
        };
        let l = rand_top(rng, c.out_len, &le, max_idle);
        let Some(mut env) = rule.match_out(&c.args, &l) else {
            return false;
        };
        // Body parameters the output does not fix: the element layout itself (the test's
        // functions keep the element type and layout).
        let e = env.get(elem_var(rule)).cloned().expect("element bound");
        for (v, _) in &rule.choices {
            env.set(*v, e.clone());
        }
        assert!(matches!(e, Bound::Lay(_)));
        let inst = Instance::new(ri, env).expect("a matched rule's term is defined");
        let frames = rng.range(2, 3) as usize;
        built_matches(ri, rule, &inst, &c, &l, k, frames);
        true
    });
}

#[test]
fn every_lowering_rule_matches_the_interpreter_on_random_instances() {
    let rs = rules();
    assert!(
        rs.rules.len() >= 20,
        "the built-in lowering rules are loaded"
    );
    for (ri, rule) in rs.rules.iter().enumerate() {
        check_rule(ri, rule);
    }
}

#[test]
fn every_operator_has_a_rule_for_each_output_form() {
    // Which output forms of a length-4 top layer (length 1 for reduce and down_1d) some rule
    // lowers: reference §4.5's space, time and partially parallel forms for every
    // operator, nested time layers except for up_1d, the mixed form for the maps only. A
    // transpose (3 rows of 4) has a rule for each layer in space or time; its partially
    // parallel forms are reshapes of those.
    let rs = rules();
    let e = Layout::Scalar(tessera::seq::types::ScalarType::Int8);
    let (t, s) = (Layout::tseq, Layout::sseq);
    let wide = [
        ("space", s(4, e.clone())),
        ("time", t(4, 1, e.clone())),
        ("time-space", t(2, 0, s(2, e.clone()))),
        ("time-time", t(2, 1, t(2, 0, e.clone()))),
        ("mixed", t(2, 0, t(1, 1, s(2, e.clone())))),
    ];
    let one = [
        ("space", s(1, e.clone())),
        ("time, enough clocks", t(1, 5, e.clone())),
        ("time, fewer clocks than elements", t(1, 1, e.clone())),
        ("time over one lane", t(1, 1, s(1, e.clone()))),
        ("time-time", t(1, 1, t(1, 1, e.clone()))),
    ];
    let rows = [
        ("space over space", s(4, s(3, e.clone()))),
        ("time over space", t(4, 1, s(3, e.clone()))),
        ("space over time", s(4, t(3, 1, e.clone()))),
        ("time over time", t(4, 1, t(3, 0, e.clone()))),
        (
            "partially parallel over space",
            t(2, 0, s(2, s(3, e.clone()))),
        ),
    ];
    for head in SeqHead::ALL {
        let (forms, unlowered): (&[(&str, Layout)], &[&str]) = match head {
            SeqHead::Map | SeqHead::Map2 => (&wide, &[]),
            SeqHead::Shift => (&wide, &["mixed"]),
            SeqHead::Up => (&wide, &["time-time", "mixed"]),
            SeqHead::Reduce | SeqHead::Down => (&one, &[]),
            SeqHead::Transpose => (&rows, &["partially parallel over space"]),
            // The relabels match any layout of their output: checked below.
            _ => continue,
        };
        let args = SeqArgs {
            nums: match head {
                SeqHead::Down | SeqHead::Shift => vec![4, 1],
                SeqHead::Transpose => vec![3, 4],
                _ => vec![4],
            },
            init: None,
            elem: match head {
                SeqHead::Transpose => SeqType::seq(3, e.to_seq()),
                _ => e.to_seq(),
            },
        };
        for (form, l) in forms {
            let matched: Vec<&str> = rs
                .for_head(head)
                .filter(|(_, r)| r.match_out(&args, l).is_some())
                .map(|(_, r)| r.name.as_str())
                .collect();
            assert_eq!(
                matched.is_empty(),
                unlowered.contains(form),
                "{} in the {form} form {l}: matched by {matched:?}",
                head.name()
            );
        }
    }
    // A relabel has one rule, for every layout that carries its output's atoms (whatever
    // its layers), and none for a layout of other atoms.
    let carried = [
        s(12, e.clone()),
        t(12, 1, e.clone()),
        t(3, 0, s(4, e.clone())),
        s(3, t(4, 2, e.clone())),
        t(2, 0, t(6, 1, e.clone())),
    ];
    let int8 = e.to_seq();
    for (head, ty) in [
        (
            SeqHead::Partition,
            SeqType::seq(3, SeqType::seq(4, int8.clone())),
        ),
        (SeqHead::Unpartition, SeqType::seq(12, int8.clone())),
        (SeqHead::STupleToSeq, SeqType::seq(12, int8.clone())),
    ] {
        let args = SeqArgs {
            nums: vec![3, 4],
            init: None,
            elem: ty,
        };
        for l in carried.iter().chain([&s(11, e.clone())]) {
            let matched = rs
                .for_head(head)
                .filter(|(_, r)| r.match_out(&args, l).is_some())
                .count();
            assert_eq!(
                matched,
                usize::from(l.atoms() == 12),
                "{} on {l}",
                head.name()
            );
        }
    }
}

fn load_error(text: &str) -> String {
    LowerRules::parse(&[("bad.rules", text)])
        .map(|_| "loaded".to_string())
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn bad_rule_files_get_positioned_errors() {
    let e = load_error(
        "(lower m\n  (seq (map ?n ?f ?x))\n  (out (sseq ?n ?le))\n  (body ?f (?le) ?le)\n  (in ?x (sseq ?n ?le))\n  (st (map_s ?n ?f ?y)))",
    );
    assert!(e.contains("bad.rules:6") && e.contains("`?y`"), "{e}");
    let e = load_error("(lower m (seq (map ?n ?f ?x)) (out (sseq ?n ?le)) (st (map_q ?n ?f ?x)))");
    assert!(e.contains("unknown space-time operator `map_q`"), "{e}");
    let e = load_error(
        "(lower m (seq (shift ?n ?s ?i ?x)) (out (sseq ?n ?le)) (in ?x (sseq ?k ?le)) (st (shift_s ?n ?s ?le ?i ?x)))",
    );
    assert!(e.contains("`?k` is used before it is bound"), "{e}");
    let e = load_error("(lower m (seq (map ?n ?f)) (out ?l) (st ?x))");
    assert!(e.contains("`map` takes 3 arguments"), "{e}");
    let e = load_error(
        "(lower a (seq (up_1d ?n ?x)) (out (sseq ?n ?le)) (in ?x (sseq 1 ?le)) (st (up_1d_s ?n ?le ?x)))\n(lower a (seq (up_1d ?n ?x)) (out (sseq ?n ?le)) (in ?x (sseq 1 ?le)) (st (up_1d_s ?n ?le ?x)))",
    );
    assert!(e.contains("defined twice"), "{e}");
    let e = load_error(
        "(lower t (seq (transpose ?no ?ni ?x)) (out (sseq ?ni ?le)) (where (layout ?q (sseq ?no ?e))) (in ?x (sseq ?no (sseq ?ni ?e))) (st (transpose ?no ?ni (sseq ?no (sseq ?ni ?e)) (sseq ?ni (sseq ?no ?e)) ?x)))",
    );
    assert!(
        e.contains("`?q` is used in `(layout ...)` before it is bound"),
        "{e}"
    );
    let e = load_error(
        "(lower p (seq (partition ?no ?ni ?x)) (out (sseq ?no ?le)) (in ?x (same-wires ?le)) (st ?x))",
    );
    assert!(
        e.contains("match the whole output layout, `(out ?l)`"),
        "{e}"
    );
    let e = load_error(
        "(lower p (seq (partition ?no ?ni ?x))\n  (out ?l)\n  (in ?x (same-wires ?k))\n  (st ?x))",
    );
    assert!(
        e.contains("bad.rules:3") && e.contains("`?k` in `(same-wires ...)` is not bound"),
        "{e}"
    );
    let e = load_error(
        "(lower u (seq (up_1d ?n ?x)) (out (sseq ?n ?le)) (in ?x (same-wires ?le)) (st ?x))",
    );
    assert!(e.contains("and only they"), "{e}");
}

#[test]
fn the_rules_lower_directory_is_the_built_in_set() {
    let mut on_disk: Vec<String> = std::fs::read_dir("rules/lower")
        .unwrap()
        .map(|e| format!("rules/lower/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".rules"))
        .collect();
    on_disk.sort();
    let mut built_in: Vec<String> = tessera::schedule::lower::DEFAULT_LOWER_FILES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    built_in.sort();
    assert_eq!(on_disk, built_in);
    for (name, text) in tessera::schedule::lower::DEFAULT_LOWER_FILES {
        assert_eq!(std::fs::read_to_string(name).unwrap(), *text, "{name}");
    }
}

#[test]
fn rules_that_build_the_same_term_give_equal_instances() {
    let rs = rules();
    let find = |name: &str| {
        rs.rules
            .iter()
            .position(|r| r.name == name)
            .unwrap_or_else(|| panic!("no rule {name}"))
    };
    let (partial, one_lane) = (find("down-time-partial"), find("down-time-one-lane"));
    assert_eq!(rs.rules[partial].shape, rs.rules[one_lane].shape);
    assert_ne!(rs.rules[partial].shape, rs.rules[find("down-time")].shape);
    // down_1d 4 0 on int8 at one output per 2 clocks: `tseq 1 1 int8` and
    // `tseq 1 1 (sseq 1 int8)` are one stream class, built by the same term.
    let int8 = Layout::Scalar(tessera::seq::types::ScalarType::Int8);
    let args = SeqArgs {
        nums: vec![4, 0],
        init: None,
        elem: int8.to_seq(),
    };
    let a = rs.rules[partial]
        .match_out(&args, &Layout::tseq(1, 1, int8.clone()))
        .unwrap();
    let b = rs.rules[one_lane]
        .match_out(&args, &Layout::tseq(1, 1, Layout::sseq(1, int8)))
        .unwrap();
    let (a, b) = (
        Instance::new(partial, a).unwrap(),
        Instance::new(one_lane, b).unwrap(),
    );
    assert_eq!(a, b);
    assert_eq!(a.show(), b.show());
}
