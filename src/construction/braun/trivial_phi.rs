//! `tryRemoveTrivialPhi`, Algorithm 3 of Braun et al. ("Simple and
//! Efficient Construction of Static Single Assignment Form", CC 2013, §2.2),
//! with the witness cache of §3.1 ([`BraunOptions::witness_cache`]).
//!
//! [`BraunOptions::witness_cache`]: super::options::BraunOptions::witness_cache

use super::state::{resolve_in, Builder};
use super::triviality_recomputation::check_triviality;
use crate::ir::{Block, Value};
use crate::pass_manager::self_checks;

/// The test of Alg. 3 on a list of operands: `Some(Some(v))` when they are
/// only `phi` and `v`, `Some(None)` when they are only `phi`, `None` when
/// they hold two values other than `phi`.
pub(super) fn trivial_operand(args: &[Value], alias: &mut [Value], phi: Value) -> Option<Option<Value>> {
    let mut same: Option<Value> = None;
    for &arg in args {
        let op = resolve_in(alias, arg);
        if op == phi || Some(op) == same {
            continue;
        }
        if same.is_some() {
            return None;
        }
        same = Some(op);
    }
    Some(same)
}

impl Builder {
    // ----- Algorithm 3: trivial phis -----

    /// `tryRemoveTrivialPhi` for a provisional phi (`lookup.rs`) whose
    /// operands `phi_args[start..]` are all in: when it is trivial it dies
    /// without entering the phi table (nothing uses it, so there are no
    /// users to re-check), else it enters the table complete and goes
    /// through [`Builder::try_remove_trivial_phi`], which finds it
    /// non-trivial again and records its witnesses. Returns what `phi`
    /// stands for now.
    pub(super) fn try_remove_trivial_provisional(&mut self, phi: Value, block: Block, start: usize) -> Value {
        match trivial_operand(&self.phi_args[start..], &mut self.alias, phi) {
            Some(same) => {
                let same = match same {
                    Some(s) => s,
                    // The phi is unreachable or in the start block.
                    None => self.undef_value(),
                };
                self.phis.drop_provisional(phi);
                if self.blocks[block].phis.last() == Some(&phi) {
                    self.blocks[block].phis.pop();
                }
                self.set_alias(phi, same);
                self.stats.trivial_removed += 1;
                self.resolve(phi)
            }
            None => {
                self.materialize_provisional(phi, block, start, self.phi_args.len(), true);
                self.try_remove_trivial_phi(phi)
            }
        }
    }

    /// Puts the provisional phi `phi` into the phi table with the operands
    /// `phi_args[start..end]`.
    pub(super) fn materialize_provisional(
        &mut self,
        phi: Value,
        block: Block,
        start: usize,
        end: usize,
        complete: bool,
    ) {
        self.phis.insert(phi, block, complete);
        let (phis, buffer) = (&mut self.phis, &self.phi_args);
        phis.get_mut(&phi).expect("just inserted").args.extend_from_slice(&buffer[start..end]);
    }

    /// Decides whether `phi` is trivial: `Some(Some(v))` when it merges only
    /// itself and `v`, `Some(None)` when it merges only itself, `None` when
    /// it merges two other values. Uses and refreshes the witnesses (§3.1).
    fn trivial_replacement(&mut self, phi: Value) -> Option<Option<Value>> {
        let answer = self.trivial_replacement_cached(phi);
        if self_checks::in_checked_pass() {
            check_triviality(phi, &self.phis[&phi].args, &self.alias, answer);
        }
        answer
    }

    /// [`Self::trivial_replacement`] with the witness cache, unchecked.
    fn trivial_replacement_cached(&mut self, phi: Value) -> Option<Option<Value>> {
        // The phi's arguments are read in place (no copy): the phi table and
        // the alias links are separate fields.
        let args = &self.phis[&phi].args;
        let witness = self.phis[&phi].witness;
        let alias = &mut self.alias;
        let mut same: Option<Value> = None;
        let mut start = 0;
        if self.opts.witness_cache {
            if let Some((i, j)) = witness {
                let a = resolve_in(alias, args[i as usize]);
                let b = resolve_in(alias, args[j as usize]);
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
            let op = resolve_in(alias, arg);
            if op == phi || Some(op) == same {
                continue;
            }
            if let Some(s) = same {
                // Two distinct witnesses: not trivial. Remember them.
                let wi = first_index.or_else(|| args.iter().position(|&x| resolve_in(alias, x) == s)).unwrap_or(0);
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
        // The common answer, "not trivial", needs no worklist.
        match self.phis.get(&phi) {
            Some(d) if d.complete => {}
            _ => return self.resolve(phi),
        }
        let Some(same) = self.trivial_replacement(phi) else { return phi };
        // The worklist and the users' buffer are scratch vectors of the
        // builder, kept between calls (most created phis die here).
        let mut work = std::mem::take(&mut self.trivial_work);
        let mut users = std::mem::take(&mut self.trivial_users);
        work.clear();
        work.push(phi);
        let mut first = Some(same);
        while let Some(p) = work.pop() {
            let Some(d) = self.phis.get(&p) else { continue };
            if !d.complete {
                continue;
            }
            let same = match first.take() {
                Some(same) => same,
                None => match self.trivial_replacement(p) {
                    Some(same) => same,
                    None => continue,
                },
            };
            let same = match same {
                Some(s) => s,
                // The phi is unreachable or in the start block.
                None => self.undef_value(),
            };
            users.clear();
            self.remove_phi_into(p, &mut users);
            self.set_alias(p, same);
            self.stats.trivial_removed += 1;
            if let Some(sd) = self.phis.get_mut(&same) {
                sd.users.extend(users.iter().copied().filter(|&u| u != p && u != same));
            }
            work.extend(users.iter().copied().filter(|&u| u != p));
        }
        self.trivial_work = work;
        self.trivial_users = users;
        self.resolve(phi)
    }
}
