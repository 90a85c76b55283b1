//! Sreedhar III with real virtualization of the φ-nodes: Boissinot et al.,
//! "Revisiting Out-of-SSA Translation for Correctness, Code Quality, and
//! Efficiency" (CGO 2009), §IV-C ("Virtualization of the φ-nodes"), with the
//! variant "Sreedhar III" of §III-E (Method III of Sreedhar et al.,
//! complemented by their SSA-based coalescing of Method I for the other
//! copies) and the phi-by-phi order of §III-B.
//!
//! Needs: a function that passes the SSA verifier, whose blocks with phis
//! have distinct predecessors (`out_of_ssa.rs` step 1). Gives: the function
//! in CSSA form with only the copies that could not be coalesced
//! (materialized), their parallel copies, and the congruence classes; then,
//! through step 5 of `out_of_ssa.rs`, the destructed program. Called by
//! `out_of_ssa::translate_out_of_ssa` for `CoalescingVariant::SreedharIII`.
//!
//! # The emulated program
//!
//! The algorithm reasons on the program `M` that Method I
//! (`copy_insertion.rs`) would build, without building it: for a phi
//! `a0 = φ(a1:B1, ..., an:Bn)` of `B0`, `M` has the *virtual* variables
//! `a'0, ..., a'n`, the copies `a'i = ai` in the parallel copy at the end of
//! `Bi` and `a0 = a'0` in the parallel copy after the phis of `B0`. None of
//! them exists: a phi's virtual variables are one class member, its
//! *φ-node* (`Member::Node`), whose *slots* `0..=n` stand for `a'0..a'n`.
//! The φ-node stays in the phi's class for good; the variables of the
//! function join that class when their copy is coalesced. Interference is
//! the interference of `M` (parallel copies defining their destinations
//! together), which the paper states as: the original argument (resp.
//! result) "is assumed to have a use (resp. def) in the parallel copy but
//! is not live-out (resp. live-in) along the corresponding control flow
//! edge", and a virtual variable lives on the edge.
//!
//! - Two variables of the function: as in the function, except two phi
//!   destinations of one block. In `M` they are defined together by the
//!   parallel copy after the phis, and intersect only when one of them is
//!   live after it (used in the block or live-out), not because both are
//!   live-in.
//! - A variable `x` and slot `i ≥ 1` of a φ-node: `a'i` is defined at the
//!   end of `Bi` and lives only until the edge, so they intersect iff `x` is
//!   live after that parallel copy: read by the terminator of `Bi`, or
//!   live-in, not as a phi destination, at a successor of `Bi`. A phi
//!   argument is not live-out for being a phi argument: in `M` its copy
//!   reads it.
//! - A variable `x` and slot 0: `a'0` lives from the start of `B0` to the
//!   parallel copy after the phis, so they intersect iff `x` is live-in at
//!   `B0` and is not one of its phi destinations.
//! - Two φ-nodes: iff they have a slot at the same place: the same block
//!   (slot 0), or a common predecessor (both copies in its parallel copy,
//!   both destinations live on its outgoing edges).
//!
//! These are answered from the liveness of the function (sets or the
//! check, `values.rs`), or, with [`ClassTest::Graph`] or
//! [`ClassTest::BitMatrix`], from an interference graph built over the
//! variables of the function only (no virtual variable is in it): variable
//! pairs from the graph, slots from their definition points. The graph is
//! one of the two baselines of §IV-D: the variables in a copy or a phi as a
//! hash set of edges (`coalescing::InterferenceGraph`), or every variable in
//! a bit matrix with adjacency lists (`interference_graph_bitmatrix.rs`).
//!
//! # The algorithm
//!
//! The phis are processed one at a time, heaviest copy first (the weight of
//! a copy is `10^depth` of the block where it would be placed, §III-B).
//! For one phi, all its copies are decided before any other copy is looked
//! at (§IV-C: "one should never have to test an interference with a
//! variable that is not yet materialized or coalesced"):
//!
//! 1. candidates: the classes of its operands (arguments and result) not
//!    already in the phi's class, each with the copies that lead to it;
//! 2. the independent-set search of `coalescing.rs` (Sreedhar et al.'s
//!    deferred copy insertion): candidates that do not interfere with the
//!    phi's class, then repeatedly the one with the fewest interferences
//!    among the others (ties: heavier), merged into the phi's class;
//! 3. the candidates left are tried once more, one at a time, heaviest
//!    first;
//! 4. every copy whose operand is still outside the phi's class is
//!    materialized: a fresh variable (the next value number), its copy
//!    recorded for its parallel copy, the phi's argument (resp. result)
//!    replaced. Its interference is the slot's, decided from its definition
//!    point; nothing is inserted yet, so the positions the liveness relies
//!    on do not move.
//!
//! Merges use Sreedhar I's test: no pair of the two classes intersects,
//! except the pairs of the copies being coalesced (operand, slot), which
//! have the same value. Then the copies of the program (the φ-related ones
//! are all decided) are coalesced with that test, heaviest first: "We added
//! the SSA-based coalescing of Method I, which is useless for φ-related
//! copies, but not for copies due to register renaming constraints"
//! (§III-E).
//!
//! At the end every materialized copy is inserted at once, as Method I
//! would have placed it (before the terminator; after the phis; in phi
//! order), which gives the CSSA program with copies that step 5 renames.
//! With `check`, that program is verified (SSA), and its liveness and
//! values are computed afresh to check that no two members of a class
//! interfere by value, with each parallel copy defining its destinations
//! together: the algorithm's emulated interference is not trusted. (The
//! CSSA check of `cssa.rs` does not apply: it reads the copies one after
//! the other, and a class may hold a source and a destination of one
//! parallel copy, as in the swap of Fig. 3.) Why deciding from the definition point is sound, and why a
//! coalesced φ-node must keep its slots (the original argument alone would
//! miss them), is argued in `proofs-notes/out-of-ssa.md`, "Virtualization".

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, Liveness};
use crate::analysis::loops::loop_depth;
use crate::analysis::reach::{hit, Path};
use crate::analysis::verifier::verify_function;
use crate::checkers::class_interference_check::check_classes_do_not_interfere;
use crate::entity::EntityVec;
use crate::error::{CheckError, PassError, TranslateError};
use crate::ir::{Block, Function, Inst, Op, Value};
use crate::out_of_ssa::coalescing::{
    affinities, class_lists, depth_weight, find_root, greedy_independent_set, Affinity, ClassTest, Coalescing,
    InterferenceGraph, InterferenceQuery,
};
use crate::out_of_ssa::copy_insertion::{InsertedCopy, ParallelCopyPlace};
use crate::out_of_ssa::interference_graph_bitmatrix::BitMatrixGraph;
use crate::out_of_ssa::liveness_check::LivenessCheck;
use crate::out_of_ssa::rename::rename_and_sequentialize;
use crate::out_of_ssa::renaming_constraints::{clobbers, live_at_a_clobber, ClobberIndex, FixedReg, Pins};
use crate::out_of_ssa::translate_options::{fail, LivenessMethod, OutOfSsaOptions, OutOfSsaReport};
use crate::out_of_ssa::values::{intersect, CopyGroups, LivenessSource, ValueInterference};
use rustc_hash::{FxHashMap, FxHashSet};

