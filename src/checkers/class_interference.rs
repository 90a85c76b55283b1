//! The check after route 2's coalescing (Boissinot et al., CGO 2009,
//! §III-A): no two members of one congruence class interfere by value.
//!
//! Needs: a function that passes the SSA verifier (the program after
//! Method I, or after the virtualized algorithm materialized its copies),
//! the runs of instructions that execute as one parallel copy, and the
//! classes. Shares no code with `route2/values.rs`, whose value numbering
//! and liveness queries the coalescer uses: a mistake there would otherwise
//! be made twice and pass.
//!
//! The definitions, from the paper, computed here by the simplest means:
//! - the *value* of a variable is the root of its copy chain: `b = copy a`
//!   gives `b` the value of `a`, found by following the chain from `b`'s
//!   own definition (no dominator tree, no traversal order);
//! - two variables *intersect* when one is live right after the definition
//!   of the other. Liveness is a backward dataflow of its own, with phis as
//!   copies on the incoming edges (an argument is live at the end of its
//!   predecessor; the destinations of a block's phis, and the parameters,
//!   are defined together at its start, so they all intersect each other),
//!   and a parallel copy reads all its sources before it defines its
//!   destinations at its end;
//! - they *interfere by value* when they intersect and have different
//!   values.
//!
//! In strict SSA form, one variable live at the other's definition implies
//! that its definition dominates the other's, so this is the same relation
//! as `route2/values.rs`'s `value_interfere`, decided without dominance
//! (`proofs-notes/out-of-ssa.md`).

use crate::analysis::liveness::out_edges;
use crate::analysis::sampling;
use crate::entity::EntityRef;
use crate::ir::{Block, Function, Op, Value};
use rustc_hash::FxHashMap;

/// The values whose liveness the check tracks: the members of the classes
/// it checks, numbered densely. The liveness of one value does not depend
/// on any other's (each bit of the backward data flow is its own problem),
/// so tracking only these is exact for them, and the sets cost (blocks) ×
/// (members), not (blocks) × (values).
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

