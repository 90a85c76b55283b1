//! The allocation checker: checks, without trusting the allocator, that
//! allocated code reads every SSA value from a location that holds it.
//!
//! The model is the checker of regalloc2 (`src/checker.rs` in
//! bytecodealliance/regalloc2, after the one of regalloc.rs): an abstract
//! interpretation of the allocated code in which the abstract value of each
//! location (register or spill slot) is the SSA value it holds. Operations
//! define values into their destinations, transfers (moves, swaps, spills,
//! reloads) carry whatever their source holds, and every operand must hold
//! the value the SSA program reads there. Our setting is simpler than
//! regalloc2's in three ways. The values are SSA values, annotated on the
//! machine IR itself ([`crate::mir::Annot`]), and copy-canonical (see
//! `mir.rs`), so a location holds one value rather than a set of aliases.
//! There is no scratch register and no edit list: the code is the whole
//! program. And the phis are not instructions but annotations
//! ([`PhiAnnot`]), in the manner of Pereira and Palsberg, "SSA Elimination
//! after Register Allocation" (CC 2009): each phi of a block `B` is a column
//! of a parallel copy at the end of every predecessor, which SSA elimination
//! implemented with moves, swaps, spills and reloads, and the annotation
//! states what that code must achieve: on the edge from `B.preds[i]`,
//! `loc` holds `args[i]`, and on entry to `B`, `loc` holds `dest`.
//!
//! # The abstract state
//!
//! For every program point and every location, a [`LocState`]:
//! `Unknown` (no path to the point writes the location), `Value(v)` (the
//! location holds the current value of `v`), `Stale(v)` (it holds a value
//! of `v` from before the latest definition of `v` ran), `Conflict`
//! (different paths disagree) or `Clobbered` (an instruction destroyed it
//! as a side effect). The meet at a join keeps a state on which
//! all incoming edges agree and is `Conflict` otherwise. Transfer:
//!
//! * an operation whose annotation defines `d` writes `Value(d)` into its
//!   destination register, and turns every other location holding
//!   `Value(d)` into `Stale(d)`: they hold an older instance of `d`, from an
//!   earlier trip around a loop; a `FixedDiv` (out-of-ssa's `idiv` with the
//!   renaming constraints met) also makes the register of the result not
//!   asked for `Clobbered`, and must have its dividend in rax and its
//!   divisor outside rdx; a `Call` is in `alloc_checker_calls.rs`;
//! * `Move`, `Swap`, `Spill` and `Reload` copy or exchange the states of the
//!   locations they name, whatever those are;
//! * the edge from `P` into `B` (position `i` of `B.preds`), after `P`'s
//!   code, writes `Value(dest)` into the `loc` of every phi of `B` at once,
//!   and turns the other copies of each `dest` into `Stale(dest)`, since a
//!   phi is a new definition of `dest`; every other location keeps its
//!   state, in particular one that holds an argument of a phi, which is a
//!   different SSA value from `dest`.
//!
//! * a `Move`, `Spill` or `Reload` that carries a *copy annotation*
//!   (`reads: [s]`, `defines: Some(d)`, see below) is checked and applied
//!   like an operation: its source location must hold `Value(s)`, every
//!   location holding `Value(d)` becomes `Stale(d)`, and its destination
//!   holds `Value(d)`.
//!
//! # out-of-ssa: copy annotations
//!
//! ssa-ra allocates SSA code, whose values are copy-canonical (`mir.rs`),
//! so its transfers carry no annotation: they move a value, and the value
//! is the same wherever it goes. out-of-ssa (`out_of_ssa/conventional/`)
//! allocates code after SSA destruction, where a value number is a program
//! *variable* that may be defined many times and a copy `a = copy b` is a
//! definition of `a`: once `b` is redefined, `a` still holds the old
//! number, so naming both `b` would be wrong. out-of-ssa therefore uses the
//! variables as the checker's values, annotates its operations with the
//! variables they read and define (the `define` kill above is what makes a
//! redefinition sound), and emits each program copy as one transfer (a
//! move, a spill or a reload, the one that carries the number into the
//! destination's location) annotated `reads: [b], defines: Some(a)`. The
//! invariant below holds for such a transfer for the same reason as for an
//! operation: the destination receives the current number of `b`, which is
//! the new number of `a`. Unannotated transfers keep their ssa-ra meaning,
//! and a `Swap` never carries an annotation, so nothing ssa-ra emits is
//! checked differently: a partial annotation on a transfer (a read without
//! a definition or the reverse, or two reads) is still rejected.
//!
//! The kills are what make the invariant below hold at every point. They
//! rarely decide a verdict: a location that still holds last trip's `d` at a
//! use also reaches that use, along the shortest path, holding something
//! that was never `d`, so the meet there is already `Conflict`.
//!
//! The entry state has each parameter's location holding the parameter and
//! every other location `Unknown`. The states are computed to a fixpoint,
//! iterating over the reachable blocks in reverse post-order; then one more
//! pass, in the same order, checks every read against the fixpoint.
//!
//! # What acceptance proves
//!
//! Invariant: if the state at a point says that location `L` holds
//! `Value(v)`, then on every execution that reaches the point, `L` contains
//! the value `v` has at that point of the SSA program run in lockstep (the
//! value of the latest execution of `v`'s definition). It holds at entry,
//! each transfer rule above preserves it, and the meet keeps `Value(v)`
//! only when every incoming edge does. The checks are that every register
//! operand of an instruction holds `Value(annot.reads[i])`, the
//! terminator's register holds `Value(term_reads)`, and on every edge into
//! a block, each phi's `loc` holds `Value(args[i])` after the predecessor's
//! code. So when [`check_allocation`] accepts a function whose annotations
//! are faithful to the SSA function it was allocated from (every
//! operation annotated with the SSA operation's operands and result, the
//! phi annotations those of the SSA phis, the parameters those of the SSA
//! function), every operation, terminator and phi of the allocated code
//! reads the same numbers as in the SSA program, and the two compute the
//! same outcome.
//!
//! # What it does not prove
//!
//! * That the annotations are faithful. The checker never sees the SSA
//!   function, so an allocator that replaced `add` by `sub`, dropped an
//!   `out`, reordered two stores, redirected a branch or annotated the
//!   wrong values would not be caught here; running both levels in the
//!   oracle (`run_ssa` against `run_mir`) catches those.
//! * Anything about quality: that spill code is minimal, that a move is
//!   needed, that a spilled value is not reloaded twice, or that `K`
//!   registers were used well. It checks values, and that every register is
//!   one of the `K` ([`check_no_scratch`]) and every slot below
//!   `slot_count`.
//! * Anything about blocks unreachable from the entry, beyond the
//!   structural checks (ranges, edges, annotation shapes): no state reaches
//!   them.
//! * It is conservative. It rejects some allocations that compute the right
//!   numbers: a location that holds equal numbers under two different SSA
//!   names on two paths is a `Conflict`, and a `Stale` copy of a value
//!   that has not changed is still rejected. Locations nobody reads may
//!   hold anything, including garbage.
//!
//! Before the data flow, [`check_allocation`] checks the structure the data
//! flow relies on, and reports the first failure: the register count is in
//! `MIN_REGS..=MAX_REGS`, every register is below `k`
//! ([`check_no_scratch`]), every slot below `slot_count`, the parameters are
//! in distinct locations, every successor exists, each block's `preds`
//! agrees with the terminators (as a multiset, like the SSA verifier), the
//! entry has no predecessors and no phis, every phi has one argument per
//! predecessor and the phis of a block have distinct locations (two
//! annotations may name the same destination, with the same arguments:
//! a phi that lives in two locations on entry, which regalloc2 produces),
//! and each annotation has the shape of its instruction (an
//! operation names one read per register operand and a definition exactly
//! when it writes a register; a transfer names nothing or is a move, spill
//! or reload with a copy annotation; `term_reads` is
//! present exactly for a branch or a return). Nothing here panics, whatever
//! the input, and every walk is a loop over blocks or a worklist, never a
//! recursion.

