//! The states of the allocation checker (`alloc_checker.rs`) on large
//! functions: each block keeps the state of the registers and of the slots
//! *live* at its entry only, and one dense state is reused for the block
//! being run.
//!
//! A slot is live at a point when some path from it reads the slot (a
//! reload, or the check of a phi's location at the end of a predecessor)
//! before a spill overwrites it: the usual backward data flow, here over
//! slots ([`live_slots`]). The abstract state of a dead slot is never
//! looked at: any read is preceded by a write, which sets it whatever it
//! was. The checker's transfer functions only copy a location's state into
//! another when they read it (a reload, a spill of a register, a move), so
//! the states of the live locations, computed with every dead slot dropped
//! (taken as `Unknown`), are the states the full analysis computes, and the
//! checks (which read only live locations) give the same verdicts.
//!
//! Keeping every slot's state at every block costs (blocks) × (slots),
//! quadratic in the function's size even with states sharing chunks until
//! written; the live slots of a block
//! are few, like the values live there. This is what production data-flow analyses do with
//! per-block facts: keep them only where they can matter (pruned, sparse
//! states).

use crate::entity::EntityRef;
use crate::ir::Block;
use crate::mir::{Loc, MFunction, MInst};

/// Read and write access to a state, by location index.
pub(crate) trait Locations<T> {
    fn get(&self, i: usize) -> T;
    fn set(&mut self, i: usize, x: T);
}

/// A state that lists only some locations, in increasing order: the
/// others hold `fill`.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct Sparse<T> {
    items: Vec<(u32, T)>,
    fill: T,
}

impl<T: Copy + PartialEq> Sparse<T> {
    pub(crate) fn new(fill: T) -> Self {
        Sparse { items: Vec::new(), fill }
    }

    /// `self` met with `other`, location by location (a location absent
    /// from one holds its `fill`); true when `self` changed.
    pub(crate) fn meet_with(&mut self, other: &Sparse<T>, meet: impl Fn(T, T) -> T) -> bool {
        let mut out: Vec<(u32, T)> = Vec::with_capacity(self.items.len().max(other.items.len()));
        let (mut i, mut j) = (0, 0);
        while i < self.items.len() || j < other.items.len() {
            let a = self.items.get(i).copied();
            let b = other.items.get(j).copied();
            let (loc, x, y) = match (a, b) {
                (Some((la, x)), Some((lb, y))) if la == lb => {
                    i += 1;
                    j += 1;
                    (la, x, y)
                }
                (Some((la, x)), Some((lb, _))) if la < lb => {
                    i += 1;
                    (la, x, other.fill)
                }
                (Some((la, x)), None) => {
                    i += 1;
                    (la, x, other.fill)
                }
                (_, Some((lb, y))) => {
                    j += 1;
                    (lb, self.fill, y)
                }
                (None, None) => unreachable!("the loop runs while one side has items"),
            };
            let met = meet(x, y);
            if met != self.fill {
                out.push((loc, met));
            }
        }
        let changed = out != self.items;
        self.items = out;
        changed
    }
}

impl<T: Copy + PartialEq> Locations<T> for Sparse<T> {
    fn get(&self, i: usize) -> T {
        match self.items.binary_search_by_key(&(i as u32), |&(l, _)| l) {
            Ok(k) => self.items[k].1,
            Err(_) => self.fill,
        }
    }

    fn set(&mut self, i: usize, x: T) {
        match self.items.binary_search_by_key(&(i as u32), |&(l, _)| l) {
            Ok(k) if x == self.fill => {
                self.items.remove(k);
            }
            Ok(k) => self.items[k].1 = x,
            Err(_) if x == self.fill => {}
            Err(k) => self.items.insert(k, (i as u32, x)),
        }
    }
}

/// A state of every location, reused from block to block: it remembers the
/// locations written since it was last cleared, so that clearing costs what
/// the block wrote.
pub(crate) struct Dense<T> {
    items: Vec<T>,
    written: Vec<bool>,
    touched: Vec<u32>,
    fill: T,
}

