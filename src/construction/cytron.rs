//! Reference SSA construction after Cytron, Ferrante, Rosen, Wegman and
//! Zadeck, "Efficiently Computing Static Single Assignment Form and the
//! Control Dependence Graph" (TOPLAS 1991), §4-5, with the liveness pruning of
//! Choi, Cytron and Ferrante, "Automatic Construction of Sparse Data Flow
//! Evaluation Graphs" (POPL 1991).
//!
//! This construction is the yardstick for the lead's Braun et al.
//! construction: it makes no optimization at all, and it places phis by the
//! textbook recipe, so its phi count is the "minimal, pruned" count that
//! Braun et al. (CC 2013, §4, Theorem 1) must reach on reducible CFGs and may
//! only beat on irreducible ones (§3.2).
//!
//! The steps, each a function of this file:
//!
//! 1. `cfg_lowering::lower_function` lowers the AST to a CFG over variables
//!    (the "detour through a non-SSA CFG" of Braun et al., §1), with the
//!    block shape of the Braun construction, and removes unreachable blocks.
//! 2. [`DomTree::compute_from_edges`] computes the dominator tree.
//! 3. `dominance_frontiers` computes DF(b) for every block (Cytron et al.,
//!    §4), walking up from the predecessors of each join block as in Cooper,
//!    Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001), §5.
//! 4. `place_phis` computes, for each variable, the iterated dominance
//!    frontier DF+ of the blocks that assign it (Cytron et al., §5.1) and the
//!    blocks where it is live on entry (a backward dataflow solved one
//!    variable at a time), and places a phi at DF+ ∩ live-in: the minimal SSA
//!    form of Cytron et al., pruned as in Choi et al.
//! 5. `rename` walks the dominator tree in pre-order with an explicit stack,
//!    keeping the current value of each variable and an undo log (Cytron et
//!    al., §5.2), and fills each phi argument from the end of its
//!    predecessor.
//!
//! Every variable is defined on entry: parameters by their argument, every
//! other variable (including the hidden variables of `&&`/`||`) by a
//! `const 0` at the start of the entry block, which the result keeps only when
//! some instruction, terminator or phi reads it. The entry block has no
//! predecessors, so its dominance frontier is empty and these definitions
//! place no phi by themselves.
//!
//! Architecture invariant: nothing here recurses once per block, statement or
//! dominator-tree level, so a function with 10,000 nested `if`s or 1,000,000
//! statements is constructed on a 2 MiB stack. The per-variable work uses
//! stamped marks instead of cleared per-variable arrays, so it costs the size
//! of the variable's definitions, uses, live range and DF+, not the number of
//! blocks.

use crate::analysis::dominance::DomTree;
use crate::ast;
use crate::construction::cfg_lowering::{self, CfgInst, CfgTerm, Temp, Var, VarCfg};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, BlockData, Function, Inst, Module, Op, Phi, Terminator, Value};

/// Builds SSA form for every function of a program, in order.
///
/// Precondition: `program.validate().is_ok()`. The result of each function
/// satisfies the SSA verifier's rules: `b0` has no predecessors, every block
/// is reachable, `preds` matches the terminators, every value is defined once
/// and its definition dominates its uses, and there is no `undef`.
pub fn construct_cytron(program: &ast::Program) -> Module {
    debug_assert!(program.validate().is_ok(), "construct_cytron needs a valid program");
    let functions =
        program.functions.iter().map(|f| construct_cytron_from_cfg(&cfg_lowering::lower_function(f))).collect();
    Module { functions }
}

/// Builds SSA form for one lowered function (steps 2-5 of the module
/// documentation). Values are numbered densely in definition order:
/// parameters, then block by block the phis and the instructions.
pub fn construct_cytron_from_cfg(cfg: &VarCfg) -> Function {
    let dom = DomTree::compute_from_edges(
        cfg.blocks.len(),
        Function::ENTRY,
        |b| cfg.succs(b),
        |b| cfg.blocks[b].preds.clone(),
    );
    let frontiers = dominance_frontiers(cfg, &dom);
    let phi_vars = place_phis(cfg, &frontiers);
    let mut func = rename(cfg, &dom, &phi_vars);
    renumber_values(&mut func);
    func
}