use std::fmt;

use crate::analysis::dominance::reverse_postorder;
use crate::checkers::alloc_checker_calls as calls;
use crate::checkers::alloc_checker_states::{live_slots, Dense, Locations, Sparse};
use crate::checkers::alloc_checker_states_recomputation as recomputation;
use crate::checkers::edge_positions::EdgePositions;
use crate::entity::EntityRef;
use crate::ir::{BinOp, Block, Value};
use crate::mir::{Loc, MFunction, MInst, MModule, MTerm, PhiAnnot, Reg, Slot, MAX_REGS, MIN_REGS, RDX, REGISTER_NAMES};
use crate::pass_manager::self_checks;

/// What a location holds at a program point, as far as the checker knows.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum LocState {
    /// No path from the entry to this point writes the location.
    Unknown,
    /// The location holds the current value of this SSA value.
    Value(Value),
    /// The location holds a value of this SSA value from before its latest
    /// definition ran (a copy left over from an earlier loop iteration).
    Stale(Value),
    /// The incoming paths disagree on what the location holds.
    Conflict,
    /// An instruction destroyed the location's contents as a side effect
    /// (`MInst::clobbered` of `idiv`; a caller-saved register after a call).
    Clobbered,
}

impl LocState {
    /// The meet of two states at a join: the state if they agree, else
    /// `Conflict`.
    fn meet(self, other: LocState) -> LocState {
        if self == other {
            self
        } else {
            LocState::Conflict
        }
    }
}

