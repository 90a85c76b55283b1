//! The table `currentDef[variable][block]` of Braun et al.'s Algorithm 1
//! ("Simple and Efficient Construction of Static Single Assignment Form",
//! CC 2013, §2.1), stored sparsely per variable in dense pages of blocks.
//!
//! The look-up of Alg. 2 records the value it finds in every block it walks
//! through, so the table ends with one entry per variable and block on the
//! variable's live range (Θ((B+E)·V) in the worst case, the paper's bound).
//! A hash map keyed by the pair (or one hash map per block) pays for that
//! with a hash, a probe and about four times the entry's size per entry, and
//! its doubling reallocates and rehashes the whole table.
//!
//! Production implementations store the table densely instead: libFirm keeps
//! an array of all variables in each block, Cranelift's `SSABuilder` a
//! vector of all blocks per variable. Both cost B·V words even for the
//! variables that live in a few blocks, so this table takes the middle road:
//! per variable, the blocks are cut into pages of [`PAGE`] consecutive
//! blocks, and a page is allocated only when one of its blocks gets an entry.
//! A variable used in a few neighbouring blocks (most of them: blocks are
//! numbered in source order) holds one or two pages; a variable live across
//! the whole function holds a dense array, at 4 bytes per block. A variable's
//! page list is searched by binary search while it is short, and becomes a
//! direct page table once it has [`DENSE_AFTER`] pages.
//!
//! The number of entries is kept down by two departures of the look-up
//! (`mod.rs` lists them): a read that only the initial value can reach
//! records nothing, and no edge leaves a block known to be unreachable, so
//! code after `break`, `continue` or `return` feeds nothing into the joins
//! below it. What remains is Θ((B+E)·V) in the worst case: a variable
//! assigned early and read late inside deep control flow still leaves an
//! entry in every block between.

use crate::entity::EntityRef;
use crate::ir::{Block, Value};
use crate::pass_manager::self_checks;
use std::cell::Cell;

/// Blocks per page.
const PAGE: usize = 32;
/// Pages after which a variable's page list becomes a direct table.
const DENSE_AFTER: usize = 16;
/// The empty entry of a page (no value is ever numbered `u32::MAX`).
const NONE: Value = Value(u32::MAX);
/// The empty entry of a direct page table.
const NO_PAGE: u32 = u32::MAX;

/// The pages of one variable.
#[derive(Debug)]
enum VarPages {
    /// (page number, index in the page arena), sorted by page number.
    Sparse(Vec<(u32, u32)>),
    /// Index in the page arena of each page number, or `NO_PAGE`.
    Dense(Vec<u32>),
}

/// One look-up in this many is checked against the table itself when the
/// self-checks are on (`pass_manager/self_checks.rs`).
const CHECK_EVERY: u64 = 8;

/// Pages per chunk of the page arena.
const CHUNK: usize = 1024;

/// `currentDef[variable][block]`, indexed by the variable's number.
///
/// The pages live in an arena of fixed-size chunks, never moved once
/// allocated (except the first, which grows up to the chunk size, so that a
/// small function does not pay for a whole chunk): one vector of all pages
/// would copy itself at each doubling and hold the old and the new copy at
/// once, and keep up to half its capacity unused.
#[derive(Debug)]
pub(super) struct CurrentDefs {
    vars: Vec<VarPages>,
    /// The last (variable, page) looked up and the page's index in the
    /// arena (`NO_PAGE` for none): a look-up asks about one variable in
    /// neighbouring blocks, mostly on one page, so this answers most
    /// questions without searching the variable's page list.
    last: Cell<(u32, u32, u32)>,
    chunks: Vec<Vec<[Value; PAGE]>>,
    page_count: u32,
    /// Look-ups so far, for the sampling of the self-check.
    gets: Cell<u64>,
}

impl Default for CurrentDefs {
    fn default() -> Self {
        // No variable is numbered `NO_PAGE`, so the cache starts empty.
        CurrentDefs {
            vars: Vec::new(),
            last: Cell::new((NO_PAGE, NO_PAGE, NO_PAGE)),
            chunks: Vec::new(),
            page_count: 0,
            gets: Cell::new(0),
        }
    }
}

impl CurrentDefs {
    /// The arena index of the page `page` of `var`, if it has one. The
    /// common case, the page of the last question, is answered inline by
    /// `get` and `set`; this is the rest.
    #[inline(never)]
    fn page_of_slow(&self, var: u32, page: u32) -> Option<u32> {
        let index = match self.vars.get(var as usize)? {
            VarPages::Sparse(list) => list.binary_search_by_key(&page, |&(p, _)| p).ok().map(|i| list[i].1),
            VarPages::Dense(table) => table.get(page as usize).copied().filter(|&i| i != NO_PAGE),
        }?;
        self.last.set((var, page, index));
        Some(index)
    }

    #[inline]
    fn page_of(&self, var: u32, page: u32) -> Option<u32> {
        let (last_var, last_page, last_index) = self.last.get();
        if last_var == var && last_page == page {
            return Some(last_index);
        }
        self.page_of_slow(var, page)
    }