/// A member of a congruence class: a variable of the function, or the
/// φ-node of the phi numbered `n` (its virtual variables `a'0..a'n`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) enum Member {
    Var(Value),
    Node(u32),
}

/// A phi of the function: its block and index there.
#[derive(Clone, Copy, Debug)]
struct PhiRef {
    block: Block,
    index: usize,
}

/// A copy of a phi: its slot (0 for the result, `i + 1` for the `i`-th
/// argument) and its weight.
#[derive(Clone, Copy, Debug)]
struct SlotCopy {
    slot: usize,
    weight: u64,
}

/// A candidate class of the independent-set search: its root, the summed
/// weight of its copies into the phi, and those copies as (operand, slot).
type Candidate = (Member, u64, Vec<(Value, usize)>);

/// A copy that could not be coalesced, waiting to be inserted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Materialized {
    /// The phi (numbered in block order, then phi order).
    pub phi: u32,
    /// The slot: 0 for `a0 = a'0` after the phis, `i + 1` for
    /// `a'(i+1) = a(i+1)` at the end of the `i`-th predecessor.
    pub slot: usize,
    /// The fresh variable (`a'`).
    pub fresh: Value,
    /// The original operand (`a`).
    pub operand: Value,
}

/// What [`coalesce_virtualized`] decided.
#[derive(Clone, Debug, Default)]
pub(crate) struct VirtualCoalescing {
    /// The copies materialized, in the order they were decided.
    pub materialized: Vec<Materialized>,
    /// The class of every variable of the function and of every
    /// materialized variable (by representative).
    pub classes: Coalescing,
    /// Class interference queries made.
    pub class_queries: usize,
    /// Edges of the interference graph, when one was built.
    pub graph_edges: usize,
}