impl fmt::Display for LocState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocState::Unknown => f.write_str("nothing (no path to here writes it)"),
            LocState::Value(v) => write!(f, "{v}"),
            LocState::Stale(v) => {
                write!(f, "an old instance of {v} ({v} has been redefined since)")
            }
            LocState::Conflict => f.write_str("different values on different incoming paths"),
            LocState::Clobbered => f.write_str("garbage (a fixed division or a call overwrote it)"),
        }
    }
}

/// Where in a function a problem is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Site {
    /// The function as a whole: its register count or its block list.
    Function,
    /// The parameter with this index.
    Param(usize),
    /// A block as a whole: its predecessor list or its phi annotations.
    Block(Block),
    /// The instruction at position `index` of `block`.
    Inst { block: Block, index: usize },
    /// The terminator of the block.
    Terminator(Block),
    /// Phi number `phi` of `block`, on the edge from `pred`, which is
    /// `block.preds[edge]`.
    PhiEdge { pred: Block, block: Block, edge: usize, phi: usize },
}

impl Site {
    /// The block the problem is in, if any. For a phi edge, this is the
    /// block of the phi; the code at fault is at the end of `pred`.
    pub fn block(self) -> Option<Block> {
        match self {
            Site::Function | Site::Param(_) => None,
            Site::Block(b) | Site::Inst { block: b, .. } | Site::Terminator(b) | Site::PhiEdge { block: b, .. } => {
                Some(b)
            }
        }
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Site::Function => Ok(()),
            Site::Param(i) => write!(f, ", parameter {i}"),
            Site::Block(b) => write!(f, ", block {b}"),
            Site::Inst { block, index } => write!(f, ", block {block}, instruction {index}"),
            Site::Terminator(b) => write!(f, ", block {b}, terminator"),
            Site::PhiEdge { pred, block, edge, phi } => {
                write!(f, ", edge {pred} -> {block} (predecessor {edge}), phi {phi} of {block}")
            }
        }
    }
}

/// What is wrong.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AllocCheckErrorKind {
    /// A location that an instruction, a terminator or a phi edge reads does
    /// not hold the SSA value the program reads there.
    WrongValue { loc: Loc, expected: Value, found: LocState },
    /// A register numbered `k` or above: not one of the allocatable ones.
    RegisterOutOfRange { reg: Reg, k: usize },
    /// A spill slot numbered `slot_count` or above.
    SlotOutOfRange { slot: Slot, slot_count: u32 },
    /// The register count is outside `MIN_REGS..=MAX_REGS`.
    RegisterCount { k: usize },
    /// An annotation does not fit its instruction, terminator or block.
    BadAnnotation(String),
    /// The control flow or the parameter list is not well formed.
    Malformed(String),
}

/// Why an allocation is rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AllocCheckError {
    /// The function's name.
    pub function: String,
    pub site: Site,
    pub kind: AllocCheckErrorKind,
}

impl AllocCheckError {
    /// The register an operand check failed on, if this is a wrong value in
    /// a register.
    pub fn register(&self) -> Option<Reg> {
        match self.kind {
            AllocCheckErrorKind::WrongValue { loc: Loc::Reg(r), .. } => Some(r),
            _ => None,
        }
    }
}

/// A register's name, or its number when it is not a register of the
/// target at all (so that printing an error never panics).
fn reg_label(r: Reg) -> String {
    match REGISTER_NAMES.get(usize::from(r.0)) {
        Some(name) => (*name).to_string(),
        None => format!("register #{}", r.0),
    }
}

/// A register's name and number, for the errors about numbers.
fn reg_with_number(r: Reg) -> String {
    match REGISTER_NAMES.get(usize::from(r.0)) {
        Some(name) => format!("{name} (register #{})", r.0),
        None => format!("register #{}", r.0),
    }
}

fn loc_label(l: Loc) -> String {
    match l {
        Loc::Reg(r) => reg_label(r),
        Loc::Slot(s) => s.to_string(),
    }
}

