//! The check after out-of-ssa's coalescing (Boissinot et al., CGO 2009,
//! §III-A): no two members of one congruence class interfere by value.
//!
//! Needs: a function that passes the SSA verifier (the program after
//! Method I, or after the virtualized algorithm materialized its copies),
//! the runs of instructions that execute as one parallel copy, and the
//! classes. Shares no code with `out_of_ssa/values.rs`, whose value numbering
//! and liveness queries the coalescer uses: a mistake there would otherwise
//! be made twice and pass.
//!
//! The definitions, from the paper, computed here by the simplest means:
//! - the *value* of a variable is the root of its copy chain: `b = copy a`
//!   gives `b` the value of `a`, found by following the chain from `b`'s
//!   own definition (no dominator tree, no traversal order);
//! - two variables *intersect* when one is live right after the definition
//!   of the other. Liveness is computed here, one variable at a time by
//!   exploring backwards from its uses to its definition (the least
//!   fixpoint of the backward data flow, at the cost of the blocks where
//!   each variable is live: `live_out_sets`), with phis as
//!   copies on the incoming edges (an argument is live at the end of its
//!   predecessor; the destinations of a block's phis, and the parameters,
//!   are defined together at its start, so they all intersect each other),
//!   and a parallel copy reads all its sources before it defines its
//!   destinations at its end. Each block is then walked backwards from its
//!   live-out set, and each definition compared with the live members of
//!   its own class only;
//! - they *interfere by value* when they intersect and have different
//!   values.
//!
//! In strict SSA form, one variable live at the other's definition implies
//! that its definition dominates the other's, so this is the same relation
//! as `out_of_ssa/values.rs`'s `value_interfere`, decided without dominance
//! (`proofs-notes/out-of-ssa.md`).

use crate::entity::EntityRef;
use crate::ir::{Block, Function, Op, Value};
use crate::pass_manager::sampling;
use rustc_hash::FxHashMap;
use std::fmt;

/// The values whose liveness the check tracks: the members of the classes
/// it checks, numbered densely. The liveness of one value does not depend
/// on any other's (each bit of the backward data flow is its own problem),
/// so tracking only these is exact for them.
struct Universe {
    /// The bit of each value, `u32::MAX` when it is not tracked.
    bit: Vec<u32>,
    /// The value of each bit.
    value: Vec<Value>,
}

impl Universe {
    fn new(n: usize, classes: &[&Vec<Value>]) -> Self {
        let mut bit = vec![u32::MAX; n];
        let mut value = Vec::new();
        for &m in classes.iter().flat_map(|c| c.iter()) {
            if let Some(b) = bit.get_mut(m.index()) {
                if *b == u32::MAX {
                    *b = value.len() as u32;
                    value.push(m);
                }
            }
        }
        Universe { bit, value }
    }
    fn bit(&self, v: Value) -> Option<usize> {
        self.bit.get(v.index()).filter(|&&b| b != u32::MAX).map(|&b| b as usize)
    }
}

/// The tracked values live at one point of a backward walk (the checker's
/// own set, so that it shares no set type with the liveness it
/// double-checks): a flag per [`Universe`] bit, and the live bits of each
/// class, so that a definition finds the live members of its own class
/// without looking at the others. One set serves every block: [`clear`]
/// costs the classes touched, not the universe.
///
/// [`clear`]: LiveSet::clear
struct LiveSet<'u> {
    universe: &'u Universe,
    /// The class of each bit.
    class_of: &'u [usize],
    on: Vec<bool>,
    /// The live bits of each class, in no order.
    by_class: Vec<Vec<u32>>,
    /// The classes with live bits (some perhaps emptied since).
    touched: Vec<usize>,
}

impl<'u> LiveSet<'u> {
    fn new(universe: &'u Universe, class_of: &'u [usize], classes: usize) -> Self {
        let on = vec![false; universe.value.len()];
        LiveSet { universe, class_of, on, by_class: vec![Vec::new(); classes], touched: Vec::new() }
    }
    fn add(&mut self, v: Value) {
        if let Some(i) = self.universe.bit(v) {
            self.add_bit(i);
        }
    }
    fn add_bit(&mut self, i: usize) {
        if !self.on[i] {
            self.on[i] = true;
            let c = self.class_of[i];
            if self.by_class[c].is_empty() {
                self.touched.push(c);
            }
            self.by_class[c].push(i as u32);
        }
    }
    fn remove(&mut self, v: Value) {
        let Some(i) = self.universe.bit(v) else { return };
        if self.on[i] {
            self.on[i] = false;
            let list = &mut self.by_class[self.class_of[i]];
            if let Some(k) = list.iter().position(|&x| x as usize == i) {
                list.swap_remove(k);
            }
        }
    }
    /// The live bits of class `c`.
    fn of_class(&self, c: usize) -> &[u32] {
        &self.by_class[c]
    }
    fn clear(&mut self) {
        for c in self.touched.drain(..) {
            for i in self.by_class[c].drain(..) {
                self.on[i as usize] = false;
            }
        }
    }
}

