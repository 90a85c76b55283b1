//! The possible witnesses of copy sharing: Boissinot et al., "Revisiting
//! Out-of-SSA Translation for Correctness, Code Quality, and Efficiency"
//! (CGO 2009), §III-B ("a copy `a ↦ b` can be removed if some variable
//! `c` with the same value as `a` is live just after it") and the
//! `Sharing` variant of §III-E, used by `coalescing.rs`.
//!
//! Needs: the [`ValueInterference`] of a strict SSA function (dominance,
//! liveness, values, definition points).
//!
//! For each copy `dest = copy source`, the variables `c` of a given list
//! (the copy-related variables with the value of `source`) such that `c`
//! is neither `dest` nor `source`, the definition of `c` dominates that of
//! `dest` (when both are reachable), and `c` is live at the definition of
//! `dest`. The coalescer then walks this list, in increasing variable
//! order, for the first witness that lets the copy go; which one does
//! depends on the classes at that moment, but the list itself does not.
//!
//! Testing every variable of the value against every copy of it costs
//! (copies of one value)², and in a large function one variable can be
//! copied into tens of thousands of phis. Here the list is found from the
//! other side, one variable `c` at a time, by a walk down the dominator
//! tree from the block of `c`'s definition that enters a block only where
//! `c` is live-in. In strict SSA that walk misses nothing: if `c` is live
//! at a point of block `q` and its definition in block `d ≠ q` dominates
//! `q`, then `c` is live-in at `q` and at every block between `d` and `q`
//! on the dominator-tree path (a path from such a block `k` to `q` that
//! passed through `d` would give a path from the entry to `q` around `k`,
//! which `k` dominates). The cost is the number of blocks where the
//! variables are live, plus their dominator-tree children, in liveness
//! queries; the copies of the block where `c` is defined or live-in are
//! then asked the original question. Variables or copies in unreachable
//! blocks are tested pairwise, as before.

use crate::analysis::liveness::DefPoint;
use crate::ir::{Block, Value};
use crate::out_of_ssa::copy_sharing_witnesses_recomputation;
use crate::out_of_ssa::values::ValueInterference;
use crate::pass_manager::self_checks;
use rustc_hash::FxHashMap;

/// A copy, for the witness search: its destination and source.
#[derive(Clone, Copy, Debug)]
pub struct CopyPair {
    pub dest: Value,
    pub source: Value,
}

/// True when `c` may witness the copy `p` (see the module documentation):
/// the test the lists below are made of, asked pair by pair.
fn may_witness(ctx: &ValueInterference<'_>, c: Value, p: CopyPair) -> bool {
    let reachable = |v: Value| ctx.def_order(v).is_some();
    let cannot_be_live = reachable(c) && reachable(p.dest) && !ctx.def_dominates(c, p.dest);
    !(c == p.dest || c == p.source || cannot_be_live || !ctx.live_at_def(c, p.dest))
}

/// For each copy of `copies`, the variables of `candidates(copy)` that may
/// witness it, in increasing order. `groups` holds the candidate lists, each
/// sorted and without repeats; `group_of[i]` is the index in `groups` of the
/// list of copy `i` (`None`: no candidates).
pub fn witnesses(
    ctx: &ValueInterference<'_>,
    copies: &[CopyPair],
    groups: &[Vec<Value>],
    group_of: &[Option<usize>],
) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![Vec::new(); copies.len()];
    let block_of = |v: Value| match ctx.def_point(v) {
        Some(DefPoint::BlockStart(b) | DefPoint::Inst(b, _)) if ctx.def_order(v).is_some() => Some(b),
        _ => None,
    };
    // The reachable copies of each group by the block of their definition;
    // the copies defined in unreachable blocks are tested pairwise.
    let mut at: FxHashMap<(usize, Block), Vec<usize>> = FxHashMap::default();
    let mut reachable_copies: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
    let mut has_copies = vec![false; groups.len()];
    for (i, p) in copies.iter().enumerate() {
        let Some(g) = group_of[i] else { continue };
        has_copies[g] = true;
        match block_of(p.dest) {
            Some(b) => {
                at.entry((g, b)).or_default().push(i);
                reachable_copies[g].push(i);
            }
            None => out[i] = groups[g].iter().copied().filter(|&c| may_witness(ctx, c, *p)).collect(),
        }
    }
    let dom = ctx.dom();
    let mut stack: Vec<Block> = Vec::new();
    for (g, list) in groups.iter().enumerate() {
        if !has_copies[g] {
            continue;
        }
        for &c in list {
            let Some(d) = block_of(c) else {
                // `c` unreachable: asked about every reachable copy of the
                // group (the unreachable ones had every candidate above).
                for &i in &reachable_copies[g] {
                    if may_witness(ctx, c, copies[i]) {
                        out[i].push(c);
                    }
                }
                continue;
            };
            let visit = |b: Block, out: &mut Vec<Vec<Value>>| {
                if let Some(idx) = at.get(&(g, b)) {
                    for &i in idx {
                        if may_witness(ctx, c, copies[i]) {
                            out[i].push(c);
                        }
                    }
                }
            };
            visit(d, &mut out);
            stack.clear();
            stack.extend(dom.children[d].iter().copied());
            while let Some(b) = stack.pop() {
                if ctx.live_in(c, b) {
                    visit(b, &mut out);
                    stack.extend(dom.children[b].iter().copied());
                }
            }
        }
    }
    for l in &mut out {
        l.sort_unstable();
        l.dedup();
    }
    if self_checks::in_checked_pass() {
        copy_sharing_witnesses_recomputation::check_witnesses(
            ctx,
            |i| (copies[i].dest, copies[i].source),
            groups,
            group_of,
            &out,
        );
    }
    out
}
