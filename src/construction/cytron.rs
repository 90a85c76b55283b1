//! Reference SSA construction after Cytron, Ferrante, Rosen, Wegman and
//! Zadeck, "Efficiently Computing Static Single Assignment Form and the
//! Control Dependence Graph" (TOPLAS 1991), §4-5, with the liveness pruning of
//! Choi, Cytron and Ferrante, "Automatic Construction of Sparse Data Flow
//! Evaluation Graphs" (POPL 1991).
//!
//! This construction is the yardstick for Braun et al.'s construction
//! (`braun/`): it makes no optimization at all, and it places phis by the
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
//! 4. `place_phis` computes, for each variable that is read somewhere, the
//!    iterated dominance frontier DF+ of the blocks that assign it (Cytron
//!    et al., §5.1, with the `IterCount` stamps of their Figure 11) and
//!    places a phi at each block of it: the minimal SSA form.
//! 5. `rename` walks the dominator tree in pre-order with an explicit stack,
//!    keeping the current value of each variable and an undo log (Cytron et
//!    al., §5.2), and fills each phi argument from the end of its
//!    predecessor.
//! 6. `used_values` keeps the phis that some read of the variable reaches
//!    through phi arguments, and drops the others: the pruned form of Choi
//!    et al., DF+ ∩ live-in. A phi for x at y is reached from a read exactly
//!    when x is live on entry to y: along a path from y to an
//!    upward-exposed read that assigns x nowhere, the minimal form's value
//!    of x is y's phi or a phi whose argument chain leads back to it; and a
//!    chain of arguments from a read back to y's phi follows such a path
//!    (the minimal form's value is the only definition reaching each point).
//!
//! Pruning after renaming, as a dead-code elimination restricted to phis,
//! instead of before placement is a choice of data structure, not of result:
//! the liveness of Choi et al., solved one variable at a time by walking
//! back from its reads to its assignments, costs the size of the variable's
//! live range in blocks, and in large structured functions many variables
//! live across most of the function, which makes that walk quadratic. Minimal
//! placement costs the size of DF+, which the nesting depth bounds in
//! structured code, and the pruning costs the phis and the reads. The
//! result is the same, value for value: the renumbering below numbers the
//! kept definitions densely in definition order either way.
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
//! of the variable's definitions and DF+, not the number of blocks.

use crate::analysis::dominance::DomTree;
use crate::ast;
use crate::construction::cfg_lowering::{self, CfgInst, CfgTerm, Temp, Var, VarCfg};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{Block, BlockData, Call, Function, Inst, Module, Op, Phi, Terminator, Value};
use crate::pass_manager::clock::phase;

/// Builds SSA form for every function of a program, in order.
///
/// Precondition: `program.validate().is_ok()`. The result of each function
/// satisfies the SSA verifier's rules: `b0` has no predecessors, every block
/// is reachable, `preds` matches the terminators, every value is defined once
/// and its definition dominates its uses, and there is no `undef`.
///
/// Never inlined, so that a profiler can count what it costs as a whole
/// (as `construct_function` of the Braun et al. construction).
#[inline(never)]
pub fn construct_cytron(program: &ast::Program) -> Module {
    if crate::pass_manager::self_checks::in_checked_pass() {
        debug_assert!(program.validate().is_ok(), "construct_cytron needs a valid program");
    }
    let functions = program
        .functions
        .iter()
        .map(|f| construct_cytron_from_cfg(&phase("CFG lowering", || cfg_lowering::lower_function(f))))
        .collect();
    Module { functions }
}

/// Builds SSA form for one lowered function (steps 2-5 of the module
/// documentation). Values are numbered densely in definition order:
/// parameters, then block by block the phis and the instructions.
pub fn construct_cytron_from_cfg(cfg: &VarCfg) -> Function {
    // Each step is a phase of `pass_manager/clock.rs`, so that a
    // measurement can say which one costs what.
    let dom = phase("dominators", || {
        DomTree::compute_from_edges(
            cfg.blocks.len(),
            Function::ENTRY,
            |b| cfg.succs(b),
            |b| cfg.blocks[b].preds.clone(),
        )
    });
    let frontiers = phase("frontiers", || dominance_frontiers(cfg, &dom));
    let phi_vars = phase("phi placement", || place_phis(cfg, &frontiers));
    phase("renaming", || {
        let mut func = rename(cfg, &dom, &phi_vars);
        renumber_values(&mut func);
        func
    })
}

