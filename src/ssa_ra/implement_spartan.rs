//! Spill-free SSA elimination: `ImplementComponent` (Algorithm 1) and
//! `ImplementSpartan` (Algorithm 2) of Pereira and Palsberg, "SSA
//! Elimination after Register Allocation" (CC 2009), §5, with the store
//! hoisting (§6.1) and load lowering (§6.2) variants.
//!
//! The input is one spartan parallel copy (a column of a ϕ-matrix after a
//! frugal allocation of a program in CSSA form, Theorem 1; see
//! `location_transfer_graph.rs`). The output is a program of the paper's
//! language Seq, which [`run_seq`] executes: register moves `r1 := r2`
//! ([`MInst::Move`]), loads `r := m` ([`MInst::Reload`]), stores `m := r`
//! ([`MInst::Spill`]) and register swaps `r1 ⊕ r2` ([`MInst::Swap`]).
//! Nothing else is emitted: no transfer between two slots (the instruction
//! set has none), and no location that the parallel copy does not name, so
//! no scratch register and no scratch slot. Theorem 3 says the result is
//! correct; `proofs-notes/spill-free-ssa-elimination.md` proves it, and
//! proves that the instruction count is the least possible.
//!
//! Each component of the spartan location transfer graph is implemented on
//! its own ([`implement_component`]), and the components are concatenated
//! ([`implement_spartan`]):
//!
//! - a path `(l1, r2), (r2, r3), ..., (r(n-1), ln)` is emitted from its end,
//!   `ln := r(n-1); r(n-1) := r(n-2); ...; r2 := l1`, so that each register
//!   is read before it is overwritten (`ln := r(n-1)` is a store when `ln`
//!   is a slot, and `r2 := l1` a load when `l1` is one);
//! - a cycle `(r1, r2), ..., (r(n-1), rn), (rn, r1)` is emitted as
//!   `rn ⊕ r(n-1); r(n-1) ⊕ r(n-2); ...; r2 ⊕ r1`, `n - 1` swaps;
//! - a self loop `(l, l)` needs nothing; in particular the memory-to-memory
//!   transfers of a frugal allocation are all self loops `(m, m)`.
//!
//! The printed orders of Algorithm 1 are right; the note says which
//! degenerate cases the pseudo-code leaves implicit.
//!
//! Two of the paper's three optimizations (§6) are options of this pass,
//! [`ElimOptions`], and each needs the register allocator's cooperation,
//! which it expresses through [`SkipHooks`]: the allocator decides which
//! store or load may go, and promises what makes the omission correct. The
//! third, redundant memory transfer elimination (§6.3, "memory coalescing"),
//! removes the load and store that implement an ordinary copy `v2 = v`
//! between two spilled ϕ-related variables, which share a slot; that copy is
//! an instruction of the program, not a ϕ-function, so it lives in the
//! register allocator, not here.

use crate::mir::{Loc, MInst, Reg, Slot};
use crate::ssa_ra::location_transfer_graph::{
    ApplyError, Component, CopyError, GraphError, LocationTransferGraph, ParallelCopy, Store,
};
use std::fmt;
use std::ops::AddAssign;

/// Which of the optimizations of §6 to apply. Both are off by default;
/// each only takes effect where the matching hook of [`SkipHooks`] agrees.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ElimOptions {
    /// Store hoisting (§6.1): a path ending in a slot may omit its final
    /// store.
    pub store_hoisting: bool,
    /// Load lowering (§6.2): a path starting at a slot may omit its first
    /// load.
    pub load_lowering: bool,
}

