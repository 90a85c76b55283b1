//! Finishing a function built by Braun et al.'s construction ("Simple and
//! Efficient Construction of Static Single Assignment Form", CC 2013):
//! removal of unreachable code and the phi operands it fed, Algorithm 5
//! (§3.2, in `scc_removal.rs`) when switched on and only where it can act
//! (an irreducible CFG, or a binding that shared a value; elsewhere §4's
//! Theorem 1 leaves nothing to remove: `proofs-notes/ssa-construction.md`,
//! "Where Algorithm 5 can act"), dead-phi removal to stay pruned (§4), and
//! dense renumbering into an `ir::Function`.

use super::options::Algorithm5;
use super::state::{resolve_in, Builder, PhiTable, Successors};
use crate::analysis::dominance::reverse_postorder;
use crate::analysis::reducibility::is_reducible_cfg;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{self, Block, BlockData, Inst, Op, Value};
use crate::pass_manager::clock::phase;

impl Builder {
    // ----- finishing: unreachable code, Algorithm 5, dead phis -----

    pub(super) fn finish(&mut self, name: &str) -> ir::Function {
        if crate::pass_manager::self_checks::in_checked_pass() {
            debug_assert!(self.blocks.values().all(|b| b.sealed), "every block is sealed at the end");
        }
        debug_assert!(self.filling.is_empty(), "every block is terminated at the end");
        let (reachable_order, reachable) = phase("unreachable code", || self.remove_unreachable_code());
        phase("Algorithm 5", || self.algorithm_5(&reachable_order, &reachable));
        phase("dead phis and emission", || self.emit_function(name, &reachable_order, &reachable))
    }

    /// The blocks reachable from the entry, in reverse post-order and as
    /// flags by block; the edges from the others are dropped, with the phi
    /// operands they carried, and those phis re-checked (Alg. 3).
    fn remove_unreachable_code(&mut self) -> (Vec<Block>, Vec<bool>) {
        let n = self.blocks.len();
        let reachable_order =
            reverse_postorder(n, ir::Function::ENTRY, |b| Successors::of(self.blocks[b].term.as_ref()));
        let mut reachable = vec![false; n];
        for &b in &reachable_order {
            reachable[b.index()] = true;
        }
        // Drop the edges that come from unreachable blocks, with the phi
        // operands they carried, then re-check those phis (Alg. 3).
        let mut recheck = Vec::new();
        for b in self.blocks.keys() {
            if !reachable[b.index()] {
                // The block's own list is not read again (only reachable
                // blocks are emitted), so it is taken, not copied.
                let phis = std::mem::take(&mut self.blocks[b].phis);
                let mut users = std::mem::take(&mut self.trivial_users);
                for &p in &phis {
                    if self.is_live_phi(p) {
                        users.clear();
                        self.remove_phi_into(p, &mut users);
                    }
                }
                self.trivial_users = users;
                continue;
            }
            if self.blocks[b].preds.iter().all(|p| reachable[p.index()]) {
                continue;
            }
            let preds = std::mem::take(&mut self.blocks[b].preds);
            let keep: Vec<bool> = preds.iter().map(|p| reachable[p.index()]).collect();
            self.blocks[b].preds = preds.into_iter().filter(|p| reachable[p.index()]).collect();
            for &phi in &self.blocks[b].phis.clone() {
                let Some(d) = self.phis.get_mut(&phi) else { continue };
                let args = std::mem::take(&mut d.args);
                d.args = args.into_iter().zip(&keep).filter(|(_, &k)| k).map(|(a, _)| a).collect();
                d.witness = None;
                recheck.push(phi);
            }
        }
        for phi in recheck {
            self.try_remove_trivial_phi(phi);
        }
        (reachable_order, reachable)
    }

