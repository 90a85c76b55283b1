//! Tests of spill-free SSA elimination (`location_transfer_graph.rs`,
//! `implement_spartan.rs`): Pereira and Palsberg, "SSA Elimination after
//! Register Allocation", CC 2009, and Fig. 7 of Pereira, "The Design and
//! Implementation of a SSA-based Register Allocator" (UCLA technical
//! report, §4.6). The theorems they check are
//! proved in proofs-notes/spill-free-ssa-elimination.md, which names each
//! test below.
//!
//! The two bounded-exhaustive tests cover the location set of 6 registers
//! and 3 slots. The first implements and runs spartan parallel copies
//! (Theorem 3, optimality, the §6 variants): by default every one over 6
//! registers and 2 slots and over 5 registers and 3 slots, and one partial
//! injection in 16 over 6 registers and 3 slots. The second compares
//! `check_spartan` with `check_spartan_graph` on well-defined copies
//! (Theorem 2 and its converse): by default all of them over 4 registers and
//! 3 slots and one in 9973 over 6 and 3. `SSAREF_EXHAUSTIVE=full cargo test
//! --release --test suite implement_spartan -- --nocapture` runs all of both over
//! 6 registers and 3 slots (17,572,114 partial injections, and 10^9
//! well-defined copies on every core) and prints the counts.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::mir::{Loc, MInst, Reg, Slot};
use ssaref::ssa_ra::implement_spartan::{
    check_implementation, count, implement_component, implement_spartan, run_seq, Counts, ElimOptions, SkipHooks,
};
use ssaref::ssa_ra::location_transfer_graph::{Component, LocationTransferGraph, ParallelCopy, Store};
use std::time::Instant;

/// The register `R(i+1)` of the papers' figures is `Reg(i)`.
fn r(i: u8) -> Loc {
    Loc::Reg(Reg(i))
}

/// The memory location `mi` of the papers' figures is `Slot(i)`.
fn m(i: u32) -> Loc {
    Loc::Slot(Slot(i))
}

/// A parallel copy written as the papers do: destinations, then sources.
fn copy(dsts: &[Loc], srcs: &[Loc]) -> ParallelCopy {
    assert_eq!(dsts.len(), srcs.len());
    ParallelCopy::new(dsts.iter().copied().zip(srcs.iter().copied()).collect())
}

fn full_run() -> bool {
    std::env::var("SSAREF_EXHAUSTIVE").is_ok_and(|v| v == "full")
}

/// Location `i` of a set of `regs` registers followed by slots.
fn loc_of(i: usize, regs: usize) -> Loc {
    if i < regs {
        Loc::Reg(Reg(i as u8))
    } else {
        Loc::Slot(Slot((i - regs) as u32))
    }
}

/// The parallel copy that writes location `d` from `src[d]`, when set.
fn copy_of(src: &[Option<usize>], regs: usize) -> ParallelCopy {
    ParallelCopy::new(
        src.iter().enumerate().filter_map(|(d, s)| s.map(|s| (loc_of(d, regs), loc_of(s, regs)))).collect(),
    )
}

/// Calls `f` on every partial injection from `0..n` to itself, given as
/// `src[d]`: the source of destination `d`, if any. These are the
/// well-defined parallel copies whose sources are distinct (condition 1).
fn for_each_partial_injection(n: usize, f: &mut dyn FnMut(&[Option<usize>])) {
    fn go(d: usize, src: &mut Vec<Option<usize>>, used: &mut Vec<bool>, f: &mut dyn FnMut(&[Option<usize>])) {
        if d == src.len() {
            f(src);
            return;
        }
        src[d] = None;
        go(d + 1, src, used, f);
        for s in 0..src.len() {
            if !used[s] {
                used[s] = true;
                src[d] = Some(s);
                go(d + 1, src, used, f);
                used[s] = false;
            }
        }
        src[d] = None;
    }
    go(0, &mut vec![None; n], &mut vec![false; n], f);
}