/// The register allocator's decisions for the optimizations of §6, asked
/// only when the matching option of [`ElimOptions`] is on. Each hook states
/// a contract the allocator must keep for the omission to be correct; this
/// pass cannot check it, since it depends on code outside the parallel copy
/// (the `alloc_checker` does, on the whole function).
#[derive(Clone, Copy)]
pub struct SkipHooks<'a> {
    /// `skip_store(m, r)`: may the store `m := r` that ends a path be
    /// omitted (store hoisting, §6.1)?
    ///
    /// Contract, when it answers true: at the point of the parallel copy,
    /// `m` already holds the value that `r` holds. The paper's allocator
    /// ensures it by storing every spilled variable right after its
    /// definition into the one slot of its ϕ-congruence class (frugality):
    /// the argument in `r` belongs to the class of the ϕ-destination in
    /// `m`, it was stored into `m` when it was defined, and no other member
    /// of the class can have overwritten `m` since, because members of a
    /// class do not interfere (CSSA) and a slot holds only one class.
    pub skip_store: &'a dyn Fn(Slot, Reg) -> bool,
    /// `skip_load(m, r)`: may the load `r := m` that starts a path be
    /// omitted (load lowering, §6.2)?
    ///
    /// Contract, when it answers true: the ϕ-destination allocated to `r`
    /// is marked "lowered", no instruction reads it from `r`, and the
    /// allocator reloads it from `m` before each of its uses instead. `m`
    /// holds it: `m` is the first node of its path, so the parallel copy
    /// does not write it, and `m` must keep that value over the whole live
    /// range of the destination (true when `m` is the one slot of the
    /// class, which no other member of the class overwrites while the
    /// destination is live). After the copy `r` still holds whatever it
    /// held before (its old value has already moved on along the path).
    pub skip_load: &'a dyn Fn(Slot, Reg) -> bool,
}

/// The hook that refuses every omission.
fn never(_: Slot, _: Reg) -> bool {
    false
}

/// The hook that allows every omission.
fn always(_: Slot, _: Reg) -> bool {
    true
}

impl SkipHooks<'static> {
    /// Hooks that never allow an omission.
    pub const NEVER: SkipHooks<'static> = SkipHooks { skip_store: &never, skip_load: &never };

    /// Hooks that allow every omission the options ask for: the paper's
    /// pseudo-code of §6.1 (every final store goes) and of §6.2 when every
    /// variable is marked to be lowered.
    pub const ALWAYS: SkipHooks<'static> = SkipHooks { skip_store: &always, skip_load: &always };
}

/// A component that no spartan graph has, which [`implement_component`]
/// refuses.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ComponentError {
    /// A path of fewer than two nodes.
    ShortPath(Vec<Loc>),
    /// A path that visits a node twice.
    PathRevisits(Vec<Loc>),
    /// `memory` is an inner node of `path`.
    MemoryInsidePath { memory: Loc, path: Vec<Loc> },
    /// An edge from a slot to another slot.
    MemoryToMemory(Slot, Slot),
    /// A cycle of fewer than two registers.
    ShortCycle(Vec<Reg>),
    /// A cycle that visits a register twice.
    CycleRevisits(Vec<Reg>),
}

impl fmt::Display for ComponentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComponentError::ShortPath(nodes) => write!(f, "a path needs at least two nodes: {nodes:?}"),
            ComponentError::PathRevisits(nodes) => write!(f, "a path visits a node twice: {nodes:?}"),
            ComponentError::MemoryInsidePath { memory, path } => {
                write!(f, "not spartan: memory {memory} is an inner node of the path {path:?}")
            }
            ComponentError::MemoryToMemory(a, b) => {
                write!(f, "not spartan: the edge ({a}, {b}) copies memory to other memory")
            }
            ComponentError::ShortCycle(regs) => {
                write!(f, "a cycle needs at least two registers (a self loop is a SelfLoop): {regs:?}")
            }
            ComponentError::CycleRevisits(regs) => write!(f, "a cycle visits a register twice: {regs:?}"),
        }
    }
}

impl std::error::Error for ComponentError {}

/// Why [`implement_spartan`] refuses a parallel copy.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ImplementError {
    /// The copy is not well defined or not spartan.
    Copy(CopyError),
    /// Its location transfer graph is not spartan.
    Graph(GraphError),
    /// A component of the graph cannot be implemented.
    Component(ComponentError),
}

