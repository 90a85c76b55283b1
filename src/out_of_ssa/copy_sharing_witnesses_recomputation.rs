//! The witness lists of copy sharing (`copy_sharing_witnesses.rs`)
//! recomputed pair by pair, for the self-checks
//! (`pass_manager/self_checks.rs`).
//!
//! Needs: what `copy_sharing_witnesses::witnesses` was given, and its
//! answer.
//!
//! `copy_sharing_witnesses.rs` finds, for each copy `dest = copy source`,
//! the candidates `c` that may witness it by a walk down the dominator tree
//! that enters a block only where `c` is live-in, and asks the question of
//! Boissinot et al. ("Revisiting Out-of-SSA Translation", CGO 2009, §III-B)
//! only at the copies it meets. Here every candidate of the copy's list is
//! asked directly: `c` is neither `dest` nor `source`, `c`'s definition
//! dominates `dest`'s when both are reachable, and `c` is live at `dest`'s
//! definition. A walk that prunes too much (or a block list that misses a
//! copy) then shows as a witness missing from the answer.
//!
//! That costs (copies) × (candidates per copy), which the walk exists to
//! avoid: above [`PAIR_BUDGET`] pairs, one copy in a stride is checked, the
//! stride making the pairs about the budget.

use crate::entity::EntityRef;
use crate::ir::Value;
use crate::out_of_ssa::values::ValueInterference;
use crate::pass_manager::self_checks;

/// Pairs asked at most, about, per call.
pub const PAIR_BUDGET: usize = 20_000;

/// Compares `answer[i]`, the witnesses found for copy `i` (`copy(i)` gives
/// its destination and source), with the
/// candidates of its group (`groups[group_of[i]]`) asked one by one, for
/// every copy or a deterministic sample (module documentation); panics on
/// the first difference.
pub fn check_witnesses(
    ctx: &ValueInterference<'_>,
    copy: impl Fn(usize) -> (Value, Value),
    groups: &[Vec<Value>],
    group_of: &[Option<usize>],
    answer: &[Vec<Value>],
) {
    self_checks::count();
    let pairs: usize = group_of.iter().map(|g| g.map_or(0, |g| groups[g].len())).sum();
    let stride = pairs.div_ceil(PAIR_BUDGET).max(1);
    for i in (0..answer.len()).step_by(stride) {
        let (dest, source) = copy(i);
        let expected: Vec<Value> = match group_of[i] {
            None => Vec::new(),
            Some(g) => groups[g]
                .iter()
                .copied()
                .filter(|&c| {
                    let both_reachable = ctx.def_order(c).is_some() && ctx.def_order(dest).is_some();
                    c != dest
                        && c != source
                        && (!both_reachable || ctx.def_dominates(c, dest))
                        && ctx.live_at_def(c, dest)
                })
                .collect(),
        };
        let names = |l: &[Value]| l.iter().map(|v| format!("v{}", v.index())).collect::<Vec<_>>().join(" ");
        assert!(
            answer[i] == expected,
            "self-check of the copy-sharing witnesses: copy v{} = copy v{} has witnesses [{}] but should have [{}]",
            dest.index(),
            source.index(),
            names(&answer[i]),
            names(&expected)
        );
    }
}
