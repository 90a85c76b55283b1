//! Where the executed spill code of an allocation comes from: the stores
//! right after the definition of a spilled value, the reloads right before
//! a use, and the transfers between a register and memory that implement
//! the copies of phi-related values (the parallel copies on the edges, the
//! stores that store hoisting moves to a definition, the copies PhiLifting
//! left between a register-resident and a spilled member of a class).
//!
//! Why: on the corpus ssa-ra (Pereira's SSA-based allocator) executes more
//! spill loads and stores than out-of-ssa's linear scan at K = 4 and 8,
//! against the paper's premise that allocating before SSA elimination
//! spills less. Pereira's allocator spills SSA values one by one and lets
//! the members of one phi-congruence class live some in registers and some
//! in memory (the "partial spilling of phi-functions" of his §4.2), which
//! the edges then pay for; linear scan, after out-of-SSA coalescing, spills
//! a whole variable (a web of phi-related values) or none of it. The split
//! measured here shows which of the two kinds of spill code the difference
//! is made of.
//!
//! How: each kind is counted per block of the allocated code, and each
//! block's execution count comes from the oracle, by running the function
//! the allocated code was emitted from once more with one extra constant
//! instruction in that block (the difference in executed instructions is
//! the block's count; the allocated code has the same blocks). The sums are
//! checked against the oracle's own count of executed loads and stores of
//! the allocated code; a disagreement is an error, not a statistic (a run
//! that traps stops inside its last block, which may then be counted
//! whole: by at most one block's code).
//!
//! - ssa-ra: the spilled values and reloads are those of the spilling pass,
//!   rerun on the function it was given (it is deterministic; the result
//!   must be the function the allocator kept). A store after the definition
//!   of a spilled value by an operation, and a reload `r = copy v` the
//!   spiller made, are the spill code proper; every other load and store of
//!   the allocated code is a transfer.
//! - linear scan: a load or store that implements a copy of the program
//!   (annotated with it, `mir::Annot`) is a transfer; the others are the
//!   stores after writes and reloads before reads of spilled variables.

use crate::backend::ssa_ra::allocate_module;
use crate::backend::{Backend, OutOfSsa};
use crate::entity::EntityRef;
use crate::evaluation::eval_error::EvalError;
use crate::ir::{Function, Inst, Module, Op};
use crate::mir::{MFunction, MInst};
use crate::oracle::Oracle;
use crate::out_of_ssa::conventional::ConventionalAllocator;
use crate::out_of_ssa::translate::OutOfSsaOptions;
use crate::outcome::End;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::Unobserved;
use crate::ssa_ra::regalloc::RegallocOptions;
use crate::ssa_ra::spill::{spill, SpillOptions, SpillResult};
use crate::ssa_ra::spill_during_coloring::{spill_during_coloring, SpillDuringColoringOptions};

/// Executed spill code of one allocation, by where it comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillSources {
    /// Stores right after the definition (or write) of a spilled value.
    pub def_stores: u64,
    /// Reloads right before a use (or read) of a spilled value.
    pub use_reloads: u64,
    /// Stores that move a phi-related value from a register to memory.
    pub transfer_stores: u64,
    /// Loads that move a phi-related value from memory to a register.
    pub transfer_loads: u64,
    /// Executed moves and swaps (not spill code; for the same table).
    pub moves: u64,
    pub swaps: u64,
    /// Copies the out-of-SSA program executes (linear scan only: the copies
    /// left after out-of-SSA coalescing, which linear scan's moves implement
    /// when they are not coalesced).
    pub out_of_ssa_copies: u64,
}

impl SpillSources {
    /// The spill code proper: stores after definitions and reloads before uses.
    pub fn proper(&self) -> u64 {
        self.def_stores + self.use_reloads
    }

    /// The transfers of phi-related values.
    pub fn transfers(&self) -> u64 {
        self.transfer_stores + self.transfer_loads
    }

    /// All executed loads and stores of spill code.
    pub fn total(&self) -> u64 {
        self.proper() + self.transfers()
    }

