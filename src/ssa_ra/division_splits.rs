//! Pre-colored divisions for Pereira's allocator: the live-range splits
//! that let x86-64's `cqo; idiv r` (`mir::MInst::FixedDiv`) take its
//! dividend in rax, leave its result in rax (`/`) or rdx (`%`), and
//! overwrite the other of the two, with no value of the program in the way.
//!
//! Pereira, "The Design and Implementation of a SSA-based Register
//! Allocator", §4.5 ("Handling Pre-colored Virtual Registers"), avoids
//! assigning a register r to a virtual whose live range overlaps one
//! pre-colored with r. Its footnote 5 (after Biró, Hujter and Tuza) says
//! where that stays easy: extending a pre-coloring of a chordal graph is
//! polynomial when each color appears at most once in it. This pass makes
//! the program have that shape at each division. Before the division
//! `q = a / b` (or `%`), its block is cut in two, and the new block starts
//! with one-argument phis, a parallel copy:
//!
//! ```text
//! B:  ...                       B:  ...
//!     q = div a, b      =>          (a1 = copy a, if a is live across)
//!                                   jump B'
//!     ...                       B': x = phi a          (pre-colored rax)
//!                                   y = phi b          (neither rax nor rdx)
//!                                   v' = phi v         for each v live across
//!                                   q = div x, y       (pre-colored rax or rdx)
//!                                   ...                (v renamed v')
//! ```
//!
//! So every value live at the division is defined at the start of its
//! block, where the coloring (`coloring.rs`) meets all of them together:
//! the pre-colored ones take their register first, the others any register
//! but rax and rdx, and no value defined earlier can overlap a pre-colored
//! one (`proofs-notes/precolored-division.md`). The pre-colored values, the
//! clobbered register and the values live across are counted in the
//! register demand (`spill.rs`, "fixed divisions"), so the spiller's bound
//! `demand ≤ K` leaves enough registers at every division.
//!
//! Renaming a value live across the division breaks single assignment
//! where the old and the new name meet again; the uses are rewritten to
//! their reaching name, with phis at the iterated dominance frontier of
//! the definitions where the value is live in, the SSA reconstruction of
//! Cytron et al.'s phi placement and renaming (`reconstruct`), done once
//! for all the divisions of the function. Pereira and
//! Palsberg's SSA elimination then implements the one-argument phis as the
//! parallel copy at the end of `B` (location transfer graphs, swaps for
//! cycles), like any other phi column.
//!
//! Needs: a CSSA function without critical edges (after PhiMemCoalesce).
//! Gives: the same function, still CSSA and without critical edges (`B`
//! ends in a jump to `B'`, its only successor), whose fixed divisions are
//! each the first instruction of their block. At K = 2 rdx is not
//! allocatable and `%` cannot be a `FixedDiv`; the pass does nothing there,
//! and the divisions keep the general form (`mir::MInst::Binary`, which the
//! x86-64 lowering implements by saving rax and rdx around `idiv`).

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, Liveness};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BinOp, Block, BlockData, Function, Inst, Op, Phi, Terminator, Value};
use crate::mir::RDX;

/// True when `op` is a division that ssa-ra gives x86's `idiv` directly at
/// K registers (`mir::MInst::FixedDiv`): `/` or `%` when rdx is
/// allocatable.
pub fn is_fixed_division(op: &Op, k: usize) -> bool {
    k > usize::from(RDX.0) && matches!(op, Op::Binary(BinOp::Div | BinOp::Rem, _, _))
}

/// What a fixed division  adds to the demand at its
/// instruction with `k` registers: 1 for the register it overwrites beside
/// its result (rdx under `/`, rax under `%`), which no value live across it
/// may hold, and which its divisor may not be either, since `cqo` writes
/// rdx before `idiv` reads the divisor (Pereira §4.5, "Handling Pre-colored
/// Virtual Registers": a clobber is a pre-colored definition that overlaps
/// every value live at the instruction). So the demand of `q = x / y` with
/// the set `L` live across is `|L| + 3`: `x` in rax, the clobbered register,
/// `y`, and `L`. 0 for every other instruction.
pub fn fixed_division_clobber(inst: &crate::ir::Inst, k: usize) -> usize {
    usize::from(is_fixed_division(&inst.op, k))
}

/// Splits the live ranges at every fixed division of `f` (module
/// documentation); returns the number of divisions split.
pub fn split_divisions(f: &mut Function, k: usize) -> usize {
    split_pinned(f, |inst| is_fixed_division(&inst.op, k))
}

/// A block made by [`split_pinned`], and the values renamed at its start:
/// (the name before the split, the name its phi defines).
struct Site {
    block: Block,
    renamed: Vec<(Value, Value)>,
}