    #[inline]
    fn slot(&self, index: u32) -> &[Value; PAGE] {
        &self.chunks[index as usize / CHUNK][index as usize % CHUNK]
    }

    /// `currentDef[var][block]`, if recorded.
    #[inline]
    pub(super) fn get(&self, var: u32, block: Block) -> Option<Value> {
        let (page, slot) = ((block.index() / PAGE) as u32, block.index() % PAGE);
        let found = self.page_of(var, page).map(|index| self.slot(index)[slot]).filter(|&v| v != NONE);
        let n = self.gets.get().wrapping_add(1);
        self.gets.set(n);
        if n.is_multiple_of(CHECK_EVERY) && self_checks::in_checked_pass() {
            self.check_get(var, page, slot, found);
        }
        found
    }

    /// The self-check of a look-up: the page found again by a linear scan
    /// of the variable's page list (not the last-page cache, not the binary
    /// search, not the direct table's shortcut), and its entry compared
    /// with `found`. Panics on a difference.
    #[inline(never)]
    fn check_get(&self, var: u32, page: u32, slot: usize, found: Option<Value>) {
        self_checks::count();
        let index = match self.vars.get(var as usize) {
            None => None,
            Some(VarPages::Sparse(list)) => list.iter().find(|&&(p, _)| p == page).map(|&(_, i)| i),
            Some(VarPages::Dense(table)) => {
                table.iter().enumerate().find(|&(p, &i)| p == page as usize && i != NO_PAGE).map(|(_, &i)| i)
            }
        };
        let expected = index.map(|i| self.chunks[i as usize / CHUNK][i as usize % CHUNK][slot]).filter(|&v| v != NONE);
        assert!(
            found == expected,
            "self-check of currentDef: variable {var} in block {} reads {found:?} but the table holds {expected:?}",
            page as usize * PAGE + slot
        );
    }

    /// Records `currentDef[var][block] = value`.
    #[inline]
    pub(super) fn set(&mut self, var: u32, block: Block, value: Value) {
        debug_assert_ne!(value, NONE);
        let (page, slot) = ((block.index() / PAGE) as u32, block.index() % PAGE);
        let index = match self.page_of(var, page) {
            Some(i) => i,
            None => self.new_page(var as usize, page),
        };
        self.chunks[index as usize / CHUNK][index as usize % CHUNK][slot] = value;
    }

    #[inline(never)]
    fn new_page(&mut self, var: usize, page: u32) -> u32 {
        let index = self.page_count;
        self.page_count = index.checked_add(1).expect("fewer than 2^32 pages");
        if (index as usize).is_multiple_of(CHUNK) {
            // The first chunk grows as pages come (a small function needs
            // a few pages, not a chunk of 128 KiB); it is the only one that
            // ever moves, and the later ones are allocated whole.
            self.chunks.push(if self.chunks.is_empty() { Vec::new() } else { Vec::with_capacity(CHUNK) });
        }
        self.chunks.last_mut().expect("a chunk with room").push([NONE; PAGE]);
        if self.vars.len() <= var {
            self.vars.resize_with(var + 1, || VarPages::Sparse(Vec::new()));
        }
        self.last.set((var as u32, page, index));
        let pages = &mut self.vars[var];
        match pages {
            VarPages::Sparse(list) => {
                let at = list.partition_point(|&(p, _)| p < page);
                list.insert(at, (page, index));
                if list.len() >= DENSE_AFTER {
                    let len = list.last().map_or(0, |&(p, _)| p as usize + 1);
                    let mut table = vec![NO_PAGE; len];
                    for &(p, i) in list.iter() {
                        table[p as usize] = i;
                    }
                    *pages = VarPages::Dense(table);
                }
            }
            VarPages::Dense(table) => {
                if table.len() <= page as usize {
                    table.resize(page as usize + 1, NO_PAGE);
                }
                table[page as usize] = index;
            }
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The table as the look-up fills it, one write at a time: random
    /// writes and reads over variables and blocks that span several pages
    /// (so that page lists grow, turn into direct tables, and the last-page
    /// cache moves), against a hash map; after every write, every entry
    /// written so far and a few never written are read back.
    #[test]
    fn table_matches_a_map_after_every_write() {
        fn prop(ops: Vec<(u8, u16, u8)>) -> bool {
            let mut table = CurrentDefs::default();
            let mut model: HashMap<(u32, u32), Value> = HashMap::new();
            for (step, &(var, block, x)) in ops.iter().enumerate() {
                let (var, block) = (u32::from(var % 3), u32::from(block % 700));
                let value = Value(step as u32 * 256 + u32::from(x));
                table.set(var, Block(block), value);
                model.insert((var, block), value);
                let written = model.iter().all(|(&(v, b), &x)| table.get(v, Block(b)) == Some(x));
                let unwritten = (0..3u32).all(|v| {
                    let b = (block + 31 * v + 1) % 700;
                    table.get(v, Block(b)) == model.get(&(v, b)).copied()
                });
                if !(written && unwritten) {
                    return false;
                }
            }
            true
        }
        quickcheck::QuickCheck::new().tests(300).quickcheck(prop as fn(Vec<(u8, u16, u8)>) -> bool);
    }
}
