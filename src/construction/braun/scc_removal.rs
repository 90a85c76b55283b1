//! `removeRedundantPhis`, Algorithm 5 of Braun et al. ("Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013, §3.2): removal of
//! redundant phi SCCs, which makes the result minimal on irreducible control
//! flow too. Tarjan's algorithm is `crate::analysis::scc::tarjan_sccs_flat`.

use super::state::{resolve_in, Builder};
use super::trivial_phi::trivial_operand;
use crate::analysis::scc::tarjan_sccs_flat;
use crate::entity::EntityRef;
use crate::ir::Value;

/// Phi SCCs in topological order (operands first): component `k` is
/// `members[ends[k-1]..ends[k]]`, all in two vectors.
struct PhiSccs {
    members: Vec<Value>,
    ends: Vec<u32>,
}

impl PhiSccs {
    fn component(&self, k: usize) -> &[Value] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.members[start..self.ends[k] as usize]
    }
}

/// The entry of `Builder::scc_index` of a value outside the set at hand.
const NOT_IN_SET: u32 = u32::MAX;

impl Builder {
    /// Algorithm 5, `removeRedundantPhis`, with the recursion on inner phi
    /// sets replaced by a stack of jobs.
    pub(super) fn remove_redundant_phis(&mut self, phis: Vec<Value>) {
        // Phis that died before Alg. 5 started; while no other has died, no
        // operand resolves differently than when Alg. 3 last looked at its
        // phi, which it left non-trivial, so a singleton needs no re-check.
        let died_before = self.phis_died();
        // A job is a list of SCCs in topological order (operands first) and
        // the position of the next SCC to process.
        let mut jobs: Vec<(PhiSccs, usize)> = vec![(self.phi_sccs(&phis), 0)];
        while let Some((sccs, next)) = jobs.last_mut() {
            if *next == sccs.ends.len() {
                jobs.pop();
                continue;
            }
            let i = *next;
            *next += 1;
            if let [phi] = *sccs.component(i) {
                // The printed algorithm skips singletons as already handled,
                // but contracting an earlier SCC can make one trivial again.
                self.recheck_singleton(phi, died_before);
                continue;
            }
            let scc: Vec<Value> = sccs.component(i).iter().copied().filter(|&p| self.is_live_phi(p)).collect();
            if let Some(inner) = self.process_scc(&scc, died_before) {
                // A job whose components are all processed is dropped
                // before its inner job runs (a tail call): on a nest of
                // loops each level is one SCC whose inner set is the next
                // level, and keeping every level's components would hold
                // (phis) × (levels) values at once.
                if jobs.last().is_some_and(|(sccs, next)| *next == sccs.ends.len()) {
                    jobs.pop();
                }
                let inner_sccs = self.phi_sccs(&inner);
                jobs.push((inner_sccs, 0));
            }
        }
    }

    /// Phis removed so far, as trivial (Alg. 3) or in a redundant SCC.
    fn phis_died(&self) -> usize {
        self.stats.trivial_removed + self.stats.scc_removed
    }

    /// Re-checks a singleton SCC (Alg. 3) if some phi died since Alg. 5
    /// started with `died_before` dead: only then can its operands have
    /// changed since Alg. 3 found it non-trivial (note (b) of
    /// `proofs-notes/ssa-construction.md`).
    fn recheck_singleton(&mut self, phi: Value, died_before: usize) {
        if self.phis_died() != died_before {
            self.try_remove_trivial_phi(phi);
            return;
        }
        debug_assert!(
            self.phis.get(&phi).is_none_or(|d| trivial_operand(&d.args, &mut self.alias, phi).is_none()),
            "{phi} is trivial at the start of Alg. 5"
        );
    }

