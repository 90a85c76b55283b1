//! The share of a campaign's programs that reach each rotated out-of-SSA
//! configuration's own code paths (`analysis/reach.rs`), not only the share
//! that select it: for each coalescing variant and class test, the programs
//! that ran it, and of them the programs on which its distinctive paths ran
//! at least once. The campaign summary prints it.
//!
//! The paths of a variant: `Intersect` merges classes; `Sreedhar I`
//! spares the intersecting pair of a copy; `Chaitin` spares a variable live
//! at a copy from it; `Value` spares two intersecting variables of one
//! value; `Sreedhar III` and `Value + IS` also drop a candidate in a phi's
//! independent-set search; `Sharing` also removes a copy by sharing. The
//! paths of a class test: the linear test finds interference (and, in value
//! mode, walks the forest search and an `equal_anc_in` chain); the pairwise
//! tests find interference. `Sreedhar III` runs virtualized
//! (`out_of_ssa/virtualization.rs`), which counts the same paths.

use crate::analysis::reach::{Path, COUNT};
use crate::backend::OutOfSsa;
use crate::out_of_ssa::coalescing::{ClassTest, CoalescingVariant};
use std::collections::BTreeMap;

/// Programs per configuration, and of them those that reached each path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReachTable {
    /// Keyed by (variant index in `CoalescingVariant::ALL`, class test
    /// index in `ClassTest::ALL`).
    rows: BTreeMap<(usize, usize), (u64, [u64; COUNT])>,
}

/// The distinctive paths of a variant.
pub fn variant_paths(v: CoalescingVariant) -> &'static [Path] {
    match v {
        CoalescingVariant::Intersect => &[Path::Merge],
        CoalescingVariant::SreedharI => &[Path::ExceptedPair],
        CoalescingVariant::Chaitin => &[Path::ChaitinCopy],
        CoalescingVariant::Value => &[Path::SameValue],
        CoalescingVariant::SreedharIII => &[Path::ExceptedPair, Path::IndependentSetDrop],
        CoalescingVariant::ValueIs => &[Path::SameValue, Path::IndependentSetDrop],
        CoalescingVariant::Sharing => &[Path::SameValue, Path::Shared],
    }
}

/// The distinctive paths of a class test with a variant: the linear test
/// applies to the intersection and value rules only (the others test every
/// pair).
pub fn class_test_paths(v: CoalescingVariant, t: ClassTest) -> &'static [Path] {
    let value_rule = matches!(v, CoalescingVariant::Value | CoalescingVariant::ValueIs | CoalescingVariant::Sharing);
    match t {
        ClassTest::Linear if value_rule => &[Path::LinearInterference, Path::ForestSearch, Path::AncestorChain],
        ClassTest::Linear if v == CoalescingVariant::Intersect => &[Path::LinearInterference],
        _ => &[Path::PairInterference],
    }
}

impl ReachTable {
    /// Counts one program that ran the out-of-SSA configurations `configs`
    /// and took each path `hits[i]` times (`reach::take`).
    pub fn add(&mut self, configs: &[OutOfSsa], hits: &[u64; COUNT]) {
        for c in configs {
            let o = &c.out_of_ssa;
            let v = CoalescingVariant::ALL.iter().position(|&x| x == o.variant).unwrap_or(0);
            let t = ClassTest::ALL.iter().position(|&x| x == o.class_test).unwrap_or(0);
            let row = self.rows.entry((v, t)).or_default();
            row.0 += 1;
            for (n, &h) in row.1.iter_mut().zip(hits) {
                *n += u64::from(h > 0);
            }
        }
    }

    /// Each row: the variant, the class test, the programs that ran them,
    /// and of those the programs that reached each path (indexed like
    /// `Path::ALL`).
    pub fn rows(&self) -> impl Iterator<Item = (CoalescingVariant, ClassTest, u64, &[u64; COUNT])> + '_ {
        self.rows.iter().map(|(&(vi, ti), (n, reached))| (CoalescingVariant::ALL[vi], ClassTest::ALL[ti], *n, reached))
    }

    /// Adds `programs` programs that ran variant `v` with class test `t`,
    /// of which `reached[p]` reached path `p`: what [`Self::rows`] gives,
    /// so that the tables of several campaigns add up (`fuzz-merge`).
    pub fn add_row(&mut self, v: CoalescingVariant, t: ClassTest, programs: u64, reached: &[u64; COUNT]) {
        let vi = CoalescingVariant::ALL.iter().position(|&x| x == v).unwrap_or(0);
        let ti = ClassTest::ALL.iter().position(|&x| x == t).unwrap_or(0);
        let row = self.rows.entry((vi, ti)).or_default();
        row.0 += programs;
        for (n, &r) in row.1.iter_mut().zip(reached) {
            *n += r;
        }
    }

    /// The share (0 to 1) of the programs of the row that reached every
    /// one of its distinctive paths at least once, the least of them:
    /// `None` for a configuration no program ran.
    pub fn least_share(&self, v: CoalescingVariant, t: ClassTest) -> Option<f64> {
        let vi = CoalescingVariant::ALL.iter().position(|&x| x == v)?;
        let ti = ClassTest::ALL.iter().position(|&x| x == t)?;
        let (n, reached) = self.rows.get(&(vi, ti))?;
        let paths = variant_paths(v).iter().chain(class_test_paths(v, t));
        paths.map(|&p| reached[p as usize] as f64 / (*n).max(1) as f64).reduce(f64::min)
    }

    /// The table: one line per variant and class test that ran, with the
    /// programs that selected it and the share of them that reached each of
    /// its paths.
    pub fn render(&self) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        let mut s = String::from("  out-of-ssa paths reached (share of the programs that ran the configuration):\n");
        for (&(vi, ti), (n, reached)) in &self.rows {
            let (v, t) = (CoalescingVariant::ALL[vi], ClassTest::ALL[ti]);
            let cells: Vec<String> = variant_paths(v)
                .iter()
                .chain(class_test_paths(v, t))
                .map(|&p| format!("{} {:.0}%", p.name(), 100.0 * reached[p as usize] as f64 / (*n).max(1) as f64))
                .collect();
            s.push_str(&format!("    {:<13} {:<15} {:>5} programs: {}\n", v.slug(), t.name(), n, cells.join(", ")));
        }
        s
    }
}
