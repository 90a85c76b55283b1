//! The registers whose clobbers each variable and each class of the
//! coalescing is live at, as a bit mask per variable (found once, from the
//! variable's live range: [`live_clobber_mask`]) and per class (the union
//! of its members' masks, kept as classes merge). Boissinot et al.'s
//! renaming constraints (§III-D) forbid a class labeled with a register
//! from taking a variable live where a constrained division or call
//! destroys that register; with the masks, that test costs one lookup per
//! query instead of a walk over the other class's live ranges, which
//! would make coalescing quadratic in the number of divisions and calls.

use crate::ir::Value;
use crate::out_of_ssa::renaming_constraints::{live_clobber_mask, ClobberIndex, FixedReg};
use crate::out_of_ssa::values::ValueInterference;
use rustc_hash::FxHashMap;

/// The clobber masks of the variables and classes of one coalescing.
#[derive(Clone, Debug, Default)]
pub struct ClobberMasks {
    index: ClobberIndex,
    /// Each variable's mask, once asked for.
    vars: FxHashMap<Value, u8>,
    /// Each class's mask, by root: absent until asked for, then kept up
    /// to date by [`ClobberMasks::merge`].
    classes: FxHashMap<Value, u8>,
}

impl ClobberMasks {
    /// The masks of the clobbers of `index`.
    pub fn new(index: ClobberIndex) -> Self {
        ClobberMasks { index, vars: FxHashMap::default(), classes: FxHashMap::default() }
    }

    fn of_var(&mut self, ctx: &ValueInterference<'_>, v: Value) -> u8 {
        let index = &self.index;
        *self.vars.entry(v).or_insert_with(|| live_clobber_mask(index, ctx, v))
    }

    /// The mask of the class whose root is `root` and whose members
    /// `members` lists.
    fn of_class(&mut self, ctx: &ValueInterference<'_>, root: Value, members: impl FnOnce() -> Vec<Value>) -> u8 {
        if let Some(&m) = self.classes.get(&root) {
            return m;
        }
        let m = members().into_iter().fold(0, |m, v| m | self.of_var(ctx, v));
        self.classes.insert(root, m);
        m
    }

    /// True when a member of the class `root` (its members listed by
    /// `members`) is live at a clobber of `label`.
    pub fn class_conflicts(
        &mut self,
        ctx: &ValueInterference<'_>,
        label: FixedReg,
        root: Value,
        members: impl FnOnce() -> Vec<Value>,
    ) -> bool {
        !self.index.is_empty() && self.of_class(ctx, root, members) & label.bit() != 0
    }

    /// Records that the classes `root` and `child` (roots, distinct) become
    /// one with root `root`; `members` lists a class's members before the
    /// merge. A class whose mask is known keeps it known, so each member is
    /// listed for its class's mask at most once.
    pub fn merge(
        &mut self,
        ctx: &ValueInterference<'_>,
        root: Value,
        child: Value,
        members: impl Fn(Value) -> Vec<Value>,
    ) {
        let (a, b) = (self.classes.remove(&root), self.classes.remove(&child));
        if a.is_none() && b.is_none() {
            return;
        }
        let a = a.unwrap_or_else(|| self.of_class(ctx, root, || members(root)));
        let b = b.unwrap_or_else(|| self.of_class(ctx, child, || members(child)));
        self.classes.remove(&child);
        self.classes.insert(root, a | b);
    }
}