/// The state of the virtualized coalescing.
struct Virtualizer<'c, 'a> {
    f: &'c Function,
    ctx: &'c ValueInterference<'a>,
    graph: Option<&'c dyn InterferenceQuery>,
    phis: Vec<PhiRef>,
    /// The block of every phi destination.
    phi_block: FxHashMap<Value, Block>,
    /// The phi destinations live after the parallel copy that would follow
    /// the phis in `M` (used in their block or live-out of it).
    live_after_phis: FxHashSet<Value>,
    parent: FxHashMap<Member, Member>,
    /// Members of each class with more than one member.
    members: FxHashMap<Member, Vec<Member>>,
    /// The register label of each labeled class, by root (§III-D).
    labels: FxHashMap<Member, FixedReg>,
    /// The registers constrained divisions destroy.
    clobbers: ClobberIndex,
    queries: usize,
}

impl<'c, 'a> Virtualizer<'c, 'a> {
    fn new(f: &'c Function, ctx: &'c ValueInterference<'a>, graph: Option<&'c dyn InterferenceQuery>) -> Self {
        let mut phis = Vec::new();
        let mut phi_block = FxHashMap::default();
        let mut live_after_phis = FxHashSet::default();
        for (b, data) in f.blocks.iter() {
            for (index, phi) in data.phis.iter().enumerate() {
                phis.push(PhiRef { block: b, index });
                phi_block.insert(phi.dest, b);
            }
            if data.phis.len() < 2 {
                continue;
            }
            let mut used = FxHashSet::default();
            for inst in &data.insts {
                inst.op.for_each_arg(|a| {
                    used.insert(a);
                });
            }
            used.extend(data.term.arg());
            for phi in &data.phis {
                if used.contains(&phi.dest) || ctx.live_out(phi.dest, b) {
                    live_after_phis.insert(phi.dest);
                }
            }
        }
        Virtualizer {
            f,
            ctx,
            graph,
            phis,
            phi_block,
            live_after_phis,
            parent: FxHashMap::default(),
            members: FxHashMap::default(),
            labels: FxHashMap::default(),
            clobbers: ClobberIndex::default(),
            queries: 0,
        }
    }

    /// The renaming constraints of `pins` (§III-D), as `Coalescer::with_pins`
    /// sets them: the variables pinned to one register pre-coalesced into
    /// one class labeled by it.
    fn pin(&mut self, pins: &Pins) {
        self.clobbers = ClobberIndex::new(clobbers(self.f, pins), self.ctx);
        for r in FixedReg::ALL {
            let mut root: Option<Member> = None;
            for (v, _) in pins.iter().filter(|&(_, p)| p == r) {
                let x = self.find(Member::Var(v));
                root = Some(match root.map(|q| self.find(q)) {
                    Some(q) if q != x => {
                        self.union(q, x);
                        self.find(x)
                    }
                    _ => x,
                });
            }
            if let Some(q) = root {
                let q = self.find(q);
                self.labels.insert(q, r);
            }
        }
    }

