//! Braun, Buchwald, Hack, Leißa, Mallon, Zwinkau, "Simple and Efficient
//! Construction of Static Single Assignment Form" (CC 2013), §6, redone:
//! Table 1 (instructions and phis of Braun et al.'s construction, plain and
//! marker variants, against Cytron et al.'s), Table 2 (construction time),
//! Table 3 (the on-the-fly optimizations of §3.1: construction time, IR
//! size and compile time), and construction time per statement from 1k
//! statements up (log-log plot).
//!
//! The paper's figures are copied from its text (sums over SPEC CINT2000
//! in LLVM 3.1 for Tables 1–2, libFirm for Table 3).

use crate::construction::braun::{construct_program, BraunOptions};
use crate::construction::cytron::construct_cytron;
use crate::evaluation::eval_error::EvalError;
use crate::evaluation::reproduce::measure::{
    change, compile, count, ms_spread, percent, ratio, statements, Scale, Section, Table, Workload,
};
use crate::evaluation::reproduce::plots::{line_plot, LinePlot, Series};
use crate::evaluation::timing::{interleaved, median, MemoryProbe, Run, Timing};
use crate::generate::source::{Shape, TestCase};
use crate::ir::{Module, Op};
use crate::ssa_ra::regalloc::RegallocOptions;
use std::any::Any;

/// The constructions compared, in the order they run within a repetition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Construction {
    Cytron,
    Braun(BraunOptions),
}

impl Construction {
    fn build(self, program: &crate::ast::Program) -> Module {
        match self {
            Construction::Cytron => construct_cytron(program),
            Construction::Braun(o) => construct_program(program, &o),
        }
    }
}

fn marker() -> BraunOptions {
    BraunOptions { marker: true, ..BraunOptions::plain() }
}

/// Cytron et al., Braun et al. plain, Braun et al.'s marker variant.
fn compared() -> [(&'static str, Construction); 3] {
    [
        ("Cytron et al.", Construction::Cytron),
        ("Braun plain", Construction::Braun(BraunOptions::plain())),
        ("Braun marker", Construction::Braun(marker())),
    ]
}

/// Instructions (phis not counted), phis, and memory instructions.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    insts: u64,
    phis: u64,
    mem: u64,
}

fn counts(m: &Module) -> Counts {
    let mut c = Counts::default();
    for f in &m.functions {
        c.insts += f.inst_count() as u64;
        c.phis += f.phi_count() as u64;
        for b in f.blocks.values() {
            c.mem += b.insts.iter().filter(|i| matches!(i.op, Op::Load(_) | Op::Store { .. })).count() as u64;
        }
    }
    c
}

fn workload_counts(w: &Workload, c: Construction) -> Counts {
    let mut total = Counts::default();
    for case in &w.cases {
        let x = counts(&c.build(&case.program));
        total.insts += x.insts;
        total.phis += x.phis;
        total.mem += x.mem;
    }
    total
}

/// Builds the whole workload with `c` once; what it built is kept until
/// the clock stops.
fn build_all(w: &Workload, c: Construction) -> Result<Box<dyn Any>, EvalError> {
    Ok(Box::new(w.cases.iter().map(|case| c.build(&case.program)).collect::<Vec<_>>()))
}

/// Braun et al.'s section of the report.
pub fn section(workloads: &[&Workload], scale: Scale, probe: &dyn MemoryProbe) -> Result<Section, EvalError> {
    let mut s = Section::default();
    s.markdown.push_str(
        "## Braun et al., *Simple and Efficient Construction of SSA Form* (CC 2013), §6\n\n\
         The paper implements its algorithm in LLVM 3.1 and compares it with LLVM's tuned Cytron et al. \
         construction on the C programs of SPEC CINT2000 (Tables 1–2), and measures the on-the-fly \
         optimizations in libFirm (Table 3). We run ssaref's two constructions on the same AST: Cytron et \
         al. (`construction/cytron.rs`, which first lowers the AST to a CFG over variables, pruned by \
         liveness) and Braun et al. (`construction/braun/`), plain (`BraunOptions::plain`: no on-the-fly \
         optimization, Algorithm 5 on) and with the marker algorithm of §3.3.\n\n",
    );
    table1(&mut s, workloads);
    table2(&mut s, workloads, scale, probe)?;
    table3(&mut s, workloads, scale)?;
    scaling(&mut s, scale, probe)?;
    Ok(s)
}

