//! PhiMemCoalesce: Pereira, "The Design and Implementation of a SSA-based
//! Register Allocator" (UCLA tech. report), §4.4 and Fig. 4.
//!
//! Needs: the output of PhiLifting (`phi_lifting.rs`) and the list of copies
//! it inserted; the function must still be as PhiLifting left it (other
//! passes may have run in between only if they kept those copies and their
//! live ranges).
//!
//! PhiLifting leaves the program in CSSA form but with many copies. This
//! pass removes every copy it can while keeping CSSA form. `S_Q` starts as
//! the phi-congruence classes of the lifted program, and each class `Q` is
//! represented by the union of its members' live ranges as sorted intervals
//! (§4.1, `intervals.rs`). For each lifted copy `v := a` in order (argument
//! and destination copies alike), let `Q_v` be the class of `v` and `Q_a`
//! the class of `a`: if the two interval unions do not intersect, the
//! classes are merged and the copy is removed, `v` being replaced by `a`
//! everywhere (in the phi, for an argument copy; in every use of the phi's
//! original destination, for a destination copy). When `Q_v` and `Q_a` are
//! already one class the copy is kept: a non-empty interval union always
//! intersects itself.
//!
//! Each class's union is an `analysis/range_set.rs` `RangeSet`: sorted, in
//! an ordered map once it is large, and a test or merge looks the smaller
//! class's ranges up in the larger one's:
//! with `intervals.rs`'s linear merges of sorted vectors, a class growing
//! one copy at a time would cost the whole class at each step. The answers are
//! those of `union_intersects`.
//!
//! # The misprint in Fig. 4
//!
//! The printed figure tests `If Q_v ∩ Q_v = ∅`, which is never true (a class
//! holds at least the copy's value, whose range is not empty). The prose of
//! §4.4 ("If, for example, v1 and v16 were coalesced, the interfering
//! variables v3 and v9 would be placed in the same ϕ-equivalence class")
//! shows that the intended test is `Q_a ∩ Q_v = ∅`, which is what this pass
//! implements.
//!
//! # Why the result is still CSSA
//!
//! The members of every class have pairwise disjoint live ranges: true of
//! the classes of the lifted program (it is CSSA, and two values overlap
//! exactly when they interfere), and kept by each merge, since the two
//! unions are disjoint. Removing a copy `v := a` gives `a` at most the points
//! of `v`'s range (the copy's own point disappears), so the live range of
//! each value of the final program lies within the ranges of the lifted
//! values renamed to it, which are all in its class; and each final
//! phi-congruence class lies within one merged class. Hence no two members
//! of a final class interfere. `proofs-notes/phi-lifting.md` gives the
//! argument in full; the result is checked by a debug assertion here and by
//! `tests/suite/cssa_passes.rs`.

use crate::analysis::cssa::{find, phi_congruence_classes};
use crate::analysis::intervals::compute_intervals;
use crate::analysis::liveness::compute_liveness;
use crate::analysis::range_set::RangeSet;
use crate::entity::{EntityRef, EntitySet};
use crate::ir::{Function, Op, Value};
use crate::ssa_ra::phi_lifting::LiftedCopy;

/// What PhiMemCoalesce did.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct CoalesceStats {
    /// Copies removed.
    pub removed: usize,
    /// Copies kept.
    pub kept: usize,
    /// The copies kept, in the order given, with their sources renamed as
    /// in the final function.
    pub kept_copies: Vec<LiftedCopy>,
}

/// The value `v` stands for after the removals so far: follows the chain of
/// removed copies to its end.
/// The chains are compressed on the way (every value passed is pointed at
/// the end), so that long chains are walked once.
fn resolve(rename: &mut [u32], v: Value) -> Value {
    let mut end = v;
    while rename[end.index()] != end.0 {
        end = Value(rename[end.index()]);
    }
    let mut x = v;
    while rename[x.index()] != x.0 {
        let next = Value(rename[x.index()]);
        rename[x.index()] = end.0;
        x = next;
    }
    end
}

/// Removes the lifted copies whose classes do not intersect (see the module
/// documentation) and returns how many were removed and kept.
///
/// Panics if a [`LiftedCopy`] does not name a `copy` instruction of `f` in
/// its block.
pub fn phi_mem_coalesce(f: &mut Function, lifted: &[LiftedCopy]) -> CoalesceStats {
    for c in lifted {
        let found = f.blocks[c.block].insts.iter().any(|i| i.dest == Some(c.copy) && i.op == Op::Copy(c.source));
        assert!(found, "`{} = copy {}` is not in {}: not a copy PhiLifting left", c.copy, c.source, c.block);
    }
    let live = compute_liveness(f);
    let intervals = compute_intervals(f, &live);
    let classes = phi_congruence_classes(f);

    // S_Q: a union-find over the classes, each root holding the union of its
    // members' live ranges.
    let mut q_parent: Vec<u32> = (0..classes.class_count() as u32).collect();
    let mut q_ranges: Vec<RangeSet> = (0..classes.class_count())
        .map(|c| {
            let members = classes.members(crate::analysis::cssa::ClassId::new(c));
            RangeSet::from_ranges(members.iter().flat_map(|&v| intervals.ranges(v).iter().copied()))
        })
        .collect();
    let mut rename: Vec<u32> = (0..f.value_count).collect();
    let mut removed_values: EntitySet<Value> = EntitySet::with_capacity(f.value_count as usize);
    let mut stats = CoalesceStats::default();

    for c in lifted {
        let v = c.copy;
        let a = resolve(&mut rename, c.source);
        debug_assert_eq!(resolve(&mut rename, v), v, "each copy is listed once");
        let qv = find(&mut q_parent, classes.class_of(v).0);
        let qa = find(&mut q_parent, classes.class_of(a).0);
        if qv != qa && !q_ranges[qv as usize].intersects(&q_ranges[qa as usize]) {
            let (root, other) = (qv.min(qa), qv.max(qa));
            let absorbed = std::mem::take(&mut q_ranges[other as usize]);
            let kept = std::mem::take(&mut q_ranges[root as usize]);
            q_ranges[root as usize] = RangeSet::union_disjoint(kept, absorbed);
            q_parent[other as usize] = root;
            rename[v.index()] = a.0;
            removed_values.insert(v);
            stats.removed += 1;
        } else {
            stats.kept_copies.push(*c);
            stats.kept += 1;
        }
    }

    for data in f.blocks.values_mut() {
        data.insts.retain(|i| !i.dest.is_some_and(|d| removed_values.contains(d)));
        for phi in &mut data.phis {
            for a in &mut phi.args {
                *a = resolve(&mut rename, *a);
            }
        }
        for inst in &mut data.insts {
            inst.op.map_args(|a| resolve(&mut rename, a));
        }
        data.term.map_arg(|a| resolve(&mut rename, a));
    }
    for c in &mut stats.kept_copies {
        c.source = resolve(&mut rename, c.source);
    }
    if crate::pass_manager::self_checks::in_checked_pass() {
        if let Err(e) = crate::analysis::cssa::check_cssa(f) {
            panic!("PhiMemCoalesce must keep the program in CSSA form: {e:?}");
        }
    }
    stats
}