/// Condition 2 of the definition of spartan, on a partial injection, by
/// indices, independently of `check_spartan`: a slot is never copied to
/// another slot, and a slot that is written is read only by its own self
/// loop.
fn spartan_by_indices(src: &[Option<usize>], regs: usize) -> bool {
    src.iter().enumerate().all(|(d, &s)| match s {
        None => true,
        Some(s) if d >= regs => {
            let from_other_slot = s >= regs && s != d;
            let read_elsewhere = src.iter().enumerate().any(|(b, &x)| b != d && x == Some(d));
            !from_other_slot && !read_elsewhere
        }
        Some(_) => true,
    })
}

/// A deterministic 64-bit mix of `x` (splitmix64's finalizer).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What [`check_spartan_space`] covered.
#[derive(Default)]
struct SpartanStats {
    injections: u64,
    sampled: u64,
    spartan: u64,
    omitted: usize,
    counts: Counts,
}

/// Theorem 3 and the optimal instruction count, with the §6 variants, on
/// the spartan parallel copies over `regs` registers and `slots` slots:
/// every partial injection (distinct destinations, distinct sources) whose
/// number in the enumeration is a multiple of `stride`, filtered with
/// `is_spartan` (itself compared with an independent reading of condition
/// 2 and, Theorem 2, with `is_spartan_graph`). The options of the second
/// variant and the answers of its hooks vary from case to case. No
/// instruction can move a value from a slot to a slot: `MInst` has none.
fn check_spartan_space(regs: usize, slots: usize, stride: u64) -> SpartanStats {
    let mut st = SpartanStats::default();
    for_each_partial_injection(regs + slots, &mut |src| {
        st.injections += 1;
        if (st.injections - 1) % stride != 0 {
            return;
        }
        st.sampled += 1;
        let pc = copy_of(src, regs);
        let verdict = pc.is_spartan();
        assert_eq!(verdict, spartan_by_indices(src, regs), "is_spartan says {verdict} on {pc}");
        // Theorem 2 and its converse on this copy too.
        let graph = LocationTransferGraph::new(&pc).expect("a partial injection is well defined");
        assert_eq!(graph.is_spartan_graph(), verdict, "{pc}");
        // The message-building entry points decide the same way (checked on
        // a sample, since building the messages is most of their cost).
        if st.sampled % 64 == 0 {
            assert_eq!(pc.check_spartan().is_ok(), verdict, "{pc}");
            assert_eq!(graph.check_spartan_graph().is_ok(), verdict, "{pc}");
        }
        if !verdict {
            return;
        }
        st.spartan += 1;

        // Without options (the hooks would allow everything, but must not
        // be asked): the exact parallel copy, optimally.
        let insts = implement_spartan(&pc, &ElimOptions::default(), &SkipHooks::ALWAYS)
            .unwrap_or_else(|e| panic!("the spartan copy {pc} is rejected: {e}"));
        let counts = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &insts)
            .unwrap_or_else(|e| panic!("{e}"));
        st.counts += counts;

        // Component by component: a path of n nodes takes n - 1 moves,
        // loads and stores, a cycle of n registers n - 1 swaps, a self loop
        // nothing; and Algorithm 2 is their concatenation.
        let mut concatenated = Vec::new();
        for c in graph.components().expect("a spartan graph has components") {
            let code = implement_component(&c, &ElimOptions::default(), &SkipHooks::NEVER)
                .unwrap_or_else(|e| panic!("{c} of {pc}: {e}"));
            let k = count(&code);
            match &c {
                Component::Path(nodes) => {
                    assert_eq!((code.len(), k.swaps), (nodes.len() - 1, 0), "{c}: {code:?}")
                }
                Component::Cycle(regs) => {
                    assert_eq!((code.len(), k.swaps), (regs.len() - 1, regs.len() - 1), "{c}")
                }
                Component::SelfLoop(_) => assert!(code.is_empty(), "{c}: {code:?}"),
            }
            concatenated.extend(code);
        }
        assert_eq!(concatenated, insts, "Algorithm 2 on {pc}");

        // Store hoisting and load lowering, with options and hook answers
        // drawn from the case number.
        let bits = mix(st.injections);
        let opts = ElimOptions { store_hoisting: bits & 1 == 1, load_lowering: bits & 2 == 2 };
        let bit = |m: Slot, r: Reg| (bits >> (2 + m.0 as usize * regs + r.0 as usize)) & 1 == 1;
        let skip_store = |m: Slot, r: Reg| bit(m, r);
        let skip_load = |m: Slot, r: Reg| !bit(m, r);
        let hooks = SkipHooks { skip_store: &skip_store, skip_load: &skip_load };
        let optimized = implement_spartan(&pc, &opts, &hooks).expect("spartan");
        let k = check_implementation(&pc, &opts, &hooks, &optimized).unwrap_or_else(|e| panic!("{e}"));
        st.omitted += counts.total() - k.total();
    });
    st
}

