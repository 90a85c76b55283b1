//! Tests of parallel copy sequentialization (`src/out_of_ssa/sequentialize.rs`):
//! Algorithm 1 of Boissinot et al., "Revisiting Out-of-SSA Translation for
//! Correctness, Code Quality, and Efficiency", CGO 2009, §III-C. The
//! claims they check are
//! proved in proofs-notes/parallel-copy-sequentialization.md, which names
//! each test below.
//!
//! The bounded-exhaustive test enumerates every parallel copy over up to 7
//! locations: every partial function from destinations to sources, fan-out
//! and self-copies included, 8^7 = 2,097,152 of them for 7 locations and
//! 2,223,278 in all. `SSAREF_EXHAUSTIVE=full cargo test --release --test
//! suite sequentialize -- --nocapture` adds the 9^8 = 43,046,721 over 8
//! locations; both print the counts.

use ssaref::out_of_ssa::sequentialize::{
    execute, optimal_copy_count, sequentialize_as_printed, sequentialize_parallel_copy,
    sequentialize_with_circuit_test, CircuitTest, UndefinedRead,
};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

fn full_run() -> bool {
    std::env::var("SSAREF_EXHAUSTIVE").is_ok_and(|v| v == "full")
}

/// The parallel semantics: every destination gets the value its source held
/// before the copy, and every other location keeps its value.
fn parallel<V: Clone>(copies: &[(u8, u8)], store: &BTreeMap<u8, V>) -> BTreeMap<u8, V> {
    let mut out = store.clone();
    for &(dst, src) in copies {
        out.insert(dst, store[&src].clone());
    }
    out
}

/// The parallel copy numbered `i` over locations `0..n`: its base `n + 1`
/// digit `d` is 0 when `d` is not written and `s + 1` when `d` gets the value
/// of `s` (`s = d` is a self-copy). The moves come in destination order.
fn copy_number(i: u64, n: usize) -> Vec<(u8, u8)> {
    let base = n as u64 + 1;
    let mut rest = i;
    let mut copies = Vec::new();
    for d in 0..n {
        let digit = rest % base;
        rest /= base;
        if digit > 0 {
            copies.push((d as u8, (digit - 1) as u8));
        }
    }
    copies
}

/// The number of cycles without an outgoing edge, computed a third way, on
/// the connected components of the location transfer graph: such a cycle is
/// a component in which every node has one predecessor and one successor.
fn closed_cycles_by_components(copies: &[(u8, u8)], n: usize) -> usize {
    let mut parent: Vec<usize> = (0..n).collect();
    let find = |parent: &mut Vec<usize>, mut x: usize| {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    };
    let mut indeg = vec![0; n];
    let mut outdeg = vec![0; n];
    let mut touched = vec![false; n];
    for &(d, s) in copies.iter().filter(|(d, s)| d != s) {
        let (d, s) = (d as usize, s as usize);
        indeg[d] += 1;
        outdeg[s] += 1;
        touched[d] = true;
        touched[s] = true;
        let (rd, rs) = (find(&mut parent, d), find(&mut parent, s));
        parent[rd] = rs;
    }
    let mut closed: HashMap<usize, bool> = HashMap::new();
    for x in (0..n).filter(|&x| touched[x]) {
        let root = find(&mut parent, x);
        let ok = indeg[x] == 1 && outdeg[x] == 1;
        *closed.entry(root).or_insert(true) &= ok;
    }
    closed.values().filter(|&&c| c).count()
}

/// How a sequence of copies fails to implement a parallel copy.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Failure {
    /// It reads a location before anything defines it (the spare).
    ReadsUndefined,
    /// Some original location ends with the wrong value.
    WrongValue,
    /// It writes the spare although no cycle needs it, or more often than
    /// there are cycles without an outgoing edge.
    SpareMisused,
    /// It has more copies than `optimal_copy_count`.
    NotOptimal,
}

