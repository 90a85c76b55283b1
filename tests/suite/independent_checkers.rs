//! The checkers that must not share code with what they check
//! (ARCHITECTURE.md, "a checker never shares the code it checks"): each
//! test plants a mistake that the pass's own helpers would have made twice,
//! shows that the old check (which used those helpers) accepted it, and
//! that the independent check rejects it.
//!
//! - out-of-ssa's "no interference in a class" (`checkers/class_interference_check.rs`)
//!   against a wrong value numbering in `out_of_ssa/values.rs`;
//! - the chordal optimum (`checkers/coloring_check.rs`) against a wrong
//!   register count of the assignment;
//! - frugal slots (`checkers/coloring_check.rs`) with its own classes,
//!   against a wrong class map shared by the colorer and the old check;
//! - the CSSA cross-check (`checkers/class_interference_check.rs`) with its own
//!   liveness, against a liveness mistake shared by PhiMemCoalesce and the
//!   old check (`analysis/cssa.rs`'s `check_cssa`; both checks on the
//!   lost-copy shape are the filetests of `tests/filetests/checkers/cssa/`);
//! - the spartan check of a phi column (`ssa_ra/ssa_elimination.rs`) with
//!   its self-moves.

use crate::common::parse_one;
use ssaref::analysis::dominance::DomTree;
use ssaref::analysis::liveness::compute_liveness;
use ssaref::checkers::class_interference_check::{check_classes_do_not_interfere, copy_chain_roots};
use ssaref::checkers::coloring_check::{
    check_chordal_optimum, check_frugal, max_register_demand, registers_named, ColoringCheckError,
};
use ssaref::entity::EntityVec;
use ssaref::ir::Value;
use ssaref::mir::{Reg, Slot};
use ssaref::out_of_ssa::values::{value_interfere, ValueInterference};
use ssaref::ssa_ra::coloring::{assign_registers, check_assignment, ColoringOptions};
use ssaref::ssa_ra::spill::{spill, SpillOptions};
use ssaref::ssa_ra::ssa_elimination::{eliminate_ssa, EliminationOptions};

/// Two additions whose results are both live at the second: they
/// intersect, and their values differ.
const TWO_SUMS: &str = "
fn main(v0) {
b0:
    v1 = add v0, v0
    v2 = add v0, v0
    v3 = add v1, v2
    ret v3
}
";

#[test]
fn class_check_rejects_a_class_that_a_wrong_value_numbering_lets_through() {
    let f = parse_one(TWO_SUMS);
    let (v1, v2) = (Value(1), Value(2));
    let dom = DomTree::compute(&f);
    let live = compute_liveness(&f);
    let mut ctx = ValueInterference::new(&f, &dom, &live);
    assert!(value_interfere(&ctx, v1, v2), "with the right numbering, v1 and v2 interfere");
    // The planted mistake: the coalescer's numbering says v2 holds v1's
    // value. The old check asked the same numbering and let the class pass.
    ctx.plant_wrong_value(v2, v1);
    assert!(!value_interfere(&ctx, v1, v2), "the old check accepted the class {{v1, v2}}");
    let err = check_classes_do_not_interfere(&f, &[], &[vec![v1, v2]]).expect_err("the independent check rejects it");
    assert_eq!((err.live.min(err.def), err.live.max(err.def)), (v1, v2), "{err}");
    let text = err.to_string();
    assert!(text.contains("v1") && text.contains("v2"), "{text}");
}

