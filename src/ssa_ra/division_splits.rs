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
//! the two definitions where the value is live in (`rename_live_value`),
//! the SSA reconstruction of Cytron et al.'s phi placement. Pereira and
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
    let mut split = 0;
    // Blocks made by this pass start with a division already split.
    let mut made: EntitySet<Block> = EntitySet::with_capacity(f.blocks.len());
    let mut b = 0;
    while b < f.blocks.len() {
        let block = Block::new(b);
        let from = usize::from(made.contains(block));
        let at = f.blocks[block].insts.iter().skip(from).position(|i| is_fixed_division(&i.op, k));
        match at {
            Some(i) => {
                let new = split_at(f, block, from + i);
                made.insert(new);
                split += 1;
            }
            None => b += 1,
        }
    }
    split
}

/// The values live right after instruction `i` of `b`, in value order,
/// but the value it defines.
fn live_across(f: &Function, live: &Liveness, b: Block, i: usize) -> Vec<Value> {
    let data = &f.blocks[b];
    let mut now: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    for v in live.live_out[b].iter() {
        now.insert(v);
    }
    if let Some(a) = data.term.arg() {
        now.insert(a);
    }
    for inst in data.insts[i + 1..].iter().rev() {
        if let Some(d) = inst.dest {
            now.remove(d);
        }
        inst.op.for_each_arg(|a| {
            now.insert(a);
        });
    }
    if let Some(d) = data.insts[i].dest {
        now.remove(d);
    }
    now.iter().collect()
}

/// Cuts `b` before its instruction `i` (a division), moves the division
/// and what follows into a new block that starts with the parallel copy of
/// the module documentation, renames the values live across the division,
/// and returns the new block.
fn split_at(f: &mut Function, b: Block, i: usize) -> Block {
    let live = compute_liveness(f);
    let across = live_across(f, &live, b, i);
    let mut rest: Vec<_> = f.blocks[b].insts.split_off(i);
    let term = std::mem::replace(&mut f.blocks[b].term, Terminator::Return(Value::new(0)));
    let mut phis: Vec<Phi> = Vec::with_capacity(across.len() + 2);
    if let Op::Binary(_, a, d) = &mut rest[0].op {
        for operand in [a, d] {
            // Two phis of one block with the same argument would join one
            // phi-congruence class while both live at its start: an operand
            // that is also live across (or the other operand) goes through
            // a fresh copy at the end of `b`, as PhiLifting lifts a phi
            // argument (§4.2), so that the function stays in CSSA.
            let twice = across.binary_search(operand).is_ok() || phis.iter().any(|p| p.args[0] == *operand);
            let arg = match twice {
                true => {
                    let c = f.new_value();
                    f.blocks[b].insts.push(Inst { dest: Some(c), op: Op::Copy(*operand) });
                    c
                }
                false => *operand,
            };
            let x = f.new_value();
            phis.push(Phi { dest: x, args: vec![arg] });
            *operand = x;
        }
    }
    let renamed: Vec<(Value, Value)> = across.iter().map(|&v| (v, f.new_value())).collect();
    phis.extend(renamed.iter().map(|&(v, w)| Phi { dest: w, args: vec![v] }));
    let new = f.blocks.push(BlockData { preds: vec![b], phis, insts: rest, term });
    f.blocks[b].term = Terminator::Jump(new);
    for s in f.blocks[new].term.successors() {
        for p in f.blocks[s].preds.iter_mut().filter(|p| **p == b) {
            *p = new;
        }
    }
    let dom = DomTree::compute(f);
    let frontiers = dominance_frontiers(f, &dom);
    let homes = f.def_blocks();
    for (v, w) in renamed {
        let home = homes[v].unwrap_or(Function::ENTRY);
        rename_live_value(f, (&dom, &frontiers, &live), (v, home), (w, new));
    }
    new
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

/// Gives every use of `v` the name that reaches it, now that `w`, defined
/// by a phi at the start of `at`, is a second definition of the same value
/// (`v` is defined in block `home`):
/// phis at the iterated dominance frontier of the two definition blocks
/// where `v` is live in (`live`, the liveness before the split, names the
/// same blocks: renaming moves no value's live range), then one walk over
/// the dominator tree in pre-order, where the name at a block's entry is
/// its own new phi, `w` at `at`, `v` at `v`'s own block, or else the name
/// at the end of its immediate dominator (no block but `at` and `v`'s own
/// defines the value inside it). Each phi argument takes the name at the
/// end of its predecessor. Unreachable blocks keep `v`.
fn rename_live_value(
    f: &mut Function,
    (dom, frontiers, live): (&DomTree, &EntityVec<Block, Vec<Block>>, &Liveness),
    (v, home): (Value, Block),
    (w, at): (Value, Block),
) {
    let mut placed: EntityVec<Block, Option<Value>> = EntityVec::from_elem(None, f.blocks.len());
    let mut work = vec![home, at];
    let mut seen: EntitySet<Block> = EntitySet::with_capacity(f.blocks.len());
    while let Some(b) = work.pop() {
        for &y in &frontiers[b] {
            let old = y.index() < live.live_in.len();
            if old && live.live_in[y].contains(v) && placed[y].is_none() && y != at && y != home {
                let p = f.new_value();
                let n = f.blocks[y].preds.len();
                f.blocks[y].phis.push(Phi { dest: p, args: vec![v; n] });
                placed[y] = Some(p);
            }
            if seen.insert(y) {
                work.push(y);
            }
        }
    }
    let mut name_at_end: EntityVec<Block, Value> = EntityVec::from_elem(v, f.blocks.len());
    for &b in &dom.preorder {
        let name = match (placed[b], b == at) {
            (Some(p), _) => p,
            (None, true) => w,
            (None, false) if b == home => v,
            (None, false) => dom.idom[b].map_or(v, |d| name_at_end[d]),
        };
        name_at_end[b] = name;
        let data = &mut f.blocks[b];
        for inst in &mut data.insts {
            inst.op.map_args(|a| if a == v { name } else { a });
        }
        data.term.map_arg(|a| if a == v { name } else { a });
        for s in data.term.successors() {
            let edges: Vec<usize> = (0..f.blocks[s].preds.len()).filter(|&e| f.blocks[s].preds[e] == b).collect();
            for phi in &mut f.blocks[s].phis {
                for &e in &edges {
                    if phi.args[e] == v {
                        phi.args[e] = name;
                    }
                }
            }
        }
    }
}
