//! Parallel copy sequentialization: Algorithm 1 of Boissinot, Darte,
//! Rastello, Dupont de Dinechin and Guillon, "Revisiting Out-of-SSA
//! Translation for Correctness, Code Quality, and Efficiency" (CGO 2009),
//! §III-C.
//!
//! A parallel copy reads all of its sources before it writes any of its
//! destinations. [`sequentialize_parallel_copy`] turns one into a list of
//! ordinary copies with the same effect on every location the parallel copy
//! names, using at most one extra location, the `spare` (the paper's fresh
//! variable `n`). Self-copies `a ↦ a` are dropped, since Algorithm 1 requires
//! `a ≠ b` of its input. Several destinations may share a source (the paper's
//! "duplication"); destinations must be pairwise distinct.
//!
//! The number of copies emitted is the least possible
//! ([`optimal_copy_count`]): one per non-self move, plus one per cycle of
//! the location transfer graph that has no outgoing tree edge (a cycle none
//! of whose locations is also copied somewhere off the cycle). Such a cycle
//! is broken by saving one of its locations into the spare; no other copy
//! writes the spare.
//!
//! The printed pseudo-code breaks a circuit when `b = loc(pred(b))`. That
//! test holds exactly when the copy into `b` has *already been done* (and
//! `b` is the newest copy of its source), the opposite of what is meant: as
//! printed, the algorithm emits nothing for a swap `(a, b) := (b, a)`. The
//! right test is `loc(b) = b`: `b` still holds its own original value, so
//! (the `ready` list being empty) it lies on a cycle nobody has started.
//! Simply negating the printed test is not enough either, because of
//! fan-out. [`sequentialize_with_circuit_test`] keeps all three tests, so
//! that the exhaustive test can show the two wrong ones failing;
//! `proofs-notes/parallel-copy-sequentialization.md` proves the algorithm
//! with the corrected test correct and optimal and gives counterexamples
//! for the other two.
//!
//! Copies are written `(destination, source)` everywhere in this module,
//! like the moves of `location_transfer_graph::ParallelCopy`; the paper
//! writes `a ↦ b` for the copy of `a` into `b`, that is our `(b, a)`.

use crate::analysis::work_steps::step;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::Hash;

/// The test that decides, once the `ready` list is empty, whether the
/// destination `b` just popped from `to_do` starts a circuit that must be
/// broken with a copy into the spare (line 18 of Algorithm 1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CircuitTest {
    /// `b = loc(pred(b))`, as printed in the paper. Wrong: it fires when the
    /// copy into `b` is already done, and misses untouched cycles.
    AsPrinted,
    /// `b ≠ loc(pred(b))`, the printed test negated. Still wrong when a
    /// source is copied to several destinations: `loc(pred(b))` then names
    /// only the newest of them, so finished destinations are "broken" again.
    NegatedAsPrinted,
    /// `loc(b) = b`: the original value of `b` has not been copied anywhere
    /// yet, which (with `ready` empty) means that the copy into `b` is not
    /// done and `b` lies on a cycle without an outgoing tree edge.
    Corrected,
}

/// Sequentializes the parallel copy `copies`, given as `(destination,
/// source)` pairs, with Algorithm 1 and the corrected circuit-breaking test.
///
/// The result, executed in order, leaves every location named by `copies`
/// as the parallel copy would; it writes `spare` only to break a cycle that
/// has no outgoing tree edge, once per such cycle, and has exactly
/// [`optimal_copy_count`]`(copies)` copies. No emitted copy is a self-copy.
///
/// Panics when two moves have the same destination (the parallel copy would
/// have no meaning) or when `copies` names `spare`.
pub fn sequentialize_parallel_copy<L>(copies: &[(L, L)], spare: L) -> Vec<(L, L)>
where
    L: Copy + Eq + Hash + Ord + fmt::Debug,
{
    sequentialize_with_circuit_test(copies, spare, CircuitTest::Corrected)
}

/// Algorithm 1 exactly as printed in the paper, circuit-breaking test
/// included. It is wrong (see [`CircuitTest::AsPrinted`]); it is kept only
/// so that the tests can show how, and nothing else should call it.
pub fn sequentialize_as_printed<L>(copies: &[(L, L)], spare: L) -> Vec<(L, L)>
where
    L: Copy + Eq + Hash + Ord + fmt::Debug,
{
    sequentialize_with_circuit_test(copies, spare, CircuitTest::AsPrinted)
}