impl fmt::Display for AllocCheckError {
    /// `function `main`, block b2, instruction 3: MESSAGE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function `{}`{}: ", self.function, self.site)?;
        match &self.kind {
            AllocCheckErrorKind::WrongValue { loc, expected, found } => {
                write!(f, "{} should hold {expected}, but it holds {found}", loc_label(*loc))
            }
            AllocCheckErrorKind::RegisterOutOfRange { reg, k } => {
                write!(f, "{} is not one of the {k} allocatable registers", reg_with_number(*reg))
            }
            AllocCheckErrorKind::SlotOutOfRange { slot, slot_count } => {
                write!(f, "slot {slot} is out of range (slot_count {slot_count})")
            }
            AllocCheckErrorKind::RegisterCount { k } => {
                write!(f, "{k} registers, but the target has {MIN_REGS} to {MAX_REGS}")
            }
            AllocCheckErrorKind::BadAnnotation(m) | AllocCheckErrorKind::Malformed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for AllocCheckError {}

/// Checks every function of `m` (see [`check_allocation`]), that no two
/// functions share a name, and calls by the convention (`alloc_checker_calls.rs`).
pub fn check_module(m: &MModule) -> Result<(), AllocCheckError> {
    crate::pass_manager::self_checks::count();
    calls::check_calls(m).map_err(|p| {
        let site = p.call.map_or(Site::Function, |(block, index)| Site::Inst { block, index });
        AllocCheckError { function: p.function, site, kind: AllocCheckErrorKind::Malformed(p.message) }
    })?;
    for (i, f) in m.functions.iter().enumerate() {
        if m.functions[..i].iter().any(|g| g.name == f.name) {
            return Err(AllocCheckError {
                function: f.name.clone(),
                site: Site::Function,
                kind: AllocCheckErrorKind::Malformed("another function of the module has the same name".to_string()),
            });
        }
        check_allocation(f)?;
    }
    Ok(())
}

/// Checks that every register `m` names, in its parameters, phi
/// annotations, instructions and terminators, is one of its `k` allocatable
/// registers, and that `k` is a register count the target has. This is the
/// machine-IR form of the architecture invariant "no pass reserves a scratch
/// register": a register numbered `k` would be one the allocator kept for
/// itself beyond its budget.
pub fn check_no_scratch(m: &MFunction) -> Result<(), AllocCheckError> {
    crate::pass_manager::self_checks::count();
    let error = |site, kind| AllocCheckError { function: m.name.clone(), site, kind };
    if !(MIN_REGS..=MAX_REGS).contains(&m.k) {
        return Err(error(Site::Function, AllocCheckErrorKind::RegisterCount { k: m.k }));
    }
    let check = |r: Reg, site: Site| {
        if usize::from(r.0) < m.k {
            Ok(())
        } else {
            Err(error(site, AllocCheckErrorKind::RegisterOutOfRange { reg: r, k: m.k }))
        }
    };
    for (i, &(loc, _)) in m.params.iter().enumerate() {
        if let Loc::Reg(r) = loc {
            check(r, Site::Param(i))?;
        }
    }
    for (b, data) in m.blocks.iter() {
        for phi in &data.phis {
            if let Loc::Reg(r) = phi.loc {
                check(r, Site::Block(b))?;
            }
        }
        for (index, inst) in data.insts.iter().enumerate() {
            let site = Site::Inst { block: b, index };
            for r in inst.inst.reg_reads() {
                check(r, site)?;
            }
            for r in inst.inst.reg_writes() {
                check(r, site)?;
            }
        }
        if let MTerm::Branch { cond: r, .. } | MTerm::Return(r) = data.term {
            check(r, Site::Terminator(b))?;
        }
    }
    Ok(())
}

/// Checks the allocation of `m`: its structure, then, by a data flow over its reachable blocks, that every register
/// operand, terminator operand and phi location holds the SSA value its annotation names (the module documentation
/// says what acceptance proves). Reports the first failure. An equal function accepted lately is accepted again.
pub fn check_allocation(m: &MFunction) -> Result<(), AllocCheckError> {
    crate::pass_manager::self_checks::count();
    super::alloc_checker_memo::once(m, |m| {
        check_no_scratch(m)?;
        let checker = Checker::new(m)?;
        checker.check_cfg()?;
        checker.check_annotations()?;
        checker.check_values()
    })
}

/// The successor edges of a block: each target with the occurrence of the
/// block in the target's `preds` that the edge is (1 only for the else-edge
/// of `br c, B, B`).
fn edges(term: &MTerm) -> Vec<(Block, usize)> {
    match *term {
        MTerm::Jump(t) => vec![(t, 0)],
        MTerm::Branch { then_dest, else_dest, .. } => {
            vec![(then_dest, 0), (else_dest, usize::from(then_dest == else_dest))]
        }
        MTerm::Return(_) => vec![],
    }
}

/// The state of the block being run: every location, registers `0..k`
/// then slots (`alloc_checker_states.rs`).
type State = Dense<LocState>;
/// The state on entry to a block: the registers and the live slots.
type Entry = Sparse<LocState>;

struct Checker<'a> {
    m: &'a MFunction,
    /// The slots the state tracks: one more than the largest slot named,
    /// at most `slot_count` (which may be corrupt and huge).
    tracked_slots: usize,
    /// For each value, the slots into which any state of the analysis ever
    /// wrote `Value(v)`: the only slots where a definition of `v` can find
    /// `Value(v)` to make stale (a meet never creates a `Value`), so that
    /// a definition looks at the registers and these, not at every slot.
    slots_of: std::cell::RefCell<std::collections::HashMap<Value, Vec<usize>>>,
    /// Where each edge sits in its successor's `preds`.
    positions: EdgePositions,
}

impl<'a> Checker<'a> {
    /// Checks the slots and the parameters' locations and sizes the state.
    /// The registers have been checked by [`check_no_scratch`].
    fn new(m: &'a MFunction) -> Result<Self, AllocCheckError> {
        let mut tracked_slots = 0usize;
        let mut check = |s: Slot, site: Site| {
            if s.0 < m.slot_count {
                tracked_slots = tracked_slots.max(s.0 as usize + 1);
                Ok(())
            } else {
                Err(AllocCheckError {
                    function: m.name.clone(),
                    site,
                    kind: AllocCheckErrorKind::SlotOutOfRange { slot: s, slot_count: m.slot_count },
                })
            }
        };
        for (i, &(loc, _)) in m.params.iter().enumerate() {
            if let Loc::Slot(s) = loc {
                check(s, Site::Param(i))?;
            }
        }
        for (b, data) in m.blocks.iter() {
            for phi in &data.phis {
                if let Loc::Slot(s) = phi.loc {
                    check(s, Site::Block(b))?;
                }
            }
            for (index, inst) in data.insts.iter().enumerate() {
                for slot in calls::slots_named(&inst.inst) {
                    check(slot, Site::Inst { block: b, index })?;
                }
            }
        }
        let positions = EdgePositions::new(m.blocks.values().map(|d| d.preds.as_slice()));
        let checker = Checker { m, tracked_slots, slots_of: Default::default(), positions };
        for (i, &(loc, _)) in m.params.iter().enumerate() {
            if m.params[..i].iter().any(|&(other, _)| other == loc) {
                return Err(checker.error(
                    Site::Param(i),
                    AllocCheckErrorKind::Malformed(format!(
                        "parameter {i} arrives in {}, like an earlier parameter",
                        loc_label(loc)
                    )),
                ));
            }
        }
        Ok(checker)
    }

