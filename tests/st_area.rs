//! The area model ranks designs as synthesis would: properties, not numbers copied from
//! the implementation.

use tessera::st::area::{area, own_area, own_area_bound, Weights};
use tessera::st::{parse_design, Design};

fn design(text: &str) -> Design {
    parse_design("t.st", text).unwrap_or_else(|e| panic!("{e}"))
}

fn scalar(text: &str) -> f64 {
    area(&design(text)).total.scalar(&Weights::default())
}

#[test]
fn more_parallel_schedules_cost_more() {
    let s1 = scalar("(input I (sseq 4 int8))\n(output (map_s 4 abs I))");
    let s2 = scalar("(input I (tseq 2 0 (sseq 2 int8)))\n(output (map_t 2 0 (map_s 2 abs) I))");
    let s4 = scalar("(input I (tseq 4 0 int8))\n(output (map_t 4 0 abs I))");
    assert!(s1 > s2 && s2 > s4, "{s1} {s2} {s4}");
    assert_eq!(s1, 4.0 * s4);
}

#[test]
fn constant_multiplies_are_shift_and_add_and_variable_ones_take_a_dsp() {
    let mul = |c: &str| {
        area(&design(&format!(
            "(input I (tseq 4 0 uint8))\n(output (map_t 4 0 (fn (x) (mul x (const uint8 {c}))) I))"
        )))
        .total
    };
    assert_eq!(mul("8").logic, 0, "a power of two is wiring");
    assert_eq!(mul("8").dsp, 0);
    assert!(mul("10").logic > 0 && mul("10").dsp == 0);
    assert!(mul("255").logic > mul("10").logic);
    let var = area(&design(
        "(input A (tseq 4 0 uint8))\n(input B (tseq 4 0 uint8))\n(output (map2_t 4 0 mul A B))",
    ))
    .total;
    assert_eq!(var.dsp, 1);
}

#[test]
fn storage_is_charged_where_hardware_holds_data() {
    // up_1d_t holds one element; up_1d_s is wires
    let up_t = area(&design(
        "(input I (tseq 1 3 uint8))\n(output (up_1d_t 4 0 uint8 I))",
    ))
    .total;
    assert!(up_t.ff_bits >= 8, "{up_t:?}");
    let up_s = area(&design(
        "(input I (sseq 1 uint8))\n(output (up_1d_s 4 uint8 I))",
    ))
    .total;
    assert_eq!(up_s.scalar(&Weights::default()), 0.0);
    // shift_t storage grows with the amount; shift_s is wires
    let sh = |s: u64| {
        area(&design(&format!(
            "(input I (tseq 64 0 uint8))\n(output (shift_t 64 0 {s} uint8 I))"
        )))
        .total
    };
    assert!(sh(32).ram_bits > sh(8).ram_bits && sh(8).ram_bits >= 64);
    // FIFO cost grows with depth
    let fifo = |d: u64| {
        scalar(&format!(
            "(input I (tseq 4 0 (sseq 2 uint8)))\n(output (fifo (tseq 4 0 (sseq 2 uint8)) {d} I))"
        ))
    };
    assert!(fifo(1) < fifo(2) && fifo(2) < fifo(16));
    assert_eq!(fifo(0), 0.0);
    // a pass-through reshape is free, a transpose is not
    let pass = scalar("(input I (tseq 4 0 (sseq 1 uint8)))\n(output (reshape (tseq 4 0 (sseq 1 uint8)) (tseq 4 0 uint8) I))");
    assert_eq!(pass, 0.0);
    let tr = scalar("(input I (tseq 4 0 (sseq 4 uint8)))\n(output (reshape (tseq 4 0 (sseq 4 uint8)) (sseq 4 (tseq 4 0 uint8)) I))");
    assert!(tr > 0.0);
}

#[test]
fn dag_sharing_is_paid_once_and_bodies_per_instance() {
    // one abs shared by both inputs of the join
    let d = design("(input I (sseq 2 int8))\n(let a (map_s 2 abs I))\n(output (map2_s 2 add a a))");
    let r = area(&d);
    assert_eq!(r.by_op["abs"].0, 2, "two lanes of one map_s");
    assert_eq!(r.by_op["add"].0, 2);
    let total: u64 = r.by_op.values().map(|(_, a)| a.logic).sum();
    assert_eq!(total, r.total.logic);
    let one = own_area(&d, d.output());
    assert_eq!(
        one.logic, 0,
        "the map itself is wiring; its body is charged per instance"
    );
}

/// `own_area_bound` never exceeds `own_area` (Aetherling's searches skip candidates on
/// it), and on a reshape between two layouts that hold data it is not zero: every reshape
/// among Aetherling's layouts of `(seq 8 (seq 4 uint32))` over 64 clocks.
#[test]
fn the_reshape_bound_is_below_the_area() {
    use tessera::schedule::slowdown::aetherling_layouts;
    use tessera::seq::types::{ScalarType, SeqType};
    use tessera::st::StOp;
    let t = SeqType::seq(8, SeqType::seq(4, ScalarType::UInt32.into()));
    let layouts = aetherling_layouts(&t, 64);
    assert!(layouts.len() > 4, "{}", layouts.len());
    let mut held = 0;
    for from in &layouts {
        for to in &layouts {
            let mut d = Design::new("r");
            let x = d.add_input("x", from.clone()).unwrap();
            let op = StOp::Reshape {
                from: from.clone(),
                to: to.clone(),
            };
            let r = d.add(op, &[x]).unwrap();
            let (a, b) = (own_area(&d, r), own_area_bound(&d, r));
            assert!(
                b.logic <= a.logic
                    && b.ff_bits <= a.ff_bits
                    && b.ram_bits <= a.ram_bits
                    && b.dsp <= a.dsp,
                "{from} -> {to}: bound {b:?} above area {a:?}"
            );
            if b.ff_bits + b.ram_bits > 0 {
                held += 1;
            }
        }
    }
    assert!(held > 0, "no reshape among them stores data");
}

