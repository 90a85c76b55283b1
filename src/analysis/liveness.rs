//! SSA liveness with phis as parallel copies on the incoming edges, after
//! Pereira, "The Design and Implementation of a SSA-based Register
//! Allocator" (UCLA tech. report), §4.1, and the interference test of his
//! Lemma 1 (after Hack and Goos).
//!
//! Needs: nothing but the function (the dataflow works on any CFG, reducible
//! or not, and tolerates unreachable blocks). Its verdicts mean what they say
//! for functions that pass the SSA verifier.
//!
//! # Where values are live
//!
//! The conventions below are the ones of Pereira §4.1: given a phi matrix
//! `V = φM` in block `B`, "all the virtuals in the vector `V` are marked as
//! alive in the beginning of the basic block where they are defined", and the
//! virtuals of the column fed by block `Bj` "are marked as alive at the end of
//! `Bj`, but not beyond".
//!
//! - Every phi destination of `B` is in `live_in[B]`, used or not: the phis
//!   of a block are defined together at its start. For the same reason every
//!   parameter is in `live_in[b0]`.
//! - The `i`-th argument of every phi of `B` is in `live_out[B.preds[i]]`,
//!   and is in `live_in[B]` only if it is live there for another reason.
//! - An operand of an instruction is used at that instruction: it is live
//!   right before it, and live right after it only if it is used later.
//! - The operand of a terminator is used at the end of the block. It is live
//!   right after the last instruction, but it is not in `live_out` unless it
//!   is live on an outgoing edge for another reason.
//! - `live_out[B]` is the set of values live on the outgoing edges of `B`:
//!   for each edge `B → S`, `live_in[S]` minus the phi destinations of `S`,
//!   plus the arguments of the phis of `S` for that edge.
//!
//! A value defined by an instruction and never used is live nowhere, but it
//! still occupies its destination right after its instruction; the interval
//! analysis (`intervals.rs`) and the register pressure (`pressure.rs`) count
//! it at that one point, consistently with [`interfere`].
//!
//! # Algorithm
//!
//! The sets are the least fixpoint of the backward dataflow equations
//!
//! - `live_in[B] = phidefs(B) ∪ gen(B) ∪ (live_out[B] − kill(B))` (the
//!   parameters count as upward-exposed uses and definitions of the entry),
//! - `live_out[B] = args(B) ∪ ⋃ { live_in[S] − phidefs(S) : S successor of B }`,
//!
//! with `gen(B)` the upward-exposed uses of `B`'s instructions and
//! terminator, `kill(B)` everything `B` defines, and `args(B)` the phi
//! arguments of `B`'s outgoing edges. [`compute_liveness`] solves them *one
//! value at a time by path exploration* (Appel's "Modern Compiler
//! Implementation", §19.6, "liveness by variable"; Brandner et al.,
//! "Computing Liveness Sets for SSA-Form Programs", INRIA RR-7503, 2011,
//! §4.2, the variant LLVM and libFirm use): for a value `v`, starting from
//! the blocks where `v` is upward-exposed and from the edges where it is a
//! phi argument, walk the CFG backwards, adding `v` to each block's
//! `live_out`, and to its `live_in` unless the block defines `v`, where the
//! walk stops; a block already holding `v` stops it too. That marks exactly
//! the blocks from which a path reaches a use of `v` without passing a
//! definition of `v`, which is the least fixpoint. Each set is then built
//! by pushes in increasing value order (so it comes out sorted), and the
//! cost is the size of the output plus the mentions: `O(Σ_B |live_in[B]| ·
//! |preds(B)| + mentions)`, independent of the loop nesting. The iterative
//! worklist solution of the same equations ([`compute_liveness_dataflow`],
//! Pereira's §4.1 description, kept for tests) revisits each block once per
//! growth of a successor's set and merges whole sorted sets each time,
//! which weighs on large functions, and ssa-ra computes liveness a dozen
//! times per function. The predecessors the
//! walk follows are those of the terminators (the successor lists, reversed),
//! as in the equations; `tests/suite/intervals_and_loops.rs` compares both
//! solutions on generated functions at every stage of ssa-ra.
//!
//! Every set is a sorted vector of its members ([`SparseSet`]), the sparse
//! representation production liveness analyses use: a function's live sets
//! then take memory in proportion to their sizes. Dense bit sets (one bit
//! per value for each block, and for each instruction in
//! [`live_after_each_inst`]) would make liveness quadratic in the
//! function's size, in time and memory.

