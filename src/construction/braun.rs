//! SSA construction straight from the AST, after Braun, Buchwald, Hack,
//! Leißa, Mallon and Zwinkau, "Simple and Efficient Construction of Static
//! Single Assignment Form" (CC 2013).
//!
//! What is here, by the paper's numbering:
//! - local value numbering, `write_variable` / `read_variable` (§2.1, Alg. 1);
//! - global value numbering with operandless phis that break cycles (§2.2,
//!   Alg. 2), sealed and filled blocks and incomplete phis (§2.3, Alg. 4);
//!   `while`, `if`, `break` and `continue` seal as §2.3 describes, and a label
//!   block is sealed once the fall-through edge and every `goto` to it exist;
//! - recursive trivial-phi removal (§2.2, Alg. 3) with the witness cache of
//!   §3.1 ([`BraunOptions::witness_cache`]);
//! - removal of redundant phi SCCs after construction (§3.2, Alg. 5), which
//!   makes the result minimal on irreducible control flow too;
//! - the marker algorithm of §3.3 ([`BraunOptions::marker`]);
//! - the on-the-fly optimizations of §3.1, each switchable: constant folding,
//!   arithmetic simplification, common subexpression elimination by local
//!   value numbering, copy propagation.
//!
//! Departures from the printed pseudo-code, each checked by the tests named
//! in `proofs-notes/ssa-construction.md`:
//! - Nothing recurses per block or per phi: the look-up of Alg. 2 runs on an
//!   explicit stack of `Frame`s, the re-check of phi users of Alg. 3 and the
//!   nested SCCs of Alg. 5 use worklists. A replaced phi becomes an *alias*
//!   of its replacement (a union-find link), and every operand is read
//!   through `Builder::resolve`; that is the `replaceBy` of Alg. 3.
//! - A phi whose operands are still being collected is never tested for
//!   triviality (the recursive re-check of users can reach it); it is tested
//!   when it is complete.
//! - Alg. 5 re-checks singleton SCCs: contracting an earlier SCC can make a
//!   singleton phi trivial.
//! - Unreachable code (after `return`, a dead `goto` cycle, a folded branch)
//!   is built like any code, in blocks without predecessors, and removed when
//!   the function is finished, together with the phi operands it fed. Braun
//!   et al.'s `Undefined` values live only there.
//! - On-the-fly simplification can discard the only use of a phi (`x - x`),
//!   so the function ends with dead-phi removal to stay pruned (§4).

use crate::analysis::dominance::reverse_postorder;
use crate::analysis::scc::tarjan_sccs;
use crate::ast::{self, Expr, Stmt};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{self, BinOp, Block, BlockData, Inst, Op, Terminator, UnOp, Value};
// A fast non-cryptographic hasher: the keys are small integers we make.
use rustc_hash::FxHashMap as HashMap;

/// Which variant of the construction runs and which on-the-fly
/// optimizations it performs. `Default` turns everything on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BraunOptions {
    /// The marker algorithm of §3.3: mark a block instead of placing an
    /// operandless phi before recursing, and place a phi only on a cycle or
    /// when different definitions meet.
    pub marker: bool,
    /// Algorithm 5 (§3.2): remove redundant phi SCCs when the function is
    /// finished. Needed for minimality on irreducible control flow.
    pub remove_redundant_sccs: bool,
    /// The witness cache of §3.1 for repeated triviality checks.
    pub witness_cache: bool,
    /// Evaluate operations whose operands are constants (never one that
    /// would trap), and branches on constants.
    pub fold_constants: bool,
    /// Peephole rules such as `x - x = 0`, `x * 1 = x`, `x & 0 = 0`.
    pub simplify_arithmetic: bool,
    /// Reuse an equal pure operation of the same block (local value numbering).
    pub cse: bool,
    /// `x = y` makes `x` name `y`'s value instead of a `copy`.
    pub copy_propagation: bool,
}

impl Default for BraunOptions {
    fn default() -> Self {
        BraunOptions::all_on()
    }
}

impl BraunOptions {
    /// Every optimization and Algorithm 5 on, phi variant (not marker).
    pub fn all_on() -> Self {
        BraunOptions {
            marker: false,
            remove_redundant_sccs: true,
            witness_cache: true,
            fold_constants: true,
            simplify_arithmetic: true,
            cse: true,
            copy_propagation: true,
        }
    }

    /// The plain algorithm of §2 plus Algorithm 5: no on-the-fly
    /// optimization. Its phi count equals Cytron et al.'s on reducible CFGs.
    pub fn plain() -> Self {
        BraunOptions {
            marker: false,
            remove_redundant_sccs: true,
            witness_cache: true,
            fold_constants: false,
            simplify_arithmetic: false,
            cse: false,
            copy_propagation: false,
        }
    }