    /// True when the labels of classes `x` and `y` (roots, distinct) forbid
    /// merging them: two different registers, or one register that a
    /// member of the unlabeled class is live across a clobber of. A φ-node
    /// never is: its virtual variables live at block boundaries, and a
    /// division or a call sits between its pinning copies inside a block.
    fn labels_conflict(&self, x: Member, y: Member) -> bool {
        let (label, other) = match (self.labels.get(&x), self.labels.get(&y)) {
            (Some(a), Some(b)) => return a != b,
            (Some(&a), None) => (a, y),
            (None, Some(&b)) => (b, x),
            (None, None) => return false,
        };
        let members = self.members.get(&other).map_or(std::slice::from_ref(&other), |m| m.as_slice());
        let vars = members.iter().filter_map(|m| match m {
            Member::Var(v) => Some(*v),
            Member::Node(_) => None,
        });
        live_at_a_clobber(&self.clobbers, label, self.ctx, vars)
    }

    fn find(&mut self, m: Member) -> Member {
        find_root(&mut self.parent, m)
    }

    /// Merges two distinct classes (roots).
    fn union(&mut self, x: Member, y: Member) {
        hit(Path::Merge);
        let mut mx = self.members.remove(&x).unwrap_or_else(|| vec![x]);
        let my = self.members.remove(&y).unwrap_or_else(|| vec![y]);
        mx.extend(my);
        let (root, child) = if x < y { (x, y) } else { (y, x) };
        self.parent.insert(child, root);
        self.members.insert(root, mx);
        if let Some(l) = self.labels.remove(&child) {
            self.labels.insert(root, l);
        }
    }

    /// The operand of slot `slot` of phi `p`: its result for slot 0, its
    /// `slot - 1`-th argument otherwise.
    fn operand(&self, p: u32, slot: usize) -> Value {
        let r = self.phis[p as usize];
        let phi = &self.f.blocks[r.block].phis[r.index];
        if slot == 0 {
            phi.dest
        } else {
            phi.args[slot - 1]
        }
    }

    /// True when `x` is a phi destination of `b`.
    fn is_phi_dest_of(&self, x: Value, b: Block) -> bool {
        self.phi_block.get(&x) == Some(&b)
    }

    /// Two variables of the function intersect in `M`.
    fn vars_intersect(&self, x: Value, y: Value) -> bool {
        if x == y {
            return false;
        }
        if let (Some(bx), Some(by)) = (self.phi_block.get(&x), self.phi_block.get(&y)) {
            if bx == by {
                return self.live_after_phis.contains(&x) || self.live_after_phis.contains(&y);
            }
        }
        match self.graph {
            Some(g) => g.contains(x, y),
            None => intersect(self.ctx, x, y),
        }
    }

    /// The variable `x` intersects slot `slot` of phi `p` (from the slot's
    /// definition point, see the module documentation).
    fn var_meets_slot(&self, x: Value, p: u32, slot: usize) -> bool {
        let r = self.phis[p as usize];
        if slot == 0 {
            return !self.is_phi_dest_of(x, r.block) && self.ctx.live_in(x, r.block);
        }
        let Some(&pred) = self.f.blocks[r.block].preds.get(slot - 1) else { return false };
        let data = &self.f.blocks[pred];
        data.term.arg() == Some(x)
            || data.term.successors().into_iter().any(|s| !self.is_phi_dest_of(x, s) && self.ctx.live_in(x, s))
    }

    /// Two φ-nodes have a slot at the same place.
    fn nodes_meet(&self, p: u32, q: u32) -> bool {
        let (rp, rq) = (self.phis[p as usize], self.phis[q as usize]);
        if rp.block == rq.block {
            return true;
        }
        let qp = &self.f.blocks[rq.block].preds;
        self.f.blocks[rp.block].preds.iter().any(|b| qp.contains(b))
    }

    /// Sreedhar I's pairwise test between members of two classes, except
    /// the pairs (operand, slot of phi `node`) listed in `skip`.
    fn pair_interferes(&self, a: Member, b: Member, skip: &[(Value, usize)], node: Option<u32>) -> bool {
        match (a, b) {
            (Member::Var(x), Member::Var(y)) => self.vars_intersect(x, y),
            (Member::Var(x), Member::Node(p)) | (Member::Node(p), Member::Var(x)) => {
                let slots = self.f.blocks[self.phis[p as usize].block].preds.len() + 1;
                (0..slots).any(|s| {
                    if node == Some(p) && skip.contains(&(x, s)) {
                        // The rule's own case: counted when it spares a
                        // pair that does meet.
                        if self.var_meets_slot(x, p, s) {
                            hit(Path::ExceptedPair);
                        }
                        return false;
                    }
                    self.var_meets_slot(x, p, s)
                })
            }
            (Member::Node(p), Member::Node(q)) => self.nodes_meet(p, q),
        }
    }