/// See the note, "Tests": Theorem 3, optimality and the §6 variants. By
/// default, every spartan copy over 6 registers and 2 slots and over 5
/// registers and 3 slots, and one partial injection in 16 over 6 registers
/// and 3 slots; all of them with `SSAREF_EXHAUSTIVE=full`.
#[test]
fn every_spartan_copy_is_implemented_correctly_and_optimally() {
    // (registers, slots, stride, partial injections, spartan ones); the
    // totals were counted by a separate program.
    let spaces: &[(usize, usize, u64, u64, u64)] = if full_run() {
        &[(6, 3, 1, 17_572_114, 2_330_072)]
    } else {
        &[(6, 2, 1, 1_441_729, 421_768), (5, 3, 1, 1_441_729, 215_348), (6, 3, 16, 17_572_114, 0)]
    };
    for &(regs, slots, stride, injections, spartan) in spaces {
        let start = Instant::now();
        let st = check_spartan_space(regs, slots, stride);
        eprintln!(
            "spartan copies over {regs} registers and {slots} slots: {} partial injections, \
             {} checked (one in {stride}), {} spartan, implemented with {:?}; the §6 variants \
             omitted {} transfers; {:.1}s",
            st.injections,
            st.sampled,
            st.spartan,
            st.counts,
            st.omitted,
            start.elapsed().as_secs_f64()
        );
        assert_eq!(st.injections, injections);
        if stride == 1 {
            assert_eq!(st.spartan, spartan);
        }
    }
}

/// Theorem 2 and its converse on every well-defined copy of a set: for the
/// partial functions `src` from `0..n` to itself (`n = regs + slots`; the
/// number `i` gives `src[d]` as its base `n + 1` digit `d`, `n` meaning "no
/// move"), those with `i % stride == part`. Returns the number of copies
/// checked and how many were spartan.
fn check_theorem_2(regs: usize, slots: usize, stride: u64, part: u64) -> (u64, u64) {
    let n = regs + slots;
    let base = n as u64 + 1;
    let total = base.pow(n as u32);
    let (mut checked, mut spartan) = (0u64, 0u64);
    let mut pc = ParallelCopy::default();
    let mut i = part;
    while i < total {
        pc.moves.clear();
        let mut x = i;
        for d in 0..n {
            let s = (x % base) as usize;
            x /= base;
            if s < n {
                pc.moves.push((loc_of(d, regs), loc_of(s, regs)));
            }
        }
        let graph = LocationTransferGraph::new(&pc).unwrap_or_else(|e| panic!("{pc} has distinct destinations: {e}"));
        let by_copy = pc.is_spartan();
        let by_graph = graph.is_spartan_graph();
        if by_copy != by_graph {
            panic!(
                "{pc}: check_spartan says {:?}, check_spartan_graph says {:?}",
                pc.check_spartan(),
                graph.check_spartan_graph()
            );
        }
        // The message-building entry points decide the same way, and a copy
        // that is not spartan is rejected without a panic (on a sample,
        // since building the messages is most of the cost).
        if checked % 16 == 0 {
            assert_eq!(pc.check_spartan().is_ok(), by_copy, "{pc}");
            assert_eq!(graph.check_spartan_graph().is_ok(), by_graph, "{pc}");
            let implemented = implement_spartan(&pc, &ElimOptions::default(), &SkipHooks::NEVER);
            assert_eq!(implemented.is_ok(), by_copy, "{pc}");
        }
        spartan += u64::from(by_copy);
        checked += 1;
        i += stride;
    }
    (checked, spartan)
}