impl<T: Copy + PartialEq> Dense<T> {
    pub(crate) fn new(n: usize, fill: T) -> Self {
        Dense { items: vec![fill; n], written: vec![false; n], touched: Vec::new(), fill }
    }

    /// The number of locations.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Clears `self`, then copies `from` into it.
    pub(crate) fn load(&mut self, from: &Sparse<T>) {
        for &i in &self.touched {
            self.items[i as usize] = self.fill;
            self.written[i as usize] = false;
        }
        self.touched.clear();
        for &(i, x) in &from.items {
            self.set(i as usize, x);
        }
    }

    /// The state of the locations `0..first` and of `more` (in increasing
    /// order, all at least `first`); the others are dropped.
    pub(crate) fn restrict(&self, first: usize, more: &[u32]) -> Sparse<T> {
        let items = (0..first as u32)
            .chain(more.iter().copied())
            .map(|i| (i, self.items[i as usize]))
            .filter(|&(_, x)| x != self.fill)
            .collect();
        Sparse { items, fill: self.fill }
    }
}

impl<T: Copy + PartialEq> Locations<T> for Dense<T> {
    fn get(&self, i: usize) -> T {
        self.items[i]
    }

    fn set(&mut self, i: usize, x: T) {
        if !self.written[i] {
            self.written[i] = true;
            self.touched.push(i as u32);
        }
        self.items[i] = x;
    }
}