    fn error(&self, site: Site, kind: AllocCheckErrorKind) -> AllocCheckError {
        AllocCheckError { function: self.m.name.clone(), site, kind }
    }

    fn malformed(&self, site: Site, message: String) -> AllocCheckError {
        self.error(site, AllocCheckErrorKind::Malformed(message))
    }

    fn bad_annotation(&self, site: Site, message: String) -> AllocCheckError {
        self.error(site, AllocCheckErrorKind::BadAnnotation(message))
    }

    /// The index of a location in a [`State`]. Every location was checked
    /// to be in range before a state is built.
    fn index(&self, l: Loc) -> usize {
        match l {
            Loc::Reg(r) => usize::from(r.0),
            Loc::Slot(s) => self.m.k + s.0 as usize,
        }
    }

    /// Checks the blocks and edges: successors and predecessors exist,
    /// `preds` agrees with the terminators as a multiset, the entry has no
    /// predecessors and no phis.
    fn check_cfg(&self) -> Result<(), AllocCheckError> {
        let m = self.m;
        let n = m.blocks.len();
        if n == 0 {
            return Err(
                self.malformed(Site::Function, "the function has no blocks (it needs the entry b0)".to_string())
            );
        }
        let mut incoming: Vec<Vec<Block>> = vec![Vec::new(); n];
        for (b, data) in m.blocks.iter() {
            for (t, _) in edges(&data.term) {
                if t.index() >= n {
                    return Err(self.malformed(
                        Site::Terminator(b),
                        format!("the terminator branches to {t}, which does not exist"),
                    ));
                }
                incoming[t.index()].push(b);
            }
        }
        for (b, data) in m.blocks.iter() {
            if let Some(p) = data.preds.iter().find(|p| p.index() >= n) {
                return Err(self.malformed(Site::Block(b), format!("the predecessor {p} does not exist")));
            }
            let mut listed = data.preds.clone();
            listed.sort();
            let actual = &mut incoming[b.index()];
            actual.sort();
            if listed != *actual {
                return Err(self.malformed(
                    Site::Block(b),
                    format!(
                        "the predecessor list [{}] does not match the edges into the block, \
                         which come from [{}]",
                        join(&data.preds),
                        join(actual)
                    ),
                ));
            }
        }
        let entry = &m.blocks[Block(0)];
        if !entry.preds.is_empty() {
            return Err(self.malformed(Site::Block(Block(0)), "the entry block has predecessors".to_string()));
        }
        if !entry.phis.is_empty() {
            return Err(self.bad_annotation(Site::Block(Block(0)), "the entry block has phis".to_string()));
        }
        Ok(())
    }

