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
use crate::entity::EntityRef;
use crate::ir::{Block, Function, Op, Value};
use rustc_hash::FxHashMap;

/// A set of values as a bit vector (the checker's own, so that it shares no
/// set type with the liveness it double-checks).
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn has(&self, v: Value) -> bool {
        self.0.get(v.index() / 64).is_some_and(|w| w >> (v.index() % 64) & 1 == 1)
    }
    fn add(&mut self, v: Value) {
        if let Some(w) = self.0.get_mut(v.index() / 64) {
            *w |= 1 << (v.index() % 64);
        }
    }
    fn remove(&mut self, v: Value) {
        if let Some(w) = self.0.get_mut(v.index() / 64) {
            *w &= !(1 << (v.index() % 64));
        }
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
    b: Block,
    groups: &[(usize, usize)],
    mut live: Bits,
    mut at_def: impl FnMut(Value, &Bits),
) -> Bits {
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
            at_def(d, &live);
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
    let mut at_start = live.clone();
    for &d in &starters {
        at_start.add(d);
    }
    for &d in &starters {
        at_def(d, &at_start);
    }
    for &d in &starters {
        live.remove(d);
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

/// The check: with `by_value`, members with the same value may intersect.
fn check_classes(
    f: &Function,
    parallel_copies: &[(Block, usize, usize)],
    classes: &[Vec<Value>],
    by_value: bool,
) -> Result<(), String> {
    let value = copy_chain_roots(f);
    let n = value.len();
    let value_of = |v: Value| value.get(v.index()).copied().unwrap_or(v);
    let mut class_of: FxHashMap<Value, usize> = FxHashMap::default();
    for (c, members) in classes.iter().enumerate() {
        if members.len() > 1 {
            for &m in members {
                class_of.insert(m, c);
            }
        }
    }
    let mut groups: Vec<Vec<(usize, usize)>> = vec![Vec::new(); f.blocks.len()];
    for &(b, s, e) in parallel_copies {
        if s < e {
            groups[b.index()].push((s, e));
        }
    }
    // Live-in sets to the least fixpoint (round robin: the functions are
    // small, and this is a checker, not a pass).
    let blocks: Vec<Block> = f.blocks.keys().collect();
    let mut live_in: Vec<Bits> = vec![Bits::new(n); f.blocks.len()];
    let live_out = |b: Block, live_in: &[Bits]| {
        let mut out = Bits::new(n);
        for (s, edge) in out_edges(f, b) {
            let mut through = live_in[s.index()].clone();
            for phi in &f.blocks[s].phis {
                through.remove(phi.dest);
            }
            out.union(&through);
            for phi in &f.blocks[s].phis {
                if let Some(&a) = phi.args.get(edge) {
                    out.add(a);
                }
            }
        }
        out
    };
    loop {
        let mut changed = false;
        for &b in blocks.iter().rev() {
            let out = live_out(b, &live_in);
            let new = walk_block(f, b, &groups[b.index()], out, |_, _| {});
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
        walk_block(f, b, &groups[b.index()], out, |d, live| {
            if found.is_some() {
                return;
            }
            let Some(&c) = class_of.get(&d) else { return };
            for &m in &classes[c] {
                if m != d && live.has(m) && (!by_value || value_of(m) != value_of(d)) {
                    found = Some(format!(
                        "{m} is live at the definition of {d} in {b} (values {} and {}), yet they share a class",
                        value_of(m),
                        value_of(d)
                    ));
                    return;
                }
            }
        });
        if let Some(e) = found {
            return Err(e);
        }
    }
    Ok(())
}