    /// Algorithm 5 (§3.2), where it can act.
    fn algorithm_5(&mut self, reachable_order: &[Block], reachable: &[bool]) {
        // Algorithm 5 can remove a phi only where Theorem 1 of §4 does
        // not hold: on irreducible control flow, or when an on-the-fly
        // optimization made a variable name a phi or a value that is
        // already bound (copy propagation, CSE, folding,
        // simplification). Elsewhere every phi left by Alg. 3 is
        // necessary, so no redundant SCC exists and Algorithm 5 would
        // search and remove nothing (the argument is in
        // `proofs-notes/ssa-construction.md`, "Where Algorithm 5 can
        // act"). On deeply nested loops its search is quadratic.
        if !self.opts.remove_redundant_sccs {
            return;
        }
        // Alg. 5 on the live phis that have a phi operand. A phi without
        // one is a sink of the operand graph: it is in no cycle, so it is
        // a singleton SCC, and no contraction can change its operands
        // (only phis are replaced), so the re-check of singletons would
        // find it as Alg. 3 left it, non-trivial. Leaving the sinks out
        // does not change the order in which Tarjan's search emits the
        // other SCCs (a sink leads nowhere), so the result is the same.
        let mut all: Vec<Value> = Vec::new();
        for &b in reachable_order {
            for &p in &self.blocks[b].phis {
                let Some(d) = self.phis.get(&p) else { continue };
                let (phis, alias) = (&self.phis, &mut self.alias);
                if d.args.iter().any(|&a| phis.get(&resolve_in(alias, a)).is_some()) {
                    all.push(p);
                }
            }
        }
        // With no such phi there is no SCC of two or more phis, and the
        // gate is not asked.
        // A function without labels has only `if`, `while`, `break`,
        // `continue`, `return` and short-circuit conditions: every loop
        // is entered at its header alone, so its CFG is reducible and
        // the dominator computation of the test is not needed (with
        // self-checks on, the test runs anyway and must agree).
        if crate::pass_manager::self_checks::in_checked_pass() && !self.has_labels && !all.is_empty() {
            assert!(self.reachable_cfg_is_reducible(reachable), "a function without labels is reducible");
        }
        self.stats.scc_needed =
            !all.is_empty() && (self.values_shared || (self.has_labels && !self.reachable_cfg_is_reducible(reachable)));
        if self.stats.scc_needed || self.algorithm_5 == Algorithm5::Always {
            self.remove_redundant_phis(all);
        }
    }

    /// Whether the CFG of the reachable blocks is reducible. Edges from
    /// unreachable blocks are left out (they were dropped from the
    /// reachable blocks' predecessors already).
    fn reachable_cfg_is_reducible(&self, reachable: &[bool]) -> bool {
        let succs = |b: Block| Successors::of(self.blocks[b].term.as_ref()).as_ref().to_vec();
        let preds = |b: Block| {
            if reachable[b.index()] {
                self.blocks[b].preds.clone()
            } else {
                Vec::new()
            }
        };
        is_reducible_cfg(self.blocks.len(), ir::Function::ENTRY, succs, preds)
    }

    /// Removes phis that no non-phi instruction uses, even indirectly
    /// (pruned SSA, §4), and emits the final function with dense numbers.
    ///
    /// Marks are dense vectors indexed by value, and each block's
    /// instructions, predecessors and phi operands are moved into the result,
    /// not copied: the builder is not used after this. The instructions are
    /// walked twice, once to mark (the phis that feed real uses, and the
    /// values the final code uses: the arguments of instructions and
    /// terminators, and of the live phis as the worklist reaches them,
    /// each resolved through the alias links and written back) and
    /// once to renumber and move.
    fn emit_function(&mut self, name: &str, order: &[Block], reachable: &[bool]) -> ir::Function {
        let flags = self.mark_used(order);
        let live_phi = |v: Value| flags[v.index()] & LIVE_PHI != 0;
        let keep_inst = |inst: &Inst| match inst.op {
            Op::Const(_) | Op::Undef => inst.dest.is_some_and(|d| flags[d.index()] & USED != 0),
            _ => true,
        };
        let (block_map, value_map, block_count, value_count) = self.number(reachable, live_phi, keep_inst);
        // Move everything into the result and renumber (the arguments were
        // resolved by the marking walk; a definition is never an alias).
        let mut rename = |r: Value| -> Value {
            let n = value_map[r.index()];
            assert_ne!(n, UNNUMBERED, "{r} is used but not defined in reachable code");
            Value(n)
        };
        let params: Vec<Value> = self.params.iter().map(|&p| rename(p)).collect();
        let mut out_blocks: EntityVec<Block, BlockData> = EntityVec::with_capacity(block_count as usize);
        for b in self.blocks.keys() {
            if !reachable[b.index()] {
                continue;
            }
            let state = &mut self.blocks[b];
            let mut phis = Vec::with_capacity(state.phis.iter().filter(|&&p| live_phi(p)).count());
            for &p in state.phis.iter().filter(|&&p| live_phi(p)) {
                // Renamed in place (the vector moves into the result).
                let mut args = std::mem::take(&mut self.phis.get_mut(&p).expect("live phi").args);
                args.iter_mut().for_each(|a| *a = rename(*a));
                phis.push(ir::Phi { dest: rename(p), args });
            }
            let mut insts = std::mem::take(&mut state.insts);
            insts.retain_mut(|inst| {
                if !keep_inst(inst) {
                    return false;
                }
                inst.dest = inst.dest.map(&mut rename);
                inst.op.map_args(&mut rename);
                true
            });
            let mut term = state.term.take().expect("every block is terminated");
            term.map_successors(|s| block_map[s].expect("reachable successor"));
            term.map_arg(rename);
            let mut preds = std::mem::take(&mut state.preds);
            preds.iter_mut().for_each(|p| *p = block_map[*p].expect("reachable pred"));
            out_blocks.push(BlockData { preds, phis, insts, term });
        }
        ir::Function { name: name.to_string(), params, blocks: out_blocks, value_count }
    }

