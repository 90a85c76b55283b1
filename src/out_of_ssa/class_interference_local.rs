//! The value-based linear class test of Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency"
//! (CGO 2009), §IV-B (Algorithm 2 on two lists, Functions `interference`,
//! `chain_intersect` and `update_equal_anc_out`), walked only where it can
//! find something: near the members of the smaller class.
//!
//! Needs: a [`ValueInterference`] (`values.rs`) of a strict SSA function,
//! two disjoint classes free of value interference, each kept as a set
//! ordered by dominance pre-DFS order (`ClassSet`), and the
//! `equal_anc_in` of their members ([`AncestorMap`]).
//!
//! # Why
//!
//! The full walk (`class_interference_linear.rs`, [`classes_interfere_linear_with`])
//! costs the sizes of both classes per query. A coalescer grows classes one
//! variable at a time, so a class of `n` members costs `n²` over its
//! growth. Here a query costs about the size of the
//! smaller class, times a logarithm, plus the members of the larger class
//! that the walk must really look at (below).
//!
//! # What the full walk computes
//!
//! Merge the two lists in the pre-DFS order (at one definition point, the
//! first class's members first, as the full walk does). The stack of
//! Algorithm 2 then holds, at each member `a`, exactly the earlier members
//! whose definition dominates `a`'s (the order is a pre-order of the
//! dominance tree, so a member's dominated successors are contiguous after
//! it), and its top is `a`'s *parent*: the latest earlier member that
//! dominates `a`. The walk computes, for each `a`, from its parent `p`
//! alone:
//!
//! - no parent: no test, `equal_anc_out(a) = ⊥`;
//! - `p` in `a`'s class: `b = equal_anc_out(p)`; if `b = ⊥`, no test and
//!   `equal_anc_out(a) = ⊥`; else as below with `b`;
//! - `p` in the other class: `b = p`; different values: interference iff
//!   `a` intersects `b` or one of `b`'s `equal_anc_in` chain
//!   (`chain_intersect`), and `equal_anc_out(a) = ⊥`; same value:
//!   `equal_anc_out(a)` is the first of that chain that intersects `a`.
//!
//! The answer is "interference" iff some member's test says so; when there
//! is none, the `equal_anc_in` of the merged class is each member's later
//! (in the order) of `equal_anc_in` and `equal_anc_out`, so only the
//! members with an `equal_anc_out` change.
//!
//! # What this walk skips, and why that changes nothing
//!
//! Call a member of the larger class *trivial* when the rules above give it
//! no test and `equal_anc_out = ⊥` (no parent, or a parent of its class
//! whose `equal_anc_out` is `⊥`). Every member of the smaller class is
//! visited in order. A member `x` of the larger class is visited when it
//! comes next; when it is trivial, the members of the larger class that
//! follow it, are dominated by it, and come before the next member of the
//! smaller class are skipped (found by one search in the ordered set):
//!
//! 1. *The skipped members are trivial.* Each has as parent `x` or an
//!    earlier skipped member (every member between `x` and it in the order
//!    is one of them, and `x` dominates it), so by induction its parent is
//!    of its class with `equal_anc_out = ⊥`.
//! 2. *A visited member sees the right parent, or an equivalent one.* The
//!    stack holds the visited members that dominate the current one, so
//!    its top `t` is the latest visited one. If the true parent `q` was
//!    skipped after some trivial `x`, then `x` dominates `q` and the current
//!    member, and no visited member lies between `x` and `q` in the order
//!    (they were all skipped), nor between `q` and the current member
//!    dominating it (`q` is the latest): so `t = x`. For a member of the
//!    larger class this is equivalent: `x` and `q` are both of its class
//!    with `equal_anc_out = ⊥`, the member is trivial either way. For a
//!    member `a` of the smaller class the parent itself is needed: when `t`
//!    is of the larger class, the parent is the latest member of the larger
//!    class before `a` that dominates it, found by walking up the dominator
//!    tree from `a`'s block to `t`'s and searching the ordered set in each
//!    block (`Walk::parent_in`). When `t` is of the smaller class it is the true
//!    parent (a skipped member is never later than a visited member that
//!    dominates the same point).
//! 3. *Stopping early.* When the smaller class is exhausted and no stack
//!    entry is of the smaller class or has an `equal_anc_out`, every
//!    remaining member of the larger class is trivial (its parent is on the
//!    stack or among them, by 1. and 2.), so the walk stops: the paper's
//!    early exit (counters `nr` and `nb`).
//!
//! 4. *Skipping to the next member of the smaller class.* When no stack
//!    entry is of the smaller class or has an `equal_anc_out` and the next
//!    member `s` of the smaller class is not the next in the order, the
//!    members of the larger class before `s` are skipped. No member of the
//!    smaller class dominates them (it would dominate the current point
//!    and be on the stack), so they are trivial and their parents are those
//!    of their own class; `s`'s parent is found as in 2., from the top of
//!    the stack, or with an empty stack (after such a skip; before one, an
//!    empty stack means no parent) from the start of the larger class.
//!    Without this, a one-member class tested against a class of `n`
//!    members in `n` sibling branches (a phi of a wide join) visited every
//!    member before it.
//!
//! So the answer and the changed `equal_anc_in` entries are those of the
//! full walk on the same two lists. `proofs-notes/out-of-ssa.md` ("The
//! linear class test walked locally") repeats the argument; the campaign's
//! cross-check (`--cross-check` coalescing) compares every answer with the
//! pairwise test, and `tests/suite/out_of_ssa.rs` compares this walk with the
//! full one on grown classes.
//!
//! # Cost
//!
//! Per query: the smaller class, the members of the larger class that are
//! children of its members or have an `equal_anc_out` (and their
//! children), one ordered-set search each, and for each member of the
//! smaller class whose stack top is of the larger class, the dominator-tree
//! blocks between the two. A class that the smaller one does not reach is
//! not walked.

