//! The conflicts among the candidate classes of one phi's independent-set
//! search (Boissinot et al., "Revisiting Out-of-SSA Translation for
//! Correctness, Code Quality, and Efficiency", CGO 2009, §III-B), found
//! without testing every pair, and the search itself on conflict lists.
//!
//! Needs: the [`ValueInterference`] of a strict SSA function and the members
//! of each candidate class.
//!
//! # Which pairs can conflict
//!
//! Every class test of the coalescer (intersection, the same without the
//! copy's own pair, Chaitin's, value-based; against the liveness or an
//! interference graph built from it) finds two classes interfering only
//! through two members `x`, `y` where one is live at the definition of the
//! other. In strict SSA a variable live at a point is defined at a point
//! that dominates it, so the definition of one member dominates the
//! definition of the other. The one test that is not of that form is the
//! register label of §III-D (a labeled class against another labeled
//! class, or against members live across a clobber); a labeled candidate,
//! and one with a member outside the dominance order (not defined in a
//! reachable block), is paired with every other.
//!
//! So the pairs to test are found by one walk over the members of all the
//! candidates in dominance pre-DFS order with the stack of Algorithm 2
//! (§IV-B): at each member, the stack holds the earlier members whose
//! definitions dominate it, and each of a different candidate gives a pair.
//! A phi of `n` operands in `n` branches of a wide join has `n` singleton
//! candidates none of which dominates another: no pair to test, where the
//! full search tested `n²/2`. The answers are those of the full search:
//! with the self-checks on, the coalescer compares them with the class test
//! on every pair of small searches and a deterministic sample of large ones
//! (`coalescing.rs`).
//!
//! # The search
//!
//! [`greedy_independent_set_lists`] makes the choices of the search on a
//! conflict matrix (`coalescing.rs`, `greedy_independent_set`, which calls
//! it) from conflict lists, with the alive candidates in an ordered set by
//! (degree, heavier first, index): each choice and each degree change costs
//! a logarithm, so the search costs the conflicts, not the square of the
//! candidates.