    /// Checks that every annotation has the shape of what it annotates.
    fn check_annotations(&self) -> Result<(), AllocCheckError> {
        for (b, data) in self.m.blocks.iter() {
            for (i, phi) in data.phis.iter().enumerate() {
                if phi.args.len() != data.preds.len() {
                    return Err(self.bad_annotation(
                        Site::Block(b),
                        format!(
                            "the phi {i} defining {} has {} arguments for {} predecessors",
                            phi.dest,
                            phi.args.len(),
                            data.preds.len()
                        ),
                    ));
                }
                if let Some(j) = data.phis[..i].iter().position(|q| q.loc == phi.loc) {
                    return Err(self.bad_annotation(
                        Site::Block(b),
                        format!("the phis {j} and {i} both live in {}", loc_label(phi.loc)),
                    ));
                }
                // One phi may live in several locations on entry (regalloc2
                // keeps a block parameter in its register and its spill slot
                // at once): then each location has its own annotation, with
                // the same arguments.
                if let Some(j) = data.phis[..i].iter().position(|q| q.dest == phi.dest && q.args != phi.args) {
                    return Err(self.bad_annotation(
                        Site::Block(b),
                        format!("the phis {j} and {i} both define {} with different arguments", phi.dest),
                    ));
                }
            }
            for (index, inst) in data.insts.iter().enumerate() {
                self.check_inst_annotation(Site::Inst { block: b, index }, inst)?;
            }
            let reads_a_register = !matches!(data.term, MTerm::Jump(_));
            if data.term_reads.is_some() != reads_a_register {
                let message = if reads_a_register {
                    "the terminator reads a register, but `term_reads` names no value"
                } else {
                    "`term_reads` names a value, but a jump reads no register"
                };
                return Err(self.bad_annotation(Site::Terminator(b), message.to_string()));
            }
        }
        Ok(())
    }

    /// Checks that the annotation of the instruction `inst` at `site` has
    /// its shape: a transfer is unannotated or a copy, and any other
    /// instruction names one read value per register operand and defines a
    /// value when it writes a register.
    fn check_inst_annotation(&self, site: Site, inst: &crate::mir::MInstA) -> Result<(), AllocCheckError> {
        let (annot, inst) = (&inst.annot, &inst.inst);
        if inst.is_transfer() {
            let unannotated = annot.reads.is_empty() && annot.defines.is_none();
            let copy = annot.reads.len() == 1 && annot.defines.is_some() && !matches!(inst, MInst::Swap { .. });
            if !(unannotated || copy) {
                return Err(self.bad_annotation(
                    site,
                    "a transfer carries an annotation, but it moves whatever its \
                     source holds (only a move, spill or reload may carry a copy \
                     annotation: one read and one definition)"
                        .to_string(),
                ));
            }
            return Ok(());
        }
        if let MInst::FixedDiv { op, divisor } = *inst {
            if !matches!(op, BinOp::Div | BinOp::Rem) || divisor == RDX {
                return Err(self.malformed(
                    site,
                    format!("a fixed division must be `/` or `%` with its divisor not in rdx: `{inst}`"),
                ));
            }
        }
        let operands = calls::read_locations(inst).len();
        if annot.reads.len() != operands {
            return Err(self.bad_annotation(
                site,
                format!(
                    "the annotation names {} read value(s) for {operands} register \
                     operand(s)",
                    annot.reads.len()
                ),
            ));
        }
        let writes = !inst.reg_writes().is_empty();
        if annot.defines.is_some() != writes {
            let message = if writes {
                "the instruction writes a register, but its annotation defines no value"
            } else {
                "the annotation defines a value, but the instruction writes no register"
            };
            return Err(self.bad_annotation(site, message.to_string()));
        }
        Ok(())
    }