use crate::analysis::reach::{hit, Path};
use crate::entity::EntityRef;
use crate::ir::Value;
#[cfg(doc)]
use crate::out_of_ssa::class_interference_linear::classes_interfere_linear_with;
use crate::out_of_ssa::class_interference_linear::{equal_intersecting_ancestors, AncestorMap};
use crate::out_of_ssa::values::{intersect, ValueInterference};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::ops::Bound::{Excluded, Included, Unbounded};

/// A member's place in the dominance pre-DFS order: the pre-order number
/// of its definition's block, its position there (`ValueInterference::def_order`),
/// and its value number (ties between phis of one block).
pub(crate) type Key = (u32, u32, u32);

/// The members of a class in the dominance pre-DFS order.
pub(crate) type ClassSet = BTreeSet<Key>;

/// The key of `v`, `None` when it is not defined in a reachable block.
pub(crate) fn key_of(ctx: &ValueInterference<'_>, v: Value) -> Option<Key> {
    ctx.def_order(v).map(|(pre, pos)| (pre, pos, v.index() as u32))
}

/// The variable of a key.
pub(crate) fn var_of(k: Key) -> Value {
    Value::new(k.2 as usize)
}

/// The later of two `equal_anc_in` candidates in the order (`⊥` first).
pub(crate) fn later(ctx: &ValueInterference<'_>, a: Option<Value>, b: Option<Value>) -> Option<Value> {
    let key = |x: Option<Value>| x.and_then(|v| key_of(ctx, v));
    if key(b) > key(a) {
        b
    } else {
        a
    }
}

/// One entry of the walk's stack: a member, whether it is of the smaller
/// class, and its `equal_anc_out`.
struct Entry {
    var: Value,
    small: bool,
    out: Option<Value>,
}

impl Entry {
    /// True when a later member can be tested because of this entry.
    fn active(&self) -> bool {
        self.small || self.out.is_some()
    }
}

/// The answer of a test that finds interference.
struct Interferes;

/// The walk's fixed context.
struct Walk<'w, 'a> {
    ctx: &'w ValueInterference<'a>,
    anc_in: &'w AncestorMap,
    parents: &'w ParentMap,
    big: &'w ClassSet,
    /// True when the larger class is the first one (its members come first
    /// at one definition point).
    big_first: bool,
}