    /// True when the classes `x` and `y` (roots, distinct) interfere.
    fn classes_interfere(&mut self, x: Member, y: Member, skip: &[(Value, usize)], node: Option<u32>) -> bool {
        self.queries += 1;
        if self.labels_conflict(x, y) {
            return true;
        }
        let mx = self.members.get(&x).map_or(std::slice::from_ref(&x), |m| m.as_slice());
        let my = self.members.get(&y).map_or(std::slice::from_ref(&y), |m| m.as_slice());
        let answer = mx.iter().any(|&a| my.iter().any(|&b| self.pair_interferes(a, b, skip, node)));
        if answer {
            hit(Path::PairInterference);
        }
        answer
    }

    /// Decides every copy of phi `p` (see the module documentation);
    /// returns the slots to materialize.
    fn process_phi(&mut self, p: u32, copies: &[SlotCopy]) -> Vec<usize> {
        let node = Member::Node(p);
        let phi_class = self.find(node);
        let mut cands: Vec<Candidate> = Vec::new();
        for c in copies {
            let operand = self.operand(p, c.slot);
            let k = self.find(Member::Var(operand));
            if k == phi_class {
                continue;
            }
            match cands.iter_mut().find(|x| x.0 == k) {
                Some(x) => {
                    x.1 = x.1.saturating_add(c.weight);
                    x.2.push((operand, c.slot));
                }
                None => cands.push((k, c.weight, vec![(operand, c.slot)])),
            }
        }
        let mut alive: Vec<bool> = Vec::with_capacity(cands.len());
        for c in &cands {
            alive.push(!self.classes_interfere(phi_class, c.0, &c.2, Some(p)));
        }
        let n = cands.len();
        let mut conflict = vec![vec![false; n]; n];
        for i in 0..n {
            for j in i + 1..n {
                if alive[i] && alive[j] {
                    let c = self.classes_interfere(cands[i].0, cands[j].0, &[], None);
                    conflict[i][j] = c;
                    conflict[j][i] = c;
                }
            }
        }
        let weights: Vec<u64> = cands.iter().map(|c| c.1).collect();
        let alive_count = alive.iter().filter(|&&a| a).count();
        let chosen = greedy_independent_set(alive, &weights, &conflict);
        if chosen.len() < alive_count {
            hit(Path::IndependentSetDrop);
        }
        // The chosen ones, then the others one at a time, heaviest first.
        let rest = (0..n).filter(|i| !chosen.contains(i)).collect::<Vec<_>>();
        for i in chosen.into_iter().chain(rest) {
            let root = self.find(node);
            let k = self.find(cands[i].0);
            if root != k && !self.classes_interfere(root, k, &cands[i].2, Some(p)) {
                self.union(root, k);
            }
        }
        let root = self.find(node);
        let mut out = Vec::new();
        for c in copies {
            let operand = self.operand(p, c.slot);
            if self.find(Member::Var(operand)) != root {
                out.push(c.slot);
            }
        }
        out
    }

    /// Coalesces a copy of the program with Sreedhar I's test.
    fn try_copy(&mut self, a: &Affinity) {
        let (x, y) = (self.find(Member::Var(a.source)), self.find(Member::Var(a.dest)));
        if x == y {
            return;
        }
        // The copy's own pair is the only one not checked.
        let skip_pair = (a.source, a.dest);
        self.queries += 1;
        if self.labels_conflict(x, y) {
            return;
        }
        let mx = self.members.get(&x).map_or(std::slice::from_ref(&x), |m| m.as_slice());
        let my = self.members.get(&y).map_or(std::slice::from_ref(&y), |m| m.as_slice());
        let interferes = mx.iter().any(|&u| {
            my.iter().any(|&v| {
                let skipped = matches!((u, v), (Member::Var(s), Member::Var(d))
                    if (s, d) == skip_pair || (d, s) == skip_pair);
                if skipped {
                    if let (Member::Var(s), Member::Var(d)) = (u, v) {
                        if self.vars_intersect(s, d) {
                            hit(Path::ExceptedPair);
                        }
                    }
                    return false;
                }
                self.pair_interferes(u, v, &[], None)
            })
        });
        if interferes {
            hit(Path::PairInterference);
        }
        if !interferes {
            self.union(x, y);
        }
    }
}

