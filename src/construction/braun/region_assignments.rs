//! Which `while` and `if` statements assign which variable, for the look-up
//! of Braun et al.'s Algorithm 2 ("Simple and Efficient Construction of
//! Static Single Assignment Form", CC 2013, §2.2-2.3). For a statement that
//! holds no label (so that no `goto` can enter it), a read that reaches the
//! header of a loop that never assigns the variable continues to the loop's
//! entry edge instead of placing an incomplete phi there, and one that
//! reaches the join of an `if` whose condition and branches never assign it
//! continues to the block the `if` started in, instead of asking each
//! predecessor (`lookup.rs`; the argument is note (h) of
//! `proofs-notes/ssa-construction.md`). The same holds for a loop's exit
//! (the loop's region) and, with an empty range of statements, for a block
//! a condition branches to and the join of a `&&` / `||` value (entered from
//! where the expression started). Label statements are numbered like the
//! others, so "does the statement hold a label" is a binary search too.
//!
//! The statements of a function are numbered in the order in which both
//! `ast::walk_stmts` and the AST walk of `ast_walk.rs` meet them (pre-order,
//! `then` before `else`), so the statements of a `while` or an `if` are a
//! range of numbers: from the statement itself up to the first statement
//! after it. Each variable keeps the sorted numbers of its assignments, so
//! "does the region assign `x`" is one binary search. A loop's range is
//! needed while its body is built, so it comes from the pass over the AST
//! that `Builder::new` makes anyway; an `if`'s is needed only once its join
//! is sealed, when the AST walk has met all of it. The table costs a word
//! per assignment, a word per variable and three per region.

use crate::ir::Block;

/// A `while` or `if` statement: its range of statement numbers and the
/// block control enters it from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Region {
    start: u32,
    end: u32,
    /// For a `while`, the predecessor of the header on the entry edge, once
    /// the header is made, or `None` when that edge was not recorded (the
    /// code before the loop is known to be unreachable). For an `if`, the
    /// block its condition started in.
    pub(super) entry: Option<Block>,
    /// No label statement is in the range, so no `goto` can enter the
    /// region: control enters it only from `entry` (note (h)).
    pub(super) label_free: bool,
}

/// The table; see the module comment.
#[derive(Debug, Default)]
pub(super) struct RegionAssignments {
    /// The `while`s in the order of the walks, then the regions the AST
    /// walk records as it goes (`if`s as it finishes them, the targets of
    /// conditions, the joins of `&&` / `||` values).
    pub(super) regions: Vec<Region>,
    /// How many of `regions` are `while`s (all found by the pass of
    /// `Builder::new`).
    pub(super) whiles: usize,
    /// `positions[starts[v]..starts[v + 1]]`: the numbers of the statements
    /// that assign the variable `v`, increasing. Only variables numbered
    /// while the table was built have an entry.
    starts: Vec<u32>,
    positions: Vec<u32>,
    /// The numbers of the label statements, increasing.
    labels: Vec<u32>,
}

/// Builds a [`RegionAssignments`] from the statements in walk order.
#[derive(Debug, Default)]
pub(super) struct RegionAssignmentsBuilder {
    next: u32,
    loops: Vec<Region>,
    /// The loops whose body has not ended: (index in `loops`, loop depth of
    /// the `while` statement).
    open: Vec<(usize, usize)>,
    /// The number of each assigning statement, in order.
    assignments: Vec<u32>,
    /// The number of each label statement, in order.
    labels: Vec<u32>,
}

impl RegionAssignmentsBuilder {
    /// Records the next statement, met at loop depth `depth` (as
    /// `ast::walk_stmts` counts it); `is_while`, `assigns` and `is_label`
    /// say what it is. Returns its number.
    pub(super) fn statement(&mut self, depth: usize, is_while: bool, assigns: bool, is_label: bool) -> u32 {
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
            self.loops.push(Region { start: n, end: u32::MAX, entry: None, label_free: false });
        }
        if assigns {
            self.assignments.push(n);
        }
        if is_label {
            self.labels.push(n);
        }
        n
    }

    /// The table, given the number of the variable of each recorded
    /// assignment (in the order they were recorded) and the number of
    /// variables; and the statement number of each assignment, in order.
    pub(super) fn finish(mut self, assigned_vars: &[u32], var_count: usize) -> (RegionAssignments, Vec<u32>) {
        debug_assert_eq!(assigned_vars.len(), self.assignments.len());
        for (k, _) in self.open.drain(..) {
            self.loops[k].end = self.next;
        }
        for r in &mut self.loops {
            r.label_free = !any_in(&self.labels, r.start, r.end);
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
        let whiles = self.loops.len();
        (RegionAssignments { regions: self.loops, whiles, starts, positions, labels: self.labels }, self.assignments)
    }
}