use crate::analysis::dominance::reverse_postorder;
use crate::entity::{EntityRef, EntityVec, SparseSet};
use crate::ir::{Block, Function, Value};

/// Live-in and live-out sets of every block (conventions in the module
/// documentation).
#[derive(Clone, Debug)]
pub struct Liveness {
    /// Values live at the start of each block, after its phis are defined:
    /// the phi destinations (all of them) and the values live through.
    pub live_in: EntityVec<Block, SparseSet<Value>>,
    /// Values live on the outgoing edges of each block, phi arguments of
    /// those edges included; a terminator's operand is not, unless it is
    /// live on an edge.
    pub live_out: EntityVec<Block, SparseSet<Value>>,
}

/// For the edge `from → to` that is the `occurrence`-th edge from `from` to
/// `to` (0 for a jump or a then-edge, 1 for the else-edge of `br c, S, S`),
/// the index of that edge in `to.preds`: the matching occurrence of `from`
/// (the convention of the interpreter and of the IR documentation).
pub fn pred_index(f: &Function, from: Block, to: Block, occurrence: usize) -> Option<usize> {
    f.blocks[to].preds.iter().enumerate().filter(|&(_, &p)| p == from).nth(occurrence).map(|(i, _)| i)
}

/// For each outgoing edge of `b`, in terminator order, the successor and the
/// index of the edge in the successor's `preds`. An edge missing from the
/// successor's `preds` (malformed IR) is skipped.
pub fn out_edges(f: &Function, b: Block) -> Vec<(Block, usize)> {
    let succs = f.succs(b);
    let mut edges = Vec::with_capacity(succs.len());
    for (k, &s) in succs.iter().enumerate() {
        let occurrence = succs[..k].iter().filter(|&&t| t == s).count();
        if let Some(i) = pred_index(f, b, s, occurrence) {
            edges.push((s, i));
        }
    }
    edges
}

/// [`out_edges`] and [`pred_index`] for every block at once, in time
/// linear in the edges: each block's occurrences in its successors'
/// `preds` lists are gathered in one pass over all lists. Asked edge by
/// edge, [`pred_index`] searches the successor's list, which is quadratic
/// in the predecessors of a join. Both tables are flat, one slice per
/// block.
pub struct OutEdges {
    /// The pairs `(s, i)` with `s.preds[i] == b`, by `s` then `i`: those
    /// of block `b` at `listed[listed_at[b]..listed_at[b + 1]]`.
    listed: Vec<(Block, usize)>,
    listed_at: Vec<u32>,
    /// [`out_edges`] of block `b` at `edges[edges_at[b]..edges_at[b + 1]]`.
    edges: Vec<(Block, usize)>,
    edges_at: Vec<u32>,
}