/// DF(b) for every block: the blocks `y` with a predecessor that `b`
/// dominates while `b` does not strictly dominate `y` (Cytron et al., §4).
/// For each join block `y` and each predecessor `p`, every block on the
/// dominator-tree path from `p` up to (not including) idom(y) has `y` in its
/// frontier (Cooper, Harvey and Kennedy, §5). Each frontier lists a block at
/// most once.
fn dominance_frontiers(cfg: &VarCfg, dom: &DomTree) -> EntityVec<Block, Vec<Block>> {
    let mut frontiers: EntityVec<Block, Vec<Block>> = EntityVec::from_elem(Vec::new(), cfg.blocks.len());
    for (y, data) in cfg.blocks.iter() {
        if data.preds.len() < 2 {
            continue;
        }
        let idom = dom.idom[y].expect("a block with predecessors is not the entry and is reachable");
        for &p in &data.preds {
            let mut runner = p;
            while runner != idom {
                // All pushes of `y` happen in this iteration of the outer
                // loop, so checking the last entry avoids duplicates.
                if frontiers[runner].last() != Some(&y) {
                    frontiers[runner].push(y);
                }
                runner = dom.idom[runner].expect("idom(y) dominates every predecessor of y");
            }
        }
    }
    frontiers
}

/// The variables that get a phi in each block, in variable order: the
/// blocks of DF+(assignments of x) where x is live on entry.
///
/// The entry block counts as an assignment of every variable (the entry
/// definition); it has an empty frontier, so this only matters for liveness,
/// where it stops the backward walk.
///
/// Liveness is the backward dataflow `in(b) = use(b) ∪ (out(b) - def(b))`,
/// `out(b) = ∪ in(succ)`, solved for one variable at a time: x is live on
/// entry to the blocks that read it before any assignment in the block
/// (upward-exposed uses) and to every block from which such a block is
/// reachable backward without passing a block that assigns x.
fn place_phis(cfg: &VarCfg, frontiers: &EntityVec<Block, Vec<Block>>) -> EntityVec<Block, Vec<Var>> {
    let n_blocks = cfg.blocks.len();
    let n_vars = cfg.vars.len();

    // Assignment blocks and upward-exposed-use blocks of each variable, each
    // listed once; `written_in` and `read_in` say which block last did so.
    let mut def_blocks: EntityVec<Var, Vec<Block>> = EntityVec::from_elem(vec![Function::ENTRY], n_vars);
    let mut use_blocks: EntityVec<Var, Vec<Block>> = EntityVec::from_elem(Vec::new(), n_vars);
    let mut written_in: EntityVec<Var, Option<Block>> = EntityVec::from_elem(None, n_vars);
    let mut read_in: EntityVec<Var, Option<Block>> = EntityVec::from_elem(None, n_vars);
    for (b, data) in cfg.blocks.iter() {
        for inst in &data.insts {
            match *inst {
                CfgInst::Read { var, .. } if written_in[var] != Some(b) && read_in[var] != Some(b) => {
                    read_in[var] = Some(b);
                    use_blocks[var].push(b);
                }
                CfgInst::Write { var, .. } if written_in[var] != Some(b) => {
                    written_in[var] = Some(b);
                    if b != Function::ENTRY {
                        def_blocks[var].push(b);
                    }
                }
                _ => {}
            }
        }
    }

    // Per-block marks, valid when equal to the current variable's stamp.
    let mut assigns: EntityVec<Block, u32> = EntityVec::from_elem(0, n_blocks);
    let mut live_in: EntityVec<Block, u32> = EntityVec::from_elem(0, n_blocks);
    let mut in_dfplus: EntityVec<Block, u32> = EntityVec::from_elem(0, n_blocks);
    let mut queued: EntityVec<Block, u32> = EntityVec::from_elem(0, n_blocks);
    let mut stack: Vec<Block> = Vec::new();
    let mut phi_vars: EntityVec<Block, Vec<Var>> = EntityVec::from_elem(Vec::new(), n_blocks);

    for var in cfg.vars.keys() {
        if use_blocks[var].is_empty() {
            // Never read: live nowhere, so no phi.
            continue;
        }
        let stamp = u32::try_from(var.index() + 1).expect("variable count fits in u32");
        for &b in &def_blocks[var] {
            assigns[b] = stamp;
        }

        // Live-in blocks of `var`, by the backward walk.
        for &b in &use_blocks[var] {
            live_in[b] = stamp;
            stack.push(b);
        }
        while let Some(b) = stack.pop() {
            for &p in &cfg.blocks[b].preds {
                if live_in[p] != stamp && assigns[p] != stamp {
                    live_in[p] = stamp;
                    stack.push(p);
                }
            }
        }

        // DF+ of the assignment blocks, by the worklist of Cytron et al.
        // §5.1. Every block of DF+ is iterated, live or not: DF+ is a
        // closure, and liveness only filters where phis are kept.
        for &b in &def_blocks[var] {
            queued[b] = stamp;
            stack.push(b);
        }
        while let Some(x) = stack.pop() {
            for &y in &frontiers[x] {
                if in_dfplus[y] == stamp {
                    continue;
                }
                in_dfplus[y] = stamp;
                if live_in[y] == stamp {
                    phi_vars[y].push(var);
                }
                if queued[y] != stamp {
                    queued[y] = stamp;
                    stack.push(y);
                }
            }
        }
    }
    phi_vars
}

