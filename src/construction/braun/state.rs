//! The builder state of Braun et al.'s construction ("Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013, §2): blocks with
//! their `incompletePhis` (Alg. 4), the `currentDef` table of Alg. 1
//! (`current_defs.rs`), phis with their operands and users, the alias links
//! that implement `replaceBy` (Alg. 3), and the entity helpers every other
//! file of the folder uses.
//!
//! Data structures, chosen for large functions (the look-up of Alg. 2 creates
//! one operandless phi per join block on a variable's live range, and most of
//! them die at once as trivial): the alias links are one dense vector of
//! parents indexed by value (a value is its own parent until `replaceBy`);
//! the phis live in a [`PhiTable`], a dense arena whose slots are freed when
//! a phi dies and reused, with their vectors' capacity, by the next phi (a
//! provisional phi of the look-up, `lookup.rs`, has no slot: its entry in
//! the table's index names its lookup instead); and a phi that dies as the
//! last phi of its block leaves the block's list. The per-block vectors are
//! allocated once, from a bound on the number of blocks taken from the AST
//! (`block_bound`), not grown by doubling.
//! A block's state holds only what every block needs: the CSE tables of
//! §3.1 are two maps, the entry block's and the block being filled's (the
//! latter emptied, not searched entry by entry, when its block is filled),
//! so that a block does not carry two empty hash tables. The marks of §3.3
//! are one word per block (`Builder::marks`): a mark lives only during one
//! look-up, which is for one variable, so the variable is not part of the
//! key, and no hash map keyed by (block, variable) is needed.
//! The look-up stack, its path of single-predecessor blocks and the
//! worklist of Alg. 3 are scratch vectors kept here between calls: most
//! look-ups and most phis are over at once, and a fresh vector for each
//! would be an allocation and a free each time.

use super::current_defs::CurrentDefs;
use super::options::{Algorithm5, BraunOptions, BraunStats};
use super::region_assignments::{RegionAssignments, RegionAssignmentsBuilder};
use crate::ast::{self, Stmt};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{self, Block, Inst, Op, Terminator, Value};
// A fast non-cryptographic hasher: the keys are small integers we make.
use rustc_hash::FxHashMap as HashMap;

/// A source variable, or a hidden one that holds the value of a `&&`/`||`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub(super) struct Var(pub(super) u32);

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
    /// Indices of two arguments that witnessed non-triviality (§3.1).
    pub(super) witness: Option<(u32, u32)>,
    /// The block the phi is in.
    pub(super) block: Block,
}

/// The phis that are alive, by value: a dense arena of [`PhiData`] and, per
/// value, its slot. A phi that dies (replaced, part of a redundant SCC, or in
/// unreachable code) leaves the table, so that `get` answers `None` for it as
/// for any value that never was a phi, and its slot (with the capacity of its
/// vectors) serves the next phi.
#[derive(Debug, Default)]
pub(super) struct PhiTable {
    slot_of: Vec<u32>,
    slots: Vec<PhiData>,
    free: Vec<u32>,
}

const NO_SLOT: u32 = u32::MAX;

/// A block the marker algorithm (§3.3) has not marked (`Builder::marks`).
pub(super) const UNMARKED: Value = Value(u32::MAX);
/// A block it marked, where no phi was placed yet.
pub(super) const MARKED: Value = Value(u32::MAX - 1);
/// The tag of a provisional phi's entry in `slot_of`: the high bit, with the
/// index of its look-up in the low bits (see `lookup.rs`).
const PROVISIONAL: u32 = 1 << 31;

impl PhiTable {
    /// Makes room for the value `v` (called for every new value).
    fn grow_to(&mut self, v: Value) {
        if self.slot_of.len() <= v.index() {
            self.slot_of.resize(v.index() + 1, NO_SLOT);
        }
    }

    pub(super) fn insert(&mut self, v: Value, block: Block, complete: bool) {
        self.grow_to(v);
        let slot = match self.free.pop() {
            Some(s) => {
                let d = &mut self.slots[s as usize];
                d.args.clear();
                d.users.clear();
                d.complete = complete;
                d.witness = None;
                d.block = block;
                s
            }
            None => {
                let s =
                    u32::try_from(self.slots.len()).ok().filter(|&s| s < PROVISIONAL).expect("fewer than 2^31 phis");
                self.slots.push(PhiData { args: Vec::new(), users: Vec::new(), complete, witness: None, block });
                s
            }
        };
        self.slot_of[v.index()] = slot;
    }