/// The value of every variable: the root of its copy chain (see the module
/// documentation). A chain longer than the number of variables is a cycle,
/// which strict SSA cannot have; its members keep their own value.
pub fn copy_chain_roots(f: &Function) -> Vec<Value> {
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    let mut source: Vec<Option<Value>> = vec![None; n];
    for data in f.blocks.values() {
        for inst in &data.insts {
            if let (Some(d), Op::Copy(s)) = (inst.dest, &inst.op) {
                source[d.index()] = Some(*s);
            }
        }
    }
    (0..n)
        .map(|i| {
            let mut v = Value::new(i);
            for _ in 0..=n {
                match source[v.index()] {
                    Some(s) => v = s,
                    None => return v,
                }
            }
            Value::new(i)
        })
        .collect()
}

/// Walks `b` backwards from `live` (holding its live-out set), calling
/// `at_def` with every value defined and the set live right after its
/// definition (at the block start: with all the values defined there).
/// Leaves `live` in an unspecified state.
fn walk_block(
    f: &Function,
    b: Block,
    groups: &[(usize, usize)],
    live: &mut LiveSet<'_>,
    mut at_def: impl FnMut(Value, &LiveSet<'_>),
) {
    let data = &f.blocks[b];
    if let Some(a) = data.term.arg() {
        live.add(a);
    }
    let mut i = data.insts.len();
    while i > 0 {
        let end = i;
        // One instruction, or the whole parallel copy that ends here.
        let start = groups.iter().find(|&&(_, e)| e == end).map_or(end - 1, |&(s, _)| s);
        let (s, e) = (start, end);
        let dests: Vec<Value> = data.insts[s..e].iter().filter_map(|inst| inst.dest).collect();
        for &d in &dests {
            at_def(d, live);
        }
        for &d in &dests {
            live.remove(d);
        }
        for inst in &data.insts[s..e] {
            inst.op.for_each_arg(|a| live.add(a));
        }
        i = start;
    }
    let mut starters: Vec<Value> = data.phis.iter().map(|p| p.dest).collect();
    if b == Function::ENTRY {
        starters.extend(f.params.iter().copied());
    }
    for &d in &starters {
        live.add(d);
    }
    for &d in &starters {
        at_def(d, live);
    }
}

/// Where each tracked value is defined and used, and each block's
/// predecessors, for [`live_out_sets`].
struct Mentions {
    /// The definition of each bit: its block and the point within it where
    /// the value becomes defined (0 at the start; a parallel copy defines
    /// its destinations at its end).
    def: Vec<Option<(usize, usize)>>,
    /// The uses of each bit: a block and the point where it is read (a
    /// parallel copy reads its sources at its start), or `None` for a phi
    /// argument, read on leaving the block.
    uses: Vec<Vec<(usize, Option<usize>)>>,
    /// The predecessors of each block, with repeats.
    preds: Vec<Vec<usize>>,
}

/// The [`Mentions`] of the tracked values. A phi argument is read at the
/// end of the predecessor its index names in the block's `preds` (the IR's
/// convention): the lists are read as they are, edge by edge, with no
/// search for an edge's index (a search per edge is quadratic at a join).
fn mentions(f: &Function, u: &Universe, groups: &[Vec<(usize, usize)>]) -> Mentions {
    let nb = f.blocks.len();
    let m = u.value.len();
    let mut def: Vec<Option<(usize, usize)>> = vec![None; m];
    let mut uses: Vec<Vec<(usize, Option<usize>)>> = vec![Vec::new(); m];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for &p in &f.params {
        if let Some(i) = u.bit(p) {
            def[i] = Some((Function::ENTRY.index(), 0));
        }
    }
    for (b, data) in f.blocks.iter() {
        let g = &groups[b.index()];
        for phi in &data.phis {
            if let Some(i) = u.bit(phi.dest) {
                def[i] = Some((b.index(), 0));
            }
        }
        for (k, inst) in data.insts.iter().enumerate() {
            let (s, e) = g.iter().find(|&&(s, e)| s <= k && k < e).map_or((k, k + 1), |&r| r);
            inst.op.for_each_arg(|a| {
                if let Some(i) = u.bit(a) {
                    uses[i].push((b.index(), Some(s)));
                }
            });
            if let Some(i) = inst.dest.and_then(|d| u.bit(d)) {
                def[i] = Some((b.index(), e));
            }
        }
        if let Some(i) = data.term.arg().and_then(|a| u.bit(a)) {
            uses[i].push((b.index(), Some(data.insts.len())));
        }
        for (edge, &p) in data.preds.iter().enumerate().filter(|&(_, p)| p.index() < nb) {
            preds[b.index()].push(p.index());
            for phi in &data.phis {
                if let Some(i) = phi.args.get(edge).and_then(|&a| u.bit(a)) {
                    uses[i].push((p.index(), None));
                }
            }
        }
    }
    Mentions { def, uses, preds }
}

/// The tracked values live-out of each block, by exploring backwards from
/// each use of each tracked value to its definition (Appel's liveness "one
/// variable at a time"; Brandner et al., "Computing Liveness Sets for
/// SSA-Form Programs", INRIA RR-7503, 2011, path exploration): a value is
/// live-in at a block when a path from the block's start reaches a use
/// without passing its definition, and live-out of a block when it is
/// live-in at a successor and not one of its phis' destinations there, or
/// is a phi argument on an edge leaving the block. This is the least
/// fixpoint of the backward data flow, found in time proportional to the
/// blocks where each value is live rather than (blocks) × (values) × (rounds).
/// Returns, for each block, the live-out bits in no order.
fn live_out_sets(f: &Function, u: &Universe, groups: &[Vec<(usize, usize)>]) -> Vec<Vec<u32>> {
    let nb = f.blocks.len();
    let m = u.value.len();
    let Mentions { def, uses, preds } = mentions(f, u, groups);
    let mut out_pairs: Vec<(u32, u32)> = Vec::new();
    // Stamps: bit + 1 when the block is live-in / live-out for that bit.
    let mut in_stamp = vec![0u32; nb];
    let mut out_stamp = vec![0u32; nb];
    let mut work: Vec<usize> = Vec::new();
    for i in 0..m {
        let stamp = i as u32 + 1;
        let def_block = def[i].map(|(d, _)| d);
        let mut mark_out = |p: usize, work: &mut Vec<usize>, out_pairs: &mut Vec<(u32, u32)>| {
            if out_stamp[p] != stamp {
                out_stamp[p] = stamp;
                out_pairs.push((p as u32, i as u32));
                if def_block != Some(p) {
                    work.push(p);
                }
            }
        };
        for &(b, at) in &uses[i] {
            match at {
                None => mark_out(b, &mut work, &mut out_pairs),
                // Read after the definition in the same block: local.
                Some(at) if def[i].is_some_and(|(d, point)| d == b && point <= at) => {}
                Some(_) => work.push(b),
            }
        }
        while let Some(b) = work.pop() {
            if in_stamp[b] == stamp {
                continue;
            }
            in_stamp[b] = stamp;
            for &p in &preds[b] {
                mark_out(p, &mut work, &mut out_pairs);
            }
        }
    }
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); nb];
    for (b, i) in out_pairs {
        out[b as usize].push(i);
    }
    out
}