fn table1(s: &mut Section, workloads: &[&Workload]) {
    s.markdown.push_str("### Table 1: instructions and phis\n\n");
    let per: Vec<Vec<Counts>> =
        workloads.iter().map(|w| compared().iter().map(|&(_, c)| workload_counts(w, c)).collect()).collect();
    let mut header = vec!["count", "paper, Table 1 (SPEC CINT2000 sum)"];
    let labels: Vec<String> = workloads.iter().map(|w| format!("ours: {}", w.label)).collect();
    header.extend(labels.iter().map(String::as_str));
    let mut t = Table::new(&header);
    // (row, the paper's figure, which construction, which count)
    type Row = (&'static str, &'static str, usize, fn(&Counts) -> u64);
    let paper: [Row; 8] = [
        ("instructions, Cytron et al. (LLVM)", "934,392", 0, |c| c.insts),
        ("phis, Cytron et al. (LLVM)", "38,674", 0, |c| c.phis),
        ("memory instructions, Cytron et al.", "208,713", 0, |c| c.mem),
        ("instructions, Braun plain", "not reported", 1, |c| c.insts),
        ("phis, Braun plain", "not reported", 1, |c| c.phis),
        ("instructions, Braun marker", "931,865", 2, |c| c.insts),
        ("phis, Braun marker", "38,696", 2, |c| c.phis),
        ("memory instructions, Braun marker", "208,583", 2, |c| c.mem),
    ];
    for (name, p, which, get) in paper {
        let mut row = vec![name.to_string(), p.to_string()];
        row.extend(per.iter().map(|c| count(get(&c[which]))));
        t.row(row);
    }
    let mut row = vec!["instructions, marker / Cytron".to_string(), "99.73%".to_string()];
    row.extend(per.iter().map(|c| percent(c[2].insts as f64, c[0].insts as f64)));
    t.row(row);
    let mut row = vec!["phis, marker / Cytron".to_string(), "100.06%".to_string()];
    row.extend(per.iter().map(|c| percent(c[2].phis as f64, c[0].phis as f64)));
    t.row(row);
    s.markdown.push_str(&t.render());
    let phi_diffs: Vec<String> = workloads
        .iter()
        .zip(&per)
        .map(|(w, c)| {
            format!(
                "{}: Cytron et al. {} phis, Braun plain {}, marker {}",
                w.label,
                count(c[0].phis),
                count(c[1].phis),
                count(c[2].phis)
            )
        })
        .collect();
    s.markdown.push_str(&format!(
        "Why they differ: the paper counts LLVM instructions, where the `alloca`/`load`/`store` of local \
         variables survive in unpromoted code and LLVM's constant folding fires more often after the marker \
         algorithm; ssaref's memory instructions are only the program's own `mem` accesses, so they are equal \
         in both constructions, and where our Cytron et al. counts a few instructions more, they are \
         constants that its lowering to a CFG over variables emits and Braun et al.'s construction does not \
         (quicksort: one `const 0` more). The paper's phi counts differ by 22 because 3 of its 11 redundant SCCs come \
         from reducible code and only Algorithm 5 removes them; ours ({}) differ where Cytron et al.'s \
         liveness-pruned phis keep a phi whose variable is read only by a dead assignment, which Braun et \
         al.'s dead-phi removal deletes (`pipeline::useful_phi_count`).\n\n",
        phi_diffs.join("; ")
    ));
    if let Some(corpus) = workloads.first() {
        s.markdown.push_str(&format!("Per program ({}):\n\n", corpus.label));
        let mut t = Table::new(&[
            "program",
            "statements",
            "Cytron insn",
            "Cytron phi",
            "plain insn",
            "plain phi",
            "marker insn",
            "marker phi",
        ]);
        for case in &corpus.cases {
            let mut row = vec![case.name.clone(), count(case.statements() as u64)];
            for (_, c) in compared() {
                let x = counts(&c.build(&case.program));
                row.push(count(x.insts));
                row.push(count(x.phis));
            }
            t.row(row);
        }
        s.markdown.push_str(&t.render());
    }
}