/// Algorithm 1, line by line, with the circuit-breaking test of line 18
/// chosen by `test`. Only [`CircuitTest::Corrected`] gives a correct and
/// optimal result; the other two exist for the tests.
///
/// The paper's `⊥` is a missing key of `loc` or `pred`, so the
/// initializations of lines 1 and 3 are the empty maps. The lists `ready`
/// and `to_do` are stacks: `push` appends and `pop` takes the newest
/// element, and the `forall` loops visit `copies` in order, which makes the
/// output a deterministic function of the order of `copies`.
///
/// Panics on the preconditions of [`sequentialize_parallel_copy`].
pub fn sequentialize_with_circuit_test<L>(copies: &[(L, L)], spare: L, test: CircuitTest) -> Vec<(L, L)>
where
    L: Copy + Eq + Hash + Ord + fmt::Debug,
{
    check_preconditions(copies, spare);
    // Algorithm 1 takes copies `a ↦ b` with `a ≠ b`: a self-copy needs no
    // instruction, and its location keeps its value.
    let moves: Vec<(L, L)> = copies.iter().copied().filter(|(b, a)| b != a).collect();

    // Line 1. `pred(n) ← ⊥` holds because no move names the spare.
    let mut ready: Vec<L> = Vec::new();
    let mut to_do: Vec<L> = Vec::new();
    // `loc(a)`: the newest location holding the original value of the
    // source `a`. `pred(b)`: the source whose original value `b` must get.
    // Lines 2 and 3 set both to `⊥` everywhere, which the empty maps are.
    let mut loc: HashMap<L, L> = HashMap::new();
    let mut pred: HashMap<L, L> = HashMap::new();
    // Lines 4 to 7: every source holds its own value, which is still needed;
    // every destination has a copy to do.
    for &(b, a) in &moves {
        loc.insert(a, a);
        pred.insert(b, a);
        to_do.push(b);
    }
    // Lines 8 and 9: a destination that is no source holds nothing anybody
    // needs, so it may be overwritten at once.
    for &(b, _) in &moves {
        if !loc.contains_key(&b) {
            ready.push(b);
        }
    }

    let mut out = Vec::with_capacity(moves.len() + 1);
    // Line 10.
    while !to_do.is_empty() {
        // Lines 11 to 16: fill the free locations, leaves first. Copying the
        // original value of `a` out of `a` itself frees `a`, if `a` is a
        // destination; copies of a value already saved elsewhere read the
        // newest copy, so that `a` is not read after it has been written.
        while let Some(b) = ready.pop() {
            step(1);
            let a = pred[&b];
            let c = loc[&a];
            out.push((b, c));
            loc.insert(a, b);
            if a == c && pred.contains_key(&a) {
                ready.push(a);
            }
        }
        // Line 17.
        let b = to_do.pop().expect("the loop runs while to_do is not empty");
        step(1);
        // Line 18, with the test under study.
        let break_circuit = match test {
            CircuitTest::AsPrinted => b == loc[&pred[&b]],
            CircuitTest::NegatedAsPrinted => b != loc[&pred[&b]],
            CircuitTest::Corrected => loc.get(&b) == Some(&b),
        };
        // Lines 19 to 21: save `b` in the spare, which frees `b`; the next
        // round of the inner loop then goes backwards around the cycle.
        if break_circuit {
            out.push((spare, b));
            loc.insert(b, spare);
            ready.push(b);
        }
    }
    // With the corrected test, a circuit is broken at its first member that
    // `to_do` pops, so its other members are still in `to_do` and the inner
    // loop runs once more: nothing is left in `ready`. As printed, the outer
    // loop may end with a location still in `ready`.
    assert!(
        test != CircuitTest::Corrected || ready.is_empty(),
        "Algorithm 1 ended with {ready:?} ready but not written"
    );
    out
}

/// Panics unless the destinations of `copies` are pairwise distinct and
/// `spare` is none of the locations `copies` names.
fn check_preconditions<L>(copies: &[(L, L)], spare: L)
where
    L: Copy + Eq + Hash + Ord + fmt::Debug,
{
    let mut seen: HashMap<L, usize> = HashMap::new();
    for (i, &(b, a)) in copies.iter().enumerate() {
        if let Some(j) = seen.insert(b, i) {
            panic!("{b:?} is the destination of moves {j} and {i} of a parallel copy");
        }
        assert!(b != spare && a != spare, "the spare location {spare:?} is named by move {i} of the parallel copy");
    }
}