    /// The live phi `v`, if it is one (a provisional phi is not yet).
    pub(super) fn get(&self, v: &Value) -> Option<&PhiData> {
        let s = *self.slot_of.get(v.index())?;
        (s < PROVISIONAL).then(|| &self.slots[s as usize])
    }

    pub(super) fn get_mut(&mut self, v: &Value) -> Option<&mut PhiData> {
        let s = *self.slot_of.get(v.index())?;
        (s < PROVISIONAL).then(|| &mut self.slots[s as usize])
    }

    /// Records that `v` is the provisional phi of the look-up at
    /// position `lookup` of the lookup stack.
    pub(super) fn set_provisional(&mut self, v: Value, lookup: usize) {
        self.grow_to(v);
        let lookup = u32::try_from(lookup).ok().filter(|&f| f < PROVISIONAL - 1).expect("fewer than 2^31 lookups");
        self.slot_of[v.index()] = PROVISIONAL | lookup;
    }

    /// The lookup of the provisional phi `v`, if `v` is one.
    pub(super) fn provisional_lookup(&self, v: Value) -> Option<usize> {
        let s = *self.slot_of.get(v.index())?;
        (s != NO_SLOT && s & PROVISIONAL != 0).then_some((s & !PROVISIONAL) as usize)
    }

    /// Forgets the provisional phi `v`, which died without ever entering
    /// the table.
    pub(super) fn drop_provisional(&mut self, v: Value) {
        debug_assert!(self.provisional_lookup(v).is_some(), "{v} is not provisional");
        self.slot_of[v.index()] = NO_SLOT;
    }

    /// Takes the phi `v` out of the table (it died) and appends its users
    /// to `users`. The slot keeps its vectors' capacity for the next phi.
    pub(super) fn remove_into(&mut self, v: Value, users: &mut Vec<Value>) {
        let s = std::mem::replace(&mut self.slot_of[v.index()], NO_SLOT);
        assert!(s < PROVISIONAL, "{v} is not a live phi");
        self.free.push(s);
        users.append(&mut self.slots[s as usize].users);
    }
}

impl std::ops::Index<&Value> for PhiTable {
    type Output = PhiData;
    fn index(&self, v: &Value) -> &PhiData {
        self.get(v).unwrap_or_else(|| panic!("{v} is not a live phi"))
    }
}

/// `BlockState::region` of a block that no region of
/// `region_assignments.rs` ends at.
pub(super) const NO_REGION: u32 = u32::MAX;

/// Construction-time data of a block.
#[derive(Clone, Debug)]
pub(super) struct BlockState {
    pub(super) preds: Vec<Block>,
    pub(super) phis: Vec<Value>,
    pub(super) insts: Vec<Inst>,
    pub(super) term: Option<Terminator>,
    pub(super) sealed: bool,
    /// For a block where a look-up may skip to the block a statement or
    /// expression was entered from (a loop's header or exit, an `if`'s
    /// join, a block a condition branches to when it has several
    /// predecessors, a `&&` / `||` join), the region's number in
    /// `Builder::regions` (`NO_REGION` for other blocks).
    pub(super) region: u32,
    /// `incompletePhis[block]` of Alg. 4.
    pub(super) incomplete: Vec<(Var, Value)>,
}

impl Default for BlockState {
    fn default() -> Self {
        BlockState {
            preds: Vec::new(),
            phis: Vec::new(),
            insts: Vec::new(),
            term: None,
            sealed: false,
            region: NO_REGION,
            incomplete: Vec::new(),
        }
    }
}

