//! The type checker and the `.st` reader: exact layouts, clear errors naming the
//! mismatching layouts with positions, and no panic on any input.

#[path = "st_common/mod.rs"]
mod common;

use tessera::seq::op::AtomOp;
use tessera::seq::types::ScalarType;
use tessera::st::area::area;
use tessera::st::latency::analyze;
use tessera::st::{parse_design, Design, Layout, StOp};
use tessera::util::rng::Rng;

fn err(text: &str) -> String {
    parse_design("t.st", text)
        .expect_err("must be rejected")
        .to_string()
}

#[test]
fn compositions_need_syntactically_equal_layouts() {
    let e = err("(input I (tseq 2 0 (sseq 2 int8)))\n(output (up_1d_t 2 0 int8 I))");
    assert!(
        e.starts_with("t.st:2:9: error: up_1d_t 2 0: layout mismatch"),
        "{e}"
    );
    assert!(
        e.contains("takes (tseq 1 1 int8)") && e.contains("gives (tseq 2 0 (sseq 2 int8))"),
        "{e}"
    );
    // (sseq 1 t) is not t, and (tseq 2 0 (tseq 2 0 t)) is not (tseq 4 0 t)
    let e = err("(input I (sseq 1 int8))\n(output (abs I))");
    assert!(e.contains("abs") && e.contains("(sseq 1 int8)"), "{e}");
    let e = err("(input I (tseq 2 0 (tseq 2 0 int8)))\n(output (shift_t 4 0 1 int8 I))");
    assert!(e.contains("takes (tseq 4 0 int8)"), "{e}");
    let e =
        err("(input A (tseq 2 0 int8))\n(input B (tseq 2 1 int8))\n(output (map2_t 2 0 add A B))");
    assert!(
        e.contains("(tseq 2 0 _)") && e.contains("(tseq 2 1 int8)"),
        "{e}"
    );
}

#[test]
fn reshapes_keep_clocks_elements_and_atom_type() {
    let e = err(
        "(input I (tseq 4 0 int8))\n(output (reshape (tseq 4 0 int8) (tseq 2 0 (sseq 2 int8)) I))",
    );
    assert!(
        e.contains("keeps the clock count") && e.contains("takes 4 clocks"),
        "{e}"
    );
    let e = err("(input I (tseq 4 0 int8))\n(output (reshape (tseq 4 0 int8) (tseq 2 2 int8) I))");
    assert!(e.contains("keeps the element count"), "{e}");
    let e = err("(input I (tseq 4 0 int8))\n(output (reshape (tseq 4 0 int8) (tseq 4 0 uint8) I))");
    assert!(e.contains("keeps the atom type"), "{e}");
    // a transpose is a reshape
    let d = parse_design(
        "t.st",
        "(input I (tseq 2 0 (sseq 3 int8)))\n(output (reshape (tseq 2 0 (sseq 3 int8)) (sseq 3 (tseq 2 0 int8)) I))",
    )
    .unwrap();
    assert_eq!(d.output_layout().to_string(), "(sseq 3 (tseq 2 0 int8))");
}

#[test]
fn exact_types_of_the_multi_rate_operators() {
    let mut d = Design::new("t");
    let e = Layout::tseq(2, 1, Layout::Scalar(ScalarType::UInt8));
    let x = d.add_input("I", Layout::tseq(1, 4, e.clone())).unwrap();
    let up = d
        .add(
            StOp::UpT {
                n: 3,
                i: 2,
                elem: e.clone(),
            },
            &[x],
        )
        .unwrap();
    assert_eq!(d.layout(up), &Layout::tseq(3, 2, e.clone()));
    let down = d
        .add(
            StOp::DownT {
                n: 3,
                i: 2,
                idx: 2,
                elem: e.clone(),
            },
            &[up],
        )
        .unwrap();
    assert_eq!(d.layout(down), &Layout::tseq(1, 4, e.clone()));
    let ser_in = Layout::tseq(1, 2, Layout::stuple(3, e.clone()));
    let s = d.add_input("S", ser_in.clone()).unwrap();
    let ser = d
        .add(
            StOp::Serialize {
                n: 3,
                i: 0,
                elem: e.clone(),
            },
            &[s],
        )
        .unwrap();
    assert_eq!(d.layout(ser), &Layout::tseq(3, 0, e.clone()));
    let de = d
        .add(
            StOp::Deserialize {
                n: 3,
                i: 0,
                elem: e.clone(),
            },
            &[ser],
        )
        .unwrap();
    assert_eq!(d.layout(de), &ser_in);
    let p = d.add_input("P", Layout::tseq(6, 6, e.clone())).unwrap();
    let pt = d
        .add(
            StOp::PartitionTT {
                no: 2,
                ni: 3,
                io: 1,
                ii: 1,
                elem: e.clone(),
            },
            &[p],
        )
        .unwrap();
    assert_eq!(
        d.layout(pt).to_string(),
        "(tseq 2 1 (tseq 3 1 (tseq 2 1 uint8)))"
    );
    assert_eq!(d.layout(pt).clocks(), d.layout(p).clocks());
    // every operator takes as many clocks in as out
    for id in [up, down, ser, de, pt] {
        let n = d.node(id);
        assert_eq!(d.layout(n.args[0]).clocks(), d.layout(id).clocks());
    }
    // index out of range, zero lengths, wrong arity, bad reducer
    assert!(d
        .add(
            StOp::DownT {
                n: 3,
                i: 2,
                idx: 3,
                elem: e.clone()
            },
            &[up]
        )
        .unwrap_err()
        .contains("out of range"));
    assert!(d
        .add(
            StOp::UpS {
                n: 0,
                elem: e.clone()
            },
            &[x]
        )
        .is_err());
    assert!(d
        .add(StOp::Atom(AtomOp::Abs), &[])
        .unwrap_err()
        .contains("takes 1 input"));
    let b = d
        .body_with(vec![Layout::Scalar(ScalarType::UInt8)], |d, a| {
            d.add(StOp::Atom(AtomOp::Abs), &[a[0]])
        })
        .unwrap();
    let r = d
        .add_input("R", Layout::sseq(2, Layout::Scalar(ScalarType::UInt8)))
        .unwrap();
    assert!(d
        .add(
            StOp::ReduceS {
                n: 2,
                body: b,
                regs: Vec::new(),
            },
            &[r]
        )
        .unwrap_err()
        .contains("zipped pair"));
}

