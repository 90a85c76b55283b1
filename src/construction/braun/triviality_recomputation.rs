//! The witness cache of Braun et al.'s trivial-phi test ("Simple and
//! Efficient Construction of Static Single Assignment Form", CC 2013,
//! §3.1) and the alias links it reads, checked against a recomputation
//! from the phi's operands, for the self-checks (`pass_manager/self_checks.rs`).
//!
//! Needs: the phi's operands and the alias links, as `trivial_phi.rs`
//! reads them.
//!
//! `trivial_phi.rs` answers "is this phi trivial?" from two remembered
//! operands (the witnesses) when they still differ, and otherwise scans
//! only the operands after the second witness; the alias links are
//! shortened (path halving) whenever they are followed. Here each operand
//! is resolved by following the links to their end without changing them,
//! and the distinct operands other than the phi itself are counted: none
//! means the phi merges only itself, one means it is trivial, two or more
//! that it is not. Costs the phi's operands times the link lengths, about
//! what the test without the cache costs.

use crate::entity::EntityRef;
use crate::ir::Value;
use crate::pass_manager::self_checks;

/// Panics when `answer` (as `trivial_phi.rs` returns it: `None` for not
/// trivial, `Some(Some(v))` for trivial with `v`, `Some(None)` for merging
/// only itself) is not what the operands `args` of `phi` say under the
/// alias links `alias`.
pub(super) fn check_triviality(phi: Value, args: &[Value], alias: &[Value], answer: Option<Option<Value>>) {
    self_checks::count();
    let resolve = |mut v: Value| {
        while alias[v.index()] != v {
            v = alias[v.index()];
        }
        v
    };
    let mut others: Vec<Value> = args.iter().map(|&a| resolve(a)).filter(|&a| a != phi).collect();
    others.sort_unstable();
    others.dedup();
    let expected = match others[..] {
        [] => Some(None),
        [v] => Some(Some(v)),
        _ => None,
    };
    assert!(
        answer == expected,
        "self-check of the trivial-phi test: phi v{} over {:?} was found {:?}, but its operands say {:?}",
        phi.index(),
        others,
        answer,
        expected
    );
}
