//! Statistics of ssa-ra, in the columns of Pereira's Table 1 (values
//! spilled, stack slots, stores, loads, moves, and swaps in place of xors)
//! and of Pereira and Palsberg §7 (memory accesses with and without the
//! optimizations of §6), static and dynamic.
//!
//! Static counts come from the allocated code; dynamic counts from running
//! it in the oracle (`Oracle::profile_mir`). Loads and stores are those of
//! spill code (`Reload`, `Spill`), not the program's own `mem` accesses.

use crate::ast::Program;
use crate::backend::ssa_ra::allocate_module;
use crate::construction::braun::{construct_program, BraunOptions};
use crate::evaluation::eval_error::{EvalError, Within};
use crate::mir::{MInst, MModule, MirProfile};
use crate::oracle::Oracle;
use crate::outcome::End;
use crate::pass_manager::flags::Flags;
use crate::pass_manager::runner::Unobserved;
use crate::ssa_ra::regalloc::RegallocOptions;
use std::fmt::Write;

/// Totals over a corpus for one option set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocCounts {
    pub programs: usize,
    pub values_spilled: usize,
    pub slots: u64,
    pub loads: u64,
    pub stores: u64,
    pub moves: u64,
    pub swaps: u64,
    /// Executed counts, over the runs that finished.
    pub dynamic: MirProfile,
    /// Runs that finished (return or trap) and were counted.
    pub runs: usize,
}

impl AllocCounts {
    /// Static memory accesses of spill code.
    pub fn memory(&self) -> u64 {
        self.loads + self.stores
    }

    /// Dynamic memory accesses of spill code.
    pub fn dynamic_memory(&self) -> u64 {
        self.dynamic.loads + self.dynamic.stores
    }

    /// Adds the static counts of `m`: its stack slots and its spill code
    /// (`Reload`, `Spill`), moves and swaps.
    pub fn add_static(&mut self, m: &MModule) {
        for f in &m.functions {
            self.slots += u64::from(f.slot_count);
            for b in f.blocks.values() {
                for i in &b.insts {
                    match i.inst {
                        MInst::Reload { .. } => self.loads += 1,
                        MInst::Spill { .. } => self.stores += 1,
                        MInst::Move { .. } => self.moves += 1,
                        MInst::Swap { .. } => self.swaps += 1,
                        _ => {}
                    }
                }
            }
        }
    }
}