impl Walk<'_, '_> {
    /// The first of `b` and its `equal_anc_in` chain that intersects `a`
    /// (the loop of `chain_intersect` and `update_equal_anc_out`).
    fn first_intersecting(&self, a: Value, b: Value) -> Option<Value> {
        let mut tmp = Some(b);
        while let Some(t) = tmp {
            if intersect(self.ctx, a, t) {
                return Some(t);
            }
            tmp = self.anc_in.get(&t).copied().flatten();
            if tmp.is_some() {
                hit(Path::AncestorChain);
            }
        }
        None
    }

    /// The smallest key of the larger class that comes after the member of
    /// the smaller class at `k` in the merged order.
    fn big_bound_after(&self, k: Key) -> Key {
        if self.big_first {
            (k.0, k.1 + 1, 0)
        } else {
            (k.0, k.1, 0)
        }
    }

    /// The parent of the member `a` (key `k`, of the smaller class when
    /// `is_small`) given the top `top` of the stack, and the member of the
    /// other class to test `a` against (the rules of the module
    /// documentation, with item 2 for a member of the smaller class whose
    /// top is of the larger class or, once `skipped`, missing).
    fn parent_and_other(
        &self,
        top: Option<&Entry>,
        a: Value,
        k: Key,
        is_small: bool,
        skipped: bool,
    ) -> (Option<Value>, Option<Value>) {
        match top {
            None if is_small && skipped => {
                let p = self.parent_in(a, k, None);
                (p, p)
            }
            None => (None, None),
            Some(t) if t.small == is_small => (Some(t.var), t.out),
            Some(t) if is_small => {
                let p = self.parent_in(a, k, Some(t.var));
                (p, p)
            }
            Some(t) => (Some(t.var), Some(t.var)),
        }
    }

    /// The test of `a` against `other` (Function `interference` for
    /// different values, `update_equal_anc_out` for equal ones): `Err` when
    /// they interfere, else `a`'s `equal_anc_out`.
    fn equal_anc_out(&self, a: Value, other: Option<Value>) -> Result<Option<Value>, Interferes> {
        match other {
            None => Ok(None),
            Some(b) if self.ctx.value_of(a) != self.ctx.value_of(b) => {
                if self.first_intersecting(a, b).is_some() {
                    return Err(Interferes);
                }
                Ok(None)
            }
            Some(b) => Ok(self.first_intersecting(a, b)),
        }
    }

    /// The next member of the larger class to visit after the trivial
    /// member `a` (key `k`): the first one that `a` does not dominate or
    /// that comes after `next_small`, the next member of the smaller class
    /// (item 1 of the module documentation).
    fn next_big_after_trivial(&self, a: Value, k: Key, next_small: Option<Key>) -> Option<Key> {
        let end = self.ctx.def_block(a).map_or(k.0, |b| self.ctx.subtree_end(b));
        let mut bound = (end + 1, 0, 0);
        if let Some(s) = next_small {
            bound = bound.min(self.big_bound_after(s));
        }
        debug_assert!(bound > k);
        self.big.range((Included(bound), Unbounded)).next().copied()
    }

