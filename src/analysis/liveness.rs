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
//! Iterative backward dataflow to the least fixpoint, with a worklist seeded
//! in post-order: each block's upward-exposed uses (`gen`) and definitions
//! (`kill`) are computed once, and a block is revisited when the live-in set
//! of one of its successors grew. Sets only grow, so the iteration ends; it
//! reaches the least fixpoint on every CFG, irreducible ones included.
//!
//! Every set is a sorted vector of its members ([`SparseSet`]), the sparse
//! representation production liveness analyses use: a function's live sets
//! then take memory in proportion to their sizes. Dense bit sets (one bit
//! per value for each block, and for each instruction in
//! [`live_after_each_inst`]) made liveness quadratic in the function's size:
//! gigabytes at 100,000 statements (`docs/scaling.md`).

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

/// Computes live-in and live-out sets by iterative backward dataflow
/// (Pereira §4.1 conventions, see the module documentation).
pub fn compute_liveness(f: &Function) -> Liveness {
    let n = f.blocks.len();
    // Upward-exposed uses and definitions of each block, phis excluded (phi
    // destinations are added to live-in unconditionally, phi arguments are
    // uses in the predecessors). `defined[v]` is one more than the last
    // block seen to define `v`: one scratch table for every block.
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

    let mut live_in: EntityVec<Block, SparseSet<Value>> = EntityVec::from_elem(SparseSet::new(), n);
    let mut live_out: EntityVec<Block, SparseSet<Value>> = EntityVec::from_elem(SparseSet::new(), n);
    for (b, data) in f.blocks.iter() {
        let mut li: Vec<Value> = data.phis.iter().map(|phi| phi.dest).collect();
        if b == Function::ENTRY {
            li.extend(f.params.iter().copied());
        }
        li.extend(gen[b].iter());
        live_in[b] = li.into_iter().collect();
    }
    // The phi arguments of each edge never change: seed live-out with them.
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

    // Worklist in post-order (reachable blocks first, then the others), so
    // that most successors are processed before their predecessors.
    let mut order = reverse_postorder(n, Function::ENTRY, |b| f.succs(b));
    order.reverse();
    let mut seen = vec![false; n];
    for &b in &order {
        seen[b.index()] = true;
    }
    order.extend(f.blocks.keys().filter(|b| !seen[b.index()]));
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
/// value and each block that mentions it, the sorted positions of its uses
/// (the terminator's at `insts.len()`) and definitions: `v` is live right
/// after instruction `i` of `b` when its first use after `i` comes no later
/// than its first definition after `i`, or when nothing after `i` defines
/// it and it is in `live_out[b]`. That is what [`live_after_each_inst`]
/// computes, by a binary search instead of a stored set.
#[derive(Clone, Debug)]
pub struct Interference<'a> {
    live: &'a Liveness,
    defs: EntityVec<Value, Option<DefPoint>>,
    /// (uses, definitions) of each value in each block that mentions it.
    mentions: std::collections::HashMap<(Value, Block), (Vec<u32>, Vec<u32>)>,
    /// The number of instructions of each block.
    len: EntityVec<Block, u32>,
}

impl<'a> Interference<'a> {
    /// Indexes the uses and definitions of every value of `f`, block by block.
    pub fn new(f: &Function, live: &'a Liveness) -> Self {
        let mut mentions: std::collections::HashMap<(Value, Block), (Vec<u32>, Vec<u32>)> =
            std::collections::HashMap::new();
        for (b, data) in f.blocks.iter() {
            for (i, inst) in data.insts.iter().enumerate() {
                inst.op.for_each_arg(|a| mentions.entry((a, b)).or_default().0.push(i as u32));
                if let Some(d) = inst.dest {
                    mentions.entry((d, b)).or_default().1.push(i as u32);
                }
            }
            if let Some(a) = data.term.arg() {
                mentions.entry((a, b)).or_default().0.push(data.insts.len() as u32);
            }
        }
        let len = f.blocks.values().map(|d| d.insts.len() as u32).collect();
        Interference { live, defs: def_points(f), mentions, len }
    }

    /// True when `v` is live right after instruction `i` of `b` (see above).
    fn live_after(&self, v: Value, b: Block, i: usize) -> bool {
        let i = i as u32;
        let (uses, defs) = match self.mentions.get(&(v, b)) {
            Some((u, d)) => (u.as_slice(), d.as_slice()),
            None => (&[][..], &[][..]),
        };
        let first_after = |xs: &[u32]| xs.get(xs.partition_point(|&x| x <= i)).copied();
        match (first_after(uses), first_after(defs)) {
            (Some(u), Some(d)) => u <= d,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => self.live.live_out.get(b).is_some_and(|set| set.contains(v)),
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