/// Checks `seq` against the parallel copy `copies` over `0..n`, with the
/// spare `n`: executed on a store where location `l` holds `l` and the spare
/// holds nothing, it must leave every location `0..n` as the parallel
/// semantics does, write the spare exactly once per cycle without an
/// outgoing edge, and have exactly `optimal_copy_count(copies)` copies.
fn check(copies: &[(u8, u8)], n: usize, seq: &[(u8, u8)]) -> Result<(), Failure> {
    let spare = n as u8;
    let initial: BTreeMap<u8, u8> = (0..n as u8).map(|l| (l, l)).collect();
    let expected = parallel(copies, &initial);
    let mut store = initial;
    execute(seq, &mut store).map_err(|_| Failure::ReadsUndefined)?;
    if (0..n as u8).any(|l| store[&l] != expected[&l]) {
        return Err(Failure::WrongValue);
    }
    let optimum = optimal_copy_count(copies);
    let moves = copies.iter().filter(|(d, s)| d != s).count();
    let spare_writes = seq.iter().filter(|&&(d, _)| d == spare).count();
    if spare_writes != optimum - moves {
        return Err(Failure::SpareMisused);
    }
    if seq.len() != optimum {
        return Err(Failure::NotOptimal);
    }
    Ok(())
}

/// What a sweep over the parallel copies of one location set found.
#[derive(Default)]
struct Sweep {
    cases: u64,
    copies_emitted: u64,
    spare_writes: u64,
    /// For each kind of failure, how many copies failed that way and the
    /// first of them in enumeration order.
    failures: BTreeMap<Failure, (u64, Vec<(u8, u8)>)>,
}

/// Runs `test` on the parallel copies number `offset`, `offset + stride`,
/// ... over `n` locations, checks each result with [`check`], and checks
/// `optimal_copy_count` against [`closed_cycles_by_components`].
fn sweep(n: usize, stride: u64, offset: u64, test: CircuitTest) -> Sweep {
    let total = (n as u64 + 1).pow(n as u32);
    let spare = n as u8;
    let mut st = Sweep::default();
    let mut i = offset;
    while i < total {
        let copies = copy_number(i, n);
        let moves = copies.iter().filter(|(d, s)| d != s).count();
        assert_eq!(
            optimal_copy_count(&copies),
            moves + closed_cycles_by_components(&copies, n),
            "optimal_copy_count disagrees with the component count on {copies:?}"
        );
        let seq = sequentialize_with_circuit_test(&copies, spare, test);
        st.cases += 1;
        st.copies_emitted += seq.len() as u64;
        st.spare_writes += seq.iter().filter(|&&(d, _)| d == spare).count() as u64;
        if let Err(f) = check(&copies, n, &seq) {
            st.failures.entry(f).or_insert((0, copies)).0 += 1;
        }
        i += stride;
    }
    st
}

/// Correctness, the use of the spare and optimality of
/// `sequentialize_parallel_copy` on every parallel copy over up to 7
/// locations, 2,223,278 of them (note: "Tests", claims 1 to 3); with
/// `SSAREF_EXHAUSTIVE=full`, over up to 8 locations as well, 45,269,999.
#[test]
fn every_parallel_copy_over_up_to_7_locations_is_sequentialized_correctly_and_optimally() {
    let (max_n, expected) = if full_run() { (8, 45_269_999) } else { (7, 2_223_278) };
    let mut covered = 0;
    let start_all = Instant::now();
    for n in 0..=max_n {
        let start = Instant::now();
        let st = sweep(n, 1, 0, CircuitTest::Corrected);
        eprintln!(
            "{n} locations: {} parallel copies, {} copies emitted, {} through the spare, \
             {:.2}s",
            st.cases,
            st.copies_emitted,
            st.spare_writes,
            start.elapsed().as_secs_f64()
        );
        assert!(st.failures.is_empty(), "{n} locations: failures (count, first case) {:?}", st.failures);
        covered += st.cases;
    }
    eprintln!(
        "sequentialize_parallel_copy: {covered} parallel copies checked in {:.1}s",
        start_all.elapsed().as_secs_f64()
    );
    assert_eq!(covered, expected);
}