    /// The parent of the member `a` (key `ka`) of the smaller class when the
    /// top of the stack is `t`, of the larger class: the latest member of
    /// the larger class before `a` that dominates it (item 2 of the module
    /// documentation). Let `last` be the latest member of the larger class
    /// before `a`. If it does not dominate `a`, the parent does dominate
    /// `last` (it comes between them in the order), so it is an ancestor of
    /// `last` in the larger class's forest; it is also the member in the
    /// nearest block above `a` in the dominator tree that holds a member
    /// before `a`. Both searches stop at `t`; they take turns, so the cost
    /// is twice the shorter one. The forest's parents come from earlier
    /// walks, whose order puts the first class first among members defined
    /// at one point; so the forest search, at the first member that
    /// dominates `a`, takes the latest member of the larger class defined
    /// at the same point (all of them dominate `a`).
    fn parent_in(&self, a: Value, ka: Key, t: Option<Value>) -> Option<Value> {
        let kt = match t {
            Some(t) => match key_of(self.ctx, t) {
                Some(k) => Some(k),
                None => return Some(t),
            },
            None => None,
        };
        let upper = self.big_bound_after(ka);
        let lower = kt.map_or(Unbounded, Excluded);
        let last = match self.big.range((lower, Excluded(upper))).next_back() {
            None => return t,
            Some(&last) if self.ctx.def_dominates(var_of(last), a) => return Some(var_of(last)),
            Some(&last) => var_of(last),
        };
        hit(Path::ForestSearch);
        let dom = self.ctx.dom();
        let mut chain = self.parents.get(&last).copied().flatten();
        let mut block = self.ctx.def_block(a);
        loop {
            // One step up the forest from `last`.
            let Some(c) = chain else { return t };
            let Some(kc) = key_of(self.ctx, c) else { return t };
            if self.ctx.def_dominates(c, a) {
                let hi = upper.min((kc.0, kc.1 + 1, 0));
                let latest = self.big.range((Included((kc.0, kc.1, 0)), Excluded(hi))).next_back();
                return match latest {
                    Some(&k) if kt.is_none_or(|kt| k > kt) => Some(var_of(k)),
                    _ => t,
                };
            }
            if kt.is_some_and(|kt| kc <= kt) {
                return t;
            }
            chain = self.parents.get(&c).copied().flatten();
            // One step up the dominator tree from `a`'s block.
            if let Some(b) = block {
                let pre = dom.preorder_number(b);
                if kt.is_some_and(|kt| pre < kt.0) {
                    return t;
                }
                let lo = match kt {
                    Some(kt) if pre == kt.0 => Excluded(kt),
                    _ => Included((pre, 0, 0)),
                };
                let hi = if pre == ka.0 { Excluded(upper) } else { Excluded((pre + 1, 0, 0)) };
                if let Some(&k) = self.big.range((lo, hi)).next_back() {
                    return Some(var_of(k));
                }
                block = dom.idom[b];
            }
        }
    }
}

/// The parent of each member in its class's dominance forest (`None` for
/// a root).
pub(crate) type ParentMap = FxHashMap<Value, Option<Value>>;

/// What the merged class needs from a test that found no interference:
/// the members whose `equal_anc_out` is not `⊥`, with it (their
/// `equal_anc_in` becomes the [`later`] of the two), and the members whose
/// parent in the merged forest is not their parent in their own class.
#[derive(Default)]
pub(crate) struct MergeUpdates {
    pub outs: Vec<(Value, Value)>,
    pub parents: Vec<(Value, Option<Value>)>,
}

/// The parent of each member of a class sorted in dominance pre-DFS order
/// (the top of Algorithm 2's stack).
pub(crate) fn forest_parents(class: &[Value], ctx: &ValueInterference<'_>, parents: &mut ParentMap) {
    let mut stack: Vec<Value> = Vec::new();
    for &current in class {
        while stack.last().is_some_and(|&other| !ctx.def_dominates(other, current)) {
            stack.pop();
        }
        parents.insert(current, stack.last().copied());
        stack.push(current);
    }
}

/// Pops the entries of `stack` whose definition does not dominate `a`'s
/// (Algorithm 2's stack walk), and returns how many of them were active.
fn pop_non_dominating(ctx: &ValueInterference<'_>, stack: &mut Vec<Entry>, a: Value) -> usize {
    let mut popped_active = 0;
    while stack.last().is_some_and(|e| !ctx.def_dominates(e.var, a)) {
        if stack.pop().is_some_and(|e| e.active()) {
            popped_active += 1;
        }
    }
    popped_active
}