    pub fn add(&mut self, o: &SpillSources) {
        self.def_stores += o.def_stores;
        self.use_reloads += o.use_reloads;
        self.transfer_stores += o.transfer_stores;
        self.transfer_loads += o.transfer_loads;
        self.moves += o.moves;
        self.swaps += o.swaps;
        self.out_of_ssa_copies += o.out_of_ssa_copies;
    }
}

/// Per block of a function: (spill-code stores, spill-code loads, transfer
/// stores, transfer loads, moves, swaps), static.
type BlockKinds = [u64; 6];

/// The execution count of each block of the function `f` (a `main`) run
/// with `args`, for the blocks whose entry in `wanted` is set (0 for the
/// others), by one extra run per such block (see the module documentation).
pub fn block_counts(
    f: &Function,
    wanted: &[bool],
    args: &[i64],
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<Vec<u64>, EvalError> {
    let single = |g: Function| Module { functions: vec![g] };
    let run = |m: &Module| oracle.profile_ssa(m, args, fuel).map(|(_, p)| p.insts).map_err(EvalError::Oracle);
    let base = run(&single(f.clone()))?;
    let mut counts = vec![0; f.blocks.len()];
    for b in f.blocks.keys() {
        if !wanted.get(b.index()).copied().unwrap_or(false) {
            continue;
        }
        let mut g = f.clone();
        let v = g.new_value();
        g.blocks[b].insts.insert(0, Inst { dest: Some(v), op: Op::Const(0) });
        counts[b.index()] = run(&single(g))?.saturating_sub(base);
    }
    Ok(counts)
}

/// The execution counts of the blocks of the code ssa-ra and linear scan
/// (after out-of-SSA translation with its default options) make of a
/// program, measured once: ssa-ra's blocks are those of its function after
/// critical-edge splitting, whatever K and its options; linear scan's those
/// of the out-of-SSA program.
#[derive(Clone, Debug, Default)]
pub struct ProgramBlockCounts {
    pub ssa_ra: Vec<u64>,
    pub linear_scan: Vec<u64>,
}

/// ssa-ra's allocation of `ssa` with `opts`, unchecked, and its function
/// `i` after each pass that rewrites it, under the pass's name.
fn ssa_ra_stages(
    ssa: &Module,
    i: usize,
    opts: &RegallocOptions,
) -> Result<(crate::mir::MModule, Vec<(String, Function)>), EvalError> {
    let mut stages = Vec::new();
    let name = &ssa.functions[i].name;
    let mut keep = |stage: &str, m: &Module| {
        let pass = stage.strip_suffix(&format!("@{name}")).unwrap_or(stage);
        if m.functions.len() == 1 || stage.ends_with(&format!("@{name}")) {
            stages.push((pass.to_string(), m.functions[i].clone()));
        }
    };
    let (mir, _) = allocate_module(ssa, opts, Flags::unchecked(), &mut keep)?;
    Ok((mir, stages))
}

/// out-of-ssa's preparation of `ssa`, unchecked, and the destructed
/// program it shows.
fn prepare_destructed(b: &OutOfSsa, ssa: &Module) -> Result<(crate::backend::Prepared, Module), EvalError> {
    let mut destructed = None;
    let prepared = b.prepare(ssa, Flags::unchecked(), &mut |_: &str, m: &Module| destructed = Some(m.clone()))?;
    let destructed =
        destructed.ok_or_else(|| EvalError::NoStage { backend: "out-of-ssa", kept: "translated program" })?;
    Ok((prepared, destructed))
}

impl ProgramBlockCounts {
    pub fn measure(ssa: &Module, args: &[i64], oracle: &dyn Oracle, fuel: u64) -> Result<Self, EvalError> {
        let all = |f: &Function| vec![true; f.blocks.len()];
        let i = ssa.functions.iter().position(|f| f.name == "main").ok_or_else(|| EvalError::NoMain("the program"))?;
        let (_, stages) = ssa_ra_stages(ssa, i, &RegallocOptions::with_k(8))?;
        // The blocks of the allocated code: those after the splits at
        // divisions when there are any (they add blocks), else after edge
        // splitting; later passes add none.
        let split = &stages
            .iter()
            .find(|(pass, _)| pass == "split-divisions")
            .or(stages.first())
            .ok_or_else(|| EvalError::NoStage { backend: "ssa-ra", kept: "function after splitting edges" })?
            .1;
        let ssa_ra = block_counts(split, &all(split), args, oracle, fuel)?;
        let b = OutOfSsa { out_of_ssa: OutOfSsaOptions::default(), allocator: ConventionalAllocator::LinearScan };
        let (_, destructed) = prepare_destructed(&b, ssa)?;
        let f = destructed
            .functions
            .iter()
            .find(|f| f.name == "main")
            .ok_or_else(|| EvalError::NoMain("the translated program"))?;
        let linear_scan = block_counts(f, &all(f), args, oracle, fuel)?;
        Ok(ProgramBlockCounts { ssa_ra, linear_scan })
    }
}

/// Sums `kinds` weighted by `counts` into a [`SpillSources`], and checks
/// the loads and stores against the oracle's count for `mir`.
fn weigh(
    kinds: &[BlockKinds],
    counts: &[u64],
    mir: &crate::mir::MModule,
    args: &[i64],
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<SpillSources, EvalError> {
    let mut s = SpillSources::default();
    for (k, &c) in kinds.iter().zip(counts) {
        s.def_stores += k[0] * c;
        s.use_reloads += k[1] * c;
        s.transfer_stores += k[2] * c;
        s.transfer_loads += k[3] * c;
        s.moves += k[4] * c;
        s.swaps += k[5] * c;
    }
    let (outcome, p) = oracle.profile_mir(mir, args, fuel).map_err(EvalError::Oracle)?;
    let ours = [s.def_stores + s.transfer_stores, s.use_reloads + s.transfer_loads, s.moves, s.swaps];
    let theirs = [p.stores, p.loads, p.moves, p.swaps];
    // A run that traps leaves its last block part-way, which the block
    // counts take as whole: ours may exceed the oracle's by one block.
    let slack = |i: usize| match outcome.end {
        End::Trap(_) => kinds.iter().map(|k| if i < 2 { k[i] + k[i + 2] } else { k[i + 2] }).max().unwrap_or(0),
        _ => 0,
    };
    if (0..4).any(|i| ours[i] < theirs[i] || ours[i] - theirs[i] > slack(i)) {
        return Err(EvalError::WeightedCounts { ours, oracle: theirs });
    }
    Ok(s)
}

/// Counts of moves and swaps of a block of allocated code, into `k[4..6]`.
fn count_moves(mf: &MFunction, b: crate::ir::Block, k: &mut BlockKinds) {
    for i in &mf.blocks[b].insts {
        match i.inst {
            MInst::Move { .. } => k[4] += 1,
            MInst::Swap { .. } => k[5] += 1,
            _ => {}
        }
    }
}

/// The one function a program runs (`main`), of an allocated module.
fn main_of(mir: &crate::mir::MModule) -> Result<&MFunction, EvalError> {
    mir.main().ok_or_else(|| EvalError::NoMain("the allocated module"))
}

/// The spilling pass's result on `before` (the function ssa-ra gave it),
/// which must rewrite it into `after` (the function ssa-ra kept).
fn rerun_spiller(before: &Function, after: &Function, opts: &RegallocOptions) -> Result<SpillResult, EvalError> {
    let mut g = before.clone();
    let result = if opts.spill_during_coloring {
        let o = SpillDuringColoringOptions {
            load_lowering: opts.load_lowering,
            recycle_reloads: opts.recycle_reloads,
            ..SpillDuringColoringOptions::with_k(opts.k)
        };
        spill_during_coloring(&mut g, &o)
    } else {
        let o = SpillOptions { k: opts.k, load_lowering: opts.load_lowering, recycle_reloads: opts.recycle_reloads };
        spill(&mut g, &o)
    }
    .map_err(EvalError::Respill)?;
    if &g != after {
        return Err(EvalError::RespillDiffers);
    }
    Ok(result)
}

/// [`SpillSources`] of ssa-ra with `opts` on the program `ssa` run with
/// `args` (its `main`).
pub fn ssa_ra_sources(
    ssa: &Module,
    opts: &RegallocOptions,
    counts: &[u64],
    args: &[i64],
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<SpillSources, EvalError> {
    let i = ssa.functions.iter().position(|f| f.name == "main").ok_or_else(|| EvalError::NoMain("the program"))?;
    let (mir, stages) = ssa_ra_stages(ssa, i, opts)?;
    let at = stages
        .iter()
        .position(|s| s.0 == "spill")
        .ok_or_else(|| EvalError::NoStage { backend: "ssa-ra", kept: "function after spilling" })?;
    let (before, after) = match at.checked_sub(1) {
        Some(j) => (&stages[j].1, &stages[at].1),
        None => return Err(EvalError::NoStage { backend: "ssa-ra", kept: "function before spilling" }),
    };
    let spilled = rerun_spiller(before, after, opts)?;
    let mf = main_of(&mir)?;
    let mut kinds: Vec<BlockKinds> = vec![[0; 6]; after.blocks.len()];
    for (b, data) in after.blocks.iter() {
        let k = &mut kinds[b.index()];
        let (mut stores, mut loads) = (0u64, 0u64);
        for inst in &mf.blocks[b].insts {
            match inst.inst {
                MInst::Spill { .. } => stores += 1,
                MInst::Reload { .. } => loads += 1,
                _ => {}
            }
        }
        for inst in &data.insts {
            let Some(d) = inst.dest else { continue };
            match inst.op {
                Op::Copy(_) if spilled.reloads.contains(d) => k[1] += 1,
                Op::Copy(_) => {}
                _ if spilled.spilled.contains(d) => k[0] += 1,
                _ => {}
            }
        }
        if k[0] > stores || k[1] > loads {
            return Err(EvalError::FewerThanSpillCode(b));
        }
        k[2] = stores - k[0];
        k[3] = loads - k[1];
        count_moves(mf, b, k);
    }
    if counts.len() != kinds.len() {
        return Err(EvalError::BlockCounts { counts: counts.len(), blocks: kinds.len(), of: Some("ssa-ra's") });
    }
    weigh(&kinds, counts, &mir, args, oracle, fuel)
}

/// [`SpillSources`] of out-of-ssa's linear scan (after the out-of-SSA
/// translation `out_of_ssa`) on the program `ssa` run with `args`.
pub fn linear_scan_sources(
    ssa: &Module,
    out_of_ssa: OutOfSsaOptions,
    k: usize,
    counts: &[u64],
    args: &[i64],
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<SpillSources, EvalError> {
    let backend = OutOfSsa { out_of_ssa, allocator: ConventionalAllocator::LinearScan };
    let (prepared, destructed) = prepare_destructed(&backend, ssa)?;
    let mir = backend.allocate(ssa, &prepared, k, Flags::unchecked(), &mut Unobserved)?;
    let f = destructed
        .functions
        .iter()
        .find(|f| f.name == "main")
        .ok_or_else(|| EvalError::NoMain("the translated program"))?;
    let mf = main_of(&mir)?;
    if mf.blocks.len() != f.blocks.len() {
        return Err(EvalError::LinearScanBlocks { code: mf.blocks.len(), input: f.blocks.len() });
    }
    let mut kinds: Vec<BlockKinds> = vec![[0; 6]; f.blocks.len()];
    for (b, data) in mf.blocks.iter() {
        let k = &mut kinds[b.index()];
        for inst in &data.insts {
            let copy = inst.annot.defines.is_some() && !inst.annot.reads.is_empty();
            match (&inst.inst, copy) {
                (MInst::Spill { .. }, false) => k[0] += 1,
                (MInst::Reload { .. }, false) => k[1] += 1,
                (MInst::Spill { .. }, true) => k[2] += 1,
                (MInst::Reload { .. }, true) => k[3] += 1,
                _ => {}
            }
        }
        count_moves(mf, b, k);
    }
    if counts.len() != kinds.len() {
        return Err(EvalError::BlockCounts { counts: counts.len(), blocks: kinds.len(), of: Some("linear scan's") });
    }
    let mut s = weigh(&kinds, counts, &mir, args, oracle, fuel)?;
    s.out_of_ssa_copies = oracle.profile_ssa(&destructed, args, fuel).map_err(EvalError::Oracle)?.1.copies;
    Ok(s)
}