/// The least number of sequential copies that implement the parallel copy
/// `copies` (given as `(destination, source)` pairs) with one extra
/// location, computed on the location transfer graph independently of
/// Algorithm 1: the number of non-self moves, plus the number of cycles all
/// of whose locations have exactly one successor (no edge leaves the cycle).
/// The note proves that no shorter sequence exists, with any number of
/// extra locations.
///
/// Panics when two moves have the same destination.
pub fn optimal_copy_count<L>(copies: &[(L, L)]) -> usize
where
    L: Copy + Eq + Hash + Ord + fmt::Debug,
{
    let mut pred: HashMap<L, L> = HashMap::new();
    let mut out_degree: HashMap<L, usize> = HashMap::new();
    for &(b, a) in copies.iter().filter(|(b, a)| b != a) {
        if pred.insert(b, a).is_some() {
            panic!("{b:?} is the destination of two moves of a parallel copy");
        }
        *out_degree.entry(a).or_insert(0) += 1;
    }
    // Every node has at most one predecessor, so walking backwards from a
    // node along `pred` either stops at a node without predecessor or enters
    // a cycle. A node is `OnWalk` while the current walk visits it and
    // `Done` after; a walk that meets a node of its own has found a new
    // cycle, and one that meets a `Done` node has not.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Mark {
        OnWalk,
        Done,
    }
    let mut mark: HashMap<L, Mark> = HashMap::new();
    let mut closed_cycles = 0;
    for &(start, _) in copies.iter().filter(|(b, a)| b != a) {
        let mut walk: Vec<L> = Vec::new();
        let mut x = start;
        loop {
            if mark.contains_key(&x) {
                break;
            }
            mark.insert(x, Mark::OnWalk);
            walk.push(x);
            match pred.get(&x) {
                Some(&p) => x = p,
                None => break,
            }
        }
        if mark.get(&x) == Some(&Mark::OnWalk) && pred.contains_key(&x) {
            let first = walk.iter().position(|&y| y == x).expect("a node on the walk is in the walk");
            if walk[first..].iter().all(|y| out_degree[y] == 1) {
                closed_cycles += 1;
            }
        }
        for y in walk {
            mark.insert(y, Mark::Done);
        }
    }
    pred.len() + closed_cycles
}

/// A sequence of copies read a location that held no value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct UndefinedRead<L> {
    /// The index of the copy in the sequence.
    pub index: usize,
    /// The location it read.
    pub location: L,
}

impl<L: fmt::Debug> fmt::Display for UndefinedRead<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "copy {} reads {:?}, which holds no value", self.index, self.location)
    }
}

/// Executes the sequential copies `seq`, given as `(destination, source)`
/// pairs, in order on `store`. Reading a location the store does not define
/// is an error rather than a default value, so that a test notices a
/// sequence that reads the spare before writing it; the copies before the
/// faulty one have been executed when it is reported.
pub fn execute<L, V>(seq: &[(L, L)], store: &mut BTreeMap<L, V>) -> Result<(), UndefinedRead<L>>
where
    L: Copy + Ord,
    V: Clone,
{
    for (index, &(dst, src)) in seq.iter().enumerate() {
        let v = store.get(&src).cloned().ok_or(UndefinedRead { index, location: src })?;
        store.insert(dst, v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::work_steps::count_steps;
    use rand::rngs::SmallRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    /// Algorithm 1's loops: the outer one pops each destination once, and
    /// each round of the inner one emits a copy, so a parallel copy of `n`
    /// moves takes at most `n` plus the copies emitted (at most `n` plus
    /// one per cycle, [`optimal_copy_count`]) steps. Checked on random
    /// parallel copies (permutations with fan-out) of growing size; a
    /// destination queued twice, which changes no copy, breaks it.
    #[test]
    fn algorithm_1_takes_one_step_per_move_and_per_copy() {
        let mut rng = SmallRng::seed_from_u64(31);
        for n in [2usize, 4, 8, 16, 64, 256, 1024] {
            for _ in 0..20 {
                let mut dests: Vec<u32> = (0..n as u32).collect();
                dests.shuffle(&mut rng);
                let moves = rng.gen_range(1..=n);
                let copies: Vec<(u32, u32)> = dests[..moves].iter().map(|&b| (b, rng.gen_range(0..n as u32))).collect();
                let non_self = copies.iter().filter(|(b, a)| b != a).count() as u64;
                let (out, steps) = count_steps(|| sequentialize_parallel_copy(&copies, n as u32));
                assert_eq!(out.len(), optimal_copy_count(&copies));
                let bound = non_self + out.len() as u64;
                assert!(steps <= bound, "{steps} steps for {non_self} moves and {} copies", out.len());
            }
        }
    }
}