/// The value-based linear test of `first` and `second` (their members'
/// `equal_anc_in` in `anc_in`, their forest parents in `parents`), walked
/// near the smaller class (module documentation): `None` when the classes
/// interfere, else what merging them changes.
pub(crate) fn classes_interfere_local(
    first: &ClassSet,
    second: &ClassSet,
    ctx: &ValueInterference<'_>,
    anc_in: &AncestorMap,
    parents: &ParentMap,
) -> Option<MergeUpdates> {
    let big_first = first.len() > second.len();
    let (small, big) = if big_first { (second, first) } else { (first, second) };
    let walk = Walk { ctx, anc_in, parents, big, big_first };
    // The merged order: at one definition point, the first class first.
    let before = |small_key: Key, big_key: Key| {
        let side = |is_big: bool| u8::from(is_big != big_first);
        ((small_key.0, small_key.1), side(false), small_key.2) < ((big_key.0, big_key.1), side(true), big_key.2)
    };
    let mut small_iter = small.iter().copied().peekable();
    let mut next_big = big.iter().next().copied();
    let mut stack: Vec<Entry> = Vec::new();
    let mut active = 0usize;
    // True once item 4 has skipped members: before that, a member of the
    // smaller class that finds the stack empty has no parent.
    let mut skipped = false;
    let mut updates = MergeUpdates::default();
    loop {
        let (k, is_small) = match (small_iter.peek().copied(), next_big) {
            (None, None) => break,
            (Some(s), None) => (s, true),
            (None, Some(b)) if active > 0 => (b, false),
            (None, Some(_)) => break,
            (Some(s), Some(b)) if !before(s, b) && active == 0 => {
                // Nothing on the stack can give a member a test: skip the
                // members of the larger class before `s` (item 4).
                next_big = big.range((Included(walk.big_bound_after(s)), Unbounded)).next().copied();
                skipped = true;
                (s, true)
            }
            (Some(s), Some(b)) => {
                if before(s, b) {
                    (s, true)
                } else {
                    (b, false)
                }
            }
        };
        let a = var_of(k);
        active -= pop_non_dominating(ctx, &mut stack, a);
        // `a`'s parent (when it may differ from its parent in its class),
        // and the member of the other class to test `a` against, if any.
        let (parent, other) = walk.parent_and_other(stack.last(), a, k, is_small, skipped);
        // A member of the larger class whose top is of its class and at its
        // own definition point gets its parent recorded too: an earlier
        // merge may have ordered the members of that point differently
        // (first class first) and left `a`, not the top, holding the
        // point's parent from above, which this merge may have changed.
        let same_point = |t: &Entry| key_of(ctx, t.var).is_some_and(|kt| (kt.0, kt.1) == (k.0, k.1));
        if is_small || stack.last().is_some_and(|t| t.small || same_point(t)) {
            updates.parents.push((a, parent));
        }
        let Ok(out) = walk.equal_anc_out(a, other) else {
            return None;
        };
        if let Some(e) = out {
            updates.outs.push((a, e));
        }
        let entry = Entry { var: a, small: is_small, out };
        active += usize::from(entry.active());
        stack.push(entry);
        if is_small {
            small_iter.next();
        } else if other.is_none() {
            // `a` is trivial: skip what it dominates before the next member
            // of the smaller class (item 1).
            next_big = walk.next_big_after_trivial(a, k, small_iter.peek().copied());
        } else {
            next_big = big.range((Excluded(k), Unbounded)).next().copied();
        }
    }
    Some(updates)
}

/// `classes_interfere_local` on two classes given as lists (each free of
/// value interference), with their `equal_anc_in` computed from scratch:
/// `None` when they interfere, else the `equal_anc_in` of every member of
/// the merged class, as [`classes_interfere_linear_with`] gives it. For the
/// tests that compare the two walks (`tests/suite/out_of_ssa.rs`).
pub fn merged_equal_ancestors_local(a: &[Value], b: &[Value], ctx: &ValueInterference<'_>) -> Option<AncestorMap> {
    let mut anc_in = AncestorMap::default();
    let mut parents = ParentMap::default();
    let mut sets = [ClassSet::new(), ClassSet::new()];
    for (list, set) in [a, b].into_iter().zip(&mut sets) {
        let mut sorted: Vec<Key> = list.iter().filter_map(|&v| key_of(ctx, v)).collect();
        sorted.sort_unstable();
        let members: Vec<Value> = sorted.iter().map(|&k| var_of(k)).collect();
        equal_intersecting_ancestors(&members, ctx, &mut anc_in);
        forest_parents(&members, ctx, &mut parents);
        set.extend(sorted);
    }
    let updates = classes_interfere_local(&sets[0], &sets[1], ctx, &anc_in, &parents)?;
    for (member, out) in updates.outs {
        let inside = anc_in.get(&member).copied().flatten();
        anc_in.insert(member, later(ctx, inside, Some(out)));
    }
    Some(anc_in)
}
