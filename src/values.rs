//! Values of variables and value-based interference: Boissinot et al.,
//! "Revisiting Out-of-SSA Translation for Correctness, Code Quality, and
//! Efficiency" (CGO 2009), §III-A.
//!
//! Needs: the dominator tree (`dominance.rs`) and the liveness
//! (`liveness.rs`) of a strict SSA function (one that passes the verifier).
//!
//! The value of a variable is computed by one traversal of the dominator
//! tree in pre-order: a copy `b = copy a` gives `b` the value of `a` (already
//! known, because in strict SSA the definition of `a` dominates the copy and
//! is visited first), and every other definition (parameter, phi, any other
//! operation) gives a new value. A value is named by the variable that
//! created it. Two variables with the same value hold the same bits wherever
//! both are defined: `b` is a copy of a copy ... of `a`, and SSA variables
//! never change.
//!
//! Two variables *intersect* when one is live at the definition of the
//! other. In strict SSA the definition of a variable dominates every point
//! where it is live, so only the variable whose definition dominates the
//! other's can be live there: [`intersect`] checks just that one (both, when
//! the two definitions are at the same point, like two phis of one block).
//! Two variables *interfere by value* ([`value_interfere`]) when they
//! intersect and have different values: where both are live they hold the
//! same bits, so they can share a name. `proofs-notes/out-of-ssa.md` argues
//! both claims.
//!
//! Definitions in unreachable blocks have no place in the dominator tree;
//! for them [`intersect`] falls back to the plain test of `liveness.rs`
//! (either one live at the other's definition), and each gets its own value.

use crate::dominance::DomTree;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Function, Op, Value};
use crate::liveness::{DefPoint, Interference, Liveness};

/// The value of every variable (§III-A), named by the variable that
/// created it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Values {
    value: EntityVec<Value, Value>,
}

impl Values {
    /// The value of `v`: `v` itself unless `v` is defined by a copy (of a
    /// copy ...) of another variable.
    pub fn value_of(&self, v: Value) -> Value {
        self.value.get(v).copied().unwrap_or(v)
    }
}

/// Computes the value of every variable by one pre-order traversal of the
/// dominator tree (see the module documentation).
pub fn compute_values(f: &Function, dom: &DomTree) -> Values {
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    // Every variable starts as its own value; copies are resolved in
    // dominance order, so the source of a copy is resolved before the copy.
    let mut value: EntityVec<Value, Value> = (0..n).map(Value::new).collect();
    for &b in &dom.preorder {
        for inst in &f.blocks[b].insts {
            if let (Some(d), Op::Copy(src)) = (inst.dest, &inst.op) {
                value[d] = value[*src];
            }
        }
    }
    Values { value }
}

/// The definition order and the intersection test of a function: the
/// dominator tree, the live sets at every definition point, and the values.
#[derive(Clone, Debug)]
pub struct ValueInterference<'a> {
    dom: &'a DomTree,
    interference: Interference<'a>,
    values: Values,
}

impl<'a> ValueInterference<'a> {
    /// Precomputes the live sets at every definition and the values of `f`.
    pub fn new(f: &Function, dom: &'a DomTree, live: &'a Liveness) -> Self {
        ValueInterference { dom, interference: Interference::new(f, live), values: compute_values(f, dom) }
    }

    /// The values of the function.
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// The value of `v`.
    pub fn value_of(&self, v: Value) -> Value {
        self.values.value_of(v)
    }

    /// The place of the definition of `v` in the dominance pre-DFS order:
    /// the pre-order number of its block in the dominator tree, then its
    /// position in the block (0 for parameters and phis, `i + 1` for the
    /// `i`-th instruction). `None` when `v` is not defined or is defined in
    /// an unreachable block.
    pub fn def_order(&self, v: Value) -> Option<(u32, u32)> {
        let (b, pos) = match self.interference.def_point(v)? {
            DefPoint::BlockStart(b) => (b, 0),
            DefPoint::Inst(b, i) => (b, i as u32 + 1),
        };
        self.dom.is_reachable(b).then(|| (self.dom.preorder_number(b), pos))
    }

    /// True when the definition of `a` dominates the definition of `b`
    /// (reflexive: two definitions at the same point, such as two phis of
    /// one block, dominate each other). False when either is not defined
    /// or unreachable.
    pub fn def_dominates(&self, a: Value, b: Value) -> bool {
        let (Some(pa), Some(pb)) = (self.interference.def_point(a), self.interference.def_point(b)) else {
            return false;
        };
        let split = |p: DefPoint| match p {
            DefPoint::BlockStart(blk) => (blk, 0),
            DefPoint::Inst(blk, i) => (blk, i + 1),
        };
        let ((ba, ia), (bb, ib)) = (split(pa), split(pb));
        if ba == bb {
            self.dom.is_reachable(ba) && ia <= ib
        } else {
            self.dom.strictly_dominates(ba, bb)
        }
    }

    /// True when `v` is live at the definition of `w` (the live set right
    /// after `w`'s instruction, or at the start of its block for a phi or a
    /// parameter).
    pub fn live_at_def(&self, v: Value, w: Value) -> bool {
        self.interference.live_at_def(v, w)
    }
}

/// True when `a` and `b` intersect: they differ and one is live at the
/// definition of the other. Only the variable whose definition dominates
/// the other's is tested (both, when each dominates the other); see the
/// module documentation.
pub fn intersect(ctx: &ValueInterference<'_>, a: Value, b: Value) -> bool {
    if a == b {
        return false;
    }
    if ctx.def_order(a).is_none() || ctx.def_order(b).is_none() {
        return ctx.interference.interfere(a, b);
    }
    (ctx.def_dominates(a, b) && ctx.live_at_def(a, b)) || (ctx.def_dominates(b, a) && ctx.live_at_def(b, a))
}

/// True when `a` and `b` interfere by value (§III-A): they intersect and
/// have different values.
pub fn value_interfere(ctx: &ValueInterference<'_>, a: Value, b: Value) -> bool {
    ctx.value_of(a) != ctx.value_of(b) && intersect(ctx, a, b)
}