    /// True when no on-the-fly optimization is on.
    pub fn no_optimizations(&self) -> bool {
        !(self.fold_constants || self.simplify_arithmetic || self.cse || self.copy_propagation)
    }

    /// Every combination of the seven switches (128 option sets).
    pub fn every_combination() -> Vec<BraunOptions> {
        (0u32..128)
            .map(|m| BraunOptions {
                marker: m & 1 != 0,
                remove_redundant_sccs: m & 2 != 0,
                witness_cache: m & 4 != 0,
                fold_constants: m & 8 != 0,
                simplify_arithmetic: m & 16 != 0,
                cse: m & 32 != 0,
                copy_propagation: m & 64 != 0,
            })
            .collect()
    }

    /// A short name listing the switches that are on, e.g. `marker+fold`.
    pub fn describe(&self) -> String {
        let mut parts = vec![if self.marker { "marker" } else { "phi" }];
        let flags = [
            (self.remove_redundant_sccs, "scc"),
            (self.witness_cache, "witness"),
            (self.fold_constants, "fold"),
            (self.simplify_arithmetic, "simplify"),
            (self.cse, "cse"),
            (self.copy_propagation, "copyprop"),
        ];
        parts.extend(flags.iter().filter(|(on, _)| *on).map(|&(_, n)| n));
        parts.join("+")
    }
}

/// Counters of one construction, for statistics and tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BraunStats {
    /// Phis created, temporary ones included.
    pub phis_created: usize,
    /// Phis removed as trivial (Alg. 3).
    pub trivial_removed: usize,
    /// Phis removed as members of redundant SCCs (Alg. 5).
    pub scc_removed: usize,
    /// Phis removed because nothing used them any more.
    pub dead_removed: usize,
    /// Triviality checks answered by the witness cache alone.
    pub witness_hits: usize,
}

/// Builds SSA for every function of a valid program.
///
/// Precondition: `program.validate()` holds (the parser guarantees it).
pub fn construct_program(program: &ast::Program, opts: &BraunOptions) -> ir::Module {
    debug_assert!(program.validate().is_ok(), "construct_program needs a valid program");
    ir::Module { functions: program.functions.iter().map(|f| construct_function(f, opts).0).collect() }
}

/// Builds SSA for one function and reports what the construction did.
pub fn construct_function(func: &ast::Function, opts: &BraunOptions) -> (ir::Function, BraunStats) {
    let mut b = Builder::new(func, *opts);
    b.build_body(func);
    let f = b.finish(&func.name);
    (f, b.stats)
}

/// A source variable, or a hidden one that holds the value of a `&&`/`||`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
struct Var(u32);

/// An operand while an expression is built: a constant not yet placed in
/// any block, or a value. Constants are placed lazily so that folding leaves
/// no dead `const`s behind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Operand {
    Imm(i64),
    Val(Value),
}

/// Construction-time data of a phi.
#[derive(Clone, Debug)]
struct PhiData {
    args: Vec<Value>,
    /// Phis that have this phi among their arguments (may hold stale or
    /// repeated entries; they are filtered when used).
    users: Vec<Value>,
    /// All operands are present (false while Alg. 2 collects them, and for
    /// the incomplete phis of an unsealed block).
    complete: bool,
    /// Replaced (an alias now) or removed.
    dead: bool,
    /// Indices of two arguments that witnessed non-triviality (§3.1).
    witness: Option<(u32, u32)>,
}

/// Construction-time data of a block.
#[derive(Clone, Debug, Default)]
struct BlockState {
    preds: Vec<Block>,
    phis: Vec<Value>,
    insts: Vec<Inst>,
    term: Option<Terminator>,
    sealed: bool,
    /// `currentDef[variable][block]` of Alg. 1, stored per block.
    defs: HashMap<Var, Value>,
    /// `incompletePhis[block]` of Alg. 4.
    incomplete: Vec<(Var, Value)>,
    /// Local value numbering table for CSE: operation to value.
    cse: HashMap<Op, Value>,
    /// Variables marked by the marker algorithm and the phi a cycle placed.
    marks: HashMap<Var, Option<Value>>,
}

/// A suspended look-up of Alg. 2 in a block with several predecessors.
#[derive(Debug)]
struct Frame {
    var: Var,
    block: Block,
    /// The operandless phi (phi variant), or `None` (marker variant; a phi
    /// placed on a cycle is in `BlockState::marks`).
    phi: Option<Value>,
    /// Operands collected so far (marker variant).
    collected: Vec<Value>,
    next_pred: usize,
    /// Single-predecessor blocks walked through to reach `block`; they get
    /// the result as their current definition (the `writeVariable` calls on
    /// the way back of the recursive version).
    path: Vec<Block>,
}