/// The position of a copy of `M` in program order, for the tie-breaks of
/// the weight order (the order in which Method I would place the copies):
/// block, then after the phis (0) or at the end (1), then the phi.
type CopyPos = (u32, u8, u32, u32);

/// Sreedhar III with virtualization (see the module documentation) on `g`,
/// whose phi blocks have distinct predecessors, with the analyses `ctx`
/// (and `graph`, for [`ClassTest::Graph`] and [`ClassTest::BitMatrix`]) of
/// `g` itself. Fresh variables
/// are numbered from `g.value_count`.
pub(crate) fn coalesce_virtualized(
    g: &Function,
    ctx: &ValueInterference<'_>,
    graph: Option<&dyn InterferenceQuery>,
    depth: &EntityVec<Block, u32>,
    pins: &Pins,
) -> VirtualCoalescing {
    let mut v = Virtualizer::new(g, ctx, graph);
    v.pin(pins);
    let weight = |b: Block| depth_weight(depth.get(b).copied().unwrap_or(0));
    // Each phi's copies, heaviest first (ties in Method I's program order),
    // and the phis by their heaviest copy.
    let mut order: Vec<(u32, Vec<(SlotCopy, CopyPos)>)> = Vec::with_capacity(v.phis.len());
    for (n, r) in v.phis.iter().enumerate() {
        let data = &g.blocks[r.block];
        let mut copies = vec![(SlotCopy { slot: 0, weight: weight(r.block) }, (r.block.0, 0, r.index as u32, 0))];
        for (i, &pred) in data.preds.iter().enumerate() {
            copies.push((SlotCopy { slot: i + 1, weight: weight(pred) }, (pred.0, 1, r.block.0, r.index as u32)));
        }
        copies.sort_by_key(|(c, pos)| (std::cmp::Reverse(c.weight), *pos));
        order.push((n as u32, copies));
    }
    order.sort_by_key(|(_, copies)| copies.first().map(|(c, pos)| (std::cmp::Reverse(c.weight), *pos)));
    let mut next = g.value_count;
    let mut materialized = Vec::new();
    for (p, copies) in &order {
        let slots: Vec<SlotCopy> = copies.iter().map(|(c, _)| *c).collect();
        for slot in v.process_phi(*p, &slots) {
            materialized.push(Materialized { phi: *p, slot, fresh: Value(next), operand: v.operand(*p, slot) });
            next += 1;
        }
    }
    // The other copies, heaviest first, ties in program order.
    let mut affs = affinities(g, &[], depth);
    affs.sort_by_key(|a| std::cmp::Reverse(a.weight));
    for a in &affs {
        v.try_copy(a);
    }
    // Classes by representative: the smallest variable of the class.
    let mut by_root: FxHashMap<Member, Vec<Value>> = FxHashMap::default();
    let roots: Vec<Member> = v.members.keys().copied().collect();
    for root in roots {
        let list: Vec<Value> = v.members[&root]
            .iter()
            .filter_map(|m| match m {
                Member::Var(x) => Some(*x),
                Member::Node(_) => None,
            })
            .collect();
        by_root.insert(root, list);
    }
    for m in &materialized {
        let root = v.find(Member::Node(m.phi));
        by_root.entry(root).or_default().push(m.fresh);
    }
    let mut class_of = FxHashMap::default();
    for list in by_root.values() {
        if let Some(&rep) = list.iter().min() {
            for &x in list {
                class_of.insert(x, rep);
            }
        }
    }
    let classes = Coalescing { class_of, ..Default::default() };
    VirtualCoalescing {
        materialized,
        classes,
        class_queries: v.queries,
        graph_edges: graph.map_or(0, |gr| gr.edge_count()),
    }
}