/// Allocates and runs every program with `opts`; an allocation failure is an
/// `Err` naming the program's index (a bug of ssaref).
pub fn measure(
    corpus: &[(Program, Vec<i64>)],
    opts: &RegallocOptions,
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<AllocCounts, EvalError> {
    let mut c = AllocCounts::default();
    for (i, (program, args)) in corpus.iter().enumerate() {
        let ssa = construct_program(program, &BraunOptions::all_on());
        let (mir, reports) =
            allocate_module(&ssa, opts, Flags::checked(), &mut Unobserved).within(|| format!("program {i}"))?;
        c.programs += 1;
        c.values_spilled += reports.iter().map(|r| r.spilled).sum::<usize>();
        c.add_static(&mir);
        let _ = c.add_run(&mir, args, oracle, fuel);
    }
    Ok(c)
}

impl AllocCounts {
    /// Runs `mir` in the oracle (`Oracle::profile_mir`) and, when the run
    /// finishes (returns or traps), adds its executed counts to
    /// `self.dynamic` and counts the run. Returns the run's outcome, or
    /// why the oracle could not run it.
    pub fn add_run(
        &mut self,
        mir: &MModule,
        args: &[i64],
        oracle: &dyn Oracle,
        fuel: u64,
    ) -> Result<crate::outcome::Outcome, EvalError> {
        let (outcome, profile) = oracle.profile_mir(mir, args, fuel).map_err(EvalError::Oracle)?;
        if outcome.end != End::OutOfFuel {
            self.runs += 1;
            self.dynamic.executed += profile.executed;
            self.dynamic.loads += profile.loads;
            self.dynamic.stores += profile.stores;
            self.dynamic.moves += profile.moves;
            self.dynamic.swaps += profile.swaps;
        }
        Ok(outcome)
    }
}

fn reduction(before: u64, after: u64) -> String {
    if before == 0 {
        return "n/a".into();
    }
    format!("{:+.1}%", (after as f64 - before as f64) * 100.0 / before as f64)
}

/// The comparison table: ImplementSpartan alone, each §6 optimization
/// alone, and all of them, on the same corpus and K.
pub fn comparison_table(
    corpus: &[(Program, Vec<i64>)],
    k: usize,
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<String, EvalError> {
    let all = RegallocOptions::with_k(k);
    let plain = all.without_section_6();
    let rows: Vec<(&str, RegallocOptions)> = vec![
        ("ImplementSpartan only", plain),
        ("+ store hoisting (SH)", RegallocOptions { store_hoisting: true, ..plain }),
        ("+ load lowering (LL)", RegallocOptions { load_lowering: true, ..plain }),
        ("+ RMTE", RegallocOptions { redundant_memory_transfer_elimination: true, ..plain }),
        ("SH + LL + RMTE", all),
    ];
    let mut counts = Vec::new();
    for (name, opts) in &rows {
        counts.push((name, measure(corpus, opts, oracle, fuel)?));
    }
    let base = counts[0].1;
    let mut s = String::new();
    let _ = writeln!(s, "ssa-ra at K = {k} on {} programs ({} runs counted)", base.programs, base.runs);
    let _ = writeln!(
        s,
        "{:<24} {:>7} {:>6} {:>7} {:>7} {:>7} {:>6} | {:>9} {:>9} {:>9} {:>8} | {:>9} {:>9}",
        "configuration",
        "spilled",
        "slots",
        "loads",
        "stores",
        "moves",
        "swaps",
        "dyn loads",
        "dyn store",
        "dyn moves",
        "dyn swap",
        "static mem",
        "dyn mem"
    );
    for (name, c) in &counts {
        let _ = writeln!(
            s,
            "{:<24} {:>7} {:>6} {:>7} {:>7} {:>7} {:>6} | {:>9} {:>9} {:>9} {:>8} | {:>9} {:>9}",
            name,
            c.values_spilled,
            c.slots,
            c.loads,
            c.stores,
            c.moves,
            c.swaps,
            c.dynamic.loads,
            c.dynamic.stores,
            c.dynamic.moves,
            c.dynamic.swaps,
            reduction(base.memory(), c.memory()),
            reduction(base.dynamic_memory(), c.dynamic_memory()),
        );
    }
    let _ = writeln!(
        s,
        "memory accesses of spill code, all of §6 vs ImplementSpartan only: static {} -> {} ({}), dynamic {} -> {} ({}); Pereira and Palsberg report \"more than 9%\" fewer",
        base.memory(),
        counts[4].1.memory(),
        reduction(base.memory(), counts[4].1.memory()),
        base.dynamic_memory(),
        counts[4].1.dynamic_memory(),
        reduction(base.dynamic_memory(), counts[4].1.dynamic_memory()),
    );
    Ok(s)
}

/// ssa-ra's two spilling strategies on the same corpus and K, everything
/// else on: spill decisions during the coloring walk with the §4.6 weight
/// deduction (Pereira §4.5-4.6, `spill_during_coloring.rs`), and the
/// separate pass before coloring (`spill.rs`).
pub fn spill_strategy_table(
    corpus: &[(Program, Vec<i64>)],
    k: usize,
    oracle: &dyn Oracle,
    fuel: u64,
) -> Result<String, EvalError> {
    let all = RegallocOptions::with_k(k);
    let during = RegallocOptions { spill_during_coloring: true, ..all };
    let separate = RegallocOptions { spill_during_coloring: false, ..all };
    let mut s = String::new();
    let _ = writeln!(s, "ssa-ra's spilling strategies at K = {k} (all of §6 on)");
    let _ = writeln!(
        s,
        "{:<34} {:>7} {:>6} {:>7} {:>7} {:>7} {:>6} | {:>9} {:>9} {:>9}",
        "strategy", "spilled", "slots", "loads", "stores", "moves", "swaps", "dyn loads", "dyn store", "dyn mem"
    );
    let mut rows = Vec::new();
    for (name, opts) in [("during coloring, §4.6 deduction", during), ("separate pass before coloring", separate)] {
        let c = measure(corpus, &opts, oracle, fuel)?;
        let _ = writeln!(
            s,
            "{:<34} {:>7} {:>6} {:>7} {:>7} {:>7} {:>6} | {:>9} {:>9} {:>9}",
            name,
            c.values_spilled,
            c.slots,
            c.loads,
            c.stores,
            c.moves,
            c.swaps,
            c.dynamic.loads,
            c.dynamic.stores,
            c.dynamic_memory()
        );
        rows.push(c);
    }
    let _ = writeln!(
        s,
        "during coloring vs separate pass: static memory accesses {} -> {} ({}), dynamic {} -> {} ({})",
        rows[1].memory(),
        rows[0].memory(),
        reduction(rows[1].memory(), rows[0].memory()),
        rows[1].dynamic_memory(),
        rows[0].dynamic_memory(),
        reduction(rows[1].dynamic_memory(), rows[0].dynamic_memory()),
    );
    Ok(s)
}
