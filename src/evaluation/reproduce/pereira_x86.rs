//! Pereira's Table 1 and Fig. 9 counted in the final x86-64 code, as the
//! paper counts its assembly (`evaluation/x86_counts.rs`): loads, stores
//! (the program's own included), moves, and swaps as three xors and as one
//! `xchg`, static and executed; and Fig. 9 as a weighted cost of the
//! executed code, with stated weights and the conclusion's stability under
//! other weights.
//!
//! The execution count of each block is measured once per program and
//! allocator family (ssa-ra's blocks do not depend on K or its options,
//! linear scan's are those of the out-of-SSA program) and reused for every
//! K and option.

use crate::construction::braun::{construct_program, BraunOptions};
use crate::differential::later_stage_fuel;
use crate::evaluation::eval_error::EvalError;
use crate::evaluation::reproduce::allocators::Allocator;
use crate::evaluation::reproduce::measure::{count, ratio, verdict_cell, Section, Table, Tolerance, Workload};
use crate::evaluation::spill_code_sources::ProgramBlockCounts;
use crate::evaluation::x86_counts::{x86_counts, Weights, X86Counts};
use crate::ir::Module;
use crate::oracle::Oracle;
use crate::outcome::End;

/// One program of a workload, ready to be allocated and weighed.
struct Program {
    name: String,
    ssa: Module,
    /// Execution counts of the blocks of ssa-ra's code (its function after
    /// critical-edge splitting) and of linear scan's (the out-of-SSA program).
    ssa_ra_counts: Vec<u64>,
    linear_scan_counts: Vec<u64>,
}

/// The programs of `w` that finish within `fuel`, with their block counts.
fn prepare(w: &Workload, oracle: &dyn Oracle, fuel: u64) -> Result<Vec<Program>, EvalError> {
    let mut out = Vec::new();
    for case in &w.cases {
        let source = oracle.run_source(&case.program, &case.args, fuel).map_err(EvalError::Oracle)?;
        if source.end == End::OutOfFuel {
            continue;
        }
        let ssa = construct_program(&case.program, &BraunOptions::all_on());
        let counts = ProgramBlockCounts::measure(&ssa, &case.args, oracle, later_stage_fuel(fuel))
            .map_err(|e| e.within(case.name.clone()))?;
        out.push(Program {
            name: case.name.clone(),
            ssa,
            ssa_ra_counts: counts.ssa_ra,
            linear_scan_counts: counts.linear_scan,
        });
    }
    Ok(out)
}

/// Static and executed x86 counts of `alloc` with `k` registers over the
/// programs.
fn measure(programs: &[Program], alloc: Allocator, k: usize) -> Result<(X86Counts, X86Counts), EvalError> {
    let (mut st, mut dy) = (X86Counts::default(), X86Counts::default());
    for p in programs {
        let (mir, _) = alloc.allocate(&p.ssa, k).map_err(|e| e.within(p.name.clone()))?;
        let mf = mir.main().ok_or_else(|| EvalError::NoMain("the allocated module").within(p.name.clone()))?;
        let counts = match alloc {
            Allocator::SsaRa(_) => &p.ssa_ra_counts,
            Allocator::LinearScan => &p.linear_scan_counts,
        };
        let (s, d) = x86_counts(mf, counts).map_err(|e| e.within(p.name.clone()))?;
        st.add(&s);
        dy.add(&d);
    }
    Ok((st, dy))
}

/// Table 1 in x86 instructions, and Fig. 9 as a weighted cost.
pub fn section(s: &mut Section, workloads: &[&Workload], oracle: &dyn Oracle, fuel: u64) -> Result<(), EvalError> {
    let prepared: Vec<Vec<Program>> = workloads.iter().map(|w| prepare(w, oracle, fuel)).collect::<Result<_, _>>()?;
    table1(s, workloads, &prepared)?;
    fig9_cost(s, workloads, &prepared)
}

