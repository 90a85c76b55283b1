//! Phi-congruence classes and the CSSA check: Pereira and Palsberg, "SSA
//! Elimination after Register Allocation" (CC 2009), §3, Definition 1, and
//! Pereira, "The Design and Implementation of a SSA-based Register
//! Allocator", §4.3 (ϕ-analysis).
//!
//! Needs: nothing for the classes; the liveness of `liveness.rs` for the
//! check.
//!
//! `≡` is the smallest equivalence relation such that, for every phi
//! `v_i = φ(v_i1, ..., v_im)`, `v_i ≡ v_i1 ≡ ... ≡ v_im`; its classes are
//! Sreedhar et al.'s phi-congruence classes. A program is in CSSA form when
//! no two values of one class interfere (Definition 1), interference being
//! Lemma 1 of Pereira (`liveness::interfere`).

use crate::analysis::liveness::{compute_liveness, Interference};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Function, Value};
use std::fmt;

crate::entity!(
    /// A phi-congruence class.
    ClassId,
    "q"
);

/// A partition of the value numbers `0..value_count` into phi-congruence
/// classes. Numbers that are not defined are alone in their class. Classes
/// are numbered in the order of their smallest member, and the members of a
/// class are listed in increasing order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PhiClasses {
    class: EntityVec<Value, ClassId>,
    members: EntityVec<ClassId, Vec<Value>>,
}

impl PhiClasses {
    /// The class of `v`; `v` must be below the function's `value_count`.
    pub fn class_of(&self, v: Value) -> ClassId {
        self.class[v]
    }

    /// The members of class `c`, in increasing order.
    pub fn members(&self, c: ClassId) -> &[Value] {
        &self.members[c]
    }

    /// The number of classes.
    pub fn class_count(&self) -> usize {
        self.members.len()
    }

    /// The classes with more than one member.
    pub fn nontrivial(&self) -> impl Iterator<Item = ClassId> + '_ {
        self.members.iter().filter(|(_, m)| m.len() > 1).map(|(c, _)| c)
    }

    /// Builds the partition from a union-find forest over `0..n`.
    fn from_union_find(parent: &mut [u32]) -> Self {
        let n = parent.len();
        let mut class = EntityVec::from_elem(ClassId(u32::MAX), n);
        let mut members: EntityVec<ClassId, Vec<Value>> = EntityVec::new();
        let mut root_class = vec![u32::MAX; n];
        for i in 0..n {
            let r = find(parent, i as u32) as usize;
            if root_class[r] == u32::MAX {
                root_class[r] = members.push(Vec::new()).0;
            }
            let c = ClassId(root_class[r]);
            class[Value::new(i)] = c;
            members[c].push(Value::new(i));
        }
        PhiClasses { class, members }
    }
}

/// The root of `x` in a union-find forest, halving paths on the way.
pub(crate) fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let grand = parent[parent[x as usize] as usize];
        parent[x as usize] = grand;
        x = grand;
    }
    x
}

/// The phi-congruence classes of `f`: the smallest equivalence with each
/// phi's destination equivalent to each of its arguments.
pub fn phi_congruence_classes(f: &Function) -> PhiClasses {
    let mut n = f.value_count as usize;
    f.for_each_value_mention(|v| n = n.max(v.index() + 1));
    let mut parent: Vec<u32> = (0..n as u32).collect();
    for data in f.blocks.values() {
        for phi in &data.phis {
            for &a in &phi.args {
                let (x, y) = (find(&mut parent, phi.dest.0), find(&mut parent, a.0));
                if x != y {
                    parent[x.max(y) as usize] = x.min(y);
                }
            }
        }
    }
    PhiClasses::from_union_find(&mut parent)
}

/// Two values of one phi-congruence class interfere: the program is not in
/// CSSA form.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CssaError {
    /// The function's name.
    pub function: String,
    /// The class holding both values.
    pub class: ClassId,
    /// The two interfering values, `a < b`.
    pub a: Value,
    pub b: Value,
}

impl fmt::Display for CssaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "function `{}` is not in CSSA form: {} and {} are in phi-congruence class {} and interfere",
            self.function, self.a, self.b, self.class
        )
    }
}

impl std::error::Error for CssaError {}

/// Checks that `f` is in CSSA form (Definition 1 of Pereira and Palsberg):
/// no two members of a phi-congruence class interfere. The error names the
/// first class, in class order, with an interfering pair, and the first such
/// pair in member order.
pub fn check_cssa(f: &Function) -> Result<(), CssaError> {
    let classes = phi_congruence_classes(f);
    let live = compute_liveness(f);
    let interference = Interference::new(f, &live);
    for c in classes.nontrivial() {
        let members = classes.members(c);
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                if interference.interfere(a, b) {
                    return Err(CssaError { function: f.name.clone(), class: c, a, b });
                }
            }
        }
    }
    Ok(())
}