impl OutEdges {
    pub fn new(f: &Function) -> OutEdges {
        let n = f.blocks.len();
        // Counting sort of the `(s, i)` pairs by the predecessor.
        let mut listed_at = vec![0u32; n + 1];
        for data in f.blocks.values() {
            for &p in &data.preds {
                if p.index() < n {
                    listed_at[p.index() + 1] += 1;
                }
            }
        }
        for b in 0..n {
            listed_at[b + 1] += listed_at[b];
        }
        let mut listed = vec![(Block::new(0), 0); listed_at[n] as usize];
        let mut next: Vec<u32> = listed_at[..n].to_vec();
        for (s, data) in f.blocks.iter() {
            for (i, &p) in data.preds.iter().enumerate() {
                if p.index() < n {
                    listed[next[p.index()] as usize] = (s, i);
                    next[p.index()] += 1;
                }
            }
        }
        let mut table = OutEdges { listed, listed_at, edges: Vec::new(), edges_at: Vec::with_capacity(n + 1) };
        table.edges_at.push(0);
        for b in f.blocks.keys() {
            let succs = f.succs(b);
            for (k, &s) in succs.iter().enumerate() {
                let occurrence = succs[..k].iter().filter(|&&t| t == s).count();
                if let Some(i) = table.pred_index(b, s, occurrence) {
                    table.edges.push((s, i));
                }
            }
            table.edges_at.push(table.edges.len() as u32);
        }
        table
    }

    /// [`pred_index`]`(f, from, to, occurrence)`.
    pub fn pred_index(&self, from: Block, to: Block, occurrence: usize) -> Option<usize> {
        let (start, end) = (*self.listed_at.get(from.index())?, *self.listed_at.get(from.index() + 1)?);
        self.listed[start as usize..end as usize].iter().filter(|&&(s, _)| s == to).nth(occurrence).map(|&(_, i)| i)
    }

    /// [`out_edges`]`(f, b)`.
    pub fn of(&self, b: Block) -> &[(Block, usize)] {
        &self.edges[self.edges_at[b.index()] as usize..self.edges_at[b.index() + 1] as usize]
    }
}

/// What one mention of a value tells [`compute_liveness`] (see there).
#[derive(Clone, Copy)]
enum Mention {
    /// Upward-exposed use in the block: `v ∈ gen(B)`.
    Gen(Block),
    /// Phi argument on an outgoing edge of the block: `v ∈ args(B)`.
    Arg(Block),
    /// Defined by an instruction of the block: `v ∈ kill(B)`.
    Def(Block),
    /// Phi destination of the block.
    PhiDef(Block),
}

/// Computes live-in and live-out sets by path exploration, one value at a
/// time (Pereira §4.1 conventions; the algorithm and why it gives the least
/// fixpoint are in the module documentation).
pub fn compute_liveness(f: &Function) -> Liveness {
    let n = f.blocks.len();
    let mentions = mentions_by_value(f);
    let preds = terminator_preds(f);
    let mut w = Walk {
        live_in: Vec::new(),
        live_out: Vec::new(),
        kills: vec![0; n],
        in_mark: vec![0; n],
        out_mark: vec![0; n],
        stack: Vec::new(),
        mark: 0,
    };
    for vi in 0..mentions.len() {
        let mentions = mentions.of(vi);
        if mentions.is_empty() {
            continue;
        }
        let v = Value::new(vi);
        w.mark = vi as u32 + 1;
        // The blocks that define v stop the walk.
        for &m in mentions {
            if let Mention::Def(b) | Mention::PhiDef(b) = m {
                w.kills[b.index()] = w.mark;
            }
        }
        // The walk starts where v is upward-exposed, at the phis that
        // define it, and on the edges where it is a phi argument.
        for &m in mentions {
            match m {
                Mention::Gen(b) => w.enter_in(v, b, true),
                // Live at the block's start, but not on its incoming edges.
                Mention::PhiDef(b) => w.enter_in(v, b, false),
                Mention::Arg(b) => w.enter_out(v, b),
                Mention::Def(_) => {}
            }
        }
        // Backwards along the CFG: from a block v entered live-in, into
        // each predecessor's live-out.
        while let Some(b) = w.stack.pop() {
            for &p in preds.of(b.index()) {
                w.enter_out(v, p);
            }
        }
    }
    // Each list is in increasing value order; the stable sort by block
    // keeps that order within each block's set.
    let sets = |pairs: Vec<(Block, Value)>| -> EntityVec<Block, SparseSet<Value>> {
        let by_block = Buckets::sort(n, pairs);
        (0..n).map(|b| by_block.of(b).iter().copied().collect()).collect()
    };
    Liveness { live_in: sets(w.live_in), live_out: sets(w.live_out) }
}

