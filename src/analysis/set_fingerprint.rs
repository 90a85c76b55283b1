//! Sets of values compared point by point without building them: a set
//! walked with one insertion or removal at a time keeps its size and a
//! fingerprint, the wrapping sum of a 64-bit mix of each member's number,
//! so that the set at a point is summarized in constant space and two
//! summaries are compared in constant time.
//!
//! The self-checks that compare a block's incremental walk with the set of
//! every point (the interval analysis's runs, the spiller's demand walk)
//! use it: building each point's set costs the sum of their sizes, which is
//! quadratic when many values are live through a long block, where a
//! summary costs one update per change. Equal sets always have equal
//! summaries, so a correct walk is never rejected; two different sets of
//! the same size have the same fingerprint only when the sums of the mixes
//! collide, which for a difference the walks can make (a value missing, one
//! too many, one in place of another) means two mixes equal modulo 2^64.
//! A check that finds a difference builds the sets to report it.

use crate::entity::EntityRef;
use crate::ir::Value;
use rustc_hash::FxHashSet;

/// The summary of a set of values: its size and its fingerprint.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SetSummary {
    pub len: usize,
    pub fingerprint: u64,
}

impl SetSummary {
    /// The summary of this set with `v` added (`v` must not be a member).
    pub fn with(self, v: Value) -> SetSummary {
        SetSummary { len: self.len + 1, fingerprint: self.fingerprint.wrapping_add(mix(v)) }
    }

    /// The summary of the set of `values` (distinct).
    pub fn of(values: impl IntoIterator<Item = Value>) -> SetSummary {
        values.into_iter().fold(SetSummary::default(), SetSummary::with)
    }
}

/// The 64-bit mix of a value's number (SplitMix64's finalizer), so that
/// sums of different small sets of numbers differ.
pub fn mix(v: Value) -> u64 {
    let mut z = (v.index() as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A set of values with its summary kept up to date.
#[derive(Clone, Debug, Default)]
pub struct SummarizedSet {
    members: FxHashSet<Value>,
    fingerprint: u64,
}

impl SummarizedSet {
    /// Adds `v`; true when it was not a member.
    pub fn insert(&mut self, v: Value) -> bool {
        let new = self.members.insert(v);
        if new {
            self.fingerprint = self.fingerprint.wrapping_add(mix(v));
        }
        new
    }

    /// Removes `v`; true when it was a member.
    pub fn remove(&mut self, v: Value) -> bool {
        let was = self.members.remove(&v);
        if was {
            self.fingerprint = self.fingerprint.wrapping_sub(mix(v));
        }
        was
    }

    pub fn contains(&self, v: Value) -> bool {
        self.members.contains(&v)
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The size and fingerprint of the set as it is now.
    pub fn summary(&self) -> SetSummary {
        SetSummary { len: self.members.len(), fingerprint: self.fingerprint }
    }

    /// The members, sorted (for a report).
    pub fn sorted(&self) -> Vec<Value> {
        let mut v: Vec<Value> = self.members.iter().copied().collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_follow_the_set_and_tell_near_sets_apart() {
        let v = |i: usize| Value::new(i);
        let mut s = SummarizedSet::default();
        for i in [3, 1, 4, 1, 5] {
            s.insert(v(i));
        }
        assert_eq!(s.summary(), SetSummary::of([v(1), v(3), v(4), v(5)]));
        assert!(s.remove(v(4)) && !s.remove(v(4)));
        assert_eq!(s.summary(), SetSummary::of([v(5), v(3), v(1)]));
        // A value in place of another, at every pair of small numbers.
        for a in 0..200 {
            for b in 0..200 {
                if a != b {
                    assert_ne!(SetSummary::of([v(a), v(7)]), SetSummary::of([v(b), v(7)]));
                    assert_ne!(SetSummary::of([v(a)]).fingerprint, SetSummary::of([v(b)]).fingerprint);
                }
            }
        }
    }
}