/// A stack state of the look-up (`lookup.rs`): the block of Alg. 2 whose
/// predecessors are being asked for the variable's value, one after the
/// other (lines 11-13 and 18-19 in the phi variant, the marked block of
/// §3.3 in the marker variant), suspended while the look-up in one
/// predecessor runs; when the last has answered, `finish_predecessors_lookup`
/// does line 20 (or the marker variant's join). Cranelift's `SSABuilder`
/// calls the same state `Call::FinishPredecessorsLookup`.
#[derive(Debug)]
pub(super) struct PredecessorsLookup {
    pub(super) var: Var,
    pub(super) block: Block,
    /// The operandless phi (phi variant), or `None` (marker variant; a phi
    /// placed on a cycle is in `Builder::marks`).
    pub(super) phi: Option<Value>,
    /// Where this lookup's operands start in `Builder::phi_args` (phi
    /// variant while its phi is provisional, and marker variant; stacked
    /// like `path_start`).
    pub(super) args_start: usize,
    pub(super) next_pred: usize,
    /// Where this lookup's part of `Builder::walk_path` starts: the
    /// single-predecessor blocks walked through to reach `block`, which get
    /// the result as their current definition (the `writeVariable` calls on
    /// the way back of the recursive version). Look-ups are finished in the
    /// reverse order of their creation, so their parts are stacked.
    pub(super) path_start: usize,
}

/// The successors of a block, in a fixed buffer (a terminator has at most
/// two): `set_term` and the walk of `reverse_postorder` in `finish.rs` ask
/// for them once per block, and a `Vec` each time would be an allocation
/// per block.
pub(super) struct Successors {
    blocks: [Block; 2],
    len: usize,
}

impl Successors {
    pub(super) fn of(term: Option<&Terminator>) -> Successors {
        let none = ir::Function::ENTRY;
        match term {
            Some(&Terminator::Jump(b)) => Successors { blocks: [b, none], len: 1 },
            Some(&Terminator::Branch { then_dest, else_dest, .. }) => {
                Successors { blocks: [then_dest, else_dest], len: 2 }
            }
            Some(Terminator::Return(_)) | None => Successors { blocks: [none, none], len: 0 },
        }
    }
}