/// Lists of items by a dense key, in one flat table: the list of key `k`
/// is `items[start[k]..start[k + 1]]`.
struct Buckets<T> {
    items: Vec<T>,
    start: Vec<u32>,
}

impl<T: Copy> Buckets<T> {
    /// A stable counting sort of `(key, item)` pairs whose keys are below
    /// `keys`: one pass to count, one to place; each list keeps the order
    /// of its pairs.
    fn sort<K: EntityRef>(keys: usize, pairs: Vec<(K, T)>) -> Buckets<T> {
        let mut start = vec![0u32; keys + 1];
        for &(k, _) in &pairs {
            start[k.index() + 1] += 1;
        }
        for i in 1..=keys {
            start[i] += start[i - 1];
        }
        let Some(&(_, fill)) = pairs.first() else { return Buckets { items: Vec::new(), start } };
        let mut items = vec![fill; pairs.len()];
        let mut next = start.clone();
        for &(k, item) in &pairs {
            items[next[k.index()] as usize] = item;
            next[k.index()] += 1;
        }
        Buckets { items, start }
    }

    /// The number of keys.
    fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The list of key `k`.
    fn of(&self, k: usize) -> &[T] {
        &self.items[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// The predecessors of each block along the terminators' edges, one entry
/// per edge, in block order.
fn terminator_preds(f: &Function) -> Buckets<Block> {
    let mut pairs: Vec<(Block, Block)> = Vec::new();
    for (b, data) in f.blocks.iter() {
        for s in data.term.successors() {
            pairs.push((s, b));
        }
    }
    Buckets::sort(f.blocks.len(), pairs)
}

/// Every mention of every value, by value: the values each block's phis
/// and instructions define (and the parameters, in the entry), the values
/// upward-exposed in it, and the phi arguments of its outgoing edges. The
/// table has a list for each value up to the last one mentioned.
fn mentions_by_value(f: &Function) -> Buckets<Mention> {
    let edges = OutEdges::new(f);
    let mut raw: Vec<(Value, Mention)> = Vec::new();
    // `defined[v]` is one more than the last block seen to define `v`.
    let mut defined: Vec<u32> = vec![0; f.value_count as usize];
    for (b, data) in f.blocks.iter() {
        let stamp = b.index() as u32 + 1;
        let def = |v: Value, defined: &mut Vec<u32>| {
            if v.index() >= defined.len() {
                defined.resize(v.index() + 1, 0);
            }
            defined[v.index()] = stamp;
        };
        for phi in &data.phis {
            def(phi.dest, &mut defined);
            raw.push((phi.dest, Mention::PhiDef(b)));
        }
        if b == Function::ENTRY {
            for &p in &f.params {
                // Live at the entry's start and, unlike a phi destination,
                // on the entry's incoming edges, if it has any: a use
                // there, and a definition.
                def(p, &mut defined);
                raw.push((p, Mention::Def(b)));
                raw.push((p, Mention::Gen(b)));
            }
        }
        for inst in &data.insts {
            inst.op.for_each_arg(|a| {
                if defined.get(a.index()) != Some(&stamp) {
                    raw.push((a, Mention::Gen(b)));
                }
            });
            if let Some(d) = inst.dest {
                def(d, &mut defined);
                raw.push((d, Mention::Def(b)));
            }
        }
        if let Some(a) = data.term.arg() {
            if defined.get(a.index()) != Some(&stamp) {
                raw.push((a, Mention::Gen(b)));
            }
        }
        for &(s, i) in edges.of(b) {
            for phi in &f.blocks[s].phis {
                if let Some(&a) = phi.args.get(i) {
                    raw.push((a, Mention::Arg(b)));
                }
            }
        }
    }
    drop(edges);
    let value_limit = raw.iter().map(|&(v, _)| v.index() + 1).max().unwrap_or(0);
    Buckets::sort(value_limit, raw)
}

/// The state of [`compute_liveness`]'s walks. For the value being walked,
/// numbered `mark - 1`: `kills[B] == mark` when `B` defines it, `in_mark[B]`
/// (`out_mark[B]`) `== mark` when it is already in `live_in[B]`
/// (`live_out[B]`); `stack` holds the blocks whose `live_in` it entered and
/// whose predecessors are still to be visited.
struct Walk {
    /// (block, value) for each member of `live_in[block]`, values in
    /// increasing order.
    live_in: Vec<(Block, Value)>,
    /// The same for `live_out`.
    live_out: Vec<(Block, Value)>,
    kills: Vec<u32>,
    in_mark: Vec<u32>,
    out_mark: Vec<u32>,
    stack: Vec<Block>,
    mark: u32,
}

impl Walk {
    /// `v` enters `live_in[b]`; with `walk`, the walk goes on to `b`'s
    /// predecessors.
    fn enter_in(&mut self, v: Value, b: Block, walk: bool) {
        if self.in_mark[b.index()] != self.mark {
            self.in_mark[b.index()] = self.mark;
            self.live_in.push((b, v));
            if walk {
                self.stack.push(b);
            }
        }
    }

    /// `v` enters `live_out[b]`, and `live_in[b]` unless `b` defines it.
    fn enter_out(&mut self, v: Value, b: Block) {
        if self.out_mark[b.index()] == self.mark {
            return;
        }
        self.out_mark[b.index()] = self.mark;
        self.live_out.push((b, v));
        if self.kills[b.index()] != self.mark {
            self.enter_in(v, b, true);
        }
    }
}

/// The same sets as [`compute_liveness`], by iterative backward dataflow to
/// the least fixpoint (Pereira §4.1), with a worklist seeded in post-order:
/// each block's upward-exposed uses (`gen`) and definitions (`kill`) are
/// computed once, and a block is revisited when the live-in set of one of
/// its successors grew. Sets only grow, so the iteration ends; it reaches
/// the least fixpoint on every CFG whose `preds` lists match its
/// terminators, irreducible ones included. Kept for the tests that compare
/// the two solutions.
pub fn compute_liveness_dataflow(f: &Function) -> Liveness {
    let n = f.blocks.len();
    let (gen, kill) = gen_and_kill(f);
    // live_in starts as phidefs(B) ∪ gen(B), the parameters in the entry.
    let mut live_in: EntityVec<Block, SparseSet<Value>> = EntityVec::from_elem(SparseSet::new(), n);
    for (b, data) in f.blocks.iter() {
        let mut li: Vec<Value> = data.phis.iter().map(|phi| phi.dest).collect();
        if b == Function::ENTRY {
            li.extend(f.params.iter().copied());
        }
        li.extend(gen[b].iter());
        live_in[b] = li.into_iter().collect();
    }
    // The phi arguments of each edge never change: seed live-out with them.
    let mut live_out: EntityVec<Block, SparseSet<Value>> = EntityVec::from_elem(SparseSet::new(), n);
    for b in f.blocks.keys() {
        let mut args = Vec::new();
        for (s, i) in out_edges(f, b) {
            for phi in &f.blocks[s].phis {
                if let Some(&a) = phi.args.get(i) {
                    args.push(a);
                }
            }
        }
        live_out[b] = args.into_iter().collect();
    }
    let order = postorder_then_unreachable(f);
    let mut on_list = vec![true; n];
    let mut worklist: std::collections::VecDeque<Block> = order.into_iter().collect();
    // The phi destinations of each block, removed from its live-in on the
    // way into a predecessor's live-out.
    let phi_defs: EntityVec<Block, SparseSet<Value>> =
        f.blocks.values().map(|data| data.phis.iter().map(|phi| phi.dest).collect()).collect();
    while let Some(b) = worklist.pop_front() {
        on_list[b.index()] = false;
        // live_out[b] grows by the live-in of each successor minus its phis.
        let mut out = std::mem::take(&mut live_out[b]);
        for s in f.succs(b) {
            out.union_with_difference(&live_in[s], &phi_defs[s]);
        }
        // live_in[b] grows by live_out[b] minus the block's definitions.
        let grew = live_in[b].union_with_difference(&out, &kill[b]);
        live_out[b] = out;
        if grew {
            for &p in &f.blocks[b].preds {
                if !on_list[p.index()] {
                    on_list[p.index()] = true;
                    worklist.push_back(p);
                }
            }
        }
    }
    Liveness { live_in, live_out }
}

/// A set of values for each block.
type BlockSets = EntityVec<Block, SparseSet<Value>>;

/// The upward-exposed uses (`gen`) and the definitions (`kill`) of each
/// block, phis excluded: phi destinations are added to live-in
/// unconditionally, phi arguments are uses in the predecessors.
fn gen_and_kill(f: &Function) -> (BlockSets, BlockSets) {
    let n = f.blocks.len();
    // `defined[v]` is one more than the last block seen to define `v`: one
    // scratch table for every block.
    let mut defined: Vec<u32> = vec![0; f.value_count as usize];
    let mut gen: EntityVec<Block, SparseSet<Value>> = EntityVec::from_elem(SparseSet::new(), n);
    let mut kill: EntityVec<Block, SparseSet<Value>> = EntityVec::from_elem(SparseSet::new(), n);
    for (b, data) in f.blocks.iter() {
        let stamp = b.index() as u32 + 1;
        let (mut g, mut k) = (Vec::new(), Vec::new());
        let def = |v: Value, k: &mut Vec<Value>, defined: &mut Vec<u32>| {
            if v.index() >= defined.len() {
                defined.resize(v.index() + 1, 0);
            }
            defined[v.index()] = stamp;
            k.push(v);
        };
        for phi in &data.phis {
            def(phi.dest, &mut k, &mut defined);
        }
        if b == Function::ENTRY {
            for &p in &f.params {
                def(p, &mut k, &mut defined);
            }
        }
        for inst in &data.insts {
            inst.op.for_each_arg(|a| {
                if defined.get(a.index()) != Some(&stamp) {
                    g.push(a);
                }
            });
            if let Some(d) = inst.dest {
                def(d, &mut k, &mut defined);
            }
        }
        if let Some(a) = data.term.arg() {
            if defined.get(a.index()) != Some(&stamp) {
                g.push(a);
            }
        }
        gen[b] = g.into_iter().collect();
        kill[b] = k.into_iter().collect();
    }
    (gen, kill)
}

/// The worklist's first order: post-order (reachable blocks first, then the
/// others), so that most successors are processed before their
/// predecessors.
fn postorder_then_unreachable(f: &Function) -> Vec<Block> {
    let n = f.blocks.len();
    let mut order = reverse_postorder(n, Function::ENTRY, |b| f.succs(b));
    order.reverse();
    let mut seen = vec![false; n];
    for &b in &order {
        seen[b.index()] = true;
    }
    order.extend(f.blocks.keys().filter(|b| !seen[b.index()]));
    order
}

/// The values live at the end of `b`, at its terminator: `live_out[b]` plus
/// the terminator's operand.
pub fn live_at_end(f: &Function, b: Block, live: &Liveness) -> SparseSet<Value> {
    let mut set = live.live_out[b].clone();
    if let Some(a) = f.blocks[b].term.arg() {
        set.insert(a);
    }
    set
}

/// For each instruction `i` of `b`, the set of values live right after it
/// (index `i`). The set after the last instruction is [`live_at_end`]. An
/// instruction's own destination is in its set only if it is used later.
pub fn live_after_each_inst(f: &Function, b: Block, live: &Liveness) -> Vec<SparseSet<Value>> {
    let insts = &f.blocks[b].insts;
    let mut after = vec![SparseSet::new(); insts.len()];
    let mut cur = live_at_end(f, b, live);
    for (i, inst) in insts.iter().enumerate().rev() {
        after[i] = cur.clone();
        if let Some(d) = inst.dest {
            cur.remove(d);
        }
        inst.op.for_each_arg(|a| {
            cur.insert(a);
        });
    }
    after
}

/// For each instruction `i` of `b`, the set of values live right before it
/// (index `i`): the set after instruction `i - 1`, or `live_in[b]` for the
/// first instruction.
pub fn live_before_each_inst(f: &Function, b: Block, live: &Liveness) -> Vec<SparseSet<Value>> {
    let after = live_after_each_inst(f, b, live);
    let mut before = Vec::with_capacity(after.len());
    if !after.is_empty() {
        before.push(live.live_in[b].clone());
        before.extend(after[..after.len() - 1].iter().cloned());
    }
    before
}

/// Where a value is defined, as the program point whose live set decides
/// interference (Lemma 1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DefPoint {
    /// A parameter (at the start of `b0`) or a phi destination (at the start
    /// of its block, together with the other phis of the block).
    BlockStart(Block),
    /// The `usize`-th instruction of the block.
    Inst(Block, usize),
}

/// The definition point of every value number below `value_count` that is
/// defined (`None` for the others).
pub fn def_points(f: &Function) -> EntityVec<Value, Option<DefPoint>> {
    let mut defs = EntityVec::from_elem(None, f.value_count as usize);
    let mut set = |v: Value, d: DefPoint| {
        defs.ensure(v, None);
        defs[v] = Some(d);
    };
    for &p in &f.params {
        set(p, DefPoint::BlockStart(Function::ENTRY));
    }
    for (b, data) in f.blocks.iter() {
        for phi in &data.phis {
            set(phi.dest, DefPoint::BlockStart(b));
        }
        for (i, inst) in data.insts.iter().enumerate() {
            if let Some(d) = inst.dest {
                set(d, DefPoint::Inst(b, i));
            }
        }
    }
    defs
}

/// The interference relation of a strict SSA function, with the live sets
/// at every definition point computed once, so that each query is O(1).
///
/// Lemma 1 of Pereira (after Hack and Goos): two values of a program in
/// strict SSA form interfere if and only if one is live at the definition
/// point of the other. The live set at a definition point is the set right
/// after the defining instruction, or `live_in` of the block for phi
/// destinations and parameters (so that two phis of one block interfere
/// when both are live at its start, and every two parameters interfere).
/// A value used by an instruction and dead after it does not interfere with
/// the instruction's destination.
///
/// The live sets after each instruction are not stored (in large functions
/// they hold thousands of values each: quadratic memory). Instead, for each
/// block, the mentions of its instructions and terminator as one sorted
/// list of (value, position, use or definition), the terminator's position
/// being `insts.len()` and a use sorting before a definition at the same
/// position: `v` is live right after instruction `i` of `b` when its first
/// mention after `i` in `b` is a use (it is used no later than it is
/// redefined), or when nothing after `i` mentions it and it is in
/// `live_out[b]`. That is what [`live_after_each_inst`] computes, by a
/// binary search instead of a stored set. (A hash map from (value, block)
/// to two vectors of positions would do the same with three allocations
/// per entry, a large part of `check_cssa`'s time on large functions.)
#[derive(Clone, Debug)]
pub struct Interference<'a> {
    live: &'a Liveness,
    defs: EntityVec<Value, Option<DefPoint>>,
    /// The mentions of every block, block after block, each block's sorted:
    /// (value, `2 × position + 1` for a definition, `2 × position` for a
    /// use).
    mentions: Vec<(Value, u32)>,
    /// Where each block's mentions start in `mentions` (one more entry at
    /// the end).
    first: Vec<u32>,
    /// The number of instructions of each block.
    len: EntityVec<Block, u32>,
}

impl<'a> Interference<'a> {
    /// Indexes the uses and definitions of every value of `f`, block by block.
    pub fn new(f: &Function, live: &'a Liveness) -> Self {
        let mut mentions: Vec<(Value, u32)> = Vec::new();
        let mut first = Vec::with_capacity(f.blocks.len() + 1);
        for data in f.blocks.values() {
            let from = mentions.len();
            first.push(from as u32);
            for (i, inst) in data.insts.iter().enumerate() {
                inst.op.for_each_arg(|a| mentions.push((a, 2 * i as u32)));
                if let Some(d) = inst.dest {
                    mentions.push((d, 2 * i as u32 + 1));
                }
            }
            if let Some(a) = data.term.arg() {
                mentions.push((a, 2 * data.insts.len() as u32));
            }
            mentions[from..].sort_unstable();
        }
        first.push(mentions.len() as u32);
        let len = f.blocks.values().map(|d| d.insts.len() as u32).collect();
        Interference { live, defs: def_points(f), mentions, first, len }
    }