impl fmt::Display for ImplementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImplementError::Copy(e) => e.fmt(f),
            ImplementError::Graph(e) => e.fmt(f),
            ImplementError::Component(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ImplementError {}

/// Why [`run_seq`] stops.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SeqError {
    /// Instruction `index` reads `loc`, which holds no value.
    Unset { index: usize, loc: Loc },
    /// Instruction `index` is not one of Seq.
    NotSeq { index: usize, inst: MInst },
}

impl fmt::Display for SeqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeqError::Unset { index, loc } => write!(f, "instruction {index} reads {loc}, which holds no value"),
            SeqError::NotSeq { index, inst } => write!(f, "instruction {index} ({inst}) is not a Seq instruction"),
        }
    }
}

impl std::error::Error for SeqError {}

/// What [`check_implementation`] finds wrong with an implementation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ImplementationError {
    /// The copy itself is not well defined or not spartan.
    Copy(CopyError),
    /// The copy cannot be applied to the test store.
    Apply(ApplyError),
    /// The code is wrong; `listing` shows the copy, the options and the
    /// code.
    Code { problem: CodeProblem, listing: String },
}

/// What is wrong with the code of an implementation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CodeProblem {
    /// An instruction that is not a Seq transfer.
    NotSeq(MInst),
    /// An instruction that names a location the copy does not.
    Scratch { inst: MInst, loc: Loc },
    /// Running the code fails.
    Run(SeqError),
    /// The code leaves a location with a wrong value: each entry is a
    /// location, what it holds, and what it should hold.
    WrongResult(Vec<(Loc, Option<i64>, i64)>),
    /// More instructions than the optimum.
    NotOptimal { counts: Counts, optimum: Counts },
}

impl fmt::Display for ImplementationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImplementationError::Copy(e) => e.fmt(f),
            ImplementationError::Apply(e) => e.fmt(f),
            ImplementationError::Code { problem, listing } => {
                match problem {
                    CodeProblem::NotSeq(inst) => write!(f, "{inst} is not a Seq instruction")?,
                    CodeProblem::Scratch { inst, loc } => write!(f, "{inst} names {loc}, which the copy does not")?,
                    CodeProblem::Run(e) => e.fmt(f)?,
                    CodeProblem::WrongResult(wrong) => {
                        let wrong: Vec<String> =
                            wrong.iter().map(|(l, got, v)| format!("{l} holds {got:?} instead of {v}")).collect();
                        write!(f, "wrong result ({})", wrong.join("; "))?
                    }
                    CodeProblem::NotOptimal { counts, optimum } => {
                        write!(f, "instruction counts {counts:?}, the optimum is {optimum:?}")?
                    }
                }
                write!(f, ", {listing}")
            }
        }
    }
}

impl std::error::Error for ImplementationError {}

/// Implements one component of a spartan location transfer graph
/// (Algorithm 1, `ImplementComponent`, with the variants of §6.1 and §6.2).
///
/// Fails, without emitting anything, when the component is not one a
/// spartan graph can have: a path shorter than two nodes, with memory in
/// its middle or with an edge between two slots, or a cycle of fewer than
/// two registers or with a repeated register.
pub fn implement_component(
    c: &Component,
    opts: &ElimOptions,
    hooks: &SkipHooks<'_>,
) -> Result<Vec<MInst>, ComponentError> {
    match c {
        Component::SelfLoop(_) => Ok(Vec::new()),
        Component::Path(nodes) => implement_path(nodes, opts, hooks),
        Component::Cycle(regs) => implement_cycle(regs),
    }
}

