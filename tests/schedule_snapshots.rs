//! Snapshots (insta, in `snapshots/`) of the Scheduling seed's examples at slowdown 2:
//! the extracted design, its model area, the e-graph and stream-graph sizes, and the
//! explanation (the scheduled sequence term, its derivation from the program, and the
//! lowering). Everything here is deterministic. To update after a deliberate change:
//! `INSTA_UPDATE=always cargo test --test schedule_snapshots`, then review the diff.

use std::path::Path;
use tessera::schedule::egraph;
use tessera::seq::load_program;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn snapshot(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/seed/{name}.seq"));
    let p = load_program(&path).unwrap_or_else(|e| panic!("{e}"));
    let o = egraph::Options {
        explain: true,
        ..egraph::Options::default()
    };
    let got = egraph::schedule(&p, 2, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
    let e = got.explanation.as_ref().expect("an explanation");
    let derivation = egraph::derivation(&p, &e.term).unwrap_or_else(|err| panic!("{name}: {err}"));
    let a = &got.area_vec;
    let mut s = format!(
        "{name} at slowdown 2\narea {:.1} (logic {}, ff {} bits, ram {} bits, dsp {})\n\
         e-graph {} e-nodes / {} e-classes; stream graph {} nodes / {} classes; burst {:?}\n\n",
        got.area,
        a.logic,
        a.ff_bits,
        a.ram_bits,
        a.dsp,
        got.seq_nodes,
        got.seq_classes,
        got.egraph_nodes,
        got.egraph_classes,
        got.burst
    );
    s.push_str(&got.design.to_text());
    s.push_str("\nderivation:\n");
    s.push_str(&derivation.text(90));
    s.push_str("\nlowering:\n");
    for l in &e.lowering {
        s.push_str(l);
        s.push('\n');
    }
    s
}

#[test]
fn seed_designs_at_slowdown_2() {
    for name in [
        "map4abs",
        "map4abs_twice",
        "select4",
        "select_map",
        "diamond",
    ] {
        let text = snapshot(name);
        settings().bind(|| insta::assert_snapshot!(format!("schedule_{name}_s2"), text));
    }
}