impl AsRef<[Block]> for Successors {
    fn as_ref(&self) -> &[Block] {
        &self.blocks[..self.len]
    }
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
    /// `currentDef[variable][block]` of Alg. 1.
    pub(super) defs: CurrentDefs,
    /// Union-find parent of each value: `v` itself, or what `replaceBy`
    /// replaced it with.
    pub(super) alias: Vec<Value>,
    /// The live phis.
    pub(super) phis: PhiTable,
    /// The local value numbering tables for CSE (§3.1), operation to value:
    /// the entry block's, kept until the end (`initial_value` places
    /// constants there), and the block being filled's, emptied when it is
    /// filled. No other block needs one: the AST walk terminates the block
    /// it fills before it moves on to another, so at most one block besides
    /// the entry is being filled at a time (`cse_block_of` says which, and
    /// is checked).
    pub(super) cse_entry: HashMap<Op, Value>,
    pub(super) cse_block: HashMap<Op, Value>,
    pub(super) cse_block_of: Option<Block>,
    /// The mark of the marker algorithm (§3.3) in each block: `UNMARKED`,
    /// `MARKED`, or the phi a cycle placed there. Marks live only during
    /// one look-up, which is for one variable (nothing a look-up calls
    /// reads a variable), and each marked block has a lookup that clears
    /// its mark when it finishes, so the variable need not be part of the
    /// key, and every block is `UNMARKED` between look-ups.
    pub(super) marks: Vec<Value>,
    /// Scratch of Alg. 5 (`scc_removal.rs`): each value's position in the
    /// phi set being split into SCCs, or `u32::MAX`.
    pub(super) scc_index: Vec<u32>,
    /// Known constant of a value (for folding).
    pub(super) consts: HashMap<Value, i64>,
    pub(super) value_count: u32,
    vars: HashMap<String, Var>,
    var_count: u32,
    /// Per variable: does the function assign it anywhere (`var x = ...`
    /// or `x = ...`; hidden variables always)? A variable that is never
    /// assigned holds its initial value everywhere, and `read_variable`
    /// returns that without a look-up (see `mod.rs`).
    assigned: Vec<bool>,
    /// Per variable: `filled` when the AST walk first assigned it, or
    /// `u32::MAX` before that.
    pub(super) first_assigned_at: Vec<u32>,
    /// Blocks filled (terminated) so far.
    pub(super) filled: u32,
    /// Per block: the value of `filled` once it was terminated
    /// (`u32::MAX` while it is not), and whether that happened outside every
    /// loop (the loop header's condition counts as inside).
    pub(super) filled_at: Vec<(u32, bool)>,
    /// Loops whose header exists but is not yet sealed.
    pub(super) open_loops: u32,
    /// Which `while` and `if` assigns which variable
    /// (`region_assignments.rs`), and the number of `while`s the AST walk
    /// has met so far.
    pub(super) regions: RegionAssignments,
    pub(super) whiles_met: u32,
    /// The variable of each assignment (`var x = ...`, `x = ...`) in the
    /// order the AST walk meets them, found by the pass of `new`, and how
    /// many the walk has met: the walk takes the variable from here instead
    /// of looking its name up a second time.
    assigned_vars: Vec<u32>,
    pub(super) assignments_met: usize,
    /// The number of each assignment's statement in walk order (see
    /// `region_assignments.rs`), and the statements the AST walk has met: a
    /// debug assertion checks that the two walks agree.
    assignment_stmts: Vec<u32>,
    pub(super) stmts_met: u32,
    /// The function has labels (and so, possibly, `goto`s).
    pub(super) has_labels: bool,
    /// Initial value of each variable in the entry block (params or 0).
    pub(super) initial: HashMap<Var, Value>,
    pub(super) params: Vec<Value>,
    /// Per value: has it been bound to a variable (a parameter, an initial
    /// value, the value of an assignment)? Grows on demand.
    bound: Vec<bool>,
    /// Some assignment bound a variable to a phi or to a value already
    /// bound: the program's values are then no longer each one variable's
    /// own, and Theorem 1 of §4 does not apply (see `finish.rs`).
    pub(super) values_shared: bool,
    /// When Algorithm 5 runs (`finish.rs`).
    pub(super) algorithm_5: Algorithm5,
    undef: Option<Value>,
    pub(super) cur: Block,
    /// The instructions of `cur` while it is being filled (unless it is the
    /// entry): a block's instructions are all made while it is being
    /// filled, and only the entry gets more later (`initial_value`), so they
    /// gather here and move to the block once it is terminated, into a
    /// vector of their exact length (pushing into the block's own vector
    /// would grow it by doubling and leave part of its capacity unused).
    pub(super) filling: Vec<Inst>,
    pub(super) loops: Vec<LoopTargets>,
    pub(super) labels: HashMap<String, LabelInfo>,
    /// Epoch stamps that detect a walk going round a cycle of
    /// single-predecessor blocks (only possible in unreachable code).
    pub(super) walk_stamp: Vec<u32>,
    pub(super) walk_epoch: u32,
    /// The single-predecessor blocks of the look-ups in progress (see
    /// `PredecessorsLookup::path_start` in `lookup.rs`).
    pub(super) walk_path: Vec<Block>,
    /// Scratch vectors of `try_remove_trivial_phi` (`trivial_phi.rs`).
    pub(super) trivial_work: Vec<Value>,
    pub(super) trivial_users: Vec<Value>,
    /// Scratch stack of `read_variable`'s suspended look-ups (`lookup.rs`).
    pub(super) lookup_stack: Vec<PredecessorsLookup>,
    /// A look-up is in progress: nothing it calls may start another, since
    /// `marks` and the `phi_args` ranges belong to one look-up of one
    /// variable (checked by a debug assertion in `read_variable`).
    pub(super) in_lookup: bool,
    /// The operands of the provisional phis of the lookups in progress, one
    /// range per lookup (`PredecessorsLookup::args_start`).
    pub(super) phi_args: Vec<Value>,
    pub(super) stats: BraunStats,
}

/// What [`Builder::new`] learns from one walk over the function before
/// the construction starts.
struct Scan<'a> {
    /// The gotos to each label, so that a label's block can be sealed as
    /// soon as its last predecessor is known.
    goto_counts: HashMap<&'a str, usize>,
    label_names: Vec<&'a str>,
    /// The variable of each assignment, in walk order.
    assigned_names: Vec<&'a str>,
    regions: RegionAssignmentsBuilder,
    /// A bound on the number of blocks the AST walk will make, so that the
    /// per-block vectors are allocated once, at their size.
    blocks: usize,
}