/// A copy for the end of a block, keyed by its phi's block and index.
type EndCopy = ((u32, usize), Materialized);

/// Inserts the materialized copies into a copy of `g` where Method I would
/// have placed them, and replaces the phi operands; returns the CSSA
/// program and the copies inserted, as `copy_insertion::insert_copies`
/// would list them.
pub(crate) fn insert_materialized(g: &Function, materialized: &[Materialized]) -> (Function, Vec<InsertedCopy>) {
    let mut h = g.clone();
    let refs: Vec<PhiRef> =
        g.blocks.iter().flat_map(|(b, d)| (0..d.phis.len()).map(move |index| PhiRef { block: b, index })).collect();
    let mut at_end: EntityVec<Block, Vec<EndCopy>> = EntityVec::from_elem(Vec::new(), g.blocks.len());
    let mut after_phis: EntityVec<Block, Vec<(usize, Materialized)>> = EntityVec::from_elem(Vec::new(), g.blocks.len());
    for m in materialized {
        let r = refs[m.phi as usize];
        h.value_count = h.value_count.max(m.fresh.0 + 1);
        if m.slot == 0 {
            h.blocks[r.block].phis[r.index].dest = m.fresh;
            after_phis[r.block].push((r.index, *m));
        } else {
            h.blocks[r.block].phis[r.index].args[m.slot - 1] = m.fresh;
            let pred = g.blocks[r.block].preds[m.slot - 1];
            at_end[pred].push(((r.block.0, r.index), *m));
        }
    }
    let mut inserted = Vec::new();
    for (b, list) in at_end.iter_mut() {
        list.sort_by_key(|(k, _)| *k);
        for (_, m) in list.iter() {
            let r = refs[m.phi as usize];
            h.blocks[b].insts.push(Inst { dest: Some(m.fresh), op: Op::Copy(m.operand) });
            inserted.push(InsertedCopy {
                place: ParallelCopyPlace::End(b),
                dest: m.fresh,
                source: m.operand,
                phi_block: r.block,
                phi_dest: h.blocks[r.block].phis[r.index].dest,
            });
        }
    }
    for (b, list) in after_phis.iter_mut() {
        list.sort_by_key(|(k, _)| *k);
        let copies: Vec<Inst> =
            list.iter().map(|(_, m)| Inst { dest: Some(m.operand), op: Op::Copy(m.fresh) }).collect();
        h.blocks[b].insts.splice(0..0, copies);
        for (index, m) in list.iter() {
            inserted.push(InsertedCopy {
                place: ParallelCopyPlace::AfterPhis(b),
                dest: m.operand,
                source: m.fresh,
                phi_block: b,
                phi_dest: h.blocks[b].phis[*index].dest,
            });
        }
    }
    (h, inserted)
}

/// The liveness a configuration asks for: the sets (for [`LivenessMethod::Sets`]
/// or a graph) and the check (for [`LivenessMethod::Check`]).
fn analyses(g: &Function, opts: &OutOfSsaOptions) -> (Option<Liveness>, Option<LivenessCheck>) {
    let need_sets = opts.liveness == LivenessMethod::Sets || opts.class_test.uses_graph();
    let sets = need_sets.then(|| compute_liveness(g));
    let check = (opts.liveness == LivenessMethod::Check).then(|| LivenessCheck::new(g));
    (sets, check)
}

