use tessera::egraph::rules::RuleSet;
use tessera::egraph::saturate::{saturate_program, SatConfig, Limits};
use tessera::seq::load_program;

#[test]
fn scratch() {
    let all = RuleSet::defaults();
    let p = load_program(std::path::Path::new("examples/seed/blur3x1.seq")).unwrap();
    let cfg = SatConfig { limits: Limits { iterations: 15, nodes: 20000, time: None }, ..SatConfig::default() };
    let s = saturate_program(&p, &all, &cfg);
    eprintln!("all: {:?} nodes={} {:?}", s.report.stop, s.report.nodes, s.report.applied);
    let groups: Vec<Vec<&str>> = vec![vec!["map-fission"], vec!["partition-nest-smaller","partition-nest-larger","unpartition-nest-smaller","unpartition-nest-larger"],
      vec!["unpartition-assoc","unpartition-assoc-rev","partition-assoc","partition-assoc-rev"], vec!["map-partition","partition-map","map-unpartition","unpartition-map"],
      vec!["transpose-nest-outer"], vec!["shift-lanes"], vec!["map-up","up-map","map-down","down-map"]];
    for g in groups {
        let mut rs = all.clone();
        rs.rules.retain(|r| !g.contains(&r.name.as_str()));
        let s = saturate_program(&p, &rs, &cfg);
        eprintln!("without {:?}: {:?} it={} nodes={}", g, s.report.stop, s.report.iterations, s.report.nodes);
    }
}
