//! The cross-check of out-of-ssa's two liveness methods (Boissinot et al.,
//! "Revisiting Out-of-SSA Translation", CGO 2009, §IV-A): the live-in and
//! live-out sets of data-flow analysis (`analysis/liveness.rs`) against the
//! answers of the fast liveness check (`liveness_check.rs`, Boissinot et
//! al. CGO 2008), which needs no sets. The two share no code beyond the IR
//! and the edge convention (`liveness::out_edges`), and
//! `liveness_check.rs` answers with the conventions of `liveness.rs`, so
//! they must agree on every value at every reachable block.
//!
//! Campaigns run it on every program out-of-ssa translates
//! (`OutOfSsaOptions::cross_check`), whichever method the configuration
//! uses: a mistake of either method is then found even where the other
//! method, being the one in use, would have hidden it.
//!
//! The comparison costs (blocks) × (values) queries: quadratic in the size
//! of the function. Above `pass_manager::sampling::SAMPLE_ABOVE` instructions
//! and phis (unless `--full-checks`) it compares every value at
//! `SAMPLED_BLOCKS` blocks only, evenly spaced in block order, and says so
//! (`pass_manager/sampling.rs`): agreement at the other blocks is then not
//! checked.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::Liveness;
use crate::entity::EntityRef;
use crate::ir::{Block, Function, Value};
use crate::out_of_ssa::liveness_check::LivenessCheck;
use crate::pass_manager::sampling;

pub use crate::error::out_of_ssa_errors::LivenessDisagreement;

/// Compares the sets with the check at every reachable block of `f`, for
/// every value of `f`; the first disagreement is the error.
pub fn cross_check_liveness(f: &Function, sets: &Liveness, check: &LivenessCheck) -> Result<(), LivenessDisagreement> {
    crate::pass_manager::self_checks::count();
    let dom: &DomTree = check.dom();
    let reachable: Vec<Block> = f.blocks.keys().filter(|&b| dom.is_reachable(b)).collect();
    let size = f.blocks.values().map(|d| d.insts.len() + d.phis.len()).sum::<usize>();
    let blocks: Vec<Block> = if sampling::should_sample(size) {
        let picked = sampling::evenly_spaced(reachable.len(), sampling::SAMPLED_BLOCKS);
        sampling::note_sampled(format!(
            "out-of-ssa's liveness cross-check: sets = check at every value of {} evenly spaced blocks, not at all {}",
            picked.len(),
            reachable.len()
        ));
        picked.into_iter().map(|i| reachable[i]).collect()
    } else {
        reachable
    };
    for b in blocks {
        let (Some(live_in), Some(live_out)) = (sets.live_in.get(b), sets.live_out.get(b)) else {
            return Err(LivenessDisagreement::MissingBlock(b));
        };
        for i in 0..f.value_count as usize {
            let v = Value::new(i);
            let (set_in, check_in) = (live_in.contains(v), check.live_in(v, b));
            if set_in != check_in {
                return Err(LivenessDisagreement::LiveIn { value: v, block: b, by_sets: set_in });
            }
            let (set_out, check_out) = (live_out.contains(v), check.live_out(v, b));
            if set_out != check_out {
                return Err(LivenessDisagreement::LiveOut { value: v, block: b, by_sets: set_out });
            }
        }
    }
    Ok(())
}
