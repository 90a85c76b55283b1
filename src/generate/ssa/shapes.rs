//! The shapes of IR-level programs: the out-of-SSA situations of
//! `generate/source/patterns.rs` (swap, rotation, lost copy, branch-use, fan-out,
//! critical edge, irreducible), which work on any SSA, and the edge and
//! operand shapes that only an IR-level program has:
//! - double edge: `br c, B, B`, two edges from one block into one block;
//! - critical back edge: a critical edge `P -> S` where `S` dominates `P`;
//! - self loop: a block among its own successors;
//! - condition into a phi: the `i`-th argument of a phi of `S` is the
//!   condition of the `br` of `S.preds[i]`;
//! - phi of a phi: a phi argument that is another phi of the same block;
//! - phi-only value: a value read by phis only;
//! - dead after the edge: a phi argument on an edge `P -> S` that is live
//!   into no successor of `P` (liveness as in Pereira §4.1) and is not
//!   `P`'s branch condition;
//! - one-argument phi;
//! - loads and stores: both in one program.

use crate::analysis::dominance::DomTree;
use crate::analysis::liveness::compute_liveness;
use crate::generate::source::patterns::Patterns;
use crate::ir::{Function, Module, Op, Terminator, Value};
use std::collections::{HashMap, HashSet};

/// Which shapes a module has (any of its functions).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct IrShapes {
    pub patterns: Patterns,
    pub double_edge: bool,
    pub critical_back_edge: bool,
    pub self_loop: bool,
    pub cond_into_phi: bool,
    pub phi_of_phi: bool,
    pub phi_only_value: bool,
    pub dead_after_edge: bool,
    pub one_arg_phi: bool,
    pub loads_and_stores: bool,
}

impl IrShapes {
    /// The shapes of a module.
    pub fn of_module(m: &Module) -> IrShapes {
        let mut s = IrShapes { patterns: Patterns::of_module(m), ..IrShapes::default() };
        for f in &m.functions {
            s.add_function(f);
        }
        s
    }

    /// The shapes as `(name, present)`, in the order of the statistics.
    pub fn named(&self) -> [(&'static str, bool); 17] {
        let p = &self.patterns;
        [
            ("irreducible", p.irreducible),
            ("has phis", p.has_phis),
            ("swap", p.swap),
            ("rotation", p.rotation),
            ("lost copy", p.lost_copy),
            ("branch-use (Boissinot Fig. 1)", p.branch_use),
            ("fan-out", p.fan_out),
            ("critical edge", p.critical_edge),
            ("double edge (br c, B, B)", self.double_edge),
            ("critical back edge", self.critical_back_edge),
            ("self loop", self.self_loop),
            ("branch condition into a phi", self.cond_into_phi),
            ("phi of a phi of its block", self.phi_of_phi),
            ("value used only by phis", self.phi_only_value),
            ("phi operand dead after its edge", self.dead_after_edge),
            ("one-argument phi", self.one_arg_phi),
            ("loads and stores", self.loads_and_stores),
        ]
    }

    fn add_function(&mut self, f: &Function) {
        let dom = DomTree::compute(f);
        let (mut loads, mut stores) = (false, false);
        // Uses by phis and by anything else.
        let mut phi_uses: HashSet<Value> = HashSet::new();
        let mut other_uses: HashSet<Value> = HashSet::new();
        for (b, data) in f.blocks.iter() {
            let succs = data.term.successors();
            if succs.len() == 2 && succs[0] == succs[1] {
                self.double_edge = true;
            }
            if succs.contains(&b) {
                self.self_loop = true;
            }
            if succs.len() == 2 {
                for &s in &succs {
                    if f.blocks[s].preds.len() >= 2 && dom.dominates(s, b) {
                        self.critical_back_edge = true;
                    }
                }
            }
            let own: HashSet<Value> = data.phis.iter().map(|p| p.dest).collect();
            for phi in &data.phis {
                phi_uses.extend(phi.args.iter().copied());
                if phi.args.len() == 1 {
                    self.one_arg_phi = true;
                }
                if phi.args.iter().any(|a| *a != phi.dest && own.contains(a)) {
                    self.phi_of_phi = true;
                }
                for (&p, &a) in data.preds.iter().zip(&phi.args) {
                    if let Terminator::Branch { cond, .. } = f.blocks[p].term {
                        if cond == a {
                            self.cond_into_phi = true;
                        }
                    }
                }
            }
            for inst in &data.insts {
                inst.op.for_each_arg(|a| {
                    other_uses.insert(a);
                });
                match inst.op {
                    Op::Load(_) => loads = true,
                    Op::Store { .. } => stores = true,
                    _ => {}
                }
            }
            if let Some(a) = data.term.arg() {
                other_uses.insert(a);
            }
        }
        self.loads_and_stores |= loads && stores;
        self.phi_only_value |= phi_uses.iter().any(|v| !other_uses.contains(v));
        if !self.dead_after_edge && f.phi_count() > 0 {
            let live = compute_liveness(f);
            let conds: HashMap<_, _> = f
                .blocks
                .iter()
                .filter_map(|(b, d)| match d.term {
                    Terminator::Branch { cond, .. } => Some((b, cond)),
                    _ => None,
                })
                .collect();
            'search: for data in f.blocks.values() {
                for phi in &data.phis {
                    for (&p, &a) in data.preds.iter().zip(&phi.args) {
                        if conds.get(&p) == Some(&a) {
                            continue;
                        }
                        if f.succs(p).iter().all(|&s| !live.live_in[s].contains(a)) {
                            self.dead_after_edge = true;
                            break 'search;
                        }
                    }
                }
            }
        }
    }
}
