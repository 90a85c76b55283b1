//! Which loops assign which variable, for the look-up of Braun et al.'s
//! Algorithm 2 ("Simple and Efficient Construction of Static Single
//! Assignment Form", CC 2013, §2.2-2.3): a read that reaches the unsealed
//! header of a loop that never assigns the variable continues to the loop's
//! entry edge instead of placing an incomplete phi there (`lookup.rs`; the
//! argument is note (h) of `proofs-notes/ssa-construction.md`).
//!
//! The statements of a function are numbered in the order in which both
//! `ast::walk_stmts` and the AST walk of `ast_walk.rs` meet them (pre-order,
//! `then` before `else`), so the statements of a `while` are a range of
//! numbers: from the `while` itself up to the first statement after its
//! body. Each variable keeps the sorted numbers of its assignments, so
//! "does the loop assign `x`" is one binary search. The table costs a word
//! per assignment, a word per variable and three per loop, and is filled by
//! the pass over the AST that `Builder::new` makes anyway.

use crate::ir::Block;

/// A `while` statement: its range of statement numbers and, once the AST
/// walk has made its header, the block its entry edge comes from.
#[derive(Clone, Copy, Debug)]
pub(super) struct LoopInfo {
    start: u32,
    end: u32,
    /// The predecessor of the header on the entry edge, or `None` while the
    /// header is not made or when that edge was not recorded (the code
    /// before the loop is known to be unreachable).
    pub(super) entry: Option<Block>,
}

/// The table; see the module comment.
#[derive(Debug, Default)]
pub(super) struct LoopAssignments {
    /// Per `while`, in the order of the walks.
    pub(super) loops: Vec<LoopInfo>,
    /// `positions[starts[v]..starts[v + 1]]`: the numbers of the statements
    /// that assign the variable `v`, increasing. Only variables numbered
    /// while the table was built have an entry.
    starts: Vec<u32>,
    positions: Vec<u32>,
}

/// Builds a [`LoopAssignments`] from the statements in walk order.
#[derive(Debug, Default)]
pub(super) struct LoopAssignmentsBuilder {
    next: u32,
    loops: Vec<LoopInfo>,
    /// The loops whose body has not ended: (index in `loops`, loop depth of
    /// the `while` statement).
    open: Vec<(usize, usize)>,
    /// The number of each assigning statement, in order.
    assignments: Vec<u32>,
}

impl LoopAssignmentsBuilder {
    /// Records the next statement, met at loop depth `depth` (as
    /// `ast::walk_stmts` counts it); `is_while` and `assigns` say what it
    /// is. Returns its number.
    pub(super) fn statement(&mut self, depth: usize, is_while: bool, assigns: bool) -> u32 {
        let n = self.next;
        self.next += 1;
        // Every statement of a loop's body is deeper than the loop; the
        // first one that is not ends it.
        while let Some(&(k, d)) = self.open.last() {
            if depth > d {
                break;
            }
            self.loops[k].end = n;
            self.open.pop();
        }
        if is_while {
            self.open.push((self.loops.len(), depth));
            self.loops.push(LoopInfo { start: n, end: u32::MAX, entry: None });
        }
        if assigns {
            self.assignments.push(n);
        }
        n
    }

    /// The table, given the number of the variable of each recorded
    /// assignment (in the order they were recorded) and the number of
    /// variables; and the statement number of each assignment, in order.
    pub(super) fn finish(mut self, assigned_vars: &[u32], var_count: usize) -> (LoopAssignments, Vec<u32>) {
        debug_assert_eq!(assigned_vars.len(), self.assignments.len());
        for (k, _) in self.open.drain(..) {
            self.loops[k].end = self.next;
        }
        let mut starts = vec![0u32; var_count + 1];
        for v in assigned_vars {
            starts[*v as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut fill = starts.clone();
        let mut positions = vec![0u32; self.assignments.len()];
        for (v, &n) in assigned_vars.iter().zip(&self.assignments) {
            let at = &mut fill[*v as usize];
            positions[*at as usize] = n;
            *at += 1;
        }
        (LoopAssignments { loops: self.loops, starts, positions }, self.assignments)
    }
}

impl LoopAssignments {
    /// Whether the `while` number `k` assigns the variable numbered `var`
    /// somewhere in it (true for a variable the table does not know, such
    /// as the hidden variable of a `&&`, which is assigned wherever it is
    /// used).
    pub(super) fn loop_assigns(&self, k: usize, var: u32) -> bool {
        let v = var as usize;
        if v + 1 >= self.starts.len() {
            return true;
        }
        let LoopInfo { start, end, .. } = self.loops[k];
        let positions = &self.positions[self.starts[v] as usize..self.starts[v + 1] as usize];
        let i = positions.partition_point(|&n| n < start);
        i < positions.len() && positions[i] < end
    }
}