impl<'a> Scan<'a> {
    fn of(func: &'a ast::Function) -> Self {
        let mut scan = Scan {
            goto_counts: HashMap::default(),
            label_names: Vec::new(),
            assigned_names: Vec::new(),
            regions: RegionAssignmentsBuilder::default(),
            blocks: 1,
        };
        ast::walk_stmts(&func.body, |s, depth| {
            scan.blocks += block_bound(s);
            let assigns = matches!(s, Stmt::Var(..) | Stmt::Assign(..));
            scan.regions.statement(depth, matches!(s, Stmt::While(..)), assigns, matches!(s, Stmt::Label(_)));
            match s {
                Stmt::Goto(l) => *scan.goto_counts.entry(l.as_str()).or_default() += 1,
                Stmt::Label(l) => scan.label_names.push(l.as_str()),
                Stmt::Var(x, _) | Stmt::Assign(x, _) => scan.assigned_names.push(x.as_str()),
                _ => {}
            }
        });
        scan
    }
}

impl Builder {
    pub(super) fn new(func: &ast::Function, opts: BraunOptions) -> Self {
        let scan = Scan::of(func);
        let mut b = Builder::empty(opts, scan.blocks);
        let entry = b.new_block();
        debug_assert_eq!(entry, ir::Function::ENTRY);
        b.blocks[entry].sealed = true;
        for p in &func.params {
            let v = b.new_value();
            let var = b.var(p);
            b.params.push(v);
            b.initial.insert(var, v);
            b.note_binding(v);
        }
        let mut assigned_vars = Vec::with_capacity(scan.assigned_names.len());
        for x in scan.assigned_names {
            let var = b.var(x);
            b.assigned[var.0 as usize] = true;
            assigned_vars.push(var.0);
        }
        (b.regions, b.assignment_stmts) = scan.regions.finish(&assigned_vars, b.var_count as usize);
        b.assigned_vars = assigned_vars;
        b.has_labels = !scan.label_names.is_empty();
        for l in scan.label_names {
            let expected = scan.goto_counts.get(l).copied().unwrap_or(0) + 1;
            b.labels.insert(l.to_string(), LabelInfo { block: None, expected_preds: expected, added_preds: 0 });
        }
        b
    }

    /// A builder with nothing built yet, its per-block vectors allocated
    /// for `blocks` blocks.
    fn empty(opts: BraunOptions, blocks: usize) -> Self {
        Builder {
            opts,
            blocks: EntityVec::with_capacity(blocks),
            defs: CurrentDefs::default(),
            alias: Vec::new(),
            phis: PhiTable::default(),
            cse_entry: HashMap::default(),
            cse_block: HashMap::default(),
            cse_block_of: None,
            marks: Vec::with_capacity(blocks),
            scc_index: Vec::new(),
            consts: HashMap::default(),
            value_count: 0,
            vars: HashMap::default(),
            var_count: 0,
            assigned: Vec::new(),
            first_assigned_at: Vec::new(),
            filled: 0,
            filled_at: Vec::with_capacity(blocks),
            open_loops: 0,
            regions: RegionAssignments::default(),
            whiles_met: 0,
            assigned_vars: Vec::new(),
            assignments_met: 0,
            assignment_stmts: Vec::new(),
            stmts_met: 0,
            has_labels: false,
            initial: HashMap::default(),
            params: Vec::new(),
            bound: Vec::new(),
            values_shared: false,
            algorithm_5: Algorithm5::WhereItCanAct,
            undef: None,
            cur: ir::Function::ENTRY,
            filling: Vec::new(),
            loops: Vec::new(),
            labels: HashMap::default(),
            walk_stamp: Vec::with_capacity(blocks),
            walk_epoch: 0,
            walk_path: Vec::new(),
            trivial_work: Vec::new(),
            trivial_users: Vec::new(),
            lookup_stack: Vec::new(),
            in_lookup: false,
            phi_args: Vec::new(),
            stats: BraunStats::default(),
        }
    }

    // ----- entities -----

    pub(super) fn new_value(&mut self) -> Value {
        let v = Value(self.value_count);
        self.value_count += 1;
        self.alias.push(v);
        v
    }