    /// `processSCC` of Alg. 5. Returns the `inner` set to recurse on.
    ///
    /// Membership in the SCC is a mark in `scc_index` (cleared before
    /// returning), and of the operands from outside only the first and
    /// whether there is a second distinct one are kept: that is all the
    /// algorithm asks of `outerOps`, and a list searched for each operand
    /// would be quadratic in a large SCC.
    fn process_scc(&mut self, scc: &[Value], died_before: usize) -> Option<Vec<Value>> {
        if scc.is_empty() {
            return None;
        }
        if scc.len() == 1 {
            // As above: a singleton can have become trivial.
            self.recheck_singleton(scc[0], died_before);
            return None;
        }
        const MEMBER: u32 = 0;
        if self.scc_index.len() < self.value_count as usize {
            self.scc_index.resize(self.value_count as usize, NOT_IN_SET);
        }
        for &phi in scc {
            self.scc_index[phi.index()] = MEMBER;
        }
        let mut inner = Vec::new();
        let mut outer: Option<Value> = None;
        let mut several_outer = false;
        let (table, alias, index_of) = (&self.phis, &mut self.alias, &self.scc_index);
        for &phi in scc {
            let mut is_inner = true;
            for &a in &table[&phi].args {
                let a = resolve_in(alias, a);
                if index_of[a.index()] != MEMBER {
                    match outer {
                        None => outer = Some(a),
                        Some(o) if o != a => several_outer = true,
                        Some(_) => {}
                    }
                    is_inner = false;
                }
            }
            if is_inner {
                inner.push(phi);
            }
        }
        let recurse = match (outer, several_outer) {
            // Unreachable: cannot happen after unreachable code is removed.
            (None, _) => None,
            (Some(v), false) => {
                for &phi in scc {
                    let users = self.remove_phi(phi);
                    self.set_alias(phi, v);
                    self.stats.scc_removed += 1;
                    let index_of = &self.scc_index;
                    if let Some(vd) = self.phis.get_mut(&v) {
                        vd.users.extend(users.into_iter().filter(|u| index_of[u.index()] != MEMBER));
                    }
                }
                None
            }
            (Some(_), true) => (!inner.is_empty()).then_some(inner),
        };
        for &phi in scc {
            self.scc_index[phi.index()] = NOT_IN_SET;
        }
        recurse
    }

    /// SCCs of the subgraph induced by `phis` (edges from a phi to its phi
    /// operands), in topological order with operands first: Tarjan's
    /// algorithm emits an SCC after every SCC it reaches, which is that
    /// order. Iterative. The position of each phi in `phis` is kept in
    /// `scc_index`, a dense vector indexed by value (`NOT_IN_SET` elsewhere),
    /// which is reset before returning, so each call costs the size of
    /// `phis` and their operands. The graph and the components are flat
    /// vectors (`tarjan_sccs_flat`): with one vector per phi, the
    /// allocations cost more than the search (all live phis are searched
    /// once when the function is finished).
    fn phi_sccs(&mut self, phis: &[Value]) -> PhiSccs {
        self.stats.scc_searched += phis.len();
        let mut index_of = std::mem::take(&mut self.scc_index);
        if index_of.len() < self.value_count as usize {
            index_of.resize(self.value_count as usize, NOT_IN_SET);
        }
        for (i, &p) in phis.iter().enumerate() {
            index_of[p.index()] = u32::try_from(i).expect("fewer than 2^32 phis");
        }
        let (table, alias) = (&self.phis, &mut self.alias);
        let mut starts: Vec<u32> = Vec::with_capacity(phis.len() + 1);
        let mut targets: Vec<u32> = Vec::new();
        starts.push(0);
        for p in phis {
            targets.extend(
                table[p].args.iter().map(|&a| index_of[resolve_in(alias, a).index()]).filter(|&i| i != NOT_IN_SET),
            );
            starts.push(u32::try_from(targets.len()).expect("fewer than 2^32 phi operands"));
        }
        for &p in phis {
            index_of[p.index()] = NOT_IN_SET;
        }
        self.scc_index = index_of;
        let flat = tarjan_sccs_flat(&starts, &targets);
        PhiSccs { members: flat.members.iter().map(|&i| phis[i as usize]).collect(), ends: flat.ends }
    }
}
