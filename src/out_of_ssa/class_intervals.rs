//! The lifetime intervals of the classes that out-of-ssa's linear scan merges
//! before it allocates (`linear_scan.rs`, "Coalescing": Boissinot et al.,
//! CGO 2009, leave the remaining copies to the conventional allocator;
//! Poletto and Sarkar's scan over Wimmer and Mössenböck's intervals with
//! holes).
//!
//! Each class's interval is a set of positions, kept as sorted, disjoint
//! closed ranges. The coalescer asks two things about classes: do two
//! intervals overlap, and does an interval contain one of a register's
//! clobber positions; and it merges two disjoint intervals. Merging by
//! rebuilding one sorted list costs the size of both lists: a class that grows one variable at a time to thousands of
//! ranges (the classes pinned to rax and rdx, or one renamed phi web) then
//! costs the square of its size. Here each interval is an
//! `analysis/range_set.rs` `RangeSet`: more than 32 ranges are kept in an
//! ordered map, and a merge inserts the smaller set's ranges into the larger
//! (small into large: each range moves O(log n) times). An overlap test
//! walks the smaller set and looks each range up in the larger one, as
//! before.
//!
//! The clobber test is cached per class and register: whether the interval
//! meets the register's clobbers is known after a test until the class
//! changes, and a merge of two classes that both miss (or one that meets)
//! a register's clobbers misses (meets) them too, so a large class labeled
//! with a register is not tested again for each variable that joins it.

use crate::analysis::range_set::RangeSet;

/// The intervals of the classes, indexed by the class's representative
/// (a variable index), with the clobber tests already made.
#[derive(Clone, Debug)]
pub struct ClassIntervals {
    sets: Vec<RangeSet>,
    /// Per class, the registers (bits) whose clobbers its interval is known
    /// to meet, and those it is known to miss.
    known_meets: Vec<u16>,
    known_misses: Vec<u16>,
}

impl ClassIntervals {
    /// One class per variable, with the given intervals (each sorted,
    /// disjoint ranges).
    pub fn new(intervals: impl Iterator<Item = Vec<(u32, u32)>>) -> Self {
        let sets: Vec<RangeSet> = intervals.map(RangeSet::from_sorted).collect();
        let n = sets.len();
        ClassIntervals { sets, known_meets: vec![0; n], known_misses: vec![0; n] }
    }

    /// True when the intervals of classes `x` and `y` share a position.
    pub fn overlaps(&self, x: usize, y: usize) -> bool {
        self.sets[x].intersects(&self.sets[y])
    }

    /// True when the interval of class `x` contains one of the sorted
    /// `positions`, the clobbers of register `reg`.
    pub fn meets(&mut self, x: usize, reg: usize, positions: &[u32]) -> bool {
        let bit = u16::try_from(reg).ok().and_then(|r| 1u16.checked_shl(u32::from(r)));
        if let Some(bit) = bit {
            if self.known_meets[x] & bit != 0 {
                return true;
            }
            if self.known_misses[x] & bit != 0 {
                return false;
            }
        }
        let answer = self.sets[x].iter().any(|(from, to)| {
            let i = positions.partition_point(|&p| p < from);
            positions.get(i).is_some_and(|&p| p <= to)
        });
        if let Some(bit) = bit {
            if answer {
                self.known_meets[x] |= bit;
            } else {
                self.known_misses[x] |= bit;
            }
        }
        answer
    }

    /// Gives class `x` the union of the intervals of `x` and `y`, which
    /// must not overlap, and leaves `y` empty.
    pub fn merge_into(&mut self, x: usize, y: usize) {
        debug_assert!(x != y && !self.overlaps(x, y));
        let a = std::mem::take(&mut self.sets[x]);
        let b = std::mem::take(&mut self.sets[y]);
        let merged = RangeSet::union_disjoint(a, b);
        self.sets[x] = merged;
        self.known_meets[x] |= self.known_meets[y];
        self.known_misses[x] &= self.known_misses[y];
        self.known_meets[y] = 0;
        self.known_misses[y] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::ClassIntervals;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeSet;

    /// Random merges of random classes, each answer compared with plain
    /// sets of positions: overlaps, clobber tests (cached or not) and the
    /// merged intervals, through both representations of `RangeSet`
    /// (classes grow past `range_set::FEW` ranges).
    #[test]
    fn class_intervals_answer_like_sets_of_positions() {
        let mut rng = SmallRng::seed_from_u64(13);
        let (mut merges, mut big) = (0, 0);
        for _ in 0..20 {
            let n = 60;
            // Disjoint single ranges over 0..4000, dealt to the classes.
            let mut sets: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
            let mut lists: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
            let mut p = 0;
            while p < 4000 {
                let len = rng.gen_range(0..4);
                let c = rng.gen_range(0..n);
                lists[c].push((p, p + len));
                sets[c].extend(p..=p + len);
                p += len + 1 + rng.gen_range(0..3);
            }
            let clobbers: Vec<Vec<u32>> = (0..3)
                .map(|_| (0..40).map(|_| rng.gen_range(0..4000)).collect::<BTreeSet<u32>>().into_iter().collect())
                .collect();
            let mut ci = ClassIntervals::new(lists.into_iter());
            for _ in 0..400 {
                let (x, y) = (rng.gen_range(0..n), rng.gen_range(0..n));
                let reg = rng.gen_range(0..3);
                let meets = sets[x].iter().any(|p| clobbers[reg].binary_search(p).is_ok());
                assert_eq!(ci.meets(x, reg, &clobbers[reg]), meets);
                if x == y {
                    continue;
                }
                let overlaps = !sets[x].is_disjoint(&sets[y]);
                assert_eq!(ci.overlaps(x, y), overlaps);
                if !overlaps {
                    ci.merge_into(x, y);
                    let moved = std::mem::take(&mut sets[y]);
                    sets[x].extend(moved);
                    merges += 1;
                }
            }
            for (x, set) in sets.iter().enumerate() {
                let got: BTreeSet<u32> = ci.sets[x].iter().flat_map(|(a, b)| a..=b).collect();
                assert_eq!(&got, set);
                big += usize::from(ci.sets[x].len() > crate::analysis::range_set::FEW);
            }
        }
        assert!(merges > 100 && big > 0, "{merges} merges, {big} large classes");
    }
}