    pub(super) fn new_block(&mut self) -> Block {
        self.walk_stamp.push(0);
        self.marks.push(UNMARKED);
        self.filled_at.push((u32::MAX, false));
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
        self.assigned.push(false);
        self.first_assigned_at.push(u32::MAX);
        self.vars.insert(name.to_string(), v);
        v
    }

    /// The variable of the next assignment the AST walk meets (the walk of
    /// `new` met the assignments in the same order).
    pub(super) fn next_assigned_var(&mut self) -> Var {
        debug_assert_eq!(
            self.assignment_stmts[self.assignments_met] + 1,
            self.stmts_met,
            "the walks meet the assignments in the same order"
        );
        let v = Var(self.assigned_vars[self.assignments_met]);
        self.assignments_met += 1;
        v
    }

    /// The number of assignments the walk of `new` found.
    pub(super) fn assigned_vars_len(&self) -> usize {
        self.assigned_vars.len()
    }

    pub(super) fn hidden_var(&mut self) -> Var {
        let v = Var(self.var_count);
        self.var_count += 1;
        self.assigned.push(true);
        self.first_assigned_at.push(u32::MAX);
        v
    }

    /// Records that block `b` was just terminated.
    pub(super) fn mark_filled(&mut self, b: Block) {
        if self.opts.cse && b != ir::Function::ENTRY {
            debug_assert!(self.cse_block_of.is_none_or(|o| o == b), "CSE entries of another block");
            self.cse_block.clear();
            self.cse_block_of = None;
        }
        self.filled += 1;
        self.filled_at[b.index()] = (self.filled, self.open_loops == 0);
    }

    /// The CSE table of `block`, which is the entry or the block being
    /// filled (see `Builder::cse_block`).
    pub(super) fn cse_table(&mut self, block: Block) -> &mut HashMap<Op, Value> {
        if block == ir::Function::ENTRY {
            return &mut self.cse_entry;
        }
        debug_assert!(self.blocks[block].term.is_none(), "CSE in a filled block");
        debug_assert!(self.cse_block_of.is_none_or(|o| o == block), "CSE entries of another block");
        self.cse_block_of = Some(block);
        &mut self.cse_block
    }

    /// Whether the function assigns `var` anywhere.
    pub(super) fn is_assigned(&self, var: Var) -> bool {
        self.assigned[var.0 as usize]
    }

    /// A block that no path from the entry can reach, and that is known to
    /// be so during construction: sealed (all its predecessors are known)
    /// and without any. Edges out of such a block are not recorded (see
    /// `mod.rs`), so this covers blocks reachable only from such blocks too.
    pub(super) fn is_known_unreachable(&self, b: Block) -> bool {
        b != ir::Function::ENTRY && self.blocks[b].sealed && self.blocks[b].preds.is_empty()
    }

    /// Follows alias links to the value that now stands for `v`, with path
    /// halving.
    pub(super) fn resolve(&mut self, v: Value) -> Value {
        resolve_in(&mut self.alias, v)
    }

    pub(super) fn is_live_phi(&self, v: Value) -> bool {
        self.phis.get(&v).is_some()
    }

    /// Records `replaceBy(v)` for the value `phi`, which has died.
    pub(super) fn set_alias(&mut self, phi: Value, v: Value) {
        self.alias[phi.index()] = v;
    }

    /// Takes a dead phi out of the phi table, and out of its block's list
    /// when it is the last phi there (the common case: the operandless phi
    /// of Alg. 2 that turned out trivial). Returns its users.
    pub(super) fn remove_phi(&mut self, phi: Value) -> Vec<Value> {
        let mut users = Vec::new();
        self.remove_phi_into(phi, &mut users);
        users
    }

    /// `remove_phi`, appending the users to `users`.
    pub(super) fn remove_phi_into(&mut self, phi: Value, users: &mut Vec<Value>) {
        let block = self.phis[&phi].block;
        self.phis.remove_into(phi, users);
        if self.blocks[block].phis.last() == Some(&phi) {
            self.blocks[block].phis.pop();
        }
    }