/// DF(b) for every block: the blocks `y` with a predecessor that `b`
/// dominates while `b` does not strictly dominate `y` (Cytron et al., §4).
/// For each join block `y` and each predecessor `p`, every block on the
/// dominator-tree path from `p` up to (not including) idom(y) has `y` in its
/// frontier (Cooper, Harvey and Kennedy, §5). Each frontier lists a block at
/// most once. A walk stops at the first block that already has `y`: an
/// earlier walk for `y` went through it, and on up to idom(y), so every
/// block above it has `y` too. The walks then cost O(E + Σ|DF|), where
/// walking each path in full costs (predecessors) × (dominator depth) at a
/// join, such as one reached from each arm of a chain of `if`s.
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
                // loop, so the last entry says whether `y` is there.
                if frontiers[runner].last() == Some(&y) {
                    break;
                }
                frontiers[runner].push(y);
                runner = dom.idom[runner].expect("idom(y) dominates every predecessor of y");
            }
        }
    }
    frontiers
}

/// The variables that get a phi in each block, in variable order: the
/// blocks of DF+(assignments of x), for every variable x that is read
/// somewhere (the minimal SSA form of Cytron et al., §5.1). `rename` then
/// keeps only the phis that some read reaches, which prunes them as Choi et
/// al. do (see the module documentation).
///
/// The entry block counts as an assignment of every variable (the entry
/// definition); it has an empty frontier, so it places no phi by itself.
fn place_phis(cfg: &VarCfg, frontiers: &EntityVec<Block, Vec<Block>>) -> EntityVec<Block, Vec<Var>> {
    let n_blocks = cfg.blocks.len();
    let n_vars = cfg.vars.len();

    // Assignment blocks of each variable, each listed once (`written_in`
    // says which block last did so), and whether it is read at all.
    let mut def_blocks: EntityVec<Var, Vec<Block>> = EntityVec::from_elem(Vec::new(), n_vars);
    let mut written_in: EntityVec<Var, Option<Block>> = EntityVec::from_elem(None, n_vars);
    let mut is_read: EntityVec<Var, bool> = EntityVec::from_elem(false, n_vars);
    for (b, data) in cfg.blocks.iter() {
        for inst in &data.insts {
            match *inst {
                CfgInst::Read { var, .. } => is_read[var] = true,
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

    // Per-block marks, valid when equal to the current variable's stamp
    // (the `HasAlready` and `Work` flags of Cytron et al.'s Figure 11,
    // compared with `IterCount`).
    let mut in_dfplus: EntityVec<Block, u32> = EntityVec::from_elem(0, n_blocks);
    let mut queued: EntityVec<Block, u32> = EntityVec::from_elem(0, n_blocks);
    let mut stack: Vec<Block> = Vec::new();
    let mut phi_vars: EntityVec<Block, Vec<Var>> = EntityVec::from_elem(Vec::new(), n_blocks);

    for var in cfg.vars.keys() {
        if !is_read[var] {
            // Never read: live nowhere, so no phi.
            continue;
        }
        let stamp = u32::try_from(var.index() + 1).expect("variable count fits in u32");
        // DF+ of the assignment blocks, by the worklist of Cytron et al.
        // §5.1.
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
                phi_vars[y].push(var);
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
    /// The value of each `CfgInst::Read`, in renaming order: the roots from
    /// which `prune` finds the phis and entry definitions to keep.
    reads: Vec<Value>,
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
                    self.reads.push(v);
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
                CfgInst::Call { dest, ref callee, ref args } => {
                    let args = args.iter().map(|&a| self.temp(a)).collect();
                    self.define(b, dest, Op::Call(Box::new(Call { callee: callee.clone(), args })));
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
    let mut phis: EntityVec<Block, Vec<PendingPhi>> = cfg
        .blocks
        .iter()
        .map(|(b, data)| {
            phi_vars[b].iter().map(|&var| PendingPhi { var, dest: None, args: vec![None; data.preds.len()] }).collect()
        })
        .collect();
    let mut renamer = Renamer::new(cfg);
    let params: Vec<Value> = (0..renamer.value_count).map(Value).collect();
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
    renamer.into_function(params, phis)
}

impl<'c> Renamer<'c> {
    /// A renamer at the entry, before any block: the parameters are the
    /// first values.
    fn new(cfg: &'c VarCfg) -> Renamer<'c> {
        let n_blocks = cfg.blocks.len();
        let mut out_edges: EntityVec<Block, Vec<(Block, usize)>> = EntityVec::from_elem(Vec::new(), n_blocks);
        for (s, data) in cfg.blocks.iter() {
            for (slot, &p) in data.preds.iter().enumerate() {
                out_edges[p].push((s, slot));
            }
        }
        let n_params = u32::try_from(cfg.params.len()).expect("parameter count fits in u32");
        Renamer {
            cfg,
            value_count: n_params,
            current: EntityVec::from_elem(None, cfg.vars.len()),
            entry_zero: EntityVec::from_elem(None, cfg.vars.len()),
            temps: EntityVec::from_elem(None, cfg.temp_count as usize),
            undo: Vec::new(),
            reads: Vec::new(),
            insts: EntityVec::from_elem(Vec::new(), n_blocks),
            terms: EntityVec::from_elem(None, n_blocks),
            out_edges,
        }
    }

    /// The renamed function, pruned: the phis and entry definitions that
    /// some read reaches (`used_values`).
    fn into_function(mut self, params: Vec<Value>, mut phis: EntityVec<Block, Vec<PendingPhi>>) -> Function {
        let cfg = self.cfg;
        let used = used_values(std::mem::take(&mut self.reads), self.value_count, &phis);
        let mut blocks: EntityVec<Block, BlockData> = EntityVec::new();
        for (b, data) in cfg.blocks.iter() {
            let block_phis = std::mem::take(&mut phis[b])
                .into_iter()
                .filter(|p| p.dest.is_some_and(|d| used[d]))
                .map(|p| Phi {
                    dest: p.dest.expect("every block is reachable, so renamed"),
                    args: p.args.into_iter().map(|a| a.expect("every predecessor is reachable, so renamed")).collect(),
                })
                .collect();
            blocks.push(BlockData {
                preds: data.preds.clone(),
                phis: block_phis,
                insts: std::mem::take(&mut self.insts[b]),
                term: self.terms[b].take().expect("every block is reachable, so renamed"),
            });
        }
        // The entry definitions that something reads, at the start of the
        // entry block, in variable order.
        let entry_consts: Vec<Inst> = self
            .entry_zero
            .values()
            .flatten()
            .filter(|&&v| used[v])
            .map(|&v| Inst { dest: Some(v), op: Op::Const(0) })
            .collect();
        blocks[Function::ENTRY].insts.splice(0..0, entry_consts);
        Function { name: cfg.name.clone(), params, blocks, value_count: self.value_count }
    }
}

/// The values that some `CfgInst::Read` reaches, directly or through the
/// arguments of phis: the phis of the pruned form (x is live on entry to
/// the phi's block exactly when a read of x is reached from the phi's value
/// along phi arguments; the module documentation gives the argument) and
/// the entry definitions something reads. A worklist, linear in the reads
/// and phi arguments.
fn used_values(
    reads: Vec<Value>,
    value_count: u32,
    phis: &EntityVec<Block, Vec<PendingPhi>>,
) -> EntityVec<Value, bool> {
    let n_values = value_count as usize;
    let mut phi_of: EntityVec<Value, Option<(Block, u32)>> = EntityVec::from_elem(None, n_values);
    for (b, block_phis) in phis.iter() {
        for (i, p) in block_phis.iter().enumerate() {
            let dest = p.dest.expect("every block is reachable, so renamed");
            phi_of[dest] = Some((b, u32::try_from(i).expect("phi count fits in u32")));
        }
    }
    let mut used: EntityVec<Value, bool> = EntityVec::from_elem(false, n_values);
    let mut work = reads;
    while let Some(v) = work.pop() {
        if used[v] {
            continue;
        }
        used[v] = true;
        if let Some((b, i)) = phi_of[v] {
            let args = &phis[b][i as usize].args;
            work.extend(args.iter().map(|a| a.expect("every predecessor is reachable, so renamed")));
        }
    }
    used
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
