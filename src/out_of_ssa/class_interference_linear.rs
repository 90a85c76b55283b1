//! Interference between two congruence classes in linear time: Boissinot
//! et al., "Revisiting Out-of-SSA Translation for Correctness, Code Quality,
//! and Efficiency" (CGO 2009), §IV-B, Algorithm 2, its generalization to two
//! classes, and the "equal intersecting ancestor" refinement for value-based
//! interference.
//!
//! Needs: a [`ValueInterference`] (`values.rs`: dominator tree, liveness,
//! values) of a strict SSA function.
//!
//! A class is a list of variables sorted in dominance pre-DFS order
//! ([`sorted_class`]): by the pre-order number of the defining block in the
//! dominator tree, then by the position in the block. Walking such a list
//! with a stack simulates a depth-first traversal of the dominance forest of
//! the class: the top of the stack, after popping the variables whose
//! definition does not dominate the current one, is the current variable's
//! parent in the forest. The key fact (after Budimlic et al.) is that a
//! variable live at the definition of a descendant is live at the
//! definitions of all the variables in between, so a set holds two
//! intersecting variables if and only if some variable intersects its
//! parent in the forest.
//!
//! [`classes_interfere_linear`] merges the two sorted lists on the fly and
//! tests a variable against its parent only when they come from different
//! classes. In [`InterferenceMode::Value`] two variables of different
//! classes may intersect without interfering (same value), so the parent
//! alone no longer decides; each variable keeps its nearest intersecting
//! ancestor with the same value in its own class (`equal_anc_in`) and in
//! the other class (`equal_anc_out`), and the test follows those chains
//! (Functions `interference`, `chain_intersect` and `update_equal_anc_out`
//! of the paper). Two departures from the paper's pseudo-code, both argued
//! in `proofs-notes/out-of-ssa.md`: when a variable and its parent are in
//! the same class and the parent has no `equal_anc_out`, the test answers
//! "no interference" at once (the pseudo-code goes on with `b = ⊥`); and the
//! early exit of the loop (the counters `nr` and `nb`) is omitted, which
//! only costs time. The coalescer uses, in value mode, the same walk
//! restricted to where it can find something
//! (`class_interference_local.rs`, which has the early exit); this full
//! walk is its reference in the tests.
//!
//! Preconditions of the linear test: the classes are disjoint, each is
//! sorted by [`sorted_class`], and each is free of interference in the mode
//! asked (the paper's "intersection-free sets"). [`classes_interfere_quadratic`]
//! needs none of this but disjointness and tests every pair.

use crate::analysis::work_steps::step;
use crate::ir::Value;
use crate::out_of_ssa::values::{intersect, value_interfere, ValueInterference};
use rustc_hash::FxHashMap;

/// Which interference the class tests use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InterferenceMode {
    /// Two variables interfere when they intersect ([`intersect`]).
    Intersection,
    /// Two variables interfere when they intersect and have different
    /// values ([`value_interfere`]).
    Value,
}

impl InterferenceMode {
    /// Both modes.
    pub const ALL: [InterferenceMode; 2] = [InterferenceMode::Intersection, InterferenceMode::Value];

    /// True when `a` and `b` interfere in this mode.
    pub fn interfere(self, ctx: &ValueInterference<'_>, a: Value, b: Value) -> bool {
        match self {
            InterferenceMode::Intersection => intersect(ctx, a, b),
            InterferenceMode::Value => value_interfere(ctx, a, b),
        }
    }
}

/// The members of a class whose definitions are reachable, sorted in
/// dominance pre-DFS order (ties, such as two phis of one block, by value
/// number). Variables defined in unreachable blocks, or not defined, are
/// left out: they have no place in the dominator tree.
pub fn sorted_class(ctx: &ValueInterference<'_>, members: &[Value]) -> Vec<Value> {
    let mut keyed: Vec<((u32, u32), Value)> =
        members.iter().filter_map(|&v| ctx.def_order(v).map(|k| (k, v))).collect();
    keyed.sort();
    keyed.into_iter().map(|(_, v)| v).collect()
}

/// True when some variable of `a` interferes with some variable of `b`,
/// testing every pair.
pub fn classes_interfere_quadratic(
    a: &[Value],
    b: &[Value],
    ctx: &ValueInterference<'_>,
    mode: InterferenceMode,
) -> bool {
    a.iter().any(|&x| b.iter().any(|&y| mode.interfere(ctx, x, y)))
}

/// True when a class has two interfering members (Algorithm 2 on one
/// sorted list, with the intersection test on every edge of the dominance
/// forest): one intersection test per member.
pub fn class_has_intersection(class: &[Value], ctx: &ValueInterference<'_>) -> bool {
    let mut stack: Vec<Value> = Vec::new();
    for &current in class {
        while stack.last().is_some_and(|&other| !ctx.def_dominates(other, current)) {
            step(1);
            stack.pop();
        }
        step(2);
        if stack.last().is_some_and(|&parent| intersect(ctx, current, parent)) {
            return true;
        }
        stack.push(current);
    }
    false
}