fn table1(s: &mut Section, workloads: &[&Workload], prepared: &[Vec<Program>]) -> Result<(), EvalError> {
    const K: usize = 8;
    s.markdown.push_str(&format!(
        "### Table 1: spill code and copies with 8 general-purpose registers\n\n\
         Paper: sums over its ten SPEC CPU 2000 benchmarks of Table 1 (11 registers, 8 general purpose; \
         counts of the whole assembly code, the program's own loads, stores and moves included; \"xor\" \
         is three per swap). Ours: K = {K}, counted as the paper counts, in the final x86-64 code \
         (`evaluation/x86_counts.rs`): stores and loads are every `mov` to or from memory (spill slots, a \
         division's stack words, the program's own `mem`; not the machine model's control words), moves \
         every register-to-register `mov` (instruction selection's included), a swap is three xors in the \
         paper's column and one `xchg` in the next; the spill code alone is given apart. Spills are values \
         spilled (linear scan: its slots, one per spilled variable). Executed counts weigh each block by its \
         execution count from the oracle. The verdicts judge the paper's pattern, not its sizes: loads + \
         stores and moves + xors relative to linear scan's, on the same side of 1 as the paper's \
         (tolerance: same side, ratios within 0.02 of 1 count as equal).\n\n"
    ));
    let mut t = Table::new(&[
        "allocator",
        "input",
        "spills",
        "stack slots",
        "stores",
        "loads",
        "moves",
        "xors (3 per swap)",
        "xchg (1 per swap)",
        "spill stores",
        "spill loads",
        "dyn stores",
        "dyn loads",
        "dyn moves",
        "dyn xors",
        "dyn xchg",
        "loads + stores ÷ linear scan's",
        "verdict (loads + stores)",
        "moves + xors ÷ linear scan's",
        "verdict (moves + xors)",
    ]);
    let rows: [(&str, Allocator, [u64; 6]); 3] = [
        ("Ch -O1", Allocator::ch_o1(), [10_508, 2_029, 33_531, 65_314, 33_203, 7_934]),
        ("Ch -O3", Allocator::ch_o3(), [8_436, 1_617, 25_388, 57_094, 29_452, 2_021]),
        (
            "LLVM linear scan / out-of-ssa linear scan",
            Allocator::LinearScan,
            [14_090, 2_540, 31_429, 59_417, 12_428, 1_544],
        ),
    ];
    let llvm = rows[2].2;
    let paper_mem = |p: &[u64; 6]| (p[2] + p[3]) as f64 / (llvm[2] + llvm[3]) as f64;
    let paper_mov = |p: &[u64; 6]| (p[4] + p[5]) as f64 / (llvm[4] + llvm[5]) as f64;
    // Ours per workload: (static, dynamic, values spilled, slots) per allocator.
    let mut ours: Vec<Vec<(X86Counts, X86Counts, u64, u64)>> = Vec::new();
    for programs in prepared {
        let mut per = Vec::new();
        for (_, alloc, _) in rows {
            let (st, dy) = measure(programs, alloc, K)?;
            let (mut spilled, mut slots) = (0u64, 0u64);
            for p in programs {
                let (mir, n) = alloc.allocate(&p.ssa, K)?;
                spilled += n as u64;
                slots += mir.functions.iter().map(|f| u64::from(f.slot_count)).sum::<u64>();
            }
            per.push((st, dy, spilled, slots));
        }
        ours.push(per);
    }
    let side = Tolerance::SameSign(0.02);
    for (r, (name, _, paper)) in rows.iter().enumerate() {
        let mut row = vec![name.to_string(), "paper (SPEC, 10 programs)".to_string()];
        row.extend(paper[..5].iter().map(|&x| count(x)));
        row.push(count(paper[5]));
        row.extend(std::iter::repeat_n("–".to_string(), 8));
        row.push(format!("{:.3}", paper_mem(paper)));
        row.push("–".into());
        row.push(format!("{:.3}", paper_mov(paper)));
        row.push("–".into());
        t.row(row);
        for (wi, w) in workloads.iter().enumerate() {
            let (st, dy, spilled, slots) = ours[wi][r];
            let ls = ours[wi][2].0;
            let mem = (st.loads + st.stores) as f64 / (ls.loads + ls.stores).max(1) as f64;
            let mov = (st.moves + st.xors()) as f64 / (ls.moves + ls.xors()).max(1) as f64;
            let linear = r == 2;
            t.row(vec![
                name.to_string(),
                format!("ours: {}", w.label),
                count(spilled),
                count(slots),
                count(st.stores),
                count(st.loads),
                count(st.moves),
                count(st.xors()),
                count(st.xchg),
                count(st.spill_stores),
                count(st.spill_loads),
                count(dy.stores),
                count(dy.loads),
                count(dy.moves),
                count(dy.xors()),
                count(dy.xchg),
                format!("{mem:.3}"),
                if linear { "–".into() } else { verdict_cell(Some(paper_mem(paper) - 1.0), mem - 1.0, side) },
                format!("{mov:.3}"),
                if linear { "–".into() } else { verdict_cell(Some(paper_mov(paper) - 1.0), mov - 1.0, side) },
            ]);
        }
    }
    s.markdown.push_str(&t.render());
    Ok(())
}