    /// Marks the phis that feed real uses, and the values the final code
    /// uses: constants and `undef` that nothing uses are dropped. One byte
    /// of flags per value (`USED`, `LIVE_PHI`): two vectors of booleans
    /// cost two cache misses where this costs one.
    fn mark_used(&mut self, order: &[Block]) -> Vec<u8> {
        let mut flags = vec![0u8; self.value_count as usize];
        let mut work: Vec<Value> = Vec::new();
        // Each argument is resolved here once and written back, so that the
        // renumbering reads `value_map` alone (the alias links, a vector as
        // long as every value ever made, are the largest table this walks
        // at random).
        let (blocks, phis, alias) = (&mut self.blocks, &mut self.phis, &mut self.alias);
        let mut visit = |a: Value, phis: &PhiTable, work: &mut Vec<Value>| -> Value {
            let u = resolve_in(alias, a);
            let f = &mut flags[u.index()];
            if *f & LIVE_PHI == 0 && phis.get(&u).is_some() {
                *f |= LIVE_PHI;
                work.push(u);
            }
            *f |= USED;
            u
        };
        for &b in order {
            let block = &mut blocks[b];
            for inst in &mut block.insts {
                inst.op.map_args(|a| visit(a, phis, &mut work));
            }
            if let Some(t) = block.term.as_mut() {
                t.map_arg(|a| visit(a, phis, &mut work));
            }
        }
        while let Some(p) = work.pop() {
            let mut args = std::mem::take(&mut phis.get_mut(&p).expect("live phi").args);
            for a in &mut args {
                *a = visit(*a, phis, &mut work);
            }
            phis.get_mut(&p).expect("live phi").args = args;
        }
        flags
    }

    /// Dense renumbering: blocks in creation order, values in order of
    /// definition (parameters first); counts the dead phis left out. Gives
    /// the new number of each block and value, and how many there are.
    fn number(
        &mut self,
        reachable: &[bool],
        live_phi: impl Fn(Value) -> bool,
        keep_inst: impl Fn(&Inst) -> bool,
    ) -> (EntityVec<Block, Option<Block>>, Vec<u32>, u32, u32) {
        let mut block_map: EntityVec<Block, Option<Block>> = EntityVec::from_elem(None, self.blocks.len());
        let mut next_block = 0u32;
        for b in self.blocks.keys() {
            if reachable[b.index()] {
                block_map[b] = Some(Block(next_block));
                next_block += 1;
            }
        }
        let mut value_map: Vec<u32> = vec![UNNUMBERED; self.value_count as usize];
        let mut next_value = 0u32;
        let mut number = |v: Value| {
            value_map[v.index()] = next_value;
            next_value += 1;
        };
        self.params.iter().for_each(|&p| number(p));
        let mut dead_removed = 0;
        for b in self.blocks.keys() {
            if !reachable[b.index()] {
                continue;
            }
            let state = &self.blocks[b];
            for &p in &state.phis {
                if live_phi(p) {
                    number(p);
                } else if self.phis.get(&p).is_some() {
                    dead_removed += 1;
                }
            }
            state.insts.iter().filter(|i| keep_inst(i)).filter_map(|i| i.dest).for_each(&mut number);
        }
        self.stats.dead_removed += dead_removed;
        (block_map, value_map, next_block, next_value)
    }
}

/// The flags of [`Builder::mark_used`]: a value the final code uses, and a
/// phi that feeds a real use.
const USED: u8 = 1;
const LIVE_PHI: u8 = 2;
/// The number of a value not yet numbered.
const UNNUMBERED: u32 = u32::MAX;