/// A path `l1 → r2 → ... → r(n-1) → ln`: `ln := r(n-1); ...; r2 := l1`.
fn implement_path(nodes: &[Loc], opts: &ElimOptions, hooks: &SkipHooks<'_>) -> Result<Vec<MInst>, ComponentError> {
    let n = nodes.len();
    if n < 2 {
        return Err(ComponentError::ShortPath(nodes.to_vec()));
    }
    let mut distinct = nodes.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != n {
        return Err(ComponentError::PathRevisits(nodes.to_vec()));
    }
    if let Some(m) = nodes[1..n - 1].iter().find(|l| matches!(l, Loc::Slot(_))) {
        return Err(ComponentError::MemoryInsidePath { memory: *m, path: nodes.to_vec() });
    }
    let mut insts = Vec::with_capacity(n - 1);
    // The edges from the last to the first: the edge (nodes[i], nodes[i +
    // 1]) overwrites nodes[i + 1], whose old value the edge after it has
    // already copied on.
    for i in (0..n - 1).rev() {
        match (nodes[i], nodes[i + 1]) {
            (Loc::Reg(src), Loc::Reg(dst)) => insts.push(MInst::Move { dst, src }),
            (Loc::Reg(src), Loc::Slot(slot)) => {
                // A slot is never an inner node, so this is the last edge:
                // the final store of §6.1.
                if !(opts.store_hoisting && (hooks.skip_store)(slot, src)) {
                    insts.push(MInst::Spill { slot, src });
                }
            }
            (Loc::Slot(slot), Loc::Reg(dst)) => {
                // Likewise, this is the first edge: the load of §6.2.
                if !(opts.load_lowering && (hooks.skip_load)(slot, dst)) {
                    insts.push(MInst::Reload { dst, slot });
                }
            }
            (Loc::Slot(a), Loc::Slot(b)) => {
                return Err(ComponentError::MemoryToMemory(a, b));
            }
        }
    }
    Ok(insts)
}

/// A cycle `r1 → r2 → ... → rn → r1`: `rn ⊕ r(n-1); ...; r2 ⊕ r1`.
fn implement_cycle(regs: &[Reg]) -> Result<Vec<MInst>, ComponentError> {
    if regs.len() < 2 {
        return Err(ComponentError::ShortCycle(regs.to_vec()));
    }
    let mut distinct = regs.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != regs.len() {
        return Err(ComponentError::CycleRevisits(regs.to_vec()));
    }
    // Before the swap of r(i+1) and ri (1-based), r(i+1) holds the value of
    // rn; the swap puts the value of ri in r(i+1), where the copy wants it,
    // and carries rn's value down to ri. After the last swap r1 holds rn's.
    Ok(regs.windows(2).rev().map(|w| MInst::Swap { a: w[1], b: w[0] }).collect())
}

/// Implements a spartan parallel copy (Algorithm 2, `ImplementSpartan`):
/// checks that `pc` is spartan, builds its location transfer graph and
/// concatenates the code of its components.
///
/// Fails on a copy that is not well defined or not spartan, never panics.
pub fn implement_spartan(
    pc: &ParallelCopy,
    opts: &ElimOptions,
    hooks: &SkipHooks<'_>,
) -> Result<Vec<MInst>, ImplementError> {
    pc.spartan_or_error().map_err(ImplementError::Copy)?;
    let graph = LocationTransferGraph::new(pc).map_err(ImplementError::Copy)?;
    let mut insts = Vec::new();
    for c in graph.spartan_components().map_err(ImplementError::Graph)? {
        insts.extend(implement_component(&c, opts, hooks).map_err(ImplementError::Component)?);
    }
    Ok(insts)
}