/// A set of tracked values as a bit vector (the checker's own, so that it
/// shares no set type with the liveness it double-checks), indexed by
/// [`Universe`] bits.
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    fn add(&mut self, u: &Universe, v: Value) {
        if let Some(i) = u.bit(v) {
            self.0[i / 64] |= 1 << (i % 64);
        }
    }
    fn remove(&mut self, u: &Universe, v: Value) {
        if let Some(i) = u.bit(v) {
            self.0[i / 64] &= !(1 << (i % 64));
        }
    }
    /// The bits set, in increasing order.
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(k * 64 + t)
            })
        })
    }
    fn union(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
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

/// Walks `b` backwards from `live` (its live-out set), calling `at_def`
/// with every value defined and the set live right after its definition
/// (at the block start: with all the values defined there); returns the live-in set
/// (without the values defined at the start).
fn walk_block(
    f: &Function,
    u: &Universe,
    b: Block,
    groups: &[(usize, usize)],
    mut live: Bits,
    mut at_def: impl FnMut(Value, &Bits),
) -> Bits {
    let data = &f.blocks[b];
    if let Some(a) = data.term.arg() {
        live.add(u, a);
    }
    let mut i = data.insts.len();
    while i > 0 {
        let end = i;
        // One instruction, or the whole parallel copy that ends here.
        let start = groups.iter().find(|&&(_, e)| e == end).map_or(end - 1, |&(s, _)| s);
        let (s, e) = (start, end);
        let dests: Vec<Value> = data.insts[s..e].iter().filter_map(|inst| inst.dest).collect();
        for &d in &dests {
            at_def(d, &live);
        }
        for &d in &dests {
            live.remove(u, d);
        }
        for inst in &data.insts[s..e] {
            inst.op.for_each_arg(|a| live.add(u, a));
        }
        i = start;
    }
    let mut starters: Vec<Value> = data.phis.iter().map(|p| p.dest).collect();
    if b == Function::ENTRY {
        starters.extend(f.params.iter().copied());
    }
    let mut at_start = live.clone();
    for &d in &starters {
        at_start.add(u, d);
    }
    for &d in &starters {
        at_def(d, &at_start);
    }
    for &d in &starters {
        live.remove(u, d);
    }
    live
}

/// Checks that no two members of a class in `classes` interfere by value in
/// `f`, where `parallel_copies` lists the instruction ranges
/// `(block, start, end)` that execute as one parallel copy. The error names
/// the two variables.
pub fn check_classes_do_not_interfere(
    f: &Function,
    parallel_copies: &[(Block, usize, usize)],
    classes: &[Vec<Value>],
) -> Result<(), String> {
    check_classes(f, parallel_copies, classes, true)
}

/// Checks that `f` is in CSSA form (Pereira and Palsberg, Definition 1) by
/// this module's own liveness and its own phi-congruence classes (a
/// union-find over the phis): no two members of a class intersect, values
/// aside. A cross-check of `analysis/cssa.rs`'s `check_cssa`, which shares
/// its liveness with PhiMemCoalesce.
pub fn check_cssa_independently(f: &Function) -> Result<(), String> {
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
    check_classes(f, &[], &classes, false).map_err(|e| format!("not in CSSA form: {e}"))
}

/// The most class members a sampled check tracks (see [`check_classes`]).
const SAMPLED_MEMBERS: usize = 8192;

/// The check: with `by_value`, members with the same value may intersect.
///
/// Above `sampling::SAMPLE_ABOVE` instructions and phis (unless
/// `--full-checks`), only some classes are checked: every `step`-th
/// class with more than one member, in the order given, `step` chosen so
/// that about [`SAMPLED_MEMBERS`] members are tracked; the other classes
/// are not checked (`analysis/sampling.rs`).
fn check_classes(
    f: &Function,
    parallel_copies: &[(Block, usize, usize)],
    classes: &[Vec<Value>],
    by_value: bool,
) -> Result<(), String> {
    let value = copy_chain_roots(f);
    let n = value.len();
    let value_of = |v: Value| value.get(v.index()).copied().unwrap_or(v);
    let size = f.blocks.values().map(|d| d.insts.len() + d.phis.len()).sum::<usize>();
    let nontrivial: Vec<&Vec<Value>> = classes.iter().filter(|m| m.len() > 1).collect();
    let total: usize = nontrivial.iter().map(|m| m.len()).sum();
    let checked: Vec<&Vec<Value>> = if sampling::should_sample(size) && total > SAMPLED_MEMBERS {
        let step = total.div_ceil(SAMPLED_MEMBERS);
        let picked: Vec<&Vec<Value>> = nontrivial.iter().step_by(step).copied().collect();
        sampling::note_sampled(format!(
            "{}: no interference within {} of {} classes (one in {step}), not all",
            if by_value { "route 2's class check" } else { "the independent CSSA check" },
            picked.len(),
            nontrivial.len()
        ));
        picked
    } else {
        nontrivial
    };
    let classes = checked;
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
    // Live-in sets to the least fixpoint (round robin: this is a checker,
    // not a pass).
    let blocks: Vec<Block> = f.blocks.keys().collect();
    let mut live_in: Vec<Bits> = vec![Bits::new(m); f.blocks.len()];
    let live_out = |b: Block, live_in: &[Bits]| {
        let mut out = Bits::new(m);
        for (s, edge) in out_edges(f, b) {
            let mut through = live_in[s.index()].clone();
            for phi in &f.blocks[s].phis {
                through.remove(&universe, phi.dest);
            }
            out.union(&through);
            for phi in &f.blocks[s].phis {
                if let Some(&a) = phi.args.get(edge) {
                    out.add(&universe, a);
                }
            }
        }
        out
    };
    loop {
        let mut changed = false;
        for &b in blocks.iter().rev() {
            let out = live_out(b, &live_in);
            let new = walk_block(f, &universe, b, &groups[b.index()], out, |_, _| {});
            if new != live_in[b.index()] {
                live_in[b.index()] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut found: Option<String> = None;
    for &b in &blocks {
        let out = live_out(b, &live_in);
        walk_block(f, &universe, b, &groups[b.index()], out, |d, live| {
            if found.is_some() {
                return;
            }
            let Some(di) = universe.bit(d) else { return };
            let (c, _) = class_of[di];
            // The first member of the class, in its order, live here with
            // another value: by the class's members if it is the shorter
            // walk, else by the live set.
            let clash = |i: usize| {
                let v = universe.value[i];
                i != di && live.has(i) && (!by_value || value_of(v) != value_of(d))
            };
            let first = if classes[c].len() <= live.0.len() {
                classes[c].iter().filter_map(|&v| universe.bit(v)).find(|&i| clash(i))
            } else {
                live.ones().filter(|&i| class_of[i].0 == c && clash(i)).min_by_key(|&i| class_of[i].1)
            };
            if let Some(i) = first {
                let m = universe.value[i];
                found = Some(format!(
                    "{m} is live at the definition of {d} in {b} (values {} and {}), yet they share a class",
                    value_of(m),
                    value_of(d)
                ));
            }
        });
        if let Some(e) = found {
            return Err(e);
        }
    }
    Ok(())
}