/// A phi being filled by the renaming.
struct PendingPhi {
    var: Var,
    dest: Option<Value>,
    /// `args[i]` flows along the edge from `preds[i]`.
    args: Vec<Option<Value>>,
}

/// The state of the renaming walk (Cytron et al., §5.2).
struct Renamer<'c> {
    cfg: &'c VarCfg,
    value_count: u32,
    /// The value each variable holds at the current point of the walk;
    /// `None` is the entry definition of a non-parameter, `const 0`.
    current: EntityVec<Var, Option<Value>>,
    /// The value of each variable's entry `const 0`, made on first read.
    entry_zero: EntityVec<Var, Option<Value>>,
    /// The value of each temporary, once its definition has been renamed.
    temps: EntityVec<Temp, Option<Value>>,
    /// Assignments to undo when the walk leaves a dominator subtree: the
    /// variable and the value it held before.
    undo: Vec<(Var, Option<Value>)>,
    insts: EntityVec<Block, Vec<Inst>>,
    terms: EntityVec<Block, Option<Terminator>>,
    /// For each block, its outgoing edges as (successor, index of the edge
    /// in the successor's `preds`).
    out_edges: EntityVec<Block, Vec<(Block, usize)>>,
}

impl Renamer<'_> {
    fn new_value(&mut self) -> Value {
        let v = Value(self.value_count);
        self.value_count += 1;
        v
    }

    /// The value `var` holds now.
    fn read(&mut self, var: Var) -> Value {
        if let Some(v) = self.current[var] {
            return v;
        }
        let count = &mut self.value_count;
        *self.entry_zero[var].get_or_insert_with(|| {
            let v = Value(*count);
            *count += 1;
            v
        })
    }

    fn write(&mut self, var: Var, value: Value) {
        self.undo.push((var, self.current[var]));
        self.current[var] = Some(value);
    }

    fn temp(&self, t: Temp) -> Value {
        self.temps[t].expect("a temporary's definition dominates its uses")
    }

    /// Defines a fresh value for temporary `dest` by `op`.
    fn define(&mut self, b: Block, dest: Temp, op: Op) {
        let v = self.new_value();
        self.temps[dest] = Some(v);
        self.insts[b].push(Inst { dest: Some(v), op });
    }

    /// Renames block `b`: its phis, instructions and terminator, then the
    /// arguments its outgoing edges give to the successors' phis.
    fn rename_block(&mut self, b: Block, phis: &mut EntityVec<Block, Vec<PendingPhi>>) {
        for i in 0..phis[b].len() {
            let dest = self.new_value();
            phis[b][i].dest = Some(dest);
            self.write(phis[b][i].var, dest);
        }
        let cfg = self.cfg;
        for inst in &cfg.blocks[b].insts {
            match *inst {
                CfgInst::Read { dest, var } => {
                    let v = self.read(var);
                    self.temps[dest] = Some(v);
                }
                CfgInst::Write { var, src } => {
                    let v = self.temp(src);
                    self.write(var, v);
                }
                CfgInst::Const { dest, value } => self.define(b, dest, Op::Const(value)),
                CfgInst::Copy { dest, src } => self.define(b, dest, Op::Copy(self.temp(src))),
                CfgInst::Unary { dest, op, arg } => self.define(b, dest, Op::Unary(op, self.temp(arg))),
                CfgInst::Binary { dest, op, lhs, rhs } => {
                    self.define(b, dest, Op::Binary(op, self.temp(lhs), self.temp(rhs)))
                }
                CfgInst::Load { dest, addr } => self.define(b, dest, Op::Load(self.temp(addr))),
                CfgInst::Store { addr, value } => {
                    let op = Op::Store { addr: self.temp(addr), value: self.temp(value) };
                    self.insts[b].push(Inst { dest: None, op });
                }
                CfgInst::Out { value } => {
                    let op = Op::Out(self.temp(value));
                    self.insts[b].push(Inst { dest: None, op });
                }
            }
        }
        self.terms[b] = Some(match cfg.blocks[b].term {
            CfgTerm::Jump(t) => Terminator::Jump(t),
            CfgTerm::Branch { cond, then_dest, else_dest } => {
                Terminator::Branch { cond: self.temp(cond), then_dest, else_dest }
            }
            CfgTerm::Return(v) => Terminator::Return(self.temp(v)),
        });
        for e in 0..self.out_edges[b].len() {
            let (succ, slot) = self.out_edges[b][e];
            for i in 0..phis[succ].len() {
                let v = self.read(phis[succ][i].var);
                phis[succ][i].args[slot] = Some(v);
            }
        }
    }
}