/// Runs a Seq program (§5) on `store`: `Move`, `Reload` and `Spill` copy a
/// value, `Swap` exchanges two registers. Fails on any other instruction
/// and on a read of a location the store does not define, so a test learns
/// when code reads a location it was not given.
pub fn run_seq(insts: &[MInst], store: &mut Store) -> Result<(), SeqError> {
    let read = |store: &Store, l: Loc, i: usize| store.get(l).ok_or(SeqError::Unset { index: i, loc: l });
    for (i, inst) in insts.iter().enumerate() {
        match *inst {
            MInst::Move { dst, src } => {
                let v = read(store, Loc::Reg(src), i)?;
                store.set(Loc::Reg(dst), v);
            }
            MInst::Reload { dst, slot } => {
                let v = read(store, Loc::Slot(slot), i)?;
                store.set(Loc::Reg(dst), v);
            }
            MInst::Spill { slot, src } => {
                let v = read(store, Loc::Reg(src), i)?;
                store.set(Loc::Slot(slot), v);
            }
            MInst::Swap { a, b } => {
                let va = read(store, Loc::Reg(a), i)?;
                let vb = read(store, Loc::Reg(b), i)?;
                store.set(Loc::Reg(a), vb);
                store.set(Loc::Reg(b), va);
            }
            ref other => return Err(SeqError::NotSeq { index: i, inst: other.clone() }),
        }
    }
    Ok(())
}

/// Checks `insts`, the output of [`implement_spartan`] for the spartan copy
/// `pc` under `opts` and `hooks`, without looking at how it was made:
///
/// - every instruction is a Seq transfer (move, swap, load, store) and
///   names only locations of `pc`: no scratch location;
/// - run on a store where every location of `pc` holds a distinct value, it
///   leaves every destination with its source's old value and every other
///   location unchanged ([`ParallelCopy::apply`]), except the destinations
///   whose store or load the options and hooks allowed to omit, which must
///   keep their old value;
/// - it has the least possible number of instructions, and exactly one
///   load or store per memory edge that was not omitted: writing `E` for
///   the moves whose destination differs from their source and `C` for the
///   register cycles of two or more nodes, `|E| - |C|` instructions less the
///   omissions, of which `Σ (|c| - 1)` swaps (the lower bound is proved in
///   `proofs-notes/spill-free-ssa-elimination.md`).
///
/// Returns the instruction counts. The cycles are found from `pc` directly,
/// not through the location transfer graph.
pub fn check_implementation(
    pc: &ParallelCopy,
    opts: &ElimOptions,
    hooks: &SkipHooks<'_>,
    insts: &[MInst],
) -> Result<Counts, ImplementationError> {
    crate::pass_manager::self_checks::count();
    pc.spartan_or_error().map_err(ImplementationError::Copy)?;
    let locs = pc.locations();
    let wrong_code = |problem| {
        let lines: Vec<String> = insts.iter().map(|i| format!("    {i}")).collect();
        let listing = format!("for {pc} with {opts:?}:\n{}", lines.join("\n"));
        ImplementationError::Code { problem, listing }
    };
    for inst in insts {
        let Some(named) = transfer_locations(inst) else {
            return Err(wrong_code(CodeProblem::NotSeq(inst.clone())));
        };
        if let Some(loc) = named.into_iter().find(|l| locs.binary_search(l).is_err()) {
            return Err(wrong_code(CodeProblem::Scratch { inst: inst.clone(), loc }));
        }
    }

    let (expected, omitted) = optimum(pc, opts, hooks);

    let before = Store::distinct(&locs, 1000);
    let mut want = pc.apply(&before).map_err(ImplementationError::Apply)?;
    for &l in &omitted {
        want.set(l, before.get(l).expect("every location has a value"));
    }
    let mut got = before.clone();
    run_seq(insts, &mut got).map_err(|e| wrong_code(CodeProblem::Run(e)))?;
    if got != want {
        let wrong = want.iter().filter(|&(l, v)| got.get(l) != Some(v)).map(|(l, v)| (l, got.get(l), v)).collect();
        return Err(wrong_code(CodeProblem::WrongResult(wrong)));
    }
    let counts = count(insts);
    if counts != expected {
        return Err(wrong_code(CodeProblem::NotOptimal { counts, optimum: expected }));
    }
    Ok(counts)
}