/// The printed circuit-breaking test, and its plain negation, fail, and
/// the exhaustive check over up to 6 locations finds both (note: "The
/// misprint"). The printed test gives wrong values, first on the swap, and
/// wastes copies through the spare, first on the single move `0 = 1`; the
/// negated test never gives a wrong value but wastes copies through the
/// spare, first when one location is copied to two others. The kinds of
/// failure and the first parallel copy of each kind in enumeration order
/// are the ones the note records.
#[test]
fn the_exhaustive_check_finds_the_printed_and_the_negated_circuit_tests_wrong() {
    for (test, expected_firsts) in [
        (
            CircuitTest::AsPrinted,
            vec![(Failure::WrongValue, vec![(0, 1), (1, 0)]), (Failure::SpareMisused, vec![(0, 1)])],
        ),
        (CircuitTest::NegatedAsPrinted, vec![(Failure::SpareMisused, vec![(0, 2), (1, 2)])]),
    ] {
        let start = Instant::now();
        let mut firsts: Vec<(Failure, Vec<(u8, u8)>)> = Vec::new();
        let mut counts: BTreeMap<Failure, u64> = BTreeMap::new();
        let mut cases = 0;
        for n in 0..=6 {
            let st = sweep(n, 1, 0, test);
            cases += st.cases;
            for (f, (count, first)) in st.failures {
                if !counts.contains_key(&f) {
                    firsts.push((f, first));
                }
                *counts.entry(f).or_insert(0) += count;
            }
        }
        eprintln!(
            "{test:?}: {cases} parallel copies over up to 6 locations, failures {counts:?}, \
             first of each kind {firsts:?}, {:.2}s",
            start.elapsed().as_secs_f64()
        );
        assert_eq!(firsts, expected_firsts, "{test:?}");
    }
}

/// The paper's letters as locations.
const A: u8 = 0;
const B: u8 = 1;
const C: u8 = 2;
const D: u8 = 3;
const N: u8 = 9;

/// The swap problem (Fig. 3): one cycle of two, no tree edge, so three
/// copies through the spare, in the order of Fig. 3(d) (note: "Tests",
/// claim 4).
#[test]
fn the_swap_needs_one_extra_copy_through_the_spare() {
    let swap = [(A, B), (B, A)];
    assert_eq!(optimal_copy_count(&swap), 3);
    let seq = sequentialize_parallel_copy(&swap, N);
    // Fig. 3(d) with a2 = A, b2 = B: n = b2; b2 = a2; a2 = n.
    assert_eq!(seq, vec![(N, B), (B, A), (A, N)]);
    let mut store: BTreeMap<u8, &str> = [(A, "a"), (B, "b")].into_iter().collect();
    execute(&seq, &mut store).unwrap();
    assert_eq!((store[&A], store[&B]), ("b", "a"));
}

/// The counterexample to the printed test: on the swap it emits nothing at
/// all, since neither location has been copied anywhere, so `b =
/// loc(pred(b))` never holds (note: "The misprint").
#[test]
fn the_printed_test_emits_nothing_for_a_swap() {
    let swap = [(A, B), (B, A)];
    assert_eq!(sequentialize_as_printed(&swap, N), vec![]);
    assert_eq!(check(&swap, 2, &[]), Err(Failure::WrongValue));
    // It also saves a finished copy in the spare: on a single move `A = B`,
    // `A = loc(pred(A))` holds once the move is done.
    assert_eq!(sequentialize_as_printed(&[(A, B)], N), vec![(A, B), (N, A)]);
    // The corrected test gets both right.
    assert_eq!(check(&swap, 2, &sequentialize_parallel_copy(&swap, 2)), Ok(()));
    assert_eq!(sequentialize_parallel_copy(&[(A, B)], N), vec![(A, B)]);
}