fn table2(s: &mut Section, workloads: &[&Workload], scale: Scale, probe: &dyn MemoryProbe) -> Result<(), EvalError> {
    s.markdown.push_str(&format!(
        "### Table 2: construction time\n\n\
         Ours: the whole workload built by each construction, {} interleaved repetitions; median \
         [min–max] in ms, and the ratio of medians to Cytron et al.'s from the same run.\n\n",
        scale.repeat()
    ));
    let mut header = vec!["construction", "paper, Table 2 (executed instructions, sum)", "paper ratio"];
    let labels: Vec<String> =
        workloads.iter().flat_map(|w| [format!("ours: {} (ms)", w.label), format!("{} ratio", w.label)]).collect();
    header.extend(labels.iter().map(String::as_str));
    let mut t = Table::new(&header);
    let mut timings = Vec::new();
    for w in workloads {
        let mut runs: Vec<Run<'_>> =
            compared().iter().map(|&(_, c)| Box::new(move || build_all(w, c)) as Run<'_>).collect();
        timings.push(interleaved(scale.repeat(), probe, &mut runs)?);
    }
    let paper = [("71,846,356,773", "100%"), ("not reported", "–"), ("71,647,089,583", "99.72%")];
    for (i, (name, _)) in compared().iter().enumerate() {
        let mut row = vec![name.to_string(), paper[i].0.to_string(), paper[i].1.to_string()];
        for tm in &timings {
            row.push(ms_spread(&tm[i].seconds));
            row.push(ratio(tm[i].median(), tm[0].median()));
        }
        t.row(row);
    }
    s.markdown.push_str(&t.render());
    s.markdown.push_str(
        "Why they differ: the paper counts the x86 instructions that all of LLVM executes while compiling \
         SPEC CINT2000 with either construction (so most of the count is the rest of the compiler), on a Core \
         i7-2600; ours times the constructions alone, in-process, on programs a hundred to a thousand times \
         smaller, and our Cytron et al. includes the lowering of the AST to a CFG over variables that it \
         needs first.\n\n",
    );
    Ok(())
}

fn table3(s: &mut Section, workloads: &[&Workload], scale: Scale) -> Result<(), EvalError> {
    const K: usize = 8;
    s.markdown.push_str(&format!(
        "### Table 3: on-the-fly optimizations\n\n\
         Ours: Braun et al. plain against every on-the-fly optimization of §3.1 on (`BraunOptions::all_on`: \
         constant folding, arithmetic simplification, local CSE, copy propagation). IR size is instructions \
         plus phis; compile time is construction plus ssa-ra's passes at K = {K} (checkers not counted) plus \
         x86-64 lowering, summed over the workload; medians of {} repetitions.\n\n",
        scale.repeat()
    ));
    let variants =
        [("no on-the-fly optimizations", BraunOptions::plain()), ("on-the-fly optimizations", BraunOptions::all_on())];
    let mut header = vec!["measure", "paper, Table 3, none (sum)", "paper, optimized (sum)", "paper change"];
    let labels: Vec<String> = workloads
        .iter()
        .flat_map(|w| {
            [format!("ours: {}, none", w.label), format!("{}, optimized", w.label), format!("{} change", w.label)]
        })
        .collect();
    header.extend(labels.iter().map(String::as_str));
    let mut t = Table::new(&header);
    let mut cols = Vec::new();
    for w in workloads {
        // Per variant: construction, compile totals per repetition; IR size.
        let mut construction = [Vec::new(), Vec::new()];
        let mut total = [Vec::new(), Vec::new()];
        let mut size = [0u64; 2];
        for (v, (_, opts)) in variants.iter().enumerate() {
            let c = workload_counts(w, Construction::Braun(*opts));
            size[v] = c.insts + c.phis;
        }
        let regalloc = RegallocOptions::with_k(K);
        for _ in 0..scale.repeat() {
            for (v, (_, opts)) in variants.iter().enumerate() {
                let (mut c, mut all) = (0.0, 0.0);
                for case in &w.cases {
                    let times = compile(&case.program, opts, &regalloc).map_err(|e| e.within(case.name.clone()))?;
                    c += times.construction;
                    all += times.total();
                }
                construction[v].push(c);
                total[v].push(all);
            }
        }
        cols.push((construction, total, size));
    }
    let rows: [(&str, &str, &str, &str); 3] = [
        ("construction time", "2.01 s", "2.86 s", "+42%"),
        ("IR size (instructions)", "974,743", "859,311", "−11.8%"),
        ("compile time", "147.67 s", "146.18 s", "−1.0%"),
    ];
    for (r, (name, p0, p1, pc)) in rows.iter().enumerate() {
        let mut row = vec![name.to_string(), p0.to_string(), p1.to_string(), pc.to_string()];
        for (construction, total, size) in &cols {
            let (a, b, cells) = match r {
                0 => (
                    median(&construction[0]),
                    median(&construction[1]),
                    [ms_spread(&construction[0]) + " ms", ms_spread(&construction[1]) + " ms"],
                ),
                1 => (size[0] as f64, size[1] as f64, [count(size[0]), count(size[1])]),
                _ => {
                    (median(&total[0]), median(&total[1]), [ms_spread(&total[0]) + " ms", ms_spread(&total[1]) + " ms"])
                }
            };
            row.extend(cells);
            row.push(change(a, b));
        }
        t.row(row);
    }
    s.markdown.push_str(&t.render());
    s.markdown.push_str(
        "Why they differ: libFirm interleaves many more optimizations with construction, and its compile \
         time is a whole optimizing compiler's, of which construction is 1.4%; ours is construction, ssa-ra \
         and lowering only, so the construction's share, and with it the effect of a smaller IR on the rest, \
         is far larger. The generator writes constant expressions and repeated subexpressions more freely \
         than a programmer does, so folding and CSE find more to remove in the generated programs than in \
         the corpus.\n\n",
    );
    Ok(())
}

fn scaling(s: &mut Section, scale: Scale, probe: &dyn MemoryProbe) -> Result<(), EvalError> {
    s.markdown.push_str(&format!(
        "### Construction time per statement, 1k statements and up\n\n\
         One function of about N statements, `ssaref gen --seed 1 --shape structured --size N` (made \
         in-process), built by each construction, interleaved ({} repetitions, at most 5 from 30k \
         statements on, 3 from 300k); median [min–max] ms, nanoseconds per statement of the median, and \
         the peak bytes above the start of a run (largest over the runs). Braun et al. prove a \
         Θ(P + (B+E)·V) worst case; the paper reports no scaling curve, only that its construction is as \
         fast as Cytron et al.'s in practice.\n\n",
        scale.repeat()
    ));
    let mut t = Table::new(&[
        "N",
        "statements",
        "variables",
        "Cytron ms",
        "plain ms",
        "marker ms",
        "ns/stmt Cytron",
        "ns/stmt plain",
        "ns/stmt marker",
        "plain/Cytron time",
        "plain/Cytron memory",
        "peak MiB Cytron",
        "peak MiB plain",
    ]);
    let mut series: Vec<Series> =
        compared().iter().map(|(n, _)| Series { name: n.to_string(), points: Vec::new() }).collect();
    let mut config = Shape::Structured.config();
    let sizes = scale.construction_sizes();
    // A construction stops at the size after which even linear growth
    // would take it past `SKIP_AFTER` seconds a run.
    const SKIP_AFTER: f64 = 60.0;
    let mut active = [true; 3];
    let mut skipped = Vec::new();
    for (n, &size) in sizes.iter().enumerate() {
        if !active.contains(&true) {
            break;
        }
        config.size = size;
        let program = TestCase::from_seed(1, &config).program;
        let stmts = statements(&program);
        let vars = variables(&program);
        let which: Vec<usize> = (0..3).filter(|&i| active[i]).collect();
        let mut runs: Vec<Run<'_>> = which
            .iter()
            .map(|&i| {
                let (p, c) = (&program, compared()[i].1);
                Box::new(move || Ok(Box::new(c.build(p)) as Box<dyn Any>)) as Run<'_>
            })
            .collect();
        let measured = interleaved(scale.repeat_at(size), probe, &mut runs)?;
        let mut tm: [Option<Timing>; 3] = Default::default();
        for (&i, x) in which.iter().zip(measured) {
            tm[i] = Some(x);
        }
        let median_of = |i: usize| tm[i].as_ref().map(Timing::median);
        let per_stmt = |i: usize| median_of(i).map(|m| m * 1e9 / stmts.max(1) as f64);
        for (i, se) in series.iter_mut().enumerate() {
            if let Some(y) = per_stmt(i) {
                se.points.push((stmts as f64, y));
            }
        }
        if let Some(&next) = sizes.get(n + 1) {
            for (i, on) in active.iter_mut().enumerate() {
                if let Some(m) = median_of(i).filter(|m| m * next as f64 / size as f64 > SKIP_AFTER) {
                    *on = false;
                    skipped.push(format!(
                        "{} from N = {} on (median {:.1} s at N = {})",
                        compared()[i].0,
                        count(next as u64),
                        m,
                        count(size as u64)
                    ));
                }
            }
        }
        let dash = || "–".to_string();
        let mib = |i: usize| {
            tm[i].as_ref().map_or_else(dash, |x| format!("{:.1}", x.max_peak_bytes() as f64 / (1024.0 * 1024.0)))
        };
        let both = |f: fn(&Timing) -> f64| match (&tm[1], &tm[0]) {
            (Some(a), Some(b)) => ratio(f(a), f(b)),
            _ => dash(),
        };
        t.row(vec![
            count(size as u64),
            count(stmts as u64),
            count(vars as u64),
            tm[0].as_ref().map_or_else(dash, |x| ms_spread(&x.seconds)),
            tm[1].as_ref().map_or_else(dash, |x| ms_spread(&x.seconds)),
            tm[2].as_ref().map_or_else(dash, |x| ms_spread(&x.seconds)),
            per_stmt(0).map_or_else(dash, |x| format!("{x:.0}")),
            per_stmt(1).map_or_else(dash, |x| format!("{x:.0}")),
            per_stmt(2).map_or_else(dash, |x| format!("{x:.0}")),
            both(Timing::median),
            both(|x| x.max_peak_bytes() as f64),
            mib(0),
            mib(1),
        ]);
    }
    s.markdown.push_str(&t.render());
    if !skipped.is_empty() {
        s.markdown.push_str(&format!(
            "Not measured (a run would take more than {SKIP_AFTER:.0} s even if it grew linearly): {}.\n\n",
            skipped.join("; ")
        ));
    }
    let svg = line_plot(&LinePlot {
        title: "SSA construction time per statement (structured functions)".into(),
        x_label: "statements".into(),
        y_label: "ns per statement (median)".into(),
        log_log: true,
        series,
        marks: Vec::new(),
    })?;
    s.plot("braun_scaling.svg", svg, "Braun et al. against Cytron et al.: construction time per statement, log-log");
    Ok(())
}

/// Distinct variable names (parameters and assigned names) of `program`.
fn variables(program: &crate::ast::Program) -> usize {
    let mut vars = std::collections::HashSet::new();
    for f in &program.functions {
        vars.extend(f.params.iter().cloned());
        crate::ast::walk_stmts(&f.body, |s, _| {
            if let crate::ast::Stmt::Var(name, _) | crate::ast::Stmt::Assign(name, _) = s {
                vars.insert(name.clone());
            }
        });
    }
    vars.len()
}
