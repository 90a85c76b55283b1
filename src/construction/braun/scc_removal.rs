//! `removeRedundantPhis`, Algorithm 5 of Braun et al. ("Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013, §3.2): removal of
//! redundant phi SCCs, which makes the result minimal on irreducible control
//! flow too. Tarjan's algorithm is `crate::analysis::scc::tarjan_sccs`.

use super::state::{resolve_in, Builder};
use crate::analysis::scc::tarjan_sccs;
use crate::entity::EntityRef;
use crate::ir::Value;

impl Builder {
    /// Algorithm 5, `removeRedundantPhis`, with the recursion on inner phi
    /// sets replaced by a stack of jobs.
    pub(super) fn remove_redundant_phis(&mut self, phis: Vec<Value>) {
        // A job is a list of SCCs in topological order (operands first) and
        // the position of the next SCC to process.
        let mut jobs: Vec<(Vec<Vec<Value>>, usize)> = vec![(self.phi_sccs(&phis), 0)];
        while let Some((sccs, next)) = jobs.last_mut() {
            if *next == sccs.len() {
                jobs.pop();
                continue;
            }
            let i = *next;
            *next += 1;
            if let [phi] = sccs[i][..] {
                // The printed algorithm skips singletons as already handled,
                // but contracting an earlier SCC can make one trivial again.
                self.try_remove_trivial_phi(phi);
                continue;
            }
            let scc: Vec<Value> = sccs[i].iter().copied().filter(|&p| self.is_live_phi(p)).collect();
            if let Some(inner) = self.process_scc(&scc) {
                let inner_sccs = self.phi_sccs(&inner);
                jobs.push((inner_sccs, 0));
            }
        }
    }

    /// `processSCC` of Alg. 5. Returns the `inner` set to recurse on.
    fn process_scc(&mut self, scc: &[Value]) -> Option<Vec<Value>> {
        if scc.is_empty() {
            return None;
        }
        if scc.len() == 1 {
            // As above: a singleton can have become trivial.
            self.try_remove_trivial_phi(scc[0]);
            return None;
        }
        let members: std::collections::HashSet<Value> = scc.iter().copied().collect();
        let mut inner = Vec::new();
        let mut outer_ops: Vec<Value> = Vec::new();
        for &phi in scc {
            let args = self.phis[&phi].args.clone();
            let mut is_inner = true;
            for a in args {
                let a = self.resolve(a);
                if !members.contains(&a) {
                    if !outer_ops.contains(&a) {
                        outer_ops.push(a);
                    }
                    is_inner = false;
                }
            }
            if is_inner {
                inner.push(phi);
            }
        }
        match outer_ops.len() {
            // Unreachable: cannot happen after unreachable code is removed.
            0 => None,
            1 => {
                let v = outer_ops[0];
                for &phi in scc {
                    let users = self.remove_phi(phi);
                    self.set_alias(phi, v);
                    self.stats.scc_removed += 1;
                    if let Some(vd) = self.phis.get_mut(&v) {
                        vd.users.extend(users.into_iter().filter(|u| !members.contains(u)));
                    }
                }
                None
            }
            _ => (!inner.is_empty()).then_some(inner),
        }
    }

    /// SCCs of the subgraph induced by `phis` (edges from a phi to its phi
    /// operands), in topological order with operands first: Tarjan's
    /// algorithm emits an SCC after every SCC it reaches, which is that
    /// order. Iterative. The position of each phi in `phis` is kept in
    /// `scc_index`, a dense vector indexed by value (`NOT_IN_SET` elsewhere),
    /// which is reset before returning, so each call costs the size of
    /// `phis` and their operands.
    fn phi_sccs(&mut self, phis: &[Value]) -> Vec<Vec<Value>> {
        const NOT_IN_SET: u32 = u32::MAX;
        let mut index_of = std::mem::take(&mut self.scc_index);
        if index_of.len() < self.value_count as usize {
            index_of.resize(self.value_count as usize, NOT_IN_SET);
        }
        for (i, &p) in phis.iter().enumerate() {
            index_of[p.index()] = u32::try_from(i).expect("fewer than 2^32 phis");
        }
        let (table, alias) = (&self.phis, &mut self.alias);
        let succs: Vec<Vec<usize>> = phis
            .iter()
            .map(|p| {
                table[p]
                    .args
                    .iter()
                    .map(|&a| index_of[resolve_in(alias, a).index()])
                    .filter(|&i| i != NOT_IN_SET)
                    .map(|i| i as usize)
                    .collect()
            })
            .collect();
        for &p in phis {
            index_of[p.index()] = NOT_IN_SET;
        }
        self.scc_index = index_of;
        tarjan_sccs(&succs).into_iter().map(|c| c.into_iter().map(|i| phis[i]).collect()).collect()
    }
}