/// Renames variables to values by a pre-order walk of the dominator tree
/// with an explicit stack (Cytron et al., §5.2).
fn rename(cfg: &VarCfg, dom: &DomTree, phi_vars: &EntityVec<Block, Vec<Var>>) -> Function {
    let n_blocks = cfg.blocks.len();
    let mut out_edges: EntityVec<Block, Vec<(Block, usize)>> = EntityVec::from_elem(Vec::new(), n_blocks);
    for (s, data) in cfg.blocks.iter() {
        for (slot, &p) in data.preds.iter().enumerate() {
            out_edges[p].push((s, slot));
        }
    }
    let mut phis: EntityVec<Block, Vec<PendingPhi>> = cfg
        .blocks
        .iter()
        .map(|(b, data)| {
            phi_vars[b].iter().map(|&var| PendingPhi { var, dest: None, args: vec![None; data.preds.len()] }).collect()
        })
        .collect();

    let n_params = u32::try_from(cfg.params.len()).expect("parameter count fits in u32");
    let mut renamer = Renamer {
        cfg,
        value_count: n_params,
        current: EntityVec::from_elem(None, cfg.vars.len()),
        entry_zero: EntityVec::from_elem(None, cfg.vars.len()),
        temps: EntityVec::from_elem(None, cfg.temp_count as usize),
        undo: Vec::new(),
        insts: EntityVec::from_elem(Vec::new(), n_blocks),
        terms: EntityVec::from_elem(None, n_blocks),
        out_edges,
    };
    let params: Vec<Value> = (0..n_params).map(Value).collect();
    for (&var, &value) in cfg.params.iter().zip(&params) {
        renamer.current[var] = Some(value);
    }

    // Each frame: a block, the index of its next dominator-tree child, and
    // the length of the undo log when the block was entered.
    renamer.rename_block(Function::ENTRY, &mut phis);
    let mut stack: Vec<(Block, usize, usize)> = vec![(Function::ENTRY, 0, 0)];
    while let Some(frame) = stack.last_mut() {
        let (b, next_child, undo_len) = *frame;
        if let Some(&child) = dom.children[b].get(next_child) {
            frame.1 += 1;
            let child_undo_len = renamer.undo.len();
            renamer.rename_block(child, &mut phis);
            stack.push((child, 0, child_undo_len));
        } else {
            while renamer.undo.len() > undo_len {
                let (var, old) = renamer.undo.pop().expect("the undo log is longer than undo_len");
                renamer.current[var] = old;
            }
            stack.pop();
        }
    }

    let mut blocks: EntityVec<Block, BlockData> = EntityVec::new();
    for (b, data) in cfg.blocks.iter() {
        let block_phis = std::mem::take(&mut phis[b])
            .into_iter()
            .map(|p| Phi {
                dest: p.dest.expect("every block is reachable, so renamed"),
                args: p.args.into_iter().map(|a| a.expect("every predecessor is reachable, so renamed")).collect(),
            })
            .collect();
        blocks.push(BlockData {
            preds: data.preds.clone(),
            phis: block_phis,
            insts: std::mem::take(&mut renamer.insts[b]),
            term: renamer.terms[b].take().expect("every block is reachable, so renamed"),
        });
    }
    // The entry definitions that something reads, at the start of the entry
    // block, in variable order.
    let entry_consts: Vec<Inst> =
        renamer.entry_zero.values().flatten().map(|&v| Inst { dest: Some(v), op: Op::Const(0) }).collect();
    blocks[Function::ENTRY].insts.splice(0..0, entry_consts);
    Function { name: cfg.name.clone(), params, blocks, value_count: renamer.value_count }
}

/// Renumbers the values densely in definition order: parameters, then for
/// each block its phis and its instructions.
fn renumber_values(func: &mut Function) {
    let mut new_number: EntityVec<Value, Option<Value>> = EntityVec::from_elem(None, func.value_count as usize);
    let mut count = 0u32;
    let mut assign = |v: Value| {
        debug_assert!(new_number[v].is_none(), "{v} is defined twice");
        new_number[v] = Some(Value(count));
        count += 1;
    };
    func.params.iter().for_each(|&p| assign(p));
    for data in func.blocks.values() {
        data.phis.iter().for_each(|phi| assign(phi.dest));
        data.insts.iter().filter_map(|inst| inst.dest).for_each(&mut assign);
    }
    let map = |v: Value| new_number[v].expect("every value read is defined");
    for p in &mut func.params {
        *p = map(*p);
    }
    for data in func.blocks.values_mut() {
        for phi in &mut data.phis {
            phi.dest = map(phi.dest);
            phi.args.iter_mut().for_each(|a| *a = map(*a));
        }
        for inst in &mut data.insts {
            inst.dest = inst.dest.map(map);
            inst.op.map_args(map);
        }
        data.term.map_arg(map);
    }
    func.value_count = count;
}