    /// The state on entry to the function.
    fn entry_state(&self) -> Entry {
        let mut state = Entry::new(LocState::Unknown);
        for &(loc, v) in &self.m.params {
            self.write(&mut state, self.index(loc), LocState::Value(v));
        }
        state
    }

    /// Writes `x` into location `i` of `state`, noting where values go.
    fn write(&self, state: &mut impl Locations<LocState>, i: usize, x: LocState) {
        if let (true, LocState::Value(v)) = (i >= self.m.k, x) {
            let mut slots_of = self.slots_of.borrow_mut();
            let list = slots_of.entry(v).or_default();
            if !list.contains(&i) {
                list.push(i);
            }
        }
        state.set(i, x);
    }

    /// A new value of `d` is about to be written: every location that holds
    /// the current value of `d` now holds an old one.
    fn define(&self, state: &mut impl Locations<LocState>, d: Value) {
        for i in 0..self.m.k {
            if state.get(i) == LocState::Value(d) {
                state.set(i, LocState::Stale(d));
            }
        }
        if let Some(list) = self.slots_of.borrow().get(&d) {
            for &i in list {
                if state.get(i) == LocState::Value(d) {
                    state.set(i, LocState::Stale(d));
                }
            }
        }
    }

    /// Applies the phis of a block on entry: all destinations are defined
    /// at once, each into its location.
    fn enter_phis(&self, state: &mut impl Locations<LocState>, phis: &[PhiAnnot]) {
        // The kills come first: a phi's location may hold the destination
        // of another phi of the block (a cycle), and must receive its own.
        for phi in phis {
            self.define(state, phi.dest);
        }
        for phi in phis {
            self.write(state, self.index(phi.loc), LocState::Value(phi.dest));
        }
    }

    /// Fails unless `loc` holds `expected` in `state`.
    fn expect(&self, state: &State, loc: Loc, expected: Value, site: Site) -> Result<(), AllocCheckError> {
        let found = state.get(self.index(loc));
        if found == LocState::Value(expected) {
            Ok(())
        } else {
            Err(self.error(site, AllocCheckErrorKind::WrongValue { loc, expected, found }))
        }
    }

    /// Applies the instructions of `b` to `state`, checking their operands
    /// when `check` is set, and then the terminator's operand.
    fn run_block(&self, b: Block, state: &mut State, check: bool) -> Result<(), AllocCheckError> {
        let data = &self.m.blocks[b];
        for (index, inst) in data.insts.iter().enumerate() {
            if check {
                let site = Site::Inst { block: b, index };
                for (l, &v) in calls::read_locations(&inst.inst).into_iter().zip(&inst.annot.reads) {
                    self.expect(state, l, v, site)?;
                }
            }
            if let (Some((src, dst)), [source], Some(d)) =
                (copy_locations(&inst.inst), inst.annot.reads.as_slice(), inst.annot.defines)
            {
                // A copy annotation (out-of-ssa): the transfer is the program's
                // `d = copy source`, checked like an operation.
                if check {
                    self.expect(state, src, *source, Site::Inst { block: b, index })?;
                }
                self.define(state, d);
                self.write(state, self.index(dst), LocState::Value(d));
                continue;
            }
            match inst.inst {
                MInst::Move { dst, src } => {
                    self.write(state, self.index(Loc::Reg(dst)), state.get(self.index(Loc::Reg(src))))
                }
                MInst::Swap { a, b } => {
                    let (i, j) = (self.index(Loc::Reg(a)), self.index(Loc::Reg(b)));
                    let (x, y) = (state.get(i), state.get(j));
                    self.write(state, i, y);
                    self.write(state, j, x);
                }
                MInst::Spill { slot, src } => {
                    self.write(state, self.index(Loc::Slot(slot)), state.get(self.index(Loc::Reg(src))))
                }
                MInst::Reload { dst, slot } => {
                    self.write(state, self.index(Loc::Reg(dst)), state.get(self.index(Loc::Slot(slot))))
                }
                _ => {
                    // An operation: `check_annotations` made sure that it
                    // names a definition exactly when it writes a register.
                    for c in calls::clobbers(&inst.inst, self.m.k) {
                        self.write(state, self.index(Loc::Reg(c)), LocState::Clobbered);
                    }
                    if let (Some(d), Some(&dst)) = (inst.annot.defines, inst.inst.reg_writes().first()) {
                        self.define(state, d);
                        self.write(state, self.index(Loc::Reg(dst)), LocState::Value(d));
                    }
                }
            }
        }
        if check {
            if let (MTerm::Branch { cond: r, .. } | MTerm::Return(r), Some(v)) = (&data.term, data.term_reads) {
                self.expect(state, Loc::Reg(*r), v, Site::Terminator(b))?;
            }
        }
        Ok(())
    }