    /// Appends an instruction to `block`, which is the entry or the block
    /// being filled (see `filling`).
    pub(super) fn push_inst(&mut self, block: Block, inst: Inst) {
        if block == ir::Function::ENTRY {
            self.blocks[block].insts.push(inst);
        } else {
            debug_assert!(block == self.cur && self.blocks[block].term.is_none(), "{block} is not being filled");
            self.filling.push(inst);
        }
    }

    /// Moves the instructions gathered in `filling` to `block`, which was
    /// just terminated.
    pub(super) fn take_filling(&mut self, block: Block) {
        if block != ir::Function::ENTRY {
            let mut insts = Vec::with_capacity(self.filling.len());
            insts.append(&mut self.filling);
            self.blocks[block].insts = insts;
        }
    }

    /// Records that `value` is bound to a variable, and notes a shared value
    /// (`values_shared`) when it is a phi or was bound before: copy
    /// propagation, CSE, folding and simplification can all name an
    /// existing value.
    pub(super) fn note_binding(&mut self, value: Value) {
        let v = self.resolve(value);
        let i = v.index();
        if i >= self.bound.len() {
            self.bound.resize(i + 1, false);
        }
        if self.bound[i] || self.phis.get(&v).is_some() || self.phis.provisional_lookup(v).is_some() {
            self.values_shared = true;
        }
        self.bound[i] = true;
    }

    pub(super) fn undef_value(&mut self) -> Value {
        if let Some(u) = self.undef {
            return u;
        }
        let u = self.new_value();
        self.push_inst(ir::Function::ENTRY, Inst { dest: Some(u), op: Op::Undef });
        self.undef = Some(u);
        u
    }

    /// The operandless phi of Alg. 2 in a sealed block, as a provisional
    /// phi: numbered and in its block's list like any phi, but not in the
    /// phi table until something uses it (see `lookup.rs`).
    pub(super) fn new_provisional_phi(&mut self, block: Block) -> Value {
        let v = self.new_value();
        self.blocks[block].phis.push(v);
        self.stats.phis_created += 1;
        v
    }

    pub(super) fn new_phi(&mut self, block: Block, complete: bool) -> Value {
        let v = self.new_value();
        self.phis.insert(v, block, complete);
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

/// At least the number of blocks that `ast_walk.rs` makes for the statement
/// `s` itself (not its nested statements): `if` makes up to three, `while`
/// three, a jump and a label one, and each `&&` or `||` in its expressions
/// at most two (the right operand and the join of a value; one in a
/// condition).
fn block_bound(s: &Stmt) -> usize {
    fn short_circuits(e: &ast::Expr) -> usize {
        use ast::Expr;
        match e {
            Expr::Lit(_) | Expr::Var(_) => 0,
            Expr::Load(a) | Expr::Unary(_, a) => short_circuits(a),
            Expr::Binary(_, a, b) => short_circuits(a) + short_circuits(b),
            Expr::LogicalAnd(a, b) | Expr::LogicalOr(a, b) => 1 + short_circuits(a) + short_circuits(b),
            Expr::Call(_, args) => args.iter().map(short_circuits).sum(),
        }
    }
    let (own, exprs): (usize, [Option<&ast::Expr>; 2]) = match s {
        Stmt::Var(_, e) | Stmt::Assign(_, e) | Stmt::Out(e) => (0, [Some(e), None]),
        Stmt::Store(a, v) => (0, [Some(a), Some(v)]),
        Stmt::Return(e) => (1, [Some(e), None]),
        Stmt::If(c, _, _) | Stmt::While(c, _) => (3, [Some(c), None]),
        Stmt::Break | Stmt::Continue | Stmt::Goto(_) | Stmt::Label(_) => (1, [None, None]),
        Stmt::Block(_) => (0, [None, None]),
        Stmt::Call(_, args) => return args.iter().map(|e| 2 * short_circuits(e)).sum(),
    };
    own + exprs.iter().flatten().map(|e| 2 * short_circuits(e)).sum::<usize>()
}

/// Follows alias links to the value that now stands for `v`, with path
/// halving (a free function, so that a caller can hold the phi table while
/// resolving).
pub(super) fn resolve_in(alias: &mut [Value], mut v: Value) -> Value {
    while alias[v.index()] != v {
        let p = alias[v.index()];
        alias[v.index()] = alias[p.index()];
        v = p;
    }
    v
}