/// For each member of a sorted class free of value interference, its
/// nearest ancestor in the class (in the dominance forest) that intersects
/// it and has the same value: the paper's `equal_anc_in`.
pub fn equal_intersecting_ancestors(
    class: &[Value],
    ctx: &ValueInterference<'_>,
    equal_anc_in: &mut FxHashMap<Value, Option<Value>>,
) {
    let mut stack: Vec<Value> = Vec::new();
    for &current in class {
        while stack.last().is_some_and(|&other| !ctx.def_dominates(other, current)) {
            stack.pop();
        }
        // An ancestor that intersects `current` intersects the parent too,
        // so it is the parent or on the parent's chain.
        let mut tmp = stack.last().copied();
        while let Some(t) = tmp {
            if ctx.value_of(t) == ctx.value_of(current) && intersect(ctx, current, t) {
                break;
            }
            tmp = equal_anc_in[&t];
        }
        equal_anc_in.insert(current, tmp);
        stack.push(current);
    }
}

/// The `equal_anc_in` of every member of a class (see
/// [`equal_intersecting_ancestors`]).
pub type AncestorMap = FxHashMap<Value, Option<Value>>;

/// The state of the value-based walk: the equal intersecting ancestors.
struct EqualAncestors<'c, 'a> {
    ctx: &'c ValueInterference<'a>,
    /// `equal_anc_in` of the red and of the blue class.
    red_in: &'c AncestorMap,
    blue_in: &'c AncestorMap,
    equal_anc_out: AncestorMap,
}

impl EqualAncestors<'_, '_> {
    fn anc_in(&self, t: Value) -> Option<Value> {
        match self.red_in.get(&t) {
            Some(&a) => a,
            None => self.blue_in[&t],
        }
    }

    /// The paper's `chain_intersect(a, b)`: `a` intersects `b` or one of its
    /// equal intersecting ancestors in `b`'s class.
    fn chain_intersect(&self, a: Value, b: Value) -> bool {
        let mut tmp = Some(b);
        while let Some(t) = tmp {
            if intersect(self.ctx, a, t) {
                return true;
            }
            tmp = self.anc_in(t);
        }
        false
    }

    /// The paper's `update_equal_anc_out(a, b)`: the nearest of `b` and its
    /// equal intersecting ancestors in `b`'s class that intersects `a`.
    fn update_equal_anc_out(&mut self, a: Value, b: Value) {
        let mut tmp = Some(b);
        while let Some(t) = tmp {
            if intersect(self.ctx, a, t) {
                break;
            }
            tmp = self.anc_in(t);
        }
        self.equal_anc_out.insert(a, tmp);
    }

    /// The paper's `interference(a, b)`, `b` the parent of `a` in the
    /// merged dominance forest: true when `a` interferes with an
    /// already-visited variable of the other class.
    fn interference(&mut self, a: Value, b: Value, same_class: bool) -> bool {
        self.equal_anc_out.insert(a, None);
        let b = if same_class {
            // The variables of the other class that intersect `a` intersect
            // `b` and have its value: they are `b`'s `equal_anc_out` chain.
            match self.equal_anc_out[&b] {
                Some(e) => e,
                None => return false,
            }
        } else {
            b
        };
        if self.ctx.value_of(a) != self.ctx.value_of(b) {
            self.chain_intersect(a, b)
        } else {
            self.update_equal_anc_out(a, b);
            false
        }
    }
}

/// True when some variable of `red` interferes with some variable of
/// `blue`, by one joint walk of the two sorted lists (Algorithm 2 with the
/// two-list patch of §IV-B; in [`InterferenceMode::Value`] with the equal
/// intersecting ancestors). Preconditions in the module documentation.
pub fn classes_interfere_linear(
    red: &[Value],
    blue: &[Value],
    ctx: &ValueInterference<'_>,
    mode: InterferenceMode,
) -> bool {
    let (mut red_in, mut blue_in) = (AncestorMap::default(), AncestorMap::default());
    if mode == InterferenceMode::Value {
        equal_intersecting_ancestors(red, ctx, &mut red_in);
        equal_intersecting_ancestors(blue, ctx, &mut blue_in);
    }
    classes_interfere_linear_with(red, blue, ctx, mode, &red_in, &blue_in).is_none()
}

