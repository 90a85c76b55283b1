//! Finishing a function built by Braun et al.'s construction ("Simple and
//! Efficient Construction of Static Single Assignment Form", CC 2013):
//! removal of unreachable code and the phi operands it fed, Algorithm 5
//! (§3.2, in `scc_removal.rs`) when switched on, dead-phi removal to stay
//! pruned (§4), and dense renumbering into an `ir::Function`.

use super::state::Builder;
use crate::analysis::dominance::reverse_postorder;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{self, Block, BlockData, Inst, Op, Value};
use rustc_hash::FxHashMap as HashMap;

impl Builder {
    // ----- finishing: unreachable code, Algorithm 5, dead phis -----

    pub(super) fn finish(&mut self, name: &str) -> ir::Function {
        debug_assert!(self.blocks.values().all(|b| b.sealed), "every block is sealed at the end");
        let n = self.blocks.len();
        let reachable_order = reverse_postorder(n, ir::Function::ENTRY, |b| {
            self.blocks[b].term.as_ref().map(|t| t.successors()).unwrap_or_default()
        });
        let mut reachable = vec![false; n];
        for &b in &reachable_order {
            reachable[b.index()] = true;
        }
        // Drop the edges that come from unreachable blocks, with the phi
        // operands they carried, then re-check those phis (Alg. 3).
        let mut recheck = Vec::new();
        for b in self.blocks.keys() {
            if !reachable[b.index()] {
                for p in self.blocks[b].phis.clone() {
                    if self.is_live_phi(p) {
                        self.remove_phi(p);
                    }
                }
                continue;
            }
            let preds = self.blocks[b].preds.clone();
            if preds.iter().all(|p| reachable[p.index()]) {
                continue;
            }
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
        if self.opts.remove_redundant_sccs {
            let all: Vec<Value> = reachable_order
                .iter()
                .flat_map(|&b| self.blocks[b].phis.clone())
                .filter(|&p| self.is_live_phi(p))
                .collect();
            self.remove_redundant_phis(all);
        }
        self.emit_function(name, &reachable_order, &reachable)
    }

    /// Removes phis that no non-phi instruction uses, even indirectly
    /// (pruned SSA, §4), and emits the final function with dense numbers.
    fn emit_function(&mut self, name: &str, order: &[Block], reachable: &[bool]) -> ir::Function {
        // Mark the phis that feed real uses.
        let mut live_phi: HashMap<Value, bool> = HashMap::default();
        let mut work: Vec<Value> = Vec::new();
        for &b in order {
            let mut uses = Vec::new();
            for inst in &self.blocks[b].insts {
                inst.op.for_each_arg(|a| uses.push(a));
            }
            if let Some(a) = self.blocks[b].term.as_ref().and_then(|t| t.arg()) {
                uses.push(a);
            }
            for u in uses {
                let u = self.resolve(u);
                if self.is_live_phi(u) && live_phi.insert(u, true).is_none() {
                    work.push(u);
                }
            }
        }
        while let Some(p) = work.pop() {
            for a in self.phis[&p].args.clone() {
                let a = self.resolve(a);
                if self.is_live_phi(a) && live_phi.insert(a, true).is_none() {
                    work.push(a);
                }
            }
        }
        for &b in order {
            for &p in &self.blocks[b].phis {
                if self.is_live_phi(p) && !live_phi.contains_key(&p) {
                    self.stats.dead_removed += 1;
                }
            }
        }
        // Which values does the final code use? Constants and `undef` that
        // nothing uses are dropped.
        let mut used = vec![false; self.value_count as usize];
        let mark = |v: Value, used: &mut Vec<bool>| used[v.index()] = true;
        for &b in order {
            for p in self.blocks[b].phis.clone() {
                if live_phi.contains_key(&p) {
                    for a in self.phis[&p].args.clone() {
                        let a = self.resolve(a);
                        mark(a, &mut used);
                    }
                }
            }
            let insts = self.blocks[b].insts.clone();
            for inst in &insts {
                inst.op.for_each_arg(|a| {
                    let a = self.resolve_pure(a);
                    used[a.index()] = true;
                });
            }
            if let Some(a) = self.blocks[b].term.as_ref().and_then(|t| t.arg()) {
                let a = self.resolve(a);
                mark(a, &mut used);
            }
        }
        // Dense renumbering: blocks in creation order, values in order of
        // definition (parameters first).
        let mut block_map: EntityVec<Block, Option<Block>> = EntityVec::from_elem(None, self.blocks.len());
        let mut next_block = 0u32;
        for b in self.blocks.keys() {
            if reachable[b.index()] {
                block_map[b] = Some(Block(next_block));
                next_block += 1;
            }
        }
        let mut value_map: Vec<Option<Value>> = vec![None; self.value_count as usize];
        let mut next_value = 0u32;
        let mut number = |v: Value, value_map: &mut Vec<Option<Value>>| {
            let nv = Value(next_value);
            next_value += 1;
            value_map[v.index()] = Some(nv);
            nv
        };
        let params: Vec<Value> = self.params.clone().into_iter().map(|p| number(p, &mut value_map)).collect();
        let mut out_blocks: EntityVec<Block, BlockData> = EntityVec::new();
        let keep_inst = |inst: &Inst, used: &[bool]| match inst.op {
            Op::Const(_) | Op::Undef => inst.dest.is_some_and(|d| used[d.index()]),
            _ => true,
        };
        for b in self.blocks.keys() {
            if !reachable[b.index()] {
                continue;
            }
            let state = &self.blocks[b];
            let phis: Vec<Value> = state.phis.iter().copied().filter(|p| live_phi.contains_key(p)).collect();
            let insts: Vec<Inst> = state.insts.iter().filter(|i| keep_inst(i, &used)).cloned().collect();
            let mut data = BlockData {
                preds: state.preds.iter().map(|p| block_map[*p].expect("reachable pred")).collect(),
                phis: Vec::new(),
                insts: Vec::new(),
                term: state.term.clone().expect("every block is terminated"),
            };
            for p in phis {
                let dest = number(p, &mut value_map);
                data.phis.push(ir::Phi { dest, args: self.phis[&p].args.clone() });
            }
            for mut inst in insts {
                if let Some(d) = inst.dest {
                    inst.dest = Some(number(d, &mut value_map));
                }
                data.insts.push(inst);
            }
            data.term.map_successors(|s| block_map[s].expect("reachable successor"));
            out_blocks.push(data);
        }
        // Rewrite operands: resolve aliases, then renumber.
        let rename = |v: Value, this: &mut Self| -> Value {
            let r = this.resolve(v);
            value_map[r.index()].unwrap_or_else(|| panic!("{r} is used but not defined in reachable code"))
        };
        for data in out_blocks.values_mut() {
            for phi in &mut data.phis {
                for a in &mut phi.args {
                    *a = rename(*a, self);
                }
            }
            for inst in &mut data.insts {
                let mut args = Vec::new();
                inst.op.for_each_arg(|a| args.push(a));
                let mut renamed = args.into_iter().map(|a| rename(a, self));
                inst.op.map_args(|_| renamed.next().expect("same arity"));
            }
            if let Some(a) = data.term.arg() {
                let r = rename(a, self);
                data.term.map_arg(|_| r);
            }
        }
        ir::Function { name: name.to_string(), params, blocks: out_blocks, value_count: next_value }
    }
}