/// Cuts every block of `f` before each instruction where `is_site` holds,
/// gives each operand of that instruction a fresh one-argument phi at the
/// start of the new block, renames every value live across it the same
/// way, and restores single assignment (module documentation); returns the
/// number of sites.
///
/// One liveness analysis of the function as given, one dominator tree and
/// one renaming walk serve every site, so the cost is that of Cytron et
/// al.'s phi placement and renaming for the values renamed, not one
/// analysis per site.
pub fn split_pinned(f: &mut Function, is_site: impl Fn(&Inst) -> bool) -> usize {
    let live = compute_liveness(f);
    let original = f.blocks.len();
    let mut walk = LiveWalk::new(f.value_count as usize);
    let mut sites: Vec<Site> = Vec::new();
    for b in 0..original {
        let block = Block::new(b);
        let at: Vec<usize> =
            f.blocks[block].insts.iter().enumerate().filter(|(_, i)| is_site(i)).map(|(i, _)| i).collect();
        if at.is_empty() {
            continue;
        }
        let across = walk.live_across(f, &live, block, &at);
        split_block(f, block, &at, across, &mut sites);
    }
    if !sites.is_empty() {
        reconstruct(f, &live, original, &sites);
    }
    sites.len()
}

/// A set of values for the backward walk of one block at a time: one bit
/// vector for the whole function and the list of its members, so that a
/// block costs its own length and live sets, never the number of values.
struct LiveWalk {
    now: EntitySet<Value>,
    members: Vec<Value>,
}

impl LiveWalk {
    fn new(values: usize) -> LiveWalk {
        LiveWalk { now: EntitySet::with_capacity(values), members: Vec::new() }
    }

    fn insert(&mut self, v: Value) {
        if self.now.insert(v) {
            self.members.push(v);
        }
    }

    /// For each instruction `at[j]` of `b`, the values live right after
    /// it but the value it defines, in value order.
    fn live_across(&mut self, f: &Function, live: &Liveness, b: Block, at: &[usize]) -> Vec<Vec<Value>> {
        let data = &f.blocks[b];
        for v in live.live_out[b].iter() {
            self.insert(v);
        }
        if let Some(a) = data.term.arg() {
            self.insert(a);
        }
        let mut across = vec![Vec::new(); at.len()];
        let mut next = data.insts.len();
        for (j, &i) in at.iter().enumerate().rev() {
            for inst in data.insts[i + 1..next].iter().rev() {
                if let Some(d) = inst.dest {
                    self.now.remove(d);
                }
                inst.op.for_each_arg(|a| self.insert(a));
            }
            let now = &self.now;
            self.members.retain(|&v| now.contains(v));
            self.members.sort_unstable();
            self.members.dedup();
            let dest = data.insts[i].dest;
            across[j] = self.members.iter().copied().filter(|&v| Some(v) != dest).collect();
            next = i + 1;
        }
        for v in self.members.drain(..) {
            self.now.remove(v);
        }
        across
    }
}

/// Cuts `b` before each of its instructions `at` (in order), moves each
/// site and what follows it into a new block that starts with the parallel
/// copy of the module documentation, and records the values renamed there
/// (`across[j]`, live across site `j`); uses are left to [`reconstruct`].
fn split_block(f: &mut Function, b: Block, at: &[usize], across: Vec<Vec<Value>>, sites: &mut Vec<Site>) {
    let (mut cur, mut offset) = (b, 0);
    for (&i, across) in at.iter().zip(across) {
        let mut rest: Vec<_> = f.blocks[cur].insts.split_off(i - offset);
        offset = i;
        let term = std::mem::replace(&mut f.blocks[cur].term, Terminator::Return(Value::new(0)));
        let mut phis = operand_phis(f, cur, &mut rest[0], &across);
        let renamed: Vec<(Value, Value)> = across.iter().map(|&v| (v, f.new_value())).collect();
        phis.extend(renamed.iter().map(|&(v, w)| Phi { dest: w, args: vec![v] }));
        let new = f.blocks.push(BlockData { preds: vec![cur], phis, insts: rest, term });
        f.blocks[cur].term = Terminator::Jump(new);
        for s in f.blocks[new].term.successors() {
            for p in f.blocks[s].preds.iter_mut().filter(|p| **p == cur) {
                *p = new;
            }
        }
        sites.push(Site { block: new, renamed });
        cur = new;
    }
}

/// Gives each operand of `site` its own one-argument phi (the phis of the
/// new block), in operand order; the operand is the phi's argument, or a
/// copy of it made at the end of `pred` when it is also live across
/// `site` or another operand of it. Two phis of one block with the same
/// argument would join one phi-congruence class while both live at its
/// start: the copy keeps the function in CSSA, as PhiLifting lifts a phi
/// argument (Pereira §4.2).
fn operand_phis(f: &mut Function, pred: Block, site: &mut Inst, across: &[Value]) -> Vec<Phi> {
    let mut phis: Vec<Phi> = Vec::with_capacity(across.len() + 2);
    site.op.map_args(|operand| {
        let twice = across.binary_search(&operand).is_ok() || phis.iter().any(|p| p.args[0] == operand);
        let arg = match twice {
            true => {
                let c = f.new_value();
                f.blocks[pred].insts.push(Inst { dest: Some(c), op: Op::Copy(operand) });
                c
            }
            false => operand,
        };
        let x = f.new_value();
        phis.push(Phi { dest: x, args: vec![arg] });
        x
    });
    phis
}

