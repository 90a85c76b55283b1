//! The checkers' own predecessor index: where an edge sits in its
//! successor's predecessor list, the index of the phi arguments it carries.
//!
//! An edge `p → s` that is the `k`-th occurrence of `p` in `s.preds` (only
//! the else-edge of `br c, S, S` is the second) carries argument `i` of the
//! phis of `s`, where `s.preds[i]` is that occurrence. Searching `s.preds`
//! for it edge by edge costs (predecessors)² at a join of many
//! predecessors; here each block's list is sorted once by (predecessor,
//! index), and a look-up is one binary search: O(E log E) to build and
//! O(log E) per edge. Built from the predecessor lists alone, so that a
//! checker shares no index with the passes it checks.

use crate::entity::EntityRef;
use crate::ir::Block;

/// The positions of every predecessor in every block's `preds`.
pub struct EdgePositions {
    /// The pairs `(p, i)` with `s.preds[i] == p`, sorted, for block `s` at
    /// `sorted[at[s]..at[s + 1]]`.
    sorted: Vec<(Block, u32)>,
    at: Vec<usize>,
}

impl EdgePositions {
    /// The index of the blocks whose predecessor lists `preds` gives, in
    /// block order.
    pub fn new<'a>(preds: impl Iterator<Item = &'a [Block]>) -> EdgePositions {
        let (mut sorted, mut at) = (Vec::new(), vec![0]);
        for list in preds {
            let start = sorted.len();
            sorted.extend(list.iter().enumerate().map(|(i, &p)| (p, i as u32)));
            sorted[start..].sort_unstable();
            at.push(sorted.len());
        }
        EdgePositions { sorted, at }
    }

    /// The index in `succ.preds` of occurrence `occurrence` of `pred`, or
    /// `None` when `pred` is listed fewer times (or `succ` is out of range).
    pub fn position(&self, pred: Block, succ: Block, occurrence: usize) -> Option<usize> {
        let s = succ.index();
        let list = self.sorted.get(*self.at.get(s)?..*self.at.get(s + 1)?)?;
        let first = list.partition_point(|&(p, _)| p < pred);
        match list.get(first + occurrence) {
            Some(&(p, i)) if p == pred => Some(i as usize),
            _ => None,
        }
    }
}