impl RegionAssignments {
    /// Records a region: the statements numbered `start..end`, entered from
    /// the block `entry` (an empty range for the blocks inside a condition
    /// or a `&&` / `||` value, where no statement is); returns its number.
    pub(super) fn push(&mut self, start: u32, end: u32, entry: Block) -> u32 {
        let k = u32::try_from(self.regions.len()).ok().filter(|&k| k != u32::MAX).expect("fewer than 2^32 regions");
        let label_free = !any_in(&self.labels, start, end);
        self.regions.push(Region { start, end, entry: Some(entry), label_free });
        k
    }

    /// Whether the region number `k` assigns the variable numbered `var`
    /// somewhere in it (true for a variable the table does not know, such
    /// as the hidden variable of a `&&`, which is assigned wherever it is
    /// used).
    pub(super) fn region_assigns(&self, k: usize, var: u32) -> bool {
        let v = var as usize;
        if v + 1 >= self.starts.len() {
            return true;
        }
        let Region { start, end, .. } = self.regions[k];
        any_in(&self.positions[self.starts[v] as usize..self.starts[v + 1] as usize], start, end)
    }
}

/// Whether the increasing `numbers` hold one in `start..end`.
fn any_in(numbers: &[u32], start: u32, end: u32) -> bool {
    let i = numbers.partition_point(|&n| n < start);
    i < numbers.len() && numbers[i] < end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `while` (0) { x = (1); while (2) { L: (3) } y = (4); } x = (5):
    /// statement numbers in walk order, with loop depths as
    /// `ast::walk_stmts` gives them. Variables: x = 0, y = 1.
    #[test]
    fn ranges_labels_and_assignments() {
        let mut b = RegionAssignmentsBuilder::default();
        let stmts = [
            (0, true, false, false),
            (1, false, true, false),
            (1, true, false, false),
            (2, false, false, true),
            (1, false, true, false),
            (0, false, true, false),
        ];
        for (i, &(depth, is_while, assigns, is_label)) in stmts.iter().enumerate() {
            assert_eq!(b.statement(depth, is_while, assigns, is_label), i as u32);
        }
        let (mut t, numbers) = b.finish(&[0, 1, 0], 2);
        assert_eq!(numbers, [1, 4, 5]);
        assert_eq!(t.whiles, 2);
        let ranges: Vec<(u32, u32, bool)> = t.regions.iter().map(|r| (r.start, r.end, r.label_free)).collect();
        assert_eq!(ranges, [(0, 5, false), (2, 4, false)]);
        // The outer loop assigns x (1) and y (4); the inner one neither.
        assert!(t.region_assigns(0, 0) && t.region_assigns(0, 1));
        assert!(!t.region_assigns(1, 0) && !t.region_assigns(1, 1));
        // A variable the table does not know counts as assigned.
        assert!(t.region_assigns(1, 2));
        // An `if` over statements 4..5 assigns y only; an expression's
        // empty range assigns nothing and holds no label.
        let k = t.push(4, 5, Block(0)) as usize;
        assert!(t.regions[k].label_free && !t.region_assigns(k, 0) && t.region_assigns(k, 1));
        let e = t.push(0, 0, Block(0)) as usize;
        assert!(t.regions[e].label_free && !t.region_assigns(e, 0) && !t.region_assigns(e, 1));
        // x's last assignment (5) is after the outer loop.
        let after = t.push(5, 6, Block(0)) as usize;
        assert!(t.region_assigns(after, 0) && !t.region_assigns(after, 1));
    }
}