/// The weights of the cost: `memory` per load or store, 1 per move, `swap`
/// per swap.
const BASE: Weights = Weights { memory: 3.0, swap: 3.0 };
const MEMORY_WEIGHTS: [f64; 5] = [1.0, 2.0, 3.0, 5.0, 10.0];
const SWAP_WEIGHTS: [f64; 2] = [1.0, 3.0];

fn fig9_cost(s: &mut Section, workloads: &[&Workload], prepared: &[Vec<Program>]) -> Result<(), EvalError> {
    const KS: [usize; 4] = [4, 8, 12, 15];
    s.markdown.push_str(&format!(
        "### Fig. 9 as a weighted cost of the executed x86-64 code\n\n\
         Paper: Ch -O3 runs faster than LLVM's linear scan with 4 and 8 registers and slower from about 12 \
         on. Ours: the executed loads, stores, moves and swaps of the final code (as in Table 1, the \
         program's own included), weighed {} per load or store, 1 per move and {} per swap (three xors); \
         the cost is our stand-in for run time. Sensitivity: the winner is recomputed with a memory access \
         weighing {} and a swap {} (one `xchg` or three xors), {} combinations. Verdict: our winner with the \
         stated weights against the paper's (none at K = 12, \"around\" the crossover).\n\n",
        BASE.memory,
        BASE.swap,
        MEMORY_WEIGHTS.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", "),
        SWAP_WEIGHTS.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(" or "),
        MEMORY_WEIGHTS.len() * SWAP_WEIGHTS.len()
    ));
    let mut t = Table::new(&[
        "input",
        "K",
        "ssa-ra cost",
        "linear scan cost",
        "ssa-ra ÷ linear scan",
        "winner",
        "same winner under other weights",
        "paper's winner",
        "verdict",
    ]);
    for (wi, w) in workloads.iter().enumerate() {
        for k in KS {
            let (_, r1) = measure(&prepared[wi], Allocator::ch_o3(), k)?;
            let (_, ls) = measure(&prepared[wi], Allocator::LinearScan, k)?;
            let winner = |wt: &Weights| if wt.cost(&r1) <= wt.cost(&ls) { "ssa-ra" } else { "linear scan" };
            let base = winner(&BASE);
            let mut same = 0;
            for m in MEMORY_WEIGHTS {
                for sw in SWAP_WEIGHTS {
                    if winner(&Weights { memory: m, swap: sw }) == base {
                        same += 1;
                    }
                }
            }
            // The paper's claim as a sign: + where ssa-ra wins, − where linear scan does.
            let paper = match k {
                4 | 8 => Some(1.0),
                15 => Some(-1.0),
                _ => None,
            };
            let ours = BASE.cost(&ls) - BASE.cost(&r1);
            t.row(vec![
                w.label.clone(),
                k.to_string(),
                count(BASE.cost(&r1) as u64),
                count(BASE.cost(&ls) as u64),
                ratio(BASE.cost(&r1), BASE.cost(&ls)),
                base.to_string(),
                format!("{same} of {}", MEMORY_WEIGHTS.len() * SWAP_WEIGHTS.len()),
                match paper {
                    Some(p) if p > 0.0 => "ssa-ra".into(),
                    Some(_) => "linear scan".into(),
                    None => "–".into(),
                },
                verdict_cell(paper, ours, Tolerance::SameSign(0.0)),
            ]);
        }
    }
    s.markdown.push_str(&t.render());
    Ok(())
}
