//! A set of program points as sorted, disjoint closed ranges, for unions
//! that grow by merging: the live ranges of a congruence class in ssa-ra's
//! PhiMemCoalesce (Pereira, "The Design and Implementation of a SSA-based
//! Register Allocator", Fig. 4) and the lifetime interval of a coalesced
//! class in out-of-ssa's linear scan (`out_of_ssa/class_intervals.rs`).
//!
//! Both merge classes one copy at a time, and one class can grow to
//! thousands of ranges (a phi web, or the class pinned to `rax`). Merging
//! by rebuilding one sorted list costs both lists, so such a class costs
//! the square of its size. Here a set with more than [`FEW`] ranges keeps
//! them in an ordered map keyed by the first point, a union inserts the
//! smaller set's ranges into the larger (each range moves O(log n) times
//! over all unions), and an intersection test looks each range of the
//! smaller set up in the larger one. A map for every set would cost a map
//! node per range while most sets hold one or two ranges, so small sets
//! stay sorted vectors.

use super::intervals::{merge, normalize};
use std::collections::BTreeMap;

/// The most ranges a [`RangeSet`] keeps in a sorted vector.
pub const FEW: usize = 32;

/// Sorted, disjoint closed ranges of points.
#[derive(Clone, Debug)]
pub struct RangeSet(Repr);

#[derive(Clone, Debug)]
enum Repr {
    Few(Vec<(u32, u32)>),
    /// First point to last point of each range.
    Many(BTreeMap<u32, u32>),
}

impl Default for RangeSet {
    fn default() -> Self {
        RangeSet(Repr::Few(Vec::new()))
    }
}

impl RangeSet {
    /// The set of `ranges`, which are sorted and disjoint.
    pub fn from_sorted(ranges: Vec<(u32, u32)>) -> RangeSet {
        debug_assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0), "sorted, disjoint ranges");
        if ranges.len() <= FEW {
            RangeSet(Repr::Few(ranges))
        } else {
            RangeSet(Repr::Many(ranges.into_iter().collect()))
        }
    }

    /// The union of `ranges`, given in any order, possibly overlapping.
    pub fn from_ranges(ranges: impl Iterator<Item = (u32, u32)>) -> RangeSet {
        RangeSet::from_sorted(normalize(ranges.collect()))
    }

    /// The number of ranges.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Few(v) => v.len(),
            Repr::Many(m) => m.len(),
        }
    }

    /// True when the set holds no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ranges in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (u32, u32)> + '_> {
        match &self.0 {
            Repr::Few(v) => Box::new(v.iter().copied()),
            Repr::Many(m) => Box::new(m.iter().map(|(&a, &b)| (a, b))),
        }
    }

    /// True when some point of `from..=to` is in the set: the last range
    /// starting at or before `to` is the only candidate, since the ranges
    /// are disjoint (a later start means a later end).
    pub fn hits(&self, from: u32, to: u32) -> bool {
        let end = match &self.0 {
            Repr::Few(v) => v[..v.partition_point(|r| r.0 <= to)].last().map(|r| r.1),
            Repr::Many(m) => m.range(..=to).next_back().map(|(_, &end)| end),
        };
        end.is_some_and(|end| end >= from)
    }

    /// True when the two sets share a point, by looking each range of the
    /// smaller one up in the larger one.
    pub fn intersects(&self, other: &RangeSet) -> bool {
        let (small, large) = if self.len() <= other.len() { (self, other) } else { (other, self) };
        small.iter().any(|(from, to)| large.hits(from, to))
    }

    /// The union of two sets that share no point: the smaller one's ranges
    /// go into the larger one.
    pub fn union_disjoint(a: RangeSet, b: RangeSet) -> RangeSet {
        debug_assert!(!a.intersects(&b), "the sets share a point");
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        match (large.0, small.0) {
            (Repr::Few(l), Repr::Few(s)) if l.len() + s.len() <= FEW => RangeSet(Repr::Few(merge(&l, &s))),
            (Repr::Few(l), small) => {
                let mut m: BTreeMap<u32, u32> = l.into_iter().collect();
                m.extend(RangeSet(small).iter());
                RangeSet(Repr::Many(m))
            }
            (Repr::Many(mut m), small) => {
                m.extend(RangeSet(small).iter());
                RangeSet(Repr::Many(m))
            }
        }
    }
}
