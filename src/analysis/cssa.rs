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

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::{compute_liveness, DefPoint, Interference};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, Function, Value};
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
///
/// # Cost: the dominance forest
///
/// Testing every pair of a class costs the square of its size, and the
/// classes of a large function hold thousands of values.
/// Each class is first tested along its *dominance forest* (Budimlić et
/// al., "Fast Copy Coalescing and Live-Range Identification", PLDI 2002;
/// Boissinot et al., CGO 2009, §IV-B): its members sorted by definition
/// point in dominator-tree pre-order, each one's parent being the nearest
/// earlier member whose definition dominates its own. A class has an
/// interfering pair only if some member interferes with its parent: if `a`
/// is live at the definition of `b` (so `a`'s definition dominates `b`'s),
/// it is live at the definition of every member `c` on the forest path
/// between them (every path from `c`'s definition to `b`'s avoids `a`'s
/// definition, which strictly dominates `c`'s), in particular at `b`'s
/// parent, and so on up to `a`'s child on the path. The phis of one block
/// (and the parameters) are defined together at its start; among them the
/// pre-order puts the lower value first, which the argument allows since
/// the point is the same. So the forest decides the class with one query
/// per member; only a class it finds interfering is tested pair by pair,
/// for the error to name the first pair as before.
pub fn check_cssa(f: &Function) -> Result<(), CssaError> {
    crate::pass_manager::self_checks::count();
    let classes = phi_congruence_classes(f);
    let live = compute_liveness(f);
    let interference = Interference::new(f, &live);
    let dom = DomTree::compute(f);
    // Definition order: (pre-order number of the block, position: 0 at
    // the block start, i + 1 for instruction i).
    let order = |v: Value| match interference.def_point(v) {
        Some(DefPoint::BlockStart(b)) => Some((b, dom.preorder_number(b), 0)),
        Some(DefPoint::Inst(b, i)) => Some((b, dom.preorder_number(b), i + 1)),
        None => None,
    };
    let def_dominates = |a: (Block, u32, usize), b: (Block, u32, usize)| {
        if a.0 == b.0 {
            a.2 <= b.2
        } else {
            dom.dominates(a.0, b.0)
        }
    };
    for c in classes.nontrivial() {
        let members = classes.members(c);
        let mut sorted: Vec<((Block, u32, usize), Value)> = Vec::with_capacity(members.len());
        let mut undefined = false;
        for &v in members {
            match order(v) {
                Some(o) if dom.is_reachable(o.0) => sorted.push((o, v)),
                // Outside the forest: test the class pair by pair.
                _ => undefined = true,
            }
        }
        sorted.sort_by_key(|&((_, pre, pos), v)| (pre, pos, v));
        let mut suspect = undefined;
        let mut stack: Vec<((Block, u32, usize), Value)> = Vec::new();
        for &(o, v) in &sorted {
            while stack.last().is_some_and(|&(p, _)| !def_dominates(p, o)) {
                stack.pop();
            }
            if let Some(&(_, p)) = stack.last() {
                if interference.interfere(p, v) {
                    suspect = true;
                    break;
                }
            }
            stack.push((o, v));
        }
        if !suspect {
            continue;
        }
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

/// [`check_cssa`] by testing every pair of every class, for the tests that
/// show the dominance forest finds the same classes.
pub fn check_cssa_pairwise(f: &Function) -> Result<(), CssaError> {
    crate::pass_manager::self_checks::count();
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