#[test]
fn weights_zipped_into_lanes_are_priced_as_the_multiplies_by_each_weight() {
    // A kernel's weights reach each lane's multiply through a parameter: the RTL writes
    // every lane as the multiply by its own weight (shifts and adds), so the model prices
    // each lane as that multiply written with the literal in its place.
    let zipped = |weights: &str, n: u64| {
        area(&design(&format!(
            "(input I (sseq {n} uint8))\n\
             (output (map_s {n} (fn (p) (mul p))\n\
               (map2_s {n} (fn (x w) (atuple x w)) I (const (sseq {n} uint8) ({weights})))))"
        )))
        .total
    };
    let literal = |c: u64| {
        area(&design(&format!(
            "(input I uint8)\n(output (mul (atuple I (const uint8 {c}))))"
        )))
        .total
    };
    let lanes = zipped("1 3 5 8 7", 5);
    let alone = [1, 3, 5, 8, 7]
        .into_iter()
        .map(literal)
        .fold(tessera::st::area::Area::default(), |a, b| a + b);
    assert_eq!(lanes, alone);
    assert_eq!(lanes.dsp, 0);
    assert!(lanes.logic > 0, "3, 5 and 7 take adders");
    // the same weight on every lane: one variant, priced once per lane
    assert_eq!(zipped("3 3 3 3", 4), literal(3) * 4);
    // shifts by constant amounts are wiring on every lane
    let shifts = area(&design(
        "(input I (sseq 3 uint8))\n\
         (output (map_s 3 (fn (p) (lsl p))\n\
           (map2_s 3 (fn (x a) (atuple x a)) I (const (sseq 3 uint8) (0 1 2)))))",
    ))
    .total;
    assert_eq!(shifts.logic, 0, "{shifts:?}");
}

#[test]
fn weights_that_change_with_the_clock_take_a_multiplier() {
    // one lane reading a table of weights by phase: the RTL writes a general multiply
    let t = area(&design(
        "(input I (tseq 4 0 uint8))\n\
         (output (map_t 4 0 (fn (p) (mul p))\n\
           (map2_t 4 0 (fn (x w) (atuple x w)) I (const (tseq 4 0 uint8) (1 3 5 8)))))",
    ))
    .total;
    assert_eq!(t.dsp, 1, "{t:?}");
    // the same table held one weight per lane is no multiplier at all
    let s = area(&design(
        "(input I (tseq 4 0 (sseq 1 uint8)))\n\
         (output (map_t 4 0 (fn (v) (map_s 1 (fn (p) (mul p)) v))\n\
           (map2_t 4 0 (fn (x w) (map2_s 1 (fn (a b) (atuple a b)) x w)) I\n\
             (const (tseq 4 0 (sseq 1 uint8)) ((3) (3) (3) (3))))))",
    ))
    .total;
    assert_eq!(s.dsp, 0, "{s:?}");
}

#[test]
fn constants_keep_their_lanes_through_data_movement_and_fold_with_constants() {
    // a FIFO delays the weights; every lane still holds one
    let delayed = area(&design(
        "(input I (sseq 2 uint8))\n\
         (output (map_s 2 (fn (p) (mul p))\n\
           (map2_s 2 (fn (x w) (atuple x w)) I\n\
             (fifo (sseq 2 uint8) 2 (const (sseq 2 uint8) (4 8))))))",
    ))
    .total;
    assert_eq!((delayed.logic, delayed.dsp), (0, 0), "{delayed:?}");
    // an operator of two constants is folded by synthesis
    let folded = area(&design(
        "(input I (sseq 2 uint8))\n\
         (output (map2_s 2 (fn (a b) (mul (atuple a b)))\n\
           (const (sseq 2 uint8) (3 5)) (const (sseq 2 uint8) (7 9))))",
    ))
    .total;
    assert_eq!((folded.logic, folded.dsp), (0, 0), "{folded:?}");
}

/// Synthesis merges cells of one kind with the same inputs, then the registers they feed:
/// a `fifo` on the four lanes of one operator applied to the copies an `up_1d_s` makes holds
/// one word, counted once; on four different words (a `map_s` over the input's lanes), four.
#[test]
fn registers_after_one_operator_on_equal_lanes_are_counted_once() {
    use tessera::st::merged::merged_register_bits;
    let text = |src: &str| {
        design(&format!(
            "(input I (sseq 4 uint8))
(let v0 {src})
(let v1 (map_s 4 (fn (x) (add (atuple x (const uint8 3)))) v0))
(output (map2_s 4 (fn (a b) (sub (atuple a b))) (fifo (sseq 4 uint8) 1 v1) (fifo (sseq 4 uint8) 1 I)))"
        ))
    };
    let copies = text("(up_1d_s 4 uint8 (down_1d_s 4 1 uint8 I))");
    assert_eq!(merged_register_bits(&copies).fifo, 3 * 8);
    assert_eq!(area(&copies).merged_ff_bits, 3 * 8);
    let lanes = text("I");
    assert_eq!(merged_register_bits(&lanes).total(), 0);
}