/// The least instruction counts that implement `pc` (the bound of
/// `proofs-notes/spill-free-ssa-elimination.md`), and the destinations
/// whose store or load the options and hooks allow to omit.
fn optimum(pc: &ParallelCopy, opts: &ElimOptions, hooks: &SkipHooks<'_>) -> (Counts, Vec<Loc>) {
    // The omissions the options and hooks allow, read off the moves: a
    // store `m := r` can only end a path and a load `r := m` only start one.
    let mut omitted = Vec::new();
    let mut expected = Counts::default();
    for &(d, s) in &pc.moves {
        match (d, s) {
            (Loc::Slot(m), Loc::Reg(r)) => {
                if opts.store_hoisting && (hooks.skip_store)(m, r) {
                    omitted.push(d);
                } else {
                    expected.stores += 1;
                }
            }
            (Loc::Reg(r), Loc::Slot(m)) => {
                if opts.load_lowering && (hooks.skip_load)(m, r) {
                    omitted.push(d);
                } else {
                    expected.loads += 1;
                }
            }
            (Loc::Reg(_), Loc::Reg(_)) if d != s => expected.moves += 1,
            _ => {}
        }
    }
    // A register lies on a cycle of two or more nodes when following the
    // moves from it (source to destination) comes back to it.
    let next = |l: Loc| pc.moves.iter().find(|&&(_, s)| s == l).map(|&(d, _)| d);
    let mut cycle_nodes = 0;
    let mut cycles = 0;
    for &(d, s) in &pc.moves {
        if d == s {
            continue;
        }
        let mut l = d;
        let mut len = 1;
        let mut smallest = s;
        while l != s && len <= pc.moves.len() {
            smallest = smallest.min(l);
            len += 1;
            match next(l) {
                Some(n) => l = n,
                None => break,
            }
        }
        if l == s && smallest == s {
            cycles += 1;
            cycle_nodes += len;
        }
    }
    // Each cycle of n registers turns n moves into n - 1 swaps.
    expected.moves -= cycle_nodes;
    expected.swaps = cycle_nodes - cycles;
    (expected, omitted)
}

/// The two locations a Seq transfer names (a swap or a copy between two
/// registers, a load or a store between a register and a slot).
fn transfer_locations(inst: &MInst) -> Option<[Loc; 2]> {
    match *inst {
        MInst::Move { dst, src } => Some([Loc::Reg(dst), Loc::Reg(src)]),
        MInst::Swap { a, b } => Some([Loc::Reg(a), Loc::Reg(b)]),
        MInst::Spill { slot, src } => Some([Loc::Slot(slot), Loc::Reg(src)]),
        MInst::Reload { dst, slot } => Some([Loc::Reg(dst), Loc::Slot(slot)]),
        _ => None,
    }
}

/// Instruction counts, for statistics.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Counts {
    /// Register-to-register moves.
    pub moves: usize,
    /// Register swaps.
    pub swaps: usize,
    /// Loads of a slot into a register (`Reload`).
    pub loads: usize,
    /// Stores of a register into a slot (`Spill`).
    pub stores: usize,
    /// Every other instruction (none in the output of this pass).
    pub others: usize,
}

impl Counts {
    /// The number of instructions counted.
    pub fn total(&self) -> usize {
        self.moves + self.swaps + self.loads + self.stores + self.others
    }
}

impl AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.moves += o.moves;
        self.swaps += o.swaps;
        self.loads += o.loads;
        self.stores += o.stores;
        self.others += o.others;
    }
}

/// Counts the instructions of `insts` by kind.
pub fn count(insts: &[MInst]) -> Counts {
    let mut c = Counts::default();
    for inst in insts {
        match inst {
            MInst::Move { .. } => c.moves += 1,
            MInst::Swap { .. } => c.swaps += 1,
            MInst::Reload { .. } => c.loads += 1,
            MInst::Spill { .. } => c.stores += 1,
            _ => c.others += 1,
        }
    }
    c
}