/// Two members of one class interfere: `live` is live at the definition of
/// `def` in `block`, and (when the check compares values) they hold
/// different values, the roots of their copy chains.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InterferenceError {
    pub live: Value,
    pub def: Value,
    pub block: Block,
    /// The copy-chain root of `live`.
    pub live_value: Value,
    /// The copy-chain root of `def`.
    pub def_value: Value,
}

impl fmt::Display for InterferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is live at the definition of {} in {} (values {} and {}), yet they share a class",
            self.live, self.def, self.block, self.live_value, self.def_value
        )
    }
}

impl std::error::Error for InterferenceError {}

/// [`check_cssa_independently`] finds two members of a phi-congruence
/// class that interfere: the function is not in CSSA form.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct IndependentCssaError(pub InterferenceError);

impl fmt::Display for IndependentCssaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not in CSSA form: {}", self.0)
    }
}

impl std::error::Error for IndependentCssaError {}

/// Checks that no two members of a class in `classes` interfere by value in
/// `f`, where `parallel_copies` lists the instruction ranges
/// `(block, start, end)` that execute as one parallel copy. The error names
/// the two variables.
pub fn check_classes_do_not_interfere(
    f: &Function,
    parallel_copies: &[(Block, usize, usize)],
    classes: &[Vec<Value>],
) -> Result<(), InterferenceError> {
    crate::pass_manager::self_checks::count();
    check_classes(f, parallel_copies, classes, true)
}