/// The counterexample to the printed test negated, `b ≠ loc(pred(b))`:
/// with fan-out, `loc(pred(b))` names only the newest copy of the source,
/// so a finished destination is saved in the spare and written again. The
/// values stay right (the exhaustive test checks it up to 6 locations), but
/// the count is not optimal (note: "The misprint").
#[test]
fn the_negated_test_wastes_copies_on_fan_out() {
    // C is copied to A and to B: B = C, A = B; then B, no longer the newest
    // copy of C, is saved in the spare and rewritten from A, and A, no
    // longer the newest either, is saved too; five copies instead of two.
    let fan_out = [(A, C), (B, C)];
    let seq = sequentialize_with_circuit_test(&fan_out, 3, CircuitTest::NegatedAsPrinted);
    assert_eq!(seq, vec![(B, C), (A, B), (3, B), (B, A), (3, A)]);
    assert_eq!(check(&fan_out, 3, &seq), Err(Failure::SpareMisused));
    assert_eq!(sequentialize_parallel_copy(&fan_out, 3), vec![(B, C), (A, B)]);
}

/// The example of §III-C, "(a ↦ b, b ↦ c, c ↦ a, c ↦ d)", read with the
/// paper's own convention (`a ↦ b` copies `a` into `b`, as in Algorithm 1's
/// `pred(b) ← a`). Algorithm 1 has no choice of order here (one location is
/// ready at each step), and the result is `d = c; c = b; b = a; a = d`, not
/// the printed `d = c; c = a; a = b; b = d`, which gives `c` the value of
/// `a` instead of `b` (note: "The example of §III-C").
#[test]
fn the_paper_example_as_written_gives_d_c_c_b_b_a_a_d() {
    let p = [(B, A), (C, B), (A, C), (D, C)];
    let seq = sequentialize_parallel_copy(&p, N);
    assert_eq!(seq, vec![(D, C), (C, B), (B, A), (A, D)]);
    assert_eq!(check(&p, 4, &sequentialize_parallel_copy(&p, 4)), Ok(()));
    let printed = [(D, C), (C, A), (A, B), (B, D)];
    assert_eq!(check(&p, 4, &printed), Err(Failure::WrongValue));
}

/// The printed sequence `d = c; c = a; a = b; b = d` is exactly what
/// Algorithm 1 emits for the example with the three circuit arrows
/// reversed, `(b ↦ a, c ↦ b, a ↦ c, c ↦ d)`: still one circuit, with the
/// tree edge `c ↦ d`, so no copy into the spare, and `b = d` rather than
/// `b = c` (note: "The example of §III-C").
#[test]
fn the_paper_example_with_the_circuit_reversed_gives_the_printed_sequence() {
    let p = [(A, B), (B, C), (C, A), (D, C)];
    let seq = sequentialize_parallel_copy(&p, N);
    assert_eq!(seq, vec![(D, C), (C, A), (A, B), (B, D)]);
    assert_eq!(optimal_copy_count(&p), 4);
    assert_eq!(check(&p, 4, &sequentialize_parallel_copy(&p, 4)), Ok(()));
}

/// Self-copies are dropped, including a self-copy of a location that is also
/// copied elsewhere, and two separate closed cycles each get their own
/// break through the one spare.
#[test]
fn self_copies_are_ignored_and_each_closed_cycle_is_broken_once() {
    assert_eq!(sequentialize_parallel_copy(&[(A, A)], N), vec![]);
    assert_eq!(optimal_copy_count(&[(A, A), (B, A)]), 1);
    assert_eq!(sequentialize_parallel_copy(&[(A, A), (B, A)], N), vec![(B, A)]);
    let two_swaps = [(A, B), (B, A), (C, D), (D, C)];
    assert_eq!(optimal_copy_count(&two_swaps), 6);
    let seq = sequentialize_parallel_copy(&two_swaps, 4);
    assert_eq!(seq.iter().filter(|&&(d, _)| d == 4).count(), 2);
    assert_eq!(check(&two_swaps, 4, &seq), Ok(()));
    // A cycle with a tree edge needs no spare, whichever node the edge
    // leaves from.
    for leaf_src in [A, B, C] {
        let p = [(A, B), (B, C), (C, A), (D, leaf_src)];
        assert_eq!(optimal_copy_count(&p), 4);
        let seq = sequentialize_parallel_copy(&p, 4);
        assert!(seq.iter().all(|&(d, s)| d != 4 && s != 4), "{seq:?}");
        assert_eq!(check(&p, 4, &seq), Ok(()));
    }
}