/// Runs `body` with the [`ValueInterference`] of `g` (parallel copies
/// `groups`) for the liveness method of `opts`, and the sets if computed.
fn with_context<T>(
    g: &Function,
    opts: &OutOfSsaOptions,
    groups: &CopyGroups,
    body: impl FnOnce(&ValueInterference<'_>, Option<&Liveness>) -> T,
) -> T {
    let (sets, check) = analyses(g, opts);
    let dom_owned;
    let dom: &DomTree = match &check {
        Some(c) => c.dom(),
        None => {
            dom_owned = DomTree::compute(g);
            &dom_owned
        }
    };
    let source = match (&check, &sets) {
        (Some(c), _) => LivenessSource::Check(c),
        (None, Some(s)) => LivenessSource::Sets(s),
        // `analyses` computes one or the other for every configuration.
        (None, None) => unreachable!("one liveness method is always computed"),
    };
    let ctx = ValueInterference::with_source(g, dom, source, groups);
    body(&ctx, sets.as_ref())
}

/// The variables of `g` in a copy or a phi: the universe of the graphs of
/// [`ClassTest::Graph`] and [`ClassTest::BitMatrixRelated`].
fn related_variables(g: &Function) -> FxHashSet<Value> {
    let mut universe = FxHashSet::default();
    for d in g.blocks.values() {
        for inst in &d.insts {
            if let (Some(x), Op::Copy(y)) = (inst.dest, &inst.op) {
                universe.insert(x);
                universe.insert(*y);
            }
        }
        for phi in &d.phis {
            universe.insert(phi.dest);
            universe.extend(phi.args.iter().copied());
        }
    }
    universe
}

/// The translation of `out_of_ssa.rs` for `CoalescingVariant::SreedharIII`,
/// from step 2 on: `g` is the input `f` after step 1, `report` what step 1
/// counted.
pub fn translate_virtualized(
    f: &Function,
    g: Function,
    pins: Pins,
    mut report: OutOfSsaReport,
    opts: &OutOfSsaOptions,
) -> Result<(Function, Pins, OutOfSsaReport), PassError> {
    // Room for a fresh variable per phi slot and for the spare of step 5.
    let slots: u64 = g.blocks.values().map(|d| d.phis.len() as u64 * (d.preds.len() as u64 + 1)).sum();
    if u64::from(g.value_count) + slots + 1 > u64::from(u32::MAX) {
        return Err(fail(f, "value numbers", TranslateError::TooManyValues));
    }
    let depth = loop_depth(&g);
    let decided = with_context(&g, opts, &CopyGroups::none(), |ctx, sets| {
        // The two baselines of §IV-D; no virtual variable is in either.
        let edge_set = match (sets, opts.class_test) {
            (Some(live), ClassTest::Graph) => {
                Some(InterferenceGraph::build(&g, live, &CopyGroups::none(), &related_variables(&g)))
            }
            _ => None,
        };
        let bit_matrix = match (sets, opts.class_test) {
            // Every variable of the function.
            (Some(live), ClassTest::BitMatrix) => Some(BitMatrixGraph::build(&g, live, &CopyGroups::none())),
            (Some(live), ClassTest::BitMatrixRelated) => {
                Some(BitMatrixGraph::build_over(&g, live, &CopyGroups::none(), &related_variables(&g)))
            }
            _ => None,
        };
        let graph: Option<&dyn InterferenceQuery> = match (&edge_set, &bit_matrix) {
            (Some(e), _) => Some(e),
            (None, Some(m)) => Some(m),
            (None, None) => None,
        };
        coalesce_virtualized(&g, ctx, graph, &depth, &pins)
    });
    let (h, inserted) = insert_materialized(&g, &decided.materialized);
    drop(g);
    report.inserted_copies = inserted.len();
    report.class_queries = decided.class_queries;
    report.graph_edges = decided.graph_edges;
    let result = decided.classes;
    let lists = class_lists(&result, result.class_of.keys().copied());
    report.classes = lists.len();
    let groups = CopyGroups::from_inserted(&h, &inserted);
    if opts.check {
        verify_function(&h).map_err(|e| fail(f, "SSA verifier (after materializing)", e))?;
        // Step 4's check, on the program with the materialized copies, by
        // the independent checker (its own values and liveness).
        check_classes_do_not_interfere(&h, &groups.all_ranges(&h), &lists).map_err(|error| {
            fail(f, "no interference in a class", CheckError::ClassInterference { error, variant: opts.variant.name() })
        })?;
    }
    let (out, pins) = rename_and_sequentialize(f, &h, &groups, &result, &pins, &depth, opts.check, &mut report)?;
    Ok((out, pins, report))
}