    /// True when `v` is live right after instruction `i` of `b` (see above).
    fn live_after(&self, v: Value, b: Block, i: usize) -> bool {
        let block = match (self.first.get(b.index()), self.first.get(b.index() + 1)) {
            (Some(&from), Some(&to)) => &self.mentions[from as usize..to as usize],
            _ => &[][..],
        };
        // The first mention of `v` after instruction `i`: past every
        // mention of a smaller value, and of `v` at `i` or before.
        let after = (v, 2 * i as u32 + 1);
        match block.get(block.partition_point(|&m| m <= after)) {
            Some(&(w, pos)) if w == v => pos % 2 == 0,
            _ => self.live.live_out.get(b).is_some_and(|set| set.contains(v)),
        }
    }

    /// Where `v` is defined, if it is.
    pub fn def_point(&self, v: Value) -> Option<DefPoint> {
        self.defs.get(v).copied().flatten()
    }

    /// True when `v` is live at the definition point of `w` (`v != w`).
    pub fn live_at_def(&self, v: Value, w: Value) -> bool {
        if v == w {
            return false;
        }
        match self.def_point(w) {
            None => false,
            Some(DefPoint::BlockStart(b)) => self.live.live_in[b].contains(v),
            Some(DefPoint::Inst(b, i)) => self.live_after(v, b, i),
        }
    }

