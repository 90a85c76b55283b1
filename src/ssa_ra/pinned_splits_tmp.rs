//! Temporary generic split until the shared entry point lands.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, Liveness};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{Block, BlockData, Function, Inst, Op, Phi, Terminator, Value};

/// Splits the live ranges before every instruction where `is_site` holds.
pub fn split_pinned(f: &mut Function, is_site: impl Fn(&Inst) -> bool) -> usize {
    let mut split = 0;
    let mut made: EntitySet<Block> = EntitySet::with_capacity(f.blocks.len());
    let mut b = 0;
    while b < f.blocks.len() {
        let block = Block::new(b);
        let from = usize::from(made.contains(block));
        let at = f.blocks[block].insts.iter().skip(from).position(&is_site);
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
    let mut operands: Vec<Value> = Vec::new();
    rest[0].op.for_each_arg(|a| operands.push(a));
    let mut fresh: Vec<Value> = Vec::new();
    for operand in operands {
        let twice = across.binary_search(&operand).is_ok() || phis.iter().any(|p| p.args[0] == operand);
        let arg = match twice {
            true => {
                let c = f.new_value();
                f.blocks[b].insts.push(Inst { dest: Some(c), op: Op::Copy(operand) });
                c
            }
            false => operand,
        };
        let x = f.new_value();
        phis.push(Phi { dest: x, args: vec![arg] });
        fresh.push(x);
    }
    let mut next = fresh.into_iter();
    rest[0].op.map_args(|a| next.next().unwrap_or(a));
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