/// [`classes_interfere_linear`] with the `equal_anc_in` of each class given
/// (in [`InterferenceMode::Value`]; ignored otherwise): `None` when the
/// classes interfere, else the `equal_anc_in` of the merged class, each
/// member's nearest (in pre-DFS order, the later) of its `equal_anc_in` and
/// the `equal_anc_out` the walk found, as §IV-B updates it when the two
/// classes are coalesced (empty in [`InterferenceMode::Intersection`]).
pub fn classes_interfere_linear_with(
    red: &[Value],
    blue: &[Value],
    ctx: &ValueInterference<'_>,
    mode: InterferenceMode,
    red_in: &AncestorMap,
    blue_in: &AncestorMap,
) -> Option<AncestorMap> {
    let mut state = EqualAncestors { ctx, red_in, blue_in, equal_anc_out: FxHashMap::default() };
    // The stack holds each variable with its class: false for red, true for
    // blue.
    let mut stack: Vec<(Value, bool)> = Vec::new();
    let (mut ir, mut ib) = (0, 0);
    while ir < red.len() || ib < blue.len() {
        let take_blue = ir == red.len() || (ib < blue.len() && ctx.def_order(blue[ib]) < ctx.def_order(red[ir]));
        let current = if take_blue {
            ib += 1;
            (blue[ib - 1], true)
        } else {
            ir += 1;
            (red[ir - 1], false)
        };
        while stack.last().is_some_and(|&(other, _)| !ctx.def_dominates(other, current.0)) {
            step(1);
            stack.pop();
        }
        // The member itself and its test against its parent.
        step(2);
        if let Some(&(parent, parent_blue)) = stack.last() {
            let same_class = parent_blue == current.1;
            let found = match mode {
                InterferenceMode::Intersection => !same_class && intersect(ctx, current.0, parent),
                InterferenceMode::Value => state.interference(current.0, parent, same_class),
            };
            if found {
                return None;
            }
        } else if mode == InterferenceMode::Value {
            state.equal_anc_out.insert(current.0, None);
        }
        stack.push(current);
    }
    if mode == InterferenceMode::Intersection {
        return Some(AncestorMap::default());
    }
    let key = |a: Option<Value>| a.map(|v| (ctx.def_order(v), v));
    let merged = red
        .iter()
        .chain(blue)
        .map(|&v| {
            let (inside, outside) = (state.anc_in(v), state.equal_anc_out.get(&v).copied().flatten());
            (v, if key(outside) > key(inside) { outside } else { inside })
        })
        .collect();
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dominance::DomTree;
    use crate::analysis::liveness::compute_liveness;
    use crate::analysis::work_steps::count_steps;
    use crate::construction::braun::{construct_program, BraunOptions};
    use crate::generate::source::{GenConfig, TestCase};

    /// Algorithm 2 visits each member once, pops it at most once and tests
    /// it against its parent only: at most three steps per member, on one
    /// class or two. The classes are intersection-free (built greedily in
    /// dominance order from generated functions of growing size), so the
    /// walks never stop early, and in straight-line code the stack grows
    /// with the class: testing a member against more of the stack than its
    /// parent, which changes no answer, breaks the bound.
    #[test]
    fn algorithm_2_takes_at_most_three_steps_per_member() {
        let mut largest = 0;
        let mut programs: Vec<crate::ast::Program> = [(11u64, 20usize), (12, 60), (13, 200), (14, 600)]
            .into_iter()
            .map(|(seed, size)| TestCase::from_seed(seed, &GenConfig { size, ..GenConfig::default() }).program)
            .collect();
        // Chains `x = x + a` of growing length: each value dies where the
        // next is defined and dominates it, so the stack holds the chain.
        for n in [10usize, 100, 1000] {
            let body = "x = x + a;\n".repeat(n);
            let src = format!("fn main(a) {{\nvar x = a;\n{body}return x;\n}}\n");
            programs.push(crate::frontend::parser::parse_program(&src).expect("the chain parses"));
        }
        for program in &programs {
            let module = construct_program(program, &BraunOptions::all_on());
            for f in &module.functions {
                let dom = DomTree::compute(f);
                let live = compute_liveness(f);
                let ctx = ValueInterference::new(f, &dom, &live);
                let all = sorted_class(&ctx, &(0..f.value_count).map(Value).collect::<Vec<_>>());
                let mut free: Vec<Value> = Vec::new();
                // Parameters are left out: live across the whole chain, one
                // would keep every other value out.
                for v in all.into_iter().filter(|v| !f.params.contains(v)) {
                    if free.iter().all(|&w| !intersect(&ctx, v, w)) {
                        free.push(v);
                    }
                }
                let red: Vec<Value> = free.iter().step_by(2).copied().collect();
                let blue: Vec<Value> = free.iter().skip(1).step_by(2).copied().collect();
                let (found, steps) = count_steps(|| class_has_intersection(&free, &ctx));
                assert!(!found);
                assert!(steps <= 3 * free.len() as u64, "{steps} steps for a class of {}", free.len());
                let (found, steps) =
                    count_steps(|| classes_interfere_linear(&red, &blue, &ctx, InterferenceMode::Intersection));
                assert!(!found);
                assert!(steps <= 3 * free.len() as u64, "{steps} steps for classes of {} members", free.len());
                largest = largest.max(free.len());
            }
        }
        assert!(largest >= 1000, "the classes grow: the largest has {largest} members");
    }
}