    /// True when `v` is live right after the `i`-th instruction of `b`.
    pub fn live_after_inst(&self, v: Value, b: Block, i: usize) -> bool {
        self.len.get(b).is_some_and(|&n| i < n as usize) && self.live_after(v, b, i)
    }

    /// True when `v` is in `live_in[b]`.
    pub fn live_in(&self, v: Value, b: Block) -> bool {
        self.live.live_in.get(b).is_some_and(|set| set.contains(v))
    }

    /// True when `v` is in `live_out[b]`.
    pub fn live_out(&self, v: Value, b: Block) -> bool {
        self.live.live_out.get(b).is_some_and(|set| set.contains(v))
    }

    /// True when `a` and `b` interfere: they differ and one is live at the
    /// definition point of the other.
    pub fn interfere(&self, a: Value, b: Value) -> bool {
        a != b && (self.live_at_def(a, b) || self.live_at_def(b, a))
    }
}

/// True when `a` and `b` interfere in `f` (Lemma 1 of Pereira; see
/// [`Interference`]). Costs one scan of the function; build an
/// [`Interference`] for many queries.
pub fn interfere(f: &Function, live: &Liveness, a: Value, b: Value) -> bool {
    if a == b {
        return false;
    }
    let defs = def_points(f);
    let live_at_def = |v: Value, w: Value| match defs.get(w).copied().flatten() {
        None => false,
        Some(DefPoint::BlockStart(blk)) => live.live_in[blk].contains(v),
        Some(DefPoint::Inst(blk, i)) => live_after_each_inst(f, blk, live)[i].contains(v),
    };
    live_at_def(a, b) || live_at_def(b, a)
}