#[test]
fn class_check_accepts_copies_of_one_value_and_splits_at_parallel_copies() {
    // v2 and v3 are copies of v1: one value, so one class is fine.
    let f = parse_one(
        "fn main(v0) {\nb0:\n    v1 = add v0, v0\n    v2 = copy v1\n    v3 = copy v2\n    v4 = add v2, v3\n    v5 = add v4, v1\n    ret v5\n}\n",
    );
    let roots = copy_chain_roots(&f);
    assert_eq!((roots[2], roots[3]), (Value(1), Value(1)));
    check_classes_do_not_interfere(&f, &[], &[vec![Value(1), Value(2), Value(3)]]).expect("one value");
    // A swap as one parallel copy: v3 = copy v2 and v4 = copy v1 read both
    // sources first, so v1 dies at the copy and v4 may share its class; as
    // sequential copies, v1 is still live at the definition of v3.
    let swap = parse_one(
        "fn main(v0) {\nb0:\n    v1 = add v0, v0\n    v2 = add v1, v0\n    v3 = copy v2\n    v4 = copy v1\n    v5 = sub v3, v4\n    ret v5\n}\n",
    );
    let b0 = ssaref::ir::Block(0);
    let classes = [vec![Value(1), Value(3)]];
    check_classes_do_not_interfere(&swap, &[(b0, 2, 4)], &classes).expect("the sources die at the parallel copy");
    check_classes_do_not_interfere(&swap, &[], &classes).expect_err("v1 is live at v3 when the copies are sequential");
    // An empty range is no parallel copy: the answers are the ones without it.
    for empty in [(b0, 5, 5), (b0, 2, 2), (b0, 0, 0)] {
        check_classes_do_not_interfere(&swap, &[empty, (b0, 2, 4)], &classes).expect("as with the swap alone");
        check_classes_do_not_interfere(&swap, &[empty], &classes).expect_err("as with no parallel copy");
    }
}

/// Straight-line code with a demand of two registers.
const DEMAND_TWO: &str = "
fn main(v0) {
b0:
    v1 = add v0, v0
    v2 = add v1, v0
    ret v2
}
";

#[test]
fn chordal_optimum_counts_registers_in_the_mir_not_the_pass_count() {
    let mut f = parse_one(DEMAND_TWO);
    let k = 4;
    let s = spill(&mut f, &SpillOptions { k, load_lowering: false, recycle_reloads: false }).expect("spill");
    assert!(s.spilled.is_empty());
    let mut a = assign_registers(&f, &s, k, &ColoringOptions::default()).expect("assign");
    assert_eq!((a.registers_used, s.max_demand, max_register_demand(&f, &s.spilled, k)), (2, 2, 2));
    // The planted mistake: v2 goes to a third register, a valid coloring,
    // while the pass still reports 2 registers used.
    a.reg[Value(2)] = Some(Reg(3));
    check_assignment(&f, &s, &a, k).expect("the coloring itself is valid");
    // The old check compared `registers_used` with the demand: equal, so it
    // accepted.
    assert_eq!(a.registers_used, s.max_demand, "what the old optimality check compared");
    let opts = EliminationOptions { store_hoisting: true, redundant_memory_transfer_elimination: true };
    let (mf, _) = eliminate_ssa(&f, &s, &a, k, &opts).expect("eliminate");
    assert_eq!(registers_named(&mf).len(), 3);
    let err = check_chordal_optimum(&f, &s.spilled, &mf).expect_err("three registers for a demand of two");
    assert_eq!(err, ColoringCheckError::NotOptimal { used: 3, demand: 2 });
    assert!(err.to_string().contains("3 registers") && err.to_string().contains("demand of 2"), "{err}");
}

#[test]
fn frugal_check_recomputes_the_phi_classes() {
    let f = parse_one(
        "fn main(v0) {\nb0:\n    v1 = add v0, v0\n    br v0, b1, b2\nb1(b0):\n    v2 = add v0, v1\n    jump b3\nb2(b0):\n    v3 = add v1, v1\n    jump b3\nb3(b1, b2):\n    v4 = phi v2, v3\n    v5 = phi v1, v3\n    v6 = add v4, v5\n    ret v6\n}\n",
    );
    let mut slot: EntityVec<Value, Option<Slot>> = EntityVec::from_elem(None, f.value_count as usize);
    // v4 and v5 are different phis, joined through v3: one class.
    slot[Value(4)] = Some(Slot(0));
    slot[Value(2)] = Some(Slot(0));
    check_frugal(&f, &slot).expect("one slot for the class");
    slot[Value(5)] = Some(Slot(1));
    let err = check_frugal(&f, &slot).expect_err("the class of v4 and v5 uses two slots");
    assert!(matches!(err, ColoringCheckError::NotFrugal { slot: Slot(1), other_slot: Slot(0), .. }), "{err}");
    assert!(err.to_string().contains("not frugal"), "{err}");
}

/// Two phis of one block reading the same value on one edge: the column
/// `(v2 <- v1, v3 <- v1)` repeats a source, so it is not spartan.
const SHARED_ARGUMENT: &str = "
fn main(v0) {
b0:
    v1 = add v0, v0
    jump b1
b1(b0):
    v2 = phi v1
    v3 = phi v1
    v4 = add v2, v3
    ret v4
}
";