/// See the note, "Tests": Theorem 2 and its converse. By default, all
/// well-defined copies over 4 registers and 3 slots and one in 9973 over 6
/// registers and 3 slots; all 10^9 of the latter with
/// `SSAREF_EXHAUSTIVE=full` (on every core).
#[test]
fn check_spartan_and_check_spartan_graph_agree_on_well_defined_copies() {
    let start = Instant::now();
    let mut report = Vec::new();
    if full_run() {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        let parts: Vec<(u64, u64)> = std::thread::scope(|scope| {
            let handles: Vec<_> =
                (0..threads).map(|t| scope.spawn(move || check_theorem_2(6, 3, threads, t))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let checked: u64 = parts.iter().map(|p| p.0).sum();
        let spartan: u64 = parts.iter().map(|p| p.1).sum();
        assert_eq!(checked, 10u64.pow(9));
        report.push(format!("all {checked} over 6 registers and 3 slots ({spartan} spartan, {threads} threads)"));
    } else {
        let (checked, spartan) = check_theorem_2(4, 3, 1, 0);
        assert_eq!(checked, 8u64.pow(7));
        report.push(format!("all {checked} over 4 registers and 3 slots ({spartan} spartan)"));
        let stride = 9_973;
        let (checked, spartan) = check_theorem_2(6, 3, stride, 0);
        report.push(format!("{checked} over 6 registers and 3 slots, one in {stride} ({spartan} spartan)"));
    }
    eprintln!(
        "check_spartan = check_spartan_graph on well-defined copies: {}; {:.1}s",
        report.join("; "),
        start.elapsed().as_secs_f64()
    );
}

/// The five ϕ-functions of Fig. 7 of Pereira's report (§4.6), joining the
/// blocks X and Y into Z. Rows: `t1(R1) t2(m2) t3(R2) t4(R3) t5(R4)`, column
/// X: `t11(m1) t21(m2) t31(R4) t41(R2) t51(R3)`, column Y: `t12(R1) t22(R2)
/// t32(R4) t42(m3) t52(R3)`. Both columns are spartan as printed.
fn fig7() -> (Vec<Loc>, Vec<Loc>, Vec<Loc>) {
    let z = vec![r(0), m(2), r(1), r(2), r(3)];
    let x = vec![m(1), m(2), r(3), r(1), r(2)];
    let y = vec![r(0), r(1), r(3), m(3), r(2)];
    (z, x, y)
}

/// See the note, "Theorem 1" and "Fig. 7".
#[test]
fn pereira_fig7_allocation_is_frugal_and_its_columns_are_spartan() {
    let (z, x, y) = fig7();
    // Frugal, and no slot shared between two classes: the slots of the
    // five congruence classes (rows) are m1, m2, none, m3, none.
    let mut class_slots = Vec::new();
    for i in 0..z.len() {
        let mut slots: Vec<Loc> = [z[i], x[i], y[i]].into_iter().filter(|l| matches!(l, Loc::Slot(_))).collect();
        slots.dedup();
        assert!(slots.len() <= 1, "row {} uses two slots", i + 1);
        class_slots.extend(slots);
    }
    assert_eq!(class_slots, vec![m(1), m(2), m(3)]);
    for col in [&x, &y] {
        let pc = copy(&z, col);
        pc.check_spartan().unwrap_or_else(|e| panic!("{e}"));
        LocationTransferGraph::new(&pc).unwrap().check_spartan_graph().unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Column X: the permutation of R2, R3, R4 is a 3-cycle, implemented with
/// 2 swaps; t1 comes from m1 by a load (the figure prints `st R1 [m1]`,
/// but the copy needs a load; the note explains). t2 is a self loop on m2.
#[test]
fn pereira_fig7_column_x_needs_two_swaps_and_one_load() {
    let (z, x, _) = fig7();
    let pc = copy(&z, &x);
    let graph = LocationTransferGraph::new(&pc).unwrap();
    assert_eq!(
        graph.components().unwrap(),
        vec![
            Component::Path(vec![m(1), r(0)]),
            Component::Cycle(vec![Reg(1), Reg(2), Reg(3)]),
            Component::SelfLoop(m(2)),
        ]
    );
    let insts = implement_spartan(&pc, &ElimOptions::default(), &SkipHooks::NEVER).unwrap();
    assert_eq!(
        insts,
        vec![
            MInst::Reload { dst: Reg(0), slot: Slot(1) },
            // R4 ⊕ R3; R3 ⊕ R2, Algorithm 1's order for the cycle R2 → R3
            // → R4 → R2. The figure swaps R2, R4 then R3, R4, which is the
            // same order for the cycle listed from R3.
            MInst::Swap { a: Reg(3), b: Reg(2) },
            MInst::Swap { a: Reg(2), b: Reg(1) },
        ]
    );
    let k = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &insts).unwrap();
    assert_eq!(k, Counts { swaps: 2, loads: 1, ..Counts::default() });
    // The figure's own swaps, for the cycle listed from R3, are correct too.
    let figure = vec![
        MInst::Reload { dst: Reg(0), slot: Slot(1) },
        MInst::Swap { a: Reg(1), b: Reg(3) },
        MInst::Swap { a: Reg(2), b: Reg(3) },
    ];
    check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &figure).unwrap();
    assert_eq!(
        implement_component(
            &Component::Cycle(vec![Reg(2), Reg(3), Reg(1)]),
            &ElimOptions::default(),
            &SkipHooks::NEVER
        )
        .unwrap(),
        vec![MInst::Swap { a: Reg(1), b: Reg(3) }, MInst::Swap { a: Reg(3), b: Reg(2) }]
    );
    // The printed store in place of the load leaves R1 wrong.
    let printed = vec![
        MInst::Spill { slot: Slot(1), src: Reg(0) },
        MInst::Swap { a: Reg(1), b: Reg(3) },
        MInst::Swap { a: Reg(2), b: Reg(3) },
    ];
    let e = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &printed).unwrap_err();
    assert!(e.to_string().contains("wrong result"), "{e}");
}

/// Column Y: no cycle, hence no swap; one path m3 → R3 → R4 → R2 → m2,
/// emitted from its end exactly as the figure prints it: `st R2 [m2]; R2 :=
/// R4; R4 := R3; ld R3 [m3]`. With store hoisting the store goes.
#[test]
fn pereira_fig7_column_y_needs_no_swap() {
    let (z, _, y) = fig7();
    let pc = copy(&z, &y);
    assert_eq!(
        LocationTransferGraph::new(&pc).unwrap().components().unwrap(),
        vec![Component::Path(vec![m(3), r(2), r(3), r(1), m(2)]), Component::SelfLoop(r(0)),]
    );
    let insts = implement_spartan(&pc, &ElimOptions::default(), &SkipHooks::NEVER).unwrap();
    let expected = vec![
        MInst::Spill { slot: Slot(2), src: Reg(1) },
        MInst::Move { dst: Reg(1), src: Reg(3) },
        MInst::Move { dst: Reg(3), src: Reg(2) },
        MInst::Reload { dst: Reg(2), slot: Slot(3) },
    ];
    assert_eq!(insts, expected);
    let k = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &insts).unwrap();
    assert_eq!(k, Counts { moves: 2, loads: 1, stores: 1, ..Counts::default() });
    let hoisting = ElimOptions { store_hoisting: true, load_lowering: false };
    let hoisted = implement_spartan(&pc, &hoisting, &SkipHooks::ALWAYS).unwrap();
    assert_eq!(hoisted, expected[1..]);
    check_implementation(&pc, &hoisting, &SkipHooks::ALWAYS, &hoisted).unwrap();
}

/// Fig. 1 of Pereira and Palsberg, with one register r. In the SSA
/// allocation of Fig. 1(b), the edge from L2 carries `(a, b) := (a2, b2)`
/// with `a` in m and `a2` in m2: a copy between two slots, which the
/// on-demand spilling of Fig. 1(c) implements through a third slot mb.
/// Spill-free elimination rejects it. After CSSA (Fig. 1(d-e)), `a`, `a1`
/// and `a3` share m and the `b`s share r, so both columns are `(m, r) :=
/// (m, r)`: two self loops, no instruction, no extra location (the copy `a3
/// = a2` through r is an ordinary instruction, allocated before).
#[test]
fn pereira_palsberg_fig1_needs_no_extra_location() {
    let (reg, mem, m2) = (r(0), m(0), m(2));
    let ssa_l2 = copy(&[mem, reg], &[m2, reg]);
    assert!(ssa_l2.check_spartan().unwrap_err().to_string().contains("condition 2"));
    let graph = LocationTransferGraph::new(&ssa_l2).unwrap();
    assert!(graph.check_spartan_graph().is_err());
    assert!(implement_spartan(&ssa_l2, &ElimOptions::default(), &SkipHooks::NEVER).is_err());

    for column in [copy(&[mem, reg], &[mem, reg]), copy(&[mem, reg], &[mem, reg])] {
        let insts = implement_spartan(&column, &ElimOptions::default(), &SkipHooks::NEVER).unwrap();
        assert!(insts.is_empty(), "{insts:?}");
        check_implementation(&column, &ElimOptions::default(), &SkipHooks::NEVER, &insts).unwrap();
    }
}

/// The printed orders of Algorithm 1 are right, and the checker catches
/// the opposite orders: a path emitted from its start, and a cycle's swaps
/// in the other order (which rotates the wrong way when n ≥ 3).
#[test]
fn algorithm_1_orders_and_their_reversals() {
    // A path r0 → r1 → r2 → m0: m0 := r2; r2 := r1; r1 := r0.
    let path = copy(&[r(1), r(2), m(0)], &[r(0), r(1), r(2)]);
    let insts = implement_spartan(&path, &ElimOptions::default(), &SkipHooks::NEVER).unwrap();
    assert_eq!(
        insts,
        vec![
            MInst::Spill { slot: Slot(0), src: Reg(2) },
            MInst::Move { dst: Reg(2), src: Reg(1) },
            MInst::Move { dst: Reg(1), src: Reg(0) },
        ]
    );
    let reversed: Vec<MInst> = insts.iter().rev().cloned().collect();
    let e = check_implementation(&path, &ElimOptions::default(), &SkipHooks::NEVER, &reversed).unwrap_err();
    assert!(e.to_string().contains("wrong result"), "{e}");

    // A cycle r0 → r1 → r2 → r3 → r0: r3 ⊕ r2; r2 ⊕ r1; r1 ⊕ r0.
    let cycle = copy(&[r(1), r(2), r(3), r(0)], &[r(0), r(1), r(2), r(3)]);
    let insts = implement_spartan(&cycle, &ElimOptions::default(), &SkipHooks::NEVER).unwrap();
    assert_eq!(
        insts,
        vec![
            MInst::Swap { a: Reg(3), b: Reg(2) },
            MInst::Swap { a: Reg(2), b: Reg(1) },
            MInst::Swap { a: Reg(1), b: Reg(0) },
        ]
    );
    let reversed: Vec<MInst> = insts.iter().rev().cloned().collect();
    assert!(check_implementation(&cycle, &ElimOptions::default(), &SkipHooks::NEVER, &reversed).is_err());
    // A two-register cycle is one swap.
    let swap = copy(&[r(0), r(1)], &[r(1), r(0)]);
    assert_eq!(
        implement_spartan(&swap, &ElimOptions::default(), &SkipHooks::NEVER).unwrap(),
        vec![MInst::Swap { a: Reg(1), b: Reg(0) }]
    );
}

/// §6.1 and §6.2 on the path m0 → r0 → r1 → m1, with the hooks deciding
/// per slot and register.
#[test]
fn store_hoisting_and_load_lowering_omit_the_end_transfers() {
    let pc = copy(&[r(0), r(1), m(1)], &[m(0), r(0), r(1)]);
    let full = vec![
        MInst::Spill { slot: Slot(1), src: Reg(1) },
        MInst::Move { dst: Reg(1), src: Reg(0) },
        MInst::Reload { dst: Reg(0), slot: Slot(0) },
    ];
    let both = ElimOptions { store_hoisting: true, load_lowering: true };
    let cases: [(ElimOptions, SkipHooks<'_>, &[MInst]); 4] = [
        (ElimOptions::default(), SkipHooks::ALWAYS, &full),
        (both, SkipHooks::NEVER, &full),
        (both, SkipHooks::ALWAYS, &full[1..2]),
        (ElimOptions { store_hoisting: false, load_lowering: true }, SkipHooks::ALWAYS, &full[..2]),
    ];
    for (opts, hooks, want) in cases {
        let got = implement_spartan(&pc, &opts, &hooks).unwrap();
        assert_eq!(got, want, "{opts:?}");
        check_implementation(&pc, &opts, &hooks, &got).unwrap();
    }
    // The hooks receive the slot and the register of the omitted edge.
    let asked = std::cell::RefCell::new(Vec::new());
    let store = |m: Slot, r: Reg| {
        asked.borrow_mut().push(("store", m, r));
        m == Slot(7)
    };
    let load = |m: Slot, r: Reg| {
        asked.borrow_mut().push(("load", m, r));
        r == Reg(0)
    };
    let hooks = SkipHooks { skip_store: &store, skip_load: &load };
    let got = implement_spartan(&pc, &both, &hooks).unwrap();
    assert_eq!(got, full[..2]);
    assert_eq!(*asked.borrow(), vec![("store", Slot(1), Reg(1)), ("load", Slot(0), Reg(0))]);
    check_implementation(&pc, &both, &hooks, &got).unwrap();
}

/// Copies that are not spartan are rejected by every entry point, with a
/// message, and nothing panics.
#[test]
fn non_spartan_copies_are_rejected() {
    let cases: Vec<(ParallelCopy, &str)> = vec![
        // A windmill: r0 copied to r1 and r2 (condition 1).
        (copy(&[r(1), r(2)], &[r(0), r(0)]), "condition 1"),
        // A cycle through memory: (m0, r0) := (r0, m0) (condition 2).
        (copy(&[m(0), r(0)], &[r(0), m(0)]), "condition 2): memory"),
        // Memory inside a path: r0 → m0 → r1 (condition 2).
        (copy(&[m(0), r(1)], &[r(0), m(0)]), "is the destination of move 0 and the source of move 1"),
        // Memory to memory (condition 2), one move.
        (copy(&[m(1)], &[m(0)]), "move 0 copies memory"),
        // Two classes sharing a slot across the copy (see the note).
        (copy(&[m(0), r(0)], &[r(1), m(0)]), "condition 2"),
    ];
    for (pc, why) in cases {
        let e = pc.check_spartan().unwrap_err();
        assert!(e.to_string().contains(why), "{pc}: {e}");
        let graph = LocationTransferGraph::new(&pc).unwrap();
        assert!(graph.check_spartan_graph().is_err(), "{pc}");
        assert!(implement_spartan(&pc, &ElimOptions::default(), &SkipHooks::NEVER).is_err());
    }
    // Not even well defined: no graph, no meaning.
    let ill = copy(&[r(0), r(0)], &[r(1), r(2)]);
    assert!(!ill.is_well_defined());
    assert!(ill.check_spartan().unwrap_err().to_string().contains("not well defined"));
    assert!(LocationTransferGraph::new(&ill).is_err());
    assert!(ill.apply(&Store::distinct(&ill.locations(), 0)).is_err());
    assert!(implement_spartan(&ill, &ElimOptions::default(), &SkipHooks::NEVER).is_err());
    // A component that a spartan graph cannot have is refused by Algorithm 1.
    for c in [
        Component::Path(vec![m(0), m(1)]),
        Component::Path(vec![r(0), m(0), r(1)]),
        Component::Path(vec![r(0)]),
        Component::Cycle(vec![Reg(0)]),
        Component::Cycle(vec![Reg(0), Reg(1), Reg(0)]),
    ] {
        assert!(implement_component(&c, &ElimOptions::default(), &SkipHooks::NEVER).is_err());
    }
}

/// The parallel semantics swaps where a sequential reading would not, and
/// `run_seq` refuses what is not Seq or reads an undefined location.
#[test]
fn apply_and_run_seq() {
    let pc = copy(&[r(0), r(1), m(0)], &[r(1), r(0), r(1)]);
    let before = Store::distinct(&[r(0), r(1), m(0)], 10);
    let after = pc.apply(&before).unwrap();
    let got: Vec<(Loc, i64)> = after.iter().collect();
    assert_eq!(got, vec![(r(0), 11), (r(1), 10), (m(0), 11)]);

    let mut s = Store::distinct(&[r(0)], 0);
    assert!(run_seq(&[MInst::Move { dst: Reg(0), src: Reg(1) }], &mut s).is_err());
    assert!(run_seq(&[MInst::Out { src: Reg(0) }], &mut s).is_err());
    assert!(run_seq(&[MInst::Swap { a: Reg(0), b: Reg(0) }], &mut s).is_ok());
}

/// The checker fails code that uses a scratch register, even when the
/// result is right, and code that is longer than the optimum.
#[test]
fn check_implementation_rejects_scratch_locations_and_extra_instructions() {
    let pc = copy(&[r(0), r(1)], &[r(1), r(0)]);
    let with_scratch = vec![
        MInst::Move { dst: Reg(2), src: Reg(0) },
        MInst::Move { dst: Reg(0), src: Reg(1) },
        MInst::Move { dst: Reg(1), src: Reg(2) },
    ];
    let e = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &with_scratch).unwrap_err();
    assert!(e.to_string().contains("which the copy does not"), "{e}");
    let long = vec![
        MInst::Swap { a: Reg(0), b: Reg(1) },
        MInst::Swap { a: Reg(0), b: Reg(1) },
        MInst::Swap { a: Reg(0), b: Reg(1) },
    ];
    let e = check_implementation(&pc, &ElimOptions::default(), &SkipHooks::NEVER, &long).unwrap_err();
    assert!(e.to_string().contains("optimum"), "{e}");
}

#[test]
fn count_sorts_instructions_by_kind() {
    let insts = [
        MInst::Move { dst: Reg(0), src: Reg(1) },
        MInst::Swap { a: Reg(0), b: Reg(1) },
        MInst::Swap { a: Reg(2), b: Reg(1) },
        MInst::Reload { dst: Reg(0), slot: Slot(0) },
        MInst::Spill { slot: Slot(0), src: Reg(0) },
        MInst::Out { src: Reg(0) },
    ];
    let c = count(&insts);
    assert_eq!(c, Counts { moves: 1, swaps: 2, loads: 1, stores: 1, others: 1 });
    assert_eq!(c.total(), insts.len());
    // Counts add up field by field.
    let mut sum = c;
    sum += Counts { moves: 10, swaps: 20, loads: 30, stores: 40, others: 50 };
    assert_eq!(sum, Counts { moves: 11, swaps: 22, loads: 31, stores: 41, others: 51 });
}

/// About a second of the `implement_spartan` fuzz target on seeded random
/// bytes (the same body as `fuzz/fuzz_targets/implement_spartan.rs`).
#[test]
fn fuzz_implement_spartan_smoke() {
    let mut rng = SmallRng::seed_from_u64(0x5ba7_7a17);
    ssaref::campaign::fuzz_targets::fuzz_implement_spartan(&[]);
    ssaref::campaign::fuzz_targets::fuzz_implement_spartan(&[0xff; 64]);
    for _ in 0..80_000 {
        let len = rng.gen_range(0..200);
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        ssaref::campaign::fuzz_targets::fuzz_implement_spartan(&data);
    }
}
