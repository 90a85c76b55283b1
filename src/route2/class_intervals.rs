//! The lifetime intervals of the classes that route 2's linear scan merges
//! before it allocates (`linear_scan.rs`, "Coalescing": Boissinot et al.,
//! CGO 2009, leave the remaining copies to the conventional allocator;
//! Poletto and Sarkar's scan over Wimmer and Mössenböck's intervals with
//! holes).
//!
//! Each class's interval is a set of positions, kept as sorted, disjoint
//! closed ranges. The coalescer asks two things about classes: do two
//! intervals overlap, and does an interval contain one of a register's
//! clobber positions; and it merges two disjoint intervals. Merging by
//! rebuilding one sorted list, as the first version did, costs the size of
//! both lists: a class that grows one variable at a time to thousands of
//! ranges (the classes pinned to rax and rdx, or one renamed phi web) then
//! costs the square of its size. Here a class with more than
//! `SMALL_RANGES` (32) ranges keeps them in an ordered map, and a merge inserts
//! the smaller set's ranges into the larger (small into large: each range
//! moves O(log n) times). An overlap test walks the smaller set and looks
//! each range up in the larger one, as before.
//!
//! The clobber test is cached per class and register: whether the interval
//! meets the register's clobbers is known after a test until the class
//! changes, and a merge of two classes that both miss (or one that meets)
//! a register's clobbers misses (meets) them too, so a large class labeled
//! with a register is not tested again for each variable that joins it.

use std::collections::BTreeMap;

/// A class with more ranges than this keeps them in an ordered map.
const SMALL_RANGES: usize = 32;

/// One class's interval.
#[derive(Clone, Debug)]
enum RangeSet {
    /// Sorted, disjoint closed ranges.
    Small(Vec<(u32, u32)>),
    /// Start to end of each range (disjoint).
    Big(BTreeMap<u32, u32>),
}

impl RangeSet {
    fn len(&self) -> usize {
        match self {
            RangeSet::Small(v) => v.len(),
            RangeSet::Big(m) => m.len(),
        }
    }

    fn ranges(&self) -> Box<dyn Iterator<Item = (u32, u32)> + '_> {
        match self {
            RangeSet::Small(v) => Box::new(v.iter().copied()),
            RangeSet::Big(m) => Box::new(m.iter().map(|(&a, &b)| (a, b))),
        }
    }

    /// True when some position of `from..=to` is in the set.
    fn hits(&self, from: u32, to: u32) -> bool {
        match self {
            RangeSet::Small(v) => {
                let i = v.partition_point(|r| r.1 < from);
                v.get(i).is_some_and(|r| r.0 <= to)
            }
            // The last range starting at or before `to` is the only one that
            // can reach `from`: the earlier ones end before it starts.
            RangeSet::Big(m) => m.range(..=to).next_back().is_some_and(|(_, &e)| e >= from),
        }
    }
}

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
        let sets: Vec<RangeSet> = intervals.map(RangeSet::Small).collect();
        let n = sets.len();
        ClassIntervals { sets, known_meets: vec![0; n], known_misses: vec![0; n] }
    }

    /// True when the intervals of classes `x` and `y` share a position.
    pub fn overlaps(&self, x: usize, y: usize) -> bool {
        let (a, b) = (&self.sets[x], &self.sets[y]);
        let (few, many) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        few.ranges().any(|(from, to)| many.hits(from, to))
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
        let answer = self.sets[x].ranges().any(|(from, to)| {
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
        let a = std::mem::replace(&mut self.sets[x], RangeSet::Small(Vec::new()));
        let b = std::mem::replace(&mut self.sets[y], RangeSet::Small(Vec::new()));
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        let merged = match large {
            RangeSet::Big(mut m) => {
                m.extend(small.ranges());
                RangeSet::Big(m)
            }
            RangeSet::Small(v) => {
                let mut all: Vec<(u32, u32)> = v.into_iter().chain(small.ranges()).collect();
                all.sort_unstable();
                if all.len() > SMALL_RANGES {
                    RangeSet::Big(all.into_iter().collect())
                } else {
                    RangeSet::Small(all)
                }
            }
        };
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
    /// merged intervals, through both representations (classes grow past
    /// `SMALL_RANGES`).
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
                let got: BTreeSet<u32> = ci.sets[x].ranges().flat_map(|(a, b)| a..=b).collect();
                assert_eq!(&got, set);
                big += usize::from(matches!(ci.sets[x], super::RangeSet::Big(_)));
            }
        }
        assert!(merges > 100 && big > 0, "{merges} merges, {big} large classes");
    }
}