#[test]
fn spartan_check_sees_the_column_with_its_self_moves() {
    let mut f = parse_one(SHARED_ARGUMENT);
    let k = 4;
    let s = spill(&mut f, &SpillOptions { k, load_lowering: false, recycle_reloads: false }).expect("spill");
    let mut a = assign_registers(&f, &s, k, &ColoringOptions::default()).expect("assign");
    // v1 and v2 in rax (a self-move on the edge), v3 in rcx: the column is
    // (rax <- rax, rcx <- rax), which repeats the source rax.
    for (v, r) in [(0, 0), (1, 0), (2, 0), (3, 1), (4, 0)] {
        a.reg[Value(v)] = Some(Reg(r));
    }
    check_assignment(&f, &s, &a, k).expect("the coloring is valid");
    let opts = EliminationOptions { store_hoisting: false, redundant_memory_transfer_elimination: false };
    // The old check ran on (rcx <- rax) alone, after dropping the self-move,
    // and accepted it; the column as given is not spartan.
    let err = eliminate_ssa(&f, &s, &a, k, &opts).expect_err("not spartan");
    assert!(err.to_string().contains("not spartan"), "{err}");
}

/// The lost-copy shape, which both CSSA checks reject (the filetest shows
/// their errors), is CSSA for both once PhiLifting has run (Pereira, "The
/// Design and Implementation of a SSA-based Register Allocator", §4.2).
#[test]
fn lost_copy_is_cssa_for_both_checks_after_phi_lifting() {
    use ssaref::analysis::cssa::check_cssa;
    use ssaref::checkers::class_interference_check::check_cssa_independently;
    let mut lifted = crate::filetests::function("checkers/cssa/lost-copy.ssa");
    assert!(check_cssa(&lifted).is_err(), "as the filetest says");
    let err = check_cssa_independently(&lifted).expect_err("v0, v1 and v2 share a class, and v0 is live at v2");
    assert!(err.to_string().contains("not in CSSA form"), "{err}");
    ssaref::analysis::critical_edges::split_critical_edges(&mut lifted);
    ssaref::ssa_ra::phi_lifting::phi_lifting(&mut lifted);
    check_cssa(&lifted).expect("PhiLifting yields CSSA");
    check_cssa_independently(&lifted).expect("and by the independent liveness");
}

/// The old frugality check (removed from `ssa_ra/coloring.rs`'s
/// `check_assignment` in commit cf3ae11), rebuilt with its class map as a
/// parameter: it took the classes from `analysis/cssa.rs`'s
/// `phi_congruence_classes`, the map the colorer gives slots by, and
/// checked that each class of that map uses one slot.
fn old_frugal_check(class_of: &dyn Fn(Value) -> usize, slot: &EntityVec<Value, Option<Slot>>) -> Result<(), String> {
    let mut class_slot: std::collections::HashMap<usize, Slot> = std::collections::HashMap::new();
    for (v, s) in slot.iter() {
        let Some(s) = *s else { continue };
        if let Some(&t) = class_slot.get(&class_of(v)) {
            if t != s {
                return Err(format!("the phi class of {v} uses two slots, {s} and {t}: not frugal"));
            }
        }
        class_slot.insert(class_of(v), s);
    }
    Ok(())
}

