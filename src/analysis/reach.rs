//! Counters of the code paths that only some configurations of a campaign
//! can take: a coalescing variant's own rule deciding a merge, a class test
//! finding interference along its own path, a chain of copies of the shape
//! the linear test walks. A campaign (`campaign/reach_table.rs`) reads them
//! after each program and reports, for each configuration it rotated
//! through, the share of its programs that reached its paths, not only the
//! share that selected it: a configuration selected often whose path runs on
//! few programs tests little.
//!
//! Each counter is one per-thread cell, incremented where the path is
//! taken ([`hit`]); [`take`] reads and clears them. They cost an add and
//! count whether or not anything reads them.

use std::cell::Cell;

/// A distinctive code path (see the module documentation).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Path {
    /// Two classes merged by the out-of-SSA coalescer.
    Merge,
    /// `Sreedhar I` / `Sreedhar III`: the pair of the copy itself
    /// intersects, and the rule leaves it unchecked.
    ExceptedPair,
    /// `Chaitin`: one variable is live at the other's definition, which is
    /// a copy from it, and the rule lets them share a class.
    ChaitinCopy,
    /// Value-based interference: two variables intersect with one value,
    /// and the rule lets them share a class.
    SameValue,
    /// The independent-set search of a phi dropped a candidate that
    /// interferes with a chosen one.
    IndependentSetDrop,
    /// Copy sharing removed a copy.
    Shared,
    /// The linear class test (intersection or value mode) found
    /// interference.
    LinearInterference,
    /// The local value walk took the forest search of `parent_in` (the
    /// latest member of the other class before a member does not dominate
    /// it).
    ForestSearch,
    /// The local value walk followed an `equal_anc_in` chain past its
    /// first member.
    AncestorChain,
    /// A pairwise class test (every pair, or against a graph) found
    /// interference.
    PairInterference,
}

impl Path {
    /// Every path, in a fixed order.
    pub const ALL: [Path; 10] = [
        Path::Merge,
        Path::ExceptedPair,
        Path::ChaitinCopy,
        Path::SameValue,
        Path::IndependentSetDrop,
        Path::Shared,
        Path::LinearInterference,
        Path::ForestSearch,
        Path::AncestorChain,
        Path::PairInterference,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Path::Merge => "merge",
            Path::ExceptedPair => "excepted-pair",
            Path::ChaitinCopy => "chaitin-copy",
            Path::SameValue => "same-value",
            Path::IndependentSetDrop => "is-drop",
            Path::Shared => "shared",
            Path::LinearInterference => "linear-interf",
            Path::ForestSearch => "forest-search",
            Path::AncestorChain => "anc-chain",
            Path::PairInterference => "pair-interf",
        }
    }
}

/// How many paths there are.
pub const COUNT: usize = Path::ALL.len();

thread_local! {
    static HITS: [Cell<u64>; COUNT] = const { [const { Cell::new(0) }; COUNT] };
}

/// Counts one taking of `path` on this thread.
#[inline]
pub fn hit(path: Path) {
    HITS.with(|h| {
        let c = &h[path as usize];
        c.set(c.get().wrapping_add(1));
    });
}

/// This thread's counts since the last `take`, indexed like [`Path::ALL`];
/// clears them.
pub fn take() -> [u64; COUNT] {
    HITS.with(|h| std::array::from_fn(|i| h[i].replace(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_thread_and_clears_on_take() {
        let _ = take();
        hit(Path::Shared);
        hit(Path::Shared);
        hit(Path::Merge);
        std::thread::spawn(|| hit(Path::Merge)).join().expect("thread");
        let counts = take();
        assert_eq!(counts[Path::Shared as usize], 2);
        assert_eq!(counts[Path::Merge as usize], 1);
        assert_eq!(take(), [0; COUNT]);
    }
}