/// The result of walking back from a block.
enum Walk {
    Done(Value),
    Suspend(Frame),
}

/// What a loop's `break` and `continue` jump to.
#[derive(Clone, Copy, Debug)]
struct LoopTargets {
    header: Block,
    exit: Block,
}

/// The statement-level work list of [`Builder::build_body`].
enum Task<'a> {
    Stmts(std::slice::Iter<'a, Stmt>),
    AfterThen { join: Block, els: Option<(&'a ast::Block, Block)> },
    AfterElse { join: Block },
    AfterLoopBody { targets: LoopTargets },
}

/// Per-label bookkeeping for sealing label blocks.
#[derive(Clone, Copy, Debug)]
struct LabelInfo {
    /// Made on first mention, so that blocks are numbered in source order.
    block: Option<Block>,
    /// Edges the block will have: one per `goto`, plus the fall-through.
    expected_preds: usize,
    added_preds: usize,
}

struct Builder {
    opts: BraunOptions,
    blocks: EntityVec<Block, BlockState>,
    /// Union-find parent of each value: `Some(v)` after `replaceBy(v)`.
    alias: Vec<Option<Value>>,
    /// Phi data, for values that are (or were) phis.
    phis: HashMap<Value, PhiData>,
    /// Known constant of a value (for folding).
    consts: HashMap<Value, i64>,
    value_count: u32,
    vars: HashMap<String, Var>,
    var_count: u32,
    /// Initial value of each variable in the entry block (params or 0).
    initial: HashMap<Var, Value>,
    params: Vec<Value>,
    undef: Option<Value>,
    cur: Block,
    loops: Vec<LoopTargets>,
    labels: HashMap<String, LabelInfo>,
    /// Epoch stamps that detect a walk going round a cycle of
    /// single-predecessor blocks (only possible in unreachable code).
    walk_stamp: Vec<u32>,
    walk_epoch: u32,
    stats: BraunStats,
}

impl Builder {
    fn new(func: &ast::Function, opts: BraunOptions) -> Self {
        let mut b = Builder {
            opts,
            blocks: EntityVec::new(),
            alias: Vec::new(),
            phis: HashMap::default(),
            consts: HashMap::default(),
            value_count: 0,
            vars: HashMap::default(),
            var_count: 0,
            initial: HashMap::default(),
            params: Vec::new(),
            undef: None,
            cur: ir::Function::ENTRY,
            loops: Vec::new(),
            labels: HashMap::default(),
            walk_stamp: Vec::new(),
            walk_epoch: 0,
            stats: BraunStats::default(),
        };
        let entry = b.new_block();
        debug_assert_eq!(entry, ir::Function::ENTRY);
        b.blocks[entry].sealed = true;
        for p in &func.params {
            let v = b.new_value();
            let var = b.var(p);
            b.params.push(v);
            b.initial.insert(var, v);
        }
        // Count the gotos to each label so that label blocks can be sealed
        // as soon as their last predecessor is known.
        let mut goto_counts: HashMap<&str, usize> = HashMap::default();
        let mut label_names: Vec<&str> = Vec::new();
        ast::walk_stmts(&func.body, |s, _| match s {
            Stmt::Goto(l) => *goto_counts.entry(l.as_str()).or_default() += 1,
            Stmt::Label(l) => label_names.push(l.as_str()),
            _ => {}
        });
        for l in label_names {
            let expected = goto_counts.get(l).copied().unwrap_or(0) + 1;
            b.labels.insert(l.to_string(), LabelInfo { block: None, expected_preds: expected, added_preds: 0 });
        }
        b
    }

    // ----- entities -----

    fn new_value(&mut self) -> Value {
        let v = Value(self.value_count);
        self.value_count += 1;
        self.alias.push(None);
        v
    }

    fn new_block(&mut self) -> Block {
        self.walk_stamp.push(0);
        self.blocks.push(BlockState::default())
    }

    /// A block for the code after `return`, `goto`, `break` or `continue`:
    /// no predecessor will ever be added, so it is sealed at once.
    fn new_unreachable_block(&mut self) -> Block {
        let b = self.new_block();
        self.blocks[b].sealed = true;
        b
    }

    fn var(&mut self, name: &str) -> Var {
        if let Some(&v) = self.vars.get(name) {
            return v;
        }
        let v = Var(self.var_count);
        self.var_count += 1;
        self.vars.insert(name.to_string(), v);
        v
    }

    fn hidden_var(&mut self) -> Var {
        let v = Var(self.var_count);
        self.var_count += 1;
        v
    }

    /// Follows alias links to the value that now stands for `v`, with path
    /// halving.
    fn resolve(&mut self, mut v: Value) -> Value {
        while let Some(p) = self.alias[v.index()] {
            if let Some(pp) = self.alias[p.index()] {
                self.alias[v.index()] = Some(pp);
            }
            v = p;
        }
        v
    }

    fn is_live_phi(&self, v: Value) -> bool {
        self.phis.get(&v).is_some_and(|p| !p.dead)
    }

    // ----- Algorithm 1: local value numbering -----

    fn write_variable(&mut self, var: Var, block: Block, value: Value) {
        self.blocks[block].defs.insert(var, value);
    }

    /// `readVariable` of Alg. 1 and 2, with the recursion of Alg. 2 on an
    /// explicit stack of frames.
    fn read_variable(&mut self, var: Var, block: Block) -> Value {
        let mut stack: Vec<Frame> = Vec::new();
        let mut walk = self.walk(var, block);
        loop {
            match walk {
                Walk::Suspend(frame) => stack.push(frame),
                Walk::Done(v) => match stack.last_mut() {
                    None => return self.resolve(v),
                    Some(top) => {
                        let top_phi = top.phi;
                        if let Some(phi) = top_phi {
                            self.append_phi_operand(phi, v);
                        } else {
                            top.collected.push(v);
                        }
                    }
                },
            }
            let top = stack.last_mut().expect("a frame is pending");
            let preds = &self.blocks[top.block].preds;
            if top.next_pred < preds.len() {
                let p = preds[top.next_pred];
                top.next_pred += 1;
                walk = self.walk(var, p);
            } else {
                let frame = stack.pop().expect("a frame is pending");
                walk = Walk::Done(self.finish_frame(frame));
            }
        }
    }

    /// Walks back from `block` through single-predecessor blocks until a
    /// definition is found or a block needs its predecessors asked (a frame).
    fn walk(&mut self, var: Var, block: Block) -> Walk {
        self.walk_epoch = self.walk_epoch.wrapping_add(1);
        if self.walk_epoch == 0 {
            self.walk_stamp.iter_mut().for_each(|s| *s = 0);
            self.walk_epoch = 1;
        }
        let mut path = Vec::new();
        let mut b = block;
        let value = loop {
            if let Some(&v) = self.blocks[b].defs.get(&var) {
                break v;
            }
            if b == ir::Function::ENTRY {
                let v = self.initial_value(var);
                self.write_variable(var, b, v);
                break v;
            }
            if !self.blocks[b].sealed {
                // Alg. 2, first case: an incomplete CFG.
                let phi = self.new_phi(b, false);
                self.blocks[b].incomplete.push((var, phi));
                self.write_variable(var, b, phi);
                break phi;
            }
            let npreds = self.blocks[b].preds.len();
            if npreds == 1 {
                // Alg. 2: one predecessor, no phi needed.
                if self.walk_stamp[b.index()] == self.walk_epoch {
                    // A cycle of single-predecessor blocks: no path from the
                    // entry reaches it.
                    break self.undef_value();
                }
                self.walk_stamp[b.index()] = self.walk_epoch;
                path.push(b);
                b = self.blocks[b].preds[0];
                continue;
            }
            if npreds == 0 {
                // Unreachable code: Braun et al.'s `Undefined`.
                break self.undef_value();
            }
            if self.opts.marker {
                match self.blocks[b].marks.get(&var).copied() {
                    Some(Some(phi)) => break phi,
                    Some(None) => {
                        // The look-up went round a cycle back to a marked
                        // block: place the phi that breaks the cycle (§3.3).
                        let phi = self.new_phi(b, false);
                        self.blocks[b].marks.insert(var, Some(phi));
                        self.write_variable(var, b, phi);
                        break phi;
                    }
                    None => {
                        self.blocks[b].marks.insert(var, None);
                        return Walk::Suspend(Frame {
                            var,
                            block: b,
                            phi: None,
                            collected: Vec::new(),
                            next_pred: 0,
                            path,
                        });
                    }
                }
            }
            // Alg. 2: break potential cycles with an operandless phi.
            let phi = self.new_phi(b, false);
            self.write_variable(var, b, phi);
            return Walk::Suspend(Frame { var, block: b, phi: Some(phi), collected: Vec::new(), next_pred: 0, path });
        };
        for p in path {
            self.write_variable(var, p, value);
        }
        Walk::Done(value)
    }

    /// Completes a frame once every predecessor has answered.
    fn finish_frame(&mut self, frame: Frame) -> Value {
        let value = match frame.phi {
            Some(phi) => {
                // Alg. 2, addPhiOperands: the operands are in; check triviality.
                self.phis.get_mut(&phi).expect("frame phi").complete = true;
                self.try_remove_trivial_phi(phi)
            }
            None => {
                let placed = self.blocks[frame.block].marks.remove(&frame.var).flatten();
                let collected: Vec<Value> = frame.collected.iter().map(|&v| self.resolve(v)).collect();
                match placed {
                    Some(phi) => {
                        for v in collected {
                            self.append_phi_operand(phi, v);
                        }
                        self.phis.get_mut(&phi).expect("marker phi").complete = true;
                        self.try_remove_trivial_phi(phi)
                    }
                    None => {
                        let first = collected[0];
                        if collected.iter().all(|&v| v == first) {
                            first
                        } else {
                            let phi = self.new_phi(frame.block, false);
                            for v in collected {
                                self.append_phi_operand(phi, v);
                            }
                            self.phis.get_mut(&phi).expect("new phi").complete = true;
                            self.try_remove_trivial_phi(phi)
                        }
                    }
                }
            }
        };
        let value = self.resolve(value);
        self.write_variable(frame.var, frame.block, value);
        for p in frame.path {
            self.write_variable(frame.var, p, value);
        }
        value
    }

    fn initial_value(&mut self, var: Var) -> Value {
        if let Some(&v) = self.initial.get(&var) {
            return self.resolve(v);
        }
        // Variables start at 0 on entry.
        let v = self.materialize_in(ir::Function::ENTRY, Operand::Imm(0));
        self.initial.insert(var, v);
        v
    }

    fn undef_value(&mut self) -> Value {
        if let Some(u) = self.undef {
            return u;
        }
        let u = self.new_value();
        self.blocks[ir::Function::ENTRY].insts.push(Inst { dest: Some(u), op: Op::Undef });
        self.undef = Some(u);
        u
    }

    fn new_phi(&mut self, block: Block, complete: bool) -> Value {
        let v = self.new_value();
        self.phis.insert(v, PhiData { args: Vec::new(), users: Vec::new(), complete, dead: false, witness: None });
        self.blocks[block].phis.push(v);
        self.stats.phis_created += 1;
        v
    }

    fn append_phi_operand(&mut self, phi: Value, arg: Value) {
        let arg = self.resolve(arg);
        self.phis.get_mut(&phi).expect("phi").args.push(arg);
        if arg != phi {
            if let Some(a) = self.phis.get_mut(&arg) {
                a.users.push(phi);
            }
        }
    }

    // ----- Algorithm 4: sealing -----

    fn seal_block(&mut self, block: Block) {
        debug_assert!(!self.blocks[block].sealed, "{block} sealed twice");
        self.blocks[block].sealed = true;
        let incomplete = std::mem::take(&mut self.blocks[block].incomplete);
        for (var, phi) in incomplete {
            // addPhiOperands for each incomplete phi.
            let npreds = self.blocks[block].preds.len();
            for i in 0..npreds {
                let p = self.blocks[block].preds[i];
                let v = self.read_variable(var, p);
                self.append_phi_operand(phi, v);
            }
            self.phis.get_mut(&phi).expect("incomplete phi").complete = true;
            self.try_remove_trivial_phi(phi);
        }
    }

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

    /// `resolve` without path compression (for use inside iterator closures).
    fn resolve_pure(&self, mut v: Value) -> Value {
        while let Some(p) = self.alias[v.index()] {
            v = p;
        }
        v
    }

    /// `tryRemoveTrivialPhi` of Alg. 3: replaces a trivial phi by the value
    /// it merges, then re-checks the phis that used it (with a worklist).
    /// Returns what `phi` stands for now.
    fn try_remove_trivial_phi(&mut self, phi: Value) -> Value {
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

    // ----- instructions and on-the-fly optimizations (§3.1) -----

    fn materialize_in(&mut self, block: Block, o: Operand) -> Value {
        match o {
            Operand::Val(v) => self.resolve(v),
            Operand::Imm(c) => {
                let op = Op::Const(c);
                if self.opts.cse {
                    if let Some(&v) = self.blocks[block].cse.get(&op) {
                        return v;
                    }
                }
                let v = self.new_value();
                self.blocks[block].insts.push(Inst { dest: Some(v), op: op.clone() });
                self.consts.insert(v, c);
                if self.opts.cse {
                    self.blocks[block].cse.insert(op, v);
                }
                v
            }
        }
    }

    fn materialize(&mut self, o: Operand) -> Value {
        self.materialize_in(self.cur, o)
    }

    /// A value as an operand: a known constant becomes `Imm` when folding.
    fn operand_of(&mut self, v: Value) -> Operand {
        let v = self.resolve(v);
        if self.opts.fold_constants {
            if let Some(&c) = self.consts.get(&v) {
                return Operand::Imm(c);
            }
        }
        Operand::Val(v)
    }

    /// Emits a pure value-producing operation in the current block, reusing
    /// an equal one of the block when CSE is on.
    fn emit_value(&mut self, op: Op) -> Value {
        if self.opts.cse && !matches!(op, Op::Load(_)) {
            if let Some(&v) = self.blocks[self.cur].cse.get(&op) {
                return self.resolve(v);
            }
        }
        let v = self.new_value();
        self.blocks[self.cur].insts.push(Inst { dest: Some(v), op: op.clone() });
        if self.opts.cse && !matches!(op, Op::Load(_)) {
            self.blocks[self.cur].cse.insert(op, v);
        }
        v
    }

    fn emit_effect(&mut self, op: Op) {
        self.blocks[self.cur].insts.push(Inst { dest: None, op });
    }

    fn unary(&mut self, op: UnOp, a: Operand) -> Operand {
        if self.opts.fold_constants {
            if let Operand::Imm(x) = a {
                return Operand::Imm(crate::construction::fold::unary(op, x));
            }
        }
        let a = self.materialize(a);
        Operand::Val(self.emit_value(Op::Unary(op, a)))
    }

    fn binary(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        if self.opts.fold_constants {
            if let (Operand::Imm(x), Operand::Imm(y)) = (a, b) {
                if let Some(r) = crate::construction::fold::binary(op, x, y) {
                    return Operand::Imm(r);
                }
            }
        }
        if self.opts.simplify_arithmetic {
            if let Some(r) = crate::construction::fold::simplify(op, self.simplify_view(a), self.simplify_view(b)) {
                return match r {
                    crate::construction::fold::Simplified::Left => a,
                    crate::construction::fold::Simplified::Right => b,
                    crate::construction::fold::Simplified::Const(c) => Operand::Imm(c),
                };
            }
        }
        let (mut x, mut y) = (self.materialize(a), self.materialize(b));
        if self.opts.cse && op.is_commutative() && y < x {
            std::mem::swap(&mut x, &mut y);
        }
        Operand::Val(self.emit_value(Op::Binary(op, x, y)))
    }

    fn simplify_view(&mut self, o: Operand) -> crate::construction::fold::Term {
        match o {
            Operand::Imm(c) => crate::construction::fold::Term::Const(c),
            Operand::Val(v) => {
                let v = self.resolve(v);
                match self.consts.get(&v) {
                    Some(&c) => crate::construction::fold::Term::Const(c),
                    None => crate::construction::fold::Term::Value(v.0),
                }
            }
        }
    }

    // ----- expressions -----

    /// Evaluates an expression in the current block (which it may change,
    /// for `&&` and `||`). Recursion is bounded by `ast::MAX_EXPR_DEPTH`.
    fn expr(&mut self, e: &Expr) -> Operand {
        match e {
            Expr::Lit(c) => {
                if self.opts.fold_constants {
                    Operand::Imm(*c)
                } else {
                    Operand::Val(self.materialize(Operand::Imm(*c)))
                }
            }
            Expr::Var(name) => {
                let var = self.var(name);
                let v = self.read_variable(var, self.cur);
                self.operand_of(v)
            }
            Expr::Load(a) => {
                let a = self.expr(a);
                let a = self.materialize(a);
                Operand::Val(self.emit_value(Op::Load(a)))
            }
            Expr::Unary(op, a) => {
                let a = self.expr(a);
                self.unary(*op, a)
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a);
                let b = self.expr(b);
                self.binary(*op, a, b)
            }
            Expr::LogicalAnd(a, b) => self.short_circuit_value(a, b, true),
            Expr::LogicalOr(a, b) => self.short_circuit_value(a, b, false),
        }
    }

    /// `a && b` (is_and) or `a || b` as a 0/1 value: a hidden variable is
    /// set on both paths and read at the join, so the construction itself
    /// places the phi.
    fn short_circuit_value(&mut self, a: &Expr, b: &Expr, is_and: bool) -> Operand {
        let va = self.expr(a);
        if let Operand::Imm(x) = va {
            // Folding is on (only then is an operand `Imm`).
            let decided = if is_and { x == 0 } else { x != 0 };
            if decided {
                return Operand::Imm(if is_and { 0 } else { 1 });
            }
            let vb = self.expr(b);
            return self.binary(BinOp::Ne, vb, Operand::Imm(0));
        }
        let va = self.materialize(va);
        let t = self.hidden_var();
        let early = self.materialize(Operand::Imm(if is_and { 0 } else { 1 }));
        self.write_variable(t, self.cur, early);
        let rhs = self.new_block();
        let join = self.new_block();
        if is_and {
            self.branch(va, rhs, join);
        } else {
            self.branch(va, join, rhs);
        }
        self.seal_block(rhs);
        self.cur = rhs;
        let vb = self.expr(b);
        let nb = self.binary(BinOp::Ne, vb, Operand::Imm(0));
        let nb = self.materialize(nb);
        self.write_variable(t, self.cur, nb);
        self.jump(join);
        self.seal_block(join);
        self.cur = join;
        let r = self.read_variable(t, join);
        self.operand_of(r)
    }

    /// Jumping code: evaluates the condition `c` in the current block and
    /// branches to `t` when it is not 0, else to `f`.
    fn cond_jump(&mut self, c: &Expr, t: Block, f: Block) {
        match c {
            Expr::LogicalAnd(a, b) => {
                let mid = self.new_block();
                self.cond_jump(a, mid, f);
                self.seal_block(mid);
                self.cur = mid;
                self.cond_jump(b, t, f);
            }
            Expr::LogicalOr(a, b) => {
                let mid = self.new_block();
                self.cond_jump(a, t, mid);
                self.seal_block(mid);
                self.cur = mid;
                self.cond_jump(b, t, f);
            }
            Expr::Unary(UnOp::Not, a) => self.cond_jump(a, f, t),
            _ => {
                let v = self.expr(c);
                match v {
                    Operand::Imm(x) => self.jump(if x != 0 { t } else { f }),
                    Operand::Val(v) => self.branch(v, t, f),
                }
            }
        }
    }

    // ----- control flow -----

    fn set_term(&mut self, term: Terminator) {
        let b = self.cur;
        debug_assert!(self.blocks[b].term.is_none(), "{b} terminated twice");
        for s in term.successors() {
            debug_assert!(!self.blocks[s].sealed, "edge into sealed block {s}");
            self.blocks[s].preds.push(b);
        }
        self.blocks[b].term = Some(term);
    }

    fn jump(&mut self, to: Block) {
        self.set_term(Terminator::Jump(to));
    }

    fn branch(&mut self, cond: Value, then_dest: Block, else_dest: Block) {
        self.set_term(Terminator::Branch { cond, then_dest, else_dest });
    }

    fn label_block(&mut self, label: &str) -> Block {
        if let Some(b) = self.labels[label].block {
            return b;
        }
        let b = self.new_block();
        self.labels.get_mut(label).expect("validated label").block = Some(b);
        b
    }

    /// Jumps from the current block to the label's block, and seals that
    /// block when this was its last predecessor.
    fn jump_to_label(&mut self, label: &str) -> Block {
        let block = self.label_block(label);
        self.jump(block);
        let info = self.labels.get_mut(label).expect("validated label");
        info.added_preds += 1;
        if info.added_preds == info.expected_preds {
            self.seal_block(block);
        }
        block
    }

    // ----- statements -----

    fn build_body(&mut self, func: &ast::Function) {
        let mut tasks: Vec<Task> = vec![Task::Stmts(func.body.stmts.iter())];
        while let Some(task) = tasks.last_mut() {
            match task {
                Task::Stmts(iter) => match iter.next() {
                    None => {
                        tasks.pop();
                    }
                    Some(stmt) => self.stmt(stmt, &mut tasks),
                },
                Task::AfterThen { .. } | Task::AfterElse { .. } | Task::AfterLoopBody { .. } => {
                    let task = tasks.pop().expect("non-empty");
                    self.after(task, &mut tasks);
                }
            }
        }
        let zero = self.materialize(Operand::Imm(0));
        self.set_term(Terminator::Return(zero));
    }

    fn stmt<'a>(&mut self, stmt: &'a Stmt, tasks: &mut Vec<Task<'a>>) {
        match stmt {
            Stmt::Var(name, e) | Stmt::Assign(name, e) => {
                let value = match e {
                    Expr::Var(src) => {
                        // With copy propagation, `x = y` names y's value;
                        // without it, it is a real copy.
                        let srcv = self.var(src);
                        let v = self.read_variable(srcv, self.cur);
                        if self.opts.copy_propagation {
                            v
                        } else {
                            self.emit_value_nocse(Op::Copy(v))
                        }
                    }
                    _ => {
                        let o = self.expr(e);
                        self.materialize(o)
                    }
                };
                let var = self.var(name);
                self.write_variable(var, self.cur, value);
            }
            Stmt::Store(a, v) => {
                let a = self.expr(a);
                let a = self.materialize(a);
                let v = self.expr(v);
                let v = self.materialize(v);
                self.emit_effect(Op::Store { addr: a, value: v });
            }
            Stmt::Out(e) => {
                let v = self.expr(e);
                let v = self.materialize(v);
                self.emit_effect(Op::Out(v));
            }
            Stmt::Return(e) => {
                let v = self.expr(e);
                let v = self.materialize(v);
                self.set_term(Terminator::Return(v));
                self.cur = self.new_unreachable_block();
            }
            Stmt::If(c, then, els) => {
                let then_b = self.new_block();
                let join = self.new_block();
                let else_b = if els.is_some() { self.new_block() } else { join };
                self.cond_jump(c, then_b, else_b);
                self.seal_block(then_b);
                if els.is_some() {
                    self.seal_block(else_b);
                }
                self.cur = then_b;
                tasks.push(Task::AfterThen { join, els: els.as_ref().map(|e| (e, else_b)) });
                tasks.push(Task::Stmts(then.stmts.iter()));
            }
            Stmt::While(c, body) => {
                // §2.3, Fig. 3: the header stays unsealed until the back edge.
                let header = self.new_block();
                self.jump(header);
                self.cur = header;
                let body_b = self.new_block();
                let exit = self.new_block();
                self.cond_jump(c, body_b, exit);
                self.seal_block(body_b);
                self.cur = body_b;
                let targets = LoopTargets { header, exit };
                self.loops.push(targets);
                tasks.push(Task::AfterLoopBody { targets });
                tasks.push(Task::Stmts(body.stmts.iter()));
            }
            Stmt::Break => {
                let exit = self.loops.last().expect("validated: break in a loop").exit;
                self.jump(exit);
                self.cur = self.new_unreachable_block();
            }
            Stmt::Continue => {
                let header = self.loops.last().expect("validated: continue in a loop").header;
                self.jump(header);
                self.cur = self.new_unreachable_block();
            }
            Stmt::Goto(label) => {
                self.jump_to_label(label);
                self.cur = self.new_unreachable_block();
            }
            Stmt::Label(label) => {
                self.cur = self.jump_to_label(label);
            }
            Stmt::Block(b) => tasks.push(Task::Stmts(b.stmts.iter())),
        }
    }

    fn emit_value_nocse(&mut self, op: Op) -> Value {
        let v = self.new_value();
        self.blocks[self.cur].insts.push(Inst { dest: Some(v), op });
        v
    }

    fn after<'a>(&mut self, task: Task<'a>, tasks: &mut Vec<Task<'a>>) {
        match task {
            Task::AfterThen { join, els } => {
                self.jump(join);
                match els {
                    Some((els, else_b)) => {
                        self.cur = else_b;
                        tasks.push(Task::AfterElse { join });
                        tasks.push(Task::Stmts(els.stmts.iter()));
                    }
                    None => {
                        self.seal_block(join);
                        self.cur = join;
                    }
                }
            }
            Task::AfterElse { join } => {
                self.jump(join);
                self.seal_block(join);
                self.cur = join;
            }
            Task::AfterLoopBody { targets } => {
                self.jump(targets.header);
                self.seal_block(targets.header);
                self.seal_block(targets.exit);
                self.loops.pop();
                self.cur = targets.exit;
            }
            Task::Stmts(_) => unreachable!("statement lists are handled by build_body"),
        }
    }

    // ----- finishing: unreachable code, Algorithm 5, dead phis -----

    fn finish(&mut self, name: &str) -> ir::Function {
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
                for &p in &self.blocks[b].phis {
                    if let Some(d) = self.phis.get_mut(&p) {
                        d.dead = true;
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
                let d = self.phis.get_mut(&phi).expect("phi");
                if d.dead {
                    continue;
                }
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

    /// Algorithm 5, `removeRedundantPhis`, with the recursion on inner phi
    /// sets replaced by a stack of jobs.
    fn remove_redundant_phis(&mut self, phis: Vec<Value>) {
        // A job is a list of SCCs in topological order (operands first) and
        // the position of the next SCC to process.
        let mut jobs: Vec<(Vec<Vec<Value>>, usize)> = vec![(self.phi_sccs(&phis), 0)];
        while let Some((sccs, next)) = jobs.last_mut() {
            if *next == sccs.len() {
                jobs.pop();
                continue;
            }
            let scc: Vec<Value> = sccs[*next].iter().copied().filter(|&p| self.is_live_phi(p)).collect();
            *next += 1;
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
            // The printed algorithm skips singletons as already handled, but
            // contracting an earlier SCC can make one trivial again.
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
                    let d = self.phis.get_mut(&phi).expect("phi");
                    d.dead = true;
                    let users = std::mem::take(&mut d.users);
                    self.alias[phi.index()] = Some(v);
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
    /// order. Iterative.
    fn phi_sccs(&mut self, phis: &[Value]) -> Vec<Vec<Value>> {
        let index_of: HashMap<Value, usize> = phis.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        let succs: Vec<Vec<usize>> = phis
            .iter()
            .map(|&p| {
                let args = self.phis[&p].args.clone();
                args.into_iter().filter_map(|a| index_of.get(&self.resolve(a)).copied()).collect()
            })
            .collect();
        tarjan_sccs(&succs).into_iter().map(|c| c.into_iter().map(|i| phis[i]).collect()).collect()
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