/// A planted mistake in the class-to-slot map: a class per phi, a value
/// joining the class of the first phi that reads it, with no union across
/// phis (v3 is read by both phis of b3, so the classes of v4 and v5 are
/// one class, which this map splits). The colorer gives each class of the
/// map its own slot (the loop of `coloring.rs`'s `assign_registers`); the
/// old check, reading the same map, accepts; `check_frugal` recounts the
/// classes and rejects.
#[test]
fn frugal_check_rejects_slots_from_a_wrong_class_map_that_the_old_check_accepted() {
    let f = parse_one(
        "fn main(v0) {\nb0:\n    v1 = add v0, v0\n    br v0, b1, b2\nb1(b0):\n    v2 = add v0, v1\n    jump b3\nb2(b0):\n    v3 = add v1, v1\n    jump b3\nb3(b1, b2):\n    v4 = phi v2, v3\n    v5 = phi v1, v3\n    v6 = add v4, v5\n    ret v6\n}\n",
    );
    let mut wrong: Vec<Option<usize>> = vec![None; f.value_count as usize];
    for (i, phi) in f.blocks.values().flat_map(|b| b.phis.iter()).enumerate() {
        for v in std::iter::once(phi.dest).chain(phi.args.iter().copied()) {
            wrong[v.0 as usize].get_or_insert(i);
        }
    }
    let class_of = |v: Value| wrong[v.0 as usize].map_or(1000 + v.0 as usize, |c| c);
    assert_ne!(class_of(Value(4)), class_of(Value(5)), "the planted map splits the class");
    // The colorer's slot loop, on the spilled v4 and v5, with that map.
    let mut slot: EntityVec<Value, Option<Slot>> = EntityVec::from_elem(None, f.value_count as usize);
    let mut class_slot = std::collections::HashMap::new();
    for v in [Value(4), Value(5)] {
        let n = class_slot.len() as u32;
        slot[v] = Some(*class_slot.entry(class_of(v)).or_insert(Slot(n)));
    }
    assert_ne!(slot[Value(4)], slot[Value(5)]);
    old_frugal_check(&class_of, &slot).expect("the old check, reading the colorer's map, accepts");
    let err = check_frugal(&f, &slot).expect_err("v4 and v5 are one phi class in two slots");
    assert!(err.to_string().contains("not frugal"), "{err}");
    // With the true classes the old check rejects too: the mistake is the
    // map, which the old check shared.
    let classes = ssaref::analysis::cssa::phi_congruence_classes(&f);
    let true_class = |v: Value| classes.class_of(v).0 as usize;
    assert!(old_frugal_check(&true_class, &slot).is_err());
}

/// The old CSSA check after PhiMemCoalesce (`analysis/cssa.rs`'s
/// `check_cssa`), rebuilt with its liveness as a parameter: it computed
/// `liveness::compute_liveness`, the liveness PhiMemCoalesce decides with.
fn old_cssa_check(f: &ssaref::ir::Function, live: &ssaref::analysis::liveness::Liveness) -> Result<(), String> {
    let classes = ssaref::analysis::cssa::phi_congruence_classes(f);
    let interference = ssaref::analysis::liveness::Interference::new(f, live);
    for c in classes.nontrivial() {
        let members = classes.members(c);
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                if interference.interfere(a, b) {
                    return Err(format!("{a} and {b} are in class {c} and interfere"));
                }
            }
        }
    }
    Ok(())
}

/// The lost-copy shape with one interference: the class is
/// `{v1, v2, v3}`, and only `v2`, read by `ret v2` after the loop, is live
/// at the definition of `v3`.
const LOST_COPY_ONE_PAIR: &str = "
fn main(v0) {
b0:
    v1 = add v0, v0
    jump b1
b1(b0, b1):
    v2 = phi v1, v3
    v3 = add v2, v2
    br v3, b1, b2
b2(b1):
    ret v2
}
";

/// A planted liveness mistake: `v2`, read by `ret v2` in the loop's exit
/// block, is left out of the loop block's live-out and the exit's live-in
/// (the mistake of a liveness that misses a use in a successor). With it,
/// PhiMemCoalesce would see the class of `v2` and the lifted copy `v3` as
/// disjoint and coalesce them into this lost-copy shape, and the old
/// check, computing the same liveness, accepts the shape;
/// `check_cssa_independently` computes its own and rejects it.
#[test]
fn cssa_cross_check_rejects_what_a_shared_liveness_mistake_lets_the_old_check_accept() {
    use ssaref::checkers::class_interference_check::check_cssa_independently;
    let f = parse_one(LOST_COPY_ONE_PAIR);
    let mut live = compute_liveness(&f);
    let (b1, b2) = (ssaref::ir::Block(1), ssaref::ir::Block(2));
    assert!(live.live_out[b1].contains(Value(2)) && live.live_in[b2].contains(Value(2)), "v2 is live out of b1");
    old_cssa_check(&f, &live).expect_err("with the true liveness the old check rejects");
    live.live_out[b1].remove(Value(2));
    live.live_in[b2].remove(Value(2));
    old_cssa_check(&f, &live).expect("with the planted liveness mistake the old check accepts");
    let err = check_cssa_independently(&f).expect_err("its own liveness sees v2 live at v3");
    assert_eq!((err.0.live, err.0.def), (Value(2), Value(3)), "{err}");
    assert!(err.to_string().contains("not in CSSA form"), "{err}");
}
