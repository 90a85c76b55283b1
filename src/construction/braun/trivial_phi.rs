//! `tryRemoveTrivialPhi`, Algorithm 3 of Braun et al. ("Simple and
//! Efficient Construction of Static Single Assignment Form", CC 2013, §2.2),
//! with the witness cache of §3.1 ([`BraunOptions::witness_cache`]).
//!
//! [`BraunOptions::witness_cache`]: super::options::BraunOptions::witness_cache

use super::state::Builder;
use crate::entity::EntityRef;
use crate::ir::Value;

impl Builder {
    // ----- Algorithm 3: trivial phis -----

    /// Decides whether `phi` is trivial: `Some(Some(v))` when it merges only
    /// itself and `v`, `Some(None)` when it merges only itself, `None` when
    /// it merges two other values. Uses and refreshes the witnesses (§3.1).
    fn trivial_replacement(&mut self, phi: Value) -> Option<Option<Value>> {
        let (args, witness) = {
            let d = &self.phis[&phi];
            (d.args.clone(), d.witness)
        };
        let mut same: Option<Value> = None;
        let mut start = 0;
        if self.opts.witness_cache {
            if let Some((i, j)) = witness {
                let a = self.resolve(args[i as usize]);
                let b = self.resolve(args[j as usize]);
                if a != b && a != phi && b != phi {
                    self.stats.witness_hits += 1;
                    return None;
                }
                // Every argument up to `j` was the first witness or the phi
                // itself when they were chosen, and aliasing only merges, so
                // the prefix holds at most `a` and `b` (one of which is now
                // the phi or equal to the other).
                same = [a, b].into_iter().find(|&x| x != phi);
                start = j as usize + 1;
            }
        }
        let mut first_index = None;
        for (i, &arg) in args.iter().enumerate().skip(start) {
            let op = self.resolve(arg);
            if op == phi || Some(op) == same {
                continue;
            }
            if let Some(s) = same {
                // Two distinct witnesses: not trivial. Remember them.
                let wi = first_index.or_else(|| args.iter().position(|&x| self.resolve_pure(x) == s)).unwrap_or(0);
                self.phis.get_mut(&phi).expect("phi").witness = Some((wi as u32, i as u32));
                return None;
            }
            same = Some(op);
            first_index = Some(i);
        }
        Some(same)
    }

    /// `tryRemoveTrivialPhi` of Alg. 3: replaces a trivial phi by the value
    /// it merges, then re-checks the phis that used it (with a worklist).
    /// Returns what `phi` stands for now.
    pub(super) fn try_remove_trivial_phi(&mut self, phi: Value) -> Value {
        let mut work = vec![phi];
        while let Some(p) = work.pop() {
            let Some(d) = self.phis.get(&p) else { continue };
            if d.dead || !d.complete {
                continue;
            }
            let Some(same) = self.trivial_replacement(p) else { continue };
            let same = match same {
                Some(s) => s,
                // The phi is unreachable or in the start block.
                None => self.undef_value(),
            };
            let users = {
                let d = self.phis.get_mut(&p).expect("phi");
                d.dead = true;
                std::mem::take(&mut d.users)
            };
            self.alias[p.index()] = Some(same);
            self.stats.trivial_removed += 1;
            let users: Vec<Value> = users.into_iter().filter(|&u| u != p).collect();
            if let Some(sd) = self.phis.get_mut(&same) {
                if !sd.dead {
                    sd.users.extend(users.iter().copied().filter(|&u| u != same));
                }
            }
            work.extend(users);
        }
        self.resolve(phi)
    }
}