/// The slots live at the entry of every block, as location indices
/// (`index` of the slot), in increasing order: after the block's phis are
/// entered, before its first instruction. `rpo` lists the blocks to
/// compute, `succs` gives each block's successors. A slot is read by a
/// reload, by a call that passes it as a stack argument, and, at the end
/// of a predecessor, as the location of a phi of the successor; a spill
/// writes it.
pub(crate) fn live_slots(
    m: &MFunction,
    rpo: &[Block],
    succs: impl Fn(Block) -> Vec<Block>,
    index: impl Fn(Loc) -> usize,
) -> Vec<Vec<u32>> {
    let mut live_in: Vec<Vec<u32>> = vec![Vec::new(); m.blocks.len()];
    let insert = |set: &mut Vec<u32>, i: u32| {
        if let Err(k) = set.binary_search(&i) {
            set.insert(k, i);
        }
    };
    // The successors and predecessors among the blocks of `rpo`. A block
    // is recomputed only when the live-in set of one of its successors
    // changed since it last was (initially every block is): the others
    // would give the set they have, so the rounds give the sets of
    // recomputing every block in every round.
    let succ_lists: Vec<Vec<Block>> = {
        let mut lists = vec![Vec::new(); m.blocks.len()];
        for &b in rpo {
            lists[b.index()] = succs(b);
        }
        lists
    };
    let mut preds: Vec<Vec<Block>> = vec![Vec::new(); m.blocks.len()];
    for &b in rpo {
        for &s in &succ_lists[b.index()] {
            preds[s.index()].push(b);
        }
    }
    let mut dirty = vec![false; m.blocks.len()];
    for &b in rpo {
        dirty[b.index()] = true;
    }
    loop {
        let mut changed = false;
        for &b in rpo.iter().rev() {
            if !std::mem::take(&mut dirty[b.index()]) {
                continue;
            }
            let mut live: Vec<u32> = Vec::new();
            for &s in &succ_lists[b.index()] {
                for phi in &m.blocks[s].phis {
                    if let Loc::Slot(_) = phi.loc {
                        insert(&mut live, index(phi.loc) as u32);
                    }
                }
                for &i in &live_in[s.index()] {
                    insert(&mut live, i);
                }
            }
            for inst in m.blocks[b].insts.iter().rev() {
                match inst.inst {
                    MInst::Spill { slot, .. } => {
                        if let Ok(k) = live.binary_search(&(index(Loc::Slot(slot)) as u32)) {
                            live.remove(k);
                        }
                    }
                    MInst::Reload { slot, .. } => insert(&mut live, index(Loc::Slot(slot)) as u32),
                    MInst::Call(ref call) => {
                        for &l in call.args.iter().filter(|l| matches!(l, Loc::Slot(_))) {
                            insert(&mut live, index(l) as u32);
                        }
                    }
                    _ => {}
                }
            }
            if live != live_in[b.index()] {
                live_in[b.index()] = live;
                changed = true;
                for &p in &preds[b.index()] {
                    dirty[p.index()] = true;
                }
            }
        }
        if !changed {
            return live_in;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_meets_like_the_dense_state_it_stands_for() {
        let meet = |x: u8, y: u8| if x == y { x } else { 9 };
        let mut a = Sparse::new(0u8);
        a.set(3, 1);
        a.set(7, 2);
        let mut b = Sparse::new(0u8);
        b.set(3, 1);
        b.set(5, 4);
        assert!(a.meet_with(&b, meet));
        assert_eq!((a.get(3), a.get(5), a.get(7), a.get(6)), (1, 9, 9, 0));
        assert!(!a.clone().meet_with(&a, meet));
        let mut d = Dense::new(10, 0u8);
        d.load(&a);
        d.set(6, 5);
        assert_eq!(d.restrict(4, &[6, 7]).items, vec![(3, 1), (6, 5), (7, 9)]);
        d.load(&b);
        assert_eq!((d.get(6), d.get(7), d.get(5)), (0, 0, 4));
    }

    /// The states as the checker uses them, one update at a time: random
    /// writes, meets, loads of the dense state from a sparse one and
    /// restrictions back, each applied to the states and to plain vectors of
    /// every location, and every location compared after each step. A load
    /// that leaves a location written before, a meet that drops or keeps
    /// the wrong entry, a restriction that keeps a dropped slot: each shows
    /// at the step that makes it.
    #[test]
    fn states_match_plain_vectors_after_every_update() {
        const N: usize = 12;
        fn prop(ops: Vec<(u8, u8, u8)>) -> bool {
            let meet = |x: u8, y: u8| if x == y { x } else { 9 };
            let mut sparse = [Sparse::new(0u8), Sparse::new(0u8)];
            let mut model = [[0u8; N]; 2];
            let mut dense = Dense::new(N, 0u8);
            let mut dense_model = [0u8; N];
            for (op, a, b) in ops {
                let (i, x, which) = (a as usize % N, b % 4, (a / 16) as usize % 2);
                match op % 5 {
                    0 => {
                        sparse[which].set(i, x);
                        model[which][i] = x;
                    }
                    1 => {
                        let other = sparse[1 - which].clone();
                        let changed = sparse[which].meet_with(&other, meet);
                        let before = model[which];
                        let other_model = model[1 - which];
                        for (x, &y) in model[which].iter_mut().zip(&other_model) {
                            *x = meet(*x, y);
                        }
                        if changed != (before != model[which]) {
                            return false;
                        }
                    }
                    2 => {
                        dense.load(&sparse[which]);
                        dense_model = model[which];
                    }
                    3 => {
                        dense.set(i, x);
                        dense_model[i] = x;
                    }
                    _ => {
                        let first = i % 4;
                        let more: Vec<u32> =
                            (first as u32..N as u32).filter(|l| (l + b as u32).is_multiple_of(3)).collect();
                        sparse[which] = dense.restrict(first, &more);
                        for l in 0..N {
                            model[which][l] = if l < first || more.contains(&(l as u32)) { dense_model[l] } else { 0 };
                        }
                    }
                }
                for l in 0..N {
                    if sparse[0].get(l) != model[0][l]
                        || sparse[1].get(l) != model[1][l]
                        || dense.get(l) != dense_model[l]
                    {
                        return false;
                    }
                }
            }
            true
        }
        quickcheck::QuickCheck::new().tests(2_000).quickcheck(prop as fn(Vec<(u8, u8, u8)>) -> bool);
    }
}