#[test]
fn reader_errors_are_positioned_and_clear() {
    let cases = [
        (
            "(input I int8)\n(output (frobnicate I))",
            "2:9: error: unknown operator `frobnicate`",
        ),
        (
            "(input I int8)\n(output (abs J))",
            "2:14: error: undefined name `J`",
        ),
        (
            "(input I (sseq 0 int8))\n(output I)",
            "length must be at least 1",
        ),
        (
            "(input I (tseq 2 0 int8))\n(input K int8)\n(output (map_t 2 0 (fn (x) (add x K)) I))",
            "a function body is closed",
        ),
        (
            "(input I int8)\n(output (abs I I))",
            "takes 1 input(s), found 2",
        ),
        ("(input I int8)", "has no output"),
        (
            "(input I int8)\n(input I int8)\n(output I)",
            "defined twice",
        ),
        (
            "(input I (tseq 2 0 int8))\n(output (map_t 2 0 (fn (x y) x) I))",
            "must take 1 parameter",
        ),
        (
            "(input I (tseq 2 0 int8))\n(output (map_t 2 0 (fn ((x uint8)) x) I))",
            "receives int8, but is declared uint8",
        ),
        (
            "(input I (tseq 2 0 int8))\n(output (const (tseq 2 0 int8) (1 2 3)))",
            "expected a literal of type (seq 2 int8)",
        ),
        (
            "(input I (tseq 2 0 int8))\n(output (fifo (tseq 2 0 int8) -1 I))",
            "whole number for the delay",
        ),
        (
            "(input I (tseq 4 0 int8))\n(output I)\n(output I)",
            "exactly one output",
        ),
        (
            "(input I (tseq 2 0 int8))\n(input J (tseq 3 0 int8))\n(output I)",
            "every operator keeps the clock count",
        ),
        ("(input I (tseq 2 0 int8)\n(output I)", "unbalanced"),
    ];
    for (text, want) in cases {
        let e = err(text);
        assert!(e.contains(want), "for {text:?}: {e}");
    }
}

#[test]
fn layouts_print_and_read_back() {
    let l = Layout::tseq(
        2,
        1,
        Layout::sseq(
            2,
            Layout::stuple(
                3,
                Layout::atuple(ScalarType::Int8.into(), ScalarType::Bit.into()),
            ),
        ),
    );
    let text = format!("(input I {l})\n(output I)");
    let d = parse_design("t.st", &text).unwrap();
    assert_eq!(d.output_layout(), &l);
    assert_eq!(
        l.to_seq().to_string(),
        "(seq 2 (seq 2 (stuple 3 (atuple int8 bit))))"
    );
}

/// Random edits of valid design texts never make the reader, checker, latency or area
/// model panic; whatever parses also round-trips.
#[test]
fn mutated_designs_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/designs");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let t = std::fs::read_to_string(e.unwrap().path()).unwrap();
            t.lines()
                .filter(|l| !l.trim_start().starts_with(';'))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    texts.sort();
    let words = [
        "0",
        "1",
        "2",
        "3",
        "7",
        "(",
        ")",
        "int8",
        "sseq",
        "tseq",
        "stuple",
        "map_s",
        "reshape",
        "fifo",
        "x",
        "_",
        "abs",
        "(tseq 2 0 int8)",
        "-3",
        "99999999999999999999",
    ];
    let mut rng = Rng::new(11);
    let mut parsed = 0;
    for _ in 0..3000 {
        let t = rng.pick(&texts).clone();
        let mut toks: Vec<String> = t
            .replace('(', " ( ")
            .replace(')', " ) ")
            .split_whitespace()
            .map(String::from)
            .collect();
        for _ in 0..rng.range(1, 3) {
            let k = rng.range(0, toks.len() as u64 - 1) as usize;
            match rng.range(0, 3) {
                0 => toks[k] = rng.pick(&words).to_string(),
                3 => {
                    // renumber: keeps the shape, changes sizes, counts and indices
                    if let Some(j) = (0..toks.len())
                        .map(|j| (j + k) % toks.len())
                        .find(|j| toks[*j].parse::<u64>().is_ok())
                    {
                        toks[j] = rng.range(0, 4).to_string();
                    }
                }
                1 => {
                    toks.remove(k);
                }
                _ => toks.insert(k, rng.pick(&words).to_string()),
            }
        }
        let text = toks.join(" ");
        if let Ok(d) = parse_design("m.st", &text) {
            parsed += 1;
            let _ = analyze(&d);
            if d.output_layout().atoms() < 4096 && d.clocks() < 4096 {
                let _ = area(&d);
                common::round_trip(&d);
            }
        }
    }
    assert!(
        parsed > 50,
        "too few mutants parsed ({parsed}) to exercise the checker"
    );
}