/// True when `f` holds of some sequence of `len` copies `(d, s)`, `d ≠ s`,
/// over the locations `0..m`; the sequences are counted with an odometer.
fn any_sequence(m: u8, len: usize, mut f: impl FnMut(&[(u8, u8)]) -> bool) -> bool {
    let all: Vec<(u8, u8)> = (0..m).flat_map(|d| (0..m).filter(move |&s| s != d).map(move |s| (d, s))).collect();
    let mut digits = vec![0usize; len];
    let mut seq: Vec<(u8, u8)> = vec![all[0]; len];
    loop {
        for (slot, &k) in seq.iter_mut().zip(&digits) {
            *slot = all[k];
        }
        if f(&seq) {
            return true;
        }
        let mut pos = 0;
        loop {
            if pos == len {
                return false;
            }
            digits[pos] += 1;
            if digits[pos] < all.len() {
                break;
            }
            digits[pos] = 0;
            pos += 1;
        }
    }
}

/// The lower bound, by brute force: for every parallel copy over up to 3
/// locations, no sequence of fewer than `optimal_copy_count` copies, with
/// two extra locations, implements it (note: "Optimality").
#[test]
fn no_shorter_sequence_exists_over_up_to_3_locations() {
    let mut cases = 0;
    for n in 0..=3usize {
        let m = n as u8 + 2;
        let initial: BTreeMap<u8, u8> = (0..n as u8).map(|l| (l, l)).collect();
        for i in 0..(n as u64 + 1).pow(n as u32) {
            let copies = copy_number(i, n);
            let expected = parallel(&copies, &initial);
            let optimum = optimal_copy_count(&copies);
            for len in 0..optimum {
                let found = any_sequence(m, len, |seq| {
                    let mut store = initial.clone();
                    execute(seq, &mut store).is_ok() && (0..n as u8).all(|l| store[&l] == expected[&l])
                });
                assert!(!found, "{copies:?} has a sequence of {len} < {optimum} copies");
            }
            cases += 1;
        }
    }
    eprintln!("no shorter sequence: {cases} parallel copies");
    assert_eq!(cases, 1 + 2 + 9 + 64);
}

/// `execute` runs copies in order and reports a read of an undefined
/// location, after the copies before it.
#[test]
fn execute_runs_in_order_and_reports_undefined_reads() {
    let mut store: BTreeMap<u8, i32> = [(A, 10), (B, 20)].into_iter().collect();
    execute(&[(B, A), (A, B)], &mut store).unwrap();
    assert_eq!((store[&A], store[&B]), (10, 10));
    let err = execute(&[(C, A), (A, N)], &mut store).unwrap_err();
    assert_eq!(err, UndefinedRead { index: 1, location: N });
    assert_eq!(store[&C], 10);
    assert_eq!(err.to_string(), "copy 1 reads 9, which holds no value");
}

#[test]
#[should_panic(expected = "is the destination of moves 0 and 1")]
fn two_moves_into_one_destination_are_rejected() {
    sequentialize_parallel_copy(&[(A, B), (A, C)], N);
}

#[test]
#[should_panic(expected = "the spare location 2 is named")]
fn a_spare_named_by_the_copy_is_rejected() {
    sequentialize_parallel_copy(&[(A, B), (B, C)], C);
}
