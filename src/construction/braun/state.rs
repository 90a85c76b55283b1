//! The builder state of Braun et al.'s construction ("Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013, §2): blocks with
//! their `currentDef` maps and `incompletePhis` (Alg. 1 and 4), phis with
//! their operands and users, the alias links that implement `replaceBy`
//! (Alg. 3), and the entity helpers every other file of the folder uses.

use super::options::{BraunOptions, BraunStats};
use crate::ast::{self, Stmt};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{self, Block, Inst, Op, Terminator, Value};
// A fast non-cryptographic hasher: the keys are small integers we make.
use rustc_hash::FxHashMap as HashMap;

/// A source variable, or a hidden one that holds the value of a `&&`/`||`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub(super) struct Var(u32);

/// Construction-time data of a phi.
#[derive(Clone, Debug)]
pub(super) struct PhiData {
    pub(super) args: Vec<Value>,
    /// Phis that have this phi among their arguments (may hold stale or
    /// repeated entries; they are filtered when used).
    pub(super) users: Vec<Value>,
    /// All operands are present (false while Alg. 2 collects them, and for
    /// the incomplete phis of an unsealed block).
    pub(super) complete: bool,
    /// Replaced (an alias now) or removed.
    pub(super) dead: bool,
    /// Indices of two arguments that witnessed non-triviality (§3.1).
    pub(super) witness: Option<(u32, u32)>,
}

/// Construction-time data of a block.
#[derive(Clone, Debug, Default)]
pub(super) struct BlockState {
    pub(super) preds: Vec<Block>,
    pub(super) phis: Vec<Value>,
    pub(super) insts: Vec<Inst>,
    pub(super) term: Option<Terminator>,
    pub(super) sealed: bool,
    /// `currentDef[variable][block]` of Alg. 1, stored per block.
    pub(super) defs: HashMap<Var, Value>,
    /// `incompletePhis[block]` of Alg. 4.
    pub(super) incomplete: Vec<(Var, Value)>,
    /// Local value numbering table for CSE: operation to value.
    pub(super) cse: HashMap<Op, Value>,
    /// Variables marked by the marker algorithm and the phi a cycle placed.
    pub(super) marks: HashMap<Var, Option<Value>>,
}

/// What a loop's `break` and `continue` jump to.
#[derive(Clone, Copy, Debug)]
pub(super) struct LoopTargets {
    pub(super) header: Block,
    pub(super) exit: Block,
}

/// Per-label bookkeeping for sealing label blocks.
#[derive(Clone, Copy, Debug)]
pub(super) struct LabelInfo {
    /// Made on first mention, so that blocks are numbered in source order.
    pub(super) block: Option<Block>,
    /// Edges the block will have: one per `goto`, plus the fall-through.
    pub(super) expected_preds: usize,
    pub(super) added_preds: usize,
}

pub(super) struct Builder {
    pub(super) opts: BraunOptions,
    pub(super) blocks: EntityVec<Block, BlockState>,
    /// Union-find parent of each value: `Some(v)` after `replaceBy(v)`.
    pub(super) alias: Vec<Option<Value>>,
    /// Phi data, for values that are (or were) phis.
    pub(super) phis: HashMap<Value, PhiData>,
    /// Known constant of a value (for folding).
    pub(super) consts: HashMap<Value, i64>,
    pub(super) value_count: u32,
    vars: HashMap<String, Var>,
    var_count: u32,
    /// Initial value of each variable in the entry block (params or 0).
    pub(super) initial: HashMap<Var, Value>,
    pub(super) params: Vec<Value>,
    undef: Option<Value>,
    pub(super) cur: Block,
    pub(super) loops: Vec<LoopTargets>,
    pub(super) labels: HashMap<String, LabelInfo>,
    /// Epoch stamps that detect a walk going round a cycle of
    /// single-predecessor blocks (only possible in unreachable code).
    pub(super) walk_stamp: Vec<u32>,
    pub(super) walk_epoch: u32,
    pub(super) stats: BraunStats,
}

impl Builder {
    pub(super) fn new(func: &ast::Function, opts: BraunOptions) -> Self {
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

    pub(super) fn new_value(&mut self) -> Value {
        let v = Value(self.value_count);
        self.value_count += 1;
        self.alias.push(None);
        v
    }

    pub(super) fn new_block(&mut self) -> Block {
        self.walk_stamp.push(0);
        self.blocks.push(BlockState::default())
    }

    /// A block for the code after `return`, `goto`, `break` or `continue`:
    /// no predecessor will ever be added, so it is sealed at once.
    pub(super) fn new_unreachable_block(&mut self) -> Block {
        let b = self.new_block();
        self.blocks[b].sealed = true;
        b
    }

    pub(super) fn var(&mut self, name: &str) -> Var {
        if let Some(&v) = self.vars.get(name) {
            return v;
        }
        let v = Var(self.var_count);
        self.var_count += 1;
        self.vars.insert(name.to_string(), v);
        v
    }

    pub(super) fn hidden_var(&mut self) -> Var {
        let v = Var(self.var_count);
        self.var_count += 1;
        v
    }

    /// Follows alias links to the value that now stands for `v`, with path
    /// halving.
    pub(super) fn resolve(&mut self, mut v: Value) -> Value {
        while let Some(p) = self.alias[v.index()] {
            if let Some(pp) = self.alias[p.index()] {
                self.alias[v.index()] = Some(pp);
            }
            v = p;
        }
        v
    }

    pub(super) fn is_live_phi(&self, v: Value) -> bool {
        self.phis.get(&v).is_some_and(|p| !p.dead)
    }

    /// `resolve` without path compression (for use inside iterator closures).
    pub(super) fn resolve_pure(&self, mut v: Value) -> Value {
        while let Some(p) = self.alias[v.index()] {
            v = p;
        }
        v
    }

    pub(super) fn undef_value(&mut self) -> Value {
        if let Some(u) = self.undef {
            return u;
        }
        let u = self.new_value();
        self.blocks[ir::Function::ENTRY].insts.push(Inst { dest: Some(u), op: Op::Undef });
        self.undef = Some(u);
        u
    }

    pub(super) fn new_phi(&mut self, block: Block, complete: bool) -> Value {
        let v = self.new_value();
        self.phis.insert(v, PhiData { args: Vec::new(), users: Vec::new(), complete, dead: false, witness: None });
        self.blocks[block].phis.push(v);
        self.stats.phis_created += 1;
        v
    }

    pub(super) fn append_phi_operand(&mut self, phi: Value, arg: Value) {
        let arg = self.resolve(arg);
        self.phis.get_mut(&phi).expect("phi").args.push(arg);
        if arg != phi {
            if let Some(a) = self.phis.get_mut(&arg) {
                a.users.push(phi);
            }
        }
    }
}