/// Checks that `f` is in CSSA form (Pereira and Palsberg, Definition 1) by
/// this module's own liveness and its own phi-congruence classes (a
/// union-find over the phis): no two members of a class intersect, values
/// aside. A cross-check of `analysis/cssa.rs`'s `check_cssa`, which shares
/// its liveness with PhiMemCoalesce.
pub fn check_cssa_independently(f: &Function) -> Result<(), IndependentCssaError> {
    crate::pass_manager::self_checks::count();
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for data in f.blocks.values() {
        for phi in &data.phis {
            for &a in &phi.args {
                let (x, y) = (root(&mut parent, a.index()), root(&mut parent, phi.dest.index()));
                parent[x] = y;
            }
        }
    }
    let mut members: FxHashMap<usize, Vec<Value>> = FxHashMap::default();
    for i in 0..n {
        members.entry(root(&mut parent, i)).or_default().push(Value::new(i));
    }
    let mut classes: Vec<Vec<Value>> = members.into_values().filter(|m| m.len() > 1).collect();
    classes.sort();
    check_classes(f, &[], &classes, false).map_err(IndependentCssaError)
}

/// The classes of more than one member that [`check_classes`] checks: all
/// of them, or, in a large function, every `step`-th one (see there).
fn classes_to_check<'c>(f: &Function, classes: &'c [Vec<Value>], by_value: bool) -> Vec<&'c Vec<Value>> {
    let size = f.blocks.values().map(|d| d.insts.len() + d.phis.len()).sum::<usize>();
    let nontrivial: Vec<&Vec<Value>> = classes.iter().filter(|m| m.len() > 1).collect();
    let total: usize = nontrivial.iter().map(|m| m.len()).sum();
    if !(sampling::should_sample(size) && total > SAMPLED_MEMBERS) {
        return nontrivial;
    }
    let step = total.div_ceil(SAMPLED_MEMBERS);
    let picked: Vec<&Vec<Value>> = nontrivial.iter().step_by(step).copied().collect();
    sampling::note_sampled(format!(
        "{}: no interference within {} of {} classes (one in {step}), not all",
        if by_value { "out-of-ssa's class check" } else { "the independent CSSA check" },
        picked.len(),
        nontrivial.len()
    ));
    picked
}

/// The most class members a sampled check tracks (see [`check_classes`]).
const SAMPLED_MEMBERS: usize = 8192;

/// The check: with `by_value`, members with the same value may intersect.
///
/// Above `sampling::SAMPLE_ABOVE` instructions and phis (unless
/// `--full-checks`), only some classes are checked: every `step`-th
/// class with more than one member, in the order given, `step` chosen so
/// that about [`SAMPLED_MEMBERS`] members are tracked; the other classes
/// are not checked (`pass_manager/sampling.rs`).
fn check_classes(
    f: &Function,
    parallel_copies: &[(Block, usize, usize)],
    classes: &[Vec<Value>],
    by_value: bool,
) -> Result<(), InterferenceError> {
    let value = copy_chain_roots(f);
    let n = value.len();
    let value_of = |v: Value| value.get(v.index()).copied().unwrap_or(v);
    let classes = classes_to_check(f, classes, by_value);
    let universe = Universe::new(n, &classes);
    let m = universe.value.len();
    // The class of each tracked value, and its position in that class.
    let mut class_of = vec![(usize::MAX, 0usize); m];
    for (c, members) in classes.iter().enumerate() {
        for (pos, &v) in members.iter().enumerate() {
            if let Some(i) = universe.bit(v) {
                class_of[i] = (c, pos);
            }
        }
    }
    let mut groups: Vec<Vec<(usize, usize)>> = vec![Vec::new(); f.blocks.len()];
    for &(b, s, e) in parallel_copies {
        if s < e {
            groups[b.index()].push((s, e));
        }
    }
    let live_out = live_out_sets(f, &universe, &groups);
    let class_index: Vec<usize> = class_of.iter().map(|&(c, _)| c).collect();
    let mut live = LiveSet::new(&universe, &class_index, classes.len());
    let mut found: Option<InterferenceError> = None;
    for b in f.blocks.keys() {
        live.clear();
        for &i in &live_out[b.index()] {
            live.add_bit(i as usize);
        }
        walk_block(f, b, &groups[b.index()], &mut live, |d, live| {
            if found.is_some() {
                return;
            }
            let Some(di) = universe.bit(d) else { return };
            let (c, _) = class_of[di];
            // The first member of the class, in its order, live here with
            // another value.
            let first = live
                .of_class(c)
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| i != di && (!by_value || value_of(universe.value[i]) != value_of(d)))
                .min_by_key(|&i| class_of[i].1);
            if let Some(i) = first {
                let m = universe.value[i];
                found = Some(InterferenceError {
                    live: m,
                    def: d,
                    block: b,
                    live_value: value_of(m),
                    def_value: value_of(d),
                });
            }
        });
        if let Some(e) = found {
            return Err(e);
        }
    }
    Ok(())
}