    /// The state on entry to `succ` along the edge from `pred` that is
    /// occurrence `occurrence` of `pred` in `succ.preds`, given the state
    /// `out` at the end of `pred`, restricted to the registers and the slots
    /// `live` at the entry of `succ`. When `check` is set, first checks
    /// that each phi's location holds the phi's argument for this edge.
    fn take_edge(
        &self,
        pred: Block,
        succ: Block,
        occurrence: usize,
        out: &State,
        live: &[u32],
        check: bool,
    ) -> Result<Entry, AllocCheckError> {
        let data = &self.m.blocks[succ];
        // `check_cfg` made sure that the edge is in the list.
        let edge = self.positions.position(pred, succ, occurrence).ok_or_else(|| {
            self.malformed(Site::Block(succ), format!("the edge from {pred} is missing from the predecessor list"))
        })?;
        if check {
            for (phi_index, phi) in data.phis.iter().enumerate() {
                let site = Site::PhiEdge { pred, block: succ, edge, phi: phi_index };
                self.expect(out, phi.loc, phi.args[edge], site)?;
            }
        }
        let mut state = out.restrict(self.m.k, live);
        self.enter_phis(&mut state, &data.phis);
        Ok(state)
    }

    /// The data flow: the fixpoint, then the checking pass. Each block
    /// keeps the state of the registers and of its live slots on entry,
    /// and one full state is reused to run the blocks
    /// (`alloc_checker_states.rs`).
    fn check_values(&self) -> Result<(), AllocCheckError> {
        let m = self.m;
        let n = m.blocks.len();
        let succs = |b: Block| edges(&m.blocks[b].term).into_iter().map(|(t, _)| t).collect::<Vec<_>>();
        let rpo = reverse_postorder(n, Block(0), succs);
        let live = live_slots(m, &rpo, succs, |l| self.index(l));
        if self_checks::in_checked_pass() {
            recomputation::start_function();
            recomputation::check_live_slots(m, &rpo, succs, |l| self.index(l), &live);
        }
        // The state on entry to each block; `None` until an edge reaches it.
        let mut entry: Vec<Option<Entry>> = vec![None; n];
        entry[0] = Some(self.entry_state());
        let mut state = State::new(self.m.k + self.tracked_slots, LocState::Unknown);
        // Round-robin in reverse post-order, skipping the blocks whose entry
        // state has not changed since they last ran: running one again
        // would give the same exit state, and meeting it into a successor's
        // entry again would change nothing (the meet is idempotent), so
        // the states are those of running every block in every round; the
        // rounds cost the blocks that changed, not the whole function.
        let mut dirty = vec![false; n];
        dirty[0] = true;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &rpo {
                let Some(e) = &entry[b.index()] else {
                    continue;
                };
                if !std::mem::take(&mut dirty[b.index()]) {
                    continue;
                }
                recomputation::load_checked(&mut state, e);
                self.run_block(b, &mut state, false)?;
                for (succ, occurrence) in edges(&m.blocks[b].term) {
                    let incoming = self.take_edge(b, succ, occurrence, &state, &live[succ.index()], false)?;
                    let grew = match &mut entry[succ.index()] {
                        slot @ None => {
                            *slot = Some(incoming);
                            true
                        }
                        Some(old) => recomputation::meet_checked(old, &incoming, LocState::meet, state.len()),
                    };
                    if grew {
                        dirty[succ.index()] = true;
                        changed = true;
                    }
                }
            }
        }
        for &b in &rpo {
            let Some(e) = &entry[b.index()] else {
                continue;
            };
            recomputation::load_checked(&mut state, e);
            self.run_block(b, &mut state, true)?;
            for (succ, occurrence) in edges(&m.blocks[b].term) {
                self.take_edge(b, succ, occurrence, &state, &live[succ.index()], true)?;
            }
        }
        Ok(())
    }
}

/// The source and destination of a transfer that may carry a copy
/// annotation (`Move`, `Spill`, `Reload`; not `Swap`, not an operation).
fn copy_locations(inst: &MInst) -> Option<(Loc, Loc)> {
    match *inst {
        MInst::Move { dst, src } => Some((Loc::Reg(src), Loc::Reg(dst))),
        MInst::Spill { slot, src } => Some((Loc::Reg(src), Loc::Slot(slot))),
        MInst::Reload { dst, slot } => Some((Loc::Slot(slot), Loc::Reg(dst))),
        _ => None,
    }
}

fn join(blocks: &[Block]) -> String {
    blocks.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
}