/// Restores single assignment after the splits: each renamed value now
/// has its first definition and one phi per site where it was live
/// across. Phis go at the iterated dominance frontier of those definitions
/// where the value is live in (`live`, the liveness before the splits,
/// names the same blocks: splitting moves no value's live range), then one
/// walk over the dominator tree gives every use the name that reaches it
/// (Cytron et al., "Efficiently Computing Static Single Assignment Form
/// and the Control Dependence Graph", §5.1 placement, §5.2 renaming).
fn reconstruct(f: &mut Function, live: &Liveness, original: usize, sites: &[Site]) {
    let dom = DomTree::compute(f);
    let frontiers = dominance_frontiers(f, &dom);
    let homes = f.def_blocks();
    let mut names: EntityVec<Block, Vec<(Value, Value)>> = EntityVec::from_elem(Vec::new(), f.blocks.len());
    let mut defs: Vec<(Value, Block)> = Vec::new();
    for site in sites {
        names[site.block].extend_from_slice(&site.renamed);
        defs.extend(site.renamed.iter().map(|&(v, _)| (v, site.block)));
    }
    defs.sort_unstable();
    let mut marks = (EntityVec::from_elem(0u32, f.blocks.len()), EntityVec::from_elem(0u32, f.blocks.len()));
    for (stamp, group) in (1..).zip(defs.chunk_by(|a, b| a.0 == b.0)) {
        let v = group[0].0;
        let home = homes[v].unwrap_or(Function::ENTRY);
        let mut work: Vec<Block> = group.iter().map(|&(_, b)| b).chain([home]).collect();
        let (seen, placed) = (&mut marks.0, &mut marks.1);
        while let Some(b) = work.pop() {
            for &y in &frontiers[b] {
                let old = y.index() < original;
                if old && y != home && placed[y] != stamp && live.live_in[y].contains(v) {
                    placed[y] = stamp;
                    let p = f.new_value();
                    let n = f.blocks[y].preds.len();
                    f.blocks[y].phis.push(Phi { dest: p, args: vec![v; n] });
                    names[y].push((v, p));
                }
                if seen[y] != stamp {
                    seen[y] = stamp;
                    work.push(y);
                }
            }
        }
    }
    rename(f, &dom, &names);
}

/// The renaming walk of [`reconstruct`]: blocks in dominator-tree
/// pre-order, the current name of each value kept in one map whose changes
/// are undone when the walk leaves a block's subtree. A block's new names
/// (`names`) take effect at its start; its instructions and terminator use
/// the current names, and so does each phi argument of its out-edges.
/// Unreachable blocks keep the old names.
fn rename(f: &mut Function, dom: &DomTree, names: &EntityVec<Block, Vec<(Value, Value)>>) {
    let mut edges: EntityVec<Block, Vec<(Block, usize)>> = EntityVec::from_elem(Vec::new(), f.blocks.len());
    for (s, data) in f.blocks.iter() {
        for (e, &p) in data.preds.iter().enumerate() {
            edges[p].push((s, e));
        }
    }
    let mut current: EntityVec<Value, Value> = (0..f.value_count as usize).map(Value::new).collect();
    let mut undo: Vec<(Value, Value)> = Vec::new();
    let mut open: Vec<(Block, usize)> = Vec::new();
    for &b in &dom.preorder {
        while let Some(&(top, len)) = open.last() {
            if Some(top) == dom.idom[b] {
                break;
            }
            for (v, old) in undo.drain(len..).rev() {
                current[v] = old;
            }
            open.pop();
        }
        open.push((b, undo.len()));
        for &(v, w) in &names[b] {
            undo.push((v, current[v]));
            current[v] = w;
        }
        let data = &mut f.blocks[b];
        for inst in &mut data.insts {
            inst.op.map_args(|a| current[a]);
        }
        data.term.map_arg(|a| current[a]);
        for &(s, e) in &edges[b] {
            for phi in &mut f.blocks[s].phis {
                phi.args[e] = current[phi.args[e]];
            }
        }
    }
}

/// The dominance frontier of every reachable block, by the runner walk of
/// Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", §4):
/// from each predecessor of a join up to the join's immediate dominator.
fn dominance_frontiers(f: &Function, dom: &DomTree) -> EntityVec<Block, Vec<Block>> {
    let mut df: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), f.blocks.len());
    for &b in &dom.rpo {
        let preds = &f.blocks[b].preds;
        if preds.len() < 2 {
            continue;
        }
        let Some(idom) = dom.idom[b] else { continue };
        for &p in preds {
            let mut runner = p;
            while runner != idom && dom.is_reachable(runner) {
                if df[runner].last() != Some(&b) {
                    df[runner].push(b);
                }
                match dom.idom[runner] {
                    Some(up) => runner = up,
                    None => break,
                }
            }
        }
    }
    df
}