use crate::ir::Value;
use crate::out_of_ssa::values::ValueInterference;
use crate::pass_manager::self_checks;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The pairs `(i, j)`, `i < j`, sorted, of candidates that may conflict
/// (module documentation): `members[i]` lists candidate `i`'s members
/// (empty for a candidate out of the search), `everyone[i]` says that
/// candidate `i` is to be paired with every other candidate that has
/// members.
pub fn pairs_to_test(ctx: &ValueInterference<'_>, members: &[Vec<Value>], everyone: &[bool]) -> Vec<(usize, usize)> {
    let n = members.len();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let present: Vec<usize> = (0..n).filter(|&i| !members[i].is_empty()).collect();
    let mut by_order: Vec<((u32, u32), Value, usize)> = Vec::new();
    let mut all = vec![false; n];
    for &i in &present {
        all[i] = everyone[i];
        for &m in &members[i] {
            match ctx.def_order(m) {
                Some(key) => by_order.push((key, m, i)),
                None => all[i] = true,
            }
        }
    }
    for &i in present.iter().filter(|&&i| all[i]) {
        pairs.extend(present.iter().filter(|&&j| j != i).map(|&j| (i.min(j), i.max(j))));
    }
    by_order.sort_unstable();
    // The stack, and the distinct candidates on it (`slot`: place in
    // `distinct`), so that a deep stack of few candidates costs those few.
    let mut stack: Vec<(Value, usize)> = Vec::new();
    let mut on_stack = vec![0usize; n];
    let mut distinct: Vec<usize> = Vec::new();
    let mut slot = vec![usize::MAX; n];
    for &(_, m, i) in &by_order {
        while stack.last().is_some_and(|&(top, _)| !ctx.def_dominates(top, m)) {
            let Some((_, j)) = stack.pop() else { break };
            on_stack[j] -= 1;
            if on_stack[j] == 0 {
                let at = slot[j];
                distinct.swap_remove(at);
                if let Some(&moved) = distinct.get(at) {
                    slot[moved] = at;
                }
                slot[j] = usize::MAX;
            }
        }
        pairs.extend(distinct.iter().filter(|&&j| j != i).map(|&j| (i.min(j), i.max(j))));
        if on_stack[i] == 0 {
            slot[i] = distinct.len();
            distinct.push(i);
        }
        on_stack[i] += 1;
        stack.push((m, i));
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// With the self-checks on, compares `conflicts` (lists, as
/// [`greedy_independent_set_lists`] takes them) with `test` asked directly
/// on pairs of `alive` candidates: every pair when there are at most
/// `ALL_PAIRS` of them, else `SAMPLED_PER_CANDIDATE` partners of each,
/// picked by a fixed stride, plus every listed conflict.
pub fn check_conflicts(alive: &[bool], conflicts: &[Vec<usize>], mut test: impl FnMut(usize, usize) -> bool) {
    if !self_checks::in_checked_pass() {
        return;
    }
    self_checks::count();
    let on: Vec<usize> = (0..alive.len()).filter(|&i| alive[i]).collect();
    let m = on.len();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    if m <= ALL_PAIRS {
        for (k, &i) in on.iter().enumerate() {
            pairs.extend(on[k + 1..].iter().map(|&j| (i, j)));
        }
    } else {
        for (k, &i) in on.iter().enumerate() {
            for s in 1..=SAMPLED_PER_CANDIDATE {
                let j = on[(k + s * (m / SAMPLED_PER_CANDIDATE).max(1) + s) % m];
                if j != i {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
        }
        for (i, list) in conflicts.iter().enumerate() {
            pairs.extend(list.iter().map(|&j| (i.min(j), i.max(j))));
        }
        pairs.sort_unstable();
        pairs.dedup();
    }
    for (i, j) in pairs {
        let listed = conflicts[i].contains(&j);
        assert_eq!(
            listed,
            test(i, j),
            "phi candidates {i} and {j}: conflict listed {listed}, the class test says otherwise"
        );
    }
}

/// See [`check_conflicts`].
const ALL_PAIRS: usize = 64;
const SAMPLED_PER_CANDIDATE: usize = 4;

/// The independent-set search of one phi (`coalescing.rs`,
/// `greedy_independent_set`) on conflict lists: `conflicts[i]` lists the
/// candidates `i` conflicts with, without repeats. Among the candidates
/// still `alive`, repeatedly the one with the fewest conflicts with the
/// other alive candidates (ties: heavier `weights`, then the first),
/// dropping the candidates it conflicts with. Returns the chosen
/// candidates in the order chosen.
pub fn greedy_independent_set_lists(mut alive: Vec<bool>, weights: &[u64], conflicts: &[Vec<usize>]) -> Vec<usize> {
    let n = alive.len();
    let mut degree: Vec<usize> =
        (0..n).map(|i| if alive[i] { conflicts[i].iter().filter(|&&j| alive[j]).count() } else { 0 }).collect();
    let key = |i: usize, d: usize| (d, Reverse(weights[i]), i);
    let mut queue: BTreeSet<(usize, Reverse<u64>, usize)> =
        (0..n).filter(|&i| alive[i]).map(|i| key(i, degree[i])).collect();
    let mut chosen = Vec::new();
    let mut dropped = Vec::new();
    while let Some((_, _, i)) = queue.pop_first() {
        dropped.clear();
        alive[i] = false;
        dropped.push(i);
        for &j in &conflicts[i] {
            if alive[j] {
                alive[j] = false;
                queue.remove(&key(j, degree[j]));
                dropped.push(j);
            }
        }
        for &x in &dropped {
            for &y in &conflicts[x] {
                if alive[y] {
                    queue.remove(&key(y, degree[y]));
                    degree[y] -= 1;
                    queue.insert(key(y, degree[y]));
                }
            }
        }
        chosen.push(i);
    }
    chosen
}
